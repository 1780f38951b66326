//! Bar charts: one group of bars per x value, one bar per series.

use plotters::prelude::*;

use super::{ChartData, DrawResult, FONT, color, draw_legend, draw_mark_y, frame, tick};

/// Draws a grouped bar chart.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    data: &ChartData,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    // Categories: the distinct x values, in ascending order.
    let mut xs: Vec<f64> = data
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let n = xs.len().max(1);
    // Room above the data for the legend.
    let y_axis = data.y_span(0.3);
    let mut chart = frame(area, &data.title, 0.0..n as f64, y_axis)?;
    // Bar group i is centred on i + 0.5 and labelled with its category or number.
    let label_of = |v: &f64| {
        let i = (v - 0.5).round();
        if (v - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < xs.len() {
            data.x_text(xs[i as usize])
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(&data.x_label)
        .y_desc(&data.y_label)
        .axis_desc_style((FONT, 22))
        .label_style((FONT, 18))
        .x_labels(2 * n + 1)
        .x_label_formatter(&label_of)
        .y_label_formatter(&|v| tick(*v))
        .light_line_style(RGBColor(245, 245, 245))
        .draw()?;
    let k = data.series.len().max(1) as f64;
    let width = 0.8 / k;
    for (j, s) in data.series.iter().enumerate() {
        let c = color(j);
        let bars = s.points.iter().filter_map(|(x, y)| {
            let i = xs.iter().position(|v| v == x)? as f64;
            let left = i + 0.1 + j as f64 * width;
            Some(Rectangle::new(
                [(left, 0.0), (left + width * 0.92, *y)],
                c.filled(),
            ))
        });
        chart
            .draw_series(bars)?
            .label(&s.label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], c.filled()));
    }
    let x_span = chart.x_range();
    draw_mark_y(&mut chart, data, x_span)?;
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 18)
}
