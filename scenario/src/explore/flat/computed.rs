//! Keys the run computes in a flat state: a key store step whose key is no number known
//! before the run (a message's id or field taken from a queue, what a lookup found, an
//! expression of what was read).
//!
//! Such a store keeps, after the words of its known keys ([`super::keys`]; every key it
//! starts with is then a known one), a count and that many spare pairs
//!
//! ```text
//! [ pairs used | key, number | key, number | … ]
//! ```
//!
//! each a key the run computed, not a known one, held now: sorted by key, unused pairs
//! zero, a pair dropped when its key is removed. What the interpreter's fingerprint tells
//! apart of such a key (its number, or absent; in the array's run or in the map) follows
//! from the pairs and the store's array words, as for a known key. A store has a pair for
//! each insert or set of such a key that its actors' repetitions can run (a pair is made
//! by one only), so the pairs run out only where a repetition runs again (a
//! compare-and-set's retry): the interpreter takes the point over there.

use super::keys::{ABSENT, KEYS};
use super::{Flat, NotFinite, Store};

impl Flat<'_> {
    /// Where the number of `key` (no known key of `layout`'s store) is in `to`: its pair's
    /// second word; where none holds it, `None`, or with `make` a new pair in its place
    /// (absent until stored). `Err` where the store keeps no spare pairs or they ran out.
    pub(super) fn spare_slot(
        &self,
        to: &mut [u64],
        layout: &Store,
        key: i64,
        make: bool,
    ) -> Result<Option<usize>, NotFinite> {
        if layout.spare == 0 {
            return Err(NotFinite);
        }
        let used_at = layout.at + KEYS + layout.keys.len();
        let (used, pairs) = (to[used_at] as usize, used_at + 1);
        let mut place = 0;
        while place < used && (to[pairs + 2 * place] as i64) < key {
            place += 1;
        }
        if place < used && to[pairs + 2 * place] as i64 == key {
            return Ok(Some(pairs + 2 * place + 1));
        }
        if !make {
            return Ok(None);
        }
        if used == layout.spare {
            return Err(NotFinite);
        }
        to.copy_within(pairs + 2 * place..pairs + 2 * used, pairs + 2 * place + 2);
        to[pairs + 2 * place] = key as u64;
        to[pairs + 2 * place + 1] = ABSENT;
        to[used_at] += 1;
        Ok(Some(pairs + 2 * place + 1))
    }

    /// The pair whose number is at `slot` dropped (its key removed), where it is a spare
    /// one: those after it move up.
    pub(super) fn drop_spare(&self, to: &mut [u64], layout: &Store, slot: usize) {
        let used_at = layout.at + KEYS + layout.keys.len();
        if layout.spare == 0 || slot < used_at {
            return;
        }
        let (used, pairs) = (to[used_at] as usize, used_at + 1);
        let place = (slot - pairs) / 2;
        to.copy_within(pairs + 2 * place + 2..pairs + 2 * used, pairs + 2 * place);
        to[pairs + 2 * used - 2..pairs + 2 * used].fill(0);
        to[used_at] -= 1;
    }
}
