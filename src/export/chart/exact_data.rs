//! The data of an `exact_cdf` chart: for each point its `where` keeps, a metric's exact
//! distribution over every execution of the point (explored when the chart is drawn, each
//! execution weighted by its probability; where an order is free, the least and the
//! greatest P(metric ≤ x) over every scheduler), and the runs' empirical distribution of
//! the same metric at the same point.

use coordsim_model::Exploration;

use crate::config::charts::Look;
use crate::config::claims::PROBABILITY_TOLERANCE;
use crate::config::{ChartSpec, Config};
use crate::export::Run;
use crate::locale::{Locale, Text};
use crate::results::number;

/// Most values of the metric at which a band over schedulers is computed: each costs two
/// passes back over the graph of entries. Past it the band is computed at evenly spaced
/// values (the last always) and held between them, and the chart says so.
pub(super) const MAX_BAND_VALUES: usize = 500;

/// P(metric ≤ `x`) at one of the metric's values: its least and greatest over every
/// scheduler (equal where no order is free, or where every scheduler agrees).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ExactStep {
    /// A value some execution ends with.
    pub(super) x: f64,
    /// The least probability over schedulers that the metric ends at or below `x`.
    pub(super) least: f64,
    /// The greatest.
    pub(super) greatest: f64,
}

/// One point's curves.
#[derive(Debug, Clone)]
pub(super) struct PointCdf {
    /// The point's index in the sweep.
    pub(super) point: usize,
    /// Its settings as a legend writes them (`gap (ms) = 1`); empty when the chart draws
    /// one point, or the config sweeps nothing.
    pub(super) named: String,
    /// Its exact steps, in increasing `x`.
    pub(super) steps: Vec<ExactStep>,
    /// Some order was free here: the steps are a band over schedulers.
    pub(super) ordered: bool,
    /// How many distinct values the metric has over the executions (the band may have been
    /// computed at fewer: [`MAX_BAND_VALUES`]).
    pub(super) values: usize,
    /// The runs' values at this point, one per run that has one.
    pub(super) runs: Vec<f64>,
}

impl PointCdf {
    /// Every scheduler gives the same distribution (or there is one scheduler).
    pub(super) fn alike(&self) -> bool {
        self.steps
            .iter()
            .all(|s| (s.greatest - s.least).abs() <= PROBABILITY_TOLERANCE)
    }
}

/// What an `exact_cdf` draws.
#[derive(Debug, Clone)]
pub(crate) struct ExactCdf {
    /// The chart's title.
    pub(crate) title: String,
    /// The x axis title: the metric's label.
    pub(super) x_label: String,
    /// The y axis title.
    pub(super) y_label: String,
    /// Each point's curves, in sweep order.
    pub(super) points: Vec<PointCdf>,
    /// The legend's words: exact, exact alike over schedulers, exact band, simulated.
    pub(super) words: [String; 4],
    /// What it does not draw as computed (a band held between values), one line each.
    pub(super) notes: Vec<String>,
    /// How numbers are written.
    pub(super) locale: Locale,
    /// Its look.
    pub(crate) look: Look,
}

impl ExactCdf {
    /// The chart `spec` of `run`: each point its `where` keeps explored (with the bounds
    /// `check` explores with, the graph of schedulers kept), its metric's exact steps, and
    /// the runs' values there. `Err`: why it cannot be drawn, naming the point.
    pub(crate) fn new(run: &Run<'_>, spec: &ChartSpec) -> Result<ExactCdf, String> {
        let config = run.config;
        let y = spec.y.first().ok_or("it names no metric")?;
        let metric = (config.model.metrics().iter())
            .position(|m| m.name == y.as_str())
            .ok_or_else(|| format!("`{y}` is no metric of the model"))?;
        let points: Vec<usize> = (0..config.points)
            .filter(|p| config.matches(*p, &spec.filter))
            .collect();
        let limits = coordsim_model::ExploreLimits {
            keep_schedulers: true,
            ..crate::runner::explore::default_limits()
        };
        let explored = crate::runner::explore::explore_points(config, run.seed, &limits, &points)
            .map_err(|e| format!("its points could not be explored: {e}"))?;
        let table = &run.results.results;
        let column = table.column(y);
        let mut out = Vec::with_capacity(points.len());
        for (&point, e) in points.iter().zip(&explored) {
            let at = |why: String| match named(config, point).as_str() {
                "" => why,
                named => format!("{why} (at {named})"),
            };
            let values: Vec<Option<f64>> = (e.outcomes.iter())
                .map(|o| o.metrics.get(metric).and_then(number))
                .collect();
            let (steps, count) =
                exact_steps(e, &values).map_err(|why| at(why.replace("{metric}", y)))?;
            let runs: Vec<f64> = (table.rows.iter())
                .filter(|r| table.point(r) == point)
                .filter_map(|r| column.and_then(|c| number(&r[c])))
                .collect();
            out.push(PointCdf {
                point,
                named: if points.len() > 1 {
                    named(config, point)
                } else {
                    String::new()
                },
                steps,
                ordered: e.ordered,
                values: count,
                runs,
            });
        }
        let notes = (out.iter())
            .filter(|p| p.steps.len() < p.values)
            .map(|p| {
                config
                    .text(Text::ExactBandNote)
                    .replace("{drawn}", &config.locale.number(&p.steps.len().to_string()))
                    .replace("{values}", &config.locale.number(&p.values.to_string()))
            })
            .take(1)
            .collect();
        Ok(ExactCdf {
            title: super::data::chart_title(config, spec),
            x_label: (spec.look.x_label.clone()).unwrap_or_else(|| config.label(y).to_string()),
            y_label: (spec.look.y_label.clone())
                .unwrap_or_else(|| config.text(Text::ExactFractionAxis).to_string()),
            points: out,
            words: [
                Text::ExactLegend,
                Text::ExactAlikeLegend,
                Text::ExactBandLegend,
                Text::SimulatedLegend,
            ]
            .map(|t| config.text(t).to_string()),
            notes,
            locale: config.locale,
            look: spec.look.clone(),
        })
    }

    /// Its data as CSV: per point, each exact step (`exact`: P(metric ≤ x), its least and
    /// greatest over schedulers) and each value of the runs' curve (`simulated`: the share
    /// of the point's runs at or below x, both columns alike). Probabilities to 12
    /// decimals, as `explore.md` writes them.
    pub(crate) fn csv(&self) -> anyhow::Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["point", "curve", "x", "least", "greatest"])?;
        let p = probability_text;
        for cdf in &self.points {
            let point = cdf.point.to_string();
            for s in &cdf.steps {
                w.write_record([
                    point.as_str(),
                    "exact",
                    &s.x.to_string(),
                    &p(s.least),
                    &p(s.greatest),
                ])?;
            }
            for (x, share) in shares(&cdf.runs) {
                let share = p(share);
                w.write_record([point.as_str(), "simulated", &x.to_string(), &share, &share])?;
            }
        }
        Ok(w.into_inner()?)
    }
}

/// A probability to 12 decimals, trailing zeros dropped (0.2, not 0.20000000000000004):
/// as `explore.md` writes them.
fn probability_text(p: f64) -> String {
    let text = format!("{p:.12}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The point's settings as a legend writes them: each swept parameter's.
fn named(config: &Config, point: usize) -> String {
    let at = config.point_values(point);
    (config.axes.iter())
        .map(|a| config.setting_text(&a.key, &at[a.param]))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each distinct value of `values` with the share of them at or below it, increasing.
pub(super) fn shares(values: &[f64]) -> Vec<(f64, f64)> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (i, v) in sorted.iter().enumerate() {
        if sorted.get(i + 1) != Some(v) {
            out.push((*v, (i + 1) as f64 / n));
        }
    }
    out
}

/// The exact steps of one explored point whose outcome `k` ends with the metric at
/// `values[k]`: each distinct value, increasing, with P(metric ≤ value) (where no order is
/// free, the sum of the probabilities of the outcomes at or below it; where one is, its
/// least and greatest over every scheduler, [`Schedulers::extreme`] of the set of those
/// outcomes); and how many distinct values there are.
///
/// `Err` (with `{metric}` for the metric's name) when there is no such distribution: a
/// bounded exploration, an outcome with the metric empty, or executions past the fault
/// budget carrying some of the probability (their values unknown; the steps would stop
/// short of 1).
///
/// [`Schedulers::extreme`]: coordsim_model::explore::Schedulers::extreme
pub(super) fn exact_steps(
    e: &Exploration,
    values: &[Option<f64>],
) -> Result<(Vec<ExactStep>, usize), String> {
    if e.cycles {
        return Err(
            "it has a loop without end (`repeat = \"forever\"`): its executions are infinitely many and have no probabilities".into(),
        );
    }
    if let Some(bound) = e.bounded {
        return Err(format!(
            "not every execution's probability is known ({bound})"
        ));
    }
    let Some(values) = values.iter().copied().collect::<Option<Vec<f64>>>() else {
        return Err(
            "some execution ends with `{metric}` empty: an exact distribution needs every execution's value (chart a total or a count, which is 0 where nothing happened)".into(),
        );
    };
    let mut distinct = values.clone();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    let Some(&last) = distinct.last() else {
        return Err("no execution ended".into());
    };
    let past_budget = "executions with more faults than the budget (one per execution, as `check` explores) carry some of the probability, and their values are unknown";
    if !e.ordered {
        let Some(probabilities) = (e.outcomes.iter())
            .map(|o| o.probability)
            .collect::<Option<Vec<f64>>>()
        else {
            return Err("some outcome has no probability".into());
        };
        let mut by_value: Vec<(f64, f64)> = values.iter().copied().zip(probabilities).collect();
        by_value.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut steps: Vec<ExactStep> = Vec::with_capacity(distinct.len());
        let mut sum = 0.0;
        for (i, (x, p)) in by_value.iter().enumerate() {
            sum += p;
            if by_value.get(i + 1).is_none_or(|next| next.0 != *x) {
                steps.push(ExactStep {
                    x: *x,
                    least: sum,
                    greatest: sum,
                });
            }
        }
        if sum < 1.0 - PROBABILITY_TOLERANCE {
            return Err(past_budget.into());
        }
        return Ok((steps, distinct.len()));
    }
    let Some(graph) = &e.schedulers else {
        return Err("its exploration kept no graph of schedulers".into());
    };
    if graph.extreme(&|_| true, true) < 1.0 - PROBABILITY_TOLERANCE {
        return Err(past_budget.into());
    }
    // At most MAX_BAND_VALUES values, evenly spaced by rank, the least and the last always
    // among them.
    let n = distinct.len();
    let kept = n.min(MAX_BAND_VALUES);
    let mut at: Vec<f64> = (1..=kept)
        .map(|k| distinct[(k * n).div_ceil(kept) - 1])
        .collect();
    if at[0] != distinct[0] {
        at.insert(0, distinct[0]);
    }
    debug_assert_eq!(at.last(), Some(&last));
    let mut steps: Vec<ExactStep> = at
        .into_iter()
        .map(|x| {
            let in_set = |k: usize| values.get(k).is_some_and(|v| *v <= x);
            ExactStep {
                x,
                least: graph.extreme(&in_set, true),
                greatest: graph.extreme(&in_set, false),
            }
        })
        .collect();
    if kept < n {
        // Held from one value computed to the next, the band must hold every scheduler's
        // P(metric <= x) for every x between: the least at the value before is at most it,
        // and the greatest at the next value at least it (both only grow with x).
        for j in 1..steps.len() {
            steps[j - 1].greatest = steps[j].greatest;
        }
    }
    Ok((steps, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past [`MAX_BAND_VALUES`] values the band is computed at some and held between them:
    /// it must still hold every scheduler's distribution. By hand: a free choice between A,
    /// the values 0, 1, …, n − 1 each with probability 1/n, and B, the value n − 1 for sure.
    /// So the greatest P(value <= x) is A's, (x + 1)/n, and the least is B's, 0 below n − 1;
    /// at every value, the step that holds there (the last at or below it) must have its
    /// least at most 0 and its greatest at least (x + 1)/n.
    #[test]
    fn a_band_held_between_values_holds_every_schedulers_distribution() {
        use coordsim_model::explore::Schedulers;
        let n = 3 * MAX_BAND_VALUES + 7;
        let mut graph = Schedulers::new();
        graph.push_entry();
        graph.push_action().unwrap();
        for k in 0..n {
            graph.push_branch(k as u32 + 1, 1.0 / n as f64).unwrap();
        }
        graph.push_action().unwrap();
        graph.push_branch(n as u32, 1.0).unwrap();
        for k in 0..n {
            graph.push_end(k as u32);
        }
        let e = Exploration {
            states: n as u64 + 1,
            transitions: n as u64 + 1,
            executions: n as u128 + 1,
            bounded: None,
            ordered: true,
            longest: 1,
            reduced: 0,
            outcomes: Vec::new(),
            symmetry: Vec::new(),
            keyed: true,
            part: None,
            schedulers: Some(graph),
            paths: Vec::new(),
            engine: coordsim_model::Engine::Interpret,
            cycles: false,
            counted: true,
        };
        let values: Vec<Option<f64>> = (0..n).map(|k| Some(k as f64)).collect();
        let (steps, count) = exact_steps(&e, &values).unwrap();
        assert_eq!(count, n);
        assert!(steps.len() <= MAX_BAND_VALUES + 1, "{}", steps.len());
        for x in 0..n {
            let step = steps
                .iter()
                .rev()
                .find(|s| s.x <= x as f64)
                .expect("a step at 0");
            let greatest = (x + 1) as f64 / n as f64;
            let least = if x + 1 == n { 1.0 } else { 0.0 };
            assert!(step.least <= least + 1e-12, "x {x}: {step:?}");
            assert!(step.greatest >= greatest - 1e-12, "x {x}: {step:?}");
        }
    }

    #[test]
    fn shares_rise_to_one_and_ties_make_one_value() {
        // 1, 2, 2, 3: a quarter at or below 1, three quarters at or below 2, all at 3.
        assert_eq!(
            shares(&[2.0, 1.0, 3.0, 2.0]),
            vec![(1.0, 0.25), (2.0, 0.75), (3.0, 1.0)]
        );
        assert!(shares(&[]).is_empty());
    }
}
