//! `coordsim`: the front end of the coordsim models, as a library.
//!
//! Loads configs, expands sweeps, runs every point (in parallel, deterministically), checks
//! claims and writes CSV, Markdown and charts, for whatever models a
//! [`coordsim_model::Registry`] holds. It names no model: models come from
//! `coordsim-models` (the built-in eight), composers from `coordsim-scenario`
//! (`model = "scenario"`), and either from any other crate:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     // The `coordsim` binary's registry; add any models of your own (`.with(MyModel)`).
//!     let registry = coordsim_models::registry().with_composer(coordsim_scenario::Scenario);
//!     coordsim::main_with(registry)
//! }
//! ```
//!
//! The simulation engine is `sim-core`; the model API is `coordsim-model`.
//!
//! Beyond [`main_with`], the public paths are the few the integration tests and the
//! benchmarks drive directly (load a [`config::Config`], [`runner::run`] it, check it with
//! [`check::evaluate`], export it); everything else is the crate's own (`pub(crate)`), so
//! the `unreachable_pub` lint names any `pub` that nothing outside can reach.

pub mod check;
pub mod commands;
pub mod config;
pub mod export;
mod format;
mod input;
mod interrupt;
pub mod labels;
mod lesson;
pub mod locale;
mod print;
pub mod results;
pub mod runner;
pub mod shard;
pub mod site;
pub mod source;
mod suggest;
pub mod summary;
mod sweep;

use std::process::ExitCode;

use std::io::Write;

use clap::Parser;
use coordsim_model::Registry;

/// Runs the `coordsim` command line (arguments from the process) over `registry`'s models:
/// exit 0 on success, 1 when a claim fails, 2 on bad input or when stdout could not be
/// written (a closed pipe aside: a reader that stops reading, `| head`, is no error).
pub fn main_with(registry: Registry) -> ExitCode {
    // Before any thread starts (they take this mask): a write past the file size limit
    // (`ulimit -f`) fails with an error naming the file, its staging folder removed,
    // instead of SIGXFSZ ending the process with no word and the folder left behind.
    #[cfg(unix)]
    {
        let mut xfsz = nix::sys::signal::SigSet::empty();
        xfsz.add(nix::sys::signal::Signal::SIGXFSZ);
        let _ = xfsz.thread_block();
    }
    let cli = match commands::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    // Ctrl-C: stop the runs and say what was written; a second Ctrl-C ends at once.
    let _ = ctrlc::set_handler(|| {
        if crate::interrupt::stop_requested() {
            std::process::exit(130);
        }
        crate::interrupt::stop_flag().store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let outcome = commands::dispatch(cli.command, &registry);
    // After the command, whatever it returned: its last lines may still be buffered.
    let printed = print::finish();
    let code = match outcome {
        Ok(code) => code,
        Err(e) if e.chain().any(|c| c.is::<crate::interrupt::Interrupted>()) => {
            let written = commands::written();
            let _ = writeln!(
                std::io::stderr(),
                "interrupted (Ctrl-C): {}; the folder being written was left as it was before",
                if written.is_empty() {
                    "nothing was written".to_string()
                } else {
                    format!("wrote {}", written.join(", "))
                }
            );
            ExitCode::from(130)
        }
        Err(e) => {
            // Never a panic, even when stderr is closed too.
            let _ = writeln!(std::io::stderr(), "error: {e:#}");
            ExitCode::from(2)
        }
    };
    match printed {
        Ok(()) => code,
        Err(why) => {
            let _ = writeln!(std::io::stderr(), "error: {why}");
            if code == ExitCode::from(130) {
                code
            } else {
                ExitCode::from(2)
            }
        }
    }
}

/// What clap stops at: a usage error (on stderr, exit 2), or `--help` / `--version` (on
/// stdout, exit 0 only when it was all written).
fn clap_exit(e: &clap::Error) -> ExitCode {
    if e.use_stderr() {
        let _ = e.print();
        return ExitCode::from(2);
    }
    print::clap_output(e);
    match print::finish() {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            let _ = writeln!(std::io::stderr(), "error: {why}");
            ExitCode::from(2)
        }
    }
}
