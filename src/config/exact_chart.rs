//! The keys of an `exact_cdf` chart: one metric, and none of the keys that place or add
//! lines by x, since its x axis is that metric's values. Checked where the chart is written,
//! before anything runs or is explored.

use coordsim_model::ChartKind;
use toml::Spanned;
use toml::de::DeValue;

use super::read::Loader;
use crate::source::ConfigError;

/// Most points one `exact_cdf` draws: each is explored when the chart is drawn and adds
/// two or three legend entries (its exact curve or band, its runs' curve), so a sweep of
/// hundreds would be as many explorations and a legend no reader can use.
pub(crate) const MAX_EXACT_POINTS: usize = 8;

/// The CSV files a run writes into its folder, by stem: an exact cdf's `NAME.csv` must not
/// be one of them.
const RUN_TABLES: [&str; 3] = ["results", "summary", "entities"];

impl Loader<'_> {
    /// An `exact_cdf`'s keys: `y` one metric; no `x`, `mark_x` or `y_expr`; a `name` that
    /// is not a run's own table's (each an error at itself saying why). Any other kind
    /// passes.
    pub(super) fn exact_cdf_keys<'a, 'i: 'a>(
        &self,
        kind: ChartKind,
        field: &dyn Fn(&str) -> Option<&'a Spanned<DeValue<'i>>>,
    ) -> Result<(), ConfigError> {
        if kind != ChartKind::ExactCdf {
            return Ok(());
        }
        for (key, why) in [
            ("x", "its x axis is the values of its `y` metric"),
            ("mark_x", "its x axis is the values of its `y` metric"),
            (
                "y_expr",
                "its curves are the explored executions' and the runs' (a theory line goes on a `runs_cdf` or a line chart)",
            ),
        ] {
            if let Some(v) = field(key) {
                return Err(self.err(
                    &v.span(),
                    format!("an exact_cdf takes no `{key}`: {why}; drop it"),
                ));
            }
        }
        // Its data goes beside it as NAME.csv: never over a run's own tables.
        if let Some(v) = field("name")
            && let DeValue::String(name) = v.get_ref()
            // Not in another case either: a file system that ignores case would take
            // `Results.csv` for the run's `results.csv`.
            && RUN_TABLES.iter().any(|t| t.eq_ignore_ascii_case(name))
        {
            return Err(self.err(
                &v.span(),
                format!(
                    "an exact_cdf writes its data as NAME.csv beside it, and `{name}.csv` is the run's own table: name the chart otherwise"
                ),
            ));
        }
        if let Some(v) = field("y")
            && let DeValue::Array(items) = v.get_ref()
            && items.len() > 1
        {
            return Err(self.err(
                &v.span(),
                format!(
                    "an exact_cdf draws one metric's distribution: `y` names one metric, not {} (one chart per metric)",
                    items.len()
                ),
            ));
        }
        Ok(())
    }
}
