//! A lesson as one self-contained HTML fragment (`OUT/site/lesson-NAME.embed.html`), to
//! paste into a course platform's page: the reader's view of the lesson (no check shown,
//! each marked value's provenance on hover, tap or focus), its charts drawn inline as SVG
//! with their points for the live values, its other images held as `data:` URLs, its styles
//! scoped under one root element (`.coordsim-lesson`) and its script inline and scoped to that
//! element. It links to no other file and asks for none.
//!
//! Two fragments on one page never share an id: every id of a fragment starts with its
//! lesson's prefix (`cs-003-…-`), a chart's own ids (its glyphs) with the chart's after it.
//! The same fragment pasted twice shares its ids with itself (its links then go to the
//! first copy); its script works in both copies, each finding its own root.
//!
//! [`Widget`] is where more than charts comes in: markup with its JSON data and a script
//! run once per fragment with the fragment's root element (an explorer, for one).

use super::html::Html;
use super::provenance::RegionView;
use super::svg::inline_svg;
use super::words::Words;
use crate::lesson::eval::Loaded;
use crate::lesson::parse::Kind;

/// The fragment's stylesheet: every selector under `.coordsim-lesson`.
const STYLE: &str = include_str!("fragment.css");

/// The live charts' script (shared with the site's pages).
pub(super) const CHARTS_SCRIPT: &str = include_str!("charts.js");

/// The fragment's first line.
pub(crate) const FRAGMENT_HEAD: &str = "<!-- coordsim report: a lesson as one self-contained fragment (no file of its own is needed); paste it whole into a page of a course. Written by `coordsim report`; do not edit by hand. -->";

/// Something a fragment holds beside its lesson: markup (its JSON data blocks written with
/// [`Html::json`]) and a script run once per fragment as the body of `function (root) {…}`,
/// `root` the fragment's element. The script finds its data under `root` alone and adds
/// nothing to the page's globals, so two fragments (or the same one twice) on a page work
/// side by side.
pub(crate) struct Widget {
    /// Written after the lesson, inside the fragment.
    pub(crate) markup: Html,
    /// Its script (a constant of the binary: no user text in it).
    pub(crate) script: &'static str,
}

/// The fragment of a lesson: `body` (its reader's view, ids prefixed) in the root element
/// with the scoped stylesheet, then each widget's markup and one script that runs each
/// widget's script with the root.
pub(crate) fn document(lang: &str, root_id: &str, body: Html, widgets: Vec<Widget>) -> String {
    let mut h = Html::new();
    h.open(
        "div",
        &[
            ("class", "coordsim-lesson"),
            ("lang", lang),
            ("id", root_id),
        ],
    )
    .newline();
    h.inline_code("style", &without_blank_lines(STYLE))
        .newline();
    h.append(body);
    let mut script = String::from("(function (root) {\n  if (!root) {\n    return;\n  }\n");
    let mut scripts: Vec<&'static str> = Vec::new();
    for widget in widgets {
        h.append(widget.markup);
        if !scripts.contains(&widget.script) {
            scripts.push(widget.script);
        }
    }
    for s in scripts {
        script.push_str("  (function (root) {\n");
        script.push_str(&without_blank_lines(s));
        script.push_str("\n  })(root);\n");
    }
    script.push_str("})(document.currentScript && document.currentScript.parentNode);\n");
    h.inline_code("script", &script).newline();
    h.close("div").newline();
    // No blank line: Markdown (mdBook's, a course's) reads raw HTML up to the first blank
    // line, and would read the rest as Markdown. A blank line of the lesson's own text (in a
    // code block) keeps its line break as a character reference. The charset, first: a
    // browser reads it in a file's first 1,024 bytes, and in a page it changes nothing.
    let text = h.finish().replace("\n\n", "\n&#10;");
    format!("{FRAGMENT_HEAD}\n<meta charset=\"utf-8\">\n{text}")
}

/// `code` (a stylesheet or a script) without its empty lines.
fn without_blank_lines(code: &str) -> String {
    let lines: Vec<&str> = code.lines().filter(|l| !l.trim().is_empty()).collect();
    lines.join("\n")
}

/// The `data:` URL media type of an image file's extension (one a lesson page copies).
pub(crate) fn media_type(ext: &str) -> &'static str {
    match ext {
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        _ => "image/webp",
    }
}

/// What writes a fragment's charts inline: each chart block's chart drawn again as the
/// lesson's locale shows it (the same bytes `lesson check` compared with the lesson's
/// image), at both sizes, with its points for the live values.
pub(crate) struct Inliner<'a> {
    /// The lesson's words.
    pub(crate) lc: Words<'a>,
    /// How many of the charts inlined so far are live (the fragment then holds the charts'
    /// words, once).
    pub(crate) live: std::cell::Cell<usize>,
    /// How many charts are drawn inline so far (the fragment then holds the charts' script,
    /// which saves each as SVG or PNG).
    pub(crate) figures: std::cell::Cell<usize>,
}

impl Inliner<'_> {
    /// The chart of chart block `r` as a live figure; `None` when it cannot be drawn
    /// inline (the lesson's image is then held as a `data:` URL).
    pub(super) fn chart(&self, r: &RegionView<'_>, prefix: &str) -> Option<Html> {
        let Kind::Chart { chart } = &r.region.kind else {
            return None;
        };
        let (_, loaded) = r.run?;
        let (file, bytes) = r.outcome.image.as_ref()?;
        let steps = chart.starts_with("trace-");
        let alt = loaded.config_in(self.lc.locale).title.clone();
        let mut h = Html::new();
        let id = format!("{prefix}chart-{chart}");
        if file.extension().is_none_or(|e| e != "svg") {
            h.data_image("image/png", bytes, &alt);
            return Some(h);
        }
        let full = inline_svg(
            std::str::from_utf8(bytes).ok()?,
            &format!("{id}-"),
            "class=\"cs-full\"",
            !steps,
        )?;
        let drawn = drawn(loaded, self.lc, chart);
        let narrow = drawn.as_ref().and_then(|(narrow, _)| {
            inline_svg(
                narrow,
                &format!("{id}-n-"),
                // Shown by the stylesheet where the fragment is narrow; never without it.
                "class=\"cs-narrow\" style=\"display:none\"",
                !steps,
            )
        });
        let points = drawn.and_then(|(_, points)| points);
        self.figures.set(self.figures.get() + 1);
        let class = match (&points, steps) {
            (Some(_), _) => "cs-figure live",
            (None, true) => "cs-figure steps",
            (None, false) => "cs-figure",
        };
        h.open(
            "span",
            &[("class", class), ("id", &id), ("data-name", chart)],
        );
        h.with("span", &[("class", "cs-svg")], |h| {
            h.inline_svg(&full);
            if let Some(narrow) = &narrow {
                h.inline_svg(narrow);
            }
        });
        h.with("span", &[("class", "cs-caption")], |h| {
            h.el("code", &[], chart);
        });
        if let Some(points) = points {
            h.json("chart-points", &points);
            self.live.set(self.live.get() + 1);
        }
        h.close("span");
        Some(h)
    }
}

/// A chart of `loaded` as a lesson in `lc`'s locale shows it: its phone rendering and, for
/// a line or bar chart, its points' block ([`super::live`]).
pub(super) fn drawn(
    loaded: &Loaded,
    lc: Words<'_>,
    chart: &str,
) -> Option<(String, Option<String>)> {
    let run = loaded.run_in(lc.locale);
    let charts = crate::export::chart::prepare(&run).ok()?;
    let prepared = charts.files.iter().find(|c| c.name == chart)?;
    let narrow = prepared.narrow_svg().ok()?;
    let points = crate::export::chart::live(&run)
        .ok()?
        .into_iter()
        .find(|l| l.name == chart)
        .map(|l| super::live::points(&l));
    Some((narrow, points))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pasted into Markdown (mdBook's parser is this one), the fragment is one HTML block,
    /// kept whole, whatever blank lines the lesson's code blocks hold.
    #[test]
    fn markdown_keeps_a_fragment_whole() {
        let mut body = Html::new();
        body.with("pre", &[], |h| {
            h.el("code", &[], "a\n\n\n    b\n");
        });
        let fragment = document("en", "cs-x-lesson", body, Vec::new());
        assert!(!fragment.lines().any(|l| l.trim().is_empty()), "{fragment}");
        assert!(fragment.contains("<pre><code>a\n&#10;\n    b\n</code></pre>"));
        let page = format!("# A course\n\n{fragment}\nAfter *it*.\n");
        use pulldown_cmark::{Event, Parser, Tag};
        let events: Vec<Event<'_>> = Parser::new(&page).collect();
        let raw: String = (events.iter())
            .filter_map(|e| match e {
                Event::Html(t) => Some(t.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(raw, fragment);
        // What follows it is Markdown again.
        assert!(events.contains(&Event::Start(Tag::Emphasis)));
    }

    #[test]
    fn the_inline_code_ends_no_element_early() {
        for (what, text) in [
            ("style", STYLE),
            ("charts", CHARTS_SCRIPT),
            ("explorer", super::super::explorer::SCRIPT),
        ] {
            assert!(!text.contains("</"), "{what} holds `</`");
        }
        // Every selector of the stylesheet is under the fragment's root (a rule's selectors
        // are on its first line).
        for line in STYLE.lines().map(str::trim) {
            assert!(
                !line.ends_with(','),
                "{line:?}: a rule's selectors on one line"
            );
            if !line.ends_with('{') || line.starts_with('@') {
                continue;
            }
            for s in line.trim_end_matches('{').split(',') {
                assert!(
                    s.trim().starts_with(".coordsim-lesson"),
                    "{s:?} is not scoped"
                );
            }
        }
    }
}
