//! Crashes in a flat state: a group's `crash_anywhere` as the interpreter's explorer
//! injects it: at an actor's going on (a resumption: not its start), while its group's
//! crashes along the execution are not all spent (the crashes of every group count, as
//! the interpreter's one count does); and a `crash` step, whose probability is a fault: a
//! draw while the execution's faults (the actors such a step killed, and the restarts it
//! made) are fewer than `--max-faults`, else "no". A crash that restarts its actor (where
//! a repetition is left) and a rule by names are [`super::restart`]'s.
//!
//! A crashed actor's job (down for good) is freed where it stood, as the interpreter's: what it read is
//! blanked, its tokens and what it took are forgotten, a lock it holds stays taken (its
//! waiters wait for good) and a message it took is gone (or comes back at its queue's
//! visibility timeout). Its place becomes one past every other it can reach (its place
//! then kept, which the interpreter's job keeps as its step), so that a state says which
//! actors crashed and where: the crashes spent, each group's crashed and each actor's
//! end follow from that, as the interpreter's words for them do.

use super::ways::Draws;
use super::{Flat, NONE, NotFinite, PLACE, STARTED};
use crate::point::{CrashRule, Duration, Step};

impl Flat<'_> {
    /// Where actor `actor`'s crashed places begin: past its stopped ones
    /// ([`Flat::stopped`]), its freed ones and its restarting ones
    /// ([`Flat::restarting_from`]), whatever its places a repetition.
    pub(super) fn crashed_from(&self, actor: usize) -> u64 {
        2 * self.restarting_from(actor)
    }

    /// Whether actor `actor` has crashed in `state`.
    fn crashed(&self, state: &[u64], actor: usize) -> bool {
        self.crashed_at(state, actor).is_some()
    }

    /// The `crash_anywhere` crashes along the execution that reached `state` (those of
    /// every group: the interpreter counts them as one).
    pub(crate) fn crashes(&self, state: &[u64]) -> u32 {
        if !self.crash {
            return 0;
        }
        let restarted = self.restarts(state, false);
        (0..self.members.len())
            .filter(|&actor| self.crashed(state, actor))
            .count() as u32
            + restarted
    }

    /// Whether actor `actor`'s group may crash anywhere: the reduction never takes its
    /// events alone (its crashes are shared with every order), as the interpreter's.
    pub(super) fn may_crash_anywhere(&self, actor: u32) -> bool {
        self.members.get(actor as usize).is_some_and(|member| {
            self.point.groups[member.group as usize]
                .crash_anywhere
                .is_some()
        })
    }

    /// Whether actor `actor`'s free event in `state` may be a crash, `spent` crashes
    /// ([`Flat::crashes`]) along the execution: a resumption (not a start) of an actor of
    /// a group that may crash anywhere, while its group's crashes are not all spent.
    pub(crate) fn may_crash(&self, state: &[u64], actor: u32, spent: u32) -> bool {
        let Some(member) = self.members.get(actor as usize) else {
            return false;
        };
        let group = &self.point.groups[member.group as usize];
        group.crash_anywhere.as_ref().is_some_and(|(count, _)| {
            spent < *count
                && state[self.base(actor as usize)] & STARTED != 0
                && !self.crashed(state, actor as usize)
                && !self.polling(state, actor as usize)
        })
    }

    /// Actor `actor`'s free event run from `from` into `to` as a crash instead (its
    /// counts' `delta` none): the clock moved on to it where time moves on, its job freed
    /// where it stood, its place a crashed one, or a restarting one where its group
    /// restarts ([`Flat::die`]).
    pub(crate) fn crash(
        &self,
        from: &[u64],
        actor: u32,
        to: &mut [u64],
        delta: &mut [u64],
    ) -> Result<(), NotFinite> {
        delta.fill(0);
        let actor = actor as usize;
        let now = if self.timed {
            self.advance(from, actor, to)?
        } else {
            to.copy_from_slice(from);
            0
        };
        let place = to[self.base(actor)] & PLACE;
        let group = &self.point.groups[self.members[actor].group as usize];
        let restart = group.crash_anywhere.as_ref().and_then(|(_, r)| r.as_ref());
        self.die(to, actor, (place, now), restart, false)?;
        Ok(())
    }

    /// Actor `actor` crashed at place `place` at `now`: its job freed where it stood (what
    /// it read blanked, its tokens and what it took forgotten), its place a crashed one,
    /// and where time moves on, no event of its own due and its end now.
    pub(super) fn crash_here(&self, to: &mut [u64], actor: usize, place: u64, now: u64) {
        let base = self.base(actor);
        to[base] = (to[base] & !PLACE) | STARTED | (self.crashed_from(actor) + place);
        to[base + 1..base + 1 + self.registers].fill(f64::NAN.to_bits());
        self.give_back(to, actor);
        if self.timed {
            let due = self.due_at(actor);
            to[due] = NONE;
            to[due + 2] = now;
        }
    }

    /// The place actor `actor` crashed at in `state`, if it crashed.
    pub(super) fn crashed_at(&self, state: &[u64], actor: usize) -> Option<u64> {
        let place = state[self.base(actor)] & PLACE;
        place.checked_sub(self.crashed_from(actor))
    }

    /// A crash step of `rule` (restarting after `restart`) run by actor `actor` at
    /// `place` at `now`: where it dies ([`Flat::dies`]), its crashed place
    /// ([`Flat::crash_here`]) or its restarting one ([`Flat::die`]).
    pub(super) fn crash_step(
        &self,
        to: &mut [u64],
        actor: usize,
        (rule, restart, place, now): (&CrashRule, &Option<Duration>, u64, u64),
        draws: &mut Draws,
    ) -> Result<Option<u64>, NotFinite> {
        if !self.dies(rule, (actor, place), to, draws)? {
            return Ok(None);
        }
        let fault = matches!(rule, CrashRule::Probability(..));
        self.die(to, actor, (place, now), restart.as_ref(), fault)
            .map(Some)
    }

    /// Whether a crash step of `rule` kills actor `actor` (in `state`, before it): every
    /// actor, the first ones, or by its probability, a fault decided by `draws` within the
    /// execution's budget ([`Flat::faults`]), or by its name (`place`: where it stands).
    fn dies(
        &self,
        rule: &CrashRule,
        (actor, place): (usize, u64),
        state: &[u64],
        draws: &mut Draws,
    ) -> Result<bool, NotFinite> {
        match rule {
            CrashRule::All => Ok(true),
            CrashRule::First(first) => Ok(u64::from(self.members[actor].index) < *first),
            CrashRule::Probability(probability, _) => {
                let left = self.faults(state) < self.max_faults;
                draws.decide_fault(*probability, left).ok_or(NotFinite)
            }
            CrashRule::Names(_) => {
                let stride = u64::from(self.members[actor].steps) + u64::from(self.timed);
                Ok(self.named(actor, (place % stride) as usize))
            }
        }
    }

    /// The faults along the execution that reached `state`: the actors a crash step's
    /// probability killed (a crashed place says at which step), and its restarts.
    fn faults(&self, state: &[u64]) -> u32 {
        if !self.crash_steps {
            return 0;
        }
        let restarted = self.restarts(state, true);
        let by_chance = |actor: usize, place: u64| {
            let member = self.members[actor];
            let stride = u64::from(member.steps) + u64::from(self.timed);
            matches!(
                self.point.groups[member.group as usize].steps[(place % stride) as usize],
                Step::Crash {
                    rule: CrashRule::Probability(..),
                    ..
                }
            )
        };
        (0..self.members.len())
            .filter(|&actor| {
                self.crashed_at(state, actor)
                    .is_some_and(|p| by_chance(actor, p))
            })
            .count() as u32
            + restarted
    }
}

/// Whether a group's crashes are ones the flat back end keeps (their places within a
/// place's bits), and whether one restarts its actor: a restart needs time (its actor is
/// down until it is due), so its point keeps a timed state.
pub(super) fn covered(group: &crate::point::Group) -> Result<bool, &'static str> {
    let steps = (group.steps.iter()).filter(|s| matches!(s, Step::Crash { .. }));
    let restarts = steps.clone().any(|s| {
        matches!(
            s,
            Step::Crash {
                restart: Some(_),
                ..
            }
        )
    }) || matches!(group.crash_anywhere, Some((_, Some(_))));
    if steps.count() > 0 || group.crash_anywhere.is_some() {
        places(group)?;
    }
    Ok(restarts)
}

/// Whether a group that may crash has its crashed places within a place's bits (they
/// begin past its restarting ones: four times its places a repetition and its stops').
fn places(group: &crate::point::Group) -> Result<(), &'static str> {
    let places = (group.repeat.saturating_mul(2).saturating_add(2))
        .saturating_mul(group.steps.len() as u64 + 1);
    if places.saturating_mul(4) > PLACE {
        return Err("an actor that may crash runs more than 2^56 steps");
    }
    Ok(())
}
