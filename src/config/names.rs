//! Names resolved against a plan: parameters, metrics and entity columns by name, and
//! whether they are numeric.

use coordsim_model::Kind;

use super::plan::Plan;
use super::var::Var;

fn numeric_kind(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Count | Kind::Float | Kind::NumberOrList | Kind::CountOrList
    )
}

impl Plan {
    /// A text column by this name (entity columns first for entity claims), as a variable.
    pub(crate) fn text_column(&self, name: &str, entity: bool) -> Option<Var> {
        let model = &*self.model;
        if entity && let Some(i) = model.entity_columns().iter().position(|c| c.name == name) {
            return (!model.entity_columns()[i].numeric()).then_some(Var::Entity(i));
        }
        let i = model.metrics().iter().position(|c| c.name == name)?;
        (!model.metrics()[i].numeric()).then_some(Var::Metric(i))
    }

    /// Resolves a name to a numeric column: an entity column (entity claims, winning on a
    /// clash), a metric, or (when `params` is true) a numeric parameter.
    pub(crate) fn resolve(&self, name: &str, entity: bool, params: bool) -> Result<Var, String> {
        let model = &*self.model;
        if entity && let Some(i) = model.entity_columns().iter().position(|c| c.name == name) {
            return if model.entity_columns()[i].numeric() {
                Ok(Var::Entity(i))
            } else {
                Err(format!("`{name}` is not numeric"))
            };
        }
        if let Some(i) = model.metrics().iter().position(|c| c.name == name) {
            return if model.metrics()[i].numeric() {
                Ok(Var::Metric(i))
            } else {
                Err(format!("`{name}` is not numeric"))
            };
        }
        if params {
            if let Some(i) = model.params().iter().position(|p| p.key == name) {
                return if numeric_kind(model.params()[i].kind) {
                    Ok(Var::Param(i))
                } else {
                    Err(format!("the parameter `{name}` is not numeric"))
                };
            }
            // A var's values follow the model's parameters.
            if let Some(j) = self.vars.iter().position(|(v, _)| v == name) {
                return Ok(Var::Param(model.params().len() + j));
            }
        }
        let mut valid: Vec<&str> = Vec::new();
        if entity {
            valid.extend(
                model
                    .entity_columns()
                    .iter()
                    .filter(|c| c.numeric())
                    .map(|c| c.name),
            );
        }
        valid.extend(
            model
                .metrics()
                .iter()
                .filter(|c| c.numeric())
                .map(|c| c.name),
        );
        if params {
            valid.extend(
                model
                    .params()
                    .iter()
                    .filter(|p| numeric_kind(p.kind))
                    .map(|p| p.key),
            );
            valid.extend(self.vars.iter().map(|(v, _)| v.as_str()));
        }
        Err(format!(
            "unknown {} `{name}`{} for {}; valid: {}",
            if params { "name" } else { "metric" },
            crate::suggest::did_you_mean(name, &valid),
            model.name(),
            valid.join(", ")
        ))
    }
}
