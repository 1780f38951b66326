//! `call` and `reply`: a request put on a queue that waits for *its* reply, and the actor
//! that took it answering. Under load every caller gets the answer to its own message;
//! a reply after the caller's timeout is late, never delivered to the next call; a queue
//! across a link adds its round trip; a call inside a `parallel` races another.

use proptest::prelude::*;

use super::{load_error, num, run_text, run_within_estimate};

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// Callers with Poisson gaps, replicas with exponential services: each call's value is
    /// its own (i × 10⁶ + k), each replica answers 3 × value + 1, and each caller checks
    /// that the answer is to its own call, counting any other in `bad`. With no timeouts
    /// every call is answered, once, and on time: replies = calls = takes, and `bad` is 0.
    #[test]
    fn every_caller_gets_the_reply_to_its_own_call(
        clients in 1u32..6, replicas in 1u32..4, repeat in 1u64..30, every in 1u64..10,
        service in 1u64..15, seed in 0u64..100,
    ) {
        let text = format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"rpc\"\nkind = \"queue\"\n\
             [[resource]]\nname = \"bad\"\nkind = \"register\"\n\
             [[actor]]\nname = \"replica\"\ncount = {replicas}\nrepeat = 100000\n\
             steps = [{{ take = \"rpc\" }}, {{ delay_ms = {service} }}, {{ reply = \"rpc\", value = \"3 * rpc + 1\" }}]\n\
             [[actor]]\nname = \"client\"\ncount = {clients}\nrepeat = {repeat}\nevery_ms = {every}\narrivals = \"poisson\"\n\
             steps = [{{ call = \"rpc\", value = \"i * 1000000 + k\" }}, \
                      {{ if = {{ value = \"reply\", equals = \"3 * (i * 1000000 + k) + 1\" }}, then = [], else = [{{ read = \"bad\" }}, {{ write = \"bad\", value = \"bad + 1\" }}] }}]\n"
        );
        let run = run_within_estimate(&text, seed);
        let calls = f64::from(clients) * repeat as f64;
        prop_assert_eq!(num(run.metric("bad.value")), 0.0, "{}", text);
        prop_assert_eq!(num(run.metric("client.completed")), calls);
        prop_assert_eq!(num(run.metric("rpc.replies")), calls);
        prop_assert_eq!(num(run.metric("rpc.late_replies")), 0.0);
        prop_assert_eq!(num(run.metric("rpc.taken")), calls);
    }

    /// A caller that times out is not answered by the reply to its old call: with a
    /// timeout shorter than the service every reply is late, the caller's retry gets its
    /// own reply or none, and replies + late replies = takes (each take answered once).
    #[test]
    fn a_late_reply_never_answers_the_next_call(
        service in 5u64..20, timeout in 1u64..30, repeat in 1u64..20, attempts in 1u64..4,
    ) {
        let text = format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"rpc\"\nkind = \"queue\"\n\
             [[resource]]\nname = \"bad\"\nkind = \"register\"\n\
             [[actor]]\nname = \"replica\"\nrepeat = 100000\n\
             steps = [{{ take = \"rpc\" }}, {{ delay_ms = {service} }}, {{ reply = \"rpc\", value = \"rpc\" }}]\n\
             [[actor]]\nname = \"client\"\nrepeat = {repeat}\n\
             steps = [{{ call = \"rpc\", value = \"100 * k + attempt\", timeout_ms = {timeout}, on_timeout = {{ max_attempts = {attempts} }} }}, \
                      {{ if = {{ value = \"reply\", equals = \"100 * k + attempt\" }}, then = [], else = [{{ read = \"bad\" }}, {{ write = \"bad\", value = \"bad + 1\" }}] }}]\n"
        );
        let run = run_within_estimate(&text, 0);
        prop_assert_eq!(num(run.metric("bad.value")), 0.0, "{}", text);
        let (replies, late) = (num(run.metric("rpc.replies")), num(run.metric("rpc.late_replies")));
        prop_assert_eq!(replies + late, num(run.metric("rpc.taken")));
        prop_assert_eq!(replies, num(run.metric("client.completed")));
        if timeout < service {
            // Every call waits `timeout` and the replica needs `service` > `timeout` for
            // each: no reply is ever in time.
            prop_assert_eq!(replies, 0.0);
            prop_assert_eq!(num(run.metric("client.gave_up")), repeat as f64);
        }
    }
}

/// Across a link of 10 ms round trip: the call's message arrives after 5 ms, the replica
/// serves it in 4 ms and the reply takes 5 ms back, so each call takes 14 ms (closed loop,
/// 3 calls: the last ends at 42). With a 12 ms timeout the reply would land at 14, past the
/// deadline: late, and the caller gives up at 12.
#[test]
fn a_call_across_a_link_takes_its_round_trip() {
    let text = |timeout: &str| {
        format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 10\n\
             [[resource]]\nname = \"rpc\"\nkind = \"queue\"\nlink = \"net\"\n\
             [[actor]]\nname = \"replica\"\nrepeat = 3\nsteps = [{{ take = \"rpc\" }}, {{ delay_ms = 4 }}, {{ reply = \"rpc\", value = 1 }}]\n\
             [[actor]]\nname = \"client\"\nrepeat = 3\nsteps = [{{ call = \"rpc\"{timeout} }}]\n"
        )
    };
    let run = run_text(&text(""), 0);
    assert_eq!(num(run.metric("client.mean_response_ms")), 14.0);
    assert_eq!(num(run.metric("makespan_ms")), 42.0);
    let late = run_text(&text(", timeout_ms = 12"), 0);
    assert_eq!(num(late.metric("client.gave_up")), 1.0 * 3.0);
    assert_eq!(num(late.metric("rpc.late_replies")), 3.0);
    assert_eq!(num(late.metric("rpc.replies")), 0.0);
}

/// A call inside a `parallel`: a hedged call to two queues, each served by a replica (A in
/// 10 ms, B in 3 ms, B asked 2 ms later): B's reply comes at 5 and wins (`winner` 2, its
/// `reply` 20); A's comes at 10 to a caller cancelled at 5: late.
#[test]
fn a_hedged_call_takes_the_first_reply() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"qa\"\nkind = \"queue\"\n\
        [[resource]]\nname = \"qb\"\nkind = \"queue\"\n\
        [[resource]]\nname = \"got\"\nkind = \"register\"\n\
        [[actor]]\nname = \"a\"\nsteps = [{ take = \"qa\" }, { delay_ms = 10 }, { reply = \"qa\", value = 10 }]\n\
        [[actor]]\nname = \"b\"\nsteps = [{ take = \"qb\" }, { delay_ms = 3 }, { reply = \"qb\", value = 20 }]\n\
        [[actor]]\nname = \"client\"\n\
        steps = [{ parallel = [[{ call = \"qa\" }], [{ delay_ms = 2 }, { call = \"qb\" }]], wait = \"first\" }, \
                 { write = \"got\", value = \"100 * winner + reply\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("got.value")), 220.0);
    assert_eq!(num(run.metric("client.mean_response_ms")), 5.0);
    assert_eq!(num(run.metric("qb.replies")), 1.0);
    assert_eq!(num(run.metric("qa.late_replies")), 1.0);
}

/// `reply` is known only after a call, and a reply needs a take before it.
#[test]
fn call_mistakes_are_refused_where_they_are_written() {
    let head = "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n[[actor]]\nname = \"c\"\n";
    let e = load_error(&format!(
        "{head}steps = [{{ write = \"r\", value = \"reply\" }}]\n"
    ));
    assert!(e.contains("makes no call"), "{e}");
    let e = load_error(&format!("{head}steps = [{{ reply = \"q\", value = 1 }}]\n"));
    assert!(e.contains("takes nothing from `q`"), "{e}");
    let e = load_error(&format!(
        "{head}steps = [{{ call = \"q\", on_timeout = {{ then = \"end\" }} }}]\n"
    ));
    assert!(e.contains("never times out"), "{e}");
    let e = load_error(&format!(
        "{head}steps = [{{ call = \"q\", timout_ms = 5 }}]\n"
    ));
    assert!(e.contains("timeout_ms"), "{e}");
}
