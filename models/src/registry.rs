//! The models by name, behind one object-safe interface for the binary.

use std::marker::PhantomData;

use sim_core::{Limits, SimError};

use crate::declare::{Cell, ColumnSpec, Columns, ParamError, ParamSet, ParamSpec};
use crate::value::Value;

/// A chart a model draws when its config names none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DefaultChart {
    /// File stem of the chart.
    pub name: &'static str,
    /// Column on the x axis (a parameter or a metric).
    pub x: &'static str,
    /// Metrics on the y axis, one series each.
    pub y: &'static [&'static str],
    /// `line`, `bar`, `cdf` or `timeline`.
    pub kind: &'static str,
    /// A metric whose value is marked as a vertical line on the x axis (say, capacity).
    pub mark_x: Option<&'static str>,
    /// A y value marked as a horizontal line (say, 100% of capacity).
    pub mark_y: Option<f64>,
}

/// What one run of a model produced, typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Output<M, E> {
    /// The run's metrics.
    pub metrics: M,
    /// Entity rows: (entity name, row).
    pub entities: Vec<(String, E)>,
}

/// A model: its parameter and column types and its simulation.
pub trait Model: Sync + 'static {
    /// The name configs use in `model = "…"`.
    const NAME: &'static str;
    /// One line on what it models and which lesson it comes from.
    const SUMMARY: &'static str;
    /// Charts drawn when a config names none.
    const CHARTS: &'static [DefaultChart];
    /// The parameters.
    type Params: ParamSet;
    /// The metrics row.
    type Metrics: Columns;
    /// An entity row ([`crate::NoEntity`] when the model has none).
    type Entity: Columns;

    /// Rejects impossible parameters, naming the key.
    fn validate(params: &Self::Params) -> Result<(), ParamError>;
    /// Runs the simulation with the given master seed.
    fn run(
        params: &Self::Params,
        seed: u64,
        limits: Limits,
    ) -> Result<Output<Self::Metrics, Self::Entity>, SimError>;
}

/// Why a run produced no output.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    /// The parameters were rejected.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The simulation hit a limit.
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// One run's output as cells, ready for the CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutput {
    /// Metric cells, in the order of [`ModelDef::metrics`].
    pub metrics: Vec<Cell>,
    /// Entity rows: name and cells in the order of [`ModelDef::entity_columns`].
    pub entities: Vec<(String, Vec<Cell>)>,
}

/// The object-safe face of a [`Model`], for looking models up by name.
pub trait ModelDef: Sync {
    /// The model's name.
    fn name(&self) -> &'static str;
    /// One line on what it models.
    fn summary(&self) -> &'static str;
    /// Parameters in declared order.
    fn params(&self) -> &'static [ParamSpec];
    /// Metric columns in order.
    fn metrics(&self) -> &'static [ColumnSpec];
    /// Entity columns in order (empty: no entity rows).
    fn entity_columns(&self) -> &'static [ColumnSpec];
    /// Default charts.
    fn charts(&self) -> &'static [DefaultChart];
    /// Type-checks and validates values given in [`ModelDef::params`] order.
    fn check(&self, values: &[Value]) -> Result<(), ParamError>;
    /// Checks, then runs.
    fn run(&self, values: &[Value], seed: u64, limits: Limits) -> Result<RunOutput, RunError>;
}

struct Registered<M>(PhantomData<M>);

impl<M: Model> ModelDef for Registered<M> {
    fn name(&self) -> &'static str {
        M::NAME
    }
    fn summary(&self) -> &'static str {
        M::SUMMARY
    }
    fn params(&self) -> &'static [ParamSpec] {
        M::Params::SPECS
    }
    fn metrics(&self) -> &'static [ColumnSpec] {
        M::Metrics::SPECS
    }
    fn entity_columns(&self) -> &'static [ColumnSpec] {
        M::Entity::SPECS
    }
    fn charts(&self) -> &'static [DefaultChart] {
        M::CHARTS
    }
    fn check(&self, values: &[Value]) -> Result<(), ParamError> {
        M::validate(&M::Params::from_values(values)?)
    }
    fn run(&self, values: &[Value], seed: u64, limits: Limits) -> Result<RunOutput, RunError> {
        let params = M::Params::from_values(values)?;
        M::validate(&params)?;
        let output = M::run(&params, seed, limits)?;
        Ok(RunOutput {
            metrics: output.metrics.cells(),
            entities: output
                .entities
                .into_iter()
                .map(|(name, row)| (name, row.cells()))
                .collect(),
        })
    }
}

static MODELS: &[&dyn ModelDef] = &[
    &Registered::<crate::single_writer_queue::SingleWriterQueue>(PhantomData),
    &Registered::<crate::shared_store_rmw::SharedStoreRmw>(PhantomData),
    &Registered::<crate::edge_placement::EdgePlacement>(PhantomData),
    &Registered::<crate::scenario_fit::ScenarioFit>(PhantomData),
    &Registered::<crate::lock_queue::LockQueue>(PhantomData),
    &Registered::<crate::saga::Saga>(PhantomData),
    &Registered::<crate::outbox::Outbox>(PhantomData),
    &Registered::<crate::idempotency::Idempotency>(PhantomData),
];

/// Every model, in the order `coordsim models` lists them.
pub fn all() -> &'static [&'static dyn ModelDef] {
    MODELS
}

/// The model called `name`.
pub fn find(name: &str) -> Option<&'static dyn ModelDef> {
    MODELS.iter().copied().find(|m| m.name() == name)
}

impl std::fmt::Debug for dyn ModelDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "model `{}`", self.name())
    }
}
