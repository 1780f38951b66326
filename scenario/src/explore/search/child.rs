//! A transition's child: the state it reaches, keyed by its fingerprint; and, in a build
//! with debug assertions, the check that a child merged by its fingerprint is the kept
//! state it was taken for.

use sim_core::{Due, EventQueue};

use super::{Branch, Child, Known, MOVED, Rules, Search};
use crate::explore::budget::Keep;
use crate::explore::spare::Spare;
#[cfg(debug_assertions)]
use crate::explore::spare::State;
use crate::explore::step::Choice;
use crate::run::state::{Event, Sim};
#[cfg(debug_assertions)]
use coordsim_model::ModelError;

impl<'a> Rules<'a> {
    /// The state's fingerprint (cut to 8 bits under `weak_fingerprints`, a test's).
    pub(super) fn key(&self, sim: &Sim<'a>, queue: &EventQueue<Event>) -> u64 {
        let fingerprint = sim.fingerprint(queue);
        if self.limits.weak_fingerprints {
            fingerprint & 0xff
        } else {
            fingerprint
        }
    }

    /// `branch` (of the event `pick` of the free events `next`, from a state with counts
    /// `before`) as a transition: its choice, its probability, the counts it added and the
    /// fingerprint of the state it reaches.
    /// The state is kept whole unless `keep` (a thread's share of the room) says the merge
    /// has no use for it: then it is spare, its fingerprint kept.
    pub(super) fn child(
        &self,
        (next, before): (&[Due<Event>], &[u64]),
        pick: usize,
        branch: Branch<'a>,
        keep: Option<(&mut Keep, Known<'_>)>,
        spare: &mut Spare<'a>,
    ) -> Child<'a> {
        let mut branch = branch;
        if self.limits.merge_states {
            let (sim, queue) = &mut *branch.state;
            MOVED.with_borrow_mut(|new_of| self.symmetry.canonicalize(sim, queue, new_of));
        }
        let drawn = &branch.ran.drawn;
        let probability: f64 = drawn
            .iter()
            .map(|d| {
                if d.taken {
                    d.probability
                } else {
                    1.0 - d.probability
                }
            })
            .product::<f64>()
            * branch.ran.beyond;
        let choice = Choice {
            pick: pick as u16,
            of: next.len() as u16,
            draws: drawn
                .iter()
                .enumerate()
                .fold(0, |bits, (i, d)| bits | u64::from(d.taken) << i),
            drawn: drawn.len() as u8,
            crash: false,
            alone: false,
        };
        let fingerprint = self
            .limits
            .merge_states
            .then(|| self.key(&branch.state.0, &branch.state.1));
        let delta = branch
            .state
            .0
            .counts()
            .iter()
            .zip(before)
            .map(|(after, before)| after.wrapping_sub(*before))
            .collect();
        let bytes = branch.state.0.state_bytes(&branch.state.1);
        let kept = keep.is_none_or(|(keep, known)| {
            // In the shared levels of a split no state is merged: each is new.
            let fingerprint = fingerprint.filter(|_| !known.shared);
            let merged =
                fingerprint.is_some_and(|f| known.seen.is_some_and(|seen| seen.contains(f)));
            keep.keeps(fingerprint, bytes, merged)
        });
        let state = if kept {
            Some(branch.state)
        } else {
            spare.recycle(branch.state, bytes);
            None
        };
        Child {
            choice,
            probability,
            delta,
            fingerprint,
            state,
            bytes,
        }
    }
}

impl<'a> Search<'a> {
    /// A debug build's check that `state`, met by the fingerprint of kept state `to`, is
    /// that state: two different states sharing a fingerprint stop the search.
    #[cfg(debug_assertions)]
    pub(super) fn same_state(&self, to: u32, state: &State<'a>) -> Result<(), ModelError> {
        match self.words.get(&to) {
            Some(words) if *words != state.0.state_words(&state.1) => {
                Err(ModelError::Invariant(format!(
                    "internal: two different states share a fingerprint (state {to} and one \
                     met later): the search merged them"
                )))
            }
            _ => Ok(()),
        }
    }

    /// A debug build's check of a merge by fingerprint into kept state `to` (from state
    /// `id`): the child's own state, or made again from its `parent` when the thread kept
    /// only its key, must be that state, word for word.
    #[cfg(debug_assertions)]
    pub(super) fn check_merge(
        &mut self,
        to: u32,
        child: &Child<'a>,
        parent: Option<&State<'a>>,
        id: u32,
    ) -> Result<(), ModelError> {
        match (&child.state, parent) {
            (Some(state), _) => self.same_state(to, state),
            (None, Some(parent)) => {
                let depth = self.depths.of(id) + 1;
                let state = self.rebuild(parent, child.choice, depth)?;
                let same = self.same_state(to, &state);
                let bytes = state.0.state_bytes(&state.1);
                self.spare.recycle(state, bytes);
                same
            }
            (None, None) => Ok(()),
        }
    }
}
