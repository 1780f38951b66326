//! The index: the totals `report` prints, every failure, then every config and lesson with
//! its model, rows, claims and regions (failures first), each linked to its page. Its words
//! are those of its own locale (`report --index-locale`, English by default; a course's
//! `locales/LOCALE.toml` among them), whatever the locales of the pages it lists; a config
//! that speaks the index's locale is listed by its title in it.

use super::config_page::ConfigInfo;
use super::frame::{Depth, Input, badge, page};
use super::html::Html;
use super::lesson_page::Lessons;
use super::words::{Words, say};

/// The index page.
pub(crate) fn render(input: &Input<'_>, configs: &[ConfigInfo], lessons: &Lessons) -> String {
    let claims: usize = configs.iter().map(|c| c.verdicts.len()).sum();
    let claims_passed: usize = configs.iter().map(|c| c.passed).sum();
    let regions: usize = lessons.info.iter().map(|l| l.total).sum();
    let regions_passed: usize = lessons.info.iter().map(|l| l.passed).sum();
    let passed = claims_passed + regions_passed;
    let failed = claims + regions - passed;
    let lc = input.words.words(input.index_locale);
    let mut h = Html::new();
    h.el("h1", &[], say(lc, "coordsim report")).newline();
    h.with("section", &[("class", "totals")], |h| {
        h.open("p", &[]);
        badge(h, failed == 0, say(lc, "ALL PASS"), say(lc, "FAILURES"));
        h.text(" ");
        h.el(
            "strong",
            &[
                ("id", "totals"),
                ("data-passed", &passed.to_string()),
                ("data-failed", &failed.to_string()),
            ],
            &say(lc, "{passed} passed, {failed} failed")
                .replace("{passed}", &passed.to_string())
                .replace("{failed}", &failed.to_string()),
        );
        h.close("p").newline();
        h.el(
            "p",
            &[],
            &say(
                lc,
                "Claims: {claims_passed} of {claims} hold, in {configs} config(s). Lesson regions: {regions_passed} of {regions} match the run, in {lessons} lesson(s).",
            )
            .replace("{claims_passed}", &claims_passed.to_string())
            .replace("{claims}", &claims.to_string())
            .replace("{configs}", &configs.len().to_string())
            .replace("{regions_passed}", &regions_passed.to_string())
            .replace("{regions}", &regions.to_string())
            .replace("{lessons}", &lessons.info.len().to_string()),
        )
        .newline();
        if input.lessons_skipped {
            let why = say(
                lc,
                "The lessons were not checked: --seed replaces the seeds their figures come from.",
            );
            h.el("p", &[("class", "note")], why).newline();
        }
    })
    .newline();
    failures(&mut h, configs, lessons, lc);
    lesson_table(&mut h, lessons, lc);
    config_table(&mut h, input, configs, lc);
    page(Depth::Index, say(lc, "coordsim report"), h, lc)
}

/// Every failing claim and drifted region, each linked to its place.
fn failures(h: &mut Html, configs: &[ConfigInfo], lessons: &Lessons, lc: Words<'_>) {
    let any =
        configs.iter().any(|c| c.failed() > 0) || lessons.info.iter().any(|l| l.passed < l.total);
    if !any {
        return;
    }
    h.el("h2", &[("id", "failures")], say(lc, "Failures"))
        .newline();
    h.open("ul", &[("class", "failures")]).newline();
    for c in configs {
        for (k, v) in c.verdicts.iter().enumerate().filter(|(_, v)| !v.pass) {
            h.with("li", &[], |h| {
                h.el(
                    "a",
                    &[(
                        "href",
                        &format!("{}#claim-{}", Depth::Index.site(c.file()), k + 1),
                    )],
                    &v.line,
                );
            })
            .newline();
        }
    }
    for l in &lessons.info {
        for (line, anchor) in &l.failures {
            h.with("li", &[], |h| {
                h.el(
                    "a",
                    &[("href", &format!("{}#{anchor}", Depth::Index.site(&l.file)))],
                    line,
                );
            })
            .newline();
        }
    }
    h.close("ul").newline();
}

fn head_row(h: &mut Html, heads: &[&str]) {
    h.open("thead", &[]).open("tr", &[]);
    for head in heads {
        h.el("th", &[], head);
    }
    h.close("tr").close("thead").open("tbody", &[]).newline();
}

/// Every config, those with a failed claim first (path order otherwise).
fn config_table(h: &mut Html, input: &Input<'_>, configs: &[ConfigInfo], lc: Words<'_>) {
    let mut order: Vec<&ConfigInfo> = configs.iter().collect();
    order.sort_by_key(|c| c.failed() == 0);
    h.el(
        "h2",
        &[("id", "configs")],
        &say(lc, "Configs ({count})").replace("{count}", &configs.len().to_string()),
    )
    .newline();
    h.open("div", &[("class", "table-wrap")])
        .open("table", &[("class", "index")]);
    head_row(
        h,
        &[
            say(lc, "config"),
            say(lc, "title"),
            say(lc, "model"),
            say(lc, "rows"),
            say(lc, "claims passed"),
            say(lc, "failed"),
            say(lc, "verdict"),
            say(lc, "data"),
        ],
    );
    for c in order {
        let class = if c.failed() == 0 { "pass" } else { "fail" };
        h.open("tr", &[("class", class)]);
        h.with("td", &[], |h| {
            h.el("a", &[("href", &Depth::Index.site(c.file()))], &c.name);
        });
        // Its title in the index's locale when it speaks it, else its own.
        let config = (input.runs.iter())
            .find(|(p, _)| *p == c.canonical)
            .map(|(_, l)| &l.config)
            .filter(|config| config.speaks(lc.locale));
        match config {
            Some(config) => h.el(
                "td",
                &[("lang", lc.locale.name())],
                config.title_in(lc.locale),
            ),
            None => h.el("td", &[("lang", &c.locale)], &c.title),
        };
        h.with("td", &[], |h| {
            h.el("code", &[], &c.model);
        });
        h.el("td", &[("class", "num")], &c.rows.to_string());
        h.el("td", &[("class", "num")], &c.passed.to_string());
        h.el("td", &[("class", "num")], &c.failed().to_string());
        h.with("td", &[], |h| {
            badge(h, c.failed() == 0, say(lc, "PASS"), say(lc, "FAIL"));
        });
        h.with("td", &[], |h| {
            h.el(
                "a",
                &[("href", &Depth::Index.output(&c.stem, "results.csv"))],
                "results.csv",
            )
            .text(" · ")
            .el(
                "a",
                &[("href", &Depth::Index.output(&c.stem, "table.md"))],
                "table.md",
            );
        });
        h.close("tr").newline();
    }
    h.close("tbody").close("table").close("div").newline();
}

/// Every lesson, those with a drifted region first.
fn lesson_table(h: &mut Html, lessons: &Lessons, lc: Words<'_>) {
    if lessons.info.is_empty() {
        return;
    }
    let mut order: Vec<_> = lessons.info.iter().collect();
    order.sort_by_key(|l| l.passed == l.total);
    h.el(
        "h2",
        &[("id", "lessons")],
        &say(lc, "Lessons ({count})").replace("{count}", &lessons.info.len().to_string()),
    )
    .newline();
    h.open("div", &[("class", "table-wrap")])
        .open("table", &[("class", "index")]);
    head_row(
        h,
        &[
            say(lc, "lesson"),
            say(lc, "title"),
            say(lc, "regions passed"),
            say(lc, "drifted"),
            say(lc, "verdict"),
        ],
    );
    for l in order {
        let pass = l.passed == l.total;
        h.open("tr", &[("class", if pass { "pass" } else { "fail" })]);
        h.with("td", &[], |h| {
            h.el("a", &[("href", &Depth::Index.site(&l.file))], &l.name);
        });
        h.el("td", &[("lang", &l.locale)], &l.title);
        h.el("td", &[("class", "num")], &l.passed.to_string());
        h.el("td", &[("class", "num")], &(l.total - l.passed).to_string());
        h.with("td", &[], |h| {
            badge(h, pass, say(lc, "PASS"), say(lc, "FAIL"))
        });
        h.close("tr").newline();
    }
    h.close("tbody").close("table").close("div").newline();
}
