//! `lock_queue` (lesson 000): N appliers change one state record (a serial number and items).
//! Applying reads the state, works `hold_ms`, appends the applier's items and writes the whole
//! record back with serial + 1. Without a lock the last writer wins; a polled lock queues the
//! appliers; a lock left by a crashed holder stops everyone; local records split the truth.

use std::collections::{HashSet, VecDeque};

use sim_core::{EventQueue, Handler, Nanos, SimError, ns_to_ms, run};

use coordsim_model::{
    ChartKind, DefaultChart, Lane, Lanes, Model, ModelError, Output, RunContext, TimelineStyle,
    Valid,
};
use coordsim_model::{Cost, Millis, ParamError, PerEntity, positive_duration};

choice! {
    /// How appliers coordinate.
    pub enum Lock {
        /// Create the lock record atomically; on failure retry every `poll_ms`, give up after
        /// the ceiling.
        Poll = "poll",
        /// No lock: read at start, write at start + hold; the last writer wins.
        None = "none",
        /// A blocking FIFO lock: waiters are handed the lock on release.
        Queue = "queue",
        /// Like `poll`, but a lock record older than `lease_ms` may be taken over.
        Lease = "lease",
    }
}

choice! {
    /// Where the state lives.
    pub enum State {
        /// One shared record (and one lock).
        Remote = "remote",
        /// Each applier has its own record (and lock).
        Local = "local",
    }
}

params! {
    /// Parameters of `lock_queue`; defaults are lesson 000's locked pair.
    pub struct Params {
        /// number of appliers, named `a`, `b`, `c`, …
        appliers: u64 = 2,
        /// optional applier names, one per applier (empty: `a`, `b`, …)
        names: Vec<String> = Vec::new(),
        /// when each applier starts: a number (all) or a list (one per applier)
        start_ms: PerEntity<Millis> = PerEntity::All(Millis::lit(0.0)),
        /// how long an apply works: a number or a list
        hold_ms: PerEntity<Millis> = PerEntity::All(Millis::lit(250.0)),
        /// resources each applier creates: a number or a list
        items: PerEntity<u64> = PerEntity::All(12),
        /// `poll`, `none`, `queue` (blocking FIFO hand-off) or `lease`
        lock: Lock = Lock::Poll,
        /// retry interval after a failed attempt
        poll_ms: Millis = Millis::lit(25.0),
        /// an applier gives up after a failed attempt at a time > start + this (`queue`: when still waiting at start + this)
        give_up_after_ms: Millis = Millis::lit(10000.0),
        /// a lock record left by a crashed holder exists at time 0
        stale_lock_at_start: bool = false,
        /// names of appliers that die right after acquiring the lock and reading the state
        crash: Vec<String> = Vec::new(),
        /// resources a crashing applier had created before dying
        crash_items: u64 = 0,
        /// times at which an operator deletes the lock record by hand
        unlock_at_ms: Vec<Millis> = Vec::new(),
        /// `lease` only: a lock record older than this may be taken over
        lease_ms: Millis = Millis::lit(0.0),
        /// each acquisition gets an increasing token; the store rejects a write whose token is lower than one it has accepted
        fencing: bool = false,
        /// the wrong order: read the state at start, before trying the lock
        read_before_lock: bool = false,
        /// `remote`: one shared record; `local`: each applier has its own record (and lock)
        state: State = State::Remote,
    }
}

columns! {
    /// Metrics of one run.
    pub struct Metrics {
        /// number of appliers
        appliers: u64,
        /// resources that exist: items of every applier that applied, plus crash_items of each crashed one
        items_created: u64,
        /// items in the final shared state (`local`: in the first applier's record)
        items_recorded: u64,
        /// created − recorded: resources the record does not know
        untracked: u64,
        /// the final serial of the shared record (`local`: the first applier's)
        serial_final: u64,
        /// applies whose items are missing from the final state (`local`: from their own record)
        lost_writes: u64,
        /// appliers that gave up waiting for the lock
        gave_up: u64,
        /// failed lock attempts, all appliers
        rounds_total: u64,
        /// most failed attempts of one applier
        rounds_max: u64,
        /// total wait of the appliers that acquired a lock (rounds × poll_ms; `queue`: acquisition − start)
        wait_total_ms: Option<f64>,
        /// longest wait of an applier that acquired a lock
        wait_max_ms: Option<f64>,
        /// most appliers holding one lock record at once (a crashed holder counts); 1 means mutual exclusion held
        max_holders: u64,
        /// 1 when a lock record exists at the end
        lock_left: bool,
        /// time of the last write or give-up − the earliest start
        makespan_ms: f64,
        /// state records (1 remote, one per applier local)
        state_files: u64,
        /// the smallest share of the created items one record knows
        coverage_min_pct: Option<f64>,
        /// the largest share of the created items one record knows
        coverage_max_pct: Option<f64>,
        /// records that know every created item
        files_knowing_all: u64,
        /// items a drift scan of the first applier's record reports as unmanaged although another record owns them
        false_untracked: u64,
    }
}

columns! {
    /// One applier's row.
    pub struct ApplierRow {
        /// when it started
        start_ms: f64,
        /// how long its apply works
        hold_ms: f64,
        /// failed lock attempts
        rounds: u64,
        /// rounds × poll_ms (`queue`: acquisition − start), up to its give-up when it gave up (`queue`: give-up − start); empty only without a lock
        wait_ms: Option<f64>,
        /// acquisition − start; empty when it never acquired
        acquire_delay_ms: Option<f64>,
        /// the serial it read; empty if it never read
        read_serial: Option<u64>,
        /// resources it creates
        items: u64,
        /// applied, gave_up, crashed or rejected
        outcome: String,
        /// when it wrote, gave up or crashed (an extension, for timelines)
        end_ms: Option<f64>,
    }
}

/// The model.
pub struct LockQueue;

/// Most appliers in one run: each applier's writes have their own event class (the engine
/// has about 16.7 million), and each costs about 200 bytes of state plus its entity row.
const MAX_APPLIERS: u64 = 10_000_000;

/// The default name of applier `i`: a, b, …, z, aa, ab, …
pub fn default_name(mut i: usize) -> String {
    let mut name = Vec::new();
    loop {
        name.push(b'a' + (i % 26) as u8);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    name.reverse();
    String::from_utf8(name).unwrap_or_default()
}

impl Params {
    fn name(&self, i: usize) -> String {
        self.names
            .get(i)
            .cloned()
            .unwrap_or_else(|| default_name(i))
    }
}

impl Model for LockQueue {
    fn name(&self) -> &'static str {
        "lock_queue"
    }
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        crate::turkish::param_meaning(self.name(), key, language)
    }
    fn summary(&self) -> &'static str {
        "N appliers change one state record: lost writes without a lock, a polled lock queue, stale locks, leases and fencing, local vs remote state (lesson 000)"
    }
    fn charts(&self) -> Vec<DefaultChart> {
        vec![
            DefaultChart {
                name: "timeline",
                x: "entity",
                y: &[],
                kind: ChartKind::Timeline,
                mark_x: None,
                mark_y: None,
            },
            DefaultChart {
                name: "wait-per-applier",
                x: "entity",
                y: &["wait_ms"],
                kind: ChartKind::Bar,
                mark_x: None,
                mark_y: None,
            },
        ]
    }
    type Params = Params;
    type Metrics = Metrics;
    type Entity = ApplierRow;

    fn timeline(&self) -> Option<TimelineStyle> {
        Some(TIMELINE)
    }

    /// The lock (the first record's, with `state = "local"`): its holder over time.
    fn resources(&self) -> Vec<String> {
        vec![LOCK_LANE.to_string()]
    }

    fn cost(&self, p: &Params) -> Cost {
        let n = p.appliers;
        // Every applier waits at most for all the others' holds (and the latest start), or
        // until it gives up; a polled lock tries every poll_ms of that.
        let holds: f64 = (0..n.min(1_000_000) as usize)
            .map(|i| p.hold_ms.get(i).ms())
            .sum();
        let starts = (0..n.min(1_000_000) as usize)
            .map(|i| p.start_ms.get(i).ms())
            .fold(0.0, f64::max);
        let wait = (holds + starts).min(p.give_up_after_ms.ms());
        let polls = if p.lock == Lock::Poll && p.poll_ms.ms() > 0.0 {
            (wait / p.poll_ms.ms()).min(1e15) as u64 + 1
        } else {
            1
        };
        let items: u64 = (0..n.min(1_000_000) as usize)
            .map(|i| p.items.get(i))
            .fold(0, u64::saturating_add);
        Cost {
            events: n
                .saturating_mul(polls.saturating_add(8))
                .saturating_add(items),
            memory_bytes: n
                .saturating_mul(256)
                .saturating_add(items.saturating_mul(16)),
            entity_rows: n,
            driven_by: (if p.lock == Lock::Poll && polls > 1000 {
                "poll_ms"
            } else {
                "appliers"
            })
            .into(),
            point_bytes: 0,
            ..Cost::default()
        }
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        if !(1..=MAX_APPLIERS).contains(&p.appliers) {
            return Err(ParamError::new(
                "appliers",
                format!("must be from 1 to {MAX_APPLIERS}, got {}", p.appliers),
            ));
        }
        let n = p.appliers as usize;
        if !p.names.is_empty() && p.names.len() != n {
            return Err(ParamError::new(
                "names",
                format!(
                    "has {} names for {n} appliers; give one each",
                    p.names.len()
                ),
            ));
        }
        let mut seen = HashSet::with_capacity(p.names.len());
        for name in &p.names {
            if name.is_empty() || !seen.insert(name.as_str()) {
                return Err(ParamError::new(
                    "names",
                    format!("names must be non-empty and distinct (`{name}`)"),
                ));
            }
        }
        for (key, list) in [
            ("start_ms", p.start_ms.list_len()),
            ("hold_ms", p.hold_ms.list_len()),
            ("items", p.items.list_len()),
        ] {
            if let Some(len) = list
                && len != n
            {
                return Err(ParamError::new(
                    key,
                    format!(
                        "has {len} values for {n} appliers; give one number for all or one each"
                    ),
                ));
            }
        }
        positive_duration("poll_ms", p.poll_ms.ms())?;
        if !p.crash.is_empty() {
            let names: HashSet<String> = (0..n).map(|i| p.name(i)).collect();
            for c in &p.crash {
                if !names.contains(c) {
                    let mut shown: Vec<String> = (0..n.min(20)).map(|i| p.name(i)).collect();
                    if n > 20 {
                        shown.push("…".into());
                    }
                    return Err(ParamError::new(
                        "crash",
                        format!("`{c}` is not an applier; appliers: {}", shown.join(", ")),
                    ));
                }
            }
        }
        Ok(())
    }

    fn run(
        &self,
        p: &Valid<Params>,
        ctx: &RunContext,
    ) -> Result<Output<Metrics, ApplierRow>, ModelError> {
        let n = p.appliers as usize;
        let mut sim = Sim::new(p, ctx.wants_resource_lanes());
        let mut queue = ctx.queue(2 * n + p.unlock_at_ms.len() + 1);
        // Starts first, in list order: at equal times a start runs before anything scheduled
        // later, including the operator's unlocks (scheduled next) and any event of the run.
        for a in 0..n {
            let start = sim.appliers[a].start;
            if p.lock == Lock::None {
                queue.schedule_at(start, READ, Event::Start { a: a as u32 });
            } else {
                queue.schedule_at(start, 0, Event::Start { a: a as u32 });
            }
        }
        for ms in &p.unlock_at_ms {
            queue.schedule_at(ms.ns(), 0, Event::Unlock);
        }
        run(&mut queue, &mut sim)?;
        // Mutual exclusion, checked on every run where the lock is meant to exclude: no
        // lease to take over (even `lease_ms = 0`: any record older than 0 ms is taken over), no
        // operator unlock under a holder.
        if p.lock != Lock::None
            && p.lock != Lock::Lease
            && p.unlock_at_ms.is_empty()
            && sim.max_holders > 1
        {
            return Err(ModelError::Invariant(format!(
                "mutual exclusion at seed {}: {} appliers held the lock at once",
                ctx.seed(),
                sim.max_holders
            )));
        }
        Ok(sim.output(p, ctx.wants_lanes(), ctx.wants_entities()))
    }
}

/// Without a lock, reads at an instant come before writes, and writes land in list order.
const READ: u32 = 0;
fn write_class(a: u32) -> u32 {
    1 + a
}

#[derive(Debug, Clone, Copy)]
enum Event {
    /// An applier starts: reads (`none`, `read_before_lock`) and tries the lock.
    Start { a: u32 },
    /// A retry after `poll_ms`.
    Retry { a: u32 },
    /// The write and the release: one event.
    Write { a: u32 },
    /// `queue`: the waiter's ceiling passed.
    Timeout { a: u32 },
    /// The operator deletes the lock record(s).
    Unlock,
}

/// A state record: its serial and which appliers' items it holds, as a version chain. A write
/// stores the writer's snapshot plus its own items: version `v` is `(parent, applier)` in
/// `Sim::versions`, and the record (or a snapshot of it) is just the head version. Reading
/// copies two numbers, so a run costs in proportion to its events, not appliers × reads.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Record {
    serial: u64,
    /// The last version written, or `NO_VERSION` for an empty record.
    head: u32,
}

const NO_VERSION: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct LockRecord {
    /// The holder's token; `None` for the stale record left at start.
    owner: Option<u32>,
    token: u64,
    since: Nanos,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Pending,
    Applied,
    GaveUp,
    Crashed,
    Rejected,
}

struct Applier {
    start: Nanos,
    hold: Nanos,
    items: u64,
    crashes: bool,
    rounds: u64,
    acquired_at: Option<Nanos>,
    token: u64,
    /// The state it read, in a buffer sized before the run (reads copy, never allocate).
    snapshot: Record,
    /// Whether it has read (the snapshot is meaningful).
    has_read: bool,
    outcome: Outcome,
    end: Option<Nanos>,
    waiting: bool,
}

struct Sim {
    mode: Lock,
    local: bool,
    poll: Nanos,
    give_up: Nanos,
    lease: Nanos,
    fencing: bool,
    read_before_lock: bool,
    appliers: Vec<Applier>,
    records: Vec<Record>,
    /// Every write: (the version it extends, the writer).
    versions: Vec<(u32, u32)>,
    locks: Vec<Option<LockRecord>>,
    /// Per record: appliers that believe they hold its lock (crashed ones stay).
    holders: Vec<Vec<u32>>,
    max_holders: usize,
    /// Per record: the highest token whose write it accepted.
    accepted: Vec<u64>,
    next_token: u64,
    waiters: Vec<VecDeque<u32>>,
    last_event: Option<Nanos>,
    /// The first record's lock over time, when a timeline draws it (`resources = ["lock"]`):
    /// its holder by applier, -1 the stale record, NaN none.
    holder: Option<Lane>,
}

impl Sim {
    fn new(p: &Params, holder: bool) -> Self {
        let crash: HashSet<&str> = p.crash.iter().map(String::as_str).collect();
        let n = p.appliers as usize;
        let local = p.state == State::Local;
        let files = if local { n } else { 1 };
        let mut locks = vec![None; files];
        if p.stale_lock_at_start {
            locks[0] = Some(LockRecord {
                owner: None,
                token: 0,
                since: 0,
            });
        }
        Sim {
            mode: p.lock,
            local,
            poll: p.poll_ms.ns(),
            give_up: p.give_up_after_ms.ns(),
            lease: p.lease_ms.ns(),
            fencing: p.fencing,
            read_before_lock: p.read_before_lock,
            appliers: (0..n)
                .map(|i| Applier {
                    start: p.start_ms.get(i).ns(),
                    hold: p.hold_ms.get(i).ns(),
                    items: p.items.get(i),
                    crashes: !crash.is_empty() && crash.contains(p.name(i).as_str()),
                    rounds: 0,
                    acquired_at: None,
                    token: 0,
                    snapshot: Record {
                        serial: 0,
                        head: NO_VERSION,
                    },
                    has_read: false,
                    outcome: Outcome::Pending,
                    end: None,
                    waiting: false,
                })
                .collect(),
            records: vec![
                Record {
                    serial: 1,
                    head: NO_VERSION,
                };
                files
            ],
            versions: Vec::with_capacity(n),
            locks,
            holders: vec![Vec::new(); files],
            max_holders: 0,
            accepted: vec![0; files],
            next_token: 1,
            waiters: vec![VecDeque::new(); files],
            last_event: None,
            holder: holder.then(|| {
                let mut lane = Lane::new(LOCK_LANE);
                if p.stale_lock_at_start {
                    lane.level(HOLDER, 0.0, -1.0);
                }
                lane
            }),
        }
    }

    /// The first record's lock changed hands at `now` (`None`: free).
    fn held(&mut self, f: usize, now: Nanos, by: Option<u32>) {
        if f == 0
            && let Some(lane) = &mut self.holder
        {
            lane.level(HOLDER, ns_to_ms(now), by.map_or(f64::NAN, f64::from));
        }
    }

    /// The record (and lock) applier `a` works on.
    fn file(&self, a: u32) -> usize {
        if self.local { a as usize } else { 0 }
    }

    fn read(&mut self, a: u32) {
        let f = self.file(a);
        let applier = &mut self.appliers[a as usize];
        applier.snapshot = self.records[f];
        applier.has_read = true;
    }

    fn finish(&mut self, a: u32, outcome: Outcome, now: Nanos, counts_as_last: bool) {
        let ap = &mut self.appliers[a as usize];
        ap.outcome = outcome;
        ap.end = Some(now);
        if counts_as_last {
            self.last_event = Some(self.last_event.map_or(now, |t| t.max(now)));
        }
    }

    /// One attempt to take the lock at `now` (poll, lease, queue).
    #[inline]
    fn attempt(&mut self, a: u32, queue: &mut EventQueue<Event>) {
        let now = queue.now();
        let f = self.file(a);
        let free = match self.locks[f] {
            None => true,
            // A lease: a record older than lease_ms may be taken over.
            Some(lock) => self.mode == Lock::Lease && now - lock.since > self.lease,
        };
        if free {
            self.acquire(a, queue);
            return;
        }
        if self.mode == Lock::Queue {
            let ap = &mut self.appliers[a as usize];
            ap.waiting = true;
            self.waiters[f].push_back(a);
            let deadline = ap.start.saturating_add(self.give_up);
            queue.schedule_at(deadline, 0, Event::Timeout { a });
            return;
        }
        let ap = &mut self.appliers[a as usize];
        ap.rounds += 1;
        if now > ap.start.saturating_add(self.give_up) {
            self.finish(a, Outcome::GaveUp, now, true);
        } else {
            queue.schedule_in(self.poll, 0, Event::Retry { a });
        }
    }

    fn acquire(&mut self, a: u32, queue: &mut EventQueue<Event>) {
        let now = queue.now();
        let f = self.file(a);
        let token = self.next_token;
        self.next_token += 1;
        self.locks[f] = Some(LockRecord {
            owner: Some(a),
            token,
            since: now,
        });
        self.held(f, now, Some(a));
        self.holders[f].push(a);
        self.max_holders = self.max_holders.max(self.holders[f].len());
        let ap = &mut self.appliers[a as usize];
        ap.acquired_at = Some(now);
        ap.token = token;
        ap.waiting = false;
        if !self.read_before_lock {
            self.read(a);
        }
        if self.appliers[a as usize].crashes {
            // Dies right after acquiring and reading: never writes, never releases.
            self.finish(a, Outcome::Crashed, now, false);
            return;
        }
        let hold = self.appliers[a as usize].hold;
        queue.schedule_in(hold, 0, Event::Write { a });
    }

    /// Writes `a`'s snapshot plus its items over the whole record (never a merge).
    fn write(&mut self, a: u32, now: Nanos) {
        let f = self.file(a);
        let ap = &self.appliers[a as usize];
        if self.fencing && self.mode != Lock::None && ap.token < self.accepted[f] {
            self.finish(a, Outcome::Rejected, now, true);
            return;
        }
        // Every writer has read (at its start or at acquisition) before it writes.
        let head = self.versions.len() as u32;
        self.versions.push((ap.snapshot.head, a));
        self.records[f] = Record {
            serial: ap.snapshot.serial + 1,
            head,
        };
        self.accepted[f] = self.accepted[f].max(ap.token);
        self.finish(a, Outcome::Applied, now, true);
    }

    fn release(&mut self, a: u32, queue: &mut EventQueue<Event>) {
        let f = self.file(a);
        self.holders[f].retain(|h| *h != a);
        // Only the holder's own record is deleted: a lease taken over is not the old holder's.
        if self.locks[f]
            .is_some_and(|l| l.owner == Some(a) && l.token == self.appliers[a as usize].token)
        {
            self.locks[f] = None;
            self.held(f, queue.now(), None);
            self.hand_over(f, queue);
        }
    }

    /// `queue`: a free lock goes to the longest waiter.
    fn hand_over(&mut self, f: usize, queue: &mut EventQueue<Event>) {
        if self.mode != Lock::Queue || self.locks[f].is_some() {
            return;
        }
        // Waiters that gave up are still queued (see `Timeout`): skip them.
        while let Some(next) = self.waiters[f].pop_front() {
            if self.appliers[next as usize].waiting {
                self.acquire(next, queue);
                return;
            }
        }
    }
}

impl Handler<Event> for Sim {
    fn handle(&mut self, event: Event, queue: &mut EventQueue<Event>) -> Result<(), SimError> {
        let now = queue.now();
        match event {
            Event::Start { a } => {
                if self.mode == Lock::None {
                    // No lock: read now, write at start + hold (a crashing applier dies after
                    // reading, as it would after acquiring).
                    self.read(a);
                    if self.appliers[a as usize].crashes {
                        self.finish(a, Outcome::Crashed, now, false);
                        return Ok(());
                    }
                    let hold = self.appliers[a as usize].hold;
                    queue.schedule_in(hold, write_class(a), Event::Write { a });
                    return Ok(());
                }
                if self.read_before_lock {
                    self.read(a);
                }
                self.attempt(a, queue);
            }
            Event::Retry { a } => self.attempt(a, queue),
            Event::Write { a } => {
                self.write(a, now);
                if self.mode != Lock::None {
                    self.release(a, queue);
                }
            }
            Event::Timeout { a } => {
                if self.appliers[a as usize].waiting {
                    // It stays in the waiters' queue, skipped at hand-over: no scan here.
                    self.appliers[a as usize].waiting = false;
                    self.finish(a, Outcome::GaveUp, now, true);
                }
            }
            Event::Unlock => {
                for f in 0..self.locks.len() {
                    if self.locks[f].is_some() {
                        self.held(f, now, None);
                    }
                    self.locks[f] = None;
                    self.hand_over(f, queue);
                }
            }
        }
        Ok(())
    }
}

mod output;
mod timeline;
use timeline::{HOLDER, LOCK_LANE, TIMELINE};

#[cfg(test)]
mod tests {
    use super::timeline::{HOLD_STALE, READ_EARLY};
    use super::*;

    fn run_with(p: Params) -> Output<Metrics, ApplierRow> {
        LockQueue.validate(&p).unwrap();
        coordsim_model::run_once(&LockQueue, p.clone(), 0, sim_core::Limits::default()).unwrap()
    }

    fn rounds(out: &Output<Metrics, ApplierRow>) -> Vec<u64> {
        out.entities.iter().map(|(_, r)| r.rounds).collect()
    }

    #[test]
    fn four_appliers_poll_by_hand() {
        // hold 50, poll 25, all start at 0. a acquires at 0 (release at 50). b, c, d fail at 0
        // and 25. At 50 the release (scheduled at 0) runs before the retries (scheduled at 25):
        // b acquires with 2 rounds; c, d fail again (3). At 75 both fail (4). At 100 b's
        // release (scheduled at 50) precedes c's retry (scheduled at 75): c acquires with 4;
        // d fails (5), fails at 125 (6), and acquires at 150 with 6.
        let out = run_with(Params {
            appliers: 4,
            hold_ms: PerEntity::All(Millis::lit(50.0)),
            ..Params::default()
        });
        assert_eq!(rounds(&out), [0, 2, 4, 6]);
        let m = &out.metrics;
        assert_eq!(m.wait_total_ms, Some(300.0)); // 12 rounds × 25
        assert_eq!(m.wait_max_ms, Some(150.0));
        assert_eq!(
            (m.items_recorded, m.serial_final, m.max_holders),
            (48, 5, 1)
        );
        assert_eq!(m.makespan_ms, 200.0); // d writes at 150 + 50
        let d = &out.entities[3].1;
        assert_eq!((d.read_serial, d.end_ms), (Some(4), Some(200.0)));
    }

    #[test]
    fn without_a_lock_the_last_writer_wins() {
        // Both read serial 1 at 0; a writes at 0 (after both reads), b at 60 with its stale
        // snapshot: b's 12 items, serial 2; a's write is lost.
        let out = run_with(Params {
            hold_ms: PerEntity::Each(vec![Millis::lit(0.0), Millis::lit(60.0)]),
            lock: Lock::None,
            ..Params::default()
        });
        let m = &out.metrics;
        assert_eq!(
            (m.items_created, m.items_recorded, m.untracked),
            (24, 12, 12)
        );
        assert_eq!((m.serial_final, m.lost_writes, m.max_holders), (2, 1, 0));
        assert_eq!(m.wait_total_ms, None);
        assert_eq!(out.entities[0].1.wait_ms, None);
    }

    #[test]
    fn equal_time_writes_land_in_list_order() {
        // Same start and hold: both write at 10; b (later in the list) lands last and wins.
        let out = run_with(Params {
            hold_ms: PerEntity::All(Millis::lit(10.0)),
            items: PerEntity::Each(vec![3, 5]),
            lock: Lock::None,
            ..Params::default()
        });
        assert_eq!(out.metrics.items_recorded, 5);
    }

    #[test]
    fn a_crashed_holder_blocks_the_others_until_the_ceiling() {
        // a crashes right after acquiring at 0 (its 4 created resources stay untracked); b polls
        // from 0, and at 125 > 0 + 100 gives up after 6 rounds (0, 25, …, 125).
        let out = run_with(Params {
            crash: vec!["a".into()],
            crash_items: 4,
            give_up_after_ms: Millis::lit(100.0),
            ..Params::default()
        });
        let m = &out.metrics;
        assert_eq!(out.entities[0].1.outcome, "crashed");
        assert_eq!(out.entities[0].1.wait_ms, Some(0.0)); // a crashed holder did acquire
        assert_eq!(out.entities[1].1.outcome, "gave_up");
        assert_eq!(out.entities[1].1.rounds, 6);
        // It waited 6 rounds × 25 ms before giving up.
        assert_eq!(out.entities[1].1.wait_ms, Some(150.0));
        assert_eq!((m.items_created, m.items_recorded, m.untracked), (4, 0, 4));
        assert_eq!((m.lock_left, m.gave_up, m.max_holders), (true, 1, 1));
        assert_eq!(m.makespan_ms, 125.0);
    }

    #[test]
    fn queue_mode_hands_over_without_rounds() {
        // hold 30: a 0–30, b 30–60, c 60–90; waits 0, 30, 60.
        let out = run_with(Params {
            appliers: 3,
            hold_ms: PerEntity::All(Millis::lit(30.0)),
            lock: Lock::Queue,
            ..Params::default()
        });
        assert_eq!(rounds(&out), [0, 0, 0]);
        let waits: Vec<Option<f64>> = out.entities.iter().map(|(_, r)| r.wait_ms).collect();
        assert_eq!(waits, [Some(0.0), Some(30.0), Some(60.0)]);
        assert_eq!(out.metrics.makespan_ms, 90.0);
    }

    #[test]
    fn queue_mode_waiters_give_up_at_their_ceiling() {
        let out = run_with(Params {
            stale_lock_at_start: true,
            lock: Lock::Queue,
            give_up_after_ms: Millis::lit(40.0),
            ..Params::default()
        });
        assert_eq!(out.metrics.gave_up, 2);
        assert_eq!(out.entities[1].1.end_ms, Some(40.0));
        // A queued waiter's wait is give-up time − start: 40 − 0; no one acquired, so the
        // metrics over acquirers stay empty.
        assert_eq!(out.entities[1].1.wait_ms, Some(40.0));
        assert_eq!(out.metrics.wait_total_ms, None);
    }

    #[test]
    fn an_applier_that_gave_up_on_a_stale_lock_waited_its_rounds() {
        // A stale lock never goes away. b polls every 25 ms from 0: attempt k (from 0) at
        // 25k fails; it gives up at the first failed attempt after 0 + 1000, the one at 1025
        // (k = 41): 42 rounds, so its wait is 42 × 25 = 1050 ms (the lesson's measure, a
        // round per failed attempt).
        let out = run_with(Params {
            appliers: 1,
            stale_lock_at_start: true,
            give_up_after_ms: Millis::lit(1000.0),
            ..Params::default()
        });
        let b = &out.entities[0].1;
        assert_eq!((b.outcome.as_str(), b.rounds), ("gave_up", 42));
        assert_eq!(b.wait_ms, Some(1050.0));
        assert_eq!(b.end_ms, Some(1025.0));
        assert_eq!(b.acquire_delay_ms, None);
    }

    #[test]
    fn reading_before_the_lock_shows_on_the_timeline() {
        // The wrong order: both read at 0; b waits 0–250 and holds 250–500 writing what it
        // read at 0. Its lane has the early read as its own mark, and a hold kind that says
        // it did not read.
        let p = Params {
            read_before_lock: true,
            ..Params::default()
        };
        let params = coordsim_model::Valid::check(&LockQueue, p).unwrap();
        let ctx = RunContext::new(0, sim_core::Limits::default()).with_lanes(true);
        let out = LockQueue.run(&params, &ctx).unwrap();
        let b = &out.lanes.lanes()[1];
        let reads: Vec<f64> = b
            .marks()
            .iter()
            .filter(|m| m.kind == READ_EARLY)
            .map(|m| m.at_ms)
            .collect();
        assert_eq!(reads, [0.0]);
        assert!(
            b.spans()
                .iter()
                .any(|s| s.kind == HOLD_STALE && s.from_ms == 250.0 && s.to_ms == Some(500.0))
        );
        assert!(TIMELINE.mark(READ_EARLY).is_some() && TIMELINE.span(HOLD_STALE).is_some());
    }

    #[test]
    fn a_timeline_builds_at_most_the_lane_cap_and_counts_every_applier() {
        // 600 appliers with no lock: 500 lanes built, 600 counted.
        let params = coordsim_model::Valid::check(
            &LockQueue,
            Params {
                appliers: 600,
                lock: Lock::None,
                ..Params::default()
            },
        )
        .unwrap();
        let ctx = RunContext::new(0, sim_core::Limits::default()).with_lanes(true);
        let out = LockQueue.run(&params, &ctx).unwrap();
        assert_eq!(out.lanes.lanes().len(), coordsim_model::MAX_LANES);
        assert_eq!(out.lanes.total(), 600);
    }

    #[test]
    fn applier_names_continue_past_z() {
        assert_eq!(default_name(0), "a");
        assert_eq!(default_name(25), "z");
        assert_eq!(default_name(26), "aa");
        assert_eq!(default_name(27), "ab");
        assert_eq!(default_name(26 + 26 * 26), "aaa");
    }

    #[test]
    fn rejects_mismatched_lists_and_unknown_crashers() {
        let bad = |p: Params| LockQueue.validate(&p).unwrap_err().key;
        assert_eq!(
            bad(Params {
                hold_ms: PerEntity::Each(vec![Millis::lit(1.0)]),
                ..Params::default()
            }),
            "hold_ms"
        );
        assert_eq!(
            bad(Params {
                names: vec!["x".into()],
                ..Params::default()
            }),
            "names"
        );
        assert_eq!(
            bad(Params {
                crash: vec!["zz".into()],
                ..Params::default()
            }),
            "crash"
        );
        assert_eq!(
            bad(Params {
                poll_ms: Millis::lit(0.0),
                ..Params::default()
            }),
            "poll_ms"
        );
        assert_eq!(
            bad(Params {
                appliers: 0,
                ..Params::default()
            }),
            "appliers"
        );
    }

    proptest::proptest! {
        #[test]
        fn locks_exclude_and_records_add_up(
            appliers in 1u64..7,
            holds in proptest::collection::vec(0u64..300, 6),
            starts in proptest::collection::vec(0u64..300, 6),
            items in proptest::collection::vec(0u64..20, 6),
            queue_mode in proptest::bool::ANY,
            poll in 1u64..60,
            give_up in 0u64..2000,
        ) {
            let n = appliers as usize;
            let p = Params {
                appliers,
                start_ms: PerEntity::Each(starts[..n].iter().map(|x| Millis::lit(*x as f64)).collect()),
                hold_ms: PerEntity::Each(holds[..n].iter().map(|x| Millis::lit(*x as f64)).collect()),
                items: PerEntity::Each(items[..n].to_vec()),
                lock: if queue_mode { Lock::Queue } else { Lock::Poll },
                poll_ms: Millis::lit(poll as f64),
                give_up_after_ms: Millis::lit(give_up as f64),
                ..Params::default()
            };
            let out = run_with(p);
            let m = &out.metrics;
            // Mutual exclusion (no crash, no unlock, no lease).
            proptest::prop_assert!(m.max_holders <= 1);
            // Every applied applier read under the lock, so the record holds all created items:
            // recorded = created and nothing is untracked.
            let applied_items: u64 = out
                .entities
                .iter()
                .filter(|(_, r)| r.outcome == "applied")
                .map(|(_, r)| r.items)
                .sum();
            proptest::prop_assert_eq!(m.items_created, applied_items);
            proptest::prop_assert_eq!(m.items_recorded, applied_items);
            proptest::prop_assert_eq!(m.untracked, 0);
            // Reading under the lock, nobody's write is lost, and each apply bumps the serial.
            proptest::prop_assert_eq!(m.lost_writes, 0);
            let applied = out.entities.iter().filter(|(_, r)| r.outcome == "applied").count() as u64;
            proptest::prop_assert_eq!(m.serial_final, 1 + applied);
            proptest::prop_assert_eq!(applied + m.gave_up, appliers);
            proptest::prop_assert!(!m.lock_left);
        }

        #[test]
        fn without_a_lock_records_still_add_up(
            appliers in 1u64..7,
            holds in proptest::collection::vec(0u64..100, 6),
            items in proptest::collection::vec(0u64..20, 6),
        ) {
            let n = appliers as usize;
            let out = run_with(Params {
                appliers,
                hold_ms: PerEntity::Each(holds[..n].iter().map(|x| Millis::lit(*x as f64)).collect()),
                items: PerEntity::Each(items[..n].to_vec()),
                lock: Lock::None,
                ..Params::default()
            });
            let m = &out.metrics;
            proptest::prop_assert_eq!(m.items_recorded + m.untracked, m.items_created);
            proptest::prop_assert_eq!(m.max_holders, 0);
        }
    }
}
