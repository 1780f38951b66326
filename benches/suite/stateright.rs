//! The lost update written for Stateright 0.31, the model checker the explorer is measured
//! against: k clients, each n times reading the counter (one atomic step) and writing back
//! what it read + 1 (another). A state is the counter and each client's increments left and
//! value read; nothing else (no statistics). coordsim's states come to the same number: a
//! register's counts (the lost updates so far) ride on its transitions, and its jobs are
//! numbered by actor, so what is left of a state is what Stateright's holds.

use stateright::{Checker, Model, Property, Representative};

/// k clients of n increments.
#[derive(Clone)]
pub(crate) struct LostUpdate {
    pub clients: usize,
    pub increments: u32,
}

/// One client: its increments left, and the value it read when it is between its read
/// and its write.
#[derive(Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Client {
    left: u32,
    read: Option<u32>,
}

/// The counter and every client.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub(crate) struct State {
    counter: u32,
    clients: Vec<Client>,
}

impl Model for LostUpdate {
    type State = State;
    /// The client that steps.
    type Action = usize;

    fn init_states(&self) -> Vec<State> {
        let client = Client {
            left: self.increments,
            read: None,
        };
        vec![State {
            counter: 0,
            clients: vec![client; self.clients],
        }]
    }

    fn actions(&self, s: &State, actions: &mut Vec<usize>) {
        actions.extend((0..s.clients.len()).filter(|&i| s.clients[i].left > 0));
    }

    /// One property that always holds (the counter never passes k·n): a checker stops once
    /// every property is decided, so this keeps it going over every state.
    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("at most k·n", |m: &Self, s: &State| {
            s.counter <= m.increments * m.clients as u32
        })]
    }

    fn next_state(&self, s: &State, i: usize) -> Option<State> {
        let mut next = s.clone();
        let c = &mut next.clients[i];
        match c.read {
            None => c.read = Some(s.counter),
            Some(v) => {
                next.counter = v + 1;
                c.read = None;
                c.left -= 1;
            }
        }
        Some(next)
    }
}

/// The clients are interchangeable: a state's representative lists them in order (what
/// Stateright's `RewritePlan` does to a map of processes that nothing else refers to).
impl Representative for State {
    fn representative(&self) -> Self {
        let mut clients = self.clients.clone();
        clients.sort_unstable();
        State {
            counter: self.counter,
            clients,
        }
    }
}

/// Stateright's depth-first search with its symmetry reduction (`CheckerBuilder::symmetry`,
/// which 0.31 applies in depth-first search only) on `threads` threads: the unique states
/// it visited. Any model whose state has a `Representative` (the lost update here, the work
/// queue of `work_queue.rs`).
pub(crate) fn explore_symmetric<M>(model: M, threads: usize) -> usize
where
    M: Model + Send + Sync + 'static,
    M::State: Representative + std::hash::Hash + Send + Sync + Clone + PartialEq + 'static,
    M::Action: Clone + PartialEq,
{
    model
        .checker()
        .threads(threads)
        .symmetry()
        .spawn_dfs()
        .join()
        .unique_state_count()
}

/// Stateright's breadth-first search on `threads` threads: the unique states it visited.
pub(crate) fn explore<M>(model: M, threads: usize) -> usize
where
    M: Model + Send + Sync + 'static,
    M::State: std::hash::Hash + Send + Sync + Clone + PartialEq + 'static,
    M::Action: Clone + PartialEq,
{
    model
        .checker()
        .threads(threads)
        .spawn_bfs()
        .join()
        .unique_state_count()
}
