//! A config loaded whole: read the file, parse the TOML, plan it, then its claims, charts
//! and table against the plan; what it keeps in memory.

use std::ops::Deref;

use coordsim_model::{ChartKind, Registry};
use toml::de::DeTable;

use super::charts::ChartSpec;
use super::claims::Claim;
use super::nesting::{MAX_NESTING, too_deep};
use super::plan::Plan;
use super::read::Loader;
use super::table::TableSpec;
use crate::locale::Locale;
use crate::source::{ConfigError, Source};

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
    pub(crate) table: TableSpec,
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
    "metric",
];

/// Most bytes of a config file.
pub(crate) const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

impl Config {
    /// Reads and checks the config at `path` (`name` is how the user wrote it).
    pub(crate) fn load(name: &str, registry: &Registry) -> anyhow::Result<Config> {
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
        Config::parse_in(source, registry, None)
    }

    /// [`Config::parse`], its texts and labels read in `reading` (`None`: its own locale).
    pub(super) fn parse_in(
        source: Source,
        registry: &Registry,
        reading: Option<Locale>,
    ) -> Result<Config, ConfigError> {
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
        let loader = Loader {
            src: &source,
            locales: std::cell::Cell::new(Default::default()),
            reading,
            spoken: Default::default(),
        };
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
        let mut plan = loader.plan(doc, &source, registry)?;
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
        // A `[[chart]]` of more series than a chart draws, when the sweep alone says so (a
        // model's default chart draws its first ones instead).
        for spec in &charts {
            let drawn = super::chart_series::Drawn {
                kind: spec.kind,
                distribution: spec.distribution,
                x: &spec.x,
                ys: spec.y.len(),
                filter: &spec.filter,
            };
            if let (Some(at), Some(why)) = (
                &spec.at,
                super::chart_series::too_many_series(&plan, &drawn),
            ) {
                return Err(loader.err(at, format!("chart `{}`: {why}", spec.name)));
            }
        }
        plan.speaks = loader.spoken_locales()?;
        // Read in its own locale, a config is checked in each other it speaks too: a
        // placeholder of an English chart title is checked where the config loads, not
        // when a lesson first reads it in English.
        if reading.is_none() {
            for &other in &plan.speaks[1..] {
                Config::parse_in(source.clone(), registry, Some(other))?;
            }
        }
        Ok(Config {
            plan,
            claims,
            charts,
            table,
        })
    }
}

/// Most samples of one distribution kept per point: whole replications are added, in
/// order, while they fit (each is an independent run, so the pool stays unbiased).
pub(crate) const MAX_POOLED_SAMPLES: usize = 1_000_000;

/// Refuses a config whose kept results would pass `max_memory_mb`: every run's row, the
/// entity rows, and the samples its distribution charts pool (at most
/// [`MAX_POOLED_SAMPLES`] per drawn point and distribution, 8 bytes each;
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
        .min(MAX_POOLED_SAMPLES as u64);
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

impl Config {
    /// Whether a chart of this config is a timeline (its runs record lanes).
    pub(crate) fn draws_timeline(&self) -> bool {
        self.charts.iter().any(|c| c.kind == ChartKind::Timeline)
    }

    /// Whether a timeline of this config draws resource lanes (only then do its runs
    /// record them).
    pub(crate) fn draws_resource_lanes(&self) -> bool {
        (self.charts.iter()).any(|c| c.kind == ChartKind::Timeline && !c.look.resources.is_empty())
    }

    /// Whether a chart of this config draws a per-request distribution (its runs keep
    /// their samples).
    pub(crate) fn draws_distributions(&self) -> bool {
        self.charts.iter().any(|c| c.distribution)
    }

    /// Whether a distribution chart draws point `point` (only those runs keep samples).
    pub(crate) fn draws_distribution_at(&self, point: usize) -> bool {
        self.charts
            .iter()
            .any(|c| c.distribution && self.matches(point, &c.filter))
    }
}

/// One config, several languages (`config/localized.rs` reads them).
impl Config {
    /// Whether the config has words of its own for `locale`: its `locale`, or one its
    /// per-locale texts and labels give. A lesson in that locale shows its tables and charts
    /// in it ([`Config::in_locale`]).
    pub fn speaks(&self, locale: Locale) -> bool {
        self.plan.speaks.contains(&locale)
    }

    /// This config read again in `locale`: its texts and labels in that locale's words,
    /// numbers and built-in words in that locale; the same model, points and runs (its
    /// results are this config's).
    pub fn in_locale(
        &self,
        locale: Locale,
        registry: &coordsim_model::Registry,
    ) -> Result<Config, ConfigError> {
        Config::parse_in(self.source.clone(), registry, Some(locale))
    }

    /// Its title in `locale`: the one its `title` gives there, else its own.
    pub fn title_in(&self, locale: Locale) -> &str {
        self.plan
            .titles
            .iter()
            .find(|(l, _)| *l == locale)
            .map_or(self.title.as_str(), |(_, t)| t.as_str())
    }
}
