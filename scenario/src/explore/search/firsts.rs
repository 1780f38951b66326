//! Each state's first parent, found again from the edges rather than kept (8 bytes a state).
//!
//! The search numbers a new state when an edge first reaches it, so the edge that made
//! state `n` is the first edge into it, and the edges that made states are in the states'
//! order: among the edges, those that make a state are exactly the ones whose target is the
//! next state not made yet (every other edge leads to a state made before). Keeping the
//! making edge of every [`EVERY`]-th state, a state's is found by reading on from the kept
//! one before it (at most `EVERY` states made, and the edges merged between); its parent
//! is the state whose edges hold it (found in the states' first edges by a binary search),
//! its choice the edge's own.

use crate::explore::count::Edge;

/// The making edge of one state in this many is kept.
const EVERY: u32 = 16;

/// The edge that made every [`EVERY`]-th state.
#[derive(Debug)]
pub(super) struct Firsts {
    /// Entry `k`: the edge that made state `k × EVERY` (the start, made by none: 0).
    made_by: Vec<u32>,
}

impl Firsts {
    /// The start alone, made by no edge.
    pub(super) fn new() -> Firsts {
        Firsts { made_by: vec![0] }
    }

    /// State `node` was made by edge `edge` (each state in turn, from 1).
    pub(super) fn made(&mut self, node: u32, edge: usize) {
        if node.is_multiple_of(EVERY) {
            self.made_by.push(edge as u32);
        }
    }

    /// The bytes it holds.
    pub(super) fn bytes(&self) -> u64 {
        (std::mem::size_of::<u32>() * self.made_by.capacity()) as u64
    }

    /// The edge that made state `node` (not the start) and its index, from `len` edges read
    /// by `edge`; `None` when no edge made it.
    pub(super) fn made_by(
        &self,
        node: u32,
        len: usize,
        edge: impl Fn(usize) -> Edge,
    ) -> Option<(usize, Edge)> {
        let kept = *self.made_by.get((node / EVERY) as usize)?;
        // The next state made from the kept edge on (the start is made by no edge).
        let mut next = (node / EVERY * EVERY).max(1);
        for at in kept as usize..len {
            let read = edge(at);
            if read.to == next {
                if next == node {
                    return Some((at, read));
                }
                next += 1;
            }
        }
        None
    }
}

/// The state whose edges hold edge `at`, given each state's first edge (`starts`, a state
/// with none starting where the next does).
pub(super) fn holder(starts: &[u32], at: usize) -> Option<u32> {
    let after = starts.partition_point(|&start| start as usize <= at);
    after.checked_sub(1).map(|node| node as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::step::Choice;

    proptest::proptest! {
        /// A breadth-first search over a random graph, merged as the search merges: each
        /// state's first parent and the pick that reached it as kept in a list (what this
        /// replaces) are those found again from the edges, for every state.
        #[test]
        fn parents_found_again_are_the_kept_ones(
            outs in proptest::collection::vec(proptest::collection::vec(0u32..400, 0..6), 1..400),
        ) {
            // State n's transitions lead to the states drawn for it (modulo the states
            // there are), the end of a vector marking "no more": a drawn number past the
            // states made so far makes a new one.
            let (mut edges, mut starts) = (Vec::new(), Vec::new());
            let mut parents = vec![(u32::MAX, 0u16)];
            let mut firsts = Firsts::new();
            let mut made = 1u32;
            let mut expanded = 0u32;
            while expanded < made && (expanded as usize) < outs.len() {
                starts.push(edges.len() as u32);
                for (pick, &drawn) in outs[expanded as usize].iter().enumerate() {
                    let choice = Choice { pick: pick as u16, ..Choice::default() };
                    let to = if drawn < made { drawn } else {
                        firsts.made(made, edges.len());
                        parents.push((expanded, pick as u16));
                        made += 1;
                        made - 1
                    };
                    edges.push(Edge::new(to, 0, &choice));
                }
                expanded += 1;
            }
            for node in 1..made {
                let (at, edge) = firsts
                    .made_by(node, edges.len(), |at| edges[at])
                    .expect("every state but the start was made by an edge");
                proptest::prop_assert_eq!(edge.to, node);
                let parent = holder(&starts, at).expect("an edge is a state's");
                proptest::prop_assert_eq!((parent, edge.pick), parents[node as usize]);
            }
            proptest::prop_assert!(firsts.made_by(made, edges.len(), |at| edges[at]).is_none());
        }
    }
}
