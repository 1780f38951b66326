//! The execution a claim over schedulers shows (`scheduler = "min"` / `"max"`): what the
//! exploration is asked for once its outcomes are known ([`asks`]); `check::shown` finds
//! the answer among the exploration's.
//!
//! The scheduler shown is one that attains the end the claim states (the least or the
//! greatest probability, mean or percentile over every scheduler): the one its verdict
//! rests on, whether it passes or fails. Its execution is the most likely one under it
//! that ends where the claim looks: for a probability, an outcome that meets the test
//! (or, when that end is 0 and none does, its most likely execution of all); for a mean,
//! any outcome; for a percentile q, an outcome whose value is q.

use coordsim_model::Cell;
use coordsim_model::explore::{PathAsk, Schedulers};

use crate::config::claims::PROBABILITY_TOLERANCE;
use crate::config::{Config, Scheduler, Stat, matches_filter};

use super::judge::judge;

/// What point `point` of `config` asks its exploration to show, given each outcome's
/// `metrics` and the schedulers' `graph`: one [`PathAsk`] per claim over schedulers that
/// matches the point (tagged with the claim's place), as the module says. A mean or a
/// percentile whose value is unknown (an outcome without it, probability past the fault
/// budget) asks for none: its claim fails with that reason, and no execution stands for it.
pub(crate) fn asks(
    config: &Config,
    point: usize,
    metrics: &[Vec<Cell>],
    graph: &Schedulers,
) -> Vec<PathAsk> {
    let params = config.point_values(point);
    let every = vec![true; metrics.len()];
    let mut asks = Vec::new();
    for (c, claim) in config.claims.iter().enumerate() {
        let (Some(scheduler), Some(_)) = (claim.scheduler, claim.over) else {
            continue;
        };
        if !matches_filter(&params, &claim.filter) {
            continue;
        }
        let least = scheduler == Scheduler::Min;
        let sample =
            |m: &Vec<Cell>| super::executions::metrics_sample(claim, &params, point, Some(m));
        let ask = |worth: Vec<f64>, least: bool, into: Vec<bool>| PathAsk {
            tag: c as u32,
            worth,
            least,
            into,
        };
        if claim.probability.is_some() {
            let meets: Vec<bool> = metrics
                .iter()
                .map(|m| {
                    let s = sample(m);
                    judge(claim, s.actual, None, s.expected, None, String::new()).excess <= 0.0
                })
                .collect();
            let end = graph.extreme(&|k| meets[k], least);
            let worth = indicator(&meets);
            // No execution meets the test under that scheduler: its likeliest of all.
            let into = if end > 0.0 { meets } else { every.clone() };
            asks.push(ask(worth, least, into));
            continue;
        }
        let Some(stat) = claim.stat.filter(|s| s.weighted()) else {
            continue;
        };
        let Some(values) = metrics
            .iter()
            .map(|m| sample(m).actual)
            .collect::<Option<Vec<f64>>>()
        else {
            continue;
        };
        if graph.extreme(&|_| true, true) < 1.0 - PROBABILITY_TOLERANCE {
            continue;
        }
        match stat {
            Stat::Quantile(p) => {
                let Some(q) =
                    graph.extreme_quantile(&values, p.fraction(), PROBABILITY_TOLERANCE, least)
                else {
                    continue;
                };
                // The least percentile q is the one of a scheduler with the greatest
                // P(value ≤ q); the greatest, of one with the least P(value < q) (see
                // `Schedulers::extreme_quantile`). Its executions ending at q have some
                // probability (at least the level less what lies below q).
                let below: Vec<bool> = values
                    .iter()
                    .map(|v| if least { *v <= q } else { *v < q })
                    .collect();
                let at_q = values.iter().map(|v| *v == q).collect();
                asks.push(ask(indicator(&below), !least, at_q));
            }
            _ => asks.push(ask(values, least, every.clone())),
        }
    }
    asks
}

/// 1 where `set` holds, 0 where not.
fn indicator(set: &[bool]) -> Vec<f64> {
    set.iter().map(|&b| f64::from(u8::from(b))).collect()
}

/// [`asks`] for every point of `config`, as the explorer takes it
/// ([`PointAsks`](crate::runner::explore::PointAsks)).
pub(crate) fn asks_of(
    config: &Config,
) -> impl Fn(usize, &[Vec<Cell>], &Schedulers) -> Vec<PathAsk> + Sync + '_ {
    move |point, metrics, graph| asks(config, point, metrics, graph)
}
