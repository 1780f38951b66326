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
pub(crate) fn t975(df: u64) -> f64 {
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

/// The regularized incomplete beta function I_x(a, b), by its continued fraction (modified
/// Lentz), on the side of x where it converges fast.
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - incomplete_beta(1.0 - x, b, a);
    }
    let tiny = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    if d.abs() < tiny {
        d = tiny;
    }
    d = 1.0 / d;
    let mut f = d;
    for m in 1..500 {
        let m = m as f64;
        for num in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + num * d;
            if d.abs() < tiny {
                d = tiny;
            }
            c = 1.0 + num / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            f *= c * d;
        }
        if (c * d - 1.0).abs() < 1e-15 {
            break;
        }
    }
    ln_front.exp() * f / a
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms: 15 digits).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection.
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        sum += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// P(T ≤ t) for Student's t with `df` degrees of freedom.
fn t_cdf(t: f64, df: f64) -> f64 {
    let tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
    if t >= 0.0 { 1.0 - tail } else { tail }
}

/// The `p` quantile of Student's t with `df` degrees of freedom (0.5 < p < 1), by bisection
/// on its distribution function: t(0.975, df) for a 95% interval, t(0.9995, df) for 99.9%.
pub(crate) fn t_quantile(p: f64, df: u64) -> f64 {
    if df == 0 || !(0.5..1.0).contains(&p) {
        return f64::NAN;
    }
    let df = df as f64;
    let (mut lo, mut hi) = (0.0, 1.0);
    while t_cdf(hi, df) < p {
        hi *= 2.0;
        if hi > 1e12 {
            return f64::INFINITY;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// The Student t interval of the mean of `values` at `confidence` (0.95 for 95%).
pub(crate) fn interval(values: &[f64], confidence: f64) -> Option<(f64, f64)> {
    let d = describe(values)?;
    let sd = d.sd?;
    let n = values.len() as f64;
    let df = values.len() as u64 - 1;
    // 95% as summary.csv computes it, to the last digit.
    let t = if confidence == 0.95 {
        t975(df)
    } else {
        t_quantile(0.5 + confidence / 2.0, df)
    };
    let half = t * sd / n.sqrt();
    Some((d.mean - half, d.mean + half))
}

/// Mean, sample standard deviation and 95% interval of some values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stats {
    /// Mean.
    pub(crate) mean: f64,
    /// Sample standard deviation (n − 1); needs two values.
    pub(crate) sd: Option<f64>,
    /// Student t 95% interval of the mean; needs two values.
    pub(crate) ci95: Option<(f64, f64)>,
}

/// The [`Stats`] of `values` (`None` when there are none).
pub(crate) fn describe(values: &[f64]) -> Option<Stats> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    // A constant column is its value, with no spread: summing n copies of 83.333… and
    // dividing would leave float noise in the mean and an sd of 1e-14.
    let constant = values.iter().all(|v| v.to_bits() == values[0].to_bits());
    let mean = if constant {
        values[0]
    } else {
        values.iter().sum::<f64>() / n
    };
    if values.len() < 2 {
        return Some(Stats {
            mean,
            sd: None,
            ci95: None,
        });
    }
    if constant {
        return Some(Stats {
            mean,
            sd: Some(0.0),
            ci95: Some((mean, mean)),
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
    fn a_constant_column_has_its_value_and_no_spread() {
        // 20 copies of 1000/12: the sum of 20 copies over 20 is not exactly the value in
        // f64, and the sd would come out as float noise.
        let v = vec![1000.0 / 12.0; 20];
        let d = describe(&v).unwrap();
        assert_eq!(d.mean, 1000.0 / 12.0);
        assert_eq!(d.sd, Some(0.0));
        assert_eq!(d.ci95, Some((d.mean, d.mean)));
        // Two values 1 and 3: mean 2, sd √2, half-width t(0.975, 1) × √2 / √2 = 12.706….
        let d = describe(&[1.0, 3.0]).unwrap();
        assert_eq!(d.mean, 2.0);
        assert!((d.sd.unwrap() - 2f64.sqrt()).abs() < 1e-15);
        assert!((d.ci95.unwrap().1 - 2.0 - 12.706_204_736).abs() < 1e-6);
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        assert_eq!(t975(1), 12.706204736);
        // The quantile function agrees with the table, and with published values at other
        // levels: t(0.995, 10) = 3.169273, t(0.9995, 9) = 4.780913, t(0.95, 5) = 2.015048.
        for df in 1..=30 {
            assert!((t_quantile(0.975, df) - t975(df)).abs() < 1e-6, "df {df}");
        }
        assert!((t_quantile(0.995, 10) - 3.169273).abs() < 1e-6);
        assert!((t_quantile(0.9995, 9) - 4.780913).abs() < 1e-6);
        assert!((t_quantile(0.95, 5) - 2.015048).abs() < 1e-6);
        // Published t(0.975, 40) = 2.021075, t(0.975, 120) = 1.979930.
        assert!((t975(40) - 2.021075).abs() < 2e-5);
        assert!((t975(120) - 1.979930).abs() < 1e-5);
        // The first df past the table (published t(0.975, 31) = 2.039513).
        assert!((t975(31) - 2.039513).abs() < 1e-5);
    }

    #[test]
    fn a_sample_has_its_mean_sd_and_t_interval_and_one_value_has_no_spread() {
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
