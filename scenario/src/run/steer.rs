//! A run steered by an explorer: the random draws that are choices (a `chance`, a crash's
//! probability, a link's loss and duplication) decided for it instead of drawn, a fault
//! budget, and the fingerprint of the run's state that lets two orders reaching the same
//! state be explored once.

use std::hash::Hash;

use sim_core::EventQueue;

use crate::machine::hash_f64;
use crate::run::state::{Actor, Event, Job, JobTables, Sim, Transaction, Undo};
pub(crate) use crate::run::state::{Draw, DrawKind, Steer, Told};

/// A state's counts ([`Sim::counts`]), or what one transition added to them: inline up to
/// four registers (an explorer takes them at every transition; more allocate).
pub(crate) type Counts = smallvec::SmallVec<[u64; 12]>;

impl Sim<'_> {
    /// Whether a draw of `probability` comes out "yes": decided by the explorer when one
    /// steers the run, else drawn by `draw`.
    #[inline]
    pub(crate) fn decide(
        &mut self,
        probability: f64,
        kind: DrawKind,
        draw: impl FnOnce(&mut Self) -> bool,
    ) -> bool {
        match &mut self.steer {
            Some(steer) => steer.decide(probability, kind),
            None => draw(self),
        }
    }

    /// A crossing of `link`: how long it takes and whether it is lost (decided by the
    /// explorer when one steers the run).
    #[inline]
    pub(crate) fn cross_link(&mut self, link: usize) -> (sim_core::Nanos, bool) {
        match &mut self.steer {
            None => self.links[link].cross(),
            Some(steer) => {
                let lost = steer.decide(self.links[link].chances().0, DrawKind::Loss);
                (self.links[link].cross_decided(lost), lost)
            }
        }
    }

    /// The state's fingerprint: everything that decides what the run does next and what it
    /// reports but the counts an explorer carries on its transitions ([`Sim::counts`]), the
    /// pending events included (by time, class and what they are: not by
    /// their insertion numbers, which differ between orders that reach the same state).
    /// The timeline and the random streams are left out: an explored run draws neither.
    pub(crate) fn fingerprint(&self, events: &EventQueue<Event>) -> u64 {
        // Every part written as words into one buffer, hashed once: xxh3 over a whole
        // buffer runs several times faster than fed a few bytes at a time.
        BUFFER.with_borrow_mut(|(words, pending)| {
            words.clear();
            words.reserve(WORDS_RESERVED);
            let mut hasher = Words(words);
            self.write_state(events, pending, &mut hasher);
            std::hash::Hasher::finish(&hasher)
        })
    }

    /// The words [`Sim::fingerprint`] hashes, whole: what a debug build compares when two
    /// states meet by their fingerprints.
    #[cfg(debug_assertions)]
    pub(crate) fn state_words(&self, events: &EventQueue<Event>) -> Vec<u64> {
        let mut words = Vec::new();
        BUFFER.with_borrow_mut(|(_, pending)| {
            self.write_state(events, pending, &mut Words(&mut words));
        });
        words
    }

    /// Everything [`Sim::fingerprint`] covers, written into `hasher` (`pending`: a list to sort
    /// the pending events in, kept between calls).
    fn write_state(
        &self,
        events: &EventQueue<Event>,
        pending: &mut Vec<Pending>,
        mut hasher: &mut Words<'_>,
    ) {
        // Every field named: one added to `Sim` (or to its tables, its transaction, its
        // steer) and not decided here, covered or left out with a reason, fails to compile.
        let Sim {
            // The point is every state's: the same for all of one exploration.
            point: _,
            // The clock is the queue's (hashed below).
            now: _,
            actors,
            servers,
            // What the point decided before the run, the same in every state.
            direct: _,
            groups,
            // Empty between events: set and drained within one.
            ready: _,
            joined: _,
            error,
            other: _,
            entities: _,
            jobs,
            free_jobs,
            tables,
            registers,
            locks,
            links,
            last_end,
            // No timeline is recorded and no stream drawn from under an explorer; the
            // group streams, the loops and the fan-out are the point's.
            lanes: _,
            streams: _,
            group_streams: _,
            closed: _,
            // Computed for the output only, after the run.
            wait_stats: _,
            // Set with `error` (covered), where the step that set it is written.
            error_at: _,
            end: _,
            polls,
            last_taker,
            slots,
            free_slots,
            queues,
            keys,
            transaction,
            // A put's scratch numbers, rewritten before each use.
            scratch: _,
            steer,
            // What the point decided before the run, the same in every state.
            fan: _,
            calls: _,
            job_rows: _,
            tied: _,
            watched,
        } = self;
        events.now().hash(&mut hasher);
        self.write_pending(events, pending, hasher);
        for actor in actors {
            hasher.words(&actor_words(actor));
        }
        (servers, groups).hash(&mut hasher);
        jobs.len().hash(&mut hasher);
        for job in jobs {
            hasher.words(&job_words(job));
        }
        // The free slots as a set: which one a job takes next depends on the set alone
        // (`own_or_lowest`), not on the order they were freed in.
        let mut free: smallvec::SmallVec<[u32; 16]> = free_jobs.iter().copied().collect();
        free.sort_unstable();
        free.hash(&mut hasher);
        let JobTables {
            reads,
            tokens,
            taken,
            stored,
            kids,
            // An explored run makes every branch at its fork: none is deferred.
            deferred: _,
            replies,
        } = tables;
        for number in reads.iter().chain(stored).chain(replies) {
            hash_f64(*number, &mut hasher);
        }
        (tokens, taken, kids).hash(&mut hasher);
        (registers, locks, queues, keys).hash(&mut hasher);
        // What a watch has seen decides its cell at the end; and a watch reading a
        // register's count reads it along the way, so the counts are the state's then.
        watched.hash(&mut hasher);
        if self.point.watch_counts {
            for register in registers {
                register.counts().hash(&mut hasher);
            }
        }
        for link in links {
            link.counts().hash(&mut hasher);
        }
        (last_end, polls, last_taker, slots).hash(&mut hasher);
        (free_slots, error).hash(&mut hasher);
        write_transaction(transaction, hasher);
        if let Some(steer) = steer {
            let Steer {
                // What one event decides, made and told: each event starts them afresh.
                forced: _,
                drawn: _,
                fresh: _,
                acted: _,
                touched: _,
                beyond: _,
                crash_now: _,
                tell: _,
                told: _,
                // The exploration's bound, the same in every state.
                max_faults: _,
                faults,
                crashed_anywhere,
                stuck,
            } = &**steer;
            (faults, crashed_anywhere, stuck).hash(&mut hasher);
        }
    }

    /// The pending events, each owner's in its order (not by insertion numbers, which
    /// differ between orders that reach one state), into `hasher`.
    fn write_pending(
        &self,
        events: &EventQueue<Event>,
        pending: &mut Vec<Pending>,
        mut hasher: &mut Words<'_>,
    ) {
        pending.clear();
        pending.extend(
            events
                .pending()
                .map(|(time, due)| (time, self.owner(due.event), due.seq, due.class, due.event)),
        );
        // An owner's own events keep their order; different owners' are free. The class
        // decides which of an owner's events is first and where it stands among the free
        // ones: hashed with the event.
        pending.sort_unstable_by_key(|e| (e.0, e.1, e.2));
        // Every list of varying length is written with its length first, so that no two
        // states' words run together alike (the words decide the state, and a hash of
        // them merges states).
        pending.len().hash(&mut hasher);
        for (time, owner, _, class, event) in pending.iter() {
            // A timer by whether it is its job's latest (1) or one left from a wait that
            // ended (0), not by its count: two executions that armed timers as often as
            // each other, or not, go on alike.
            let event = match *event {
                Event::Timeout { job, armed } => Event::Timeout {
                    job,
                    armed: u16::from(self.jobs[job as usize].armed == armed),
                },
                other => other,
            };
            (time, owner, class, event).hash(&mut hasher);
        }
    }

    /// `source`'s state copied into this one, both runs of one exploration (states made by
    /// copying one start): what an explored run never changes is left as it is, its buffers
    /// untouched. That is the point and what `Sim::new` derived from it (the direct groups,
    /// each group's streams and loop, whether a job has rows and a `parallel` is tied), the random streams (an explored run draws none: its
    /// draws are decided), the timeline (none is recorded), a put's scratch numbers, and
    /// what the steer keeps for one event only (each event starts it afresh). A field added
    /// to `Sim` and not named here is a compile error.
    pub(crate) fn copy_explored_from(&mut self, source: &Self) {
        let Sim {
            point,
            now,
            actors,
            servers,
            direct: _,
            groups,
            ready,
            joined,
            error,
            other,
            entities,
            jobs,
            free_jobs,
            tables,
            registers,
            locks,
            links,
            last_end,
            lanes: _,
            streams: _,
            group_streams: _,
            closed: _,
            wait_stats,
            error_at,
            end,
            polls,
            last_taker,
            slots,
            free_slots,
            queues,
            keys,
            transaction,
            scratch: _,
            steer,
            fan,
            calls,
            job_rows: _,
            tied: _,
            watched,
        } = source;
        debug_assert!(
            std::ptr::eq(self.point, *point),
            "states of one exploration"
        );
        debug_assert!(self.lanes.is_none() && source.lanes.is_none());
        // Set and taken within one event: never part of a state between events.
        debug_assert!(joined.is_none() && self.joined.is_none());
        debug_assert!(
            self.closed == source.closed
                && self.group_streams == source.group_streams
                && self.streams.len() == source.streams.len()
        );
        self.now = *now;
        self.actors.clone_from(actors);
        self.servers.clone_from(servers);
        self.groups.clone_from(groups);
        self.ready.clone_from(ready);
        self.error.clone_from(error);
        self.other = *other;
        self.entities = *entities;
        self.jobs.clone_from(jobs);
        self.free_jobs.clone_from(free_jobs);
        self.tables.clone_from(tables);
        self.registers.clone_from(registers);
        self.locks.clone_from(locks);
        self.links.clone_from(links);
        self.last_end = *last_end;
        self.wait_stats.clone_from(wait_stats);
        self.error_at = *error_at;
        self.end = *end;
        self.polls.clone_from(polls);
        self.last_taker.clone_from(last_taker);
        self.slots.clone_from(slots);
        self.free_slots.clone_from(free_slots);
        self.queues.clone_from(queues);
        self.keys.clone_from(keys);
        self.transaction.clone_from(transaction);
        self.watched.clone_from(watched);
        match (&mut self.steer, steer) {
            (Some(to), Some(from)) => {
                to.faults = from.faults;
                to.max_faults = from.max_faults;
                to.crashed_anywhere = from.crashed_anywhere;
                to.stuck = from.stuck;
            }
            (to, from) => to.clone_from(from),
        }
        self.fan = *fan;
        self.calls = *calls;
    }

    /// The counts an explorer carries on its transitions instead of in its states: each
    /// register's writes, lost updates and refused writes (three a register, in order).
    /// What a run does next never depends on them, and each event adds to them what the
    /// state it runs in decides; so two executions that reach one state with different
    /// counts go on alike, and their outcomes differ only by what they brought.
    pub(crate) fn counts(&self) -> Counts {
        self.registers.iter().flat_map(|r| r.counts()).collect()
    }

    /// The counts set to `counts` (as [`Sim::counts`] gives them).
    pub(crate) fn set_counts(&mut self, counts: &[u64]) {
        for (register, count) in self.registers.iter_mut().zip(counts.chunks_exact(3)) {
            register.set_counts([count[0], count[1], count[2]]);
        }
    }

    /// Who an event belongs to: an actor (its starts and its jobs' events), a server, a
    /// lock or a queue. An owner's events at one instant run in the order the run gives
    /// them; an explorer orders different owners' every way.
    pub(crate) fn owner(&self, event: Event) -> u32 {
        let actors = self.actors.len() as u32;
        let servers = actors + self.servers.len() as u32;
        let locks = servers + self.locks.len() as u32;
        match event {
            Event::Start { actor } => actor,
            Event::Resume { job }
            | Event::Land { job }
            | Event::Retry { job }
            | Event::Timeout { job, .. } => self.jobs[job as usize].actor,
            Event::Branch { parent, .. } => self.jobs[parent as usize].actor,
            Event::Depart { server, .. } | Event::Down { server } | Event::Up { server } => {
                actors + u32::from(server)
            }
            Event::Unlock { lock } => servers + u32::from(lock),
            Event::Arrive { queue, .. } | Event::Visible { queue } => locks + u32::from(queue),
        }
    }
}

/// A transaction under way (its job, what undoes it, what it defers), into `hasher`.
fn write_transaction(transaction: &Transaction, mut hasher: &mut Words<'_>) {
    let Transaction {
        job,
        undo,
        deferred,
        numbers,
    } = transaction;
    job.hash(&mut hasher);
    undo.len().hash(&mut hasher);
    for undo in undo {
        match undo {
            Undo::Register(index, register) => (0u8, index, register).hash(&mut hasher),
            Undo::Key(store, undo) => (1u8, store, undo).hash(&mut hasher),
        }
    }
    deferred.hash(&mut hasher);
    numbers.len().hash(&mut hasher);
    for number in numbers {
        hash_f64(*number, &mut hasher);
    }
}

/// What of `actor` a state's fingerprint covers, packed in words: written at once, not
/// as a few dozen small writes. Its constants (group, index, first start, streams) are the
/// point's, the same in every state, and left out.
pub(crate) fn actor_words(actor: &Actor) -> [u64; 13] {
    let Actor {
        group: _,
        index: _,
        start: _,
        started,
        completed,
        gave_up,
        retries,
        failed,
        lock_wait,
        server_wait,
        rejected,
        end,
        crashed,
        stopped,
        elapsed_ms,
        arrival_stream: _,
        crash_stream: _,
        jitter_stream: _,
        chance_stream: _,
        timeouts,
        restarts,
        incarnation,
    } = *actor;
    let flags = u64::from(crashed)
        | u64::from(stopped) << 1
        | u64::from(lock_wait.is_some()) << 2
        | u64::from(server_wait.is_some()) << 3
        | u64::from(end.is_some()) << 4;
    [
        started,
        completed,
        gave_up,
        retries,
        failed,
        lock_wait.unwrap_or(0),
        server_wait.unwrap_or(0),
        rejected,
        end.unwrap_or(0),
        timeouts,
        restarts,
        elapsed_ms.to_bits(),
        u64::from(incarnation) | flags << 32,
    ]
}

/// `job`, every field, packed in words (as [`actor_words`]).
pub(crate) fn job_words(job: &Job) -> [u64; 12] {
    let Job {
        actor,
        group,
        repetition,
        step,
        started,
        step_started,
        retries,
        wait,
        waiting,
        deadline,
        // Read only under `tie_order = "reads_first"` (a read handed a lock at its
        // release's instant sees it as of the instant's start), never in an explored run,
        // which takes the events in order (Fifo): two states apart by it alone go on alike.
        handed_at: _,
        attempt,
        outcome,
        serving,
        taking,
        incarnation,
        in_service,
        polling,
        parent,
        branch,
        cancelled,
        running,
        joined,
        failed,
        winner,
        slot,
        calling,
        answering,
        // Its `parallel` step's (at which it stands while they are read).
        need: _,
        withdraw: _,
        // Never set in an explored run (it cancels no event).
        timer: _,
        // A count of its history: what it decides is whether each pending timer is the
        // job's latest, which the pending events say (`write_state`).
        armed: _,
    } = *job;
    let pair = |low: u32, high: u32| u64::from(low) | u64::from(high) << 32;
    let quad = |first: u16, second: u16, third: u16, fourth: u16| {
        u64::from(first)
            | u64::from(second) << 16
            | u64::from(third) << 32
            | u64::from(fourth) << 48
    };
    let bytes = u64::from_le_bytes([
        outcome,
        u8::from(in_service),
        branch,
        u8::from(cancelled),
        running,
        joined,
        failed,
        winner,
    ]);
    [
        repetition,
        started,
        step_started,
        retries,
        deadline,
        pair(actor, step),
        pair(wait, attempt),
        pair(incarnation, parent),
        pair(slot, u32::from(group) | u32::from(calling) << 16),
        quad(waiting, serving, taking, polling),
        bytes,
        u64::from(answering),
    ]
}

/// A pending event as a fingerprint orders them: its time, owner, insertion number, and
/// its class.
type Pending = (u64, u32, u64, sim_core::Class, Event);

/// Words a fingerprint's buffer starts with room for: most states write fewer, so the
/// buffer grows at most a few times in a whole exploration.
const WORDS_RESERVED: usize = 512;

thread_local! {
    /// The words of the state being fingerprinted and its pending events in order, kept
    /// between calls (no allocation per state once they have grown).
    static BUFFER: std::cell::RefCell<(Vec<u64>, Vec<Pending>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// A `Hasher` that only collects what it is given, each number as a whole word (a byte or
/// a half word widened), to hash at once: a write is one store, where packing bytes cost
/// a copy of a slice of unknown length each.
struct Words<'b>(&'b mut Vec<u64>);

impl Words<'_> {
    /// `words`, in one copy.
    #[inline]
    fn words<const N: usize>(&mut self, words: &[u64; N]) {
        self.0.extend(words.iter().map(|word| word.to_le()));
    }

    /// One word, little-endian in memory whatever the machine (no-op on most): shards of
    /// one exploration may run on different machines and must key a state alike.
    #[inline]
    fn push(&mut self, word: u64) {
        self.0.push(word.to_le());
    }
}

impl std::hash::Hasher for Words<'_> {
    /// Their count, then the bytes eight to a word, the last word padded with zeros: the
    /// count tells `"a"` from `"a\0"`, which pad alike (a `str` writes no length of its own).
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.push(bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        for chunk in chunks.by_ref() {
            self.push(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.push(u64::from_le_bytes(last));
        }
    }
    #[inline]
    fn write_u8(&mut self, x: u8) {
        self.push(u64::from(x));
    }
    #[inline]
    fn write_u16(&mut self, x: u16) {
        self.push(u64::from(x));
    }
    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.push(u64::from(x));
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.push(x);
    }
    #[inline]
    fn write_u128(&mut self, x: u128) {
        self.push(x as u64);
        self.push((x >> 64) as u64);
    }
    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.push(x as u64);
    }
    fn finish(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(bytemuck::cast_slice(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A steer decides "no" past what it was told, counts a fault only when one is taken,
    /// and makes no choice of a certain draw or of a fault past its budget.
    #[test]
    fn decisions_follow_the_forced_prefix_then_say_no() {
        let mut steer = Steer {
            forced: 1,
            max_faults: 1,
            ..Steer::default()
        };
        assert!(steer.decide(0.5, DrawKind::Loss));
        assert_eq!(steer.faults, 1);
        // The budget is spent: no choice, no record.
        assert!(!steer.decide(0.5, DrawKind::Loss));
        assert_eq!(steer.drawn.len(), 1);
        // Not a fault: still a choice, "no" past the forced prefix.
        assert!(!steer.decide(0.25, DrawKind::Chance));
        assert!(steer.decide(1.0, DrawKind::Chance));
        assert!(!steer.decide(0.0, DrawKind::Chance));
        assert_eq!(steer.drawn.len(), 2);
        assert_eq!(
            steer.drawn[1],
            Draw {
                probability: 0.25,
                taken: false,
                kind: DrawKind::Chance
            }
        );
    }
}
