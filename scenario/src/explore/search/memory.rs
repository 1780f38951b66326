//! The search's memory, in bytes ([`crate::explore::budget`]): what its graph takes, the
//! room a chunk's threads have, whether the merge keeps a new state, and a state a thread
//! did not keep made again when the merge keeps it.

use coordsim_model::{Bound, ModelError, Reached};

use super::{Search, State};
use crate::explore::budget::Keep;
use crate::explore::step::{Choice, choices_into, in_execution, run_chosen};

impl<'a> Search<'a> {
    /// The bytes the graph takes: its edges (their draws and ranks where kept), depths,
    /// visits and keys, by their lists' capacities (which grow in merge order alone: the
    /// same with any number of threads).
    pub(super) fn graph_bytes(&self) -> u64 {
        let bytes = std::mem::size_of::<u32>() * self.ranks.capacity()
            + std::mem::size_of::<coordsim_model::explore::Visit>() * self.visits.capacity();
        // The seen states are two sets folded now and then (when depends on the number of
        // threads): their bytes are taken as the one set's, the same with any.
        self.edges.bytes() + self.depths.bytes() + bytes as u64 + self.seen.bytes_with(&self.young)
    }

    /// What each of `shares` threads may keep of the next chunk's children, less what
    /// `in_flight` (states, bytes: kept by a chunk not merged yet) may take.
    pub(super) fn keep(
        &self,
        shares: usize,
        (in_flight_states, in_flight_bytes): (u64, u64),
    ) -> Keep {
        let room_states = self
            .rules
            .limits
            .max_states
            .saturating_sub(self.depths.len() as u64 + in_flight_states);
        let room_bytes = match self.memory.budget {
            _ if self.memory.full => 0,
            None => u64::MAX,
            Some(budget) => {
                budget.saturating_sub(self.memory.held + self.graph_bytes() + in_flight_bytes)
                    / shares.max(1) as u64
            }
        };
        Keep::new(room_states, room_bytes)
    }

    /// Whether a new state of `bytes` is kept: `false` (and the search bounded) past the
    /// state bound or the memory budget.
    pub(super) fn admits(&mut self, bytes: u64) -> bool {
        let states = self.depths.len() as u64;
        let max_states = self.rules.limits.max_states;
        self.admits_within(states, max_states, Self::graph_bytes, bytes)
    }

    /// Whether one more state of `bytes`, beside `states` states that hold `kept` bytes of
    /// the search's own (read only where a budget is to be met), is kept under `max_states`
    /// and the budget: `false` (and the search bounded, by the first bound met) past
    /// either. Once full, it stays full.
    pub(super) fn admits_within(
        &mut self,
        states: u64,
        max_states: u64,
        kept: impl FnOnce(&Self) -> u64,
        bytes: u64,
    ) -> bool {
        if states >= max_states {
            self.bounded
                .get_or_insert(Bound::new(Reached::States { states }));
            return false;
        }
        if self.memory.full
            || (self.memory.budget)
                .is_some_and(|budget| self.memory.held + kept(self) + bytes > budget)
        {
            self.memory.full = true;
            self.bounded
                .get_or_insert(Bound::new(Reached::Memory { states }));
            return false;
        }
        self.memory.held += bytes;
        true
    }

    /// The state that transition `choice` out of `parent` reaches, made again (a thread
    /// kept its fingerprint only): the event run with the draws it decided, the state put
    /// in its canonical order as [`Search::child`] does.
    pub(super) fn rebuild(
        &mut self,
        parent: &State<'a>,
        choice: Choice,
        depth: u32,
    ) -> Result<State<'a>, ModelError> {
        let mut next = Vec::new();
        choices_into(&parent.0, &parent.1, &mut next);
        let due = *next.get(usize::from(choice.pick)).ok_or_else(|| {
            ModelError::Invariant("a transition made again found fewer free events".into())
        })?;
        let mut state = self.spare.copy(&parent.0, &parent.1);
        let (sim, queue) = &mut *state;
        run_chosen(sim, queue, due, choice.draws, choice.crash)
            .map_err(|e| in_execution(e, depth))?;
        if self.rules.limits.merge_states {
            super::MOVED
                .with_borrow_mut(|new_of| self.rules.symmetry.canonicalize(sim, queue, new_of));
        }
        Ok(state)
    }
}
