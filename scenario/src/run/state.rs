//! A scenario's run state: actors, their repetitions ("jobs") and the resources they step
//! through, built for one run of a point; the events are handled in `handle`.
//!
//! Event classes at one instant, lowest first: service completions and early write
//! landings (0); starts and link deliveries, in actor order (1 + actor); everything else, as
//! scheduled (`other`); late write landings (`other + 1`). `tie_order` picks a write
//! landing's class (docs/scenarios.md).

use std::collections::VecDeque;

use coordsim_model::{Lane, ModelError, ParamError, RunContext};
use sim_core::{Class, EventQueue, Nanos, Samples, Stream, ms_to_ns, ns_to_ms};

use crate::machine::keys::{KeyStore, KeyUndo};
use crate::machine::link::Link;
use crate::machine::lock::{Lock, Token};
use crate::machine::queue::{Queue, Taken};
use crate::machine::register::Register;
use crate::machine::server::Server;
use crate::point::{
    CrashRule, Dur, Group, InitialKeys, MAX_LANES, Pace, Point, Step, Vars, eval_run,
};
use crate::syntax::spec::{KeyOp, Num, Var};

/// No time: a job's deadline or hand-over instant that is not set.
pub const NONE: Nanos = Nanos::MAX;
const NO_STREAM: u32 = u32::MAX;

/// A group's response times kept exactly, at most: past a million, its percentiles come from
/// a histogram (within 0.1%; count, mean and max stay exact), so a long run keeps one exact
/// set per request, its waits, and not two.
pub const MAX_EXACT_RESPONSES: usize = 1_000_000;

#[derive(Debug, Clone, Copy)]
pub enum Ev {
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
pub enum Outcome {
    Completed,
    GaveUp,
}

/// What a job waits for besides a lock: nothing, or a request at this server (`serving`).
pub const NO_SERVER: u16 = u16::MAX;
/// `serving` of a job whose crossing was lost: only its timeout ends the wait.
pub const LOST: u16 = u16::MAX - 1;

/// A request at a server whose clients may stop waiting: whose it is, the generation of
/// the job's wait (a job that timed out waits anew), and when its service started.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub job: u32,
    pub wait: u32,
    pub started: Nanos,
}

pub struct Job {
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
}

pub struct Actor {
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

pub struct GroupState {
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

/// A queue lock's waiter: the job and the generation of its wait (a job that gave up and
/// waits again is a new waiter).
pub type Waiter = (u32, u32);

/// One run's state.
pub struct Sim<'p> {
    pub p: &'p Point,
    pub other: Class,
    pub jobs: Vec<Job>,
    pub free: Vec<u32>,
    /// What each job last read of each register (NaN: not read), jobs × registers.
    pub reads: Vec<f64>,
    /// The token of each lock each job holds (0: not held), jobs × locks.
    pub tokens: Vec<Token>,
    pub actors: Vec<Actor>,
    pub regs: Vec<Register>,
    pub locks: Vec<Lock<Waiter>>,
    pub servers: Vec<Server>,
    pub links: Vec<Link>,
    pub groups: Vec<GroupState>,
    pub ready: VecDeque<u32>,
    pub last_end: Option<Nanos>,
    pub lanes: Option<Vec<Lane>>,
    /// Whether entity rows are wanted (per-actor waits are kept only then).
    pub entities: bool,
    /// The random streams of actors that draw (arrivals, crashes).
    pub streams: Vec<Stream>,
    /// Per group, the streams its steps name, in `streams`.
    pub group_streams: Vec<Vec<u32>>,
    /// Per group: a closed loop (its jobs go on with the next repetition).
    pub closed: Vec<bool>,
    /// Per group, when it is direct: its server and instance. A direct group's repetitions
    /// are each one request, with no timeout, at a fixed instance of a server only it asks,
    /// in an open loop, and no timeline is drawn: its requests need no job (the actor tags
    /// its request, and the departure ends its repetition). Per server, its direct group.
    pub direct_group: Vec<Option<(u16, u32)>>,
    pub direct: Vec<Option<u16>>,
    /// Each server's wait statistics once computed (by `WaitStat` order), for the output.
    pub wait_stats: Vec<[Option<Option<f64>>; 5]>,
    pub error: Option<String>,
    /// The group and step that set `error`, when a step did: the error is reported where
    /// that step is written.
    pub error_at: Option<(u16, u32)>,
    /// When the run ended (its last event): a lock never released is held until then.
    pub end: Nanos,
    /// Poll attempts scheduled and not yet run: when they are every event left, the run
    /// may be stuck (`stuck`).
    pub polls_pending: usize,
    /// Before this instant, a run with only polls left is known not to be stuck yet (a
    /// lease runs out, or a poller gives up, then): no need to look again.
    pub unstuck_until: Nanos,
    /// The instant of the event being handled (`now` in expressions).
    pub now: Nanos,
    /// Requests at servers whose clients may stop waiting, and the free ones.
    pub slots: Vec<Slot>,
    pub free_slots: Vec<u32>,
    pub queues: Vec<Queue>,
    pub keys: Vec<KeyStore>,
    /// What each job's last take from each queue got, jobs × queues; what each job last
    /// found in each key store, jobs × stores.
    pub taken: Vec<Taken>,
    pub stored: Vec<f64>,
    /// The job inside a transaction, what undoes its effects so far, and what it will do
    /// when the transaction ends (puts: their queue and numbers at `tx_numbers`; acks).
    pub tx: Option<u32>,
    pub undo: Vec<Undo>,
    pub deferred: Vec<Deferred>,
    pub tx_numbers: Vec<f64>,
    /// A message's numbers as a put computes them.
    pub scratch: Vec<f64>,
}

/// What undoes one effect of a transaction.
pub enum Undo {
    Reg(u16, Register),
    Key(u16, KeyUndo),
}

/// What a transaction does when it ends.
#[derive(Debug, Clone, Copy)]
pub enum Deferred {
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
    /// The state at the start of a run of `p`.
    pub fn new(p: &'p Point, ctx: &RunContext) -> Result<Sim<'p>, ModelError> {
        let seed = ctx.seed();
        let n = p.actors as usize;
        if ctx.wants_lanes() && n > MAX_LANES {
            return Err(ModelError::Param(ParamError::new(
                "actor",
                format!(
                    "a timeline draws one lane per actor, at most {MAX_LANES}; this point has {n} actors (chart its metrics instead, or draw a smaller point)"
                ),
            )));
        }
        let (actors, streams, group_streams) = actors(p, seed)?;
        let reps_of = |g: &Group| u64::from(g.count).saturating_mul(g.repeat);
        let servers = p
            .servers
            .iter()
            .enumerate()
            .map(|(s, sv)| {
                let requests: u64 = p
                    .groups
                    .iter()
                    .map(|g| {
                        let here = g.steps.iter().filter(|st| match st {
                            Step::Request { server, .. } => server.may_be(s as u16),
                            _ => false,
                        });
                        reps_of(g) * here.count() as u64
                    })
                    .sum();
                let attempts = requests.saturating_mul(
                    p.groups
                        .iter()
                        .map(|g| u64::from(g.attempts))
                        .max()
                        .unwrap_or(1),
                );
                let waits = ctx.samples(attempts.min(1 << 27) as usize);
                Server::new(
                    &sv.name,
                    sv.instances,
                    sv.service_ns,
                    sv.dist.clone(),
                    seed,
                    waits,
                )
            })
            .collect();
        Ok(Sim {
            p,
            other: 1 + p.actors,
            jobs: Vec::with_capacity(n.min(1 << 16)),
            free: Vec::new(),
            reads: Vec::new(),
            tokens: Vec::new(),
            actors,
            regs: p.regs.iter().map(|r| Register::new(r.initial)).collect(),
            locks: p
                .locks
                .iter()
                .map(|l| Lock::new(l.mode, l.lease_ns, l.stale, ctx.samples(0)))
                .collect(),
            servers,
            links: p
                .links
                .iter()
                .enumerate()
                .map(|(k, half)| {
                    Link::new(*half, p.link_loss[k], p.link_dup[k], seed, &p.link_names[k])
                })
                .collect(),
            groups: p
                .groups
                .iter()
                .map(|g| GroupState {
                    responses: ctx.samples_capped(
                        if alias(p, g).is_some() {
                            0
                        } else {
                            reps_of(g).min(1 << 27) as usize
                        },
                        MAX_EXACT_RESPONSES,
                    ),
                    alias: alias(p, g),
                    started: 0,
                    completed: 0,
                    gave_up: 0,
                    crashed: 0,
                    retries: 0,
                    timeouts: 0,
                    restarts: 0,
                })
                .collect(),
            ready: VecDeque::new(),
            last_end: None,
            lanes: ctx
                .wants_lanes()
                .then(|| (0..n).map(|_| Lane::new(String::new())).collect()),
            entities: ctx.wants_entities(),
            streams,
            group_streams,
            closed: p
                .groups
                .iter()
                .map(|g| matches!(g.pace, Pace::Closed))
                .collect(),
            direct_group: p
                .groups
                .iter()
                .map(|g| direct(p, g, ctx.wants_lanes()))
                .collect(),
            direct: (0..p.servers.len())
                .map(|s| {
                    p.groups
                        .iter()
                        .position(|g| {
                            direct(p, g, ctx.wants_lanes()).is_some_and(|(d, _)| d as usize == s)
                        })
                        .map(|g| g as u16)
                })
                .collect(),
            error: None,
            error_at: None,
            end: 0,
            polls_pending: 0,
            unstuck_until: 0,
            now: 0,
            slots: Vec::new(),
            free_slots: Vec::new(),
            wait_stats: Vec::new(),
            queues: p
                .queues
                .iter()
                .enumerate()
                .map(|(k, q)| {
                    let puts = room(p, |s| matches!(s, Step::Put { queue, .. } if *queue as usize == k));
                    Queue::new(q.fields, q.capacity, q.visibility, puts)
                })
                .collect(),
            keys: p
                .keys
                .iter()
                .enumerate()
                .map(|(k, ks)| {
                    let adds = room(p, |s| {
                        matches!(s, Step::Keys { op: KeyOp::Insert | KeyOp::Set, store, .. } if *store as usize == k)
                    });
                    match &ks.initial {
                        InitialKeys::Pairs(pairs) => KeyStore::new(pairs, adds),
                        InitialKeys::Range { from, count, value } => {
                            KeyStore::range(*from, *count, *value, adds)
                        }
                    }
                })
                .collect(),
            taken: Vec::new(),
            stored: Vec::new(),
            tx: None,
            undo: Vec::new(),
            deferred: Vec::new(),
            tx_numbers: Vec::new(),
            scratch: Vec::new(),
        })
    }

    /// Schedules what the run starts with: every actor's first start, in actor order (at
    /// equal times a start runs before anything the run schedules, and starts run in actor
    /// order: their classes), then the operator unlocks.
    pub fn schedule_starts(&mut self, queue: &mut EventQueue<Ev>) {
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
    pub fn next_start(&mut self, a: u32) -> Option<Nanos> {
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
    pub fn spawn(&mut self, actor: u32, now: Nanos) -> u32 {
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
        };
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
                self.reads[j * nr..(j + 1) * nr].fill(f64::NAN);
            }
            if nl > 0 {
                self.tokens[j * nl..(j + 1) * nl].fill(0);
            }
            if nq > 0 {
                self.taken[j * nq..(j + 1) * nq].fill(Taken::NONE);
            }
            if nk > 0 {
                self.stored[j * nk..(j + 1) * nk].fill(f64::NAN);
            }
            j as u32
        } else {
            self.jobs.push(job);
            self.reads.extend(std::iter::repeat_n(f64::NAN, nr));
            self.tokens.extend(std::iter::repeat_n(0, nl));
            self.taken.extend(std::iter::repeat_n(Taken::NONE, nq));
            self.stored.extend(std::iter::repeat_n(f64::NAN, nk));
            (self.jobs.len() - 1) as u32
        }
    }

    /// After the run: a direct group's repetitions started and completed, and the run's
    /// last end, from its actors' own counts (the direct path keeps only those).
    pub fn settle_direct(&mut self) {
        if self.direct_group.iter().all(Option::is_none) {
            return;
        }
        for a in &self.actors {
            let g = a.group as usize;
            if self.direct_group[g].is_some() {
                self.groups[g].started += a.started;
                self.groups[g].completed += a.completed;
                if a.end > self.last_end {
                    self.last_end = a.end;
                }
            }
        }
    }

    pub fn dur(&self, d: &Dur, job: u32) -> Result<Nanos, String> {
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
    pub fn eval(&self, job: u32, num: &Num) -> f64 {
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
            Var::Reg(r) => self.reads[ju * self.regs.len() + r as usize],
            Var::Msg(q, what) => {
                let take = self.taken[ju * self.queues.len() + q as usize];
                self.queues[q as usize].number(take, what)
            }
            Var::Stored(k) => self.stored[ju * self.keys.len() + k as usize],
        }
    }

    /// What a number computed for `job` now may name besides the parameters.
    pub fn vars(&self, job: u32, read: f64) -> Vars<'_> {
        let j = &self.jobs[job as usize];
        let ju = job as usize;
        let (nr, nq, nk) = (self.regs.len(), self.queues.len(), self.keys.len());
        Vars {
            i: self.actors[j.actor as usize].index,
            k: j.rep,
            attempt: j.attempt,
            now_ms: sim_core::ns_to_ms(self.now),
            read,
            regs: &self.reads[ju * nr..(ju + 1) * nr],
            taken: &self.taken[ju * nq..(ju + 1) * nq],
            queues: &self.queues,
            stored: &self.stored[ju * nk..(ju + 1) * nk],
        }
    }

    pub fn span(&mut self, job: u32, kind: &'static str, from: Nanos, to: Option<Nanos>) {
        if let Some(lanes) = &mut self.lanes {
            let nl = self.locks.len();
            let j = job as usize;
            // A wait while it holds a lock (a deadlock's picture) is drawn as such.
            let kind =
                if kind == "waiting" && self.tokens[j * nl..(j + 1) * nl].iter().any(|t| *t != 0) {
                    "holding_waiting"
                } else {
                    kind
                };
            let a = self.jobs[job as usize].actor as usize;
            lanes[a].span(kind, ns_to_ms(from), to.map(ns_to_ms));
        }
    }

    pub fn mark(&mut self, job: u32, kind: &'static str, at: Nanos) {
        if let Some(lanes) = &mut self.lanes {
            let a = self.jobs[job as usize].actor as usize;
            lanes[a].mark(kind, ns_to_ms(at));
        }
    }
}

/// Room to make up front for what the steps `counted` may add (messages put, keys inserted),
/// at most one per such step of every attempt of every repetition, and at most 2^24: a
/// store or queue that grows past that grows as it goes.
fn room(p: &Point, counted: impl Fn(&Step) -> bool) -> usize {
    let mut n: u64 = 0;
    for g in &p.groups {
        let steps = g.steps.iter().filter(|s| counted(s)).count() as u64;
        let reps = u64::from(g.count)
            .saturating_mul(g.repeat)
            .saturating_mul(u64::from(g.attempts));
        n = n.saturating_add(reps.saturating_mul(steps));
    }
    n.min(1 << 24) as usize
}

/// A group's server when each of its repetitions is one request there that no timeout ends,
/// the server's service is fixed and no other group asks it (see [`GroupState::alias`]).
fn alias(p: &Point, g: &Group) -> Option<(u16, Nanos)> {
    let [
        Step::Request {
            server: crate::point::Pick::One(s),
            instance: crate::point::Inst::Fixed(_),
            timeout: None,
        },
    ] = g.steps.as_slice()
    else {
        return None;
    };
    let sv = &p.servers[*s as usize];
    let others = p
        .groups
        .iter()
        .filter(|h| {
            h.steps
                .iter()
                .any(|st| matches!(st, Step::Request { server, .. } if server.may_be(*s)))
        })
        .count();
    (sv.dist.is_none() && !sv.abandons && others == 1).then_some((*s, sv.service_ns))
}

/// A group's server and instance when it is direct (see [`Sim::direct_group`]).
fn direct(p: &Point, g: &Group, lanes: bool) -> Option<(u16, u32)> {
    let [
        Step::Request {
            server: crate::point::Pick::One(s),
            instance: crate::point::Inst::Fixed(k),
            timeout: None,
        },
    ] = g.steps.as_slice()
    else {
        return None;
    };
    let alone = p
        .groups
        .iter()
        .filter(|h| {
            h.steps
                .iter()
                .any(|st| matches!(st, Step::Request { server, .. } if server.may_be(*s)))
        })
        .count()
        == 1;
    let open = !matches!(g.pace, Pace::Closed);
    (alone && open && !lanes && !p.servers[*s as usize].special).then_some((*s, *k))
}

/// Every actor at its start, with the random streams of those that draw (arrivals and
/// crashes, by group and index: `arrivals/client-3`, whatever the actors are called, so
/// naming them changes no draw).
/// Every actor, the random streams, and each group's named crash stream.
type Actors = (Vec<Actor>, Vec<Stream>, Vec<Vec<u32>>);

fn actors(p: &Point, seed: u64) -> Result<Actors, ModelError> {
    let mut actors = Vec::with_capacity(p.actors as usize);
    let mut streams = Vec::new();
    let mut group_streams = Vec::new();
    for (g, group) in p.groups.iter().enumerate() {
        let random = matches!(group.pace, Pace::Random(_));
        let crashy = group.steps.iter().any(|s| {
            matches!(
                s,
                Step::Crash {
                    rule: CrashRule::Probability(_, None),
                    ..
                }
            )
        });
        // A stream named in the config is the group's, shared by its actors: keyed
        // `GROUP/NAME`, so two groups naming `s` draw independently, and (a group name being
        // letters, digits and `_`, and never an automatic stream's prefix when it names one)
        // no key is another group's or an automatic stream's.
        let mut named = Vec::new();
        for name in &group.named {
            streams.push(sim_core::stream(seed, &format!("{}/{name}", group.name)));
            named.push((streams.len() - 1) as u32);
        }
        group_streams.push(named);
        let chances = group.chances;
        let draws = random || crashy || group.jitters || chances;
        for i in 0..group.count {
            let start_ms = p.at_actor(&group.start_ms, i).unwrap_or(f64::NAN);
            let Some(start) = ms_to_ns(start_ms) else {
                return Err(ModelError::Param(ParamError::new(
                    &format!("actor[{g}].start_ms"),
                    format!("actor {i}: start_ms {}", sim_core::bad_duration(start_ms)),
                )));
            };
            let name = if draws {
                format!("{}-{i}", group.name)
            } else {
                String::new()
            };
            let mut stream = |on: bool, source: &str| {
                if !on {
                    return NO_STREAM;
                }
                streams.push(sim_core::stream(seed, &format!("{source}/{name}")));
                (streams.len() - 1) as u32
            };
            let rng = stream(random, "arrivals");
            let crash_rng = stream(crashy, "crash");
            let jitter_rng = stream(group.jitters, "jitter");
            let chance_rng = stream(chances, "chance");
            actors.push(Actor {
                group: g as u16,
                index: i,
                start,
                started: 0,
                completed: 0,
                gave_up: 0,
                retries: 0,
                failed: 0,
                lock_wait: None,
                server_wait: None,
                rejected: 0,
                end: None,
                crashed: false,
                stopped: false,
                elapsed_ms: 0.0,
                rng,
                crash_rng,
                jitter_rng,
                chance_rng,
                timeouts: 0,
                restarts: 0,
                incarnation: 0,
            });
        }
    }
    Ok((actors, streams, group_streams))
}
