//! Evaluating a scenario at one sweep point: [`Point::new`] computes every number the point
//! fixes (a `{ by = … }` table, an expression over the parameters) and checks it where it
//! is written; an error names the field (`actor[0].steps[2].delay_ms`).

use crate::point::numbers::{Evaluator, path_key};
use crate::point::program::Flat;
use crate::point::{Group, MAX_ACTORS, MAX_REPETITIONS, Pace, Pick, Point, Step, Tie};
use crate::syntax::metrics::Metric;
use crate::syntax::spec::{self, Spec};
use coordsim_model::{ParamError, Value};

impl Point {
    /// The scenario at the point whose parameter values (in [`Spec::params`] order) are
    /// `values`.
    pub(crate) fn new(spec: &Spec, fill: &[Metric], values: &[Value]) -> Result<Point, ParamError> {
        let tie = tie(values.first())?;
        let numbers: Vec<f64> = values
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NAN))
            .collect();
        let evaluator = Evaluator {
            spec,
            values,
            numbers: &numbers,
        };
        let mut point = Point {
            tie,
            params: Vec::new(),
            registers: Vec::new(),
            locks: Vec::new(),
            servers: Vec::new(),
            links: Vec::new(),
            link_loss: Vec::new(),
            link_duplicate: Vec::new(),
            link_names: Vec::new(),
            queues: Vec::new(),
            keys: Vec::new(),
            groups: Vec::new(),
            actors: 0,
            lock_names: Vec::new(),
            watches: Vec::new(),
            watch_counts: false,
        };
        for (index, resource) in spec.resources.iter().enumerate() {
            point.resource(
                &evaluator,
                &format!("resource[{index}]"),
                &resource.name,
                &resource.kind,
            )?;
        }
        let mut actors: u64 = 0;
        let mut repetitions: u64 = 0;
        for (index, group_spec) in spec.groups.iter().enumerate() {
            let group_path = format!("actor[{index}]");
            let at = group_path.as_str();
            let count = evaluator.whole(&group_spec.count, &[at, "count"], 0, MAX_ACTORS)?;
            let repeat =
                evaluator.whole(&group_spec.repeat, &[at, "repeat"], 1, MAX_REPETITIONS)?;
            actors += count;
            repetitions = repetitions.saturating_add(count.saturating_mul(repeat));
            if actors > MAX_ACTORS {
                return Err(ParamError::new(
                    &path_key(&[at, "count"]),
                    format!(
                        "a scenario runs at most {MAX_ACTORS} actors in all (one actor may repeat many times: `repeat`)"
                    ),
                ));
            }
            if repetitions > MAX_REPETITIONS {
                return Err(ParamError::new(
                    &path_key(&[at, "repeat"]),
                    format!("a scenario runs at most {MAX_REPETITIONS} repetitions in all"),
                ));
            }
            let group = point.group(&evaluator, index, group_spec, count, repeat)?;
            point.groups.push(group);
        }
        // Every actor's start, and any delay computed per actor, must be a duration: checked
        // now for a handful of actors would miss the rest, so the run checks each (a model
        // error naming the group), and here only the per-point numbers are checked.
        // A server whose requests may time out, or be cancelled at a join, tracks whether
        // each client still waits.
        for group in &point.groups {
            let forks = group
                .steps
                .iter()
                .any(|step| matches!(step, Step::Fork { .. }));
            for step in &group.steps {
                if let Step::Request {
                    server: pick,
                    timeout,
                    ..
                } = step
                    && (timeout.is_some() || forks)
                {
                    for (index, server) in point.servers.iter_mut().enumerate() {
                        server.abandons |= pick.may_be(index as u16);
                        server.special |= server.abandons;
                    }
                }
            }
        }
        mark_inline_first_branches(&mut point);
        point.lower_watches(spec, fill, &evaluator)?;
        point.params = numbers;
        point.actors = actors as u32;
        Ok(point)
    }

    /// The group at `index`, of `count` actors repeating `repeat` times, at this point.
    fn group(
        &self,
        evaluator: &Evaluator<'_>,
        index: usize,
        group: &spec::Group,
        count: u64,
        repeat: u64,
    ) -> Result<Group, ParamError> {
        let group_path = format!("actor[{index}]");
        let at = group_path.as_str();
        let arrivals = evaluator.choice(&group.arrivals, spec::ARRIVALS, &[at, "arrivals"])?;
        let pace = match &group.pace {
            spec::Pace::Closed => Pace::Closed,
            spec::Pace::Every(every) if arrivals != "schedule" => {
                let ms = evaluator.number(every, &[at, "every_ms"])?;
                let kind = if arrivals == "poisson" {
                    "exponential"
                } else {
                    arrivals
                };
                match evaluator.distribution(
                    kind,
                    ms,
                    &group.every_cv,
                    &[at, "every_ms"],
                    &[at, "every_cv"],
                )? {
                    Some(d) => Pace::Random(d),
                    None => Pace::Every(evaluator.duration(every, &[at, "every_ms"])?),
                }
            }
            spec::Pace::Every(e) => Pace::Every(evaluator.duration(e, &[at, "every_ms"])?),
            spec::Pace::Spread(s) => Pace::Spread(evaluator.duration(s, &[at, "spread_ms"])?),
        };
        let mut flat = Flat {
            point: self,
            evaluator,
            group,
            count,
            steps: Vec::new(),
            paths: Vec::new(),
            at: format!("{at}.steps"),
            handlers: Vec::new(),
            forks: Vec::new(),
            attempts: 1,
            jitters: false,
            chances: false,
            streams: Vec::new(),
        };
        flat.list(&group.steps, &format!("{at}.steps"))?;
        flat.handlers()?;
        evaluator.each_len(&group.start_ms, &format!("{at}.start_ms"), count)?;
        if let Some(names) = &group.names
            && names.len() as u64 != count
        {
            return Err(ParamError::new(
                &path_key(&[at, "names"]),
                "one name per actor",
            ));
        }
        Ok(Group {
            name: group.name.clone(),
            count: count as u32,
            names: group.names.clone(),
            start_ms: evaluator.per_point(&group.start_ms, &[at, "start_ms"])?,
            repeat,
            forever: group.forever,
            pace,
            steps: flat.steps,
            paths: flat.paths,
            attempts: flat.attempts,
            jitters: flat.jitters,
            chances: flat.chances,
            named: flat.streams,
            uses_index: group.uses_index,
            crash_anywhere: group
                .crash_anywhere
                .as_ref()
                .map(
                    |crash_anywhere| -> Result<(u32, Option<super::Duration>), ParamError> {
                        let count = evaluator.whole(
                            &crash_anywhere.count,
                            &[at, "crash_anywhere", "count"],
                            1,
                            spec::MAX_CRASHES_ANYWHERE,
                        )? as u32;
                        let restart = crash_anywhere
                            .restart_after_ms
                            .as_ref()
                            .map(|r| evaluator.dur(r, &[at, "crash_anywhere", "restart_after_ms"]))
                            .transpose()?;
                        Ok((count, restart))
                    },
                )
                .transpose()?,
        })
    }
}

/// `tie_order`'s value, the first parameter.
fn tie(value: Option<&Value>) -> Result<Tie, ParamError> {
    Ok(match value {
        Some(Value::Str(s)) if s == "fifo" => Tie::Fifo,
        Some(Value::Str(s)) if s == "program_order" => Tie::ProgramOrder,
        Some(Value::Str(s)) if s == "reads_first" => Tie::ReadsFirst,
        Some(Value::Str(s)) if s == "writes_first" => Tie::WritesFirst,
        other => {
            let got = match other {
                Some(Value::Str(s)) => format!("\"{s}\""),
                Some(v) => v.to_string(),
                None => "nothing".into(),
            };
            return Err(ParamError::new(
                spec::TIE_ORDER,
                format!(
                    "expected one of \"fifo\", \"program_order\", \"reads_first\", \"writes_first\", got {got}"
                ),
            ));
        }
    })
}

/// Marks each fork whose first branch needs no job of its own in a plain run
/// (`Step::Fork::inline_first`): a lone request, with no timeout, at one server that never
/// goes down (so it is neither refused nor moved to a handler), in a group with no crash
/// step (so the job at the fork is never rolled back under it), at an untied fork (whose
/// service start would cancel the others by the branch's job).
fn mark_inline_first_branches(point: &mut Point) {
    let servers = &point.servers;
    for group in &mut point.groups {
        if (group.steps.iter()).any(|step| matches!(step, Step::Crash { .. })) {
            continue;
        }
        for at in 0..group.steps.len() {
            let first = match &group.steps[at] {
                Step::Fork {
                    starts,
                    tied: false,
                    ..
                } => match starts.first() {
                    Some(&first) => first as usize,
                    None => continue,
                },
                _ => continue,
            };
            let lone = match (group.steps.get(first), group.steps.get(first + 1)) {
                (
                    Some(Step::Request {
                        server: Pick::One(server),
                        timeout: None,
                        ..
                    }),
                    Some(Step::BranchEnd),
                ) => {
                    let server = &servers[*server as usize];
                    server.abandons && server.down.is_empty()
                }
                _ => false,
            };
            if let Step::Fork { inline_first, .. } = &mut group.steps[at] {
                *inline_first = lone;
            }
        }
    }
}

impl Point {
    /// Each `[[watch]]` at this point: its bounds computed.
    fn lower_watches(
        &mut self,
        spec: &Spec,
        fill: &[Metric],
        evaluator: &Evaluator<'_>,
    ) -> Result<(), ParamError> {
        use crate::point::{Watch, WatchTest};
        use crate::syntax::spec::{Relation, WatchCondition};
        let test =
            |condition: &WatchCondition, metric, at: &str| -> Result<WatchTest, ParamError> {
                let key = match condition.relation {
                    Relation::Equal => "expect",
                    Relation::AtLeast => "at_least",
                    Relation::AtMost => "at_most",
                };
                Ok(WatchTest {
                    metric,
                    relation: condition.relation,
                    bound: evaluator.number(&condition.bound, &[at, key])?,
                })
            };
        for (index, (watch, (when, then))) in spec.watches.iter().zip(&spec.watched).enumerate() {
            let at = format!("watch[{index}]");
            let leads_to = match (&watch.leads_to, then) {
                (Some(condition), Some(column)) => {
                    Some(test(condition, fill[*column], &format!("{at}.leads_to"))?)
                }
                _ => None,
            };
            let when = test(&watch.when, fill[*when], &at)?;
            self.watch_counts |=
                when.metric.register_count() || leads_to.is_some_and(|t| t.metric.register_count());
            self.watches.push(Watch { when, leads_to });
        }
        Ok(())
    }
}
