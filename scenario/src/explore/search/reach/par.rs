//! The reachability search's levels on several threads (`--jobs`), numbering every state
//! as one thread does. A level is expanded in three steps, each on every thread:
//!
//! 1. each thread expands a contiguous share of the level's states and sends each child
//!    (its fingerprint, where it was met from: its parent's number and its pick, and its
//!    packed words) to the table part its fingerprint names ([`part_of`]);
//! 2. each thread takes the children sent to its own part, in the order one thread meets
//!    them (the first share's, then the next's), and keeps those it has not met: a fresh
//!    state's first parent is then the least (parent, pick) it was met from, as on one
//!    thread;
//! 3. each thread merges the parts' fresh states met from its own share by that least
//!    (parent, pick), numbering them in the order one thread would ([`super::merge`]: a
//!    share's first number is the count of the shares before it); this thread lays out
//!    the next level from the threads' pieces in order, then each thread writes its
//!    part's numbers in its slots.
//!
//! Why parts and not one table of atomic slots: the parts need no lock, no atomic and no
//! compare-and-swap; each lookup is the one thread's (the same probe, the same cache miss);
//! the only added work is a child's packed words written once and copied twice, and the
//! merge, one pass over the new states. A level where a bound (states, memory) may be met
//! is left to the one thread, which admits state after state in its order: so whatever
//! `--jobs`, the same states are kept, numbered the same, with the same first parents.

use std::sync::Arc;

use coordsim_model::ModelError;

use super::expand::{Buffers, children, pack};
use super::level::{Level, Levels, MARK};
use super::merge::{Outbox, Piece, merge_share, run_start};
use super::pool::Pool;
use super::seen::{Fresh, MOST_STATES, Part, Seen, part_of};
use crate::explore::flat::Flat;
use crate::explore::search::Search;
use crate::explore::search::flat::fingerprint;

/// Levels narrower than this are expanded on one thread: threads would cost more than
/// they save (and small points' wider levels still take the threads, so that the tests'
/// points exercise them).
pub(super) const PAR_LEVEL: usize = 2 * MARK;

/// How a level went.
pub(super) enum Stepped {
    /// Expanded: its ends' numbers, in order (on one thread, already taken).
    Done(Vec<u32>),
    /// A step the flat back end leaves to the interpreter.
    NotFinite,
    /// Not expanded on several threads (a bound may be met in it); on one, the time bound
    /// ended the search.
    Declined,
}

/// What a thread's share of a level gave.
#[derive(Default)]
pub(super) struct Produced {
    /// One a part.
    pub(super) outs: Vec<Outbox>,
    ends: Vec<u32>,
    ordered: bool,
    reduced: u64,
    transitions: u64,
    not_finite: bool,
    /// A step's error (it stops the search).
    failed: Option<ModelError>,
}

/// What the threads reuse from level to level (nothing is allocated per state).
pub(super) struct Threads {
    /// One a thread.
    pub(super) produced: Vec<Produced>,
    /// One a part (as many as threads).
    pub(super) fresh: Vec<Fresh>,
    pub(super) numbers: Vec<Vec<u32>>,
    /// One a thread: its share of the merge.
    pub(super) pieces: Vec<Piece>,
}

impl Threads {
    pub(super) fn new(jobs: usize) -> Threads {
        let produced = (0..jobs)
            .map(|_| Produced {
                outs: (0..jobs).map(|_| Outbox::default()).collect(),
                ..Produced::default()
            })
            .collect();
        Threads {
            produced,
            fresh: (0..jobs).map(|_| Fresh::default()).collect(),
            numbers: vec![Vec::new(); jobs],
            pieces: (0..jobs).map(|_| Piece::default()).collect(),
        }
    }

    /// The bytes its lists hold now.
    fn bytes(&self) -> u64 {
        let outs = (self.produced.iter().flat_map(|p| &p.outs))
            .map(|o| 24 * o.met.capacity() + o.bytes.capacity())
            .sum::<usize>();
        let fresh = (self.fresh.iter())
            .map(|f| 32 * f.keys.capacity())
            .sum::<usize>();
        let pieces = (self.pieces.iter()).map(Piece::bytes).sum::<usize>();
        (outs + fresh + pieces) as u64
    }
}

/// A flat state's key, as [`Search::flat_key`] makes it.
fn key_of(words: &[u64], weak: bool) -> u64 {
    let fingerprint = fingerprint(words);
    if weak {
        fingerprint & 0xff
    } else {
        fingerprint
    }
}

/// Step 1 on one thread: the states `range` of `level` (numbered from `first`) expanded,
/// each child sent to its part's outbox in `out`.
fn produce(
    flat: &Flat<'_>,
    (level, first, size, weak): (&Level, usize, usize, bool),
    range: std::ops::Range<usize>,
    out: &mut Produced,
) -> Result<(), ModelError> {
    for outbox in &mut out.outs {
        outbox.met.clear();
        outbox.bytes.clear();
    }
    out.ends.clear();
    (out.ordered, out.reduced, out.transitions, out.not_finite) = (false, 0, 0, false);
    if range.is_empty() {
        return Ok(());
    }
    let mut state = vec![0; size];
    let mut bufs = Buffers::new(flat, size);
    let mut at = level.cursor(range.start);
    let parts = out.outs.len();
    for index in range {
        level.read(&mut at, &mut state);
        let id = (first + index) as u32;
        let outs = &mut out.outs;
        let expansion = children(flat, &state, &mut bufs, |pick, _, child| {
            let key = key_of(child, weak);
            let outbox = &mut outs[part_of(key, parts)];
            let from = u64::from(id) << 16 | u64::from(pick);
            outbox.met.push((key, from, outbox.bytes.len()));
            pack(child, &mut outbox.bytes);
            Ok(false)
        })?;
        let Ok(expansion) = expansion else {
            out.not_finite = true;
            return Ok(());
        };
        if expansion.of == 0 {
            out.ends.push(id);
        } else {
            out.ordered |= expansion.ordered;
            out.reduced += u64::from(expansion.alone);
            out.transitions += expansion.transitions;
        }
    }
    Ok(())
}

/// Step 2 on one thread: the children sent to part `p` met in the one thread's order.
fn meet_part(part: &mut Part, fresh: &mut Fresh, produced: &[Produced], p: usize) {
    fresh.clear();
    for (t, out) in produced.iter().enumerate() {
        for (j, &(key, from, _)) in out.outs[p].met.iter().enumerate() {
            part.meet(fresh, (key, from, (t as u32, j as u32)));
        }
    }
}

/// Step 2 on the pool: each part's children met (the parts and the fresh lists taken from
/// `seen` and `threads` for it, the parts left out of `seen` for the numbering: returned).
fn meet_all(
    pool: &Pool<'_>,
    seen: &mut Seen,
    threads: &mut Threads,
) -> Result<Vec<Part>, ModelError> {
    let lost = || ModelError::Invariant("internal: a search thread kept a list".into());
    let produced = Arc::new(std::mem::take(&mut threads.produced));
    let items = seen
        .take_parts()
        .into_iter()
        .zip(std::mem::take(&mut threads.fresh));
    let given = Arc::clone(&produced);
    let met = pool.run(items.collect(), move |p, (part, fresh)| {
        meet_part(part, fresh, &given, p);
    })?;
    threads.produced = Arc::into_inner(produced).ok_or_else(lost)?;
    let (parts, fresh) = met.into_iter().unzip();
    threads.fresh = fresh;
    Ok(parts)
}

/// Step 3 on the pool: each part's fresh states given their numbers, the parts put back in
/// `seen`.
fn number_all(
    pool: &Pool<'_>,
    seen: &mut Seen,
    parts: Vec<Part>,
    threads: &mut Threads,
) -> Result<(), ModelError> {
    let fresh = std::mem::take(&mut threads.fresh);
    let numbers = std::mem::take(&mut threads.numbers);
    let items = (parts.into_iter().zip(fresh).zip(numbers))
        .map(|((part, fresh), numbers)| (part, fresh, numbers))
        .collect();
    let numbered = pool.run(items, |_, (part, fresh, numbers)| {
        part.number(fresh, numbers);
    })?;
    let mut parts = Vec::with_capacity(numbered.len());
    for (part, fresh, numbers) in numbered {
        parts.push(part);
        threads.fresh.push(fresh);
        threads.numbers.push(numbers);
    }
    seen.put_parts(parts);
    Ok(())
}

impl<'a> Search<'a> {
    /// `levels`' level expanded on as many threads as `threads` has (see the module's
    /// words), unless a bound may be met in it (`Declined`: nothing changed).
    pub(super) fn level_par<'s>(
        &mut self,
        flat: &'s Flat<'a>,
        seen: &mut Seen,
        levels: &mut Levels,
        (threads, pool): (&mut Threads, &Pool<'s>),
    ) -> Result<Stepped, ModelError> {
        let states = levels.now.states;
        // The outboxes take each child's words packed, and 24 bytes; a guess of them
        // before (a level's children are a few times its states), the sure count after.
        let guess = 8 * levels.now.packed() as u64 + 64 * states as u64;
        let held = self.memory.held;
        let over = |bytes: u64| {
            self.memory
                .budget
                .is_some_and(|budget| held + bytes > budget)
        };
        if self.memory.full || self.bounded.is_some() || over(seen.bytes_with(0) + guess) {
            return Ok(Stepped::Declined);
        }
        produce_all(
            flat,
            levels,
            threads,
            pool,
            self.rules.limits.weak_fingerprints,
        )?;
        if let Some(failed) = threads.produced.iter_mut().find_map(|p| p.failed.take()) {
            return Err(failed);
        }
        if threads.produced.iter().any(|p| p.not_finite) {
            return Ok(Stepped::NotFinite);
        }
        let met: usize = (threads.produced.iter().flat_map(|p| &p.outs))
            .map(|o| o.met.len())
            .sum();
        let words: u64 = (threads.produced.iter().flat_map(|p| &p.outs))
            .map(|o| o.bytes.len() as u64)
            .sum();
        let most = (self.rules.limits.max_states as usize).min(MOST_STATES);
        if seen.len() + met > most
            || over(threads.bytes() + 2 * words + 56 * met as u64 + seen.bytes_with(met))
        {
            return Ok(Stepped::Declined);
        }
        for out in &threads.produced {
            self.ordered |= out.ordered;
            self.reduced += out.reduced;
            self.transitions += out.transitions;
        }
        let parts = meet_all(pool, seen, threads)?;
        self.memory.held += merge_all(pool, seen, threads, &mut levels.next)?;
        if levels.next.states > 0 {
            levels.deepest = levels.depth + 1;
        }
        number_all(pool, seen, parts, threads)?;
        let ends = threads
            .produced
            .iter()
            .flat_map(|p| p.ends.iter().copied())
            .collect();
        Ok(Stepped::Done(ends))
    }
}

/// Step 1 on the pool: each thread's contiguous share of `levels`' level expanded (the
/// level lent to the threads behind an `Arc`, and given back).
fn produce_all<'s>(
    flat: &'s Flat<'_>,
    levels: &mut Levels,
    threads: &mut Threads,
    pool: &Pool<'s>,
    weak: bool,
) -> Result<(), ModelError> {
    let now = Arc::new(std::mem::take(&mut levels.now));
    let (first, size, states) = (levels.first, levels.size, now.states);
    let per = states
        .div_ceil(threads.produced.len())
        .next_multiple_of(MARK);
    let shared = Arc::clone(&now);
    let produced = std::mem::take(&mut threads.produced);
    threads.produced = pool.run(produced, move |t, out| {
        let range = (t * per).min(states)..((t + 1) * per).min(states);
        out.failed = produce(flat, (&shared, first, size, weak), range, out).err();
    })?;
    levels.now = Arc::into_inner(now)
        .ok_or_else(|| ModelError::Invariant("internal: a search thread kept a level".into()))?;
    Ok(())
}

/// The parts' fresh states (in `threads`) merged on the pool, numbered from `seen`'s next
/// number and laid out at the end of `next`; each part's numbers left in `threads` (in the
/// part's order) for the threads to write in its slots. The bytes `next` took.
fn merge_all(
    pool: &Pool<'_>,
    seen: &mut Seen,
    threads: &mut Threads,
    next: &mut Level,
) -> Result<u64, ModelError> {
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
        let first = (numbered + offset, at + offset, MARK);
        merge_share(t, piece, (&f, &pr[t].outs), first);
    })?;
    threads.fresh = Arc::into_inner(fresh).ok_or_else(lost)?;
    threads.produced = Arc::into_inner(produced).ok_or_else(lost)?;
    for numbers in &mut threads.numbers {
        numbers.clear();
    }
    let mut grew = 0;
    for piece in &threads.pieces {
        for &parent in &piece.parents {
            seen.push(parent);
        }
        grew += next.append(&piece.bytes, &piece.marks, piece.keys.len()) as u64;
        for (numbers, of_piece) in threads.numbers.iter_mut().zip(&piece.numbers) {
            numbers.extend_from_slice(of_piece);
        }
    }
    Ok(grew)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// Children met by `threads` threads, each a contiguous share of 120 parents, with
    /// weak keys (7 bits: many children share one, and more collide in the table's slots
    /// as it grows): merged in `parts` parts on as many threads, the states are numbered
    /// as one thread numbers them, met in (parent, pick) order (an enumeration apart,
    /// with a map), each with that first parent, and the next level laid out in that order.
    fn numbered_as_one_thread(threads: usize) {
        let key = |parent: u64, pick: u64| (parent * 7 + pick * 13) % 128 + 1;
        let (parents, picks) = (120u64, 3u64);
        let mut expected: Vec<(u64, u32)> = Vec::new();
        let mut index = HashMap::new();
        for parent in 0..parents {
            for pick in 0..picks {
                let k = key(parent, pick);
                index.entry(k).or_insert_with(|| {
                    expected.push((k, parent as u32));
                    expected.len() - 1
                });
            }
        }
        let mut seen = Seen::new(threads);
        let mut given = Threads::new(threads);
        let per = parents.div_ceil(threads as u64);
        for (t, out) in given.produced.iter_mut().enumerate() {
            for parent in (t as u64 * per)..((t as u64 + 1) * per).min(parents) {
                for pick in 0..picks {
                    let k = key(parent, pick);
                    let outbox = &mut out.outs[part_of(k, threads)];
                    outbox
                        .met
                        .push((k, parent << 16 | pick, outbox.bytes.len()));
                    pack(&[k], &mut outbox.bytes);
                }
            }
        }
        let parts = std::thread::scope(|scope| {
            let pool = Pool::new(scope, threads);
            let parts = meet_all(&pool, &mut seen, &mut given).expect("met");
            let mut next = Level::new(1);
            merge_all(&pool, &mut seen, &mut given, &mut next).expect("merged");
            number_all(&pool, &mut seen, parts, &mut given).expect("numbered");
            next
        });
        let next = parts;
        assert_eq!(seen.len(), expected.len());
        let mut at = next.cursor(0);
        for (number, &(k, parent)) in expected.iter().enumerate() {
            assert_eq!(seen.find(k), Ok(number as u32), "key {k}");
            assert_eq!(seen.parent(number as u32), parent, "key {k}");
            let mut laid = [0];
            next.read(&mut at, &mut laid);
            assert_eq!(laid, [k], "{number}");
        }
        assert_eq!(next.states, expected.len());
        assert!(seen.find(200).is_err());
    }

    #[test]
    fn the_parts_number_states_as_one_thread_does() {
        for threads in [1, 2, 3] {
            numbered_as_one_thread(threads);
        }
    }
}
