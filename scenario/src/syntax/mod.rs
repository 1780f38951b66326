//! The first stage: a config's sections read once into a `spec::Spec`, checked where
//! each thing is written, before any sweep point exists.

pub(crate) mod flow;
pub(crate) mod metrics;
pub(crate) mod read;
pub(crate) mod sections;
pub(crate) mod spec;
pub(crate) mod steps;
pub(crate) mod watch;
