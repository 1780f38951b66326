//! Timeline charts: one lane per actor over virtual time, drawn from the lanes a model emits
//! and styled by the span and mark kinds it declares. Nothing here knows any model.

use coordsim_model::{Lane, MarkShape, TimelineStyle};
use plotters::prelude::*;

use super::{DrawResult, FONT, draw_legend, frame, tick};

/// What a timeline draws.
#[derive(Debug, Clone)]
pub struct Timeline {
    /// Title.
    pub title: String,
    /// Lanes, top to bottom.
    pub lanes: Vec<Lane>,
    /// The model's kinds.
    pub style: TimelineStyle,
}

fn rgb((r, g, b): (u8, u8, u8)) -> RGBColor {
    RGBColor(r, g, b)
}

/// Draws the lanes.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    t: &Timeline,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let n = t.lanes.len().max(1);
    let times = || {
        t.lanes.iter().flat_map(|l| {
            l.spans
                .iter()
                .flat_map(|s| [Some(s.from_ms), s.to_ms])
                .flatten()
                .chain(l.marks.iter().map(|m| m.at_ms))
        })
    };
    let last = times().fold(0.0f64, f64::max);
    let first = times().fold(f64::INFINITY, f64::min).min(last);
    let span = (last - first).max(1.0);
    // Past the last event: where a span that never ends (a resource never released) runs on.
    let right = last + span * 0.08;
    let mut chart = frame(
        area,
        &t.title,
        first - span * 0.02..right,
        0.0..n as f64 + 1.2,
    )?;
    let names: Vec<String> = t.lanes.iter().map(|l| l.name.clone()).collect();
    // Lane i (top first) is centred at y = n − i − 0.5.
    let lane_of = move |v: &f64| {
        let i = n as f64 - v - 0.5;
        if (i - i.round()).abs() < 1e-6 && i >= 0.0 {
            names.get(i.round() as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("virtual time (ms)")
        .axis_desc_style((FONT, 22))
        .label_style((FONT, 18))
        .x_label_formatter(&|v| tick(*v))
        .y_labels(2 * n + 3)
        .y_label_formatter(&lane_of)
        .light_line_style(RGBColor(245, 245, 245))
        .draw()?;
    let y_of = |i: usize| n as f64 - i as f64 - 0.5;
    // Spans, one series per kind (in the model's legend order); a kind no lane uses has no
    // legend entry.
    for kind in t.style.spans {
        let color = rgb(kind.rgb);
        let height = if kind.thin { 0.35 } else { 0.5 };
        let bars: Vec<_> = t
            .lanes
            .iter()
            .enumerate()
            .flat_map(|(i, lane)| {
                lane.spans
                    .iter()
                    .filter(|s| s.kind == kind.name)
                    .map(move |s| (y_of(i), s))
            })
            .map(|(y, s)| {
                let to = s.to_ms.unwrap_or(right).max(s.from_ms + span * 0.002);
                Rectangle::new(
                    [(s.from_ms, y - height / 2.0), (to, y + height / 2.0)],
                    color.filled(),
                )
            })
            .collect();
        if bars.is_empty() {
            continue;
        }
        chart
            .draw_series(bars)?
            .label(kind.label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 18, y + 6)], color.filled()));
    }
    for kind in t.style.marks {
        let color = rgb(kind.rgb);
        let at: Vec<(f64, f64)> = t
            .lanes
            .iter()
            .enumerate()
            .flat_map(|(i, lane)| {
                lane.marks
                    .iter()
                    .filter(|m| m.kind == kind.name)
                    .map(move |m| (m.at_ms, y_of(i)))
            })
            .collect();
        if at.is_empty() {
            continue;
        }
        match kind.shape {
            MarkShape::Tick => {
                chart
                    .draw_series(at.into_iter().map(|(x, y)| {
                        PathElement::new(vec![(x, y - 0.22), (x, y + 0.22)], color.stroke_width(2))
                    }))?
                    .label(kind.label)
                    .legend(move |(x, y)| {
                        PathElement::new(
                            vec![(x + 9, y - 7), (x + 9, y + 7)],
                            color.stroke_width(2),
                        )
                    });
            }
            MarkShape::Triangle => {
                chart
                    .draw_series(
                        at.into_iter()
                            .map(|(x, y)| TriangleMarker::new((x, y + 0.42), 9, color.filled())),
                    )?
                    .label(kind.label)
                    .legend(move |(x, y)| TriangleMarker::new((x + 9, y), 7, color.filled()));
            }
            MarkShape::Cross => {
                chart
                    .draw_series(
                        at.into_iter()
                            .map(|(x, y)| Cross::new((x, y), 9, color.stroke_width(3))),
                    )?
                    .label(kind.label)
                    .legend(move |(x, y)| Cross::new((x + 9, y), 7, color.stroke_width(3)));
            }
        }
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 16)
}
