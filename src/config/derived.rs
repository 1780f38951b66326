//! `[[metric]]`: metrics a config derives from each run's own metrics and parameters.
//!
//! ```toml
//! [[metric]]
//! name = "wasted_pct"
//! expr = "100 * server.wasted_ms / server.busy_ms"
//! ```
//!
//! ```toml
//! [[metric]]
//! name = "p9995"
//! percentile = 99.95
//! of = "DISTRIBUTION"         # one the model names (`coordsim models NAME`)
//! ```
//!
//! ```toml
//! [[metric]]
//! name = "late_share"
//! share_above = "deadline_ms" # an expression of the parameters and metrics
//! of = "DISTRIBUTION"
//! ```
//!
//! A derived metric is computed after every run, from that run's metrics and its point's
//! parameters (and the derived metrics declared before it), or as a percentile of one of
//! the model's per-request distributions, or the share of its samples above a threshold
//! (every sample of it: the run is asked for them,
//! and they are dropped after unless a chart wants them), and becomes a metric like the
//! model's own: a column of `results.csv` after them, with its statistics in `summary.csv`,
//! usable in claims, tables, charts and `[labels]`. It is the model wrapped: the front end
//! sees one more metric, so nothing downstream knows the difference. A value that is not a
//! finite number (a division by zero, an empty metric) is an empty cell.

use std::sync::Arc;

use coordsim_model::explore::{AskPaths, Schedulers};
use coordsim_model::{
    Cell, ColumnSpec, ColumnType, Cost, DefaultChart, Distribution, Exploration, ExploreLimits,
    ModelDef, ModelError, ParamError, ParamSpec, PlayError, PlayGraph, PlayLimits, PreparedRun,
    RunContext, RunOutput, Schedule, TimelineStyle, Value,
};
use toml::Spanned;
use toml::de::DeValue;

use super::plan::Plan;
use super::read::Loader;
use super::var::Var;
use crate::source::ConfigError;
use coordsim_expr::{self as expr, Expr};

/// The error of a [[metric]] that is two kinds at once.
const ONE_KIND: &str = "a [[metric]] is one of an `expr`, a `percentile` of a distribution or a `share_above` of one, not two";

/// Most derived metrics a config declares.
pub(super) const MAX_DERIVED: usize = 64;

/// What a derived metric's expression reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    /// A parameter of the model, by its index.
    Param(usize),
    /// A metric: the model's, or a derived one declared earlier (by its index among all).
    Metric(usize),
}

/// How one derived metric is computed.
enum Derivation {
    /// An expression of the run's metrics and parameters.
    Expr(Expr<Input>),
    /// The `p`-th percentile of the model's distribution `of`, by the config's rule.
    Percentile { of: &'static str, p: f64 },
    /// The share (0 to 1) of the samples of the model's distribution `of` greater than
    /// `above` (an expression of the parameters and metrics).
    ShareAbove {
        of: &'static str,
        above: Expr<Input>,
    },
}

impl Derivation {
    /// Its size as an expression's nodes, for the estimate (a percentile, or a share's
    /// search of the sorted samples: one).
    fn nodes(&self) -> usize {
        match self {
            Derivation::Expr(e) => e.nodes(),
            Derivation::Percentile { .. } => 1,
            Derivation::ShareAbove { above, .. } => above.nodes() + 1,
        }
    }
}

/// A model with derived metrics after its own.
struct Derived {
    inner: Arc<dyn ModelDef>,
    metrics: Vec<ColumnSpec>,
    exprs: Arc<Vec<Derivation>>,
}

/// A prepared run that adds the derived metrics to its output.
struct DerivedRun {
    inner: Box<dyn PreparedRun>,
    params: Vec<Option<f64>>,
    exprs: Arc<Vec<Derivation>>,
}

impl DerivedRun {
    /// The derived metrics appended to the model's `metrics`, in declaration order (each
    /// may read those before it); a percentile reads `distributions`, each sorted here.
    fn derive(
        &self,
        metrics: &mut Vec<Cell>,
        distributions: &mut [(&'static str, Vec<f64>)],
        method: sim_core::Percentile,
    ) {
        for (_, samples) in distributions.iter_mut() {
            if !samples.is_sorted_by(|a, b| a <= b) {
                samples.sort_by(f64::total_cmp);
            }
        }
        for d in self.exprs.iter() {
            let input = |v| match v {
                Input::Param(i) => self.params.get(i).copied().flatten(),
                Input::Metric(i) => metrics.get(i).and_then(Cell::as_f64),
            };
            let samples_of = |of: &str| {
                (distributions.iter())
                    .find(|(n, _)| *n == of)
                    .map(|(_, s)| s)
            };
            let value = match d {
                Derivation::Expr(e) => e.eval(&input),
                Derivation::Percentile { of, p } => {
                    samples_of(of).and_then(|samples| sim_core::percentile_of(samples, *p, method))
                }
                Derivation::ShareAbove { of, above } => {
                    match (samples_of(of), above.eval(&input)) {
                        (Some(samples), Some(x)) if !samples.is_empty() && !x.is_nan() => {
                            // Sorted: those above x are the ones past the last at most x.
                            let at_most = samples.partition_point(|v| *v <= x);
                            Some((samples.len() - at_most) as f64 / samples.len() as f64)
                        }
                        _ => None,
                    }
                }
            };
            metrics.push(match value {
                Some(x) if x.is_finite() => Cell::Float(x),
                _ => Cell::Empty,
            });
        }
    }

    /// Whether a derived metric reads a distribution (its run must give every sample).
    fn wants_samples(&self) -> bool {
        (self.exprs.iter()).any(|d| {
            matches!(
                d,
                Derivation::Percentile { .. } | Derivation::ShareAbove { .. }
            )
        })
    }
}

impl PreparedRun for DerivedRun {
    fn run(&self, ctx: &RunContext) -> Result<RunOutput, ModelError> {
        if !self.wants_samples() {
            let mut out = self.inner.run(ctx)?;
            self.derive(&mut out.metrics, &mut [], ctx.percentile());
            return Ok(out);
        }
        let all = ctx.clone().with_distributions(true).with_all_samples(true);
        let mut out = self.inner.run(&all)?;
        self.derive(&mut out.metrics, &mut out.distributions, ctx.percentile());
        if ctx.wants_distributions() {
            // What a chart draws is what it would be without the percentile.
            for (_, samples) in &mut out.distributions {
                *samples = sim_core::order_statistics(samples, ctx.distribution_points());
            }
        } else {
            out.distributions.clear();
        }
        Ok(out)
    }

    /// Every execution of the inner model's, each outcome with its derived metrics (a
    /// function of its own, so distinct outcomes stay distinct).
    fn explore(&self, ctx: &RunContext, limits: &ExploreLimits) -> Result<Exploration, ModelError> {
        let mut explored = self.inner.explore(ctx, limits)?;
        for o in &mut explored.outcomes {
            self.derive(&mut o.metrics, &mut [], ctx.percentile());
        }
        Ok(explored)
    }

    /// [`DerivedRun::explore`], what it shows asked with each outcome's derived metrics.
    fn explore_showing(
        &self,
        ctx: &RunContext,
        limits: &ExploreLimits,
        asks: &AskPaths<'_>,
    ) -> Result<Exploration, ModelError> {
        let derived = |metrics: &[Vec<Cell>], graph: &Schedulers| {
            let metrics: Vec<Vec<Cell>> = (metrics.iter())
                .map(|m| {
                    let mut m = m.clone();
                    self.derive(&mut m, &mut [], ctx.percentile());
                    m
                })
                .collect();
            asks(&metrics, graph)
        };
        let mut explored = self.inner.explore_showing(ctx, limits, &derived)?;
        for o in &mut explored.outcomes {
            self.derive(&mut o.metrics, &mut [], ctx.percentile());
        }
        Ok(explored)
    }

    /// The inner model's state graph, each end with its derived metrics.
    fn play(&self, ctx: &RunContext, limits: &PlayLimits) -> Result<PlayGraph, PlayError> {
        let mut graph = self.inner.play(ctx, limits)?;
        for end in graph.states.iter_mut().filter_map(|s| s.end.as_mut()) {
            self.derive(end, &mut [], ctx.percentile());
        }
        Ok(graph)
    }

    /// The execution a schedule fixes, with its derived metrics as a run has them.
    fn replay(&self, ctx: &RunContext, schedule: &Schedule) -> Result<RunOutput, ModelError> {
        let mut out = self.inner.replay(ctx, schedule)?;
        self.derive(&mut out.metrics, &mut out.distributions, ctx.percentile());
        Ok(out)
    }

    /// The model's estimate, and each derived metric's evaluation at the run's end: a node
    /// of an expression counted as an event (64 metrics of 1,000 nodes are 64,000 a run).
    fn cost(&self) -> Cost {
        let mut cost = self.inner.cost();
        let nodes: Vec<usize> = self.exprs.iter().map(Derivation::nodes).collect();
        let all = nodes.iter().sum::<usize>() as u64;
        if all > cost.events {
            // The metrics are most of the work: the biggest is where the error points.
            let (i, _) = nodes.iter().enumerate().fold(
                (0, 0),
                |m, (i, n)| {
                    if *n > m.1 { (i, *n) } else { m }
                },
            );
            cost.driven_by = format!("metric[{i}].expr").into();
            cost.events_by = None;
        }
        cost.events = cost.events.saturating_add(all);
        cost
    }
}

impl ModelDef for Derived {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn summary(&self) -> &'static str {
        self.inner.summary()
    }
    fn params(&self) -> &[ParamSpec] {
        self.inner.params()
    }
    fn defaults(&self) -> Vec<Value> {
        self.inner.defaults()
    }
    fn metrics(&self) -> &[ColumnSpec] {
        &self.metrics
    }
    fn entity_columns(&self) -> &[ColumnSpec] {
        self.inner.entity_columns()
    }
    fn charts(&self) -> Vec<DefaultChart> {
        self.inner.charts()
    }
    fn timeline(&self) -> Option<TimelineStyle> {
        self.inner.timeline()
    }
    fn resources(&self) -> Vec<String> {
        self.inner.resources()
    }
    fn tie_rules(&self) -> &'static [&'static str] {
        self.inner.tie_rules()
    }
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        self.inner.param_meaning(key, language)
    }
    fn distributions(&self) -> &[Distribution] {
        self.inner.distributions()
    }
    fn watches(&self) -> &[&'static str] {
        self.inner.watches()
    }
    fn prepare(&self, values: &[Value]) -> Result<Box<dyn PreparedRun>, ParamError> {
        Ok(Box::new(DerivedRun {
            inner: self.inner.prepare(values)?,
            params: values.iter().map(Value::as_f64).collect(),
            exprs: Arc::clone(&self.exprs),
        }))
    }
}

impl Loader<'_> {
    /// The plan's model with the `[[metric]]` tables' metrics after its own.
    pub(super) fn derived_metrics(
        &self,
        plan: &Plan,
        tables: &Spanned<DeValue<'_>>,
    ) -> Result<Arc<dyn ModelDef>, ConfigError> {
        const KEYS: &[&str] = &["name", "expr", "percentile", "share_above", "of", "meaning"];
        let inner = Arc::clone(&plan.model);
        let mut metrics: Vec<ColumnSpec> = inner.metrics().to_vec();
        let mut exprs = Vec::new();
        let items = self.array_of_tables(tables, "metric")?;
        if items.len() > MAX_DERIVED {
            return Err(self.err(
                &tables.span(),
                format!("at most {MAX_DERIVED} [[metric]] tables"),
            ));
        }
        // Every [[metric]]'s name, to tell a name declared further down from an unknown one.
        let declared: Vec<String> = (items.iter())
            .filter_map(|(t, _)| {
                let fields = self.known_fields(t, "[[metric]]", KEYS).ok()?;
                let (_, v) = fields.iter().find(|(k, _)| k.get_ref() == "name")?;
                self.string(v, "name").ok()
            })
            .collect();
        // The largest expression's nodes and where it is written.
        let mut largest: (usize, crate::source::Span) = (0, tables.span());
        for (t, span) in items {
            let fields = self.known_fields(t, "[[metric]]", KEYS)?;
            let field = |k: &str| {
                fields
                    .iter()
                    .find(|(key, _)| key.get_ref() == k)
                    .map(|(_, v)| *v)
            };
            let Some(name_v) = field("name") else {
                return Err(self.err(
                    &span,
                    "a [[metric]] needs `name`, and `expr` (an expression over the run's metrics and parameters) or `percentile` and `of` (a percentile of a distribution)",
                ));
            };
            let name = self.string(name_v, "name")?;
            self.check_metric_name(plan, &metrics, &name, &name_v.span())?;
            // An expression of the run's metrics (those declared before) and parameters.
            let parse = |text: &str, at: &Spanned<DeValue<'_>>, key: &str| {
                let resolve = |n: &str| -> Result<Input, String> {
                    if let Some(i) = metrics.iter().position(|c| c.name == n) {
                        return if metrics[i].numeric() {
                            Ok(Input::Metric(i))
                        } else {
                            Err(format!("`{n}` is not numeric"))
                        };
                    }
                    let var = plan.resolve(n, false, true).map_err(|e| {
                        if n == name {
                            format!("`{n}` is this [[metric]] itself: it reads other metrics")
                        } else if declared.iter().any(|d| d == n) {
                            format!(
                                "`{n}` is a [[metric]] declared further down: a derived metric reads only those declared before it (move `{n}`'s table above this one)"
                            )
                        } else {
                            e
                        }
                    })?;
                    match var {
                        Var::Param(i) if i < inner.params().len() => Ok(Input::Param(i)),
                        Var::Param(_) => Err(format!(
                            "`{n}` is a [vars] variable; a derived metric reads the model's parameters (derive one from `{n}` in [params]) and metrics"
                        )),
                        Var::Metric(i) => Ok(Input::Metric(i)),
                        Var::Entity(_) | Var::X => {
                            Err(format!("`{n}` is not a metric or parameter"))
                        }
                    }
                };
                expr::parse(text, &resolve)
                    .map_err(|e| self.expr_error(at.span().start, text, &e, key))
            };
            let (derivation, default_meaning) = if let Some(p_v) = field("percentile") {
                if let Some(v) = field("share_above") {
                    return Err(self.err(&v.span(), ONE_KIND));
                }
                let (of, p) =
                    self.percentile_metric(&*inner, p_v, field("of"), field("expr"), &span)?;
                (
                    Derivation::Percentile { of, p },
                    format!("the {p}th percentile of {of} (by the config's percentile rule)"),
                )
            } else if let Some(above_v) = field("share_above") {
                if let Some(e) = field("expr") {
                    return Err(self.err(&e.span(), ONE_KIND));
                }
                // A number, or an expression (a parameter: `"deadline_ms"`).
                let (text, above) = match above_v.get_ref() {
                    DeValue::String(text) => {
                        (text.to_string(), parse(text, above_v, "share_above")?)
                    }
                    _ => {
                        let x = self.number(above_v, "share_above")?;
                        (coordsim_model::number_text(x), Expr::Num(x))
                    }
                };
                let of = self.distribution(&*inner, field("of"), &span, "a `share_above`")?;
                (
                    Derivation::ShareAbove { of, above },
                    format!("the share of {of} above {text} (0 to 1)"),
                )
            } else {
                let Some(expr_v) = field("expr") else {
                    return Err(self.err(
                        &span,
                        "a [[metric]] needs `expr` (an expression over the run's metrics and parameters), `percentile` and `of` (a percentile of a distribution), or `share_above` and `of` (the share of a distribution's samples above a value)",
                    ));
                };
                if let Some(of) = field("of") {
                    return Err(self.err(
                        &of.span(),
                        "`of` names the distribution of a `percentile` or a `share_above`; this [[metric]] has `expr` instead",
                    ));
                }
                let text = self.string(expr_v, "expr")?;
                (
                    Derivation::Expr(parse(&text, expr_v, "expr")?),
                    format!("derived: {text}"),
                )
            };
            let meaning = match field("meaning") {
                Some(v) => self.string(v, "meaning")?,
                None => default_meaning,
            };
            metrics.push(ColumnSpec {
                name: self.interned(&name, "metric name", &name_v.span())?,
                meaning: self.interned(&meaning, "meaning", &span)?,
                ty: ColumnType::Float,
            });
            if derivation.nodes() > largest.0 {
                let at = ["expr", "share_above", "percentile"]
                    .iter()
                    .find_map(|k| field(k))
                    .map_or(span.clone(), |v| v.span());
                largest = (derivation.nodes(), at);
            }
            exprs.push(derivation);
        }
        self.check_derived_work(plan, &exprs, largest)?;
        Ok(Arc::new(Derived {
            inner,
            metrics,
            exprs: Arc::new(exprs),
        }))
    }

    /// The derived metrics evaluated at the end of every run of the config, a node of an
    /// expression an event, held to `max_events` as a whole: each run's share is small (64
    /// metrics of 1,000 nodes are 64,000), but a million runs make 6.4 × 10^10, minutes of
    /// work no model's estimate counts. Refused at the largest expression.
    fn check_derived_work(
        &self,
        plan: &Plan,
        exprs: &[Derivation],
        (largest, at): (usize, crate::source::Span),
    ) -> Result<(), ConfigError> {
        let per_run: u64 = exprs.iter().map(|d| d.nodes() as u64).sum();
        let work = per_run.saturating_mul(plan.runs());
        // One run past the limit alone is said by the run's own estimate, with the point.
        if work <= plan.limits.max_events || per_run > plan.limits.max_events {
            return Ok(());
        }
        Err(self.err(
            &at,
            format!(
                "the [[metric]]s of all {} runs would take about {work} events ({per_run} a run, a number, name or operator an event; this one {largest}), more than max_events = {} in [limits], which holds a config's derived metrics over all its runs; fewer runs, shorter expressions, or raise max_events",
                plan.runs(),
                plan.limits.max_events
            ),
        ))
    }

    /// A name kept for the process (a column's name and meaning are `&'static str`).
    fn interned(
        &self,
        s: &str,
        what: &str,
        at: &crate::source::Span,
    ) -> Result<&'static str, ConfigError> {
        coordsim_model::intern(s).ok_or_else(|| {
            self.err(
                at,
                format!("too many distinct names in this process for a {what}"),
            )
        })
    }

    /// `percentile = P, of = "DIST"`: a percentile in (0, 100] of one of the model's
    /// distributions (by its name), and no `expr` beside it.
    fn percentile_metric(
        &self,
        model: &dyn ModelDef,
        p_v: &Spanned<DeValue<'_>>,
        of_v: Option<&Spanned<DeValue<'_>>>,
        expr_v: Option<&Spanned<DeValue<'_>>>,
        span: &crate::source::Span,
    ) -> Result<(&'static str, f64), ConfigError> {
        if let Some(e) = expr_v {
            return Err(self.err(&e.span(), ONE_KIND));
        }
        let p = self.number(p_v, "percentile")?;
        if !(p > 0.0 && p <= 100.0) {
            return Err(self.err(
                &p_v.span(),
                format!("`percentile` is in (0, 100] (99.95 for the 99.95th), got {p}"),
            ));
        }
        Ok((self.distribution(model, of_v, span, "a `percentile`")?, p))
    }

    /// `of = "DIST"`: one of the model's distributions, by its name, which `what` (a
    /// percentile, a share) is taken of.
    fn distribution(
        &self,
        model: &dyn ModelDef,
        of_v: Option<&Spanned<DeValue<'_>>>,
        span: &crate::source::Span,
        what: &str,
    ) -> Result<&'static str, ConfigError> {
        let names: Vec<&'static str> = model.distributions().iter().map(|d| d.name).collect();
        let listed = if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        };
        let Some(of_v) = of_v else {
            return Err(self.err(
                span,
                format!(
                    "{what} needs `of`, the distribution it is taken of; this model's: {listed}"
                ),
            ));
        };
        let of = self.string(of_v, "of")?;
        match names.iter().find(|n| **n == of) {
            Some(n) => Ok(n),
            None => Err(self.err(
                &of_v.span(),
                format!(
                    "`{of}` is no distribution of this model{}; its distributions: {listed}",
                    coordsim_model::suggest::did_you_mean(&of, &names),
                ),
            )),
        }
    }

    /// A derived metric's name: a plain name (letters, digits, `_`, `.`), not a column the
    /// outputs already have (a metric, a parameter, a reserved column).
    fn check_metric_name(
        &self,
        plan: &Plan,
        metrics: &[ColumnSpec],
        name: &str,
        at: &crate::source::Span,
    ) -> Result<(), ConfigError> {
        let plain = !name.is_empty()
            && name.chars().count() <= 100
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            && !name.starts_with(|c: char| c.is_ascii_digit() || c == '.');
        if !plain {
            return Err(self.err(
                at,
                "a [[metric]] `name` is letters, digits, `_` and `.`, not starting with a digit, at most 100",
            ));
        }
        let taken = metrics.iter().any(|c| c.name == name)
            || plan.model.params().iter().any(|p| p.key == name)
            || plan.vars.iter().any(|(v, _)| v == name)
            || coordsim_model::RESERVED_COLUMNS.contains(&name);
        if taken {
            return Err(self.err(
                at,
                format!("`{name}` is already a column (a metric, a parameter or a reserved name); name the derived metric otherwise"),
            ));
        }
        Ok(())
    }
}
