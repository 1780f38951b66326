//! The data of a chart of per-request samples (a `cdf` or `histogram` of a distribution):
//! each point's samples pooled over its replications, and its theory curves.

use std::collections::HashMap;

use super::base::drawable;
use super::data::{ChartData, Series, chart_title, y_labels};
use super::frame::CURVE_STEPS;
use crate::config::{ChartKind, ChartSpec};
use crate::export::Run;
use crate::locale::Text;
use crate::results::{ColumnSource, number};

impl ChartData {
    /// A chart of per-request samples: one sample set per point the `where` keeps and per
    /// distribution in `y`, each pooled over the point's replications.
    pub(super) fn of_samples(run: &Run<'_>, spec: &ChartSpec) -> ChartData {
        let config = run.config;
        let points: Vec<usize> = (0..config.points)
            .filter(|p| config.matches(*p, &spec.filter))
            .collect();
        let mut samples = Vec::new();
        // Each point's pooled samples by (point, name), found once.
        let pooled: HashMap<(usize, &str), &Vec<f64>> = run
            .results
            .distributions
            .iter()
            .map(|(p, n, v)| ((*p, *n), v))
            .collect();
        for y in &spec.y {
            for &point in &points {
                let values = pooled
                    .get(&(point, y.as_str()))
                    .map_or_else(Vec::new, |v| (*v).clone());
                let at = config.point_values(point);
                let parts: Vec<String> = config
                    .axes
                    .iter()
                    .map(|a| config.setting_text(&a.key, &at[a.param]))
                    .collect();
                let label = match (parts.is_empty() || points.len() == 1, spec.y.len() == 1) {
                    (true, _) => config.label(y).to_string(),
                    (false, true) => parts.join(", "),
                    (false, false) => format!("{} ({})", config.label(y), parts.join(", ")),
                };
                samples.push((label, values));
            }
        }
        // Theory curves: each `y_expr` as a function of x at every point, over the samples'
        // range.
        let mut series = Vec::new();
        let all = || {
            samples
                .iter()
                .flat_map(|(_, v)| v.iter().copied())
                .filter(|v| drawable(*v))
        };
        let hi = all().fold(f64::NEG_INFINITY, f64::max);
        let lo = all().fold(f64::INFINITY, f64::min).min(0.0);
        if hi.is_finite() {
            for (label, expr) in &spec.y_expr {
                for &point in &points {
                    let values = config.point_values(point);
                    let first_row = run
                        .results
                        .results
                        .rows
                        .iter()
                        .find(|r| run.results.results.point(r) == point);
                    let curve: Vec<(f64, f64)> = (0..=CURVE_STEPS)
                        .filter_map(|k| {
                            let x = lo + (hi - lo) * k as f64 / CURVE_STEPS as f64;
                            let get = |v: crate::config::Var| match v {
                                crate::config::Var::Param(i) => values[i].as_f64(),
                                crate::config::Var::X => Some(x),
                                crate::config::Var::Metric(i) => first_row.and_then(|row| {
                                    let table = &run.results.results;
                                    table
                                        .schema
                                        .id(ColumnSource::Metric(i))
                                        .and_then(|id| number(&row[id]))
                                }),
                                crate::config::Var::Entity(_) => None,
                            };
                            expr.eval(&get).filter(|y| drawable(*y)).map(|y| (x, y))
                        })
                        .collect();
                    let at: Vec<String> = config
                        .axes
                        .iter()
                        .map(|a| config.setting_text(&a.key, &values[a.param]))
                        .collect();
                    let name = config.label(label).to_string();
                    series.push(Series {
                        label: if points.len() > 1 && !at.is_empty() {
                            format!("{name} ({})", at.join(", "))
                        } else {
                            name
                        },
                        reference: true,
                        points: curve,
                        intervals: Vec::new(),
                        // The colour of this point's samples.
                        color: (points.len() > 1)
                            .then(|| points.iter().position(|p| *p == point).unwrap_or(0)),
                    });
                }
            }
        }
        let x_label = spec
            .look
            .x_label
            .clone()
            .unwrap_or_else(|| y_labels(config, spec));
        let y_text = if spec.kind == ChartKind::Histogram {
            Text::SamplesCountAxis
        } else {
            Text::SamplesFractionAxis
        };
        ChartData {
            title: chart_title(config, spec),
            kind: spec.kind,
            x_label,
            y_label: spec
                .look
                .y_label
                .clone()
                .unwrap_or_else(|| config.text(y_text).to_string()),
            series,
            marks: Vec::new(),
            mark_y: None,
            log_x: spec.log_x,
            samples,
            categories: None,
            y_integer: spec.kind == ChartKind::Histogram,
            x_integer: false,
            locale: config.locale,
            interval_label: config.text(Text::IntervalLegend).to_string(),
            look: spec.look.clone(),
            notes: Vec::new(),
        }
    }
}
