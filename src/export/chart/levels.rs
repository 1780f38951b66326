//! What a timeline draws besides spans and marks: each lane's level (a quantity as a step
//! line scaled to its lane, a holder as a bar per holder, named in it), the density strip
//! under a lane that was thinned, and the rule between the resources' lanes and the actors'.

use coordsim_model::{Item, Lane, LevelKind};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::base::{DrawResult, FONT};
use super::frame::px;
use super::layout::{Entry, Obstacles, Rect, Scale, Swatch};
use super::timeline_data::Timeline;

/// Colours of a lock's holders, by actor in turn: four slate tones, none a span kind's
/// colour (a holder's bar is not read as working or waiting); the name inside tells them
/// apart, the tone tells neighbours apart.
fn holder_color(v: f64) -> RGBColor {
    const TONES: [RGBColor; 4] = [
        RGBColor(55, 60, 110),
        RGBColor(105, 110, 160),
        RGBColor(70, 100, 120),
        RGBColor(120, 85, 125),
    ];
    TONES[v.max(0.0) as usize % TONES.len()]
}

/// A merged step of several holders, or a holder with no name (a stale record).
const SEVERAL: RGBColor = RGBColor(150, 150, 150);

/// Pixel columns per density bucket: narrow enough to show a burst, wide enough that a
/// bucket is a visible block.
const DENSITY_PX: u32 = 4;

/// Whether a lane was thinned past what can be drawn (a kind of span or mark kept one of
/// many): drawn with a density strip under it.
pub(super) fn dense(lane: &Lane) -> bool {
    (lane.thinning().iter()).any(|t| t.item != Item::Level && t.stride > 1)
}

/// A lane's level kind, as the model styles it.
fn kind_of<'t>(t: &'t Timeline, lane: &Lane) -> Option<(usize, &'t LevelKind)> {
    let name = lane.level_kind()?;
    (t.style.levels.iter().enumerate()).find(|(_, k)| k.name == name)
}

/// The band a lane's level is drawn in (bottom, top), lane i of n.
fn band(n: usize, i: usize) -> (f64, f64) {
    let bottom = n as f64 - i as f64 - 1.0;
    (bottom + 0.12, bottom + 0.88)
}

/// The steps of a lane's level as (from, to, point), each running to the next's instant
/// and the last to `right`; none past `right` (a window's end).
fn steps(lane: &Lane, right: f64) -> Vec<(f64, f64, coordsim_model::LevelPoint)> {
    let points = lane.levels();
    (points.iter().enumerate())
        .filter(|(_, p)| super::base::drawable(p.at_ms) && p.at_ms <= right)
        .map(|(k, p)| {
            let to = points.get(k + 1).map_or(right, |q| q.at_ms.min(right));
            (p.at_ms, to, *p)
        })
        .collect()
}

/// The legend entries of the level kinds drawn: a line for a quantity, a block for a
/// holder (and one for merged steps of several holders, when there are some).
pub(super) fn entries(t: &Timeline) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut several = false;
    for (k, kind) in t.style.levels.iter().enumerate() {
        let lanes: Vec<&Lane> = (t.lanes.iter())
            .filter(|l| l.level_kind() == Some(kind.name) && !l.levels().is_empty())
            .collect();
        if lanes.is_empty() {
            continue;
        }
        let swatch = if kind.categorical {
            several |= lanes
                .iter()
                .any(|l| l.levels().iter().any(|p| p.is_range() && p.low != p.high));
            Swatch::Block(holder_color(0.0))
        } else {
            Swatch::Line {
                color: rgb(kind.rgb),
                width: 2,
                dashed: false,
                marker: None,
            }
        };
        out.push(Entry {
            label: t.level_labels[k].clone(),
            swatch,
        });
    }
    if several {
        out.push(Entry {
            label: t.several_label.clone(),
            swatch: Swatch::Block(SEVERAL),
        });
    }
    out
}

fn rgb((r, g, b): (u8, u8, u8)) -> RGBColor {
    RGBColor(r, g, b)
}

/// Where the levels are in pixels, for the legend to avoid: each level's band.
pub(super) fn obstacles<DB: DrawingBackend>(
    chart: &super::base::Chart2d<'_, DB>,
    t: &Timeline,
    right: f64,
    o: &mut Obstacles,
) {
    let n = t.lanes.len().max(1);
    for (i, lane) in t.lanes.iter().enumerate() {
        let (bottom, top) = band(n, i);
        for (from, to, _) in steps(lane, right) {
            let (a, b) = (px(chart, (from, top)), px(chart, (to, bottom)));
            o.rects.push(Rect {
                x0: a.0.min(b.0),
                y0: a.1.min(b.1),
                x1: a.0.max(b.0),
                y1: a.1.max(b.1),
            });
        }
    }
}

/// Draws every lane's level: a holder's bars with its name where it fits, a quantity's step
/// line (a merged step shaded over the range it went through) with its highest value
/// written at its first peak.
pub(super) fn draw<DB: DrawingBackend>(
    chart: &mut super::base::Chart2d<'_, DB>,
    t: &Timeline,
    right: f64,
    s: Scale,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let n = t.lanes.len().max(1);
    for (i, lane) in t.lanes.iter().enumerate() {
        let Some((_, kind)) = kind_of(t, lane) else {
            continue;
        };
        let steps = steps(lane, right);
        if steps.is_empty() {
            continue;
        }
        if kind.categorical {
            holders(chart, lane, &steps, band(n, i), s)?;
        } else {
            quantity(chart, t, kind, &steps, band(n, i), s)?;
        }
    }
    Ok(())
}

/// A holder's steps as bars, each named inside when the name fits.
fn holders<DB: DrawingBackend>(
    chart: &mut super::base::Chart2d<'_, DB>,
    lane: &Lane,
    steps: &[(f64, f64, coordsim_model::LevelPoint)],
    (bottom, top): (f64, f64),
    s: Scale,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    for (from, to, p) in steps {
        // A merged step that went through one holder (and free) is that holder's.
        let holder = if p.low == p.high { p.low } else { f64::NAN };
        if p.low.is_nan() && p.high.is_nan() {
            continue;
        }
        let name = (holder >= 0.0)
            .then(|| lane.categories().get(holder as usize))
            .flatten();
        let color = match name {
            Some(_) => holder_color(holder),
            None => SEVERAL,
        };
        let (y0, y1) = (bottom + 0.1, top - 0.1);
        chart.draw_series(std::iter::once(Rectangle::new(
            [(*from, y1), (*to, y0)],
            color.filled(),
        )))?;
        let Some(name) = name else { continue };
        let (a, b) = (px(chart, (*from, y1)), px(chart, (*to, y0)));
        let area = chart.plotting_area();
        let width = area
            .estimate_text_size(name, &(FONT, s.font(15)).into_text_style(area))
            .map_or(u32::MAX, |(w, _)| w);
        let fits_height = (b.1 - a.1).abs() as i64 >= i64::from(s.font(15)) + 2;
        if fits_height && (b.0 - a.0) as i64 > i64::from(width) + i64::from(s.px(8)) {
            let area = chart.plotting_area().strip_coord_spec();
            let (ox, oy) = area.get_base_pixel();
            let text = (FONT, s.font(15))
                .into_text_style(&area)
                .color(&WHITE)
                .pos(Pos::new(HPos::Left, VPos::Center));
            area.draw_text(
                &super::layout::clean(name),
                &text,
                (a.0 + s.off(4) - ox, (a.1 + b.1) / 2 - oy),
            )?;
        }
    }
    Ok(())
}

/// A quantity's steps as a line scaled to its lane (0 at the bottom of the band, its
/// highest at the top), merged steps shaded over their range, the highest value written.
fn quantity<DB: DrawingBackend>(
    chart: &mut super::base::Chart2d<'_, DB>,
    t: &Timeline,
    kind: &LevelKind,
    steps: &[(f64, f64, coordsim_model::LevelPoint)],
    (bottom, top): (f64, f64),
    s: Scale,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let finite = |v: f64| v.is_finite();
    let values = || {
        steps
            .iter()
            .flat_map(|(_, _, p)| [p.low, p.high, p.value])
            .filter(|v| finite(*v))
    };
    let low = values().fold(0.0f64, f64::min);
    let high = values().fold(f64::NEG_INFINITY, f64::max);
    if !high.is_finite() {
        return Ok(());
    }
    let span = if high > low { high - low } else { 1.0 };
    let y = |v: f64| bottom + (v - low) / span * (top - bottom);
    let color = rgb(kind.rgb);
    let shade = color.mix(0.25);
    for (from, to, p) in steps.iter().filter(|(_, _, p)| p.is_range()) {
        if finite(p.low) && finite(p.high) {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(*from, y(p.high)), (*to, y(p.low))],
                shade.filled(),
            )))?;
        }
    }
    // The line: across each step at its value, up or down at each change.
    let mut path: Vec<(f64, f64)> = Vec::with_capacity(steps.len() * 2);
    for (from, to, p) in steps {
        if !finite(p.value) {
            continue;
        }
        path.push((*from, y(p.value)));
        path.push((*to, y(p.value)));
    }
    chart.draw_series(std::iter::once(PathElement::new(
        path,
        color.stroke_width(s.px(2)),
    )))?;
    // Each step's value just above it where it is wide enough to hold it (a few steps: a
    // register's writes), and the highest, above its first step at it, in any case: a
    // step's value that would run into the highest's (written past its narrow step) is left
    // out.
    let label = |v: f64| t.locale.number(&super::layout::clean(&format_value(v)));
    let font = s.font(13);
    let width = |chart: &super::base::Chart2d<'_, DB>, text: &str| {
        let area = chart.plotting_area();
        area.estimate_text_size(text, &(FONT, font).into_text_style(area))
            .map_or(u32::MAX, |(w, _)| w)
    };
    let gap = i64::from(s.px(6));
    let first_high = steps
        .iter()
        .find(|(_, _, p)| p.high == high || p.value == high)
        .map(|(from, _, _)| *from);
    // Where the highest's label runs, in pixels.
    let high_span = first_high.map(|from| {
        let start = i64::from(px(chart, (from, 0.0)).0);
        (from, start, start + i64::from(width(chart, &label(high))))
    });
    let mut written_high = false;
    if steps.len() <= MAX_STEP_LABELS {
        for (from, to, p) in steps.iter().filter(|(_, _, p)| !p.is_range()) {
            let text = label(p.value);
            let w = i64::from(width(chart, &text));
            let (a, b) = (px(chart, (*from, 0.0)), px(chart, (*to, 0.0)));
            let (start, end) = (i64::from(a.0), i64::from(a.0) + w);
            let runs_into_high = high_span.is_some_and(|(high_from, high_start, high_end)| {
                high_from != *from && start < high_end + gap && end + gap > high_start
            });
            if finite(p.value) && i64::from(b.0 - a.0) > w + gap && !runs_into_high {
                value_text(chart, &text, px(chart, (*from, y(p.value))), color, s)?;
                written_high |= p.value == high;
            }
        }
    }
    if !written_high && let Some(from) = first_high {
        value_text(chart, &label(high), px(chart, (from, y(high))), color, s)?;
    }
    Ok(())
}

/// Most steps a level may draw for each to have its value written over it.
const MAX_STEP_LABELS: usize = 40;

/// A level's value written just above and right of the pixel `at`.
fn value_text<DB: DrawingBackend>(
    chart: &mut super::base::Chart2d<'_, DB>,
    text: &str,
    at: (i32, i32),
    color: RGBColor,
    s: Scale,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let area = chart.plotting_area().strip_coord_spec();
    let (ox, oy) = area.get_base_pixel();
    let style = (FONT, s.font(13))
        .into_text_style(&area)
        .color(&color)
        .pos(Pos::new(HPos::Left, VPos::Bottom));
    area.draw_text(text, &style, (at.0 + s.off(3) - ox, at.1 - s.off(1) - oy))?;
    Ok(())
}

/// A level's value as written on its lane: a whole number as it is, else to 3 significant
/// digits.
fn format_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        format!("{v:.digits$}")
    }
}

/// Items as (start, end, how many each stands for) counted into `buckets` equal columns of
/// [left, right): a mark (or a span of no length) all in its column, a longer span spread
/// over the columns it covers in proportion to the time it spends in each. What lies
/// outside [left, right) counts nowhere.
pub(super) fn buckets(
    items: impl Iterator<Item = (f64, f64, u64)>,
    (left, right): (f64, f64),
    buckets: usize,
) -> Vec<f64> {
    let mut counts = vec![0.0f64; buckets.max(1)];
    let width = (right - left) / counts.len() as f64;
    if width.is_nan() || width <= 0.0 {
        return counts;
    }
    let column = |at: f64| ((at - left) / width).floor();
    for (from, to, count) in items {
        let (a, b) = (from.max(left), to.min(right));
        if b < a || from >= right {
            continue;
        }
        let count = count as f64;
        if b - a <= 0.0 {
            let c = column(a);
            if c >= 0.0 && (c as usize) < counts.len() {
                counts[c as usize] += count;
            }
            continue;
        }
        let (first, last) = (
            column(a) as usize,
            (column(b) as usize).min(counts.len() - 1),
        );
        for (c, slot) in counts.iter_mut().enumerate().take(last + 1).skip(first) {
            let (x0, x1) = (left + c as f64 * width, left + (c + 1) as f64 * width);
            *slot += count * (b.min(x1) - a.max(x0)).max(0.0) / (b - a);
        }
    }
    counts
}

/// Draws each lane's density: a lane drawn as its first items has a band over the rest of
/// its height from its first item not drawn on, counting the items past them; a thinned lane
/// a strip under it counting all of its items (each kept one standing for those it counts).
/// Both per bucket of [`DENSITY_PX`] pixel columns, shaded from light (few) to dark (the
/// busiest bucket of the lane).
pub(super) fn density<DB: DrawingBackend>(
    chart: &mut super::base::Chart2d<'_, DB>,
    t: &Timeline,
    (left, right): (f64, f64),
    s: Scale,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let n = t.lanes.len().max(1);
    let (plot_w, _) = chart.plotting_area().dim_in_pixel();
    let count = (plot_w / s.px(DENSITY_PX)).max(1) as usize;
    let width = (right - left) / count as f64;
    for (i, lane) in t.lanes.iter().enumerate() {
        let band = t.bands.get(i).and_then(Option::as_ref);
        let counts = match band {
            Some(band) => buckets(band.items.iter().copied(), (left, right), count),
            None if dense(lane) => {
                let spans = (lane.spans().iter())
                    .map(|sp| (sp.from_ms, sp.to_ms.unwrap_or(sp.from_ms), sp.count));
                let marks = (lane.marks().iter()).map(|m| (m.at_ms, m.at_ms, m.count));
                buckets(spans.chain(marks), (left, right), count)
            }
            None => continue,
        };
        let most = counts.iter().copied().fold(0.0, f64::max).max(1.0);
        let bottom = n as f64 - i as f64 - 1.0;
        let (y0, y1) = match band {
            Some(_) => (bottom + 0.1, bottom + 0.9),
            None => (bottom + 0.02, bottom + 0.1),
        };
        let start = band.map_or(left, |b| b.from_ms);
        chart.draw_series((counts.iter().enumerate()).filter(|(_, c)| **c > 0.0).map(
            |(b, c)| {
                let shade = 0.15 + 0.85 * (c / most);
                let x = (left + b as f64 * width).max(start);
                Rectangle::new(
                    [(x, y1), ((left + (b + 1) as f64 * width).max(x), y0)],
                    RGBColor(60, 60, 60).mix(shade).filled(),
                )
            },
        ))?;
    }
    Ok(())
}

/// A rule under the resources' lanes, parting them from the actors'.
pub(super) fn separator<DB: DrawingBackend>(
    chart: &mut super::base::Chart2d<'_, DB>,
    t: &Timeline,
    (left, right): (f64, f64),
    s: Scale,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    if t.resource_lanes == 0 || t.resource_lanes >= t.lanes.len() {
        return Ok(());
    }
    let y = (t.lanes.len() - t.resource_lanes) as f64;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(left, y), (right, y)],
        RGBColor(120, 120, 120).stroke_width(s.px(1)),
    )))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn buckets_count_every_item_inside_once() {
        // Four columns of 10 ms over [0, 40): a mark of 3 at 5 (column 0), a span of 2
        // items over [15, 35) (a quarter in column 1, half in 2, a quarter in 3), a mark at
        // 40 and a span from 50 (outside: counted nowhere). 3 + 2 = 5 in all.
        let counts = super::buckets(
            [
                (5.0, 5.0, 3),
                (15.0, 35.0, 2),
                (40.0, 40.0, 9),
                (50.0, 60.0, 7),
            ]
            .into_iter(),
            (0.0, 40.0),
            4,
        );
        assert_eq!(counts, [3.0, 0.5, 1.0, 0.5]);
    }
}
