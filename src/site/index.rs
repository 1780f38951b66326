//! The index: the totals `report` prints, every failure, then every config and lesson with
//! its model, rows, claims and regions (failures first), each linked to its page.

use super::config_page::ConfigInfo;
use super::frame::{Depth, Input, badge, count_line, page};
use super::html::Html;
use super::lesson_page::Lessons;

/// The index page.
pub fn render(input: &Input<'_>, configs: &[ConfigInfo], lessons: &Lessons) -> String {
    let claims: usize = configs.iter().map(|c| c.verdicts.len()).sum();
    let claims_passed: usize = configs.iter().map(|c| c.passed).sum();
    let regions: usize = lessons.info.iter().map(|l| l.total).sum();
    let regions_passed: usize = lessons.info.iter().map(|l| l.passed).sum();
    let passed = claims_passed + regions_passed;
    let failed = claims + regions - passed;
    let mut h = Html::new();
    h.el("h1", &[], "coordsim report").newline();
    h.with("section", &[("class", "totals")], |h| {
        h.open("p", &[]);
        badge(h, failed == 0, "ALL PASS", "FAILURES");
        h.text(" ");
        h.el(
            "strong",
            &[
                ("id", "totals"),
                ("data-passed", &passed.to_string()),
                ("data-failed", &failed.to_string()),
            ],
            &count_line(passed, failed),
        );
        h.close("p").newline();
        h.el(
            "p",
            &[],
            &format!(
                "Claims: {claims_passed} of {claims} hold, in {} config(s). Lesson regions: {regions_passed} of {regions} match the run, in {} lesson(s).",
                configs.len(),
                lessons.info.len()
            ),
        )
        .newline();
        if let Some(why) = input.lessons_skipped {
            h.el("p", &[("class", "note")], why).newline();
        }
    })
    .newline();
    failures(&mut h, configs, lessons);
    lesson_table(&mut h, lessons);
    config_table(&mut h, configs);
    page(
        Depth::Index,
        "coordsim report",
        h,
        super::words::Words::built_in(crate::locale::Locale::En),
    )
}

/// Every failing claim and drifted region, each linked to its place.
fn failures(h: &mut Html, configs: &[ConfigInfo], lessons: &Lessons) {
    let any =
        configs.iter().any(|c| c.failed() > 0) || lessons.info.iter().any(|l| l.passed < l.total);
    if !any {
        return;
    }
    h.el("h2", &[("id", "failures")], "Failures").newline();
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
fn config_table(h: &mut Html, configs: &[ConfigInfo]) {
    let mut order: Vec<&ConfigInfo> = configs.iter().collect();
    order.sort_by_key(|c| c.failed() == 0);
    h.el(
        "h2",
        &[("id", "configs")],
        &format!("Configs ({})", configs.len()),
    )
    .newline();
    h.open("div", &[("class", "table-wrap")])
        .open("table", &[("class", "index")]);
    head_row(
        h,
        &[
            "config",
            "title",
            "model",
            "rows",
            "claims passed",
            "failed",
            "verdict",
            "data",
        ],
    );
    for c in order {
        let class = if c.failed() == 0 { "pass" } else { "fail" };
        h.open("tr", &[("class", class)]);
        h.with("td", &[], |h| {
            h.el("a", &[("href", &Depth::Index.site(c.file()))], &c.name);
        });
        h.el("td", &[("lang", &c.locale)], &c.title);
        h.with("td", &[], |h| {
            h.el("code", &[], &c.model);
        });
        h.el("td", &[("class", "num")], &c.rows.to_string());
        h.el("td", &[("class", "num")], &c.passed.to_string());
        h.el("td", &[("class", "num")], &c.failed().to_string());
        h.with("td", &[], |h| badge(h, c.failed() == 0, "PASS", "FAIL"));
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
fn lesson_table(h: &mut Html, lessons: &Lessons) {
    if lessons.info.is_empty() {
        return;
    }
    let mut order: Vec<_> = lessons.info.iter().collect();
    order.sort_by_key(|l| l.passed == l.total);
    h.el(
        "h2",
        &[("id", "lessons")],
        &format!("Lessons ({})", lessons.info.len()),
    )
    .newline();
    h.open("div", &[("class", "table-wrap")])
        .open("table", &[("class", "index")]);
    head_row(
        h,
        &["lesson", "title", "regions passed", "drifted", "verdict"],
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
        h.with("td", &[], |h| badge(h, pass, "PASS", "FAIL"));
        h.close("tr").newline();
    }
    h.close("tbody").close("table").close("div").newline();
}
