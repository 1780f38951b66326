//! A region's filters and options, read against its config: the points, replications and
//! entity they keep, and how a value is read (a statistic, decimals, a percent, an interval).

use coordsim_model::{Cell, Value};

use super::parse::{Arg, Kind, LessonError, Pos, Region};
use crate::config::Config;
use crate::results::{Row, Table};

fn error(pos: Pos, message: impl Into<String>) -> LessonError {
    LessonError {
        pos,
        message: message.into(),
    }
}

/// Filters and options of a region, checked against its config.
#[derive(Default)]
pub(super) struct Selection {
    pub(super) params: Vec<(usize, Value)>,
    pub(super) entity: Option<String>,
    pub(super) replication: Option<u64>,
    pub(super) stat: Option<Stat>,
    pub(super) digits: Option<usize>,
    /// `percent`: the value is a fraction, written as a percent (`%8` for 0.08).
    pub(super) percent: bool,
    /// `ci` (`ci=0.99`): the written value is a theory's, checked inside the interval of the
    /// mean over the replications at this confidence (0.95 by default).
    pub(super) ci: Option<f64>,
    pub(super) columns: Option<Vec<String>>,
    pub(super) entity_table: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Stat {
    Mean,
    Min,
    Max,
}

/// A filter value as a parameter value: numbers compare numerically, the rest as text.
fn value_of(text: &str) -> Value {
    if let Ok(i) = text.parse::<i64>() {
        Value::Int(i)
    } else if let Ok(x) = text.parse::<f64>() {
        Value::Float(x)
    } else if text == "true" || text == "false" {
        Value::Bool(text == "true")
    } else {
        Value::Str(text.to_string())
    }
}

pub(super) fn select(config: &Config, args: &[Arg], table: bool) -> Result<Selection, LessonError> {
    let mut s = Selection::default();
    // The argument of each parameter filter, in `s.params`' order.
    let mut filters: Vec<&Arg> = Vec::new();
    for arg in args {
        let value = || {
            arg.value.clone().ok_or_else(|| {
                error(
                    arg.pos,
                    format!("`{}` needs a value: `{}=…`", arg.key, arg.key),
                )
            })
        };
        match arg.key.as_str() {
            "entity" if table && arg.value.is_none() => s.entity_table = true,
            "entity" => s.entity = Some(value()?),
            "replication" => {
                let v = value()?;
                let r: u64 = v.parse().map_err(|_| {
                    error(arg.pos, format!("`replication={v}` is not a whole number"))
                })?;
                if r >= config.replications {
                    return Err(error(
                        arg.pos,
                        format!(
                            "`replication={r}`: the config runs replications 0 to {}",
                            config.replications - 1
                        ),
                    ));
                }
                s.replication = Some(r);
            }
            "stat" if !table => {
                let v = value()?;
                s.stat = Some(match v.as_str() {
                    "mean" => Stat::Mean,
                    "min" => Stat::Min,
                    "max" => Stat::Max,
                    _ => {
                        return Err(error(
                            arg.pos,
                            format!("unknown `stat={v}`; valid: mean, min, max"),
                        ));
                    }
                });
            }
            "digits" if !table => {
                let v = value()?;
                let d: usize = v.parse().ok().filter(|d| *d <= 12).ok_or_else(|| {
                    error(
                        arg.pos,
                        format!("`digits={v}`: a number of decimals, 0 to 12"),
                    )
                })?;
                s.digits = Some(d);
            }
            "percent" if !table && arg.value.is_none() => s.percent = true,
            "ci" if !table => {
                let level = match &arg.value {
                    None => 0.95,
                    Some(v) => v
                        .parse::<f64>()
                        .ok()
                        .filter(|c| *c > 0.5 && *c < 1.0)
                        .ok_or_else(|| {
                            error(
                                arg.pos,
                                format!("`ci={v}`: a confidence between 0.5 and 1 (0.95, 0.99)"),
                            )
                        })?,
                };
                if config.replications < 2 {
                    return Err(error(
                        arg.pos,
                        format!(
                            "`ci` checks the written value inside the interval of the mean over the replications, and the config runs {}: give it `replications` of 2 or more",
                            config.replications
                        ),
                    ));
                }
                s.ci = Some(level);
                s.stat.get_or_insert(Stat::Mean);
            }
            "columns" if table => {
                s.columns = Some(value()?.split(',').map(|c| c.trim().to_string()).collect());
            }
            key => match config.key_index(key) {
                Some(i) => {
                    s.params.push((i, value_of(&value()?)));
                    filters.push(arg);
                }
                None => {
                    const VALUE_ONLY: [&str; 4] = ["stat", "digits", "percent", "ci"];
                    let mut valid: Vec<&str> = config.key_names();
                    valid.extend(["entity", "replication"]);
                    valid.extend(if table {
                        ["columns"].as_slice()
                    } else {
                        VALUE_ONLY.as_slice()
                    });
                    let what = if table && VALUE_ONLY.contains(&key) {
                        format!(
                            "`{key}` reads an inline value; a table block shows every row it selects"
                        )
                    } else {
                        format!(
                            "unknown filter `{key}`{}",
                            crate::suggest::did_you_mean(key, &valid)
                        )
                    };
                    return Err(error(
                        arg.pos,
                        format!("{what}; valid: {}", valid.join(", ")),
                    ));
                }
            },
        }
    }
    if !s.params.is_empty() && !(0..config.points).any(|p| config.matches(p, &s.params)) {
        return Err(no_point(config, &s.params, &filters));
    }
    Ok(s)
}

/// An `explored` region's filters: one naming a metric of the config selects the outcomes
/// whose cell has that value (`counter.value=2`); the rest are a value region's
/// (parameters, `stat`, `digits`, `percent`). Not `entity`, `replication` or `ci`, which
/// read the runs: in an exploration every execution is one.
pub(super) fn select_explored(
    config: &Config,
    args: &[Arg],
) -> Result<(Selection, Vec<(usize, String)>), LessonError> {
    const OPTIONS: [&str; 3] = ["stat", "digits", "percent"];
    let metrics = config.model.metrics();
    let mut cells = Vec::new();
    let mut rest = Vec::new();
    for arg in args {
        let key = arg.key.as_str();
        if config.key_index(key).is_some() || OPTIONS.contains(&key) {
            rest.push(arg.clone());
            continue;
        }
        if let Some(metric) = metrics.iter().position(|m| m.name == key) {
            let Some(value) = &arg.value else {
                return Err(error(
                    arg.pos,
                    format!("`{key}` needs a value: `{key}=…` selects the outcomes with it"),
                ));
            };
            cells.push((metric, value.clone()));
            continue;
        }
        if ["entity", "replication", "ci"].contains(&key) {
            return Err(error(
                arg.pos,
                format!(
                    "`{key}` reads the runs; an explored value reads the exploration, where every execution counts once: filter by parameters and by outcome cells (`METRIC=VALUE`)"
                ),
            ));
        }
        let mut valid: Vec<&str> = config.key_names();
        valid.extend(OPTIONS);
        valid.extend(metrics.iter().map(|m| m.name));
        return Err(error(
            arg.pos,
            format!(
                "unknown filter `{key}`{}; valid: a parameter, stat, digits, percent, or a metric (an outcome's cell): {}",
                crate::suggest::did_you_mean(key, &valid),
                valid.join(", ")
            ),
        ));
    }
    Ok((select(config, &rest, false)?, cells))
}

/// Filters that match no point: the first whose value no point has, with its parameter's
/// values (and, for `0,5`, that a filter writes a dot); else all of them, which match
/// apart but not together.
fn no_point(config: &Config, params: &[(usize, Value)], filters: &[&Arg]) -> LessonError {
    let names = config.key_names();
    let alone = params
        .iter()
        .zip(filters)
        .find(|(f, _)| !(0..config.points).any(|p| config.matches(p, std::slice::from_ref(*f))));
    if let Some(((i, _), arg)) = alone {
        let written = arg.value.as_deref().unwrap_or("");
        let dot = written.replace(',', ".");
        let comma = written.contains(',') && dot.parse::<f64>().is_ok();
        return error(
            arg.pos,
            format!(
                "`{}={written}` matches no point: {}the sweep has {} = {}",
                arg.key,
                if comma {
                    format!(
                        "a filter writes its number with a dot in every locale (`{}={dot}`); ",
                        arg.key
                    )
                } else {
                    String::new()
                },
                names[*i],
                crate::config::values_of(config, *i)
            ),
        );
    }
    let has: Vec<String> = params
        .iter()
        .map(|(i, _)| format!("{} = {}", names[*i], crate::config::values_of(config, *i)))
        .collect();
    error(
        filters[0].pos,
        format!(
            "the filters match no point of the config's sweep together; the sweep has {}",
            has.join("; ")
        ),
    )
}

/// What a region selects, for the report site: the points its parameter filters keep and
/// the entity it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selected {
    /// The sweep points kept, in order.
    pub(crate) points: Vec<usize>,
    /// `entity=E`.
    pub(crate) entity: Option<String>,
}

/// What `region` selects of `config` (`None` when its filters do not read, which `check`
/// reports as an error before).
pub(crate) fn selected(config: &Config, region: &Region) -> Option<Selected> {
    let sel = select(config, &region.args, matches!(region.kind, Kind::Table)).ok()?;
    let points = sel
        .points(config)
        .iter()
        .enumerate()
        .filter(|(_, kept)| **kept)
        .map(|(p, _)| p)
        .collect();
    Some(Selected {
        points,
        entity: sel.entity,
    })
}

impl Selection {
    /// Whether a row of `table` (results or entity rows) is selected.
    pub(super) fn keeps(&self, config: &Config, points: &[bool], table: &Table, row: &Row) -> bool {
        let point = table.point(row);
        if !points.get(point).copied().unwrap_or(false) {
            return false;
        }
        if self
            .replication
            .is_some_and(|r| table.replication(row) != r)
        {
            return false;
        }
        // An entity by its name or by its label.
        if let Some(e) = &self.entity {
            let name = table.column("entity").map(|c| &row[c]);
            if !matches!(name, Some(Cell::Text(t)) if t == e || config.label(t) == e) {
                return false;
            }
        }
        true
    }

    pub(super) fn points(&self, config: &Config) -> Vec<bool> {
        (0..config.points)
            .map(|p| config.matches(p, &self.params))
            .collect()
    }
}
