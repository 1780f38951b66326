//! Events a model may cancel before they are due: a heap of their own beside the queue's
//! main one, that knows where each entry stands, so that one can be taken out.
//!
//! Why a second heap: the main heap (std's `BinaryHeap`) cannot find an entry to take it
//! out, and tracking every entry's place would cost every model on every move. A model
//! that cancels few kinds of events (a timer it may no longer need) schedules only those
//! here; one that never does pays nothing per event (the run loop's check against the
//! time limit covers the first cancellable event too: `EventQueue::slow_from`).

use crate::time::Nanos;

/// A cancellable event's handle, from [`EventQueue::schedule_cancellable_at`]: hand it to
/// [`EventQueue::cancel`] to take the event out before it runs.
///
/// A ticket names one scheduling: once its event ran or was cancelled, the ticket cancels
/// nothing, even if its place is reused.
///
/// [`EventQueue::schedule_cancellable_at`]: crate::EventQueue::schedule_cancellable_at
/// [`EventQueue::cancel`]: crate::EventQueue::cancel
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ticket {
    slot: u32,
    generation: u32,
}

impl Ticket {
    /// No event: a ticket that cancels nothing (a model's "no timer pending").
    pub const NONE: Ticket = Ticket {
        slot: u32::MAX,
        generation: 0,
    };
}

/// The place of a slot whose event is not pending.
const FREE: u32 = u32::MAX;

/// One pending cancellable event in the heap: its key and its slot.
#[derive(Debug, Clone, Copy)]
struct Entry {
    time: Nanos,
    /// `class << 40 | seq`, as the main heap's.
    order: u64,
    slot: u32,
}

impl Entry {
    /// `(time, order)` as one number, the least first.
    #[inline(always)]
    fn key(&self) -> u128 {
        (u128::from(self.time) << 64) | u128::from(self.order)
    }
}

/// A slot: an event, the generation its ticket must carry, and its place in the heap.
#[derive(Debug, Clone, Copy)]
struct Slot<E> {
    event: E,
    generation: u32,
    /// Its index in `Cancellable::heap`, or [`FREE`].
    at: u32,
}

/// The cancellable events, least `(time, order)` first.
#[derive(Debug)]
pub(crate) struct Cancellable<E> {
    heap: Vec<Entry>,
    slots: Vec<Slot<E>>,
    /// Slots whose event ran or was cancelled, to reuse.
    free: Vec<u32>,
}

impl<E: Clone> Clone for Cancellable<E> {
    fn clone(&self) -> Self {
        Cancellable {
            heap: self.heap.clone(),
            slots: self.slots.clone(),
            free: self.free.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.heap.clone_from(&source.heap);
        self.slots.clone_from(&source.slots);
        self.free.clone_from(&source.free);
    }
}

impl<E> Default for Cancellable<E> {
    fn default() -> Self {
        Cancellable {
            heap: Vec::new(),
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<E> Cancellable<E> {
    /// Pending events.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }

    /// The least pending event's time.
    #[inline(always)]
    pub(crate) fn first_time(&self) -> Option<Nanos> {
        self.heap.first().map(|first| first.time)
    }

    /// The least key pending.
    #[inline(always)]
    pub(crate) fn first_key(&self) -> Option<u128> {
        self.heap.first().map(Entry::key)
    }
}

impl<E: Copy> Cancellable<E> {
    /// Adds `event` at `(time, order)`.
    #[inline(always)]
    pub(crate) fn push(&mut self, time: Nanos, order: u64, event: E) -> Ticket {
        let at = self.heap.len() as u32;
        let (slot, generation) = match self.free.pop() {
            Some(slot) => {
                let s = &mut self.slots[slot as usize];
                s.event = event;
                s.at = at;
                (slot, s.generation)
            }
            None => {
                self.slots.push(Slot {
                    event,
                    generation: 0,
                    at,
                });
                ((self.slots.len() - 1) as u32, 0)
            }
        };
        self.heap.push(Entry { time, order, slot });
        if at > 0 {
            self.sift_up(at as usize);
        }
        Ticket { slot, generation }
    }

    /// The least pending event and its time.
    #[inline(always)]
    pub(crate) fn first(&self) -> Option<(Nanos, E)> {
        let first = self.heap.first()?;
        Some((first.time, self.slots[first.slot as usize].event))
    }

    /// Takes out the least pending event.
    pub(crate) fn pop(&mut self) -> Option<E> {
        if self.heap.is_empty() {
            return None;
        }
        Some(self.remove_at(0))
    }

    /// The due time of `ticket`'s event, if it is still pending; the event taken out
    /// unless it is due after `latest` (then it stays, and so does the ticket).
    #[inline(always)]
    pub(crate) fn cancel(&mut self, ticket: Ticket, latest: Nanos) -> Option<Nanos> {
        let slot = self.slots.get_mut(ticket.slot as usize)?;
        if slot.generation != ticket.generation || slot.at == FREE {
            return None;
        }
        let at = slot.at as usize;
        let time = self.heap[at].time;
        if time <= latest {
            // `remove_at`, its slot known.
            slot.at = FREE;
            slot.generation = slot.generation.wrapping_add(1);
            self.free.push(ticket.slot);
            self.heap.swap_remove(at);
            if at < self.heap.len() {
                self.resift(at);
            }
        }
        Some(time)
    }

    /// Takes out the pending event of key `(time, order)`, if any (an explorer's choice).
    pub(crate) fn take(&mut self, time: Nanos, order: u64) -> Option<E> {
        let at = (self.heap.iter()).position(|e| e.time == time && e.order == order)?;
        Some(self.remove_at(at))
    }

    /// Every pending event with its time and order, in no set order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Nanos, u64, E)> + '_ {
        (self.heap.iter()).map(|e| (e.time, e.order, self.slots[e.slot as usize].event))
    }

    /// Every pending event and its class rewritten by `relabel` (given the class and the
    /// event, in place), in the heap's new order; tickets stay valid. `order_of` makes an
    /// order from a class and the old order's insertion number.
    pub(crate) fn relabel(
        &mut self,
        relabel: &mut impl FnMut(&mut u32, &mut E),
        class_of: impl Fn(u64) -> u32,
        order_of: impl Fn(u32, u64) -> u64,
    ) {
        for entry in &mut self.heap {
            let slot = &mut self.slots[entry.slot as usize];
            let mut class = class_of(entry.order);
            relabel(&mut class, &mut slot.event);
            entry.order = order_of(class, entry.order);
        }
        // A sorted array is a heap.
        self.heap.sort_unstable_by_key(Entry::key);
        for (at, entry) in self.heap.iter().enumerate() {
            self.slots[entry.slot as usize].at = at as u32;
        }
    }

    /// Takes the entry at `at` out of the heap and frees its slot: its event.
    #[inline]
    fn remove_at(&mut self, at: usize) -> E {
        let gone = self.heap.swap_remove(at);
        let slot = &mut self.slots[gone.slot as usize];
        let event = slot.event;
        slot.at = FREE;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(gone.slot);
        if at < self.heap.len() {
            self.resift(at);
        }
        event
    }

    /// The last entry took the place `at`: it goes up or down to where it belongs.
    #[inline(never)]
    fn resift(&mut self, at: usize) {
        self.slots[self.heap[at].slot as usize].at = at as u32;
        if at > 0 && self.heap[at].key() < self.heap[(at - 1) / 2].key() {
            self.sift_up(at);
        } else {
            self.sift_down(at);
        }
    }

    /// Moves the entry at `at` up to its place.
    #[inline(never)]
    fn sift_up(&mut self, mut at: usize) {
        let moving = self.heap[at];
        let key = moving.key();
        while at > 0 {
            let parent = (at - 1) / 2;
            if self.heap[parent].key() <= key {
                break;
            }
            self.place(at, self.heap[parent]);
            at = parent;
        }
        self.place(at, moving);
    }

    /// Moves the entry at `at` down to its place.
    fn sift_down(&mut self, mut at: usize) {
        let moving = self.heap[at];
        let key = moving.key();
        let len = self.heap.len();
        loop {
            let left = 2 * at + 1;
            if left >= len {
                break;
            }
            let right = left + 1;
            let child = if right < len && self.heap[right].key() < self.heap[left].key() {
                right
            } else {
                left
            };
            if key <= self.heap[child].key() {
                break;
            }
            self.place(at, self.heap[child]);
            at = child;
        }
        self.place(at, moving);
    }

    /// Puts `entry` at `at`, its slot told where it stands.
    #[inline(always)]
    fn place(&mut self, at: usize, entry: Entry) {
        self.heap[at] = entry;
        self.slots[entry.slot as usize].at = at as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pops everything: the events in the order they come out.
    fn drain(c: &mut Cancellable<char>) -> Vec<char> {
        std::iter::from_fn(|| c.pop()).collect()
    }

    #[test]
    fn pops_least_time_then_order_and_cancels_by_ticket() {
        let mut c = Cancellable::default();
        let a = c.push(30, 0, 'a');
        let b = c.push(10, 5, 'b');
        let _ = c.push(10, 2, 'c');
        let d = c.push(20, 0, 'd');
        assert_eq!(c.len(), 4);
        // Times 10 (orders 2, 5), 20, 30; 'd' taken out: c, b, a.
        assert_eq!(c.cancel(d, Nanos::MAX), Some(20));
        assert_eq!(c.cancel(d, Nanos::MAX), None, "a ticket cancels once");
        assert_eq!(drain(&mut c), ['c', 'b', 'a']);
        assert_eq!(c.cancel(a, Nanos::MAX), None, "its event ran");
        assert_eq!(c.cancel(b, Nanos::MAX), None);
        assert_eq!(c.len(), 0);
    }

    #[test]
    fn a_reused_slot_does_not_answer_to_an_old_ticket() {
        let mut c = Cancellable::default();
        let old = c.push(5, 0, 'x');
        assert_eq!(c.pop(), Some('x'));
        // The freed slot is taken by the next event, under a new generation.
        let new = c.push(7, 1, 'y');
        assert_ne!(old, new);
        assert_eq!(c.cancel(old, Nanos::MAX), None);
        assert_eq!(c.cancel(Ticket::NONE, Nanos::MAX), None);
        assert_eq!(c.iter().collect::<Vec<_>>(), [(7, 1, 'y')]);
        // Due after the latest time given: it stays, and its ticket still answers.
        assert_eq!(c.cancel(new, 6), Some(7));
        assert_eq!(c.len(), 1);
        assert_eq!(c.cancel(new, 7), Some(7));
        assert_eq!(c.len(), 0);
    }

    #[test]
    fn take_removes_one_by_key() {
        let mut c = Cancellable::default();
        for (i, t) in [4, 1, 3, 1, 2].into_iter().enumerate() {
            c.push(t, i as u64, char::from(b'a' + i as u8));
        }
        assert_eq!(c.take(3, 2), Some('c'));
        assert_eq!(c.take(3, 2), None);
        // (1,1) b, (1,3) d, (2,4) e, (4,0) a.
        assert_eq!(drain(&mut c), ['b', 'd', 'e', 'a']);
    }

    proptest::proptest! {
        /// Any mix of pushes, pops and cancels leaves what a sorted list leaves, and pops
        /// in its order.
        #[test]
        fn matches_a_sorted_list(ops in proptest::collection::vec((0u8..3, 0u64..8, 0usize..16), 0..200)) {
            let mut c = Cancellable::default();
            let mut reference: Vec<(Nanos, u64, u32)> = Vec::new();
            let mut tickets: Vec<(Ticket, Nanos, u64, u32)> = Vec::new();
            for (n, (op, time, pick)) in ops.into_iter().enumerate() {
                let (order, id) = (n as u64, n as u32);
                match op {
                    0 => {
                        tickets.push((c.push(time, order, id), time, order, id));
                        reference.push((time, order, id));
                    }
                    1 => {
                        reference.sort_unstable();
                        let expected = (!reference.is_empty()).then(|| reference.remove(0).2);
                        proptest::prop_assert_eq!(c.pop(), expected);
                    }
                    _ if !tickets.is_empty() => {
                        let (ticket, time, order, id) = tickets[pick % tickets.len()];
                        let at = reference.iter().position(|e| *e == (time, order, id));
                        proptest::prop_assert_eq!(c.cancel(ticket, Nanos::MAX), at.map(|_| time));
                        if let Some(at) = at {
                            reference.remove(at);
                        }
                    }
                    _ => {}
                }
                proptest::prop_assert_eq!(c.len(), reference.len());
            }
            reference.sort_unstable();
            let rest: Vec<_> = std::iter::from_fn(|| c.pop()).collect();
            let ids: Vec<_> = reference.iter().map(|e| e.2).collect();
            proptest::prop_assert_eq!(rest, ids);
        }
    }
}
