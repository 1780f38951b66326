//! Message queues in a flat state: `put`, `take` (with no timeout) and `ack` on queues with
//! no link, a capacity or not, a visibility timeout or not ([`super::ack`]).
//!
//! Such a queue delivers each message once, in the order it was put, and a put arrives at
//! once: of its messages, those taken are the first ones, and the rest are visible. So a
//! queue's words are
//!
//! ```text
//! [ messages made | messages taken | most visible at once | puts refused (full)
//!   (with a visibility timeout: | messages acknowledged | whether its timer has run)
//! | each message's value and fields, in put order (one slot per put its actors can make)
//!   (with a visibility timeout, each message's words end with whether it was acknowledged) ]
//! ```
//!
//! which are what the interpreter's queue tells apart: its messages (their ids, places and
//! states follow from the two counts, the acknowledgements and the timer), their numbers (a
//! message taken stays in its state), and its counts (`Q.put` is the messages made,
//! `Q.taken` those taken; `Q.max_len` depends on the order of puts and takes, so it is a
//! word). Its waiting takers, in order, are each taker's place in that line, in its own
//! block beside a lock's waiters (the waiting word names the queue as lock `MAX_LOCKS +
//! queue`), and what each actor last took from each queue is a word of its block too (the
//! message, from 1; 0: none; with a visibility timeout, [`HELD`] while its take still
//! holds it for an ack), so sorting the blocks stays the whole canonical order under
//! symmetry.
//!
//! A take finds a visible message only with no taker before it (a put hands its message
//! to the longest waiting taker in its own event), takes the first one, and binds the
//! queue's names (`Q`, `Q.id`, `Q.deliveries`, `Q.FIELD`) to it; with none, it waits last
//! in line. A put that finds its queue full (its messages made less those gone: taken, or
//! with a visibility timeout acknowledged, at its `capacity`) is refused (`full`).

use super::{At, Flat, Line, MAX_LOCKS, NotFinite, Uncovered};
use crate::point::{Operand, Step};

/// Most words the queues of a flat state take (their messages' numbers): a point that
/// puts more is left to the interpreter.
const MAX_QUEUE_WORDS: usize = 1 << 16;

/// Words a queue's counts take before its messages (two more with a visibility timeout:
/// its acknowledgements and whether its timer has run).
pub(super) const COUNTS: usize = 4;

/// In an actor's word of what it took from a queue with a visibility timeout: its take
/// still holds the message for an ack (the interpreter's `Taken::held`).
pub(super) const HELD: u64 = 1 << 32;

/// The message in an actor's word of what it took (from 1; 0: none).
pub(super) const MESSAGE: u64 = HELD - 1;

impl Flat<'_> {
    /// The point with its queues' words laid out after its locks' (where `queued`: a step
    /// puts or takes), one slot for each put its actors' programs make. `Err` where the
    /// flat back end leaves a queue to the interpreter.
    pub(super) fn with_queues(mut self, queued: bool) -> Result<Self, Uncovered> {
        if !queued {
            return Ok(self);
        }
        let point = self.point;
        if point.queues.iter().any(|q| q.link.is_some()) {
            return Err("a queue's messages cross a link");
        }
        let mut slots = vec![0u64; point.queues.len()];
        // Whether a step puts on, takes from or acks a queue: a timer of one no step uses
        // never runs.
        let mut used = vec![false; point.queues.len()];
        for member in &self.members {
            for step in &point.groups[member.group as usize].steps {
                if let Step::Put { queue, .. } | Step::Take { queue, .. } | Step::Ack(queue) = step
                {
                    used[*queue as usize] = true;
                }
                if let Step::Put { queue, .. } = step {
                    let slot = &mut slots[*queue as usize];
                    *slot = slot.saturating_add(member.repeat);
                }
            }
        }
        let visibility = |q: usize| point.queues[q].visibility.filter(|_| used[q]);
        if self.timed && (0..used.len()).any(|q| visibility(q).is_some()) {
            return Err(
                "a queue has a visibility timeout and time moves on (a start after \
                 0 ms, or a delay)",
            );
        }
        // Every timer is armed at 0 ms and the flat back end keeps no clock: timers that
        // fall at different instants would all be free at once, where a run takes the
        // earliest first.
        let mut timeouts = (0..used.len()).filter_map(visibility);
        if let Some(first) = timeouts.next()
            && timeouts.any(|other| other != first)
        {
            return Err(
                "two queues have different visibility timeouts (their timers fall at \
                 different instants)",
            );
        }
        if (0..used.len()).any(|q| visibility(q) == Some(0)) {
            return Err(
                "a queue's visibility timeout is 0 ms (its messages come back at \
                 once)",
            );
        }
        let first = self.registers + 1 + 2 * self.locks;
        let mut words = 0usize;
        for (index, (queue, slots)) in point.queues.iter().zip(slots).enumerate() {
            let width = 1 + queue.fields;
            let visibility = visibility(index).unwrap_or(0);
            let (counts, stride) = if visibility > 0 {
                (COUNTS + 2, width + 1)
            } else {
                (COUNTS, width)
            };
            self.queues.push(Line {
                at: first + words,
                messages: first + words + counts,
                width,
                stride,
                visibility,
                slots,
                capacity: queue.capacity,
            });
            words = usize::try_from(slots)
                .ok()
                .and_then(|slots| slots.checked_mul(stride))
                .and_then(|numbers| numbers.checked_add(counts + words))
                .filter(|&words| words <= MAX_QUEUE_WORDS)
                .ok_or("its queues may hold more than 65,536 numbers")?;
        }
        self.queue_words = words;
        self.header += words;
        self.width += words;
        Ok(self)
    }

    /// Where actor `actor`'s word of what it last took from queue `queue` is (the message,
    /// from 1; 0: none).
    pub(super) fn taken_at(&self, actor: usize, queue: usize) -> usize {
        self.lock_words(actor) + 3 + self.locks + queue
    }

    /// The queues' words at the start: nothing made, taken or refused.
    pub(super) fn start_queues(&self, state: &mut Vec<u64>) {
        state.extend(std::iter::repeat_n(0, self.queue_words));
    }

    /// A number of what actor `actor` last took from `queue` in `state`, as the
    /// interpreter's queue gives it: 0 the message's value, 1 its id, 2 its deliveries
    /// (one: a message is delivered once), 3 + f field f; not a number when it took none.
    pub(super) fn message_number(
        &self,
        state: &[u64],
        actor: usize,
        queue: usize,
        what: u8,
    ) -> f64 {
        let (Some(line), true) = (self.queues.get(queue), self.waiting) else {
            return f64::NAN;
        };
        let taken = state[self.taken_at(actor, queue)] & MESSAGE;
        if taken == 0 {
            return f64::NAN;
        }
        let message = (taken - 1) as usize;
        match what {
            1 => taken as f64,
            // Its take's count: every take in a flat state is a first delivery.
            2 => 1.0,
            index => {
                let offset = if index == 0 { 0 } else { index as usize - 2 };
                f64::from_bits(state[line.messages + message * line.stride + offset])
            }
        }
    }

    /// The actor `at` puts a message of `value` and `fields` on `queue` in `to`: the job's
    /// outcome (`put`, or `full` when the queue refused it) and the waiting taker it was
    /// handed to, if any (its steps past its take are the caller's to run). `Err` where a
    /// number is not a number (the interpreter stops there, and says so).
    pub(super) fn put_message(
        &self,
        to: &mut [u64],
        at: At,
        queue: usize,
        (value, fields): (&Operand, &[Operand]),
    ) -> Result<(u64, Option<usize>), NotFinite> {
        let line = self.queues[queue];
        let mut numbers = [0.0; 1 + crate::syntax::spec::MAX_FIELDS];
        numbers[0] = self.operand(value, at, to);
        for (number, field) in numbers[1..].iter_mut().zip(fields) {
            *number = self.operand(field, at, to);
        }
        if numbers[..line.width].iter().any(|x| !x.is_finite()) {
            return Err(NotFinite);
        }
        let (made, taken) = (to[line.at], to[line.at + 1]);
        // What it holds: its messages not gone (with a visibility timeout, a message taken
        // is held until acknowledged).
        let gone = if line.visibility > 0 {
            to[line.at + COUNTS]
        } else {
            taken
        };
        if line.capacity > 0 && made - gone >= line.capacity {
            to[line.at + 3] += 1;
            return Ok((super::FULL, None));
        }
        if made >= line.slots {
            // More puts than its actors' steps can make: no such run.
            return Err(NotFinite);
        }
        let slot = line.messages + made as usize * line.stride;
        for (word, number) in to[slot..slot + line.width].iter_mut().zip(numbers) {
            *word = number.to_bits();
        }
        to[line.at] = made + 1;
        to[line.at + 2] = to[line.at + 2].max(made + 1 - taken);
        // The longest waiting taker takes it at once.
        let waiter = self.next_waiter(to, MAX_LOCKS + queue);
        if let Some(waiter) = waiter {
            self.take_first(to, waiter, queue);
        }
        Ok((super::PUT, waiter))
    }

    /// Actor `actor` takes from `queue` in `to`: true when it took a message, false when it
    /// waits in line (none is visible).
    pub(super) fn take_message(&self, to: &mut [u64], actor: usize, queue: usize) -> bool {
        let line = self.queues[queue];
        to[self.taken_at(actor, queue)] = 0;
        if to[line.at] == to[line.at + 1] {
            self.enqueue(to, actor, MAX_LOCKS + queue);
            return false;
        }
        self.take_first(to, actor, queue);
        true
    }

    /// Actor `actor` takes `queue`'s first visible message (there is one).
    fn take_first(&self, to: &mut [u64], actor: usize, queue: usize) {
        let line = self.queues[queue];
        let at = line.at + 1;
        to[at] += 1;
        let held = if line.visibility > 0 { HELD } else { 0 };
        to[self.taken_at(actor, queue)] = to[at] | held;
    }
}
