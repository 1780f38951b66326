//! The end of a search: the graph counted ([`Walk::finish`]), each end entry's outcome taken with
//! its counts, and each outcome's first (shortest) execution replayed as its trace.

use coordsim_model::Cell;
use coordsim_model::explore::{
    AskPaths, Decision, ExtremePath, Outcome, Part, Schedule, Schedulers, TraceStep,
};
use coordsim_model::{Bound, Exploration, ModelError, Reached};
use rustc_hash::FxHashMap;

use super::{End, Found, Search, SeenSet};
use crate::explore::count::{Counted, Graph, NONE, Walk, schedulers};
use crate::explore::spare::cells_key;
use crate::explore::step::{Choice, choices_into, in_execution, run_chosen, start};
use crate::explore::trace;

impl Search<'_> {
    /// The executions and probabilities counted over the graph ([`Walk::finish`]); the outcomes
    /// taken at each end entry, each outcome's shortest execution replayed.
    pub(super) fn finish(mut self) -> Result<Exploration, ModelError> {
        let node_count = self.depths.len();
        // The schedulers' graph is asked for: the walk keeps the entries' links.
        let keep_schedulers =
            self.rules.limits.keep_schedulers && self.rules.limits.shard.is_none();
        let counted = self.counted(keep_schedulers);
        let (entries, counts, cycle) = (&counted.entries, &counted.counts, counted.cycle);
        let mut bounded = self.bounded;
        if counted.spill_failed.is_some() {
            bounded.get_or_insert(Bound::new(Reached::Spill {
                states: entries.len() as u64,
            }));
        }
        if counted.cut {
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
        // Each end entry's outcome (in the order found), for the schedulers' graph.
        let mut outcome_of = vec![NONE; if keep_schedulers { entries.len() } else { 0 }];
        for (index, entry) in entries.iter().enumerate() {
            let at = index as u32;
            let end = end_of[entry.node as usize];
            if end == NONE {
                continue;
            }
            let metrics = match &self.ends[end as usize].1 {
                End::Metrics(metrics) => metrics.clone(),
                End::Run(state) => {
                    let mut sim = state.0.clone();
                    sim.set_counts(&counts.all[entry.counts as usize]);
                    sim.output(self.rules.fill, &[], &self.rules.context)
                        .metrics
                }
            };
            let key = cells_key(&metrics);
            let outcome = match by_cells.get(&key) {
                Some(&outcome) => outcome,
                None => {
                    if found.len() >= self.rules.limits.max_outcomes {
                        bounded.get_or_insert(Bound::new(Reached::Outcomes {
                            max: self.rules.limits.max_outcomes as u64,
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
            if let Some(of) = outcome_of.get_mut(index) {
                *of = outcome;
            }
            let tally = &mut found[outcome as usize];
            let paths = entries.paths_of(at, &entry);
            tally.executions = tally.executions.saturating_add(paths);
            tally.chance += entries.chance_of(at, &entry);
            executions = executions.saturating_add(paths);
        }
        // The most events along one execution; with a cycle, at least the deepest state's
        // first depth.
        let first_deepest = u64::from(self.depths.deepest());
        let longest = if cycle {
            counted.longest.max(first_deepest)
        } else {
            counted.longest
        };
        // Fewest events first, then by the cells: an order of the outcomes alone, whatever
        // order the search met them in (under symmetry, in another).
        found.sort_by(|a, b| {
            let depth = |f: &Found| entries.depth(f.first) as usize;
            coordsim_model::explore::outcome_order(depth(a), &a.metrics, depth(b), &b.metrics)
        });
        // Each branch's edge, while the search's edges are at hand: for the executions asked.
        let mut edge_of = Vec::new();
        let asked = self.asks.is_some().then_some(&mut edge_of);
        let schedulers = (keep_schedulers && bounded.is_none())
            .then(|| self.schedulers_of(&counted, outcome_of, &found, asked))
            .transpose()?;
        let paths = match (self.asks, &schedulers) {
            (Some(asks), Some(graph)) => self.extreme_paths(asks, graph, &edge_of, &found)?,
            _ => Vec::new(),
        };
        drop(edge_of);
        let mut outcomes = Vec::with_capacity(found.len());
        let mut ranks = Vec::with_capacity(found.len());
        for found in &found {
            let path = counted.path(&self.graph(), found.first);
            let (schedule, trace) = self.replayed(&path, &found.metrics)?;
            // A shard's part keeps its share of the probability for the merge to judge.
            let known = self.rules.limits.shard.is_some() || (!self.ordered && bounded.is_none());
            outcomes.push(Outcome {
                metrics: found.metrics.clone(),
                executions: found.executions,
                probability: known.then_some(found.chance),
                trace,
                schedule,
            });
            if self.rules.limits.shard.is_some() {
                ranks.push(path.iter().map(|&e| self.ranks[e as usize]).collect());
            }
        }
        if entries.spilled().1 || self.edges.spilled().1 {
            return Err(ModelError::Invariant(
                "internal: entries or edges spilled to disk could not be read back".into(),
            ));
        }
        let part = self.rules.limits.shard.map(|shard| Part {
            shard,
            ranks,
            visits: std::mem::take(&mut self.visits),
            max_outcomes: self.rules.limits.max_outcomes,
        });
        Ok(Exploration {
            cycles: false,
            counted: true,
            states: node_count as u64,
            transitions: self.transitions,
            executions,
            bounded,
            ordered: self.ordered,
            longest,
            reduced: self.reduced,
            keyed: self.rules.limits.merge_states || self.rules.limits.shard.is_some(),
            symmetry: std::mem::take(&mut self.symmetry_notes),
            outcomes,
            part,
            schedulers,
            paths,
            engine: self.engine(),
        })
    }

    /// The execution along `path` (edges from the start, by index) as the schedule that
    /// makes it and its trace, replayed and checked to end with `metrics`: a schedule
    /// written must run to the outcome it stands for, so an end that differs is the
    /// explorer's error, never a wrong trace.
    fn replayed(
        &self,
        path: &[u32],
        metrics: &[Cell],
    ) -> Result<(Schedule, Vec<TraceStep>), ModelError> {
        let events = self.decisions_of(path)?;
        let schedule = Schedule {
            max_faults: self.rules.limits.max_faults,
            events,
            cycle_from: None,
        };
        let alone: Vec<bool> = path
            .iter()
            .map(|&e| self.edges.get(e as usize).alone())
            .collect();
        let trace = self.replay_checked(&schedule, &alone, metrics, |_| ())?;
        Ok((schedule, trace))
    }

    /// `schedule` run again through the trace path (`alone`: the steps the reduction took
    /// alone): its trace, or an internal error where the run ends with other metrics than
    /// `metrics` (the run's as `mend` leaves them: a search that keeps no count blanks
    /// them), never a wrong trace.
    pub(super) fn replay_checked(
        &self,
        schedule: &Schedule,
        alone: &[bool],
        metrics: &[Cell],
        mend: impl FnOnce(&mut [Cell]),
    ) -> Result<Vec<TraceStep>, ModelError> {
        let (trace, mut ran) = trace::replay(
            self.rules.point,
            self.rules.fill,
            &[],
            &self.rules.context,
            schedule,
            alone,
        )?;
        mend(&mut ran.metrics);
        if cells_key(&ran.metrics) != cells_key(metrics) {
            return Err(ModelError::Invariant(
                "internal: an outcome's schedule, run again, ends with other metrics than \
                 the outcome found"
                    .into(),
            ));
        }
        Ok(trace)
    }

    /// The executions `asks` names over `graph` (each branch's edge `edge_of[branch]`, the
    /// outcomes `found` in their sorted order): each ask's extreme scheduler's most likely
    /// execution ([`Schedulers::extreme_path_of`]), its branches taken back to the search's
    /// edges and replayed ([`Search::replayed`]). An ask no execution answers (none ends
    /// where it may) has none.
    fn extreme_paths(
        &self,
        asks: &AskPaths<'_>,
        graph: &Schedulers,
        edge_of: &[u32],
        found: &[Found],
    ) -> Result<Vec<ExtremePath>, ModelError> {
        let lost = || {
            ModelError::Invariant(
                "internal: a branch of the schedulers' graph has no transition".into(),
            )
        };
        if edge_of.len() != graph.branches() {
            return Err(lost());
        }
        let metrics: Vec<Vec<Cell>> = found.iter().map(|f| f.metrics.clone()).collect();
        let mut paths = Vec::new();
        for ask in asks(&metrics, graph) {
            let worth = |k: usize| ask.worth.get(k).copied().unwrap_or(0.0);
            let into = |k: usize| ask.into.get(k).copied().unwrap_or(false);
            let Some((steps, probability)) = graph.extreme_path_of(&worth, ask.least, &into) else {
                continue;
            };
            let mut path = Vec::with_capacity(steps.len());
            for &(entry, action, branch) in &steps {
                let edge = edge_of[graph.branch_index(entry, action, branch)];
                if edge as usize >= self.edges.len() {
                    return Err(lost());
                }
                path.push(edge);
            }
            let end = steps.last().map_or(0, |&(entry, action, branch)| {
                graph.branch(entry, action, branch).1
            });
            let outcome = graph.outcome_of(end) as usize;
            let metrics = metrics.get(outcome).ok_or_else(lost)?;
            let (schedule, trace) = self.replayed(&path, metrics)?;
            paths.push(ExtremePath {
                tag: ask.tag,
                outcome,
                probability,
                trace,
                schedule,
            });
        }
        Ok(paths)
    }

    /// The decisions a schedule of `path` (edges from the start, by index) takes in the
    /// real run: renamed back along the kept states under symmetry (the flat back end's or
    /// the interpreter's canonical order), as they are otherwise.
    fn decisions_of(&self, path: &[u32]) -> Result<Vec<Decision>, ModelError> {
        if let Some(flat) = self.flat.as_ref().filter(|f| f.symmetric()) {
            let graph = self.graph();
            let picks: Vec<Choice> = (path.iter())
                .map(|&e| {
                    graph
                        .edges
                        .get(e as usize)
                        .choice(0, graph.drawn(e as usize))
                })
                .collect();
            let choices = flat.real_choices(&picks).ok_or_else(|| {
                ModelError::Invariant("internal: a flat execution could not be run again".into())
            })?;
            Ok(choices.iter().map(Choice::decision).collect())
        } else if self.rules.symmetry.on() {
            self.decisions_along(path)
        } else {
            self.decisions_replayed(path)
        }
    }

    /// The decisions along `path` where the kept states are the run's own: each its edge's
    /// choice among the free events of its start, which a run from the start finds again
    /// (an edge keeps which event it took, not of how many).
    fn decisions_replayed(&self, path: &[u32]) -> Result<Vec<Decision>, ModelError> {
        let rules = &self.rules;
        let (mut sim, mut queue) = start(rules.point, &rules.context, rules.limits.max_faults)?;
        let graph = self.graph();
        let mut next = Vec::new();
        let mut decisions = Vec::with_capacity(path.len());
        for (depth, &edge_index) in path.iter().enumerate() {
            choices_into(&sim, &queue, &mut next);
            let edge = graph.edges.get(edge_index as usize);
            let choice = edge.choice(next.len() as u16, graph.drawn(edge_index as usize));
            let due = *next.get(usize::from(edge.pick)).ok_or_else(|| {
                ModelError::Invariant(format!(
                    "internal: an explored execution's event {} has no counterpart in its run",
                    depth + 1
                ))
            })?;
            run_chosen(&mut sim, &mut queue, due, choice.draws, choice.crash)
                .map_err(|e| in_execution(e, depth as u32 + 1))?;
            decisions.push(choice.decision());
        }
        Ok(decisions)
    }

    /// The back end that stepped the states.
    fn engine(&self) -> coordsim_model::Engine {
        if self.flat.is_some() {
            coordsim_model::Engine::Flat
        } else {
            coordsim_model::Engine::Interpret
        }
    }

    /// The graph counted: the walk over its entries ended, the executions summed
    /// ([`Walk::finish`]), with the entries' links kept if `keep_links`.
    fn counted(&mut self, keep_links: bool) -> Counted {
        // Done with: their memory goes back before the counting takes its own.
        self.seen = Default::default();
        self.young = SeenSet::default();
        self.spare = Default::default();
        let node_count = self.depths.len();
        self.starts.resize(node_count + 1, self.edges.len() as u32);
        let mut walk = std::mem::replace(&mut self.walk, Walk::new(&[], false));
        if walk.counts_again(&self.graph(), keep_links) {
            self.edges.load_all();
        }
        walk.finish(&self.graph(), keep_links)
    }

    /// The explored graph, as the counting reads it (every state's edges merged).
    fn graph(&self) -> Graph<'_> {
        Graph {
            states: self.depths.len(),
            edges: self.edges.view(),
            drawn: &self.edges.drawn,
            starts: &self.starts,
            deltas: &self.deltas,
            max_entries: self.rules.limits.max_states,
        }
    }

    /// The graph a scheduler chooses in ([`schedulers`]), each end entry with its outcome's
    /// place among the sorted outcomes (`outcome_of`: each entry's in the order found).
    fn schedulers_of(
        &self,
        counted: &Counted,
        mut outcome_of: Vec<u32>,
        found: &[Found],
        edge_of: Option<&mut Vec<u32>>,
    ) -> Result<Schedulers, ModelError> {
        // Each outcome by its place in the sorted list (its first entry is its own).
        let mut sorted = vec![NONE; found.len()];
        for (place, f) in found.iter().enumerate() {
            sorted[outcome_of[f.first as usize] as usize] = place as u32;
        }
        for outcome in outcome_of.iter_mut().filter(|o| **o != NONE) {
            *outcome = sorted[*outcome as usize];
        }
        schedulers(&self.graph(), counted, &outcome_of, edge_of)
            .map_err(|e| ModelError::Invariant(format!("internal: {e}")))
    }

    /// The choices of an execution along `path`, as a run takes them. Under symmetry the
    /// kept states are renamings of those an execution meets, so `path`'s choices, made in
    /// the kept states, may name other members: its states are walked again beside a run
    /// from the start, and each choice's event is taken in the run from its owner renamed
    /// back (`real`: each kept name's actor in the run).
    fn decisions_along(&self, path: &[u32]) -> Result<Vec<Decision>, ModelError> {
        let graph = self.graph();
        self.decisions_renamed(path.len(), |depth, of| {
            let edge_index = path[depth] as usize;
            graph
                .edges
                .get(edge_index)
                .choice(of, graph.drawn(edge_index))
        })
    }

    /// [`Search::decisions_along`] over `steps` choices made in the kept states
    /// (`choice_at(depth, of)`: the choice at `depth`, among `of` free events).
    pub(super) fn decisions_renamed(
        &self,
        steps: usize,
        choice_at: impl Fn(usize, u16) -> Choice,
    ) -> Result<Vec<Decision>, ModelError> {
        let (mut kept, mut kept_queue) = start(
            self.rules.point,
            &self.rules.context,
            self.rules.limits.max_faults,
        )?;
        let (mut run, mut run_queue) = start(
            self.rules.point,
            &self.rules.context,
            self.rules.limits.max_faults,
        )?;
        let actors = run.actors.len();
        let mut real: Vec<u32> = (0..actors as u32).collect();
        let mut new_of = Vec::new();
        let renamed = |real: &mut Vec<u32>, new_of: &[u32]| {
            let before = real.clone();
            for (old, &new) in new_of.iter().enumerate() {
                real[new as usize] = before[old];
            }
        };
        if self
            .rules
            .symmetry
            .canonicalize(&mut kept, &mut kept_queue, &mut new_of)
        {
            renamed(&mut real, &new_of);
        }
        let (mut kept_next, mut run_next) = (Vec::new(), Vec::new());
        let mut decisions = Vec::with_capacity(steps);
        for depth in 0..steps {
            choices_into(&kept, &kept_queue, &mut kept_next);
            choices_into(&run, &run_queue, &mut run_next);
            let choice = choice_at(depth, kept_next.len() as u16);
            let lost = || {
                ModelError::Invariant(format!(
                    "internal: an explored execution's event {} has no counterpart in its run",
                    depth + 1
                ))
            };
            let due = *kept_next.get(usize::from(choice.pick)).ok_or_else(lost)?;
            let owner = kept.owner(due.event);
            let owner = real.get(owner as usize).copied().unwrap_or(owner);
            // A twin of the owner (swapping them changes nothing) with a lower number goes
            // instead, and the names follow: the trace a search without symmetry finds.
            let twin = self.rules.symmetry.lowest_twin(&run, &run_queue, owner);
            if twin != owner {
                for name in real.iter_mut() {
                    if *name == owner {
                        *name = twin;
                    } else if *name == twin {
                        *name = owner;
                    }
                }
            }
            let owner = twin;
            let pick = (run_next.iter())
                .position(|d| run.owner(d.event) == owner)
                .filter(|_| run_next.len() == kept_next.len())
                .ok_or_else(lost)?;
            let (draws, crash) = (choice.draws, choice.crash);
            run_chosen(&mut kept, &mut kept_queue, due, draws, crash)?;
            run_chosen(&mut run, &mut run_queue, run_next[pick], draws, crash)?;
            let mut decision = choice.decision();
            decision.pick = pick as u32;
            decisions.push(decision);
            if self
                .rules
                .symmetry
                .canonicalize(&mut kept, &mut kept_queue, &mut new_of)
            {
                renamed(&mut real, &new_of);
            }
        }
        Ok(decisions)
    }
}
