//! What ends an actor's repetitions: a stop, in a closed loop and in an open one.

use super::{num, run_text};

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
