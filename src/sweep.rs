//! Sweep axes: lists and ranges, expanded into points in declared order.

use coordsim_model::Value;

/// Most points one config may sweep.
pub(crate) const MAX_POINTS: u64 = 100_000;

/// A range as a config writes it: `{ from, to, step }` or `{ from, to, points, scale }`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Range {
    /// `from`, `from + step`, … up to `to` (included when reached).
    Step {
        /// First value.
        from: f64,
        /// Last value, included when a step lands on it.
        to: f64,
        /// Increment (negative counts down).
        step: f64,
    },
    /// `points` values from `from` to `to`, evenly spaced on a linear or log scale.
    Points {
        /// First value.
        from: f64,
        /// Last value, exactly as written.
        to: f64,
        /// How many values.
        points: u64,
        /// Evenly spaced in log rather than linear.
        log: bool,
    },
}

/// Expands a range; `integers` makes the values `Value::Int` (a count parameter's range).
pub(crate) fn expand(range: &Range, integers: bool) -> Result<Vec<Value>, String> {
    match *range {
        Range::Step { from, to, step } => {
            if step == 0.0 {
                return Err("`step` must not be 0".into());
            }
            if (to - from) * step < 0.0 {
                return Err(format!(
                    "empty range: stepping by {step} from {from} never reaches {to}"
                ));
            }
            if integers && [from, to, step].iter().any(|x| x.fract() != 0.0) {
                return Err("a count parameter's range needs whole `from`, `to` and `step`".into());
            }
            // Count the steps up front (with a little slack for binary fractions such as 0.1)
            // and compute each value as from + k × step, so no error accumulates.
            let steps = ((to - from) / step + 1e-9).floor();
            let count = steps + 1.0;
            if count > MAX_POINTS as f64 {
                return Err(format!(
                    "the range has {count} values, more than the limit of {MAX_POINTS}"
                ));
            }
            Ok((0..count as u64)
                .map(|k| {
                    // 0.1 steps from 0 give 0.30000000000000004 in binary: round to the
                    // decimals the user wrote (of `from` and `step`), so every output and
                    // every `where` sees 0.3.
                    let decimals = decimals_of(from).max(decimals_of(step));
                    number(
                        round_to_decimals(from + k as f64 * step, decimals),
                        integers,
                    )
                })
                .collect())
        }
        Range::Points {
            from,
            to,
            points,
            log,
        } => {
            if integers {
                return Err(
                    "`points` and `scale` apply to number parameters; give a count parameter a `step`"
                        .into(),
                );
            }
            if points == 0 {
                return Err("`points` must be at least 1".into());
            }
            if points > MAX_POINTS {
                return Err(format!("`points` is above the limit of {MAX_POINTS}"));
            }
            if points == 1 {
                if from != to {
                    return Err("one point needs `from` = `to`; ask for 2 or more".into());
                }
                return Ok(vec![Value::Float(from)]);
            }
            if log && (from <= 0.0 || to <= 0.0) {
                return Err("`scale = \"log\"` needs `from` and `to` above 0".into());
            }
            let last = (points - 1) as f64;
            Ok((0..points)
                .map(|k| {
                    let x = if k == points - 1 {
                        to // exactly the end the user wrote
                    } else if log {
                        significant((from.ln() + (to.ln() - from.ln()) * k as f64 / last).exp())
                    } else {
                        significant(from + (to - from) * k as f64 / last)
                    };
                    Value::Float(x)
                })
                .collect())
        }
    }
}

/// Decimal places of `x` as written in shortest form (`0.1` → 1, `2.5e-3` → 4, `40` → 0).
fn decimals_of(x: f64) -> usize {
    let text = x.to_string();
    text.split_once('.').map_or(0, |(_, frac)| frac.len())
}

/// `x` rounded to `decimals` places, as the nearest double to that decimal.
fn round_to_decimals(x: f64, decimals: usize) -> f64 {
    format!("{x:.decimals$}").parse().unwrap_or(x)
}

/// `x` rounded to 12 significant digits: log-spaced points come out as `10`, not
/// `10.000000000000002`, and derived parameters as `20`, not `20.000000000000004`.
pub(crate) fn significant(x: f64) -> f64 {
    format!("{x:.11e}").parse().unwrap_or(x)
}

fn number(x: f64, integer: bool) -> Value {
    if integer {
        Value::Int(x.round() as i64)
    } else {
        Value::Float(x)
    }
}

/// The number of points of axes of these lengths, or `None` past [`MAX_POINTS`].
pub(crate) fn point_count(lengths: impl IntoIterator<Item = usize>) -> Option<u64> {
    lengths.into_iter().try_fold(1u64, |total, n| {
        let total = total.checked_mul(n as u64)?;
        (total <= MAX_POINTS).then_some(total)
    })
}

/// The coordinates of point `index` (one value index per axis), first axis slowest.
pub(crate) fn coordinates(mut index: usize, lengths: &[usize]) -> Vec<usize> {
    let mut coords = vec![0; lengths.len()];
    for (axis, len) in lengths.iter().enumerate().rev() {
        coords[axis] = index % len;
        index /= len;
    }
    coords
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(values: Vec<Value>) -> Vec<f64> {
        values.iter().map(|v| v.as_f64().unwrap()).collect()
    }

    #[test]
    fn step_ranges_include_the_end_when_reached() {
        let r = Range::Step {
            from: 50.0,
            to: 200.0,
            step: 50.0,
        };
        assert_eq!(
            floats(expand(&r, true).unwrap()),
            [50.0, 100.0, 150.0, 200.0]
        );
        let r = Range::Step {
            from: 50.0,
            to: 210.0,
            step: 50.0,
        };
        assert_eq!(
            floats(expand(&r, true).unwrap()),
            [50.0, 100.0, 150.0, 200.0]
        );
        // 0.1 steps: 0.3 is reached although 3 × 0.1 != 0.3 in binary, and it is 0.3.
        let r = Range::Step {
            from: 0.0,
            to: 0.3,
            step: 0.1,
        };
        assert_eq!(floats(expand(&r, false).unwrap()), [0.0, 0.1, 0.2, 0.3]);
        let r = Range::Step {
            from: 0.1,
            to: 0.5,
            step: 0.1,
        };
        let values: Vec<String> = expand(&r, false)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(values, ["0.1", "0.2", "0.3", "0.4", "0.5"]);
        // The decimals of `from` count too: 0.25 + k × 0.5.
        let r = Range::Step {
            from: 0.25,
            to: 1.75,
            step: 0.5,
        };
        assert_eq!(floats(expand(&r, false).unwrap()), [0.25, 0.75, 1.25, 1.75]);
        let r = Range::Step {
            from: 10.0,
            to: 0.0,
            step: -5.0,
        };
        assert_eq!(floats(expand(&r, false).unwrap()), [10.0, 5.0, 0.0]);
        assert_eq!(expand(&r, true).unwrap()[0], Value::Int(10));
    }

    #[test]
    fn bad_ranges_are_errors() {
        let bad = |from, to, step| expand(&Range::Step { from, to, step }, false).unwrap_err();
        assert!(bad(0.0, 10.0, 0.0).contains("must not be 0"));
        assert!(bad(10.0, 0.0, 1.0).contains("empty range"));
        assert!(bad(0.0, 1e9, 1.0).contains("limit"));
        assert!(
            expand(
                &Range::Step {
                    from: 0.0,
                    to: 1.0,
                    step: 0.5
                },
                true
            )
            .unwrap_err()
            .contains("whole")
        );
    }

    #[test]
    fn log_points_are_evenly_spaced_in_log() {
        let r = Range::Points {
            from: 1.0,
            to: 1000.0,
            points: 4,
            log: true,
        };
        let v = floats(expand(&r, false).unwrap());
        // 10^0, 10^1, 10^2, 10^3 exactly: exp(ln) rounded to 12 significant digits.
        assert_eq!(v, [1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(v[3], 1000.0);
        let r = Range::Points {
            from: 0.0,
            to: 1.0,
            points: 5,
            log: false,
        };
        assert_eq!(
            floats(expand(&r, false).unwrap()),
            [0.0, 0.25, 0.5, 0.75, 1.0]
        );
        let r = Range::Points {
            from: 0.0,
            to: 1.0,
            points: 5,
            log: true,
        };
        assert!(expand(&r, false).unwrap_err().contains("above 0"));
    }

    #[test]
    fn points_multiply_and_cap() {
        assert_eq!(point_count([3, 4]), Some(12));
        assert_eq!(point_count([]), Some(1));
        assert_eq!(point_count([1000, 1000]), None);
        assert_eq!(point_count([100_000, 1]), Some(100_000));
    }

    #[test]
    fn first_axis_is_slowest() {
        let lengths = [2, 3];
        let all: Vec<_> = (0..6).map(|i| coordinates(i, &lengths)).collect();
        assert_eq!(all, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
    }
}
