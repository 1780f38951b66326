//! Server and link steps: a request's arrival, service and departure (direct groups' too),
//! refusals of a server down, clients that leave, and sends across a link.

use sim_core::{EventQueue, Nanos, SimError, Waiting};

use crate::point::{Instance, Pick, Step, Timeout};
use crate::run::handle::Flow;
use crate::run::recover::{DELIVERED, REFUSED, SERVED};
use crate::run::state::{Event, LOST, NO_JOB, NO_SERVER, NONE, Sim, Slot, paced_start};

impl<'p> Sim<'p> {
    /// A request: its instance chosen, its deadline set, then queued at the server (or
    /// refused at once by one that is down and fails fast: it goes on from the step it was
    /// moved to).
    pub(super) fn request_step(
        &mut self,
        job: u32,
        server: &Pick,
        instance: &Instance,
        timeout: &Option<Timeout>,
        now: Nanos,
        events: &mut EventQueue<Event>,
    ) -> Flow {
        let job_index = job as usize;
        let Some(server) = self.pick(job, server, self.servers.len()) else {
            return Flow::Wait;
        };
        let instance = match instance {
            Instance::Fixed(instance) => *instance,
            Instance::Actor(number) => {
                let chosen = self.eval(job, number);
                if !(chosen >= 0.0 && chosen.fract() == 0.0 && chosen < 4e18) {
                    let index = self.actors[self.jobs[job_index].actor as usize].index;
                    self.error.get_or_insert(format!(
                        "actor {index}: a request's instance is {chosen}, not a whole number ≥ 0"
                    ));
                    return Flow::Wait;
                }
                (chosen as u64 % u64::from(self.point.servers[server].instances)) as u32
            }
        };
        // Its wait starts here: a timeout, or a cancel at a join, counts its queueing from it.
        self.jobs[job_index].step_started = now;
        if let Some(timeout) = timeout {
            let Some(deadline) = self.deadline(job, timeout, now) else {
                return Flow::Wait;
            };
            self.jobs[job_index].deadline = deadline;
            if deadline != NONE {
                self.arm(job, deadline, events);
            }
        }
        if self.request(job, server, instance, events) {
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
        events: &mut EventQueue<Event>,
    ) -> Flow {
        let job_index = job as usize;
        let Some(link) = self.pick(job, link, self.links.len()) else {
            return Flow::Wait;
        };
        let (delay, lost) = self.cross_link(link);
        let deadline = match timeout {
            Some(timeout) => match self.deadline(job, timeout, now) {
                Some(deadline) => deadline,
                None => return Flow::Wait,
            },
            None => NONE,
        };
        // Lost, or slower than its timeout: only the timeout ends the wait (none: the actor
        // waits for good).
        if lost || deadline < now.saturating_add(delay) {
            let job_state = &mut self.jobs[job_index];
            job_state.serving = LOST;
            job_state.deadline = deadline;
            if deadline != NONE {
                self.span(job, "crossing", now, Some(deadline));
                self.arm(job, deadline, events);
            } else {
                self.span(job, "crossing", now, None);
            }
            if lost {
                self.mark(job, "lost", now);
            }
            return Flow::Wait;
        }
        self.jobs[job_index].outcome = DELIVERED;
        if delay > 0 {
            self.span(job, "crossing", now, Some(now + delay));
            events.schedule_in(delay, 1 + self.jobs[job_index].actor, Event::Resume { job });
            return Flow::Wait;
        }
        Flow::Next
    }

    /// A service completes: the next request starts, the served one goes on.
    #[inline(never)]
    pub(super) fn depart(&mut self, server: usize, instance: u32, events: &mut EventQueue<Event>) {
        let now = events.now();
        let Some((done, next)) = self.servers[server].depart(instance, now) else {
            self.error
                .get_or_insert_with(|| "internal: a departure from an idle server".into());
            return;
        };
        let abandons = self.point.servers[server].abandons;
        if let Some(next) = next {
            self.start_next(server, instance, next, now, events);
        }
        let (job, branch) = if abandons {
            let slot = self.slots[done.tag as usize];
            let waiting = self.still_waiting(done.tag, server);
            self.free_slots.push(done.tag);
            match waiting {
                Some(job) => {
                    self.jobs[job as usize].serving = NO_SERVER;
                    (job, slot.branch)
                }
                // Its client left: work nobody waits for.
                None => {
                    self.servers[server].waste(now - slot.started);
                    return;
                }
            }
        } else {
            (done.tag, 0)
        };
        if self.entities {
            // Served at once: a request with no wait still counts as one.
            let actor_index = self.jobs[job as usize].actor as usize;
            let actor = &mut self.actors[actor_index];
            actor.server_wait.get_or_insert(0);
        }
        if self.lanes.is_some() {
            let from = self.jobs[job as usize].step_started;
            self.span(job, "served", from, Some(now));
        }
        if branch != 0 {
            // A branch's request made in its parent's name (`INLINE`): the branch is through.
            return self.inline_through(job, branch, events);
        }
        let job_state = &mut self.jobs[job as usize];
        job_state.in_service = false;
        job_state.outcome = SERVED;
        // Its timeout is no more: a timer still due for it finds nothing to end.
        job_state.deadline = NONE;
        job_state.step += 1;
        self.proceed(job, events);
    }

    /// A start of a direct group's actor (see `Sim::direct`): its request arrives, tagged
    /// with the actor itself, with no job, and its next start is scheduled.
    #[inline(always)]
    pub(super) fn start_direct(
        &mut self,
        actor: u32,
        server: usize,
        instance: u32,
        events: &mut EventQueue<Event>,
    ) {
        let now = events.now();
        // Its group's counts and the run's last end are added up after the run
        // (`Sim::settle_direct`): one count per request, not three.
        let Sim {
            actors,
            servers,
            point,
            streams,
            ..
        } = self;
        let actor_state = &mut actors[actor as usize];
        actor_state.started += 1;
        // The departure first: the first event a handler schedules takes the handled one's
        // place at the top of the heap, and one that is soon sinks less far than the next
        // start. The two differ in class, so their order changes no tie.
        let server_state = &mut servers[server];
        if server_state.arrive(instance, actor, now) {
            let service = server_state.start(instance, now, now);
            Self::schedule_departure(server, instance, service, events);
        }
        let group = &point.groups[actor_state.group as usize];
        if let Some(at) = paced_start(actor_state, group, streams) {
            events.schedule_at(at, 1 + actor, Event::Start { actor });
        }
    }

    /// A direct group's request is served: the next starts, and the actor's repetition is
    /// done (a job's steps would end here, in this event).
    #[inline(always)]
    pub(super) fn depart_direct(
        &mut self,
        server: usize,
        instance: u32,
        events: &mut EventQueue<Event>,
    ) -> Result<(), SimError> {
        let now = events.now();
        let server_state = &mut self.servers[server];
        // A direct group's server is never down (it has no windows).
        let Some((done, next)) = server_state.depart_up(instance, now) else {
            return Err(SimError::Model(
                "internal: a departure from an idle server".into(),
            ));
        };
        if let Some(next) = next {
            let service = server_state.start(instance, next.arrived, now);
            Self::schedule_departure(server, instance, service, events);
        }
        if self.entities {
            self.direct_rows(done.tag, next, now);
        }
        // Its group's completions and the run's last end come from the starts and the
        // server after the run (`Sim::settle_direct`), its response was recorded as its
        // service started (`Server::start`).
        Ok(())
    }

    /// The entity rows' part of a direct departure at `now`: `done`'s actor completed (served
    /// at once, its wait is 0 if it had none), and `next`, if any, waited until now.
    #[inline(never)]
    fn direct_rows(&mut self, done: u32, next: Option<Waiting>, now: Nanos) {
        if let Some(next) = next {
            let actor = &mut self.actors[next.tag as usize];
            actor.server_wait = Some(actor.server_wait.unwrap_or(0) + (now - next.arrived));
        }
        let actor = &mut self.actors[done as usize];
        actor.server_wait.get_or_insert(0);
        actor.completed += 1;
        actor.end = Some(now);
    }

    /// `instance` of `server` starts serving `next` at `now`, which waited since its
    /// arrival.
    #[inline(always)]
    pub(super) fn start_next(
        &mut self,
        server: usize,
        instance: u32,
        next: Waiting,
        now: Nanos,
        events: &mut EventQueue<Event>,
    ) {
        let job = self.service_starts(server, next.tag, now);
        self.serve(server, instance, job, next.arrived, now, events);
        let waited = now - next.arrived;
        if let Some(job) = job {
            if self.entities {
                let actor_index = self.jobs[job as usize].actor as usize;
                let actor = &mut self.actors[actor_index];
                actor.server_wait = Some(actor.server_wait.unwrap_or(0) + waited);
            }
            if waited > 0 {
                self.span(job, "waiting", next.arrived, Some(now));
            }
        }
    }

    /// `job`'s request to `server` is refused (it is down and fails fast): its outcome
    /// says so, and its step is set to its timeout's steps, or else to its next step. The
    /// caller goes on from there in its own loop: a closed loop refused every repetition
    /// runs them by iteration, never by recursion (10^6 refusals at one instant are 10^6
    /// turns of `steps_of`'s loop, not 10^6 frames).
    pub(super) fn refused(&mut self, job: u32, server: usize, events: &mut EventQueue<Event>) {
        self.servers[server].refuse();
        self.mark(job, "refused", events.now());
        let job_state = &mut self.jobs[job as usize];
        job_state.outcome = REFUSED;
        job_state.deadline = NONE;
        let steps = &self.point.groups[job_state.group as usize].steps;
        job_state.step = match &steps[job_state.step as usize] {
            Step::Request {
                timeout: Some(timeout),
                ..
            } => timeout.handler,
            _ => job_state.step + 1,
        };
    }

    /// The job whose request fills slot `tag` at `server`, if it still waits for it.
    pub(super) fn still_waiting(&self, tag: u32, server: usize) -> Option<u32> {
        let slot = self.slots[tag as usize];
        let job_state = &self.jobs[slot.job as usize];
        (job_state.wait == slot.wait && job_state.serving as usize == server).then_some(slot.job)
    }

    /// Queues `job` at `instance` of `server` (served at once when it is idle). True
    /// when the job goes on at once from the step it was moved to (refused by a server
    /// that is down and fails fast): its caller runs it.
    #[inline(always)]
    pub(super) fn request(
        &mut self,
        job: u32,
        server: usize,
        instance: u32,
        events: &mut EventQueue<Event>,
    ) -> bool {
        let now = events.now();
        let point_server = &self.point.servers[server];
        let tag = if point_server.special {
            if point_server.fail_fast && self.servers[server].is_down() {
                self.refused(job, server, events);
                return true;
            }
            if point_server.abandons {
                self.slot(job, server, instance)
            } else {
                job
            }
        } else {
            job
        };
        if self.servers[server].arrive(instance, tag, now) {
            // Served at once: its client is `job`, which asked just now.
            if point_server.abandons {
                self.slots[tag as usize].started = now;
            }
            self.serve(server, instance, Some(job), now, now, events);
        }
        false
    }

    /// The request tagged `tag` starts its service at `server` at `now`: the job still
    /// waiting for it, if any (at a server whose clients may leave, its slot tells; the
    /// slot notes the start, for the work wasted should its client have left).
    #[inline(always)]
    fn service_starts(&mut self, server: usize, tag: u32, now: Nanos) -> Option<u32> {
        if self.point.servers[server].abandons {
            self.slots[tag as usize].started = now;
            self.still_waiting(tag, server)
        } else {
            Some(tag)
        }
    }

    /// A slot for `job`'s request at `instance` of `server`, a server whose clients may
    /// leave: a new wait.
    #[inline(always)]
    pub(super) fn slot(&mut self, job: u32, server: usize, instance: u32) -> u32 {
        let job_state = &mut self.jobs[job as usize];
        job_state.wait = job_state.wait.wrapping_add(1);
        job_state.serving = server as u16;
        let slot = Slot {
            job,
            wait: job_state.wait,
            started: NONE,
            instance,
            branch: 0,
        };
        let tag = match self.free_slots.pop() {
            Some(free) => {
                self.slots[free as usize] = slot;
                free
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        self.jobs[job as usize].slot = tag;
        tag
    }

    /// Starts serving a request at `instance` of `server` (arrived at `arrived`) for `job`,
    /// its client if it still waits (`None`: one that left).
    #[inline(always)]
    pub(super) fn serve(
        &mut self,
        server: usize,
        instance: u32,
        job: Option<u32>,
        arrived: Nanos,
        now: Nanos,
        events: &mut EventQueue<Event>,
    ) {
        if self.entities
            && let Some(job) = job
        {
            // A request whose service starts has a wait (0 when served at once), even if its
            // client gives up before the service ends.
            let actor = self.jobs[job as usize].actor as usize;
            self.actors[actor].server_wait.get_or_insert(0);
        }
        if let Some(job) = job {
            // Its service starts now: a timeout from here leaves no queueing behind, and a
            // drawn `served` span begins here.
            self.jobs[job as usize].in_service = true;
            if self.lanes.is_some() {
                self.jobs[job as usize].step_started = now;
            }
            if self.tied && self.jobs[job as usize].parent != NO_JOB {
                self.started_service(job, events);
            }
        }
        self.serve_direct(server, instance, arrived, now, events);
    }

    /// Starts serving a request at `instance` of `server`: its service drawn and its
    /// departure scheduled (a direct group's request, its tag the actor, needs no more).
    #[inline(always)]
    pub(super) fn serve_direct(
        &mut self,
        server: usize,
        instance: u32,
        arrived: Nanos,
        now: Nanos,
        events: &mut EventQueue<Event>,
    ) {
        let service = self.servers[server].start(instance, arrived, now);
        Self::schedule_departure(server, instance, service, events);
    }

    /// The departure from `instance` of `server` of the request whose `service` starts now.
    #[inline(always)]
    fn schedule_departure(
        server: usize,
        instance: u32,
        service: Nanos,
        events: &mut EventQueue<Event>,
    ) {
        events.schedule_in(
            service,
            0,
            Event::Depart {
                server: server as u16,
                instance,
            },
        );
    }
}
