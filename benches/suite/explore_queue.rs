//! 7b. The explorer on a second model (`explore`): the work queue of
//!    benches/configs/work-queue.toml (a producer, workers that take a message, add one to
//!    a counter under a queue lock and acknowledge it), against the same model written for
//!    Stateright 0.31 (`work_queue.rs`). Without symmetry and without the reduction both
//!    explore one graph: the state counts are asserted equal (and the transitions, against a
//!    plain breadth-first walk of Stateright's model), so that the times compare the same
//!    work. Then both with symmetry, each with its own reduction of the interchangeable
//!    workers (their state counts differ: each canonical order merges what it can).
//!    Each point is explored twice: counting every execution (the default) and without
//!    counts (`--no-counts`: reachability alone, which is what Stateright's checker does).

use coordsim::config::Config;
use coordsim::source::Source;
use coordsim_model::{Counting, Engine, Exploration, ExploreLimits, Reduction, Symmetry};

use crate::measure::{measure, mib, timed, verdict};
use crate::work_queue::{self, WorkQueue};

/// The shipped config, its sizes set to `workers` × `jobs`.
fn work_queue_config(workers: usize, jobs: u8) -> Config {
    let registry = coordsim_models::registry().with_composer(coordsim_scenario::Scenario);
    let shipped = include_str!("../configs/work-queue.toml");
    let sizes = "workers = 2\njobs = 2\n";
    assert!(shipped.contains(sizes), "the config's [params] as written");
    let text = shipped.replace(sizes, &format!("workers = {workers}\njobs = {jobs}\n"));
    Config::parse(
        Source {
            name: "work-queue.toml".into(),
            text,
        },
        &registry,
    )
    .expect("the work-queue config parses")
}

/// One exploration of the point on one thread, every state apart when `symmetry` is off,
/// by the flat back end (asserted: it covers the work queue's takes, acks and visibility
/// timer, so a time measured is never the interpreter's by a fallback).
fn explore_point(
    config: &Config,
    symmetry: Symmetry,
    engine: Engine,
    counting: Counting,
) -> Exploration {
    let limits = ExploreLimits {
        max_states: 100_000_000,
        jobs: 1,
        symmetry,
        counting,
        // Every order: Stateright's model has no partial-order reduction.
        reduce: Reduction::Off,
        engine,
        ..ExploreLimits::default()
    };
    let mut explored =
        coordsim::runner::explore::explore_config(config, config.seed, &limits).expect("explores");
    let e = explored.swap_remove(0);
    assert!(e.bounded.is_none(), "{:?}", e.bounded);
    assert_eq!(
        e.engine,
        Engine::Flat,
        "the flat back end explores the work queue"
    );
    e
}

/// The engine's name as the command line has it.
fn engine_name(engine: Engine) -> &'static str {
    match engine {
        Engine::Flat => "flat",
        Engine::Interpret => "interpreter",
        Engine::Auto => "auto",
    }
}

/// Both graphs' sizes for `workers` × `jobs`, and that they are one graph (the states,
/// and the transitions against a plain walk of Stateright's model): for a profiler's
/// check (`SUITE_PROFILE=work-queue`) and the section below.
pub(crate) fn same_graph(workers: usize, jobs: u8) -> Exploration {
    let config = work_queue_config(workers, jobs);
    let model = WorkQueue {
        workers,
        jobs,
        history: work_queue::ALL_HISTORY,
    };
    let (states, transitions) = work_queue::graph(&model);
    // What the history words cost: the same model without them, and with each alone.
    let (plain, _) = work_queue::graph(&WorkQueue {
        history: 0,
        ..model
    });
    for (bit, name) in work_queue::HISTORY {
        let (states, _) = work_queue::graph(&WorkQueue {
            history: bit,
            ..model
        });
        println!("  {workers} × {jobs} with {name} alone: {states} states");
    }
    let explored = explore_point(&config, Symmetry::Off, Engine::Auto, Counting::default());
    println!(
        "work queue {workers} × {jobs}: coordsim ({}) {} states, {} transitions; Stateright's model {states} states, {transitions} transitions ({plain} states without the history words)",
        engine_name(explored.engine),
        explored.states,
        explored.transitions,
    );
    assert_eq!(
        (explored.states, explored.transitions),
        (states as u64, transitions as u64),
        "{workers} × {jobs}: coordsim and Stateright's model explore one graph"
    );
    explored
}

/// The section: states, time and states/s on both sides, one thread; no symmetry (one
/// graph, asserted), then each with its symmetry reduction.
pub(crate) fn explore_work_queue() {
    for (workers, jobs) in [(2, 2), (2, 3), (3, 1), (4, 1)] {
        let config = work_queue_config(workers, jobs);
        let model = WorkQueue {
            workers,
            jobs,
            history: work_queue::ALL_HISTORY,
        };
        let label = format!("work queue, {workers} × {jobs}");
        for symmetric in [false, true] {
            let (sr_seconds, sr_states) = timed(1, || {
                if symmetric {
                    crate::stateright::explore_symmetric(model.clone(), 1)
                } else {
                    crate::stateright::explore(model.clone(), 1)
                }
            });
            println!(
                "{:<52} {:>8} states {:>7.3} s  {:>6.3} M states/s",
                if symmetric {
                    "  Stateright 0.31, symmetry (Representative)"
                } else {
                    "  Stateright 0.31, the same model"
                },
                sr_states,
                sr_seconds,
                sr_states as f64 / sr_seconds / 1e6,
            );
            // With symmetry each side reduces by its own canonical order of the workers:
            // the states may differ. Without, they are one graph.
            let symmetry = if symmetric {
                Symmetry::On
            } else {
                Symmetry::Off
            };
            // Counting every execution (the default), then the search without counts
            // (`--no-counts`: what Stateright's checker does, reachability alone).
            for (counting, mode) in [
                (Counting::Executions, ""),
                (Counting::Reach { keep_counts: false }, " --no-counts"),
            ] {
                let (m, e) = measure(1, || {
                    explore_point(&config, symmetry, Engine::Auto, counting)
                });
                let same = e.states == sr_states as u64;
                assert!(
                    same || symmetric,
                    "{workers} × {jobs}: {} states against Stateright's {sr_states}: one graph on both sides",
                    e.states
                );
                // The targets: at least Stateright's rate without symmetry, ahead with it.
                let ok = if symmetric {
                    m.seconds < sr_seconds
                } else {
                    m.seconds <= sr_seconds
                };
                println!(
                    "{:<52} {:>8} states {:>7.3} s  {:>6.3} M states/s  peak {:>7.1} MiB ({:.0} B/state)  {:.2}× Stateright's time (target {}: {}; {} states)",
                    format!(
                        "explore{mode} {label}{}, {}",
                        if symmetric { ", symmetry" } else { "" },
                        engine_name(e.engine)
                    ),
                    e.states,
                    m.seconds,
                    e.states as f64 / m.seconds / 1e6,
                    mib(m.peak_bytes),
                    m.peak_bytes as f64 / e.states as f64,
                    m.seconds / sr_seconds,
                    if symmetric { "< 1" } else { "≤ 1" },
                    verdict(ok),
                    if same { "the same" } else { "other" },
                );
            }
        }
    }
}
