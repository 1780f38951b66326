//! Which outcomes an actor's last step can have at each point of its steps: the flow check
//! that refuses an `if` on an outcome that can never be there (`renewed` after a request).
//!
//! The set is an over-approximation: an outcome is left out only when no path reaches the
//! `if` with it, so a refusal is always right, and an `if` accepted may still never hold.

use crate::syntax::spec::{KeyOp, OUTCOMES, Step};

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

    /// Whether `outcome` (an index in [`OUTCOMES`]) is in the set.
    pub(crate) fn has(self, outcome: u8) -> bool {
        self.0 & (1 << outcome) != 0
    }

    /// Either set's outcomes.
    pub(crate) fn or(self, other: Outcomes) -> Outcomes {
        Outcomes(self.0 | other.0)
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

/// What a step leaves as the last outcome when it goes on to the next step normally (not
/// through its timeout): `None` for a step that has no outcome of its own (a read, a delay,
/// a release, a crash its actor survives, an `if` or a transaction, whose steps say).
pub(crate) fn after(step: &Step) -> Option<Outcomes> {
    Some(Outcomes::of(match step {
        Step::Write { .. } => &["applied", "rejected"],
        Step::Acquire { .. } => &["acquired"],
        Step::Renew(_) => &["renewed", "lost"],
        // Refused without a timeout goes on to the next step; with one, to its steps.
        Step::Request { timeout: None, .. } => &["served", "refused"],
        Step::Request { .. } => &["served"],
        Step::Send { .. } => &["delivered"],
        Step::Take { .. } => &["taken"],
        Step::Parallel { .. } => &["joined", "failed"],
        // A full queue refuses the call's message: it goes on at once.
        Step::Call { .. } => &["replied", "full"],
        Step::Reply { .. } => &["replied", "expired", "not_held"],
        Step::Put { .. } => &["put", "full"],
        Step::Ack(_) => &["acked", "expired", "not_held"],
        Step::Keys { operation, .. } => match operation {
            KeyOp::Insert => &["inserted", "duplicate"],
            KeyOp::Lookup => &["found", "missing"],
            KeyOp::Set => &["applied"],
            KeyOp::Remove => &["removed", "missing"],
        },
        _ => return None,
    }))
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
    }
}
