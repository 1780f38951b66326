//! What a config's claims over executions ask of an exploration without counts
//! (`--no-counts`, [`Counting::Reach`]): which outcomes are reachable is enough for
//! `always`, `never`, `sometimes`, `eventually` and `stat = "min"` / `"max"`; a
//! probability, a mean or a percentile needs every execution counted.

use coordsim_model::Counting;

use crate::config::Config;

/// The search `--no-counts` makes for `config`: its registers' counts kept in each state
/// when a claim over executions reads one (or a metric of the config's own, which may),
/// else left out (fewer
/// states; those metrics' cells are then not counted). An error, at its `[[claim]]`, for a
/// claim that needs the executions counted.
pub(crate) fn reach_for(config: &Config) -> Result<Counting, crate::source::ConfigError> {
    let over_executions = || config.claims.iter().filter(|c| c.over.is_some());
    for claim in over_executions() {
        let needs = if claim.probability.is_some() {
            Some("a probability")
        } else if claim.stat.is_some_and(|stat| stat.weighted()) {
            Some("a statistic weighed by probability (a mean, a percentile)")
        } else {
            None
        };
        if let Some(needs) = needs {
            return Err(config.source.error(
                &claim.span,
                format!(
                    "claim `{}` asks for {needs}, which needs every execution counted: `--no-counts` counts none; explore without it",
                    claim.name
                ),
            ));
        }
    }
    // A metric the model does not report (a config's `[[metric]]`, computed from the
    // model's) may read a count: kept then too.
    let metrics = config.model.metrics();
    let keep_counts = over_executions().any(|claim| {
        metrics
            .iter()
            .find(|m| m.name == claim.metric)
            .is_none_or(|m| coordsim_scenario::counted_on_transitions(m.name))
    });
    Ok(Counting::Reach { keep_counts })
}

/// Each config's counting: [`reach_for`] it with `no_counts` (refusing, before anything
/// runs, a claim that needs counts), else every execution counted.
pub(crate) fn countings(
    configs: &[Config],
    no_counts: bool,
) -> Result<Vec<Counting>, crate::source::ConfigError> {
    (configs.iter())
        .map(|config| match no_counts {
            true => reach_for(config),
            false => Ok(Counting::Executions),
        })
        .collect()
}
