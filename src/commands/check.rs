//! `coordsim check`: configs run and every claim checked (or, with `--ties`, re-checked under
//! the other orders of simultaneous events).

use std::process::ExitCode;

use coordsim_model::Registry;

use super::cli::CheckArgs;
use crate::check;
use crate::runner::{self, RunOptions};

use super::common::{finish, load_all};

pub(super) fn check(args: CheckArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    let configs = load_all(&args.configs, registry)?;
    let options = RunOptions::from_flags(args.common.jobs, args.common.seed, true);
    if args.ties {
        let all_passed = crate::check::ties::check_ties(&configs, registry, &options)?;
        return Ok(if all_passed {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    // Without counts, a claim that needs them is refused before anything runs.
    let countings = check::countings(&configs, args.no_counts)?;
    let mut verdicts = Vec::new();
    for (config, counting) in configs.iter().zip(countings) {
        let results = runner::run(config, &options)?;
        verdicts.extend(check::evaluate_counting(config, &results, counting)?);
    }
    finish(args.format, &verdicts, &[])
}
