//! The reachability search ([`Counting::Reach`], `explore --no-counts`): breadth first by
//! levels as the counting search, stepping, keying, reducing and putting states in their
//! canonical order with the same functions, but keeping of each state only its 64-bit
//! fingerprint and its first parent's number ([`Seen`]), and of the frontier its waiting
//! states: no transitions, no counting walk after. What it gives: every reachable outcome
//! (the ends' metrics), each with its first end met (breadth first: a shortest execution),
//! whose execution is found again as TLC finds a trace: from the start along the parent
//! links, each child's fingerprint matched to the next state's; the schedule then replayed
//! through the trace path, which must end with the same metrics. What it cannot give: how
//! many executions reach an outcome, nor any probability.
//!
//! A register's counts (writes, lost updates, refused writes) ride on the counting search's
//! transitions, not in its states; with no transitions, they are kept in each state where
//! asked (`keep_counts`: more states, each count exact), else the metrics reporting them
//! are left empty: not counted.

mod expand;
mod flat;
mod interpret;
mod level;
mod merge;
mod par;
mod pool;
mod seen;

use coordsim_model::explore::{Decision, Outcome, Schedule};
use coordsim_model::{Bound, Cell, Engine, Exploration, ModelError, Reached};
use rustc_hash::FxHashMap;
use sim_core::SimError;

use super::{End, Search};
use crate::explore::flat::Flat;
use crate::explore::spare::cells_key;
use crate::explore::step::Choice;
use crate::syntax::metrics::Metric;
use pool::Pool;
use seen::Seen;

/// States expanded between two looks at the stop flags and the time bound.
const EXPANSIONS_PER_LOOK: usize = 4096;

/// Each distinct outcome's first end met (its state's number and its cells), in the order
/// met.
#[derive(Default)]
struct Firsts {
    by_cells: FxHashMap<Vec<u8>, ()>,
    ends: Vec<(u32, Vec<Cell>)>,
    /// Whether an outcome past the most kept was met: said once the search is done, so
    /// that a bound of the search itself (states, memory, time) is the one named, as the
    /// counting search names it (it counts its outcomes after its search).
    more: bool,
}

/// What a reachability search found: the states met, each outcome's first end, and the
/// deepest level reached.
struct Reachable {
    seen: Seen,
    firsts: Firsts,
    deepest: u32,
}

impl<'a> Search<'a> {
    /// The reachability search, with a register's counts in each state if `keep_counts`
    /// (and a metric reports them): on the flat back end where it covers the point, else on
    /// the interpreter.
    pub(super) fn reach(mut self, keep_counts: bool) -> Result<Exploration, ModelError> {
        let limits = self.rules.limits;
        if limits.shard.is_some() || !limits.merge_states {
            return Err(ModelError::Sim(SimError::Model(
                "an exploration without counts (`--no-counts`) merges its states and is not split: give it without `--no-merge` and `--shard`".into(),
            )));
        }
        let (sim, queue) = self.canonical_start()?;
        let keep_counts = keep_counts && self.rules.reports_counts;
        if limits.engine != Engine::Interpret {
            match self.flat_of(&sim) {
                Ok(flat) => {
                    // The threads live as long as the search (see [`pool`]).
                    let jobs = limits.jobs.max(1);
                    let found = std::thread::scope(|scope| {
                        self.reach_flat(&flat, keep_counts, &Pool::new(scope, jobs))
                    });
                    return match found? {
                        Some(found) => self.reach_finish(found, keep_counts, Some(&flat)),
                        None => {
                            // A step the flat back end leaves to the interpreter: it
                            // searches from the start.
                            let limits = coordsim_model::ExploreLimits {
                                engine: Engine::Interpret,
                                ..limits
                            };
                            let rules = &self.rules;
                            Search::new(rules.point, rules.fill, &self.outer, &limits).run()
                        }
                    };
                }
                Err(why) if limits.engine == Engine::Flat => {
                    return Err(ModelError::Sim(SimError::Model(format!(
                        "the flat engine does not explore this point: {why}; give `--engine auto` (or `interpret`)"
                    ))));
                }
                Err(_) => {}
            }
        }
        let found = self.reach_interpret(Box::new((sim, queue)), keep_counts)?;
        self.reach_finish(found, keep_counts, None)
    }

    /// Whether a new state of `bytes` (waiting in the frontier) is kept beside the `seen`
    /// ones: `false` (and the search bounded) past the state bound or the memory budget,
    /// which counts the seen set's lists and table (a new state may double the table).
    fn reach_admits(&mut self, seen: &Seen, key: u64, bytes: u64) -> bool {
        let max_states = (self.rules.limits.max_states).min(seen::MOST_STATES as u64);
        // The seen set as it will be: its growth, and the new state's 12 bytes.
        let kept = |_: &Self| seen.bytes() + seen.growth(key) + 12;
        self.admits_within(seen.len() as u64, max_states, kept, bytes)
    }

    /// The stop flags and the time bound read, the states met said: `false` when the time
    /// bound ends the search (bounded), with `more` states waiting.
    fn reach_look(&mut self, seen: &Seen, more: bool) -> Result<bool, ModelError> {
        let states = seen.len() as u64;
        self.outer.report_states(states);
        if self.outer.stopped() {
            return Err(ModelError::Sim(SimError::Stopped));
        }
        if more && self.outer.enough() {
            self.bounded
                .get_or_insert(Bound::new(Reached::Time { states }));
            return Ok(false);
        }
        Ok(true)
    }

    /// An end's cells: a register's counts left empty where they are not kept in the
    /// states (they would be the first execution's, not every execution's).
    fn reach_metrics(&self, end: End<'a>, keep_counts: bool) -> Vec<Cell> {
        let mut metrics = match end {
            End::Metrics(metrics) => metrics,
            End::Run(state) => {
                let (sim, _) = *state;
                sim.output(self.rules.fill, &[], &self.rules.context)
                    .metrics
            }
        };
        if !keep_counts {
            blank_counts(self.rules.fill, &mut metrics);
        }
        metrics
    }

    /// State `id`, an end with cells `metrics`: its outcome's first end if none was met
    /// before (past the most outcomes kept, the search is bounded).
    fn reach_found(&mut self, firsts: &mut Firsts, id: u32, metrics: Vec<Cell>) {
        let key = cells_key(&metrics);
        if firsts.by_cells.contains_key(&key) {
            return;
        }
        if firsts.ends.len() >= self.rules.limits.max_outcomes {
            firsts.more = true;
            return;
        }
        firsts.by_cells.insert(key, ());
        firsts.ends.push((id, metrics));
    }

    /// The exploration: each outcome's first end's execution found again along the parent
    /// links (over `flat`'s states when it stepped them), replayed as its trace.
    fn reach_finish(
        mut self,
        found: Reachable,
        keep_counts: bool,
        flat: Option<&Flat<'a>>,
    ) -> Result<Exploration, ModelError> {
        let Reachable {
            seen,
            firsts,
            deepest,
        } = found;
        self.outer.report_states(seen.len() as u64);
        if firsts.more {
            self.bounded.get_or_insert(Bound::new(Reached::Outcomes {
                max: self.rules.limits.max_outcomes as u64,
            }));
        }
        let mut ends: Vec<(Vec<u32>, Vec<Cell>)> = (firsts.ends.into_iter())
            .map(|(id, metrics)| (seen.chain(id), metrics))
            .collect();
        // Fewest events first, then by the cells, as the counting search orders them.
        ends.sort_by(|a, b| {
            coordsim_model::explore::outcome_order(a.0.len(), &a.1, b.0.len(), &b.1)
        });
        let mut outcomes = Vec::with_capacity(ends.len());
        for (chain, metrics) in ends {
            let (events, alone) = match flat {
                Some(flat) => self.flat_decisions(flat, &seen, &chain, keep_counts)?,
                None => self.interpret_decisions(&seen, &chain, keep_counts)?,
            };
            let schedule = Schedule {
                max_faults: self.rules.limits.max_faults,
                events,
                cycle_from: None,
            };
            let trace = self.replay_checked(&schedule, &alone, &metrics, |ran| {
                if !keep_counts {
                    blank_counts(self.rules.fill, ran);
                }
            })?;
            outcomes.push(Outcome {
                metrics,
                executions: 0,
                probability: None,
                trace,
                schedule,
            });
        }
        Ok(Exploration {
            cycles: false,
            counted: false,
            states: seen.len() as u64,
            transitions: self.transitions,
            executions: 0,
            bounded: self.bounded,
            ordered: self.ordered,
            longest: u64::from(deepest),
            reduced: self.reduced,
            keyed: true,
            symmetry: std::mem::take(&mut self.symmetry_notes),
            outcomes,
            part: None,
            schedulers: None,
            paths: Vec::new(),
            engine: if flat.is_some() {
                Engine::Flat
            } else {
                Engine::Interpret
            },
        })
    }

    /// The decisions a schedule takes in the real run for `choices`, made in the kept
    /// states (renamed back under symmetry), and whether the reduction took each alone.
    fn real_decisions(&self, choices: &[Choice]) -> Result<(Vec<Decision>, Vec<bool>), ModelError> {
        let alone = choices.iter().map(|c| c.alone).collect();
        let decisions = if self.rules.symmetry.on() {
            self.decisions_renamed(choices.len(), |depth, of| Choice {
                of,
                ..choices[depth]
            })?
        } else {
            choices.iter().map(Choice::decision).collect()
        };
        Ok((decisions, alone))
    }
}

/// The cells of `metrics` that report a register's counts (as `fill` names them) left
/// empty.
fn blank_counts(fill: &[Metric], metrics: &mut [Cell]) {
    for (cell, metric) in metrics.iter_mut().zip(fill) {
        if matches!(
            metric,
            Metric::RegWrites(_) | Metric::RegLost(_) | Metric::RegRejected(_)
        ) {
            *cell = Cell::Empty;
        }
    }
}

/// An interpreter state's fingerprint with its register's counts folded in, where they
/// are kept: the flat states' fingerprint over the one and the others.
fn with_counts(fingerprint: u64, counts: &[u64]) -> u64 {
    let words: smallvec::SmallVec<[u64; 16]> = std::iter::once(fingerprint)
        .chain(counts.iter().copied())
        .collect();
    super::flat::fingerprint(&words)
}
