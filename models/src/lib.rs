//! The coordsim models. Each module is one model: its parameters, its metrics, and a
//! discrete-event simulation of it on `sim-core`.
//!
//! A model is declared with [`params!`] and [`columns!`], which generate from one list the
//! typed struct, its specs (key, kind, default, meaning) and its CSV cells, so that a column
//! name, its order and its documentation cannot drift apart. The binary finds models by name
//! through [`find`] and drives them through the object-safe [`ModelDef`].
#![warn(missing_docs)]

#[macro_use]
pub mod declare;
mod registry;
mod value;

pub mod edge_placement;
pub mod idempotency;
pub mod library;
pub mod lock_queue;
pub mod outbox;
pub mod saga;
pub mod scenario_fit;
pub mod shared_store_rmw;
pub mod single_writer_queue;
pub mod station;

pub use declare::{
    Cell, ColumnSpec, Columns, Kind, NoEntity, ParamError, ParamSet, ParamSpec, ParamType,
    PerEntity, unit_of,
};
pub use registry::{DefaultChart, Model, ModelDef, Output, RunError, RunOutput, all, find};
pub use value::Value;
