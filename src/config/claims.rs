//! Phase two: `[[claim]]` tables, parsed against the plan.

use coordsim_model::Value;
use toml::de::{DeTable, DeValue};

use super::read::Loader;
use super::{Plan, Var};
use crate::expr::{self, Expr};
use crate::source::{ConfigError, Span};

const CLAIM_KEYS: &[&str] = &[
    "name",
    "where",
    "metric",
    "expect",
    "tolerance",
    "band",
    "entity",
];

/// What a claim expects.
#[derive(Debug, Clone)]
pub enum Expect {
    /// A number.
    Number(f64),
    /// An expression over the row, with its text.
    Expr(String, Expr<Var>),
    /// Exactly this text (a claim on a text column).
    Text(String),
}

/// How a claim compares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Test {
    /// |actual − expected| ≤ tolerance.
    Tolerance(f64),
    /// actual / expected within [lo, hi].
    Band(f64, f64),
}

/// One `[[claim]]`.
#[derive(Debug, Clone)]
pub struct Claim {
    /// Its label (default: the metric and filter).
    pub name: String,
    /// `where`: (parameter index, value) pairs the row's parameters must match.
    pub filter: Vec<(usize, Value)>,
    /// The metric (or entity column) named.
    pub metric: String,
    /// The column it reads.
    pub target: Var,
    /// The entity, for an entity claim, and where it was written.
    pub entity: Option<(String, Span)>,
    /// The expected value.
    pub expect: Expect,
    /// The comparison.
    pub test: Test,
}

impl Loader<'_> {
    /// One `[[claim]]`, against the plan.
    pub(super) fn claim(
        &self,
        plan: &Plan,
        (t, span): (&DeTable<'_>, Span),
    ) -> Result<Claim, ConfigError> {
        let model = &*plan.model;
        let fields = self.known_fields(t, "[[claim]]", CLAIM_KEYS)?;
        let field = |k: &str| {
            fields
                .iter()
                .find(|(key, _)| key.get_ref() == k)
                .map(|(_, v)| *v)
        };

        let entity = match field("entity") {
            Some(v) => {
                if model.entity_columns().is_empty() {
                    return Err(self.err(
                        &v.span(),
                        format!("{} has no entity rows; drop `entity`", model.name()),
                    ));
                }
                if !plan.entities {
                    return Err(self.err(
                        &v.span(),
                        "this config sets `entities = false`: no entity rows to claim on",
                    ));
                }
                Some((self.string(v, "entity")?, v.span()))
            }
            None => None,
        };
        let Some(metric_value) = field("metric") else {
            return Err(self.err(&span, "a [[claim]] needs `metric`"));
        };
        let metric = self.string(metric_value, "metric")?;
        // A text column is claimed by exact text, not a number.
        let text_target = plan.text_column(&metric, entity.is_some());
        let target = match text_target {
            Some(var) => var,
            None => plan
                .resolve(&metric, entity.is_some(), false)
                .map_err(|m| self.err(&metric_value.span(), m))?,
        };

        let filter = match field("where") {
            Some(w) => self.filter(plan, w)?,
            None => Vec::new(),
        };
        let filter_text: Vec<String> = filter
            .iter()
            .map(|(i, v)| format!("{} = {v}", model.params()[*i].key))
            .collect();

        let Some(expect_value) = field("expect") else {
            return Err(self.err(
                &span,
                "a [[claim]] needs `expect` (a number or an expression)",
            ));
        };
        let expect = match expect_value.get_ref() {
            DeValue::String(text) if text_target.is_some() => Expect::Text(text.to_string()),
            _ if text_target.is_some() => {
                return Err(self.err(
                    &expect_value.span(),
                    format!("`{metric}` holds text: `expect` is the exact text, in quotes"),
                ));
            }
            DeValue::String(text) => {
                let parsed = expr::parse(text, &|name| plan.resolve(name, entity.is_some(), true));
                match parsed {
                    Ok(e) => Expect::Expr(text.to_string(), e),
                    Err(e) => {
                        // Point at the character inside the string (after the opening quote).
                        let at = expect_value.span().start
                            + 1
                            + text
                                .char_indices()
                                .nth(e.offset)
                                .map_or(text.len(), |(b, _)| b);
                        return Err(self.err(&(at..at), format!("in `expect`: {}", e.message)));
                    }
                }
            }
            _ => Expect::Number(self.number(expect_value, "expect")?),
        };
        let test = match (field("tolerance"), field("band")) {
            (Some(_), Some(b)) => {
                return Err(self.err(&b.span(), "give `tolerance` or `band`, not both"));
            }
            (Some(t), None) => {
                let tol = self.number(t, "tolerance")?;
                if tol < 0.0 {
                    return Err(self.err(&t.span(), "`tolerance` must be ≥ 0"));
                }
                Test::Tolerance(tol)
            }
            (None, Some(b)) => {
                let bounds = match b.get_ref() {
                    DeValue::Array(items) if items.len() == 2 => (
                        self.number(&items[0], "band")?,
                        self.number(&items[1], "band")?,
                    ),
                    _ => return Err(self.err(&b.span(), "`band` must be [lo, hi], two numbers")),
                };
                if bounds.0 > bounds.1 {
                    return Err(self.err(&b.span(), "`band` must have lo ≤ hi"));
                }
                Test::Band(bounds.0, bounds.1)
            }
            (None, None) => Test::Tolerance(1e-9),
        };
        let name = match field("name") {
            Some(v) => self.string(v, "name")?,
            None => {
                let mut n = metric.clone();
                if let Some((e, _)) = &entity {
                    n = format!("{e}.{n}");
                }
                if !filter_text.is_empty() {
                    n = format!("{n} where {}", filter_text.join(", "));
                }
                n
            }
        };
        Ok(Claim {
            name,
            filter,
            metric,
            target,
            entity,
            expect,
            test,
        })
    }
}
