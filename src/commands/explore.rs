//! `coordsim explore`: every execution of each point, its claims over executions checked, the
//! outcomes and each deciding execution written (or a shard of the exploration).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use coordsim_model::Registry;

use super::cli::ExploreArgs;
use crate::check::dashboard::Format;
use crate::check::{self, Verdict};
use crate::config::Config;
use crate::export;
use crate::export::folder::Staging;
use crate::runner::RunOptions;

use super::common::{ensure_distinct_stems, finish, load_all, note_written};
use super::run::write_schedule_run;

/// `explore`: every point of every config explored; its claims over executions checked,
/// the outcomes and the deciding executions written.
pub(super) fn explore(args: ExploreArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    let mut configs = load_all(&args.configs, registry)?;
    ensure_distinct_stems(&configs)?;
    let shard = args
        .shard
        .map(|s| s.resolve(args.shard_count, &|name| std::env::var(name).ok()))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    if let Some((_, n)) = shard
        && n > MAX_EXPLORE_SHARDS
    {
        anyhow::bail!(
            "--shard: an exploration splits into at most {MAX_EXPLORE_SHARDS} shards, not {n}"
        );
    }
    let limits = coordsim_model::ExploreLimits {
        max_states: args.max_states,
        max_faults: args.max_faults,
        merge_states: !args.no_merge,
        reduce: if args.no_reduce {
            coordsim_model::Reduction::Off
        } else {
            coordsim_model::Reduction::On
        },
        jobs: RunOptions::from_flags(args.jobs, None, false).jobs,
        shard: shard.map(|(k, n)| (k as u32, n as u32)),
        symmetry: if args.no_symmetry {
            coordsim_model::Symmetry::Off
        } else {
            coordsim_model::Symmetry::On
        },
        max_memory_bytes: args.max_memory.map(|mb| mb << 20),
        max_spill_bytes: args.max_spill << 20,
        spill_from_bytes: args.spill_from.map(|mb| mb << 20),
        engine: args.engine.engine(),
        ..Default::default()
    };
    if let Some(split) = shard {
        for config in &configs {
            let dir = args.out.join(format!("{}-explore", config.stem));
            crate::shard::merge::refuse_another_shard(&dir, split)?;
        }
    }
    let mut stdout = crate::print::stdout();
    let mut verdicts = Vec::new();
    // Without counts, a claim that needs them is refused before anything runs.
    let countings = check::countings(&configs, args.no_counts)?;
    for (config, counting) in configs.iter_mut().zip(countings) {
        let watch = crate::runner::explore::Watch {
            progress: !args.quiet,
            max_seconds: args.max_seconds,
        };
        let limits = coordsim_model::ExploreLimits { counting, ..limits };
        let name = format!("{}-explore", config.stem);
        let staging = Staging::begin(&args.out, &name)?;
        // What the counting is done with may spill inside the staging folder; the folder
        // goes once explored (on an error too: dropped), before any output is written.
        let spill = crate::runner::explore::SpillFolder::inside(staging.path())?;
        let explored = crate::runner::explore::explore_watched(
            config,
            config.seed,
            &limits,
            watch,
            Some(&check::asks_of(config)),
            Some(spill.path()),
        )?;
        drop(spill);
        if let Some(split) = shard {
            crate::shard::explore::write(
                staging.path(),
                config,
                &explored,
                split,
                config.seed,
                &limits,
            )?;
            let dir = staging.commit()?;
            note_written(&dir);
            if !args.quiet {
                writeln!(
                    stdout,
                    "wrote {}: shard {}/{} of the exploration; `coordsim merge OUT` with every shard's folder joins them and checks the claims\n",
                    dir.display(),
                    split.0,
                    split.1
                )?;
            }
            continue;
        }
        let (these, text) = write_exploration(config, &explored, staging.path())?;
        verdicts.extend(these);
        let dir = staging.commit()?;
        note_written(&dir);
        if !args.quiet {
            writeln!(stdout, "{text}\nwrote {}\n", dir.display())?;
        }
    }
    if shard.is_some() {
        // A shard checks no claim (`merge` does, on the whole): no "0 passed" to say.
        return Ok(ExitCode::SUCCESS);
    }
    finish(Format::Text, &verdicts, &[])
}

/// Most shards an exploration splits into: every shard grows the same first levels, so a
/// split far wider than the machines that run it only repeats that work.
const MAX_EXPLORE_SHARDS: usize = 4096;

/// The claims over executions of `config` judged on `explored`, and the exploration's
/// outputs written into `dir`: `explore.md`, `outcomes.csv`, and
/// for each claim an execution decides its trace (CSV and chart), its schedule and its
/// run (`trace-N/`). Gives back the verdicts and `explore.md`'s text.
pub(super) fn write_exploration(
    config: &mut Config,
    explored: &[coordsim_model::Exploration],
    dir: &Path,
) -> anyhow::Result<(Vec<Verdict>, String)> {
    let mut verdicts = Vec::new();
    let mut decided = Vec::new();
    // One entry per claim, so that trace-N is claim N's (a claim over runs decides none).
    for claim in config.claims.iter() {
        match claim.over {
            Some(holds) => {
                let (verdict, decides) = check::over_executions(config, explored, claim, holds);
                decided.push((verdict.claim.clone(), decides));
                verdicts.push(verdict);
            }
            None => decided.push((claim.name.clone(), None)),
        }
    }
    write_traces(config, explored, &decided, dir)?;
    let text = export::explore::write(dir, config, explored, &decided)?;
    export::play::write(dir, config, explored, &decided)?;
    Ok((verdicts, text))
}

/// Each deciding execution run again as a run of its point, into `trace-N/` of `dir`: its
/// table and its timeline, as `run --schedule` writes them.
fn write_traces(
    config: &mut Config,
    explored: &[coordsim_model::Exploration],
    decided: &[(String, Option<check::Shown>)],
    dir: &Path,
) -> anyhow::Result<()> {
    let options = RunOptions::from_flags(Some(1), None, false);
    for (n, (_, decides)) in decided.iter().enumerate() {
        let Some(shown) = *decides else {
            continue;
        };
        let file = crate::runner::schedule::ScheduleFile {
            point: shown.point,
            schedule: shown.schedule(explored).clone(),
            written: None,
        };
        let trace = dir.join(format!("trace-{}", n + 1));
        // An untimed execution (every step at one instant) has no timeline to draw: its
        // order is the step chart's.
        let steps = shown.trace(explored);
        let timed = steps.windows(2).any(|w| w[0].time_ms != w[1].time_ms);
        write_schedule_run(config, &file, &options, &trace, timed)?;
    }
    Ok(())
}
