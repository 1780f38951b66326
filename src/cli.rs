//! Command-line interface (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::dashboard::Format;

/// Deterministic discrete-event simulation of distributed-systems coordination patterns.
#[derive(Debug, Parser)]
#[command(name = "coordsim", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run configs, print each result table and write its outputs.
    Run(RunArgs),
    /// Run configs and check every claim (exit 1 when one fails).
    Check(CheckArgs),
    /// Run every config under configs/, write reports/ and check all claims.
    Report(ReportArgs),
    /// Join the outputs of `run --shard` into one, as an unsharded run would write it.
    Merge(MergeArgs),
    /// List the models, or show one model's parameters and metrics.
    Models(ModelsArgs),
    /// Checks or fills the numbers, tables and charts marked in lessons (Markdown).
    #[command(subcommand)]
    Lesson(LessonCommand),
}

/// `coordsim lesson …`.
#[derive(Debug, Subcommand)]
pub enum LessonCommand {
    /// Runs the configs the lessons use and checks every marked region: exit 0 when all
    /// match, 1 when a region drifted, 2 on bad input.
    Check(LessonCheckArgs),
    /// Rewrites every marked region from the run, in place.
    Fill(LessonFillArgs),
}

/// Arguments of `lesson check`.
#[derive(Debug, Args)]
pub struct LessonCheckArgs {
    /// Lesson files (Markdown).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// List the numbers in the prose that no region covers (warnings, exit 0), instead of
    /// checking.
    #[arg(long)]
    pub lint: bool,
    /// How to print the verdicts.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Threads (default: the number of cores); results never depend on it.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
}

/// Arguments of `lesson fill`.
#[derive(Debug, Args)]
pub struct LessonFillArgs {
    /// Lesson files (Markdown).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Threads (default: the number of cores); results never depend on it.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
}

/// Options shared by the commands that run configs.
#[derive(Debug, Args)]
pub struct Common {
    /// Worker threads (default: the number of cores); results never depend on it.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// Replace each config's seed (replays any row whose `seed` column is this).
    #[arg(long)]
    pub seed: Option<u64>,
}

/// `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Config files.
    #[arg(required = true, value_name = "CONFIG")]
    pub configs: Vec<String>,
    /// Output directory; each config writes into DIR/STEM/ (STEM: the config's file stem).
    #[arg(long, default_value = "reports", value_name = "DIR")]
    pub out: PathBuf,
    /// Print nothing on stdout.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Run only the points whose index ≡ K (mod N), K from 0.
    #[arg(long, value_name = "K/N|auto", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// With `--shard auto` under a Kubernetes Indexed Job: how many shards there are (the
    /// index is `JOB_COMPLETION_INDEX`).
    #[arg(long, value_name = "N", requires = "shard", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub shard_count: Option<u64>,
    /// Print one line per sweep point (`K/N` for `--shard`, then its parameters) and run
    /// nothing: input for GNU parallel or a workflow engine.
    #[arg(long, conflicts_with = "shard")]
    pub list_points: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Config files.
    #[arg(required = true, value_name = "CONFIG")]
    pub configs: Vec<String>,
    /// Also re-run every claim under the other tie rules and event orders, and name the
    /// claims whose values change (the verdicts stay those of each config's own order).
    #[arg(long)]
    pub ties: bool,
    /// How to print the verdicts.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Output directory.
    #[arg(long, default_value = "reports", value_name = "DIR")]
    pub out: PathBuf,
    /// Where the configs are (every *.toml below it, in path order).
    #[arg(long, default_value = "configs", value_name = "DIR")]
    pub configs: PathBuf,
    /// Where the lessons are (every *.md below it is checked, when the folder exists).
    #[arg(long, default_value = "lessons", value_name = "DIR")]
    pub lessons: PathBuf,
    /// How to print the verdicts.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print only the claim lines and the count, not the progress of each config.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Where the merged outputs go (written directly into it).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// The shard output folders (DIR/STEM/ of each `run --shard`).
    #[arg(required = true, value_name = "SHARD_DIR")]
    pub shards: Vec<PathBuf>,
}

/// `models`.
#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// A model's name: show its parameters and metrics.
    pub model: Option<String>,
    /// Print a commented starter config with every parameter at its default.
    #[arg(long, requires = "model", conflicts_with = "markdown")]
    pub config: bool,
    /// Print the model reference (every model, or the one named) as Markdown, as
    /// docs/models.md holds it.
    #[arg(long)]
    pub markdown: bool,
}

/// Which points a `run` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shard {
    /// The points whose index is K mod N.
    Part(usize, usize),
    /// K and N from the scheduler's environment (a Slurm job array, a Kubernetes Indexed Job).
    Auto,
}

impl Shard {
    /// K and N: given, or read from `env` (`SLURM_ARRAY_TASK_ID` with
    /// `SLURM_ARRAY_TASK_COUNT` or `SLURM_ARRAY_TASK_MIN`/`MAX`; or `JOB_COMPLETION_INDEX`
    /// with `count`).
    pub fn resolve(
        self,
        count: Option<u64>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(usize, usize), String> {
        if let Shard::Part(k, n) = self {
            return Ok((k, n));
        }
        let number = |name: &str| -> Result<Option<i64>, String> {
            match env(name) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<i64>()
                    .map(Some)
                    .map_err(|_| format!("{name}={v:?} is not a whole number")),
            }
        };
        let (k, n) = if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let n = match (
                number("SLURM_ARRAY_TASK_COUNT")?,
                number("SLURM_ARRAY_TASK_MAX")?,
            ) {
                (Some(c), _) => c,
                (None, Some(max)) => max - min + 1,
                (None, None) => {
                    return Err("SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX: run it as an array job (sbatch --array=0-N)".into());
                }
            };
            (id - min, n)
        } else if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let Some(n) = count else {
                return Err("JOB_COMPLETION_INDEX is set: give the Indexed Job's completions as --shard-count N".into());
            };
            (index, n as i64)
        } else {
            return Err("--shard auto reads SLURM_ARRAY_TASK_ID (a Slurm job array) or JOB_COMPLETION_INDEX (a Kubernetes Indexed Job); neither is set: give --shard K/N".into());
        };
        if n < 1 || k < 0 || k >= n {
            return Err(format!(
                "the scheduler gives shard {k} of {n}; need 0 ≤ K < N"
            ));
        }
        Ok((k as usize, n as usize))
    }
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    if text == "auto" {
        return Ok(Shard::Auto);
    }
    parse_part(text).map(|(k, n)| Shard::Part(k, n))
}

fn parse_part(text: &str) -> Result<(usize, usize), String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not K/N (e.g. 0/4)"))?;
    let k: usize = k
        .trim()
        .parse()
        .map_err(|_| format!("`{k}` is not a whole number"))?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("`{n}` is not a whole number"))?;
    if n == 0 || k >= n {
        return Err(format!("need 0 ≤ K < N, got {k}/{n}"));
    }
    Ok((k, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn shards_parse() {
        assert_eq!(parse_shard("1/4"), Ok(Shard::Part(1, 4)));
        assert_eq!(parse_shard("auto"), Ok(Shard::Auto));
        assert!(parse_shard("4/4").is_err());
        assert!(parse_shard("x").is_err());
        assert!(parse_shard("0/0").is_err());
    }

    #[test]
    fn auto_shards_come_from_the_scheduler() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        // sbatch --array=0-3: task 2 of 4.
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(Shard::Auto.resolve(None, &slurm), Ok((2, 4)));
        // --array=5-7 without a count: task 6 is shard 1 of 3.
        let range = env(&[
            ("SLURM_ARRAY_TASK_ID", "6"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
        ]);
        assert_eq!(Shard::Auto.resolve(None, &range), Ok((1, 3)));
        let k8s = env(&[("JOB_COMPLETION_INDEX", "3")]);
        assert_eq!(Shard::Auto.resolve(Some(5), &k8s), Ok((3, 5)));
        assert!(
            Shard::Auto
                .resolve(None, &k8s)
                .unwrap_err()
                .contains("--shard-count")
        );
        assert!(Shard::Auto.resolve(Some(3), &k8s).is_err(), "index 3 of 3");
        assert!(
            Shard::Auto
                .resolve(None, &env(&[]))
                .unwrap_err()
                .contains("neither is set")
        );
        assert_eq!(Shard::Part(1, 2).resolve(None, &env(&[])), Ok((1, 2)));
    }
}
