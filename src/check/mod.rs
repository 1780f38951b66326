//! Evaluating claims against a run's rows.

use coordsim_model::Value;

use crate::config::{Claim, Config, Expect, Stat, Test, Var, matches_filter};
use crate::format::Numbers;

use crate::results::{ColumnId, ColumnSource, Results, number};

pub mod dashboard;
mod entity_index;
mod execution_row;
mod judge;
mod line;
pub mod ties;

use entity_index::{EntityIndex, missing_entity};
pub use execution_row::{ExecutionRow, Executions};
use judge::{Eval, judge};

/// One claim's verdict: its worst evaluation.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// Passed on every row it matched.
    pub pass: bool,
    /// The line `check` prints.
    pub line: String,
    /// The config, as named on the command line.
    pub config: String,
    /// The claim's name.
    pub claim: String,
    /// The value the run gave (its worst evaluation).
    pub actual: String,
    /// What the claim expects there.
    pub expected: String,
    /// What it reads: the metric (or entity column), with its statistic (`mean of x`).
    pub metric: String,
    /// The row (point, replication) or point its worst evaluation is about, as
    /// `clients = 8`; empty for a config without a sweep.
    pub at: String,
    /// The 1-based line of the config where the claim is written.
    pub config_line: usize,
    /// The numbers behind `actual` and `expected`, for a page to write in its locale.
    pub numbers: Numbers,
    /// A claim over executions: its worst row in parts (`at` says it in `check`'s words),
    /// for a page to word in its locale; none for a claim over rows or a point's
    /// probability (its row is the point alone).
    pub executions: Option<ExecutionRow>,
}

/// One matched row's values: what the claim reads and what it expects there.
struct Sample {
    point: usize,
    replication: u64,
    actual: Option<f64>,
    /// The cell, for a text claim.
    text: Option<String>,
    expected: Option<f64>,
}

/// Checks every claim of `config` on `results`; an entity claim naming no entity is an error.
/// A config with claims over executions is explored first (with the default bounds).
pub fn evaluate(config: &Config, results: &Results) -> anyhow::Result<Vec<Verdict>> {
    let explored = if crate::runner::explore::claims_executions(config) {
        let limits = crate::runner::explore::default_limits();
        crate::runner::explore::explore_config(config, config.seed, &limits)?
    } else {
        Vec::new()
    };
    evaluate_explored(config, results, &explored)
}

/// [`evaluate`] with the config's explorations given (every point's, when it has claims
/// over executions).
pub fn evaluate_explored(
    config: &Config,
    results: &Results,
    explored: &[coordsim_model::Exploration],
) -> anyhow::Result<Vec<Verdict>> {
    let mut verdicts = Vec::new();
    for claim in &config.claims {
        if let Some(holds) = claim.over {
            verdicts.push(over_executions(config, explored, claim, holds).0);
            continue;
        }
        let evals = claim_evals(config, results, claim)?;
        let worst = evals
            .into_iter()
            .max_by(|a, b| a.excess.total_cmp(&b.excess))
            .expect("a claim's `where` matches at least one point");
        verdicts.push(verdict(config, claim, worst));
    }
    Ok(verdicts)
}

/// A claim over every execution of each point it matches: its verdict, and the outcome
/// that decides it (a failing `always`'s counterexample, a `sometimes`' or a `never`'s
/// witness) as (point, outcome index).
pub fn over_executions(
    config: &Config,
    explored: &[coordsim_model::Exploration],
    claim: &Claim,
    holds: crate::config::Holds,
) -> (Verdict, Option<(usize, usize)>) {
    use crate::config::Holds;
    if let Some(want) = &claim.probability {
        return probability_over_executions(config, explored, claim, want);
    }
    let mut evals: Vec<(Eval, Option<(usize, usize)>)> = Vec::new();
    for (point, exploration) in explored.iter().enumerate() {
        let params = config.point_values(point);
        if !matches_filter(&params, &claim.filter) {
            continue;
        }
        let bounded = exploration.bounded;
        // The row in `check`'s words, and in parts.
        let row = |what: String, executions: Executions| {
            let at = describe(config, point, None);
            // The point, what was found there, and the bound after a semicolon (after a
            // comma when the row is the bound's alone).
            let mut text = [at.as_str(), what.as_str()]
                .into_iter()
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(", ");
            if let Some(bound) = bounded {
                if !text.is_empty() {
                    text.push_str(if what.is_empty() { ", " } else { "; " });
                }
                text.push_str(&bound.to_string());
            }
            let parts = ExecutionRow {
                point: at,
                executions,
                bounded: bounded.is_some(),
            };
            (text, parts)
        };
        let samples: Vec<Sample> = exploration
            .outcomes
            .iter()
            .map(|o| outcome_sample(claim, &params, point, Some(o)))
            .collect();
        // What is expected where no outcome gives a metric (a bound reached before any
        // execution ended): an expectation over the parameters alone still has its value.
        let expected_alone = || outcome_sample(claim, &params, point, None).expected;
        if let Some(stat) = claim.stat {
            // No outcome (a bound reached before any execution ended): no value at all.
            let values: Option<Vec<f64>> = samples.iter().map(|s| s.actual).collect();
            let actual = values.filter(|v| !v.is_empty()).map(|v| match stat {
                Stat::Max => v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                _ => v.iter().copied().fold(f64::INFINITY, f64::min),
            });
            let expected = match samples.first() {
                Some(first) => first.expected,
                None => expected_alone(),
            };
            let what = format!(
                "{} of {}",
                stat.name(),
                executions_of(exploration.executions)
            );
            let executions = Executions::Stat {
                stat,
                executions: exploration.executions,
            };
            let (text, parts) = row(what, executions);
            let mut e = judge(claim, actual, None, expected, None, text);
            e.executions = Some(parts);
            if bounded.is_some() && e.excess <= 0.0 {
                // A bound found no counterexample, which proves nothing.
                e.excess = BOUNDED_EXCESS;
                e.reason = Some("the exploration was bounded: not every execution was seen");
            }
            evals.push((e, None));
            continue;
        }
        for (k, s) in samples.into_iter().enumerate() {
            let o = &exploration.outcomes[k];
            let what = format!(
                "outcome {} of {} ({})",
                k + 1,
                exploration.outcomes.len(),
                executions_of(o.executions)
            );
            let executions = Executions::Outcome {
                k: k + 1,
                of: exploration.outcomes.len(),
                executions: o.executions,
            };
            let (text, parts) = row(what, executions);
            let mut e = judge(claim, s.actual, None, s.expected, None, text);
            e.executions = Some(parts);
            e.excess = match holds {
                Holds::Always | Holds::Sometimes => e.excess,
                // Never: an outcome that meets the test is the failure.
                Holds::Never if e.excess <= 0.0 => 1.0,
                Holds::Never => -1.0,
            };
            evals.push((e, Some((point, k))));
        }
        if bounded.is_some() {
            // No counterexample in a bounded search is no proof; and a `sometimes` with
            // no witness among the executions seen is not disproved either, but fails.
            // A counterexample the search did find (or a witness) still decides.
            let (text, parts) = row(String::new(), Executions::Bounded);
            let mut e = judge(claim, None, None, expected_alone(), None, text);
            e.executions = Some(parts);
            e.excess = BOUNDED_EXCESS;
            e.reason = Some("the exploration was bounded: not every execution was seen");
            evals.push((e, None));
        }
    }
    let pick = match holds {
        // Sometimes: the best outcome decides; the others the worst.
        crate::config::Holds::Sometimes if claim.stat.is_none() => evals
            .into_iter()
            .min_by(|a, b| a.0.excess.total_cmp(&b.0.excess)),
        _ => evals
            .into_iter()
            .max_by(|a, b| a.0.excess.total_cmp(&b.0.excess)),
    };
    let (worst, decides) = pick.unwrap_or_else(|| (no_point(claim), None));
    let shown = match (holds, worst.excess <= 0.0) {
        (Holds::Always, false) | (Holds::Sometimes, true) | (Holds::Never, false) => decides,
        _ => None,
    };
    (verdict(config, claim, worst), shown)
}

/// How much a bound fails a claim by: it fails (a bound proves nothing), but by less than
/// any outcome that truly fails, so that a counterexample found before the bound, at this
/// point or another, is the one shown; and a witness of a `sometimes` still passes.
const BOUNDED_EXCESS: f64 = f64::MIN_POSITIVE;

/// `n executions`, or `1 execution`.
fn executions_of(n: u128) -> String {
    if n == 1 {
        "1 execution".into()
    } else {
        format!("{n} executions")
    }
}

/// A claim's sample of one explored outcome at `point` (`None`: of no outcome, every
/// metric empty).
fn outcome_sample(
    claim: &Claim,
    params: &[Value],
    point: usize,
    outcome: Option<&coordsim_model::explore::Outcome>,
) -> Sample {
    let metric = |i: usize| outcome.and_then(|o| o.metrics.get(i)).and_then(number);
    sample(
        claim,
        params,
        &metric,
        &|_| None,
        &|_| String::new(),
        point,
        0,
    )
}

/// The evaluation of a claim over executions that matched no explored point.
fn no_point(claim: &Claim) -> Eval {
    let mut e = judge(claim, None, None, None, None, "no point explored".into());
    e.reason = Some("no point matched");
    e.executions = Some(ExecutionRow {
        point: String::new(),
        executions: Executions::NoPoint,
        bounded: false,
    });
    e
}

/// A claim's `probability`: at each matched point, the sum of the probabilities of the
/// outcomes that meet its test, against the expected one (± [`PROBABILITY_TOLERANCE`]);
/// the worst point decides, and its first (shortest) outcome meeting the test is shown.
fn probability_over_executions(
    config: &Config,
    explored: &[coordsim_model::Exploration],
    claim: &Claim,
    want: &Expect,
) -> (Verdict, Option<(usize, usize)>) {
    use crate::config::claims::PROBABILITY_TOLERANCE;
    /// One point's sum against its expectation.
    struct Judged {
        excess: f64,
        actual: Option<f64>,
        expected: Option<f64>,
        row: String,
        reason: Option<&'static str>,
        /// The first (shortest) outcome that meets the test.
        first: Option<(usize, usize)>,
        /// The test, in words (`x = 1`), and as the line says it (in the locale).
        test: String,
        test_line: String,
    }
    let mut worst: Option<Judged> = None;
    for (point, e) in explored.iter().enumerate() {
        let params = config.point_values(point);
        if !matches_filter(&params, &claim.filter) {
            continue;
        }
        let expected = match want {
            Expect::Number(x) => Some(*x),
            Expect::Expr(_, ex) => ex.eval(&|v| match v {
                Var::Param(i) => params[i].as_f64(),
                _ => None,
            }),
            Expect::Text(_) => None,
        };
        // Said from the outcomes' expectation; with none (a bound hit first), from the claim.
        let mut test = format!("{} meets its test", claim.metric);
        let mut test_line = test.clone();
        let mut first = None;
        let mut actual = Some(0.0);
        for (k, o) in e.outcomes.iter().enumerate() {
            let s = outcome_sample(claim, &params, point, Some(o));
            let op = match claim.test {
                Test::AtMost(_) => "≤",
                Test::AtLeast(_) => "≥",
                _ => "=",
            };
            let shown = |n: &dyn Fn(&str) -> String| {
                s.expected.map_or("empty".into(), |x| n(&x.to_string()))
            };
            test = format!("{} {op} {}", claim.metric, shown(&|x| x.to_string()));
            test_line = format!(
                "{} {op} {}",
                claim.metric,
                shown(&|x| config.locale.number(x))
            );
            if judge(claim, s.actual, None, s.expected, None, String::new()).excess <= 0.0 {
                first = first.or(Some((point, k)));
                actual = actual.zip(o.probability).map(|(a, p)| a + p);
            }
        }
        let reason = if e.bounded.is_some() {
            Some("the exploration was bounded: not every execution's probability is known")
        } else if e.ordered {
            Some(
                "some instant left events in a free order: executions have no probability (give the scenario no tie)",
            )
        } else {
            None
        };
        let excess = match (reason, actual, expected) {
            (None, Some(a), Some(x)) => (a - x).abs() - PROBABILITY_TOLERANCE,
            _ => f64::INFINITY,
        };
        if worst.as_ref().is_none_or(|w| excess > w.excess) {
            worst = Some(Judged {
                excess,
                actual,
                expected,
                row: describe(config, point, None),
                reason,
                first,
                test,
                test_line,
            });
        }
    }
    let Some(Judged {
        excess,
        actual,
        expected,
        row,
        reason,
        first,
        test,
        test_line,
    }) = worst
    else {
        return (verdict(config, claim, no_point(claim)), None);
    };
    let pass = excess <= 0.0;
    let show = |x: Option<f64>| x.map_or("empty".to_string(), crate::export::explore::rounded);
    let expected_value = expected;
    let expected = match want {
        Expect::Expr(text, _) => format!("{text} = {}", show(expected)),
        _ => show(expected),
    };
    let what = format!("probability that {test}");
    let relation = format!("expected {expected}, ± {PROBABILITY_TOLERANCE:e}");
    let line = line::probability_line(
        config,
        claim,
        &test_line,
        match want {
            Expect::Expr(text, _) => Some(text.as_str()),
            _ => None,
        },
        line::Figures {
            actual,
            expected: expected_value,
            ci: None,
        },
        PROBABILITY_TOLERANCE,
        &row,
        reason,
        pass,
    );
    // One verdict, one line, whatever a swept value or the config's path holds.
    let line = crate::format::one_line(&line);
    let verdict = Verdict {
        pass,
        line,
        config: config.source.name.clone(),
        claim: claim.name.clone(),
        actual: show(actual),
        expected: relation,
        metric: what,
        at: row,
        config_line: config.source.line_col(claim.span.start).0,
        numbers: Numbers {
            actual,
            expected: expected_value,
            tolerance: Some(PROBABILITY_TOLERANCE),
            ci: None,
            level: None,
            relation: "probability",
        },
        executions: None,
    };
    (verdict, first)
}

/// Every evaluation of `claim` on `results`.
fn claim_evals(config: &Config, results: &Results, claim: &Claim) -> anyhow::Result<Vec<Eval>> {
    let samples = evaluations(config, results, claim)?;
    Ok(judge_all(config, claim, samples))
}

/// What each claim reads, evaluation by evaluation (row, or point with `stat`): the row it
/// names and the value (or text) it found. Two runs agree on a claim when these are equal.
pub fn claim_values(
    config: &Config,
    results: &Results,
) -> anyhow::Result<Vec<Vec<(String, String)>>> {
    config
        .claims
        .iter()
        .filter(|claim| claim.over.is_none())
        .map(|claim| {
            Ok(claim_evals(config, results, claim)?
                .into_iter()
                .map(|e| {
                    let value = match (e.text, e.actual) {
                        (Some(t), _) => format!("{t:?}"),
                        (None, Some(x)) => x.to_string(),
                        (None, None) => "empty".to_string(),
                    };
                    (e.row, value)
                })
                .collect())
        })
        .collect()
}

/// The verdict on a claim's worst evaluation, and the line `check` prints for it.
fn verdict(config: &Config, claim: &Claim, worst: Eval) -> Verdict {
    let pass = worst.excess <= 0.0;
    let figures = line::Figures {
        actual: worst.actual,
        expected: worst.expected,
        ci: worst.ci,
    };
    let said = line::said(claim, figures, worst.text.as_deref());
    let line = line::claim_line(
        config,
        claim,
        figures,
        worst.text.as_deref(),
        &worst.row,
        worst.reason,
        pass,
    );
    // One verdict, one line, whatever a swept value or the config's path holds.
    let line = crate::format::one_line(&line);
    let numbers = Numbers {
        actual: worst.text.is_none().then_some(worst.actual).flatten(),
        expected: worst.expected,
        tolerance: match claim.test {
            Test::Tolerance(t) => Some(t),
            Test::AtMost(t) | Test::AtLeast(t) if t > 1e-9 => Some(t),
            _ => None,
        },
        ci: match claim.test {
            Test::Band(lo, hi) => Some((lo, hi)),
            _ => worst.ci,
        },
        level: match claim.test {
            Test::WithinCi(c) => Some(c),
            _ => None,
        },
        relation: match (&claim.expect, claim.over, claim.test) {
            (Expect::Text(_), _, _) | (_, Some(_), _) => "",
            (_, None, Test::Tolerance(_)) => "expect",
            (_, None, Test::Band(..)) => "band",
            (_, None, Test::AtMost(_)) => "at_most",
            (_, None, Test::AtLeast(_)) => "at_least",
            (_, None, Test::WithinCi(_)) => "within_ci",
        },
    };
    Verdict {
        pass,
        line,
        config: config.source.name.clone(),
        claim: claim.name.clone(),
        actual: said.actual,
        expected: said.expected,
        metric: said.metric,
        at: worst.row,
        config_line: config.source.line_col(claim.span.start).0,
        numbers,
        executions: worst.executions,
    }
}

/// The row a point (and replication) stands for, by its swept parameters' values.
fn describe(config: &Config, point: usize, replication: Option<u64>) -> String {
    let values = config.point_values(point);
    let mut parts: Vec<String> = config
        .axes
        .iter()
        .map(|a| format!("{} = {}", a.key, values[a.param]))
        .collect();
    if let Some(r) = replication.filter(|_| config.replications > 1) {
        parts.push(format!("replication {r}"));
    }
    parts.join(", ")
}

/// Every evaluation of a claim: one per row, or with `stat` one per point.
fn judge_all(config: &Config, claim: &Claim, samples: Vec<Sample>) -> Vec<Eval> {
    let Some(stat) = claim.stat else {
        return samples
            .into_iter()
            .map(|s| {
                let row = describe(config, s.point, Some(s.replication));
                judge(claim, s.actual, s.text, s.expected, None, row)
            })
            .collect();
    };
    // Rows come in point order: each point's replications together.
    let mut evals = Vec::new();
    for group in samples.chunk_by(|a, b| a.point == b.point) {
        let actuals: Option<Vec<f64>> = group.iter().map(|s| s.actual).collect();
        let expecteds: Option<Vec<f64>> = group.iter().map(|s| s.expected).collect();
        let actual = actuals.as_ref().map(|v| match stat {
            Stat::Mean => v.iter().sum::<f64>() / v.len() as f64,
            Stat::Min => v.iter().copied().fold(f64::INFINITY, f64::min),
            Stat::Max => v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        });
        // The expectation is averaged too (the same when it depends on parameters only).
        let expected = expecteds.map(|v| v.iter().sum::<f64>() / v.len() as f64);
        let confidence = match claim.test {
            Test::WithinCi(c) => c,
            _ => 0.95,
        };
        let ci = actuals
            .as_deref()
            .and_then(|v| crate::summary::interval(v, confidence));
        let mut row = describe(config, group[0].point, None);
        let n = group.len();
        let replications = if n == 1 {
            "1 replication".to_string()
        } else {
            format!("{n} replications")
        };
        row = if row.is_empty() {
            replications
        } else {
            format!("{row} ({replications})")
        };
        evals.push(judge(claim, actual, None, expected, ci, row));
    }
    evals
}

fn evaluations(config: &Config, results: &Results, claim: &Claim) -> anyhow::Result<Vec<Sample>> {
    let table = &results.results;
    let metric_ids: Vec<Option<ColumnId>> = (0..config.model.metrics().len())
        .map(|i| table.schema.id(ColumnSource::Metric(i)))
        .collect();
    let mut point_values: Option<(usize, Vec<Value>)> = None;
    // An entity claim's rows, indexed by run on the first row that needs one.
    let mut index: Option<EntityIndex<'_>> = None;
    let mut evals = Vec::new();
    for row in &table.rows {
        let point = table.point(row);
        let replication = table.replication(row);
        if point_values.as_ref().is_none_or(|(p, _)| *p != point) {
            point_values = Some((point, config.point_values(point)));
        }
        let values = &point_values.as_ref().expect("set above").1;
        if !matches_filter(values, &claim.filter) {
            continue;
        }
        let metric_cell = |i: usize| metric_ids[i].map(|id| &row[id]);
        let metric = |i: usize| metric_cell(i).and_then(number);
        // An entity claim reads its entity's row of the same run as well.
        let entity_row = match &claim.entity {
            None => None,
            Some((name, span)) => {
                let index = match &mut index {
                    Some(index) => index,
                    None => index.insert(EntityIndex::new(config, results, name, span)?),
                };
                match index.get(point, replication) {
                    Some(row) => Some(row),
                    None => {
                        return Err(missing_entity(
                            config,
                            index.table,
                            point,
                            replication,
                            name,
                            span,
                        ));
                    }
                }
            }
        };
        let entities = results.entities.as_ref();
        let entity_cell = |i: usize| {
            let (table, row) = (entities?, entity_row?);
            table
                .schema
                .id(ColumnSource::EntityColumn(i))
                .map(|id| &row[id])
        };
        let entity_col = |i: usize| entity_cell(i).and_then(number);
        let text = |v: Var| {
            let cell = match v {
                Var::Metric(i) => metric_cell(i),
                Var::Entity(i) => entity_cell(i),
                Var::Param(_) | Var::X => None,
            };
            cell.map_or(String::new(), ToString::to_string)
        };
        evals.push(sample(
            claim,
            values,
            &metric,
            &entity_col,
            &text,
            point,
            replication,
        ));
    }
    Ok(evals)
}

/// What a claim reads and expects at one row.
#[allow(clippy::too_many_arguments)]
fn sample(
    claim: &Claim,
    params: &[Value],
    metric: &impl Fn(usize) -> Option<f64>,
    entity: &impl Fn(usize) -> Option<f64>,
    text: &impl Fn(Var) -> String,
    point: usize,
    replication: u64,
) -> Sample {
    if let Expect::Text(_) = &claim.expect {
        return Sample {
            point,
            replication,
            actual: None,
            text: Some(text(claim.target)),
            expected: None,
        };
    }
    let get = |v: Var| match v {
        Var::Param(i) => params[i].as_f64(),
        Var::Metric(i) => metric(i),
        Var::Entity(i) => entity(i),
        // Only a chart's curve has an x.
        Var::X => None,
    };
    Sample {
        point,
        replication,
        actual: get(claim.target),
        text: None,
        expected: match &claim.expect {
            Expect::Number(x) => Some(*x),
            Expect::Expr(_, e) => e.eval(&get),
            Expect::Text(_) => None,
        },
    }
}

impl Verdict {
    /// This verdict as a test case of `--format junit` and `--format json`.
    pub fn case(&self) -> crate::check::dashboard::Case {
        crate::check::dashboard::Case {
            suite: self.config.clone(),
            name: self.claim.clone(),
            pass: self.pass,
            location: None,
            expected: self.expected.clone(),
            actual: self.actual.clone(),
            message: self.line.clone(),
            diff: None,
        }
    }
}
