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
//! How a config becomes runs: a small language implementation, one folder a stage, each
//! stage importing only the ones before it.
//!
//! - `syntax`: the config's sections read once into a spec — numbers,
//!   options and the config's parameters (`read`), resources and groups (`sections`), each
//!   group's steps with the may/must checks of what an actor has read and holds (`steps`)
//!   and of the outcomes an `if` can see (`flow`), and the metric columns the spec names
//!   (`metrics`). Nothing here knows a sweep point.
//! - `point`: a sweep point's program — the spec's numbers computed at the
//!   point and its nested steps lowered to a flat jump program (`lower`), and the run's
//!   cost estimated before anything runs (`cost`).
//! - `run`: the interpreter, a plain discrete-event simulation on `sim-core`:
//!   its state (`state`), its events and the steps they run (`handle`: a program counter per
//!   job, a `match` on the step it stands at), queues and key stores and transactions
//!   (`deliver`), timeouts, retries, crashes (`recover`), a run that can never progress
//!   (`stuck`), and what a run returns (`output`).
//! - `explore`: the same run through every execution its semantics allow — every free
//!   order of one instant's events, both ways of every random draw that is a choice —
//!   breadth first over its states, each distinct outcome with its shortest execution
//!   (docs/explore.md).
//! - `machine`: the resources, machines of their own that know nothing of
//!   actors or events — a [`Register`] (lost updates, compare-and-set, fencing tokens) and a
//!   [`Lock`] (polled, queued or leased), public for any model to reuse; the server, the
//!   link, the message queue (FIFO, visibility timeout, acknowledgements) and the key store.
//!
//! `composer` and `def` join the stages to the model API. Adding a step kind is a short
//! checklist in docs/writing-a-model.md ("A new scenario step").

mod composer;
mod def;
mod explore;
mod machine;
mod point;
mod run;
mod syntax;

pub use composer::Scenario;
pub use machine::lock::{Lock, LockMode, Token};
pub use machine::register::{Fence, Landing, Register};
pub use point::{MAX_ACTORS, MAX_INSTANCES, MAX_LANES, MAX_REPETITIONS};
pub use syntax::metrics::counted_on_transitions;
pub use syntax::spec::{MAX_GROUPS, MAX_RESOURCES, MAX_STEPS, MAX_UNLOCKS};
