//! The search: breadth first over the run's states, every transition kept as an edge with
//! the counts it adds ([`Sim::counts`]: a register's lost updates, say, which decide
//! nothing the run does next and so tell no states apart). Afterwards, over that graph:
//! each state's reachable counts, breadth first again, so the first execution that reaches
//! an outcome is one of its shortest; and the executions and probabilities, counted in
//! topological order, not by enumerating paths.

use std::collections::VecDeque;

use coordsim_model::explore::Visit;
use coordsim_model::{Bound, Cell, Exploration, ExploreLimits, ModelError, Reached, RunContext};
use rustc_hash::FxHashMap;
use sim_core::{Due, EventQueue, SimError};
use smallvec::SmallVec;

use crate::explore::budget::{Keep, Memory};
use crate::explore::count::{CountTable, Edge};
use crate::explore::reduce::Reducer;
use crate::explore::spare::{MAX_SPARE_BYTES, Spare, State};
use crate::explore::step::{Choice, Ran, choices_into, in_execution, may_crash, run_chosen, start};
use crate::explore::symmetry::Symmetry;
use crate::point::Point;
use crate::run::state::{Event, Sim};
use crate::run::steer::Counts;
use crate::syntax::metrics::Metric;

mod child;
mod memory;
mod outcomes;

/// Most draws one event decides: a choice keeps them as the bits of one word.
const MAX_DRAWS: usize = 64;

/// One way an event ran: the state it reached and what it did.
struct Branch<'a> {
    state: State<'a>,
    ran: Ran,
}

/// Every way one event ran: most run one way, so one is kept inline.
type Branches<'a> = SmallVec<[Branch<'a>; 1]>;

/// A state waiting in the frontier: its node, its bytes ([`Sim::state_bytes`]), and the
/// run as it stands there.
type Waiting<'a> = (u32, u64, State<'a>);

/// States expanded per thread per chunk: enough that a thread's start is nothing beside
/// its work, few enough that a chunk's children do not crowd the memory.
const CHUNK_PER_JOB: usize = 2048;

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

pub(super) struct Search<'a> {
    point: &'a Point,
    fill: &'a [Metric],
    /// What the runs of the states see (no stop flags: `outer` has them).
    context: RunContext,
    /// The context as given: its stop flags, its progress counter, its time bound.
    outer: RunContext,
    limits: ExploreLimits,
    /// Each state's depth as the search first reached it.
    depths: Vec<u32>,
    edges: Vec<Edge>,
    /// What transitions add to the counts, each distinct once (index 0: nothing).
    deltas: CountTable,
    /// The start's counts.
    start_counts: Counts,
    /// The states with no event left, each with its run as it ends.
    ends: Vec<(u32, End<'a>)>,
    /// Each fingerprint's state. The keys are xxh3 hashes already: Fx's one multiply
    /// spreads them, where SipHash would hash them again.
    seen: FxHashMap<u64, u32>,
    /// Each kept state's words (a debug build's check that states merged by their
    /// fingerprint are one state: a collision stops the search).
    #[cfg(debug_assertions)]
    words: FxHashMap<u32, Vec<u64>>,
    transitions: u64,
    ordered: bool,
    bounded: Option<Bound>,
    reducer: Reducer,
    reduced: u64,
    /// A split's bookkeeping (`limits.shard`): each node's visit, by node.
    visits: Vec<Visit>,
    /// While the shared first levels of a split grow: no state merged, and (in shards
    /// other than the first) no end counted, as shard 0 counts the ends there.
    shared: bool,
    /// States done with, to copy into (handed to the threads for each chunk).
    spare: Spare<'a>,
    /// Whether an event of the point may draw ([`Point::may_draw`]).
    may_draw: bool,
    /// Whether a metric of `fill` reports a register's counts ([`Sim::counts`]).
    reports_counts: bool,
    /// The groups whose members are interchangeable, put in a canonical order before a
    /// state is keyed ([`Symmetry`]), and what it did with each group.
    symmetry: Symmetry,
    symmetry_notes: Vec<coordsim_model::SymmetryNote>,
    /// The bytes it holds and the budget that bounds them.
    memory: Memory,
    /// The most transitions out of one state so far (for a chunk's size).
    widest: usize,
}

impl<'a> Search<'a> {
    pub(super) fn new(
        point: &'a Point,
        fill: &'a [Metric],
        context: &RunContext,
        limits: &ExploreLimits,
    ) -> Search<'a> {
        Search {
            point,
            fill,
            context: context
                .clone()
                .with_lanes(false)
                .with_distributions(false)
                .without_stop(),
            outer: context.clone(),
            limits: *limits,
            depths: Vec::new(),
            edges: Vec::new(),
            deltas: CountTable::default(),
            start_counts: Counts::new(),
            ends: Vec::new(),
            seen: FxHashMap::default(),
            #[cfg(debug_assertions)]
            words: FxHashMap::default(),
            transitions: 0,
            ordered: false,
            bounded: None,
            reducer: Reducer::new(point, limits.reduce),
            reduced: 0,
            visits: Vec::new(),
            shared: false,
            spare: Spare::holding(
                limits
                    .max_memory_bytes
                    .map_or(MAX_SPARE_BYTES, |b| (b / 16).min(MAX_SPARE_BYTES)),
            ),
            may_draw: point.may_draw(),
            reports_counts: fill.iter().any(|metric| {
                matches!(
                    metric,
                    Metric::RegWrites(_) | Metric::RegLost(_) | Metric::RegRejected(_)
                )
            }),
            symmetry: Symmetry::default(),
            symmetry_notes: Vec::new(),
            memory: Memory::new(limits.max_memory_bytes),
            widest: 1,
        }
    }

    pub(super) fn run(mut self) -> Result<Exploration, ModelError> {
        let (mut sim, mut queue) = start(self.point, &self.context, self.limits.max_faults)?;
        (self.symmetry, self.symmetry_notes) = Symmetry::of(self.point, &sim, &self.limits);
        self.symmetry
            .canonicalize(&mut sim, &mut queue, &mut Vec::new());
        let fingerprint = self.key(&sim, &queue);
        if self.limits.merge_states {
            self.seen.insert(fingerprint, 0);
            #[cfg(debug_assertions)]
            self.words.insert(0, sim.state_words(&queue));
        }
        self.start_counts = sim.counts();
        self.deltas.intern(&vec![0; self.start_counts.len()]);
        self.depths.push(0);
        let bytes = sim.state_bytes(&queue);
        self.memory.held = bytes;
        let mut frontier: VecDeque<Waiting<'a>> =
            VecDeque::from([(0u32, bytes, Box::new((sim, queue)))]);
        if let Some((shard, shards)) = self.limits.shard {
            self.visits.push(Visit {
                key: fingerprint,
                ..Visit::default()
            });
            self.share(&mut frontier, shard, shards)?;
        }
        while !frontier.is_empty() {
            let chunk = self.chunk(&mut frontier);
            if !self.step(chunk, &mut frontier)? {
                break;
            }
        }
        self.finish()
    }

    /// The next states to expand at once: the front of `frontier`.
    fn chunk(&self, frontier: &mut VecDeque<Waiting<'a>>) -> Vec<Waiting<'a>> {
        let jobs = self.limits.jobs.max(1);
        let take = frontier
            .len()
            .min(CHUNK_PER_JOB * jobs)
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
        let jobs = self.limits.jobs.max(1);
        for expanded in self.expand_all(chunk, jobs) {
            self.merge(expanded?, frontier)?;
        }
        self.outer.report_states(self.depths.len() as u64);
        if self.outer.stopped() {
            return Err(ModelError::Sim(SimError::Stopped));
        }
        if !frontier.is_empty() && self.outer.enough() {
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
                let chunk = self.chunk(&mut level);
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
                self.memory.held -= waiting.1;
            } else {
                if self.limits.merge_states {
                    self.seen
                        .insert(self.visits[waiting.0 as usize].key, waiting.0);
                }
                frontier.push_back(waiting);
            }
        }
        Ok(())
    }

    /// Every state of `chunk` expanded, in order, on `jobs` threads (each a contiguous
    /// share of it, and a share of the spare states).
    fn expand_all(
        &mut self,
        chunk: Vec<Waiting<'a>>,
        jobs: usize,
    ) -> Vec<Result<Expanded<'a>, ModelError>> {
        let mut spare = std::mem::take(&mut self.spare);
        if jobs == 1 || chunk.len() < 2 {
            let mut keep = self.keep(1);
            let done = chunk
                .into_iter()
                .map(|w| self.expand(w, &mut spare, &mut keep))
                .collect();
            self.spare = spare;
            return done;
        }
        let per_share = chunk.len().div_ceil(jobs);
        let shares_made = chunk.len().div_ceil(per_share);
        let mut shares: Vec<(Vec<Waiting<'a>>, Spare<'a>, Keep)> = Vec::with_capacity(jobs);
        let mut rest = chunk.into_iter();
        loop {
            let share: Vec<Waiting<'a>> = rest.by_ref().take(per_share).collect();
            if share.is_empty() {
                break;
            }
            shares.push((share, spare.share(jobs), self.keep(shares_made)));
        }
        let this = &*self;
        let (done, spares): (Vec<_>, Vec<_>) = std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .into_iter()
                .map(|(share, mut spare, mut keep)| {
                    scope.spawn(move || {
                        let done = share
                            .into_iter()
                            .map(|w| this.expand(w, &mut spare, &mut keep))
                            .collect::<Vec<_>>();
                        (done, spare)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| match handle.join() {
                    Ok(done) => done,
                    Err(_) => (
                        vec![Err(ModelError::Invariant(
                            "an exploration thread panicked".into(),
                        ))],
                        Spare::default(),
                    ),
                })
                .unzip()
        });
        for returned in spares {
            spare.join(returned);
        }
        self.spare = spare;
        done.into_iter().flatten().collect()
    }

    /// One state expanded: its end, or every way each of its free events can run (what
    /// needs no other state: the merging is [`Search::merge`]'s). The state is spare
    /// afterwards.
    fn expand(
        &self,
        (id, bytes, state): Waiting<'a>,
        spare: &mut Spare<'a>,
        keep: &mut Keep,
    ) -> Result<Expanded<'a>, ModelError> {
        let mut next = std::mem::take(&mut spare.next);
        choices_into(&state.0, &state.1, &mut next);
        if next.is_empty() {
            spare.next = next;
            // Its run's output takes the run: this state is not spare.
            return self.ended(id, bytes, state);
        }
        let (sim, queue) = &*state;
        let depth = self.depths[id as usize] + 1;
        let before = sim.counts();
        let mut transitions = 0;
        // Each pick's children, once made (the reduction may make some first): made as
        // children at once, so that a state the merge has no use for is not kept whole.
        let mut tried: SmallVec<[Option<Vec<Child<'a>>>; 4]> =
            (0..next.len()).map(|_| None).collect();
        let mut reduced = false;
        if self.reducer.on() && next.len() > 1 {
            // An event that commutes with everything else at this instant: taken alone
            // (`reduce`).
            for (pick, &due) in next.iter().enumerate() {
                if !self.reducer.may_be_alone(sim, due.class, due.event) {
                    continue;
                }
                let branches = self.branches(sim, queue, due, depth, &mut transitions, spare)?;
                let actor = sim.owner(due.event);
                let alone = branches.iter().all(|branch| {
                    branch.ran.drawn.iter().all(|d| !d.fault())
                        && self.reducer.independent(sim, actor, &branch.ran.touched)
                });
                let made = branches
                    .into_iter()
                    .map(|branch| self.child(&next, pick, &before, branch, Some(&mut *keep), spare))
                    .collect();
                if alone {
                    for t in tried.iter_mut() {
                        let dropped = t.replace(Vec::new()).unwrap_or_default();
                        dropped
                            .into_iter()
                            .filter_map(|child| child.state)
                            .for_each(|state| spare.recycle(state));
                    }
                    reduced = true;
                }
                tried[pick] = Some(made);
                if alone {
                    break;
                }
            }
        }
        let mut children = Vec::with_capacity(next.len());
        let mut crashes = false;
        // The last event runs in the expanded state itself, not a copy, when it has one way
        // to run and no crash of it is tried: nothing needs the state after it.
        let last = next.len() - 1;
        let in_place = !self.may_draw && tried[last].is_none() && !may_crash(sim, next[last]);
        for (pick, &due) in next.iter().enumerate() {
            if in_place && pick == last {
                break;
            }
            let taken =
                tried[pick].is_none() || tried[pick].as_ref().is_some_and(|b| !b.is_empty());
            match tried[pick].take() {
                Some(made) => children.extend(made),
                None => {
                    let branches =
                        self.branches(sim, queue, due, depth, &mut transitions, spare)?;
                    for branch in branches {
                        let child =
                            self.child(&next, pick, &before, branch, Some(&mut *keep), spare);
                        children.push(child);
                    }
                }
            }
            // The same event as a `crash_anywhere` crash of its actor.
            if taken && may_crash(sim, due) {
                let mut state = spare.copy(sim, queue);
                let (copy_sim, copy_queue) = &mut *state;
                let ran = run_chosen(copy_sim, copy_queue, due, 0, true)
                    .map_err(|e| in_execution(e, depth))?;
                transitions += 1;
                let branch = Branch { state, ran };
                let mut child = self.child(&next, pick, &before, branch, Some(&mut *keep), spare);
                child.choice.crash = true;
                children.push(child);
                crashes = true;
            }
        }
        let ordered = next.len() > 1 || crashes;
        if reduced {
            children.iter_mut().for_each(|c| c.choice.alone = true);
        }
        // A child kept as its fingerprint alone may be made again from this state.
        let mut dropped = children.iter().any(|c| c.state.is_none());
        let mut parent = None;
        if in_place && !dropped {
            let mut state = state;
            let (sim, queue) = &mut *state;
            let ran =
                run_chosen(sim, queue, next[last], 0, false).map_err(|e| in_execution(e, depth))?;
            transitions += 1;
            // Kept whatever the room: it takes the expanded state's place.
            let branch = Branch { state, ran };
            children.push(self.child(&next, last, &before, branch, None, spare));
        } else {
            if in_place {
                let mut copy = spare.copy(sim, queue);
                let (copy_sim, copy_queue) = &mut *copy;
                let ran = run_chosen(copy_sim, copy_queue, next[last], 0, false)
                    .map_err(|e| in_execution(e, depth))?;
                transitions += 1;
                let branch = Branch { state: copy, ran };
                let child = self.child(&next, last, &before, branch, Some(&mut *keep), spare);
                dropped |= child.state.is_none();
                children.push(child);
            }
            if dropped {
                parent = Some(state);
            } else {
                spare.recycle(state);
            }
        }
        spare.next = next;
        Ok(Expanded::Children {
            id,
            // A crash anywhere has no probability, as a free order has none.
            ordered,
            reduced,
            transitions,
            children,
            bytes,
            parent,
        })
    }

    /// Every way event `due` can run from state (`sim`, `queue`): one branch per decision of
    /// its draws (each draw past those given may go the other way).
    fn branches(
        &self,
        sim: &Sim<'a>,
        queue: &EventQueue<Event>,
        due: Due<Event>,
        depth: u32,
        transitions: &mut u64,
        spare: &mut Spare<'a>,
    ) -> Result<Branches<'a>, ModelError> {
        let mut out = Branches::new();
        // Each script: the draws it decides (bit i: draw i "yes") and how many.
        let mut scripts: SmallVec<[(u64, usize); 4]> = SmallVec::from_elem((0, 0), 1);
        while let Some((forced, given)) = scripts.pop() {
            let mut state = spare.copy(sim, queue);
            let (copy_sim, copy_queue) = &mut *state;
            let ran = run_chosen(copy_sim, copy_queue, due, forced, false)
                .map_err(|e| in_execution(e, depth))?;
            *transitions += 1;
            let drawn = &ran.drawn;
            if drawn.len() > MAX_DRAWS {
                return Err(ModelError::Sim(SimError::Model(format!(
                    "one event decided {} random draws; an exploration branches on at most {MAX_DRAWS} per event",
                    drawn.len()
                ))));
            }
            for index in given..drawn.len() {
                let before = drawn[..index]
                    .iter()
                    .enumerate()
                    .fold(0u64, |bits, (j, d)| bits | u64::from(d.taken) << j);
                scripts.push((before | 1 << index, index + 1));
            }
            out.push(Branch { state, ran });
        }
        Ok(out)
    }

    /// An expanded state taken into the graph, in the order one thread would: each child
    /// an edge to the state it reaches, a new node (at the frontier's back) when it is new.
    fn merge(
        &mut self,
        expanded: Expanded<'a>,
        frontier: &mut VecDeque<Waiting<'a>>,
    ) -> Result<(), ModelError> {
        let (id, children, transitions, reduced, parent) = match expanded {
            // In the shared levels of a split, shard 0 alone counts the ends.
            Expanded::Ended { bytes, .. }
                if self.shared && self.limits.shard.is_some_and(|s| s.0 > 0) =>
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
                (id, children, transitions, reduced, parent)
            }
        };
        // A child the state bound cuts is no transition of the graph (with merging off, a
        // tree of N states has N − 1 transitions, bounded or not).
        let mut cut = 0u64;
        for (rank, child) in children.into_iter().enumerate() {
            let merged = child
                .fingerprint
                .filter(|_| !self.shared)
                .and_then(|f| self.seen.get(&f));
            let delta = if child.delta.iter().all(|d| *d == 0) {
                0
            } else {
                self.deltas.intern(&child.delta)
            };
            let edge = |to: u32| Edge {
                from: id,
                to,
                probability: child.probability,
                delta,
                rank: rank as u32,
                choice: child.choice,
            };
            if let Some(&to) = merged {
                #[cfg(debug_assertions)]
                self.check_merge(to, &child, parent.as_ref(), id)?;
                self.edges.push(edge(to));
                if let Some(state) = child.state {
                    self.spare.recycle(state);
                }
                continue;
            }
            if !self.admits(child.bytes) {
                if let Some(state) = child.state {
                    self.spare.recycle(state);
                }
                cut += 1;
                continue;
            }
            let to = self.depths.len() as u32;
            let depth = self.depths[id as usize] + 1;
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
            if self.limits.shard.is_some() {
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
                self.seen.insert(fingerprint, to);
                #[cfg(debug_assertions)]
                self.words.insert(to, state.0.state_words(&state.1));
            }

            self.edges.push(edge(to));
            frontier.push_back((to, child.bytes, state));
        }
        if let Some(parent) = parent {
            self.spare.recycle(parent);
        }
        let transitions = transitions.saturating_sub(cut);
        self.transitions += transitions;
        if let Some(visit) = self.visits.get_mut(id as usize) {
            visit.transitions = u32::try_from(transitions).unwrap_or(u32::MAX);
            visit.reduced = reduced;
        }
        Ok(())
    }

    /// A state with no event left: the run's end, settled and checked; its metrics taken
    /// now when no metric reports a count, else in [`Search::finish`] with each count an
    /// execution reaches it with.
    fn ended(&self, id: u32, bytes: u64, state: State<'a>) -> Result<Expanded<'a>, ModelError> {
        let mut state = state;
        let (sim, queue) = &mut *state;
        sim.end = queue.now();
        sim.settle_direct();
        sim.check(self.context.seed())?;
        // When no metric reports a count, the metrics now (on the expanding thread): every
        // count an execution brings here ends alike, and the whole run need not be kept.
        let end = if !self.reports_counts {
            let (sim, _) = *state;
            End::Metrics(sim.output(self.fill, &[], &self.context).metrics)
        } else {
            End::Run(state)
        };
        Ok(Expanded::Ended { id, bytes, end })
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
