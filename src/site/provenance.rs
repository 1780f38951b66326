//! A marked region's provenance: where its text comes from (the config, the column, the
//! point or statistic, the run's value, the precision the author wrote) and, on the author's
//! view, whether it still holds and which claims and config lines check the same value.

use std::path::PathBuf;

use super::config_page::ConfigInfo;
use super::frame::{Depth, badge};
use super::html::Html;
use super::words::{Words, say};
use crate::lesson::eval::{Loaded, Outcome, selected};
use crate::lesson::parse::{Kind, Region};

/// What a provenance may hold.
#[derive(Clone, Copy)]
pub(super) struct Shown {
    /// Links may be written (not inside a link of the lesson's, nor in a fragment, which
    /// links to no other file).
    pub(super) links: bool,
    /// The author's view: the verdict, what else checks the value and a drifted table's
    /// difference; a reader's view shows where the text comes from alone.
    pub(super) checks: bool,
}

/// A region with what its page needs to say where it comes from.
pub(super) struct RegionView<'a> {
    /// The region as the lesson marks it.
    pub(super) region: &'a Region,
    /// What checking it gave.
    pub(super) outcome: &'a Outcome,
    /// The config's run (canonical path, config and rows).
    pub(super) run: Option<&'a (PathBuf, Loaded)>,
    /// The config's page, when the report ran it.
    pub(super) config: Option<&'a ConfigInfo>,
    /// The config's path as the lesson writes it.
    pub(super) use_path: &'a str,
}

/// Where a region's text comes from and, when `shown.checks`, whether it still holds.
pub(super) fn provenance(h: &mut Html, r: &RegionView<'_>, shown: Shown, lc: Words<'_>) {
    let o = r.outcome;
    let links = shown.links;
    if shown.checks {
        verdict(h, r, lc);
    }
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
            // A value reads one number off every row; a table or a chart shows them all; an
            // explorer plays the config's first point.
            h.text(match r.region.kind {
                Kind::Value { .. } | Kind::Explored { .. } => {
                    say(lc, "every row it selects (one value)")
                }
                Kind::Explorer => say(lc, "the config's first point"),
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
        Kind::Table | Kind::Explorer => {}
        Kind::Chart { .. } => {
            row(h, say(lc, "image"), &|h| {
                h.text(&o.run);
            });
        }
    }
    if !shown.checks {
        return;
    }
    checked_by(h, r, links, lc);
    if let Some(diff) = &o.diff {
        h.el("span", &[("class", "cs-diff")], diff);
    }
}

/// Whether the region's text still holds, a badge.
fn verdict(h: &mut Html, r: &RegionView<'_>, lc: Words<'_>) {
    let pass = r.outcome.pass;
    row(h, say(lc, "verdict"), &|h| match r.region.kind {
        // An explored value is held to every execution, not to one run.
        Kind::Explored { .. } => badge(
            h,
            pass,
            say(lc, "matches every execution"),
            say(lc, "drifted from the executions"),
        ),
        // An explorer holds no number: checked is its point explored.
        Kind::Explorer => badge(h, pass, say(lc, "checked"), say(lc, "drifted")),
        _ => badge(
            h,
            pass,
            say(lc, "matches the run"),
            say(lc, "drifted from the run"),
        ),
    });
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
        Kind::Explorer => format!("explorer {}", region.config),
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
        Kind::Explorer => {
            let text = say(lc, "the explorer on the config's page");
            return see(h, "play", text);
        }
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
