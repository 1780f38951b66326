//! Line charts: y against x, markers at each point, optional vertical marks (say, capacity).

use plotters::prelude::*;

use super::{ChartData, DrawResult, FONT, color, draw_legend, draw_mark_y, frame, tick, x_range};

/// Draws a line chart.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    data: &ChartData,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let tx = |x: f64| if data.log_x { x.log10() } else { x };
    let xs = data
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| tx(p.0)))
        .chain(data.marks.iter().map(|m| tx(m.0)).filter(|x| x.is_finite()));
    let x_axis = x_range(xs);
    // Room above the data for the legend.
    let y_axis = data.y_span(0.12);
    let mut chart = frame(area, &data.title, x_axis.clone(), y_axis.clone())?;
    let x_fmt = |v: &f64| {
        if data.log_x {
            tick(10f64.powf(*v))
        } else {
            tick(*v)
        }
    };
    chart
        .configure_mesh()
        .x_desc(&data.x_label)
        .y_desc(&data.y_label)
        .axis_desc_style((FONT, 22))
        .label_style((FONT, 18))
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&|v| tick(*v))
        .light_line_style(RGBColor(245, 245, 245))
        .draw()?;
    for (i, s) in data.series.iter().enumerate() {
        let c = color(i);
        let points: Vec<(f64, f64)> = s.points.iter().map(|p| (tx(p.0), p.1)).collect();
        if s.reference {
            // A reference line (theory, arithmetic): dashed, no markers.
            chart
                .draw_series(DashedLineSeries::new(points, 12, 8, c.stroke_width(2)))?
                .label(&s.label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], c.stroke_width(2))
                });
            continue;
        }
        chart
            .draw_series(LineSeries::new(points.clone(), c.stroke_width(3)))?
            .label(&s.label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], c.stroke_width(3)));
        // Earlier series get larger markers of other shapes, so series that coincide (say,
        // two guards that both lose nothing) stay visible on top of each other.
        let size = 8u32.saturating_sub(2 * (i as u32 % 3)).max(3);
        match i % 3 {
            0 => chart.draw_series(points.into_iter().map(|p| Circle::new(p, size, c.filled())))?,
            1 => chart.draw_series(
                points
                    .into_iter()
                    .map(|p| TriangleMarker::new(p, size + 1, c.filled())),
            )?,
            _ => chart.draw_series(
                points
                    .into_iter()
                    .map(|p| Cross::new(p, size, c.stroke_width(2))),
            )?,
        };
    }
    for (x, label) in &data.marks {
        let x = tx(*x);
        if !(x_axis.start..=x_axis.end).contains(&x) {
            continue;
        }
        let grey = RGBColor(90, 90, 90);
        chart
            .draw_series(DashedLineSeries::new(
                vec![(x, y_axis.start), (x, y_axis.end)],
                10,
                6,
                grey.stroke_width(2),
            ))?
            .label(label)
            .legend(move |(lx, ly)| {
                PathElement::new(vec![(lx, ly), (lx + 24, ly)], grey.stroke_width(2))
            });
    }
    let x_span = chart.x_range();
    draw_mark_y(&mut chart, data, x_span)?;
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 18)
}
