//! A claim's verdict: its worst evaluation, the line `check` prints for it, and the
//! figures a page or a dashboard words in its own way.

use crate::config::{Claim, Config, Expect, Test};
use crate::format::Numbers;

use super::execution_row::ExecutionRow;
use super::judge::Eval;
use super::line;

/// One claim's verdict: its worst evaluation.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// Passed on every row it matched.
    pub pass: bool,
    /// The line `check` prints.
    pub line: String,
    /// The config, as named on the command line.
    pub(crate) config: String,
    /// The claim's name.
    pub(crate) claim: String,
    /// The value the run gave (its worst evaluation).
    pub(crate) actual: String,
    /// What the claim expects there.
    pub(crate) expected: String,
    /// The row (point, replication) or point its worst evaluation is about, as
    /// `clients = 8`; empty for a config without a sweep.
    pub(crate) at: String,
    /// The 1-based line of the config where the claim is written.
    pub(crate) config_line: usize,
    /// The numbers behind `actual` and `expected`, for a page to write in its locale.
    pub(crate) numbers: Numbers,
    /// A claim over executions: its worst row in parts (`at` says it in `check`'s words),
    /// for a page to word in its locale; none for a claim over rows or a point's
    /// probability (its row is the point alone).
    pub(crate) executions: Option<ExecutionRow>,
}

impl Verdict {
    /// This verdict as a test case of `--format junit` and `--format json`.
    pub(crate) fn case(&self) -> crate::check::dashboard::Case {
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

/// The verdict on a claim's worst evaluation, and the line `check` prints for it.
pub(super) fn verdict(config: &Config, claim: &Claim, worst: Eval) -> Verdict {
    let pass = worst.excess <= 0.0;
    let figures = line::Figures {
        actual: worst.actual,
        expected: worst.expected,
        ci: worst.ci,
        ends: worst.ends,
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
        at: worst.row,
        config_line: config.source.line_col(claim.span.start).0,
        numbers,
        executions: worst.executions,
    }
}

/// The row a point (and replication) stands for, by its swept parameters' values.
pub(super) fn describe(config: &Config, point: usize, replication: Option<u64>) -> String {
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
