//! Time in a flat state: the clock and each actor's pending timer, for points whose actors
//! start after 0 ms or whose steps include delays (and pauses).
//!
//! Such a point's state adds to the words of one at 0 ms
//!
//! ```text
//! [ the clock (the time of the last event) | each register: the instant of its last
//!   landing (+1; 0: none), its value as that instant began | each group: the sum, the
//!   greatest and the multiset word of its responses
//! | each actor (in its block): when its next event is due, less the clock (none: it has
//!   ended), when its repetition started, when its last one ended ]
//! ```
//!
//! (an actor's block ends after them with its restarts' words, [`super::restart`], and
//! its key stores' words, [`super::keys`]; the header with the stores' words and the last
//! transaction's put, [`super::tx`]), which are what the interpreter's fingerprint tells
//! apart beside the steps done: its clock and its pending events' times, a register's
//! instant, a job's start, an actor's end and a group's samples of responses ([`sim_core::sample_spread`]: the same word its
//! hash takes). An actor's place counts `steps + 1` a repetition (a delay that ends a
//! repetition is due before the repetition's end, which its next repetition's first step
//! is not), and an event runs as the interpreter's does: from the actor's place, at most
//! one shared step, the end of a repetition and the next one's first steps, until a shared
//! step yields (due now), a delay (due after it) or the last repetition ends. The free
//! events are those due first, starts (by actor) before resumptions (by actor). Every word
//! of one actor's time is in its block (its due time too), so sorting the blocks stays the
//! whole canonical order under symmetry.

use sim_core::sample_spread;

use super::flow::Local;
use super::poll::REJECTED;
use super::ways::Draws;
use super::{
    ACQUIRED, APPLIED, At, Flat, NONE, NotFinite, OUTCOME, OUTCOME_SHIFT, PLACE, STARTED, TAKEN,
    actor_words, header_words,
};
use crate::point::{Pick, Step};

impl Flat<'_> {
    /// Where the clock is.
    pub(super) fn clock(&self) -> usize {
        // The key stores' words end the header, after these.
        self.header
            - self.keys.start.len()
            - header_words(self.registers, self.point.groups.len(), self.locks)
    }

    /// Where lock `lock`'s time words are.
    pub(super) fn lock_time(&self, lock: usize) -> usize {
        self.clock() + 1 + 2 * self.registers + 3 * self.point.groups.len() + 5 * lock
    }

    /// Where actor `actor`'s due time is (its repetition's start and its end follow, then
    /// its lock words of time).
    pub(super) fn due_at(&self, actor: usize) -> usize {
        self.base(actor) + self.block
            - self.keys.kept
            - self.restart.words
            - actor_words(self.waiting)
    }

    /// Actor `actor` took lock `lock` now, its words of time as the interpreter's `acquire`
    /// sets them: the lock held since now, the wait since its acquire began a sample of the
    /// lock's and added to the actor's.
    pub(super) fn took_timed(&self, to: &mut [u64], actor: usize, lock: usize) {
        let (now, due, at) = (to[self.clock()], self.due_at(actor), self.lock_time(lock));
        let waited = now - to[due + 4];
        to[at] = now;
        to[at + 2] += waited;
        to[at + 3] = to[at + 3].max(waited);
        to[at + 4] = to[at + 4].wrapping_add(sample_spread(waited));
        to[due + 3] += waited;
    }

    /// Lock `lock` released now: the time it was held added up.
    pub(super) fn released_timed(&self, to: &mut [u64], lock: usize) {
        let (now, at) = (to[self.clock()], self.lock_time(lock));
        to[at + 1] += now - to[at];
        to[at] = 0;
    }

    /// The start of a timed point: as at 0 ms, with the clock at 0, no register landed on,
    /// no response, and each actor's start due at its start time.
    pub(super) fn start_timed(&self, state: &mut Vec<u64>) {
        state.clear();
        let registers = &self.point.registers;
        state.extend(registers.iter().map(|r| r.initial.to_bits()));
        state.push(0);
        for lock in 0..self.locks {
            // No record (or a stale one), the first token next.
            state.extend([self.record_at_start(lock), 1]);
        }
        self.start_queues(state);
        self.start_polls(state);
        state.push(0);
        state.extend(std::iter::repeat_n(0, self.registers));
        state.extend(registers.iter().map(|r| r.initial.to_bits()));
        state.extend(std::iter::repeat_n(
            0,
            3 * self.point.groups.len() + 5 * self.locks,
        ));
        self.start_keys(state);
        let time_words = actor_words(self.waiting);
        for member in &self.members {
            state.push(0);
            state.extend(std::iter::repeat_n(f64::NAN.to_bits(), self.registers));
            // Its restarts' and key stores' words follow its time's ([`Flat::due_at`]).
            let after = self.restart.words + self.keys.kept;
            state.extend(std::iter::repeat_n(
                0,
                self.block - 1 - self.registers - time_words - after,
            ));
            let due = if member.repeat > 0 {
                member.start
            } else {
                NONE
            };
            state.extend([due, 0, 0]);
            state.extend(std::iter::repeat_n(0, time_words - 3 + after));
        }
        self.start_servers(state);
    }

    /// The free events of a timed state: the servers' and actors' whose events are due
    /// first, the servers' (class 0, as `actors + server`) before the actors' starts
    /// (class `1 + actor`) before their resumptions, each by its owner.
    pub(super) fn free_timed(&self, state: &[u64], free: &mut Vec<u32>) {
        free.clear();
        if self.stuck(state) {
            return;
        }
        let actors = 0..self.members.len();
        // A server's events (class 0) come first at their instant.
        let servers = self.servers_due(state, free);
        let first = actors.clone().map(|a| state[self.due_at(a)]).min();
        let first = first.unwrap_or(NONE).min(servers);
        if servers != first {
            free.clear();
        }
        if first == NONE {
            return;
        }
        let due_now = |a: &usize| state[self.due_at(*a)] == first;
        let started = |a: &usize| state[self.base(*a)] & STARTED != 0;
        free.extend((actors.clone().filter(|a| due_now(a) && !started(a))).map(|a| a as u32));
        free.extend((actors.filter(|a| due_now(a) && started(a))).map(|a| a as u32));
    }

    /// Whether the reduction takes actor `actor`'s next event alone: by the table, its
    /// first shared step's; an event that runs none (a delay's, the last end's) touches
    /// nothing another could.
    pub(super) fn alone_timed(&self, state: &[u64], actor: u32) -> bool {
        if !self.reduce {
            return false;
        }
        // A server's event is no actor's step: never taken alone, as the interpreter's.
        let Some(&member) = self.members.get(actor as usize) else {
            return false;
        };
        let stride = u64::from(member.steps) + 1;
        let place = state[self.base(actor as usize)] & PLACE;
        let place = self.resumed_at(actor as usize, place, stride);
        if self.flow {
            // The shared step its event runs, past the steps that are not (none: it runs
            // none, and touches nothing another could).
            return self.alone_every_way(state, actor as usize, (place / stride, place % stride));
        }
        let (repetition, mut at) = (place / stride, (place % stride) as usize);
        if at == member.steps as usize {
            if repetition + 1 >= member.repeat {
                return true;
            }
            at = 0;
        }
        match self.point.groups[member.group as usize].steps[at] {
            Step::Delay(_) | Step::Pause(_) => true,
            _ => self.alone_at(actor as usize, member.group, at),
        }
    }

    /// Actor `actor`'s next event run from `from` into `to`, as [`Flat::step`] says: the
    /// clock moved on to it, then its steps from its place (its draws decided by
    /// `draws`).
    pub(super) fn step_timed(
        &self,
        from: &[u64],
        actor: u32,
        to: &mut [u64],
        delta: &mut [u64],
        draws: &mut Draws,
    ) -> Result<(), NotFinite> {
        delta.fill(0);
        let actor = actor as usize;
        if let Some(server) = actor.checked_sub(self.members.len()) {
            return self.server_event(from, server, to, (delta, draws));
        }
        if self.polling(from, actor) {
            return self.retry(from, actor, to, (delta, draws));
        }
        let now = self.advance(from, actor, to)?;
        let due = self.due_at(actor);
        let base = self.base(actor);
        if from[base] & STARTED == 0 {
            // Its start: its first repetition's job begins now (and its first step).
            to[due + 1] = now;
            if self.waiting {
                to[due + 4] = now;
            }
        }
        let outcome = (from[base] >> OUTCOME_SHIFT) & OUTCOME;
        let stride = u64::from(self.members[actor].steps) + 1;
        let place = self.resumed_at(actor, from[base] & PLACE, stride);
        let handed = self.run(to, actor, (place, outcome, false), (delta, &mut *draws))?;
        if let Some((waiter, outcome)) = handed {
            // The lock's next holder (or the message's taker) goes on past its acquire (its
            // take) in this event, after the releaser's (the putter's) steps: it acted
            // already, so its next shared step waits.
            let place = (to[self.base(waiter)] & PLACE) + 1;
            self.run(to, waiter, (place, outcome, true), (delta, draws))?;
        }
        Ok(())
    }

    /// `from` copied into `to` with the clock moved on to actor `actor`'s next event, and
    /// the time it comes at. `Err` past the run's time limit.
    pub(super) fn advance(
        &self,
        from: &[u64],
        actor: usize,
        to: &mut [u64],
    ) -> Result<u64, NotFinite> {
        self.advance_by(from, to, from[self.due_at(actor)])
    }

    /// `from` copied into `to` with the clock moved on by `elapsed` (ns), and the time
    /// that is. `Err` past the run's time limit.
    pub(super) fn advance_by(
        &self,
        from: &[u64],
        to: &mut [u64],
        elapsed: u64,
    ) -> Result<u64, NotFinite> {
        to.copy_from_slice(from);
        let clock = self.clock();
        let now = from[clock] + elapsed;
        if now > self.max_time {
            // A run stops at an event due past its limit: the interpreter, which takes the
            // point over, expands this state too and stops there with the run's words.
            return Err(NotFinite);
        }
        if elapsed > 0 {
            to[clock] = now;
            for other in 0..self.members.len() {
                let at = self.due_at(other);
                if to[at] != NONE {
                    to[at] -= elapsed;
                }
            }
        }
        Ok(now)
    }

    /// Actor `actor`'s steps run in `to` at the clock's time from `(place, outcome,
    /// acted)`: until its next shared step once it has `acted`, a delay, a wait for a
    /// lock or a message, or its last end. The waiter a release handed its lock to (or a
    /// put its message), if any, with its outcome. Its chances are decided by `draws`.
    pub(super) fn run(
        &self,
        to: &mut [u64],
        actor: usize,
        (place, mut outcome, mut acted): (u64, u64, bool),
        (delta, draws): (&mut [u64], &mut Draws),
    ) -> Result<Option<(usize, u64)>, NotFinite> {
        let member = self.members[actor];
        let (now, due, base) = (to[self.clock()], self.due_at(actor), self.base(actor));
        let stride = u64::from(member.steps) + 1;
        let (mut repetition, mut at) = (place / stride, place % stride);
        let steps = &self.point.groups[member.group as usize].steps;
        let conflicts = base + 1 + self.registers;
        let (mut handed, mut stopped) = (None, None);
        // Where a number of its steps is computed.
        let at_now = |repetition| at_time(actor, member, repetition, now);
        loop {
            // Past its last step, or a step that is not shared ([`super::flow`]).
            let step = steps.get(at as usize);
            let moment = (at_now(repetition), now);
            if let Some(local) =
                self.local(to, step, (&mut repetition, at, outcome), moment, draws)?
            {
                match local {
                    Local::At(next) => at = next,
                    Local::Next => (at, outcome) = (0, 0),
                    Local::Freed => break,
                    Local::Stopped(place) => {
                        stopped = Some(place);
                        break;
                    }
                }
                continue;
            }
            let Some(step) = step else { break };
            if let Step::Delay(duration) | Step::Pause(duration) = step {
                let ns = self.duration(duration, at_now(repetition), to)?;
                to[due] = ns;
                now.checked_add(ns).ok_or(NotFinite)?;
                at += 1;
                break;
            }
            if acted {
                // Its next shared step is an event of its own, at this instant.
                to[due] = 0;
                break;
            }
            acted = true;
            let buffers = (&mut *delta, &mut *draws);
            if let Some(ran) = self.at_once(to, step, at_now(repetition), (at, outcome), buffers)? {
                (at, outcome) = (ran.0, ran.1);
                handed = ran.2.map(|waiter| (waiter, TAKEN)).or(handed);
                continue;
            }
            match step {
                Step::Write {
                    register,
                    value,
                    cas,
                    max_retries,
                } => {
                    let register = *register as usize;
                    let written = self.written(value, at_now(repetition), to, register)?;
                    if self.lands_fenced_off(to, delta, (actor, register), now) {
                        (outcome, at) = (REJECTED, at + 1);
                        continue;
                    }
                    if self.land(to, delta, register, written, *cas) {
                        to[conflicts] += 1;
                        if to[conflicts] < *max_retries {
                            // The same repetition again from its first step, as an event
                            // of its own at this instant, what it read kept.
                            to[conflicts + 1] += 1;
                            at = 0;
                            to[due] = 0;
                            break;
                        }
                        // It gives up: the repetition ends, no response; the job stays at
                        // this step when it was the last.
                        to[conflicts + 2] += 1;
                        to[due + 2] = now;
                        if self.next_repetition(to, actor, &mut repetition, now) {
                            (at, outcome) = (0, 0);
                            continue;
                        }
                        to[due] = NONE;
                        break;
                    }
                    self.fence_accept(to, actor, register);
                    outcome = APPLIED;
                    at += 1;
                }
                Step::Acquire {
                    lock: Pick::One(lock),
                    ..
                } => {
                    if !self.acquire_at(to, actor, *lock as usize, now)? {
                        break;
                    }
                    (outcome, at) = (ACQUIRED, at + 1);
                }
                Step::Release(Pick::One(lock)) => {
                    handed = self.release_at(to, actor, *lock as usize, now)?;
                    at += 1;
                }
                Step::Renew(Pick::One(lock)) => {
                    (outcome, at) = (self.renew(to, actor, *lock as usize, now), at + 1);
                }
                Step::Put {
                    queue,
                    value,
                    fields,
                } => {
                    let at_put = at_now(repetition);
                    let waiter;
                    (outcome, waiter) =
                        self.put_message(to, at_put, *queue as usize, (value, fields))?;
                    handed = waiter.map(|waiter| (waiter, TAKEN));
                    at += 1;
                }
                Step::Take { .. } | Step::Request { .. } => {
                    // Its wait, if any, counts from here: it goes on at once (a message
                    // taken, a request refused) or waits (a departure, a put).
                    to[due + 4] = now;
                    let Some(went_on) = self.wait_step(to, actor, step, at_now(repetition))? else {
                        to[due] = NONE;
                        break;
                    };
                    (outcome, at) = (went_on, at + 1);
                }
                Step::Crash { rule, restart } => {
                    let place = repetition * stride + at;
                    stopped = self.crash_step(to, actor, (rule, restart, place, now), draws)?;
                    if stopped.is_some() {
                        break;
                    }
                    at += 1;
                }
                // [`Flat::of`] lets in no other step: the interpreter takes over if one came.
                _ => return Err(NotFinite),
            }
        }
        let place = stopped.unwrap_or(repetition * stride + at);
        // A restart begins its next repetition with no outcome.
        if self.is_restarting(actor, place) {
            outcome = 0;
        }
        to[base] = STARTED | outcome << OUTCOME_SHIFT | place;
        Ok(handed)
    }

    /// A response of actor `actor`'s group that took `took` (ns): its sum, its greatest and
    /// its multiset word.
    pub(super) fn respond(&self, to: &mut [u64], actor: usize, took: u64) {
        let group = self.members[actor].group as usize;
        let responses = self.clock() + 1 + 2 * self.registers + 3 * group;
        to[responses] += took;
        to[responses + 1] = to[responses + 1].max(took);
        to[responses + 2] = to[responses + 2].wrapping_add(sample_spread(took));
    }

    /// A repetition of actor `actor` ended at `now` (its end set, what it read blanked):
    /// true when another follows (its start now, no conflict yet), false when the job is
    /// freed.
    pub(super) fn next_repetition(
        &self,
        to: &mut [u64],
        actor: usize,
        repetition: &mut u64,
        now: u64,
    ) -> bool {
        let member = self.members[actor];
        let (base, due) = (self.base(actor), self.due_at(actor));
        to[due + 2] = now;
        to[base + 1..base + 1 + self.registers].fill(f64::NAN.to_bits());
        if *repetition + 1 >= member.repeat {
            self.give_back(to, actor);
            return false;
        }
        *repetition += 1;
        to[due + 1] = now;
        if self.cas {
            to[base + 1 + self.registers] = 0;
        }
        true
    }
}

/// Where a step of actor `actor` (its record `member`) in repetition `repetition` computes
/// at `now`: nothing read yet.
fn at_time(actor: usize, member: super::Member, repetition: u64, now: u64) -> At {
    At {
        now,
        ..At::at_zero(actor, member, repetition)
    }
}
