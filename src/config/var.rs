//! A name in a claim or chart expression resolved to what it reads, and the `where` match.

use coordsim_model::Value;

/// A variable in a claim or chart expression: a column of the plan's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Var {
    /// A numeric parameter.
    Param(usize),
    /// A metric column.
    Metric(usize),
    /// An entity column (entity claims only).
    Entity(usize),
    /// The x of a cdf or histogram (its `y_expr` curves are functions of it).
    X,
}

/// Whether a point's parameter values match a `where` filter. A list given for a
/// parameter whose values are not lists is a choice: any of its values matches.
pub(crate) fn matches_filter(values: &[Value], filter: &[(usize, Value)]) -> bool {
    filter.iter().all(|(i, v)| match (v, &values[*i]) {
        (Value::List(any), own) if !matches!(own, Value::List(_)) => {
            any.iter().any(|a| own.matches(a))
        }
        (v, own) => own.matches(v),
    })
}
