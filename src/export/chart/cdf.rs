//! CDF charts: the empirical distribution of each y metric over the rows (e.g. replications).

use plotters::prelude::*;

use super::{ChartData, DrawResult, FONT, color, draw_legend, frame, tick, x_range};

/// Draws empirical CDFs as step lines.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    data: &ChartData,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let x_axis = x_range(data.samples.iter().flat_map(|(_, v)| v.iter().copied()));
    let mut chart = frame(area, &data.title, x_axis, 0.0..1.05)?;
    chart
        .configure_mesh()
        .x_desc(&data.x_label)
        .y_desc("fraction of runs ≤ x")
        .axis_desc_style((FONT, 22))
        .label_style((FONT, 18))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .light_line_style(RGBColor(245, 245, 245))
        .draw()?;
    for (i, (label, values)) in data.samples.iter().enumerate() {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len() as f64;
        let mut steps = Vec::with_capacity(2 * sorted.len());
        for (k, v) in sorted.iter().enumerate() {
            steps.push((*v, k as f64 / n));
            steps.push((*v, (k + 1) as f64 / n));
        }
        let c = color(i);
        chart
            .draw_series(LineSeries::new(steps, c.stroke_width(3)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], c.stroke_width(3)));
    }
    draw_legend(&mut chart, SeriesLabelPosition::LowerRight, 18)
}
