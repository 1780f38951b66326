//! Timeline charts: one lane per actor over virtual time, drawn from the lanes a model emits
//! and styled by the span and mark kinds it declares. Nothing here knows any model.

use coordsim_model::{Lane, MarkShape};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::base::{DrawResult, FONT};
use super::frame::{axis_titles, compose, px, tick, titled};
use super::layout::Placed;
use super::layout::{self, Entry, Marker, Obstacles, Rect, Scale, Swatch};
use super::timeline_data::Timeline;
use crate::config::charts::LegendPlace;

fn rgb((r, g, b): (u8, u8, u8)) -> RGBColor {
    RGBColor(r, g, b)
}

fn marker_of(shape: MarkShape) -> Marker {
    match shape {
        MarkShape::Tick => Marker::Circle,
        MarkShape::Triangle => Marker::Triangle,
        MarkShape::Cross => Marker::Cross,
        MarkShape::Diamond => Marker::Diamond,
    }
}

/// Past this many lanes a `best` legend goes beside the plot.
const MANY_LANES: usize = 12;

/// The smallest width a span is drawn at, as a share of the time axis (about three pixels
/// of a 1000-pixel chart): spans are drawn to scale, and one too short to see (a hold of
/// 0 ms) is a tick, never a bar widened to look as if it lasted.
const MIN_SPAN_SHARE: f64 = 0.003;

/// The time axis over the lanes' times: from a little before the first, so what happens at
/// the first instant is drawn whole beside the axis line (no tick is labelled below 0), to
/// past the last, where a span that never ends runs on; at least 1 ms wide, so a run whose
/// activity is all at one instant still has an axis to place it on.
pub(super) fn time_axis(first: f64, last: f64) -> std::ops::Range<f64> {
    let span = (last - first).max(1.0);
    let left = first - span * 0.03;
    let right = (last + span * 0.08).max(first + span);
    left..right
}

/// Bars of one span kind: (kind index, bars as (from, to, top, height)).
type Bars = Vec<(usize, Vec<(f64, f64, f64, f64)>)>;
/// Marks of one mark kind: (kind index, points as (at, row centre, lift of a mark drawn
/// above the row)).
type Marks = Vec<(usize, Vec<(f64, f64, f64)>)>;

/// What a timeline draws, placed on its axes: every kind's bars and marks (in the model's
/// legend order; a kind no lane uses has none, and no legend entry).
struct Items {
    spans: Bars,
    marks: Marks,
}

/// The centre of sub-row `row` of `rows` on the lane centred at `y`, and the share of the
/// lane's height each row has: rows split the lane's middle 0.8 from the top down (one row:
/// the lane's centre, its full height).
pub(super) fn row_centre(y: f64, row: u8, rows: u8) -> (f64, f64) {
    let rows = f64::from(rows.max(1));
    let share = 1.0 / rows;
    (y + 0.4 - (f64::from(row) + 0.5) * 0.8 * share, share)
}

impl Items {
    /// Lane i (top first) is centred at y = n − i − 0.5; a span that never ends runs to
    /// `right`; a zero-length one is `min_width` wide.
    fn new(t: &Timeline, right: f64, min_width: f64) -> Items {
        let window = t.look.window.map(|(a, b)| (a, b.min(right)));
        let n = t.lanes.len().max(1);
        let y_of = |i: usize| n as f64 - i as f64 - 0.5;
        let rows: Vec<u8> = t.lanes.iter().map(Lane::rows).collect();
        let heights: Vec<f64> = t
            .style
            .spans
            .iter()
            .map(|k| if k.thin { 0.35 } else { 0.5 })
            .collect();
        let spans: Bars = t
            .style
            .spans
            .iter()
            .enumerate()
            .map(|(k, kind)| {
                let bars = t
                    .lanes
                    .iter()
                    .enumerate()
                    .flat_map(|(i, lane)| {
                        let rows = &rows;
                        lane.spans()
                            .iter()
                            .filter(|sp| sp.kind == kind.name && super::base::drawable(sp.from_ms))
                            .map(move |sp| (row_centre(y_of(i), sp.row, rows[i]), sp))
                    })
                    .filter_map(|((y, share), sp)| {
                        let to = sp
                            .to_ms
                            .filter(|v| super::base::drawable(*v))
                            .unwrap_or(right);
                        // Within the window, clipped to it; a span wholly outside is not drawn.
                        let (from, to) = match window {
                            Some((a, b)) if to < a || sp.from_ms > b => return None,
                            Some((a, b)) => (sp.from_ms.max(a), to.min(b)),
                            None => (sp.from_ms, to),
                        };
                        // One row: the kind's own height; several: a share of the lane's.
                        let h = if share >= 1.0 {
                            heights[k]
                        } else {
                            0.8 * share * heights[k] / 0.55
                        };
                        Some((from, to.max(from + min_width), y + h / 2.0, h))
                    })
                    .collect();
                (k, bars)
            })
            .filter(|(_, b): &(usize, Vec<_>)| !b.is_empty())
            .collect();
        let marks: Marks = t
            .style
            .marks
            .iter()
            .enumerate()
            .map(|(k, kind)| {
                let at = t
                    .lanes
                    .iter()
                    .enumerate()
                    .flat_map(|(i, lane)| {
                        let rows = &rows;
                        lane.marks()
                            .iter()
                            .filter(|m| m.kind == kind.name && super::base::drawable(m.at_ms))
                            .filter(move |m| window.is_none_or(|(a, b)| (a..=b).contains(&m.at_ms)))
                            .map(move |m| {
                                let (y, share) = row_centre(y_of(i), m.row, rows[i]);
                                (m.at_ms, y, 0.42 * share)
                            })
                    })
                    .collect();
                (k, at)
            })
            .filter(|(_, a): &(usize, Vec<_>)| !a.is_empty())
            .collect();
        Items { spans, marks }
    }

    /// One legend entry per kind drawn.
    fn legend(&self, t: &Timeline) -> Vec<Entry> {
        let mut entries: Vec<Entry> = self
            .spans
            .iter()
            .map(|(k, _)| {
                let kind = &t.style.spans[*k];
                Entry {
                    label: t.span_labels[*k].clone(),
                    swatch: if kind.thin {
                        Swatch::ThinBlock(rgb(kind.rgb))
                    } else {
                        Swatch::Block(rgb(kind.rgb))
                    },
                }
            })
            .collect();
        entries.extend(super::levels::entries(t));
        entries.extend(self.marks.iter().map(|(k, _)| {
            let kind = &t.style.marks[*k];
            Entry {
                label: t.mark_labels[*k].clone(),
                swatch: match kind.shape {
                    MarkShape::Tick => Swatch::Tick(rgb(kind.rgb)),
                    shape => Swatch::Mark(marker_of(shape), rgb(kind.rgb)),
                },
            }
        }));
        entries
    }

    /// Where the bars and marks are in pixels, for the legend to avoid.
    fn obstacles<DB: DrawingBackend>(
        &self,
        chart: &super::base::Chart2d<'_, DB>,
        t: &Timeline,
        right: f64,
    ) -> Obstacles {
        let mut o = Obstacles::default();
        super::levels::obstacles(chart, t, right, &mut o);
        for (_, bars) in &self.spans {
            for (from, to, top, h) in bars {
                let (a, b) = (px(chart, (*from, *top)), px(chart, (*to, top - h)));
                o.rects.push(Rect {
                    x0: a.0.min(b.0),
                    y0: a.1.min(b.1),
                    x1: a.0.max(b.0),
                    y1: a.1.max(b.1),
                });
            }
        }
        for (_, at) in &self.marks {
            o.points
                .extend(at.iter().map(|p| px(chart, (p.0, p.1 + p.2))));
            o.points.extend(at.iter().map(|p| px(chart, (p.0, p.1))));
        }
        o
    }

    /// Draws the bars, then the marks (`mark_px` wide) over them.
    fn draw<DB: DrawingBackend>(
        &self,
        chart: &mut super::base::Chart2d<'_, DB>,
        t: &Timeline,
        mark_px: i32,
        s: Scale,
    ) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        for (k, bars) in &self.spans {
            let color = rgb(t.style.spans[*k].rgb);
            chart.draw_series(bars.iter().map(|(from, to, top, h)| {
                Rectangle::new([(*from, *top), (*to, top - h)], color.filled())
            }))?;
        }
        for (k, at) in &self.marks {
            let kind = &t.style.marks[*k];
            let color = rgb(kind.rgb);
            match kind.shape {
                MarkShape::Tick => {
                    chart.draw_series(at.iter().map(|(x, y, lift)| {
                        let half = lift * 0.22 / 0.42;
                        PathElement::new(
                            vec![(*x, y - half), (*x, y + half)],
                            color.stroke_width(s.px(2)),
                        )
                    }))?;
                }
                MarkShape::Triangle => {
                    chart.draw_series(at.iter().map(|(x, y, lift)| {
                        TriangleMarker::new((*x, y + lift), mark_px, color.filled())
                    }))?;
                }
                MarkShape::Cross => {
                    chart.draw_series(at.iter().map(|(x, y, _)| {
                        Cross::new((*x, *y), mark_px, color.stroke_width(s.px(3)))
                    }))?;
                }
                MarkShape::Diamond => {
                    let area = chart.plotting_area().strip_coord_spec();
                    let (ox, oy) = area.get_base_pixel();
                    for p in at {
                        let (x, y) = px(chart, (p.0, p.1));
                        layout::draw_marker(
                            &area,
                            Marker::Diamond,
                            (x - ox, y - oy),
                            mark_px,
                            color,
                        )?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The time axis of a timeline: from before its first event to past its last.
fn axis_of(t: &Timeline) -> std::ops::Range<f64> {
    let times = || {
        t.lanes
            .iter()
            .flat_map(|l| {
                l.spans()
                    .iter()
                    .flat_map(|s| [Some(s.from_ms), s.to_ms])
                    .flatten()
                    .chain(l.marks().iter().map(|m| m.at_ms))
                    .chain(l.levels().iter().map(|p| p.at_ms))
            })
            .filter(|v| super::base::drawable(*v))
    };
    let last = times().fold(0.0f64, f64::max);
    let first = times().fold(f64::INFINITY, f64::min).min(last);
    match t.look.window {
        // The window exactly (an open end: the run's last event, and a little past it).
        Some((from, to)) if to.is_finite() => from..to,
        Some((from, _)) => from..time_axis(first.max(from), last.max(from)).end,
        None => time_axis(first, last),
    }
}

/// Pixels a sub-row of a lane keeps on a phone's rendering: a bar and its marks, apart
/// from the next row's.
const NARROW_ROW_PX: u32 = 40;

/// Pixels a phone's rendering of a timeline spends beside its lanes and its legend: the
/// title (two lines at most there), the time axis and its title, the margins.
const NARROW_FRAME_PX: u32 = 240;

/// Most pixels a phone's rendering of a timeline grows to (a chart's largest side): past
/// about a hundred lane rows, they share it.
const NARROW_MAX_PX: u32 = 4000;

/// The height a phone's rendering of `t` needs: its lanes' rows at [`NARROW_ROW_PX`] each
/// and its legend, which goes under the plot there, each entry a line of the legend's font
/// (a phone is read scrolling down: a timeline of many lanes or kinds grows, not squeezes),
/// at most [`NARROW_MAX_PX`].
pub(super) fn narrow_height(t: &Timeline, s: Scale) -> u32 {
    let axis = axis_of(t);
    let items = Items::new(t, axis.end, (axis.end - axis.start) * MIN_SPAN_SHARE);
    let entries = items.legend(t).len() as u32;
    let rows: u32 = t.lanes.iter().map(|lane| u32::from(lane.rows())).sum();
    let offset = |n: i32| u32::try_from(s.off(n)).unwrap_or(0);
    let legend_line = s.font(layout::LEGEND_FONT) + offset(9);
    (NARROW_FRAME_PX + rows.max(1) * NARROW_ROW_PX + entries * legend_line + offset(24))
        .min(NARROW_MAX_PX)
}

/// Draws the lanes.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    t: &Timeline,
    s: Scale,
) -> DrawResult<Placed>
where
    DB::ErrorType: 'static,
{
    let n = t.lanes.len().max(1);
    let axis = axis_of(t);
    let (left, right) = (axis.start, axis.end);
    let items = Items::new(t, right, (right - left) * MIN_SPAN_SHARE);
    let entries = items.legend(t);
    let body = titled(root, &t.title, s)?;
    let body = super::frame::noted(&body, &t.notes, s)?;
    let titles = axis_titles(&body, &t.x_label, "", s);
    let names: Vec<String> = t.lanes.iter().map(|l| layout::clean(&l.name)).collect();
    // The lane names' width decides the label area (long entity names are not clipped).
    let name_w = names
        .iter()
        .map(|nm| {
            body.estimate_text_size(nm, &(FONT, s.font(17)).into_text_style(&body))
                .map_or(0, |(w, _)| w)
        })
        .max()
        .unwrap_or(0);
    // Many lanes leave no free corner: raising the axis for the legend would squeeze them,
    // so a `best` legend goes beside the plot.
    let mut look = t.look.clone();
    if look.legend == LegendPlace::Best && n > MANY_LANES {
        look.legend = LegendPlace::Outside;
    }
    let (mut chart, legend) = compose(
        &body,
        &look,
        &entries,
        s,
        left..right,
        &|headroom| 0.0..n as f64 + 0.3 + (n as f64 + 0.3) * headroom,
        &|chart| items.obstacles(chart, t, right),
        (s.px(64), (name_w + s.px(24)).clamp(s.px(60), s.px(320))),
    )?;
    // Lane i (top first) is centred at y = n − i − 0.5. With more lanes than names fit
    // (a name needs about 20 pixels of the lanes' share of the plot), every k-th is named.
    let (plot_w, plot_h) = chart.plotting_area().dim_in_pixel();
    let lanes_px = f64::from(plot_h) * n as f64 / chart.y_range().end.max(1.0);
    // Markers as large as a lane lets them be (9 pixels, less when lanes are thin), so a
    // mark stays on its own lane.
    let mark_px = ((lanes_px / n as f64 * 0.4).round() as i32).clamp(2, s.off(9));
    let every = n
        .div_ceil((lanes_px / f64::from(s.px(20))).max(1.0) as usize)
        .max(1);
    let lane_of = move |v: &f64| {
        let i = n as f64 - v - 0.5;
        if (i - i.round()).abs() < 1e-6 && i >= 0.0 && (i.round() as usize).is_multiple_of(every) {
            names.get(i.round() as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let top = chart.y_range().end;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc(&titles.x.0)
        .axis_desc_style((FONT, titles.x.1))
        .label_style((FONT, s.font(17)))
        // Room for every tick's number (about 110 pixels for `10,000,000`).
        .x_labels((plot_w / s.px(110)).clamp(3, 12) as usize)
        .x_label_formatter(&|v| {
            // Virtual time starts at 0: the margin before it has no labels.
            if *v < -1e-9 {
                String::new()
            } else {
                tick(*v, t.locale)
            }
        })
        .y_labels((2.0 * top).round() as usize + 1)
        .y_label_formatter(&lane_of)
        .light_line_style(RGBColor(245, 245, 245))
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()?;
    super::levels::density(&mut chart, t, (left, right), s)?;
    items.draw(&mut chart, t, mark_px, s)?;
    // A level over the spans: a queue's line stays readable across its server's down window.
    super::levels::draw(&mut chart, t, right, s)?;
    super::levels::separator(&mut chart, t, (left, right), s)?;
    super::frame::finish(root, &chart, legend, &entries, &look, s)
}
