//! `single_writer_queue` (lesson 003): one key owned by one instance; requests to it queue FIFO
//! and are served one at a time, so no update is lost, and the price is waiting.

use sim_core::{
    Class, Dist, DistKind, EventQueue, Handler, Nanos, Samples, SimError, Stream, ms_to_ns,
    ns_to_ms, run, stream,
};

use coordsim_model::{
    ChartKind, DefaultChart, Distribution, Model, ModelError, Output, RunContext, Valid,
};
use coordsim_model::{Cost, Millis, NoEntity, ParamError, positive_duration};
use sim_core::{Stations, Waiting};

choice! {
    /// How request times are drawn.
    pub enum Arrivals {
        /// Request `i` of client `c` at `c × offset + i × interarrival`.
        Schedule = "schedule",
        /// Exponential gaps of mean `interarrival_ms`, each client on its own stream.
        Poisson = "poisson",
        /// Uniform gaps of mean `interarrival_ms` and cv `interarrival_cv` (at most 0.577).
        Uniform = "uniform",
        /// Log-normal gaps of mean `interarrival_ms` and cv `interarrival_cv`.
        Lognormal = "lognormal",
        /// Gamma gaps of mean `interarrival_ms` and cv `interarrival_cv`.
        Gamma = "gamma",
        /// Gaps drawn at random from `arrival_trace` (its mean replaces `interarrival_ms`).
        Trace = "trace",
    }
}

choice! {
    /// How service times are drawn.
    pub enum Service {
        /// Every request takes `service_ms`.
        Fixed = "fixed",
        /// Exponential with mean `service_ms`, each instance on its own stream.
        Exponential = "exponential",
        /// Uniform with mean `service_ms` and cv `service_cv` (at most 0.577).
        Uniform = "uniform",
        /// Log-normal with mean `service_ms` and cv `service_cv`.
        Lognormal = "lognormal",
        /// Gamma with mean `service_ms` and cv `service_cv` (cv 1: exponential).
        Gamma = "gamma",
        /// Drawn at random from `service_trace` (its mean replaces `service_ms`).
        Empirical = "empirical",
    }
}

impl Arrivals {
    /// The distribution of the gaps (`None`: the fixed schedule).
    fn kind(self) -> Option<DistKind> {
        match self {
            Arrivals::Schedule => None,
            Arrivals::Poisson => Some(DistKind::Exponential),
            Arrivals::Uniform => Some(DistKind::Uniform),
            Arrivals::Lognormal => Some(DistKind::LogNormal),
            Arrivals::Gamma => Some(DistKind::Gamma),
            Arrivals::Trace => Some(DistKind::Empirical),
        }
    }
}

impl Service {
    fn kind(self) -> DistKind {
        match self {
            Service::Fixed => DistKind::Fixed,
            Service::Exponential => DistKind::Exponential,
            Service::Uniform => DistKind::Uniform,
            Service::Lognormal => DistKind::LogNormal,
            Service::Gamma => DistKind::Gamma,
            Service::Empirical => DistKind::Empirical,
        }
    }
}

/// The distribution of the gaps (`None` for the schedule), as validated.
fn arrival_dist(p: &Params) -> Result<Option<Dist>, ParamError> {
    let Some(kind) = p.arrivals.kind() else {
        return Ok(None);
    };
    Dist::new(
        kind,
        p.interarrival_ms.ms(),
        p.interarrival_cv,
        &p.arrival_trace,
    )
    .map(Some)
    .map_err(|m| {
        let key = match kind {
            DistKind::Empirical => "arrival_trace",
            DistKind::Uniform | DistKind::LogNormal | DistKind::Gamma => "interarrival_cv",
            _ => "interarrival_ms",
        };
        ParamError::new(
            key,
            format!("with arrivals = \"{}\": {m}", p.arrivals.name()),
        )
    })
}

/// The distribution of service times, as validated.
fn service_dist(p: &Params) -> Result<Dist, ParamError> {
    let kind = p.service.kind();
    Dist::new(kind, p.service_ms.ms(), p.service_cv, &p.service_trace).map_err(|m| {
        let key = match kind {
            DistKind::Empirical => "service_trace",
            DistKind::Uniform | DistKind::LogNormal | DistKind::Gamma => "service_cv",
            _ => "service_ms",
        };
        ParamError::new(key, format!("with service = \"{}\": {m}", p.service.name()))
    })
}

params! {
    /// Parameters of `single_writer_queue`; defaults are lesson 003's 4-client row.
    pub struct Params {
        /// number of clients
        clients: u64 = 4,
        /// requests each client sends
        requests_per_client: u64 = 50,
        /// gap between two requests of one client (mean gap for `poisson`)
        interarrival_ms: Millis = Millis::lit(40.0),
        /// client `c` (0-based) sends its first request at `c × client_offset_ms`
        client_offset_ms: Millis = Millis::lit(3.0),
        /// service time per request (the mean for a random `service`)
        service_ms: Millis = Millis::lit(6.0),
        /// `schedule` (fixed gaps) or random gaps: `poisson` (exponential), `uniform`, `lognormal`, `gamma` (mean `interarrival_ms`, cv `interarrival_cv`), `trace` (drawn from `arrival_trace`)
        arrivals: Arrivals = Arrivals::Schedule,
        /// `fixed`, or random: `exponential`, `uniform`, `lognormal`, `gamma` (mean `service_ms`, cv `service_cv`), `empirical` (drawn from `service_trace`)
        service: Service = Service::Fixed,
        /// the key is split over this many instances; client `c` goes to instance `c mod instances`
        instances: u64 = 1,
        /// coefficient of variation of service times (`uniform`, `lognormal`, `gamma`; 0 is fixed)
        service_cv: f64 = 1.0,
        /// observed service times in ms for `empirical`: a list, or { file = "x.csv", column = "ms" } (relative to the config)
        service_trace: Vec<f64> = Vec::new(),
        /// coefficient of variation of the gaps between a client's requests (`uniform`, `lognormal`, `gamma`)
        interarrival_cv: f64 = 1.0,
        /// observed gaps in ms for `arrivals = "trace"`: a list, or { file, column } of a CSV
        arrival_trace: Vec<f64> = Vec::new(),
        /// requests arriving before this are left out of every waiting statistic (`requests` still counts them)
        warmup_ms: Millis = Millis::lit(0.0),
    }
}

columns! {
    /// Metrics of one run.
    pub struct Metrics {
        /// requests sent (clients × requests_per_client)
        requests: u64,
        /// sum of the instances' counters after the run
        counter_final: u64,
        /// requests − counter_final: updates lost to overlapping read-modify-writes (each
        /// service reads the counter at its start and writes it back + 1 at its end)
        lost_updates: u64,
        /// clients × 1000 / interarrival_ms
        offered_rate_per_s: f64,
        /// instances × 1000 / service_ms
        capacity_per_s: f64,
        /// the busiest instance's offered load: its clients × service_ms / interarrival_ms (one instance: offered / capacity)
        utilization: f64,
        /// 1 when some instance's offered load exceeds 1 (its queue grows without bound)
        saturated: bool,
        /// the busiest instance's measured busy time / makespan
        busy_fraction: f64,
        /// mean time from arrival to start of service
        mean_wait_ms: f64,
        /// median wait (nearest rank)
        p50_wait_ms: f64,
        /// 95th percentile wait (nearest rank)
        p95_wait_ms: f64,
        /// 99th percentile wait (nearest rank)
        p99_wait_ms: f64,
        /// longest wait
        max_wait_ms: f64,
        /// most requests waiting at once at any instance (not the one in service), after all events of an instant
        max_queue_len: u64,
        /// last departure − first arrival
        makespan_ms: f64,
        /// time-average number of measured requests waiting (not in service), over the measured window (first measured arrival to last departure)
        mean_queue_len: f64,
        /// time-average number of measured requests waiting or in service, over the same window
        mean_in_system: f64,
        /// requests in the waiting statistics (those arriving at or after `warmup_ms`)
        measured_requests: u64,
    }
}

/// The model.
pub struct SingleWriterQueue;

/// Largest client count: each client's arrivals have their own event class.
const MAX_CLIENTS: u64 = 1_000_000;
/// Largest request count of one run: every wait is kept for exact percentiles (8 bytes each).
const MAX_REQUESTS: u64 = 100_000_000;
/// Most observed values in a trace.
const MAX_TRACE: usize = 10_000_000;

impl Model for SingleWriterQueue {
    fn name(&self) -> &'static str {
        "single_writer_queue"
    }
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        crate::turkish::param_meaning(self.name(), key, language)
    }
    fn summary(&self) -> &'static str {
        "one instance owns a key and serves its requests FIFO, one at a time: no lost updates, but queueing (lesson 003)"
    }
    fn charts(&self) -> Vec<DefaultChart> {
        vec![
            DefaultChart {
                name: "wait-vs-offered-rate",
                x: "offered_rate_per_s",
                y: &["mean_wait_ms", "p95_wait_ms"],
                kind: ChartKind::Line,
                mark_x: Some("capacity_per_s"),
                mark_y: None,
            },
            DefaultChart {
                name: "queue-vs-offered-rate",
                x: "offered_rate_per_s",
                y: &["max_queue_len"],
                kind: ChartKind::Line,
                mark_x: Some("capacity_per_s"),
                mark_y: None,
            },
        ]
    }
    type Params = Params;
    type Metrics = Metrics;
    type Entity = NoEntity;

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        if !(1..=MAX_CLIENTS).contains(&p.clients) {
            return Err(ParamError::new(
                "clients",
                format!("must be from 1 to {MAX_CLIENTS}, got {}", p.clients),
            ));
        }
        if p.requests_per_client == 0 {
            return Err(ParamError::new("requests_per_client", "must be at least 1"));
        }
        if p.clients.saturating_mul(p.requests_per_client) > MAX_REQUESTS {
            return Err(ParamError::new(
                "requests_per_client",
                format!(
                    "clients × requests_per_client = {} is above the limit of {MAX_REQUESTS} requests per run",
                    p.clients.saturating_mul(p.requests_per_client)
                ),
            ));
        }
        positive_duration("interarrival_ms", p.interarrival_ms.ms())?;
        positive_duration("service_ms", p.service_ms.ms())?;
        for (key, trace) in [
            ("service_trace", &p.service_trace),
            ("arrival_trace", &p.arrival_trace),
        ] {
            if trace.len() > MAX_TRACE {
                return Err(ParamError::new(
                    key,
                    format!(
                        "has {} values, more than the limit of {MAX_TRACE}",
                        trace.len()
                    ),
                ));
            }
        }
        arrival_dist(p)?;
        let service = service_dist(p)?;
        // A mean of zero would serve without end in one instant: the trace needs some time.
        if service.mean_ms() <= 0.0 {
            return Err(ParamError::new(
                "service_trace",
                "the observed service times add up to 0 ms; give at least one above 0",
            ));
        }
        if arrival_dist(p)?.is_some_and(|d| d.mean_ms() <= 0.0) {
            return Err(ParamError::new(
                "arrival_trace",
                "the observed gaps add up to 0 ms; give at least one above 0",
            ));
        }
        if !(1..=MAX_CLIENTS).contains(&p.instances) {
            return Err(ParamError::new(
                "instances",
                format!("must be from 1 to {MAX_CLIENTS}, got {}", p.instances),
            ));
        }
        Ok(())
    }

    fn cost(&self, p: &Params) -> Cost {
        let n = p.clients.saturating_mul(p.requests_per_client);
        Cost {
            // An arrival and a departure per request.
            events: n.saturating_mul(2),
            // A wait sample (8 bytes) and at worst a queue slot (16) per request; each
            // client's and instance's state and random stream.
            memory_bytes: n
                .saturating_mul(24)
                .saturating_add(p.clients.saturating_add(p.instances).saturating_mul(512)),
            entity_rows: 0,
            driven_by: "requests_per_client".into(),
            point_bytes: 0,
            ..Cost::default()
        }
    }

    fn distributions(&self) -> &'static [Distribution] {
        &[Distribution {
            name: WAIT_MS,
            meaning: "each request's wait in the queue before its service starts",
        }]
    }

    fn run(
        &self,
        p: &Valid<Params>,
        ctx: &RunContext,
    ) -> Result<Output<Metrics, NoEntity>, ModelError> {
        let seed = ctx.seed();
        let mut sim = Sim::new(p, seed, ctx)?;
        let mut queue = ctx.queue(p.clients as usize + p.instances as usize);
        for c in 0..p.clients as u32 {
            let first = sim.next_arrival(c);
            queue.schedule_at(first, arrival_class(c), Event::Arrival { client: c });
        }
        run(&mut queue, &mut sim)?;
        // Conservation: every request sent was served once.
        let served: u64 = sim.instances.iter().map(|i| i.served).sum();
        if served != p.clients * p.requests_per_client {
            return Err(ModelError::Invariant(format!(
                "conservation at seed {seed}: {served} requests served of {} sent",
                p.clients * p.requests_per_client
            )));
        }
        let l = &sim.little;
        let waits = sim.waits.sum_ns();
        // Compared modulo 2^64, as the event-time sums are kept.
        let area_waiting = l.left_queue.wrapping_sub(l.joined_queue);
        let area_in_system = l.left.wrapping_sub(l.entered);
        if sim.waits.count() as u64 != l.departed
            || area_waiting != waits as u64
            || area_in_system != (waits + l.service_sum) as u64
        {
            return Err(ModelError::Invariant(format!(
                "Little's law at seed {seed}: {} measured requests served, {} departed; the area under the queue ({area_waiting} ns mod 2^64) is not the sum of the waits ({waits} ns), or the area in the system ({area_in_system}) not waits + service ({} ns)",
                sim.waits.count(),
                l.departed,
                waits + l.service_sum
            )));
        }
        let distributions = if ctx.wants_distributions() {
            vec![(
                WAIT_MS,
                sim.waits.distribution_ms(ctx.distribution_points()),
            )]
        } else {
            Vec::new()
        };
        Ok(Output {
            metrics: sim.metrics(p),
            entities: Vec::new(),
            lanes: coordsim_model::Lanes::new(),
            distributions,
        })
    }
}

/// The per-request waits, as charts name them.
const WAIT_MS: &str = "wait_ms";

#[derive(Debug, Clone, Copy)]
enum Event {
    Arrival { client: u32 },
    Departure { instance: u32 },
}

/// Departures run before arrivals at the same instant (it changes no wait: the freed instance
/// takes the queue's head, or the newcomer, at that instant either way), and arrivals at the same
/// instant run in client order, which is the contract's "lower client index first".
const DEPARTURE: Class = 0;
fn arrival_class(client: u32) -> Class {
    1 + client
}

struct Client {
    /// The instance it sends to (`c mod instances`, computed once).
    instance: u32,
    sent: u64,
    next_at: Nanos,
    /// Sum of the random gaps so far, in ms, rounded once per arrival.
    elapsed_ms: f64,
    rng: Option<Stream>,
}

struct Instance {
    /// The key's value in the instance's memory: each service reads it when it starts and
    /// writes the read value + 1 when it ends, so an update is lost exactly when two
    /// services of one instance overlap (which a single writer never lets happen: measured,
    /// not assumed).
    counter: u64,
    /// The value the request in service read.
    snapshot: u64,
    /// Requests served (departed), for conservation.
    served: u64,
    /// Time spent serving, for `busy_fraction`.
    busy: Nanos,
    service_rng: Option<Stream>,
    /// The request in service counts in the statistics (it arrived after the warm-up).
    serving_measured: bool,
}

/// Little's law kept on the run's own samples. The area under the number of measured
/// requests in the queue is the sum, over the times that number changes, of +t when one
/// leaves the queue and −t when one joins it (∫N dt = Σ(exit − entry)); likewise in the
/// system, with arrivals and departures. Those are summed from the event times the handler
/// sees (modulo 2^64: one add per change, and a difference is exact in that arithmetic);
/// the waits and service times from the requests' own stamps. For every run that empties
/// they agree to the nanosecond; a station that lost, repeated or reordered a request would
/// break it.
#[derive(Default)]
struct Little {
    departed: u64,
    /// Σ arrival times, Σ departure times (measured requests), wrapping.
    entered: u64,
    left: u64,
    /// Σ times a measured request joined the queue, and left it for service, wrapping.
    joined_queue: u64,
    left_queue: u64,
    /// Σ service times of measured requests, exact.
    service_sum: u128,
}

struct Sim {
    clients: Vec<Client>,
    instances: Vec<Instance>,
    requests_per_client: u64,
    interarrival_ns: Nanos,
    offset_ns: Nanos,
    service_ns: Nanos,
    arrival_dist: Option<Dist>,
    service_dist: Dist,
    warmup_ns: Nanos,
    little: Little,
    stations: Stations,
    waits: Samples,
    first_arrival: Option<Nanos>,
    last_departure: Nanos,
}

impl Sim {
    fn new(p: &Params, seed: u64, ctx: &RunContext) -> Result<Self, ParamError> {
        let arrival_dist = arrival_dist(p)?;
        let service_dist = service_dist(p)?;
        let random_gaps = arrival_dist.is_some();
        let random_service = p.service != Service::Fixed;
        let instances = p.instances as usize;
        let per_instance = p.clients.div_ceil(p.instances) * p.requests_per_client;
        Ok(Sim {
            clients: (0..p.clients)
                .map(|c| Client {
                    instance: (c % p.instances) as u32,
                    sent: 0,
                    next_at: 0,
                    elapsed_ms: 0.0,
                    rng: random_gaps.then(|| stream(seed, &format!("arrivals/client-{c}"))),
                })
                .collect(),
            instances: (0..instances)
                .map(|i| Instance {
                    counter: 0,
                    snapshot: 0,
                    served: 0,
                    busy: 0,
                    service_rng: random_service
                        .then(|| stream(seed, &format!("service/instance-{i}"))),
                    serving_measured: false,
                })
                .collect(),
            requests_per_client: p.requests_per_client,
            interarrival_ns: p.interarrival_ms.ns(),
            offset_ns: p.client_offset_ms.ns(),
            service_ns: p.service_ms.ns(),
            arrival_dist,
            service_dist,
            warmup_ns: p.warmup_ms.ns(),
            little: Little::default(),
            stations: Stations::new(instances, per_instance as usize),
            waits: ctx.samples((p.clients * p.requests_per_client) as usize),
            first_arrival: None,
            last_departure: 0,
        })
    }

    /// The time of client `c`'s next request (the `sent`-th, 0-based).
    #[inline]
    fn next_arrival(&mut self, c: u32) -> Nanos {
        let offset = self.offset_ns.saturating_mul(u64::from(c));
        let client = &mut self.clients[c as usize];
        client.next_at = match (&mut client.rng, &self.arrival_dist) {
            (Some(rng), Some(gaps)) => {
                // Request i comes after i + 1 gaps; the sum is kept in ms and rounded to the
                // nanosecond once, so rounding never accumulates.
                client.elapsed_ms += gaps.sample_ms(rng);
                offset.saturating_add(ms_to_ns(client.elapsed_ms).unwrap_or(u64::MAX))
            }
            _ => offset.saturating_add(self.interarrival_ns.saturating_mul(client.sent)),
        };
        client.next_at
    }

    #[inline]
    fn service_time(&mut self, instance: usize) -> Nanos {
        match &mut self.instances[instance].service_rng {
            None => self.service_ns,
            Some(rng) => ms_to_ns(self.service_dist.sample_ms(rng)).unwrap_or(u64::MAX),
        }
    }

    #[inline]
    fn start_service(&mut self, instance: usize, arrived: Nanos, queue: &mut EventQueue<Event>) {
        let now = queue.now();
        let service = self.service_time(instance);
        let measured = arrived >= self.warmup_ns;
        if measured {
            self.waits.record(now - arrived);
            self.little.service_sum += u128::from(service);
        }
        self.instances[instance].serving_measured = measured;
        // Read-modify-write across the service: read now, write at the departure.
        let serving = &mut self.instances[instance];
        serving.snapshot = serving.counter;
        serving.busy = serving.busy.saturating_add(service);
        queue.schedule_in(
            service,
            DEPARTURE,
            Event::Departure {
                instance: instance as u32,
            },
        );
    }

    fn metrics(&mut self, p: &Params) -> Metrics {
        let requests = p.clients * p.requests_per_client;
        let counter_final: u64 = self.instances.iter().map(|i| i.counter).sum();
        // The means the draws have (a trace's own mean; else the parameters').
        let gap_ms = self
            .arrival_dist
            .as_ref()
            .map_or(p.interarrival_ms.ms(), Dist::mean_ms);
        let service_ms = self.service_dist.mean_ms();
        let offered = p.clients as f64 * 1000.0 / gap_ms;
        let capacity = p.instances as f64 * 1000.0 / service_ms;
        // The busiest instance serves ceil(clients / instances) clients (client c goes to
        // instance c mod instances): its offered rate against its own capacity. With one
        // instance these are the totals, computed the same way.
        let busiest_clients = p.clients.div_ceil(p.instances);
        // clients × service / gap, one rounding: 4 × 6 / 40 is 0.6, where (4 × 1000 / 40) /
        // (1000 / 6) would carry float noise (0.6000000000000001).
        let utilization = busiest_clients as f64 * service_ms / gap_ms;
        let makespan = self.last_departure - self.first_arrival.unwrap_or(0);
        let busiest_busy = self.instances.iter().map(|i| i.busy).max().unwrap_or(0);
        // The measured window: from the end of the warm-up (or the first arrival, if later)
        // to the last departure.
        let start = self.first_arrival.map(|f| f.max(self.warmup_ns));
        let window = match start {
            Some(first) if self.last_departure > first && self.waits.count() > 0 => {
                (self.last_departure - first) as f64
            }
            _ => f64::INFINITY,
        };
        let waits = &mut self.waits;
        Metrics {
            requests,
            counter_final,
            lost_updates: requests - counter_final,
            offered_rate_per_s: offered,
            capacity_per_s: capacity,
            utilization,
            saturated: utilization > 1.0,
            busy_fraction: if makespan == 0 {
                0.0
            } else {
                busiest_busy as f64 / makespan as f64
            },
            mean_wait_ms: waits.mean_ms().unwrap_or(0.0),
            p50_wait_ms: waits.percentile_ms(50.0).unwrap_or(0.0),
            p95_wait_ms: waits.percentile_ms(95.0).unwrap_or(0.0),
            p99_wait_ms: waits.percentile_ms(99.0).unwrap_or(0.0),
            max_wait_ms: waits.max_ms().unwrap_or(0.0),
            max_queue_len: self.stations.max_queue_len() as u64,
            makespan_ms: ns_to_ms(makespan),
            // The areas, which the run has just checked against the event-time sums.
            mean_queue_len: self.waits.sum_ns() as f64 / window,
            mean_in_system: (self.waits.sum_ns() + self.little.service_sum) as f64 / window,
            measured_requests: self.waits.count() as u64,
        }
    }
}

impl Handler<Event> for Sim {
    #[inline]
    fn handle(&mut self, event: Event, queue: &mut EventQueue<Event>) -> Result<(), SimError> {
        let now = queue.now();
        match event {
            Event::Arrival { client } => {
                self.first_arrival.get_or_insert(now);
                let measured = now >= self.warmup_ns;
                if measured {
                    self.little.entered = self.little.entered.wrapping_add(now);
                }
                let instance = self.clients[client as usize].instance as usize;
                let request = Waiting {
                    arrived: now,
                    tag: client,
                };
                if self.stations.arrive(instance, request) {
                    self.start_service(instance, now, queue);
                } else if measured {
                    self.little.joined_queue = self.little.joined_queue.wrapping_add(now);
                }
                let c = &mut self.clients[client as usize];
                c.sent += 1;
                if c.sent < self.requests_per_client {
                    let next = self.next_arrival(client);
                    queue.schedule_at(next, arrival_class(client), event);
                }
            }
            Event::Departure { instance } => {
                let instance = instance as usize;
                self.last_departure = now;
                let done = &mut self.instances[instance];
                done.counter = done.snapshot + 1;
                done.served += 1;
                if self.instances[instance].serving_measured {
                    self.little.departed += 1;
                    self.little.left = self.little.left.wrapping_add(now);
                }
                if let Some(next) = self.stations.depart(instance, now) {
                    if next.arrived >= self.warmup_ns {
                        self.little.left_queue = self.little.left_queue.wrapping_add(now);
                    }
                    self.start_service(instance, next.arrived, queue);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(p: Params) -> Metrics {
        SingleWriterQueue.validate(&p).unwrap();
        coordsim_model::run_once(
            &SingleWriterQueue,
            p.clone(),
            0,
            sim_core::Limits::default(),
        )
        .unwrap()
        .metrics
    }

    #[test]
    fn load_metrics_are_the_busiest_instances() {
        // 3 clients on 2 instances, a request every 10 ms each, 6 ms of service: instance 0
        // serves clients 0 and 2 (ρ = 2 × 6 / 10 = 1.2, saturated), instance 1 client 1 (0.6).
        // The totals (300/s offered against 333/s) would say 0.9 and not saturated.
        let m = coordsim_model::run_once(
            &SingleWriterQueue,
            Params {
                clients: 3,
                instances: 2,
                interarrival_ms: Millis::lit(10.0),
                service_ms: Millis::lit(6.0),
                client_offset_ms: Millis::lit(0.0),
                requests_per_client: 1000,
                ..Params::default()
            },
            0,
            sim_core::Limits::default(),
        )
        .unwrap()
        .metrics;
        assert!((m.utilization - 1.2).abs() < 1e-12, "{}", m.utilization);
        assert!(m.saturated);
        assert_eq!(m.capacity_per_s, 2000.0 / 6.0);
        // Instance 0 serves 2000 requests × 6 ms back to back from 0 to the last departure,
        // 12,000 ms: busy the whole makespan.
        assert_eq!(m.makespan_ms, 12_000.0);
        assert_eq!(m.busy_fraction, 1.0);
    }

    #[test]
    fn busy_fraction_by_hand() {
        // One client, 50 requests 40 ms apart, 6 ms each: busy 300 ms of a makespan from the
        // first arrival (0) to the last departure (49 × 40 + 6 = 1966 ms).
        let m = coordsim_model::run_once(
            &SingleWriterQueue,
            Params {
                clients: 1,
                ..Params::default()
            },
            0,
            sim_core::Limits::default(),
        )
        .unwrap()
        .metrics;
        assert_eq!(m.busy_fraction, 300.0 / 1966.0);
        // 1 client × 6 ms / 40 ms, exactly as written (no float noise).
        assert_eq!(m.utilization, 0.15);
    }

    #[test]
    fn four_clients_by_hand() {
        // Clients arrive at 0, 3, 6, 9 ms each 40 ms round; service 6 ms. Round 0: client 0
        // served 0–6 (wait 0), client 1 arrives 3, served 6–12 (wait 3), client 2 arrives 6,
        // served 12–18 (wait 6), client 3 arrives 9, served 18–24 (wait 9). The server is idle
        // from 24 to 40, so every round repeats: waits {0, 3, 6, 9} × 50, mean 4.5 ms.
        // p95: rank ceil(0.95 × 200) = 190 of 50 zeros, 50 threes, 50 sixes, 50 nines → 9.
        // p50: rank 100 → 3. Queue: at 9 ms clients 2 and 3 wait → 2.
        // Makespan: last round starts at 49 × 40 = 1960, last departure 1984 → 1984 ms.
        let m = run_with(Params::default());
        assert_eq!(m.requests, 200);
        assert_eq!(m.counter_final, 200);
        assert_eq!(m.lost_updates, 0);
        assert_eq!(m.mean_wait_ms, 4.5);
        assert_eq!(m.p50_wait_ms, 3.0);
        assert_eq!(m.p95_wait_ms, 9.0);
        assert_eq!(m.max_wait_ms, 9.0);
        assert_eq!(m.max_queue_len, 2);
        assert_eq!(m.makespan_ms, 1984.0);
        assert_eq!(m.offered_rate_per_s, 100.0);
        assert!(!m.saturated);
    }

    #[test]
    fn an_arrival_at_the_instant_the_server_frees_waits_zero() {
        // One client every 6 ms with 6 ms service: each arrival meets the previous departure.
        let m = run_with(Params {
            clients: 1,
            requests_per_client: 10,
            interarrival_ms: Millis::lit(6.0),
            ..Params::default()
        });
        assert_eq!(m.max_wait_ms, 0.0);
        assert_eq!(m.max_queue_len, 0);
        assert_eq!(m.makespan_ms, 60.0);
        assert_eq!(m.utilization, 1.0);
        assert!(!m.saturated); // equal is not over
    }

    #[test]
    fn simultaneous_arrivals_queue_behind_the_one_served() {
        // 3 clients with offset 0 arrive together once: waits 0, 5, 10 (service 5).
        let m = run_with(Params {
            clients: 3,
            requests_per_client: 1,
            client_offset_ms: Millis::lit(0.0),
            service_ms: Millis::lit(5.0),
            ..Params::default()
        });
        assert_eq!(m.mean_wait_ms, 5.0);
        assert_eq!(m.max_wait_ms, 10.0);
        assert_eq!(m.max_queue_len, 2);
        assert_eq!(m.makespan_ms, 15.0);
    }

    #[test]
    fn splitting_the_key_over_instances_divides_the_load() {
        // 4 clients, offset 0, service 6: one instance gives waits 0, 6, 12, 18 each round;
        // two instances (clients 0, 2 → 0; 1, 3 → 1) give 0, 0, 6, 6.
        let base = Params {
            client_offset_ms: Millis::lit(0.0),
            ..Params::default()
        };
        assert_eq!(run_with(base.clone()).mean_wait_ms, 9.0);
        let split = run_with(Params {
            instances: 2,
            ..base
        });
        assert_eq!(split.mean_wait_ms, 3.0);
        assert_eq!(split.capacity_per_s, 2000.0 / 6.0);
        assert_eq!(split.max_queue_len, 1);
    }

    #[test]
    fn rejects_impossible_parameters_by_key() {
        let bad = |p: Params| SingleWriterQueue.validate(&p).unwrap_err().key;
        assert_eq!(
            bad(Params {
                clients: 0,
                ..Params::default()
            }),
            "clients"
        );
        assert_eq!(
            bad(Params {
                service_ms: Millis::lit(0.0),
                ..Params::default()
            }),
            "service_ms"
        );
        assert_eq!(
            bad(Params {
                interarrival_ms: Millis::lit(-1.0),
                ..Params::default()
            }),
            "interarrival_ms"
        );
        assert_eq!(
            bad(Params {
                instances: 0,
                ..Params::default()
            }),
            "instances"
        );
        assert_eq!(
            bad(Params {
                requests_per_client: u64::MAX,
                ..Params::default()
            }),
            "requests_per_client"
        );
    }

    #[test]
    fn time_limit_ends_a_run_that_would_go_on_for_years() {
        let p = Params {
            interarrival_ms: Millis::lit(1e12), // 31 years between requests
            ..Params::default()
        };
        let err = coordsim_model::run_once(
            &SingleWriterQueue,
            p.clone(),
            0,
            sim_core::Limits::default(),
        )
        .unwrap_err();
        assert!(matches!(err, ModelError::Sim(SimError::TimeLimit { .. })));
    }

    #[test]
    fn poisson_runs_replay_by_seed() {
        let p = Params {
            arrivals: Arrivals::Poisson,
            service: Service::Exponential,
            ..Params::default()
        };
        let a = coordsim_model::run_once(
            &SingleWriterQueue,
            p.clone(),
            5,
            sim_core::Limits::default(),
        )
        .unwrap();
        let b = coordsim_model::run_once(
            &SingleWriterQueue,
            p.clone(),
            5,
            sim_core::Limits::default(),
        )
        .unwrap();
        let c = coordsim_model::run_once(
            &SingleWriterQueue,
            p.clone(),
            6,
            sim_core::Limits::default(),
        )
        .unwrap();
        assert_eq!(a, b);
        assert_ne!(a.metrics.mean_wait_ms, c.metrics.mean_wait_ms);
    }

    /// What the engine must agree with, computed another way: per instance, sort the
    /// arrivals (time, then client) and apply the recursion start = max(arrival, free),
    /// free = start + service (the lesson's own algorithm). The queue length after the instant
    /// t counts requests that arrived by t and start after t; it only grows at arrivals, so
    /// checking arrival instants finds the maximum.
    fn oracle(p: &Params) -> (Vec<u64>, u64, usize) {
        let ia = p.interarrival_ms.ns();
        let off = p.client_offset_ms.ns();
        let service = p.service_ms.ns();
        let mut waits = Vec::new();
        let (mut first, mut last) = (u64::MAX, 0);
        let mut max_queue = 0;
        for k in 0..p.instances {
            let mut arrivals: Vec<(u64, u64)> = (0..p.clients)
                .filter(|c| c % p.instances == k)
                .flat_map(|c| (0..p.requests_per_client).map(move |i| (c * off + i * ia, c)))
                .collect();
            arrivals.sort();
            let mut free = 0;
            let mut starts = Vec::new();
            for &(a, _) in &arrivals {
                let start = a.max(free);
                waits.push(start - a);
                starts.push(start);
                free = start + service;
                first = first.min(a);
                last = last.max(free);
            }
            for &(t, _) in &arrivals {
                let waiting = arrivals
                    .iter()
                    .zip(&starts)
                    .filter(|((a, _), s)| *a <= t && **s > t)
                    .count();
                max_queue = max_queue.max(waiting);
            }
        }
        (waits, last - first, max_queue)
    }

    fn nearest_rank(sorted: &[u64], p: u64) -> f64 {
        let rank = (p * sorted.len() as u64).div_ceil(100) as usize;
        ns_to_ms(sorted[rank.max(1) - 1])
    }

    proptest::proptest! {
        #[test]
        fn the_engine_agrees_with_the_lindley_recursion(
            clients in 1u64..7,
            requests_per_client in 1u64..25,
            interarrival_us in 1u64..60_000,
            offset_us in 0u64..12_000,
            service_us in 1u64..20_000,
            instances in 1u64..4,
        ) {
            let p = Params {
                clients,
                requests_per_client,
                interarrival_ms: Millis::lit(interarrival_us as f64 / 1000.0),
                client_offset_ms: Millis::lit(offset_us as f64 / 1000.0),
                service_ms: Millis::lit(service_us as f64 / 1000.0),
                instances,
                ..Params::default()
            };
            let m = run_with(p.clone());
            let (mut waits, makespan, max_queue) = oracle(&p);
            waits.sort_unstable();
            let n = waits.len() as u64;
            let sum: u64 = waits.iter().sum();
            proptest::prop_assert_eq!(m.requests, n);
            // No two services of one instance overlap: the read-modify-write of every
            // request lands (a second request served during the first would be lost).
            proptest::prop_assert_eq!(m.counter_final, n);
            proptest::prop_assert_eq!(m.mean_wait_ms, sum as f64 / (n as f64 * 1e6));
            proptest::prop_assert_eq!(m.p50_wait_ms, nearest_rank(&waits, 50));
            proptest::prop_assert_eq!(m.p95_wait_ms, nearest_rank(&waits, 95));
            proptest::prop_assert_eq!(m.p99_wait_ms, nearest_rank(&waits, 99));
            proptest::prop_assert_eq!(m.max_wait_ms, ns_to_ms(*waits.last().unwrap()));
            proptest::prop_assert_eq!(m.makespan_ms, ns_to_ms(makespan));
            proptest::prop_assert_eq!(m.max_queue_len, max_queue as u64);
        }

        #[test]
        fn random_runs_keep_the_invariants(
            clients in 1u64..6,
            requests_per_client in 1u64..200,
            interarrival_ms in 0.5f64..50.0,
            service_ms in 0.5f64..20.0,
            instances in 1u64..3,
            seed in 0u64..1000,
        ) {
            let p = Params {
                clients,
                requests_per_client,
                interarrival_ms: Millis::lit(interarrival_ms),
                service_ms: Millis::lit(service_ms),
                instances,
                arrivals: Arrivals::Poisson,
                service: Service::Exponential,
                ..Params::default()
            };
            let m = coordsim_model::run_once(&SingleWriterQueue, p.clone(), seed, sim_core::Limits::default()).unwrap().metrics;
            // Serialized read-modify-writes: every one lands, none is lost.
            proptest::prop_assert_eq!(m.counter_final, clients * requests_per_client);
            proptest::prop_assert_eq!(m.lost_updates, 0);
            proptest::prop_assert!(m.p50_wait_ms <= m.p95_wait_ms);
            proptest::prop_assert!(m.p95_wait_ms <= m.p99_wait_ms);
            proptest::prop_assert!(m.p99_wait_ms <= m.max_wait_ms);
            proptest::prop_assert!(m.mean_wait_ms <= m.max_wait_ms);
            // Queued requests each waited, so a queue implies a positive wait.
            proptest::prop_assert!(m.max_queue_len == 0 || m.max_wait_ms > 0.0);
            // Little's law, from outside: L = λ·W with λ = requests / makespan (the run
            // checks it to the nanosecond inside; here on the metrics, within float noise).
            let lambda_w = m.requests as f64 * m.mean_wait_ms / m.makespan_ms;
            if m.makespan_ms > 0.0 {
                proptest::prop_assert!((m.mean_queue_len - lambda_w).abs() <= 1e-9 * lambda_w.max(1.0));
                proptest::prop_assert!(m.mean_in_system >= m.mean_queue_len);
            }
        }

        #[test]
        fn every_service_and_arrival_shape_keeps_little_and_the_counts(
            service in proptest::sample::select(vec![Service::Uniform, Service::Lognormal, Service::Gamma, Service::Empirical]),
            arrivals in proptest::sample::select(vec![Arrivals::Uniform, Arrivals::Lognormal, Arrivals::Gamma, Arrivals::Trace]),
            cv in 0.0f64..0.57,
            warmup_ms in 0.0f64..200.0,
            seed in 0u64..1000,
        ) {
            let p = Params {
                clients: 3,
                requests_per_client: 100,
                interarrival_ms: Millis::lit(15.0),
                service_ms: Millis::lit(4.0),
                service,
                arrivals,
                service_cv: cv,
                interarrival_cv: cv,
                service_trace: vec![1.0, 3.0, 8.0],
                arrival_trace: vec![5.0, 15.0, 25.0],
                warmup_ms: Millis::lit(warmup_ms),
                ..Params::default()
            };
            // The run checks Little's law itself: an error here is a broken invariant.
            let m = coordsim_model::run_once(&SingleWriterQueue, p, seed, sim_core::Limits::default()).unwrap().metrics;
            proptest::prop_assert_eq!(m.requests, 300);
            proptest::prop_assert_eq!(m.counter_final, 300);
            proptest::prop_assert!(m.measured_requests <= 300);
        }
    }

    #[test]
    fn the_warm_up_leaves_early_requests_out_of_the_statistics() {
        // One client every 4 ms, 6 ms of service: request i waits 2i ms (0, 2, …, 18 for
        // ten). A 20 ms warm-up leaves out the five arriving at 0 … 16 ms: the rest wait
        // 10 … 18, mean 14; the window runs from the first measured arrival (20 ms) to the
        // last departure (10 × 6 = 60 ms), so L = (10 + 12 + 14 + 16 + 18) / 40 = 1.75.
        let m = run_with(Params {
            clients: 1,
            requests_per_client: 10,
            interarrival_ms: Millis::lit(4.0),
            service_ms: Millis::lit(6.0),
            warmup_ms: Millis::lit(20.0),
            ..Params::default()
        });
        assert_eq!((m.requests, m.measured_requests), (10, 5));
        assert_eq!(m.mean_wait_ms, 14.0);
        assert_eq!(m.max_wait_ms, 18.0);
        assert_eq!(m.mean_queue_len, 1.75);
        // In the system: waits plus 5 × 6 ms of service, 100 / 40.
        assert_eq!(m.mean_in_system, 2.5);
        // Without it: waits 0 … 18 (sum 90) over 0 … 60 ms.
        let all = run_with(Params {
            clients: 1,
            requests_per_client: 10,
            interarrival_ms: Millis::lit(4.0),
            service_ms: Millis::lit(6.0),
            ..Params::default()
        });
        assert_eq!((all.mean_wait_ms, all.mean_queue_len), (9.0, 1.5));
    }

    #[test]
    fn a_one_value_trace_serves_like_the_fixed_time_and_a_trace_sets_the_capacity() {
        let fixed = run_with(Params::default());
        let traced = run_with(Params {
            service: Service::Empirical,
            service_trace: vec![6.0],
            service_ms: Millis::lit(1.0),
            ..Params::default()
        });
        assert_eq!(fixed, traced);
        // A trace of 2 and 10 ms has mean 6: the capacity is 1000 / 6 whatever service_ms says.
        let two = run_with(Params {
            service: Service::Empirical,
            service_trace: vec![2.0, 10.0],
            service_ms: Millis::lit(1.0),
            ..Params::default()
        });
        assert_eq!(two.capacity_per_s, 1000.0 / 6.0);
    }

    #[test]
    fn impossible_shapes_are_refused_at_their_key() {
        for (p, key) in [
            (
                Params {
                    service: Service::Uniform,
                    service_cv: 0.7,
                    ..Params::default()
                },
                "service_cv",
            ),
            (
                Params {
                    service: Service::Empirical,
                    ..Params::default()
                },
                "service_trace",
            ),
            (
                Params {
                    arrivals: Arrivals::Trace,
                    ..Params::default()
                },
                "arrival_trace",
            ),
            (
                Params {
                    arrivals: Arrivals::Gamma,
                    interarrival_cv: -1.0,
                    ..Params::default()
                },
                "interarrival_cv",
            ),
            (
                Params {
                    service: Service::Empirical,
                    service_trace: vec![0.0],
                    ..Params::default()
                },
                "service_trace",
            ),
        ] {
            let e = SingleWriterQueue.validate(&p).unwrap_err();
            assert_eq!(e.key, key, "{}", e.message);
        }
    }
}
