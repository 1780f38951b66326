//! The commands: run, check, report, merge, models.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use coordsim_model::Registry;

use crate::check::{self, Verdict};
use crate::cli::{
    CheckArgs, Command, Common, LessonCheckArgs, LessonCommand, LessonFillArgs, MergeArgs,
    ReportArgs, RunArgs,
};
use crate::config::Config;
use crate::dashboard::{self, Format};
use crate::export::folder::Staging;
use crate::export::{self, Run, csv::from_csv, write_atomic};
use crate::lesson::{self, eval::Outcome};
use crate::results::{ColumnSource, Results, Row, Schema, Table, lead_cells};
use crate::runner::{self, RunOptions};
use crate::source::Source;
use crate::summary;

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
        Command::Report(args) => report(args, registry),
        Command::Merge(args) => merge(args, registry),
        Command::Models(args) => crate::models_cmd::models(args, registry),
        Command::Lesson(LessonCommand::Check(args)) => lesson_check(args, registry),
        Command::Lesson(LessonCommand::Fill(args)) => lesson_fill(args, registry),
    }
}

fn jobs(common: &Common) -> usize {
    common.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    )
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
    let (summary, written) =
        write_outputs(config, &results, options.seed.unwrap_or(config.seed), dir)?;
    Ok((results, summary, written))
}

fn write_outputs(
    config: &Config,
    results: &Results,
    seed: u64,
    dir: &Path,
) -> anyhow::Result<(Option<Table>, export::Written)> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let summary = (config.replications > 1).then(|| summary::summarize(config, results));
    let run = Run {
        config,
        results,
        summary: summary.as_ref(),
        seed,
    };
    let mut written = export::Written::default();
    for exporter in export::all() {
        let w = exporter.export(&run, dir)?;
        written.charts += w.charts;
        written.left_out.extend(w.left_out);
    }
    Ok((summary, written))
}

/// `N charts` and, when some were not drawn, `; left out: …` naming each and why.
fn charts_said(written: &export::Written) -> String {
    let mut said = format!("{} charts", written.charts);
    if !written.left_out.is_empty() {
        said.push_str("; left out: ");
        said.push_str(&written.left_out.join(", "));
    }
    said
}

/// Prints a config's warnings (`warning: FILE:LINE:COL: …`) on stderr; a closed stderr
/// stops the messages, not the run.
fn warn(config: &Config) {
    let mut stderr = std::io::stderr().lock();
    for w in config.warnings() {
        let _ = writeln!(stderr, "warning: {w}");
    }
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
        jobs: jobs(&args.common),
        seed: args.common.seed,
        shard,
        progress: !args.quiet,
        ties: sim_core::Ties::Fifo,
    };
    let mut stdout = std::io::stdout().lock();
    for config in &configs {
        let staging = Staging::begin(&args.out, &config.stem)?;
        let dir = staging.path().to_path_buf();
        warn(config);
        let (results, _, written) = run_and_write(config, &options, &dir)?;
        if let Some((k, n)) = shard {
            // What `merge` needs to redraw the whole: the config and how this part was cut.
            write_atomic(&dir.join(SHARD_CONFIG), config.source.text.as_bytes())?;
            let seed = options.seed.unwrap_or(config.seed);
            let info = format!("{k}/{n}\nseed {seed}\nconfig {}\n", config.source.name);
            write_atomic(&dir.join(SHARD_INFO), info.as_bytes())?;
            if !results.lanes.is_empty() {
                let bytes = export::lanes::to_csv(&results.lanes)?;
                write_atomic(&dir.join(SHARD_LANES), &bytes)?;
            }
            if !results.distributions.is_empty() {
                let bytes = distributions_csv(&results.distributions);
                write_atomic(&dir.join(SHARD_DISTRIBUTIONS), &bytes)?;
            }
        }
        let dir = staging.commit()?;
        note_written(&dir);
        if !args.quiet {
            let table = std::fs::read_to_string(dir.join("table.md"))?;
            writeln!(stdout, "{table}")?;
            writeln!(
                stdout,
                "wrote {} ({} rows, {})\n",
                dir.display(),
                results.results.rows.len(),
                charts_said(&written)
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `run --list-points`: `K/N` (the shard that runs exactly this point) and the point's
/// swept values, one line per point, per config.
fn list_points(configs: &[Config]) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    for config in configs {
        for point in 0..config.points {
            let values = config.point_values(point);
            let mut line = format!("{point}/{}", config.points);
            for axis in &config.axes {
                line.push_str(&format!(
                    " {}={}",
                    axis.key,
                    crate::results::value_cell(&values[axis.param])
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
    let mut stdout = std::io::stdout().lock();
    let mut cases: Vec<dashboard::Case> = verdicts.iter().map(dashboard::claim_case).collect();
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
    jobs(&Common {
        jobs: given,
        seed: None,
    })
}

fn lesson_check(args: LessonCheckArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    if args.lint {
        let mut stdout = std::io::stdout().lock();
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
    let mut stdout = std::io::stdout().lock();
    for line in &said {
        writeln!(stdout, "{line}")?;
    }
    writeln!(stdout, "{} region(s) changed", said.len())?;
    Ok(ExitCode::SUCCESS)
}

fn check(args: CheckArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    let configs = load_all(&args.configs, registry)?;
    let options = RunOptions {
        jobs: jobs(&args.common),
        seed: args.common.seed,
        shard: None,
        progress: true,
        ties: sim_core::Ties::Fifo,
    };
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
    let options = RunOptions {
        jobs: jobs(&args.common),
        seed: args.common.seed,
        shard: None,
        progress: !args.quiet,
        ties: sim_core::Ties::Fifo,
    };
    let mut verdicts = Vec::new();
    let mut index = String::from(
        "# coordsim reports\n\nGenerated by `coordsim report` from `configs/`; do not edit by hand.\n\n| config | model | rows | claims |\n|---|---|---:|---:|\n",
    );
    let mut runs: Vec<(PathBuf, lesson::eval::Loaded)> = Vec::new();
    let stems: Vec<String> = configs.iter().map(|c| c.stem.clone()).collect();
    for config in configs {
        let staging = Staging::begin(&args.out, &config.stem)?;
        warn(&config);
        let (results, summary, written) = run_and_write(&config, &options, staging.path())?;
        let dir = staging.commit()?;
        note_written(&dir);
        let these = check::evaluate(&config, &results)?;
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
        // Kept for the lessons, which use these configs: each runs once.
        if let Ok(path) = std::fs::canonicalize(&config.source.name) {
            runs.push((
                path,
                lesson::eval::Loaded {
                    config,
                    results,
                    summary,
                },
            ));
        }
    }
    // Every lesson under lessons/, checked against the same runs.
    let mut regions = Vec::new();
    if args.lessons.is_dir() && options.seed.is_none() {
        let files: Vec<String> = find_files(&args.lessons, "md")?
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        if !files.is_empty() {
            let session = lesson::Session::open(&files, registry, options.jobs, runs)?;
            regions = session.evaluate()?;
            let counted: usize = regions.iter().map(|(_, o)| o.len()).sum();
            index.push_str(&format!(
                "\nLessons: {} file(s) under `{}`, {counted} marked region(s) checked.\n",
                files.len(),
                args.lessons.display()
            ));
        }
    }
    write_atomic(&args.out.join("README.md"), index.as_bytes())?;
    remove_stale_folders(&args.out, &stems)?;
    finish(args.format, &verdicts, &regions)
}

/// Removes the output folders of configs that are gone (a folder holding a `results.csv`
/// whose name is no config's stem): a report holds exactly what its configs write.
fn remove_stale_folders(out: &Path, stems: &[String]) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir()
            && !name.starts_with('.')
            && !stems.contains(&name)
            && path.join("results.csv").is_file()
        {
            std::fs::remove_dir_all(&path)
                .with_context(|| format!("cannot remove the stale {}", path.display()))?;
        }
    }
    Ok(())
}

/// The config a shard ran, kept beside its outputs for `merge`.
const SHARD_CONFIG: &str = "shard-config.toml";
/// `K/N`, the seed and the config's name.
const SHARD_INFO: &str = "shard.txt";
/// The timeline lanes of the shard's points (when its config draws a timeline).
const SHARD_LANES: &str = "shard-lanes.csv";
/// The per-request samples a shard's distribution charts draw: `point,name,value_ms`.
const SHARD_DISTRIBUTIONS: &str = "shard-distributions.csv";

fn distributions_csv(pools: &[crate::runner::Pooled]) -> Vec<u8> {
    let mut out = String::from("point,name,value_ms\n");
    for (point, name, values) in pools {
        for v in values {
            out.push_str(&format!("{point},{name},{v}\n"));
        }
    }
    out.into_bytes()
}

/// Reads a shard's samples back; every name must be a distribution of the config's model.
fn distributions_from_csv(
    bytes: &[u8],
    config: &Config,
    path: &Path,
) -> anyhow::Result<Vec<crate::runner::Pooled>> {
    let text =
        std::str::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", path.display()))?;
    let mut pools: Vec<crate::runner::Pooled> = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let bad = || anyhow::anyhow!("{}:{}: expected point,name,value_ms", path.display(), i + 1);
        let mut parts = line.split(',');
        let (Some(p), Some(n), Some(v), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let point: usize = p.parse().map_err(|_| bad())?;
        let value: f64 = v.parse().map_err(|_| bad())?;
        let name = config
            .model
            .distributions()
            .iter()
            .find(|d| d.name == n)
            .map(|d| d.name)
            .ok_or_else(bad)?;
        if point >= config.points {
            bail!(
                "{}:{}: point {point} is not a point of the config ({} points)",
                path.display(),
                i + 1,
                config.points
            );
        }
        match pools.last_mut() {
            Some((lp, ln, values)) if *lp == point && *ln == name => values.push(value),
            _ => pools.push((point, name, vec![value])),
        }
    }
    Ok(pools)
}

fn merge(args: MergeArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    // Every shard must hold the same config and seed.
    let mut first: Option<(String, u64, String)> = None;
    for dir in &args.shards {
        let shard_text = std::fs::read_to_string(dir.join(SHARD_CONFIG)).with_context(|| {
            format!(
                "{} is not the output of `run --shard` (no {SHARD_CONFIG})",
                dir.display()
            )
        })?;
        let info = std::fs::read_to_string(dir.join(SHARD_INFO))
            .with_context(|| format!("cannot read {}", dir.join(SHARD_INFO).display()))?;
        let seed: u64 = info
            .lines()
            .find_map(|l| l.strip_prefix("seed "))
            .and_then(|s| s.trim().parse().ok())
            .with_context(|| format!("{} has no seed line", dir.join(SHARD_INFO).display()))?;
        let name = info
            .lines()
            .find_map(|l| l.strip_prefix("config "))
            .unwrap_or("config.toml")
            .to_string();
        match &first {
            Some((t, s, _)) if *t != shard_text || *s != seed => bail!(
                "{} holds a shard of a different config or seed",
                dir.display()
            ),
            Some(_) => {}
            None => first = Some((shard_text, seed, name)),
        }
    }
    let Some((text, seed, name)) = first else {
        bail!("no shards given");
    };
    let config = Config::parse(Source { name, text }, registry)?;
    let results_schema = Schema::results(&config);
    let entities_schema = Schema::entities(&config).filter(|_| config.entities);
    let mut results = Results {
        results: Table {
            schema: results_schema.clone(),
            rows: Vec::new(),
        },
        entities: entities_schema.clone().map(|schema| Table {
            schema,
            rows: Vec::new(),
        }),
        lanes: Vec::new(),
        distributions: Vec::new(),
    };
    let style = config.model.timeline();
    for dir in &args.shards {
        let path = dir.join("results.csv");
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let part = from_csv(&bytes, &results_schema, &path.display().to_string())?;
        results
            .results
            .rows
            .extend(checked_rows(&config, seed, part, &path)?);
        if let (Some(schema), Some(table)) = (&entities_schema, results.entities.as_mut()) {
            let path = dir.join("entities.csv");
            let bytes =
                std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let part = from_csv(&bytes, schema, &path.display().to_string())?;
            table.rows.extend(checked_rows(&config, seed, part, &path)?);
        }
        if let (Some(style), Ok(bytes)) = (&style, std::fs::read(dir.join(SHARD_LANES))) {
            let lanes = export::lanes::from_csv(&bytes, style)
                .with_context(|| format!("{} is damaged", dir.join(SHARD_LANES).display()))?;
            results.lanes.extend(lanes);
        }
        if let Ok(bytes) = std::fs::read(dir.join(SHARD_DISTRIBUTIONS)) {
            let path = dir.join(SHARD_DISTRIBUTIONS);
            results
                .distributions
                .extend(distributions_from_csv(&bytes, &config, &path)?);
        }
    }
    // Rows in point order (stable: replications and entities keep their order within a point).
    let by_point = |table: &mut Table| {
        let mut rows = std::mem::take(&mut table.rows);
        rows.sort_by_key(|row| table.point(row));
        table.rows = rows;
    };
    by_point(&mut results.results);
    if let Some(e) = results.entities.as_mut() {
        by_point(e);
    }
    results.lanes.sort_by_key(|(point, _)| *point);
    results.distributions.sort_by_key(|(point, _, _)| *point);
    // Every point once, with its replications in order: nothing missing, nothing twice.
    let table = &results.results;
    let reps = config.replications;
    let complete = table.rows.len() as u64 == config.runs()
        && table.rows.iter().enumerate().all(|(i, row)| {
            table.point(row) as u64 == i as u64 / reps && table.replication(row) == i as u64 % reps
        });
    if !complete {
        let mut seen: Vec<usize> = table.rows.iter().map(|r| table.point(r)).collect();
        seen.dedup();
        bail!(
            "the shards hold {} rows for {} of the config's {} points ({} runs); pass every shard once",
            table.rows.len(),
            seen.len(),
            config.points,
            config.runs()
        );
    }
    // OUT is replaced whole, like a run's folder.
    let name = args
        .out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{}: name the merged folder, e.g. merged/",
                args.out.display()
            )
        })?;
    let parent = match args.out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let staging = Staging::begin(&parent, &name)?;
    config.check_value_labels(&results)?;
    warn(&config);
    write_outputs(&config, &results, seed, staging.path())?;
    staging.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// A shard's rows, each lead cell checked against the config (point in range, the point's
/// swept values, replication and seed) and rebuilt from it, so merged rows are typed exactly
/// as a direct run's.
fn checked_rows(config: &Config, seed: u64, part: Table, path: &Path) -> anyhow::Result<Vec<Row>> {
    let entity_id = part.schema.id(ColumnSource::Entity);
    let lead = part
        .schema
        .columns()
        .iter()
        .take_while(|c| {
            matches!(
                c.source,
                ColumnSource::Point
                    | ColumnSource::Axis(_)
                    | ColumnSource::Replication
                    | ColumnSource::Seed
                    | ColumnSource::Entity
            )
        })
        .count();
    let mut rows = Vec::with_capacity(part.rows.len());
    for (i, row) in part.rows.iter().enumerate() {
        let line = i + 2;
        let point = part.point(row);
        let replication = part.replication(row);
        if point >= config.points || replication >= config.replications {
            bail!(
                "{}: line {line}: point {point}, replication {replication} is not a run of the config ({} points × {} replications)",
                path.display(),
                config.points,
                config.replications
            );
        }
        let entity = entity_id.map(|id| row[id].to_string());
        let run_seed = sim_core::replication_seed(seed, replication);
        let expected = lead_cells(
            &part.schema,
            config,
            point,
            replication,
            run_seed,
            entity.as_deref(),
        );
        for (column, (got, want)) in part
            .schema
            .columns()
            .iter()
            .zip(row.cells().iter().zip(&expected))
        {
            if got.to_string() != want.to_string() {
                bail!(
                    "{}: line {line}: `{}` is {got}, but point {point}, replication {replication} of the config has {want}",
                    path.display(),
                    column.name
                );
            }
        }
        let mut cells = expected;
        cells.extend(row.cells()[lead..].iter().cloned());
        rows.push(Row::new(cells));
    }
    Ok(rows)
}
