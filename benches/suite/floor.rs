//! The queue jobs' load, and the floor: a heap loop that keeps only sums, against the
//! built-in queue with exact and with hdr statistics.

use coordsim_model::{Millis, Model, RunContext, Valid};
use coordsim_models::single_writer_queue;
use sim_core::Limits;

use crate::measure::{Measured, mib, paired};
use crate::reference;

/// Requests per client of the queue jobs: 1M (10M in all), or `SUITE_REQUESTS_PER_CLIENT`
/// (for profiling under callgrind).
pub(crate) fn per_client() -> u64 {
    std::env::var("SUITE_REQUESTS_PER_CLIENT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

pub(crate) fn queue_params(poisson: bool) -> single_writer_queue::Params {
    use single_writer_queue::{Arrivals, Params, Service};
    // 10 clients × 1M requests at utilization 0.9 (150 requests/s offered, 166.7 capacity).
    Params {
        clients: 10,
        requests_per_client: per_client(),
        interarrival_ms: Millis::lit(1000.0 / 15.0),
        arrivals: if poisson {
            Arrivals::Poisson
        } else {
            Arrivals::Schedule
        },
        service: if poisson {
            Service::Exponential
        } else {
            Service::Fixed
        },
        ..Params::default()
    }
}

/// The floor: a bare heap loop that keeps only the sum of the waits (no sample per
/// request), against the built-in queue keeping every wait (exact percentiles) and keeping
/// an HDR histogram (`stats = "hdr"`). What coordsim's engine, model API and statistics
/// cost over the least a simulation of this queue can do.
pub(crate) fn floor_jobs() {
    for poisson in [false, true] {
        let p = queue_params(poisson);
        let floor = || reference::queue_sums(&load_of(&p, poisson));
        let valid = Valid::check(&single_writer_queue::SingleWriterQueue, p.clone())
            .expect("valid parameters");
        let with = |stats: sim_core::Stats| {
            let ctx = RunContext::new(0, Limits::default()).with_stats(stats);
            single_writer_queue::SingleWriterQueue
                .run(&valid, &ctx)
                .expect("the run succeeds")
        };
        let kind = if poisson {
            "Poisson / exponential"
        } else {
            "scheduled / fixed"
        };
        for (stats, what) in [
            (sim_core::Stats::Exact, "exact"),
            (sim_core::Stats::Hdr, "hdr"),
        ] {
            let (model, bare, ratio, out, mean) = paired(5, || with(stats), floor);
            // The same waits: the same mean up to the order of one division.
            assert!(
                (out.metrics.mean_wait_ms - mean).abs() <= 1e-12 * mean,
                "the model and the floor disagree: {} vs {mean}",
                out.metrics.mean_wait_ms
            );
            let rate = |m: &Measured| 10.0 * per_client() as f64 / m.seconds / 1e6;
            println!(
                "queue, 10M, {kind:<22} stats {what:<5}  {:>7.2} M requests/s  floor {:>7.2} M/s  ratio {ratio:>5.2}  peak {:>7.1} MiB vs {:>5.1} MiB",
                rate(&model),
                rate(&bare),
                mib(model.peak_bytes),
                mib(bare.peak_bytes),
            );
        }
    }
}

/// The reference loops' load for the queue jobs' parameters.
pub(crate) fn load_of(p: &single_writer_queue::Params, poisson: bool) -> reference::Load {
    reference::Load {
        clients: p.clients as u32,
        per_client: p.requests_per_client,
        interarrival_ms: p.interarrival_ms.ms(),
        offset_ms: p.client_offset_ms.ms(),
        service_ms: p.service_ms.ms(),
        poisson,
        seed: 0,
    }
}
