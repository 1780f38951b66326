//! Acknowledgements: an ack needs a queue with a visibility timeout, an ack of nothing is
//! `not_held` and one too late (at the timeout's instant too) `expired`, an ack or a refused
//! put inside a transaction is marked only when it lands, a take that got nothing leaves its
//! names unset, and a delivery step names its resource.

use super::{load_error, num, run_error, run_text};

/// An ack on a queue with no `visibility_ms` has nothing to acknowledge (a take removed the
/// message): an error at the ack, saying to set `visibility_ms`.
#[test]
fn an_ack_on_a_queue_without_visibility_is_refused_where_it_is_written() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\n\
         [[actor]]\nname = \"a\"\nsteps = [{ put = \"q\" }, { take = \"q\" }, { ack = \"q\" }]\n";
    let e = load_error(text);
    assert!(
        e.contains("t.toml:7:")
            && e.contains("`q` has no `visibility_ms`")
            && e.contains("set `visibility_ms`"),
        "{e}"
    );
    let with = text.replace(
        "kind = \"queue\"\n",
        "kind = \"queue\"\nvisibility_ms = 50\n",
    );
    assert_eq!(num(run_text(&with, 0).metric("q.acked")), 1.0);
}

/// A queue `q` (visibility 50 ms) and the steps, after which ack `n` (from 0) records its
/// outcome as a digit of `o.total`: 1 `acked`, 2 `expired`, 3 `not_held`, times 10^n.
fn ack_outcomes(steps: &str) -> f64 {
    let text = format!(
        "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\nvisibility_ms = 50\n\
         [[resource]]\nname = \"o\"\nkind = \"keys\"\n\
         [[actor]]\nname = \"a\"\nsteps = [{steps}]\n"
    );
    num(run_text(&text, 0).metric("o.total"))
}

/// Ack `n`'s outcome recorded (see `ack_outcomes`).
fn rec(n: u32) -> String {
    let set = |code: u32| {
        format!(
            "{{ set = \"o\", key = {n}, value = {} }}",
            code * 10u32.pow(n)
        )
    };
    format!(
        "{{ if = \"acked\", then = [{}], else = [{{ if = \"expired\", then = [{}], else = [{{ if = \"not_held\", then = [{}] }}] }}] }}",
        set(1),
        set(2),
        set(3)
    )
}

/// An ack of nothing — a second ack, an ack after one too late, an ack on a path that took
/// nothing — is `not_held`, inside a transaction and out of one; `expired` is only an ack
/// of a message that came back first.
#[test]
fn an_ack_of_nothing_is_not_held_and_not_expired() {
    let (r0, r1) = (rec(0), rec(1));
    for (steps, expected) in [
        // Acked, then nothing held: 1 + 3 · 10.
        (
            format!(
                "{{ put = \"q\" }}, {{ take = \"q\" }}, {{ ack = \"q\" }}, {r0}, {{ ack = \"q\" }}, {r1}"
            ),
            31.0,
        ),
        // The same two acks in one transaction: 31 again.
        (
            format!(
                "{{ put = \"q\" }}, {{ put = \"q\" }}, {{ take = \"q\" }}, {{ transaction = [{{ ack = \"q\" }}, {r0}, {{ ack = \"q\" }}, {r1}] }}"
            ),
            31.0,
        ),
        // Taken at 0, back at 50, acked at 60: expired (2), then nothing held (3 · 10).
        (
            format!(
                "{{ put = \"q\" }}, {{ take = \"q\" }}, {{ delay_ms = 60 }}, {{ ack = \"q\" }}, {r0}, {{ ack = \"q\" }}, {r1}"
            ),
            32.0,
        ),
        // The take is on a branch never taken (chance 0): nothing to acknowledge, 3.
        (
            format!(
                "{{ put = \"q\" }}, {{ if = {{ chance = 0 }}, then = [{{ take = \"q\" }}] }}, {{ ack = \"q\" }}, {r0}"
            ),
            3.0,
        ),
    ] {
        assert_eq!(ack_outcomes(&steps), expected, "{steps}");
    }
}

/// The marks of lane 0 of `text`'s run.
fn marks(text: &str) -> Vec<(String, f64)> {
    let config =
        crate::harness::library_config(&crate::harness::registry(), "t.toml", text).expect("loads");
    let out = config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, config.plan.limits).with_lanes(true))
        .expect("runs");
    out.lanes.lanes()[0]
        .marks()
        .iter()
        .map(|m| (m.kind.to_string(), m.at_ms))
        .collect()
}

/// An ack inside a transaction is marked when the transaction lands; one that crashes lands
/// nothing, and draws no `acked` mark: taken at 0, crashed at 0, nothing else.
#[test]
fn an_ack_in_a_transaction_that_rolls_back_is_not_marked() {
    let text = |crash: &str| {
        format!(
            "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\nvisibility_ms = 50\n\
             [[actor]]\nname = \"a\"\nsteps = [{{ put = \"q\" }}, {{ take = \"q\" }}, {{ transaction = [{{ ack = \"q\" }}{crash}] }}]\n"
        )
    };
    let kinds = |m: Vec<(String, f64)>| m.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
    assert_eq!(
        kinds(marks(&text(", { crash = \"all\" }"))),
        ["taken", "crashed"]
    );
    assert_eq!(kinds(marks(&text(""))), ["taken", "acked", "done"]);
}

/// A take that gets nothing leaves its names unset: repetition 0 takes the one message (7),
/// repetition 1's take times out and goes on, and its write of `r + q` is of a number that
/// is not one (not 0 + 7 again), so the run stops there; an ack after it holds nothing.
#[test]
fn a_take_that_got_nothing_leaves_its_names_unset() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\n\
         [[resource]]\nname = \"r\"\nkind = \"register\"\n\
         [[actor]]\nname = \"p\"\nsteps = [{ put = \"q\", value = 7 }]\n\
         [[actor]]\nname = \"c\"\nrepeat = 2\nsteps = [{ take = \"q\", timeout_ms = 5, on_timeout = { then = \"go_on\" } }, { read = \"r\" }, { write = \"r\", value = \"r + q\" }]\n";
    let e = run_error(text);
    assert!(
        e.contains("actor 0 of `c` at 5 ms: a write's value into `r` is NaN"),
        "{e}"
    );
    // With a visibility timeout: acked at 0 (1), then the timed-out take's ack holds
    // nothing (3 · 10), not the first message again (which would be `expired`).
    let steps = format!(
        "{{ put = \"q\" }}, {{ take = \"q\" }}, {{ ack = \"q\" }}, {}, {{ take = \"q\", timeout_ms = 5, on_timeout = {{ then = \"go_on\" }} }}, {{ ack = \"q\" }}, {}",
        rec(0),
        rec(1)
    );
    assert_eq!(ack_outcomes(&steps), 31.0, "{steps}");
}

/// What docs/scenarios.md says of the delivery steps: they name their resource (a choice,
/// `one_of` or `by`, is an error at its place that says which steps take one, not a
/// complaint about a string), and an ack at the visibility timeout's instant is too late.
#[test]
fn a_delivery_step_takes_no_choice_and_an_ack_at_the_timeout_is_late() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\n\
         [[resource]]\nname = \"p\"\nkind = \"queue\"\n\
         [[actor]]\nname = \"a\"\nsteps = [{ put = { one_of = [\"q\", \"p\"], index = \"i\" } }]\n";
    // An ack at exactly take + visibility_ms (0 + 50) is too late: the message is visible
    // again at that instant. 1 ns before it, in time.
    let late = |delay: &str| {
        ack_outcomes(&format!(
            "{{ put = \"q\" }}, {{ take = \"q\" }}, {{ delay_ms = {delay} }}, {{ ack = \"q\" }}, {}",
            rec(0)
        ))
    };
    assert_eq!((late("50"), late("49.999999")), (2.0, 1.0));
    let e = load_error(text);
    assert!(
        e.contains("t.toml:10:")
            && e.contains("`one_of` and `by` choose a resource only in an acquire"),
        "{e}"
    );
}

/// A refused put and an ack too late are drawn (`full`, `expired`), outside a transaction at
/// the step and inside one when it lands; a transaction that crashes draws neither.
/// Capacity 1: the second put at 0 is refused. Visibility 10: taken at 0, back at 10, the
/// ack at 20 is too late.
#[test]
fn a_refused_put_and_a_late_ack_are_marked() {
    let text = |steps: &str| {
        format!(
            "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\ncapacity = 1\nvisibility_ms = 10\n\
             [[actor]]\nname = \"a\"\nsteps = [{steps}]\n"
        )
    };
    let late = "{ put = \"q\" }, { take = \"q\" }, { delay_ms = 20 }";
    for (steps, expected) in [
        (
            "{ put = \"q\" }, { put = \"q\" }".to_string(),
            vec![("full", 0.0), ("done", 0.0)],
        ),
        (
            "{ put = \"q\" }, { transaction = [{ put = \"q\" }] }".to_string(),
            vec![("full", 0.0), ("done", 0.0)],
        ),
        (
            "{ put = \"q\" }, { transaction = [{ put = \"q\" }, { crash = \"all\" }] }".to_string(),
            vec![("crashed", 0.0)],
        ),
        (
            format!("{late}, {{ ack = \"q\" }}"),
            vec![("taken", 0.0), ("expired", 20.0), ("done", 20.0)],
        ),
        (
            format!("{late}, {{ transaction = [{{ ack = \"q\" }}] }}"),
            vec![("taken", 0.0), ("expired", 20.0), ("done", 20.0)],
        ),
        (
            format!("{late}, {{ transaction = [{{ ack = \"q\" }}, {{ crash = \"all\" }}] }}"),
            vec![("taken", 0.0), ("crashed", 20.0)],
        ),
    ] {
        let got = marks(&text(&steps));
        let got: Vec<(&str, f64)> = got.iter().map(|(k, t)| (k.as_str(), *t)).collect();
        assert_eq!(got, expected, "{steps}");
    }
}
