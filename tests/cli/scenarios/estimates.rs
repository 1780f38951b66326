//! What a run holds is what its estimate counts: a range of keys nobody changes holds
//! nothing, one a step changes is laid out (and counted).

use super::{num, run_text};

#[test]
fn a_range_of_keys_nobody_changes_takes_no_memory() {
    // Ten million keys of value 2, only looked up: under a 64 MiB limit (laid out they
    // would be about 90 MB, and the estimate counts 48 bytes a key: 457 MiB). Size 10^7,
    // total 2 × 10^7; key 5 is found and key 10^7 is not (the range is 0 … 10^7 − 1).
    let lookups = r#"model = "scenario"
[limits]
max_memory_mb = 64
[[resource]]
name = "books"
kind = "keys"
initial = { from = 0, count = 10_000_000, value = 2 }
[[resource]]
name = "seen"
kind = "keys"
[[actor]]
name = "a"
steps = [
  { lookup = "books", key = 5 },
  { if = "found", then = [{ insert = "seen", key = 1, value = "books" }] },
  { lookup = "books", key = 10_000_000 },
  { if = "missing", then = [{ insert = "seen", key = 2, value = 7 }] },
]
"#;
    let run = run_text(lookups, 1);
    assert_eq!(num(run.metric("books.size")), 1e7);
    assert_eq!(num(run.metric("books.total")), 2e7);
    assert_eq!(num(run.metric("seen.total")), 2.0 + 7.0);
    // One remove lays the range out: 10^7 − 1 keys, total 2 × (10^7 − 1).
    let changed = lookups
        .replace("max_memory_mb = 64", "max_memory_mb = 1024")
        .replace(
            r#"{ lookup = "books", key = 5 },"#,
            r#"{ remove = "books", key = 3 }, { lookup = "books", key = 5 },"#,
        );
    let run = run_text(&changed, 1);
    assert_eq!(num(run.metric("books.size")), 1e7 - 1.0);
    assert_eq!(num(run.metric("books.total")), 2.0 * (1e7 - 1.0));
    assert_eq!(num(run.metric("books.removed")), 1.0);
}

/// A run's events stay within the estimate made before it runs, for the work that used to
/// escape it: compare-and-set conflicts (each starts the attempt again), a crashed holder's
/// lease that runs out by itself while others poll, and a start far ahead that keeps the
/// polls going until it comes (the run is then found stuck, within the estimate).
#[test]
fn conflicts_leases_and_late_starts_stay_within_the_estimate() {
    // One actor, two compare-and-set writes of what it read: the second always finds the
    // first's value, so every attempt conflicts, up to max_retries = 1,000 of them.
    let cas = r#"model = "scenario"
[[resource]]
name = "r"
kind = "register"
[[actor]]
name = "a"
steps = [{ read = "r" }, { write = "r", value = "read + 1", cas = true }, { write = "r", value = "read + 1", cas = true }]
"#;
    let run = super::run_within_estimate(cas, 0);
    assert_eq!(
        num(run.metric("a.gave_up")),
        1.0,
        "a conflict every attempt"
    );
    // A stale lease of 185 ms at the start, polled every 1 ms: about 185 polls.
    let lease = r#"model = "scenario"
[[resource]]
name = "l"
kind = "lock"
mode = "lease"
poll_ms = 1
lease_ms = 185
stale_at_start = true
[[actor]]
name = "a"
steps = [{ acquire = "l" }, { release = "l" }]
"#;
    let run = super::run_within_estimate(lease, 0);
    assert_eq!(num(run.metric("a.completed")), 1.0);
    // The holder ends holding `l`; the poller polls at 1 + 25n ms. The last other event is
    // the late actor's delay ending at 1,000,001 ms; the poll after it, at 1 + 25 × 40,001 =
    // 1,000,026 ms, finds only polls left: stuck there (an error, but not the event cap).
    let late = r#"model = "scenario"
[[resource]]
name = "l"
kind = "lock"
poll_ms = 25
[[actor]]
name = "holder"
steps = [{ acquire = "l" }]
[[actor]]
name = "poller"
start_ms = 1
steps = [{ acquire = "l" }]
[[actor]]
name = "late"
start_ms = 1000000
steps = [{ delay_ms = 1 }]
"#;
    let config = crate::harness::library_config(&crate::harness::registry(), "t.toml", late)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut limits = config.plan.limits;
    limits.max_events = config.plan.plans[0].cost().events.max(1);
    let err = config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, limits))
        .expect_err("stuck")
        .to_string();
    assert!(err.contains("the run is stuck at 1000026 ms"), "{err}");
}
