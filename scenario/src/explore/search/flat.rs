//! The search over flat states ([`Flat`]): breadth first in the interpreter's order, with
//! its merges, its edges and its reduction, so that the counting, the outcomes and the
//! traces after it ([`Search::finish`]) are the same code over the same graph.
//!
//! A state's words are kept while it waits, level by level (the level being expanded and
//! the next), and dropped once it is expanded; what stays of it is its 64-bit fingerprint
//! in the seen set (mapped to its node) and its edges (its first parent and the choice that
//! reached it are found again from them, [`Firsts`]; its depth follows from its node: the
//! states are numbered level by level). Two states are merged by their fingerprint alone, as the interpreter's
//! search merges them; a build with debug assertions keeps every state's words and stops
//! with an internal error when two different states share one.
//!
//! The memory budget counts, for each state, its words while it waits, its
//! share of the seen set (its segments' buckets, as the interpreter's search counts its
//! own) and room for the entries of the counting that follows the search (each state is
//! reached with its counts at least once, often more): the flat
//! states are small, so the graph and the counting are most of what a flat search holds.

use coordsim_model::{Bound, ModelError, Reached};
use sim_core::SimError;

use std::sync::atomic::{AtomicBool, Ordering};

use super::firsts::{Firsts, holder};
use super::side::Side;
use super::{End, Expanded, Search};
use crate::explore::count::{Drawn, Edge, Entry, Walk};
use crate::explore::flat::{Flat, NotFinite, Ways};
use crate::explore::step::{Choice, choices_into, in_execution, run_chosen, start};

/// States expanded between two looks at the stop flags and the time bound.
const EXPANSIONS_PER_LOOK: usize = 4096;

/// A flat state's 64-bit fingerprint: each word folded in by a 64 × 64 → 128-bit multiply
/// whose halves are xored (as wyhash and rapidhash do: a difference anywhere in a word,
/// its high bits too, reaches every bit), then the whole mixed by SplitMix64's finaliser.
pub(super) fn fingerprint(words: &[u64]) -> u64 {
    let fold = |a: u64, b: u64| {
        let product = u128::from(a) * u128::from(b);
        (product as u64) ^ ((product >> 64) as u64)
    };
    let mut hash = fold(words.len() as u64, 0xA076_1D64_78BD_642F);
    for &word in words {
        hash = fold(hash ^ word ^ 0xE703_7ED1_A0B4_28DB, 0x9E37_79B9_7F4A_7C15);
    }
    hash = (hash ^ (hash >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    hash = (hash ^ (hash >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    hash ^ (hash >> 31)
}

/// What the flat levels keep beside the level being expanded: the buffers of a canonical
/// order, the next level's states, the edges that made every few nodes (each node's first
/// parent and the choice that reached it are found again from them: an end's run is
/// replayed along them), a debug build's every state (to compare two states merged by one
/// fingerprint), and the bytes the budget counts for each new state.
struct Kept {
    order: Vec<u32>,
    scratch: Vec<u64>,
    next_level: Vec<u64>,
    #[cfg(debug_assertions)]
    all: Vec<u64>,
    firsts: Firsts,
    state_bytes: u64,
}

/// The state whose children are being made: its node, the children's depth and the next
/// child's rank; its free events; whether the reduction took one alone.
struct Made {
    at: (u32, u32, usize),
    of: u16,
    alone: bool,
}

/// Clears its flag when dropped: the search beside which a thread walks has ended.
struct Stop<'f>(&'f AtomicBool);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl<'a> Search<'a> {
    /// The graph explored over `flat`'s states, from node 0 (the start, merged already).
    /// `Ok(false)` when a step came up that the flat back end leaves to the interpreter (a
    /// write of no finite value, an event past the time limit: the interpreter says where):
    /// the search then runs again with the interpreter, from the start.
    ///
    /// On several threads one other thread walks the counting's entries on meanwhile
    /// ([`Side`], fed every [`EXPANSIONS_PER_LOOK`] expansions): the walk is the same
    /// whatever it is fed with when, so nothing the search finds depends on the threads.
    pub(super) fn flat_search(&mut self, flat: &Flat<'a>) -> Result<bool, ModelError> {
        // Read before the walk goes beside: the budget is the same with any `--jobs`.
        let spill_share = self.walk.spill_share();
        if self.rules.limits.jobs < 2 {
            return self.flat_levels(flat, &mut None, spill_share);
        }
        let walk = std::mem::replace(&mut self.walk, Walk::new(&[], false));
        let side = Side::new(walk, &self.rules.limits);
        let searching = AtomicBool::new(true);
        let searched = std::thread::scope(|scope| {
            scope.spawn(|| {
                while searching.load(Ordering::Acquire) && !side.abandoned() {
                    if !side.walk_step() {
                        // Nothing fed to walk yet: the search feeds more within a few
                        // thousand expansions.
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                }
            });
            // The walking thread stops when the search ends, even by a panic (else the
            // scope would wait for it for ever).
            let _stop = Stop(&searching);
            let mut beside = Some(&side);
            let searched = self.flat_levels(flat, &mut beside, spill_share);
            searched.map(|searched| (searched, beside.is_some()))
        });
        let (searched, walked_beside) = searched?;
        if walked_beside {
            self.walk = side.into_walk();
        }
        Ok(searched)
    }

    /// [`Search::flat_search`]'s levels, feeding `side` (if any) what is merged, the walk
    /// spilling past `spill_share` bytes of entries (if it spills). Where the
    /// side's copy of the graph would take the memory budget past its bound, the walk is
    /// taken back from it (and `side` emptied): the walk is the same either way, and the
    /// bytes the search keeps within the budget are the same with any `--jobs`.
    fn flat_levels(
        &mut self,
        flat: &Flat<'a>,
        side: &mut Option<&Side>,
        spill_share: Option<u64>,
    ) -> Result<bool, ModelError> {
        let mut fed = (0, 0, 0);
        let width = flat.width;
        // The states of the level being expanded (node `level_first` on) and of the next
        // one: a state is dropped once expanded (its fingerprint stays in the seen set).
        let mut level: Vec<u64> = Vec::new();
        flat.start(&mut level);
        let mut kept = Kept {
            order: Vec::new(),
            scratch: Vec::new(),
            next_level: Vec::new(),
            #[cfg(debug_assertions)]
            all: Vec::new(),
            firsts: Firsts::new(),
            state_bytes: 0,
        };
        flat.canonicalize(&mut level, &mut kept.order, &mut kept.scratch);
        #[cfg(debug_assertions)]
        kept.all.extend_from_slice(&level);
        let mut level_first = 0usize;
        // The seen set: the search's own table, which its memory counts (the interpreter's
        // start fingerprint, put there before the back end was chosen, taken out).
        self.young.clear();
        let start_key = self.flat_key(&level[..width]);
        self.young.insert(start_key, 0);
        // A state's words while it waits and room for two of the counting's entries (a
        // state is reached with its counts at least once, often more) and the word of its
        // first: what the memory budget counts for each new state beside the graph
        // ([`Search::graph_bytes`]: the edges, the depths and the seen set) and the edges
        // that made every few states (counted as they are kept).
        // Where the walk spills the entries it is done with, they take a share of the
        // budget apart (`spill_from_bytes`) rather than room beside each state.
        let entries_room = if spill_share.is_some() {
            0
        } else {
            2 * std::mem::size_of::<Entry>()
        };
        kept.state_bytes = (8 * width + entries_room + 8) as u64;
        self.memory.held = kept.state_bytes + spill_share.unwrap_or(0);
        let mut delta = vec![0u64; flat.counts()];
        let mut child = vec![0u64; width];
        let mut free = Vec::new();
        let mut ways = Ways::default();
        let mut expanded = 0usize;
        while expanded < self.depths.len() {
            let id = expanded as u32;
            if (id as usize - level_first) * width == level.len() {
                // The level is done, its states' words held no more: the next one is
                // expanded from here.
                self.memory.held = self.memory.held.saturating_sub((8 * level.len()) as u64);
                level_first = id as usize;
                std::mem::swap(&mut level, &mut kept.next_level);
                kept.next_level.clear();
            }
            expanded += 1;
            while self.starts.len() <= id as usize {
                self.starts.push(self.edges.len() as u32);
            }
            let from = (id as usize - level_first) * width;
            let state = &level[from..from + width];
            flat.free(state, &mut free);
            if free.is_empty() {
                self.flat_end(id, &kept.firsts, flat)?;
                continue;
            }
            let of = free.len();
            self.ordered |= of > 1;
            // The reduction: the first free event (in the interpreter's order) whose step
            // commutes with everything else is taken alone; the interpreter tried each
            // event before it, and counts each of their ways as transitions.
            let Ok((alone, mut transitions)) =
                flat.taken(state, &free, (&mut child, &mut delta), &mut ways)
            else {
                return Ok(false);
            };
            let picks = alone.map_or(0..of, |pick| pick..pick + 1);
            self.reduced += u64::from(alone.is_some());
            let depth = self.depths.of(id) + 1;
            let mut made = Made {
                at: (id, depth, 0),
                of: of as u16,
                alone: alone.is_some(),
            };
            let spent = flat.crashes(state);
            for pick in picks {
                // Each way the event runs ([`Ways`]: one where nothing draws), in the
                // interpreter's order, with its draws and their probability.
                ways.begin();
                while let Some((mut draws, given)) = ways.next() {
                    let step = flat.step(state, free[pick], &mut child, &mut delta, &mut draws);
                    if let Err(NotFinite) = step {
                        return Ok(false);
                    }
                    ways.ran(&draws, given);
                    transitions += 1;
                    let drawn = (draws.draws, draws.drawn, draws.probability * draws.beyond);
                    let cut = self.flat_merge(
                        flat,
                        &mut kept,
                        &mut made,
                        (pick, drawn, false),
                        (&mut child, &delta),
                    )?;
                    transitions -= u64::from(cut);
                }
                // The same event as a `crash_anywhere` crash of its actor, after its ways.
                if flat.may_crash(state, free[pick], spent) {
                    if let Err(NotFinite) = flat.crash(state, free[pick], &mut child, &mut delta) {
                        return Ok(false);
                    }
                    transitions += 1;
                    self.ordered = true;
                    let cut = self.flat_merge(
                        flat,
                        &mut kept,
                        &mut made,
                        (pick, (0, 0, 1.0), true),
                        (&mut child, &delta),
                    )?;
                    transitions -= u64::from(cut);
                }
            }
            self.transitions += transitions;
            if expanded.is_multiple_of(EXPANSIONS_PER_LOOK) {
                self.feed_side(side, &mut fed);
                self.outer.report_states(self.depths.len() as u64);
                if self.outer.stopped() {
                    return Err(ModelError::Sim(SimError::Stopped));
                }
                if expanded < self.depths.len() && self.outer.enough() {
                    self.bounded.get_or_insert(Bound::new(Reached::Time {
                        states: self.depths.len() as u64,
                    }));
                    break;
                }
            }
        }
        self.outer.report_states(self.depths.len() as u64);
        Ok(true)
    }

    /// A child made from state `made.at` (its pick among `made.of` free events, its draws
    /// as (bits, how many, probability), whether it is a crash), its words in `child`
    /// (put in their canonical order here) and its counts' `delta`, taken into the graph:
    /// an edge to the state it merges with, or to a new state (kept to be expanded).
    /// `true` where the state bound cut it (no transition).
    fn flat_merge(
        &mut self,
        flat: &Flat<'a>,
        kept: &mut Kept,
        made: &mut Made,
        (pick, (draws, drawn, probability), crash): (usize, (u64, u8, f64), bool),
        (child, delta): (&mut [u64], &[u64]),
    ) -> Result<bool, ModelError> {
        let (id, depth, rank) = made.at;
        made.at.2 += 1;
        flat.canonicalize(child, &mut kept.order, &mut kept.scratch);
        let choice = Choice {
            pick: pick as u16,
            of: made.of,
            alone: made.alone,
            draws,
            drawn,
            crash,
        };
        let drawn = Drawn::of(&choice, probability);
        let delta = if delta.iter().all(|d| *d == 0) {
            0
        } else {
            self.deltas.intern(delta)
        };
        let edge = |to: u32| Edge::new(to, delta, &choice);
        let key = self.flat_key(child);
        if let Some(to) = self.young.get(key) {
            #[cfg(debug_assertions)]
            {
                let (width, at) = (child.len(), to as usize * child.len());
                if kept.all[at..at + width] != child[..] {
                    return Err(ModelError::Invariant(format!(
                        "internal: two different states share a fingerprint (state \
                         {to} and one met later): the search merged them"
                    )));
                }
            }
            self.back |= to <= id;
            self.push_edge(edge(to), drawn, rank);
            return Ok(false);
        }
        if !self.admits(kept.state_bytes) {
            return Ok(true);
        }
        let to = self.depths.len() as u32;
        self.depths.push(depth);
        let firsts_bytes = kept.firsts.bytes();
        kept.firsts.made(to, self.edges.len());
        self.memory.held += kept.firsts.bytes() - firsts_bytes;
        kept.next_level.extend_from_slice(child);
        #[cfg(debug_assertions)]
        kept.all.extend_from_slice(child);
        self.young.insert(key, to);
        self.push_edge(edge(to), drawn, rank);
        Ok(false)
    }

    /// What was merged since the last feed fed to `side`, or, where its copy of the graph
    /// would take the search past three quarters of the memory budget, the walk taken back
    /// from it (and `side` emptied). A quarter of the budget is left for what the second
    /// thread takes besides what it counts (its heap, the feeds not taken in yet).
    fn feed_side(&mut self, side: &mut Option<&Side>, fed: &mut (usize, usize, usize)) {
        let Some(beside) = *side else {
            return;
        };
        if self.memory.budget.is_some_and(|budget| {
            self.memory.held + self.graph_bytes() + beside.bytes() > budget / 4 * 3
        }) {
            self.walk = beside.abandon();
            *side = None;
        } else {
            beside.feed(self.feed(fed));
        }
    }

    /// A flat state's fingerprint (its low 8 bits only with `weak_fingerprints`).
    pub(super) fn flat_key(&self, words: &[u64]) -> u64 {
        let fingerprint = fingerprint(words);
        if self.rules.limits.weak_fingerprints {
            fingerprint & 0xff
        } else {
            fingerprint
        }
    }

    /// Node `id`, a state with no event left: its end taken along the first execution that
    /// reached it ([`Search::flat_run_end`]).
    fn flat_end(&mut self, id: u32, firsts: &Firsts, flat: &Flat<'a>) -> Result<(), ModelError> {
        let mut picks = Vec::new();
        let mut node = id;
        while node != 0 {
            let parent = firsts
                .made_by(node, self.edges.len(), |at| self.edges.get(at))
                .and_then(|(at, edge)| Some((holder(&self.starts, at)?, edge, at)));
            let Some((parent, edge, at)) = parent else {
                return Err(ModelError::Invariant(format!(
                    "internal: no edge made state {node}"
                )));
            };
            let drawn = self.edges.drawn.get(at).copied().unwrap_or(Drawn::NONE);
            picks.push(edge.choice(0, drawn));
            node = parent;
        }
        picks.reverse();
        let (end, bytes) = self.flat_run_end(id, &picks, flat)?;
        self.memory.held += match &end {
            End::Metrics(cells) => std::mem::size_of_val(cells.as_slice()) as u64,
            End::Run(_) => bytes,
        };
        self.ends.push((id, end));
        Ok(())
    }

    /// Node `id`'s end, reached along `picks` (each a choice among the free events of a
    /// flat state, with its draws and whether the reduction took it alone): the interpreter's run
    /// replayed along them and ended as the interpreter's search ends one, with its bytes.
    /// The replay checks the flat back end on the way: each state's free events must be as
    /// many as the flat state had, and none left at the end.
    pub(super) fn flat_run_end(
        &self,
        id: u32,
        picks: &[Choice],
        flat: &Flat<'a>,
    ) -> Result<(End<'a>, u64), ModelError> {
        let path = flat.real_choices(picks).ok_or_else(|| {
            ModelError::Invariant("internal: a flat execution could not be run again".into())
        })?;
        let rules = &self.rules;
        let (mut sim, mut queue) = start(rules.point, &rules.context, rules.limits.max_faults)?;
        let mut next = Vec::new();
        let disagree = || {
            ModelError::Invariant(
                "internal: the flat back end and the interpreter disagree on a state's free events"
                    .into(),
            )
        };
        for (events, choice) in path.iter().enumerate() {
            choices_into(&sim, &queue, &mut next);
            if next.len() != usize::from(choice.of) {
                return Err(disagree());
            }
            run_chosen(
                &mut sim,
                &mut queue,
                next[usize::from(choice.pick)],
                choice.draws,
                choice.crash,
            )
            .map_err(|e| in_execution(e, events as u32 + 1))?;
        }
        choices_into(&sim, &queue, &mut next);
        if !next.is_empty() {
            return Err(disagree());
        }
        let bytes = sim.state_bytes(&queue);
        let Expanded::Ended { end, .. } = rules.ended(id, bytes, Box::new((sim, queue)))? else {
            return Err(ModelError::Invariant("internal: an end did not end".into()));
        };
        Ok((end, bytes))
    }
}
