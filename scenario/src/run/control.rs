//! Control steps: crashes, branches, what follows a timeout, and the end of a repetition.

use sim_core::{EventQueue, Nanos, chance};

use crate::point::{Cond, CrashRule, Dur, Pace, Then};
use crate::run::handle::Flow;
use crate::run::state::{Ev, NO_JOB, Outcome, Sim};

impl<'p> Sim<'p> {
    /// A crash step: whether the actor dies by its rule; a dead actor's repetition is rolled
    /// back, and it restarts (with a repetition left) or stays down.
    pub(super) fn crash_step(
        &mut self,
        job: u32,
        rule: &CrashRule,
        restart: &Option<Dur>,
        now: Nanos,
        q: &mut EventQueue<Ev>,
    ) -> Flow {
        let p = self.p;
        let a = self.jobs[job as usize].actor as usize;
        let group = self.jobs[job as usize].group as usize;
        let actor = &mut self.actors[a];
        let dies = match rule {
            CrashRule::All => true,
            CrashRule::First(n) => u64::from(actor.index) < *n,
            CrashRule::Names(names) => {
                let name = p.groups[group].actor_name(actor.index);
                names.contains(&name)
            }
            CrashRule::Probability(pr, named) => {
                let rng = match named {
                    None => actor.crash_rng as usize,
                    Some(s) => self.group_streams[group][*s as usize] as usize,
                };
                self.decide(*pr, true, |sim| chance(&mut sim.streams[rng], *pr))
            }
        };
        if !dies {
            return Flow::Next;
        }
        // A branch crashes its whole actor (an exploration's `crash_anywhere` at a branch's
        // step; a crash step is no branch's): the repetition is its parent's, and the
        // branch, whose wake-up this was, is done. The other branches die with the actor's
        // old self at their next wake-up.
        let parent = self.jobs[job as usize].parent;
        let job = if parent == NO_JOB {
            job
        } else {
            self.roll_back(job);
            self.free_job(job);
            parent
        };
        self.roll_back(job);
        self.mark(job, "crashed", now);
        let actor = &mut self.actors[a];
        // Every repetition of its old self still under way ends too.
        actor.incarnation = actor.incarnation.wrapping_add(1);
        self.groups[group].crashed += 1;
        let more = actor.started < p.groups[group].repeat;
        match restart {
            // A restart only when the actor has a repetition left to run.
            Some(d) if more => self.restart(job, d, q),
            _ => {
                // Down for good: its row ends here (not the makespan).
                self.actors[a].crashed = true;
                self.actors[a].end = Some(now);
                // It holds what it held: a crashed holder's lock stays taken.
                self.free_job(job);
            }
        }
        Flow::Wait
    }

    /// An `if`: on to its `then` steps (the next), or to `otherwise`.
    #[inline]
    pub(super) fn branch_step(&mut self, job: u32, cond: &Cond, otherwise: u32) -> Flow {
        let holds = self.holds(job, cond);
        if self.error.is_some() {
            // A condition that could not be told (a chance out of range).
            return Flow::Wait;
        }
        if holds {
            return Flow::Next;
        }
        self.jobs[job as usize].step = otherwise;
        Flow::Here
    }

    /// What follows a timeout's own steps: go on, retry the repetition, or give up.
    pub(super) fn after_timeout_step(
        &mut self,
        job: u32,
        then: &Then,
        now: Nanos,
        q: &mut EventQueue<Ev>,
    ) -> Flow {
        match then {
            Then::GoOn(to) => {
                self.jobs[job as usize].step = *to;
                Flow::Here
            }
            Then::Retry {
                max_attempts,
                backoff,
                jitter,
            } if self.jobs[job as usize].attempt < *max_attempts => {
                self.retry(job, backoff, jitter, q);
                Flow::Wait
            }
            _ => self.end_now(job, Outcome::GaveUp, now),
        }
    }

    /// Ends the repetition: a closed loop's next one goes on here, from step 0.
    #[inline]
    pub(super) fn end_now(&mut self, job: u32, outcome: Outcome, now: Nanos) -> Flow {
        if self.jobs[job as usize].parent != NO_JOB {
            // A branch's end (an `end` step, a timeout that gives up): the branch ends,
            // not the repetition.
            self.branch_end(job, outcome == Outcome::Completed, now);
            return Flow::Wait;
        }
        if self.end_rep(job, outcome, now) {
            Flow::Here
        } else {
            Flow::Wait
        }
    }

    /// Counts the job's repetition as completed at `now`.
    #[inline(always)]
    pub(super) fn completed_at(&mut self, job: u32, now: Nanos) {
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
        if matches!(group.pace, Pace::Closed) && actor.started < group.repeat && !actor.stopped {
            actor.started += 1;
            self.groups[g].started += 1;
            let j = &mut self.jobs[job as usize];
            j.rep += 1;
            j.step = 0;
            j.started = now;
            j.retries = 0;
            j.attempt = 1;
            j.outcome = 0;
            // What it read was the last repetition's: a write of this one overwrites no
            // update it saw unless it reads again (a blind write is no lost update).
            let nr = self.regs.len();
            if nr > 0 {
                let ju = job as usize;
                self.tables.reads[ju * nr..(ju + 1) * nr].fill(f64::NAN);
            }
            return true;
        }
        self.free_job(job);
        false
    }
}
