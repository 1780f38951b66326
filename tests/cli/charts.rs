//! Charts: labels, snapshots of every kind in both locales, legend placement.

use crate::harness::*;

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
        .unwrap()
        .files
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
