//! Locks in a flat state: queue locks (no timeout), their records, tokens and lines of
//! waiters, as the interpreter's `acquire` and `release` keep them. Each lock's words are
//! its record's token (0: none) and its next token; each actor's, in its block, how often
//! it queued (a lock or a take: its job's `wait`), the line it waits in and its place there,
//! its flags and its token of each lock. Whether a lock was handed over at its release's
//! instant is not kept: only `tie_order = "reads_first"` reads it, and an exploration takes
//! the events in order.

use super::{Flat, LAST_TAKER, NotFinite, WAITED};

impl Flat<'_> {
    /// Where actor `actor`'s lock words begin: how often it queued for a lock (its job's
    /// `wait`), which lock it waits for and its place in that queue (`(lock + 1) << 32 |
    /// place`, from 1; 0: none), its flags ([`WAITED`], [`LAST_TAKER`] on), and
    /// its token of each lock (0: none).
    pub(super) fn lock_words(&self, actor: usize) -> usize {
        self.base(actor) + 1 + self.registers + if self.cas { 3 } else { 0 }
    }

    /// Where lock `lock`'s words begin: its record's token (0: none) and its next token.
    pub(super) fn lock_at(&self, lock: usize) -> usize {
        self.registers + 1 + 2 * lock
    }

    /// Actor `actor` takes lock `lock` (free) in `to`, as the interpreter's `acquire` does.
    pub(super) fn take(&self, to: &mut [u64], actor: usize, lock: usize) {
        let at = self.lock_at(lock);
        let token = to[at + 1];
        to[at] = token;
        to[at + 1] = token + 1;
        if self.timed {
            self.took_timed(to, actor, lock);
        }
        for other in 0..self.members.len() {
            let flags = self.lock_words(other) + 2;
            to[flags] &= !(1 << (LAST_TAKER + lock as u32));
        }
        let words = self.lock_words(actor);
        to[words + 1] = 0;
        to[words + 2] |= WAITED | (1 << (LAST_TAKER + lock as u32));
        to[words + 3 + lock] = token;
    }

    /// Actor `actor` waits last in line `line` (a lock, or [`MAX_LOCKS`] + a queue) at its
    /// step, for the lock or a message to be handed to it: a wait of its job's more.
    pub(super) fn enqueue(&self, to: &mut [u64], actor: usize, line: usize) {
        let queued = (0..self.members.len())
            .filter(|&a| to[self.lock_words(a) + 1] >> 32 == line as u64 + 1)
            .count() as u64;
        let words = self.lock_words(actor);
        to[words] += 1;
        to[words + 1] = (line as u64 + 1) << 32 | (queued + 1);
    }

    /// The first in line `line` out of it (it waits no more), the others a place on: that
    /// actor, if any.
    pub(super) fn next_waiter(&self, to: &mut [u64], line: usize) -> Option<usize> {
        let waiter = (0..self.members.len())
            .find(|&a| to[self.lock_words(a) + 1] == (line as u64 + 1) << 32 | 1)?;
        to[self.lock_words(waiter) + 1] = 0;
        for a in 0..self.members.len() {
            let waiting = self.lock_words(a) + 1;
            if to[waiting] >> 32 == line as u64 + 1 {
                to[waiting] -= 1;
            }
        }
        Some(waiter)
    }

    /// Actor `actor` acquires lock `lock`: true when taken, false when queued. `Err` when
    /// it holds it already (the interpreter's error, which it says).
    pub(super) fn acquire(
        &self,
        to: &mut [u64],
        actor: usize,
        lock: usize,
    ) -> Result<bool, NotFinite> {
        if to[self.lock_words(actor) + 3 + lock] != 0 {
            return Err(NotFinite);
        }
        if to[self.lock_at(lock)] == 0 {
            self.take(to, actor, lock);
            Ok(true)
        } else {
            self.enqueue(to, actor, lock);
            Ok(false)
        }
    }

    /// Actor `actor` releases lock `lock`: the waiter it is handed to, if any
    /// ([`Flat::release`]). `Err` when it does not hold it (the interpreter's error).
    pub(super) fn release_held(
        &self,
        to: &mut [u64],
        actor: usize,
        lock: usize,
    ) -> Result<Option<usize>, NotFinite> {
        let token = self.lock_words(actor) + 3 + lock;
        if to[token] == 0 {
            return Err(NotFinite);
        }
        to[token] = 0;
        Ok(self.release(to, lock))
    }

    /// Lock `lock`'s record deleted (its holder's token taken back already) and the lock
    /// handed to its longest waiter, if any, who takes it: that waiter (its steps past its
    /// acquire are the caller's to run).
    pub(super) fn release(&self, to: &mut [u64], lock: usize) -> Option<usize> {
        let at = self.lock_at(lock);
        to[at] = 0;
        if self.timed {
            self.released_timed(to, lock);
        }
        let waiter = self.next_waiter(to, lock)?;
        self.take(to, waiter, lock);
        Some(waiter)
    }
}
