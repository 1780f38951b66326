//! The reachability search over the interpreter's states: each waiting state a run, as
//! the counting search keeps it, expanded by the same [`Rules::expand`]; a child met
//! before is dropped at once.

use std::collections::VecDeque;

use coordsim_model::ModelError;
use coordsim_model::explore::Decision;

use super::seen::{NO_PARENT, Seen};
use super::{EXPANSIONS_PER_LOOK, Firsts, Reachable, with_counts};
use crate::explore::budget::Keep;
#[cfg(doc)]
use crate::explore::search::Rules;
use crate::explore::search::{Child, Expanded, Known, Search, Waiting};
use crate::explore::spare::State;
use crate::explore::step::start;
use crate::run::steer::Counts;

/// What a thread may read of the merged states: nothing (each child is kept whole, a
/// child met before dropped by the search).
const KNOWN: Known<'static> = Known {
    seen: None,
    shared: false,
};

impl<'a> Search<'a> {
    /// A state's key: its fingerprint, and its counts (`counts`) where they are kept.
    fn interpret_key(&self, fingerprint: Option<u64>, counts: Option<&Counts>) -> u64 {
        let fingerprint = fingerprint.unwrap_or_default();
        match counts {
            Some(counts) => with_counts(fingerprint, counts),
            None => fingerprint,
        }
    }

    /// `child`'s key, out of a state with counts `before` (where kept).
    fn child_key(&self, child: &Child<'a>, before: Option<&Counts>) -> u64 {
        let counts: Option<Counts> = before.map(|before| {
            before
                .iter()
                .zip(&child.delta)
                .map(|(b, d)| b.wrapping_add(*d))
                .collect()
        });
        self.interpret_key(child.fingerprint, counts.as_ref())
    }

    /// The reachability search over the interpreter's states, from `start` (in its
    /// canonical order).
    pub(super) fn reach_interpret(
        &mut self,
        start: State<'a>,
        keep_counts: bool,
    ) -> Result<Reachable, ModelError> {
        let mut seen = Seen::new(1);
        let counts = keep_counts.then(|| start.0.counts());
        let key = self.interpret_key(Some(self.rules.key(&start.0, &start.1)), counts.as_ref());
        let slot = seen.find(key).err().unwrap_or_default();
        seen.insert(slot, key, NO_PARENT);
        let bytes = start.0.state_bytes(&start.1);
        self.memory.held = bytes;
        let mut frontier = VecDeque::from([Waiting {
            id: 0,
            depth: 0,
            bytes,
            state: start,
        }]);
        let (mut firsts, mut deepest, mut expanded) = (Firsts::default(), 0, 0usize);
        // One for the whole search: each state's children are told apart from each other
        // alone (the seen set does the rest), and its set of fingerprints is reused.
        let mut keep = Keep::new(u64::MAX, u64::MAX);
        while let Some(waiting) = frontier.pop_front() {
            expanded += 1;
            let before = keep_counts.then(|| waiting.state.0.counts());
            let depth = waiting.depth + 1;
            keep.clear();
            match self
                .rules
                .expand(waiting, &mut self.spare, &mut keep, KNOWN)?
            {
                Expanded::Ended { id, bytes, end } => {
                    self.memory.held -= bytes;
                    let metrics = self.reach_metrics(end, keep_counts);
                    self.reach_found(&mut firsts, id, metrics);
                }
                Expanded::Children {
                    id,
                    ordered,
                    reduced,
                    transitions,
                    children,
                    bytes,
                    parent,
                } => {
                    self.ordered |= ordered;
                    self.reduced += u64::from(reduced);
                    self.memory.held -= bytes;
                    let mut cut = 0;
                    for child in children {
                        let key = self.child_key(&child, before.as_ref());
                        let slot = match seen.find(key) {
                            Ok(_) => None,
                            Err(slot) if self.reach_admits(&seen, key, child.bytes) => Some(slot),
                            Err(_) => {
                                cut += 1;
                                None
                            }
                        };
                        let Some(slot) = slot else {
                            if let Some(state) = child.state {
                                self.spare.recycle(state, child.bytes);
                            }
                            continue;
                        };
                        let state = match child.state {
                            Some(state) => state,
                            None => {
                                let parent = parent.as_ref().ok_or_else(|| {
                                    ModelError::Invariant(
                                        "a child's state was dropped with its parent".into(),
                                    )
                                })?;
                                self.rebuild(parent, child.choice, depth)?
                            }
                        };
                        let to = seen.insert(slot, key, id);
                        deepest = depth;
                        frontier.push_back(Waiting {
                            id: to,
                            depth,
                            bytes: child.bytes,
                            state,
                        });
                    }
                    if let Some(parent) = parent {
                        self.spare.recycle(parent, bytes);
                    }
                    self.transitions += transitions.saturating_sub(cut);
                }
            }
            if expanded.is_multiple_of(EXPANSIONS_PER_LOOK)
                && !self.reach_look(&seen, !frontier.is_empty())?
            {
                break;
            }
        }
        Ok(Reachable {
            seen,
            firsts,
            deepest,
        })
    }

    /// The decisions of the execution along `chain` (the states from the start) in the
    /// real run, and whether the reduction took each alone: the kept states expanded
    /// again from the start, at each the child whose key is the next state's taken.
    pub(super) fn interpret_decisions(
        &mut self,
        seen: &Seen,
        chain: &[u32],
        keep_counts: bool,
    ) -> Result<(Vec<Decision>, Vec<bool>), ModelError> {
        let lost = || {
            ModelError::Invariant(
                "internal: a state's execution, searched again along its parents, lost its way"
                    .into(),
            )
        };
        let rules = &self.rules;
        let (mut sim, mut queue) = start(rules.point, &rules.context, rules.limits.max_faults)?;
        rules
            .symmetry
            .canonicalize(&mut sim, &mut queue, &mut Vec::new());
        let mut state: State<'a> = Box::new((sim, queue));
        let mut choices = Vec::with_capacity(chain.len());
        for (depth, &next) in chain.iter().skip(1).enumerate() {
            let before = keep_counts.then(|| state.0.counts());
            let waiting = Waiting {
                id: 0,
                depth: depth as u32,
                bytes: 0,
                state,
            };
            let mut keep = Keep::new(u64::MAX, u64::MAX);
            let Expanded::Children {
                children, parent, ..
            } = self
                .rules
                .expand(waiting, &mut self.spare, &mut keep, KNOWN)?
            else {
                return Err(lost());
            };
            let child = (children.into_iter())
                .find(|child| seen.find(self.child_key(child, before.as_ref())) == Ok(next))
                .ok_or_else(lost)?;
            choices.push(child.choice);
            state = match child.state {
                Some(state) => state,
                None => self.rebuild(
                    parent.as_ref().ok_or_else(lost)?,
                    child.choice,
                    depth as u32 + 1,
                )?,
            };
        }
        self.real_decisions(&choices)
    }
}
