//! The seen set: each merged state's 64-bit fingerprint and its node, in 256 segments (by
//! eight bits of the fingerprint) that grow one at a time. One table grown by doubling holds
//! its old buckets and its new ones at once, half again its size near the search's end; a
//! segment that doubles holds a 256th of that beside the rest. A bucket keeps the fingerprint
//! as two 32-bit halves beside its node (12 bytes and the table's control byte, where a
//! `(u64, u32)` pair takes 16 for its alignment).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// Bits of a fingerprint that choose its segment.
const SEGMENT_BITS: u32 = 8;

/// Segments of the set.
const SEGMENTS: usize = 1 << SEGMENT_BITS;

/// Where in the fingerprint the segment's bits are: above those a segment's table takes its
/// bucket from (its low bits, up to 2^48 buckets) and below the seven it filters a probe's
/// group with (its top bits).
const SEGMENT_SHIFT: u32 = 48;

/// Bytes a bucket takes: a key, its node and the table's control byte.
const BUCKET_BYTES: usize = std::mem::size_of::<(Key, u32)>() + 1;

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
}

impl SeenSet {
    fn segment(fingerprint: u64) -> usize {
        (fingerprint >> SEGMENT_SHIFT) as usize & (SEGMENTS - 1)
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
        }
    }

    /// How many fingerprints it holds.
    pub(super) fn len(&self) -> usize {
        self.len
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
    }

    /// Every fingerprint dropped (the tables kept).
    pub(super) fn clear(&mut self) {
        for segment in &mut self.segments {
            segment.clear();
        }
        self.len = 0;
    }

    /// The bytes a set of `len` fingerprints takes, grown by inserts: each segment holding
    /// its share (the segments hold about as many each, fingerprints being uniform), in the
    /// least power of two of buckets (at least 4) it fits in at most 7/8 full from 8
    /// buckets on. A function of `len` alone, so the same whichever way the set was filled
    /// (two sets folded now and then, when depends on the threads).
    pub(super) fn bytes_for(len: usize) -> u64 {
        if len == 0 {
            return 0;
        }
        let segments = len.min(SEGMENTS);
        let share = len.div_ceil(SEGMENTS);
        let fits = |buckets: usize| {
            if buckets < 8 {
                buckets - 1
            } else {
                buckets / 8 * 7
            }
        };
        let mut buckets = 4;
        while fits(buckets) < share {
            buckets *= 2;
        }
        (segments * buckets * BUCKET_BYTES) as u64
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
        fingerprints.extend([1, 1 << 32, 1 << SEGMENT_SHIFT, u64::MAX]);
        for (node, &f) in fingerprints.iter().enumerate() {
            set.insert(f, node as u32);
        }
        // A second insert keeps the first node.
        set.insert(fingerprints[3], 99_999);
        assert_eq!(set.len(), fingerprints.len());
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
        assert_eq!(set.len(), fingerprints.len() + 1);
        set.clear();
        assert!(set.is_empty() && !set.contains(0));
    }

    #[test]
    fn bytes_follow_the_segments_share() {
        assert_eq!(SeenSet::bytes_for(0), 0);
        // One state: one segment of 4 buckets.
        assert_eq!(SeenSet::bytes_for(1), 4 * 13);
        // 3,892,125 states: 15,204 a segment, past 16,384 buckets' 14,336, so 32,768 a
        // segment; 256 × 32,768 × 13.
        assert_eq!(SeenSet::bytes_for(3_892_125), 256 * 32_768 * 13);
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
                    _ => (wide & !(0xff << SEGMENT_SHIFT)) | (3 << SEGMENT_SHIFT),
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
            proptest::prop_assert_eq!(set.len(), map.len());
            proptest::prop_assert!(young.is_empty());
            for (&fingerprint, &node) in &map {
                proptest::prop_assert_eq!(set.get(fingerprint), Some(node));
            }
        }
    }
}
