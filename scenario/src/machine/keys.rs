//! A key store: a set of whole-number keys, each with a number stored with it — a unique
//! index (an insert finds the key already there), a deduplication table, an idempotency-key
//! store that keeps each request's response, or a table of rows (a member's open loans).

use rustc_hash::FxHashMap;

/// Keys are whole numbers of at most 2^53 in size, where every whole number is exact.
pub(crate) const KEY_LIMIT: f64 = 9_007_199_254_740_992.0;

/// A number as a key, if it is a whole number no larger than [`KEY_LIMIT`].
pub(crate) fn key_of(number: f64) -> Option<i64> {
    // A cast and back, not `fract`: a key is computed on every key store's step. The
    // size first: NaN and the infinities fail it, and the cast of what passes it is exact.
    let small = number.abs() <= KEY_LIMIT;
    if !small {
        return None;
    }
    let key = number as i64;
    (key as f64 == number).then_some(key)
}

/// Why a number is no key.
pub(crate) fn bad_key(number: f64) -> String {
    format!(
        "a key is a whole number from -2^53 to 2^53, got {}",
        coordsim_model::number_text(number)
    )
}

/// What an operation found or did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Found {
    /// The key was absent (an insert added it; a set added it).
    Absent,
    /// The key held this number.
    Held(f64),
}

/// One key store during a run. Keys in one run of consecutive numbers (a range at the
/// start, ids inserted in order: a book's, a message's) live in a plain array from `base`;
/// the others in a hash map. The total of the numbers is kept as they change, so the run
/// never walks the map (whose order is not the keys').
#[derive(Debug, Default)]
pub(crate) struct KeyStore {
    /// A range it started with that no step has changed yet: `count` keys from `from`,
    /// each holding `value`, answered by arithmetic. The first change lays it out in the
    /// array (a range nobody changes takes no memory).
    range: Option<(i64, u64, f64)>,
    base: i64,
    values: Vec<f64>,
    present: Vec<bool>,
    map: FxHashMap<i64, f64>,
    size: u64,
    total: f64,
    pub inserted: u64,
    pub duplicates: u64,
    pub removed: u64,
    pub updated: u64,
}

sim_core::clone_in_place!(KeyStore {
    range,
    base,
    values,
    present,
    map,
    size,
    total,
    inserted,
    duplicates,
    removed,
    updated
});

impl std::hash::Hash for KeyUndo {
    fn hash<H: std::hash::Hasher>(&self, hasher: &mut H) {
        (self.key, self.counter).hash(hasher);
        // Tagged: a key held at 0.0 (bits 0) is not a key absent.
        match self.before {
            Found::Absent => hasher.write_u8(0),
            Found::Held(value) => {
                hasher.write_u8(1);
                crate::machine::hash_f64(value, hasher);
            }
        }
        crate::machine::hash_f64(self.total, hasher);
    }
}

/// What undoes one operation of a transaction.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyUndo {
    key: i64,
    before: Found,
    total: f64,
    counter: u8,
}

impl KeyUndo {
    /// What the key held before the operation.
    pub(crate) fn before(&self) -> Found {
        self.before
    }
}

impl std::hash::Hash for KeyStore {
    /// The keys it holds and its counts; the entries beyond the array in key order (a
    /// map's own order depends on its history).
    fn hash<H: std::hash::Hasher>(&self, hasher: &mut H) {
        use crate::machine::hash_f64;
        // Whether there is a range, and how many array entries, written first: no two
        // stores' words run together alike.
        self.range.is_some().hash(hasher);
        if let Some((from, count, value)) = self.range {
            (from, count).hash(hasher);
            hash_f64(value, hasher);
        }
        self.base.hash(hasher);
        self.values.len().hash(hasher);
        for (value, present) in self.values.iter().zip(&self.present) {
            present.hash(hasher);
            hash_f64(if *present { *value } else { 0.0 }, hasher);
        }
        let mut more: Vec<(i64, u64)> = self.map.iter().map(|(k, v)| (*k, v.to_bits())).collect();
        more.sort_unstable();
        more.hash(hasher);
        hash_f64(self.total, hasher);
        (
            self.size,
            self.inserted,
            self.duplicates,
            self.removed,
            self.updated,
        )
            .hash(hasher);
    }
}

impl KeyStore {
    /// A store holding `initial` (a later pair for a key replaces an earlier one), with room
    /// for `more` keys besides.
    pub(crate) fn new(initial: &[(i64, f64)], more: usize) -> KeyStore {
        let mut store = KeyStore::default();
        store.values.reserve(initial.len().saturating_add(more));
        store.present.reserve(initial.len().saturating_add(more));
        for &(key, value) in initial {
            store.store(key, value);
        }
        store
    }

    /// A store holding `count` keys from `from`, each with `value`, laid out only when a
    /// key changes (then with room for `more` besides).
    pub(crate) fn range(from: i64, count: u64, value: f64, more: usize) -> KeyStore {
        let mut store = KeyStore {
            size: count,
            ..KeyStore::default()
        };
        // Added one by one, as storing each key would: the same total to the last bit.
        for _ in 0..count {
            store.total += value;
        }
        if count > 0 {
            store.range = Some((from, count, value));
            store.values.reserve(more);
            store.present.reserve(more);
        }
        store
    }

    /// Lays out a range not yet changed in the array, before its first change.
    #[inline(always)]
    fn lay_out(&mut self) {
        if self.range.is_some() {
            self.lay_out_range();
        }
    }

    /// [`KeyStore::lay_out`]'s work, once a run.
    #[cold]
    #[inline(never)]
    fn lay_out_range(&mut self) {
        if let Some((from, count, value)) = self.range.take() {
            // Nothing else was stored while the range was kept aside.
            debug_assert!(self.values.is_empty() && self.map.is_empty());
            let len = count as usize;
            self.base = from;
            self.values.extend(std::iter::repeat_n(value, len));
            self.present.extend(std::iter::repeat_n(true, len));
        }
    }

    /// The index of `key` in the array, if it is in its run.
    #[inline]
    fn slot(&self, key: i64) -> Option<usize> {
        let offset = key.checked_sub(self.base)?;
        (offset >= 0 && (offset as usize) < self.values.len()).then_some(offset as usize)
    }

    /// The number stored with `key`, if any.
    #[inline]
    pub(crate) fn get(&self, key: i64) -> Found {
        if let Some((from, count, value)) = self.range {
            // Nothing else is stored yet: the range is all there is.
            let in_range = key
                .checked_sub(from)
                .is_some_and(|i| i >= 0 && (i as u64) < count);
            return if in_range {
                Found::Held(value)
            } else {
                Found::Absent
            };
        }
        match self.slot(key) {
            Some(i) if self.present[i] => Found::Held(self.values[i]),
            Some(_) => Found::Absent,
            None => self
                .map
                .get(&key)
                .map_or(Found::Absent, |v| Found::Held(*v)),
        }
    }

    /// Stores `value` with `key`: what was there.
    fn store(&mut self, key: i64, value: f64) -> Found {
        let before = self.get(key);
        self.store_over(key, value, before);
        before
    }

    /// Stores `value` with `key`, which holds `before` (as [`KeyStore::get`] says): one
    /// look for the key per operation, not one per part of it.
    #[inline]
    fn store_over(&mut self, key: i64, value: f64, before: Found) {
        // What the range held, it holds laid out: `before` stays what `get` says.
        self.lay_out();
        if let Found::Held(old) = before {
            self.total -= old;
        } else {
            self.size += 1;
        }
        self.total += value;
        if let Some(index) = self.slot(key) {
            self.values[index] = value;
            self.present[index] = true;
        } else if (self.values.is_empty() || key == self.base + self.values.len() as i64)
            && before == Found::Absent
        {
            // The run goes on (or begins) with this key (absent: in no map either).
            if self.values.is_empty() {
                self.base = key;
            }
            self.values.push(value);
            self.present.push(true);
        } else {
            self.map.insert(key, value);
        }
    }

    /// Removes `key`: what it held.
    fn delete(&mut self, key: i64) -> Found {
        let before = self.get(key);
        self.delete_over(key, before);
        before
    }

    /// Removes `key`, which holds `before` (as [`KeyStore::get`] says).
    #[inline]
    fn delete_over(&mut self, key: i64, before: Found) {
        self.lay_out();
        if let Found::Held(old) = before {
            match self.slot(key) {
                Some(index) => self.present[index] = false,
                None => {
                    self.map.remove(&key);
                }
            }
            self.total -= old;
            self.size -= 1;
        }
    }

    /// Inserts `key` with `value` unless present: what was there before.
    #[inline]
    pub(crate) fn insert(&mut self, key: i64, value: f64) -> (Found, KeyUndo) {
        let before = self.get(key);
        let undo = self.undo(key, before, 0);
        match before {
            Found::Absent => {
                self.store_over(key, value, before);
                self.inserted += 1;
                (Found::Absent, undo)
            }
            held => {
                self.duplicates += 1;
                (held, KeyUndo { counter: 1, ..undo })
            }
        }
    }

    /// Stores `value` with `key`, present or not.
    #[inline]
    pub(crate) fn set(&mut self, key: i64, value: f64) -> KeyUndo {
        let before = self.get(key);
        let undo = self.undo(key, before, 2);
        self.store_over(key, value, before);
        self.updated += 1;
        undo
    }

    /// Removes `key`: what it held.
    #[inline]
    pub(crate) fn remove(&mut self, key: i64) -> (Found, KeyUndo) {
        let before = self.get(key);
        let undo = self.undo(key, before, 3);
        self.delete_over(key, before);
        match before {
            Found::Absent => (Found::Absent, KeyUndo { counter: 4, ..undo }),
            held => {
                self.removed += 1;
                (held, undo)
            }
        }
    }

    /// What undoes an operation of kind `counter` on `key`, which holds `before`.
    #[inline(always)]
    fn undo(&self, key: i64, before: Found, counter: u8) -> KeyUndo {
        KeyUndo {
            key,
            before,
            total: self.total,
            counter,
        }
    }

    /// Undoes an operation (the last not yet undone).
    pub(crate) fn restore(&mut self, undo: KeyUndo) {
        match undo.before {
            Found::Absent => {
                self.delete(undo.key);
            }
            Found::Held(value) => {
                self.store(undo.key, value);
            }
        }
        self.total = undo.total;
        match undo.counter {
            0 if undo.before == Found::Absent => self.inserted -= 1,
            0 | 1 => self.duplicates -= 1,
            2 => self.updated -= 1,
            3 => self.removed -= 1,
            _ => {}
        }
    }

    /// Keys held.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Every key held and its number, by key (a site explorer draws them).
    pub(crate) fn pairs(&self) -> Vec<(i64, f64)> {
        if let Some((from, count, value)) = self.range {
            return (0..count as i64).map(|i| (from + i, value)).collect();
        }
        let laid = (self.values.iter().zip(&self.present).enumerate())
            .filter(|(_, (_, present))| **present)
            .map(|(i, (value, _))| (self.base + i as i64, *value));
        let mut pairs: Vec<(i64, f64)> =
            laid.chain(self.map.iter().map(|(k, v)| (*k, *v))).collect();
        pairs.sort_unstable_by_key(|&(key, _)| key);
        pairs
    }

    /// The numbers stored, added up.
    pub(crate) fn total(&self) -> f64 {
        self.total
    }

    /// How its keys are laid out, as its fingerprint tells them apart: whether a range is
    /// kept aside, the array's first key and its length (the flat back end keeps these as
    /// words of its own, so that its states are the same as the interpreter's).
    pub(crate) fn layout(&self) -> (bool, i64, u64) {
        (self.range.is_some(), self.base, self.values.len() as u64)
    }
}

impl KeyStore {
    /// The bytes its laid-out range and its map take, by their count (an explorer's memory
    /// estimate). The map as hashbrown lays it out: a power of two of buckets past 8/7 of
    /// its keys (at least 4), each an entry and a control byte.
    pub(crate) fn heap_bytes(&self) -> u64 {
        let buckets = match self.map.len() {
            0 => 0,
            keys => (keys * 8).div_ceil(7).next_power_of_two().max(4),
        };
        super::bytes_of::<f64>(self.values.len())
            + super::bytes_of::<bool>(self.present.len())
            + super::bytes_of::<(i64, f64)>(buckets)
            + buckets as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every write widened to a word, as an explorer's fingerprint writes them.
    #[derive(Default)]
    struct Widened(Vec<u64>);

    impl std::hash::Hasher for Widened {
        fn write(&mut self, bytes: &[u8]) {
            self.0.extend(bytes.iter().map(|b| u64::from(*b)));
        }
        fn write_u8(&mut self, x: u8) {
            self.0.push(u64::from(x));
        }
        fn write_u64(&mut self, x: u64) {
            self.0.push(x);
        }
        fn write_usize(&mut self, x: usize) {
            self.0.push(x as u64);
        }
        fn finish(&self) -> u64 {
            0
        }
    }

    fn words(value: &impl std::hash::Hash) -> Vec<u64> {
        let mut hasher = Widened::default();
        value.hash(&mut hasher);
        hasher.0
    }

    /// An undo that brings back a key held at 0 is not one that removes the key: their
    /// words differ, so two transactions that differ only there are two states.
    #[test]
    fn an_undo_of_a_key_held_at_zero_is_not_one_of_an_absent_key() {
        let mut store = KeyStore::new(&[], 2);
        let absent = store.set(7, 1.0);
        let mut store = KeyStore::new(&[(7, 0.0)], 2);
        let held = store.set(7, 1.0);
        assert_eq!(
            (absent.before, held.before),
            (Found::Absent, Found::Held(0.0))
        );
        assert_ne!(words(&absent), words(&held));
    }

    /// A store's words say first whether it keeps a range, and how many array entries
    /// follow its base: stores written one after another cannot run together alike.
    #[test]
    fn a_stores_words_are_prefixed_by_their_shape() {
        let ranged = words(&KeyStore::range(0, 2, 0.0, 0));
        assert_eq!(ranged[0], 1, "a range: {ranged:?}");
        // No range; the base; two entries, each whether it is held and its value.
        let plain = words(&KeyStore::new(&[(0, 0.0), (1, 0.0)], 0));
        assert_eq!((plain[0], plain[2]), (0, 2), "{plain:?}");
        assert_eq!(plain[3..7], [1, 0, 1, 0], "{plain:?}");
    }

    #[test]
    fn an_insert_finds_a_duplicate_and_an_undo_restores_everything() {
        // Keys 4 → 2 and 5 → 3: total 5. Insert 4 again: a duplicate that finds 2.
        let mut store = KeyStore::new(&[(4, 2.0), (5, 3.0)], 0);
        assert_eq!(store.insert(4, 9.0).0, Found::Held(2.0));
        let (found, undo_insert) = store.insert(6, 1.0);
        assert_eq!(found, Found::Absent);
        let undo_set = store.set(4, 7.0);
        let (_, undo_remove) = store.remove(5);
        // 6 → 1, 4 → 7: total 8, two keys.
        assert_eq!((store.total(), store.size()), (8.0, 2));
        for undo in [undo_remove, undo_set, undo_insert] {
            store.restore(undo);
        }
        assert_eq!(
            (store.total(), store.size(), store.get(4), store.get(5)),
            (5.0, 2, Found::Held(2.0), Found::Held(3.0))
        );
        assert_eq!(
            (
                store.inserted,
                store.duplicates,
                store.updated,
                store.removed
            ),
            (0, 1, 0, 0)
        );
    }

    proptest::proptest! {
        /// A range kept aside answers every operation as the same keys stored one by one
        /// do: the same finds, sizes, totals and undos, whatever is inserted, set, removed
        /// or rolled back, inside the range and out of it.
        #[test]
        fn a_range_kept_aside_behaves_as_its_keys_stored_one_by_one(
            from in -5i64..5,
            count in 0u64..40,
            value in -3.0f64..3.0,
            operations in proptest::collection::vec((0u8..5, -10i64..50, -4.0f64..4.0), 0..60),
        ) {
            let pairs: Vec<(i64, f64)> = (0..count as i64).map(|i| (from + i, value)).collect();
            let mut stored = KeyStore::new(&pairs, 0);
            let mut kept = KeyStore::range(from, count, value, 0);
            let mut undos = Vec::new();
            for (operation, key, number) in operations {
                let (from_stored, from_kept) = match operation {
                    0 => (stored.insert(key, number), kept.insert(key, number)),
                    1 => (stored.remove(key), kept.remove(key)),
                    2 => ((Found::Absent, stored.set(key, number)), (Found::Absent, kept.set(key, number))),
                    3 => {
                        if let Some((undo_stored, undo_kept)) = undos.pop() {
                            stored.restore(undo_stored);
                            kept.restore(undo_kept);
                        }
                        continue;
                    }
                    _ => ((stored.get(key), stored.undo(key, stored.get(key), 9)), (kept.get(key), kept.undo(key, kept.get(key), 9))),
                };
                proptest::prop_assert_eq!(from_stored.0, from_kept.0);
                if operation < 3 {
                    undos.push((from_stored.1, from_kept.1));
                }
                proptest::prop_assert_eq!(
                    (stored.size(), stored.total().to_bits(), stored.get(key)),
                    (kept.size(), kept.total().to_bits(), kept.get(key))
                );
            }
        }
    }

    #[test]
    fn keys_in_a_run_and_out_of_it_behave_alike() {
        // 10..20 in a run; 5, 25 and 1,000 outside it; then the run grows by appending 20.
        let initial: Vec<(i64, f64)> = (10..20).map(|k| (k, 1.0)).collect();
        let mut store = KeyStore::new(&initial, 4);
        for k in [5, 25, 1000] {
            assert_eq!(store.insert(k, 2.0).0, Found::Absent);
        }
        assert_eq!(store.insert(20, 3.0).0, Found::Absent);
        assert_eq!(store.insert(15, 9.0).0, Found::Held(1.0));
        assert_eq!(store.remove(12).0, Found::Held(1.0));
        assert_eq!(store.remove(12).0, Found::Absent);
        let (_, undo) = store.insert(12, 4.0);
        // Ten keys of 1, 12 now 4 (9 + 4), three of 2 and 20's 3: 22 in 14 keys.
        assert_eq!((store.size(), store.total()), (14, 22.0));
        assert_eq!(
            (store.get(25), store.get(21), store.get(-3)),
            (Found::Held(2.0), Found::Absent, Found::Absent)
        );
        store.restore(undo);
        assert_eq!(
            (store.size(), store.total(), store.get(12)),
            (13, 18.0, Found::Absent)
        );
    }
}

#[cfg(test)]
mod size_tests {
    use super::KeyStore;

    /// The estimate against a hand count: a range nobody changed takes nothing; laid out,
    /// its 1,000 keys take a number (8 bytes) and a flag (1 byte) each: 9,000 bytes. A
    /// store's first key starts its array (9 bytes); two keys far from it go to the map:
    /// 2 × 8 / 7 rounds up to 3, the next power of two is 4 buckets of a 16-byte entry and
    /// a control byte: 68 bytes.
    #[test]
    fn a_stores_bytes_are_counted_by_hand() {
        let mut store = KeyStore::range(0, 1000, 0.0, 0);
        assert_eq!(store.heap_bytes(), 0);
        store.set(5, 1.0);
        assert_eq!(store.heap_bytes(), 1000 * (8 + 1));
        let mut sparse = KeyStore::new(&[], 0);
        sparse.set(0, 1.0);
        sparse.set(-1_000_000_000_000, 1.0);
        sparse.set(1_000_000_000_000, 2.0);
        assert_eq!((sparse.values.len(), sparse.map.len()), (1, 2));
        assert_eq!(sparse.heap_bytes(), 9 + 4 * 16 + 4);
    }
}
