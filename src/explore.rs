//! Explorations of a config: each point (of a scenario) run through every execution its
//! semantics allow (`coordsim_model::explore`), for `coordsim explore` and for the claims
//! over executions that `check` verifies.

use coordsim_model::{Exploration, ExploreLimits, RunContext};

use crate::config::Config;
use crate::runner::run_error;

/// Every point of `config` explored under `limits`, with master seed `seed` (an explored
/// run draws nothing, but its errors and its replay say the seed, as every run does).
pub fn explore_config(
    config: &Config,
    seed: u64,
    limits: &ExploreLimits,
) -> anyhow::Result<Vec<Exploration>> {
    (0..config.points)
        .map(|point| {
            let ctx = RunContext::new(seed, config.limits)
                .with_entities(false)
                .with_stats(config.stats)
                .with_percentile(config.percentile);
            config.plans[point]
                .explore(&ctx, limits)
                .map_err(|e| run_error(config, point, &e))
        })
        .collect()
}

/// The bounds `check`, `report` and the lessons explore with: the defaults, on every core
/// (the result is the same on any number).
pub fn default_limits() -> ExploreLimits {
    ExploreLimits {
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        ..ExploreLimits::default()
    }
}

/// Whether `config` has a claim over executions (then `check` explores it).
pub fn claims_executions(config: &Config) -> bool {
    config.claims.iter().any(|c| c.over.is_some())
}
