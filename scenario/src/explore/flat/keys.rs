//! Key stores in a flat state: `lookup`, `insert`, `set` and `remove`, at 0 ms or where
//! time moves on.
//!
//! A step's key is known before the run when it is a number or an expression of `i`, the
//! repetition `k` and the parameters (or a list per member): the keys each actor's steps can
//! name are then a known set, and each store keeps a word for each of them (a key the run
//! computes takes a spare pair of words, [`super::computed`]). Beside those,
//! a store keeps what the interpreter's fingerprint tells apart of it:
//!
//! ```text
//! [ whether a range it started with is kept aside | its array's first key | its length
//! | its numbers added up (as they changed: a float's rounding depends on the order)
//! | inserts | duplicates | removes | sets
//! | each known key's number (NaN: absent), by key ]
//! ```
//!
//! The interpreter's store lays keys out in an array where they come in a run of
//! consecutive numbers and in a map elsewhere, and its fingerprint writes the array's
//! first key, its length and each entry (a key removed stays an entry, absent), then the
//! map's keys in order: two histories that end with the same keys may be two of its states.
//! A known key's place follows from the array's first key and length (the array grows
//! only by a key absent until then, appended at its end: no key in the map is ever in the
//! array's run), so those two words and each known key's number are the same partition of
//! states; a key no step names keeps what it started with, and the store's size follows.
//!
//! Each actor's block ends with a word per store: the number its last step on that store
//! left in the store's name (`K` in its later expressions: what a lookup found, what an
//! insert stored or found, what a set stored, what a remove removed; NaN: none), kept
//! across its repetitions and forgotten when its job is freed, as the interpreter keeps it.
//! A word of a store names no member (a group whose keys or numbers use `i` is not
//! reduced by symmetry), so sorting the blocks stays the whole canonical order.

use super::{APPLIED, At, Flat, NotFinite, Store, Stores, Uncovered};
use crate::explore::reduce::Reducer;
use crate::machine::keys::{Found, key_of};
use crate::point::{InitialKeys, Leaf, Operand, Step, eval_by};
use crate::run::state::Sim;
use crate::syntax::spec::{KeyOp, Var};

/// Most keys the stores of a flat state keep a word for: past it, the interpreter.
const MAX_KEYS: usize = 1024;

/// Most keys worked out before the run (each key step of each actor, each repetition where
/// a key depends on `k`): past it, the interpreter.
const MAX_KEY_SITES: u64 = 1 << 20;

/// The outcome of an insert of a key absent until then.
pub(super) const INSERTED: u64 = 8;
/// The outcome of an insert that found its key.
pub(super) const DUPLICATE: u64 = 9;
/// The outcome of a lookup that found its key.
pub(super) const FOUND: u64 = 10;
/// The outcome of a lookup or a remove that did not find its key.
pub(super) const MISSING: u64 = 11;
/// The outcome of a remove that found its key.
pub(super) const REMOVED: u64 = 12;

/// A known key's word when it is absent (a stored number is finite).
pub(super) const ABSENT: u64 = 0x7ff8_0000_0000_0000;

/// A store's words: whether its range is kept aside, its array's first key, its length, its
/// total, its inserts, duplicates, removes and sets, then its known keys.
const ASIDE: usize = 0;
const BASE: usize = 1;
const LEN: usize = 2;
const TOTAL: usize = 3;
const INSERTS: usize = 4;
const DUPLICATES: usize = 5;
const REMOVES: usize = 6;
const SETS: usize = 7;
pub(super) const KEYS: usize = 8;

/// An actor's word of what a store's step left in the store's name is the number's bits
/// and this: NaN (none) is 0, the word its block starts with.
const NONE_KEPT: u64 = 0x7ff8_0000_0000_0000;

/// A key step's key for member `index`, known before the run: a number, or an expression
/// of `i`, the parameters and (`repetition`: given) `k`, computed as the run computes it.
fn known_key(
    operand: &Operand,
    index: u32,
    repetition: Option<u64>,
    params: &[f64],
) -> Option<f64> {
    let var = |var: Var| match var {
        Var::Index => Some(f64::from(index)),
        Var::Param(p) => Some(params.get(p as usize).copied().unwrap_or(f64::NAN)),
        Var::Rep => repetition.map(|k| k as f64),
        _ => None,
    };
    let leaf = |leaf: Leaf| match leaf {
        Leaf::Lit(x) => Some(x),
        Leaf::Var(v) => var(v),
    };
    match operand {
        Operand::Lit(x) => Some(*x),
        Operand::Var(v) => var(*v),
        Operand::Bin(operation, left, right) => Some(operation.apply(leaf(*left)?, leaf(*right)?)),
        Operand::More(number) => eval_by(number, index, &var),
    }
}

impl Flat<'_> {
    /// The point with its key stores' words laid out after its queues' (where `keyed`: a
    /// step uses a key store), a word for each key its steps may name, and a word a store
    /// at the end of each actor's block. `Err` where the flat back end leaves the stores
    /// to the interpreter (`start`: the interpreter's start, for each store's words).
    pub(super) fn with_keys(
        mut self,
        keyed: bool,
        start: &Sim<'_>,
        reducer: &Reducer,
    ) -> Result<Self, Uncovered> {
        // A transaction's put leaves its numbers in the state ([`super::tx`]).
        let put_numbers = super::tx::put_numbers(self.point);
        if !keyed && put_numbers == 0 {
            return Ok(self);
        }
        let point = self.point;
        let (mut keys, spare) = if keyed {
            self.known_keys()?
        } else {
            Default::default()
        };
        let mut stores = Vec::with_capacity(keys.len());
        let mut words = Vec::new();
        for (index, keys) in keys.iter_mut().enumerate() {
            keys.sort_unstable();
            keys.dedup();
            let store = &start.keys[index];
            let (aside, base, len) = store.layout();
            words.extend([u64::from(aside), base as u64, len, store.total().to_bits()]);
            words.extend([
                store.inserted,
                store.duplicates,
                store.removed,
                store.updated,
            ]);
            words.extend(keys.iter().map(|&key| match store.get(key) {
                Found::Held(number) => number.to_bits(),
                Found::Absent => ABSENT,
            }));
            let range = match point.keys[index].initial {
                InitialKeys::Range { from, count, .. } => (from, count),
                InitialKeys::Pairs(_) => (0, 0),
            };
            let at = self.header + words.len() - KEYS - keys.len();
            if spare[index] > 0 {
                // No key the run computes is stored yet ([`super::computed`]).
                words.extend(std::iter::repeat_n(0, 1 + 2 * spare[index]));
            }
            stores.push(Store {
                at,
                keys: std::mem::take(keys),
                range,
                spare: spare[index],
            });
        }
        if stores.iter().map(|s| s.keys.len()).sum::<usize>() > MAX_KEYS {
            return Err("its key stores' steps may name more than 1,024 keys");
        }
        let alone = (self.members.iter())
            .map(|member| {
                (0..member.steps)
                    .map(|step| {
                        reducer.commutes_alone_of(member.group as usize, member.index, step)
                    })
                    .collect()
            })
            .collect();
        let last_put = (self.header + words.len(), put_numbers);
        if put_numbers > 0 {
            words.extend(std::iter::repeat_n(0, 1 + put_numbers));
        }
        self.header += words.len();
        self.block += stores.len();
        self.width = self.header + self.members.len() * self.block;
        self.keys = Stores {
            kept: stores.len(),
            stores,
            start: words,
            alone,
            last_put,
        };
        Ok(self)
    }

    /// The keys each store's steps may name (unsorted), worked out for every actor (and
    /// every repetition, where a key depends on `k`), or why they are not known.
    fn known_keys(&self) -> Result<(Vec<Vec<i64>>, Vec<usize>), Uncovered> {
        let point = self.point;
        let mut keys = vec![Vec::new(); point.keys.len()];
        let mut spare = vec![0usize; point.keys.len()];
        let mut sites = 0u64;
        for member in &self.members {
            let group = &point.groups[member.group as usize];
            for step in &group.steps {
                let Step::Keys {
                    operation,
                    store,
                    key,
                    ..
                } = step
                else {
                    continue;
                };
                let found = &mut keys[*store as usize];
                let (index, params) = (member.index, &point.params[..]);
                let repetitions = if known_key(key, index, None, params).is_some() {
                    0..1
                } else if known_key(key, index, Some(0), params).is_none() {
                    // A key the run computes: a spare pair for each insert or set of it.
                    if group.forever {
                        return Err("a key store step's key is computed by the run in a loop \
                                    for ever");
                    }
                    if matches!(operation, KeyOp::Insert | KeyOp::Set) {
                        spare[*store as usize] += member.repeat as usize;
                    }
                    sites = sites.saturating_add(member.repeat);
                    continue;
                } else if group.forever {
                    return Err("a key store step's key depends on `k` in a loop for ever");
                } else {
                    0..member.repeat
                };
                sites = sites.saturating_add(repetitions.end);
                if sites > MAX_KEY_SITES {
                    return Err(
                        "its key stores' steps name keys at more than 2^20 places (each \
                         actor's key steps, each repetition where a key uses `k`)",
                    );
                }
                // A number that is no key stops the run there: the interpreter's.
                found.extend(
                    repetitions.filter_map(|k| key_of(known_key(key, index, Some(k), params)?)),
                );
            }
        }
        if spare.iter().sum::<usize>() > MAX_KEYS {
            return Err("its key stores' steps may insert more than 1,024 keys the run computes");
        }
        // A store whose keys the run computes keeps each key it starts with as a known one.
        for (store, found) in keys.iter_mut().enumerate() {
            if spare[store] == 0 {
                continue;
            }
            match &point.keys[store].initial {
                InitialKeys::Pairs(pairs) => found.extend(pairs.iter().map(|p| p.0)),
                InitialKeys::Range { from, count, .. } if *count <= MAX_KEYS as u64 => {
                    found.extend((0..*count as i64).map(|i| from + i));
                }
                InitialKeys::Range { .. } => {
                    return Err("its key stores' steps may name more than 1,024 keys");
                }
            }
        }
        Ok((keys, spare))
    }

    /// The stores' words at the start.
    pub(super) fn start_keys(&self, state: &mut Vec<u64>) {
        state.extend_from_slice(&self.keys.start);
    }

    /// Whether the reduction takes step `step` of actor `actor` (of group `group`) alone.
    pub(super) fn alone_at(&self, actor: usize, group: u16, step: usize) -> bool {
        match self.keys.alone.get(actor) {
            Some(steps) => steps[step],
            None => self.alone[group as usize][step],
        }
    }

    /// Where actor `actor`'s word of what its last step on `store` left is.
    fn kept_at(&self, actor: usize, store: usize) -> usize {
        self.base(actor) + self.block - self.keys.kept + store
    }

    /// The number actor `actor`'s last step on `store` left in the store's name in
    /// `state` (NaN: none, or no step uses a key store).
    pub(super) fn kept(&self, state: &[u64], actor: usize, store: usize) -> f64 {
        if store >= self.keys.kept {
            return f64::NAN;
        }
        f64::from_bits(state[self.kept_at(actor, store)] ^ NONE_KEPT)
    }

    /// Actor `actor`'s job is freed: what its steps left in the stores' names is forgotten.
    pub(super) fn forget_kept(&self, to: &mut [u64], actor: usize) {
        let at = self.kept_at(actor, 0);
        to[at..at + self.keys.kept].fill(0);
    }

    /// The actor `at` runs `operation` on `store` with `key` (and `value`, for an insert or
    /// a set) in `to`: its job's outcome, as the interpreter's store answers it. `Err`
    /// where the interpreter stops (a key that is no key, a number or a total that is not
    /// finite) or the key is none the flat state keeps: the interpreter takes over.
    pub(super) fn key_step(
        &self,
        to: &mut [u64],
        at: At,
        (operation, store, key, value): (KeyOp, u16, &Operand, &Operand),
    ) -> Result<u64, NotFinite> {
        let layout = &self.keys.stores[store as usize];
        let key = key_of(self.operand(key, at, to)).ok_or(NotFinite)?;
        let words = layout.at;
        let slot = match layout.keys.binary_search(&key) {
            Ok(place) => Some(words + KEYS + place),
            // A key the run computed: its spare pair (made for an insert or a set).
            Err(_) => {
                let make = matches!(operation, KeyOp::Insert | KeyOp::Set);
                self.spare_slot(to, layout, key, make)?
            }
        };
        let number = match operation {
            KeyOp::Insert | KeyOp::Set => {
                let number = self.operand(value, at, to);
                if !number.is_finite() {
                    return Err(NotFinite);
                }
                number
            }
            KeyOp::Lookup | KeyOp::Remove => f64::NAN,
        };
        let held = slot
            .filter(|&slot| to[slot] != ABSENT)
            .map(|slot| f64::from_bits(to[slot]));
        // Only an insert or a set stores, and each has its slot.
        let slot = slot.unwrap_or(usize::MAX);
        let (outcome, kept) = match (operation, held) {
            (KeyOp::Lookup, None) => (MISSING, f64::NAN),
            (KeyOp::Lookup, Some(old)) => (FOUND, old),
            (KeyOp::Insert, Some(old)) => {
                to[words + DUPLICATES] += 1;
                (DUPLICATE, old)
            }
            (KeyOp::Insert, None) => {
                self.store_over(to, layout, (key, slot), number, held);
                to[words + INSERTS] += 1;
                (INSERTED, number)
            }
            (KeyOp::Set, _) => {
                self.store_over(to, layout, (key, slot), number, held);
                to[words + SETS] += 1;
                // A set's outcome is a write's.
                (APPLIED, number)
            }
            (KeyOp::Remove, _) => {
                lay_out(to, layout);
                match held {
                    Some(old) => {
                        let total = f64::from_bits(to[words + TOTAL]) - old;
                        to[words + TOTAL] = total.to_bits();
                        to[slot] = ABSENT;
                        self.drop_spare(to, layout, slot);
                        to[words + REMOVES] += 1;
                        (REMOVED, old)
                    }
                    None => (MISSING, f64::NAN),
                }
            }
        };
        if !f64::from_bits(to[words + TOTAL]).is_finite() {
            return Err(NotFinite);
        }
        to[self.kept_at(at.actor, store as usize)] = kept.to_bits() ^ NONE_KEPT;
        Ok(outcome)
    }

    /// Stores `number` with `key` (its word at `slot`), which holds `held`: the total as
    /// the interpreter's changes it (the old number taken off, the new one added), and the
    /// key appended to the array where it goes on its run (or begins it).
    fn store_over(
        &self,
        to: &mut [u64],
        layout: &Store,
        (key, slot): (i64, usize),
        number: f64,
        held: Option<f64>,
    ) {
        let words = layout.at;
        lay_out(to, layout);
        let mut total = f64::from_bits(to[words + TOTAL]);
        if let Some(old) = held {
            total -= old;
        }
        total += number;
        to[words + TOTAL] = total.to_bits();
        let (base, len) = (to[words + BASE] as i64, to[words + LEN]);
        let in_array = key
            .checked_sub(base)
            .is_some_and(|offset| offset >= 0 && (offset as u64) < len);
        if !in_array && held.is_none() && (len == 0 || key == base + len as i64) {
            if len == 0 {
                to[words + BASE] = key as u64;
            }
            to[words + LEN] = len + 1;
        }
        to[slot] = number.to_bits();
    }
}

/// A range kept aside laid out in the array, before the store's first change: its keys
/// from its first, as many as it has.
fn lay_out(to: &mut [u64], layout: &Store) {
    let words = layout.at;
    if to[words + ASIDE] != 0 {
        to[words + ASIDE] = 0;
        to[words + BASE] = layout.range.0 as u64;
        to[words + LEN] = layout.range.1;
    }
}
