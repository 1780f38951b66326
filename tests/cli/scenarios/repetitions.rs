//! What ends an actor's repetitions: a crash — with a restart the next repetition starts; in
//! an open loop every repetition under way ends with it — a stop, in a closed loop and
//! in an open one, and an early exit (`end`).

use super::{num, run_text};

/// A crash followed by a restart: each repetition works 10 ms and crashes; the actor comes
/// back 5 ms later with its next one. Repetitions at 0, 15, 30 crash at 10, 25, 40: three
/// crashes, but only two restarts — at the third nothing is left to run, so the actor stays
/// down (nothing is counted or drawn past the run's end at 40); none completed.
#[test]
fn a_crash_with_a_restart_loses_the_repetition_and_starts_the_next() {
    let text = "model = \"scenario\"\n[[actor]]\nname = \"a\"\nrepeat = 3\nsteps = [{ delay_ms = 10 }, { crash = \"all\", restart_after_ms = 5 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("a.restarts")), 2.0);
    assert_eq!(num(run.metric("a.started")), 3.0);
    assert_eq!(num(run.metric("a.completed")), 0.0);
    assert_eq!(num(run.metric("a.crashed")), 3.0, "every crash counts");
    assert_eq!(run.entity("a", "outcome").to_string(), "crashed");
    // A restart keeps the locks its old self held: the next repetition's acquire waits
    // for good (a queue lock), and the run ends with it unfinished at 10.
    let held = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n[[actor]]\nname = \"a\"\nrepeat = 2\nsteps = [{ acquire = \"L\" }, { delay_ms = 10 }, { crash = \"all\", restart_after_ms = 5 }, { release = \"L\" }]\n";
    let run = run_text(held, 0);
    assert_eq!(num(run.metric("L.acquisitions")), 1.0);
    assert_eq!(
        num(run.metric("L.held_ms")),
        15.0,
        "held 0 → the run's end at 15"
    );
}

/// An open loop's repetitions overlap, and a crash ends them all. One actor starts every
/// 10 ms (6 times); a repetition waits 5 ms, crashes if it is repetition k = 1, waits 20 ms
/// more, then increments `r`. Repetition 0 (0 → 5 → 25) would write at 25, but its actor
/// crashed at 15 (repetition 1, started at 10): it writes nothing, and no start comes after.
/// So `r` stays 0: one crash, two repetitions started (0 and 1), none completed.
#[test]
fn a_crash_in_an_open_loop_ends_every_repetition_under_way() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\nevery_ms = 10\nrepeat = 6\nsteps = [{ delay_ms = 5 }, { if = { value = \"k\", equals = 1 }, then = [{ crash = \"all\" }] }, { delay_ms = 20 }, { read = \"r\" }, { write = \"r\", value = \"r + 1\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(
        num(run.metric("r.value")),
        0.0,
        "repetition 0 died with its actor"
    );
    assert_eq!(num(run.metric("a.crashed")), 1.0);
    assert_eq!(num(run.metric("a.started")), 2.0);
    assert_eq!(num(run.metric("a.completed")), 0.0);
    // Every repetition crashes at its 25th ms: repetition 0 at 25; repetitions 1 and 2
    // (started at 10 and 20) die with it, and the start due at 30 never comes. One crash,
    // not three.
    let each = "model = \"scenario\"\n[[actor]]\nname = \"a\"\nevery_ms = 10\nrepeat = 6\nsteps = [{ delay_ms = 25 }, { crash = \"all\" }]\n";
    let run = run_text(each, 0);
    assert_eq!(num(run.metric("a.crashed")), 1.0);
    assert_eq!(
        num(run.metric("a.started")),
        3.0,
        "starts at 0, 10, 20; none at 30"
    );
}

/// A stop ends the actor's repetitions, in a closed loop and in an open one. `w` repeats 5
/// times, every 10 ms in the open form, and stops at its third repetition (k = 2): 3 started
/// and completed, the last at 0 (closed: all at one instant) or 20 ms (open).
#[test]
fn a_stop_ends_the_actors_repetitions() {
    let closed = "model = \"scenario\"\n[[actor]]\nname = \"w\"\nrepeat = 5\nsteps = [{ if = { value = \"k\", equals = 2 }, then = [{ stop = true }] }, { delay_ms = 0 }]\n";
    let open = closed.replace("repeat = 5\n", "repeat = 5\nevery_ms = 10\n");
    for (text, end) in [(closed.to_string(), 0.0), (open, 20.0)] {
        let run = run_text(&text, 0);
        assert_eq!(
            (num(run.metric("w.started")), num(run.metric("w.completed"))),
            (3.0, 3.0),
            "{text}"
        );
        assert_eq!(num(run.metric("makespan_ms")), end, "{text}");
        assert_eq!(run.entity("w", "outcome").to_string(), "stopped");
    }
}

/// A repetition whose actor crashed while it waited ends with it: its timer, when it comes,
/// is no timeout. `a` starts a repetition every 10 ms, twice; the first (k = 0) asks `s`
/// for 100 ms of service with a 50 ms timeout; the second (k = 1, at 10 ms) crashes the
/// actor. The first's wait ends at the crash, so at 50 ms nothing times out: `a.timeouts`
/// and `s.timed_out` are 0. The server does not know: it serves the request 0–100 for
/// nobody, a wasted request of 100 ms.
#[test]
fn a_crashed_actors_waiting_repetition_does_not_time_out_later() {
    let text = r#"model = "scenario"
[[resource]]
name = "s"
kind = "server"
service_ms = 100
[[actor]]
name = "a"
repeat = 2
every_ms = 10
steps = [{ if = { value = "k", equals = 1 }, then = [{ crash = "all" }] }, { request = "s", timeout_ms = 50 }]
"#;
    let run = super::run_text(text, 0);
    let num = super::num;
    assert_eq!(num(run.metric("a.crashed")), 1.0);
    assert_eq!(num(run.metric("a.timeouts")), 0.0);
    assert_eq!(num(run.metric("s.timed_out")), 0.0);
    assert_eq!(num(run.metric("s.wasted_requests")), 1.0);
    assert_eq!(num(run.metric("s.wasted_ms")), 100.0);
}

/// An early exit: 5 repetitions read `r`; while it is 0 the repetition writes 1, asks the
/// server (2 ms) and ends there, completed (the second request never runs); once `r` is 1
/// it ends at once, given up. By hand: repetition 0 completes in 2 ms with one request;
/// repetitions 1 to 4 give up: 1 completed, 4 gave up, 1 request, 1 write.
#[test]
fn an_end_step_ends_the_repetition_completed_or_given_up() {
    let text = r#"model = "scenario"
[[resource]]
name = "r"
kind = "register"
[[resource]]
name = "s"
kind = "server"
service_ms = 2
[[actor]]
name = "c"
repeat = 5
steps = [
  { read = "r" },
  { if = { value = "r", at_least = 1 }, then = [{ end = "gave_up" }] },
  { write = "r", value = "read + 1" },
  { request = "s" },
  { end = true },
  { request = "s" },
]
"#;
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("c.started")), 5.0);
    assert_eq!(num(run.metric("c.completed")), 1.0);
    assert_eq!(num(run.metric("c.gave_up")), 4.0);
    assert_eq!(num(run.metric("s.requests")), 1.0);
    assert_eq!(num(run.metric("r.writes")), 1.0);
    assert_eq!(num(run.metric("c.max_response_ms")), 2.0);
    // `"completed"` says what `true` does.
    let same = run_text(
        &text.replace("{ end = true }", "{ end = \"completed\" }"),
        0,
    );
    assert_eq!(same.metrics, run.metrics);
    // Anything else is refused at its key, naming the two forms.
    let e = super::load_error(&text.replace("{ end = true }", "{ end = \"later\" }"));
    assert!(
        e.contains("steps[4].end") && e.contains("{ end = \"gave_up\" }"),
        "{e}"
    );
    let e =
        super::load_error(&text.replace("{ end = true }", "{ transaction = [{ end = true }] }"));
    assert!(
        e.contains("transaction[0].end") && e.contains("`end` waits or takes time"),
        "{e}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 32, ..Default::default() })]

    /// The steps after an `end` never run: a group whose repetition asks server `a` and
    /// ends has the metrics of one that only asks `a` (the group's and `a`'s), whatever the
    /// actors, repetitions and service time.
    #[test]
    fn the_steps_after_an_end_never_run(count in 1u32..4, repeat in 1u32..6, service in 1u32..9) {
        let config = |steps: &str| format!(
            "model = \"scenario\"\n[[resource]]\nname = \"a\"\nkind = \"server\"\nservice_ms = {service}\n[[resource]]\nname = \"b\"\nkind = \"server\"\nservice_ms = 1\n[[actor]]\nname = \"c\"\ncount = {count}\nrepeat = {repeat}\nsteps = {steps}\n"
        );
        let ended = run_text(&config(r#"[{ request = "a" }, { end = true }, { request = "b" }]"#), 0);
        let plain = run_text(&config(r#"[{ request = "a" }]"#), 0);
        for (name, cell) in &plain.metrics {
            if name.starts_with("a.") || name.starts_with("c.") {
                proptest::prop_assert_eq!(ended.metric(name), cell, "{}", name);
            }
        }
        proptest::prop_assert_eq!(num(ended.metric("b.requests")), 0.0);
    }
}
