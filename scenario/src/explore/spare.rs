//! What the search reuses and keys: states done with, copied into instead of allocated,
//! and an outcome's cells as a key.

use coordsim_model::Cell;
use sim_core::{Due, EventQueue};

use crate::run::state::{Event, Sim};

/// A run as it stands at a state, boxed: it moves from a branch to the frontier to a
/// thread and back, as one pointer (a `Sim` is most of a kilobyte).
pub(super) type State<'a> = Box<(Sim<'a>, EventQueue<Event>)>;

/// Most spare states kept: a chunk's expansions (2,048 states a thread) each free their
/// own state and take one per new child; and on several threads the merge gives back the
/// children it merged into states the threads did not know of yet (up to a chunk's
/// children: 16,384 a thread), which the next chunk copies into instead of allocating.
const MAX_SPARE: usize = 32 * 1024;

/// Most bytes of spare states kept (by [`Sim::state_bytes`]) when no memory budget says
/// less: a state of a thousand actors is hundreds of kilobytes, and 4,096 of them would
/// take more than the states the search keeps.
pub(super) const MAX_SPARE_BYTES: u64 = 64 << 20;

/// What one thread's expansions reuse: states done with (expanded, or reached again), to
/// copy the next ones into, and the list of an expanded state's free events. A state is a
/// few dozen buffers; copied into one that has them already, it allocates nothing.
pub(super) struct Spare<'a> {
    /// Each with its bytes.
    states: Vec<(u64, State<'a>)>,
    pub(super) next: Vec<Due<Event>>,
    /// The bytes of `states`, and the most they may take.
    bytes: u64,
    max_bytes: u64,
}

impl Default for Spare<'_> {
    fn default() -> Self {
        Spare::holding(MAX_SPARE_BYTES)
    }
}

impl<'a> Spare<'a> {
    /// State `state` (of `bytes`, [`Sim::state_bytes`]) is done with: kept to copy into,
    /// unless enough are kept already (a spare state is a whole run's state: past what a
    /// chunk of expansions uses, keeping more would only add to the frontier's memory).
    pub(super) fn recycle(&mut self, state: State<'a>, bytes: u64) {
        if self.states.len() >= MAX_SPARE {
            return;
        }
        if self.bytes + bytes <= self.max_bytes {
            self.bytes += bytes;
            self.states.push((bytes, state));
        }
    }

    /// No spare state yet, and at most `max_bytes` of them to be kept.
    pub(super) fn holding(max_bytes: u64) -> Spare<'a> {
        Spare {
            states: Vec::new(),
            next: Vec::new(),
            bytes: 0,
            max_bytes,
        }
    }

    /// The most bytes of spare states it keeps.
    pub(super) fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// A thread's share of these spare states (one in `shares` of them, and of the bytes
    /// they may take).
    pub(super) fn share(&mut self, shares: usize) -> Spare<'a> {
        let count = self.states.len() / shares.max(1);
        let states = self.states.split_off(self.states.len() - count);
        let bytes: u64 = states.iter().map(|(bytes, _)| bytes).sum();
        self.bytes -= bytes;
        Spare {
            states,
            next: Vec::new(),
            bytes,
            max_bytes: self.max_bytes / shares.max(1) as u64,
        }
    }

    /// A thread's spare states taken back.
    pub(super) fn join(&mut self, share: Spare<'a>) {
        for (bytes, state) in share.states {
            self.recycle(state, bytes);
        }
    }

    /// A copy of the run (`sim`, `queue`), in a spare state when there is one.
    pub(super) fn copy(&mut self, sim: &Sim<'a>, queue: &EventQueue<Event>) -> State<'a> {
        match self.states.pop() {
            Some((bytes, mut state)) => {
                self.bytes -= bytes;
                state.0.copy_explored_from(sim);
                state.1.clone_from(queue);
                state
            }
            None => Box::new((sim.clone(), queue.clone())),
        }
    }
}

/// An outcome's cells as a key: two outcomes are one when every cell is the same (a float
/// by its bits, every NaN one NaN).
pub(super) fn cells_key(cells: &[Cell]) -> Vec<u8> {
    let mut key = Vec::with_capacity(9 * cells.len());
    for cell in cells {
        match cell {
            Cell::Count(count) => {
                key.push(0);
                key.extend_from_slice(&count.to_le_bytes());
            }
            Cell::Float(value) => {
                key.push(1);
                let bits = if value.is_nan() {
                    f64::NAN.to_bits()
                } else {
                    value.to_bits()
                };
                key.extend_from_slice(&bits.to_le_bytes());
            }
            Cell::Flag(b) => key.extend_from_slice(&[2, u8::from(*b)]),
            Cell::Text(text) => {
                key.push(3);
                key.extend_from_slice(&(text.len() as u64).to_le_bytes());
                key.extend_from_slice(text.as_bytes());
            }
            Cell::Empty => key.push(4),
        }
    }
    key
}
