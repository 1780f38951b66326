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
            // A list for a parameter that is no list: any of its values; each must be a
            // value some point has (a typo in one would otherwise go unseen).
            if let (Value::List(any), false) = (&wanted, matches!(sample, Value::List(_))) {
                if any.is_empty() {
                    return Err(self.err(
                        &value.span(),
                        format!("`where` needs at least one value of `{}`", key.get_ref()),
                    ));
                }
                for a in any {
                    if !(0..plan.points).any(|p| plan.matches(p, &[(i, a.clone())])) {
                        return Err(self.err(
                            &value.span(),
                            format!(
                                "`where`: no point has `{} = {a}`{}",
                                key.get_ref(),
                                swept_values(plan, i)
                            ),
                        ));
                    }
                }
            }
            filter.push((i, wanted));
        }
        if !(0..plan.points).any(|p| plan.matches(p, &filter)) {
            // Say what the sweep does have for each key named.
            let has: Vec<String> = filter
                .iter()
                .map(|(i, _)| format!("{} = {}", names[*i], values_of(plan, *i)))
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

/// The values parameter `i` takes over the sweep, for an error: the first ten of its
/// axis, or its one value (not swept).
pub(crate) fn values_of(plan: &Plan, i: usize) -> String {
    match plan.axes.iter().find(|a| a.param == i) {
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
            shown.join(", ")
        }
        None => format!("{} (not swept)", plan.base[i]),
    }
}

/// `; the sweep has 4, 6, 8` for an error about parameter `i`.
fn swept_values(plan: &Plan, i: usize) -> String {
    format!("; the sweep has {}", values_of(plan, i))
}
