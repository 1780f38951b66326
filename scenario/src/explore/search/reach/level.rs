//! A level's waiting states, packed ([`pack`]) into chunks of [`LEVEL_CHUNK`] bytes: the
//! level being expanded gives its chunks back as it is read (on one thread), and the next
//! level takes them up, so the two levels together hold about the wider of them, where two
//! lists each doubled as they grew held up to twice both. A state never spans two chunks:
//! at every [`MARK`]-th state the chunk is given room for the [`MARK`] states from it (9
//! bytes a word at most), grown (a small one, doubled) or a new chunk taken. Where the
//! chunks start depends only on the states' sizes, not on how they were added (one by one
//! or a thread's piece at a time): the bytes counted are the same on any `--jobs`.

use super::expand::{pack, unpack};

/// States between two marks of a level (where a thread's share may start).
pub(super) const MARK: usize = 16;

/// Bytes of a full chunk.
pub(super) const LEVEL_CHUNK: usize = 1 << 20;

/// A level's states, packed one after another in chunks.
#[derive(Default)]
pub(super) struct Level {
    chunks: Vec<Vec<u8>>,
    /// Where every [`MARK`]-th state starts: its chunk and its first byte there.
    marks: Vec<(u32, u32)>,
    pub(super) states: usize,
    /// The most bytes [`MARK`] states take packed: the room made at a mark.
    run: usize,
    /// Chunks freed (read through), from the first.
    given: usize,
    /// The bytes its chunks hold (their capacities), those freed not counted.
    held: usize,
    /// Where the state last packed starts (taken back if it is not admitted).
    last: (u32, u32),
}

/// Where a level is read from: a chunk and a byte in it.
#[derive(Clone, Copy)]
pub(super) struct Cursor {
    chunk: usize,
    at: usize,
}

impl Level {
    /// No state yet, for states of `size` words.
    pub(super) fn new(size: usize) -> Level {
        Level {
            run: MARK * 9 * size.max(1),
            ..Level::default()
        }
    }

    /// The bytes its chunks hold.
    pub(super) fn bytes(&self) -> usize {
        self.held
    }

    /// Bytes packed in it (those of chunks freed included).
    pub(super) fn packed(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Room for the [`MARK`] states from the next one, a mark (its chunk grown, or a new
    /// chunk taken): the bytes it took.
    fn room(&mut self) -> usize {
        let run = self.run;
        let (len, capacity) = (self.chunks.last()).map_or((0, 0), |c| (c.len(), c.capacity()));
        if len + run <= capacity {
            return 0;
        }
        let full = LEVEL_CHUNK.max(run);
        let doubled = (2 * capacity).max(len + run);
        let grew = match self.chunks.last_mut() {
            // A small chunk (a narrow level's only one) doubled.
            Some(last) if doubled <= full => {
                last.reserve_exact(doubled - len);
                last.capacity() - capacity
            }
            // A level's first chunk is small: a narrow level takes little.
            None => {
                self.chunks.push(Vec::with_capacity(run));
                run
            }
            Some(_) => {
                self.chunks.push(Vec::with_capacity(full));
                full
            }
        };
        self.held += grew;
        grew
    }

    /// Where the next state starts.
    fn end(&self) -> (u32, u32) {
        let chunk = self.chunks.len().saturating_sub(1);
        let at = self.chunks.last().map_or(0, Vec::len);
        (chunk as u32, at as u32)
    }

    /// `words` packed at its end, not yet admitted ([`Level::admit`]; or taken back,
    /// [`Level::reject`]): the bytes it took.
    pub(super) fn pack(&mut self, words: &[u64]) -> usize {
        let grew = if self.states.is_multiple_of(MARK) {
            self.room()
        } else {
            0
        };
        self.last = self.end();
        let chunk = self.chunks.len() - 1;
        pack(words, &mut self.chunks[chunk]);
        grew
    }

    /// The state just packed counted.
    pub(super) fn admit(&mut self) {
        if self.states.is_multiple_of(MARK) {
            self.marks.push(self.last);
        }
        self.states += 1;
    }

    /// The state just packed taken back.
    pub(super) fn reject(&mut self) {
        let (chunk, at) = self.last;
        self.chunks[chunk as usize].truncate(at as usize);
    }

    /// `words` packed at its end and admitted: the bytes it took.
    pub(super) fn add(&mut self, words: &[u64]) -> usize {
        let grew = self.pack(words);
        self.admit();
        grew
    }

    /// `states` states packed in `bytes` appended, `marks` saying where those that are a
    /// mark of this level start in them, into the chunks they would go to added one by
    /// one: the bytes it took.
    pub(super) fn append(&mut self, bytes: &[u8], marks: &[usize], states: usize) -> usize {
        let mut grew = 0;
        // The states before the first mark end the last mark's run, whose room was made.
        let first = marks.first().copied().unwrap_or(bytes.len());
        if first > 0 {
            let chunk = self.chunks.len() - 1;
            self.chunks[chunk].extend_from_slice(&bytes[..first]);
        }
        for (i, &start) in marks.iter().enumerate() {
            let end = marks.get(i + 1).copied().unwrap_or(bytes.len());
            grew += self.room();
            self.marks.push(self.end());
            let chunk = self.chunks.len() - 1;
            self.chunks[chunk].extend_from_slice(&bytes[start..end]);
        }
        self.states += states;
        grew
    }

    /// Where state `index` (a mark) starts.
    pub(super) fn cursor(&self, index: usize) -> Cursor {
        let (chunk, at) = self.marks.get(index / MARK).copied().unwrap_or_default();
        Cursor {
            chunk: chunk as usize,
            at: at as usize,
        }
    }

    /// The state at `cursor` unpacked into `words`, the cursor moved past it.
    pub(super) fn read(&self, cursor: &mut Cursor, words: &mut [u64]) {
        while cursor.at >= self.chunks[cursor.chunk].len() {
            (cursor.chunk, cursor.at) = (cursor.chunk + 1, 0);
        }
        unpack(&self.chunks[cursor.chunk], &mut cursor.at, words);
    }

    /// The chunks before the one `cursor` reads freed (read through: their states
    /// expanded): the bytes freed.
    pub(super) fn give_back(&mut self, cursor: &Cursor) -> usize {
        let mut freed = 0;
        while self.given < cursor.chunk {
            freed += std::mem::take(&mut self.chunks[self.given]).capacity();
            self.given += 1;
        }
        self.held -= freed;
        freed
    }
}

/// The level being expanded and the next, and where the search is.
#[derive(Default)]
pub(super) struct Levels {
    pub(super) now: Level,
    pub(super) next: Level,
    /// The number of the level's first state.
    pub(super) first: usize,
    /// Words a state (its words, and its counts where kept).
    pub(super) size: usize,
    pub(super) depth: u32,
    pub(super) deepest: u32,
    /// States expanded.
    pub(super) expanded: usize,
}

impl Levels {
    /// For states of `size` words, none yet.
    pub(super) fn new(size: usize) -> Levels {
        Levels {
            now: Level::new(size),
            next: Level::new(size),
            size,
            ..Levels::default()
        }
    }

    /// The bytes both levels hold.
    pub(super) fn bytes(&self) -> u64 {
        (self.now.bytes() + self.next.bytes()) as u64
    }

    /// The level done (its chunks freed), the next one's turn.
    pub(super) fn turn(&mut self) {
        self.first += self.now.states;
        self.depth += 1;
        self.now = std::mem::replace(&mut self.next, Level::new(self.size));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// States of varied sizes, added one by one (some packed and taken back) or appended a
    /// thread's piece at a time (cut anywhere, as the merge cuts them), land in the same
    /// chunks, held alike, past several chunks and a small first one's doublings; they read
    /// back in order from any mark; the chunks read through are freed, their bytes said.
    #[test]
    fn states_added_or_appended_land_alike_and_free_as_read() {
        let size = 40;
        let state = |n: usize| -> Vec<u64> {
            (0..size as u64)
                .map(|w| (n as u64 * 7919 + w) << (8 * (n % 8)))
                .collect()
        };
        let states = 40_000;
        let mut one = Level::new(size);
        for n in 0..states {
            if n % 5 == 0 {
                one.pack(&state(n + 1));
                one.reject();
            }
            one.add(&state(n));
        }
        // Pieces of 1, 2, 3, … states, each with its marks' places (a level's).
        let mut appended = Level::new(size);
        let (mut n, mut len) = (0, 1);
        while n < states {
            let (mut bytes, mut marks) = (Vec::new(), Vec::new());
            let end = (n + len).min(states);
            for m in n..end {
                if m % MARK == 0 {
                    marks.push(bytes.len());
                }
                pack(&state(m), &mut bytes);
            }
            appended.append(&bytes, &marks, end - n);
            (n, len) = (end, len % 37 + 1);
        }
        assert_eq!(one.chunks.len(), appended.chunks.len());
        assert!(one.chunks.len() > 3, "{}", one.chunks.len());
        for (a, b) in one.chunks.iter().zip(&appended.chunks) {
            assert_eq!((a.len(), a.capacity()), (b.len(), b.capacity()));
            assert!(a.capacity() <= LEVEL_CHUNK);
        }
        assert_eq!(
            (one.marks.clone(), one.bytes()),
            (appended.marks.clone(), appended.bytes())
        );
        let held: usize = one.chunks.iter().map(Vec::capacity).sum();
        assert_eq!(one.bytes(), held);
        // Read from a mark; then all of it, freeing as it goes.
        let mut words = vec![0; size];
        let mut at = appended.cursor(16 * 1000);
        appended.read(&mut at, &mut words);
        assert_eq!(words, state(16 * 1000));
        let mut at = one.cursor(0);
        let mut freed = 0;
        for n in 0..states {
            one.read(&mut at, &mut words);
            assert_eq!(words, state(n), "{n}");
            freed += one.give_back(&at);
        }
        let last = one.chunks.last().map_or(0, Vec::capacity);
        assert_eq!((freed, one.bytes()), (held - last, last));
    }
}
