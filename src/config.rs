//! Loading a config: TOML with positions, checked against the model's contract.
//!
//! Every error names the file, line and column (an unknown key at the key, a bad value at the
//! value) and what would be valid. Nothing here panics on any input.

use std::path::Path;
use std::sync::Arc;

pub use coordsim_model::ChartKind;
use coordsim_model::{Kind, ModelDef, PreparedRun, Registry, Value};
use sim_core::Limits;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::expr::{self, Expr};
use crate::source::{ConfigError, Source, Span};
use crate::sweep::{self, MAX_POINTS, Range};

/// Most runs (points × replications) one config may ask for.
pub const MAX_RUNS: u64 = 1_000_000;

/// A loaded, checked config.
#[derive(Debug)]
pub struct Config {
    /// The file.
    pub source: Source,
    /// The file stem: the output folder's name.
    pub stem: String,
    /// The model it runs.
    pub model: Arc<dyn ModelDef>,
    /// Each point's parameters, typed and validated once (by point index).
    pub plans: Vec<Box<dyn PreparedRun>>,
    /// Title for charts and tables.
    pub title: String,
    /// Master seed.
    pub seed: u64,
    /// Runs per point.
    pub replications: u64,
    /// Every parameter's value, defaults filled, in the model's order.
    pub base: Vec<Value>,
    /// Where each parameter was set in `[params]`.
    param_spans: Vec<Option<Span>>,
    /// Swept parameters in declared order.
    pub axes: Vec<Axis>,
    /// Claims in declared order.
    pub claims: Vec<Claim>,
    /// Charts (the config's or the model's defaults).
    pub charts: Vec<ChartSpec>,
    /// Column labels for tables and charts.
    pub labels: Vec<(String, String)>,
    /// Number of sweep points.
    pub points: usize,
    /// Whether entity rows are kept (`entities = false` drops them: big random sweeps).
    pub entities: bool,
    /// Per-run limits on events and virtual time (`[limits]`, default sim-core's).
    pub limits: Limits,
    model_span: Span,
}

/// One swept parameter.
#[derive(Debug)]
pub struct Axis {
    /// Index of the parameter in the model's order.
    pub param: usize,
    /// Its key.
    pub key: &'static str,
    /// Its values in sweep order.
    pub values: Vec<Value>,
    /// Where each value was written (a range's values all point at the range).
    pub spans: Vec<Span>,
}

/// A variable in a claim expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// A numeric parameter.
    Param(usize),
    /// A metric column.
    Metric(usize),
    /// An entity column (entity claims only).
    Entity(usize),
}

/// What a claim expects.
#[derive(Debug, Clone)]
pub enum Expect {
    /// A number.
    Number(f64),
    /// An expression over the row, with its text.
    Expr(String, Expr<Var>),
    /// Exactly this text (a claim on a text column, such as an outcome).
    Text(String),
}

/// How a claim compares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Test {
    /// |actual − expected| ≤ tolerance.
    Tolerance(f64),
    /// actual / expected within [lo, hi].
    Band(f64, f64),
}

/// One `[[claim]]`.
#[derive(Debug, Clone)]
pub struct Claim {
    /// Its label (default: the metric and filter).
    pub name: String,
    /// `where`: (parameter index, value) pairs the row's parameters must match.
    pub filter: Vec<(usize, Value)>,
    /// The metric (or entity column) named.
    pub metric: String,
    /// The column it reads.
    pub target: Var,
    /// The entity, for an entity claim, and where it was written.
    pub entity: Option<(String, Span)>,
    /// The expected value.
    pub expect: Expect,
    /// The comparison.
    pub test: Test,
}

/// One chart to draw.
#[derive(Debug, Clone)]
pub struct ChartSpec {
    /// File stem.
    pub name: String,
    /// Column on the x axis (empty for `cdf`).
    pub x: String,
    /// Metrics on the y axis.
    pub y: Vec<String>,
    /// Kind.
    pub kind: ChartKind,
    /// A metric drawn as a vertical marker at its x value.
    pub mark_x: Option<String>,
    /// A y value drawn as a horizontal line.
    pub mark_y: Option<f64>,
    /// Reference lines: (legend, expression over the row's parameters and metrics).
    pub y_expr: Vec<(String, Expr<Var>)>,
    /// Log-scale x axis.
    pub log_x: bool,
    /// `where`: only rows whose parameters match.
    pub filter: Vec<(usize, Value)>,
}

const TOP_KEYS: &[&str] = &[
    "model",
    "entities",
    "limits",
    "title",
    "seed",
    "replications",
    "params",
    "sweep",
    "claim",
    "chart",
    "labels",
];
const CLAIM_KEYS: &[&str] = &[
    "name",
    "where",
    "metric",
    "expect",
    "tolerance",
    "band",
    "entity",
];
const CHART_KEYS: &[&str] = &[
    "name", "x", "y", "y_expr", "kind", "mark_x", "mark_y", "log_x", "where",
];
/// `x = "entity"`: a chart with one bar (or point) per entity row.
pub const ENTITY_X: &str = "entity";
/// Columns every results table has besides parameters and metrics.
pub const FIXED_COLUMNS: &[&str] = &["point", "replication", "seed", "entity"];

type Entry<'a> = (
    &'a Spanned<std::borrow::Cow<'a, str>>,
    &'a Spanned<DeValue<'a>>,
);

impl Config {
    /// Reads and checks the config at `path` (`name` is how the user wrote it).
    pub fn load(name: &str, registry: &Registry) -> anyhow::Result<Config> {
        let text = std::fs::read_to_string(name)
            .map_err(|e| anyhow::anyhow!("cannot read config {name}: {e}"))?;
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
        let doc = match DeTable::parse(&source.text) {
            Ok(doc) => doc,
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                let message = e.message().trim().to_string();
                return Err(source.error(&span, format!("invalid TOML: {message}")));
            }
        };
        let doc = doc.get_ref();
        let stem = Path::new(&source.name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "config".into());
        Loader { src: &source }.config(doc, stem, &source, registry)
    }

    /// Number of runs: points × replications.
    pub fn runs(&self) -> u64 {
        self.points as u64 * self.replications
    }

    /// Every parameter's value at point `index`.
    pub fn point_values(&self, index: usize) -> Vec<Value> {
        let mut values = self.base.clone();
        for (axis, coord) in self.axes.iter().zip(self.coordinates(index)) {
            values[axis.param] = axis.values[coord].clone();
        }
        values
    }

    /// Whether point `index` matches a `where` filter.
    pub fn matches(&self, index: usize, filter: &[(usize, Value)]) -> bool {
        filter.is_empty() || matches_filter(&self.point_values(index), filter)
    }

    /// The value index on each axis of point `index`.
    pub fn coordinates(&self, index: usize) -> Vec<usize> {
        let lengths: Vec<usize> = self.axes.iter().map(|a| a.values.len()).collect();
        sweep::coordinates(index, &lengths)
    }

    /// The label of a column (its name when none is set).
    pub fn label<'a>(&'a self, column: &'a str) -> &'a str {
        self.labels
            .iter()
            .find(|(k, _)| k == column)
            .map_or(column, |(_, v)| v.as_str())
    }

    /// An error pointing at this config's `model` line (for errors with no better place).
    pub fn error_at_model(&self, message: impl Into<String>) -> ConfigError {
        self.source.error(&self.model_span, message)
    }

    /// An error about parameter `key` at point `index`: at its sweep value when swept, else at
    /// its `[params]` value, else at the `model` line (a default).
    pub fn param_error(&self, key: &str, index: usize, message: &str) -> ConfigError {
        let coords = self.coordinates(index);
        if let Some((axis, coord)) = self.axes.iter().zip(&coords).find(|(a, _)| a.key == key) {
            let shown = axis.values[*coord].to_string();
            return self
                .source
                .error(&axis.spans[*coord], format!("`{key}` = {shown}: {message}"));
        }
        let param = self.model.params().iter().position(|p| p.key == key);
        match param.and_then(|i| self.param_spans[i].clone()) {
            Some(span) => self.source.error(&span, format!("`{key}`: {message}")),
            None => self.error_at_model(format!("`{key}` (default): {message}")),
        }
    }
}

struct Loader<'s> {
    src: &'s Source,
}

impl Loader<'_> {
    fn err(&self, span: &Span, message: impl Into<String>) -> ConfigError {
        self.src.error(span, message)
    }

    fn unknown_key(
        &self,
        key: &Spanned<std::borrow::Cow<'_, str>>,
        what: &str,
        valid: &[&str],
    ) -> ConfigError {
        self.err(
            &key.span(),
            format!(
                "unknown key `{}` in {what}; valid keys: {}",
                key.get_ref(),
                valid.join(", ")
            ),
        )
    }

    /// The entries of a table, every key among `valid` (else an error at the unknown key).
    fn known_fields<'a, 'i>(
        &self,
        t: &'a DeTable<'i>,
        what: &str,
        valid: &[&str],
    ) -> Result<Vec<Entry<'a>>, ConfigError>
    where
        'i: 'a,
    {
        let mut fields = Vec::new();
        for entry in t.iter() {
            if !valid.contains(&entry.0.get_ref().as_ref()) {
                return Err(self.unknown_key(entry.0, what, valid));
            }
            fields.push(entry);
        }
        Ok(fields)
    }

    fn string(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<String, ConfigError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            other => Err(self.err(
                &v.span(),
                format!("`{key}` must be a string, got {}", de_type(other)),
            )),
        }
    }

    fn number(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<f64, ConfigError> {
        match self.value(v)? {
            Value::Int(i) => Ok(i as f64),
            Value::Float(x) if x.is_finite() => Ok(x),
            other => Err(self.err(
                &v.span(),
                format!("`{key}` must be a finite number, got {}", shown(&other)),
            )),
        }
    }

    fn count(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<u64, ConfigError> {
        if let DeValue::Integer(i) = v.get_ref() {
            if let Ok(n) = u64::from_str_radix(i.as_str(), i.radix()) {
                return Ok(n);
            }
        }
        let got = match v.get_ref() {
            DeValue::Integer(i) => i.to_string(),
            other => de_type(other).to_string(),
        };
        Err(self.err(
            &v.span(),
            format!("`{key}` must be an integer ≥ 0, got {got}"),
        ))
    }

    fn table<'a, 'i>(
        &self,
        v: &'a Spanned<DeValue<'i>>,
        key: &str,
    ) -> Result<&'a DeTable<'i>, ConfigError> {
        match v.get_ref() {
            DeValue::Table(t) => Ok(t),
            other => Err(self.err(
                &v.span(),
                format!("`{key}` must be a table, got {}", de_type(other)),
            )),
        }
    }

    /// A TOML value as a parameter value.
    fn value(&self, v: &Spanned<DeValue<'_>>) -> Result<Value, ConfigError> {
        Ok(match v.get_ref() {
            DeValue::String(s) => Value::Str(s.to_string()),
            DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
                Ok(n) => Value::Int(n),
                Err(_) => {
                    return Err(self.err(&v.span(), "integer too large (the limit is 2^63 − 1)"));
                }
            },
            DeValue::Float(f) => match f.as_str().parse::<f64>() {
                Ok(x) => Value::Float(x),
                Err(_) => return Err(self.err(&v.span(), format!("`{f}` is not a number"))),
            },
            DeValue::Boolean(b) => Value::Bool(*b),
            DeValue::Datetime(_) => {
                return Err(self.err(&v.span(), "dates and times are not parameter values"));
            }
            DeValue::Array(items) => Value::List(
                items
                    .iter()
                    .map(|i| self.value(i))
                    .collect::<Result<_, _>>()?,
            ),
            DeValue::Table(t) => Value::Table(
                t.iter()
                    .map(|(k, v)| Ok((k.get_ref().to_string(), self.value(v)?)))
                    .collect::<Result<_, ConfigError>>()?,
            ),
        })
    }

    fn config(
        &self,
        doc: &DeTable<'_>,
        stem: String,
        source: &Source,
        registry: &Registry,
    ) -> Result<Config, ConfigError> {
        for (key, _) in doc.iter() {
            if !TOP_KEYS.contains(&key.get_ref().as_ref()) {
                return Err(self.unknown_key(key, "the config", TOP_KEYS));
            }
        }
        let get = |k: &str| doc.iter().find(|(key, _)| key.get_ref() == k);

        let names = registry.names();
        let Some((_, model_value)) = get("model") else {
            let example = names.first().copied().unwrap_or("…");
            return Err(self.err(&(0..0), format!("missing `model`; say which model to run, e.g. model = \"{example}\" (`coordsim models` lists them)")));
        };
        let model_name = self.string(model_value, "model")?;
        let Some(model) = registry.find(&model_name).cloned() else {
            return Err(self.err(
                &model_value.span(),
                format!("unknown model `{model_name}`; models: {}", names.join(", ")),
            ));
        };
        let title = match get("title") {
            Some((_, v)) => self.string(v, "title")?,
            None => stem.clone(),
        };
        let seed = match get("seed") {
            Some((_, v)) => self.count(v, "seed")?,
            None => 0,
        };
        let replications = match get("replications") {
            Some((_, v)) => {
                let n = self.count(v, "replications")?;
                if n == 0 {
                    return Err(self.err(&v.span(), "`replications` must be at least 1"));
                }
                n
            }
            None => 1,
        };

        let limits = match get("limits") {
            Some((_, v)) => self.limits(self.table(v, "limits")?)?,
            None => Limits::default(),
        };
        let entities = match get("entities") {
            Some((_, v)) => match v.get_ref() {
                DeValue::Boolean(b) => *b,
                _ => return Err(self.err(&v.span(), "`entities` must be true or false")),
            },
            None => true,
        };
        let specs = model.params();
        let mut base: Vec<Value> = specs.iter().map(|s| (s.default)()).collect();
        let mut param_spans = vec![None; specs.len()];
        if let Some((_, params)) = get("params") {
            let valid: Vec<&str> = specs.iter().map(|s| s.key).collect();
            for (key, value) in self.table(params, "params")?.iter() {
                let Some(i) = specs.iter().position(|s| s.key == key.get_ref().as_ref()) else {
                    return Err(self.unknown_key(
                        key,
                        &format!("[params] of {}", model.name()),
                        &valid,
                    ));
                };
                base[i] = self.value(value)?;
                param_spans[i] = Some(value.span());
            }
        }

        let mut axes = Vec::new();
        if let Some((_, sweep_table)) = get("sweep") {
            let valid: Vec<&str> = specs.iter().map(|s| s.key).collect();
            for (key, value) in self.table(sweep_table, "sweep")?.iter() {
                let Some(i) = specs.iter().position(|s| s.key == key.get_ref().as_ref()) else {
                    return Err(self.unknown_key(
                        key,
                        &format!("[sweep] of {}", model.name()),
                        &valid,
                    ));
                };
                if param_spans[i].is_some() {
                    return Err(self.err(
                        &key.span(),
                        format!(
                            "`{}` is in both [params] and [sweep]; keep one",
                            specs[i].key
                        ),
                    ));
                }
                axes.push(self.axis(i, specs[i].key, specs[i].kind, value)?);
            }
        }
        let Some(points) = sweep::point_count(axes.iter().map(|a| a.values.len())) else {
            let span = get("sweep").map_or(0..0, |(k, _)| k.span());
            return Err(self.err(
                &span,
                format!(
                    "the sweep has {} points, more than the limit of {MAX_POINTS}",
                    axes.iter()
                        .map(|a| a.values.len().to_string())
                        .collect::<Vec<_>>()
                        .join(" × ")
                ),
            ));
        };
        if points * replications > MAX_RUNS {
            let span = get("replications").map_or(0..0, |(_, v)| v.span());
            return Err(self.err(
                &span,
                format!("{points} sweep point(s) × {replications} replications is more than the limit of {MAX_RUNS} runs"),
            ));
        }

        let mut config = Config {
            source: source.clone(),
            stem,
            model: Arc::clone(&model),
            plans: Vec::with_capacity(points as usize),
            title,
            seed,
            replications,
            base,
            param_spans,
            axes,
            claims: Vec::new(),
            charts: Vec::new(),
            labels: Vec::new(),
            points: points as usize,
            entities,
            limits,
            model_span: model_value.span(),
        };

        // Every point's parameters are typed and validated once, before anything runs.
        for index in 0..config.points {
            match model.prepare(&config.point_values(index)) {
                Ok(plan) => config.plans.push(plan),
                Err(e) => return Err(config.param_error(&e.key, index, &e.message)),
            }
        }

        if let Some((_, claims)) = get("claim") {
            for claim in self.array_of_tables(claims, "claim")? {
                let claim = self.claim(&config, claim)?;
                config.claims.push(claim);
            }
        }
        config.charts = match get("chart") {
            Some((_, charts)) => self
                .array_of_tables(charts, "chart")?
                .into_iter()
                .map(|c| self.chart(&config, c))
                .collect::<Result<_, _>>()?,
            None => model
                .charts()
                .iter()
                .map(|c| ChartSpec {
                    name: c.name.to_string(),
                    x: c.x.to_string(),
                    y: c.y.iter().map(|s| s.to_string()).collect(),
                    kind: c.kind,
                    mark_x: c.mark_x.map(str::to_string),
                    mark_y: c.mark_y,
                    y_expr: Vec::new(),
                    log_x: false,
                    filter: Vec::new(),
                })
                .collect(),
        };
        let mut names: Vec<&str> = config.charts.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            let span = get("chart").map_or(0..0, |(k, _)| k.span());
            return Err(self.err(
                &span,
                format!("two charts are named `{}`; names must differ", w[0]),
            ));
        }
        if let Some((_, labels)) = get("labels") {
            for (key, value) in self.table(labels, "labels")?.iter() {
                let name = key.get_ref().to_string();
                if !is_column(&config, &name) {
                    return Err(self.err(
                        &key.span(),
                        format!("`{name}` in [labels] is not a column of {}; label a parameter, a metric or one of {}", model.name(), FIXED_COLUMNS.join(", ")),
                    ));
                }
                config.labels.push((name, self.string(value, "a label")?));
            }
        }
        Ok(config)
    }

    /// `[limits]`: `max_events` and `max_virtual_time_ms` for every run of the config.
    fn limits(&self, t: &DeTable<'_>) -> Result<Limits, ConfigError> {
        const KEYS: &[&str] = &["max_events", "max_virtual_time_ms"];
        let mut limits = Limits::default();
        for (key, value) in self.known_fields(t, "[limits]", KEYS)? {
            match key.get_ref().as_ref() {
                "max_events" => {
                    limits.max_events = self.count(value, "max_events")?;
                    if limits.max_events == 0 {
                        return Err(self.err(&value.span(), "`max_events` must be at least 1"));
                    }
                }
                _ => {
                    let ms = self.number(value, "max_virtual_time_ms")?;
                    limits.max_time = sim_core::ms_to_ns(ms).filter(|ns| *ns > 0).ok_or_else(|| {
                        self.err(&value.span(), format!("`max_virtual_time_ms` must be above 0 and at most about 584 years (1.8e13 ms), got {ms}"))
                    })?;
                }
            }
        }
        Ok(limits)
    }

    fn array_of_tables<'a, 'i>(
        &self,
        v: &'a Spanned<DeValue<'i>>,
        key: &str,
    ) -> Result<Vec<(&'a DeTable<'i>, Span)>, ConfigError> {
        let DeValue::Array(items) = v.get_ref() else {
            return Err(self.err(
                &v.span(),
                format!("`{key}` must be written [[{key}]] (an array of tables)"),
            ));
        };
        items
            .iter()
            .map(|item| Ok((self.table(item, key)?, item.span())))
            .collect()
    }

    fn axis(
        &self,
        param: usize,
        key: &'static str,
        kind: Kind,
        v: &Spanned<DeValue<'_>>,
    ) -> Result<Axis, ConfigError> {
        match v.get_ref() {
            DeValue::Array(items) => {
                if items.is_empty() {
                    return Err(self.err(&v.span(), format!("the sweep of `{key}` is empty; give at least one value")));
                }
                if items.len() as u64 > MAX_POINTS {
                    return Err(self.err(&v.span(), format!("the sweep of `{key}` has more than {MAX_POINTS} values")));
                }
                Ok(Axis {
                    param,
                    key,
                    values: items.iter().map(|i| self.value(i)).collect::<Result<_, _>>()?,
                    spans: items.iter().map(|i| i.span()).collect(),
                })
            }
            DeValue::Table(t) => {
                let (integers, allowed) = match kind {
                    Kind::Count | Kind::CountOrList => (true, true),
                    Kind::Float | Kind::NumberOrList => (false, true),
                    _ => (false, false),
                };
                if !allowed {
                    return Err(self.err(&v.span(), format!("`{key}` takes {kind}: sweep it with a list, not a range")));
                }
                let range = self.range(t, key, &v.span())?;
                let values = sweep::expand(&range, integers)
                    .map_err(|m| self.err(&v.span(), format!("the range of `{key}`: {m}")))?;
                let spans = vec![v.span(); values.len()];
                Ok(Axis { param, key, values, spans })
            }
            other => Err(self.err(
                &v.span(),
                format!("the sweep of `{key}` must be a list of values or a range {{ from, to, step }} / {{ from, to, points, scale }}, got {}", de_type(other)),
            )),
        }
    }

    fn range(&self, t: &DeTable<'_>, key: &str, span: &Span) -> Result<Range, ConfigError> {
        const KEYS: &[&str] = &["from", "to", "step", "points", "scale"];
        let (mut from, mut to, mut step, mut points, mut log) = (None, None, None, None, None);
        for (k, v) in t.iter() {
            match k.get_ref().as_ref() {
                "from" => from = Some(self.number(v, "from")?),
                "to" => to = Some(self.number(v, "to")?),
                "step" => step = Some(self.number(v, "step")?),
                "points" => points = Some(self.count(v, "points")?),
                "scale" => {
                    log = Some(match self.string(v, "scale")?.as_str() {
                        "log" => true,
                        "linear" => false,
                        other => {
                            return Err(self.err(
                                &v.span(),
                                format!("unknown scale `{other}`; valid: \"linear\", \"log\""),
                            ));
                        }
                    })
                }
                _ => return Err(self.unknown_key(k, &format!("the range of `{key}`"), KEYS)),
            }
        }
        let (Some(from), Some(to)) = (from, to) else {
            return Err(self.err(span, format!("the range of `{key}` needs `from` and `to`")));
        };
        match (step, points) {
            (Some(step), None) if log.is_none() => Ok(Range::Step { from, to, step }),
            (None, Some(points)) => Ok(Range::Points {
                from,
                to,
                points,
                log: log.unwrap_or(false),
            }),
            (Some(_), None) => Err(self.err(
                span,
                format!("the range of `{key}`: `scale` goes with `points`, not `step`"),
            )),
            _ => Err(self.err(
                span,
                format!("the range of `{key}` needs exactly one of `step` or `points`"),
            )),
        }
    }

    fn claim(
        &self,
        config: &Config,
        (t, span): (&DeTable<'_>, Span),
    ) -> Result<Claim, ConfigError> {
        let model = &*config.model;
        let fields = self.known_fields(t, "[[claim]]", CLAIM_KEYS)?;
        let field = |k: &str| {
            fields
                .iter()
                .find(|(key, _)| key.get_ref() == k)
                .map(|(_, v)| *v)
        };

        let entity = match field("entity") {
            Some(v) => {
                if model.entity_columns().is_empty() {
                    return Err(self.err(
                        &v.span(),
                        format!("{} has no entity rows; drop `entity`", model.name()),
                    ));
                }
                if !config.entities {
                    return Err(self.err(
                        &v.span(),
                        "this config sets `entities = false`: no entity rows to claim on",
                    ));
                }
                Some((self.string(v, "entity")?, v.span()))
            }
            None => None,
        };
        let Some(metric_value) = field("metric") else {
            return Err(self.err(&span, "a [[claim]] needs `metric`"));
        };
        let metric = self.string(metric_value, "metric")?;
        // A text column (an outcome, a status) is claimed by exact text, not a number.
        let text_target = text_column(config, &metric, entity.is_some());
        let target = match text_target {
            Some(var) => var,
            None => resolve(config, &metric, entity.is_some(), false)
                .map_err(|m| self.err(&metric_value.span(), m))?,
        };

        let filter = match field("where") {
            Some(w) => self.filter(config, w)?,
            None => Vec::new(),
        };
        let filter_text: Vec<String> = filter
            .iter()
            .map(|(i, v)| format!("{} = {v}", model.params()[*i].key))
            .collect();

        let Some(expect_value) = field("expect") else {
            return Err(self.err(
                &span,
                "a [[claim]] needs `expect` (a number or an expression)",
            ));
        };
        let expect = match expect_value.get_ref() {
            DeValue::String(text) if text_target.is_some() => Expect::Text(text.to_string()),
            _ if text_target.is_some() => {
                return Err(self.err(
                    &expect_value.span(),
                    format!("`{metric}` holds text: `expect` is the exact text, in quotes"),
                ));
            }
            DeValue::String(text) => {
                let parsed =
                    expr::parse(text, &|name| resolve(config, name, entity.is_some(), true));
                match parsed {
                    Ok(e) => Expect::Expr(text.to_string(), e),
                    Err(e) => {
                        // Point at the character inside the string (after the opening quote).
                        let at = expect_value.span().start
                            + 1
                            + text
                                .char_indices()
                                .nth(e.offset)
                                .map_or(text.len(), |(b, _)| b);
                        return Err(self.err(&(at..at), format!("in `expect`: {}", e.message)));
                    }
                }
            }
            _ => Expect::Number(self.number(expect_value, "expect")?),
        };
        let test = match (field("tolerance"), field("band")) {
            (Some(_), Some(b)) => {
                return Err(self.err(&b.span(), "give `tolerance` or `band`, not both"));
            }
            (Some(t), None) => {
                let tol = self.number(t, "tolerance")?;
                if tol < 0.0 {
                    return Err(self.err(&t.span(), "`tolerance` must be ≥ 0"));
                }
                Test::Tolerance(tol)
            }
            (None, Some(b)) => {
                let bounds = match b.get_ref() {
                    DeValue::Array(items) if items.len() == 2 => (
                        self.number(&items[0], "band")?,
                        self.number(&items[1], "band")?,
                    ),
                    _ => return Err(self.err(&b.span(), "`band` must be [lo, hi], two numbers")),
                };
                if bounds.0 > bounds.1 {
                    return Err(self.err(&b.span(), "`band` must have lo ≤ hi"));
                }
                Test::Band(bounds.0, bounds.1)
            }
            (None, None) => Test::Tolerance(1e-9),
        };
        let name = match field("name") {
            Some(v) => self.string(v, "name")?,
            None => {
                let mut n = metric.clone();
                if let Some((e, _)) = &entity {
                    n = format!("{e}.{n}");
                }
                if !filter_text.is_empty() {
                    n = format!("{n} where {}", filter_text.join(", "));
                }
                n
            }
        };
        Ok(Claim {
            name,
            filter,
            metric,
            target,
            entity,
            expect,
            test,
        })
    }

    /// A `where` table: parameter values a row must match; it must match some point.
    fn filter(
        &self,
        config: &Config,
        w: &Spanned<DeValue<'_>>,
    ) -> Result<Vec<(usize, Value)>, ConfigError> {
        let specs = config.model.params();
        let mut filter = Vec::new();
        for (key, value) in self.table(w, "where")?.iter() {
            let Some(i) = specs.iter().position(|s| s.key == key.get_ref().as_ref()) else {
                let valid: Vec<&str> = specs.iter().map(|s| s.key).collect();
                return Err(self.unknown_key(key, "`where` (it filters on parameters)", &valid));
            };
            filter.push((i, self.value(value)?));
        }
        if !(0..config.points).any(|p| config.matches(p, &filter)) {
            return Err(self.err(&w.span(), "`where` matches no point of the sweep"));
        }
        Ok(filter)
    }

    fn chart(
        &self,
        config: &Config,
        (t, span): (&DeTable<'_>, Span),
    ) -> Result<ChartSpec, ConfigError> {
        let fields = self.known_fields(t, "[[chart]]", CHART_KEYS)?;
        let field = |k: &str| {
            fields
                .iter()
                .find(|(key, _)| key.get_ref() == k)
                .map(|(_, v)| *v)
        };
        let Some(name_value) = field("name") else {
            return Err(self.err(&span, "a [[chart]] needs `name` (its file name)"));
        };
        let name = self.string(name_value, "name")?;
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        {
            return Err(self.err(
                &name_value.span(),
                "a chart `name` is a file name: letters, digits, `-` and `_`",
            ));
        }
        let kind = match field("kind") {
            Some(v) => {
                let k = self.string(v, "kind")?;
                let Some(kind) = ChartKind::parse(&k) else {
                    let valid: Vec<&str> = ChartKind::ALL.iter().map(|k| k.name()).collect();
                    return Err(self.err(
                        &v.span(),
                        format!("unknown chart kind `{k}`; valid: {}", valid.join(", ")),
                    ));
                };
                if kind == ChartKind::Timeline && config.model.timeline().is_none() {
                    return Err(self.err(
                        &v.span(),
                        format!(
                            "{} records no timeline; valid kinds for it: line, bar, cdf",
                            config.model.name()
                        ),
                    ));
                }
                kind
            }
            None => ChartKind::Line,
        };
        let model = &*config.model;
        let numeric_column = |name: &str, allow_params: bool| -> Result<(), String> {
            resolve(config, name, false, allow_params).map(|_| ())
        };
        let x = match field("x") {
            Some(v) => {
                let x = self.string(v, "x")?;
                let is_param = model.params().iter().any(|p| p.key == x);
                if x == ENTITY_X {
                    if model.entity_columns().is_empty() {
                        return Err(self.err(
                            &v.span(),
                            format!("{} has no entity rows to chart", model.name()),
                        ));
                    }
                } else if !is_param {
                    // Any parameter may be x (strings become categories); else a numeric metric.
                    numeric_column(&x, false).map_err(|m| {
                        self.err(
                            &v.span(),
                            format!("{m}; or a parameter, or \"entity\" for one bar per entity"),
                        )
                    })?;
                }
                x
            }
            None if matches!(kind, ChartKind::Cdf | ChartKind::Timeline) => String::new(),
            None => {
                return Err(self.err(
                    &span,
                    "a [[chart]] needs `x` (a parameter, a metric or \"entity\")",
                ));
            }
        };
        let on_entities = x == ENTITY_X;
        let y_value = match field("y") {
            Some(v) => v,
            None if kind == ChartKind::Timeline => {
                let filter = match field("where") {
                    Some(w) => self.filter(config, w)?,
                    None => Vec::new(),
                };
                return Ok(ChartSpec {
                    name,
                    x,
                    y: Vec::new(),
                    kind,
                    mark_x: None,
                    mark_y: None,
                    y_expr: Vec::new(),
                    log_x: false,
                    filter,
                });
            }
            None => {
                return Err(self.err(
                    &span,
                    "a [[chart]] needs `y` (a metric or a list of metrics)",
                ));
            }
        };
        let y_items: Vec<&Spanned<DeValue<'_>>> = match y_value.get_ref() {
            DeValue::Array(items) if !items.is_empty() => items.iter().collect(),
            DeValue::Array(_) => {
                return Err(self.err(&y_value.span(), "`y` is empty; name at least one metric"));
            }
            _ => vec![y_value],
        };
        let mut y = Vec::new();
        for item in y_items {
            let metric = self.string(item, "y")?;
            if on_entities {
                // One bar per entity: y comes from the entity rows.
                match resolve(config, &metric, true, false) {
                    Ok(Var::Entity(_)) => {}
                    _ => {
                        let valid: Vec<&str> = model
                            .entity_columns()
                            .iter()
                            .filter(|c| c.numeric())
                            .map(|c| c.name)
                            .collect();
                        return Err(self.err(
                            &item.span(),
                            format!(
                                "with x = \"entity\", y is an entity column; valid: {}",
                                valid.join(", ")
                            ),
                        ));
                    }
                }
            } else {
                numeric_column(&metric, false).map_err(|m| self.err(&item.span(), m))?;
            }
            y.push(metric);
        }
        let mark_x = match field("mark_x") {
            Some(v) => {
                let m = self.string(v, "mark_x")?;
                numeric_column(&m, false).map_err(|e| self.err(&v.span(), e))?;
                Some(m)
            }
            None => None,
        };
        let mark_y = match field("mark_y") {
            Some(v) => Some(self.number(v, "mark_y")?),
            None => None,
        };
        let mut y_expr = Vec::new();
        if let Some(table) = field("y_expr") {
            for (label, text_value) in self.table(table, "y_expr")?.iter() {
                let DeValue::String(text) = text_value.get_ref() else {
                    return Err(self.err(
                        &text_value.span(),
                        "a `y_expr` entry is label = \"expression\"",
                    ));
                };
                match expr::parse(text, &|name| resolve(config, name, false, true)) {
                    Ok(e) => y_expr.push((label.get_ref().to_string(), e)),
                    Err(e) => {
                        let at = text_value.span().start
                            + 1
                            + text
                                .char_indices()
                                .nth(e.offset)
                                .map_or(text.len(), |(b, _)| b);
                        return Err(self.err(&(at..at), format!("in `y_expr`: {}", e.message)));
                    }
                }
            }
        }
        let log_x = match field("log_x") {
            Some(v) => match v.get_ref() {
                DeValue::Boolean(b) => *b,
                _ => return Err(self.err(&v.span(), "`log_x` must be true or false")),
            },
            None => false,
        };
        let filter = match field("where") {
            Some(w) => self.filter(config, w)?,
            None => Vec::new(),
        };
        Ok(ChartSpec {
            name,
            x,
            y,
            kind,
            mark_x,
            mark_y,
            y_expr,
            log_x,
            filter,
        })
    }
}

/// Whether a point's parameter values match a `where` filter.
pub fn matches_filter(values: &[Value], filter: &[(usize, Value)]) -> bool {
    filter.iter().all(|(i, v)| values[*i].matches(v))
}

/// A text column by this name (entity columns first for entity claims), as a variable.
fn text_column(config: &Config, name: &str, entity: bool) -> Option<Var> {
    let model = &*config.model;
    if entity {
        if let Some(i) = model.entity_columns().iter().position(|c| c.name == name) {
            return (!model.entity_columns()[i].numeric()).then_some(Var::Entity(i));
        }
    }
    let i = model.metrics().iter().position(|c| c.name == name)?;
    (!model.metrics()[i].numeric()).then_some(Var::Metric(i))
}

/// Resolves a name to a numeric column: an entity column (entity claims, winning on a clash),
/// a metric, or (when `params` is true) a numeric parameter.
fn resolve(config: &Config, name: &str, entity: bool, params: bool) -> Result<Var, String> {
    let model = &*config.model;
    if entity {
        if let Some(i) = model.entity_columns().iter().position(|c| c.name == name) {
            return if model.entity_columns()[i].numeric() {
                Ok(Var::Entity(i))
            } else {
                Err(format!("`{name}` is not numeric"))
            };
        }
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
            return match model.params()[i].kind {
                Kind::Count | Kind::Float | Kind::NumberOrList | Kind::CountOrList => {
                    Ok(Var::Param(i))
                }
                _ => Err(format!("the parameter `{name}` is not numeric")),
            };
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
                .filter(|p| {
                    matches!(
                        p.kind,
                        Kind::Count | Kind::Float | Kind::NumberOrList | Kind::CountOrList
                    )
                })
                .map(|p| p.key),
        );
    }
    Err(format!(
        "unknown {} `{name}` for {}; valid: {}",
        if params { "name" } else { "metric" },
        model.name(),
        valid.join(", ")
    ))
}

fn is_column(config: &Config, name: &str) -> bool {
    let m = &*config.model;
    FIXED_COLUMNS.contains(&name)
        || m.params().iter().any(|p| p.key == name)
        || m.metrics().iter().any(|c| c.name == name)
        || m.entity_columns().iter().any(|c| c.name == name)
}

fn de_type(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

fn shown(v: &Value) -> String {
    match v {
        Value::Int(_) | Value::Float(_) => v.to_string(),
        other => other.type_name().to_string(),
    }
}
