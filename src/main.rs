//! `coordsim`: the command-line front of the coordsim models.
//!
//! Loads configs, expands sweeps, runs every point (in parallel, deterministically), checks
//! claims and writes CSV, Markdown and charts. The simulation itself lives in `sim-core` and
//! `coordsim-models`.

mod check;
mod cli;
mod commands;
mod config;
mod export;
mod expr;
mod models_cmd;
mod results;
mod runner;
mod source;
mod summary;
mod sweep;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
