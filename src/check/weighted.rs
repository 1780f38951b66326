//! A mean or a percentile of a metric over executions (`stat = "mean"`, `"p99"` with
//! `over = "executions"`), each execution weighted by its exact probability; where some
//! order is free, its least or greatest over every scheduler (`scheduler = "min"` /
//! `"max"`), by one pass back over the graph of entries per end.

use coordsim_model::Exploration;
use coordsim_model::explore::{Schedulers, least_index};

use crate::config::claims::PROBABILITY_TOLERANCE;
use crate::config::{Scheduler, Stat};

/// A point's weighted statistic: the value the claim reads, its interval over schedulers
/// (both ends equal where no order is free), or why neither is known.
pub(crate) struct Weighted {
    /// The value claimed: the statistic, or with `scheduler` the end it names.
    pub(crate) actual: Option<f64>,
    /// The least and the greatest over every scheduler, when the claim names one.
    pub(crate) ends: Option<(f64, f64)>,
    /// Why the value is not known (`None`: it is).
    pub(crate) reason: Option<&'static str>,
}

impl Weighted {
    fn unknown(reason: &'static str) -> Weighted {
        Weighted {
            actual: None,
            ends: None,
            reason: Some(reason),
        }
    }
}

/// `stat` (a mean or a percentile) of a metric over the executions of `e`, whose outcome
/// `k` ends with the metric at `values[k]`; with `scheduler`, its interval over schedulers
/// and the end named.
///
/// Refused (a reason, no value): a bounded exploration (not every execution's probability
/// is known); a free order without a `scheduler` (executions have no probability); an
/// outcome whose metric is empty (its executions have no value to weigh: the statistic
/// is not renormalised over the others); executions past the fault budget carrying some of
/// the probability (their values are unknown); a split's merge with a `scheduler` (it
/// keeps no graph).
pub(crate) fn weighted(
    e: &Exploration,
    scheduler: Option<Scheduler>,
    stat: Stat,
    values: &[Option<f64>],
) -> Weighted {
    if e.bounded.is_some() {
        return Weighted::unknown(
            "the exploration was bounded: not every execution's probability is known",
        );
    }
    if e.ordered && scheduler.is_none() {
        return Weighted::unknown(
            "some instant left events in a free order: executions have no probability (give the claim `scheduler = \"min\"` or `\"max\"`, or the scenario no tie)",
        );
    }
    let Some(values) = values.iter().copied().collect::<Option<Vec<f64>>>() else {
        return Weighted::unknown(
            "some execution ends with the metric empty: a mean or a percentile over executions needs every execution's value",
        );
    };
    if values.is_empty() {
        return Weighted::unknown("no execution ended");
    }
    let ends = if e.ordered {
        let Some(graph) = &e.schedulers else {
            return Weighted::unknown(
                "an exploration split into shards keeps no graph for its schedulers: explore it whole",
            );
        };
        if graph.extreme(&|_| true, true) < 1.0 - PROBABILITY_TOLERANCE {
            return Weighted::unknown(PAST_BUDGET);
        }
        over_schedulers(graph, stat, &values)
    } else {
        let Some(probabilities) = e
            .outcomes
            .iter()
            .map(|o| o.probability)
            .collect::<Option<Vec<f64>>>()
        else {
            return Weighted::unknown("some outcome has no probability");
        };
        if probabilities.iter().sum::<f64>() < 1.0 - PROBABILITY_TOLERANCE {
            return Weighted::unknown(PAST_BUDGET);
        }
        let x = of_distribution(stat, &values, &probabilities);
        (x, x)
    };
    let actual = match scheduler {
        None | Some(Scheduler::Min) => ends.0,
        Some(Scheduler::Max) => ends.1,
    };
    Weighted {
        actual: Some(actual),
        ends: scheduler.map(|_| ends),
        reason: None,
    }
}

/// Why a statistic is unknown when executions with more faults than the budget carry some
/// of the probability.
const PAST_BUDGET: &str = "executions with more faults than the budget (`--max-faults`) carry some of the probability, and their values are unknown: raise the budget";

/// The mean, or the `p`-th percentile, of the distribution giving `values[k]` probability
/// `probabilities[k]` (which add up to 1): the percentile is the least value that
/// executions of at least `p` of the probability end at or below (the nearest rank), a
/// share within [`PROBABILITY_TOLERANCE`] of `p` counting as reaching it (a sum of
/// probabilities meant to be exactly `p` may miss it by its rounding).
fn of_distribution(stat: Stat, values: &[f64], probabilities: &[f64]) -> f64 {
    match stat {
        Stat::Quantile(p) => {
            let mut distinct = values.to_vec();
            distinct.sort_by(f64::total_cmp);
            distinct.dedup();
            let reaches = |i: usize| {
                let share: f64 = (values.iter().zip(probabilities))
                    .filter(|(v, _)| **v <= distinct[i])
                    .map(|(_, p)| p)
                    .sum();
                share >= p.fraction() - PROBABILITY_TOLERANCE
            };
            least_index(distinct.len(), &reaches).map_or(f64::NAN, |i| distinct[i])
        }
        _ => values.iter().zip(probabilities).map(|(v, p)| v * p).sum(),
    }
}

/// The least and the greatest mean, or percentile, over every scheduler of `graph`
/// ([`Schedulers::extreme_mean`], [`Schedulers::extreme_quantile`]).
fn over_schedulers(graph: &Schedulers, stat: Stat, values: &[f64]) -> (f64, f64) {
    match stat {
        Stat::Quantile(p) => {
            let end = |least| {
                graph
                    .extreme_quantile(values, p.fraction(), PROBABILITY_TOLERANCE, least)
                    .unwrap_or(f64::NAN)
            };
            (end(true), end(false))
        }
        _ => {
            let value_of = |k: usize| values[k];
            (
                graph.extreme_mean(&value_of, true),
                graph.extreme_mean(&value_of, false),
            )
        }
    }
}
