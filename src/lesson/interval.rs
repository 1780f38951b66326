//! A `ci` region's test: a theory's value checked inside a replicated run's interval of the
//! mean.

use crate::locale::Locale;

/// What a `ci` region found: whether the written value holds, and the interval it was
/// held to.
pub(super) struct IntervalTest {
    pub(super) pass: bool,
    /// The mean of the replications (a percent's, ×100).
    pub(super) mean: f64,
    pub(super) lo: f64,
    pub(super) hi: f64,
    /// Half a unit of the written value's last digit.
    pub(super) slack: f64,
    /// The replications.
    pub(super) runs: usize,
}

impl IntervalTest {
    /// The mean as a region's `run` shows it: three digits past the written ones, in the
    /// lesson's locale.
    pub(super) fn run_text(&self, decimals: usize, locale: Locale) -> String {
        locale.number(&crate::format::decimals_trimmed(self.mean, decimals + 3))
    }

    /// The test, as `lesson check` says it, in the lesson's locale: the interval's bounds
    /// rounded for reading, with the digits that show whether `written` lies in it.
    pub(super) fn described(&self, level: f64, written: f64, locale: Locale) -> String {
        let slack = self.slack;
        let extra = crate::format::digits_to_show(&[Some(self.lo), Some(self.hi)], &|b| {
            let (lo, hi) = (b[0]?, b[1]?);
            Some(written + slack >= lo && written - slack <= hi)
        });
        let bound = |x: f64| locale.number(&crate::format::reading_plus(x, extra));
        let list = locale.list_mark();
        format!(
            "± {}{list} inside the {} interval of the mean of {} runs [{}{list} {}]",
            locale.number(&slack.to_string()),
            locale.percent(&crate::format::number(level * 100.0, locale)),
            self.runs,
            bound(self.lo),
            bound(self.hi)
        )
    }
}

/// The written value (a theory's, `written` with `decimals`) inside the Student t interval
/// of the mean of `numbers` (the replications; ×100 for a `percent`) at `level`, widened
/// by the written precision: the theory's true value is anywhere its digits allow.
pub(super) fn interval_test(
    numbers: &[f64],
    percent: bool,
    (written, decimals): (f64, usize),
    level: f64,
) -> IntervalTest {
    let scale = if percent { 100.0 } else { 1.0 };
    let n = numbers.len();
    let mean = numbers.iter().sum::<f64>() / n as f64 * scale;
    let var = numbers
        .iter()
        .map(|x| (x * scale - mean).powi(2))
        .sum::<f64>()
        / (n.max(2) - 1) as f64;
    let half = crate::summary::t_quantile(1.0 - (1.0 - level) / 2.0, n as u64 - 1)
        * (var / n as f64).sqrt();
    let (lo, hi) = (mean - half, mean + half);
    let slack = 0.5 * 10f64.powi(-(decimals as i32));
    IntervalTest {
        pass: written + slack >= lo && written - slack <= hi,
        mean,
        lo,
        hi,
        slack,
        runs: n,
    }
}
