//! Writing a run's outputs: one exporter per file kind behind [`Exporter`].

pub mod chart;
pub mod csv;
pub mod lanes;
pub mod markdown;

use std::path::Path;

use anyhow::Context;

use crate::config::Config;
use crate::results::{Results, Table};

/// What every exporter gets: the config, its rows and, with replications, the summary.
pub struct Run<'a> {
    /// The config that ran.
    pub config: &'a Config,
    /// Its rows.
    pub results: &'a Results,
    /// Per-point statistics when `replications > 1`.
    pub summary: Option<&'a Table>,
    /// The seed the rows ran with (the config's, or `--seed`).
    pub seed: u64,
}

/// One kind of output file.
pub trait Exporter {
    /// Writes its files into `dir`.
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<()>;
}

/// Every exporter, in the order they write.
pub fn all() -> [&'static dyn Exporter; 3] {
    [
        &csv::CsvExporter,
        &markdown::MarkdownExporter,
        &chart::ChartExporter,
    ]
}

/// Writes `bytes` to `path` whole or not at all: to a temporary name, then renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = temp_path(path);
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// A hidden sibling of `path` with the same extension (some writers pick a format by it).
pub fn temp_path(path: &Path) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{}.partial-{name}", std::process::id()))
}
