//! Charts: every name a chart shows labelled, every kind's SVG the same in both locales
//! (snapshots), a best legend covering no data; and, in charts/, charts at the extremes,
//! timelines, the words on a chart and the drawn pixels. The helpers they share are here.

use crate::harness::*;

mod extremes;
mod pixels;
mod resources;
mod text;
mod timelines;

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
pub(crate) fn prepared(
    config: &coordsim::config::Config,
) -> Vec<coordsim::export::chart::Prepared> {
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
