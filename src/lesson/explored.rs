//! `explored NAME.WHAT filters…`: a value of the config's exploration in a lesson's text, as
//! `coordsim explore` finds it: of the outcomes the filters select (by parameters, and by
//! their cells: `counter.value=2`), their summed probability or executions, or how many
//! they are; a metric's mean over every execution, each weighted by its probability
//! (`mean of=METRIC`); of the whole exploration, its states, transitions or longest
//! execution. Where an instant leaves events in a free order, a probability or a mean is an
//! interval over schedulers: `scheduler=min` or `scheduler=max` reads one of its ends.

use coordsim_model::{Cell, Exploration};

use super::eval::{
    Loaded, Outcome, error, explorations, explorations_with_schedulers, number_outcome,
};
use super::parse::{Arg, Lesson, LessonError, Region};
use super::select::select_explored;
use crate::config::{Config, Scheduler};

/// Checks an `explored` region reading `what` (one of `parse::EXPLORED`).
pub(super) fn value(
    lesson: &Lesson,
    region: &Region,
    what: &str,
    l: &Loaded,
) -> Result<Outcome, LessonError> {
    let config = l.config_in(lesson.locale);
    // `of=METRIC`: the metric a `mean` is of (no filter: it selects no outcome).
    let (of, args): (Vec<_>, Vec<_>) = region.args.iter().cloned().partition(|a| a.key == "of");
    let of = mean_of(region, config, what, &of)?;
    // `scheduler=min|max`: an end of the interval over schedulers (no filter either).
    let (scheduler, args): (Vec<_>, Vec<_>) = args.into_iter().partition(|a| a.key == "scheduler");
    let scheduler = scheduler_of(what, &scheduler)?;
    let (sel, cells) = select_explored(config, &args)?;
    if what == "mean" && !cells.is_empty() {
        return Err(error(
            region.marker,
            "a `mean` is over every execution of the point: filter by parameters, not by an outcome's cell (a mean over some outcomes would be a conditional one)",
        ));
    }
    let whole = matches!(what, "states" | "transitions" | "longest");
    if whole && !cells.is_empty() {
        return Err(error(
            region.marker,
            format!(
                "`{what}` is the whole exploration's: a filter on an outcome's cell selects outcomes, for `probability`, `executions` or `outcomes`"
            ),
        ));
    }
    let explored = match scheduler {
        Some(_) => explorations_with_schedulers(region, l)?,
        None => explorations(region, l)?,
    };
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
            (what, of, scheduler),
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
    (what, of, scheduler): (&str, Option<usize>, Option<Scheduler>),
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
        "mean" => {
            let metric = of.unwrap_or(0);
            let values: Vec<Option<f64>> = (exploration.outcomes.iter())
                .map(|o| o.metrics.get(metric).and_then(Cell::as_f64))
                .collect();
            let mean =
                crate::check::weighted(exploration, scheduler, crate::config::Stat::Mean, &values);
            match (mean.actual, mean.reason) {
                (Some(x), None) => x,
                (_, reason) => {
                    return Err(error(
                        region.marker,
                        format!(
                            "the mean{} is not known: {}",
                            at(),
                            reason.unwrap_or("no execution ended")
                        ),
                    ));
                }
            }
        }
        _ => {
            let sum = selected().filter_map(|o| o.probability).sum();
            let Some(scheduler) = scheduler else {
                if exploration.ordered {
                    return Err(error(
                        region.marker,
                        format!(
                            "the outcomes{} have no probability: an instant leaves several events in a free order, so executions differ by more than draws (docs/explore.md); read an end of the interval over schedulers (`scheduler=min` or `scheduler=max`), or `executions`",
                            at()
                        ),
                    ));
                }
                return Ok(sum);
            };
            let meeting: Vec<bool> = (exploration.outcomes.iter())
                .map(|o| {
                    cells
                        .iter()
                        .all(|(m, v)| cell_is(config, &o.metrics[*m], v))
                })
                .collect();
            match crate::check::scheduler_ends(exploration, Some(sum), &meeting) {
                Some((least, _)) if scheduler == Scheduler::Min => least,
                Some((_, greatest)) => greatest,
                None => {
                    return Err(error(
                        region.marker,
                        format!(
                            "the exploration{} kept no graph for its schedulers: an end over schedulers is not known",
                            at()
                        ),
                    ));
                }
            }
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

/// The end over schedulers a `probability` or a `mean` reads (`scheduler=min|max`; refused
/// elsewhere: a count of executions or outcomes is the same under every scheduler).
fn scheduler_of(what: &str, args: &[Arg]) -> Result<Option<Scheduler>, LessonError> {
    let arg = match args {
        [] => return Ok(None),
        [arg] => arg,
        [_, second, ..] => return Err(error(second.pos, "give `scheduler` once")),
    };
    if !matches!(what, "probability" | "mean") {
        return Err(error(
            arg.pos,
            format!(
                "`scheduler` reads an end over schedulers of a `probability` or a `mean`; `{what}` is the same under every scheduler"
            ),
        ));
    }
    match arg.value.as_deref() {
        Some("min") => Ok(Some(Scheduler::Min)),
        Some("max") => Ok(Some(Scheduler::Max)),
        other => Err(error(
            arg.pos,
            format!(
                "`scheduler={}`: valid are `scheduler=min` (the least over every scheduler) and `scheduler=max` (the greatest)",
                other.unwrap_or("")
            ),
        )),
    }
}

/// The metric a `mean` is of (`of=METRIC`, required with `mean` and refused elsewhere).
fn mean_of(
    region: &Region,
    config: &Config,
    what: &str,
    of: &[Arg],
) -> Result<Option<usize>, LessonError> {
    if what != "mean" {
        return match of.first() {
            Some(arg) => Err(error(
                arg.pos,
                format!("`of` names the metric of a `mean`, not of `{what}`"),
            )),
            None => Ok(None),
        };
    }
    let arg = match of {
        [arg] => arg,
        [] => {
            return Err(error(
                region.marker,
                "`mean` needs the metric it is of: `of=METRIC`",
            ));
        }
        [_, second, ..] => return Err(error(second.pos, "give `of` once")),
    };
    let metrics = config.model.metrics();
    let name = arg.value.as_deref().unwrap_or("");
    match metrics.iter().position(|m| m.name == name) {
        Some(i) => Ok(Some(i)),
        None => {
            let names: Vec<&str> = metrics.iter().map(|m| m.name).collect();
            Err(error(
                arg.pos,
                format!(
                    "`of={name}` names no metric{}; a mean is of one of: {}",
                    crate::suggest::did_you_mean(name, &names),
                    names.join(", ")
                ),
            ))
        }
    }
}
