//! A scenario's events: a job steps through its actor's steps until one blocks it (a delay,
//! a write landing later, a lock taken, a queue, a link), and the event that ends the block
//! lets it go on. Each step kind's work is in the file of its family: `access` (registers,
//! delays), `locks`, `request` (servers, links), `deliver` (queues, key stores,
//! transactions), `fork` (`parallel` and its join), `control` (crashes, branches, timeouts'
//! ends, repetitions' ends); `recover` has what they share on failing (timeouts, retries,
//! restarts, a resource picked during the run).

use sim_core::{EventQueue, Handler, Nanos, SimError, Ticket};

use crate::point::{Condition, CrashRule, Instance, Pick, Step, Tie};
use crate::run::state::{Event, LOST, NO_SERVER, NONE, Outcome, Sim};

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

impl Handler<Event> for Sim<'_> {
    // Inlined into the engine's loop, as a built-in model's handler is: the hot events'
    // paths are short, and a call per event saved and restored a dozen registers.
    #[inline(always)]
    fn handle(&mut self, event: Event, events: &mut EventQueue<Event>) -> Result<(), SimError> {
        self.now = events.now();
        match event {
            Event::Start { actor } => {
                let actor_state = &self.actors[actor as usize];
                if let Some((server, instance)) = self.direct.groups[actor_state.group as usize] {
                    // A direct group's one step is its request: its actors never crash, and
                    // nothing it does readies a job or sets an error, so the checks below
                    // are not needed.
                    self.start_direct(actor, server as usize, instance, events);
                    return Ok(());
                }
                // An open loop's next start, scheduled before its actor crashed or stopped:
                // no more.
                if !actor_state.crashed && !actor_state.stopped {
                    self.start_job(actor, events);
                }
            }
            Event::Depart { server, instance } => {
                if self.direct.servers[server as usize] {
                    // As for a direct start: only its own internal error can come of it.
                    return self.depart_direct(server as usize, instance, events);
                }
                self.depart(server as usize, instance, events);
            }
            other => self.rare(other, events),
        }
        if !self.ready.is_empty() {
            self.drain(events);
        }
        match &self.error {
            None => Ok(()),
            Some(message) => Err(SimError::Model(message.clone())),
        }
    }
}

impl<'p> Sim<'p> {
    /// An actor's next repetition as a job: its steps from the first.
    #[inline(never)]
    fn start_job(&mut self, actor: u32, events: &mut EventQueue<Event>) {
        let job = self.spawn(actor, events.now());
        if let Some(at) = self.next_start(actor) {
            events.schedule_at(at, 1 + actor, Event::Start { actor });
        }
        if let Some(steer) = &mut self.steer {
            // Explored: every shared step goes through the loop that yields between them.
            steer.fresh = Some(job);
            return self.go(job, events);
        }
        self.proceed(job, events);
    }

    /// Every other event (kept out of the handler's hot path).
    #[inline(never)]
    fn rare(&mut self, event: Event, events: &mut EventQueue<Event>) {
        let now = events.now();
        match event {
            Event::Resume { job } => {
                // A delay's end that was cancellable is no more.
                self.jobs[job as usize].timer = Ticket::NONE;
                let answering = self.jobs[job as usize].answering;
                if answering != u16::MAX {
                    self.reply_lands(job, answering, now);
                }
                if self.jobs[job as usize].cancelled && self.steer.is_none() {
                    // A branch cancelled at its join, and this its one wake-up: it is free
                    // again (what `go` would find, at once).
                    self.free_job(job);
                    return;
                }
                if let Some(steer) = &mut self.steer {
                    if steer.crash_now {
                        // An exploration's `crash_anywhere`: the actor dies at this step
                        // boundary, as a `crash` step there would make it.
                        steer.crash_now = false;
                        steer.crashed_anywhere += 1;
                        let group = self.jobs[job as usize].group as usize;
                        let restart = self.point.groups[group]
                            .crash_anywhere
                            .as_ref()
                            .and_then(|(_, r)| r.clone());
                        self.crash_step(job, &CrashRule::All, &restart, now, events);
                        return;
                    }
                    steer.fresh = Some(job);
                }
                let job_state = &mut self.jobs[job as usize];
                job_state.step = job_state.step.wrapping_add(1);
                self.go(job, events);
            }
            Event::Land { job } => match self.land(job, events) {
                Flow::Next => {
                    match self.point.tie {
                        // The actor goes on at once, in this event.
                        Tie::Fifo | Tie::ReadsFirst => {
                            self.jobs[job as usize].step += 1;
                            self.go(job, events);
                        }
                        // It goes on after the instant's early writes have landed.
                        Tie::WritesFirst | Tie::ProgramOrder => {
                            events.schedule_in(0, self.other, Event::Resume { job })
                        }
                    }
                }
                Flow::Here => self.go(job, events),
                Flow::Wait => {}
            },
            Event::Retry { job } => {
                self.polls.pending -= 1;
                self.jobs[job as usize].polling = u16::MAX;
                let point = self.point;
                let job_state = &self.jobs[job as usize];
                if job_state.cancelled
                    || job_state.incarnation != self.actors[job_state.actor as usize].incarnation
                {
                    // Its actor crashed while it polled (or its branch was cancelled): it
                    // goes no further, and this was its one wake-up, so the job is free.
                    self.free_job(job);
                    return;
                }
                if let Step::Acquire { lock, .. } =
                    &point.groups[job_state.group as usize].steps[job_state.step as usize]
                    && let Some(lock) = self.pick(job, lock, self.locks.len())
                    && self.attempt(job, lock, events)
                {
                    self.jobs[job as usize].step += 1;
                    self.go(job, events);
                }
            }
            Event::Timeout { job, armed } => self.timeout_event(job, armed, now, events),
            Event::Branch { parent, branch } => self.branch_due(parent, branch, events),
            Event::Unlock { lock } => {
                let lock = lock as usize;
                self.locks[lock].unlock(now);
                self.hand_over(lock, now);
            }
            Event::Arrive { queue, message } => {
                self.queues[queue as usize].arrive(message);
                self.feed(queue as usize, events);
            }
            Event::Visible { queue } => {
                let (back, next) = self.queues[queue as usize].wake(now);
                if let Some(at) = next {
                    events.schedule_at(at, self.other, Event::Visible { queue });
                }
                if back {
                    self.feed(queue as usize, events);
                }
            }
            Event::Down { server } => self.servers[server as usize].go_down(),
            Event::Up { server } => {
                let server = server as usize;
                for (instance, next) in self.servers[server].up(now) {
                    self.start_next(server, instance, next, now, events);
                }
            }
            Event::Start { .. } | Event::Depart { .. } => unreachable!("handled by the handler"),
        }
    }

    /// A wait's ceiling came (`Event::Timeout`): at its job's deadline, the wait it ends
    /// (a queued lock's, a take's, a call's, a lost crossing's, a request's) is given up.
    fn timeout_event(&mut self, job: u32, armed: u16, now: Nanos, events: &mut EventQueue<Event>) {
        let job_state = &mut self.jobs[job as usize];
        if job_state.deadline != now || job_state.armed != armed {
            return;
        }
        if job_state.incarnation != self.actors[job_state.actor as usize].incarnation {
            // Its actor crashed while it waited (an open loop's repetitions overlap):
            // it went no further, and its wait ends uncounted. No other event
            // reaches it (its wait is spent), so the job is free again.
            job_state.waiting = u16::MAX;
            job_state.taking = u16::MAX;
            job_state.calling = u16::MAX;
            job_state.serving = NO_SERVER;
            job_state.wait = job_state.wait.wrapping_add(1);
            job_state.deadline = NONE;
            self.free_job(job);
            return;
        }
        if job_state.waiting != u16::MAX {
            let lock = job_state.waiting as usize;
            job_state.waiting = u16::MAX;
            let from = job_state.step_started;
            self.gave_up_wait(job, lock, now - from);
            self.span(job, "waiting", from, Some(now));
            self.timed_out(job, events);
        } else if job_state.taking != u16::MAX {
            // The queue's waiter entry is left behind: `feed` skips it.
            job_state.taking = u16::MAX;
            let from = job_state.step_started;
            if now > from {
                self.span(job, "waiting", from, Some(now));
            }
            self.timed_out(job, events);
        } else if job_state.calling != u16::MAX {
            // No reply in time: one that comes later finds nobody waiting.
            job_state.calling = u16::MAX;
            job_state.wait = job_state.wait.wrapping_add(1);
            let from = job_state.step_started;
            self.span(job, "waiting", from, Some(now));
            self.timed_out(job, events);
        } else if job_state.serving == LOST {
            job_state.serving = NO_SERVER;
            self.timed_out(job, events);
        } else if job_state.serving != NO_SERVER {
            let server = job_state.serving as usize;
            job_state.serving = NO_SERVER;
            // A new wait: the request left behind no longer reaches this job.
            job_state.wait = job_state.wait.wrapping_add(1);
            let from = job_state.step_started;
            // Given up in service or still queued.
            let queued = !job_state.in_service;
            let kind = if queued { "waiting" } else { "served" };
            job_state.in_service = false;
            if queued && self.entities {
                // It leaves while queued: its wait so far is a wait still, as a
                // given-up lock wait is.
                let actor = &mut self.actors[job_state.actor as usize];
                actor.server_wait = Some(actor.server_wait.unwrap_or(0) + (now - from));
            }
            self.servers[server].time_out();
            self.span(job, kind, from, Some(now));
            self.timed_out(job, events);
        }
    }

    /// Runs the jobs readied in this event, in order, each from the step after the one it
    /// stands at (the step it waited in).
    fn drain(&mut self, events: &mut EventQueue<Event>) {
        while let Some(job) = self.ready.pop_front() {
            self.jobs[job as usize].step += 1;
            self.go(job, events);
        }
    }

    /// Runs `job` from its current step: the two commonest cases (a request at a fixed
    /// instance, the end of the steps) here, inlined into the handler; the rest in
    /// [`Sim::go`].
    #[inline(always)]
    pub(super) fn proceed(&mut self, job: u32, events: &mut EventQueue<Event>) {
        let job_state = &self.jobs[job as usize];
        let steps = &self.point.groups[job_state.group as usize].steps;
        match steps.get(job_state.step as usize) {
            None if !self.closed[job_state.group as usize] => {
                // An open loop's repetition is done: its job goes back to the pool.
                let now = events.now();
                self.completed_at(job, now);
                self.free_job(job);
            }
            Some(Step::Request {
                server: Pick::One(server),
                instance: Instance::Fixed(instance),
                timeout: None,
            }) => {
                let (server, instance) = (*server as usize, *instance);
                // Its wait starts here, as `Sim::request_step`'s does: a cancel at a join
                // counts its queueing from it.
                self.jobs[job as usize].step_started = events.now();
                if self.request(job, server, instance, events) {
                    self.go(job, events);
                }
            }
            // A branch whose request was its last step (a hedge's copy): it comes through.
            Some(Step::BranchEnd) if self.steer.is_none() => self.came_through(job, events),
            _ => self.go(job, events),
        }
    }

    /// Runs `job` from its current step until it blocks or ends.
    #[inline(never)]
    pub(crate) fn go(&mut self, job: u32, events: &mut EventQueue<Event>) {
        // Under an explorer: whether this job's actor has made its shared action in this
        // event already (only the job the event is for may make one without yielding).
        let acted = match &mut self.steer {
            None => false,
            Some(steer) => steer.fresh.take() != Some(job),
        };
        let mut job = job;
        let mut acted = acted;
        loop {
            acted = self.steps_until_blocked(job, acted, events);
            // A branch whose end met its join: the job of the `parallel` goes on from the
            // step after it, here, with what is left of the event's shared action.
            match self.joined.take() {
                Some(parent) if self.error.is_none() => {
                    self.jobs[parent as usize].step += 1;
                    job = parent;
                }
                _ => return,
            }
        }
    }

    /// [`Sim::steps_of`], and the run's error placed at the step that set it; whether the
    /// job's actor has made its shared action in this event, as [`Sim::steps_of`] says.
    pub(super) fn steps_until_blocked(
        &mut self,
        job: u32,
        acted: bool,
        events: &mut EventQueue<Event>,
    ) -> bool {
        let acted = self.steps_of(job, acted, events);
        if self.error.is_some() && self.error_at.is_none() {
            // The step that failed has not moved on: it is where the mistake is written.
            let job_state = &self.jobs[job as usize];
            self.error_at = Some((job_state.group, job_state.step));
        }
        acted
    }

    /// `go`'s work: the steps, until one blocks or the repetition ends. Each step kind's
    /// work is a function of its family (`access`, `locks`, `request`, `deliver`, `fork`,
    /// `control`) that says what the job does next ([`Flow`]); this loop only moves the
    /// program counter. Steps that finish at once go on here, by iteration. `acted`: under
    /// an explorer, whether the actor has made its one shared action of this event already
    /// (its next one then yields: the same step, in an event of its own at this instant);
    /// returned as it stands when the job stops.
    fn steps_of(&mut self, job: u32, acted: bool, events: &mut EventQueue<Event>) -> bool {
        let now = events.now();
        let job_index = job as usize;
        let job_state = &self.jobs[job_index];
        if job_state.cancelled
            || job_state.incarnation != self.actors[job_state.actor as usize].incarnation
        {
            // Its actor crashed while this repetition waited (an open loop's repetitions
            // overlap): it dies with it, holding what it holds; or it is a branch cancelled
            // at its join. Its one wake-up is this, so the job is free again.
            self.free_job(job);
            return acted;
        }
        let mut acted = acted;
        // A job keeps its group (and so its steps) for good; a run is explored or not for
        // good (read once here, not on every step).
        let point = self.point;
        let steps = &point.groups[self.jobs[job_index].group as usize].steps;
        let explored = self.steer.is_some();
        loop {
            let flow = match steps.get(self.jobs[job_index].step as usize) {
                None => self.end_now(job, Outcome::Completed, events),
                Some(step) if explored && step.is_shared() => {
                    // A transaction's steps run together, in the event of its start.
                    if self.transaction.job != Some(job) {
                        if acted {
                            // It yields: the same step, in an event of its own at this
                            // instant.
                            self.jobs[job_index].step = self.jobs[job_index].step.wrapping_sub(1);
                            events.schedule_in(0, self.other, Event::Resume { job });
                            return acted;
                        }
                        acted = true;
                    }
                    if let Some(steer) = &mut self.steer {
                        let at = (self.jobs[job_index].group, self.jobs[job_index].step);
                        steer.acted.get_or_insert((job, at.1));
                        steer.touched.push(at);
                    }
                    self.step(job, step, now, events, &mut acted)
                }
                Some(step) => self.step(job, step, now, events, &mut acted),
            };
            match flow {
                Flow::Next => self.jobs[job_index].step += 1,
                Flow::Here => {}
                Flow::Wait => return acted,
            }
        }
    }

    /// Runs one step for `job` at `now`.
    #[inline(always)]
    fn step(
        &mut self,
        job: u32,
        step: &'p Step,
        now: Nanos,
        events: &mut EventQueue<Event>,
        acted: &mut bool,
    ) -> Flow {
        match step {
            Step::Read(register) => self.read_step(job, *register as usize, now, events),
            Step::Write { register, .. } => self.write_step(job, *register, now, events),
            Step::Delay(duration) => self.delay_step(job, duration, "working", now, events),
            Step::Pause(duration) => self.delay_step(job, duration, "paused", now, events),
            Step::Acquire { lock, timeout } => self.acquire_step(job, lock, timeout, now, events),
            Step::Release(lock) => self.release_step(job, lock, now),
            Step::Renew(lock) => self.renew_step(job, lock, now),
            Step::Request {
                server,
                instance,
                timeout,
            } => self.request_step(job, server, instance, timeout, now, events),
            Step::Send { link, timeout } => self.send_step(job, link, timeout, now, events),
            Step::Crash { rule, restart } => self.crash_step(job, rule, restart, now, events),
            Step::Put {
                queue,
                value,
                fields,
            } => Flow::next_if(self.put_step(job, *queue, value, fields, events)),
            Step::Take { queue, timeout } => {
                Flow::next_if(self.take_step(job, *queue, timeout, events))
            }
            Step::Ack(queue) => {
                self.ack_step(job, *queue);
                Flow::Next
            }
            Step::Call {
                queue,
                value,
                fields,
                timeout,
            } => self.call_step(job, *queue, value, fields, timeout, events),
            Step::Reply { queue, value } => {
                Flow::next_if(self.reply_step(job, *queue, value, events))
            }
            Step::Keys {
                operation,
                store,
                key,
                value,
            } => Flow::next_if(self.keys_step(job, *operation, *store, key, value)),
            Step::TxBegin => {
                self.begin(job);
                Flow::Next
            }
            Step::TxEnd => {
                self.commit(events);
                Flow::Next
            }
            Step::Stop => {
                let actor = self.jobs[job as usize].actor as usize;
                self.actors[actor].stopped = true;
                self.end_now(job, Outcome::Completed, events)
            }
            // The commonest condition, an outcome, told here (as `branch_step` tells it).
            Step::Branch {
                condition: Condition::Outcome(outcome),
                otherwise,
            } => {
                if self.error.is_some() {
                    Flow::Wait
                } else if self.jobs[job as usize].outcome == *outcome {
                    Flow::Next
                } else {
                    self.jobs[job as usize].step = *otherwise;
                    Flow::Here
                }
            }
            Step::Branch {
                condition,
                otherwise,
            } => self.branch_step(job, condition, *otherwise),
            Step::Jump(to) => {
                self.jobs[job as usize].step = *to;
                Flow::Here
            }
            Step::End => self.end_now(job, Outcome::Completed, events),
            Step::Exit { gave_up: false } => self.end_now(job, Outcome::Completed, events),
            Step::Exit { gave_up: true } => self.end_now(job, Outcome::GaveUp, events),
            Step::AfterTimeout(then) => self.after_timeout_step(job, then, events),
            Step::Fork {
                starts,
                wait,
                withdraw,
                inline_first,
                ..
            } => self.fork_step(
                job,
                starts,
                (*wait, *withdraw, *inline_first),
                acted,
                events,
            ),
            Step::BranchEnd => {
                self.branch_end(job, true, events);
                Flow::Wait
            }
        }
    }
}
