//! `[[watch]]`: a condition on the run's metrics that the run looks at after every event,
//! recording *when* it first held (or, with `leads_to`, when the last instance of it that
//! waited was answered): a metric of the run, so that claims over runs and over
//! executions read it as any other.

use coordsim_model::{ComposeError, PathPart, Value};

use crate::syntax::metrics::{Metric, MetricColumns};
use crate::syntax::read::{Path, Reader, at, at_index, check_new_name, fail, get, string, table};
use crate::syntax::spec::{Relation, Scope, Spec, Watch, WatchCondition};

/// Most `[[watch]]` tables of a scenario: each is looked at after every event.
pub(crate) const MAX_WATCHES: usize = 16;

/// The keys of a `[[watch]]` table, and of its `leads_to`.
const KEYS: &[&str] = &[
    "name", "metric", "expect", "at_least", "at_most", "leads_to",
];
const CONDITION_KEYS: &[&str] = &["metric", "expect", "at_least", "at_most"];

/// The `[[watch]]` tables, their names new (not a parameter's, a resource's or a group's).
pub(crate) fn read_watches(
    reader: &Reader<'_>,
    values: &[Value],
    taken: &mut Vec<String>,
) -> Result<Vec<Watch>, ComposeError> {
    let root = vec![PathPart::Key("watch".into())];
    if values.len() > MAX_WATCHES {
        return fail(root, format!("at most {MAX_WATCHES} [[watch]] tables"));
    }
    let mut watches = Vec::new();
    for (index, value) in values.iter().enumerate() {
        let path = at_index(&root, index);
        let entries = table(&path, value, "a [[watch]]", KEYS)?;
        let Some(name) = get(entries, "name") else {
            return fail(
                path,
                "a [[watch]] needs `name` (its metric column: the first instant its condition held, in ms)",
            );
        };
        let name = string(at(&path, "name"), name, "`name`")?;
        check_new_name(at(&path, "name"), &name, taken, &[])?;
        taken.push(name.clone());
        let when = condition(reader, &path, entries)?;
        let leads_to = match get(entries, "leads_to") {
            None => None,
            Some(value) => {
                let inner = at(&path, "leads_to");
                let entries = table(&inner, value, "`leads_to`", CONDITION_KEYS)?;
                Some(condition(reader, &inner, entries)?)
            }
        };
        watches.push(Watch {
            name,
            when,
            leads_to,
        });
    }
    Ok(watches)
}

/// A condition: `metric` and exactly one of `expect`, `at_least`, `at_most`.
fn condition(
    reader: &Reader<'_>,
    path: &Path,
    entries: &[(String, Value)],
) -> Result<WatchCondition, ComposeError> {
    let Some(metric) = get(entries, "metric") else {
        return fail(
            path.clone(),
            "a watch's condition needs `metric` (a metric of this scenario: `completed`, `L.left`, …)",
        );
    };
    let metric = string(at(path, "metric"), metric, "`metric`")?;
    let given: Vec<(Relation, &str, &Value)> = [
        (Relation::Equal, "expect"),
        (Relation::AtLeast, "at_least"),
        (Relation::AtMost, "at_most"),
    ]
    .into_iter()
    .filter_map(|(relation, key)| get(entries, key).map(|v| (relation, key, v)))
    .collect();
    let (relation, key, value) = match given.as_slice() {
        [one] => *one,
        [] => {
            return fail(
                path.clone(),
                "a watch's condition needs one of `expect`, `at_least`, `at_most` (a number or an expression over the parameters)",
            );
        }
        [_, (_, second, _), ..] => {
            return fail(
                at(path, second),
                format!("give one of `expect`, `at_least`, `at_most`, not `{second}` as well"),
            );
        }
    };
    let bound = reader.num(at(path, key), value, Scope::Params, &[])?;
    Ok(WatchCondition {
        metric,
        relation,
        bound,
        path: path.clone(),
    })
}

impl Metric {
    /// Whether a watch may read it at any instant of a run: a count, a flag or a value the
    /// run keeps as it goes, not a statistic of samples (a mean, a percentile, a longest
    /// wait) nor a span to the run's end, which only the end gives.
    pub(crate) fn watchable(self) -> bool {
        !matches!(
            self,
            Metric::LockMeanWait(_)
                | Metric::LockP95Wait(_)
                | Metric::LockMaxWait(_)
                | Metric::LockHeld(_)
                | Metric::ServerWait(..)
                | Metric::ServerBusy(_)
                | Metric::GroupResponse(..)
                | Metric::MeanResponse
                | Metric::MaxResponse
                | Metric::Watch(_)
        )
    }

    /// Whether it is a register's count, which an exploration carries on its transitions,
    /// not in its states (`Sim::counts`).
    pub(crate) fn register_count(self) -> bool {
        matches!(
            self,
            Metric::RegWrites(_) | Metric::RegLost(_) | Metric::RegRejected(_)
        )
    }
}

impl MetricColumns {
    /// Each `[[watch]]`'s column, after every other (its metrics resolved among them).
    pub(crate) fn watches(&mut self, spec: &Spec) -> Result<(), ComposeError> {
        let others = self.specs.len();
        for (index, watch) in spec.watches.iter().enumerate() {
            let when = self.watched(&watch.when, others)?;
            let mut then_metric = None;
            let meaning = match &watch.leads_to {
                None => format!(
                    "the first instant `{}` held, ms (empty: it never held)",
                    watch.when.metric
                ),
                Some(then) => {
                    then_metric = Some(self.watched(then, others)?);
                    format!(
                        "the last instant a wait of `{}` for `{}` ended, ms (0: none waited; empty: one still waits at the end)",
                        watch.when.metric, then.metric
                    )
                }
            };
            if self.specs[..others].iter().any(|c| c.name == watch.name) {
                return Err(ComposeError::new(
                    at(
                        &at_index(&vec![PathPart::Key("watch".into())], index),
                        "name",
                    ),
                    format!(
                        "`{}` is a metric of this scenario already: name the watch otherwise (`{}_at_ms`)",
                        watch.name, watch.name
                    ),
                ));
            }
            self.resolved.push((when, then_metric));
            self.column(
                watch.name.clone(),
                meaning,
                coordsim_model::ColumnType::Float,
                Metric::Watch(index as u16),
            )?;
        }
        Ok(())
    }

    /// The metric a watch's condition reads, among the first `others` columns.
    fn watched(&self, condition: &WatchCondition, others: usize) -> Result<usize, ComposeError> {
        let names: Vec<&str> = self.specs[..others].iter().map(|c| c.name).collect();
        let Some(at_column) = names.iter().position(|n| *n == condition.metric) else {
            return Err(ComposeError::new(
                at(&condition.path, "metric"),
                format!(
                    "`{}` is not a metric of this scenario{}; a watch reads one of its counts or values (`completed`, a group's `G.completed`, a lock's `L.left`, …)",
                    condition.metric,
                    coordsim_model::suggest::did_you_mean(&condition.metric, &names)
                ),
            ));
        };
        let metric = self.fill[at_column];
        if !metric.watchable() {
            return Err(ComposeError::new(
                at(&condition.path, "metric"),
                format!(
                    "`{}` is a statistic of samples or a span to the run's end, known only at the end: a watch reads a count, a flag or a value at each instant (a lock's `L.acquisitions`, `completed`, a register's `R.value`, …)",
                    condition.metric
                ),
            ));
        }
        Ok(at_column)
    }
}
