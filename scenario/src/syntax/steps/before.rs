//! What an actor has done by a step, as the steps reader walks a group's steps; and the
//! shape of the reader's recursion into nested step lists, which the step families are
//! handed (so they need not import the reader that calls them).

use coordsim_model::{ComposeError, Value};

use crate::syntax::flow::Outcomes;
use crate::syntax::read::{Path, Reader};
use crate::syntax::spec::Step;

/// Reads a nested step list (`then`, `else`, `on_timeout.steps`, a transaction's) from the
/// state before it: `steps::nested`, handed to the step families that hold step lists.
pub(super) type Nested =
    fn(&Reader<'_>, &mut Before, Path, Option<&Value>, usize) -> Result<Vec<Step>, ComposeError>;

/// What an actor has done by a step: the registers it may have read, the locks it may hold
/// (on some path to the step) and those it holds on every path.
#[derive(Clone)]
pub(super) struct Before {
    /// Registers read, then (after the registers, by resource index) queues taken from and
    /// key stores used.
    pub(super) read: Vec<bool>,
    pub(super) may_hold: Vec<u16>,
    pub(super) holds: Vec<u16>,
    /// While the locks a closed loop's round starts holding are still being found: a
    /// release or a renewal of a lock not held is not refused yet (the last reading is).
    pub(super) finding_held: bool,
    /// Inside a transaction.
    pub(super) in_transaction: bool,
    /// Inside a `parallel`'s branch (what ends the repetition, or starts it again, is
    /// refused there).
    pub(super) in_branch: bool,
    /// The outcomes the last step that has one may have here (`flow`).
    pub(super) outcomes: Outcomes,
    /// The outcomes a repetition's attempt may start again with (a `retry`, a
    /// compare-and-set conflict): its first steps see them too.
    pub(super) restart: Outcomes,
    /// What a timeout's steps leave for the step after it (`then = "go_on"`), for the
    /// step that has the timeout to add to its own.
    pub(super) from_timeout: Outcomes,
    /// The first `if` on an outcome that cannot be there, and why: refused once the
    /// outcomes at the start are known (a retry found further down adds to them).
    pub(super) impossible: Option<(Path, String)>,
}

impl Before {
    /// After one of two branches: what either may have done, what both surely did.
    pub(super) fn join(first: Before, second: Before) -> Before {
        let mut may_hold = first.may_hold;
        for lock in second.may_hold {
            if !may_hold.contains(&lock) {
                may_hold.push(lock);
            }
        }
        Before {
            read: first
                .read
                .iter()
                .zip(&second.read)
                .map(|(x, y)| *x || *y)
                .collect(),
            may_hold,
            holds: first
                .holds
                .into_iter()
                .filter(|lock| second.holds.contains(lock))
                .collect(),
            finding_held: first.finding_held,
            in_transaction: first.in_transaction,
            in_branch: first.in_branch,
            outcomes: first.outcomes.or(second.outcomes),
            restart: first.restart.or(second.restart),
            from_timeout: Outcomes::EMPTY,
            impossible: first.impossible.or(second.impossible),
        }
    }

    /// Takes in what a nested step list (a timeout's steps) found that matters beyond it.
    pub(super) fn learn(&mut self, inner: &Before) {
        self.restart = self.restart.or(inner.restart);
        if self.impossible.is_none() {
            self.impossible.clone_from(&inner.impossible);
        }
    }
}
