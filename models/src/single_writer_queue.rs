//! `single_writer_queue` (lesson 003): one key owned by one instance; requests to it queue FIFO
//! and are served one at a time, so no update is lost, and the price is waiting.

use sim_core::{
    Class, EventQueue, Handler, Nanos, Samples, SimError, Stream, exponential_ms, ms_to_ns,
    ns_to_ms, run, stream,
};

use coordsim_model::{Millis, NoEntity, ParamError, positive_duration};
use coordsim_model::{
    ChartKind, DefaultChart, Distribution, MAX_DISTRIBUTION_POINTS, Model, ModelError, Output,
    RunContext, Valid,
};
use sim_core::{Stations, Waiting};

choice! {
    /// How request times are drawn.
    pub enum Arrivals {
        /// Request `i` of client `c` at `c × offset + i × interarrival`.
        Schedule = "schedule",
        /// Exponential gaps of mean `interarrival_ms`, each client on its own stream.
        Poisson = "poisson",
    }
}

choice! {
    /// How service times are drawn.
    pub enum Service {
        /// Every request takes `service_ms`.
        Fixed = "fixed",
        /// Exponential with mean `service_ms`, each instance on its own stream.
        Exponential = "exponential",
    }
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
        /// service time per request (mean for `exponential`)
        service_ms: Millis = Millis::lit(6.0),
        /// `schedule` (fixed gaps) or `poisson` (exponential gaps)
        arrivals: Arrivals = Arrivals::Schedule,
        /// `fixed` or `exponential` service times
        service: Service = Service::Fixed,
        /// the key is split over this many instances; client `c` goes to instance `c mod instances`
        instances: u64 = 1,
    }
}

columns! {
    /// Metrics of one run.
    pub struct Metrics {
        /// requests sent (clients × requests_per_client)
        requests: u64,
        /// sum of the instances' counters after the run
        counter_final: u64,
        /// requests − counter_final (0: a single writer loses nothing)
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
    }
}

/// The model.
pub struct SingleWriterQueue;

/// Largest client count: each client's arrivals have their own event class.
const MAX_CLIENTS: u64 = 1_000_000;
/// Largest request count of one run: every wait is kept for exact percentiles (8 bytes each).
const MAX_REQUESTS: u64 = 100_000_000;

impl Model for SingleWriterQueue {
    fn name(&self) -> &'static str {
        "single_writer_queue"
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
        if !(1..=MAX_CLIENTS).contains(&p.instances) {
            return Err(ParamError::new(
                "instances",
                format!("must be from 1 to {MAX_CLIENTS}, got {}", p.instances),
            ));
        }
        Ok(())
    }

    fn distributions(&self) -> &'static [Distribution] {
        &[Distribution {
            name: WAIT_MS,
            meaning: "each request's wait in the queue before its service starts",
        }]
    }

    fn run(&self, p: &Valid<Params>, ctx: &RunContext) -> Result<Output<Metrics, NoEntity>, ModelError> {
        let seed = ctx.seed();
        let mut sim = Sim::new(p, seed, ctx);
        let mut queue =
            ctx.queue(p.clients as usize + p.instances as usize);
        for c in 0..p.clients as u32 {
            let first = sim.next_arrival(c);
            queue.schedule_at(first, arrival_class(c), Event::Arrival { client: c });
        }
        run(&mut queue, &mut sim)?;
        let distributions = if ctx.wants_distributions() {
            vec![(WAIT_MS, sim.waits.distribution_ms(MAX_DISTRIBUTION_POINTS))]
        } else {
            Vec::new()
        };
        Ok(Output {
            metrics: sim.metrics(p),
            entities: Vec::new(),
            lanes: Vec::new(),
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
    /// Sum of the exponential gaps so far (poisson only), in ms, rounded once per arrival.
    elapsed_ms: f64,
    rng: Option<Stream>,
}

struct Instance {
    counter: u64,
    /// Time spent serving, for `busy_fraction`.
    busy: Nanos,
    service_rng: Option<Stream>,
}

struct Sim {
    clients: Vec<Client>,
    instances: Vec<Instance>,
    requests_per_client: u64,
    interarrival_ns: Nanos,
    interarrival_ms: f64,
    offset_ns: Nanos,
    service_ns: Nanos,
    service_ms: f64,
    stations: Stations,
    waits: Samples,
    first_arrival: Option<Nanos>,
    last_departure: Nanos,
}

impl Sim {
    fn new(p: &Params, seed: u64, ctx: &RunContext) -> Self {
        let poisson = p.arrivals == Arrivals::Poisson;
        let exponential = p.service == Service::Exponential;
        let instances = p.instances as usize;
        let per_instance = p.clients.div_ceil(p.instances) * p.requests_per_client;
        Sim {
            clients: (0..p.clients)
                .map(|c| Client {
                    instance: (c % p.instances) as u32,
                    sent: 0,
                    next_at: 0,
                    elapsed_ms: 0.0,
                    rng: poisson.then(|| stream(seed, &format!("arrivals/client-{c}"))),
                })
                .collect(),
            instances: (0..instances)
                .map(|i| Instance {
                    counter: 0,
                    busy: 0,
                    service_rng: exponential
                        .then(|| stream(seed, &format!("service/instance-{i}"))),
                })
                .collect(),
            requests_per_client: p.requests_per_client,
            interarrival_ns: p.interarrival_ms.ns(),
            interarrival_ms: p.interarrival_ms.ms(),
            offset_ns: p.client_offset_ms.ns(),
            service_ns: p.service_ms.ns(),
            service_ms: p.service_ms.ms(),
            stations: Stations::new(instances, per_instance as usize),
            waits: ctx.samples((p.clients * p.requests_per_client) as usize),
            first_arrival: None,
            last_departure: 0,
        }
    }

    /// The time of client `c`'s next request (the `sent`-th, 0-based).
    #[inline]
    fn next_arrival(&mut self, c: u32) -> Nanos {
        let offset = self.offset_ns.saturating_mul(u64::from(c));
        let interarrival_ms = self.interarrival_ms;
        let client = &mut self.clients[c as usize];
        client.next_at = match &mut client.rng {
            None => offset.saturating_add(self.interarrival_ns.saturating_mul(client.sent)),
            Some(rng) => {
                // Request i comes after i + 1 gaps; the sum is kept in ms and rounded to the
                // nanosecond once, so rounding never accumulates.
                client.elapsed_ms += exponential_ms(rng, interarrival_ms);
                offset.saturating_add(ms_to_ns(client.elapsed_ms).unwrap_or(u64::MAX))
            }
        };
        client.next_at
    }

    #[inline]
    fn service_time(&mut self, instance: usize) -> Nanos {
        match &mut self.instances[instance].service_rng {
            None => self.service_ns,
            Some(rng) => ms_to_ns(exponential_ms(rng, self.service_ms)).unwrap_or(u64::MAX),
        }
    }

    #[inline]
    fn start_service(&mut self, instance: usize, arrived: Nanos, queue: &mut EventQueue<Event>) {
        let now = queue.now();
        self.waits.record(now - arrived);
        let service = self.service_time(instance);
        // The state lives in the instance's memory and the step is atomic: serving increments.
        let served = &mut self.instances[instance];
        served.counter += 1;
        served.busy = served.busy.saturating_add(service);
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
        let offered = p.clients as f64 * 1000.0 / p.interarrival_ms.ms();
        let capacity = p.instances as f64 * 1000.0 / p.service_ms.ms();
        // The busiest instance serves ceil(clients / instances) clients (client c goes to
        // instance c mod instances): its offered rate against its own capacity. With one
        // instance these are the totals, computed the same way.
        let busiest_clients = p.clients.div_ceil(p.instances);
        let busiest_offered = busiest_clients as f64 * 1000.0 / p.interarrival_ms.ms();
        let instance_capacity = 1000.0 / p.service_ms.ms();
        let makespan = self.last_departure - self.first_arrival.unwrap_or(0);
        let busiest_busy = self.instances.iter().map(|i| i.busy).max().unwrap_or(0);
        let waits = &mut self.waits;
        Metrics {
            requests,
            counter_final,
            lost_updates: requests - counter_final,
            offered_rate_per_s: offered,
            capacity_per_s: capacity,
            utilization: busiest_offered / instance_capacity,
            saturated: busiest_offered > instance_capacity,
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
                let instance = self.clients[client as usize].instance as usize;
                let request = Waiting {
                    arrived: now,
                    tag: client,
                };
                if self.stations.arrive(instance, request) {
                    self.start_service(instance, now, queue);
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
                if let Some(next) = self.stations.depart(instance, now) {
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
        coordsim_model::run_once(&SingleWriterQueue, p.clone(), 0, sim_core::Limits::default())
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
        assert_eq!(m.utilization, (1000.0 / 40.0) / (1000.0 / 6.0));
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
        let err = coordsim_model::run_once(&SingleWriterQueue, p.clone(), 0, sim_core::Limits::default()).unwrap_err();
        assert!(matches!(err, ModelError::Sim(SimError::TimeLimit { .. })));
    }

    #[test]
    fn poisson_runs_replay_by_seed() {
        let p = Params {
            arrivals: Arrivals::Poisson,
            service: Service::Exponential,
            ..Params::default()
        };
        let a = coordsim_model::run_once(&SingleWriterQueue, p.clone(), 5, sim_core::Limits::default()).unwrap();
        let b = coordsim_model::run_once(&SingleWriterQueue, p.clone(), 5, sim_core::Limits::default()).unwrap();
        let c = coordsim_model::run_once(&SingleWriterQueue, p.clone(), 6, sim_core::Limits::default()).unwrap();
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
            proptest::prop_assert_eq!(m.counter_final, n); // conservation: every request served
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
            proptest::prop_assert_eq!(m.counter_final, clients * requests_per_client);
            proptest::prop_assert_eq!(m.lost_updates, 0);
            proptest::prop_assert!(m.p50_wait_ms <= m.p95_wait_ms);
            proptest::prop_assert!(m.p95_wait_ms <= m.p99_wait_ms);
            proptest::prop_assert!(m.p99_wait_ms <= m.max_wait_ms);
            proptest::prop_assert!(m.mean_wait_ms <= m.max_wait_ms);
            // Queued requests each waited, so a queue implies a positive wait.
            proptest::prop_assert!(m.max_queue_len == 0 || m.max_wait_ms > 0.0);
        }
    }
}
