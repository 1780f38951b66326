//! The [`Model`] trait, what a run gets ([`RunContext`]) and gives back ([`Output`]).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use sim_core::{EventQueue, Limits, Percentile, Samples, SimError, Stats, Stream, Ties};

use crate::declare::{Columns, ParamError, ParamSet};
use crate::timeline::{Lanes, TimelineStyle};

/// A model: a value that declares its parameters and columns and runs a simulation on
/// `sim-core`.
///
/// The model's parameters arrive parsed into its typed [`Model::Params`] struct and checked
/// by [`Model::validate`] once, before any run; [`Model::run`] receives them as
/// [`Valid`] and never has to re-check or fall back. The types come from the declaration
/// macros ([`params!`](crate::params), [`columns!`](crate::columns)), which keep the CSV
/// headers, the `coordsim models` listing and the starter config in step with the fields.
///
/// ```
/// use coordsim_model::{ChartKind, DefaultChart, Model, ModelError, NoEntity, Output,
///     ParamError, RunContext, Valid, columns, params};
///
/// params! {
///     /// Parameters of `coin`.
///     pub struct Params {
///         /// tosses
///         tosses: u64 = 100,
///     }
/// }
/// columns! {
///     /// Metrics of one run.
///     pub struct Metrics {
///         /// how many came up heads
///         heads: u64,
///     }
/// }
/// struct Coin;
/// impl Model for Coin {
///     type Params = Params;
///     type Metrics = Metrics;
///     type Entity = NoEntity;
///     fn name(&self) -> &'static str { "coin" }
///     fn summary(&self) -> &'static str { "fair coin tosses" }
///     fn charts(&self) -> Vec<DefaultChart> {
///         vec![DefaultChart::new("heads", ChartKind::Line, "tosses", &["heads"])]
///     }
///     fn validate(&self, p: &Params) -> Result<(), ParamError> {
///         if p.tosses == 0 { return Err(ParamError::new("tosses", "must be at least 1")); }
///         Ok(())
///     }
///     fn run(&self, p: &Valid<Params>, ctx: &RunContext) -> Result<Output<Metrics, NoEntity>, ModelError> {
///         let mut rng = ctx.stream("coin");
///         let heads = (0..p.tosses).filter(|_| sim_core::chance(&mut rng, 0.5)).count() as u64;
///         Ok(Output::new(Metrics { heads }))
///     }
/// }
/// let params = Valid::check(&Coin, Params::default()).unwrap();
/// let out = Coin.run(&params, &RunContext::new(7, Default::default())).unwrap();
/// // The same seed gives the same tosses: a golden value (59, within 50 ± 2σ = 50 ± 10
/// // for 100 fair tosses), pinned so a change to the streams cannot pass unseen.
/// assert_eq!(out.metrics.heads, 59);
/// let again = Coin.run(&params, &RunContext::new(7, Default::default())).unwrap();
/// assert_eq!(again.metrics.heads, out.metrics.heads);
/// ```
pub trait Model: Send + Sync + 'static {
    /// The parameters (a [`params!`](crate::params) struct).
    type Params: ParamSet + Send + Sync + 'static;
    /// The metrics row (a [`columns!`](crate::columns) struct).
    type Metrics: Columns;
    /// An entity row ([`NoEntity`](crate::NoEntity) when the model has none).
    type Entity: Columns;

    /// The name configs use in `model = "…"`: lower case, digits and `_`.
    fn name(&self) -> &'static str;
    /// One line on what it models (and which lesson it comes from).
    fn summary(&self) -> &'static str;
    /// Charts drawn when a config names none; checked like a config's charts.
    fn charts(&self) -> Vec<DefaultChart> {
        Vec::new()
    }
    /// The span and mark kinds of the timeline lanes this model emits, if it emits any
    /// (only then may a config ask for `kind = "timeline"`).
    fn timeline(&self) -> Option<TimelineStyle> {
        None
    }
    /// The resources that can have a lane of their own on a timeline (a chart's
    /// `resources` names them), filled in [`Lanes::resources`] when
    /// [`RunContext::wants_resource_lanes`].
    fn resources(&self) -> Vec<String> {
        Vec::new()
    }
    /// The per-request samples a run can hand to charts (`kind = "cdf"` or `"histogram"`
    /// with `y` one of these names), filled in [`Output::distributions`] when
    /// [`RunContext::wants_distributions`].
    fn distributions(&self) -> &'static [Distribution] {
        &[]
    }
    /// What one run of these parameters costs, estimated from them before anything runs (an
    /// upper bound is best): the front end refuses a config whose estimate passes its limits,
    /// naming [`Cost::driven_by`], instead of running out of time or memory.
    fn cost(&self, params: &Self::Params) -> Cost {
        let _ = params;
        Cost::default()
    }
    /// The parameters that are tie rules: string choices that say how simultaneous events
    /// are ordered (`coordsim check --ties` re-runs every claim under their other values).
    fn tie_rules(&self) -> &'static [&'static str] {
        &[]
    }
    /// What parameter `key` means in `language` (`"tr"`), for a config page in that
    /// language; `None`: its declared English meaning is shown.
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        let _ = (key, language);
        None
    }
    /// Rejects impossible parameters, naming the key and what would be valid.
    fn validate(&self, params: &Self::Params) -> Result<(), ParamError>;
    /// Runs the simulation once.
    fn run(
        &self,
        params: &Valid<Self::Params>,
        ctx: &RunContext,
    ) -> Result<Output<Self::Metrics, Self::Entity>, ModelError>;
}

/// The estimated size of one run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cost {
    /// Events the run executes.
    pub events: u64,
    /// Bytes the run holds while it runs (its queue, its samples, its state).
    pub memory_bytes: u64,
    /// Entity rows the run returns, which stay until the config is written; the front end
    /// sizes them by the model's columns and adds them up over every run of the config.
    pub entity_rows: u64,
    /// The parameter that drives it, for the message (`requests_per_client`), or a composed
    /// model's field (`resource[2].initial`), where its error points.
    pub driven_by: std::borrow::Cow<'static, str>,
    /// A composed model's own account of what drives the events, where it knows better
    /// than `driven_by` (a field and why: many actors, a `parallel`'s branches, polls).
    pub events_by: Option<Driver>,
    /// Likewise for the memory, which another field may drive.
    pub memory_by: Option<Driver>,
    /// Bytes the prepared point itself holds from the config's start to its end (its
    /// program and tables, not a run's state): the front end adds them up over every point
    /// and holds the sum to the memory limit too.
    pub point_bytes: u64,
}

/// Where a cost error points and why, for a model whose fields drive its cost.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Driver {
    /// The field (`actor[0].repeat`, `actor[0].steps[0].give_up_after_ms`, `actor[1]`).
    pub key: String,
    /// How it drives the estimate, for the message (`1000000 actors × 10 repetitions`).
    pub why: String,
}

/// A set of per-request samples a model can give (each request's wait, say).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Distribution {
    /// The name charts use as `y` (unit last: `wait_ms`).
    pub name: &'static str,
    /// What one sample is.
    pub meaning: &'static str,
}

/// Most samples of one distribution a run hands over: more are thinned to evenly spaced
/// order statistics (see [`sim_core::Samples::distribution_ms`]), which draw the same curve.
pub const MAX_DISTRIBUTION_POINTS: usize = 100_000;

/// Validates `params` and runs `model` once with `seed` under `limits`: for tests and for
/// programs that drive a model without the command line.
pub fn run_once<M: Model>(
    model: &M,
    params: M::Params,
    seed: u64,
    limits: Limits,
) -> Result<Output<M::Metrics, M::Entity>, ModelError> {
    let params = Valid::check(model, params)?;
    model.run(&params, &RunContext::new(seed, limits))
}

/// Parameters that passed their model's [`Model::validate`]: only [`Valid::check`] makes one.
#[derive(Debug, Clone, PartialEq)]
pub struct Valid<P>(P);

impl<P> Valid<P> {
    /// Validates `params` for `model`.
    pub fn check<M: Model<Params = P>>(model: &M, params: P) -> Result<Valid<P>, ParamError> {
        model.validate(&params)?;
        Ok(Valid(params))
    }

    /// The parameters.
    pub fn into_inner(self) -> P {
        self.0
    }
}

impl<P> std::ops::Deref for Valid<P> {
    type Target = P;
    fn deref(&self) -> &P {
        &self.0
    }
}

/// What one run of a model starts from: its seed, its limits, and what output is wanted.
#[derive(Debug, Clone)]
pub struct RunContext {
    seed: u64,
    limits: Limits,
    lanes: bool,
    resource_lanes: bool,
    distributions: bool,
    /// Every sample in a distribution, not at most `MAX_DISTRIBUTION_POINTS`.
    all_samples: bool,
    entities: bool,
    stats: Stats,
    percentile: Percentile,
    ties: Ties,
    progress: Option<Arc<AtomicU64>>,
    stop: Vec<Arc<std::sync::atomic::AtomicBool>>,
    states: Option<Arc<AtomicU64>>,
    enough: Option<Arc<std::sync::atomic::AtomicBool>>,
    spill: Option<Arc<std::path::Path>>,
}

impl RunContext {
    /// A run with master seed `seed` under `limits`; entity rows are wanted, timeline lanes
    /// are not.
    pub fn new(seed: u64, limits: Limits) -> RunContext {
        RunContext {
            seed,
            limits,
            lanes: false,
            resource_lanes: false,
            distributions: false,
            all_samples: false,
            entities: true,
            stats: Stats::Exact,
            percentile: Percentile::NearestRank,
            ties: Ties::Fifo,
            progress: None,
            stop: Vec::new(),
            states: None,
            enough: None,
            spill: None,
        }
    }

    /// The same exploration, storing the states it has visited in `counter` now and then
    /// (a progress bar reads it; results never depend on it).
    pub fn with_states_progress(mut self, counter: Arc<AtomicU64>) -> RunContext {
        self.states = Some(counter);
        self
    }

    /// The same exploration, ending bounded (never with an error) once `flag` is raised:
    /// the front end's time limit, which only the front end's clock decides.
    pub fn with_enough(mut self, flag: Arc<std::sync::atomic::AtomicBool>) -> RunContext {
        self.enough = Some(flag);
        self
    }

    /// The same exploration, free to spill what it is done with into files of `folder`
    /// (each removed when the exploration ends) once memory is short.
    pub fn with_spill(mut self, folder: &std::path::Path) -> RunContext {
        self.spill = Some(Arc::from(folder));
        self
    }

    /// The folder an exploration may spill into, if any.
    pub fn spill_folder(&self) -> Option<&std::path::Path> {
        self.spill.as_deref()
    }

    /// The same run without its stop flags: an exploration checks them itself between
    /// chunks of states ([`RunContext::stopped`]), so that the queues it clones by the
    /// million do not share their counters across threads.
    pub fn without_stop(mut self) -> RunContext {
        self.stop.clear();
        self
    }

    /// Whether a stop flag is raised ([`RunContext::with_stop`]).
    pub fn stopped(&self) -> bool {
        self.stop
            .iter()
            .any(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Tells the progress counter that `states` states have been visited.
    pub fn report_states(&self, states: u64) {
        if let Some(c) = &self.states {
            c.store(states, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Whether the exploration should end now, bounded ([`RunContext::with_enough`]).
    pub fn enough(&self) -> bool {
        self.enough
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// The same run, ending with [`SimError::Stopped`](sim_core::SimError::Stopped) once
    /// `flag` is raised (Ctrl-C, or a failed run of the same sweep). Given again, it adds a
    /// flag: any of them stops the run.
    pub fn with_stop(mut self, flag: Arc<std::sync::atomic::AtomicBool>) -> RunContext {
        self.stop.push(flag);
        self
    }

    /// The same run, ordering events of equal time and class by `ties` (for
    /// `check --ties`; models state their semantics under the engine's FIFO order).
    pub fn with_ties(mut self, ties: Ties) -> RunContext {
        self.ties = ties;
        self
    }

    /// The same run, adding the events it runs to `counter` now and then (a progress bar
    /// reads it; results never depend on it).
    pub fn with_progress(mut self, counter: Arc<AtomicU64>) -> RunContext {
        self.progress = Some(counter);
        self
    }

    /// The same run, keeping samples as `stats` says (a config's `stats = "hdr"`).
    pub fn with_stats(mut self, stats: Stats) -> RunContext {
        self.stats = stats;
        self
    }

    /// How the run keeps its samples.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// How percentiles are read (a config's `percentile`).
    pub fn percentile(&self) -> Percentile {
        self.percentile
    }

    /// The same run, reading percentiles by `method` (a config's `percentile = "linear"`).
    pub fn with_percentile(mut self, method: Percentile) -> RunContext {
        self.percentile = method;
        self
    }

    /// An empty sample set for a run's durations, exact or streaming as the config asks
    /// (room for `n` samples when exact), reading percentiles as the config asks.
    pub fn samples(&self, n: usize) -> Samples {
        Samples::new(self.stats, n).with_percentile(self.percentile)
    }

    /// Samples as [`RunContext::samples`], exact only up to `cap` (then a histogram:
    /// [`Samples::capped`]), for statistics a run keeps beside its main ones.
    pub fn samples_capped(&self, n: usize, cap: usize) -> Samples {
        Samples::capped(self.stats, n, cap).with_percentile(self.percentile)
    }

    /// The same run, with or without entity rows (a config with `entities = false`).
    pub fn with_entities(mut self, entities: bool) -> RunContext {
        self.entities = entities;
        self
    }

    /// Whether to fill [`Output::entities`]; a model should skip building them otherwise
    /// (a million requests' rows are most of a run's memory).
    pub fn wants_entities(&self) -> bool {
        self.entities
    }

    /// The same run, asking for timeline lanes (a config draws a timeline of it).
    pub fn with_lanes(mut self, lanes: bool) -> RunContext {
        self.lanes = lanes;
        self
    }

    /// The same run, asking for per-request samples (a config charts their distribution).
    pub fn with_distributions(mut self, distributions: bool) -> RunContext {
        self.distributions = distributions;
        self
    }

    /// Whether to fill [`Output::distributions`].
    pub fn wants_distributions(&self) -> bool {
        self.distributions
    }

    /// The same run, asking for every exact sample in each distribution (a percentile
    /// derived from them is then the model's own), not at most [`MAX_DISTRIBUTION_POINTS`]
    /// for a chart. Samples a model keeps in a histogram stay that many quantiles of it.
    pub fn with_all_samples(mut self, all: bool) -> RunContext {
        self.all_samples = all;
        self
    }

    /// How many points a distribution may have: every sample, or at most
    /// [`MAX_DISTRIBUTION_POINTS`] evenly spaced order statistics.
    pub fn distribution_points(&self) -> usize {
        if self.all_samples {
            usize::MAX
        } else {
            MAX_DISTRIBUTION_POINTS
        }
    }

    /// The run's master seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The limits every run obeys.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Whether to fill [`Output::lanes`]; a model may skip building them otherwise.
    pub fn wants_lanes(&self) -> bool {
        self.lanes
    }

    /// The same run, asking also for its resources' lanes (a timeline names `resources`),
    /// when it asks for lanes at all.
    pub fn with_resource_lanes(mut self, resources: bool) -> RunContext {
        self.resource_lanes = resources;
        self
    }

    /// Whether to add the resources' lanes ([`Lanes::resources`]) to the actors': only when
    /// lanes are wanted and a chart draws some.
    pub fn wants_resource_lanes(&self) -> bool {
        self.lanes && self.resource_lanes
    }

    /// The random stream of a named source (`"service/instance-0"`), independent of every
    /// other source: see [`sim_core::stream`].
    pub fn stream(&self, source: &str) -> Stream {
        sim_core::stream(self.seed, source)
    }

    /// An empty event queue with room for `capacity` pending events, under the run's limits.
    pub fn queue<E: Copy>(&self, capacity: usize) -> EventQueue<E> {
        let mut queue = EventQueue::with_capacity(capacity, self.limits);
        queue.set_ties(self.ties);
        if let Some(counter) = &self.progress {
            queue.report_progress(Arc::clone(counter));
        }
        for flag in &self.stop {
            queue.stop_on(Arc::clone(flag));
        }
        queue
    }
}

/// What one run of a model produced, typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Output<M, E> {
    /// The run's metrics.
    pub metrics: M,
    /// Entity rows: (entity name, row).
    pub entities: Vec<(String, E)>,
    /// Timeline lanes (only when [`RunContext::wants_lanes`]; empty otherwise): at most
    /// [`MAX_LANES`](crate::timeline::MAX_LANES), the rest counted.
    pub lanes: Lanes,
    /// Per-request samples in milliseconds, by [`Model::distributions`] name (only when
    /// [`RunContext::wants_distributions`]; at most [`MAX_DISTRIBUTION_POINTS`] each).
    pub distributions: Vec<(&'static str, Vec<f64>)>,
}

impl<M, E> Output<M, E> {
    /// Metrics only.
    pub fn new(metrics: M) -> Self {
        Output {
            metrics,
            entities: Vec::new(),
            lanes: Lanes::new(),
            distributions: Vec::new(),
        }
    }

    /// With entity rows.
    pub fn with_entities(mut self, entities: Vec<(String, E)>) -> Self {
        self.entities = entities;
        self
    }

    /// With timeline lanes (a `Vec<Lane>` keeps its first
    /// [`MAX_LANES`](crate::timeline::MAX_LANES) and counts the rest).
    pub fn with_lanes(mut self, lanes: impl Into<Lanes>) -> Self {
        self.lanes = lanes.into();
        self
    }

    /// With one distribution's samples (milliseconds).
    pub fn with_distribution(mut self, name: &'static str, samples_ms: Vec<f64>) -> Self {
        self.distributions.push((name, samples_ms));
        self
    }
}

/// Why a run produced no output.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The parameters were rejected.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The simulation hit a limit, or a handler failed.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// The model found its own state impossible: a bug in the model, not in the input.
    #[error("internal error: {0}")]
    Invariant(String),
}

/// The kinds of chart coordsim draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    /// y against x, one line per metric and per combination of the other swept parameters.
    Line,
    /// y per x value as grouped bars.
    Bar,
    /// The empirical distribution: of a model's per-request samples (`y` a distribution
    /// the model declares: one curve per point), or of a metric over the runs.
    Cdf,
    /// Activity lanes over virtual time, from the lanes a model emits.
    Timeline,
    /// A histogram of a model's per-request samples, one per point.
    Histogram,
    /// The empirical distribution of each y metric over the runs (replications, points).
    RunsCdf,
    /// A metric's exact distribution over every execution of each point (each weighted by
    /// its probability; a band over schedulers where an order is free), beside the runs'.
    ExactCdf,
}

impl ChartKind {
    /// Every kind, in the order errors list them.
    pub const ALL: [ChartKind; 7] = [
        ChartKind::Line,
        ChartKind::Bar,
        ChartKind::Cdf,
        ChartKind::Histogram,
        ChartKind::RunsCdf,
        ChartKind::ExactCdf,
        ChartKind::Timeline,
    ];

    /// The name configs write (`kind = "line"`).
    pub fn name(self) -> &'static str {
        match self {
            ChartKind::Line => "line",
            ChartKind::Bar => "bar",
            ChartKind::Cdf => "cdf",
            ChartKind::Timeline => "timeline",
            ChartKind::Histogram => "histogram",
            ChartKind::RunsCdf => "runs_cdf",
            ChartKind::ExactCdf => "exact_cdf",
        }
    }

    /// The kind called `name`.
    pub fn parse(name: &str) -> Option<ChartKind> {
        ChartKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for ChartKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A chart a model draws when its config names none. It goes through the same checks as a
/// `[[chart]]` of a config, so a misspelt column is an error, never an empty chart.
#[derive(Debug, Clone, PartialEq)]
pub struct DefaultChart {
    /// File stem of the chart.
    pub name: &'static str,
    /// Kind.
    pub kind: ChartKind,
    /// Column on the x axis (a parameter, a metric or `"entity"`; empty for cdf and timeline).
    pub x: &'static str,
    /// Columns on the y axis, one series each.
    pub y: &'static [&'static str],
    /// A metric whose value is marked as a vertical line on the x axis (say, capacity).
    pub mark_x: Option<&'static str>,
    /// A y value marked as a horizontal line (say, 100% of capacity).
    pub mark_y: Option<f64>,
}

impl DefaultChart {
    /// A chart of `y` against `x`.
    pub fn new(
        name: &'static str,
        kind: ChartKind,
        x: &'static str,
        y: &'static [&'static str],
    ) -> DefaultChart {
        DefaultChart {
            name,
            kind,
            x,
            y,
            mark_x: None,
            mark_y: None,
        }
    }

    /// A timeline of the model's lanes.
    pub fn timeline(name: &'static str) -> DefaultChart {
        DefaultChart::new(name, ChartKind::Timeline, "", &[])
    }

    /// With a vertical marker at this metric's value.
    pub fn mark_x(mut self, metric: &'static str) -> DefaultChart {
        self.mark_x = Some(metric);
        self
    }

    /// With a horizontal marker at `y`.
    pub fn mark_y(mut self, y: f64) -> DefaultChart {
        self.mark_y = Some(y);
        self
    }
}
