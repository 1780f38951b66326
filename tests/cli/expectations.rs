//! Means and percentiles over executions (`stat = "mean"`, `"p50"` with `over =
//! "executions"`), each execution weighted by its exact probability: summed by hand on a
//! tiny lock queue, against the DES run's interval over replications, over schedulers by
//! hand where an order is free, and against every scheduler enumerated on random tiny
//! graphs ([`Schedulers::extreme_mean`], [`Schedulers::extreme_quantile`]).

use coordsim_model::explore::Schedulers;
use proptest::prelude::*;

use crate::harness::{check_config, read, root};
use crate::schedulers::{Tiny, chance_and_increment, tiny};

/// A queue lock `L` and three clients asking for it at 0, 1 and 2 ms; each holds it
/// 10 ms with chance `short`, else 40 ms, then releases it.
fn lock_queue(short: f64, replications: u32) -> String {
    let client = |name: &str, start: u32| {
        format!(
            "[[actor]]\nname = \"{name}\"\nstart_ms = {start}\nsteps = [\n  {{ acquire = \"L\" }},\n  {{ if = {{ chance = {short} }}, then = [{{ delay_ms = 10 }}], else = [{{ delay_ms = 40 }}] }},\n  {{ release = \"L\" }},\n]\n"
        )
    };
    format!(
        "model = \"scenario\"\nreplications = {replications}\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n{}{}{}",
        client("a", 0),
        client("b", 1),
        client("c", 2)
    )
}

/// A claim over executions on `metric`: `stat`, `expect`, and any other fields.
fn claim(name: &str, metric: &str, stat: &str, expect: f64, more: &str) -> String {
    format!(
        "[[claim]]\nname = \"{name}\"\nover = \"executions\"\nmetric = \"{metric}\"\nstat = \"{stat}\"\nexpect = {expect}\n{more}\n"
    )
}

/// `check`'s line for the claim named `name`.
fn line_of(out: &str, name: &str) -> String {
    out.lines()
        .find(|l| l.contains(&format!(": {name}: ")))
        .unwrap_or_else(|| panic!("no line for {name}: {out}"))
        .to_string()
}

/// `check` of `base` with a claim over executions on `metric` per row of `claims` (name,
/// stat, expected value, other fields): every claim named in `failing` fails (so `check`
/// exits 1), every other passes. What `check` printed.
fn checked(
    base: String,
    metric: &str,
    claims: &[(&str, &str, f64, &str)],
    failing: &[&str],
) -> String {
    let dir = tempfile::tempdir().unwrap();
    let text = std::iter::once(base)
        .chain(
            claims
                .iter()
                .map(|(name, stat, expect, more)| claim(name, metric, stat, *expect, more)),
        )
        .collect::<String>();
    let (code, out) = check_config(dir.path(), "x.toml", &text);
    assert_eq!(code, Some(1), "{out}");
    for (name, ..) in claims {
        let want = if failing.contains(name) {
            "FAIL"
        } else {
            "PASS"
        };
        assert!(line_of(&out, name).starts_with(want), "{name}: {out}");
    }
    out
}

/// By hand, the short hold (10 ms) with chance 0.2, else 40 ms. `a` asks at 0 and gets the
/// lock at once (wait 0) and holds it H_a; `b` asks at 1 and gets it at H_a (wait H_a − 1);
/// `c` asks at 2 and gets it when `b` lets go, at H_a + H_b (wait H_a + H_b − 2). No two
/// events of different owners fall at one instant (the clients ask 1 ms apart, every
/// hand-off comes at a release), so each execution has its probability. So
/// L.mean_wait_ms = (2 H_a + H_b − 3) / 3 (`c`'s own hold changes no wait):
///
/// | H_a, H_b | mean wait        | probability      |
/// | 10, 10   | 27 / 3 = 9       | 0.2 · 0.2 = 0.04 |
/// | 10, 40   | 57 / 3 = 19      | 0.2 · 0.8 = 0.16 |
/// | 40, 10   | 87 / 3 = 29      | 0.8 · 0.2 = 0.16 |
/// | 40, 40   | 117 / 3 = 39     | 0.8 · 0.8 = 0.64 |
///
/// (`c`'s own draw splits each row in two executions: 8 in all.)
/// The mean is 9 · 0.04 + 19 · 0.16 + 29 · 0.16 + 39 · 0.64 = 0.36 + 3.04 + 4.64 + 24.96
/// = 33 (= E[H] − 1 = 0.2 · 10 + 0.8 · 40 − 1). The cumulative shares are 0.04, 0.2, 0.36
/// and 1: the 4th percentile is 9, the 5th 19, the 20th 19 (reached exactly), the 21st 29,
/// the median 39, and so is the 99.9th. No order is free: there is one scheduler, and both
/// ends are the mean.
#[test]
fn a_lock_queues_mean_wait_and_percentiles_summed_by_hand() {
    let min = "scheduler = \"min\"";
    let max = "scheduler = \"max\"";
    let claims = [
        ("mean", "mean", 33.0, ""),
        ("least", "mean", 33.0, min),
        ("greatest", "mean", 33.0, max),
        ("p4", "p4", 9.0, ""),
        ("p5", "p5", 19.0, ""),
        ("p20", "p20", 19.0, ""),
        ("p21", "p21", 29.0, ""),
        ("median", "p50", 39.0, ""),
        ("p99.9", "p99.9", 39.0, ""),
        ("p36 greatest", "p36", 29.0, max),
        ("off", "mean", 33.01, ""),
    ];
    let out = checked(lock_queue(0.2, 1), "L.mean_wait_ms", &claims, &["off"]);
    assert!(
        line_of(&out, "mean").contains("mean of L.mean_wait_ms = 33 (expected 33, ± 1e-9) at mean of 8 executions, by probability"),
        "{out}"
    );
    for name in ["least", "greatest"] {
        let line = line_of(&out, name);
        assert!(line.contains("over schedulers [33, 33];"), "{line}");
    }
}

/// The exact mean wait (33 ms, by hand above) lies inside the DES run's 95% interval of
/// the mean over 400 replications, each drawing its holds from the clients' streams: one
/// `check` states both, the explored mean at ± 1e-9 and the run's `within_ci`. (Its
/// spread: the mean wait's variance is 81 · 0.04 + 361 · 0.16 + 841 · 0.16 + 1521 · 0.64 −
/// 33² = 1169 − 1089 = 80, so the interval's half-width is about 1.96 · √80 / 20 ≈ 0.88
/// ms: a mean 1 ms off, E[H] = 34 say, would mostly fall outside it.)
#[test]
fn the_exact_mean_wait_lies_inside_the_runs_interval() {
    let dir = tempfile::tempdir().unwrap();
    let text = lock_queue(0.2, 400)
        + &claim("exact", "L.mean_wait_ms", "mean", 33.0, "")
        + "[[claim]]\nname = \"run\"\nmetric = \"L.mean_wait_ms\"\nstat = \"mean\"\nwithin_ci = true\nexpect = 33\n";
    let (code, out) = check_config(dir.path(), "des.toml", &text);
    assert_eq!(code, Some(0), "{out}");
    let run = line_of(&out, "run");
    assert!(
        run.contains("(expected 33 inside the 95% CI [") && run.contains("400 replications"),
        "{run}"
    );
}

/// Where an order is free, by hand (as in schedulers.rs): `a` increments the counter with
/// chance 0.3, `b` always does, both at 0 ms. A scheduler that lets `a`'s update be lost
/// whenever it is made ends the counter at 1 in every execution: mean 1, and every
/// percentile is 1. One that loses no update ends it at 2 with 0.3 and at 1 with 0.7: mean
/// 1.3, median 1 (0.7 ≥ 0.5), 80th percentile 2 (0.7 < 0.8). So the mean is in [1, 1.3],
/// the median in [1, 1] and the 80th percentile in [1, 2]. Without a scheduler the claim
/// fails, saying how to claim over schedulers.
#[test]
fn the_interval_over_schedulers_by_hand() {
    let min = "scheduler = \"min\"";
    let max = "scheduler = \"max\"";
    let claims = [
        ("least", "mean", 1.0, min),
        ("greatest", "mean", 1.3, max),
        ("median", "p50", 1.0, max),
        ("p80 least", "p80", 1.0, min),
        ("p80 greatest", "p80", 2.0, max),
        ("off", "mean", 1.31, max),
        ("no scheduler", "mean", 1.0, ""),
    ];
    let failing = ["off", "no scheduler"];
    let out = checked(
        chance_and_increment("0.3"),
        "counter.value",
        &claims,
        &failing,
    );
    assert!(
        line_of(&out, "least").contains(
            "mean of counter.value, least over schedulers = 1 (over schedulers [1, 1.3];"
        ),
        "{out}"
    );
    assert!(
        line_of(&out, "p80 greatest").contains("(over schedulers [1, 2];"),
        "{out}"
    );
    let none = line_of(&out, "no scheduler");
    assert!(none.contains("`scheduler = \"min\"`"), "{none}");
}

/// Every outcome's distribution some deterministic scheduler gives from `entry`: the graph
/// unfolded into its tree, each node's action chosen apart, every combination enumerated.
fn distributions(tiny: &Tiny, entry: usize) -> Vec<[f64; 3]> {
    let Some(actions) = &tiny.entries[entry] else {
        let mut d = [0.0; 3];
        d[tiny.ends[entry]] = 1.0;
        return vec![d];
    };
    let mut all = Vec::new();
    for action in actions {
        let mut sums = vec![[0.0f64; 3]];
        for &(to, weight) in action {
            let p = Tiny::probability(action, weight);
            let below = distributions(tiny, to);
            sums = sums
                .iter()
                .flat_map(|s| {
                    below
                        .iter()
                        .map(move |d| std::array::from_fn(|k| s[k] + p * d[k]))
                })
                .collect();
        }
        all.extend(sums);
    }
    all
}

/// The nearest-rank `p`-quantile of one distribution: the least value whose cumulative
/// share reaches `p` (within 1e-9).
fn quantile(d: &[f64; 3], values: &[f64; 3], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let share = |x: f64| {
        (0..3)
            .filter(|&k| values[k] <= x)
            .map(|k| d[k])
            .sum::<f64>()
    };
    sorted
        .iter()
        .copied()
        .find(|&x| share(x) >= p - 1e-9)
        .unwrap_or(sorted[2])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The one pass back gives the least and greatest mean that enumerating every
    /// scheduler of the unfolded tree gives, and the binary search over the values the
    /// least and greatest percentile, for any values of the three outcomes and any level.
    #[test]
    fn means_and_percentiles_are_those_of_every_scheduler_enumerated(
        tiny in tiny(),
        values in prop::array::uniform3(-3i32..=5),
        level in prop::sample::select(vec![0.1, 0.25, 0.3, 0.5, 0.75, 0.9, 1.0]),
    ) {
        let values = values.map(f64::from);
        let every = distributions(&tiny, 0);
        let means: Vec<f64> = every.iter().map(|d| (0..3).map(|k| d[k] * values[k]).sum()).collect();
        let quantiles: Vec<f64> = every.iter().map(|d| quantile(d, &values, level)).collect();
        let lo_hi = |v: &[f64]| (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        let s: Schedulers = tiny.schedulers();
        let (least, greatest) = lo_hi(&means);
        let value_of = |k: usize| values[k];
        prop_assert!((s.extreme_mean(&value_of, true) - least).abs() < 1e-9, "least mean {} vs {least}", s.extreme_mean(&value_of, true));
        prop_assert!((s.extreme_mean(&value_of, false) - greatest).abs() < 1e-9, "greatest mean {} vs {greatest}", s.extreme_mean(&value_of, false));
        let (least, greatest) = lo_hi(&quantiles);
        prop_assert_eq!(s.extreme_quantile(&values, level, 1e-9, true), Some(least));
        prop_assert_eq!(s.extreme_quantile(&values, level, 1e-9, false), Some(greatest));
    }
}

/// A mean needs every execution's value and all the probability: an outcome whose metric
/// is empty (a client that takes the lock only with chance 0.5 has no wait otherwise) and
/// executions past the fault budget (the shipped at-least-once: p² = 0.04 of two crashes
/// is beyond a budget of one) each fail the claim, saying why.
#[test]
fn an_empty_metric_or_probability_past_the_budget_fails_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let text = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n[[actor]]\nname = \"a\"\nsteps = [{ if = { chance = 0.5 }, then = [{ acquire = \"L\" }, { release = \"L\" }] }]\n".to_string()
        + &claim("empty", "L.mean_wait_ms", "mean", 0.0, "");
    let (code, out) = check_config(dir.path(), "empty.toml", &text);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        line_of(&out, "empty").contains("some execution ends with the metric empty"),
        "{out}"
    );
    let path = root().join("configs/explore/explore-at-least-once.toml");
    let text = String::from_utf8(read(&path)).unwrap()
        + "\n"
        + &claim(
            "budget",
            "duplicate_effects",
            "mean",
            0.16,
            "where = { consumer = \"plain\" }",
        );
    let (code, out) = check_config(dir.path(), "alo.toml", &text);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        line_of(&out, "budget").contains("more faults than the budget (`--max-faults`)"),
        "{out}"
    );
}

/// A percentile is `p` and a level in (0, 100], over executions only; `scheduler` goes
/// with a probability, a mean or a percentile, not with `min` or `max` (the least value
/// of any execution is the same under every scheduler). Each refused at its key.
#[test]
fn a_weighted_stat_written_wrong_is_refused_where_written() {
    let dir = tempfile::tempdir().unwrap();
    let base = chance_and_increment("0.3");
    let cases = [
        (
            "[[claim]]\nmetric = \"counter.value\"\nstat = \"p99\"\nexpect = 1\n",
            "13:8: `stat = \"p99\"` is a percentile over executions",
        ),
        (
            "[[claim]]\nover = \"executions\"\nmetric = \"counter.value\"\nstat = \"p101\"\nexpect = 1\n",
            "14:8: unknown `stat` = \"p101\"",
        ),
        (
            "[[claim]]\nover = \"executions\"\nmetric = \"counter.value\"\nstat = \"p0\"\nexpect = 1\n",
            "a level in (0, 100]",
        ),
        // More than three decimals.
        (
            "[[claim]]\nover = \"executions\"\nmetric = \"counter.value\"\nstat = \"p99.9999\"\nexpect = 1\n",
            "unknown `stat` = \"p99.9999\"",
        ),
        (
            "[[claim]]\nover = \"executions\"\nmetric = \"counter.value\"\nstat = \"min\"\nexpect = 1\nscheduler = \"min\"\n",
            "16:13: `scheduler` says which end",
        ),
    ];
    for (k, (claim, want)) in cases.into_iter().enumerate() {
        let (code, out) =
            check_config(dir.path(), &format!("w{k}.toml"), &format!("{base}{claim}"));
        assert_eq!(code, Some(2), "{out}");
        assert!(out.contains(want), "{want}: {out}");
    }
}

/// A percentile claim with no `name` is named from its metric and level, in a Turkish
/// config with a decimal comma: the 99.9th percentile of counter.value under the scheduler
/// losing no update is 2 (0.7 < 0.999 of it ends at 1, by hand above).
#[test]
fn a_percentile_claims_default_name_in_turkish() {
    let dir = tempfile::tempdir().unwrap();
    let text = chance_and_increment("0.3").replacen(
        "model = \"scenario\"\n",
        "model = \"scenario\"\nlocale = \"tr\"\n",
        1,
    ) + "[[claim]]\nover = \"executions\"\nmetric = \"counter.value\"\nstat = \"p99.9\"\nscheduler = \"max\"\nexpect = 2\n";
    let (code, out) = check_config(dir.path(), "tr.toml", &text);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains(": counter.value (99,9. yüzdelik): p99.9 of counter.value, greatest over schedulers = 2 (over schedulers [1; 2];"),
        "{out}"
    );
}
