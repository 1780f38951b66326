//! Claims over executions (`over = "executions"`): every outcome of each explored point
//! judged (`always`, `sometimes`, `never`, a `stat` over them, or a `probability`), the one
//! that decides shown, and a bounded exploration never taken for a proof.

use coordsim_model::Value;

use crate::config::{Claim, Config, Expect, Scheduler, Stat, Test, Var, matches_filter};
use crate::format::Numbers;
use crate::results::number;

use super::execution_row::{ExecutionRow, Executions};
use super::judge::{Eval, judge};
use super::line;
use super::runs::{Sample, sample};
use super::shown::Shown;
use super::verdict::{Verdict, describe, verdict};

/// A claim over every execution of each point it matches: its verdict, and the execution
/// that decides it (a failing `always`'s counterexample, a `sometimes`' or a `never`'s
/// witness; over schedulers, the claimed end's scheduler's, [`super::paths`]).
pub(crate) fn over_executions(
    config: &Config,
    explored: &[coordsim_model::Exploration],
    claim: &Claim,
    holds: crate::config::Holds,
) -> (Verdict, Option<Shown>) {
    use crate::config::Holds;
    // The claim's place among the config's: what its scheduler's execution is tagged with.
    let tag = config.claims.iter().position(|c| std::ptr::eq(c, claim));
    if let Some(want) = &claim.probability {
        return probability_over_executions(config, explored, claim, want, tag);
    }
    let mut evals: Vec<(Eval, Option<Shown>)> = Vec::new();
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
        let expected_alone = || outcome_sample(claim, &params, point, None).expected;
        // A loop without end: infinitely many executions, the endless ones lassos.
        let beyond = exploration.cycles.then(|| beyond_lassos(claim, holds));
        if let Some(reason) = beyond.flatten() {
            let (text, parts) = row(String::new(), Executions::Bounded);
            evals.push((refused(claim, text, parts, expected_alone(), reason), None));
            continue;
        }
        let samples: Vec<Sample> = exploration
            .outcomes
            .iter()
            .map(|o| outcome_sample(claim, &params, point, Some(o)))
            .collect();
        // What is expected where no outcome gives a metric (a bound reached before any
        // execution ended): an expectation over the parameters alone still has its value.
        if let Some(stat) = claim.stat {
            let weighted = stat.weighted().then(|| {
                let values: Vec<Option<f64>> = samples.iter().map(|s| s.actual).collect();
                super::weighted::weighted(exploration, claim.scheduler, stat, &values)
            });
            // No outcome (a bound reached before any execution ended): no value at all.
            let values: Option<Vec<f64>> = samples.iter().map(|s| s.actual).collect();
            let actual = match &weighted {
                Some(w) => w.actual,
                None => values.filter(|v| !v.is_empty()).map(|v| match stat {
                    Stat::Max => v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    _ => v.iter().copied().fold(f64::INFINITY, f64::min),
                }),
            };
            let expected = match samples.first() {
                Some(first) => first.expected,
                None => expected_alone(),
            };
            let what = format!(
                "{} of {}{}",
                stat.name(),
                if exploration.counted {
                    executions_of(exploration.executions)
                } else {
                    "every execution (not counted: `--no-counts`)".into()
                },
                if weighted.is_some() {
                    ", by probability"
                } else {
                    ""
                }
            );
            let executions = Executions::Stat {
                stat,
                executions: exploration.executions,
            };
            let (text, parts) = row(what, executions);
            let mut e = judge(claim, actual, None, expected, None, text);
            e.executions = Some(parts);
            if let Some(w) = weighted {
                e.ends = w.ends;
                if let Some(reason) = w.reason {
                    e.excess = f64::INFINITY;
                    e.reason = Some(reason);
                }
            }
            if bounded.is_some() && e.excess <= 0.0 {
                // A bound found no counterexample, which proves nothing.
                e.excess = BOUNDED_EXCESS;
                e.reason = Some("the exploration was bounded: not every execution was seen");
            }
            // Over schedulers, the claimed end's scheduler's most likely execution.
            let shown = claim
                .scheduler
                .and_then(|_| super::shown::shown_path(exploration, point, tag));
            evals.push((e, shown));
            continue;
        }
        for (k, s) in samples.into_iter().enumerate() {
            let (what, executions) = outcome_parts(exploration, k);
            let (text, parts) = row(what, executions);
            let mut e = judge(claim, s.actual, None, s.expected, None, text);
            e.executions = Some(parts);
            if holds == Holds::Eventually && s.actual.is_none() {
                // A watch with no instant: its condition held nowhere along the execution.
                e.reason = Some("the watch's condition never held along this execution");
            }
            e.excess = match holds {
                Holds::Always | Holds::Sometimes | Holds::Eventually => e.excess,
                // Never: an outcome that meets the test is the failure.
                Holds::Never if e.excess <= 0.0 => 1.0,
                Holds::Never => -1.0,
            };
            evals.push((e, Some(Shown::outcome(point, k))));
        }
        if bounded.is_some() {
            // No counterexample in a bounded search is no proof; and a `sometimes` with
            // no witness among the executions seen is not disproved either, but fails.
            // A counterexample the search did find (or a witness) still decides.
            let (text, parts) = row(String::new(), Executions::Bounded);
            evals.push((bounded_row(claim, text, parts, expected_alone()), None));
        }
    }
    let (worst, shown) = decide(claim, holds, evals);
    (verdict(config, claim, worst), shown)
}

/// The row of a bounded exploration: not every execution was seen, so nothing it found
/// proves the claim.
fn bounded_row(claim: &Claim, text: String, parts: ExecutionRow, expected: Option<f64>) -> Eval {
    let mut e = judge(claim, None, None, expected, None, text);
    e.executions = Some(parts);
    e.excess = BOUNDED_EXCESS;
    e.reason = Some("the exploration was bounded: not every execution was seen");
    e
}

/// The evaluation that decides a claim over executions (the best outcome for a
/// `sometimes`, else the worst), and the execution shown for it: a failing `always`'s or
/// `eventually`'s counterexample, a passing `sometimes`' witness, a failing `never`'s; a
/// `stat`'s over schedulers, passing or failing (the only one a `stat` is given).
fn decide(
    claim: &Claim,
    holds: crate::config::Holds,
    evals: Vec<(Eval, Option<Shown>)>,
) -> (Eval, Option<Shown>) {
    use crate::config::Holds;
    let pick = match holds {
        Holds::Sometimes if claim.stat.is_none() => evals
            .into_iter()
            .min_by(|a, b| a.0.excess.total_cmp(&b.0.excess)),
        _ => evals
            .into_iter()
            .max_by(|a, b| a.0.excess.total_cmp(&b.0.excess)),
    };
    let (worst, decides) = pick.unwrap_or_else(|| (no_point(claim), None));
    let shown = match (holds, worst.excess <= 0.0) {
        _ if claim.stat.is_some() => decides,
        (Holds::Always | Holds::Eventually, false)
        | (Holds::Sometimes, true)
        | (Holds::Never, false) => decides,
        _ => None,
    };
    (worst, shown)
}

/// The failing evaluation of a claim over a point it cannot be judged at, for `reason`.
fn refused(
    claim: &Claim,
    text: String,
    parts: ExecutionRow,
    expected: Option<f64>,
    reason: &'static str,
) -> Eval {
    let mut e = judge(claim, None, None, expected, None, text);
    e.executions = Some(parts);
    e.excess = f64::INFINITY;
    e.reason = Some(reason);
    e
}

/// Why `claim` cannot be judged over a point with a loop without end, whose endless
/// executions are stood for by one lasso for each set of states they go round: only
/// `sometimes` (a lasso or an end is a real execution: a witness) and a plain `eventually`
/// (every end, and every fair cycle, reaches the watch: the search looked for a cycle that
/// does not) are; a bound on the instant, `always`, `never`, a `stat` and a `probability`
/// would need every execution's metrics, and there are infinitely many, with no probability.
fn beyond_lassos(claim: &Claim, holds: crate::config::Holds) -> Option<&'static str> {
    use crate::config::Holds;
    let plain = matches!(claim.test, Test::AtLeast(_))
        && matches!(claim.expect, Expect::Number(bound) if bound == 0.0);
    if claim.probability.is_some() || claim.stat.is_some() {
        return Some(
            "the point has executions without end (a loop without end): they are infinitely many and have no probability; claim `eventually` or `sometimes`",
        );
    }
    match holds {
        // A lasso's metric is the value its execution keeps for ever (one that moves round
        // the cycle is empty: no value to witness).
        Holds::Sometimes => None,
        Holds::Eventually if plain => None,
        Holds::Eventually => Some(
            "the point has executions without end (a loop without end): `eventually` is judged there with no bound on the instant",
        ),
        Holds::Always | Holds::Never => Some(
            "the point has executions without end (a loop without end), stood for by lassos whose metrics are one execution's each: claim `eventually` (a watch) or `sometimes`",
        ),
    }
}

/// How much a bound fails a claim by: it fails (a bound proves nothing), but by less than
/// any outcome that truly fails, so that a counterexample found before the bound, at this
/// point or another, is the one shown; and a witness of a `sometimes` still passes.
const BOUNDED_EXCESS: f64 = f64::MIN_POSITIVE;

/// Outcome `k`'s row (from 0) in `check`'s words and in parts: which of how many, and its
/// executions, or that they are not counted where a loop has no end.
fn outcome_parts(exploration: &coordsim_model::Exploration, k: usize) -> (String, Executions) {
    let of = exploration.outcomes.len();
    if exploration.cycles {
        let what = format!(
            "outcome {} of {of} (executions not counted: a loop without end)",
            k + 1
        );
        return (what, Executions::Uncounted { k: k + 1, of });
    }
    if !exploration.counted {
        let what = format!(
            "outcome {} of {of} (executions not counted: `--no-counts`)",
            k + 1
        );
        return (what, Executions::Uncounted { k: k + 1, of });
    }
    let executions = exploration.outcomes[k].executions;
    let what = format!("outcome {} of {of} ({})", k + 1, executions_of(executions));
    let parts = Executions::Outcome {
        k: k + 1,
        of,
        executions,
    };
    (what, parts)
}

/// `n executions`, or `1 execution`.
fn executions_of(n: u128) -> String {
    if n == 1 {
        "1 execution".into()
    } else {
        format!("{n} executions")
    }
}

/// Whether outcome `outcome` of point `point` meets the test of `claim`, a claim over
/// executions judged outcome by outcome (`always`, `sometimes`, `never`, `eventually`, or
/// the event of a `probability`); `None` for another claim (over runs, or a `stat`, which
/// no single outcome decides) or a point its filter leaves out. What the explorer says at
/// an execution's end.
pub(crate) fn outcome_meets(
    config: &Config,
    claim: &Claim,
    point: usize,
    outcome: &coordsim_model::explore::Outcome,
) -> Option<bool> {
    if claim.over.is_none() || claim.stat.is_some() {
        return None;
    }
    let params = config.point_values(point);
    if !matches_filter(&params, &claim.filter) {
        return None;
    }
    let s = outcome_sample(claim, &params, point, Some(outcome));
    Some(judge(claim, s.actual, None, s.expected, None, String::new()).excess <= 0.0)
}

/// A claim's sample of one explored outcome at `point` (`None`: of no outcome, every
/// metric empty).
fn outcome_sample(
    claim: &Claim,
    params: &[Value],
    point: usize,
    outcome: Option<&coordsim_model::explore::Outcome>,
) -> Sample {
    metrics_sample(claim, params, point, outcome.map(|o| o.metrics.as_slice()))
}

/// A claim's sample of an outcome's metrics at `point` (`None`: every metric empty).
pub(super) fn metrics_sample(
    claim: &Claim,
    params: &[Value],
    point: usize,
    metrics: Option<&[coordsim_model::Cell]>,
) -> Sample {
    let metric = |i: usize| metrics.and_then(|m| m.get(i)).and_then(number);
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

/// One point's sum against its expectation.
struct Judged {
    excess: f64,
    actual: Option<f64>,
    ends: Option<(f64, f64)>,
    expected: Option<f64>,
    row: String,
    reason: Option<&'static str>,
    /// The execution shown: the first (shortest) outcome that meets the test, or over
    /// schedulers the claimed end's scheduler's most likely execution.
    first: Option<Shown>,
    /// The test as the line says it (`x = 1`, in the locale).
    test_line: String,
}

/// A claim's `probability`: at each matched point, the sum of the probabilities of the
/// outcomes that meet its test, against the expected one (± [`PROBABILITY_TOLERANCE`]);
/// the worst point decides, and its first (shortest) outcome meeting the test is shown, or
/// over schedulers the claimed end's scheduler's most likely execution (`tag`: the
/// claim's place, which the exploration's [`ExtremePath`](coordsim_model::explore::ExtremePath)
/// names).
fn probability_over_executions(
    config: &Config,
    explored: &[coordsim_model::Exploration],
    claim: &Claim,
    want: &Expect,
    tag: Option<usize>,
) -> (Verdict, Option<Shown>) {
    use crate::config::claims::PROBABILITY_TOLERANCE;
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
        let mut test_line = format!("{} meets its test", claim.metric);
        let mut first = None;
        let mut sum = Some(0.0);
        // Which outcomes meet the test, for the schedulers' interval.
        let mut meeting = vec![false; e.outcomes.len()];
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
            test_line = format!(
                "{} {op} {}",
                claim.metric,
                shown(&|x| config.locale.number(x))
            );
            if judge(claim, s.actual, None, s.expected, None, String::new()).excess <= 0.0 {
                first = first.or(Some(Shown::outcome(point, k)));
                sum = sum.zip(o.probability).map(|(a, p)| a + p);
                meeting[k] = true;
            }
        }
        let (actual, ends) = claimed_end(e, claim, sum, &meeting);
        if claim.scheduler.is_some()
            && let Some(path) = super::shown::shown_path(e, point, tag)
        {
            first = Some(path);
        }
        let reason = no_probability(e, claim, ends);
        let excess = match (reason, actual, expected) {
            (None, Some(a), Some(x)) => (a - x).abs() - PROBABILITY_TOLERANCE,
            _ => f64::INFINITY,
        };
        if worst.as_ref().is_none_or(|w| excess > w.excess) {
            worst = Some(Judged {
                excess,
                actual,
                ends,
                expected,
                row: describe(config, point, None),
                reason,
                first,
                test_line,
            });
        }
    }
    let Some(Judged {
        excess,
        actual,
        ends,
        expected,
        row,
        reason,
        first,
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
    // Over schedulers, which end (`min over schedulers: expected 0.3, ± 1e-9`).
    let over = claim
        .scheduler
        .map_or(String::new(), |s| format!("{} over schedulers: ", s.name()));
    let relation = format!("{over}expected {expected}, ± {PROBABILITY_TOLERANCE:e}");
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
            ends: None,
        },
        PROBABILITY_TOLERANCE,
        &row,
        reason,
        pass,
        claim
            .scheduler
            .map(|scheduler| super::line::Interval { scheduler, ends }),
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

/// The probability a claim reads at a point (`sum`: the outcomes' meeting its test, when
/// known), and with `scheduler` its interval over schedulers: the claimed end of it.
fn claimed_end(
    e: &coordsim_model::Exploration,
    claim: &Claim,
    sum: Option<f64>,
    meeting: &[bool],
) -> (Option<f64>, Option<(f64, f64)>) {
    let Some(scheduler) = claim.scheduler else {
        return (sum, None);
    };
    let ends = scheduler_ends(e, sum, meeting);
    let end = ends.map(|(least, greatest)| match scheduler {
        Scheduler::Min => least,
        Scheduler::Max => greatest,
    });
    (end, ends)
}

/// The least and the greatest probability, over every scheduler, that an execution of `e`
/// ends with an outcome `meeting` marks: where no order is free both are the outcomes'
/// probability `sum` (one scheduler, no choice); else over the graph the exploration kept.
/// `None` when it is bounded, or kept no graph (a split's merge).
pub(crate) fn scheduler_ends(
    e: &coordsim_model::Exploration,
    sum: Option<f64>,
    meeting: &[bool],
) -> Option<(f64, f64)> {
    if e.bounded.is_some() {
        return None;
    }
    if !e.ordered {
        return sum.map(|p| (p, p));
    }
    let graph = e.schedulers.as_ref()?;
    let meets = |k: usize| meeting.get(k).copied().unwrap_or(false);
    Some((graph.extreme(&meets, true), graph.extreme(&meets, false)))
}

/// Why a point's probability is not known (`None`: it is), `ends` its interval over
/// schedulers when the claim asks for one.
fn no_probability(
    e: &coordsim_model::Exploration,
    claim: &Claim,
    ends: Option<(f64, f64)>,
) -> Option<&'static str> {
    if e.bounded.is_some() {
        Some("the exploration was bounded: not every execution's probability is known")
    } else if claim.scheduler.is_some() && ends.is_none() {
        Some("an exploration split into shards keeps no graph for its schedulers: explore it whole")
    } else if e.ordered && claim.scheduler.is_none() {
        Some(
            "some instant left events in a free order: executions have no probability (give the claim `scheduler = \"min\"` or `\"max\"`, or the scenario no tie)",
        )
    } else {
        None
    }
}
