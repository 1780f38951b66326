//! Charts of data at the extremes: values near `f64::MAX` draw a bounded chart or are
//! refused, and a chart with nothing to draw is left out of a shard and drawn by the merge,
//! refused when the config asks for it, or left out and named when it is a default one.

use super::coordsim_within;
use crate::harness::*;

#[test]
fn values_near_f64_max_draw_a_bounded_chart_or_are_refused() {
    // A line and a bar chart whose reference line reaches 1.79e308: the headroom above it
    // overflowed to infinity and plotters' tick search never ended. Now values past 1e300
    // are left out like infinite ones and every axis is finite: the run ends, with charts.
    // A `mark_y` that large is refused up front, at its value.
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "big.toml",
        r#"model = "single_writer_queue"
[params]
requests_per_client = 5
[sweep]
clients = [1, 2]
[[chart]]
name = "line"
x = "clients"
y = ["mean_wait_ms"]
y_expr = { huge = "1.79e308 * clients / 2", large = "1e300 * (clients - 1.5)" }
[[chart]]
name = "bar"
kind = "bar"
x = "clients"
y = ["mean_wait_ms"]
y_expr = { huge = "1.79e308" }
"#,
    );
    let out = coordsim_within(dir.path(), &["run", &config, "--out", "out"], 120);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for chart in ["line", "bar"] {
        assert!(dir.path().join(format!("out/big/{chart}.png")).is_file());
    }
    let mark = write_config(
        dir.path(),
        "mark.toml",
        "model = \"single_writer_queue\"\n[[chart]]\nname = \"c\"\nx = \"clients\"\ny = [\"mean_wait_ms\"]\nmark_y = 1.797e308\n",
    );
    let out = coordsim_within(dir.path(), &["run", &mark, "--out", "out"], 60);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("error: ") && stderr(&out).contains("mark.toml:6:10: `mark_y`"),
        "{}",
        stderr(&out)
    );
}

/// A queue whose histogram draws one of two points (`where`), small enough for a test.
const HISTOGRAM_OF_ONE_POINT: &str = r#"model = "single_writer_queue"
[params]
clients = 1
requests_per_client = 400
arrivals = "poisson"
service = "exponential"
service_ms = 6
[sweep]
interarrival_ms = [12, 8]
[[chart]]
name = "wait-histogram"
kind = "histogram"
y = "wait_ms"
where = { interarrival_ms = 8 }
[[chart]]
name = "wait-cdf"
kind = "cdf"
y = "wait_ms"
"#;

#[test]
fn a_shard_without_a_charts_point_leaves_it_out_and_the_merge_draws_it() {
    // Shard 0/2 runs point 0 only; the histogram draws point 1, so this shard has no sample
    // of it. That panicked (an index out of bounds in the histogram); the shard now leaves
    // the chart out and says so, and the merge of both shards draws it as a whole run does.
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "hist.toml", HISTOGRAM_OF_ONE_POINT);
    let out = coordsim(&[
        "run",
        &config,
        "--out",
        dir.path().join("s0").to_str().unwrap(),
        "--shard",
        "0/2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "1 chart; left out: wait-histogram (`wait_ms` has no samples at any point it draws"
        ) && stdout(&out).contains("in this shard)"),
        "{}",
        stdout(&out)
    );
    assert!(!dir.path().join("s0/hist/wait-histogram.svg").exists());
    let shards = shard_dirs(dir.path(), &config, "hist", 2);
    let merged = dir.path().join("merged");
    let out = merge_into(&merged, &shards);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let whole = dir.path().join("whole");
    let out = coordsim(&["run", &config, "--out", whole.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for file in ["wait-histogram.svg", "wait-histogram.png", "wait-cdf.svg"] {
        assert_eq!(
            read(merged.join(file)),
            read(whole.join("hist").join(file)),
            "{file}"
        );
    }
}

#[test]
fn a_configs_own_chart_with_no_data_is_an_error_naming_it_and_its_column() {
    // A warm-up longer than the run leaves no sample (the histogram panicked); a bar of the
    // appliers' waits without a lock has none (it drew bare axes). Both are the config's own
    // charts: refused at their [[chart]], naming the chart and the column, nothing written.
    let dir = tempfile::tempdir().unwrap();
    let warm = write_config(
        dir.path(),
        "warm.toml",
        "model = \"single_writer_queue\"\n[params]\nclients = 1\nrequests_per_client = 10\nwarmup_ms = 1000000\n[[chart]]\nname = \"waits\"\nkind = \"histogram\"\ny = \"wait_ms\"\n",
    );
    let out = coordsim_within(dir.path(), &["run", &warm, "--out", "out"], 60);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(&format!(
            "error: {warm}:6:1: the chart `waits` has nothing to draw: `wait_ms` has no samples at any point it draws"
        )),
        "{}",
        stderr(&out)
    );
    let none = write_config(
        dir.path(),
        "none.toml",
        "model = \"lock_queue\"\n[params]\nlock = \"none\"\n[[chart]]\nname = \"waits\"\nkind = \"bar\"\nx = \"entity\"\ny = [\"wait_ms\"]\n",
    );
    let out = coordsim(&[
        "run",
        &none,
        "--out",
        dir.path().join("out").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(&format!(
            "error: {none}:4:1: the chart `waits` has nothing to draw: `wait_ms` is empty at every point it draws"
        )),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("out/none").exists() && !dir.path().join("out/warm").exists());
}

#[test]
fn an_empty_default_chart_is_left_out_and_named_in_the_summary() {
    // lock-no-lock has no lock, so no applier waited: its default wait chart was bare axes
    // counted as a chart ("2 charts"). It is left out and named; the timeline is drawn.
    let dir = tempfile::tempdir().unwrap();
    let out = coordsim(&[
        "run",
        "configs/lessons/lock-no-lock.toml",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "(1 row, 1 chart; left out: wait-per-applier (`wait_ms` is empty at every point it draws))"
        ),
        "{}",
        stdout(&out)
    );
    let files = list_files(&dir.path().join("lock-no-lock"));
    assert!(files.contains(&"timeline.svg".to_string()), "{files:?}");
    assert!(
        !files.iter().any(|f| f.starts_with("wait-per-applier")),
        "{files:?}"
    );
    // The stale lock's applier gave up after 42 rounds of 25 ms: its wait is 1050 ms, so its
    // chart has a bar.
    let out = coordsim(&[
        "run",
        "configs/lessons/lock-stale-no-unlock.toml",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        stdout(&out).contains("(1 row, 2 charts)"),
        "{}",
        stdout(&out)
    );
}

/// A chart of more series than a reader can tell apart is refused at its `[[chart]]` before
/// anything runs, when the sweep alone says so (x a parameter: 10,000 values of `hold_ms`,
/// which x = `appliers` does not tell apart, × 2 y = 20,000 bars a group; it failed after
/// the whole run with the renderer's words). With a metric as x the run decides the
/// series: the first 100 are drawn, and the chart says so. A line of more points than a
/// chart draws is thinned, its extremes kept, and says so.
#[test]
fn a_chart_of_too_many_series_is_refused_or_cut_and_long_lines_are_thinned() {
    let dir = tempfile::tempdir().unwrap();
    let chart = |x: &str, kind: &str, points: u32, ys: &str| {
        format!(
            "model = \"lock_queue\"\nentities = false\n[sweep]\nhold_ms = {{ from = 1, to = {points}, step = 1 }}\n[[chart]]\nname = \"c\"\nkind = \"{kind}\"\nx = \"{x}\"\ny = [{ys}]\n"
        )
    };
    let two = "\"lost_writes\", \"wait_total_ms\"";
    let e = library_config(
        &registry(),
        "c.toml",
        &chart("appliers", "bar", 10_000, two),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("c.toml:5:1: chart `c`: a bar chart of 20000 series, one per y (2) and per value of hold_ms (10000), which x = appliers does not tell apart; a chart draws at most 100"),
        "{e}"
    );
    // 50 values × 2 y: 100, drawn.
    assert!(library_config(&registry(), "c.toml", &chart("appliers", "bar", 50, two)).is_ok());
    // x = a metric (`lost_writes`, 0 at every point): 20,000 series found by the run, the
    // first 100 drawn.
    let config = write_config(
        dir.path(),
        "m.toml",
        &chart("lost_writes", "line", 10_000, two),
    );
    let out = coordsim_in(dir.path(), &["run", &config, "--out", "out", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let svg = std::fs::read_to_string(dir.path().join("out/m/c.svg")).unwrap();
    assert!(
        svg.contains("only the first 100 of 20,000 series drawn"),
        "the note"
    );
    // 5,000 points × 6 lines = 30,000, past the 20,000 a chart draws: each line thinned
    // to its share of 3,333, kept in stretches of two (the lowest and the highest of each
    // of 1,666) plus its ends: at most 3,334 a line.
    let six = "\"lost_writes\", \"wait_total_ms\", \"rounds_total\", \"makespan_ms\", \"items_created\", \"gave_up\"";
    let config = write_config(dir.path(), "t.toml", &chart("hold_ms", "line", 5_000, six));
    let out = coordsim_in(dir.path(), &["run", &config, "--out", "out", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let svg = std::fs::read_to_string(dir.path().join("out/t/c.svg")).unwrap();
    let note = svg
        .find("lines thinned: ")
        .map(|i| &svg[i..i + 60])
        .unwrap_or("");
    assert!(note.contains(" of 30,000 points drawn"), "{note}");
    let drawn: usize = note["lines thinned: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(drawn <= 6 * 3_334 && drawn > 6 * 1_666, "{drawn}");
}
