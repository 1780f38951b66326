//! Transactions in a flat state: a `transaction` of key store steps, reads, writes (not
//! compare-and-set), one put, acks and `if`s (none by chance), run in its one event as the
//! interpreter runs it.
//!
//! The interpreter keeps a transaction's undo list (to roll it back if its actor crashes
//! before its end) and defers its puts and acks to its end; in an explored run a
//! transaction begins and ends in one event, and no crash comes between (a crash step in
//! one is refused, a crash anywhere comes at a resumption), so nothing of it is undone and
//! each step may land at once: nothing between a put (or an ack) and the end reads the
//! queue, and the put's room counts the transaction's earlier puts and acks, as landing
//! first. A write counts as a write at once (a transition adds each of its writes). The
//! one thing a transaction leaves in the interpreter's state is its puts' numbers (kept
//! until the next transaction begins): where a transaction puts, the header ends with
//!
//! ```text
//! [ the last transaction's count of numbers | its put's value and fields ]
//! ```
//!
//! (one put a transaction, so that one waiting taker at most is handed a message in its
//! event, as by a put outside one).

use super::ways::Draws;
use super::{APPLIED, At, Flat, NotFinite, Uncovered};
use crate::point::{Condition, Point, Step};

/// Whether a group's transactions are ones the flat back end runs: each of key store steps,
/// reads, writes (not compare-and-set: a conflict would start the repetition again inside
/// it), at most one put, acks and `if`s, its `if`s jumping within it and none by chance
/// (no test holds a transaction's draws to the interpreter's yet).
pub(super) fn transactions_covered(steps: &[Step]) -> Result<(), Uncovered> {
    let why = "a transaction has a step other than a key store's, a read, a write, a put, \
               an ack or an `if`";
    let mut begin = None;
    let mut puts = 0;
    for (at, step) in steps.iter().enumerate() {
        match step {
            Step::TxBegin if begin.is_none() => (begin, puts) = (Some(at), 0),
            Step::TxEnd if begin.is_some() => begin = None,
            Step::Keys { .. } | Step::Read(_) => {}
            Step::Write { cas: true, .. } if begin.is_some() => {
                return Err("a transaction has a compare-and-set");
            }
            Step::Write { .. } | Step::Ack(_) if begin.is_some() => {}
            Step::Put { .. } if begin.is_some() => {
                puts += 1;
                if puts > 1 {
                    return Err("a transaction has more than one put");
                }
            }
            Step::Branch {
                condition: Condition::Chance(..),
                ..
            } if begin.is_some() => return Err("a transaction has an `if` by chance"),
            Step::Branch { otherwise: to, .. } | Step::Jump(to) if begin.is_some() => {
                let end = (steps[at..].iter()).position(|s| matches!(s, Step::TxEnd));
                if end.is_none_or(|end| *to as usize > at + end) {
                    return Err(why);
                }
            }
            _ if begin.is_some() => return Err(why),
            Step::TxBegin | Step::TxEnd => return Err(why),
            _ => {}
        }
    }
    if begin.is_some() {
        return Err(why);
    }
    Ok(())
}

/// The most numbers a transaction's put keeps in the interpreter's state (its value and
/// fields; 0: no transaction puts).
pub(super) fn put_numbers(point: &Point) -> usize {
    let mut most = 0;
    for group in point.groups.iter().filter(|g| g.count > 0) {
        let mut open = false;
        for step in &group.steps {
            match step {
                Step::TxBegin => open = true,
                Step::TxEnd => open = false,
                Step::Put { queue, .. } if open => {
                    most = most.max(1 + point.queues[*queue as usize].fields);
                }
                _ => {}
            }
        }
    }
    most
}

impl Flat<'_> {
    /// The transaction that begins at step `begin` of the actor `at`'s repetition runs in
    /// `to`, in its one event as the interpreter runs it ([`transactions_covered`]), from
    /// its job's outcome `outcome`, its writes counted in `delta`. Where the actor goes on
    /// (the step past the transaction's end), its job's outcome then, and the waiting
    /// taker its put handed its message to, if any.
    pub(super) fn transaction(
        &self,
        to: &mut [u64],
        at: At,
        (begin, mut outcome): (u64, u64),
        (delta, draws): (&mut [u64], &mut Draws),
    ) -> Result<(u64, u64, Option<usize>), NotFinite> {
        let program = &self.point.groups[at.member.group as usize].steps;
        let (numbers, most) = self.keys.last_put;
        // A transaction begins: the last one's numbers are no more.
        to[numbers..numbers + most + usize::from(most > 0)].fill(0);
        let mut handed = None;
        let mut step = begin + 1;
        loop {
            let current = program.get(step as usize).ok_or(NotFinite)?;
            step = match current {
                Step::TxEnd => return Ok((step + 1, outcome, handed)),
                Step::Keys {
                    operation,
                    store,
                    key,
                    value,
                } => {
                    outcome = self.key_step(to, at, (*operation, *store, key, value))?;
                    step + 1
                }
                Step::Read(register) => {
                    let register = *register as usize;
                    to[self.base(at.actor) + 1 + register] = to[register];
                    step + 1
                }
                Step::Write {
                    register, value, ..
                } => {
                    self.write_now(to, at, (*register as usize, value), delta)?;
                    outcome = APPLIED;
                    step + 1
                }
                Step::Put {
                    queue,
                    value,
                    fields,
                } => {
                    let queue = *queue as usize;
                    (outcome, handed) = self.put_message(to, at, queue, (value, fields))?;
                    if outcome == super::PUT {
                        // Its numbers, as the interpreter keeps them: the message just made.
                        let line = self.queues[queue];
                        let made = line.messages + (to[line.at] as usize - 1) * line.stride;
                        to[numbers] = line.width as u64;
                        to.copy_within(made..made + line.width, numbers + 1);
                    }
                    step + 1
                }
                Step::Ack(queue) => {
                    outcome = self.ack_message(to, at.actor, *queue as usize)?;
                    step + 1
                }
                Step::Branch { .. } | Step::Jump(_) => {
                    (self.moved(current, at, to, (step, outcome), draws)?).unwrap_or(step + 1)
                }
                // [`transactions_covered`] lets in no other step.
                _ => return Err(NotFinite),
            };
        }
    }

    /// A read, a key step or a transaction (`step`; `None`: none of them), the steps of a
    /// timed state that neither wait nor compare-and-set, run by the actor `at` at its step
    /// `index` in `to`, from its job's outcome `outcome`: where it goes on, its job's
    /// outcome then, and the waiting taker a transaction's put handed its message to.
    pub(super) fn at_once(
        &self,
        to: &mut [u64],
        step: &Step,
        at: At,
        (index, outcome): (u64, u64),
        (delta, draws): (&mut [u64], &mut Draws),
    ) -> Result<Option<(u64, u64, Option<usize>)>, NotFinite> {
        Ok(Some(match step {
            Step::Read(register) => {
                let register = *register as usize;
                to[self.base(at.actor) + 1 + register] = to[register];
                (index + 1, outcome, None)
            }
            Step::Keys {
                operation,
                store,
                key,
                value,
            } => {
                let outcome = self.key_step(to, at, (*operation, *store, key, value))?;
                (index + 1, outcome, None)
            }
            // The whole transaction in this event.
            Step::TxBegin => self.transaction(to, at, (index, outcome), (delta, draws))?,
            _ => return Ok(None),
        }))
    }

    /// A write (not a compare-and-set) of `value` to `register` by the actor `at`, landing
    /// now in `to` (where time moves on, the register's instant kept), counted in `delta`.
    pub(super) fn write_now(
        &self,
        to: &mut [u64],
        at: At,
        (register, value): (usize, &crate::syntax::spec::Number),
        delta: &mut [u64],
    ) -> Result<(), NotFinite> {
        let written = self.written(value, at, to, register)?;
        if self.timed {
            self.instant(to, register, at.now);
        }
        self.land(to, delta, register, written, false);
        Ok(())
    }

    /// Register `register` is landed on at `now` in a timed state `to`: its instant, and
    /// its value as that instant began kept (at its first landing in the instant).
    pub(super) fn instant(&self, to: &mut [u64], register: usize, now: u64) {
        let instant = self.clock() + 1 + register;
        if to[instant] != now + 1 {
            to[instant] = now + 1;
            to[instant + self.registers] = to[register];
        }
    }
}
