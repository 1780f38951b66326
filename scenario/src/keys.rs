//! A key store: a set of whole-number keys, each with a number stored with it — a unique
//! index (an insert finds the key already there), a deduplication table, an idempotency-key
//! store that keeps each request's response, or a table of rows (a member's open loans).

use std::collections::HashMap;

/// What an operation found or did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Found {
    /// The key was absent (an insert added it; a set added it).
    Absent,
    /// The key held this number.
    Held(f64),
}

/// One key store during a run. The total of its numbers is kept as they change, so the
/// run never walks the map (whose order is not fixed).
#[derive(Debug, Clone, Default)]
pub struct KeyStore {
    map: HashMap<i64, f64>,
    total: f64,
    pub inserted: u64,
    pub duplicates: u64,
    pub removed: u64,
    pub updated: u64,
}

/// What undoes one operation of a transaction.
#[derive(Debug, Clone, Copy)]
pub struct KeyUndo {
    key: i64,
    before: Found,
    total: f64,
    counter: u8,
}

impl KeyStore {
    /// A store holding `initial` (a later pair for a key replaces an earlier one).
    pub fn new(initial: &[(i64, f64)]) -> KeyStore {
        let mut s = KeyStore {
            map: HashMap::with_capacity(initial.len()),
            ..KeyStore::default()
        };
        for &(k, v) in initial {
            if let Some(old) = s.map.insert(k, v) {
                s.total -= old;
            }
            s.total += v;
        }
        s
    }

    /// The number stored with `key`, if any.
    pub fn get(&self, key: i64) -> Found {
        self.map
            .get(&key)
            .map_or(Found::Absent, |v| Found::Held(*v))
    }

    /// Inserts `key` with `value` unless present: what was there before.
    pub fn insert(&mut self, key: i64, value: f64) -> (Found, KeyUndo) {
        let undo = self.undo(key, 0);
        match self.get(key) {
            Found::Absent => {
                self.map.insert(key, value);
                self.total += value;
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
    pub fn set(&mut self, key: i64, value: f64) -> KeyUndo {
        let undo = self.undo(key, 2);
        if let Some(old) = self.map.insert(key, value) {
            self.total -= old;
        }
        self.total += value;
        self.updated += 1;
        undo
    }

    /// Removes `key`: what it held.
    pub fn remove(&mut self, key: i64) -> (Found, KeyUndo) {
        let undo = self.undo(key, 3);
        match self.map.remove(&key) {
            Some(old) => {
                self.total -= old;
                self.removed += 1;
                (Found::Held(old), undo)
            }
            None => (Found::Absent, KeyUndo { counter: 4, ..undo }),
        }
    }

    fn undo(&self, key: i64, counter: u8) -> KeyUndo {
        KeyUndo {
            key,
            before: self.get(key),
            total: self.total,
            counter,
        }
    }

    /// Undoes an operation (the last not yet undone).
    pub fn restore(&mut self, u: KeyUndo) {
        match u.before {
            Found::Absent => {
                self.map.remove(&u.key);
            }
            Found::Held(v) => {
                self.map.insert(u.key, v);
            }
        }
        self.total = u.total;
        match u.counter {
            0 if u.before == Found::Absent => self.inserted -= 1,
            0 | 1 => self.duplicates -= 1,
            2 => self.updated -= 1,
            3 => self.removed -= 1,
            _ => {}
        }
    }

    /// Keys held.
    pub fn size(&self) -> u64 {
        self.map.len() as u64
    }

    /// The numbers stored, added up.
    pub fn total(&self) -> f64 {
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_insert_finds_a_duplicate_and_an_undo_restores_everything() {
        // Keys 4 → 2 and 5 → 3: total 5. Insert 4 again: a duplicate that finds 2.
        let mut s = KeyStore::new(&[(4, 2.0), (5, 3.0)]);
        assert_eq!(s.insert(4, 9.0).0, Found::Held(2.0));
        let (found, u1) = s.insert(6, 1.0);
        assert_eq!(found, Found::Absent);
        let u2 = s.set(4, 7.0);
        let (_, u3) = s.remove(5);
        // 6 → 1, 4 → 7: total 8, two keys.
        assert_eq!((s.total(), s.size()), (8.0, 2));
        for u in [u3, u2, u1] {
            s.restore(u);
        }
        assert_eq!(
            (s.total(), s.size(), s.get(4), s.get(5)),
            (5.0, 2, Found::Held(2.0), Found::Held(3.0))
        );
        assert_eq!(
            (s.inserted, s.duplicates, s.updated, s.removed),
            (0, 1, 0, 0)
        );
    }
}
