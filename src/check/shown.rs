//! Which execution decides a claim over executions ([`Shown`]): an outcome's shortest, or
//! a scheduler's most likely (`check::paths`).

use coordsim_model::Exploration;
use coordsim_model::explore::{ExtremePath, Schedule, TraceStep};

/// The execution that decides a claim over executions: outcome `outcome` of point `point`,
/// by its shortest execution, or, with `path`, by the exploration's [`ExtremePath`] of that
/// index (a scheduler's most likely execution, which ends in `outcome` too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shown {
    /// The point.
    pub(crate) point: usize,
    /// The outcome it ends with (an index into the point's outcomes).
    pub(crate) outcome: usize,
    /// Its place among the point's [`Exploration::paths`], when a scheduler's.
    pub(crate) path: Option<usize>,
}

impl Shown {
    /// Outcome `outcome` of `point`, by its shortest execution.
    pub(crate) fn outcome(point: usize, outcome: usize) -> Shown {
        Shown {
            point,
            outcome,
            path: None,
        }
    }

    /// The scheduler's execution this is, if one.
    pub(crate) fn extreme<'e>(&self, explored: &'e [Exploration]) -> Option<&'e ExtremePath> {
        self.path.and_then(|i| explored[self.point].paths.get(i))
    }

    /// Its steps.
    pub(crate) fn trace<'e>(&self, explored: &'e [Exploration]) -> &'e [TraceStep] {
        match self.extreme(explored) {
            Some(path) => &path.trace,
            None => &explored[self.point].outcomes[self.outcome].trace,
        }
    }

    /// The choices that make it.
    pub(crate) fn schedule<'e>(&self, explored: &'e [Exploration]) -> &'e Schedule {
        match self.extreme(explored) {
            Some(path) => &path.schedule,
            None => &explored[self.point].outcomes[self.outcome].schedule,
        }
    }
}

/// The scheduler's execution exploration `e` (of `point`) found for claim `tag` (its place
/// among the config's claims), as the execution shown.
pub(super) fn shown_path(e: &Exploration, point: usize, tag: Option<usize>) -> Option<Shown> {
    let tag = tag?;
    let at = e.paths.iter().position(|p| p.tag as usize == tag)?;
    Some(Shown {
        point,
        outcome: e.paths[at].outcome,
        path: Some(at),
    })
}
