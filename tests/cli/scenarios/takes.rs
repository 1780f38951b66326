//! What a take binds: `Q`, `Q.id`, `Q.deliveries` and the fields are a snapshot of what the
//! take returned, whatever happens to the message afterwards.

use proptest::prelude::*;

use super::{num, run_text};

/// A slow consumer whose message comes back and is taken by another still reads its own
/// take's delivery count.
#[test]
fn a_slow_taker_keeps_the_delivery_count_its_take_saw() {
    // `a` takes the message at 1 ms (delivery 1); it comes back at 1 + 10 = 11 ms; `b` takes
    // it at 15 ms (delivery 2). At 21 ms `a` records its `jobs.deliveries`: its own take's
    // count, 1 → key 1 holds 1, and the `equals = 1` branch inserts key 2 with 10: total 11
    // (reading the live count would give 2 + 20 = 22).
    let text = r#"model = "scenario"
[[resource]]
name = "jobs"
kind = "queue"
visibility_ms = 10
[[resource]]
name = "rec"
kind = "keys"
[[actor]]
name = "prod"
steps = [{ put = "jobs", value = 7 }]
[[actor]]
name = "a"
start_ms = 1
steps = [
  { take = "jobs", timeout_ms = 5 },
  { delay_ms = 20 },
  { insert = "rec", key = 1, value = "jobs.deliveries" },
  { if = { value = "jobs.deliveries", equals = 1 }, then = [{ insert = "rec", key = 2, value = 10 }], else = [{ insert = "rec", key = 3, value = 20 }] },
  { ack = "jobs" },
]
[[actor]]
name = "b"
start_ms = 15
steps = [{ take = "jobs", timeout_ms = 5 }, { delay_ms = 2 }, { ack = "jobs" }]
"#;
    let run = run_text(text, 1);
    assert_eq!(num(run.metric("rec.total")), 11.0);
    assert_eq!(
        num(run.metric("jobs.redelivered")),
        1.0,
        "b's take is delivery 2"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// On random queues with visibility timeouts and slow, racing consumers, each actor's
    /// names after a delay equal what they were in the instant of its take: the same id,
    /// delivery count and value, recorded twice per take under one key (the take's own
    /// number, `i * 1000 + k`), so the two stores' totals agree exactly.
    #[test]
    fn every_name_a_take_binds_stays_what_that_take_returned(
        messages in 1u32..6,
        consumers in 1u32..5,
        reps in 1u32..4,
        visibility in 1u32..20,
        work in 0u32..40,
        ack_chance in 0.0f64..1.0,
        seed in 0u64..1000,
    ) {
        let text = format!(
            r#"model = "scenario"
[[resource]]
name = "q"
kind = "queue"
fields = ["f"]
visibility_ms = {visibility}
[[resource]]
name = "at_take"
kind = "keys"
[[resource]]
name = "later"
kind = "keys"
[[actor]]
name = "prod"
repeat = {messages}
steps = [{{ put = "q", value = "k * 3 + 1", fields = {{ f = "k + 100" }} }}, {{ delay_ms = 1 }}]
[[actor]]
name = "c"
count = {consumers}
repeat = {reps}
start_ms = "i"
steps = [
  {{ take = "q", timeout_ms = 30 }},
  {{ if = "taken", then = [
    {{ insert = "at_take", key = "i * 1000 + k", value = "q.deliveries * 1000000 + q.id * 1000 + q + q.f" }},
    {{ delay_ms = {work} }},
    {{ insert = "later", key = "i * 1000 + k", value = "q.deliveries * 1000000 + q.id * 1000 + q + q.f" }},
    {{ if = {{ chance = {ack_chance} }}, then = [{{ ack = "q" }}] }},
  ] }},
]
"#
        );
        let run = run_text(&text, seed);
        prop_assert_eq!(num(run.metric("at_take.inserted")), num(run.metric("later.inserted")));
        prop_assert_eq!(num(run.metric("at_take.total")), num(run.metric("later.total")));
    }
}

/// A timer left from a wait that ended does nothing, even at the very instant a later wait
/// of the same actor times out: that wait gives up at its own timer's place among the
/// instant's events. `a` asks S (served 0 → 2) with a 5 ms timeout, whose timer stays
/// pending at 5, then waits on Q from 2 with a 3 ms timeout (also due at 5). `b`'s delay,
/// scheduled at 0, ends at 5 too and puts on Q. At 5, by the order events were scheduled:
/// the old request timer (at 0) does nothing, `b`'s put (at 0) hands `a` the message, and
/// `a`'s take timer (at 2) finds its wait over. So `a` completes in 5 ms, nothing left on Q.
#[test]
fn a_timer_left_from_an_earlier_wait_gives_up_no_later_one() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 2\n\
        [[resource]]\nname = \"Q\"\nkind = \"queue\"\n\
        [[actor]]\nname = \"a\"\nsteps = [{ request = \"S\", timeout_ms = 5 }, { take = \"Q\", timeout_ms = 3 }]\n\
        [[actor]]\nname = \"b\"\nsteps = [{ delay_ms = 5 }, { put = \"Q\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("a.completed")), 1.0);
    assert_eq!(num(run.metric("a.gave_up")), 0.0);
    assert_eq!(num(run.metric("a.mean_response_ms")), 5.0);
    assert_eq!(num(run.metric("Q.left")), 0.0);
}
