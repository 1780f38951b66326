//! Messages on queues: a take waits for a put across the queue's link or times out, a
//! consumer that dies before its ack gets the message again, a transaction lands whole or
//! not at all, a full queue refuses (a link's duplicate too) and a link loses or duplicates
//! — and on random queues every message is accounted for.

use proptest::prelude::*;

use super::{num, run_text, run_within_estimate};

/// A take waits for a put; a message crosses its queue's link (half the round trip); a
/// take with nothing to take times out. `p` puts 7 at 10 ms across a 20 ms round trip: it
/// arrives at 20. `c` asks at 0 and takes it at 20 (response 20 ms), its value 7 and id 1
/// written to `got`; `late` asks at 0 with a 5 ms timeout and gives up at 5.
#[test]
fn a_take_waits_for_a_put_across_the_link_and_times_out_alone() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 20\n\
        [[resource]]\nname = \"q\"\nkind = \"queue\"\nlink = \"net\"\n\
        [[resource]]\nname = \"got\"\nkind = \"register\"\n\
        [[actor]]\nname = \"p\"\nstart_ms = 10\nsteps = [{ put = \"q\", value = 7 }]\n\
        [[actor]]\nname = \"c\"\nsteps = [{ take = \"q\" }, { write = \"got\", value = \"q * 10 + q.id\" }]\n\
        [[actor]]\nname = \"late\"\nsteps = [{ take = \"q\", timeout_ms = 5 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("got.value")), 71.0);
    assert_eq!(num(run.entity("c", "end_ms")), 20.0);
    assert_eq!(num(run.metric("late.gave_up")), 1.0);
    assert_eq!(num(run.entity("late", "end_ms")), 5.0);
    assert_eq!(num(run.metric("net.crossings")), 1.0);
    // With `late` first in line (no timeout), the message is its: FIFO among takers.
    let first = text.replace("{ take = \"q\", timeout_ms = 5 }", "{ take = \"q\" }");
    let first = first.replace(
        "[[actor]]\nname = \"c\"",
        "[[actor]]\nname = \"c\"\nstart_ms = 1",
    );
    let run = run_text(&first, 0);
    assert_eq!(num(run.metric("late.completed")), 1.0);
    assert_eq!(num(run.metric("got.value")), 0.0, "c still waits");
    assert_eq!(run.entity("c", "outcome").to_string(), "unfinished");
}

/// At-least-once: a consumer that crashes after its effect and before its ack processes
/// the message twice. One message; the consumer takes it at 0, adds 1 to `effects`, and
/// crashes (restarting after 50 ms); the message comes back at its 30 ms visibility and is
/// taken again at the restart, 50: effects 2, one redelivery, one return, acked once.
#[test]
fn a_consumer_that_dies_before_its_ack_processes_the_message_twice() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"q\"\nkind = \"queue\"\nvisibility_ms = 30\n\
        [[resource]]\nname = \"effects\"\nkind = \"register\"\n\
        [[actor]]\nname = \"p\"\nsteps = [{ put = \"q\" }]\n\
        [[actor]]\nname = \"c\"\nrepeat = 2\nsteps = [{ take = \"q\", timeout_ms = 100 }, { read = \"effects\" }, { write = \"effects\", value = \"effects + 1\" }, { if = { value = \"k\", equals = 0 }, then = [{ crash = \"all\", restart_after_ms = 50 }] }, { ack = \"q\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("effects.value")), 2.0);
    for (metric, expected) in [
        ("q.taken", 2.0),
        ("q.redelivered", 1.0),
        ("q.returned", 1.0),
        ("q.acked", 1.0),
        ("q.left", 0.0),
    ] {
        assert_eq!(num(run.metric(metric)), expected, "{metric}");
    }
    assert_eq!(num(run.entity("c", "end_ms")), 50.0);
    // Deduplicating by message id in one transaction with the effect: applied once.
    let dedup = text
        .replace(
            "[[actor]]\nname = \"p\"",
            "[[resource]]\nname = \"seen\"\nkind = \"keys\"\n[[actor]]\nname = \"p\"",
        )
        .replace(
            "{ read = \"effects\" }, { write = \"effects\", value = \"effects + 1\" }",
            "{ transaction = [{ insert = \"seen\", key = \"q.id\" }, { if = \"inserted\", then = [{ read = \"effects\" }, { write = \"effects\", value = \"effects + 1\" }] }] }",
        );
    let run = run_text(&dedup, 0);
    assert_eq!(num(run.metric("effects.value")), 1.0, "{dedup}");
    assert_eq!(
        (
            num(run.metric("seen.inserted")),
            num(run.metric("seen.duplicates"))
        ),
        (1.0, 1.0)
    );
}

/// A transaction lands together or not at all: a crash inside it undoes its write, its
/// insert and its put. `a` writes 5, inserts key 1 and puts a message, then crashes inside
/// the transaction: nothing of it is there. `b` does the same without the crash: all of it.
#[test]
fn a_crash_inside_a_transaction_lands_nothing() {
    let tx = |crash: &str| {
        format!(
            "{{ transaction = [{{ write = \"r\", value = 5 }}, {{ insert = \"ks\", key = 1 }}, {{ put = \"q\" }}{crash}] }}"
        )
    };
    let text = |crash: &str| {
        format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"r\"\nkind = \"register\"\n\
             [[resource]]\nname = \"ks\"\nkind = \"keys\"\n\
             [[resource]]\nname = \"q\"\nkind = \"queue\"\n\
             [[actor]]\nname = \"a\"\nsteps = [{}]\n",
            tx(crash)
        )
    };
    let run = run_text(&text(", { crash = \"all\" }"), 0);
    for (metric, expected) in [
        ("r.value", 0.0),
        ("r.writes", 0.0),
        ("ks.size", 0.0),
        ("ks.inserted", 0.0),
        ("q.put", 0.0),
        ("q.left", 0.0),
        ("a.crashed", 1.0),
    ] {
        assert_eq!(num(run.metric(metric)), expected, "{metric}");
    }
    let run = run_text(&text(""), 0);
    for (metric, expected) in [
        ("r.value", 5.0),
        ("ks.size", 1.0),
        ("q.put", 1.0),
        ("q.left", 1.0),
    ] {
        assert_eq!(num(run.metric(metric)), expected, "{metric}");
    }
}

/// A full queue refuses a put (outcome `full`); a link may lose or duplicate a message.
/// Capacity 2 and three puts: the third is refused, and its `if = "full"` writes 1. Across a
/// link that loses everything: nothing arrives; one that duplicates everything: each put
/// arrives twice, with one id.
#[test]
fn a_full_queue_refuses_and_a_link_loses_or_duplicates() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"q\"\nkind = \"queue\"\ncapacity = 2\n\
        [[resource]]\nname = \"saw_full\"\nkind = \"register\"\n\
        [[actor]]\nname = \"p\"\nrepeat = 3\nsteps = [{ put = \"q\" }, { if = \"full\", then = [{ write = \"saw_full\", value = 1 }] }]\n";
    let run = run_text(text, 0);
    assert_eq!(
        (
            num(run.metric("q.put")),
            num(run.metric("q.refused")),
            num(run.metric("saw_full.value"))
        ),
        (2.0, 1.0, 1.0)
    );
    let link = |key: &str| {
        format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 2\n{key} = 1\n\
             [[resource]]\nname = \"q\"\nkind = \"queue\"\nlink = \"net\"\n\
             [[resource]]\nname = \"ids\"\nkind = \"keys\"\n\
             [[actor]]\nname = \"p\"\nrepeat = 3\nsteps = [{{ put = \"q\" }}]\n\
             [[actor]]\nname = \"c\"\nrepeat = 6\nsteps = [{{ take = \"q\", timeout_ms = 10 }}, {{ if = \"taken\", then = [{{ insert = \"ids\", key = \"q.id\" }}] }}]\n"
        )
    };
    let run = run_text(&link("loss"), 0);
    assert_eq!(
        (num(run.metric("q.lost")), num(run.metric("q.taken"))),
        (3.0, 0.0)
    );
    let run = run_text(&link("duplicate"), 0);
    assert_eq!(
        (
            num(run.metric("q.duplicated")),
            num(run.metric("q.taken")),
            num(run.metric("ids.inserted")),
            num(run.metric("ids.duplicates"))
        ),
        (3.0, 6.0, 3.0, 3.0)
    );
}

/// A link's copy that finds the queue full is refused like any put. Capacity 1, a link that
/// duplicates every put (10 ms round trip), three puts at 0: the first is put and its copy
/// refused; the second and third find the queue full. So 1 put, 3 refused, no copy let in,
/// at most 1 message visible, and the consumer (from 20 ms) takes 1.
#[test]
fn a_duplicate_that_finds_the_queue_full_is_refused() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 10\nduplicate = 1\n\
         [[resource]]\nname = \"q\"\nkind = \"queue\"\ncapacity = 1\nlink = \"net\"\n\
         [[actor]]\nname = \"p\"\nrepeat = 3\nsteps = [{ put = \"q\" }]\n\
         [[actor]]\nname = \"c\"\nstart_ms = 20\nrepeat = 10\nsteps = [{ take = \"q\", timeout_ms = 1, on_timeout = { steps = [{ stop = true }] } }]\n";
    let run = run_text(text, 0);
    for (metric, expected) in [
        ("q.put", 1.0),
        ("q.refused", 3.0),
        ("q.duplicated", 0.0),
        ("q.max_len", 1.0),
        ("q.taken", 1.0),
    ] {
        assert_eq!(num(run.metric(metric)), expected, "{metric}");
    }
    // Capacity 2: the first put and its copy fit, the other two are refused.
    let run = run_text(&text.replace("capacity = 1", "capacity = 2"), 0);
    for (metric, expected) in [
        ("q.put", 1.0),
        ("q.refused", 2.0),
        ("q.duplicated", 1.0),
        ("q.max_len", 2.0),
        ("q.taken", 2.0),
    ] {
        assert_eq!(num(run.metric(metric)), expected, "{metric}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// Messages are conserved on random queues: producers putting at random times, across a
    /// link that loses and duplicates or none, into a queue with or without a capacity and
    /// a visibility timeout; consumers that crash (inside a transaction with the ack, or
    /// between the effect and the ack) and restart. Every message made (put, or a link's
    /// copy) is lost, gone (acknowledged; without a visibility timeout, taken) or left at
    /// the end; a refused put or copy makes none; each redelivery is a take of a message taken
    /// before. And every run stays within its own estimate of events.
    #[test]
    fn messages_are_conserved_on_random_queues(
        producers in 1u64..4, puts in 1u64..15, gap in 0u64..5,
        capacity in 0u64..8, visibility in proptest::option::of(1u64..30),
        link in proptest::option::of((0u64..20, 0u64..50, 0u64..50)),
        consumers in 1u64..4, takes in 1u64..30, timeout in 0u64..40, work in 0u64..5,
        crash in 0u64..60, in_tx in proptest::bool::ANY, seed in 0u64..1000,
    ) {
        let mut text = String::from("model = \"scenario\"\n");
        let link_key = if let Some((rtt, loss, dup)) = link {
            text += &format!(
                "[[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = {rtt}\nloss = {}\nduplicate = {}\n",
                loss as f64 / 100.0,
                dup as f64 / 100.0
            );
            "link = \"net\"\n"
        } else {
            ""
        };
        let vis = visibility.map_or(String::new(), |v| format!("visibility_ms = {v}\n"));
        text += &format!(
            "[[resource]]\nname = \"q\"\nkind = \"queue\"\ncapacity = {capacity}\nfields = [\"n\"]\n{vis}{link_key}\
             [[resource]]\nname = \"seen\"\nkind = \"keys\"\n\
             [[actor]]\nname = \"p\"\ncount = {producers}\nrepeat = {puts}\nsteps = [{{ put = \"q\", value = \"k\", fields = {{ n = \"i\" }} }}, {{ delay_ms = {gap} }}]\n"
        );
        let ack = if visibility.is_some() { ", { ack = \"q\" }" } else { "" };
        let crash = format!("{{ crash = {{ probability = {} }}, restart_after_ms = 7 }}", crash as f64 / 100.0);
        let body = if in_tx {
            format!("{{ transaction = [{{ insert = \"seen\", key = \"q.id\" }}, {crash}{ack}] }}")
        } else {
            format!("{{ insert = \"seen\", key = \"q.id\" }}, {crash}{ack}")
        };
        text += &format!(
            "[[actor]]\nname = \"c\"\ncount = {consumers}\nrepeat = {takes}\nsteps = [{{ take = \"q\", timeout_ms = {timeout}, on_timeout = {{ then = \"end\" }} }}, {{ delay_ms = {work} }}, {body}]\n"
        );
        let s = run_within_estimate(&text, seed);
        let m = |n: &str| num(s.metric(n));
        let or0 = |n: &str| s.metrics.iter().find(|(k, _)| k == n).map_or(0.0, |(_, c)| num(c));
        let made = m("q.put") + or0("q.duplicated");
        let gone = if visibility.is_some() { m("q.acked") } else { m("q.taken") };
        prop_assert_eq!(made, or0("q.lost") + gone + m("q.left"), "{}", text);
        // Every put either made a message or was refused; so was every link's copy, at most
        // one a message put (a copy a full queue refused is counted in `q.refused`).
        let refused_copies = m("q.put") + or0("q.refused") - (producers * puts) as f64;
        prop_assert!((0.0..=m("q.put")).contains(&refused_copies), "{}", text);
        if link.is_none_or(|(_, _, dup)| dup == 0) {
            prop_assert_eq!(refused_copies, 0.0, "{}", text);
        }
        // A redelivery is a take of a message taken before: at most the takes less the
        // messages ever taken once.
        prop_assert!(m("q.redelivered") <= m("q.taken"), "{}", text);
        if visibility.is_none() {
            prop_assert_eq!(m("q.redelivered"), 0.0, "{}", text);
        }
    }
}

/// A put refused as full inside a transaction counts in `Q.refused` when the transaction
/// lands, like everything in it: one whose actor crashes in it counts nothing. `fill` puts
/// the one message Q holds at 0. At 1, `t`'s transaction puts (`full`), inserts key 1 on
/// it, and crashes: nothing lands. At 2, `u`'s does the same without the crash and lands:
/// its refusal and its key 2 (value 2). By hand: Q.refused 1, Q.put 1, the store holds key
/// 2 alone (total 2), t crashed once.
#[test]
fn a_full_put_in_a_transaction_that_crashes_is_not_counted() {
    let text = r#"model = "scenario"
[[resource]]
name = "Q"
kind = "queue"
capacity = 1
[[resource]]
name = "ks"
kind = "keys"
[[actor]]
name = "fill"
steps = [{ put = "Q" }]
[[actor]]
name = "t"
start_ms = 1
steps = [{ transaction = [{ put = "Q" }, { if = "full", then = [{ insert = "ks", key = 1, value = 1 }] }, { crash = "all" }] }]
[[actor]]
name = "u"
start_ms = 2
steps = [{ transaction = [{ put = "Q" }, { if = "full", then = [{ insert = "ks", key = 2, value = 2 }] }] }]
"#;
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("Q.refused")), 1.0);
    assert_eq!(num(run.metric("Q.put")), 1.0);
    assert_eq!(num(run.metric("ks.total")), 2.0);
    assert_eq!(num(run.metric("ks.size")), 1.0);
    assert_eq!(num(run.metric("t.crashed")), 1.0);
    assert_eq!(num(run.metric("u.completed")), 1.0);
}
