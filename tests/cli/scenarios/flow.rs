//! An `if` on an outcome the step before it can never leave is refused where it is written;
//! one a retry, a timeout that goes on or a refusal can bring there is accepted. What a step
//! can leave depends on its resources (a server that fails fast, a queue with a capacity, a
//! fenced register), on its timeout (`timeout_ms` or none), and on the outcome `if`s around
//! it.

use super::{num, run_text};

/// The resources every verdict's steps may use: `s` never fails fast, `f` does (down from 0
/// to 10 ms); `q` has no capacity, `bq` one; `r` is a plain register, `fr` one fenced by the
/// fencing lock `FL`.
const RESOURCES: &str = r#"[[resource]]
name = "s"
kind = "server"
service_ms = 1
[[resource]]
name = "f"
kind = "server"
service_ms = 1
down = [[0, 10]]
when_down = "fail"
[[resource]]
name = "L"
kind = "lock"
mode = "lease"
lease_ms = 5
[[resource]]
name = "FL"
kind = "lock"
fencing = true
[[resource]]
name = "q"
kind = "queue"
[[resource]]
name = "bq"
kind = "queue"
capacity = 1
[[resource]]
name = "ks"
kind = "keys"
[[resource]]
name = "r"
kind = "register"
[[resource]]
name = "fr"
kind = "register"
fenced_by = "FL"
"#;

/// The config's error, or "ok".
fn verdict(steps: &str) -> String {
    verdict_with("", steps)
}

/// The config's error, or "ok", with `head` (parameters, a sweep, more resources) first.
fn verdict_with(head: &str, steps: &str) -> String {
    let text = format!(
        "model = \"scenario\"\n{head}\n{RESOURCES}[[actor]]\nname = \"a\"\nsteps = {steps}\n"
    );
    match crate::harness::library_config(&crate::harness::registry(), "t.toml", &text) {
        Ok(_) => "ok".into(),
        Err(e) => e.to_string(),
    }
}

/// `verdict` refuses `steps` at an `if` on `outcome`.
fn refused_on(verdict: &str, steps: &str, outcome: &str) {
    assert!(
        verdict.contains(&format!("`{outcome}` can never be the outcome here"))
            && verdict.contains(".if"),
        "{steps}: {verdict}"
    );
}

#[test]
fn an_if_on_an_outcome_that_cannot_be_there_is_refused_at_the_if() {
    for (steps, outcome) in [
        // A request is served (or refused); it is never renewed.
        (
            r#"[{ request = "s" }, { if = "renewed", then = [] }]"#,
            "renewed",
        ),
        // `s` is never down: it never refuses.
        (
            r#"[{ request = "s" }, { if = "refused", then = [] }]"#,
            "refused",
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
        refused_on(&verdict(steps), steps, outcome);
    }
}

#[test]
fn an_if_on_an_outcome_some_path_brings_is_accepted() {
    for steps in [
        r#"[{ request = "f" }, { if = "refused", then = [] }]"#,
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

/// Each pair: steps whose `if` can never hold (refused at it), then the same with the one
/// change that lets it hold (accepted).
#[test]
fn what_a_step_can_leave_depends_on_its_resources_and_its_timeout() {
    for (never, can, outcome) in [
        // `on_timeout` with no `timeout_ms` runs only on a refusal, which `if` sees.
        (
            r#"[{ request = "f", on_timeout = { then = "go_on" } }, { if = "timed_out", then = [] }]"#,
            r#"[{ request = "f", timeout_ms = 5, on_timeout = { then = "go_on" } }, { if = "timed_out", then = [] }]"#,
            "timed_out",
        ),
        // A timeout's steps start with `timed_out`, and `refused` only at a server that
        // fails fast.
        (
            r#"[{ request = "s", timeout_ms = 5, on_timeout = { steps = [{ if = "refused", then = [] }] } }]"#,
            r#"[{ request = "f", timeout_ms = 5, on_timeout = { steps = [{ if = "refused", then = [] }] } }]"#,
            "refused",
        ),
        // A retried attempt starts with what its timeout had: the same rule.
        (
            r#"[{ if = "refused", then = [] }, { request = "s", timeout_ms = 5, on_timeout = { max_attempts = 2 } }]"#,
            r#"[{ if = "refused", then = [] }, { request = "f", timeout_ms = 5, on_timeout = { max_attempts = 2 } }]"#,
            "refused",
        ),
        (
            r#"[{ if = "timed_out", then = [] }, { request = "f", on_timeout = { max_attempts = 2 } }]"#,
            r#"[{ if = "timed_out", then = [] }, { request = "f", timeout_ms = 5, on_timeout = { max_attempts = 2 } }]"#,
            "timed_out",
        ),
        // A server picked by an expression: refused when any it may pick fails fast.
        (
            r#"[{ request = { one_of = ["s", "s"], index = "i" } }, { if = "refused", then = [] }]"#,
            r#"[{ request = { one_of = ["s", "f"], index = "i" } }, { if = "refused", then = [] }]"#,
            "refused",
        ),
        // A give-up ends the repetition: nothing after it sees `timed_out`.
        (
            r#"[{ acquire = "FL", give_up_after_ms = 5 }, { if = "timed_out", then = [] }, { release = "FL" }]"#,
            r#"[{ acquire = "FL", timeout_ms = 5, on_timeout = { then = "go_on" } }, { if = "timed_out", then = [] }]"#,
            "timed_out",
        ),
        // Only a queue with a capacity is ever full, for a put and a call.
        (
            r#"[{ put = "q" }, { if = "full", then = [] }]"#,
            r#"[{ put = "bq" }, { if = "full", then = [] }]"#,
            "full",
        ),
        (
            r#"[{ call = "q", timeout_ms = 1, on_timeout = { then = "go_on" } }, { if = "full", then = [] }]"#,
            r#"[{ call = "bq", timeout_ms = 1, on_timeout = { then = "go_on" } }, { if = "full", then = [] }]"#,
            "full",
        ),
        // Only a register fenced by a fencing lock rejects a write.
        (
            r#"[{ write = "r", value = 1 }, { if = "rejected", then = [] }]"#,
            r#"[{ write = "fr", value = 1 }, { if = "rejected", then = [] }]"#,
            "rejected",
        ),
        // A join fails only when more branches may give up than it can spare: with `wait =
        // "first"` both must, with every branch awaited (the default) one may.
        (
            r#"[{ parallel = [[{ request = "s", timeout_ms = 1 }], [{ request = "s" }]], wait = "first" }, { if = "failed", then = [] }]"#,
            r#"[{ parallel = [[{ request = "s", timeout_ms = 1 }], [{ request = "s" }]] }, { if = "failed", then = [] }]"#,
            "failed",
        ),
        (
            r#"[{ parallel = [[{ request = "s" }], [{ request = "s" }]] }, { if = "failed", then = [] }]"#,
            r#"[{ parallel = [[{ request = "s" }], [{ request = "s" }, { end = "gave_up" }]] }, { if = "failed", then = [] }]"#,
            "failed",
        ),
    ] {
        refused_on(&verdict(never), never, outcome);
        assert_eq!(verdict(can), "ok", "{can}");
    }
    // The refusal says which steps give the outcome.
    let why = verdict(r#"[{ request = "s" }, { if = "refused", then = [] }]"#);
    assert!(
        why.contains("ends with served (a request is refused only by a server with `down` windows and `when_down = \"fail\"`)"),
        "{why}"
    );
}

/// A `when_down` or a server chosen by a string parameter: an outcome is possible when it is
/// at some point of the sweep, so a parameter that never says "fail", or never picks the
/// server that does, makes the `if` impossible, and a sweep over both does not.
#[test]
fn a_parameter_makes_an_outcome_possible_when_some_point_of_the_sweep_does() {
    let server = "[[resource]]\nname = \"p\"\nkind = \"server\"\nservice_ms = 1\ndown = [[0, 10]]\nwhen_down = \"wd\"\n";
    let steps = r#"[{ request = "p" }, { if = "refused", then = [] }]"#;
    let never = verdict_with(&format!("[params]\nwd = \"wait\"\n{server}"), steps);
    refused_on(&never, steps, "refused");
    let can = verdict_with(
        &format!("[sweep]\nwd = [\"wait\", \"fail\"]\n{server}"),
        steps,
    );
    assert_eq!(can, "ok");
    let steps = r#"[{ request = { by = "to", plain = "s", failing = "f" } }, { if = "refused", then = [] }]"#;
    refused_on(
        &verdict_with("[params]\nto = \"plain\"\n", steps),
        steps,
        "refused",
    );
    assert_eq!(
        verdict_with("[sweep]\nto = [\"plain\", \"failing\"]\n", steps),
        "ok"
    );
}

/// An outcome `if` narrows what its branches see until their first step with an outcome:
/// its `then` sees only its own outcome, its `else` every other one; after it, the step
/// after sees both branches' again.
#[test]
fn an_outcome_if_limits_the_outcome_ifs_inside_it() {
    for (steps, outcome) in [
        (
            r#"[{ lookup = "ks", key = 1 }, { if = "found", then = [{ if = "missing", then = [] }] }]"#,
            "missing",
        ),
        (
            r#"[{ lookup = "ks", key = 1 }, { if = "found", then = [], else = [{ if = "found", then = [] }] }]"#,
            "found",
        ),
    ] {
        refused_on(&verdict(steps), steps, outcome);
    }
    // A put on `q` is always `put`: the `else` of an `if` on it never runs.
    let dead = verdict(
        r#"[{ put = "q" }, { if = "put", then = [], else = [{ if = "put", then = [] }] }]"#,
    );
    assert!(
        dead.contains("steps[1].else[0].if") && dead.contains("no path reaches it"),
        "{dead}"
    );
    for steps in [
        r#"[{ lookup = "ks", key = 1 }, { if = "found", then = [], else = [{ if = "missing", then = [] }] }]"#,
        r#"[{ lookup = "ks", key = 1 }, { if = "found", then = [{ insert = "ks", key = 2 }, { if = "duplicate", then = [] }] }]"#,
        r#"[{ lookup = "ks", key = 1 }, { if = "found", then = [] }, { if = "missing", then = [] }]"#,
        r#"[{ lookup = "ks", key = 1 }, { if = { chance = 0.5 }, then = [{ if = "found", then = [] }] }]"#,
    ] {
        assert_eq!(verdict(steps), "ok", "{steps}");
    }
    // And the run: key 0 is there, key 1 not. Repetition 0 finds key 0 and removes it (the
    // `then`); repetition 1 misses key 1, and the `else`'s `if` on `missing` inserts key 11
    // with 4. At the end: one removal, one insert, the store holds key 11 alone (total 4).
    let text = r#"model = "scenario"
[[resource]]
name = "ks"
kind = "keys"
initial = [[0, 3]]
[[actor]]
name = "a"
repeat = 2
steps = [
  { lookup = "ks", key = "k" },
  { if = "found", then = [{ remove = "ks", key = "k" }], else = [{ if = "missing", then = [{ insert = "ks", key = "k + 10", value = 4 }] }] },
]
"#;
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("ks.removed")), 1.0);
    assert_eq!(num(run.metric("ks.inserted")), 1.0);
    assert_eq!(num(run.metric("ks.size")), 1.0);
    assert_eq!(num(run.metric("ks.total")), 4.0);
}

/// The two reported configs, through `coordsim check`: each refused (exit 2) at its `if`,
/// with its line and column.
#[test]
fn an_impossible_refusal_or_timeout_is_refused_by_check_at_its_if() {
    let head =
        "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 5\n";
    let never_down = format!(
        "{head}[[actor]]\nname = \"a\"\nsteps = [\n  {{ request = \"S\" }},\n  {{ if = \"refused\", then = [] }},\n]\n"
    );
    let no_timeout = format!(
        "{head}down = [[0, 100]]\nwhen_down = \"fail\"\n[[actor]]\nname = \"a\"\nsteps = [\n  {{ request = \"S\", on_timeout = {{ then = \"go_on\" }} }},\n  {{ if = \"timed_out\", then = [] }},\n]\n"
    );
    super::mistakes::refused_at(&[
        (
            &never_down,
            "toml:10:10: actor[0].steps[1].if: `refused` can never be the outcome here, so this `if` never holds: the last step with an outcome before it ends with served",
        ),
        (
            &no_timeout,
            "toml:12:10: actor[0].steps[1].if: `timed_out` can never be the outcome here, so this `if` never holds: the last step with an outcome before it ends with served, refused",
        ),
    ]);
}
