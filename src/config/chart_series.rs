//! How many series a chart draws, counted before anything runs: a chart of more than
//! [`MAX_SERIES`] is refused at its `[[chart]]` when the count is known from the sweep
//! alone (x a parameter: every other axis with two values among the points the `where`
//! keeps splits the lines; a distribution chart: a curve per point and `y`). With a metric
//! or the entities as x, which axes x tells apart shows only in the run's values: such a
//! chart draws its first [`MAX_SERIES`] and says so. An `exact_cdf` explores each of its
//! points: it keeps at most [`super::MAX_EXACT_POINTS`].

use std::collections::HashSet;

use super::plan::Plan;
use coordsim_model::{ChartKind, Value};

/// Most series (lines, sets of bars, curves) a chart draws: a legend of more is none a
/// reader can use, and each costs its share of the file (a bar chart of 10,000 points each
/// its own series failed to render after the whole run; at 5,000 it wrote 28 MB).
pub(crate) const MAX_SERIES: usize = 100;

/// A chart as this count sees it: its kind, whether it draws a distribution's samples,
/// its x, how many y and its `where`.
pub(super) struct Drawn<'c> {
    pub(super) kind: ChartKind,
    pub(super) distribution: bool,
    pub(super) x: &'c str,
    pub(super) ys: usize,
    pub(super) filter: &'c [(usize, Value)],
}

/// Why `spec` would draw more than [`MAX_SERIES`] series, when the sweep alone says so.
pub(super) fn too_many_series(plan: &Plan, spec: &Drawn<'_>) -> Option<String> {
    let matched: Vec<usize> = (0..plan.points)
        .filter(|p| plan.matches(*p, spec.filter))
        .collect();
    let ys = spec.ys;
    let most = super::MAX_EXACT_POINTS;
    if spec.kind == ChartKind::ExactCdf && matched.len() > most {
        return Some(format!(
            "an exact_cdf explores every point its `where` keeps and draws at most {most}, not {}: narrow its `where`",
            matched.len()
        ));
    }
    let at_most = "a chart draws at most 100 (a legend of more is none a reader can use, and each costs its share of the file)";
    if spec.distribution {
        let curves = matched.len() * ys;
        return (curves > MAX_SERIES).then(|| {
            format!(
                "a {} chart of {curves} curves, one per point its `where` keeps ({}) and per y ({ys}); {at_most}: narrow its `where`",
                spec.kind,
                matched.len()
            )
        });
    }
    if !matches!(spec.kind, ChartKind::Line | ChartKind::Bar) {
        return None;
    }
    // A parameter as x: the other swept axes split the points into series.
    let x = plan.key_index(spec.x)?;
    let others: Vec<usize> = (plan.axes.iter().enumerate())
        .filter(|(_, a)| a.param != x)
        .map(|(i, _)| i)
        .collect();
    let combos: HashSet<Vec<usize>> = matched
        .iter()
        .map(|&p| {
            let at = plan.coordinates(p);
            others.iter().map(|&i| at[i]).collect()
        })
        .collect();
    let series = combos.len() * ys;
    if series <= MAX_SERIES {
        return None;
    }
    let splitting: Vec<&str> = others
        .iter()
        .filter(|&&i| {
            let values: HashSet<usize> = matched.iter().map(|&p| plan.coordinates(p)[i]).collect();
            values.len() > 1
        })
        .map(|&i| plan.axes[i].key.as_str())
        .collect();
    Some(format!(
        "a {} chart of {series} series, one per y ({ys}) and per value of {} ({}), which x = {} does not tell apart; {at_most}: make one of them x, or pin them with `where`",
        spec.kind,
        splitting.join(", "),
        combos.len(),
        spec.x
    ))
}
