//! Timelines: many lanes and marks are bounded and say so, many points draw the first twenty
//! and name the rest, and what a lesson's timeline is for is drawn.

use super::{chart_svgs, coordsim_within};
use crate::harness::*;

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
        .filter(|f| f.ends_with(".svg") && !f.ends_with(".narrow.svg"))
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
fn the_wrong_order_timeline_shows_its_early_read_and_zero_length_holds_show() {
    // lock-wrong-order's timeline was lock-polled's but for the title: the read before the
    // lock, the lesson's point, was not drawn. It is a mark of its own now. lock-local-remote
    // holds for 0 ms: each hold is a tick of a few pixels, never a bar widened to look as if
    // it lasted (spans are drawn to scale).
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
        // Every hold a tick; the one wider green-blue box is the legend's swatch.
        let ticks = widths.iter().filter(|w| (2..=4).contains(*w)).count();
        assert!(
            ticks >= 1 && widths.len() - ticks <= 1,
            "{chart}: {widths:?}"
        );
    }
}

/// A timeline's window (`from_ms`, `to_ms`) draws what falls in it, clipped to it, to
/// scale. The two-phase commit with a crash at its fifth transaction, 40 to 60 ms: the
/// coordinator works 38–48 (drawn 40–48, 8 ms), the participants log 48–50 (2 ms), the
/// reader holds 42–43 (1 ms): green bars of widths in the ratio 8 : 2 : 1. The crash at 50
/// is drawn; the restart at 150 and the give-ups from 200 are not, nor in the legend.
#[test]
fn a_timeline_window_draws_what_falls_in_it_to_scale() {
    let path = root().join("configs/scenarios/scenario-two-phase-commit.toml");
    let text = String::from_utf8(read(path)).unwrap().replacen(
        "kind = \"timeline\"\n",
        "kind = \"timeline\"\nfrom_ms = 40\nto_ms = 60\n",
        1,
    );
    assert!(text.contains("from_ms = 40"));
    let svg = timeline_svg(&text);
    let mut widths: Vec<f64> = svg
        .match_indices("fill=\"#009E73\"")
        .filter_map(|(i, _)| {
            let rect = &svg[svg[..i].rfind("<rect")?..i];
            rect.split("width=\"")
                .nth(1)?
                .split('"')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    widths.sort_by(f64::total_cmp);
    widths.dedup();
    // Three of them (the fourth is the legend's swatch) in the ratio 1 : 2 : 8.
    let near = |w: f64, x: f64| (w - x).abs() <= 1.5;
    let scaled = widths.iter().any(|&a| {
        widths.iter().any(|&b| near(b, 2.0 * a)) && widths.iter().any(|&c| near(c, 8.0 * a))
    });
    assert!(scaled, "1 : 2 : 8 in {widths:?}");
    assert!(svg.contains("çöktü") && !svg.contains("yeniden başladı") && !svg.contains("vazgeçti"));
}

/// A window is a timeline's: on another chart, or ending before it starts, it is refused
/// where it is written.
#[test]
fn a_window_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (chart, needle)) in [
        (
            "kind = \"line\"\nx = \"hold_ms\"\ny = [\"makespan_ms\"]\nfrom_ms = 5\n",
            "`from_ms` is a timeline's window",
        ),
        (
            "kind = \"timeline\"\nfrom_ms = 50\nto_ms = 20\n",
            "`to_ms` (20) must be after `from_ms` (50)",
        ),
        ("kind = \"timeline\"\nfrom_ms = -1\n", "at least 0"),
    ]
    .iter()
    .enumerate()
    {
        let config = write_config(
            dir.path(),
            &format!("w{i}.toml"),
            &format!(
                "model = \"lock_queue\"\n[sweep]\nhold_ms = [10, 20]\n[[chart]]\nname = \"c\"\n{chart}"
            ),
        );
        let out = coordsim(&["check", &config]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(needle),
            "`{needle}` not in {}",
            stderr(&out)
        );
    }
}

/// A timeline's `focus` finds its window in the run: the crash at 50 ms with 10 ms either
/// side is the window 40–60, drawn exactly as `from_ms = 40, to_ms = 60` draws it. `lanes`
/// keeps the lanes named (here the coordinator and the reader, not the participants). A
/// focus on a kind the run never has draws the whole run and says so.
#[test]
fn a_focus_centres_the_window_on_the_first_event_of_its_kind() {
    let registry = crate::harness::registry();
    let path = root().join("configs/scenarios/scenario-two-phase-commit.toml");
    let base = String::from_utf8(read(path)).unwrap();
    let svg = |keys: &str| {
        // The first timeline's keys (the second has a focus of its own).
        let text = base.replacen(
            "kind = \"timeline\"\n",
            &format!("kind = \"timeline\"\n{keys}"),
            1,
        );
        let config = library_config(&registry, "2pc.toml", &text).unwrap();
        chart_svgs(&config)
            .into_iter()
            .find(|(n, _, _)| n == "timeline")
            .unwrap()
            .1
    };
    assert_eq!(
        svg("focus = \"crashed\"\nfocus_ms = 10\n"),
        svg("from_ms = 40\nto_ms = 60\n")
    );
    let two = svg("lanes = [\"coordinator\", \"reader\"]\n");
    assert!(
        two.contains("\ncoordinator\n") && two.contains("\nreader\n"),
        "{two}"
    );
    assert!(!two.contains("participant_a"));
    // The no-crash point has no crash: its whole run, and a note.
    let text = base.replace(
        "where = { crash_at = 4 }\ntitle = \"Koordinatör",
        "where = { crash_at = -1 }\nfocus = \"crashed\"\ntitle = \"Koordinatör",
    );
    assert!(text.contains("focus = \"crashed\""));
    let config = library_config(&registry, "2pc.toml", &text).unwrap();
    let none = chart_svgs(&config)
        .into_iter()
        .find(|(n, _, _)| n == "timeline")
        .unwrap()
        .1;
    assert!(
        none.contains("bu koşuda çöktü yok: tamamı çizildi"),
        "{none}"
    );
}

/// A level's values written over its steps never run into each other: in the retry
/// storm the server's queue peaks at 20 on a step too narrow for its label, which is
/// written all the same (the highest always is) and runs past the step; the next step's
/// 19 is left out rather than drawn against it. Each label's extent is its digits' advance
/// at its font size; at least 3 px lie between one and the next.
#[test]
fn a_levels_values_never_run_into_each_other() {
    let path = root().join("configs/scenarios/scenario-retry-storm.toml");
    let text = String::from_utf8(read(path)).unwrap();
    let svg = timeline_svg(&text);
    // Every text that is a whole number (the level's values; the axis's ticks are at the
    // bottom, below every lane), with its x, baseline y and font size.
    let attr = |tag: &str, name: &str| -> Option<f64> {
        tag.split(&format!(" {name}=\""))
            .nth(1)?
            .split('"')
            .next()?
            .trim_end_matches("px")
            .parse()
            .ok()
    };
    let mut labels: Vec<(f64, f64, f64, String)> = svg
        .split("<text")
        .skip(1)
        .filter_map(|text| {
            let close = text.find('>')?;
            let (tag, rest) = (&text[..close], &text[close + 1..]);
            let body = rest[..rest.find("</text>")?].trim().to_string();
            let size = attr(tag, "font-size")?;
            (!body.is_empty() && body.chars().all(|c| c.is_ascii_digit())).then_some((
                attr(tag, "x")?,
                attr(tag, "y")?,
                size,
                body,
            ))
        })
        .collect();
    let top = labels.iter().map(|l| l.1).fold(f64::INFINITY, f64::min);
    labels.retain(|l| l.1 < top + 40.0);
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(labels.iter().any(|l| l.3 == "20"), "{labels:?}");
    for pair in labels.windows(2) {
        // A DejaVu Sans digit advances 1303/2048 em; at least 3 px between two labels.
        let end = pair[0].0 + 1303.0 / 2048.0 * pair[0].2 * pair[0].3.len() as f64;
        assert!(
            end + 3.0 <= pair[1].0,
            "{} runs into {}: {labels:?}",
            pair[0].3,
            pair[1].3
        );
    }
}

/// The SVG source (texts as texts) of the chart `timeline` of the config `text`.
fn timeline_svg(text: &str) -> String {
    let config = library_config(&crate::harness::registry(), "timeline.toml", text).unwrap();
    chart_svgs(&config)
        .into_iter()
        .find(|(n, _, _)| n == "timeline")
        .unwrap()
        .1
}

/// A timeline on a phone grows downwards instead of squeezing its lanes: two appliers' keep
/// the narrow layout's least height (510 pixels), six appliers' lanes (one row each) keep
/// 40 pixels each beside the title, the time axis and the legend (at least 240 more); 500
/// lanes stop at 4,000 pixels.
#[test]
fn a_narrow_timeline_grows_with_its_lanes() {
    let narrow_height = |appliers: u32| -> u32 {
        let config = library_config(
            &crate::harness::registry(),
            "timeline.toml",
            &format!(
                "model = \"lock_queue\"\n[params]\nappliers = {appliers}\nlock = \"queue\"\nhold_ms = 10\n"
            ),
        )
        .unwrap();
        let timeline = super::prepared(&config)
            .into_iter()
            .find(|chart| chart.name == "timeline")
            .unwrap();
        let svg = timeline.narrow_svg().unwrap();
        let height = svg.split("height=\"").nth(1).unwrap();
        height[..height.find('"').unwrap()].parse().unwrap()
    };
    let (two, six) = (narrow_height(2), narrow_height(6));
    assert_eq!(two, 510);
    assert!(
        six > two && six >= 6 * 40 + 240,
        "two lanes {two} px, six {six} px"
    );
    // 500 lanes (the most drawn) would ask for 20,000: a chart's largest side bounds it.
    assert_eq!(narrow_height(500), 4000);
}
