//! The resources, each a machine of its own: it knows nothing of actors, steps or events,
//! only its own state and `sim-core`'s time and samples.

pub(crate) mod keys;
pub(crate) mod link;
pub(crate) mod lock;
pub(crate) mod queue;
pub(crate) mod register;
pub(crate) mod server;
