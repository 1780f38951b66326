//! An entity claim's rows: its entity's row of each run, found in one pass, or an error
//! naming the entities a run has.

use std::collections::HashMap;

use crate::config::Config;
use crate::results::{ColumnSource, Results, Row, Table};

/// One entity's rows, by run (point, replication), found in one pass over the entity rows:
/// an entity claim reads its entity once per run, and a scan of every entity row per run
/// cost runs × rows (266 s for 100,000 points).
pub(super) struct EntityIndex<'r> {
    pub(super) table: &'r Table,
    rows: HashMap<(usize, u64), &'r Row>,
}

impl<'r> EntityIndex<'r> {
    /// The rows of entity `name` (the first of a run, should a run name it twice), or an
    /// error at the claim's `entity` when the run kept no entity rows.
    pub(super) fn new(
        config: &Config,
        results: &'r Results,
        name: &str,
        span: &crate::source::Span,
    ) -> anyhow::Result<EntityIndex<'r>> {
        let Some(table) = results.entities.as_ref() else {
            return Err(config
                .source
                .error(span, "this run kept no entity rows")
                .into());
        };
        Ok(EntityIndex::of(table, name))
    }

    fn of(table: &'r Table, name: &str) -> EntityIndex<'r> {
        let mut rows = HashMap::new();
        if let Some(id) = table.schema.id(ColumnSource::Entity) {
            for row in table.rows.iter().filter(|r| is_named(&r[id], name)) {
                rows.entry((table.point(row), table.replication(row)))
                    .or_insert(row);
            }
        }
        EntityIndex { table, rows }
    }

    /// The entity's row in the run (point, replication).
    pub(super) fn get(&self, point: usize, replication: u64) -> Option<&'r Row> {
        self.rows.get(&(point, replication)).copied()
    }
}

/// Whether an entity cell holds `name` (text compared in place, without a copy per row).
fn is_named(cell: &coordsim_model::Cell, name: &str) -> bool {
    match cell {
        coordsim_model::Cell::Text(t) => t == name,
        other => other.to_string() == name,
    }
}

/// The error for an entity claim whose entity the run (point, replication) does not have:
/// the nearest names and the first few of the run's entities, however many it has.
pub(super) fn missing_entity(
    config: &Config,
    entities: &Table,
    point: usize,
    replication: u64,
    name: &str,
    span: &crate::source::Span,
) -> anyhow::Error {
    let name_id = entities.schema.id(ColumnSource::Entity);
    let names: Vec<String> = entities
        .rows
        .iter()
        .filter(|e| entities.point(e) == point && entities.replication(e) == replication)
        .filter_map(|e| name_id.map(|id| e[id].to_string()))
        .collect();
    config
        .source
        .error(
            span,
            format!(
                "no entity `{name}`{} at point {point}; entities: {}",
                crate::suggest::did_you_mean(name, &names),
                crate::suggest::listed(&names)
            ),
        )
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Column, Schema};
    use coordsim_model::{Cell, ColumnType};
    use proptest::prelude::*;

    fn entity_table(rows: &[(u64, u64, usize)]) -> Table {
        let column = |name: &str, source, ty| Column {
            name: name.into(),
            source,
            ty,
        };
        Table {
            schema: Schema::new(vec![
                column("point", ColumnSource::Point, ColumnType::Count),
                column("replication", ColumnSource::Replication, ColumnType::Count),
                column("entity", ColumnSource::Entity, ColumnType::Text),
            ]),
            rows: rows
                .iter()
                .map(|&(p, r, n)| {
                    Row::new(vec![
                        Cell::Count(p),
                        Cell::Count(r),
                        Cell::Text(format!("e{n}")),
                    ])
                })
                .collect(),
        }
    }

    proptest! {
        /// The index finds what a scan of every row finds: the first row of the entity in
        /// that run, or none (rows in any order, names repeated within a run).
        #[test]
        fn the_entity_index_finds_what_a_scan_finds(
            rows in prop::collection::vec((0u64..5, 0u64..3, 0usize..4), 0..60)
        ) {
            let table = entity_table(&rows);
            let id = table.schema.id(ColumnSource::Entity).unwrap();
            for n in 0..5 {
                let name = format!("e{n}");
                let index = EntityIndex::of(&table, &name);
                for point in 0..6 {
                    for replication in 0..4 {
                        let scan = table.rows.iter().find(|r| {
                            table.point(r) == point
                                && table.replication(r) == replication
                                && r[id].to_string() == name
                        });
                        let found = index.get(point, replication);
                        let same = match (scan, found) {
                            (Some(a), Some(b)) => std::ptr::eq(a, b),
                            (None, None) => true,
                            _ => false,
                        };
                        prop_assert!(same, "point {point}, replication {replication}, {name}");
                    }
                }
            }
        }
    }
}
