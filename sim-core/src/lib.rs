//! The virtual-clock engine under every coordsim model.
//!
//! Nothing here reads the wall clock or does I/O, so a run is a pure function of its inputs:
//! the same events, seeds and limits give the same run on every machine.
//!
//! # Guide
//!
//! **Time** is an integer count of nanoseconds ([`Nanos`]); configs speak milliseconds and
//! [`ms_to_ns`] rounds them once, to the nearest nanosecond. Integer time means two events "at
//! the same time" really are at the same time.
//!
//! **Events** are a model's own small `Copy` type. An [`EventQueue`] holds them in the total
//! order `(time, class, seq)`: earlier time first; at one instant, the lower [`Class`] first
//! (a rank the model chooses to state its tie rules, such as "departures before arrivals" or
//! "lower client first"); and at equal time and class, insertion order (`seq`). So a run never
//! depends on heap order. An event may not be scheduled before the current time: that is a
//! model bug, reported as [`SimError::InThePast`].
//!
//! **Handlers** react to events: a model implements [`Handler`] for its state and event type
//! and calls [`run`] (all events), [`run_until`] (up to a virtual instant, the rest stay
//! pending) or [`step`] (one event). Dispatch is static (generics, no trait objects), and a
//! queue sized with [`EventQueue::with_capacity`] never allocates while it runs.
//!
//! **Limits**: every run is bounded by [`Limits`] (events and virtual time); a run that would
//! pass one stops with a [`SimError`] instead of running away.
//!
//! **Randomness** comes from named streams: [`stream`]`(seed, "arrivals/client-3")` is one
//! ChaCha stream per source, independent of every other source and of the order sources are
//! created in, so drawing more from one source never changes another's numbers.
//!
//! **Resources and statistics**: [`Stations`] are FIFO single servers (the queue a
//! single-writer object is), and [`Samples`] gives exact means and nearest-rank percentiles.
//!
//! An M/D/1 queue (Poisson arrivals every 10 ms on average, 5 ms of service) in a few lines,
//! checked against the Pollaczek–Khinchine mean wait ρD / (2(1 − ρ)) = 0.5 × 5 / 1 = 2.5 ms:
//!
//! ```
//! use sim_core::*;
//!
//! #[derive(Clone, Copy)]
//! enum Ev { Arrive, Depart }
//! struct Md1 { rng: Stream, left: u32, server: Stations, waits: Samples }
//! const SERVICE: Nanos = 5_000_000; // 5 ms
//!
//! impl Handler<Ev> for Md1 {
//!     fn handle(&mut self, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), SimError> {
//!         let now = q.now();
//!         match ev {
//!             Ev::Arrive => {
//!                 if self.server.arrive(0, Waiting { arrived: now, tag: 0 }) {
//!                     self.waits.record(0); // served at once
//!                     q.schedule_in(SERVICE, 0, Ev::Depart);
//!                 }
//!                 self.left -= 1;
//!                 if self.left > 0 {
//!                     let gap = ms_to_ns(exponential_ms(&mut self.rng, 10.0)).unwrap_or(0);
//!                     q.schedule_in(gap, 1, Ev::Arrive);
//!                 }
//!             }
//!             Ev::Depart => {
//!                 if let Some(next) = self.server.depart(0, now) {
//!                     self.waits.record(now - next.arrived);
//!                     q.schedule_in(SERVICE, 0, Ev::Depart);
//!                 }
//!             }
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let n = 200_000;
//! let mut md1 = Md1 {
//!     rng: stream(1, "arrivals"),
//!     left: n,
//!     server: Stations::new(1, 64),
//!     waits: Samples::with_capacity(n as usize),
//! };
//! let mut queue = EventQueue::with_capacity(2, Limits::default());
//! queue.schedule_at(0, 1, Ev::Arrive);
//! run(&mut queue, &mut md1).unwrap();
//! let mean = md1.waits.mean_ms().unwrap();
//! assert!((mean - 2.5).abs() < 0.1, "mean wait {mean} ms");
//! ```
//!
//! **Cancelling an event**: an event scheduled with [`EventQueue::schedule_cancellable_at`]
//! comes with a [`Ticket`], and [`EventQueue::cancel`] takes it out of the queue before it
//! runs (it runs in the same `(time, class, seq)` order as any other until then). It costs
//! a little more than a plain event, in a heap of its own; a model that never cancels pays
//! nothing per event. A cancelled event is not run nor counted; the latest due time of
//! those cancelled is kept ([`EventQueue::cancelled_until`]), for a model whose end is its
//! last event, "a timer that finds nothing left to do included".
//!
//! For an event seldom cancelled, the idiom without the queue's help is a generation
//! number: an event carries the generation of what it is about, and a handler that finds
//! the generation moved on ignores it. A timeout, cancelled when its request completes
//! first:
//!
//! ```
//! use sim_core::*;
//!
//! #[derive(Clone, Copy)]
//! enum Ev { Reply, Timeout { generation: u32 } }
//! struct Client { generation: u32, timed_out: bool }
//!
//! impl Handler<Ev> for Client {
//!     fn handle(&mut self, ev: Ev, _: &mut EventQueue<Ev>) -> Result<(), SimError> {
//!         match ev {
//!             // The reply cancels the pending timeout by moving the generation on.
//!             Ev::Reply => self.generation += 1,
//!             Ev::Timeout { generation } if generation == self.generation => {
//!                 self.timed_out = true
//!             }
//!             Ev::Timeout { .. } => {} // cancelled
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let mut client = Client { generation: 0, timed_out: false };
//! let mut queue = EventQueue::with_capacity(2, Limits::default());
//! queue.schedule_at(30, 0, Ev::Reply);
//! queue.schedule_at(100, 0, Ev::Timeout { generation: 0 });
//! run(&mut queue, &mut client).unwrap();
//! assert!(!client.timed_out);
//! ```

mod cancel;
#[macro_use]
mod clone;
pub mod dist;
mod engine;
mod rng;
pub mod station;
mod stats;
mod time;

pub use cancel::Ticket;
pub use dist::{Dist, DistKind};
pub use engine::{
    Class, Due, EventQueue, Handler, Limits, MAX_CLASS, PROGRESS_EVERY, RunSummary, SimError, Ties,
    run, run_due, run_until, step,
};
pub use rng::{Stream, chance, exponential_ms, replication_seed, source_id, stream, unit};
pub use station::{Stations, Waiting};
pub use stats::{
    HDR_DIGITS, Percentile, Samples, Stats, order_statistics, percentile_of, percentile_rank,
    sample_spread,
};
pub use time::{Nanos, bad_duration, ms_to_ns, ns_to_ms};
