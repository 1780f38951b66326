//! Charts as SVG and PNG, drawn with plotters and an embedded font (DejaVu Sans), so text
//! renders the same on a machine with no font libraries. One chart kind per file.

mod bar;
mod cdf;
mod line;
mod timeline;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Once;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

use super::{Exporter, Run, temp_path, write_atomic};
use crate::config::{ChartKind, ChartSpec};
use crate::export::markdown::round;
use coordsim_model::Cell;

use crate::results::{ColumnId, ColumnSource, Row, number};

/// Pixel size of every chart.
pub const SIZE: (u32, u32) = (1000, 620);
/// The font family charts use (registered from the embedded file).
pub const FONT: &str = "sans-serif";

/// DejaVu Sans (Bitstream Vera licence, see assets/fonts): covers Turkish and Greek letters.
static FONT_BYTES: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

type DrawResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// Writes one SVG and one PNG per chart.
pub struct ChartExporter;

impl Exporter for ChartExporter {
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<()> {
        register_embedded_font()?;
        for spec in &run.config.charts {
            if spec.kind == ChartKind::Timeline {
                for (name, timeline) in timelines(run, spec) {
                    write_chart(
                        dir,
                        &name,
                        |area| timeline::draw(&area, &timeline),
                        |area| timeline::draw(&area, &timeline),
                    )?;
                }
                continue;
            }
            let data = ChartData::new(run, spec);
            write_chart(
                dir,
                &spec.name,
                |area| draw(area, &data),
                |area| draw(area, &data),
            )?;
        }
        Ok(())
    }
}

/// Renders one chart as `name.svg` and `name.png` (each drawing closure gets its backend).
fn write_chart(
    dir: &Path,
    name: &str,
    svg_draw: impl FnOnce(DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> DrawResult,
    png_draw: impl FnOnce(DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>) -> DrawResult,
) -> anyhow::Result<()> {
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        area.fill(&WHITE)
            .map_err(|e| anyhow::anyhow!("chart {name}: {e}"))?;
        svg_draw(area.clone()).map_err(|e| anyhow::anyhow!("chart {name}: {e}"))?;
        area.present()
            .map_err(|e| anyhow::anyhow!("chart {name}: {e}"))?;
    }
    write_atomic(&dir.join(format!("{name}.svg")), svg.as_bytes())?;
    let png = dir.join(format!("{name}.png"));
    let tmp = temp_path(&png);
    {
        let area = BitMapBackend::new(&tmp, SIZE).into_drawing_area();
        area.fill(&WHITE)
            .map_err(|e| anyhow::anyhow!("chart {name}: {e}"))?;
        png_draw(area.clone()).map_err(|e| anyhow::anyhow!("chart {name}: {e}"))?;
        area.present()
            .map_err(|e| anyhow::anyhow!("chart {name}: {e}"))?;
    }
    std::fs::rename(&tmp, &png)?;
    Ok(())
}

/// One timeline per point the chart's `where` keeps (file `name`, or `name-p<point>` when
/// several points match), drawn from the lanes of that point's first replication.
fn timelines(run: &Run<'_>, spec: &ChartSpec) -> Vec<(String, timeline::Timeline)> {
    let config = run.config;
    let Some(style) = config.model.timeline() else {
        return Vec::new();
    };
    let points: Vec<&(usize, Vec<coordsim_model::Lane>)> = run
        .results
        .lanes
        .iter()
        .filter(|(p, _)| config.matches(*p, &spec.filter))
        .collect();
    points
        .iter()
        .map(|(point, lanes)| {
            let values = config.point_values(*point);
            let swept: Vec<String> = config
                .axes
                .iter()
                .map(|a| format!("{} = {}", config.label(&a.key), values[a.param]))
                .collect();
            let title = if swept.is_empty() {
                config.title.clone()
            } else {
                format!("{} ({})", config.title, swept.join(", "))
            };
            let name = if points.len() > 1 {
                format!("{}-p{point}", spec.name)
            } else {
                spec.name.clone()
            };
            let timeline = timeline::Timeline {
                title,
                lanes: lanes.clone(),
                style,
            };
            (name, timeline)
        })
        .collect()
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

fn draw<DB: DrawingBackend>(
    area: DrawingArea<DB, plotters::coord::Shift>,
    data: &ChartData,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    match data.kind {
        ChartKind::Line => line::draw(&area, data)?,
        ChartKind::Bar => bar::draw(&area, data)?,
        ChartKind::Cdf => cdf::draw(&area, data)?,
        ChartKind::Timeline => return Err("a timeline is drawn from entity rows".into()),
    }
    Ok(())
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
}

/// How a row gives its x value.
enum XSource {
    /// A numeric column of the table.
    Column(ColumnId),
    /// A column holding categories (text), numbered in order of first appearance.
    Category(ColumnId),
    /// A parameter fixed for the whole config.
    Fixed(Option<f64>),
}

impl ChartData {
    /// Prepares a chart: one series per y metric and per combination of the swept parameters
    /// that x does not tell apart, each point the mean over replications.
    pub fn new(run: &Run<'_>, spec: &ChartSpec) -> ChartData {
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
        let mut samples = Vec::new();
        for y in &spec.y {
            let Some(y_col) = column(y) else { continue };
            samples.push((
                config.label(y).to_string(),
                rows.iter().filter_map(|r| number(&r[y_col])).collect(),
            ));
            // (values of the grouping axes, [(x, sum of y, count)]).
            // Groups in order of first appearance, each with its points (x, sum of y, count),
            // found through maps: one pass over the rows however many points there are.
            type Group = (Vec<usize>, Vec<(f64, f64, usize)>);
            let mut groups: Vec<Group> = Vec::new();
            let mut group_at: HashMap<Vec<usize>, usize> = HashMap::new();
            let mut point_at: HashMap<(usize, u64), usize> = HashMap::new();
            for (row, coords) in rows.iter().zip(&row_coords) {
                let (Some(x), Some(yv)) = (x_of(row), number(&row[y_col])) else {
                    continue;
                };
                if !x.is_finite() || !yv.is_finite() || (spec.log_x && x <= 0.0) {
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
                    Some(&p) => {
                        group[p].1 += yv;
                        group[p].2 += 1;
                    }
                    None => {
                        point_at.insert((g, bits), group.len());
                        group.push((x, yv, 1));
                    }
                }
            }
            for (key, mut points) in groups {
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                let mut label = config.label(y).to_string();
                if !key.is_empty() {
                    let parts: Vec<String> = group_axes
                        .iter()
                        .zip(&key)
                        .map(|(&axis, &coord)| {
                            let axis = &config.axes[axis];
                            let v = crate::results::value_cell(&axis.values[coord]);
                            format!("{} = {v}", config.label(&axis.key))
                        })
                        .collect();
                    label = format!("{label} ({})", parts.join(", "));
                }
                series.push(Series {
                    label,
                    reference: false,
                    points: points
                        .into_iter()
                        .map(|(x, s, n)| (x, s / n as f64))
                        .collect(),
                });
            }
        }
        // Reference lines: each expression evaluated at every row of results.csv.
        if !on_entities {
            for (label, expr) in &spec.y_expr {
                let mut points: Vec<(f64, f64)> = Vec::new();
                // One reference point per x: the first row's.
                let mut seen: std::collections::HashSet<u64> = std::collections::HashSet::new();
                // Rows come point by point: each point's values are built once.
                let mut point_values: Option<(usize, Vec<coordsim_model::Value>)> = None;
                for row in &rows {
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
                        crate::config::Var::Entity(_) => None,
                    };
                    if let (Some(x), Some(y)) = (x_of(row), expr.eval(&get)) {
                        let bits = if x == 0.0 { 0 } else { x.to_bits() };
                        if x.is_finite() && y.is_finite() && seen.insert(bits) {
                            points.push((x, y));
                        }
                    }
                }
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                series.push(Series {
                    label: label.clone(),
                    reference: true,
                    points,
                });
            }
        }
        let mut marks = Vec::new();
        if let Some(mark) = &spec.mark_x {
            if let Some(c) = run.results.results.column(mark) {
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
                    marks.push((
                        v,
                        format!("{} = {}", config.label(mark), round(&v.to_string())),
                    ));
                }
            }
        }
        let y_label = spec
            .y
            .iter()
            .map(|y| config.label(y))
            .collect::<Vec<_>>()
            .join(", ");
        ChartData {
            title: config.title.clone(),
            kind: spec.kind,
            x_label: if spec.x.is_empty() {
                y_label.clone()
            } else {
                config.label(&spec.x).to_string()
            },
            y_label,
            series,
            marks,
            mark_y: spec.mark_y.map(|y| {
                let name = match spec.y.as_slice() {
                    [one] => config.label(one).to_string(),
                    _ => "y".to_string(),
                };
                (y, format!("{name} = {}", round(&y.to_string())))
            }),
            log_x: spec.log_x && categories.is_empty(),
            samples,
            categories: (!categories.is_empty()).then_some(categories),
        }
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
            None => tick(x),
        }
    }
}

/// A readable axis number.
pub fn tick(v: f64) -> String {
    round(&v.to_string())
}

/// The colour of series `i`: a fixed, colour-blind-friendly cycle (Okabe–Ito).
pub fn color(i: usize) -> RGBColor {
    const COLORS: [RGBColor; 7] = [
        RGBColor(0, 114, 178),
        RGBColor(213, 94, 0),
        RGBColor(0, 158, 115),
        RGBColor(204, 121, 167),
        RGBColor(230, 159, 0),
        RGBColor(86, 180, 233),
        RGBColor(0, 0, 0),
    ];
    COLORS[i % COLORS.len()]
}

/// The plotting frame every chart kind shares: title, margins and axis label areas, over
/// the given x and y ranges.
pub fn frame<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
) -> Result<
    ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    Box<dyn std::error::Error + Send + Sync>,
>
where
    DB::ErrorType: 'static,
{
    Ok(ChartBuilder::on(area)
        .caption(title, (FONT, 28))
        .margin(24)
        .x_label_area_size(64)
        .y_label_area_size(90)
        .build_cartesian_2d(x, y)?)
}

impl ChartData {
    /// The y range of the series and the horizontal marker, with `headroom` for the legend.
    pub fn y_span(&self, headroom: f64) -> std::ops::Range<f64> {
        y_range(
            self.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .chain(self.mark_y.as_ref().map(|m| m.0)),
            headroom,
        )
    }
}

/// Draws the legend box of every chart kind, in one style.
pub fn draw_legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    position: SeriesLabelPosition,
    font_size: u32,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.88))
        .border_style(RGBColor(160, 160, 160))
        .label_font((FONT, font_size))
        .draw()?;
    Ok(())
}

/// Draws the horizontal marker, if any, across the x range.
pub fn draw_mark_y<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    data: &ChartData,
    x_range: std::ops::Range<f64>,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    if let Some((y, label)) = &data.mark_y {
        let red = RGBColor(190, 30, 45);
        chart
            .draw_series(DashedLineSeries::new(
                vec![(x_range.start, *y), (x_range.end, *y)],
                10,
                6,
                red.stroke_width(2),
            ))?
            .label(label)
            .legend(move |(lx, ly)| {
                PathElement::new(vec![(lx, ly), (lx + 24, ly)], red.stroke_width(2))
            });
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
    let Some((lo, hi)) = bounds(values) else {
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

/// The x range covering `values`, padded a little on both sides.
pub fn x_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let Some((lo, hi)) = bounds(values) else {
        return 0.0..1.0;
    };
    if hi <= lo {
        return (lo - 1.0)..(hi + 1.0);
    }
    let pad = (hi - lo) * 0.04;
    (lo - pad)..(hi + pad)
}
