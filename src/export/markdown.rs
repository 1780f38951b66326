//! `table.md`: the results as a Markdown table with labels, numbers rounded for reading.

use std::fmt::Write;
use std::path::Path;

use super::{Exporter, Run, write_atomic};
use crate::results::{ColumnId, ColumnSource, number};

/// Writes `table.md`.
pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<()> {
        write_atomic(&dir.join("table.md"), render(run).as_bytes())
    }
}

/// The table: one row per run (or, with replications, per point: mean ± 95% half-width).
pub fn render(run: &Run<'_>) -> String {
    let config = run.config;
    let table = &run.results.results;
    // The swept parameters that have a column, then the metrics: the results.csv columns
    // a reader wants, each once.
    let columns: Vec<(ColumnId, &str)> = table
        .schema
        .columns()
        .iter()
        .filter(|c| matches!(c.source, ColumnSource::Axis(_) | ColumnSource::Metric(_)))
        .filter_map(|c| Some((table.schema.find(&c.name)?, c.name.as_str())))
        .collect();
    let mut out = String::new();
    let reps = config.replications;
    let _ = writeln!(
        out,
        "**{}**: model `{}`, seed {}{}\n",
        config.title,
        config.model.name(),
        run.seed,
        if reps > 1 {
            format!(", {reps} replications (mean ± 95% CI half-width)")
        } else {
            String::new()
        }
    );
    let labels: Vec<String> = columns
        .iter()
        .map(|(_, c)| escape(config.label(c)))
        .collect();
    let _ = writeln!(out, "| {} |", labels.join(" | "));
    let _ = writeln!(out, "|{}", "---:|".repeat(columns.len()));

    let rows: Vec<Vec<String>> = match run.summary {
        None => table
            .rows
            .iter()
            .map(|row| {
                columns
                    .iter()
                    .map(|(id, _)| round(&row[*id].to_string()))
                    .collect()
            })
            .collect(),
        Some(summary) => summary
            .rows
            .iter()
            .map(|row| {
                let cell = |name: &str| summary.column(name).map(|id| &row[id]);
                columns
                    .iter()
                    .map(|(_, c)| match cell(c) {
                        Some(v) => round(&v.to_string()),
                        None => {
                            let mean = cell(&format!("{c}_mean"));
                            let half = match (
                                cell(&format!("{c}_ci95_hi")).and_then(number),
                                mean.and_then(number),
                            ) {
                                (Some(hi), Some(m)) if hi > m => {
                                    format!(" ± {}", round(&(hi - m).to_string()))
                                }
                                _ => String::new(),
                            };
                            let mean = mean.map_or(String::new(), ToString::to_string);
                            format!("{}{half}", round(&mean))
                        }
                    })
                    .collect()
            })
            .collect(),
    };
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out
}

/// A cell's text as a number (`None` when empty or not a number).
fn parse_number(cell: &str) -> Option<f64> {
    if cell.is_empty() {
        None
    } else {
        cell.parse().ok()
    }
}

/// A cell for reading: whole numbers as they are; others to 1 decimal at ≥ 100, 2 at ≥ 1,
/// else 3 significant digits; trailing zeros dropped. Text stays as it is.
pub fn round(cell: &str) -> String {
    let Some(x) = parse_number(cell) else {
        return cell.to_string();
    };
    if x.fract() == 0.0 || !x.is_finite() {
        return cell.to_string();
    }
    let a = x.abs();
    let decimals = if a >= 100.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        // 3 significant digits below 1: 0.0123 → 4 decimals.
        (2 - a.log10().floor() as i32).clamp(3, 12) as usize
    };
    let s = format!("{x:.decimals$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

fn escape(cell: &str) -> String {
    cell.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::round;

    #[test]
    fn rounding_for_reading() {
        assert_eq!(round("206.5"), "206.5");
        assert_eq!(round("166.66666666666666"), "166.7");
        assert_eq!(round("4.5"), "4.5");
        assert_eq!(round("1.2051"), "1.21");
        assert_eq!(round("0.012345"), "0.0123");
        assert_eq!(round("12"), "12");
        assert_eq!(round(""), "");
        assert_eq!(round("poisson"), "poisson");
    }
}
