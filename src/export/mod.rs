//! Writing a run's outputs: one exporter per file kind behind [`Exporter`].

pub(crate) mod batch;
pub mod chart;
pub mod csv;
pub(crate) mod explore;
pub mod folder;
pub(crate) mod in_place;
pub(crate) mod lanes;
pub(crate) mod markdown;
pub(crate) mod play;
mod run;
mod write;

pub use run::{Exporter, Run, Written};
pub(crate) use write::{random_tag, write_atomic};

use std::path::Path;

use crate::config::Config;
use crate::results::{Results, Table};

/// Every exporter, in the order they write.
pub fn all() -> [&'static dyn Exporter; 3] {
    [
        &csv::CsvExporter,
        &markdown::MarkdownExporter,
        &chart::ChartExporter,
    ]
}

/// Writes a run's outputs (CSV, Markdown, charts) into `dir` with every exporter; gives
/// back the summary (with replications) and what was written.
pub(crate) fn write_all(
    config: &Config,
    results: &Results,
    seed: u64,
    dir: &Path,
) -> anyhow::Result<(Option<Table>, Written)> {
    anyhow::Context::with_context(std::fs::create_dir_all(dir), || {
        format!("cannot create {}", dir.display())
    })?;
    let summary = (config.replications > 1).then(|| crate::summary::summarize(config, results));
    let run = Run {
        config,
        results,
        summary: summary.as_ref(),
        seed,
    };
    let mut written = Written::default();
    for exporter in all() {
        let w = exporter.export(&run, dir)?;
        written.charts += w.charts;
        written.left_out.extend(w.left_out);
    }
    Ok((summary, written))
}
