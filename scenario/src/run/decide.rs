//! What an explorer decides for a run, and what a run tells a trace: the draws an event
//! makes (each a choice the explorer branches on), the budget of faults, and what each
//! event did that its end state no longer shows.

use sim_core::Nanos;

use crate::machine::keys::Found;

/// One decision an event made: its probability, what was decided, and what it decides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Draw {
    /// The chance of "yes": an execution's probability multiplies it (or 1 − it) in.
    pub probability: f64,
    pub taken: bool,
    pub kind: DrawKind,
}

impl Draw {
    /// Whether "yes" is a fault (a loss, a duplicate, a crash): faults count against the
    /// budget.
    pub(crate) fn fault(&self) -> bool {
        self.kind.is_fault()
    }

    /// The probability of the way it went: its chance of "yes", or of "no".
    pub(crate) fn likelihood(&self) -> f64 {
        if self.taken {
            self.probability
        } else {
            1.0 - self.probability
        }
    }
}

/// What a draw decides: a trace says which (`lost`, `duplicated`), not only "a fault".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DrawKind {
    /// Whether a link's crossing is lost.
    Loss,
    /// Whether a link delivers a second copy.
    Duplicate,
    /// Whether an actor crashes (`crash = { probability }`).
    Crash,
    /// A `chance` condition: no fault either way.
    Chance,
}

impl DrawKind {
    pub(crate) fn is_fault(self) -> bool {
        self != DrawKind::Chance
    }
}

/// What an explorer decides for a run, one event at a time.
#[derive(Debug, Default)]
pub(crate) struct Steer {
    /// This event's decisions, in the order it makes them: decision i is "yes" when bit i
    /// is set, "no" (no fault, the `chance` not taken) when it is not, so the decisions
    /// past those an explorer gives are "no". A word, not a list: no allocation per event.
    pub forced: u64,
    /// What this event decided (the explorer branches on each decision past `forced`).
    pub drawn: Vec<Draw>,
    /// Faults (losses, duplicates, crashes by probability) along this execution so far.
    pub faults: u32,
    /// At most this many along one execution: past it, no fault is a choice any more.
    pub max_faults: u32,
    /// The job the event resumes from a yield or a start: its first step runs at once (any
    /// other job's first shared step after a shared action yields, so each shared action
    /// is a choice point of its own).
    pub fresh: Option<u32>,
    /// The shared step this event ran first: its job and the step's index (a trace
    /// describes the event by it).
    pub acted: Option<(u32, u32)>,
    /// Every shared step this event ran, as (group, step index): what it touched, for the
    /// explorer's reduction.
    pub touched: Vec<(u16, u32)>,
    /// The product of 1 − p over this event's faults decided "no" by the spent budget.
    pub beyond: f64,
    /// This event is a `crash_anywhere` crash: its actor crashes instead of going on.
    pub crash_now: bool,
    /// The `crash_anywhere` crashes along this execution so far.
    pub crashed_anywhere: u32,
    /// The execution can never progress (every event left a poll that can never
    /// succeed): a run would stop with an error, an exploration ends the execution here,
    /// its pollers unfinished, as an outcome like any other.
    pub stuck: bool,
    /// A trace is told what each event did ([`Steer::told`]); an explorer's search is not
    /// (nothing is recorded then).
    pub tell: bool,
    /// What this event did that its end state no longer shows, in order, when `tell` is on.
    pub told: Vec<Told>,
}

/// What an event did, told to a trace as it happens: what a key store's step met, when a
/// draw was made among the event's shared steps, a pause begun. The state after the event
/// may no longer hold them (a later step of the event overwrote the job's names, or its
/// repetition ended).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Told {
    /// A step of `actor`'s `repetition` on key store `store` with `key`: what the key held
    /// before it, the number the step stores (NaN: it stores none) and its outcome (an
    /// index of `spec::OUTCOMES`).
    Key {
        actor: u32,
        repetition: u64,
        store: u16,
        key: i64,
        before: Found,
        number: f64,
        outcome: u8,
    },
    /// Draw `index` of the event's `drawn`, made after `shared` of its shared steps began.
    Draw { index: u16, shared: u16 },
    /// `job` began a pause of `ns` nanoseconds.
    Pause { job: u32, ns: Nanos },
    /// Draw `index` of the event's `drawn` was an `if`'s chance of `job` (a job other than
    /// the event's own may draw in it: one handed a lock goes on in its releaser's event).
    By { index: u16, job: u32 },
}

sim_core::clone_in_place!(Steer {
    forced,
    drawn,
    faults,
    max_faults,
    fresh,
    acted,
    touched,
    beyond,
    crash_now,
    crashed_anywhere,
    stuck,
    tell,
    told
});

impl Steer {
    /// Decides a draw of `probability`: a certain one is no choice; a fault past the budget
    /// is "no".
    pub(crate) fn decide(&mut self, probability: f64, kind: DrawKind) -> bool {
        let fault = kind.is_fault();
        if probability <= 0.0 {
            return false;
        }
        if probability >= 1.0 {
            return true;
        }
        if fault && self.faults >= self.max_faults {
            // Not a branch, but its probability counts: an outcome's probability is that of
            // its executions within the budget.
            self.beyond *= 1.0 - probability;
            return false;
        }
        let taken = self
            .forced
            .checked_shr(self.drawn.len() as u32)
            .is_some_and(|bits| bits & 1 == 1);
        if self.tell {
            self.told.push(Told::Draw {
                index: self.drawn.len() as u16,
                shared: self.touched.len() as u16,
            });
        }
        self.drawn.push(Draw {
            probability,
            taken,
            kind,
        });
        if taken && fault {
            self.faults += 1;
        }
        taken
    }
}
