//! Steps that finish at once go on by iteration: a million repetitions in one instant run in
//! one turn of the interpreter's loop each, never one stack frame each.

use super::{num, run_text};

/// One group of `repeat` repetitions that all run at 0 ms; its steps given.
fn at_one_instant(resources: &str, steps: &str, repeat: u64) -> String {
    format!(
        "model = \"scenario\"\n{resources}\n[[actor]]\nname = \"a\"\nrepeat = {repeat}\nsteps = {steps}\n"
    )
}

#[test]
fn a_million_steps_that_finish_at_once_run_in_one_instant_without_overflowing() {
    const N: u64 = 1_000_000;
    let down = "[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 1\ndown = [[0, 10]]\nwhen_down = \"fail\"";
    let store = "[[resource]]\nname = \"ks\"\nkind = \"keys\"\ninitial = [1]";
    let queue = "[[resource]]\nname = \"q\"\nkind = \"queue\"";
    let forms = [
        // A fail-fast server down at 0 refuses every request at once.
        (down, r#"[{ request = "s" }]"#, "s.refused"),
        (
            down,
            r#"[{ request = "s", timeout_ms = 5, on_timeout = { steps = [], then = "go_on" } }]"#,
            "s.refused",
        ),
        // A lookup, an if, a transaction: each done at once.
        (store, r#"[{ lookup = "ks", key = 1 }]"#, "a.completed"),
        (
            store,
            r#"[{ if = { value = "i", below = 3 }, then = [{ lookup = "ks", key = 1 }] }]"#,
            "a.completed",
        ),
        (
            store,
            r#"[{ transaction = [{ set = "ks", key = 1, value = "k" }] }]"#,
            "ks.updated",
        ),
        // A put, then a take that finds it at once.
        (queue, r#"[{ put = "q" }, { take = "q" }]"#, "q.taken"),
    ];
    for (resources, steps, metric) in forms {
        let text = at_one_instant(resources, steps, N);
        let run = run_text(&text, 1);
        assert_eq!(num(run.metric(metric)), N as f64, "{steps}");
        assert_eq!(num(run.metric("a.completed")), N as f64, "{steps}");
        assert_eq!(num(run.metric("makespan_ms")), 0.0, "{steps}: all at 0 ms");
    }
}

/// A give-up deadline is computed once, when the wait starts: `now` in it is the request's
/// instant, not each poll's (which would put the deadline ever out of reach).
#[test]
fn a_give_up_deadline_naming_now_is_fixed_when_the_wait_starts() {
    // The waiter asks at 1 ms: "now + 10" is 11 ms, a deadline of 1 + 11 = 12 ms. It polls
    // every 1 ms while the holder keeps the lock until 100 ms; the first failed attempt
    // later than 12 ms is at 13 ms, so it gives up having waited 13 - 1 = 12 ms.
    let text = r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
poll_ms = 1
[[actor]]
name = "holder"
steps = [{ acquire = "L" }, { delay_ms = 100 }, { release = "L" }]
[[actor]]
name = "waiter"
start_ms = 1
steps = [{ acquire = "L", give_up_after_ms = "now + 10" }]
"#;
    let run = run_text(text, 1);
    assert_eq!(num(run.metric("L.gave_up")), 1.0);
    assert_eq!(num(run.metric("L.gave_up_wait_ms")), 12.0);
    assert_eq!(num(run.metric("waiter.gave_up")), 1.0);
}
