//! The search: breadth first over the run's states, every transition kept as an edge with
//! the counts it adds ([`Sim::counts`]: a register's lost updates, say, which decide
//! nothing the run does next and so tell no states apart). Afterwards, over that graph:
//! each state's reachable counts, breadth first again, so the first execution that reaches
//! an outcome is one of its shortest; and the executions and probabilities, counted in
//! topological order, not by enumerating paths.

use std::collections::VecDeque;
use std::sync::Arc;

use coordsim_model::explore::{AskPaths, Visit};
use coordsim_model::{
    Bound, Cell, Engine, Exploration, ExploreLimits, ModelError, Reached, RunContext,
};
#[cfg(debug_assertions)]
use rustc_hash::FxHashMap;
use sim_core::SimError;
use smallvec::SmallVec;

use crate::explore::budget::Memory;
use crate::explore::count::{CountTable, Drawn, Edge, Edges, Graph, PAGE_SHIFT, Walk};
use crate::explore::flat::{Flat, Uncovered};
use crate::explore::reduce::Reducer;
use crate::explore::spare::{MAX_SPARE_BYTES, Spare, State};
use crate::explore::step::{Choice, Ran, start};
use crate::explore::symmetry::Symmetry;
use crate::point::Point;
use crate::run::steer::Counts;
use crate::syntax::metrics::Metric;
use depths::Depths;
use seen::SeenSet;

mod child;
mod depths;
mod expand;
mod firsts;
mod flat;
mod memory;
mod outcomes;
mod reach;
mod seen;
mod side;
mod threads;

/// Most draws one event decides: a choice keeps them as the bits of one word.
const MAX_DRAWS: usize = 64;

/// One way an event ran: the state it reached and what it did.
struct Branch<'a> {
    state: State<'a>,
    ran: Ran,
}

/// Every way one event ran: most run one way, so one is kept inline.
type Branches<'a> = SmallVec<[Branch<'a>; 1]>;

/// A state waiting in the frontier: its node, its depth, its bytes
/// ([`Sim::state_bytes`](crate::run::state::Sim::state_bytes)), and the run as it stands
/// there.
struct Waiting<'a> {
    id: u32,
    depth: u32,
    bytes: u64,
    state: State<'a>,
}

/// States expanded per thread per chunk: enough that a thread's start is nothing beside
/// its work, few enough that a chunk's children do not crowd the memory.
const CHUNK_PER_JOB: usize = 2048;

/// States expanded per thread per chunk while the merge of the chunk before runs beside
/// them ([`Search::overlapped`]): fewer, so that a level of the search is several chunks
/// (the last chunk of a level is merged alone, its children being the next level); the
/// threads live on between chunks, so a chunk costs little more than its states.
const OVERLAP_PER_JOB: usize = 256;

/// Children made per thread per chunk, by the most one state had so far: a chunk of
/// states with hundreds of free events each is cut shorter (each child waits for the
/// merge as its fingerprint, its counts and its choice at least).
const CHILDREN_PER_JOB: usize = 16 * 1024;

/// States per shard in the level a split deals out: enough that each shard's share of
/// the work is about even.
const SHARE_PER_SHARD: usize = 16;

/// Deepest level the shared tree of a split grows to: a run with few choices deals out
/// what it has by then (some shards may get none).
const MAX_SHARED_DEPTH: u32 = 64;

/// What expanding one state gave, for the merge.
enum Expanded<'a> {
    /// No event was left: how the execution ends (`bytes`: the state's).
    Ended { id: u32, bytes: u64, end: End<'a> },
    /// Its transitions, in pick and branch order.
    Children {
        id: u32,
        /// Whether several events were free.
        ordered: bool,
        /// Whether the reduction took one event alone.
        reduced: bool,
        transitions: u64,
        children: Vec<Child<'a>>,
        /// The expanded state's bytes.
        bytes: u64,
        /// The expanded state, kept when a child's state was not (to make it again should
        /// the merge keep it).
        parent: Option<State<'a>>,
    },
}

impl Expanded<'_> {
    /// The children it keeps whole, and their bytes.
    fn kept(&self) -> (u64, u64) {
        match self {
            Expanded::Ended { .. } => (0, 0),
            Expanded::Children { children, .. } => children
                .iter()
                .filter(|child| child.state.is_some())
                .fold((0, 0), |(states, bytes), child| {
                    (states + 1, bytes + child.bytes)
                }),
        }
    }
}

/// How an execution ends, kept until the counting is done.
enum End<'a> {
    /// Its metrics: no metric reports a count, so every execution that ends here ends so.
    Metrics(Vec<Cell>),
    /// The run as it ends: its metrics are taken with each count it is reached with.
    Run(State<'a>),
}

/// One transition out of an expanded state, ready to merge.
struct Child<'a> {
    choice: Choice,
    probability: f64,
    /// The counts it added.
    delta: Counts,
    fingerprint: Option<u64>,
    /// The state it reaches and its bytes: `None` when the thread kept its fingerprint only
    /// (see [`Keep`]).
    state: Option<State<'a>>,
    bytes: u64,
}

/// One distinct outcome: its cells, its first (shortest) end entry, its executions and
/// probability.
struct Found {
    metrics: Vec<Cell>,
    first: u32,
    executions: u128,
    chance: f64,
}

/// What expanding a state reads, none of which the merge changes: shared by the threads
/// that expand a chunk while the merge takes the chunk before.
struct Rules<'a> {
    point: &'a Point,
    fill: &'a [Metric],
    /// What the runs of the states see (no stop flags: the search's `outer` has them).
    context: RunContext,
    limits: ExploreLimits,
    reducer: Reducer,
    /// Whether an event of the point may draw ([`Point::may_draw`]).
    may_draw: bool,
    /// Whether a metric of `fill` reports a register's counts
    /// ([`Sim::counts`](crate::run::state::Sim::counts)).
    reports_counts: bool,
    /// The groups whose members are interchangeable, put in a canonical order before a
    /// state is keyed ([`Symmetry`]).
    symmetry: Symmetry,
}

/// What a thread expanding states knows of the merged ones, to keep a child whole only
/// when the merge may keep it ([`Keep`]).
#[derive(Clone, Copy)]
struct Known<'s> {
    /// Each merged state's fingerprint: `None` while the merge runs beside the thread.
    seen: Option<&'s SeenSet>,
    /// Whether the shared first levels of a split grow (no state is merged there).
    shared: bool,
}

pub(super) struct Search<'a> {
    rules: Arc<Rules<'a>>,
    /// The context as given: its stop flags, its progress counter, its time bound.
    outer: RunContext,
    /// Each state's depth as the search first reached it, from its level.
    depths: Depths,
    /// The transitions, in the order of the states they leave (the merge's).
    edges: Edges,
    /// Each transition's place among its start's (from 0, in merge order, counting those
    /// a bound cut): kept in a split's shard alone, whose part names its outcomes'
    /// executions by them.
    ranks: Vec<u32>,
    /// Where each merged state's edges begin (a state past the last merged has none yet).
    starts: Vec<u32>,
    /// The counting's walk over the entries, taken on beside the search on several threads
    /// ([`Walk`]).
    walk: Walk,
    /// Whether an edge leads back to a state merged before its own (a cycle may close).
    back: bool,
    /// What transitions add to the counts, each distinct once (index 0: nothing).
    deltas: CountTable,
    /// The start's counts.
    start_counts: Counts,
    /// The states with no event left, each with its run as it ends.
    ends: Vec<(u32, End<'a>)>,
    /// Each fingerprint's state, as of the last chunk's merge: read by the threads that
    /// expand the next chunk while the merge goes on. The keys are xxh3 hashes already:
    /// Fx's one multiply spreads them, where SipHash would hash them again.
    seen: Arc<SeenSet>,
    /// The fingerprints merged since, each state's: folded into `seen` once no thread reads
    /// it ([`Search::fold_seen`]).
    young: SeenSet,
    /// Each kept state's words (a debug build's check that states merged by their
    /// fingerprint are one state: a collision stops the search).
    #[cfg(debug_assertions)]
    words: FxHashMap<u32, Vec<u64>>,
    transitions: u64,
    ordered: bool,
    bounded: Option<Bound>,
    reduced: u64,
    /// A split's bookkeeping (`limits.shard`): each node's visit, by node.
    visits: Vec<Visit>,
    /// While the shared first levels of a split grow: no state merged, and (in shards
    /// other than the first) no end counted, as shard 0 counts the ends there.
    shared: bool,
    /// States done with, to copy into (handed to the threads for each chunk).
    spare: Spare<'a>,
    /// What symmetry did with each group.
    symmetry_notes: Vec<coordsim_model::SymmetryNote>,
    /// The bytes it holds and the budget that bounds them.
    memory: Memory,
    /// The most transitions out of one state so far (for a chunk's size).
    widest: usize,
    /// The flat back end, when it stepped the states ([`Flat`]).
    flat: Option<Flat<'a>>,
    /// The executions to show over the schedulers' graph, asked once the outcomes are
    /// known ([`AskPaths`]).
    asks: Option<&'a AskPaths<'a>>,
}

impl<'a> Search<'a> {
    pub(super) fn new(
        point: &'a Point,
        fill: &'a [Metric],
        context: &RunContext,
        limits: &ExploreLimits,
    ) -> Search<'a> {
        Search {
            rules: Arc::new(Rules {
                point,
                fill,
                context: context
                    .clone()
                    .with_lanes(false)
                    .with_distributions(false)
                    .without_stop(),
                limits: *limits,
                reducer: Reducer::new(point, limits.reduce),
                may_draw: point.may_draw(),
                reports_counts: fill.iter().any(|metric| {
                    matches!(
                        metric,
                        Metric::RegWrites(_) | Metric::RegLost(_) | Metric::RegRejected(_)
                    )
                }),
                symmetry: Symmetry::default(),
            }),
            outer: context.clone(),
            depths: Depths::default(),
            edges: Edges::default(),
            ranks: Vec::new(),
            starts: Vec::new(),
            walk: Walk::new(&[], false),
            back: false,
            deltas: CountTable::default(),
            start_counts: Counts::new(),
            ends: Vec::new(),
            seen: Arc::default(),
            young: SeenSet::default(),
            #[cfg(debug_assertions)]
            words: FxHashMap::default(),
            transitions: 0,
            ordered: false,
            bounded: None,
            reduced: 0,
            visits: Vec::new(),
            shared: false,
            spare: Spare::holding(
                limits
                    .max_memory_bytes
                    .map_or(MAX_SPARE_BYTES, |b| (b / 16).min(MAX_SPARE_BYTES)),
            ),
            symmetry_notes: Vec::new(),
            memory: Memory::new(limits.max_memory_bytes),
            widest: 1,
            flat: None,
            asks: None,
        }
    }

    /// The search, asking `asks` which executions to show over the schedulers' graph.
    pub(super) fn asking(mut self, asks: Option<&'a AskPaths<'a>>) -> Search<'a> {
        self.asks = asks;
        self
    }

    pub(super) fn run(mut self) -> Result<Exploration, ModelError> {
        if let coordsim_model::Counting::Reach { keep_counts } = self.rules.limits.counting {
            return self.reach(keep_counts);
        }
        let (sim, queue) = self.canonical_start()?;
        let fingerprint = self.rules.key(&sim, &queue);
        if self.rules.limits.merge_states {
            self.young.insert(fingerprint, 0);
            #[cfg(debug_assertions)]
            self.words.insert(0, sim.state_words(&queue));
        }
        self.start_counts = sim.counts();
        self.walk = Walk::new(&self.start_counts, self.chances());
        self.spill_walk();
        self.deltas.intern(&vec![0; self.start_counts.len()]);
        self.depths.push(0);
        let bytes = sim.state_bytes(&queue);
        self.memory.held = bytes;
        if self.rules.limits.engine != Engine::Interpret {
            match self.flat_of(&sim) {
                Ok(flat) => {
                    if self.flat_search(&flat)? {
                        self.flat = Some(flat);
                        return self.finish();
                    }
                    // A step the flat back end leaves to the interpreter: it explores
                    // from the start.
                    let limits = ExploreLimits {
                        engine: Engine::Interpret,
                        ..self.rules.limits
                    };
                    let rules = &self.rules;
                    return Search::new(rules.point, rules.fill, &self.outer, &limits)
                        .asking(self.asks)
                        .run();
                }
                Err(why) if self.rules.limits.engine == Engine::Flat => {
                    return Err(ModelError::Sim(SimError::Model(format!(
                        "the flat engine does not explore this point: {why}; give `--engine auto` (or `interpret`)"
                    ))));
                }
                Err(_) => {}
            }
        }
        let mut frontier: VecDeque<Waiting<'a>> = VecDeque::from([Waiting {
            id: 0,
            depth: 0,
            bytes,
            state: Box::new((sim, queue)),
        }]);
        if let Some((shard, shards)) = self.rules.limits.shard {
            self.visits.push(Visit {
                key: fingerprint,
                ..Visit::default()
            });
            self.share(&mut frontier, shard, shards)?;
        }
        if self.rules.limits.jobs > 1 {
            self.overlapped(&mut frontier)?;
        } else {
            while !frontier.is_empty() {
                let chunk = self.chunk(&mut frontier, CHUNK_PER_JOB);
                if !self.step(chunk, &mut frontier)? {
                    break;
                }
            }
        }
        self.finish()
    }

    /// The start, with the point's interchangeable groups judged (the rules' symmetry, its
    /// notes kept) and its members put in their canonical order.
    fn canonical_start(
        &mut self,
    ) -> Result<
        (
            crate::run::state::Sim<'a>,
            sim_core::EventQueue<crate::run::state::Event>,
        ),
        ModelError,
    > {
        let rules = Arc::get_mut(&mut self.rules).ok_or_else(|| {
            ModelError::Invariant("internal: the search's rules were shared before it began".into())
        })?;
        let (mut sim, mut queue) = start(rules.point, &rules.context, rules.limits.max_faults)?;
        (rules.symmetry, self.symmetry_notes) = Symmetry::of(rules.point, &sim, &rules.limits);
        rules
            .symmetry
            .canonicalize(&mut sim, &mut queue, &mut Vec::new());
        Ok((sim, queue))
    }

    /// The point compiled for the flat back end, or why it is not (the start `sim` gives
    /// each actor's start).
    fn flat_of(&self, sim: &crate::run::state::Sim<'a>) -> Result<Flat<'a>, Uncovered> {
        let limits = &self.rules.limits;
        let flat = Flat::of(self.rules.point, sim, &self.rules.reducer)?
            .with_symmetry(self.rules.symmetry.groups().to_vec())
            .with_max_time(self.rules.context.limits().max_time)
            .with_max_faults(limits.max_faults);
        if self.rules.symmetry.planted() {
            return Err("its symmetry is the tests' planted bug, which only the interpreter has");
        }
        if limits.shard.is_some() {
            return Err("it is a shard of a split");
        }
        if !limits.merge_states {
            return Err("its states are not merged (a tree)");
        }
        Ok(flat)
    }

    /// The next states to expand at once: the front of `frontier`, at most `per_job` a
    /// thread.
    fn chunk(&self, frontier: &mut VecDeque<Waiting<'a>>, per_job: usize) -> Vec<Waiting<'a>> {
        let jobs = self.rules.limits.jobs.max(1);
        let take = frontier
            .len()
            .min(per_job * jobs)
            .min((CHILDREN_PER_JOB * jobs / self.widest).max(1));
        frontier.drain(..take).collect()
    }

    /// A chunk of states expanded (in parallel), then merged in the order one thread
    /// would take them, new states onto `frontier`'s back: the result never depends on
    /// `jobs`. `false` when the time limit ended the search.
    fn step(
        &mut self,
        chunk: Vec<Waiting<'a>>,
        frontier: &mut VecDeque<Waiting<'a>>,
    ) -> Result<bool, ModelError> {
        let jobs = self.rules.limits.jobs.max(1);
        let done = self.expand_all(chunk, jobs);
        let go_on = self.merge_all(done, frontier, false)?;
        self.walk_on();
        self.fold_seen()?;
        Ok(go_on)
    }

    /// The counting's walk taken on over the states merged so far, on several threads (on
    /// one it waits for the search's end, when its memory takes the seen states'), while
    /// it takes at most a quarter of the memory bound (a split's shared levels: the rest
    /// of a search on several threads walks on other threads, [`side`]).
    fn walk_on(&mut self) {
        let limits = &self.rules.limits;
        if limits.jobs < 2
            || limits
                .max_memory_bytes
                .is_some_and(|bytes| self.walk.bytes() > bytes / 4)
        {
            return;
        }
        // With no edge back to a state merged before, no cycle so far: the walk makes
        // entries up to the bound, to be cut back should a cycle lower it
        // ([`Walk::finish`]). With one, it waits at the least the bound can be.
        let (limit, whole) = if self.back {
            (
                limits.max_states.min(4 * self.depths.len() as u64 + 1),
                false,
            )
        } else {
            (limits.max_states, true)
        };
        let graph = Graph {
            states: self.depths.len(),
            edges: self.edges.view(),
            drawn: &self.edges.drawn,
            starts: &self.starts,
            deltas: &self.deltas,
            max_entries: limits.max_states,
        };
        self.walk
            .advance(&graph, (self.starts.len(), usize::MAX), limit, whole);
    }

    /// A chunk's expansions merged in order, then the stop flags and the time bound read
    /// (`more`: states expanded beyond `frontier` wait for their merge). `false` when the
    /// time limit ended the search.
    fn merge_all(
        &mut self,
        done: Vec<Result<Expanded<'a>, ModelError>>,
        frontier: &mut VecDeque<Waiting<'a>>,
        more: bool,
    ) -> Result<bool, ModelError> {
        for expanded in done {
            self.merge(expanded?, frontier)?;
        }
        self.outer.report_states(self.depths.len() as u64);
        if self.outer.stopped() {
            return Err(ModelError::Sim(SimError::Stopped));
        }
        if (more || !frontier.is_empty()) && self.outer.enough() {
            self.bounded.get_or_insert(Bound::new(Reached::Time {
                states: self.depths.len() as u64,
            }));
            return Ok(false);
        }
        Ok(true)
    }

    /// A split's start, the same in every shard: the first levels grown as a tree until one holds
    /// `SHARE_PER_SHARD` states per shard, then that level dealt round robin, shard `shard` (of
    /// `shards`) keeping its own in `frontier`. Every execution passes through one state of the
    /// level (or ends before it, counted by shard 0 alone), so the shards' counts add up to the
    /// whole's.
    fn share(
        &mut self,
        frontier: &mut VecDeque<Waiting<'a>>,
        shard: u32,
        shards: u32,
    ) -> Result<(), ModelError> {
        self.shared = true;
        let want = SHARE_PER_SHARD.saturating_mul(shards as usize);
        let mut depth = 0;
        while !frontier.is_empty() && frontier.len() < want && depth < MAX_SHARED_DEPTH {
            // One whole level expanded: its children are the next.
            let mut level = std::mem::take(frontier);
            while !level.is_empty() {
                let chunk = self.chunk(&mut level, CHUNK_PER_JOB);
                if !self.step(chunk, frontier)? {
                    // Out of time while the levels grow: the shard explored nothing of
                    // its own, and says it is bounded.
                    frontier.clear();
                    self.shared = false;
                    return Ok(());
                }
            }
            depth += 1;
        }
        self.shared = false;
        let level = std::mem::take(frontier);
        for (index, waiting) in level.into_iter().enumerate() {
            if index % shards as usize != shard as usize {
                self.memory.held -= waiting.bytes;
            } else {
                if self.rules.limits.merge_states {
                    self.young
                        .insert(self.visits[waiting.id as usize].key, waiting.id);
                }
                frontier.push_back(waiting);
            }
        }
        self.fold_seen()
    }

    /// An expanded state taken into the graph, in the order one thread would: each child
    /// an edge to the state it reaches, a new node (at the frontier's back) when it is new.
    fn merge(
        &mut self,
        expanded: Expanded<'a>,
        frontier: &mut VecDeque<Waiting<'a>>,
    ) -> Result<(), ModelError> {
        let id = match &expanded {
            Expanded::Ended { id, .. } | Expanded::Children { id, .. } => *id,
        };
        // Its edges begin here (and those of any state before it not merged: none).
        while self.starts.len() <= id as usize {
            self.starts.push(self.edges.len() as u32);
        }
        let (id, children, transitions, reduced, (parent, parent_bytes)) = match expanded {
            // In the shared levels of a split, shard 0 alone counts the ends.
            Expanded::Ended { bytes, .. }
                if self.shared && self.rules.limits.shard.is_some_and(|s| s.0 > 0) =>
            {
                self.memory.held -= bytes;
                return Ok(());
            }
            Expanded::Ended { id, bytes, end } => {
                // The state is gone; what its end keeps stays.
                self.memory.held -= bytes;
                self.memory.held += match &end {
                    End::Metrics(cells) => std::mem::size_of_val(cells.as_slice()) as u64,
                    End::Run(_) => bytes,
                };
                self.ends.push((id, end));
                return Ok(());
            }
            Expanded::Children {
                id,
                ordered,
                reduced,
                transitions,
                children,
                bytes,
                parent,
            } => {
                self.ordered |= ordered;
                self.reduced += u64::from(reduced);
                self.memory.held -= bytes;
                self.widest = self.widest.max(children.len());
                (id, children, transitions, reduced, (parent, bytes))
            }
        };
        // A child the state bound cuts is no transition of the graph (with merging off, a
        // tree of N states has N − 1 transitions, bounded or not).
        let mut cut = 0u64;
        for (rank, child) in children.into_iter().enumerate() {
            let merged = child
                .fingerprint
                .filter(|_| !self.shared)
                .and_then(|f| self.young.get(f).or_else(|| self.seen.get(f)));
            let delta = if child.delta.iter().all(|d| *d == 0) {
                0
            } else {
                self.deltas.intern(&child.delta)
            };
            let edge = |to: u32| Edge::new(to, delta, &child.choice);
            let drawn = Drawn::of(&child.choice, child.probability);
            if let Some(to) = merged {
                self.back |= to <= id;
                #[cfg(debug_assertions)]
                self.check_merge(to, &child, parent.as_ref(), id)?;
                self.push_edge(edge(to), drawn, rank);
                if let Some(state) = child.state {
                    self.spare.recycle(state, child.bytes);
                }
                continue;
            }
            if !self.admits(child.bytes) {
                if let Some(state) = child.state {
                    self.spare.recycle(state, child.bytes);
                }
                cut += 1;
                continue;
            }
            let to = self.depths.len() as u32;
            let depth = self.depths.of(id) + 1;
            let state = match child.state {
                Some(state) => state,
                None => {
                    let parent = parent.as_ref().ok_or_else(|| {
                        ModelError::Invariant("a child's state was dropped with its parent".into())
                    })?;
                    self.rebuild(parent, child.choice, depth)?
                }
            };
            self.depths.push(depth);
            if self.rules.limits.shard.is_some() {
                // Merging off, a state is the execution that reaches it: keyed by its path.
                let key = child
                    .fingerprint
                    .unwrap_or_else(|| path_key(self.visits[id as usize].key, rank));
                self.visits.push(Visit {
                    key,
                    depth,
                    ..Visit::default()
                });
            }
            if let Some(fingerprint) = child.fingerprint.filter(|_| !self.shared) {
                self.young.insert(fingerprint, to);
                #[cfg(debug_assertions)]
                self.words.insert(to, state.0.state_words(&state.1));
            }

            self.push_edge(edge(to), drawn, rank);
            frontier.push_back(Waiting {
                id: to,
                depth,
                bytes: child.bytes,
                state,
            });
        }
        if let Some(parent) = parent {
            self.spare.recycle(parent, parent_bytes);
        }
        let transitions = transitions.saturating_sub(cut);
        self.transitions += transitions;
        if let Some(visit) = self.visits.get_mut(id as usize) {
            visit.transitions = u32::try_from(transitions).unwrap_or(u32::MAX);
            visit.reduced = reduced;
        }
        Ok(())
    }
}

impl Search<'_> {
    /// The walk's cold entries, and the search's edges, spill into the outer context's
    /// folder (if it gives one, and the limits leave room on disk and a share of memory to
    /// spill past): each past a share of its own.
    fn spill_walk(&mut self) {
        let limits = &self.rules.limits;
        let Some(folder) = self.outer.spill_folder() else {
            return;
        };
        let from = limits
            .spill_from_bytes
            .or(limits.max_memory_bytes.map(|bytes| bytes / 8));
        if let Some(from) = from
            && limits.max_spill_bytes > 0
        {
            // Pages of at most a quarter of the share kept in memory (24 bytes an entry),
            // from 64 entries to the 65,536 of a walk that does not spill.
            let entries = (from / 96).clamp(64, 1 << PAGE_SHIFT);
            let shift = 63 - entries.leading_zeros();
            self.walk
                .spill_to(folder, limits.max_spill_bytes, from, shift);
            // The edges alike, past a share of their own (12 bytes an edge).
            let edges = (from / 48).clamp(64, 1 << PAGE_SHIFT);
            let shift = 63 - edges.leading_zeros();
            self.edges
                .spill_to(folder, limits.max_spill_bytes, from, shift);
        }
    }

    /// Whether the counting keeps each entry's probability apart from its executions'
    /// number: where an event may draw (a transition's probability is then not 1), and in
    /// a split's shard, whose part states its share of each outcome's probability.
    fn chances(&self) -> bool {
        self.rules.may_draw || self.rules.limits.shard.is_some()
    }

    /// Transition `edge` (with `drawn`), the `rank`-th of its start's, added to the graph.
    fn push_edge(&mut self, edge: Edge, drawn: Drawn, rank: usize) {
        self.edges.push(edge, drawn);
        if self.rules.limits.shard.is_some() {
            self.ranks.push(rank as u32);
        }
    }
}

/// The key of the state that transition `rank` out of the state keyed `parent` reaches,
/// when states are not merged (a tree: each execution's states are its own).
fn path_key(parent: u64, rank: usize) -> u64 {
    // SplitMix64's finaliser over the parent's key and the rank.
    let mut mixed = parent ^ (rank as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    mixed ^ (mixed >> 31)
}

thread_local! {
    /// A canonical order's places, kept between states (no allocation per state).
    static MOVED: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}
