//! `explorer NAME filters…`: the explorer of one explored point of the config, played in the
//! lesson. Checked as every region is: the config is one the lesson uses, `report` explores
//! it (a claim over executions), and the filters (parameters only) pick one point, or none
//! is given and the config's first point is played. What the lesson says of it is its own
//! text: the marker holds no number to compare.

use super::eval::{Loaded, Outcome, error, region_name};
use super::parse::{Lesson, LessonError, Region};
use super::select::select;
use crate::config::Config;

/// The point an explorer region plays: the one its filters select, or the first.
pub(crate) fn point(config: &Config, region: &Region) -> Result<usize, LessonError> {
    if !crate::runner::explore::claims_executions(config) {
        return Err(error(
            region.marker,
            format!(
                "`{}` is not explored: `report` explores a config with a claim over executions (`over = \"executions\"`), and the explorer plays that exploration",
                region.config
            ),
        ));
    }
    if let Some(arg) = region
        .args
        .iter()
        .find(|a| config.key_index(&a.key).is_none())
    {
        let names = config.key_names();
        return Err(error(
            arg.pos,
            format!(
                "unknown parameter `{}`{}: an explorer's filters are parameters, which pick its point; valid: {}",
                arg.key,
                crate::suggest::did_you_mean(&arg.key, &names),
                if names.is_empty() {
                    "none (the config has one point)".to_string()
                } else {
                    names.join(", ")
                }
            ),
        ));
    }
    let selection = select(config, &region.args, false)?;
    let points: Vec<usize> = (selection.points(config).iter().enumerate())
        .filter(|(_, keep)| **keep)
        .map(|(p, _)| p)
        .collect();
    match points.as_slice() {
        [one] => Ok(*one),
        [first, ..] if region.args.is_empty() => Ok(*first),
        _ => {
            let described: Vec<String> = (points.iter())
                .map(|&p| crate::check::describe_point(config, p))
                .collect();
            Err(error(
                region.marker,
                format!(
                    "the filters select {} points ({}): an explorer plays one; name a value of each swept parameter",
                    points.len(),
                    described.join("; ")
                ),
            ))
        }
    }
}

/// Checks an explorer region: its point exists and is explored.
pub(super) fn check(lesson: &Lesson, region: &Region, l: &Loaded) -> Result<Outcome, LessonError> {
    let config = l.config_in(lesson.locale);
    let point = point(config, region)?;
    let params = crate::check::describe_point(config, point);
    let shown = if params.is_empty() {
        "the config's point".to_string()
    } else {
        params
    };
    Ok(Outcome {
        pos: region.at,
        name: region_name(region),
        pass: true,
        written: shown.clone(),
        run: shown,
        precision: None,
        interval: None,
        diff: None,
        replacement: None,
        image: None,
        locale: lesson.locale,
    })
}
