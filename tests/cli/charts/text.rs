//! The words on a chart: a custom title as written (placeholders put the point where the
//! author wants it), an unlabelled value on a Turkish chart a warning naming the label to
//! add, a control character in a label a space.

use super::chart_svgs;
use crate::harness::*;

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

#[test]
fn a_metric_whole_at_every_point_gets_whole_ticks_and_a_fraction_does_not() {
    // `twice` = 2 × the writes: 2 and 4 at reps = 1 and 2, whole numbers though a
    // [[metric]] is a float column, so its axis has no tick between two integers; `third`
    // = writes / 3 (1/3 and 2/3) keeps its fractional ticks.
    let registry = crate::harness::registry();
    let text = "model = \"scenario\"\n[sweep]\nreps = [1, 2]\n\
        [[resource]]\nname = \"x\"\nkind = \"register\"\n\
        [[actor]]\nname = \"a\"\nrepeat = \"reps\"\nsteps = [{ write = \"x\", value = 1 }]\n\
        [[metric]]\nname = \"twice\"\nexpr = \"2 * x.writes\"\n\
        [[metric]]\nname = \"third\"\nexpr = \"x.writes / 3\"\n\
        [[chart]]\nname = \"twice\"\nkind = \"bar\"\nx = \"reps\"\ny = [\"twice\"]\n\
        [[chart]]\nname = \"third\"\nkind = \"bar\"\nx = \"reps\"\ny = [\"third\"]\n";
    let config = library_config(&registry, "whole.toml", text).unwrap();
    let lines = |name: &str| -> Vec<String> {
        let (_, svg, _) = chart_svgs(&config)
            .into_iter()
            .find(|(file, _, _)| file.starts_with(name) && !file.contains("narrow"))
            .unwrap();
        // Every text drawn, as the SVG source has it before its glyphs are drawn.
        svg.split("<text")
            .skip(1)
            .map(|text| {
                let text = &text[text.find('>').unwrap() + 1..];
                text[..text.find("</text>").unwrap()].trim().to_string()
            })
            .collect()
    };
    let twice = lines("twice");
    assert!(twice.contains(&"4".to_string()), "{twice:?}");
    assert!(
        !twice
            .iter()
            .any(|l| l.contains('.') && l.parse::<f64>().is_ok()),
        "a fractional tick on a whole-valued metric: {twice:?}"
    );
    let third = lines("third");
    assert!(
        third
            .iter()
            .any(|l| l.contains('.') && l.parse::<f64>().is_ok()),
        "no fractional tick for a fraction: {third:?}"
    );
    // A count on an axis the author cut to 0.5 … 1: whole ticks alone would be one label
    // (1), so it keeps its fractional ones.
    let cut = format!(
        "{text}[[chart]]\nname = \"cut\"\nkind = \"bar\"\nx = \"reps\"\ny = [\"x.writes\"]\ny_min = 0.5\ny_max = 1\n"
    );
    let config = library_config(&registry, "cut.toml", &cut).unwrap();
    let (_, svg, _) = chart_svgs(&config)
        .into_iter()
        .find(|(file, _, _)| file.starts_with("cut") && !file.contains("narrow"))
        .unwrap();
    assert!(
        svg.split("<text").skip(1).any(|text| {
            let text = &text[text.find('>').unwrap() + 1..];
            let text = text[..text.find("</text>").unwrap()].trim();
            text.contains('.') && text.parse::<f64>().is_ok()
        }),
        "an axis cut under one unit lost its fractional ticks"
    );
}

/// The x axis's tick labels of an SVG source, left to right: the numbers written on the
/// lowest row of numbers (the y axis's are each on a row of their own, above it).
fn x_tick_labels(svg: &str) -> Vec<String> {
    let attr = |tag: &str, name: &str| -> Option<f64> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next()?.parse().ok()
    };
    let mut numbers: Vec<(f64, f64, String)> = svg
        .split("<text")
        .skip(1)
        .filter_map(|text| {
            let (tag, rest) = text.split_once('>')?;
            let label = rest[..rest.find("</text>")?].trim().to_string();
            label.replace(',', "").parse::<f64>().ok()?;
            Some((attr(tag, "y")?, attr(tag, "x")?, label))
        })
        .collect();
    let lowest = numbers.iter().map(|n| n.0).fold(f64::MIN, f64::max);
    numbers.retain(|n| (n.0 - lowest).abs() < 1.0);
    numbers.sort_by(|a, b| a.1.total_cmp(&b.1));
    numbers.into_iter().map(|n| n.2).collect()
}

/// A sweep of whole numbers gets several whole ticks on its x axis in every chart kind
/// and width, at full size and on a phone: n = 1 … 8 on a phone's line chart used to get
/// one (5), since plotters, asked for 3, steps by 5.
#[test]
fn a_whole_x_gets_several_whole_ticks_at_every_width() {
    let registry = crate::harness::registry();
    let mut wrong = Vec::new();
    for sweep in [
        "[1, 2, 3, 4, 5, 6, 7, 8]",
        "[1, 2, 3, 4, 5, 6, 7, 8, 9]",
        "[2, 3]",
        "{ from = 0, to = 1000, step = 50 }",
        "{ from = 1000, to = 100000, step = 3000 }",
    ] {
        for width in [1000, 400, 260] {
            let text = format!(
                "model = \"scenario\"\n[sweep]\nn = {sweep}\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 1\n\
                 [[actor]]\nname = \"c\"\nsteps = [{{ delay_ms = \"n\" }}, {{ request = \"s\" }}]\n\
                 [[chart]]\nname = \"line\"\nx = \"n\"\ny = [\"c.mean_response_ms\"]\nwidth = {width}\n\
                 [[chart]]\nname = \"bar\"\nkind = \"bar\"\nx = \"n\"\ny = [\"c.mean_response_ms\"]\nwidth = {width}\n"
            );
            let config = library_config(&registry, "whole.toml", &text).unwrap();
            for chart in super::prepared(&config) {
                let (full, _) = chart.svg_source().unwrap();
                let narrow = chart.narrow_svg_source().unwrap();
                for (size, svg) in [("full", full), ("narrow", narrow)] {
                    let labels = x_tick_labels(&svg);
                    let whole = labels
                        .iter()
                        .all(|l| l.replace(',', "").parse::<u64>().is_ok());
                    if labels.len() < 2 || !whole {
                        wrong.push(format!(
                            "{sweep}, {}, {width}, {size}: {labels:?}",
                            chart.name
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A phone's cdf and histogram get at least two x labels too.
#[test]
fn a_phones_cdf_and_histogram_get_two_x_ticks_or_more() {
    let registry = crate::harness::registry();
    let text = "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 10\nservice = \"exponential\"\n\
        [[actor]]\nname = \"c\"\nrepeat = 500\nsteps = [{ request = \"s\" }]\n\
        [[chart]]\nname = \"cdf\"\nkind = \"cdf\"\ny = [\"c.response_ms\"]\nwidth = 260\n\
        [[chart]]\nname = \"histogram\"\nkind = \"histogram\"\ny = [\"c.response_ms\"]\nwidth = 260\n";
    let config = library_config(&registry, "tail.toml", text).unwrap();
    for chart in super::prepared(&config) {
        let labels = x_tick_labels(&chart.narrow_svg_source().unwrap());
        assert!(labels.len() >= 2, "{}: {labels:?}", chart.name);
    }
}
