//! The reachability search's seen set: each state's 64-bit fingerprint and its first
//! parent's number, by number (the order the search met them in), and an open-addressing
//! table of numbers over them in [`SEGMENTS`] segments that grow apart, named by the
//! fingerprints' bits, dealt to parts (one part a thread: on several, each thread looks up
//! and inserts in its own part's segments alone, with no lock; [`super::par`]). Which keys
//! a segment holds, and so its size, is the same whatever the parts: the bytes the budget
//! counts, and the states it admits, are the same on any `--jobs`. 12 bytes
//! a state, and 4 a slot of a table at most half full: from 20 to 28 bytes a state. The
//! lists grow a chunk at a time and the table a segment at a time, so a growth holds no
//! list twice, and one segment of the table (not the whole) twice.

/// Entries of a list's chunk (the first chunk grows to it as a list does).
const CHUNK: usize = 1 << 16;

/// Segments of the table (a part keeps those of its number, modulo the parts).
const SEGMENTS: usize = 64;

/// A list in chunks of [`CHUNK`] entries: it grows by a chunk, never copied whole.
pub(super) struct Chunks<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
    /// Entries its chunks hold room for, kept as they grow (the budget reads it at every
    /// new state: a sum over the chunks cost the one thread a few percent).
    room: usize,
}

impl<T: Copy> Chunks<T> {
    fn new() -> Chunks<T> {
        Chunks {
            chunks: Vec::new(),
            len: 0,
            room: 0,
        }
    }

    fn push(&mut self, value: T) {
        if self.len.is_multiple_of(CHUNK) {
            // The first chunk grows as a list does (a small search takes little); the
            // others are taken whole.
            let capacity = if self.len == 0 { 0 } else { CHUNK };
            self.chunks.push(Vec::with_capacity(capacity));
            self.room += capacity;
        }
        let chunk = &mut self.chunks[self.len / CHUNK];
        let before = chunk.capacity();
        chunk.push(value);
        self.room += chunk.capacity() - before;
        self.len += 1;
    }

    fn get(&self, at: usize) -> T {
        self.chunks[at / CHUNK][at % CHUNK]
    }

    /// Entries its chunks hold room for.
    fn capacity(&self) -> usize {
        self.room
    }
}

/// The number of no state: the start's parent.
pub(super) const NO_PARENT: u32 = u32::MAX;

/// A slot's mark of a state met in the level being expanded on several threads, not yet
/// numbered: the rest of the slot is its place in its part's [`Fresh`] list.
const FRESH: u32 = 1 << 31;

/// The most states numbered: a slot keeps a number + 1 below [`FRESH`].
pub(super) const MOST_STATES: usize = (FRESH - 2) as usize;

/// The states met, by number (see the module's words).
pub(super) struct Seen {
    /// Each state's fingerprint.
    keys: Chunks<u64>,
    /// Each state's first parent ([`NO_PARENT`] for the start).
    parents: Chunks<u32>,
    /// The table's parts: a fingerprint's part is named by its low bits after a multiply.
    parts: Vec<Part>,
    /// The slots of the segments counted ([`Seen::segs`]), kept as they grow.
    slots: usize,
}

/// A part of the table (one a thread): its segments, named by a fingerprint's middle bits.
pub(super) struct Part {
    segs: Vec<Seg>,
}

/// A segment of the table: a power of two of slots, each 0 (empty), a state's number + 1,
/// or [`FRESH`] and a fresh state's place; probed linearly from the slot a fingerprint's
/// top bits name.
struct Seg {
    slots: Vec<u32>,
    /// 64 less the slots' power of two: a fingerprint shifted by it names its slot.
    shift: u32,
    /// Slots taken.
    taken: usize,
}

/// The states a part met first in a level expanded on several threads, in the order one
/// thread meets them: each one's fingerprint, where it was met from (its parent's number
/// and its pick, [`super::par`]), where its packed words wait, and its slot.
#[derive(Default)]
pub(super) struct Fresh {
    pub(super) keys: Vec<u64>,
    pub(super) from: Vec<u64>,
    pub(super) at: Vec<(u32, u32)>,
    /// Each one's segment and slot.
    slots: Vec<(u32, u32)>,
}

impl Fresh {
    /// Emptied for the next level (its lists kept).
    pub(super) fn clear(&mut self) {
        self.keys.clear();
        self.from.clear();
        self.at.clear();
        self.slots.clear();
    }
}

/// `key` mixed: its top bits name its slot in a segment of `1 << (64 - shift)` slots, its
/// middle ones its segment (a test's weak fingerprints keep only low bits, which the
/// multiply carries up).
fn spread(key: u64) -> u64 {
    key.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The part of `parts` a key is kept in: its segment's, dealt round the parts.
pub(super) fn part_of(key: u64, parts: usize) -> usize {
    seg_of(key) % parts
}

/// The segment of its part `key` is kept in.
fn seg_of(key: u64) -> usize {
    (spread(key) >> 32) as usize % SEGMENTS
}

impl Seg {
    fn new() -> Seg {
        Seg {
            slots: vec![0; 16],
            shift: 64 - 4,
            taken: 0,
        }
    }

    /// The key slot value `slot` stands for: a numbered state's in `keys`, a fresh one's
    /// in `fresh`.
    fn key_at(slot: u32, keys: &Chunks<u64>, fresh: &[u64]) -> u64 {
        if slot & FRESH != 0 {
            fresh[(slot & !FRESH) as usize]
        } else {
            keys.get((slot - 1) as usize)
        }
    }

    /// The slot value of the state keyed `key`, or (`Err`) the empty slot where it would go.
    fn find(&self, key: u64, keys: &Chunks<u64>, fresh: &[u64]) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut at = (spread(key) >> self.shift) as usize;
        loop {
            match self.slots[at] {
                0 => return Err(at),
                slot if Seg::key_at(slot, keys, fresh) == key => return Ok(slot),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// Whether one more state takes it past half full.
    fn full(&self) -> bool {
        2 * (self.taken + 1) > self.slots.len()
    }

    /// Twice the slots, every state placed again (a fresh one's slot said in `fresh`; the
    /// segment is `seg`).
    fn grow(&mut self, keys: &Chunks<u64>, fresh: &mut Fresh, seg: u32) {
        let doubled = vec![0; 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, doubled);
        self.shift -= 1;
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|&slot| slot != 0) {
            let mut at = (spread(Seg::key_at(slot, keys, &fresh.keys)) >> self.shift) as usize;
            while self.slots[at] != 0 {
                at = (at + 1) & mask;
            }
            self.slots[at] = slot;
            if slot & FRESH != 0 {
                fresh.slots[(slot & !FRESH) as usize] = (seg, at as u32);
            }
        }
    }
}

impl Part {
    fn new() -> Part {
        Part {
            segs: (0..SEGMENTS).map(|_| Seg::new()).collect(),
        }
    }

    /// A state keyed `key` met from `from` (its words at `at`) a fresh one, unless met
    /// before (numbered or fresh): whether it is new.
    pub(super) fn meet(
        &mut self,
        keys: &Chunks<u64>,
        fresh: &mut Fresh,
        (key, from, at): (u64, u64, (u32, u32)),
    ) -> bool {
        let s = seg_of(key);
        let seg = &mut self.segs[s];
        let Err(mut slot) = seg.find(key, keys, &fresh.keys) else {
            return false;
        };
        if seg.full() {
            seg.grow(keys, fresh, s as u32);
            slot = seg.find(key, keys, &fresh.keys).err().unwrap_or_default();
        }
        seg.slots[slot] = fresh.keys.len() as u32 | FRESH;
        seg.taken += 1;
        fresh.keys.push(key);
        fresh.from.push(from);
        fresh.at.push(at);
        fresh.slots.push((s as u32, slot as u32));
        true
    }

    /// The fresh states of `fresh` numbered `numbers` (in their order).
    pub(super) fn number(&mut self, fresh: &Fresh, numbers: &[u32]) {
        for (&(seg, slot), &number) in fresh.slots.iter().zip(numbers) {
            self.segs[seg as usize].slots[slot as usize] = number + 1;
        }
    }
}

impl Seen {
    /// No state yet, its table in `parts` parts (one a thread that searches).
    pub(super) fn new(parts: usize) -> Seen {
        Seen {
            keys: Chunks::new(),
            parents: Chunks::new(),
            parts: (0..parts.max(1)).map(|_| Part::new()).collect(),
            slots: 16 * SEGMENTS,
        }
    }

    /// States met.
    pub(super) fn len(&self) -> usize {
        self.keys.len
    }

    /// State `number`'s first parent ([`NO_PARENT`] for the start).
    pub(super) fn parent(&self, number: u32) -> u32 {
        self.parents.get(number as usize)
    }

    /// The bytes its lists and table hold (their capacities).
    pub(super) fn bytes(&self) -> u64 {
        (8 * self.keys.capacity() + 4 * self.parents.capacity() + 4 * self.slots) as u64
    }

    /// The table's segments, each in the part it is dealt to (a part keeps the others
    /// unused, at their first few slots, which are not counted: so the bytes counted are
    /// the same on any number of parts).
    fn segs(&self) -> impl Iterator<Item = &Seg> {
        let parts = self.parts.len();
        (self.parts.iter().enumerate())
            .flat_map(move |(p, part)| part.segs.iter().skip(p).step_by(parts))
    }

    /// `key`'s segment.
    fn seg(&self, key: u64) -> &Seg {
        &self.parts[part_of(key, self.parts.len())].segs[seg_of(key)]
    }

    /// The bytes a new state keyed `key` adds to the table's: its part's new slots where
    /// it takes the part past half full (the old ones are freed after).
    pub(super) fn growth(&self, key: u64) -> u64 {
        let seg = self.seg(key);
        if seg.full() {
            8 * seg.slots.len() as u64
        } else {
            0
        }
    }

    /// The most bytes it holds, its lists' and table's growths counted, once `more`
    /// states are added (wherever they fall): its lists' chunks, and its segments each at
    /// most four slots a state (doubled once past half full), one of them held twice as
    /// it grows.
    pub(super) fn bytes_with(&self, more: usize) -> u64 {
        let want = self.len() + more;
        let lists = self.keys.capacity().max(want.next_multiple_of(CHUNK));
        let slots = self.slots;
        let widest = self.segs().map(|s| s.slots.len()).max().unwrap_or(0);
        let table = slots + 4 * want + 2 * widest.max(4 * more);
        (12 * lists + 4 * table) as u64
    }

    /// The number of the state keyed `key`, or (`Err`) the empty slot where it would go.
    pub(super) fn find(&self, key: u64) -> Result<u32, usize> {
        self.seg(key)
            .find(key, &self.keys, &[])
            .map(|slot| slot - 1)
    }

    /// A new state keyed `key` (not met: `slot` is where [`Seen::find`] said it would go),
    /// reached first from `parent`: its number.
    pub(super) fn insert(&mut self, slot: usize, key: u64, parent: u32) -> u32 {
        let number = self.push(key, parent);
        let count = self.parts.len();
        let s = seg_of(key);
        let seg = &mut self.parts[part_of(key, count)].segs[s];
        if seg.full() {
            // Past half full: twice the slots, every state placed again.
            self.slots += seg.slots.len();
            seg.grow(&self.keys, &mut Fresh::default(), s as u32);
            let slot = seg.find(key, &self.keys, &[]).err().unwrap_or_default();
            seg.slots[slot] = number + 1;
        } else {
            seg.slots[slot] = number + 1;
        }
        seg.taken += 1;
        number
    }

    /// A state keyed `key` numbered, reached first from `parent` (its slot set apart).
    pub(super) fn push(&mut self, key: u64, parent: u32) -> u32 {
        let number = self.keys.len as u32;
        self.keys.push(key);
        self.parents.push(parent);
        number
    }

    /// The numbered states' keys, lent to the threads that meet a level's children (the
    /// set holds none until they are put back).
    pub(super) fn take_keys(&mut self) -> Chunks<u64> {
        std::mem::replace(&mut self.keys, Chunks::new())
    }

    /// The keys lent ([`Seen::take_keys`]) put back.
    pub(super) fn put_keys(&mut self, keys: Chunks<u64>) {
        self.keys = keys;
    }

    /// The table's parts, lent to the threads (one each) that meet a level's children.
    pub(super) fn take_parts(&mut self) -> Vec<Part> {
        std::mem::take(&mut self.parts)
    }

    /// The parts lent ([`Seen::take_parts`]) put back.
    pub(super) fn put_parts(&mut self, parts: Vec<Part>) {
        self.parts = parts;
        self.slots = self.segs().map(|s| s.slots.len()).sum();
    }

    /// The numbers from the start to state `number`, along the first parents.
    pub(super) fn chain(&self, number: u32) -> Vec<u32> {
        let mut chain = vec![number];
        let mut at = number;
        while self.parent(at) != NO_PARENT {
            at = self.parent(at);
            chain.push(at);
        }
        chain.reverse();
        chain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes the budget reads at every new state, kept as the lists and the table grow,
    /// are those summed over every chunk and segment afresh, at every size.
    #[test]
    fn bytes_kept_are_the_bytes_summed() {
        // The sum over every chunk and every counted segment, made afresh.
        let summed = |seen: &Seen| {
            let room = |c: &Chunks<u64>| c.chunks.iter().map(Vec::capacity).sum::<usize>();
            let parents: usize = seen.parents.chunks.iter().map(Vec::capacity).sum();
            let slots: usize = seen.segs().map(|s| s.slots.len()).sum();
            (8 * room(&seen.keys) + 4 * parents + 4 * slots) as u64
        };
        let mut seen = Seen::new(1);
        // Past a chunk (65,536 entries) and every segment's first few growths.
        for n in 0..70_000u64 {
            if n % 97 == 0 || (65_530..65_540).contains(&n) {
                assert_eq!(seen.bytes(), summed(&seen), "{n} states");
            }
            let key = n.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
            let slot = seen.find(key).expect_err("new");
            seen.insert(slot, key, 0);
        }
        assert_eq!(seen.bytes(), summed(&seen));
        // The parts lent and put back, grown meanwhile on their own.
        let mut parts = seen.take_parts();
        let keys = seen.take_keys();
        let mut fresh = Fresh::default();
        for n in 0..5_000u64 {
            parts[0].meet(&keys, &mut fresh, (n << 20 | 3, n, (0, 0)));
        }
        seen.put_keys(keys);
        seen.put_parts(parts);
        assert_eq!(seen.bytes(), summed(&seen));
    }

    /// Every key inserted is found again with its number and parent, through several
    /// growths; a key never inserted is not (keys that share their top bits collide on
    /// purpose: they probe on).
    #[test]
    fn finds_every_key_through_growth() {
        let mut seen = Seen::new(1);
        let key = |n: u64| (n % 7) << 60 | n;
        for n in 0..10_000u64 {
            let slot = seen.find(key(n)).expect_err("new");
            let parent = if n == 0 { NO_PARENT } else { (n / 2) as u32 };
            assert_eq!(seen.insert(slot, key(n), parent), n as u32);
        }
        for n in 0..10_000u64 {
            assert_eq!(seen.find(key(n)), Ok(n as u32));
        }
        assert!(seen.find(key(10_001)).is_err());
        // 10,000 states in 64 segments, about 156 each: each at most half full, and
        // grown only past half full (so at least a quarter full once grown from 16).
        for seg in seen.segs() {
            let len = seg.slots.len();
            assert!(
                2 * seg.taken <= len && (len == 16 || 4 * seg.taken >= len),
                "{len}"
            );
        }
        assert_eq!(seen.segs().map(|s| s.taken).sum::<usize>(), 10_000);
        // 9 → 4 → 2 → 1 → 0.
        assert_eq!(seen.chain(9), vec![0, 1, 2, 4, 9]);
    }
}
