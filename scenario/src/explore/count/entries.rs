//! The counting's entries, kept as compactly as the claims need them: 24 bytes an entry
//! (its state, its counts, its first predecessor, the next entry of its state, its
//! executions in a word), and beside them only what some graphs need: the executions past
//! a word (a map, rarely filled), each entry's probability (only where a transition may
//! draw, or a shard's part states its share: elsewhere every transition has probability
//! 1, so an entry's probability is its number of executions), and where each depth's
//! entries begin (the entries are made breadth first, so their depths only grow).

use rustc_hash::FxHashMap;

/// No entry, or no edge (the start's).
pub(crate) const NONE: u32 = u32::MAX;

/// A state with the counts an execution reaches it with.
#[derive(Debug, Clone, Copy)]
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

    /// Entry `at`.
    pub(crate) fn get(&self, at: u32) -> &Entry {
        self.list.get(at as usize)
    }

    /// Every entry, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.list.pages.iter().flatten()
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
        match self.list.get(at as usize).paths {
            u64::MAX => self.big.get(&at).copied().unwrap_or(u128::from(u64::MAX)),
            paths => u128::from(paths),
        }
    }

    /// Their probability.
    pub(crate) fn chance(&self, at: u32) -> f64 {
        match &self.chance {
            Some(chance) => chance[at as usize],
            None => self.paths(at) as f64,
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
    }
}

/// Entries a page holds.
const PAGE: usize = 1 << 16;

/// A list kept in pages of [`PAGE`] items: it grows a page at a time, never copying what
/// it holds (a `Vec` that doubles copies every item, and holds both copies meanwhile: at
/// its peak three times the items' bytes, against at most one page more than them here).
#[derive(Debug)]
struct Paged<T> {
    pages: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Paged<T> {
    fn default() -> Paged<T> {
        Paged {
            pages: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Paged<T> {
    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, item: T) {
        if self.pages.len() * PAGE == self.len {
            // Grown by doubling up to a page (a small exploration takes little).
            self.pages.push(Vec::new());
        }
        self.pages[self.len / PAGE].push(item);
        self.len += 1;
    }

    fn get(&self, at: usize) -> &T {
        &self.pages[at / PAGE][at % PAGE]
    }

    fn get_mut(&mut self, at: usize) -> &mut T {
        &mut self.pages[at / PAGE][at % PAGE]
    }

    fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        self.pages.truncate(len.div_ceil(PAGE));
        if let Some(last) = self.pages.last_mut() {
            last.truncate(len - (len - 1) / PAGE * PAGE);
        }
        self.len = len;
    }

    /// The bytes it holds, by its pages' capacities.
    fn bytes(&self) -> usize {
        std::mem::size_of::<T>() * self.pages.iter().map(Vec::capacity).sum::<usize>()
            + std::mem::size_of::<Vec<T>>() * self.pages.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A paged list holds what a `Vec` given the same pushes and truncations holds, across
    /// pages' ends (a truncation to a page's end, into a page, to nothing).
    #[test]
    fn a_paged_list_is_a_list() {
        let (mut paged, mut plain) = (Paged::default(), Vec::new());
        let steps = [
            (PAGE + 7, PAGE),
            (3 * PAGE, 2 * PAGE + 5),
            (10, 0),
            (PAGE + 1, PAGE - 1),
        ];
        for (to, back) in steps {
            while plain.len() < to {
                paged.push(plain.len() as u32);
                plain.push(plain.len() as u32);
            }
            paged.truncate(back);
            plain.truncate(back);
            assert_eq!(paged.len(), plain.len());
            assert!(paged.pages.iter().flatten().eq(plain.iter()));
            assert!((0..plain.len()).all(|at| paged.get(at) == &plain[at]));
            // At most one page more than its items (the last, partly filled).
            assert!(paged.bytes() <= 4 * (plain.len() + PAGE) + 24 * paged.pages.capacity());
        }
    }
}
