//! Timeline charts: one lane per applier over virtual time: waiting (with a tick at each failed
//! attempt), holding the lock, the write, giving up, or crashing while holding.

use plotters::prelude::*;

use super::{DrawResult, FONT, draw_legend, frame, tick};
use crate::results::{Table, number};

/// One applier's lane, read from its entity row.
#[derive(Debug, Clone)]
pub struct Lane {
    /// Applier name.
    pub name: String,
    /// When it started.
    pub start: f64,
    /// When it acquired the lock (`None`: never, or no lock).
    pub acquired: Option<f64>,
    /// When it wrote, gave up or crashed.
    pub end: Option<f64>,
    /// Failed attempts.
    pub rounds: u64,
    /// applied, gave_up, crashed or rejected.
    pub outcome: String,
}

/// What a timeline draws.
#[derive(Debug, Clone)]
pub struct Timeline {
    /// Title.
    pub title: String,
    /// Lanes, top to bottom.
    pub lanes: Vec<Lane>,
    /// Interval of the failed attempts (`poll_ms`), if the model polls.
    pub poll: Option<f64>,
}

impl Timeline {
    /// The lanes of one point's first replication, from the entity table.
    pub fn from_entities(title: String, table: &Table, point: &str, poll: Option<f64>) -> Timeline {
        let col = |name: &str| table.column(name);
        let (
            Some(entity),
            Some(start),
            Some(delay),
            Some(end),
            Some(rounds),
            Some(outcome),
            Some(rep),
        ) = (
            col("entity"),
            col("start_ms"),
            col("acquire_delay_ms"),
            col("end_ms"),
            col("rounds"),
            col("outcome"),
            col("replication"),
        )
        else {
            return Timeline {
                title,
                lanes: Vec::new(),
                poll,
            };
        };
        let lanes = table
            .rows
            .iter()
            .filter(|r| r[0] == point && r[rep] == "0")
            .map(|r| {
                let s = number(&r[start]).unwrap_or(0.0);
                Lane {
                    name: r[entity].clone(),
                    start: s,
                    acquired: number(&r[delay]).map(|d| s + d),
                    end: number(&r[end]),
                    rounds: number(&r[rounds]).unwrap_or(0.0) as u64,
                    outcome: r[outcome].clone(),
                }
            })
            .collect();
        Timeline { title, lanes, poll }
    }
}

const WAIT: RGBColor = RGBColor(200, 200, 200);
const HOLD: RGBColor = RGBColor(0, 114, 178);
const WORK: RGBColor = RGBColor(0, 158, 115);
const FAIL: RGBColor = RGBColor(213, 94, 0);
const CRASH: RGBColor = RGBColor(190, 30, 45);

/// Draws the lanes.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    t: &Timeline,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let n = t.lanes.len().max(1);
    let last = t
        .lanes
        .iter()
        .flat_map(|l| [Some(l.start), l.acquired, l.end])
        .flatten()
        .fold(0.0f64, f64::max);
    let first = t
        .lanes
        .iter()
        .map(|l| l.start)
        .fold(f64::INFINITY, f64::min)
        .min(last);
    let span = (last - first).max(1.0);
    // Past the last event: where a crashed holder's lock runs on.
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
    let bar = |y: f64, from: f64, to: f64, color: RGBColor, height: f64| {
        Rectangle::new(
            [
                (from, y - height / 2.0),
                (to.max(from + span * 0.002), y + height / 2.0),
            ],
            color.filled(),
        )
    };
    let mut waits = Vec::new();
    let mut holds = Vec::new();
    let mut works = Vec::new();
    let mut crashes = Vec::new();
    let mut ticks = Vec::new();
    let mut writes = Vec::new();
    let mut failures = Vec::new();
    for (i, lane) in t.lanes.iter().enumerate() {
        let y = n as f64 - i as f64 - 0.5;
        let stop = lane.end.unwrap_or(right);
        match lane.acquired {
            Some(at) => {
                if at > lane.start {
                    waits.push(bar(y, lane.start, at, WAIT, 0.35));
                }
                if lane.outcome == "crashed" {
                    crashes.push(bar(y, at, right, CRASH, 0.5));
                } else {
                    holds.push(bar(y, at, stop, HOLD, 0.5));
                }
            }
            None if lane.outcome == "gave_up" => waits.push(bar(y, lane.start, stop, WAIT, 0.35)),
            // No lock: the applier just works from its start to its write.
            None => works.push(bar(y, lane.start, stop, WORK, 0.5)),
        }
        if let Some(poll) = t.poll {
            for k in 0..lane.rounds {
                ticks.push(PathElement::new(
                    vec![
                        (lane.start + k as f64 * poll, y - 0.22),
                        (lane.start + k as f64 * poll, y + 0.22),
                    ],
                    FAIL.stroke_width(2),
                ));
            }
        }
        match (lane.outcome.as_str(), lane.end) {
            ("applied", Some(end)) => {
                writes.push(TriangleMarker::new((end, y + 0.42), 9, BLACK.filled()))
            }
            ("gave_up" | "rejected", Some(end)) => {
                failures.push(Cross::new((end, y), 9, FAIL.stroke_width(3)))
            }
            _ => {}
        }
    }
    let legend_box = |c: RGBColor| {
        move |(x, y): (i32, i32)| Rectangle::new([(x, y - 6), (x + 18, y + 6)], c.filled())
    };
    chart
        .draw_series(waits)?
        .label("waiting for the lock")
        .legend(legend_box(WAIT));
    chart
        .draw_series(holds)?
        .label("holding the lock (read … write)")
        .legend(legend_box(HOLD));
    if !works.is_empty() {
        chart
            .draw_series(works)?
            .label("working without a lock")
            .legend(legend_box(WORK));
    }
    if !crashes.is_empty() {
        chart
            .draw_series(crashes)?
            .label("crashed holding the lock")
            .legend(legend_box(CRASH));
    }
    if !ticks.is_empty() {
        chart
            .draw_series(ticks)?
            .label("failed attempt")
            .legend(|(x, y)| {
                PathElement::new(vec![(x + 9, y - 7), (x + 9, y + 7)], FAIL.stroke_width(2))
            });
    }
    if !writes.is_empty() {
        chart
            .draw_series(writes)?
            .label("write + release")
            .legend(|(x, y)| TriangleMarker::new((x + 9, y), 7, BLACK.filled()));
    }
    if !failures.is_empty() {
        chart
            .draw_series(failures)?
            .label("gave up / write rejected")
            .legend(|(x, y)| Cross::new((x + 9, y), 7, FAIL.stroke_width(3)));
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 16)
}
