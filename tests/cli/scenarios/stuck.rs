//! A run that can never progress stops at once, saying who holds what and who polls,
//! instead of polling until the event cap.

use coordsim_model::RunContext;

/// The run's error, with the events held to `max_events` (a run that is not found stuck
/// reaches that cap and says so instead).
fn stuck_error(text: &str, max_events: u64) -> String {
    let config = crate::harness::library_config(&crate::harness::registry(), "t.toml", text)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut limits = config.plan.limits;
    limits.max_events = max_events;
    match config.plan.plans[0].run(&RunContext::new(1, limits)) {
        Ok(_) => panic!("the run ended"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_holder_that_waits_for_good_while_others_poll_stops_the_run_at_once() {
    // The holder takes L at 0 and waits on a queue nobody puts to. Both pollers start at
    // 1 ms and find L taken; after the second's attempt every event left is a poll (one
    // per 0.001 ms, forever): stuck at 1 ms, a few events in (not 10^9).
    let text = r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
poll_ms = 0.001
[[resource]]
name = "q"
kind = "queue"
[[actor]]
name = "holder"
steps = [{ acquire = "L" }, { take = "q" }, { release = "L" }]
[[actor]]
name = "poller"
count = 2
start_ms = 1
steps = [{ acquire = "L" }, { release = "L" }]
"#;
    let err = stuck_error(text, 1000);
    assert!(err.contains("the run is stuck at 1 ms"), "{err}");
    assert!(
        err.contains("`L` is held by `holder`, which waits to take from `q`"),
        "{err}"
    );
    assert!(err.contains("polled by `poller-0`, `poller-1`"), "{err}");
}

#[test]
fn a_holder_that_crashed_and_restarted_leaves_a_record_no_poll_can_take() {
    // The holder takes L at 0 and crashes at once; its old self keeps the record (no lease,
    // no unlock). It restarts at 5 ms and polls L itself, as the three pollers have since
    // 1 ms: from then on only polls are left. Stuck at 5 ms.
    let text = r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
poll_ms = 0.001
[[actor]]
name = "holder"
repeat = 2
steps = [{ acquire = "L" }, { crash = "all", restart_after_ms = 5 }, { release = "L" }]
[[actor]]
name = "poller"
count = 3
start_ms = 1
steps = [{ acquire = "L" }, { release = "L" }]
"#;
    let err = stuck_error(text, 100_000);
    assert!(err.contains("the run is stuck at 5 ms"), "{err}");
    assert!(
        err.contains("held by `holder`, whose earlier self crashed holding it (it restarted)"),
        "{err}"
    );
    assert!(
        err.contains("`holder`") && err.contains("`poller-2`"),
        "{err}"
    );
}

#[test]
fn polls_that_a_lease_or_a_give_up_will_end_are_not_stuck() {
    // A lease of 10 ms: the crashed holder's record is old after 10 ms, and the poller
    // takes it over at its first attempt after that. A poller that gives up after 3 ms
    // ends too. Both runs end normally (and soon: under 20,000 events at 0.001 ms polls).
    for (mode, give_up) in [
        ("mode = \"lease\"\nlease_ms = 10", ""),
        ("", ", give_up_after_ms = 3"),
    ] {
        let text = format!(
            r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
poll_ms = 0.001
{mode}
[[actor]]
name = "holder"
steps = [{{ acquire = "L" }}, {{ crash = "all" }}]
[[actor]]
name = "poller"
start_ms = 1
steps = [{{ acquire = "L"{give_up} }}, {{ release = "L" }}]
"#
        );
        let config = crate::harness::library_config(&crate::harness::registry(), "t.toml", &text)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut limits = config.plan.limits;
        limits.max_events = 20_000;
        let out = config.plan.plans[0].run(&RunContext::new(1, limits));
        assert!(out.is_ok(), "{mode}{give_up}: {:?}", out.err());
    }
}

/// A job readied in the event that leaves only polls behind (a queue lock handed over)
/// still runs: the run is not stuck. `a` takes the queue lock `Q` at 0; `b` takes the polled
/// lock `P` at 0 and queues for `Q`. At 5 `a` releases `Q`, handing it to `b`, and asks for
/// `P`, which `b` holds: one failed attempt, its poll at 6 the only event left. `b` then runs
/// (it was readied): it releases `Q` and `P`. At 6 `a` takes `P`. Both complete; 1 failed
/// attempt; the last end at 6 ms.
#[test]
fn a_job_readied_in_the_same_event_keeps_the_run_from_being_stuck() {
    let text = r#"model = "scenario"
[[resource]]
name = "Q"
kind = "lock"
mode = "queue"
[[resource]]
name = "P"
kind = "lock"
poll_ms = 1
[[actor]]
name = "a"
steps = [{ acquire = "Q" }, { delay_ms = 5 }, { release = "Q" }, { acquire = "P" }, { release = "P" }]
[[actor]]
name = "b"
steps = [{ acquire = "P" }, { acquire = "Q" }, { release = "Q" }, { release = "P" }]
"#;
    let run = super::run_text(text, 0);
    let num = super::num;
    assert_eq!(num(run.metric("a.completed")), 1.0);
    assert_eq!(num(run.metric("b.completed")), 1.0);
    assert_eq!(num(run.metric("P.failed_attempts")), 1.0);
    assert_eq!(num(run.metric("makespan_ms")), 6.0);
}
