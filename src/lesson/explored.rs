//! `explored NAME.WHAT filters…`: a value of the config's exploration in a lesson's text, as
//! `coordsim explore` finds it: of the outcomes the filters select (by parameters, and by
//! their cells: `counter.value=2`), their summed probability or executions, or how many
//! they are; of the whole exploration, its states, transitions or longest execution.

use coordsim_model::{Cell, Exploration};

use super::eval::{Loaded, Outcome, error, explorations, number_outcome};
use super::parse::{Lesson, LessonError, Region};
use super::select::select_explored;
use crate::config::Config;

/// Checks an `explored` region reading `what` (one of `parse::EXPLORED`).
pub(super) fn value(
    lesson: &Lesson,
    region: &Region,
    what: &str,
    l: &Loaded,
) -> Result<Outcome, LessonError> {
    let config = l.config_in(lesson.locale);
    let (sel, cells) = select_explored(config, &region.args)?;
    let whole = matches!(what, "states" | "transitions" | "longest");
    if whole && !cells.is_empty() {
        return Err(error(
            region.marker,
            format!(
                "`{what}` is the whole exploration's: a filter on an outcome's cell selects outcomes, for `probability`, `executions` or `outcomes`"
            ),
        ));
    }
    let explored = explorations(region, l)?;
    let points = sel.points(config);
    let mut numbers = Vec::new();
    for (point, exploration) in explored.iter().enumerate() {
        if !points.get(point).copied().unwrap_or(false) {
            continue;
        }
        numbers.push(point_value(
            region,
            config,
            point,
            exploration,
            what,
            &cells,
        )?);
    }
    if numbers.is_empty() {
        return Err(error(region.marker, "the filters select no explored point"));
    }
    if numbers.iter().any(|n| *n != numbers[0]) && sel.stat.is_none() {
        return Err(error(
            region.marker,
            format!(
                "the filters select {} explored points with different values; narrow them, or add stat=mean, stat=min or stat=max",
                numbers.len()
            ),
        ));
    }
    let written = &lesson.text[region.content.clone()];
    number_outcome(lesson, region, &sel, &numbers, written)
}

/// `what` at one explored point: exact, or an error saying why it is not.
fn point_value(
    region: &Region,
    config: &Config,
    point: usize,
    exploration: &Exploration,
    what: &str,
    cells: &[(usize, String)],
) -> Result<f64, LessonError> {
    let at = || {
        let params = crate::check::describe_point(config, point);
        if params.is_empty() {
            String::new()
        } else {
            format!(" at {params}")
        }
    };
    if let Some(bound) = exploration.bounded {
        // A bounded search saw some executions only: no count or probability of it is
        // every execution's.
        return Err(error(
            region.marker,
            format!(
                "the exploration{} is {bound}: an explored value holds only for an exhaustive exploration (narrow the point, or raise the bound it names)",
                at()
            ),
        ));
    }
    let selected = || {
        exploration.outcomes.iter().filter(|o| {
            cells
                .iter()
                .all(|(m, v)| cell_is(config, &o.metrics[*m], v))
        })
    };
    Ok(match what {
        "states" => exploration.states as f64,
        "transitions" => exploration.transitions as f64,
        "longest" => exploration.longest as f64,
        "outcomes" => selected().count() as f64,
        "executions" => selected().map(|o| o.executions as f64).sum(),
        _ => {
            if exploration.ordered {
                return Err(error(
                    region.marker,
                    format!(
                        "the outcomes{} have no probability: an instant leaves several events in a free order, so executions differ by more than draws (docs/explore.md); read `executions` instead",
                        at()
                    ),
                ));
            }
            selected().filter_map(|o| o.probability).sum()
        }
    })
}

/// Whether an outcome's cell holds the filter's value: a number compared as a number (a
/// filter writes it with a dot in every locale), a text by its name or its label.
fn cell_is(config: &Config, cell: &Cell, value: &str) -> bool {
    match cell {
        Cell::Text(text) => text == value || config.label(text) == value,
        other => match (other.as_f64(), value.parse::<f64>()) {
            (Some(x), Ok(y)) => x == y,
            _ => other.to_string() == value,
        },
    }
}
