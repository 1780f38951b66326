//! A config's claims table: each claim's verdict, what it reads, where (and its worst
//! row), what it expects and what was measured, in the page's words and locale, and the
//! config line that makes it.

use super::frame::badge;
use super::html::Html;
use super::words::{Words, say};
use crate::check::Verdict;
use crate::config::Config;

/// The claims: verdict, what is read, expected, measured, the point, the config line.
pub(super) fn claims(h: &mut Html, config: &Config, verdicts: &[Verdict], lc: Words<'_>) {
    let passed = verdicts.iter().filter(|v| v.pass).count();
    h.el("h2", &[("id", "claims")], say(lc, "Claims")).newline();
    if verdicts.is_empty() {
        h.el("p", &[], say(lc, "This config makes no claim."))
            .newline();
        return;
    }
    h.el(
        "p",
        &[("class", "summary")],
        &say(lc, "{passed} of {total} claim(s) hold, {failed} fail.")
            .replace("{passed}", &passed.to_string())
            .replace("{total}", &verdicts.len().to_string())
            .replace("{failed}", &(verdicts.len() - passed).to_string()),
    )
    .newline();
    h.open("div", &[("class", "table-wrap")])
        .open("table", &[("class", "claims")]);
    h.open("thead", &[]).open("tr", &[]);
    for head in [
        "#",
        say(lc, "claim"),
        say(lc, "verdict"),
        say(lc, "reads"),
        say(lc, "where"),
        say(lc, "expected"),
        say(lc, "measured"),
        say(lc, "line"),
    ] {
        h.el("th", &[], head);
    }
    h.close("tr").close("thead").open("tbody", &[]).newline();
    for (k, (v, claim)) in verdicts.iter().zip(&config.claims).enumerate() {
        let id = format!("claim-{}", k + 1);
        let class = if v.pass { "pass" } else { "fail" };
        h.open("tr", &[("id", &id), ("class", class)]);
        h.with("td", &[("class", "num")], |h| {
            h.el("a", &[("href", &format!("#{id}"))], &(k + 1).to_string());
        });
        h.el(
            "td",
            &[("lang", config.locale.name()), ("class", "name")],
            &v.claim,
        );
        h.with("td", &[], |h| {
            badge(h, v.pass, say(lc, "PASS"), say(lc, "FAIL"));
        });
        h.with("td", &[], |h| {
            let read = match claim.stat {
                Some(crate::config::Stat::Mean) => say(lc, "mean of {metric}").to_string(),
                Some(crate::config::Stat::Min) => say(lc, "min of {metric}").to_string(),
                Some(crate::config::Stat::Max) => say(lc, "max of {metric}").to_string(),
                Some(crate::config::Stat::Quantile(p)) => say(lc, "{p}th percentile of {metric}")
                    .replace("{p}", &lc.locale.number(&p.written())),
                None => "{metric}".to_string(),
            };
            let (before, after) = read.split_once("{metric}").unwrap_or(("", ""));
            h.text(before).el("code", &[], &claim.metric).text(after);
        });
        h.el("td", &[], &where_text(v, config, claim, lc));
        h.el("td", &[], &expected_text(v, claim, lc));
        h.el("td", &[("class", "num")], &measured_text(v, claim, lc));
        h.with("td", &[("class", "num")], |h| {
            let line = v.config_line.to_string();
            h.el(
                "a",
                &[("href", &format!("#L{line}")), ("class", "line-link")],
                &say(lc, "line {line}").replace("{line}", &line),
            );
        });
        h.close("tr").newline();
    }
    h.close("tbody").close("table").close("div").newline();
}

/// Where a claim is read, and its worst row when that says more (not the one point its
/// `where` already names), in the page's words and locale; a claim over executions' row
/// names the executions (`outcome 1 of 4 (24 executions)`).
fn where_text(v: &Verdict, config: &Config, claim: &crate::config::Claim, lc: Words<'_>) -> String {
    if v.at.is_empty() && config.points == 1 && config.replications == 1 {
        return say(lc, "the one row").to_string();
    }
    let at = scope(config, claim, lc);
    let point = v
        .executions
        .as_ref()
        .map_or(v.at.as_str(), |e| e.point.as_str());
    // The worst row less the point `where` names already.
    let worst = point
        .strip_prefix(at.as_str())
        .map_or(point, |rest| rest.trim_start_matches(", "));
    let mut worst = in_words(worst, lc);
    if let Some(e) = &v.executions {
        let which = executions_text(e, lc);
        if !worst.is_empty() && !which.is_empty() {
            worst.push_str(", ");
        }
        worst.push_str(&which);
    }
    let mut text = in_words(&at, lc);
    if !worst.is_empty() {
        text.push_str(&say(lc, " — worst: {row}").replace("{row}", &worst));
    }
    text
}

/// Which executions of its point a claim over executions' worst row is about, in the
/// page's words and locale, and whether the search saw them all.
fn executions_text(e: &crate::check::ExecutionRow, lc: Words<'_>) -> String {
    use crate::check::Executions;
    let count = |n: u128| lc.locale.number(&n.to_string());
    let bounded = say(
        lc,
        "bounded: not every execution was seen (explore.md says where the search stopped)",
    );
    let which = match e.executions {
        Executions::Outcome { k, of, executions } => {
            let phrase = if executions == 1 {
                "outcome {k} of {of} (1 execution)"
            } else {
                "outcome {k} of {of} ({executions} executions)"
            };
            say(lc, phrase)
                .replace("{k}", &count(k as u128))
                .replace("{of}", &count(of as u128))
                .replace("{executions}", &count(executions))
        }
        Executions::Uncounted { k, of } => say(
            lc,
            "outcome {k} of {of} (executions not counted: a loop without end)",
        )
        .replace("{k}", &count(k as u128))
        .replace("{of}", &count(of as u128)),
        Executions::Stat { stat, executions } => {
            use crate::config::Stat;
            let phrase = match (stat, executions) {
                (Stat::Max, 1) => say(lc, "max of 1 execution"),
                (Stat::Max, _) => say(lc, "max of {executions} executions"),
                (Stat::Min, 1) => say(lc, "min of 1 execution"),
                (Stat::Min, _) => say(lc, "min of {executions} executions"),
                (Stat::Mean, _) => say(lc, "mean of {executions} execution(s), by probability"),
                (Stat::Quantile(_), _) => say(
                    lc,
                    "{p}th percentile of {executions} execution(s), by probability",
                ),
            };
            let p = match stat {
                Stat::Quantile(p) => lc.locale.number(&p.written()),
                _ => String::new(),
            };
            phrase
                .replace("{executions}", &count(executions))
                .replace("{p}", &p)
        }
        Executions::Bounded => return bounded.to_string(),
        Executions::NoPoint => say(lc, "no point explored").to_string(),
    };
    if e.bounded {
        format!("{which}; {bounded}")
    } else {
        which
    }
}

/// What a claim measured, in the page's locale: a number at the claim's precision, a text
/// claim's text as it is.
fn measured_text(v: &Verdict, claim: &crate::config::Claim, lc: Words<'_>) -> String {
    let value = match (&claim.expect, v.numbers.actual) {
        (crate::config::Expect::Text(_), _) => return v.actual.clone(),
        (_, Some(x)) => crate::format::at_tolerance(x, v.numbers.tolerance, lc.locale),
        (_, None) => say(lc, "empty").to_string(),
    };
    probability_of(v, claim, lc, value)
}

/// `value` as the probability of a claim's test when the claim is a point's probability
/// (`probability that extra_effects = 1: 0.21`), else as it is: alone it would read as
/// the metric's value.
fn probability_of(
    v: &Verdict,
    claim: &crate::config::Claim,
    lc: Words<'_>,
    value: String,
) -> String {
    use crate::config::{Expect, Scheduler, Test};
    if claim.probability.is_none() && claim.stat.is_some_and(crate::config::Stat::weighted) {
        // A mean or a percentile over schedulers: the end the claim states.
        let phrase = match claim.scheduler {
            None => return value,
            Some(Scheduler::Min) => "least over schedulers: {value}",
            Some(Scheduler::Max) => "greatest over schedulers: {value}",
        };
        return say(lc, phrase).replace("{value}", &value);
    }
    if claim.probability.is_none() || v.numbers.relation != "probability" {
        return value;
    }
    let op = match claim.test {
        Test::AtMost(_) => "≤",
        Test::AtLeast(_) => "≥",
        _ => "=",
    };
    let want = match &claim.expect {
        Expect::Number(x) => lc.locale.number(&x.to_string()),
        Expect::Expr(text, _) => text.clone(),
        Expect::Text(text) => format!("{text:?}"),
    };
    let test = format!("{} {op} {want}", claim.metric);
    // Over schedulers (a free order): the end the claim states.
    let phrase = match claim.scheduler {
        None => "probability that {test}: {value}",
        Some(crate::config::Scheduler::Min) => {
            "least probability over schedulers that {test}: {value}"
        }
        Some(crate::config::Scheduler::Max) => {
            "greatest probability over schedulers that {test}: {value}"
        }
    };
    // The value last: an author's expression may hold a `{placeholder}` of its own.
    say(lc, phrase)
        .replace("{test}", &test)
        .replace("{value}", &value)
}

/// What a claim expects, in the page's words and locale: the expression and its value, and
/// how the measure must compare (± a tolerance, at most, within an interval). A claim over
/// executions, of text, or whose expectation is empty says it in parts, as `check` does
/// ([`expected_in_parts`]).
fn expected_text(v: &Verdict, claim: &crate::config::Claim, lc: Words<'_>) -> String {
    let n = &v.numbers;
    let Some(x) = n.expected.filter(|_| !n.relation.is_empty()) else {
        return expected_in_parts(v, claim, lc);
    };
    let tol = n.tolerance;
    let mut value = crate::format::at_tolerance(x, tol, lc.locale);
    // A probability is of the claim's test (its `expect` is the test's), with the
    // probability's own expression.
    let expression = match &claim.probability {
        Some(want) if n.relation == "probability" => want,
        _ => &claim.expect,
    };
    if let crate::config::Expect::Expr(text, _) = expression {
        value = format!("{text} = {value}");
    }
    let num = |y: f64| crate::format::at_tolerance(y, tol, lc.locale);
    let reading = |y: f64| lc.locale.number(&crate::format::reading(y));
    let said = match (n.relation, tol, n.ci) {
        ("expect" | "probability", Some(t), _) if t > 1e-9 => {
            format!("{value} ± {}", lc.locale.number(&crate::format::reading(t)))
        }
        ("at_most", Some(t), _) => say(lc, "at most {value} (slack {slack})")
            .replace("{value}", &value)
            .replace("{slack}", &reading(t)),
        ("at_most", None, _) => say(lc, "at most {value}").replace("{value}", &value),
        ("at_least", Some(t), _) => say(lc, "at least {value} (slack {slack})")
            .replace("{value}", &value)
            .replace("{slack}", &reading(t)),
        ("at_least", None, _) => say(lc, "at least {value}").replace("{value}", &value),
        ("band", _, Some((lo, hi))) => say(lc, "{value}, the ratio in [{lo}, {hi}]")
            .replace("{value}", &value)
            .replace("{lo}", &reading(lo))
            .replace("{hi}", &reading(hi)),
        ("within_ci", _, Some((lo, hi))) => {
            let level = crate::format::reading(n.level.unwrap_or(0.95) * 100.0);
            let level = lc.locale.percent(&lc.locale.number(&level));
            say(lc, "{value}, inside the {level} interval [{lo}, {hi}]")
                .replace("{value}", &value)
                .replace("{level}", &level)
                .replace("{lo}", &num(lo))
                .replace("{hi}", &num(hi))
        }
        _ => value,
    };
    probability_of(v, claim, lc, said)
}

/// What a claim expects as `check` says it, in the page's words and locale: how a claim
/// over executions holds (`sometimes: at most 3`), the expectation (its expression, a
/// text claim's text, or empty) and its test (`, ± 0.5`, `, exact text`; the default exact one unsaid).
fn expected_in_parts(v: &Verdict, claim: &crate::config::Claim, lc: Words<'_>) -> String {
    use crate::config::{Expect, Holds, Test};
    let n = &v.numbers;
    let locale = lc.locale;
    // An author's number (a tolerance, a band's bound) as written; a tiny one as `1e-9`.
    let written = |t: f64| {
        if t != 0.0 && t.abs() < 1e-3 {
            format!("{t:e}").replace('.', &locale.decimal_mark().to_string())
        } else {
            locale.number(&t.to_string())
        }
    };
    let num = |x: Option<f64>| {
        x.map_or_else(
            || say(lc, "empty").to_string(),
            |x| crate::format::at_tolerance(x, n.tolerance, locale),
        )
    };
    let with_expr = |expect: &Expect, value: String| match expect {
        Expect::Expr(text, _) => format!("{text} = {value}"),
        _ => value,
    };
    if let (Some(want), "probability") = (&claim.probability, n.relation) {
        // A point's probability, with no value to show (a bound, or executions in a free
        // order).
        let value = with_expr(want, num(n.expected));
        let tolerance = written(n.tolerance.unwrap_or(0.0));
        let said = format!(
            "{}, ± {tolerance}",
            say(lc, "expected {value}").replace("{value}", &value)
        );
        return probability_of(v, claim, lc, said);
    }
    let value = match &claim.expect {
        Expect::Text(text) => format!("{text:?}"),
        expect => with_expr(expect, num(n.expected)),
    };
    let relation = match claim.test {
        Test::AtMost(_) => say(lc, "at most {value}").to_string(),
        Test::AtLeast(_) => say(lc, "at least {value}").to_string(),
        Test::WithinCi(c) => {
            let level = locale.percent(&locale.number(&crate::format::reading(c * 100.0)));
            let bound = |y: f64| crate::format::at_tolerance(y, n.tolerance, locale);
            match n.ci {
                Some((lo, hi)) => say(lc, "expected {value} inside the {level} CI [{lo}, {hi}]")
                    .replace("{level}", &level)
                    .replace("{lo}", &bound(lo))
                    .replace("{hi}", &bound(hi)),
                None => {
                    say(lc, "expected {value} inside the {level} CI").replace("{level}", &level)
                }
            }
        }
        _ => say(lc, "expected {value}").to_string(),
    };
    // The value last: an author's text may hold a `{placeholder}` of its own.
    let relation = relation.replace("{value}", &value);
    let test = match (&claim.expect, claim.test) {
        (Expect::Text(_), _) => say(lc, ", exact text").to_string(),
        // The default exact test (± 1e-9) goes unsaid, as on every other claim's row.
        (_, Test::Tolerance(t)) if t > 1e-9 => format!(", ± {}", written(t)),
        (_, Test::Band(lo, hi)) => say(lc, ", ratio in [{lo}, {hi}]")
            .replace("{lo}", &written(lo))
            .replace("{hi}", &written(hi)),
        (_, Test::AtMost(t) | Test::AtLeast(t)) if t > 1e-9 => {
            say(lc, ", slack {slack}").replace("{slack}", &written(t))
        }
        _ => String::new(),
    };
    let said = format!("{relation}{test}");
    // Over executions, how the test must hold; a statistic over them is one figure.
    let holds = match (claim.over, claim.stat) {
        (Some(Holds::Always), None) => say(lc, "always: {test}"),
        (Some(Holds::Sometimes), None) => say(lc, "sometimes: {test}"),
        (Some(Holds::Never), None) => say(lc, "never: {test}"),
        (Some(Holds::Eventually), None) => say(lc, "eventually: {test}"),
        _ => return said,
    };
    holds.replace("{test}", &said)
}

/// A row as `check` names it (`rho = 0.8, replication 2`, `(5 replications)`), in the
/// page's words and locale: each number localized, the replications named.
fn in_words(row: &str, lc: Words<'_>) -> String {
    // A row of replications alone (`3 replications`, `1 replication`: one point) has no
    // parenthesis to end it.
    let alone = row
        .strip_suffix(" replications")
        .or_else(|| row.strip_suffix(" replication"))
        .filter(|count| !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()));
    let row = match alone {
        Some("1") => say(lc, "1 replication").to_string(),
        Some(count) => say(lc, "{count} replications").replace("{count}", count),
        None => row
            .replace("replications)", say(lc, "replications)"))
            .replace("replication)", say(lc, "replication)"))
            .replace("replication ", say(lc, "replication ")),
    };
    crate::format::numbers_in(&row, lc.locale)
}

/// Which rows a claim is evaluated on: its `where` (or every point) and its entity.
fn scope(config: &Config, claim: &crate::config::Claim, lc: Words<'_>) -> String {
    let names = config.key_names();
    let mut parts: Vec<String> = claim
        .filter
        .iter()
        .map(|(i, v)| format!("{} = {v}", names[*i]))
        .collect();
    if parts.is_empty() {
        parts.push(say(lc, "every point").into());
    }
    if let Some((e, _)) = &claim.entity {
        parts.push(say(lc, "entity {entity}").replace("{entity}", e));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{ExecutionRow, Executions};
    use crate::locale::Locale;

    /// A worst row's replications in each locale: after a point, alone, one or many.
    #[test]
    fn a_rows_replications_in_each_locale() {
        let cases = [
            ("clients = 4 (5 replications)", "clients = 4 (5 tekrar)"),
            ("clients = 4 (1 replication)", "clients = 4 (1 tekrar)"),
            ("3 replications", "3 tekrar"),
            ("1 replication", "1 tekrar"),
            ("rho = 0.8, replication 2", "rho = 0,8, tekrar 2"),
        ];
        for (english, turkish) in cases {
            assert_eq!(in_words(english, Words::built_in(Locale::En)), english);
            assert_eq!(in_words(english, Words::built_in(Locale::Tr)), turkish);
        }
    }

    /// Which executions a worst row is about, in each locale's words and numbers: an
    /// outcome, a statistic over every execution, a bound reached, no point.
    #[test]
    fn the_executions_of_a_worst_row_in_each_locale() {
        let row = |executions, bounded| ExecutionRow {
            point: "guard = \"none\"".into(),
            executions,
            bounded,
        };
        let outcome = Executions::Outcome {
            k: 1,
            of: 4,
            executions: 12_000,
        };
        let max = Executions::Stat {
            stat: crate::config::Stat::Max,
            executions: 70,
        };
        let cases = [
            (
                row(outcome, false),
                "outcome 1 of 4 (12,000 executions)",
                "4 sonucun 1. sonucu (12.000 yürütme)",
            ),
            (
                row(max, false),
                "max of 70 executions",
                "70 yürütmenin en büyüğü",
            ),
            (
                row(outcome, true),
                "outcome 1 of 4 (12,000 executions); bounded: not every execution was seen (explore.md says where the search stopped)",
                "4 sonucun 1. sonucu (12.000 yürütme); sınırlı: her yürütme görülmedi (aramanın nerede durduğunu explore.md söyler)",
            ),
            (
                row(Executions::Bounded, true),
                "bounded: not every execution was seen (explore.md says where the search stopped)",
                "sınırlı: her yürütme görülmedi (aramanın nerede durduğunu explore.md söyler)",
            ),
            (
                row(Executions::NoPoint, false),
                "no point explored",
                "hiçbir nokta taranmadı",
            ),
            // One execution: the noun agrees.
            (
                row(
                    Executions::Outcome {
                        k: 2,
                        of: 2,
                        executions: 1,
                    },
                    false,
                ),
                "outcome 2 of 2 (1 execution)",
                "2 sonucun 2. sonucu (1 yürütme)",
            ),
            (
                row(
                    Executions::Stat {
                        stat: crate::config::Stat::Min,
                        executions: 1,
                    },
                    false,
                ),
                "min of 1 execution",
                "1 yürütmenin en küçüğü",
            ),
            // A mean and a percentile weighted by probability.
            (
                row(
                    Executions::Stat {
                        stat: crate::config::Stat::Mean,
                        executions: 8,
                    },
                    false,
                ),
                "mean of 8 execution(s), by probability",
                "8 yürütmenin olasılıkla ağırlıklı ortalaması",
            ),
        ];
        for (row, en, tr) in cases {
            assert_eq!(executions_text(&row, Words::built_in(Locale::En)), en);
            assert_eq!(executions_text(&row, Words::built_in(Locale::Tr)), tr);
        }
    }
}
