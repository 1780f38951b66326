//! What the generator knows of the config it writes: the resources and parameters the
//! steps may use, the group being written, and what an actor holds and knows at a point of
//! its steps.

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Mode {
    Poll,
    Queue,
    Lease,
}

pub(super) struct Register {
    pub(super) name: String,
    /// `read_ms` and `write_ms` both 0: usable in a transaction.
    pub(super) instant: bool,
    /// Fenced by a lock with `fencing`: a write may be `rejected`.
    pub(super) rejects: bool,
}

pub(super) struct Lock {
    pub(super) name: String,
    pub(super) mode: Mode,
    /// `fencing = true`: a register it fences may reject a write.
    pub(super) fencing: bool,
}

pub(super) struct Server {
    pub(super) name: String,
    /// `when_down = "fail"`: an `on_timeout` without a `timeout_ms` runs on a refusal.
    pub(super) fails: bool,
}

pub(super) struct Queue {
    pub(super) name: String,
    /// Has a `visibility_ms`: an `ack` is allowed.
    pub(super) acks: bool,
    pub(super) fields: Vec<String>,
    /// A `capacity` above 0: a put may be `full`.
    pub(super) bounded: bool,
}

/// The resources and parameters of one config, as the steps may use them.
#[derive(Default)]
pub(super) struct World {
    pub(super) registers: Vec<Register>,
    pub(super) locks: Vec<Lock>,
    pub(super) servers: Vec<Server>,
    pub(super) links: Vec<String>,
    pub(super) queues: Vec<Queue>,
    pub(super) keys: Vec<String>,
    /// Integer parameters (counts, repetitions).
    pub(super) ints: Vec<String>,
    /// Number parameters (durations).
    pub(super) nums: Vec<String>,
    /// Parameters in [0, 1] (probabilities).
    pub(super) fracs: Vec<String>,
    /// A string parameter and its values, for `{ by = … }` tables.
    pub(super) mode: Option<(String, Vec<String>)>,
    /// Metric names every run of this config has (for `[[metric]]`s and claims).
    pub(super) metrics: Vec<String>,
}

/// The group whose steps are being written.
pub(super) struct Group {
    /// Its actors' count when it is a literal (per-actor lists need it).
    pub(super) count: Option<usize>,
    /// Its actors' names, when given or known.
    pub(super) actor_names: Vec<String>,
}

/// A lock an actor holds on this path: the text that names it in `acquire` (a name, or a
/// choice) and the locks it may be.
#[derive(Clone)]
pub(super) struct Held {
    pub(super) spec: String,
    pub(super) locks: Vec<usize>,
}

/// What an actor knows and holds at a point of its steps.
#[derive(Clone)]
pub(super) struct Ctx {
    pub(super) held: Vec<Held>,
    /// Held locks below this index were taken by an enclosing list: not this list's to release.
    pub(super) base: usize,
    pub(super) read: Vec<usize>,
    pub(super) taken: Vec<usize>,
    pub(super) stored: Vec<usize>,
    /// Outcomes the last step that has one may have here (what the loader's flow check
    /// allows, or fewer: an `if` picks one of them).
    pub(super) last: Vec<&'static str>,
    pub(super) in_tx: bool,
    pub(super) depth: usize,
    /// Steps left for this group (its lists, branches and timeouts together).
    pub(super) budget: usize,
    /// A step of this list ended every path through it (a `stop`).
    pub(super) ended: bool,
}

impl Ctx {
    pub(super) fn start() -> Ctx {
        Ctx {
            held: Vec::new(),
            base: 0,
            read: Vec::new(),
            taken: Vec::new(),
            stored: Vec::new(),
            last: vec!["none"],
            in_tx: false,
            depth: 0,
            budget: 14,
            ended: false,
        }
    }
    pub(super) fn holds(&self, lock: usize) -> bool {
        self.held.iter().any(|h| h.locks.contains(&lock))
    }
}

pub(super) fn union(a: &[&'static str], b: &[&'static str]) -> Vec<&'static str> {
    let mut out = a.to_vec();
    for o in b {
        if !out.contains(o) {
            out.push(o);
        }
    }
    out
}

/// Where an expression stands: which names it may use.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Scope {
    Params,
    Actor,
    Step,
    /// A write's value: a step's names and `read`.
    Write(usize),
}

/// What a wait's `on_timeout` does after its steps.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Then {
    End,
    GoOn,
    Retry,
}

/// What a wait is, for its timeout keys.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Wait {
    Acquire,
    /// `fails`: the one server it names fails fast (an `on_timeout` alone is allowed);
    /// `may_refuse`: some server it may name does (an `if` may see `refused`).
    Request {
        fails: bool,
        may_refuse: bool,
    },
    Send,
    Take,
}

pub(super) fn q_index(w: &World, q: &Queue) -> usize {
    w.queues.iter().position(|x| x.name == q.name).unwrap()
}
