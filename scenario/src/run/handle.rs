//! A scenario's events: a job steps through its actor's steps until one blocks it (a delay,
//! a write landing later, a lock taken, a queue, a link), and the event that ends the block
//! lets it go on. Each step kind's work is in the file of its family: `access` (registers,
//! delays), `locks`, `request` (servers, links), `deliver` (queues, key stores,
//! transactions), `control` (crashes, branches, timeouts' ends, repetitions' ends).

use sim_core::{EventQueue, Handler, Nanos, SimError};

use crate::point::{CrashRule, Inst, Pick, Step, Tie};
use crate::run::state::{Ev, LOST, NO_SERVER, NONE, Outcome, Sim};

/// What a step leaves its job to do: the interpreter loop's one decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Go on with the next step.
    Next,
    /// Go on at once from the step it stands at now (a branch or jump taken, a timeout's
    /// steps, a new repetition from step 0).
    Here,
    /// Nothing now: it waits for an event (or the run stops with an error).
    Wait,
}

impl Flow {
    /// `Next` when the step went on at once, else `Wait`.
    #[inline(always)]
    pub(crate) fn next_if(goes_on: bool) -> Flow {
        if goes_on { Flow::Next } else { Flow::Wait }
    }
}

impl Handler<Ev> for Sim<'_> {
    // Inlined into the engine's loop, as a built-in model's handler is: the hot events'
    // paths are short, and a call per event saved and restored a dozen registers.
    #[inline(always)]
    fn handle(&mut self, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), SimError> {
        self.now = q.now();
        match ev {
            Ev::Start { actor } => {
                let a = &self.actors[actor as usize];
                if let Some((s, k)) = self.direct.groups[a.group as usize] {
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
            Ev::Depart { server, instance } => match self.direct.servers[server as usize] {
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

impl<'p> Sim<'p> {
    /// An actor's next repetition as a job: its steps from the first.
    #[inline(never)]
    fn start_job(&mut self, actor: u32, q: &mut EventQueue<Ev>) {
        let job = self.spawn(actor, q.now());
        if let Some(at) = self.next_start(actor) {
            q.schedule_at(at, 1 + actor, Ev::Start { actor });
        }
        if let Some(steer) = &mut self.steer {
            // Explored: every shared step goes through the loop that yields between them.
            steer.fresh = Some(job);
            return self.go(job, q);
        }
        self.proceed(job, q);
    }

    /// Every other event (kept out of the handler's hot path).
    #[inline(never)]
    fn rare(&mut self, ev: Ev, q: &mut EventQueue<Ev>) {
        let now = q.now();
        match ev {
            Ev::Resume { job } => {
                if let Some(steer) = &mut self.steer {
                    if steer.crash_now {
                        // An exploration's `crash_anywhere`: the actor dies at this step
                        // boundary, as a `crash` step there would make it.
                        steer.crash_now = false;
                        steer.crashed_anywhere += 1;
                        let g = self.jobs[job as usize].group as usize;
                        let restart = self.p.groups[g]
                            .crash_anywhere
                            .as_ref()
                            .and_then(|(_, r)| r.clone());
                        self.crash_step(job, &CrashRule::All, &restart, now, q);
                        return;
                    }
                    steer.fresh = Some(job);
                }
                let j = &mut self.jobs[job as usize];
                j.step = j.step.wrapping_add(1);
                self.go(job, q);
            }
            Ev::Land { job } => match self.land(job, q) {
                Flow::Next => {
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
                Flow::Here => self.go(job, q),
                Flow::Wait => {}
            },
            Ev::Retry { job } => {
                self.polls.pending -= 1;
                self.jobs[job as usize].polling = u16::MAX;
                let p = self.p;
                let j = &self.jobs[job as usize];
                if j.cancelled || j.incarnation != self.actors[j.actor as usize].incarnation {
                    // Its actor crashed while it polled (or its branch was cancelled): it
                    // goes no further, and this was its one wake-up, so the job is free.
                    self.free_job(job);
                    return;
                }
                if let Step::Acquire { lock, .. } =
                    &p.groups[j.group as usize].steps[j.step as usize]
                    && let Some(l) = self.pick(job, lock, self.locks.len())
                    && self.attempt(job, l, q)
                {
                    self.jobs[job as usize].step += 1;
                    self.go(job, q);
                }
            }
            Ev::Timeout { job } => self.timeout_event(job, now, q),
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

    /// A wait's ceiling came (`Ev::Timeout`): at its job's deadline, the wait it ends
    /// (a queued lock's, a take's, a call's, a lost crossing's, a request's) is given up.
    fn timeout_event(&mut self, job: u32, now: Nanos, q: &mut EventQueue<Ev>) {
        let j = &mut self.jobs[job as usize];
        if j.deadline != now {
            return;
        }
        if j.incarnation != self.actors[j.actor as usize].incarnation {
            // Its actor crashed while it waited (an open loop's repetitions overlap):
            // it went no further, and its wait ends uncounted. No other event
            // reaches it (its wait is spent), so the job is free again.
            j.waiting = u16::MAX;
            j.taking = u16::MAX;
            j.calling = u16::MAX;
            j.serving = NO_SERVER;
            j.wait = j.wait.wrapping_add(1);
            j.deadline = NONE;
            self.free_job(job);
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
        } else if j.calling != u16::MAX {
            // No reply in time: one that comes later finds nobody waiting.
            j.calling = u16::MAX;
            j.wait = j.wait.wrapping_add(1);
            let from = j.step_started;
            self.span(job, "waiting", from, Some(now));
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
            let queued = !j.in_service;
            let kind = if queued { "waiting" } else { "served" };
            j.in_service = false;
            if queued && self.entities {
                // It leaves while queued: its wait so far is a wait still, as a
                // given-up lock wait is.
                let actor = &mut self.actors[j.actor as usize];
                actor.server_wait = Some(actor.server_wait.unwrap_or(0) + (now - from));
            }
            self.servers[s].time_out();
            self.span(job, kind, from, Some(now));
            self.timed_out(job, q);
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
    pub(super) fn proceed(&mut self, job: u32, q: &mut EventQueue<Ev>) {
        let j = &self.jobs[job as usize];
        let steps = &self.p.groups[j.group as usize].steps;
        match steps.get(j.step as usize) {
            None if !self.closed[j.group as usize] => {
                // An open loop's repetition is done: its job goes back to the pool.
                let now = q.now();
                self.completed_at(job, now);
                self.free_job(job);
            }
            Some(Step::Request {
                server: Pick::One(server),
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

    /// `go`'s work: the steps, until one blocks or the repetition ends. Each step kind's
    /// work is a function of its family (`access`, `locks`, `request`, `deliver`,
    /// `control`) that says what the job does next ([`Flow`]); this loop only moves the
    /// program counter. Steps that finish at once go on here, by iteration.
    fn steps_of(&mut self, job: u32, q: &mut EventQueue<Ev>) {
        let now = q.now();
        let ju = job as usize;
        let jb = &self.jobs[ju];
        if jb.cancelled || jb.incarnation != self.actors[jb.actor as usize].incarnation {
            // Its actor crashed while this repetition waited (an open loop's repetitions
            // overlap): it dies with it, holding what it holds; or it is a branch cancelled
            // at its join. Its one wake-up is this, so the job is free again.
            self.free_job(job);
            return;
        }
        // Under an explorer: whether this job has already made a shared action in this
        // event (its next one then waits for a choice of its own).
        let mut acted = match &mut self.steer {
            None => false,
            Some(steer) => steer.fresh.take() != Some(job),
        };
        loop {
            let j = job as usize;
            let p = self.p;
            let steps = &p.groups[self.jobs[j].group as usize].steps;
            let flow = match steps.get(self.jobs[j].step as usize) {
                None => self.end_now(job, Outcome::Completed, now),
                Some(step) if self.steer.is_some() && step.is_shared() => {
                    // A transaction's steps run together, in the event of its start.
                    if self.tx.job != Some(job) {
                        if acted {
                            // It yields: the same step, in an event of its own at this
                            // instant.
                            self.jobs[j].step = self.jobs[j].step.wrapping_sub(1);
                            q.schedule_in(0, self.other, Ev::Resume { job });
                            return;
                        }
                        acted = true;
                    }
                    if let Some(steer) = &mut self.steer {
                        let at = (self.jobs[j].group, self.jobs[j].step);
                        steer.acted.get_or_insert((job, at.1));
                        steer.touched.push(at);
                    }
                    self.step(job, step, now, q)
                }
                Some(step) => self.step(job, step, now, q),
            };
            match flow {
                Flow::Next => self.jobs[j].step += 1,
                Flow::Here => {}
                Flow::Wait => return,
            }
        }
    }

    /// Runs one step for `job` at `now`.
    #[inline(always)]
    fn step(&mut self, job: u32, step: &'p Step, now: Nanos, q: &mut EventQueue<Ev>) -> Flow {
        match step {
            Step::Read(r) => self.read_step(job, *r as usize, now, q),
            Step::Write { reg, .. } => self.write_step(job, *reg, now, q),
            Step::Delay(d) => self.delay_step(job, d, "working", now, q),
            Step::Pause(d) => self.delay_step(job, d, "paused", now, q),
            Step::Acquire { lock, timeout } => self.acquire_step(job, lock, timeout, now, q),
            Step::Release(lock) => self.release_step(job, lock, now),
            Step::Renew(lock) => self.renew_step(job, lock, now),
            Step::Request {
                server,
                instance,
                timeout,
            } => self.request_step(job, server, instance, timeout, now, q),
            Step::Send { link, timeout } => self.send_step(job, link, timeout, now, q),
            Step::Crash { rule, restart } => self.crash_step(job, rule, restart, now, q),
            Step::Put {
                queue,
                value,
                fields,
            } => Flow::next_if(self.put_step(job, *queue, value, fields, q)),
            Step::Take { queue, timeout } => Flow::next_if(self.take_step(job, *queue, timeout, q)),
            Step::Ack(queue) => {
                self.ack_step(job, *queue);
                Flow::Next
            }
            Step::Call {
                queue,
                value,
                fields,
                timeout,
            } => self.call_step(job, *queue, value, fields, timeout, q),
            Step::Reply { queue, value } => Flow::next_if(self.reply_step(job, *queue, value, q)),
            Step::Keys {
                op,
                store,
                key,
                value,
            } => Flow::next_if(self.keys_step(job, *op, *store, key, value)),
            Step::TxBegin => {
                self.begin(job);
                Flow::Next
            }
            Step::TxEnd => {
                self.commit(q);
                Flow::Next
            }
            Step::Stop => {
                let a = self.jobs[job as usize].actor as usize;
                self.actors[a].stopped = true;
                self.end_now(job, Outcome::Completed, now)
            }
            Step::Branch { cond, otherwise } => self.branch_step(job, cond, *otherwise),
            Step::Jump(to) => {
                self.jobs[job as usize].step = *to;
                Flow::Here
            }
            Step::End => self.end_now(job, Outcome::Completed, now),
            Step::Exit { gave_up: false } => self.end_now(job, Outcome::Completed, now),
            Step::Exit { gave_up: true } => self.end_now(job, Outcome::GaveUp, now),
            Step::AfterTimeout(then) => self.after_timeout_step(job, then, now, q),
            Step::Fork { starts, .. } => self.fork_step(job, starts, now),
            Step::BranchEnd => {
                self.branch_end(job, true, now);
                Flow::Wait
            }
        }
    }
}
