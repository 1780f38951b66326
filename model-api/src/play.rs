//! A point's state graph as a reader walks it: every state an execution can reach, each
//! drawn as what a student looks at (each actor's step, each resource's value, holder,
//! waiters, messages, keys), each transition with the words its trace would say, each end
//! with its outcome's cells. The front end writes it beside the outcomes and the site's
//! explorer lets a reader play executions through it.
//!
//! Unlike an exploration it keeps every state and every transition, so it is made only for
//! points small enough (a bound in states and one in bytes, [`PlayLimits`]).

use crate::declare::Cell;
use crate::explore::{Decision, TraceStep};

/// How large a graph may grow, and how far each execution may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayLimits {
    /// Most states: past them, no graph ([`PlayError::TooLarge`]).
    pub max_states: u32,
    /// Most faults along one execution, as the exploration's `max_faults`.
    pub max_faults: u32,
    /// Most bytes the walk's waiting states may hold at once (each a whole run's state):
    /// past them, no graph ([`PlayError::TooLarge`]). A point of few states can still have
    /// large ones (a store of a million keys), which a bound in states alone lets through.
    pub max_memory_bytes: u64,
    /// Most cells over every state (each state has one a piece: an actor's place, a
    /// register's value, a lock, a queue, a key store): past them, no graph
    /// ([`PlayError::TooManyCells`]). The page that draws a graph writes at least a digit
    /// and a comma a cell, so its bound in bytes bounds them: a point of many actors meets
    /// it at a few hundred states, long before the bound in states, and the walk stops
    /// there instead of building children by the million it could never draw.
    pub max_cells: u64,
}

/// The walk's memory bound by default: the `max_memory_mb` a config has by default.
pub const PLAY_MAX_MEMORY_BYTES: u64 = 4096 << 20;

/// The states a site explorer draws at most by default: a page of that many states stays
/// well under a megabyte.
pub const PLAY_MAX_STATES: u32 = 50_000;

impl Default for PlayLimits {
    fn default() -> Self {
        PlayLimits {
            max_states: PLAY_MAX_STATES,
            max_faults: 1,
            max_memory_bytes: PLAY_MAX_MEMORY_BYTES,
            max_cells: u64::MAX,
        }
    }
}

/// Why a point has no graph to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayError {
    /// More states than the bound, or waiting states past the bytes' bound.
    TooLarge {
        /// The bound in states.
        max_states: u32,
    },
    /// More cells than [`PlayLimits::max_cells`]: the graph would not fit its page.
    TooManyCells {
        /// The bound in cells.
        max_cells: u64,
    },
    /// An execution comes back to a state it was in: its end cannot be played to.
    Cycle,
    /// The model cannot be walked (a built-in model), or a run failed: said in English.
    Other(String),
}

/// Every state of a point, from its start (state 0).
#[derive(Debug, Clone, PartialEq)]
pub struct PlayGraph {
    /// Each actor, in the point's order.
    pub actors: Vec<PlayActor>,
    /// The registers', locks', queues' and key stores' names, in that order by kind.
    pub registers: Vec<String>,
    /// The locks' names.
    pub locks: Vec<String>,
    /// The queues' names.
    pub queues: Vec<String>,
    /// The key stores' names.
    pub stores: Vec<String>,
    /// The states, breadth first from the start (state 0).
    pub states: Vec<PlayState>,
}

/// An actor: its name and its program's steps in words (English, Turkish), as its
/// config writes them.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayActor {
    /// Its name (`client-0`).
    pub name: String,
    /// Its steps, in order: each in English and in Turkish.
    pub program: Vec<(String, String)>,
}

/// Where an actor stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActorAt {
    /// Its first repetition has not started.
    NotStarted,
    /// At step `.0` of its program (from 0), going on.
    At(u32),
    /// At step `.0`, waiting (for a lock, a message, a reply, time).
    Waiting(u32),
    /// Between repetitions, or finished.
    Idle,
    /// Crashed for good, or stopped.
    Crashed,
}

/// A lock's holder and the actors waiting for it (indices in [`PlayGraph::actors`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LockAt {
    /// Who holds it.
    pub holder: Option<u32>,
    /// Who waits for it or polls it, in job order.
    pub waiters: Vec<u32>,
}

/// One state as a student reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayState {
    /// Its virtual time, in ms.
    pub time_ms: f64,
    /// Each actor's place.
    pub actors: Vec<ActorAt>,
    /// Each register's value.
    pub registers: Vec<f64>,
    /// Each lock's holder and waiters.
    pub locks: Vec<LockAt>,
    /// Each queue's visible messages' values, first to be taken first.
    pub queues: Vec<Vec<f64>>,
    /// Each key store's keys and values, by key.
    pub stores: Vec<Vec<(i64, f64)>>,
    /// The transitions out of it, in the order a schedule picks them.
    pub edges: Vec<PlayEdge>,
    /// At an end (no edge): the outcome's cells, in the model's metric order.
    pub end: Option<Vec<Cell>>,
}

/// One transition: the event that ran, with its draws decided.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayEdge {
    /// The state it reaches.
    pub to: u32,
    /// The choice as a schedule writes it.
    pub decision: Decision,
    /// Its probability when its draws decided it (`None`: a free order, no probability).
    pub probability: Option<f64>,
    /// What it did, as the trace's rows say it (one event may be several rows).
    pub rows: Vec<TraceStep>,
}

impl PlayGraph {
    /// The path of states a schedule takes from the start (state 0 first), or `None` when
    /// some decision is no edge of the state it is taken at.
    pub fn path(&self, events: &[Decision]) -> Option<Vec<u32>> {
        let mut at = 0u32;
        let mut path = vec![0];
        for decision in events {
            let state = self.states.get(at as usize)?;
            at = state.edges.iter().find(|e| e.decision == *decision)?.to;
            path.push(at);
        }
        Some(path)
    }
}
