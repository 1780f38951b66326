//! The frame every chart kind draws in: titles and notes, axis titles, the plot area with
//! its ticks (`compose`), ranges and tick counts, and the last touches (`finish`).

use super::base::Chart2d;
use super::base::DrawResult;
use super::base::FONT;
use super::base::drawable;
use super::base::sane_axis;
use super::layout::Placed;
use super::layout::{Entry, Obstacles, Rect, Scale};
use crate::config::charts::{LegendPlace, Look};
use crate::locale::Locale;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Points on a theory curve of a cdf.
pub(super) const CURVE_STEPS: usize = 200;

/// The y axis over `values` for a chart's look: from 0 when every value is ≥ 0 (linear),
/// `headroom` of the span above, `y_min` / `y_max` when given; in log10 units with `log_y`.
pub(crate) fn axis_range(
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
pub(crate) fn tick(v: f64, locale: Locale) -> String {
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
    crate::format::number(v, locale)
}

/// The title, wrapped (or shrunk) to the width, drawn on top of `root`; returns the area
/// under it.
pub(crate) fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    s: Scale,
) -> DrawResult<DrawingArea<DB, Shift>>
where
    DB::ErrorType: 'static,
{
    let (w, _) = root.dim_in_pixel();
    let (lines, size) = super::layout::fit(
        root,
        title,
        w.saturating_sub(s.px(48)),
        s.font(28),
        s.font(15),
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
pub(super) fn noted<DB: DrawingBackend>(
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
    let (lines, size) = super::layout::fit(
        area,
        &text,
        w.saturating_sub(s.px(48)),
        s.font(15),
        s.font(11),
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
pub(crate) struct AxisTitles {
    /// x title and its font size.
    pub(crate) x: (String, u32),
    /// y title and its font size.
    pub(crate) y: (String, u32),
}

/// Fits the axis titles to an area of this size.
pub(crate) fn axis_titles<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    x: &str,
    y: &str,
    s: Scale,
) -> AxisTitles {
    let (w, h) = area.dim_in_pixel();
    let fit = |text: &str, room: u32| {
        let (lines, size) = super::layout::fit(area, text, room, s.font(21), s.font(12), 1);
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
pub(crate) fn compose<'a, DB: DrawingBackend>(
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
    let size = super::layout::legend_size(body, entries, s);
    let outside = |body: &DrawingArea<DB, Shift>| -> DrawResult<(Chart2d<'a, DB>, Option<Rect>)> {
        let (w, h) = body.dim_in_pixel();
        if size.0 > w as i32 / 2 || (s.narrow() && size.0 > w as i32 * 2 / 5) {
            // A narrow chart (a phone's rendering, or a config's small `width`) keeps its
            // width for the plot: the legend goes under it, centred.
            let room = size.1 + s.off(12);
            let (top, _) = body.split_vertically(h as i32 - room);
            let chart = build(&top, y_for(0.04))?;
            let (base_x, base_y) = body.get_base_pixel();
            let y0 = base_y + h as i32 - room + s.off(4);
            let x0 = base_x + ((w as i32 - size.0) / 2).max(0);
            let r = Rect {
                x0,
                y0,
                x1: x0 + size.0,
                y1: y0 + size.1,
            };
            return Ok((chart, Some(r)));
        }
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
                if let Some(r) =
                    super::layout::place(plot_rect(&chart), size, LegendPlace::Best, &obs, s)
                {
                    return Ok((chart, Some(r)));
                }
            }
            outside(body)
        }
        corner => {
            let chart = build(body, y_for(0.04))?;
            let obs = obstacles(&chart);
            match super::layout::place(plot_rect(&chart), size, corner, &obs, s) {
                Some(r) => Ok((chart, Some(r))),
                None => outside(body),
            }
        }
    }
}

/// The colour of a horizontal marker line.
pub(super) const MARK_RED: RGBColor = RGBColor(190, 30, 45);

/// The smallest and largest of `values` (`None` when there are none).
fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
    })
}

/// The y range covering `values`, from 0 when all are ≥ 0, with `headroom` (a fraction of the
/// span) above, where the legend goes.
pub(crate) fn y_range(values: impl Iterator<Item = f64>, headroom: f64) -> std::ops::Range<f64> {
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
pub(crate) fn x_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
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
pub(crate) fn integer_labels(range: &std::ops::Range<f64>, max: usize) -> usize {
    let span = (range.end - range.start).floor().max(0.0) as usize;
    (span + 1).clamp(2, max)
}

/// Ticks for a log axis (in log10 units): every half decade, so the decades get labels.
pub(crate) fn log_labels(range: &std::ops::Range<f64>) -> usize {
    let span = (range.end - range.start).ceil().max(1.0) as usize;
    (2 * span + 1).clamp(3, 41)
}

/// The last step of every chart kind: the legend drawn where `compose` put it, and what it
/// had to avoid (a legend outside the plot is reported as none inside).
pub(crate) fn finish<DB: DrawingBackend>(
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
        super::layout::draw_legend(root, r, entries, s)?;
    }
    let (xr, _) = chart.plotting_area().get_pixel_range();
    Ok(Placed {
        legend: legend.filter(|r| r.x1 <= xr.end),
        points: Vec::new(),
    })
}

/// An x axis's ticks: how many key points plotters is asked for, and which of them get
/// their label (the rest keep their tick and grid line).
pub(super) struct XTicks {
    /// The key points plotters is asked for (`x_labels`).
    pub(super) ask: usize,
    /// The values whose labels are written; `None`: every key point's.
    labelled: Option<Vec<f64>>,
}

impl XTicks {
    /// The label at `v`: `text`'s, or nothing where the ticks are thinned.
    pub(super) fn label(&self, v: f64, text: impl Fn(f64) -> String) -> String {
        match &self.labelled {
            Some(values)
                if !values
                    .iter()
                    .any(|l| (l - v).abs() <= 1e-9 * v.abs().max(1.0)) =>
            {
                String::new()
            }
            _ => text(v),
        }
    }
}

/// The ticks of the x axis of `chart`: as many labels as fit the plot's width, up to
/// `usual` — each label's characters at 0.6 of the font, and a gap of 1.2 fonts between
/// labels — and never fewer than two; on an axis of whole numbers (`whole`) only whole
/// values get a label. Plotters steps its ticks by 1, 2 or 5 times a power of ten, so the
/// count asked for can leave a single tick (1 … 8 asked for 3: only 5): the count is
/// raised until two or more come, and where those do not fit, every second (third …) is
/// labelled, at multiples of the wider step (2, 4, 6, 8 become 4 and 8). `text` is how a
/// label is written.
pub(super) fn x_ticks<DB: DrawingBackend>(
    chart: &Chart2d<'_, DB>,
    s: Scale,
    usual: usize,
    whole: bool,
    text: &dyn Fn(f64) -> String,
) -> XTicks {
    use plotters::coord::ranged1d::Ranged;
    use plotters::coord::types::RangedCoordf64;
    let (xr, _) = chart.plotting_area().get_pixel_range();
    let width = f64::from((xr.end - xr.start).max(1));
    let font = f64::from(s.font(17));
    let axis = RangedCoordf64::from(chart.x_range());
    let labelled = |ask: usize| -> Vec<f64> {
        (axis.key_points(ask).into_iter())
            .filter(|v| !whole || (v - v.round()).abs() <= 1e-9 * v.abs().max(1.0))
            .collect()
    };
    // How many labels as wide as the widest of `values` fit side by side.
    let room = |values: &[f64]| -> usize {
        let chars = (values.iter())
            .map(|v| text(*v).chars().count())
            .max()
            .unwrap_or(1);
        (width / ((chars as f64 * 0.6 + 1.2) * font)) as usize
    };
    for ask in (2..=usual.max(2)).rev() {
        let values = labelled(ask);
        if values.len() >= 2 && values.len() <= room(&values) {
            return XTicks {
                ask,
                labelled: None,
            };
        }
    }
    // Not even two fit: the fewest ticks that are two or more, every j-th labelled.
    let Some((ask, values)) = (2..=64)
        .map(|ask| (ask, labelled(ask)))
        .find(|(_, values)| values.len() >= 2)
    else {
        return XTicks {
            ask: usual,
            labelled: None,
        };
    };
    let fit = room(&values).max(2);
    if values.len() <= fit {
        return XTicks {
            ask,
            labelled: None,
        };
    }
    let every = values.len().div_ceil(fit);
    let step = values[1] - values[0];
    let multiples: Vec<f64> = (values.iter().copied())
        .filter(|v| ((v / step).round() as i64).rem_euclid(every as i64) == 0)
        .collect();
    let labelled = if multiples.len() >= 2 {
        multiples
    } else {
        values.iter().copied().step_by(every).collect()
    };
    XTicks {
        ask,
        labelled: Some(labelled),
    }
}

/// A data point in backend pixels on a built plot.
pub(crate) fn px<DB: DrawingBackend>(chart: &Chart2d<'_, DB>, p: (f64, f64)) -> (i32, i32) {
    chart.backend_coord(&p)
}
