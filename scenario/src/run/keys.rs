//! A key store's steps: a lookup, an insert, a set and a remove, each a function of its
//! own, so the step the interpreter matched runs straight through (no second `match` on
//! the operation); what they share is inlined into each, and each into the interpreter's
//! loop (a call per step saved and restored half a dozen registers).

use crate::machine::keys::{Found, KeyUndo, bad_key, key_of};
use crate::point::Operand;
use crate::run::recover::{DUPLICATE, FOUND, INSERTED, MISSING, REMOVED, SET};
use crate::run::state::{Sim, Told, Undo};
use crate::syntax::spec::KeyOp;

/// What a key store's step leaves in its name: the number found, or NaN for none.
#[inline(always)]
fn held(found: Found) -> f64 {
    match found {
        Found::Absent => f64::NAN,
        Found::Held(number) => number,
    }
}

impl Sim<'_> {
    /// A key store's step; false when its key is no key or its number is not finite (the
    /// run stops with an error).
    #[inline(always)]
    pub(crate) fn keys_step(
        &mut self,
        job: u32,
        operation: KeyOp,
        store: u16,
        key: &Operand,
        value: &Operand,
    ) -> bool {
        match operation {
            KeyOp::Lookup => self.lookup_step(job, store, key),
            KeyOp::Insert => self.insert_step(job, store, key, value),
            KeyOp::Set => self.set_step(job, store, key, value),
            KeyOp::Remove => self.remove_step(job, store, key),
        }
    }

    #[inline(always)]
    fn lookup_step(&mut self, job: u32, store: u16, key: &Operand) -> bool {
        let Some(key) = self.key_now(job, key) else {
            return false;
        };
        let store_index = store as usize;
        let found = self.keys[store_index].get(key);
        let outcome = if found == Found::Absent {
            MISSING
        } else {
            FOUND
        };
        self.tell_key(job, store, key, found, f64::NAN, outcome);
        self.keys_done(job, store_index, held(found), outcome, None)
    }

    #[inline(always)]
    fn insert_step(&mut self, job: u32, store: u16, key: &Operand, value: &Operand) -> bool {
        let store_index = store as usize;
        let Some((key, number)) =
            self.key_and_value(job, key, value, "an insert's value into", store_index)
        else {
            return false;
        };
        let (found, undo) = self.keys[store_index].insert(key, number);
        let (outcome, stored) = match found {
            Found::Absent => (INSERTED, number),
            found => (DUPLICATE, held(found)),
        };
        self.tell_key(job, store, key, found, number, outcome);
        self.keys_done(job, store_index, stored, outcome, Some(undo))
    }

    #[inline(always)]
    fn set_step(&mut self, job: u32, store: u16, key: &Operand, value: &Operand) -> bool {
        let store_index = store as usize;
        let Some((key, number)) =
            self.key_and_value(job, key, value, "a set's value into", store_index)
        else {
            return false;
        };
        let undo = self.keys[store_index].set(key, number);
        self.tell_key(job, store, key, undo.before(), number, SET);
        self.keys_done(job, store_index, number, SET, Some(undo))
    }

    #[inline(always)]
    fn remove_step(&mut self, job: u32, store: u16, key: &Operand) -> bool {
        let Some(key) = self.key_now(job, key) else {
            return false;
        };
        let store_index = store as usize;
        let (found, undo) = self.keys[store_index].remove(key);
        let outcome = if found == Found::Absent {
            MISSING
        } else {
            REMOVED
        };
        self.tell_key(job, store, key, found, f64::NAN, outcome);
        self.keys_done(job, store_index, held(found), outcome, Some(undo))
    }

    /// Tells a trace what a key store's step met (`before`: what the key held), when one is
    /// told ([`crate::run::state::Told`]).
    #[inline(always)]
    fn tell_key(
        &mut self,
        job: u32,
        store: u16,
        key: i64,
        before: Found,
        number: f64,
        outcome: u8,
    ) {
        if let Some(steer) = &mut self.steer
            && steer.tell
        {
            let job_state = &self.jobs[job as usize];
            steer.told.push(Told::Key {
                actor: job_state.actor,
                repetition: job_state.repetition,
                store,
                key,
                before,
                number,
                outcome,
            });
        }
    }

    /// The key a step names, computed now; `None` when it is no key (the run stops).
    #[inline(always)]
    fn key_now(&mut self, job: u32, key: &Operand) -> Option<i64> {
        let number = self.operand(job, key);
        let key = key_of(number);
        if key.is_none() {
            self.no_key(job, number);
        }
        key
    }

    /// An insert's or a set's key and the number it stores, computed in that order (as
    /// they are written); `None` when the key is no key or the number not finite (the run
    /// stops: `what` says which step's value it is).
    #[inline(always)]
    fn key_and_value(
        &mut self,
        job: u32,
        key: &Operand,
        value: &Operand,
        what: &str,
        store_index: usize,
    ) -> Option<(i64, f64)> {
        let key = self.key_now(job, key)?;
        let number = self.operand(job, value);
        if number.is_finite() {
            Some((key, number))
        } else {
            self.not_finite_in(job, what, store_index, number);
            None
        }
    }

    /// A key store's step ends: the store's total checked, the undo kept inside a
    /// transaction, the name and the outcome set.
    #[inline(always)]
    fn keys_done(
        &mut self,
        job: u32,
        store_index: usize,
        stored: f64,
        outcome: u8,
        undo: Option<KeyUndo>,
    ) -> bool {
        let total = self.keys[store_index].total();
        if !total.is_finite() {
            self.not_finite_total(job, store_index, total);
            return false;
        }
        if let Some(undo) = undo
            && self.transaction.job == Some(job)
        {
            self.transaction
                .undo
                .push(Undo::Key(store_index as u16, undo));
        }
        let store_count = self.keys.len();
        self.tables.stored[job as usize * store_count + store_index] = stored;
        self.jobs[job as usize].outcome = outcome;
        true
    }

    /// Stops the run: `number` is no key. Said at the instant, as every run-time error is;
    /// a NaN, most likely a lookup's missed value, with how to guard against it.
    #[cold]
    #[inline(never)]
    fn no_key(&mut self, job: u32, number: f64) {
        let actor = &self.actors[self.jobs[job as usize].actor as usize];
        let guard = if number.is_nan() {
            " (a lookup that found no key, a take that got nothing and a name this path never set are not numbers: check `if = \"found\"` or `if = \"taken\"` first)"
        } else {
            ""
        };
        self.error.get_or_insert(format!(
            "actor {} of `{}` at {} ms: {}{guard}",
            actor.index,
            self.point.groups[actor.group as usize].name,
            sim_core::ns_to_ms(self.now),
            bad_key(number)
        ));
    }

    /// Stops the run: `job`'s step would store `number` into the store at `store_index`
    /// (`what` it is: "an insert's value into").
    #[cold]
    #[inline(never)]
    fn not_finite_in(&mut self, job: u32, what: &str, store_index: usize, number: f64) {
        let what = format!("{what} `{}`", self.point.keys[store_index].name);
        self.not_finite(job, &what, number);
    }

    /// Stops the run: the total of the store at `store_index` came to `total`.
    #[cold]
    #[inline(never)]
    fn not_finite_total(&mut self, job: u32, store_index: usize, total: f64) {
        let what = format!(
            "the total of `{}` after this step",
            self.point.keys[store_index].name
        );
        self.not_finite(job, &what, total);
    }
}
