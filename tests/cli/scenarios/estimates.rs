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

/// A run refused for its estimate is refused at the key that drives it, with why: a
/// give-up time that keeps a poll going, a short `poll_ms`, an open loop's `repeat`, an
/// actor's `count`, a `parallel` with many steps, a compare-and-set's `max_retries`; and at
/// the actor when its numbers drive it together.
#[test]
fn a_refused_estimate_points_at_the_key_that_drives_it() {
    let past_events =
        "more than max_events = 1000000000 in [limits]; change it, or raise max_events";
    let refused = |text: &str, at: &str, why: &str, limit: &str| {
        let e = super::load_error(text);
        assert!(e.starts_with(at), "{e}\nexpected at {at}");
        assert!(
            e.ends_with(&format!(" ({why}), {limit}")),
            "{e}\nexpected ({why})"
        );
    };
    // A stale record nothing removes, polled every 25 ms (the default) for 10^12 ms.
    refused(
        r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
stale_at_start = true
[[actor]]
name = "a"
steps = [{ acquire = "L", give_up_after_ms = 1e12 }, { release = "L" }]
"#,
        "t.toml:8:46: `actor[0].steps[0].give_up_after_ms`: a run would take about ",
        "a waiter polls lock `L` every 25 ms for up to 1e12 ms",
        past_events,
    );
    // A poll every nanosecond while the other of two actors holds it for 100 s: 200 s.
    refused(
        r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
poll_ms = 0.000001
[[actor]]
name = "a"
count = 2
steps = [{ acquire = "L" }, { delay_ms = 100000 }, { release = "L" }]
"#,
        "t.toml:5:11: `resource[0].poll_ms`: a run would take about ",
        "a waiter polls lock `L` every 0.000001 ms for up to 200000 ms, while others may hold it",
        past_events,
    );
    // Every repetition of an open loop in flight at once: the memory, at line 8.
    refused(
        r#"model = "scenario"
[[resource]]
name = "x"
kind = "register"
[[actor]]
name = "a"
every_ms = 0
repeat = 100000000
steps = [{ read = "x" }]
"#,
        "t.toml:8:10: `actor[0].repeat`: a run would hold about ",
        "1 actor × 100000000 repetitions, which an open loop may hold in flight all at once",
        "more than max_memory_mb = 4096 in [limits]; change it, or raise max_memory_mb",
    );
    // Sixteen branches of one request each: 16 · 2 steps of 3 events in the branches, the
    // fork and the join outside, 3 · 34 + 1 = 103 events a repetition.
    let branches = vec![r#"[{ request = "s" }]"#; 16].join(", ");
    let fan = format!(
        r#"model = "scenario"
[[resource]]
name = "s"
kind = "server"
service_ms = 1
[[actor]]
name = "c"
count = 1000000
repeat = 10
steps = [{{ parallel = [{branches}], wait = "first" }}]
"#
    );
    let why = |actors: &str| {
        format!(
            "{actors} × 103 events each, 96 of them in the 16 branches of the `parallel` at `actor[0].steps[0]`"
        )
    };
    // A million actors stand out (10 repetitions and 103 / 7 ≈ 15 times the steps are less).
    refused(
        &fan,
        "t.toml:8:9: `actor[0].count`: a run would take about 1030000000 events",
        &why("1000000 actors × 10 repetitions"),
        past_events,
    );
    // 10,000 × 1,000 × 15: none stands out, so the actor, at its header.
    let together = fan
        .replace("count = 1000000", "count = 10000")
        .replace("repeat = 10\n", "repeat = 1000\n");
    refused(
        &together,
        "t.toml:6:1: `actor[0]`: a run would take about 1030000000 events",
        &why("10000 actors × 1000 repetitions"),
        past_events,
    );
    // The branches alone: 2 actors × 1 repetition, the `parallel` at its place.
    let alone = fan.replace("count = 1000000\nrepeat = 10\n", "count = 2\n")
        + "[limits]\nmax_events = 100\n";
    let e = super::load_error(&alone);
    assert!(
        e.starts_with("t.toml:9:10: `actor[0].steps[0]`: a run would take about 206 events (2 actors × 1 repetition × 103 events each, 96 of them in the 16 branches"),
        "{e}"
    );
    // Every attempt conflicts: up to a billion retries.
    refused(
        r#"model = "scenario"
[[resource]]
name = "x"
kind = "register"
[[actor]]
name = "a"
steps = [{ read = "x" }, { write = "x", value = "read + 1", cas = true, max_retries = 1000000000 }]
"#,
        "t.toml:7:87: `actor[0].steps[1].max_retries`: a run would take about ",
        "each compare-and-set conflict starts the attempt again, up to `max_retries` = 1000000000 times a repetition (1000 when not written)",
        past_events,
    );
}

/// A server's instances drive a run's memory when they are what it holds: 100,000
/// instances at 96 bytes each (no random service) are about 9.2 MiB, past an 8 MiB limit,
/// where one actor's one request is nothing; the error is at `instances`, not the actor.
#[test]
fn a_servers_instances_take_the_blame_for_their_memory() {
    let e = super::load_error(
        r#"model = "scenario"
[limits]
max_memory_mb = 8
[[resource]]
name = "s"
kind = "server"
service_ms = 1
instances = 100000
[[actor]]
name = "a"
steps = [{ request = "s" }]
"#,
    );
    assert!(
        e.starts_with("t.toml:8:13: `resource[0].instances`: a run would hold about 9 MiB (100000 instances of `s`)"),
        "{e}"
    );
}
