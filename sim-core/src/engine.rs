//! The event queue and the run loop.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::Nanos;

/// A model-chosen rank that orders events at the same instant (lower runs first).
///
/// Most events use one class per kind; a model whose semantics say "at equal times, lower
/// client index first" may give each client its own class. At most [`MAX_CLASS`].
pub type Class = u32;

/// Bits of the packed order word kept for the insertion sequence; the class sits above them.
const SEQ_BITS: u32 = 40;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;

/// Hard limits on one run. A run that would pass one stops with a [`SimError`] instead of
/// running away: every run is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most events one run may execute.
    pub max_events: u64,
    /// Latest virtual time an event may be scheduled for, in nanoseconds.
    pub max_time: Nanos,
}

impl Default for Limits {
    /// One billion events and 30 days of virtual time.
    fn default() -> Self {
        Limits {
            max_events: 1_000_000_000,
            max_time: 30 * 24 * 3_600 * 1_000_000_000,
        }
    }
}

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// The run needed more events than [`Limits::max_events`].
    #[error("the run exceeded the limit of {limit} events")]
    EventLimit {
        /// The limit in force.
        limit: u64,
    },
    /// An event was due after [`Limits::max_time`].
    #[error(
        "the run reached virtual time {at_ms} ms, past the limit of {limit_ms} ms{}",
        in_days(*limit_ms)
    )]
    TimeLimit {
        /// The limit in force, in milliseconds.
        limit_ms: f64,
        /// When the offending event was due, in milliseconds.
        at_ms: f64,
    },
    /// A class above [`MAX_CLASS`]: a model bug, not an input.
    #[error("event class {class} is above the limit of {max}")]
    ClassTooLarge {
        /// The class given.
        class: Class,
        /// The largest class allowed.
        max: Class,
    },
    /// A model-specific failure reported from inside a handler.
    #[error("{0}")]
    Model(String),
}

/// " (N days)" for spans of a day or more, for readable limit errors.
fn in_days(ms: f64) -> String {
    let days = ms / 86_400_000.0;
    if days >= 1.0 {
        format!(" ({days} days)")
    } else {
        String::new()
    }
}

/// The largest class: the class shares a 64-bit word with a 40-bit sequence number.
pub const MAX_CLASS: Class = (1 << (64 - SEQ_BITS)) - 1;

struct Entry<E> {
    time: Nanos,
    /// `class << 40 | seq`: one comparison orders class, then insertion.
    order: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.order == other.order
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that std's max-heap pops the earliest `(time, class, seq)` first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.order).cmp(&(self.time, self.order))
    }
}

/// Pending events in the total order `(time, class, seq)`.
///
/// Why a total order: a simulation is only reproducible if equal-time events always run in the
/// same order. `class` lets a model state the order its semantics demand (say, departures before
/// arrivals); `seq`, a counter bumped by every insertion, breaks the remaining ties FIFO, so events
/// scheduled for the same instant run in the order they were scheduled, never in heap order.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    now: Nanos,
    seq: u64,
    limits: Limits,
    bad_class: Option<Class>,
    /// The event being handled still sits at the top of the heap, already taken. Most handlers
    /// schedule one event; that event takes the slot and sinks to its place (one sift-down),
    /// instead of a pop and a push. The order events run in does not change: keys are unique.
    top_taken: bool,
}

impl<E> EventQueue<E> {
    /// An empty queue at time 0 with room for `capacity` pending events, so that a model that
    /// knows its largest pending set never allocates while it runs.
    pub fn with_capacity(capacity: usize, limits: Limits) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(capacity),
            now: 0,
            seq: 0,
            limits,
            bad_class: None,
            top_taken: false,
        }
    }

    /// The current virtual time: the time of the event being handled.
    #[inline]
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.top_taken)
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedules `event` at absolute time `time` (never before [`now`](Self::now): an earlier
    /// time is taken as now, so the clock never runs backwards).
    #[inline]
    pub fn schedule_at(&mut self, time: Nanos, class: Class, event: E) {
        if class > MAX_CLASS {
            self.bad_class = Some(class);
        }
        let order = ((class as u64) << SEQ_BITS) | (self.seq & SEQ_MASK);
        self.seq += 1;
        let entry = Entry {
            time: time.max(self.now),
            order,
            event,
        };
        if self.top_taken {
            // Replacing the taken top: the new entry sinks to its place when `top` drops.
            if let Some(mut top) = self.heap.peek_mut() {
                *top = entry;
            }
            self.top_taken = false;
        } else {
            self.heap.push(entry);
        }
    }

    /// Schedules `event` after `delay` from now (saturating: a delay past the end of time is
    /// caught by the time limit, not wrapped).
    #[inline]
    pub fn schedule_in(&mut self, delay: Nanos, class: Class, event: E) {
        self.schedule_at(self.now.saturating_add(delay), class, event);
    }
}

/// A model's reaction to its events. Generic, so the run loop dispatches statically.
pub trait Handler<E> {
    /// Handles one event at `queue.now()`, scheduling any events it causes.
    fn handle(&mut self, event: E, queue: &mut EventQueue<E>) -> Result<(), SimError>;
}

/// What a finished run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunSummary {
    /// Events executed.
    pub events: u64,
    /// Time of the last event executed (0 when none ran).
    pub end_time: Nanos,
}

/// Runs events in order until the queue is empty or a limit is hit.
pub fn run<E: Copy, H: Handler<E>>(
    queue: &mut EventQueue<E>,
    handler: &mut H,
) -> Result<RunSummary, SimError> {
    let mut events = 0u64;
    let limits = queue.limits;
    while let Some(next) = queue.heap.peek() {
        if next.time > limits.max_time {
            return Err(SimError::TimeLimit {
                limit_ms: crate::ns_to_ms(limits.max_time),
                at_ms: crate::ns_to_ms(next.time),
            });
        }
        if events == limits.max_events {
            return Err(SimError::EventLimit {
                limit: limits.max_events,
            });
        }
        if let Some(class) = queue.bad_class {
            return Err(SimError::ClassTooLarge {
                class,
                max: MAX_CLASS,
            });
        }
        // Take the next event but leave its entry at the top for the first event the
        // handler schedules (see `top_taken`).
        let (time, event) = (next.time, next.event);
        queue.now = time;
        queue.top_taken = true;
        events += 1;
        handler.handle(event, queue)?;
        if queue.top_taken {
            queue.top_taken = false;
            queue.heap.pop();
        }
    }
    Ok(RunSummary {
        events,
        end_time: queue.now,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the order events ran in and optionally schedules follow-ups.
    struct Recorder {
        seen: Vec<(Nanos, &'static str)>,
    }

    impl Handler<&'static str> for Recorder {
        fn handle(
            &mut self,
            event: &'static str,
            queue: &mut EventQueue<&'static str>,
        ) -> Result<(), SimError> {
            self.seen.push((queue.now(), event));
            if event == "spawn" {
                // Scheduled during the run for an instant that already has pending events:
                // it must run after them (FIFO), since it was inserted last.
                queue.schedule_in(0, 0, "spawned-now");
                queue.schedule_at(10, 0, "spawned-10");
            }
            Ok(())
        }
    }

    fn run_all(queue: &mut EventQueue<&'static str>) -> Vec<(Nanos, &'static str)> {
        let mut rec = Recorder { seen: Vec::new() };
        run(queue, &mut rec).unwrap();
        rec.seen
    }

    #[test]
    fn equal_time_and_class_run_fifo() {
        let mut q = EventQueue::with_capacity(8, Limits::default());
        for name in ["first", "second", "third"] {
            q.schedule_at(5, 0, name);
        }
        let names: Vec<_> = run_all(&mut q).into_iter().map(|(_, n)| n).collect();
        assert_eq!(names, ["first", "second", "third"]);
    }

    #[test]
    fn lower_class_runs_first_at_equal_time_whatever_the_insertion_order() {
        let mut q = EventQueue::with_capacity(8, Limits::default());
        q.schedule_at(5, 2, "class2");
        q.schedule_at(5, 1, "class1");
        q.schedule_at(4, 9, "earlier-time");
        q.schedule_at(5, 0, "class0");
        let names: Vec<_> = run_all(&mut q).into_iter().map(|(_, n)| n).collect();
        assert_eq!(names, ["earlier-time", "class0", "class1", "class2"]);
    }

    #[test]
    fn events_scheduled_during_the_run_queue_behind_equal_ones() {
        let mut q = EventQueue::with_capacity(8, Limits::default());
        q.schedule_at(10, 0, "before-10");
        q.schedule_at(0, 0, "spawn");
        q.schedule_at(0, 0, "after-spawn");
        let seen = run_all(&mut q);
        assert_eq!(
            seen,
            [
                (0, "spawn"),
                (0, "after-spawn"),
                (0, "spawned-now"),
                (10, "before-10"),
                (10, "spawned-10"),
            ]
        );
    }

    #[test]
    fn the_clock_never_runs_backwards() {
        struct Late;
        impl Handler<u8> for Late {
            fn handle(&mut self, e: u8, q: &mut EventQueue<u8>) -> Result<(), SimError> {
                if e == 0 {
                    q.schedule_at(3, 0, 1); // in the past: taken as now (= 7)
                }
                Ok(())
            }
        }
        let mut q = EventQueue::with_capacity(2, Limits::default());
        q.schedule_at(7, 0, 0u8);
        let summary = run(&mut q, &mut Late).unwrap();
        assert_eq!(
            summary,
            RunSummary {
                events: 2,
                end_time: 7
            }
        );
    }

    #[test]
    fn event_limit_stops_a_runaway_model() {
        struct Forever;
        impl Handler<()> for Forever {
            fn handle(&mut self, _: (), q: &mut EventQueue<()>) -> Result<(), SimError> {
                q.schedule_in(1, 0, ());
                Ok(())
            }
        }
        let limits = Limits {
            max_events: 100,
            max_time: u64::MAX,
        };
        let mut q = EventQueue::with_capacity(1, limits);
        q.schedule_at(0, 0, ());
        assert_eq!(
            run(&mut q, &mut Forever),
            Err(SimError::EventLimit { limit: 100 })
        );
    }

    #[test]
    fn time_limit_stops_a_run_before_the_late_event() {
        let limits = Limits {
            max_events: 100,
            max_time: 1_000,
        };
        let mut q = EventQueue::with_capacity(2, limits);
        q.schedule_at(1_000, 0, "at-limit");
        q.schedule_at(1_001, 0, "past-limit");
        let mut rec = Recorder { seen: Vec::new() };
        let err = run(&mut q, &mut rec).unwrap_err();
        assert!(matches!(err, SimError::TimeLimit { .. }));
        assert_eq!(rec.seen, [(1_000, "at-limit")]);
    }

    #[test]
    fn a_class_above_the_maximum_is_an_error_not_a_wrong_order() {
        let mut q = EventQueue::with_capacity(1, Limits::default());
        q.schedule_at(0, MAX_CLASS + 1, "x");
        let mut rec = Recorder { seen: Vec::new() };
        assert!(matches!(
            run(&mut q, &mut rec),
            Err(SimError::ClassTooLarge { .. })
        ));
    }

    /// Each event, when handled, schedules the follow-ups listed for it: (delay, class).
    struct Scripted {
        follow_ups: Vec<Vec<(Nanos, Class)>>,
        next_id: usize,
        ran: Vec<(Nanos, usize)>,
    }

    impl Handler<usize> for Scripted {
        fn handle(&mut self, id: usize, q: &mut EventQueue<usize>) -> Result<(), SimError> {
            self.ran.push((q.now(), id));
            for &(delay, class) in self.follow_ups.get(id).map_or(&[][..], |v| v.as_slice()) {
                q.schedule_in(delay, class, self.next_id);
                self.next_id += 1;
            }
            Ok(())
        }
    }

    /// The same script on a plain list: always run the pending event with the smallest
    /// (time, class, insertion number).
    fn reference(
        initial: &[(Nanos, Class)],
        follow_ups: &[Vec<(Nanos, Class)>],
    ) -> Vec<(Nanos, usize)> {
        let mut pending: Vec<(Nanos, Class, usize)> = initial
            .iter()
            .enumerate()
            .map(|(i, &(t, c))| (t, c, i))
            .collect();
        let mut next_id = initial.len();
        let mut ran = Vec::new();
        while let Some(pos) = (0..pending.len()).min_by_key(|&i| pending[i]) {
            let (t, _, id) = pending.remove(pos);
            ran.push((t, id));
            for &(delay, class) in follow_ups.get(id).map_or(&[][..], |v| v.as_slice()) {
                pending.push((t + delay, class, next_id));
                next_id += 1;
            }
        }
        ran
    }

    proptest::proptest! {
        #[test]
        fn runs_in_the_order_of_a_naive_reference(
            initial in proptest::collection::vec((0u64..20, 0u32..3), 1..8),
            follow_ups in proptest::collection::vec(
                proptest::collection::vec((0u64..10, 0u32..3), 0..3), 0..40),
        ) {
            let mut q = EventQueue::with_capacity(4, Limits::default());
            for (i, &(t, c)) in initial.iter().enumerate() {
                q.schedule_at(t, c, i);
            }
            let mut h = Scripted { follow_ups: follow_ups.clone(), next_id: initial.len(), ran: Vec::new() };
            run(&mut q, &mut h).unwrap();
            proptest::prop_assert_eq!(h.ran, reference(&initial, &follow_ups));
            proptest::prop_assert!(q.is_empty());
        }
    }
}
