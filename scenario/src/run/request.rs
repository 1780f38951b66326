//! Server and link steps: a request's arrival, service and departure (direct groups' too),
//! refusals of a server down, clients that leave, and sends across a link.

use sim_core::{EventQueue, Nanos, SimError, Waiting};

use crate::point::{Inst, Pick, Step, Timeout};
use crate::run::handle::Flow;
use crate::run::recover::{DELIVERED, REFUSED, SERVED};
use crate::run::state::{Ev, LOST, NO_JOB, NO_SERVER, NONE, Sim, Slot};

impl<'p> Sim<'p> {
    /// A request: its instance chosen, its deadline set, then queued at the server (or
    /// refused at once by one that is down and fails fast: it goes on from the step it was
    /// moved to).
    pub(super) fn request_step(
        &mut self,
        job: u32,
        server: &Pick,
        instance: &Inst,
        timeout: &Option<Timeout>,
        now: Nanos,
        events: &mut EventQueue<Ev>,
    ) -> Flow {
        let j = job as usize;
        let Some(s) = self.pick(job, server, self.servers.len()) else {
            return Flow::Wait;
        };
        let k = match instance {
            Inst::Fixed(k) => *k,
            Inst::Actor(num) => {
                let x = self.eval(job, num);
                if !(x >= 0.0 && x.fract() == 0.0 && x < 4e18) {
                    let index = self.actors[self.jobs[j].actor as usize].index;
                    self.error.get_or_insert(format!(
                        "actor {index}: a request's instance is {x}, not a whole number ≥ 0"
                    ));
                    return Flow::Wait;
                }
                (x as u64 % u64::from(self.point.servers[s].instances)) as u32
            }
        };
        if let Some(t) = timeout {
            self.jobs[j].step_started = now;
            let Some(deadline) = self.deadline(job, t, now) else {
                return Flow::Wait;
            };
            self.jobs[j].deadline = deadline;
            if deadline != NONE {
                events.schedule_at(deadline, self.other, Ev::Timeout { job });
            }
        }
        if self.request(job, s, k, events) {
            // Refused at once: its step is set, and it goes on here.
            return Flow::Here;
        }
        Flow::Wait
    }

    /// A send across a link: delivered after half its round trip, or lost (then only its
    /// timeout ends the wait).
    pub(super) fn send_step(
        &mut self,
        job: u32,
        link: &Pick,
        timeout: &Option<Timeout>,
        now: Nanos,
        events: &mut EventQueue<Ev>,
    ) -> Flow {
        let j = job as usize;
        let Some(k) = self.pick(job, link, self.links.len()) else {
            return Flow::Wait;
        };
        let (d, lost) = self.cross_link(k);
        let deadline = match timeout {
            Some(t) => match self.deadline(job, t, now) {
                Some(d) => d,
                None => return Flow::Wait,
            },
            None => NONE,
        };
        // Lost, or slower than its timeout: only the timeout ends the wait (none: the actor
        // waits for good).
        if lost || deadline < now.saturating_add(d) {
            let jb = &mut self.jobs[j];
            jb.serving = LOST;
            jb.deadline = deadline;
            if deadline != NONE {
                self.span(job, "crossing", now, Some(deadline));
                events.schedule_at(deadline, self.other, Ev::Timeout { job });
            } else {
                self.span(job, "crossing", now, None);
            }
            if lost {
                self.mark(job, "lost", now);
            }
            return Flow::Wait;
        }
        self.jobs[j].outcome = DELIVERED;
        if d > 0 {
            self.span(job, "crossing", now, Some(now + d));
            events.schedule_in(d, 1 + self.jobs[j].actor, Ev::Resume { job });
            return Flow::Wait;
        }
        Flow::Next
    }

    /// A service completes: the next request starts, the served one goes on.
    #[inline(never)]
    pub(super) fn depart(&mut self, s: usize, instance: u32, events: &mut EventQueue<Ev>) {
        let now = events.now();
        let Some((done, next)) = self.servers[s].depart(instance, now) else {
            self.error
                .get_or_insert_with(|| "internal: a departure from an idle server".into());
            return;
        };
        let abandons = self.point.servers[s].abandons;
        if let Some(next) = next {
            self.start_next(s, instance, next, now, events);
        }
        let job = if abandons {
            let slot = self.slots[done.tag as usize];
            let waiting = self.still_waiting(done.tag, s);
            self.free_slots.push(done.tag);
            match waiting {
                Some(job) => {
                    self.jobs[job as usize].serving = NO_SERVER;
                    job
                }
                // Its client left: work nobody waits for.
                None => {
                    self.servers[s].waste(now - slot.started);
                    return;
                }
            }
        } else {
            done.tag
        };
        if self.entities {
            // Served at once: a request with no wait still counts as one.
            let a = self.jobs[job as usize].actor as usize;
            let actor = &mut self.actors[a];
            actor.server_wait.get_or_insert(0);
        }
        if self.lanes.is_some() {
            let from = self.jobs[job as usize].step_started;
            self.span(job, "served", from, Some(now));
        }
        let j = &mut self.jobs[job as usize];
        j.in_service = false;
        j.outcome = SERVED;
        // Its timeout is no more: a timer still due for it finds nothing to end.
        j.deadline = NONE;
        j.step += 1;
        self.proceed(job, events);
    }

    /// A start of a direct group's actor (see `Sim::direct`): its request arrives, tagged
    /// with the actor itself, with no job, and its next start is scheduled.
    #[inline(always)]
    pub(super) fn start_direct(
        &mut self,
        actor: u32,
        s: usize,
        k: u32,
        events: &mut EventQueue<Ev>,
    ) {
        let now = events.now();
        // Its group's counts and the run's last end are added up after the run
        // (`Sim::settle_direct`): one count per request, not three.
        self.actors[actor as usize].started += 1;
        // The departure first: the first event a handler schedules takes the handled one's
        // place at the top of the heap, and one that is soon sinks less far than the next
        // start. The two differ in class, so their order changes no tie.
        if self.servers[s].arrive(k, actor, now) {
            self.serve_direct(s, k, now, now, events);
        }
        if let Some(at) = self.next_start(actor) {
            events.schedule_at(at, 1 + actor, Ev::Start { actor });
        }
    }

    /// A direct group's request is served: the next starts, and the actor's repetition is
    /// done (a job's steps would end here, in this event).
    #[inline(always)]
    pub(super) fn depart_direct(
        &mut self,
        s: usize,
        k: u32,
        g: usize,
        events: &mut EventQueue<Ev>,
    ) -> Result<(), SimError> {
        let now = events.now();
        let Some((done, next)) = self.servers[s].depart(k, now) else {
            return Err(SimError::Model(
                "internal: a departure from an idle server".into(),
            ));
        };
        if let Some(next) = next {
            self.serve_direct(s, k, next.arrived, now, events);
            if self.entities {
                let actor = &mut self.actors[next.tag as usize];
                actor.server_wait = Some(actor.server_wait.unwrap_or(0) + (now - next.arrived));
            }
        }
        let actor = &mut self.actors[done.tag as usize];
        if self.entities {
            actor.server_wait.get_or_insert(0);
        }
        actor.completed += 1;
        actor.end = Some(now);
        let group = &mut self.groups[g];
        if group.alias.is_none() {
            group.responses.record(now - done.arrived);
        }
        Ok(())
    }

    /// Instance `k` of server `s` starts serving `next` at `now`, which waited since its
    /// arrival.
    #[inline(always)]
    pub(super) fn start_next(
        &mut self,
        s: usize,
        k: u32,
        next: Waiting,
        now: Nanos,
        events: &mut EventQueue<Ev>,
    ) {
        self.serve(s, k, next.tag, next.arrived, now, events);
        let waited = now - next.arrived;
        let job = if self.point.servers[s].abandons {
            self.still_waiting(next.tag, s)
        } else {
            Some(next.tag)
        };
        if let Some(job) = job {
            if self.entities {
                let a = self.jobs[job as usize].actor as usize;
                let actor = &mut self.actors[a];
                actor.server_wait = Some(actor.server_wait.unwrap_or(0) + waited);
            }
            if waited > 0 {
                self.span(job, "waiting", next.arrived, Some(now));
            }
        }
    }

    /// `job`'s request to server `s` is refused (it is down and fails fast): its outcome
    /// says so, and its step is set to its timeout's steps, or else to its next step. The
    /// caller goes on from there in its own loop: a closed loop refused every repetition
    /// runs them by iteration, never by recursion (10^6 refusals at one instant are 10^6
    /// turns of `steps_of`'s loop, not 10^6 frames).
    pub(super) fn refused(&mut self, job: u32, s: usize, events: &mut EventQueue<Ev>) {
        self.servers[s].refuse();
        self.mark(job, "refused", events.now());
        let j = &mut self.jobs[job as usize];
        j.outcome = REFUSED;
        j.deadline = NONE;
        let steps = &self.point.groups[j.group as usize].steps;
        j.step = match &steps[j.step as usize] {
            Step::Request {
                timeout: Some(t), ..
            } => t.handler,
            _ => j.step + 1,
        };
    }

    /// The job whose request fills slot `tag` at server `s`, if it still waits for it.
    pub(super) fn still_waiting(&self, tag: u32, s: usize) -> Option<u32> {
        let slot = self.slots[tag as usize];
        let j = &self.jobs[slot.job as usize];
        (j.wait == slot.wait && j.serving as usize == s).then_some(slot.job)
    }

    /// Queues `job` at instance `k` of server `s` (served at once when it is idle). True
    /// when the job goes on at once from the step it was moved to (refused by a server
    /// that is down and fails fast): its caller runs it.
    #[inline(always)]
    pub(super) fn request(
        &mut self,
        job: u32,
        s: usize,
        k: u32,
        events: &mut EventQueue<Ev>,
    ) -> bool {
        let now = events.now();
        let sp = &self.point.servers[s];
        let tag = if sp.special {
            if sp.fail_fast && self.servers[s].is_down() {
                self.refused(job, s, events);
                return true;
            }
            if sp.abandons {
                self.slot(job, s, k)
            } else {
                job
            }
        } else {
            job
        };
        if self.servers[s].arrive(k, tag, now) {
            self.serve(s, k, tag, now, now, events);
        }
        false
    }

    /// A slot for `job`'s request at instance `k` of `s`, a server whose clients may
    /// leave: a new wait.
    pub(super) fn slot(&mut self, job: u32, s: usize, k: u32) -> u32 {
        let j = &mut self.jobs[job as usize];
        j.wait = j.wait.wrapping_add(1);
        j.serving = s as u16;
        let slot = Slot {
            job,
            wait: j.wait,
            started: NONE,
            instance: k,
        };
        let tag = match self.free_slots.pop() {
            Some(t) => {
                self.slots[t as usize] = slot;
                t
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        self.jobs[job as usize].slot = tag;
        tag
    }

    /// Starts serving a request at instance `k` of server `s` (arrived at `arrived`); `job`
    /// is its tag (a slot, at a server whose clients may leave).
    #[inline(always)]
    pub(super) fn serve(
        &mut self,
        s: usize,
        k: u32,
        job: u32,
        arrived: Nanos,
        now: Nanos,
        events: &mut EventQueue<Ev>,
    ) {
        let job = if self.point.servers[s].abandons {
            self.slots[job as usize].started = now;
            self.still_waiting(job, s)
        } else {
            Some(job)
        };
        if self.entities
            && let Some(job) = job
        {
            // A request whose service starts has a wait (0 when served at once), even if its
            // client gives up before the service ends.
            let a = self.jobs[job as usize].actor as usize;
            self.actors[a].server_wait.get_or_insert(0);
        }
        if let Some(job) = job {
            // Its service starts now: a timeout from here leaves no queueing behind, and a
            // drawn `served` span begins here.
            self.jobs[job as usize].in_service = true;
            if self.lanes.is_some() {
                self.jobs[job as usize].step_started = now;
            }
            if self.jobs[job as usize].parent != NO_JOB {
                self.started_service(job, now);
            }
        }
        self.serve_direct(s, k, arrived, now, events);
    }

    /// Starts serving a request at instance `k` of server `s`: its service drawn and its
    /// departure scheduled (a direct group's request, its tag the actor, needs no more).
    #[inline(always)]
    pub(super) fn serve_direct(
        &mut self,
        s: usize,
        k: u32,
        arrived: Nanos,
        now: Nanos,
        events: &mut EventQueue<Ev>,
    ) {
        let service = self.servers[s].start(k, arrived, now);
        events.schedule_in(
            service,
            0,
            Ev::Depart {
                server: s as u16,
                instance: k,
            },
        );
    }
}
