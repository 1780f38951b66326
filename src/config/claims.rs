//! Phase two: `[[claim]]` tables, parsed against the plan.

use coordsim_model::Value;
use toml::de::{DeTable, DeValue};

use super::read::Loader;
use super::{Plan, Var};
use crate::locale::Locale;
use crate::source::{ConfigError, Span};
use coordsim_expr::{self as expr, Expr};

const CLAIM_KEYS: &[&str] = &[
    "name",
    "where",
    "metric",
    "expect",
    "at_most",
    "at_least",
    "tolerance",
    "band",
    "stat",
    "within_ci",
    "confidence",
    "entity",
    "over",
    "holds",
    "probability",
    "scheduler",
];

/// Over what a claim holds, when not over each run's row: over every execution an
/// exploration finds (`over = "executions"`), as `holds` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// In every execution (`holds = "always"`, the default).
    Always,
    /// In at least one.
    Sometimes,
    /// In none.
    Never,
    /// In every execution, a `[[watch]]`'s condition held at some instant (its metric has
    /// a value at the end), and that instant meets the test if one is given.
    Eventually,
}

impl Holds {
    /// Its name in configs.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Holds::Always => "always",
            Holds::Sometimes => "sometimes",
            Holds::Never => "never",
            Holds::Eventually => "eventually",
        }
    }
}

/// Which end of a probability's interval over every scheduler a claim states
/// (`scheduler = "min"` or `"max"`): where an instant leaves events in a free order, no
/// draw decides which runs first, so an outcome's probability is the least or the greatest
/// over every way of choosing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scheduler {
    /// The least probability any scheduler gives the test.
    Min,
    /// The greatest.
    Max,
}

impl Scheduler {
    /// Its name in configs.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Scheduler::Min => "min",
            Scheduler::Max => "max",
        }
    }
}

/// What a claim expects.
#[derive(Debug, Clone)]
pub(crate) enum Expect {
    /// A number.
    Number(f64),
    /// An expression over the row, with its text.
    Expr(String, Expr<Var>),
    /// Exactly this text (a claim on a text column).
    Text(String),
}

/// How a claim compares the value with its expectation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Test {
    /// `expect`: |actual − expected| ≤ tolerance.
    Tolerance(f64),
    /// `expect` with `band`: actual / expected within [lo, hi].
    Band(f64, f64),
    /// `at_most`: actual ≤ bound + tolerance.
    AtMost(f64),
    /// `at_least`: actual ≥ bound − tolerance.
    AtLeast(f64),
    /// `stat = "mean"`, `within_ci = true`: the expected value lies in the Student t interval
    /// of the mean over the replications, at this confidence (`confidence`, default 0.95).
    WithinCi(f64),
}

/// How a claim aggregates the replications of each matched point before comparing, or
/// over executions, every execution of a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stat {
    /// The mean over the replications; over executions, the mean weighted by each
    /// execution's probability.
    Mean,
    /// The smallest.
    Min,
    /// The largest.
    Max,
    /// `"p99"`, `"p99.9"`: over executions, the least value that executions of at least
    /// this share of the probability end at or below.
    Quantile(Percent),
}

/// A percentile's level, in thousandths of a percent (`p99.9` is 99,900): exact, so that
/// a stat compares and prints as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Percent(u32);

impl Percent {
    /// The share of the probability, in (0, 1].
    pub(crate) fn fraction(self) -> f64 {
        f64::from(self.0) / 100_000.0
    }

    /// As written after `p` (`99.9`).
    pub(crate) fn written(self) -> String {
        (f64::from(self.0) / 1000.0).to_string()
    }

    /// `"p99.9"` read: a number in (0, 100] with at most three decimals after `p`.
    fn parse(text: &str) -> Option<Percent> {
        let digits = text.strip_prefix('p')?;
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return None;
        }
        let level: f64 = digits.parse().ok()?;
        let thousandths = (level * 1000.0).round();
        let exact = (thousandths / 1000.0 - level).abs() < 1e-12;
        (exact && level > 0.0 && level <= 100.0).then_some(Percent(thousandths as u32))
    }
}

impl Stat {
    /// Its name in configs (`p99.9` as written).
    pub(crate) fn name(self) -> String {
        match self {
            Stat::Mean => "mean".into(),
            Stat::Min => "min".into(),
            Stat::Max => "max".into(),
            Stat::Quantile(p) => format!("p{}", p.written()),
        }
    }

    /// Its name in a Turkish claim's default name.
    pub(crate) fn turkish(self) -> String {
        match self {
            Stat::Mean => "ortalama".into(),
            Stat::Min => "en küçük".into(),
            Stat::Max => "en büyük".into(),
            // A decimal comma, as Turkish writes it (`99,9. yüzdelik`).
            Stat::Quantile(p) => format!("{}. yüzdelik", p.written().replace('.', ",")),
        }
    }

    /// Whether it weighs each execution by its probability (a mean, a percentile), not
    /// the least or greatest over every execution.
    pub(crate) fn weighted(self) -> bool {
        matches!(self, Stat::Mean | Stat::Quantile(_))
    }
}

/// One `[[claim]]`.
#[derive(Debug, Clone)]
pub struct Claim {
    /// Its label (default: the metric and filter).
    pub name: String,
    /// `where`: (parameter index, value) pairs the row's parameters must match.
    pub(crate) filter: Vec<(usize, Value)>,
    /// The metric (or entity column) named.
    pub(crate) metric: String,
    /// The column it reads.
    pub(crate) target: Var,
    /// The entity, for an entity claim, and where it was written.
    pub(crate) entity: Option<(String, Span)>,
    /// The expected value (or bound).
    pub(crate) expect: Expect,
    /// The comparison.
    pub(crate) test: Test,
    /// `stat`: aggregate each point's replications first (else every row is checked).
    pub(crate) stat: Option<Stat>,
    /// Where the claim's table is written in the config (its `[[claim]]` body).
    pub(crate) span: Span,
    /// `over = "executions"`: checked over every execution an exploration finds, as this
    /// says (`None`: on each run's row).
    pub(crate) over: Option<Holds>,
    /// `probability`: over executions, the exact probability that an execution meets the
    /// test (a number, or an expression over the parameters).
    pub(crate) probability: Option<Expect>,
    /// `scheduler`: with `probability`, the least or the greatest probability over every
    /// scheduler (`None`: the probability where no order is free).
    pub(crate) scheduler: Option<Scheduler>,
}

/// How close an outcome's probability must be to a claim's: the sums are exact but for
/// floating point.
pub(crate) const PROBABILITY_TOLERANCE: f64 = 1e-9;

/// A `[[claim]]`'s fields, looked up by key.
struct Fields<'f, 'i>(
    Vec<(
        &'f toml::Spanned<std::borrow::Cow<'i, str>>,
        &'f toml::Spanned<DeValue<'i>>,
    )>,
);

impl<'f, 'i> Fields<'f, 'i> {
    fn get(&self, k: &str) -> Option<&'f toml::Spanned<DeValue<'i>>> {
        self.0
            .iter()
            .find(|(key, _)| key.get_ref() == k)
            .map(|(_, v)| *v)
    }
}

/// What a claim reads: its entity (if on entity rows), its metric name, the variable it
/// resolves to, and whether that is a text column.
struct Target {
    entity: Option<(String, Span)>,
    metric: String,
    var: Var,
    text: bool,
}

impl Loader<'_> {
    /// One `[[claim]]`, against the plan.
    pub(super) fn claim(
        &self,
        plan: &Plan,
        (t, span): (&DeTable<'_>, Span),
    ) -> Result<Claim, ConfigError> {
        let fields = Fields(self.known_fields(t, "[[claim]]", CLAIM_KEYS)?);
        let target = self.claim_target(plan, &fields, &span)?;
        let filter = match fields.get("where") {
            Some(w) => self.filter(plan, w)?,
            None => Vec::new(),
        };
        let (relation, expect) = self.claim_expect(plan, &fields, &target, &span)?;
        let text_claim = matches!(expect, Expect::Text(_));
        let stat = self.claim_stat(&fields, text_claim)?;
        let test = self.claim_test(plan, &fields, relation, &expect, stat)?;
        let name = self.claim_name(plan, &fields, &target, stat, &filter)?;
        let over = self.claim_over(&fields, stat)?;
        if let (Some(_), Some((_, at))) = (over, &target.entity) {
            // An explored execution ends with the run's metrics: no entity rows are kept.
            return Err(self.err(
                at,
                "`entity` goes with claims over runs: a claim over executions reads each execution's run metrics (an exploration keeps no entity rows); claim a run metric, or drop `over`",
            ));
        }
        let probability = self.claim_probability(plan, &fields, over, stat)?;
        let weighted = over.is_some() && stat.is_some_and(Stat::weighted);
        let scheduler = self.claim_scheduler(&fields, probability.is_some() || weighted)?;
        Ok(Claim {
            over,
            probability,
            scheduler,
            name,
            filter,
            metric: target.metric,
            target: target.var,
            entity: target.entity,
            expect,
            test,
            stat,
            span,
        })
    }

    /// `probability`: over executions, the exact probability of the test's outcomes.
    fn claim_probability(
        &self,
        plan: &Plan,
        fields: &Fields<'_, '_>,
        over: Option<Holds>,
        stat: Option<Stat>,
    ) -> Result<Option<Expect>, ConfigError> {
        let Some(v) = fields.get("probability") else {
            return Ok(None);
        };
        if over.is_none() || stat.is_some() || fields.get("holds").is_some() {
            return Err(self.err(
                &v.span(),
                "`probability` is the exact probability that an execution meets the claim's test: it goes with `over = \"executions\"`, without `holds` or `stat`",
            ));
        }
        let expect = match v.get_ref() {
            DeValue::String(text) => {
                let params_only = |name: &str| match plan.resolve(name, false, true) {
                    Ok(Var::Param(i)) => Ok(Var::Param(i)),
                    Ok(_) => Err(format!(
                        "`{name}` is a metric: a probability is a number or an expression over the parameters"
                    )),
                    Err(e) => Err(e),
                };
                match expr::parse(text, &params_only) {
                    Ok(e) => Expect::Expr(text.to_string(), e),
                    Err(e) => return Err(self.expr_error(v.span().start, text, &e, "probability")),
                }
            }
            _ => {
                let p = self.number(v, "probability")?;
                if !(0.0..=1.0).contains(&p) {
                    return Err(self.err(
                        &v.span(),
                        format!("`probability` is between 0 and 1, not {p}"),
                    ));
                }
                Expect::Number(p)
            }
        };
        Ok(Some(expect))
    }

    /// `scheduler`: which end of the probability's interval over every scheduler.
    fn claim_scheduler(
        &self,
        fields: &Fields<'_, '_>,
        weighted: bool,
    ) -> Result<Option<Scheduler>, ConfigError> {
        let Some(v) = fields.get("scheduler") else {
            return Ok(None);
        };
        let scheduler = match self.string(v, "scheduler")?.as_str() {
            "min" => Scheduler::Min,
            "max" => Scheduler::Max,
            other => {
                return Err(self.err(
                    &v.span(),
                    format!("`scheduler` is `min` (the least probability, mean or percentile any order of the free events gives) or `max` (the greatest), not `{other}`"),
                ));
            }
        };
        if !weighted {
            return Err(self.err(
                &v.span(),
                "`scheduler` says which end of an interval over schedulers a claim states: it goes with `probability`, or `stat = \"mean\"` or a percentile (`\"p99\"`), and `over = \"executions\"`",
            ));
        }
        Ok(Some(scheduler))
    }

    /// `over` and `holds`: a claim over every execution, and how it must hold.
    fn claim_over(
        &self,
        fields: &Fields<'_, '_>,
        stat: Option<Stat>,
    ) -> Result<Option<Holds>, ConfigError> {
        let holds = match fields.get("holds") {
            None => None,
            Some(v) => Some(match self.string(v, "holds")?.as_str() {
                "always" => (Holds::Always, v),
                "sometimes" => (Holds::Sometimes, v),
                "never" => (Holds::Never, v),
                "eventually" => (Holds::Eventually, v),
                other => {
                    return Err(self.err(
                        &v.span(),
                        format!("`holds` is `always`, `sometimes`, `never` or `eventually` (a [[watch]] held in every execution), not `{other}`"),
                    ));
                }
            }),
        };
        let over = match fields.get("over") {
            None => false,
            Some(v) => match self.string(v, "over")?.as_str() {
                "runs" => false,
                "executions" => {
                    // `within_ci` over executions is refused at its own key.
                    true
                }
                other => {
                    return Err(self.err(
                        &v.span(),
                        format!("`over` is `runs` (each run's row, the default) or `executions` (every execution `coordsim explore` finds), not `{other}`"),
                    ));
                }
            },
        };
        match (over, holds) {
            (false, Some((_, v))) => Err(self.err(
                &v.span(),
                "`holds` says how a claim over executions holds: give `over = \"executions\"` too",
            )),
            (true, Some((_, v))) if stat.is_some() => Err(self.err(
                &v.span(),
                "with `stat` the claim is on one figure (the min, max, mean or a percentile over executions): drop `holds`",
            )),
            (true, holds) => Ok(Some(holds.map_or(Holds::Always, |(h, _)| h))),
            (false, None) => Ok(None),
        }
    }

    /// `entity` and `metric`: the column a claim reads.
    fn claim_target(
        &self,
        plan: &Plan,
        fields: &Fields<'_, '_>,
        span: &Span,
    ) -> Result<Target, ConfigError> {
        let model = &*plan.model;
        let field = |k: &str| fields.get(k);
        let span = span.clone();
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
        // A text column (an outcome, a status) is claimed by exact text, not a number.
        let text_target = plan.text_column(&metric, entity.is_some());
        let target = match text_target {
            Some(var) => var,
            None => plan
                .resolve(&metric, entity.is_some(), false)
                .map_err(|m| self.err(&metric_value.span(), m))?,
        };
        // An entity claim reads an entity column, never a run metric of the same row.
        if entity.is_some() && !matches!(target, Var::Entity(_)) {
            let valid: Vec<&str> = model.entity_columns().iter().map(|c| c.name).collect();
            return Err(self.err(
                &metric_value.span(),
                format!(
                    "`{metric}` is a metric of the run, not an entity column: drop `entity`, or claim one of {}",
                    valid.join(", ")
                ),
            ));
        }

        Ok(Target {
            entity,
            metric,
            var: target,
            text: text_target.is_some(),
        })
    }

    /// Exactly one of `expect`, `at_most`, `at_least`: the relation and what it expects (a
    /// number, an expression, or a text column's exact text).
    fn claim_expect(
        &self,
        plan: &Plan,
        fields: &Fields<'_, '_>,
        target: &Target,
        span: &Span,
    ) -> Result<(&'static str, Expect), ConfigError> {
        let field = |k: &str| fields.get(k);
        let span = span.clone();
        let (entity, metric) = (&target.entity, &target.metric);
        // Exactly one of `expect`, `at_most`, `at_least`.
        let given: Vec<(&'static str, &toml::Spanned<DeValue<'_>>)> =
            ["expect", "at_most", "at_least"]
                .into_iter()
                .filter_map(|k| field(k).map(|v| (k, v)))
                .collect();
        let eventually = field("holds").is_some_and(|h| h.get_ref().as_str() == Some("eventually"));
        if eventually && !plan.model.watches().contains(&metric.as_str()) {
            let watches = plan.model.watches();
            let hint = if watches.is_empty() {
                "this config declares none".to_string()
            } else {
                format!("this config's: {}", watches.join(", "))
            };
            return Err(self.err(
                &field("metric").map_or(span.clone(), |m| m.span()),
                format!("`holds = \"eventually\"` reads a [[watch]] (the instant its condition first held): `{metric}` is not one ({hint}); declare `[[watch]] name = \"…\", metric = \"{metric}\", at_least = …` and claim its name"),
            ));
        }
        let (relation, expect_value) = match given.as_slice() {
            [one] => *one,
            // `eventually` alone: the watch has an instant, any (an instant is ≥ 0 ms).
            [] if eventually => return Ok(("at_least", Expect::Number(0.0))),
            [] => {
                return Err(self.err(
                    &span,
                    "a [[claim]] needs `expect` (a number or an expression), `at_most` or `at_least`",
                ));
            }
            [_, (second, v), ..] => {
                return Err(self.err(
                    &v.span(),
                    format!("give one of `expect`, `at_most`, `at_least`, not `{second}` as well"),
                ));
            }
        };
        let expect = match expect_value.get_ref() {
            DeValue::String(text) if target.text && relation == "expect" => {
                Expect::Text(text.to_string())
            }
            _ if target.text => {
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
                        return Err(self.expr_error(expect_value.span().start, text, &e, relation));
                    }
                }
            }
            _ => Expect::Number(self.number(expect_value, relation)?),
        };
        Ok((relation, expect))
    }

    /// `stat`: aggregate each point's replications first.
    fn claim_stat(
        &self,
        fields: &Fields<'_, '_>,
        text_claim: bool,
    ) -> Result<Option<Stat>, ConfigError> {
        let field = |k: &str| fields.get(k);
        Ok(match field("stat") {
            Some(v) => {
                if text_claim {
                    return Err(self.err(
                        &v.span(),
                        "`stat` needs numbers; a text claim compares each row's text",
                    ));
                }
                let over_executions = field("over")
                    .is_some_and(|o| matches!(o.get_ref().as_str(), Some("executions")));
                let name = self.string(v, "stat")?;
                let percentile = Percent::parse(&name);
                match (name.as_str(), percentile) {
                    ("mean", _) => Some(Stat::Mean),
                    ("min", _) => Some(Stat::Min),
                    ("max", _) => Some(Stat::Max),
                    (_, Some(p)) if over_executions => Some(Stat::Quantile(p)),
                    (_, Some(_)) => {
                        return Err(self.err(
                            &v.span(),
                            format!("`stat = \"{name}\"` is a percentile over executions, each weighted by its probability: give `over = \"executions\"`; over runs, `stat` is \"mean\", \"min\" or \"max\" (a percentile of a distribution is a [[metric]] with `percentile`)"),
                        ));
                    }
                    (other, None) => {
                        return Err(self.err(
                            &v.span(),
                            format!(
                                "unknown `stat` = \"{other}\"; valid: \"mean\", \"min\", \"max\", and over executions a percentile \"pNN\" (\"p50\", \"p99\", \"p99.9\": a level in (0, 100])"
                            ),
                        ));
                    }
                }
            }
            None => None,
        })
    }

    /// The comparison: `tolerance`, `band`, `within_ci` (with `confidence`), or the default.
    fn claim_test(
        &self,
        plan: &Plan,
        fields: &Fields<'_, '_>,
        relation: &str,
        expect: &Expect,
        stat: Option<Stat>,
    ) -> Result<Test, ConfigError> {
        let field = |k: &str| fields.get(k);
        let text_claim = matches!(expect, Expect::Text(_));
        let within_ci = match field("within_ci") {
            Some(v) => match v.get_ref() {
                DeValue::Boolean(b) => b.then_some(v),
                _ => return Err(self.err(&v.span(), "`within_ci` must be true or false")),
            },
            None => None,
        };
        if let (Some(c), None) = (field("confidence"), within_ci) {
            return Err(self.err(
                &c.span(),
                "`confidence` is the level of `within_ci = true`; add it, or drop `confidence`",
            ));
        }
        let tolerance = match field("tolerance") {
            Some(t) => {
                if text_claim {
                    return Err(
                        self.err(&t.span(), "a text claim compares exactly: drop `tolerance`")
                    );
                }
                let tol = self.number(t, "tolerance")?;
                if tol < 0.0 {
                    return Err(self.err(&t.span(), "`tolerance` must be ≥ 0"));
                }
                Some((tol, t))
            }
            None => None,
        };
        Ok(match (field("band"), within_ci) {
            (Some(b), _) if text_claim => {
                return Err(self.err(&b.span(), "a text claim compares exactly: drop `band`"));
            }
            (Some(b), _) if tolerance.is_some() => {
                return Err(self.err(&b.span(), "give `tolerance` or `band`, not both"));
            }
            (Some(b), _) if relation != "expect" => {
                return Err(self.err(
                    &b.span(),
                    format!("`band` goes with `expect`, not `{relation}`"),
                ));
            }
            (Some(b), Some(_)) => {
                return Err(self.err(&b.span(), "`within_ci` is its own test: drop `band`"));
            }
            (Some(b), None) => {
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
                if matches!(expect, Expect::Number(x) if *x == 0.0) {
                    return Err(self.err(
                        &b.span(),
                        "a `band` compares actual / expected, so it needs a non-zero `expect`; use `tolerance` around 0",
                    ));
                }
                Test::Band(bounds.0, bounds.1)
            }
            (None, Some(w)) => {
                let over_executions = field("over")
                    .is_some_and(|v| matches!(v.get_ref().as_str(), Some("executions")));
                if over_executions {
                    // Else the advice below leads to `stat = "mean"`, which is refused there.
                    return Err(self.err(
                        &w.span(),
                        "`within_ci` is for claims over runs (an interval around the replications' mean); over executions every value is exact: drop it (`probability` states an exact probability)",
                    ));
                }
                if stat != Some(Stat::Mean) || relation != "expect" {
                    return Err(self.err(
                        &w.span(),
                        "`within_ci = true` goes with `stat = \"mean\"` and `expect`",
                    ));
                }
                if plan.replications < 2 {
                    return Err(self.err(
                        &w.span(),
                        "`within_ci` needs an interval: set `replications` to 2 or more",
                    ));
                }
                if let Some((_, t)) = tolerance {
                    return Err(
                        self.err(&t.span(), "`within_ci` is its own test: drop `tolerance`")
                    );
                }
                let confidence = match field("confidence") {
                    Some(c) => {
                        let level = self.number(c, "confidence")?;
                        if !(0.5..1.0).contains(&level) {
                            return Err(self.err(
                                &c.span(),
                                format!("`confidence` is a level from 0.5 to below 1 (0.95 for a 95% interval), got {level}"),
                            ));
                        }
                        level
                    }
                    None => 0.95,
                };
                Test::WithinCi(confidence)
            }
            (None, None) => {
                let tol = tolerance.map_or(1e-9, |(t, _)| t);
                match relation {
                    "at_most" => Test::AtMost(tol),
                    "at_least" => Test::AtLeast(tol),
                    _ => Test::Tolerance(tol),
                }
            }
        })
    }

    /// `name`, or one made of what the claim reads and where.
    fn claim_name(
        &self,
        plan: &Plan,
        fields: &Fields<'_, '_>,
        target: &Target,
        stat: Option<Stat>,
        filter: &[(usize, Value)],
    ) -> Result<String, ConfigError> {
        let field = |k: &str| fields.get(k);
        let (entity, metric) = (&target.entity, &target.metric);
        let filter_text: Vec<String> = filter
            .iter()
            .map(|(i, v)| format!("{} = {v}", plan.key_names()[*i]))
            .collect();
        Ok(match field("name") {
            Some(v) => {
                let (name, per_locale) = self.texts(v, "name")?;
                // A name is one line: `check` prints it on one, a schedule's header quotes
                // it in a comment, explore.md in a heading.
                for text in std::iter::once(&name).chain(per_locale.iter().map(|(_, t)| t)) {
                    if let Some((i, c)) = text.chars().enumerate().find(|(_, c)| c.is_control()) {
                        return Err(self.err(
                            &v.span(),
                            format!(
                                "a claim's `name` is one line of text: character {} is a control character (U+{:04X}{}); write it without",
                                i + 1,
                                c as u32,
                                if c == '\n' || c == '\r' { ", a line break" } else { "" }
                            ),
                        ));
                    }
                }
                name
            }
            None if plan.locale == Locale::Tr => {
                // `x (ortalama), a = 1 iken`: the metric first, as a
                // Turkish phrase needs no suffix on a name written as code.
                let mut n = metric.clone();
                if let Some((e, _)) = &entity {
                    n = format!("{e}.{n}");
                }
                if let Some(stat) = stat {
                    n = format!("{n} ({})", stat.turkish());
                }
                if !filter_text.is_empty() {
                    n = format!("{n}, {} iken", filter_text.join(", "));
                }
                n
            }
            None => {
                let mut n = metric.clone();
                if let Some(stat) = stat {
                    n = format!("{} of {n}", stat.name());
                }
                if let Some((e, _)) = &entity {
                    n = format!("{e}.{n}");
                }
                if !filter_text.is_empty() {
                    n = format!("{n} where {}", filter_text.join(", "));
                }
                n
            }
        })
    }
}
