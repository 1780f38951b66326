//! The slider of a config's page: on a config with a swept parameter, a range input per
//! swept parameter over the values the report ran, and at the point they pick, side by
//! side, its row of the table, its timeline (when the report drew one for it) and its
//! explored outcomes (when the report explored it). Every point's pieces are in the page,
//! hidden; `site.js` shows the section and the picked point. Without script the section
//! stays hidden and the page is as it was.

use super::frame::{Depth, value_text};
use super::html::Html;
use super::markdown::{self, Plain};
use super::words::{Words, say};
use crate::config::{ChartKind, Config};
use crate::export::Run;
use crate::export::chart::NARROW_SUFFIX;
use crate::export::markdown::{TableView, table};
use crate::lesson::eval::Loaded;

/// Most points a slider covers: each point's row, timeline and outcomes are in the page.
pub(crate) const MAX_SLIDER_POINTS: usize = 200;

/// Most outcomes shown at one point (`outcomes.csv` holds them all).
const MAX_OUTCOMES: usize = 20;

/// The slider section, when the config sweeps a parameter over at most
/// [`MAX_SLIDER_POINTS`] points. `files` and `explored`: the output folder's files and
/// its `explore/` folder's.
pub(crate) fn slider(
    h: &mut Html,
    loaded: &Loaded,
    (files, explored): (&[String], &[String]),
    seed: Option<u64>,
    outcomes_csv: Option<&str>,
    lc: Words<'_>,
) {
    let config = &loaded.config;
    if config.axes.is_empty() || config.points > MAX_SLIDER_POINTS {
        return;
    }
    let run = Run {
        config,
        results: &loaded.results,
        summary: loaded.summary.as_ref(),
        seed: seed.unwrap_or(config.seed),
    };
    let outcomes = outcomes_csv.and_then(|text| Outcomes::read(text, config));
    h.open(
        "section",
        &[("class", "sweep-slider"), ("id", "slider"), ("hidden", "")],
    )
    .newline();
    h.el("h3", &[], say(lc, "One point of the sweep")).newline();
    h.open("div", &[("class", "slider-controls")]).newline();
    for (i, axis) in config.axes.iter().enumerate() {
        let values: Vec<String> = axis.values.iter().map(|v| value_text(v, lc)).collect();
        let max = (axis.values.len() - 1).to_string();
        h.with("label", &[], |h| {
            h.el("code", &[], &axis.key);
            if config.has_label(&axis.key) {
                h.text(" (").text(config.label(&axis.key)).text(")");
            }
            h.text(" ");
            h.void(
                "input",
                &[
                    ("type", "range"),
                    ("min", "0"),
                    ("max", &max),
                    ("step", "1"),
                    ("value", "0"),
                    ("data-axis", &i.to_string()),
                    (
                        "data-values",
                        &serde_json::Value::from(values.clone()).to_string(),
                    ),
                ],
            );
            h.el("output", &[], &values[0]);
        })
        .newline();
    }
    h.close("div").newline();
    for point in 0..config.points {
        let at = axis_indices(config, point);
        h.open(
            "div",
            &[
                ("class", "slider-point"),
                ("data-at", &at.join(",")),
                ("hidden", ""),
            ],
        );
        point_row(h, &run, point, lc);
        timeline(h, config, files, point, lc);
        if let Some(o) = &outcomes
            && !explored.is_empty()
        {
            o.write(h, config, point, lc);
        }
        h.close("div").newline();
    }
    h.close("section").newline();
}

/// Each axis's index of its value at `point` (the sweep's order): the point's coordinates,
/// not a search for its value, which a sweep may list twice.
fn axis_indices(config: &Config, point: usize) -> Vec<String> {
    config
        .coordinates(point)
        .into_iter()
        .map(|i| i.to_string())
        .collect()
}

/// The point's row of the table, as `table.md` writes it.
fn point_row(h: &mut Html, run: &Run<'_>, point: usize, lc: Words<'_>) {
    let view = TableView {
        columns: run.config.table.columns.clone(),
        entity: run.config.table.entity,
        locale: run.config.locale,
    };
    let Ok(text) = table(run, &view, &|t, row| t.point(row) == point) else {
        return;
    };
    h.with("div", &[("class", "slider-row")], |h| {
        h.el("h4", &[], say(lc, "Its row of the table"));
        let plain = Plain(say(lc, "an image in a table is not shown"));
        h.append(markdown::render(&text, &plain));
    });
}

/// The point's timeline, when a timeline chart of the config was drawn for it.
fn timeline(h: &mut Html, config: &Config, files: &[String], point: usize, lc: Words<'_>) {
    for spec in config
        .charts
        .iter()
        .filter(|c| c.kind == ChartKind::Timeline)
    {
        let points = spec.timeline_points(config);
        if !points.drawn.contains(&point) {
            continue;
        }
        let name = spec.file_name(point, &points);
        let svg = format!("{name}.svg");
        if !files.contains(&svg) {
            continue;
        }
        let narrow = format!("{name}{NARROW_SUFFIX}");
        let narrow = files
            .contains(&narrow)
            .then(|| Depth::Site.output(&config.stem, &narrow));
        h.with("figure", &[("class", "slider-timeline")], |h| {
            h.chart_image(
                &Depth::Site.output(&config.stem, &svg),
                narrow.as_deref(),
                &format!("{}: {name}", config.title),
            );
            h.with("figcaption", &[], |h| {
                h.text(say(lc, "Its timeline")).text(": ");
                h.el("code", &[], &name);
            });
        });
    }
}

/// `explore/outcomes.csv`: its columns and rows (text cells).
struct Outcomes {
    /// The columns shown: `outcome`, `executions`, `probability`, then the table's own
    /// columns the file has, by index in the file.
    shown: Vec<(usize, String)>,
    /// Each row's point and cells.
    rows: Vec<(usize, Vec<String>)>,
}

impl Outcomes {
    fn read(text: &str, config: &Config) -> Option<Outcomes> {
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let head: Vec<String> = reader.headers().ok()?.iter().map(str::to_string).collect();
        let columns = config.table.columns.clone().unwrap_or_default();
        let shown = (head.iter().enumerate())
            .filter(|(_, name)| {
                matches!(name.as_str(), "outcome" | "executions" | "probability")
                    || columns.contains(name)
            })
            .map(|(i, name)| (i, name.clone()))
            .collect();
        let rows = reader
            .records()
            .filter_map(Result::ok)
            .filter_map(|r| {
                let point = r.get(0)?.parse().ok()?;
                Some((point, r.iter().map(str::to_string).collect()))
            })
            .collect();
        Some(Outcomes { shown, rows })
    }

    /// The point's outcomes as a table (the first [`MAX_OUTCOMES`]).
    fn write(&self, h: &mut Html, config: &Config, point: usize, lc: Words<'_>) {
        let rows: Vec<&Vec<String>> = (self.rows.iter())
            .filter(|(p, _)| *p == point)
            .map(|(_, cells)| cells)
            .collect();
        if rows.is_empty() {
            return;
        }
        h.open("div", &[("class", "slider-outcomes")]);
        h.el("h4", &[], say(lc, "Its outcomes over every execution"));
        h.open("div", &[("class", "table-wrap")]).open("table", &[]);
        h.open("thead", &[]).open("tr", &[]);
        for (_, name) in &self.shown {
            match name.as_str() {
                "outcome" => h.el("th", &[], say(lc, "outcome")),
                "executions" => h.el("th", &[], say(lc, "executions")),
                "probability" => h.el("th", &[], say(lc, "probability")),
                _ if config.has_label(name) => h.el("th", &[], config.label(name)),
                _ => h.with("th", &[], |h| {
                    h.el("code", &[], name);
                }),
            };
        }
        h.close("tr").close("thead").open("tbody", &[]);
        for cells in rows.iter().take(MAX_OUTCOMES) {
            h.open("tr", &[]);
            for (i, name) in &self.shown {
                let cell = cells.get(*i).map_or("", String::as_str);
                let text = match cell.parse::<f64>() {
                    // A probability as `explore.md` shows it (to 12 decimals: 0.008, not
                    // the sum's 0.008000000000000002).
                    Ok(p) if name == "probability" => {
                        lc.locale.number(&crate::export::explore::rounded(p))
                    }
                    Ok(_) => lc.locale.number(cell),
                    Err(_) => cell.to_string(),
                };
                h.el("td", &[("class", "num")], &text);
            }
            h.close("tr");
        }
        h.close("tbody").close("table").close("div");
        if rows.len() > MAX_OUTCOMES {
            h.el(
                "p",
                &[("class", "note")],
                &say(
                    lc,
                    "The first {shown} of {total} outcomes; outcomes.csv holds them all.",
                )
                .replace("{shown}", &MAX_OUTCOMES.to_string())
                .replace("{total}", &rows.len().to_string()),
            );
        }
        h.close("div");
    }
}
