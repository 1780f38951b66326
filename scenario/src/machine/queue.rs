//! A message queue: FIFO by arrival, with an optional capacity, and at-least-once delivery
//! when it has a visibility timeout — a taken message is hidden until acknowledged, and one
//! not acknowledged in time comes back at its place.

use std::collections::VecDeque;

use sim_core::Nanos;

/// No message: an actor that has taken none from a queue.
pub(crate) const NO_MSG: u32 = u32::MAX;

/// What one take returned, as its actor keeps it. The names a take binds (`Q`, `Q.id`,
/// `Q.deliveries`, `Q.FIELD`) read this snapshot, not the message's live state: a message
/// that came back and was taken again by another actor has a higher delivery count, but
/// the first taker's `Q.deliveries` stays the count its own take saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Taken {
    /// The message (`NO_MSG`: the take got nothing, or the path took none).
    pub msg: u32,
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
        msg: NO_MSG,
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
struct Msg {
    hidden_until: Nanos,
    id: u32,
    /// Its place in the queue: the order it first arrived in.
    rank: u32,
    /// Times it was taken; also the receipt of the take that holds it now (an ack names
    /// the take it acknowledges).
    deliveries: u32,
    state: State,
}

const _: () = assert!(std::mem::size_of::<Msg>() == 24);

/// One queue during a run.
pub(crate) struct Queue {
    /// Numbers per message: its value, then its fields.
    width: usize,
    data: Vec<f64>,
    msgs: Vec<Msg>,
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
    msgs,
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
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.data.len().hash(h);
        for x in &self.data {
            crate::machine::hash_f64(*x, h);
        }
        (
            &self.msgs,
            &self.visible,
            &self.waiters,
            &self.hidden,
            self.timer,
        )
            .hash(h);
        (
            self.held,
            self.next_id,
            self.next_rank,
            self.put,
            self.refused,
            self.taken,
        )
            .hash(h);
        (
            self.redelivered,
            self.acked,
            self.returned,
            self.lost,
            self.duplicated,
        )
            .hash(h);
        self.max_len.hash(h);
        (&self.callers, self.replies, self.late_replies).hash(h);
    }
}

impl Queue {
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
            msgs: Vec::with_capacity(room),
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

    /// Message `m` carries the call of `caller` (a job and the generation of its wait).
    pub(crate) fn set_caller(&mut self, m: u32, caller: (u32, u32)) {
        let m = m as usize;
        if self.callers.len() <= m {
            self.callers.resize(m + 1, NO_CALLER);
        }
        self.callers[m] = caller;
    }

    /// The call message `m` carries, if any.
    pub(crate) fn caller(&self, m: u32) -> Option<(u32, u32)> {
        self.callers
            .get(m as usize)
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
        self.msgs.push(Msg {
            id,
            rank: 0,
            deliveries: 0,
            hidden_until: 0,
            state: State::Crossing,
        });
        (self.msgs.len() - 1) as u32
    }

    /// Messages made so far.
    pub(crate) fn made(&self) -> usize {
        self.msgs.len()
    }

    /// Message `m`'s id.
    pub(crate) fn id(&self, m: u32) -> u32 {
        self.msgs[m as usize].id
    }

    /// The message `m`'s numbers (to put a copy of it).
    pub(crate) fn numbers(&self, m: u32) -> &[f64] {
        let at = m as usize * self.width;
        &self.data[at..at + self.width]
    }

    /// Message `m` was lost on the way.
    pub(crate) fn lose(&mut self, m: u32) {
        self.msgs[m as usize].state = State::Lost;
        self.held -= 1;
        self.lost += 1;
    }

    /// Message `m` arrives: at the back.
    pub(crate) fn arrive(&mut self, m: u32) {
        let msg = &mut self.msgs[m as usize];
        msg.state = State::Visible;
        msg.rank = self.next_rank;
        self.next_rank += 1;
        self.visible.push_back(m);
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
        let m = self.visible.pop_front()?;
        let msg = &mut self.msgs[m as usize];
        msg.deliveries += 1;
        self.taken += 1;
        if msg.deliveries > 1 {
            self.redelivered += 1;
        }
        let back = match self.visibility {
            Some(v) => {
                msg.state = State::InFlight;
                msg.hidden_until = now.saturating_add(v);
                let back = msg.hidden_until;
                let receipt = msg.deliveries;
                self.hidden.push_back((m, receipt));
                // A timer is set already for an earlier message: it sets the next.
                if self.timer {
                    return Some((m, receipt, None));
                }
                self.timer = true;
                Some(back)
            }
            None => {
                msg.state = State::Done;
                self.held -= 1;
                None
            }
        };
        Some((m, msg.deliveries, back))
    }

    /// The queue's timer, set for `now`: every hidden message whose visibility has run out
    /// and that is still unacknowledged is visible again, at its place. Whether one came
    /// back, and when the timer is due next (`None`: nothing is hidden).
    pub(crate) fn wake(&mut self, now: Nanos) -> (bool, Option<Nanos>) {
        let mut back = false;
        while let Some(&(m, receipt)) = self.hidden.front() {
            let msg = self.msgs[m as usize];
            if msg.state != State::InFlight || msg.deliveries != receipt {
                // Acknowledged, or back and taken again (a later entry holds it now).
                self.hidden.pop_front();
                continue;
            }
            if msg.hidden_until > now {
                return (back, Some(msg.hidden_until));
            }
            self.hidden.pop_front();
            back |= self.expire(m, now);
        }
        self.timer = false;
        (back, None)
    }

    /// Message `m`'s visibility runs out at `now`: if it is still unacknowledged, it is
    /// visible again at its place (true).
    fn expire(&mut self, m: u32, now: Nanos) -> bool {
        let msg = self.msgs[m as usize];
        if msg.state != State::InFlight || msg.hidden_until > now {
            return false;
        }
        self.msgs[m as usize].state = State::Visible;
        self.returned += 1;
        // Usually at the front: it arrived before those that never left.
        match self.visible.front() {
            Some(&f) if self.msgs[f as usize].rank < msg.rank => {
                let at = self
                    .visible
                    .partition_point(|x| self.msgs[*x as usize].rank < msg.rank);
                self.visible.insert(at, m);
            }
            _ => self.visible.push_front(m),
        }
        self.max_len = self.max_len.max(self.visible.len() as u64);
        true
    }

    /// Whether take `receipt` of message `m` still holds it (it may be acknowledged).
    pub(crate) fn can_ack(&self, m: u32, receipt: u32) -> bool {
        let msg = &self.msgs[m as usize];
        msg.state == State::InFlight && msg.deliveries == receipt
    }

    /// Acknowledges take `receipt` of `m`; false when its visibility ran out first.
    pub(crate) fn ack(&mut self, m: u32, receipt: u32) -> bool {
        if !self.can_ack(m, receipt) {
            return false;
        }
        self.msgs[m as usize].state = State::Done;
        self.held -= 1;
        self.acked += 1;
        true
    }

    /// Messages not gone at the end: visible, in flight or crossing.
    pub(crate) fn left(&self) -> u64 {
        self.held
    }

    /// A number of what `take` got: 0 the message's value, 1 its id, 2 its delivery count
    /// as that take saw it, 3 + f field f. NaN when the take got nothing.
    pub(crate) fn number(&self, take: Taken, what: u8) -> f64 {
        let m = take.msg;
        if m == NO_MSG {
            return f64::NAN;
        }
        match what {
            1 => f64::from(self.msgs[m as usize].id),
            2 => f64::from(take.deliveries),
            w => {
                let f = if w == 0 { 0 } else { w as usize - 2 };
                self.data[m as usize * self.width + f]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_not_acknowledged_comes_back_at_its_place() {
        // Three messages; the first is taken and not acknowledged: when its visibility
        // (10 ns) runs out it is first again, ahead of the two that never left.
        let mut q = Queue::new(0, 0, Some(10), 3);
        for v in [1.0, 2.0, 3.0] {
            let m = q.put(&[v], None);
            q.arrive(m);
        }
        let (m, r, back) = q.take(0).unwrap();
        let first = Taken {
            msg: m,
            deliveries: r,
            held: true,
        };
        assert_eq!((q.number(first, 0), back), (1.0, Some(10)));
        assert_eq!(q.wake(9), (false, Some(10)), "not before its time");
        assert_eq!(q.wake(10), (true, None));
        let (again, r2, _) = q.take(10).unwrap();
        let second = Taken {
            msg: again,
            deliveries: r2,
            held: true,
        };
        assert_eq!(
            (again, q.number(second, 2)),
            (m, 2.0),
            "the same message, twice"
        );
        assert_eq!(
            q.number(first, 2),
            1.0,
            "the first take still saw delivery 1"
        );
        assert!(!q.ack(m, r), "the first take's ack is late");
        assert!(q.ack(m, r2));
        assert_eq!(
            (q.taken, q.redelivered, q.acked, q.returned, q.left()),
            (2, 1, 1, 1, 2)
        );
    }

    #[test]
    fn a_capacity_counts_what_is_held() {
        // Capacity 2: two held, a third is refused until one is taken for good.
        let mut q = Queue::new(0, 2, None, 0);
        assert!(!q.full(0));
        let a = q.put(&[0.0], None);
        q.arrive(a);
        let b = q.put(&[0.0], None);
        q.arrive(b);
        assert!(q.full(0));
        q.take(0);
        assert!(!q.full(0) && q.full(1));
    }
}
