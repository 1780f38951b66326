//! Config loading: positioned errors, sweeps, derived parameters, traces, stems.

use crate::harness::*;
use std::process::Command;

#[test]
fn bad_configs_get_positioned_errors_and_never_panic() {
    let dir = root().join("tests/fixtures/bad");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    let mut report = String::new();
    for name in &names {
        let out = coordsim_in(&dir, &["check", name]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(stdout(&out).is_empty(), "{name}: nothing on stdout");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
        let prefix = format!("error: {name}:");
        assert!(
            err.starts_with(&prefix),
            "{name}: `error: FILE:LINE:COL: …`: {err}"
        );
        report.push_str(&err);
    }
    insta::assert_snapshot!("bad_config_errors", report);
}

#[test]
fn input_errors_outside_configs_exit_2_without_panicking() {
    for args in [
        vec!["check", "no-such-file.toml"],
        vec!["run"],
        vec![
            "run",
            "configs/lessons/single-writer-queue.toml",
            "--jobs",
            "0",
        ],
        vec![
            "run",
            "configs/lessons/single-writer-queue.toml",
            "--shard",
            "2/2",
        ],
        vec!["models", "no_such_model"],
        vec!["merge", "/tmp/coordsim-merge-out", "/no/such/shard"],
        vec!["report", "--configs", "/no/such/dir"],
    ] {
        let out = coordsim(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error:"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn every_starter_config_runs_as_is() {
    let list = stdout(&coordsim(&["models"]));
    let tmp = tempfile::tempdir().unwrap();
    let names: Vec<&str> = list
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.contains(&"single_writer_queue"), "{list}");
    for name in names {
        let starter = coordsim(&["models", name, "--config"]);
        assert_eq!(starter.status.code(), Some(0));
        let config = write_config(tmp.path(), &format!("{name}.toml"), &stdout(&starter));
        let out = coordsim(&["run", &config, "--out", tmp.path().to_str().unwrap(), "-q"]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
    }
}

#[test]
fn two_configs_with_one_stem_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("a")).unwrap();
    std::fs::create_dir(tmp.path().join("b")).unwrap();
    let text = "model = \"single_writer_queue\"\n";
    let a = write_config(&tmp.path().join("a"), "same.toml", text);
    let b = write_config(&tmp.path().join("b"), "same.toml", text);
    let out = coordsim(&["run", &a, &b, "--out", tmp.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("same file stem `same`"),
        "{}",
        stderr(&out)
    );
}

/// The config loader as a library: sweeps, filters and positions, on the built-in models.
mod config_loading {
    use coordsim::config::Config;
    use coordsim::source::ConfigError;
    use coordsim_model::Value;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        super::library_config(&crate::harness::registry(), "t.toml", text)
    }

    #[test]
    fn sweep_axes_keep_declared_order_first_slowest() {
        let c = parse(
            "model = \"single_writer_queue\"\n[sweep]\nservice_ms = [4, 8]\nclients = [1, 2, 3]\n",
        )
        .unwrap();
        let keys: Vec<&str> = c.axes.iter().map(|a| a.key.as_str()).collect();
        assert_eq!(keys, ["service_ms", "clients"]); // not alphabetical
        assert_eq!(c.points, 6);
        // Point 4 = service_ms index 1, clients index 1.
        assert_eq!(c.coordinates(4), [1, 1]);
        let values = c.point_values(4);
        let specs = c.model.params();
        let at = |k: &str| values[specs.iter().position(|s| s.key == k).unwrap()].clone();
        assert_eq!(at("service_ms"), Value::Int(8));
        assert_eq!(at("clients"), Value::Int(2));
        assert_eq!(at("interarrival_ms"), Value::Float(40.0)); // default kept
    }

    #[test]
    fn where_may_name_a_fixed_parameter_and_compares_numerically() {
        let c = parse(
            "model = \"single_writer_queue\"\n[params]\nservice_ms = 6\n[[claim]]\nwhere = { service_ms = 6.0 }\nmetric = \"lost_updates\"\nexpect = 0\n",
        )
        .unwrap();
        assert_eq!(c.claims.len(), 1);
        assert_eq!(c.claims[0].name, "lost_updates where service_ms = 6");
    }

    #[test]
    fn an_error_in_a_swept_value_points_at_that_value() {
        let text = "model = \"single_writer_queue\"\n[sweep]\nservice_ms = [6, 0, 2]\n";
        let e = parse(text).unwrap_err();
        // Line 3: `service_ms = [6, ` is 17 characters, so the `0` is at column 18.
        assert_eq!(e.location, "t.toml:3:18");
        assert!(e.message.starts_with("`service_ms` = 0:"), "{}", e.message);
    }
}

/// A 0.1-step sweep shows 0.3 everywhere: the CSV, the table and `where`.
#[test]
fn a_decimal_step_sweep_gives_the_decimals_written() {
    let registry = crate::harness::registry();
    let config = library_config(
        &registry,
        "d.toml",
        "model = \"single_writer_queue\"\n[sweep]\nclient_offset_ms = { from = 0.1, to = 0.5, step = 0.1 }\n[[claim]]\nwhere = { client_offset_ms = 0.3 }\nmetric = \"lost_updates\"\nexpect = 0\n",
    )
    .unwrap();
    let values: Vec<String> = config.axes[0]
        .values
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(values, ["0.1", "0.2", "0.3", "0.4", "0.5"]);
    let results = library_run(&config);
    let csv = String::from_utf8(coordsim::export::csv::to_csv(&results.results).unwrap()).unwrap();
    assert!(
        csv.lines().nth(3).unwrap().starts_with("2,0.3,0,0,"),
        "{csv}"
    );
    let verdicts = coordsim::check::evaluate(&config, &results).unwrap();
    assert!(verdicts[0].pass, "{}", verdicts[0].line);
}

/// A var sweeps like a parameter, sets derived parameters at every point, and is a column
/// after the swept parameters.
#[test]
fn vars_derive_parameters_at_every_point() {
    let registry = crate::harness::registry();
    let config = library_config(
        &registry,
        "v.toml",
        "model = \"single_writer_queue\"\n[vars]\nrho = \"load\"\n[params]\ninterarrival_ms = { expr = \"clients * service_ms / rho\" }\n[sweep]\nrho = [0.5, 0.8]\nclients = [1, 2]\n[[claim]]\nmetric = \"utilization\"\nexpect = \"rho\"\ntolerance = 1e-12\n",
    )
    .unwrap();
    let results = library_run(&config);
    let csv = String::from_utf8(coordsim::export::csv::to_csv(&results.results).unwrap()).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("point,clients,rho,replication,seed,"),
        "{}",
        lines[0]
    );
    // rho is the first key, so the slowest: (0.5, 1), (0.5, 2), (0.8, 1), (0.8, 2).
    assert!(lines[2].starts_with("1,2,0.5,"), "{}", lines[2]);
    assert!(lines[3].starts_with("2,1,0.8,"), "{}", lines[3]);
    // interarrival = clients × 6 / ρ: with 2 clients at ρ = 0.8 a gap of 15 ms; each row's
    // utilization is its ρ (the claim).
    assert_eq!(
        config.point_values(3)[2],
        coordsim_model::Value::Float(15.0)
    );
    let verdicts = coordsim::check::evaluate(&config, &results).unwrap();
    assert!(verdicts[0].pass, "{}", verdicts[0].line);
}

#[test]
fn traces_come_from_csv_files_next_to_the_config_and_percentiles_read_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    // A trace of one value, 6 ms: the lesson's fixed service. One client every 4 ms with
    // 6 ms of service waits 0, 2, 4, …, 18 ms (ten requests): nearest rank p50 is the 5th
    // (8 ms), numpy's linear p50 is halfway between the 5th and 6th (9 ms).
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    std::fs::write(
        dir.path().join("data/service.csv"),
        "request,service_ms\n1,6\n2,6\n",
    )
    .unwrap();
    let base = "model = \"single_writer_queue\"\n[params]\nclients = 1\nrequests_per_client = 10\ninterarrival_ms = 4\nservice = \"empirical\"\nservice_trace = { file = \"data/service.csv\", column = \"service_ms\" }\n";
    let registry = crate::harness::registry();
    let path = dir.path().join("t.toml").display().to_string();
    for (extra, p50) in [("", 8.0), ("percentile = \"linear\"\n", 9.0)] {
        let text = format!("{extra}{base}");
        std::fs::write(&path, &text).unwrap();
        let config = library_config(&registry, &path, &text).unwrap();
        let results = library_run(&config);
        let table = &results.results;
        let row = &table.rows[0];
        let cell = |name: &str| row[table.column(name).unwrap()].as_f64().unwrap();
        assert_eq!(cell("mean_wait_ms"), 9.0);
        assert_eq!(cell("p50_wait_ms"), p50, "{extra}");
        assert_eq!(cell("capacity_per_s"), 1000.0 / 6.0);
    }
}

/// What a config keeps until its outputs are written counts against `max_memory_mb` before
/// anything runs: 1,000 points of 10,000 requests each, every one drawn by a cdf, pool up to
/// 1,000 × 10,000 samples × 8 bytes ≈ 76 MiB; a 64 MiB limit refuses it, naming the samples.
#[test]
fn kept_results_and_samples_are_held_to_max_memory_mb() {
    let text = "model = \"single_writer_queue\"\n[params]\nrequests_per_client = 2500\n[sweep]\nservice_ms = { from = 1, to = 10, points = 1000 }\n[[chart]]\nname = \"w\"\nkind = \"cdf\"\ny = [\"wait_ms\"]\n[limits]\nmax_memory_mb = 64\n";
    let Err(e) = library_config(&crate::harness::registry(), "m.toml", text) else {
        panic!("refused up front");
    };
    assert!(
        e.message.contains("of samples for 1000 drawn point(s)"),
        "{e}"
    );
    // The same sweep drawing one point's distribution fits.
    let one = text.replace(
        "y = [\"wait_ms\"]\n",
        "y = [\"wait_ms\"]\nwhere = { service_ms = 1 }\n",
    );
    assert!(library_config(&crate::harness::registry(), "m.toml", &one).is_ok());
}

/// Errors that used to point to the wrong place or say the wrong thing.
#[test]
fn misleading_errors_say_what_is_wrong_where() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            // A string in a numeric sweep: at the string, not the actor's line as NaN.
            "model = \"scenario\"\n[sweep]\nx = [1, \"two\", 3]\n[[actor]]\nname = \"a\"\nsteps = [{ delay_ms = \"x\" }]\n",
            "3:9: the sweep of `x` starts with a number but this value is a string",
        ),
        (
            // A list in `where` for a number parameter: each value must be one a point has.
            "model = \"single_writer_queue\"\n[sweep]\nclients = [4, 8]\n[[claim]]\nwhere = { clients = [4, 9] }\nmetric = \"requests\"\nexpect = 1\n",
            "5:21: `where`: no point has `clients = 9`; the sweep has 4, 8",
        ),
        (
            // An unknown tie rule: the value as written, no Debug dump.
            "model = \"scenario\"\n[params]\ntie_order = \"lifo\"\n[[actor]]\nname = \"a\"\nsteps = [{ delay_ms = 1 }]\n",
            "got \"lifo\"",
        ),
        (
            // 1e300 ms is a duration ≥ 0: too long, and said so.
            "model = \"single_writer_queue\"\n[params]\nservice_ms = 1e300\n",
            "3:14: `service_ms`: must be at most 18446744073709 ms",
        ),
        (
            // A huge number in exponent form, as written, not 301 digits.
            "model = \"single_writer_queue\"\n[limits]\nmax_virtual_time_ms = 1e300\n",
            "3:23: `max_virtual_time_ms` must be above 0 and at most about 584 years (1.8e13 ms), got 1e300\n",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"ks\"\nkind = \"keys\"\n[[actor]]\nname = \"a\"\nsteps = [{ insert = \"ks\", key = 1e300, value = 1 }]\n",
            "7:33: `actor[0].steps[0].key`: a key is a whole number from -2^53 to 2^53, got 1e300\n",
        ),
        (
            // A tiny one too: 1e-7 actors is no whole number.
            "model = \"scenario\"\n[[actor]]\nname = \"a\"\ncount = 1e-7\nsteps = [{ delay_ms = 1 }]\n",
            "4:9: `actor[0].count`: must be a whole number from 0 to 1000000, got 1e-7\n",
        ),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let config = write_config(tmp.path(), &format!("e{i}.toml"), text);
        let o = coordsim(&["check", &config]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(needle),
            "`{needle}` not in {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("Some("), "{}", stderr(&o));
    }
    // Inputs that never end are refused at once: a device, a pipe.
    let fifo = tmp.path().join("fifo.toml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for path in ["/dev/zero", fifo.to_str().unwrap()] {
        let o = coordsim(&["check", path]);
        assert_eq!(o.status.code(), Some(2), "{path}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("is not a regular file"),
            "{}",
            stderr(&o)
        );
    }
}

/// `[[metric]]` derives metrics from a run's own: 4 clients every 40 ms offer 100 requests/s
/// against a capacity of 1000 / 6 = 166.67/s, a headroom of 66.67/s, 40% of capacity; at 8
/// clients 200/s, -33.33/s, -20%. A derived metric can use an earlier one, is a results.csv
/// column after the model's, and works in claims and charts.
#[test]
fn derived_metrics_are_metrics_like_the_models_own() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "model = \"single_writer_queue\"\n[sweep]\nclients = [4, 8]\n[[metric]]\nname = \"headroom_per_s\"\nexpr = \"capacity_per_s - offered_rate_per_s\"\n[[metric]]\nname = \"headroom_pct\"\nexpr = \"100 * headroom_per_s / capacity_per_s\"\n[[claim]]\nwhere = { clients = 8 }\nmetric = \"headroom_pct\"\nexpect = -20\ntolerance = 1e-9\n[[chart]]\nname = \"h\"\nx = \"clients\"\ny = [\"headroom_pct\"]\n";
    let config = write_config(tmp.path(), "d.toml", text);
    let out = tmp.path().join("out");
    let o = coordsim(&["check", &config]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = String::from_utf8(read(out.join("d/results.csv"))).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(
        header[header.len() - 2..],
        ["headroom_per_s", "headroom_pct"]
    );
    let first: Vec<f64> = csv
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .rev()
        .take(2)
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(
        (first[0] - 40.0).abs() < 1e-9 && (first[1] - 200.0 / 3.0).abs() < 1e-9,
        "{first:?}"
    );
    assert!(out.join("d/h.svg").is_file());
    // Errors at their place: a name taken, an unknown name in the expression, a var.
    let cases = [
        (
            "[[metric]]\nname = \"utilization\"\nexpr = \"1\"\n",
            "7:8: `utilization` is already a column",
        ),
        (
            "[[metric]]\nname = \"x\"\nexpr = \"capacity - 1\"\n",
            "8:9: in `expr`: unknown",
        ),
        (
            "[vars]\nrho = \"load\"\n[sweep]\nrho = [1]\n[[metric]]\nname = \"x\"\nexpr = \"rho\"\n",
            "is a [vars] variable",
        ),
        (
            "[[metric]]\nname = \"a\"\nexpr = \"b + 1\"\n[[metric]]\nname = \"b\"\nexpr = \"2\"\n",
            "8:9: in `expr`: `b` is a [[metric]] declared further down",
        ),
        (
            "[[metric]]\nname = \"a\"\nexpr = \"a + 1\"\n",
            "8:9: in `expr`: `a` is this [[metric]] itself",
        ),
    ];
    for (i, (tail, needle)) in cases.iter().enumerate() {
        let bad = write_config(
            tmp.path(),
            &format!("b{i}.toml"),
            &format!("model = \"single_writer_queue\"\n[params]\nclients = 4\n\n\n{tail}"),
        );
        let o = coordsim(&["check", &bad]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(needle),
            "`{needle}` not in {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_trace_column_missing_from_a_wide_csv_is_named_in_a_short_line_with_the_nearest() {
    let dir = tempfile::tempdir().unwrap();
    // 5,000 columns c0 … c4999; `service_mss` is one edit from the last one's name.
    let mut header: Vec<String> = (0..5000).map(|i| format!("c{i}")).collect();
    header.push("service_ms".into());
    std::fs::write(
        dir.path().join("wide.csv"),
        format!("{}\n", header.join(",")),
    )
    .unwrap();
    let text = "model = \"single_writer_queue\"\n[params]\nservice = \"empirical\"\nservice_trace = { file = \"wide.csv\", column = \"service_mss\" }\n";
    let path = write_config(dir.path(), "t.toml", text);
    let out = coordsim(&["check", &path]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let line = err.lines().next().unwrap();
    assert!(line.len() < 1024, "{} bytes", line.len());
    assert!(
        line.contains("no column `service_mss` (did you mean `service_ms`?)"),
        "{line}"
    );
    // Ten listed of 5,001: 4,991 more.
    assert!(line.ends_with("c8, c9, … and 4,991 more"), "{line}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, .. proptest::prelude::ProptestConfig::default() })]

    /// `[[metric]] percentile = P, of = "DIST"`: any percentile of a model's per-request
    /// distribution. It is the ⌈P/100 · n⌉-th smallest of the run's samples (sorted here),
    /// and at P = 99 the model's own p99 column; `percentile = "linear"` interpolates as
    /// numpy does (computed here), a chart's distribution is unchanged by it.
    #[test]
    fn a_percentile_metric_is_the_nearest_rank_of_every_sample(
        p in 0.01f64..100.0, requests in 1u64..3000, seed in 0u64..50, linear in proptest::bool::ANY,
    ) {
        use coordsim_model::RunContext;
        let rule = if linear { "percentile = \"linear\"\n" } else { "" };
        let text = format!(
            "model = \"scenario\"\n{rule}[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 5\nservice = \"exponential\"\n\
             [[actor]]\nname = \"c\"\nrepeat = {requests}\nevery_ms = 6\narrivals = \"poisson\"\nsteps = [{{ request = \"s\" }}]\n\
             [[metric]]\nname = \"any\"\npercentile = {p}\nof = \"c.response_ms\"\n\
             [[metric]]\nname = \"p99_again\"\npercentile = 99\nof = \"c.response_ms\"\n"
        );
        let config = crate::harness::library_config(&crate::harness::registry(), "t.toml", &text).unwrap();
        let columns: Vec<&str> = config.plan.model.metrics().iter().map(|c| c.name).collect();
        let percentile = if linear { sim_core::Percentile::Linear } else { sim_core::Percentile::NearestRank };
        let ctx = RunContext::new(seed, config.plan.limits).with_percentile(percentile);
        let plain = config.plan.plans[0].run(&ctx).unwrap();
        let cell = |name: &str| plain.metrics[columns.iter().position(|c| *c == name).unwrap()].as_f64().unwrap();
        proptest::prop_assert!(plain.distributions.is_empty(), "the samples asked for it are not handed on");
        let charted = config.plan.plans[0].run(&ctx.clone().with_distributions(true)).unwrap();
        let mut samples = charted.distributions.iter().find(|(n, _)| *n == "c.response_ms").unwrap().1.clone();
        samples.sort_by(f64::total_cmp);
        let n = samples.len();
        proptest::prop_assert_eq!(n as u64, requests);
        let expected = if linear {
            let h = (n - 1) as f64 * p / 100.0;
            let lo = h.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            samples[lo] + (h - lo as f64) * (samples[hi] - samples[lo])
        } else {
            samples[((p / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1]
        };
        proptest::prop_assert!((cell("any") - expected).abs() < 1e-9, "{} vs {}", cell("any"), expected);
        // Exact under the nearest rank; interpolated, the model works in ns and the metric
        // in ms (the last bits may differ).
        proptest::prop_assert!((cell("p99_again") - cell("c.p99_response_ms")).abs() < 1e-9);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, .. proptest::prelude::ProptestConfig::default() })]

    /// `[[metric]] share_above = X, of = "DIST"`: the share of the run's samples above X
    /// (counted here from every sample), X an expression of the parameters and metrics. At
    /// the nearest-rank p99, at most 1% are above it (the ⌈0.99·n⌉-th smallest leaves
    /// n − ⌈0.99·n⌉ ≤ 0.01·n above); at the longest, none; below 0, all.
    #[test]
    fn a_share_metric_counts_the_samples_above_its_threshold(
        limit in 0.0f64..40.0, requests in 1u64..3000, seed in 0u64..50,
    ) {
        use coordsim_model::RunContext;
        let text = format!(
            "model = \"scenario\"\n[params]\nlimit_ms = {limit}\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 5\nservice = \"exponential\"\n\
             [[actor]]\nname = \"c\"\nrepeat = {requests}\nevery_ms = 6\narrivals = \"poisson\"\nsteps = [{{ request = \"s\" }}]\n\
             [[metric]]\nname = \"late\"\nshare_above = \"limit_ms\"\nof = \"c.response_ms\"\n\
             [[metric]]\nname = \"late_p99\"\nshare_above = \"c.p99_response_ms\"\nof = \"c.response_ms\"\n\
             [[metric]]\nname = \"late_max\"\nshare_above = \"c.max_response_ms\"\nof = \"c.response_ms\"\n\
             [[metric]]\nname = \"all\"\nshare_above = -1\nof = \"c.response_ms\"\n"
        );
        let config = crate::harness::library_config(&crate::harness::registry(), "t.toml", &text).unwrap();
        let columns: Vec<&str> = config.plan.model.metrics().iter().map(|c| c.name).collect();
        let ctx = RunContext::new(seed, config.plan.limits);
        let plain = config.plan.plans[0].run(&ctx).unwrap();
        let cell = |name: &str| plain.metrics[columns.iter().position(|c| *c == name).unwrap()].as_f64().unwrap();
        let charted = config.plan.plans[0].run(&ctx.clone().with_distributions(true)).unwrap();
        let samples = &charted.distributions.iter().find(|(n, _)| *n == "c.response_ms").unwrap().1;
        proptest::prop_assert_eq!(samples.len() as u64, requests);
        let above = samples.iter().filter(|v| **v > limit).count() as f64;
        proptest::prop_assert_eq!(cell("late"), above / samples.len() as f64);
        proptest::prop_assert!(cell("late_p99") <= 0.01, "{}", cell("late_p99"));
        proptest::prop_assert_eq!(cell("late_max"), 0.0);
        proptest::prop_assert_eq!(cell("all"), 1.0);
    }
}

/// A tail by hand, with the threshold swept: a closed loop of 8 repetitions, the k-th
/// (from 0) a delay of k ms and a 1 ms service, so responses of 1, 2, … 8 ms; those above
/// d are the whole numbers in (d, 8], 8 − ⌊d⌋ of them for d in [0, 8]. A claim checks the
/// share at every point (3 of 8 above 5 ms, 1 of 8 above 7.5, none above 8).
#[test]
fn a_share_metric_of_a_swept_threshold_is_checked_by_claims() {
    let tmp = tempfile::tempdir().unwrap();
    let config = |expect: &str| {
        format!(
            r#"model = "scenario"
[sweep]
deadline_ms = [0, 5, 7.5, 8]
[[resource]]
name = "s"
kind = "server"
service_ms = 1
[[actor]]
name = "c"
repeat = 8
steps = [{{ delay_ms = "k" }}, {{ request = "s" }}]
[[metric]]
name = "late_share"
share_above = "deadline_ms"
of = "c.response_ms"
[[claim]]
metric = "late_share"
expect = "{expect}"
"#
        )
    };
    let right = config("(8 - floor(deadline_ms)) / 8");
    let (code, text) = check_config(tmp.path(), "right.toml", &right);
    assert_eq!(code, Some(0), "{text}");
    // At or above instead of above: one more at each whole threshold, so a claim of it fails.
    let wrong = config("(9 - ceil(deadline_ms)) / 8");
    let (code, text) = check_config(tmp.path(), "wrong.toml", &wrong);
    assert_eq!(code, Some(1), "{text}");
}

/// A percentile or share metric's mistakes, at their place: outside (0, 100], no `of`, an
/// `of` that is no distribution (with the nearest), two kinds at once, an unknown name.
#[test]
fn a_percentile_metric_says_what_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "percentile = 0\nof = \"wait_ms\"\n",
            "`percentile` is in (0, 100]",
        ),
        ("percentile = 99\n", "needs `of`"),
        (
            "percentile = 99\nof = \"wiat_ms\"\n",
            "did you mean `wait_ms`",
        ),
        (
            "percentile = 99\nof = \"wait_ms\"\nexpr = \"1\"\n",
            "not two",
        ),
        (
            "share_above = 10\nof = \"wait_ms\"\nexpr = \"1\"\n",
            "not two",
        ),
        ("share_above = 10\n", "a `share_above` needs `of`"),
        (
            "share_above = \"servce_ms\"\nof = \"wait_ms\"\n",
            "in `share_above`: unknown",
        ),
        (
            "share_above = \"10\"\nof = \"wait_m\"\n",
            "did you mean `wait_ms`",
        ),
    ];
    for (i, (tail, needle)) in cases.iter().enumerate() {
        let bad = write_config(
            tmp.path(),
            &format!("p{i}.toml"),
            &format!("model = \"single_writer_queue\"\n[[metric]]\nname = \"x\"\n{tail}"),
        );
        let o = coordsim(&["check", &bad]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(needle),
            "`{needle}` not in {}",
            stderr(&o)
        );
    }
}

/// A count that must be at least 1 says so, with what was given, whether it is 0, negative
/// or no integer: one range for every wrong value.
#[test]
fn replications_and_limits_state_one_valid_range_for_any_wrong_value() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "replications = 0\n",
            "2:16: `replications` must be an integer ≥ 1, got 0",
        ),
        (
            "replications = -1\n",
            "2:16: `replications` must be an integer ≥ 1, got -1",
        ),
        (
            "replications = 2.5\n",
            "2:16: `replications` must be an integer ≥ 1, got a float",
        ),
        (
            "[limits]\nmax_events = 0\n",
            "3:14: `max_events` must be an integer ≥ 1, got 0",
        ),
        (
            "[limits]\nmax_events = -1\n",
            "3:14: `max_events` must be an integer ≥ 1, got -1",
        ),
        (
            "[limits]\nmax_memory_mb = -5\n",
            "3:17: `max_memory_mb` must be an integer ≥ 1, got -5",
        ),
    ];
    for (i, (table, want)) in cases.iter().enumerate() {
        let text = format!("model = \"single_writer_queue\"\n{table}");
        let config = write_config(tmp.path(), &format!("r{i}.toml"), &text);
        let o = coordsim(&["check", &config]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(stderr(&o), format!("error: {config}:{want}\n"));
    }
}

/// A misspelled name in a config names the nearest valid one first, wherever it is refused:
/// a section, a key of a section, a filter, a metric, a column, a chart kind, a model, a
/// name in a derived parameter, a `[labels]` key (known once the run is made).
#[test]
fn a_misspelled_name_in_a_config_names_the_nearest_first() {
    let tmp = tempfile::tempdir().unwrap();
    let head = "model = \"single_writer_queue\"\n[sweep]\nclients = [1, 2]\n";
    let cases = [
        (
            "[sweeps]\nservice_ms = [6]\n",
            "unknown key `sweeps` (did you mean `sweep`?) in the config",
        ),
        (
            "[params]\nservce_ms = 6\n",
            "unknown key `servce_ms` (did you mean `service_ms`?)",
        ),
        (
            "[[claim]]\nmetirc = \"mean_wait_ms\"\nexpect = 1\n",
            "unknown key `metirc` (did you mean `metric`?)",
        ),
        (
            "[[claim]]\nmetric = \"mean_wiat_ms\"\nexpect = 1\n",
            "unknown metric `mean_wiat_ms` (did you mean `mean_wait_ms`?)",
        ),
        (
            "[[claim]]\nmetric = \"mean_wait_ms\"\nwhere = { clents = 1 }\nexpect = 1\n",
            "unknown key `clents` (did you mean `clients`?)",
        ),
        (
            "[[chart]]\nname = \"c\"\nx = \"clients\"\ny = [\"p95_wiat_ms\"]\n",
            "`p95_wiat_ms` (did you mean `p95_wait_ms`?)",
        ),
        (
            "[[chart]]\nname = \"c\"\nkind = \"lne\"\nx = \"clients\"\ny = [\"p95_wait_ms\"]\n",
            "unknown chart kind `lne` (did you mean `line`?)",
        ),
        (
            "[table]\ncolumns = [\"clients\", \"mean_wiat_ms\"]\n",
            "`mean_wiat_ms` (did you mean `mean_wait_ms`?) is not a column",
        ),
        (
            "[params]\ninterarrival_ms = { expr = \"servce_ms * 2\" }\n",
            "unknown name `servce_ms` (did you mean `service_ms`?)",
        ),
    ];
    for (i, (tail, needle)) in cases.iter().enumerate() {
        let path = write_config(tmp.path(), &format!("n{i}.toml"), &format!("{head}{tail}"));
        let o = coordsim(&["check", &path]);
        assert_eq!(o.status.code(), Some(2), "{tail}{}", stderr(&o));
        assert!(
            stderr(&o).contains(needle),
            "`{needle}` not in {}",
            stderr(&o)
        );
    }
    let path = write_config(tmp.path(), "model.toml", "model = \"single_writer_queu\"\n");
    let o = coordsim(&["check", &path]);
    assert!(
        stderr(&o)
            .contains("unknown model `single_writer_queu` (did you mean `single_writer_queue`?)"),
        "{}",
        stderr(&o)
    );
    // A label for no name of the run: the nearest of its names (the parameter `clients`).
    let path = write_config(
        tmp.path(),
        "label.toml",
        &format!("{head}[labels]\nclints = \"istemciler\"\n"),
    );
    let o = coordsim(&["check", &path]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("`clints` (did you mean `clients`?) in [labels] is not a column"),
        "{}",
        stderr(&o)
    );
}

/// The derived metrics of every run count together, up front, against `max_events`: a
/// million runs of a 799-node and a 999-node expression are 1,798 events each (far below
/// a run's limit) but about 1.8 × 10^9 in all, minutes of work; refused at the larger
/// expression before anything runs. A thousand runs of them (1.8 × 10^6) are not.
#[test]
fn the_derived_metrics_of_all_runs_are_held_to_max_events() {
    let registry = crate::harness::registry();
    // `lost_writes + …` 400 times: 400 names and 399 operators, 799 nodes; 499 ones and
    // `lost_writes`: 500 terms and 499 operators, 999.
    let long = vec!["lost_writes"; 400].join(" + ");
    let longer = vec!["1"; 499].join(" + ");
    let text = |points: u32, replications: u32| {
        format!(
            "model = \"lock_queue\"\nentities = false\nreplications = {replications}\n[sweep]\nhold_ms = {{ from = 1, to = {points}, step = 1 }}\n[[metric]]\nname = \"a\"\nexpr = \"{long}\"\n[[metric]]\nname = \"b\"\nexpr = \"{longer} + lost_writes\"\n"
        )
    };
    let e = library_config(&registry, "d.toml", &text(1000, 1000)).unwrap_err();
    // 1,000 points × 1,000 replications: (799 + 999) × 10^6 = 1.798 × 10^9 > 10^9.
    assert!(
        e.to_string().starts_with(
            "d.toml:11:8: the [[metric]]s of all 1000000 runs would take about 1798000000 events (1798 a run, a number, name or operator an event; this one 999), more than max_events = 1000000000 in [limits]"
        ),
        "{e}"
    );
    assert!(library_config(&registry, "d.toml", &text(10, 100)).is_ok());
}

/// At most 64 `[[chart]]` tables, as `[[metric]]`s: the 65th is refused at itself, before
/// anything runs (10,000 charts of a 2-point sweep wrote 666 MB); 64 load.
#[test]
fn at_most_64_charts() {
    let registry = crate::harness::registry();
    let config = |charts: usize| {
        let mut text = String::from("model = \"lock_queue\"\n[sweep]\nhold_ms = [1, 2]\n");
        for i in 0..charts {
            text.push_str(&format!(
                "[[chart]]\nname = \"c{i}\"\nkind = \"line\"\nx = \"hold_ms\"\ny = [\"lost_writes\"]\n"
            ));
        }
        text
    };
    assert!(library_config(&registry, "c.toml", &config(64)).is_ok());
    let e = library_config(&registry, "c.toml", &config(65)).unwrap_err();
    // Three lines before the charts, five lines each: the 65th starts at line 3 + 64·5 + 1.
    assert!(
        e.to_string()
            .starts_with(&format!("c.toml:{}:", 3 + 64 * 5 + 1))
            && e.to_string().contains("at most 64 [[chart]] tables"),
        "{e}"
    );
}
