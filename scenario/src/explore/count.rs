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

use crate::explore::step::Choice;
use crate::run::steer::Counts;

/// No entry, or no edge (the start's).
pub(super) const NONE: u32 = u32::MAX;

/// A transition.
#[derive(Debug, Clone, Copy)]
pub(super) struct Edge {
    pub from: u32,
    pub to: u32,
    /// Its probability given its start (the product of its draws').
    pub probability: f64,
    /// The counts it adds: an index into the search's table of them (0: none).
    pub delta: u32,
    /// Which of its start's transitions it is (from 0, in merge order).
    pub rank: u32,
    pub choice: Choice,
}

/// A state with the counts an execution reaches it with.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub node: u32,
    /// Its counts: an index into [`Counted::counts`].
    pub counts: u32,
    /// The fewest events that reach it: along `pred` (an entry) and `edge`.
    pub depth: u32,
    pub pred: u32,
    pub edge: u32,
    /// The next entry of the same state (`NONE`: the last).
    next: u32,
    /// The executions that reach it, and their probability.
    pub paths: u128,
    pub chance: f64,
}

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

/// An explored graph, as [`count`] reads it.
pub(super) struct Graph<'g> {
    pub states: usize,
    pub edges: &'g [Edge],
    /// What the edges add (`Edge::delta` indexes it; 0: nothing).
    pub deltas: &'g CountTable,
    /// The start's counts.
    pub start: &'g [u64],
    /// Most entries (`max_states`).
    pub max_entries: u64,
}

/// What [`count`] found.
pub(super) struct Counted {
    /// Breadth first from the start's (index 0).
    pub entries: Vec<Entry>,
    pub counts: CountTable,
    /// Entries past `max_entries` were left out.
    pub cut: bool,
    /// A state can be reached again from itself: the executions are not all counted.
    pub cycle: bool,
    /// The most events along one execution (of those the topological order reached).
    pub longest: u64,
    /// The entries in a topological order (every transition to a later one), the start
    /// first; without a cycle, every entry.
    pub topological: Vec<u32>,
    /// Each entry's transitions' ends (`NONE`: cut), in its state's edge order from
    /// `reached[entry]`.
    pub targets: Vec<u32>,
    pub reached: Vec<usize>,
}

/// Each state's edges (their indices, in order) and where each state's begin.
struct Adjacency {
    out: Vec<u32>,
    starts: Vec<u32>,
}

impl Adjacency {
    fn of(graph: &Graph<'_>) -> Adjacency {
        let mut starts = vec![0u32; graph.states + 1];
        for edge in graph.edges {
            starts[edge.from as usize + 1] += 1;
        }
        for index in 0..graph.states {
            starts[index + 1] += starts[index];
        }
        let mut out = vec![0u32; graph.edges.len()];
        let mut filled = starts.clone();
        for (index, edge) in graph.edges.iter().enumerate() {
            out[filled[edge.from as usize] as usize] = index as u32;
            filled[edge.from as usize] += 1;
        }
        Adjacency { out, starts }
    }

    fn of_state(&self, node: u32) -> &[u32] {
        &self.out[self.starts[node as usize] as usize..self.starts[node as usize + 1] as usize]
    }
}

/// Every entry of `graph`, and its executions and their probability: the entries breadth
/// first from the start, then the counting state by state in topological order (every
/// entry of a state has all its executions once every edge into the state was taken).
pub(super) fn count(graph: &Graph<'_>) -> Counted {
    let adjacency = Adjacency::of(graph);
    let (order, longest) = topological(graph, &adjacency);
    let cycle = order.len() < graph.states;
    // A cycle that adds to the counts would make entries without end: with one, they are
    // walked only so far (the verdict is bounded already).
    let max_entries = if cycle {
        graph.max_entries.min(4 * graph.states as u64 + 1)
    } else {
        graph.max_entries
    };
    let mut sums = Sums {
        counts: CountTable::default(),
        memo: FxHashMap::default(),
        deltas: graph.deltas,
    };
    let mut first = vec![NONE; graph.states];
    let mut entries = vec![Entry {
        node: 0,
        counts: sums.counts.intern(graph.start),
        depth: 0,
        pred: NONE,
        edge: NONE,
        next: NONE,
        paths: 1,
        chance: 1.0,
    }];
    first[0] = 0;
    // Each entry's transitions' ends, in its state's edge order from `reached[entry]`: found
    // once here, read again by the counting (4 bytes a transition of an entry).
    let mut targets: Vec<u32> = Vec::new();
    let mut reached: Vec<usize> = Vec::with_capacity(graph.states);
    let mut cut = false;
    let mut at = 0;
    while at < entries.len() {
        let entry = entries[at];
        reached.push(targets.len());
        for &edge_index in adjacency.of_state(entry.node) {
            let edge = graph.edges[edge_index as usize];
            let (to_counts, target) = across(&mut sums, &entries, &first, entry.counts, &edge);
            if target != NONE {
                targets.push(target);
                continue;
            }
            if entries.len() as u64 >= max_entries {
                cut = true;
                targets.push(NONE);
                continue;
            }
            let new_entry = entries.len() as u32;
            targets.push(new_entry);
            entries.push(Entry {
                node: edge.to,
                counts: to_counts,
                depth: entry.depth + 1,
                pred: at as u32,
                edge: edge_index,
                next: first[edge.to as usize],
                paths: 0,
                chance: 0.0,
            });
            first[edge.to as usize] = new_entry;
        }
        at += 1;
    }
    let mut topological = Vec::with_capacity(entries.len());
    for &node in &order {
        let mut at = first[node as usize];
        while at != NONE {
            topological.push(at);
            let entry = entries[at as usize];
            let from = reached[at as usize];
            for (&edge_index, &target) in adjacency.of_state(node).iter().zip(&targets[from..]) {
                let edge = graph.edges[edge_index as usize];
                if target != NONE {
                    let target = &mut entries[target as usize];
                    target.paths = target.paths.saturating_add(entry.paths);
                    target.chance += entry.chance * edge.probability;
                }
            }
            at = entry.next;
        }
    }
    Counted {
        entries,
        counts: sums.counts,
        cut,
        cycle,
        longest,
        topological,
        targets,
        reached,
    }
}

/// The entries of `counted` (of `graph`, with no cycle and nothing cut) as a scheduler
/// chooses among their transitions: one action per event taken (its `pick`) or its actor's
/// crash there, each action's branches its draws' decisions; an end entry's outcome is
/// `outcome[entry]`. `Err`: the graph is not whole (an internal error: it is asked for only
/// when nothing was cut).
pub(super) fn schedulers(
    graph: &Graph<'_>,
    counted: &Counted,
    outcome: &[u32],
) -> Result<Schedulers, String> {
    let adjacency = Adjacency::of(graph);
    let mut place = vec![NONE; counted.entries.len()];
    for (at, &entry) in counted.topological.iter().enumerate() {
        place[entry as usize] = at as u32;
    }
    let mut schedulers = Schedulers::new();
    // One entry's transitions, by action: (pick, crash), target, probability.
    let mut ways: Vec<((u16, bool), u32, f64)> = Vec::new();
    for &entry in &counted.topological {
        let Entry { node, .. } = counted.entries[entry as usize];
        let edges = adjacency.of_state(node);
        if edges.is_empty() {
            match outcome[entry as usize] {
                NONE => return Err(format!("entry {entry} ends with no outcome")),
                outcome => schedulers.push_end(outcome),
            }
            continue;
        }
        schedulers.push_entry();
        ways.clear();
        let from = counted.reached[entry as usize];
        for (&edge_index, &target) in edges.iter().zip(&counted.targets[from..]) {
            let edge = graph.edges[edge_index as usize];
            let key = (edge.choice.pick, edge.choice.crash);
            ways.push((
                key,
                place.get(target as usize).copied().unwrap_or(NONE),
                edge.probability,
            ));
        }
        // An action's branches are made one after another; sorted, stably, in case not.
        ways.sort_by_key(|way| way.0);
        let mut last = None;
        for &(key, to, probability) in &ways {
            if last != Some(key) {
                schedulers.push_action()?;
                last = Some(key);
            }
            schedulers.push_branch(to, probability)?;
        }
    }
    Ok(schedulers)
}

/// The states in topological order (Kahn's: a state once every edge into it was taken),
/// and the most edges along any path from the start. States on a cycle are left out.
fn topological(graph: &Graph<'_>, adjacency: &Adjacency) -> (Vec<u32>, u64) {
    let mut indegree = vec![0u32; graph.states];
    for edge in graph.edges {
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
        for &edge_index in adjacency.of_state(node) {
            let next = graph.edges[edge_index as usize].to as usize;
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

/// The entry of state `node` with counts `counts` (`NONE`: none yet).
fn find(entries: &[Entry], first: &[u32], node: u32, counts: u32) -> u32 {
    let mut at = first[node as usize];
    while at != NONE && entries[at as usize].counts != counts {
        at = entries[at as usize].next;
    }
    at
}

/// The counts reached so far, and each sum of counts and a transition's delta once taken.
struct Sums<'g> {
    counts: CountTable,
    memo: FxHashMap<(u32, u32), u32>,
    deltas: &'g CountTable,
}

impl Sums<'_> {
    /// Counts `counts` with `delta` added (each sum computed once).
    fn add(&mut self, counts: u32, delta: u32) -> u32 {
        if delta == 0 {
            return counts;
        }
        if let Some(&sum) = self.memo.get(&(counts, delta)) {
            return sum;
        }
        let added: Counts = self.counts.all[counts as usize]
            .iter()
            .zip(&self.deltas.all[delta as usize])
            .map(|(count, delta)| count.wrapping_add(*delta))
            .collect();
        let sum = self.counts.intern(&added);
        self.memo.insert((counts, delta), sum);
        sum
    }
}

/// Across `edge` from an entry with counts `counts`: the counts it reaches its end with, and
/// that entry of the end (`NONE`: none yet).
fn across(
    sums: &mut Sums<'_>,
    entries: &[Entry],
    first: &[u32],
    counts: u32,
    edge: &Edge,
) -> (u32, u32) {
    let to_counts = sums.add(counts, edge.delta);
    (to_counts, find(entries, first, edge.to, to_counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(from: u32, to: u32, delta: u32, rank: u32) -> Edge {
        Edge {
            from,
            to,
            probability: 0.5,
            delta,
            rank,
            choice: Choice::default(),
        }
    }

    /// `edges` over `states` states counted from a start with counts `start`.
    fn counted(states: usize, edges: &[Edge], deltas: &CountTable, start: &[u64]) -> Counted {
        count(&Graph {
            states,
            edges,
            deltas,
            start,
            max_entries: 100,
        })
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
        let edges = [
            edge(0, 1, 1, 0),
            edge(0, 2, 0, 1),
            edge(1, 3, 0, 0),
            edge(2, 3, 0, 0),
        ];
        let counted = counted(4, &edges, &deltas, &[0, 0]);
        assert!(!counted.cut && !counted.cycle);
        let ends: Vec<&Entry> = counted.entries.iter().filter(|e| e.node == 3).collect();
        assert_eq!(ends.len(), 2);
        let counts_of = |e: &Entry| counted.counts.all[e.counts as usize].to_vec();
        // Breadth first: the end through 1 (the start's first edge) is found first.
        assert_eq!(counts_of(ends[0]), vec![0, 1]);
        assert_eq!(counts_of(ends[1]), vec![0, 0]);
        for (end, through) in ends.iter().zip([1, 2]) {
            // One execution of two transitions of probability 1/2: 1/4.
            assert_eq!((end.paths, end.chance, end.depth), (1, 0.25, 2));
            assert_eq!(counted.entries[end.pred as usize].node, through);
        }
    }

    /// Two executions that meet with the same counts are one entry with both.
    #[test]
    fn executions_meeting_with_the_same_counts_add_up() {
        let mut deltas = CountTable::default();
        deltas.intern(&[0]);
        let edges = [
            edge(0, 1, 0, 0),
            edge(0, 2, 0, 1),
            edge(1, 3, 0, 0),
            edge(2, 3, 0, 0),
        ];
        let counted = counted(4, &edges, &deltas, &[0]);
        let ends: Vec<&Entry> = counted.entries.iter().filter(|e| e.node == 3).collect();
        assert_eq!(ends.len(), 1);
        // Two executions of probability 1/2 · 1/2 each.
        assert_eq!((ends[0].paths, ends[0].chance), (2, 0.5));
    }

    /// A state reached again from itself: said, not counted as if it were a tree.
    #[test]
    fn a_cycle_is_said() {
        let mut deltas = CountTable::default();
        deltas.intern(&[0]);
        let edges = [edge(0, 1, 0, 0), edge(1, 0, 0, 0)];
        let counted = counted(2, &edges, &deltas, &[0]);
        assert!(counted.cycle);
    }
}
