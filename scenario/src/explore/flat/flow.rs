//! Control flow in a flat state: a group's `if`s, `stop`s and early ends, lowered by the
//! point into branches and jumps over its program, run as the interpreter runs them.
//!
//! An actor's place stays one number (its repetition and its step: a program counter over
//! the lowered list). None of these steps is shared: an event runs them before its one
//! shared step (a start, a retry from the first step, a resumption after a delay) and after
//! it, up to the next shared step, where the actor yields, as the interpreter's loop does.
//! A condition reads only what the flat state holds: the job's outcome, what the actor read
//! or took, `i`, the repetition, the parameters and the clock.
//!
//! What the interpreter's fingerprint tells apart beside the steps done is kept: an early
//! end that gives up counts in the actor's give-ups (a word of its block, beside a
//! compare-and-set's counts), a job freed at an early end stays at that step (its place
//! past its last step by that step and one, as a compare-and-set's last give-up), and a
//! `stop` marks the actor stopped at its repetition and step (a place past every other).

use super::ways::Draws;
use super::{
    ACKED, ACQUIRED, APPLIED, At, FULL, Flat, NONE, NOT_HELD, NotFinite, OUTCOME, OUTCOME_SHIFT,
    PLACE, PUT, TAKEN, keys, poll, server,
};
use crate::point::{Condition, Step};
use crate::run::recover as interpreted;

/// Where a step that is not shared (or the end of its steps) takes an actor in a timed
/// state.
pub(super) enum Local {
    /// On at this step of its repetition (a branch, a jump).
    At(u64),
    /// Its next repetition, from its first step.
    Next,
    /// Its job is freed at the step (no event of its own is due).
    Freed,
    /// Stopped, at this place (no event of its own is due).
    Stopped(u64),
}

impl Flat<'_> {
    /// Where a branch or a jump at step `step` moves the actor `at` in `state`, its job's
    /// outcome `outcome` (`None`: `step` is neither), a chance decided by `draws`.
    pub(super) fn moved(
        &self,
        step: &Step,
        at: At,
        state: &[u64],
        (place, outcome): (u64, u64),
        draws: &mut Draws,
    ) -> Result<Option<u64>, NotFinite> {
        Ok(match step {
            Step::Branch {
                condition,
                otherwise,
            } => Some(if self.holds(condition, at, state, outcome, draws)? {
                place + 1
            } else {
                u64::from(*otherwise)
            }),
            Step::Jump(target) => Some(u64::from(*target)),
            _ => None,
        })
    }

    /// Where step `step` (`None`: past the last) of the actor `at`, at `(repetition,
    /// place, outcome)`, takes it in a timed state `to` at `now`, if it is not shared:
    /// a branch or a jump moves it; the end of its steps or an early end ends its
    /// repetition, given up (counted) or completed (a response of its group's), then its
    /// next one goes on or its job is freed; a stop ends it for good (`None`: a shared
    /// step, or a delay). A chance is decided by `draws`.
    pub(super) fn local(
        &self,
        to: &mut [u64],
        step: Option<&Step>,
        (repetition, place, outcome): (&mut u64, u64, u64),
        (at, now): (At, u64),
        draws: &mut Draws,
    ) -> Result<Option<Local>, NotFinite> {
        let (gave_up, stop) = match step {
            None => (false, false),
            Some(Step::Exit { gave_up }) => (*gave_up, false),
            Some(Step::Stop) => (false, true),
            Some(step) => {
                return Ok(self
                    .moved(step, at, to, (place, outcome), draws)?
                    .map(Local::At));
            }
        };
        let actor = at.actor;
        let due = self.due_at(actor);
        if gave_up {
            to[self.give_ups(actor)] += 1;
        } else {
            self.respond(to, actor, now - to[due + 1]);
        }
        if stop {
            // No repetition follows: freed as after its last.
            let stride = u64::from(at.member.steps) + 1;
            let mut last = at.member.repeat - 1;
            self.next_repetition(to, actor, &mut last, now);
            to[due] = NONE;
            return Ok(Some(Local::Stopped(self.stopped(
                actor,
                *repetition,
                place,
                stride,
            ))));
        }
        if self.next_repetition(to, actor, repetition, now) {
            return Ok(Some(Local::Next));
        }
        to[due] = NONE;
        Ok(Some(Local::Freed))
    }

    /// The interpreter's code of a flat outcome (its `if = "…"` compares against it).
    fn outcome_code(outcome: u64) -> u8 {
        match outcome {
            APPLIED => interpreted::APPLIED,
            ACQUIRED => interpreted::ACQUIRED,
            TAKEN => interpreted::TAKEN,
            PUT => interpreted::PUT,
            FULL => interpreted::FULL,
            ACKED => interpreted::ACKED,
            NOT_HELD => interpreted::NOT_HELD,
            keys::INSERTED => interpreted::INSERTED,
            keys::DUPLICATE => interpreted::DUPLICATE,
            keys::FOUND => interpreted::FOUND,
            keys::MISSING => interpreted::MISSING,
            keys::REMOVED => interpreted::REMOVED,
            server::SERVED => interpreted::SERVED,
            server::REFUSED => interpreted::REFUSED,
            poll::RENEWED => interpreted::RENEWED,
            poll::LOST => interpreted::LOST_LEASE,
            poll::REJECTED => interpreted::REJECTED,
            _ => 0,
        }
    }

    /// Whether `condition` holds for the actor `at` in `state`, its job's outcome
    /// `outcome`, as the interpreter's `holds` tells it: a chance (its probability
    /// computed as the interpreter's) decided by `draws`.
    pub(super) fn holds(
        &self,
        condition: &Condition,
        at: At,
        state: &[u64],
        outcome: u64,
        draws: &mut Draws,
    ) -> Result<bool, NotFinite> {
        Ok(match condition {
            Condition::Outcome(code) => Self::outcome_code(outcome) == *code,
            Condition::Chance(probability, _) => {
                (draws.decide(self.value(probability, at, state))).ok_or(NotFinite)?
            }
            Condition::Compare(left, comparison, right) => {
                let (left, right) = (
                    self.operand(left, at, state),
                    self.operand(right, at, state),
                );
                comparison.holds(left, right)
            }
        })
    }

    /// Where actor `actor`'s count of give-ups is (a word of its block where some write is
    /// a compare-and-set or some end gives up).
    fn give_ups(&self, actor: usize) -> usize {
        self.base(actor) + 1 + self.registers + 2
    }

    /// The place of an actor stopped by a `stop` at step `step` of repetition
    /// `repetition`: past every place its steps reach otherwise (`stride`: its places a
    /// repetition).
    pub(super) fn stopped(&self, actor: usize, repetition: u64, step: u64, stride: u64) -> u64 {
        let member = self.members[actor];
        (member.repeat + 2) * stride + repetition * stride + step
    }

    /// Actor `actor`'s steps that are not shared run in `to` (a point at 0 ms), from its
    /// place: branches and jumps move it, an early end ends its repetition (the next one
    /// goes on, from its first step), a `stop` ends it for good; until a shared step (where
    /// it yields, or which its event runs next) or its job is freed. A chance is decided
    /// by `draws`.
    pub(super) fn walk(
        &self,
        to: &mut [u64],
        actor: usize,
        draws: &mut Draws,
    ) -> Result<(), NotFinite> {
        let member = self.members[actor];
        let base = self.base(actor);
        let steps = u64::from(member.steps);
        let program = &self.point.groups[member.group as usize].steps;
        loop {
            let word = to[base];
            let (place, outcome) = (word & PLACE, (word >> OUTCOME_SHIFT) & OUTCOME);
            if place >= member.total {
                return Ok(());
            }
            let (repetition, step) = (place / steps, place % steps);
            let next = match &program[step as usize] {
                Step::Branch { .. } | Step::Jump(_) => {
                    let at = At::at_zero(actor, member, repetition);
                    let moved =
                        self.moved(&program[step as usize], at, to, (step, outcome), draws)?;
                    repetition * steps + moved.unwrap_or(step + 1)
                }
                Step::Exit { gave_up } => {
                    if *gave_up {
                        to[self.give_ups(actor)] += 1;
                    }
                    // Its next repetition; after its last, the job freed at this step.
                    let next = (repetition + 1) * steps;
                    if next == member.total {
                        next + 1 + step
                    } else {
                        next
                    }
                }
                Step::Stop => {
                    // Its repetition ends (completed), and no other starts: freed here.
                    let stopped = self.stopped(actor, repetition, step, steps);
                    self.go_on_only(to, actor, stopped, outcome);
                    return Ok(());
                }
                _ => return Ok(()),
            };
            self.go_on_only(to, actor, next, outcome);
        }
    }

    /// The step of its program that actor `actor`'s next event runs as its shared step,
    /// from its place `(repetition, step)` in `state` (`stride`: its places a repetition,
    /// its steps and, in a timed state, its end): through its branches and jumps, early
    /// ends and repetitions' ends, as the event will run them. `None` where the event runs
    /// none (it stops, delays, or its job is freed first): it touches nothing another
    /// could, as the interpreter's reduction sees it. A chance is decided by `draws` (one
    /// that stops the interpreter: none, the step hands the point over).
    pub(super) fn shared_next(
        &self,
        state: &[u64],
        actor: usize,
        (mut repetition, mut step): (u64, u64),
        draws: &mut Draws,
    ) -> Option<usize> {
        let member = self.members[actor];
        let steps = u64::from(member.steps);
        let program = &self.point.groups[member.group as usize].steps;
        let mut outcome = (state[self.base(actor)] >> OUTCOME_SHIFT) & OUTCOME;
        // After a repetition's end, what it read is blanked (the conditions read none).
        let mut fresh = false;
        let now = if self.timed { state[self.clock()] } else { 0 };
        loop {
            if step >= steps {
                if repetition + 1 >= member.repeat {
                    return None;
                }
                (repetition, step, outcome, fresh) = (repetition + 1, 0, 0, true);
            }
            match &program[step as usize] {
                Step::Branch { .. } | Step::Jump(_) => {
                    let at = At {
                        actor,
                        member,
                        repetition,
                        now,
                        read: f64::NAN,
                        blank: fresh,
                        kid: 0,
                    };
                    let moved =
                        self.moved(&program[step as usize], at, state, (step, outcome), draws);
                    step = moved.ok()?.unwrap_or(step + 1);
                }
                Step::Exit { .. } => step = steps,
                Step::Stop | Step::Delay(_) | Step::Pause(_) => return None,
                _ => return Some(step as usize),
            }
        }
    }
}
