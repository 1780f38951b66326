//! Which outcomes an actor's last step can have at each point of its steps: the flow check
//! that refuses an `if` on an outcome that can never be there (`renewed` after a request,
//! `refused` after a request to a server that never fails fast).
//!
//! A step's outcomes are those its kind gives, less those its configuration never gives
//! (`refused` at a server that never fails fast, `full` at a queue with no capacity,
//! `rejected` at a register no fencing lock fences, `timed_out` with no `timeout_ms`,
//! `failed` at a join that cannot fail); an outcome `if` narrows them on its branches (its
//! `then` sees only its outcome, its `else` every other). The set is an over-approximation: an outcome is left
//! out only when no path of any sweep point reaches the `if` with it, so a refusal is
//! always right, and an `if` accepted may still never hold.

use crate::syntax::spec::{
    Choice, KeyOp, Number, OUTCOMES, Param, Pick, Resource, ResourceKind, Step, Then,
};

/// A set of outcomes, one bit per entry of [`OUTCOMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Outcomes(u32);

const _: () = assert!(OUTCOMES.len() <= 32, "one bit per outcome");

impl Outcomes {
    /// No outcome: no path.
    pub(crate) const EMPTY: Outcomes = Outcomes(0);

    /// The outcomes named (each one of [`OUTCOMES`]).
    pub(crate) fn of(names: &[&str]) -> Outcomes {
        let mut bits = 0;
        for name in names {
            let index = OUTCOMES
                .iter()
                .position(|o| o == name)
                .expect("a known outcome");
            bits |= 1 << index;
        }
        Outcomes(bits)
    }

    /// The one outcome `outcome` (an index in [`OUTCOMES`]).
    pub(crate) fn one(outcome: u8) -> Outcomes {
        Outcomes(1 << outcome)
    }

    /// Whether `outcome` (an index in [`OUTCOMES`]) is in the set.
    pub(crate) fn has(self, outcome: u8) -> bool {
        self.0 & (1 << outcome) != 0
    }

    /// Either set's outcomes.
    pub(crate) fn or(self, other: Outcomes) -> Outcomes {
        Outcomes(self.0 | other.0)
    }

    /// The outcomes in both sets.
    pub(crate) fn and(self, other: Outcomes) -> Outcomes {
        Outcomes(self.0 & other.0)
    }

    /// The outcomes of `self` not in `other`.
    pub(crate) fn without(self, other: Outcomes) -> Outcomes {
        Outcomes(self.0 & !other.0)
    }

    /// Whether every outcome of `self` is in `other`.
    pub(crate) fn within(self, other: Outcomes) -> bool {
        self.0 & !other.0 == 0
    }

    /// The names, in [`OUTCOMES`]' order.
    pub(crate) fn names(self) -> Vec<&'static str> {
        OUTCOMES
            .iter()
            .enumerate()
            .filter(|(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, o)| *o)
            .collect()
    }
}

/// What the resources may do to a step that decides its outcomes: which servers may refuse
/// a request (a `down` window with `when_down = "fail"`, or a string parameter that may
/// say "fail" at some point), which queues may refuse a message as full (a `capacity`), and
/// which registers may reject a write (`fenced_by` a lock with `fencing`). Each by its
/// number among its kind's.
#[derive(Debug, Default, Clone)]
pub(crate) struct Refusals {
    servers: Vec<bool>,
    queues: Vec<bool>,
    registers: Vec<bool>,
}

impl Refusals {
    /// What `resources` may refuse, with `params` the values a `when_down` by a parameter
    /// may take.
    pub(crate) fn of(resources: &[Resource], params: &[Param]) -> Refusals {
        let fencing: Vec<bool> = (resources.iter())
            .filter_map(|resource| match &resource.kind {
                ResourceKind::Lock { fencing, .. } => Some(*fencing),
                _ => None,
            })
            .collect();
        let mut refusals = Refusals::default();
        for resource in resources {
            match &resource.kind {
                ResourceKind::Server {
                    down, when_down, ..
                } => refusals.servers.push(
                    !down.is_empty()
                        && match when_down {
                            Choice::Lit(option) => *option == "fail",
                            Choice::Param(param) => params[*param as usize].may_be("fail"),
                        },
                ),
                ResourceKind::Queue { capacity, .. } => {
                    refusals.queues.push(*capacity != Number::Lit(0.0));
                }
                ResourceKind::Register { fenced_by, .. } => refusals
                    .registers
                    .push(fenced_by.is_some_and(|lock| fencing[lock as usize])),
                _ => {}
            }
        }
        refusals
    }

    /// Whether a request to the server `pick` names may be refused: one of the servers it
    /// may pick fails fast (a pick by a parameter, only among the options it may take).
    pub(crate) fn server(&self, pick: &Pick, params: &[Param]) -> bool {
        match pick {
            Pick::One(server) => self.servers[*server as usize],
            Pick::OneOf(servers, _) => servers.iter().any(|s| self.servers[*s as usize]),
            Pick::By(param, options) => (options.iter()).any(|(option, s)| {
                self.servers[*s as usize] && params[*param as usize].may_be(option)
            }),
        }
    }
}

/// What a step leaves as the last outcome when it goes on to the next step normally (not
/// through its timeout): `None` for a step that has no outcome of its own (a read, a delay,
/// a release, a crash its actor survives, an `if` or a transaction, whose steps say). An
/// outcome only some resources give is in it only when the step's may give it.
pub(crate) fn after(step: &Step, refusals: &Refusals, params: &[Param]) -> Option<Outcomes> {
    let may = |outcome: &str, possible: bool| {
        if possible {
            Outcomes::of(&[outcome])
        } else {
            Outcomes::EMPTY
        }
    };
    Some(match step {
        Step::Write { register, .. } => {
            Outcomes::of(&["applied"]).or(may("rejected", refusals.registers[*register as usize]))
        }
        Step::Acquire { .. } => Outcomes::of(&["acquired"]),
        Step::Renew(_) => Outcomes::of(&["renewed", "lost"]),
        // Refused without a timeout goes on to the next step; with one, to its steps.
        Step::Request {
            server, timeout, ..
        } => Outcomes::of(&["served"]).or(may(
            "refused",
            timeout.is_none() && refusals.server(server, params),
        )),
        Step::Send { .. } => Outcomes::of(&["delivered"]),
        Step::Take { .. } => Outcomes::of(&["taken"]),
        Step::Parallel { branches, wait, .. } => {
            Outcomes::of(&["joined"]).or(may("failed", join_may_fail(branches, wait)))
        }
        // A full queue refuses the call's message: it goes on at once.
        Step::Call { queue, .. } => {
            Outcomes::of(&["replied"]).or(may("full", refusals.queues[*queue as usize]))
        }
        Step::Reply { .. } => Outcomes::of(&["replied", "expired", "not_held"]),
        Step::Put { queue, .. } => {
            Outcomes::of(&["put"]).or(may("full", refusals.queues[*queue as usize]))
        }
        Step::Ack(_) => Outcomes::of(&["acked", "expired", "not_held"]),
        Step::Keys { operation, .. } => Outcomes::of(match operation {
            KeyOp::Insert => &["inserted", "duplicate"],
            KeyOp::Lookup => &["found", "missing"],
            KeyOp::Set => &["applied"],
            KeyOp::Remove => &["removed", "missing"],
        }),
        _ => return None,
    })
}

/// Whether a `parallel`'s join may fail: more of its branches may give up than it can
/// spare (`wait` of them must come through; a `wait` known only at a point is taken as
/// every branch, the most a join can need).
fn join_may_fail(branches: &[Vec<Step>], wait: &Number) -> bool {
    let may_give_up = (branches.iter())
        .filter(|branch| {
            let mut found = false;
            for step in branch.iter() {
                step.visit(&mut |inner| found |= gives_up(inner));
            }
            found
        })
        .count();
    let wait = match wait {
        Number::Lit(count) => *count as usize,
        _ => branches.len(),
    };
    may_give_up + wait > branches.len()
}

/// Whether a step may end its repetition given up (in a branch: the branch fails): a
/// timeout that ends (`give_up_after_ms` included), `{ end = "gave_up" }`.
fn gives_up(step: &Step) -> bool {
    match step {
        Step::Exit { gave_up } => *gave_up,
        Step::Acquire { timeout, .. }
        | Step::Request { timeout, .. }
        | Step::Send { timeout, .. }
        | Step::Take { timeout, .. }
        | Step::Call { timeout, .. } => timeout.as_ref().is_some_and(|t| t.then == Then::End),
        _ => false,
    }
}

/// Why an outcome only some steps give cannot be there, for the refusal of an `if` on it.
pub(crate) fn only_where(outcome: &str) -> &'static str {
    match outcome {
        "refused" => {
            " (a request is refused only by a server with `down` windows and `when_down = \"fail\"`)"
        }
        "timed_out" => " (only a wait with `timeout_ms` times out)",
        "full" => " (only a queue with a `capacity` refuses a message as full)",
        "rejected" => {
            " (a write is rejected only by a register `fenced_by` a lock with `fencing = true`)"
        }
        "failed" => {
            " (a join fails only when more branches may give up than it can spare: a timeout that ends, `{ end = \"gave_up\" }`)"
        }
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_holds_what_it_was_made_of() {
        let set = Outcomes::of(&["served", "timed_out"]);
        assert_eq!(set.names(), ["timed_out", "served"], "in OUTCOMES' order");
        assert!(Outcomes::of(&["served"]).within(set));
        assert!(!Outcomes::of(&["renewed"]).within(set));
        assert!(set.or(Outcomes::of(&["none"])).has(0));
        let served = Outcomes::one(3);
        assert_eq!(served, Outcomes::of(&["served"]));
        assert_eq!(set.and(served), served);
        assert_eq!(set.without(served), Outcomes::of(&["timed_out"]));
        assert_eq!(served.without(served), Outcomes::EMPTY);
    }

    /// A join of `n` branches waiting for `wait` fails when more than `n - wait` fail: it
    /// may fail only when at least `n - wait + 1` branches may give up.
    #[test]
    fn a_join_may_fail_when_more_branches_may_give_up_than_it_can_spare() {
        let gives_up = || vec![Step::Exit { gave_up: true }];
        let comes_through = || vec![Step::Exit { gave_up: false }];
        let three = |failing: usize| -> Vec<Vec<Step>> {
            (0..3)
                .map(|b| {
                    if b < failing {
                        gives_up()
                    } else {
                        comes_through()
                    }
                })
                .collect()
        };
        for failing in 0..=3 {
            for wait in 1..=3 {
                assert_eq!(
                    join_may_fail(&three(failing), &Number::Lit(wait as f64)),
                    failing + wait > 3,
                    "{failing} of 3 may give up, wait {wait}"
                );
            }
            // A wait known only at a point is taken as all three.
            let by_point = Number::By(0, Vec::new());
            assert_eq!(join_may_fail(&three(failing), &by_point), failing >= 1);
        }
    }
}
