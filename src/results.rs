//! Results as typed rows under a schema: every cell is a [`Cell`], every column is found by
//! what it holds (`ColumnSource`) or by name, never by position.
//!
//! **Column names are unique by construction.** The lead columns (`point`, the swept
//! parameters in declared order, `replication`, `seed`, and for entity rows `entity`) come
//! first, then the model's columns. The registry refuses a model column named like a lead
//! column; a swept parameter whose name is also one of the model's columns in that file (a
//! per-entity parameter swept, and the same name as an entity column) is written once: the
//! model's column stays, the parameter's lead column is left out of that file (its value is in
//! `results.csv`, or given by `point`).
//!
//! A cell's text is written by `Display` and read back by [`Cell::parse`] exactly (floats in
//! shortest round-trip form), so a merged `results.csv` is byte-identical to a direct run and
//! everything drawn or checked from it reads the same numbers.

use std::ops::Index;

use coordsim_model::{Cell, ColumnType};

use crate::config::Config;
use crate::format::value_cell;

/// What a column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColumnSource {
    /// The sweep point's index.
    Point,
    /// The value of swept parameter `axis` (an index into `config.axes`).
    Axis(usize),
    /// The replication number.
    Replication,
    /// The run's seed.
    Seed,
    /// The entity's name.
    Entity,
    /// Metric `i` of the model.
    Metric(usize),
    /// Entity column `i` of the model.
    EntityColumn(usize),
    /// `results.csv`: parameter `i` (model order) as `[params]` sets it at the point (a
    /// fixed value or a derived one), after the metrics.
    Param(usize),
    /// `summary.csv`: the number of replications.
    Replications,
    /// `summary.csv`: a statistic of metric `i`.
    Stat(usize, Stat),
}

/// The statistics `summary.csv` gives of each numeric metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stat {
    /// Mean.
    Mean,
    /// Sample standard deviation.
    Sd,
    /// Lower end of the 95% interval of the mean.
    Ci95Lo,
    /// Upper end.
    Ci95Hi,
}

impl Stat {
    /// In column order.
    pub(crate) const ALL: [Stat; 4] = [Stat::Mean, Stat::Sd, Stat::Ci95Lo, Stat::Ci95Hi];

    /// The column suffix (`M_mean`).
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Stat::Mean => "mean",
            Stat::Sd => "sd",
            Stat::Ci95Lo => "ci95_lo",
            Stat::Ci95Hi => "ci95_hi",
        }
    }
}

/// One column of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Column {
    /// The header.
    pub(crate) name: String,
    /// What it holds.
    pub(crate) source: ColumnSource,
    /// How its cells are read back.
    pub(crate) ty: ColumnType,
}

/// A column's place in its schema's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnId(usize);

/// The columns of one output file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Schema {
    columns: Vec<Column>,
}

impl Schema {
    /// A schema of these columns (their names must differ).
    pub(crate) fn new(columns: Vec<Column>) -> Schema {
        Schema { columns }
    }

    fn lead(config: &Config, model_names: &[&str], entity: bool) -> Vec<Column> {
        let count = |name: &str, source| Column {
            name: name.to_string(),
            source,
            ty: ColumnType::Count,
        };
        let mut columns = vec![count("point", ColumnSource::Point)];
        for (i, axis) in swept_in_column_order(config) {
            // The model's own column of this name wins (see the module docs).
            if !model_names.contains(&axis.key.as_str()) {
                columns.push(Column {
                    name: axis.key.to_string(),
                    source: ColumnSource::Axis(i),
                    ty: ColumnType::Text,
                });
            }
        }
        columns.push(count("replication", ColumnSource::Replication));
        columns.push(count("seed", ColumnSource::Seed));
        if entity {
            columns.push(Column {
                name: "entity".into(),
                source: ColumnSource::Entity,
                ty: ColumnType::Text,
            });
        }
        columns
    }

    /// `results.csv`: lead columns, the metrics, then every parameter `[params]` sets and
    /// `[sweep]` does not (in the order written), so a row read alone says what ran.
    pub(crate) fn results(config: &Config) -> Schema {
        let metrics = config.model.metrics();
        let names: Vec<&str> = metrics.iter().map(|m| m.name).collect();
        let mut columns = Schema::lead(config, &names, false);
        columns.extend(metrics.iter().enumerate().map(|(i, m)| Column {
            name: m.name.to_string(),
            source: ColumnSource::Metric(i),
            ty: m.ty,
        }));
        for i in config.written_params() {
            let name = config.model.params()[i].key;
            // A metric of that name wins, as for swept parameters.
            if !columns.iter().any(|c| c.name == name) {
                columns.push(Column {
                    name: name.to_string(),
                    source: ColumnSource::Param(i),
                    ty: ColumnType::Text,
                });
            }
        }
        Schema { columns }
    }

    /// `entities.csv`, or `None` for a model without entity rows.
    pub(crate) fn entities(config: &Config) -> Option<Schema> {
        let specs = config.model.entity_columns();
        if specs.is_empty() {
            return None;
        }
        let names: Vec<&str> = specs.iter().map(|m| m.name).collect();
        let mut columns = Schema::lead(config, &names, true);
        columns.extend(specs.iter().enumerate().map(|(i, m)| Column {
            name: m.name.to_string(),
            source: ColumnSource::EntityColumn(i),
            ty: m.ty,
        }));
        Some(Schema { columns })
    }

    /// The columns, in file order.
    pub(crate) fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The headers, in file order.
    pub(crate) fn names(&self) -> Vec<&str> {
        self.columns.iter().map(|c| c.name.as_str()).collect()
    }

    /// The column holding `source`.
    pub(crate) fn id(&self, source: ColumnSource) -> Option<ColumnId> {
        self.columns
            .iter()
            .position(|c| c.source == source)
            .map(ColumnId)
    }

    /// The column called `name`.
    pub(crate) fn find(&self, name: &str) -> Option<ColumnId> {
        self.columns
            .iter()
            .position(|c| c.name == name)
            .map(ColumnId)
    }

    /// The column at `id`.
    pub(crate) fn column(&self, id: ColumnId) -> &Column {
        &self.columns[id.0]
    }
}

/// The swept parameters in declared order, then the swept vars: the order of their columns
/// (the sweep's own order, first key slowest, decides the points).
pub(crate) fn swept_in_column_order(
    config: &Config,
) -> impl Iterator<Item = (usize, &crate::config::Axis)> {
    let n = config.model.params().len();
    let params = config
        .axes
        .iter()
        .enumerate()
        .filter(move |(_, a)| a.param < n);
    let vars = config
        .axes
        .iter()
        .enumerate()
        .filter(move |(_, a)| a.param >= n);
    params.chain(vars)
}

/// One row: a cell per column of its table's schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Row(Vec<Cell>);

impl Row {
    /// A row of these cells, in schema order.
    pub(crate) fn new(cells: Vec<Cell>) -> Row {
        Row(cells)
    }

    /// The cells, in schema order.
    pub(crate) fn cells(&self) -> &[Cell] {
        &self.0
    }
}

impl Index<ColumnId> for Row {
    type Output = Cell;
    fn index(&self, id: ColumnId) -> &Cell {
        &self.0[id.0]
    }
}

/// A typed table: a schema and its rows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// The columns.
    pub(crate) schema: Schema,
    /// Rows, each with one cell per column.
    pub rows: Vec<Row>,
}

impl Table {
    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<ColumnId> {
        self.schema.find(name)
    }

    /// The sweep point of a row (results and entity rows always have one).
    pub fn point(&self, row: &Row) -> usize {
        self.count(row, ColumnSource::Point) as usize
    }

    /// The replication of a row.
    pub(crate) fn replication(&self, row: &Row) -> u64 {
        self.count(row, ColumnSource::Replication)
    }

    fn count(&self, row: &Row, source: ColumnSource) -> u64 {
        match self.schema.id(source).map(|id| &row[id]) {
            Some(Cell::Count(n)) => *n,
            _ => u64::MAX,
        }
    }
}

/// Everything one config's run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    /// `results.csv`: point, swept params, replication, seed, metrics.
    pub results: Table,
    /// `entities.csv` (models with entity rows).
    pub entities: Option<Table>,
    /// Timeline lanes of each point's first replication (only when a chart draws them).
    pub lanes: Vec<(usize, coordsim_model::Lanes)>,
    /// Per-request samples of each point, pooled over replications (only when a chart
    /// draws their distribution).
    pub distributions: Vec<crate::results::Pooled>,
}

/// The cells of a row's lead columns (as `schema` has them), for a run of `point`.
pub(crate) fn lead_cells(
    schema: &Schema,
    config: &Config,
    point: usize,
    replication: u64,
    seed: u64,
    entity: Option<&str>,
) -> Vec<Cell> {
    let coords = config.coordinates(point);
    let mut cells = Vec::with_capacity(schema.columns().len());
    for column in schema.columns() {
        match column.source {
            ColumnSource::Point => cells.push(Cell::Count(point as u64)),
            ColumnSource::Axis(i) => {
                let axis = &config.axes[i];
                cells.push(value_cell(&axis.values[coords[i]]));
            }
            ColumnSource::Replication => cells.push(Cell::Count(replication)),
            ColumnSource::Seed => cells.push(Cell::Count(seed)),
            ColumnSource::Entity => cells.push(Cell::Text(entity.unwrap_or("").to_string())),
            _ => break,
        }
    }
    cells
}

/// The cells of `schema`'s parameter columns ([`ColumnSource::Param`]) at `point`, in order:
/// they follow the metrics.
pub(crate) fn param_cells(schema: &Schema, config: &Config, point: usize) -> Vec<Cell> {
    let params: Vec<usize> = schema
        .columns()
        .iter()
        .filter_map(|c| match c.source {
            ColumnSource::Param(i) => Some(i),
            _ => None,
        })
        .collect();
    if params.is_empty() {
        return Vec::new();
    }
    let values = config.point_values(point);
    params.iter().map(|i| value_cell(&values[*i])).collect()
}

/// A cell as a number (`None` when empty or text).
pub fn number(cell: &Cell) -> Option<f64> {
    cell.as_f64()
}

/// Whether the column (or parameter) `name` holds whole numbers: a count or flag column of
/// `table`, or a count parameter. Tables keep them without decimals, charts tick them at
/// whole numbers.
pub(crate) fn whole_numbers(config: &Config, table: &Table, name: &str) -> bool {
    table.column(name).is_some_and(|c| {
        matches!(
            table.schema.column(c).ty,
            ColumnType::Count | ColumnType::Flag
        )
    }) || config
        .key_index(name)
        .and_then(|i| config.model.params().get(i))
        .is_some_and(|p| p.kind == coordsim_model::Kind::Count)
}

/// One point's samples of one distribution, pooled over its replications.
pub(crate) type Pooled = (usize, &'static str, Vec<f64>);

pub(crate) use crate::config::MAX_POOLED_SAMPLES;
