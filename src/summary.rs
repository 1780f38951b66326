//! `summary.csv`: per point, the mean, sample standard deviation and Student-t 95% interval of
//! every numeric metric over the replications.

use crate::config::Config;
use coordsim_model::{Cell, ColumnType};

use crate::results::{
    Column, ColumnId, ColumnSource, Results, Row, Schema, Stat, Table, lead_cells, number,
};

/// Two-sided 95% Student t quantiles t(0.975, df) for df = 1…30 (standard tables).
const T975: [f64; 30] = [
    12.706204736,
    4.302652730,
    3.182446305,
    2.776445105,
    2.570581836,
    2.446911851,
    2.364624252,
    2.306004135,
    2.262157163,
    2.228138852,
    2.200985160,
    2.178812830,
    2.160368656,
    2.144786688,
    2.131449546,
    2.119905299,
    2.109815578,
    2.100922040,
    2.093024054,
    2.085963447,
    2.079613845,
    2.073873068,
    2.068657610,
    2.063898562,
    2.059538553,
    2.055529439,
    2.051830516,
    2.048407142,
    2.045229642,
    2.042272456,
];

/// t(0.975, df): the table up to 30, then the Cornish–Fisher expansion around the normal
/// quantile, which is within 1e-5 of the exact value from df = 30 on.
pub fn t975(df: u64) -> f64 {
    if df == 0 {
        return f64::NAN;
    }
    if df <= 30 {
        return T975[df as usize - 1];
    }
    let z: f64 = 1.959963984540054;
    let n = df as f64;
    let (z3, z5, z7) = (z.powi(3), z.powi(5), z.powi(7));
    z + (z3 + z) / (4.0 * n)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * n * n)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * n * n * n)
}

/// Mean, sample standard deviation and 95% interval of some values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1); needs two values.
    pub sd: Option<f64>,
    /// Student t 95% interval of the mean; needs two values.
    pub ci95: Option<(f64, f64)>,
}

/// The [`Stats`] of `values` (`None` when there are none).
pub fn describe(values: &[f64]) -> Option<Stats> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return Some(Stats {
            mean,
            sd: None,
            ci95: None,
        });
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let sd = var.sqrt();
    let half = t975(values.len() as u64 - 1) * sd / n.sqrt();
    Some(Stats {
        mean,
        sd: Some(sd),
        ci95: Some((mean - half, mean + half)),
    })
}

/// The summary table of a run with replications (rows grouped by point, as the runner emits).
pub fn summarize(config: &Config, results: &Results) -> Table {
    let table = &results.results;
    let metrics: Vec<(usize, &str, ColumnId)> = config
        .model
        .metrics()
        .iter()
        .enumerate()
        .filter(|(_, m)| m.numeric())
        .filter_map(|(i, m)| Some((i, m.name, table.schema.id(ColumnSource::Metric(i))?)))
        .collect();
    let text = |name: String, source| Column {
        name,
        source,
        ty: ColumnType::Text,
    };
    let mut columns = vec![Column {
        name: "point".into(),
        source: ColumnSource::Point,
        ty: ColumnType::Count,
    }];
    columns.extend(
        crate::results::swept_in_column_order(config)
            .map(|(i, a)| text(a.key.to_string(), ColumnSource::Axis(i))),
    );
    columns.push(Column {
        name: "replications".into(),
        source: ColumnSource::Replications,
        ty: ColumnType::Count,
    });
    for (i, name, _) in &metrics {
        for stat in Stat::ALL {
            columns.push(Column {
                name: format!("{name}_{}", stat.suffix()),
                source: ColumnSource::Stat(*i, stat),
                ty: ColumnType::Float,
            });
        }
    }
    let schema = Schema::new(columns);
    let mut rows = Vec::new();
    for group in table.rows.chunk_by(|a, b| table.point(a) == table.point(b)) {
        let point = table.point(&group[0]);
        let mut row = lead_cells(&schema, config, point, 0, 0, None);
        row.push(Cell::Count(group.len() as u64));
        for (_, _, id) in &metrics {
            let values: Vec<f64> = group.iter().filter_map(|r| number(&r[*id])).collect();
            let cell = |x: Option<f64>| x.map_or(Cell::Empty, Cell::Float);
            match describe(&values) {
                None => row.extend(std::iter::repeat_n(Cell::Empty, 4)),
                Some(stats) => {
                    row.push(Cell::Float(stats.mean));
                    row.push(cell(stats.sd));
                    row.push(cell(stats.ci95.map(|c| c.0)));
                    row.push(cell(stats.ci95.map(|c| c.1)));
                }
            }
        }
        rows.push(Row::new(row));
    }
    Table { schema, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        assert_eq!(t975(1), 12.706204736);
        // Published t(0.975, 40) = 2.021075, t(0.975, 120) = 1.979930.
        assert!((t975(40) - 2.021075).abs() < 2e-5);
        assert!((t975(120) - 1.979930).abs() < 1e-5);
        // The first df past the table (published t(0.975, 31) = 2.039513).
        assert!((t975(31) - 2.039513).abs() < 1e-5);
    }

    #[test]
    fn describe_by_hand() {
        // 2, 4, 6: mean 4, sd sqrt(((−2)² + 0 + 2²) / 2) = 2, half width t(2) × 2 / sqrt(3).
        let stats = describe(&[2.0, 4.0, 6.0]).unwrap();
        assert_eq!(stats.mean, 4.0);
        assert_eq!(stats.sd, Some(2.0));
        let half = 4.302652730 * 2.0 / 3f64.sqrt();
        let (lo, hi) = stats.ci95.unwrap();
        assert!((lo - (4.0 - half)).abs() < 1e-12 && (hi - (4.0 + half)).abs() < 1e-12);
        assert_eq!(
            describe(&[5.0]),
            Some(Stats {
                mean: 5.0,
                sd: None,
                ci95: None
            })
        );
        assert_eq!(describe(&[]), None);
    }
}
