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

use super::{Flat, NotFinite};

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
}

impl Draws {
    /// An event whose draws are decided by `forced` (bit i: draw i "yes").
    pub(crate) fn forced(forced: u64) -> Draws {
        Draws {
            forced,
            draws: 0,
            drawn: 0,
            probability: 1.0,
        }
    }

    /// A draw of `probability` decided: a certain one is no draw (the interpreter's
    /// steer makes none), else the next one. `Err` where the interpreter stops (no
    /// probability, or more than 64 draws in one event): it takes the point over.
    pub(super) fn decide(&mut self, probability: f64) -> Result<bool, NotFinite> {
        if !(0.0..=1.0).contains(&probability) {
            return Err(NotFinite);
        }
        if probability <= 0.0 {
            return Ok(false);
        }
        if probability >= 1.0 {
            return Ok(true);
        }
        if self.drawn >= MAX_DRAWS {
            return Err(NotFinite);
        }
        let taken = self.forced >> self.drawn & 1 == 1;
        self.draws |= u64::from(taken) << self.drawn;
        self.drawn += 1;
        self.probability *= if taken {
            probability
        } else {
            1.0 - probability
        };
        Ok(taken)
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

impl Flat<'_> {
    /// How many ways actor `actor`'s next event runs from `state` (`to`, `delta`: the
    /// buffers of a step): the transitions the interpreter counts for an event it tried
    /// and dropped (the reduction took another alone). None for an actor that may crash
    /// anywhere: the interpreter's reduction does not try its events.
    pub(crate) fn ways(
        &self,
        state: &[u64],
        actor: u32,
        (to, delta): (&mut [u64], &mut [u64]),
        ways: &mut Ways,
    ) -> Result<u64, NotFinite> {
        if self.may_crash_anywhere(actor) {
            return Ok(0);
        }
        if !self.draws {
            return Ok(1);
        }
        ways.begin();
        let mut count = 0;
        while let Some((mut draws, given)) = ways.next() {
            self.step(state, actor, to, delta, &mut draws)?;
            ways.ran(&draws, given);
            count += 1;
        }
        Ok(count)
    }

    /// Whether every way actor `actor`'s next event may run from `state` (its place
    /// `(repetition, step)`) reaches a shared step the reduction takes alone, or none:
    /// the interpreter takes an event alone when each of its ways commutes. A draw that
    /// stops the interpreter is taken as "no" here: the step itself hands the point over.
    pub(super) fn alone_every_way(&self, state: &[u64], actor: usize, place: (u64, u64)) -> bool {
        let group = self.members[actor].group as usize;
        let mut ways = Ways::default();
        ways.begin();
        while let Some((mut draws, given)) = ways.next() {
            let next = self.shared_next(state, actor, place, &mut draws);
            if !next.is_none_or(|step| self.alone[group][step]) {
                return false;
            }
            ways.ran(&draws, given);
        }
        true
    }
}
