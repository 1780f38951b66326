//! A spec's numbers computed at one point: literals, expressions over the parameters,
//! `{ by = … }` choices, durations, probabilities and distributions, each checked where it
//! is written.

use coordsim_model::{ParamError, Value, number_text};
use sim_core::{Nanos, ms_to_ns};

use crate::point::Duration;
use crate::syntax::spec::{Choice, Number, Spec, Var};

/// A field's path as an error names it (`actor[0].steps[2].delay_ms`).
pub(super) fn path_key(path: &[&str]) -> String {
    path.join(".")
}

/// Computes a spec's numbers at one point: its parameter values, typed and as numbers.
pub(super) struct Evaluator<'a> {
    pub(super) spec: &'a Spec,
    pub(super) values: &'a [Value],
    pub(super) numbers: &'a [f64],
}

impl Evaluator<'_> {
    pub(super) fn number(&self, number: &Number, path: &[&str]) -> Result<f64, ParamError> {
        let key = path_key(path);
        let value = match number {
            Number::Lit(value) => *value,
            Number::Expr(expr, text) => {
                if number.per_actor() {
                    return Err(ParamError::new(
                        &key,
                        format!(
                            "\"{text}\" is computed per actor; only a step's numbers (a start: `i` only) may use `i`, `k`, `attempt` or a register read"
                        ),
                    ));
                }
                expr.eval(&|var| match var {
                    Var::Param(p) => self.numbers.get(p as usize).copied(),
                    _ => None,
                })
                .unwrap_or(f64::NAN)
            }
            Number::Each(_) => {
                return Err(ParamError::new(
                    &key,
                    "a list gives one number per actor; only a start, a delay, an instance, a give-up time or a written value may be one",
                ));
            }
            Number::By(..) => {
                let (chosen, at) = self.chosen(number, path)?;
                return self.number(chosen, &at);
            }
        };
        if !value.is_finite() {
            return Err(ParamError::new(
                &key,
                format!("is not a finite number here ({value})"),
            ));
        }
        Ok(value)
    }

    /// The option of a `{ by = … }` table this point's value chooses, with its path
    /// (`….delay_ms.slow`); any other number as it is.
    fn chosen<'n>(
        &self,
        number: &'n Number,
        path: &[&'n str],
    ) -> Result<(&'n Number, Vec<&'n str>), ParamError> {
        let Number::By(param, options) = number else {
            return Ok((number, path.to_vec()));
        };
        let key = path_key(path);
        let Some(Value::Str(given)) = self.values.get(*param as usize) else {
            return Err(ParamError::new(
                &key,
                "its `by` parameter has no string value here",
            ));
        };
        match options.iter().find(|(o, _)| o == given) {
            Some((option, chosen)) => {
                let mut at = path.to_vec();
                at.push(option);
                Ok((chosen, at))
            }
            None => {
                let valid: Vec<&str> = options.iter().map(|(o, _)| o.as_str()).collect();
                Err(ParamError::new(
                    &key,
                    format!(
                        "`{}` = \"{given}\" has no number here; it gives: {}",
                        self.spec.params[*param as usize].name,
                        valid.join(", ")
                    ),
                ))
            }
        }
    }

    pub(super) fn probability(&self, number: &Number, path: &[&str]) -> Result<f64, ParamError> {
        let probability = self.number(number, path)?;
        if !(0.0..=1.0).contains(&probability) {
            return Err(ParamError::new(
                &path_key(path),
                format!(
                    "a probability is in [0, 1], got {}",
                    number_text(probability)
                ),
            ));
        }
        Ok(probability)
    }

    pub(super) fn duration(&self, number: &Number, path: &[&str]) -> Result<Nanos, ParamError> {
        let ms = self.number(number, path)?;
        ms_to_ns(ms).ok_or_else(|| ParamError::new(&path_key(path), sim_core::bad_duration(ms)))
    }

    /// A number the run computes: computed here once when it does not depend on the actor
    /// or the run (a `{ by = … }` table included, which only a point can resolve).
    pub(super) fn per_point(&self, number: &Number, path: &[&str]) -> Result<Number, ParamError> {
        if let Number::Each(items) = number {
            return items
                .iter()
                .map(|n| self.per_point(n, path))
                .collect::<Result<_, _>>()
                .map(Number::Each);
        }
        if let Number::By(..) = number {
            // The option this point's value chooses, as any number of its place.
            let (chosen, at) = self.chosen(number, path)?;
            return self.per_point(chosen, &at);
        }
        if number.per_actor() {
            return Ok(number.clone());
        }
        self.number(number, path).map(Number::Lit)
    }

    /// A distribution of `kind` with mean `mean_ms` and the cv `cv` (used by all but
    /// `fixed` and `exponential`); `None` for `fixed`.
    pub(super) fn distribution(
        &self,
        kind: &str,
        mean_ms: f64,
        cv: &Number,
        mean_path: &[&str],
        cv_path: &[&str],
    ) -> Result<Option<sim_core::Dist>, ParamError> {
        use sim_core::DistKind;
        let kind = match kind {
            "fixed" => return Ok(None),
            "exponential" => DistKind::Exponential,
            "uniform" => DistKind::Uniform,
            "lognormal" => DistKind::LogNormal,
            _ => DistKind::Gamma,
        };
        if ms_to_ns(mean_ms).is_none_or(|ns| ns == 0) {
            return Err(ParamError::new(
                &path_key(mean_path),
                format!(
                    "a random duration needs a mean above 0 ms, got {}",
                    number_text(mean_ms)
                ),
            ));
        }
        let cv = self.number(cv, cv_path)?;
        sim_core::Dist::new(kind, mean_ms, cv, &[])
            .map(Some)
            .map_err(|m| ParamError::new(&path_key(cv_path), m))
    }

    /// A per-actor list has one number for each of the group's `count` actors.
    pub(super) fn each_len(
        &self,
        number: &Number,
        key: &str,
        count: u64,
    ) -> Result<(), ParamError> {
        // A group with no actors at this point (its `count` chosen by a parameter) uses none.
        if let Some(len) = number.each_len()
            && len as u64 != count
            && count > 0
        {
            return Err(ParamError::new(
                key,
                format!("a list needs one number per actor: {count} here, got {len}"),
            ));
        }
        Ok(())
    }

    pub(super) fn dur(&self, number: &Number, path: &[&str]) -> Result<Duration, ParamError> {
        if let Number::By(..) = number {
            let (chosen, at) = self.chosen(number, path)?;
            return self.dur(chosen, &at);
        }
        if number.per_actor() {
            return self.per_point(number, path).map(Duration::Actor);
        }
        self.duration(number, path).map(Duration::Fixed)
    }

    pub(super) fn whole(
        &self,
        number: &Number,
        path: &[&str],
        min: u64,
        max: u64,
    ) -> Result<u64, ParamError> {
        let value = self.number(number, path)?;
        if value.fract() != 0.0 || value < min as f64 || value > max as f64 {
            return Err(ParamError::new(
                &path_key(path),
                format!(
                    "must be a whole number from {min} to {max}, got {}",
                    number_text(value)
                ),
            ));
        }
        Ok(value as u64)
    }

    pub(super) fn choice(
        &self,
        choice: &Choice,
        options: &[&'static str],
        path: &[&str],
    ) -> Result<&'static str, ParamError> {
        match choice {
            Choice::Lit(o) => Ok(o),
            Choice::Param(param) => match self.values.get(*param as usize) {
                Some(Value::Str(given)) => options
                    .iter()
                    .find(|o| **o == given)
                    .copied()
                    .ok_or_else(|| {
                        ParamError::new(
                            &path_key(path),
                            format!(
                                "`{}` = \"{given}\" is not an option here; valid: {}",
                                self.spec.params[*param as usize].name,
                                options.join(", ")
                            ),
                        )
                    }),
                _ => Err(ParamError::new(
                    &path_key(path),
                    "its parameter has no string value here",
                )),
            },
        }
    }
}
