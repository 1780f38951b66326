//! How a lesson's links, images and marked regions are written in each of its three views:
//! the author's page (every region marked with its check), the reader's page (the same
//! text, no check shown, each region's provenance one tap away) and the fragment (the
//! reader's view with nothing outside itself: ids prefixed, charts inline, no link to a file).

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use super::config_page::ConfigInfo;
use super::fragment::Inliner;
use super::frame::{Depth, badge};
use super::html::Html;
use super::images::Images;
use super::markdown::{Hooks, Image};
use super::provenance::{RegionView, Shown, provenance};
use super::words::{Words, say};
use crate::export::chart::NARROW_SUFFIX;
use crate::lesson::parse::Kind;

/// Which view of a lesson is being written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum View {
    /// The author's page: every region's check.
    Author,
    /// The reader's page: no check shown.
    Reader,
    /// The fragment: the reader's view, self-contained.
    Embed,
}

/// A lesson's files in `OUT/site/`.
pub(super) struct LessonFiles {
    /// The lesson's canonical path (how another lesson's link names it).
    pub(super) canonical: PathBuf,
    /// The author's page.
    pub(super) page: String,
    /// The reader's page.
    pub(super) reader: String,
    /// The fragment.
    pub(super) fragment: String,
}

/// Links, images and regions of one lesson in one view.
pub(super) struct LessonHooks<'a> {
    pub(super) view: View,
    /// What every id of the view starts with: empty on a page, the lesson's own prefix in
    /// a fragment (so two fragments on one page never share an id).
    pub(super) prefix: &'a str,
    pub(super) dir: &'a Path,
    pub(super) regions: &'a [RegionView<'a>],
    /// Every lesson's files.
    pub(super) lessons: &'a [LessonFiles],
    pub(super) configs: &'a [ConfigInfo],
    pub(super) images: &'a RefCell<Images>,
    /// File names taken in `OUT/site/`.
    pub(super) used: &'a RefCell<Vec<String>>,
    /// The lesson's locale: the language of the page's own words.
    pub(super) lc: Words<'a>,
    /// What writes a fragment's charts and images inline (the fragment's view only).
    pub(super) inline: Option<&'a Inliner<'a>>,
    /// The chart block being written, if any (its region's index).
    pub(super) chart_block: Cell<Option<usize>>,
    /// How many explorers the view holds so far (it then needs the explorer's script).
    pub(super) explorers: Cell<usize>,
    /// How many live charts a page of the site holds so far (it then needs their words).
    pub(super) live_charts: Cell<usize>,
}

impl LessonHooks<'_> {
    /// The phone rendering of the chart whose block is being written, from the config's
    /// report (the block's image is that chart, as `lesson check` verifies).
    fn narrow_chart(&self) -> Option<String> {
        let r = self.regions.get(self.chart_block.get()?)?;
        let (Kind::Chart { chart }, Some(config)) = (&r.region.kind, r.config) else {
            return None;
        };
        let file = if chart.starts_with("trace-") {
            format!("explore/{chart}{NARROW_SUFFIX}")
        } else {
            format!("{chart}{NARROW_SUFFIX}")
        };
        config
            .narrow
            .contains(&file)
            .then(|| Depth::Site.output(&config.stem, &file))
    }

    /// The explorer of an explorer region, from its config's graph: the point its filters
    /// pick, as `lesson check` picked it.
    fn explorer(&self, h: &mut Html, r: &RegionView<'_>) {
        let (Some((_, loaded)), Some(info)) = (r.run, r.config) else {
            return;
        };
        let config = loaded.config_in(self.lc.locale);
        let (Ok(point), Some(play)) = (
            crate::lesson::explorer::point(config, r.region),
            info.play.as_deref(),
        ) else {
            return;
        };
        if super::explorer::lesson(h, play, point, self.lc) {
            self.explorers.set(self.explorers.get() + 1);
        }
    }

    /// A chart block's image on a page of the site: its figure, with links that save it as
    /// SVG (the lesson's own image, at `url`), as PNG and, for a step chart, as its CSV (the
    /// config's files); a line or bar chart's points for the live values and their CSV.
    fn site_figure(&self, r: &RegionView<'_>, i: usize, url: &str) -> (Html, Html) {
        let (mut before, mut h) = (Html::new(), Html::new());
        let Kind::Chart { chart } = &r.region.kind else {
            return (before, h);
        };
        let points = (r.run)
            .and_then(|(_, loaded)| super::fragment::drawn(loaded, self.lc, chart))
            .and_then(|(_, points)| points);
        let class = if points.is_some() {
            "cs-figure live"
        } else {
            "cs-figure"
        };
        let id = format!("chart-r{}", i + 1);
        before.open(
            "span",
            &[("class", class), ("id", &id), ("data-name", chart)],
        );
        h.open("span", &[("class", "cs-caption")]);
        h.el("code", &[], chart);
        h.text(" · ");
        let svg = format!("{chart}.svg");
        h.el("a", &[("href", url), ("download", &svg)], "SVG");
        let folder = if chart.starts_with("trace-") {
            "explore/"
        } else {
            ""
        };
        for (ext, text) in [("png", "PNG"), ("csv", "CSV")] {
            let file = format!("{folder}{chart}.{ext}");
            // A line or bar chart's CSV is its points, which the live chart saves.
            let live_csv = ext == "csv" && points.is_some();
            let saved = (r.config).filter(|c| !live_csv && c.files.contains(&file));
            if let Some(config) = saved {
                h.text(" · ");
                let download = format!("{chart}.{ext}");
                h.el(
                    "a",
                    &[
                        ("href", &Depth::Site.output(&config.stem, &file)),
                        ("download", &download),
                    ],
                    text,
                );
            }
        }
        h.close("span");
        if let Some(points) = points {
            h.json("chart-points", &points);
            self.live_charts.set(self.live_charts.get() + 1);
        }
        h.close("span");
        (before, h)
    }

    /// A region's class on the author's view (`pass` / `fail`; none on a reader's), its
    /// anchor (`r1`) and its provenance's id (`p1`), each after the view's prefix.
    fn ids(&self, r: &RegionView<'_>, i: usize) -> (&'static str, String, String) {
        let class = match (self.view, r.outcome.pass) {
            (View::Author, true) => " pass",
            (View::Author, false) => " fail",
            _ => "",
        };
        (
            class,
            format!("{}r{}", self.prefix, i + 1),
            format!("{}p{}", self.prefix, i + 1),
        )
    }

    /// A region's provenance, in the view's box (hidden until asked for in a fragment,
    /// so that a host that drops the fragment's styles shows the text alone).
    fn provenance(&self, h: &mut Html, r: &RegionView<'_>, tip: &str, links: bool) {
        let shown = Shown {
            links: links && self.view != View::Embed,
            checks: self.view == View::Author,
        };
        match self.view {
            View::Embed => h.open(
                "span",
                &[
                    ("class", "cs-p"),
                    ("role", "tooltip"),
                    ("id", tip),
                    ("hidden", ""),
                ],
            ),
            _ => h.open(
                "span",
                &[("class", "cs-p"), ("role", "tooltip"), ("id", tip)],
            ),
        };
        provenance(h, r, shown, self.lc);
        h.close("span");
    }
}

impl Hooks for LessonHooks<'_> {
    fn id(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    fn link(&self, dest: &str) -> Option<String> {
        if let Some(fragment) = dest.strip_prefix('#') {
            return Some(format!("#{}{fragment}", self.prefix));
        }
        let lower = dest.to_ascii_lowercase();
        if ["http:", "https:", "mailto:"]
            .iter()
            .any(|s| lower.starts_with(s))
        {
            return Some(dest.to_string());
        }
        // A fragment links to no other file: another lesson or a config is its name alone.
        if dest.contains(':') || self.view == View::Embed {
            return None;
        }
        // Another lesson's page (the reader's, from a reader's page) or a config's page;
        // anything else is not in the site.
        let (path, fragment) = match dest.split_once('#') {
            Some((p, f)) => (p, format!("#{f}")),
            None => (dest, String::new()),
        };
        let target = std::fs::canonicalize(self.dir.join(path)).ok()?;
        if let Some(files) = self.lessons.iter().find(|l| l.canonical == target) {
            let page = match self.view {
                View::Reader => &files.reader,
                _ => &files.page,
            };
            return Some(format!("{}{fragment}", Depth::Site.site(page)));
        }
        self.configs
            .iter()
            .find(|c| c.canonical == target)
            .map(|c| Depth::Site.site(c.file()))
    }

    fn image(&self, src: &str) -> Image {
        if src.contains(':') {
            return Image::Missing(
                say(
                    self.lc,
                    "{src}: the site shows only the lesson's own image files, never one from the network",
                )
                .replace("{src}", src),
            );
        }
        if let Some(inline) = self.inline {
            let chart = self.chart_block.get().and_then(|i| self.regions.get(i));
            if let Some(figure) = chart.and_then(|r| inline.chart(r, self.prefix)) {
                return Image::Inline(figure);
            }
            let images = self.images.borrow();
            return match images.read(&self.dir.join(src), self.lc) {
                Ok((_, ext, bytes)) => Image::Data(super::fragment::media_type(&ext), bytes),
                Err(why) => Image::Missing(format!("{src}: {why}")),
            };
        }
        let mut images = self.images.borrow_mut();
        match images.copy(&self.dir.join(src), &mut self.used.borrow_mut(), self.lc) {
            Ok(name) => {
                let url = Depth::Site.site(&name);
                let chart = self.chart_block.get();
                match chart.and_then(|i| Some((i, self.regions.get(i)?))) {
                    Some((i, r)) => {
                        let (before, after) = self.site_figure(r, i, &url);
                        Image::Figure(before, url, self.narrow_chart(), after)
                    }
                    None => Image::Site(url, None),
                }
            }
            Err(why) => Image::Missing(format!("{src}: {why}")),
        }
    }

    fn open_inline(&self, h: &mut Html, i: usize) {
        let Some(r) = self.regions.get(i) else { return };
        let (class, id, tip) = self.ids(r, i);
        h.open("span", &[("class", &format!("cs-r{class}")), ("id", &id)]);
        h.open(
            "span",
            &[
                ("class", "cs-v"),
                ("tabindex", "0"),
                ("aria-describedby", &tip),
            ],
        );
    }

    fn close_inline(&self, h: &mut Html, i: usize, in_link: bool) {
        let Some(r) = self.regions.get(i) else { return };
        let (_, _, tip) = self.ids(r, i);
        if !r.outcome.pass && self.view == View::Author {
            h.el("sup", &[("class", "cs-flag")], say(self.lc, "drift"));
        }
        h.close("span");
        self.provenance(h, r, &tip, !in_link);
        h.close("span");
    }

    fn open_block(&self, h: &mut Html, i: usize) {
        let Some(r) = self.regions.get(i) else { return };
        if matches!(r.region.kind, Kind::Chart { .. }) {
            self.chart_block.set(Some(i));
        }
        let (class, id, tip) = self.ids(r, i);
        // A step chart (`chart NAME trace-N`) is as wide as its steps: it scrolls in its
        // box rather than shrink.
        let steps = match &r.region.kind {
            Kind::Chart { chart } if chart.starts_with("trace-") => " steps",
            // An explorer's provenance opens on its own focus or its tag, not on every
            // button of the explorer.
            Kind::Explorer => " cs-x",
            _ => "",
        };
        h.open(
            "div",
            &[
                ("class", &format!("cs-b{class}{steps}")),
                ("id", &id),
                ("tabindex", "0"),
                ("aria-describedby", &tip),
            ],
        );
        if self.view == View::Author {
            h.with("span", &[("class", "cs-tag")], |h| {
                badge(
                    h,
                    r.outcome.pass,
                    say(self.lc, "checked"),
                    say(self.lc, "drifted"),
                );
                h.text(" ").el("code", &[], &r.outcome.name);
            });
        }
        if r.region.kind == Kind::Explorer {
            self.explorer(h, r);
        }
    }

    fn close_block(&self, h: &mut Html, i: usize) {
        self.chart_block.set(None);
        let Some(r) = self.regions.get(i) else { return };
        let (_, _, tip) = self.ids(r, i);
        if self.view != View::Author {
            // What a reader taps (or hovers) for where the block comes from.
            h.el("span", &[("class", "cs-src")], say(self.lc, "source"));
        }
        self.provenance(h, r, &tip, true);
        h.close("div").newline();
    }
}
