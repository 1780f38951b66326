//! The virtual-clock engine under every coordsim model.
//!
//! Time is an integer count of nanoseconds ([`Nanos`]); events run in the total order
//! `(time, class, seq)` ([`EventQueue`]); randomness comes from named, seeded ChaCha streams
//! ([`stream`]); and [`Samples`] turns recorded durations into the statistics the models report.
//! Nothing here reads the wall clock or does I/O, so a run is a pure function of its inputs.
#![warn(missing_docs)]

mod engine;
mod rng;
pub mod station;
mod stats;
mod time;

pub use engine::{Class, EventQueue, Handler, Limits, MAX_CLASS, RunSummary, SimError, run};
pub use rng::{Stream, chance, exponential_ms, source_id, stream};
pub use station::{Stations, Waiting};
pub use stats::{Samples, percentile_rank};
pub use time::{Nanos, ms_to_ns, ns_to_ms};
