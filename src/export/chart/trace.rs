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
pub(crate) const MAX_TRACE_STEPS: usize = 48;

/// A column's width and a row's height, in chart pixels.
const COLUMN: u32 = 124;
const ROW: u32 = 84;

/// What a trace chart draws.
#[derive(Debug, Clone)]
pub(crate) struct TraceChart {
    /// Title.
    pub(crate) title: String,
    /// The columns, in order (at most [`MAX_TRACE_STEPS`]).
    pub(crate) columns: Vec<Column>,
    /// What it does not draw, and the instant when every step has the same one.
    pub(crate) notes: Vec<String>,
    /// The header of the step numbers (`step`).
    pub(crate) step_label: String,
    /// The header of the times (`time (ms)`).
    pub(crate) time_label: String,
    /// How numbers are written.
    pub(crate) locale: Locale,
    /// Its size (set from the number of rows and columns).
    pub(crate) look: Look,
}

/// One column: a step, or a run of the same step repeated by one actor (a poll that keeps
/// failing), drawn once with `×N`.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    /// Its first step's number, from 1.
    pub(crate) first: usize,
    /// How many steps it stands for.
    pub(crate) count: usize,
    /// The step (its first time).
    pub(crate) step: TraceStep,
    /// The time of its last step.
    pub(crate) last_ms: f64,
}

/// The steps as columns: consecutive equal steps of one actor (same action, same choice
/// words) folded into one. A lasso's cycle begins a column of its own, so that the step its
/// last row names (`back to step 6`) is a column's number, not inside one (`5–6`).
fn columns(steps: &[TraceStep]) -> Vec<Column> {
    let cycle_from = steps.last().and_then(TraceStep::cycle_first_step);
    let mut out: Vec<Column> = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        match out.last_mut() {
            Some(c)
                if Some(i + 1) != cycle_from
                    && c.step.actor == s.actor
                    && c.step.action == s.action
                    && c.step.choice == s.choice =>
            {
                c.count += 1;
                c.last_ms = s.time_ms;
            }
            _ => out.push(Column {
                first: i + 1,
                count: 1,
                step: s.clone(),
                last_ms: s.time_ms,
            }),
        }
    }
    out
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
            "reads" | "looks" => Kind::Read,
            "writes" | "inserts" | "sets" | "removes" => Kind::Write,
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

/// Whether a step is where something went wrong: a lost update (a key's set over what its
/// lookup did not see too), a refused write or insert (a key's `duplicate`), a crash, a
/// fault drawn. Drawn in red.
fn alarm(step: &TraceStep) -> bool {
    let a = &step.action;
    a.contains("lost update")
        || a.contains("refused")
        || a.contains(": duplicate")
        || a == "crashes"
        || a.starts_with("crashes here")
        || step.choice.split("; ").any(|c| c.starts_with("fault ("))
}

/// The draws of a step worth a line in its box (a fault or a chance decided), without the
/// order choice (`1 of 2`), which the step table gives.
fn draws(step: &TraceStep, locale: Locale) -> String {
    let (choice, order) = match locale {
        Locale::Tr => (&step.choice_tr, " / "),
        Locale::En => (&step.choice, " of "),
    };
    choice
        .split("; ")
        .filter(|c| !c.contains(order))
        .collect::<Vec<_>>()
        .join("; ")
}

/// What a step did, in `locale`'s words (its kind and colour are read off the English).
fn action(step: &TraceStep, locale: Locale) -> &str {
    match locale {
        Locale::Tr => &step.action_tr,
        Locale::En => &step.action,
    }
}

impl TraceChart {
    /// A trace chart of `steps` (the columns of the first [`MAX_TRACE_STEPS`] drawn, and a
    /// note put first in `notes`, from the third of `labels`, when some are left out), sized
    /// to hold them.
    pub(crate) fn new(
        title: String,
        steps: &[TraceStep],
        labels: (String, String, String),
        mut notes: Vec<String>,
        locale: Locale,
    ) -> TraceChart {
        let all = columns(steps);
        let drawn = &all[..all.len().min(MAX_TRACE_STEPS)];
        let shown: usize = drawn.iter().map(|c| c.count).sum();
        if shown < steps.len() {
            let n = |x: usize| locale.number(&x.to_string());
            notes.insert(
                0,
                labels
                    .2
                    .replace("{shown}", &n(shown))
                    .replace("{total}", &n(steps.len())),
            );
        }
        let rows = rows(drawn).len().max(1) as u32;
        let mut look = Look::default();
        // Room for the names and headers (about 180 pixels), every column, the margins.
        look.width = (220 + COLUMN * drawn.len() as u32 + 24).max(look.width);
        let timed = drawn
            .windows(2)
            .any(|p| p[0].step.time_ms != p[1].step.time_ms);
        look.height = 130 + ROW * rows + if timed { 44 } else { 12 };
        TraceChart {
            title,
            columns: drawn.to_vec(),
            notes,
            step_label: labels.0,
            time_label: labels.1,
            locale,
            look,
        }
    }
}

/// The rows: every name a step has, in the order it first appears.
fn rows(columns: &[Column]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for c in columns {
        if !names.contains(&c.step.actor.as_str()) {
            names.push(&c.step.actor);
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
    let names = rows(&t.columns);
    let (w, _) = body.dim_in_pixel();
    let label = |size: u32| (FONT, s.font(size)).into_font().color(&BLACK);
    let width_of = |text: &str, size: u32| {
        body.estimate_text_size(text, &(FONT, s.font(size)).into_text_style(&body))
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
    let n = t.columns.len().max(1) as i32;
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
    let times_differ = t
        .columns
        .windows(2)
        .any(|p| p[0].step.time_ms != p[1].step.time_ms);
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
    for (j, c) in t.columns.iter().enumerate() {
        let step = &c.step;
        let x = x0 + column * j as i32;
        let mid = x + column / 2;
        let number = if c.count > 1 {
            format!("{}–{}", c.first, c.first + c.count - 1)
        } else {
            c.first.to_string()
        };
        body.draw_text(&number, &header, (mid, top - s.off(6)))?;
        if times_differ && step.time_ms != last_time {
            let mut time = tick(step.time_ms, t.locale);
            if c.last_ms != step.time_ms {
                time = format!("{time}–{}", tick(c.last_ms, t.locale));
            }
            body.draw_text(
                &time,
                &label(13)
                    .color(&grey)
                    .pos(Pos::new(HPos::Center, VPos::Top)),
                (mid, bottom + s.off(4)),
            )?;
        }
        last_time = c.last_ms;
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
        let extra = draws(step, t.locale);
        let max_lines = if extra.is_empty() { 4 } else { 3 };
        let action = if c.count > 1 {
            format!("{} ×{}", action(step, t.locale), c.count)
        } else {
            action(step, t.locale).to_string()
        };
        let (mut lines, size) =
            layout::fit(&body, &action, inner, s.font(13), s.font(11), max_lines);
        let mut sizes = vec![size; lines.len()];
        if !extra.is_empty() {
            let (more, small) = layout::fit(&body, &extra, inner, s.font(11), s.font(11), 1);
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
    Ok(Placed::default())
}
