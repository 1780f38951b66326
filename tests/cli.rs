//! End-to-end tests of the `coordsim` binary, run as a user would run it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs coordsim in `dir` with `args`.
fn coordsim_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_coordsim"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("coordsim runs")
}

fn coordsim(args: &[&str]) -> Output {
    coordsim_in(&root(), args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write_config(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn read(path: impl AsRef<Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A config's text parsed as `name` against `registry`, through the library.
fn library_config(
    registry: &coordsim_model::Registry,
    name: &str,
    text: &str,
) -> Result<coordsim::config::Config, coordsim::source::ConfigError> {
    coordsim::config::Config::parse(
        coordsim::source::Source {
            name: name.into(),
            text: text.into(),
        },
        registry,
    )
}

/// Runs a config through the library on 2 threads, without a progress bar.
fn library_run(config: &coordsim::config::Config) -> coordsim::results::Results {
    let options = coordsim::runner::RunOptions {
        jobs: 2,
        seed: None,
        shard: None,
        progress: false,
        ties: sim_core::Ties::Fifo,
    };
    coordsim::runner::run(config, &options).unwrap()
}

#[test]
fn the_lesson_queue_table_is_reproduced_and_checked() {
    let out = coordsim(&["check", "configs/lessons/single-writer-queue.toml"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert_eq!(text.lines().last(), Some("13 passed, 0 failed"));
    insta::assert_snapshot!("lesson_queue_check", text);
}

#[test]
fn lesson_outputs_have_the_contract_format() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().to_str().unwrap();
    let out = coordsim(&[
        "run",
        "configs/lessons/single-writer-queue.toml",
        "--out",
        out_dir,
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "--quiet prints nothing");
    let dir = tmp.path().join("single-writer-queue");
    insta::assert_snapshot!(
        "lesson_queue_results_csv",
        String::from_utf8(read(dir.join("results.csv"))).unwrap()
    );
    insta::assert_snapshot!(
        "lesson_queue_table_md",
        String::from_utf8(read(dir.join("table.md"))).unwrap()
    );
    for chart in ["wait-vs-offered-rate", "queue-vs-offered-rate"] {
        let svg = String::from_utf8(read(dir.join(format!("{chart}.svg")))).unwrap();
        assert!(svg.starts_with("<svg"), "{chart}.svg is an SVG");
        // The labels from [labels] reach the chart, Turkish letters included.
        assert!(
            svg.contains("varış hızı (istek/sn)"),
            "{chart}.svg has the x label"
        );
        let png = read(dir.join(format!("{chart}.png")));
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{chart}.png is a PNG");
        assert!(png.len() > 10_000, "{chart}.png has content");
    }
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

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
fn a_failing_claim_exits_1_and_shows_its_worst_row() {
    let tmp = tempfile::tempdir().unwrap();
    // 4 clients: mean wait 4.5 ms (lesson 003); 6 clients: 7.5 ms. Claiming 4.5 everywhere
    // fails at the 6-client point, which is the worst row.
    let config = write_config(
        tmp.path(),
        "wrong.toml",
        r#"model = "single_writer_queue"
[sweep]
clients = [4, 6]
[[claim]]
metric = "mean_wait_ms"
expect = 4.5
[[claim]]
name = "right"
where = { clients = 4 }
metric = "mean_wait_ms"
expect = 4.5
"#,
    );
    let out = coordsim(&["check", &config]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("FAIL "), "{text}");
    assert!(
        lines[0].contains("mean_wait_ms = 7.5 (expected 4.5"),
        "{text}"
    );
    // The worst row is named by its parameter values.
    assert!(lines[0].ends_with(" at clients = 6"), "{text}");
    assert!(lines[1].starts_with("PASS "), "{text}");
    assert_eq!(lines.last(), Some(&"1 passed, 1 failed"));
}

const RANDOM_SWEEP: &str = r#"model = "single_writer_queue"
seed = 10
replications = 3
[params]
requests_per_client = 300
arrivals = "poisson"
service = "exponential"
[sweep]
clients = [2, 4, 6]
service_ms = { from = 4, to = 8, step = 4 }
"#;

#[test]
fn csv_is_byte_identical_for_any_jobs_and_any_run() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "random.toml", RANDOM_SWEEP);
    let mut outputs = Vec::new();
    for (i, jobs) in ["1", "3", "3"].iter().enumerate() {
        let dir = tmp.path().join(format!("out{i}"));
        let out = coordsim(&[
            "run",
            &config,
            "--out",
            dir.to_str().unwrap(),
            "--jobs",
            jobs,
            "-q",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let d = dir.join("random");
        outputs.push((read(d.join("results.csv")), read(d.join("summary.csv"))));
    }
    assert_eq!(outputs[0], outputs[1], "--jobs 1 and --jobs 3 differ");
    assert_eq!(outputs[1], outputs[2], "two runs differ");
    // 6 points × 3 replications, header first; points in sweep order, first key slowest.
    let csv = String::from_utf8(outputs[0].0.clone()).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 1 + 18);
    assert!(rows[0].starts_with("point,clients,service_ms,replication,seed,requests,"));
    // Replication 0 runs with the master seed, r > 0 with SplitMix64's r-th output from it.
    let seed = |r| sim_core::replication_seed(10, r);
    assert!(rows[1].starts_with("0,2,4,0,10,"));
    assert!(rows[2].starts_with(&format!("0,2,4,1,{},", seed(1))));
    assert!(rows[4].starts_with("1,2,8,0,10,"));
    assert!(rows[18].starts_with(&format!("5,6,8,2,{},", seed(2))));
}

#[test]
fn seed_replays_any_row() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "random.toml", RANDOM_SWEEP);
    let run = |dir: &str, extra: &[&str]| {
        let d = tmp.path().join(dir);
        let mut args = vec!["run", config.as_str(), "--out", d.to_str().unwrap(), "-q"];
        args.extend_from_slice(extra);
        assert_eq!(coordsim(&args).status.code(), Some(0));
        String::from_utf8(read(d.join("random/results.csv"))).unwrap()
    };
    let all = run("all", &[]);
    // Row for point 3, replication 2 of the first run (its seed column: SplitMix64's 2nd
    // output from 10) equals the row for point 3, replication 0 of a run with that seed.
    let seed2 = sim_core::replication_seed(10, 2).to_string();
    let replay = run("replay", &["--seed", &seed2]);
    let metrics_of = |csv: &str, point: &str, seed: &str| -> String {
        csv.lines()
            .find(|l| {
                let f: Vec<&str> = l.split(',').collect();
                f[0] == point && f[4] == seed
            })
            .map(|l| l.split(',').skip(5).collect::<Vec<_>>().join(","))
            .expect("row present")
    };
    assert_eq!(
        metrics_of(&all, "3", &seed2),
        metrics_of(&replay, "3", &seed2)
    );
    assert_ne!(metrics_of(&all, "3", "10"), metrics_of(&all, "3", &seed2));
    // Nearby master seeds share no replication: --seed 11 is not replication 1 of seed 10.
    let next = run("next", &["--seed", "11"]);
    assert!(!next.contains(&format!(",{},", sim_core::replication_seed(10, 1))));
}

#[test]
fn shards_merge_into_the_unsharded_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "random.toml", RANDOM_SWEEP);
    let out = |d: &str| tmp.path().join(d).to_string_lossy().into_owned();
    assert_eq!(
        coordsim(&["run", &config, "--out", &out("whole"), "-q"])
            .status
            .code(),
        Some(0)
    );
    for k in 0..3 {
        let shard = format!("{k}/3");
        let o = coordsim(&[
            "run",
            &config,
            "--out",
            &out(&format!("s{k}")),
            "--shard",
            &shard,
            "-q",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let shards: Vec<String> = (0..3).map(|k| out(&format!("s{k}/random"))).collect();
    let merged = out("merged");
    let mut args = vec!["merge", merged.as_str()];
    args.extend(shards.iter().map(String::as_str));
    let o = coordsim(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for file in [
        "results.csv",
        "summary.csv",
        "table.md",
        "wait-vs-offered-rate.svg",
    ] {
        assert_eq!(
            read(tmp.path().join("whole/random").join(file)),
            read(tmp.path().join("merged").join(file)),
            "{file} differs after merge"
        );
    }
    // A missing shard is refused.
    let o = coordsim(&["merge", &out("partial"), &shards[0], &shards[1]]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("pass every shard once"),
        "{}",
        stderr(&o)
    );
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
fn models_describes_parameters_and_metrics() {
    let out = coordsim(&["models", "single_writer_queue"]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("models_single_writer_queue", stdout(&out));
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

/// `reports/` must be what `coordsim report` generates from `configs/` now.
#[test]
fn reports_are_not_stale() {
    let tmp = tempfile::tempdir().unwrap();
    let out = coordsim(&["report", "--out", tmp.path().to_str().unwrap(), "--quiet"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let fresh = list_files(tmp.path());
    let committed = list_files(&root().join("reports"));
    // Only the difference: files report would add, files it would remove, files that changed.
    let mut diff: Vec<String> = Vec::new();
    diff.extend(
        fresh
            .iter()
            .filter(|f| !committed.contains(f))
            .map(|f| format!("missing: reports/{f}")),
    );
    diff.extend(
        committed
            .iter()
            .filter(|f| !fresh.contains(f))
            .map(|f| format!("not written by report: reports/{f}")),
    );
    diff.extend(
        fresh
            .iter()
            .filter(|f| committed.contains(f))
            .filter(|f| read(tmp.path().join(f)) != read(root().join("reports").join(f)))
            .map(|f| format!("stale: reports/{f}")),
    );
    assert!(
        diff.is_empty(),
        "reports/ differs from what `coordsim report` writes in {} file(s) (`cargo run --release -- report` rewrites them and removes the rest):\n{}",
        diff.len(),
        diff.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}

fn list_files(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(
                    path.strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    files.sort();
    files
}

/// The config loader as a library: sweeps, filters and positions, on the built-in models.
mod config_loading {
    use coordsim::config::Config;
    use coordsim::source::ConfigError;
    use coordsim_model::Value;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        super::library_config(&coordsim_models::registry(), "t.toml", text)
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

/// No output file repeats a column name (a swept parameter that is also an entity column is
/// written once: the model's column).
#[test]
fn no_committed_csv_repeats_a_column() {
    let reports = root().join("reports");
    let mut checked = 0;
    for file in list_files(&reports) {
        if !file.ends_with(".csv") {
            continue;
        }
        let text = String::from_utf8(read(reports.join(&file))).unwrap();
        let header: Vec<&str> = text.lines().next().unwrap_or("").split(',').collect();
        for (i, name) in header.iter().enumerate() {
            assert!(!header[..i].contains(name), "{file}: `{name}` twice");
        }
        checked += 1;
    }
    // 27 configs write results.csv; the check must have looked at them.
    assert!(checked >= 27, "only {checked} CSV files found");
    // The swept `hold_ms` and the per-applier `hold_ms` column: once, the applier's.
    let entities = String::from_utf8(read(reports.join("lock-hold-sweep/entities.csv"))).unwrap();
    assert!(
        entities.starts_with("point,replication,seed,entity,start_ms,hold_ms,"),
        "{}",
        entities.lines().next().unwrap_or("")
    );
}

/// Shards of `config` (K/N for each k) under `tmp`, returning their folders.
fn shard_dirs(tmp: &Path, config: &str, stem: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|k| {
            let out = tmp.join(format!("s{k}"));
            let o = coordsim(&[
                "run",
                config,
                "--out",
                out.to_str().unwrap(),
                "--shard",
                &format!("{k}/{n}"),
                "-q",
            ]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            out.join(stem).to_string_lossy().into_owned()
        })
        .collect()
}

fn merge_into(out: &Path, shards: &[String]) -> Output {
    let out = out.to_string_lossy().into_owned();
    let mut args = vec!["merge", out.as_str()];
    args.extend(shards.iter().map(String::as_str));
    coordsim(&args)
}

#[test]
fn a_tampered_shard_is_refused_with_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "random.toml", RANDOM_SWEEP);
    let shards = shard_dirs(tmp.path(), &config, "random", 2);
    let results = Path::new(&shards[1]).join("results.csv");
    let original = String::from_utf8(read(&results)).unwrap();
    // Each tampering (header or cells) and the message that must name it.
    let drop_last_column = |text: &str| -> String {
        text.lines()
            .map(|l| l.rsplit_once(',').map_or(l, |(a, _)| a).to_string() + "\n")
            .collect()
    };
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "a column missing",
            drop_last_column(&original),
            "missing measured_requests",
        ),
        (
            "a column renamed",
            original.replacen("mean_wait_ms", "mean_wait", 1),
            "unexpected mean_wait",
        ),
        (
            "a number that is not one",
            {
                let mut lines: Vec<String> = original.lines().map(String::from).collect();
                lines[1] = lines[1].replacen(",0,", ",x,", 1);
                lines.join("\n") + "\n"
            },
            "line 2",
        ),
        (
            "a swept value the config does not have",
            {
                let mut lines: Vec<String> = original.lines().map(String::from).collect();
                // point,clients,service_ms,…: clients of this point's row becomes 99.
                let mut fields: Vec<&str> = lines[1].split(',').collect();
                fields[1] = "99";
                lines[1] = fields.join(",");
                lines.join("\n") + "\n"
            },
            "`clients` is 99",
        ),
        (
            "a row cut short",
            original.replacen('\n', "\n1,2\n", 1),
            "line",
        ),
    ];
    for (what, text, needle) in cases {
        std::fs::write(&results, &text).unwrap();
        let o = merge_into(&tmp.path().join("merged"), &shards);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert!(err.starts_with("error:"), "{what}: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert!(err.contains(needle), "{what}: `{needle}` not in {err}");
    }
    // The same shard twice is refused too.
    std::fs::write(&results, &original).unwrap();
    let twice = vec![shards[0].clone(), shards[0].clone(), shards[1].clone()];
    let o = merge_into(&tmp.path().join("merged"), &twice);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("pass every shard once"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn shards_of_a_timeline_config_merge_into_the_unsharded_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let config = root().join("configs/lock-queue-vs-poll.toml");
    let config = config.to_str().unwrap();
    let whole = tmp.path().join("whole");
    let o = coordsim(&["run", config, "--out", whole.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let shards = shard_dirs(tmp.path(), config, "lock-queue-vs-poll", 3);
    let merged = tmp.path().join("merged");
    let o = merge_into(&merged, &shards);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let whole = whole.join("lock-queue-vs-poll");
    let files = list_files(&whole);
    // Timelines are drawn from the lanes the shards kept; entity rows and charts all match.
    assert!(
        files.iter().any(|f| f.starts_with("timeline-")),
        "{files:?}"
    );
    for file in files {
        assert!(
            read(whole.join(&file)) == read(merged.join(&file)),
            "{file} differs after merge"
        );
    }
}

/// The front end as a library over a registry of a stranger's model: parse, run, check.
mod custom_models {
    use coordsim::config::Config;
    use coordsim_model::{
        ChartKind, DefaultChart, Model, ModelError, NoEntity, Output, ParamError, Registry,
        RunContext, Valid, columns, params,
    };

    params! {
        /// Parameters of `doubler`.
        pub struct Params {
            /// the input
            x: u64 = 2,
        }
    }
    columns! {
        /// Metrics of `doubler`.
        pub struct Metrics {
            /// 2 × x, computed by an event on the engine
            doubled: u64,
        }
    }

    /// Doubles `x` in one event, with default charts given at construction.
    struct Doubler(Vec<DefaultChart>);

    impl Model for Doubler {
        type Params = Params;
        type Metrics = Metrics;
        type Entity = NoEntity;
        fn name(&self) -> &'static str {
            "doubler"
        }
        fn summary(&self) -> &'static str {
            "doubles x"
        }
        fn charts(&self) -> Vec<DefaultChart> {
            self.0.clone()
        }
        fn validate(&self, p: &Params) -> Result<(), ParamError> {
            if p.x > 1000 {
                return Err(ParamError::new("x", "must be at most 1000"));
            }
            Ok(())
        }
        fn run(
            &self,
            p: &Valid<Params>,
            ctx: &RunContext,
        ) -> Result<Output<Metrics, NoEntity>, ModelError> {
            struct Double(u64);
            impl sim_core::Handler<u64> for Double {
                fn handle(
                    &mut self,
                    x: u64,
                    _: &mut sim_core::EventQueue<u64>,
                ) -> Result<(), sim_core::SimError> {
                    self.0 = 2 * x;
                    Ok(())
                }
            }
            let mut queue = ctx.queue(1);
            queue.schedule_at(0, 0, p.x);
            let mut sim = Double(0);
            sim_core::run(&mut queue, &mut sim)?;
            Ok(Output::new(Metrics { doubled: sim.0 }))
        }
    }

    fn parse(registry: &Registry, text: &str) -> Result<Config, coordsim::source::ConfigError> {
        super::library_config(registry, "d.toml", text)
    }

    #[test]
    fn a_model_from_outside_runs_sweeps_and_checks_its_claims() {
        let chart = DefaultChart::new("doubled", ChartKind::Line, "x", &["doubled"]);
        let registry = coordsim_models::registry().with(Doubler(vec![chart]));
        // x = 1, 5, 9: doubled = 2, 10, 18, so "2 * x" holds at every point and 10 at x = 5.
        let config = parse(
            &registry,
            "model = \"doubler\"\n[sweep]\nx = { from = 1, to = 9, step = 4 }\n[[claim]]\nmetric = \"doubled\"\nexpect = \"2 * x\"\n[[claim]]\nwhere = { x = 5 }\nmetric = \"doubled\"\nexpect = 11\n",
        )
        .unwrap();
        let results = super::library_run(&config);
        assert_eq!(results.results.rows.len(), 3);
        let verdicts = coordsim::check::evaluate(&config, &results).unwrap();
        assert!(verdicts[0].pass, "{}", verdicts[0].line);
        assert!(!verdicts[1].pass, "{}", verdicts[1].line);
        assert!(
            verdicts[1].line.contains("doubled = 10"),
            "{}",
            verdicts[1].line
        );
        // Validation happens once, at load, and points at the bad value.
        let e = parse(&registry, "model = \"doubler\"\n[params]\nx = 5000\n").unwrap_err();
        assert_eq!(e.location, "d.toml:3:5");
    }

    #[test]
    fn a_bad_default_chart_is_a_load_error_naming_it_never_an_empty_chart() {
        let cases = [
            (
                DefaultChart::new("typo", ChartKind::Line, "x", &["doubeld"]),
                "unknown metric `doubeld`",
            ),
            (
                DefaultChart::new("no-x", ChartKind::Bar, "", &["doubled"]),
                "needs `x`",
            ),
            (
                DefaultChart::timeline("lanes"),
                "doubler records no timeline",
            ),
            (
                DefaultChart::new("bad name", ChartKind::Line, "x", &["doubled"]),
                "a chart `name` is a file name",
            ),
            (
                DefaultChart::new("m", ChartKind::Line, "x", &["doubled"]).mark_x("nope"),
                "unknown metric `nope`",
            ),
        ];
        for (chart, needle) in cases {
            let name = chart.name;
            let registry = Registry::new().with(Doubler(vec![chart]));
            let e = parse(&registry, "model = \"doubler\"\n").unwrap_err();
            assert_eq!(e.location, "d.toml:1:9", "{name}");
            assert!(
                e.message
                    .contains(&format!("the default chart `{name}` of doubler")),
                "{}",
                e.message
            );
            assert!(e.message.contains(needle), "{name}: {}", e.message);
        }
    }

    #[test]
    fn every_built_in_default_chart_passes_the_checks() {
        let registry = coordsim_models::registry();
        for model in registry.models() {
            let config = parse(&registry, &format!("model = \"{}\"\n", model.name()))
                .unwrap_or_else(|e| panic!("{}: {e}", model.name()));
            assert_eq!(
                config.charts.len(),
                model.charts().len(),
                "{}",
                model.name()
            );
        }
    }
}

/// `docs/models.md` is what `coordsim models --markdown` generates from the declarations.
#[test]
fn the_model_reference_is_not_stale() {
    let out = coordsim(&["models", "--markdown"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fresh = stdout(&out);
    let committed = String::from_utf8(read(root().join("docs/models.md"))).unwrap();
    if fresh != committed {
        let (line, (want, got)) = fresh
            .lines()
            .chain(std::iter::repeat(""))
            .zip(committed.lines().chain(std::iter::repeat("")))
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .expect("the texts differ somewhere");
        panic!(
            "docs/models.md is stale at line {}:\n- {got}\n+ {want}\nfix: cargo run -- models --markdown > docs/models.md",
            line + 1
        );
    }
    // Every model is in it, with its parameters.
    for name in ["single_writer_queue", "lock_queue", "idempotency"] {
        assert!(committed.contains(&format!("\n## {name}\n")), "{name}");
    }
}

/// Every relative link in the README and the docs points at a file of the repository (a
/// user has the clone, nothing beside it).
#[test]
fn documentation_links_resolve_in_a_clone() {
    let mut pages = vec![
        root().join("README.md"),
        root().join("examples/custom-model/README.md"),
    ];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    let mut links = 0;
    for page in pages {
        let text = String::from_utf8(read(&page)).unwrap();
        assert!(
            !text.contains("../shared"),
            "{}: names ../shared",
            page.display()
        );
        // Links in fenced code are examples, not links.
        let mut fenced = false;
        let text: String = text
            .lines()
            .filter(|l| {
                if l.trim_start().starts_with("```") {
                    fenced = !fenced;
                    return false;
                }
                !fenced
            })
            .map(|l| format!("{l}\n"))
            .collect();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let target = &rest[..rest.find(')').unwrap_or(rest.len())];
            let target = target.split('#').next().unwrap_or("");
            if target.is_empty() || target.contains("://") {
                continue;
            }
            let path = page.parent().unwrap().join(target);
            assert!(
                path.exists(),
                "{}: link to {target} does not resolve",
                page.display()
            );
            links += 1;
        }
    }
    assert!(links >= 5, "only {links} links checked");
}

/// The front end names no model: no model's name, and none of its parameter, column or
/// timeline-kind identifiers (the names with a `_`, which no English word has), appears in
/// `src/`.
#[test]
fn the_front_end_names_no_model() {
    let registry = coordsim_models::registry();
    let mut names: Vec<&str> = Vec::new();
    for m in registry.models() {
        names.push(m.name());
        names.extend(m.params().iter().map(|p| p.key));
        names.extend(m.metrics().iter().map(|c| c.name));
        names.extend(m.entity_columns().iter().map(|c| c.name));
        if let Some(style) = m.timeline() {
            names.extend(style.spans.iter().map(|s| s.name));
            names.extend(style.marks.iter().map(|k| k.name));
        }
    }
    names.retain(|n| n.contains('_'));
    assert!(names.len() > 100, "{names:?}");
    let word_at = |text: &str, i: usize, len: usize| {
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(text[..i].chars().next_back()) && !ident(text[i + len..].chars().next())
    };
    for file in list_files(&root().join("src")) {
        let text = String::from_utf8(read(root().join("src").join(&file))).unwrap();
        for name in &names {
            let found = text
                .match_indices(name)
                .any(|(i, _)| word_at(&text, i, name.len()));
            assert!(!found, "src/{file} names `{name}`, a model's");
        }
    }
}

/// Leaving entity rows out (`entities = false`) changes no metric of any model: the models
/// count what their metrics need as they go, and only skip building the rows.
#[test]
fn every_model_reports_the_same_metrics_without_its_entity_rows() {
    use coordsim_model::RunContext;
    let registry = coordsim_models::registry();
    for model in registry.models() {
        let values: Vec<_> = model.params().iter().map(|p| (p.default)()).collect();
        let plan = model.prepare(&values).unwrap();
        let ctx = RunContext::new(3, Default::default());
        let with = plan.run(&ctx).unwrap();
        let without = plan.run(&ctx.with_entities(false)).unwrap();
        assert_eq!(with.metrics, without.metrics, "{}", model.name());
        assert!(without.entities.is_empty(), "{}", model.name());
        assert_eq!(
            with.entities.is_empty(),
            model.entity_columns().is_empty(),
            "{}",
            model.name()
        );
    }
}

/// `stats = "hdr"`: the same run, mean and max exact, percentiles within 0.1% (never below).
#[test]
fn hdr_statistics_bound_the_exact_percentiles_of_the_same_run() {
    let registry = coordsim_models::registry();
    let text = |stats: &str| {
        format!(
            "model = \"single_writer_queue\"\nstats = \"{stats}\"\n[params]\nclients = 4\nrequests_per_client = 25000\narrivals = \"poisson\"\nservice = \"exponential\"\n[sweep]\nservice_ms = [4, 8]\n"
        )
    };
    let run = |stats: &str| {
        let config = library_config(&registry, "h.toml", &text(stats)).unwrap();
        library_run(&config).results
    };
    let (exact, hdr) = (run("exact"), run("hdr"));
    let value = |t: &coordsim::results::Table, row: usize, name: &str| {
        t.rows[row][t.column(name).unwrap()].as_f64().unwrap()
    };
    for row in 0..2 {
        for exact_metric in ["mean_wait_ms", "max_wait_ms", "requests", "max_queue_len"] {
            assert_eq!(
                value(&exact, row, exact_metric),
                value(&hdr, row, exact_metric)
            );
        }
        for p in ["p50_wait_ms", "p95_wait_ms", "p99_wait_ms"] {
            let (e, h) = (value(&exact, row, p), value(&hdr, row, p));
            assert!(h >= e && h <= e * 1.001 + 1e-6, "{p}: exact {e}, hdr {h}");
            assert!(
                p == "p50_wait_ms" || e > 0.0,
                "{p} is 0: the check would be empty"
            );
        }
    }
    // A misspelt mode is a positioned error naming the valid ones.
    let e = library_config(&registry, "h.toml", &text("fast")).unwrap_err();
    assert_eq!(e.location, "h.toml:2:9");
    assert!(e.message.contains("\"hdr\""), "{}", e.message);
}

/// A 0.1-step sweep shows 0.3 everywhere: the CSV, the table and `where`.
#[test]
fn a_decimal_step_sweep_gives_the_decimals_written() {
    let registry = coordsim_models::registry();
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

/// The claim language: bounds, statistics over replications, the interval of the mean, and
/// honest failures.
#[test]
fn claims_bound_aggregate_and_fail_with_a_reason() {
    let registry = coordsim_models::registry();
    // An M/D/1 queue at ρ = 0.5 (one client, Poisson gaps of 12 ms, 6 ms of service), 10
    // replications: Pollaczek–Khinchine's mean wait ρS / 2(1 − ρ) = 3 ms.
    let config = library_config(
        &registry,
        "c.toml",
        r#"model = "single_writer_queue"
replications = 10
[params]
clients = 1
requests_per_client = 20000
interarrival_ms = 12
arrivals = "poisson"
[sweep]
service_ms = [6]
[[claim]]
name = "P-K inside the interval"
metric = "mean_wait_ms"
stat = "mean"
within_ci = true
expect = "utilization * service_ms / (2 * (1 - utilization))"
[[claim]]
name = "no run waits 5 ms on average"
metric = "mean_wait_ms"
at_most = 5
[[claim]]
name = "every run waits"
metric = "mean_wait_ms"
stat = "min"
at_least = 1
[[claim]]
name = "the largest wait beats a bound it cannot"
metric = "max_wait_ms"
stat = "max"
at_most = "sqrt(service_ms) - 3"
[[claim]]
name = "a division by zero"
metric = "lost_updates"
expect = "1 / lost_updates"
"#,
    )
    .unwrap();
    let results = library_run(&config);
    let verdicts = coordsim::check::evaluate(&config, &results).unwrap();
    let lines: Vec<&str> = verdicts.iter().map(|v| v.line.as_str()).collect();
    assert!(verdicts[0].pass, "{}", lines[0]);
    assert!(lines[0].contains("mean of mean_wait_ms = "), "{}", lines[0]);
    assert!(lines[0].contains("inside the 95% CI ["), "{}", lines[0]);
    assert!(
        lines[0].ends_with("at service_ms = 6 (10 replications)"),
        "{}",
        lines[0]
    );
    assert!(
        verdicts[1].pass && lines[1].contains("(at most 5)"),
        "{}",
        lines[1]
    );
    assert!(
        verdicts[2].pass && lines[2].contains("min of mean_wait_ms"),
        "{}",
        lines[2]
    );
    // sqrt(6) − 3 < 0: no wait is that short; the worst row is named by its values.
    assert!(!verdicts[3].pass, "{}", lines[3]);
    assert!(lines[3].contains("max of max_wait_ms"), "{}", lines[3]);
    // 1 / 0: a FAIL that says why, not an `inf` that looks like a number.
    assert!(!verdicts[4].pass, "{}", lines[4]);
    assert!(
        lines[4].ends_with("the expected value is not finite (a division by zero?)"),
        "{}",
        lines[4]
    );
    assert!(
        lines[4].contains("at service_ms = 6, replication "),
        "{}",
        lines[4]
    );
}

/// `check --ties` names the lesson figures that rest on an order of simultaneous events, and
/// keeps the verdicts (and exit code) of each config's own order.
#[test]
fn check_ties_names_the_tie_sensitive_figures() {
    let out = coordsim(&[
        "check",
        "--ties",
        "configs/lessons/shared-store.toml",
        "configs/lessons/edge-placement.toml",
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    // The lesson's 45 needs reads_first; the default and writes_first give 50.
    assert!(
        text.contains("counter_final = 45 (its own order), 50 (tie_order = \"program_order\"), 50 (tie_order = \"writes_first\")"),
        "{text}"
    );
    // No placement figure depends on ties: every TIE-SENSITIVE line is the shared store's,
    // and each starts with its claim's name.
    let sensitive: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("TIE-SENSITIVE "))
        .collect();
    assert_eq!(sensitive.len(), 4, "{text}");
    assert!(
        sensitive
            .iter()
            .all(|l| l.ends_with("[configs/lessons/shared-store.toml]")),
        "{text}"
    );
    assert!(
        text.contains("TIE-SENSITIVE sayacın son değeri 45: counter_final = 45 (its own order)"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    assert!(lines[n - 2].ends_with("claims are tie-sensitive"), "{text}");
    // Of the shared store's claims, the four on the final value (counter_final, lost_updates,
    // lost_pct, overwritten_writes) follow the tie rule; expected (400) and op_ms (85) cannot.
    assert!(lines[n - 2].starts_with("4 of "), "{text}");
    assert!(lines[n - 1].ends_with(" passed, 0 failed"), "{text}");
}

/// A var sweeps like a parameter, sets derived parameters at every point, and is a column
/// after the swept parameters.
#[test]
fn vars_derive_parameters_at_every_point() {
    let registry = coordsim_models::registry();
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

/// A reader that goes away (`coordsim report 2>&1 | head -1`) ends the command quietly with
/// exit 0, after every output it was writing is complete.
#[test]
fn a_closed_pipe_is_not_an_error_and_stops_no_output() {
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let configs = tmp.path().join("configs");
    std::fs::create_dir(&configs).unwrap();
    for name in ["single-writer-queue.toml", "lock-polled.toml"] {
        std::fs::copy(
            root().join("configs/lessons").join(name),
            configs.join(name),
        )
        .unwrap();
    }
    let out = tmp.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_coordsim"))
        .current_dir(root())
        .args([
            "report",
            "--configs",
            configs.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close both pipes before the first line is written.
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    // Every config's outputs and the index were written all the same, as `report` commits them.
    for dir in ["single-writer-queue", "lock-polled"] {
        let written = list_files(&out.join(dir));
        assert_eq!(
            written,
            list_files(&root().join("reports").join(dir)),
            "{dir}"
        );
        for file in written {
            assert!(
                read(out.join(dir).join(&file))
                    == read(root().join("reports").join(dir).join(&file)),
                "{dir}/{file}"
            );
        }
    }
    assert!(out.join("README.md").exists());
}

#[test]
fn every_config_labels_the_names_its_charts_show() {
    // No shipped chart shows a raw column or parameter name (`mean_wait_ms`) in an axis, a
    // legend or a title; the English configs label theirs in English.
    let registry = coordsim_models::registry();
    let mut missing = Vec::new();
    for path in coordsim::commands::find_configs(&root().join("configs")).unwrap() {
        let text = String::from_utf8(read(&path)).unwrap();
        let config = library_config(&registry, &path.display().to_string(), &text).unwrap();
        let names = coordsim::export::unlabelled_in_charts(&config);
        if !names.is_empty() {
            missing.push(format!("{}: {}", path.display(), names.join(", ")));
        }
    }
    assert!(
        missing.is_empty(),
        "unlabelled in charts:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_turkish_lesson_config_labels_every_name_a_reader_sees() {
    // A lesson in Turkish shows no raw column or parameter name: every config under
    // configs/lessons/ is Turkish and labels what its table and charts show.
    let registry = coordsim_models::registry();
    let mut missing = Vec::new();
    for path in coordsim::commands::find_configs(&root().join("configs/lessons")).unwrap() {
        let text = String::from_utf8(read(&path)).unwrap();
        let config = library_config(&registry, &path.display().to_string(), &text).unwrap();
        assert_eq!(
            config.locale,
            coordsim::locale::Locale::Tr,
            "{}",
            path.display()
        );
        let names = coordsim::export::unlabelled(&config);
        if !names.is_empty() {
            missing.push(format!(
                "{}: {}",
                path.file_name().unwrap().to_string_lossy(),
                names.join(", ")
            ));
        }
    }
    assert!(missing.is_empty(), "unlabelled:\n{}", missing.join("\n"));
}

/// Every chart file a config draws, as SVG text with the layout it got.
fn chart_svgs(
    config: &coordsim::config::Config,
) -> Vec<(String, String, coordsim::export::chart::Placed)> {
    let results = library_run(config);
    let summary = (config.replications > 1).then(|| coordsim::summary::summarize(config, &results));
    let run = coordsim::export::Run {
        config,
        results: &results,
        summary: summary.as_ref(),
        seed: config.seed,
    };
    coordsim::export::chart::prepare(&run)
        .into_iter()
        .map(|chart| {
            let (svg, placed) = chart.svg().unwrap();
            (chart.name, svg, placed)
        })
        .collect()
}

#[test]
fn every_chart_kind_renders_the_same_svg_in_both_locales() {
    // One small config per chart kind; each drawn in English and in Turkish (decimal comma,
    // Turkish built-in words, labelled category values). A change to any chart's look shows
    // here as a snapshot diff.
    let registry = coordsim_models::registry();
    let kinds = [
        (
            "line",
            r#"model = "single_writer_queue"
title = "Queue"
replications = 3
[params]
requests_per_client = 40
arrivals = "poisson"
interarrival_ms = 30
[sweep]
clients = [1, 2]
[[chart]]
name = "line"
x = "clients"
y = ["mean_wait_ms"]
y_expr = { theory = "clients * 0.5" }
mark_y = 2.5
"#,
        ),
        (
            "bar",
            r#"model = "idempotency"
title = "Forms"
[params]
deliveries = [1, 1, 2]
[sweep]
form = ["assign", "consumer"]
[[chart]]
name = "bar"
kind = "bar"
x = "form"
y = ["effects", "duplicate_effects"]
"#,
        ),
        (
            "cdf",
            r#"model = "single_writer_queue"
title = "Waits"
[params]
clients = 1
requests_per_client = 200
arrivals = "poisson"
service = "exponential"
interarrival_ms = 10
service_ms = 5
[[chart]]
name = "cdf"
kind = "cdf"
y = "wait_ms"
"#,
        ),
        (
            "histogram",
            r#"model = "single_writer_queue"
title = "Waits"
[params]
clients = 1
requests_per_client = 200
arrivals = "poisson"
service = "exponential"
interarrival_ms = 10
service_ms = 5
[[chart]]
name = "histogram"
kind = "histogram"
y = "wait_ms"
"#,
        ),
        (
            "runs_cdf",
            r#"model = "single_writer_queue"
title = "Runs"
replications = 5
[params]
clients = 2
requests_per_client = 30
arrivals = "poisson"
interarrival_ms = 12.5
[[chart]]
name = "runs_cdf"
kind = "runs_cdf"
y = "mean_wait_ms"
"#,
        ),
        (
            "timeline",
            r#"model = "lock_queue"
title = "Lock"
[params]
appliers = 2
hold_ms = 100
[[chart]]
name = "timeline"
kind = "timeline"
"#,
        ),
    ];
    for (kind, text) in kinds {
        for locale in ["en", "tr"] {
            // Turkish labels for what each model's chart shows (a label must match something).
            let labels = match (locale, kind) {
                ("tr", "bar") => "\n[labels]\nassign = \"atama\"\nconsumer = \"tüketici\"\n",
                ("tr", "timeline") => "",
                ("tr", _) => "\n[labels]\nmean_wait_ms = \"ort. bekleme (ms)\"\n",
                _ => "",
            };
            let text = format!("locale = \"{locale}\"\n{text}{labels}");
            let config = library_config(&registry, &format!("{kind}.toml"), &text)
                .unwrap_or_else(|e| panic!("{kind}: {e}"));
            let svgs = chart_svgs(&config);
            assert_eq!(svgs.len(), 1, "{kind}");
            let (_, svg, _) = &svgs[0];
            assert!(
                svg.contains("font-family=\"DejaVu Sans,"),
                "{kind}: DejaVu Sans first"
            );
            if locale == "tr" {
                assert!(
                    !svg.contains("virtual time") && !svg.contains("fraction of"),
                    "{kind}"
                );
            }
            insta::assert_snapshot!(format!("chart_{kind}_{locale}"), svg);
        }
    }
}

#[test]
fn a_best_legend_covers_no_data_on_any_shipped_chart() {
    // Every shipped chart drawn without its legend box, in the box's place: the pixels there
    // must be background or grid (white and light greys), never data (a coloured or dark
    // pixel of a line, a marker, a bar). This looks at the drawn image, not at the layout's
    // own idea of where the data is.
    let registry = coordsim_models::registry();
    let mut checked = 0;
    for path in coordsim::commands::find_configs(&root().join("configs")).unwrap() {
        let text = String::from_utf8(read(&path)).unwrap();
        let config = library_config(&registry, &path.display().to_string(), &text).unwrap();
        let results = library_run(&config);
        let summary =
            (config.replications > 1).then(|| coordsim::summary::summarize(&config, &results));
        let run = coordsim::export::Run {
            config: &config,
            results: &results,
            summary: summary.as_ref(),
            seed: config.seed,
        };
        for mut chart in coordsim::export::chart::prepare(&run) {
            chart.look_mut().legend_box = false;
            let (rgb, (w, _), placed) = chart.rgb().unwrap();
            let Some(r) = placed.legend else { continue };
            for y in r.y0..=r.y1 {
                for x in r.x0..=r.x1 {
                    let i = (y as usize * w as usize + x as usize) * 3;
                    let (red, green, blue) = (rgb[i], rgb[i + 1], rgb[i + 2]);
                    let spread = red.max(green).max(blue) - red.min(green).min(blue);
                    assert!(
                        spread < 40 && red.min(green).min(blue) > 150,
                        "{}: {}: the legend at {r:?} covers a data pixel ({red}, {green}, {blue}) at ({x}, {y})",
                        path.display(),
                        chart.name
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} legends inside a plot");
}

#[test]
fn table_md_has_the_columns_digits_alignment_and_locale_the_config_asks_for() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "tab.toml",
        r#"model = "single_writer_queue"
title = "Tablo"
locale = "tr"
replications = 3
[params]
clients = 2
requests_per_client = 50
arrivals = "poisson"
[sweep]
interarrival_ms = [20, 10]
[table]
columns = ["clients", "arrivals", "capacity_per_s", "mean_wait_ms", "requests"]
digits = { default = 1, mean_wait_ms = 2 }
[labels]
poisson = "Poisson"
clients = "istemci"
"#,
    );
    let out = coordsim(&[
        "run",
        &config,
        "--out",
        dir.path().to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = String::from_utf8(read(dir.path().join("tab/table.md"))).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    // The caption in Turkish, with the seed.
    assert!(
        lines[0].contains("tohum 0") && lines[0].contains("3 tekrar"),
        "{table}"
    );
    // Columns in the order asked, labels applied; the text column left-aligned.
    assert_eq!(
        lines[2],
        "| istemci | arrivals | capacity_per_s | mean_wait_ms | requests |"
    );
    assert_eq!(lines[3], "|---:|:---|---:|---:|---:|");
    for row in &lines[4..6] {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        // A fixed count parameter and a count metric stay whole (2 clients × 50 = 100).
        assert_eq!(cells[0], "2");
        assert_eq!(cells[4], "100");
        // A labelled text value.
        assert_eq!(cells[1], "Poisson");
        // 1000 / 6 ms = 166.67 per second at one decimal, decimal comma; the same in every
        // replication, so no "± 0".
        assert_eq!(cells[2], "166,7");
        // A mean with its half-width, two decimals each.
        let (mean, half) = cells[3].split_once(" ± ").expect("mean ± half-width");
        for part in [mean, half] {
            let (_, decimals) = part.split_once(',').expect("decimal comma");
            assert_eq!(decimals.len(), 2, "{part}");
        }
    }
}

#[test]
fn an_entity_table_lists_entity_rows() {
    let dir = tempfile::tempdir().unwrap();
    // Two appliers on the polled lock: b polls every 25 ms while a holds it for 250 ms, so
    // b fails 250 / 25 = 10 rounds and waits 250 ms.
    let config = write_config(
        dir.path(),
        "ent.toml",
        r#"model = "lock_queue"
[params]
appliers = 2
hold_ms = 250
poll_ms = 25
[table]
entity = true
columns = ["entity", "rounds", "wait_ms"]
"#,
    );
    let out = coordsim(&[
        "run",
        &config,
        "--out",
        dir.path().to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = String::from_utf8(read(dir.path().join("ent/table.md"))).unwrap();
    let body: Vec<&str> = table.lines().skip(2).collect();
    assert_eq!(
        body,
        [
            "| entity | rounds | wait_ms |",
            "|:---|---:|---:|",
            "| a | 0 | 0 |",
            "| b | 10 | 250 |"
        ],
        "{table}"
    );
}

#[test]
fn the_config_guide_lists_every_built_in_word_in_both_locales() {
    use coordsim::locale::{Locale, Text};
    let guide = String::from_utf8(read(root().join("docs/config.md"))).unwrap();
    for t in Text::ALL {
        let row = format!(
            "| `{}` | {} | {} |",
            t.key(),
            t.in_locale(Locale::En),
            t.in_locale(Locale::Tr)
        );
        assert!(guide.contains(&row), "docs/config.md lacks {row}");
    }
}

/// A lesson folder: `q.toml` (a queue whose service time is `service_ms`, swept over two
/// client counts) and `lesson.md` with `text`.
fn lesson_dir(service_ms: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_config(
        dir.path(),
        "q.toml",
        &format!(
            "model = \"single_writer_queue\"\nlocale = \"tr\"\n[params]\nservice_ms = {service_ms}\nrequests_per_client = 10\ninterarrival_ms = 1000\n[sweep]\nclients = [1, 2]\n[labels]\nclients = \"istemci\"\n"
        ),
    );
    std::fs::write(dir.path().join("lesson.md"), text).unwrap();
    dir
}

fn lesson(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["lesson"];
    all.extend_from_slice(args);
    coordsim_in(dir, &all)
}

const HEAD: &str = "<!-- coordsim use q = \"q.toml\" -->\n<!-- coordsim locale = \"tr\" -->\n";

#[test]
fn the_committed_lessons_pass_and_leave_nothing_unchecked() {
    let files: Vec<String> = coordsim::commands::find_files(&root().join("lessons"), "md")
        .unwrap()
        .iter()
        .map(|p| p.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert!(files.len() >= 5, "{files:?}");
    let mut args = vec!["lesson", "check"];
    args.extend(files.iter().map(String::as_str));
    let out = coordsim(&args);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    let last = text.lines().last().unwrap();
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
    let passed: usize = last.split(' ').next().unwrap().parse().unwrap();
    assert!(passed >= 80, "{passed} regions");
    args.push("--lint");
    let lint = stdout(&coordsim(&args));
    assert_eq!(lint.lines().last(), Some("0 unchecked number(s)"), "{lint}");
    // The Turkish pages show no raw column name in a table header.
    let registry = coordsim_models::registry();
    let raw: Vec<&str> = registry
        .names()
        .iter()
        .filter_map(|n| registry.find(n))
        .flat_map(|m| m.metrics().iter().chain(m.entity_columns()).map(|c| c.name))
        .collect();
    for f in files.iter().filter(|f| !f.contains("/en/")) {
        let text = String::from_utf8(read(root().join(f))).unwrap();
        for line in text
            .lines()
            .filter(|l| l.starts_with("| ") && !l.contains("---"))
        {
            for cell in line.split('|').map(str::trim) {
                assert!(
                    !raw.contains(&cell) || cell.is_empty(),
                    "{f}: `{cell}` in {line}"
                );
            }
        }
    }
}

#[test]
fn a_drifted_value_fails_at_its_place_and_fill_puts_it_back() {
    // service 6 ms, one client per 1000 ms: nobody waits; capacity 1000 / 6 = 166.67/s.
    let text = format!(
        "{HEAD}Tavan <!-- coordsim q.capacity_per_s clients=1 -->166,7<!-- /coordsim --> istek/sn, hizmet <!-- coordsim q.service_ms clients=2 -->7 ms<!-- /coordsim -->.\n"
    );
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    let printed = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{printed}{}", stderr(&out));
    // Line 3: "Tavan " (6) + the first marker (44) + "166,7" (5) + the close (18) +
    // " istek/sn, hizmet " (18) + the second marker (40) = 131 characters before "7 ms".
    assert_eq!(
        printed.lines().next().unwrap(),
        "lesson.md:3:132: q.service_ms clients=2: written 7, run 6 (the written digits allow ± 0.5)"
    );
    assert_eq!(printed.lines().last(), Some("1 passed, 1 failed"));
    let out = lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let filled = String::from_utf8(read(dir.path().join("lesson.md"))).unwrap();
    // The unit stays; the number is the run's at the written precision.
    assert!(filled.contains("-->6 ms<!--"), "{filled}");
    assert!(filled.contains("-->166,7<!--"), "{filled}");
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(stdout(&out).lines().last(), Some("2 passed, 0 failed"));
    // A second fill changes no byte.
    lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(read(dir.path().join("lesson.md")), filled.as_bytes());
}

#[test]
fn the_written_digits_set_the_precision_end_to_end() {
    // `206,5` holds 206.45 … 206.55: a service time of 206.55 ms passes, 206.56 fails.
    let text =
        format!("{HEAD}<!-- coordsim q.service_ms clients=1 -->206,5 ms<!-- /coordsim -->\n");
    let pass = lesson_dir("206.55", &text);
    let out = lesson(pass.path(), &["check", "lesson.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let fail = lesson_dir("206.56", &text);
    let out = lesson(fail.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("written 206,5, run 206.56"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn units_and_percent_signs_in_both_locales() {
    // The shared store of lesson 003 loses 355 of 400 updates: 88.75%, written `%88,8` in
    // Turkish and `88.8%` in English (one decimal holds 88.75 … 88.85); each operation takes
    // read 20 + compute 1 + write 64 = 85 ms.
    let store = root().join("configs/lessons/shared-store.toml");
    for (locale, pct, ms, drifted, fixed) in [
        ("tr", "%88,8", "85 ms", "%88,9", "%88,8"),
        ("en", "88.8%", "85 ms", "88.9%", "88.8%"),
    ] {
        let text = |p: &str| {
            format!(
                "<!-- coordsim use s = \"{}\" -->\n<!-- coordsim locale = \"{locale}\" -->\n<!-- coordsim s.lost_pct -->{p}<!-- /coordsim --> / <!-- coordsim s.op_ms -->{ms}<!-- /coordsim -->\n",
                store.display()
            )
        };
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lesson.md"), text(pct)).unwrap();
        let out = lesson(dir.path(), &["check", "lesson.md"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{locale}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        std::fs::write(dir.path().join("lesson.md"), text(drifted)).unwrap();
        let out = lesson(dir.path(), &["check", "lesson.md"]);
        assert_eq!(out.status.code(), Some(1), "{locale}");
        let number = drifted.trim_matches('%');
        assert!(
            stdout(&out).contains(&format!("written {number}, run 88.75")),
            "{}",
            stdout(&out)
        );
        lesson(dir.path(), &["fill", "lesson.md"]);
        assert_eq!(
            read(dir.path().join("lesson.md")),
            text(fixed).as_bytes(),
            "{locale}"
        );
    }
}

#[test]
fn a_drifted_table_shows_a_unified_diff() {
    let text = format!(
        "{HEAD}<!-- coordsim table q columns=clients,requests -->\n| istemci | requests |\n|---:|---:|\n| 1 | 10 |\n| 2 | 21 |\n<!-- /coordsim -->\n"
    );
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(1));
    let printed = stdout(&out);
    assert!(
        printed.starts_with("lesson.md:4:1: table q columns=clients,requests: the table drifted"),
        "{printed}"
    );
    assert!(printed.contains("--- written\n+++ run\n"), "{printed}");
    assert!(printed.contains("-| 2 | 21 |\n+| 2 | 20 |\n"), "{printed}");
    lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(
        stdout(&lesson(dir.path(), &["check", "lesson.md"]))
            .lines()
            .last(),
        Some("1 passed, 0 failed")
    );
}

#[test]
fn markers_in_code_fences_are_ignored() {
    let text = format!(
        "{HEAD}```markdown\n<!-- coordsim q.nope -->1<!-- /coordsim -->\n```\n<!-- coordsim q.requests clients=1 -->10<!-- /coordsim -->\n"
    );
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(stdout(&out).lines().last(), Some("1 passed, 0 failed"));
}

#[test]
fn bad_lessons_get_positioned_errors() {
    let cases = [
        (
            "two rows",
            format!("{HEAD}<!-- coordsim q.requests -->10<!-- /coordsim -->\n"),
        ),
        (
            "no row",
            format!("{HEAD}<!-- coordsim q.requests clients=3 -->10<!-- /coordsim -->\n"),
        ),
        (
            "unknown column",
            format!("{HEAD}<!-- coordsim q.nope clients=1 -->10<!-- /coordsim -->\n"),
        ),
        (
            "unknown filter",
            format!("{HEAD}<!-- coordsim q.requests klients=1 -->10<!-- /coordsim -->\n"),
        ),
        (
            "unknown config",
            format!("{HEAD}<!-- coordsim z.requests -->10<!-- /coordsim -->\n"),
        ),
        (
            "missing file",
            "<!-- coordsim use q = \"nope.toml\" -->\n".to_string(),
        ),
        (
            "not a number",
            format!("{HEAD}<!-- coordsim q.requests clients=1 -->on<!-- /coordsim -->\n"),
        ),
        (
            "wrong locale",
            format!("{HEAD}<!-- coordsim q.service_ms clients=1 -->6.5<!-- /coordsim -->\n"),
        ),
        (
            "unclosed",
            format!("{HEAD}<!-- coordsim q.requests clients=1 -->10\n"),
        ),
        (
            "unknown chart",
            format!("{HEAD}<!-- coordsim chart q pie -->\n![x](x.svg)\n<!-- /coordsim -->\n"),
        ),
        (
            "unknown stat",
            format!("{HEAD}<!-- coordsim q.requests stat=median -->10<!-- /coordsim -->\n"),
        ),
    ];
    let mut report = String::new();
    for (what, text) in cases {
        let dir = lesson_dir("6", &text);
        let out = lesson(dir.path(), &["check", "lesson.md"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{what}: {}{err}", stdout(&out));
        assert!(err.starts_with("error: lesson.md:"), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        report.push_str(&format!("{what}: {err}"));
    }
    insta::assert_snapshot!("bad_lesson_errors", report);
}

#[test]
fn lesson_check_reports_for_ci_dashboards() {
    let text = format!(
        "{HEAD}<!-- coordsim q.requests clients=1 -->10<!-- /coordsim --> <!-- coordsim q.requests clients=2 -->21<!-- /coordsim -->\n"
    );
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (doc["passed"].as_u64(), doc["failed"].as_u64()),
        (Some(1), Some(1))
    );
    let failed = &doc["cases"][1];
    assert_eq!(failed["name"], "q.requests clients=2 (line 3)");
    assert_eq!(
        (failed["expected"].as_str(), failed["actual"].as_str()),
        (Some("21"), Some("20"))
    );
    let out = lesson(dir.path(), &["check", "lesson.md", "--format", "junit"]);
    let xml = stdout(&out);
    assert!(
        xml.contains("<testsuite name=\"lesson.md\" tests=\"2\" failures=\"1\">"),
        "{xml}"
    );
    assert!(
        xml.contains("<testcase classname=\"lesson.md\" name=\"q.requests clients=2 (line 3)\">"),
        "{xml}"
    );
    assert!(xml.contains("expected: 21\nactual: 20"), "{xml}");
    // `check` speaks the same formats for claims.
    let out = coordsim(&[
        "check",
        "configs/lessons/shared-store.toml",
        "--format",
        "junit",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("<testsuite name=\"configs/lessons/shared-store.toml\""));
}

#[test]
fn the_lesson_guide_shows_what_check_really_prints() {
    // docs/lessons.md's worked example: change `%88,8` to `%88,9` in lesson 003 and check.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("lessons")).unwrap();
    std::fs::create_dir_all(dir.path().join("configs/lessons")).unwrap();
    for f in std::fs::read_dir(root().join("configs/lessons")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(
            &f,
            dir.path()
                .join("configs/lessons")
                .join(f.file_name().unwrap()),
        )
        .unwrap();
    }
    let name = "lessons/003-dayanikli-durum-nesneleri.md";
    let text = String::from_utf8(read(root().join(name))).unwrap();
    assert_eq!(text.matches("-->%88,8<").count(), 1);
    std::fs::write(
        dir.path().join(name),
        text.replace("-->%88,8<", "-->%88,9<"),
    )
    .unwrap();
    let out = coordsim_in(dir.path(), &["lesson", "check", name]);
    assert_eq!(out.status.code(), Some(1));
    let guide = String::from_utf8(read(root().join("docs/lessons.md"))).unwrap();
    for line in stdout(&out).lines() {
        // Every line printed (the count aside: images are not copied) is in the guide.
        if line.contains(": store.lost_pct:") {
            assert!(guide.contains(line), "docs/lessons.md should show: {line}");
        }
    }
    assert!(stdout(&out).contains(": store.lost_pct:"));
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
    let registry = coordsim_models::registry();
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

#[test]
fn outputs_stay_inside_their_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // A config whose stem is `..` would write into the parent of --out.
    let dots = write_config(dir.path(), "...toml", "model = \"single_writer_queue\"\n");
    let o = coordsim(&["run", &dots, "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("must be a plain name"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists() || list_files(&out).is_empty());
    // A link planted where an output file goes is replaced, never written through.
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "keep me").unwrap();
    std::fs::create_dir_all(out.join("c")).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("c/results.csv")).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("c/table.md")).unwrap();
    let config = write_config(dir.path(), "c.toml", "model = \"single_writer_queue\"\n");
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
    let meta = std::fs::symlink_metadata(out.join("c/results.csv")).unwrap();
    assert!(meta.is_file(), "results.csv is a file of its own now");
    // Nothing hidden is left beside the folder.
    let hidden: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}

#[test]
fn a_killed_run_leaves_the_previous_folder_or_the_new_one_never_a_mix() {
    // A sweep that takes a while in a debug build; killed (SIGKILL) at 20 moments spread
    // over its run, each time over the complete output of the run before. Every time, the
    // folder is complete and equal to a clean run's, and the next run leaves no trace.
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "k.toml",
        "model = \"single_writer_queue\"\nreplications = 4\n[params]\narrivals = \"poisson\"\nservice = \"exponential\"\nrequests_per_client = 20000\n[sweep]\nclients = [1, 2, 3, 4]\n",
    );
    let clean = dir.path().join("clean");
    let o = coordsim(&[
        "run",
        &config,
        "--out",
        clean.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let reference: Vec<(String, Vec<u8>)> = list_files(&clean.join("k"))
        .into_iter()
        .map(|f| {
            let bytes = read(clean.join("k").join(&f));
            (f, bytes)
        })
        .collect();
    let out = dir.path().join("out");
    let same_as_clean = |label: &str| {
        let files = list_files(&out.join("k"));
        let got: Vec<String> = reference.iter().map(|(f, _)| f.clone()).collect();
        assert_eq!(
            files, got,
            "{label}: the folder has other files than a clean run's"
        );
        for (f, bytes) in &reference {
            assert!(
                read(out.join("k").join(f)) == *bytes,
                "{label}: k/{f} differs from a clean run's"
            );
        }
    };
    let o = coordsim(&[
        "run",
        &config,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0));
    // 20 moments, spread (by a fixed Weyl sequence) over the first 1.5 s.
    for i in 0..20u64 {
        let delay_ms = (i * 617 + 101) % 1500;
        let mut child = Command::new(env!("CARGO_BIN_EXE_coordsim"))
            .args([
                "run",
                &config,
                "--out",
                out.to_str().unwrap(),
                "--quiet",
                "--jobs",
                "2",
            ])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        if out.join("k").exists() {
            same_as_clean(&format!("killed after {delay_ms} ms"));
        }
    }
    // The next run puts everything in order and leaves nothing hidden behind.
    let o = coordsim(&[
        "run",
        &config,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    same_as_clean("after a clean run");
    let hidden: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}

#[test]
fn report_removes_the_folders_of_configs_that_are_gone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("configs")).unwrap();
    write_config(
        &dir.path().join("configs"),
        "a.toml",
        "model = \"single_writer_queue\"\n",
    );
    let out = dir.path().join("reports");
    // A folder of a deleted config, and a folder that is not an output (kept).
    std::fs::create_dir_all(out.join("gone")).unwrap();
    std::fs::write(out.join("gone/results.csv"), "x").unwrap();
    std::fs::create_dir_all(out.join("notes")).unwrap();
    let o = coordsim_in(dir.path(), &["report", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!out.join("gone").exists());
    assert!(out.join("notes").exists());
    assert!(out.join("a/results.csv").exists());
}

#[test]
fn shards_from_slurm_kubernetes_and_parallel_merge_to_a_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "s.toml",
        "model = \"single_writer_queue\"\nreplications = 2\n[params]\narrivals = \"poisson\"\nrequests_per_client = 200\n[sweep]\nclients = [1, 2, 3, 4, 5, 6]\n",
    );
    let d = |p: &str| dir.path().join(p).display().to_string();
    let single = coordsim(&["run", &config, "--out", &d("single"), "--quiet"]);
    assert_eq!(single.status.code(), Some(0), "{}", stderr(&single));
    let same = |merged: &str| {
        for f in ["results.csv", "summary.csv", "table.md"] {
            assert!(
                read(dir.path().join(merged).join(f)) == read(dir.path().join("single/s").join(f)),
                "{merged}/{f}"
            );
        }
    };
    let run_env = |out: &str, env: &[(&str, &str)], extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_coordsim"));
        cmd.args(["run", &config, "--out", out, "--quiet", "--shard", "auto"])
            .args(extra);
        cmd.env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("JOB_COMPLETION_INDEX");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let o = cmd.output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    };
    // A Slurm job array --array=0-2 (three tasks).
    for id in ["0", "1", "2"] {
        run_env(
            &d(&format!("slurm/{id}")),
            &[("SLURM_ARRAY_TASK_ID", id), ("SLURM_ARRAY_TASK_COUNT", "3")],
            &[],
        );
    }
    let o = coordsim(&[
        "merge",
        &d("slurm-merged"),
        &d("slurm/0/s"),
        &d("slurm/1/s"),
        &d("slurm/2/s"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    same("slurm-merged");
    // A Kubernetes Indexed Job with completions: 2.
    for index in ["0", "1"] {
        run_env(
            &d(&format!("k8s/{index}")),
            &[("JOB_COMPLETION_INDEX", index)],
            &["--shard-count", "2"],
        );
    }
    let o = coordsim(&["merge", &d("k8s-merged"), &d("k8s/0/s"), &d("k8s/1/s")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    same("k8s-merged");
    // Without a scheduler, auto says what it needs.
    let o = Command::new(env!("CARGO_BIN_EXE_coordsim"))
        .args(["run", &config, "--shard", "auto", "--out", &d("x")])
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("neither is set"), "{}", stderr(&o));
    // GNU-parallel style: one job per listed point, two at a time (xargs -P 2).
    let list = coordsim(&["run", &config, "--list-points"]);
    let lines = stdout(&list);
    assert_eq!(lines.lines().next(), Some("0/6 clients=1"));
    let script = format!(
        "{bin} run {config} --list-points | cut -d' ' -f1 | xargs -P 2 -I{{}} sh -c '{bin} run {config} --quiet --shard {{}} --out {par}/$(echo {{}} | tr / _)'",
        bin = env!("CARGO_BIN_EXE_coordsim"),
        par = d("par"),
    );
    let o = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut args = vec!["merge".to_string(), d("par-merged")];
    args.extend((0..6).map(|k| d(&format!("par/{k}_6/s"))));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = coordsim(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    same("par-merged");
}

/// The fuzzer's random numbers (SplitMix64: fixed, so a failing input replays by its index).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of a config's text: a span deleted, a token inserted, a number made extreme,
/// or a line repeated.
fn mutate(text: &str, rng: &mut Mix) -> String {
    const TOKENS: &[&str] = &[
        "\"",
        "[",
        "]",
        "{",
        "}",
        "=",
        "\n",
        ",",
        "1e308",
        "-1",
        "0",
        "-0.0",
        "1e-300",
        "18446744073709551615",
        "9223372036854775807",
        "nan",
        "inf",
        "true",
        "\"x\"",
        "[]",
        "{}",
        "\n[[chart]]\nname = \"a\"\n",
        "\n[[claim]]\nmetric = \"x\"\nexpect = 1\n",
        "\n[sweep]\n",
        "{ from = 0, to = 1e9, step = 1e-9 }",
        "{ from = 1, to = 1e6, points = 100000, scale = \"log\" }",
        "((((((((((((",
        "[[[[[[[[[[[[[[[[",
        "\u{0}",
        "é",
        "\u{1b}[31m",
        "\n[labels]\n",
        "\n[table]\ncolumns = [\"x\"]\n",
        "\nreplications = 100000\n",
        "\nlocale = \"tr\"\n",
        "{ expr = \"1/0\" }",
        "{ file = \"/etc/passwd\", column = \"x\" }",
        "\"../../x\"",
        "\"a/b\"",
    ];
    let chars: Vec<char> = text.chars().collect();
    let at = rng.below(chars.len() + 1);
    // Most mutations keep the syntax (a number made extreme, a line repeated), so most
    // inputs reach the run; the rest break it somewhere.
    match [0, 1, 3, 3, 3, 3, 4, 4, 2, 3][rng.below(10)] {
        0 => {
            let len = 1 + rng.below(20);
            let end = (at + len).min(chars.len());
            chars[..at].iter().chain(&chars[end..]).collect()
        }
        1 | 2 => {
            let token = TOKENS[rng.below(TOKENS.len())];
            let mut out: String = chars[..at].iter().collect();
            out.push_str(token);
            out.extend(&chars[at..]);
            out
        }
        3 => {
            // The first number at or after `at`, made extreme.
            let extreme = [
                "0",
                "-1",
                "1e18",
                "4294967296",
                "0.000001",
                "1e-9",
                "99999999",
            ][rng.below(7)];
            let start = (at..chars.len()).find(|&i| chars[i].is_ascii_digit());
            match start {
                Some(s) => {
                    let mut e = s;
                    while e < chars.len()
                        && (chars[e].is_ascii_digit() || chars[e] == '.' || chars[e] == '_')
                    {
                        e += 1;
                    }
                    let mut out: String = chars[..s].iter().collect();
                    out.push_str(extreme);
                    out.extend(&chars[e..]);
                    out
                }
                None => text.to_string(),
            }
        }
        _ => {
            let lines: Vec<&str> = text.lines().collect();
            if lines.is_empty() {
                return text.to_string();
            }
            let k = rng.below(lines.len());
            let mut out = lines[..=k].join("\n");
            out.push('\n');
            out.push_str(&lines[k..].join("\n"));
            out
        }
    }
}

/// Mutated configs through load → validate → run → write, in this process: any panic is a
/// defect. `COORDSIM_FUZZ_INPUTS` sets how many (a quick round by default; the README gives
/// the count of the long run).
#[test]
fn fuzzed_configs_never_panic() {
    let inputs: usize = std::env::var("COORDSIM_FUZZ_INPUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let registry = coordsim_models::registry();
    let mut corpus: Vec<(String, String)> = Vec::new();
    for dir in ["configs"] {
        for path in coordsim::commands::find_configs(&root().join(dir)).unwrap() {
            corpus.push((
                path.display().to_string(),
                String::from_utf8(read(&path)).unwrap(),
            ));
        }
    }
    let out = tempfile::tempdir().unwrap();
    let mut rng = Mix(2026);
    let (mut parsed, mut ran) = (0, 0);
    for i in 0..inputs {
        let (name, base) = &corpus[rng.below(corpus.len())];
        let mut text = base.clone();
        for _ in 0..1 + rng.below(2) {
            text = mutate(&text, &mut rng);
        }
        let write = i % 25 == 0;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let Ok(mut config) = library_config(&registry, name, &text) else {
                return (false, false);
            };
            // Small runs only: the fuzzer looks for panics, not for long runs, which the
            // up-front estimates and [limits] bound (their own tests).
            let small = config.runs() <= 16
                && config.plans.iter().all(|p| {
                    let c = p.cost();
                    c.events <= 200_000 && c.memory_bytes <= 64 << 20
                });
            if !small {
                return (true, false);
            }
            config.plan.limits.max_events = config.plan.limits.max_events.min(200_000);
            let options = coordsim::runner::RunOptions {
                jobs: 1,
                seed: None,
                shard: None,
                progress: false,
                ties: sim_core::Ties::Fifo,
            };
            let Ok(results) = coordsim::runner::run(&config, &options) else {
                return (true, false);
            };
            let _ = coordsim::check::evaluate(&config, &results);
            if write && config.check_value_labels(&results).is_ok() {
                let summary = (config.replications > 1)
                    .then(|| coordsim::summary::summarize(&config, &results));
                let run = coordsim::export::Run {
                    config: &config,
                    results: &results,
                    summary: summary.as_ref(),
                    seed: config.seed,
                };
                let dir = out.path().join(format!("i{i}"));
                std::fs::create_dir_all(&dir).unwrap();
                for exporter in coordsim::export::all() {
                    let _ = exporter.export(&run, &dir);
                }
            }
            (true, true)
        }));
        match result {
            Ok((p, r)) => {
                parsed += usize::from(p);
                ran += usize::from(r);
            }
            Err(_) => panic!("input {i} (from {name}) panicked:\n{text}"),
        }
    }
    eprintln!("fuzz: {inputs} inputs, {parsed} loaded, {ran} ran, no panic");
    // The mutations must leave many inputs valid, or the fuzzer tests only the parser.
    assert!(parsed * 5 > inputs, "{parsed} of {inputs} parsed");
    assert!(ran * 10 > inputs, "{ran} of {inputs} ran");
}

#[test]
fn ctrl_c_stops_the_runs_and_says_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let quick = write_config(
        dir.path(),
        "quick.toml",
        "model = \"single_writer_queue\"\n",
    );
    // Far longer than the test waits: 50 replications of 8 million requests.
    let long = write_config(
        dir.path(),
        "long.toml",
        "model = \"single_writer_queue\"\nreplications = 50\n[params]\narrivals = \"poisson\"\nrequests_per_client = 2_000_000\n",
    );
    let out = dir.path().join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_coordsim"))
        .args([
            "run",
            &quick,
            &long,
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the quick config is in place, the long one runs: interrupt it.
    let start = std::time::Instant::now();
    while !out.join("quick/results.csv").exists() && start.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted (Ctrl-C): wrote"), "{err}");
    assert!(err.contains("quick"), "{err}");
    assert!(out.join("quick/results.csv").exists());
    assert!(
        !out.join("long").exists(),
        "the interrupted config writes nothing"
    );
    let hidden: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(
        hidden.is_empty(),
        "its staging folder is removed: {hidden:?}"
    );
}

#[test]
fn digits_sets_the_decimals_and_a_passing_file_is_left_alone() {
    // service 6 ms: `digits=2` wants `6,00 ms`; `6 ms` (no decimals) is a drift fill mends.
    let text =
        format!("{HEAD}<!-- coordsim q.service_ms clients=1 digits=2 -->6 ms<!-- /coordsim -->\n");
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    lesson(dir.path(), &["fill", "lesson.md"]);
    let filled = String::from_utf8(read(dir.path().join("lesson.md"))).unwrap();
    assert!(filled.contains("-->6,00 ms<!--"), "{filled}");
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // A second fill changes no byte.
    lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(read(dir.path().join("lesson.md")), filled.as_bytes());
}

#[test]
fn models_hand_their_per_request_samples_to_distribution_charts() {
    // Each model's distribution, pooled over replications: the queue's waits (3 × 200
    // requests) and the edge placement's responses (the lesson's 10,000 requests, 2 runs).
    let registry = coordsim_models::registry();
    for (text, name, n) in [
        (
            "model = \"single_writer_queue\"\nreplications = 3\n[params]\nclients = 2\nrequests_per_client = 100\n[[chart]]\nname = \"c\"\nkind = \"cdf\"\ny = \"wait_ms\"\n",
            "wait_ms",
            600,
        ),
        (
            "model = \"edge_placement\"\nreplications = 2\n[[chart]]\nname = \"c\"\nkind = \"histogram\"\ny = \"response_ms\"\n",
            "response_ms",
            20_000,
        ),
    ] {
        let config = library_config(&registry, "d.toml", text).unwrap();
        let results = library_run(&config);
        assert_eq!(results.distributions.len(), 1, "{name}");
        let (point, got, samples) = &results.distributions[0];
        assert_eq!((*point, *got, samples.len()), (0, name, n));
        assert!(samples.iter().all(|v| v.is_finite() && *v >= 0.0));
        // Without such a chart, no samples are kept.
        let plain = text.split("[[chart]]").next().unwrap();
        let config = library_config(&registry, "d.toml", plain).unwrap();
        assert!(library_run(&config).distributions.is_empty(), "{name}");
    }
}

#[test]
fn a_label_of_a_value_only_some_shards_show_is_checked_on_the_whole() {
    // The saga lesson labels `rafta` (point 0) and `odunc` (point 1): each shard shows one.
    let dir = tempfile::tempdir().unwrap();
    let d = |p: &str| dir.path().join(p).display().to_string();
    for k in ["0", "1"] {
        let o = coordsim(&[
            "run",
            "configs/lessons/saga.toml",
            "--shard",
            &format!("{k}/2"),
            "--out",
            &d(k),
            "--quiet",
        ]);
        assert_eq!(o.status.code(), Some(0), "shard {k}: {}", stderr(&o));
    }
    let o = coordsim(&["merge", &d("merged"), &d("0/saga"), &d("1/saga")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // One shard alone is not the whole: its merge is refused as incomplete, before labels.
    let o = coordsim(&["merge", &d("half"), &d("0/saga")]);
    assert_eq!(o.status.code(), Some(2));
}

mod scenarios;
