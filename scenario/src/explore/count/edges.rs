//! The search's edges: 12 bytes a transition, in pages ([`Paged`]), and what only some
//! graphs keep beside them (their draws).
//!
//! Given a spill store ([`Edges::spill_to`]), the whole pages of edges go to disk once
//! those in memory pass their share, while the search runs: the counting's walk reads
//! them back in order, a page at a time (a thread's last page read is kept), and the
//! traces by their offset. Where the counting takes them in another order (a walk not
//! depth by depth, the schedulers' graph), they are read back into memory first
//! ([`Edges::load_all`]).

use std::cell::RefCell;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::paged::Paged;
use super::spill::SpillFile;
use crate::explore::step::Choice;

/// A transition: what the counting, the schedulers and the traces read of it, in 12 bytes
/// (a graph keeps 3–4 of them a state). What only some graphs need is kept beside: its
/// draws and probability where some transition draws ([`Drawn`]), its place among its
/// start's transitions in a split's shard. The number of free events it chose among is
/// its start's, found again when its execution is replayed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Edge {
    pub to: u32,
    /// The counts it adds: an index into the search's table of them (0: none).
    pub delta: u32,
    /// Which of the free events ran (`Choice::pick`).
    pub pick: u16,
    /// [`Edge::CRASH`], [`Edge::ALONE`].
    flags: u16,
}

impl Edge {
    /// A `crash_anywhere` crash (`Choice::crash`).
    const CRASH: u16 = 1;
    /// The reduction took its event alone (`Choice::alone`).
    const ALONE: u16 = 2;

    /// The transition to `to` adding counts `delta`, taking `choice` (its draws apart).
    pub(crate) fn new(to: u32, delta: u32, choice: &Choice) -> Edge {
        let flags =
            if choice.crash { Edge::CRASH } else { 0 } | if choice.alone { Edge::ALONE } else { 0 };
        Edge {
            to,
            delta,
            pick: choice.pick,
            flags,
        }
    }

    /// Whether it is a `crash_anywhere` crash.
    pub(crate) fn crash(&self) -> bool {
        self.flags & Edge::CRASH != 0
    }

    /// Whether the reduction took its event alone.
    pub(crate) fn alone(&self) -> bool {
        self.flags & Edge::ALONE != 0
    }

    /// Its choice among `of` free events, its draws `drawn`.
    pub(crate) fn choice(&self, of: u16, drawn: Drawn) -> Choice {
        Choice {
            pick: self.pick,
            of,
            draws: drawn.draws,
            drawn: drawn.drawn,
            crash: self.crash(),
            alone: self.alone(),
        }
    }
}

/// A transition's draws and its probability, kept beside the edges only once one draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Drawn {
    /// The product of its draws' probabilities.
    pub probability: f64,
    /// Bit i: draw i was "yes" (`Choice::draws`).
    pub draws: u64,
    pub drawn: u8,
}

impl Drawn {
    /// No draw, probability 1.
    pub(crate) const NONE: Drawn = Drawn {
        probability: 1.0,
        draws: 0,
        drawn: 0,
    };

    /// `choice`'s draws, of `probability`.
    pub(crate) fn of(choice: &Choice, probability: f64) -> Drawn {
        Drawn {
            probability,
            draws: choice.draws,
            drawn: choice.drawn,
        }
    }
}

/// A graph's edges, and their draws where some edge draws. The edges grow in pages
/// ([`Paged`]): a list that doubles would copy them all, and hold both copies meanwhile.
#[derive(Debug, Default)]
pub(crate) struct Edges {
    list: Paged<Edge>,
    /// Each edge's draws (as long as `list` once an edge drew; empty till then: none drew).
    pub drawn: Vec<Drawn>,
    /// Where whole pages go once memory is short, once given.
    spill: Option<Box<EdgeSpill>>,
}

/// The edges' pages on disk.
#[derive(Debug)]
pub(crate) struct EdgeSpill {
    store: SpillFile,
    /// This store's own number (a thread's last page read is kept under it).
    id: u64,
    /// Each page's offset in the store, for the pages spilled (the first `offsets.len()`).
    offsets: Vec<u64>,
    /// The bytes of edges kept in memory past which whole pages spill.
    from_bytes: u64,
    /// A page could not be written: the edges stay in memory from then on (the memory
    /// budget bounds the search as without a spill).
    stopped: bool,
    /// A page could not be read back (an edge read as the default meanwhile): an
    /// internal error, said once the counting is done.
    unread: AtomicBool,
}

/// Spill stores of edges made by this process so far: each one's number is its own.
static STORES: AtomicU64 = AtomicU64::new(0);

/// The bytes of an edge on disk.
const EDGE_BYTES: usize = 12;

/// Edges a thread reads back at once from a spilled page (3 KiB).
const CHUNK: usize = 256;

/// Chunks a thread keeps of what it read back (3 MiB): the walk takes a depth's states
/// nearly in order, so a depth's edges are read back about once.
const SLOTS: usize = 1024;

/// Which store and chunk each slot holds (`u64::MAX`: none), and the slots' edges.
type ReadBack = (Vec<(u64, usize)>, Vec<Edge>);

thread_local! {
    /// The chunks of spilled edges this thread read back last, each in the slot of its
    /// number modulo [`SLOTS`]: which store and chunk each slot holds, and their edges.
    static READ_BACK: RefCell<ReadBack> =
        const { RefCell::new((Vec::new(), Vec::new())) };
}

impl Edge {
    /// Its bytes on disk (little-endian, in its fields' order).
    fn write(&self, into: &mut Vec<u8>) {
        into.extend_from_slice(&self.to.to_le_bytes());
        into.extend_from_slice(&self.delta.to_le_bytes());
        into.extend_from_slice(&self.pick.to_le_bytes());
        into.extend_from_slice(&self.flags.to_le_bytes());
    }

    /// The edge of bytes `bytes` ([`Edge::write`]'s).
    fn read(bytes: &[u8]) -> Edge {
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        Edge {
            to: word(0),
            delta: word(4),
            pick: u16::from_le_bytes([bytes[8], bytes[9]]),
            flags: u16::from_le_bytes([bytes[10], bytes[11]]),
        }
    }
}

impl Edges {
    /// `edge` added, with `drawn`; once a page fills, the whole pages spilled if those in
    /// memory take more than their share.
    pub(crate) fn push(&mut self, edge: Edge, drawn: Drawn) {
        if !self.drawn.is_empty() || drawn != Drawn::NONE {
            // The edges before the first that draws drew nothing.
            self.drawn.resize(self.list.len(), Drawn::NONE);
            self.drawn.push(drawn);
        }
        self.list.push(edge);
        if self.spill.is_some() && self.list.len() & self.list.mask() == 0 {
            self.spill_whole();
        }
    }

    /// Whole pages go to a store in `folder` (of at most `max_bytes`) once the edges in
    /// memory take more than `from_bytes`; the pages hold `1 << shift` edges (unless more
    /// than that many are made already).
    pub(crate) fn spill_to(&mut self, folder: &Path, max_bytes: u64, from_bytes: u64, shift: u32) {
        if self.list.len() <= 1 << shift {
            self.list.shift = shift;
        }
        self.spill = Some(Box::new(EdgeSpill {
            store: SpillFile::new(folder, max_bytes),
            id: STORES.fetch_add(1, Ordering::Relaxed),
            offsets: Vec::new(),
            from_bytes,
            stopped: false,
            unread: AtomicBool::new(false),
        }));
    }

    /// The whole pages not spilled yet written to the store, if the edges in memory take
    /// more than their share (none from the first that cannot be written).
    fn spill_whole(&mut self) {
        let bytes = self.list.bytes() as u64;
        let Some(spill) = self.spill.as_mut() else {
            return;
        };
        if spill.stopped || bytes <= spill.from_bytes {
            return;
        }
        let whole = self.list.len() >> self.list.shift;
        let mut page = Vec::with_capacity(EDGE_BYTES << self.list.shift);
        while spill.offsets.len() < whole {
            let at = spill.offsets.len();
            page.clear();
            for edge in &self.list.pages[at] {
                edge.write(&mut page);
            }
            match spill.store.append(&page) {
                Ok(offset) => {
                    spill.offsets.push(offset);
                    self.list.pages[at] = Vec::new();
                }
                Err(_) => {
                    spill.stopped = true;
                    return;
                }
            }
        }
    }

    /// Every spilled page back in memory (read in another order than the walk's), and
    /// none spilled from then on.
    pub(crate) fn load_all(&mut self) {
        let Some(spill) = self.spill.take() else {
            return;
        };
        let view = EdgeView {
            pages: &self.list.pages,
            len: self.list.len(),
            shift: self.list.shift,
            spill: Some(&spill),
        };
        let back: Vec<Vec<Edge>> = (0..spill.offsets.len())
            .map(|page| {
                let first = page << self.list.shift;
                (first..first + (1 << self.list.shift))
                    .map(|at| view.get(at))
                    .collect()
            })
            .collect();
        for (page, edges) in back.into_iter().enumerate() {
            self.list.pages[page] = edges;
        }
        // Read back whole or not: what the counting reads says it (`unread`).
        let unread = spill.unread.load(Ordering::Relaxed);
        self.spill = Some(Box::new(EdgeSpill {
            offsets: Vec::new(),
            stopped: true,
            unread: AtomicBool::new(unread),
            ..*spill
        }));
    }

    /// The bytes spilled so far, and whether an edge could not be read back.
    pub(crate) fn spilled(&self) -> (u64, bool) {
        self.spill.as_ref().map_or((0, false), |spill| {
            (spill.store.written(), spill.unread.load(Ordering::Relaxed))
        })
    }

    /// How many there are.
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// Edge `at`.
    pub(crate) fn get(&self, at: usize) -> Edge {
        self.view().get(at)
    }

    /// Them all, as [`Graph`](super::Graph) reads them.
    pub(crate) fn view(&self) -> EdgeView<'_> {
        EdgeView {
            pages: &self.list.pages,
            len: self.list.len(),
            shift: self.list.shift,
            spill: self.spill.as_deref(),
        }
    }

    /// The bytes they hold in memory, by their lists' capacities.
    pub(crate) fn bytes(&self) -> u64 {
        let offsets = self
            .spill
            .as_ref()
            .map_or(0, |spill| 8 * spill.offsets.capacity());
        (self.list.bytes() + std::mem::size_of::<Drawn>() * self.drawn.capacity() + offsets) as u64
    }
}

/// A graph's edges as its readers see them: a list in pages of `1 << shift` (one page
/// alone where they were kept in one list), a spilled page read back from its store.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EdgeView<'g> {
    pages: &'g [Vec<Edge>],
    len: usize,
    shift: u32,
    spill: Option<&'g EdgeSpill>,
}

impl<'g> EdgeView<'g> {
    /// The edges of one list.
    #[cfg(test)]
    pub(crate) fn of(list: &'g Vec<Edge>) -> EdgeView<'g> {
        EdgeView {
            pages: std::slice::from_ref(list),
            len: list.len(),
            // Past any index an edge may have (`u32`).
            shift: u32::BITS,
            spill: None,
        }
    }

    /// How many there are.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The first `len` alone.
    #[cfg(test)]
    pub(crate) fn prefix(self, len: usize) -> EdgeView<'g> {
        assert!(len <= self.len, "{len} edges of {}", self.len);
        EdgeView { len, ..self }
    }

    /// Each, in order.
    pub(crate) fn iter(self) -> impl Iterator<Item = Edge> + 'g {
        (0..self.len).map(move |at| self.get(at))
    }

    /// Edge `at`.
    #[inline]
    pub(crate) fn get(&self, at: usize) -> Edge {
        debug_assert!(at < self.len, "edge {at} of {}", self.len);
        let (page, within) = (at >> self.shift, at & ((1usize << self.shift) - 1));
        match self.pages[page].get(within) {
            Some(edge) => *edge,
            None => self.read_back(page, within),
        }
    }

    /// Edge `within` of spilled page `page`, from the chunks this thread read back, or
    /// its chunk read; where it cannot be, the default edge (and the failure kept, for
    /// [`Edges::spilled`]).
    #[cold]
    fn read_back(&self, page: usize, within: usize) -> Edge {
        let Some(spill) = self.spill else {
            return Edge::default();
        };
        // Pages of fewer edges than a chunk are read whole.
        let chunk_len = CHUNK.min(1 << self.shift);
        let chunk = ((page << self.shift) + within) / chunk_len;
        let slot = chunk % SLOTS;
        READ_BACK.with(|cache| {
            let mut cache = cache.borrow_mut();
            let (held, edges) = &mut *cache;
            if held.is_empty() {
                held.resize(SLOTS, (u64::MAX, 0));
                edges.resize(SLOTS * CHUNK, Edge::default());
            }
            if held[slot] != (spill.id, chunk) {
                let mut bytes = [0u8; EDGE_BYTES * CHUNK];
                let bytes = &mut bytes[..EDGE_BYTES * chunk_len];
                let first = (within / chunk_len * chunk_len * EDGE_BYTES) as u64;
                let read = (spill.offsets.get(page))
                    .is_some_and(|&offset| spill.store.read(offset + first, bytes).is_ok());
                if !read {
                    spill.unread.store(true, Ordering::Relaxed);
                    held[slot] = (u64::MAX, 0);
                    return Edge::default();
                }
                let into = &mut edges[slot * CHUNK..];
                for (edge, bytes) in into.iter_mut().zip(bytes.chunks_exact(EDGE_BYTES)) {
                    *edge = Edge::read(bytes);
                }
                held[slot] = (spill.id, chunk);
            }
            edges[slot * CHUNK + within % chunk_len]
        })
    }
}
