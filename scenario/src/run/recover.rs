//! Failing and recovering: a wait's timeout and what follows it (its steps, then a retry
//! after a backoff with jitter, the repetition's end or the next step), an `if`'s
//! condition, a resource chosen during the run, and a crash followed by a restart.

use sim_core::{EventQueue, Nanos, ms_to_ns, unit};

use crate::point::{Condition, Duration, Pace, Pick, Step, Timeout};
use crate::run::state::{DrawKind, Event, NONE, Sim};
use crate::run::steer::Told;
use crate::syntax::spec::{Number, OUTCOMES};

/// The outcomes a step may end with, by their index in [`OUTCOMES`].
pub(crate) const ACQUIRED: u8 = 1;
pub(crate) const TIMED_OUT: u8 = 2;
pub(crate) const SERVED: u8 = 3;
pub(crate) const REFUSED: u8 = 4;
pub(crate) const APPLIED: u8 = 5;
pub(crate) const REJECTED: u8 = 6;
pub(crate) const RENEWED: u8 = 7;
pub(crate) const LOST_LEASE: u8 = 8;
pub(crate) const DELIVERED: u8 = 9;
pub(crate) const TAKEN: u8 = 10;
pub(crate) const PUT: u8 = 11;
pub(crate) const FULL: u8 = 12;
pub(crate) const ACKED: u8 = 13;
pub(crate) const EXPIRED: u8 = 14;
pub(crate) const INSERTED: u8 = 15;
pub(crate) const DUPLICATE: u8 = 16;
pub(crate) const FOUND: u8 = 17;
pub(crate) const MISSING: u8 = 18;
pub(crate) const REMOVED: u8 = 19;
pub(crate) const NOT_HELD: u8 = 20;
pub(crate) const JOINED: u8 = 21;
pub(crate) const FAILED: u8 = 22;
pub(crate) const REPLIED: u8 = 23;
/// A set stores its number: `applied`, as a write.
pub(crate) const SET: u8 = APPLIED;

const _: () = assert!(OUTCOMES.len() == 24);

impl Sim<'_> {
    /// The resource `pick` names for `job` now, among `count` of its kind; `None` (with the
    /// run's error) when an index is out of range.
    pub(crate) fn pick(&mut self, job: u32, pick: &Pick, count: usize) -> Option<usize> {
        match pick {
            Pick::One(resource) => Some(*resource as usize),
            Pick::OneOf(items, index) => {
                let chosen = self.eval(job, index);
                if chosen >= 0.0 && chosen.fract() == 0.0 && (chosen as usize) < items.len() {
                    let resource = items[chosen as usize] as usize;
                    debug_assert!(resource < count);
                    return Some(resource);
                }
                let actor = &self.actors[self.jobs[job as usize].actor as usize];
                self.error.get_or_insert(format!(
                    "actor {} of `{}`: a `one_of` index is {chosen}, not a whole number from 0 to {}",
                    actor.index,
                    self.point.groups[actor.group as usize].name,
                    items.len() - 1
                ));
                None
            }
        }
    }

    /// When a wait that starts at `now` times out (`NONE`: never); `None` with the run's
    /// error when its duration is not one.
    pub(crate) fn deadline(&mut self, job: u32, timeout: &Timeout, now: Nanos) -> Option<Nanos> {
        match &timeout.after {
            None => Some(NONE),
            Some(duration) => match self.duration(duration, job) {
                Ok(duration) => Some(now.saturating_add(duration)),
                Err(message) => {
                    self.error.get_or_insert(message);
                    None
                }
            },
        }
    }

    /// A timer for `job`'s wait at `deadline`: a `Timeout` that counts only while it is
    /// the job's latest (`Job::armed`).
    pub(crate) fn arm(&mut self, job: u32, deadline: Nanos, events: &mut EventQueue<Event>) {
        let job_state = &mut self.jobs[job as usize];
        job_state.armed = job_state.armed.wrapping_add(1);
        let armed = job_state.armed;
        events.schedule_at(deadline, self.other, Event::Timeout { job, armed });
    }

    /// `job`'s wait at its current step timed out: its outcome says so, and it goes on with
    /// the timeout's steps.
    pub(crate) fn timed_out(&mut self, job: u32, events: &mut EventQueue<Event>) {
        let now = events.now();
        let job_state = &mut self.jobs[job as usize];
        job_state.outcome = TIMED_OUT;
        job_state.deadline = NONE;
        let (actor, group) = (job_state.actor as usize, job_state.group as usize);
        let steps = &self.point.groups[group].steps;
        let handler = match &steps[job_state.step as usize] {
            Step::Acquire {
                timeout: Some(timeout),
                ..
            }
            | Step::Request {
                timeout: Some(timeout),
                ..
            }
            | Step::Send {
                timeout: Some(timeout),
                ..
            }
            | Step::Take {
                timeout: Some(timeout),
                ..
            }
            | Step::Call {
                timeout: Some(timeout),
                ..
            } => timeout.handler,
            _ => {
                self.error
                    .get_or_insert_with(|| "internal: a timeout at a step without one".into());
                return;
            }
        };
        job_state.step = handler;
        self.actors[actor].timeouts += 1;
        self.groups[group].timeouts += 1;
        // A timeout that gives up at once (`give_up_after_ms`, `then = "end"`, the last
        // attempt of a retry) is marked as the give-up alone, drawn at the same instant: one
        // mark would hide the other.
        // The timeout's own steps in between take no time when they only release.
        let attempt = self.jobs[job as usize].attempt;
        let then = steps[handler as usize..]
            .iter()
            .find(|s| !matches!(s, Step::Release(_)));
        let gives_up = match then {
            Some(Step::AfterTimeout(crate::point::Then::End)) => true,
            Some(Step::AfterTimeout(crate::point::Then::Retry { max_attempts, .. })) => {
                attempt >= *max_attempts
            }
            _ => false,
        };
        if !gives_up {
            self.mark(job, "timeout", now);
        }
        self.go(job, events);
    }

    /// The repetition starts again from its first step, after a backoff and a jitter drawn
    /// from the actor's stream `jitter/NAME-i`.
    pub(crate) fn retry(
        &mut self,
        job: u32,
        backoff: &Number,
        jitter: &Number,
        events: &mut EventQueue<Event>,
    ) {
        let now = events.now();
        let backoff_ms = self.eval(job, backoff);
        let spread = self.eval(job, jitter);
        let job_state = &self.jobs[job as usize];
        let actor_index = job_state.actor as usize;
        if spread != 0.0 && self.steer.is_some() {
            let actor = &self.actors[actor_index];
            self.error.get_or_insert(format!(
                "actor {} of `{}`: a retry's `jitter_ms` is {spread}: a jitter is a draw from a continuum, which an exploration cannot branch on (give `jitter_ms = 0` to explore)",
                actor.index, self.point.groups[actor.group as usize].name,
            ));
            return;
        }
        let drawn = if spread != 0.0 {
            let stream = self.actors[actor_index].jitter_stream as usize;
            unit(&mut self.streams[stream]) * spread
        } else {
            0.0
        };
        let Some(wait) = ms_to_ns(backoff_ms + drawn) else {
            let actor = &self.actors[actor_index];
            self.error.get_or_insert(format!(
                "actor {} of `{}`: a retry's backoff and jitter come to {} ms, not a duration (attempt {})",
                actor.index,
                self.point.groups[actor.group as usize].name,
                backoff_ms + drawn,
                job_state.attempt
            ));
            return;
        };
        let job_state = &mut self.jobs[job as usize];
        job_state.attempt += 1;
        job_state.step = u32::MAX;
        let group = job_state.group as usize;
        self.actors[actor_index].retries += 1;
        self.groups[group].retries += 1;
        if wait > 0 {
            self.span(job, "backoff", now, Some(now + wait));
        }
        self.mark(job, "retry", now + wait);
        events.schedule_in(wait, self.other, Event::Resume { job });
    }

    /// Whether an `if`'s condition holds for `job` now.
    pub(crate) fn holds(&mut self, job: u32, condition: &Condition) -> bool {
        match condition {
            Condition::Outcome(outcome) => self.jobs[job as usize].outcome == *outcome,
            Condition::Chance(probability, named) => {
                let probability = self.eval(job, probability);
                let actor_index = self.jobs[job as usize].actor as usize;
                if !(0.0..=1.0).contains(&probability) {
                    // An expression may leave [0, 1] at some k or parameter: say so, rather
                    // than take every branch one way.
                    let actor = &self.actors[actor_index];
                    self.error.get_or_insert(format!(
                        "actor {} of `{}`: an `if`'s `chance` comes to {probability}, not a probability in [0, 1]",
                        actor.index, self.point.groups[actor.group as usize].name,
                    ));
                    return false;
                }
                let stream = match named {
                    Some(named) => {
                        self.group_streams[self.jobs[job as usize].group as usize][*named as usize]
                            as usize
                    }
                    None => self.actors[actor_index].chance_stream as usize,
                };
                let drawn = self.steer.as_ref().map_or(0, |s| s.drawn.len());
                let taken = self.decide(probability, DrawKind::Chance, |sim| {
                    sim_core::chance(&mut sim.streams[stream], probability)
                });
                // A draw it made (a certain chance is none) is told as this job's.
                if let Some(steer) = self.steer.as_deref_mut()
                    && steer.tell
                    && steer.drawn.len() > drawn
                {
                    steer.told.push(Told::By {
                        index: drawn as u16,
                        job,
                    });
                }
                taken
            }
            Condition::Compare(left, comparison, right) => {
                let (left, right) = (self.operand(job, left), self.operand(job, right));
                comparison.holds(left, right)
            }
        }
    }

    /// The actor crashed and restarts after `restart_after`: it forgets what it read and the
    /// locks it held (they stay taken, by its old self), its repetition is lost, and its next
    /// one starts at the restart (a closed loop; an open loop's starts come on schedule).
    pub(crate) fn restart(
        &mut self,
        job: u32,
        restart_after: &Duration,
        events: &mut EventQueue<Event>,
    ) {
        let now = events.now();
        let restart_after = match self.duration(restart_after, job) {
            Ok(restart_after) => restart_after,
            Err(message) => {
                self.error.get_or_insert(message);
                return;
            }
        };
        let (register_count, lock_count) = (self.registers.len(), self.locks.len());
        let (queue_count, store_count) = (self.queues.len(), self.keys.len());
        let job_index = job as usize;
        self.tables.reads[job_index * register_count..(job_index + 1) * register_count]
            .fill(f64::NAN);
        self.tables.tokens[job_index * lock_count..(job_index + 1) * lock_count].fill(0);
        // What it took it forgets: unacknowledged, it comes back in its time.
        self.tables.taken[job_index * queue_count..(job_index + 1) * queue_count]
            .fill(crate::machine::queue::Taken::NONE);
        self.tables.stored[job_index * store_count..(job_index + 1) * store_count].fill(f64::NAN);
        let job_state = &self.jobs[job_index];
        let (actor_index, group_index) = (job_state.actor as usize, job_state.group as usize);
        // The restarted job is the actor's new self.
        self.jobs[job_index].incarnation = self.actors[actor_index].incarnation;
        self.actors[actor_index].restarts += 1;
        self.groups[group_index].restarts += 1;
        self.mark(job, "restarted", now + restart_after);
        if restart_after > 0 {
            self.span(job, "down", now, Some(now + restart_after));
        }
        let group = &self.point.groups[group_index];
        let actor = &mut self.actors[actor_index];
        if matches!(group.pace, Pace::Closed) && group.more_after(actor.started) {
            actor.started += 1;
            self.groups[group_index].started += 1;
            let job_state = &mut self.jobs[job_index];
            job_state.repetition += 1;
            job_state.step = u32::MAX;
            job_state.started = now + restart_after;
            job_state.retries = 0;
            job_state.attempt = 1;
            job_state.outcome = 0;
            events.schedule_in(restart_after, self.other, Event::Resume { job });
        } else {
            self.free_job(job);
        }
    }
}
