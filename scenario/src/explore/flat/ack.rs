//! Acknowledgements and a queue's visibility timer in a flat state (every step at 0 ms).
//!
//! A take from a queue with a visibility timeout hides its message until `visibility_ms`
//! after the take; the first take arms the queue's timer for then. In a flat state every
//! step runs at 0 ms, so no message's visibility runs out while an actor still has a step
//! to take: an ack finds its message still held (`acked`), or nothing to acknowledge
//! (`not_held`: nothing taken on this path, or acknowledged already), never too late. Once
//! no actor has a step left at 0 ms (each has ended or waits), the clock moves on to the
//! timers (a queue's at a time, by queue, as the interpreter orders them), and each
//! message taken and not acknowledged comes back, at its place (the messages taken are the
//! first ones put, so those back are ahead of those never taken). A message that comes back
//! to a waiting taker would run that taker's steps after 0 ms: the interpreter takes such a
//! point over.
//!
//! What the interpreter's queue keeps of this follows from the words of [`super::queue`]:
//! each message taken is hidden until the same instant (its take's, 0, plus the timeout),
//! its list of hidden messages is those taken, in take order, until its timer runs (then
//! none), and a message is in flight, acknowledged or back (once the timer has run) by
//! its word.

use super::queue::{COUNTS, HELD, MESSAGE};
use super::{ACKED, Flat, MAX_LOCKS, NOT_HELD, NotFinite};

impl Flat<'_> {
    /// Actor `actor` acknowledges what it last took from `queue` in `to`: its job's outcome
    /// ([`ACKED`], or [`NOT_HELD`] with nothing to acknowledge). `Err` where the message came
    /// back first (no actor steps after a timer in a flat state).
    pub(super) fn ack_message(
        &self,
        to: &mut [u64],
        actor: usize,
        queue: usize,
    ) -> Result<u64, NotFinite> {
        let line = self.queues[queue];
        let at = self.taken_at(actor, queue);
        let taken = to[at];
        if taken & HELD == 0 {
            return Ok(NOT_HELD);
        }
        // Acknowledged, or too late: the take holds it no more (its names stay).
        to[at] = taken & !HELD;
        let acked = line.messages + ((taken & MESSAGE) - 1) as usize * line.stride + line.width;
        if to[line.at + COUNTS + 1] != 0 {
            return Err(NotFinite);
        }
        to[acked] = 1;
        to[line.at + COUNTS] += 1;
        Ok(ACKED)
    }

    /// The queues' timers due in `state` (where no actor has a step left at 0 ms), into
    /// `free` as `actors + queue`: each queue with a visibility timeout that a take armed
    /// and whose timer has not run.
    pub(super) fn timers(&self, state: &[u64], free: &mut Vec<u32>) {
        let actors = self.members.len();
        for (queue, line) in self.queues.iter().enumerate() {
            if line.visibility > 0 && state[line.at + 1] > 0 && state[line.at + COUNTS + 1] == 0 {
                free.push((actors + queue) as u32);
            }
        }
    }

    /// Queue `queue`'s timer runs in `to`, at its visibility timeout: each message taken and
    /// not acknowledged comes back at its place (the most visible at once counted). `Err`
    /// where that time is past the run's limit, or a message would come back to a waiting
    /// taker (whose steps would run after 0 ms): the interpreter takes the point over.
    pub(super) fn timer(&self, to: &mut [u64], queue: usize) -> Result<(), NotFinite> {
        let line = self.queues[queue];
        if line.visibility > self.max_time {
            return Err(NotFinite);
        }
        let (made, taken) = (to[line.at], to[line.at + 1]);
        let back = (0..taken as usize)
            .filter(|&message| to[line.messages + message * line.stride + line.width] == 0)
            .count() as u64;
        let line_word = (MAX_LOCKS + queue) as u64 + 1;
        let waiter = (0..self.members.len()).any(|a| to[self.lock_words(a) + 1] >> 32 == line_word);
        if back > 0 && waiter {
            return Err(NotFinite);
        }
        to[line.at + COUNTS + 1] = 1;
        to[line.at + 2] = to[line.at + 2].max(back + made - taken);
        Ok(())
    }
}
