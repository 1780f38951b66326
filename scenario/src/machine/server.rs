//! A single-writer server: FIFO instances that serve one request at a time, with the waits,
//! busy time and conservation counts its metrics need.

use sim_core::{Dist, Nanos, Samples, Stations, Stream, Waiting, ms_to_ns};

/// A service whose drawn time is no duration (it cannot be): the run's limits end it.
const NEVER: Nanos = Nanos::MAX;

/// One server's instances and statistics during a run.
pub(crate) struct Server {
    stations: Stations,
    service_ns: Nanos,
    /// The service distribution (`None`: fixed, `service_ns` each) and each instance's stream.
    distribution: Option<Dist>,
    streams: Vec<Stream>,
    busy: Vec<Nanos>,
    waits: Samples,
    requests: u64,
    arrivals: u64,
    departures: u64,
    first_arrival: Option<Nanos>,
    last_departure: Nanos,
    timed_out: u64,
    wasted: u64,
    wasted_ns: Nanos,
    /// Requests whose branch was cancelled at a join before their service ended, and
    /// those of them that left the queue unserved.
    cancelled: u64,
    withdrawn: u64,
    /// Down now (a window of `down`), and the requests it refused while down.
    down: bool,
    refused: u64,
    /// The response times of the one group it serves directly, when that group keeps its
    /// own ([`Server::record_responses`]): each is known as its service starts (the
    /// departure is then fixed), so it is recorded there, beside the wait.
    responses: Option<Samples>,
}

sim_core::clone_in_place!(Server {
    stations,
    service_ns,
    distribution,
    streams,
    busy,
    waits,
    requests,
    arrivals,
    departures,
    first_arrival,
    last_departure,
    timed_out,
    wasted,
    wasted_ns,
    cancelled,
    withdrawn,
    down,
    refused,
    responses
});

impl std::hash::Hash for Server {
    /// Its state and counts (not its service streams: an explorer refuses drawn services;
    /// nor a direct group's responses: an explored run serves no group directly).
    fn hash<H: std::hash::Hasher>(&self, hasher: &mut H) {
        (
            &self.stations,
            &self.busy,
            &self.waits,
            self.requests,
            self.arrivals,
        )
            .hash(hasher);
        (
            self.departures,
            self.first_arrival,
            self.last_departure,
            self.timed_out,
        )
            .hash(hasher);
        (self.wasted, self.wasted_ns, self.down, self.refused).hash(hasher);
        (self.cancelled, self.withdrawn).hash(hasher);
    }
}

impl Server {
    /// Every request's tag rewritten by `relabel` (a job, or a slot of the run's, as the
    /// run tags them): an explorer's symmetry renames a state's jobs.
    pub(crate) fn relabel_tags(&mut self, relabel: impl FnMut(u32) -> u32) {
        self.stations.relabel_tags(relabel);
    }

    /// Server `name` of `instances` at the start of a run with `seed`, serving in
    /// `service_ns`, or in draws of `distribution` from stream `service/NAME-K` for instance K.
    pub(crate) fn new(
        name: &str,
        instances: u32,
        service_ns: Nanos,
        distribution: Option<Dist>,
        seed: u64,
        waits: Samples,
    ) -> Server {
        Server {
            stations: Stations::new(instances as usize, 64),
            service_ns,
            streams: if distribution.is_some() {
                (0..instances)
                    .map(|instance| sim_core::stream(seed, &format!("service/{name}-{instance}")))
                    .collect()
            } else {
                Vec::new()
            },
            distribution,
            busy: vec![0; instances as usize],
            waits,
            requests: 0,
            arrivals: 0,
            departures: 0,
            first_arrival: None,
            last_departure: 0,
            timed_out: 0,
            wasted: 0,
            wasted_ns: 0,
            cancelled: 0,
            withdrawn: 0,
            down: false,
            refused: 0,
            responses: None,
        }
    }

    /// Records, from now on, the response time of every request it serves into
    /// `responses` (a direct group's: the group it serves is its only client).
    pub(crate) fn record_responses(&mut self, responses: Samples) {
        self.responses = Some(responses);
    }

    /// The responses recorded since [`Server::record_responses`], and no more recording.
    pub(crate) fn take_responses(&mut self) -> Option<Samples> {
        self.responses.take()
    }

    /// A request tagged `tag` arrives at `instance` at `now`: true when the instance is
    /// idle, so its service starts now ([`Server::start`]).
    #[inline(always)]
    pub(crate) fn arrive(&mut self, instance: u32, tag: u32, now: Nanos) -> bool {
        self.arrivals += 1;
        self.first_arrival.get_or_insert(now);
        self.stations
            .arrive(instance as usize, Waiting { arrived: now, tag })
    }

    /// `instance` starts serving, at `now`, a request that arrived at `arrived`: its
    /// service time (fixed, or drawn from the instance's stream).
    #[inline(always)]
    pub(crate) fn start(&mut self, instance: u32, arrived: Nanos, now: Nanos) -> Nanos {
        let service = match &self.distribution {
            Some(d) => ms_to_ns(d.sample_ms(&mut self.streams[instance as usize])).unwrap_or(NEVER),
            None => self.service_ns,
        };
        self.waits.record(now - arrived);
        if let Some(responses) = &mut self.responses {
            // Its departure is scheduled `service` from now (saturating, as the queue does).
            responses.record(now.saturating_add(service) - arrived);
        }
        self.requests += 1;
        self.busy[instance as usize] = self.busy[instance as usize].saturating_add(service);
        service
    }

    /// `instance`'s service ends at `now`: the request it served and the next one in its
    /// queue, whose service starts now; `None` when the instance was idle (a bug).
    #[inline(always)]
    pub(crate) fn depart(
        &mut self,
        instance: u32,
        now: Nanos,
    ) -> Option<(Waiting, Option<Waiting>)> {
        self.last_departure = now;
        self.departures += 1;
        let done = self.stations.in_service(instance as usize)?;
        if self.down {
            return self.hold(instance, now, done);
        }
        Some((done, self.stations.depart(instance as usize, now)))
    }

    /// [`Server::depart`] at a server that is never down (no window of `down`): the
    /// request served and the next, both from one look at the instance.
    #[inline(always)]
    pub(crate) fn depart_up(
        &mut self,
        instance: u32,
        now: Nanos,
    ) -> Option<(Waiting, Option<Waiting>)> {
        self.last_departure = now;
        self.departures += 1;
        self.stations.depart_served(instance as usize, now)
    }

    /// The last departure's instant (0 before any).
    pub(crate) fn last_departure(&self) -> Nanos {
        self.last_departure
    }

    /// A departure while down.
    #[cold]
    fn hold(
        &mut self,
        instance: u32,
        now: Nanos,
        done: Waiting,
    ) -> Option<(Waiting, Option<Waiting>)> {
        // Down: the service in progress ends; the next waits for the window's end.
        self.stations.leave(instance as usize, now);
        Some((done, None))
    }

    /// It goes down at `now`: no service starts until [`Server::up`].
    pub(crate) fn go_down(&mut self) {
        self.down = true;
        for instance in 0..self.busy.len() {
            if !self.stations.is_busy(instance) {
                self.stations.occupy(instance);
            }
        }
    }

    /// It comes back up at `now`: each instance held while down starts its next request
    /// (returned with its instance, for the caller to serve) or goes idle. An instance still
    /// serving the request it had when the window began goes on as it was.
    pub(crate) fn up(&mut self, now: Nanos) -> Vec<(u32, Waiting)> {
        self.down = false;
        let mut next = Vec::new();
        for instance in 0..self.busy.len() {
            if self.stations.is_busy(instance)
                && self.stations.in_service(instance).is_none()
                && let Some(waiting) = self.stations.depart(instance, now)
            {
                next.push((instance as u32, waiting));
            }
        }
        next
    }

    /// Whether it is down now.
    pub(crate) fn is_down(&self) -> bool {
        self.down
    }

    /// Counts a request refused while down.
    pub(crate) fn refuse(&mut self) {
        self.refused += 1;
    }

    /// Requests refused while down.
    pub(crate) fn refused(&self) -> u64 {
        self.refused
    }

    /// Requests served.
    pub(crate) fn requests(&self) -> u64 {
        self.requests
    }

    /// Counts a request whose client stopped waiting for it.
    pub(crate) fn time_out(&mut self) {
        self.timed_out += 1;
    }

    /// A request's branch was cancelled at a join at `now`: counted, and when `withdraw`
    /// and it still waits at `instance` (tagged `tag`), it leaves the queue unserved
    /// (true).
    pub(crate) fn cancel(&mut self, instance: u32, tag: u32, withdraw: bool, now: Nanos) -> bool {
        self.cancelled += 1;
        let left = withdraw && self.stations.withdraw(instance as usize, tag, now);
        self.withdrawn += u64::from(left);
        left
    }

    /// Requests cancelled at a join before their service ended, and those that left the
    /// queue unserved.
    pub(crate) fn cancelled(&self) -> (u64, u64) {
        (self.cancelled, self.withdrawn)
    }

    /// Counts a service of `service_ns` finished for a client that had left.
    pub(crate) fn waste(&mut self, service_ns: Nanos) {
        self.wasted += 1;
        self.wasted_ns = self.wasted_ns.saturating_add(service_ns);
    }

    /// Requests whose client stopped waiting (timed out) before their service ended.
    pub(crate) fn timed_out(&self) -> u64 {
        self.timed_out
    }

    /// Services finished for clients that had left, and their time.
    pub(crate) fn wasted(&self) -> (u64, Nanos) {
        (self.wasted, self.wasted_ns)
    }

    /// Every request's wait in the queue before service.
    pub(crate) fn waits(&mut self) -> &mut Samples {
        &mut self.waits
    }

    /// The waits, for reading only.
    pub(crate) fn waits_ref(&self) -> &Samples {
        &self.waits
    }

    /// Requests waiting now, at every instance (a timeline's queue length).
    pub(crate) fn waiting(&self) -> usize {
        self.stations.waiting()
    }

    /// Most requests waiting at one instance at once.
    pub(crate) fn max_queue_len(&mut self) -> usize {
        self.stations.max_queue_len()
    }

    /// Last departure − first arrival.
    pub(crate) fn makespan_ns(&self) -> Nanos {
        self.last_departure
            .saturating_sub(self.first_arrival.unwrap_or(0))
    }

    /// The busiest instance's busy time over the makespan (0 when it is 0).
    pub(crate) fn busy_fraction(&self) -> f64 {
        let span = self.makespan_ns();
        let busy = self.busy.iter().copied().max().unwrap_or(0);
        if span == 0 {
            0.0
        } else {
            busy as f64 / span as f64
        }
    }

    /// Arrivals (less those withdrawn unserved), services and departures, when they differ
    /// (each request must be served and leave once, or be withdrawn).
    pub(crate) fn unconserved(&self) -> Option<(u64, u64, u64)> {
        let arrivals = self.arrivals - self.withdrawn;
        (arrivals != self.requests || self.requests != self.departures).then_some((
            arrivals,
            self.requests,
            self.departures,
        ))
    }
}

impl Server {
    /// The bytes its instances and its waiting requests take, by their count (an
    /// explorer's memory estimate).
    pub(crate) fn heap_bytes(&self) -> u64 {
        super::bytes_of::<Stream>(self.streams.len())
            + super::bytes_of::<Nanos>(self.busy.len())
            // An instance's station: a flag, its request in service, its queue, a time.
            + super::bytes_of::<(Option<Waiting>, std::collections::VecDeque<Waiting>, Nanos)>(
                self.busy.len(),
            )
            + super::bytes_of::<Waiting>(self.stations.waiting())
    }
}
