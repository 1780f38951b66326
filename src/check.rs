//! Evaluating claims against a run's rows.

use coordsim_model::Value;

use crate::config::{Claim, Config, Expect, Test, Var, matches_filter};
use crate::results::{ColumnId, ColumnSource, Results, Row, number};

/// One claim's verdict: its worst evaluation.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// Passed on every row it matched.
    pub pass: bool,
    /// The line `check` prints.
    pub line: String,
}

/// One evaluation of a claim on one row.
struct Eval {
    actual: Option<f64>,
    /// The cell, for a text claim.
    text: Option<String>,
    expected: Option<f64>,
    /// How far outside the test it is (≤ 0 inside); larger is worse.
    excess: f64,
    row: String,
}

/// Checks every claim of `config` on `results`; an entity claim naming no entity is an error.
pub fn evaluate(config: &Config, results: &Results) -> anyhow::Result<Vec<Verdict>> {
    let mut verdicts = Vec::new();
    for claim in &config.claims {
        let evals = evaluations(config, results, claim)?;
        let worst = evals
            .into_iter()
            .max_by(|a, b| a.excess.total_cmp(&b.excess))
            .expect("a claim's `where` matches at least one point");
        let pass = worst.excess <= 0.0;
        let show = |x: Option<f64>| x.map_or("empty".to_string(), |v| v.to_string());
        let expected = match &claim.expect {
            Expect::Number(_) => show(worst.expected),
            Expect::Expr(text, _) => format!("{} = {}", text, show(worst.expected)),
            Expect::Text(text) => format!("{text:?}"),
        };
        let test = match (&claim.expect, claim.test) {
            (Expect::Text(_), _) => "exact text".to_string(),
            (_, Test::Tolerance(t)) if t != 0.0 && t < 1e-3 => format!("± {t:e}"),
            (_, Test::Tolerance(t)) => format!("± {t}"),
            (_, Test::Band(lo, hi)) => format!("ratio in [{lo}, {hi}]"),
        };
        let verdict = if pass { "PASS" } else { "FAIL" };
        let actual = match &worst.text {
            Some(t) => format!("{t:?}"),
            None => show(worst.actual),
        };
        let mut line = format!(
            "{verdict} {}: {}: {} = {actual} (expected {expected}, {test})",
            config.source.name, claim.name, claim.metric,
        );
        if !pass {
            line.push_str(&format!(" at {}", worst.row));
        }
        verdicts.push(Verdict { pass, line });
    }
    Ok(verdicts)
}

fn evaluations(config: &Config, results: &Results, claim: &Claim) -> anyhow::Result<Vec<Eval>> {
    let table = &results.results;
    let metric_ids: Vec<Option<ColumnId>> = (0..config.model.metrics().len())
        .map(|i| table.schema.id(ColumnSource::Metric(i)))
        .collect();
    let mut point_values: Option<(usize, Vec<Value>)> = None;
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
        let where_text = format!("point {point}, replication {replication}");
        match &claim.entity {
            None => {
                let entity_col = |_: usize| None;
                let text = |v: Var| match v {
                    Var::Metric(i) => metric_cell(i).map_or(String::new(), ToString::to_string),
                    _ => String::new(),
                };
                evals.push(eval(claim, values, &metric, &entity_col, &text, where_text));
            }
            Some((name, span)) => {
                let Some(entities) = results.entities.as_ref() else {
                    return Err(config
                        .source
                        .error(span, "this run kept no entity rows")
                        .into());
                };
                let name_id = entities.schema.id(ColumnSource::Entity);
                let is_named = |e: &Row| name_id.is_some_and(|id| e[id].to_string() == *name);
                let found = entities.rows.iter().find(|e| {
                    entities.point(e) == point
                        && entities.replication(e) == replication
                        && is_named(e)
                });
                let Some(entity_row) = found else {
                    let names: Vec<String> = entities
                        .rows
                        .iter()
                        .filter(|e| {
                            entities.point(e) == point && entities.replication(e) == replication
                        })
                        .filter_map(|e| name_id.map(|id| e[id].to_string()))
                        .collect();
                    return Err(config
                        .source
                        .error(
                            span,
                            format!(
                                "no entity `{name}` at point {point}; entities: {}",
                                names.join(", ")
                            ),
                        )
                        .into());
                };
                let entity_cell = |i: usize| {
                    entities
                        .schema
                        .id(ColumnSource::EntityColumn(i))
                        .map(|id| &entity_row[id])
                };
                let entity_col = |i: usize| entity_cell(i).and_then(number);
                let text = |v: Var| match v {
                    Var::Metric(i) => metric_cell(i).map_or(String::new(), ToString::to_string),
                    Var::Entity(i) => entity_cell(i).map_or(String::new(), ToString::to_string),
                    Var::Param(_) => String::new(),
                };
                evals.push(eval(claim, values, &metric, &entity_col, &text, where_text));
            }
        }
    }
    Ok(evals)
}

fn eval(
    claim: &Claim,
    params: &[Value],
    metric: &impl Fn(usize) -> Option<f64>,
    entity: &impl Fn(usize) -> Option<f64>,
    text: &impl Fn(Var) -> String,
    row: String,
) -> Eval {
    if let Expect::Text(want) = &claim.expect {
        let got = text(claim.target);
        let excess = if got == *want { 0.0 } else { f64::INFINITY };
        return Eval {
            actual: None,
            text: Some(got),
            expected: None,
            excess,
            row,
        };
    }
    let get = |v: Var| match v {
        Var::Param(i) => params[i].as_f64(),
        Var::Metric(i) => metric(i),
        Var::Entity(i) => entity(i),
    };
    let actual = get(claim.target);
    let expected = match &claim.expect {
        Expect::Number(x) => Some(*x),
        Expect::Expr(_, e) => e.eval(&get),
        Expect::Text(_) => None,
    };
    let excess = match (actual, expected) {
        (Some(a), Some(e)) => match claim.test {
            Test::Tolerance(t) => {
                let d = (a - e).abs();
                if d.is_nan() { f64::INFINITY } else { d - t }
            }
            Test::Band(lo, hi) => {
                let ratio = a / e;
                if ratio.is_nan() {
                    f64::INFINITY
                } else {
                    (lo - ratio).max(ratio - hi)
                }
            }
        },
        // An empty cell never satisfies a claim.
        _ => f64::INFINITY,
    };
    Eval {
        actual,
        text: None,
        expected,
        excess,
        row,
    }
}
