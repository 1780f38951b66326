//! `results.csv`, `entities.csv` and `summary.csv`, written from typed rows and read back
//! against the schema they must have.

use std::path::Path;

use anyhow::bail;
use coordsim_model::{Cell, ColumnType};

use super::{Exporter, Run, write_atomic};
use crate::results::{ColumnSource, Row, Schema, Table};

/// Writes the CSV files.
pub(crate) struct CsvExporter;

impl Exporter for CsvExporter {
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<super::Written> {
        write_atomic(&dir.join("results.csv"), &to_csv(&run.results.results)?)?;
        if let Some(entities) = &run.results.entities {
            write_atomic(&dir.join("entities.csv"), &to_csv(entities)?)?;
        }
        if let Some(summary) = run.summary {
            write_atomic(&dir.join("summary.csv"), &to_csv(summary)?)?;
        }
        Ok(super::Written::default())
    }
}

/// A table as CSV bytes: header, then rows, `\n` line ends.
pub fn to_csv(table: &Table) -> anyhow::Result<Vec<u8>> {
    let mut writer = ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    writer.write_record(table.schema.names())?;
    let mut record = ::csv::ByteRecord::new();
    for row in &table.rows {
        record.clear();
        for cell in row.cells() {
            record.push_field(cell.to_string().as_bytes());
        }
        writer.write_byte_record(&record)?;
    }
    writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// Reads a CSV written by [`to_csv`] back under `schema`: the header must be the schema's,
/// column for column, and every cell must read as its column's type. `what` names the file
/// in errors.
pub(crate) fn from_csv(bytes: &[u8], schema: &Schema, what: &str) -> anyhow::Result<Table> {
    let mut reader = ::csv::ReaderBuilder::new().from_reader(bytes);
    let header: Vec<String> = reader.headers()?.iter().map(String::from).collect();
    let expected = schema.names();
    if header != expected {
        let missing: Vec<&str> = expected
            .iter()
            .copied()
            .filter(|n| !header.iter().any(|h| h == n))
            .collect();
        let extra: Vec<&str> = header
            .iter()
            .map(String::as_str)
            .filter(|h| !expected.contains(h))
            .collect();
        let mut detail = Vec::new();
        if !missing.is_empty() {
            detail.push(format!("missing {}", missing.join(", ")));
        }
        if !extra.is_empty() {
            detail.push(format!("unexpected {}", extra.join(", ")));
        }
        if detail.is_empty() {
            detail.push("the same columns in another order".into());
        }
        bail!(
            "{what}: its columns are not the config's ({}); expected: {}",
            detail.join("; "),
            expected.join(",")
        );
    }
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let record = record.map_err(|e| anyhow::anyhow!("{what}: line {line}: {e}"))?;
        let mut cells = Vec::with_capacity(record.len());
        for (field, column) in record.iter().zip(schema.columns()) {
            let ty = match column.source {
                // Lead cells are checked against the config by the caller.
                ColumnSource::Axis(_) | ColumnSource::Entity | ColumnSource::Param(_) => {
                    ColumnType::Text
                }
                _ => column.ty,
            };
            let cell = Cell::parse(field, ty).map_err(|e| {
                anyhow::anyhow!("{what}: line {line}, column `{}`: {e}", column.name)
            })?;
            cells.push(cell);
        }
        rows.push(Row::new(cells));
    }
    Ok(Table {
        schema: schema.clone(),
        rows,
    })
}
