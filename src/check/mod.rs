//! Claims checked: over a run's rows (`runs`) and over a scenario's executions
//! (`executions`) apart, each ending in a [`Verdict`] and the line `check` prints; `ties`
//! re-checks them under other orders of simultaneous events, `dashboard` gives them to a
//! course's CI as JUnit or JSON.

mod counting;
pub(crate) mod dashboard;
mod entity_index;
mod execution_row;
mod executions;
mod judge;
mod line;
mod paths;
mod runs;
mod shown;
pub(crate) mod ties;
mod verdict;
mod weighted;
pub(crate) use weighted::weighted;

use crate::config::Config;
use crate::results::Results;

pub(crate) use counting::countings;
pub(crate) use execution_row::{ExecutionRow, Executions};
pub(crate) use executions::{outcome_meets, over_executions, scheduler_ends};
pub(crate) use paths::asks_of;
use runs::claim_evals;
pub(crate) use runs::claim_values;
pub(crate) use shown::Shown;
pub use verdict::Verdict;
/// The point `point` of `config` by its swept parameters' values (`clients = 4`; empty
/// when nothing is swept), as `check` names it.
pub(crate) fn describe_point(config: &Config, point: usize) -> String {
    verdict::describe(config, point, None)
}
use verdict::verdict;

/// Checks every claim of `config` on `results`; an entity claim naming no entity is an error.
/// A config with claims over executions is explored first (with the default bounds).
pub fn evaluate(config: &Config, results: &Results) -> anyhow::Result<Vec<Verdict>> {
    evaluate_counting(config, results, coordsim_model::Counting::Executions)
}

/// [`evaluate`], its explorations counting as `counting` says (`check --no-counts`: the
/// reachable outcomes alone, [`countings`]).
pub(crate) fn evaluate_counting(
    config: &Config,
    results: &Results,
    counting: coordsim_model::Counting,
) -> anyhow::Result<Vec<Verdict>> {
    let explored = if crate::runner::explore::claims_executions(config) {
        let limits = coordsim_model::ExploreLimits {
            counting,
            ..crate::runner::explore::default_limits()
        };
        crate::runner::explore::explore_config(config, config.seed, &limits)?
    } else {
        Vec::new()
    };
    evaluate_explored(config, results, &explored)
}

/// Every point of `config` explored (with the default bounds but `limits`), each claim over
/// schedulers' execution found too (its scheduler's most likely,
/// [`Exploration::paths`](coordsim_model::Exploration::paths)): what `explore`, `report` and
/// the lessons' trace charts show.
pub fn explore_showing(
    config: &Config,
    limits: &coordsim_model::ExploreLimits,
) -> anyhow::Result<Vec<coordsim_model::Exploration>> {
    let asks = asks_of(config);
    crate::runner::explore::explore_watched(
        config,
        config.seed,
        limits,
        crate::runner::explore::Watch::default(),
        Some(&asks),
        None,
    )
}

/// [`evaluate`] with the config's explorations given (every point's, when it has claims
/// over executions).
pub(crate) fn evaluate_explored(
    config: &Config,
    results: &Results,
    explored: &[coordsim_model::Exploration],
) -> anyhow::Result<Vec<Verdict>> {
    let mut verdicts = Vec::new();
    for claim in &config.claims {
        if let Some(holds) = claim.over {
            verdicts.push(over_executions(config, explored, claim, holds).0);
            continue;
        }
        let evals = claim_evals(config, results, claim)?;
        let worst = evals
            .into_iter()
            .max_by(|a, b| a.excess.total_cmp(&b.excess))
            .expect("a claim's `where` matches at least one point");
        verdicts.push(verdict(config, claim, worst));
    }
    Ok(verdicts)
}
