//! Draws in a flat state: an `if` by chance decided as the interpreter's explorer decides
//! it, so that one flat event runs as many ways as the interpreter's does, in its order,
//! each with the same probability and the same draw bits (a trace's schedule then replays
//! through the interpreter).
//!
//! A flat step is told which of its draws are "yes" ([`Draws`], as the interpreter's
//! steer is told `forced`): the ones past those given are "no". [`Ways`] lists an event's
//! ways as the interpreter's `branches` does: all "no" first, then, last found first, each
//! draw turned "yes" with the draws before it as they went.

use smallvec::SmallVec;

/// Most draws one event makes (the interpreter's bound: past it, it stops with an error,
/// which it says once it has taken the point over).
const MAX_DRAWS: u8 = 64;

/// What one flat event drew: bit i of `draws` is draw i "yes", its ways' probabilities
/// multiplied in the order drawn (as the interpreter's product of them is).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Draws {
    /// The draws decided "yes" (past them, "no").
    forced: u64,
    /// Bit i: draw i was "yes".
    pub(crate) draws: u64,
    /// Draws made.
    pub(crate) drawn: u8,
    /// The product of each draw's chance of the way it went.
    pub(crate) probability: f64,
    /// The product of 1 − p over the faults decided "no" by a spent budget (no draw: the
    /// interpreter multiplies it in after the draws' product).
    pub(crate) beyond: f64,
}

impl Draws {
    /// An event whose draws are decided by `forced` (bit i: draw i "yes").
    pub(crate) fn forced(forced: u64) -> Draws {
        Draws {
            forced,
            draws: 0,
            drawn: 0,
            probability: 1.0,
            beyond: 1.0,
        }
    }

    /// A fault of `probability` (a crash step's) decided, `left` whether the execution's
    /// fault budget has room: past it, "no" and no draw (its probability still counts, as
    /// the interpreter's steer counts it), else as any draw ([`Draws::decide`]).
    pub(crate) fn decide_fault(&mut self, probability: f64, left: bool) -> Option<bool> {
        if left || !(0.0..1.0).contains(&probability) || probability <= 0.0 {
            return self.decide(probability);
        }
        self.beyond *= 1.0 - probability;
        Some(false)
    }

    /// A draw of `probability` decided: a certain one is no draw (the interpreter's
    /// steer makes none), else the next one. `None` where the interpreter stops (no
    /// probability, or more than 64 draws in one event): it takes the point over.
    pub(crate) fn decide(&mut self, probability: f64) -> Option<bool> {
        if !(0.0..=1.0).contains(&probability) {
            return None;
        }
        if probability <= 0.0 {
            return Some(false);
        }
        if probability >= 1.0 {
            return Some(true);
        }
        if self.drawn >= MAX_DRAWS {
            return None;
        }
        let taken = self.forced >> self.drawn & 1 == 1;
        self.draws |= u64::from(taken) << self.drawn;
        self.drawn += 1;
        self.probability *= if taken {
            probability
        } else {
            1.0 - probability
        };
        Some(taken)
    }
}

/// An event's ways still to run, each the draws it decides and how many of them are
/// given: kept by a search from state to state (nothing allocated per state).
#[derive(Debug, Default)]
pub(crate) struct Ways {
    scripts: SmallVec<[(u64, u8); 8]>,
}

impl Ways {
    /// An event's ways, from its first (every draw "no").
    pub(crate) fn begin(&mut self) {
        self.scripts.clear();
        self.scripts.push((0, 0));
    }

    /// The next way to run, if any: its [`Draws`] to step with ([`Ways::ran`] after).
    pub(crate) fn next(&mut self) -> Option<(Draws, u8)> {
        let (forced, given) = self.scripts.pop()?;
        Some((Draws::forced(forced), given))
    }

    /// A way run (`given` of its draws decided before it ran) that made `drawn`: each of
    /// its draws past those given may go the other way, the ones before as they went.
    pub(crate) fn ran(&mut self, drawn: &Draws, given: u8) {
        for index in given..drawn.drawn {
            let before = drawn.draws & ((1u64 << index) - 1);
            self.scripts.push((before | 1 << index, index + 1));
        }
    }
}
