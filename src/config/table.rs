//! `[table]`: what `table.md` (and a lesson's table block) shows — which columns in which
//! order, run rows or entity rows, and how many decimals.

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::Plan;
use super::plan::FIXED_COLUMNS;
use super::read::Loader;
use crate::source::ConfigError;

/// Most decimals a column may ask for.
pub(crate) const MAX_DIGITS: u64 = 12;

/// How `table.md` looks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableSpec {
    /// Columns in order; `None`: the swept parameters, then every metric (or, for entity
    /// rows, the swept parameters, `entity` and every entity column).
    pub(crate) columns: Option<Vec<String>>,
    /// Entity rows (one per applier, edge, scenario…) instead of one row per run.
    pub(crate) entity: bool,
    /// Decimals for every number (`None`: rounded for reading, see `round`).
    pub(crate) digits: Option<usize>,
    /// Decimals for named columns, winning over `digits`.
    pub(crate) column_digits: Vec<(String, usize)>,
    /// With replications, each mean with its interval's half-width (`intervals = false`:
    /// the means alone).
    pub(crate) intervals: bool,
}

impl Default for TableSpec {
    fn default() -> TableSpec {
        TableSpec {
            columns: None,
            entity: false,
            digits: None,
            column_digits: Vec::new(),
            intervals: true,
        }
    }
}

impl TableSpec {
    /// The decimals column `name` is written with (`None`: rounded for reading).
    pub(crate) fn digits_of(&self, name: &str) -> Option<usize> {
        self.column_digits
            .iter()
            .find(|(c, _)| c == name)
            .map(|(_, d)| *d)
            .or(self.digits)
    }
}

const KEYS: &[&str] = &["columns", "entity", "digits", "intervals"];

/// The columns a table of run rows (`entity = false`) or entity rows may show.
pub(crate) fn table_columns(plan: &Plan, entity: bool) -> Vec<&str> {
    let m = &*plan.model;
    // Every parameter and var (a fixed one shows its value on every row).
    let mut names: Vec<&str> = plan.key_names();
    names.extend(FIXED_COLUMNS.iter().filter(|c| entity || **c != "entity"));
    if entity {
        names.extend(m.entity_columns().iter().map(|c| c.name));
    } else {
        names.extend(m.metrics().iter().map(|c| c.name));
    }
    names
}

impl Loader<'_> {
    /// The `[table]` section.
    pub(super) fn table_spec(
        &self,
        plan: &Plan,
        v: &Spanned<DeValue<'_>>,
    ) -> Result<TableSpec, ConfigError> {
        let t: &DeTable<'_> = self.table(v, "table")?;
        let fields = self.known_fields(t, "[table]", KEYS)?;
        let field = |k: &str| fields.iter().find(|(key, _)| key.get_ref() == k);
        let mut spec = TableSpec::default();
        if let Some((_, i)) = field("intervals") {
            spec.intervals = match i.get_ref() {
                DeValue::Boolean(b) => *b,
                _ => return Err(self.err(&i.span(), "`intervals` must be true or false")),
            };
        }
        if let Some((_, e)) = field("entity") {
            spec.entity = match e.get_ref() {
                DeValue::Boolean(b) => *b,
                _ => return Err(self.err(&e.span(), "`entity` must be true or false")),
            };
            if spec.entity && plan.model.entity_columns().is_empty() {
                return Err(self.err(
                    &e.span(),
                    format!("{} has no entity rows; drop `entity`", plan.model.name()),
                ));
            }
            if spec.entity && !plan.entities {
                return Err(self.err(
                    &e.span(),
                    "this config sets `entities = false`: no entity rows to tabulate",
                ));
            }
        }
        let valid = table_columns(plan, spec.entity);
        let column = |v: &Spanned<DeValue<'_>>, what: &str| -> Result<String, ConfigError> {
            let name = self.string(v, what)?;
            if valid.contains(&name.as_str()) {
                Ok(name)
            } else {
                Err(self.err(
                    &v.span(),
                    format!(
                        "`{name}`{} is not a column of the {} table; valid: {}",
                        crate::suggest::did_you_mean(&name, &valid),
                        if spec.entity { "entity" } else { "results" },
                        valid.join(", ")
                    ),
                ))
            }
        };
        if let Some((_, c)) = field("columns") {
            let DeValue::Array(items) = c.get_ref() else {
                return Err(self.err(&c.span(), "`columns` is a list of column names"));
            };
            if items.is_empty() {
                return Err(self.err(&c.span(), "`columns` names at least one column"));
            }
            let mut names = Vec::new();
            for item in items {
                let name = column(item, "a column")?;
                if names.contains(&name) {
                    return Err(self.err(&item.span(), format!("`{name}` is named twice")));
                }
                names.push(name);
            }
            spec.columns = Some(names);
        }
        if let Some((_, d)) = field("digits") {
            let digits = |v: &Spanned<DeValue<'_>>| -> Result<usize, ConfigError> {
                let n = self.count(v, "digits")?;
                if n > MAX_DIGITS {
                    return Err(self.err(&v.span(), format!("`digits` is at most {MAX_DIGITS}")));
                }
                Ok(n as usize)
            };
            match d.get_ref() {
                DeValue::Table(per) => {
                    for (key, value) in per.iter() {
                        if key.get_ref() == "default" {
                            spec.digits = Some(digits(value)?);
                            continue;
                        }
                        let name = key.get_ref().to_string();
                        if !valid.contains(&name.as_str()) {
                            return Err(self.err(
                                &key.span(),
                                format!(
                                    "`{name}`{} in `digits` is not a column of this table; valid: default, {}",
                                    crate::suggest::did_you_mean(&name, &valid),
                                    valid.join(", ")
                                ),
                            ));
                        }
                        spec.column_digits.push((name, digits(value)?));
                    }
                }
                _ => spec.digits = Some(digits(d)?),
            }
        }
        Ok(spec)
    }
}
