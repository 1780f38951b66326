//! Numbers computed in a flat state: a write's value, a delay's length, a put's value and
//! fields, from the names an actor's step may use, each read off the flat state's words
//! where the interpreter reads it off its run (what the actor read of a register, what it
//! took from a queue).

use sim_core::{ms_to_ns, ns_to_ms};

use super::{At, Flat, NotFinite};
use crate::point::{Duration, Leaf, Operand, eval_by};
use crate::syntax::spec::{Number, Var};

impl Flat<'_> {
    /// What a name means for the actor `at` in `state`, as the interpreter's run gives it
    /// (`None` where its evaluator has no value: a parameter past the point's). A branch of
    /// a `parallel` reads its own reads; the names of a call are their values before any
    /// (not a number): the flat back end covers no call.
    fn name(&self, var: Var, at: At, state: &[u64]) -> Option<f64> {
        let reads = self.reads_at(&at);
        Some(match var {
            Var::Param(p) => return self.point.params.get(p as usize).copied(),
            Var::Index => f64::from(at.member.index),
            Var::Rep => at.repetition as f64,
            // No step it covers starts an attempt again (a compare-and-set's retry keeps it).
            Var::Attempt => 1.0,
            Var::Now => ns_to_ms(at.now),
            Var::Read => at.read,
            // A repetition just begun has read nothing yet.
            Var::Reg(_) if at.blank => f64::NAN,
            Var::Reg(register) => f64::from_bits(*state.get(reads + register as usize)?),
            Var::Msg(queue, what) => self.message_number(state, at.actor, queue as usize, what),
            Var::Stored(store) => self.kept(state, at.actor, store as usize),
            Var::Winner => self.joined(&at, state, true),
            Var::Joined => self.joined(&at, state, false),
            Var::Reply => f64::NAN,
        })
    }

    /// `number` as the interpreter computes it for the actor `at` in `state` (not a number
    /// where it has none).
    pub(super) fn value(&self, number: &Number, at: At, state: &[u64]) -> f64 {
        eval_by(number, at.member.index, &|var| self.name(var, at, state)).unwrap_or(f64::NAN)
    }

    /// A put's `operand` for the actor `at` in `state`, as the interpreter's run computes
    /// it (the same operations in the same order).
    pub(super) fn operand(&self, operand: &Operand, at: At, state: &[u64]) -> f64 {
        let leaf = |leaf: Leaf| match leaf {
            Leaf::Lit(x) => x,
            Leaf::Var(var) => self.name(var, at, state).unwrap_or(f64::NAN),
        };
        match operand {
            Operand::Lit(x) => *x,
            Operand::Var(var) => leaf(Leaf::Var(*var)),
            Operand::Bin(operation, left, right) => operation.apply(leaf(*left), leaf(*right)),
            Operand::More(number) => self.value(number, at, state),
        }
    }

    /// A write of `value` into `register` by the actor `at` in `state`: what it read of the
    /// register and the value written. `Err` where that is no finite number (the
    /// interpreter takes the point over and says so).
    pub(super) fn written(
        &self,
        value: &Number,
        at: At,
        state: &[u64],
        register: usize,
    ) -> Result<(f64, f64), NotFinite> {
        let read = f64::from_bits(state[self.reads_at(&at) + register]);
        let new = self.value(value, At { read, ..at }, state);
        if new.is_finite() {
            Ok((read, new))
        } else {
            Err(NotFinite)
        }
    }

    /// A delay's length for the actor `at`; `Err` where the interpreter stops (no
    /// duration): it takes the point over and says so.
    pub(super) fn duration(
        &self,
        duration: &Duration,
        at: At,
        state: &[u64],
    ) -> Result<u64, NotFinite> {
        match duration {
            Duration::Fixed(ns) => Ok(*ns),
            Duration::Actor(number) => ms_to_ns(self.value(number, at, state)).ok_or(NotFinite),
        }
    }
}
