//! The seen set: each merged state's 64-bit fingerprint and its node, in 256 segments that
//! grow one at a time. One table grown by doubling holds its old buckets and its new ones at
//! once, half again its size near the search's end; a segment that doubles holds a 256th of
//! that beside the rest. A bucket keeps the fingerprint as two 32-bit halves beside its node
//! (12 bytes and the table's control byte, where a `(u64, u32)` pair takes 16 for its
//! alignment).
//!
//! The segments' shares are unequal on purpose: segment `s` takes about `2^(s/256)` parts
//! of the fingerprints, so their shares span one doubling and they double at 256 different
//! sizes of the set, not all near one. Equal shares fill every segment alike: just past a
//! doubling every table is 7/16 full (the set twice the room it needs), just before it 7/8.
//! Staggered, the set is always about as full as that swing's mean, about 63 %, and grows
//! by a 256th of itself at a time rather than twice at once.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// Segments of the set.
const SEGMENTS: usize = 256;

/// Bits of a fingerprint that choose its segment (through [`CHOOSER`]).
const CHOOSER_BITS: u32 = 12;

/// Where in the fingerprint the chooser's bits are: above those a segment's table takes its
/// bucket from (its low bits, up to 2^45 buckets) and below the seven it filters a probe's
/// group with (its top bits).
const CHOOSER_SHIFT: u32 = 45;

/// Each value of the chooser's bits, its segment: segment `s` takes the values `v` with
/// `s <= 256 × log2(1 + v / 4096) < s + 1`, about `11 × 2^(s/256)` of the 4,096.
static CHOOSER: [u8; 1 << CHOOSER_BITS] = chooser();

/// [`CHOOSER`]'s table, each value by its middle.
const fn chooser() -> [u8; 1 << CHOOSER_BITS] {
    // 2^(1/256): one segment's share over the one before it.
    const STEP: f64 = 1.002_711_275_050_202_5;
    let values = 1usize << CHOOSER_BITS;
    let mut table = [0u8; 1 << CHOOSER_BITS];
    // 2^((segment + 1) / 256): where the next segment begins, as 1 + v / 4096.
    let (mut segment, mut bound) = (0usize, STEP);
    let mut value = 0;
    while value < values {
        let middle = 1.0 + (value as f64 + 0.5) / values as f64;
        while segment < SEGMENTS - 1 && middle >= bound {
            segment += 1;
            bound *= STEP;
        }
        table[value] = segment as u8;
        value += 1;
    }
    table
}

/// Bytes a bucket takes: a key, its node and the table's control byte.
const BUCKET_BYTES: usize = std::mem::size_of::<(Key, u32)>() + 1;

/// Control bytes a table takes past its buckets' (a probe's group read past the last
/// bucket: SSE2's 16).
const GROUP_BYTES: usize = 16;

/// A fingerprint as two 32-bit halves: 4-byte aligned, so a bucket is 12 bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key([u32; 2]);

impl Key {
    fn of(fingerprint: u64) -> Key {
        Key([fingerprint as u32, (fingerprint >> 32) as u32])
    }

    fn fingerprint(self) -> u64 {
        u64::from(self.0[0]) | (u64::from(self.0[1]) << 32)
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.fingerprint());
    }
}

/// A hasher that takes a fingerprint as its own hash: fingerprints are well-mixed hashes
/// already (xxh3, or the flat back end's multiply-fold).
#[derive(Default)]
struct AsIs(u64);

impl Hasher for AsIs {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is called (a `Key`'s hash): anything else folds in byte by byte.
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = word;
    }
}

type Segment = HashMap<Key, u32, BuildHasherDefault<AsIs>>;

/// Each merged state's fingerprint and its node, in segments that grow one at a time.
#[derive(Default)]
pub(super) struct SeenSet {
    /// Empty until the first insert (a search of a few states makes a few segments).
    segments: Vec<Segment>,
    len: usize,
    /// [`SeenSet::bytes_of`] its segments' lengths, kept as they grow.
    bytes: u64,
}

impl SeenSet {
    fn segment(fingerprint: u64) -> usize {
        usize::from(CHOOSER[(fingerprint >> CHOOSER_SHIFT) as usize & ((1 << CHOOSER_BITS) - 1)])
    }

    /// The node of the state with `fingerprint`, if one was merged.
    pub(super) fn get(&self, fingerprint: u64) -> Option<u32> {
        self.segments
            .get(Self::segment(fingerprint))?
            .get(&Key::of(fingerprint))
            .copied()
    }

    /// Whether a state with `fingerprint` was merged.
    pub(super) fn contains(&self, fingerprint: u64) -> bool {
        self.get(fingerprint).is_some()
    }

    /// `fingerprint`'s state is node `node` (a fingerprint kept already keeps its first).
    pub(super) fn insert(&mut self, fingerprint: u64, node: u32) {
        if self.segments.is_empty() {
            self.segments = (0..SEGMENTS).map(|_| Segment::default()).collect();
        }
        let segment = &mut self.segments[Self::segment(fingerprint)];
        if let std::collections::hash_map::Entry::Vacant(vacant) =
            segment.entry(Key::of(fingerprint))
        {
            vacant.insert(node);
            self.len += 1;
            let held = segment.len();
            self.bytes += Self::bytes_of(held) - Self::bytes_of(held - 1);
        }
    }

    /// Whether it holds none.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every fingerprint of `young` moved in (`young` left empty, its tables kept).
    pub(super) fn take_in(&mut self, young: &mut SeenSet) {
        if young.is_empty() {
            return;
        }
        for segment in &mut young.segments {
            for (key, node) in segment.drain() {
                self.insert(key.fingerprint(), node);
            }
        }
        young.len = 0;
        young.bytes = 0;
    }

    /// Every fingerprint dropped (the tables kept).
    pub(super) fn clear(&mut self) {
        for segment in &mut self.segments {
            segment.clear();
        }
        self.len = 0;
        self.bytes = 0;
    }

    /// The bytes one set holding this one's fingerprints and `other`'s (none in both) would
    /// take, grown by inserts: each segment's table in the least power of two of buckets (at
    /// least 4) its fingerprints fit in at most 7/8 full from 8 buckets on, as the standard
    /// map grows it. A function of how many fingerprints each segment holds, so the same
    /// whichever way the two were filled (folded now and then, when depends on the threads).
    pub(super) fn bytes_with(&self, other: &SeenSet) -> u64 {
        if other.is_empty() {
            return self.bytes;
        }
        if self.is_empty() {
            return other.bytes;
        }
        (self.segments.iter().zip(&other.segments))
            .map(|(mine, theirs)| Self::bytes_of(mine.len() + theirs.len()))
            .sum()
    }

    /// The bytes a segment of `len` fingerprints takes, grown by inserts.
    fn bytes_of(len: usize) -> u64 {
        if len == 0 {
            return 0;
        }
        let buckets = if len < 4 {
            4
        } else if len < 8 {
            8
        } else {
            (len * 8 / 7).next_power_of_two()
        };
        (buckets * BUCKET_BYTES + GROUP_BYTES) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_is_thirteen_bytes() {
        // Two u32 halves and a u32 node (12, aligned to 4) and the control byte.
        assert_eq!(BUCKET_BYTES, 13);
    }

    #[test]
    fn keeps_each_fingerprint_once_with_its_first_node() {
        let mut set = SeenSet::default();
        // SplitMix64-spread fingerprints, and some that differ in one half or one segment.
        let mut fingerprints: Vec<u64> = (0..10_000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))
            .collect();
        // (The first, i = 0, is 0.)
        fingerprints.extend([1, 1 << 32, 1 << CHOOSER_SHIFT, u64::MAX]);
        for (node, &f) in fingerprints.iter().enumerate() {
            set.insert(f, node as u32);
        }
        // A second insert keeps the first node.
        set.insert(fingerprints[3], 99_999);
        assert_eq!(set.len, fingerprints.len());
        for (node, &f) in fingerprints.iter().enumerate() {
            assert_eq!(set.get(f), Some(node as u32));
        }
        assert!(!set.contains(2));
        let mut young = SeenSet::default();
        young.insert(2, 7);
        young.insert(0, 8);
        set.take_in(&mut young);
        assert!(young.is_empty() && young.get(2).is_none());
        assert_eq!((set.get(2), set.get(0)), (Some(7), Some(0)));
        assert_eq!(set.len, fingerprints.len() + 1);
        set.clear();
        assert!(set.is_empty() && !set.contains(0));
    }

    /// A fingerprint whose chooser's bits are `value`, the rest from `rest`.
    fn with_chooser(rest: u64, value: u64) -> u64 {
        let mask = ((1u64 << CHOOSER_BITS) - 1) << CHOOSER_SHIFT;
        (rest & !mask) | (value << CHOOSER_SHIFT)
    }

    /// SplitMix64's `i`-th output: fingerprints as uniform as xxh3's.
    fn spread(i: u64) -> u64 {
        let mut z = (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn the_segments_shares_span_one_doubling() {
        let mut shares = [0usize; SEGMENTS];
        for value in 0..1u64 << CHOOSER_BITS {
            shares[SeenSet::segment(with_chooser(u64::MAX, value))] += 1;
        }
        // Segment s: 4096 × (2^((s+1)/256) − 2^(s/256)) values, 4096 × ln 2 / 256 × 2^(s/256)
        // ≈ 11.09 × 2^(s/256): 11 for the first, 22 for the last (11.09 × 2^(255/256)
        // ≈ 22.12), never fewer than the segment before but by the rounding of one.
        assert_eq!(shares.iter().sum::<usize>(), 1 << CHOOSER_BITS);
        assert_eq!((shares[0], shares[SEGMENTS - 1]), (11, 22));
        for s in 1..SEGMENTS {
            assert!(shares[s] + 1 >= shares[s - 1], "segment {s}: {shares:?}");
            let expected =
                4096.0 * (2f64.powf((s + 1) as f64 / 256.0) - 2f64.powf(s as f64 / 256.0));
            assert!(
                (shares[s] as f64 - expected).abs() <= 1.0,
                "segment {s}: {}",
                shares[s]
            );
        }
    }

    /// The buckets of a table whose `capacity` the standard map says: 7/8 of them from 8
    /// on, all but one below.
    fn buckets_of(capacity: usize) -> usize {
        if capacity < 8 {
            capacity + 1
        } else {
            capacity / 7 * 8
        }
    }

    #[test]
    fn its_bytes_are_its_tables_near_every_doubling() {
        // Filled one fingerprint at a time, the estimate is the tables' own buckets (13
        // bytes each) and group tails, read from the map at every size up to 40,000 (each
        // segment past 64 fingerprints: past several doublings each, at sizes all apart).
        let (mut set, mut young) = (SeenSet::default(), SeenSet::default());
        assert_eq!(set.bytes_with(&young), 0);
        for i in 0..40_000u64 {
            set.insert(spread(i), i as u32);
            let tables: u64 = (set.segments.iter())
                .filter(|segment| segment.capacity() > 0)
                .map(|segment| (buckets_of(segment.capacity()) * 13 + 16) as u64)
                .sum();
            assert_eq!(set.bytes_with(&young), tables, "{} fingerprints", i + 1);
        }
        // One fingerprint: one segment of 4 buckets.
        let mut one = SeenSet::default();
        one.insert(7, 0);
        assert_eq!(one.bytes_with(&young), 4 * 13 + 16);
        // The same fingerprints in two sets: the one set's bytes, whichever holds which.
        let whole = set.bytes_with(&young);
        let mut first = SeenSet::default();
        for i in 0..40_000u64 {
            let into = if i % 3 == 0 { &mut first } else { &mut young };
            into.insert(spread(i), i as u32);
        }
        assert_eq!(
            (first.bytes_with(&young), young.bytes_with(&first)),
            (whole, whole)
        );
        first.take_in(&mut young);
        assert_eq!(
            (first.bytes_with(&young), young.bytes_with(&first)),
            (whole, whole)
        );
    }

    #[test]
    fn it_never_takes_twice_the_room_it_needs() {
        // Equal shares would leave every segment 7/16 full just past their doubling (256 ×
        // 512 × 7/8 = 114,688 fingerprints): 2.29 buckets a fingerprint at 114,689. The
        // staggered shares' worst from 60,000 to 250,000 fingerprints (segments of 230 to
        // 1,000: two doublings each) is 1.70 (their mean about 1/0.63 = 1.59; the shares,
        // rounded to 11 to 22 parts of 4,096, bunch some doublings): at most 1.75.
        let mut set = SeenSet::default();
        let mut worst = 0f64;
        for i in 0..250_000u64 {
            set.insert(spread(i), i as u32);
            if i >= 60_000 && i % 97 == 0 {
                let buckets = (set.bytes_with(&SeenSet::default()) - 256 * 16) as f64 / 13.0;
                worst = worst.max(buckets / (i + 1) as f64);
            }
        }
        assert!(worst < 1.75, "{worst} buckets a fingerprint");
    }

    proptest::proptest! {
        /// Filled through any number of young sets folded in (as the threads' search does,
        /// at times that depend on the threads), the set answers as one map filled in order:
        /// each fingerprint its first node, the same length. Fingerprints are drawn from a
        /// small range too (so that many repeat) and with the segment's bits alike.
        #[test]
        fn folded_sets_answer_as_one_map(
            keys in proptest::collection::vec((0u64..64, proptest::prelude::any::<u64>(), 0u8..3), 0..600),
            folds in proptest::collection::vec(0usize..600, 0..8),
        ) {
            let mut map = std::collections::HashMap::new();
            let (mut set, mut young) = (SeenSet::default(), SeenSet::default());
            for (node, &(small, wide, kind)) in keys.iter().enumerate() {
                let fingerprint = match kind {
                    0 => small,
                    1 => wide,
                    _ => with_chooser(wide, 3),
                };
                // The merge looks in both before it inserts into the young one.
                if set.get(fingerprint).or(young.get(fingerprint)).is_none() {
                    young.insert(fingerprint, node as u32);
                }
                map.entry(fingerprint).or_insert(node as u32);
                if folds.contains(&node) {
                    set.take_in(&mut young);
                }
            }
            set.take_in(&mut young);
            proptest::prop_assert_eq!(set.len, map.len());
            proptest::prop_assert!(young.is_empty());
            for (&fingerprint, &node) in &map {
                proptest::prop_assert_eq!(set.get(fingerprint), Some(node));
            }
        }
    }
}
