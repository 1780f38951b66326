//! `where` tables: the parameter values a claim's or a chart's rows must match.

use coordsim_model::Value;
use toml::Spanned;
use toml::de::DeValue;

use super::plan::Plan;
use super::read::Loader;
use crate::source::ConfigError;

impl Loader<'_> {
    /// A `where` table: parameter values a row must match; it must match some point.
    pub(super) fn filter(
        &self,
        plan: &Plan,
        w: &Spanned<DeValue<'_>>,
    ) -> Result<Vec<(usize, Value)>, ConfigError> {
        let names = plan.key_names();
        let mut filter = Vec::new();
        for (key, value) in self.table(w, "where")?.iter() {
            let Some(i) = names.iter().position(|s| *s == key.get_ref().as_ref()) else {
                return Err(self.unknown_key(key, "`where` (it filters on parameters)", &names));
            };
            let wanted = self.value(value)?;
            // A list matches a list-valued parameter element-wise; for any other it can
            // match nothing, which would read as "matches no point".
            let sample = plan
                .axes
                .iter()
                .find(|a| a.param == i)
                .and_then(|a| a.values.first())
                .unwrap_or(&plan.base[i]);
            if matches!(wanted, Value::List(_)) && !matches!(sample, Value::List(_)) {
                return Err(self.err(
                    &value.span(),
                    format!(
                        "`where` takes one value per key (`{} = {sample}`), and `{}` is not a list parameter; for several points write one claim per point, or leave `where` out",
                        key.get_ref(),
                        key.get_ref()
                    ),
                ));
            }
            filter.push((i, wanted));
        }
        if !(0..plan.points).any(|p| plan.matches(p, &filter)) {
            // Say what the sweep does have for each key named.
            let has: Vec<String> = filter
                .iter()
                .map(|(i, _)| {
                    let key = names[*i];
                    match plan.axes.iter().find(|a| a.param == *i) {
                        Some(axis) => {
                            let mut shown: Vec<String> = axis
                                .values
                                .iter()
                                .take(10)
                                .map(ToString::to_string)
                                .collect();
                            if axis.values.len() > 10 {
                                shown.push("…".into());
                            }
                            format!("{key} = {}", shown.join(", "))
                        }
                        None => format!("{key} = {} (not swept)", plan.base[*i]),
                    }
                })
                .collect();
            return Err(self.err(
                &w.span(),
                format!(
                    "`where` matches no point of the sweep; the sweep has {}",
                    has.join("; ")
                ),
            ));
        }
        Ok(filter)
    }
}
