//! Polled and leased locks in a flat state, as the interpreter's `attempt`, `release` and
//! `renew` keep them: an acquire that finds the lock taken counts a failed attempt and
//! polls again after the lock's `poll_ms` (the actor's due event is then a retry, which
//! the interpreter never takes alone nor crashes at); a lease's record older than its
//! term is taken over (more than one actor then holds it); a renewal keeps the holder's
//! record fresh or finds it lost; a record a crashed holder left at the start (`stale`)
//! is a record no actor's token names. A register fenced by a lock refuses a write
//! carrying a token older than one it accepted ([`Flat::fenced_off`]).
//!
//! Such a point (timed: a poll takes time) adds to the words of a timed state
//!
//! ```text
//! [ when a run with only polls left is known not to be stuck before | whether it is
//!   stuck (no event is free then)
//! | each lock: its failed attempts, its most holders at once
//! | each register: the greatest token it accepted
//! | each actor (in its block): its failed attempts, its fenced writes refused, and for
//!   each lock since when it holds it (+1; 0: it does not) and with which token ]
//! ```
//!
//! which are what the interpreter's fingerprint tells apart beside a queue lock's words:
//! its `polls`, a lock's `failed`, `max_holders` and holders (as a set: an actor's
//! holding stays where its job was freed holding the lock, as a crashed holder's token
//! and since stay in the interpreter's list), a register's `accepted`, an actor's
//! `failed` and `rejected`. A
//! polled lock's record since (a renewal moves it) is the lock's first word of time,
//! which a queue lock's holder's since is.

use super::{ACQUIRED, Flat, NONE, NotFinite, PLACE, Polls, Uncovered};
use crate::machine::lock::LockMode;
use crate::point::{Pick, Step};

/// A lock's record word for the record a crashed holder left at the start (token 0),
/// which no actor's token matches.
pub(super) const STALE: u64 = u64::MAX;
/// An actor's lock flags: it polls a lock (its due event is a retry of its acquire).
const POLLING: u64 = 4;
/// The outcome of a renewal that kept the record.
pub(super) const RENEWED: u64 = 16;
/// The outcome of a renewal that found the lease lost.
pub(super) const LOST: u64 = 17;
/// The outcome of a write its register's fence refused.
pub(super) const REJECTED: u64 = 18;

impl Flat<'_> {
    /// The point with its words for polled and leased locks, stale records and fences
    /// laid out after the queues' (and key stores'), where a lock step or a fenced write
    /// needs them.
    pub(super) fn with_polls(mut self) -> Result<Self, Uncovered> {
        if self.locks == 0 || !Self::polled_point(self.point) {
            return Ok(self);
        }
        if !self.timed {
            // [`Flat::kinds`] makes such a point timed.
            return Err("a lock is polled or leased but time stands still");
        }
        let at = self.clock();
        let words = 2 + 2 * self.locks + self.registers;
        let own = self.lock_words(0) - self.base(0) + 3 + self.locks + self.queues.len();
        self.polls = Polls { on: true, at, own };
        self.header += words;
        self.block += 2 + 2 * self.locks;
        self.width = self.header + self.members.len() * self.block;
        Ok(self)
    }

    /// Whether a point's locks or registers need the words of [`Flat::with_polls`].
    pub(super) fn polled_point(point: &crate::point::Point) -> bool {
        (point.locks.iter()).any(|lock| lock.mode != LockMode::Queue || lock.stale)
            || point.registers.iter().any(|r| r.fence.is_some())
            || (point.groups.iter().flat_map(|g| &g.steps)).any(|s| matches!(s, Step::Renew(_)))
    }

    /// The words [`Flat::with_polls`] adds to the header, at the start: no poll, nothing
    /// failed, no holder, no token accepted.
    pub(super) fn start_polls(&self, state: &mut Vec<u64>) {
        if self.polls.on {
            state.extend(std::iter::repeat_n(0, 2 + 2 * self.locks + self.registers));
        }
    }

    /// Lock `lock`'s record word at the start: none, or a crashed holder's ([`STALE`]).
    pub(super) fn record_at_start(&self, lock: usize) -> u64 {
        if self.point.locks[lock].stale {
            STALE
        } else {
            0
        }
    }

    /// Whether lock `lock` is polled (or leased): an attempt that finds it taken retries.
    pub(super) fn polled(&self, lock: usize) -> bool {
        self.point.locks[lock].mode != LockMode::Queue
    }

    /// Whether actor `actor` polls a lock in `state`: its due event is a retry.
    pub(super) fn polling(&self, state: &[u64], actor: usize) -> bool {
        self.polls.on
            && actor < self.members.len()
            && state[self.lock_words(actor) + 2] & POLLING != 0
    }

    /// Whether the run of `state` is stuck: every event left was a poll that can never
    /// succeed, and it ends there.
    pub(super) fn stuck(&self, state: &[u64]) -> bool {
        self.polls.on && state[self.polls.at + 1] != 0
    }

    /// Where actor `actor`'s words of [`Flat::with_polls`] begin: its failed attempts, its
    /// fenced writes refused, its since (+1) of each lock, its token of each lock held.
    fn own(&self, actor: usize) -> usize {
        self.base(actor) + self.polls.own
    }

    /// Whether an attempt on lock `lock` at `now` takes it, as [`Lock::is_free`] says.
    ///
    /// [`Lock::is_free`]: crate::machine::lock::Lock::is_free
    fn is_free(&self, state: &[u64], lock: usize, now: u64) -> bool {
        let spec = &self.point.locks[lock];
        state[self.lock_at(lock)] == 0
            || (spec.mode == LockMode::Lease && now - state[self.lock_time(lock)] > spec.lease_ns)
    }

    /// Actor `actor`'s acquire of lock `lock` at `now` in a timed state (its wait, if any,
    /// counts from now): true when taken, false when it waits (in a queue lock's line, no
    /// event of its own due; or polling, its retry due). `Err` where the interpreter stops
    /// with an error (a lock it holds already, but a lease).
    pub(super) fn acquire_at(
        &self,
        to: &mut [u64],
        actor: usize,
        lock: usize,
        now: u64,
    ) -> Result<bool, NotFinite> {
        let due = self.due_at(actor);
        to[due + 4] = now;
        if self.polled(lock) {
            return self.acquire_polled(to, (actor, lock), now);
        }
        let taken = self.acquire(to, actor, lock)?;
        if !taken {
            to[due] = NONE;
        }
        Ok(taken)
    }

    /// Actor `actor`'s release of lock `lock` at `now` in a timed state: the waiter a
    /// queue lock is handed to, if any, with its outcome.
    pub(super) fn release_at(
        &self,
        to: &mut [u64],
        actor: usize,
        lock: usize,
        now: u64,
    ) -> Result<Option<(usize, u64)>, NotFinite> {
        if self.polled(lock) {
            self.release_polled(to, actor, lock, now)?;
            return Ok(None);
        }
        let waiter = self.release_held(to, actor, lock)?;
        Ok(waiter.map(|waiter| (waiter, ACQUIRED)))
    }

    /// Actor `actor` acquires polled lock `lock` at `now` (its acquire step begins): true
    /// when taken, false when it polls. `Err` where the interpreter stops with an error
    /// (a polled lock it holds already).
    fn acquire_polled(
        &self,
        to: &mut [u64],
        (actor, lock): (usize, usize),
        now: u64,
    ) -> Result<bool, NotFinite> {
        let token = to[self.lock_words(actor) + 3 + lock];
        let lease = self.point.locks[lock].mode == LockMode::Lease;
        if token != 0 && to[self.lock_at(lock)] == token && !lease {
            return Err(NotFinite);
        }
        self.attempt(to, actor, lock, now)
    }

    /// One attempt of actor `actor` on polled lock `lock` at `now`: taken (true), or a
    /// failed attempt counted and a retry due after the lock's poll, the run found stuck
    /// where every event left is a poll that can never succeed (false).
    fn attempt(
        &self,
        to: &mut [u64],
        actor: usize,
        lock: usize,
        now: u64,
    ) -> Result<bool, NotFinite> {
        if self.is_free(to, lock, now) {
            let held = self.own(actor) + 2 + lock;
            if to[held] != 0 {
                // A second holding of one actor (a lease taken again, its first never
                // released): the interpreter's list keeps both.
                return Err(NotFinite);
            }
            self.take(to, actor, lock);
            to[held] = now + 1;
            to[held + self.locks] = to[self.lock_words(actor) + 3 + lock];
            let holders = (0..self.members.len())
                .filter(|&a| to[self.own(a) + 2 + lock] != 0)
                .count() as u64;
            let most = self.polls.at + 2 + 2 * lock + 1;
            to[most] = to[most].max(holders);
            return Ok(true);
        }
        to[self.polls.at + 2 + 2 * lock] += 1;
        to[self.own(actor)] += 1;
        to[self.lock_words(actor) + 2] |= POLLING;
        to[self.due_at(actor)] = self.point.locks[lock].poll_ns;
        let only_polls =
            (0..self.members.len()).all(|a| to[self.due_at(a)] == NONE || self.polling(to, a));
        if only_polls && now >= to[self.polls.at] {
            self.check_stuck(to, now, (actor, lock));
        }
        Ok(false)
    }

    /// Every event left is a poll: the run is stuck where none can ever succeed, else
    /// it is known not to be before the earliest instant one might, as the interpreter's
    /// `check_stuck` notes (no poller gives up: an acquire here has no timeout). The
    /// poller that failed now polls `lock` (its place is not written yet).
    fn check_stuck(&self, to: &mut [u64], now: u64, (failed, lock): (usize, usize)) {
        let mut next = NONE;
        for actor in (0..self.members.len()).filter(|&a| self.polling(to, a)) {
            let lock = if actor == failed {
                lock
            } else {
                self.polled_lock(to, actor)
            };
            let spec = &self.point.locks[lock];
            if to[self.lock_at(lock)] == 0 {
                next = next.min(now);
            } else if spec.mode == LockMode::Lease {
                let lapse = to[self.lock_time(lock)]
                    .saturating_add(spec.lease_ns)
                    .saturating_add(1);
                next = next.min(lapse.max(now));
            }
        }
        if next != NONE {
            to[self.polls.at] = next;
        } else {
            to[self.polls.at + 1] = 1;
        }
    }

    /// The lock polling actor `actor` polls: its acquire step's.
    fn polled_lock(&self, state: &[u64], actor: usize) -> usize {
        let member = self.members[actor];
        let place = state[self.base(actor)] & PLACE;
        let step = (place % (u64::from(member.steps) + 1)) as usize;
        match self.point.groups[member.group as usize].steps.get(step) {
            Some(Step::Acquire {
                lock: Pick::One(lock),
                ..
            }) => *lock as usize,
            _ => unreachable!("a polling actor stands at its acquire"),
        }
    }

    /// Actor `actor`'s retry (its due event while it polls) run from `from` into `to`: the
    /// clock moved on, one more attempt; taken, its steps go on past its acquire (it
    /// acted), and the waiter a queue lock's release among them hands to after its own.
    pub(super) fn retry(
        &self,
        from: &[u64],
        actor: usize,
        to: &mut [u64],
        (delta, draws): (&mut [u64], &mut super::Draws),
    ) -> Result<(), NotFinite> {
        let now = self.advance(from, actor, to)?;
        to[self.lock_words(actor) + 2] &= !POLLING;
        let lock = self.polled_lock(from, actor);
        if !self.attempt(to, actor, lock, now)? {
            return Ok(());
        }
        let place = (from[self.base(actor)] & PLACE) + 1;
        let handed = self.run(
            to,
            actor,
            (place, ACQUIRED, true),
            (&mut *delta, &mut *draws),
        )?;
        if let Some((waiter, outcome)) = handed {
            let place = (to[self.base(waiter)] & PLACE) + 1;
            self.run(to, waiter, (place, outcome, true), (delta, draws))?;
        }
        Ok(())
    }

    /// Actor `actor` releases polled lock `lock` at `now`: its holding ends (the time
    /// held added up) and the record is deleted if it is still its own (a lease taken
    /// over is the new holder's). No one is handed it: pollers find it at their next
    /// retry. `Err` when it does not hold it (the interpreter's error).
    fn release_polled(
        &self,
        to: &mut [u64],
        actor: usize,
        lock: usize,
        now: u64,
    ) -> Result<(), NotFinite> {
        let token_at = self.lock_words(actor) + 3 + lock;
        let token = to[token_at];
        if token == 0 {
            return Err(NotFinite);
        }
        to[token_at] = 0;
        let held = self.own(actor) + 2 + lock;
        if to[held] != 0 {
            let since = to[held] - 1;
            to[self.lock_time(lock) + 1] += now - since;
            to[held] = 0;
            to[held + self.locks] = 0;
        }
        if to[self.lock_at(lock)] == token {
            to[self.lock_at(lock)] = 0;
            to[self.lock_time(lock)] = 0;
        }
        Ok(())
    }

    /// Actor `actor` renews lock `lock` at `now`: [`RENEWED`] (its record as if taken
    /// now) while the record is still its own and not older than a lease, else [`LOST`].
    pub(super) fn renew(&self, to: &mut [u64], actor: usize, lock: usize, now: u64) -> u64 {
        let token = to[self.lock_words(actor) + 3 + lock];
        let valid = !self.is_free(to, lock, now);
        if token != 0 && valid && to[self.lock_at(lock)] == token {
            to[self.lock_time(lock)] = now;
            RENEWED
        } else {
            LOST
        }
    }

    /// A write by actor `actor` into `register` lands at `now` in a timed state: the
    /// register's instant (its value as the instant began kept), and whether its fence
    /// refuses it ([`Flat::fenced_off`]).
    pub(super) fn lands_fenced_off(
        &self,
        to: &mut [u64],
        delta: &mut [u64],
        (actor, register): (usize, usize),
        now: u64,
    ) -> bool {
        self.instant(to, register, now);
        self.fenced_off(to, delta, actor, register)
    }

    /// A write by actor `actor` into `register` its fence refuses (the token it carries,
    /// of the fencing lock, older than one the register accepted): counted as refused,
    /// the register landed on. False where it goes on to land.
    fn fenced_off(&self, to: &mut [u64], delta: &mut [u64], actor: usize, register: usize) -> bool {
        let Some(lock) = self.fence_of(register) else {
            return false;
        };
        if !self.point.locks[lock].fencing {
            return false;
        }
        let token = to[self.lock_words(actor) + 3 + lock];
        if token >= to[self.polls.at + 2 + 2 * self.locks + register] {
            return false;
        }
        to[self.registers] |= 1 << register;
        delta[3 * register + 2] = 1;
        to[self.own(actor) + 1] += 1;
        true
    }

    /// A write by actor `actor` landed on `register`: a fenced register accepts the token
    /// it carries (the greatest so far kept).
    pub(super) fn fence_accept(&self, to: &mut [u64], actor: usize, register: usize) {
        if let Some(lock) = self.fence_of(register) {
            let token = to[self.lock_words(actor) + 3 + lock];
            let accepted = self.polls.at + 2 + 2 * self.locks + register;
            to[accepted] = to[accepted].max(token);
        }
    }

    /// The lock fencing `register`, where the state keeps tokens.
    fn fence_of(&self, register: usize) -> Option<usize> {
        let lock = self.point.registers[register].fence? as usize;
        (self.polls.on && lock < self.locks).then_some(lock)
    }
}
