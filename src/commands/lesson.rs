//! `coordsim lesson check` and `coordsim lesson fill`.

use std::io::Write;
use std::process::ExitCode;

use coordsim_model::Registry;

use super::cli::{LessonCheckArgs, LessonFillArgs};
use crate::lesson;
use crate::runner::RunOptions;

use super::common::finish;

/// `--jobs` of the lesson commands, or the number of cores.
fn lesson_jobs(given: Option<u64>) -> usize {
    RunOptions::from_flags(given, None, false).jobs
}

pub(super) fn check(args: LessonCheckArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
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

pub(super) fn fill(args: LessonFillArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    let session = lesson::Session::open(&args.files, registry, lesson_jobs(args.jobs), Vec::new())?;
    let said = lesson::fill(&session)?;
    let mut stdout = crate::print::stdout();
    for line in &said {
        writeln!(stdout, "{line}")?;
    }
    writeln!(stdout, "{} region(s) changed", said.len())?;
    Ok(ExitCode::SUCCESS)
}
