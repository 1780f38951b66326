//! A message queue: FIFO by arrival, with an optional capacity, and at-least-once delivery
//! when it has a visibility timeout — a taken message is hidden until acknowledged, and one
//! not acknowledged in time comes back at its place.

use std::collections::VecDeque;

use sim_core::Nanos;

/// No message: an actor that has taken none from a queue.
pub(crate) const NO_MESSAGE: u32 = u32::MAX;

/// What one take returned, as its actor keeps it. The names a take binds (`Q`, `Q.id`,
/// `Q.deliveries`, `Q.FIELD`) read this snapshot, not the message's live state: a message
/// that came back and was taken again by another actor has a higher delivery count, but
/// the first taker's `Q.deliveries` stays the count its own take saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Taken {
    /// The message (`NO_MESSAGE`: the take got nothing, or the path took none).
    pub message: u32,
    /// Its delivery count when this take got it: also the take's receipt, which an ack
    /// must match (a later take of the same message has a higher one).
    pub deliveries: u32,
    /// Whether the take still holds the message for an ack (false once acknowledged, or
    /// tried too late): its names stay what it took either way.
    pub held: bool,
}

impl Taken {
    /// Nothing taken.
    pub(crate) const NONE: Taken = Taken {
        message: NO_MESSAGE,
        deliveries: 0,
        held: false,
    };
}
/// Most messages a queue makes in a run (copies a link makes included).
pub(crate) const MAX_MESSAGES: usize = u32::MAX as usize - 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum State {
    /// Put, still crossing its link.
    Crossing,
    Visible,
    /// Taken, hidden until acknowledged or until its visibility runs out.
    InFlight,
    /// Acknowledged, or taken from a queue with no visibility timeout: gone.
    Done,
    /// Lost on its link.
    Lost,
}

/// A message: 24 bytes (a run may hold tens of millions).
#[derive(Debug, Clone, Copy, Hash)]
struct Message {
    hidden_until: Nanos,
    id: u32,
    /// Its place in the queue: the order it first arrived in.
    rank: u32,
    /// Times it was taken; also the receipt of the take that holds it now (an ack names
    /// the take it acknowledges).
    deliveries: u32,
    state: State,
}

const _: () = assert!(std::mem::size_of::<Message>() == 24);

/// One queue during a run.
pub(crate) struct Queue {
    /// Numbers per message: its value, then its fields.
    width: usize,
    data: Vec<f64>,
    messages: Vec<Message>,
    visible: VecDeque<u32>,
    /// Takers waiting for a message, with the generation of their wait.
    pub waiters: VecDeque<(u32, u32)>,
    /// Messages taken (and the take's receipt), in take order: the order their visibility
    /// runs out in; and whether a timer is set for the first.
    hidden: VecDeque<(u32, u32)>,
    timer: bool,
    capacity: u64,
    visibility: Option<Nanos>,
    /// Messages put and not gone (crossing, visible or in flight).
    held: u64,
    next_id: u32,
    next_rank: u32,
    pub put: u64,
    pub refused: u64,
    pub taken: u64,
    pub redelivered: u64,
    pub acked: u64,
    pub returned: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub max_len: u64,
    /// Per message, the call it carries: the calling job and the generation of its wait
    /// (`NO_CALLER`: a plain put). Empty for a queue no step calls on.
    callers: Vec<(u32, u32)>,
    /// Replies that reached their caller, and those too late for it (it had stopped
    /// waiting: a timeout, a cancel, a crash, or an earlier reply to a copy).
    pub replies: u64,
    pub late_replies: u64,
}

sim_core::clone_in_place!(Queue {
    width,
    data,
    messages,
    visible,
    waiters,
    hidden,
    timer,
    capacity,
    visibility,
    held,
    next_id,
    next_rank,
    put,
    refused,
    taken,
    redelivered,
    acked,
    returned,
    lost,
    duplicated,
    max_len,
    callers,
    replies,
    late_replies
});

/// No caller: a message a plain put made.
pub(crate) const NO_CALLER: (u32, u32) = (u32::MAX, 0);

impl std::hash::Hash for Queue {
    fn hash<H: std::hash::Hasher>(&self, hasher: &mut H) {
        self.data.len().hash(hasher);
        for value in &self.data {
            crate::machine::hash_f64(*value, hasher);
        }
        (
            &self.messages,
            &self.visible,
            &self.waiters,
            &self.hidden,
            self.timer,
        )
            .hash(hasher);
        (
            self.held,
            self.next_id,
            self.next_rank,
            self.put,
            self.refused,
            self.taken,
        )
            .hash(hasher);
        (
            self.redelivered,
            self.acked,
            self.returned,
            self.lost,
            self.duplicated,
        )
            .hash(hasher);
        self.max_len.hash(hasher);
        (&self.callers, self.replies, self.late_replies).hash(hasher);
    }
}

impl Queue {
    /// Every job it names (a waiting taker, a message's caller) renamed by `relabel`: an
    /// explorer's symmetry renames a state's jobs. Every field named: one added that holds
    /// a job and is left out here fails to compile.
    pub(crate) fn relabel_jobs(&mut self, relabel: impl Fn(u32) -> u32) {
        let Queue {
            waiters,
            callers,
            // No job in these: messages, their numbers, their order, the counts.
            width: _,
            data: _,
            messages: _,
            visible: _,
            hidden: _,
            timer: _,
            capacity: _,
            visibility: _,
            held: _,
            next_id: _,
            next_rank: _,
            put: _,
            refused: _,
            taken: _,
            redelivered: _,
            acked: _,
            returned: _,
            lost: _,
            duplicated: _,
            max_len: _,
            replies: _,
            late_replies: _,
        } = self;
        for (job, _) in waiters.iter_mut() {
            *job = relabel(*job);
        }
        for (job, _) in callers.iter_mut() {
            if *job != NO_CALLER.0 {
                *job = relabel(*job);
            }
        }
    }

    /// An empty queue whose messages carry `fields` numbers besides their value, with room
    /// for `room` messages.
    pub(crate) fn new(
        fields: usize,
        capacity: u64,
        visibility: Option<Nanos>,
        room: usize,
    ) -> Queue {
        Queue {
            width: 1 + fields,
            data: Vec::with_capacity(room.saturating_mul(1 + fields)),
            messages: Vec::with_capacity(room),
            visible: VecDeque::with_capacity(room),
            waiters: VecDeque::new(),
            hidden: VecDeque::new(),
            timer: false,
            capacity,
            visibility,
            held: 0,
            next_id: 1,
            next_rank: 0,
            put: 0,
            refused: 0,
            taken: 0,
            redelivered: 0,
            acked: 0,
            returned: 0,
            lost: 0,
            duplicated: 0,
            max_len: 0,
            callers: Vec::new(),
            replies: 0,
            late_replies: 0,
        }
    }

    /// `message` carries the call of `caller` (a job and the generation of its wait).
    pub(crate) fn set_caller(&mut self, message: u32, caller: (u32, u32)) {
        let message = message as usize;
        if self.callers.len() <= message {
            self.callers.resize(message + 1, NO_CALLER);
        }
        self.callers[message] = caller;
    }

    /// The call `message` carries, if any.
    pub(crate) fn caller(&self, message: u32) -> Option<(u32, u32)> {
        self.callers
            .get(message as usize)
            .copied()
            .filter(|c| *c != NO_CALLER)
    }

    /// Whether `more` puts would find it full.
    pub(crate) fn full(&self, more: u64) -> bool {
        self.capacity > 0 && self.held + more >= self.capacity
    }

    /// Whether a put would find it full after `more` puts and `fewer` acknowledgements of
    /// messages it holds.
    pub(crate) fn full_after(&self, more: u64, fewer: u64) -> bool {
        self.capacity > 0 && (self.held + more).saturating_sub(fewer) >= self.capacity
    }

    /// A message put with these numbers (its value, then its fields), not yet arrived; `id`
    /// is that of the message it copies (a duplicate), or `None` for a new one.
    pub(crate) fn put(&mut self, numbers: &[f64], id: Option<u32>) -> u32 {
        let id = id.unwrap_or_else(|| {
            self.put += 1;
            self.next_id += 1;
            self.next_id - 1
        });
        self.held += 1;
        self.data.extend_from_slice(&numbers[..self.width]);
        self.messages.push(Message {
            id,
            rank: 0,
            deliveries: 0,
            hidden_until: 0,
            state: State::Crossing,
        });
        (self.messages.len() - 1) as u32
    }

    /// Messages made so far.
    pub(crate) fn made(&self) -> usize {
        self.messages.len()
    }

    /// `message`'s id.
    pub(crate) fn id(&self, message: u32) -> u32 {
        self.messages[message as usize].id
    }

    /// `message`'s numbers (to put a copy of it).
    pub(crate) fn numbers(&self, message: u32) -> &[f64] {
        let at = message as usize * self.width;
        &self.data[at..at + self.width]
    }

    /// `message` was lost on the way.
    pub(crate) fn lose(&mut self, message: u32) {
        self.messages[message as usize].state = State::Lost;
        self.held -= 1;
        self.lost += 1;
    }

    /// `message` arrives: at the back.
    pub(crate) fn arrive(&mut self, message: u32) {
        let record = &mut self.messages[message as usize];
        record.state = State::Visible;
        record.rank = self.next_rank;
        self.next_rank += 1;
        self.visible.push_back(message);
        self.max_len = self.max_len.max(self.visible.len() as u64);
    }

    /// Whether a message is visible.
    pub(crate) fn has_visible(&self) -> bool {
        !self.visible.is_empty()
    }

    /// Takes the first visible message at `now`: the message and the take's receipt, and
    /// when it comes back unless acknowledged (`None`: it is gone). A message hidden is
    /// also kept in take order, which is the order its visibility runs out in (every take
    /// hides for the same time): one timer, for the first of them, serves them all.
    pub(crate) fn take(&mut self, now: Nanos) -> Option<(u32, u32, Option<Nanos>)> {
        let message = self.visible.pop_front()?;
        let record = &mut self.messages[message as usize];
        record.deliveries += 1;
        self.taken += 1;
        if record.deliveries > 1 {
            self.redelivered += 1;
        }
        let back = match self.visibility {
            Some(visibility) => {
                record.state = State::InFlight;
                record.hidden_until = now.saturating_add(visibility);
                let back = record.hidden_until;
                let receipt = record.deliveries;
                self.hidden.push_back((message, receipt));
                // A timer is set already for an earlier message: it sets the next.
                if self.timer {
                    return Some((message, receipt, None));
                }
                self.timer = true;
                Some(back)
            }
            None => {
                record.state = State::Done;
                self.held -= 1;
                None
            }
        };
        Some((message, record.deliveries, back))
    }

    /// The queue's timer, set for `now`: every hidden message whose visibility has run out
    /// and that is still unacknowledged is visible again, at its place. Whether one came
    /// back, and when the timer is due next (`None`: nothing is hidden).
    pub(crate) fn wake(&mut self, now: Nanos) -> (bool, Option<Nanos>) {
        let mut back = false;
        while let Some(&(message, receipt)) = self.hidden.front() {
            let record = self.messages[message as usize];
            if record.state != State::InFlight || record.deliveries != receipt {
                // Acknowledged, or back and taken again (a later entry holds it now).
                self.hidden.pop_front();
                continue;
            }
            if record.hidden_until > now {
                return (back, Some(record.hidden_until));
            }
            self.hidden.pop_front();
            back |= self.expire(message, now);
        }
        self.timer = false;
        (back, None)
    }

    /// `message`'s visibility runs out at `now`: if it is still unacknowledged, it is
    /// visible again at its place (true).
    fn expire(&mut self, message: u32, now: Nanos) -> bool {
        let record = self.messages[message as usize];
        if record.state != State::InFlight || record.hidden_until > now {
            return false;
        }
        self.messages[message as usize].state = State::Visible;
        self.returned += 1;
        // Usually at the front: it arrived before those that never left.
        match self.visible.front() {
            Some(&f) if self.messages[f as usize].rank < record.rank => {
                let at = self
                    .visible
                    .partition_point(|x| self.messages[*x as usize].rank < record.rank);
                self.visible.insert(at, message);
            }
            _ => self.visible.push_front(message),
        }
        self.max_len = self.max_len.max(self.visible.len() as u64);
        true
    }

    /// Whether take `receipt` of `message` still holds it (it may be acknowledged).
    pub(crate) fn can_ack(&self, message: u32, receipt: u32) -> bool {
        let record = &self.messages[message as usize];
        record.state == State::InFlight && record.deliveries == receipt
    }

    /// Acknowledges take `receipt` of `message`; false when its visibility ran out first.
    pub(crate) fn ack(&mut self, message: u32, receipt: u32) -> bool {
        if !self.can_ack(message, receipt) {
            return false;
        }
        self.messages[message as usize].state = State::Done;
        self.held -= 1;
        self.acked += 1;
        true
    }

    /// Messages waiting to be taken now (visible): a timeline's queue depth.
    pub(crate) fn visible_len(&self) -> u64 {
        self.visible.len() as u64
    }

    /// The values of the messages waiting to be taken now, the next to be taken first (a
    /// site explorer draws them).
    pub(crate) fn visible_values(&self) -> impl Iterator<Item = f64> + '_ {
        self.visible
            .iter()
            .map(|&m| self.data[m as usize * self.width])
    }

    /// Messages not gone at the end: visible, in flight or crossing.
    pub(crate) fn left(&self) -> u64 {
        self.held
    }

    /// A number of what `take` got: 0 the message's value, 1 its id, 2 its delivery count
    /// as that take saw it, 3 + f field f. NaN when the take got nothing.
    #[inline(always)]
    pub(crate) fn number(&self, take: Taken, what: u8) -> f64 {
        let message = take.message;
        if message == NO_MESSAGE {
            return f64::NAN;
        }
        match what {
            1 => f64::from(self.messages[message as usize].id),
            2 => f64::from(take.deliveries),
            index => {
                let offset = if index == 0 { 0 } else { index as usize - 2 };
                self.data[message as usize * self.width + offset]
            }
        }
    }
}

impl Queue {
    /// The bytes its messages, their numbers and its lists take, by their count (an
    /// explorer's memory estimate).
    pub(crate) fn heap_bytes(&self) -> u64 {
        super::bytes_of::<f64>(self.data.len())
            + super::bytes_of::<Message>(self.messages.len())
            + super::bytes_of::<u32>(self.visible.len())
            + super::bytes_of::<(u32, u32)>(
                self.waiters.len() + self.hidden.len() + self.callers.len(),
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_not_acknowledged_comes_back_at_its_place() {
        // Three messages; the first is taken and not acknowledged: when its visibility
        // (10 ns) runs out it is first again, ahead of the two that never left.
        let mut queue = Queue::new(0, 0, Some(10), 3);
        for v in [1.0, 2.0, 3.0] {
            let message = queue.put(&[v], None);
            queue.arrive(message);
        }
        let (message, receipt, back) = queue.take(0).unwrap();
        let first = Taken {
            message,
            deliveries: receipt,
            held: true,
        };
        assert_eq!((queue.number(first, 0), back), (1.0, Some(10)));
        assert_eq!(queue.wake(9), (false, Some(10)), "not before its time");
        assert_eq!(queue.wake(10), (true, None));
        let (again, second_receipt, _) = queue.take(10).unwrap();
        let second = Taken {
            message: again,
            deliveries: second_receipt,
            held: true,
        };
        assert_eq!(
            (again, queue.number(second, 2)),
            (message, 2.0),
            "the same message, twice"
        );
        assert_eq!(
            queue.number(first, 2),
            1.0,
            "the first take still saw delivery 1"
        );
        assert!(!queue.ack(message, receipt), "the first take's ack is late");
        assert!(queue.ack(message, second_receipt));
        assert_eq!(
            (
                queue.taken,
                queue.redelivered,
                queue.acked,
                queue.returned,
                queue.left()
            ),
            (2, 1, 1, 1, 2)
        );
    }

    #[test]
    fn a_capacity_counts_what_is_held() {
        // Capacity 2: two held, a third is refused until one is taken for good.
        let mut queue = Queue::new(0, 2, None, 0);
        assert!(!queue.full(0));
        let first = queue.put(&[0.0], None);
        queue.arrive(first);
        let second = queue.put(&[0.0], None);
        queue.arrive(second);
        assert!(queue.full(0));
        queue.take(0);
        assert!(!queue.full(0) && queue.full(1));
    }
}
