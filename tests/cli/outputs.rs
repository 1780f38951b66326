//! Output formats: results.csv, entities.csv, table.md, determinism, replay by seed, the committed reports.

use crate::harness::*;

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
    // No temporary files are left behind: the only hidden file is coordsim's marker.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n != coordsim::export::folder::MARKER)
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

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
    // Every link of the site it wrote resolves inside it.
    assert!(crate::site::check_links(tmp.path()) > 1000);
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
    run_quietly(dir.path(), &config);
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
    // `intervals = false`: the same means, alone, and a caption that says so.
    let means = write_config(
        dir.path(),
        "means.toml",
        &String::from_utf8(read(&config))
            .unwrap()
            .replace("[table]\n", "[table]\nintervals = false\n"),
    );
    let out = coordsim(&[
        "run",
        &means,
        "--out",
        dir.path().to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let alone = String::from_utf8(read(dir.path().join("means/table.md"))).unwrap();
    assert!(
        alone
            .lines()
            .next()
            .unwrap()
            .contains("3 tekrar (ortalamalar)"),
        "{alone}"
    );
    assert!(!alone.contains('±'), "{alone}");
    for (with, without) in table.lines().zip(alone.lines()).skip(4).take(2) {
        let mean_of = |row: &str| {
            row.split('|')
                .nth(4)
                .unwrap()
                .trim()
                .split(" ± ")
                .next()
                .unwrap()
                .to_string()
        };
        assert_eq!(mean_of(with), mean_of(without));
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

/// A results.csv read alone says what ran: the parameters `[params]` sets (fixed or derived)
/// follow the metrics, in the order written; derived values and the queue's utilization are
/// the numbers a person would write, without float noise.
#[test]
fn results_csv_carries_the_fixed_parameters_without_float_noise() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        "p.toml",
        "model = \"single_writer_queue\"\n[vars]\nrho = \"load\"\n[params]\nservice_ms = 6\nrequests_per_client = 10\ninterarrival_ms = { expr = \"service_ms / rho\" }\n[sweep]\nrho = [0.3]\n",
    );
    let out = tmp.path().join("out");
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(read(out.join("p/results.csv"))).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    // The last three columns, as written in [params].
    assert_eq!(
        header[header.len() - 3..],
        ["service_ms", "requests_per_client", "interarrival_ms"]
    );
    // 6 / 0.3 is 20.000000000000004 in f64; the derived value is written 20, and the
    // utilization 4 clients × 6 / 20 = 1.2 exactly.
    assert_eq!(at("interarrival_ms"), "20");
    assert_eq!(at("utilization"), "1.2");
    assert_eq!(at("service_ms"), "6");
    assert_eq!(at("rho"), "0.3");
}

#[test]
fn table_md_writes_labels_and_titles_as_text_never_html() {
    // A title and labels with markup reached table.md as raw HTML (a Markdown renderer
    // passes it through); `<`, `>` and `&` are written as entities, `|` is escaped.
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "html.toml",
        "model = \"single_writer_queue\"\ntitle = \"<script>x</script> & co\"\n[params]\nrequests_per_client = 5\n[table]\ncolumns = [\"clients\", \"mean_wait_ms\"]\n[labels]\nclients = \"<b>clients</b>\"\nmean_wait_ms = \"wait | ms\"\n",
    );
    let out = coordsim(&["run", &config, "--out", dir.path().to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = String::from_utf8(read(dir.path().join("html/table.md"))).unwrap();
    assert!(
        table.starts_with("**&lt;script&gt;x&lt;/script&gt; &amp; co**"),
        "{table}"
    );
    assert!(
        table.contains("| &lt;b&gt;clients&lt;/b&gt; | wait \\| ms |"),
        "{table}"
    );
    assert!(!table.contains('<') && !table.contains('>'), "{table}");
}

/// `table.md` of a sweep over `interarrival_ms = [10.15, 10.2, 10.25]` with `digits = 1` and
/// two replications: each row's cells.
fn digits_one_rows(dir: &std::path::Path) -> Vec<Vec<String>> {
    let config = write_config(
        dir,
        "d.toml",
        r#"model = "single_writer_queue"
replications = 2
[params]
clients = 2
requests_per_client = 50
arrivals = "poisson"
[sweep]
interarrival_ms = [10.15, 10.2, 10.25]
[table]
columns = ["interarrival_ms", "requests", "max_queue_len"]
digits = 1
"#,
    );
    let out = coordsim(&["run", &config, "--out", dir.to_str().unwrap(), "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = String::from_utf8(read(dir.join("d/table.md"))).unwrap();
    table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.contains("interarrival_ms"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn digits_never_rounds_a_swept_parameter_so_each_point_keeps_its_own_label() {
    let dir = tempfile::tempdir().unwrap();
    let rows = digits_one_rows(dir.path());
    let shown: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    // As the sweep writes them, not "10.2" three times.
    assert_eq!(shown, ["10.15", "10.2", "10.25"]);
}

#[test]
fn digits_sets_the_decimals_of_a_counts_half_width_while_the_count_stays_whole() {
    let dir = tempfile::tempdir().unwrap();
    let rows = digits_one_rows(dir.path());
    let mut seen = 0;
    for row in &rows {
        // max_queue_len: a count, its mean whole, its half-width at one decimal.
        if let Some((mean, half)) = row[2].split_once(" ± ") {
            assert!(mean.parse::<u64>().is_ok(), "{row:?}");
            let (_, decimals) = half.split_once('.').expect("one decimal");
            assert_eq!(decimals.len(), 1, "{row:?}");
            seen += 1;
        }
    }
    assert!(seen > 0, "no count varied across replications: {rows:?}");
}

/// A mean of counts keeps its fraction at `digits` decimals at most, without padding
/// zeros: with `digits = 3`, 5 replications' mean of `max_queue_len` (a multiple of 0.2)
/// reads `2.361,4` in Turkish, never `2.361,400` (three zeros after the comma read as a
/// thousands group). The expected mean comes from results.csv, not from the table.
#[test]
fn a_mean_of_counts_keeps_its_fraction_without_padding_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "m.toml",
        r#"model = "single_writer_queue"
locale = "tr"
replications = 5
[params]
clients = 4
requests_per_client = 300
interarrival_ms = 10
service_ms = 6
arrivals = "poisson"
[table]
columns = ["clients", "max_queue_len"]
digits = 3
"#,
    );
    run_quietly(dir.path(), &config);
    let csv = String::from_utf8(read(dir.path().join("m/results.csv"))).unwrap();
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = head.iter().position(|c| *c == "max_queue_len").unwrap();
    let values: Vec<u64> = lines
        .map(|l| l.split(',').nth(col).unwrap().parse().unwrap())
        .collect();
    assert_eq!(values.len(), 5);
    let mean = values.iter().sum::<u64>() as f64 / 5.0;
    assert!(
        mean.fract() != 0.0,
        "a whole mean tests nothing here: {values:?}"
    );
    let table = String::from_utf8(read(dir.path().join("m/table.md"))).unwrap();
    let row = table.lines().last().unwrap();
    let cell = row.trim_matches('|').split('|').nth(1).unwrap().trim();
    let written = cell.split(" ± ").next().unwrap();
    // Written in Turkish: `.` groups thousands, `,` marks the decimals, none padded.
    let (int, frac) = written.split_once(',').unwrap_or((written, ""));
    assert!(!frac.ends_with('0') && frac.len() <= 3, "{row}");
    let read_back: f64 = format!("{}.{frac}", int.replace('.', "")).parse().unwrap();
    assert!(
        (read_back - mean).abs() < 1e-9,
        "{written} against a mean of {mean}: {row}"
    );
    // A multiple of 0.2: one decimal at most.
    assert!(frac.len() <= 1, "{row}");
}

/// `run CONFIG --out DIR --quiet`, which must succeed.
fn run_quietly(dir: &std::path::Path, config: &str) {
    let out = coordsim(&["run", config, "--out", dir.to_str().unwrap(), "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
