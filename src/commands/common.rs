//! What several commands share: loading configs, running and writing one, printing the
//! verdicts and their count, finding files, and the folders written so far (for Ctrl-C).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use coordsim_model::Registry;

use crate::check::Verdict;
use crate::check::dashboard::{self, Format};
use crate::config::Config;
use crate::export;
use crate::lesson::{self, eval::Outcome};
use crate::results::{Results, Table};
use crate::runner::{self, RunOptions};

/// The output folders this command has put in place so far (for the Ctrl-C message).
pub(crate) fn written() -> Vec<String> {
    WRITTEN.lock().map(|w| w.clone()).unwrap_or_default()
}

static WRITTEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

pub(super) fn note_written(dir: &Path) {
    if let Ok(mut w) = WRITTEN.lock() {
        w.push(dir.display().to_string());
    }
}

pub(super) fn load_all(paths: &[String], registry: &Registry) -> anyhow::Result<Vec<Config>> {
    paths.iter().map(|p| Config::load(p, registry)).collect()
}

/// Two configs with one stem would write into one folder; a stem must be a plain name.
pub(super) fn ensure_distinct_stems(configs: &[Config]) -> anyhow::Result<()> {
    for (i, a) in configs.iter().enumerate() {
        export::folder::check_stem(&a.stem)
            .map_err(|m| anyhow::anyhow!("{}: {m}", a.source.name))?;
        if let Some(b) = configs[..i].iter().find(|b| b.stem == a.stem) {
            bail!(
                "{} and {} have the same file stem `{}`: their outputs would collide; rename one",
                b.source.name,
                a.source.name,
                a.stem
            );
        }
    }
    Ok(())
}

/// Runs one config and writes all its outputs into `dir`; gives back the rows, with
/// replications the summary, and what the exporters wrote.
pub(super) fn run_and_write(
    config: &Config,
    options: &RunOptions,
    dir: &Path,
) -> anyhow::Result<(Results, Option<Table>, export::Written)> {
    let results = runner::run(config, options)?;
    let (summary, written) = export::write_all(config, &results, options.seed_for(config), dir)?;
    Ok((results, summary, written))
}

/// `1 row`, `2 rows`: a count and its noun.
pub(super) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `N charts` and, when some were not drawn, `; left out: …` naming each and why.
pub(super) fn charts_said(written: &export::Written) -> String {
    let mut said = plural(written.charts, "chart");
    if !written.left_out.is_empty() {
        said.push_str("; left out: ");
        said.push_str(&written.left_out.join(", "));
    }
    said
}

/// Prints the verdicts of claims and lesson regions in `format`, then (text) the closing
/// count of both; exit 0 when all passed, else 1.
pub(super) fn finish(
    format: Format,
    verdicts: &[Verdict],
    regions: &[(String, Vec<Outcome>)],
) -> anyhow::Result<ExitCode> {
    let mut stdout = crate::print::stdout();
    let mut cases: Vec<dashboard::Case> = verdicts.iter().map(Verdict::case).collect();
    cases.extend(lesson::cases(regions));
    match format {
        Format::Text => {
            for v in verdicts {
                writeln!(stdout, "{}", v.line)?;
            }
            lesson::print_text(&mut stdout, regions)?;
            let passed = cases.iter().filter(|c| c.pass).count();
            writeln!(stdout, "{passed} passed, {} failed", cases.len() - passed)?;
        }
        Format::Junit => write!(stdout, "{}", dashboard::junit(&cases))?,
        Format::Json => write!(stdout, "{}", dashboard::json(&cases))?,
    }
    Ok(if cases.iter().all(|c| c.pass) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Every `*.toml` below `dir`, in path order.
pub fn find_configs(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    find_files(dir, "toml")
}

/// Every file with extension `ext` below `dir`, in path order.
pub fn find_files(dir: &Path, ext: &str) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}
