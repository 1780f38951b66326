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
    h.inline_code("style", STYLE).newline();
    h.append(body);
    let mut script = String::from(
        "(function (root) {\n  if (!root) {\n    return;\n  }\n  root.classList.add('js');\n",
    );
    let mut scripts: Vec<&'static str> = Vec::new();
    for widget in widgets {
        h.append(widget.markup);
        if !scripts.contains(&widget.script) {
            scripts.push(widget.script);
        }
    }
    for s in scripts {
        script.push_str("  (function (root) {\n");
        script.push_str(s);
        script.push_str("\n  })(root);\n");
    }
    script.push_str("})(document.currentScript && document.currentScript.parentNode);\n");
    h.inline_code("script", &script).newline();
    h.close("div").newline();
    format!("{FRAGMENT_HEAD}\n{}", h.finish())
}

/// A chart coordsim drew, checked to hold only what a chart is drawn with (no script, no
/// event attribute, no reference outside itself) and its ids prefixed: safe to write into a
/// page as it is.
pub(crate) struct InlineSvg(String);

impl InlineSvg {
    /// Its text.
    pub(crate) fn text(&self) -> &str {
        &self.0
    }
}

/// The elements a chart's SVG is drawn with.
const ELEMENTS: &[&str] = &[
    "svg", "g", "defs", "title", "desc", "path", "use", "line", "polyline", "polygon", "rect",
    "circle", "text",
];

/// The attributes it uses.
const ATTRIBUTES: &[&str] = &[
    "width",
    "height",
    "viewBox",
    "xmlns",
    "xmlns:xlink",
    "role",
    "aria-label",
    "data-smallest-text-px",
    "id",
    "d",
    "fill",
    "stroke",
    "stroke-width",
    "opacity",
    "shape-rendering",
    "transform",
    "points",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "xlink:href",
    "href",
    "font-family",
    "font-size",
    "text-anchor",
    "dominant-baseline",
];

/// `svg` with its ids (and the references to them) after `prefix`, its root element with
/// `root_attrs` (`class="…"`) and, when it fits its box (`fit`), `width="100%"` in place of
/// its size (its height then follows its `viewBox`); `None` when it holds anything [`ELEMENTS`] and [`ATTRIBUTES`] do not
/// list, a reference that is not to an id of its own, or markup that is not plain.
pub(crate) fn inline_svg(
    svg: &str,
    prefix: &str,
    root_attrs: &'static str,
    fit: bool,
) -> Option<InlineSvg> {
    let start = svg.find("<svg")?;
    let mut out = String::with_capacity(svg.len() + 64);
    let mut rest = &svg[start..];
    let mut root = true;
    while let Some(open) = rest.find('<') {
        // Text between elements: no markup, references or entities beyond XML's own.
        let text = &rest[..open];
        if text.contains('>') {
            return None;
        }
        out.push_str(text);
        rest = &rest[open..];
        let end = rest.find('>')?;
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            if !ELEMENTS.contains(&name.trim()) {
                return None;
            }
            out.push('<');
            out.push_str(tag);
            out.push('>');
            continue;
        }
        let (body, void) = match tag.strip_suffix('/') {
            Some(b) => (b, true),
            None => (tag, false),
        };
        let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
        let name = &body[..name_end];
        if !ELEMENTS.contains(&name) {
            return None;
        }
        out.push('<');
        out.push_str(name);
        let mut attrs = body[name_end..].trim_start();
        if root {
            out.push(' ');
            out.push_str(root_attrs);
        }
        while !attrs.is_empty() {
            let eq = attrs.find("=\"")?;
            let key = attrs[..eq].trim();
            let value_end = attrs[eq + 2..].find('"')? + eq + 2;
            let value = &attrs[eq + 2..value_end];
            attrs = attrs[value_end + 1..].trim_start();
            if !ATTRIBUTES.contains(&key) || value.contains('<') {
                return None;
            }
            let value = match key {
                "id" => format!("{prefix}{value}"),
                "href" | "xlink:href" => format!("#{prefix}{}", value.strip_prefix('#')?),
                "width" | "height" if root && fit => continue,
                _ => value.to_string(),
            };
            out.push_str(&format!(" {key}=\"{value}\""));
        }
        if root && fit {
            out.push_str(" width=\"100%\"");
        }
        root = false;
        out.push_str(if void { "/>" } else { ">" });
    }
    if rest.trim().contains(['<', '>']) {
        return None;
    }
    Some(InlineSvg(out))
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
    /// words and script, once).
    pub(crate) live: std::cell::Cell<usize>,
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
fn drawn(loaded: &Loaded, lc: Words<'_>, chart: &str) -> Option<(String, Option<String>)> {
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

    #[test]
    fn a_charts_ids_are_prefixed_and_anything_else_is_refused() {
        let svg = "<svg width=\"10\" height=\"5\" viewBox=\"0 0 10 5\" xmlns=\"http://www.w3.org/2000/svg\">\n<defs><path id=\"g1\" d=\"M0 0\"/></defs><use xlink:href=\"#g1\" transform=\"scale(2)\"/><title>a &lt; b</title></svg>\n";
        let fit = inline_svg(svg, "x-", "class=\"cs-full\"", true).unwrap();
        assert_eq!(
            fit.text(),
            "<svg class=\"cs-full\" viewBox=\"0 0 10 5\" xmlns=\"http://www.w3.org/2000/svg\" width=\"100%\">\n<defs><path id=\"x-g1\" d=\"M0 0\"/></defs><use xlink:href=\"#x-g1\" transform=\"scale(2)\"/><title>a &lt; b</title></svg>"
        );
        let kept = inline_svg(svg, "x-", "class=\"cs-full\"", false).unwrap();
        assert!(
            kept.text()
                .starts_with("<svg class=\"cs-full\" width=\"10\" height=\"5\"")
        );
        for bad in [
            "<svg><script>alert(1)</script></svg>",
            "<svg onload=\"alert(1)\"></svg>",
            "<svg><use xlink:href=\"other.svg#g\"/></svg>",
            "<svg><foreignObject></foreignObject></svg>",
            "<svg><rect x=\"1\" y='2'/></svg>",
            "<svg><title>a > b</title></svg>",
        ] {
            assert!(
                inline_svg(bad, "x-", "class=\"c\"", true).is_none(),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_inline_code_ends_no_element_early() {
        for (what, text) in [("style", STYLE), ("charts", CHARTS_SCRIPT)] {
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
