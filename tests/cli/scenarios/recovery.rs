//! Scenarios that fail and recover (issue 21): waits that end in a give-up, timeouts with
//! their steps and retries, branches, faults and leases, resources chosen by a parameter.
//! Each figure is derived by hand in a comment, or by a small reference written here.

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
