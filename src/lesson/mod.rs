//! Lessons tied to their runs: `coordsim lesson check` and `coordsim lesson fill`.
//!
//! A lesson is Markdown whose numbers, tables and charts that come from a simulation are
//! marked with HTML comments naming a config and a column (see `docs/lessons.md`). `check`
//! runs each config once (configs in parallel, output in file order) and compares every
//! marked region with the run, at the precision the author wrote; `fill` rewrites the
//! regions from the run; `--lint` lists the numbers no region covers.

pub(crate) mod eval;
mod explored;
pub(crate) mod explorer;
mod interval;
pub(crate) mod lint;
pub(crate) mod parse;
mod select;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use coordsim_model::Registry;
use rayon::prelude::*;

use crate::check::dashboard::Case;
use crate::config::Config;
use crate::runner::{self, RunOptions};
use eval::{Loaded, Outcome};
use parse::{Kind, Lesson, LessonError};

/// Most bytes of one lesson file.
pub(crate) const MAX_LESSON_BYTES: u64 = 8 * 1024 * 1024;

/// A lesson's error as `FILE:LINE:COL: message` (printed after `error: `).
pub(crate) fn positioned(file: &str, e: &LessonError) -> anyhow::Error {
    anyhow::anyhow!("{file}:{}:{}: {}", e.pos.line, e.pos.col, e.message)
}

/// Lessons read, their configs loaded and run once each.
pub(crate) struct Session {
    /// Each file as named, and its lesson.
    pub(crate) lessons: Vec<(String, Lesson)>,
    /// Each config run, by canonical path.
    pub(crate) runs: Vec<(PathBuf, Loaded)>,
    /// For each lesson, its `use` names and the index of their run.
    uses: Vec<HashMap<String, usize>>,
}

/// Reads one lesson.
pub(crate) fn read(file: &str) -> anyhow::Result<Lesson> {
    let text = crate::input::read_text_capped(Path::new(file), MAX_LESSON_BYTES)
        .map_err(|e| anyhow::anyhow!("lesson {file}: {e}"))?;
    parse::parse(&text).map_err(|e| positioned(file, &e))
}

impl Session {
    /// Reads the lessons and runs every config they use once; `done` holds runs made
    /// already (by `report`), by canonical path.
    pub(crate) fn open(
        files: &[String],
        registry: &Registry,
        jobs: usize,
        mut done: Vec<(PathBuf, Loaded)>,
    ) -> anyhow::Result<Session> {
        let mut lessons = Vec::new();
        for f in files {
            lessons.push((f.clone(), read(f)?));
        }
        // Every config once, by canonical path; errors at the `use`.
        let mut wanted: Vec<(PathBuf, String)> = Vec::new();
        let mut uses = Vec::new();
        for (file, lesson) in &lessons {
            let dir = Path::new(file).parent().unwrap_or(Path::new(""));
            let mut map = HashMap::new();
            for u in &lesson.uses {
                let path = dir.join(&u.path);
                let canonical = std::fs::canonicalize(&path).map_err(|e| {
                    positioned(
                        file,
                        &LessonError {
                            pos: u.pos,
                            message: format!("cannot read config {}: {e}", path.display()),
                        },
                    )
                })?;
                let index = match wanted.iter().position(|(c, _)| *c == canonical) {
                    Some(i) => i,
                    None => {
                        wanted.push((canonical, path.display().to_string()));
                        wanted.len() - 1
                    }
                };
                map.insert(u.name.clone(), index);
            }
            uses.push(map);
        }
        // A wrong glob (a .toml, a README) would otherwise pass with nothing checked.
        if let Some((f, _)) = lessons.iter().find(|(_, l)| l.regions.is_empty()) {
            anyhow::bail!(
                "{f}: no marked region (`<!-- coordsim … -->`): nothing to check or fill; name the lesson files (Markdown with regions, see docs/lessons.md)"
            );
        }
        let configs: Vec<(PathBuf, Config)> = wanted
            .iter()
            .filter(|(c, _)| !done.iter().any(|(d, _)| d == c))
            .map(|(c, name)| Ok((c.clone(), Config::load(name, registry)?)))
            .collect::<anyhow::Result<_>>()?;
        // Configs in parallel, each with its share of the threads: the results never
        // depend on how many.
        let share = (jobs / configs.len().max(1)).max(1);
        let options = RunOptions::from_flags(Some(share as u64), None, false);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build()?;
        let ran: Vec<anyhow::Result<(PathBuf, Loaded)>> = pool.install(|| {
            configs
                .into_par_iter()
                .map(|(path, config)| {
                    let results = runner::run(&config, &options)?;
                    let summary = (config.replications > 1)
                        .then(|| crate::summary::summarize(&config, &results));
                    Ok((
                        path,
                        Loaded {
                            config,
                            results,
                            summary,
                            explored: std::sync::OnceLock::new(),
                            explored_schedulers: std::sync::OnceLock::new(),
                            views: Vec::new(),
                        },
                    ))
                })
                .collect()
        });
        for r in ran {
            done.push(r?);
        }
        let runs = done;
        let mut session = Session {
            lessons,
            runs,
            uses: Vec::new(),
        };
        // Map each lesson's names to their runs.
        session.uses = uses
            .into_iter()
            .map(|map| {
                map.into_iter()
                    .filter_map(|(name, i)| {
                        let path = &wanted[i].0;
                        session
                            .runs
                            .iter()
                            .position(|(p, _)| p == path)
                            .map(|j| (name, j))
                    })
                    .collect()
            })
            .collect();
        // A config a lesson of another locale uses, read in that lesson's words when it
        // speaks them (its tables and charts shown in that locale).
        for ((file, lesson), uses) in session.lessons.iter().zip(&session.uses) {
            for u in &lesson.uses {
                if let Some(&i) = uses.get(&u.name) {
                    session.runs[i]
                        .1
                        .add_view(lesson.locale, registry)
                        .map_err(|e| anyhow::anyhow!("{e} (read for {file})"))?;
                }
            }
        }
        Ok(session)
    }

    /// The run that lesson `lesson` (by index) names `name` in its `use` declarations.
    pub(crate) fn run_of(&self, lesson: usize, name: &str) -> Option<&(PathBuf, Loaded)> {
        self.uses
            .get(lesson)?
            .get(name)
            .and_then(|i| self.runs.get(*i))
    }

    /// Every region of every lesson against the runs.
    pub(crate) fn evaluate(&self) -> anyhow::Result<Vec<(String, Vec<Outcome>)>> {
        self.lessons
            .iter()
            .zip(&self.uses)
            .map(|((file, lesson), uses)| {
                let loaded = |name: &str| uses.get(name).map(|i| &self.runs[*i].1);
                let outcomes =
                    evaluate(lesson, Path::new(file), &loaded).map_err(|e| positioned(file, &e))?;
                Ok((file.clone(), outcomes))
            })
            .collect()
    }
}

/// The outcomes as dashboard cases.
pub(crate) fn cases(outcomes: &[(String, Vec<Outcome>)]) -> Vec<Case> {
    outcomes
        .iter()
        .flat_map(|(file, list)| {
            list.iter().map(move |o| Case {
                suite: file.clone(),
                // The line keeps two regions of one name apart (a figure written twice).
                name: format!("{} (line {})", o.name, o.pos.line),
                pass: o.pass,
                location: Some(format!("{file}:{}:{}", o.pos.line, o.pos.col)),
                expected: o.written.trim().to_string(),
                actual: o.run.trim().to_string(),
                message: failure_line(file, o),
                diff: o.diff.clone(),
            })
        })
        .collect()
}

/// The line `lesson check` prints for a region (failing ones only are printed).
pub(crate) fn failure_line(file: &str, o: &Outcome) -> String {
    let at = format!("{file}:{}:{}", o.pos.line, o.pos.col);
    if o.diff.is_some() {
        return format!("{at}: {}: the table drifted from the run", o.name);
    }
    if o.image.is_some() {
        return format!("{at}: {}: {}", o.name, o.run);
    }
    // One locale per line: where a comma marks decimals, a `;` parts the figures.
    let list = o.locale.list_mark();
    match &o.precision {
        Some(p) => format!(
            "{at}: {}: written {}{list} run {} (the written digits allow {p})",
            o.name, o.written, o.run
        ),
        None => format!(
            "{at}: {}: written {:?}, run {:?}",
            o.name,
            o.written.trim(),
            o.run
        ),
    }
}

/// Prints the failing regions with their diffs, then one line per lesson saying how many of
/// its regions hold, so the closing count adds up from the lines above it (text format).
pub(crate) fn print_text(
    out: &mut impl Write,
    outcomes: &[(String, Vec<Outcome>)],
) -> std::io::Result<()> {
    for (file, list) in outcomes {
        for o in list.iter().filter(|o| !o.pass) {
            writeln!(out, "{}", failure_line(file, o))?;
            if let Some(diff) = &o.diff {
                write!(out, "{diff}")?;
            }
        }
        let failed = list.iter().filter(|o| !o.pass).count();
        if failed == 0 {
            writeln!(
                out,
                "PASS {file}: {} marked region(s) match the run",
                list.len()
            )?;
        } else {
            writeln!(
                out,
                "FAIL {file}: {failed} of {} marked region(s) drifted",
                list.len()
            )?;
        }
    }
    Ok(())
}

/// Rewrites every region of every lesson from the run; returns the lines to print.
pub(crate) fn fill(session: &Session) -> anyhow::Result<Vec<String>> {
    let outcomes = session.evaluate()?;
    let mut said = Vec::new();
    for ((file, lesson), (_, list)) in session.lessons.iter().zip(&outcomes) {
        let mut text = String::with_capacity(lesson.text.len());
        let mut at = 0;
        for (region, o) in lesson.regions.iter().zip(list) {
            if let Some(new) = &o.replacement {
                text.push_str(&lesson.text[at..region.content.start]);
                text.push_str(new);
                at = region.content.end;
                if *new != lesson.text[region.content.clone()] {
                    said.push(format!(
                        "{file}:{}:{}: {}: {} → {}",
                        o.pos.line,
                        o.pos.col,
                        o.name,
                        short(&lesson.text[region.content.clone()]),
                        short(new)
                    ));
                }
            }
            if let Some((path, bytes)) = &o.image
                && crate::input::read_capped(path, 1 << 28).ok().as_deref()
                    != Some(bytes.as_slice())
            {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("cannot create {}", dir.display()))?;
                }
                crate::export::write_atomic(path, bytes)?;
                said.push(format!(
                    "{file}:{}:{}: {}: wrote {}",
                    o.pos.line,
                    o.pos.col,
                    o.name,
                    path.display()
                ));
            }
        }
        text.push_str(&lesson.text[at..]);
        if text != lesson.text {
            crate::export::write_atomic(Path::new(file), text.as_bytes())?;
        }
    }
    Ok(said)
}

fn short(text: &str) -> String {
    let one = text.trim();
    if one.contains('\n') {
        format!("({} lines)", one.lines().count())
    } else {
        one.to_string()
    }
}

/// Checks every region of `lesson` (`file` as the user named it) against the runs.
pub(crate) fn evaluate<'a>(
    lesson: &Lesson,
    file: &Path,
    loaded: &dyn Fn(&str) -> Option<&'a Loaded>,
) -> Result<Vec<Outcome>, LessonError> {
    let mut out = Vec::new();
    for region in &lesson.regions {
        let Some(l) = loaded(&region.config) else {
            return Err(eval::error(
                region.marker,
                format!("unknown config `{}`", region.config),
            ));
        };
        out.push(match &region.kind {
            Kind::Value { column } => eval::value(lesson, region, column, l)?,
            Kind::Table => eval::table(lesson, region, l)?,
            Kind::Chart { chart } => eval::chart_block(lesson, file, region, chart, l)?,
            Kind::Explored { what } => explored::value(lesson, region, what, l)?,
            Kind::Explorer => explorer::check(lesson, region, l)?,
        });
    }
    Ok(out)
}
