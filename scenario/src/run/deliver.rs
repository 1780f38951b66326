//! Delivering: a put (across the queue's link, if it has one), a take that waits for a
//! message, an acknowledgement, a key store's operations, and a transaction whose effects
//! land together when it ends or, when its actor crashes inside it, not at all.

use sim_core::EventQueue;

use crate::machine::keys::Found;
use crate::machine::keys::{bad_key, key_of};
use crate::machine::queue::{NO_MESSAGE, Taken};
use crate::point::Timeout;
use crate::run::handle::Flow;
use crate::run::recover::{
    ACKED, DUPLICATE, EXPIRED, FOUND, FULL, INSERTED, MISSING, NOT_HELD, PUT, REMOVED, REPLIED,
    SET, TAKEN,
};
use crate::run::state::{Deferred, Ev, NONE, Sim, Undo};
use crate::syntax::spec::{KeyOp, Num};

impl Sim<'_> {
    /// A put step: the message's numbers computed now; inside a transaction it is put when
    /// the transaction ends. False when a number is not a number (the run stops).
    pub(crate) fn put_step(
        &mut self,
        job: u32,
        queue: u16,
        value: &Num,
        fields: &[Num],
        events: &mut EventQueue<Ev>,
    ) -> bool {
        let mut numbers = std::mem::take(&mut self.scratch);
        numbers.clear();
        numbers.push(self.eval(job, value));
        for f in fields {
            numbers.push(self.eval(job, f));
        }
        let qu = queue as usize;
        if let Some(n) = numbers.iter().position(|x| !x.is_finite()) {
            let qp = &self.point.queues[qu];
            let what = match n {
                0 => format!("a put's value on `{}`", qp.name),
                f => format!("a put's field `{}` on `{}`", qp.field_names[f - 1], qp.name),
            };
            self.not_finite(job, &what, numbers[n]);
            self.scratch = numbers;
            return false;
        }
        let outcome = if self.transaction.job == Some(job) {
            // The transaction's earlier puts on this queue take room, and its earlier acks
            // of it free some: they land first, in order.
            let (mut puts, mut acks) = (0u64, 0u64);
            for d in &self.transaction.deferred {
                match d {
                    Deferred::Put { queue: x, .. } if *x == queue => puts += 1,
                    Deferred::Ack { queue: x, .. } if *x == queue => acks += 1,
                    _ => {}
                }
            }
            if self.queues[qu].full_after(puts, acks) {
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
        value: &Num,
        fields: &[Num],
        timeout: &Option<Timeout>,
        events: &mut EventQueue<Ev>,
    ) -> Flow {
        let now = events.now();
        let qu = queue as usize;
        let made = self.queues[qu].made();
        if !self.put_step(job, queue, value, fields, events) {
            return Flow::Wait;
        }
        if self.jobs[job as usize].outcome == FULL {
            return Flow::Next;
        }
        let deadline = match timeout {
            Some(t) => match self.deadline(job, t, now) {
                Some(d) => d,
                None => return Flow::Wait,
            },
            None => NONE,
        };
        let jb = &mut self.jobs[job as usize];
        jb.wait = jb.wait.wrapping_add(1);
        jb.calling = queue;
        jb.deadline = deadline;
        jb.step_started = now;
        let caller = (job, jb.wait);
        // The message and any copy its link made: a reply to either answers the call.
        for m in made..self.queues[qu].made() {
            self.queues[qu].set_caller(m as u32, caller);
        }
        if deadline != NONE {
            events.schedule_at(deadline, self.other, Ev::Timeout { job });
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
        value: &Num,
        events: &mut EventQueue<Ev>,
    ) -> bool {
        let now = events.now();
        let qu = queue as usize;
        let take = self.tables.taken[job as usize * self.queues.len() + qu];
        let Some((caller, wait)) = (take.message != NO_MESSAGE)
            .then(|| self.queues[qu].caller(take.message))
            .flatten()
        else {
            self.jobs[job as usize].outcome = NOT_HELD;
            return true;
        };
        let v = self.eval(job, value);
        if !v.is_finite() {
            let what = format!("a reply's value on `{}`", self.point.queues[qu].name);
            self.not_finite(job, &what, v);
            return false;
        }
        let c = &self.jobs[caller as usize];
        let waits = c.wait == wait
            && c.calling == queue
            && !c.cancelled
            && c.incarnation == self.actors[c.actor as usize].incarnation;
        let deadline = c.deadline;
        let back = match (waits, self.point.queues[qu].link) {
            (false, _) => None,
            (true, None) => Some(0),
            (true, Some(k)) => match self.cross_link(k as usize) {
                (_, true) => None,
                (d, false) if now.saturating_add(d) > deadline => None,
                (d, false) => Some(d),
            },
        };
        let Some(d) = back else {
            self.queues[qu].late_replies += 1;
            self.jobs[job as usize].outcome = EXPIRED;
            return true;
        };
        self.queues[qu].replies += 1;
        self.jobs[job as usize].outcome = REPLIED;
        let c = &mut self.jobs[caller as usize];
        let from = c.step_started;
        c.calling = u16::MAX;
        c.deadline = NONE;
        c.outcome = REPLIED;
        // A reply to a copy of its message finds it waiting no more.
        c.wait = c.wait.wrapping_add(1);
        self.tables.replies[caller as usize] = v;
        self.span(caller, "waiting", from, Some(now + d));
        if d > 0 {
            events.schedule_in(d, self.other, Ev::Resume { job: caller });
        } else {
            self.ready.push_back(caller);
        }
        true
    }

    /// Puts a message with these numbers on `queue` now; false when it is full.
    fn put_now(&mut self, queue: u16, numbers: &[f64], events: &mut EventQueue<Ev>) -> bool {
        let qu = queue as usize;
        if self.queues[qu].full(0) {
            self.queues[qu].refused += 1;
            return false;
        }
        if self.queues[qu].made() >= crate::machine::queue::MAX_MESSAGES {
            // Far past any memory limit: the estimate refuses such a run before it starts.
            self.error.get_or_insert_with(|| {
                format!(
                    "a queue makes at most {} messages in a run",
                    crate::machine::queue::MAX_MESSAGES
                )
            });
            return false;
        }
        let m = self.queues[qu].put(numbers, None);
        match self.point.queues[qu].link {
            None => {
                self.queues[qu].arrive(m);
                self.feed(qu, events);
            }
            Some(k) => {
                let k = k as usize;
                self.cross(qu, k, m, events);
                // A copy is a put of its own: a full queue refuses it (and counts it), so a
                // capacity holds copies included. Drawn whether or not there is room.
                let dup = self.links[k].chances().1;
                let copies = self.decide(dup, true, |sim| sim.links[k].duplicates());
                if copies && self.queues[qu].full(0) {
                    self.queues[qu].refused += 1;
                } else if copies {
                    // On the stack: a message has at most 1 + MAX_FIELDS numbers.
                    let mut copy = [0.0; 1 + crate::syntax::spec::MAX_FIELDS];
                    let numbers = self.queues[qu].numbers(m);
                    copy[..numbers.len()].copy_from_slice(numbers);
                    let width = numbers.len();
                    let id = self.queues[qu].id(m);
                    let m2 = self.queues[qu].put(&copy[..width], Some(id));
                    self.queues[qu].duplicated += 1;
                    self.cross(qu, k, m2, events);
                }
            }
        }
        true
    }

    /// Message `m` of queue `qu` crosses link `k`: it arrives after the crossing, or is lost.
    fn cross(&mut self, qu: usize, k: usize, m: u32, events: &mut EventQueue<Ev>) {
        let (d, lost) = self.cross_link(k);
        if lost {
            self.queues[qu].lose(m);
        } else {
            events.schedule_in(
                d,
                self.other,
                Ev::Arrive {
                    queue: qu as u16,
                    message: m,
                },
            );
        }
    }

    /// A message arrived at queue `qu`, or came back: it goes to the longest waiting taker.
    pub(crate) fn feed(&mut self, qu: usize, events: &mut EventQueue<Ev>) {
        let now = events.now();
        while self.queues[qu].has_visible() {
            let Some((job, wait)) = self.queues[qu].waiters.pop_front() else {
                return;
            };
            let j = &self.jobs[job as usize];
            // A wait that ended, or one of an actor that crashed since: no one to give it to.
            let dead = j.incarnation != self.actors[j.actor as usize].incarnation;
            if j.wait != wait || j.taking as usize != qu || dead {
                continue;
            }
            let from = j.step_started;
            let jb = &mut self.jobs[job as usize];
            jb.taking = u16::MAX;
            jb.deadline = NONE;
            if now > from {
                self.span(job, "waiting", from, Some(now));
            }
            self.take_now(job, qu, events);
            self.ready.push_back(job);
        }
    }

    /// `job` takes the first visible message of queue `qu` (there is one).
    fn take_now(&mut self, job: u32, qu: usize, events: &mut EventQueue<Ev>) {
        let Some((msg, deliveries, back)) = self.queues[qu].take(events.now()) else {
            return;
        };
        let nq = self.queues.len();
        self.tables.taken[job as usize * nq + qu] = Taken {
            message: msg,
            deliveries,
            held: true,
        };
        self.jobs[job as usize].outcome = TAKEN;
        self.mark(job, "taken", events.now());
        if let Some(at) = back {
            events.schedule_at(at, self.other, Ev::Visible { queue: qu as u16 });
        }
    }

    /// A take step: true when a message was taken at once (the actor goes on).
    pub(crate) fn take_step(
        &mut self,
        job: u32,
        queue: u16,
        timeout: &Option<Timeout>,
        events: &mut EventQueue<Ev>,
    ) -> bool {
        let now = events.now();
        let qu = queue as usize;
        self.jobs[job as usize].step_started = now;
        // Until it gets a message, the take has none: its names are unset (NaN), not the
        // last message's, and there is nothing to acknowledge.
        let nq = self.queues.len();
        self.tables.taken[job as usize * nq + qu] = Taken::NONE;
        // Waiters that stopped waiting (a timeout) are no one to queue behind.
        while let Some(&(w, wait)) = self.queues[qu].waiters.front() {
            let j = &self.jobs[w as usize];
            let dead = j.incarnation != self.actors[j.actor as usize].incarnation;
            if j.wait == wait && j.taking as usize == qu && !dead {
                break;
            }
            self.queues[qu].waiters.pop_front();
        }
        if self.queues[qu].has_visible() && self.queues[qu].waiters.is_empty() {
            self.take_now(job, qu, events);
            return true;
        }
        let deadline = match timeout {
            Some(t) => match self.deadline(job, t, now) {
                Some(d) => d,
                None => return false,
            },
            None => NONE,
        };
        let jb = &mut self.jobs[job as usize];
        jb.wait = jb.wait.wrapping_add(1);
        jb.taking = queue;
        jb.deadline = deadline;
        let wait = jb.wait;
        self.queues[qu].waiters.push_back((job, wait));
        if deadline != NONE {
            events.schedule_at(deadline, self.other, Ev::Timeout { job });
        }
        false
    }

    /// An ack step: the message the actor last took from `queue`, if its take still holds
    /// it (inside a transaction, acknowledged when the transaction ends). Outcome `acked`,
    /// `expired` (the message came back first) or `not_held` (nothing taken on this path,
    /// its take got nothing, or its message acknowledged already): the same inside a
    /// transaction and out of one.
    pub(crate) fn ack_step(&mut self, job: u32, queue: u16) {
        let qu = queue as usize;
        let slot = job as usize * self.queues.len() + qu;
        let Taken {
            message: m,
            deliveries: receipt,
            held,
        } = self.tables.taken[slot];
        if !held {
            self.jobs[job as usize].outcome = NOT_HELD;
            return;
        }
        let ok = if self.transaction.job == Some(job) {
            let ok = self.queues[qu].can_ack(m, receipt);
            self.transaction.deferred.push(if ok {
                Deferred::Ack {
                    queue,
                    message: m,
                    receipt,
                }
            } else {
                Deferred::Late
            });
            ok
        } else {
            self.queues[qu].ack(m, receipt)
        };
        // Acknowledged, or too late: the take holds it no more (its names stay).
        self.tables.taken[slot].held = false;
        self.jobs[job as usize].outcome = if ok { ACKED } else { EXPIRED };
        // Inside a transaction, marked when it lands.
        if self.transaction.job != Some(job) {
            self.mark(job, if ok { "acked" } else { "expired" }, self.now);
        }
    }

    /// A key store's step; false when the key is no key (the run stops with an error).
    pub(crate) fn keys_step(
        &mut self,
        job: u32,
        op: KeyOp,
        store: u16,
        key: &Num,
        value: &Num,
    ) -> bool {
        let x = self.eval(job, key);
        let Some(key) = key_of(x) else {
            let a = &self.actors[self.jobs[job as usize].actor as usize];
            self.error.get_or_insert(format!(
                "actor {} of `{}`: {}",
                a.index,
                self.point.groups[a.group as usize].name,
                bad_key(x)
            ));
            return false;
        };
        let s = store as usize;
        let held = |f: Found| match f {
            Found::Absent => f64::NAN,
            Found::Held(v) => v,
        };
        let (outcome, stored, undo) = match op {
            KeyOp::Lookup => {
                let f = self.keys[s].get(key);
                let o = if f == Found::Absent { MISSING } else { FOUND };
                (o, held(f), None)
            }
            KeyOp::Insert => {
                let v = self.eval(job, value);
                if !v.is_finite() {
                    let what = format!("an insert's value into `{}`", self.point.keys[s].name);
                    self.not_finite(job, &what, v);
                    return false;
                }
                let (f, u) = self.keys[s].insert(key, v);
                match f {
                    Found::Absent => (INSERTED, v, Some(u)),
                    f => (DUPLICATE, held(f), Some(u)),
                }
            }
            KeyOp::Set => {
                let v = self.eval(job, value);
                if !v.is_finite() {
                    let what = format!("a set's value into `{}`", self.point.keys[s].name);
                    self.not_finite(job, &what, v);
                    return false;
                }
                (SET, v, Some(self.keys[s].set(key, v)))
            }
            KeyOp::Remove => {
                let (f, u) = self.keys[s].remove(key);
                let o = if f == Found::Absent { MISSING } else { REMOVED };
                (o, held(f), Some(u))
            }
        };
        let total = self.keys[s].total();
        if !total.is_finite() {
            let what = format!("the total of `{}` after this step", self.point.keys[s].name);
            self.not_finite(job, &what, total);
            return false;
        }
        if let Some(u) = undo
            && self.transaction.job == Some(job)
        {
            self.transaction.undo.push(Undo::Key(store, u));
        }
        let nk = self.keys.len();
        self.tables.stored[job as usize * nk + s] = stored;
        self.jobs[job as usize].outcome = outcome;
        true
    }

    /// Stops the run: `job`'s step would store `x` (NaN or infinite) as `what`, which then
    /// stays not a number for good (a key store's total, a message's value).
    pub(crate) fn not_finite(&mut self, job: u32, what: &str, x: f64) {
        let j = &self.jobs[job as usize];
        if self.error.is_none() {
            // Where the step is written, even when it fails as an event of its own (a
            // write landing after `write_ms`).
            self.error_at.get_or_insert((j.group, j.step));
        }
        let a = &self.actors[j.actor as usize];
        self.error.get_or_insert(format!(
            "actor {} of `{}` at {} ms: {what} is {x}, not a finite number (a lookup that found no key, a take that got nothing and a name this path never set are not numbers: check `if = \"found\"` or `if = \"taken\"` first)",
            a.index,
            self.point.groups[a.group as usize].name,
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
    pub(crate) fn commit(&mut self, events: &mut EventQueue<Ev>) {
        let job = self.transaction.job.take();
        self.transaction.undo.clear();
        let deferred = std::mem::take(&mut self.transaction.deferred);
        let numbers = std::mem::take(&mut self.transaction.numbers);
        for d in &deferred {
            match *d {
                Deferred::Put { queue, at } => {
                    let w = 1 + self.point.queues[queue as usize].fields;
                    let at = at as usize;
                    // Room was counted when the put ran.
                    self.put_now(queue, &numbers[at..at + w], events);
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
        self.transaction.deferred = deferred;
        self.transaction.deferred.clear();
        self.transaction.numbers = numbers;
    }

    /// `job` crashed: if inside a transaction, nothing of it lands.
    pub(crate) fn roll_back(&mut self, job: u32) {
        if self.transaction.job != Some(job) {
            return;
        }
        self.transaction.job = None;
        while let Some(u) = self.transaction.undo.pop() {
            match u {
                Undo::Register(r, saved) => self.registers[r as usize] = saved,
                Undo::Key(s, u) => self.keys[s as usize].restore(u),
            }
        }
        self.transaction.deferred.clear();
        self.transaction.numbers.clear();
    }
}
