//! A line chart's `y_expr` as a curve: where x is a swept parameter and the expression reads
//! parameters only, it is known between the sweep's points too, so it is drawn on a fine grid
//! of x from the sweep's first x to its last (a smooth curve, not a polyline through a
//! handful of points). An expression that reads a metric is known only where a run was made:
//! it stays a line through the sweep's points.

use super::frame::CURVE_STEPS;
use crate::config::{ChartKind, ChartSpec, Config, Var};
use coordsim_expr::Expr;
use coordsim_model::Value;

/// Most whole values of x a curve over a whole-number parameter is evaluated at: each one
/// between the ends up to this many, else this many evenly spaced.
const MAX_WHOLE_STEPS: usize = 1000;

/// What a reference curve is a function of: the index of the swept parameter x among a
/// point's values, and whether the sweep's values of it are whole numbers (a count). `None`
/// when the line stays at the sweep's points: a chart other than a line chart, an x that is
/// no swept parameter, an expression that reads a metric.
pub(super) fn curve_param(
    config: &Config,
    spec: &ChartSpec,
    expr: &Expr<Var>,
) -> Option<(usize, bool)> {
    if spec.kind != ChartKind::Line || expr.any_var(&|v| !matches!(v, Var::Param(_))) {
        return None;
    }
    let axis = config.axes.iter().find(|a| a.key == spec.x)?;
    // A count by its declared kind (a [vars] variable: by its values).
    let whole = match config.model.params().get(axis.param) {
        Some(param) => param.kind == coordsim_model::Kind::Count,
        None => (axis.values.iter()).all(|v| matches!(v, Value::Int(_))),
    };
    if !(whole || axis.values.iter().all(|v| v.as_f64().is_some())) {
        return None;
    }
    Some((axis.param, whole))
}

/// `expr` as a curve over x from `lo` to `hi` (the sweep's first and last x): at `xs` (the
/// sweep's own), and at [`CURVE_STEPS`] even steps between the ends —
/// geometric on a log x axis, and only at whole numbers for a whole-number parameter (whose
/// expression may have no value between two: `sum(j, 1, n, 1 / j)`). The other parameters
/// are point `point`'s, the derived ones derived again at each x. Values that are not
/// drawable are left out, as at the sweep's points.
pub(super) fn curve(
    config: &Config,
    expr: &Expr<Var>,
    (param, whole): (usize, bool),
    point: usize,
    (lo, hi): (f64, f64),
    xs: &[f64],
    log_x: bool,
) -> Vec<(f64, f64)> {
    let mut xs = xs.to_vec();
    if whole {
        let span = (hi - lo).max(0.0);
        let steps = (span as usize).clamp(1, MAX_WHOLE_STEPS);
        xs.extend((0..=steps).map(|k| (lo + span * k as f64 / steps as f64).round()));
    } else if log_x && lo > 0.0 {
        let (a, b) = (lo.log10(), hi.log10());
        xs.extend(
            (0..=CURVE_STEPS).map(|k| 10f64.powf(a + (b - a) * k as f64 / CURVE_STEPS as f64)),
        );
    } else {
        xs.extend((0..=CURVE_STEPS).map(|k| lo + (hi - lo) * k as f64 / CURVE_STEPS as f64));
    }
    xs.retain(|x| (lo..=hi).contains(x));
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs.into_iter()
        .filter_map(|x| {
            let value = if whole {
                Value::Int(x as i64)
            } else {
                Value::Float(x)
            };
            let values = config.values_with(point, Some((param, value)));
            let y = expr.eval(&|v| match v {
                Var::Param(i) => values.get(i).and_then(Value::as_f64),
                _ => None,
            })?;
            super::base::drawable(y).then_some((x, y))
        })
        .collect()
}
