//! `kind = "exact_cdf"`: a metric's exact distribution over every execution of a point,
//! beside the runs' empirical one. Its steps summed by hand on lesson 006's tiny lock queue,
//! the runs' curve against the run's own rows, a free order's band against
//! [`Schedulers::extreme`] and by hand, its data as a snapshot, and every way it cannot be
//! drawn refused at its `[[chart]]`.
//!
//! [`Schedulers::extreme`]: coordsim_model::explore::Schedulers::extreme

use coordsim_model::{Reduction, Symmetry};

use crate::charts::prepared;
use crate::harness::{
    coordsim, library_config, library_run, merge_into, read, registry, root, shard_dirs, stderr,
    write_config,
};
use crate::schedulers::{chance_and_increment, keeping};

/// One row of an exact cdf's CSV: point, curve, x, least, greatest.
type Row = (usize, String, f64, f64, f64);

/// The config at `path` (from the repository's root), parsed.
fn shipped(path: &str) -> coordsim::config::Config {
    let text = String::from_utf8(read(root().join(path))).unwrap();
    library_config(&registry(), path, &text).unwrap()
}

/// The chart `name` of `config`: its CSV's rows and its SVG (text still as text).
fn drawn(config: &coordsim::config::Config, name: &str) -> (Vec<Row>, String, String) {
    let charts = prepared(config);
    let chart = charts.iter().find(|c| c.name == name).expect("the chart");
    let csv = String::from_utf8(chart.data_csv().unwrap().expect("an exact cdf's data")).unwrap();
    let rows = csv
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let n = |i: usize| f[i].parse::<f64>().unwrap();
            (f[0].parse().unwrap(), f[1].to_string(), n(2), n(3), n(4))
        })
        .collect();
    (rows, csv, chart.svg_source().unwrap().0)
}

/// `rows`' `curve` at `point`, as (x, least, greatest).
fn curve(rows: &[Row], point: usize, curve: &str) -> Vec<(f64, f64, f64)> {
    rows.iter()
        .filter(|r| r.0 == point && r.1 == curve)
        .map(|r| (r.2, r.3, r.4))
        .collect()
}

/// `exact` is `by_hand`'s steps, (x, P(≤ x)), each within 1e-12 and one number (its least
/// and greatest equal, as no scheduler, or every one alike, gives).
fn assert_steps(exact: &[(f64, f64, f64)], by_hand: &[(f64, f64)], csv: &str) {
    assert_eq!(exact.len(), by_hand.len(), "{csv}");
    for ((x, least, greatest), (hand_x, p)) in exact.iter().zip(by_hand) {
        assert_eq!(x, hand_x, "{csv}");
        assert!((least - p).abs() < 1e-12 && least == greatest, "{csv}");
    }
}

/// Lesson 006's tiny queue (configs/lessons/lock-exact-wait.toml), gap 1 ms: three clients
/// ask for a queue lock at 0, 1 and 2 ms; each holds it 10 ms with chance 0.2, else 40 ms.
/// By hand: client 0 waits 0, client 1 waits H_0 − 1, client 2 waits H_0 + H_1 − 2, so the
/// mean wait is (2 H_0 + H_1 − 3) / 3. The three holds are drawn: 2³ = 8 executions, of
/// probabilities 0.2³ = 0.008, 0.2² · 0.8 = 0.032 (three of them), 0.2 · 0.8² = 0.128
/// (three) and 0.8³ = 0.512. Client 2's hold changes no wait, so each (H_0, H_1) is two
/// executions:
///
/// | H_0, H_1 | mean wait   | executions' probabilities | sum  | P(≤ x) |
/// | 10, 10   | 27 / 3 = 9  | 0.008 + 0.032             | 0.04 | 0.04   |
/// | 10, 40   | 57 / 3 = 19 | 0.032 + 0.128             | 0.16 | 0.2    |
/// | 40, 10   | 87 / 3 = 29 | 0.032 + 0.128             | 0.16 | 0.36   |
/// | 40, 40   | 117 / 3 = 39| 0.128 + 0.512             | 0.64 | 1      |
///
/// No order is free at gap 1: each step is one number (least = greatest), and the last
/// one is 1. The runs' curve is the run's own rows at that point: 400 of them (the
/// replications), each share a count of them over 400.
#[test]
fn the_lock_queues_exact_steps_are_summed_by_hand_beside_its_runs() {
    let config = shipped("configs/lessons/lock-exact-wait.toml");
    let (rows, csv, svg) = drawn(&config, "kesin-bekleme-dagilimi");
    let exact = curve(&rows, 0, "exact");
    let by_hand = [(9.0, 0.04), (19.0, 0.2), (29.0, 0.36), (39.0, 1.0)];
    assert_steps(&exact, &by_hand, &csv);
    assert_eq!(exact.last().map(|s| s.1), Some(1.0), "the last step is 1");
    // The runs' curve: the share of the point's rows at or below each of their values.
    let results = library_run(&config);
    let table = &results.results;
    let column = table.column("L.mean_wait_ms").unwrap();
    let mut values: Vec<f64> = (table.rows.iter())
        .filter(|r| table.point(r) == 0)
        .filter_map(|r| coordsim::results::number(&r[column]))
        .collect();
    assert_eq!(values.len() as u64, config.replications);
    values.sort_by(f64::total_cmp);
    let simulated = curve(&rows, 0, "simulated");
    for (x, share, same) in &simulated {
        let at_or_below = values.iter().filter(|v| *v <= x).count() as f64;
        assert!(
            (share - at_or_below / 400.0).abs() < 1e-12 && share == same,
            "{csv}"
        );
    }
    assert_eq!(simulated.last().map(|s| s.1), Some(1.0));
    assert!(svg.contains("simülasyon (400 koşu)") && svg.contains("kesin (taranmış)"));
    assert!(
        !svg.contains("simulated") && !svg.contains("exact"),
        "Turkish words only"
    );
    insta::assert_snapshot!("exact_cdf_lock_queue_csv", csv);
}

/// Gap 0 ms: the three ask at one instant, a free order, and a scheduler chooses who asks
/// first. The waits are 0, H_first and H_first + H_second whoever asks first, and each
/// hold is drawn when its client holds the lock, after the choices that could depend on
/// it; so every scheduler gives the mean wait (2 H_first + H_second) / 3 the same shares
/// as above, at 30 / 3 = 10, 60 / 3 = 20, 90 / 3 = 30 and 120 / 3 = 40 ms: the least and
/// the greatest are equal, one line, "every scheduler alike".
#[test]
fn a_free_order_where_every_scheduler_agrees_draws_one_line() {
    let config = shipped("configs/lessons/lock-exact-wait.toml");
    let explored = coordsim::runner::explore::explore_config(
        &config,
        config.seed,
        &coordsim_model::ExploreLimits::default(),
    )
    .unwrap();
    assert!(explored[1].ordered && !explored[0].ordered);
    let (rows, csv, svg) = drawn(&config, "ayni-anda-bekleme-dagilimi");
    let exact = curve(&rows, 1, "exact");
    let by_hand = [(10.0, 0.04), (20.0, 0.2), (30.0, 0.36), (40.0, 1.0)];
    assert_steps(&exact, &by_hand, &csv);
    assert!(svg.contains("kesin: her zamanlayıcıda aynı"), "{svg}");
}

/// The lost update behind a chance of 0.3 (as in schedulers.rs): `a` increments the counter
/// with chance 0.3, `b` always does, both at 0 ms. By hand: a scheduler that runs `b`'s read
/// and write before `a`'s loses no update, so the counter ends at 1 only when `a` does not
/// increment: P(counter ≤ 1) = 0.7, the least. One that lets `a`'s update be lost whenever
/// it is made ends it at 1 always: P(counter ≤ 1) = 1, the greatest. P(counter ≤ 2) = 1
/// under every scheduler. The band's ends at x = 1 are those `Schedulers::extreme` gives for
/// the set {counter ≤ 1} on the exploration itself, and the runs (one scheduler, the run's
/// tie rule) fall inside it.
#[test]
fn a_free_order_draws_the_band_between_the_schedulers_extremes() {
    let actors = chance_and_increment("0.3").replacen("model = \"scenario\"\n", "", 1);
    let text = format!(
        "model = \"scenario\"\ntitle = \"A lost update behind a chance\"\nreplications = 200\n{actors}[[chart]]\nname = \"band\"\nkind = \"exact_cdf\"\ny = \"counter.value\"\n"
    );
    let config = library_config(&registry(), "band.toml", &text).unwrap();
    let (rows, csv, svg) = drawn(&config, "band");
    let exact = curve(&rows, 0, "exact");
    assert_eq!(exact, vec![(1.0, 0.7, 1.0), (2.0, 1.0, 1.0)], "{csv}");
    // The same ends from the exploration's own graph of schedulers.
    let explored = coordsim::runner::explore::explore_config(
        &config,
        config.seed,
        &keeping(Reduction::On, true, Symmetry::On),
    )
    .unwrap();
    let e = &explored[0];
    let value = (config.model.metrics().iter())
        .position(|m| m.name == "counter.value")
        .unwrap();
    let at_most_one = |k: usize| {
        e.outcomes[k].metrics[value]
            .as_f64()
            .is_some_and(|v| v <= 1.0)
    };
    let graph = e.schedulers.as_ref().unwrap();
    assert!((graph.extreme(&at_most_one, true) - exact[0].1).abs() < 1e-12);
    assert!((graph.extreme(&at_most_one, false) - exact[0].2).abs() < 1e-12);
    let runs = curve(&rows, 0, "simulated");
    assert!((0.7..=1.0).contains(&runs[0].1), "{csv}");
    assert!(svg.contains("exact: min–max over schedulers"));
    assert!(svg.contains("simulated (200 runs)"));
    insta::assert_snapshot!("exact_cdf_band_svg", svg);
}

/// Every way an exact cdf cannot be drawn is an error at its `[[chart]]` (`FILE:LINE:COL`),
/// saying why, and `run` writes nothing.
#[test]
fn an_exact_cdf_that_cannot_be_drawn_is_refused_at_its_chart() {
    let chart = "[[chart]]\nname = \"c\"\nkind = \"exact_cdf\"\ny = ";
    let cases: Vec<(&str, String, &str)> = vec![
        (
            // 4 clients of 4 increments in 1 MiB: the exploration stops at the memory bound.
            "bounded",
            "model = \"scenario\"\n[limits]\nmax_memory_mb = 1\n[[resource]]\nname = \"counter\"\nkind = \"register\"\n[[actor]]\nname = \"c\"\ncount = 4\nstart_ms = \"i\"\nrepeat = 4\nsteps = [{ read = \"counter\" }, { write = \"counter\", value = \"read + 1\" }, { if = { chance = 0.5 }, then = [{ delay_ms = 1 }] }]\n".to_string() + chart + "\"counter.value\"\n",
            "the exact_cdf `c` cannot be drawn: not every execution's probability is known (bounded: ",
        ),
        (
            // With chance 0.5 nobody takes the lock: no wait to weigh.
            "empty",
            "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n[[actor]]\nname = \"a\"\nsteps = [{ if = { chance = 0.5 }, then = [{ acquire = \"L\" }, { release = \"L\" }] }]\n".to_string() + chart + "\"L.mean_wait_ms\"\n",
            "some execution ends with `L.mean_wait_ms` empty",
        ),
        (
            // Two crashes (p² = 0.04) are past the fault budget of one.
            "budget",
            String::from_utf8(read(root().join("configs/explore/explore-at-least-once.toml"))).unwrap() + "\n" + chart + "\"duplicate_effects\"\nwhere = { consumer = \"plain\" }\n",
            "executions with more faults than the budget (one per execution, as `check` explores) carry some of the probability, and their values are unknown (at consumer: plain)",
        ),
        (
            "forever",
            "model = \"scenario\"\n[[resource]]\nname = \"R\"\nkind = \"register\"\n[[actor]]\nname = \"w\"\nrepeat = \"forever\"\nsteps = [{ write = \"R\", value = 1 }, { delay_ms = 10 }]\n".to_string() + chart + "\"R.value\"\n",
            "it has a loop without end (`repeat = \"forever\"`): its executions are infinitely many and have no probabilities",
        ),
        (
            "model",
            "model = \"single_writer_queue\"\n".to_string() + chart + "\"mean_wait_ms\"\n",
            "only a scenario (`model = \"scenario\"`) can be explored",
        ),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (name, text, why) in &cases {
        let path = write_config(tmp.path(), &format!("{name}.toml"), text);
        let out_dir = tmp.path().join(format!("out-{name}"));
        let out = coordsim(&["run", &path, "--out", out_dir.to_str().unwrap(), "-q"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        let line = text.lines().position(|l| l == "[[chart]]").unwrap() + 1;
        assert!(
            err.contains(&format!("{name}.toml:{line}:1: ")),
            "{name}: {err}"
        );
        assert!(err.contains(why), "{name}: {err}");
        assert!(!out_dir.join(name).exists(), "{name}: nothing written");
    }
}

/// An exact cdf's keys are checked where they are written, before anything runs: one
/// metric as `y`, no `x`, `mark_x` or `y_expr`, at most 8 points.
#[test]
fn an_exact_cdf_with_keys_it_does_not_take_is_refused_at_the_key() {
    let base = "model = \"scenario\"\n[params]\nn = 1\n[[resource]]\nname = \"counter\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\nsteps = [{ read = \"counter\" }]\n[[chart]]\nname = \"c\"\nkind = \"exact_cdf\"\n";
    let cases = [
        (
            "y = \"counter.value\"\nx = \"n\"\n",
            "14:5: an exact_cdf takes no `x`: its x axis is the values of its `y` metric; drop it",
        ),
        (
            "y = \"counter.value\"\nmark_x = \"counter.value\"\n",
            "14:10: an exact_cdf takes no `mark_x`",
        ),
        (
            "y = \"counter.value\"\ny_expr = { theory = \"x / 2\" }\n",
            "14:10: an exact_cdf takes no `y_expr`",
        ),
        (
            "y = [\"counter.value\", \"counter.writes\"]\n",
            "13:5: an exact_cdf draws one metric's distribution: `y` names one metric, not 2",
        ),
        ("y = \"counter.valu\"\n", "(did you mean `counter.value`?)"),
        (
            "y = \"counter.value\"\n",
            "11:8: an exact_cdf writes its data as NAME.csv beside it, and `results.csv` is the run's own table",
        ),
    ];
    for (tail, want) in cases {
        // The last case names its chart as the run's own table.
        let base = match want.contains("NAME.csv") {
            true => base.replace("name = \"c\"", "name = \"results\""),
            false => base.to_string(),
        };
        let err = library_config(&registry(), "k.toml", &format!("{base}{tail}"))
            .err()
            .unwrap_or_else(|| panic!("{tail}: accepted"))
            .to_string();
        assert!(
            err.contains(&format!("k.toml:{want}")) || err.contains(want),
            "{tail}: {err}"
        );
    }
    // In another case too: `Summary.csv` is `summary.csv` where case is ignored.
    let err = library_config(
        &registry(),
        "k.toml",
        &format!(
            "{}y = \"counter.value\"\n",
            base.replace("name = \"c\"", "name = \"Summary\"")
        ),
    )
    .expect_err("a chart named Summary is refused")
    .to_string();
    assert!(
        err.contains("k.toml:11:8: an exact_cdf writes its data as NAME.csv"),
        "{err}"
    );
    // A sweep of 9 points: refused at the chart, naming the bound.
    let swept = base.replace(
        "[params]\nn = 1\n",
        "[sweep]\nn = [1, 2, 3, 4, 5, 6, 7, 8, 9]\n",
    ) + "y = \"counter.value\"\n";
    let err = library_config(&registry(), "k.toml", &swept)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("k.toml:10:1: chart `c`: an exact_cdf explores every point its `where` keeps and draws at most 8, not 9: narrow its `where`"),
        "{err}"
    );
}

/// One shard of a sweep holds some of its points' runs only: it leaves the chart out, and
/// `merge` draws it from every run, byte for byte as one whole run does.
#[test]
fn a_shard_leaves_the_chart_to_merge_which_draws_it_as_a_whole_run_does() {
    let tmp = tempfile::tempdir().unwrap();
    let config = root().join("configs/lessons/lock-exact-wait.toml");
    let config = config.to_str().unwrap();
    let shards = shard_dirs(tmp.path(), config, "lock-exact-wait", 2);
    for shard in &shards {
        let dir = std::path::Path::new(shard);
        assert!(dir.join("results.csv").exists(), "{shard}");
        assert!(!dir.join("kesin-bekleme-dagilimi.csv").exists(), "{shard}");
    }
    let merged = tmp.path().join("merged");
    let out = merge_into(&merged, &shards);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let whole = tmp.path().join("whole");
    let out = coordsim(&["run", config, "--out", whole.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for file in ["kesin-bekleme-dagilimi.csv", "kesin-bekleme-dagilimi.svg"] {
        assert_eq!(
            read(merged.join(file)),
            read(whole.join("lock-exact-wait").join(file)),
            "{file}"
        );
    }
}
