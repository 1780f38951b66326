//! Writing a run's outputs: one exporter per file kind behind [`Exporter`].

pub mod chart;
pub mod csv;
pub mod folder;
pub mod lanes;
pub mod markdown;

use std::path::Path;

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

/// What an exporter wrote, for the run's summary line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// Chart files written (each an SVG and a PNG).
    pub charts: usize,
    /// What it left out, each as `name (why)`.
    pub left_out: Vec<String>,
}

/// One kind of output file.
pub trait Exporter {
    /// Writes its files into `dir`.
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<Written>;
}

/// Every exporter, in the order they write.
pub fn all() -> [&'static dyn Exporter; 3] {
    [
        &csv::CsvExporter,
        &markdown::MarkdownExporter,
        &chart::ChartExporter,
    ]
}

/// Writes `bytes` to `path` whole or not at all: into a new file of an unpredictable name
/// beside it, created exclusively (`O_EXCL`: a file or a planted link of that name makes it
/// fail, so nothing outside is ever followed or overwritten), then renamed over `path` (a
/// rename replaces a link at `path` itself, never its target). The temporary file never
/// survives an error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let tmp = temp_path(path);
    let written = (|| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.flush()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(anyhow::Error::new(e).context(format!("cannot write {}", path.display())));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        anyhow::Error::new(e).context(format!("cannot write {}", path.display()))
    })
}

/// A hidden sibling of `path` with an unpredictable name (`.NAME.RANDOM.partial`).
pub fn temp_path(path: &Path) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}.partial", random_tag()))
}

/// 64 bits nobody can predict: std's randomly keyed hasher over the process and a counter.
pub fn random_tag() -> String {
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let h = std::hash::RandomState::new().hash_one((std::process::id(), n));
    format!("{h:016x}")
}
/// The raw names a reader would see in this config's charts alone (axes, legends, titles).
pub fn unlabelled_in_charts(config: &Config) -> Vec<String> {
    missing_labels(config, chart_names(config))
}

/// The raw names a reader would see in this config's `table.md` and charts: columns,
/// swept parameters and their text values, shown with no `[labels]` entry. A lesson in
/// another language than the names (Turkish, say) labels every one; a test holds the
/// shipped Turkish configs to that.
pub fn unlabelled(config: &Config) -> Vec<String> {
    let mut shown = config.table.columns.clone().unwrap_or_else(|| {
        let mut c: Vec<String> = config.axes.iter().map(|a| a.key.clone()).collect();
        if config.table.entity {
            c.push("entity".into());
            c.extend(
                config
                    .model
                    .entity_columns()
                    .iter()
                    .map(|e| e.name.to_string()),
            );
        } else {
            c.extend(config.model.metrics().iter().map(|m| m.name.to_string()));
        }
        c
    });
    shown.extend(chart_names(config));
    // The text values charts show (a fixed choice as a chart's one category, too).
    shown.extend(config.chart_values().into_iter().map(|(v, _, _)| v));
    // Swept parameters name titles and legends, with their text values.
    for axis in &config.axes {
        shown.push(axis.key.clone());
        for v in &axis.values {
            if let coordsim_model::Value::Str(s) = v {
                shown.push(s.clone());
            }
        }
    }
    missing_labels(config, shown)
}

/// The names the charts show: x (unless `x_label` replaces it), every y (the legend names
/// it), `mark_x`, and the swept parameters that split a chart's series.
fn chart_names(config: &Config) -> Vec<String> {
    let mut shown = Vec::new();
    for chart in &config.charts {
        if !chart.x.is_empty() && chart.look.x_label.is_none() {
            shown.push(chart.x.clone());
        }
        shown.extend(chart.y.iter().cloned());
        shown.extend(chart.mark_x.iter().cloned());
        shown.extend(
            config
                .axes
                .iter()
                .filter(|a| a.key != chart.x)
                .map(|a| a.key.clone()),
        );
    }
    shown
}

/// The names of `shown` without a `[labels]` entry, sorted, once each.
fn missing_labels(config: &Config, shown: Vec<String>) -> Vec<String> {
    let mut missing: Vec<String> = shown.into_iter().filter(|n| !config.has_label(n)).collect();
    missing.sort();
    missing.dedup();
    missing
}
