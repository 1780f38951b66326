//! The coordsim models, each a discrete-event simulation on `sim-core`, written against the
//! model API of `coordsim-model` like any model outside this crate.
//!
//! [`registry`] gives all of them, in the order `coordsim models` lists them. Adding a model
//! here is one new file (the module), its `pub mod` line and one `.with` line in [`registry`].
//! The scenario composer (`model = "scenario"`) is a crate of its own, `coordsim-scenario`;
//! the `coordsim` binary joins it to these models.

#[macro_use]
extern crate coordsim_model;

mod library;
mod turkish;

/// Lesson 003: where a coordinated object stands sets each edge's round trip.
pub mod edge_placement;
/// Lesson 002: repeated writes and their idempotent forms.
pub mod idempotency;
/// Lesson 000: N appliers on one state record.
pub mod lock_queue;
/// Lessons 004 and 002: state change and message in one transaction.
pub mod outbox;
/// Lesson 004: a loan across two services without a shared transaction.
pub mod saga;
/// Lesson 003: which coordination jobs fit a single-writer object.
pub mod scenario_fit;
/// Lesson 003: read → compute → write on a shared store.
pub mod shared_store_rmw;
/// Lesson 003: one instance serves a key's requests FIFO.
pub mod single_writer_queue;

/// Every model of this crate, in the order `coordsim models` lists them (no composer: the
/// `coordsim` binary adds `coordsim_scenario::Scenario` with
/// [`Registry::with_composer`](coordsim_model::Registry::with_composer)).
pub fn registry() -> coordsim_model::Registry {
    coordsim_model::Registry::new()
        .with(single_writer_queue::SingleWriterQueue)
        .with(shared_store_rmw::SharedStoreRmw)
        .with(edge_placement::EdgePlacement)
        .with(scenario_fit::ScenarioFit)
        .with(lock_queue::LockQueue)
        .with(saga::Saga)
        .with(outbox::Outbox)
        .with(idempotency::Idempotency)
}
