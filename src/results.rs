//! Results as the CSV holds them: text cells written by the contract's number rules.
//!
//! Keeping the text (not the f64) as the one representation means a merged or re-read
//! `results.csv` gives back exactly what a run produced, and everything drawn or checked
//! from it (tables, charts, claims) reads the same numbers. `{}` Display of f64 round-trips,
//! so parsing a cell gives back the exact value the model computed.

use crate::config::Config;

/// A CSV-shaped table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Index of a column.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// Everything one config's run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    /// `results.csv`: point, swept params, replication, seed, metrics.
    pub results: Table,
    /// `entities.csv` (models with entity rows).
    pub entities: Option<Table>,
    /// Timeline lanes of each point's first replication (only when a chart draws them).
    pub lanes: Vec<(usize, Vec<coordsim_model::Lane>)>,
}

impl Results {
    /// Columns before the metrics: point, one per axis, replication, seed.
    pub fn lead(config: &Config) -> usize {
        3 + config.axes.len()
    }

    /// The `results.csv` header for a config.
    pub fn results_header(config: &Config) -> Vec<String> {
        let mut header = vec!["point".to_string()];
        header.extend(config.axes.iter().map(|a| a.key.to_string()));
        header.push("replication".into());
        header.push("seed".into());
        header.extend(config.model.metrics().iter().map(|m| m.name.to_string()));
        header
    }

    /// The `entities.csv` header, or `None` for a model without entity rows.
    pub fn entities_header(config: &Config) -> Option<Vec<String>> {
        let columns = config.model.entity_columns();
        if columns.is_empty() {
            return None;
        }
        let mut header = vec!["point".to_string()];
        header.extend(config.axes.iter().map(|a| a.key.to_string()));
        header.extend(["replication", "seed", "entity"].map(String::from));
        header.extend(columns.iter().map(|m| m.name.to_string()));
        Some(header)
    }
}

/// A cell as a number (`None` when empty or not a number).
pub fn number(cell: &str) -> Option<f64> {
    if cell.is_empty() {
        None
    } else {
        cell.parse().ok()
    }
}

/// A swept value as the CSV writes it: strings bare, everything else as in TOML.
pub fn value_cell(value: &coordsim_model::Value) -> String {
    match value {
        coordsim_model::Value::Str(s) => s.clone(),
        other => other.to_string(),
    }
}
