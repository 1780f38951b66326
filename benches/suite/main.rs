//! The benchmark suite: `cargo bench -p coordsim-bench`.
//!
//! 1. Jobs against a minimal reference loop run in the same process (`reference.rs`: a plain
//!    `BinaryHeap` with the same queue and lock logic): throughput, the ratio to the
//!    reference, and peak heap memory (a counting allocator), for the queue with 10M
//!    requests (scheduled and Poisson) and the polled lock queue (1,000 and 10,000 appliers).
//!    The reference also checks the model: both must report the same waits and attempts.
//! 2. Large runs of the other models: the shared store with 1M operations, saga and outbox
//!    with 1M requests.
//! 3. Scaling: every model at n, 2n, 4n, 8n; each doubling's time ratio (target ≤ 2.3×).
//! 4. Sweeps: a 1,000-point sweep (runs/s), and a 100-point sweep with 1 and 2 threads (the
//!    speedup; the outputs must be equal).
//!
//! 5. The scenario form of the 10M-request queue (`model = "scenario"`) against the built-in
//!    model, alternated like the reference pairs (target: ratio ≥ 1.0, and peak memory at
//!    most 1.1× the built-in's); both must report the same waits. And the scenario form of
//!    `outbox` (key stores, a queue with a visibility timeout, transactions) with 1M random
//!    loans against the built-in (target: ratio ≥ 0.95, memory ≤ 1.1×), both reporting the
//!    same deliveries; its scaling (`scenario outbox` in 3: each doubling ≤ 2.3×).
//!
//! 6. The floor (`floor`): a bare heap loop that keeps only sums, against the built-in queue
//!    with exact statistics and with `stats = "hdr"`: coordsim's ratio to the least a
//!    simulation of the queue can do (informative; no target).
//!
//! 7. The explorer (`explore.rs`): states/s and bytes per state on the lost update, and two
//!    threads against one on 3 × 6; and on a work queue with a lock (`explore_queue.rs`),
//!    against the same model in Stateright (`work_queue.rs`), the graphs asserted equal.
//!    And on key stores (`explore_keys.rs`, `keys`): the flat back end against the
//!    interpreter on one graph.
//!
//! 8. Hedged requests (`hedge.rs`): 1M `parallel` hedges against 1M plain requests
//!    (target: within 1.5× the time).
//!
//! Times are medians of repeated runs (wall clock; this is a benchmark, not a test).

mod explore;
mod explore_keys;
mod explore_queue;
mod floor;
mod hedge;
mod measure;
mod plan;
mod reference;
mod schedulers;
mod stateright;
mod work_queue;

use floor::{floor_jobs, per_client, queue_params};
use measure::{Measured, measure, mib, paired, verdict};
use plan::scenario_plan;

use coordsim_model::{Millis, Model, PerEntity, RunContext, Valid};
use coordsim_models::{
    edge_placement, idempotency, lock_queue, outbox, saga, scenario_fit, shared_store_rmw,
    single_writer_queue,
};
use sim_core::Limits;

fn run<M: Model>(
    model: &M,
    params: M::Params,
    seed: u64,
) -> coordsim_model::Output<M::Metrics, M::Entity> {
    let params = Valid::check(model, params).expect("valid parameters");
    model
        .run(&params, &RunContext::new(seed, Limits::default()))
        .expect("the run succeeds")
}

/// One job against the reference: prints throughput, ratio and memory.
fn against_reference(
    name: &str,
    work: u64,
    unit: &str,
    model: &Measured,
    reference: &Measured,
    ratio: f64,
    mem_target: Option<f64>,
) {
    let rate = |m: &Measured| work as f64 / m.seconds / 1e6;
    let mem = model.peak_bytes as f64 / reference.peak_bytes.max(1) as f64;
    println!(
        "{name:<44} {:>8.2} M {unit}/s  reference {:>7.2} M/s  ratio {ratio:>5.2} (target ≥ 1.0: {})  peak {:>7.1} MiB vs {:>7.1} MiB ({mem:.2}×{})",
        rate(model),
        rate(reference),
        verdict(ratio >= 1.0),
        mib(model.peak_bytes),
        mib(reference.peak_bytes),
        mem_target.map_or(String::new(), |t| format!(
            ", target ≤ {t}: {}",
            verdict(mem <= t)
        )),
    );
}

fn queue_jobs() {
    for poisson in [false, true] {
        let p = queue_params(poisson);
        let (model, reference, ratio, out, want) = paired(
            5,
            || run(&single_writer_queue::SingleWriterQueue, p.clone(), 0),
            || reference::queue(&floor::load_of(&p, poisson)),
        );
        // The same waits: the same p95 exactly, and the same mean up to its last bit (the
        // two divide the integer sum in a different order).
        assert_eq!(
            out.metrics.p95_wait_ms, want.p95_wait_ms,
            "the model and the reference disagree"
        );
        assert!(
            (out.metrics.mean_wait_ms - want.mean_wait_ms).abs() <= 1e-12 * want.mean_wait_ms,
            "the model and the reference disagree: {} vs {}",
            out.metrics.mean_wait_ms,
            want.mean_wait_ms
        );
        let name = if poisson {
            "queue, 10M requests, Poisson / exponential"
        } else {
            "queue, 10M requests, scheduled / fixed"
        };
        against_reference(
            name,
            10 * per_client(),
            "requests",
            &model,
            &reference,
            ratio,
            Some(1.3),
        );
    }
}

/// The queue jobs' parameters as a scenario config (the same clients, gaps and service):
/// its prepared run and its metric columns, in order.
fn queue_scenario(
    p: &single_writer_queue::Params,
    poisson: bool,
) -> (Box<dyn coordsim_model::PreparedRun>, Vec<&'static str>) {
    let (arrivals, service) = if poisson {
        ("poisson", "exponential")
    } else {
        ("schedule", "fixed")
    };
    // The server is `instance` and each client `client-c`, so the random streams are the
    // built-in's: the same waits, draw for draw.
    let text = format!(
        "model = \"scenario\"\nentities = false\n[[resource]]\nname = \"instance\"\nkind = \"server\"\nservice_ms = {}\nservice = \"{service}\"\n\
         [[actor]]\nname = \"client\"\ncount = {}\nstart_ms = \"{} * i\"\nrepeat = {}\nevery_ms = {}\narrivals = \"{arrivals}\"\nsteps = [{{ request = \"instance\" }}]\n",
        p.service_ms.ms(),
        p.clients,
        p.client_offset_ms.ms(),
        p.requests_per_client,
        p.interarrival_ms.ms(),
    );
    scenario_plan("queue-scenario.toml", text)
}

/// The scenario form of `outbox`'s random variant (as `tests/cli/scenarios/outbox.rs`
/// writes it): `n` fresh books lent to one fresh member, a deduplicating consumer, a relay
/// that crashes after a delivery with probability `p`, drawn from the built-in's stream (the
/// relay is the group `outbox`, so its stream `relay-crash` is keyed `outbox/relay-crash`;
/// the queue is `rows`).
fn outbox_scenario(n: u64, p: f64) -> (Box<dyn coordsim_model::PreparedRun>, Vec<&'static str>) {
    let fresh = 1_000_000_000u64;
    let text = format!(
        "model = \"scenario\"\nentities = false\n[params]\nrestart_ms = 1000\n\
         [[resource]]\nname = \"fresh\"\nkind = \"keys\"\ninitial = {{ from = {fresh}, count = {n} }}\n\
         [[resource]]\nname = \"open\"\nkind = \"keys\"\ninitial = [[{fresh}, 0]]\n\
         [[resource]]\nname = \"limit\"\nkind = \"keys\"\ninitial = [[{fresh}, 1e15]]\n\
         [[resource]]\nname = \"rows\"\nkind = \"queue\"\nfields = [\"member\"]\nvisibility_ms = 1\n\
         [[resource]]\nname = \"seen\"\nkind = \"keys\"\n\
         [[actor]]\nname = \"catalog\"\nrepeat = {n}\nsteps = [{{ transaction = [{{ remove = \"fresh\", key = \"{fresh} + k\" }}, {{ if = \"removed\", then = [{{ put = \"rows\", fields = {{ member = {fresh} }} }}] }}] }}]\n\
         [[actor]]\nname = \"outbox\"\nrepeat = {}\nsteps = [\
           {{ take = \"rows\", timeout_ms = 0, on_timeout = {{ steps = [{{ stop = true }}] }} }}, \
           {{ transaction = [{{ insert = \"seen\", key = \"rows.id\" }}, {{ if = \"inserted\", then = [{{ lookup = \"open\", key = \"rows.member\" }}, {{ lookup = \"limit\", key = \"rows.member\" }}, {{ if = {{ value = \"open\", below = \"limit\" }}, then = [{{ set = \"open\", key = \"rows.member\", value = \"open + 1\" }}], else = [{{ crash = \"all\" }}] }}] }}] }}, \
           {{ crash = {{ probability = {p}, stream = \"relay-crash\" }}, restart_after_ms = \"restart_ms\" }}, \
           {{ ack = \"rows\" }}]\n",
        2 * n + 100
    );
    scenario_plan("outbox-scenario.toml", text)
}

fn outbox_params(n: u64, p: f64) -> outbox::Params {
    outbox::Params {
        random_loans: n,
        crash_probability: p,
        consumer: outbox::Consumer::Dedup,
        ..outbox::Params::default()
    }
}

/// The scenario outbox against the built-in, 1M loans with 1% relay crashes.
fn outbox_pair() {
    let n = 1_000_000;
    let (scenario, columns) = outbox_scenario(n, 0.01);
    let ctx = RunContext::new(0, Limits::default()).with_entities(false);
    let (model, built_in, ratio, out, want) = paired(
        5,
        || scenario.run(&ctx).expect("the scenario runs"),
        || run(&outbox::Outbox, outbox_params(n, 0.01), 0),
    );
    let cell = |name: &str| {
        let i = columns.iter().position(|c| *c == name).expect("a metric");
        out.metrics[i].as_f64().expect("a number") as u64
    };
    // The same deliveries: each one an insert into `seen`, a repeat a duplicate.
    assert_eq!(
        cell("seen.inserted") + cell("seen.duplicates"),
        want.metrics.deliveries,
        "the scenario and the model disagree"
    );
    assert_eq!(cell("rows.left"), want.metrics.outbox_pending);
    let rate = |m: &Measured| n as f64 / m.seconds / 1e6;
    println!(
        "{:<44} {:>8.2} M loans/s     built-in {:>7.2} M/s  ratio {ratio:>5.2} (target ≥ 0.95: {})  peak {:>7.1} MiB vs {:>7.1} MiB (target ≤ 1.1×: {})",
        "scenario outbox, 1M loans, 1% relay crashes",
        rate(&model),
        rate(&built_in),
        verdict(ratio >= 0.95),
        mib(model.peak_bytes),
        mib(built_in.peak_bytes),
        verdict(model.peak_bytes as f64 <= 1.1 * built_in.peak_bytes as f64),
    );
}

fn scenario_jobs() {
    for poisson in [false, true] {
        let p = queue_params(poisson);
        let (scenario, columns) = queue_scenario(&p, poisson);
        let ctx = RunContext::new(0, Limits::default()).with_entities(false);
        let (model, built_in, ratio, out, want) = paired(
            5,
            || scenario.run(&ctx).expect("the scenario runs"),
            || run(&single_writer_queue::SingleWriterQueue, p.clone(), 0),
        );
        let cell = |name: &str| {
            let i = columns.iter().position(|c| *c == name).expect("a metric");
            out.metrics[i].as_f64().expect("a number")
        };
        assert_eq!(
            cell("instance.p95_wait_ms"),
            want.metrics.p95_wait_ms,
            "the scenario and the model disagree"
        );
        assert_eq!(
            cell("instance.mean_wait_ms"),
            want.metrics.mean_wait_ms,
            "the scenario and the model disagree"
        );
        let name = if poisson {
            "scenario queue, 10M, Poisson / exponential"
        } else {
            "scenario queue, 10M, scheduled / fixed"
        };
        let rate = |m: &Measured| 10.0 * per_client() as f64 / m.seconds / 1e6;
        println!(
            "{name:<44} {:>8.2} M requests/s  built-in {:>7.2} M/s  ratio {ratio:>5.2} (target ≥ 1.0: {})  peak {:>7.1} MiB vs {:>7.1} MiB (target ≤ 1.1×: {})",
            rate(&model),
            rate(&built_in),
            verdict(ratio >= 1.0),
            mib(model.peak_bytes),
            mib(built_in.peak_bytes),
            verdict(model.peak_bytes as f64 <= 1.1 * built_in.peak_bytes as f64),
        );
    }
}

fn lock_params(appliers: u64, hold_ms: f64, poll_ms: f64) -> lock_queue::Params {
    lock_queue::Params {
        appliers,
        hold_ms: PerEntity::All(Millis::lit(hold_ms)),
        poll_ms: Millis::lit(poll_ms),
        give_up_after_ms: Millis::lit(1e9),
        ..lock_queue::Params::default()
    }
}

fn lock_jobs() {
    // 1,000 appliers × 50 ms polling every 25 ms: about 1M failed attempts; 10,000 × 5 ms
    // every 25 ms: about 10M.
    let jobs = [(1_000u64, 50.0, 25.0), (10_000, 5.0, 25.0)];
    // SUITE_REQUESTS_PER_CLIENT set (profiling): the small job only.
    let jobs = if std::env::var_os("SUITE_REQUESTS_PER_CLIENT").is_some() {
        &jobs[..1]
    } else {
        &jobs[..]
    };
    for &(appliers, hold, poll) in jobs {
        let p = lock_params(appliers, hold, poll);
        let (model, reference, ratio, out, rounds) = paired(
            5,
            || run(&lock_queue::LockQueue, p.clone(), 0),
            || reference::polled_lock(appliers as u32, hold, poll),
        );
        assert_eq!(
            out.metrics.rounds_total, rounds,
            "the model and the reference disagree"
        );
        let events = rounds + 2 * appliers;
        let name = format!("lock queue, {appliers} appliers × {hold} ms, {rounds} polls");
        against_reference(&name, events, "events", &model, &reference, ratio, None);
    }
}

fn large_jobs() {
    // 100M requests with streaming statistics: memory stays flat (exact statistics would
    // keep 800 MB of waits).
    let p = single_writer_queue::Params {
        requests_per_client: 10 * per_client(),
        ..queue_params(false)
    };
    let valid = Valid::check(&single_writer_queue::SingleWriterQueue, p).expect("valid");
    let ctx = RunContext::new(0, Limits::default()).with_stats(sim_core::Stats::Hdr);
    let (m, _) = measure(1, || {
        single_writer_queue::SingleWriterQueue
            .run(&valid, &ctx)
            .expect("runs")
    });
    println!(
        "{:<44} {:>8.3} s  ({:.2} M requests/s, peak {:.1} MiB: flat, target ≤ 50: {})",
        "queue, 100M requests, stats = \"hdr\"",
        m.seconds,
        100.0 * per_client() as f64 / 1e6 / m.seconds,
        mib(m.peak_bytes),
        verdict(mib(m.peak_bytes) <= 50.0)
    );
    let (m, _) = measure(3, || {
        run(
            &shared_store_rmw::SharedStoreRmw,
            shared_store_rmw::Params {
                clients: 100,
                increments_per_client: 10_000,
                ..shared_store_rmw::Params::default()
            },
            0,
        )
    });
    println!(
        "{:<44} {:>8.3} s  ({:.2} M operations/s, peak {:.1} MiB)",
        "shared store, 1M operations",
        m.seconds,
        1.0 / m.seconds,
        mib(m.peak_bytes)
    );
    let (m, _) = measure(3, || {
        run(
            &saga::Saga,
            saga::Params {
                random_requests: 1_000_000,
                add_loan_failure_probability: 0.05,
                compensation_failure_probability: 0.1,
                ..saga::Params::default()
            },
            0,
        )
    });
    println!(
        "{:<44} {:>8.3} s  ({:.2} M requests/s, peak {:.1} MiB)",
        "saga, 1M requests",
        m.seconds,
        1.0 / m.seconds,
        mib(m.peak_bytes)
    );
    let (m, _) = measure(3, || {
        run(
            &outbox::Outbox,
            outbox::Params {
                random_loans: 1_000_000,
                crash_probability: 0.01,
                consumer: outbox::Consumer::Dedup,
                ..outbox::Params::default()
            },
            0,
        )
    });
    println!(
        "{:<44} {:>8.3} s  ({:.2} M requests/s, peak {:.1} MiB)",
        "outbox, 1M requests, 1% relay crashes",
        m.seconds,
        1.0 / m.seconds,
        mib(m.peak_bytes)
    );
}

/// Times one model at n, 2n, 4n, 8n (as `make(n)` builds it) and prints the doubling ratios.
fn scaling(name: &str, n: u64, make: impl Fn(u64) -> Box<dyn Fn()>) -> bool {
    // The best of 5 at each size: the machine's noise only ever adds time, and a doubling
    // ratio is then the model's, not a passing load's.
    let times: Vec<f64> = [1, 2, 4, 8]
        .iter()
        .map(|k| {
            let job = make(n * k);
            (0..5)
                .map(|_| measure(1, &job).0.seconds)
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let ratios: Vec<f64> = times.windows(2).map(|w| w[1] / w[0]).collect();
    let worst = ratios.iter().copied().fold(0.0, f64::max);
    let ok = worst <= 2.3;
    println!(
        "{name:<22} n = {n:>9}  {}  doubling ratios {}  (target ≤ 2.3: {})",
        times
            .iter()
            .map(|t| format!("{t:>7.3} s"))
            .collect::<Vec<_>>()
            .join(" "),
        ratios
            .iter()
            .map(|r| format!("{r:.2}"))
            .collect::<Vec<_>>()
            .join(" "),
        verdict(ok)
    );
    ok
}

fn scaling_jobs() -> bool {
    let mut ok = true;
    ok &= scaling("single_writer_queue", 2_000_000, |n| {
        Box::new(move || {
            run(
                &single_writer_queue::SingleWriterQueue,
                single_writer_queue::Params {
                    requests_per_client: n / 4,
                    ..Default::default()
                },
                0,
            );
        })
    });
    ok &= scaling("shared_store_rmw", 2_000_000, |n| {
        Box::new(move || {
            run(
                &shared_store_rmw::SharedStoreRmw,
                shared_store_rmw::Params {
                    clients: 8,
                    increments_per_client: n / 8,
                    ..Default::default()
                },
                0,
            );
        })
    });
    ok &= scaling("edge_placement", 1_000_000, |n| {
        Box::new(move || {
            let mut p = edge_placement::Params::default();
            let total: u64 = p.edges.iter().map(|e| e.load).sum();
            for e in &mut p.edges {
                e.load = e.load * n / total;
            }
            run(&edge_placement::EdgePlacement, p, 0);
        })
    });
    ok &= scaling("scenario_fit", 1_000_000, |n| {
        Box::new(move || {
            // The check run simulates horizon_ms of each scenario's load.
            let p = scenario_fit::Params {
                horizon_ms: Millis::lit(n as f64),
                ..Default::default()
            };
            run(&scenario_fit::ScenarioFit, p, 0);
        })
    });
    ok &= scaling("lock_queue", 400_000, |n| {
        Box::new(move || {
            // A polled lock with appliers arriving one after another at 90% of its capacity
            // (every 1.11 ms, each holding 1 ms): events grow like the appliers. (All starting
            // at once, polling grows like their square by nature: each waiter polls for as long
            // as all before it hold; that is the suite's lock job above.)
            let starts = (0..n).map(|i| Millis::lit(i as f64 / 0.9)).collect();
            let p = lock_queue::Params {
                start_ms: PerEntity::Each(starts),
                ..lock_params(n, 1.0, 0.25)
            };
            run(&lock_queue::LockQueue, p, 0);
        })
    });
    ok &= scaling("saga", 500_000, |n| {
        Box::new(move || {
            run(
                &saga::Saga,
                saga::Params {
                    random_requests: n,
                    add_loan_failure_probability: 0.05,
                    ..Default::default()
                },
                0,
            );
        })
    });
    ok &= scaling("outbox", 500_000, |n| {
        Box::new(move || {
            run(
                &outbox::Outbox,
                outbox::Params {
                    random_loans: n,
                    crash_probability: 0.01,
                    ..Default::default()
                },
                0,
            );
        })
    });
    ok &= scaling("scenario outbox", 250_000, |n| {
        let (scenario, _) = outbox_scenario(n, 0.01);
        Box::new(move || {
            let ctx = RunContext::new(0, Limits::default()).with_entities(false);
            scenario.run(&ctx).expect("the scenario runs");
        })
    });
    ok &= scaling("idempotency", 400_000, |n| {
        Box::new(move || {
            // A deduplicating consumer: n deliveries of n / 2 message ids.
            let p = idempotency::Params {
                form: idempotency::Form::Consumer,
                deliveries: (0..n).map(|i| i / 2).collect(),
                ..Default::default()
            };
            run(&idempotency::Idempotency, p, 0);
        })
    });
    ok
}

fn sweep_jobs() {
    use coordsim::config::Config;
    use coordsim::runner::{RunOptions, run as run_config};
    use coordsim::source::Source;
    let registry = coordsim_models::registry();
    let parse = |text: &str| {
        Config::parse(
            Source {
                name: "sweep.toml".into(),
                text: text.into(),
            },
            &registry,
        )
        .expect("the sweep config parses")
    };
    let options = |jobs| RunOptions {
        jobs,
        seed: None,
        shard: None,
        progress: false,
        ties: sim_core::Ties::Fifo,
    };
    let points1000 = parse(
        "model = \"single_writer_queue\"\n[params]\nrequests_per_client = 100\narrivals = \"poisson\"\nservice = \"exponential\"\n[sweep]\nclients = { from = 1, to = 10, step = 1 }\nservice_ms = { from = 0.1, to = 10, points = 100 }\n",
    );
    let (m, _) = measure(3, || run_config(&points1000, &options(2)).expect("runs"));
    println!(
        "{:<44} {:>8.3} s  ({:.0} runs/s, 2 threads)",
        "sweep, 1,000 points",
        m.seconds,
        1000.0 / m.seconds
    );
    let points100 = parse(
        "model = \"single_writer_queue\"\n[params]\nrequests_per_client = 20000\narrivals = \"poisson\"\nservice = \"exponential\"\n[sweep]\nclients = { from = 1, to = 10, step = 1 }\nservice_ms = { from = 1, to = 10, points = 10 }\n",
    );
    let (one, a) = measure(3, || run_config(&points100, &options(1)).expect("runs"));
    let (two, b) = measure(3, || run_config(&points100, &options(2)).expect("runs"));
    assert!(a == b, "the outputs depend on the thread count");
    let speedup = one.seconds / two.seconds;
    println!(
        "{:<44} {:>8.3} s with 1 thread, {:.3} s with 2: speedup {speedup:.2} (target ≥ 1.8: {}), same rows",
        "sweep, 100 points",
        one.seconds,
        two.seconds,
        verdict(speedup >= 1.8)
    );
}

/// One run of one side of a scenario pair, for a profiler (`SUITE_PROFILE=scenario-fixed`,
/// `built-in-fixed`, `scenario-poisson`, `built-in-poisson`, `scenario-outbox`,
/// `built-in-outbox` (1% relay crashes), `hedge-plain`, `hedge-timer`, `hedge-hedged` (the
/// hedge section's three forms), `explore` for the 2 × 10 lost update's
/// exploration on one thread (`explore-3x5`: 3 × 5), `stateright` / `stateright-3x5`
/// for Stateright's of the same model, or `work-queue` to check that coordsim and
/// Stateright's model of the work queue are one graph at several sizes; with `SUITE_REQUESTS_PER_CLIENT` to size it: requests per
/// client of the queue, loans of the outbox): `valgrind --tool=callgrind` or `perf stat` then
/// counts that side alone, where the paired sections interleave both.
fn profile_one(side: &str) {
    let poisson = side.ends_with("poisson");
    let p = queue_params(poisson);
    match side {
        "scenario-fixed" | "scenario-poisson" => {
            let (scenario, _) = queue_scenario(&p, poisson);
            let ctx = RunContext::new(0, Limits::default()).with_entities(false);
            scenario.run(&ctx).expect("the scenario runs");
        }
        "built-in-fixed" | "built-in-poisson" => {
            run(&single_writer_queue::SingleWriterQueue, p, 0);
        }
        "scenario-outbox" => {
            let (scenario, _) = outbox_scenario(per_client(), 0.01);
            let ctx = RunContext::new(0, Limits::default()).with_entities(false);
            scenario.run(&ctx).expect("the scenario runs");
        }
        "built-in-outbox" => {
            run(&outbox::Outbox, outbox_params(per_client(), 0.01), 0);
        }
        "hedge-plain" | "hedge-timer" | "hedge-hedged" => hedge::profile_once(side),
        "explore" => explore::explore_once(2, 10),
        "explore-3x5" => explore::explore_once(3, 5),
        "stateright" | "stateright-3x5" => {
            let (clients, increments) = if side == "stateright" {
                (2, 10)
            } else {
                (3, 5)
            };
            let model = stateright::LostUpdate {
                clients,
                increments,
            };
            println!("{} states", stateright::explore(model, 1));
        }
        "work-queue" => {
            for (workers, jobs) in [(2, 1), (2, 2), (3, 1), (2, 3)] {
                explore_queue::same_graph(workers, jobs);
            }
        }
        other => panic!(
            "SUITE_PROFILE = {other:?}: expected scenario-fixed, built-in-fixed, \
             scenario-poisson, built-in-poisson, scenario-outbox, built-in-outbox, \
             hedge-plain, hedge-timer, hedge-hedged, explore, explore-3x5, stateright, \
             stateright-3x5 or work-queue"
        ),
    }
}

fn main() {
    if let Ok(side) = std::env::var("SUITE_PROFILE") {
        profile_one(&side);
        return;
    }
    // `cargo bench -p coordsim-bench -- queue scaling` runs only the sections named.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |section: &str| only.is_empty() || only.iter().any(|o| o == section);
    if wants("queue") || wants("lock") {
        println!(
            "== against the reference loop (same process; 5 alternated pairs, the median ratio)"
        );
    }
    if wants("queue") {
        queue_jobs();
    }
    if wants("lock") {
        lock_jobs();
    }
    if wants("large") {
        println!("\n== large runs");
        large_jobs();
    }
    if wants("scaling") {
        println!("\n== scaling: n, 2n, 4n, 8n (n sized for about 0.1 s; best of 5)");
        let ok = scaling_jobs();
        println!("every model's doubling ratio ≤ 2.3: {}", verdict(ok));
    }
    if wants("sweep") {
        println!("\n== sweeps");
        sweep_jobs();
    }
    if wants("floor") {
        println!("\n== the built-in queue against the floor: a heap loop keeping only sums");
        floor_jobs();
    }
    if wants("scenario") || wants("outbox") {
        println!("\n== scenario against the built-in model (5 alternated pairs, the median ratio)");
        outbox_pair();
    }
    if wants("scenario") {
        scenario_jobs();
    }
    if wants("hedge") {
        println!("\n== hedged requests against plain ones (5 alternated pairs, the median ratio)");
        hedge::hedge_jobs();
    }
    if wants("explore") {
        println!("\n== the explorer: every execution of the lost update (one thread and two)");
        explore::explore_jobs();
    }
    if wants("explore") || wants("work-queue") {
        println!(
            "\n== the explorer on a work queue with a lock (one thread): one graph on both sides, then symmetry"
        );
        explore_queue::explore_work_queue();
    }
    if wants("explore") || wants("keys") {
        println!(
            "\n== the explorer on key stores (one thread): the flat back end and the interpreter"
        );
        explore_keys::explore_keys();
    }
    if wants("explore") || wants("symmetry") {
        println!("\n== the explorer with symmetry: the clients taken as interchangeable");
        explore::explore_symmetry();
        println!("\n== the explorer on both cores: two threads against one (median of 3 pairs)");
        explore::explore_speedup();
    }
    if wants("explore") || wants("reach") {
        println!(
            "\n== the explorer without counts (`--no-counts`) against Stateright, one thread each"
        );
        explore::explore_reach();
    }
    if wants("explore") || wants("schedulers") {
        println!("\n== the schedulers' answers against the search (median of 3 each)");
        schedulers::schedulers_jobs();
    }
}
