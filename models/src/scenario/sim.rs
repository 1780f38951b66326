//! A scenario's run: actors' repetitions ("jobs") step through the resources on the engine.
//!
//! Event classes at one instant, lowest first: service completions and early write
//! landings (0); starts and link deliveries, in actor order (1 + actor); everything else, as
//! scheduled (`OTHER`); late write landings (`OTHER + 1`). `tie_order` picks a write
//! landing's class (docs/scenarios.md).

use std::collections::VecDeque;

use coordsim_model::{Cell, Lane, MAX_DISTRIBUTION_POINTS, ModelError, RunContext, RunOutput};
use sim_core::{
    Class, EventQueue, Handler, Nanos, Samples, SimError, Stations, Stream, Waiting, chance,
    ms_to_ns, ns_to_ms, run as run_queue,
};

use super::{
    ActorRow, CrashRule, Dur, Inst, LockMode, Metric, PaceP, Point, StepP, Tie, WaitStat, eval_run,
};

const NONE: Nanos = Nanos::MAX;
const NO_STREAM: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
enum Ev {
    /// An actor's next repetition starts (its first, or an open loop's next).
    Start { actor: u32 },
    /// The job's current step is over: go on.
    Resume { job: u32 },
    /// The job's write lands.
    Land { job: u32 },
    /// A polled lock: try again.
    Retry { job: u32 },
    /// A queued wait's ceiling.
    Timeout { job: u32 },
    /// A service completes.
    Depart { server: u16, instance: u32 },
    /// An operator deletes a lock's record.
    Unlock { lock: u16 },
}

// The queue moves events around: keep one as small as the built-in models' (8 bytes).
const _: () = assert!(std::mem::size_of::<Ev>() == 8);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Completed,
    GaveUp,
}

struct Job {
    actor: u32,
    /// Its actor's group (read on every step: one load fewer than through the actor).
    group: u16,
    rep: u64,
    step: u32,
    started: Nanos,
    step_started: Nanos,
    retries: u64,
    /// Counts this job's queued waits: a timeout or queue entry of an older wait is stale.
    wait: u32,
    /// The lock it waits for in a queue (`u16::MAX`: none).
    waiting: u16,
    /// When its queued wait gives up (`NONE`: never). A timeout event counts only at this
    /// instant: one left from an earlier wait fires at another (or at the same, which is
    /// the same give-up), so the event needs no generation and stays 8 bytes.
    deadline: Nanos,
    /// The instant it was handed a lock its holder had just released.
    handed_at: Nanos,
}

struct Actor {
    group: u16,
    index: u32,
    start: Nanos,
    started: u64,
    completed: u64,
    gave_up: u64,
    retries: u64,
    failed: u64,
    lock_wait: Option<Nanos>,
    server_wait: Option<Nanos>,
    rejected: u64,
    end: Option<Nanos>,
    crashed: bool,
    elapsed_ms: f64,
    /// Its arrival and crash streams in `Sim::streams` (`NO_STREAM`: none): a stream is a few
    /// hundred bytes, so only actors that draw have one.
    rng: u32,
    crash_rng: u32,
}

struct Reg {
    value: f64,
    at_instant_start: f64,
    instant: Nanos,
    writes: u64,
    lost: u64,
    rejected: u64,
    accepted_token: u64,
}

struct LockState {
    /// The record: its holder's token (0 for the stale record left at start) and since when.
    record: Option<(u64, Nanos)>,
    holders: Vec<u64>,
    max_holders: usize,
    waiters: VecDeque<(u32, u32)>,
    acquisitions: u64,
    failed: u64,
    gave_up: u64,
    waits: Samples,
    last_release: Nanos,
    /// Time held by acquisitions that were released (a crashed holder's is not).
    held: Nanos,
    /// When each current holder (by token) took it.
    since: Vec<(u64, Nanos)>,
}

struct ServerState {
    stations: Stations,
    rngs: Vec<Stream>,
    busy: Vec<Nanos>,
    waits: Samples,
    requests: u64,
    arrivals: u64,
    departures: u64,
    first_arrival: Option<Nanos>,
    last_departure: Nanos,
}

struct GroupState {
    responses: Samples,
    started: u64,
    completed: u64,
    gave_up: u64,
    crashed: u64,
    retries: u64,
}

pub(crate) struct Sim<'p> {
    p: &'p Point,
    other: Class,
    jobs: Vec<Job>,
    free: Vec<u32>,
    /// What each job last read of each register (NaN: not read), jobs × registers.
    reads: Vec<f64>,
    /// The token of each lock each job holds (0: not held), jobs × locks.
    tokens: Vec<u64>,
    actors: Vec<Actor>,
    regs: Vec<Reg>,
    locks: Vec<LockState>,
    servers: Vec<ServerState>,
    crossings: Vec<u64>,
    groups: Vec<GroupState>,
    ready: VecDeque<u32>,
    next_token: u64,
    last_end: Option<Nanos>,
    lanes: Option<Vec<Lane>>,
    /// Whether entity rows are wanted (per-actor waits are kept only then).
    entities: bool,
    /// The random streams of actors that draw (arrivals, crashes).
    streams: Vec<Stream>,
    /// Per group: a closed loop (its jobs go on with the next repetition).
    closed: Vec<bool>,
    error: Option<String>,
}

pub(crate) fn run<'p>(p: &'p Point, ctx: &RunContext) -> Result<Sim<'p>, ModelError> {
    let seed = ctx.seed();
    let n = p.actors as usize;
    if ctx.wants_lanes() && n > super::MAX_LANES {
        return Err(ModelError::Param(coordsim_model::ParamError::new(
            "actor",
            format!(
                "a timeline draws one lane per actor, at most {}; this point has {n} actors (chart its metrics instead, or draw a smaller point)",
                super::MAX_LANES
            ),
        )));
    }
    let mut actors = Vec::with_capacity(n);
    let mut streams = Vec::new();
    for (g, group) in p.groups.iter().enumerate() {
        let random = matches!(group.pace, PaceP::Random(_));
        let crashy = group
            .steps
            .iter()
            .any(|s| matches!(s, StepP::Crash(CrashRule::Probability(_))));
        for i in 0..group.count {
            let start_ms = p.at_actor(&group.start_ms, i).unwrap_or(f64::NAN);
            let Some(start) = ms_to_ns(start_ms) else {
                return Err(ModelError::Param(coordsim_model::ParamError::new(
                    &format!("actor[{g}].start_ms"),
                    format!("actor {i}: start_ms {}", sim_core::bad_duration(start_ms)),
                )));
            };
            // Streams are named by group and index (`arrivals/client-3`), whatever the
            // actors are called, so naming them changes no draw.
            let name = if random || crashy {
                format!("{}-{i}", group.name)
            } else {
                String::new()
            };
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
                elapsed_ms: 0.0,
                rng: if random {
                    streams.push(sim_core::stream(seed, &format!("arrivals/{name}")));
                    (streams.len() - 1) as u32
                } else {
                    NO_STREAM
                },
                crash_rng: if crashy {
                    streams.push(sim_core::stream(seed, &format!("crash/{name}")));
                    (streams.len() - 1) as u32
                } else {
                    NO_STREAM
                },
            });
        }
    }
    let reps_of = |g: &super::GroupP| u64::from(g.count).saturating_mul(g.repeat);
    let mut sim = Sim {
        p,
        other: 1 + p.actors,
        jobs: Vec::with_capacity(n.min(1 << 16)),
        free: Vec::new(),
        reads: Vec::new(),
        tokens: Vec::new(),
        actors,
        regs: p.regs.iter().map(|r| Reg { value: r.initial, at_instant_start: r.initial, instant: NONE, writes: 0, lost: 0, rejected: 0, accepted_token: 0 }).collect(),
        locks: p.locks.iter().map(|l| LockState {
            record: l.stale.then_some((0, 0)),
            holders: Vec::new(),
            max_holders: 0,
            waiters: VecDeque::new(),
            acquisitions: 0,
            failed: 0,
            gave_up: 0,
            waits: ctx.samples(0),
            last_release: NONE,
            held: 0,
            since: Vec::new(),
        }).collect(),
        servers: p.servers.iter().enumerate().map(|(s, sv)| {
            let requests: u64 = p.groups.iter().map(|g| reps_of(g) * g.steps.iter().filter(|st| matches!(st, StepP::Request { server, .. } if *server as usize == s)).count() as u64).sum();
            ServerState {
                stations: Stations::new(sv.instances as usize, 64),
                rngs: if sv.dist.is_some() { (0..sv.instances).map(|k| sim_core::stream(seed, &format!("service/{}-{k}", sv.name))).collect() } else { Vec::new() },
                busy: vec![0; sv.instances as usize],
                waits: ctx.samples(requests.min(1 << 27) as usize),
                requests: 0,
                arrivals: 0,
                departures: 0,
                first_arrival: None,
                last_departure: 0,
            }
        }).collect(),
        crossings: vec![0; p.links.len()],
        groups: p.groups.iter().map(|g| GroupState { responses: ctx.samples(reps_of(g).min(1 << 27) as usize), started: 0, completed: 0, gave_up: 0, crashed: 0, retries: 0 }).collect(),
        ready: VecDeque::new(),
        next_token: 1,
        last_end: None,
        lanes: ctx.wants_lanes().then(|| (0..n).map(|_| Lane::new(String::new())).collect()),
        entities: ctx.wants_entities(),
        streams,
        closed: p.groups.iter().map(|g| matches!(g.pace, PaceP::Closed)).collect(),
        error: None,
    };
    let mut queue = ctx.queue(n + 16);
    // Starts first, in actor order: at equal times a start runs before anything the run
    // schedules, and starts run in actor order (their classes).
    for a in 0..p.actors {
        let group = &p.groups[sim.actors[a as usize].group as usize];
        if group.count == 0 {
            continue;
        }
        if let Some(at) = sim.next_start(a) {
            queue.schedule_at(at, 1 + a, Ev::Start { actor: a });
        }
    }
    for (l, lock) in p.locks.iter().enumerate() {
        for &at in &lock.unlock_ns {
            queue.schedule_at(at, sim.other, Ev::Unlock { lock: l as u16 });
        }
    }
    run_queue(&mut queue, &mut sim)?;
    if let Some(e) = sim.error.take() {
        return Err(ModelError::Sim(SimError::Model(e)));
    }
    sim.check(seed)?;
    Ok(sim)
}

impl Sim<'_> {
    /// When actor `a`'s next repetition starts (its `started`-th), or `None` when it has
    /// started them all (or a closed loop, after its first: the loop starts the rest).
    #[inline(always)]
    fn next_start(&mut self, a: u32) -> Option<Nanos> {
        let actor = &mut self.actors[a as usize];
        let group = &self.p.groups[actor.group as usize];
        if actor.started >= group.repeat || actor.crashed {
            return None;
        }
        let k = actor.started;
        Some(match &group.pace {
            PaceP::Closed if k > 0 => return None,
            PaceP::Closed => actor.start,
            PaceP::Every(every) => actor.start.saturating_add(every.saturating_mul(k)),
            PaceP::Spread(window) => {
                let exact = u128::from(k) * u128::from(*window);
                let r = u128::from(group.repeat);
                actor
                    .start
                    .saturating_add(((2 * exact + r) / (2 * r)) as Nanos)
            }
            PaceP::Random(gaps) => {
                let rng = &mut self.streams[actor.rng as usize];
                actor.elapsed_ms += gaps.sample_ms(rng);
                actor
                    .start
                    .saturating_add(ms_to_ns(actor.elapsed_ms).unwrap_or(NONE))
            }
        })
    }

    #[inline(always)]
    fn spawn(&mut self, actor: u32, now: Nanos) -> u32 {
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
        };
        let (nr, nl) = (self.regs.len(), self.locks.len());
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
            j as u32
        } else {
            self.jobs.push(job);
            self.reads.extend(std::iter::repeat_n(f64::NAN, nr));
            self.tokens.extend(std::iter::repeat_n(0, nl));
            (self.jobs.len() - 1) as u32
        }
    }

    fn steps(&self, job: u32) -> &[StepP] {
        let a = self.jobs[job as usize].actor;
        &self.p.groups[self.actors[a as usize].group as usize].steps
    }

    fn dur(&self, d: &Dur, job: u32) -> Result<Nanos, String> {
        match d {
            Dur::Fixed(ns) => Ok(*ns),
            Dur::Actor(num) => {
                let a = &self.actors[self.jobs[job as usize].actor as usize];
                let ms = self.p.at_actor(num, a.index).unwrap_or(f64::NAN);
                ms_to_ns(ms).ok_or_else(|| {
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

    fn span(&mut self, job: u32, kind: &'static str, from: Nanos, to: Option<Nanos>) {
        if let Some(lanes) = &mut self.lanes {
            let a = self.jobs[job as usize].actor as usize;
            lanes[a].span(kind, ns_to_ms(from), to.map(ns_to_ms));
        }
    }

    fn mark(&mut self, job: u32, kind: &'static str, at: Nanos) {
        if let Some(lanes) = &mut self.lanes {
            let a = self.jobs[job as usize].actor as usize;
            lanes[a].mark(kind, ns_to_ms(at));
        }
    }

    /// Runs `job` from its current step: the two commonest cases (a request at a fixed
    /// instance, the end of the steps) here, inlined into the handler; the rest in [`go`].
    #[inline(always)]
    fn proceed(&mut self, job: u32, q: &mut EventQueue<Ev>) {
        let j = &self.jobs[job as usize];
        let steps = &self.p.groups[j.group as usize].steps;
        match steps.get(j.step as usize) {
            None if !self.closed[j.group as usize] => {
                // An open loop's repetition is done: its job goes back to the pool.
                let now = q.now();
                self.completed_at(job, now);
                self.free.push(job);
            }
            Some(StepP::Request {
                server,
                instance: Inst::Fixed(k),
            }) => {
                let (s, k) = (*server as usize, *k);
                self.request(job, s, k, q);
            }
            _ => self.go(job, q),
        }
    }

    /// Queues `job` at instance `k` of server `s` (served at once when it is idle).
    #[inline(always)]
    fn request(&mut self, job: u32, s: usize, k: u32, q: &mut EventQueue<Ev>) {
        let now = q.now();
        let st = &mut self.servers[s];
        st.arrivals += 1;
        st.first_arrival.get_or_insert(now);
        if st.stations.arrive(
            k as usize,
            Waiting {
                arrived: now,
                tag: job,
            },
        ) {
            self.serve(s, k, job, now, now, q);
        }
    }

    /// Runs `job` from its current step until it blocks or ends.
    #[inline(never)]
    fn go(&mut self, job: u32, q: &mut EventQueue<Ev>) {
        let now = q.now();
        loop {
            let j = job as usize;
            let step_index = self.jobs[j].step as usize;
            let a = self.jobs[j].actor;
            let group = self.jobs[j].group as usize;
            let p = self.p;
            let steps = &p.groups[group].steps;
            if step_index >= steps.len() {
                if self.end_rep(job, Outcome::Completed, now) {
                    continue;
                }
                return;
            }
            match &steps[step_index] {
                StepP::Read(r) => {
                    let r = *r as usize;
                    let reg = &self.regs[r];
                    let value = if p.tie == Tie::ReadsFirst
                        && reg.instant == now
                        && self.jobs[j].handed_at != now
                    {
                        reg.at_instant_start
                    } else {
                        reg.value
                    };
                    self.reads[j * self.regs.len() + r] = value;
                    let d = p.regs[r].read_ns;
                    if d > 0 {
                        self.span(job, "reading", now, Some(now + d));
                        q.schedule_in(d, self.other, Ev::Resume { job });
                        return;
                    }
                }
                StepP::Write { reg, .. } => {
                    let d = p.regs[*reg as usize].write_ns;
                    if d > 0 {
                        self.span(job, "writing", now, Some(now + d));
                        let class = self.landing_class(job);
                        q.schedule_in(d, class, Ev::Land { job });
                        return;
                    }
                    if !self.land(job, q) {
                        return;
                    }
                }
                // A delay always yields, even of 0 ms: the actor goes on in a new event, after
                // the events already scheduled for that instant (SimPy's `timeout(0)`).
                StepP::Delay(d) => match self.dur(d, job) {
                    Ok(d) => {
                        if d > 0 {
                            self.span(job, "working", now, Some(now + d));
                        }
                        q.schedule_in(d, self.other, Ev::Resume { job });
                        return;
                    }
                    Err(e) => {
                        self.error.get_or_insert(e);
                        return;
                    }
                },
                StepP::Acquire { lock, .. } => {
                    self.jobs[j].step_started = now;
                    if !self.attempt(job, *lock as usize, q) {
                        return;
                    }
                }
                StepP::Release(lock) => self.release(job, *lock as usize, now),
                StepP::Request { server, instance } => {
                    let s = *server as usize;
                    let k = match instance {
                        Inst::Fixed(k) => *k,
                        Inst::Actor(num) => {
                            let index = self.actors[a as usize].index;
                            let x = eval_run(num, &p.params, index, 0, f64::NAN, &[])
                                .unwrap_or(f64::NAN);
                            if !(x >= 0.0 && x.fract() == 0.0 && x < 4e18) {
                                self.error.get_or_insert(format!(
                                    "actor {index}: a request's instance is {x}, not a whole number ≥ 0"
                                ));
                                return;
                            }
                            (x as u64 % u64::from(p.servers[s].instances)) as u32
                        }
                    };
                    self.request(job, s, k, q);
                    return;
                }
                StepP::Send(link) => {
                    let l = *link as usize;
                    self.crossings[l] += 1;
                    let d = p.links[l];
                    if d > 0 {
                        self.span(job, "crossing", now, Some(now + d));
                        q.schedule_in(d, 1 + a, Ev::Resume { job });
                        return;
                    }
                }
                StepP::Crash(rule) => {
                    let actor = &mut self.actors[a as usize];
                    let dies = match rule {
                        CrashRule::All => true,
                        CrashRule::First(n) => u64::from(actor.index) < *n,
                        CrashRule::Names(names) => {
                            let name = p.groups[group].actor_name(actor.index);
                            names.contains(&name)
                        }
                        CrashRule::Probability(pr) => {
                            chance(&mut self.streams[actor.crash_rng as usize], *pr)
                        }
                    };
                    if dies {
                        actor.crashed = true;
                        self.groups[group].crashed += 1;
                        self.mark(job, "crashed", now);
                        // It holds what it held: a crashed holder's lock stays taken.
                        self.free.push(job);
                        return;
                    }
                }
            }
            self.jobs[j].step += 1;
        }
    }

    /// The class of a write landing, by `tie_order`.
    fn landing_class(&self, job: u32) -> Class {
        match self.p.tie {
            Tie::Fifo => self.other,
            Tie::WritesFirst => 0,
            Tie::ReadsFirst => self.other + 1,
            Tie::ProgramOrder => {
                // Early when the actor reads again at the same instant (its next step, or
                // the first of its next repetition in a closed loop).
                let j = &self.jobs[job as usize];
                let a = &self.actors[j.actor as usize];
                let group = &self.p.groups[a.group as usize];
                let next = j.step as usize + 1;
                let reads_next = match group.steps.get(next) {
                    Some(s) => matches!(s, StepP::Read(_)),
                    None => {
                        matches!(group.pace, PaceP::Closed)
                            && a.started < group.repeat
                            && matches!(group.steps[0], StepP::Read(_))
                    }
                };
                if reads_next { 0 } else { self.other + 1 }
            }
        }
    }

    /// Lands the job's write; false when the job does not go on from here (a compare-and-set
    /// conflict restarts or ends its repetition).
    fn land(&mut self, job: u32, q: &mut EventQueue<Ev>) -> bool {
        let now = q.now();
        let j = job as usize;
        let a = self.jobs[j].actor;
        let StepP::Write {
            reg,
            value,
            cas,
            max_retries,
        } = &self.steps(job)[self.jobs[j].step as usize]
        else {
            self.error
                .get_or_insert_with(|| "internal: a landing at a step that is not a write".into());
            return false;
        };
        let (r, cas, max_retries) = (*reg as usize, *cas, *max_retries);
        let nr = self.regs.len();
        let read = self.reads[j * nr + r];
        let new = eval_run(
            value,
            &self.p.params,
            self.actors[a as usize].index,
            self.jobs[j].rep,
            read,
            &self.reads[j * nr..(j + 1) * nr],
        )
        .unwrap_or(f64::NAN);
        if !new.is_finite() {
            self.error
                .get_or_insert(format!("a write's value is {new}, not a finite number"));
            return false;
        }
        let token = self.p.regs[r]
            .fence
            .map(|l| self.tokens[j * self.locks.len() + l as usize]);
        let reg = &mut self.regs[r];
        if reg.instant != now {
            reg.instant = now;
            reg.at_instant_start = reg.value;
        }
        let stale = !read.is_nan() && reg.value != read;
        if let Some(t) = token
            && self.p.locks[self.p.regs[r].fence.expect("fenced") as usize].fencing
            && t < reg.accepted_token
        {
            reg.rejected += 1;
            self.actors[a as usize].rejected += 1;
            self.mark(job, "rejected", now);
            return true;
        }
        if cas && stale {
            reg.rejected += 1;
            self.actors[a as usize].rejected += 1;
            let jb = &mut self.jobs[j];
            jb.retries += 1;
            if jb.retries >= max_retries {
                // The actor goes on with its next repetition as after any landing: at once,
                // or after the instant's early writes (`writes_first`, `program_order`).
                if self.end_rep(job, Outcome::GaveUp, now) {
                    match self.p.tie {
                        Tie::Fifo | Tie::ReadsFirst => self.go(job, q),
                        Tie::WritesFirst | Tie::ProgramOrder => {
                            self.jobs[j].step = u32::MAX;
                            q.schedule_in(0, self.other, Ev::Resume { job });
                        }
                    }
                }
            } else {
                self.actors[a as usize].retries += 1;
                let g = self.actors[a as usize].group as usize;
                self.groups[g].retries += 1;
                // The same repetition again, from its first step, as a new event.
                self.jobs[j].step = u32::MAX;
                q.schedule_in(0, self.other, Ev::Resume { job });
            }
            return false;
        }
        if stale {
            reg.lost += 1;
        }
        if let Some(t) = token {
            reg.accepted_token = reg.accepted_token.max(t);
        }
        reg.value = new;
        reg.writes += 1;
        true
    }

    fn end_rep_and_go(&mut self, job: u32, outcome: Outcome, q: &mut EventQueue<Ev>) {
        if self.end_rep(job, outcome, q.now()) {
            self.go(job, q);
        }
    }

    /// Ends the job's repetition; true when the same job goes on with the next one (a closed
    /// loop), from step 0.
    /// Counts the job's repetition as completed at `now`.
    #[inline(always)]
    fn completed_at(&mut self, job: u32, now: Nanos) {
        let j = &self.jobs[job as usize];
        let (a, g) = (j.actor as usize, j.group as usize);
        let took = now - j.started;
        let actor = &mut self.actors[a];
        actor.completed += 1;
        // Events run in time order: `now` is the latest end so far.
        actor.end = Some(now);
        self.last_end = Some(now);
        let group = &mut self.groups[g];
        group.completed += 1;
        group.responses.record(took);
        self.mark(job, "done", now);
    }

    fn end_rep(&mut self, job: u32, outcome: Outcome, now: Nanos) -> bool {
        let j = &self.jobs[job as usize];
        let (a, g) = (j.actor as usize, j.group as usize);
        match outcome {
            Outcome::Completed => self.completed_at(job, now),
            Outcome::GaveUp => {
                self.actors[a].gave_up += 1;
                self.actors[a].end = Some(now);
                self.last_end = Some(now);
                self.groups[g].gave_up += 1;
                self.mark(job, "gave_up", now);
            }
        }
        let actor = &mut self.actors[a];
        let group = &self.p.groups[g];
        if matches!(group.pace, PaceP::Closed) && actor.started < group.repeat {
            actor.started += 1;
            self.groups[g].started += 1;
            let j = &mut self.jobs[job as usize];
            j.rep += 1;
            j.step = 0;
            j.started = now;
            j.retries = 0;
            return true;
        }
        self.free.push(job);
        false
    }

    /// One attempt on `lock`; true when taken.
    fn attempt(&mut self, job: u32, l: usize, q: &mut EventQueue<Ev>) -> bool {
        let now = q.now();
        let lp = &self.p.locks[l];
        let free = match self.locks[l].record {
            None => true,
            Some((_, since)) => lp.mode == LockMode::Lease && now - since > lp.lease_ns,
        };
        if free {
            self.acquire(job, l, now);
            return true;
        }
        let j = job as usize;
        let give_up = match &self.steps(job)[self.jobs[j].step as usize] {
            StepP::Acquire {
                give_up: Some(d), ..
            } => match self.dur(d, job) {
                Ok(d) => Some(d),
                Err(e) => {
                    self.error.get_or_insert(e);
                    return false;
                }
            },
            _ => None,
        };
        let requested = self.jobs[j].step_started;
        if lp.mode == LockMode::Queue {
            let jb = &mut self.jobs[j];
            jb.wait = jb.wait.wrapping_add(1);
            jb.waiting = l as u16;
            let wait = jb.wait;
            self.locks[l].waiters.push_back((job, wait));
            jb.deadline = NONE;
            if let Some(d) = give_up {
                let deadline = requested.saturating_add(d);
                self.jobs[j].deadline = deadline;
                q.schedule_at(deadline, self.other, Ev::Timeout { job });
            }
            return false;
        }
        self.locks[l].failed += 1;
        self.actors[self.jobs[j].actor as usize].failed += 1;
        self.mark(job, "attempt", now);
        if give_up.is_some_and(|d| now > requested.saturating_add(d)) {
            self.locks[l].gave_up += 1;
            self.span(job, "waiting", requested, Some(now));
            self.end_rep_and_go(job, Outcome::GaveUp, q);
        } else {
            q.schedule_in(self.p.locks[l].poll_ns, self.other, Ev::Retry { job });
        }
        false
    }

    fn acquire(&mut self, job: u32, l: usize, now: Nanos) {
        let token = self.next_token;
        self.next_token += 1;
        let lock = &mut self.locks[l];
        lock.since.push((token, now));
        lock.record = Some((token, now));
        lock.holders.push(token);
        lock.max_holders = lock.max_holders.max(lock.holders.len());
        lock.acquisitions += 1;
        let j = &mut self.jobs[job as usize];
        let waited = now - j.step_started;
        lock.waits.record(waited);
        j.handed_at = if lock.last_release == now { now } else { NONE };
        j.waiting = u16::MAX;
        let nl = self.p.locks.len();
        self.tokens[job as usize * nl + l] = token;
        let actor = &mut self.actors[j.actor as usize];
        actor.lock_wait = Some(actor.lock_wait.unwrap_or(0) + waited);
        let from = j.step_started;
        if waited > 0 {
            self.span(job, "waiting", from, Some(now));
        }
    }

    fn release(&mut self, job: u32, l: usize, now: Nanos) {
        let nl = self.p.locks.len();
        let token = std::mem::take(&mut self.tokens[job as usize * nl + l]);
        if token == 0 {
            return;
        }
        let lock = &mut self.locks[l];
        lock.holders.retain(|t| *t != token);
        if let Some(i) = lock.since.iter().position(|(t, _)| *t == token) {
            let (_, since) = lock.since.swap_remove(i);
            lock.held += now - since;
        }
        // Only its own record is deleted: a lease taken over is the new holder's.
        if lock.record.is_some_and(|(t, _)| t == token) {
            lock.record = None;
            lock.last_release = now;
            self.hand_over(l, now);
        }
    }

    /// A queue lock that is free goes to its longest waiter, whose steps go on in this event.
    fn hand_over(&mut self, l: usize, now: Nanos) {
        if self.p.locks[l].mode != LockMode::Queue || self.locks[l].record.is_some() {
            return;
        }
        while let Some((job, wait)) = self.locks[l].waiters.pop_front() {
            let j = &self.jobs[job as usize];
            if j.wait == wait && j.waiting as usize == l {
                self.acquire(job, l, now);
                self.ready.push_back(job);
                return;
            }
        }
    }

    /// Starts serving a request at instance `k` of server `s` (arrived at `arrived`).
    #[inline(always)]
    fn serve(
        &mut self,
        s: usize,
        k: u32,
        job: u32,
        arrived: Nanos,
        now: Nanos,
        q: &mut EventQueue<Ev>,
    ) {
        if self.lanes.is_some() {
            // Its service starts now: the `served` span begins here.
            self.jobs[job as usize].step_started = now;
        }
        let sp = &self.p.servers[s];
        let st = &mut self.servers[s];
        let service = if let Some(d) = &sp.dist {
            ms_to_ns(d.sample_ms(&mut st.rngs[k as usize])).unwrap_or(NONE)
        } else {
            sp.service_ns
        };
        st.waits.record(now - arrived);
        st.requests += 1;
        st.busy[k as usize] = st.busy[k as usize].saturating_add(service);
        q.schedule_in(
            service,
            0,
            Ev::Depart {
                server: s as u16,
                instance: k,
            },
        );
    }

    fn drain(&mut self, q: &mut EventQueue<Ev>) {
        while let Some(job) = self.ready.pop_front() {
            self.jobs[job as usize].step += 1;
            self.go(job, q);
        }
    }

    fn check(&self, seed: u64) -> Result<(), ModelError> {
        // Conservation: every request that arrived at a server was served and left it, once
        // (counted where each happens: arrival, service start, departure).
        for (s, st) in self.servers.iter().enumerate() {
            if st.arrivals != st.requests || st.requests != st.departures {
                return Err(ModelError::Invariant(format!(
                    "conservation at seed {seed}: server `{}` had {} arrivals, served {} and saw {} leave",
                    self.p.servers[s].name, st.arrivals, st.requests, st.departures
                )));
            }
        }
        // Mutual exclusion, where the lock is meant to exclude: no lease, no operator unlock.
        for (l, lp) in self.p.locks.iter().enumerate() {
            if lp.mode != LockMode::Lease
                && lp.unlock_ns.is_empty()
                && self.locks[l].max_holders > 1
            {
                return Err(ModelError::Invariant(format!(
                    "mutual exclusion at seed {seed}: {} actors held `{}` at once",
                    self.locks[l].max_holders, self.p.lock_names[l]
                )));
            }
        }
        Ok(())
    }

    pub(crate) fn output(
        mut self,
        p: &Point,
        fill: &[Metric],
        distributions: &[&'static str],
        ctx: &RunContext,
    ) -> RunOutput {
        let first_start = self.actors.iter().map(|a| a.start).min().unwrap_or(0);
        let mut metrics = Vec::with_capacity(fill.len());
        for m in fill {
            metrics.push(match *m {
                Metric::RegValue(r) => Cell::Float(self.regs[r as usize].value),
                Metric::RegWrites(r) => Cell::Count(self.regs[r as usize].writes),
                Metric::RegLost(r) => Cell::Count(self.regs[r as usize].lost),
                Metric::RegRejected(r) => Cell::Count(self.regs[r as usize].rejected),
                Metric::LockAcquisitions(l) => Cell::Count(self.locks[l as usize].acquisitions),
                Metric::LockFailed(l) => Cell::Count(self.locks[l as usize].failed),
                Metric::LockGaveUp(l) => Cell::Count(self.locks[l as usize].gave_up),
                Metric::LockMaxHolders(l) => Cell::Count(self.locks[l as usize].max_holders as u64),
                Metric::LockLeft(l) => Cell::Flag(self.locks[l as usize].record.is_some()),
                Metric::LockMeanWait(l) => self.locks[l as usize]
                    .waits
                    .mean_ms()
                    .map_or(Cell::Empty, Cell::Float),
                Metric::LockP95Wait(l) => self.locks[l as usize]
                    .waits
                    .percentile_ms(95.0)
                    .map_or(Cell::Empty, Cell::Float),
                Metric::LockMaxWait(l) => self.locks[l as usize]
                    .waits
                    .max_ms()
                    .map_or(Cell::Empty, Cell::Float),
                Metric::LockHeld(l) => Cell::Float(ns_to_ms(self.locks[l as usize].held)),
                Metric::LockTotalWait(l) => {
                    Cell::Float(self.locks[l as usize].waits.sum_ns() as f64 / 1e6)
                }
                Metric::ServerRequests(s) => Cell::Count(self.servers[s as usize].requests),
                Metric::ServerWait(s, stat) => stat_cell(&mut self.servers[s as usize].waits, stat),
                Metric::ServerMaxQueue(s) => {
                    Cell::Count(self.servers[s as usize].stations.max_queue_len() as u64)
                }
                Metric::ServerBusy(s) => {
                    let st = &self.servers[s as usize];
                    let span = st
                        .last_departure
                        .saturating_sub(st.first_arrival.unwrap_or(0));
                    let busy = st.busy.iter().copied().max().unwrap_or(0);
                    Cell::Float(if span == 0 {
                        0.0
                    } else {
                        busy as f64 / span as f64
                    })
                }
                Metric::ServerMakespan(s) => {
                    let st = &self.servers[s as usize];
                    Cell::Float(ns_to_ms(
                        st.last_departure
                            .saturating_sub(st.first_arrival.unwrap_or(0)),
                    ))
                }
                Metric::LinkCrossings(l) => Cell::Count(self.crossings[l as usize]),
                Metric::GroupActors(g) => Cell::Count(u64::from(p.groups[g as usize].count)),
                Metric::GroupStarted(g) => Cell::Count(self.groups[g as usize].started),
                Metric::GroupCompleted(g) => Cell::Count(self.groups[g as usize].completed),
                Metric::GroupGaveUp(g) => Cell::Count(self.groups[g as usize].gave_up),
                Metric::GroupCrashed(g) => Cell::Count(self.groups[g as usize].crashed),
                Metric::GroupRetries(g) => Cell::Count(self.groups[g as usize].retries),
                Metric::GroupResponse(g, stat) => {
                    stat_cell(&mut self.groups[g as usize].responses, stat)
                }
                // All groups' repetitions: from the groups' samples, not kept twice.
                Metric::Completed => Cell::Count(self.groups.iter().map(|g| g.completed).sum()),
                Metric::MeanResponse => {
                    let n: usize = self.groups.iter().map(|g| g.responses.count()).sum();
                    let sum: u128 = self.groups.iter().map(|g| g.responses.sum_ns()).sum();
                    if n == 0 {
                        Cell::Empty
                    } else {
                        Cell::Float(sum as f64 / (n as f64 * 1_000_000.0))
                    }
                }
                Metric::MaxResponse => self
                    .groups
                    .iter()
                    .filter_map(|g| g.responses.max_ms())
                    .reduce(f64::max)
                    .map_or(Cell::Empty, Cell::Float),
                Metric::Makespan => Cell::Float(ns_to_ms(
                    self.last_end.map_or(0, |t| t.saturating_sub(first_start)),
                )),
            });
        }
        let mut entities = Vec::new();
        if ctx.wants_entities() {
            for a in &self.actors {
                let group = &p.groups[a.group as usize];
                let outcome = if a.crashed {
                    "crashed"
                } else if a.gave_up > 0 {
                    "gave_up"
                } else if a.completed == a.started && a.started == group.repeat {
                    "completed"
                } else {
                    "unfinished"
                };
                let row = ActorRow {
                    group: group.name.clone(),
                    start_ms: ns_to_ms(a.start),
                    end_ms: if a.crashed { None } else { a.end.map(ns_to_ms) },
                    outcome: outcome.to_string(),
                    repetitions: a.started,
                    completed: a.completed,
                    gave_up: a.gave_up,
                    failed_attempts: a.failed,
                    lock_wait_ms: a.lock_wait.map(ns_to_ms),
                    server_wait_ms: a.server_wait.map(ns_to_ms),
                    rejected_writes: a.rejected,
                    retries: a.retries,
                };
                entities.push((
                    group.actor_name(a.index),
                    coordsim_model::Columns::cells(&row),
                ));
            }
        }
        let lanes = match self.lanes.take() {
            Some(mut lanes) => {
                for (lane, a) in lanes.iter_mut().zip(&self.actors) {
                    lane.name = p.groups[a.group as usize].actor_name(a.index);
                }
                coordsim_model::Lanes::from(lanes)
            }
            None => coordsim_model::Lanes::new(),
        };
        let distributions = if ctx.wants_distributions() {
            distributions
                .iter()
                .zip(&self.servers)
                .map(|(name, s)| (*name, s.waits.distribution_ms(MAX_DISTRIBUTION_POINTS)))
                .collect()
        } else {
            Vec::new()
        };
        RunOutput {
            metrics,
            entities,
            lanes,
            distributions,
        }
    }
}

fn stat_cell(samples: &mut Samples, stat: WaitStat) -> Cell {
    let v = match stat {
        WaitStat::Mean => samples.mean_ms(),
        WaitStat::P50 => samples.percentile_ms(50.0),
        WaitStat::P95 => samples.percentile_ms(95.0),
        WaitStat::P99 => samples.percentile_ms(99.0),
        WaitStat::Max => samples.max_ms(),
    };
    v.map_or(Cell::Empty, Cell::Float)
}

impl Handler<Ev> for Sim<'_> {
    #[inline]
    fn handle(&mut self, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), SimError> {
        let now = q.now();
        match ev {
            // An open loop's next start, scheduled before its actor crashed: no more.
            Ev::Start { actor } if self.actors[actor as usize].crashed => {}
            Ev::Start { actor } => {
                let job = self.spawn(actor, now);
                if let Some(at) = self.next_start(actor) {
                    q.schedule_at(at, 1 + actor, ev);
                }
                self.proceed(job, q);
            }
            Ev::Depart { server, instance } => self.depart(server as usize, instance, q),
            other => self.rare(other, q),
        }
        if !self.ready.is_empty() {
            self.drain(q);
        }
        match &self.error {
            None => Ok(()),
            Some(e) => Err(SimError::Model(e.clone())),
        }
    }
}

impl Sim<'_> {
    /// A service completes: the next request starts, the served one goes on.
    #[inline(always)]
    fn depart(&mut self, s: usize, instance: u32, q: &mut EventQueue<Ev>) {
        let now = q.now();
        let st = &mut self.servers[s];
        st.last_departure = now;
        st.departures += 1;
        let Some(done) = st.stations.in_service(instance as usize) else {
            self.error
                .get_or_insert_with(|| "internal: a departure from an idle server".into());
            return;
        };
        if let Some(next) = st.stations.depart(instance as usize, now) {
            self.serve(s, instance, next.tag, next.arrived, now, q);
            let waited = now - next.arrived;
            if self.entities {
                let a = self.jobs[next.tag as usize].actor as usize;
                let actor = &mut self.actors[a];
                actor.server_wait = Some(actor.server_wait.unwrap_or(0) + waited);
            }
            if waited > 0 {
                self.span(next.tag, "waiting", next.arrived, Some(now));
            }
        }
        let job = done.tag;
        if self.entities {
            // Served at once: a request with no wait still counts as one.
            let a = self.jobs[job as usize].actor as usize;
            let actor = &mut self.actors[a];
            actor.server_wait.get_or_insert(0);
        }
        if self.lanes.is_some() {
            let from = self.jobs[job as usize].step_started;
            self.span(job, "served", from, Some(now));
        }
        self.jobs[job as usize].step += 1;
        self.proceed(job, q);
    }

    /// Every other event (kept out of the handler's hot path).
    #[inline(never)]
    fn rare(&mut self, ev: Ev, q: &mut EventQueue<Ev>) {
        let now = q.now();
        match ev {
            Ev::Resume { job } => {
                let j = &mut self.jobs[job as usize];
                j.step = j.step.wrapping_add(1);
                self.go(job, q);
            }
            Ev::Land { job } => {
                if self.land(job, q) {
                    match self.p.tie {
                        // The actor goes on at once, in this event.
                        Tie::Fifo | Tie::ReadsFirst => {
                            self.jobs[job as usize].step += 1;
                            self.go(job, q);
                        }
                        // It goes on after the instant's early writes have landed.
                        Tie::WritesFirst | Tie::ProgramOrder => {
                            q.schedule_in(0, self.other, Ev::Resume { job })
                        }
                    }
                }
            }
            Ev::Retry { job } => {
                if let StepP::Acquire { lock, .. } =
                    self.steps(job)[self.jobs[job as usize].step as usize]
                    && self.attempt(job, lock as usize, q)
                {
                    self.jobs[job as usize].step += 1;
                    self.go(job, q);
                }
            }
            Ev::Timeout { job } => {
                let j = &mut self.jobs[job as usize];
                if j.deadline == now && j.waiting != u16::MAX {
                    let l = j.waiting as usize;
                    j.waiting = u16::MAX;
                    let from = j.step_started;
                    self.locks[l].gave_up += 1;
                    self.span(job, "waiting", from, Some(now));
                    self.end_rep_and_go(job, Outcome::GaveUp, q);
                }
            }
            Ev::Unlock { lock } => {
                let l = lock as usize;
                self.locks[l].record = None;
                self.locks[l].last_release = now;
                self.hand_over(l, now);
            }
            Ev::Start { .. } | Ev::Depart { .. } => unreachable!("handled by the handler"),
        }
    }
}
