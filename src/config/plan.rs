//! Phase one of loading a config: the [`Plan`] (model, parameters, sweep, limits, labels).
//!
//! The plan is read section by section (`sections.rs`: the model, the settings, `[params]`
//! and `[vars]`, `[sweep]`, derived parameters, every point prepared, `[labels]`); this file
//! holds what a plan is and what it answers about its points.

use std::sync::Arc;

use coordsim_model::{Kind, ModelDef, PreparedRun, Value};
use sim_core::{Limits, Stats};

use super::{Var, matches_filter};
use crate::locale::Locale;
use crate::source::{Source, Span};
use crate::sweep::{self};
use coordsim_expr::Expr;

/// The memory a config's runs may take by default: 4 GiB.
pub(crate) const DEFAULT_MAX_MEMORY_MB: u64 = 4096;

/// Most bytes of a trace file.
pub(crate) const MAX_TRACE_BYTES: u64 = 256 * 1024 * 1024;

/// Most runs (points × replications) one config may ask for.
pub(crate) const MAX_RUNS: u64 = 1_000_000;

/// Columns every output table has besides parameters and metrics (labels may name them).
pub(crate) const FIXED_COLUMNS: &[&str] = &["point", "replication", "seed", "entity"];

/// What runs: the model, every point's parameters, replications and limits, and the labels.
#[derive(Debug)]
pub struct Plan {
    /// The file.
    pub(crate) source: Source,
    /// The file stem: the output folder's name.
    pub(crate) stem: String,
    /// The model it runs.
    pub model: Arc<dyn ModelDef>,
    /// Each point's parameters, typed and validated once (by point index).
    pub plans: Vec<Box<dyn PreparedRun>>,
    /// Title for charts and tables, in the locale the config is read in.
    pub title: String,
    /// `title` per locale, when the config gives it so (`{ tr = "…", en = "…" }`).
    pub(crate) titles: Vec<(Locale, String)>,
    /// The locales it has words for: its own `locale` first, then every one its texts and
    /// `[labels.X]` name.
    pub(crate) speaks: Vec<Locale>,
    /// Master seed.
    pub seed: u64,
    /// Runs per point.
    pub replications: u64,
    /// Every parameter's value, defaults filled, in the model's order.
    pub(crate) base: Vec<Value>,
    /// Where each parameter was set in `[params]`.
    pub(super) param_spans: Vec<Option<Span>>,
    /// Swept parameters in declared order.
    pub axes: Vec<Axis>,
    /// `[labels]`: texts for columns, category values, timeline kinds and built-in words.
    pub(crate) labels: Vec<(String, String)>,
    /// Labels of values only a run can show (an entity's name, a text cell), with where they
    /// are written: each must match something once the config has run.
    pub(crate) value_labels: Vec<(String, Span)>,
    /// How numbers and built-in words are written for readers: `locale`, or the locale a
    /// lesson reads the config in ([`super::Config::in_locale`]).
    pub locale: Locale,
    /// Number of sweep points.
    pub points: usize,
    /// Whether entity rows are kept (`entities = false` drops them: big random sweeps).
    pub(crate) entities: bool,
    /// How runs keep their samples (`stats`: exact, or an HDR histogram).
    pub(crate) stats: Stats,
    /// How percentiles are read (`percentile`: nearest rank, or linear as numpy does).
    pub percentile: sim_core::Percentile,
    /// Per-run limits on events and virtual time (`[limits]`, default sim-core's).
    pub limits: Limits,
    /// The memory the runs may take at once, and their kept rows in all (`[limits]
    /// max_memory_mb`), in bytes.
    pub(crate) max_memory_bytes: u64,
    /// The largest memory estimate of one run of any point (how many runs fit at once).
    pub(crate) heaviest_run_bytes: u64,
    /// The estimated bytes of the entity rows of every run, which stay until the outputs
    /// are written.
    pub(crate) entity_bytes: u64,
    /// Where `model` is written: errors with no better place point here.
    pub(super) model_span: Span,
    /// `[vars]`: free variables (name, description), swept like parameters and usable in
    /// derived parameters and expressions. Their values follow the model's parameters in
    /// `base` and in every point's values.
    pub(crate) vars: Vec<(String, String)>,
    /// Parameters given as `{ expr = "…" }`: (parameter index, expression over the values).
    pub(crate) derived: Vec<(usize, Expr<Var>)>,
}

/// One swept parameter.
#[derive(Debug)]
pub struct Axis {
    /// Index of the parameter in the model's order (a var: after the model's parameters).
    pub(crate) param: usize,
    /// Its key.
    pub key: String,
    /// Its values in sweep order.
    pub values: Vec<Value>,
    /// Where each value was written (a range's values all point at the range).
    pub(crate) spans: Vec<Span>,
}

impl Plan {
    /// Number of runs: points × replications.
    pub fn runs(&self) -> u64 {
        self.points as u64 * self.replications
    }

    /// Where parameter `i` is set in `[params]`, or (a default) where `model` is.
    pub(crate) fn written_at(&self, i: usize) -> Span {
        self.param_spans
            .get(i)
            .cloned()
            .flatten()
            .unwrap_or_else(|| self.model_span.clone())
    }

    /// The parameters `[params]` sets and `[sweep]` does not, in the order written (model
    /// indices).
    pub(crate) fn written_params(&self) -> Vec<usize> {
        let n = self.model.params().len();
        let mut written: Vec<(usize, usize)> = (0..n)
            .filter(|i| !self.axes.iter().any(|a| a.param == *i))
            .filter_map(|i| self.param_spans.get(i)?.as_ref().map(|s| (s.start, i)))
            .collect();
        written.sort_unstable();
        written.into_iter().map(|(_, i)| i).collect()
    }

    /// Every parameter's value at point `index`.
    pub fn point_values(&self, index: usize) -> Vec<Value> {
        self.values_with(index, None)
    }

    /// [`Plan::point_values`], with parameter `set.0` given the value `set.1` (one the sweep
    /// need not have: a reference curve between two points) before the derived parameters
    /// are derived.
    pub(crate) fn values_with(&self, index: usize, set: Option<(usize, Value)>) -> Vec<Value> {
        let mut values = self.base.clone();
        for (axis, coord) in self.axes.iter().zip(self.coordinates(index)) {
            values[axis.param] = axis.values[coord].clone();
        }
        if let Some((param, value)) = set {
            values[param] = value;
        }
        // Derived parameters, in declared order, from the vars and parameters set so far.
        for (param, expr) in &self.derived {
            let got = {
                let get = |v: Var| match v {
                    Var::Param(i) => values[i].as_f64(),
                    _ => None,
                };
                expr.eval(&get)
            };
            let count = self.model.params()[*param].kind == Kind::Count;
            values[*param] = match got {
                // A whole number for a count parameter; anything else its type check names.
                Some(x) if count && x >= 0.0 && x.fract() == 0.0 && x < 9.2e18 => {
                    Value::Int(x as i64)
                }
                // Float noise of the arithmetic (6 / 0.3 = 20.000000000000004) is not a
                // value anyone wrote: 12 significant digits, as for log-spaced points.
                Some(x) if x.is_finite() => Value::Float(crate::sweep::significant(x)),
                Some(x) => Value::Float(x),
                None => Value::Float(f64::NAN),
            };
        }
        values
    }

    /// Where `[params]` sets parameter `index` (`None`: its default, a sweep or a var).
    pub(crate) fn param_span(&self, index: usize) -> Option<&Span> {
        self.param_spans.get(index)?.as_ref()
    }

    /// The names values are given for: the model's parameters, then the vars.
    pub fn key_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.model.params().iter().map(|p| p.key).collect();
        names.extend(self.vars.iter().map(|(n, _)| n.as_str()));
        names
    }

    /// The index of a parameter or var in a point's values.
    pub fn key_index(&self, name: &str) -> Option<usize> {
        self.key_names().iter().position(|k| *k == name)
    }

    /// Whether point `index` matches a `where` filter.
    pub(crate) fn matches(&self, index: usize, filter: &[(usize, Value)]) -> bool {
        filter.is_empty() || matches_filter(&self.point_values(index), filter)
    }

    /// The value index on each axis of point `index`.
    pub fn coordinates(&self, index: usize) -> Vec<usize> {
        let lengths: Vec<usize> = self.axes.iter().map(|a| a.values.len()).collect();
        sweep::coordinates(index, &lengths)
    }
}

/// Most characters in one label (a title or label is text for a chart, not a document).
pub(crate) const MAX_LABEL_CHARS: usize = 200;
