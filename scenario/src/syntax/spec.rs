//! A scenario as its config writes it: the [`Spec`] of its parameters, resources and actor
//! groups, read once per config (`read`, `sections`, `steps`) and evaluated at each sweep
//! point (`evaluate`).

use coordsim_expr::Expr;
use coordsim_model::{Kind, Value};

/// Most resources of a scenario (of every kind together).
pub const MAX_RESOURCES: usize = 64;
/// Most actor groups.
pub const MAX_GROUPS: usize = 64;
/// Most steps in one list (a group's, a branch's, a timeout's, a transaction's).
pub const MAX_STEPS: usize = 256;
/// Most `unlock_at_ms` times of one lock.
pub const MAX_UNLOCKS: usize = 10_000;

/// A name an expression may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Var {
    /// The scenario parameter at this index (of [`Spec::params`]).
    Param(u16),
    /// `i`: the actor's index in its group, from 0.
    Index,
    /// `k`: the repetition, from 0.
    Rep,
    /// `read`: what the actor last read of the register this step writes.
    Read,
    /// `attempt`: the repetition's attempt, from 1 (a retry after a timeout adds one).
    Attempt,
    /// `now`: the time the step runs at, ms.
    Now,
    /// A register's name: what the actor last read of it.
    Reg(u16),
    /// A queue's name (`outbox`, `outbox.id`, `outbox.member`): the message the actor last
    /// took from queue `.0`; `.1` is 0 for its value, 1 its id, 2 its deliveries, 3 + f
    /// its field f.
    Msg(u16, u8),
    /// A key store's name: the number stored with the key the actor last used there.
    Stored(u16),
    /// `winner`: the branch (from 1) that came through first at the last `parallel`; 0
    /// before any, or when none came through.
    Winner,
    /// `joined`: how many branches came through at the last `parallel`.
    Joined,
    /// `reply`: the number the actor's last call got back (NaN: none yet).
    Reply,
}

/// Which names an expression may use where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Parameters only (a resource's fields, a group's count).
    Params,
    /// Parameters and `i` (an actor's start).
    Actor,
    /// Parameters, `i`, `k`, `attempt` and the registers the actor has read (a step's
    /// numbers: a delay, a timeout, a backoff, a condition).
    Step,
    /// A step's names and `read` (a write's value).
    Write,
}

/// A number a config gives: a literal, an expression, or a table chosen by a string parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Number {
    /// A literal.
    Lit(f64),
    /// An expression (the text kept for messages).
    Expr(Expr<Var>, String),
    /// `{ by = "placement", busiest_edge = 4, region = "2 * rtt_ms" }`: by a string
    /// parameter's value; each option a number or an expression.
    By(u16, Vec<(String, Number)>),
    /// `[0, 2000]`: one per actor of the group, in order (where `i` may be used).
    Each(Vec<Number>),
}

impl Number {
    /// Whether it depends on `i`, `k` or what was read (so it is computed during the run).
    pub(crate) fn per_actor(&self) -> bool {
        fn uses(expr: &Expr<Var>) -> bool {
            expr.any_var(&|v| !matches!(v, Var::Param(_)))
        }
        match self {
            Number::Expr(e, _) => uses(e),
            Number::Each(_) => true,
            // Some option is: which one a point chooses is known only at the point.
            Number::By(_, options) => options.iter().any(|(_, n)| n.per_actor()),
            Number::Lit(_) => false,
        }
    }

    /// The length of a per-actor list, if it is one.
    pub(crate) fn each_len(&self) -> Option<usize> {
        match self {
            Number::Each(items) => Some(items.len()),
            _ => None,
        }
    }
}

/// A string option given as itself or by a string parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Choice {
    /// One of the options.
    Lit(&'static str),
    /// A string parameter's value, checked against the options at each point.
    Param(u16),
}

/// A scenario parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Param {
    pub name: String,
    pub kind: Kind,
    pub default: Value,
    /// Every value the config gives it (its `[params]` value, or its sweep's): empty when
    /// they are known only at each point (a derived parameter, a sweep refused later).
    pub values: Vec<Value>,
}

impl Param {
    /// Whether it may be the string `text` at some point of the sweep (when its values are
    /// not known, it may).
    pub(crate) fn may_be(&self, text: &str) -> bool {
        self.values.is_empty()
            || (self.values.iter()).any(|value| matches!(value, Value::Str(s) if s == text))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Resource {
    pub name: String,
    pub kind: ResourceKind,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ResourceKind {
    Register {
        initial: Number,
        read_ms: Number,
        write_ms: Number,
        fenced_by: Option<u16>,
    },
    Lock {
        mode: Choice,
        poll_ms: Number,
        lease_ms: Number,
        fencing: bool,
        stale_at_start: bool,
        unlock_at_ms: Vec<Number>,
    },
    Server {
        service_ms: Number,
        service: Choice,
        service_cv: Number,
        instances: Number,
        /// Windows `[from_ms, to_ms]` when it is down.
        down: Vec<(Number, Number)>,
        /// While down: `wait` (requests queue) or `fail` (refused at once).
        when_down: Choice,
    },
    Link {
        rtt_ms: Number,
        loss: Number,
        /// A message put across it arrives twice with this probability.
        duplicate: Number,
    },
    /// A FIFO queue of messages (a topic with one subscription).
    Queue {
        /// Most messages it holds (0: no limit).
        capacity: Number,
        /// How long a taken message stays hidden before it comes back (`None`: a take
        /// removes it, and there is nothing to acknowledge).
        visibility_ms: Option<Number>,
        /// The names of the numbers a message carries besides its value.
        fields: Vec<String>,
        /// The link a message crosses from its putter to the queue.
        link: Option<u16>,
    },
    /// A set of whole-number keys, each with a number stored with it.
    Keys {
        /// `(key, value)` pairs at the start, or a range of keys with one value.
        initial: KeysInit,
    },
}

/// A key store's contents at the start.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KeysInit {
    /// These keys with these values.
    Pairs(Vec<(Number, Number)>),
    /// `count` keys from `from`, each with `value`.
    Range {
        from: Number,
        count: Number,
        value: Number,
    },
}

/// Most keys an `initial` list gives (a range has no such limit: `{ from, count }`).
pub(crate) const MAX_INITIAL_KEYS: usize = 100_000;
/// Most keys a store starts with, a range included.
pub(crate) const MAX_KEYS: u64 = 10_000_000;

/// Most fields of a queue's message.
pub(crate) const MAX_FIELDS: usize = 8;

pub(crate) const LOCK_MODES: &[&str] = &["poll", "queue", "lease"];
pub(crate) const SERVICE_KINDS: &[&str] =
    &["fixed", "exponential", "uniform", "lognormal", "gamma"];
pub(crate) const WHEN_DOWN: &[&str] = &["wait", "fail"];
/// Most down windows of one server.
pub(crate) const MAX_WINDOWS: usize = 10_000;
pub(crate) const ARRIVALS: &[&str] = &["schedule", "poisson", "uniform", "lognormal", "gamma"];

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Crash {
    All,
    Names(Vec<String>),
    First(Number),
    /// Each time with this probability, from the actor's stream `crash/GROUP-i`, or from
    /// the stream named (`stream = "…"`, one for the whole group).
    Probability(Number, Option<String>),
}

/// A resource a step names: one, one chosen by a string parameter, or one of a list chosen
/// by an expression (of `i`, `k`, `attempt`, the parameters), by its number among its kind's.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pick {
    /// This resource.
    One(u16),
    /// `{ by = "order", same = "A", opposite = "B" }`: by a string parameter's value.
    By(u16, Vec<(String, u16)>),
    /// `{ one_of = ["A", "B"], index = "i" }`: the list's item at the expression's value.
    OneOf(Vec<u16>, Number),
}

impl Pick {
    /// Every resource it may name.
    pub(crate) fn all(&self) -> Vec<u16> {
        match self {
            Pick::One(r) => vec![*r],
            Pick::By(_, options) => options.iter().map(|(_, r)| *r).collect(),
            Pick::OneOf(items, _) => items.clone(),
        }
    }
}

/// What a blocking step does when its wait runs out (`timeout_ms`), or when it is refused.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OnTimeout {
    /// How long the step waits (`None`: as long as it takes; the steps run only when the
    /// step is refused: a server down that fails fast).
    pub after: Option<Number>,
    /// The key it was written with (`timeout_ms`, `give_up_after_ms`), for messages.
    pub key: &'static str,
    /// Steps run first (release what is held).
    pub steps: Vec<Step>,
    /// Then: retry, end the repetition or go on.
    pub then: Then,
}

/// What follows a timeout's steps.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Then {
    /// The repetition ends, given up.
    End,
    /// The actor goes on with the step after the one that timed out.
    GoOn,
    /// The repetition starts again from its first step after `backoff_ms` plus a jitter
    /// drawn in [0, `jitter_ms`), while its attempts are fewer than `max_attempts`; then it
    /// gives up.
    Retry {
        max_attempts: Number,
        backoff_ms: Number,
        jitter_ms: Number,
    },
}

/// An operation on a key store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyOp {
    Insert,
    Lookup,
    Set,
    Remove,
}

pub(crate) const THENS: &[&str] = &["retry", "end", "go_on"];

/// What a step ended with, for `if = { outcome = … }`.
pub(crate) const OUTCOMES: &[&str] = &[
    "none",
    "acquired",
    "timed_out",
    "served",
    "refused",
    "applied",
    "rejected",
    "renewed",
    "lost",
    "delivered",
    "taken",
    "put",
    "full",
    "acked",
    "expired",
    "inserted",
    "duplicate",
    "found",
    "missing",
    "removed",
    "not_held",
    "joined",
    "failed",
    "replied",
];

/// A comparison of `if = { value = …, above = … }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cmp {
    Above,
    Below,
    AtLeast,
    AtMost,
    Equals,
}

impl Cmp {
    /// Whether `left` compares to `right` so (a NaN compares to nothing).
    pub(crate) fn holds(self, left: f64, right: f64) -> bool {
        match self {
            Cmp::Above => left > right,
            Cmp::Below => left < right,
            Cmp::AtLeast => left >= right,
            Cmp::AtMost => left <= right,
            Cmp::Equals => left == right,
        }
    }
}

pub(crate) const CMPS: &[(&str, Cmp)] = &[
    ("above", Cmp::Above),
    ("below", Cmp::Below),
    ("at_least", Cmp::AtLeast),
    ("at_most", Cmp::AtMost),
    ("equals", Cmp::Equals),
];

/// An `if`'s condition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Condition {
    /// The outcome of the actor's last step that has one (its index in [`OUTCOMES`]).
    Outcome(u8),
    /// True with this probability, drawn from the actor's stream `chance/GROUP-i`, or from
    /// the stream named (`stream = "…"`, one for the whole group).
    Chance(Number, Option<String>),
    /// A number compared with another.
    Compare(Number, Cmp, Number),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    // Registers, locks, servers and links by their number among their kind.
    Read(u16),
    Write {
        register: u16,
        value: Number,
        cas: bool,
        max_retries: Number,
    },
    Delay(Number),
    /// A stop-the-world pause: like a delay, drawn as a pause (a lease held runs out).
    Pause(Number),
    Acquire {
        lock: Pick,
        timeout: Option<OnTimeout>,
    },
    Release(Pick),
    /// Keeps a lease lock's record fresh, if it is still the actor's.
    Renew(Pick),
    Request {
        server: Pick,
        instance: Number,
        timeout: Option<OnTimeout>,
    },
    Send {
        link: Pick,
        timeout: Option<OnTimeout>,
    },
    Crash {
        rule: Crash,
        restart_after_ms: Option<Number>,
    },
    /// Puts a message on a queue: its value and fields (in the queue's order).
    Put {
        queue: u16,
        value: Number,
        fields: Vec<Number>,
    },
    /// Takes the queue's first visible message, waiting for one.
    Take {
        queue: u16,
        timeout: Option<OnTimeout>,
    },
    /// Acknowledges the message last taken from the queue.
    Ack(u16),
    /// Puts a message on the queue, as a put does, and waits for the reply to it (a
    /// `reply` step of the actor that takes it).
    Call {
        queue: u16,
        value: Number,
        fields: Vec<Number>,
        timeout: Option<OnTimeout>,
    },
    /// Replies to the call whose message the actor last took from the queue.
    Reply {
        queue: u16,
        value: Number,
    },
    /// A key store's operations: insert (if absent), look up, set (insert or replace),
    /// remove.
    Keys {
        operation: KeyOp,
        store: u16,
        key: Number,
        value: Number,
    },
    /// Steps whose effects land together at one instant, or not at all.
    Transaction(Vec<Step>),
    /// The actor's repetition ends here, completed, and it starts no more.
    Stop,
    /// The repetition ends here (an early exit): completed, or given up; the next one
    /// starts as after any end.
    Exit {
        gave_up: bool,
    },
    If {
        condition: Condition,
        then: Vec<Step>,
        otherwise: Vec<Step>,
    },
    /// Branches that start at one instant, each a job of its own, and a join: the actor
    /// goes on once `wait` of them came through (or too many failed), the rest cancelled.
    Parallel {
        /// The branches as written; for `copies`, one per copy up to [`MAX_BRANCHES`],
        /// each read with its own `copy`.
        branches: Vec<Vec<Step>>,
        /// `parallel = { copies = …, steps = [...] }`: how many of `branches` start, at
        /// each point (`None`: every one).
        copies: Option<Number>,
        /// How many must come through (1: the first; `branches.len()`: all), at each point.
        wait: Number,
        /// What a cancelled branch's request does, one of [`CANCELS`]: `withdraw` (still
        /// queued, it leaves the server's queue; in service, it runs to its end, wasted)
        /// or `abandon` (as after a timeout: the server does not know, and serves it in
        /// turn). Either way a lock's waiter leaves the lock's queue and a take stops.
        cancel: Choice,
        /// Tied requests: when one branch's request starts its service, the others are
        /// cancelled at once (the copies know of each other), not at the join.
        tied: bool,
    },
}

pub(crate) const CANCELS: &[&str] = &["withdraw", "abandon"];

/// Most branches of one `parallel`.
pub(crate) const MAX_BRANCHES: usize = 16;

impl Step {
    /// Calls `visitor` on this step and every step inside it (branches, timeout steps).
    pub(crate) fn visit(&self, visitor: &mut impl FnMut(&Step)) {
        visitor(self);
        let mut inner = |steps: &[Step]| steps.iter().for_each(|s| s.visit(visitor));
        match self {
            Step::If {
                then, otherwise, ..
            } => {
                inner(then);
                inner(otherwise);
            }
            Step::Transaction(steps) => inner(steps),
            Step::Parallel { branches, .. } => branches.iter().for_each(|b| inner(b)),
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
            } => inner(&timeout.steps),
            _ => {}
        }
    }

    /// How long the wait may last before it times out (`timeout_ms`, `give_up_after_ms`):
    /// `None` for a step that never times out (not a wait, no ceiling, or an `on_timeout`
    /// alone, which runs only on a refusal).
    pub(crate) fn ceiling(&self) -> Option<&Number> {
        match self {
            Step::Acquire { timeout, .. }
            | Step::Request { timeout, .. }
            | Step::Send { timeout, .. }
            | Step::Take { timeout, .. }
            | Step::Call { timeout, .. } => timeout.as_ref().and_then(|t| t.after.as_ref()),
            _ => None,
        }
    }
}

impl Group {
    /// Whether any of its steps, or a step inside one, is such that `predicate` holds.
    pub(crate) fn any(&self, mut predicate: impl FnMut(&Step) -> bool) -> bool {
        let mut found = false;
        for step in &self.steps {
            step.visit(&mut |inner| found |= predicate(inner));
        }
        found
    }
}

/// How a group's repetitions follow each other.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pace {
    /// Each repetition starts when the one before ends (closed loop).
    Closed,
    /// Repetition `k` starts at start + k × every_ms, whatever the others do (open loop).
    Every(Number),
    /// The repetitions spread evenly over this window: `k` at start + k × spread / repeat.
    Spread(Number),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Group {
    pub name: String,
    pub count: Number,
    pub names: Option<Vec<String>>,
    pub start_ms: Number,
    pub repeat: Number,
    /// `repeat = "forever"`: the closed loop never ends (an exploration only).
    pub forever: bool,
    pub pace: Pace,
    pub arrivals: Choice,
    pub every_cv: Number,
    pub steps: Vec<Step>,
    /// `crash_anywhere`: an exploration may crash an actor of the group at any step.
    pub crash_anywhere: Option<CrashAnywhere>,
    /// Whether any expression of the group names `i` (its actors then differ by more than
    /// their names).
    pub uses_index: bool,
}

/// `crash_anywhere = { count, restart_after_ms }`: the crashes an exploration may inject
/// into a group, at any of its actors' steps (a run ignores it).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CrashAnywhere {
    /// Most such crashes along one execution (1 by default).
    pub count: Number,
    /// When the crashed actor comes back, as a crash step's `restart_after_ms`.
    pub restart_after_ms: Option<Number>,
}

/// Most crashes `crash_anywhere` may inject along one execution.
pub(crate) const MAX_CRASHES_ANYWHERE: u64 = 16;

/// How a watch compares a metric with its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relation {
    /// `expect`: equal (within 1e-9, as a claim's default tolerance).
    Equal,
    /// `at_least`: ≥.
    AtLeast,
    /// `at_most`: ≤.
    AtMost,
}

impl Relation {
    /// Whether `value` meets the relation with `bound`.
    pub(crate) fn holds(self, value: f64, bound: f64) -> bool {
        match self {
            Relation::Equal => (value - bound).abs() <= 1e-9,
            Relation::AtLeast => value >= bound,
            Relation::AtMost => value <= bound,
        }
    }
}

/// A condition on one metric at an instant: `metric`, a relation and its bound (a number
/// or an expression over the parameters).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WatchCondition {
    /// The metric's column name, as written (resolved against the columns later).
    pub metric: String,
    pub relation: Relation,
    pub bound: Number,
    /// Where it is written (`watch[0]`, `watch[0].leads_to`), for errors.
    pub path: Vec<coordsim_model::PathPart>,
}

/// One `[[watch]]`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Watch {
    /// Its metric column's name.
    pub name: String,
    /// When it holds.
    pub when: WatchCondition,
    /// `leads_to`: what must hold at or after each instant `when` holds.
    pub leads_to: Option<WatchCondition>,
}

/// A scenario, read once per config.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spec {
    pub params: Vec<Param>,
    pub resources: Vec<Resource>,
    pub groups: Vec<Group>,
    /// The `[[watch]]` tables.
    pub watches: Vec<Watch>,
    /// Each watch's metrics resolved, as places among the metric columns: its condition's
    /// and its `leads_to`'s (set once the columns are known).
    pub watched: Vec<(usize, Option<usize>)>,
}

/// The tie rule every scenario has, first among its parameters.
pub(crate) const TIE_ORDER: &str = "tie_order";

/// `repeat = "forever"`: a group's closed loop without end.
pub(crate) const FOREVER: &str = "forever";
pub(crate) const TIE_ORDERS: &[&str] = &["fifo", "program_order", "reads_first", "writes_first"];
