//! Line charts: y against x, a marker at each point, 95% intervals with replications,
//! optional vertical marks (say, capacity) and a horizontal one.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::base::{DrawResult, FONT};
use super::data::{ChartData, draw_mark_y, mark_y_entry};
use super::frame::{axis_titles, compose, integer_labels, px, tick, titled, x_range};
use super::layout::Placed;
use super::layout::{self, Entry, Obstacles, Scale, Swatch};

const MARK_GREY: RGBColor = RGBColor(90, 90, 90);

/// One entry per series, the interval bars when drawn, every vertical mark and the
/// horizontal one.
fn legend(data: &ChartData) -> Vec<Entry> {
    let mut entries: Vec<Entry> = data
        .series
        .iter()
        .enumerate()
        .map(|(i, se)| Entry {
            label: se.label.clone(),
            swatch: Swatch::Line {
                color: layout::series_color(i, se.color),
                width: if se.reference { 2 } else { 3 },
                dashed: se.reference || layout::dashed(i),
                marker: (!se.reference).then(|| layout::marker(i)),
            },
        })
        .collect();
    if data.series.iter().any(|se| !se.intervals.is_empty()) {
        entries.push(Entry {
            label: data.interval_label.clone(),
            swatch: Swatch::ErrorBar(RGBColor(90, 90, 90)),
        });
    }
    entries.extend(data.marks.iter().map(|(_, label)| Entry {
        label: label.clone(),
        swatch: Swatch::Line {
            color: MARK_GREY,
            width: 2,
            dashed: true,
            marker: None,
        },
    }));
    entries.extend(mark_y_entry(data));
    entries
}

/// The chart's axes: x and y as drawn (log10 of the values on a log axis).
struct Axes<'d> {
    data: &'d ChartData,
    x: std::ops::Range<f64>,
}

impl Axes<'_> {
    fn tx(&self, x: f64) -> f64 {
        if self.data.log_x { x.log10() } else { x }
    }

    fn ty(&self, y: f64) -> f64 {
        if self.data.look.log_y { y.log10() } else { y }
    }

    /// An interval bar's ends in pixels. On a log y axis a low end at or below 0 has no
    /// place: the bar runs to the bottom of the plot (the interval reaches below it).
    fn interval<DB: DrawingBackend>(
        &self,
        chart: &super::base::Chart2d<'_, DB>,
        (x, lo, hi): (f64, f64, f64),
    ) -> ((i32, i32), (i32, i32)) {
        let floor = chart.y_range().start;
        let y = |v: f64| {
            let t = self.ty(v);
            if t.is_finite() { t.max(floor) } else { floor }
        };
        let x = self.tx(x);
        (px(chart, (x, y(lo))), px(chart, (x, y(hi))))
    }
}

/// Every line, the interval bars and the marks in the chart's pixels, for the legend to
/// avoid.
fn obstacles<DB: DrawingBackend>(
    chart: &super::base::Chart2d<'_, DB>,
    axes: &Axes<'_>,
    lines: &[Vec<(f64, f64)>],
) -> Obstacles {
    let data = axes.data;
    let mut o = Obstacles::default();
    for line in lines {
        let pts: Vec<(i32, i32)> = line.iter().map(|p| px(chart, *p)).collect();
        o.points.extend(pts.iter().copied());
        o.segments.extend(pts.windows(2).map(|w| (w[0], w[1])));
    }
    for se in &data.series {
        for i in &se.intervals {
            o.segments.push(axes.interval(chart, *i));
        }
    }
    if let Some((y, _)) = &data.mark_y {
        let (a, b) = (
            px(chart, (axes.x.start, axes.ty(*y))),
            px(chart, (axes.x.end, axes.ty(*y))),
        );
        o.segments.push((a, b));
    }
    // The vertical marks run the plot's height.
    let height = chart.y_range();
    for (x, _) in &data.marks {
        let x = axes.tx(*x);
        if (axes.x.start..=axes.x.end).contains(&x) {
            o.segments
                .push((px(chart, (x, height.start)), px(chart, (x, height.end))));
        }
    }
    o
}

/// Draws each series (a thick line or a dashed one, its interval bars and its markers).
fn draw_series<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &mut super::base::Chart2d<'_, DB>,
    axes: &Axes<'_>,
    lines: &[Vec<(f64, f64)>],
    s: Scale,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    for (i, se) in axes.data.series.iter().enumerate() {
        let c = layout::series_color(i, se.color);
        let points = &lines[i];
        if se.reference || layout::dashed(i) {
            // A reference line (theory, arithmetic): dashed, no markers.
            chart.draw_series(DashedLineSeries::new(
                points.clone(),
                s.px(12),
                s.px(8),
                c.stroke_width(s.px(if se.reference { 2 } else { 3 })),
            ))?;
        } else {
            let pixels: Vec<(i32, i32)> = points.iter().map(|p| px(chart, *p)).collect();
            layout::thick_line(root, &pixels, c, s.px(3))?;
        }
        // Interval bars with caps, in the series' colour.
        for i in &se.intervals {
            let (a, b) = axes.interval(chart, *i);
            let cap = s.off(6);
            let st = c.mix(0.85).stroke_width(s.px(2));
            let area = chart.plotting_area().strip_coord_spec();
            let (ox, oy) = (area.get_base_pixel().0, area.get_base_pixel().1);
            let local = |p: (i32, i32)| (p.0 - ox, p.1 - oy);
            area.draw(&PathElement::new(vec![local(a), local(b)], st))?;
            area.draw(&PathElement::new(
                vec![local((a.0 - cap, a.1)), local((a.0 + cap, a.1))],
                st,
            ))?;
            area.draw(&PathElement::new(
                vec![local((b.0 - cap, b.1)), local((b.0 + cap, b.1))],
                st,
            ))?;
        }
        if se.reference {
            continue;
        }
        // Earlier series get larger markers, so series that coincide (say, two guards that
        // both lose nothing) stay visible on top of each other.
        let size = s.off(8 - 2 * (i as i32 % 3)).max(s.off(4));
        let area = chart.plotting_area().strip_coord_spec();
        let (ox, oy) = area.get_base_pixel();
        for p in points {
            let (x, y) = px(chart, *p);
            layout::draw_marker(&area, layout::marker(i), (x - ox, y - oy), size, c)?;
        }
    }
    Ok(())
}

/// Draws a line chart.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    s: Scale,
) -> DrawResult<Placed>
where
    DB::ErrorType: 'static,
{
    let mut axes = Axes { data, x: 0.0..1.0 };
    let xs: Vec<f64> = data
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| axes.tx(p.0)))
        .chain(
            data.marks
                .iter()
                .map(|m| axes.tx(m.0))
                .filter(|x| super::base::drawable(*x)),
        )
        .collect();
    axes.x = x_range(xs.into_iter());
    let x_axis = axes.x.clone();
    // Every line as drawn.
    let lines: Vec<Vec<(f64, f64)>> = data
        .series
        .iter()
        .map(|se| {
            se.points
                .iter()
                .map(|p| (axes.tx(p.0), axes.ty(p.1)))
                .filter(|p| super::base::drawable(p.0) && super::base::drawable(p.1))
                .collect()
        })
        .collect();
    let entries = legend(data);
    let body = titled(root, &data.title, s)?;
    let body = super::frame::noted(&body, &data.notes, s)?;
    let titles = axis_titles(&body, &data.x_label, &data.y_label, s);
    let (mut chart, legend) = compose(
        &body,
        &data.look,
        &entries,
        s,
        x_axis.clone(),
        &|headroom| data.y_axis(headroom),
        &|chart| obstacles(chart, &axes, &lines),
        (s.px(64), s.px(96)),
    )?;
    let y_axis = chart.y_range();
    let x_text = |v: f64| {
        if data.log_x {
            tick(10f64.powf(v), data.locale)
        } else {
            tick(v, data.locale)
        }
    };
    // Whole numbers get a tick each (up to 12) where their labels fit, never fewer than
    // two; other axes keep plotters' own ticks at full size, and as many as fit on a
    // phone's rendering.
    let whole = data.x_integer && !data.log_x;
    let x_ticks = (whole || s.narrow()).then(|| {
        let usual = if whole {
            integer_labels(&x_axis, 12)
        } else {
            10
        };
        super::frame::x_ticks(&chart, s, usual, whole, &x_text)
    });
    let x_fmt = |v: &f64| {
        if whole && (v - v.round()).abs() > 1e-9 {
            String::new()
        } else {
            match &x_ticks {
                Some(ticks) => ticks.label(*v, x_text),
                None => x_text(*v),
            }
        }
    };
    let y_fmt = |v: &f64| data.y_text(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(&titles.x.0)
        .y_desc(&titles.y.0)
        .axis_desc_style((FONT, titles.y.1.min(titles.x.1)))
        .label_style((FONT, s.font(17)))
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .light_line_style(RGBColor(245, 245, 245))
        .bold_line_style(RGBColor(225, 225, 225));
    if data.look.log_y {
        mesh.y_labels(super::frame::log_labels(&y_axis));
    } else if data.y_integer {
        mesh.y_labels(integer_labels(&y_axis, 11));
    }
    if let Some(ticks) = &x_ticks {
        mesh.x_labels(ticks.ask);
    }
    mesh.draw()?;
    draw_series(root, &mut chart, &axes, &lines, s)?;
    for (x, _) in &data.marks {
        let x = axes.tx(*x);
        if !(x_axis.start..=x_axis.end).contains(&x) {
            continue;
        }
        chart.draw_series(DashedLineSeries::new(
            vec![(x, y_axis.start), (x, y_axis.end)],
            s.px(10),
            s.px(6),
            MARK_GREY.stroke_width(s.px(2)),
        ))?;
    }
    let x_span = chart.x_range();
    draw_mark_y(&mut chart, data, x_span, s)?;
    let mut placed = super::frame::finish(root, &chart, legend, &entries, &data.look, s)?;
    // A point off the plot (past a fixed axis range) is not drawn: nothing to point at.
    let (x_px, y_px) = chart.plotting_area().get_pixel_range();
    placed.points = (data.series.iter())
        .map(|se| {
            (se.points.iter())
                .map(|p| {
                    let p = (axes.tx(p.0), axes.ty(p.1));
                    let drawn = super::base::drawable(p.0) && super::base::drawable(p.1);
                    let at = drawn.then(|| px(&chart, p))?;
                    (x_px.contains(&at.0) && y_px.contains(&at.1)).then_some(at)
                })
                .collect()
        })
        .collect();
    Ok(placed)
}
