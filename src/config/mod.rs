//! Loading a config, in two phases.
//!
//! 1. `plan`: the [`Plan`] — the model, its parameters, the sweep axes and points (each
//!    point's parameters typed and validated once), replications, limits and labels. It
//!    fixes the schema: which columns the output files have.
//! 2. `claims` and `charts`: `[[claim]]` and `[[chart]]` tables (and the model's default
//!    charts, through the same checks) parsed against the plan, so every name they use is a
//!    column, a parameter or an entity the plan has.
//!
//! Every error names the file, line and column (an unknown key at the key, a bad value at the
//! value) and what would be valid. Nothing here panics on any input.

mod axes;
mod chart_series;
mod chart_y;
pub(crate) mod charts;
pub(crate) mod claims;
mod compose;
mod derived;
mod exact_chart;
mod filter;
pub(crate) use filter::values_of;
mod load;
mod localized;
mod look;
mod names;
mod nesting;
pub(crate) mod plan;
mod positions;
mod read;
mod sections;
pub(crate) mod table;
mod titles;
mod var;
mod wording;

pub(crate) use chart_series::MAX_SERIES;
pub(crate) use charts::ENTITY_X;
pub use charts::{ChartSpec, Look};
pub use claims::Claim;
pub(crate) use claims::{Expect, Holds, Scheduler, Stat, Test};
pub(crate) use coordsim_model::ChartKind;
pub(crate) use exact_chart::MAX_EXACT_POINTS;
pub use load::Config;
pub(crate) use load::MAX_POOLED_SAMPLES;
pub use plan::{Axis, Plan};
pub(crate) use var::{Var, matches_filter};
