//! The commands: `cli` parses the command line, one file per command does it.

mod check;
pub(crate) mod cli;
mod common;
mod explore;
mod lesson;
mod merge;
pub(crate) mod models;
mod report;
mod run;

use std::process::ExitCode;

use coordsim_model::Registry;

use cli::{Command, LessonCommand};
pub use common::find_configs;
pub use common::find_files;
pub(crate) use common::written;

/// Runs a command; `Err` is bad input (exit 2).
pub(crate) fn dispatch(command: Command, registry: &Registry) -> anyhow::Result<ExitCode> {
    match command {
        Command::Run(args) => run::run(args, registry),
        Command::Check(args) => check::check(args, registry),
        Command::Explore(args) => explore::explore(args, registry),
        Command::Report(args) => report::report(args, registry),
        Command::Merge(args) => merge::merge(args, registry),
        Command::Models(args) => models::models(args, registry),
        Command::Lesson(LessonCommand::Check(args)) => lesson::check(args, registry),
        Command::Lesson(LessonCommand::Fill(args)) => lesson::fill(args, registry),
    }
}
