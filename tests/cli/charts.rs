//! Charts: labels, snapshots of every kind in both locales, legend placement.

use crate::harness::*;

#[test]
fn every_config_labels_the_names_its_charts_show() {
    // No shipped chart shows a raw column or parameter name (`mean_wait_ms`) in an axis, a
    // legend or a title; the English configs label theirs in English.
    let registry = crate::harness::registry();
    let mut missing = Vec::new();
    for path in coordsim::commands::find_configs(&root().join("configs")).unwrap() {
        let text = String::from_utf8(read(&path)).unwrap();
        let config = library_config(&registry, &path.display().to_string(), &text).unwrap();
        let names = coordsim::labels::unlabelled_in_charts(&config);
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
    let registry = crate::harness::registry();
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
        let names = coordsim::labels::unlabelled(&config);
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

/// Every chart file a config draws, as SVG text (before its text becomes outlines) with the
/// layout it got.
fn chart_svgs(
    config: &coordsim::config::Config,
) -> Vec<(String, String, coordsim::export::chart::Placed)> {
    prepared(config)
        .into_iter()
        .map(|chart| {
            let (svg, placed) = chart.svg_source().unwrap();
            (chart.name, svg, placed)
        })
        .collect()
}

/// Every chart file a config draws, ready to render.
fn prepared(config: &coordsim::config::Config) -> Vec<coordsim::export::chart::Prepared> {
    let results = library_run(config);
    let summary = (config.replications > 1).then(|| coordsim::summary::summarize(config, &results));
    let run = coordsim::export::Run {
        config,
        results: &results,
        summary: summary.as_ref(),
        seed: config.seed,
    };
    coordsim::export::chart::prepare(&run).unwrap().files
}

#[test]
fn every_chart_kind_renders_the_same_svg_in_both_locales() {
    // One small config per chart kind; each drawn in English and in Turkish (decimal comma,
    // Turkish built-in words, labelled category values). A change to any chart's look shows
    // here as a snapshot diff.
    let registry = crate::harness::registry();
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
            let charts = prepared(&config);
            assert_eq!(charts.len(), 1, "{kind}");
            // Snapshots read plotters' SVG, text still as text; the file made from it is
            // checked for what it must be (self-contained, findable) instead.
            let (svg, _) = charts[0].svg_source().unwrap();
            assert!(svg.contains("font-family=\"DejaVu Sans\""), "{kind}");
            let (file, _) = charts[0].svg().unwrap();
            assert_self_contained(&format!("{kind} {locale}"), &file, charts[0].title());
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
    let registry = crate::harness::registry();
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
        for mut chart in coordsim::export::chart::prepare(&run).unwrap().files {
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

/// Runs coordsim in `dir`, killed after `secs` seconds: a hang fails the test instead of
/// stopping the suite.
fn coordsim_within(dir: &std::path::Path, args: &[&str], secs: u64) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_coordsim"))
        .current_dir(dir)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() >= secs {
            child.kill().unwrap();
            panic!("coordsim {args:?} ran past {secs} s (a hang)");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

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

#[test]
fn a_timeline_of_many_lanes_and_marks_is_bounded_and_says_so() {
    // 600 appliers: 500 lanes drawn, and the chart says so. 20 appliers polling every
    // 0.001 ms behind holds of 5 ms: about 20 · 19 / 2 · 5 / 0.001 = 950,000 failed attempts,
    // each a mark; the lanes keep at most 400 of a kind, the chart 20,000 items in all.
    let dir = tempfile::tempdir().unwrap();
    let many = write_config(
        dir.path(),
        "many.toml",
        "model = \"lock_queue\"\n[params]\nappliers = 600\nlock = \"queue\"\nhold_ms = 1\n",
    );
    let fast = write_config(
        dir.path(),
        "fast.toml",
        "model = \"lock_queue\"\nlocale = \"tr\"\n[params]\nappliers = 20\nhold_ms = 5\npoll_ms = 0.001\n",
    );
    let out = coordsim_within(
        dir.path(),
        &["run", &many, &fast, "--out", "out", "-q"],
        300,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let svg = String::from_utf8(read(dir.path().join("out/many/timeline.svg"))).unwrap();
    assert!(svg.contains("only the first 500 of 600 lanes drawn"));
    // Lane names are drawn for some lanes only, never for a lane past the 500th (`sf` is
    // applier 500, counting from 0).
    assert!(!svg.contains(">sf<"));
    let svg = String::from_utf8(read(dir.path().join("out/fast/timeline.svg"))).unwrap();
    assert!(
        svg.contains("işaretler eşit aralıkla seyreltildi"),
        "the Turkish note on thinned marks"
    );
    // 20,000 items of about 100 bytes, and the axes: well under 4 MB.
    assert!(svg.len() < 4_000_000, "{} bytes", svg.len());
}

#[test]
fn a_timeline_over_many_points_draws_the_first_twenty_and_names_the_rest() {
    // 30 points: timeline-p0 … timeline-p19 are drawn; the summary names the other 10.
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "sweep.toml",
        "model = \"lock_queue\"\n[sweep]\nhold_ms = { from = 10, to = 300, step = 10 }\n[[chart]]\nname = \"timeline\"\nkind = \"timeline\"\n",
    );
    let out = coordsim(&[
        "run",
        &config,
        "--out",
        dir.path().join("out").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let svgs: Vec<String> = list_files(&dir.path().join("out/sweep"))
        .into_iter()
        .filter(|f| f.ends_with(".svg"))
        .collect();
    assert_eq!(svgs.len(), 20, "{svgs:?}");
    assert!(
        svgs.contains(&"timeline-p19.svg".into()) && !svgs.contains(&"timeline-p20.svg".into())
    );
    assert!(
        stdout(&out).contains(
            "(30 rows, 20 charts; left out: timeline for 10 more points (a timeline draws the first 20 its `where` keeps))"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_custom_title_is_drawn_as_written_and_placeholders_say_where_the_point_goes() {
    // The default title gets the point's settings; a custom one is left as written (it got
    // `(tutma (ms) = 100)` appended, nested parentheses and all), and `{hold_ms}` or
    // `{point}` put the point where the author wants it.
    let registry = crate::harness::registry();
    let title_of = |title: &str| -> Vec<String> {
        let text = format!(
            "model = \"lock_queue\"\nlocale = \"tr\"\ntitle = \"Kilit\"\n[sweep]\nhold_ms = [100, 200]\n[[chart]]\nname = \"t\"\nkind = \"timeline\"\n{title}\n[labels]\nhold_ms = \"tutma (ms)\"\n"
        );
        let config = library_config(&registry, "t.toml", &text).unwrap();
        chart_svgs(&config)
            .into_iter()
            .map(|(_, svg, _)| {
                // The title is the first text drawn, centred at the top.
                let start = svg.find("<text").unwrap();
                let text = &svg[start..];
                let open = text.find('>').unwrap() + 1;
                text[open..text.find("</text>").unwrap()].trim().to_string()
            })
            .collect()
    };
    assert_eq!(
        title_of(""),
        [
            "Kilit (tutma\u{a0}(ms)\u{a0}=\u{a0}100)",
            "Kilit (tutma\u{a0}(ms)\u{a0}=\u{a0}200)"
        ]
    );
    assert_eq!(
        title_of("title = \"4 uygulama\""),
        ["4 uygulama", "4 uygulama"]
    );
    assert_eq!(
        title_of("title = \"4 uygulama, tutma {hold_ms} ms\""),
        ["4 uygulama, tutma 100 ms", "4 uygulama, tutma 200 ms"]
    );
    assert_eq!(
        title_of("title = \"{point}: 4 uygulama {{sabit}}\""),
        [
            "tutma\u{a0}(ms)\u{a0}=\u{a0}100: 4 uygulama {sabit}",
            "tutma\u{a0}(ms)\u{a0}=\u{a0}200: 4 uygulama {sabit}"
        ]
    );
}

#[test]
fn an_unlabelled_value_on_a_turkish_chart_is_a_warning_naming_the_label_to_add() {
    // `consumer` is a fixed choice drawn as the bar chart's one category: English in a
    // Turkish chart. The run warns at the value and says which [labels] line to add; with
    // the label, it is quiet.
    let dir = tempfile::tempdir().unwrap();
    let text = "model = \"idempotency\"\nlocale = \"tr\"\n[params]\nform = \"consumer\"\n";
    let config = write_config(dir.path(), "c.toml", text);
    let out = coordsim(&[
        "run",
        &config,
        "--out",
        dir.path().join("out").to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {config}:4:8: the chart `effects-per-form` shows `consumer` as it is in a Turkish config (locale = \"tr\"); label it: add `consumer = \"…\"` to [labels]\n"
        )
    );
    let labelled = write_config(
        dir.path(),
        "c.toml",
        &format!("{text}[labels]\nconsumer = \"tekilleştiren tüketici\"\n"),
    );
    let out = coordsim(&[
        "run",
        &labelled,
        "--out",
        dir.path().join("out").to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(stderr(&out), "");
}

#[test]
fn the_wrong_order_timeline_shows_its_early_read_and_zero_length_holds_show() {
    // lock-wrong-order's timeline was lock-polled's but for the title: the read before the
    // lock, the lesson's point, was not drawn. It is a mark of its own now. lock-local-remote
    // holds for 0 ms: its holds were 2-pixel slivers; every span is at least 2% of the axis.
    let registry = crate::harness::registry();
    let load = |name: &str| {
        let path = root().join(format!("configs/lessons/{name}.toml"));
        library_config(&registry, name, &String::from_utf8(read(path)).unwrap()).unwrap()
    };
    let svg_of = |name: &str, chart: &str| {
        chart_svgs(&load(name))
            .into_iter()
            .find(|(n, _, _)| n == chart)
            .unwrap()
            .1
    };
    let wrong = svg_of("lock-wrong-order", "timeline");
    assert!(wrong.contains("durumu kilitten önce okudu"));
    assert!(!svg_of("lock-polled", "timeline").contains("durumu kilitten önce okudu"));
    for chart in ["timeline-p0", "timeline-p1"] {
        let svg = svg_of("lock-local-remote", chart);
        // The holds are the blue (#0072B2) rectangles; the plot is about 880 pixels wide.
        let widths: Vec<i64> = svg
            .match_indices("fill=\"#0072B2\"")
            .filter_map(|(i, _)| {
                let rect = &svg[svg[..i].rfind("<rect")?..i];
                let w = rect.split("width=\"").nth(1)?.split('"').next()?;
                w.parse().ok()
            })
            .collect();
        assert!(!widths.is_empty(), "{chart}");
        assert!(widths.iter().all(|w| *w >= 15), "{chart}: {widths:?}");
    }
}

/// What every SVG file must be: no text left to a font and no reference outside the file
/// (every `href` names an element of the file itself), the title findable as `<title>` and
/// `aria-label`, and drawable with no font at all.
fn assert_self_contained(what: &str, svg: &str, title: &str) {
    for gone in ["<text", "font-family", "@font-face", "url(", "fonts/"] {
        assert!(!svg.contains(gone), "{what}: the SVG file has {gone}");
    }
    let ids: std::collections::HashSet<&str> = svg
        .split(" id=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect();
    let mut refs = 0;
    for part in svg.split("href=\"").skip(1) {
        let target = part.split('"').next().unwrap();
        let id = target
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{what}: href {target:?} leaves the file"));
        assert!(ids.contains(id), "{what}: #{id} is not in the file");
        refs += 1;
    }
    assert!(
        refs > 0,
        "{what}: the text is drawn from the file's own glyphs"
    );
    let escaped = title
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;");
    assert!(
        svg.contains(&format!("<title>{escaped}</title>")),
        "{what}: <title>"
    );
    assert!(
        svg.contains(&format!("aria-label=\"{escaped}\"")),
        "{what}: aria-label"
    );
    // With an empty font database usvg finds no font for any text: the file draws anyway,
    // and not as a blank page.
    let options = resvg::usvg::Options {
        fontdb: std::sync::Arc::new(resvg::usvg::fontdb::Database::new()),
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &options).unwrap();
    assert!(tree.root().has_children(), "{what}");
}

/// An SVG file drawn by the test's own resvg call (white under it, the PNG's pixel size),
/// with no font database: RGB rows.
fn render_svg_file(svg: &[u8], (w, h): (u32, u32)) -> Vec<u8> {
    let options = resvg::usvg::Options {
        fontdb: std::sync::Arc::new(resvg::usvg::fontdb::Database::new()),
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_data(svg, &options).unwrap();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(w, h).unwrap();
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    let size = tree.size();
    let ts =
        resvg::tiny_skia::Transform::from_scale(w as f32 / size.width(), h as f32 / size.height());
    resvg::render(&tree, ts, &mut pixmap.as_mut());
    pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect()
}

/// A PNG file's size and RGB rows.
fn decode_png(bytes: &[u8]) -> ((u32, u32), Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    buf.truncate(info.buffer_size());
    ((info.width, info.height), buf)
}

/// A Turkish queue with a line chart at PNG scale 2 and a lock timeline at scale 1.
const TWINS: &str = r#"model = "lock_queue"
locale = "tr"
title = "Kilit: şğıİ"
[params]
appliers = 2
[sweep]
hold_ms = [50, 100]
[[chart]]
name = "bekleme"
x = "hold_ms"
y = ["wait_max_ms"]
scale = 2
[[chart]]
name = "zaman"
kind = "timeline"
where = { hold_ms = 100 }
[labels]
hold_ms = "tutma süresi (ms)"
wait_max_ms = "en uzun bekleme (ms)"
"#;

#[test]
fn every_png_is_its_svg_drawn_pixel_for_pixel() {
    // The files a run writes, compared with the test's own rendering of each written SVG
    // (no font database: the SVG carries its glyphs). Equal bytes, at scale 1 and 2.
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "kilit.toml", TWINS);
    let out = tmp.path().join("out");
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let dir = out.join("kilit");
    for (name, scale) in [("bekleme", 2), ("zaman", 1)] {
        let svg = read(dir.join(format!("{name}.svg")));
        let text = String::from_utf8(svg.clone()).unwrap();
        assert!(
            text.starts_with("<svg width=\"1000\" height=\"620\""),
            "{name}"
        );
        assert_self_contained(
            name,
            &text,
            if name == "zaman" {
                "Kilit: şğıİ (tutma süresi (ms) = 100)"
            } else {
                "Kilit: şğıİ"
            },
        );
        let ((w, h), png) = decode_png(&read(dir.join(format!("{name}.png"))));
        // The chart's 1000 × 620 pixels times its scale.
        assert_eq!((w, h), (1000 * scale, 620 * scale), "{name}");
        let drawn = render_svg_file(&svg, (w, h));
        let differ = png.iter().zip(&drawn).filter(|(a, b)| a != b).count();
        assert_eq!(
            differ, 0,
            "{name}: {differ} bytes differ from the SVG drawn"
        );
        // And it is a chart, not a blank page: a good share of non-white pixels.
        let inked = png
            .chunks_exact(3)
            .filter(|p| p.iter().any(|&c| c < 200))
            .count();
        assert!(inked > 2_000, "{name}: {inked} dark pixels");
    }
}

#[test]
fn the_letters_of_a_line_share_its_baseline_and_x_height() {
    // `z l k x i r` all stand flat on the baseline; `z` and `x` also reach the x-height,
    // flat. In the title and in the x axis title (two font sizes), every letter's lowest
    // dark pixel row is the same, and `z` and `x` share their highest one. (The old
    // bitmap text rounded each glyph's offset from its own top: `z` and `x` sat a pixel
    // above `l`, `k`, `i` and `r`.)
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        "zx.toml",
        "model = \"single_writer_queue\"\n[sweep]\nclients = [1, 2]\n[[chart]]\nname = \"c\"\nx = \"clients\"\ny = [\"mean_wait_ms\"]\ntitle = \"z l k x i r z\"\nx_label = \"z l k x i r z\"\nlegend = \"none\"\n[labels]\nmean_wait_ms = \"wait\"\n",
    );
    let out = tmp.path().join("out");
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ((w, h), rgb) = decode_png(&read(out.join("zx/c.png")));
    let dark = |x: u32, y: u32| rgb[(y * w + x) as usize * 3] < 128;
    // Letters: runs of inked columns within a band of rows, each with its top and bottom.
    let letters = |rows: std::ops::Range<u32>| {
        let inked: Vec<bool> = (0..w).map(|x| rows.clone().any(|y| dark(x, y))).collect();
        let mut found = Vec::new();
        let mut x = 0;
        while x < w {
            if inked[x as usize] {
                let start = x;
                while x < w && inked[x as usize] {
                    x += 1;
                }
                let ys: Vec<u32> = rows
                    .clone()
                    .filter(|&y| (start..x).any(|c| dark(c, y)))
                    .collect();
                found.push((start, ys[0], *ys.last().unwrap()));
            }
            x += 1;
        }
        found
    };
    // The title is the only ink in the top 60 rows, the x axis title in the last 50 (under
    // the tick labels).
    for (line, rows) in [("title", 0..60), ("x axis title", h - 50..h)] {
        let found = letters(rows);
        assert_eq!(found.len(), 7, "{line}: seven letters apart: {found:?}");
        let bottom = found[0].2;
        for &(x, _, b) in &found {
            assert_eq!(
                b, bottom,
                "{line}: the letter at x = {x} leaves the baseline: {found:?}"
            );
        }
        // z, x, z: indices 0, 3 and 6.
        let top = found[0].1;
        for i in [3, 6] {
            assert_eq!(found[i].1, top, "{line}: x-height: {found:?}");
        }
    }
}

#[test]
fn a_control_character_in_a_label_is_drawn_as_a_space_not_an_error() {
    // XML has no place for U+0007: in a category's label (drawn as a tick label) and in the
    // title, the chart shows a space there, as it does in a legend, and the files are
    // written (before, the run failed after simulating, on its own SVG).
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        "bell.toml",
        "model = \"single_writer_queue\"\n[params]\nrequests_per_client = 10\n[sweep]\narrivals = [\"poisson\", \"schedule\"]\n[[chart]]\nname = \"c\"\nkind = \"bar\"\nx = \"arrivals\"\ny = [\"mean_wait_ms\"]\ntitle = \"ding\\u0007dong\"\n[labels]\nmean_wait_ms = \"wait\"\npoisson = \"po\\u0007isson\"\n",
    );
    let out = tmp.path().join("out");
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let svg = String::from_utf8(read(out.join("bell/c.svg"))).unwrap();
    assert!(svg.contains("<title>ding dong</title>"), "{}", &svg[..400]);
    assert!(svg.contains("\npo isson\n"), "{}", &svg[..600]);
    assert!(read(out.join("bell/c.png")).starts_with(b"\x89PNG"));
}
