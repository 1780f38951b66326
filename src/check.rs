//! Evaluating claims against a run's rows.

use coordsim_model::Value;

use crate::config::{Claim, Config, Expect, Test, Var, matches_filter};
use crate::results::{Results, number};

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
    let lead = Results::lead(config);
    let mut point_values: Option<(usize, Vec<Value>)> = None;
    let mut evals = Vec::new();
    for row in &results.results.rows {
        let point: usize = row[0].parse()?;
        if point_values.as_ref().is_none_or(|(p, _)| *p != point) {
            point_values = Some((point, config.point_values(point)));
        }
        let values = &point_values.as_ref().expect("set above").1;
        if !matches_filter(values, &claim.filter) {
            continue;
        }
        let metric = |i: usize| number(&row[lead + i]);
        let where_text = format!("point {point}, replication {}", row[lead - 2]);
        match &claim.entity {
            None => {
                let entity_col = |_: usize| None;
                let text = |v: Var| match v {
                    Var::Metric(i) => row[lead + i].clone(),
                    _ => String::new(),
                };
                evals.push(eval(claim, values, &metric, &entity_col, &text, where_text));
            }
            Some((name, span)) => {
                let table = results
                    .entities
                    .as_ref()
                    .expect("entity claims need entity rows");
                let found = table
                    .rows
                    .iter()
                    .find(|e| e[0] == row[0] && e[lead - 2] == row[lead - 2] && e[lead] == *name);
                let Some(entity_row) = found else {
                    let names: Vec<&str> = table
                        .rows
                        .iter()
                        .filter(|e| e[0] == row[0])
                        .map(|e| e[lead].as_str())
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
                let entity_col = |i: usize| number(&entity_row[lead + 1 + i]);
                let text = |v: Var| match v {
                    Var::Metric(i) => row[lead + i].clone(),
                    Var::Entity(i) => entity_row[lead + 1 + i].clone(),
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
