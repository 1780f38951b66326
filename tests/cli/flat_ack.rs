//! Acks and a queue's visibility timeout in the flat back end, by hand: each count worked
//! out in the test's comment, each exploration checked to be the flat back end's (or, where
//! a message comes back to a waiting taker, the interpreter's, with the same figures).

use coordsim_model::{Engine, ExploreLimits, Reduction, Symmetry};

use crate::flat_engine::{executions_split, flat_alone, with};

/// A queue `V` with a visibility timeout of 100 ms and a producer of `puts` messages.
fn queue_and_producer(capacity: u32, puts: u32) -> String {
    format!(
        "model = \"scenario\"\n\
         [[resource]]\nname = \"V\"\nkind = \"queue\"\nvisibility_ms = 100\ncapacity = {capacity}\n\
         [[actor]]\nname = \"producer\"\nrepeat = {puts}\nsteps = [{{ put = \"V\", value = \"k\" }}]\n"
    )
}

/// A put, and a take and an ack, by hand, with no reduction. The take first: it waits
/// (1), the put hands it the message (2), the ack (3), the timer (4). The put first (1),
/// the take (2), the ack (3), the timer (4). The two executions meet nowhere (the worker
/// waited in one and not the other, a word its job keeps): 1 start + 2 × 4 = 9 states,
/// 8 transitions, 2 executions, both ending with the message acknowledged (`V.left` 0).
#[test]
fn the_flat_engine_counts_a_take_and_an_ack_by_hand() {
    let text = queue_and_producer(0, 1)
        + "[[actor]]\nname = \"worker\"\nsteps = [{ take = \"V\" }, { ack = \"V\" }]\n";
    let flat = flat_alone(&text, Reduction::Off);
    assert_eq!((flat.states, flat.transitions), (9, 8));
    assert_eq!(flat.executions, 2);
}

/// Two puts and a take with no ack, by hand, with no reduction: the take comes before the
/// first put (it waits and is handed the first message), between the puts, or after
/// both: 3 executions of 3 events, then the timer, at which the message taken comes back.
/// States: the start; after the first event, the put (a) or the waiting take (b); after
/// two, put-put (c), put-take (d), wait-put (e); after three, put-put-take (f),
/// put-take-put (g), wait-put-put (h); after the timer, f' and g' are one state (the same
/// message back at the front, the queue's greatest length 2 in both: f reached it at the
/// second put, g at the timer) and h' another (its taker waited). 1 + 2 + 3 + 3 + 2 = 11
/// states and 2 + 3 + 3 + 3 = 11 transitions.
#[test]
fn the_flat_engine_brings_a_message_back_by_hand() {
    let text =
        queue_and_producer(0, 2) + "[[actor]]\nname = \"worker\"\nsteps = [{ take = \"V\" }]\n";
    let flat = flat_alone(&text, Reduction::Off);
    assert_eq!((flat.states, flat.transitions), (11, 11));
    assert_eq!(flat.executions, 3);
}

/// A capacity of 1 with a visibility timeout, by hand, with no reduction: a message taken
/// is held until acknowledged, so the second put finds the queue full unless the ack came
/// before it. The take before the first put (it waits, and is handed it) or between the
/// puts: then the second put and the ack in either order (2 each, 1 of them refused);
/// the take after both puts: the second was refused (1). 5 executions, 3 with a refusal.
#[test]
fn the_flat_engine_holds_a_message_until_its_ack_by_hand() {
    let text = queue_and_producer(1, 2)
        + "[[actor]]\nname = \"worker\"\nsteps = [{ take = \"V\" }, { ack = \"V\" }]\n";
    let flat = flat_alone(&text, Reduction::Off);
    assert_eq!(flat.executions, 5);
    assert_eq!(executions_split(&flat), [2, 3]);
}

/// An ack with nothing to acknowledge (a second ack of the same take) is `not_held`, and a
/// write of what was taken reads its first delivery: one worker alone, 1 execution; `r`
/// ends 5 × 10 + 1 = 51; the same states, transitions and outcomes as the interpreter's.
#[test]
fn the_flat_engine_acks_nothing_held_as_the_interpreter() {
    let text = "model = \"scenario\"\n\
                [[resource]]\nname = \"V\"\nkind = \"queue\"\nvisibility_ms = 100\n\
                [[resource]]\nname = \"r\"\nkind = \"register\"\n\
                [[actor]]\nname = \"worker\"\nsteps = [{ put = \"V\", value = \"5\" }, \
                { take = \"V\" }, { write = \"r\", value = \"V * 10 + V.deliveries\" }, \
                { ack = \"V\" }, { ack = \"V\" }]\n";
    let flat = flat_alone(text, Reduction::Off);
    assert_eq!(flat.executions, 1);
    let limits = ExploreLimits {
        symmetry: Symmetry::Off,
        reduce: Reduction::Off,
        ..ExploreLimits::default()
    };
    let interpreted = with(text, limits, Engine::Interpret).swap_remove(0);
    assert_eq!(
        (interpreted.states, interpreted.transitions),
        (flat.states, flat.transitions)
    );
    assert_eq!(interpreted.outcomes, flat.outcomes);
    let metrics = format!("{:?}", flat.outcomes[0].metrics);
    assert!(metrics.contains("51"), "{metrics}");
}

/// A message that comes back at the timer to a taker waiting for one would run that
/// taker's steps after 0 ms, which the flat back end does not keep: the interpreter
/// explores the point (even under `--engine flat`), with the same figures as when asked.
/// One put, two takers with no ack: the one that got it ends, the other waits; at 100 ms
/// the message comes back to it.
#[test]
fn a_message_back_to_a_waiting_taker_is_the_interpreters() {
    let text = queue_and_producer(0, 1)
        + "[[actor]]\nname = \"worker\"\ncount = 2\nsteps = [{ take = \"V\" }]\n";
    let limits = ExploreLimits {
        symmetry: Symmetry::Off,
        ..ExploreLimits::default()
    };
    let mut flat = with(&text, limits, Engine::Flat).swap_remove(0);
    let interpreted = with(&text, limits, Engine::Interpret).swap_remove(0);
    assert_eq!(flat.engine, Engine::Interpret);
    flat.engine = Engine::Interpret;
    assert_eq!(flat, interpreted);
}

/// Two queues whose visibility timeouts differ (30 and 60 ms): a run takes the 30 ms timer,
/// then the 60 ms one; the flat back end keeps no clock, so it leaves the point to the
/// interpreter (it had offered both timers as free at once, and stopped on an internal
/// error). One actor puts, takes and acks on each: one order, 1 execution; the timers find
/// nothing unacknowledged.
#[test]
fn queues_with_different_visibility_timeouts_are_the_interpreters() {
    let text = "model = \"scenario\"\n\
                [[resource]]\nname = \"orders\"\nkind = \"queue\"\nvisibility_ms = 30\n\
                [[resource]]\nname = \"payments\"\nkind = \"queue\"\nvisibility_ms = 60\n\
                [[actor]]\nname = \"w\"\nsteps = [{ put = \"orders\" }, { put = \"payments\" }, \
                { take = \"orders\" }, { ack = \"orders\" }, { take = \"payments\" }, \
                { ack = \"payments\" }]\n";
    let limits = ExploreLimits {
        symmetry: Symmetry::Off,
        ..ExploreLimits::default()
    };
    let mut auto = with(text, limits, Engine::Auto).swap_remove(0);
    let interpreted = with(text, limits, Engine::Interpret).swap_remove(0);
    assert_eq!(auto.engine, Engine::Interpret);
    assert_eq!(interpreted.executions, 1);
    auto.engine = Engine::Interpret;
    assert_eq!(auto, interpreted);
}
