//! One evaluation of a claim: how far a value is outside its test (≤ 0 inside), the
//! number that picks the evaluation a claim's line shows.

use super::execution_row::ExecutionRow;
use crate::config::{Claim, Expect, Test};

/// One evaluation of a claim: on a row, or on a point's replications (`stat`).
pub(super) struct Eval {
    pub(super) actual: Option<f64>,
    pub(super) text: Option<String>,
    pub(super) expected: Option<f64>,
    /// The 95% interval of the mean (`within_ci`).
    pub(super) ci: Option<(f64, f64)>,
    /// How far outside the test it is (≤ 0 inside); larger is worse.
    pub(super) excess: f64,
    /// Why it cannot pass, when that is not the numbers (an empty cell, a division by zero).
    pub(super) reason: Option<&'static str>,
    pub(super) row: String,
    /// Over executions: `row` in parts.
    pub(super) executions: Option<ExecutionRow>,
    /// A mean or a percentile over executions claimed over schedulers: its least and
    /// greatest over every scheduler.
    pub(super) ends: Option<(f64, f64)>,
}

/// One evaluation: how far the value is outside the claim's test.
pub(super) fn judge(
    claim: &Claim,
    actual: Option<f64>,
    text: Option<String>,
    expected: Option<f64>,
    ci: Option<(f64, f64)>,
    row: String,
) -> Eval {
    let fail = |reason: &'static str| (f64::INFINITY, Some(reason));
    let (excess, reason) = if let Expect::Text(want) = &claim.expect {
        if text.as_deref() == Some(want.as_str()) {
            (0.0, None)
        } else {
            (f64::INFINITY, None)
        }
    } else {
        match (actual, expected) {
            (None, _) => fail("the cell is empty"),
            (_, None) => fail("the expectation reads an empty cell"),
            (_, Some(e)) if !e.is_finite() => {
                fail("the expected value is not finite (a division by zero?)")
            }
            (Some(a), _) if !a.is_finite() => fail("the value is not finite"),
            (Some(a), Some(e)) => match claim.test {
                Test::Tolerance(t) => ((a - e).abs() - t, None),
                Test::Band(_, _) if e == 0.0 => {
                    fail("a band compares actual / expected, and the expected value is 0")
                }
                Test::Band(lo, hi) => {
                    let ratio = a / e;
                    ((lo - ratio).max(ratio - hi), None)
                }
                Test::AtMost(t) => (a - e - t, None),
                Test::AtLeast(t) => (e - a - t, None),
                Test::WithinCi(_) => match ci {
                    Some((lo, hi)) => (ci_excess(e, lo, hi), None),
                    None => fail("an interval needs two replications with values"),
                },
            },
        }
    };
    Eval {
        actual,
        text,
        expected,
        ci,
        excess,
        reason,
        row,
        executions: None,
        ends: None,
    }
}

/// How far the expectation `e` is from leaving the interval `[lo, hi]`, in half-widths
/// from its middle: −1 at the middle, 0 at an end, above 0 outside. So the point shown is
/// the one closest to failing (or the worst fail) whatever each point's scale: in
/// absolute units a point of small values, its expectation in the middle of a narrow
/// interval, would stand for the claim over one whose expectation grazes an end.
/// Inside or not is `lo ≤ e ≤ hi` exactly (no rounding of the middle moves an end).
fn ci_excess(e: f64, lo: f64, hi: f64) -> f64 {
    let (middle, half) = ((lo + hi) / 2.0, (hi - lo) / 2.0);
    let off = (e - middle).abs();
    let relative = if half > 0.0 {
        off / half - 1.0
    } else {
        // An interval of no width (every replication gave one value): on both ends at
        // once, or farther outside than any finite number of half-widths.
        if off == 0.0 { 0.0 } else { f64::MAX }
    };
    if (lo..=hi).contains(&e) {
        relative.min(0.0)
    } else {
        relative.max(f64::MIN_POSITIVE)
    }
}
