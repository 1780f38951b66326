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
//! thread then appends the threads' pieces in order, a copy of their bytes.

use std::sync::Arc;

use coordsim_model::ModelError;

use super::par::{Level, MARK, Produced, Threads};
use super::pool::Pool;
use super::seen::{Fresh, Seen};

/// One thread's share of a level's merge: its states' keys and first parents, their
/// packed words, where every state that starts a [`MARK`] of the next level starts in
/// them, and, for each part, the numbers of the part's states it took (in the part's
/// order). Kept from level to level (nothing is allocated per state).
#[derive(Default)]
pub(super) struct Piece {
    keys: Vec<u64>,
    parents: Vec<u32>,
    bytes: Vec<u8>,
    marks: Vec<usize>,
    numbers: Vec<Vec<u32>>,
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
fn run_start(fresh: &Fresh, t: usize) -> usize {
    fresh.at.partition_point(|&(share, _)| (share as usize) < t)
}

/// Share `t`'s piece: the parts' runs from share `t` merged by (parent, pick), its first
/// state the `first`-th of the next level.
fn merge_share(
    t: usize,
    piece: &mut Piece,
    (fresh, produced): (&[Fresh], &[Produced]),
    (numbered, first): (usize, usize),
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
        let out = &produced[t].outs[p];
        let start = out.met[j as usize].2;
        let end = out.met.get(j as usize + 1).map_or(out.bytes.len(), |m| m.2);
        let index = piece.keys.len();
        if (first + index).is_multiple_of(MARK) {
            piece.marks.push(piece.bytes.len());
        }
        piece.bytes.extend_from_slice(&out.bytes[start..end]);
        piece.keys.push(fresh[p].keys[h]);
        piece.parents.push((from >> 16) as u32);
        piece.numbers[p].push((numbered + index) as u32);
    }
}

/// The parts' fresh states (in `threads`) merged on the pool, numbered from `seen`'s next
/// number and laid out at the end of `next`; each part's numbers left in `threads` (in the
/// part's order) for the threads to write in its slots.
pub(super) fn merge_all(
    pool: &Pool<'_>,
    seen: &mut Seen,
    threads: &mut Threads,
    next: &mut Level,
) -> Result<(), ModelError> {
    let lost = || ModelError::Invariant("internal: a search thread kept a list".into());
    let shares = threads.pieces.len();
    // Each share's states, and so its first number (a prefix sum).
    let mut firsts = Vec::with_capacity(shares);
    let mut before = 0;
    for t in 0..shares {
        firsts.push(before);
        before += (threads.fresh.iter())
            .map(|f| run_start(f, t + 1) - run_start(f, t))
            .sum::<usize>();
    }
    let fresh = Arc::new(std::mem::take(&mut threads.fresh));
    let produced = Arc::new(std::mem::take(&mut threads.produced));
    let (numbered, at) = (seen.len(), next.states);
    let (f, pr) = (Arc::clone(&fresh), Arc::clone(&produced));
    let pieces = std::mem::take(&mut threads.pieces);
    threads.pieces = pool.run(pieces, move |t, piece| {
        let offset = firsts[t];
        merge_share(t, piece, (&f, &pr), (numbered + offset, at + offset));
    })?;
    threads.fresh = Arc::into_inner(fresh).ok_or_else(lost)?;
    threads.produced = Arc::into_inner(produced).ok_or_else(lost)?;
    for numbers in &mut threads.numbers {
        numbers.clear();
    }
    for piece in &threads.pieces {
        for (&key, &parent) in piece.keys.iter().zip(&piece.parents) {
            seen.push(key, parent);
        }
        next.append(&piece.bytes, &piece.marks, piece.keys.len());
        for (numbers, of_piece) in threads.numbers.iter_mut().zip(&piece.numbers) {
            numbers.extend_from_slice(of_piece);
        }
    }
    Ok(())
}
