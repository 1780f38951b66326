//! The second stage: one sweep point's scenario — every number the point fixes computed,
//! every option chosen, the steps lowered to a flat program (`lower`), the run's cost
//! estimated (`cost`); what is left is computed per actor or per repetition during the run
//! ([`eval_run`]).

mod blame;
pub(crate) mod cost;
pub(crate) mod lower;
mod numbers;
mod operand;
mod program;
mod resources;

use sim_core::Nanos;

pub(crate) use crate::machine::lock::LockMode;
use crate::syntax::spec::{Cmp, Number, Var};
pub(crate) use operand::{Leaf, Operand};

/// Most actors of one run, over all groups (each has its own event class for its starts).
pub const MAX_ACTORS: u64 = 1_000_000;
/// Most actors a timeline draws (one lane each): every model's lane cap.
pub const MAX_LANES: usize = coordsim_model::MAX_LANES;
/// Most instances of one server.
pub const MAX_INSTANCES: u64 = 100_000;
/// Most repetitions of one run, over all actors.
pub const MAX_REPETITIONS: u64 = 100_000_000;
/// Most attempts of one repetition (`max_attempts`).
pub(crate) const MAX_ATTEMPTS: u64 = 1_000;
/// Most steps of a group's program: its steps, branches' and timeouts' steps included.
pub(crate) const MAX_PROGRAM: usize = 4_096;

/// How events at one instant are ordered (`tie_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tie {
    Fifo,
    ProgramOrder,
    ReadsFirst,
    WritesFirst,
}

/// A server instance: the same for every actor (reduced modulo the instances), or computed
/// from `i` when the step starts.
#[derive(Debug, Clone)]
pub(crate) enum Instance {
    Fixed(u32),
    Actor(Number),
}

/// A duration: the same for every actor, or computed from `i` when a step starts.
#[derive(Debug, Clone)]
pub(crate) enum Duration {
    Fixed(Nanos),
    Actor(Number),
}

#[derive(Debug, Clone)]
pub(crate) enum CrashRule {
    All,
    Names(Vec<String>),
    First(u64),
    /// With this probability, from the actor's own stream or the one named.
    Probability(f64, Option<u16>),
}

/// A resource a step names at this point: one, or one of a list by an expression.
#[derive(Debug, Clone)]
pub(crate) enum Pick {
    One(u16),
    OneOf(Vec<u16>, Number),
}

/// A blocking step's timeout: how long it waits (`None`: no timer; the handler runs only
/// when the step is refused) and where its handler's steps start in the program.
#[derive(Debug, Clone)]
pub(crate) struct Timeout {
    pub after: Option<Duration>,
    /// Whether `after` is an acquire's `give_up_after_ms` (else `timeout_ms`), for an
    /// estimate's error (a flag: a step's size counts in a sweep's memory).
    pub gives_up: bool,
    pub handler: u32,
}

/// What follows a timeout's steps.
#[derive(Debug, Clone)]
pub(crate) enum Then {
    End,
    /// Go on at this step.
    GoOn(u32),
    Retry {
        max_attempts: u32,
        backoff: Number,
        jitter: Number,
    },
}

/// An `if`'s condition at this point (tagged by a byte, as [`Step`] is).
#[derive(Debug, Clone)]
#[repr(u8)]
pub(crate) enum Condition {
    Outcome(u8),
    /// From the group's named stream of this number, when the config names one.
    Chance(Number, Option<u16>),
    Compare(Operand, Cmp, Operand),
}

/// One step of a group's program: the config's steps in order, an `if` as a branch and a
/// jump, and after an `End` the timeout handlers, each ending in what follows it. Tagged by
/// a byte of its own: the interpreter's `match` on every step reads it straight, where a
/// tag packed into a field's spare values took a subtraction and a compare to decode (92 M
/// of the outbox scenario's 2,809 M instructions a million loans; the step grows from 200
/// bytes to 208).
#[derive(Debug, Clone)]
#[repr(u8)]
pub(crate) enum Step {
    Read(u16),
    Write {
        register: u16,
        value: Number,
        cas: bool,
        max_retries: u64,
    },
    Delay(Duration),
    Pause(Duration),
    Acquire {
        lock: Pick,
        timeout: Option<Timeout>,
    },
    Release(Pick),
    Renew(Pick),
    Request {
        server: Pick,
        instance: Instance,
        timeout: Option<Timeout>,
    },
    Send {
        link: Pick,
        timeout: Option<Timeout>,
    },
    Crash {
        rule: CrashRule,
        restart: Option<Duration>,
    },
    Put {
        queue: u16,
        value: Operand,
        fields: Vec<Operand>,
    },
    Take {
        queue: u16,
        timeout: Option<Timeout>,
    },
    Ack(u16),
    /// A put whose message carries its caller, and a wait for the reply to it.
    Call {
        queue: u16,
        value: Operand,
        fields: Vec<Operand>,
        timeout: Option<Timeout>,
    },
    /// A reply to the caller of the message last taken from the queue.
    Reply {
        queue: u16,
        value: Operand,
    },
    Keys {
        operation: crate::syntax::spec::KeyOp,
        store: u16,
        key: Operand,
        value: Operand,
    },
    /// A transaction's steps follow, up to its `TxEnd`: their effects land there.
    TxBegin,
    TxEnd,
    Stop,
    /// An early exit: the repetition ends here, completed or given up.
    Exit {
        gave_up: bool,
    },
    /// When the condition fails, go on at `otherwise`.
    Branch {
        condition: Condition,
        otherwise: u32,
    },
    Jump(u32),
    /// A `parallel`: each branch starts as a job of its own at its step in `starts`; this
    /// job waits for the join (`wait` branches through, or too many failed), and the rest
    /// are cancelled (`withdraw`: a queued request or wait leaves its queue).
    Fork {
        starts: Vec<u32>,
        wait: u32,
        withdraw: bool,
        /// The others are cancelled when one branch's request starts its service.
        tied: bool,
        /// Its first branch is one request at one server that never goes down, with no
        /// timeout, in a group with no crash step, and the fork is not tied: in a run not
        /// explored, drawn or with rows and locks, no job is made for that branch (`INLINE`
        /// in the interpreter): its request waits in the name of the job at the fork.
        inline_first: bool,
    },
    /// A branch's steps end here: it came through.
    BranchEnd,
    AfterTimeout(Then),
    /// The repetition's steps end here (the handlers follow).
    End,
}

impl Pick {
    /// Whether it may name `resource`.
    pub(crate) fn may_be(&self, resource: u16) -> bool {
        match self {
            Pick::One(only) => *only == resource,
            Pick::OneOf(items, _) => items.contains(&resource),
        }
    }
}

impl Step {
    /// Whether it acts on shared state (a resource, or a transaction's start): under an
    /// explorer each such step is an action of its own, which other actors' actions at the
    /// same instant may come before. The others (a branch, a jump, a stop) only move the
    /// actor's own program on.
    pub(crate) fn is_shared(&self) -> bool {
        !matches!(
            self,
            Step::Delay(_)
                | Step::Pause(_)
                | Step::TxEnd
                | Step::Stop
                | Step::Exit { .. }
                | Step::Branch { .. }
                | Step::Jump(_)
                | Step::Fork { .. }
                | Step::AfterTimeout(_)
                | Step::End
        )
    }

    /// Whether it may block on a lock, given the lock's number.
    pub(crate) fn locks(&self) -> &[u16] {
        match self {
            Step::Acquire {
                lock: Pick::One(l), ..
            } => std::slice::from_ref(l),
            Step::Acquire {
                lock: Pick::OneOf(locks, _),
                ..
            } => locks,
            _ => &[],
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum Pace {
    Closed,
    Every(Nanos),
    Spread(Nanos),
    /// Random gaps (Poisson: exponential; or uniform, log-normal, gamma by mean and cv).
    Random(sim_core::Dist),
}

#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub name: String,
    pub count: u32,
    pub names: Option<Vec<String>>,
    pub start_ms: Number,
    /// Its repetitions (1 when `forever`: what counts repetitions ahead counts one).
    pub repeat: u64,
    /// `repeat = "forever"`: a closed loop without end, which only an exploration follows.
    pub forever: bool,
    pub pace: Pace,
    pub steps: Vec<Step>,
    /// Where each step is written (`actor[0].steps[2]`, `actor[0].steps[1].then[0]`): a
    /// mistake only the run can find is reported there.
    pub paths: Vec<String>,
    /// The most attempts of one repetition (1 without retries).
    pub attempts: u32,
    /// Whether its actors draw jitter (`jitter/NAME-i`) or chances (`chance/NAME-i`).
    pub jitters: bool,
    pub chances: bool,
    /// The streams its crashes and chances name.
    pub named: Vec<String>,
    /// `crash_anywhere`: the crashes an exploration may inject at any of its actors'
    /// steps (at most this many along an execution), and when a crashed actor restarts.
    pub crash_anywhere: Option<(u32, Option<Duration>)>,
    /// Whether any expression of the group names `i`: its actors are then not
    /// interchangeable (an exploration's symmetry leaves the group be).
    pub uses_index: bool,
}

impl Group {
    /// Whether an actor that started `started` repetitions has another to start.
    #[inline(always)]
    pub(crate) fn more_after(&self, started: u64) -> bool {
        self.forever || started < self.repeat
    }

    /// The most branches of any of its `parallel` steps (0: none).
    pub(crate) fn fan(&self) -> usize {
        (self.steps.iter())
            .map(|step| match step {
                Step::Fork { starts, .. } => starts.len(),
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// The name of the actor at `index`: from `names`, the group's name when it is alone, else
    /// `group-i`.
    pub(crate) fn actor_name(&self, index: u32) -> String {
        match &self.names {
            Some(names) => names[index as usize].clone(),
            None => default_name(&self.name, u64::from(self.count), index),
        }
    }
}

/// A queue at this point.
#[derive(Debug, Clone)]
pub(crate) struct Queue {
    /// Its name, and its fields' names, for a run's errors.
    pub name: String,
    pub field_names: Vec<String>,
    /// Most messages held (0: no limit).
    pub capacity: u64,
    pub visibility: Option<Nanos>,
    pub fields: usize,
    pub link: Option<u16>,
}

/// A key store at this point: its keys at the start.
#[derive(Debug, Clone)]
pub(crate) struct Keys {
    /// Its name, for a run's errors.
    pub name: String,
    /// Where it is written (`resource[3]`), for an estimate's error.
    pub at: String,
    pub initial: InitialKeys,
}

/// What a key store starts with at a point: a range stays three numbers (a point prepared
/// for every sweep value must not hold ten million pairs each).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum InitialKeys {
    /// These keys and numbers.
    Pairs(Vec<(i64, f64)>),
    /// `count` keys from `from`, each holding `value`.
    Range { from: i64, count: u64, value: f64 },
}

impl InitialKeys {
    /// How many keys it starts with.
    pub(crate) fn len(&self) -> u64 {
        match self {
            InitialKeys::Pairs(pairs) => pairs.len() as u64,
            InitialKeys::Range { count, .. } => *count,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Register {
    /// Its name, for a run's errors.
    pub name: String,
    pub initial: f64,
    pub read_ns: Nanos,
    pub write_ns: Nanos,
    pub fence: Option<u16>,
}

#[derive(Debug, Clone)]
pub(crate) struct Lock {
    /// Where it is written (`resource[1]`), for an estimate's error.
    pub at: String,
    pub mode: LockMode,
    pub poll_ns: Nanos,
    pub lease_ns: Nanos,
    pub fencing: bool,
    pub stale: bool,
    pub unlock_ns: Vec<Nanos>,
}

#[derive(Debug, Clone)]
pub(crate) struct Server {
    pub name: String,
    /// Where it is written (`resource[2]`), for an exploration's refusal.
    pub at: String,
    pub service_ns: Nanos,
    /// The service distribution (`None`: fixed, `service_ns` each).
    pub distribution: Option<sim_core::Dist>,
    pub instances: u32,
    /// Whether a request to it may time out: its clients may leave before their service.
    pub abandons: bool,
    /// When it is down, in order, and whether a request is then refused (else it waits).
    pub down: Vec<(Nanos, Nanos)>,
    pub fail_fast: bool,
    /// Whether a request needs more than the queue (`abandons`, or down windows).
    pub special: bool,
}

/// One sweep point's scenario: every number computed, every option chosen.
#[derive(Debug, Clone)]
pub(crate) struct Point {
    pub tie: Tie,
    /// Numeric parameter values (NaN for strings), for expressions computed in the run.
    pub params: Vec<f64>,
    pub registers: Vec<Register>,
    pub locks: Vec<Lock>,
    pub servers: Vec<Server>,
    /// Each link's crossing (half its round trip), loss and duplication probabilities and
    /// name.
    pub links: Vec<Nanos>,
    pub link_loss: Vec<f64>,
    pub link_duplicate: Vec<f64>,
    pub link_names: Vec<String>,
    pub queues: Vec<Queue>,
    pub keys: Vec<Keys>,
    pub groups: Vec<Group>,
    pub actors: u32,
    /// Each lock's name, by its number among the locks (for a run's errors).
    pub lock_names: Vec<String>,
    /// The `[[watch]]`es, looked at after every event (none: a run pays nothing for them).
    pub watches: Vec<Watch>,
    /// Whether a watch reads a register's count: an exploration then keeps the counts in
    /// its states (a watch's instant depends on them along the way, not only at the end).
    pub watch_counts: bool,
}

/// A `[[watch]]` at a point: when it holds and, for a `leads_to`, what answers it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Watch {
    pub when: WatchTest,
    pub leads_to: Option<WatchTest>,
}

/// A condition on a metric at an instant, its bound computed at the point.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WatchTest {
    pub metric: crate::syntax::metrics::Metric,
    pub relation: crate::syntax::spec::Relation,
    pub bound: f64,
}

impl Point {
    /// A per-actor number at the actor at `index` (a start, a delay, an instance), before any
    /// repetition: `k` is 0 and `attempt` 1.
    pub(crate) fn at_actor(&self, number: &Number, index: u32) -> Option<f64> {
        eval_run(number, &self.params, &Vars::actor(index))
    }

    /// Whether any event may make a random decision (a `chance`, a crash by probability,
    /// a link's loss or duplication): when none may, an explorer knows that every event
    /// runs one way only before it runs it.
    pub(crate) fn may_draw(&self) -> bool {
        self.link_loss
            .iter()
            .chain(&self.link_duplicate)
            .any(|p| *p > 0.0)
            || self.groups.iter().flat_map(|g| &g.steps).any(|step| {
                matches!(
                    step,
                    Step::Branch {
                        condition: Condition::Chance(..),
                        ..
                    } | Step::Crash {
                        rule: CrashRule::Probability(..),
                        ..
                    }
                )
            })
    }
}

/// What a number computed in a run may name besides the parameters.
pub(crate) struct Vars<'a> {
    /// `i`: the actor's index in its group.
    pub index: u32,
    /// `k`: the repetition, from 0.
    pub repetition: u64,
    /// `attempt`.
    pub attempt: u32,
    /// `now`, ms (NaN before the run).
    pub now_ms: f64,
    /// `read`.
    pub read: f64,
    /// What the actor read of each register (NaN: nothing).
    pub reads: &'a [f64],
    /// What it last took from each queue, and the queues.
    pub taken: &'a [crate::machine::queue::Taken],
    pub queues: &'a [crate::machine::queue::Queue],
    /// What it last found in each key store (NaN: nothing).
    pub stored: &'a [f64],
    /// `winner` and `joined` of its last `parallel` (0 before any).
    pub winner: u8,
    pub joined: u8,
    /// What its last call got back (NaN: nothing yet).
    pub reply: f64,
}

impl Vars<'_> {
    /// The actor at `index` before it runs.
    pub(crate) fn actor(index: u32) -> Vars<'static> {
        Vars {
            index,
            repetition: 0,
            attempt: 1,
            now_ms: f64::NAN,
            read: f64::NAN,
            reads: &[],
            taken: &[],
            queues: &[],
            stored: &[],
            winner: 0,
            joined: 0,
            reply: f64::NAN,
        }
    }
}

/// The name of the actor at `index` when the config gives none: the group's name when it is alone,
/// else `group-i`.
fn default_name(group: &str, count: u64, index: u32) -> String {
    if count == 1 {
        group.to_string()
    } else {
        format!("{group}-{index}")
    }
}

/// Whether `who` is the default name of one of a group's `count` actors (read back, not
/// searched: a group may have a million).
pub(crate) fn is_default_name(group: &str, count: u64, who: &str) -> bool {
    if count == 1 {
        return who == group;
    }
    who.strip_prefix(group)
        .and_then(|rest| rest.strip_prefix('-'))
        .and_then(|digits| digits.parse::<u64>().ok().map(|number| (number, digits)))
        .is_some_and(|(number, digits)| number < count && number.to_string() == digits)
}

/// A number computed in a run, from the parameters and `vars`.
pub(crate) fn eval_run(number: &Number, params: &[f64], vars: &Vars<'_>) -> Option<f64> {
    eval_by(number, vars.index, &|var| match var {
        Var::Param(p) => params.get(p as usize).copied(),
        Var::Index => Some(f64::from(vars.index)),
        Var::Rep => Some(vars.repetition as f64),
        Var::Attempt => Some(f64::from(vars.attempt)),
        Var::Now => Some(vars.now_ms),
        Var::Read => Some(vars.read),
        Var::Reg(register) => vars.reads.get(register as usize).copied(),
        Var::Msg(queue, what) => Some(match vars.taken.get(queue as usize) {
            Some(&take) => vars.queues[queue as usize].number(take, what),
            None => f64::NAN,
        }),
        Var::Stored(store) => vars.stored.get(store as usize).copied(),
        Var::Winner => Some(f64::from(vars.winner)),
        Var::Joined => Some(f64::from(vars.joined)),
        Var::Reply => Some(vars.reply),
    })
}

/// A number computed for the actor at `index` (a list per actor names its item), each
/// name's value given by `var`: the flat back end names what its own state keeps.
pub(crate) fn eval_by(
    number: &Number,
    index: u32,
    var: &impl Fn(Var) -> Option<f64>,
) -> Option<f64> {
    match number {
        Number::Lit(x) => Some(*x),
        Number::By(..) => None,
        Number::Each(items) => items
            .get(index as usize)
            .and_then(|n| eval_by(n, index, var)),
        Number::Expr(expr, _) => expr.eval(var),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_read_back() {
        // A group of 12: `w-0` … `w-11`; alone: the group's own name.
        for i in 0..12 {
            assert!(is_default_name("w", 12, &default_name("w", 12, i)));
        }
        for other in ["w", "w-12", "w-01", "w-", "x-1", "w-+1"] {
            assert!(!is_default_name("w", 12, other), "{other}");
        }
        assert!(is_default_name("w", 1, "w") && !is_default_name("w", 1, "w-0"));
    }
}
