//! Bar charts: one group of bars per x value, one bar per series.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::base::{DrawResult, FONT};
use super::data::{ChartData, draw_mark_y, mark_y_entry};
use super::frame::{axis_titles, compose, integer_labels, px, titled};
use super::layout::Placed;
use super::layout::{self, Entry, Obstacles, Rect, Scale, Swatch};

/// Draws a grouped bar chart.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    s: Scale,
) -> DrawResult<Placed>
where
    DB::ErrorType: 'static,
{
    let ty = |y: f64| if data.look.log_y { y.log10() } else { y };
    // Categories: the distinct x values, in ascending order.
    let mut xs: Vec<f64> = data
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let n = xs.len().max(1);
    let k = data.series.len().max(1) as f64;
    let width = 0.8 / k;
    // Every bar as (left, right, y) in data units; the base is the axis floor.
    let bars: Vec<Vec<(f64, f64, f64)>> = data
        .series
        .iter()
        .enumerate()
        .map(|(j, se)| {
            se.points
                .iter()
                .filter_map(|(x, y)| {
                    let i = xs.iter().position(|v| v == x)? as f64;
                    let left = i + 0.1 + j as f64 * width;
                    Some((left, left + width * 0.92, ty(*y)))
                })
                .filter(|b| super::base::drawable(b.2))
                .collect()
        })
        .collect();
    let mut entries: Vec<Entry> = data
        .series
        .iter()
        .enumerate()
        .map(|(i, se)| Entry {
            label: se.label.clone(),
            swatch: Swatch::Block(layout::color(i)),
        })
        .collect();
    entries.extend(mark_y_entry(data));

    let body = titled(root, &data.title, s)?;
    let body = super::frame::noted(&body, &data.notes, s)?;
    let titles = axis_titles(&body, &data.x_label, &data.y_label, s);
    let floor = |range: &std::ops::Range<f64>| {
        if data.look.log_y {
            range.start
        } else {
            0f64.max(range.start)
        }
    };
    let obstacles = |chart: &super::base::Chart2d<'_, DB>| {
        let mut o = Obstacles::default();
        let base = floor(&chart.y_range());
        for series in &bars {
            for (l, r, y) in series {
                let (a, b) = (px(chart, (*l, *y)), px(chart, (*r, base)));
                o.rects.push(Rect {
                    x0: a.0.min(b.0),
                    y0: a.1.min(b.1),
                    x1: a.0.max(b.0),
                    y1: a.1.max(b.1),
                });
            }
        }
        if let Some((y, _)) = &data.mark_y {
            o.segments
                .push((px(chart, (0.0, ty(*y))), px(chart, (n as f64, ty(*y)))));
        }
        o
    };
    let (mut chart, legend) = compose(
        &body,
        &data.look,
        &entries,
        s,
        0.0..n as f64,
        &|headroom| data.y_axis(headroom),
        &obstacles,
        (s.px(64), s.px(96)),
    )?;
    // Bar group i is centred on i + 0.5 and labelled with its category or number; with
    // more groups than labels fit (about 50 pixels each), every k-th.
    let (plot_w, _) = chart.plotting_area().dim_in_pixel();
    let every = n.div_ceil((plot_w / s.px(50)).max(1) as usize).max(1);
    let label_of = |v: &f64| {
        let i = (v - 0.5).round();
        if (v - 0.5 - i).abs() < 1e-6
            && i >= 0.0
            && (i as usize) < xs.len()
            && (i as usize).is_multiple_of(every)
        {
            data.x_text(xs[i as usize])
        } else {
            String::new()
        }
    };
    let y_axis = chart.y_range();
    let y_fmt = |v: &f64| data.y_text(*v);
    let mut mesh = chart.configure_mesh();
    mesh.disable_x_mesh()
        .x_desc(&titles.x.0)
        .y_desc(&titles.y.0)
        .axis_desc_style((FONT, titles.y.1.min(titles.x.1)))
        .label_style((FONT, s.font(17)))
        .x_labels(2 * n + 1)
        .x_label_formatter(&label_of)
        .y_label_formatter(&y_fmt)
        .light_line_style(RGBColor(245, 245, 245))
        .bold_line_style(RGBColor(225, 225, 225));
    if data.look.log_y {
        mesh.y_labels(super::frame::log_labels(&y_axis));
    } else if data.y_integer {
        mesh.y_labels(integer_labels(&y_axis, 11));
    }
    mesh.draw()?;
    let base = floor(&y_axis);
    for (j, series) in bars.iter().enumerate() {
        let c = layout::color(j);
        chart.draw_series(
            series
                .iter()
                .map(|(l, r, y)| Rectangle::new([(*l, base), (*r, *y)], c.filled())),
        )?;
    }
    let x_span = chart.x_range();
    draw_mark_y(&mut chart, data, x_span, s)?;
    let mut placed = super::frame::finish(root, &chart, legend, &entries, &data.look, s)?;
    placed.points = tops(&chart, data, &xs, &ty);
    Ok(placed)
}

/// Each bar's top middle, where the pointer finds it (`None`: a bar not drawn), as `draw`
/// places the bars: group i from i + 0.1, `0.8 / series` per bar.
fn tops<DB: DrawingBackend>(
    chart: &super::base::Chart2d<'_, DB>,
    data: &ChartData,
    xs: &[f64],
    ty: &dyn Fn(f64) -> f64,
) -> Vec<Vec<Option<(i32, i32)>>> {
    let width = 0.8 / data.series.len().max(1) as f64;
    let (x_px, y_px) = chart.plotting_area().get_pixel_range();
    (data.series.iter().enumerate())
        .map(|(j, se)| {
            (se.points.iter())
                .map(|(x, y)| {
                    let i = xs.iter().position(|v| v == x)? as f64;
                    let middle = i + 0.1 + (j as f64 + 0.46) * width;
                    let top = ty(*y);
                    let at = super::base::drawable(top).then(|| px(chart, (middle, top)))?;
                    let y = at.1.clamp(y_px.start, y_px.end - 1);
                    x_px.contains(&at.0).then_some((at.0, y))
                })
                .collect()
        })
        .collect()
}
