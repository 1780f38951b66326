//! `table.md`: the results as a Markdown table with labels, numbers rounded for reading.

use std::fmt::Write;
use std::path::Path;

use coordsim_model::Cell;

use super::{Exporter, Run, write_atomic};
use crate::locale::{Locale, Text};
use crate::results::{ColumnId, ColumnSource, Row, Table, number};

/// Writes `table.md`.
pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<super::Written> {
        write_atomic(&dir.join("table.md"), render(run).as_bytes())?;
        Ok(super::Written::default())
    }
}

/// `table.md`: a caption naming the model and seed, then the table `[table]` asks for.
pub fn render(run: &Run<'_>) -> String {
    let config = run.config;
    let reps = config.replications;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "**{}**: {} `{}`, {} {}{}\n",
        escape(&config.title),
        escape(config.text(Text::CaptionModel)),
        config.model.name(),
        escape(config.text(Text::CaptionSeed)),
        run.seed,
        if reps > 1 && !config.table.entity {
            format!(
                ", {reps} {}",
                escape(config.text(Text::CaptionReplications))
            )
        } else {
            String::new()
        }
    );
    // The config's own columns were checked when it loaded.
    let view = TableView {
        columns: config.table.columns.clone(),
        entity: config.table.entity,
        locale: config.locale,
    };
    match table(run, &view, &|_, _| true) {
        Ok(text) => out.push_str(&text),
        Err(e) => {
            let _ = writeln!(out, "({e})");
        }
    }
    out
}

/// Which table to draw: the rows and columns of `table.md`, or of a lesson's table block.
#[derive(Debug, Clone)]
pub struct TableView {
    /// Columns in order (`None`: the config's `[table]` columns, else its default ones).
    pub columns: Option<Vec<String>>,
    /// Entity rows instead of run rows.
    pub entity: bool,
    /// How numbers are written.
    pub locale: Locale,
}

/// The columns a table shows when none are named: the swept parameters that have a column,
/// then every metric (for entity rows: the swept parameters, `entity`, every entity column).
pub fn default_columns(run: &Run<'_>, entity: bool) -> Vec<String> {
    let source = match (entity, &run.results.entities) {
        (true, Some(entities)) => entities,
        _ => &run.results.results,
    };
    source
        .schema
        .columns()
        .iter()
        .filter(|c| {
            matches!(
                c.source,
                ColumnSource::Axis(_)
                    | ColumnSource::Metric(_)
                    | ColumnSource::Entity
                    | ColumnSource::EntityColumn(_)
            )
        })
        .map(|c| c.name.clone())
        .collect()
}

/// The Markdown table of `view` over the rows `keep` accepts (given the table the row is
/// from): one row per run (with replications, per point: mean ± 95% half-width), or one per
/// entity row. Text columns are left-aligned, numbers right-aligned; labels name the
/// columns and the text values. `Err` names a column the rows do not have.
pub fn table(
    run: &Run<'_>,
    view: &TableView,
    keep: &dyn Fn(&Table, &Row) -> bool,
) -> Result<String, String> {
    let config = run.config;
    let columns = view
        .columns
        .clone()
        .or_else(|| {
            config
                .table
                .columns
                .clone()
                .filter(|_| view.entity == config.table.entity)
        })
        .unwrap_or_else(|| default_columns(run, view.entity));
    let source: &Table = match (view.entity, &run.results.entities) {
        (true, Some(entities)) => entities,
        (true, None) => return Err(format!("{} has no entity rows", config.model.name())),
        (false, _) => &run.results.results,
    };
    // A column of the file, or a parameter the config fixes (its value on every row).
    let ids: Vec<Col> = columns
        .iter()
        .map(|c| {
            if let Some(id) = source.schema.find(c) {
                return Ok(Col::Id(id));
            }
            if let Some(i) = config.key_index(c) {
                return Ok(Col::Param(i));
            }
            Err(format!(
                "`{c}` is not a column of {} or a parameter; valid: {}",
                if view.entity {
                    "entities.csv"
                } else {
                    "results.csv"
                },
                default_columns(run, view.entity).join(", ")
            ))
        })
        .collect::<Result<_, _>>()?;
    // Each point's parameter values, for parameter columns only.
    let mut values_at: std::collections::HashMap<usize, Vec<coordsim_model::Value>> =
        std::collections::HashMap::new();
    let mut cell_at = |row: &Row, col: &Col| -> Cell {
        match col {
            Col::Id(id) => row[*id].clone(),
            Col::Param(i) => {
                let point = source.point(row);
                let values = values_at
                    .entry(point)
                    .or_insert_with(|| config.point_values(point));
                crate::format::value_cell(&values[*i])
            }
        }
    };
    let rows: Vec<&Row> = source.rows.iter().filter(|r| keep(source, r)).collect();
    // Whole-number columns (counts, flags, count parameters) keep no decimals.
    let whole = |name: &str| crate::results::whole_numbers(config, source, name);
    let digits_of = |name: &str, x: f64| {
        if whole(name) && x.fract() == 0.0 {
            None
        } else {
            config.table.digits_of(name)
        }
    };
    let fmt = |name: &str, cell: &Cell| -> String {
        match cell {
            Cell::Text(t) => config.label(t).to_string(),
            Cell::Empty => String::new(),
            Cell::Count(_) | Cell::Flag(_) => crate::format::cell(cell, None, view.locale),
            _ => crate::format::cell(
                cell,
                digits_of(name, number(cell).unwrap_or(0.5)),
                view.locale,
            ),
        }
    };
    // One line of cells per shown row, and whether each column holds text.
    let mut text_column = vec![false; columns.len()];
    let lines: Vec<Vec<String>> = match run.summary {
        Some(summary) if !view.entity => {
            // Per point: the points of the kept rows, in order, each once, with their rows
            // and summary row found through maps (one pass each, whatever the sweep's size).
            let mut points: Vec<usize> = rows.iter().map(|r| source.point(r)).collect();
            points.dedup();
            let summary_row: std::collections::HashMap<usize, &Row> =
                summary.rows.iter().map(|r| (summary.point(r), r)).collect();
            let mut rows_of: std::collections::HashMap<usize, Vec<&Row>> =
                std::collections::HashMap::new();
            for r in &rows {
                rows_of.entry(source.point(r)).or_default().push(r);
            }
            points
                .into_iter()
                .filter_map(|p| summary_row.get(&p).map(|r| (p, *r)))
                .map(|(p, srow)| {
                    columns
                        .iter()
                        .zip(&ids)
                        .enumerate()
                        .map(|(k, (name, id))| {
                            if let Some(sid) = summary.schema.find(name) {
                                let cell = &srow[sid];
                                text_column[k] |=
                                    matches!(cell, Cell::Text(_)) && number(cell).is_none();
                                return fmt(name, cell);
                            }
                            let stat = |s: &str| {
                                summary
                                    .schema
                                    .find(&format!("{name}_{s}"))
                                    .and_then(|i| number(&srow[i]))
                            };
                            match (stat("mean"), stat("ci95_hi")) {
                                (Some(mean), hi) => {
                                    let digits = digits_of(name, mean);
                                    let mean_text = crate::format::cell(
                                        &Cell::Float(mean),
                                        digits,
                                        view.locale,
                                    );
                                    let half =
                                        hi.map(|hi| hi - mean).filter(|h| *h > 0.0).map(|h| {
                                            crate::format::cell(
                                                &Cell::Float(h),
                                                digits,
                                                view.locale,
                                            )
                                        });
                                    match half {
                                        // A constant column (or a half-width that rounds to
                                        // nothing) reads as its value alone.
                                        Some(h)
                                            if !h
                                                .trim_start_matches(['0', ',', '.'])
                                                .is_empty() =>
                                        {
                                            format!("{mean_text} ± {h}")
                                        }
                                        _ => mean_text,
                                    }
                                }
                                (None, _) => {
                                    // A text metric: shown when every replication agrees.
                                    let values: Vec<Cell> = rows_of
                                        .get(&p)
                                        .into_iter()
                                        .flatten()
                                        .map(|r| cell_at(r, id))
                                        .collect();
                                    match values.first() {
                                        Some(c) if values.iter().all(|v| v == c) => {
                                            text_column[k] |= matches!(c, Cell::Text(_));
                                            fmt(name, c)
                                        }
                                        _ => String::new(),
                                    }
                                }
                            }
                        })
                        .collect()
                })
                .collect()
        }
        _ => rows
            .iter()
            .map(|row| {
                columns
                    .iter()
                    .zip(&ids)
                    .enumerate()
                    .map(|(k, (name, id))| {
                        let cell = cell_at(row, id);
                        text_column[k] |=
                            matches!(&cell, Cell::Text(t) if t.parse::<f64>().is_err());
                        fmt(name, &cell)
                    })
                    .collect()
            })
            .collect(),
    };
    let mut out = String::new();
    let labels: Vec<String> = columns.iter().map(|c| escape(config.label(c))).collect();
    let _ = writeln!(out, "| {} |", labels.join(" | "));
    let rule: String = text_column
        .iter()
        .map(|t| if *t { ":---|" } else { "---:|" })
        .collect();
    let _ = writeln!(out, "|{rule}");
    for line in lines {
        let cells: Vec<String> = line.iter().map(|c| escape(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    Ok(out)
}

/// Where a table column's cells come from.
enum Col {
    /// A column of the rows' file.
    Id(ColumnId),
    /// A parameter (by index in a point's values).
    Param(usize),
}

/// Text for `table.md` (a cell, a label, the title): `|` escaped, HTML's `&`, `<` and `>`
/// written as entities (a label is text, never markup a Markdown renderer would pass
/// through), control characters (escape codes on a terminal) replaced by spaces.
fn escape(cell: &str) -> String {
    let clean = crate::export::chart::layout::clean(cell);
    let mut out = String::with_capacity(clean.len());
    for c in clean.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn labels_and_titles_reach_the_table_as_text_not_html() {
        assert_eq!(
            escape("<img src=x onerror=alert(1)> & a|b"),
            "&lt;img src=x onerror=alert(1)&gt; &amp; a\\|b"
        );
        assert_eq!(escape("ort. bekleme (ms)"), "ort. bekleme (ms)");
    }
}
