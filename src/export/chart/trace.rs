//! Trace charts: one explored execution step by step, as a sequence of boxes — a row per
//! actor (or resource) whose events it holds, a column per event in the order they ran —
//! each box saying what the step did. An untimed counterexample (every step at 0 ms) has
//! no time to draw a timeline on; its order is the story, so the order is the x axis.

use coordsim_model::explore::TraceStep;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::base::{DrawResult, FONT};
use super::frame::{noted, tick, titled};
use super::layout::{self, Placed, Scale};
use crate::config::charts::Look;
use crate::locale::Locale;

/// Most steps one trace chart draws (a column of about 124 pixels each): past them, the
/// first are drawn and a note says how many were left out.
pub const MAX_TRACE_STEPS: usize = 48;

/// A column's width and a row's height, in chart pixels.
const COLUMN: u32 = 124;
const ROW: u32 = 84;

/// What a trace chart draws.
#[derive(Debug, Clone)]
pub struct TraceChart {
    /// Title.
    pub title: String,
    /// The steps, in order (at most [`MAX_TRACE_STEPS`]).
    pub steps: Vec<TraceStep>,
    /// What it does not draw, and the instant when every step has the same one.
    pub notes: Vec<String>,
    /// The header of the step numbers (`step`).
    pub step_label: String,
    /// The header of the times (`time (ms)`).
    pub time_label: String,
    /// How numbers are written.
    pub locale: Locale,
    /// Its size (set from the number of rows and columns).
    pub look: Look,
}

/// What a step is, for its colours: read off the words the explorer wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Lock,
    Message,
    Other,
}

impl Kind {
    fn of(action: &str) -> Kind {
        let first = action.split_whitespace().next().unwrap_or("");
        match first {
            "reads" => Kind::Read,
            "writes" => Kind::Write,
            "acquires" | "releases" | "renews" | "tries" => Kind::Lock,
            "requests" | "sends" | "puts" | "takes" | "acknowledges" | "a" | "finishes" => {
                Kind::Message
            }
            _ => Kind::Other,
        }
    }

    /// Fill and border.
    fn colours(self) -> (RGBColor, RGBColor) {
        match self {
            Kind::Read => (RGBColor(219, 234, 254), RGBColor(37, 99, 235)),
            Kind::Write => (RGBColor(220, 252, 231), RGBColor(22, 163, 74)),
            Kind::Lock => (RGBColor(254, 243, 199), RGBColor(217, 119, 6)),
            Kind::Message => (RGBColor(237, 233, 254), RGBColor(124, 58, 237)),
            Kind::Other => (RGBColor(243, 244, 246), RGBColor(120, 124, 132)),
        }
    }
}

/// Whether a step is where something went wrong: a lost update, a refused write, a crash,
/// a fault drawn. Drawn in red.
fn alarm(step: &TraceStep) -> bool {
    let a = &step.action;
    a.contains("lost update")
        || a.contains("refused")
        || a == "crashes"
        || step.choice.split("; ").any(|c| c.starts_with("fault ("))
}

/// The draws of a step worth a line in its box (a fault or a chance decided), without the
/// order choice (`1 of 2`), which the step table gives.
fn draws(step: &TraceStep) -> String {
    step.choice
        .split("; ")
        .filter(|c| !c.contains(" of "))
        .collect::<Vec<_>>()
        .join("; ")
}

impl TraceChart {
    /// A trace chart of `steps` (the first [`MAX_TRACE_STEPS`] drawn), sized to hold them.
    pub fn new(
        title: String,
        steps: &[TraceStep],
        labels: (String, String),
        notes: Vec<String>,
        locale: Locale,
    ) -> TraceChart {
        let drawn = &steps[..steps.len().min(MAX_TRACE_STEPS)];
        let rows = rows(drawn).len().max(1) as u32;
        let mut look = Look::default();
        // Room for the names and headers (about 180 pixels), every column, the margins.
        look.width = (220 + COLUMN * drawn.len() as u32 + 24).max(look.width);
        let timed = drawn.windows(2).any(|p| p[0].time_ms != p[1].time_ms);
        look.height = 130 + ROW * rows + if timed { 44 } else { 12 };
        TraceChart {
            title,
            steps: drawn.to_vec(),
            notes,
            step_label: labels.0,
            time_label: labels.1,
            locale,
            look,
        }
    }
}

/// The rows: every name a step has, in the order it first appears.
fn rows(steps: &[TraceStep]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for s in steps {
        if !names.contains(&s.actor.as_str()) {
            names.push(&s.actor);
        }
    }
    names
}

/// Draws the steps.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    t: &TraceChart,
    s: Scale,
) -> DrawResult<Placed>
where
    DB::ErrorType: 'static,
{
    let body = titled(root, &t.title, s)?;
    let body = noted(&body, &t.notes, s)?;
    let names = rows(&t.steps);
    let (w, _) = body.dim_in_pixel();
    let label = |size: u32| (FONT, s.px(size)).into_font().color(&BLACK);
    let width_of = |text: &str, size: u32| {
        body.estimate_text_size(text, &(FONT, s.px(size)).into_text_style(&body))
            .map_or(0, |(w, _)| w)
    };
    // The names and the headers share the left column.
    let name_w = names
        .iter()
        .map(|n| width_of(n, 16))
        .chain([width_of(&t.step_label, 13), width_of(&t.time_label, 13)])
        .max()
        .unwrap_or(0)
        .max(s.px(60));
    let x0 = s.off(20) + name_w as i32 + s.off(16);
    let n = t.steps.len().max(1) as i32;
    let column = ((w as i32 - x0 - s.off(16)) / n).max(s.off(40));
    let top = s.off(36);
    let row = s.off(ROW as i32);
    let centre = |r: usize| top + row * r as i32 + row / 2;
    let grey = RGBColor(150, 150, 150);
    // Headers: the step numbers above, the times below.
    let header = label(13)
        .color(&grey)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    body.draw_text(
        &t.step_label,
        &label(13)
            .color(&grey)
            .pos(Pos::new(HPos::Right, VPos::Bottom)),
        (x0 - s.off(12), top - s.off(6)),
    )?;
    let bottom = top + row * names.len() as i32 + s.off(8);
    let times_differ = t.steps.windows(2).any(|p| p[0].time_ms != p[1].time_ms);
    if times_differ {
        body.draw_text(
            &t.time_label,
            &label(13).color(&grey).pos(Pos::new(HPos::Right, VPos::Top)),
            (x0 - s.off(12), bottom + s.off(4)),
        )?;
    }
    // Each row's name and its line.
    for (r, name) in names.iter().enumerate() {
        let y = centre(r);
        body.draw_text(
            name,
            &label(16).pos(Pos::new(HPos::Right, VPos::Center)),
            (x0 - s.off(12), y),
        )?;
        body.draw(&PathElement::new(
            vec![(x0, y), (x0 + column * n, y)],
            RGBColor(215, 215, 215).stroke_width(s.px(1)),
        ))?;
    }
    let mut last_time = f64::NAN;
    for (j, step) in t.steps.iter().enumerate() {
        let x = x0 + column * j as i32;
        let mid = x + column / 2;
        body.draw_text(&(j + 1).to_string(), &header, (mid, top - s.off(6)))?;
        if times_differ && step.time_ms != last_time {
            body.draw_text(
                &tick(step.time_ms, t.locale),
                &label(13)
                    .color(&grey)
                    .pos(Pos::new(HPos::Center, VPos::Top)),
                (mid, bottom + s.off(4)),
            )?;
        }
        last_time = step.time_ms;
        let r = names.iter().position(|n| *n == step.actor).unwrap_or(0);
        let (fill, border) = Kind::of(&step.action).colours();
        let (fill, border, width) = if alarm(step) {
            (RGBColor(254, 226, 226), RGBColor(220, 38, 38), 3)
        } else {
            (fill, border, 1)
        };
        let half = row / 2 - s.off(6);
        let (bx0, bx1) = (x + s.off(4), x + column - s.off(4));
        let (by0, by1) = (centre(r) - half, centre(r) + half);
        body.draw(&Rectangle::new([(bx0, by0), (bx1, by1)], fill.filled()))?;
        body.draw(&Rectangle::new(
            [(bx0, by0), (bx1, by1)],
            border.stroke_width(s.px(width)),
        ))?;
        let inner = (bx1 - bx0 - s.off(10)).max(1) as u32;
        let extra = draws(step);
        let max_lines = if extra.is_empty() { 4 } else { 3 };
        let (mut lines, size) =
            layout::fit(&body, &step.action, inner, s.px(13), s.px(11), max_lines);
        let mut sizes = vec![size; lines.len()];
        if !extra.is_empty() {
            let (more, small) = layout::fit(&body, &extra, inner, s.px(11), s.px(11), 1);
            sizes.extend(std::iter::repeat_n(small, more.len()));
            lines.extend(more);
        }
        let line_h: i32 = sizes.iter().map(|z| *z as i32 * 5 / 4).sum();
        let mut y = centre(r) - line_h / 2;
        for (k, (line, z)) in lines.iter().zip(&sizes).enumerate() {
            // The draws' line is grey under the action's.
            let colour = if !extra.is_empty() && k + 1 == lines.len() {
                RGBColor(90, 90, 90)
            } else {
                BLACK
            };
            body.draw_text(
                line,
                &(FONT, *z)
                    .into_font()
                    .color(&colour)
                    .pos(Pos::new(HPos::Center, VPos::Top)),
                (mid, y),
            )?;
            y += *z as i32 * 5 / 4;
        }
    }
    Ok(Placed { legend: None })
}
