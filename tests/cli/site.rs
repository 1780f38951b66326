//! The report as a site: `OUT/index.html` and `OUT/site/` (the browser test in
//! `tests/browser/` drives the same pages in Chromium).

use std::path::{Path, PathBuf};

use crate::harness::*;

/// A queue whose requests never wait (each client's 1000 ms apart, the second client 500 ms
/// after the first, each served in 5 ms): capacity 1000 / 5 = 200 per second, mean wait 0
/// at every point.
pub(crate) const QUEUE: &str = "model = \"single_writer_queue\"\ntitle = \"TITLE\"\n[params]\nservice_ms = 5\nrequests_per_client = 10\ninterarrival_ms = 1000\nclient_offset_ms = 500\n[sweep]\nclients = [1, 2]\n";

/// A folder with `configs/` and `lessons/` as `report` reads them.
pub(crate) struct Course {
    pub(crate) dir: tempfile::TempDir,
}

impl Course {
    pub(crate) fn new() -> Course {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("configs")).unwrap();
        std::fs::create_dir_all(dir.path().join("lessons/img")).unwrap();
        Course { dir }
    }

    pub(crate) fn config(&self, name: &str, text: &str) {
        std::fs::write(self.dir.path().join("configs").join(name), text).unwrap();
    }

    pub(crate) fn lesson(&self, name: &str, text: &str) {
        std::fs::write(self.dir.path().join("lessons").join(name), text).unwrap();
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// `coordsim report --out OUT` (OUT under the course folder), with `extra` arguments.
    pub(crate) fn report(&self, out: &str, extra: &[&str]) -> std::process::Output {
        let mut args = vec!["report", "--out", out, "--quiet"];
        args.extend_from_slice(extra);
        coordsim_in(self.dir.path(), &args)
    }

    pub(crate) fn page(&self, rel: &str) -> String {
        String::from_utf8(read(self.path(rel))).unwrap()
    }
}

/// Two configs (`a` holds its claim, `b` fails one of two) and a lesson with one region
/// that holds and one that drifted.
fn course() -> Course {
    let c = Course::new();
    c.config(
        "a.toml",
        &format!(
            "{}\n[[claim]]\nname = \"capacity\"\nmetric = \"capacity_per_s\"\nexpect = 200\n",
            QUEUE.replace("TITLE", "Queue A")
        ),
    );
    c.config(
        "b.toml",
        &format!(
            "{}\n[[claim]]\nname = \"no loss\"\nmetric = \"lost_updates\"\nexpect = 0\n\n[[claim]]\nname = \"waits a millisecond\"\nwhere = {{ clients = 2 }}\nmetric = \"mean_wait_ms\"\nexpect = 1\n",
            QUEUE.replace("TITLE", "Queue B")
        ),
    );
    c.lesson(
        "l.md",
        "<!-- coordsim use a = \"../configs/a.toml\" -->\n<!-- coordsim use b = \"../configs/b.toml\" -->\n# The lesson\n\nCapacity <!-- coordsim a.capacity_per_s clients=2 -->200<!-- /coordsim --> per second;\n<!-- coordsim b.mean_wait_ms clients=2 -->3<!-- /coordsim --> ms of waiting.\n",
    );
    c
}

/// Every `NAME="VALUE"` attribute value of `name` in `html`, unescaped of `&amp;`.
fn attrs(html: &str, name: &str) -> Vec<String> {
    let needle = format!(" {name}=\"");
    html.match_indices(&needle)
        .map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            rest[..rest.find('"').unwrap()].replace("&amp;", "&")
        })
        .collect()
}

/// A URL path with its `%XX` escapes decoded.
fn decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], segment.get(i + 1..i + 3)) {
            (b'%', Some(hex)) => {
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

/// Every local `href` and `src` of every page under `out` (but an image's `data:` URL)
/// resolves to a file inside `out`, and every `#fragment` to an id of its page; gives back how many were checked.
pub(crate) fn check_links(out: &Path) -> usize {
    let root = std::fs::canonicalize(out).unwrap();
    let pages: Vec<PathBuf> = list_files(out)
        .into_iter()
        .filter(|f| f.ends_with(".html"))
        .map(|f| out.join(f))
        .collect();
    let mut checked = 0;
    for page in &pages {
        let html = String::from_utf8(read(page)).unwrap();
        // A fragment's image is its own bytes (`data:`): no file to resolve.
        let sources = attrs(&html, "src").into_iter();
        let sources = sources.filter(|u| !u.starts_with("data:image/"));
        for url in attrs(&html, "href").into_iter().chain(sources) {
            assert!(
                !url.contains(':'),
                "{}: {url} is not a file of the site",
                page.display()
            );
            // A browser reads an encoded slash as part of a file's name, not a folder.
            assert!(
                !url.to_ascii_lowercase().contains("%2f"),
                "{}: {url} encodes a `/`: no browser finds that file",
                page.display()
            );
            let (file, fragment) = url.split_once('#').unwrap_or((&url, ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(decode(file))
            };
            let target = std::fs::canonicalize(&target)
                .unwrap_or_else(|_| panic!("{}: {url} does not resolve", page.display()));
            assert!(
                target.starts_with(&root),
                "{}: {url} leaves the site",
                page.display()
            );
            if !fragment.is_empty() {
                let text = String::from_utf8(read(&target)).unwrap();
                assert!(
                    text.contains(&format!(" id=\"{fragment}\"")),
                    "{}: #{fragment} is no id of {}",
                    page.display(),
                    target.display()
                );
            }
            checked += 1;
        }
    }
    checked
}

#[test]
fn the_index_says_what_the_terminal_says_failures_first() {
    let c = course();
    let o = c.report("out", &[]);
    // Claims: a's 1 holds; b's no-loss holds, its wait of 1 ms fails (the run waits 0).
    // Regions: 200 holds, 3 drifted (0). 3 of 5 passed.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let last = stdout(&o).lines().last().unwrap().to_string();
    assert_eq!(last, "3 passed, 2 failed");
    let index = c.page("out/index.html");
    assert!(
        index.contains(&format!(
            "<strong id=\"totals\" data-passed=\"3\" data-failed=\"2\">{last}</strong>"
        )),
        "{index}"
    );
    // The failures, each linked to its place: b's second claim, the lesson's second region.
    let failures =
        &index[index.find("id=\"failures\"").unwrap()..index.find("id=\"lessons\"").unwrap()];
    assert!(
        failures.contains("href=\"site/config-b.html#claim-2\""),
        "{failures}"
    );
    assert!(
        failures.contains("href=\"site/lesson-l.html#r2\""),
        "{failures}"
    );
    assert!(!failures.contains("config-a.html"), "{failures}");
    // In the configs' table b (a failure) comes before a, against path order.
    let table = &index[index.find("id=\"configs\"").unwrap()..];
    let (a, b) = (
        table.find("site/config-a.html").unwrap(),
        table.find("site/config-b.html").unwrap(),
    );
    assert!(b < a, "failures first: {table}");
    assert!(check_links(&c.path("out")) > 10);
}

#[test]
fn a_config_page_links_each_claim_to_its_line() {
    let c = course();
    c.report("out", &[]);
    let page = c.page("out/site/config-b.html");
    let text = std::fs::read_to_string(c.path("configs/b.toml")).unwrap();
    // The second `[[claim]]` of b.toml, counted in the file itself.
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == "[[claim]]")
        .nth(1)
        .map(|(i, _)| i + 1)
        .unwrap();
    let row = &page[page.find("<tr id=\"claim-2\"").unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains("class=\"fail\""), "{row}");
    assert!(row.contains("waits a millisecond"), "{row}");
    assert!(row.contains(&format!("href=\"#L{line}\"")), "{row}");
    // The measured value and the point: 0 at clients = 2.
    assert!(
        row.contains(">0</td>") && row.contains("clients = 2"),
        "{row}"
    );
    // That line of the text is the claim's header, marked failing, linking back.
    assert!(
        page.contains(&format!(
            "<span class=\"line claim fail\" id=\"L{line}\"><a href=\"#L{line}\" class=\"ln\">{line}</a><span class=\"text\">[[claim]]</span><a href=\"#claim-2\""
        )),
        "{page}"
    );
    // Charts inline, CSV files linked, from the config's output folder.
    assert!(
        page.contains("src=\"../b/wait-vs-offered-rate.svg\""),
        "{page}"
    );
    assert!(page.contains("href=\"../b/results.csv\""), "{page}");
}

#[test]
fn a_lesson_page_marks_every_region_with_its_provenance() {
    let c = course();
    c.report("out", &[]);
    let page = c.page("out/site/lesson-l.html");
    let text = std::fs::read_to_string(c.path("configs/a.toml")).unwrap();
    let claim_line = text.lines().position(|l| l == "[[claim]]").unwrap() + 1;
    // Region 1 holds: the value, then its provenance naming config, column, point, run
    // value, the written precision (200 allows ± 0.5) and the claim that checks it.
    let r1 = &page[page.find("<span class=\"cs-r pass\" id=\"r1\">").unwrap()..];
    let r1 = &r1[..r1.find("id=\"r2\"").unwrap()];
    assert!(
        r1.contains("tabindex=\"0\" aria-describedby=\"p1\">200</span>"),
        "{r1}"
    );
    for want in [
        "role=\"tooltip\" id=\"p1\"",
        "matches the run",
        "href=\"config-a.html\">configs/a.toml</a>",
        "a.capacity_per_s",
        "clients=2",
        ">200</span>",
        "± 0.5",
        "href=\"config-a.html#claim-1\">«capacity»</a>",
    ] {
        assert!(r1.contains(want), "{want}: {r1}");
    }
    assert!(
        r1.contains(&format!("href=\"config-a.html#L{claim_line}\"")),
        "{r1}"
    );
    // Region 2 drifted (written 3, the run waits 0): marked as such, listed at the top with
    // a link to it; the claim of b on the same value (which fails too) is named.
    let r2 = &page[page
        .find("<span class=\"cs-r fail\" id=\"r2\">")
        .expect("region 2 marked as failing")..];
    assert!(r2.contains("<sup class=\"cs-flag\">drift</sup>"), "{r2}");
    assert!(r2.contains("drifted from the run"), "{r2}");
    assert!(r2.contains("<span class=\"cs-run\">0</span>"), "{r2}");
    assert!(r2.contains("«waits a millisecond»"), "{r2}");
    assert!(page.contains("href=\"#r2\""), "{page}");
    assert!(check_links(&c.path("out")) > 10);
}

#[test]
fn markup_in_titles_labels_claims_and_lessons_shows_as_text() {
    let c = Course::new();
    c.config(
        "x.toml",
        &format!(
            "{}[labels]\nmean_wait_ms = \"<img src=x onerror=alert(2)>\"\n[[claim]]\nname = \"<b onmouseover=alert(3)>c</b>\"\nmetric = \"lost_updates\"\nexpect = 0\n",
            QUEUE.replace("TITLE", "<script>alert(1)</script>")
        ),
    );
    c.lesson(
        "l.md",
        "<!-- coordsim use x = \"../configs/x.toml\" -->\n# <script>alert(4)</script>\n\n<script>alert(5)</script>\n\n[a](javascript:alert(6)) <!-- coordsim x.lost_updates clients=1 -->0<!-- /coordsim --> ![i](../../../../etc/passwd)\n",
    );
    let o = c.report("out", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let pages = [
        c.page("out/index.html"),
        c.page("out/site/config-x.html"),
        c.page("out/site/lesson-l.html"),
    ];
    for page in &pages {
        // The one script is the site's own file; a chart's points are a data block, which
        // no browser runs (a `<` in it is written `\u003c`, below).
        let data = page
            .matches("<script type=\"application/json\" class=\"")
            .count();
        assert_eq!(page.matches("<script").count() - data, 1, "{page}");
        assert!(page.contains("<script src=\"") && page.contains("site.js\" defer=\"\"></script>"));
        for raw in [
            "<img src=x",
            "<b onmouseover",
            "javascript:",
            "alert(1)</script>",
        ] {
            assert!(!page.contains(raw), "{raw}: {page}");
        }
    }
    assert!(
        pages[0].contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{}",
        pages[0]
    );
    assert!(pages[1].contains("<h1 lang=\"en\">&lt;script&gt;alert(1)&lt;/script&gt;</h1>"));
    assert!(pages[1].contains("&lt;b onmouseover=alert(3)&gt;c&lt;/b&gt;"));
    assert!(pages[1].contains("&lt;img src=x onerror=alert(2)&gt;"));
    assert!(
        pages[2].contains("&lt;script&gt;alert(5)&lt;/script&gt;"),
        "{}",
        pages[2]
    );
    // An image outside the lessons' folder is not copied, only named.
    assert!(
        pages[2].contains("outside the lessons&#39; folder"),
        "{}",
        pages[2]
    );
    assert_eq!(
        list_files(&c.path("out/site")),
        [
            ".coordsim-output",
            "config-x.html",
            "explorer.js",
            "lesson-l.embed.html",
            "lesson-l.html",
            "lesson-l.reader.html",
            "site.js",
            "style.css"
        ]
    );
}

#[test]
fn a_lessons_images_are_copied_into_the_site() {
    let c = course();
    // The chart as the run draws it: `lesson fill` writes it.
    c.lesson(
        "c.md",
        "<!-- coordsim use a = \"../configs/a.toml\" -->\n# Chart\n\n<!-- coordsim chart a wait-vs-offered-rate -->\n![wait](img/w.svg)\n<!-- /coordsim -->\n",
    );
    let fill = coordsim_in(c.dir.path(), &["lesson", "fill", "lessons/c.md"]);
    assert_eq!(fill.status.code(), Some(0), "{}", stderr(&fill));
    c.report("out", &[]);
    let copied = c.path("out/site/lessons-img--w.svg");
    assert_eq!(read(&copied), read(c.path("lessons/img/w.svg")));
    let page = c.page("out/site/lesson-c.html");
    // On a phone's screen the block shows the chart's phone rendering, from the report.
    assert!(
        page.contains("<picture><source media=\"(max-width: 720px)\" srcset=\"../a/wait-vs-offered-rate.narrow.svg\"><img src=\"lessons-img--w.svg\" alt=\"wait\"></picture>"),
        "{page}"
    );
    assert!(c.path("out/a/wait-vs-offered-rate.narrow.svg").is_file());
    assert!(
        page.contains("<div class=\"cs-b pass\" id=\"r1\" tabindex=\"0\""),
        "{page}"
    );
    assert!(
        page.contains("href=\"config-a.html#chart-wait-vs-offered-rate\""),
        "{page}"
    );
    check_links(&c.path("out"));
}

#[test]
fn the_site_is_the_same_bytes_on_every_run_and_any_jobs() {
    let c = course();
    c.report("one", &["--jobs", "1"]);
    c.report("two", &["--jobs", "2"]);
    let files = list_files(&c.path("one/site"));
    assert_eq!(files, list_files(&c.path("two/site")));
    assert!(files.len() >= 5, "{files:?}");
    for f in &files {
        assert_eq!(
            read(c.path("one/site").join(f)),
            read(c.path("two/site").join(f)),
            "{f}"
        );
    }
    assert_eq!(
        read(c.path("one/index.html")),
        read(c.path("two/index.html"))
    );
    // The site folder is an output folder: marked, listing its files.
    let marker = c.page("one/site/.coordsim-output");
    for f in files.iter().filter(|f| !f.starts_with('.')) {
        assert!(marker.contains(&format!("\nfile {f}\n")), "{f}: {marker}");
    }
}

#[test]
fn a_site_place_that_is_not_coordsims_is_refused_before_anything_runs() {
    let c = course();
    std::fs::create_dir_all(c.path("out")).unwrap();
    std::fs::write(
        c.path("out/index.html"),
        "<!DOCTYPE html>\n<p>my page</p>\n",
    )
    .unwrap();
    let o = c.report("out", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("index.html exists and was not written by `coordsim report`"),
        "{}",
        stderr(&o)
    );
    assert_eq!(list_files(&c.path("out")), ["index.html"], "nothing ran");
    assert_eq!(
        c.page("out/index.html"),
        "<!DOCTYPE html>\n<p>my page</p>\n"
    );
    // A folder of the user's named `site`.
    std::fs::remove_file(c.path("out/index.html")).unwrap();
    std::fs::create_dir_all(c.path("out/site")).unwrap();
    std::fs::write(c.path("out/site/notes.txt"), "mine").unwrap();
    let o = c.report("out", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a coordsim output folder"),
        "{}",
        stderr(&o)
    );
    assert_eq!(list_files(&c.path("out")), ["site/notes.txt"]);
    // A config whose folder would be the site's.
    std::fs::remove_dir_all(c.path("out")).unwrap();
    c.config("site.toml", &QUEUE.replace("TITLE", "s"));
    let o = c.report("out", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("a config named `site.toml`"),
        "{}",
        stderr(&o)
    );
    // A second report replaces the first's site (it is provably coordsim's).
    std::fs::remove_file(c.path("configs/site.toml")).unwrap();
    assert_eq!(c.report("out", &[]).status.code(), Some(1));
    assert_eq!(c.report("out", &[]).status.code(), Some(1));
}

/// Every file under `dir` with its bytes, `dir`'s hidden entries (builds, the swap's
/// journal) left out: what a reader of the report sees.
fn visible(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    list_files(dir)
        .into_iter()
        .filter(|f| !f.starts_with('.'))
        .map(|f| {
            let bytes = read(dir.join(&f));
            (f, bytes)
        })
        .collect()
}

fn hidden(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// A queue that takes a moment to run, titled `title`, serving in `service_ms`, with a chart.
fn slow_queue(title: &str, service_ms: u32) -> String {
    format!(
        "model = \"single_writer_queue\"\ntitle = \"{title}\"\nreplications = 2\n[params]\narrivals = \"poisson\"\nservice = \"exponential\"\nservice_ms = {service_ms}\nrequests_per_client = 20000\n[sweep]\nclients = [1, 2, 3, 4]\n[[chart]]\nname = \"w\"\nx = \"clients\"\ny = [\"mean_wait_ms\"]\n"
    )
}

/// Writes the configs of generation A (q1..q3, titled and timed one way) or B (q1 and q2
/// changed, q3 gone, q4 new) into `course`.
fn generation(course: &Course, b: bool) {
    let (g, service_ms, names) = if b {
        ("B", 6, ["q1", "q2", "q4"])
    } else {
        ("A", 5, ["q1", "q2", "q3"])
    };
    let configs = course.dir.path().join("configs");
    for q in ["q3", "q4"] {
        let _ = std::fs::remove_file(configs.join(format!("{q}.toml")));
    }
    for q in names {
        course.config(
            &format!("{q}.toml"),
            &slow_queue(&format!("{g} {q}"), service_ms),
        );
    }
}

#[test]
fn a_killed_report_leaves_the_previous_report_or_the_new_one_never_a_mix() {
    // Reports alternate between generations A and B, each killed (SIGKILL) at one of 20
    // moments spread over twice its run: every time, what a reader sees in OUT (pages, index,
    // config folders and their charts) is the report before, or the new one, byte for byte,
    // unless the kill fell inside the swap's renames, which the next run completes.
    let course = Course::new();
    let dir = course.dir.path();
    let report = |out: &str| -> std::process::Command {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_coordsim"));
        c.current_dir(dir).args([
            "report",
            "--out",
            out,
            "--lessons",
            "none",
            "--quiet",
            "--jobs",
            "2",
        ]);
        c
    };
    generation(&course, true);
    assert!(report("b").output().unwrap().status.success());
    generation(&course, false);
    assert!(report("a").output().unwrap().status.success());
    // A whole run into OUT from B to A, timed: the run each kill interrupts.
    assert!(report("out").output().unwrap().status.success());
    generation(&course, true);
    assert!(report("out").output().unwrap().status.success());
    generation(&course, false);
    let start = std::time::Instant::now();
    assert!(report("out").output().unwrap().status.success());
    let took = start.elapsed().as_millis() as u64;
    let reports = [visible(&dir.join("a")), visible(&dir.join("b"))];
    assert_ne!(reports[0], reports[1]);
    let out = dir.join("out");
    let (mut before, mut after, mut mid_swap) = (0, 0, 0);
    // Which generation OUT holds.
    let mut held = false;
    let mut wanted = held;
    for i in 0..20u64 {
        let to = !held;
        wanted = to;
        generation(&course, to);
        // Spread (by a fixed Weyl sequence) over twice a whole run.
        let delay = (i * 617 + 101) % 1000 * took * 2 / 1000;
        let mut child = report("out")
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay));
        let _ = child.kill();
        let _ = child.wait();
        let seen = visible(&out);
        if seen == reports[usize::from(held)] {
            before += 1;
        } else if seen == reports[usize::from(to)] {
            after += 1;
            held = to;
        } else {
            assert!(
                hidden(&out)
                    .iter()
                    .any(|h| h.starts_with(".coordsim-swap.")),
                "killed after {delay} ms: a mix of both reports, and no swap to complete"
            );
            mid_swap += 1;
            // The next run completes the swap first; this one then finds the new report.
            assert!(report("out").output().unwrap().status.success());
            assert!(visible(&out) == reports[usize::from(to)]);
            held = to;
        }
    }
    eprintln!(
        "kills over {took} ms: {before} left the report before, {after} the new one, {mid_swap} mid-swap"
    );
    // The earliest moments fall well inside a run (a fifth of it, and less).
    assert!(before > 0, "no kill fell inside a run");
    // The next run puts the last generation asked for in place and leaves nothing hidden.
    assert!(report("out").output().unwrap().status.success());
    assert!(visible(&out) == reports[usize::from(wanted)]);
    assert!(hidden(&out).is_empty(), "{:?}", hidden(&out));
}

/// A config page shows the charts in the config's `[[chart]]` order, not by file name:
/// `zeta` (first in the config), then `alpha`, then `alpha-fail` (its own chart, not a
/// file of `alpha`'s), though the names sort the other way.
#[test]
fn a_config_page_shows_charts_in_the_configs_order() {
    let c = Course::new();
    let chart = |name: &str, y: &str| {
        format!("[[chart]]\nname = \"{name}\"\nkind = \"line\"\nx = \"clients\"\ny = \"{y}\"\n")
    };
    c.config(
        "q.toml",
        &format!(
            "{}\n{}{}{}",
            QUEUE.replace("TITLE", "Queue"),
            chart("zeta", "mean_wait_ms"),
            chart("alpha", "max_wait_ms"),
            chart("alpha-fail", "p95_wait_ms")
        ),
    );
    let o = c.report("out", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = c.page("out/site/config-q.html");
    let at = |id: &str| {
        page.find(&format!("id=\"chart-{id}\""))
            .unwrap_or_else(|| panic!("{id}"))
    };
    assert!(
        at("zeta") < at("alpha") && at("alpha") < at("alpha-fail"),
        "charts out of order"
    );
    // Each chart once (its phone rendering is no chart of its own), with that rendering
    // for narrow screens.
    for name in ["zeta", "alpha", "alpha-fail"] {
        assert_eq!(page.matches(&format!("id=\"chart-{name}\"")).count(), 1);
        assert!(
            page.contains(&format!(
                "srcset=\"../q/{name}.narrow.svg\"><img src=\"../q/{name}.svg\""
            )),
            "{name}: {page}"
        );
    }
    assert!(!page.contains("chart-zeta.narrow"), "{page}");
}

/// Every chart has a phone rendering beside it: 340 pixels wide, its smallest text 12
/// pixels (so at least 11 on a 375-pixel screen, where it is shown at its size), in
/// portrait; the full chart keeps its size.
#[test]
fn every_chart_has_a_phone_rendering_with_text_of_twelve_pixels_or_more() {
    let c = Course::new();
    c.config(
        "q.toml",
        &format!(
            "{}\n[[chart]]\nname = \"w\"\nkind = \"line\"\nx = \"clients\"\ny = [\"mean_wait_ms\", \"max_wait_ms\", \"p95_wait_ms\"]\nlegend = \"outside\"\n",
            QUEUE.replace("TITLE", "A queue whose title is long enough to wrap on a phone")
        ),
    );
    let o = c.report("out", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let attr = |svg: &str, name: &str| -> u32 {
        let at = svg
            .find(&format!(" {name}=\""))
            .unwrap_or_else(|| panic!("{name}"))
            + name.len()
            + 3;
        svg[at..at + svg[at..].find('"').unwrap()].parse().unwrap()
    };
    let narrow = String::from_utf8(read(c.path("out/q/w.narrow.svg"))).unwrap();
    assert_eq!(attr(&narrow, "width"), 340);
    assert!(
        attr(&narrow, "height") >= 510,
        "portrait: at least 1.5 × 340"
    );
    assert!(
        attr(&narrow, "data-smallest-text-px") >= 12,
        "{}",
        &narrow[..400]
    );
    let full = String::from_utf8(read(c.path("out/q/w.svg"))).unwrap();
    assert_eq!((attr(&full, "width"), attr(&full, "height")), (1000, 620));
    // No PNG of the phone rendering: the PNG is the chart at full size, for print.
    assert!(!c.path("out/q/w.narrow.png").exists());
}

/// One message, one worker that may crash (probability 0.3) after its effect and before its
/// ack: a plain consumer applies it twice with probability 0.3 × (1 − 0.3) = 0.21.
const ONE_MESSAGE: &str = r#"model = "scenario"
title = "One message"
locale = "LOCALE"
[params]
crash_probability = 0.3
[sweep]
consumer = ["plain", "dedup"]
[[resource]]
name = "jobs"
kind = "queue"
visibility_ms = 20
[[resource]]
name = "ledger"
kind = "keys"
initial = [[1, 0]]
[[actor]]
name = "producer"
steps = [{ put = "jobs", value = "k" }]
[[actor]]
name = "worker"
start_ms = 1
repeat = 3
steps = [
  { take = "jobs", timeout_ms = 100, on_timeout = { steps = [{ stop = true }] } },
  { lookup = "ledger", key = 1 },
  { set = "ledger", key = 1, value = "ledger + 1" },
  { crash = { probability = "crash_probability" }, restart_after_ms = 5 },
  { ack = "jobs" },
]
[[metric]]
name = "extra_effects"
expr = "ledger.total - 1"
[[claim]]
name = "twice with probability p (1 - p)"
where = { consumer = "plain" }
over = "executions"
metric = "extra_effects"
expect = 1
probability = "crash_probability * (1 - crash_probability)"
"#;

/// The cells of the first claim's row of `page`, after its name.
fn claim_cells(page: &str) -> Vec<String> {
    let row = &page[page.find("<tr id=\"claim-1\"").unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    row.split("<td")
        .skip(1)
        .map(|c| {
            let c = &c[c.find('>').unwrap() + 1..];
            c[..c.find("</td>").unwrap()].to_string()
        })
        .collect()
}

#[test]
fn a_claims_probability_says_it_is_the_probability_of_the_test_in_each_locale() {
    let c = Course::new();
    c.config("en.toml", &ONE_MESSAGE.replace("LOCALE", "en"));
    c.config("tr.toml", &ONE_MESSAGE.replace("LOCALE", "tr"));
    c.report("out", &[]);
    let expr = "crash_probability * (1 - crash_probability)";
    // # | claim | verdict | reads | where | expected | measured | line
    let en = claim_cells(&c.page("out/site/config-en.html"));
    assert_eq!(
        en[5],
        format!("probability that extra_effects = 1: {expr} = 0.21"),
        "{en:?}"
    );
    assert_eq!(en[6], "probability that extra_effects = 1: 0.21", "{en:?}");
    let tr = claim_cells(&c.page("out/site/config-tr.html"));
    assert_eq!(
        tr[5],
        format!("extra_effects = 1 olasılığı: {expr} = 0,21"),
        "{tr:?}"
    );
    assert_eq!(tr[6], "extra_effects = 1 olasılığı: 0,21", "{tr:?}");
}

#[test]
fn a_config_pages_parameters_and_sweep_write_numbers_in_its_locale() {
    let c = Course::new();
    let swept = ONE_MESSAGE.replace(
        "crash_probability = 0.3\n[sweep]\n",
        "[sweep]\ncrash_probability = [0, 0.25, 0.5]\n",
    );
    for (name, text) in [("fixed", ONE_MESSAGE), ("swept", &swept)] {
        for locale in ["en", "tr"] {
            c.config(
                &format!("{name}-{locale}.toml"),
                &text.replace("LOCALE", locale),
            );
        }
    }
    c.report("out", &[]);
    let fixed = "<td><code>crash_probability</code></td><td>";
    let sweep = "<li><code>crash_probability</code>: ";
    for (locale, value, values) in [("en", "0.3", "0, 0.25, 0.5"), ("tr", "0,3", "0; 0,25; 0,5")] {
        let page = c.page(&format!("out/site/config-fixed-{locale}.html"));
        assert!(page.contains(&format!("{fixed}{value}</td>")), "{page}");
        let page = c.page(&format!("out/site/config-swept-{locale}.html"));
        assert!(page.contains(&format!("{sweep}{values} — ")), "{page}");
    }
}

/// A table block with no filters shows every row it selects: its provenance says so,
/// without the "(one value)" a value region's has.
#[test]
fn a_table_blocks_provenance_says_every_row_not_one_value() {
    let c = course();
    c.lesson(
        "t.md",
        "<!-- coordsim use a = \"../configs/a.toml\" -->\n# Rows\n\n<!-- coordsim table a -->\n<!-- /coordsim -->\n",
    );
    let o = coordsim_in(c.path("").as_path(), &["lesson", "fill", "lessons/t.md"]);
    assert!(o.status.success(), "{}", stderr(&o));
    c.report("out", &[]);
    let page = c.page("out/site/lesson-t.html");
    assert!(page.contains("every row it selects"), "{page}");
    assert!(!page.contains("(one value)"), "{page}");
}
