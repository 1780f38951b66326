//! A level's fresh states merged on every thread ([`super::par`]'s third step): numbered
//! by the least (parent, pick) each was met from, as one thread numbers them, and laid out
//! for the next level in that order.
//!
//! Why it can be cut: thread `t` expanded a contiguous share of the level's states, so
//! every state first met from one of them comes, in that order, after every state first
//! met from an earlier share and before every one from a later share; and each part's
//! fresh list holds its states from share 0, then share 1, and so on (a part meets the
//! shares in order). So thread `t` merges the parts' runs from share `t` alone, its first
//! number known beforehand from the lengths of the runs before it (a prefix sum); this
//! thread then appends the threads' pieces in order, a copy of their bytes
//! ([`super::par`]).

use super::seen::Fresh;

/// The children a thread sent to one part: each one's fingerprint, where it was met from
/// (its parent's number above its pick's 16 bits), where its packed words start.
#[derive(Default)]
pub(super) struct Outbox {
    pub(super) met: Vec<(u64, u64, usize)>,
    pub(super) bytes: Vec<u8>,
}

/// One thread's share of a level's merge: its states' keys and first parents, their
/// packed words, where every state that starts a mark of the next level starts in them, and, for each part, the numbers of the part's states it took (in the part's
/// order). Kept from level to level (nothing is allocated per state).
#[derive(Default)]
pub(super) struct Piece {
    pub(super) keys: Vec<u64>,
    pub(super) parents: Vec<u32>,
    pub(super) bytes: Vec<u8>,
    pub(super) marks: Vec<usize>,
    pub(super) numbers: Vec<Vec<u32>>,
}

impl Piece {
    /// The bytes its lists hold.
    pub(super) fn bytes(&self) -> usize {
        let numbers: usize = self.numbers.iter().map(Vec::capacity).sum();
        8 * self.keys.capacity()
            + 4 * self.parents.capacity()
            + self.bytes.capacity()
            + 8 * self.marks.capacity()
            + 4 * numbers
    }
}

/// Where share `t`'s run starts in `fresh` (each part's states are in share order).
pub(super) fn run_start(fresh: &Fresh, t: usize) -> usize {
    fresh.at.partition_point(|&(share, _)| (share as usize) < t)
}

/// Share `t`'s piece: the parts' runs from share `t` (whose children are in `outs`, one
/// outbox a part) merged by (parent, pick), its first state numbered `numbered` and the
/// `first`-th of the next level, whose every `mark`-th state is marked.
pub(super) fn merge_share(
    t: usize,
    piece: &mut Piece,
    (fresh, outs): (&[Fresh], &[Outbox]),
    (numbered, first, mark): (usize, usize, usize),
) {
    let parts = fresh.len();
    let mut heads: Vec<usize> = fresh.iter().map(|f| run_start(f, t)).collect();
    let ends: Vec<usize> = fresh.iter().map(|f| run_start(f, t + 1)).collect();
    piece.keys.clear();
    piece.parents.clear();
    piece.bytes.clear();
    piece.marks.clear();
    piece.numbers.resize_with(parts, Vec::new);
    for numbers in &mut piece.numbers {
        numbers.clear();
    }
    loop {
        let mut least: Option<(usize, u64)> = None;
        for (p, f) in fresh.iter().enumerate() {
            if heads[p] < ends[p] {
                let from = f.from[heads[p]];
                if least.is_none_or(|(_, l)| from < l) {
                    least = Some((p, from));
                }
            }
        }
        let Some((p, from)) = least else {
            return;
        };
        let h = heads[p];
        heads[p] += 1;
        let (_, j) = fresh[p].at[h];
        let out = &outs[p];
        let start = out.met[j as usize].2;
        let end = out.met.get(j as usize + 1).map_or(out.bytes.len(), |m| m.2);
        let index = piece.keys.len();
        if (first + index).is_multiple_of(mark) {
            piece.marks.push(piece.bytes.len());
        }
        piece.bytes.extend_from_slice(&out.bytes[start..end]);
        piece.keys.push(fresh[p].keys[h]);
        piece.parents.push((from >> 16) as u32);
        piece.numbers[p].push((numbered + index) as u32);
    }
}
