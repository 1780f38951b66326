//! A swept parameter's values: a list, or a range `{ from, to, step }` /
//! `{ from, to, points, scale }`, each value with where it is written.

use coordsim_model::{Kind, Value};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::plan::Axis;
use super::read::{Loader, de_type};
use crate::source::{ConfigError, Span};
use crate::sweep::{self, MAX_POINTS, Range};

impl Loader<'_> {
    pub(super) fn axis(
        &self,
        param: usize,
        key: &str,
        kind: Kind,
        v: &Spanned<DeValue<'_>>,
    ) -> Result<Axis, ConfigError> {
        match v.get_ref() {
            DeValue::Array(items) => {
                if items.is_empty() {
                    return Err(self.err(&v.span(), format!("the sweep of `{key}` is empty; give at least one value")));
                }
                if items.len() as u64 > MAX_POINTS {
                    return Err(self.err(&v.span(), format!("the sweep of `{key}` has more than {MAX_POINTS} values")));
                }
                let values: Vec<Value> = items.iter().map(|i| self.value(i)).collect::<Result<_, _>>()?;
                // One type per sweep: a string among numbers is a typo, not a value (it
                // would reach the model as NaN).
                let sort = |v: &Value| match v {
                    Value::Int(_) | Value::Float(_) => "a number",
                    Value::Str(_) => "a string",
                    Value::Bool(_) => "true or false",
                    Value::List(_) => "a list",
                    Value::Table(_) => "a table",
                };
                if let Some(at) = values.iter().position(|v| sort(v) != sort(&values[0])) {
                    return Err(self.err(
                        &items[at].span(),
                        format!(
                            "the sweep of `{key}` starts with {} but this value is {}: every value of a sweep has one type",
                            sort(&values[0]),
                            sort(&values[at])
                        ),
                    ));
                }
                Ok(Axis {
                    param,
                    key: key.to_string(),
                    values,
                    spans: items.iter().map(|i| i.span()).collect(),
                })
            }
            DeValue::Table(t) => {
                let (integers, allowed) = match kind {
                    Kind::Count | Kind::CountOrList => (true, true),
                    Kind::Float | Kind::NumberOrList => (false, true),
                    _ => (false, false),
                };
                if !allowed {
                    return Err(self.err(&v.span(), format!("`{key}` takes {kind}: sweep it with a list, not a range")));
                }
                let range = self.range(t, key, &v.span())?;
                let values = sweep::expand(&range, integers)
                    .map_err(|m| self.err(&v.span(), format!("the range of `{key}`: {m}")))?;
                let spans = vec![v.span(); values.len()];
                Ok(Axis { param, key: key.to_string(), values, spans })
            }
            other => Err(self.err(
                &v.span(),
                format!("the sweep of `{key}` must be a list of values or a range {{ from, to, step }} / {{ from, to, points, scale }}, got {}", de_type(other)),
            )),
        }
    }

    fn range(&self, t: &DeTable<'_>, key: &str, span: &Span) -> Result<Range, ConfigError> {
        const KEYS: &[&str] = &["from", "to", "step", "points", "scale"];
        let (mut from, mut to, mut step, mut points, mut log) = (None, None, None, None, None);
        for (k, v) in t.iter() {
            match k.get_ref().as_ref() {
                "from" => from = Some(self.number(v, "from")?),
                "to" => to = Some(self.number(v, "to")?),
                "step" => step = Some(self.number(v, "step")?),
                "points" => points = Some(self.count(v, "points")?),
                "scale" => {
                    log = Some(match self.string(v, "scale")?.as_str() {
                        "log" => true,
                        "linear" => false,
                        other => {
                            return Err(self.err(
                                &v.span(),
                                format!("unknown scale `{other}`; valid: \"linear\", \"log\""),
                            ));
                        }
                    })
                }
                _ => return Err(self.unknown_key(k, &format!("the range of `{key}`"), KEYS)),
            }
        }
        let (Some(from), Some(to)) = (from, to) else {
            return Err(self.err(span, format!("the range of `{key}` needs `from` and `to`")));
        };
        match (step, points) {
            (Some(step), None) if log.is_none() => Ok(Range::Step { from, to, step }),
            (None, Some(points)) => Ok(Range::Points {
                from,
                to,
                points,
                log: log.unwrap_or(false),
            }),
            (Some(_), None) => Err(self.err(
                span,
                format!("the range of `{key}`: `scale` goes with `points`, not `step`"),
            )),
            _ => Err(self.err(
                span,
                format!("the range of `{key}` needs exactly one of `step` or `points`"),
            )),
        }
    }
}
