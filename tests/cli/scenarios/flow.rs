//! An `if` on an outcome the step before it can never leave is refused where it is written;
//! one a retry, a timeout that goes on or a refusal can bring there is accepted.

use super::{num, run_text};

/// The config's error, or "ok".
fn verdict(steps: &str) -> String {
    let text = format!(
        r#"model = "scenario"
[[resource]]
name = "s"
kind = "server"
service_ms = 1
[[resource]]
name = "L"
kind = "lock"
mode = "lease"
lease_ms = 5
[[resource]]
name = "q"
kind = "queue"
[[resource]]
name = "ks"
kind = "keys"
[[actor]]
name = "a"
steps = {steps}
"#
    );
    match crate::harness::library_config(&crate::harness::registry(), "t.toml", &text) {
        Ok(_) => "ok".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn an_if_on_an_outcome_that_cannot_be_there_is_refused_at_the_if() {
    for (steps, outcome) in [
        // A request is served (or refused); it is never renewed.
        (
            r#"[{ request = "s" }, { if = "renewed", then = [] }]"#,
            "renewed",
        ),
        // A take without a timeout cannot time out.
        (
            r#"[{ take = "q" }, { if = { outcome = "timed_out" }, then = [] }]"#,
            "timed_out",
        ),
        // A delay has no outcome: the lookup before it is the last that has one.
        (
            r#"[{ lookup = "ks", key = 1 }, { delay_ms = 1 }, { if = "inserted", then = [] }]"#,
            "inserted",
        ),
        // Nothing yet in the repetition: only `none`.
        (r#"[{ if = "acquired", then = [] }]"#, "acquired"),
    ] {
        let err = verdict(steps);
        assert!(
            err.contains(&format!("`{outcome}` can never be the outcome here"))
                && err.contains(".if"),
            "{steps}: {err}"
        );
    }
}

#[test]
fn an_if_on_an_outcome_some_path_brings_is_accepted() {
    for steps in [
        r#"[{ request = "s" }, { if = "refused", then = [] }]"#,
        r#"[{ acquire = "L" }, { renew = "L" }, { if = "lost", then = [] }, { release = "L" }]"#,
        // A timeout that goes on leaves `timed_out`, or what its own steps leave.
        r#"[{ take = "q", timeout_ms = 1, on_timeout = { then = "go_on" } }, { if = "timed_out", then = [] }]"#,
        r#"[{ take = "q", timeout_ms = 1, on_timeout = { steps = [{ lookup = "ks", key = 1 }], then = "go_on" } }, { if = "missing", then = [] }]"#,
        // Either branch's outcome reaches the step after an `if`.
        r#"[{ if = { chance = 0.5 }, then = [{ put = "q" }], else = [{ insert = "ks", key = 1 }] }, { if = "duplicate", then = [] }]"#,
        // A retried attempt starts with the outcome its timeout left.
        r#"[{ if = "timed_out", then = [] }, { take = "q", timeout_ms = 1, on_timeout = { max_attempts = 2 } }]"#,
    ] {
        assert_eq!(verdict(steps), "ok", "{steps}");
    }
}

#[test]
fn a_retried_attempt_sees_the_outcome_its_timeout_left() {
    // No message ever comes: attempt 1 times out at 1 ms, attempt 2 starts with the outcome
    // `timed_out` and so inserts key 1 (value 5); attempt 2 times out at 2 ms and is the
    // last of 2: the repetition gives up. Total 5, one give-up.
    let text = r#"model = "scenario"
[[resource]]
name = "q"
kind = "queue"
[[resource]]
name = "ks"
kind = "keys"
[[actor]]
name = "a"
steps = [
  { if = "timed_out", then = [{ insert = "ks", key = 1, value = 5 }] },
  { take = "q", timeout_ms = 1, on_timeout = { max_attempts = 2 } },
]
"#;
    let run = run_text(text, 1);
    assert_eq!(num(run.metric("ks.total")), 5.0);
    assert_eq!(num(run.metric("a.gave_up")), 1.0);
}
