//! The lassos of a loop without end's graph ([`Graph`]): its strongly connected sets of
//! states, the weakly fair cycle round each (a short one: the shortest way back, then each
//! actor that would be passed over let run), and the schedules that take them.

use std::collections::VecDeque;

use coordsim_model::Schedule;
use rustc_hash::FxHashMap;

use crate::explore::step::Choice;

/// One transition: the state it reaches, the owner whose event ran, how far time moved,
/// and the choice.
#[derive(Debug, Clone, Copy)]
pub(super) struct Edge {
    pub(super) to: u32,
    pub(super) owner: u32,
    pub(super) advance: u64,
    pub(super) choice: Choice,
}

/// The graph the lassos are looked for in.
#[derive(Debug, Default)]
pub(super) struct Graph {
    /// Each state's transitions.
    pub(super) edges: Vec<Vec<Edge>>,
    /// Each state's owners with a free event (ready to run), sorted.
    pub(super) ready: Vec<Vec<u32>>,
    /// Each state's first transition into it from the state that first reached it: the
    /// shortest path from the start (breadth first).
    pub(super) parent: Vec<Option<(u32, usize)>>,
}

impl Graph {
    /// The transitions from the start to `node` along the breadth-first tree, as (state,
    /// its transition's index).
    pub(super) fn path_to(&self, node: u32) -> Vec<(u32, usize)> {
        let mut path = Vec::new();
        let mut at = node;
        while let Some((from, edge)) = self.parent[at as usize] {
            path.push((from, edge));
            at = from;
        }
        path.reverse();
        path
    }

    /// The schedule of `prefix` then `cycle` (a lasso when `cycle` is not empty).
    pub(super) fn schedule(
        &self,
        prefix: &[(u32, usize)],
        cycle: &[(u32, usize)],
        max_faults: u32,
    ) -> Schedule {
        let decision =
            |&(node, edge): &(u32, usize)| self.edges[node as usize][edge].choice.decision();
        Schedule {
            max_faults,
            events: prefix.iter().chain(cycle).map(decision).collect(),
            cycle_from: (!cycle.is_empty()).then_some(prefix.len() as u32),
        }
    }

    /// A cycle among the `bad` states reachable from the start, as its first state and its
    /// transitions round (from that state back to it), the one whose first state the
    /// search reached first. With `fair`, only a weakly fair one: every owner ready at
    /// every state of the cycle runs an event in it. A strongly connected set of bad
    /// states has such a cycle exactly when each owner ready at all its states runs some
    /// transition inside it: the cycle through every state and those transitions is then
    /// fair, and if some owner is ready everywhere and runs nowhere in it, every cycle in
    /// it passes that owner over.
    pub(super) fn lasso(&self, bad: &[bool], fair: bool) -> Option<(u32, Vec<(u32, usize)>)> {
        self.lassos(bad, fair).into_iter().next()
    }

    /// Every strongly connected set of `bad` states with a (with `fair`, weakly fair)
    /// cycle, as [`Graph::lasso`] gives one: by its first state, in the order the search
    /// reached them.
    pub(super) fn lassos(&self, bad: &[bool], fair: bool) -> Vec<(u32, Vec<(u32, usize)>)> {
        let inside = |node: u32| -> Vec<u32> {
            if !bad[node as usize] {
                return Vec::new();
            }
            self.edges[node as usize]
                .iter()
                .filter(|e| bad[e.to as usize])
                .map(|e| e.to)
                .collect()
        };
        let mut found: Vec<(u32, Vec<(u32, usize)>)> = Vec::new();
        for component in components(self.edges.len(), &inside) {
            if !bad[component[0] as usize] {
                continue;
            }
            let member = |n: u32| component.contains(&n);
            let looped = component.len() > 1
                || self.edges[component[0] as usize]
                    .iter()
                    .any(|e| e.to == component[0]);
            if !looped {
                continue;
            }
            // The owners ready at every state of it, and for each a transition of its own
            // inside it: the cycle must take one.
            let mut always: Vec<u32> = self.ready[component[0] as usize].clone();
            for &node in &component {
                always.retain(|o| self.ready[node as usize].contains(o));
            }
            let mut musts: Vec<(u32, usize)> = Vec::new();
            let mut unfair = false;
            for owner in always {
                let taken = component.iter().find_map(|&node| {
                    let edges = &self.edges[node as usize];
                    let edge = edges
                        .iter()
                        .position(|e| e.owner == owner && member(e.to))?;
                    Some((node, edge))
                });
                match taken {
                    Some(step) => musts.push(step),
                    None => unfair = true,
                }
            }
            if unfair && fair {
                continue;
            }
            let entry = component[0];
            if let Some(cycle) = self.round(entry, &component, &musts) {
                found.push((entry, cycle));
            }
        }
        found.sort_by_key(|(entry, _)| *entry);
        found
    }

    /// A short weakly fair walk from `entry` back to it inside `component`: the shortest
    /// way round first, then, while some owner is ready at every state the walk goes
    /// through and runs in none of its transitions, a detour from `entry` that lets it run
    /// (its own transition inside the component) or, when it has none, one through a state
    /// where it is not ready; each detour settles its owner for good (the walk only grows),
    /// so at most one a owner. `musts` (a transition of each owner ready at every state of
    /// the component) guarantees a detour exists for every such owner of a fair component;
    /// an owner with none (an unfair one, looked for without fairness) is left passed over.
    fn round(
        &self,
        entry: u32,
        component: &[u32],
        musts: &[(u32, usize)],
    ) -> Option<Vec<(u32, usize)>> {
        let edge_of = |(node, edge): (u32, usize)| &self.edges[node as usize][edge];
        // The shortest way round: a first transition inside, then back.
        let first = (self.edges[entry as usize].iter())
            .enumerate()
            .filter(|(_, e)| component.contains(&e.to))
            .filter_map(|(index, e)| {
                let back = self.within(e.to, entry, component)?;
                Some((back.len(), index, back))
            })
            .min_by_key(|(length, index, _)| (*length, *index))?;
        let mut walk = vec![(entry, first.1)];
        walk.extend(first.2);
        let mut passed_over: Vec<u32> = Vec::new();
        loop {
            let offender = self.ready[entry as usize].iter().copied().find(|&owner| {
                !passed_over.contains(&owner)
                    && walk
                        .iter()
                        .all(|&(node, _)| self.ready[node as usize].contains(&owner))
                    && walk.iter().all(|&step| edge_of(step).owner != owner)
            });
            let Some(owner) = offender else {
                return Some(walk);
            };
            let own = musts
                .iter()
                .copied()
                .find(|&step| edge_of(step).owner == owner);
            let elsewhere =
                || (component.iter().copied()).find(|&n| !self.ready[n as usize].contains(&owner));
            match (own, elsewhere()) {
                (Some((node, edge)), _) => {
                    walk.extend(self.within(entry, node, component)?);
                    walk.push((node, edge));
                    walk.extend(self.within(edge_of((node, edge)).to, entry, component)?);
                }
                (None, Some(node)) => {
                    walk.extend(self.within(entry, node, component)?);
                    walk.extend(self.within(node, entry, component)?);
                }
                (None, None) => passed_over.push(owner),
            }
        }
    }

    /// The shortest path from `from` to `to` inside `component` (empty when they are one).
    fn within(&self, from: u32, to: u32, component: &[u32]) -> Option<Vec<(u32, usize)>> {
        if from == to {
            return Some(Vec::new());
        }
        let mut came: FxHashMap<u32, (u32, usize)> = FxHashMap::default();
        let mut queue = VecDeque::from([from]);
        while let Some(node) = queue.pop_front() {
            for (index, edge) in self.edges[node as usize].iter().enumerate() {
                if !component.contains(&edge.to) || edge.to == from || came.contains_key(&edge.to) {
                    continue;
                }
                came.insert(edge.to, (node, index));
                if edge.to == to {
                    let mut path = vec![(node, index)];
                    let mut at = node;
                    while at != from {
                        let step = came[&at];
                        path.push(step);
                        at = step.0;
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(edge.to);
            }
        }
        None
    }
}

/// The strongly connected components of the graph of `nodes` states whose successors
/// `next` gives (Tarjan's, without recursion), each sorted.
pub(super) fn components(nodes: usize, next: &dyn Fn(u32) -> Vec<u32>) -> Vec<Vec<u32>> {
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; nodes];
    let mut low = vec![0u32; nodes];
    let mut on_stack = vec![false; nodes];
    let mut stack: Vec<u32> = Vec::new();
    let mut found = Vec::new();
    let mut counter = 0u32;
    for root in 0..nodes as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        let mut calls: Vec<(u32, Vec<u32>, usize)> = vec![(root, next(root), 0)];
        index[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some((node, succ, at)) = calls.last_mut() {
            let node = *node;
            if let Some(&child) = succ.get(*at) {
                *at += 1;
                if index[child as usize] == UNSEEN {
                    index[child as usize] = counter;
                    low[child as usize] = counter;
                    counter += 1;
                    stack.push(child);
                    on_stack[child as usize] = true;
                    calls.push((child, next(child), 0));
                } else if on_stack[child as usize] {
                    low[node as usize] = low[node as usize].min(index[child as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some((parent, _, _)) = calls.last() {
                low[*parent as usize] = low[*parent as usize].min(low[node as usize]);
            }
            if low[node as usize] == index[node as usize] {
                let mut component = Vec::new();
                while let Some(top) = stack.pop() {
                    on_stack[top as usize] = false;
                    component.push(top);
                    if top == node {
                        break;
                    }
                }
                component.sort_unstable();
                found.push(component);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-built graph: the start 0 goes to 1; 1 and 2 alternate (owner 0 runs 1 → 2,
    /// owner 0 runs 2 → 1), while owner 1 is ready at both and never runs inside them (its
    /// event leads to 3, the good state). The cycle 1 → 2 → 1 passes owner 1 over for
    /// ever: a planted unfair scheduler's lasso, which the fairness check rejects.
    fn unfair_graph() -> (Graph, Vec<bool>) {
        let edge = |to, owner| Edge {
            to,
            owner,
            advance: 1,
            choice: Choice::default(),
        };
        let graph = Graph {
            edges: vec![
                vec![edge(1, 0)],
                vec![edge(2, 0), edge(3, 1)],
                vec![edge(1, 0), edge(3, 1)],
                vec![],
            ],
            ready: vec![vec![0], vec![0, 1], vec![0, 1], vec![]],
            parent: vec![None, Some((0, 0)), Some((1, 0)), Some((1, 1))],
        };
        (graph, vec![true, true, true, false])
    }

    #[test]
    fn an_unfair_cycle_is_a_lasso_only_without_the_fairness_check() {
        let (graph, bad) = unfair_graph();
        // Without fairness: the cycle 1 → 2 → 1 (entry 1, two transitions).
        let (entry, cycle) = graph.lasso(&bad, false).expect("the planted unfair lasso");
        assert_eq!(entry, 1);
        assert_eq!(cycle, vec![(1, 0), (2, 0)]);
        // Owner 1 is ready at 1 and at 2 and never runs between them: rejected.
        assert!(graph.lasso(&bad, true).is_none());
    }

    #[test]
    fn a_cycle_that_lets_each_ready_owner_run_is_fair() {
        let (mut graph, bad) = unfair_graph();
        // Owner 1's event at 2 now leads back to 1: the cycle 1 → 2 → 1 by owner 1's
        // transition runs it, so the lasso must take that transition.
        graph.edges[2][1].to = 1;
        let (entry, cycle) = graph.lasso(&bad, true).expect("a fair lasso");
        assert_eq!(entry, 1);
        assert!(cycle.contains(&(2, 1)), "{cycle:?}");
        // It is a closed walk from 1 back to 1.
        assert_eq!(cycle[0].0, 1);
        let last = cycle[cycle.len() - 1];
        assert_eq!(graph.edges[last.0 as usize][last.1].to, 1);
    }

    #[test]
    fn components_of_a_small_graph() {
        // 0 → 1 → 2 → 1, 2 → 3: components {0}, {1, 2}, {3}.
        let next = |n: u32| match n {
            0 => vec![1],
            1 => vec![2],
            2 => vec![1, 3],
            _ => vec![],
        };
        let mut found = components(4, &next);
        found.sort();
        assert_eq!(found, vec![vec![0], vec![1, 2], vec![3]]);
    }
}
