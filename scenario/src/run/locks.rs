//! Lock steps: acquire (polled, queued, leased; give-ups), release, renew, and the hand-over
//! of a queue lock to its next waiter.

use sim_core::{EventQueue, Nanos};

use crate::machine::lock::LockMode;
use crate::point::{Pick, Timeout};
use crate::run::handle::Flow;
use crate::run::recover::{ACQUIRED, LOST_LEASE, RENEWED};
use crate::run::state::{Ev, NONE, Sim};

impl<'p> Sim<'p> {
    /// An acquire: an attempt now, the give-up deadline computed once, as the wait starts
    /// (so `give_up_after_ms = "now + 10"` means 10 ms from the request).
    pub(super) fn acquire_step(
        &mut self,
        job: u32,
        lock: &Pick,
        timeout: &Option<Timeout>,
        now: Nanos,
        events: &mut EventQueue<Ev>,
    ) -> Flow {
        let j = job as usize;
        let Some(l) = self.pick(job, lock, self.locks.len()) else {
            return Flow::Wait;
        };
        let token = self.tables.tokens[j * self.locks.len() + l];
        if token != 0 && self.locks[l].is_holder(token) && self.locks[l].mode() != LockMode::Lease {
            // It would wait for itself, for good: say so instead.
            let (who, group) = self.who_and_group(job);
            let lock = &self.point.lock_names[l];
            self.error.get_or_insert(format!(
                "actor {who} of `{group}` acquires `{lock}` at {} ms, which it holds already (taken in an earlier repetition or attempt and never released): release it in the steps of the timeout that ended that attempt (`on_timeout = {{ steps = [{{ release = \"{lock}\" }}], … }}`), or before the repetition ends",
                sim_core::ns_to_ms(now),
            ));
            return Flow::Wait;
        }
        self.jobs[j].step_started = now;
        let deadline = match timeout {
            Some(t) => match self.deadline(job, t, now) {
                Some(d) => d,
                None => return Flow::Wait,
            },
            None => NONE,
        };
        self.jobs[j].deadline = deadline;
        Flow::next_if(self.attempt(job, l, events))
    }

    /// A release of a lock the repetition holds.
    pub(super) fn release_step(&mut self, job: u32, lock: &Pick, now: Nanos) -> Flow {
        let Some(l) = self.pick(job, lock, self.locks.len()) else {
            return Flow::Wait;
        };
        if self.tables.tokens[job as usize * self.locks.len() + l] == 0 {
            // A release that frees nothing is a mistake in the steps (a lock picked by the
            // wrong index, or one whose acquire timed out and went on): say so, rather than
            // leave the lock it meant taken.
            let (who, group) = self.who_and_group(job);
            self.error.get_or_insert(format!(
                "actor {who} of `{group}` releases `{}` at {} ms, which it does not hold (not taken in this repetition, or its acquire timed out and went on): release only a lock the repetition took",
                self.point.lock_names[l],
                sim_core::ns_to_ms(now),
            ));
            return Flow::Wait;
        }
        self.release(job, l, now);
        Flow::Next
    }

    /// A lease renewal: `renewed` while the record is still the actor's, else `lost`.
    pub(super) fn renew_step(&mut self, job: u32, lock: &Pick, now: Nanos) -> Flow {
        let Some(l) = self.pick(job, lock, self.locks.len()) else {
            return Flow::Wait;
        };
        let token = self.tables.tokens[job as usize * self.locks.len() + l];
        let kept = token != 0 && self.locks[l].renew(token, now);
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
    pub(super) fn attempt(&mut self, job: u32, l: usize, events: &mut EventQueue<Ev>) -> bool {
        let now = events.now();
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
                events.schedule_at(deadline, self.other, Ev::Timeout { job });
            }
            return false;
        }
        self.locks[l].fail();
        self.actors[self.jobs[j].actor as usize].failed += 1;
        self.mark(job, "attempt", now);
        if deadline != NONE && now > deadline {
            self.gave_up_wait(job, l, now - requested);
            self.span(job, "waiting", requested, Some(now));
            self.timed_out(job, events);
        } else {
            events.schedule_in(self.point.locks[l].poll_ns, self.other, Ev::Retry { job });
            self.jobs[j].polling = l as u16;
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

    /// `job` gave up its wait of `waited` for lock `l`: a wait for the lock and its actor.
    pub(super) fn gave_up_wait(&mut self, job: u32, l: usize, waited: Nanos) {
        self.locks[l].give_up_after(waited);
        let actor = &mut self.actors[self.jobs[job as usize].actor as usize];
        actor.lock_wait = Some(actor.lock_wait.unwrap_or(0) + waited);
    }

    /// `job` takes lock `l` at `now`.
    pub(super) fn acquire(&mut self, job: u32, l: usize, now: Nanos) {
        let j = &self.jobs[job as usize];
        self.last_taker[l] = (j.actor, j.incarnation);
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
        self.tables.tokens[job as usize * nl + l] = token;
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
    pub(super) fn release(&mut self, job: u32, l: usize, now: Nanos) {
        let nl = self.locks.len();
        let token = std::mem::take(&mut self.tables.tokens[job as usize * nl + l]);
        if token == 0 {
            return;
        }
        // Only its own record is deleted: a lease taken over is the new holder's.
        if self.locks[l].release(token, now) {
            self.hand_over(l, now);
        }
    }

    /// A queue lock that is free goes to its longest waiter, whose steps go on in this event.
    pub(super) fn hand_over(&mut self, l: usize, now: Nanos) {
        while let Some((job, wait)) = self.locks[l].next_waiter() {
            let j = &self.jobs[job as usize];
            // A waiter whose actor crashed since is no one to hand it to.
            let alive = j.incarnation == self.actors[j.actor as usize].incarnation;
            if j.wait == wait && j.waiting as usize == l && alive {
                self.acquire(job, l, now);
                self.ready.push_back(job);
                return;
            }
        }
    }
}
