//! Reading a config's plan, section by section: the model, the run settings, `[params]`
//! and `[vars]`, `[sweep]`, the derived parameters, then every point typed, validated and
//! estimated once, and `[labels]`.

use std::path::Path;
use std::sync::Arc;

use coordsim_model::{Kind, ModelDef, Registry, Value};
use sim_core::{Limits, Stats};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::plan::{Axis, DEFAULT_MAX_MEMORY_MB, MAX_RUNS, MAX_TRACE_BYTES, Plan};
use super::read::Loader;
use super::var::Var;
use crate::locale::{LOCALES, Locale};
use crate::source::{ConfigError, Source, Span};
use crate::sweep::{self, MAX_POINTS};
use coordsim_expr::Expr;

/// The settings of a run besides its parameters.
struct Settings {
    title: String,
    /// `title` per locale, when it is given so.
    titles: Vec<(Locale, String)>,
    locale: Locale,
    seed: u64,
    replications: u64,
    limits: Limits,
    max_memory_mb: u64,
    entities: bool,
    stats: Stats,
    percentile: sim_core::Percentile,
}

/// `[params]` and `[vars]` read: every key a point gives a value for (the model's
/// parameters, then the vars), their values as set, where each is set, and the derived
/// parameters' expressions still as text.
struct Params {
    /// How many of `names` are the model's parameters (the rest are vars).
    n: usize,
    names: Vec<String>,
    kinds: Vec<Kind>,
    base: Vec<Value>,
    spans: Vec<Option<Span>>,
    vars: Vec<(String, String, Span)>,
    derived_text: Vec<(usize, String, Span)>,
}

impl Params {
    fn numeric(&self, i: usize) -> bool {
        matches!(
            self.kinds[i],
            Kind::Count | Kind::Float | Kind::NumberOrList | Kind::CountOrList
        )
    }
}

impl Loader<'_> {
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
        let (model, model_span) = self.model_of(doc, registry)?;
        let settings = self.settings(doc, &stem)?;
        let params = self.params(doc, source, model.as_ref())?;
        let axes = self.sweep(doc, model.as_ref(), &params)?;
        let derived = self.derived(&params)?;
        let points = self.points(doc, &axes, settings.replications)?;
        let mut plan = Plan {
            source: source.clone(),
            stem,
            model,
            plans: Vec::with_capacity(points),
            title: settings.title,
            titles: settings.titles,
            speaks: Vec::new(),
            seed: settings.seed,
            replications: settings.replications,
            base: params.base,
            param_spans: params.spans,
            axes,
            labels: Vec::new(),
            value_labels: Vec::new(),
            locale: settings.locale,
            points,
            entities: settings.entities,
            stats: settings.stats,
            percentile: settings.percentile,
            limits: settings.limits,
            max_memory_bytes: settings.max_memory_mb.saturating_mul(1 << 20),
            heaviest_run_bytes: 0,
            entity_bytes: 0,
            model_span,
            vars: params.vars.into_iter().map(|(n, d, _)| (n, d)).collect(),
            derived,
        };
        // `[[metric]]`: the model wrapped with the metrics the config derives.
        if let Some((_, tables)) = doc.iter().find(|(k, _)| k.get_ref() == "metric") {
            plan.model = self.derived_metrics(&plan, tables)?;
        }
        prepare_points(&mut plan, params.n)?;
        self.read_labels(doc, &mut plan)?;
        Ok(plan)
    }

    /// `model`: a registered model, or one a composer builds from the config's sections
    /// (which no other model may have); and where `model` is written.
    fn model_of(
        &self,
        doc: &DeTable<'_>,
        registry: &Registry,
    ) -> Result<(Arc<dyn ModelDef>, Span), ConfigError> {
        let names = registry.names();
        let Some((_, model_value)) = doc.iter().find(|(k, _)| k.get_ref() == "model") else {
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
                    format!(
                        "unknown model `{model_name}`{}; models: {}",
                        crate::suggest::did_you_mean(&model_name, &names),
                        names.join(", ")
                    ),
                ));
            }
        };
        Ok((model, model_value.span()))
    }

    /// `title`, `locale`, `seed`, `replications`, `[limits]`, `entities`, `stats` and
    /// `percentile`, each with its default.
    fn settings(&self, doc: &DeTable<'_>, stem: &str) -> Result<Settings, ConfigError> {
        let get = |k: &str| {
            doc.iter()
                .find(|(key, _)| key.get_ref() == k)
                .map(|(_, v)| v)
        };
        let own = match get("locale") {
            Some(v) => {
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
        // Every text from here on is read in this locale.
        let locale = self.reading.unwrap_or(own);
        self.locales.set((locale, own));
        let (title, titles) = match get("title") {
            Some(v) => self.texts(v, "title")?,
            None => (stem.to_string(), Vec::new()),
        };
        let seed = match get("seed") {
            Some(v) => self.count(v, "seed")?,
            None => 0,
        };
        let replications = match get("replications") {
            Some(v) => self.at_least(v, "replications", 1)?,
            None => 1,
        };
        let (limits, max_memory_mb) = match get("limits") {
            Some(v) => self.limits(self.table(v, "limits")?)?,
            None => (Limits::default(), DEFAULT_MAX_MEMORY_MB),
        };
        let entities = match get("entities") {
            Some(v) => match v.get_ref() {
                DeValue::Boolean(b) => *b,
                _ => return Err(self.err(&v.span(), "`entities` must be true or false")),
            },
            None => true,
        };
        Ok(Settings {
            title,
            titles,
            locale,
            seed,
            replications,
            limits,
            max_memory_mb,
            entities,
            stats: self.stats(get("stats"))?,
            percentile: self.percentile(get("percentile"))?,
        })
    }

    /// `stats`: how runs keep their samples.
    fn stats(&self, v: Option<&Spanned<DeValue<'_>>>) -> Result<Stats, ConfigError> {
        let Some(v) = v else {
            return Ok(Stats::Exact);
        };
        match self.string(v, "stats")?.as_str() {
            "exact" => Ok(Stats::Exact),
            "hdr" => Ok(Stats::Hdr),
            other => Err(self.err(
                &v.span(),
                format!("unknown `stats` = \"{other}\"; valid: \"exact\" (every sample, exact percentiles), \"hdr\" (a histogram: flat memory, percentiles within 0.1%)"),
            )),
        }
    }

    /// `percentile`: how percentiles are read.
    fn percentile(
        &self,
        v: Option<&Spanned<DeValue<'_>>>,
    ) -> Result<sim_core::Percentile, ConfigError> {
        let Some(v) = v else {
            return Ok(sim_core::Percentile::NearestRank);
        };
        match self.string(v, "percentile")?.as_str() {
            "nearest_rank" => Ok(sim_core::Percentile::NearestRank),
            "linear" => Ok(sim_core::Percentile::Linear),
            other => Err(self.err(
                &v.span(),
                format!("unknown `percentile` = \"{other}\"; valid: \"nearest_rank\" (the lessons' rule, the default), \"linear\" (numpy's and pandas' default)"),
            )),
        }
    }

    /// `[vars]` (free variables, named like parameters, each with its description) and
    /// `[params]` (values, traces from CSV files, derived `{ expr }`s).
    fn params(
        &self,
        doc: &DeTable<'_>,
        source: &Source,
        model: &dyn ModelDef,
    ) -> Result<Params, ConfigError> {
        let get = |k: &str| {
            doc.iter()
                .find(|(key, _)| key.get_ref() == k)
                .map(|(_, v)| v)
        };
        let specs = model.params();
        let mut vars: Vec<(String, String, Span)> = Vec::new();
        // A parameter's, a column's or a reserved name.
        let is_taken = |n: &str| {
            specs.iter().any(|s| s.key == n)
                || model.metrics().iter().any(|c| c.name == n)
                || model.entity_columns().iter().any(|c| c.name == n)
                || coordsim_model::RESERVED_COLUMNS.contains(&n)
        };
        if let Some(table) = get("vars") {
            let table = self.table(table, "vars")?;
            for (key, value) in table.iter() {
                let name = key.get_ref().to_string();
                let taken = is_taken(&name);
                let valid_name = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if taken || !valid_name {
                    // Only a name that is free: no parameter, column or other var has it.
                    let hint = coordsim_model::suggest::ascii_hint(&name, |s| {
                        !is_taken(s) && !table.iter().any(|(k, _)| k.get_ref() == s)
                    });
                    return Err(self.err(
                        &key.span(),
                        format!("a var needs a name of its own (ASCII letters (a–z, A–Z), digits and `_`, starting with a letter or `_`), not a parameter, column or `{name}`{hint}"),
                    ));
                }
                let description = self.string(value, "a var's description")?;
                vars.push((name, description, key.span()));
            }
        }
        let n = specs.len();
        let mut names: Vec<String> = specs.iter().map(|s| s.key.to_string()).collect();
        names.extend(vars.iter().map(|(v, _, _)| v.clone()));
        let mut kinds: Vec<Kind> = specs.iter().map(|s| s.kind).collect();
        kinds.extend(vars.iter().map(|_| Kind::Float));
        let mut base: Vec<Value> = model.defaults();
        base.extend(vars.iter().map(|_| Value::Float(f64::NAN)));
        let mut spans = vec![None; names.len()];
        let mut derived_text: Vec<(usize, String, Span)> = Vec::new();
        if let Some(params) = get("params") {
            let valid: Vec<&str> = specs.iter().map(|s| s.key).collect();
            for (key, value) in self.table(params, "params")?.iter() {
                let Some(i) = specs.iter().position(|s| s.key == key.get_ref().as_ref()) else {
                    return Err(self.unknown_key(
                        key,
                        &format!("[params] of {}", model.name()),
                        &valid,
                    ));
                };
                spans[i] = Some(value.span());
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
        Ok(Params {
            n,
            names,
            kinds,
            base,
            spans,
            vars,
            derived_text,
        })
    }

    /// `[sweep]`: one axis per key, in declared order; every var swept.
    fn sweep(
        &self,
        doc: &DeTable<'_>,
        model: &dyn ModelDef,
        params: &Params,
    ) -> Result<Vec<Axis>, ConfigError> {
        let names: Vec<&str> = params.names.iter().map(String::as_str).collect();
        let mut axes = Vec::new();
        if let Some((_, sweep_table)) = doc.iter().find(|(k, _)| k.get_ref() == "sweep") {
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
                if params.spans[i].is_some() {
                    return Err(self.err(
                        &key.span(),
                        format!("`{}` is in both [params] and [sweep]; keep one", names[i]),
                    ));
                }
                axes.push(self.axis(i, names[i], params.kinds[i], value)?);
            }
        }
        // A var has values only where it is swept.
        for (j, (name, _, span)) in params.vars.iter().enumerate() {
            if !axes.iter().any(|a| a.param == params.n + j) {
                return Err(self.err(
                    span,
                    format!("the var `{name}` is not swept: give it values in [sweep]"),
                ));
            }
        }
        Ok(axes)
    }

    /// The derived parameters' expressions, over numeric parameters and vars.
    fn derived(&self, params: &Params) -> Result<Vec<(usize, Expr<Var>)>, ConfigError> {
        let names = &params.names;
        let mut derived = Vec::new();
        for (param, text, span) in &params.derived_text {
            let resolve = |name: &str| match names.iter().position(|k| k == name) {
                Some(i) if i == *param => Err(format!("`{name}` cannot be derived from itself")),
                Some(i) if params.numeric(i) => Ok(Var::Param(i)),
                Some(_) => Err(format!("`{name}` is not numeric")),
                None => {
                    let valid: Vec<&str> = (0..names.len())
                        .filter(|&i| params.numeric(i))
                        .map(|i| names[i].as_str())
                        .collect();
                    Err(format!(
                        "unknown name `{name}`{}; valid: {}",
                        crate::suggest::did_you_mean(name, &valid),
                        valid.join(", ")
                    ))
                }
            };
            match coordsim_expr::parse(text, &resolve) {
                Ok(e) => derived.push((*param, e)),
                Err(e) => return Err(self.expr_error(span.start, text, &e, "expr")),
            }
        }
        Ok(derived)
    }

    /// The number of sweep points, within the limits of points and runs.
    fn points(
        &self,
        doc: &DeTable<'_>,
        axes: &[Axis],
        replications: u64,
    ) -> Result<usize, ConfigError> {
        let get = |k: &str| doc.iter().find(|(key, _)| key.get_ref() == k);
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
        Ok(points as usize)
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
                    "{} has no column `{column}`{}; its columns: {}",
                    path.display(),
                    crate::suggest::did_you_mean(&column, &names),
                    crate::suggest::listed(&names)
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
                    memory = self.at_least(value, "max_memory_mb", 1)?;
                }
                "max_events" => {
                    limits.max_events = self.at_least(value, "max_events", 1)?;
                }
                _ => {
                    let ms = self.number(value, "max_virtual_time_ms")?;
                    limits.max_time = sim_core::ms_to_ns(ms).filter(|ns| *ns > 0).ok_or_else(|| {
                        self.err(&value.span(), format!("`max_virtual_time_ms` must be above 0 and at most about 584 years (1.8e13 ms), got {}", coordsim_model::number_text(ms)))
                    })?;
                }
            }
        }
        Ok((limits, memory))
    }
}

/// Every point's parameters typed and validated once, before anything runs, and the
/// model's estimate of each run held to the limits (the entity rows of all runs too).
fn prepare_points(plan: &mut Plan, n: usize) -> Result<(), ConfigError> {
    let model = Arc::clone(&plan.model);
    let mut kept: u64 = 0;
    // What the prepared points themselves hold, all of them kept until the config is done.
    let mut points_bytes: u64 = 0;
    // An entity row in memory: its cells (the lead columns and the model's, 32 bytes
    // each, plus the text a cell may hold) and the row's own vector and name.
    let row_bytes = (4 + plan.axes.len() as u64 + model.entity_columns().len() as u64) * 48 + 96;
    for index in 0..plan.points {
        match model.prepare(&plan.point_values(index)[..n]) {
            Ok(prepared) => {
                let cost = prepared.cost();
                plan.check_cost(index, &cost)?;
                points_bytes = points_bytes.saturating_add(cost.point_bytes);
                // The first point's size stands for the others (their programs have the
                // same steps): a sweep far past the limit is refused before it is built.
                let expected = if index == 0 {
                    cost.point_bytes.saturating_mul(plan.points as u64)
                } else {
                    points_bytes
                };
                if points_bytes.max(expected) > plan.max_memory_bytes {
                    return Err(plan.error_at_model(format!(
                        "{} sweep points would hold about {} MiB (each point's program and tables, kept until the config is done: about {} KiB at point {}), more than max_memory_mb = {} in [limits]; fewer sweep points or steps, or raise max_memory_mb",
                        plan.points,
                        points_bytes.max(expected) >> 20,
                        cost.point_bytes >> 10,
                        index + 1,
                        plan.max_memory_bytes >> 20
                    )));
                }
                plan.heaviest_run_bytes = plan.heaviest_run_bytes.max(cost.memory_bytes);
                kept = kept.saturating_add(
                    cost.entity_rows
                        .saturating_mul(row_bytes)
                        .saturating_mul(plan.replications),
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
    Ok(())
}
