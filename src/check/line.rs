//! What a claim's verdict says: its figures as they are for JUnit and JSON, and the line
//! `check` prints, for a reader: every figure in the config's locale
//! (`206,5` in a Turkish config, with `;` between figures where a comma would read as a
//! decimal mark), rounded for reading as `table.md` rounds, and with more digits where the
//! rounded figures would not give the verdict the exact ones give: a failure always shows
//! why it failed (`4,5000001` against `4,5 ± 1e-9`, not `4,5` against `4,5`).

use crate::config::{Claim, Config, Expect, Scheduler, Test};
use crate::locale::Locale;

/// The figures a claim's test compares: what the run gave, what was expected, the interval.
#[derive(Clone, Copy)]
pub(super) struct Figures {
    pub(crate) actual: Option<f64>,
    pub(crate) expected: Option<f64>,
    pub(crate) ci: Option<(f64, f64)>,
    /// A mean or a percentile over executions claimed over schedulers: its least and
    /// greatest over every scheduler.
    pub(crate) ends: Option<(f64, f64)>,
}

/// How a claim's figures are written: decimals past the reading rule's (`Some(0)`: the
/// rule itself), or `None`: every digit.
#[derive(Clone, Copy)]
pub(super) struct Writing {
    locale: Locale,
    extra: Option<usize>,
}

impl Writing {
    /// The fewest digits past the reading rule at which `meets` on the rounded figures
    /// agrees with `meets` on the exact ones.
    pub(super) fn for_figures(
        locale: Locale,
        f: Figures,
        meets: &dyn Fn(Figures) -> Option<bool>,
    ) -> Writing {
        let all = [
            f.actual,
            f.expected,
            f.ci.map(|(lo, _)| lo),
            f.ci.map(|(_, hi)| hi),
        ];
        let extra = crate::format::digits_to_show(&all, &|x| {
            meets(Figures {
                actual: x[0],
                expected: x[1],
                ci: x[2].zip(x[3]),
                ends: None,
            })
        });
        Writing { locale, extra }
    }

    /// `x` at this writing's digits, plain.
    fn plain(self, x: f64) -> String {
        crate::format::reading_plus(x, self.extra)
    }

    /// `x` written for the line.
    pub(super) fn number(self, x: f64) -> String {
        self.locale.number(&self.plain(x))
    }

    /// A figure, or `empty`.
    pub(super) fn figure(self, x: Option<f64>) -> String {
        x.map_or_else(|| "empty".to_string(), |x| self.number(x))
    }

    /// Two figures as a bracketed pair: `[0.98, 1.02]`, or `[0,98; 1,02]` in Turkish.
    fn pair(self, lo: String, hi: String) -> String {
        format!("[{lo}{} {hi}]", self.locale.list_mark())
    }
}

/// An author's number as written (a tolerance, a slack, a band's bound), in the locale; a
/// tiny one as `1e-9`.
fn written(t: f64, locale: Locale) -> String {
    if t != 0.0 && t.abs() < 1e-3 {
        format!("{t:e}").replace('.', &locale.decimal_mark().to_string())
    } else {
        locale.number(&t.to_string())
    }
}

/// Whether the figures meet a claim's test, as [`super::judge`] decides it (`None`: a
/// figure is missing or not finite, and the line says why).
pub(super) fn meets(test: Test, f: Figures) -> Option<bool> {
    let (a, e) = (f.actual?, f.expected?);
    if !a.is_finite() || !e.is_finite() {
        return None;
    }
    Some(match test {
        Test::Tolerance(t) => (a - e).abs() - t <= 0.0,
        Test::Band(_, _) if e == 0.0 => return None,
        Test::Band(lo, hi) => (lo - a / e).max(a / e - hi) <= 0.0,
        Test::AtMost(t) => a - e - t <= 0.0,
        Test::AtLeast(t) => e - a - t <= 0.0,
        Test::WithinCi(_) => {
            let (lo, hi) = f.ci?;
            (lo - e).max(e - hi) <= 0.0
        }
    })
}

/// The figures of a text written by the program (a row: `rho = 0.5, replication 1`; a
/// count: `(10 replications)`) in the locale: numbers as they are, not rounded (a
/// parameter's value names its point, as in `table.md`), each mark the locale's; where the
/// decimal mark is a comma, the commas between the row's parts are `;` (a quoted text value
/// is left as it is).
pub(super) fn localized(text: &str, locale: Locale) -> String {
    let list = locale.list_mark();
    let mut quoted = false;
    text.split(' ')
        .map(|word| {
            let was_quoted = quoted;
            quoted ^= word.matches('"').count() % 2 == 1;
            if was_quoted || word.contains('"') {
                // Text, as it is; the comma after its closing quote parts the row.
                return match word.strip_suffix(',').filter(|_| !quoted) {
                    Some(text) => format!("{text}{list}"),
                    None => word.to_string(),
                };
            }
            let start = word.len() - word.trim_start_matches(['(', '[']).len();
            let core_end = (word.trim_end_matches([',', ')', ']', ';', ':']).len()).max(start);
            let (open, core, close) = (&word[..start], &word[start..core_end], &word[core_end..]);
            let core = if core.parse::<f64>().is_ok() {
                locale.number(core)
            } else {
                core.to_string()
            };
            let close = match close.strip_prefix(',') {
                Some(rest) => format!("{list}{rest}"),
                None => close.to_string(),
            };
            format!("{open}{core}{close}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The line of a claim over rows (or a point's statistic, or over executions).
#[allow(clippy::too_many_arguments)]
pub(super) fn claim_line(
    config: &Config,
    claim: &Claim,
    figures: Figures,
    text: Option<&str>,
    row: &str,
    reason: Option<&str>,
    pass: bool,
) -> String {
    let locale = config.locale;
    let w = Writing::for_figures(locale, figures, &|f| meets(claim.test, f));
    let expected = match &claim.expect {
        Expect::Number(_) => w.figure(figures.expected),
        Expect::Expr(text, _) => format!("{} = {}", text, w.figure(figures.expected)),
        Expect::Text(text) => format!("{text:?}"),
    };
    let relation = match claim.test {
        Test::AtMost(_) => format!("at most {expected}"),
        Test::AtLeast(_) => format!("at least {expected}"),
        Test::WithinCi(c) => {
            let level = locale.percent(&crate::format::number(c * 100.0, locale));
            match figures.ci {
                Some((lo, hi)) => format!(
                    "expected {expected} inside the {level} CI {}",
                    w.pair(w.number(lo), w.number(hi))
                ),
                None => format!("expected {expected} inside the {level} CI"),
            }
        }
        _ => format!("expected {expected}"),
    };
    // Over executions, how the test must hold (`never: at least 1`).
    let relation = match (claim.over, claim.stat) {
        (Some(holds), None) => format!("{}: {relation}", holds.name()),
        _ => relation,
    };
    let list = locale.list_mark();
    let test = match (&claim.expect, claim.test) {
        (Expect::Text(_), _) => format!("{list} exact text"),
        (_, Test::Tolerance(t)) => format!("{list} ± {}", written(t, locale)),
        (_, Test::Band(lo, hi)) => format!(
            "{list} ratio in {}",
            w.pair(written(lo, locale), written(hi, locale))
        ),
        (_, Test::AtMost(t) | Test::AtLeast(t)) if t > 1e-9 => {
            format!("{list} slack {}", written(t, locale))
        }
        _ => String::new(),
    };
    let what = match claim.stat {
        Some(stat) => format!("{} of {}", stat.name(), claim.metric),
        None => claim.metric.clone(),
    };
    // A mean or a percentile over schedulers: which end, and the whole interval when known
    // (`mean of x, least over schedulers = 10 (over schedulers [10, 19]; expected 10)`).
    let (what, relation) = match claim.scheduler.filter(|_| claim.probability.is_none()) {
        Some(scheduler) => (
            format!(
                "{what}, {} over schedulers",
                match scheduler {
                    Scheduler::Min => "least",
                    Scheduler::Max => "greatest",
                }
            ),
            figures.ends.map_or(relation.clone(), |(lo, hi)| {
                format!(
                    "over schedulers {}; {relation}",
                    w.pair(w.figure(Some(lo)), w.figure(Some(hi)))
                )
            }),
        ),
        None => (what, relation),
    };
    let actual = match text {
        Some(t) => format!("{t:?}"),
        None => w.figure(figures.actual),
    };
    let said = format!("{what} = {actual} ({relation}{test})");
    framed(config, claim, &said, row, reason, pass)
}

/// `PASS FILE: NAME: what was found at ROW`, and with a failure its reason.
fn framed(
    config: &Config,
    claim: &Claim,
    said: &str,
    row: &str,
    reason: Option<&str>,
    pass: bool,
) -> String {
    let mut line = format!(
        "{} {}: {}: {said}",
        if pass { "PASS" } else { "FAIL" },
        config.source.name,
        claim.name,
    );
    if !row.is_empty() {
        line.push_str(&format!(" at {}", localized(row, config.locale)));
    }
    if let (false, Some(reason)) = (pass, reason) {
        line.push_str(&format!(": {reason}"));
    }
    line
}

/// A probability claimed over every scheduler: which end, and both ends when known.
#[derive(Debug, Clone, Copy)]
pub(super) struct Interval {
    pub(super) scheduler: Scheduler,
    /// The least and the greatest probability (`None`: not known, a bound reached).
    pub(super) ends: Option<(f64, f64)>,
}

/// The line of a point's probability over executions: the probability of the outcomes
/// meeting `test` (`x = 1`, in the locale) against the expected one ± `tolerance`.
#[allow(clippy::too_many_arguments)]
pub(super) fn probability_line(
    config: &Config,
    claim: &Claim,
    test: &str,
    expression: Option<&str>,
    figures: Figures,
    tolerance: f64,
    row: &str,
    reason: Option<&str>,
    pass: bool,
    interval: Option<Interval>,
) -> String {
    let locale = config.locale;
    let w = Writing::for_figures(locale, figures, &|f| meets(Test::Tolerance(tolerance), f));
    let expected = match expression {
        Some(text) => format!("{text} = {}", w.figure(figures.expected)),
        None => w.figure(figures.expected),
    };
    // Over schedulers: which end is claimed, and the whole interval when known.
    let (end, whole) = match interval {
        Some(Interval { scheduler, ends }) => (
            match scheduler {
                Scheduler::Min => ", least over schedulers",
                Scheduler::Max => ", greatest over schedulers",
            },
            ends.map_or(String::new(), |(lo, hi)| {
                format!(
                    "over schedulers {}; ",
                    w.pair(w.figure(Some(lo)), w.figure(Some(hi)))
                )
            }),
        ),
        None => ("", String::new()),
    };
    let said = format!(
        "probability that {test}{end} = {} ({whole}expected {expected}{} ± {})",
        w.figure(figures.actual),
        locale.list_mark(),
        written(tolerance, locale),
    );
    framed(config, claim, &said, row, reason, pass)
}

/// What a claim's verdict says for JUnit and JSON: the value (a text claim's text quoted)
/// and the expectation with its test; every digit, a dot for the decimal
/// mark, as programs read them.
pub(super) struct Said {
    pub(crate) actual: String,
    pub(crate) expected: String,
}

/// [`Said`] for a claim's figures (`text`: a text claim's value).
pub(super) fn said(claim: &Claim, f: Figures, text: Option<&str>) -> Said {
    let show = |x: Option<f64>| x.map_or("empty".to_string(), |v| v.to_string());
    let expected = match &claim.expect {
        Expect::Number(_) => show(f.expected),
        Expect::Expr(text, _) => format!("{} = {}", text, show(f.expected)),
        Expect::Text(text) => format!("{text:?}"),
    };
    let relation = match claim.test {
        Test::AtMost(_) => format!("at most {expected}"),
        Test::AtLeast(_) => format!("at least {expected}"),
        Test::WithinCi(c) => {
            let level = format!("{}%", crate::format::reading(c * 100.0));
            match f.ci {
                Some((lo, hi)) => format!("expected {expected} inside the {level} CI [{lo}, {hi}]"),
                None => format!("expected {expected} inside the {level} CI"),
            }
        }
        _ => format!("expected {expected}"),
    };
    // Over executions, how the test must hold (`never: at least 1`).
    let relation = match (claim.over, claim.stat) {
        (Some(holds), None) => format!("{}: {relation}", holds.name()),
        _ => relation,
    };
    let small = |t: f64| {
        if t != 0.0 && t < 1e-3 {
            format!("{t:e}")
        } else {
            t.to_string()
        }
    };
    let test = match (&claim.expect, claim.test) {
        (Expect::Text(_), _) => ", exact text".to_string(),
        (_, Test::Tolerance(t)) => format!(", ± {}", small(t)),
        (_, Test::Band(lo, hi)) => format!(", ratio in [{lo}, {hi}]"),
        (_, Test::AtMost(t) | Test::AtLeast(t)) if t > 1e-9 => format!(", slack {}", small(t)),
        _ => String::new(),
    };
    Said {
        actual: match text {
            Some(t) => format!("{t:?}"),
            None => show(f.actual),
        },
        expected: format!("{relation}{test}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(a: f64, e: f64) -> Figures {
        Figures {
            actual: Some(a),
            expected: Some(e),
            ci: None,
            ends: None,
        }
    }

    /// A passing figure reads as `table.md` writes it; a failing one keeps the digits
    /// that make it fail: 4.5000001 against 4.5 ± 1e-9 differs at the 7th decimal, which
    /// the reading rule (2 decimals from 1 up) would round away.
    #[test]
    fn a_failure_keeps_the_digits_that_show_it() {
        let exact = Test::Tolerance(1e-9);
        let pass = Writing::for_figures(Locale::Tr, figures(166.666_666_666_666_66, 166.7), &|f| {
            meets(Test::Tolerance(0.05), f)
        });
        assert_eq!(pass.number(166.666_666_666_666_66), "166,7");
        let fail =
            Writing::for_figures(Locale::Tr, figures(4.500_000_1, 4.5), &|f| meets(exact, f));
        assert_eq!(fail.number(4.500_000_1), "4,5000001");
        assert_eq!(fail.number(4.5), "4,5");
        // Past every rounding the figures are written whole: 0.1 + 0.2 is not 0.3.
        let tiny = Writing::for_figures(Locale::En, figures(0.1 + 0.2, 0.3), &|f| {
            meets(Test::Tolerance(0.0), f)
        });
        assert_eq!(tiny.number(0.1 + 0.2), "0.30000000000000004");
        // An interval: 6 lies outside [6.0004, 6.2] only at the 4th decimal.
        let ci = Figures {
            actual: Some(6.1),
            expected: Some(6.0),
            ci: Some((6.0004, 6.2)),
            ends: None,
        };
        let w = Writing::for_figures(Locale::En, ci, &|f| meets(Test::WithinCi(0.99), f));
        assert_eq!(w.number(6.0004), "6.0004");
    }

    #[test]
    fn a_rows_figures_take_the_locale_and_a_turkish_list_takes_semicolons() {
        for (row, locale, said) in [
            (
                "gap = 6.666666666666667, replication 1",
                Locale::Tr,
                "gap = 6,666666666666667; replication 1",
            ),
            (
                "rho = 0.5 (10 replications)",
                Locale::Tr,
                "rho = 0,5 (10 replications)",
            ),
            (
                "clients = 8, outcome 1 of 4 (12345 executions)",
                Locale::En,
                "clients = 8, outcome 1 of 4 (12,345 executions)",
            ),
            // A quoted text stays as it is, commas and all.
            (
                "form = \"a, b\", clients = 2",
                Locale::Tr,
                "form = \"a, b\"; clients = 2",
            ),
            ("p = [0.5, 1.5]", Locale::Tr, "p = [0,5; 1,5]"),
            ("form = assign, x", Locale::Tr, "form = assign; x"),
        ] {
            assert_eq!(localized(row, locale), said);
        }
    }
}
