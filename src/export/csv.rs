//! `results.csv`, `entities.csv` and `summary.csv`.

use std::path::Path;

use super::{Exporter, Run, write_atomic};
use crate::results::Table;

/// Writes the CSV files.
pub struct CsvExporter;

impl Exporter for CsvExporter {
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<()> {
        write_atomic(&dir.join("results.csv"), &to_csv(&run.results.results)?)?;
        if let Some(entities) = &run.results.entities {
            write_atomic(&dir.join("entities.csv"), &to_csv(entities)?)?;
        }
        if let Some(summary) = run.summary {
            write_atomic(&dir.join("summary.csv"), &to_csv(summary)?)?;
        }
        Ok(())
    }
}

/// A table as CSV bytes: header, then rows, `\n` line ends.
pub fn to_csv(table: &Table) -> anyhow::Result<Vec<u8>> {
    let mut writer = ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    writer.write_record(&table.header)?;
    for row in &table.rows {
        writer.write_record(row)?;
    }
    writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// Reads a CSV written by [`to_csv`] back into a table.
pub fn from_csv(bytes: &[u8]) -> anyhow::Result<Table> {
    let mut reader = ::csv::ReaderBuilder::new().from_reader(bytes);
    let header = reader.headers()?.iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|r| Ok(r?.iter().map(String::from).collect()))
        .collect::<anyhow::Result<_>>()?;
    Ok(Table { header, rows })
}
