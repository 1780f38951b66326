//! Loading a config, in two phases.
//!
//! 1. [`plan`]: the [`Plan`] — the model, its parameters, the sweep axes and points (each
//!    point's parameters typed and validated once), replications, limits and labels. It
//!    fixes the schema: which columns the output files have.
//! 2. [`claims`] and [`charts`]: `[[claim]]` and `[[chart]]` tables (and the model's default
//!    charts, through the same checks) parsed against the plan, so every name they use is a
//!    column, a parameter or an entity the plan has.
//!
//! Every error names the file, line and column (an unknown key at the key, a bad value at the
//! value) and what would be valid. Nothing here panics on any input.

pub mod charts;
pub mod claims;
pub mod plan;
mod read;
pub mod table;

use std::ops::Deref;

use coordsim_model::{Kind, Registry, Value};
use toml::de::DeTable;

pub use charts::{ChartSpec, ENTITY_X};
pub use claims::{Claim, Expect, Stat, Test};
pub use coordsim_model::ChartKind;
pub use plan::{Axis, MAX_RUNS, Plan};
pub use table::TableSpec;

use crate::source::{ConfigError, Source, Span};
use read::Loader;

/// A loaded, checked config: its plan, then its claims and charts.
#[derive(Debug)]
pub struct Config {
    /// Model, parameters, sweep, limits, labels.
    pub plan: Plan,
    /// Claims in declared order.
    pub claims: Vec<Claim>,
    /// Charts (the config's or the model's defaults).
    pub charts: Vec<ChartSpec>,
    /// `[table]`: what `table.md` shows.
    pub table: TableSpec,
}

impl Deref for Config {
    type Target = Plan;
    fn deref(&self) -> &Plan {
        &self.plan
    }
}

/// The top-level keys of a config.
const TOP_KEYS: &[&str] = &[
    "model",
    "entities",
    "stats",
    "vars",
    "limits",
    "title",
    "seed",
    "replications",
    "params",
    "sweep",
    "claim",
    "chart",
    "labels",
    "locale",
    "table",
    "percentile",
];

/// Most bytes of a config file.
pub const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

#[cfg(test)]
mod nesting_tests {
    use super::too_deep;

    #[test]
    fn nesting_is_counted_outside_strings_and_comments() {
        let deep = format!("a = {}{}", "[".repeat(65), "]".repeat(65));
        assert_eq!(too_deep(&deep), Some(4 + 64));
        assert_eq!(
            too_deep(&format!("a = {}{}", "[".repeat(64), "]".repeat(64))),
            None
        );
        for text in [
            format!("a = \"{}\"", "[".repeat(100)),
            format!("a = '{}'", "{".repeat(100)),
            format!("# {}\n", "[".repeat(100)),
            format!("a = \"\"\"{}\"\"\"", "[".repeat(100)),
            "a = \"\\".to_string(),
            "a = \"x\\\"[[[\"".to_string(),
            "\"".to_string(),
        ] {
            assert_eq!(too_deep(&text), None, "{text}");
        }
    }
}

/// Deepest nesting of `[` and `{` in a config's values (the TOML parser recurses on it).
pub const MAX_NESTING: usize = 64;

/// The byte offset where brackets first nest deeper than [`MAX_NESTING`] (outside strings
/// and comments), in one linear pass before the parser sees the text.
fn too_deep(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                let triple = bytes[i..].starts_with(if q == b'"' { b"\"\"\"" } else { b"\'\'\'" });
                let close: &[u8] = if triple {
                    if q == b'"' { b"\"\"\"" } else { b"\'\'\'" }
                } else if q == b'"' {
                    b"\""
                } else {
                    b"\'"
                };
                i += close.len();
                while i < bytes.len() && !bytes[i..].starts_with(close) {
                    // A basic string's escaped quote does not close it.
                    if q == b'"' && bytes[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if !triple && bytes[i] == b'\n' {
                        break;
                    }
                    i += 1;
                }
                i += close.len() - 1;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

impl Config {
    /// Reads and checks the config at `path` (`name` is how the user wrote it).
    pub fn load(name: &str, registry: &Registry) -> anyhow::Result<Config> {
        let text = crate::input::read_text_capped(std::path::Path::new(name), MAX_CONFIG_BYTES)
            .map_err(|e| anyhow::anyhow!("config {name}: {e}"))?;
        Ok(Config::parse(
            Source {
                name: name.to_string(),
                text,
            },
            registry,
        )?)
    }

    /// Parses and checks a config's text against the models of `registry`.
    pub fn parse(source: Source, registry: &Registry) -> Result<Config, ConfigError> {
        if let Some(at) = too_deep(&source.text) {
            return Err(source.error(
                &(at..at),
                format!("arrays and tables nest at most {MAX_NESTING} deep"),
            ));
        }
        let doc = match DeTable::parse(&source.text) {
            Ok(doc) => doc,
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                let message = e.message().trim().to_string();
                return Err(source.error(&span, format!("invalid TOML: {message}")));
            }
        };
        let doc = doc.get_ref();
        let loader = Loader { src: &source };
        // A composed model's sections (`[[resource]]`, `[[actor]]`) are top-level keys too;
        // the plan refuses them under any other model.
        let mut top: Vec<&str> = TOP_KEYS.to_vec();
        for composer in registry.composers() {
            top.extend(composer.sections().iter().copied());
        }
        for (key, _) in doc.iter() {
            if !top.contains(&key.get_ref().as_ref()) {
                return Err(loader.unknown_key(key, "the config", &top));
            }
        }
        let plan = loader.plan(doc, &source, registry)?;
        let get = |k: &str| doc.iter().find(|(key, _)| key.get_ref() == k);
        let claims = match get("claim") {
            Some((_, claims)) => loader
                .array_of_tables(claims, "claim")?
                .into_iter()
                .map(|claim| loader.claim(&plan, claim))
                .collect::<Result<_, _>>()?,
            None => Vec::new(),
        };
        let charts = match get("chart") {
            Some((key, charts)) => loader.charts(&plan, charts, &key.span())?,
            None => loader.default_charts(&plan)?,
        };
        let table = match get("table") {
            Some((_, t)) => loader.table_spec(&plan, t)?,
            None => TableSpec::default(),
        };
        check_kept_memory(&plan, &charts).map_err(|m| loader.err(&plan.model_span, m))?;
        Ok(Config {
            plan,
            claims,
            charts,
            table,
        })
    }
}

/// Refuses a config whose kept results would pass `max_memory_mb`: every run's row, the
/// entity rows, and the samples its distribution charts pool (at most
/// [`crate::runner::MAX_POOLED_SAMPLES`] per drawn point and distribution, 8 bytes each;
/// a run gives no more samples than its own memory estimate holds).
fn check_kept_memory(plan: &Plan, charts: &[ChartSpec]) -> Result<(), String> {
    // A row's cells (32 bytes each, plus what a text cell holds) and its vector.
    let row_bytes = (4 + plan.axes.len() as u64 + plan.model.metrics().len() as u64) * 48 + 96;
    let rows = plan.runs().saturating_mul(row_bytes);
    let mut names: Vec<&str> = charts
        .iter()
        .filter(|c| c.distribution)
        .flat_map(|c| c.y.iter().map(String::as_str))
        .collect();
    names.sort_unstable();
    names.dedup();
    let drawn = (0..plan.points)
        .filter(|p| {
            charts
                .iter()
                .any(|c| c.distribution && plan.matches(*p, &c.filter))
        })
        .count() as u64;
    // A run hands over at most MAX_DISTRIBUTION_POINTS samples, and no more than it held
    // (8 bytes each, within its own memory estimate).
    let per_run = (coordsim_model::MAX_DISTRIBUTION_POINTS as u64).min(plan.heaviest_run_bytes / 8);
    let per_point = plan
        .replications
        .saturating_mul(per_run)
        .min(crate::runner::MAX_POOLED_SAMPLES as u64);
    let samples = drawn
        .saturating_mul(names.len() as u64)
        .saturating_mul(per_point)
        .saturating_mul(8);
    let total = rows
        .saturating_add(plan.entity_bytes)
        .saturating_add(samples);
    if total > plan.max_memory_bytes {
        return Err(format!(
            "the results of all {} runs would take about {} MiB ({} MiB of rows, {} MiB of entity rows, {} MiB of samples for {} drawn point(s) of the distribution charts), more than max_memory_mb = {} in [limits]; fewer runs, `entities = false`, a `where` on the cdf/histogram charts, or a larger max_memory_mb",
            plan.runs(),
            total >> 20,
            rows >> 20,
            plan.entity_bytes >> 20,
            samples >> 20,
            drawn,
            plan.max_memory_bytes >> 20
        ));
    }
    Ok(())
}

/// A variable in a claim or chart expression: a column of the plan's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// A numeric parameter.
    Param(usize),
    /// A metric column.
    Metric(usize),
    /// An entity column (entity claims only).
    Entity(usize),
    /// The x of a cdf or histogram (its `y_expr` curves are functions of it).
    X,
}

/// Whether a point's parameter values match a `where` filter.
pub fn matches_filter(values: &[Value], filter: &[(usize, Value)]) -> bool {
    filter.iter().all(|(i, v)| values[*i].matches(v))
}

fn numeric_kind(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Count | Kind::Float | Kind::NumberOrList | Kind::CountOrList
    )
}

impl Plan {
    /// A text column by this name (entity columns first for entity claims), as a variable.
    pub fn text_column(&self, name: &str, entity: bool) -> Option<Var> {
        let model = &*self.model;
        if entity && let Some(i) = model.entity_columns().iter().position(|c| c.name == name) {
            return (!model.entity_columns()[i].numeric()).then_some(Var::Entity(i));
        }
        let i = model.metrics().iter().position(|c| c.name == name)?;
        (!model.metrics()[i].numeric()).then_some(Var::Metric(i))
    }

    /// Resolves a name to a numeric column: an entity column (entity claims, winning on a
    /// clash), a metric, or (when `params` is true) a numeric parameter.
    pub fn resolve(&self, name: &str, entity: bool, params: bool) -> Result<Var, String> {
        let model = &*self.model;
        if entity && let Some(i) = model.entity_columns().iter().position(|c| c.name == name) {
            return if model.entity_columns()[i].numeric() {
                Ok(Var::Entity(i))
            } else {
                Err(format!("`{name}` is not numeric"))
            };
        }
        if let Some(i) = model.metrics().iter().position(|c| c.name == name) {
            return if model.metrics()[i].numeric() {
                Ok(Var::Metric(i))
            } else {
                Err(format!("`{name}` is not numeric"))
            };
        }
        if params {
            if let Some(i) = model.params().iter().position(|p| p.key == name) {
                return if numeric_kind(model.params()[i].kind) {
                    Ok(Var::Param(i))
                } else {
                    Err(format!("the parameter `{name}` is not numeric"))
                };
            }
            // A var's values follow the model's parameters.
            if let Some(j) = self.vars.iter().position(|(v, _)| v == name) {
                return Ok(Var::Param(model.params().len() + j));
            }
        }
        let mut valid: Vec<&str> = Vec::new();
        if entity {
            valid.extend(
                model
                    .entity_columns()
                    .iter()
                    .filter(|c| c.numeric())
                    .map(|c| c.name),
            );
        }
        valid.extend(
            model
                .metrics()
                .iter()
                .filter(|c| c.numeric())
                .map(|c| c.name),
        );
        if params {
            valid.extend(
                model
                    .params()
                    .iter()
                    .filter(|p| numeric_kind(p.kind))
                    .map(|p| p.key),
            );
            valid.extend(self.vars.iter().map(|(v, _)| v.as_str()));
        }
        Err(format!(
            "unknown {} `{name}` for {}; valid: {}",
            if params { "name" } else { "metric" },
            model.name(),
            valid.join(", ")
        ))
    }
}

impl Config {
    /// Whether a chart of this config is a timeline (its runs record lanes).
    pub fn draws_timeline(&self) -> bool {
        self.charts.iter().any(|c| c.kind == ChartKind::Timeline)
    }

    /// Whether a chart of this config draws a per-request distribution (its runs keep
    /// their samples).
    pub fn draws_distributions(&self) -> bool {
        self.charts.iter().any(|c| c.distribution)
    }

    /// Whether a distribution chart draws point `point` (only those runs keep samples).
    pub fn draws_distribution_at(&self, point: usize) -> bool {
        self.charts
            .iter()
            .any(|c| c.distribution && self.matches(point, &c.filter))
    }

    /// The text values its charts show as they are (categories on an axis, a swept
    /// setting in a legend or title), each once with where it is written: a swept value at
    /// its place in `[sweep]`, a fixed one at its `[params]` value (a default at `model`).
    /// A value with a `[labels]` entry is not one of them.
    pub fn chart_values(&self) -> Vec<(String, String, Span)> {
        let mut out: Vec<(String, String, Span)> = Vec::new();
        let mut add = |value: &str, chart: &str, span: Span| {
            if !self.has_label(value) && !out.iter().any(|(v, _, _)| v == value) {
                out.push((value.to_string(), chart.to_string(), span));
            }
        };
        for chart in &self.charts {
            // Swept values: categories when x, else in legends and (timelines) titles.
            for axis in &self.axes {
                for (v, span) in axis.values.iter().zip(&axis.spans) {
                    match v {
                        Value::Str(t) => add(t, &chart.name, span.clone()),
                        Value::Bool(b) => {
                            add(if *b { "true" } else { "false" }, &chart.name, span.clone())
                        }
                        _ => {}
                    }
                }
            }
            // A fixed text parameter as x: its one category.
            if let Some(i) = self.key_index(&chart.x)
                && !self.axes.iter().any(|a| a.param == i)
                && let Value::Str(t) = &self.base[i]
            {
                let span = self
                    .param_spans
                    .get(i)
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| self.model_span.clone());
                add(t, &chart.name, span);
            }
        }
        out
    }

    /// What a run of it should say before it writes: in a Turkish config, every text value
    /// a chart shows unlabelled (an English choice such as `consumer` in a Turkish lesson),
    /// as `FILE:LINE:COL: …` naming the value and the `[labels]` line to add.
    pub fn warnings(&self) -> Vec<String> {
        if self.locale != crate::locale::Locale::Tr {
            return Vec::new();
        }
        self.chart_values()
            .into_iter()
            .map(|(value, chart, span)| {
                self.source
                    .error(
                        &span,
                        format!(
                            "the chart `{chart}` shows `{value}` as it is in a Turkish config (locale = \"tr\"); label it: add `{value} = \"…\"` to [labels]"
                        ),
                    )
                    .to_string()
            })
            .collect()
    }

    /// A `[labels]` key for a value only a run shows (an entity's name, a text cell) must
    /// match one, or it is a misspelling that would leave the output unlabelled.
    pub fn check_value_labels(&self, results: &crate::results::Results) -> Result<(), ConfigError> {
        if self.value_labels.is_empty() {
            return Ok(());
        }
        let tables = std::iter::once(&results.results).chain(results.entities.as_ref());
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        for table in tables {
            for row in &table.rows {
                for cell in row.cells() {
                    if let coordsim_model::Cell::Text(t) = cell {
                        seen.insert(t.clone());
                    }
                }
            }
        }
        match self.value_labels.iter().find(|(k, _)| !seen.contains(k)) {
            None => Ok(()),
            Some((key, span)) => Err(self.source.error(
                span,
                format!(
                    "`{key}` in [labels] is not a column, parameter value, timeline kind, entity or text value of this run; label one of those, or a built-in word: {}",
                    crate::locale::Text::ALL.map(|t| t.key()).join(", ")
                ),
            )),
        }
    }
}
