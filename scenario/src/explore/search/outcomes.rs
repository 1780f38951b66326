//! The end of a search: the graph counted ([`count`]), each end entry's outcome taken with
//! its counts, and each outcome's first (shortest) execution replayed as its trace.

use coordsim_model::explore::{Outcome, Part, Schedule};
use coordsim_model::{Bound, Exploration, ModelError, Reached};
use rustc_hash::FxHashMap;

use super::{End, Found, Search};
use crate::explore::count::{Counted, Edge, Entry, Graph, NONE, count};
use crate::explore::spare::cells_key;
use crate::explore::trace;

impl Search<'_> {
    /// The executions and probabilities counted over the graph ([`count`]); the outcomes
    /// taken at each end entry, each outcome's shortest execution replayed.
    pub(super) fn finish(mut self) -> Result<Exploration, ModelError> {
        // Done with: their memory goes back before the counting takes its own.
        self.seen = FxHashMap::default();
        self.spare = Default::default();
        let node_count = self.depths.len();
        let Counted {
            entries,
            counts,
            cut,
            cycle,
            longest,
        } = count(&Graph {
            states: node_count,
            edges: &self.edges,
            deltas: &self.deltas,
            start: &self.start_counts,
            max_entries: self.limits.max_states,
        });
        let mut bounded = self.bounded;
        if cut {
            bounded.get_or_insert(Bound::new(Reached::Counts {
                states: entries.len() as u64,
            }));
        }
        if cycle {
            bounded.get_or_insert(Bound::new(Reached::Cycle));
        }
        // The outcomes, in the order the entries were reached (breadth first: fewest
        // events first).
        let mut end_of = vec![NONE; node_count];
        for (index, (id, _)) in self.ends.iter().enumerate() {
            end_of[*id as usize] = index as u32;
        }
        let mut found: Vec<Found> = Vec::new();
        let mut by_cells: FxHashMap<Vec<u8>, u32> = FxHashMap::default();
        let mut executions = 0u128;
        for (index, entry) in entries.iter().enumerate() {
            let end = end_of[entry.node as usize];
            if end == NONE {
                continue;
            }
            let metrics = match &self.ends[end as usize].1 {
                End::Metrics(metrics) => metrics.clone(),
                End::Run(state) => {
                    let mut sim = state.0.clone();
                    sim.set_counts(&counts.all[entry.counts as usize]);
                    sim.output(self.fill, &[], &self.context).metrics
                }
            };
            let key = cells_key(&metrics);
            let outcome = match by_cells.get(&key) {
                Some(&outcome) => outcome,
                None => {
                    if found.len() >= self.limits.max_outcomes {
                        bounded.get_or_insert(Bound::new(Reached::Outcomes {
                            max: self.limits.max_outcomes as u64,
                        }));
                        continue;
                    }
                    by_cells.insert(key, found.len() as u32);
                    found.push(Found {
                        metrics,
                        first: index as u32,
                        executions: 0,
                        chance: 0.0,
                    });
                    (found.len() - 1) as u32
                }
            };
            let tally = &mut found[outcome as usize];
            tally.executions = tally.executions.saturating_add(entry.paths);
            tally.chance += entry.chance;
            executions = executions.saturating_add(entry.paths);
        }
        // The most events along one execution; with a cycle, at least the deepest state's
        // first depth.
        let first_deepest = self.depths.iter().copied().max().map_or(0, u64::from);
        let longest = if cycle {
            longest.max(first_deepest)
        } else {
            longest
        };
        let mut outcomes = Vec::with_capacity(found.len());
        let mut ranks = Vec::with_capacity(found.len());
        for found in &found {
            let path = self.path(&entries, found.first);
            let schedule = Schedule {
                max_faults: self.limits.max_faults,
                events: path.iter().map(|e| e.choice.decision()).collect(),
            };
            let alone: Vec<bool> = path.iter().map(|e| e.choice.alone).collect();
            let (trace, _) =
                trace::replay(self.point, self.fill, &[], &self.context, &schedule, &alone)?;
            // A shard's part keeps its share of the probability for the merge to judge.
            let known = self.limits.shard.is_some() || (!self.ordered && bounded.is_none());
            outcomes.push(Outcome {
                metrics: found.metrics.clone(),
                executions: found.executions,
                probability: known.then_some(found.chance),
                trace,
                schedule,
            });
            ranks.push(path.iter().map(|e| e.rank).collect());
        }
        let part = self.limits.shard.map(|shard| Part {
            shard,
            ranks,
            visits: std::mem::take(&mut self.visits),
            max_outcomes: self.limits.max_outcomes,
        });
        Ok(Exploration {
            states: node_count as u64,
            transitions: self.transitions,
            executions,
            bounded,
            ordered: self.ordered,
            longest,
            reduced: self.reduced,
            outcomes,
            part,
        })
    }

    /// The edges from the start to entry `at`, along its first (shortest) execution.
    fn path(&self, entries: &[Entry], mut at: u32) -> Vec<Edge> {
        let mut path = Vec::with_capacity(entries[at as usize].depth as usize);
        while entries[at as usize].pred != NONE {
            let entry = &entries[at as usize];
            path.push(self.edges[entry.edge as usize]);
            at = entry.pred;
        }
        path.reverse();
        path
    }
}
