//! The coordsim models, each a discrete-event simulation on `sim-core`, written against the
//! model API of `coordsim-model` like any model outside this crate.
//!
//! [`registry`] gives all of them, in the order `coordsim models` lists them. Adding a model
//! here is one new file (the module) and one line in the `models!` list below.
#![warn(missing_docs)]

#[macro_use]
extern crate coordsim_model;

mod library;
pub mod scenario;

/// Declares each model's module and lists it in [`registry`], in order: one line a model.
macro_rules! models {
    ($($(#[$doc:meta])* $module:ident :: $model:ident),+ $(,)?) => {
        $($(#[$doc])* pub mod $module;)+

        /// Every model of this crate, in the order `coordsim models` lists them.
        pub fn registry() -> coordsim_model::Registry {
            coordsim_model::Registry::new()$(.with($module::$model))+.with_composer(scenario::Scenario)
        }
    };
}

models! {
    /// Lesson 003: one instance serves a key's requests FIFO.
    single_writer_queue::SingleWriterQueue,
    /// Lesson 003: read → compute → write on a shared store.
    shared_store_rmw::SharedStoreRmw,
    /// Lesson 003: where a coordinated object stands sets each edge's round trip.
    edge_placement::EdgePlacement,
    /// Lesson 003: which coordination jobs fit a single-writer object.
    scenario_fit::ScenarioFit,
    /// Lesson 000: N appliers on one state record.
    lock_queue::LockQueue,
    /// Lesson 004: a loan across two services without a shared transaction.
    saga::Saga,
    /// Lessons 004 and 002: state change and message in one transaction.
    outbox::Outbox,
    /// Lesson 002: repeated writes and their idempotent forms.
    idempotency::Idempotency,
}
