//! One sweep point's scenario: every number the point fixes computed, every option chosen
//! (by `evaluate`); what is left is computed per actor or per repetition during the run
//! ([`eval_run`]).

use sim_core::Nanos;

pub use crate::lock::LockMode;
use crate::spec::{Num, Var};

/// Most actors of one run, over all groups (each has its own event class for its starts).
pub const MAX_ACTORS: u64 = 1_000_000;
/// Most actors a timeline draws (one lane each): every model's lane cap.
pub const MAX_LANES: usize = coordsim_model::MAX_LANES;
/// Most instances of one server.
pub const MAX_INSTANCES: u64 = 100_000;
/// Most repetitions of one run, over all actors.
pub const MAX_REPETITIONS: u64 = 100_000_000;

/// How events at one instant are ordered (`tie_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tie {
    Fifo,
    ProgramOrder,
    ReadsFirst,
    WritesFirst,
}

/// A server instance: the same for every actor (reduced modulo the instances), or computed
/// from `i` when the step starts.
#[derive(Debug, Clone)]
pub enum Inst {
    Fixed(u32),
    Actor(Num),
}

/// A duration: the same for every actor, or computed from `i` when a step starts.
#[derive(Debug, Clone)]
pub enum Dur {
    Fixed(Nanos),
    Actor(Num),
}

#[derive(Debug, Clone)]
pub enum CrashRule {
    All,
    Names(Vec<String>),
    First(u64),
    Probability(f64),
}

#[derive(Debug, Clone)]
pub enum StepP {
    Read(u16),
    Write {
        reg: u16,
        value: Num,
        cas: bool,
        max_retries: u64,
    },
    Delay(Dur),
    Acquire {
        lock: u16,
        give_up: Option<Dur>,
    },
    Release(u16),
    Request {
        server: u16,
        instance: Inst,
    },
    Send(u16),
    Crash(CrashRule),
}

#[derive(Debug, Clone)]
pub enum PaceP {
    Closed,
    Every(Nanos),
    Spread(Nanos),
    /// Random gaps (Poisson: exponential; or uniform, log-normal, gamma by mean and cv).
    Random(sim_core::Dist),
}

#[derive(Debug, Clone)]
pub struct GroupP {
    pub name: String,
    pub count: u32,
    pub names: Option<Vec<String>>,
    pub start_ms: Num,
    pub repeat: u64,
    pub pace: PaceP,
    pub steps: Vec<StepP>,
}

impl GroupP {
    /// Actor `i`'s name: from `names`, the group's name when it is alone, else `group-i`.
    pub fn actor_name(&self, i: u32) -> String {
        match &self.names {
            Some(names) => names[i as usize].clone(),
            None => default_name(&self.name, u64::from(self.count), i),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RegP {
    pub initial: f64,
    pub read_ns: Nanos,
    pub write_ns: Nanos,
    pub fence: Option<u16>,
}

#[derive(Debug, Clone)]
pub struct LockP {
    pub mode: LockMode,
    pub poll_ns: Nanos,
    pub lease_ns: Nanos,
    pub fencing: bool,
    pub stale: bool,
    pub unlock_ns: Vec<Nanos>,
}

#[derive(Debug, Clone)]
pub struct ServerP {
    pub name: String,
    pub service_ns: Nanos,
    /// The service distribution (`None`: fixed, `service_ns` each).
    pub dist: Option<sim_core::Dist>,
    pub instances: u32,
}

/// One sweep point's scenario: every number computed, every option chosen.
#[derive(Debug, Clone)]
pub struct Point {
    pub tie: Tie,
    /// Numeric parameter values (NaN for strings), for expressions computed in the run.
    pub params: Vec<f64>,
    pub regs: Vec<RegP>,
    pub locks: Vec<LockP>,
    pub servers: Vec<ServerP>,
    pub links: Vec<Nanos>,
    pub groups: Vec<GroupP>,
    pub actors: u32,
    /// The lock number of each resource that is a lock (by resource index).
    pub lock_names: Vec<String>,
}

impl Point {
    /// A per-actor number at actor `i` (a start, a delay, an instance).
    pub fn at_actor(&self, num: &Num, i: u32) -> Option<f64> {
        eval_run(num, &self.params, i, 0, f64::NAN, &[])
    }
}

/// Actor `i`'s name when the config gives none: the group's name when it is alone, else
/// `group-i`.
fn default_name(group: &str, count: u64, i: u32) -> String {
    if count == 1 {
        group.to_string()
    } else {
        format!("{group}-{i}")
    }
}

/// Whether `who` is the default name of one of a group's `count` actors (read back, not
/// searched: a group may have a million).
pub fn is_default_name(group: &str, count: u64, who: &str) -> bool {
    if count == 1 {
        return who == group;
    }
    who.strip_prefix(group)
        .and_then(|rest| rest.strip_prefix('-'))
        .and_then(|digits| digits.parse::<u64>().ok().map(|i| (i, digits)))
        .is_some_and(|(i, digits)| i < count && i.to_string() == digits)
}

/// A number computed in a run: `get` gives `i`, `k`, `read` and the registers read.
pub fn eval_run(num: &Num, params: &[f64], i: u32, k: u64, read: f64, regs: &[f64]) -> Option<f64> {
    match num {
        Num::Lit(x) => Some(*x),
        Num::By(..) => None,
        Num::Each(items) => items
            .get(i as usize)
            .and_then(|n| eval_run(n, params, i, k, read, regs)),
        Num::Expr(e, _) => e.eval(&|v| match v {
            Var::Param(p) => params.get(p as usize).copied(),
            Var::Index => Some(f64::from(i)),
            Var::Rep => Some(k as f64),
            Var::Read => Some(read),
            Var::Reg(r) => regs.get(r as usize).copied(),
        }),
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
