//! A model as the front end sees it: the object-safe [`ModelDef`] (a declared model's or a
//! composed one's), a point's [`PreparedRun`] and its [`RunOutput`].

use std::sync::Arc;

use crate::declare::{Cell, ColumnSpec, Columns, ParamError, ParamSet, ParamSpec};
use crate::explore::{AskPaths, Exploration, ExploreLimits, Schedule};
use crate::model::{Cost, DefaultChart, Distribution, Model, ModelError, RunContext, Valid};
use crate::play::{PlayError, PlayGraph, PlayLimits};
use crate::timeline::{Lanes, TimelineStyle};
use crate::value::Value;

/// One run's output as cells, ready for the CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutput {
    /// Metric cells, in the order of [`ModelDef::metrics`].
    pub metrics: Vec<Cell>,
    /// Entity rows: name and cells in the order of [`ModelDef::entity_columns`].
    pub entities: Vec<(String, Vec<Cell>)>,
    /// Timeline lanes, when asked for (at most [`MAX_LANES`](crate::timeline::MAX_LANES)).
    pub lanes: Lanes,
    /// Per-request samples by distribution name, when asked for.
    pub distributions: Vec<(&'static str, Vec<f64>)>,
}

/// A point's parameters, parsed and validated once; runs any number of replications.
pub trait PreparedRun: Send + Sync {
    /// Runs once.
    fn run(&self, ctx: &RunContext) -> Result<RunOutput, ModelError>;
    /// The model's estimate of one run ([`Model::cost`]).
    fn cost(&self) -> Cost;
    /// Every execution the model's semantics allow at this point ([`crate::explore`]).
    /// Only a scenario explores: a built-in model says to use its scenario form.
    fn explore(&self, ctx: &RunContext, limits: &ExploreLimits) -> Result<Exploration, ModelError> {
        let _ = (ctx, limits);
        Err(ModelError::Param(ParamError::new(
            "model",
            "only a scenario (`model = \"scenario\"`) can be explored: configs/scenarios/ holds a scenario form of every built-in model but scenario_fit (e.g. scenario-single-writer-queue.toml)".to_string(),
        )))
    }
    /// [`PreparedRun::explore`], and once its outcomes are known, the executions `asks`
    /// names over its schedulers' graph ([`AskPaths`], kept when
    /// [`ExploreLimits::keep_schedulers`] asks and nothing bounded the exploration) as
    /// [`Exploration::paths`]. A model that keeps no graph explores without them.
    fn explore_showing(
        &self,
        ctx: &RunContext,
        limits: &ExploreLimits,
        asks: &AskPaths<'_>,
    ) -> Result<Exploration, ModelError> {
        let _ = asks;
        self.explore(ctx, limits)
    }
    /// Runs the one execution `schedule` fixes (an exploration's [`Schedule`]), with every
    /// output a run has. Only a scenario replays one.
    fn replay(&self, ctx: &RunContext, schedule: &Schedule) -> Result<RunOutput, ModelError> {
        let _ = (ctx, schedule);
        Err(ModelError::Param(ParamError::new(
            "model",
            "only a scenario (`model = \"scenario\"`) runs a schedule: it is one of an exploration's executions".to_string(),
        )))
    }
    /// Every state an execution can reach at this point, each as a reader sees it, for the
    /// site's explorer ([`crate::play`]). Only a scenario has one.
    fn play(&self, ctx: &RunContext, limits: &PlayLimits) -> Result<PlayGraph, PlayError> {
        let _ = (ctx, limits);
        Err(PlayError::Other(
            "only a scenario (`model = \"scenario\"`) can be played".to_string(),
        ))
    }
}

/// The object-safe face of a [`Model`], for looking models up by name.
pub trait ModelDef: Send + Sync {
    /// The model's name.
    fn name(&self) -> &'static str;
    /// One line on what it models.
    fn summary(&self) -> &'static str;
    /// Parameters in declared order.
    fn params(&self) -> &[ParamSpec];
    /// Every parameter's default, in [`ModelDef::params`] order (a composed model's come
    /// from its config).
    fn defaults(&self) -> Vec<Value> {
        self.params().iter().map(|p| (p.default)()).collect()
    }
    /// Metric columns in order.
    fn metrics(&self) -> &[ColumnSpec];
    /// Entity columns in order (empty: no entity rows).
    fn entity_columns(&self) -> &[ColumnSpec];
    /// Default charts.
    fn charts(&self) -> Vec<DefaultChart>;
    /// The kinds of the timeline lanes it emits, if any.
    fn timeline(&self) -> Option<TimelineStyle>;
    /// The resources that can have a timeline lane of their own (a chart's `resources`).
    fn resources(&self) -> Vec<String> {
        Vec::new()
    }
    /// Its tie-rule parameters.
    fn tie_rules(&self) -> &'static [&'static str];
    /// What parameter `key` means in `language` (`"tr"`), when the model says
    /// ([`Model::param_meaning`]); `None`: its declared English meaning. No default: a
    /// model that wraps another passes it on.
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str>;
    /// The per-request samples it can give charts.
    fn distributions(&self) -> &[Distribution];
    /// The metrics that are watches: each the instant a condition held along the run (a
    /// composed scenario's `[[watch]]`es), which `holds = "eventually"` claims read. No
    /// default: a model that wraps another passes them on.
    fn watches(&self) -> &[&'static str];
    /// Types and validates values given in [`ModelDef::params`] order, once.
    fn prepare(&self, values: &[Value]) -> Result<Box<dyn PreparedRun>, ParamError>;
}

impl std::fmt::Debug for dyn PreparedRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("prepared run")
    }
}

impl std::fmt::Debug for dyn ModelDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "model `{}`", self.name())
    }
}

/// A declared model as a [`ModelDef`].
pub(crate) struct Registered<M>(pub(crate) Arc<M>);

struct Prepared<M: Model> {
    model: Arc<M>,
    params: Valid<M::Params>,
}

impl<M: Model> PreparedRun for Prepared<M> {
    fn run(&self, ctx: &RunContext) -> Result<RunOutput, ModelError> {
        let output = self.model.run(&self.params, ctx)?;
        Ok(RunOutput {
            metrics: output.metrics.cells(),
            entities: output
                .entities
                .into_iter()
                .map(|(name, row)| (name, row.cells()))
                .collect(),
            lanes: output.lanes,
            distributions: output.distributions,
        })
    }
    fn cost(&self) -> Cost {
        self.model.cost(&self.params)
    }
}

impl<M: Model> ModelDef for Registered<M> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn summary(&self) -> &'static str {
        self.0.summary()
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
    fn charts(&self) -> Vec<DefaultChart> {
        self.0.charts()
    }
    fn timeline(&self) -> Option<TimelineStyle> {
        self.0.timeline()
    }
    fn resources(&self) -> Vec<String> {
        self.0.resources()
    }
    fn tie_rules(&self) -> &'static [&'static str] {
        self.0.tie_rules()
    }
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        self.0.param_meaning(key, language)
    }
    fn distributions(&self) -> &'static [Distribution] {
        self.0.distributions()
    }
    fn watches(&self) -> &[&'static str] {
        &[]
    }
    fn prepare(&self, values: &[Value]) -> Result<Box<dyn PreparedRun>, ParamError> {
        let params = Valid::check(&*self.0, M::Params::from_values(values)?)?;
        Ok(Box::new(Prepared {
            model: Arc::clone(&self.0),
            params,
        }))
    }
}
