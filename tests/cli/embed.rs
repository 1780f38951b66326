//! Where the course lives: each lesson's fragment (`site/lesson-NAME.embed.html`, one
//! self-contained piece of HTML to paste into a course platform's page) and its reader's
//! view (`site/lesson-NAME.reader.html`). `tests/browser/embed.test.mjs` pastes a fragment
//! into an empty page in Chromium.

use std::collections::BTreeSet;
use std::path::Path;

use crate::harness::*;
use crate::site::{Course, QUEUE, check_links};

/// Every value of attribute `name` in `html` (`name="…"`, after a space).
fn values<'h>(html: &'h str, name: &str) -> Vec<&'h str> {
    let open = format!(" {name}=\"");
    html.split(&open)
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect()
}

/// What a fragment must be wherever it is pasted: no link or source to another file (a
/// link to a page of the web aside), no element id twice, every reference inside it to
/// an id of its own. Its ids.
fn self_contained(name: &str, html: &str) -> BTreeSet<String> {
    for attr in [
        "src",
        "srcset",
        "href",
        "xlink:href",
        "action",
        "poster",
        "data",
    ] {
        for v in values(html, attr) {
            let web = attr == "href"
                && ["https:", "http:", "mailto:"]
                    .iter()
                    .any(|s| v.starts_with(s));
            assert!(
                v.starts_with('#') || v.starts_with("data:") || web,
                "{name}: {attr}=\"{v}\" points at another file"
            );
        }
    }
    for tag in [
        "<link",
        "<iframe",
        "<object",
        "<embed",
        "<base",
        "<script src",
    ] {
        assert!(!html.contains(tag), "{name}: holds {tag}");
    }
    // Its charset (for a browser that opens the file itself), nothing else of a head.
    assert_eq!(html.matches("<meta").count(), 1, "{name}");
    assert_eq!(
        html.lines().nth(1),
        Some("<meta charset=\"utf-8\">"),
        "{name}"
    );
    // Markdown keeps raw HTML up to a blank line: it has none.
    assert!(
        !html.lines().any(|l| l.trim().is_empty()),
        "{name}: a blank line"
    );
    assert!(!html.contains("url("), "{name}: a stylesheet's url()");
    let mut ids = BTreeSet::new();
    for id in values(html, "id") {
        assert!(ids.insert(id.to_string()), "{name}: id {id} twice");
    }
    for target in values(html, "href")
        .into_iter()
        .chain(values(html, "xlink:href"))
        .filter_map(|v| v.strip_prefix('#'))
        .chain(values(html, "aria-describedby"))
    {
        assert!(ids.contains(target), "{name}: #{target} is none of its ids");
    }
    ids
}

/// A course of two lessons: `one` with a heading linked from its text, a link to `two` and
/// to the config, a marked value, a chart block and an image that is an SVG holding a
/// script; `two` with a marked value.
fn two_lessons() -> Course {
    let c = Course::new();
    c.config("a.toml", &QUEUE.replace("TITLE", "Queue A"));
    c.lesson(
        "one.md",
        "<!-- coordsim use a = \"../configs/a.toml\" -->\n# One\n\nSee [below](#the-chart), [lesson two](two.md) and [the config](../configs/a.toml).\nCapacity <!-- coordsim a.capacity_per_s clients=2 -->200<!-- /coordsim --> per second.\n\n## The chart\n\n<!-- coordsim chart a wait-vs-offered-rate -->\n![wait](img/w.svg)\n<!-- /coordsim -->\n\n![a picture](img/p.svg)\n",
    );
    c.lesson(
        "two.md",
        "<!-- coordsim use a = \"../configs/a.toml\" -->\n# Two\n\n## The chart\n\nCapacity <!-- coordsim a.capacity_per_s clients=1 -->200<!-- /coordsim -->.\n",
    );
    std::fs::write(
        c.path("lessons/img/p.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>",
    )
    .unwrap();
    let fill = coordsim_in(c.dir.path(), &["lesson", "fill", "lessons/one.md"]);
    assert_eq!(fill.status.code(), Some(0), "{}", stderr(&fill));
    let o = c.report("out", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    c
}

#[test]
fn a_lessons_fragment_holds_all_it_shows_and_two_share_no_id() {
    let c = two_lessons();
    let one = c.page("out/site/lesson-one.embed.html");
    let two = c.page("out/site/lesson-two.embed.html");
    let ids_one = self_contained("one", &one);
    let ids_two = self_contained("two", &two);
    // Both have a heading "The chart": each its own id.
    assert!(ids_one.contains("cs-one-the-chart") && ids_two.contains("cs-two-the-chart"));
    let shared: Vec<&String> = ids_one.intersection(&ids_two).collect();
    assert!(shared.is_empty(), "ids in both: {shared:?}");
    // The chart inline, both renderings, with its points; its glyphs' ids its own.
    assert_eq!(one.matches("<svg class=\"cs-full\"").count(), 1, "{one}");
    assert_eq!(one.matches("<svg class=\"cs-narrow\"").count(), 1);
    assert_eq!(one.matches("class=\"chart-points\"").count(), 1);
    assert_eq!(one.matches("class=\"chart-words\"").count(), 1);
    assert!(
        ids_one
            .iter()
            .any(|id| id.starts_with("cs-one-chart-wait-vs-offered-rate-n-"))
    );
    // The SVG with a script is an image of the page's own bytes, never its markup.
    assert!(!one.contains("alert(1)"));
    assert!(one.contains("<img src=\"data:image/svg+xml;base64,"));
    // Links to another lesson or the config are their text; the anchor is the fragment's.
    assert!(one.contains("href=\"#cs-one-the-chart\""));
    assert!(one.contains("lesson two") && one.contains("the config"));
    // The reader's view: no check, no link to a page.
    for mark in [
        "class=\"badge",
        "cs-tag",
        "cs-flag",
        " pass\"",
        "matches the run",
    ] {
        assert!(!one.contains(mark), "the fragment shows {mark}");
    }
    assert!(one.contains("where it comes from"));
    // One root element of one class, after the line that says what the file is and its
    // charset.
    assert!(one.starts_with("<!-- coordsim report: a lesson as one self-contained fragment"));
    assert_eq!(
        one.lines().nth(2),
        Some("<div class=\"coordsim-lesson\" lang=\"en\" id=\"cs-one-lesson\">")
    );
    assert!(one.trim_end().ends_with("</script>\n</div>"));
    check_links(&c.path("out"));
}

#[test]
fn the_author_and_reader_views_link_each_other_and_the_fragments_weight_is_said() {
    let c = two_lessons();
    let author = c.page("out/site/lesson-one.html");
    let reader = c.page("out/site/lesson-one.reader.html");
    let bytes = std::fs::metadata(c.path("out/site/lesson-one.embed.html"))
        .unwrap()
        .len();
    // kB of 1,000 bytes, rounded up: a fragment of 1 byte is 1 kB.
    let kb = bytes.div_ceil(1000);
    assert!(author.contains("href=\"lesson-one.reader.html\""));
    assert!(author.contains(&format!("href=\"lesson-one.embed.html\">The lesson as one fragment to paste into a course&#39;s page</a> ({kb} kB)")), "{author}");
    assert!(reader.contains("href=\"lesson-one.html\""));
    // The reader's page: the same lesson, its values and their provenance, no check.
    assert!(author.contains("class=\"badge pass\">checked</span>"));
    for mark in ["class=\"badge", "cs-tag", "matches the run", "checked by"] {
        assert!(!reader.contains(mark), "the reader's view shows {mark}");
    }
    assert!(
        reader.contains("<span class=\"cs-v\" tabindex=\"0\" aria-describedby=\"p1\">200</span>")
    );
    // Its link to another lesson goes to that lesson's reader's view.
    assert!(
        reader.contains("href=\"lesson-two.reader.html\""),
        "{reader}"
    );
    assert!(author.contains("href=\"lesson-two.html\""));
}

/// The structure of a small fragment: its root, styles, lesson and script (the stylesheet
/// and the script's text left out: unit tests read them).
#[test]
fn a_small_fragments_structure() {
    let c = Course::new();
    c.config("a.toml", &QUEUE.replace("TITLE", "Queue A"));
    c.lesson(
        "s.md",
        "<!-- coordsim use a = \"../configs/a.toml\" -->\n<!-- coordsim locale = \"tr\" -->\n# Küçük\n\nKapasite <!-- coordsim a.capacity_per_s clients=2 -->200<!-- /coordsim -->.\n",
    );
    let o = c.report("out", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let fragment = c.page("out/site/lesson-s.embed.html");
    let elide = |text: &str, open: &str, close: &str| -> String {
        let a = text.find(open).unwrap() + open.len();
        let b = a + text[a..].find(close).unwrap();
        format!("{}…{}", &text[..a], &text[b..])
    };
    let shown = elide(
        &elide(&fragment, "<style>", "</style>"),
        "<script>",
        "</script>",
    );
    insta::assert_snapshot!("small_fragment", shown);
}

/// Every lesson of the repository as a fragment: self-contained, no id shared between two,
/// each under a megabyte (the weights printed).
#[test]
fn the_repositorys_fragments_are_self_contained_and_light() {
    let out = tempfile::tempdir().unwrap();
    let o = coordsim_in(
        &root(),
        &["report", "--out", &out.path().to_string_lossy(), "--quiet"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let site = out.path().join("site");
    let mut fragments: Vec<(String, BTreeSet<String>)> = Vec::new();
    for entry in std::fs::read_dir(&site).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !name.ends_with(".embed.html") {
            continue;
        }
        let html = String::from_utf8(read(site.join(&name))).unwrap();
        eprintln!("{name}: {} bytes", html.len());
        assert!(html.len() < 1_000_000, "{name}: {} bytes", html.len());
        let ids = self_contained(&name, &html);
        for (other, theirs) in &fragments {
            assert!(ids.is_disjoint(theirs), "{name} and {other} share an id");
        }
        fragments.push((name, ids));
    }
    let lessons = count_lessons(&root().join("lessons"));
    assert_eq!(fragments.len(), lessons, "a fragment per lesson");
}

fn count_lessons(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| match p.is_dir() {
            true => count_lessons(&p),
            false => usize::from(p.extension().is_some_and(|e| e == "md")),
        })
        .sum()
}

/// A sweep of two parameters: the slider has one input per parameter, and each point's
/// hidden piece says the index of its values (`data-at`) and holds its row of the table,
/// both as results.csv's row of that point gives them; a config with no sweep has none.
#[test]
fn a_config_pages_slider_holds_each_points_row_under_its_values() {
    let c = Course::new();
    c.config(
        "s.toml",
        "model = \"single_writer_queue\"\ntitle = \"S\"\n[params]\nrequests_per_client = 10\ninterarrival_ms = 1000\n[sweep]\nclients = [1, 2]\nservice_ms = [5, 7]\n",
    );
    c.config(
        "one.toml",
        "model = \"single_writer_queue\"\ntitle = \"One\"\n",
    );
    let o = c.report("out", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = c.page("out/site/config-s.html");
    let section = &page[page
        .find("<section class=\"sweep-slider\" id=\"slider\" hidden=\"\">")
        .unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    assert_eq!(section.matches("<input type=\"range\"").count(), 2);
    assert!(
        section.contains("data-values=\"[&quot;1&quot;,&quot;2&quot;]\""),
        "{section}"
    );
    let csv = c.page("out/s/results.csv");
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let pieces: Vec<&str> = section
        .split("<div class=\"slider-point\" data-at=\"")
        .skip(1)
        .collect();
    assert_eq!(pieces.len(), 4);
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let point: usize = cells[col("point")].parse().unwrap();
        let (clients, service) = (cells[col("clients")], cells[col("service_ms")]);
        // The index of each value in its sweep: clients [1, 2], service_ms [5, 7].
        let at = format!(
            "{},{}",
            ["1", "2"].iter().position(|v| *v == clients).unwrap(),
            ["5", "7"].iter().position(|v| *v == service).unwrap()
        );
        let piece = pieces[point];
        assert!(
            piece.starts_with(&format!("{at}\" hidden=\"\">")),
            "point {point}: {piece}"
        );
        let row = &piece[piece.find("<tbody>").unwrap()..];
        // The table's first columns: the swept parameters.
        let want = format!("<tr><td class=\"num\">{clients}</td><td class=\"num\">{service}</td>");
        assert!(row.contains(&want), "point {point}: {row}");
        assert_eq!(row.matches("<tr>").count(), 1, "point {point}: one row");
    }
    assert!(!c.page("out/site/config-one.html").contains("sweep-slider"));
}

/// A sweep that lists a value twice still has one slider position per point: each point's
/// place is its coordinate, not the first place its value appears (which gave two points
/// the same position and the last none).
#[test]
fn a_slider_over_a_value_listed_twice_has_a_position_per_point() {
    let c = Course::new();
    c.config(
        "d.toml",
        "model = \"single_writer_queue\"\ntitle = \"D\"\n[params]\nrequests_per_client = 10\ninterarrival_ms = 1000\n[sweep]\nclients = [1, 2, 2]\n",
    );
    let o = c.report("out", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = c.page("out/site/config-d.html");
    let at: Vec<&str> = page
        .split("<div class=\"slider-point\" data-at=\"")
        .skip(1)
        .map(|piece| &piece[..piece.find('"').unwrap()])
        .collect();
    assert_eq!(at, ["0", "1", "2"]);
}

/// The slider's outcomes show each probability as `explore.md` does, to 12 decimals at
/// most: lesson 006's tiny lock queue (gap 1) has its first outcome, all three holds short,
/// at 0.2³ = 0.008 — written `0,008` on its Turkish page, not the float sum's
/// `0,008000000000000002`.
#[test]
fn the_sliders_probabilities_are_rounded_as_explore_md_rounds_them() {
    let page = std::fs::read_to_string(
        crate::harness::root().join("reports/site/config-lock-exact-wait.html"),
    )
    .unwrap();
    let at = page.find("slider-outcomes").expect("the slider's outcomes");
    let table = &page[at..];
    assert!(
        table.contains(">0,008<"),
        "{}",
        &table[..2000.min(table.len())]
    );
    assert!(
        !table.contains("0,00800000000000000"),
        "{}",
        &table[..2000.min(table.len())]
    );
}
