//! A scenario as its config writes it: the [`Spec`] of its parameters, resources and actor
//! groups, read once per config (`read`, `sections`, `steps`) and evaluated at each sweep
//! point (`evaluate`).

use coordsim_expr::Expr;
use coordsim_model::{Kind, Value};

/// Most resources, actor groups, steps of a group and operator unlocks of a lock.
pub const MAX_RESOURCES: usize = 64;
/// Most actor groups.
pub const MAX_GROUPS: usize = 64;
/// Most steps of one group.
pub const MAX_STEPS: usize = 256;
/// Most `unlock_at_ms` times of one lock.
pub const MAX_UNLOCKS: usize = 10_000;

/// A name an expression may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// The scenario parameter at this index (of [`Spec::params`]).
    Param(u16),
    /// `i`: the actor's index in its group, from 0.
    Index,
    /// `k`: the repetition, from 0.
    Rep,
    /// `read`: what the actor last read of the register this step writes.
    Read,
    /// A register's name: what the actor last read of it.
    Reg(u16),
}

/// Which names an expression may use where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Parameters only (a resource's fields, a group's count).
    Params,
    /// Parameters and `i` (an actor's start, a delay).
    Actor,
    /// Parameters, `i`, `k`, `read` and the registers the actor has read (a write's value).
    Write,
}

/// A number a config gives: a literal, an expression, or a table chosen by a string parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    /// A literal.
    Lit(f64),
    /// An expression (the text kept for messages).
    Expr(Expr<Var>, String),
    /// `{ by = "placement", busiest_edge = 4, region = 62 }`: by a string parameter's value.
    By(u16, Vec<(String, f64)>),
    /// `[0, 2000]`: one per actor of the group, in order (where `i` may be used).
    Each(Vec<Num>),
}

impl Num {
    /// Whether it depends on `i`, `k` or what was read (so it is computed during the run).
    pub fn per_actor(&self) -> bool {
        fn uses(e: &Expr<Var>) -> bool {
            match e {
                Expr::Num(_) => false,
                Expr::Var(v) => !matches!(v, Var::Param(_)),
                Expr::Neg(a) => uses(a),
                Expr::Bin(_, a, b) => uses(a) || uses(b),
                Expr::Call(_, args) => args.iter().any(uses),
            }
        }
        match self {
            Num::Expr(e, _) => uses(e),
            Num::Each(_) => true,
            _ => false,
        }
    }

    /// The length of a per-actor list, if it is one.
    pub fn each_len(&self) -> Option<usize> {
        match self {
            Num::Each(items) => Some(items.len()),
            _ => None,
        }
    }
}

/// A string option given as itself or by a string parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// One of the options.
    Lit(&'static str),
    /// A string parameter's value, checked against the options at each point.
    Param(u16),
}

/// A scenario parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: Kind,
    pub default: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub name: String,
    pub kind: ResourceKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ResourceKind {
    Register {
        initial: Num,
        read_ms: Num,
        write_ms: Num,
        fenced_by: Option<u16>,
    },
    Lock {
        mode: Choice,
        poll_ms: Num,
        lease_ms: Num,
        fencing: bool,
        stale_at_start: bool,
        unlock_at_ms: Vec<Num>,
    },
    Server {
        service_ms: Num,
        service: Choice,
        service_cv: Num,
        instances: Num,
    },
    Link {
        rtt_ms: Num,
    },
}

pub const LOCK_MODES: &[&str] = &["poll", "queue", "lease"];
pub const SERVICE_KINDS: &[&str] = &["fixed", "exponential", "uniform", "lognormal", "gamma"];
pub const ARRIVALS: &[&str] = &["schedule", "poisson", "uniform", "lognormal", "gamma"];

#[derive(Debug, Clone, PartialEq)]
pub enum Crash {
    All,
    Names(Vec<String>),
    First(Num),
    Probability(Num),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    // Registers, locks, servers and links by their number among their kind.
    Read(u16),
    Write {
        reg: u16,
        value: Num,
        cas: bool,
        max_retries: Num,
    },
    Delay(Num),
    Acquire {
        lock: u16,
        give_up_after_ms: Option<Num>,
    },
    Release(u16),
    Request {
        server: u16,
        instance: Num,
    },
    Send(u16),
    Crash(Crash),
}

/// How a group's repetitions follow each other.
#[derive(Debug, Clone, PartialEq)]
pub enum Pace {
    /// Each repetition starts when the one before ends (closed loop).
    Closed,
    /// Repetition `k` starts at start + k × every_ms, whatever the others do (open loop).
    Every(Num),
    /// The repetitions spread evenly over this window: `k` at start + k × spread / repeat.
    Spread(Num),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub name: String,
    pub count: Num,
    pub names: Option<Vec<String>>,
    pub start_ms: Num,
    pub repeat: Num,
    pub pace: Pace,
    pub arrivals: Choice,
    pub every_cv: Num,
    pub steps: Vec<Step>,
}

/// A scenario, read once per config.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub params: Vec<Param>,
    pub resources: Vec<Resource>,
    pub groups: Vec<Group>,
}

/// The tie rule every scenario has, first among its parameters.
pub const TIE_ORDER: &str = "tie_order";
pub const TIE_ORDERS: &[&str] = &["fifo", "program_order", "reads_first", "writes_first"];
