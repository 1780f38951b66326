//! The data of a line, bar, cdf or histogram chart, gathered from a run's rows: its series,
//! axes, reference lines and marks.

use super::base::Chart2d;
use super::base::DrawResult;
use super::base::drawable;
use super::frame::MARK_RED;
use super::frame::axis_range;
use super::frame::tick;
use super::layout::{Entry, Scale};
use crate::config::charts::Look;
use crate::config::{ChartKind, ChartSpec};
use crate::export::Run;
use crate::locale::{Locale, Text};
use crate::results::{ColumnId, ColumnSource, Row, number};
use coordsim_model::Cell;
use plotters::prelude::*;
use std::collections::HashMap;

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
    pub(crate) intervals: Vec<(f64, f64, f64)>,
    /// The palette index to draw it in (`None`: its place among the series). A theory line
    /// takes the colour of the data it is theory for.
    pub(crate) color: Option<usize>,
}

/// What a chart draws, prepared from the rows.
#[derive(Debug, Clone)]
pub struct ChartData {
    /// Chart title.
    pub(crate) title: String,
    /// Kind.
    pub(crate) kind: ChartKind,
    /// x axis label.
    pub(crate) x_label: String,
    /// y axis label.
    pub(crate) y_label: String,
    /// Series.
    pub series: Vec<Series>,
    /// Vertical markers: (x, legend text).
    pub(crate) marks: Vec<(f64, String)>,
    /// A horizontal marker: (y, legend text).
    pub(crate) mark_y: Option<(f64, String)>,
    /// Log-scale x.
    pub(crate) log_x: bool,
    /// Raw values per y metric (for `cdf`).
    pub(crate) samples: Vec<(String, Vec<f64>)>,
    /// For a categorical x (a string parameter, or the entity): the category of x = i.
    pub(crate) categories: Option<Vec<String>>,
    /// Every y metric holds whole numbers: ticks only at integers.
    pub(crate) y_integer: bool,
    /// The x values are whole numbers (a count parameter or metric).
    pub(crate) x_integer: bool,
    /// How numbers are written.
    pub(crate) locale: Locale,
    /// The legend text of a 95% interval.
    pub(crate) interval_label: String,
    /// The chart's look (axis range, legend place, size).
    pub(crate) look: Look,
    /// What it does not draw as given (bar groups past the cap), in the config's locale:
    /// legend lines of their own.
    pub(crate) notes: Vec<String>,
}

/// Most bar groups a bar chart draws: the first ones (an entity chart of 20,000 appliers
/// would be 13 MB of SVG and bars thinner than a pixel); the chart says so.
pub(crate) const MAX_BAR_GROUPS: usize = 500;

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

/// The rows a line or bar chart draws, with each row's x and its coordinates on the axes,
/// and the swept axes that split the rows into series.
struct Selected<'r> {
    source: &'r crate::results::Table,
    rows: Vec<&'r Row>,
    /// Each row's value index on every axis, from its point.
    coords: Vec<Vec<usize>>,
    /// Each row's x (`None`: it has none).
    xs: Vec<Option<f64>>,
    /// For a text x: the categories, in order of first appearance (x = their index).
    categories: Vec<String>,
    /// The swept axes x does not tell apart: one series per combination of their values.
    group_axes: Vec<usize>,
}

impl<'r> Selected<'r> {
    /// The rows the chart's `where` keeps (entity rows for an entity chart), with their x.
    fn new(run: &'r Run<'_>, spec: &ChartSpec) -> Selected<'r> {
        let config = run.config;
        let on_entities = spec.x == crate::config::ENTITY_X;
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
        let mut categories: Vec<String> = Vec::new();
        let x_source = match source.column(&spec.x) {
            Some(c) if on_entities || rows.iter().any(|r| matches!(r[c], Cell::Text(_))) => {
                XSource::Category(c)
            }
            Some(c) => XSource::Column(c),
            None => match config.key_index(&spec.x).map(|i| &config.base[i]) {
                Some(v) if v.as_f64().is_none() => {
                    categories.push(crate::format::value_cell(v).to_string());
                    XSource::Fixed(Some(0.0))
                }
                Some(v) => XSource::Fixed(v.as_f64()),
                None => XSource::Fixed(None),
            },
        };
        // Each category's number, found through a map: 100,000 entities cost one pass,
        // not a search of the categories per row.
        let mut category_at: HashMap<String, usize> = HashMap::new();
        let xs: Vec<Option<f64>> = rows
            .iter()
            .map(|row| match x_source {
                XSource::Column(c) => number(&row[c]),
                XSource::Category(c) => {
                    let text = row[c].to_string();
                    let i = *category_at.entry(text).or_insert_with_key(|text| {
                        categories.push(text.clone());
                        categories.len() - 1
                    });
                    Some(i as f64)
                }
                XSource::Fixed(x) => x,
            })
            .collect();
        let coords: Vec<Vec<usize>> = rows
            .iter()
            .map(|r| config.coordinates(source.point(r)))
            .collect();
        let group_axes = grouping_axes(config, spec, &xs, &coords);
        Selected {
            source,
            rows,
            coords,
            xs,
            categories,
            group_axes,
        }
    }

    /// Row `i`'s coordinates on the grouping axes: its series' key.
    fn key(&self, i: usize) -> Vec<usize> {
        self.group_axes
            .iter()
            .map(|&axis| self.coords[i][axis])
            .collect()
    }
}

/// A swept parameter splits the rows into series only when x does not already tell it apart:
/// two rows with one x but different values of it (sweeping a load with x = the rate it
/// offers draws one line; adding a second axis draws one line per value).
fn grouping_axes(
    config: &crate::config::Config,
    spec: &ChartSpec,
    xs: &[Option<f64>],
    coords: &[Vec<usize>],
) -> Vec<usize> {
    config
        .axes
        .iter()
        .enumerate()
        .filter(|(_, a)| a.key != spec.x)
        .map(|(i, _)| i)
        .filter(|&axis| {
            // Some x holds rows with two values of this axis: one pass, the first value seen
            // at each x against the rest (rows without an x share one group).
            let mut first: HashMap<Option<u64>, usize> = HashMap::new();
            xs.iter().zip(coords).any(|(x, coords)| {
                let key = match x {
                    None => None,
                    Some(v) if v.is_nan() => return false,
                    Some(v) => Some(if *v == 0.0 { 0 } else { v.to_bits() }),
                };
                *first.entry(key).or_insert(coords[axis]) != coords[axis]
            })
        })
        .collect()
}

/// `x` as a key: 0 and -0 are one x.
fn x_bits(x: f64) -> u64 {
    if x == 0.0 { 0 } else { x.to_bits() }
}

/// The data series, each one's group key, each y metric's raw values, and how many points
/// a log axis left out.
type DataSeries = (
    Vec<Series>,
    Vec<(Vec<usize>, usize)>,
    Vec<(String, Vec<f64>)>,
    usize,
);

/// The data series: one per y metric and group, each point the mean over replications (with
/// its 95% interval when asked); also each series' group key (for the colour of its theory
/// line) and each metric's raw values. A log axis has no place for 0 or less: a point whose
/// x (`log_x`) or mean (`log_y`) is not above 0 is left out, after averaging (so a zero
/// replication still pulls its point's mean down), and counted.
fn data_series(config: &crate::config::Config, spec: &ChartSpec, sel: &Selected<'_>) -> DataSeries {
    let mut series = Vec::new();
    let mut data_groups: Vec<(Vec<usize>, usize)> = Vec::new();
    let mut samples = Vec::new();
    let mut left_out = 0;
    let one_y = spec.y.len() == 1;
    // A categorical x is drawn in order, never on a log axis.
    let log_x = spec.log_x && sel.categories.is_empty();
    for y in &spec.y {
        let Some(y_col) = sel.source.column(y) else {
            continue;
        };
        samples.push((
            config.label(y).to_string(),
            sel.rows.iter().filter_map(|r| number(&r[y_col])).collect(),
        ));
        // Groups in order of first appearance, each with its points, found through maps:
        // one pass over the rows however many points there are.
        type Group = (Vec<usize>, Vec<Acc>);
        let mut groups: Vec<Group> = Vec::new();
        let mut group_at: HashMap<Vec<usize>, usize> = HashMap::new();
        let mut point_at: HashMap<(usize, u64), usize> = HashMap::new();
        for (i, row) in sel.rows.iter().enumerate() {
            let (Some(x), Some(yv)) = (sel.xs[i], number(&row[y_col])) else {
                continue;
            };
            if !drawable(x) || !drawable(yv) {
                continue;
            }
            let g = *group_at.entry(sel.key(i)).or_insert_with_key(|key| {
                groups.push((key.clone(), Vec::new()));
                groups.len() - 1
            });
            let group = &mut groups[g].1;
            // Replications of one x are averaged into one point.
            match point_at.get(&(g, x_bits(x))) {
                Some(&p) => group[p].values.push(yv),
                None => {
                    point_at.insert((g, x_bits(x)), group.len());
                    group.push(Acc {
                        x,
                        values: vec![yv],
                    });
                }
            }
        }
        for (key, mut points) in groups {
            points.sort_by(|a, b| a.x.total_cmp(&b.x));
            let before = points.len();
            let off_log = |a: &Acc| (log_x && a.x <= 0.0) || (spec.look.log_y && a.mean() <= 0.0);
            points.retain(|a| !off_log(a));
            left_out += before - points.len();
            let parts = group_parts(config, &sel.group_axes, &key);
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
    (series, data_groups, samples, left_out)
}

/// Reference lines (`y_expr`): each expression evaluated at every row, one line per group of
/// the swept parameters x does not tell apart (as the data's lines), in the colour of the
/// data group it is theory for.
fn reference_series(
    config: &crate::config::Config,
    spec: &ChartSpec,
    sel: &Selected<'_>,
    data_groups: &[(Vec<usize>, usize)],
) -> Vec<Series> {
    let mut out = Vec::new();
    for (label, expr) in &spec.y_expr {
        let over = super::curve::curve_param(config, spec, expr);
        // (the group's coordinates on the grouping axes, its points, a point of it and the
        // range of its x).
        type Line = (Vec<usize>, Vec<(f64, f64)>, usize, (f64, f64));
        let mut groups: Vec<Line> = Vec::new();
        // One reference point per group and x: the first row's.
        let mut seen: std::collections::HashSet<(usize, u64)> = std::collections::HashSet::new();
        // Rows come point by point: each point's values are built once.
        let mut point_values: Option<(usize, Vec<coordsim_model::Value>)> = None;
        for (i, row) in sel.rows.iter().enumerate() {
            let point = sel.source.point(row);
            if point_values.as_ref().is_none_or(|(p, _)| *p != point) {
                point_values = Some((point, config.point_values(point)));
            }
            let values = &point_values.as_ref().expect("set above").1;
            let get = |v: crate::config::Var| match v {
                crate::config::Var::Param(i) => values[i].as_f64(),
                crate::config::Var::Metric(i) => sel
                    .source
                    .schema
                    .id(ColumnSource::Metric(i))
                    .and_then(|id| number(&row[id])),
                crate::config::Var::Entity(_) | crate::config::Var::X => None,
            };
            let Some(x) = sel.xs[i].filter(|x| drawable(*x)) else {
                continue;
            };
            let key = sel.key(i);
            let g = match groups.iter().position(|(k, ..)| *k == key) {
                Some(g) => g,
                None => {
                    groups.push((key, Vec::new(), point, (x, x)));
                    groups.len() - 1
                }
            };
            let range = &mut groups[g].3;
            *range = (range.0.min(x), range.1.max(x));
            if let Some(y) = expr.eval(&get)
                && drawable(y)
                && seen.insert((g, x_bits(x)))
            {
                groups[g].1.push((x, y));
            }
        }
        for (_, points, point, range) in &mut groups {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            if let Some(over) = over {
                let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
                *points = super::curve::curve(config, expr, over, *point, *range, &xs, spec.log_x);
            }
        }
        // A group where the expression has no value draws nothing, not an empty line.
        groups.retain(|(_, points, ..)| !points.is_empty());
        // An expression that does not depend on the grouping parameters draws the same line
        // for every group: one line, without a group in its name.
        if groups.windows(2).all(|w| w[0].1 == w[1].1) {
            groups.truncate(1);
        }
        let several = groups.len() > 1;
        for (key, points, ..) in groups {
            let mut name = config.label(label).to_string();
            if several {
                name = format!(
                    "{name} ({})",
                    group_parts(config, &sel.group_axes, &key).join(", ")
                );
            }
            let color = several
                .then(|| data_groups.iter().find(|(k, _)| *k == key).map(|(_, i)| *i))
                .flatten();
            out.push(Series {
                label: name,
                reference: true,
                points,
                intervals: Vec::new(),
                color,
            });
        }
    }
    out
}

/// A fixed y range leaves out what lies beyond it (plotters would draw it flat along the
/// edge, a line that is not there).
fn clip_to_y_range(series: &mut [Series], look: &Look) {
    if look.y_min.is_none() && look.y_max.is_none() {
        return;
    }
    let lo = look.y_min.unwrap_or(f64::NEG_INFINITY);
    let hi = look.y_max.unwrap_or(f64::INFINITY);
    for s in series {
        s.points.retain(|p| p.1 >= lo && p.1 <= hi);
        s.intervals.retain(|i| i.1 >= lo && i.2 <= hi);
    }
}

/// A bar chart draws its first [`MAX_BAR_GROUPS`] groups (in x order, which for categories
/// is the order they first appear); gives the note that says so, when it cut.
fn cap_bar_groups(config: &crate::config::Config, series: &mut [Series]) -> Option<String> {
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if xs.len() <= MAX_BAR_GROUPS {
        return None;
    }
    let last = xs[MAX_BAR_GROUPS - 1];
    for s in series {
        s.points.retain(|p| p.0 <= last);
        s.intervals.retain(|i| i.0 <= last);
    }
    let n = |x: usize| config.locale.number(&x.to_string());
    Some(
        config
            .text(Text::BarGroupsNote)
            .replace("{shown}", &n(MAX_BAR_GROUPS))
            .replace("{total}", &n(xs.len())),
    )
}

/// `mark_x`: vertical lines at the metric's values (at most 6 distinct ones).
fn x_marks(run: &Run<'_>, spec: &ChartSpec) -> Vec<(f64, String)> {
    let config = run.config;
    let (Some(mark), results) = (&spec.mark_x, &run.results.results) else {
        return Vec::new();
    };
    let Some(c) = results.column(mark) else {
        return Vec::new();
    };
    let mut values: Vec<f64> = results.rows.iter().filter_map(|r| number(&r[c])).collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    values
        .into_iter()
        .take(6)
        .map(|v| {
            (
                v,
                format!(
                    "{} = {}",
                    config.label(mark),
                    crate::format::number(v, config.locale)
                ),
            )
        })
        .collect()
}

impl ChartData {
    /// Prepares a chart: one series per y metric and per combination of the swept parameters
    /// that x does not tell apart, each point the mean over replications.
    pub fn new(run: &Run<'_>, spec: &ChartSpec) -> ChartData {
        if spec.distribution {
            return ChartData::of_samples(run, spec);
        }
        let config = run.config;
        let sel = Selected::new(run, spec);
        let (mut series, mut data_groups, samples, left_out) = data_series(config, spec, &sel);
        let mut notes = Vec::new();
        notes.extend(super::thin::first_series(
            config,
            &mut series,
            &mut data_groups,
        ));
        if spec.x != crate::config::ENTITY_X {
            let mut references = reference_series(config, spec, &sel, &data_groups);
            references.truncate(crate::config::MAX_SERIES);
            series.extend(references);
        }
        clip_to_y_range(&mut series, &spec.look);
        if spec.kind == ChartKind::Line {
            let lines = (series.iter_mut())
                .map(|s| (&mut s.points, &mut s.intervals))
                .collect();
            notes.extend(super::thin::thin_lines(config, lines));
        }
        if left_out > 0 {
            let n = config.locale.number(&left_out.to_string());
            notes.push(config.text(Text::LogNote).replace("{count}", &n));
        }
        if spec.kind == ChartKind::Bar {
            notes.extend(cap_bar_groups(config, &mut series));
        }
        let y_label = spec
            .look
            .y_label
            .clone()
            .unwrap_or_else(|| y_labels(config, spec));
        let whole = |name: &str| crate::results::whole_numbers(config, sel.source, name);
        // Whole numbers by type (a count), or numbers that were whole at every point drawn
        // (a count worked out by a [[metric]] expression, `2 - x.value`): a chart of counts
        // gets no tick between 1 and 2 either way.
        let drawn_whole = series.iter().all(|s| {
            s.intervals.is_empty()
                && (s.points.iter()).all(|p| p.1.is_finite() && p.1.fract() == 0.0)
        });
        let y_integer = !spec.y.is_empty()
            && (spec.y.iter().all(|y| whole(y)) || drawn_whole)
            && spec.y_expr.is_empty()
            && spec.mark_y.is_none_or(|m| m.fract() == 0.0)
            // An axis the author cut to less than one unit keeps its fractional ticks (with
            // whole ones only it would have one label or none).
            && (spec.look.y_max).is_none_or(|top| top - spec.look.y_min.unwrap_or(0.0) >= 1.0);
        let categories = sel.categories;
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
            marks: x_marks(run, spec),
            // Its own label, or `y = 100`: in a config's chart the y metric's label would
            // name the line as a value of that metric (a capacity line is no "requests
            // sent"). A model's default chart marks a value of its one metric (100% of
            // capacity), and says so.
            mark_y: spec.mark_y.map(|y| {
                let number = crate::format::number(y, config.locale);
                let label = match (&spec.mark_y_label, &spec.at, spec.y.as_slice()) {
                    (Some(label), ..) => label.clone(),
                    (None, None, [one]) => format!("{} = {number}", config.label(one)),
                    _ => format!("y = {number}"),
                };
                (y, label)
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

    /// Why the chart has nothing to draw (`None`: it has): its y columns with no value at any
    /// point it draws, or, when they have values, that none of them can be placed.
    pub(crate) fn empty(&self, spec: &ChartSpec) -> Option<String> {
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
        let full: Vec<&String> = spec
            .y
            .iter()
            .zip(&self.samples)
            .filter(|(_, (_, v))| values(v))
            .map(|(y, _)| y)
            .collect();
        let positive = |(_, v): &&(String, Vec<f64>)| v.iter().any(|x| drawable(*x) && *x > 0.0);
        Some(if empty.len() == spec.y.len() {
            let (list, verb) = names(&empty);
            format!("{list} {verb} empty at every point it draws")
        } else if self.look.log_y && !self.samples.iter().any(|s| positive(&s)) {
            let (list, verb) = names(&full);
            format!(
                "{list} {verb} 0 or below at every point it draws, which a log y axis cannot show (drop `log_y` to draw it)"
            )
        } else {
            format!(
                "no value of {} has an x (`{}`) it can be drawn at{}{}",
                names(&spec.y.iter().collect::<Vec<_>>()).0,
                spec.x,
                if self.look.y_min.is_some() || self.look.y_max.is_some() {
                    " inside y_min … y_max"
                } else {
                    ""
                },
                match (self.log_x, self.look.log_y) {
                    (true, true) => "; log axes show only values above 0",
                    (true, false) => "; a log x axis shows only x above 0",
                    (false, true) => "; a log y axis shows only values above 0",
                    (false, false) => "",
                }
            )
        })
    }

    /// The text under x: the category's name, or the number.
    pub(crate) fn x_text(&self, x: f64) -> String {
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
    pub(crate) fn y_text(&self, v: f64) -> String {
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
    pub(crate) fn y_values(&self) -> impl Iterator<Item = f64> + '_ {
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
    pub(crate) fn y_axis(&self, headroom: f64) -> std::ops::Range<f64> {
        axis_range(self.y_values(), &self.look, headroom)
    }
}

/// The legend entries of a chart's horizontal marker.
pub(super) fn mark_y_entry(data: &ChartData) -> Option<Entry> {
    data.mark_y.as_ref().map(|(_, label)| Entry {
        label: label.clone(),
        swatch: super::layout::Swatch::Line {
            color: MARK_RED,
            width: 2,
            dashed: true,
            marker: None,
        },
    })
}

/// Draws the horizontal marker, if any, across the x range.
pub(super) fn draw_mark_y<DB: DrawingBackend>(
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

/// A chart's title: its own (placeholders filled at the first point it draws, where they
/// have their one value), or the config's.
pub(super) fn chart_title(config: &crate::config::Config, spec: &ChartSpec) -> String {
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
pub(super) fn y_labels(config: &crate::config::Config, spec: &ChartSpec) -> String {
    spec.y
        .iter()
        .map(|y| config.label(y))
        .collect::<Vec<_>>()
        .join(", ")
}
