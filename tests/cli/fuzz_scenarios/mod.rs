//! The grammar-based scenario fuzzer: random valid-looking `model = "scenario"` configs that
//! use every resource and step the language has (docs/scenarios.md) never panic, abort or
//! hang.
//!
//! The generator tracks what an actor holds, has read, has taken and has looked up, and the
//! outcomes its last step can have, so most configs it writes load and run; the rest reach
//! the loader's and the run's errors, which must be errors, never panics.
//!
//! Here are the tests and the driver; the generator is in the files by what they write:
//! `generator.rs` (a case's random numbers and the config's frame), `edges.rs` (extreme
//! numbers and the language's limits), `world.rs` (what the generator knows),
//! `numbers.rs`, `resources.rs`, `groups.rs`, `steps.rs` and `waits.rs`; `report.rs`
//! counts what became of the cases.

mod edges;
mod generator;
mod groups;
mod numbers;
mod report;
mod resources;
mod steps;
mod waits;
mod world;

use crate::fuzz::{Fate, drive};
use crate::harness::{library_config, library_run, registry};
use generator::scenario_case;
use report::Tally;
use std::path::Path;
use std::time::Instant;

/// A loaded config's runs, each point's results and entity rows as CSV text, under `ties`
/// on `jobs` threads (the run's error instead, when it stops).
fn results_text(
    registry: &coordsim_model::Registry,
    text: &str,
    ties: sim_core::Ties,
    jobs: usize,
) -> Result<String, String> {
    let mut config = library_config(registry, "fuzzed.toml", text).map_err(|e| e.to_string())?;
    config.plan.limits.max_events = config.plan.limits.max_events.min(200_000);
    let options = coordsim::runner::RunOptions {
        jobs,
        seed: None,
        shard: None,
        progress: false,
        ties,
    };
    let results = coordsim::runner::run(&config, &options).map_err(|e| format!("{e:#}"))?;
    let mut out =
        String::from_utf8(coordsim::export::csv::to_csv(&results.results).unwrap()).unwrap();
    if let Some(entities) = &results.entities {
        out.push_str(&String::from_utf8(coordsim::export::csv::to_csv(entities).unwrap()).unwrap());
    }
    Ok(out)
}

/// A config that ran, run again: on 2 threads it gives the same results (the run is
/// deterministic), and under another tie rule (`check --ties`) it runs or stops with an
/// error, never an internal one and never a panic. `None` when it holds, else what broke.
fn rerun_defect(registry: &coordsim_model::Registry, text: &str, index: usize) -> Option<String> {
    let first = results_text(registry, text, sim_core::Ties::Fifo, 1);
    let again = results_text(registry, text, sim_core::Ties::Fifo, 2);
    if first != again {
        return Some(format!(
            "on 2 threads the results differ:\n{first:?}\nthen\n{again:?}"
        ));
    }
    let ties = [
        sim_core::Ties::Lifo,
        sim_core::Ties::Shuffled(index as u64),
        sim_core::Ties::ClassesReversed,
    ][index % 3];
    let fate = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        results_text(registry, text, ties, 1)
    }));
    match fate {
        Err(_) => Some(format!("under ties {ties:?} it panicked")),
        Ok(Err(e)) if e.contains("internal") => Some(format!("under ties {ties:?}: {e}")),
        Ok(_) => None,
    }
}

/// A campaign's settings, from the environment (see `generated_scenarios_never_panic`).
struct Settings {
    cases: usize,
    from: usize,
    trace: bool,
    strict: bool,
}

impl Settings {
    fn from_env() -> Settings {
        let env = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
        };
        Settings {
            cases: env("COORDSIM_FUZZ_SCENARIOS").unwrap_or(2500),
            from: env("COORDSIM_FUZZ_SCENARIOS_FROM").unwrap_or(0),
            trace: std::env::var_os("COORDSIM_FUZZ_TRACE").is_some(),
            strict: std::env::var_os("COORDSIM_FUZZ_STRICT").is_some(),
        }
    }
}

/// One config file, driven as a case is (to cut a failing case down by hand), and what
/// became of it.
fn drive_file(registry: &coordsim_model::Registry, file: &Path) {
    let text = std::fs::read_to_string(file).unwrap();
    let clock = Instant::now();
    let fate = match drive(registry, "fuzzed.toml", &text, None, true) {
        Fate::Refused(e) => format!("refused: {e}"),
        Fate::Failed(e) => format!("stopped: {e}"),
        Fate::TooBig => "too big".to_string(),
        Fate::Ran => "ran".to_string(),
    };
    eprintln!(
        "{}: {fate} ({:.1?})",
        file.to_string_lossy(),
        clock.elapsed()
    );
}

/// Case `i` through load → validate → run → check, and every 20th case → write (into a
/// folder of `out`), counted in `tally`: a panic fails with the case's index and text, and
/// one in five cases that ran runs again (`rerun_defect`). With `trace`, the case is
/// printed before it runs, and what became of it after.
fn run_case(
    registry: &coordsim_model::Registry,
    i: usize,
    out: &Path,
    trace: bool,
    tally: &mut Tally,
) {
    let text = scenario_case(i);
    if trace {
        eprintln!("case {i}:\n{text}");
    }
    let dir = i.is_multiple_of(20).then(|| out.join(format!("s{i}")));
    let clock = Instant::now();
    let fate = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        drive(registry, "fuzzed.toml", &text, dir.as_deref(), true)
    }));
    let took = clock.elapsed();
    if trace {
        match &fate {
            Ok(Fate::Refused(e)) => eprintln!("case {i}: refused: {e}"),
            Ok(Fate::Failed(e)) => eprintln!("case {i}: stopped: {e}"),
            Ok(Fate::TooBig) => eprintln!("case {i}: too big"),
            Ok(Fate::Ran) => eprintln!("case {i}: ran"),
            Err(_) => {}
        }
    }
    tally.time(i, took, &text);
    match fate {
        Ok(Fate::Refused(e)) => tally.refused(i, e),
        Ok(Fate::TooBig) => tally.too_big += 1,
        Ok(Fate::Failed(e)) => tally.failed(i, e, &text),
        Ok(Fate::Ran) => {
            let defect = if i.is_multiple_of(5) {
                rerun_defect(registry, &text, i)
            } else {
                None
            };
            tally.ran(i, &text, defect);
        }
        Err(_) => panic!("scenario case {i} panicked:\n{text}"),
    }
}

/// Generated scenario configs through load → validate → run → check → write, in this
/// process: a panic fails with the case's index and text, and a case slower than a few
/// seconds is a hang. `COORDSIM_FUZZ_SCENARIOS` sets how many (a quick round by default),
/// `COORDSIM_FUZZ_SCENARIOS_FROM` the first index (a case replays by its index),
/// `COORDSIM_FUZZ_TRACE` prints each case before it runs (to find one that aborts) and what
/// became of it, `COORDSIM_FUZZ_STRICT` fails on every run past its own estimate, and
/// `COORDSIM_FUZZ_FILE` drives one config file instead, saying what became of it.
#[test]
fn generated_scenarios_never_panic() {
    let settings = Settings::from_env();
    let registry = registry();
    if let Some(file) = std::env::var_os("COORDSIM_FUZZ_FILE") {
        drive_file(&registry, Path::new(&file));
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let mut tally = Tally::new(settings.from);
    let started = Instant::now();
    for i in settings.from..settings.from + settings.cases {
        run_case(&registry, i, out.path(), settings.trace, &mut tally);
    }
    let rare = tally.report(settings.cases, started.elapsed());
    tally.check(settings.cases, settings.strict, &rare);
}

/// Found by the generator: a request served before its timeout left the timer armed, and
/// when it fired while a later request without a timeout waited at the same server, the
/// run stopped with an internal error (here at 20 ms, the first request's deadline, as the
/// second is served and the third waits).
#[test]
fn a_request_served_in_time_leaves_no_timer_for_a_later_request() {
    let text = r#"model = "scenario"
[[resource]]
name = "s"
kind = "server"
service_ms = 10
[[actor]]
name = "a"
steps = [{ request = "s", timeout_ms = 20 }, { request = "s" }, { request = "s" }]
"#;
    let config = library_config(&registry(), "t.toml", text).unwrap();
    // It runs (the timer used to stop it at 20 ms) and completes with no timeout.
    let table = library_run(&config).results;
    let cell = |name: &str| table.rows[0][table.column(name).unwrap()].clone();
    assert_eq!(cell("a.completed"), coordsim_model::Cell::Count(1));
    assert_eq!(cell("a.timeouts"), coordsim_model::Cell::Count(0));
}
