//! CDF charts: the empirical distribution of each sample set as a step line (a metric over
//! the runs, or one point's per-request values).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::base::{DrawResult, FONT};
use super::data::ChartData;
use super::frame::{AxisTitles, axis_titles, compose, px, tick, titled, x_range};
use super::layout::Placed;
use super::layout::{self, Entry, Obstacles, Rect, Scale, Swatch};
use crate::config::charts::Look;
use crate::locale::Locale;

/// Most steps drawn per curve: a million samples draw as 2,000 evenly spaced quantiles
/// (the curve looks the same; the SVG stays small).
const MAX_STEPS: usize = 2000;

/// The step points of one sample set's empirical cdf.
pub(super) fn steps(values: &[f64]) -> Vec<(f64, f64)> {
    let mut sorted: Vec<f64> = values
        .iter()
        .copied()
        .filter(|v| super::base::drawable(*v))
        .collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let mut out = Vec::with_capacity(2 * n.min(MAX_STEPS) + 2);
    if n == 0 {
        return out;
    }
    let stride = n.div_ceil(MAX_STEPS).max(1);
    let mut k = 0;
    while k < n {
        let v = sorted[k];
        // The last sample of this value (ties make one vertical step).
        let mut end = k + 1;
        while end < n && sorted[end] == v {
            end += 1;
        }
        let end = end.max((k + stride).min(n));
        out.push((v, k as f64 / n as f64));
        out.push((v, end as f64 / n as f64));
        k = end;
    }
    out
}

/// Draws empirical CDFs as step lines.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    s: Scale,
) -> DrawResult<Placed>
where
    DB::ErrorType: 'static,
{
    let curves: Vec<Vec<(f64, f64)>> = data.samples.iter().map(|(_, v)| steps(v)).collect();
    let x_axis = x_range(curves.iter().flat_map(|c| c.iter().map(|p| p.0)));
    // Theory curves (y_expr), dashed, in the colours after the samples'.
    let theory: Vec<&super::data::Series> = data.series.iter().filter(|s| s.reference).collect();
    let offset = curves.len();
    let mut entries: Vec<Entry> = data
        .samples
        .iter()
        .enumerate()
        .map(|(i, (label, _))| Entry {
            label: label.clone(),
            swatch: Swatch::Line {
                color: layout::color(i),
                width: 3,
                dashed: layout::dashed(i),
                marker: None,
            },
        })
        .collect();
    entries.extend(theory.iter().enumerate().map(|(k, t)| Entry {
        label: t.label.clone(),
        swatch: Swatch::Line {
            color: layout::series_color(offset + k, t.color),
            width: 2,
            dashed: true,
            marker: None,
        },
    }));
    let body = titled(root, &data.title, s)?;
    let titles = axis_titles(&body, &data.x_label, &data.y_label, s);
    let obstacles = |chart: &super::base::Chart2d<'_, DB>| {
        let mut o = Obstacles::default();
        for c in curves.iter().chain(theory.iter().map(|t| &t.points)) {
            let pts: Vec<(i32, i32)> = c.iter().map(|p| px(chart, *p)).collect();
            o.segments.extend(pts.windows(2).map(|w| (w[0], w[1])));
        }
        o
    };
    let (mut chart, legend) = probability_plot(
        &body,
        &data.look,
        &entries,
        s,
        x_axis,
        &obstacles,
        &titles,
        (data.locale, false),
    )?;
    for (i, c) in curves.into_iter().enumerate() {
        let color = layout::color(i);
        if layout::dashed(i) {
            chart.draw_series(DashedLineSeries::new(
                c,
                s.px(12),
                s.px(8),
                color.stroke_width(s.px(3)),
            ))?;
        } else {
            chart.draw_series(LineSeries::new(c, color.stroke_width(s.px(3))))?;
        }
    }
    for (k, t) in theory.iter().enumerate() {
        let color = layout::series_color(offset + k, t.color);
        let pts: Vec<(f64, f64)> = t
            .points
            .iter()
            .copied()
            .filter(|p| (0.0..=1.05).contains(&p.1))
            .collect();
        chart.draw_series(DashedLineSeries::new(
            pts,
            s.px(10),
            s.px(6),
            color.stroke_width(s.px(2)),
        ))?;
    }
    super::frame::finish(root, &chart, legend, &entries, &data.look, s)
}

/// How a chart of samples labels its y axis: each tick's text, and how many ticks plotters
/// is asked for (`None`: as many as it chooses).
pub(super) struct YTicks<'t> {
    /// A tick's text.
    pub(super) text: &'t dyn Fn(&f64) -> String,
    /// How many ticks to ask for.
    pub(super) count: Option<usize>,
}

/// The axes of a chart of samples (a cdf's, a histogram's): plotters' own x ticks at full
/// size, as many as fit on a phone's rendering; labels only at whole numbers on an x axis
/// of whole numbers (`whole`).
pub(super) fn samples_mesh<DB: DrawingBackend>(
    chart: &mut super::base::Chart2d<'_, DB>,
    titles: &AxisTitles,
    (locale, whole): (Locale, bool),
    y: YTicks<'_>,
    s: Scale,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let x_text = |v: f64| {
        if whole && (v - v.round()).abs() > 1e-9 * v.abs().max(1.0) {
            String::new()
        } else {
            tick(v, locale)
        }
    };
    let x_ticks = s
        .narrow()
        .then(|| super::frame::x_ticks(chart, s, 10, whole, &x_text));
    let mut mesh = chart.configure_mesh();
    if let Some(ticks) = &x_ticks {
        mesh.x_labels(ticks.ask);
    }
    if let Some(count) = y.count {
        mesh.y_labels(count);
    }
    mesh.x_desc(&titles.x.0)
        .y_desc(&titles.y.0)
        .axis_desc_style((FONT, titles.y.1.min(titles.x.1)))
        .label_style((FONT, s.font(17)))
        .x_label_formatter(&|v| match &x_ticks {
            Some(ticks) => ticks.label(*v, x_text),
            None => x_text(*v),
        })
        .y_label_formatter(y.text)
        .light_line_style(RGBColor(245, 245, 245))
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()?;
    Ok(())
}

/// The plot of a chart of probabilities on `body`: 0 to 1 up the y axis (a little room on
/// top), its legend placed as [`compose`] places it, its axes drawn ([`samples_mesh`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn probability_plot<'a, DB: DrawingBackend>(
    body: &DrawingArea<DB, Shift>,
    look: &Look,
    entries: &[Entry],
    s: Scale,
    x_axis: std::ops::Range<f64>,
    obstacles: &dyn Fn(&super::base::Chart2d<'a, DB>) -> Obstacles,
    titles: &AxisTitles,
    ticks: (Locale, bool),
) -> DrawResult<(super::base::Chart2d<'a, DB>, Option<Rect>)>
where
    DB::ErrorType: 'static,
{
    let (mut chart, legend) = compose(
        body,
        look,
        entries,
        s,
        x_axis,
        &|_| 0.0..1.05,
        obstacles,
        (s.px(64), s.px(96)),
    )?;
    let text = |v: &f64| tick(*v, ticks.0);
    let y = YTicks {
        text: &text,
        count: None,
    };
    samples_mesh(&mut chart, titles, ticks, y, s)?;
    Ok((chart, legend))
}

#[cfg(test)]
mod tests {
    use super::steps;

    #[test]
    fn steps_rise_by_one_over_n_and_ties_make_one_step() {
        // 1, 2, 2, 3: F jumps 0 → 1/4 at 1, 1/4 → 3/4 at 2, 3/4 → 1 at 3.
        let s = steps(&[2.0, 1.0, 3.0, 2.0]);
        assert_eq!(
            s,
            vec![
                (1.0, 0.0),
                (1.0, 0.25),
                (2.0, 0.25),
                (2.0, 0.75),
                (3.0, 0.75),
                (3.0, 1.0)
            ]
        );
    }

    #[test]
    fn a_million_samples_draw_at_most_two_thousand_steps() {
        let v: Vec<f64> = (0..1_000_000).map(f64::from).collect();
        let s = steps(&v);
        assert!(s.len() <= 2 * super::MAX_STEPS, "{}", s.len());
        assert_eq!(s.last(), Some(&(999_500.0, 1.0)));
    }
}
