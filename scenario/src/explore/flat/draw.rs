//! An event's ways in a flat state ([`Ways`]): how many the interpreter counts for an
//! event it tried, whether the reduction may take an event alone whichever way its draws
//! go, and which events a state's expansion takes.

use super::ways::Ways;
use super::{Flat, NotFinite};

impl Flat<'_> {
    /// How many ways actor `actor`'s next event runs from `state` (`to`, `delta`: the
    /// buffers of a step): the transitions the interpreter counts for an event it tried
    /// and dropped (the reduction took another alone). None for an actor that may crash
    /// anywhere, or whose event is a poll's retry: the interpreter's reduction does not
    /// try its events.
    pub(crate) fn ways(
        &self,
        state: &[u64],
        actor: u32,
        (to, delta): (&mut [u64], &mut [u64]),
        ways: &mut Ways,
    ) -> Result<u64, NotFinite> {
        // Nor for a server's event (nor a queue's timer): no actor's start or resumption,
        // the interpreter's reduction does not try it; nor for a poll's retry.
        if self.may_crash_anywhere(actor)
            || actor as usize >= self.members.len()
            || self.polling(state, actor as usize)
        {
            return Ok(0);
        }
        if !self.draws {
            return Ok(1);
        }
        ways.begin();
        let mut count = 0;
        while let Some((mut draws, given)) = ways.next() {
            self.step(state, actor, to, delta, &mut draws)?;
            ways.ran(&draws, given);
            count += 1;
        }
        Ok(count)
    }

    /// Whether every way actor `actor`'s next event may run from `state` (its place
    /// `(repetition, step)`) reaches a shared step the reduction takes alone, or none:
    /// the interpreter takes an event alone when each of its ways commutes. A draw that
    /// stops the interpreter is taken as "no" here: the step itself hands the point over.
    pub(super) fn alone_every_way(&self, state: &[u64], actor: usize, place: (u64, u64)) -> bool {
        let group = self.members[actor].group;
        let mut ways = Ways::default();
        ways.begin();
        while let Some((mut draws, given)) = ways.next() {
            let next = self.shared_next(state, actor, place, &mut draws);
            if !next.is_none_or(|step| self.alone_at(actor, group, step)) {
                return false;
            }
            ways.ran(&draws, given);
        }
        true
    }

    /// Which free events of `state` (`free`) an expansion takes: the first the reduction
    /// takes alone (`Some`), else all; and the transitions the interpreter counts for the
    /// events it tried before that one (each way of each: `to`, `delta` and `ways` are a
    /// step's buffers).
    pub(crate) fn taken(
        &self,
        state: &[u64],
        free: &[u32],
        (to, delta): (&mut [u64], &mut [u64]),
        ways: &mut Ways,
    ) -> Result<(Option<usize>, u64), NotFinite> {
        if free.len() < 2 {
            return Ok((None, 0));
        }
        let Some(alone) = (0..free.len()).find(|&pick| self.alone(state, free[pick])) else {
            return Ok((None, 0));
        };
        let mut tried = 0;
        for &actor in &free[..alone] {
            // One with another job alive (a `parallel`'s) is not tried ([`Flat::may_be_alone`]).
            if self.may_be_alone(state, actor as usize) {
                tried += self.ways(state, actor, (&mut *to, &mut *delta), ways)?;
            }
        }
        Ok((Some(alone), tried))
    }
}
