//! The counting over an explored graph: which counts ([`Sim::counts`]: a register's lost
//! updates, say) each state is reached with, and along how many executions and with what
//! probability each.
//!
//! The search tells states apart by what decides the run's future alone, so two
//! executions that reach one state with different counts meet there; each transition
//! keeps what it added to the counts. An *entry* is a state with the counts one execution
//! brings to it: the entries are the states a search that told counts apart would have
//! walked, found here breadth first over the kept graph (so an entry's first execution is
//! a shortest one, in the order the search takes transitions), without running a step.
//!
//! [`Sim::counts`]: crate::run::state::Sim

use rustc_hash::FxHashMap;

use coordsim_model::explore::Schedulers;

use crate::run::steer::Counts;

mod edges;
mod entries;
mod paged;
mod spill;

pub(super) use edges::{Drawn, Edge, EdgeView, Edges};
pub(super) use entries::{Entries, Entry, NONE};
pub(super) use paged::PAGE_SHIFT;
pub(super) use spill::SpillError;

/// Counts interned: each distinct one an index, so an entry or an edge holds a word.
#[derive(Default)]
pub(super) struct CountTable {
    pub all: Vec<Counts>,
    index: FxHashMap<Counts, u32>,
}

impl CountTable {
    /// The index of `counts`, new or known.
    pub(super) fn intern(&mut self, counts: &[u64]) -> u32 {
        if let Some(&at) = self.index.get(counts) {
            return at;
        }
        let at = self.all.len() as u32;
        self.all.push(Counts::from_slice(counts));
        self.index.insert(Counts::from_slice(counts), at);
        at
    }
}

/// An explored graph, as [`count`] reads it: its edges in the order of the states they
/// leave (as the search merges them), each state's from `starts[state]` up to the next's.
#[derive(Clone, Copy)]
pub(super) struct Graph<'g> {
    pub states: usize,
    pub edges: EdgeView<'g>,
    /// Each edge's draws, or none (every edge: no draw, probability 1).
    pub drawn: &'g [Drawn],
    /// Where each state's edges begin (`states + 1` of them: the last is the edges' end).
    pub starts: &'g [u32],
    /// What the edges add (`Edge::delta` indexes it; 0: nothing).
    pub deltas: &'g CountTable,
    /// Most entries (`max_states`).
    pub max_entries: u64,
}

impl Graph<'_> {
    /// Edge `edge`'s draws.
    pub(super) fn drawn(&self, edge: usize) -> Drawn {
        self.drawn.get(edge).copied().unwrap_or(Drawn::NONE)
    }

    /// Its probability given its start.
    fn probability(&self, edge: usize) -> f64 {
        self.drawn.get(edge).map_or(1.0, |d| d.probability)
    }

    /// The edge by which entry `at` of `counted` was first reached (from its `pred`): the
    /// first edge out of the predecessor's state to `at`'s state whose counts added to
    /// the predecessor's are `at`'s, as the walk took them (`None`: the start's).
    pub(super) fn edge_into(&self, counted: &Counted, at: u32) -> Option<usize> {
        let entry = counted.entries.get(at);
        let pred = counted.entries.get(entry.pred);
        let (from, to) = (
            &counted.counts.all[pred.counts as usize],
            &counted.counts.all[entry.counts as usize],
        );
        out_of(self.starts, self.edges.len(), pred.node).find(|&edge_index| {
            let edge = self.edges.get(edge_index);
            edge.to == entry.node
                && (from.iter().zip(&self.deltas.all[edge.delta as usize]))
                    .map(|(count, delta)| count.wrapping_add(*delta))
                    .eq(to.iter().copied())
        })
    }
}

/// What [`count`] found.
pub(super) struct Counted {
    /// Breadth first from the start's (index 0).
    pub entries: Entries,
    pub counts: CountTable,
    /// Entries past `max_entries` were left out.
    pub cut: bool,
    /// A state can be reached again from itself: the executions are not all counted.
    pub cycle: bool,
    /// The most events along one execution (of those the topological order reached).
    pub longest: u64,
    /// The entries as a graph, for [`schedulers`]: kept only when asked of
    /// [`Walk::finish`].
    pub links: Option<Links>,
    /// Why a page of entries could not spill (the walk was cut there), if one could not.
    pub spill_failed: Option<SpillError>,
}

impl Counted {
    /// The edges from the start to entry `at` (their indices in `graph`), along its first
    /// (shortest) execution.
    pub(super) fn path(&self, graph: &Graph<'_>, mut at: u32) -> Vec<u32> {
        let mut path = Vec::with_capacity(self.entries.depth(at) as usize);
        while self.entries.get(at).pred != NONE {
            // Every entry but the start's was made by an edge its walk took.
            path.extend(graph.edge_into(self, at).map(|e| e as u32));
            at = self.entries.get(at).pred;
        }
        path.reverse();
        path
    }
}

/// How the entries lead to one another, kept for the schedulers' graph ([`schedulers`]).
pub(super) struct Links {
    /// The entries in a topological order (every transition to a later one), the start's
    /// first; without a cycle, every entry.
    pub topological: Vec<u32>,
    /// Each entry's transitions' ends (`NONE`: cut), in its state's edge order from
    /// `reached[entry]`.
    pub targets: Vec<u32>,
    pub reached: Vec<usize>,
}

/// The edges of state `node` (their indices), of a graph whose first `starts.len() - 1`
/// states have all theirs among `edges` (a state past them: none yet).
fn out_of(starts: &[u32], edges: usize, node: u32) -> std::ops::Range<usize> {
    let node = node as usize;
    match (starts.get(node), starts.get(node + 1)) {
        (Some(&from), Some(&to)) => from as usize..to as usize,
        (Some(&from), None) => from as usize..edges,
        _ => 0..0,
    }
}

/// The entries found so far, breadth first from the start's: the counting's first part,
/// which can go on while the search does (a state's entries are taken once every edge out
/// of it is merged), so that on several threads it costs the search's threads no time.
pub(super) struct Walk {
    sums: Sums,
    /// Each state's last entry (`NONE`: none yet; past the end: none).
    first: Vec<u32>,
    /// The entries made (their transitions' ends are not kept: the counting finds them
    /// again, by their state and counts, where it needs them).
    entries: Entries,
    cut: bool,
    /// The next entry to take.
    at: usize,
    /// Every transition walked so far went from an entry to one of the next depth and had
    /// probability 1 (no draw): entries are then made and taken depth by depth, each taken
    /// only once every transition into it was walked, so its executions are summed as the
    /// walk goes ([`Walk::finish`] has no topological order to take).
    leveled: bool,
    /// The deepest depth whose entries the walk began to take (its cold pages, those
    /// before it, spilled then).
    taking: u32,
    /// A cold page could not spill: the walk made no entry since (cut).
    spill_failed: Option<SpillError>,
}

impl Walk {
    /// The start's entry alone, with counts `start`; each entry's probability kept apart
    /// with `chances` (else it is its number of executions, unless the graph draws: see
    /// [`Walk::finish`]).
    pub(super) fn new(start: &[u64], chances: bool) -> Walk {
        let mut sums = Sums {
            counts: CountTable::default(),
            memo: FxHashMap::default(),
        };
        let counts = sums.counts.intern(start);
        Walk {
            sums,
            first: vec![0],
            entries: Entries::start(counts, chances),
            cut: false,
            at: 0,
            leveled: true,
            taking: 0,
            spill_failed: None,
        }
    }

    /// The entries of the depths the walk is done with go to a spill store in `folder`
    /// (at most `max_bytes` on disk) in pages of `1 << shift` entries, once those in memory
    /// take more than `from_bytes`, while the walk is leveled (else the counting takes them
    /// again in another order: they stay in memory). Where a page cannot spill the walk
    /// stops there, cut (said by [`Counted::spill_failed`]).
    pub(super) fn spill_to(
        &mut self,
        folder: &std::path::Path,
        max_bytes: u64,
        from_bytes: u64,
        shift: u32,
    ) {
        self.entries.spill_to(folder, max_bytes, from_bytes, shift);
    }

    /// The bytes it holds, by its lists' capacities.
    pub(super) fn bytes(&self) -> u64 {
        (self.entries.bytes() + std::mem::size_of::<u32>() * self.first.capacity()) as u64
    }

    /// The bytes of entries it keeps in memory before it spills, if it spills.
    pub(super) fn spill_share(&self) -> Option<u64> {
        self.entries.spill_share()
    }

    /// Up to `most` entries taken on, breadth first, while their state is among the first
    /// `known` of `graph` (those whose edges are all merged) and at most `limit` entries
    /// are made; how many were taken. With `whole` an edge past the limit is cut (the limit
    /// is final, or cut back to by [`Walk::finish`]); without, the walk stops before an
    /// entry that might make one (the limit may yet grow).
    pub(super) fn advance(
        &mut self,
        graph: &Graph<'_>,
        (known, most): (usize, usize),
        limit: u64,
        whole: bool,
    ) -> usize {
        let begun = self.at;
        while self.at < self.entries.len() && self.at - begun < most && self.spill_failed.is_none()
        {
            let at = self.at as u32;
            let entry = self.entries.get(at);
            if entry.node as usize >= known {
                break;
            }
            let out = out_of(graph.starts, graph.edges.len(), entry.node);
            if !whole && self.entries.len() as u64 + out.len() as u64 > limit {
                break;
            }
            let depth = self.entries.depth(at);
            if depth > self.taking && self.leveled {
                // A depth begun: the entries before it are read again only by the
                // outcomes and the traces, and may spill.
                self.taking = depth;
                if let Err(failed) = self.entries.spill_cold(at) {
                    self.spill_failed = Some(failed);
                    self.cut = true;
                    break;
                }
            }
            for edge_index in out {
                let edge = graph.edges.get(edge_index);
                let probability = graph.probability(edge_index);
                let to_counts = self.sums.add(graph.deltas, entry.counts, edge.delta);
                let target = self.find(edge.to, to_counts);
                if target != NONE {
                    self.sum_into(target, (at, depth), probability);
                    continue;
                }
                if self.entries.len() as u64 >= limit {
                    self.cut = true;
                    continue;
                }
                let to = edge.to as usize;
                if self.first.len() <= to {
                    self.first.resize(to + 1, NONE);
                }
                let new_entry =
                    (self.entries).push(edge.to, to_counts, at, self.first[to], depth + 1);
                self.first[to] = new_entry;
                self.sum_into(new_entry, (at, depth), probability);
            }
            self.at += 1;
        }
        self.at - begun
    }

    /// The walk as if it had made at most `limit` entries (it made more): the later ones
    /// and what was found from them dropped, an edge to one of them cut. Entries are made
    /// and taken in one order whatever the limit, so this is the walk a lower limit makes.
    fn truncate(&mut self, limit: usize) {
        if self.entries.len() <= limit {
            return;
        }
        // A state's entries are chained from its last to its first: the chain begins at
        // its last one kept.
        for first in &mut self.first {
            while *first != NONE && *first as usize >= limit {
                *first = self.entries.get(*first).next;
            }
        }
        self.entries.truncate(limit);
        self.at = self.at.min(limit);
        // The first entry dropped was made by a transition out of one kept and taken
        // (made earlier, taken before it): that transition is cut now.
        self.cut = true;
    }

    /// Entry `from`'s (of `depth`) executions added to entry `target`'s over a transition
    /// of `probability`, while the walk is leveled (else the walk is leveled no more:
    /// [`Walk::finish`] sums them in a topological order). A transition of probability 1
    /// carries `from`'s chance whole: where no draw is made the chance is the executions'
    /// number (an outcome's probability is stated only where no order is free, over a
    /// single execution), so its sums need no order.
    fn sum_into(&mut self, target: u32, (from, depth): (u32, u32), probability: f64) {
        if !self.leveled {
            return;
        }
        if !self.entries.of_depth(target, depth + 1) || probability != 1.0 {
            self.leveled = false;
            return;
        }
        self.entries.add(target, from, 1.0);
    }

    /// The entry of state `node` with counts `counts` (`NONE`: none yet).
    fn find(&self, node: u32, counts: u32) -> u32 {
        let mut at = self.first.get(node as usize).copied().unwrap_or(NONE);
        while at != NONE && self.entries.get(at).counts != counts {
            at = self.entries.get(at).next;
        }
        at
    }

    /// The walk taken on over the whole `graph` while it is leveled: whether
    /// [`Walk::finish`] then counts again (it takes the edges in another order: spilled
    /// ones are better read back into memory first).
    pub(super) fn counts_again(&mut self, graph: &Graph<'_>, keep_links: bool) -> bool {
        if self.leveled {
            self.advance(graph, (graph.states, usize::MAX), graph.max_entries, true);
        }
        !(self.leveled && !self.cut && !keep_links) && self.spill_failed.is_none()
    }

    /// The walk ended over the whole `graph` (every entry taken, within `max_entries`, or
    /// fewer with a cycle), then the executions counted state by state in topological
    /// order (every entry of a state has all its executions once every edge into the state
    /// was taken), unless the walk was leveled and nothing was cut: then they were summed as
    /// it went. With `keep_links` the entries' [`Links`] are kept too (else dropped). Each
    /// entry's probability is counted apart where the walk was asked to or a transition of
    /// the graph draws; elsewhere it is its number of executions.
    pub(super) fn finish(mut self, graph: &Graph<'_>, keep_links: bool) -> Counted {
        if self.leveled {
            self.advance(graph, (graph.states, usize::MAX), graph.max_entries, true);
            if self.leveled && !self.cut && !keep_links {
                return self.leveled_counted();
            }
        }
        if self.spill_failed.is_some() {
            // The walk stopped where the spill could hold no more: what it summed so far
            // is what there is (counting again would take every entry back in memory).
            let mut counted = self.leveled_counted();
            counted.cut = true;
            return counted;
        }
        // Summed in part (until a transition was not leveled), or cut, or the links asked
        // for (in the states' topological order, which the schedulers' graph is numbered
        // by): counted again in that order.
        self.entries.restart(!graph.drawn.is_empty());
        let (order, longest) = topological(graph);
        let cycle = order.len() < graph.states;
        // A cycle that adds to the counts would make entries without end: with one, they
        // are walked only so far (the verdict is bounded already).
        let max_entries = if cycle {
            graph.max_entries.min(4 * graph.states as u64 + 1)
        } else {
            graph.max_entries
        };
        self.truncate(usize::try_from(max_entries).unwrap_or(usize::MAX));
        self.advance(graph, (graph.states, usize::MAX), max_entries, true);
        self.first.resize(graph.states, NONE);
        let made = if keep_links { self.entries.len() } else { 0 };
        let mut links = Links {
            topological: Vec::with_capacity(made),
            targets: Vec::new(),
            reached: vec![0; made],
        };
        for &node in &order {
            let mut at = self.first[node as usize];
            while at != NONE {
                if keep_links {
                    links.topological.push(at);
                    links.reached[at as usize] = links.targets.len();
                }
                let counts = self.entries.get(at).counts;
                for edge_index in out_of(graph.starts, graph.edges.len(), node) {
                    // The end the walk found (or cut: none), found again.
                    let edge = graph.edges.get(edge_index);
                    let to_counts = self.sums.add(graph.deltas, counts, edge.delta);
                    let target = self.find(edge.to, to_counts);
                    if keep_links {
                        links.targets.push(target);
                    }
                    if target != NONE {
                        (self.entries).add(target, at, graph.probability(edge_index));
                    }
                }
                at = self.entries.get(at).next;
            }
        }
        Counted {
            entries: self.entries,
            counts: self.sums.counts,
            cut: self.cut,
            cycle,
            longest,
            links: keep_links.then_some(links),
            spill_failed: None,
        }
    }
}

impl Walk {
    /// What a leveled walk over the whole graph with nothing cut counted as it went: every
    /// transition goes one depth on, so no cycle is reachable and the longest execution is
    /// the deepest entry's.
    fn leveled_counted(self) -> Counted {
        let longest = u64::from(self.entries.deepest());
        Counted {
            entries: self.entries,
            counts: self.sums.counts,
            cut: false,
            cycle: false,
            longest,
            links: None,
            spill_failed: self.spill_failed,
        }
    }
}

/// Every entry of `graph`, and its executions and their probability, from a start with
/// counts `start`: the entries breadth first from the start's ([`Walk`]), then the counting.
#[cfg(test)]
pub(super) fn count(graph: &Graph<'_>, start: &[u64]) -> Counted {
    Walk::new(start, false).finish(graph, false)
}

/// The entries of `counted` (of `graph`, with no cycle and nothing cut, its [`Links`]
/// kept) as a scheduler chooses among their transitions: one action per event taken (its
/// `pick`) or its actor's crash there, each action's branches its draws' decisions; an end
/// entry's outcome is `outcome[entry]`. With `edge_of`, each branch's edge (its index in
/// `graph.edges`) is pushed there, branch by branch: what turns a path over the graph into
/// the search's transitions, and so into a schedule (4 bytes a branch, only when asked).
/// `Err`: the graph is not whole or its links were not kept (an internal error: it is
/// asked for only when nothing was cut).
pub(super) fn schedulers(
    graph: &Graph<'_>,
    counted: &Counted,
    outcome: &[u32],
    mut edge_of: Option<&mut Vec<u32>>,
) -> Result<Schedulers, String> {
    let links = (counted.links.as_ref()).ok_or("the entries' links were not kept")?;
    let mut place = vec![NONE; counted.entries.len()];
    for (at, &entry) in links.topological.iter().enumerate() {
        place[entry as usize] = at as u32;
    }
    let mut schedulers = Schedulers::new();
    if let Some(edge_of) = edge_of.as_deref_mut() {
        // A branch per transition of an entry: each entry's are among `targets`.
        edge_of.reserve_exact(links.targets.len());
    }
    // One entry's transitions, by action: (pick, crash), target, probability, edge.
    let mut ways: Vec<((u16, bool), u32, f64, u32)> = Vec::new();
    for &entry in &links.topological {
        let node = counted.entries.get(entry).node;
        let out = out_of(graph.starts, graph.edges.len(), node);
        if out.is_empty() {
            match outcome[entry as usize] {
                NONE => return Err(format!("entry {entry} ends with no outcome")),
                outcome => schedulers.push_end(outcome),
            }
            continue;
        }
        schedulers.push_entry();
        ways.clear();
        let from = links.reached[entry as usize];
        for (edge_index, &target) in out.zip(&links.targets[from..]) {
            let edge = graph.edges.get(edge_index);
            let key = (edge.pick, edge.crash());
            ways.push((
                key,
                place.get(target as usize).copied().unwrap_or(NONE),
                graph.probability(edge_index),
                edge_index as u32,
            ));
        }
        // An action's branches are made one after another; sorted, stably, in case not.
        ways.sort_by_key(|way| way.0);
        let mut last = None;
        for &(key, to, probability, edge) in &ways {
            if last != Some(key) {
                schedulers.push_action()?;
                last = Some(key);
            }
            schedulers.push_branch(to, probability)?;
            if let Some(edge_of) = edge_of.as_deref_mut() {
                edge_of.push(edge);
            }
        }
    }
    Ok(schedulers)
}

/// The states in topological order (Kahn's: a state once every edge into it was taken),
/// and the most edges along any path from the start. States on a cycle are left out.
fn topological(graph: &Graph<'_>) -> (Vec<u32>, u64) {
    let mut indegree = vec![0u32; graph.states];
    for edge in graph.edges.iter() {
        indegree[edge.to as usize] += 1;
    }
    let mut deepest = vec![0u64; graph.states];
    // Every state is reached from the start: the start is the one state nothing leads
    // to, unless a cycle comes back to it (then nothing is ordered, and the cycle said).
    let mut ready = if indegree[0] == 0 {
        vec![0u32]
    } else {
        Vec::new()
    };
    let mut order = Vec::with_capacity(graph.states);
    while let Some(node) = ready.pop() {
        order.push(node);
        for edge_index in out_of(graph.starts, graph.edges.len(), node) {
            let next = graph.edges.get(edge_index).to as usize;
            deepest[next] = deepest[next].max(deepest[node as usize] + 1);
            indegree[next] -= 1;
            if indegree[next] == 0 {
                ready.push(next as u32);
            }
        }
    }
    let longest = order
        .iter()
        .map(|&n| deepest[n as usize])
        .max()
        .unwrap_or(0);
    (order, longest)
}

/// The counts reached so far, and each sum of counts and a transition's delta once taken.
struct Sums {
    counts: CountTable,
    memo: FxHashMap<(u32, u32), u32>,
}

impl Sums {
    /// Counts `counts` with `delta` (of `deltas`) added (each sum computed once).
    fn add(&mut self, deltas: &CountTable, counts: u32, delta: u32) -> u32 {
        if delta == 0 {
            return counts;
        }
        if let Some(&sum) = self.memo.get(&(counts, delta)) {
            return sum;
        }
        let added: Counts = self.counts.all[counts as usize]
            .iter()
            .zip(&deltas.all[delta as usize])
            .map(|(count, delta)| count.wrapping_add(*delta))
            .collect();
        let sum = self.counts.intern(&added);
        self.memo.insert((counts, delta), sum);
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::step::Choice;
    use proptest::prelude::*;

    /// An edge out of state `from` (kept beside it: a graph's edges are in the order of
    /// the states they leave).
    fn edge(from: u32, to: u32, delta: u32) -> (u32, Edge, Drawn) {
        let drawn = Drawn {
            probability: 0.5,
            ..Drawn::NONE
        };
        (from, Edge::new(to, delta, &Choice::default()), drawn)
    }

    /// Where each of `states` states' edges begin among `edges` (in their states' order).
    fn starts_of(states: usize, edges: &[(u32, Edge, Drawn)]) -> Vec<u32> {
        assert!(edges.is_sorted_by_key(|(from, ..)| *from));
        (0..=states as u32)
            .map(|node| edges.iter().filter(|(from, ..)| *from < node).count() as u32)
            .collect()
    }

    /// The edges of `edges` and their draws, apart.
    fn split(edges: &[(u32, Edge, Drawn)]) -> (Vec<Edge>, Vec<Drawn>) {
        edges.iter().map(|&(_, edge, drawn)| (edge, drawn)).unzip()
    }

    /// `edges` (in the order of the states they leave) over `states` states counted from a
    /// start with counts `start`, within `max_entries`.
    fn counted_within(
        states: usize,
        edges: &[(u32, Edge, Drawn)],
        deltas: &CountTable,
        start: &[u64],
        max_entries: u64,
    ) -> Counted {
        let starts = starts_of(states, edges);
        let (edges, drawn) = split(edges);
        let graph = Graph {
            states,
            edges: EdgeView::of(&edges),
            drawn: &drawn,
            starts: &starts,
            deltas,
            max_entries,
        };
        count(&graph, start)
    }

    fn counted(
        states: usize,
        edges: &[(u32, Edge, Drawn)],
        deltas: &CountTable,
        start: &[u64],
    ) -> Counted {
        counted_within(states, edges, deltas, start, 100)
    }

    /// The entries of state `node`: each with its executions, probability and depth.
    fn ends_of(counted: &Counted, node: u32) -> Vec<(Entry, u128, f64, u32)> {
        let entries = &counted.entries;
        (0..entries.len() as u32)
            .filter(|&at| entries.get(at).node == node)
            .map(|at| {
                let e = entries.get(at);
                (e, entries.paths(at), entries.chance(at), entries.depth(at))
            })
            .collect()
    }

    /// A diamond: the start (0) goes to 1 adding a lost update (delta 1) or to 2 adding
    /// none, each with probability 1/2; both go on to the end (3). The end is one state
    /// reached with two counts: two entries, one execution and probability 1/2 each, each
    /// with its own shortest execution (through 1, through 2).
    #[test]
    fn two_executions_meeting_with_different_counts_stay_two_entries() {
        let mut deltas = CountTable::default();
        assert_eq!(deltas.intern(&[0, 0]), 0);
        assert_eq!(deltas.intern(&[0, 1]), 1);
        let edges = [edge(0, 1, 1), edge(0, 2, 0), edge(1, 3, 0), edge(2, 3, 0)];
        let counted = counted(4, &edges, &deltas, &[0, 0]);
        assert!(!counted.cut && !counted.cycle);
        let ends = ends_of(&counted, 3);
        assert_eq!(ends.len(), 2);
        let counts_of = |e: &Entry| counted.counts.all[e.counts as usize].to_vec();
        // Breadth first: the end through 1 (the start's first edge) is found first.
        assert_eq!(counts_of(&ends[0].0), vec![0, 1]);
        assert_eq!(counts_of(&ends[1].0), vec![0, 0]);
        for (end, through) in ends.iter().zip([1, 2]) {
            // One execution of two transitions of probability 1/2: 1/4.
            assert_eq!((end.1, end.2, end.3), (1, 0.25, 2));
            assert_eq!(counted.entries.get(end.0.pred).node, through);
        }
        // Each end's shortest execution, by the edges' indices (in the list above): the
        // one through 1 takes edges 0 and 2, the one through 2 edges 1 and 3 (an entry
        // keeps no edge: it is found again from its predecessor and its counts).
        let (plain, drawn) = split(&edges);
        let starts = starts_of(4, &edges);
        let graph = Graph {
            states: 4,
            edges: EdgeView::of(&plain),
            drawn: &drawn,
            starts: &starts,
            deltas: &deltas,
            max_entries: 100,
        };
        let ends: Vec<u32> = (0..counted.entries.len() as u32)
            .filter(|&at| counted.entries.get(at).node == 3)
            .collect();
        assert_eq!(counted.path(&graph, ends[0]), vec![0, 2]);
        assert_eq!(counted.path(&graph, ends[1]), vec![1, 3]);
    }

    /// An edge's draws are kept beside it once one edge draws, the edges before it taken
    /// as drawing nothing: whether the first edge draws or a later one.
    #[test]
    fn the_draws_are_kept_once_an_edge_draws() {
        let plain = Edge::default();
        let drew = Drawn {
            probability: 0.25,
            draws: 1,
            drawn: 2,
        };
        for first_draws in [true, false] {
            let mut edges = Edges::default();
            edges.push(plain, if first_draws { drew } else { Drawn::NONE });
            edges.push(plain, Drawn::NONE);
            edges.push(plain, drew);
            let graph = Graph {
                states: 1,
                edges: edges.view(),
                drawn: &edges.drawn,
                starts: &[0, 3],
                deltas: &CountTable::default(),
                max_entries: 1,
            };
            let first = if first_draws { drew } else { Drawn::NONE };
            assert_eq!(graph.drawn(0), first);
            assert_eq!(graph.drawn(1), Drawn::NONE);
            assert_eq!((graph.drawn(2), graph.probability(2)), (drew, 0.25));
        }
        // Nothing drew: nothing kept.
        let mut edges = Edges::default();
        edges.push(Edge::default(), Drawn::NONE);
        assert!(edges.drawn.is_empty());
    }

    /// The layout the memory budget and docs/explore.md count on: a graph keeps 3–4 edges
    /// a state and at least one entry (each more with counts), so at 40 bytes an edge and
    /// 48 an entry the lost update of 4 clients × 4 increments held about 450 bytes a
    /// state; an edge keeps no probability, draws or rank (kept beside only where a graph
    /// needs them), an entry no depth, edge or probability.
    #[test]
    fn an_edge_takes_12_bytes_and_an_entry_24() {
        assert!(std::mem::size_of::<Edge>() <= 12);
        assert!(std::mem::size_of::<Entry>() <= 24);
    }

    /// The edges kept in pages read as the list of them: edge `i` is the `i`-th pushed,
    /// across pages' ends, and they take at most one page more than their bytes (a list
    /// that doubles holds up to twice them, three times while it copies).
    #[test]
    fn edges_in_pages_read_as_one_list() {
        let page = 1usize << PAGE_SHIFT;
        let count = 2 * page + 5;
        let made = |i: usize| {
            let choice = Choice {
                pick: (i % 3) as u16,
                ..Choice::default()
            };
            Edge::new(i as u32, (i % 7) as u32, &choice)
        };
        let mut edges = Edges::default();
        let plain: Vec<Edge> = (0..count).map(made).collect();
        for &edge in &plain {
            edges.push(edge, Drawn::NONE);
        }
        let view = edges.view();
        assert_eq!(view.len(), count);
        assert!((0..count).all(|i| view.get(i) == plain[i] && edges.get(i) == plain[i]));
        assert!(view.iter().eq(plain.iter().copied()));
        assert!(
            view.prefix(page + 1)
                .iter()
                .eq(plain[..=page].iter().copied())
        );
        assert!(edges.drawn.is_empty());
        let bytes = std::mem::size_of::<Edge>() as u64 * (count + page) as u64 + 24 * 4;
        assert!(edges.bytes() <= bytes, "{} > {bytes}", edges.bytes());
    }

    /// Executions past a word are counted exactly: a chain of `k` diamonds (each state to
    /// two, both to the next) has 2^k executions, which passes `u64::MAX` at k = 64 and
    /// saturates at `u128::MAX` past k = 127; with no draw kept apart, the probability
    /// read is the executions' number (2^70 is exact in a float).
    #[test]
    fn executions_past_a_word_are_counted_exactly() {
        let mut deltas = CountTable::default();
        deltas.intern(&[0]);
        for (diamonds, executions) in [
            (63, 1u128 << 63),
            (64, 1 << 64),
            (70, 1 << 70),
            (130, u128::MAX),
        ] {
            // Diamond d: state 2d to 2d + 1 and to 2d + 2 (the next's start), 2d + 1 to it.
            let mut edges = Vec::new();
            for d in 0..diamonds {
                edges.push(edge(2 * d, 2 * d + 1, 0));
                edges.push(edge(2 * d, 2 * d + 2, 0));
                edges.push(edge(2 * d + 1, 2 * d + 2, 0));
            }
            let states = 2 * diamonds as usize + 1;
            let counted = counted_within(states, &edges, &deltas, &[0], 10_000);
            let end = ends_of(&counted, 2 * diamonds);
            assert_eq!(end.len(), 1);
            assert_eq!(end[0].1, executions, "{diamonds} diamonds");
        }
        let mut edges = Vec::new();
        for d in 0..70 {
            for (from, to) in [
                (2 * d, 2 * d + 1),
                (2 * d, 2 * d + 2),
                (2 * d + 1, 2 * d + 2),
            ] {
                let (from, edge, _) = edge(from, to, 0);
                edges.push((from, edge, Drawn::NONE));
            }
        }
        let starts = starts_of(141, &edges);
        let (plain, _) = split(&edges);
        let graph = Graph {
            states: 141,
            edges: EdgeView::of(&plain),
            drawn: &[],
            starts: &starts,
            deltas: &deltas,
            max_entries: 10_000,
        };
        let counted = Walk::new(&[0], false).finish(&graph, false);
        let end = ends_of(&counted, 140);
        assert_eq!((end[0].1, end[0].2), (1 << 70, 2f64.powi(70)));
    }

    /// Two executions that meet with the same counts are one entry with both.
    #[test]
    fn executions_meeting_with_the_same_counts_add_up() {
        let mut deltas = CountTable::default();
        deltas.intern(&[0]);
        let edges = [edge(0, 1, 0), edge(0, 2, 0), edge(1, 3, 0), edge(2, 3, 0)];
        let counted = counted(4, &edges, &deltas, &[0]);
        let ends = ends_of(&counted, 3);
        assert_eq!(ends.len(), 1);
        // Two executions of probability 1/2 · 1/2 each.
        assert_eq!((ends[0].1, ends[0].2), (2, 0.5));
    }

    /// A state reached again from itself: said, not counted as if it were a tree.
    #[test]
    fn a_cycle_is_said() {
        let mut deltas = CountTable::default();
        deltas.intern(&[0]);
        let edges = [edge(0, 1, 0), edge(1, 0, 0)];
        let counted = counted(2, &edges, &deltas, &[0]);
        assert!(counted.cycle);
    }

    /// An entry's state, counts (by their values), depth, predecessor, executions and
    /// probability (by its bits).
    type Seen = (u32, Vec<u64>, u32, u32, u128, u64);

    /// Each entry as the counting found it, its counts by their values (their indices
    /// depend on the order they were first met in).
    fn entries_of(counted: &Counted) -> Vec<Seen> {
        let entries = &counted.entries;
        (0..entries.len() as u32)
            .map(|at| {
                let e = entries.get(at);
                let counts = counted.counts.all[e.counts as usize].to_vec();
                (
                    e.node,
                    counts,
                    entries.depth(at),
                    e.pred,
                    entries.paths(at),
                    entries.chance(at).to_bits(),
                )
            })
            .collect()
    }

    /// A folder for the tests' spill files (each unlinked once open: nothing stays in it).
    fn spill_folder() -> std::path::PathBuf {
        let folder = std::env::temp_dir().join(format!("coordsim-walk-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("a temporary folder");
        folder
    }

    /// A chain of 20 diamonds, each state's first edge adding a lost update (so entries
    /// multiply with the counts): counted with its cold pages spilled (pages of 4 entries,
    /// from the first), every entry is the one counted in memory, and pages were spilled;
    /// into a folder that is gone, or past a disk limit of one page, the walk stops there,
    /// cut, saying why (no panic), its entries a prefix of the whole's.
    #[test]
    fn a_spilled_walk_counts_as_one_in_memory_or_says_why_it_stopped() {
        let mut deltas = CountTable::default();
        deltas.intern(&[0]);
        deltas.intern(&[1]);
        let mut edges = Vec::new();
        for d in 0..20 {
            edges.push(edge(2 * d, 2 * d + 1, 1));
            edges.push(edge(2 * d, 2 * d + 2, 0));
            edges.push(edge(2 * d + 1, 2 * d + 2, 0));
        }
        let starts = starts_of(41, &edges);
        let (plain, _) = split(&edges);
        let graph = Graph {
            states: 41,
            edges: EdgeView::of(&plain),
            drawn: &[],
            starts: &starts,
            deltas: &deltas,
            max_entries: 100_000,
        };
        let whole = Walk::new(&[0], false).finish(&graph, false);
        let mut walk = Walk::new(&[0], false);
        walk.spill_to(&spill_folder(), u64::MAX, 0, 2);
        let spilled = walk.finish(&graph, false);
        assert!(spilled.entries.spilled().0 > 0, "nothing spilled");
        assert!(
            !spilled.entries.spilled().1,
            "an entry could not be read back"
        );
        assert_eq!(entries_of(&spilled), entries_of(&whole));
        assert!(spilled.spill_failed.is_none() && !spilled.cut);
        let gone = spill_folder().join("gone");
        for (folder, max_bytes, why) in [(gone, u64::MAX, "io"), (spill_folder(), 96, "full")] {
            let mut walk = Walk::new(&[0], false);
            walk.spill_to(&folder, max_bytes, 0, 2);
            let stopped = walk.finish(&graph, false);
            match (why, &stopped.spill_failed) {
                ("io", Some(SpillError::Io(message))) => assert!(message.contains("gone")),
                ("full", Some(SpillError::Full)) => {}
                (_, failed) => panic!("{why}: {failed:?}"),
            }
            assert!(stopped.cut);
            let (some, all) = (entries_of(&stopped), entries_of(&whole));
            assert!(some.len() < all.len());
            // The entries made before it stopped are the whole's (their executions summed
            // so far aside).
            let key = |e: &Seen| (e.0, e.1.clone(), e.2, e.3);
            assert!(some.iter().map(key).eq(all[..some.len()].iter().map(key)));
        }
    }

    /// The same chain's edges spilled as they are made (pages of 4 edges, from the first):
    /// every edge reads back as made, the counting over them (which is not leveled here:
    /// an edge skips a depth, so it reads them in another order) is the one over the
    /// edges in memory, and so once they are read back into memory; into a folder that
    /// is gone nothing spills and the edges stay in memory, the counting the same.
    #[test]
    fn spilled_edges_count_as_edges_in_memory() {
        let mut deltas = CountTable::default();
        deltas.intern(&[0]);
        deltas.intern(&[1]);
        let mut made = Vec::new();
        for d in 0..20 {
            made.push(edge(2 * d, 2 * d + 1, 1));
            made.push(edge(2 * d, 2 * d + 2, 0));
            made.push(edge(2 * d + 1, 2 * d + 2, 0));
        }
        let starts = starts_of(41, &made);
        let (plain, _) = split(&made);
        let graph = |edges: EdgeView<'_>| {
            let graph = Graph {
                states: 41,
                edges,
                drawn: &[],
                starts: &starts,
                deltas: &deltas,
                max_entries: 100_000,
            };
            entries_of(&Walk::new(&[0], false).finish(&graph, false))
        };
        let whole = graph(EdgeView::of(&plain));
        let gone = spill_folder().join("gone-edges");
        for (folder, spills) in [(spill_folder(), true), (gone, false)] {
            let mut edges = Edges::default();
            edges.spill_to(&folder, u64::MAX, 0, 2);
            for &edge in &plain {
                edges.push(edge, Drawn::NONE);
            }
            // 60 edges: 15 whole pages of 48 bytes, all spilled (or none).
            let expected = if spills { 15 * 4 * 12 } else { 0 };
            assert_eq!(edges.spilled(), (expected, false));
            assert!((0..plain.len()).all(|at| edges.get(at) == plain[at]));
            assert_eq!(graph(edges.view()), whole);
            edges.load_all();
            assert!((0..plain.len()).all(|at| edges.get(at) == plain[at]));
            assert_eq!(graph(edges.view()), whole);
            assert!(!edges.spilled().1);
        }
    }

    /// A loop that adds a lost update each time round (0 → 1 adding one, 1 → 0): its
    /// entries would go on without end, so with the cycle found they stop at 4 per state
    /// and one (2 states: 9 entries), cut. A walk taken on beside the search with the
    /// higher bound (no cycle known yet: 100 entries) is cut back to the same 9, with the
    /// same edges cut.
    #[test]
    fn a_walk_past_a_cycles_bound_is_cut_back_to_it() {
        let mut deltas = CountTable::default();
        deltas.intern(&[0]);
        deltas.intern(&[1]);
        let edges = [edge(0, 1, 1), edge(1, 0, 0)];
        let whole = counted_within(2, &edges, &deltas, &[0], 100);
        assert!(whole.cycle && whole.cut);
        assert_eq!(whole.entries.len(), 4 * 2 + 1);
        let starts = starts_of(2, &edges);
        let (plain, drawn) = split(&edges);
        let graph = Graph {
            states: 2,
            edges: EdgeView::of(&plain),
            drawn: &drawn,
            starts: &starts,
            deltas: &deltas,
            max_entries: 100,
        };
        let mut walk = Walk::new(&[0], false);
        walk.advance(&graph, (2, usize::MAX), 100, true);
        assert_eq!(walk.entries.len(), 100);
        let walked = walk.finish(&graph, false);
        assert_eq!(entries_of(&walked), entries_of(&whole));
        assert_eq!((walked.cut, walked.cycle), (true, true));
    }

    proptest! {
        /// Where every transition goes one depth on with probability 1, the walk sums the
        /// executions as it goes; it must count what the topological counting does, entry
        /// for entry (their chance's bits too): random graphs of layers of up to 4 states,
        /// each state's edges to states of the next layer (or, with `skip`, also two layers
        /// on, and with `draw` a transition of probability 1/2: no longer leveled), taken
        /// on in steps as beside a search; with `spill`, its cold pages spilled to disk.
        #[test]
        fn a_leveled_walk_counts_as_the_topological_counting(
            layers in proptest::collection::vec(1u32..5, 1..7),
            raw in proptest::collection::vec((0u32..40, 0u32..4, 0u32..3), 0..40),
            skip in any::<bool>(),
            draw in any::<bool>(),
            step in 1usize..5,
            chances in any::<bool>(),
            spill in any::<bool>(),
        ) {
            let mut deltas = CountTable::default();
            deltas.intern(&[0, 0]);
            deltas.intern(&[1, 0]);
            deltas.intern(&[0, 1]);
            // The start alone first, then the layers; state ids in layer order.
            let mut first = vec![0u32];
            let mut sizes = vec![1u32];
            for &size in &layers {
                first.push(first.last().unwrap() + sizes.last().unwrap());
                sizes.push(size);
            }
            let states = (first.last().unwrap() + sizes.last().unwrap()) as usize;
            let layer_of = |state: u32| first.iter().rposition(|&f| f <= state).unwrap();
            let mut edges: Vec<(u32, Edge, Drawn)> = Vec::new();
            for (k, &(from, to, delta)) in raw.iter().enumerate() {
                let from = from % states as u32;
                let layer = layer_of(from);
                let on = if skip && k % 5 == 0 { 2 } else { 1 };
                let Some(&target_first) = first.get(layer + on) else { continue };
                let to = target_first + to % sizes[layer + on];
                let mut e = edge(from, to, delta);
                e.2.probability = if draw && k % 7 == 0 { 0.5 } else { 1.0 };
                edges.push(e);
            }
            // Every state reached: the first state of each layer from the last of the one before.
            for layer in 1..first.len() {
                let last = first[layer - 1] + sizes[layer - 1] - 1;
                for s in 0..sizes[layer] {
                    let mut e = edge(last, first[layer] + s, 0);
                    e.2.probability = 1.0;
                    edges.push(e);
                }
            }
            edges.sort_by_key(|(from, ..)| *from);
            let starts = starts_of(states, &edges);
            let (plain, mut drawn) = split(&edges);
            // A graph that draws nothing keeps no draws (each entry's probability is then
            // its executions' number, unless the walk keeps them apart).
            if !draw {
                drawn.clear();
            }
            let graph = Graph { states, edges: EdgeView::of(&plain), drawn: &drawn, starts: &starts, deltas: &deltas, max_entries: 10_000 };
            let mut leveled = Walk::new(&[0, 0], chances);
            if spill {
                // Pages of 4 entries, spilled from the first: read back by the comparison.
                leveled.spill_to(&spill_folder(), u64::MAX, 0, 2);
            }
            let mut known = 0;
            while known < states {
                known = (known + step).min(states);
                let partial = Graph { starts: &starts[..=known.min(states - 1)], edges: EdgeView::of(&plain).prefix(starts[known] as usize), ..graph };
                while leveled.advance(&partial, (known, 3), 10_000, true) > 0 {}
            }
            let mut topological = Walk::new(&[0, 0], chances);
            topological.leveled = false;
            let (a, b) = (leveled.finish(&graph, false), topological.finish(&graph, false));
            prop_assert_eq!(entries_of(&a), entries_of(&b));
            prop_assert_eq!((a.cut, a.cycle, a.longest), (b.cut, b.cycle, b.longest));
        }

        /// A walk taken on as the states' edges become known (a few states at a time, as
        /// the search merges them; waiting at a lower bound while a cycle may close) counts
        /// what one walk over the whole graph counts, entry for entry: random graphs of up
        /// to 12 states, their edges to any state (cycles too), some adding to the counts.
        #[test]
        fn a_walk_taken_in_steps_counts_as_one_over_the_whole(
            states in 1usize..12,
            raw in proptest::collection::vec((0u32..12, 0u32..12, 0u32..3), 0..30),
            steps in proptest::collection::vec(1usize..4, 1..12),
            max_entries in 1u64..60,
            back in any::<bool>(),
            most in 1usize..5,
        ) {
            let mut deltas = CountTable::default();
            deltas.intern(&[0, 0]);
            deltas.intern(&[1, 0]);
            deltas.intern(&[0, 1]);
            let mut edges: Vec<(u32, Edge, Drawn)> = raw
                .iter()
                .map(|&(from, to, delta)| edge(from % states as u32, to % states as u32, delta))
                .collect();
            edges.sort_by_key(|(from, ..)| *from);
            let whole = counted_within(states, &edges, &deltas, &[0, 0], max_entries);
            let starts = starts_of(states, &edges);
            let (plain, drawn) = split(&edges);
            let graph = Graph {
                states,
                edges: EdgeView::of(&plain),
                drawn: &drawn,
                starts: &starts,
                deltas: &deltas,
                max_entries,
            };
            let mut walk = Walk::new(&[0, 0], false);
            let mut known = 0;
            for step in steps {
                known = (known + step).min(states);
                // The edges known so far: those of the first `known` states.
                let partial = Graph { starts: &starts[..=known.min(states - 1)], ..graph };
                let partial = Graph {
                    edges: EdgeView::of(&plain).prefix(starts[known] as usize),
                    ..partial
                };
                // A few entries at a time, as a thread walks between chunks.
                while if back {
                    walk.advance(&partial, (known, most), max_entries.min(4 * known as u64 + 1), false)
                } else {
                    walk.advance(&partial, (known, most), max_entries, true)
                } > 0 {}
            }
            let walked = walk.finish(&graph, false);
            prop_assert_eq!(entries_of(&walked), entries_of(&whole));
            prop_assert_eq!((walked.cut, walked.cycle, walked.longest), (whole.cut, whole.cycle, whole.longest));
        }
    }
}
