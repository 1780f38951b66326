//! `parallel`: a job's branches, each a job of its own started at one instant, and the join
//! that lets the job go on once enough came through, cancelling the rest.
//!
//! A branch comes through when it reaches its end (or an `end` step), and fails when it
//! gives up (a timeout that ends, `{ end = "gave_up" }`). What a finished branch holds
//! (its locks) passes to the job; what one that came through read, took or looked up is
//! the job's to read after the join. A cancelled branch gives back its locks, leaves any
//! queue it waits in (a server's only with `cancel = "withdraw"`, and only while its
//! request is queued: one in service runs to its end, wasted), and goes no further: it is
//! freed at its next wake-up, or at once when its wait was the queue it left or a delay
//! whose end the event queue could take out (a run not explored, with no timeline).

use sim_core::{EventQueue, Nanos, Ticket};

use crate::machine::queue::Taken;
use crate::point::{Duration, Step};
use crate::run::handle::Flow;
use crate::run::recover::{FAILED, JOINED};
use crate::run::state::{DEFERRED, Event, INLINE, Job, LOST, NO_JOB, NO_SERVER, NONE, Sim};
use crate::syntax::spec::MAX_BRANCHES;

impl<'p> Sim<'p> {
    /// A `parallel` step: its branches start at once, in order, each running its steps in
    /// this event until one blocks it (as the actor's steps would, written in line); the
    /// job goes on at once when they all came through already (`Flow::Next`), else waits
    /// for its join. `acted`: under an explorer, whether the actor's one shared action of
    /// this event is made (after the fork, it is).
    pub(super) fn fork_step(
        &mut self,
        job: u32,
        starts: &[u32],
        (wait, withdraw, inline_first): (u32, bool, bool),
        acted: &mut bool,
        events: &mut EventQueue<Event>,
    ) -> Flow {
        let now = events.now();
        let job_state = &mut self.jobs[job as usize];
        job_state.running = starts.len() as u8;
        job_state.joined = 0;
        job_state.failed = 0;
        job_state.winner = 0;
        // At most `MAX_BRANCHES`.
        job_state.need = wait as u8;
        job_state.withdraw = withdraw;
        // Every branch is made before any runs: one that ends at once may meet the join
        // and cancel the others, which must be in the row of kids by then.
        let row = job as usize * self.fan;
        let mut kids = [NO_JOB; MAX_BRANCHES];
        // Nothing to blank, copy or draw for a job, and no slot of its actor's to take:
        // the kids are made from the free jobs at once, and one whose first step is a
        // fixed delay only when that delay ends (`DEFERRED`).
        let plain =
            self.steer.is_none() && self.lanes.is_none() && !self.job_rows && self.locks.is_empty();
        let point = self.point;
        let steps = &point.groups[self.jobs[job as usize].group as usize].steps;
        // A lone request as the first branch waits in this job's name (`INLINE`); only a
        // job that is no branch itself lends its wait (a cancelled branch's own wait is
        // given up as a whole, its kids' apart).
        let inline_first = plain && inline_first && self.jobs[job as usize].parent == NO_JOB;
        for (branch_index, &start) in starts.iter().enumerate() {
            let made = if plain {
                if branch_index == 0 && inline_first {
                    INLINE
                } else if let Some(Step::Delay(Duration::Fixed(_))) = steps.get(start as usize) {
                    DEFERRED
                } else {
                    self.alloc_plain(Job {
                        branch: branch_index as u8 + 1,
                        step: start,
                        ..self.branch_of(job, now)
                    })
                }
            } else {
                let made = self.alloc(Job {
                    branch: branch_index as u8 + 1,
                    step: start,
                    ..self.branch_of(job, now)
                });
                self.copy_rows(job, made, false);
                made
            };
            self.tables.kids[row + branch_index] = made;
            kids[branch_index] = made;
        }
        if self.steer.is_some() {
            // Explored, each branch's first shared step waits for an event of its own at
            // this instant (and so does the job's next one, should the join be met at
            // once): the explorer takes every order of them among other actors' events,
            // the run's (at once, in order) among them.
            *acted = true;
        }
        for (branch_index, (&kid, &start)) in kids.iter().zip(starts).enumerate() {
            if kid == INLINE {
                // The first to start: nothing can have met the join before it.
                self.inline_request(job, steps.get(start as usize), events);
                if self.error.is_some() {
                    self.error_at
                        .get_or_insert((self.jobs[job as usize].group, start));
                    return Flow::Wait;
                }
                continue;
            }
            if kid == DEFERRED {
                let place = row + branch_index;
                // Still in the row unless the join was met before its turn.
                if let (DEFERRED, Some(Step::Delay(Duration::Fixed(ns)))) =
                    (self.tables.kids[place], steps.get(start as usize))
                {
                    // Its delay's end, scheduled where the branch's own would be.
                    let parent = job;
                    let branch = branch_index as u8 + 1;
                    let due = Event::Branch { parent, branch };
                    let ticket = events.schedule_cancellable_in(*ns, self.other, due);
                    self.tables.deferred[place] = ticket;
                }
                continue;
            }
            if self.jobs[kid as usize].cancelled {
                // The join was met before its turn: it never starts.
                self.free_job(kid);
                continue;
            }
            self.start_branch(kid, steps.get(start as usize), acted, events);
            if self.error.is_some() {
                return Flow::Wait;
            }
        }
        match self.joined.take() {
            // Met while the branches started: the job goes on in its own loop.
            Some(_) => Flow::Next,
            None => Flow::Wait,
        }
    }

    /// A branch of job `parent`'s `parallel` made at `now`: what it has of its parent (its
    /// repetition, and nothing it waits for), its place and first step still to be set.
    #[inline(always)]
    fn branch_of(&self, parent: u32, now: Nanos) -> Job {
        let job_state = &self.jobs[parent as usize];
        let kid = Job {
            parent,
            step_started: now,
            ..Job::idle(job_state.actor, job_state.group)
        };
        Job {
            repetition: job_state.repetition,
            started: job_state.started,
            retries: job_state.retries,
            attempt: job_state.attempt,
            outcome: job_state.outcome,
            incarnation: job_state.incarnation,
            ..kid
        }
    }

    /// The first branch of job `parent`'s fork, a lone request (`INLINE`), asks in the
    /// parent's name: its slot says which branch it is, so that its departure comes
    /// through at the join (`Sim::inline_through`) with no job stepped to its end.
    #[inline(always)]
    fn inline_request(
        &mut self,
        parent: u32,
        first: Option<&'p Step>,
        events: &mut EventQueue<Event>,
    ) {
        let Some(Step::Request {
            server,
            instance,
            timeout: None,
        }) = first
        else {
            self.error
                .get_or_insert_with(|| "internal: an inline branch is no lone request".into());
            return;
        };
        let now = events.now();
        // Never refused (its server never goes down): it waits for its service, and the
        // parent's step stays at its fork.
        let flow = self.request_step(parent, server, instance, &None, now, events);
        debug_assert!(
            flow == Flow::Wait,
            "an inline branch's request went on at once"
        );
        if self.error.is_none() {
            let tag = self.jobs[parent as usize].slot;
            self.slots[tag as usize].branch = 1;
        }
    }

    /// The request of branch `branch` of job `parent`, made with no job (`INLINE`), was
    /// served: the branch comes through, and the job goes on at once if that met the join.
    pub(super) fn inline_through(
        &mut self,
        parent: u32,
        branch: u8,
        events: &mut EventQueue<Event>,
    ) {
        self.jobs[parent as usize].in_service = false;
        self.branch_done(parent, branch, true, events);
        let joined = self.joined.take();
        if self.error.is_some() {
            let parent_state = &self.jobs[parent as usize];
            self.error_at
                .get_or_insert((parent_state.group, parent_state.step));
            return;
        }
        if let Some(parent) = joined {
            self.jobs[parent as usize].step += 1;
            self.go(parent, events);
        }
    }

    /// The delay that starts a `DEFERRED` branch (`branch`, from 1, of job `parent`'s
    /// `parallel`) is over: the branch is made as its fork would have made it (the parent
    /// waits at its fork, unchanged since), and goes on past the delay as its own delay's
    /// end (`Event::Resume`) would have let it.
    pub(super) fn branch_due(&mut self, parent: u32, branch: u8, events: &mut EventQueue<Event>) {
        let now = events.now();
        let place = parent as usize * self.fan + usize::from(branch) - 1;
        debug_assert_eq!(self.tables.kids[place], DEFERRED);
        self.tables.deferred[place] = Ticket::NONE;
        let point = self.point;
        let parent_state = &self.jobs[parent as usize];
        let steps = &point.groups[parent_state.group as usize].steps;
        let Some(Step::Fork { starts, .. }) = steps.get(parent_state.step as usize) else {
            self.error
                .get_or_insert_with(|| "internal: a deferred branch's parent left its fork".into());
            return;
        };
        let start = starts[usize::from(branch) - 1];
        let Some(Step::Delay(Duration::Fixed(ns))) = steps.get(start as usize) else {
            self.error
                .get_or_insert_with(|| "internal: a deferred branch starts with no delay".into());
            return;
        };
        let kid = self.branch_of(parent, now.saturating_sub(*ns));
        let kid = self.alloc_plain(Job {
            branch,
            step: start.wrapping_add(1),
            ..kid
        });
        self.tables.kids[place] = kid;
        self.go(kid, events);
    }

    /// Branch `kid` starts at its first step, `first` (a branch's group is its parent's),
    /// and runs its steps until one blocks it. The first steps of a hedge's two branches, a
    /// request and a delay, are run here, without a turn of the step loop when they wait
    /// (explored, a request is a shared step: it goes through the loop).
    #[inline(always)]
    fn start_branch(
        &mut self,
        kid: u32,
        first: Option<&'p Step>,
        acted: &mut bool,
        events: &mut EventQueue<Event>,
    ) {
        let now = events.now();
        let flow = match first {
            Some(Step::Delay(Duration::Fixed(ns)))
                if self.steer.is_none() && self.lanes.is_none() =>
            {
                // What `Sim::delay_step` does for a branch's fixed delay in a run not
                // explored and not drawn: its end, cancellable, is all.
                let resume = Event::Resume { job: kid };
                let timer = events.schedule_cancellable_in(*ns, self.other, resume);
                self.jobs[kid as usize].timer = timer;
                Flow::Wait
            }
            Some(Step::Delay(duration)) => self.delay_step(kid, duration, "working", now, events),
            Some(Step::Request {
                server,
                instance,
                timeout,
            }) if self.steer.is_none() => {
                self.request_step(kid, server, instance, timeout, now, events)
            }
            _ => Flow::Here,
        };
        if self.error.is_some() {
            // Placed as `steps_until_blocked` places it: at the step that set it.
            let kid_state = &self.jobs[kid as usize];
            self.error_at
                .get_or_insert((kid_state.group, kid_state.step));
        } else if flow != Flow::Wait {
            *acted = self.steps_until_blocked(kid, *acted, events);
        }
    }

    /// Copies what job `from` read, took, looked up and got back into `to`'s rows; with
    /// `only_known`, only what `from` knows (a branch that came through tells its parent what
    /// it found, and leaves alone what it never looked at). Nothing, at once, when a job
    /// has no rows.
    #[inline(always)]
    fn copy_rows(&mut self, from: u32, to: u32, only_known: bool) {
        if self.job_rows {
            self.copy_some_rows(from, to, only_known);
        }
    }

    /// [`Sim::copy_rows`]'s work, when there are rows.
    fn copy_some_rows(&mut self, from: u32, to: u32, only_known: bool) {
        let (from, to) = (from as usize, to as usize);
        let tables = &mut self.tables;
        let register_count = self.registers.len();
        for register in 0..register_count {
            let read = tables.reads[from * register_count + register];
            if !only_known || !read.is_nan() {
                tables.reads[to * register_count + register] = read;
            }
        }
        let queue_count = self.queues.len();
        for queue in 0..queue_count {
            let taken = tables.taken[from * queue_count + queue];
            if !only_known || taken != Taken::NONE {
                tables.taken[to * queue_count + queue] = taken;
            }
        }
        let store_count = self.keys.len();
        for store in 0..store_count {
            let stored = tables.stored[from * store_count + store];
            if !only_known || !stored.is_nan() {
                tables.stored[to * store_count + store] = stored;
            }
        }
        if self.calls {
            let reply = tables.replies[from];
            if !only_known || !reply.is_nan() {
                tables.replies[to] = reply;
            }
        }
    }

    /// Branch `kid` ended: it came through (`ok`) or failed. Its parent's join may be met
    /// now (or be out of reach): then the branches still running are cancelled and the
    /// parent goes on, in this event, as soon as this branch's steps stop (`Sim::joined`).
    pub(super) fn branch_end(&mut self, kid: u32, ok: bool, events: &mut EventQueue<Event>) {
        self.end_branch(kid, ok, events);
    }

    /// [`Sim::branch_end`]'s work, inlined into [`Sim::came_through`] (a hedge's every join).
    #[inline(always)]
    fn end_branch(&mut self, kid: u32, ok: bool, events: &mut EventQueue<Event>) {
        let kid_state = &self.jobs[kid as usize];
        let (parent, branch) = (kid_state.parent, kid_state.branch);
        let lock_count = self.locks.len();
        let (parent_index, kid_index) = (parent as usize, kid as usize);
        for lock in 0..lock_count {
            let token = std::mem::take(&mut self.tables.tokens[kid_index * lock_count + lock]);
            if token != 0 {
                self.tables.tokens[parent_index * lock_count + lock] = token;
            }
        }
        if ok {
            self.copy_rows(kid, parent, true);
        }
        self.free_job(kid);
        self.branch_done(parent, branch, ok, events);
    }

    /// Branch `branch` of job `parent`'s `parallel` came through (`ok`) or failed, its job
    /// (if it had one) already done with: the join is met, out of reach or still waited
    /// for; when it is decided, the branches still running are cancelled
    /// (`Sim::joined` names the parent).
    #[inline(always)]
    fn branch_done(&mut self, parent: u32, branch: u8, ok: bool, events: &mut EventQueue<Event>) {
        let parent_index = parent as usize;
        let row = parent_index * self.fan;
        self.tables.kids[row + usize::from(branch) - 1] = NO_JOB;
        let parent_state = &mut self.jobs[parent_index];
        debug_assert!(matches!(
            self.point.groups[parent_state.group as usize].steps[parent_state.step as usize],
            Step::Fork { .. }
        ));
        parent_state.running -= 1;
        if ok {
            parent_state.joined += 1;
            if parent_state.winner == 0 {
                parent_state.winner = branch;
            }
        } else {
            parent_state.failed += 1;
        }
        // Every branch is running, came through or failed: the join is out of reach when
        // those running and those through are fewer than it needs.
        let (running, need) = (parent_state.running, parent_state.need);
        parent_state.outcome = if parent_state.joined >= need {
            JOINED
        } else if running + parent_state.joined < need {
            FAILED
        } else {
            return;
        };
        parent_state.running = 0;
        let withdraw = parent_state.withdraw;
        // The branches still running, in order: they are the first `running` of the
        // parallel's row still set (a place past its branches may hold an old self's).
        let mut left = running;
        let mut other = row;
        while left > 0 {
            debug_assert!(other < row + self.fan);
            let kid = std::mem::replace(&mut self.tables.kids[other], NO_JOB);
            if kid != NO_JOB {
                self.cancel_at(other, kid, withdraw, events);
                left -= 1;
            }
            other += 1;
        }
        self.joined = Some(parent);
    }

    /// Branch `kid`, woken at its end (not explored), comes through, and the job of its
    /// `parallel` goes on at once if that met the join: what [`Sim::go`] does, without a
    /// turn of the interpreter's loop for the one step.
    pub(super) fn came_through(&mut self, kid: u32, events: &mut EventQueue<Event>) {
        let kid_state = &self.jobs[kid as usize];
        if kid_state.cancelled
            || kid_state.incarnation != self.actors[kid_state.actor as usize].incarnation
        {
            // Not a branch that goes on: the loop frees it.
            return self.go(kid, events);
        }
        self.end_branch(kid, true, events);
        let joined = self.joined.take();
        if self.error.is_some() {
            let kid_state = &self.jobs[kid as usize];
            self.error_at
                .get_or_insert((kid_state.group, kid_state.step));
            return;
        }
        if let Some(parent) = joined {
            self.jobs[parent as usize].step += 1;
            self.go(parent, events);
        }
    }

    /// Branch `kid`'s request started its service at `now`: at a tied `parallel`, every
    /// other branch still running is cancelled (withdrawn) at once.
    pub(super) fn started_service(&mut self, kid: u32, events: &mut EventQueue<Event>) {
        let parent = self.jobs[kid as usize].parent;
        let parent_state = &self.jobs[parent as usize];
        let point = self.point;
        let Some(Step::Fork {
            starts, tied: true, ..
        }) = point.groups[parent_state.group as usize]
            .steps
            .get(parent_state.step as usize)
        else {
            return;
        };
        let parent_index = parent as usize;
        // Only a branch of the fork under way (not one of an old self's, after a crash
        // whose restart reused the job) ties its siblings.
        if !(0..starts.len()).any(|b| self.tables.kids[parent_index * self.fan + b] == kid) {
            return;
        }
        for branch in 0..starts.len() {
            let other = self.tables.kids[parent_index * self.fan + branch];
            if other != NO_JOB && other != kid {
                let place = parent_index * self.fan + branch;
                self.tables.kids[place] = NO_JOB;
                let parent_state = &mut self.jobs[parent_index];
                parent_state.running -= 1;
                parent_state.failed += 1;
                self.cancel_at(place, other, true, events);
            }
        }
    }

    /// The branch at `place` of a row of kids, `kid` (taken out of the row), is cancelled:
    /// a `DEFERRED` one's delay is taken out of the queue (none is scheduled yet when the
    /// join was met before its turn at the fork), and no job was ever made for it.
    #[inline(always)]
    fn cancel_at(
        &mut self,
        place: usize,
        kid: u32,
        withdraw: bool,
        events: &mut EventQueue<Event>,
    ) {
        if kid == DEFERRED {
            let ticket = std::mem::replace(&mut self.tables.deferred[place], Ticket::NONE);
            events.cancel(ticket);
        } else if kid == INLINE {
            // Its request, in the parent's name, is left as a branch's would be.
            let parent = (place / self.fan) as u32;
            self.leave_server(parent, withdraw, events.now());
        } else {
            self.cancel(kid, withdraw, events);
        }
    }

    /// Branch `kid` is cancelled at its parent's join. Inlined for the hedge's common case,
    /// a branch in a delay whose end the queue can take out (`Sim::delay_step`): it waits
    /// for nothing else, holds no lock (there is none) and draws no mark (a timer is set
    /// only when no timeline is drawn). Its end is taken out and the branch done at once;
    /// the run still ends no earlier than that end would have come
    /// (`EventQueue::cancelled_until`).
    #[inline(always)]
    fn cancel(&mut self, kid: u32, withdraw: bool, events: &mut EventQueue<Event>) {
        let job_state = &mut self.jobs[kid as usize];
        if job_state.timer != Ticket::NONE && self.locks.is_empty() {
            debug_assert!(
                job_state.waiting == u16::MAX
                    && job_state.taking == u16::MAX
                    && job_state.calling == u16::MAX
                    && job_state.serving == NO_SERVER
                    && job_state.answering == u16::MAX
                    && self.lanes.is_none()
            );
            job_state.cancelled = true;
            job_state.deadline = NONE;
            let timer = std::mem::replace(&mut job_state.timer, Ticket::NONE);
            if events.cancel(timer) {
                self.free_job(kid);
            }
            return;
        }
        self.cancel_waiting(kid, withdraw, events);
    }

    /// [`Sim::cancel`] of a branch in any other wait (or holding locks).
    #[inline(never)]
    fn cancel_waiting(&mut self, kid: u32, withdraw: bool, events: &mut EventQueue<Event>) {
        let now = events.now();
        let lock_count = self.locks.len();
        for lock in 0..lock_count {
            if self.tables.tokens[kid as usize * lock_count + lock] != 0 {
                self.release(kid, lock, now);
            }
        }
        self.mark(kid, "cancelled", now);
        let job_state = &mut self.jobs[kid as usize];
        job_state.cancelled = true;
        // A timer still due for it finds nothing to end.
        job_state.deadline = NONE;
        let from = job_state.step_started;
        let gone = if job_state.waiting != u16::MAX {
            // Its entry in the lock's queue is stale from now on. A wait given up, as one a
            // timeout ends: counted in the lock's waits and its actor's.
            let lock = job_state.waiting as usize;
            job_state.waiting = u16::MAX;
            job_state.wait = job_state.wait.wrapping_add(1);
            self.gave_up_wait(kid, lock, now - from);
            self.span(kid, "waiting", from, Some(now));
            true
        } else if job_state.taking != u16::MAX {
            job_state.taking = u16::MAX;
            job_state.wait = job_state.wait.wrapping_add(1);
            if now > from {
                self.span(kid, "waiting", from, Some(now));
            }
            true
        } else if job_state.calling != u16::MAX {
            // A reply that comes now finds nobody waiting.
            job_state.calling = u16::MAX;
            job_state.wait = job_state.wait.wrapping_add(1);
            self.span(kid, "waiting", from, Some(now));
            true
        } else if job_state.serving == LOST {
            job_state.serving = NO_SERVER;
            true
        } else if job_state.serving != NO_SERVER {
            self.leave_server(kid, withdraw, now);
            true
        } else if job_state.timer != Ticket::NONE && job_state.answering == u16::MAX {
            // In a delay whose end the queue can take out, holding a lock: as above.
            let timer = std::mem::replace(&mut job_state.timer, Ticket::NONE);
            events.cancel(timer)
        } else {
            if job_state.answering != u16::MAX {
                // Its reply is crossing back: counted late when it lands.
                self.span(kid, "waiting", from, Some(now));
            }
            // Its wake-up is an event already due (a delay's end, a write's landing, a
            // crossing, a poll) or its turn in the ready queue: it is freed then.
            false
        };
        if gone {
            self.free_job(kid);
        }
    }

    /// Job `job`'s request at a server is left behind at a join (withdrawn from the queue
    /// with `withdraw` while still queued; once in service it runs to its end, wasted):
    /// its departure no longer reaches the job.
    fn leave_server(&mut self, job: u32, withdraw: bool, now: Nanos) {
        let job_state = &mut self.jobs[job as usize];
        let server = job_state.serving as usize;
        let from = job_state.step_started;
        job_state.serving = NO_SERVER;
        job_state.wait = job_state.wait.wrapping_add(1);
        let queued = !job_state.in_service;
        job_state.in_service = false;
        if queued && self.entities {
            // It leaves while queued: its queueing so far is a wait still, as a
            // timed-out request's is.
            let actor = &mut self.actors[job_state.actor as usize];
            actor.server_wait = Some(actor.server_wait.unwrap_or(0) + (now - from));
        }
        let tag = self.jobs[job as usize].slot;
        let instance = self.slots[tag as usize].instance;
        if self.servers[server].cancel(instance, tag, withdraw && queued, now) {
            self.free_slots.push(tag);
        }
        let kind = if queued { "waiting" } else { "served" };
        self.span(job, kind, from, Some(now));
    }
}
