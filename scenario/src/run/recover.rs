//! Failing and recovering: a wait's timeout and what follows it (its steps, then a retry
//! after a backoff with jitter, the repetition's end or the next step), an `if`'s
//! condition, a resource chosen during the run, and a crash followed by a restart.

use sim_core::{EventQueue, Nanos, ms_to_ns, unit};

use crate::point::{Cond, Dur, Pace, Pick, Step, Timeout};
use crate::run::state::{Ev, NONE, Sim};
use crate::syntax::spec::{Cmp, Num, OUTCOMES};

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
    /// The resource `pick` names for `job` now, among `n` of its kind; `None` (with the
    /// run's error) when an index is out of range.
    pub(crate) fn pick(&mut self, job: u32, pick: &Pick, n: usize) -> Option<usize> {
        match pick {
            Pick::One(r) => Some(*r as usize),
            Pick::OneOf(items, index) => {
                let x = self.eval(job, index);
                if x >= 0.0 && x.fract() == 0.0 && (x as usize) < items.len() {
                    let r = items[x as usize] as usize;
                    debug_assert!(r < n);
                    return Some(r);
                }
                let a = &self.actors[self.jobs[job as usize].actor as usize];
                self.error.get_or_insert(format!(
                    "actor {} of `{}`: a `one_of` index is {x}, not a whole number from 0 to {}",
                    a.index,
                    self.p.groups[a.group as usize].name,
                    items.len() - 1
                ));
                None
            }
        }
    }

    /// When a wait that starts at `now` times out (`NONE`: never); `None` with the run's
    /// error when its duration is not one.
    pub(crate) fn deadline(&mut self, job: u32, t: &Timeout, now: Nanos) -> Option<Nanos> {
        match &t.after {
            None => Some(NONE),
            Some(d) => match self.dur(d, job) {
                Ok(d) => Some(now.saturating_add(d)),
                Err(e) => {
                    self.error.get_or_insert(e);
                    None
                }
            },
        }
    }

    /// `job`'s wait at its current step timed out: its outcome says so, and it goes on with
    /// the timeout's steps.
    pub(crate) fn timed_out(&mut self, job: u32, q: &mut EventQueue<Ev>) {
        let now = q.now();
        let j = &mut self.jobs[job as usize];
        j.outcome = TIMED_OUT;
        j.deadline = NONE;
        let (a, g) = (j.actor as usize, j.group as usize);
        let steps = &self.p.groups[g].steps;
        let handler = match &steps[j.step as usize] {
            Step::Acquire {
                timeout: Some(t), ..
            }
            | Step::Request {
                timeout: Some(t), ..
            }
            | Step::Send {
                timeout: Some(t), ..
            }
            | Step::Take {
                timeout: Some(t), ..
            }
            | Step::Call {
                timeout: Some(t), ..
            } => t.handler,
            _ => {
                self.error
                    .get_or_insert_with(|| "internal: a timeout at a step without one".into());
                return;
            }
        };
        j.step = handler;
        self.actors[a].timeouts += 1;
        self.groups[g].timeouts += 1;
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
        self.go(job, q);
    }

    /// The repetition starts again from its first step, after a backoff and a jitter drawn
    /// from the actor's stream `jitter/NAME-i`.
    pub(crate) fn retry(&mut self, job: u32, backoff: &Num, jitter: &Num, q: &mut EventQueue<Ev>) {
        let now = q.now();
        let b = self.eval(job, backoff);
        let spread = self.eval(job, jitter);
        let j = &self.jobs[job as usize];
        let a = j.actor as usize;
        if spread != 0.0 && self.steer.is_some() {
            let actor = &self.actors[a];
            self.error.get_or_insert(format!(
                "actor {} of `{}`: a retry's `jitter_ms` is {spread}: a jitter is a draw from a continuum, which an exploration cannot branch on (give `jitter_ms = 0` to explore)",
                actor.index, self.p.groups[actor.group as usize].name,
            ));
            return;
        }
        let drawn = if spread != 0.0 {
            let rng = self.actors[a].jitter_rng as usize;
            unit(&mut self.streams[rng]) * spread
        } else {
            0.0
        };
        let Some(wait) = ms_to_ns(b + drawn) else {
            let actor = &self.actors[a];
            self.error.get_or_insert(format!(
                "actor {} of `{}`: a retry's backoff and jitter come to {} ms, not a duration (attempt {})",
                actor.index,
                self.p.groups[actor.group as usize].name,
                b + drawn,
                j.attempt
            ));
            return;
        };
        let j = &mut self.jobs[job as usize];
        j.attempt += 1;
        j.step = u32::MAX;
        let g = j.group as usize;
        self.actors[a].retries += 1;
        self.groups[g].retries += 1;
        if wait > 0 {
            self.span(job, "backoff", now, Some(now + wait));
        }
        self.mark(job, "retry", now + wait);
        q.schedule_in(wait, self.other, Ev::Resume { job });
    }

    /// Whether an `if`'s condition holds for `job` now.
    pub(crate) fn holds(&mut self, job: u32, cond: &Cond) -> bool {
        match cond {
            Cond::Outcome(o) => self.jobs[job as usize].outcome == *o,
            Cond::Chance(p, named) => {
                let p = self.eval(job, p);
                let a = self.jobs[job as usize].actor as usize;
                if !(0.0..=1.0).contains(&p) {
                    // An expression may leave [0, 1] at some k or parameter: say so, rather
                    // than take every branch one way.
                    let actor = &self.actors[a];
                    self.error.get_or_insert(format!(
                        "actor {} of `{}`: an `if`'s `chance` comes to {p}, not a probability in [0, 1]",
                        actor.index, self.p.groups[actor.group as usize].name,
                    ));
                    return false;
                }
                let rng = match named {
                    Some(s) => {
                        self.group_streams[self.jobs[job as usize].group as usize][*s as usize]
                            as usize
                    }
                    None => self.actors[a].chance_rng as usize,
                };
                self.decide(p, false, |sim| sim_core::chance(&mut sim.streams[rng], p))
            }
            Cond::Compare(x, cmp, y) => {
                let (x, y) = (self.eval(job, x), self.eval(job, y));
                match cmp {
                    Cmp::Above => x > y,
                    Cmp::Below => x < y,
                    Cmp::AtLeast => x >= y,
                    Cmp::AtMost => x <= y,
                    Cmp::Equals => x == y,
                }
            }
        }
    }

    /// The actor crashed and restarts after `d`: it forgets what it read and the locks it
    /// held (they stay taken, by its old self), its repetition is lost, and its next one
    /// starts at the restart (a closed loop; an open loop's starts come on schedule).
    pub(crate) fn restart(&mut self, job: u32, d: &Dur, q: &mut EventQueue<Ev>) {
        let now = q.now();
        let d = match self.dur(d, job) {
            Ok(d) => d,
            Err(e) => {
                self.error.get_or_insert(e);
                return;
            }
        };
        let (nr, nl) = (self.regs.len(), self.locks.len());
        let (nq, nk) = (self.queues.len(), self.keys.len());
        let ju = job as usize;
        self.tables.reads[ju * nr..(ju + 1) * nr].fill(f64::NAN);
        self.tables.tokens[ju * nl..(ju + 1) * nl].fill(0);
        // What it took it forgets: unacknowledged, it comes back in its time.
        self.tables.taken[ju * nq..(ju + 1) * nq].fill(crate::machine::queue::Taken::NONE);
        self.tables.stored[ju * nk..(ju + 1) * nk].fill(f64::NAN);
        let j = &self.jobs[ju];
        let (a, g) = (j.actor as usize, j.group as usize);
        // The restarted job is the actor's new self.
        self.jobs[ju].incarnation = self.actors[a].incarnation;
        self.actors[a].restarts += 1;
        self.groups[g].restarts += 1;
        self.mark(job, "restarted", now + d);
        if d > 0 {
            self.span(job, "down", now, Some(now + d));
        }
        let group = &self.p.groups[g];
        let actor = &mut self.actors[a];
        if matches!(group.pace, Pace::Closed) && actor.started < group.repeat {
            actor.started += 1;
            self.groups[g].started += 1;
            let j = &mut self.jobs[ju];
            j.rep += 1;
            j.step = u32::MAX;
            j.started = now + d;
            j.retries = 0;
            j.attempt = 1;
            j.outcome = 0;
            q.schedule_in(d, self.other, Ev::Resume { job });
        } else {
            self.free_job(job);
        }
    }
}
