//! The worst row of a claim over executions (`over = "executions"`) in parts, for a page
//! to word in its own language: which point, which of its executions.

use crate::config::Stat;

/// The row of a claim over executions' worst evaluation, in parts: the point, and which
/// of its executions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExecutionRow {
    /// The point, by its swept parameters' values (`guard = "none"`; empty without a
    /// sweep).
    pub(crate) point: String,
    /// Which of the point's executions.
    pub(crate) executions: Executions,
    /// The point's exploration stopped at a bound: not every execution was seen (`check`
    /// says which bound, after `;`).
    pub(crate) bounded: bool,
}

/// Which executions a claim over executions' worst evaluation is about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Executions {
    /// Outcome `k` (from 1) of the point's `of` distinct outcomes, which `executions`
    /// executions end in.
    Outcome {
        /// The outcome, from 1.
        k: usize,
        /// The point's distinct outcomes.
        of: usize,
        /// The executions that end in it.
        executions: u128,
    },
    /// The least or greatest value (`stat`) over every one of `executions` executions.
    Stat {
        /// `min` or `max`.
        stat: Stat,
        /// The point's executions.
        executions: u128,
    },
    /// None: the search stopped at a bound, and finding no counterexample proves nothing.
    Bounded,
    /// Outcome `k` (from 1) of the point's `of`, at a point with a loop without end: its
    /// executions are infinitely many, not counted.
    Uncounted {
        /// The outcome, from 1.
        k: usize,
        /// The point's distinct outcomes.
        of: usize,
    },
    /// No point was explored.
    NoPoint,
}
