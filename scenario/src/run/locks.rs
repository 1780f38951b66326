//! Lock steps: acquire (polled, queued, leased; give-ups), release, renew, and the hand-over
//! of a queue lock to its next waiter.

use sim_core::{EventQueue, Nanos};

use crate::machine::lock::LockMode;
use crate::point::{Pick, Timeout};
use crate::run::handle::Flow;
use crate::run::recover::{ACQUIRED, LOST_LEASE, RENEWED};
use crate::run::state::{Event, NONE, Sim};

impl<'p> Sim<'p> {
    /// An acquire: an attempt now, the give-up deadline computed once, as the wait starts
    /// (so `give_up_after_ms = "now + 10"` means 10 ms from the request).
    pub(super) fn acquire_step(
        &mut self,
        job: u32,
        lock: &Pick,
        timeout: &Option<Timeout>,
        now: Nanos,
        events: &mut EventQueue<Event>,
    ) -> Flow {
        let job_index = job as usize;
        let Some(lock) = self.pick(job, lock, self.locks.len()) else {
            return Flow::Wait;
        };
        let token = self.tables.tokens[job_index * self.locks.len() + lock];
        if token != 0
            && self.locks[lock].is_holder(token)
            && self.locks[lock].mode() != LockMode::Lease
        {
            // It would wait for itself, for good: say so instead.
            let (who, group) = self.who_and_group(job);
            let lock_name = &self.point.lock_names[lock];
            self.error.get_or_insert(format!(
                "actor {who} of `{group}` acquires `{lock_name}` at {} ms, which it holds already (taken in an earlier repetition or attempt and never released): release it in the steps of the timeout that ended that attempt (`on_timeout = {{ steps = [{{ release = \"{lock_name}\" }}], … }}`), or before the repetition ends",
                sim_core::ns_to_ms(now),
            ));
            return Flow::Wait;
        }
        self.jobs[job_index].step_started = now;
        let deadline = match timeout {
            Some(timeout) => match self.deadline(job, timeout, now) {
                Some(deadline) => deadline,
                None => return Flow::Wait,
            },
            None => NONE,
        };
        self.jobs[job_index].deadline = deadline;
        Flow::next_if(self.attempt(job, lock, events))
    }

    /// A release of a lock the repetition holds.
    pub(super) fn release_step(&mut self, job: u32, lock: &Pick, now: Nanos) -> Flow {
        let Some(lock) = self.pick(job, lock, self.locks.len()) else {
            return Flow::Wait;
        };
        if self.tables.tokens[job as usize * self.locks.len() + lock] == 0 {
            // A release that frees nothing is a mistake in the steps (a lock picked by the
            // wrong index, or one whose acquire timed out and went on): say so, rather than
            // leave the lock it meant taken.
            let (who, group) = self.who_and_group(job);
            self.error.get_or_insert(format!(
                "actor {who} of `{group}` releases `{}` at {} ms, which it does not hold (not taken in this repetition, or its acquire timed out and went on): release only a lock the repetition took",
                self.point.lock_names[lock],
                sim_core::ns_to_ms(now),
            ));
            return Flow::Wait;
        }
        self.release(job, lock, now);
        Flow::Next
    }

    /// A lease renewal: `renewed` while the record is still the actor's, else `lost`.
    pub(super) fn renew_step(&mut self, job: u32, lock: &Pick, now: Nanos) -> Flow {
        let Some(lock) = self.pick(job, lock, self.locks.len()) else {
            return Flow::Wait;
        };
        let token = self.tables.tokens[job as usize * self.locks.len() + lock];
        let kept = token != 0 && self.locks[lock].renew(token, now);
        self.jobs[job as usize].outcome = if kept { RENEWED } else { LOST_LEASE };
        if !kept {
            self.mark(job, "lease_lost", now);
        }
        Flow::Next
    }

    /// The job's actor's index and its group's name, for a message.
    pub(super) fn who_and_group(&self, job: u32) -> (u32, &'p str) {
        let actor = &self.actors[self.jobs[job as usize].actor as usize];
        (actor.index, &self.point.groups[actor.group as usize].name)
    }

    /// One attempt on `lock`; true when taken.
    pub(super) fn attempt(
        &mut self,
        job: u32,
        lock: usize,
        events: &mut EventQueue<Event>,
    ) -> bool {
        let now = events.now();
        if self.locks[lock].is_free(now) {
            self.acquire(job, lock, now);
            return true;
        }
        let job_index = job as usize;
        // Computed when the wait started (`acquire_step`): NONE when it never gives up.
        let deadline = self.jobs[job_index].deadline;
        let requested = self.jobs[job_index].step_started;
        if self.locks[lock].mode() == LockMode::Queue {
            let job_state = &mut self.jobs[job_index];
            job_state.wait = job_state.wait.wrapping_add(1);
            job_state.waiting = lock as u16;
            self.locks[lock].enqueue((job, job_state.wait));
            if deadline != NONE {
                self.arm(job, deadline, events);
            }
            return false;
        }
        self.locks[lock].fail();
        self.actors[self.jobs[job_index].actor as usize].failed += 1;
        self.mark(job, "attempt", now);
        if deadline != NONE && now > deadline {
            self.gave_up_wait(job, lock, now - requested);
            self.span(job, "waiting", requested, Some(now));
            self.timed_out(job, events);
        } else {
            events.schedule_in(
                self.point.locks[lock].poll_ns,
                self.other,
                Event::Retry { job },
            );
            self.jobs[job_index].polling = lock as u16;
            self.polls.pending += 1;
            // Jobs readied in this event (a queue lock handed over) still run: not stuck.
            if events.len() == self.polls.pending
                && self.ready.is_empty()
                && now >= self.polls.unstuck_until
            {
                self.check_stuck(now);
            }
        }
        false
    }

    /// `job` gave up its wait of `waited` for `lock`: a wait for the lock and its actor.
    pub(super) fn gave_up_wait(&mut self, job: u32, lock: usize, waited: Nanos) {
        self.locks[lock].give_up_after(waited);
        let actor = &mut self.actors[self.jobs[job as usize].actor as usize];
        actor.lock_wait = Some(actor.lock_wait.unwrap_or(0) + waited);
    }

    /// `job` takes `lock` at `now`.
    pub(super) fn acquire(&mut self, job: u32, lock: usize, now: Nanos) {
        let job_state = &self.jobs[job as usize];
        self.last_taker[lock] = (job_state.actor, job_state.incarnation);
        let from = self.jobs[job as usize].step_started;
        let waited = now - from;
        // Drawn before the lock is its: what it held while it waited.
        if waited > 0 {
            self.span(job, "waiting", from, Some(now));
        }
        // Handed a lock released at this very instant: its reads see that instant's writes.
        let handed = self.locks[lock].released_at(now);
        let token = self.locks[lock].take(now, waited);
        let lock_count = self.locks.len();
        self.tables.tokens[job as usize * lock_count + lock] = token;
        let job_state = &mut self.jobs[job as usize];
        job_state.handed_at = if handed { now } else { NONE };
        job_state.waiting = u16::MAX;
        // Its give-up deadline is no more: a timer still due for it finds nothing to end.
        job_state.deadline = NONE;
        job_state.outcome = ACQUIRED;
        let actor = &mut self.actors[job_state.actor as usize];
        actor.lock_wait = Some(actor.lock_wait.unwrap_or(0) + waited);
    }

    /// `job` releases `lock` at `now`, if it holds it; a queue lock goes on to its next
    /// waiter.
    pub(super) fn release(&mut self, job: u32, lock: usize, now: Nanos) {
        let lock_count = self.locks.len();
        let token = std::mem::take(&mut self.tables.tokens[job as usize * lock_count + lock]);
        if token == 0 {
            return;
        }
        // Only its own record is deleted: a lease taken over is the new holder's.
        if self.locks[lock].release(token, now) {
            self.hand_over(lock, now);
        }
    }

    /// A queue lock that is free goes to its longest waiter, whose steps go on in this event.
    pub(super) fn hand_over(&mut self, lock: usize, now: Nanos) {
        while let Some((job, wait)) = self.locks[lock].next_waiter() {
            let job_state = &self.jobs[job as usize];
            // A waiter whose actor crashed since is no one to hand it to.
            let alive = job_state.incarnation == self.actors[job_state.actor as usize].incarnation;
            if job_state.wait == wait && job_state.waiting as usize == lock && alive {
                self.acquire(job, lock, now);
                self.ready.push_back(job);
                return;
            }
        }
    }
}
