//! Delivering: a put (across the queue's link, if it has one), a take that waits for a
//! message, an acknowledgement, a key store's operations, and a transaction whose effects
//! land together when it ends or, when its actor crashes inside it, not at all. The steps
//! an outbox runs on every message (a put, a take, an ack, a transaction's end) are inlined
//! into the interpreter's loop: a call per step saved and restored half a dozen registers.

use sim_core::{EventQueue, Nanos};

use crate::machine::queue::{NO_MESSAGE, Taken};
use crate::point::{Operand, Timeout};
use crate::run::handle::Flow;
use crate::run::recover::{ACKED, EXPIRED, FULL, NOT_HELD, PUT, REPLIED, TAKEN};
use crate::run::state::{Deferred, DrawKind, Event, NONE, Sim, Undo};

impl Sim<'_> {
    /// A put step: the message's numbers computed now; inside a transaction it is put when
    /// the transaction ends. False when a number is not a number (the run stops).
    #[inline(always)]
    pub(crate) fn put_step(
        &mut self,
        job: u32,
        queue: u16,
        value: &Operand,
        fields: &[Operand],
        events: &mut EventQueue<Event>,
    ) -> bool {
        let mut numbers = std::mem::take(&mut self.scratch);
        numbers.clear();
        numbers.push(self.operand(job, value));
        for field in fields {
            numbers.push(self.operand(job, field));
        }
        let queue_index = queue as usize;
        if let Some(index) = numbers.iter().position(|x| !x.is_finite()) {
            let point_queue = &self.point.queues[queue_index];
            let what = match index {
                0 => format!("a put's value on `{}`", point_queue.name),
                field => format!(
                    "a put's field `{}` on `{}`",
                    point_queue.field_names[field - 1],
                    point_queue.name
                ),
            };
            self.not_finite(job, &what, numbers[index]);
            self.scratch = numbers;
            return false;
        }
        let outcome = if self.transaction.job == Some(job) {
            // The transaction's earlier puts on this queue take room, and its earlier acks
            // of it free some: they land first, in order.
            let (mut puts, mut acks) = (0u64, 0u64);
            for deferred in &self.transaction.deferred {
                match deferred {
                    Deferred::Put { queue: other, .. } if *other == queue => puts += 1,
                    Deferred::Ack { queue: other, .. } if *other == queue => acks += 1,
                    _ => {}
                }
            }
            if self.queues[queue_index].full_after(puts, acks) {
                // Counted when the transaction lands, like everything in it.
                self.transaction.deferred.push(Deferred::Refused { queue });
                FULL
            } else {
                let at = self.transaction.numbers.len() as u32;
                self.transaction.numbers.extend_from_slice(&numbers);
                self.transaction.deferred.push(Deferred::Put { queue, at });
                PUT
            }
        } else if self.put_now(queue, &numbers, events) {
            PUT
        } else {
            self.mark(job, "full", events.now());
            FULL
        };
        self.scratch = numbers;
        self.jobs[job as usize].outcome = outcome;
        true
    }

    /// A call step: its message put as a put's is, carrying the caller, and a wait for the
    /// reply (until its timeout, if any). A full queue refuses it: outcome `full`, and the
    /// actor goes on (`Flow::Next`).
    pub(crate) fn call_step(
        &mut self,
        job: u32,
        queue: u16,
        value: &Operand,
        fields: &[Operand],
        timeout: &Option<Timeout>,
        events: &mut EventQueue<Event>,
    ) -> Flow {
        let now = events.now();
        let queue_index = queue as usize;
        let made = self.queues[queue_index].made();
        if !self.put_step(job, queue, value, fields, events) {
            return Flow::Wait;
        }
        if self.jobs[job as usize].outcome == FULL {
            return Flow::Next;
        }
        let deadline = match timeout {
            Some(timeout) => match self.deadline(job, timeout, now) {
                Some(deadline) => deadline,
                None => return Flow::Wait,
            },
            None => NONE,
        };
        let job_state = &mut self.jobs[job as usize];
        job_state.wait = job_state.wait.wrapping_add(1);
        job_state.calling = queue;
        job_state.deadline = deadline;
        job_state.step_started = now;
        let caller = (job, job_state.wait);
        // The message and any copy its link made: a reply to either answers the call.
        for message in made..self.queues[queue_index].made() {
            self.queues[queue_index].set_caller(message as u32, caller);
        }
        if deadline != NONE {
            self.arm(job, deadline, events);
        }
        Flow::Wait
    }

    /// A reply step: to the caller of the message the actor last took from `queue`, if it
    /// still waits (outcome `replied`; `expired` when it stopped waiting, `not_held` when the
    /// message was no call or nothing was taken). The reply crosses the queue's link back,
    /// when it has one: lost, or later than the caller's deadline, it is too late.
    pub(crate) fn reply_step(
        &mut self,
        job: u32,
        queue: u16,
        value: &Operand,
        events: &mut EventQueue<Event>,
    ) -> bool {
        let now = events.now();
        let queue_index = queue as usize;
        let take = self.tables.taken[job as usize * self.queues.len() + queue_index];
        let Some((caller, wait)) = (take.message != NO_MESSAGE)
            .then(|| self.queues[queue_index].caller(take.message))
            .flatten()
        else {
            self.jobs[job as usize].outcome = NOT_HELD;
            return true;
        };
        let reply = self.operand(job, value);
        if !reply.is_finite() {
            let what = format!(
                "a reply's value on `{}`",
                self.point.queues[queue_index].name
            );
            self.not_finite(job, &what, reply);
            return false;
        }
        let caller_state = &self.jobs[caller as usize];
        let waits = caller_state.wait == wait
            && caller_state.calling == queue
            && !caller_state.cancelled
            && caller_state.incarnation == self.actors[caller_state.actor as usize].incarnation;
        let deadline = caller_state.deadline;
        // The reply crosses the link back whether or not its caller still waits: the
        // replier cannot know (a reply to a caller gone is traffic too, and may be lost).
        let (delay, lost) = match self.point.queues[queue_index].link {
            None => (0, false),
            Some(link) => self.cross_link(link as usize),
        };
        if !waits || lost || now.saturating_add(delay) > deadline {
            self.queues[queue_index].late_replies += 1;
            self.jobs[job as usize].outcome = EXPIRED;
            return true;
        }
        self.jobs[job as usize].outcome = REPLIED;
        let caller_state = &mut self.jobs[caller as usize];
        let from = caller_state.step_started;
        caller_state.calling = u16::MAX;
        caller_state.deadline = NONE;
        caller_state.outcome = REPLIED;
        // A reply to a copy of its message finds it waiting no more.
        caller_state.wait = caller_state.wait.wrapping_add(1);
        self.tables.replies[caller as usize] = reply;
        if delay > 0 {
            // Counted when it lands: the caller may be cancelled at a join, or crash, as
            // it crosses (`Sim::reply_lands`).
            caller_state.answering = queue;
            events.schedule_in(delay, self.other, Event::Resume { job: caller });
        } else {
            self.queues[queue_index].replies += 1;
            self.span(caller, "waiting", from, Some(now));
            self.ready.push_back(caller);
        }
        true
    }

    /// The reply crossing back to `job` from `queue` lands now: a reply when the job still
    /// waits for it, a late one when it was cancelled at a join or its actor crashed while
    /// the reply crossed.
    pub(crate) fn reply_lands(&mut self, job: u32, queue: u16, now: Nanos) {
        let job_state = &mut self.jobs[job as usize];
        job_state.answering = u16::MAX;
        let waits = !job_state.cancelled
            && job_state.incarnation == self.actors[job_state.actor as usize].incarnation;
        let from = job_state.step_started;
        if waits {
            self.queues[queue as usize].replies += 1;
            self.span(job, "waiting", from, Some(now));
        } else {
            self.queues[queue as usize].late_replies += 1;
        }
    }

    /// Puts a message with these numbers on `queue` now; false when it is full.
    fn put_now(&mut self, queue: u16, numbers: &[f64], events: &mut EventQueue<Event>) -> bool {
        let queue_index = queue as usize;
        if self.queues[queue_index].full(0) {
            self.queues[queue_index].refused += 1;
            return false;
        }
        if self.queues[queue_index].made() >= crate::machine::queue::MAX_MESSAGES {
            // Far past any memory limit: the estimate refuses such a run before it starts.
            self.error.get_or_insert_with(|| {
                format!(
                    "a queue makes at most {} messages in a run",
                    crate::machine::queue::MAX_MESSAGES
                )
            });
            return false;
        }
        let message = self.queues[queue_index].put(numbers, None);
        match self.point.queues[queue_index].link {
            None => {
                self.queues[queue_index].arrive(message);
                self.feed(queue_index, events);
            }
            Some(link) => {
                let link = link as usize;
                self.cross(queue_index, link, message, events);
                // A copy is a put of its own: a full queue refuses it (and counts it), so a
                // capacity holds copies included. Drawn whether or not there is room.
                let duplicate_chance = self.links[link].chances().1;
                let copies = self.decide(duplicate_chance, DrawKind::Duplicate, |sim| {
                    sim.links[link].duplicates()
                });
                if copies && self.queues[queue_index].full(0) {
                    self.queues[queue_index].refused += 1;
                } else if copies {
                    // On the stack: a message has at most 1 + MAX_FIELDS numbers.
                    let mut copy = [0.0; 1 + crate::syntax::spec::MAX_FIELDS];
                    let numbers = self.queues[queue_index].numbers(message);
                    copy[..numbers.len()].copy_from_slice(numbers);
                    let width = numbers.len();
                    let id = self.queues[queue_index].id(message);
                    let copy_message = self.queues[queue_index].put(&copy[..width], Some(id));
                    self.queues[queue_index].duplicated += 1;
                    self.cross(queue_index, link, copy_message, events);
                }
            }
        }
        true
    }

    /// `message` of the queue at `queue_index` crosses `link`: it arrives after the crossing,
    /// or is lost.
    fn cross(
        &mut self,
        queue_index: usize,
        link: usize,
        message: u32,
        events: &mut EventQueue<Event>,
    ) {
        let (delay, lost) = self.cross_link(link);
        if lost {
            self.queues[queue_index].lose(message);
        } else {
            events.schedule_in(
                delay,
                self.other,
                Event::Arrive {
                    queue: queue_index as u16,
                    message,
                },
            );
        }
    }

    /// A message arrived at the queue at `queue_index`, or came back: it goes to the longest
    /// waiting taker.
    pub(crate) fn feed(&mut self, queue_index: usize, events: &mut EventQueue<Event>) {
        let now = events.now();
        while self.queues[queue_index].has_visible() {
            let Some((job, wait)) = self.queues[queue_index].waiters.pop_front() else {
                return;
            };
            let job_state = &self.jobs[job as usize];
            // A wait that ended, or one of an actor that crashed since: no one to give it to.
            let dead = job_state.incarnation != self.actors[job_state.actor as usize].incarnation;
            if job_state.wait != wait || job_state.taking as usize != queue_index || dead {
                continue;
            }
            let from = job_state.step_started;
            let job_state = &mut self.jobs[job as usize];
            job_state.taking = u16::MAX;
            job_state.deadline = NONE;
            if now > from {
                self.span(job, "waiting", from, Some(now));
            }
            self.take_now(job, queue_index, events);
            self.ready.push_back(job);
        }
    }

    /// `job` takes the first visible message of the queue at `queue_index` (there is one).
    fn take_now(&mut self, job: u32, queue_index: usize, events: &mut EventQueue<Event>) {
        let Some((message, deliveries, back)) = self.queues[queue_index].take(events.now()) else {
            return;
        };
        let queue_count = self.queues.len();
        self.tables.taken[job as usize * queue_count + queue_index] = Taken {
            message,
            deliveries,
            held: true,
        };
        self.jobs[job as usize].outcome = TAKEN;
        self.mark(job, "taken", events.now());
        if let Some(at) = back {
            events.schedule_at(
                at,
                self.other,
                Event::Visible {
                    queue: queue_index as u16,
                },
            );
        }
    }

    /// A take step: true when a message was taken at once (the actor goes on).
    #[inline(always)]
    pub(crate) fn take_step(
        &mut self,
        job: u32,
        queue: u16,
        timeout: &Option<Timeout>,
        events: &mut EventQueue<Event>,
    ) -> bool {
        let now = events.now();
        let queue_index = queue as usize;
        self.jobs[job as usize].step_started = now;
        // Until it gets a message, the take has none: its names are unset (NaN), not the
        // last message's, and there is nothing to acknowledge.
        let queue_count = self.queues.len();
        self.tables.taken[job as usize * queue_count + queue_index] = Taken::NONE;
        // Waiters that stopped waiting (a timeout) are no one to queue behind.
        while let Some(&(waiter, wait)) = self.queues[queue_index].waiters.front() {
            let waiter_state = &self.jobs[waiter as usize];
            let dead =
                waiter_state.incarnation != self.actors[waiter_state.actor as usize].incarnation;
            if waiter_state.wait == wait && waiter_state.taking as usize == queue_index && !dead {
                break;
            }
            self.queues[queue_index].waiters.pop_front();
        }
        if self.queues[queue_index].has_visible() && self.queues[queue_index].waiters.is_empty() {
            self.take_now(job, queue_index, events);
            return true;
        }
        let deadline = match timeout {
            Some(timeout) => match self.deadline(job, timeout, now) {
                Some(deadline) => deadline,
                None => return false,
            },
            None => NONE,
        };
        let job_state = &mut self.jobs[job as usize];
        job_state.wait = job_state.wait.wrapping_add(1);
        job_state.taking = queue;
        job_state.deadline = deadline;
        let wait = job_state.wait;
        self.queues[queue_index].waiters.push_back((job, wait));
        if deadline != NONE {
            self.arm(job, deadline, events);
        }
        false
    }

    /// An ack step: the message the actor last took from `queue`, if its take still holds
    /// it (inside a transaction, acknowledged when the transaction ends). Outcome `acked`,
    /// `expired` (the message came back first) or `not_held` (nothing taken on this path,
    /// its take got nothing, or its message acknowledged already): the same inside a
    /// transaction and out of one.
    #[inline(always)]
    pub(crate) fn ack_step(&mut self, job: u32, queue: u16) {
        let queue_index = queue as usize;
        let slot = job as usize * self.queues.len() + queue_index;
        let Taken {
            message,
            deliveries: receipt,
            held,
        } = self.tables.taken[slot];
        if !held {
            self.jobs[job as usize].outcome = NOT_HELD;
            return;
        }
        let ok = if self.transaction.job == Some(job) {
            let ok = self.queues[queue_index].can_ack(message, receipt);
            self.transaction.deferred.push(if ok {
                Deferred::Ack {
                    queue,
                    message,
                    receipt,
                }
            } else {
                Deferred::Late
            });
            ok
        } else {
            self.queues[queue_index].ack(message, receipt)
        };
        // Acknowledged, or too late: the take holds it no more (its names stay).
        self.tables.taken[slot].held = false;
        self.jobs[job as usize].outcome = if ok { ACKED } else { EXPIRED };
        // Inside a transaction, marked when it lands.
        if self.transaction.job != Some(job) {
            self.mark(job, if ok { "acked" } else { "expired" }, self.now);
        }
    }

    /// Stops the run: `job`'s step would store `number` (NaN or infinite) as `what`, which
    /// then stays not a number for good (a key store's total, a message's value).
    pub(crate) fn not_finite(&mut self, job: u32, what: &str, number: f64) {
        let job_state = &self.jobs[job as usize];
        if self.error.is_none() {
            // Where the step is written, even when it fails as an event of its own (a
            // write landing after `write_ms`).
            self.error_at
                .get_or_insert((job_state.group, job_state.step));
        }
        let actor = &self.actors[job_state.actor as usize];
        self.error.get_or_insert(format!(
            "actor {} of `{}` at {} ms: {what} is {number}, not a finite number (a lookup that found no key, a take that got nothing and a name this path never set are not numbers: check `if = \"found\"` or `if = \"taken\"` first)",
            actor.index,
            self.point.groups[actor.group as usize].name,
            sim_core::ns_to_ms(self.now),
        ));
    }

    /// A transaction begins: its effects are undone if its actor crashes before its end.
    pub(crate) fn begin(&mut self, job: u32) {
        if self.transaction.job.is_some() {
            self.error
                .get_or_insert_with(|| "internal: a transaction inside a transaction".into());
        }
        self.transaction.job = Some(job);
        self.transaction.undo.clear();
        self.transaction.deferred.clear();
        self.transaction.numbers.clear();
    }

    /// The transaction ends: its puts and acks land now, with its other effects.
    #[inline(always)]
    pub(crate) fn commit(&mut self, events: &mut EventQueue<Event>) {
        let job = self.transaction.job.take();
        self.transaction.undo.clear();
        // By index, each entry copied out: what lands may read the run's state, and the
        // lists keep their room for the next transaction.
        for index in 0..self.transaction.deferred.len() {
            match self.transaction.deferred[index] {
                Deferred::Put { queue, at } => {
                    let width = 1 + self.point.queues[queue as usize].fields;
                    let at = at as usize;
                    // On the stack: a message has at most 1 + MAX_FIELDS numbers.
                    let mut numbers = [0.0; 1 + crate::syntax::spec::MAX_FIELDS];
                    numbers[..width].copy_from_slice(&self.transaction.numbers[at..at + width]);
                    // Room was counted when the put ran.
                    self.put_now(queue, &numbers[..width], events);
                }
                Deferred::Ack {
                    queue,
                    message,
                    receipt,
                } => {
                    // Held when it ran, at this instant: it lands now, and is marked.
                    if self.queues[queue as usize].ack(message, receipt)
                        && let Some(job) = job
                    {
                        self.mark(job, "acked", events.now());
                    }
                }
                Deferred::Refused { queue } => {
                    self.queues[queue as usize].refused += 1;
                    if let Some(job) = job {
                        self.mark(job, "full", events.now());
                    }
                }
                Deferred::Late => {
                    if let Some(job) = job {
                        self.mark(job, "expired", events.now());
                    }
                }
            }
        }
        // Its numbers stay until the next transaction begins (an explorer's state hashes
        // them as they are).
        self.transaction.deferred.clear();
    }

    /// `job` crashed: if inside a transaction, nothing of it lands.
    pub(crate) fn roll_back(&mut self, job: u32) {
        if self.transaction.job != Some(job) {
            return;
        }
        self.transaction.job = None;
        while let Some(undo) = self.transaction.undo.pop() {
            match undo {
                Undo::Register(register, saved) => self.registers[register as usize] = saved,
                Undo::Key(store, undo) => self.keys[store as usize].restore(undo),
            }
        }
        self.transaction.deferred.clear();
        self.transaction.numbers.clear();
    }
}
