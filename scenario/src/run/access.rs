//! Register steps: reads, writes and their landings (lost updates, fencing, compare-and-set
//! conflicts), and delays.

use sim_core::{Class, EventQueue, Nanos};

use crate::machine::register::{Fence, Landing};
use crate::point::{Duration, Pace, Step, Tie, eval_run};
use crate::run::handle::Flow;
use crate::run::recover::{APPLIED, REJECTED};
use crate::run::state::{Event, NO_JOB, Outcome, Sim, Told, Undo};

impl<'p> Sim<'p> {
    /// A read of `register`: its snapshot now, then `read_ms` before the next step.
    #[inline]
    pub(super) fn read_step(
        &mut self,
        job: u32,
        register: usize,
        now: Nanos,
        events: &mut EventQueue<Event>,
    ) -> Flow {
        let job_index = job as usize;
        let as_of_start =
            self.point.tie == Tie::ReadsFirst && self.jobs[job_index].handed_at != now;
        self.tables.reads[job_index * self.registers.len() + register] =
            self.registers[register].read(now, as_of_start);
        let duration = self.point.registers[register].read_ns;
        if duration > 0 {
            self.span(job, "reading", now, Some(now + duration));
            events.schedule_in(duration, self.other, Event::Resume { job });
            return Flow::Wait;
        }
        Flow::Next
    }

    /// A write into `register`: it lands after `write_ms` (or now).
    #[inline]
    pub(super) fn write_step(
        &mut self,
        job: u32,
        register: u16,
        now: Nanos,
        events: &mut EventQueue<Event>,
    ) -> Flow {
        let register_index = register as usize;
        let duration = self.point.registers[register_index].write_ns;
        if self.transaction.job == Some(job) {
            self.transaction
                .undo
                .push(Undo::Register(register, self.registers[register_index]));
        }
        if duration > 0 {
            self.span(job, "writing", now, Some(now + duration));
            let class = self.landing_class(job);
            events.schedule_in(duration, class, Event::Land { job });
            return Flow::Wait;
        }
        self.land(job, events)
    }

    /// A delay or a pause (drawn as `kind`). It always yields, even of 0 ms: the actor goes
    /// on in a new event, after the events already scheduled for that instant (SimPy's
    /// `timeout(0)`).
    #[inline]
    pub(super) fn delay_step(
        &mut self,
        job: u32,
        duration: &Duration,
        kind: &'static str,
        now: Nanos,
        events: &mut EventQueue<Event>,
    ) -> Flow {
        // A fixed duration told here: a branch's hedging delay is one, at every fork.
        let duration = match duration {
            Duration::Fixed(ns) => Ok(*ns),
            computed => self.duration(computed, job),
        };
        match duration {
            Ok(duration) => {
                if duration > 0 && self.lanes.is_some() {
                    self.span(job, kind, now, Some(now + duration));
                }
                // A trace names a pause as a step of its own (a delay is the work between).
                if let Some(steer) = &mut self.steer
                    && steer.tell
                    && kind == "paused"
                {
                    steer.told.push(Told::Pause { job, ns: duration });
                }
                let resume = Event::Resume { job };
                if self.jobs[job as usize].parent != NO_JOB
                    && self.steer.is_none()
                    && self.lanes.is_none()
                {
                    // A branch's delay, which a cancel at its join may cut short: its end
                    // can be taken out of the queue then, and the branch freed at once
                    // (`Sim::cancel`). Not explored (an explorer's states hold every
                    // pending event) nor drawn (a lane ends at the branch's last event).
                    let timer = events.schedule_cancellable_in(duration, self.other, resume);
                    self.jobs[job as usize].timer = timer;
                } else {
                    events.schedule_in(duration, self.other, resume);
                }
            }
            Err(message) => {
                self.error.get_or_insert(message);
            }
        }
        Flow::Wait
    }

    /// The class of a write landing, by `tie_order`.
    pub(super) fn landing_class(&self, job: u32) -> Class {
        match self.point.tie {
            Tie::Fifo => self.other,
            Tie::WritesFirst => 0,
            Tie::ReadsFirst => self.other + 1,
            Tie::ProgramOrder => {
                // Early when the actor reads again at the same instant (its next step, or
                // the first of its next repetition in a closed loop).
                let job_state = &self.jobs[job as usize];
                let actor = &self.actors[job_state.actor as usize];
                let group = &self.point.groups[actor.group as usize];
                let next = job_state.step as usize + 1;
                let reads_next = match group.steps.get(next) {
                    Some(step) => matches!(step, Step::Read(_)),
                    None => {
                        matches!(group.pace, Pace::Closed)
                            && group.more_after(actor.started)
                            && matches!(group.steps[0], Step::Read(_))
                    }
                };
                if reads_next { 0 } else { self.other + 1 }
            }
        }
    }

    /// Lands the job's write: whether the job goes on past it, goes on at once from the
    /// step it was moved to (a compare-and-set conflict gave up, and its closed loop starts
    /// the next repetition in this event), or waits.
    pub(super) fn land(&mut self, job: u32, events: &mut EventQueue<Event>) -> Flow {
        let now = events.now();
        let job_index = job as usize;
        let actor = self.jobs[job_index].actor as usize;
        let point = self.point;
        let Step::Write {
            register,
            value,
            cas,
            max_retries,
        } = &point.groups[self.jobs[job_index].group as usize].steps
            [self.jobs[job_index].step as usize]
        else {
            self.error
                .get_or_insert_with(|| "internal: a landing at a step that is not a write".into());
            return Flow::Wait;
        };
        let register_index = *register as usize;
        let register_count = self.registers.len();
        let read = self.tables.reads[job_index * register_count + register_index];
        let new = eval_run(value, &point.params, &self.vars(job, read)).unwrap_or(f64::NAN);
        if !new.is_finite() {
            let what = format!(
                "a write's value into `{}`",
                point.registers[register_index].name
            );
            self.not_finite(job, &what, new);
            return Flow::Wait;
        }
        let fence = point.registers[register_index].fence.map(|lock| Fence {
            token: self.tables.tokens[job_index * self.locks.len() + lock as usize],
            checked: point.locks[lock as usize].fencing,
        });
        match self.registers[register_index].land(now, read, new, fence, *cas) {
            Landing::Applied { .. } => {
                self.jobs[job_index].outcome = APPLIED;
                Flow::Next
            }
            Landing::Fenced => {
                self.jobs[job_index].outcome = REJECTED;
                self.actors[actor].rejected += 1;
                self.mark(job, "rejected", now);
                Flow::Next
            }
            Landing::Conflict => {
                self.actors[actor].rejected += 1;
                if self.conflict(job, *max_retries, events) {
                    Flow::Here
                } else {
                    Flow::Wait
                }
            }
        }
    }

    /// A compare-and-set write was rejected: the repetition starts again from its first
    /// step, as a new event, or gives up after `max_retries` rejections. True when the job
    /// goes on at once, in this event, with its next repetition (its caller runs it).
    pub(super) fn conflict(
        &mut self,
        job: u32,
        max_retries: u64,
        events: &mut EventQueue<Event>,
    ) -> bool {
        let now = events.now();
        let job_index = job as usize;
        let job_state = &mut self.jobs[job_index];
        job_state.retries += 1;
        if job_state.retries >= max_retries {
            // The actor goes on with its next repetition as after any landing: at once,
            // or after the instant's early writes (`writes_first`, `program_order`).
            if self.end_repetition(job, Outcome::GaveUp, now) {
                match self.point.tie {
                    Tie::Fifo | Tie::ReadsFirst => return true,
                    Tie::WritesFirst | Tie::ProgramOrder => {
                        self.jobs[job_index].step = u32::MAX;
                        events.schedule_in(0, self.other, Event::Resume { job });
                    }
                }
            }
        } else {
            let actor = self.jobs[job_index].actor as usize;
            self.actors[actor].retries += 1;
            let group = self.actors[actor].group as usize;
            self.groups[group].retries += 1;
            // The same repetition again, from its first step, as a new event.
            self.jobs[job_index].step = u32::MAX;
            events.schedule_in(0, self.other, Event::Resume { job });
        }
        false
    }
}
