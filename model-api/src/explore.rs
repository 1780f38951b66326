//! Exploration: every execution a run's semantics allow, instead of the one a run takes —
//! every order of the events at one instant that the semantics leave free, and both
//! outcomes of every random draw that is a choice. A model that can be explored says so
//! through [`PreparedRun::explore`](crate::PreparedRun::explore); the front end checks
//! claims over all executions with what it returns.

use crate::declare::Cell;

/// What an exploration may do: its bounds and its switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExploreLimits {
    /// Most distinct states it visits: past them, the verdict is bounded, never a proof.
    pub max_states: u64,
    /// Most faults (lost or duplicated messages, crashes by probability) along one
    /// execution; a fault past them is no choice any more.
    pub max_faults: u32,
    /// Whether two executions reaching the same state are explored on from it once
    /// (visited-state hashing). Off, every execution is enumerated as a tree: for tests.
    pub merge_states: bool,
    /// Most distinct outcomes kept: past them, the verdict is bounded.
    pub max_outcomes: usize,
    /// Whether orders of independent events are skipped (a partial-order reduction).
    pub reduce: Reduction,
}

/// The partial-order reduction: at a state where one actor's next event is independent
/// of everything every other actor and resource could do at that instant, only that
/// event is taken, not every order of it among the others. The outcomes found are the
/// same; the executions counted are then representatives, one per class of orders that
/// differ only by independent events swapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    /// Every order of every instant's free events.
    Off,
    /// Independent events taken in one order.
    On,
    /// A deliberately wrong reduction, for tests only: a register's reads and writes are
    /// taken as independent of each other, so orders that lose an update are skipped. It
    /// shows that the tests comparing a reduced exploration with a full one can fail.
    PlantedBug,
}

impl Default for ExploreLimits {
    fn default() -> Self {
        ExploreLimits {
            max_states: 2_000_000,
            max_faults: 1,
            merge_states: true,
            max_outcomes: 10_000,
            reduce: Reduction::On,
        }
    }
}

/// What an exploration found.
#[derive(Debug, Clone, PartialEq)]
pub struct Exploration {
    /// Distinct states visited (with merging off: every node of the tree).
    pub states: u64,
    /// Transitions run (an event, with its decided draws).
    pub transitions: u64,
    /// Complete executions (paths from the start to an end), saturating at `u128::MAX`.
    pub executions: u128,
    /// `None` when every execution was explored; else why not (a bound reached).
    pub bounded: Option<String>,
    /// Whether some instant left several owners' events in a free order: then executions
    /// differ by order as well as by draws, and outcomes have no probability.
    pub ordered: bool,
    /// The most events along one execution.
    pub longest: u64,
    /// States at which one event commuting with every other was taken alone (the
    /// partial-order reduction): when not 0, `executions` counts one order of the events
    /// that commute, not each of their orders.
    pub reduced: u64,
    /// Every distinct outcome, in the order the search first reached it (fewest events
    /// first).
    pub outcomes: Vec<Outcome>,
}

/// One distinct outcome: the metrics an execution ended with.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The metric cells, in the model's metric order.
    pub metrics: Vec<Cell>,
    /// The executions that end with it (saturating).
    pub executions: u128,
    /// Its exact probability, when the only choices were random draws (`ordered` false).
    pub probability: Option<f64>,
    /// Its shortest execution (fewest events), step by step.
    pub trace: Vec<TraceStep>,
}

/// One event of an execution.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStep {
    /// When it ran, in ms.
    pub time_ms: f64,
    /// Whose event: an actor's name, or a resource's.
    pub actor: String,
    /// What it did, in words (`read counter: 0`, `write counter = 1 (lost update)`).
    pub action: String,
    /// The choice taken here: which of the free events ran (`2 of 3`), and the draws
    /// decided (`lost`, `chance taken`); empty when there was none.
    pub choice: String,
}
