//! A `[[chart]]`'s `y`, checked against the plan: the model's distributions for a chart of
//! per-request samples, its metrics (or entity columns) for any other.

use coordsim_model::ChartKind;

use super::Plan;
use super::Var;
use super::charts::At;
use super::read::Loader;
use crate::source::ConfigError;

impl Loader<'_> {
    /// The `y` of a chart of per-request samples: distributions of the model.
    pub(super) fn distribution_y(
        &self,
        plan: &Plan,
        kind: ChartKind,
        y: Option<(Vec<(String, At)>, At)>,
        chart_at: &At,
    ) -> Result<Vec<String>, ConfigError> {
        let model = &*plan.model;
        let distributions = model.distributions();
        let Some((items, at)) = &y else {
            return Err(self.err_at(
                plan,
                chart_at,
                "a histogram needs `y`: a distribution of the model",
            ));
        };
        if items.is_empty() {
            return Err(self.err_at(plan, at, "`y` is empty; name a distribution"));
        }
        let mut out = Vec::new();
        for (name, at) in items {
            if !distributions.iter().any(|d| d.name == name) {
                let valid: Vec<&str> = distributions.iter().map(|d| d.name).collect();
                return Err(self.err_at(
                    plan,
                    at,
                    if valid.is_empty() {
                        format!("{} gives no per-request samples to draw a {kind} of; `runs_cdf` draws a metric over runs", model.name())
                    } else {
                        format!("`{name}`{} is not a distribution of {}; valid: {} (a metric over runs is a `runs_cdf`)", crate::suggest::did_you_mean(name, &valid), model.name(), valid.join(", "))
                    },
                ));
            }
            out.push(name.clone());
        }
        Ok(out)
    }

    /// The `y` of a chart of metrics (of entity columns, with x = `"entity"`); a timeline
    /// needs none.
    pub(super) fn metric_y(
        &self,
        plan: &Plan,
        kind: ChartKind,
        on_entities: bool,
        y: Option<(Vec<(String, At)>, At)>,
        chart_at: &At,
    ) -> Result<Vec<String>, ConfigError> {
        let model = &*plan.model;
        let mut out = Vec::new();
        match y {
            None if kind == ChartKind::Timeline => {}
            None => {
                return Err(self.err_at(
                    plan,
                    chart_at,
                    "a [[chart]] needs `y` (a metric or a list of metrics)",
                ));
            }
            Some((items, at)) if items.is_empty() => {
                return Err(self.err_at(plan, &at, "`y` is empty; name at least one metric"));
            }
            Some((items, _)) => {
                for (metric, at) in items {
                    if on_entities {
                        // One bar per entity: y comes from the entity rows.
                        if !matches!(plan.resolve(&metric, true, false), Ok(Var::Entity(_))) {
                            let valid: Vec<&str> = model
                                .entity_columns()
                                .iter()
                                .filter(|c| c.numeric())
                                .map(|c| c.name)
                                .collect();
                            return Err(self.err_at(
                                plan,
                                &at,
                                format!(
                                    "with x = \"entity\", y is an entity column; valid: {}",
                                    valid.join(", ")
                                ),
                            ));
                        }
                    } else {
                        plan.resolve(&metric, false, false)
                            .map_err(|m| self.err_at(plan, &at, m))?;
                    }
                    out.push(metric);
                }
            }
        }
        Ok(out)
    }
}
