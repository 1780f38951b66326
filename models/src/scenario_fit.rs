//! `scenario_fit` (lesson 003): which coordination jobs fit a single-writer object whose
//! capacity is `1000 / service_ms` per instance: by arithmetic, and by a check run.

use sim_core::{EventQueue, Handler, Nanos, Samples, SimError, ms_to_ns, run};

use coordsim_model::Value;
use coordsim_model::{ChartKind, DefaultChart, Model, ModelError, Output, RunContext, Valid};
use coordsim_model::{Kind, ListItem, Millis, ParamError, field, positive_duration, table_fields};
use sim_core::{Stations, Waiting};

/// One coordination job.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Its name (its entity row).
    pub name: String,
    /// What the key is (for the table).
    pub key: String,
    /// Instances the key is split over.
    pub instances: u64,
    /// Total request rate.
    pub rate_per_s: f64,
    /// A job holding an instance this long (0 = none).
    pub long_job_ms: Millis,
}

impl Scenario {
    fn new(name: &str, key: &str, instances: u64, rate_per_s: f64, long_job_ms: f64) -> Self {
        Scenario {
            name: name.into(),
            key: key.into(),
            instances,
            rate_per_s,
            long_job_ms: Millis::lit(long_job_ms),
        }
    }

    /// Requests per second reaching one instance.
    pub fn per_instance_rate(&self) -> f64 {
        self.rate_per_s / self.instances as f64
    }
}

/// Lesson 003's five scenarios.
pub fn lesson_scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new("sube sayaci", "sube", 6, 480.0, 0.0),
        Scenario::new("sube odasi", "sube", 6, 600.0, 0.0),
        Scenario::new("is emri kilidi", "is emri", 120, 240.0, 0.0),
        Scenario::new("kuresel sira sayaci", "tek", 1, 900.0, 0.0),
        Scenario::new("gecelik uzlastirma", "tek", 1, 5.0, 40_000.0),
    ]
}

const SCENARIO_FIELDS: &[&str] = &["name", "key", "instances", "rate_per_s", "long_job_ms"];

impl ListItem for Scenario {
    const LIST_KIND: Kind = Kind::Tables("name, key, instances, rate_per_s, long_job_ms");
    fn list_from_value(value: &Value) -> Result<Vec<Self>, String> {
        let Value::List(items) = value else {
            return Err(format!(
                "expected an array of scenarios, got {}",
                value.type_name()
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let entries = table_fields("scenarios", i, item, SCENARIO_FIELDS)?;
                let text = |key: &str| match field(entries, key) {
                    Some(Value::Str(s)) => Ok(s.clone()),
                    _ => Err(format!("scenarios[{i}] needs `{key}`, a string")),
                };
                let name = text("name")?;
                let key = text("key")?;
                let instances = match field(entries, "instances") {
                    Some(Value::Int(n)) if *n >= 1 => *n as u64,
                    _ => {
                        return Err(format!(
                            "scenarios[{i}] ({name}) needs `instances`, an integer ≥ 1"
                        ));
                    }
                };
                let rate_per_s = match field(entries, "rate_per_s").and_then(Value::as_f64) {
                    Some(r) if r > 0.0 && r.is_finite() => r,
                    _ => {
                        return Err(format!(
                            "scenarios[{i}] ({name}) needs `rate_per_s`, a number > 0"
                        ));
                    }
                };
                let long_job_ms = match field(entries, "long_job_ms") {
                    None => Millis::lit(0.0),
                    Some(v) => match v.as_f64().and_then(Millis::new) {
                        Some(ms) => ms,
                        _ => {
                            return Err(format!(
                                "scenarios[{i}] ({name}): `long_job_ms` must be a duration ≥ 0"
                            ));
                        }
                    },
                };
                Ok(Scenario {
                    name,
                    key,
                    instances,
                    rate_per_s,
                    long_job_ms,
                })
            })
            .collect()
    }
    fn list_to_value(list: &[Self]) -> Value {
        Value::List(
            list.iter()
                .map(|s| {
                    Value::Table(vec![
                        ("name".into(), Value::Str(s.name.clone())),
                        ("key".into(), Value::Str(s.key.clone())),
                        ("instances".into(), Value::Int(s.instances as i64)),
                        ("rate_per_s".into(), Value::Float(s.rate_per_s)),
                        ("long_job_ms".into(), Value::Float(s.long_job_ms.ms())),
                    ])
                })
                .collect(),
        )
    }
}

params! {
    /// Parameters of `scenario_fit`; defaults are lesson 003's.
    pub struct Params {
        /// service time per request at one instance (capacity = 1000 / service_ms per second)
        service_ms: Millis = Millis::lit(6.0),
        /// the scenarios: name, key, instances, rate_per_s (total), long_job_ms (0 = none)
        scenarios: Vec<Scenario> = lesson_scenarios(),
        /// simulated window for the check run of each scenario
        horizon_ms: Millis = Millis::lit(10000.0),
    }
}

columns! {
    /// Metrics of one run.
    pub struct Metrics {
        /// number of scenarios
        scenarios: u64,
        /// scenarios that fit a single-writer object
        fitting: u64,
    }
}

columns! {
    /// One scenario's row.
    pub struct ScenarioRow {
        /// what the key is
        key: String,
        /// instances the key is split over
        instances: u64,
        /// total request rate
        rate_per_s: f64,
        /// rate_per_s / instances
        per_instance_rate_per_s: f64,
        /// 1000 / service_ms
        capacity_per_s: f64,
        /// 100 × per-instance rate / capacity
        utilization_pct: f64,
        /// 1 when there is no long job and the per-instance rate ≤ capacity
        fits: bool,
        /// why it does not fit: `duration` (a long job), `rate`, or empty
        reason: String,
        /// requests arriving during the long job: long_job_ms / 1000 × rate_per_s
        backlog_requests: f64,
        /// check run: mean wait at one instance
        sim_mean_wait_ms: f64,
        /// check run: 95th percentile wait (nearest rank)
        sim_p95_wait_ms: f64,
        /// check run: most requests waiting at once (the long job in service)
        sim_max_queue_len: u64,
    }
}

/// The model.
pub struct ScenarioFit;

/// Most arrivals one scenario's check run may simulate.
const MAX_ARRIVALS: f64 = 10_000_000.0;

impl Model for ScenarioFit {
    fn name(&self) -> &'static str {
        "scenario_fit"
    }
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        crate::turkish::param_meaning(self.name(), key, language)
    }
    fn summary(&self) -> &'static str {
        "which coordination jobs fit a single-writer object: per-instance rate against capacity, long jobs, and a check run (lesson 003)"
    }
    fn charts(&self) -> Vec<DefaultChart> {
        vec![DefaultChart {
            name: "utilization-per-scenario",
            x: "entity",
            y: &["utilization_pct"],
            kind: ChartKind::Bar,
            mark_x: None,
            mark_y: Some(100.0),
        }]
    }
    type Params = Params;
    type Metrics = Metrics;
    type Entity = ScenarioRow;

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        positive_duration("service_ms", p.service_ms.ms())?;
        positive_duration("horizon_ms", p.horizon_ms.ms())?;
        if p.scenarios.is_empty() {
            return Err(ParamError::new("scenarios", "give at least one scenario"));
        }
        for (i, s) in p.scenarios.iter().enumerate() {
            if p.scenarios[..i].iter().any(|o| o.name == s.name) {
                return Err(ParamError::new(
                    "scenarios",
                    format!("two scenarios are named `{}`", s.name),
                ));
            }
            let arrivals = s.per_instance_rate() * p.horizon_ms.ms() / 1000.0;
            if arrivals > MAX_ARRIVALS {
                return Err(ParamError::new(
                    "scenarios",
                    format!(
                        "`{}`: {arrivals:.0} arrivals in the check run, above the limit of {MAX_ARRIVALS}",
                        s.name
                    ),
                ));
            }
        }
        Ok(())
    }

    fn run(
        &self,
        p: &Valid<Params>,
        ctx: &RunContext,
    ) -> Result<Output<Metrics, ScenarioRow>, ModelError> {
        let capacity = 1000.0 / p.service_ms.ms();
        let mut entities = Vec::with_capacity(p.scenarios.len());
        for s in &p.scenarios {
            let per_instance = s.per_instance_rate();
            let long_job = s.long_job_ms.ms() > 0.0;
            let over_rate = per_instance > capacity;
            let mut check = check_run(p, s, ctx)?;
            entities.push((
                s.name.clone(),
                ScenarioRow {
                    key: s.key.clone(),
                    instances: s.instances,
                    rate_per_s: s.rate_per_s,
                    per_instance_rate_per_s: per_instance,
                    capacity_per_s: capacity,
                    utilization_pct: 100.0 * per_instance / capacity,
                    fits: !long_job && !over_rate,
                    reason: if long_job {
                        "duration".into()
                    } else if over_rate {
                        "rate".into()
                    } else {
                        String::new()
                    },
                    backlog_requests: if long_job {
                        s.long_job_ms.ms() / 1000.0 * s.rate_per_s
                    } else {
                        0.0
                    },
                    sim_mean_wait_ms: check.waits.mean_ms().unwrap_or(0.0),
                    sim_p95_wait_ms: check.waits.percentile_ms(95.0).unwrap_or(0.0),
                    sim_max_queue_len: check.max_queue_len,
                },
            ));
        }
        let fitting = entities.iter().filter(|(_, row)| row.fits).count() as u64;
        if !ctx.wants_entities() {
            entities.clear();
        }
        Ok(Output {
            metrics: Metrics {
                scenarios: p.scenarios.len() as u64,
                fitting,
            },
            entities,
            lanes: coordsim_model::Lanes::new(),
            distributions: Vec::new(),
        })
    }
}

struct CheckRun {
    waits: Samples,
    max_queue_len: u64,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    /// Arrival number k at one instance.
    Arrival { k: u64 },
    /// The request (or the long job) in service finishes.
    Departure,
}

/// Departures first at one instant, then arrivals.
const DEPARTURE: u32 = 0;
const ARRIVAL: u32 = 1;

struct Check {
    gap_ms: f64,
    horizon_ms: f64,
    service: Nanos,
    stations: Stations,
    waits: Samples,
}

impl Check {
    /// Arrival k comes at k × 1000 / rate ms, each rounded to the nanosecond on its own,
    /// while that is before the horizon.
    fn arrival_time(&self, k: u64) -> Option<Nanos> {
        let ms = k as f64 * self.gap_ms;
        (ms < self.horizon_ms).then(|| ms_to_ns(ms)).flatten()
    }

    fn serve(&mut self, arrived: Nanos, queue: &mut EventQueue<Event>) {
        self.waits.record(queue.now() - arrived);
        queue.schedule_in(self.service, DEPARTURE, Event::Departure);
    }
}

impl Handler<Event> for Check {
    fn handle(&mut self, event: Event, queue: &mut EventQueue<Event>) -> Result<(), SimError> {
        let now = queue.now();
        match event {
            Event::Arrival { k } => {
                if self.stations.arrive(
                    0,
                    Waiting {
                        arrived: now,
                        tag: 0,
                    },
                ) {
                    self.serve(now, queue);
                }
                if let Some(at) = self.arrival_time(k + 1) {
                    queue.schedule_at(at, ARRIVAL, Event::Arrival { k: k + 1 });
                }
            }
            Event::Departure => {
                if let Some(next) = self.stations.depart(0, now) {
                    self.serve(next.arrived, queue);
                }
            }
        }
        Ok(())
    }
}

/// Simulates one instance of `s` over the horizon (and drains): the long job holds it over
/// [0, long_job_ms), requests arrive evenly at the per-instance rate.
fn check_run(p: &Params, s: &Scenario, ctx: &RunContext) -> Result<CheckRun, SimError> {
    let gap_ms = 1000.0 / s.per_instance_rate();
    let expected = (p.horizon_ms.ms() / gap_ms).ceil().max(1.0) as usize;
    let mut check = Check {
        gap_ms,
        horizon_ms: p.horizon_ms.ms(),
        service: p.service_ms.ns(),
        stations: Stations::new(1, expected),
        waits: ctx.samples(expected),
    };
    let mut queue = ctx.queue(4);
    let long_job = s.long_job_ms.ns();
    if long_job > 0 {
        check.stations.occupy(0);
        queue.schedule_at(long_job, DEPARTURE, Event::Departure);
    }
    if let Some(at) = check.arrival_time(0) {
        queue.schedule_at(at, ARRIVAL, Event::Arrival { k: 0 });
    }
    run(&mut queue, &mut check)?;
    Ok(CheckRun {
        max_queue_len: check.stations.max_queue_len() as u64,
        waits: check.waits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(rate_per_s: f64, long_job_ms: f64, horizon_ms: f64) -> ScenarioRow {
        let p = Params {
            service_ms: Millis::lit(6.0),
            scenarios: vec![Scenario::new("s", "k", 1, rate_per_s, long_job_ms)],
            horizon_ms: Millis::lit(horizon_ms),
        };
        ScenarioFit.validate(&p).unwrap();
        let mut out =
            coordsim_model::run_once(&ScenarioFit, p.clone(), 0, sim_core::Limits::default())
                .unwrap();
        out.entities.remove(0).1
    }

    #[test]
    fn over_capacity_by_hand() {
        // 250/s: arrivals every 4 ms at 0, 4, 8, 12, 16 (< 20); 6 ms service: starts at 0, 6,
        // 12, 18, 24, waits 0, 2, 4, 6, 8: mean 4, p95 (rank 5) 8. After the instant 16:
        // #2 in service (12–18), #3 and #4 wait: 2.
        let r = one(250.0, 0.0, 20.0);
        assert_eq!(
            (r.sim_mean_wait_ms, r.sim_p95_wait_ms, r.sim_max_queue_len),
            (4.0, 8.0, 2)
        );
        assert!(!r.fits);
        assert_eq!(r.reason, "rate");
        assert_eq!(r.utilization_pct, 150.0);
        assert_eq!(r.backlog_requests, 0.0);
    }

    #[test]
    fn a_long_job_by_hand() {
        // 100/s: arrivals at 0, 10, 20; the long job holds [0, 10). #0 waits to 10 (10 ms),
        // served 10–16; #1 arrives at 10, waits to 16 (6); #2 arrives at 20, waits to 22 (2).
        // Mean 6; one request waits at a time. Backlog 10 / 1000 × 100 = 1.
        let r = one(100.0, 10.0, 30.0);
        assert_eq!((r.sim_mean_wait_ms, r.sim_max_queue_len), (6.0, 1));
        assert!(!r.fits);
        assert_eq!(r.reason, "duration");
        assert_eq!(r.backlog_requests, 1.0);
    }

    #[test]
    fn equal_to_capacity_fits() {
        // 1000 / 6 per second exactly: "equal fits"; arrivals every 6 ms meet the previous
        // departure, so nobody waits.
        let r = one(1000.0 / 6.0, 0.0, 60.0);
        assert!(r.fits);
        assert_eq!(r.reason, "");
        assert_eq!(r.sim_max_queue_len, 0);
    }
}
