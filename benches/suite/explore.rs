//! 7. The explorer (`explore`): states per second and heap per stored state on the lost
//!    update (k clients of n zero-time read-increment-write steps on one register), on one
//!    thread and on two (the same states either way), breadth first, with the merging of
//!    states and the reduction on (every action conflicts here, so the reduction takes
//!    nothing away); beside each, Stateright 0.31 on the same model (`stateright.rs`), whose
//!    states carry less (no lost-update count, no per-client statistics), so it has fewer.

use coordsim::config::Config;
use coordsim::source::Source;
use coordsim_model::{Engine, ExploreLimits, Symmetry};

use crate::measure::{measure, mib, timed, verdict};

/// The lost update of `k` clients of `n` increments each, as a scenario config.
fn lost_update(k: usize, n: u64) -> Config {
    let registry = coordsim_models::registry().with_composer(coordsim_scenario::Scenario);
    let text = format!(
        "model = \"scenario\"\n[[resource]]\nname = \"counter\"\nkind = \"register\"\n[[actor]]\nname = \"c\"\ncount = {k}\nrepeat = {n}\nsteps = [{{ read = \"counter\" }}, {{ write = \"counter\", value = \"read + 1\" }}]\n"
    );
    Config::parse(
        Source {
            name: "lost-update.toml".into(),
            text,
        },
        &registry,
    )
    .expect("the lost-update scenario parses")
}

/// One exploration of the `k` × `n` lost update on one thread, for a profiler: without
/// symmetry, the graph Stateright explores, on the default back end (the flat one, which
/// covers this point; the interpreter's figures in docs/performance.md came before it).
pub(crate) fn explore_once(k: usize, n: u64) {
    let config = lost_update(k, n);
    let limits = ExploreLimits {
        symmetry: Symmetry::Off,
        ..ExploreLimits::default()
    };
    let explored =
        coordsim::runner::explore::explore_config(&config, config.seed, &limits).expect("explores");
    println!("{} states", explored[0].states);
}

pub(crate) fn explore_jobs() {
    // (clients, increments, repetitions timed: the larger one takes seconds)
    for (k, n, reps, jobs) in [
        (2, 10, 3, 1),
        (2, 10, 3, 2),
        (3, 4, 1, 1),
        (3, 4, 1, 2),
        (3, 5, 1, 1),
        (3, 5, 1, 2),
        (3, 6, 1, 1),
    ] {
        let config = lost_update(k, n);
        let limits = ExploreLimits {
            // 3 × 5 has 169,771 states (87 MiB): well within the default 2M; the bound
            // stays for a larger k × n.
            max_states: 10_000_000,
            jobs,
            // Every state apart: the graph Stateright explores, state for state.
            symmetry: Symmetry::Off,
            ..ExploreLimits::default()
        };
        // The same model in Stateright, on as many threads.
        let model = crate::stateright::LostUpdate {
            clients: k,
            increments: n as u32,
        };
        let (sr_seconds, sr_states) =
            timed(reps, || crate::stateright::explore(model.clone(), jobs));
        println!(
            "{:<52} {:>8} states {:>7.3} s  {:>6.3} M states/s",
            format!("  Stateright 0.31, the same model, {jobs} thread(s)"),
            sr_states,
            sr_seconds,
            sr_states as f64 / sr_seconds / 1e6,
        );
        if jobs == 1 {
            // Both back ends on the same graph: the flat one (the default here) and the
            // interpreter it is checked against.
            for (engine, name) in [(Engine::Flat, "flat"), (Engine::Interpret, "interpreter")] {
                let limits = ExploreLimits { engine, ..limits };
                let (m, explored) = measure(reps, || {
                    coordsim::runner::explore::explore_config(&config, config.seed, &limits)
                        .expect("explores")
                });
                let e = &explored[0];
                assert!(e.bounded.is_none(), "{k} × {n}: {:?}", e.bounded);
                assert_eq!(e.engine, engine);
                println!(
                    "{:<52} {:>8} states {:>7.3} s  {:>6.3} M states/s  peak {:>7.1} MiB ({:.0} B/state)",
                    format!("explore lost update, {k} × {n}, 1 thread, {name}"),
                    e.states,
                    m.seconds,
                    e.states as f64 / m.seconds / 1e6,
                    mib(m.peak_bytes),
                    m.peak_bytes as f64 / e.states as f64,
                );
            }
        } else {
            // Timed with the allocations uncounted: a shared counter would serialize the
            // threads. The memory is the one thread's (the same states, the same graph).
            // The interpreter's search on several threads (the flat back end runs on one).
            let limits = ExploreLimits {
                engine: Engine::Interpret,
                ..limits
            };
            let (seconds, states) = timed(reps, || {
                let explored =
                    coordsim::runner::explore::explore_config(&config, config.seed, &limits)
                        .expect("explores");
                explored[0].states
            });
            println!(
                "{:<52} {:>8} states {:>7.3} s  {:>6.3} M states/s",
                format!("explore lost update, {k} × {n}, {jobs} threads, interpreter"),
                states,
                seconds,
                states as f64 / seconds / 1e6,
            );
        }
    }
}

/// The lost update with its clients taken as interchangeable (symmetry, on by default):
/// fewer states for the same executions, on one thread and on two; beside each, Stateright
/// with its own symmetry reduction on the same model, and coordsim's time against its.
pub(crate) fn explore_symmetry() {
    for (k, n, jobs) in [(3, 5, 1), (4, 4, 1), (4, 4, 2), (4, 5, 1), (4, 5, 2)] {
        let config = lost_update(k, n);
        let limits = ExploreLimits {
            max_states: 10_000_000,
            jobs,
            ..ExploreLimits::default()
        };
        let label = format!("explore lost update, symmetry, {k} × {n}, {jobs} thread(s)");
        // Stateright on the same model with its own symmetry reduction, on as many threads.
        let model = crate::stateright::LostUpdate {
            clients: k,
            increments: n as u32,
        };
        let (sr_seconds, sr_states) = timed(1, || {
            crate::stateright::explore_symmetric(model.clone(), jobs)
        });
        println!(
            "{:<52} {:>8} states {:>7.3} s  {:>6.3} M states/s",
            format!("  Stateright 0.31, symmetry, {jobs} thread(s)"),
            sr_states,
            sr_seconds,
            sr_states as f64 / sr_seconds / 1e6,
        );
        let ahead = |seconds: f64| {
            format!(
                "{:.2}× Stateright's time (target < 1: {})",
                seconds / sr_seconds,
                verdict(seconds < sr_seconds)
            )
        };
        if jobs > 1 {
            // Timed with the allocations uncounted (a shared counter would serialize the
            // threads): the same states as on one thread.
            let (seconds, states) = timed(1, || {
                let explored =
                    coordsim::runner::explore::explore_config(&config, config.seed, &limits)
                        .expect("explores");
                assert!(explored[0].bounded.is_none(), "{k} × {n}");
                explored[0].states
            });
            println!(
                "{label:<52} {states:>8} states {seconds:>7.3} s  {:>6.3} M states/s  {}",
                states as f64 / seconds / 1e6,
                ahead(seconds),
            );
            continue;
        }
        let (m, explored) = measure(1, || {
            coordsim::runner::explore::explore_config(&config, config.seed, &limits)
                .expect("explores")
        });
        let e = &explored[0];
        assert!(e.bounded.is_none(), "{k} × {n}: {:?}", e.bounded);
        println!(
            "{label:<52} {:>8} states {:>7.3} s  {:>6.3} M states/s  peak {:>7.1} MiB ({:.0} B/state)  {}",
            e.states,
            m.seconds,
            e.states as f64 / m.seconds / 1e6,
            mib(m.peak_bytes),
            m.peak_bytes as f64 / e.states as f64,
            ahead(m.seconds),
        );
    }
}

/// Two threads against one on the 3 × 6 lost update (the target: at least 1.7×), without
/// symmetry (540,512 states) and with it (94,646): one thread and two alternated three
/// times, so that a drift of the machine's speed hits both alike; the speedup is the
/// median of the three pairs' ratios, the times the medians. The same states either way.
pub(crate) fn explore_speedup() {
    let config = lost_update(3, 6);
    for (symmetry, engine, label) in [
        (
            Symmetry::Off,
            Engine::Interpret,
            "explore lost update, 3 × 6, 2 threads against 1, interpreter",
        ),
        // The flat back end's search runs on one thread; on two, the counting's walk
        // goes on beside it.
        (
            Symmetry::Off,
            Engine::Flat,
            "explore lost update, 3 × 6, 2 threads against 1, flat",
        ),
        (
            Symmetry::On,
            Engine::Auto,
            "explore lost update, symmetry, 3 × 6, 2 threads against 1",
        ),
    ] {
        let run = |jobs: usize| {
            let limits = ExploreLimits {
                max_states: 10_000_000,
                jobs,
                symmetry,
                engine,
                ..ExploreLimits::default()
            };
            let explored = coordsim::runner::explore::explore_config(&config, config.seed, &limits)
                .expect("explores");
            assert!(
                explored[0].bounded.is_none(),
                "3 × 6: {:?}",
                explored[0].bounded
            );
            explored[0].states
        };
        let Alternated {
            states,
            one,
            two,
            speedup,
            ..
        } = alternated(run);
        println!(
            "{label:<52} {states:>8} states {:>7.3} s against {:.3} s ({:.2} M against {:.2} M states/s): speedup {speedup:.2} (target ≥ 1.7: {})",
            two,
            one,
            states as f64 / two / 1e6,
            states as f64 / one / 1e6,
            verdict(speedup >= 1.7),
        );
    }
}

/// The search without counts (`explore --no-counts`: fingerprints and first parents, no
/// edges, no counting walk) against Stateright on the lost update, one thread each:
/// without symmetry against its breadth-first search, with symmetry against its own
/// `Representative` reduction; the same states on both sides (asserted), the time, and
/// coordsim's peak heap per stored state (the target: at most 32 bytes on 4 × 4).
pub(crate) fn explore_reach() {
    for (k, n, symmetry) in [
        (2, 10, Symmetry::Off),
        (3, 5, Symmetry::Off),
        (3, 6, Symmetry::Off),
        (4, 4, Symmetry::Off),
        (4, 4, Symmetry::On),
        (4, 5, Symmetry::On),
    ] {
        let config = lost_update(k, n);
        let limits = ExploreLimits {
            max_states: 100_000_000,
            symmetry,
            counting: coordsim_model::Counting::Reach { keep_counts: false },
            ..ExploreLimits::default()
        };
        let model = crate::stateright::LostUpdate {
            clients: k,
            increments: n as u32,
        };
        let symmetric = symmetry == Symmetry::On;
        let (sr_seconds, sr_states) = timed(1, || {
            if symmetric {
                crate::stateright::explore_symmetric(model.clone(), 1)
            } else {
                crate::stateright::explore(model.clone(), 1)
            }
        });
        let (m, explored) = measure(1, || {
            coordsim::runner::explore::explore_config(&config, config.seed, &limits)
                .expect("explores")
        });
        let e = &explored[0];
        assert!(e.bounded.is_none(), "{k} × {n}: {:?}", e.bounded);
        assert_eq!(e.states, sr_states as u64, "{k} × {n}: the same states");
        let what = if symmetric { "symmetry, " } else { "" };
        println!(
            "{:<52} {:>9} states {:>7.3} s  {:>6.3} M states/s",
            format!("  Stateright 0.31, {what}{k} × {n}, 1 thread"),
            sr_states,
            sr_seconds,
            sr_states as f64 / sr_seconds / 1e6,
        );
        println!(
            "{:<52} {:>9} states {:>7.3} s  {:>6.3} M states/s  peak {:>7.1} MiB ({:.1} B/state)  {:.2}× Stateright's time (target ≤ 1: {})",
            format!("explore --no-counts, {what}{k} × {n}, 1 thread"),
            e.states,
            m.seconds,
            e.states as f64 / m.seconds / 1e6,
            mib(m.peak_bytes),
            m.peak_bytes as f64 / e.states as f64,
            m.seconds / sr_seconds,
            verdict(m.seconds <= sr_seconds),
        );
    }
    explore_reach_speedup();
}

/// The CPU seconds this process took so far, all its threads (Linux's `/proc/self/stat`,
/// in ticks of 1/100 s; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis: utime and stime are the 12th
    // and 13th.
    let after = stat.rsplit(')').next().unwrap_or_default();
    let ticks: u64 = (after.split_whitespace().skip(11).take(2))
        .filter_map(|t| t.parse::<u64>().ok())
        .sum();
    ticks as f64 / 100.0
}

/// `--no-counts` on two threads against one on the 3 × 6 lost update (the target: at
/// least 1.7×), without symmetry (540,512 states) and with it: one thread and two
/// alternated three times, so that a drift of the machine's speed hits both alike; the
/// speedup is the median of the three pairs' ratios, the times the medians, beside the
/// CPU seconds each took (over the three) and the load. The same states either way.
fn explore_reach_speedup() {
    let config = lost_update(3, 6);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("?").to_string();
    for (symmetry, what) in [(Symmetry::Off, ""), (Symmetry::On, "symmetry, ")] {
        let run = |jobs: usize| {
            let limits = ExploreLimits {
                max_states: 10_000_000,
                jobs,
                symmetry,
                counting: coordsim_model::Counting::Reach { keep_counts: false },
                ..ExploreLimits::default()
            };
            let explored = coordsim::runner::explore::explore_config(&config, config.seed, &limits)
                .expect("explores");
            assert!(explored[0].bounded.is_none(), "{:?}", explored[0].bounded);
            explored[0].states
        };
        let Alternated {
            states,
            one,
            two,
            speedup,
            cpu_one,
            cpu_two,
        } = alternated(run);
        println!(
            "{:<52} {states:>9} states {:>7.3} s against {:.3} s (CPU {cpu_two:.2} s against {cpu_one:.2} s, load {load}): speedup {speedup:.2} (target ≥ 1.7: {})",
            format!("explore --no-counts, {what}3 × 6, 2 threads against 1"),
            two,
            one,
            verdict(speedup >= 1.7),
        );
    }
}

/// One thread against two, alternated three times so that a drift of the machine's speed
/// hits both alike: the medians and the median ratio, the CPU seconds each took over the
/// three, the states (the same either way, asserted).
struct Alternated {
    states: u64,
    one: f64,
    two: f64,
    speedup: f64,
    cpu_one: f64,
    cpu_two: f64,
}

/// [`Alternated`] of `run` (the states explored on that many threads).
fn alternated(run: impl Fn(usize) -> u64) -> Alternated {
    let (mut ones, mut twos, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let (mut cpu_one, mut cpu_two, mut states) = (0.0, 0.0, 0);
    for _ in 0..3 {
        let before = cpu_seconds();
        let (one, one_states) = timed(1, || run(1));
        let between = cpu_seconds();
        let (two, two_states) = timed(1, || run(2));
        (cpu_one, cpu_two) = (
            cpu_one + between - before,
            cpu_two + cpu_seconds() - between,
        );
        assert_eq!(
            one_states, two_states,
            "the same states on one thread and two"
        );
        states = one_states;
        ones.push(one);
        twos.push(two);
        ratios.push(one / two);
    }
    for v in [&mut ones, &mut twos, &mut ratios] {
        v.sort_by(f64::total_cmp);
    }
    Alternated {
        states,
        one: ones[1],
        two: twos[1],
        speedup: ratios[1],
        cpu_one,
        cpu_two,
    }
}
