//! The commands: run, check, report, merge, models.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use coordsim_model::Registry;

use crate::check::{self, Verdict};
use crate::cli::{
    CheckArgs, Command, ExploreArgs, LessonCheckArgs, LessonCommand, LessonFillArgs, ReportArgs,
    RunArgs,
};
use crate::config::Config;
use crate::dashboard::{self, Format};
use crate::export;
use crate::export::batch::Batch;
use crate::export::folder::Staging;
use crate::lesson::{self, eval::Outcome};
use crate::results::{Results, Table};
use crate::runner::{self, RunOptions};

/// The output folders this command has put in place so far (for the Ctrl-C message).
pub fn written() -> Vec<String> {
    WRITTEN.lock().map(|w| w.clone()).unwrap_or_default()
}

static WRITTEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn note_written(dir: &Path) {
    if let Ok(mut w) = WRITTEN.lock() {
        w.push(dir.display().to_string());
    }
}

/// Runs a command; `Err` is bad input (exit 2).
pub fn dispatch(command: Command, registry: &Registry) -> anyhow::Result<ExitCode> {
    match command {
        Command::Run(args) => run(args, registry),
        Command::Check(args) => check(args, registry),
        Command::Explore(args) => explore(args, registry),
        Command::Report(args) => report(args, registry),
        Command::Merge(args) if crate::explore_shard::are_explore_shards(&args.shards) => {
            merge_exploration(args, registry)
        }
        Command::Merge(args) => crate::merge::merge(args, registry),
        Command::Models(args) => crate::models_cmd::models(args, registry),
        Command::Lesson(LessonCommand::Check(args)) => lesson_check(args, registry),
        Command::Lesson(LessonCommand::Fill(args)) => lesson_fill(args, registry),
    }
}

fn load_all(paths: &[String], registry: &Registry) -> anyhow::Result<Vec<Config>> {
    paths.iter().map(|p| Config::load(p, registry)).collect()
}

/// Two configs with one stem would write into one folder; a stem must be a plain name.
fn ensure_distinct_stems(configs: &[Config]) -> anyhow::Result<()> {
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
fn run_and_write(
    config: &Config,
    options: &RunOptions,
    dir: &Path,
) -> anyhow::Result<(Results, Option<Table>, export::Written)> {
    let results = runner::run(config, options)?;
    let (summary, written) = export::write_all(config, &results, options.seed_for(config), dir)?;
    Ok((results, summary, written))
}

/// `1 row`, `2 rows`: a count and its noun.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `N charts` and, when some were not drawn, `; left out: …` naming each and why.
fn charts_said(written: &export::Written) -> String {
    let mut said = plural(written.charts, "chart");
    if !written.left_out.is_empty() {
        said.push_str("; left out: ");
        said.push_str(&written.left_out.join(", "));
    }
    said
}

fn run(args: RunArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
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
            crate::merge::refuse_another_shard(&out.join(&config.stem), split)?;
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
            crate::merge::write_shard(&dir, config, &results, split, seed)?;
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
    let schedule = crate::schedule::load(file, &config)?;
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
pub(crate) fn write_schedule_run(
    config: &mut Config,
    schedule: &crate::schedule::ScheduleFile,
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

/// Prints the verdicts of claims and lesson regions in `format`, then (text) the closing
/// count of both; exit 0 when all passed, else 1.
fn finish(
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

/// `--jobs` of the lesson commands, or the number of cores.
fn lesson_jobs(given: Option<u64>) -> usize {
    RunOptions::from_flags(given, None, false).jobs
}

fn lesson_check(args: LessonCheckArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    if args.lint {
        let mut stdout = crate::print::stdout();
        let mut total = 0;
        for file in &args.files {
            let l = lesson::read(file)?;
            for w in lesson::lint::lint(&l) {
                total += 1;
                writeln!(
                    stdout,
                    "{file}:{}:{}: warning: `{}` is in no region (mark it, or allow it with <!-- coordsim allow {} -->)",
                    w.pos.line, w.pos.col, w.number, w.number
                )?;
            }
        }
        writeln!(stdout, "{total} unchecked number(s)")?;
        return Ok(ExitCode::SUCCESS);
    }
    let session = lesson::Session::open(&args.files, registry, lesson_jobs(args.jobs), Vec::new())?;
    let outcomes = session.evaluate()?;
    finish(args.format, &[], &outcomes)
}

fn lesson_fill(args: LessonFillArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    let session = lesson::Session::open(&args.files, registry, lesson_jobs(args.jobs), Vec::new())?;
    let said = lesson::fill(&session)?;
    let mut stdout = crate::print::stdout();
    for line in &said {
        writeln!(stdout, "{line}")?;
    }
    writeln!(stdout, "{} region(s) changed", said.len())?;
    Ok(ExitCode::SUCCESS)
}

fn check(args: CheckArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    let configs = load_all(&args.configs, registry)?;
    let options = RunOptions::from_flags(args.common.jobs, args.common.seed, true);
    if args.ties {
        let all_passed = crate::ties::check_ties(&configs, registry, &options)?;
        return Ok(if all_passed {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let mut verdicts = Vec::new();
    for config in &configs {
        let results = runner::run(config, &options)?;
        verdicts.extend(check::evaluate(config, &results)?);
    }
    finish(args.format, &verdicts, &[])
}

/// `explore`: every point of every config explored; its claims over executions checked,
/// the outcomes and the deciding executions written.
fn explore(args: ExploreArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
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
        ..Default::default()
    };
    if let Some(split) = shard {
        for config in &configs {
            let dir = args.out.join(format!("{}-explore", config.stem));
            crate::merge::refuse_another_shard(&dir, split)?;
        }
    }
    let mut stdout = crate::print::stdout();
    let mut verdicts = Vec::new();
    for config in &mut configs {
        let watch = crate::explore::Watch {
            progress: !args.quiet,
            max_seconds: args.max_seconds,
        };
        let explored = crate::explore::explore_watched(config, config.seed, &limits, watch)?;
        let name = format!("{}-explore", config.stem);
        let staging = Staging::begin(&args.out, &name)?;
        if let Some(split) = shard {
            crate::explore_shard::write(
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

/// `merge OUT SHARD_DIR...` of the shards of an exploration: the parts joined, the claims
/// over executions judged on the whole, and the outputs `explore` writes, into `OUT`.
fn merge_exploration(
    args: crate::merge::MergeArgs,
    registry: &Registry,
) -> anyhow::Result<ExitCode> {
    crate::merge::refuse_out_among_shards(&args.out, &args.shards)?;
    let (mut config, explored) = crate::explore_shard::read_merged(&args.shards, registry)?;
    let staging = crate::export::in_place::InPlace::begin(&args.out)?;
    let (verdicts, text) = write_exploration(&mut config, &explored, &staging.path())?;
    let dir = staging.commit()?;
    note_written(&dir);
    writeln!(crate::print::stdout(), "{text}\nwrote {}\n", dir.display())?;
    finish(Format::Text, &verdicts, &[])
}

/// The claims over executions of `config` judged on `explored`, and the exploration's
/// outputs written into `dir`: `explore.md`, `outcomes.csv`, and
/// for each claim an execution decides its trace (CSV and chart), its schedule and its
/// run (`trace-N/`). Gives back the verdicts and `explore.md`'s text.
fn write_exploration(
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
    Ok((verdicts, text))
}

/// Each deciding execution run again as a run of its point, into `trace-N/` of `dir`: its
/// table and its timeline, as `run --schedule` writes them.
fn write_traces(
    config: &mut Config,
    explored: &[coordsim_model::Exploration],
    decided: &[(String, Option<(usize, usize)>)],
    dir: &Path,
) -> anyhow::Result<()> {
    let options = RunOptions::from_flags(Some(1), None, false);
    for (n, (_, decides)) in decided.iter().enumerate() {
        let Some((point, k)) = *decides else {
            continue;
        };
        let file = crate::schedule::ScheduleFile {
            point,
            schedule: explored[point].outcomes[k].schedule.clone(),
            written: None,
        };
        let trace = dir.join(format!("trace-{}", n + 1));
        // An untimed execution (every step at one instant) has no timeline to draw: its
        // order is the step chart's.
        let steps = &explored[point].outcomes[k].trace;
        let timed = steps.windows(2).any(|w| w[0].time_ms != w[1].time_ms);
        write_schedule_run(config, &file, &options, &trace, timed)?;
    }
    Ok(())
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

fn report(args: ReportArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    let paths = find_configs(&args.configs)?;
    if paths.is_empty() {
        bail!("no configs (*.toml) under {}", args.configs.display());
    }
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let configs = load_all(&names, registry)?;
    ensure_distinct_stems(&configs)?;
    let options = RunOptions::from_flags(args.common.jobs, args.common.seed, !args.quiet);
    let mut verdicts = Vec::new();
    check_index(&args.out.join("README.md"))?;
    let stems: Vec<String> = configs.iter().map(|c| c.stem.clone()).collect();
    crate::site::check_place(&args.out, &stems)?;
    // The course's words for the site: read (and refused when wrong) before anything runs.
    let words = crate::site::locales::Locales::read_warning(&args.locales)?;
    // Every config's folder is refused before anything runs, not when its turn comes.
    for stem in &stems {
        if let export::folder::Existing::Foreign(why) =
            export::folder::inspect(&args.out.join(stem))
        {
            bail!("{why}");
        }
    }
    // Everything the report writes is swapped in at the end, as one unit (see `Batch`).
    let mut batch = Batch::begin(&args.out)?;
    let mut index = format!(
        "{INDEX_HEAD}\n\nGenerated by `coordsim report` from `configs/`; do not edit by hand. Browse it as a site: [index.html](index.html) (offline; see the README's \"The report as a site\").\n\n| config | model | rows | claims |\n|---|---|---:|---:|\n",
    );
    let mut runs: Vec<(PathBuf, lesson::eval::Loaded)> = Vec::new();
    for mut config in configs {
        let staged = batch.folder(&config.stem)?;
        crate::labels::print_warnings(&config);
        let (results, summary, written) = run_and_write(&config, &options, &staged)?;
        let dir = args.out.join(&config.stem);
        let explored = if crate::explore::claims_executions(&config) {
            let limits = coordsim_model::ExploreLimits {
                jobs: options.jobs,
                ..Default::default()
            };
            crate::explore::explore_config(&config, config.seed, &limits)?
        } else {
            Vec::new()
        };
        let these = check::evaluate_explored(&config, &results, &explored)?;
        if !explored.is_empty() {
            // Every execution, beside the run: the claims' traces, charts and schedules.
            let explore_dir = staged.join("explore");
            std::fs::create_dir_all(&explore_dir)?;
            write_exploration(&mut config, &explored, &explore_dir)?;
        }
        // A lesson's trace charts of this config read this exploration, not another.
        let explored = if explored.is_empty() {
            std::sync::OnceLock::new()
        } else {
            std::sync::OnceLock::from(Ok(explored))
        };
        let passed = these.iter().filter(|v| v.pass).count();
        index.push_str(&format!(
            "| [{}]({}/table.md) | `{}` | {} | {passed}/{} |\n",
            config.source.name,
            config.stem,
            config.model.name(),
            results.results.rows.len(),
            these.len()
        ));
        if !args.quiet {
            // A closed stderr (`report 2>&1 | head -1`) stops the messages, not the report.
            let left_out = if written.left_out.is_empty() {
                String::new()
            } else {
                format!(" (left out: {})", written.left_out.join(", "))
            };
            let _ = writeln!(
                std::io::stderr(),
                "{} → {}{left_out}",
                config.source.name,
                dir.display()
            );
        }
        verdicts.extend(these);
        // Kept for the lessons, which use these configs (each runs once), and the site.
        let path = std::fs::canonicalize(&config.source.name)
            .unwrap_or_else(|_| PathBuf::from(&config.source.name));
        runs.push((
            path,
            lesson::eval::Loaded {
                config,
                results,
                summary,
                explored,
                views: Vec::new(),
            },
        ));
    }
    let ran = runs.len();
    // Every lesson under lessons/, checked against the same runs.
    let mut regions = Vec::new();
    let mut session = None;
    // The index says why, in its own words.
    let lessons_skipped = args.lessons.is_dir() && options.seed.is_some();
    if args.lessons.is_dir() && options.seed.is_none() {
        let files: Vec<String> = find_files(&args.lessons, "md")?
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        if !files.is_empty() {
            let opened =
                lesson::Session::open(&files, registry, options.jobs, std::mem::take(&mut runs))?;
            regions = opened.evaluate()?;
            let counted: usize = regions.iter().map(|(_, o)| o.len()).sum();
            index.push_str(&format!(
                "\nLessons: {} file(s) under `{}`, {counted} marked region(s) checked.\n",
                files.len(),
                args.lessons.display()
            ));
            session = Some(opened);
        }
    }
    if crate::interrupt::stop_requested() {
        return Err(anyhow::Error::new(crate::interrupt::Interrupted));
    }
    batch.file("README.md", index.as_bytes())?;
    for name in stale_folders(&args.out, &stems, args.quiet)? {
        batch.remove(&name)?;
    }
    let all_runs = session
        .as_ref()
        .map_or(runs.as_slice(), |s| s.runs.as_slice());
    crate::site::write(
        &crate::site::Input {
            out: &args.out,
            // The report's configs come first, in path order; the lessons' own follow.
            runs: &all_runs[..ran],
            verdicts: &verdicts,
            lessons: session.as_ref().map(|s| (s, regions.as_slice())),
            lessons_dir: &args.lessons,
            lessons_skipped,
            seed: options.seed,
            words: &words,
            index_locale: crate::locale::Locale::parse(&args.index_locale)
                .expect("clap admits en and tr"),
        },
        &mut batch,
    )?;
    batch.commit()?;
    finish(args.format, &verdicts, &regions)
}

/// The folders in `out` that a previous report wrote for configs that are gone (removed
/// with the swap): a report holds exactly what its configs write. Nothing else is removed:
/// a folder of the user's, or an output folder `run --out` or `merge` wrote, or one the user
/// changed; an output folder kept that way is named on stderr (unless `quiet`).
fn stale_folders(out: &Path, stems: &[String], quiet: bool) -> anyhow::Result<Vec<String>> {
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.starts_with('.') || stems.contains(&name) || name == crate::site::FOLDER {
            continue;
        }
        if export::folder::check_stem(&name).is_ok() && export::folder::written_by_report(&path) {
            stale.push(name);
        } else if export::folder::has_marker(&path) && !quiet {
            let _ = writeln!(
                std::io::stderr(),
                "note: kept {}: no config of this report writes it, but `coordsim report` did not write it either (or it was changed since); remove it yourself if it is stale",
                path.display()
            );
        }
    }
    stale.sort();
    Ok(stale)
}

/// The first line of the index `report` writes into its output folder.
const INDEX_HEAD: &str = "# coordsim reports";

/// Refuses to replace `OUT/README.md` unless `report` wrote it (it starts with
/// [`INDEX_HEAD`]): a folder of the user's given as `--out` keeps its own README.
fn check_index(path: &Path) -> anyhow::Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    let ours = meta.is_file()
        && crate::input::read_capped(path, 64 << 20)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .is_some_and(|t| t.lines().next() == Some(INDEX_HEAD));
    if !ours {
        bail!(
            "{} exists and was not written by `coordsim report`: move it away, or write the report elsewhere with --out",
            path.display()
        );
    }
    Ok(())
}
