//! The job pool: a repetition (or a `parallel` branch) takes a free job or a new one, and
//! gives it back when done. In an explored run each actor has its own slot, taken first,
//! so that the order the actors started and ended in does not number their jobs, and a
//! slot is only ever taken again by the actor it was made for.

use sim_core::Ticket;

use crate::machine::queue::Taken;
use crate::run::state::{Job, NO_JOB, Sim};

impl Sim<'_> {
    /// A job for `job`, its rows of the tables blank: a free one, or a new one.
    #[inline(always)]
    pub(crate) fn alloc(&mut self, job: Job) -> u32 {
        let actor = job.actor;
        let index = self.alloc_job(job);
        if let Some(recorder) = &mut self.lanes {
            recorder.start(index, actor, self.now);
        }
        index
    }

    /// A job for `job` in a run not explored, with no timeline drawn, where jobs have no
    /// rows and there is no lock: what [`Sim::alloc`] does, with nothing to blank or draw
    /// (a `parallel`'s branches, made at every fork).
    #[inline(always)]
    pub(crate) fn alloc_plain(&mut self, job: Job) -> u32 {
        debug_assert!(self.steer.is_none() && self.lanes.is_none());
        debug_assert!(!self.job_rows && self.locks.is_empty());
        match self.free_jobs.pop() {
            Some(reused) => {
                self.reuse(reused, job);
                reused
            }
            None => self.alloc_job(job),
        }
    }

    /// Free job `reused` becomes `job`: copied whole, then its wait moved on and its
    /// timers' count kept (a field-by-field build cost a store a field): an event left for
    /// the slot's last job (a timer, a queue's entry) is then stale for the new one.
    #[inline(always)]
    fn reuse(&mut self, reused: u32, job: Job) {
        let slot = &mut self.jobs[reused as usize];
        debug_assert!(
            self.steer.is_none() || slot.actor == job.actor,
            "an explored run's slot stays its actor's"
        );
        let (wait, armed) = (slot.wait.wrapping_add(1), slot.armed);
        *slot = job;
        slot.wait = wait;
        slot.armed = armed;
    }

    /// A job that is done goes back to the pool (its sub-row on the timeline is free). In an
    /// explored run its rows of the tables are blanked at once (what it read is no state
    /// any more: two executions that read differently before it ended meet).
    #[inline(always)]
    pub(crate) fn free_job(&mut self, job: u32) {
        if let Some(recorder) = &mut self.lanes {
            recorder.end(job, self.jobs[job as usize].actor, self.now);
        }
        if self.steer.is_some() {
            self.blank_rows(job as usize);
        }
        self.free_jobs.push(job);
    }

    /// An explored run's jobs: one slot per actor, made free at the start, so that an
    /// actor's job takes its own slot ([`Sim::alloc_job`]) and two executions that started
    /// and ended the actors' jobs in other orders number them alike.
    pub(crate) fn reserve_actor_slots(&mut self) {
        for actor in 0..self.actors.len() as u32 {
            let group = self.actors[actor as usize].group;
            self.alloc_job(Job::idle(actor, group));
        }
        self.free_jobs = (0..self.actors.len() as u32).collect();
    }

    /// Job `job`'s rows of the tables, blank (none to blank, at once, when jobs have no
    /// rows and there is no lock).
    #[inline(always)]
    fn blank_rows(&mut self, job: usize) {
        if !self.job_rows && self.locks.is_empty() {
            return;
        }
        let (register_count, lock_count) = (self.registers.len(), self.locks.len());
        let (queue_count, store_count) = (self.queues.len(), self.keys.len());
        // Skipped when empty: a fill of nothing is still a call to memset, per job.
        if register_count > 0 {
            self.tables.reads[job * register_count..(job + 1) * register_count].fill(f64::NAN);
        }
        if lock_count > 0 {
            self.tables.tokens[job * lock_count..(job + 1) * lock_count].fill(0);
        }
        if queue_count > 0 {
            self.tables.taken[job * queue_count..(job + 1) * queue_count].fill(Taken::NONE);
        }
        if store_count > 0 {
            self.tables.stored[job * store_count..(job + 1) * store_count].fill(f64::NAN);
        }
        if self.calls {
            self.tables.replies[job] = f64::NAN;
        }
    }

    /// A job for `job` from the pool or a new one, its rows of the tables blank (in an
    /// explored run, the actor's own slot first: [`own_or_lowest`]).
    #[inline(always)]
    fn alloc_job(&mut self, job: Job) -> u32 {
        let (register_count, lock_count) = (self.registers.len(), self.locks.len());
        let (queue_count, store_count) = (self.queues.len(), self.keys.len());
        let reused = if self.steer.is_some() {
            own_or_lowest(&mut self.free_jobs, &self.jobs, job.actor)
        } else {
            self.free_jobs.pop()
        };
        if let Some(reused) = reused {
            self.reuse(reused, job);
            self.blank_rows(reused as usize);
            reused
        } else {
            self.jobs.push(job);
            self.tables
                .reads
                .extend(std::iter::repeat_n(f64::NAN, register_count));
            self.tables
                .tokens
                .extend(std::iter::repeat_n(0, lock_count));
            self.tables
                .taken
                .extend(std::iter::repeat_n(Taken::NONE, queue_count));
            self.tables
                .stored
                .extend(std::iter::repeat_n(f64::NAN, store_count));
            let fan = self.fan;
            self.tables.kids.extend(std::iter::repeat_n(NO_JOB, fan));
            (self.tables.deferred).extend(std::iter::repeat_n(Ticket::NONE, fan));
            if self.calls {
                self.tables.replies.push(f64::NAN);
            }
            (self.jobs.len() - 1) as u32
        }
    }
}

/// An explored run's free job for `actor`: its own slot when free (slot `actor`, made by
/// [`Sim::reserve_actor_slots`]), else the lowest free slot that was `actor`'s before (else
/// none: a new one). A choice that depends on the set of free slots alone, not on the order
/// they were freed in, so a fingerprint may hash the set. A slot stays the actor's it was
/// made for: a timer left in it by an ended wait is owned by its slot's actor
/// (`Sim::owner`), and another actor's job taking the slot would move that timer into its
/// own order of events by an insertion number no fingerprint hashes.
fn own_or_lowest(free: &mut Vec<u32>, jobs: &[Job], actor: u32) -> Option<u32> {
    let at = free.iter().position(|&slot| slot == actor).or_else(|| {
        (0..free.len())
            .filter(|&index| jobs[free[index] as usize].actor == actor)
            .min_by_key(|&index| free[index])
    })?;
    Some(free.swap_remove(at))
}
