//! The search's memory, in bytes: what its kept states, its frontier and its graph take
//! (an estimate from their contents, [`crate::run::state::Sim::state_bytes`], so the same with any number of
//! threads), the budget that bounds them, and which children a thread keeps whole while
//! a chunk expands.
//!
//! The budget decides, in merge order, whether a new state is kept: deterministic. A
//! thread expanding a chunk keeps a child's state only when the merge may keep it: a
//! child reached before (by the states merged before the chunk, or earlier in its own
//! share) is merged into that state, and past its share of the room left it keeps only
//! the fingerprint. Should the merge keep a child whose state was not kept, the state is
//! made again from its parent (kept for it), so what the threads drop never changes the
//! result.

use rustc_hash::FxHashSet;

/// The part of the budget the search's states and graph may take: the rest is for what
/// is not counted (a chunk's children made and dropped, spare states, the allocator's
/// slack, the counting after the search).
const KEPT_SHARE: (u64, u64) = (5, 8);

/// The memory bound of one search: its budget and what it holds.
#[derive(Debug, Default)]
pub(super) struct Memory {
    /// Most bytes the kept states and the graph may take (`None`: no bound).
    pub(super) budget: Option<u64>,
    /// The bytes of the states kept: the frontier's (and the chunk's being expanded, until
    /// each is merged), and the ends' kept for their counts.
    pub(super) held: u64,
    /// The budget was reached: no new state is kept.
    pub(super) full: bool,
}

impl Memory {
    /// The bound for a budget of `max_memory_bytes` in all.
    pub(super) fn new(max_memory_bytes: Option<u64>) -> Memory {
        Memory {
            budget: max_memory_bytes.map(|b| b / KEPT_SHARE.1 * KEPT_SHARE.0),
            held: 0,
            full: false,
        }
    }
}

/// What one thread keeps of its share of a chunk's children: the room the merge may have
/// for new states, and what it kept so far.
#[derive(Debug)]
pub(super) struct Keep {
    room_states: u64,
    room_bytes: u64,
    kept_states: u64,
    kept_bytes: u64,
    /// The fingerprints of the children met so far in this share.
    met: FxHashSet<u64>,
}

impl Keep {
    /// Room for `room_states` new states of `room_bytes` in all, nothing kept yet.
    pub(super) fn new(room_states: u64, room_bytes: u64) -> Keep {
        Keep {
            room_states,
            room_bytes,
            kept_states: 0,
            kept_bytes: 0,
            met: FxHashSet::default(),
        }
    }

    /// Nothing kept yet, the same room: for the next state's children (the set of
    /// fingerprints met keeps its buffer, so a search that reuses one allocates once).
    pub(super) fn clear(&mut self) {
        self.kept_states = 0;
        self.kept_bytes = 0;
        self.met.clear();
    }

    /// Whether a child (with `fingerprint`, `bytes`) is kept whole: `false` when it is
    /// reached before (`merged`: among the states merged before the chunk, when the thread
    /// may read them; or earlier in this share) or past the share's room.
    pub(super) fn keeps(&mut self, fingerprint: Option<u64>, bytes: u64, merged: bool) -> bool {
        if let Some(fingerprint) = fingerprint
            && (merged || !self.met.insert(fingerprint))
        {
            return false;
        }
        if self.kept_states >= self.room_states
            || self.kept_bytes.saturating_add(bytes) > self.room_bytes
        {
            return false;
        }
        self.kept_states += 1;
        self.kept_bytes += bytes;
        true
    }
}
