//! A lock as shared state keeps it: a record naming its holder, which a polled lock retries,
//! a queue lock hands to its longest waiter, and a lease lets a newcomer take over once old.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use sim_core::{Nanos, Samples};

/// How a lock that is taken is waited for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockMode {
    /// A failed attempt tries again later (a lock file or row, polled).
    Poll,
    /// Waiters queue in order and a release hands the lock to the longest waiter.
    Queue,
    /// Polled, and a record older than the lease may be taken over by the next attempt.
    Lease,
}

/// An acquisition's token: 1, 2, 3… in the order the lock was taken (0 is the record a
/// crashed holder left before the start). Registers fenced by the lock compare tokens.
pub type Token = u64;

/// A lock record with its holders and statistics, on integer-nanosecond time.
///
/// The lock is a record that exists while someone holds it. [`Lock::is_free`] says whether an
/// attempt now would take it; [`Lock::take`] makes the new record. A release deletes the
/// record only if it is still the releaser's: after a lease takeover it is the new
/// holder's, and the old holder's release leaves it. More than one actor may then hold the
/// lock at once, which [`Lock::max_holders`] counts (1 is mutual exclusion); a holder that
/// crashes never releases, so its record stays taken (or, with a lease, until it is old).
///
/// The lock keeps no clock and schedules nothing: the caller asks at each attempt and
/// decides when to try again. A queue lock keeps its waiters (`W` names one: an index, a
/// job with its generation) for the caller to hand the lock to, with [`Lock::next_waiter`].
///
/// ```
/// use coordsim_scenario::{Lock, LockMode};
/// use sim_core::Samples;
///
/// // A lease of 10 ns: A takes it at 0 and stalls; B's attempt at 10 still fails, at 11 it
/// // takes the lock over, so both hold it; A's late release leaves B's record.
/// let mut lock: Lock<()> = Lock::new(LockMode::Lease, 10, false, Samples::with_capacity(2));
/// let token_a = lock.take(0, 0);
/// assert!(!lock.is_free(10));
/// assert!(lock.is_free(11));
/// let token_b = lock.take(11, 11);
/// assert_eq!((token_a, token_b, lock.max_holders()), (1, 2, 2));
/// assert!(!lock.release(token_a, 12), "the record is B's");
/// assert!(lock.release(token_b, 20));
/// // Held 12 ns by A and 9 ns by B.
/// assert_eq!(lock.held_ns(), 21);
/// ```
#[derive(Debug)]
pub struct Lock<W> {
    mode: LockMode,
    lease_ns: Nanos,
    /// The record: its holder's token and since when.
    record: Option<(Token, Nanos)>,
    /// Every current holder's token and when it took the lock (a crashed holder stays).
    holders: Vec<(Token, Nanos)>,
    max_holders: usize,
    waiters: VecDeque<W>,
    acquisitions: u64,
    failed: u64,
    gave_up: u64,
    waits: Samples,
    last_release: Option<Nanos>,
    /// Time held by acquisitions that were released.
    held_ns: Nanos,
    /// Waits given up, added up.
    gave_up_wait_ns: Nanos,
    next_token: Token,
}

sim_core::clone_in_place!(Lock<W> {
    mode, lease_ns, record, holders, max_holders, waiters, acquisitions, failed, gave_up, waits, last_release, held_ns, gave_up_wait_ns, next_token
});

/// An explorer's fingerprint of a lock: every field but when its record was last deleted,
/// which only a read handed the lock at that instant looks at, and only under `tie_order =
/// "reads_first"` (an explored run takes the events in order: two states apart by it alone
/// go on alike). Every field named: one added is a compile error here until it is hashed
/// or said not to be.
impl<W: Hash> Hash for Lock<W> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let Lock {
            mode,
            lease_ns,
            record,
            holders,
            max_holders,
            waiters,
            acquisitions,
            failed,
            gave_up,
            waits,
            last_release: _,
            held_ns,
            gave_up_wait_ns,
            next_token,
        } = self;
        (mode, lease_ns, record, holders, max_holders, waiters).hash(state);
        (
            acquisitions,
            failed,
            gave_up,
            waits,
            held_ns,
            gave_up_wait_ns,
        )
            .hash(state);
        next_token.hash(state);
    }
}

impl<W> Lock<W> {
    /// Every waiter rewritten by `relabel`: an explorer's symmetry renames a state's jobs,
    /// and a waiter names one. Every field named: one added that holds a waiter and is
    /// left out here fails to compile.
    pub fn relabel_waiters(&mut self, relabel: impl Fn(&mut W)) {
        let Lock {
            waiters,
            // No waiter in these: the record, the holders' tokens, the counts.
            mode: _,
            lease_ns: _,
            record: _,
            holders: _,
            max_holders: _,
            acquisitions: _,
            failed: _,
            gave_up: _,
            waits: _,
            last_release: _,
            held_ns: _,
            gave_up_wait_ns: _,
            next_token: _,
        } = self;
        waiters.iter_mut().for_each(relabel);
    }

    /// A free lock of `mode` (a lease of `lease_ns` for [`LockMode::Lease`]), or with
    /// `stale` one whose record a crashed holder left at time 0. Waits go into `waits`.
    pub fn new(mode: LockMode, lease_ns: Nanos, stale: bool, waits: Samples) -> Lock<W> {
        Lock {
            mode,
            lease_ns,
            record: stale.then_some((0, 0)),
            holders: Vec::new(),
            max_holders: 0,
            waiters: VecDeque::new(),
            acquisitions: 0,
            failed: 0,
            gave_up: 0,
            waits,
            last_release: None,
            held_ns: 0,
            gave_up_wait_ns: 0,
            next_token: 1,
        }
    }

    /// How it is waited for.
    pub fn mode(&self) -> LockMode {
        self.mode
    }

    /// Whether an attempt at `now` takes it: there is no record, or (a lease) the record is
    /// older than the lease.
    pub fn is_free(&self, now: Nanos) -> bool {
        match self.record {
            None => true,
            Some((_, since)) => self.mode == LockMode::Lease && now - since > self.lease_ns,
        }
    }

    /// When an attempt can take it with nothing else happening (no release, no unlock):
    /// `now` when it is free, a lease's end when its record is a lease's, and never
    /// (`None`) when a holder's record stays until someone deletes it.
    pub fn free_by_itself(&self, now: Nanos) -> Option<Nanos> {
        match self.record {
            None => Some(now),
            Some((_, since)) if self.mode == LockMode::Lease => Some(
                since
                    .saturating_add(self.lease_ns)
                    .saturating_add(1)
                    .max(now),
            ),
            Some(_) => None,
        }
    }

    /// Its record's token and since when, if it has one; and, a lease, when the record
    /// lapses (the first instant an attempt takes it over): a timeline draws the holder
    /// until then.
    pub fn record_until(&self) -> Option<(Token, Nanos, Option<Nanos>)> {
        let lapse = |since: Nanos| {
            (self.mode == LockMode::Lease)
                .then(|| since.saturating_add(self.lease_ns).saturating_add(1))
        };
        self.record.map(|(t, since)| (t, since, lapse(since)))
    }

    /// The token of its record (the holder an attempt finds), if it has one.
    pub fn record_token(&self) -> Option<Token> {
        self.record.map(|(t, _)| t)
    }

    /// Takes it at `now` after a wait of `waited`: a new record, whose token is returned.
    pub fn take(&mut self, now: Nanos, waited: Nanos) -> Token {
        let token = self.next_token;
        self.next_token += 1;
        self.record = Some((token, now));
        self.holders.push((token, now));
        self.max_holders = self.max_holders.max(self.holders.len());
        self.acquisitions += 1;
        self.waits.record(waited);
        token
    }

    /// Counts an attempt that found it taken.
    pub fn fail(&mut self) {
        self.failed += 1;
    }

    /// Counts a wait given up.
    pub fn give_up(&mut self) {
        self.gave_up += 1;
    }

    /// Counts a wait given up after `waited`: a wait like an acquisition's (in
    /// [`Lock::waits`]), and apart in [`Lock::gave_up_wait_ns`].
    pub fn give_up_after(&mut self, waited: Nanos) {
        self.gave_up += 1;
        self.waits.record(waited);
        self.gave_up_wait_ns = self.gave_up_wait_ns.saturating_add(waited);
    }

    /// The waits given up, added up.
    pub fn gave_up_wait_ns(&self) -> Nanos {
        self.gave_up_wait_ns
    }

    /// Keeps a holder's record fresh: when the record is still `token`'s, it is as if taken
    /// at `now` (a lease renewed) and true is returned; false when another holder's record
    /// replaced it, it was deleted, or (a lease) it is older than the lease: the renewal
    /// comes too late.
    pub fn renew(&mut self, token: Token, now: Nanos) -> bool {
        // A lease older than its term is gone, even if nobody has taken it over yet.
        let valid = !self.is_free(now);
        match &mut self.record {
            Some((t, since)) if *t == token && valid => {
                *since = now;
                true
            }
            _ => false,
        }
    }

    /// Whether `token`'s holder still has the record (it was not taken over or deleted).
    pub fn is_holder(&self, token: Token) -> bool {
        self.record.is_some_and(|(t, _)| t == token)
    }

    /// The holder of `token` releases it at `now`; true when that deleted the record (it was
    /// still this holder's), so the lock is free again.
    pub fn release(&mut self, token: Token, now: Nanos) -> bool {
        if let Some(i) = self.holders.iter().position(|(t, _)| *t == token) {
            let (_, since) = self.holders.swap_remove(i);
            self.held_ns += now - since;
        }
        if self.record.is_some_and(|(t, _)| t == token) {
            self.record = None;
            self.last_release = Some(now);
            return true;
        }
        false
    }

    /// An operator deletes the record at `now`, whoever holds it (the holders still do).
    pub fn unlock(&mut self, now: Nanos) {
        self.record = None;
        self.last_release = Some(now);
    }

    /// Whether its record was deleted at `now` (a release or an unlock).
    pub fn released_at(&self, now: Nanos) -> bool {
        self.last_release == Some(now)
    }

    /// A waiter joins the queue (a [`LockMode::Queue`] lock's).
    pub fn enqueue(&mut self, waiter: W) {
        self.waiters.push_back(waiter);
    }

    /// The longest waiter, taken off the queue, when this is a queue lock and it is free.
    /// The caller takes the lock for it ([`Lock::take`]) or, when the waiter has left (given
    /// up), asks again.
    pub fn next_waiter(&mut self) -> Option<W> {
        if self.mode != LockMode::Queue || self.record.is_some() {
            return None;
        }
        self.waiters.pop_front()
    }

    /// Where the first waiter that `is` picks out stands in the queue (0: next), if it
    /// waits: an explorer's symmetry orders members by it.
    pub fn waiter_place(&self, is: impl Fn(&W) -> bool) -> Option<usize> {
        self.waiters.iter().position(is)
    }

    /// Times it was taken.
    pub fn acquisitions(&self) -> u64 {
        self.acquisitions
    }

    /// Attempts that found it taken.
    pub fn failed_attempts(&self) -> u64 {
        self.failed
    }

    /// Waits given up.
    pub fn gave_up(&self) -> u64 {
        self.gave_up
    }

    /// Most holders at once (1: mutual exclusion).
    pub fn max_holders(&self) -> usize {
        self.max_holders
    }

    /// Whether a record exists (someone holds it, or a stale record is left).
    pub fn has_record(&self) -> bool {
        self.record.is_some()
    }

    /// Time held, over the acquisitions released.
    pub fn held_ns(&self) -> Nanos {
        self.held_ns
    }

    /// Time held by the end of a run at `end`: the released acquisitions, and every holder
    /// still holding (one that crashed, or never released) held it until `end`.
    pub fn held_ns_until(&self, end: Nanos) -> Nanos {
        self.holders.iter().fold(self.held_ns, |sum, (_, since)| {
            sum.saturating_add(end.saturating_sub(*since))
        })
    }

    /// Every wait, from the acquire to the acquisition or the give-up.
    pub fn waits(&mut self) -> &mut Samples {
        &mut self.waits
    }
}

impl<W> Lock<W> {
    /// What decides what it does next, with every instant relative to `now` and its counts
    /// left out, pushed onto `words` (an explorer's cycle key: two states a time shift
    /// apart write the same words). No token is written: what a token decides is only
    /// whether it is the record's ([`Lock::token_state`]), which its holder writes; a
    /// record's age only as far as a lease tells ages apart (an age past the lease is any
    /// age past it); a waiter by `waiter`. The holders' list is for the statistics only.
    pub(crate) fn cycle_words(&self, now: Nanos, words: &mut Vec<u64>, waiter: impl Fn(&W) -> u64) {
        let Lock {
            mode,
            lease_ns,
            record,
            waiters,
            // Read only under `tie_order = "reads_first"`, never in an explored run.
            last_release: _,
            // Counts, statistics and the tokens' numbering: they only add up.
            holders: _,
            next_token: _,
            max_holders: _,
            acquisitions: _,
            failed: _,
            gave_up: _,
            waits: _,
            held_ns: _,
            gave_up_wait_ns: _,
        } = self;
        let age = |since: Nanos| match mode {
            LockMode::Lease => now.saturating_sub(since).min(lease_ns.saturating_add(1)),
            _ => 0,
        };
        words.push(*mode as u64);
        match record {
            None => words.push(0),
            Some((_, since)) => words.extend([1, age(*since)]),
        }
        words.push(waiters.len() as u64);
        words.extend(waiters.iter().map(waiter));
    }

    /// A held `token` as the cycle key writes it: 0 none, 1 the record's (its holder still
    /// holds), 2 another (taken over or deleted: it decides nothing more).
    pub(crate) fn token_state(&self, token: Token) -> u64 {
        match token {
            0 => 0,
            _ if self.is_holder(token) => 1,
            _ => 2,
        }
    }

    /// The bytes its holders and waiters take, by their count (an explorer's memory
    /// estimate: deterministic, unlike the allocator's capacities).
    pub(crate) fn heap_bytes(&self) -> u64 {
        super::bytes_of::<(Token, Nanos)>(self.holders.len())
            + super::bytes_of::<W>(self.waiters.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_lock(mode: LockMode, stale: bool) -> Lock<u32> {
        Lock::new(mode, 0, stale, Samples::with_capacity(4))
    }

    /// A polled lock: taken, refused while held, free once released.
    #[test]
    fn a_release_frees_the_lock_for_the_next_attempt() {
        let mut lock = new_lock(LockMode::Poll, false);
        assert!(lock.is_free(0));
        let token = lock.take(0, 0);
        assert!(!lock.is_free(5));
        lock.fail();
        assert!(lock.release(token, 5));
        assert!(lock.is_free(5) && lock.released_at(5) && !lock.released_at(6));
        let next_token = lock.take(5, 5);
        // Tokens count acquisitions: 1 then 2; held 5 ns, then 3 more.
        assert_eq!((token, next_token), (1, 2));
        assert!(lock.release(next_token, 8));
        assert_eq!(
            (
                lock.acquisitions(),
                lock.failed_attempts(),
                lock.held_ns(),
                lock.max_holders()
            ),
            (2, 1, 8, 1)
        );
        // Waits 0 and 5: a mean of 2.5 ns, 0.0000025 ms.
        assert_eq!(lock.waits().mean_ms(), Some(2.5e-6));
    }

    /// A stale record stays until an operator deletes it, and its wait is counted.
    #[test]
    fn a_stale_record_blocks_until_unlocked() {
        let mut lock = new_lock(LockMode::Poll, true);
        assert!(lock.has_record() && !lock.is_free(1_000));
        lock.unlock(1_000);
        assert!(lock.is_free(1_000) && !lock.has_record());
        // No acquisition was released: nothing held.
        assert_eq!(lock.held_ns(), 0);
    }

    /// A queue lock hands itself to waiters in arrival order, and only when free.
    #[test]
    fn a_queue_lock_hands_over_in_order() {
        let mut lock = new_lock(LockMode::Queue, false);
        let token = lock.take(0, 0);
        lock.enqueue(7);
        lock.enqueue(3);
        assert_eq!(lock.next_waiter(), None, "held: no hand-over");
        assert!(lock.release(token, 4));
        assert_eq!(lock.next_waiter(), Some(7));
        lock.take(4, 4);
        assert_eq!(lock.next_waiter(), None);
        // A polled lock keeps no queue to hand over from.
        let mut polled = new_lock(LockMode::Poll, false);
        polled.enqueue(1);
        assert_eq!(polled.next_waiter(), None);
    }

    /// A crashed holder never releases: with no lease the lock stays taken for good.
    #[test]
    fn a_crashed_holder_keeps_the_lock() {
        let mut lock = new_lock(LockMode::Poll, false);
        let _crashed = lock.take(0, 0);
        assert!(!lock.is_free(u64::MAX / 2));
        // A release by a token that never held it changes nothing.
        assert!(!lock.release(99, 10));
        assert!(lock.has_record());
    }
}
