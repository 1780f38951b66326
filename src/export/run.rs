//! What an exporter is: the run it writes from, and what it wrote.

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
    pub(crate) charts: usize,
    /// What it left out, each as `name (why)`.
    pub(crate) left_out: Vec<String>,
}

/// One kind of output file.
pub trait Exporter {
    /// Writes its files into `dir`.
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<Written>;
}
