//! `edge_placement` (lesson 003): requests from several edges reach one coordinated object;
//! where the object stands sets each edge's round trip, and queueing at it adds to that.

use sim_core::{Class, EventQueue, Handler, Nanos, Samples, SimError, run};

use coordsim_model::Value;
use coordsim_model::{
    ChartKind, DefaultChart, Distribution, Model, ModelError, Output, RunContext, Valid,
};
use coordsim_model::{
    Cost, Kind, ListItem, Millis, ParamError, field, positive_duration, table_fields,
};
use sim_core::{Stations, Waiting};

/// One edge: its name, its load and its round trip per placement.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// The edge's name (its entity row).
    pub name: String,
    /// Requests it sends over `duration_ms`.
    pub load: u64,
    /// Round trip to the object, per placement name, in ms.
    pub rtt_ms: Vec<(String, Millis)>,
}

impl Edge {
    fn new(name: &str, load: u64, busiest_edge: f64, region: f64, per_branch: f64) -> Self {
        Edge {
            name: name.to_string(),
            load,
            rtt_ms: vec![
                ("busiest_edge".into(), Millis::lit(busiest_edge)),
                ("region".into(), Millis::lit(region)),
                ("per_branch".into(), Millis::lit(per_branch)),
            ],
        }
    }

    /// The round trip under `placement`.
    pub fn rtt(&self, placement: &str) -> Option<Millis> {
        self.rtt_ms
            .iter()
            .find(|(p, _)| p == placement)
            .map(|(_, ms)| *ms)
    }
}

/// The edges of lesson 003: loads and round trips for the busiest-edge, region and
/// per-branch placements.
pub fn lesson_edges() -> Vec<Edge> {
    vec![
        Edge::new("uc-1", 2600, 4.0, 62.0, 4.0),
        Edge::new("uc-2", 2100, 40.0, 58.0, 4.0),
        Edge::new("uc-3", 1800, 55.0, 66.0, 4.0),
        Edge::new("uc-4", 1500, 70.0, 60.0, 4.0),
        Edge::new("uc-5", 1200, 88.0, 64.0, 4.0),
        Edge::new("uc-6", 800, 96.0, 70.0, 4.0),
    ]
}

const EDGE_FIELDS: &[&str] = &["name", "load", "rtt_ms"];

impl ListItem for Edge {
    const LIST_KIND: Kind = Kind::Tables("name, load, rtt_ms = { placement = ms, … }");
    fn list_from_value(value: &Value) -> Result<Vec<Self>, String> {
        let Value::List(items) = value else {
            return Err(format!(
                "expected an array of edges, got {}",
                value.type_name()
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let entries = table_fields("edges", i, item, EDGE_FIELDS)?;
                let name = match field(entries, "name") {
                    Some(Value::Str(s)) => s.clone(),
                    _ => return Err(format!("edges[{i}] needs `name`, a string")),
                };
                let load = match field(entries, "load") {
                    Some(Value::Int(n)) if *n >= 0 => *n as u64,
                    _ => return Err(format!("edges[{i}] ({name}) needs `load`, an integer ≥ 0")),
                };
                let rtt_ms = match field(entries, "rtt_ms") {
                    Some(Value::Table(t)) => t
                        .iter()
                        .map(|(placement, ms)| match ms.as_f64() {
                            Some(x) => Millis::new(x).map(|m| (placement.clone(), m)).ok_or_else(|| {
                                format!("edges[{i}] ({name}): rtt_ms.{placement} {}", sim_core::bad_duration(x))
                            }),
                            None => Err(format!("edges[{i}] ({name}): rtt_ms.{placement} must be a number")),
                        })
                        .collect::<Result<_, _>>()?,
                    _ => {
                        return Err(format!(
                            "edges[{i}] ({name}) needs `rtt_ms`, a table of placement = round trip in ms"
                        ));
                    }
                };
                Ok(Edge { name, load, rtt_ms })
            })
            .collect()
    }
    fn list_to_value(list: &[Self]) -> Value {
        Value::List(
            list.iter()
                .map(|e| {
                    Value::Table(vec![
                        ("name".into(), Value::Str(e.name.clone())),
                        ("load".into(), Value::Int(e.load as i64)),
                        (
                            "rtt_ms".into(),
                            Value::Table(
                                e.rtt_ms
                                    .iter()
                                    .map(|(p, ms)| (p.clone(), Value::Float(ms.ms())))
                                    .collect(),
                            ),
                        ),
                    ])
                })
                .collect(),
        )
    }
}

params! {
    /// Parameters of `edge_placement`; defaults are lesson 003's.
    pub struct Params {
        /// the edges: name, load (requests) and round trip per placement
        edges: Vec<Edge> = lesson_edges(),
        /// which placement to evaluate (sweep it to compare); a key of every edge's `rtt_ms`
        placement: String = "busiest_edge".to_string(),
        /// placements in which every edge has its own object (the key is split per edge)
        per_edge_placements: Vec<String> = vec!["per_branch".to_string()],
        /// the same work without coordination, from the same edge
        local_ms: Millis = Millis::lit(2.0),
        /// service time at the object; above 0 adds queueing
        service_ms: Millis = Millis::lit(0.0),
        /// each edge's requests are spread evenly over this window
        duration_ms: Millis = Millis::lit(10000.0),
    }
}

columns! {
    /// Metrics of one run.
    pub struct Metrics {
        /// Σ load
        requests: u64,
        /// Σ load × 1000 / duration_ms: the rate the objects receive in all (an extension)
        offered_rate_per_s: f64,
        /// Σ load × rtt / Σ load
        weighted_rtt_ms: f64,
        /// the largest round trip of an edge with load > 0
        worst_edge_rtt_ms: f64,
        /// the smallest round trip of an edge with load > 0
        best_edge_rtt_ms: f64,
        /// weighted round trip − local_ms: what pinning the object costs
        penalty_ms: f64,
        /// mean response (rtt + wait + service)
        mean_response_ms: f64,
        /// 95th percentile response (nearest rank)
        p95_response_ms: f64,
        /// longest response
        max_response_ms: f64,
    }
}

columns! {
    /// One edge's row.
    pub struct EdgeRow {
        /// requests from this edge
        load: u64,
        /// 100 × load / Σ load
        load_share_pct: f64,
        /// this edge's round trip under the placement
        rtt_ms: f64,
        /// mean response of this edge's requests (empty without requests)
        mean_response_ms: Option<f64>,
        /// 95th percentile response of this edge's requests (empty without requests)
        p95_response_ms: Option<f64>,
    }
}

/// The model.
pub struct EdgePlacement;

/// Most requests one run may simulate.
const MAX_REQUESTS: u64 = 100_000_000;

impl Model for EdgePlacement {
    fn name(&self) -> &'static str {
        "edge_placement"
    }
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        crate::turkish::param_meaning(self.name(), key, language)
    }
    fn summary(&self) -> &'static str {
        "edges reach one coordinated object whose placement sets their round trips; queueing adds to them (lesson 003)"
    }
    fn charts(&self) -> Vec<DefaultChart> {
        vec![
            DefaultChart {
                name: "rtt-per-placement",
                x: "placement",
                y: &["weighted_rtt_ms", "worst_edge_rtt_ms"],
                kind: ChartKind::Bar,
                mark_x: None,
                mark_y: None,
            },
            DefaultChart {
                name: "response-per-edge",
                x: "entity",
                y: &["mean_response_ms"],
                kind: ChartKind::Bar,
                mark_x: None,
                mark_y: None,
            },
        ]
    }
    type Params = Params;
    type Metrics = Metrics;
    type Entity = EdgeRow;

    fn cost(&self, p: &Params) -> Cost {
        let requests: u64 = p.edges.iter().map(|e| e.load).fold(0, u64::saturating_add);
        Cost {
            events: requests.saturating_mul(4),
            memory_bytes: requests.saturating_mul(48),
            entity_rows: p.edges.len() as u64,
            driven_by: "edges".into(),
            point_bytes: 0,
            ..Cost::default()
        }
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        if p.edges.is_empty() {
            return Err(ParamError::new("edges", "give at least one edge"));
        }
        for (i, e) in p.edges.iter().enumerate() {
            if e.name.is_empty() {
                return Err(ParamError::new(
                    "edges",
                    format!("edges[{i}] has an empty name"),
                ));
            }
            if p.edges[..i].iter().any(|o| o.name == e.name) {
                return Err(ParamError::new(
                    "edges",
                    format!("two edges are named `{}`", e.name),
                ));
            }
            if e.rtt(&p.placement).is_none() {
                let known: Vec<&str> = e.rtt_ms.iter().map(|(k, _)| k.as_str()).collect();
                return Err(ParamError::new(
                    "placement",
                    format!(
                        "`{}` is not in the rtt_ms of edge `{}`; its placements: {}",
                        p.placement,
                        e.name,
                        known.join(", ")
                    ),
                ));
            }
        }
        let total: u64 = p.edges.iter().map(|e| e.load).fold(0, u64::saturating_add);
        if total == 0 {
            return Err(ParamError::new(
                "edges",
                "every edge has load 0: nothing to simulate",
            ));
        }
        if total > MAX_REQUESTS {
            return Err(ParamError::new(
                "edges",
                format!("Σ load = {total} is above the limit of {MAX_REQUESTS}"),
            ));
        }
        positive_duration("duration_ms", p.duration_ms.ms())
    }

    fn run(
        &self,
        p: &Valid<Params>,
        ctx: &RunContext,
    ) -> Result<Output<Metrics, EdgeRow>, ModelError> {
        let mut sim = Sim::new(p, ctx)?;
        let mut queue = ctx.queue(p.edges.len() + 2);
        for e in 0..p.edges.len() as u32 {
            if let Some(at) = sim.next_arrival(e) {
                queue.schedule_at(at, arrival_class(e), Event::Arrival { edge: e });
            }
        }
        run(&mut queue, &mut sim)?;
        let responses = ctx
            .wants_distributions()
            .then(|| sim.responses.distribution_ms(ctx.distribution_points()));
        let mut out = sim.output(p, ctx.wants_entities());
        if let Some(samples) = responses {
            out = out.with_distribution(RESPONSE_MS, samples);
        }
        Ok(out)
    }

    fn distributions(&self) -> &'static [Distribution] {
        &[Distribution {
            name: RESPONSE_MS,
            meaning: "each request's response time: its round trip plus its wait and service at the object",
        }]
    }
}

/// The per-request response times, as charts name them.
const RESPONSE_MS: &str = "response_ms";

#[derive(Debug, Clone, Copy)]
enum Event {
    /// The next request of an edge reaches its object.
    Arrival { edge: u32 },
    /// The object `object` finishes a request.
    Departure { object: u32 },
}

/// Departures first; arrivals at one instant in edge order.
const DEPARTURE: Class = 0;
fn arrival_class(edge: u32) -> Class {
    1 + edge
}

struct EdgeState {
    load: u64,
    sent: u64,
    rtt_ms: f64,
    rtt: Nanos,
    forward: Nanos,
    responses: Samples,
}

struct Sim {
    edges: Vec<EdgeState>,
    per_edge: bool,
    duration: Nanos,
    service: Nanos,
    stations: Stations,
    responses: Samples,
}

impl Sim {
    fn new(p: &Params, ctx: &RunContext) -> Result<Self, ModelError> {
        let per_edge = p.per_edge_placements.contains(&p.placement);
        let edges: Vec<EdgeState> = p
            .edges
            .iter()
            .map(|e| {
                // Validation checked that every edge knows the placement.
                let rtt = e.rtt(&p.placement).ok_or_else(|| {
                    ModelError::Invariant(format!(
                        "edge `{}` has no rtt for `{}`",
                        e.name, p.placement
                    ))
                })?;
                Ok(EdgeState {
                    load: e.load,
                    sent: 0,
                    rtt_ms: rtt.ms(),
                    rtt: rtt.ns(),
                    forward: rtt.ns() / 2,
                    responses: ctx.samples(e.load as usize),
                })
            })
            .collect::<Result<_, ModelError>>()?;
        let total: u64 = p.edges.iter().map(|e| e.load).sum();
        let objects = if per_edge { edges.len() } else { 1 };
        // Room for every request an object can receive, so queues never grow in the loop.
        let room = if per_edge {
            p.edges.iter().map(|e| e.load).max().unwrap_or(0)
        } else {
            total
        };
        Ok(Sim {
            per_edge,
            duration: p.duration_ms.ns(),
            service: p.service_ms.ns(),
            stations: Stations::new(objects, room as usize),
            responses: ctx.samples(total as usize),
            edges,
        })
    }

    /// When edge `e`'s next request reaches its object: it leaves at i × duration / load
    /// (to the nearest nanosecond, in integer arithmetic) and travels half the round trip.
    fn next_arrival(&self, e: u32) -> Option<Nanos> {
        let edge = &self.edges[e as usize];
        if edge.sent >= edge.load {
            return None;
        }
        let exact = u128::from(edge.sent) * u128::from(self.duration);
        let leave = ((2 * exact + u128::from(edge.load)) / (2 * u128::from(edge.load))) as Nanos;
        Some(leave.saturating_add(edge.forward))
    }

    fn object(&self, edge: u32) -> usize {
        if self.per_edge { edge as usize } else { 0 }
    }

    fn serve(&mut self, object: usize, queue: &mut EventQueue<Event>) {
        queue.schedule_in(
            self.service,
            DEPARTURE,
            Event::Departure {
                object: object as u32,
            },
        );
    }

    fn output(mut self, p: &Params, entities_wanted: bool) -> Output<Metrics, EdgeRow> {
        let total: u64 = p.edges.iter().map(|e| e.load).sum();
        let loaded = || self.edges.iter().filter(|e| e.load > 0).map(|e| e.rtt_ms);
        let weighted = self
            .edges
            .iter()
            .map(|e| e.load as f64 * e.rtt_ms)
            .sum::<f64>()
            / total as f64;
        let metrics = Metrics {
            requests: total,
            offered_rate_per_s: total as f64 * 1000.0 / p.duration_ms.ms(),
            weighted_rtt_ms: weighted,
            worst_edge_rtt_ms: loaded().fold(f64::NEG_INFINITY, f64::max),
            best_edge_rtt_ms: loaded().fold(f64::INFINITY, f64::min),
            penalty_ms: weighted - p.local_ms.ms(),
            mean_response_ms: self.responses.mean_ms().unwrap_or(0.0),
            p95_response_ms: self.responses.percentile_ms(95.0).unwrap_or(0.0),
            max_response_ms: self.responses.max_ms().unwrap_or(0.0),
        };
        let entities = if !entities_wanted {
            Vec::new()
        } else {
            p.edges
                .iter()
                .zip(&mut self.edges)
                .map(|(e, state)| {
                    (
                        e.name.clone(),
                        EdgeRow {
                            load: e.load,
                            load_share_pct: 100.0 * e.load as f64 / total as f64,
                            rtt_ms: state.rtt_ms,
                            mean_response_ms: state.responses.mean_ms(),
                            p95_response_ms: state.responses.percentile_ms(95.0),
                        },
                    )
                })
                .collect()
        };
        Output {
            metrics,
            entities,
            lanes: coordsim_model::Lanes::new(),
            distributions: Vec::new(),
        }
    }
}

impl Handler<Event> for Sim {
    fn handle(&mut self, event: Event, queue: &mut EventQueue<Event>) -> Result<(), SimError> {
        let now = queue.now();
        match event {
            Event::Arrival { edge } => {
                let object = self.object(edge);
                if self.stations.arrive(
                    object,
                    Waiting {
                        arrived: now,
                        tag: edge,
                    },
                ) {
                    self.serve(object, queue);
                }
                self.edges[edge as usize].sent += 1;
                if let Some(at) = self.next_arrival(edge) {
                    queue.schedule_at(at, arrival_class(edge), event);
                }
            }
            Event::Departure { object } => {
                let object = object as usize;
                let Some(done) = self.stations.in_service(object) else {
                    return Err(SimError::Model("a departure from an idle object".into()));
                };
                // Response = time at the object (wait + service) + the whole round trip.
                let edge = &mut self.edges[done.tag as usize];
                let response = (now - done.arrived) + edge.rtt;
                edge.responses.record(response);
                self.responses.record(response);
                if self.stations.depart(object, now).is_some() {
                    self.serve(object, queue);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(name: &str, load: u64, rtt: f64) -> Edge {
        Edge {
            name: name.into(),
            load,
            rtt_ms: vec![("p".into(), Millis::lit(rtt))],
        }
    }

    fn run_with(placement_split: bool) -> Output<Metrics, EdgeRow> {
        let p = Params {
            edges: vec![edge("a", 2, 10.0), edge("b", 1, 20.0)],
            placement: "p".into(),
            per_edge_placements: if placement_split {
                vec!["p".into()]
            } else {
                vec![]
            },
            local_ms: Millis::lit(2.0),
            service_ms: Millis::lit(3.0),
            duration_ms: Millis::lit(10.0),
        };
        EdgePlacement.validate(&p).unwrap();
        coordsim_model::run_once(&EdgePlacement, p.clone(), 0, sim_core::Limits::default()).unwrap()
    }

    #[test]
    fn a_shared_object_queues_by_hand() {
        // a: load 2 over 10 ms leaves at 0 and 5, reaches the object after 5 (half of 10):
        // at 5 and 10. b: leaves at 0, reaches it after 10: at 10. Service 3 ms.
        // a0 served 5–8: response 3 + 10 = 13. At 10, a1 and b0 arrive together, edges in
        // order: a1 served 10–13 (13); b0 waits 3, served 13–16: 3 + 3 + 20 = 26.
        // Mean (13 + 13 + 26) / 3; weighted rtt (2 × 10 + 20) / 3 = 40 / 3.
        let out = run_with(false);
        let m = &out.metrics;
        assert_eq!(m.requests, 3);
        assert_eq!(m.offered_rate_per_s, 300.0);
        assert_eq!(m.weighted_rtt_ms, 40.0 / 3.0);
        assert_eq!((m.worst_edge_rtt_ms, m.best_edge_rtt_ms), (20.0, 10.0));
        assert_eq!(m.penalty_ms, 40.0 / 3.0 - 2.0);
        assert_eq!(m.mean_response_ms, 52.0 / 3.0);
        assert_eq!((m.p95_response_ms, m.max_response_ms), (26.0, 26.0));
        let a = &out.entities[0];
        assert_eq!(a.0, "a");
        assert_eq!(a.1.mean_response_ms, Some(13.0));
        assert_eq!(a.1.load_share_pct, 200.0 / 3.0);
        assert_eq!(out.entities[1].1.mean_response_ms, Some(26.0));
    }

    #[test]
    fn split_per_edge_nobody_waits() {
        // Each edge its own object: a's requests 5 ms apart (> 3 ms), b alone: no waits.
        let out = run_with(true);
        assert_eq!(out.metrics.mean_response_ms, (13.0 + 13.0 + 23.0) / 3.0);
        assert_eq!(out.entities[1].1.mean_response_ms, Some(23.0));
    }

    #[test]
    fn the_lesson_weighted_round_trip() {
        // (2600·4 + 2100·40 + 1800·55 + 1500·70 + 1200·88 + 800·96) / 10000 = 48.08
        let p = Params::default();
        let m = coordsim_model::run_once(&EdgePlacement, p.clone(), 0, sim_core::Limits::default())
            .unwrap()
            .metrics;
        assert!((m.weighted_rtt_ms - 48.08).abs() < 1e-12);
        assert_eq!(m.mean_response_ms, m.weighted_rtt_ms); // no service: response = rtt
    }

    /// Responses computed without the engine: every request's arrival at its object (leave
    /// time + half the round trip), sorted by (time, edge, index) per object, served by the
    /// recursion start = max(arrival, free).
    fn oracle(p: &Params) -> Vec<u64> {
        let duration = p.duration_ms.ns() as u128;
        let split = p.per_edge_placements.contains(&p.placement);
        let mut arrivals: Vec<(usize, u64, usize, u64)> = Vec::new(); // (object, time, edge, rtt)
        for (e, edge) in p.edges.iter().enumerate() {
            let rtt = edge.rtt(&p.placement).unwrap().ns();
            for i in 0..edge.load as u128 {
                let leave =
                    ((2 * i * duration + edge.load as u128) / (2 * edge.load as u128)) as u64;
                arrivals.push((if split { e } else { 0 }, leave + rtt / 2, e, rtt));
            }
        }
        arrivals.sort();
        let service = p.service_ms.ns();
        let mut free: Vec<u64> = vec![0; p.edges.len()];
        let mut responses = Vec::new();
        for (object, at, _, rtt) in arrivals {
            let start = at.max(free[object]);
            free[object] = start + service;
            responses.push(start + service - at + rtt);
        }
        responses.sort_unstable();
        responses
    }

    proptest::proptest! {
        #[test]
        fn the_engine_agrees_with_the_recursion(
            loads in proptest::collection::vec(0u64..40, 1..5),
            rtts in proptest::collection::vec(0u64..50_000, 5),
            service_us in 0u64..8_000,
            duration_ms in 1u64..200,
            split in proptest::bool::ANY,
        ) {
            proptest::prop_assume!(loads.iter().any(|l| *l > 0));
            let edges: Vec<Edge> = loads
                .iter()
                .enumerate()
                .map(|(i, l)| edge(&format!("e{i}"), *l, rtts[i] as f64 / 1000.0))
                .collect();
            let p = Params {
                edges,
                placement: "p".into(),
                per_edge_placements: if split { vec!["p".into()] } else { vec![] },
                local_ms: Millis::lit(0.0),
                service_ms: Millis::lit(service_us as f64 / 1000.0),
                duration_ms: Millis::lit(duration_ms as f64),
            };
            let m = coordsim_model::run_once(&EdgePlacement, p.clone(), 0, sim_core::Limits::default()).unwrap().metrics;
            let responses = oracle(&p);
            let n = responses.len() as u64;
            let sum: u64 = responses.iter().sum();
            proptest::prop_assert_eq!(m.requests, n);
            proptest::prop_assert_eq!(m.mean_response_ms, sum as f64 / (n as f64 * 1e6));
            let rank = (95 * n).div_ceil(100) as usize;
            proptest::prop_assert_eq!(m.p95_response_ms, sim_core::ns_to_ms(responses[rank - 1]));
            proptest::prop_assert_eq!(m.max_response_ms, sim_core::ns_to_ms(responses[n as usize - 1]));
        }
    }

    #[test]
    fn an_unknown_placement_names_the_edge() {
        let p = Params {
            placement: "moon".into(),
            ..Params::default()
        };
        let e = EdgePlacement.validate(&p).unwrap_err();
        assert_eq!(e.key, "placement");
        assert!(e.message.contains("uc-1"), "{}", e.message);
    }
}
