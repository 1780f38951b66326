//! Claims over runs: each row a claim matches (or, with `stat`, each point's
//! replications) judged, the worst deciding.

use coordsim_model::Value;

use crate::config::{Claim, Config, Expect, Stat, Test, Var, matches_filter};
use crate::results::{ColumnId, ColumnSource, Results, number};

use super::entity_index::{EntityIndex, missing_entity};
use super::judge::{Eval, judge};
use super::verdict::describe;

/// One matched row's values: what the claim reads and what it expects there.
pub(super) struct Sample {
    pub(super) point: usize,
    pub(super) replication: u64,
    pub(super) actual: Option<f64>,
    /// The cell, for a text claim.
    pub(super) text: Option<String>,
    pub(super) expected: Option<f64>,
}

/// Every evaluation of `claim` on `results`.
pub(super) fn claim_evals(
    config: &Config,
    results: &Results,
    claim: &Claim,
) -> anyhow::Result<Vec<Eval>> {
    let samples = evaluations(config, results, claim)?;
    Ok(judge_all(config, claim, samples))
}

/// What each claim reads, evaluation by evaluation (row, or point with `stat`): the row it
/// names and the value (or text) it found. Two runs agree on a claim when these are equal.
pub(crate) fn claim_values(
    config: &Config,
    results: &Results,
) -> anyhow::Result<Vec<Vec<(String, String)>>> {
    config
        .claims
        .iter()
        .filter(|claim| claim.over.is_none())
        .map(|claim| {
            Ok(claim_evals(config, results, claim)?
                .into_iter()
                .map(|e| {
                    let value = match (e.text, e.actual) {
                        (Some(t), _) => format!("{t:?}"),
                        (None, Some(x)) => x.to_string(),
                        (None, None) => "empty".to_string(),
                    };
                    (e.row, value)
                })
                .collect())
        })
        .collect()
}

/// Every evaluation of a claim: one per row, or with `stat` one per point.
fn judge_all(config: &Config, claim: &Claim, samples: Vec<Sample>) -> Vec<Eval> {
    let Some(stat) = claim.stat else {
        return samples
            .into_iter()
            .map(|s| {
                let row = describe(config, s.point, Some(s.replication));
                judge(claim, s.actual, s.text, s.expected, None, row)
            })
            .collect();
    };
    // Rows come in point order: each point's replications together.
    let mut evals = Vec::new();
    for group in samples.chunk_by(|a, b| a.point == b.point) {
        let actuals: Option<Vec<f64>> = group.iter().map(|s| s.actual).collect();
        let expecteds: Option<Vec<f64>> = group.iter().map(|s| s.expected).collect();
        let actual = actuals.as_ref().map(|v| match stat {
            Stat::Mean => v.iter().sum::<f64>() / v.len() as f64,
            Stat::Min => v.iter().copied().fold(f64::INFINITY, f64::min),
            Stat::Max => v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            // Refused over runs when a config is read; the nearest rank, were it asked.
            Stat::Quantile(p) => {
                let mut sorted = v.clone();
                sorted.sort_by(f64::total_cmp);
                let rank = (p.fraction() * sorted.len() as f64).ceil() as usize;
                sorted[rank.clamp(1, sorted.len()) - 1]
            }
        });
        // The expectation is averaged too (the same when it depends on parameters only).
        let expected = expecteds.map(|v| v.iter().sum::<f64>() / v.len() as f64);
        let confidence = match claim.test {
            Test::WithinCi(c) => c,
            _ => 0.95,
        };
        let ci = actuals
            .as_deref()
            .and_then(|v| crate::summary::interval(v, confidence));
        let mut row = describe(config, group[0].point, None);
        let n = group.len();
        let replications = if n == 1 {
            "1 replication".to_string()
        } else {
            format!("{n} replications")
        };
        row = if row.is_empty() {
            replications
        } else {
            format!("{row} ({replications})")
        };
        evals.push(judge(claim, actual, None, expected, ci, row));
    }
    evals
}

fn evaluations(config: &Config, results: &Results, claim: &Claim) -> anyhow::Result<Vec<Sample>> {
    let table = &results.results;
    let metric_ids: Vec<Option<ColumnId>> = (0..config.model.metrics().len())
        .map(|i| table.schema.id(ColumnSource::Metric(i)))
        .collect();
    let mut point_values: Option<(usize, Vec<Value>)> = None;
    // An entity claim's rows, indexed by run on the first row that needs one.
    let mut index: Option<EntityIndex<'_>> = None;
    let mut evals = Vec::new();
    for row in &table.rows {
        let point = table.point(row);
        let replication = table.replication(row);
        if point_values.as_ref().is_none_or(|(p, _)| *p != point) {
            point_values = Some((point, config.point_values(point)));
        }
        let values = &point_values.as_ref().expect("set above").1;
        if !matches_filter(values, &claim.filter) {
            continue;
        }
        let metric_cell = |i: usize| metric_ids[i].map(|id| &row[id]);
        let metric = |i: usize| metric_cell(i).and_then(number);
        // An entity claim reads its entity's row of the same run as well.
        let entity_row = match &claim.entity {
            None => None,
            Some((name, span)) => {
                let index = match &mut index {
                    Some(index) => index,
                    None => index.insert(EntityIndex::new(config, results, name, span)?),
                };
                match index.get(point, replication) {
                    Some(row) => Some(row),
                    None => {
                        return Err(missing_entity(
                            config,
                            index.table,
                            point,
                            replication,
                            name,
                            span,
                        ));
                    }
                }
            }
        };
        let entities = results.entities.as_ref();
        let entity_cell = |i: usize| {
            let (table, row) = (entities?, entity_row?);
            table
                .schema
                .id(ColumnSource::EntityColumn(i))
                .map(|id| &row[id])
        };
        let entity_col = |i: usize| entity_cell(i).and_then(number);
        let text = |v: Var| {
            let cell = match v {
                Var::Metric(i) => metric_cell(i),
                Var::Entity(i) => entity_cell(i),
                Var::Param(_) | Var::X => None,
            };
            cell.map_or(String::new(), ToString::to_string)
        };
        evals.push(sample(
            claim,
            values,
            &metric,
            &entity_col,
            &text,
            point,
            replication,
        ));
    }
    Ok(evals)
}

/// What a claim reads and expects at one row.
#[allow(clippy::too_many_arguments)]
pub(super) fn sample(
    claim: &Claim,
    params: &[Value],
    metric: &impl Fn(usize) -> Option<f64>,
    entity: &impl Fn(usize) -> Option<f64>,
    text: &impl Fn(Var) -> String,
    point: usize,
    replication: u64,
) -> Sample {
    if let Expect::Text(_) = &claim.expect {
        return Sample {
            point,
            replication,
            actual: None,
            text: Some(text(claim.target)),
            expected: None,
        };
    }
    let get = |v: Var| match v {
        Var::Param(i) => params[i].as_f64(),
        Var::Metric(i) => metric(i),
        Var::Entity(i) => entity(i),
        // Only a chart's curve has an x.
        Var::X => None,
    };
    Sample {
        point,
        replication,
        actual: get(claim.target),
        text: None,
        expected: match &claim.expect {
            Expect::Number(x) => Some(*x),
            Expect::Expr(_, e) => e.eval(&get),
            Expect::Text(_) => None,
        },
    }
}
