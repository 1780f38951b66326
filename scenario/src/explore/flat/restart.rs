//! Crashes that restart their actor in a flat state (a `crash` step's `restart_after_ms`,
//! a group's `crash_anywhere` with one), and crash steps by names.
//!
//! A restart needs time (the actor is down until its restart is due), so a point with one
//! keeps a timed state ([`super::time`]). The interpreter rolls the crashed repetition
//! back, blanks what the actor read, its tokens, what it took and what its key steps left
//! in the stores' names, and (where a repetition is left) resumes the same job at the
//! next repetition's first step after the restart's time; with none left it is down for
//! good, as a crash with no restart ([`super::crash`]). A restarting actor's place is one
//! of its own range (past its stopped places, before its crashed ones): its next
//! repetition, so that its resumption (the interpreter's job stands at no step) is told
//! apart from a yield at that repetition's first step. Each actor's block keeps two words
//! beside it: its restarts (its lost repetitions, the interpreter's counts of crashed and
//! restarted follow) and those a crash step's probability made (faults, which count
//! against `--max-faults`).

use super::{At, Flat, NotFinite, STARTED};
use crate::point::{CrashRule, Duration, Step};

/// Words a restart adds to each actor's block: its restarts, and those that were faults.
const WORDS: usize = 2;

impl Flat<'_> {
    /// The point with its restarts' words (where a crash restarts its actor: each block
    /// keeps [`WORDS`] more, before its key stores' words) and its crash steps by names
    /// worked out for each member.
    pub(super) fn with_restarts(mut self) -> Self {
        let live = || self.point.groups.iter().filter(|g| g.count > 0);
        let restarts = live().any(|g| {
            matches!(g.crash_anywhere, Some((_, Some(_))))
                || (g.steps.iter()).any(|s| {
                    matches!(
                        s,
                        Step::Crash {
                            restart: Some(_),
                            ..
                        }
                    )
                })
        });
        let named = (live().flat_map(|g| &g.steps)).any(|s| {
            matches!(
                s,
                Step::Crash {
                    rule: CrashRule::Names(_),
                    ..
                }
            )
        });
        if named {
            self.restart.named = (self.members.iter())
                .map(|member| {
                    let group = &self.point.groups[member.group as usize];
                    let name = group.actor_name(member.index);
                    (group.steps.iter())
                        .map(|step| match step {
                            Step::Crash {
                                rule: CrashRule::Names(names),
                                ..
                            } => names.contains(&name),
                            _ => false,
                        })
                        .collect()
                })
                .collect();
        }
        if restarts {
            self.restart.words = WORDS;
            self.block += WORDS;
            self.width = self.header + self.members.len() * self.block;
        }
        self
    }

    /// Whether a crash step by names at step `step` names actor `actor`.
    pub(super) fn named(&self, actor: usize, step: usize) -> bool {
        self.restart.named[actor][step]
    }

    /// Where actor `actor`'s restart words are (its restarts, then its faults among them).
    fn restart_at(&self, actor: usize) -> usize {
        self.base(actor) + self.block - self.keys.kept - self.restart.words
    }

    /// The restarts along the execution that reached `state` (0: no crash restarts); with
    /// `faults`, only those a crash step's probability made.
    pub(super) fn restarts(&self, state: &[u64], faults: bool) -> u32 {
        if self.restart.words == 0 {
            return 0;
        }
        (0..self.members.len())
            .map(|actor| state[self.restart_at(actor) + usize::from(faults)] as u32)
            .sum()
    }

    /// Where actor `actor`'s restarting places begin (its next repetition's number added):
    /// past its stopped places, before its crashed ones ([`Flat::crashed_from`]).
    pub(super) fn restarting_from(&self, actor: usize) -> u64 {
        let member = self.members[actor];
        (2 * member.repeat + 2) * (u64::from(member.steps) + 1)
    }

    /// The repetition a place begins again, where it is a restarting one.
    fn restarting(&self, actor: usize, place: u64) -> Option<u64> {
        let from = self.restarting_from(actor);
        (place >= from && place < 2 * from).then(|| place - from)
    }

    /// Whether `place` is a restarting one of actor `actor`.
    pub(super) fn is_restarting(&self, actor: usize, place: u64) -> bool {
        self.restarting(actor, place).is_some()
    }

    /// The place actor `actor`'s next event runs from: a restarting place's repetition's
    /// first step, any other as it is (`stride`: its places a repetition).
    pub(super) fn resumed_at(&self, actor: usize, place: u64, stride: u64) -> u64 {
        self.restarting(actor, place)
            .map_or(place, |repetition| repetition * stride)
    }

    /// Actor `actor` dies at place `place` at `now` (`fault`: by a crash step's
    /// probability): it restarts after `restart` where it has a repetition left (what it
    /// read, its tokens, what it took and what its key steps left forgotten, its
    /// conflicts none, no outcome, its next event due then, its next repetition starting
    /// then), else it is down for good ([`Flat::crash_here`]). Its place then.
    pub(super) fn die(
        &self,
        to: &mut [u64],
        actor: usize,
        (place, now): (u64, u64),
        restart: Option<&Duration>,
        fault: bool,
    ) -> Result<u64, NotFinite> {
        let member = self.members[actor];
        let stride = u64::from(member.steps) + u64::from(self.timed);
        let repetition = self
            .restarting(actor, place)
            .unwrap_or(place / stride.max(1));
        let Some(restart) = restart.filter(|_| repetition + 1 < member.repeat) else {
            self.crash_here(to, actor, place, now);
            return Ok(self.crashed_from(actor) + place);
        };
        let at = At {
            now,
            ..At::at_zero(actor, member, repetition)
        };
        let after = self.duration(restart, at, to)?;
        let restarted = now.checked_add(after).ok_or(NotFinite)?;
        let base = self.base(actor);
        to[base + 1..base + 1 + self.registers].fill(f64::NAN.to_bits());
        self.give_back(to, actor);
        if self.cas {
            to[base + 1 + self.registers] = 0;
        }
        let words = self.restart_at(actor);
        to[words] += 1;
        to[words + 1] += u64::from(fault);
        let due = self.due_at(actor);
        to[due] = after;
        to[due + 1] = restarted;
        let place = self.restarting_from(actor) + repetition + 1;
        to[base] = STARTED | place;
        Ok(place)
    }
}
