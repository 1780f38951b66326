//! Locks waited for, given up, renewed and chosen: a given-up wait counts and a lock never
//! released is held to the end, a timeout that goes on branches on its outcome, a lease is
//! renewed only within its term, a lock chosen by an expression is the actor's own, and a
//! lock leaked by a give-up or a release of a lock not held is named.

use super::{num, run_text};

/// A wait that ends in a give-up is a wait, and a lock never released is held to the end.
/// `a` takes the queue lock L at 0 and never releases it; `b` asks at 10 and gives up at
/// 10 + 100 = 110, the run's last event. By hand: L held 0 → 110 = 110 ms; waits 0 (a) and
/// 100 (b): total 100, given up 100, mean 50; b's lock_wait_ms 100, a's 0.
#[test]
fn a_given_up_wait_counts_and_a_lock_never_released_is_held_to_the_end() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"a\"\nsteps = [{ acquire = \"L\" }]\n\
        [[actor]]\nname = \"b\"\nstart_ms = 10\nsteps = [{ acquire = \"L\", give_up_after_ms = 100 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("L.held_ms")), 110.0);
    assert_eq!(num(run.metric("L.total_wait_ms")), 100.0);
    assert_eq!(num(run.metric("L.gave_up_wait_ms")), 100.0);
    assert_eq!(num(run.metric("L.mean_wait_ms")), 50.0);
    assert_eq!(num(run.metric("L.gave_up")), 1.0);
    assert_eq!(num(run.entity("b", "lock_wait_ms")), 100.0);
    assert_eq!(num(run.entity("a", "lock_wait_ms")), 0.0);
    // Polled every 30 ms instead: b fails at 10, 40, 70, 100 and at 130 (> 110) gives up,
    // 120 ms after asking; the run ends at 130 with a still holding: held 130 ms.
    let polled = text.replace("mode = \"queue\"", "mode = \"poll\"\npoll_ms = 30");
    let run = run_text(&polled, 0);
    assert_eq!(num(run.metric("L.gave_up_wait_ms")), 120.0);
    assert_eq!(num(run.metric("L.held_ms")), 130.0);
    assert_eq!(num(run.metric("L.failed_attempts")), 5.0);
    assert_eq!(num(run.entity("b", "lock_wait_ms")), 120.0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 128, .. proptest::prelude::ProptestConfig::default() })]

    /// A queue lock waited for with a timeout that goes on, then a branch on the outcome:
    /// `h` holds L from 0 for `hold` ms; `w` asks at 0 with a timeout of `timeout` ms. At
    /// hold = timeout the release runs first (scheduled at 0, before the timeout), so w
    /// acquires iff hold ≤ timeout, and writes 1, else it times out at `timeout` and
    /// writes 2. Its wait: min(hold, timeout); given up only past the timeout.
    #[test]
    fn a_timeout_that_goes_on_and_a_branch_on_its_outcome_agree_with_the_closed_form(
        hold in 0u64..50, timeout in 0u64..50,
    ) {
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
             [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
             [[actor]]\nname = \"h\"\nsteps = [{{ acquire = \"L\" }}, {{ delay_ms = {hold} }}, {{ release = \"L\" }}]\n\
             [[actor]]\nname = \"w\"\nsteps = [{{ acquire = \"L\", timeout_ms = {timeout}, on_timeout = {{ then = \"go_on\" }} }}, \
             {{ if = \"acquired\", then = [{{ write = \"r\", value = 1 }}, {{ release = \"L\" }}], else = [{{ write = \"r\", value = 2 }}] }}]\n"
        );
        let s = run_text(&text, 0);
        let acquired = hold <= timeout;
        proptest::prop_assert_eq!(num(s.metric("r.value")), if acquired { 1.0 } else { 2.0 });
        proptest::prop_assert_eq!(num(s.metric("L.gave_up")), if acquired { 0.0 } else { 1.0 });
        proptest::prop_assert_eq!(num(s.metric("L.gave_up_wait_ms")), if acquired { 0.0 } else { timeout as f64 });
        proptest::prop_assert_eq!(num(s.entity("w", "lock_wait_ms")), hold.min(timeout) as f64);
        proptest::prop_assert_eq!(num(s.entity("w", "end_ms")), hold.min(timeout) as f64);
        proptest::prop_assert_eq!(num(s.metric("L.acquisitions")), if acquired { 2.0 } else { 1.0 });
    }

    /// A lease renewed within its term is kept, after it is lost: `a` takes the 100 ms
    /// lease at 0, works `d` ms and renews; it writes 1 when renewed, else 2.
    #[test]
    fn a_renewal_succeeds_exactly_within_the_lease(d in 50u64..150) {
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
             [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"lease\"\nlease_ms = 100\npoll_ms = 10\n\
             [[actor]]\nname = \"a\"\nsteps = [{{ acquire = \"L\" }}, {{ pause_ms = {d} }}, {{ renew = \"L\" }}, \
             {{ if = {{ outcome = \"renewed\" }}, then = [{{ write = \"r\", value = 1 }}], else = [{{ write = \"r\", value = 2 }}] }}, {{ release = \"L\" }}]\n\
             [[actor]]\nname = \"b\"\nstart_ms = 1\nsteps = [{{ acquire = \"L\" }}, {{ release = \"L\" }}]\n"
        );
        let s = run_text(&text, 0);
        proptest::prop_assert_eq!(num(s.metric("r.value")), if d <= 100 { 1.0 } else { 2.0 });
        // Past 100 ms b takes the lease over at its first poll after it (b polls at 1, 11,
        // …, 101): two holders then, one while renewed.
        proptest::prop_assert_eq!(num(s.metric("L.max_holders")), if d > 101 { 2.0 } else { 1.0 });
    }
}

/// A lock chosen per actor by an expression: actors 0, 1, 2, 3 of `w` take
/// `one_of = ["A", "B", "C"]` at `min(i, 2)`: A, B, C, C, each for 10 ms from 0. By hand:
/// A and B once with no wait; C twice, the second waiting 10 ms.
#[test]
fn a_lock_chosen_by_an_expression_is_the_actors_own() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"A\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[resource]]\nname = \"B\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[resource]]\nname = \"C\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"w\"\ncount = 4\nsteps = [{ acquire = { one_of = [\"A\", \"B\", \"C\"], index = \"min(i, 2)\" } }, { delay_ms = 10 }, { release = { one_of = [\"A\", \"B\", \"C\"], index = \"min(i, 2)\" } }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("A.acquisitions")), 1.0);
    assert_eq!(num(run.metric("B.acquisitions")), 1.0);
    assert_eq!(num(run.metric("C.acquisitions")), 2.0);
    assert_eq!(num(run.metric("C.total_wait_ms")), 10.0);
    assert_eq!(num(run.metric("makespan_ms")), 20.0);
    // An index past the list stops the run, naming the actor and the list.
    let bad = text.replace("min(i, 2)", "i");
    let config =
        crate::harness::library_config(&crate::harness::registry(), "t.toml", &bad).expect("loads");
    let err = config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, config.plan.limits))
        .expect_err("index 3 of a list of 3");
    assert!(
        err.to_string()
            .contains("actor 3 of `w`: a `one_of` index is 3"),
        "{err}"
    );
}

/// A lock leaked by a give-up: the second acquire gives up without releasing the first lock, and the
/// next repetition asks for the lock its actor still holds. It would wait for itself for
/// good; the run stops and says which lock, when, and how to release it. With each timeout
/// releasing the first lock, by hand: at 150 left times out first (it asked first, at 50)
/// and releases A, which goes to right; left's second repetition asks for A at once and
/// queues. right is done at 160, handing A to left and starting again with B. At 210 both
/// ask for the other's lock again (right first); at 310 right times out first and releases
/// B, which goes to left, done at 320. Each completes one repetition and gives one up.
#[test]
fn a_lock_leaked_by_a_give_up_is_named_when_its_holder_asks_again() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"A\"\nkind = \"lock\"\nmode = \"queue\"\n[[resource]]\nname = \"B\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"left\"\nrepeat = 2\nsteps = [{ acquire = \"A\" }, { delay_ms = 50 }, { acquire = \"B\", give_up_after_ms = 100 }, { delay_ms = 10 }, { release = \"B\" }, { release = \"A\" }]\n\
        [[actor]]\nname = \"right\"\nrepeat = 2\nsteps = [{ acquire = \"B\" }, { delay_ms = 50 }, { acquire = \"A\", give_up_after_ms = 100 }, { delay_ms = 10 }, { release = \"A\" }, { release = \"B\" }]\n";
    let config =
        crate::harness::library_config(&crate::harness::registry(), "t.toml", text).expect("loads");
    let err = config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, config.plan.limits))
        .expect_err("left asks for A again at 150, holding it");
    assert!(
        err.to_string()
            .contains("actor 0 of `left` acquires `A` at 150 ms, which it holds already"),
        "{err}"
    );
    let fixed = text
        .replace(
            "{ acquire = \"B\", give_up_after_ms = 100 }",
            "{ acquire = \"B\", timeout_ms = 100, on_timeout = { steps = [{ release = \"A\" }] } }",
        )
        .replace(
            "{ acquire = \"A\", give_up_after_ms = 100 }",
            "{ acquire = \"A\", timeout_ms = 100, on_timeout = { steps = [{ release = \"B\" }] } }",
        );
    let run = run_text(&fixed, 0);
    for g in ["left", "right"] {
        assert_eq!(num(run.metric(&format!("{g}.gave_up"))), 1.0, "{g}");
        assert_eq!(num(run.metric(&format!("{g}.completed"))), 1.0, "{g}");
    }
    assert_eq!(num(run.metric("makespan_ms")), 320.0);
    assert_eq!(num(run.metric("A.left")) + num(run.metric("B.left")), 0.0);
}

/// A release that frees nothing is a mistake in the steps, named with its actor and time:
/// actor 0 takes A (index i = 0) and releases B (index 1 − i = 1), which it never took; so
/// does actor 1 the other way round. Each takes its lock at 0 and releases at 10.
#[test]
fn a_release_of_a_lock_not_held_is_named() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"A\"\nkind = \"lock\"\n[[resource]]\nname = \"B\"\nkind = \"lock\"\n\
        [[actor]]\nname = \"w\"\ncount = 2\nsteps = [{ acquire = { one_of = [\"A\", \"B\"], index = \"i\" } }, { delay_ms = 10 }, { release = { one_of = [\"A\", \"B\"], index = \"1 - i\" } }]\n";
    let config =
        crate::harness::library_config(&crate::harness::registry(), "t.toml", text).expect("loads");
    let err = config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, config.plan.limits))
        .expect_err("actor 0 releases B, which it never took");
    assert!(
        err.to_string()
            .contains("actor 0 of `w` releases `B` at 10 ms, which it does not hold"),
        "{err}"
    );
    // The same steps with the right index run: both locks free at the end.
    let run = run_text(&text.replace("\"1 - i\"", "\"i\""), 0);
    assert_eq!(num(run.metric("w.completed")), 2.0);
    assert_eq!(num(run.metric("A.left")) + num(run.metric("B.left")), 0.0);
}

/// A queue lock's acquire that finds it taken joins its queue: a wait, not a failed attempt
/// (as the built-in `lock_queue`'s queue mode counts no rounds); only a polled lock's (or a
/// lease's) tries fail. Three actors ask the queue lock Q at 0, each holding it 10 ms: `q-0`
/// takes it, `q-1` and `q-2` are handed it at 10 and 20 — no failed attempt, waits 0, 10, 20
/// (mean 10). Two ask the polled P (every 4 ms) at 0: `p-1` fails at 0, 4 and 8 and takes
/// it at 12, after `p-0`'s release at 10 — 3 failed attempts, waits 0 and 12 (mean 6).
#[test]
fn a_queue_locks_acquire_that_finds_it_taken_is_no_failed_attempt() {
    let text = r#"model = "scenario"
[[resource]]
name = "Q"
kind = "lock"
mode = "queue"
[[resource]]
name = "P"
kind = "lock"
poll_ms = 4
[[actor]]
name = "q"
count = 3
steps = [{ acquire = "Q" }, { delay_ms = 10 }, { release = "Q" }]
[[actor]]
name = "p"
count = 2
steps = [{ acquire = "P" }, { delay_ms = 10 }, { release = "P" }]
"#;
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("Q.failed_attempts")), 0.0);
    assert_eq!(num(run.metric("Q.acquisitions")), 3.0);
    assert_eq!(num(run.metric("Q.mean_wait_ms")), 10.0);
    for actor in ["q-0", "q-1", "q-2"] {
        assert_eq!(num(run.entity(actor, "failed_attempts")), 0.0, "{actor}");
    }
    assert_eq!(num(run.metric("P.failed_attempts")), 3.0);
    assert_eq!(num(run.metric("P.mean_wait_ms")), 6.0);
    assert_eq!(num(run.entity("p-1", "failed_attempts")), 3.0);
    assert_eq!(num(run.entity("p-0", "failed_attempts")), 0.0);
}

/// An acquire, a take or a send served at once arms no timer: its `timeout_ms` is never
/// due. A wait that did wait armed one, which still fires at its deadline after the wait
/// ended, and is the run's last event; so does a request's, even refused at once. The lock
/// L is never released, so `L.held_ms` runs to the run's last event and shows which timers
/// were armed.
///
/// At once: `p` puts at 0; `c` at 1 takes the free L and the waiting message, sends across
/// a 2 ms round trip (delivered at 2) and ends holding L. No timer: the last event is the
/// delivery at 2, L held 1 → 2 = 1 ms (with a timer it would be 1000, 500 or 300 ms more).
/// Waited: `h` holds L from 0 to 10 and `p` puts at 20; `c` asks at 1 (its timer due at
/// 1 + 1000 = 1001), is handed L at 10 and waits for a message from 10 (due at 10 + 500 =
/// 510), takes it at 20, is delivered at 21 and ends (response 20 ms). Both timers fire,
/// finding nothing: the last event is at 1001, and L was held 0 → 10 by h and 10 → 1001 by
/// c: 1001 ms. Refused: `c` takes L at 0 and asks S, down and failing fast: refused at
/// once, its `timeout_ms` alone gives up; the timer armed at 0 fires at 1000: L held 1000.
#[test]
fn a_wait_served_at_once_arms_no_timer() {
    let at_once = r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
mode = "queue"
[[resource]]
name = "q"
kind = "queue"
[[resource]]
name = "n"
kind = "link"
rtt_ms = 2
[[actor]]
name = "p"
steps = [{ put = "q" }]
[[actor]]
name = "c"
start_ms = 1
steps = [{ acquire = "L", timeout_ms = 1000 }, { take = "q", timeout_ms = 500 }, { send = "n", timeout_ms = 300 }]
"#;
    let run = run_text(at_once, 0);
    assert_eq!(num(run.metric("c.completed")), 1.0);
    assert_eq!(num(run.metric("c.timeouts")), 0.0);
    assert_eq!(num(run.metric("L.left")), 1.0);
    assert_eq!(num(run.metric("L.held_ms")), 1.0);
    let waited = at_once
        .replace(
            "[[actor]]\nname = \"p\"\n",
            "[[actor]]\nname = \"h\"\nsteps = [{ acquire = \"L\" }, { delay_ms = 10 }, { release = \"L\" }]\n[[actor]]\nname = \"p\"\nstart_ms = 20\n",
        );
    let run = run_text(&waited, 0);
    assert_eq!(num(run.metric("c.completed")), 1.0);
    assert_eq!(num(run.metric("c.timeouts")), 0.0);
    assert_eq!(num(run.metric("c.max_response_ms")), 20.0);
    assert_eq!(num(run.metric("L.held_ms")), 1001.0);
    let refused = r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
[[resource]]
name = "S"
kind = "server"
service_ms = 5
down = [[0, 100]]
when_down = "fail"
[[actor]]
name = "c"
steps = [{ acquire = "L" }, { request = "S", timeout_ms = 1000 }]
"#;
    let run = run_text(refused, 0);
    assert_eq!(num(run.metric("S.refused")), 1.0);
    assert_eq!(num(run.metric("c.gave_up")), 1.0);
    assert_eq!(num(run.metric("L.held_ms")), 1000.0);
}
