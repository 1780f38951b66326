//! Throughput of the `single_writer_queue` model: 10 million requests through the engine.
//!
//! Run with `cargo bench --bench queue_throughput`. Prints requests per second for the whole
//! run (setup, events, statistics), best of a few repetitions, for scheduled and for random
//! (Poisson arrivals, exponential service) load. Target on a 2-core machine: ≥ 8M requests/s.

use std::hint::black_box;
use std::time::Instant;

use coordsim_model::{Millis, Model, RunContext, Valid};
use coordsim_models::single_writer_queue::{Arrivals, Params, Service, SingleWriterQueue};
use sim_core::Limits;

const REQUESTS: u64 = 10_000_000;

fn measure(name: &str, params: &Params) {
    let mut best = f64::INFINITY;
    let params = Valid::check(&SingleWriterQueue, params.clone()).expect("valid");
    let ctx = RunContext::new(0, Limits::default());
    for _ in 0..3 {
        let start = Instant::now();
        let out = SingleWriterQueue
            .run(black_box(&params), &ctx)
            .expect("runs");
        let seconds = start.elapsed().as_secs_f64();
        assert_eq!(out.metrics.counter_final, REQUESTS);
        black_box(out);
        best = best.min(seconds);
    }
    println!(
        "{name:<40} {REQUESTS} requests in {best:.3} s: {:.2} M requests/s",
        REQUESTS as f64 / best / 1e6
    );
}

fn main() {
    // 10 clients × 1M requests at utilization 0.9 (150 requests/s offered, 166.7 capacity).
    let scheduled = Params {
        clients: 10,
        requests_per_client: REQUESTS / 10,
        interarrival_ms: Millis::lit(1000.0 / 15.0),
        ..Params::default()
    };
    measure("schedule / fixed, 10 clients, ρ = 0.9", &scheduled);
    let random = Params {
        arrivals: Arrivals::Poisson,
        service: Service::Exponential,
        ..scheduled.clone()
    };
    measure("poisson / exponential, 10 clients, ρ = 0.9", &random);
    let many = Params {
        clients: 1000,
        requests_per_client: REQUESTS / 1000,
        interarrival_ms: Millis::lit(1000.0 * 1000.0 / 150.0),
        instances: 4,
        ..Params::default()
    };
    measure("schedule / fixed, 1000 clients, 4 instances", &many);
}
