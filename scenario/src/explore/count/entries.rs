//! The counting's entries, kept as compactly as the claims need them: 24 bytes an entry
//! (its state, its counts, its first predecessor, the next entry of its state, its
//! executions in a word), and beside them only what some graphs need: the executions past
//! a word (a map, rarely filled), each entry's probability (only where a transition may
//! draw, or a shard's part states its share: elsewhere every transition has probability
//! 1, so an entry's probability is its number of executions), and where each depth's
//! entries begin (the entries are made breadth first, so their depths only grow).
//!
//! Given a spill store ([`Entries::spill_to`]), the pages of entries the walk is done with
//! (every entry of a depth before the one it takes: see [`Entries::spill_cold`]) go to
//! disk once the entries in memory pass their share, and are read back by offset where
//! the outcomes and the traces ask for them.

use std::borrow::Cow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rustc_hash::FxHashMap;

use super::paged::Paged;
use super::spill::{SpillError, SpillFile};

/// No entry, or no edge (the start's).
pub(crate) const NONE: u32 = u32::MAX;

/// A state with the counts an execution reaches it with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub node: u32,
    /// Its counts: an index into the counting's table of them.
    pub counts: u32,
    /// The entry its first (shortest) execution comes from (`NONE`: the start's).
    pub pred: u32,
    /// The next entry of the same state (`NONE`: the last).
    pub(super) next: u32,
    /// The executions that reach it; `u64::MAX`: that many or more, the number in
    /// [`Entries::big`].
    paths: u64,
}

/// The entries in the order they were made (breadth first from the start's).
#[derive(Debug, Default)]
pub(crate) struct Entries {
    list: Paged<Entry>,
    /// The executions of the entries with `u64::MAX` or more (by entry).
    big: FxHashMap<u32, u128>,
    /// Each entry's probability, where it is not its number of executions.
    chance: Option<Vec<f64>>,
    /// Where each depth's entries begin: `levels[d]` is the first entry of depth `d`.
    levels: Vec<u32>,
    /// Where the cold pages go, once given.
    spill: Option<Box<Spilled>>,
}

/// The entries' pages on disk.
#[derive(Debug)]
struct Spilled {
    store: SpillFile,
    /// Each page's offset in the store, for the pages spilled (the first `offsets.len()`).
    offsets: Vec<u64>,
    /// The bytes of entries kept in memory past which the cold pages spill.
    from_bytes: u64,
    /// Why a page could not spill (none spills after).
    failed: Option<SpillError>,
    /// A page could not be read back (an entry read as the start's meanwhile): an internal
    /// error, said once the counting is done.
    unread: AtomicBool,
}

/// The bytes of an entry on disk.
const ENTRY_BYTES: usize = 24;

impl Entry {
    /// Its bytes on disk (little-endian, in its fields' order).
    fn write(&self, into: &mut Vec<u8>) {
        for word in [self.node, self.counts, self.pred, self.next] {
            into.extend_from_slice(&word.to_le_bytes());
        }
        into.extend_from_slice(&self.paths.to_le_bytes());
    }

    /// The entry of bytes `bytes` ([`Entry::write`]'s).
    fn read(bytes: &[u8]) -> Entry {
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let mut paths = [0u8; 8];
        paths.copy_from_slice(&bytes[16..24]);
        Entry {
            node: word(0),
            counts: word(4),
            pred: word(8),
            next: word(12),
            paths: u64::from_le_bytes(paths),
        }
    }

    /// What an entry that could not be read back is taken as meanwhile: the start's, with
    /// no execution (every index in it valid; the error is said after).
    const UNREAD: Entry = Entry {
        node: 0,
        counts: 0,
        pred: NONE,
        next: NONE,
        paths: 0,
    };
}

impl Entries {
    /// The start's entry alone (with `counts`); each entry's probability kept apart with
    /// `chances`.
    pub(super) fn start(counts: u32, chances: bool) -> Entries {
        let mut entries = Entries {
            chance: chances.then(Vec::new),
            ..Entries::default()
        };
        entries.push(0, counts, NONE, NONE, 0);
        entries.list.get_mut(0).paths = 1;
        if let Some(chance) = &mut entries.chance {
            chance[0] = 1.0;
        }
        entries
    }

    /// How many there are.
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// Entry `at` (read back from disk if its page spilled).
    pub(crate) fn get(&self, at: u32) -> Entry {
        match self.list.try_get(at as usize) {
            Some(entry) => *entry,
            None => {
                let mut bytes = [0u8; ENTRY_BYTES];
                let page = at as usize >> self.list.shift;
                let within = (at as usize & self.list.mask()) * ENTRY_BYTES;
                self.read_back(page, within, &mut bytes);
                Entry::read(&bytes)
            }
        }
    }

    /// Every entry, in order (a spilled page read back whole).
    pub(crate) fn iter(&self) -> impl Iterator<Item = Entry> + '_ {
        (0..self.list.pages.len()).flat_map(move |page| self.page(page).into_owned())
    }

    /// Page `page`'s entries: in memory, or read back.
    fn page(&self, page: usize) -> Cow<'_, [Entry]> {
        let held = &self.list.pages[page];
        let len = (self.list.len - (page << self.list.shift)).min(1 << self.list.shift);
        if held.len() == len {
            return Cow::Borrowed(held);
        }
        let mut bytes = vec![0u8; len * ENTRY_BYTES];
        self.read_back(page, 0, &mut bytes);
        Cow::Owned(bytes.chunks_exact(ENTRY_BYTES).map(Entry::read).collect())
    }

    /// The bytes of spilled page `page` from `within` on read into `into`; where they
    /// cannot be, entries taken as [`Entry::UNREAD`]'s and the failure kept (for
    /// [`Entries::spilled`]).
    fn read_back(&self, page: usize, within: usize, into: &mut [u8]) {
        let read = self.spill.as_ref().and_then(|spill| {
            let offset = *spill.offsets.get(page)?;
            let done = spill.store.read(offset + within as u64, into).ok();
            if done.is_none() {
                spill.unread.store(true, Ordering::Relaxed);
            }
            done
        });
        if read.is_none() {
            let mut unread = Vec::with_capacity(ENTRY_BYTES);
            Entry::UNREAD.write(&mut unread);
            for chunk in into.chunks_mut(ENTRY_BYTES) {
                chunk.copy_from_slice(&unread[..chunk.len()]);
            }
        }
    }

    /// Cold pages go to a store in `folder` (of at most `max_bytes`) once the entries in
    /// memory take more than `from_bytes`; the pages hold `1 << shift` entries (set before
    /// the second page is made).
    pub(super) fn spill_to(&mut self, folder: &Path, max_bytes: u64, from_bytes: u64, shift: u32) {
        if self.list.pages.len() <= 1 {
            self.list.shift = shift;
        }
        self.spill = Some(Box::new(Spilled {
            store: SpillFile::new(folder, max_bytes),
            offsets: Vec::new(),
            from_bytes,
            failed: None,
            unread: AtomicBool::new(false),
        }));
    }

    /// The whole pages before entry `below` (every entry the walk is done with) written to
    /// the spill store, if the entries in memory take more than their share: `Err` (and
    /// nothing spilled from then on) where one cannot be written.
    pub(super) fn spill_cold(&mut self, below: u32) -> Result<(), SpillError> {
        let bytes = self.bytes() as u64;
        let Some(spill) = self.spill.as_mut() else {
            return Ok(());
        };
        if let Some(failed) = &spill.failed {
            return Err(failed.clone());
        }
        if bytes <= spill.from_bytes {
            return Ok(());
        }
        let cold = below as usize >> self.list.shift;
        let mut page = Vec::with_capacity(ENTRY_BYTES << self.list.shift);
        while spill.offsets.len() < cold {
            let at = spill.offsets.len();
            page.clear();
            for entry in &self.list.pages[at] {
                entry.write(&mut page);
            }
            match spill.store.append(&page) {
                Ok(offset) => {
                    spill.offsets.push(offset);
                    self.list.pages[at] = Vec::new();
                }
                Err(error) => {
                    spill.failed = Some(error.clone());
                    return Err(error);
                }
            }
        }
        Ok(())
    }

    /// Every spilled page back in memory (the counting takes the entries again in another
    /// order: the memory bound's as without a spill).
    fn load_all(&mut self) {
        let spilled = self.spill.as_ref().map_or(0, |spill| spill.offsets.len());
        for page in 0..spilled {
            let entries = self.page(page).into_owned();
            self.list.pages[page] = entries;
        }
        if let Some(spill) = self.spill.as_mut() {
            spill.offsets.clear();
        }
    }

    /// The bytes of entries kept in memory before the cold ones spill (`None`: none spill).
    pub(super) fn spill_share(&self) -> Option<u64> {
        self.spill.as_ref().map(|spill| spill.from_bytes)
    }

    /// The bytes spilled so far, and whether an entry could not be read back.
    pub(crate) fn spilled(&self) -> (u64, bool) {
        self.spill.as_ref().map_or((0, false), |spill| {
            (spill.store.written(), spill.unread.load(Ordering::Relaxed))
        })
    }

    /// A new entry (of `depth`, at least the last one's), with no execution yet: its index.
    pub(super) fn push(&mut self, node: u32, counts: u32, pred: u32, next: u32, depth: u32) -> u32 {
        let at = self.list.len() as u32;
        if self.levels.len() <= depth as usize {
            self.levels.push(at);
        }
        self.list.push(Entry {
            node,
            counts,
            pred,
            next,
            paths: 0,
        });
        if let Some(chance) = &mut self.chance {
            chance.push(0.0);
        }
        at
    }

    /// The executions that reach entry `at`.
    pub(crate) fn paths(&self, at: u32) -> u128 {
        self.paths_of(at, &self.get(at))
    }

    /// The executions that reach entry `at`, read already as `entry` (no second read of a
    /// spilled page).
    pub(crate) fn paths_of(&self, at: u32, entry: &Entry) -> u128 {
        match entry.paths {
            u64::MAX => self.big.get(&at).copied().unwrap_or(u128::from(u64::MAX)),
            paths => u128::from(paths),
        }
    }

    /// Their probability.
    #[cfg(test)]
    pub(crate) fn chance(&self, at: u32) -> f64 {
        self.chance_of(at, &self.get(at))
    }

    /// The probability of entry `at`, read already as `entry`.
    pub(crate) fn chance_of(&self, at: u32, entry: &Entry) -> f64 {
        match &self.chance {
            Some(chance) => chance[at as usize],
            None => self.paths_of(at, entry) as f64,
        }
    }

    /// The fewest events that reach entry `at`.
    pub(crate) fn depth(&self, at: u32) -> u32 {
        (self.levels.partition_point(|&first| first <= at) - 1) as u32
    }

    /// Whether entry `at` is of depth `depth` (in constant time).
    pub(super) fn of_depth(&self, at: u32, depth: u32) -> bool {
        let depth = depth as usize;
        self.levels.get(depth).is_some_and(|&first| first <= at)
            && self.levels.get(depth + 1).is_none_or(|&end| at < end)
    }

    /// The deepest entry's depth.
    pub(super) fn deepest(&self) -> u32 {
        self.levels.len().saturating_sub(1) as u32
    }

    /// Entry `from`'s executions added to entry `to`'s over a transition of `probability`.
    pub(super) fn add(&mut self, to: u32, from: u32, probability: f64) {
        let sum = self.paths(to).saturating_add(self.paths(from));
        if self.list.try_get(to as usize).is_none() {
            // Never in a leveled walk (it adds to the depth it makes, never spilled).
            self.load_all();
        }
        match u64::try_from(sum) {
            Ok(paths) if paths < u64::MAX => self.list.get_mut(to as usize).paths = paths,
            _ => {
                self.list.get_mut(to as usize).paths = u64::MAX;
                self.big.insert(to, sum);
            }
        }
        if let Some(chance) = &mut self.chance {
            chance[to as usize] += chance[from as usize] * probability;
        }
    }

    /// Every entry's executions back to none but the start's one (its probability 1), each
    /// entry's probability kept apart from now on with `chances`.
    pub(super) fn restart(&mut self, chances: bool) {
        self.load_all();
        for entry in self.list.pages.iter_mut().flatten() {
            entry.paths = 0;
        }
        self.big.clear();
        self.list.get_mut(0).paths = 1;
        if chances || self.chance.is_some() {
            let mut chance = vec![0.0; self.list.len()];
            chance[0] = 1.0;
            self.chance = Some(chance);
        }
    }

    /// The entries from `limit` on dropped.
    pub(super) fn truncate(&mut self, limit: usize) {
        self.load_all();
        self.list.truncate(limit);
        self.big.retain(|&at, _| (at as usize) < limit);
        if let Some(chance) = &mut self.chance {
            chance.truncate(limit);
        }
        self.levels.retain(|&first| (first as usize) < limit);
    }

    /// The bytes it holds, by its lists' capacities (the map's few entries aside).
    pub(super) fn bytes(&self) -> usize {
        self.list.bytes()
            + std::mem::size_of::<f64>() * self.chance.as_ref().map_or(0, Vec::capacity)
            + std::mem::size_of::<u32>() * self.levels.capacity()
            + self
                .spill
                .as_ref()
                .map_or(0, |spill| 8 * spill.offsets.capacity())
    }
}
