//! The counting's walk beside the search on several threads ([`Walk`]): a thread that has
//! expanded its pieces of a chunk walks the entries on while this thread merges, over a
//! copy of the graph this thread feeds it after each merge (the graph it merges into
//! grows meanwhile, so it is not read).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use coordsim_model::ExploreLimits;

use super::Search;
use crate::explore::count::{CountTable, Drawn, Edge, Edges, Graph, Walk};
use crate::run::steer::Counts;

/// Entries a thread walks at a time before it looks again whether it should stop.
const STEP: usize = 2048;

/// The walk and its copy of the graph, and what was merged since, waiting to be taken in.
pub(super) struct Side {
    walking: Mutex<Walking>,
    fed: Mutex<Vec<Feed>>,
    /// The bytes the walk and its copy of the graph held after its last step.
    bytes: AtomicU64,
    /// The walk was taken back before the search's end ([`Side::abandon`]).
    abandoned: AtomicBool,
}

/// The walk and the graph it walks.
struct Walking {
    walk: Walk,
    edges: Edges,
    starts: Vec<u32>,
    deltas: CountTable,
    /// The states merged or met so far.
    states: usize,
    /// Whether an edge leads back to a state merged before its own (a cycle may close).
    back: bool,
    max_states: u64,
    /// A quarter of the memory bound: past it the walk waits for the search's end.
    max_bytes: Option<u64>,
}

/// What the merge added to the graph since the last feed.
pub(super) struct Feed {
    edges: Vec<Edge>,
    /// The new edges' draws (none: no edge drew so far).
    drawn: Vec<Drawn>,
    starts: Vec<u32>,
    deltas: Vec<Counts>,
    states: usize,
    back: bool,
}

impl Side {
    /// `walk` taken on beside a search under `limits`, over nothing yet.
    pub(super) fn new(walk: Walk, limits: &ExploreLimits) -> Side {
        Side {
            walking: Mutex::new(Walking {
                walk,
                edges: Edges::default(),
                starts: Vec::new(),
                deltas: CountTable::default(),
                states: 0,
                back: false,
                max_states: limits.max_states,
                max_bytes: limits.max_memory_bytes.map(|bytes| bytes / 4),
            }),
            fed: Mutex::new(Vec::new()),
            bytes: AtomicU64::new(0),
            abandoned: AtomicBool::new(false),
        }
    }

    /// Whether the walk was taken back before the search's end: a thread that walks it
    /// beside the search should end (its allocator's pages go back to the others then).
    pub(super) fn abandoned(&self) -> bool {
        self.abandoned.load(Ordering::Acquire)
    }

    /// The bytes the walk and its copy of the graph held after its last step.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// What the merge added, to be taken in by the next thread that walks.
    pub(super) fn feed(&self, feed: Feed) {
        self.fed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(feed);
    }

    /// The walk taken on a step at a time while `go_on` says so and it finds entries to
    /// take; nothing when another thread walks.
    pub(super) fn walk_while(&self, go_on: impl Fn() -> bool) {
        let Ok(mut walking) = self.walking.try_lock() else {
            return;
        };
        let fed = std::mem::take(&mut *self.fed.lock().unwrap_or_else(|e| e.into_inner()));
        for feed in fed {
            walking.take_in(feed);
        }
        while go_on() && walking.step() > 0 {}
    }

    /// One step of the walk (its feeds taken in first): whether it took an entry (not when
    /// another thread walks).
    pub(super) fn walk_step(&self) -> bool {
        let Ok(mut walking) = self.walking.try_lock() else {
            return false;
        };
        let fed = std::mem::take(&mut *self.fed.lock().unwrap_or_else(|e| e.into_inner()));
        for feed in fed {
            walking.take_in(feed);
        }
        let walked = walking.step() > 0;
        self.bytes.store(walking.bytes(), Ordering::Relaxed);
        walked
    }

    /// The walk taken back before the search ends, its copy of the graph dropped (the
    /// search's memory budget has no room for it): it walks nothing more.
    pub(super) fn abandon(&self) -> Walk {
        self.fed.lock().unwrap_or_else(|e| e.into_inner()).clear();
        let mut walking = self.walking.lock().unwrap_or_else(|e| e.into_inner());
        walking.edges = Edges::default();
        walking.starts = Vec::new();
        walking.deltas = CountTable::default();
        self.abandoned.store(true, Ordering::Release);
        std::mem::replace(&mut walking.walk, Walk::new(&[], false))
    }

    /// The walk, once no thread walks (the graph it walked is the search's own).
    pub(super) fn into_walk(self) -> Walk {
        self.walking
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .walk
    }
}

impl Walking {
    /// The bytes the walk and the graph it walks hold, by their lists' capacities.
    fn bytes(&self) -> u64 {
        let starts = std::mem::size_of::<u32>() * self.starts.capacity();
        self.walk.bytes() + self.edges.bytes() + starts as u64
    }

    fn take_in(&mut self, feed: Feed) {
        for (at, edge) in feed.edges.into_iter().enumerate() {
            // No draw kept: none drew so far.
            let drawn = feed.drawn.get(at).copied().unwrap_or(Drawn::NONE);
            self.edges.push(edge, drawn);
        }
        self.starts.extend(feed.starts);
        for counts in &feed.deltas {
            self.deltas.intern(counts);
        }
        self.states = feed.states;
        self.back = feed.back;
    }

    /// Up to [`STEP`] entries walked: how many.
    fn step(&mut self) -> usize {
        if self
            .max_bytes
            .is_some_and(|bytes| self.walk.bytes() > bytes)
        {
            return 0;
        }
        // With no edge back to a state merged before, no cycle so far: the walk makes
        // entries up to the bound, to be cut back should a cycle lower it
        // ([`Walk::finish`]). With one, it waits at the least the bound can be.
        let (limit, whole) = if self.back {
            (self.max_states.min(4 * self.states as u64 + 1), false)
        } else {
            (self.max_states, true)
        };
        let graph = Graph {
            states: self.states,
            edges: self.edges.view(),
            drawn: &self.edges.drawn,
            starts: &self.starts,
            deltas: &self.deltas,
            max_entries: self.max_states,
        };
        self.walk
            .advance(&graph, (self.starts.len(), STEP), limit, whole)
    }
}

impl Search<'_> {
    /// What was merged since the last feed (`fed`: the edges, the states' starts and the
    /// counts' deltas fed so far, moved on).
    pub(super) fn feed(&self, fed: &mut (usize, usize, usize)) -> Feed {
        let feed = Feed {
            edges: (fed.0..self.edges.len())
                .map(|at| self.edges.get(at))
                .collect(),
            drawn: (self.edges.drawn.get(fed.0..)).map_or(Vec::new(), <[Drawn]>::to_vec),
            starts: self.starts[fed.1..].to_vec(),
            deltas: self.deltas.all[fed.2..].to_vec(),
            states: self.depths.len(),
            back: self.back,
        };
        *fed = (self.edges.len(), self.starts.len(), self.deltas.all.len());
        feed
    }
}
