//! Register steps: reads, writes and their landings (lost updates, fencing, compare-and-set
//! conflicts), and delays.

use sim_core::{Class, EventQueue, Nanos};

use crate::machine::register::{Fence, Landing};
use crate::point::{Dur, Pace, Step, Tie, eval_run};
use crate::run::handle::Flow;
use crate::run::recover::{APPLIED, REJECTED};
use crate::run::state::{Ev, Outcome, Sim, Undo};

impl<'p> Sim<'p> {
    /// A read of register `r`: its snapshot now, then `read_ms` before the next step.
    #[inline]
    pub(super) fn read_step(
        &mut self,
        job: u32,
        r: usize,
        now: Nanos,
        events: &mut EventQueue<Ev>,
    ) -> Flow {
        let j = job as usize;
        let as_of_start = self.point.tie == Tie::ReadsFirst && self.jobs[j].handed_at != now;
        self.tables.reads[j * self.registers.len() + r] = self.registers[r].read(now, as_of_start);
        let d = self.point.registers[r].read_ns;
        if d > 0 {
            self.span(job, "reading", now, Some(now + d));
            events.schedule_in(d, self.other, Ev::Resume { job });
            return Flow::Wait;
        }
        Flow::Next
    }

    /// A write into register `reg`: it lands after `write_ms` (or now).
    #[inline]
    pub(super) fn write_step(
        &mut self,
        job: u32,
        reg: u16,
        now: Nanos,
        events: &mut EventQueue<Ev>,
    ) -> Flow {
        let r = reg as usize;
        let d = self.point.registers[r].write_ns;
        if self.transaction.job == Some(job) {
            self.transaction
                .undo
                .push(Undo::Register(reg, self.registers[r]));
        }
        if d > 0 {
            self.span(job, "writing", now, Some(now + d));
            let class = self.landing_class(job);
            events.schedule_in(d, class, Ev::Land { job });
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
        d: &Dur,
        kind: &'static str,
        now: Nanos,
        events: &mut EventQueue<Ev>,
    ) -> Flow {
        match self.dur(d, job) {
            Ok(d) => {
                if d > 0 {
                    self.span(job, kind, now, Some(now + d));
                }
                events.schedule_in(d, self.other, Ev::Resume { job });
            }
            Err(e) => {
                self.error.get_or_insert(e);
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
                let j = &self.jobs[job as usize];
                let a = &self.actors[j.actor as usize];
                let group = &self.point.groups[a.group as usize];
                let next = j.step as usize + 1;
                let reads_next = match group.steps.get(next) {
                    Some(s) => matches!(s, Step::Read(_)),
                    None => {
                        matches!(group.pace, Pace::Closed)
                            && a.started < group.repeat
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
    pub(super) fn land(&mut self, job: u32, events: &mut EventQueue<Ev>) -> Flow {
        let now = events.now();
        let j = job as usize;
        let a = self.jobs[j].actor as usize;
        let p = self.point;
        let Step::Write {
            register,
            value,
            cas,
            max_retries,
        } = &p.groups[self.jobs[j].group as usize].steps[self.jobs[j].step as usize]
        else {
            self.error
                .get_or_insert_with(|| "internal: a landing at a step that is not a write".into());
            return Flow::Wait;
        };
        let r = *register as usize;
        let nr = self.registers.len();
        let read = self.tables.reads[j * nr + r];
        let new = eval_run(value, &p.params, &self.vars(job, read)).unwrap_or(f64::NAN);
        if !new.is_finite() {
            let what = format!("a write's value into `{}`", p.registers[r].name);
            self.not_finite(job, &what, new);
            return Flow::Wait;
        }
        let fence = p.registers[r].fence.map(|l| Fence {
            token: self.tables.tokens[j * self.locks.len() + l as usize],
            checked: p.locks[l as usize].fencing,
        });
        match self.registers[r].land(now, read, new, fence, *cas) {
            Landing::Applied { .. } => {
                self.jobs[j].outcome = APPLIED;
                Flow::Next
            }
            Landing::Fenced => {
                self.jobs[j].outcome = REJECTED;
                self.actors[a].rejected += 1;
                self.mark(job, "rejected", now);
                Flow::Next
            }
            Landing::Conflict => {
                self.actors[a].rejected += 1;
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
        events: &mut EventQueue<Ev>,
    ) -> bool {
        let now = events.now();
        let j = job as usize;
        let jb = &mut self.jobs[j];
        jb.retries += 1;
        if jb.retries >= max_retries {
            // The actor goes on with its next repetition as after any landing: at once,
            // or after the instant's early writes (`writes_first`, `program_order`).
            if self.end_rep(job, Outcome::GaveUp, now) {
                match self.point.tie {
                    Tie::Fifo | Tie::ReadsFirst => return true,
                    Tie::WritesFirst | Tie::ProgramOrder => {
                        self.jobs[j].step = u32::MAX;
                        events.schedule_in(0, self.other, Ev::Resume { job });
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
            events.schedule_in(0, self.other, Ev::Resume { job });
        }
        false
    }
}
