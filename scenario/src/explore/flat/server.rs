//! Servers in a flat state: requests at a server (named, or picked by `one_of`; a fixed
//! instance, or one computed from the actor), served FIFO in a fixed time by each
//! instance, with `down` windows (a request then waits, or with `when_down = "fail"` is
//! refused), as the interpreter's `Server` and its stations keep them. No request times
//! out.
//!
//! A server's words come after the actors' blocks (no member's block moves):
//!
//! ```text
//! [ requests served | arrivals | departures | first arrival (+1; 0: none) | last departure
//! | its waits' sum, greatest and multiset word | its longest queue at an instant's end
//! | down | the next window edge due | requests refused
//! | each instance: idle, serving or held (down) | its departure's time (none: [`NONE`])
//! | that departure's rank among the server's departures due at the same time
//! | when its station last changed | its queue's length | its busy time added up ]
//! ```
//!
//! which are what the interpreter's fingerprint tells apart of a server: its counts and
//! samples, each station (busy, its request in service, its line, when it last changed),
//! and its pending events (a departure by time and, among those of one time, by the order
//! they were scheduled in: the rank; the window edges by how many have run). A request's
//! place is its actor's: its waiting word names the instance's line and its place there
//! (0: in service), so sorting the blocks stays the whole canonical order under symmetry;
//! it arrived when its step began (its job's `step_started`, a word of its block).
//!
//! A server's events are of class 0: at an instant they come before every actor's, by
//! server, each server's first one (a window's edge before its departures, which were
//! scheduled after it; its departures by rank). A departure hands the instance to the
//! next request in line (its service starts now) and then its client goes on past its
//! request in the same event, having acted (its next shared step waits), but for a request
//! at a fixed instance right after, which the interpreter makes at once.

use sim_core::sample_spread;

use super::ways::Draws;
use super::{
    At, Desk, Flat, MAX_LOCKS, NONE, NotFinite, OUTCOME_SHIFT, PLACE, STARTED, TAKEN, Uncovered,
};
use crate::point::{Instance, Pick, Point, Step};

/// The outcome of a request served.
pub(super) const SERVED: u64 = 13;
/// The outcome of a request refused by a server down that fails fast.
pub(super) const REFUSED: u64 = 14;

/// Words a server's counts take before its instances'.
const SERVER_WORDS: usize = 12;
/// Words an instance takes.
const INSTANCE_WORDS: usize = 6;
/// Most instances a flat state keeps, over all its servers.
const MAX_INSTANCES: u64 = 4096;

// A server's words, from its first.
const REQUESTS: usize = 0;
const ARRIVALS: usize = 1;
const DEPARTURES: usize = 2;
const FIRST_ARRIVAL: usize = 3;
const LAST_DEPARTURE: usize = 4;
const WAITS: usize = 5;
const MAX_QUEUE: usize = 8;
const DOWN: usize = 9;
const EDGE: usize = 10;
const REFUSALS: usize = 11;

// An instance's words, from its first.
const STATE: usize = 0;
const DEPART: usize = 1;
const RANK: usize = 2;
const CHANGED: usize = 3;
const QUEUE: usize = 4;
const BUSY: usize = 5;

// An instance's states.
const IDLE: u64 = 0;
const SERVING: u64 = 1;
/// Busy with no request in service: down ([`sim_core::Stations::occupy`]).
const HELD: u64 = 2;

/// Whether the flat back end covers `point`'s servers (each a fixed service, no request
/// that times out, its windows in order).
pub(super) fn covered(point: &Point) -> Result<(), Uncovered> {
    if point.servers.is_empty() {
        return Ok(());
    }
    if point.servers.iter().any(|s| s.distribution.is_some()) {
        return Err("a server's service time is drawn");
    }
    if point.servers.iter().any(|s| s.abandons) {
        return Err("a request to a server may time out");
    }
    if (point.servers.iter()).any(|s| s.down.windows(2).any(|w| w[1].0 < w[0].1)) {
        return Err("a server's down windows overlap or are out of order");
    }
    let instances: u64 = point.servers.iter().map(|s| u64::from(s.instances)).sum();
    if instances > MAX_INSTANCES {
        return Err("its servers have more than 4,096 instances");
    }
    let live = || point.groups.iter().filter(|g| g.count > 0);
    if live().any(|g| g.crash_anywhere.is_some())
        || live()
            .flat_map(|g| &g.steps)
            .any(|s| matches!(s, Step::Crash { .. }))
    {
        return Err("it has a server and a group may crash");
    }
    Ok(())
}

/// A step the flat back end covers at a server: a request with no timeout (at a server
/// named, or picked by `one_of`).
pub(super) fn covered_step(step: &Step) -> bool {
    matches!(step, Step::Request { timeout: None, .. })
}

impl Flat<'_> {
    /// The point with its servers' words laid out after the actors' blocks (all of them:
    /// a server down and up has events of its own, with requests or not).
    pub(super) fn with_servers(mut self) -> Self {
        let point = self.point;
        let mut line = MAX_LOCKS + point.queues.len();
        for server in &point.servers {
            self.servers.push(Desk {
                at: self.width,
                instances: server.instances,
                service: server.service_ns,
                line,
            });
            line += server.instances as usize;
            self.width += SERVER_WORDS + INSTANCE_WORDS * server.instances as usize;
        }
        self
    }

    /// The servers' words at the start: nothing arrived, every instance idle, no
    /// departure, no station changed yet.
    pub(super) fn start_servers(&self, state: &mut Vec<u64>) {
        for desk in &self.servers {
            state.extend(std::iter::repeat_n(0, SERVER_WORDS));
            for _ in 0..desk.instances {
                state.extend([IDLE, NONE, 0, u64::MAX, 0, 0]);
            }
        }
    }

    /// Where instance `instance` of the server `desk` has its words.
    fn instance_at(desk: &Desk, instance: usize) -> usize {
        desk.at + SERVER_WORDS + INSTANCE_WORDS * instance
    }

    /// Actor `actor`'s waiting word (the line it waits in, its place there).
    fn waiting_at(&self, actor: usize) -> usize {
        self.lock_words(actor) + 1
    }

    /// The waiting word of place `place` (0: in service) in the line of `instance` at
    /// `desk`.
    fn in_line(desk: &Desk, instance: usize, place: u64) -> u64 {
        ((desk.line + instance) as u64 + 1) << 32 | place
    }

    /// When server `server`'s next event is due in `state` (absolute ns; [`NONE`]: none):
    /// its next window edge, or its earliest departure.
    fn server_due(&self, state: &[u64], server: usize) -> u64 {
        let desk = &self.servers[server];
        let departures = (0..desk.instances as usize)
            .map(|i| state[Self::instance_at(desk, i) + DEPART])
            .min()
            .unwrap_or(NONE);
        self.edge_due(state, server).min(departures)
    }

    /// When server `server`'s next window edge is due (its down or its up; [`NONE`]: no
    /// more).
    fn edge_due(&self, state: &[u64], server: usize) -> u64 {
        let edge = state[self.servers[server].at + EDGE] as usize;
        let windows = &self.point.servers[server].down;
        match windows.get(edge / 2) {
            Some(&(from, to)) => {
                if edge.is_multiple_of(2) {
                    from
                } else {
                    to
                }
            }
            None => NONE,
        }
    }

    /// The servers whose next event is due first, and how long after the clock (`NONE`:
    /// none is due): into `due` as event numbers (`actors + server`).
    pub(super) fn servers_due(&self, state: &[u64], due: &mut Vec<u32>) -> u64 {
        due.clear();
        let clock = state[self.clock()];
        let mut first = NONE;
        for server in 0..self.servers.len() {
            let at = self.server_due(state, server);
            if at == NONE {
                continue;
            }
            let after = at - clock;
            if after < first {
                first = after;
                due.clear();
            }
            if after == first {
                due.push((self.members.len() + server) as u32);
            }
        }
        first
    }

    /// Server `server`'s next event run from `from` into `to`: the clock moved on to it,
    /// then a window's edge or a departure (and its client's steps after it).
    pub(super) fn server_event(
        &self,
        from: &[u64],
        server: usize,
        to: &mut [u64],
        (delta, draws): (&mut [u64], &mut Draws),
    ) -> Result<(), NotFinite> {
        let at = self.server_due(from, server);
        let now = self.advance_by(from, to, at - from[self.clock()])?;
        let desk = self.servers[server];
        if self.edge_due(from, server) == now {
            let edge = to[desk.at + EDGE];
            to[desk.at + EDGE] += 1;
            if edge.is_multiple_of(2) {
                // Down: every idle instance is held; one serving goes on as it was.
                to[desk.at + DOWN] = 1;
                for instance in 0..desk.instances as usize {
                    let state = Self::instance_at(&desk, instance) + STATE;
                    if to[state] == IDLE {
                        to[state] = HELD;
                    }
                }
            } else {
                // Up: each held instance serves its next request, or goes idle.
                to[desk.at + DOWN] = 0;
                for instance in 0..desk.instances as usize {
                    if to[Self::instance_at(&desk, instance) + STATE] == HELD {
                        self.next_request(to, &desk, instance, now)?;
                    }
                }
            }
            return Ok(());
        }
        let instance = (0..desk.instances as usize)
            .find(|&i| {
                let words = Self::instance_at(&desk, i);
                to[words + DEPART] == now && to[words + RANK] == 0
            })
            .ok_or(NotFinite)?;
        self.depart(to, &desk, instance, now)?;
        let served = (0..self.members.len())
            .find(|&a| to[self.waiting_at(a)] == Self::in_line(&desk, instance, 0))
            .ok_or(NotFinite)?;
        to[self.waiting_at(served)] = 0;
        if to[desk.at + DOWN] == 1 {
            // Down: its service ends, the next waits for the window's end.
            to[Self::instance_at(&desk, instance) + STATE] = HELD;
            self.change(to, &desk, instance, now);
        } else {
            self.next_request(to, &desk, instance, now)?;
        }
        self.served(to, served, (delta, draws))
    }

    /// Instance `instance`'s departure at `now` taken off its server's pending events
    /// (the others of its time a rank on), and counted.
    fn depart(
        &self,
        to: &mut [u64],
        desk: &Desk,
        instance: usize,
        now: u64,
    ) -> Result<(), NotFinite> {
        to[desk.at + LAST_DEPARTURE] = now;
        to[desk.at + DEPARTURES] += 1;
        to[Self::instance_at(desk, instance) + DEPART] = NONE;
        for other in 0..desk.instances as usize {
            let words = Self::instance_at(desk, other);
            if to[words + DEPART] == now {
                to[words + RANK] = to[words + RANK].checked_sub(1).ok_or(NotFinite)?;
            }
        }
        Ok(())
    }

    /// Instance `instance`'s station changes at `now`: at a new instant, the length its
    /// queue kept since its last change was an instant's end length.
    fn change(&self, to: &mut [u64], desk: &Desk, instance: usize, now: u64) {
        let words = Self::instance_at(desk, instance);
        if to[words + CHANGED] != now {
            to[words + CHANGED] = now;
            to[desk.at + MAX_QUEUE] = to[desk.at + MAX_QUEUE].max(to[words + QUEUE]);
        }
    }

    /// Instance `instance` takes the next request in its line at `now` (its service
    /// starts), or goes idle with none, as the station's `depart` does.
    fn next_request(
        &self,
        to: &mut [u64],
        desk: &Desk,
        instance: usize,
        now: u64,
    ) -> Result<(), NotFinite> {
        self.change(to, desk, instance, now);
        let words = Self::instance_at(desk, instance);
        match self.next_waiter(to, desk.line + instance) {
            Some(next) => {
                to[words + QUEUE] -= 1;
                to[words + STATE] = SERVING;
                to[self.waiting_at(next)] = Self::in_line(desk, instance, 0);
                let arrived = to[self.due_at(next) + 4];
                self.serve(to, desk, instance, (arrived, now))
            }
            None => {
                to[words + STATE] = IDLE;
                Ok(())
            }
        }
    }

    /// A service starts at `instance` at `now` for a request that arrived at `arrived`:
    /// its wait a sample, its time busy, its departure scheduled after the server's
    /// others of that time.
    fn serve(
        &self,
        to: &mut [u64],
        desk: &Desk,
        instance: usize,
        (arrived, now): (u64, u64),
    ) -> Result<(), NotFinite> {
        let waited = now - arrived;
        to[desk.at + REQUESTS] += 1;
        to[desk.at + WAITS] += waited;
        to[desk.at + WAITS + 1] = to[desk.at + WAITS + 1].max(waited);
        to[desk.at + WAITS + 2] = to[desk.at + WAITS + 2].wrapping_add(sample_spread(waited));
        let departs = now.checked_add(desk.service).ok_or(NotFinite)?;
        if departs == NONE {
            return Err(NotFinite);
        }
        let rank = (0..desk.instances as usize)
            .filter(|&i| to[Self::instance_at(desk, i) + DEPART] == departs)
            .count() as u64;
        let words = Self::instance_at(desk, instance);
        to[words + BUSY] = to[words + BUSY].saturating_add(desk.service);
        to[words + DEPART] = departs;
        to[words + RANK] = rank;
        Ok(())
    }

    /// Actor `actor`'s request at `server` (picked, and at `instance`, computed for it
    /// where `at` says): queued at its instance, or served at once there,
    /// or refused by a server down that fails fast (true: it goes on at its next step).
    pub(super) fn request(
        &self,
        to: &mut [u64],
        actor: usize,
        (server, instance): (&Pick, &Instance),
        at: At,
    ) -> Result<bool, NotFinite> {
        let server = match server {
            Pick::One(server) => *server as usize,
            Pick::OneOf(servers, index) => {
                let chosen = self.value(index, at, to);
                if !(chosen >= 0.0 && chosen.fract() == 0.0 && (chosen as usize) < servers.len()) {
                    // The interpreter's error, which it says.
                    return Err(NotFinite);
                }
                servers[chosen as usize] as usize
            }
        };
        let desk = self.servers[server];
        let now = to[self.clock()];
        let instance = match instance {
            Instance::Fixed(instance) => *instance as u64,
            Instance::Actor(number) => {
                let chosen = self.value(number, at, to);
                if !(chosen >= 0.0 && chosen.fract() == 0.0 && chosen < 4e18) {
                    // The interpreter's error, which it says.
                    return Err(NotFinite);
                }
                chosen as u64 % u64::from(desk.instances)
            }
        } as usize;
        if instance >= desk.instances as usize {
            return Err(NotFinite);
        }
        if self.point.servers[server].fail_fast && to[desk.at + DOWN] == 1 {
            to[desk.at + REFUSALS] += 1;
            return Ok(true);
        }
        to[desk.at + ARRIVALS] += 1;
        if to[desk.at + FIRST_ARRIVAL] == 0 {
            to[desk.at + FIRST_ARRIVAL] = now + 1;
        }
        self.change(to, &desk, instance, now);
        let words = Self::instance_at(&desk, instance);
        if to[words + STATE] == IDLE {
            to[words + STATE] = SERVING;
            to[self.waiting_at(actor)] = Self::in_line(&desk, instance, 0);
            self.serve(to, &desk, instance, (now, now))?;
        } else {
            to[words + QUEUE] += 1;
            to[self.waiting_at(actor)] = Self::in_line(&desk, instance, to[words + QUEUE]);
        }
        Ok(false)
    }

    /// Actor `actor`'s take or request `step` (computed for it where `at` says): the
    /// outcome it goes on with at once (a message taken, a request refused), or none (it
    /// waits).
    pub(super) fn wait_step(
        &self,
        to: &mut [u64],
        actor: usize,
        step: &Step,
        at: At,
    ) -> Result<Option<u64>, NotFinite> {
        match step {
            Step::Take { queue, .. } => {
                Ok((self.take_message(to, actor, *queue as usize)).then_some(TAKEN))
            }
            Step::Request {
                server, instance, ..
            } => Ok((self.request(to, actor, (server, instance), at)?).then_some(REFUSED)),
            _ => Err(NotFinite),
        }
    }

    /// Actor `actor`'s request was served: it goes on past it in this event, having acted,
    /// but that a request at a fixed instance right after is made at once (as the
    /// interpreter's `proceed` makes it).
    fn served(
        &self,
        to: &mut [u64],
        actor: usize,
        (delta, draws): (&mut [u64], &mut Draws),
    ) -> Result<(), NotFinite> {
        let member = self.members[actor];
        let base = self.base(actor);
        let mut place = (to[base] & PLACE) + 1;
        let mut outcome = SERVED;
        let stride = u64::from(member.steps) + 1;
        let steps = &self.point.groups[member.group as usize].steps;
        if let Some(Step::Request {
            server: server @ Pick::One(_),
            instance: instance @ Instance::Fixed(_),
            timeout: None,
        }) = steps.get((place % stride) as usize)
        {
            let now = to[self.clock()];
            to[self.due_at(actor) + 4] = now;
            let at = At {
                now,
                ..At::at_zero(actor, member, place / stride)
            };
            if !self.request(to, actor, (server, instance), at)? {
                to[base] = STARTED | outcome << OUTCOME_SHIFT | place;
                return Ok(());
            }
            (place, outcome) = (place + 1, REFUSED);
        }
        self.run(to, actor, (place, outcome, true), (delta, draws))?;
        Ok(())
    }
}
