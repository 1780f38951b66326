//! The reachability search's seen set: each state's first parent's number, by number (the
//! order the search met them in), and an open-addressing table over them in [`SEGMENTS`]
//! segments that grow apart, named by the fingerprints' bits, dealt to parts (one part a
//! thread: on several, each thread looks up and inserts in its own part's segments alone,
//! with no lock; [`super::par`]). A slot holds the whole 64-bit fingerprint beside the
//! state's number, so a probe reads the table alone: one cache miss, where a slot of the
//! number alone sent every probe on to a list of fingerprints (a second miss, a quarter of
//! the search's time). Which keys a segment holds, and so its size, is the same whatever
//! the parts: the bytes the budget counts, and the states it admits, are the same on any
//! `--jobs`. A slot is 12 bytes and a segment at most four fifths full, grown by a quarter
//! (not doubled) past it, so from 15 to 19 bytes a state (and 4 for the parent). The list
//! grows a chunk at a time and the table a segment at a time, so a growth holds no list
//! twice, and one segment of the table (not the whole) twice.

/// Entries of a list's chunk (the first chunk grows to it as a list does).
const CHUNK: usize = 1 << 16;

/// Segments of the table (a part keeps those of its number, modulo the parts).
const SEGMENTS: usize = 64;

/// Slots of a segment at first.
const FIRST_SLOTS: usize = 16;

/// Bytes a slot: a fingerprint and a number.
const SLOT_BYTES: usize = 12;

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
/// numbered: the rest of its number is its place in its part's [`Fresh`] list.
const FRESH: u32 = 1 << 31;

/// The most states numbered: a slot keeps a number + 1 below [`FRESH`].
pub(super) const MOST_STATES: usize = (FRESH - 2) as usize;

/// The states met, by number (see the module's words).
pub(super) struct Seen {
    /// Each state's first parent ([`NO_PARENT`] for the start).
    parents: Chunks<u32>,
    /// The table's parts: a fingerprint's part is named by its middle bits after a multiply.
    parts: Vec<Part>,
    /// The slots of the segments counted ([`Seen::segs`]), kept as they grow.
    slots: usize,
}

/// A part of the table (one a thread): its segments, named by a fingerprint's middle bits.
pub(super) struct Part {
    segs: Vec<Seg>,
}

/// A slot of the table: a fingerprint (its two halves: 4-byte words keep the slot at 12
/// bytes) and 0 (empty), a state's number + 1, or [`FRESH`] and a fresh state's place.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: [u32; 2],
    number: u32,
}

impl Slot {
    fn key(self) -> u64 {
        u64::from(self.key[0]) | u64::from(self.key[1]) << 32
    }
}

/// A segment of the table: its slots (any count, not only a power of two: a key's first
/// slot is its mixed bits scaled to the count), probed linearly from there.
struct Seg {
    slots: Vec<Slot>,
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

/// `key` mixed: its top bits name its slot in a segment, its middle ones its segment (a
/// test's weak fingerprints keep only low bits, which the multiply carries up).
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

/// The slot `key` is first looked for among `slots`: its mixed bits as a fraction of them.
fn home(key: u64, slots: usize) -> usize {
    ((u128::from(spread(key)) * slots as u128) >> 64) as usize
}

/// The slots a segment of `slots` grows to: a quarter more (at least 16), so that a
/// segment just grown is still near two thirds full (a doubling left it two fifths full).
fn grown(slots: usize) -> usize {
    slots + (slots / 4).max(16)
}

impl Seg {
    fn new() -> Seg {
        Seg {
            slots: vec![Slot::default(); FIRST_SLOTS],
            taken: 0,
        }
    }

    /// The number in the slot of the state keyed `key` (a numbered state's number + 1, or
    /// a fresh one's mark), or (`Err`) the empty slot where it would go.
    fn find(&self, key: u64) -> Result<u32, usize> {
        let len = self.slots.len();
        let mut at = home(key, len);
        loop {
            let slot = self.slots[at];
            if slot.number == 0 {
                return Err(at);
            }
            if slot.key() == key {
                return Ok(slot.number);
            }
            at += 1;
            if at == len {
                at = 0;
            }
        }
    }

    /// Whether one more state takes it past four fifths full.
    fn full(&self) -> bool {
        5 * (self.taken + 1) > 4 * self.slots.len()
    }

    /// A quarter more slots ([`grown`]), every state placed again (a fresh one's slot
    /// said in `fresh`; the segment is `seg`).
    fn grow(&mut self, fresh: &mut Fresh, seg: u32) {
        let len = grown(self.slots.len());
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); len]);
        for slot in old.into_iter().filter(|slot| slot.number != 0) {
            let mut at = home(slot.key(), len);
            while self.slots[at].number != 0 {
                at += 1;
                if at == len {
                    at = 0;
                }
            }
            self.slots[at] = slot;
            if slot.number & FRESH != 0 {
                fresh.slots[(slot.number & !FRESH) as usize] = (seg, at as u32);
            }
        }
    }

    /// `key` set in empty slot `at` with `number` (after a growth if it takes the segment
    /// past four fifths full: then its slot is found again): the slot it is in.
    fn put(&mut self, at: usize, key: u64, number: u32, fresh: &mut Fresh, seg: u32) -> usize {
        let mut at = at;
        if self.full() {
            self.grow(fresh, seg);
            at = self.find(key).err().unwrap_or_default();
        }
        self.slots[at] = Slot {
            key: [key as u32, (key >> 32) as u32],
            number,
        };
        self.taken += 1;
        at
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
        fresh: &mut Fresh,
        (key, from, at): (u64, u64, (u32, u32)),
    ) -> bool {
        let s = seg_of(key);
        let seg = &mut self.segs[s];
        let Err(slot) = seg.find(key) else {
            return false;
        };
        let place = fresh.keys.len() as u32;
        let slot = seg.put(slot, key, place | FRESH, fresh, s as u32);
        fresh.keys.push(key);
        fresh.from.push(from);
        fresh.at.push(at);
        fresh.slots.push((s as u32, slot as u32));
        true
    }

    /// The fresh states of `fresh` numbered `numbers` (in their order).
    pub(super) fn number(&mut self, fresh: &Fresh, numbers: &[u32]) {
        for (&(seg, slot), &number) in fresh.slots.iter().zip(numbers) {
            self.segs[seg as usize].slots[slot as usize].number = number + 1;
        }
    }
}

impl Seen {
    /// No state yet, its table in `parts` parts (one a thread that searches).
    pub(super) fn new(parts: usize) -> Seen {
        Seen {
            parents: Chunks::new(),
            parts: (0..parts.max(1)).map(|_| Part::new()).collect(),
            slots: FIRST_SLOTS * SEGMENTS,
        }
    }

    /// States met.
    pub(super) fn len(&self) -> usize {
        self.parents.len
    }

    /// State `number`'s first parent ([`NO_PARENT`] for the start).
    pub(super) fn parent(&self, number: u32) -> u32 {
        self.parents.get(number as usize)
    }

    /// The bytes its list and table hold (their capacities).
    pub(super) fn bytes(&self) -> u64 {
        (4 * self.parents.capacity() + SLOT_BYTES * self.slots) as u64
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

    /// The bytes a new state keyed `key` adds to the table's: its segment's new slots
    /// where it takes the segment past four fifths full (the old ones are freed after).
    pub(super) fn growth(&self, key: u64) -> u64 {
        let seg = self.seg(key);
        if seg.full() {
            (SLOT_BYTES * grown(seg.slots.len())) as u64
        } else {
            0
        }
    }

    /// The most bytes it holds, its list's and table's growths counted, once `more`
    /// states are added (wherever they fall): its list's chunks, and its segments each at
    /// most two slots a state (grown by a quarter once past four fifths full: 1.5625
    /// slots a state, or its first slots), one of them held twice as it grows.
    pub(super) fn bytes_with(&self, more: usize) -> u64 {
        let want = self.len() + more;
        let list = self.parents.capacity().max(want.next_multiple_of(CHUNK));
        let slots = self.slots;
        let widest = self.segs().map(|s| s.slots.len()).max().unwrap_or(0);
        let table = slots + 2 * want + 2 * widest.max(2 * more);
        (4 * list + SLOT_BYTES * table) as u64
    }

    /// The number of the state keyed `key`, or (`Err`) the empty slot where it would go.
    pub(super) fn find(&self, key: u64) -> Result<u32, usize> {
        self.seg(key).find(key).map(|slot| slot - 1)
    }

    /// A new state keyed `key` (not met: `slot` is where [`Seen::find`] said it would go),
    /// reached first from `parent`: its number.
    pub(super) fn insert(&mut self, slot: usize, key: u64, parent: u32) -> u32 {
        let number = self.push(parent);
        let count = self.parts.len();
        let s = seg_of(key);
        let seg = &mut self.parts[part_of(key, count)].segs[s];
        let before = seg.slots.len();
        seg.put(slot, key, number + 1, &mut Fresh::default(), s as u32);
        self.slots += seg.slots.len() - before;
        number
    }

    /// A state numbered, reached first from `parent` (its slot set apart).
    pub(super) fn push(&mut self, parent: u32) -> u32 {
        let number = self.parents.len as u32;
        self.parents.push(parent);
        number
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

    /// The bytes the budget reads at every new state, kept as the list and the table grow,
    /// are those summed over every chunk and segment afresh, at every size.
    #[test]
    fn bytes_kept_are_the_bytes_summed() {
        // The sum over every chunk and every counted segment, made afresh.
        let summed = |seen: &Seen| {
            let parents: usize = seen.parents.chunks.iter().map(Vec::capacity).sum();
            let slots: usize = seen.segs().map(|s| s.slots.len()).sum();
            (4 * parents + SLOT_BYTES * slots) as u64
        };
        let mut seen = Seen::new(1);
        // Past a chunk (65,536 entries) and every segment's first few growths.
        for n in 0..70_000u64 {
            if n % 97 == 0 || (65_530..65_540).contains(&n) {
                assert_eq!(seen.bytes(), summed(&seen), "{n} states");
            }
            let key = n.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
            let slot = seen.find(key).expect_err("new");
            let growth = seen.growth(key);
            let before = seen.bytes();
            seen.insert(slot, key, 0);
            // A growth said ahead is the new slots' bytes; the old ones are freed.
            let grown_by = seen.bytes() - before;
            assert!(grown_by <= growth + 4 * CHUNK as u64, "{n}");
            assert!(seen.bytes_with(0) >= seen.bytes(), "{n}");
        }
        assert_eq!(seen.bytes(), summed(&seen));
        // The parts lent and put back, grown meanwhile on their own.
        let mut parts = seen.take_parts();
        let mut fresh = Fresh::default();
        for n in 0..5_000u64 {
            parts[0].meet(&mut fresh, (n << 20 | 3, n, (0, 0)));
        }
        seen.put_parts(parts);
        assert_eq!(seen.bytes(), summed(&seen));
    }

    /// Every key inserted is found again with its number and parent, through several
    /// growths; a key never inserted is not; every segment stays at most four fifths full
    /// and, once grown, more than half full.
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
        // 10,000 states in 64 segments, about 156 each.
        for seg in seen.segs() {
            let len = seg.slots.len();
            assert!(5 * seg.taken <= 4 * len && 2 * seg.taken > len, "{len}");
        }
        assert_eq!(seen.segs().map(|s| s.taken).sum::<usize>(), 10_000);
        // 9 → 4 → 2 → 1 → 0.
        assert_eq!(seen.chain(9), vec![0, 1, 2, 4, 9]);
    }

    /// The key whose mixed bits ([`spread`]) are `mixed` (the multiply undone: its
    /// constant is odd, so it has an inverse modulo 2⁶⁴, found by Newton's steps).
    fn unmixed(mixed: u64) -> u64 {
        let m = 0x9E37_79B9_7F4A_7C15u64;
        let mut inverse = m;
        for _ in 0..6 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(inverse)));
        }
        assert_eq!(m.wrapping_mul(inverse), 1);
        mixed.wrapping_mul(inverse)
    }

    /// Keys that share their first slot and their segment (their mixed bits alike but for
    /// a few low ones, planted) probe past one another: each is found with its own number,
    /// on one thread's table and as fresh states of a part, through the growths they
    /// cause; a key of the same slot never put is not found. Keys that share their high
    /// half, or their low one, are told apart too. (A probe that stops at the first key of
    /// its slot, or a slot compared by one half of its fingerprint, fails it.)
    #[test]
    fn keys_of_one_slot_are_told_apart_by_their_whole_fingerprint() {
        let keys: Vec<u64> = (0..300u64)
            .map(|n| unmixed(0xABCD_EF01_2300_0000 | n << 1))
            .collect();
        let absent = unmixed(0xABCD_EF01_2300_0000 | 999 << 1);
        assert!(keys.iter().all(|&k| seg_of(k) == seg_of(keys[0])));
        assert!(
            keys.iter()
                .all(|&k| home(k, 1 << 20) == home(keys[0], 1 << 20))
        );
        // One thread: numbered in the order put.
        let mut seen = Seen::new(1);
        for (n, &key) in keys.iter().enumerate() {
            let slot = seen.find(key).expect_err("new");
            assert_eq!(seen.insert(slot, key, n as u32), n as u32);
        }
        for (n, &key) in keys.iter().enumerate() {
            assert_eq!(seen.find(key), Ok(n as u32), "{n}");
        }
        assert!(seen.find(absent).is_err());
        // Halves alike: 5,000 keys of one high half, 5,000 of one low half.
        let mut seen = Seen::new(1);
        let halves = |n: u64| {
            if n < 5_000 {
                0x1234_5678 << 32 | n
            } else {
                n << 32 | 0x9abc
            }
        };
        for n in 0..10_000u64 {
            let slot = seen.find(halves(n)).expect_err("new");
            seen.insert(slot, halves(n), 0);
        }
        for n in 0..10_000u64 {
            assert_eq!(seen.find(halves(n)), Ok(n as u32), "{n}");
        }
        assert!(seen.find(0x1234_5678 << 32 | 5_000).is_err());
        // A part's fresh states: each met once, then numbered in reverse.
        let mut part = Part::new();
        let mut fresh = Fresh::default();
        for (n, &key) in keys.iter().enumerate() {
            assert!(part.meet(&mut fresh, (key, n as u64, (0, 0))));
        }
        assert!(keys.iter().all(|&k| !part.meet(&mut fresh, (k, 0, (0, 0)))));
        let numbers: Vec<u32> = (0..keys.len() as u32).rev().collect();
        part.number(&fresh, &numbers);
        let mut seen = Seen::new(1);
        seen.put_parts(vec![part]);
        for (n, &key) in keys.iter().enumerate() {
            assert_eq!(seen.find(key), Ok(numbers[n]), "{n}");
        }
        assert!(seen.find(absent).is_err());
    }
}
