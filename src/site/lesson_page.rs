//! A lesson's page: its Markdown rendered, every checked region marked (drifted ones stand
//! out), each region's provenance shown on hover or focus — the config, the column, the
//! point or statistic, the run's value, the precision the author wrote, pass or drift, and
//! the claims and config lines that check the same value — and the lesson's images copied
//! into the site, so `reports/` alone can be published.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use super::config_page::ConfigInfo;
use super::frame::{Depth, Input, Page, badge, page, unique_name};
use super::html::Html;
use super::markdown::{self, Hooks, INLINE_CLOSE, Image, MAX_INLINE_REGIONS};
use super::words::{Words, say};
use crate::export::chart::NARROW_SUFFIX;
use crate::lesson::eval::{Loaded, Outcome, selected};
use crate::lesson::parse::{Kind, Lesson, Region};

/// Most bytes of one image a lesson page copies into the site.
pub(crate) const MAX_IMAGE_BYTES: u64 = 32 << 20;

/// The image kinds a lesson page copies.
const IMAGE_EXTENSIONS: &[&str] = &["svg", "png", "jpg", "jpeg", "gif", "webp"];

/// What the index says of a lesson.
pub(crate) struct LessonInfo {
    /// Its page's file name in `OUT/site/`.
    pub(crate) file: String,
    /// The lesson as named (`lessons/003-….md`).
    pub(crate) name: String,
    /// Its first heading.
    pub(crate) title: String,
    /// Its locale's name (`tr`), the language of its title.
    pub(crate) locale: String,
    /// Regions that match the run.
    pub(crate) passed: usize,
    /// Regions in all.
    pub(crate) total: usize,
    /// The drifted regions: (the line `lesson check` prints, the region's anchor).
    pub(crate) failures: Vec<(String, String)>,
}

/// The lesson pages, what the index says of them, and the images they show.
#[derive(Default)]
pub(crate) struct Lessons {
    /// Every lesson's page.
    pub(crate) pages: Vec<Page>,
    /// What the index says of each.
    pub(crate) info: Vec<LessonInfo>,
    /// The images copied into `OUT/site/`: (file name, bytes).
    pub(crate) images: Vec<(String, Vec<u8>)>,
}

/// The images the lesson pages show, each copied once.
struct Images {
    /// The lessons' folder, canonical: only images inside it are copied.
    root: Option<PathBuf>,
    /// (canonical source, file name in the site, bytes).
    copied: Vec<(PathBuf, String, Vec<u8>)>,
}

/// Every lesson's page, in the order the lessons were checked.
pub(crate) fn pages(input: &Input<'_>, configs: &[ConfigInfo]) -> anyhow::Result<Lessons> {
    let Some((session, outcomes)) = input.lessons else {
        return Ok(Lessons::default());
    };
    let mut used: Vec<String> = vec!["style.css".into(), "site.js".into()];
    used.extend(configs.iter().map(|c| c.file().to_string()));
    // Every page's name first: lessons link to each other.
    let names: Vec<(PathBuf, String)> = session
        .lessons
        .iter()
        .map(|(file, _)| {
            let rel = Path::new(file)
                .strip_prefix(input.lessons_dir)
                .unwrap_or(Path::new(file));
            let base = rel.with_extension("").to_string_lossy().replace('/', "--");
            let canonical = std::fs::canonicalize(file).unwrap_or_else(|_| PathBuf::from(file));
            (canonical, unique_name("lesson-", &base, ".html", &mut used))
        })
        .collect();
    let images = RefCell::new(Images {
        root: std::fs::canonicalize(input.lessons_dir).ok(),
        copied: Vec::new(),
    });
    let mut out = Lessons::default();
    for (li, ((file, lesson), (_, list))) in session.lessons.iter().zip(outcomes).enumerate() {
        let page_file = names[li].1.clone();
        let regions: Vec<RegionView<'_>> = lesson
            .regions
            .iter()
            .zip(list)
            .map(|(region, outcome)| {
                let run = session.run_of(li, &region.config);
                RegionView {
                    region,
                    outcome,
                    run,
                    config: run.and_then(|(p, _)| configs.iter().find(|c| c.canonical == *p)),
                    use_path: lesson
                        .uses
                        .iter()
                        .find(|u| u.name == region.config)
                        .map_or("", |u| u.path.as_str()),
                }
            })
            .collect();
        let hooks = LessonHooks {
            dir: Path::new(file).parent().unwrap_or(Path::new("")),
            regions: &regions,
            lessons: &names,
            configs,
            images: &images,
            used: RefCell::new(std::mem::take(&mut used)),
            lc: input.words.words(lesson.locale),
            chart_block: std::cell::Cell::new(None),
        };
        let title = title_of(&lesson.text).unwrap_or_else(|| file.clone());
        let used_configs: Vec<(&str, &str, Option<&ConfigInfo>)> = lesson
            .uses
            .iter()
            .map(|u| {
                let info = session
                    .run_of(li, &u.name)
                    .and_then(|(p, _)| configs.iter().find(|c| c.canonical == *p));
                (u.name.as_str(), u.path.as_str(), info)
            })
            .collect();
        let body = render(file, lesson, &regions, &used_configs, &hooks);
        used = hooks.used.into_inner();
        let passed = list.iter().filter(|o| o.pass).count();
        out.info.push(LessonInfo {
            file: page_file.clone(),
            name: file.clone(),
            title: title.clone(),
            locale: lesson.locale.name().to_string(),
            passed,
            total: list.len(),
            failures: list
                .iter()
                .enumerate()
                .filter(|(_, o)| !o.pass)
                .map(|(i, o)| (crate::lesson::failure_line(file, o), format!("r{}", i + 1)))
                .collect(),
        });
        out.pages.push(Page {
            file: page_file,
            html: page(
                Depth::Site,
                &format!("{title} — {file}"),
                body,
                input.words.words(lesson.locale),
            ),
        });
    }
    out.images = images
        .into_inner()
        .copied
        .into_iter()
        .map(|(_, name, bytes)| (name, bytes))
        .collect();
    Ok(out)
}

/// A region with what its page needs to say where it comes from.
struct RegionView<'a> {
    region: &'a Region,
    outcome: &'a Outcome,
    /// The config's run (canonical path, config and rows).
    run: Option<&'a (PathBuf, Loaded)>,
    /// The config's page, when the report ran it.
    config: Option<&'a ConfigInfo>,
    /// The config's path as the lesson writes it.
    use_path: &'a str,
}

/// The text of a lesson's first heading (`# …`), markers and Markdown marks left out.
fn title_of(text: &str) -> Option<String> {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut title: Option<String> = None;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { .. }) if title.is_none() => title = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                if let Some(t) = &title {
                    return Some(t.trim().to_string());
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(title) = title.as_mut() {
                    title.push_str(&t);
                }
            }
            _ => {}
        }
    }
    None
}

/// The lesson's text with its markers as the renderer's placeholders: an inline region's
/// markers as two characters around its text, a block's marker lines as comments naming
/// it. Its own placeholder characters (private use) become U+FFFD.
fn prepared(lesson: &Lesson) -> String {
    let text = &lesson.text;
    let mut out = String::with_capacity(text.len());
    let clean = |out: &mut String, part: &str| {
        out.extend(part.chars().map(|c| {
            if markdown::is_placeholder(c) {
                '\u{FFFD}'
            } else {
                c
            }
        }));
    };
    const CLOSE: &str = "<!-- /coordsim -->";
    let mut at = 0;
    for (i, region) in lesson.regions.iter().enumerate() {
        let content = &text[region.content.clone()];
        match region.kind {
            Kind::Value { .. } | Kind::Explored { .. } => {
                clean(&mut out, &text[at..region.marker.offset]);
                if i < MAX_INLINE_REGIONS {
                    out.push(markdown::inline_open(i));
                }
                clean(&mut out, content);
                if i < MAX_INLINE_REGIONS {
                    out.push(INLINE_CLOSE);
                }
                at = region.content.end + CLOSE.len();
            }
            Kind::Table | Kind::Chart { .. } => {
                clean(&mut out, &text[at..region.marker.offset]);
                out.push_str(&markdown::block_open(i));
                let marker_end = text[region.marker.offset..]
                    .find("-->")
                    .map_or(region.content.start, |e| region.marker.offset + e + 3);
                clean(&mut out, &text[marker_end..region.content.start]);
                clean(&mut out, content);
                let close = text[region.content.end..]
                    .find(CLOSE)
                    .map_or(region.content.end, |e| region.content.end + e);
                clean(&mut out, &text[region.content.end..close]);
                out.push_str(&markdown::block_close(i));
                at = (close + CLOSE.len()).min(text.len());
            }
        }
    }
    clean(&mut out, &text[at.min(text.len())..]);
    out
}

/// The page's body: a summary (how many regions match, the drifted ones linked), the
/// configs the lesson uses, then the lesson.
fn render(
    file: &str,
    lesson: &Lesson,
    regions: &[RegionView<'_>],
    used: &Uses<'_>,
    hooks: &LessonHooks<'_>,
) -> Html {
    let mut h = Html::new();
    let lc = hooks.lc;
    let passed = regions.iter().filter(|r| r.outcome.pass).count();
    let failed = regions.len() - passed;
    h.with("section", &[("class", "lesson-summary")], |h| {
        h.open("p", &[]);
        badge(h, failed == 0, say(lc, "ALL MATCH"), say(lc, "DRIFTED"));
        h.text(
            &say(
                lc,
                " {file}: {count} marked region(s) checked — {passed} passed, {failed} failed.",
            )
            .replace("{file}", file)
            .replace("{count}", &regions.len().to_string())
            .replace("{passed}", &passed.to_string())
            .replace("{failed}", &failed.to_string()),
        );
        h.close("p").newline();
        h.el(
            "p",
            &[("class", "note")],
            say(
                lc,
                "Every marked number, table and chart below was re-run and compared with the text at the precision its author wrote. Hover over or focus (Tab) a marked value to see where it comes from.",
            ),
        )
        .newline();
        if failed > 0 {
            h.el("h2", &[], say(lc, "Drifted regions")).newline();
            h.open("ul", &[("class", "failures")]).newline();
            for (i, r) in regions.iter().enumerate().filter(|(_, r)| !r.outcome.pass) {
                h.with("li", &[], |h| {
                    h.el(
                        "a",
                        &[("href", &format!("#r{}", i + 1))],
                        &crate::lesson::failure_line(file, r.outcome),
                    );
                })
                .newline();
            }
            h.close("ul").newline();
        }
        uses(h, used, lc);
    })
    .newline();
    if regions.len() > MAX_INLINE_REGIONS {
        h.el(
            "p",
            &[("class", "note")],
            &say(lc, "This page marks the first {count} inline regions.")
                .replace("{count}", &MAX_INLINE_REGIONS.to_string()),
        );
    }
    h.with(
        "article",
        &[("class", "lesson"), ("lang", lesson.locale.name())],
        |h| {
            h.append(markdown::render(&prepared(lesson), hooks));
        },
    )
    .newline();
    h
}

/// The configs the lesson uses, each linked to its page: (name, path as written, page).
type Uses<'a> = [(&'a str, &'a str, Option<&'a ConfigInfo>)];

fn uses(h: &mut Html, uses: &Uses<'_>, lc: Words<'_>) {
    h.open("p", &[("class", "uses")]).text(say(lc, "Configs: "));
    for (k, (name, path, info)) in uses.iter().enumerate() {
        if k > 0 {
            h.text(", ");
        }
        h.el("code", &[], name).text(" = ");
        match info {
            Some(c) => {
                h.el("a", &[("href", &Depth::Site.site(c.file()))], path);
            }
            None => {
                h.text(path);
            }
        }
    }
    h.close("p").newline();
}

/// Links, images and regions of one lesson.
struct LessonHooks<'a> {
    dir: &'a Path,
    regions: &'a [RegionView<'a>],
    /// Every lesson's canonical path and page.
    lessons: &'a [(PathBuf, String)],
    configs: &'a [ConfigInfo],
    images: &'a RefCell<Images>,
    /// File names taken in `OUT/site/`.
    used: RefCell<Vec<String>>,
    /// The lesson's locale: the language of the page's own words.
    lc: Words<'a>,
    /// The chart block being written, if any (its region's index).
    chart_block: std::cell::Cell<Option<usize>>,
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
}

impl Hooks for LessonHooks<'_> {
    fn link(&self, dest: &str) -> Option<String> {
        if dest.starts_with('#') {
            return Some(dest.to_string());
        }
        let lower = dest.to_ascii_lowercase();
        if ["http:", "https:", "mailto:"]
            .iter()
            .any(|s| lower.starts_with(s))
        {
            return Some(dest.to_string());
        }
        if dest.contains(':') {
            return None;
        }
        // Another lesson's page or a config's page; anything else is not in the site.
        let (path, fragment) = match dest.split_once('#') {
            Some((p, f)) => (p, format!("#{f}")),
            None => (dest, String::new()),
        };
        let target = std::fs::canonicalize(self.dir.join(path)).ok()?;
        if let Some((_, page)) = self.lessons.iter().find(|(p, _)| *p == target) {
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
        let mut images = self.images.borrow_mut();
        match images.copy(&self.dir.join(src), &mut self.used.borrow_mut(), self.lc) {
            Ok(name) => Image::Site(Depth::Site.site(&name), self.narrow_chart()),
            Err(why) => Image::Missing(format!("{src}: {why}")),
        }
    }

    fn open_inline(&self, h: &mut Html, i: usize) {
        let Some(r) = self.regions.get(i) else { return };
        let (class, id, tip) = ids(r, i);
        h.open("span", &[("class", &format!("cs-r {class}")), ("id", &id)]);
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
        let (_, _, tip) = ids(r, i);
        if !r.outcome.pass {
            h.el("sup", &[("class", "cs-flag")], say(self.lc, "drift"));
        }
        h.close("span");
        h.open(
            "span",
            &[("class", "cs-p"), ("role", "tooltip"), ("id", &tip)],
        );
        provenance(h, r, !in_link, self.lc);
        h.close("span").close("span");
    }

    fn open_block(&self, h: &mut Html, i: usize) {
        let Some(r) = self.regions.get(i) else { return };
        if matches!(r.region.kind, Kind::Chart { .. }) {
            self.chart_block.set(Some(i));
        }
        let (class, id, tip) = ids(r, i);
        // A step chart (`chart NAME trace-N`) is as wide as its steps: it scrolls in its
        // box rather than shrink.
        let steps = match &r.region.kind {
            Kind::Chart { chart } if chart.starts_with("trace-") => " steps",
            _ => "",
        };
        h.open(
            "div",
            &[
                ("class", &format!("cs-b {class}{steps}")),
                ("id", &id),
                ("tabindex", "0"),
                ("aria-describedby", &tip),
            ],
        );
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

    fn close_block(&self, h: &mut Html, i: usize) {
        self.chart_block.set(None);
        let Some(r) = self.regions.get(i) else { return };
        let (_, _, tip) = ids(r, i);
        h.open(
            "span",
            &[("class", "cs-p"), ("role", "tooltip"), ("id", &tip)],
        );
        provenance(h, r, true, self.lc);
        h.close("span").close("div").newline();
    }
}

/// A region's class (`pass` / `fail`), anchor (`r1`) and provenance id (`p1`).
fn ids(r: &RegionView<'_>, i: usize) -> (&'static str, String, String) {
    (
        if r.outcome.pass { "pass" } else { "fail" },
        format!("r{}", i + 1),
        format!("p{}", i + 1),
    )
}

impl Images {
    /// Copies the image at `path` into the site once; its file name there, or why not (in
    /// the page's words).
    fn copy(
        &mut self,
        path: &Path,
        used: &mut Vec<String>,
        lc: Words<'_>,
    ) -> Result<String, String> {
        let canonical =
            std::fs::canonicalize(path).map_err(|_| say(lc, "no such file").to_string())?;
        if let Some((_, name, _)) = self.copied.iter().find(|(p, _, _)| *p == canonical) {
            return Ok(name.clone());
        }
        let Some(root) = &self.root else {
            return Err(say(lc, "the lessons' folder cannot be read").into());
        };
        let Ok(rel) = canonical.strip_prefix(root) else {
            return Err(say(
                lc,
                "outside the lessons' folder, so not copied into the site",
            )
            .into());
        };
        let ext = canonical
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .filter(|e| IMAGE_EXTENSIONS.contains(&e.as_str()))
            .ok_or_else(|| {
                say(lc, "not an image ({extensions})")
                    .replace("{extensions}", &IMAGE_EXTENSIONS.join(", "))
            })?;
        let bytes = crate::input::read_capped(&canonical, MAX_IMAGE_BYTES)
            .map_err(|e| say(lc, "cannot be read: {error}").replace("{error}", &e))?;
        let base = rel.with_extension("").to_string_lossy().replace('/', "--");
        let name = unique_name("lessons-", &base, &format!(".{ext}"), used);
        self.copied.push((canonical, name.clone(), bytes));
        Ok(name)
    }
}

/// Where a region's text comes from and whether it still holds. `links`: whether links
/// may be written (not inside a link of the lesson's).
fn provenance(h: &mut Html, r: &RegionView<'_>, links: bool, lc: Words<'_>) {
    let o = r.outcome;
    row(h, say(lc, "verdict"), &|h| match r.region.kind {
        // An explored value is held to every execution, not to one run.
        Kind::Explored { .. } => badge(
            h,
            o.pass,
            say(lc, "matches every execution"),
            say(lc, "drifted from the executions"),
        ),
        _ => badge(
            h,
            o.pass,
            say(lc, "matches the run"),
            say(lc, "drifted from the run"),
        ),
    });
    row(h, say(lc, "config"), &|h| match r.config {
        Some(c) if links => {
            h.el("a", &[("href", &Depth::Site.site(c.file()))], &c.name);
        }
        Some(c) => {
            h.text(&c.name);
        }
        None => {
            h.text(r.use_path);
        }
    });
    let (what, at) = described(r.region, lc);
    row(h, say(lc, "reads"), &|h| {
        h.el("code", &[], &what);
        if let Some((_, loaded)) = r.run
            && let Kind::Value { column } = &r.region.kind
            && loaded.config_in(lc.locale).has_label(column)
        {
            h.text(&format!(" ({})", loaded.config_in(lc.locale).label(column)));
        }
    });
    row(h, say(lc, "at"), &|h| {
        // The region's own arguments, as the lesson writes them: code, like what it reads.
        if at.is_empty() {
            // A value reads one number off every row; a table or a chart shows them all.
            h.text(match r.region.kind {
                Kind::Value { .. } | Kind::Explored { .. } => {
                    say(lc, "every row it selects (one value)")
                }
                _ => say(lc, "every row it selects"),
            });
        } else {
            h.el("code", &[], &at);
        }
    });
    match &r.region.kind {
        Kind::Value { .. } | Kind::Explored { .. } => {
            // An explored value is every execution's, not one run's.
            let source = match r.region.kind {
                Kind::Explored { .. } => say(lc, "every execution"),
                _ => say(lc, "run"),
            };
            row(h, source, &|h| {
                // In the lesson's locale already, as what is written.
                h.el("span", &[("class", "cs-run")], &o.run);
            });
            row(h, say(lc, "written"), &|h| {
                h.text(&o.written);
                if let Some((level, lo, hi, runs)) = o.interval {
                    let n = |x: f64| lc.locale.number(&crate::format::reading(x));
                    h.text(
                        &say(
                            lc,
                            " (a theory's value: inside the {level} interval [{lo}, {hi}] of the mean of {runs} runs)",
                        )
                        .replace("{level}", &lc.locale.percent(&n(level * 100.0)))
                        .replace("{lo}", &n(lo))
                        .replace("{hi}", &n(hi))
                        .replace("{runs}", &runs.to_string()),
                    );
                } else if let Some(p) = &o.precision {
                    h.text(
                        &say(lc, " (the written digits allow {precision})")
                            .replace("{precision}", p),
                    );
                }
            });
        }
        Kind::Table => {}
        Kind::Chart { .. } => {
            row(h, say(lc, "image"), &|h| {
                h.text(&o.run);
            });
        }
    }
    checked_by(h, r, links, lc);
    if let Some(diff) = &o.diff {
        h.el("span", &[("class", "cs-diff")], diff);
    }
}

/// One line of a provenance: a term, then what `body` writes.
fn row(h: &mut Html, term: &str, body: &dyn Fn(&mut Html)) {
    h.open("span", &[("class", "cs-row")]);
    h.el("span", &[("class", "cs-k")], term);
    h.open("span", &[("class", "cs-val")]);
    body(h);
    h.close("span").close("span");
}

/// The column (or table, chart) a region reads, and its filters as the lesson writes them.
fn described(region: &Region, lc: Words<'_>) -> (String, String) {
    let what = match &region.kind {
        Kind::Value { column } => format!("{}.{column}", region.config),
        Kind::Table => say(lc, "table {config}").replace("{config}", &region.config),
        Kind::Chart { chart } => say(lc, "chart {config} {chart}")
            .replace("{config}", &region.config)
            .replace("{chart}", chart),
        Kind::Explored { what } => format!("explored {}.{what}", region.config),
    };
    let at: Vec<String> = region
        .args
        .iter()
        .map(|a| match &a.value {
            Some(v) => format!("{}={v}", a.key),
            None => a.key.clone(),
        })
        .collect();
    (what, at.join(" "))
}

/// The claims of the config that check the same value at the same points, each with its
/// config line; for a parameter, the line that sets it; for a table or chart, its place on
/// the config's page.
fn checked_by(h: &mut Html, r: &RegionView<'_>, links: bool, lc: Words<'_>) {
    let Some((_, loaded)) = r.run else { return };
    // The claims' names in the lesson's words, when the config speaks its locale.
    let config = loaded.config_in(lc.locale);
    let page = r.config.map(|c| Depth::Site.site(c.file()));
    let link = |h: &mut Html, anchor: &str, text: &str| match (&page, links) {
        (Some(p), true) => {
            h.el("a", &[("href", &format!("{p}#{anchor}"))], text);
        }
        _ => {
            h.text(text);
        }
    };
    // A table, a chart or an explored value: where the config's page shows it (an
    // exploration only when a claim of the config asks for one).
    let see = |h: &mut Html, anchor: &str, text: &str| {
        h.open("span", &[("class", "cs-row")]);
        h.el("span", &[("class", "cs-k")], say(lc, "see"));
        link(h, anchor, text);
        h.close("span");
    };
    let column = match &r.region.kind {
        Kind::Value { column } => column,
        Kind::Table => return see(h, "table", say(lc, "the config's table")),
        Kind::Chart { chart } => {
            let text = say(lc, "the chart on the config's page");
            return see(h, &format!("chart-{chart}"), text);
        }
        Kind::Explored { .. } if config.claims.iter().any(|c| c.over.is_some()) => {
            return see(
                h,
                "executions",
                say(lc, "every execution on the config's page"),
            );
        }
        Kind::Explored { .. } => return,
    };
    let sel = selected(config, r.region);
    let claims: Vec<(usize, &crate::config::Claim)> = config
        .claims
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            c.metric == *column
                && c.entity.as_ref().map(|(e, _)| e.as_str())
                    == sel.as_ref().and_then(|s| s.entity.as_deref())
                && sel
                    .as_ref()
                    .is_some_and(|s| s.points.iter().all(|p| config.matches(*p, &c.filter)))
        })
        .collect();
    row(h, say(lc, "checked by"), &|h| {
        checked_by_text(h, config, column, &claims, &link, lc);
    });
}

/// What checks a value region: its claims, the line setting its parameter, or the page.
fn checked_by_text(
    h: &mut Html,
    config: &crate::config::Config,
    column: &str,
    claims: &[(usize, &crate::config::Claim)],
    link: &dyn Fn(&mut Html, &str, &str),
    lc: Words<'_>,
) {
    if let Some(i) = config.key_index(column).filter(|_| claims.is_empty()) {
        let span = config
            .axes
            .iter()
            .find(|a| a.param == i)
            .and_then(|a| a.spans.first())
            .or_else(|| config.param_span(i));
        match span {
            Some(span) => {
                let line = config.source.line_col(span.start).0;
                h.text(say(lc, "a parameter, set at "));
                link(
                    h,
                    &format!("L{line}"),
                    &say(lc, "config line {line}").replace("{line}", &line.to_string()),
                );
            }
            None => {
                h.text(say(
                    lc,
                    "a parameter at its default (the config does not set it)",
                ));
            }
        }
    } else if claims.is_empty() {
        h.text(say(
            lc,
            "this page's check alone: no claim of the config reads this value here",
        ));
    } else {
        for (k, (n, claim)) in claims.iter().enumerate() {
            if k > 0 {
                h.text("; ");
            }
            let line = config.source.line_col(claim.span.start).0;
            h.text(say(lc, "claim "));
            link(h, &format!("claim-{}", n + 1), &format!("«{}»", claim.name));
            h.text(say(lc, " at "));
            link(
                h,
                &format!("L{line}"),
                &say(lc, "config line {line}").replace("{line}", &line.to_string()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::parse::parse;

    #[test]
    fn markers_become_placeholders_and_fenced_ones_stay_text() {
        let text = "<!-- coordsim use q = \"q.toml\" -->\nWait <!-- coordsim q.w clients=8 -->206 ms<!-- /coordsim --> \u{E000}.\n\n```\n<!-- coordsim q.w -->1<!-- /coordsim -->\n```\n<!-- coordsim table q -->\n| a |\n<!-- /coordsim -->\nend\n";
        let lesson = parse(text).unwrap();
        assert_eq!(lesson.regions.len(), 2);
        let want = format!(
            "<!-- coordsim use q = \"q.toml\" -->\nWait {}206 ms{} \u{FFFD}.\n\n```\n<!-- coordsim q.w -->1<!-- /coordsim -->\n```\n{}\n| a |\n{}\nend\n",
            markdown::inline_open(0),
            INLINE_CLOSE,
            markdown::block_open(1),
            markdown::block_close(1)
        );
        assert_eq!(prepared(&lesson), want);
    }

    #[test]
    fn a_lessons_title_is_its_first_heading() {
        assert_eq!(
            title_of("<!-- x -->\nintro\n\n# Ders `003`: *durum*\n\n## b\n").as_deref(),
            Some("Ders 003: durum")
        );
        assert_eq!(title_of("no heading\n"), None);
    }
}
