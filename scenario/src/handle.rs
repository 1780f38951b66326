//! A scenario's events: a job steps through its actor's steps until one blocks it (a delay,
//! a write landing later, a lock taken, a queue, a link), and the event that ends the block
//! lets it go on.

use sim_core::{Class, EventQueue, Handler, Nanos, SimError, Waiting, chance};

use crate::lock::LockMode;
use crate::point::{CrashRule, Inst, PaceP, PickP, StepP, ThenP, Tie, eval_run};
use crate::recover::{
    ACQUIRED, APPLIED, DELIVERED, LOST_LEASE, REFUSED, REJECTED, RENEWED, SERVED,
};
use crate::register::{Fence, Landing};
use crate::sim::{Ev, LOST, NO_SERVER, NONE, Outcome, Sim, Slot};

/// What a landing write leaves its job to do.
enum Landed {
    /// Go on with the next step.
    Next,
    /// Go on at once from the step it stands at now (a new repetition, from step 0).
    Again,
    /// Nothing now: it waits for an event (or the run stops with an error).
    Blocked,
}

impl Handler<Ev> for Sim<'_> {
    #[inline]
    fn handle(&mut self, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), SimError> {
        self.now = q.now();
        match ev {
            Ev::Start { actor } => {
                let a = &self.actors[actor as usize];
                if let Some((s, k)) = self.direct_group[a.group as usize] {
                    // A direct group's one step is its request: its actors never crash, and
                    // nothing it does readies a job or sets an error, so the checks below
                    // are not needed.
                    self.start_direct(actor, s as usize, k, q);
                    return Ok(());
                }
                // An open loop's next start, scheduled before its actor crashed or stopped:
                // no more.
                if !a.crashed && !a.stopped {
                    self.start_job(actor, q);
                }
            }
            Ev::Depart { server, instance } => match self.direct[server as usize] {
                // As for a direct start: only its own internal error can come of it.
                Some(g) => return self.depart_direct(server as usize, instance, g as usize, q),
                None => self.depart(server as usize, instance, q),
            },
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
    #[inline(never)]
    fn depart(&mut self, s: usize, instance: u32, q: &mut EventQueue<Ev>) {
        let now = q.now();
        let Some((done, next)) = self.servers[s].depart(instance, now) else {
            self.error
                .get_or_insert_with(|| "internal: a departure from an idle server".into());
            return;
        };
        let abandons = self.p.servers[s].abandons;
        if let Some(next) = next {
            self.start_next(s, instance, next, now, q);
        }
        let job = if abandons {
            let slot = self.slots[done.tag as usize];
            let waiting = self.still_waiting(done.tag, s);
            self.free_slots.push(done.tag);
            match waiting {
                Some(job) => {
                    self.jobs[job as usize].serving = NO_SERVER;
                    job
                }
                // Its client left: work nobody waits for.
                None => {
                    self.servers[s].waste(now - slot.started);
                    return;
                }
            }
        } else {
            done.tag
        };
        if self.entities {
            // Served at once: a request with no wait still counts as one.
            let a = self.jobs[job as usize].actor as usize;
            let actor = &mut self.actors[a];
            actor.server_wait.get_or_insert(0);
        }
        if self.lanes.is_some() {
            let from = self.jobs[job as usize].step_started;
            self.jobs[job as usize].in_service = false;
            self.span(job, "served", from, Some(now));
        }
        let j = &mut self.jobs[job as usize];
        j.outcome = SERVED;
        // Its timeout is no more: a timer still due for it finds nothing to end.
        j.deadline = NONE;
        j.step += 1;
        self.proceed(job, q);
    }

    /// A start of a direct group's actor (see `Sim::direct`): its request arrives, tagged
    /// with the actor itself, with no job, and its next start is scheduled.
    #[inline(always)]
    fn start_direct(&mut self, actor: u32, s: usize, k: u32, q: &mut EventQueue<Ev>) {
        let now = q.now();
        // Its group's counts and the run's last end are added up after the run
        // (`Sim::settle_direct`): one count per request, not three.
        self.actors[actor as usize].started += 1;
        // The departure first: the first event a handler schedules takes the handled one's
        // place at the top of the heap, and one that is soon sinks less far than the next
        // start. The two differ in class, so their order changes no tie.
        if self.servers[s].arrive(k, actor, now) {
            self.serve_direct(s, k, now, now, q);
        }
        if let Some(at) = self.next_start(actor) {
            q.schedule_at(at, 1 + actor, Ev::Start { actor });
        }
    }

    /// An actor's next repetition as a job: its steps from the first.
    #[inline(never)]
    fn start_job(&mut self, actor: u32, q: &mut EventQueue<Ev>) {
        let job = self.spawn(actor, q.now());
        if let Some(at) = self.next_start(actor) {
            q.schedule_at(at, 1 + actor, Ev::Start { actor });
        }
        self.proceed(job, q);
    }

    /// A direct group's request is served: the next starts, and the actor's repetition is
    /// done (a job's steps would end here, in this event).
    #[inline(always)]
    fn depart_direct(
        &mut self,
        s: usize,
        k: u32,
        g: usize,
        q: &mut EventQueue<Ev>,
    ) -> Result<(), SimError> {
        let now = q.now();
        let Some((done, next)) = self.servers[s].depart(k, now) else {
            return Err(SimError::Model(
                "internal: a departure from an idle server".into(),
            ));
        };
        if let Some(next) = next {
            self.serve_direct(s, k, next.arrived, now, q);
            if self.entities {
                let actor = &mut self.actors[next.tag as usize];
                actor.server_wait = Some(actor.server_wait.unwrap_or(0) + (now - next.arrived));
            }
        }
        let actor = &mut self.actors[done.tag as usize];
        if self.entities {
            actor.server_wait.get_or_insert(0);
        }
        actor.completed += 1;
        actor.end = Some(now);
        let group = &mut self.groups[g];
        if group.alias.is_none() {
            group.responses.record(now - done.arrived);
        }
        Ok(())
    }

    /// Instance `k` of server `s` starts serving `next` at `now`, which waited since its
    /// arrival.
    #[inline(always)]
    fn start_next(&mut self, s: usize, k: u32, next: Waiting, now: Nanos, q: &mut EventQueue<Ev>) {
        self.serve(s, k, next.tag, next.arrived, now, q);
        let waited = now - next.arrived;
        let job = if self.p.servers[s].abandons {
            self.still_waiting(next.tag, s)
        } else {
            Some(next.tag)
        };
        if let Some(job) = job {
            if self.entities {
                let a = self.jobs[job as usize].actor as usize;
                let actor = &mut self.actors[a];
                actor.server_wait = Some(actor.server_wait.unwrap_or(0) + waited);
            }
            if waited > 0 {
                self.span(job, "waiting", next.arrived, Some(now));
            }
        }
    }

    /// `job`'s request to server `s` is refused (it is down and fails fast): its outcome
    /// says so, and its step is set to its timeout's steps, or else to its next step. The
    /// caller goes on from there in its own loop: a closed loop refused every repetition
    /// runs them by iteration, never by recursion (10^6 refusals at one instant are 10^6
    /// turns of `steps_of`'s loop, not 10^6 frames).
    fn refused(&mut self, job: u32, s: usize, q: &mut EventQueue<Ev>) {
        self.servers[s].refuse();
        self.mark(job, "refused", q.now());
        let j = &mut self.jobs[job as usize];
        j.outcome = REFUSED;
        j.deadline = NONE;
        let steps = &self.p.groups[j.group as usize].steps;
        j.step = match &steps[j.step as usize] {
            StepP::Request {
                timeout: Some(t), ..
            } => t.handler,
            _ => j.step + 1,
        };
    }

    /// The job whose request fills slot `tag` at server `s`, if it still waits for it.
    fn still_waiting(&self, tag: u32, s: usize) -> Option<u32> {
        let slot = self.slots[tag as usize];
        let j = &self.jobs[slot.job as usize];
        (j.wait == slot.wait && j.serving as usize == s).then_some(slot.job)
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
            Ev::Land { job } => match self.land(job, q) {
                Landed::Next => {
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
                Landed::Again => self.go(job, q),
                Landed::Blocked => {}
            },
            Ev::Retry { job } => {
                self.polls_pending -= 1;
                self.jobs[job as usize].polling = u16::MAX;
                let p = self.p;
                let j = &self.jobs[job as usize];
                if let StepP::Acquire { lock, .. } =
                    &p.groups[j.group as usize].steps[j.step as usize]
                    && let Some(l) = self.pick(job, lock, self.locks.len())
                    && self.attempt(job, l, q)
                {
                    self.jobs[job as usize].step += 1;
                    self.go(job, q);
                }
            }
            Ev::Timeout { job } => {
                let j = &mut self.jobs[job as usize];
                if j.deadline != now {
                    return;
                }
                if j.waiting != u16::MAX {
                    let l = j.waiting as usize;
                    j.waiting = u16::MAX;
                    let from = j.step_started;
                    self.gave_up_wait(job, l, now - from);
                    self.span(job, "waiting", from, Some(now));
                    self.timed_out(job, q);
                } else if j.taking != u16::MAX {
                    // The queue's waiter entry is left behind: `feed` skips it.
                    j.taking = u16::MAX;
                    let from = j.step_started;
                    if now > from {
                        self.span(job, "waiting", from, Some(now));
                    }
                    self.timed_out(job, q);
                } else if j.serving == LOST {
                    j.serving = NO_SERVER;
                    self.timed_out(job, q);
                } else if j.serving != NO_SERVER {
                    let s = j.serving as usize;
                    j.serving = NO_SERVER;
                    // A new wait: the request left behind no longer reaches this job.
                    j.wait = j.wait.wrapping_add(1);
                    let from = j.step_started;
                    // Given up in service or still queued.
                    let kind = if j.in_service { "served" } else { "waiting" };
                    j.in_service = false;
                    self.servers[s].time_out();
                    self.span(job, kind, from, Some(now));
                    self.timed_out(job, q);
                }
            }
            Ev::Unlock { lock } => {
                let l = lock as usize;
                self.locks[l].unlock(now);
                self.hand_over(l, now);
            }
            Ev::Arrive { queue, msg } => {
                self.queues[queue as usize].arrive(msg);
                self.feed(queue as usize, q);
            }
            Ev::Visible { queue } => {
                let (back, next) = self.queues[queue as usize].wake(now);
                if let Some(at) = next {
                    q.schedule_at(at, self.other, Ev::Visible { queue });
                }
                if back {
                    self.feed(queue as usize, q);
                }
            }
            Ev::Down { server } => self.servers[server as usize].go_down(),
            Ev::Up { server } => {
                let s = server as usize;
                for (k, next) in self.servers[s].up(now) {
                    self.start_next(s, k, next, now, q);
                }
            }
            Ev::Start { .. } | Ev::Depart { .. } => unreachable!("handled by the handler"),
        }
    }

    fn drain(&mut self, q: &mut EventQueue<Ev>) {
        while let Some(job) = self.ready.pop_front() {
            self.jobs[job as usize].step += 1;
            self.go(job, q);
        }
    }

    /// Runs `job` from its current step: the two commonest cases (a request at a fixed
    /// instance, the end of the steps) here, inlined into the handler; the rest in
    /// [`Sim::go`].
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
                server: PickP::One(server),
                instance: Inst::Fixed(k),
                timeout: None,
            }) => {
                let (s, k) = (*server as usize, *k);
                if self.request(job, s, k, q) {
                    self.go(job, q);
                }
            }
            _ => self.go(job, q),
        }
    }

    /// Queues `job` at instance `k` of server `s` (served at once when it is idle). True
    /// when the job goes on at once from the step it was moved to (refused by a server
    /// that is down and fails fast): its caller runs it.
    #[inline(always)]
    fn request(&mut self, job: u32, s: usize, k: u32, q: &mut EventQueue<Ev>) -> bool {
        let now = q.now();
        let sp = &self.p.servers[s];
        let tag = if sp.special {
            if sp.fail_fast && self.servers[s].is_down() {
                self.refused(job, s, q);
                return true;
            }
            if sp.abandons { self.slot(job, s) } else { job }
        } else {
            job
        };
        if self.servers[s].arrive(k, tag, now) {
            self.serve(s, k, tag, now, now, q);
        }
        false
    }

    /// A slot for `job`'s request at `s`, a server whose clients may leave: a new wait.
    fn slot(&mut self, job: u32, s: usize) -> u32 {
        let j = &mut self.jobs[job as usize];
        j.wait = j.wait.wrapping_add(1);
        j.serving = s as u16;
        let slot = Slot {
            job,
            wait: j.wait,
            started: NONE,
        };
        match self.free_slots.pop() {
            Some(t) => {
                self.slots[t as usize] = slot;
                t
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Starts serving a request at instance `k` of server `s` (arrived at `arrived`); `job`
    /// is its tag (a slot, at a server whose clients may leave).
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
        let job = if self.p.servers[s].abandons {
            self.slots[job as usize].started = now;
            self.still_waiting(job, s)
        } else {
            Some(job)
        };
        if self.entities
            && let Some(job) = job
        {
            // A request whose service starts has a wait (0 when served at once), even if its
            // client gives up before the service ends.
            let a = self.jobs[job as usize].actor as usize;
            self.actors[a].server_wait.get_or_insert(0);
        }
        if self.lanes.is_some()
            && let Some(job) = job
        {
            // Its service starts now: the `served` span begins here.
            self.jobs[job as usize].step_started = now;
            self.jobs[job as usize].in_service = true;
        }
        self.serve_direct(s, k, arrived, now, q);
    }

    /// Starts serving a request at instance `k` of server `s`: its service drawn and its
    /// departure scheduled (a direct group's request, its tag the actor, needs no more).
    #[inline(always)]
    fn serve_direct(
        &mut self,
        s: usize,
        k: u32,
        arrived: Nanos,
        now: Nanos,
        q: &mut EventQueue<Ev>,
    ) {
        let service = self.servers[s].start(k, arrived, now);
        q.schedule_in(
            service,
            0,
            Ev::Depart {
                server: s as u16,
                instance: k,
            },
        );
    }

    /// Runs `job` from its current step until it blocks or ends.
    #[inline(never)]
    pub(crate) fn go(&mut self, job: u32, q: &mut EventQueue<Ev>) {
        self.steps_of(job, q);
        if self.error.is_some() && self.error_at.is_none() {
            // The step that failed has not moved on: it is where the mistake is written.
            let j = &self.jobs[job as usize];
            self.error_at = Some((j.group, j.step));
        }
    }

    /// `go`'s work: the steps, until one blocks or the repetition ends.
    fn steps_of(&mut self, job: u32, q: &mut EventQueue<Ev>) {
        let now = q.now();
        let ju = job as usize;
        if self.jobs[ju].incarnation != self.actors[self.jobs[ju].actor as usize].incarnation {
            // Its actor crashed while this repetition waited (an open loop's repetitions
            // overlap): it dies with it, holding what it holds. Its one wake-up is this, so
            // the job is free again.
            self.free.push(job);
            return;
        }
        loop {
            let j = job as usize;
            let step_index = self.jobs[j].step as usize;
            let a = self.jobs[j].actor;
            let group = self.jobs[j].group as usize;
            let p = self.p;
            let steps = &p.groups[group].steps;
            let Some(step) = steps.get(step_index) else {
                if self.end_rep(job, Outcome::Completed, now) {
                    continue;
                }
                return;
            };
            match step {
                StepP::Read(r) => {
                    let r = *r as usize;
                    let as_of_start = p.tie == Tie::ReadsFirst && self.jobs[j].handed_at != now;
                    self.reads[j * self.regs.len() + r] = self.regs[r].read(now, as_of_start);
                    let d = p.regs[r].read_ns;
                    if d > 0 {
                        self.span(job, "reading", now, Some(now + d));
                        q.schedule_in(d, self.other, Ev::Resume { job });
                        return;
                    }
                }
                StepP::Write { reg, .. } => {
                    let d = p.regs[*reg as usize].write_ns;
                    if self.tx == Some(job) {
                        let r = *reg as usize;
                        self.undo
                            .push(crate::sim::Undo::Reg(*reg, self.regs[r].clone()));
                    }
                    if d > 0 {
                        self.span(job, "writing", now, Some(now + d));
                        let class = self.landing_class(job);
                        q.schedule_in(d, class, Ev::Land { job });
                        return;
                    }
                    match self.land(job, q) {
                        Landed::Next => {}
                        Landed::Again => continue,
                        Landed::Blocked => return,
                    }
                }
                // A delay always yields, even of 0 ms: the actor goes on in a new event, after
                // the events already scheduled for that instant (SimPy's `timeout(0)`).
                StepP::Delay(d) | StepP::Pause(d) => match self.dur(d, job) {
                    Ok(d) => {
                        if d > 0 {
                            let kind = if matches!(step, StepP::Pause(_)) {
                                "paused"
                            } else {
                                "working"
                            };
                            self.span(job, kind, now, Some(now + d));
                        }
                        q.schedule_in(d, self.other, Ev::Resume { job });
                        return;
                    }
                    Err(e) => {
                        self.error.get_or_insert(e);
                        return;
                    }
                },
                StepP::Acquire { lock, timeout } => {
                    let Some(l) = self.pick(job, lock, self.locks.len()) else {
                        return;
                    };
                    let token = self.tokens[j * self.locks.len() + l];
                    if token != 0
                        && self.locks[l].is_holder(token)
                        && self.locks[l].mode() != LockMode::Lease
                    {
                        // It would wait for itself, for good: say so instead.
                        let actor = &self.actors[a as usize];
                        self.error.get_or_insert(format!(
                            "actor {} of `{}` acquires `{}` at {} ms, which it holds already (taken in an earlier repetition or attempt and never released): release it in the steps of the timeout that ended that attempt (`on_timeout = {{ steps = [{{ release = \"{}\" }}], … }}`), or before the repetition ends",
                            actor.index,
                            p.groups[group].name,
                            p.lock_names[l],
                            sim_core::ns_to_ms(now),
                            p.lock_names[l]
                        ));
                        return;
                    }
                    self.jobs[j].step_started = now;
                    // The give-up deadline is computed once, as the wait starts (so
                    // `give_up_after_ms = "now + 10"` means 10 ms from the request).
                    let deadline = match timeout {
                        Some(t) => match self.deadline(job, t, now) {
                            Some(d) => d,
                            None => return,
                        },
                        None => NONE,
                    };
                    self.jobs[j].deadline = deadline;
                    if !self.attempt(job, l, q) {
                        return;
                    }
                }
                StepP::Release(lock) => {
                    let Some(l) = self.pick(job, lock, self.locks.len()) else {
                        return;
                    };
                    if self.tokens[j * self.locks.len() + l] == 0 {
                        // A release that frees nothing is a mistake in the steps (a lock
                        // picked by the wrong index, or one whose acquire timed out and went
                        // on): say so, rather than leave the lock it meant taken.
                        let actor = &self.actors[a as usize];
                        self.error.get_or_insert(format!(
                            "actor {} of `{}` releases `{}` at {} ms, which it does not hold (not taken in this repetition, or its acquire timed out and went on): release only a lock the repetition took",
                            actor.index,
                            p.groups[group].name,
                            p.lock_names[l],
                            sim_core::ns_to_ms(now),
                        ));
                        return;
                    }
                    self.release(job, l, now);
                }
                StepP::Renew(lock) => {
                    let Some(l) = self.pick(job, lock, self.locks.len()) else {
                        return;
                    };
                    let token = self.tokens[j * self.locks.len() + l];
                    let kept = token != 0 && self.locks[l].renew(token, now);
                    self.jobs[j].outcome = if kept { RENEWED } else { LOST_LEASE };
                    if !kept {
                        self.mark(job, "lease_lost", now);
                    }
                }
                StepP::Request {
                    server,
                    instance,
                    timeout,
                } => {
                    let Some(s) = self.pick(job, server, self.servers.len()) else {
                        return;
                    };
                    let k = match instance {
                        Inst::Fixed(k) => *k,
                        Inst::Actor(num) => {
                            let x = self.eval(job, num);
                            if !(x >= 0.0 && x.fract() == 0.0 && x < 4e18) {
                                let index = self.actors[a as usize].index;
                                self.error.get_or_insert(format!(
                                    "actor {index}: a request's instance is {x}, not a whole number ≥ 0"
                                ));
                                return;
                            }
                            (x as u64 % u64::from(p.servers[s].instances)) as u32
                        }
                    };
                    if let Some(t) = timeout {
                        self.jobs[j].step_started = now;
                        let Some(deadline) = self.deadline(job, t, now) else {
                            return;
                        };
                        self.jobs[j].deadline = deadline;
                        if deadline != NONE {
                            q.schedule_at(deadline, self.other, Ev::Timeout { job });
                        }
                    }
                    if self.request(job, s, k, q) {
                        // Refused at once: its step is set, and it goes on here.
                        continue;
                    }
                    return;
                }
                StepP::Send { link, timeout } => {
                    let Some(k) = self.pick(job, link, self.links.len()) else {
                        return;
                    };
                    let (d, lost) = self.links[k].cross();
                    let deadline = match timeout {
                        Some(t) => match self.deadline(job, t, now) {
                            Some(d) => d,
                            None => return,
                        },
                        None => NONE,
                    };
                    // Lost, or slower than its timeout: only the timeout ends the wait (none:
                    // the actor waits for good).
                    if lost || deadline < now.saturating_add(d) {
                        let jb = &mut self.jobs[j];
                        jb.serving = LOST;
                        jb.deadline = deadline;
                        if deadline != NONE {
                            self.span(job, "crossing", now, Some(deadline));
                            q.schedule_at(deadline, self.other, Ev::Timeout { job });
                        } else {
                            self.span(job, "crossing", now, None);
                        }
                        if lost {
                            self.mark(job, "lost", now);
                        }
                        return;
                    }
                    self.jobs[j].outcome = DELIVERED;
                    if d > 0 {
                        self.span(job, "crossing", now, Some(now + d));
                        q.schedule_in(d, 1 + a, Ev::Resume { job });
                        return;
                    }
                }
                StepP::Crash { rule, restart } => {
                    let actor = &mut self.actors[a as usize];
                    let dies = match rule {
                        CrashRule::All => true,
                        CrashRule::First(n) => u64::from(actor.index) < *n,
                        CrashRule::Names(names) => {
                            let name = p.groups[group].actor_name(actor.index);
                            names.contains(&name)
                        }
                        CrashRule::Probability(pr, None) => {
                            chance(&mut self.streams[actor.crash_rng as usize], *pr)
                        }
                        CrashRule::Probability(pr, Some(s)) => {
                            let rng = self.group_streams[group][*s as usize] as usize;
                            chance(&mut self.streams[rng], *pr)
                        }
                    };
                    if dies {
                        self.roll_back(job);
                        self.mark(job, "crashed", now);
                        let actor = &mut self.actors[a as usize];
                        // Every repetition of its old self still under way ends too.
                        actor.incarnation = actor.incarnation.wrapping_add(1);
                        self.groups[group].crashed += 1;
                        let more = actor.started < p.groups[group].repeat;
                        match restart {
                            // A restart only when the actor has a repetition left to run.
                            Some(d) if more => self.restart(job, d, q),
                            _ => {
                                self.actors[a as usize].crashed = true;
                                // It holds what it held: a crashed holder's lock stays taken.
                                self.free.push(job);
                            }
                        }
                        return;
                    }
                }
                StepP::Put {
                    queue,
                    value,
                    fields,
                } => {
                    if !self.put_step(job, *queue, value, fields, q) {
                        return;
                    }
                }
                StepP::Take { queue, timeout } => {
                    if !self.take_step(job, *queue, timeout, q) {
                        return;
                    }
                }
                StepP::Ack(queue) => self.ack_step(job, *queue),
                StepP::Keys {
                    op,
                    store,
                    key,
                    value,
                } => {
                    if !self.keys_step(job, *op, *store, key, value) {
                        return;
                    }
                }
                StepP::TxBegin => self.begin(job),
                StepP::Stop => {
                    self.actors[a as usize].stopped = true;
                    if self.end_rep(job, Outcome::Completed, now) {
                        continue;
                    }
                    return;
                }
                StepP::TxEnd => self.commit(q),
                StepP::Branch { cond, otherwise } => {
                    let holds = self.holds(job, cond);
                    if self.error.is_some() {
                        // A condition that could not be told (a chance out of range).
                        return;
                    }
                    if !holds {
                        self.jobs[j].step = *otherwise;
                        continue;
                    }
                }
                StepP::Jump(to) => {
                    self.jobs[j].step = *to;
                    continue;
                }
                StepP::End => {
                    if self.end_rep(job, Outcome::Completed, now) {
                        continue;
                    }
                    return;
                }
                StepP::AfterTimeout(then) => match then {
                    ThenP::GoOn(to) => {
                        self.jobs[j].step = *to;
                        continue;
                    }
                    ThenP::Retry {
                        max_attempts,
                        backoff,
                        jitter,
                    } if self.jobs[j].attempt < *max_attempts => {
                        self.retry(job, backoff, jitter, q);
                        return;
                    }
                    _ => {
                        if self.end_rep(job, Outcome::GaveUp, now) {
                            continue;
                        }
                        return;
                    }
                },
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

    /// Lands the job's write: whether the job goes on past it, goes on at once from the
    /// step it was moved to (a compare-and-set conflict gave up, and its closed loop starts
    /// the next repetition in this event), or waits.
    fn land(&mut self, job: u32, q: &mut EventQueue<Ev>) -> Landed {
        let now = q.now();
        let j = job as usize;
        let a = self.jobs[j].actor as usize;
        let p = self.p;
        let StepP::Write {
            reg,
            value,
            cas,
            max_retries,
        } = &p.groups[self.jobs[j].group as usize].steps[self.jobs[j].step as usize]
        else {
            self.error
                .get_or_insert_with(|| "internal: a landing at a step that is not a write".into());
            return Landed::Blocked;
        };
        let r = *reg as usize;
        let nr = self.regs.len();
        let read = self.reads[j * nr + r];
        let new = eval_run(value, &p.params, &self.vars(job, read)).unwrap_or(f64::NAN);
        if !new.is_finite() {
            let what = format!("a write's value into `{}`", p.regs[r].name);
            self.not_finite(job, &what, new);
            return Landed::Blocked;
        }
        let fence = p.regs[r].fence.map(|l| Fence {
            token: self.tokens[j * self.locks.len() + l as usize],
            checked: p.locks[l as usize].fencing,
        });
        match self.regs[r].land(now, read, new, fence, *cas) {
            Landing::Applied { .. } => {
                self.jobs[j].outcome = APPLIED;
                Landed::Next
            }
            Landing::Fenced => {
                self.jobs[j].outcome = REJECTED;
                self.actors[a].rejected += 1;
                self.mark(job, "rejected", now);
                Landed::Next
            }
            Landing::Conflict => {
                self.actors[a].rejected += 1;
                if self.conflict(job, *max_retries, q) {
                    Landed::Again
                } else {
                    Landed::Blocked
                }
            }
        }
    }

    /// A compare-and-set write was rejected: the repetition starts again from its first
    /// step, as a new event, or gives up after `max_retries` rejections. True when the job
    /// goes on at once, in this event, with its next repetition (its caller runs it).
    fn conflict(&mut self, job: u32, max_retries: u64, q: &mut EventQueue<Ev>) -> bool {
        let now = q.now();
        let j = job as usize;
        let jb = &mut self.jobs[j];
        jb.retries += 1;
        if jb.retries >= max_retries {
            // The actor goes on with its next repetition as after any landing: at once,
            // or after the instant's early writes (`writes_first`, `program_order`).
            if self.end_rep(job, Outcome::GaveUp, now) {
                match self.p.tie {
                    Tie::Fifo | Tie::ReadsFirst => return true,
                    Tie::WritesFirst | Tie::ProgramOrder => {
                        self.jobs[j].step = u32::MAX;
                        q.schedule_in(0, self.other, Ev::Resume { job });
                    }
                }
            }
        } else {
            let a = self.jobs[j].actor as usize;
            self.actors[a].retries += 1;
            let g = self.actors[a].group as usize;
            self.groups[g].retries += 1;
            // The same repetition again, from its first step, as a new event.
            self.jobs[j].step = u32::MAX;
            q.schedule_in(0, self.other, Ev::Resume { job });
        }
        false
    }

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
        if group.alias.is_none() {
            group.responses.record(took);
        }
        self.mark(job, "done", now);
    }

    /// Ends the job's repetition; true when the same job goes on with the next one (a closed
    /// loop), from step 0.
    pub(crate) fn end_rep(&mut self, job: u32, outcome: Outcome, now: Nanos) -> bool {
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
        if matches!(group.pace, PaceP::Closed) && actor.started < group.repeat && !actor.stopped {
            actor.started += 1;
            self.groups[g].started += 1;
            let j = &mut self.jobs[job as usize];
            j.rep += 1;
            j.step = 0;
            j.started = now;
            j.retries = 0;
            j.attempt = 1;
            j.outcome = 0;
            return true;
        }
        self.free.push(job);
        false
    }

    /// One attempt on `lock`; true when taken.
    fn attempt(&mut self, job: u32, l: usize, q: &mut EventQueue<Ev>) -> bool {
        let now = q.now();
        if self.locks[l].is_free(now) {
            self.acquire(job, l, now);
            return true;
        }
        let j = job as usize;
        // Computed when the wait started (`steps_of`): NONE when it never gives up.
        let deadline = self.jobs[j].deadline;
        let requested = self.jobs[j].step_started;
        if self.locks[l].mode() == LockMode::Queue {
            let jb = &mut self.jobs[j];
            jb.wait = jb.wait.wrapping_add(1);
            jb.waiting = l as u16;
            self.locks[l].enqueue((job, jb.wait));
            if deadline != NONE {
                q.schedule_at(deadline, self.other, Ev::Timeout { job });
            }
            return false;
        }
        self.locks[l].fail();
        self.actors[self.jobs[j].actor as usize].failed += 1;
        self.mark(job, "attempt", now);
        if deadline != NONE && now > deadline {
            self.gave_up_wait(job, l, now - requested);
            self.span(job, "waiting", requested, Some(now));
            self.timed_out(job, q);
        } else {
            q.schedule_in(self.p.locks[l].poll_ns, self.other, Ev::Retry { job });
            self.jobs[j].polling = l as u16;
            self.polls_pending += 1;
            if q.len() == self.polls_pending && now >= self.unstuck_until {
                self.check_stuck(now);
            }
        }
        false
    }

    /// `job` gave up its wait of `waited` for lock `l`: a wait for the lock and its actor.
    fn gave_up_wait(&mut self, job: u32, l: usize, waited: Nanos) {
        self.locks[l].give_up_after(waited);
        let actor = &mut self.actors[self.jobs[job as usize].actor as usize];
        actor.lock_wait = Some(actor.lock_wait.unwrap_or(0) + waited);
    }

    /// `job` takes lock `l` at `now`.
    fn acquire(&mut self, job: u32, l: usize, now: Nanos) {
        let from = self.jobs[job as usize].step_started;
        let waited = now - from;
        // Drawn before the lock is its: what it held while it waited.
        if waited > 0 {
            self.span(job, "waiting", from, Some(now));
        }
        // Handed a lock released at this very instant: its reads see that instant's writes.
        let handed = self.locks[l].released_at(now);
        let token = self.locks[l].take(now, waited);
        let nl = self.locks.len();
        self.tokens[job as usize * nl + l] = token;
        let j = &mut self.jobs[job as usize];
        j.handed_at = if handed { now } else { NONE };
        j.waiting = u16::MAX;
        // Its give-up deadline is no more: a timer still due for it finds nothing to end.
        j.deadline = NONE;
        j.outcome = ACQUIRED;
        let actor = &mut self.actors[j.actor as usize];
        actor.lock_wait = Some(actor.lock_wait.unwrap_or(0) + waited);
    }

    /// `job` releases lock `l` at `now`, if it holds it; a queue lock goes on to its next
    /// waiter.
    fn release(&mut self, job: u32, l: usize, now: Nanos) {
        let nl = self.locks.len();
        let token = std::mem::take(&mut self.tokens[job as usize * nl + l]);
        if token == 0 {
            return;
        }
        // Only its own record is deleted: a lease taken over is the new holder's.
        if self.locks[l].release(token, now) {
            self.hand_over(l, now);
        }
    }

    /// A queue lock that is free goes to its longest waiter, whose steps go on in this event.
    fn hand_over(&mut self, l: usize, now: Nanos) {
        while let Some((job, wait)) = self.locks[l].next_waiter() {
            let j = &self.jobs[job as usize];
            if j.wait == wait && j.waiting as usize == l {
                self.acquire(job, l, now);
                self.ready.push_back(job);
                return;
            }
        }
    }
}
