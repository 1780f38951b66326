//! `[[watch]]`: a condition on the run's metrics that the run looks at after every event,
//! recording *when* it first held (or, with `leads_to`, when the last instance of it that
//! waited was answered): a metric of the run, so that claims over runs and over
//! executions read it as any other.

use coordsim_model::{ComposeError, PathPart, Value};

use crate::syntax::read::{Path, Reader, at, at_index, check_new_name, fail, get, string, table};
use crate::syntax::spec::{Number, Scope};

/// Most `[[watch]]` tables of a scenario: each is looked at after every event.
pub(crate) const MAX_WATCHES: usize = 16;

/// The keys of a `[[watch]]` table, and of its `leads_to`.
const KEYS: &[&str] = &[
    "name", "metric", "expect", "at_least", "at_most", "leads_to",
];
const CONDITION_KEYS: &[&str] = &["metric", "expect", "at_least", "at_most"];

/// How a watch compares a metric with its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relation {
    /// `expect`: equal (within 1e-9, as a claim's default tolerance).
    Equal,
    /// `at_least`: ≥.
    AtLeast,
    /// `at_most`: ≤.
    AtMost,
}

impl Relation {
    /// Whether `value` meets the relation with `bound`.
    pub(crate) fn holds(self, value: f64, bound: f64) -> bool {
        match self {
            Relation::Equal => (value - bound).abs() <= 1e-9,
            Relation::AtLeast => value >= bound,
            Relation::AtMost => value <= bound,
        }
    }
}

/// A condition on one metric at an instant: `metric`, a relation and its bound (a number
/// or an expression over the parameters).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Condition {
    /// The metric's column name, as written (resolved against the columns later).
    pub metric: String,
    pub relation: Relation,
    pub bound: Number,
    /// Where it is written (`watch[0]`, `watch[0].leads_to`), for errors.
    pub path: Path,
}

/// One `[[watch]]`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Watch {
    /// Its metric column's name.
    pub name: String,
    /// When it holds.
    pub when: Condition,
    /// `leads_to`: what must hold at or after each instant `when` holds.
    pub leads_to: Option<Condition>,
}

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
) -> Result<Condition, ComposeError> {
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
    Ok(Condition {
        metric,
        relation,
        bound,
        path: path.clone(),
    })
}
