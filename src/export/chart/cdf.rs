//! CDF charts: the empirical distribution of each sample set as a step line (a metric over
//! the runs, or one point's per-request values).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::base::{DrawResult, FONT};
use super::data::ChartData;
use super::frame::{axis_titles, compose, px, tick, titled, x_range};
use super::layout::Placed;
use super::layout::{self, Entry, Obstacles, Scale, Swatch};

/// Most steps drawn per curve: a million samples draw as 2,000 evenly spaced quantiles
/// (the curve looks the same; the SVG stays small).
const MAX_STEPS: usize = 2000;

/// The step points of one sample set's empirical cdf.
fn steps(values: &[f64]) -> Vec<(f64, f64)> {
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
    let (mut chart, legend) = compose(
        &body,
        &data.look,
        &entries,
        s,
        x_axis,
        // Probabilities: 0 to 1 always, a little room on top.
        &|_| 0.0..1.05,
        &obstacles,
        (s.px(64), s.px(96)),
    )?;
    // plotters' own ticks at full size; as many as fit on a phone's rendering.
    let x_text = |v: f64| tick(v, data.locale);
    let x_ticks = s
        .narrow()
        .then(|| super::frame::x_ticks(&chart, s, 10, false, &x_text));
    let mut mesh = chart.configure_mesh();
    if let Some(ticks) = &x_ticks {
        mesh.x_labels(ticks.ask);
    }
    mesh.x_desc(&titles.x.0)
        .y_desc(&titles.y.0)
        .axis_desc_style((FONT, titles.y.1.min(titles.x.1)))
        .label_style((FONT, s.font(17)))
        .x_label_formatter(&|v| match &x_ticks {
            Some(ticks) => ticks.label(*v, x_text),
            None => x_text(*v),
        })
        .y_label_formatter(&|v| tick(*v, data.locale))
        .light_line_style(RGBColor(245, 245, 245))
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()?;
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
