//! A scenario's run state: actors, their repetitions ("jobs") and the resources they step
//! through, built for one run of a point; the events are handled in `handle`.
//!
//! Event classes at one instant, lowest first: service completions and early write
//! landings (0); starts and link deliveries, in actor order (1 + actor); everything else, as
//! scheduled (`other`); late write landings (`other + 1`). `tie_order` picks a write
//! landing's class (docs/scenarios.md).

use std::collections::VecDeque;

use sim_core::{Class, EventQueue, Nanos, Samples, Stream, Ticket, ms_to_ns, ns_to_ms};

use crate::machine::keys::{KeyStore, KeyUndo};
use crate::machine::link::Link;
use crate::machine::lock::{Lock, Token};
use crate::machine::queue::{Queue, Taken};
use crate::machine::register::Register;
use crate::machine::server::Server;
use crate::point::{Duration, Group, Pace, Point, Vars};
pub(crate) use crate::run::decide::{Draw, DrawKind, Steer, Told};
use crate::syntax::metrics::WAIT_STATS;

/// No time: a job's deadline or hand-over instant that is not set.
pub(crate) const NONE: Nanos = Nanos::MAX;
/// No stream: an actor that never draws has none (`Actor::arrival_stream` and the others).
pub(crate) const NO_STREAM: u32 = u32::MAX;

/// A group's response times kept exactly, at most: past a million, its percentiles come from
/// a histogram (within 0.1%; count, mean and max stay exact), so a long run keeps one exact
/// set per request, its waits, and not two.
pub(crate) const MAX_EXACT_RESPONSES: usize = 1_000_000;

/// A run's event, naming its job or resource by number: a stale one is told by its job's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Event {
    /// An actor's next repetition starts (its first, or an open loop's next).
    Start { actor: u32 },
    /// The job's current step is over: go on.
    Resume { job: u32 },
    /// The job's write lands.
    Land { job: u32 },
    /// A polled lock: try again.
    Retry { job: u32 },
    /// A wait's ceiling: a queued lock's, a request's, a lost crossing's. `armed`: the
    /// job's [`Job::armed`] when it was set, so a timer left from a wait that ended does
    /// nothing even at the instant a later wait of the job times out (that wait's own
    /// timer gives it up, at its own place among the instant's events).
    Timeout { job: u32, armed: u16 },
    /// A service completes.
    Depart { server: u16, instance: u32 },
    /// The fixed delay that starts branch `branch` (from 1) of job `parent`'s `parallel`
    /// is over: the branch's job, not made at the fork (`DEFERRED`), is made now and goes
    /// on past the delay.
    Branch { parent: u32, branch: u8 },
    /// An operator deletes a lock's record.
    Unlock { lock: u16 },
    /// A server goes down: a request then waits, or is refused (`when_down = "fail"`).
    Down { server: u16 },
    /// A server comes back up: the requests queued while it was down start.
    Up { server: u16 },
    /// A message put across a link arrives at its queue.
    Arrive { queue: u16, message: u32 },
    /// A queue's timer: the visibility of the first message it hides runs out.
    Visible { queue: u16 },
}

// The queue moves events around: keep one as small as the built-in models' (8 bytes).
const _: () = assert!(std::mem::size_of::<Event>() == 8);

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
    /// 0: the job's own request; else the branch (from 1) of the job's `parallel` whose
    /// request this is, made with no job of its own (`INLINE`).
    pub branch: u8,
}

/// No job: a branch's parent when it is none, a branch's place once it has ended.
pub(crate) const NO_JOB: u32 = u32::MAX;
/// A branch's place whose job is not made yet: in a run not explored, drawn or with rows
/// and locks, a branch whose first step is a fixed delay is made only when that delay
/// ends (`Event::Branch`, its ticket in `JobTables::deferred`), so that a hedge cancelled
/// in its delay, the common case, costs no job.
pub(crate) const DEFERRED: u32 = u32::MAX - 1;
/// A branch's place whose request waits in its parent's name: in a run not explored, drawn
/// or with rows and locks, the first branch of a fork marked `inline_first` (a lone request)
/// is no job. Its request's slot names the parent and the branch; the parent's `serving`,
/// `wait`, `slot`, `in_service` and `step_started` are the branch's while it waits at its
/// fork (nothing reads the parent's own there, in such a run). A hedge's
/// request so costs no job built, stepped to its end and freed.
pub(crate) const INLINE: u32 = u32::MAX - 2;

/// A repetition under way, or a branch of a `parallel` (reused once free: see `Event`).
#[derive(Clone, Copy, Hash)]
pub(crate) struct Job {
    pub actor: u32,
    /// Its actor's group (read on every step: one load fewer than through the actor).
    pub group: u16,
    /// Which repetition of its actor it runs, from 0 (`k` in expressions).
    pub repetition: u64,
    /// Its step in the program. `Resume` and the ready queue step past the step it waits in,
    /// so one sent to a step stands one before it (`u32::MAX` before step 0).
    pub step: u32,
    pub started: Nanos,
    /// When its current wait started: the wait's span and a given-up wait's length run from it.
    pub step_started: Nanos,
    /// The compare-and-set conflicts of this repetition, held to the write's `max_retries`.
    pub retries: u64,
    /// Counts this job's queued waits: a timeout or queue entry of an older wait is stale.
    pub wait: u32,
    /// The lock it waits for in a queue (`u16::MAX`: none).
    pub waiting: u16,
    /// When its current wait gives up (`NONE`: never). A timeout event counts only at this
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
    /// The job whose `parallel` this job is a branch of (`NO_JOB`: none).
    pub parent: u32,
    /// Which branch it is (from 1; 0: none): its place in its parent's row of kids.
    pub branch: u8,
    /// Cancelled at its parent's join: it goes no further, and is free at its next wake-up.
    pub cancelled: bool,
    /// At its `parallel`: its branches still running, come through, failed; the first
    /// through (from 1; 0: none yet).
    pub running: u8,
    pub joined: u8,
    pub failed: u8,
    pub winner: u8,
    /// At its `parallel`: how many branches must come through (the step's `wait`), and
    /// whether its cancels withdraw queued requests: the step's, kept here so that a
    /// branch's end need not look the step up.
    pub need: u8,
    pub withdraw: bool,
    /// Its request's slot at a server whose clients may leave.
    pub slot: u32,
    /// The queue whose reply it waits for, after a call (`u16::MAX`: none).
    pub calling: u16,
    /// The queue whose reply to it is crossing back (`u16::MAX`: none): counted in
    /// `Q.replies` when it lands with the job still waiting, else in `Q.late_replies`.
    pub answering: u16,
    /// Timers set for its waits so far (wrapping): a `Timeout` carrying another count is
    /// one left from an earlier wait. Kept when the job is reused.
    pub armed: u16,
    /// Its delay's end, when it is a branch whose cancel may take that event out (a run
    /// not explored, with no timeline: `Sim::delay_step`); else `Ticket::NONE`.
    pub timer: Ticket,
}

impl Job {
    /// A job of `actor` (of `group`) waiting on nothing, serving nothing, at its first step:
    /// what a repetition starts from, and an explored run's free slot before its first.
    #[inline(always)]
    pub(crate) fn idle(actor: u32, group: u16) -> Job {
        Job {
            actor,
            group,
            repetition: 0,
            step: 0,
            started: 0,
            step_started: 0,
            retries: 0,
            wait: 0,
            waiting: u16::MAX,
            handed_at: NONE,
            deadline: NONE,
            attempt: 1,
            outcome: 0,
            serving: NO_SERVER,
            taking: u16::MAX,
            incarnation: 0,
            in_service: false,
            polling: u16::MAX,
            parent: NO_JOB,
            branch: 0,
            cancelled: false,
            running: 0,
            joined: 0,
            failed: 0,
            winner: 0,
            need: 0,
            withdraw: false,
            slot: u32::MAX,
            calling: u16::MAX,
            answering: u16::MAX,
            armed: 0,
            timer: Ticket::NONE,
        }
    }
}

// A branch in flight is a job: docs/scenarios.md states this bound on its size.
const _: () = assert!(std::mem::size_of::<Job>() <= 112);

#[derive(Clone, Copy)]
pub(crate) struct Actor {
    pub group: u16,
    /// Its index in its group (`i` in expressions).
    pub index: u32,
    pub start: Nanos,
    /// Its repetitions started: the next start is computed from it, up to the group's `repeat`.
    pub started: u64,
    /// Its repetitions completed and given up (a direct group's counts: `Sim::settle_direct`).
    pub completed: u64,
    pub gave_up: u64,
    /// Its retries (conflicts and timeouts' retries) and its polls that found a lock taken.
    pub retries: u64,
    pub failed: u64,
    /// Its total wait for locks (`None`: it never waited for one).
    pub lock_wait: Option<Nanos>,
    /// Its total wait at servers, kept only when entity rows are wanted (`Sim::entities`).
    pub server_wait: Option<Nanos>,
    pub rejected: u64,
    pub end: Option<Nanos>,
    /// Crashed for good, or stopped (a stop step): it starts no more repetitions.
    pub crashed: bool,
    pub stopped: bool,
    /// Its random gaps summed in ms: a start is `start` plus the sum, so no rounding adds up.
    pub elapsed_ms: f64,
    /// Its arrival stream in `Sim::streams` (`NO_STREAM`: none; a stream is a few hundred bytes).
    pub arrival_stream: u32,
    /// Its crash, jitter and chance streams (`crash/NAME-i`, `jitter/…`, `chance/…`), likewise.
    pub crash_stream: u32,
    pub jitter_stream: u32,
    pub chance_stream: u32,
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
    /// Its counts (a direct group's started and completed are added after the run).
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
    pub point: &'p Point,
    /// The instant of the event being handled (`now` in expressions).
    pub now: Nanos,
    /// Every actor, in group order: an actor's starts have the class `1 + index`.
    pub actors: Vec<Actor>,
    pub servers: Vec<Server>,
    /// The groups served directly (no job per request).
    pub direct: Direct,
    pub groups: Vec<GroupState>,
    /// Jobs readied in this event, run after it by the handler's loop: no step recurses.
    pub ready: VecDeque<u32>,
    /// A job whose `parallel` was joined by the branch running now: it goes on from the
    /// step after its `parallel` as soon as that branch's steps stop, in this event (as
    /// the steps after a branch written in line would). Always `None` between events.
    pub joined: Option<u32>,
    pub error: Option<String>,
    /// The class of events scheduled as they come: past every start class (the module's order).
    pub other: Class,
    /// Whether entity rows are wanted (per-actor waits are kept only then).
    pub entities: bool,
    /// Every job made so far, reused once free: a warm run allocates none per repetition.
    pub jobs: Vec<Job>,
    pub free_jobs: Vec<u32>,
    /// What each job knows of the resources, a row per job.
    pub tables: JobTables,
    pub registers: Vec<Register>,
    pub locks: Vec<Lock<Waiter>>,
    pub links: Vec<Link>,
    pub last_end: Option<Nanos>,
    /// The timeline being recorded (`None`: no chart draws one, and nothing is recorded).
    pub lanes: Option<Box<crate::run::lanes::Recorder>>,
    /// Every random stream: the drawing actors' (arrivals, crashes, jitter, chances), the groups'.
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
    pub transaction: Transaction,
    /// A message's numbers as a put computes them, kept between puts: no put allocates.
    pub scratch: Vec<f64>,
    /// Set when an explorer runs it: the choices it makes (`run::steer`).
    pub steer: Option<Box<Steer>>,
    /// The most branches of any `parallel` of the point (0: none): a job's row of kids.
    pub fan: usize,
    /// Whether any step calls (a job then keeps what its last call got back).
    pub calls: bool,
    /// Whether a job has rows to copy to a branch and back (a register, a queue, a key
    /// store, or a call): a fork of a point with none skips the copies.
    pub job_rows: bool,
    /// Whether any `parallel` of the point is tied: only then does a branch's service
    /// start look for its siblings to cancel.
    pub tied: bool,
    /// What the run has seen of each `[[watch]]` (`run::watch`).
    pub watched: Vec<Watched>,
}

/// What a run has seen of one watch so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct Watched {
    /// The first instant its condition held (a watch without `leads_to`).
    pub first: Option<Nanos>,
    /// With `leads_to`: its condition held at an instant not yet followed by one where
    /// `leads_to` held.
    pub waiting: bool,
    /// With `leads_to`: the last instant a wait ended (0: none ever waited).
    pub answered: Nanos,
}

sim_core::clone_in_place!(Sim<'p> {
    point, now, actors, servers, direct, groups, ready, joined, error, other, entities, jobs, free_jobs, tables, registers, locks, links, last_end, lanes, streams, group_streams, closed, wait_stats, error_at, end, polls, last_taker, slots, free_slots, queues, keys, transaction, scratch, steer, fan, calls, job_rows, tied, watched
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
    /// The branches of its `parallel` under way (`NO_JOB`: ended; `DEFERRED`: in its first
    /// delay, not made yet), `Sim::fan` per job.
    pub kids: Vec<u32>,
    /// Per place of `kids`: the end of a `DEFERRED` branch's delay (`Ticket::NONE`: none,
    /// or not scheduled yet).
    pub deferred: Vec<Ticket>,
    /// What its last call got back (NaN: nothing yet), one per job.
    pub replies: Vec<f64>,
}

sim_core::clone_in_place!(JobTables {
    reads,
    tokens,
    taken,
    stored,
    kids,
    deferred,
    replies
});

/// Groups served directly. A direct group's repetitions are each one request, with no
/// timeout, at a fixed instance of a server only it asks, in an open loop, and no timeline
/// is drawn: its requests need no job (the actor tags its request, and the departure ends
/// its repetition).
pub(crate) struct Direct {
    /// Per group, when it is direct: its server and instance.
    pub groups: Vec<Option<(u16, u32)>>,
    /// Per server, whether it serves a direct group (which then keeps its responses in the
    /// server during the run, unless it is an alias: `GroupState::alias`).
    pub servers: Vec<bool>,
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
    /// What undoes its writes and key store steps so far, last first, if its actor crashes.
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
    Register(u16, Register),
    Key(u16, KeyUndo),
}

/// What a transaction does when it ends.
#[derive(Debug, Clone, Copy, Hash)]
pub(crate) enum Deferred {
    /// A put of the numbers at this offset of `Transaction::numbers`.
    Put { queue: u16, at: u32 },
    Ack {
        queue: u16,
        message: u32,
        receipt: u32,
    },
    /// A put a full queue refused.
    Refused { queue: u16 },
    /// An ack too late (the message came back first): nothing lands, but it is drawn.
    Late,
}

impl<'p> Sim<'p> {
    /// Schedules what the run starts with: every actor's first start, in actor order (at
    /// equal times a start runs before anything the run schedules, and starts run in actor
    /// order: their classes), then the operator unlocks.
    pub(crate) fn schedule_starts(&mut self, events: &mut EventQueue<Event>) {
        for actor in 0..self.point.actors {
            let group = &self.point.groups[self.actors[actor as usize].group as usize];
            if group.count == 0 {
                continue;
            }
            if let Some(at) = self.next_start(actor) {
                events.schedule_at(at, 1 + actor, Event::Start { actor });
            }
        }
        for (index, lock) in self.point.locks.iter().enumerate() {
            for &at in &lock.unlock_ns {
                events.schedule_at(at, self.other, Event::Unlock { lock: index as u16 });
            }
        }
        // A window's edges run first at their instants (class 0, scheduled first): a service
        // that ends as the server goes down has ended; one due as it comes up starts then.
        for (index, server) in self.point.servers.iter().enumerate() {
            for &(from, to) in &server.down {
                let server = index as u16;
                events.schedule_at(from, 0, Event::Down { server });
                events.schedule_at(to, 0, Event::Up { server });
            }
        }
    }

    /// When the next repetition of actor `actor_index` starts (its `started`-th), or `None`:
    /// all started (or a closed loop, after its first: the loop starts the rest).
    #[inline(always)]
    pub(crate) fn next_start(&mut self, actor_index: u32) -> Option<Nanos> {
        let actor = &mut self.actors[actor_index as usize];
        if actor.crashed || actor.stopped {
            return None;
        }
        paced_start(
            actor,
            &self.point.groups[actor.group as usize],
            &mut self.streams,
        )
    }

    /// A job for `actor`'s next repetition at `now`: the repetition counts as started here.
    #[inline(always)]
    pub(crate) fn spawn(&mut self, actor: u32, now: Nanos) -> u32 {
        let actor_state = &mut self.actors[actor as usize];
        let repetition = actor_state.started;
        actor_state.started += 1;
        self.groups[actor_state.group as usize].started += 1;
        let job = Job {
            repetition,
            started: now,
            step_started: now,
            incarnation: actor_state.incarnation,
            ..Job::idle(actor, actor_state.group)
        };
        self.alloc(job)
    }

    /// After a run that ended without error: a direct group's repetitions started and
    /// completed, and the run's last end. The direct path counts only its actors' starts:
    /// each start is a request that departed by the end (conservation, checked after), so
    /// as many completed, the last at its server's last departure (no other group asks it).
    pub(crate) fn settle_direct(&mut self) {
        if self.direct.groups.iter().all(Option::is_none) {
            return;
        }
        for actor in &self.actors {
            let group = actor.group as usize;
            if self.direct.groups[group].is_some() {
                self.groups[group].started += actor.started;
                self.groups[group].completed += actor.started;
            }
        }
        for (group, direct) in self.direct.groups.iter().enumerate() {
            let Some((server, _)) = direct else {
                continue;
            };
            let server = &mut self.servers[*server as usize];
            if let Some(responses) = server.take_responses() {
                self.groups[group].responses = responses;
            }
            if self.groups[group].completed > 0 {
                let end = server.last_departure();
                if Some(end) > self.last_end {
                    self.last_end = Some(end);
                }
            }
        }
    }

    /// `duration` for `job` now; one that comes to no duration is the run's error, said here.
    pub(crate) fn duration(&self, duration: &Duration, job: u32) -> Result<Nanos, String> {
        match duration {
            Duration::Fixed(ns) => Ok(*ns),
            Duration::Actor(number) => {
                let ms = self.eval(job, number);
                ms_to_ns(ms).ok_or_else(|| {
                    let actor = &self.actors[self.jobs[job as usize].actor as usize];
                    format!(
                        "actor {} of `{}`: a duration computed per actor {}",
                        actor.index,
                        self.point.groups[actor.group as usize].name,
                        sim_core::bad_duration(ms)
                    )
                })
            }
        }
    }

    /// What a number computed for `job` now may name besides the parameters.
    pub(crate) fn vars(&self, job: u32, read: f64) -> Vars<'_> {
        let job_state = &self.jobs[job as usize];
        let job_index = job as usize;
        let (register_count, queue_count, store_count) =
            (self.registers.len(), self.queues.len(), self.keys.len());
        Vars {
            index: self.actors[job_state.actor as usize].index,
            repetition: job_state.repetition,
            attempt: job_state.attempt,
            now_ms: sim_core::ns_to_ms(self.now),
            read,
            reads: &self.tables.reads[job_index * register_count..(job_index + 1) * register_count],
            taken: &self.tables.taken[job_index * queue_count..(job_index + 1) * queue_count],
            queues: &self.queues,
            stored: &self.tables.stored[job_index * store_count..(job_index + 1) * store_count],
            winner: job_state.winner,
            joined: job_state.joined,
            reply: self.reply_of(job),
        }
    }

    /// What `job`'s last call got back (NaN: nothing yet).
    pub(super) fn reply_of(&self, job: u32) -> f64 {
        self.tables
            .replies
            .get(job as usize)
            .copied()
            .unwrap_or(f64::NAN)
    }

    /// Draws `kind` on `job`'s actor's lane from `from` to `to` (`None`: past the end), if drawn.
    pub(crate) fn span(&mut self, job: u32, kind: &'static str, from: Nanos, to: Option<Nanos>) {
        if let Some(lanes) = &mut self.lanes {
            let lock_count = self.locks.len();
            let job_index = job as usize;
            // A wait while it holds a lock (a deadlock's picture) is drawn as such.
            let kind = if kind == "waiting"
                && self.tables.tokens[job_index * lock_count..(job_index + 1) * lock_count]
                    .iter()
                    .any(|t| *t != 0)
            {
                "holding_waiting"
            } else {
                kind
            };
            let actor = self.jobs[job as usize].actor as usize;
            if let Some(row) = lanes.row(job) {
                lanes.actors[actor].span_in_row(kind, row, ns_to_ms(from), to.map(ns_to_ms));
            }
        }
    }

    /// Draws a mark of `kind` on the lane of `job`'s actor at `at`, when a timeline is drawn.
    pub(crate) fn mark(&mut self, job: u32, kind: &'static str, at: Nanos) {
        if let Some(lanes) = &mut self.lanes {
            let actor = self.jobs[job as usize].actor as usize;
            if let Some(row) = lanes.row(job) {
                lanes.actors[actor].mark_in_row(kind, row, ns_to_ms(at));
            }
        }
    }
}

/// When `actor`'s next repetition (its `started`-th) starts by its group's pace, or `None`:
/// all started (or a closed loop, after its first: the loop starts the rest). Random gaps
/// draw from `streams`.
#[inline(always)]
pub(crate) fn paced_start(
    actor: &mut Actor,
    group: &Group,
    streams: &mut [Stream],
) -> Option<Nanos> {
    if !group.more_after(actor.started) {
        return None;
    }
    let repetition = actor.started;
    Some(match &group.pace {
        Pace::Closed if repetition > 0 => return None,
        Pace::Closed => actor.start,
        Pace::Every(every) => actor.start.saturating_add(every.saturating_mul(repetition)),
        Pace::Spread(window) => {
            let exact = u128::from(repetition) * u128::from(*window);
            let repeat = u128::from(group.repeat);
            actor
                .start
                .saturating_add(((2 * exact + repeat) / (2 * repeat)) as Nanos)
        }
        Pace::Random(gaps) => {
            let stream = &mut streams[actor.arrival_stream as usize];
            actor.elapsed_ms += gaps.sample_ms(stream);
            actor
                .start
                .saturating_add(ms_to_ns(actor.elapsed_ms).unwrap_or(NONE))
        }
    })
}
