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
    coordsim::export::chart::prepare(&run)
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
