//! Phase one of loading a config: the [`Plan`] (model, parameters, sweep, limits, labels).

use std::path::Path;
use std::sync::Arc;

use coordsim_model::{Kind, ModelDef, PreparedRun, Registry, Value};
use sim_core::{Limits, Stats};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::read::{Loader, de_type};
use super::{Var, matches_filter};
use crate::expr::Expr;
use crate::locale::{LOCALES, Locale, Text};
use crate::source::{ConfigError, Source, Span};
use crate::sweep::{self, MAX_POINTS, Range};

/// The memory a config's runs may take by default: 4 GiB.
pub const DEFAULT_MAX_MEMORY_MB: u64 = 4096;

/// Most bytes of a trace file.
pub const MAX_TRACE_BYTES: u64 = 256 * 1024 * 1024;

/// Most runs (points × replications) one config may ask for.
pub const MAX_RUNS: u64 = 1_000_000;

/// Columns every output table has besides parameters and metrics (labels may name them).
pub const FIXED_COLUMNS: &[&str] = &["point", "replication", "seed", "entity"];

/// What runs: the model, every point's parameters, replications and limits, and the labels.
#[derive(Debug)]
pub struct Plan {
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
    pub(super) param_spans: Vec<Option<Span>>,
    /// Swept parameters in declared order.
    pub axes: Vec<Axis>,
    /// `[labels]`: texts for columns, category values, timeline kinds and built-in words.
    pub labels: Vec<(String, String)>,
    /// Labels of values only a run can show (an entity's name, a text cell), with where they
    /// are written: each must match something once the config has run.
    pub value_labels: Vec<(String, Span)>,
    /// How numbers and built-in words are written for readers (`locale`).
    pub locale: Locale,
    /// Number of sweep points.
    pub points: usize,
    /// Whether entity rows are kept (`entities = false` drops them: big random sweeps).
    pub entities: bool,
    /// How runs keep their samples (`stats`: exact, or an HDR histogram).
    pub stats: Stats,
    /// How percentiles are read (`percentile`: nearest rank, or linear as numpy does).
    pub percentile: sim_core::Percentile,
    /// Per-run limits on events and virtual time (`[limits]`, default sim-core's).
    pub limits: Limits,
    /// The memory the runs may take at once, and their kept rows in all (`[limits]
    /// max_memory_mb`), in bytes.
    pub max_memory_bytes: u64,
    /// The largest memory estimate of one run of any point (how many runs fit at once).
    pub heaviest_run_bytes: u64,
    /// The estimated bytes of the entity rows of every run, which stay until the outputs
    /// are written.
    pub entity_bytes: u64,
    /// Where `model` is written: errors with no better place point here.
    pub(super) model_span: Span,
    /// `[vars]`: free variables (name, description), swept like parameters and usable in
    /// derived parameters and expressions. Their values follow the model's parameters in
    /// `base` and in every point's values.
    pub vars: Vec<(String, String)>,
    /// Parameters given as `{ expr = "…" }`: (parameter index, expression over the values).
    pub derived: Vec<(usize, Expr<Var>)>,
}

/// One swept parameter.
#[derive(Debug)]
pub struct Axis {
    /// Index of the parameter in the model's order (a var: after the model's parameters).
    pub param: usize,
    /// Its key.
    pub key: String,
    /// Its values in sweep order.
    pub values: Vec<Value>,
    /// Where each value was written (a range's values all point at the range).
    pub spans: Vec<Span>,
}

impl Plan {
    /// Number of runs: points × replications.
    pub fn runs(&self) -> u64 {
        self.points as u64 * self.replications
    }

    /// Where parameter `i` is set in `[params]`, or (a default) where `model` is.
    pub fn written_at(&self, i: usize) -> Span {
        self.param_spans
            .get(i)
            .cloned()
            .flatten()
            .unwrap_or_else(|| self.model_span.clone())
    }

    /// The parameters `[params]` sets and `[sweep]` does not, in the order written (model
    /// indices).
    pub fn written_params(&self) -> Vec<usize> {
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
        let mut values = self.base.clone();
        for (axis, coord) in self.axes.iter().zip(self.coordinates(index)) {
            values[axis.param] = axis.values[coord].clone();
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
    pub fn param_span(&self, index: usize) -> Option<&Span> {
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
    pub fn matches(&self, index: usize, filter: &[(usize, Value)]) -> bool {
        filter.is_empty() || matches_filter(&self.point_values(index), filter)
    }

    /// The value index on each axis of point `index`.
    pub fn coordinates(&self, index: usize) -> Vec<usize> {
        let lengths: Vec<usize> = self.axes.iter().map(|a| a.values.len()).collect();
        sweep::coordinates(index, &lengths)
    }

    /// The label of a column or a category value (the name itself when none is set).
    pub fn label<'a>(&'a self, column: &'a str) -> &'a str {
        self.labels
            .iter()
            .find(|(k, _)| k == column)
            .map_or(column, |(_, v)| v.as_str())
    }

    /// Whether `[labels]` gives `key` a text.
    pub fn has_label(&self, key: &str) -> bool {
        self.labels.iter().any(|(k, _)| k == key)
    }

    /// A built-in word in the config's locale, or its `[labels]` override.
    pub fn text(&self, text: Text) -> &str {
        self.labels
            .iter()
            .find(|(k, _)| k == text.key())
            .map_or(text.in_locale(self.locale), |(_, v)| v.as_str())
    }

    /// The legend text of a timeline kind: its `[labels]` entry, else the model's own words
    /// in the config's locale.
    pub fn kind_label<'a>(&'a self, name: &str, en: &'a str, tr: &'a str) -> &'a str {
        match self.labels.iter().find(|(k, _)| k == name) {
            Some((_, v)) => v,
            None if self.locale == Locale::Tr => tr,
            None => en,
        }
    }

    /// A parameter's value for readers: a labelled text value by its label, a number in the
    /// locale (`8`, `0,5`), other values as the config writes them.
    pub fn value_text(&self, value: &Value) -> String {
        match value {
            Value::Str(t) => self.label(t).to_string(),
            Value::Bool(b) => self.label(if *b { "true" } else { "false" }).to_string(),
            Value::Int(_) | Value::Float(_) => {
                self.locale
                    .number(&crate::format::cell_reading(&crate::format::value_cell(
                        value,
                    )))
            }
            other => crate::format::value_cell(other).to_string(),
        }
    }

    /// "key label = value" for a swept parameter's value in a title or legend: a text value
    /// reads as its label alone when it has one (`korumasız`), else `key label: value`.
    pub fn setting_text(&self, key: &str, value: &Value) -> String {
        match value {
            Value::Str(t) if self.has_label(t) => self.label(t).to_string(),
            Value::Bool(_) => format!("{}: {}", self.label(key), self.value_text(value)),
            Value::Str(_) => format!("{}: {}", self.label(key), self.value_text(value)),
            _ => format!("{} = {}", self.label(key), self.value_text(value)),
        }
    }

    /// A run whose estimate passes the limits is refused before anything runs, at the
    /// parameter that drives it.
    fn check_cost(&self, index: usize, cost: &coordsim_model::Cost) -> Result<(), ConfigError> {
        let key = if cost.driven_by.is_empty() {
            self.model.params().first().map_or("", |p| p.key)
        } else {
            cost.driven_by
        };
        if cost.events > self.limits.max_events {
            return Err(self.param_error(
                key,
                index,
                &format!(
                    "a run would take about {} events, more than max_events = {} in [limits]; change it, or raise max_events",
                    cost.events, self.limits.max_events
                ),
            ));
        }
        if cost.memory_bytes > self.max_memory_bytes {
            return Err(self.param_error(
                key,
                index,
                &format!(
                    "a run would hold about {} MiB, more than max_memory_mb = {} in [limits]; change it, or raise max_memory_mb",
                    cost.memory_bytes >> 20,
                    self.max_memory_bytes >> 20
                ),
            ));
        }
        Ok(())
    }

    /// A point's swept values as `a = 8, b = 250` (empty without a sweep).
    fn point_text(&self, values: &[Value]) -> String {
        let at: Vec<String> = self
            .axes
            .iter()
            .map(|a| format!("{} = {}", a.key, values[a.param]))
            .collect();
        at.join(", ")
    }

    /// Where a composed model's field (`actor[0].steps[2].delay_ms`) is written: the file is
    /// parsed again, which only an error pays for.
    fn composed_span(&self, key: &str) -> Option<Span> {
        use coordsim_model::PathPart;
        let mut path = Vec::new();
        for segment in key.split('.') {
            let (name, mut rest) = match segment.find('[') {
                Some(i) => (&segment[..i], &segment[i..]),
                None => (segment, ""),
            };
            path.push(PathPart::Key(name.to_string()));
            while let Some(tail) = rest.strip_prefix('[') {
                let end = tail.find(']')?;
                path.push(PathPart::Index(tail[..end].parse().ok()?));
                rest = &tail[end + 1..];
            }
        }
        let doc = DeTable::parse(&self.source.text).ok()?;
        path_span(doc.get_ref(), &path)
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
        if let Some(i) = param.filter(|i| self.derived.iter().any(|(d, _)| d == i)) {
            // A derived value: say which point gave it.
            let values = self.point_values(index);
            if let Some(span) = self.param_spans[i].clone() {
                return self.source.error(
                    &span,
                    format!(
                        "`{key}` = {} at {}: {message}",
                        values[i],
                        self.point_text(&values)
                    ),
                );
            }
        }
        match param.map(|i| self.param_spans[i].clone()) {
            Some(Some(span)) => self.source.error(&span, format!("`{key}`: {message}")),
            Some(None) => self.error_at_model(format!("`{key}` (default): {message}")),
            // Not a parameter: a composed model's field (`actor[0].count`), at a point.
            None => {
                let at = match self.point_text(&self.point_values(index)) {
                    text if text.is_empty() => text,
                    text => format!(" at {text}"),
                };
                match self.composed_span(key) {
                    Some(span) => self.source.error(&span, format!("`{key}`{at}: {message}")),
                    None => self.error_at_model(format!("`{key}`{at}: {message}")),
                }
            }
        }
    }
}

impl Loader<'_> {
    /// A composed model (`model = "scenario"`): its sections and the config's own parameters
    /// go to the composer, each parameter with the values this plan reads for it (a sweep's
    /// range expanded here, as for any model), so that no composer reads `[params]` or
    /// `[sweep]` again; its errors point at the value they name.
    fn compose(
        &self,
        composer: &dyn coordsim_model::Composer,
        doc: &DeTable<'_>,
        model_span: &Span,
    ) -> Result<Arc<dyn ModelDef>, ConfigError> {
        use coordsim_model::ConfigParam;
        let mut input = coordsim_model::ComposeInput::default();
        for (key, value) in doc.iter() {
            let name = key.get_ref().as_ref();
            if composer.sections().contains(&name) {
                input.sections.push((name.to_string(), self.value(value)?));
            }
        }
        let table = |name: &str| doc.iter().find(|(k, _)| k.get_ref() == name);
        if let Some((_, t)) = table("params") {
            for (key, value) in self.table(t, "params")?.iter() {
                let read = self.value(value)?;
                // `{ expr = "…" }` is derived at each point: a number, no value yet.
                let derived =
                    matches!(&read, Value::Table(t) if t.iter().any(|(k, _)| k == "expr"));
                let values = if derived { Vec::new() } else { vec![read] };
                input
                    .params
                    .push(ConfigParam::new(key.get_ref().as_ref(), values));
            }
        }
        if let Some((_, t)) = table("sweep") {
            for (key, value) in self.table(t, "sweep")?.iter() {
                // A range counts (whole values) when its ends and step are whole numbers ≥ 0.
                let read = self.value(value)?;
                let whole = |k: &str| match &read {
                    Value::Table(t) => t
                        .iter()
                        .any(|(name, v)| name == k && matches!(v, Value::Int(i) if *i >= 0)),
                    _ => false,
                };
                let counts = whole("from") && whole("to") && whole("step");
                let kind = if counts { Kind::Count } else { Kind::Float };
                // A sweep this plan refuses is refused where it reads the sweep, after the
                // composed model's own errors: the composer sees no values for it.
                let values = self
                    .axis(0, key.get_ref(), kind, value)
                    .map_or_else(|_| Vec::new(), |axis| axis.values);
                input
                    .params
                    .push(ConfigParam::new(key.get_ref().as_ref(), values));
            }
        }
        let def = composer.compose(&input).map_err(|e| {
            // A parameter's error names `params.…`; a swept one is written in [sweep].
            let mut sweep = e.path.clone();
            if let Some(first) = sweep.first_mut() {
                *first = coordsim_model::PathPart::Key("sweep".into());
            }
            let span = path_span(doc, &e.path)
                .or_else(|| {
                    (e.path.first() == Some(&coordsim_model::PathPart::Key("params".into())))
                        .then(|| path_span(doc, &sweep))
                        .flatten()
                })
                .unwrap_or_else(|| model_span.clone());
            self.err(&span, format!("{}: {}", e.path_text(), e.message))
        })?;
        coordsim_model::Registry::check_composed(def.as_ref())
            .map_err(|e| self.err(model_span, e.message))?;
        Ok(def)
    }

    /// Phase one: the plan.
    pub(super) fn plan(
        &self,
        doc: &DeTable<'_>,
        source: &Source,
        registry: &Registry,
    ) -> Result<Plan, ConfigError> {
        let stem = Path::new(&source.name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "config".into());
        let get = |k: &str| doc.iter().find(|(key, _)| key.get_ref() == k);

        let names = registry.names();
        let Some((_, model_value)) = get("model") else {
            let example = names.first().copied().unwrap_or("…");
            return Err(self.err(&(0..0), format!("missing `model`; say which model to run, e.g. model = \"{example}\" (`coordsim models` lists them)")));
        };
        let model_name = self.string(model_value, "model")?;
        let composer = registry.composer(&model_name);
        for c in registry.composers() {
            if composer.is_some_and(|m| Arc::ptr_eq(m, c)) {
                continue;
            }
            if let Some((key, _)) = doc
                .iter()
                .find(|(key, _)| c.sections().contains(&key.get_ref().as_ref()))
            {
                return Err(self.err(
                    &key.span(),
                    format!(
                        "`{}` describes a {} (see {}); it needs model = \"{}\"",
                        key.get_ref(),
                        c.name(),
                        c.guide(),
                        c.name()
                    ),
                ));
            }
        }
        let model = match (registry.find(&model_name), composer) {
            (Some(model), _) => Arc::clone(model),
            (None, Some(composer)) => self.compose(composer.as_ref(), doc, &model_value.span())?,
            (None, None) => {
                return Err(self.err(
                    &model_value.span(),
                    format!("unknown model `{model_name}`; models: {}", names.join(", ")),
                ));
            }
        };
        let title = match get("title") {
            Some((_, v)) => {
                let t = self.string(v, "title")?;
                if t.chars().count() > MAX_LABEL_CHARS {
                    return Err(self.err(
                        &v.span(),
                        format!("`title` has at most {MAX_LABEL_CHARS} characters"),
                    ));
                }
                t
            }
            None => stem.clone(),
        };
        let locale = match get("locale") {
            Some((_, v)) => {
                let name = self.string(v, "locale")?;
                Locale::parse(&name).ok_or_else(|| {
                    self.err(
                        &v.span(),
                        format!("unknown locale `{name}`; valid: {}", LOCALES.join(", ")),
                    )
                })?
            }
            None => Locale::En,
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

        let (limits, max_memory_mb) = match get("limits") {
            Some((_, v)) => self.limits(self.table(v, "limits")?)?,
            None => (Limits::default(), DEFAULT_MAX_MEMORY_MB),
        };
        let entities = match get("entities") {
            Some((_, v)) => match v.get_ref() {
                DeValue::Boolean(b) => *b,
                _ => return Err(self.err(&v.span(), "`entities` must be true or false")),
            },
            None => true,
        };
        let stats = match get("stats") {
            Some((_, v)) => match self.string(v, "stats")?.as_str() {
                "exact" => Stats::Exact,
                "hdr" => Stats::Hdr,
                other => {
                    return Err(self.err(
                        &v.span(),
                        format!("unknown `stats` = \"{other}\"; valid: \"exact\" (every sample, exact percentiles), \"hdr\" (a histogram: flat memory, percentiles within 0.1%)"),
                    ));
                }
            },
            None => Stats::Exact,
        };
        let percentile = match get("percentile") {
            Some((_, v)) => match self.string(v, "percentile")?.as_str() {
                "nearest_rank" => sim_core::Percentile::NearestRank,
                "linear" => sim_core::Percentile::Linear,
                other => {
                    return Err(self.err(
                        &v.span(),
                        format!("unknown `percentile` = \"{other}\"; valid: \"nearest_rank\" (the lessons' rule, the default), \"linear\" (numpy's and pandas' default)"),
                    ));
                }
            },
            None => sim_core::Percentile::NearestRank,
        };
        let specs = model.params();
        // `[vars]`: free variables, named like parameters, each with its description.
        let mut vars: Vec<(String, String, Span)> = Vec::new();
        if let Some((_, table)) = get("vars") {
            for (key, value) in self.table(table, "vars")?.iter() {
                let name = key.get_ref().to_string();
                let taken = specs.iter().any(|s| s.key == name)
                    || model.metrics().iter().any(|c| c.name == name)
                    || model.entity_columns().iter().any(|c| c.name == name)
                    || coordsim_model::RESERVED_COLUMNS.contains(&name.as_str());
                let valid_name = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if taken || !valid_name {
                    return Err(self.err(
                        &key.span(),
                        format!("a var needs a name of its own (letters, digits, `_`), not a parameter, column or `{name}`"),
                    ));
                }
                let description = self.string(value, "a var's description")?;
                vars.push((name, description, key.span()));
            }
        }
        let n = specs.len();
        let mut names: Vec<&str> = specs.iter().map(|s| s.key).collect();
        names.extend(vars.iter().map(|(v, _, _)| v.as_str()));
        let kind_of = |i: usize| if i < n { specs[i].kind } else { Kind::Float };
        let mut base: Vec<Value> = model.defaults();
        base.extend(vars.iter().map(|_| Value::Float(f64::NAN)));
        let mut param_spans = vec![None; names.len()];
        let mut derived_text: Vec<(usize, String, Span)> = Vec::new();
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
                param_spans[i] = Some(value.span());
                // `{ expr = "…" }`: derived from the vars and other parameters at each point.
                if let DeValue::Table(t) = value.get_ref()
                    && let Some((_, e)) = t.iter().find(|(k, _)| k.get_ref() == "expr")
                {
                    if t.len() != 1 {
                        return Err(self.err(
                            &value.span(),
                            "a derived parameter is `{ expr = \"…\" }` alone",
                        ));
                    }
                    let DeValue::String(text) = e.get_ref() else {
                        return Err(self.err(&e.span(), "`expr` is an expression, in quotes"));
                    };
                    derived_text.push((i, text.to_string(), e.span()));
                    continue;
                }
                base[i] = match value.get_ref() {
                    // A list of numbers may come from a CSV column: { file, column }.
                    DeValue::Table(t) if specs[i].kind == Kind::NumberList => {
                        self.trace(t, &value.span(), source)?
                    }
                    _ => self.value(value)?,
                };
            }
        }

        let mut axes = Vec::new();
        if let Some((_, sweep_table)) = get("sweep") {
            for (key, value) in self.table(sweep_table, "sweep")?.iter() {
                let Some(i) = names.iter().position(|s| *s == key.get_ref().as_ref()) else {
                    return Err(self.unknown_key(
                        key,
                        &format!(
                            "[sweep] of {} (its parameters and the config's [vars])",
                            model.name()
                        ),
                        &names,
                    ));
                };
                if param_spans[i].is_some() {
                    return Err(self.err(
                        &key.span(),
                        format!("`{}` is in both [params] and [sweep]; keep one", names[i]),
                    ));
                }
                axes.push(self.axis(i, names[i], kind_of(i), value)?);
            }
        }
        // A var has values only where it is swept.
        for (j, (name, _, span)) in vars.iter().enumerate() {
            if !axes.iter().any(|a| a.param == n + j) {
                return Err(self.err(
                    span,
                    format!("the var `{name}` is not swept: give it values in [sweep]"),
                ));
            }
        }
        // Derived parameters read numeric parameters and vars.
        let numeric = |i: usize| {
            matches!(
                kind_of(i),
                Kind::Count | Kind::Float | Kind::NumberOrList | Kind::CountOrList
            )
        };
        let mut derived = Vec::new();
        for (param, text, span) in derived_text {
            let resolve = |name: &str| match names.iter().position(|k| *k == name) {
                Some(i) if i == param => Err(format!("`{name}` cannot be derived from itself")),
                Some(i) if numeric(i) => Ok(Var::Param(i)),
                Some(_) => Err(format!("`{name}` is not numeric")),
                None => {
                    let valid: Vec<&str> = (0..names.len())
                        .filter(|&i| numeric(i))
                        .map(|i| names[i])
                        .collect();
                    Err(format!(
                        "unknown name `{name}`; valid: {}",
                        valid.join(", ")
                    ))
                }
            };
            match crate::expr::parse(&text, &resolve) {
                Ok(e) => derived.push((param, e)),
                Err(e) => {
                    let at = span.start
                        + 1
                        + text
                            .char_indices()
                            .nth(e.offset)
                            .map_or(text.len(), |(b, _)| b);
                    return Err(self.err(&(at..at), format!("in `expr`: {}", e.message)));
                }
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

        let mut plan = Plan {
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
            labels: Vec::new(),
            value_labels: Vec::new(),
            locale,
            points: points as usize,
            entities,
            stats,
            percentile,
            limits,
            max_memory_bytes: max_memory_mb.saturating_mul(1 << 20),
            heaviest_run_bytes: 0,
            entity_bytes: 0,
            model_span: model_value.span(),
            vars: vars.into_iter().map(|(n, d, _)| (n, d)).collect(),
            derived,
        };

        // `[[metric]]`: the model wrapped with the metrics the config derives.
        if let Some((_, tables)) = get("metric") {
            plan.model = self.derived_metrics(&plan, tables)?;
        }
        let model = Arc::clone(&plan.model);
        // Every point's parameters are typed and validated once, before anything runs, and
        // the model's estimate of each run held to the limits.
        let mut kept: u64 = 0;
        // An entity row in memory: its cells (the lead columns and the model's, 32 bytes
        // each, plus the text a cell may hold) and the row's own vector and name.
        let row_bytes =
            (4 + plan.axes.len() as u64 + model.entity_columns().len() as u64) * 48 + 96;
        for index in 0..plan.points {
            match model.prepare(&plan.point_values(index)[..n]) {
                Ok(prepared) => {
                    let cost = prepared.cost();
                    plan.check_cost(index, &cost)?;
                    plan.heaviest_run_bytes = plan.heaviest_run_bytes.max(cost.memory_bytes);
                    kept = kept.saturating_add(
                        cost.entity_rows
                            .saturating_mul(row_bytes)
                            .saturating_mul(replications),
                    );
                    plan.plans.push(prepared);
                }
                Err(e) => return Err(plan.param_error(&e.key, index, &e.message)),
            }
        }
        plan.entity_bytes = if plan.entities { kept } else { 0 };
        if plan.entities && kept > plan.max_memory_bytes {
            return Err(plan.error_at_model(format!(
                "the entity rows of all {} runs would take about {} MiB, more than max_memory_mb = {} in [limits]; set `entities = false` (counters only), or raise max_memory_mb",
                plan.runs(),
                kept >> 20,
                plan.max_memory_bytes >> 20
            )));
        }

        if let Some((_, labels)) = get("labels") {
            for (key, value) in self.table(labels, "labels")?.iter() {
                let name = key.get_ref().to_string();
                let text = self.string(value, "a label")?;
                if text.chars().count() > MAX_LABEL_CHARS {
                    return Err(self.err(
                        &value.span(),
                        format!("a label has at most {MAX_LABEL_CHARS} characters"),
                    ));
                }
                if !is_column(&plan, &name) && !is_known_word(&plan, &name) {
                    // An entity's name or a text cell: known once the config has run.
                    plan.value_labels.push((name.clone(), key.span()));
                }
                plan.labels.push((name, text));
            }
        }
        Ok(plan)
    }

    /// `{ file = "x.csv", column = "ms" }`: a column of numbers from a CSV file (with a header
    /// row), its path relative to the config.
    fn trace(&self, t: &DeTable<'_>, span: &Span, source: &Source) -> Result<Value, ConfigError> {
        const KEYS: &[&str] = &["file", "column"];
        let fields = self.known_fields(t, "a trace (a CSV column)", KEYS)?;
        let field = |k: &str| {
            fields
                .iter()
                .find(|(key, _)| key.get_ref() == k)
                .map(|(_, v)| *v)
        };
        let (Some(file_v), Some(column_v)) = (field("file"), field("column")) else {
            return Err(self.err(span, "a trace is { file = \"x.csv\", column = \"name\" }"));
        };
        let file = self.string(file_v, "file")?;
        let column = self.string(column_v, "column")?;
        let path = Path::new(&source.name)
            .parent()
            .unwrap_or(Path::new(""))
            .join(&file);
        let at = |m: String| self.err(&file_v.span(), m);
        let bytes = crate::input::read_capped(&path, MAX_TRACE_BYTES).map_err(at)?;
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        let headers = reader
            .headers()
            .map_err(|e| at(format!("{}: {e}", path.display())))?
            .clone();
        let Some(index) = headers.iter().position(|h| h == column) else {
            let names: Vec<&str> = headers.iter().collect();
            return Err(self.err(
                &column_v.span(),
                format!(
                    "{} has no column `{column}`; its columns: {}",
                    path.display(),
                    names.join(", ")
                ),
            ));
        };
        let mut values = Vec::new();
        for (row, record) in reader.records().enumerate() {
            let record = record.map_err(|e| at(format!("{}: {e}", path.display())))?;
            let cell = record.get(index).unwrap_or("").trim();
            let x: f64 = cell
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| {
                    at(format!(
                        "{}:{}: `{cell}` in column `{column}` is not a number",
                        path.display(),
                        row + 2
                    ))
                })?;
            values.push(Value::Float(x));
        }
        Ok(Value::List(values))
    }

    /// `[limits]`: `max_events` and `max_virtual_time_ms` for every run of the config, and
    /// `max_memory_mb` for all of them.
    pub(super) fn limits(&self, t: &DeTable<'_>) -> Result<(Limits, u64), ConfigError> {
        const KEYS: &[&str] = &["max_events", "max_virtual_time_ms", "max_memory_mb"];
        let mut limits = Limits::default();
        let mut memory = DEFAULT_MAX_MEMORY_MB;
        for (key, value) in self.known_fields(t, "[limits]", KEYS)? {
            match key.get_ref().as_ref() {
                "max_memory_mb" => {
                    memory = self.count(value, "max_memory_mb")?;
                    if memory == 0 {
                        return Err(self.err(&value.span(), "`max_memory_mb` must be at least 1"));
                    }
                }
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
        Ok((limits, memory))
    }

    fn axis(
        &self,
        param: usize,
        key: &str,
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
                let values: Vec<Value> = items.iter().map(|i| self.value(i)).collect::<Result<_, _>>()?;
                // One type per sweep: a string among numbers is a typo, not a value (it
                // would reach the model as NaN).
                let sort = |v: &Value| match v {
                    Value::Int(_) | Value::Float(_) => "a number",
                    Value::Str(_) => "a string",
                    Value::Bool(_) => "true or false",
                    Value::List(_) => "a list",
                    Value::Table(_) => "a table",
                };
                if let Some(at) = values.iter().position(|v| sort(v) != sort(&values[0])) {
                    return Err(self.err(
                        &items[at].span(),
                        format!(
                            "the sweep of `{key}` starts with {} but this value is {}: every value of a sweep has one type",
                            sort(&values[0]),
                            sort(&values[at])
                        ),
                    ));
                }
                Ok(Axis {
                    param,
                    key: key.to_string(),
                    values,
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
                Ok(Axis { param, key: key.to_string(), values, spans })
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
}

/// Most characters in one label (a title or label is text for a chart, not a document).
pub const MAX_LABEL_CHARS: usize = 200;

/// A `[labels]` key the config itself knows besides columns: a built-in word, a timeline
/// kind of the model, a choice of a parameter, or a text value the config gives a parameter.
fn is_known_word(plan: &Plan, name: &str) -> bool {
    let m = &*plan.model;
    fn texts(v: &Value, name: &str) -> bool {
        match v {
            Value::Str(t) => t == name,
            Value::List(items) => items.iter().any(|i| texts(i, name)),
            Value::Table(fields) => fields.iter().any(|(_, i)| texts(i, name)),
            _ => false,
        }
    }
    Text::from_key(name).is_some()
        || m.distributions().iter().any(|d| d.name == name)
        || (matches!(name, "true" | "false") && m.params().iter().any(|p| p.kind == Kind::Bool))
        || m.timeline()
            .is_some_and(|t| t.span(name).is_some() || t.mark(name).is_some())
        || m.params()
            .iter()
            .any(|p| matches!(p.kind, Kind::Choice(options) if options.contains(&name)))
        || plan.base.iter().any(|v| texts(v, name))
        || plan
            .axes
            .iter()
            .any(|a| a.values.iter().any(|v| texts(v, name)))
}

fn is_column(plan: &Plan, name: &str) -> bool {
    let m = &*plan.model;
    FIXED_COLUMNS.contains(&name)
        || m.params().iter().any(|p| p.key == name)
        || plan.vars.iter().any(|(v, _)| v == name)
        || m.metrics().iter().any(|c| c.name == name)
        || m.entity_columns().iter().any(|c| c.name == name)
}

/// Where the value at `path` is written: the deepest part of the path the file has.
fn path_span(doc: &DeTable<'_>, path: &[coordsim_model::PathPart]) -> Option<Span> {
    use coordsim_model::PathPart;
    let (PathPart::Key(first), rest) = path.split_first()? else {
        return None;
    };
    let (_, mut value) = doc.iter().find(|(k, _)| k.get_ref() == first)?;
    for part in rest {
        let next = match (part, value.get_ref()) {
            (PathPart::Index(i), DeValue::Array(items)) => items.get(*i),
            (PathPart::Key(k), DeValue::Table(t)) => {
                t.iter().find(|(key, _)| key.get_ref() == k).map(|(_, v)| v)
            }
            _ => None,
        };
        match next {
            Some(v) => value = v,
            None => break,
        }
    }
    Some(value.span())
}
