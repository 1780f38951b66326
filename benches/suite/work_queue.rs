//! The explorer's second model, written for Stateright 0.31 as benches/configs/
//! work-queue.toml writes it for coordsim: a producer puts `workers × jobs` messages on a
//! take / ack queue; each worker, `jobs` times, takes a message (waiting in
//! line when there is none), acquires a queue lock (waiting in line when it is held), reads
//! the counter, writes back what it read + 1, releases the lock and acknowledges the
//! message. Every step takes no time; each shared step is one atomic action.
//!
//! A state holds what coordsim's explored state holds, so that both explore the same graph
//! (`explore --no-symmetry --no-reduce`), state for state. Most of it is what any model of
//! this would keep: the counter, the messages put and taken, who waits for a message and
//! who for the lock (in order), who holds the lock, and each worker's progress, the message
//! it took and the value it read. Three words more are history that coordsim keeps in its
//! state and that a model written from scratch would leave out; each one splits states that
//! would otherwise meet (see docs/performance.md, "The explorer"). Two more were keyed by
//! coordsim when this model was written, and no longer are (only `tie_order =
//! "reads_first"` reads them, and an exploration takes events in order): they stay here as
//! bits of [`WorkQueue::history`], to measure.
//! - the queue's greatest length so far (`max_len`, a metric it reports);
//! - each worker's count of the waits it queued for (a job's wait generation, which tells a
//!   stale entry of a queue or a lock from a live one);
//! - whether each worker's last acquire was handed the lock at a release of the same instant
//!   (a job's `handed_at`, which decides what its reads see under `reads_first`);
//! - which worker took the lock last (`last_taker`, for a lease's takeover words);
//! - whether the lock was ever released (`last_release`), which `handed_at` reads.
//!
//! And the end: the first take arms the queue's visibility timer (at `visibility_ms`), so
//! once every step has run at 0 ms, the clock moves to the timer, which finds every message
//! acknowledged: one more transition, to a state of its own.

use stateright::{Model, Property, Representative};

/// `workers` workers of `jobs` messages each; the producer puts `workers × jobs`.
/// `history`: which of the five words of history above a state keeps (a set of
/// [`HISTORY`]'s bits; all of them: coordsim's graph; none: the graph a model written from
/// scratch would have), to measure what each costs.
#[derive(Clone)]
pub(crate) struct WorkQueue {
    pub workers: usize,
    pub jobs: u8,
    pub history: u8,
}

/// The words of history, each a bit of [`WorkQueue::history`], by name.
pub(crate) const HISTORY: [(u8, &str); 5] = [
    (1, "the queue's greatest length"),
    (2, "each worker's waits"),
    (4, "each worker's handed flag"),
    (8, "the lock's last taker"),
    (16, "whether the lock was released"),
];

/// The words of history coordsim's state keeps: the queue's greatest length, each worker's
/// waits, the lock's last taker (not the handed flag nor the lock's release).
pub(crate) const ALL_HISTORY: u8 = 1 | 2 | 8;

/// Where a worker stands: the step it does next, or the line it waits in.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Pc {
    Take,
    /// In the queue's line of takers.
    WaitsForMessage,
    Acquire,
    /// In the lock's line.
    WaitsForLock,
    Read,
    Write,
    Release,
    Ack,
    /// Its `jobs` repetitions done.
    Done,
}

/// One worker.
#[derive(Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Worker {
    pc: Pc,
    /// Repetitions done.
    done: u8,
    /// The message its last take got (numbered from 0 in put order), until its next take
    /// starts or its last repetition ends; and whether it still holds it for an ack.
    taken: Option<u8>,
    held: bool,
    /// The counter as it read it in this repetition.
    read: Option<u8>,
    /// History (above): waits queued for, and whether its last acquire was handed over.
    waits: u8,
    handed: bool,
}

/// The queue, the lock, the counter and every worker.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub(crate) struct State {
    counter: u8,
    /// Messages put (the producer's progress) and taken: the queue holds `taken..put`.
    put: u8,
    taken: u8,
    /// Workers waiting for a message, the longest first.
    takers: Vec<u8>,
    holder: Option<u8>,
    /// Workers waiting for the lock, the longest first.
    lock_line: Vec<u8>,
    /// History (above).
    max_len: u8,
    last_taker: Option<u8>,
    released: bool,
    /// The visibility timer has run: the clock is past the instant every step ran at.
    timer_done: bool,
    workers: Vec<Worker>,
}

/// What happens next: the producer's put, a worker's step, or the queue's timer.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub(crate) enum Action {
    Put,
    Step(u8),
    Timer,
}

impl WorkQueue {
    fn messages(&self) -> u8 {
        self.workers as u8 * self.jobs
    }

    /// Whether anything runs at 0 ms still (the timer waits for the clock to move).
    fn busy(&self, s: &State) -> bool {
        s.put < self.messages() || s.workers.iter().any(|w| active(w.pc))
    }
}

/// A worker with a step of its own to take (not waiting in a line, not done).
fn active(pc: Pc) -> bool {
    !matches!(pc, Pc::WaitsForMessage | Pc::WaitsForLock | Pc::Done)
}

impl Model for WorkQueue {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        let worker = Worker {
            pc: Pc::Take,
            done: 0,
            taken: None,
            held: false,
            read: None,
            waits: 0,
            handed: false,
        };
        vec![State {
            counter: 0,
            put: 0,
            taken: 0,
            takers: Vec::new(),
            holder: None,
            lock_line: Vec::new(),
            max_len: 0,
            last_taker: None,
            released: false,
            timer_done: false,
            workers: vec![worker; self.workers],
        }]
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        if s.put < self.messages() {
            actions.push(Action::Put);
        }
        for (i, w) in s.workers.iter().enumerate() {
            if active(w.pc) {
                actions.push(Action::Step(i as u8));
            }
        }
        if actions.is_empty() && s.taken > 0 && !s.timer_done {
            actions.push(Action::Timer);
        }
    }

    /// One property that always holds (the counter never passes the messages): a checker
    /// stops once every property is decided, so this keeps it going over every state.
    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always(
            "the counter at most the messages",
            |m: &Self, s: &State| s.counter <= m.messages(),
        )]
    }

    fn next_state(&self, s: &State, action: Action) -> Option<State> {
        let mut n = s.clone();
        match action {
            Action::Put => {
                n.put += 1;
                n.max_len = n.max_len.max(n.put - n.taken);
                // The longest waiting taker gets it, and goes on to its acquire.
                if !n.takers.is_empty() {
                    let w = n.takers.remove(0) as usize;
                    n.workers[w].taken = Some(n.taken);
                    n.workers[w].held = true;
                    n.workers[w].pc = Pc::Acquire;
                    n.taken += 1;
                }
            }
            Action::Timer => {
                debug_assert!(!self.busy(s) && s.workers.iter().all(|w| !w.held));
                n.timer_done = true;
            }
            Action::Step(i) => {
                let i = i as usize;
                let w = &mut n.workers[i];
                match w.pc {
                    Pc::Take => {
                        w.taken = None;
                        if n.put > n.taken && n.takers.is_empty() {
                            w.taken = Some(n.taken);
                            w.held = true;
                            w.pc = Pc::Acquire;
                            n.taken += 1;
                        } else {
                            w.waits += 1;
                            w.pc = Pc::WaitsForMessage;
                            n.takers.push(i as u8);
                        }
                    }
                    Pc::Acquire => {
                        if n.holder.is_none() {
                            w.handed = n.released;
                            w.pc = Pc::Read;
                            n.holder = Some(i as u8);
                            n.last_taker = Some(i as u8);
                        } else {
                            w.waits += 1;
                            w.pc = Pc::WaitsForLock;
                            n.lock_line.push(i as u8);
                        }
                    }
                    Pc::Read => {
                        w.read = Some(n.counter);
                        w.pc = Pc::Write;
                    }
                    Pc::Write => {
                        n.counter = w.read.expect("read before its write") + 1;
                        w.pc = Pc::Release;
                    }
                    Pc::Release => {
                        w.pc = Pc::Ack;
                        n.holder = None;
                        n.released = true;
                        // Handed to the longest waiter, who goes on to its read.
                        if !n.lock_line.is_empty() {
                            let next = n.lock_line.remove(0);
                            let v = &mut n.workers[next as usize];
                            v.handed = true;
                            v.pc = Pc::Read;
                            n.holder = Some(next);
                            n.last_taker = Some(next);
                        }
                    }
                    Pc::Ack => {
                        w.held = false;
                        w.read = None;
                        w.done += 1;
                        if w.done < self.jobs {
                            // The same job goes on: what it took stays until its next take.
                            w.pc = Pc::Take;
                        } else {
                            // The job is freed: its rows (the message taken) are blanked.
                            w.pc = Pc::Done;
                            w.taken = None;
                        }
                    }
                    Pc::WaitsForMessage | Pc::WaitsForLock | Pc::Done => {
                        unreachable!("no step of its own")
                    }
                }
            }
        }
        // The words of history not kept: always at their start.
        let drop = |bit: u8| self.history & bit == 0;
        if drop(1) {
            n.max_len = 0;
        }
        for w in &mut n.workers {
            if drop(2) {
                w.waits = 0;
            }
            if drop(4) {
                w.handed = false;
            }
        }
        if drop(8) {
            n.last_taker = None;
        }
        if drop(16) {
            n.released = false;
        }
        Some(n)
    }
}

/// The workers are interchangeable: a state's representative lists them in order, and
/// renames every reference to one (the lines, the holder, the last taker) with them. Each
/// worker is ordered by its own words and then by where the references put it, so that
/// two workers alike in their words but not in their places are not taken as one.
impl Representative for State {
    fn representative(&self) -> Self {
        let place = |w: u8| {
            (
                self.takers.iter().position(|&t| t == w),
                self.lock_line.iter().position(|&t| t == w),
                self.holder == Some(w),
                self.last_taker == Some(w),
            )
        };
        let mut order: Vec<u8> = (0..self.workers.len() as u8).collect();
        order.sort_by(|&a, &b| {
            (&self.workers[a as usize], place(a)).cmp(&(&self.workers[b as usize], place(b)))
        });
        // `order[new] = old`; `rename[old] = new`.
        let mut rename = vec![0u8; order.len()];
        for (new, &old) in order.iter().enumerate() {
            rename[old as usize] = new as u8;
        }
        let renamed = |w: &u8| rename[*w as usize];
        State {
            takers: self.takers.iter().map(renamed).collect(),
            holder: self.holder.as_ref().map(renamed),
            lock_line: self.lock_line.iter().map(renamed).collect(),
            last_taker: self.last_taker.as_ref().map(renamed),
            workers: order
                .iter()
                .map(|&old| self.workers[old as usize].clone())
                .collect(),
            ..self.clone()
        }
    }
}

/// The model's graph walked breadth first by hand, without Stateright's checker: its states
/// and its transitions (every action of every state, to a state new or seen), to compare
/// with the transitions coordsim counts over the same graph.
pub(crate) fn graph(model: &WorkQueue) -> (usize, usize) {
    let mut seen: std::collections::HashSet<State> = model.init_states().into_iter().collect();
    let mut frontier: std::collections::VecDeque<State> = seen.iter().cloned().collect();
    let (mut transitions, mut actions) = (0, Vec::new());
    while let Some(state) = frontier.pop_front() {
        actions.clear();
        model.actions(&state, &mut actions);
        for &action in &actions {
            transitions += 1;
            let next = model
                .next_state(&state, action)
                .expect("every action steps");
            if seen.insert(next.clone()) {
                frontier.push_back(next);
            }
        }
    }
    (seen.len(), transitions)
}
