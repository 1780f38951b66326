//! A list kept in pages: what the counting's entries and the search's edges grow in.

/// Entries a page holds by default: `1 << PAGE_SHIFT`.
pub(crate) const PAGE_SHIFT: u32 = 16;

/// A list kept in pages of `1 << shift` items: it grows a page at a time, never copying
/// what it holds (a `Vec` that doubles copies every item, and holds both copies meanwhile:
/// at its peak three times the items' bytes, against at most one page more than them
/// here). A page spilled to disk is left empty.
#[derive(Debug)]
pub(super) struct Paged<T> {
    pub(super) pages: Vec<Vec<T>>,
    pub(super) len: usize,
    pub(super) shift: u32,
}

impl<T> Default for Paged<T> {
    fn default() -> Paged<T> {
        Paged {
            pages: Vec::new(),
            len: 0,
            shift: PAGE_SHIFT,
        }
    }
}

impl<T> Paged<T> {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// An index's place within its page.
    pub(super) fn mask(&self) -> usize {
        (1 << self.shift) - 1
    }

    pub(super) fn push(&mut self, item: T) {
        if self.pages.len() << self.shift == self.len {
            // Grown by doubling up to a page (a small exploration takes little).
            self.pages.push(Vec::new());
        }
        self.pages[self.len >> self.shift].push(item);
        self.len += 1;
    }

    /// Item `at`, unless its page spilled.
    pub(super) fn try_get(&self, at: usize) -> Option<&T> {
        self.pages[at >> self.shift].get(at & self.mask())
    }

    #[cfg(test)]
    pub(super) fn get(&self, at: usize) -> &T {
        &self.pages[at >> self.shift][at & self.mask()]
    }

    /// Item `at` (its page in memory).
    pub(super) fn get_mut(&mut self, at: usize) -> &mut T {
        let mask = self.mask();
        &mut self.pages[at >> self.shift][at & mask]
    }

    pub(super) fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let page = 1 << self.shift;
        self.pages.truncate(len.div_ceil(page));
        if let Some(last) = self.pages.last_mut() {
            last.truncate(len - (len - 1) / page * page);
        }
        self.len = len;
    }

    /// The bytes it holds, by its pages' capacities.
    pub(super) fn bytes(&self) -> usize {
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
        const PAGE: usize = 1 << PAGE_SHIFT;
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
