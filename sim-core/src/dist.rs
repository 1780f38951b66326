//! Durations drawn from a distribution given by its mean and coefficient of variation (the
//! way queueing theory names them: M/G/1 depends on the service time's mean and cv only).
//!
//! Each draw takes its randomness from the caller's [`Stream`], so a source keeps its own
//! numbers whatever other sources draw. `exponential` draws exactly what
//! [`exponential_ms`](crate::exponential_ms) draws, so a model that switches to `Dist` keeps
//! every earlier result.

use std::sync::Arc;

use rand_core::Rng;
use rand_distr::{Distribution, Exp1, Gamma, LogNormal};

use crate::rng::Stream;

/// The distributions a duration may follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistKind {
    /// Always the mean.
    Fixed,
    /// Exponential with the mean (cv 1).
    Exponential,
    /// Uniform on `[mean − h, mean + h]` with `h = √3 · cv · mean` (cv at most 1/√3, so
    /// no duration is negative).
    Uniform,
    /// Log-normal with the mean and cv.
    LogNormal,
    /// Gamma with the mean and cv (shape `1/cv²`): cv 1 is exponential, cv → 0 fixed.
    Gamma,
    /// Drawn uniformly at random from a list of observed durations (its own mean and cv).
    Empirical,
}

/// A duration distribution, in milliseconds.
#[derive(Debug, Clone)]
pub enum Dist {
    /// Always this many ms.
    Fixed(f64),
    /// Exponential with this mean.
    Exponential(f64),
    /// Uniform on `[lo, hi)`.
    Uniform(f64, f64),
    /// Log-normal, with its mean and cv.
    LogNormal(LogNormal<f64>, f64, f64),
    /// Gamma, with its mean and cv.
    Gamma(Gamma<f64>, f64, f64),
    /// One of these values, each equally likely.
    Empirical(Arc<[f64]>),
}

/// The largest cv of a uniform duration: `1/√3` (the interval then starts at 0).
pub const MAX_UNIFORM_CV: f64 = 0.577_350_269_189_625_8;

/// The largest cv accepted (a cv of 100 already puts almost all mass near 0).
pub const MAX_CV: f64 = 100.0;

impl Dist {
    /// The distribution of `kind` with `mean_ms` and `cv` (`trace` for `Empirical`); an
    /// error says what would be valid.
    pub fn new(kind: DistKind, mean_ms: f64, cv: f64, trace: &[f64]) -> Result<Dist, String> {
        if kind != DistKind::Empirical && !(mean_ms.is_finite() && mean_ms >= 0.0) {
            return Err(format!(
                "the mean must be a finite duration ≥ 0, got {mean_ms}"
            ));
        }
        let cv_ok = |max: f64| {
            if cv.is_finite() && (0.0..=max).contains(&cv) {
                Ok(())
            } else {
                Err(format!("the cv must be from 0 to {max}, got {cv}"))
            }
        };
        Ok(match kind {
            DistKind::Fixed => Dist::Fixed(mean_ms),
            DistKind::Exponential => Dist::Exponential(mean_ms),
            // A cv of 0 is the fixed duration, for every shape.
            _ if kind != DistKind::Empirical && (cv == 0.0 || mean_ms == 0.0) => {
                cv_ok(MAX_CV)?;
                Dist::Fixed(mean_ms)
            }
            DistKind::Uniform => {
                cv_ok(MAX_UNIFORM_CV)?;
                let h = 3f64.sqrt() * cv * mean_ms;
                Dist::Uniform((mean_ms - h).max(0.0), mean_ms + h)
            }
            DistKind::LogNormal => {
                cv_ok(MAX_CV)?;
                let d = LogNormal::from_mean_cv(mean_ms, cv).map_err(|e| e.to_string())?;
                Dist::LogNormal(d, mean_ms, cv)
            }
            DistKind::Gamma => {
                cv_ok(MAX_CV)?;
                let d =
                    Gamma::new(1.0 / (cv * cv), mean_ms * cv * cv).map_err(|e| e.to_string())?;
                Dist::Gamma(d, mean_ms, cv)
            }
            DistKind::Empirical => {
                if trace.is_empty() {
                    return Err(
                        "an empirical distribution needs at least one observed value".into(),
                    );
                }
                if let Some(bad) = trace.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
                    return Err(format!("observed durations are finite and ≥ 0, got {bad}"));
                }
                Dist::Empirical(trace.into())
            }
        })
    }

    /// One draw, in milliseconds.
    #[inline]
    pub fn sample_ms(&self, rng: &mut Stream) -> f64 {
        match self {
            Dist::Fixed(ms) => *ms,
            Dist::Exponential(mean) => {
                let unit: f64 = Exp1.sample(rng);
                unit * mean
            }
            Dist::Uniform(lo, hi) => lo + (hi - lo) * unit(rng),
            Dist::LogNormal(d, _, _) => d.sample(rng),
            Dist::Gamma(d, _, _) => d.sample(rng),
            Dist::Empirical(values) => {
                // An index uniform in 0..n from 64 bits (the bias is below n / 2^64).
                let i = ((u128::from(rng.next_u64()) * values.len() as u128) >> 64) as usize;
                values[i]
            }
        }
    }

    /// The mean, in milliseconds.
    pub fn mean_ms(&self) -> f64 {
        self.moments().0
    }

    /// The mean and variance, in ms and ms².
    pub fn moments(&self) -> (f64, f64) {
        match self {
            Dist::Fixed(ms) => (*ms, 0.0),
            Dist::Exponential(m) => (*m, m * m),
            Dist::Uniform(lo, hi) => ((lo + hi) / 2.0, (hi - lo) * (hi - lo) / 12.0),
            Dist::LogNormal(_, mean, cv) | Dist::Gamma(_, mean, cv) => (*mean, (cv * mean).powi(2)),
            Dist::Empirical(v) => {
                let n = v.len() as f64;
                let mean = v.iter().sum::<f64>() / n;
                (
                    mean,
                    v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n,
                )
            }
        }
    }
}

/// A uniform draw in [0, 1) from 53 random bits.
#[inline]
fn unit(rng: &mut Stream) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream;

    /// 10^6 draws: the sample mean within 4 standard errors of the mean (σ/√n), the sample
    /// variance within 4 standard errors of the variance (√((m4 − σ⁴)/n), from the draws'
    /// own fourth moment).
    fn matches_its_moments(d: &Dist) {
        let n = 1_000_000;
        let mut rng = stream(7, "dist-test");
        let xs: Vec<f64> = (0..n).map(|_| d.sample_ms(&mut rng)).collect();
        let (mean, var) = d.moments();
        let m = xs.iter().sum::<f64>() / n as f64;
        let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64;
        let m4 = xs.iter().map(|x| (x - m).powi(4)).sum::<f64>() / n as f64;
        let se_mean = (var / n as f64).sqrt();
        let se_var = ((m4 - v * v).max(0.0) / n as f64).sqrt();
        assert!(
            (m - mean).abs() <= 4.0 * se_mean + 1e-12,
            "{d:?}: mean {m} vs {mean} (se {se_mean})"
        );
        assert!(
            (v - var).abs() <= 4.0 * se_var + 1e-12,
            "{d:?}: variance {v} vs {var} (se {se_var})"
        );
        assert!(xs.iter().all(|x| *x >= 0.0), "{d:?}: a negative duration");
    }

    #[test]
    fn every_distribution_draws_its_mean_and_variance() {
        for (kind, cv) in [
            (DistKind::Exponential, 1.0),
            (DistKind::Uniform, 0.5),
            (DistKind::Uniform, MAX_UNIFORM_CV),
            (DistKind::LogNormal, 0.5),
            (DistKind::LogNormal, 1.0),
            (DistKind::Gamma, 0.5),
            (DistKind::Gamma, 2.0),
        ] {
            matches_its_moments(&Dist::new(kind, 6.0, cv, &[]).unwrap());
        }
        // An empirical distribution: the trace's own mean and (population) variance.
        matches_its_moments(
            &Dist::new(DistKind::Empirical, 0.0, 0.0, &[1.0, 2.0, 6.0, 15.0]).unwrap(),
        );
    }

    #[test]
    fn a_cv_of_zero_is_fixed_and_exponential_draws_what_it_always_drew() {
        for kind in [DistKind::Uniform, DistKind::LogNormal, DistKind::Gamma] {
            let d = Dist::new(kind, 6.0, 0.0, &[]).unwrap();
            assert_eq!(d.sample_ms(&mut stream(1, "x")), 6.0);
        }
        let (mut a, mut b) = (stream(3, "s"), stream(3, "s"));
        let d = Dist::new(DistKind::Exponential, 6.0, 1.0, &[]).unwrap();
        for _ in 0..100 {
            assert_eq!(d.sample_ms(&mut a), crate::exponential_ms(&mut b, 6.0));
        }
    }

    #[test]
    fn impossible_shapes_are_refused() {
        assert!(Dist::new(DistKind::Uniform, 6.0, 0.6, &[]).is_err());
        assert!(Dist::new(DistKind::Gamma, 6.0, -1.0, &[]).is_err());
        assert!(Dist::new(DistKind::LogNormal, f64::NAN, 1.0, &[]).is_err());
        assert!(Dist::new(DistKind::Empirical, 0.0, 0.0, &[]).is_err());
        assert!(Dist::new(DistKind::Empirical, 0.0, 0.0, &[1.0, -2.0]).is_err());
    }
}
