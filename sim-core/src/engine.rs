//! The event queue and the run loop.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use crate::cancel::{Cancellable, Ticket};
use crate::time::Nanos;

/// A model-chosen rank that orders events at the same instant (lower runs first).
///
/// Most events use one class per kind; a model whose semantics say "at equal times, lower
/// client index first" may give each client its own class. At most [`MAX_CLASS`].
pub type Class = u32;

/// How events of equal time and class are ordered among themselves.
///
/// `Fifo` is the engine's rule, the one models state their semantics in. The others exist to
/// explore: a result that changes under `Lifo` or a `Shuffled` order rests on the order of
/// simultaneous events, which a model (or a lesson) should then state as a rule of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ties {
    /// In the order they were scheduled.
    #[default]
    Fifo,
    /// Last scheduled first.
    Lifo,
    /// A fixed pseudo-random order drawn from the seed (a bijection of the insertion numbers,
    /// so the order stays total and reproducible).
    Shuffled(u64),
    /// Classes run highest first (FIFO within a class): every order a model states by class
    /// (starts before what the run schedules, departures before arrivals) reversed at once,
    /// to find the figures that rest on one.
    ClassesReversed,
}

impl Ties {
    /// The rank of insertion number `seq` (40 bits) among equal-time, equal-class events.
    #[inline(always)]
    fn rank(self, seq: u64) -> u64 {
        match self {
            Ties::Fifo | Ties::ClassesReversed => seq,
            Ties::Lifo => SEQ_MASK - seq,
            Ties::Shuffled(seed) => {
                // Odd multipliers and xor-shifts are bijections modulo 2^40.
                let mut x = (seq ^ seed) & SEQ_MASK;
                x = x.wrapping_mul(0x9E37_79B9_7F4B) & SEQ_MASK;
                x ^= x >> 19;
                x = x.wrapping_mul(0xC2B2_AE3D_27D5) & SEQ_MASK;
                x ^= x >> 21;
                x
            }
        }
    }
}

/// How often (in events) a queue adds to its progress counter.
pub const PROGRESS_EVERY: u64 = 1 << 20;

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
    /// An event was scheduled before the current time: a model bug, not an input.
    #[error("an event was scheduled at {at_ns} ns, before the current time {now_ns} ns")]
    InThePast {
        /// When it was asked for.
        at_ns: Nanos,
        /// The clock at that moment.
        now_ns: Nanos,
    },
    /// A model-specific failure reported from inside a handler.
    #[error("{0}")]
    Model(String),
    /// The stop flag given to [`EventQueue::stop_on`] was raised (the user pressed Ctrl-C).
    #[error("stopped on request")]
    Stopped,
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

#[derive(Clone)]
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
impl<E> Entry<E> {
    /// `(time, order)` as one number: one 128-bit comparison orders two entries.
    #[inline(always)]
    fn key(&self) -> u128 {
        (u128::from(self.time) << 64) | u128::from(self.order)
    }
}
/// The heap compares with `<` and `<=`: they are written out, so no comparison goes through
/// an `Option<Ordering>` (which the optimizer did not always remove: a quarter of a polled
/// lock run's instructions).
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
    #[inline(always)]
    fn lt(&self, other: &Self) -> bool {
        other.key() < self.key()
    }
    #[inline(always)]
    fn le(&self, other: &Self) -> bool {
        other.key() <= self.key()
    }
    #[inline(always)]
    fn gt(&self, other: &Self) -> bool {
        other.key() > self.key()
    }
    #[inline(always)]
    fn ge(&self, other: &Self) -> bool {
        other.key() >= self.key()
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that std's max-heap pops the earliest `(time, class, seq)` first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
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
    /// Events run so far (by `run`, `run_until` and `step` together), against `max_events`.
    executed: u64,
    /// Shared count of events run, for a progress display (see [`EventQueue::report_progress`]).
    progress: Option<Arc<AtomicU64>>,
    /// Flags that end the run when one is raised (Ctrl-C; a failure elsewhere in a sweep).
    stop: Vec<Arc<std::sync::atomic::AtomicBool>>,
    /// The order of equal-time, equal-class events.
    ties: Ties,
    /// XORed into every class: 0, or [`MAX_CLASS`] to run classes highest first
    /// ([`Ties::ClassesReversed`]); branch-free on the hot path.
    class_flip: u64,
    /// The first scheduling error (a class too large, a time in the past), reported by the
    /// run loop before the next event: scheduling itself stays infallible and cheap.
    bad: Option<SimError>,
    /// The event being handled still sits at the top of the heap, already taken. Most handlers
    /// schedule one event; that event takes the slot and sinks to its place (one sift-down),
    /// instead of a pop and a push. The order events run in does not change: keys are unique.
    top_taken: bool,
    /// The events scheduled to be cancellable, in a heap of their own: the next event is
    /// the least of both heaps' first.
    cancellable: Cancellable<E>,
    /// The latest due time of the events cancelled so far (0: none).
    cancelled_until: Nanos,
    /// From this instant on, the loop looks past the main heap's first (`next_slow`): the
    /// instant after the time limit, or the first cancellable event's time when sooner. So
    /// the one check the loop made before there were cancellable events, against the time
    /// limit, covers them too: a model that never cancels pays nothing per event.
    slow_from: Nanos,
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
            executed: 0,
            progress: None,
            stop: Vec::new(),
            ties: Ties::Fifo,
            class_flip: 0,
            bad: None,
            top_taken: false,
            cancellable: Cancellable::default(),
            cancelled_until: 0,
            slow_from: limits.max_time.saturating_add(1),
        }
    }

    /// [`EventQueue::slow_from`] anew, after the cancellable heap's first changed.
    #[inline(always)]
    fn cancellable_changed(&mut self) {
        let first = self.cancellable.first_time().unwrap_or(Nanos::MAX);
        self.slow_from = self.limits.max_time.saturating_add(1).min(first);
    }

    /// Adds the events this queue runs to `counter`, every [`PROGRESS_EVERY`] events: a
    /// display can show a long run moving. It never changes what runs.
    pub fn report_progress(&mut self, counter: Arc<AtomicU64>) {
        self.progress = Some(counter);
    }

    /// Ends the run with [`SimError::Stopped`] once `flag` is raised, looked at every
    /// [`PROGRESS_EVERY`] events (so a long run stops within a moment of Ctrl-C). Called
    /// again, it adds a flag: the run stops when any of them is raised.
    pub fn stop_on(&mut self, flag: Arc<std::sync::atomic::AtomicBool>) {
        self.stop.push(flag);
    }

    /// Orders events of equal time and class by `ties` instead of FIFO: set before the
    /// first event is scheduled (to explore how much a result rests on that order).
    pub fn set_ties(&mut self, ties: Ties) {
        self.ties = ties;
        self.class_flip = if ties == Ties::ClassesReversed {
            u64::from(MAX_CLASS)
        } else {
            0
        };
    }

    /// The current virtual time: the time of the event being handled.
    #[inline]
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.top_taken) + self.cancellable.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedules `event` at absolute time `time`, which must not be before
    /// [`now`](Self::now): the clock never runs backwards. A time in the past (or a class
    /// above [`MAX_CLASS`]) makes the run stop with [`SimError::InThePast`]
    /// ([`SimError::ClassTooLarge`]) before its next event.
    #[inline]
    pub fn schedule_at(&mut self, time: Nanos, class: Class, event: E) {
        let entry = self.entry(time, class, event);
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

    /// The entry of `event` scheduled now at `time` in `class` (the next insertion number
    /// taken); a time in the past or a class too large noted as the run's error.
    #[inline(always)]
    fn entry(&mut self, time: Nanos, class: Class, event: E) -> Entry<E> {
        if (class > MAX_CLASS || time < self.now) && self.bad.is_none() {
            self.bad = Some(if class > MAX_CLASS {
                SimError::ClassTooLarge {
                    class,
                    max: MAX_CLASS,
                }
            } else {
                SimError::InThePast {
                    at_ns: time,
                    now_ns: self.now,
                }
            });
        }
        let class = (u64::from(class) ^ self.class_flip) & u64::from(MAX_CLASS);
        let order = (class << SEQ_BITS) | self.ties.rank(self.seq & SEQ_MASK);
        self.seq += 1;
        Entry {
            time: time.max(self.now),
            order,
            event,
        }
    }

    /// Schedules `event` after `delay` from now (saturating: a delay past the end of time is
    /// caught by the time limit, not wrapped).
    #[inline]
    pub fn schedule_in(&mut self, delay: Nanos, class: Class, event: E) {
        self.schedule_at(self.now.saturating_add(delay), class, event);
    }

    /// Every pending event rewritten by `relabel`, given its class and itself to change in
    /// place; each keeps its time and insertion number, and the queue orders them anew.
    /// An explorer that renames a state's actors (a symmetry's canonical order) renames
    /// their events with them: an event's class may follow its owner (a start's class is
    /// its actor's). Not for the hot path: it rebuilds the queue.
    pub fn relabel(&mut self, mut relabel: impl FnMut(&mut Class, &mut E))
    where
        E: Copy,
    {
        debug_assert!(!self.top_taken, "relabelled between events");
        let flip = self.class_flip;
        let class_of = |order: u64| ((order >> SEQ_BITS) ^ flip) as Class;
        let order_of = |class: Class, order: u64| {
            let class = (u64::from(class) ^ flip) & u64::from(MAX_CLASS);
            (class << SEQ_BITS) | (order & SEQ_MASK)
        };
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        for entry in &mut entries {
            let mut class = class_of(entry.order);
            relabel(&mut class, &mut entry.event);
            entry.order = order_of(class, entry.order);
        }
        self.heap = BinaryHeap::from(entries);
        self.cancellable.relabel(&mut relabel, class_of, order_of);
        self.cancellable_changed();
    }
}

/// One pending event, as [`EventQueue::due`] lists it for an explorer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Due<E> {
    /// Its class.
    pub class: Class,
    /// Its insertion number: with the time and class, the key [`run_due`] names it by.
    pub seq: u64,
    /// The event.
    pub event: E,
}

impl<E: Clone> Clone for EventQueue<E> {
    /// A copy of the pending events, the clock and the counts: an explorer's snapshot of a
    /// run, to go on from it along another order. The progress counter and stop flags are
    /// shared with the original.
    fn clone(&self) -> Self {
        EventQueue {
            heap: self.heap.clone(),
            now: self.now,
            seq: self.seq,
            limits: self.limits,
            executed: self.executed,
            progress: self.progress.clone(),
            stop: self.stop.clone(),
            ties: self.ties,
            class_flip: self.class_flip,
            bad: self.bad.clone(),
            top_taken: self.top_taken,
            cancellable: self.cancellable.clone(),
            cancelled_until: self.cancelled_until,
            slow_from: self.slow_from,
        }
    }

    /// Into the room `self` already has: an explorer copies a state's queue into a recycled
    /// one for every transition, with no allocation once it has grown.
    fn clone_from(&mut self, source: &Self) {
        let EventQueue {
            heap,
            now,
            seq,
            limits,
            executed,
            progress,
            stop,
            ties,
            class_flip,
            bad,
            top_taken,
            cancellable,
            cancelled_until,
            slow_from,
        } = source;
        self.heap.clone_from(heap);
        (self.now, self.seq, self.limits, self.executed) = (*now, *seq, *limits, *executed);
        self.progress.clone_from(progress);
        self.stop.clone_from(stop);
        (self.ties, self.class_flip, self.top_taken) = (*ties, *class_flip, *top_taken);
        self.bad.clone_from(bad);
        self.cancellable.clone_from(cancellable);
        (self.cancelled_until, self.slow_from) = (*cancelled_until, *slow_from);
    }
}

impl<E: Copy> EventQueue<E> {
    /// Every pending event due at the earliest pending time, in `(class, seq)` order, and
    /// that time: the events an explorer may choose among. Empty when none is pending.
    /// Costs a pass over every pending event (an explorer's queue is small).
    pub fn due(&self) -> (Nanos, Vec<Due<E>>) {
        let mut due = Vec::new();
        let first = self.due_into(&mut due);
        (first, due)
    }

    /// [`EventQueue::due`] into `due` (cleared first), so that an explorer that asks at
    /// every state reuses one list: the earliest pending time (now, when none is pending).
    pub fn due_into(&self, due: &mut Vec<Due<E>>) -> Nanos {
        due.clear();
        let Some(first) = self.pending().map(|(time, _)| time).min() else {
            return self.now;
        };
        due.extend(
            self.pending()
                .filter(|(time, _)| *time == first)
                .map(|(_, due)| due),
        );
        due.sort_unstable_by_key(|d| (d.class, d.seq));
        first
    }

    /// Every pending event with its time, class and insertion number, in no set order (for
    /// an explorer's fingerprint of a state): cancellable ones included.
    pub fn pending(&self) -> impl Iterator<Item = (Nanos, Due<E>)> + '_ {
        let due = |time: Nanos, order: u64, event: E| {
            let (class, seq) = ((order >> SEQ_BITS) as Class, order & SEQ_MASK);
            (time, Due { class, seq, event })
        };
        let main = self.heap.iter().map(move |e| due(e.time, e.order, e.event));
        main.chain(self.cancellable.iter().map(move |(t, o, e)| due(t, o, e)))
    }

    /// Schedules `event` at `time` as [`EventQueue::schedule_at`] does (the same order
    /// among all events, the same checks), and returns a ticket that can cancel it before
    /// it runs ([`EventQueue::cancel`]). Meant for an event a model expects to cancel
    /// often (a timer it may no longer need): it costs a little more to schedule and to run
    /// than one that cannot be cancelled.
    #[inline(always)]
    pub fn schedule_cancellable_at(&mut self, time: Nanos, class: Class, event: E) -> Ticket {
        let Entry { time, order, event } = self.entry(time, class, event);
        let ticket = self.cancellable.push(time, order, event);
        if time < self.slow_from {
            self.slow_from = time;
        }
        ticket
    }

    /// [`EventQueue::schedule_cancellable_at`] after `delay` from now (saturating).
    #[inline]
    pub fn schedule_cancellable_in(&mut self, delay: Nanos, class: Class, event: E) -> Ticket {
        self.schedule_cancellable_at(self.now.saturating_add(delay), class, event)
    }

    /// Cancels `ticket`'s event: true when it was pending (it will never run), false when
    /// it ran or was cancelled already. It is taken out of the queue, so it is neither run
    /// nor counted among the events run, and its due time counts in
    /// [`EventQueue::cancelled_until`]. One due past the time limit stays pending (and its
    /// ticket valid): the run stops when it comes due ([`SimError::TimeLimit`]), as it would
    /// have had it not been cancelled, and it never runs either way.
    #[inline(always)]
    pub fn cancel(&mut self, ticket: Ticket) -> bool {
        let Some(time) = self.cancellable.cancel(ticket, self.limits.max_time) else {
            return false;
        };
        if time <= self.limits.max_time {
            self.cancelled_until = self.cancelled_until.max(time);
            self.cancellable_changed();
        }
        true
    }

    /// The latest due time of an event cancelled so far (0 when none was): with the time
    /// of the last event run, when a run would have ended had every cancelled event run and
    /// done nothing.
    pub fn cancelled_until(&self) -> Nanos {
        self.cancelled_until
    }

    /// Events run so far.
    pub fn executed(&self) -> u64 {
        self.executed
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

/// Why the loop may not run the next event due at `next_time` (the loop calls this only
/// when one of the limits or a scheduling error says so: off the hot path).
#[cold]
#[inline(never)]
fn stop_reason<E>(queue: &EventQueue<E>, next_time: Nanos, events: u64) -> SimError {
    let limits = queue.limits;
    if next_time > limits.max_time {
        return SimError::TimeLimit {
            limit_ms: crate::ns_to_ms(limits.max_time),
            at_ms: crate::ns_to_ms(next_time),
        };
    }
    if events == limits.max_events {
        return SimError::EventLimit {
            limit: limits.max_events,
        };
    }
    queue
        .bad
        .clone()
        .unwrap_or(SimError::Model("the run stopped".into()))
}

/// Runs the next event: `Ok(false)` when none is pending (or the next is after `until`).
/// The main heap's first, as long as it comes before [`EventQueue::slow_from`] and no
/// other limit is near; else [`next_slow`] finds the next. The handler is called from one
/// place, whichever heap the event comes from, so that it is inlined here.
#[inline(always)]
fn step_inner<E: Copy, H: Handler<E>>(
    queue: &mut EventQueue<E>,
    handler: &mut H,
    events: &mut u64,
    until: Nanos,
) -> Result<bool, SimError> {
    let (time, event) = match queue.heap.peek() {
        Some(next)
            if next.time < queue.slow_from
                && *events != queue.limits.max_events
                && queue.bad.is_none() =>
        {
            if next.time > until {
                return Ok(false);
            }
            // Take the next event but leave its entry at the top for the first event the
            // handler schedules (see `top_taken`).
            queue.top_taken = true;
            (next.time, next.event)
        }
        _ => match next_slow(queue, *events, until)? {
            Some(next) => next,
            None => return Ok(false),
        },
    };
    queue.now = time;
    count(queue, events)?;
    let handled = handler.handle(event, queue);
    if queue.top_taken {
        queue.top_taken = false;
        queue.heap.pop();
    }
    handled?;
    Ok(true)
}

/// The next event to run, of either heap, when the main heap's first is at or past
/// [`EventQueue::slow_from`] (or a limit is near, or the main heap is empty): `None` when
/// none is pending or the next is after `until`, an error when a limit stops the run
/// before it. The main heap's first is left at the top, taken (`top_taken`); the
/// cancellable heap's is taken out.
#[cold]
#[inline(never)]
fn next_slow<E: Copy>(
    queue: &mut EventQueue<E>,
    events: u64,
    until: Nanos,
) -> Result<Option<(Nanos, E)>, SimError> {
    let main = queue
        .heap
        .peek()
        .map(|next| (next.key(), next.time, next.event));
    let cancellable = match (queue.cancellable.first_key(), main) {
        (Some(first), Some((key, ..))) => first < key,
        (first, _) => first.is_some(),
    };
    let (time, event) = if cancellable {
        match queue.cancellable.first() {
            Some(first) => first,
            None => return Ok(None),
        }
    } else {
        match main {
            Some((_, time, event)) => (time, event),
            None => return Ok(None),
        }
    };
    if time > until {
        return Ok(None);
    }
    if time > queue.limits.max_time || events == queue.limits.max_events || queue.bad.is_some() {
        return Err(stop_reason(queue, time, events));
    }
    if cancellable {
        // Taken out of its heap before it runs: the handler's first event is pushed as
        // any other.
        queue.cancellable.pop();
        queue.cancellable_changed();
    } else {
        queue.top_taken = true;
    }
    Ok(Some((time, event)))
}

/// Counts one more event run, and every [`PROGRESS_EVERY`] adds to the progress counter and
/// looks at the stop flags.
#[inline(always)]
fn count<E>(queue: &EventQueue<E>, events: &mut u64) -> Result<(), SimError> {
    *events += 1;
    if events.is_multiple_of(PROGRESS_EVERY) {
        if let Some(counter) = &queue.progress {
            counter.fetch_add(PROGRESS_EVERY, AtomicOrdering::Relaxed);
        }
        if queue.stop.iter().any(|f| f.load(AtomicOrdering::Relaxed)) {
            return Err(SimError::Stopped);
        }
    }
    Ok(())
}

/// Runs events in order until the queue is empty or a limit is hit.
pub fn run<E: Copy, H: Handler<E>>(
    queue: &mut EventQueue<E>,
    handler: &mut H,
) -> Result<RunSummary, SimError> {
    run_until(queue, handler, Nanos::MAX)
}

/// Runs every event due at or before `until` (virtual ns), in order, and leaves the later
/// ones pending: the clock stays at the last event run, so a caller can look at the state
/// at a virtual instant and then go on with [`run`], [`run_until`] or [`step`].
pub fn run_until<E: Copy, H: Handler<E>>(
    queue: &mut EventQueue<E>,
    handler: &mut H,
    until: Nanos,
) -> Result<RunSummary, SimError> {
    let mut events = queue.executed;
    let result = loop {
        match step_inner(queue, handler, &mut events, until) {
            Ok(true) => {}
            Ok(false) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    queue.executed = events;
    // A scheduling error made by the last event run still counts.
    result.and_then(|()| queue.bad.clone().map_or(Ok(()), Err))?;
    Ok(RunSummary {
        events,
        end_time: queue.now,
    })
}

/// Runs the next event only. Returns its time, or `None` when no event is pending.
pub fn step<E: Copy, H: Handler<E>>(
    queue: &mut EventQueue<E>,
    handler: &mut H,
) -> Result<Option<Nanos>, SimError> {
    let mut events = queue.executed;
    let ran = step_inner(queue, handler, &mut events, Nanos::MAX);
    queue.executed = events;
    match ran {
        Ok(true) => queue.bad.clone().map_or(Ok(Some(queue.now)), Err),
        Ok(false) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Runs the pending event due at the earliest time with this `class` and `seq` (one of
/// [`EventQueue::due`]) instead of the first in order: how an explorer runs the order it
/// chose. The limits hold as in [`run`]; `Ok(false)` when no such event is due first.
pub fn run_due<E: Copy, H: Handler<E>>(
    queue: &mut EventQueue<E>,
    handler: &mut H,
    class: Class,
    seq: u64,
) -> Result<bool, SimError> {
    let order = (u64::from(class) << SEQ_BITS) | seq;
    let Some(time) = queue.pending().map(|(time, _)| time).min() else {
        return Ok(false);
    };
    if time > queue.limits.max_time || queue.executed == queue.limits.max_events {
        return Err(stop_reason(queue, time, queue.executed));
    }
    if let Some(bad) = &queue.bad {
        return Err(bad.clone());
    }
    let before = queue.heap.len();
    let mut event = None;
    queue.heap.retain(|e| {
        if e.time == time && e.order == order && event.is_none() {
            event = Some(e.event);
            false
        } else {
            true
        }
    });
    let event = event.or_else(|| queue.cancellable.take(time, order));
    queue.cancellable_changed();
    let Some(event) = event else {
        return Ok(false);
    };
    debug_assert!(queue.heap.len() + 1 == before || queue.heap.len() == before);
    queue.now = time;
    queue.executed += 1;
    handler.handle(event, queue)?;
    queue.bad.clone().map_or(Ok(true), Err)
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
    fn scheduling_in_the_past_is_an_error_and_the_clock_never_runs_backwards() {
        struct Late(Vec<Nanos>);
        impl Handler<u8> for Late {
            fn handle(&mut self, e: u8, q: &mut EventQueue<u8>) -> Result<(), SimError> {
                self.0.push(q.now());
                if e == 0 {
                    q.schedule_at(3, 0, 1); // at 7: in the past
                }
                Ok(())
            }
        }
        let mut q = EventQueue::with_capacity(2, Limits::default());
        q.schedule_at(7, 0, 0u8);
        let mut late = Late(Vec::new());
        assert_eq!(
            run(&mut q, &mut late),
            Err(SimError::InThePast {
                at_ns: 3,
                now_ns: 7
            })
        );
        // The event at 7 ran; the one scheduled into the past never did.
        assert_eq!(late.0, [7]);
    }

    #[test]
    fn lifo_and_shuffled_ties_reorder_only_equal_time_and_class() {
        let order = |ties: Ties| {
            let mut q = EventQueue::with_capacity(8, Limits::default());
            q.set_ties(ties);
            for name in ["a", "b", "c", "d"] {
                q.schedule_at(5, 1, name);
            }
            q.schedule_at(5, 0, "class0");
            q.schedule_at(9, 0, "later");
            run_all(&mut q)
                .into_iter()
                .map(|(_, n)| n)
                .collect::<Vec<_>>()
        };
        assert_eq!(order(Ties::Fifo), ["class0", "a", "b", "c", "d", "later"]);
        assert_eq!(order(Ties::Lifo), ["class0", "d", "c", "b", "a", "later"]);
        let shuffled = order(Ties::Shuffled(7));
        // Time and class still rule; only the four equal ones move, reproducibly.
        assert_eq!((shuffled[0], shuffled[5]), ("class0", "later"));
        let mut middle = shuffled[1..5].to_vec();
        middle.sort_unstable();
        assert_eq!(middle, ["a", "b", "c", "d"]);
        assert_eq!(shuffled, order(Ties::Shuffled(7)));
        assert!((0..20).any(|s| order(Ties::Shuffled(s))[1..5] != ["a", "b", "c", "d"]));
        // Classes reversed: class 1 before class 0 at time 5, FIFO within the class, and
        // time still first.
        assert_eq!(
            order(Ties::ClassesReversed),
            ["a", "b", "c", "d", "class0", "later"]
        );
    }

    #[test]
    fn run_until_stops_at_an_instant_and_step_goes_on_one_event_at_a_time() {
        let mut q = EventQueue::with_capacity(8, Limits::default());
        for (t, name) in [(5, "a"), (10, "b"), (10, "c"), (20, "d")] {
            q.schedule_at(t, 0, name);
        }
        let mut rec = Recorder { seen: Vec::new() };
        // Everything due at or before 10, and not the event at 20.
        let s = run_until(&mut q, &mut rec, 10).unwrap();
        assert_eq!(
            s,
            RunSummary {
                events: 3,
                end_time: 10
            }
        );
        assert_eq!(q.len(), 1);
        assert_eq!(step(&mut q, &mut rec), Ok(Some(20)));
        assert_eq!(step(&mut q, &mut rec), Ok(None));
        let names: Vec<_> = rec.seen.iter().map(|(_, n)| *n).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
    }

    #[test]
    fn the_event_limit_counts_across_run_until_and_step() {
        let limits = Limits {
            max_events: 2,
            max_time: u64::MAX,
        };
        let mut q = EventQueue::with_capacity(4, limits);
        for t in [1, 2, 3] {
            q.schedule_at(t, 0, "x");
        }
        let mut rec = Recorder { seen: Vec::new() };
        assert_eq!(step(&mut q, &mut rec), Ok(Some(1)));
        assert_eq!(
            run(&mut q, &mut rec),
            Err(SimError::EventLimit { limit: 2 })
        );
        assert_eq!(rec.seen.len(), 2);
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

    #[test]
    fn cancellable_events_run_in_the_one_order_and_a_cancelled_one_never_runs() {
        let mut q = EventQueue::with_capacity(8, Limits::default());
        q.schedule_at(5, 1, "plain-5");
        // Same time and class, scheduled after: after it, whichever heap it sits in.
        let at_5 = q.schedule_cancellable_at(5, 1, "timer-5");
        // A lower class runs first at 5, though scheduled last of the three.
        q.schedule_at(5, 0, "class0-5");
        let doomed = q.schedule_cancellable_at(7, 0, "doomed-7");
        q.schedule_at(9, 0, "plain-9");
        let at_8 = q.schedule_cancellable_at(8, 0, "timer-8");
        assert_eq!(q.len(), 6);
        assert!(q.cancel(doomed));
        assert!(!q.cancel(doomed), "a ticket cancels once");
        assert!(!q.cancel(Ticket::NONE));
        assert_eq!((q.len(), q.cancelled_until()), (5, 7));
        assert_eq!(
            run_all(&mut q),
            [
                (5, "class0-5"),
                (5, "plain-5"),
                (5, "timer-5"),
                (8, "timer-8"),
                (9, "plain-9")
            ]
        );
        assert!(!q.cancel(at_5) && !q.cancel(at_8), "they ran");
        assert_eq!((q.executed(), q.cancelled_until()), (5, 7));
    }

    #[test]
    fn a_handler_cancels_a_timeout_its_answer_made_useless() {
        struct Client {
            timeout: Ticket,
            seen: Vec<(Nanos, &'static str)>,
        }
        impl Handler<&'static str> for Client {
            fn handle(
                &mut self,
                event: &'static str,
                q: &mut EventQueue<&'static str>,
            ) -> Result<(), SimError> {
                self.seen.push((q.now(), event));
                match event {
                    "ask" => {
                        q.schedule_in(3, 0, "answer");
                        self.timeout = q.schedule_cancellable_in(10, 0, "timeout");
                    }
                    "answer" => assert!(q.cancel(self.timeout)),
                    _ => {}
                }
                Ok(())
            }
        }
        let mut q = EventQueue::with_capacity(2, Limits::default());
        q.schedule_at(0, 0, "ask");
        let mut client = Client {
            timeout: Ticket::NONE,
            seen: Vec::new(),
        };
        let summary = run(&mut q, &mut client).unwrap();
        // The timeout (due at 0 + 10) never runs: the run ends with the answer at 3, and
        // would have ended at 10 had the timeout run and done nothing.
        assert_eq!(client.seen, [(0, "ask"), (3, "answer")]);
        assert_eq!(
            summary,
            RunSummary {
                events: 2,
                end_time: 3
            }
        );
        assert_eq!(q.cancelled_until(), 10);
    }

    #[test]
    fn a_cancelled_event_past_the_time_limit_still_stops_the_run() {
        let limits = Limits {
            max_events: 100,
            max_time: 100,
        };
        let mut q = EventQueue::with_capacity(2, limits);
        q.schedule_at(50, 0, "before");
        let late = q.schedule_cancellable_at(150, 0, "late");
        // It will never run, but stays: the run stops when it comes due, as it would have.
        assert!(q.cancel(late));
        assert!(q.cancel(late), "still pending: its ticket still answers");
        assert_eq!((q.len(), q.cancelled_until()), (2, 0));
        let mut rec = Recorder { seen: Vec::new() };
        assert_eq!(
            run(&mut q, &mut rec),
            Err(SimError::TimeLimit {
                limit_ms: crate::ns_to_ms(100),
                at_ms: crate::ns_to_ms(150)
            })
        );
        assert_eq!(rec.seen, [(50, "before")]);
    }

    #[test]
    fn an_explorer_sees_copies_and_runs_cancellable_events_as_any_other() {
        let mut q = EventQueue::with_capacity(4, Limits::default());
        q.schedule_at(5, 1, "plain");
        let timer = q.schedule_cancellable_at(5, 0, "timer");
        q.schedule_cancellable_at(6, 0, "later");
        let (first, due) = q.due();
        // Due at 5: the timer (class 0, insertion 1) before the plain one (class 1, 0).
        let names: Vec<_> = due.iter().map(|d| (d.class, d.seq, d.event)).collect();
        assert_eq!(first, 5);
        assert_eq!(names, [(0, 1, "timer"), (1, 0, "plain")]);
        assert_eq!(q.pending().count(), 3);
        // A copy is a state of its own: cancelling in it leaves the original as it was.
        let mut copy = q.clone();
        assert!(copy.cancel(timer));
        assert_eq!((copy.len(), q.len()), (2, 3));
        let mut rec = Recorder { seen: Vec::new() };
        // The plain one first, by choice; then the timer; then the rest in order.
        assert_eq!(run_due(&mut q, &mut rec, 1, 0), Ok(true));
        assert_eq!(run_due(&mut q, &mut rec, 0, 1), Ok(true));
        assert!(!q.cancel(timer), "it ran");
        run(&mut q, &mut rec).unwrap();
        assert_eq!(rec.seen, [(5, "plain"), (5, "timer"), (6, "later")]);
        copy.clone_from(&q);
        assert!(copy.is_empty());
    }

    /// Each event, when handled, cancels the event its entry in `cancels` names (if that
    /// one was scheduled cancellable), then schedules its follow-ups: (delay, class,
    /// cancellable).
    struct Cancelling {
        follow_ups: Vec<Vec<(Nanos, Class, bool)>>,
        cancels: Vec<usize>,
        tickets: Vec<Option<Ticket>>,
        ran: Vec<(Nanos, usize)>,
        answers: Vec<bool>,
    }

    impl Handler<usize> for Cancelling {
        fn handle(&mut self, id: usize, q: &mut EventQueue<usize>) -> Result<(), SimError> {
            self.ran.push((q.now(), id));
            if let Some(&target) = self.cancels.get(id)
                && let Some(Some(ticket)) = self.tickets.get(target)
            {
                self.answers.push(q.cancel(*ticket));
            }
            for &(delay, class, cancellable) in self.follow_ups.get(id).into_iter().flatten() {
                let id = self.tickets.len();
                self.tickets.push(if cancellable {
                    Some(q.schedule_cancellable_in(delay, class, id))
                } else {
                    q.schedule_in(delay, class, id);
                    None
                });
            }
            Ok(())
        }
    }

    /// What [`Cancelling`] does, on a plain list: the events run, each cancel's answer, and
    /// when the run ends counting the cancelled events' due times.
    fn cancelling_reference(
        initial: &[(Nanos, Class, bool)],
        follow_ups: &[Vec<(Nanos, Class, bool)>],
        cancels: &[usize],
    ) -> (Vec<(Nanos, usize)>, Vec<bool>, Nanos) {
        let mut pending: Vec<(Nanos, Class, usize)> = Vec::new();
        let mut cancellable = Vec::new();
        for (id, &(t, c, may)) in initial.iter().enumerate() {
            pending.push((t, c, id));
            cancellable.push(may);
        }
        let (mut ran, mut answers, mut end) = (Vec::new(), Vec::new(), 0);
        while let Some(pos) = (0..pending.len()).min_by_key(|&i| pending[i]) {
            let (t, _, id) = pending.remove(pos);
            ran.push((t, id));
            end = end.max(t);
            if let Some(&target) = cancels.get(id)
                && cancellable.get(target) == Some(&true)
            {
                let at = pending.iter().position(|e| e.2 == target);
                answers.push(at.is_some());
                if let Some(at) = at {
                    end = end.max(pending.remove(at).0);
                }
            }
            for &(delay, class, may) in follow_ups.get(id).into_iter().flatten() {
                pending.push((t + delay, class, cancellable.len()));
                cancellable.push(may);
            }
        }
        (ran, answers, end)
    }

    proptest::proptest! {
        /// Cancellable events among others, some cancelled as the run goes: what runs, in
        /// what order, each cancel's answer and the end counting the cancelled are those of
        /// a plain list.
        #[test]
        fn cancelling_keeps_the_order_of_what_remains(
            initial in proptest::collection::vec((0u64..20, 0u32..3, proptest::bool::ANY), 1..8),
            follow_ups in proptest::collection::vec(
                proptest::collection::vec((0u64..10, 0u32..3, proptest::bool::ANY), 0..3), 0..40),
            cancels in proptest::collection::vec(0usize..60, 0..60),
        ) {
            let mut q = EventQueue::with_capacity(4, Limits::default());
            let mut tickets = Vec::new();
            for (id, &(t, c, may)) in initial.iter().enumerate() {
                tickets.push(if may {
                    Some(q.schedule_cancellable_at(t, c, id))
                } else {
                    q.schedule_at(t, c, id);
                    None
                });
            }
            let mut h = Cancelling {
                follow_ups: follow_ups.clone(),
                cancels: cancels.clone(),
                tickets,
                ran: Vec::new(),
                answers: Vec::new(),
            };
            let summary = run(&mut q, &mut h).unwrap();
            let (ran, answers, end) = cancelling_reference(&initial, &follow_ups, &cancels);
            proptest::prop_assert_eq!(&h.ran, &ran);
            proptest::prop_assert_eq!(h.answers, answers);
            proptest::prop_assert_eq!(summary.events, ran.len() as u64);
            proptest::prop_assert_eq!(summary.end_time.max(q.cancelled_until()), end);
            proptest::prop_assert!(q.is_empty());
        }
    }
}
