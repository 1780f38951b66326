//! Command-line interface (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::check::dashboard::Format;
pub(crate) use crate::shard::Shard;
use crate::shard::parse_shard;

/// Deterministic discrete-event simulation of distributed-systems coordination patterns.
#[derive(Debug, Parser)]
#[command(name = "coordsim", version, about, propagate_version = true)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run configs, print each result table and write its outputs.
    Run(RunArgs),
    /// Run configs and check every claim (exit 1 when one fails).
    Check(CheckArgs),
    /// Runs a scenario through every execution its semantics allow (every free order of
    /// one instant's events, both ways of every random choice) and checks the claims over
    /// executions; writes the outcomes and each deciding execution's trace.
    Explore(ExploreArgs),
    /// Run every config under configs/, write reports/ and check all claims.
    Report(ReportArgs),
    /// Join the outputs of `run --shard` or `explore --shard` into one, as an unsharded run
    /// would write it.
    Merge(MergeArgs),
    /// List the models, or show one model's parameters and metrics.
    Models(ModelsArgs),
    /// Checks or fills the numbers, tables and charts marked in lessons (Markdown).
    #[command(subcommand)]
    Lesson(LessonCommand),
}

/// `coordsim lesson …`.
#[derive(Debug, Subcommand)]
pub(crate) enum LessonCommand {
    /// Runs the configs the lessons use and checks every marked region: exit 0 when all
    /// match, 1 when a region drifted, 2 on bad input.
    Check(LessonCheckArgs),
    /// Rewrites every marked region from the run, in place.
    Fill(LessonFillArgs),
}

/// Arguments of `lesson check`.
#[derive(Debug, Args)]
pub(crate) struct LessonCheckArgs {
    /// Lesson files (Markdown).
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<String>,
    /// List the numbers in the prose that no region covers (warnings, exit 0), instead of
    /// checking.
    #[arg(long)]
    pub(crate) lint: bool,
    /// How to print the verdicts.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
    /// Threads (default: the number of cores); results never depend on it.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub(crate) jobs: Option<u64>,
}

/// Arguments of `lesson fill`.
#[derive(Debug, Args)]
pub(crate) struct LessonFillArgs {
    /// Lesson files (Markdown).
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<String>,
    /// Threads (default: the number of cores); results never depend on it.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub(crate) jobs: Option<u64>,
}

/// Options shared by the commands that run configs.
#[derive(Debug, Args)]
pub(crate) struct Common {
    /// Worker threads (default: the number of cores); results never depend on it.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub(crate) jobs: Option<u64>,
    /// Replace each config's seed (replays any row whose `seed` column is this).
    #[arg(long)]
    pub(crate) seed: Option<u64>,
}

/// `run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Config files.
    #[arg(required = true, value_name = "CONFIG")]
    pub(crate) configs: Vec<String>,
    /// Output directory (default `reports`, with `--schedule` `out`); each config writes into
    /// DIR/STEM/ (STEM: the config's file stem), a schedule into DIR/STEM-SCHEDULE/.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Print nothing on stdout.
    #[arg(long, short = 'q')]
    pub(crate) quiet: bool,
    /// Run the one execution a schedule file fixes (`coordsim explore` writes one per claim
    /// it decides), with its table and timeline; one config only.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["shard", "list_points"])]
    pub(crate) schedule: Option<String>,
    /// Run only the points whose index ≡ K (mod N), K from 0.
    #[arg(long, value_name = "K/N|auto", value_parser = parse_shard)]
    pub(crate) shard: Option<Shard>,
    /// How many shards there are: needed by `--shard auto` under a Kubernetes Indexed Job or
    /// an AWS Batch array job (whose environment has the index only); elsewhere it must agree
    /// with N.
    #[arg(long, value_name = "N", requires = "shard", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub(crate) shard_count: Option<u64>,
    /// Print one line per sweep point (`K/N` for `--shard`, then its parameters) and run
    /// nothing: input for GNU parallel or a workflow engine.
    #[arg(long, conflicts_with = "shard")]
    pub(crate) list_points: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) common: Common,
}

/// `check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Config files.
    #[arg(required = true, value_name = "CONFIG")]
    pub(crate) configs: Vec<String>,
    /// Also re-run every claim under the other tie rules and event orders, and name the
    /// claims whose values change (the verdicts stay those of each config's own order).
    #[arg(long)]
    pub(crate) ties: bool,
    /// Check the claims over executions on the reachable outcomes alone, counting no
    /// executions nor probabilities (as `explore --no-counts`): far more states fit; a
    /// claim that needs counts (a probability, a mean, a percentile) is refused.
    #[arg(long, conflicts_with = "ties")]
    pub(crate) no_counts: bool,
    /// How to print the verdicts.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) common: Common,
}

/// `explore`.
#[derive(Debug, Args)]
pub(crate) struct ExploreArgs {
    /// Config files (scenarios).
    #[arg(required = true, value_name = "CONFIG")]
    pub(crate) configs: Vec<String>,
    /// Output directory; each config writes into DIR/STEM-explore/.
    #[arg(long, default_value = "out", value_name = "DIR")]
    pub(crate) out: PathBuf,
    /// Most distinct states per point: past them the verdict is bounded, never a proof.
    #[arg(long, default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub(crate) max_states: u64,
    /// Most faults (lost or duplicated messages, crashes by probability) along one execution.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub(crate) max_faults: u32,
    /// Enumerate every execution as a tree, without merging executions that reach the same
    /// state (slow: to check the merging).
    #[arg(long)]
    pub(crate) no_merge: bool,
    /// Take every order of the events at an instant, even of those that commute (slow: to
    /// check the partial-order reduction).
    #[arg(long)]
    pub(crate) no_reduce: bool,
    /// Keep every state apart, even those that differ only by which interchangeable member
    /// of a group is where (slow: to check the symmetry reduction).
    #[arg(long)]
    pub(crate) no_symmetry: bool,
    /// Which back end steps the states: `flat` (a point compiled into a state of only the
    /// words it can change; an error where it does not cover the point), `interpret` (the
    /// run's interpreter: the reference), or `auto` (flat where it covers the point).
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub(crate) engine: EngineArg,
    /// Search for the reachable outcomes alone, counting no executions nor probabilities:
    /// each state kept as its fingerprint and its first parent's number, so far more
    /// states fit and each takes less time (for `always`, `never`, `sometimes` and
    /// `stat = "min"` / `"max"` claims; the traces and schedules as ever).
    #[arg(long, conflicts_with_all = ["no_merge", "shard"])]
    pub(crate) no_counts: bool,
    /// Print nothing on stdout but the verdicts.
    #[arg(long, short = 'q')]
    pub(crate) quiet: bool,
    /// End each point's exploration after this many seconds, bounded (a verdict it then
    /// gives is never a proof; the machine's speed decides where it stops).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub(crate) max_seconds: Option<u64>,
    /// Most memory each point's exploration keeps its states and graph in, in MiB
    /// (default: the config's `[limits] max_memory_mb`): past it, no new state is kept and
    /// the verdict is bounded (the same with any `--jobs`: the bytes are estimated from
    /// the states' contents).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(16..=16_777_216))]
    pub(crate) max_memory: Option<u64>,
    /// Most disk, in MiB, the counting's entries a point is done with may take once they
    /// spill (into the output's staging folder, removed after): past it, the verdict is
    /// bounded; the search's edges may take as much again (past it they stay in memory).
    /// 0: nothing spills.
    #[arg(long, value_name = "MB", default_value_t = coordsim_model::explore::DEFAULT_MAX_SPILL_BYTES >> 20, value_parser = clap::value_parser!(u64).range(0..=1_073_741_824))]
    pub(crate) max_spill: u64,
    /// The entries kept in memory, in MiB, past which those the counting is done with
    /// spill to disk, and the search's edges alike (default: an eighth of `--max-memory`
    /// each; 0 spills from the first page, in small pages: to check the spill).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(0..=16_777_216))]
    pub(crate) spill_from: Option<u64>,
    /// Threads expanding states at once (default: the number of cores); the result is
    /// the same with any number.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub(crate) jobs: Option<u64>,
    /// Explore only shard K of N (K from 0): every shard runs the same first events, deals
    /// the states one level holds round robin and explores on from its own; `merge` joins
    /// the shards' folders into the exploration of the whole and checks its claims.
    #[arg(long, value_name = "K/N|auto", value_parser = parse_shard)]
    pub(crate) shard: Option<Shard>,
    /// How many shards there are, for `--shard auto` (as `run --shard-count`).
    #[arg(long, value_name = "N", requires = "shard", value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub(crate) shard_count: Option<u64>,
}

/// `report`.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// Output directory.
    #[arg(long, default_value = "reports", value_name = "DIR")]
    pub(crate) out: PathBuf,
    /// Where the configs are (every *.toml below it, in path order).
    #[arg(long, default_value = "configs", value_name = "DIR")]
    pub(crate) configs: PathBuf,
    /// Where the lessons are (every *.md below it is checked, when the folder exists).
    #[arg(long, default_value = "lessons", value_name = "DIR")]
    pub(crate) lessons: PathBuf,
    /// The course's own words for the site (`en.toml`, `tr.toml`; when the folder exists).
    #[arg(long, default_value = "locales", value_name = "DIR")]
    pub(crate) locales: PathBuf,
    /// The locale of the site's index: its words, and each config's title in it when the
    /// config speaks it; every config and lesson page keeps its own locale.
    #[arg(long, default_value = "en", value_name = "LOCALE", value_parser = ["en", "tr"])]
    pub(crate) index_locale: String,
    /// How to print the verdicts.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
    /// Print only the claim lines and the count, not the progress of each config.
    #[arg(long, short = 'q')]
    pub(crate) quiet: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) common: Common,
}

/// `merge`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// Where the merged outputs go (written directly into it).
    #[arg(value_name = "OUT")]
    pub(crate) out: PathBuf,
    /// The shard output folders (DIR/STEM/ of each `run --shard`, DIR/STEM-explore/ of
    /// each `explore --shard`).
    #[arg(required = true, value_name = "SHARD_DIR")]
    pub(crate) shards: Vec<PathBuf>,
}

/// `models`.
#[derive(Debug, Args)]
pub(crate) struct ModelsArgs {
    /// A model's name: show its parameters and metrics.
    pub(crate) model: Option<String>,
    /// Print a commented starter config with every parameter at its default.
    #[arg(long, requires = "model", conflicts_with = "markdown")]
    pub(crate) config: bool,
    /// Print the model reference (every model, or the one named) as Markdown, as
    /// docs/models.md holds it.
    #[arg(long)]
    pub(crate) markdown: bool,
}

/// `--engine`: the explorer's back end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum EngineArg {
    /// The flat back end where it covers the point, else the interpreter.
    Auto,
    /// The run's interpreter (the reference).
    Interpret,
    /// The flat back end; an error where it does not cover the point.
    Flat,
}

impl EngineArg {
    /// The back end as the explorer takes it.
    pub(crate) fn engine(self) -> coordsim_model::Engine {
        match self {
            EngineArg::Auto => coordsim_model::Engine::Auto,
            EngineArg::Interpret => coordsim_model::Engine::Interpret,
            EngineArg::Flat => coordsim_model::Engine::Flat,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
