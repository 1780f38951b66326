//! Charts as SVG and PNG, drawn with plotters and an embedded font (DejaVu Sans), so text
//! renders the same on a machine with no font libraries. One chart kind per file; `render`
//! turns plotters' SVG into the files (text as outlines, the PNG rasterized from the SVG).

mod bar;
mod cdf;
mod histogram;
pub mod layout;
mod line;
mod render;
mod timeline;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

use super::{Exporter, Run, write_atomic};
use crate::config::charts::{LegendPlace, Look};
use crate::config::{ChartKind, ChartSpec};
use crate::export::markdown::round;
use crate::locale::{Locale, Text};
use coordsim_model::Cell;
use layout::{Entry, Obstacles, Rect, Scale};

use crate::results::{ColumnId, ColumnSource, Row, number};

/// The font family charts use: registered from the embedded file for plotters' text
/// measurements, and the only font the SVG-to-outlines step knows.
pub const FONT: &str = "DejaVu Sans";

/// DejaVu Sans (Bitstream Vera licence, see assets/fonts): covers Turkish and Greek letters.
static FONT_BYTES: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

type DrawResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// Points on a theory curve of a cdf.
const CURVE_STEPS: usize = 200;

/// The largest size of a value a chart places (1e300): beyond it, the headroom above the
/// data and the span of an axis would overflow to infinity, whose ticks plotters cannot
/// count. Such a value is left out like an infinite one.
pub const MAX_DRAWN: f64 = 1e300;

/// Whether a value can be placed on an axis: finite and at most [`MAX_DRAWN`] in size.
pub fn drawable(v: f64) -> bool {
    v.is_finite() && v.abs() <= MAX_DRAWN
}

/// An axis range plotters can divide into ticks: finite ends and a finite, positive span
/// (`0..1` for anything else). Every chart kind's axes pass through here, so no value,
/// however it was computed, can make the tick search loop forever.
pub fn sane_axis(r: std::ops::Range<f64>) -> std::ops::Range<f64> {
    let (lo, hi) = (r.start, r.end);
    if !(lo.is_finite() && hi.is_finite() && (hi - lo).is_finite() && hi > lo) {
        return 0.0..1.0;
    }
    // A span below the ends' precision has no ticks between them: widen it.
    let floor = lo.abs().max(hi.abs()) * 1e-9;
    if hi - lo < floor {
        return lo - floor..hi + floor;
    }
    lo..hi
}

/// The plotting context every chart kind draws on.
pub type Chart2d<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Writes one SVG and one PNG per chart.
pub struct ChartExporter;

impl Exporter for ChartExporter {
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<super::Written> {
        if run.config.charts.is_empty() {
            return Ok(super::Written::default());
        }
        // Every file goes into `dir` alone: the SVGs carry their text as outlines, so no
        // font file is shared beside them.
        let charts = prepare(run)?;
        for chart in &charts.files {
            chart.write(dir)?;
        }
        Ok(super::Written {
            charts: charts.files.len(),
            left_out: charts.left_out,
        })
    }
}

/// A chart ready to render: its file name and what it draws.
pub struct Prepared {
    /// File stem.
    pub name: String,
    /// What it draws (with its look: size, scale, legend).
    pub what: Drawing,
}

/// The data of one chart.
pub enum Drawing {
    /// Lines, bars or a cdf.
    Data(Box<ChartData>),
    /// A timeline.
    Timeline(Box<timeline::Timeline>),
}

/// Every chart file a run writes, and the charts it leaves out.
pub struct Charts {
    /// The files, in order (a timeline over several points gives one per point).
    pub files: Vec<Prepared>,
    /// What was not drawn, each as `name (why)`, for the run's summary line.
    pub left_out: Vec<String>,
}

/// Every chart file a run writes, in order. A chart with nothing to draw is never written
/// as bare axes: a config's own `[[chart]]` is an error naming it and its empty columns; a
/// model's default chart is left out and named in [`Charts::left_out`], as is any chart
/// that is empty in one shard of a sweep (`merge` draws the whole and judges it there).
pub fn prepare(run: &Run<'_>) -> anyhow::Result<Charts> {
    let config = run.config;
    // A shard holds some of the points only.
    let partial = (run.results.results.rows.len() as u64) < config.runs();
    let mut charts = Charts {
        files: Vec::new(),
        left_out: Vec::new(),
    };
    for spec in &config.charts {
        let empty = if spec.kind == ChartKind::Timeline {
            let points = spec.timeline_points(config);
            let files = timelines(run, spec, &points);
            let rest = points.matched - points.drawn.len();
            if rest > 0 {
                charts.left_out.push(format!(
                    "{} for {rest} more points (a timeline draws the first {} its `where` keeps)",
                    spec.name,
                    crate::config::charts::MAX_TIMELINE_FILES
                ));
            }
            let empty = files.is_empty();
            charts
                .files
                .extend(files.into_iter().map(|(name, t)| Prepared {
                    name,
                    what: Drawing::Timeline(Box::new(t)),
                }));
            empty.then(|| "no lanes at any point it draws".to_string())
        } else {
            let data = ChartData::new(run, spec);
            let empty = data.empty(spec);
            if empty.is_none() {
                charts.files.push(Prepared {
                    name: spec.name.clone(),
                    what: Drawing::Data(Box::new(data)),
                });
            }
            empty
        };
        let Some(why) = empty else { continue };
        match &spec.at {
            _ if partial => charts
                .left_out
                .push(format!("{} ({why} in this shard)", spec.name)),
            Some(at) => {
                return Err(config
                    .source
                    .error(
                        at,
                        format!(
                            "the chart `{}` has nothing to draw: {why}; chart columns that have values there, or leave the chart out",
                            spec.name
                        ),
                    )
                    .into());
            }
            None => charts.left_out.push(format!("{} ({why})", spec.name)),
        }
    }
    Ok(charts)
}

/// Where a chart's legend went (for tests of the layout).
#[derive(Debug, Clone, Default)]
pub struct Placed {
    /// The legend box inside the plot (`None`: outside, or no legend).
    pub legend: Option<Rect>,
}

impl Prepared {
    /// How it looks (one copy, the drawing's own).
    pub fn look(&self) -> &Look {
        match &self.what {
            Drawing::Data(d) => &d.look,
            Drawing::Timeline(t) => &t.look,
        }
    }

    /// The same, to change before drawing (tests hide the legend box).
    pub fn look_mut(&mut self) -> &mut Look {
        match &mut self.what {
            Drawing::Data(d) => &mut d.look,
            Drawing::Timeline(t) => &mut t.look,
        }
    }

    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        s: Scale,
    ) -> DrawResult<Placed>
    where
        DB::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let placed = match &self.what {
            Drawing::Data(data) => match data.kind {
                ChartKind::Line => line::draw(area, data, s)?,
                ChartKind::Bar => bar::draw(area, data, s)?,
                ChartKind::Cdf | ChartKind::RunsCdf => cdf::draw(area, data, s)?,
                ChartKind::Histogram => histogram::draw(area, data, s)?,
                ChartKind::Timeline => return Err("a timeline is drawn from lanes".into()),
            },
            Drawing::Timeline(t) => timeline::draw(area, t, s)?,
        };
        area.present()?;
        Ok(placed)
    }

    /// The chart's title (what the SVG file's `<title>` says).
    pub fn title(&self) -> &str {
        match &self.what {
            Drawing::Data(d) => &d.title,
            Drawing::Timeline(t) => &t.title,
        }
    }

    /// The SVG plotters draws, text still as `<text>` in DejaVu Sans, and the layout it has:
    /// readable (the snapshot tests read it), and what the file is made from.
    pub fn svg_source(&self) -> anyhow::Result<(String, Placed)> {
        register_embedded_font()?;
        let mut svg = String::new();
        let placed = {
            let area = SVGBackend::with_string(&mut svg, (self.look().width, self.look().height))
                .into_drawing_area();
            self.draw(&area, Scale(1.0))
                .map_err(|e| anyhow::anyhow!("chart {}: {e}", self.name))?
        };
        Ok((render::xml_safe(svg), placed))
    }

    /// The SVG file and the layout it has: [`Prepared::svg_source`] with its text turned
    /// into outlines, so it needs no font and refers to nothing outside itself.
    pub fn svg(&self) -> anyhow::Result<(String, Placed)> {
        let (source, placed) = self.svg_source()?;
        let svg = render::self_contained(&source, self.title())
            .map_err(|e| anyhow::anyhow!("chart {}: {e}", self.name))?;
        Ok((svg, placed))
    }

    /// The PNG file's bytes: the SVG file rasterized at the chart's `scale` (no file is
    /// opened).
    pub fn png(&self) -> anyhow::Result<Vec<u8>> {
        let (svg, _) = self.svg()?;
        self.png_of(&svg)
    }

    fn png_of(&self, svg: &str) -> anyhow::Result<Vec<u8>> {
        render::pixmap(svg, self.look().scale)
            .and_then(|p| render::png(&p))
            .map_err(|e| anyhow::anyhow!("chart {}: {e}", self.name))
    }

    /// The PNG's pixels (RGB rows, top first), its size and the layout it has, in PNG
    /// pixels (the legend box scaled by `scale`, covering every pixel it touches).
    pub fn rgb(&self) -> anyhow::Result<(Vec<u8>, (u32, u32), Placed)> {
        let (svg, placed) = self.svg()?;
        let s = self.look().scale;
        let pixmap =
            render::pixmap(&svg, s).map_err(|e| anyhow::anyhow!("chart {}: {e}", self.name))?;
        let scaled = |v: i32, end: bool| {
            let v = f64::from(v + i32::from(end)) * s;
            (if end { v.ceil() - 1.0 } else { v.floor() }) as i32
        };
        let placed = Placed {
            legend: placed.legend.map(|r| Rect {
                x0: scaled(r.x0, false),
                y0: scaled(r.y0, false),
                x1: scaled(r.x1, true),
                y1: scaled(r.y1, true),
            }),
        };
        Ok((
            render::rgb(&pixmap),
            (pixmap.width(), pixmap.height()),
            placed,
        ))
    }

    /// Writes `name.svg` and `name.png` into `dir`: the PNG rasterized from the SVG bytes
    /// written.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let (svg, _) = self.svg()?;
        write_atomic(&dir.join(format!("{}.svg", self.name)), svg.as_bytes())?;
        write_atomic(&dir.join(format!("{}.png", self.name)), &self.png_of(&svg)?)
    }
}

/// Most spans and marks one timeline draws, over all its lanes: about 100 bytes of SVG
/// each, so a timeline file stays within a few megabytes however long the run. Past it,
/// every lane's kinds are thinned alike (see [`coordsim_model::Lane::thin_to`]) and the chart says so.
pub const MAX_TIMELINE_ITEMS: usize = 20_000;

/// One timeline per point it draws (file `name`, or `name-p<point>` when several points
/// match), from the lanes of that point's first replication; points without lanes (another
/// shard's) draw none.
fn timelines(
    run: &Run<'_>,
    spec: &ChartSpec,
    points: &crate::config::charts::TimelinePoints,
) -> Vec<(String, timeline::Timeline)> {
    let config = run.config;
    let Some(style) = config.model.timeline() else {
        return Vec::new();
    };
    let spans: Vec<String> = style
        .spans
        .iter()
        .map(|k| config.kind_label(k.name, k.label, k.label_tr).to_string())
        .collect();
    let marks: Vec<String> = style
        .marks
        .iter()
        .map(|k| config.kind_label(k.name, k.label, k.label_tr).to_string())
        .collect();
    run.results
        .lanes
        .iter()
        .filter(|(p, lanes)| points.drawn.contains(p) && !lanes.is_empty())
        .map(|(point, lanes)| {
            let values = config.point_values(*point);
            let title = point_title(config, spec, &values);
            let mut lanes = lanes.clone();
            for lane in lanes.lanes_mut() {
                lane.name = config.label(&lane.name).to_string();
            }
            fit_budget(lanes.lanes_mut(), MAX_TIMELINE_ITEMS);
            let notes = timeline_notes(config, &lanes);
            let timeline = timeline::Timeline {
                title,
                lanes: lanes.lanes().to_vec(),
                notes,
                style,
                span_labels: spans.clone(),
                mark_labels: marks.clone(),
                x_label: spec
                    .look
                    .x_label
                    .clone()
                    .unwrap_or_else(|| config.text(Text::VirtualTimeAxis).to_string()),
                locale: config.locale,
                look: spec.look.clone(),
            };
            (spec.file_name(*point, points), timeline)
        })
        .collect()
}

/// A swept point's settings for a title: `tutma (ms) = 200, koruma: none`, each setting
/// held together by no-break spaces so a wrapped title never strands `= 200)`.
fn point_settings(config: &crate::config::Config, values: &[coordsim_model::Value]) -> String {
    config
        .axes
        .iter()
        .map(|a| {
            config
                .setting_text(&a.key, &values[a.param])
                .replace(' ', "\u{a0}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The title of a chart drawn at one point (a timeline): the config's title with the point's
/// settings after it, or the chart's own title with its placeholders filled (`{point}`,
/// `{seed}`) and nothing appended.
fn point_title(
    config: &crate::config::Config,
    spec: &ChartSpec,
    values: &[coordsim_model::Value],
) -> String {
    let settings = point_settings(config, values);
    if spec.title.is_empty() {
        if settings.is_empty() {
            config.title.clone()
        } else {
            format!("{} ({settings})", config.title)
        }
    } else {
        crate::config::charts::fill_title(&spec.title, config, values, &settings)
    }
}

/// Thins every lane alike until the timeline draws at most `budget` spans and marks: the
/// largest per-kind count `c` (at least 1) whose lanes, each kind held to `c`, fit.
fn fit_budget(lanes: &mut [coordsim_model::Lane], budget: usize) {
    // Each lane's kept items per kind.
    let counts: Vec<Vec<usize>> = lanes
        .iter()
        .map(|l| {
            l.thinning()
                .iter()
                .map(|t| {
                    if t.span {
                        l.spans().iter().filter(|s| s.kind == t.kind).count()
                    } else {
                        l.marks().iter().filter(|m| m.kind == t.kind).count()
                    }
                })
                .collect()
        })
        .collect();
    let drawn = |cap: usize| -> usize {
        counts
            .iter()
            .flat_map(|kinds| kinds.iter().map(move |n| (*n).min(cap)))
            .sum()
    };
    if drawn(usize::MAX) <= budget {
        return;
    }
    // The largest cap that fits (`drawn` grows with it); 1 when even that does not.
    let (mut lo, mut hi) = (1usize, coordsim_model::MAX_LANE_ITEMS);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if drawn(mid) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    for lane in lanes {
        lane.thin_to(lo);
    }
}

/// What a timeline says it did not draw as given, in the config's locale: lanes past the
/// cap, thinned marks, merged spans.
fn timeline_notes(config: &crate::config::Config, lanes: &coordsim_model::Lanes) -> Vec<String> {
    let n = |x: u64| config.locale.number(&x.to_string());
    let mut notes = Vec::new();
    let kept = lanes.lanes();
    if lanes.total() > kept.len() {
        notes.push(
            config
                .text(Text::TimelineLanesNote)
                .replace("{shown}", &n(kept.len() as u64))
                .replace("{total}", &n(lanes.total() as u64)),
        );
    }
    let marks_seen: u64 = kept.iter().map(|l| l.marks_seen()).sum();
    let marks_drawn: u64 = kept.iter().map(|l| l.marks().len() as u64).sum();
    if marks_drawn < marks_seen {
        notes.push(
            config
                .text(Text::TimelineMarksNote)
                .replace("{drawn}", &n(marks_drawn))
                .replace("{seen}", &n(marks_seen)),
        );
    }
    let spans_seen: u64 = kept.iter().map(|l| l.spans_seen()).sum();
    let spans_drawn: u64 = kept.iter().map(|l| l.spans().len() as u64).sum();
    if spans_drawn < spans_seen {
        notes.push(
            config
                .text(Text::TimelineSpansNote)
                .replace("{drawn}", &n(spans_drawn))
                .replace("{seen}", &n(spans_seen)),
        );
    }
    notes
}

fn register_embedded_font() -> anyhow::Result<()> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = register_font(FONT, FontStyle::Normal, FONT_BYTES)
            .map_err(|_| anyhow::anyhow!("the embedded chart font did not load"));
    });
    result
}

/// One line (or bar group): a label and its points in x order.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// A reference line (`y_expr`), drawn dashed.
    pub reference: bool,
    /// (x, y) points; y averaged over replications.
    pub points: Vec<(f64, f64)>,
    /// The 95% interval of each point's mean over replications: (x, low, high); empty with
    /// one replication.
    pub intervals: Vec<(f64, f64, f64)>,
    /// The palette index to draw it in (`None`: its place among the series). A theory line
    /// takes the colour of the data it is theory for.
    pub color: Option<usize>,
}

/// What a chart draws, prepared from the rows.
#[derive(Debug, Clone)]
pub struct ChartData {
    /// Chart title.
    pub title: String,
    /// Kind.
    pub kind: ChartKind,
    /// x axis label.
    pub x_label: String,
    /// y axis label.
    pub y_label: String,
    /// Series.
    pub series: Vec<Series>,
    /// Vertical markers: (x, legend text).
    pub marks: Vec<(f64, String)>,
    /// A horizontal marker: (y, legend text).
    pub mark_y: Option<(f64, String)>,
    /// Log-scale x.
    pub log_x: bool,
    /// Raw values per y metric (for `cdf`).
    pub samples: Vec<(String, Vec<f64>)>,
    /// For a categorical x (a string parameter, or the entity): the category of x = i.
    pub categories: Option<Vec<String>>,
    /// Every y metric holds whole numbers: ticks only at integers.
    pub y_integer: bool,
    /// The x values are whole numbers (a count parameter or metric).
    pub x_integer: bool,
    /// How numbers are written.
    pub locale: Locale,
    /// The legend text of a 95% interval.
    pub interval_label: String,
    /// The chart's look (axis range, legend place, size).
    pub look: Look,
    /// What it does not draw as given (bar groups past the cap), in the config's locale:
    /// legend lines of their own.
    pub notes: Vec<String>,
}

/// Most bar groups a bar chart draws: the first ones (an entity chart of 20,000 appliers
/// would be 13 MB of SVG and bars thinner than a pixel); the chart says so.
pub const MAX_BAR_GROUPS: usize = 500;

/// How a row gives its x value.
enum XSource {
    /// A numeric column of the table.
    Column(ColumnId),
    /// A column holding categories (text), numbered in order of first appearance.
    Category(ColumnId),
    /// A parameter fixed for the whole config.
    Fixed(Option<f64>),
}

/// A point's values over its replications (their mean is drawn, their interval is
/// summary.csv's).
#[derive(Debug, Clone)]
struct Acc {
    x: f64,
    values: Vec<f64>,
}

impl Acc {
    fn mean(&self) -> f64 {
        self.values.iter().sum::<f64>() / self.values.len() as f64
    }
}

impl ChartData {
    /// Prepares a chart: one series per y metric and per combination of the swept parameters
    /// that x does not tell apart, each point the mean over replications.
    pub fn new(run: &Run<'_>, spec: &ChartSpec) -> ChartData {
        if spec.distribution {
            return ChartData::of_samples(run, spec);
        }
        let config = run.config;
        let on_entities = spec.x == crate::config::ENTITY_X;
        // Entity charts read entities.csv; the rest results.csv. Only rows the `where` keeps.
        let source = match (&run.results.entities, on_entities) {
            (Some(entities), true) => entities,
            _ => &run.results.results,
        };
        // Which points the `where` keeps, decided once per point rather than once per row.
        let keep: Vec<bool> = (0..config.points)
            .map(|p| config.matches(p, &spec.filter))
            .collect();
        let rows: Vec<&Row> = source
            .rows
            .iter()
            .filter(|r| keep.get(source.point(r)) == Some(&true))
            .collect();
        let column = |name: &str| source.column(name);
        // Each row's value index on every axis, from its point (an axis may have no column).
        let coords_of = |row: &Row| config.coordinates(source.point(row));

        let mut categories: Vec<String> = Vec::new();
        let x_source = match column(&spec.x) {
            Some(c) if on_entities || rows.iter().any(|r| matches!(r[c], Cell::Text(_))) => {
                XSource::Category(c)
            }
            Some(c) => XSource::Column(c),
            None => {
                let fixed = config.key_index(&spec.x);
                match fixed.map(|i| &config.base[i]) {
                    Some(v) if v.as_f64().is_none() => {
                        categories.push(crate::results::value_cell(v).to_string());
                        XSource::Fixed(Some(0.0))
                    }
                    Some(v) => XSource::Fixed(v.as_f64()),
                    None => XSource::Fixed(None),
                }
            }
        };
        if let XSource::Category(c) = x_source {
            for r in &rows {
                let text = r[c].to_string();
                if !categories.contains(&text) {
                    categories.push(text);
                }
            }
        }
        let x_of = |row: &Row| match x_source {
            XSource::Column(c) => number(&row[c]),
            XSource::Category(c) => {
                let text = row[c].to_string();
                categories.iter().position(|k| *k == text).map(|i| i as f64)
            }
            XSource::Fixed(x) => x,
        };

        // A swept parameter splits the rows into series only when it is not already told
        // apart by x: two rows with one x but different values of it (sweeping a load with x =
        // the rate it offers draws one line; adding a second axis draws one line per value).
        let row_coords: Vec<Vec<usize>> = rows.iter().map(|r| coords_of(r)).collect();
        let xs: Vec<Option<f64>> = rows.iter().map(|r| x_of(r)).collect();
        let group_axes: Vec<usize> = config
            .axes
            .iter()
            .enumerate()
            .filter(|(_, a)| a.key != spec.x)
            .map(|(i, _)| i)
            .filter(|&axis| {
                // Some x holds rows with two values of this axis: one pass, the first value
                // seen at each x against the rest (rows without an x share one group).
                let mut first: HashMap<Option<u64>, usize> = HashMap::new();
                xs.iter().zip(&row_coords).any(|(x, coords)| {
                    let key = match x {
                        None => None,
                        Some(v) if v.is_nan() => return false,
                        Some(v) => Some(if *v == 0.0 { 0 } else { v.to_bits() }),
                    };
                    *first.entry(key).or_insert(coords[axis]) != coords[axis]
                })
            })
            .collect();
        let mut series = Vec::new();
        // The group key of each data series, for the colour of its theory line.
        let mut data_groups: Vec<(Vec<usize>, usize)> = Vec::new();
        let mut samples = Vec::new();
        let one_y = spec.y.len() == 1;
        for y in &spec.y {
            let Some(y_col) = column(y) else { continue };
            samples.push((
                config.label(y).to_string(),
                rows.iter().filter_map(|r| number(&r[y_col])).collect(),
            ));
            // Groups in order of first appearance, each with its points, found through maps:
            // one pass over the rows however many points there are.
            type Group = (Vec<usize>, Vec<Acc>);
            let mut groups: Vec<Group> = Vec::new();
            let mut group_at: HashMap<Vec<usize>, usize> = HashMap::new();
            let mut point_at: HashMap<(usize, u64), usize> = HashMap::new();
            for (row, coords) in rows.iter().zip(&row_coords) {
                let (Some(x), Some(yv)) = (x_of(row), number(&row[y_col])) else {
                    continue;
                };
                if !drawable(x) || !drawable(yv) || (spec.log_x && x <= 0.0) {
                    continue;
                }
                let key: Vec<usize> = group_axes.iter().map(|&axis| coords[axis]).collect();
                let g = *group_at.entry(key).or_insert_with_key(|key| {
                    groups.push((key.clone(), Vec::new()));
                    groups.len() - 1
                });
                let group = &mut groups[g].1;
                // Replications of one x are averaged into one point (0 and -0 are one x).
                let bits = if x == 0.0 { 0 } else { x.to_bits() };
                match point_at.get(&(g, bits)) {
                    Some(&p) => group[p].values.push(yv),
                    None => {
                        point_at.insert((g, bits), group.len());
                        group.push(Acc {
                            x,
                            values: vec![yv],
                        });
                    }
                }
            }
            for (key, mut points) in groups {
                points.sort_by(|a, b| a.x.total_cmp(&b.x));
                let parts = group_parts(config, &group_axes, &key);
                // One metric: the legend names the group; several: the metric, then the group.
                let label = match (parts.is_empty(), one_y) {
                    (true, _) => config.label(y).to_string(),
                    (false, true) => parts.join(", "),
                    (false, false) => format!("{} ({})", config.label(y), parts.join(", ")),
                };
                let intervals = if spec.look.interval && config.replications > 1 {
                    // The same Student t interval as summary.csv's, by the same function.
                    points
                        .iter()
                        .filter_map(|a| {
                            crate::summary::interval(&a.values, 0.95).map(|(lo, hi)| (a.x, lo, hi))
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                data_groups.push((key.clone(), series.len()));
                series.push(Series {
                    label,
                    reference: false,
                    points: points.iter().map(|a| (a.x, a.mean())).collect(),
                    intervals,
                    color: None,
                });
            }
        }
        // Reference lines: each expression evaluated at every row of results.csv, one line
        // per group of the swept parameters x does not tell apart (as the data's lines).
        if !on_entities {
            for (label, expr) in &spec.y_expr {
                // (the group's coordinates on the grouping axes, its points).
                type Line = (Vec<usize>, Vec<(f64, f64)>);
                let mut groups: Vec<Line> = Vec::new();
                // One reference point per group and x: the first row's.
                let mut seen: std::collections::HashSet<(usize, u64)> =
                    std::collections::HashSet::new();
                // Rows come point by point: each point's values are built once.
                let mut point_values: Option<(usize, Vec<coordsim_model::Value>)> = None;
                for (row, coords) in rows.iter().zip(&row_coords) {
                    let point = source.point(row);
                    if point_values.as_ref().is_none_or(|(p, _)| *p != point) {
                        point_values = Some((point, config.point_values(point)));
                    }
                    let values = &point_values.as_ref().expect("set above").1;
                    let get = |v: crate::config::Var| match v {
                        crate::config::Var::Param(i) => values[i].as_f64(),
                        crate::config::Var::Metric(i) => source
                            .schema
                            .id(ColumnSource::Metric(i))
                            .and_then(|id| number(&row[id])),
                        crate::config::Var::Entity(_) | crate::config::Var::X => None,
                    };
                    if let (Some(x), Some(y)) = (x_of(row), expr.eval(&get)) {
                        let key: Vec<usize> = group_axes.iter().map(|&axis| coords[axis]).collect();
                        let g = match groups.iter().position(|(k, _)| *k == key) {
                            Some(g) => g,
                            None => {
                                groups.push((key, Vec::new()));
                                groups.len() - 1
                            }
                        };
                        let bits = if x == 0.0 { 0 } else { x.to_bits() };
                        if drawable(x) && drawable(y) && seen.insert((g, bits)) {
                            groups[g].1.push((x, y));
                        }
                    }
                }
                for (_, points) in &mut groups {
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                }
                // An expression that does not depend on the grouping parameters draws the
                // same line for every group: one line, without a group in its name.
                if groups.windows(2).all(|w| w[0].1 == w[1].1) {
                    groups.truncate(1);
                }
                let several = groups.len() > 1;
                for (key, points) in groups {
                    let mut name = config.label(label).to_string();
                    if several {
                        name = format!(
                            "{name} ({})",
                            group_parts(config, &group_axes, &key).join(", ")
                        );
                    }
                    let color = several
                        .then(|| data_groups.iter().find(|(k, _)| *k == key).map(|(_, i)| *i))
                        .flatten();
                    series.push(Series {
                        label: name,
                        reference: true,
                        points,
                        intervals: Vec::new(),
                        color,
                    });
                }
            }
        }
        // A fixed y range leaves out what lies beyond it (plotters would draw it flat along
        // the edge, a line that is not there).
        if spec.look.y_min.is_some() || spec.look.y_max.is_some() {
            let lo = spec.look.y_min.unwrap_or(f64::NEG_INFINITY);
            let hi = spec.look.y_max.unwrap_or(f64::INFINITY);
            for s in &mut series {
                s.points.retain(|p| p.1 >= lo && p.1 <= hi);
                s.intervals.retain(|i| i.1 >= lo && i.2 <= hi);
            }
        }
        // A bar chart draws its first MAX_BAR_GROUPS groups (in x order, which for
        // categories is the order they first appear).
        let mut notes = Vec::new();
        if spec.kind == ChartKind::Bar {
            let mut xs: Vec<f64> = series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0))
                .collect();
            xs.sort_by(f64::total_cmp);
            xs.dedup();
            if xs.len() > MAX_BAR_GROUPS {
                let last = xs[MAX_BAR_GROUPS - 1];
                for s in &mut series {
                    s.points.retain(|p| p.0 <= last);
                    s.intervals.retain(|i| i.0 <= last);
                }
                let n = |x: usize| config.locale.number(&x.to_string());
                notes.push(
                    config
                        .text(Text::BarGroupsNote)
                        .replace("{shown}", &n(MAX_BAR_GROUPS))
                        .replace("{total}", &n(xs.len())),
                );
            }
        }
        let fmt = |v: f64| config.locale.number(&round(&v.to_string()));
        let mut marks = Vec::new();
        if let Some(mark) = &spec.mark_x
            && let Some(c) = run.results.results.column(mark)
        {
            let mut values: Vec<f64> = run
                .results
                .results
                .rows
                .iter()
                .filter_map(|r| number(&r[c]))
                .collect();
            values.sort_by(f64::total_cmp);
            values.dedup();
            for v in values.into_iter().take(6) {
                marks.push((v, format!("{} = {}", config.label(mark), fmt(v))));
            }
        }
        let y_label = spec
            .look
            .y_label
            .clone()
            .unwrap_or_else(|| y_labels(config, spec));
        let whole = |name: &str| crate::results::whole_numbers(config, source, name);
        let y_integer = !spec.y.is_empty()
            && spec.y.iter().all(|y| whole(y))
            && spec.y_expr.is_empty()
            && spec.mark_y.is_none_or(|m| m.fract() == 0.0);
        ChartData {
            title: chart_title(config, spec),
            kind: spec.kind,
            x_label: spec.look.x_label.clone().unwrap_or_else(|| {
                if spec.x.is_empty() {
                    y_label.clone()
                } else {
                    config.label(&spec.x).to_string()
                }
            }),
            y_label: if matches!(spec.kind, ChartKind::Cdf | ChartKind::RunsCdf) {
                spec.look
                    .y_label
                    .clone()
                    .unwrap_or_else(|| config.text(Text::RunsFractionAxis).to_string())
            } else {
                y_label
            },
            series,
            marks,
            mark_y: spec.mark_y.map(|y| {
                let name = match spec.y.as_slice() {
                    [one] => config.label(one).to_string(),
                    _ => "y".to_string(),
                };
                (y, format!("{name} = {}", fmt(y)))
            }),
            log_x: spec.log_x && categories.is_empty(),
            samples,
            categories: (!categories.is_empty()).then(|| {
                categories
                    .iter()
                    .map(|c| config.label(c).to_string())
                    .collect()
            }),
            y_integer,
            x_integer: !spec.x.is_empty() && whole(&spec.x),
            locale: config.locale,
            interval_label: config.text(Text::IntervalLegend).to_string(),
            look: spec.look.clone(),
            notes,
        }
    }

    /// A chart of per-request samples: one sample set per point the `where` keeps and per
    /// distribution in `y`, each pooled over the point's replications.
    fn of_samples(run: &Run<'_>, spec: &ChartSpec) -> ChartData {
        let config = run.config;
        let points: Vec<usize> = (0..config.points)
            .filter(|p| config.matches(*p, &spec.filter))
            .collect();
        let mut samples = Vec::new();
        // Each point's pooled samples by (point, name), found once.
        let pooled: HashMap<(usize, &str), &Vec<f64>> = run
            .results
            .distributions
            .iter()
            .map(|(p, n, v)| ((*p, *n), v))
            .collect();
        for y in &spec.y {
            for &point in &points {
                let values = pooled
                    .get(&(point, y.as_str()))
                    .map_or_else(Vec::new, |v| (*v).clone());
                let at = config.point_values(point);
                let parts: Vec<String> = config
                    .axes
                    .iter()
                    .map(|a| config.setting_text(&a.key, &at[a.param]))
                    .collect();
                let label = match (parts.is_empty() || points.len() == 1, spec.y.len() == 1) {
                    (true, _) => config.label(y).to_string(),
                    (false, true) => parts.join(", "),
                    (false, false) => format!("{} ({})", config.label(y), parts.join(", ")),
                };
                samples.push((label, values));
            }
        }
        // Theory curves: each `y_expr` as a function of x at every point, over the samples'
        // range.
        let mut series = Vec::new();
        let all = || {
            samples
                .iter()
                .flat_map(|(_, v)| v.iter().copied())
                .filter(|v| drawable(*v))
        };
        let hi = all().fold(f64::NEG_INFINITY, f64::max);
        let lo = all().fold(f64::INFINITY, f64::min).min(0.0);
        if hi.is_finite() {
            for (label, expr) in &spec.y_expr {
                for &point in &points {
                    let values = config.point_values(point);
                    let first_row = run
                        .results
                        .results
                        .rows
                        .iter()
                        .find(|r| run.results.results.point(r) == point);
                    let curve: Vec<(f64, f64)> = (0..=CURVE_STEPS)
                        .filter_map(|k| {
                            let x = lo + (hi - lo) * k as f64 / CURVE_STEPS as f64;
                            let get = |v: crate::config::Var| match v {
                                crate::config::Var::Param(i) => values[i].as_f64(),
                                crate::config::Var::X => Some(x),
                                crate::config::Var::Metric(i) => first_row.and_then(|row| {
                                    let table = &run.results.results;
                                    table
                                        .schema
                                        .id(ColumnSource::Metric(i))
                                        .and_then(|id| number(&row[id]))
                                }),
                                crate::config::Var::Entity(_) => None,
                            };
                            expr.eval(&get).filter(|y| drawable(*y)).map(|y| (x, y))
                        })
                        .collect();
                    let at: Vec<String> = config
                        .axes
                        .iter()
                        .map(|a| config.setting_text(&a.key, &values[a.param]))
                        .collect();
                    let name = config.label(label).to_string();
                    series.push(Series {
                        label: if points.len() > 1 && !at.is_empty() {
                            format!("{name} ({})", at.join(", "))
                        } else {
                            name
                        },
                        reference: true,
                        points: curve,
                        intervals: Vec::new(),
                        // The colour of this point's samples.
                        color: (points.len() > 1)
                            .then(|| points.iter().position(|p| *p == point).unwrap_or(0)),
                    });
                }
            }
        }
        let x_label = spec
            .look
            .x_label
            .clone()
            .unwrap_or_else(|| y_labels(config, spec));
        let y_text = if spec.kind == ChartKind::Histogram {
            Text::SamplesCountAxis
        } else {
            Text::SamplesFractionAxis
        };
        ChartData {
            title: chart_title(config, spec),
            kind: spec.kind,
            x_label,
            y_label: spec
                .look
                .y_label
                .clone()
                .unwrap_or_else(|| config.text(y_text).to_string()),
            series,
            marks: Vec::new(),
            mark_y: None,
            log_x: spec.log_x,
            samples,
            categories: None,
            y_integer: spec.kind == ChartKind::Histogram,
            x_integer: false,
            locale: config.locale,
            interval_label: config.text(Text::IntervalLegend).to_string(),
            look: spec.look.clone(),
            notes: Vec::new(),
        }
    }

    /// Why the chart has nothing to draw (`None`: it has): its y columns with no value at any
    /// point it draws, or, when they have values, that none of them can be placed.
    pub fn empty(&self, spec: &ChartSpec) -> Option<String> {
        let names = |ys: &[&String]| {
            let quoted: Vec<String> = ys.iter().map(|y| format!("`{y}`")).collect();
            let verb = if ys.len() == 1 { "is" } else { "are" };
            (quoted.join(", "), verb)
        };
        let values = |v: &[f64]| v.iter().any(|x| drawable(*x));
        if spec.distribution || matches!(self.kind, ChartKind::Cdf | ChartKind::RunsCdf) {
            if self.samples.iter().any(|(_, v)| values(v)) {
                return None;
            }
            let all: Vec<&String> = spec.y.iter().collect();
            let (list, _) = names(&all);
            return Some(if spec.distribution {
                format!(
                    "{list} has no samples at any point it draws (a warm-up as long as the run leaves none)"
                )
            } else {
                format!("{list} is empty in every run it draws")
            });
        }
        if self
            .series
            .iter()
            .any(|se| !se.reference && !se.points.is_empty())
        {
            return None;
        }
        // `samples` holds each y column's numbers over the rows kept, in `y` order.
        let empty: Vec<&String> = spec
            .y
            .iter()
            .zip(&self.samples)
            .filter(|(_, (_, v))| !values(v))
            .map(|(y, _)| y)
            .collect();
        Some(if empty.len() == spec.y.len() {
            let (list, verb) = names(&empty);
            format!("{list} {verb} empty at every point it draws")
        } else {
            format!(
                "no value of {} has an x (`{}`) it can be drawn at{}",
                names(&spec.y.iter().collect::<Vec<_>>()).0,
                spec.x,
                if self.look.y_min.is_some() || self.look.y_max.is_some() {
                    " inside y_min … y_max"
                } else {
                    ""
                }
            )
        })
    }

    /// The text under x: the category's name, or the number.
    pub fn x_text(&self, x: f64) -> String {
        match &self.categories {
            Some(names) => {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    names.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            }
            None => tick(x, self.locale),
        }
    }

    /// A y tick's text: a number in the locale; with whole-number metrics, only whole ticks.
    pub fn y_text(&self, v: f64) -> String {
        if self.look.log_y {
            // Decades only: 0.1, 1, 10, 100.
            if (v - v.round()).abs() > 1e-6 {
                return String::new();
            }
            return tick(10f64.powf(v.round()), self.locale);
        }
        if self.y_integer && (v - v.round()).abs() > 1e-9 {
            return String::new();
        }
        tick(v, self.locale)
    }

    /// Every y value drawn: points, interval ends, the horizontal marker.
    pub fn y_values(&self) -> impl Iterator<Item = f64> + '_ {
        self.series
            .iter()
            .flat_map(|s| {
                s.points
                    .iter()
                    .map(|p| p.1)
                    .chain(s.intervals.iter().flat_map(|i| [i.1, i.2]))
            })
            .chain(self.mark_y.as_ref().map(|m| m.0))
    }

    /// The y axis with `headroom` (a fraction of the span) above the data, honouring the
    /// chart's `y_min` / `y_max` and `log_y` (in log10 units then).
    pub fn y_axis(&self, headroom: f64) -> std::ops::Range<f64> {
        axis_range(self.y_values(), &self.look, headroom)
    }
}

/// The y axis over `values` for a chart's look: from 0 when every value is ≥ 0 (linear),
/// `headroom` of the span above, `y_min` / `y_max` when given; in log10 units with `log_y`.
pub fn axis_range(
    values: impl Iterator<Item = f64>,
    look: &Look,
    headroom: f64,
) -> std::ops::Range<f64> {
    if look.log_y {
        let logs = values.filter(|v| *v > 0.0).map(f64::log10);
        let (lo, hi) = bounds(logs).unwrap_or((0.0, 1.0));
        let lo = look.y_min.map_or(lo.floor(), f64::log10);
        let hi = look.y_max.map_or(hi, f64::log10);
        let hi = if hi <= lo {
            lo + 1.0
        } else {
            hi + (hi - lo) * headroom
        };
        let hi = look.y_max.map_or(hi, f64::log10);
        return lo..hi.max(lo + 1e-9);
    }
    let auto = y_range(values, headroom);
    let lo = look.y_min.unwrap_or(auto.start);
    let hi = look.y_max.unwrap_or(auto.end.max(lo + 1.0));
    lo..hi.max(lo + 1e-9)
}

/// A readable axis number in the locale (a power of ten from 1e15 up: `1.8e20`).
pub fn tick(v: f64, locale: Locale) -> String {
    if v.abs() >= 1e15 && v.is_finite() {
        let text = format!("{v:.1e}").replace(".0e", "e");
        return match locale {
            Locale::En => text,
            Locale::Tr => text.replace('.', ","),
        };
    }
    // Ticks a hair off a round number (0.30000000000000004) read as the round number.
    let v = if (v - v.round()).abs() < 1e-9 * v.abs().max(1.0) {
        v.round()
    } else {
        v
    };
    locale.number(&round(&v.to_string()))
}

/// The title, wrapped (or shrunk) to the width, drawn on top of `root`; returns the area
/// under it.
pub fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    s: Scale,
) -> DrawResult<DrawingArea<DB, Shift>>
where
    DB::ErrorType: 'static,
{
    let (w, _) = root.dim_in_pixel();
    let (lines, size) = layout::fit(
        root,
        title,
        w.saturating_sub(s.px(48)),
        s.px(28),
        s.px(15),
        2,
    );
    let line_h = size as i32 * 5 / 4;
    let top = s.off(14);
    let style = (FONT, size)
        .into_font()
        .color(&BLACK)
        .pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ));
    for (k, line) in lines.iter().enumerate() {
        root.draw_text(line, &style, (w as i32 / 2, top + line_h * k as i32))?;
    }
    let used = top + line_h * lines.len() as i32 + s.off(6);
    Ok(root.split_vertically(used).1)
}

/// What a chart does not draw as given (lanes or bars past a cap, thinned marks, merged
/// spans), as one small grey line under the title, fitted to the width; returns the area
/// under it (the area itself when there is nothing to say).
pub fn noted<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    notes: &[String],
    s: Scale,
) -> DrawResult<DrawingArea<DB, Shift>>
where
    DB::ErrorType: 'static,
{
    if notes.is_empty() {
        return Ok(area.clone());
    }
    let (w, _) = area.dim_in_pixel();
    let text = notes.join("; ");
    let (lines, size) = layout::fit(
        area,
        &text,
        w.saturating_sub(s.px(48)),
        s.px(15),
        s.px(11),
        1,
    );
    let style = (FONT, size).into_font().color(&RGBColor(90, 90, 90)).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ),
    );
    if let Some(line) = lines.first() {
        area.draw_text(line, &style, (w as i32 / 2, 0))?;
    }
    Ok(area.split_vertically(size as i32 * 5 / 4 + s.off(4)).1)
}

/// Axis titles fitted to the plot: shrunk (then cut) rather than clipped.
pub struct AxisTitles {
    /// x title and its font size.
    pub x: (String, u32),
    /// y title and its font size.
    pub y: (String, u32),
}

/// Fits the axis titles to an area of this size.
pub fn axis_titles<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    x: &str,
    y: &str,
    s: Scale,
) -> AxisTitles {
    let (w, h) = area.dim_in_pixel();
    let fit = |text: &str, room: u32| {
        let (lines, size) = layout::fit(area, text, room, s.px(21), s.px(12), 1);
        (lines.into_iter().next().unwrap_or_default(), size)
    };
    AxisTitles {
        x: fit(x, w.saturating_sub(s.px(150))),
        y: fit(y, h.saturating_sub(s.px(110))),
    }
}

/// Builds the plot on `body` (below the title) with the legend placed as `look.legend`
/// says: for `best`, the y axis grows (up to doubling its headroom) until a spot inside
/// covers no data, else the legend goes outside. `y_for` gives the y range for a headroom;
/// `obstacles` finds the data in pixels on a built plot (only `best` and the corners ask).
#[allow(clippy::too_many_arguments)]
pub fn compose<'a, DB: DrawingBackend>(
    body: &DrawingArea<DB, Shift>,
    look: &Look,
    entries: &[Entry],
    s: Scale,
    x: std::ops::Range<f64>,
    y_for: &dyn Fn(f64) -> std::ops::Range<f64>,
    obstacles: &dyn Fn(&Chart2d<'a, DB>) -> Obstacles,
    label_area: (u32, u32),
) -> DrawResult<(Chart2d<'a, DB>, Option<Rect>)>
where
    DB::ErrorType: 'static,
{
    let x = sane_axis(x);
    let build =
        |area: &DrawingArea<DB, Shift>, y: std::ops::Range<f64>| -> DrawResult<Chart2d<'a, DB>> {
            Ok(ChartBuilder::on(area)
                .margin(s.px(18))
                .x_label_area_size(label_area.0)
                .y_label_area_size(label_area.1)
                .build_cartesian_2d(x.clone(), sane_axis(y))?)
        };
    let plot_rect = |chart: &Chart2d<'a, DB>| {
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        Rect {
            x0: xr.start,
            y0: yr.start,
            x1: xr.end,
            y1: yr.end,
        }
    };
    let size = layout::legend_size(body, entries, s);
    let outside = |body: &DrawingArea<DB, Shift>| -> DrawResult<(Chart2d<'a, DB>, Option<Rect>)> {
        let (w, _) = body.dim_in_pixel();
        let (left, _) = body.split_horizontally(w as i32 - size.0 - s.off(12));
        let chart = build(&left, y_for(0.04))?;
        let plot = plot_rect(&chart);
        let x0 = plot.x1 + s.off(24);
        // Right of the plot, level with its top.
        let r = Rect {
            x0,
            y0: plot.y0,
            x1: x0 + size.0,
            y1: plot.y0 + size.1,
        };
        Ok((chart, Some(r)))
    };
    if entries.is_empty() || look.legend == LegendPlace::None {
        return Ok((build(body, y_for(0.04))?, None));
    }
    match look.legend {
        LegendPlace::Outside => outside(body),
        LegendPlace::Best => {
            // Headroom above the data, growing while no spot is free (a fixed y_max fixes it).
            let steps: &[f64] = if look.y_max.is_some() {
                &[0.04]
            } else {
                &[0.04, 0.15, 0.3, 0.5, 0.75, 1.0]
            };
            for &headroom in steps {
                let chart = build(body, y_for(headroom))?;
                let obs = obstacles(&chart);
                if let Some(r) = layout::place(plot_rect(&chart), size, LegendPlace::Best, &obs, s)
                {
                    return Ok((chart, Some(r)));
                }
            }
            outside(body)
        }
        corner => {
            let chart = build(body, y_for(0.04))?;
            let obs = obstacles(&chart);
            match layout::place(plot_rect(&chart), size, corner, &obs, s) {
                Some(r) => Ok((chart, Some(r))),
                None => outside(body),
            }
        }
    }
}

/// The legend entries of a chart's horizontal marker.
pub fn mark_y_entry(data: &ChartData) -> Option<Entry> {
    data.mark_y.as_ref().map(|(_, label)| Entry {
        label: label.clone(),
        swatch: layout::Swatch::Line {
            color: MARK_RED,
            width: 2,
            dashed: true,
            marker: None,
        },
    })
}

/// The colour of a horizontal marker line.
pub const MARK_RED: RGBColor = RGBColor(190, 30, 45);

/// Draws the horizontal marker, if any, across the x range.
pub fn draw_mark_y<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    data: &ChartData,
    x_range: std::ops::Range<f64>,
    s: Scale,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    if let Some((y, _)) = &data.mark_y {
        let y = if data.look.log_y { y.log10() } else { *y };
        chart.draw_series(DashedLineSeries::new(
            vec![(x_range.start, y), (x_range.end, y)],
            s.px(10),
            s.px(6),
            MARK_RED.stroke_width(s.px(2)),
        ))?;
    }
    Ok(())
}

/// The smallest and largest of `values` (`None` when there are none).
fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
    })
}

/// The y range covering `values`, from 0 when all are ≥ 0, with `headroom` (a fraction of the
/// span) above, where the legend goes.
pub fn y_range(values: impl Iterator<Item = f64>, headroom: f64) -> std::ops::Range<f64> {
    let Some((lo, hi)) = bounds(values.filter(|v| drawable(*v))) else {
        return 0.0..1.0;
    };
    let lo = lo.min(0.0);
    let hi = if hi <= lo {
        lo + 1.0
    } else {
        hi + (hi - lo) * headroom
    };
    lo..hi
}

/// The x range covering `values`, padded a little on both sides, never below 0 when no
/// value is (a time or a count axis starts at 0, not at −4%).
pub fn x_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let Some((lo, hi)) = bounds(values.filter(|v| drawable(*v))) else {
        return 0.0..1.0;
    };
    if hi <= lo {
        let lo2 = if lo >= 0.0 {
            (lo - 1.0).max(0.0)
        } else {
            lo - 1.0
        };
        return lo2..(hi + 1.0);
    }
    let pad = (hi - lo) * 0.04;
    let start = if lo >= 0.0 {
        (lo - pad).max(0.0)
    } else {
        lo - pad
    };
    start..(hi + pad)
}

/// Ticks for an axis of whole numbers: at most `max` labels, every one at an integer.
pub fn integer_labels(range: &std::ops::Range<f64>, max: usize) -> usize {
    let span = (range.end - range.start).floor().max(0.0) as usize;
    (span + 1).clamp(2, max)
}

/// Ticks for a log axis (in log10 units): every half decade, so the decades get labels.
pub fn log_labels(range: &std::ops::Range<f64>) -> usize {
    let span = (range.end - range.start).ceil().max(1.0) as usize;
    (2 * span + 1).clamp(3, 41)
}

/// A group of series as readers see it: each grouping axis's setting at `key`
/// (`istemci = 8`, `korumasız`).
fn group_parts(config: &crate::config::Config, group_axes: &[usize], key: &[usize]) -> Vec<String> {
    group_axes
        .iter()
        .zip(key)
        .map(|(&axis, &coord)| {
            let axis = &config.axes[axis];
            config.setting_text(&axis.key, &axis.values[coord])
        })
        .collect()
}

/// The last step of every chart kind: the legend drawn where `compose` put it, and what it
/// had to avoid (a legend outside the plot is reported as none inside).
pub fn finish<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart2d<'_, DB>,
    legend: Option<Rect>,
    entries: &[Entry],
    look: &Look,
    s: Scale,
) -> DrawResult<Placed>
where
    DB::ErrorType: 'static,
{
    if let Some(r) = legend.filter(|_| look.legend_box) {
        layout::draw_legend(root, r, entries, s)?;
    }
    let (xr, _) = chart.plotting_area().get_pixel_range();
    Ok(Placed {
        legend: legend.filter(|r| r.x1 <= xr.end),
    })
}

/// A data point in backend pixels on a built plot.
pub fn px<DB: DrawingBackend>(chart: &Chart2d<'_, DB>, p: (f64, f64)) -> (i32, i32) {
    chart.backend_coord(&p)
}

/// A chart's title: its own (placeholders filled at the first point it draws, where they
/// have their one value), or the config's.
fn chart_title(config: &crate::config::Config, spec: &ChartSpec) -> String {
    if spec.title.is_empty() {
        return config.title.clone();
    }
    let point = (0..config.points)
        .find(|p| config.matches(*p, &spec.filter))
        .unwrap_or(0);
    let values = config.point_values(point);
    crate::config::charts::fill_title(&spec.title, config, &values, "")
}

/// The labels of a chart's y columns, joined: the default name of their axis.
fn y_labels(config: &crate::config::Config, spec: &ChartSpec) -> String {
    spec.y
        .iter()
        .map(|y| config.label(y))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_axis_plotters_gets_is_finite_with_a_span() {
        // 1.79e308 plus 4% headroom is infinite; plotters' tick search never ends on it.
        let hi = 1.79e308;
        assert_eq!(sane_axis(0.0..hi + hi * 0.04), 0.0..1.0);
        assert_eq!(sane_axis(-f64::MAX..f64::MAX), 0.0..1.0);
        assert_eq!(sane_axis(f64::NAN..1.0), 0.0..1.0);
        assert_eq!(sane_axis(2.0..2.0), 0.0..1.0);
        // A span of 1e5 at 1e20 (ulp 16,384) is widened by a billionth of the size, 1e11,
        // on each side.
        let r = sane_axis(1e20..1e20 + 1e5);
        assert_eq!((r.start, r.end), (1e20 - 1e11, 1e20 + 1e5 + 1e11));
        assert_eq!(sane_axis(0.0..250.0), 0.0..250.0);
        // What is drawn at all: values past 1e300 are left out like infinite ones.
        assert!(drawable(1e300) && !drawable(1.0001e300) && !drawable(f64::INFINITY));
    }

    #[test]
    fn huge_ticks_read_as_powers_of_ten() {
        assert_eq!(tick(5e299, Locale::En), "5e299");
        assert_eq!(tick(1.5e15, Locale::Tr), "1,5e15");
        assert_eq!(tick(2500.0, Locale::En), "2,500");
    }

    #[test]
    fn a_timeline_over_budget_thins_every_lane_alike_to_fit() {
        // 10 lanes of 300 marks of one kind: 3,000 items. A budget of 1,000 allows 100 a
        // lane; halving 300 gives 150, then 75 (stride 4) ≤ 100: 750 items in all.
        let mut lanes: Vec<coordsim_model::Lane> = (0..10)
            .map(|i| {
                let mut l = coordsim_model::Lane::new(i.to_string());
                l.mark_series("tick", 0.0, 1.0, 300);
                l
            })
            .collect();
        fit_budget(&mut lanes, 1000);
        assert!(lanes.iter().all(|l| l.marks().len() == 75));
        // Within budget, nothing changes.
        let before = lanes.clone();
        fit_budget(&mut lanes, 1000);
        assert_eq!(lanes, before);
    }

    #[test]
    fn the_time_axis_shows_an_instant_and_a_margin_before_it() {
        // All at 0: at least 1 ms wide, and 3% of it before 0.
        let r = timeline::time_axis(0.0, 0.0);
        assert_eq!((r.start, r.end), (-0.03, 1.0));
        // 0 … 500: 15 before, 40 after (a span that never ends runs into it).
        let r = timeline::time_axis(0.0, 500.0);
        assert_eq!((r.start, r.end), (-15.0, 540.0));
    }
}
