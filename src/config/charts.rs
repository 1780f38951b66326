//! Phase two: charts, parsed against the plan. A config's `[[chart]]` tables and a model's
//! default charts are read into one draft and pass the same checks, so a misspelt column
//! in either is an error (at the key, or naming the model's default chart), never an empty
//! chart.

use coordsim_model::{ChartKind, DefaultChart, Value};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::read::Loader;
pub(crate) use super::titles::{TitlePiece, fill_title};
use super::{Plan, Var};
use crate::source::{ConfigError, Span};
use coordsim_expr::{self as expr, Expr};

/// `x = "entity"`: a chart with one bar (or point) per entity row.
pub(crate) const ENTITY_X: &str = "entity";

const CHART_KEYS: &[&str] = &[
    "name",
    "x",
    "y",
    "y_expr",
    "kind",
    "mark_x",
    "mark_y",
    "log_x",
    "where",
    "title",
    "x_label",
    "y_label",
    "y_min",
    "y_max",
    "log_y",
    "legend",
    "width",
    "height",
    "scale",
    "interval",
    "from_ms",
    "to_ms",
    "focus",
    "focus_ms",
    "lanes",
    "resources",
    "first_items",
];

/// Smallest and largest chart side, in pixels.
pub(crate) const SIDE_PX: std::ops::RangeInclusive<u64> = 200..=4000;
/// Largest PNG scale (a 4000-pixel chart at scale 4 is 16000 pixels wide: print quality).
pub(crate) const MAX_SCALE: f64 = 4.0;

/// Largest size of a number a chart is given (`mark_y`, `y_min`, `y_max`): a quadrillion.
/// Whole numbers are exact in f64 up to 9e15, tick labels stay readable, and no lesson's
/// milliseconds or counts come near it; a value near f64::MAX would leave the axis no room
/// for ticks.
pub(crate) const MAX_CHART_VALUE: f64 = 1e15;

/// Most files one timeline chart writes: the first this many points its `where` keeps (one
/// file each, a few megabytes at most). A sweep of thousands of points would otherwise
/// write thousands of timelines nobody opens; the run's summary line names the rest.
pub(crate) const MAX_TIMELINE_FILES: usize = 20;

/// Where a chart's legend goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum LegendPlace {
    /// Inside, where it covers no data (raising the y axis for room if it must; outside when
    /// nothing inside is free).
    #[default]
    Best,
    /// Right of the plot.
    Outside,
    /// A fixed corner inside the plot.
    UpperLeft,
    /// A fixed corner inside the plot.
    UpperRight,
    /// A fixed corner inside the plot.
    LowerLeft,
    /// A fixed corner inside the plot.
    LowerRight,
    /// No legend.
    None,
}

impl LegendPlace {
    pub(super) const NAMES: &[(&str, LegendPlace)] = &[
        ("best", LegendPlace::Best),
        ("outside", LegendPlace::Outside),
        ("upper_left", LegendPlace::UpperLeft),
        ("upper_right", LegendPlace::UpperRight),
        ("lower_left", LegendPlace::LowerLeft),
        ("lower_right", LegendPlace::LowerRight),
        ("none", LegendPlace::None),
    ];
}

/// How a chart looks: the `[[chart]]` keys that change no data.
#[derive(Debug, Clone, PartialEq)]
pub struct Look {
    /// The chart's title (default: the config's title).
    pub title: Option<String>,
    /// The x axis title (default: the label of x).
    pub(crate) x_label: Option<String>,
    /// The y axis title (default: the labels of the y metrics).
    pub(crate) y_label: Option<String>,
    /// Lower end of the y axis.
    pub(crate) y_min: Option<f64>,
    /// Upper end of the y axis.
    pub(crate) y_max: Option<f64>,
    /// Log-scale y axis.
    pub(crate) log_y: bool,
    /// Where the legend goes.
    pub(crate) legend: LegendPlace,
    /// Width in pixels.
    pub(crate) width: u32,
    /// Height in pixels.
    pub(crate) height: u32,
    /// The PNG's pixels per chart pixel (the SVG scales by itself).
    pub(crate) scale: f64,
    /// With replications, draw each point's 95% interval.
    pub(crate) interval: bool,
    /// A timeline's time window, ms (`from_ms`, `to_ms`): what falls in it, clipped to it.
    pub(crate) window: Option<(f64, f64)>,
    /// A timeline's focus: the window centred on the first event of this kind (a mark's,
    /// or a span's start), this many ms either side (`None`: a twentieth of the run).
    pub(crate) focus: Option<(String, Option<f64>)>,
    /// A timeline's lanes by name (an entity's, or a group's: `g` keeps `g-0`, `g-1`, …);
    /// empty: every lane.
    pub(crate) lanes: Vec<String>,
    /// A timeline's resource lanes, by resource name, drawn above the actors' in this
    /// order (empty: none).
    pub(crate) resources: Vec<String>,
    /// A timeline's items drawn on each actor's lane, its first ones in time (the rest of
    /// the lane is a density band): `None`, every item kept.
    pub(crate) first_items: Option<usize>,
    /// Draw the legend's box (placed all the same when not): off only in tests that look
    /// at what lies under it. No config key sets it.
    pub legend_box: bool,
}

impl Default for Look {
    fn default() -> Look {
        Look {
            title: None,
            x_label: None,
            y_label: None,
            y_min: None,
            y_max: None,
            log_y: false,
            legend: LegendPlace::Best,
            width: 1000,
            height: 620,
            scale: 1.0,
            interval: true,
            window: None,
            focus: None,
            lanes: Vec::new(),
            resources: Vec::new(),
            first_items: None,
            legend_box: true,
        }
    }
}

/// One chart to draw.
#[derive(Debug, Clone)]
pub struct ChartSpec {
    /// File stem.
    pub name: String,
    /// Column on the x axis (empty for `cdf` and `timeline`).
    pub(crate) x: String,
    /// Metrics on the y axis.
    pub(crate) y: Vec<String>,
    /// Kind.
    pub(crate) kind: ChartKind,
    /// A metric drawn as a vertical marker at its x value.
    pub(crate) mark_x: Option<String>,
    /// A y value drawn as a horizontal line.
    pub(crate) mark_y: Option<f64>,
    /// Its legend (`mark_y = { value = 100, label = "capacity" }`); none: `y = 100`.
    pub mark_y_label: Option<String>,
    /// Reference lines: (legend, expression over the row's parameters and metrics).
    pub(crate) y_expr: Vec<(String, Expr<Var>)>,
    /// Log-scale x axis.
    pub(crate) log_x: bool,
    /// `where`: only rows whose parameters match.
    pub(crate) filter: Vec<(usize, Value)>,
    /// Title, axis titles, ranges, legend, size.
    pub look: Look,
    /// `y` names the model's per-request distributions (a `cdf` or `histogram` of each
    /// point's samples), not metrics.
    pub(crate) distribution: bool,
    /// Where the `[[chart]]` is written; `None` for a model's default chart (an empty
    /// default chart is left out, an empty chart of the config's is an error here).
    pub(crate) at: Option<Span>,
    /// A custom title as text and placeholders (empty: the default title).
    pub(crate) title: Vec<TitlePiece>,
}

/// Most `[[chart]]` tables a config has, as it has at most 64 `[[metric]]`s: each writes
/// three files (10,000 charts of a 2-point sweep wrote 666 MB in two minutes).
const MAX_CHARTS: usize = 64;

/// The points a timeline draws: the first [`MAX_TIMELINE_FILES`] its `where` keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TimelinePoints {
    /// The points drawn, in sweep order.
    pub(crate) drawn: Vec<usize>,
    /// How many points the `where` keeps (drawn or not).
    pub(crate) matched: usize,
}

impl ChartSpec {
    /// The timeline a schedule's run draws at `point`, named `name`, as the config's runs
    /// draw theirs: its first `kind = "timeline"` chart whose `where` keeps the point, as it
    /// is (lanes, resource lanes, window, focus, title) but at that point alone; else the
    /// lanes and resource lanes of its first timeline, with the default title (that chart's
    /// title and window are another point's); else every lane.
    pub(crate) fn schedule_timeline(
        plan: &Plan,
        charts: &[ChartSpec],
        point: usize,
        name: &str,
    ) -> ChartSpec {
        let values = plan.point_values(point);
        let here: Vec<(usize, Value)> = plan
            .axes
            .iter()
            .map(|a| (a.param, values[a.param].clone()))
            .collect();
        let timelines = || charts.iter().filter(|c| c.kind == ChartKind::Timeline);
        let mut chart = match timelines().find(|c| plan.matches(point, &c.filter)) {
            Some(chart) => chart.clone(),
            None => {
                let mut look = Look::default();
                if let Some(first) = timelines().next() {
                    look.lanes.clone_from(&first.look.lanes);
                    look.resources.clone_from(&first.look.resources);
                }
                ChartSpec {
                    name: String::new(),
                    x: String::new(),
                    y: Vec::new(),
                    kind: ChartKind::Timeline,
                    mark_x: None,
                    mark_y: None,
                    mark_y_label: None,
                    y_expr: Vec::new(),
                    log_x: false,
                    filter: Vec::new(),
                    look,
                    distribution: false,
                    at: None,
                    title: Vec::new(),
                }
            }
        };
        chart.name = name.to_string();
        chart.filter = here;
        chart
    }

    /// A timeline's points: the first [`MAX_TIMELINE_FILES`] of those its `where` keeps.
    pub(crate) fn timeline_points(&self, plan: &Plan) -> TimelinePoints {
        let mut drawn = Vec::new();
        let mut matched = 0;
        for p in 0..plan.points {
            if plan.matches(p, &self.filter) {
                matched += 1;
                if drawn.len() < MAX_TIMELINE_FILES {
                    drawn.push(p);
                }
            }
        }
        TimelinePoints { drawn, matched }
    }

    /// The file name of its chart at `point` (a timeline over several points gets one file
    /// per point, `name-p<point>`).
    pub(crate) fn file_name(&self, point: usize, points: &TimelinePoints) -> String {
        if points.matched > 1 {
            format!("{}-p{point}", self.name)
        } else {
            self.name.clone()
        }
    }
}

/// Where a chart's field was written: a place in the config, or a model's default chart.
#[derive(Debug, Clone)]
pub(super) enum At {
    Span(Span),
    Default(&'static str),
}

/// A chart as written, before its names are checked against the plan.
struct Draft {
    at: At,
    name: (String, At),
    kind: (ChartKind, At),
    x: Option<(String, At)>,
    y: Option<(Vec<(String, At)>, At)>,
    mark_x: Option<(String, At)>,
    mark_y: Option<f64>,
    mark_y_label: Option<String>,
    y_expr: Vec<(String, Expr<Var>)>,
    log_x: bool,
    filter: Vec<(usize, Value)>,
    look: Look,
    /// Where `title` is written (its placeholders are checked against the plan).
    title_at: Option<Span>,
    /// Where each of `resources` is written (checked against the model's resources).
    resources_at: Vec<Span>,
}

impl Loader<'_> {
    pub(super) fn err_at(&self, plan: &Plan, at: &At, message: impl Into<String>) -> ConfigError {
        match at {
            At::Span(span) => self.err(span, message),
            At::Default(chart) => plan.error_at_model(format!(
                "the default chart `{chart}` of {}: {}",
                plan.model.name(),
                message.into()
            )),
        }
    }

    /// The `[[chart]]` tables of a config (`key` is where `chart` is written).
    pub(super) fn charts(
        &self,
        plan: &Plan,
        charts: &Spanned<DeValue<'_>>,
        key: &Span,
    ) -> Result<Vec<ChartSpec>, ConfigError> {
        let tables = self.array_of_tables(charts, "chart")?;
        if let Some((_, span)) = tables.get(MAX_CHARTS) {
            return Err(self.err(
                span,
                format!(
                    "at most {MAX_CHARTS} [[chart]] tables (each writes an SVG, a PNG and a narrow SVG); this is the {}th",
                    MAX_CHARTS + 1
                ),
            ));
        }
        let specs: Vec<ChartSpec> = tables
            .into_iter()
            .map(|c| {
                let draft = self.draft(plan, c)?;
                self.check_chart(plan, draft)
            })
            .collect::<Result<_, _>>()?;
        self.distinct_names(plan, &specs, &At::Span(key.clone()))?;
        Ok(specs)
    }

    /// The model's default charts, through the same checks as a config's. With
    /// `entities = false` the charts drawn from entity rows are left out (there are none).
    pub(super) fn default_charts(&self, plan: &Plan) -> Result<Vec<ChartSpec>, ConfigError> {
        let mut specs = Vec::new();
        for chart in plan.model.charts() {
            if chart.x == ENTITY_X && !plan.entities {
                continue;
            }
            specs.push(self.check_chart(plan, default_draft(&chart))?);
        }
        self.distinct_names(plan, &specs, &At::Default("…"))?;
        Ok(specs)
    }

    /// Every chart file name once: two charts of one name, or a timeline's per-point file
    /// (`name-p3`) and a chart called so, would overwrite each other.
    fn distinct_names(&self, plan: &Plan, specs: &[ChartSpec], at: &At) -> Result<(), ConfigError> {
        let mut files: Vec<(String, &str)> = Vec::new();
        for c in specs {
            if c.kind == ChartKind::Timeline {
                let points = c.timeline_points(plan);
                files.extend(
                    points
                        .drawn
                        .iter()
                        .map(|p| (c.file_name(*p, &points), c.name.as_str())),
                );
                continue;
            }
            files.push((c.name.clone(), c.name.as_str()));
        }
        files.sort();
        match files.windows(2).find(|w| w[0].0 == w[1].0) {
            Some(w) if w[0].1 == w[1].1 => Err(self.err_at(
                plan,
                at,
                format!("two charts are named `{}`; names must differ", w[0].0),
            )),
            Some(w) => Err(self.err_at(
                plan,
                at,
                format!(
                    "the charts `{}` and `{}` would both write {}.svg and .png; rename one",
                    w[0].1, w[1].1, w[0].0
                ),
            )),
            None => Ok(()),
        }
    }

    /// Reads a `[[chart]]` table into a draft: keys known, values of the right type.
    fn draft(&self, plan: &Plan, (t, span): (&DeTable<'_>, Span)) -> Result<Draft, ConfigError> {
        let fields = self.known_fields(t, "[[chart]]", CHART_KEYS)?;
        let field = |k: &str| {
            fields
                .iter()
                .find(|(key, _)| key.get_ref() == k)
                .map(|(_, v)| *v)
        };
        let at = |v: &Spanned<DeValue<'_>>| At::Span(v.span());
        let Some(name_value) = field("name") else {
            return Err(self.err(&span, "a [[chart]] needs `name` (its file name)"));
        };
        let name = (self.string(name_value, "name")?, at(name_value));
        let kind = match field("kind") {
            Some(v) => {
                let k = self.string(v, "kind")?;
                let Some(kind) = ChartKind::parse(&k) else {
                    let valid: Vec<&str> = ChartKind::ALL.iter().map(|k| k.name()).collect();
                    return Err(self.err(
                        &v.span(),
                        format!(
                            "unknown chart kind `{k}`{}; valid: {}",
                            crate::suggest::did_you_mean(&k, &valid),
                            valid.join(", ")
                        ),
                    ));
                };
                (kind, at(v))
            }
            None => (ChartKind::Line, At::Span(span.clone())),
        };
        self.exact_cdf_keys(kind.0, &|k| field(k))?;
        let x = match field("x") {
            Some(v) => Some((self.string(v, "x")?, at(v))),
            None => None,
        };
        let y = match field("y") {
            Some(v) => {
                let items: Vec<&Spanned<DeValue<'_>>> = match v.get_ref() {
                    DeValue::Array(items) => items.iter().collect(),
                    _ => vec![v],
                };
                let names = items
                    .into_iter()
                    .map(|item| Ok((self.string(item, "y")?, at(item))))
                    .collect::<Result<_, ConfigError>>()?;
                Some((names, at(v)))
            }
            None => None,
        };
        let mark_x = match field("mark_x") {
            Some(v) => Some((self.string(v, "mark_x")?, at(v))),
            None => None,
        };
        let (mark_y, mark_y_label) = match field("mark_y") {
            Some(v) => self.mark_y(v)?,
            None => (None, None),
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
                // A cdf's or histogram's curve is a function of its x.
                let over_x = matches!(kind.0, ChartKind::Cdf | ChartKind::RunsCdf);
                let resolve = |name: &str| match plan.resolve(name, false, true) {
                    Err(_) if over_x && name == "x" => Ok(Var::X),
                    other => other,
                };
                match expr::parse(text, &resolve) {
                    Ok(e) => y_expr.push((label.get_ref().to_string(), e)),
                    Err(e) => {
                        return Err(self.expr_error(text_value.span().start, text, &e, "y_expr"));
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
            Some(w) => self.filter(plan, w)?,
            None => Vec::new(),
        };
        let mut look = self.look(&|k| field(k))?;
        self.log_keys(kind.0, &|k| field(k), &look, mark_y)?;
        let resources_at = self.resources(kind.0, field("resources"), &mut look)?;
        look.first_items = self.first_items(kind.0, field("first_items"))?;
        Ok(Draft {
            resources_at,
            title_at: field("title").map(|v| v.span()),
            at: At::Span(span),
            name,
            kind,
            x,
            y,
            mark_x,
            mark_y,
            mark_y_label,
            y_expr,
            log_x,
            filter,
            look,
        })
    }

    /// Checks a draft's names against the plan: the one set of rules for every chart.
    fn check_chart(&self, plan: &Plan, d: Draft) -> Result<ChartSpec, ConfigError> {
        let chart_at = match &d.at {
            At::Span(span) => Some(span.clone()),
            At::Default(_) => None,
        };
        let title_at = d.title_at.clone().unwrap_or(0..0);
        let title =
            self.title_pieces(plan, d.look.title.as_deref(), title_at, &d.filter, d.kind.0)?;
        let model = &*plan.model;
        let (name, name_at) = d.name;
        if name.is_empty()
            || name.chars().count() > 100
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        {
            return Err(self.err_at(
                plan,
                &name_at,
                "a chart `name` is a file name: letters, digits, `-` and `_`, at most 100",
            ));
        }
        let (kind, kind_at) = d.kind;
        if kind == ChartKind::Timeline && model.timeline().is_none() {
            return Err(self.err_at(
                plan,
                &kind_at,
                format!(
                    "{} records no timeline; valid kinds for it: line, bar, cdf, histogram, runs_cdf",
                    model.name()
                ),
            ));
        }
        self.check_resources(plan, &d.look.resources, &d.resources_at)?;
        if let (Some((focus, _)), Some(style)) = (&d.look.focus, model.timeline()) {
            let kinds: Vec<&str> = (style.marks.iter().map(|m| m.name))
                .chain(style.spans.iter().map(|k| k.name))
                .collect();
            if !kinds.contains(&focus.as_str()) {
                return Err(self.err_at(
                    plan,
                    &kind_at,
                    format!(
                        "a timeline's `focus` is a kind of event it draws: `{focus}` is none{}; valid: {}",
                        coordsim_model::suggest::did_you_mean(focus, &kinds),
                        kinds.join(", ")
                    ),
                ));
            }
        }
        let x = self.chart_x(plan, kind, d.x, &d.at)?;
        let distributions = model.distributions();
        let is_distribution = |name: &str| distributions.iter().any(|d| d.name == name);
        // A cdf of per-request samples or of a metric over runs: decided by its first y.
        let distribution = match (&d.y, kind) {
            (_, ChartKind::Histogram) => true,
            (Some((items, _)), ChartKind::Cdf) => {
                items.first().is_some_and(|(n, _)| is_distribution(n))
            }
            _ => false,
        };
        let (y, mark_x) = if distribution {
            let y = self.distribution_y(plan, kind, d.y, &d.at)?;
            if let Some((_, at)) = &d.mark_x {
                return Err(self.err_at(
                    plan,
                    at,
                    format!("a {kind} of samples takes no `mark_x`"),
                ));
            }
            (y, None)
        } else {
            let y = self.metric_y(plan, kind, x == ENTITY_X, d.y, &d.at)?;
            let mark_x = match d.mark_x {
                Some((m, at)) => {
                    plan.resolve(&m, false, false)
                        .map_err(|e| self.err_at(plan, &at, e))?;
                    Some(m)
                }
                None => None,
            };
            (y, mark_x)
        };
        Ok(ChartSpec {
            name,
            x,
            y,
            kind,
            mark_x,
            mark_y: d.mark_y,
            mark_y_label: d.mark_y_label,
            y_expr: d.y_expr,
            log_x: d.log_x,
            filter: d.filter,
            look: d.look,
            distribution,
            at: chart_at,
            title,
        })
    }

    /// A chart's `x`: a parameter, a numeric metric or `"entity"`; none for the kinds that
    /// have their own x (a cdf, a histogram, a timeline).
    fn chart_x(
        &self,
        plan: &Plan,
        kind: ChartKind,
        x: Option<(String, At)>,
        chart_at: &At,
    ) -> Result<String, ConfigError> {
        let model = &*plan.model;
        match x {
            Some((x, at)) => {
                if x == ENTITY_X {
                    if model.entity_columns().is_empty() {
                        return Err(self.err_at(
                            plan,
                            &at,
                            format!("{} has no entity rows to chart", model.name()),
                        ));
                    }
                    if !plan.entities {
                        return Err(self.err_at(
                            plan,
                            &at,
                            "this config sets `entities = false`: no entity rows to chart",
                        ));
                    }
                } else if plan.key_index(&x).is_none() {
                    // Any parameter may be x (strings become categories); else a numeric metric.
                    plan.resolve(&x, false, false).map_err(|m| {
                        self.err_at(
                            plan,
                            &at,
                            format!("{m}; or a parameter, or \"entity\" for one bar per entity"),
                        )
                    })?;
                }
                Ok(x)
            }
            None if matches!(
                kind,
                ChartKind::Cdf
                    | ChartKind::Timeline
                    | ChartKind::Histogram
                    | ChartKind::RunsCdf
                    | ChartKind::ExactCdf
            ) =>
            {
                Ok(String::new())
            }
            None => Err(self.err_at(
                plan,
                chart_at,
                "a [[chart]] needs `x` (a parameter, a metric or \"entity\")",
            )),
        }
    }
}

/// A model's default chart as a draft: every field is "at" the default chart itself.
fn default_draft(chart: &DefaultChart) -> Draft {
    let at = At::Default(chart.name);
    let text = |s: &str| (s.to_string(), at.clone());
    Draft {
        at: at.clone(),
        name: text(chart.name),
        kind: (chart.kind, at.clone()),
        x: (!chart.x.is_empty()).then(|| text(chart.x)),
        y: (!chart.y.is_empty() || chart.kind != ChartKind::Timeline)
            .then(|| (chart.y.iter().map(|y| text(y)).collect(), at.clone())),
        mark_x: chart.mark_x.map(text),
        mark_y: chart.mark_y,
        mark_y_label: None,
        y_expr: Vec::new(),
        log_x: false,
        filter: Vec::new(),
        look: Look::default(),
        title_at: None,
        resources_at: Vec::new(),
    }
}
