//! A scenario's run state: actors, their repetitions ("jobs") and the resources they step
//! through, built for one run of a point; the events are handled in `handle`.
//!
//! Event classes at one instant, lowest first: service completions and early write
//! landings (0); starts and link deliveries, in actor order (1 + actor); everything else, as
//! scheduled (`other`); late write landings (`other + 1`). `tie_order` picks a write
//! landing's class (docs/scenarios.md).

use std::collections::VecDeque;

use sim_core::{Class, EventQueue, Nanos, Samples, Stream, ms_to_ns, ns_to_ms};

use crate::machine::keys::{KeyStore, KeyUndo};
use crate::machine::link::Link;
use crate::machine::lock::{Lock, Token};
use crate::machine::queue::{Queue, Taken};
use crate::machine::register::Register;
use crate::machine::server::Server;
use crate::point::{Dur, Pace, Point, Vars, eval_run};
use crate::syntax::metrics::WAIT_STATS;
use crate::syntax::spec::{Num, Var};

/// No time: a job's deadline or hand-over instant that is not set.
pub(crate) const NONE: Nanos = Nanos::MAX;
pub(crate) const NO_STREAM: u32 = u32::MAX;

/// A group's response times kept exactly, at most: past a million, its percentiles come from
/// a histogram (within 0.1%; count, mean and max stay exact), so a long run keeps one exact
/// set per request, its waits, and not two.
pub(crate) const MAX_EXACT_RESPONSES: usize = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Ev {
    /// An actor's next repetition starts (its first, or an open loop's next).
    Start {
        actor: u32,
    },
    /// The job's current step is over: go on.
    Resume {
        job: u32,
    },
    /// The job's write lands.
    Land {
        job: u32,
    },
    /// A polled lock: try again.
    Retry {
        job: u32,
    },
    /// A wait's ceiling: a queued lock's, a request's, a lost crossing's.
    Timeout {
        job: u32,
    },
    /// A service completes.
    Depart {
        server: u16,
        instance: u32,
    },
    /// An operator deletes a lock's record.
    Unlock {
        lock: u16,
    },
    /// A server goes down, or comes back up.
    Down {
        server: u16,
    },
    Up {
        server: u16,
    },
    /// A message put across a link arrives at its queue.
    Arrive {
        queue: u16,
        msg: u32,
    },
    /// A queue's timer: the visibility of the first message it hides runs out.
    Visible {
        queue: u16,
    },
}

// The queue moves events around: keep one as small as the built-in models' (8 bytes).
const _: () = assert!(std::mem::size_of::<Ev>() == 8);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Completed,
    GaveUp,
}

/// What a job waits for besides a lock: nothing, or a request at this server (`serving`).
pub(crate) const NO_SERVER: u16 = u16::MAX;
/// `serving` of a job whose crossing was lost: only its timeout ends the wait.
pub(crate) const LOST: u16 = u16::MAX - 1;

/// A request at a server whose clients may stop waiting: whose it is, the generation of
/// the job's wait (a job that timed out waits anew), and when its service started.
#[derive(Debug, Clone, Copy, Hash)]
pub(crate) struct Slot {
    pub job: u32,
    pub wait: u32,
    pub started: Nanos,
    /// The instance it waits at (a branch cancelled at a join withdraws it from there).
    pub instance: u32,
}

/// No job: a branch's parent when it is none, a branch's place once it has ended.
pub(crate) const NO_JOB: u32 = u32::MAX;

#[derive(Clone, Copy, Hash)]
pub(crate) struct Job {
    pub actor: u32,
    /// Its actor's group (read on every step: one load fewer than through the actor).
    pub group: u16,
    pub rep: u64,
    pub step: u32,
    pub started: Nanos,
    pub step_started: Nanos,
    pub retries: u64,
    /// Counts this job's queued waits: a timeout or queue entry of an older wait is stale.
    pub wait: u32,
    /// The lock it waits for in a queue (`u16::MAX`: none).
    pub waiting: u16,
    /// When its queued wait gives up (`NONE`: never). A timeout event counts only at this
    /// instant: one left from an earlier wait fires at another (or at the same, which is
    /// the same give-up), so the event needs no generation and stays 8 bytes.
    pub deadline: Nanos,
    /// The instant it was handed a lock its holder had just released.
    pub handed_at: Nanos,
    /// The repetition's attempt, from 1 (a retry after a timeout adds one).
    pub attempt: u32,
    /// What its last step that has an outcome ended with (an index of `spec::OUTCOMES`).
    pub outcome: u8,
    /// The server whose request it waits for with a timeout (`NO_SERVER`: none; `LOST`: a
    /// lost crossing).
    pub serving: u16,
    /// The queue it waits to take from (`u16::MAX`: none).
    pub taking: u16,
    /// Its actor's incarnation when it started: once the actor crashes (and perhaps
    /// restarts), a repetition of its old self still under way goes no further.
    pub incarnation: u32,
    /// Drawn on a timeline: its request is in service (a timeout then ends a `served` span,
    /// not a `waiting` one).
    pub in_service: bool,
    /// The polled lock its next attempt is scheduled on (`u16::MAX`: none).
    pub polling: u16,
    /// The job whose `parallel` this job is a branch of (`NO_JOB`: none), and which branch
    /// (from 1).
    pub parent: u32,
    pub branch: u8,
    /// Cancelled at its parent's join: it goes no further, and is free at its next wake-up.
    pub cancelled: bool,
    /// At its `parallel`: its branches still running, come through, failed; the first
    /// through (from 1; 0: none yet).
    pub running: u8,
    pub joined: u8,
    pub failed: u8,
    pub winner: u8,
    /// Its request's slot at a server whose clients may leave.
    pub slot: u32,
    /// The queue whose reply it waits for, after a call (`u16::MAX`: none).
    pub calling: u16,
}

// A branch in flight is a job: docs/scenarios.md states this bound on its size.
const _: () = assert!(std::mem::size_of::<Job>() <= 112);

#[derive(Clone, Copy)]
pub(crate) struct Actor {
    pub group: u16,
    pub index: u32,
    pub start: Nanos,
    pub started: u64,
    pub completed: u64,
    pub gave_up: u64,
    pub retries: u64,
    pub failed: u64,
    pub lock_wait: Option<Nanos>,
    pub server_wait: Option<Nanos>,
    pub rejected: u64,
    pub end: Option<Nanos>,
    pub crashed: bool,
    /// It stopped (a stop step): it starts no more repetitions.
    pub stopped: bool,
    pub elapsed_ms: f64,
    /// Its arrival and crash streams in `Sim::streams` (`NO_STREAM`: none): a stream is a few
    /// hundred bytes, so only actors that draw have one.
    pub rng: u32,
    pub crash_rng: u32,
    /// Its jitter (`jitter/NAME-i`) and chance (`chance/NAME-i`) streams.
    pub jitter_rng: u32,
    pub chance_rng: u32,
    /// Its waits that timed out.
    pub timeouts: u64,
    /// Times it crashed and restarted.
    pub restarts: u64,
    /// Its crashes so far: a job started before the last one is its old self's.
    pub incarnation: u32,
}

#[derive(Hash)]
pub(crate) struct GroupState {
    pub responses: Samples,
    /// When every repetition of the group is one request, without a timeout, to a server
    /// of fixed service that only it asks: that server and its service. Each response is
    /// then the request's wait plus the service, so the waits the server keeps give the
    /// responses, and none is recorded twice.
    pub alias: Option<(u16, Nanos)>,
    pub started: u64,
    pub completed: u64,
    pub gave_up: u64,
    pub crashed: u64,
    pub retries: u64,
    pub timeouts: u64,
    pub restarts: u64,
}

sim_core::clone_in_place!(GroupState {
    responses,
    alias,
    started,
    completed,
    gave_up,
    crashed,
    retries,
    timeouts,
    restarts
});

/// A queue lock's waiter: the job and the generation of its wait (a job that gave up and
/// waits again is a new waiter).
pub(crate) type Waiter = (u32, u32);

/// One run's state. Its fields are laid out in this order (`repr(C)`), the ones every
/// event of a direct group touches first, so that they share the first cache lines.
#[repr(C)]
pub(crate) struct Sim<'p> {
    pub p: &'p Point,
    /// The instant of the event being handled (`now` in expressions).
    pub now: Nanos,
    pub actors: Vec<Actor>,
    pub servers: Vec<Server>,
    /// The groups served directly (no job per request).
    pub direct: Direct,
    pub groups: Vec<GroupState>,
    pub ready: VecDeque<u32>,
    pub error: Option<String>,
    pub other: Class,
    /// Whether entity rows are wanted (per-actor waits are kept only then).
    pub entities: bool,
    pub jobs: Vec<Job>,
    pub free: Vec<u32>,
    /// What each job knows of the resources, a row per job.
    pub tables: JobTables,
    pub regs: Vec<Register>,
    pub locks: Vec<Lock<Waiter>>,
    pub links: Vec<Link>,
    pub last_end: Option<Nanos>,
    /// The timeline being recorded (`None`: no chart draws one, and nothing is recorded).
    pub lanes: Option<Box<crate::run::lanes::Recorder>>,
    /// The random streams of actors that draw (arrivals, crashes).
    pub streams: Vec<Stream>,
    /// Per group, the streams its steps name, in `streams`.
    pub group_streams: Vec<Vec<u32>>,
    /// Per group: a closed loop (its jobs go on with the next repetition).
    pub closed: Vec<bool>,
    /// Each server's wait statistics once computed (by `WaitStat` order), for the output.
    pub wait_stats: Vec<[Option<Option<f64>>; WAIT_STATS]>,
    /// The group and step that set `error`, when a step did: the error is reported where
    /// that step is written.
    pub error_at: Option<(u16, u32)>,
    /// When the run ended (its last event): a lock never released is held until then.
    pub end: Nanos,
    /// The poll attempts under way, for telling a stuck run (`stuck`).
    pub polls: Polls,
    /// Per lock, the actor that took it last and its incarnation then: who holds a record
    /// no job holds any more (its holder crashed, or ended holding it), for `stuck`.
    pub last_taker: Vec<(u32, u32)>,
    /// Requests at servers whose clients may stop waiting, and the free ones.
    pub slots: Vec<Slot>,
    pub free_slots: Vec<u32>,
    pub queues: Vec<Queue>,
    pub keys: Vec<KeyStore>,
    /// The transaction under way, if any.
    pub tx: Transaction,
    /// A message's numbers as a put computes them.
    pub scratch: Vec<f64>,
    /// Set when an explorer runs it: the choices it makes (`run::steer`).
    pub steer: Option<Box<Steer>>,
    /// The most branches of any `parallel` of the point (0: none): a job's row of kids.
    pub fan: usize,
    /// Whether any step calls (a job then keeps what its last call got back).
    pub calls: bool,
}

sim_core::clone_in_place!(Sim<'p> {
    p, now, actors, servers, direct, groups, ready, error, other, entities, jobs, free, tables, regs, locks, links, last_end, lanes, streams, group_streams, closed, wait_stats, error_at, end, polls, last_taker, slots, free_slots, queues, keys, tx, scratch, steer, fan, calls
});

/// What each job knows of the resources: a row of each table per job (jobs × registers,
/// jobs × locks, …), so a job's row is a slice and no job allocates.
#[derive(Default)]
pub(crate) struct JobTables {
    /// What it last read of each register (NaN: not read).
    pub reads: Vec<f64>,
    /// The token of each lock it holds (0: not held).
    pub tokens: Vec<Token>,
    /// What its last take from each queue got.
    pub taken: Vec<Taken>,
    /// What it last found in each key store (NaN: nothing).
    pub stored: Vec<f64>,
    /// The branches of its `parallel` under way (`NO_JOB`: ended), `Sim::fan` per job.
    pub kids: Vec<u32>,
    /// What its last call got back (NaN: nothing yet), one per job.
    pub replies: Vec<f64>,
}

sim_core::clone_in_place!(JobTables {
    reads,
    tokens,
    taken,
    stored,
    kids,
    replies
});

/// Groups served directly. A direct group's repetitions are each one request, with no
/// timeout, at a fixed instance of a server only it asks, in an open loop, and no timeline
/// is drawn: its requests need no job (the actor tags its request, and the departure ends
/// its repetition).
pub(crate) struct Direct {
    /// Per group, when it is direct: its server and instance.
    pub groups: Vec<Option<(u16, u32)>>,
    /// Per server, its direct group.
    pub servers: Vec<Option<u16>>,
}

sim_core::clone_in_place!(Direct { groups, servers });

/// The poll attempts under way.
#[derive(Default, Clone, Hash)]
pub(crate) struct Polls {
    /// Scheduled and not yet run: when they are every event left, the run may be stuck.
    pub pending: usize,
    /// Before this instant, a run with only polls left is known not to be stuck yet (a
    /// lease runs out, or a poller gives up, then): no need to look again.
    pub unstuck_until: Nanos,
}

/// The transaction under way: whose, what undoes its effects so far, and what it will do
/// when it ends.
#[derive(Default)]
pub(crate) struct Transaction {
    /// The job inside it.
    pub job: Option<u32>,
    pub undo: Vec<Undo>,
    /// Its puts (their numbers at `numbers`), acks and refusals, in the order they ran.
    pub deferred: Vec<Deferred>,
    pub numbers: Vec<f64>,
}

sim_core::clone_in_place!(Transaction {
    job,
    undo,
    deferred,
    numbers
});

/// What undoes one effect of a transaction.
#[derive(Clone)]
pub(crate) enum Undo {
    Reg(u16, Register),
    Key(u16, KeyUndo),
}

/// What a transaction does when it ends.
#[derive(Debug, Clone, Copy, Hash)]
pub(crate) enum Deferred {
    /// A put of the numbers at this offset of `tx_numbers`.
    Put {
        queue: u16,
        at: u32,
    },
    Ack {
        queue: u16,
        msg: u32,
        receipt: u32,
    },
    /// A put a full queue refused.
    Refused {
        queue: u16,
    },
    /// An ack too late (the message came back first): nothing lands, but it is drawn.
    Late,
}

impl<'p> Sim<'p> {
    /// Schedules what the run starts with: every actor's first start, in actor order (at
    /// equal times a start runs before anything the run schedules, and starts run in actor
    /// order: their classes), then the operator unlocks.
    pub(crate) fn schedule_starts(&mut self, queue: &mut EventQueue<Ev>) {
        for a in 0..self.p.actors {
            let group = &self.p.groups[self.actors[a as usize].group as usize];
            if group.count == 0 {
                continue;
            }
            if let Some(at) = self.next_start(a) {
                queue.schedule_at(at, 1 + a, Ev::Start { actor: a });
            }
        }
        for (l, lock) in self.p.locks.iter().enumerate() {
            for &at in &lock.unlock_ns {
                queue.schedule_at(at, self.other, Ev::Unlock { lock: l as u16 });
            }
        }
        // A window's edges run first at their instants (class 0, scheduled first): a service
        // that ends as the server goes down has ended; one due as it comes up starts then.
        for (s, server) in self.p.servers.iter().enumerate() {
            for &(from, to) in &server.down {
                let server = s as u16;
                queue.schedule_at(from, 0, Ev::Down { server });
                queue.schedule_at(to, 0, Ev::Up { server });
            }
        }
    }

    /// When actor `a`'s next repetition starts (its `started`-th), or `None` when it has
    /// started them all (or a closed loop, after its first: the loop starts the rest).
    #[inline(always)]
    pub(crate) fn next_start(&mut self, a: u32) -> Option<Nanos> {
        let actor = &mut self.actors[a as usize];
        let group = &self.p.groups[actor.group as usize];
        if actor.started >= group.repeat || actor.crashed || actor.stopped {
            return None;
        }
        let k = actor.started;
        Some(match &group.pace {
            Pace::Closed if k > 0 => return None,
            Pace::Closed => actor.start,
            Pace::Every(every) => actor.start.saturating_add(every.saturating_mul(k)),
            Pace::Spread(window) => {
                let exact = u128::from(k) * u128::from(*window);
                let r = u128::from(group.repeat);
                actor
                    .start
                    .saturating_add(((2 * exact + r) / (2 * r)) as Nanos)
            }
            Pace::Random(gaps) => {
                let rng = &mut self.streams[actor.rng as usize];
                actor.elapsed_ms += gaps.sample_ms(rng);
                actor
                    .start
                    .saturating_add(ms_to_ns(actor.elapsed_ms).unwrap_or(NONE))
            }
        })
    }

    #[inline(always)]
    pub(crate) fn spawn(&mut self, actor: u32, now: Nanos) -> u32 {
        let a = &mut self.actors[actor as usize];
        let rep = a.started;
        a.started += 1;
        self.groups[a.group as usize].started += 1;
        let job = Job {
            actor,
            group: a.group,
            rep,
            step: 0,
            started: now,
            step_started: now,
            retries: 0,
            wait: 0,
            waiting: u16::MAX,
            handed_at: NONE,
            deadline: NONE,
            attempt: 1,
            outcome: 0,
            serving: NO_SERVER,
            taking: u16::MAX,
            incarnation: a.incarnation,
            in_service: false,
            polling: u16::MAX,
            parent: NO_JOB,
            branch: 0,
            cancelled: false,
            running: 0,
            joined: 0,
            failed: 0,
            winner: 0,
            slot: u32::MAX,
            calling: u16::MAX,
        };
        self.alloc(job)
    }

    /// A job for `job`, its rows of the tables blank: a free one, or a new one.
    #[inline(always)]
    pub(crate) fn alloc(&mut self, job: Job) -> u32 {
        let actor = job.actor;
        let j = self.alloc_job(job);
        if let Some(rec) = &mut self.lanes {
            rec.start(j, actor, self.now);
        }
        j
    }

    /// A job that is done goes back to the pool (its sub-row on the timeline is free).
    #[inline(always)]
    pub(crate) fn free_job(&mut self, job: u32) {
        if let Some(rec) = &mut self.lanes {
            rec.end(job, self.jobs[job as usize].actor, self.now);
        }
        self.free.push(job);
    }

    #[inline(always)]
    fn alloc_job(&mut self, job: Job) -> u32 {
        let (nr, nl) = (self.regs.len(), self.locks.len());
        let (nq, nk) = (self.queues.len(), self.keys.len());
        if let Some(j) = self.free.pop() {
            let wait = self.jobs[j as usize].wait;
            self.jobs[j as usize] = Job {
                wait: wait.wrapping_add(1),
                ..job
            };
            let j = j as usize;
            // Skipped when empty: a fill of nothing is still a call to memset, per job.
            if nr > 0 {
                self.tables.reads[j * nr..(j + 1) * nr].fill(f64::NAN);
            }
            if nl > 0 {
                self.tables.tokens[j * nl..(j + 1) * nl].fill(0);
            }
            if nq > 0 {
                self.tables.taken[j * nq..(j + 1) * nq].fill(Taken::NONE);
            }
            if nk > 0 {
                self.tables.stored[j * nk..(j + 1) * nk].fill(f64::NAN);
            }
            if self.calls {
                self.tables.replies[j] = f64::NAN;
            }
            j as u32
        } else {
            self.jobs.push(job);
            self.tables.reads.extend(std::iter::repeat_n(f64::NAN, nr));
            self.tables.tokens.extend(std::iter::repeat_n(0, nl));
            self.tables
                .taken
                .extend(std::iter::repeat_n(Taken::NONE, nq));
            self.tables.stored.extend(std::iter::repeat_n(f64::NAN, nk));
            let fan = self.fan;
            self.tables.kids.extend(std::iter::repeat_n(NO_JOB, fan));
            if self.calls {
                self.tables.replies.push(f64::NAN);
            }
            (self.jobs.len() - 1) as u32
        }
    }

    /// After the run: a direct group's repetitions started and completed, and the run's
    /// last end, from its actors' own counts (the direct path keeps only those).
    pub(crate) fn settle_direct(&mut self) {
        if self.direct.groups.iter().all(Option::is_none) {
            return;
        }
        for a in &self.actors {
            let g = a.group as usize;
            if self.direct.groups[g].is_some() {
                self.groups[g].started += a.started;
                self.groups[g].completed += a.completed;
                if a.end > self.last_end {
                    self.last_end = a.end;
                }
            }
        }
    }

    pub(crate) fn dur(&self, d: &Dur, job: u32) -> Result<Nanos, String> {
        match d {
            Dur::Fixed(ns) => Ok(*ns),
            Dur::Actor(num) => {
                let ms = self.eval(job, num);
                ms_to_ns(ms).ok_or_else(|| {
                    let a = &self.actors[self.jobs[job as usize].actor as usize];
                    format!(
                        "actor {} of `{}`: a duration computed per actor {}",
                        a.index,
                        self.p.groups[a.group as usize].name,
                        sim_core::bad_duration(ms)
                    )
                })
            }
        }
    }

    /// A number computed for `job` now: its actor's `i`, its `k` and `attempt`, what it read
    /// (NaN when it is not a number).
    pub(crate) fn eval(&self, job: u32, num: &Num) -> f64 {
        match num {
            Num::Lit(x) => *x,
            // Read straight off the run's state: no table of names built per number.
            Num::Expr(e, _) => e.eval(&|v| Some(self.var(job, v))).unwrap_or(f64::NAN),
            _ => eval_run(num, &self.p.params, &self.vars(job, f64::NAN)).unwrap_or(f64::NAN),
        }
    }

    /// What name `v` is for `job` now (`read` is not a number here: a write's value is
    /// computed with its own).
    #[inline]
    fn var(&self, job: u32, v: Var) -> f64 {
        let ju = job as usize;
        let j = &self.jobs[ju];
        match v {
            Var::Param(p) => self.p.params.get(p as usize).copied().unwrap_or(f64::NAN),
            Var::Index => f64::from(self.actors[j.actor as usize].index),
            Var::Rep => j.rep as f64,
            Var::Attempt => f64::from(j.attempt),
            Var::Now => sim_core::ns_to_ms(self.now),
            Var::Read => f64::NAN,
            Var::Reg(r) => self.tables.reads[ju * self.regs.len() + r as usize],
            Var::Msg(q, what) => {
                let take = self.tables.taken[ju * self.queues.len() + q as usize];
                self.queues[q as usize].number(take, what)
            }
            Var::Stored(k) => self.tables.stored[ju * self.keys.len() + k as usize],
            Var::Winner => f64::from(j.winner),
            Var::Joined => f64::from(j.joined),
            Var::Reply => self.reply_of(job),
        }
    }

    /// What a number computed for `job` now may name besides the parameters.
    pub(crate) fn vars(&self, job: u32, read: f64) -> Vars<'_> {
        let j = &self.jobs[job as usize];
        let ju = job as usize;
        let (nr, nq, nk) = (self.regs.len(), self.queues.len(), self.keys.len());
        Vars {
            i: self.actors[j.actor as usize].index,
            k: j.rep,
            attempt: j.attempt,
            now_ms: sim_core::ns_to_ms(self.now),
            read,
            regs: &self.tables.reads[ju * nr..(ju + 1) * nr],
            taken: &self.tables.taken[ju * nq..(ju + 1) * nq],
            queues: &self.queues,
            stored: &self.tables.stored[ju * nk..(ju + 1) * nk],
            winner: j.winner,
            joined: j.joined,
            reply: self.reply_of(job),
        }
    }

    /// What `job`'s last call got back (NaN: nothing yet).
    fn reply_of(&self, job: u32) -> f64 {
        self.tables
            .replies
            .get(job as usize)
            .copied()
            .unwrap_or(f64::NAN)
    }

    pub(crate) fn span(&mut self, job: u32, kind: &'static str, from: Nanos, to: Option<Nanos>) {
        if let Some(lanes) = &mut self.lanes {
            let nl = self.locks.len();
            let j = job as usize;
            // A wait while it holds a lock (a deadlock's picture) is drawn as such.
            let kind = if kind == "waiting"
                && self.tables.tokens[j * nl..(j + 1) * nl]
                    .iter()
                    .any(|t| *t != 0)
            {
                "holding_waiting"
            } else {
                kind
            };
            let a = self.jobs[job as usize].actor as usize;
            if let Some(row) = lanes.row(job) {
                lanes.actors[a].span_in_row(kind, row, ns_to_ms(from), to.map(ns_to_ms));
            }
        }
    }

    pub(crate) fn mark(&mut self, job: u32, kind: &'static str, at: Nanos) {
        if let Some(lanes) = &mut self.lanes {
            let a = self.jobs[job as usize].actor as usize;
            if let Some(row) = lanes.row(job) {
                lanes.actors[a].mark_in_row(kind, row, ns_to_ms(at));
            }
        }
    }
}

/// One decision an event made: its probability, what was decided, whether it was a fault.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Draw {
    pub p: f64,
    pub taken: bool,
    pub fault: bool,
}

/// What an explorer decides for a run, one event at a time.
#[derive(Debug, Default)]
pub(crate) struct Steer {
    /// This event's decisions, in the order it makes them: decision i is "yes" when bit i
    /// is set, "no" (no fault, the `chance` not taken) when it is not, so the decisions
    /// past those an explorer gives are "no". A word, not a list: no allocation per event.
    pub forced: u64,
    /// What this event decided (the explorer branches on each decision past `forced`).
    pub drawn: Vec<Draw>,
    /// Faults (losses, duplicates, crashes by probability) along this execution so far.
    pub faults: u32,
    /// At most this many along one execution: past it, no fault is a choice any more.
    pub max_faults: u32,
    /// The job the event resumes from a yield or a start: its first step runs at once (any
    /// other job's first shared step after a shared action yields, so each shared action
    /// is a choice point of its own).
    pub fresh: Option<u32>,
    /// The shared step this event ran first: its job and the step's index (a trace
    /// describes the event by it).
    pub acted: Option<(u32, u32)>,
    /// Every shared step this event ran, as (group, step index): what it touched, for the
    /// explorer's reduction.
    pub touched: Vec<(u16, u32)>,
    /// The product of 1 − p over this event's faults decided "no" by the spent budget.
    pub beyond: f64,
    /// This event is a `crash_anywhere` crash: its actor crashes instead of going on.
    pub crash_now: bool,
    /// The `crash_anywhere` crashes along this execution so far.
    pub crashed_anywhere: u32,
    /// The execution can never progress (every event left a poll that can never
    /// succeed): a run would stop with an error, an exploration ends the execution here,
    /// its pollers unfinished, as an outcome like any other.
    pub stuck: bool,
}

sim_core::clone_in_place!(Steer {
    forced,
    drawn,
    faults,
    max_faults,
    fresh,
    acted,
    touched,
    beyond,
    crash_now,
    crashed_anywhere,
    stuck
});

impl Steer {
    /// Decides a draw of probability `p`: a certain one is no choice; a fault past the
    /// budget is "no".
    pub(crate) fn decide(&mut self, p: f64, fault: bool) -> bool {
        if p <= 0.0 {
            return false;
        }
        if p >= 1.0 {
            return true;
        }
        if fault && self.faults >= self.max_faults {
            // Not a branch, but its probability counts: an outcome's probability is that of
            // its executions within the budget.
            self.beyond *= 1.0 - p;
            return false;
        }
        let taken = self
            .forced
            .checked_shr(self.drawn.len() as u32)
            .is_some_and(|bits| bits & 1 == 1);
        self.drawn.push(Draw { p, taken, fault });
        if taken && fault {
            self.faults += 1;
        }
        taken
    }
}
