//! A lesson's page: its Markdown rendered, every checked region marked (drifted ones stand
//! out), each region's provenance shown on hover or focus — the config, the column, the
//! point or statistic, the run's value, the precision the author wrote, pass or drift, and
//! the claims and config lines that check the same value — and the lesson's images copied
//! into the site, so `reports/` alone can be published. Beside it, the lesson's reader's
//! view (`lesson-NAME.reader.html`: no check shown, the provenance kept) and its fragment
//! (`lesson-NAME.embed.html`, [`super::fragment`]): the three views differ only in their
//! hooks ([`super::regions`]).

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use super::config_page::ConfigInfo;
use super::fragment::{self, CHARTS_SCRIPT, Inliner, Widget};
use super::frame::{Depth, Input, Page, badge, page, unique_name};
use super::html::Html;
use super::images::Images;
use super::markdown::{self, INLINE_CLOSE, MAX_INLINE_REGIONS};
use super::provenance::RegionView;
use super::regions::{LessonFiles, LessonHooks, View};
use super::words::{Words, say};
use crate::lesson::parse::{Kind, Lesson};

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

/// What every view of one lesson is made from.
struct Lesson1<'a> {
    /// The lesson as named.
    file: &'a str,
    lesson: &'a Lesson,
    /// Its title (its first heading, or its file).
    title: String,
    regions: Vec<RegionView<'a>>,
    /// The configs it uses.
    uses: Vec<(&'a str, &'a str, Option<&'a ConfigInfo>)>,
    /// Its own files in `OUT/site/`.
    files: &'a LessonFiles,
}

/// Every lesson's pages (the author's and the reader's) and fragment, in the order the
/// lessons were checked.
pub(crate) fn pages(input: &Input<'_>, configs: &[ConfigInfo]) -> anyhow::Result<Lessons> {
    let Some((session, outcomes)) = input.lessons else {
        return Ok(Lessons::default());
    };
    let used: RefCell<Vec<String>> = RefCell::new(vec!["style.css".into(), "site.js".into()]);
    used.borrow_mut()
        .extend(configs.iter().map(|c| c.file().to_string()));
    // Every page's name first: lessons link to each other.
    let names: Vec<LessonFiles> = session
        .lessons
        .iter()
        .map(|(file, _)| {
            let rel = Path::new(file)
                .strip_prefix(input.lessons_dir)
                .unwrap_or(Path::new(file));
            let base = rel.with_extension("").to_string_lossy().replace('/', "--");
            let canonical = std::fs::canonicalize(file).unwrap_or_else(|_| PathBuf::from(file));
            let used = &mut used.borrow_mut();
            let page = unique_name("lesson-", &base, ".html", used);
            let stem = page.trim_end_matches(".html");
            LessonFiles {
                canonical,
                reader: unique_name("", &format!("{stem}.reader"), ".html", used),
                fragment: unique_name("", &format!("{stem}.embed"), ".html", used),
                page,
            }
        })
        .collect();
    let images = RefCell::new(Images::new(input.lessons_dir));
    let mut out = Lessons::default();
    for (li, ((file, lesson), (_, list))) in session.lessons.iter().zip(outcomes).enumerate() {
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
        let one = Lesson1 {
            file,
            lesson,
            title: title_of(&lesson.text).unwrap_or_else(|| file.clone()),
            regions,
            uses: (lesson.uses.iter())
                .map(|u| {
                    let info = session
                        .run_of(li, &u.name)
                        .and_then(|(p, _)| configs.iter().find(|c| c.canonical == *p));
                    (u.name.as_str(), u.path.as_str(), info)
                })
                .collect(),
            files: &names[li],
        };
        let lc = input.words.words(lesson.locale);
        let prefix = fragment_prefix(&one.files.page);
        let inliner = Inliner {
            lc,
            live: Cell::new(0),
            figures: Cell::new(0),
        };
        let hooks = |view: View| LessonHooks {
            view,
            prefix: if view == View::Embed { &prefix } else { "" },
            dir: Path::new(file).parent().unwrap_or(Path::new("")),
            regions: &one.regions,
            lessons: &names,
            configs,
            images: &images,
            used: &used,
            lc,
            inline: (view == View::Embed).then_some(&inliner),
            chart_block: Cell::new(None),
            explorers: Cell::new(0),
            live_charts: Cell::new(0),
        };
        // The fragment first: the author's page says how heavy it is.
        let fragment = fragment_of(&one, &hooks(View::Embed));
        let reader = render_reader(&one, &hooks(View::Reader));
        let author = render(&one, &hooks(View::Author), fragment.len());
        let passed = list.iter().filter(|o| o.pass).count();
        out.info.push(LessonInfo {
            file: one.files.page.clone(),
            name: file.clone(),
            title: one.title.clone(),
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
        let title = format!("{} — {file}", one.title);
        out.pages.push(Page {
            file: one.files.page.clone(),
            html: page(Depth::Site, &title, author, lc),
        });
        out.pages.push(Page {
            file: one.files.reader.clone(),
            html: page(Depth::Site, &title, reader, lc),
        });
        out.pages.push(Page {
            file: one.files.fragment.clone(),
            html: fragment,
        });
    }
    out.images = images.into_inner().into_files();
    Ok(out)
}

/// What every id of a lesson's fragment starts with: `cs-` and its page's name
/// (`cs-003-dayanikli-durum-nesneleri-` for `lesson-003-dayanikli-durum-nesneleri.html`),
/// unique among the lessons as the page's name is.
fn fragment_prefix(page: &str) -> String {
    let stem = page.trim_end_matches(".html");
    format!("cs-{}-", stem.strip_prefix("lesson-").unwrap_or(stem))
}

/// The lesson's fragment: its reader's view, self-contained, with its charts' words and
/// script when a chart of it is live.
fn fragment_of(one: &Lesson1<'_>, hooks: &LessonHooks<'_>) -> String {
    let mut body = Html::new();
    article(&mut body, one, hooks);
    let lc = hooks.lc;
    body.el("p", &[("class", "cs-note")], say(lc, READER_NOTE))
        .newline();
    let mut widgets = Vec::new();
    if hooks.explorers.get() > 0 {
        widgets.push(Widget {
            markup: Html::new(),
            script: super::explorer::SCRIPT,
        });
    }
    if let Some(inline) = hooks.inline.filter(|i| i.figures.get() > 0) {
        let mut words = Html::new();
        if inline.live.get() > 0 {
            words.json("chart-words", &super::live::words(lc)).newline();
        }
        widgets.push(Widget {
            markup: words,
            script: CHARTS_SCRIPT,
        });
    }
    fragment::document(
        one.lesson.locale.name(),
        &format!("{}lesson", hooks.prefix),
        body,
        widgets,
    )
}

/// What the reader's view says above the lesson.
const READER_NOTE: &str = "Every marked number, table and chart comes from a simulation coordsim re-ran for this page. Tap, hover over or focus (Tab) one to see where it comes from.";

/// The reader's page: a line on where the numbers come from, a link to the author's view,
/// the lesson.
fn render_reader(one: &Lesson1<'_>, hooks: &LessonHooks<'_>) -> Html {
    let mut h = Html::new();
    let lc = hooks.lc;
    h.with("section", &[("class", "lesson-summary reader")], |h| {
        h.el("p", &[("class", "note")], say(lc, READER_NOTE))
            .newline();
        h.with("p", &[("class", "views")], |h| {
            h.el(
                "a",
                &[("href", &Depth::Site.site(&one.files.page))],
                say(lc, "The author's view: every region's check"),
            );
        })
        .newline();
    })
    .newline();
    article(&mut h, one, hooks);
    page_scripts(&mut h, hooks);
    h
}

/// What a page's live charts and explorers need beside them: the charts' words (once), the
/// explorer's script (once).
fn page_scripts(h: &mut Html, hooks: &LessonHooks<'_>) {
    if hooks.live_charts.get() > 0 {
        h.json("chart-words", &super::live::words(hooks.lc))
            .newline();
    }
    if hooks.explorers.get() > 0 {
        super::explorer::script_tag(h);
    }
}

/// The lesson itself, in the hooks' view.
fn article(h: &mut Html, one: &Lesson1<'_>, hooks: &LessonHooks<'_>) {
    h.with(
        "article",
        &[("class", "lesson"), ("lang", one.lesson.locale.name())],
        |h| {
            h.append(markdown::render(&prepared(one.lesson), hooks));
        },
    )
    .newline();
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
            // A marker with nothing to close: an empty block (a blank line keeps its two
            // placeholders two HTML blocks).
            Kind::Explorer => {
                clean(&mut out, &text[at..region.marker.offset]);
                out.push_str(&markdown::block_open(i));
                out.push_str("\n\n");
                out.push_str(&markdown::block_close(i));
                out.push('\n');
                at = region.content.start;
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
fn render(one: &Lesson1<'_>, hooks: &LessonHooks<'_>, fragment_bytes: usize) -> Html {
    let (file, regions) = (one.file, &one.regions);
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
        uses(h, &one.uses, lc);
        views(h, one.files, fragment_bytes, lc);
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
    article(&mut h, one, hooks);
    page_scripts(&mut h, hooks);
    h
}

/// Links to the lesson's other views: the reader's page and the fragment (with its size).
fn views(h: &mut Html, files: &LessonFiles, fragment_bytes: usize, lc: Words<'_>) {
    h.open("p", &[("class", "views")]);
    h.el(
        "a",
        &[("href", &Depth::Site.site(&files.reader))],
        say(lc, "The reader's view: no check shown"),
    );
    h.text(" · ");
    h.el(
        "a",
        &[("href", &Depth::Site.site(&files.fragment))],
        say(
            lc,
            "The lesson as one fragment to paste into a course's page",
        ),
    );
    let kb = fragment_bytes.div_ceil(1000);
    h.text(&say(lc, " ({kb} kB)").replace("{kb}", &lc.locale.number(&kb.to_string())));
    h.close("p").newline();
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
