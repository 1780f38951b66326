//! The reachability search over flat states ([`Flat`]): a level's states kept packed
//! ([`pack`]: each state's words, then its register's counts where they are kept), the
//! next level's beside them, each dropped once expanded; an end's metrics taken by the interpreter's run
//! along its execution, found again by its fingerprints ([`Search::flat_picks`]).

use coordsim_model::explore::Decision;
use coordsim_model::{Cell, ModelError};

use super::expand::{Buffers, children};
use super::level::Levels;
use super::par::{PAR_LEVEL, Stepped, Threads};
use super::pool::Pool;
use super::seen::{NO_PARENT, Seen};
use super::{EXPANSIONS_PER_LOOK, Firsts, Reachable};
use crate::explore::flat::Flat;
use crate::explore::search::Search;
use crate::explore::step::Choice;

impl<'a> Search<'a> {
    /// The start's flat state in its canonical order, with its counts (all 0) if kept.
    fn flat_start(&self, flat: &Flat<'a>, keep_counts: bool) -> Vec<u64> {
        let mut state = Vec::new();
        flat.start(&mut state);
        flat.canonicalize(&mut state, &mut Vec::new(), &mut Vec::new());
        if keep_counts {
            state.resize(flat.width + flat.counts(), 0);
        }
        state
    }

    /// The reachability search over `flat`'s states, level by level: a level on several
    /// threads where `--jobs` asks for them and it is wide enough ([`Search::level_par`]),
    /// else (or where a bound may be met in it) on this one. `Ok(None)` when a step came up
    /// that the flat back end leaves to the interpreter (which then searches from the
    /// start).
    pub(super) fn reach_flat<'s>(
        &mut self,
        flat: &'s Flat<'a>,
        keep_counts: bool,
        pool: &Pool<'s>,
    ) -> Result<Option<Reachable>, ModelError> {
        let state = self.flat_start(flat, keep_counts);
        let jobs = pool.jobs();
        let mut seen = Seen::new(jobs);
        let start = self.flat_key(&state);
        let slot = seen.find(start).err().unwrap_or_default();
        seen.insert(slot, start, NO_PARENT);
        let mut levels = Levels::new(state.len());
        levels.now.add(&state);
        self.memory.held = levels.bytes();
        let mut firsts = Firsts::default();
        let mut threads = Threads::new(jobs);
        while levels.now.states > 0 {
            let mut done = Stepped::Declined;
            if jobs > 1 && levels.now.states >= PAR_LEVEL {
                done = self.level_par(flat, &mut seen, &mut levels, (&mut threads, pool))?;
                if let Stepped::Done(ends) = &done {
                    for &id in ends {
                        let metrics = self.flat_end_metrics(flat, &seen, id, keep_counts)?;
                        self.reach_found(&mut firsts, id, metrics);
                    }
                }
            }
            match done {
                Stepped::NotFinite => return Ok(None),
                Stepped::Done(_) => {
                    levels.expanded += levels.now.states;
                    if !self.reach_look(&seen, levels.expanded < seen.len())? {
                        break;
                    }
                }
                Stepped::Declined => {
                    let one =
                        self.level_one(flat, &mut seen, &mut levels, &mut firsts, keep_counts)?;
                    match one {
                        Stepped::NotFinite => return Ok(None),
                        // The time bound.
                        Stepped::Declined => break,
                        Stepped::Done(_) => {}
                    }
                }
            }
            levels.turn();
            self.memory.held = levels.bytes();
        }
        Ok(Some(Reachable {
            seen,
            firsts,
            deepest: levels.deepest,
        }))
    }

    /// `levels`' level expanded on this thread, its new states (admitted one by one)
    /// numbered in the order met. `Declined`: the time bound ended the search.
    fn level_one(
        &mut self,
        flat: &Flat<'a>,
        seen: &mut Seen,
        levels: &mut Levels,
        firsts: &mut Firsts,
        keep_counts: bool,
    ) -> Result<Stepped, ModelError> {
        let mut state = self.flat_start(flat, keep_counts);
        let mut bufs = Buffers::new(flat, state.len());
        let (now, next) = (&mut levels.now, &mut levels.next);
        let mut at = now.cursor(0);
        for index in 0..now.states {
            now.read(&mut at, &mut state);
            // The chunks read through freed: the next level takes new ones.
            self.memory.held -= now.give_back(&at) as u64;
            let id = (levels.first + index) as u32;
            levels.expanded += 1;
            let mut cut = 0;
            let expansion = children(flat, &state, &mut bufs, |_, _, child| {
                let key = self.flat_key(child);
                if let Err(slot) = seen.find(key) {
                    // Where the level took a chunk, or grew its first, the room it took.
                    let grew = next.pack(child);
                    if self.reach_admits(seen, key, grew as u64) {
                        seen.insert(slot, key, id);
                        next.admit();
                        levels.deepest = levels.depth + 1;
                    } else {
                        next.reject();
                        cut += 1;
                    }
                }
                Ok(false)
            })?;
            let Ok(expansion) = expansion else {
                return Ok(Stepped::NotFinite);
            };
            if expansion.of == 0 {
                let metrics = self.flat_end_metrics(flat, seen, id, keep_counts)?;
                self.reach_found(firsts, id, metrics);
            } else {
                self.ordered |= expansion.ordered;
                self.reduced += u64::from(expansion.alone);
                self.transitions += expansion.transitions - cut;
            }
            if levels.expanded.is_multiple_of(EXPANSIONS_PER_LOOK)
                && !self.reach_look(seen, levels.expanded < seen.len())?
            {
                return Ok(Stepped::Declined);
            }
        }
        Ok(Stepped::Done(Vec::new()))
    }

    /// State `id`'s execution found again from the start, as choices among each flat
    /// state's free events (with their draws, and whether the reduction took each alone):
    /// at each state along the first parents, the child whose fingerprint is the next
    /// state's.
    fn flat_picks(
        &self,
        flat: &Flat<'a>,
        seen: &Seen,
        chain: &[u32],
        keep_counts: bool,
    ) -> Result<Vec<Choice>, ModelError> {
        let mut state = self.flat_start(flat, keep_counts);
        let mut bufs = Buffers::new(flat, state.len());
        let mut after = state.clone();
        let mut picks = Vec::with_capacity(chain.len());
        for &next in chain.iter().skip(1) {
            let mut found = None;
            let expansion = children(flat, &state, &mut bufs, |_, choice, child| {
                let hit = seen.find(self.flat_key(child)) == Ok(next);
                if hit {
                    found = Some(*choice);
                    after.copy_from_slice(child);
                }
                Ok(hit)
            })?;
            match (expansion, found) {
                (Ok(_), Some(pick)) => picks.push(pick),
                _ => {
                    return Err(ModelError::Invariant(
                        "internal: a state's execution, searched again along its parents, lost its way".into(),
                    ));
                }
            }
            std::mem::swap(&mut state, &mut after);
        }
        Ok(picks)
    }

    /// End `id`'s cells: the interpreter's run along its execution, ended.
    fn flat_end_metrics(
        &self,
        flat: &Flat<'a>,
        seen: &Seen,
        id: u32,
        keep_counts: bool,
    ) -> Result<Vec<Cell>, ModelError> {
        let picks = self.flat_picks(flat, seen, &seen.chain(id), keep_counts)?;
        let (end, _) = self.flat_run_end(id, &picks, flat)?;
        Ok(self.reach_metrics(end, keep_counts))
    }

    /// The decisions of the execution along `chain` (the states from the start) in the
    /// real run, and whether the reduction took each alone.
    pub(super) fn flat_decisions(
        &self,
        flat: &Flat<'a>,
        seen: &Seen,
        chain: &[u32],
        keep_counts: bool,
    ) -> Result<(Vec<Decision>, Vec<bool>), ModelError> {
        let picks = self.flat_picks(flat, seen, chain, keep_counts)?;
        let choices = flat.real_choices(&picks).ok_or_else(|| {
            ModelError::Invariant("internal: a flat execution could not be run again".into())
        })?;
        let alone = picks.iter().map(|choice| choice.alone).collect();
        Ok((choices.iter().map(Choice::decision).collect(), alone))
    }
}
