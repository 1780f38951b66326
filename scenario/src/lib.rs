//! `scenario`: a model a config composes from shared registers, locks, single-writer servers,
//! links, message queues and key stores, and groups of actors that step through them
//! (`docs/scenarios.md` in the repository). The front end runs it like any model:
//! [`Scenario`] is a
//! [`Composer`](coordsim_model::Composer), joined to a registry with
//! [`Registry::with_composer`](coordsim_model::Registry::with_composer):
//!
//! ```
//! let registry = coordsim_model::Registry::new().with_composer(coordsim_scenario::Scenario);
//! assert!(registry.composer("scenario").is_some());
//! ```
//!
//! How a config becomes runs, one seam per module:
//!
//! - the sections are read once per config into a spec (`read`: numbers, options and the
//!   config's parameters; `sections`: resources and groups; `steps`: each group's steps),
//!   and the spec names the metric columns (`metrics`);
//! - each sweep point's numbers are computed once (`evaluate`, into a `point`), with its
//!   cost estimated before anything runs (`cost`);
//! - a run (`run`) is a plain discrete-event simulation on `sim-core`: its state (`sim`),
//!   its events (`handle`: the handler matches on the step an actor stands at), and its
//!   invariants and output (`output`). Nothing is interpreted per event beyond that match
//!   and, where a config writes one, the value expression of a write.
//!
//! The resources are machines of their own, which know nothing of actors or events: a
//! [`Register`] (lost updates, compare-and-set, fencing tokens) and a [`Lock`] (polled,
//! queued or leased) are public, for any model to reuse; the server, the link, the message
//! queue (`queue`: FIFO, visibility timeout, acknowledgements) and the key store (`keys`)
//! are this crate's. A transaction (`deliver`) keeps what undoes its register and store
//! effects and makes its puts and acks when it ends.

mod composer;
mod cost;
mod def;
mod deliver;
mod evaluate;
mod flow;
mod handle;
mod keys;
mod link;
mod lock;
mod metrics;
mod output;
mod point;
mod queue;
mod read;
mod recover;
mod register;
mod run;
mod sections;
mod server;
mod sim;
mod spec;
mod steps;
mod stuck;

pub use composer::Scenario;
pub use lock::{Lock, LockMode, Token};
pub use point::{MAX_ACTORS, MAX_INSTANCES, MAX_LANES, MAX_REPETITIONS};
pub use register::{Fence, Landing, Register};
pub use spec::{MAX_GROUPS, MAX_RESOURCES, MAX_STEPS, MAX_UNLOCKS};
