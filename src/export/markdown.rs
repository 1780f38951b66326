//! `table.md`: the results as a Markdown table with labels, numbers rounded for reading.

use std::fmt::Write;
use std::path::Path;

use coordsim_model::Cell;

use super::{Exporter, Run, write_atomic};
use crate::locale::{Locale, Text};
use crate::results::{ColumnId, ColumnSource, Row, Table, number};

/// Writes `table.md`.
pub(crate) struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<super::Written> {
        write_atomic(&dir.join("table.md"), render(run).as_bytes())?;
        Ok(super::Written::default())
    }
}

/// `table.md`: a caption naming the model and seed, then the table `[table]` asks for.
pub(crate) fn render(run: &Run<'_>) -> String {
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
            let caption = if config.table.intervals {
                Text::CaptionReplications
            } else {
                Text::CaptionMeans
            };
            format!(", {reps} {}", escape(config.text(caption)))
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
pub(crate) struct TableView {
    /// Columns in order (`None`: the config's `[table]` columns, else its default ones).
    pub(crate) columns: Option<Vec<String>>,
    /// Entity rows instead of run rows.
    pub(crate) entity: bool,
    /// How numbers are written.
    pub(crate) locale: Locale,
}

/// The columns a table shows when none are named: the swept parameters that have a column,
/// then every metric (for entity rows: the swept parameters, `entity`, every entity column).
pub(crate) fn default_columns(run: &Run<'_>, entity: bool) -> Vec<String> {
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
pub(crate) fn table(
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
    let ids = resolve(run, view, source, &columns)?;
    let rows: Vec<&Row> = source.rows.iter().filter(|r| keep(source, r)).collect();
    let mut cells = Cells {
        run,
        view,
        source,
        values_at: std::collections::HashMap::new(),
    };
    // One line of cells per shown row, and whether each column holds text.
    let mut text_column = vec![false; columns.len()];
    let lines = match run.summary {
        Some(summary) if !view.entity => {
            summary_lines(&mut cells, summary, &rows, &columns, &ids, &mut text_column)
        }
        _ => rows
            .iter()
            .map(|row| {
                columns
                    .iter()
                    .zip(&ids)
                    .enumerate()
                    .map(|(k, (name, id))| {
                        let cell = cells.at(row, id);
                        text_column[k] |=
                            matches!(&cell, Cell::Text(t) if t.parse::<f64>().is_err());
                        cells.text(name, &cell)
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

/// Each named column, once: a column of the rows' file, or a parameter the config fixes
/// (its value on every row).
fn resolve(
    run: &Run<'_>,
    view: &TableView,
    source: &Table,
    columns: &[String],
) -> Result<Vec<Col>, String> {
    columns
        .iter()
        .map(|c| {
            if let Some(id) = source.schema.find(c) {
                return Ok(Col::Id(id));
            }
            if let Some(i) = run.config.key_index(c) {
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
        .collect()
}

/// A table's cells as text: values of parameter columns (each point's values built once),
/// numbers in the locale with the digits asked for, text values by their labels.
struct Cells<'a, 'r> {
    run: &'a Run<'r>,
    view: &'a TableView,
    source: &'a Table,
    values_at: std::collections::HashMap<usize, Vec<coordsim_model::Value>>,
}

impl Cells<'_, '_> {
    fn at(&mut self, row: &Row, col: &Col) -> Cell {
        match col {
            Col::Id(id) => row[*id].clone(),
            Col::Param(i) => {
                let point = self.source.point(row);
                let config = self.run.config;
                let values = self
                    .values_at
                    .entry(point)
                    .or_insert_with(|| config.point_values(point));
                crate::format::value_cell(&values[*i])
            }
        }
    }

    /// Decimals for column `name` at value `x`: whole-number columns (counts, flags, count
    /// parameters) keep none.
    fn digits(&self, name: &str, x: f64) -> Option<usize> {
        let config = self.run.config;
        if crate::results::whole_numbers(config, self.source, name) && x.fract() == 0.0 {
            None
        } else {
            config.table.digits_of(name)
        }
    }

    fn text(&self, name: &str, cell: &Cell) -> String {
        let locale = self.view.locale;
        match cell {
            Cell::Text(t) => self.run.config.label(t).to_string(),
            Cell::Empty => String::new(),
            Cell::Count(_) | Cell::Flag(_) => crate::format::cell(cell, None, locale),
            // A parameter's value names its point: shown as the config writes it, never
            // rounded (by `digits` or for reading), so distinct points keep distinct labels.
            Cell::Float(x) if x.is_finite() && self.run.config.key_index(name).is_some() => {
                locale.number(&x.to_string())
            }
            _ => crate::format::cell(cell, self.digits(name, number(cell).unwrap_or(0.5)), locale),
        }
    }

    /// `mean ± half-width`, or the mean alone for a constant column (a half-width that
    /// rounds to nothing).
    fn mean_and_half(&self, name: &str, mean: f64, hi: Option<f64>) -> String {
        let locale = self.view.locale;
        let digits = self.digits(name, mean);
        let config = self.run.config;
        let mean_text = match digits {
            // A mean of counts is no count: it keeps its fraction, to `digits` decimals at
            // most and without padding zeros (`2.361,4`, not `2.361,400`, whose three
            // zeros read as a group of thousands).
            Some(d) if crate::results::whole_numbers(config, self.source, name) => {
                locale.number(&crate::format::decimals_trimmed(mean, d))
            }
            _ => crate::format::cell(&Cell::Float(mean), digits, locale),
        };
        if !self.run.config.table.intervals {
            return mean_text;
        }
        // A whole mean of a count keeps no decimals, but its half-width is no count: it
        // takes the decimals `digits` asks for.
        let half_digits = digits.or_else(|| self.run.config.table.digits_of(name));
        let half = hi
            .map(|hi| hi - mean)
            .filter(|h| *h > 0.0)
            .map(|h| crate::format::cell(&Cell::Float(h), half_digits, locale));
        match half {
            Some(h) if !h.trim_start_matches(['0', ',', '.']).is_empty() => {
                format!("{mean_text} ± {h}")
            }
            _ => mean_text,
        }
    }
}

/// Where a column's cells come from in `summary.csv`: the column itself (a parameter), or
/// its mean and interval's upper end; resolved once per column.
struct SummaryCol {
    direct: Option<ColumnId>,
    mean: Option<ColumnId>,
    hi: Option<ColumnId>,
}

/// With replications: one line per point of the kept rows, in order, each once (its rows
/// and summary row found through maps, one pass each).
fn summary_lines(
    cells: &mut Cells<'_, '_>,
    summary: &Table,
    rows: &[&Row],
    columns: &[String],
    ids: &[Col],
    text_column: &mut [bool],
) -> Vec<Vec<String>> {
    let source = cells.source;
    let mut points: Vec<usize> = rows.iter().map(|r| source.point(r)).collect();
    points.dedup();
    let summary_row: std::collections::HashMap<usize, &Row> =
        summary.rows.iter().map(|r| (summary.point(r), r)).collect();
    let mut rows_of: std::collections::HashMap<usize, Vec<&Row>> = std::collections::HashMap::new();
    for r in rows {
        rows_of.entry(source.point(r)).or_default().push(r);
    }
    let found: Vec<SummaryCol> = columns
        .iter()
        .map(|name| SummaryCol {
            direct: summary.schema.find(name),
            mean: summary.schema.find(&format!("{name}_mean")),
            hi: summary.schema.find(&format!("{name}_ci95_hi")),
        })
        .collect();
    points
        .into_iter()
        .filter_map(|p| summary_row.get(&p).map(|r| (p, *r)))
        .map(|(p, srow)| {
            let mut line = Vec::with_capacity(columns.len());
            for (k, ((name, id), col)) in columns.iter().zip(ids).zip(&found).enumerate() {
                if let Some(sid) = col.direct {
                    let cell = &srow[sid];
                    text_column[k] |= matches!(cell, Cell::Text(_)) && number(cell).is_none();
                    line.push(cells.text(name, cell));
                    continue;
                }
                let mean = col.mean.and_then(|i| number(&srow[i]));
                let hi = col.hi.and_then(|i| number(&srow[i]));
                line.push(match mean {
                    Some(mean) => cells.mean_and_half(name, mean, hi),
                    None => {
                        // A text metric: shown when every replication agrees.
                        let values: Vec<Cell> = rows_of
                            .get(&p)
                            .into_iter()
                            .flatten()
                            .map(|r| cells.at(r, id))
                            .collect();
                        match values.first() {
                            Some(c) if values.iter().all(|v| v == c) => {
                                text_column[k] |= matches!(c, Cell::Text(_));
                                cells.text(name, c)
                            }
                            _ => String::new(),
                        }
                    }
                });
            }
            line
        })
        .collect()
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
pub(crate) fn escape(cell: &str) -> String {
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
