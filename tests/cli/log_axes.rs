//! Log axes, degenerate data and reference lines: a log axis has no place for 0 or less,
//! no chart kind panics on values all equal, one point, empty cells or zeros, and a
//! `mark_y` line is named by its own label.

use crate::harness::*;

/// The charts a config's run prepares, or the error that refuses one.
fn charts(text: &str) -> anyhow::Result<coordsim::export::chart::Charts> {
    let config = library_config(&registry(), "c.toml", text).unwrap();
    let results = library_run(&config);
    let summary =
        (config.replications > 1).then(|| coordsim::summary::summarize(&config, &results));
    let run = coordsim::export::Run {
        config: &config,
        results: &results,
        summary: summary.as_ref(),
        seed: config.seed,
    };
    coordsim::export::chart::prepare(&run)
}

/// Every chart file's SVG (text still as text), drawn: none of them panics.
fn svgs(text: &str) -> Vec<String> {
    let charts = charts(text).unwrap();
    charts
        .files
        .iter()
        .map(|c| c.svg_source().unwrap().0)
        .collect()
}

#[test]
fn a_log_y_chart_of_zeros_is_refused_at_its_chart_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    // One client sends every 40 ms and is served in 6 ms: no request ever waits, so the
    // mean queue length is 0 at the one point, and a log axis has nothing to draw.
    let config = write_config(
        tmp.path(),
        "u.toml",
        "model=\"single_writer_queue\"\n[vars]\nrho=\"\"\n[params]\nclients=1\n[sweep]\nrho=[9]\n[[chart]]\nname=\"u\"\nx=\"rho\"\ny=\"mean_queue_len\"\nlog_y=true\n",
    );
    let out = coordsim(&["run", &config, "--out", &tmp.path().to_string_lossy(), "-q"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("u.toml:8:1: the chart `u` has nothing to draw: `mean_queue_len` is 0 or below at every point it draws, which a log y axis cannot show (drop `log_y` to draw it)"),
        "{err}"
    );
}

#[test]
fn lost_writes_of_a_locked_lock_queue_on_a_log_axis_are_refused_or_left_out_in_a_shard() {
    let tmp = tempfile::tempdir().unwrap();
    // The default lock (`poll`) keeps mutual exclusion: no write is lost at either hold.
    let text = "model = \"lock_queue\"\n[sweep]\nhold_ms = [100, 200]\n[[chart]]\nname = \"lost\"\nx = \"hold_ms\"\ny = \"lost_writes\"\nlog_y = true\n";
    let config = write_config(tmp.path(), "lq.toml", text);
    let dir = tmp.path().to_string_lossy().into_owned();
    let out = coordsim(&["run", &config, "--out", &dir, "-q"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the chart `lost` has nothing to draw: `lost_writes` is 0 or below"),
        "{err}"
    );
    // One shard holds some points only: the chart is left out there and named.
    let out = coordsim(&["run", &config, "--out", &dir, "--shard", "0/2"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(
        text.contains("left out: lost (`lost_writes` is 0 or below at every point it draws"),
        "{text}"
    );
    assert!(text.contains("in this shard)"), "{text}");
}

#[test]
fn a_log_axis_draws_the_points_above_0_and_notes_how_many_it_left_out() {
    // One client never waits (0 ms); four clients wait 4.5 ms (lesson 003). Swept with a
    // var of two values: at clients = 1 the two points (one per v) are 0, left out.
    let y = "model = \"single_writer_queue\"\n[vars]\nv = \"\"\n[sweep]\nclients = [1, 4]\nv = [1, 2]\n[[chart]]\nname = \"w\"\nx = \"clients\"\ny = \"mean_wait_ms\"\nlog_y = true\n";
    let svg = &svgs(y)[0];
    assert!(
        svg.contains("2 points at or below 0 left out: a log axis cannot show them"),
        "{svg}"
    );
    // x = -1 and 0 have no place on a log x axis: 2 of the 4 points left out.
    let x = "model = \"single_writer_queue\"\n[vars]\nv = \"\"\n[sweep]\nv = [-1, 0, 1, 10]\n[[chart]]\nname = \"w\"\nx = \"v\"\ny = \"mean_wait_ms\"\nlog_x = true\n";
    let svg = &svgs(x)[0];
    assert!(svg.contains("2 points at or below 0 left out"), "{svg}");
    // Nothing left out, nothing said.
    let none = y.replace("[1, 4]", "[4, 6]");
    assert!(!svgs(&none)[0].contains("left out"));
}

#[test]
fn no_chart_kind_panics_on_zeros_one_point_equal_values_or_empty_cells() {
    // Data (params, sweep, y for a line or bar chart): all 0 (one client never waits), one
    // point, one value at every point (capacity 1000 / 6 ms at any client count), and no
    // measured request at all (a warm-up past the run: empty waits, no samples).
    let data = [
        ("clients = 1", "v = [1, 2, 3]", "mean_wait_ms"),
        ("clients = 4", "v = [5]", "mean_wait_ms"),
        ("clients = 4", "v = [1, 2, 3]", "capacity_per_s"),
        ("clients = 4\nwarmup_ms = 1e9", "v = [1, 2]", "mean_wait_ms"),
    ];
    let logs = [
        "",
        "log_y = true",
        "log_x = true",
        "log_x = true\nlog_y = true",
    ];
    // Fixed gaps, and random ones over two replications (each point with an interval whose
    // low end may fall below 0).
    let (mut drawn, mut refused) = (0, 0);
    let runs = [("", ""), ("replications = 2\n", "arrivals = \"poisson\"\n")];
    for ((params, sweep, metric), (reps, gaps)) in
        data.into_iter().flat_map(|d| runs.map(|r| (d, r)))
    {
        let base = format!(
            "model = \"single_writer_queue\"\n{reps}[vars]\nv = \"\"\n[params]\n{gaps}{params}\n[sweep]\n{sweep}\n"
        );
        for (kind, y) in [
            ("line", metric),
            ("bar", metric),
            ("runs_cdf", metric),
            ("cdf", "wait_ms"),
            ("histogram", "wait_ms"),
        ] {
            for log in logs {
                let log_x_ok = kind == "line" || !log.contains("log_x");
                let log_y_ok = matches!(kind, "line" | "bar") || !log.contains("log_y");
                if !(log_x_ok && log_y_ok) {
                    continue;
                }
                let x = if matches!(kind, "line" | "bar") {
                    "x = \"v\"\n"
                } else {
                    ""
                };
                let text = format!(
                    "{base}[[chart]]\nname = \"c\"\nkind = \"{kind}\"\n{x}y = \"{y}\"\n{log}\n"
                );
                // Drawn, or refused as having nothing to draw: never a panic.
                match charts(&text) {
                    Ok(charts) => {
                        for c in &charts.files {
                            c.svg_source().unwrap();
                            drawn += 1;
                        }
                    }
                    Err(e) => {
                        assert!(e.to_string().contains("has nothing to draw"), "{e}\n{text}");
                        refused += 1;
                    }
                }
            }
        }
    }
    // Both happen: zeros on a log axis and a warm-up past the run are refused, the rest
    // drawn.
    assert!(drawn > 0 && refused > 0, "{drawn} drawn, {refused} refused");
}

#[test]
fn a_log_key_where_the_kind_has_no_log_axis_is_refused_at_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let base = "model = \"single_writer_queue\"\n[[chart]]\nname = \"c\"\n";
    for (chart, at, says) in [
        (
            "kind = \"cdf\"\ny = \"wait_ms\"\nlog_y = true\n",
            "6:9",
            "`log_y` is for line and bar charts: a cdf is not drawn on a log scale; drop it",
        ),
        (
            "kind = \"histogram\"\ny = \"wait_ms\"\nlog_x = true\n",
            "6:9",
            "`log_x` is for line charts: a histogram is not drawn on a log scale; drop it",
        ),
        (
            "kind = \"bar\"\nx = \"clients\"\ny = \"mean_wait_ms\"\nlog_x = true\n",
            "7:9",
            "`log_x` is for line charts: a bar is not drawn on a log scale",
        ),
        (
            "x = \"clients\"\ny = \"mean_wait_ms\"\nlog_y = true\nmark_y = 0\n",
            "7:10",
            "with `log_y`, `mark_y` must be above 0",
        ),
    ] {
        let config = write_config(tmp.path(), "k.toml", &format!("{base}{chart}"));
        let out = coordsim(&["check", &config]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("k.toml:{at}: {says}")), "{err}");
    }
}

/// A `mark_y` line's legend: its own `label`, else `y = VALUE` in the config's locale,
/// never the y metric's label (a capacity line is no "mean wait").
#[test]
fn a_mark_y_line_has_its_own_label() {
    let text = |mark: &str| {
        format!(
            "model = \"single_writer_queue\"\nlocale = \"tr\"\n[sweep]\nclients = [1, 2]\n[[chart]]\nname = \"w\"\nx = \"clients\"\ny = \"mean_wait_ms\"\nmark_y = {mark}\n[labels]\nclients = \"istemci\"\nmean_wait_ms = \"ortalama bekleme\"\n"
        )
    };
    let own = svgs(&text(r#"{ value = 2.5, label = "kapasite" }"#)).concat();
    assert!(own.contains("kapasite"), "the label given");
    let plain = svgs(&text("2.5")).concat();
    assert!(
        plain.contains("y = 2,5"),
        "y = VALUE, with a Turkish decimal comma"
    );
    assert!(
        !plain.contains("ortalama bekleme = "),
        "not the metric's label"
    );
    let Err(e) = library_config(
        &registry(),
        "c.toml",
        &text(r#"{ value = 2.5, labl = "x" }"#),
    ) else {
        panic!("refused");
    };
    assert!(
        e.to_string()
            .contains("unknown key `labl` of `mark_y` (did you mean `label`?)"),
        "{e}"
    );
}

/// A line chart's `y_expr` over a swept parameter is drawn as a curve between the sweep's
/// first and last x, not a polyline through its points: at 200 even steps (geometric on a
/// log x axis) and at the sweep's own points, and only at whole numbers for a whole-number
/// parameter. One that reads a metric stays at the sweep's points; the measured line keeps
/// its markers there.
#[test]
fn a_reference_line_over_a_parameter_is_a_curve_between_the_sweeps_ends() {
    let text = "model = \"scenario\"\n[sweep]\nn = [1, 4, 8]\nd = [1.0, 2.0, 4.0]\n\
        [[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 1\n\
        [[actor]]\nname = \"c\"\nrepeat = \"n\"\nsteps = [{ delay_ms = \"d\" }, { request = \"s\" }]\n\
        [[chart]]\nname = \"harmonic\"\nx = \"n\"\ny = [\"c.completed\"]\nwhere = { d = 1.0 }\ny_expr = { \"H\" = \"sum(j, 1, n, 1 / j)\" }\n\
        [[chart]]\nname = \"square\"\nx = \"d\"\ny = [\"c.mean_response_ms\"]\nwhere = { n = 1 }\ny_expr = { \"sq\" = \"d ^ 2\", \"measured\" = \"c.completed * d\" }\n\
        [[chart]]\nname = \"log\"\nx = \"d\"\ny = [\"c.mean_response_ms\"]\nwhere = { n = 1 }\nlog_x = true\ny_expr = { \"sq\" = \"d ^ 2\" }\n";
    let config = library_config(&registry(), "c.toml", text).unwrap();
    let results = library_run(&config);
    let run = coordsim::export::Run {
        config: &config,
        results: &results,
        summary: None,
        seed: config.seed,
    };
    let data = |name: &str| {
        let spec = config.charts.iter().find(|c| c.name == name).unwrap();
        coordsim::export::chart::ChartData::new(&run, spec)
    };
    let series = |data: &coordsim::export::chart::ChartData, label: &str| {
        data.series
            .iter()
            .find(|s| s.label == label)
            .unwrap_or_else(|| panic!("no series {label}"))
            .clone()
    };
    // n = 1 … 8, every whole n: H_n = 1, 1.5, 1.83, … (H_5 = 137/60, between two points).
    let harmonic = data("harmonic");
    let h = series(&harmonic, "H");
    assert!(h.reference);
    let xs: Vec<f64> = h.points.iter().map(|p| p.0).collect();
    assert_eq!(xs, (1..=8).map(f64::from).collect::<Vec<_>>());
    assert!(
        (h.points[4].1 - 137.0 / 60.0).abs() < 1e-12,
        "{:?}",
        h.points
    );
    assert_eq!(series(&harmonic, "c.completed").points.len(), 3);
    // d from 1 to 4 (a number, not a count): 201 even steps, and the sweep's 2 (not one of
    // them: 1 + 3k/200 = 2 at k = 66.7), each y = d².
    let square = data("square");
    let sq = series(&square, "sq");
    assert_eq!(sq.points.first().unwrap().0, 1.0);
    assert_eq!(sq.points.last().unwrap().0, 4.0);
    assert!(sq.points.iter().any(|p| p.0 == 2.0));
    assert!(sq.points.len() >= 201, "{}", sq.points.len());
    assert!(sq.points.windows(2).all(|w| w[0].0 < w[1].0));
    assert!(sq.points.iter().all(|(x, y)| (y - x * x).abs() < 1e-9));
    // A metric is known only where a run was made.
    assert_eq!(series(&square, "measured").points.len(), 3);
    assert_eq!(series(&square, "c.mean_response_ms").points.len(), 3);
    // On a log x axis the steps are even in log d: 4^(1/200) apart, the sweep's 2 aside.
    let log = series(&data("log"), "sq");
    let ratio = 4f64.powf(1.0 / 200.0);
    let steps = log
        .points
        .windows(2)
        .filter(|w| (w[1].0 / w[0].0 - ratio).abs() < 1e-9)
        .count();
    assert!(steps >= 198, "{steps} of {}", log.points.len());
}
