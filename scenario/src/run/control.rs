//! Control steps: crashes, branches, what follows a timeout, and the end of a repetition.

use sim_core::{EventQueue, Nanos, chance};

use crate::point::{Condition, CrashRule, Duration, Pace, Then};
use crate::run::handle::Flow;
use crate::run::state::{DrawKind, Event, NO_JOB, Outcome, Sim};

impl<'p> Sim<'p> {
    /// A crash step: whether the actor dies by its rule; a dead actor's repetition is rolled
    /// back, and it restarts (with a repetition left) or stays down.
    pub(super) fn crash_step(
        &mut self,
        job: u32,
        rule: &CrashRule,
        restart: &Option<Duration>,
        now: Nanos,
        events: &mut EventQueue<Event>,
    ) -> Flow {
        let point = self.point;
        let actor_index = self.jobs[job as usize].actor as usize;
        let group = self.jobs[job as usize].group as usize;
        let actor = &mut self.actors[actor_index];
        let dies = match rule {
            CrashRule::All => true,
            CrashRule::First(first) => u64::from(actor.index) < *first,
            CrashRule::Names(names) => {
                let name = point.groups[group].actor_name(actor.index);
                names.contains(&name)
            }
            CrashRule::Probability(probability, named) => {
                let stream = match named {
                    None => actor.crash_stream as usize,
                    Some(named) => self.group_streams[group][*named as usize] as usize,
                };
                self.decide(*probability, DrawKind::Crash, |sim| {
                    chance(&mut sim.streams[stream], *probability)
                })
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
        let actor = &mut self.actors[actor_index];
        // Every repetition of its old self still under way ends too.
        actor.incarnation = actor.incarnation.wrapping_add(1);
        self.groups[group].crashed += 1;
        let more = point.groups[group].more_after(actor.started);
        match restart {
            // A restart only when the actor has a repetition left to run.
            Some(restart_after) if more => self.restart(job, restart_after, events),
            _ => {
                // Down for good: its row ends here (not the makespan).
                self.actors[actor_index].crashed = true;
                self.actors[actor_index].end = Some(now);
                // It holds what it held: a crashed holder's lock stays taken.
                self.free_job(job);
            }
        }
        Flow::Wait
    }

    /// An `if`: on to its `then` steps (the next), or to `otherwise`. Inlined into the
    /// interpreter's loop, as the steps of `deliver` are.
    #[inline(always)]
    pub(super) fn branch_step(&mut self, job: u32, condition: &Condition, otherwise: u32) -> Flow {
        let holds = self.holds(job, condition);
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
        events: &mut EventQueue<Event>,
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
                self.retry(job, backoff, jitter, events);
                Flow::Wait
            }
            _ => self.end_now(job, Outcome::GaveUp, events),
        }
    }

    /// Ends the repetition: a closed loop's next one goes on here, from step 0.
    #[inline]
    pub(super) fn end_now(
        &mut self,
        job: u32,
        outcome: Outcome,
        events: &mut EventQueue<Event>,
    ) -> Flow {
        if self.jobs[job as usize].parent != NO_JOB {
            // A branch's end (an `end` step, a timeout that gives up): the branch ends,
            // not the repetition.
            self.branch_end(job, outcome == Outcome::Completed, events);
            return Flow::Wait;
        }
        if self.end_repetition(job, outcome, events.now()) {
            Flow::Here
        } else {
            Flow::Wait
        }
    }

    /// Counts the job's repetition as completed at `now`.
    #[inline(always)]
    pub(super) fn completed_at(&mut self, job: u32, now: Nanos) {
        let job_state = &self.jobs[job as usize];
        let (actor_index, group_index) = (job_state.actor as usize, job_state.group as usize);
        let took = now - job_state.started;
        let actor = &mut self.actors[actor_index];
        actor.completed += 1;
        // Events run in time order: `now` is the latest end so far.
        actor.end = Some(now);
        self.last_end = Some(now);
        let group = &mut self.groups[group_index];
        group.completed += 1;
        if group.alias.is_none() {
            group.responses.record(took);
        }
        self.mark(job, "done", now);
    }

    /// Ends the job's repetition; true when the same job goes on with the next one (a closed
    /// loop), from step 0.
    pub(crate) fn end_repetition(&mut self, job: u32, outcome: Outcome, now: Nanos) -> bool {
        let job_state = &self.jobs[job as usize];
        let (actor_index, group_index) = (job_state.actor as usize, job_state.group as usize);
        match outcome {
            Outcome::Completed => self.completed_at(job, now),
            Outcome::GaveUp => {
                self.actors[actor_index].gave_up += 1;
                self.actors[actor_index].end = Some(now);
                self.last_end = Some(now);
                self.groups[group_index].gave_up += 1;
                self.mark(job, "gave_up", now);
            }
        }
        let actor = &mut self.actors[actor_index];
        let group = &self.point.groups[group_index];
        if matches!(group.pace, Pace::Closed) && group.more_after(actor.started) && !actor.stopped {
            actor.started += 1;
            self.groups[group_index].started += 1;
            let job_state = &mut self.jobs[job as usize];
            job_state.repetition += 1;
            job_state.step = 0;
            job_state.started = now;
            job_state.retries = 0;
            job_state.attempt = 1;
            job_state.outcome = 0;
            // What it read was the last repetition's: a write of this one overwrites no
            // update it saw unless it reads again (a blind write is no lost update).
            let register_count = self.registers.len();
            if register_count > 0 {
                let job_index = job as usize;
                self.tables.reads[job_index * register_count..(job_index + 1) * register_count]
                    .fill(f64::NAN);
            }
            return true;
        }
        self.free_job(job);
        false
    }
}
