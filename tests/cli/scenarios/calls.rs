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

/// A hedged call across a link (1 ms each way): both messages arrive at 1. qb's replica
/// answers at 1 + 2.5 = 3.5, landing at 4.5: the join is met and branch qa cancelled then.
/// qa's replica answers at 1 + 3 = 4, while its caller still waits, so the reply leaves
/// (its replier sees `replied`), but it lands at 5, after the cancel: late. Replies and
/// late replies are counted as they land; every reply crosses, so the link carries 2 calls
/// and 2 replies.
#[test]
fn a_reply_landing_after_its_caller_was_cancelled_is_late() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 2\n\
        [[resource]]\nname = \"qa\"\nkind = \"queue\"\nlink = \"net\"\n\
        [[resource]]\nname = \"qb\"\nkind = \"queue\"\nlink = \"net\"\n\
        [[actor]]\nname = \"srv_qa\"\nsteps = [{ take = \"qa\" }, { delay_ms = 3 }, { reply = \"qa\", value = 1 }]\n\
        [[actor]]\nname = \"srv_qb\"\nsteps = [{ take = \"qb\" }, { delay_ms = 2.5 }, { reply = \"qb\", value = 2 }]\n\
        [[actor]]\nname = \"cl\"\nsteps = [{ parallel = [[{ call = \"qa\", value = 7 }], [{ call = \"qb\", value = 7 }]], wait = \"first\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("qa.replies")), 0.0);
    assert_eq!(num(run.metric("qa.late_replies")), 1.0);
    assert_eq!(num(run.metric("qb.replies")), 1.0);
    assert_eq!(num(run.metric("qb.late_replies")), 0.0);
    assert_eq!(num(run.metric("net.crossings")), 4.0);
    assert_eq!(num(run.metric("cl.mean_response_ms")), 4.5);
}

/// A reply already late when it is sent still crosses the link: the caller's 3 ms timeout
/// ends its wait at 3, the replica (the message arrived at 1) answers at 1 + 5 = 6 to
/// nobody. The link carries the call and that reply: 2 crossings.
#[test]
fn a_reply_late_when_sent_still_crosses_the_link() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 2\n\
        [[resource]]\nname = \"rpc\"\nkind = \"queue\"\nlink = \"net\"\n\
        [[actor]]\nname = \"srv\"\nsteps = [{ take = \"rpc\" }, { delay_ms = 5 }, { reply = \"rpc\", value = 1 }]\n\
        [[actor]]\nname = \"cl\"\nsteps = [{ call = \"rpc\", value = 7, timeout_ms = 3 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("net.crossings")), 2.0);
    assert_eq!(num(run.metric("rpc.late_replies")), 1.0);
    assert_eq!(num(run.metric("rpc.replies")), 0.0);
    assert_eq!(num(run.metric("cl.gave_up")), 1.0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, .. ProptestConfig::default() })]

    /// Hedged calls under load across a link: each repetition asks `qa`, and `qb` after
    /// `hedge` ms, and takes the first reply. Exactly one reply reaches each repetition (a
    /// join is met by one landing; a later one finds its branch cancelled), so replies =
    /// completed repetitions = calls made, never more; every reply is counted once,
    /// replied or late (replies + late = takes); and the link carries each call and each
    /// reply once (it neither loses nor duplicates).
    #[test]
    fn hedged_calls_get_one_reply_each(
        clients in 1u32..5, repeat in 1u64..20, every in 1u64..8, hedge in 0u64..6,
        service_a in 1u64..8, service_b in 1u64..8, rtt in 1u64..6, seed in 0u64..50,
    ) {
        let text = format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = {rtt}\n\
             [[resource]]\nname = \"qa\"\nkind = \"queue\"\nlink = \"net\"\n\
             [[resource]]\nname = \"qb\"\nkind = \"queue\"\nlink = \"net\"\n\
             [[actor]]\nname = \"ra\"\nrepeat = 100000\nsteps = [{{ take = \"qa\" }}, {{ delay_ms = {service_a} }}, {{ reply = \"qa\", value = 1 }}]\n\
             [[actor]]\nname = \"rb\"\nrepeat = 100000\nsteps = [{{ take = \"qb\" }}, {{ delay_ms = {service_b} }}, {{ reply = \"qb\", value = 2 }}]\n\
             [[actor]]\nname = \"client\"\ncount = {clients}\nrepeat = {repeat}\nevery_ms = {every}\narrivals = \"poisson\"\n\
             steps = [{{ parallel = [[{{ call = \"qa\" }}], [{{ delay_ms = {hedge} }}, {{ call = \"qb\" }}]], wait = \"first\" }}]\n"
        );
        let run = run_within_estimate(&text, seed);
        let calls = f64::from(clients) * repeat as f64;
        let replies = num(run.metric("qa.replies")) + num(run.metric("qb.replies"));
        let late = num(run.metric("qa.late_replies")) + num(run.metric("qb.late_replies"));
        let taken = num(run.metric("qa.taken")) + num(run.metric("qb.taken"));
        let put = num(run.metric("qa.put")) + num(run.metric("qb.put"));
        prop_assert_eq!(num(run.metric("client.completed")), calls, "{}", text);
        prop_assert_eq!(replies, calls, "{}", text);
        prop_assert_eq!(replies + late, taken, "{}", text);
        prop_assert_eq!(num(run.metric("net.crossings")), put + taken, "{}", text);
    }
}
