//! `coordsim run`: configs run and written, a shard of their points, their points listed,
//! or the one execution a schedule fixes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use coordsim_model::Registry;

use super::cli::RunArgs;
use crate::config::Config;
use crate::export;
use crate::export::folder::Staging;
use crate::runner::{self, RunOptions};

use super::common::{
    charts_said, ensure_distinct_stems, load_all, note_written, plural, run_and_write,
};

pub(super) fn run(args: RunArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    let configs = load_all(&args.configs, registry)?;
    ensure_distinct_stems(&configs)?;
    if args.list_points {
        return list_points(&configs);
    }
    let shard = args
        .shard
        .map(|s| s.resolve(args.shard_count, &|name| std::env::var(name).ok()))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let options = RunOptions {
        shard,
        ..RunOptions::from_flags(args.common.jobs, args.common.seed, !args.quiet)
    };
    if let Some(file) = &args.schedule {
        return run_schedule(args.out.as_deref(), args.quiet, configs, file, &options);
    }
    let out = args.out.unwrap_or_else(|| PathBuf::from("reports"));
    if let Some(split) = shard {
        for config in &configs {
            crate::shard::merge::refuse_another_shard(&out.join(&config.stem), split)?;
        }
    }
    let mut stdout = crate::print::stdout();
    for config in &configs {
        let staging = Staging::begin(&out, &config.stem)?;
        let dir = staging.path().to_path_buf();
        crate::labels::print_warnings(config);
        let (results, _, written) = run_and_write(config, &options, &dir)?;
        if let Some(split) = shard {
            let seed = options.seed_for(config);
            crate::shard::merge::write_shard(&dir, config, &results, split, seed)?;
        }
        let dir = staging.commit()?;
        note_written(&dir);
        if !args.quiet {
            let table = std::fs::read_to_string(dir.join("table.md"))?;
            writeln!(stdout, "{table}")?;
            writeln!(
                stdout,
                "wrote {} ({}, {})\n",
                dir.display(),
                plural(results.results.rows.len(), "row"),
                charts_said(&written)
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `run --schedule FILE`: the one execution the schedule fixes, written as a run of its
/// point into DIR/STEM-SCHEDULE/ (DIR `out` unless `--out` says).
fn run_schedule(
    out: Option<&Path>,
    quiet: bool,
    mut configs: Vec<Config>,
    file: &str,
    options: &RunOptions,
) -> anyhow::Result<ExitCode> {
    if configs.len() != 1 {
        bail!(
            "--schedule runs one config (the one the schedule was explored from), not {}",
            configs.len()
        );
    }
    let mut config = configs.remove(0);
    let schedule = crate::runner::schedule::load(file, &config)?;
    let name = Path::new(file)
        .file_stem()
        .map_or("schedule".into(), |s| s.to_string_lossy().into_owned());
    let staging = Staging::begin(
        out.unwrap_or(Path::new("out")),
        &format!("{}-{name}", config.stem),
    )?;
    let written = write_schedule_run(&mut config, &schedule, options, staging.path(), true)?;
    let dir = staging.commit()?;
    note_written(&dir);
    if !quiet {
        let mut stdout = crate::print::stdout();
        let table = std::fs::read_to_string(dir.join("table.md"))?;
        writeln!(stdout, "{table}")?;
        writeln!(
            stdout,
            "wrote {} (the execution of {}, {} events; {})\n",
            dir.display(),
            file,
            schedule.schedule.events.len(),
            charts_said(&written)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the execution `schedule` fixes as a run of its point and writes its outputs into
/// `dir`: the rows, the entities, the table and (when `timeline`) the point's timeline, as
/// the config's `[[chart]]` of kind timeline draws it (the config's other charts are of a
/// sweep; one execution draws none of them).
pub(super) fn write_schedule_run(
    config: &mut Config,
    schedule: &crate::runner::schedule::ScheduleFile,
    options: &RunOptions,
    dir: &Path,
    timeline: bool,
) -> anyhow::Result<export::Written> {
    let drawn = timeline.then(|| {
        crate::config::ChartSpec::schedule_timeline(
            config,
            &config.charts,
            schedule.point,
            "timeline",
        )
    });
    let charts = std::mem::replace(&mut config.charts, drawn.into_iter().collect());
    let replications = std::mem::replace(&mut config.plan.replications, 1);
    let written = runner::run_schedule(config, options, schedule).and_then(|results| {
        export::write_all(config, &results, options.seed_for(config), dir).map(|(_, w)| w)
    });
    config.charts = charts;
    config.plan.replications = replications;
    written
}

/// `run --list-points`: `K/N` (the shard that runs exactly this point) and the point's
/// swept values, one line per point, per config.
fn list_points(configs: &[Config]) -> anyhow::Result<ExitCode> {
    let mut stdout = crate::print::stdout();
    for config in configs {
        for point in 0..config.points {
            let values = config.point_values(point);
            let mut line = format!("{point}/{}", config.points);
            for axis in &config.axes {
                line.push_str(&format!(
                    " {}={}",
                    axis.key,
                    crate::format::value_cell(&values[axis.param])
                ));
            }
            if configs.len() > 1 {
                line.push_str(&format!(" {}", config.source.name));
            }
            writeln!(stdout, "{line}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
