//! The coordsim model API: what a model is, for anyone writing one.
//!
//! A model is a value implementing [`Model`]: it declares its parameters with [`params!`]
//! and its output columns with [`columns!`] (and string options with [`choice!`]), validates
//! its parameters once, and runs a simulation on [`sim_core`] from a [`RunContext`] (seed,
//! limits, named random streams). A [`Registry`] holds models by name; the `coordsim` crate
//! builds its whole command line (configs, sweeps, claims, CSV, tables, charts) on one, so
//! a model in any crate runs through the standard CLI:
//!
//! ```ignore
//! fn main() -> std::process::ExitCode {
//!     coordsim::main_with(coordsim_models::registry().with(my_crate::TokenBucket))
//! }
//! ```
//!
//! A family of models that a config composes (`model = "scenario"`: its columns named by the
//! config's resources) implements [`Composer`] instead, and joins with
//! [`Registry::with_composer`] (the `coordsim` binary adds `coordsim_scenario::Scenario`
//! so). The front end hands it the config's sections and parameters, read and typed once
//! ([`ComposeInput`]).
//!
//! This crate has no I/O, CSV or chart code: presentation is declared here as data
//! ([`DefaultChart`] with a [`ChartKind`], [`TimelineStyle`] for timeline lanes) and drawn
//! by the front end. `docs/writing-a-model.md` in the repository walks through a new model.

mod compose;
#[macro_use]
pub mod declare;
mod def;
pub mod explore;
mod model;
pub mod play;
mod registry;
pub mod suggest;
pub mod timeline;
mod value;

pub use compose::{
    ComposeError, ComposeInput, Composer, ConfigParam, MAX_INTERNED_BYTES, PathPart, intern,
};
pub use declare::{
    Cell, ColumnSpec, ColumnType, Columns, Kind, ListItem, Millis, NoEntity, ParamError, ParamSet,
    ParamSpec, ParamType, PerEntity, PerEntityItem, duration, field, positive_duration,
    probability, table_fields, unit_of,
};
pub use def::{ModelDef, PreparedRun, RunOutput};
pub use explore::{
    Bound, Counting, Engine, Exploration, ExploreLimits, Kept, Reached, Reduction, Schedule,
    Symmetry, SymmetryNote, merge_parts,
};
pub use model::{
    ChartKind, Cost, DefaultChart, Distribution, Driver, MAX_DISTRIBUTION_POINTS, Model,
    ModelError, Output, RunContext, Valid, run_once,
};
pub use play::{
    ActorAt, LockAt, PLAY_MAX_MEMORY_BYTES, PLAY_MAX_STATES, PlayActor, PlayEdge, PlayError,
    PlayGraph, PlayLimits, PlayState,
};
pub use registry::{RESERVED_COLUMNS, Registry, RegistryError};
pub use timeline::{
    FIRST_KEPT, Item, Lane, LaneMark, LaneParts, LaneSpan, Lanes, LevelKind, LevelPoint,
    MAX_CATEGORIES, MAX_LANE_ITEMS, MAX_LANES, MAX_RESOURCE_LANES, MAX_SUB_ROWS, MarkKind,
    MarkShape, SpanKind, Thinning, TimelineStyle,
};
pub use value::{Value, number_text};
