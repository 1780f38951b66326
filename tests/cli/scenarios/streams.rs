//! Each random draw comes from its own stream: a chance from the actor's, a lossy link's
//! losses from the link's, a named stream from its group's — never another group's, even
//! when the names are spelt alike.

use super::{load_error, num, run_text};

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 128, .. proptest::prelude::ProptestConfig::default() })]

    /// `if = { chance = p }` draws from the actor's stream `chance/NAME-i`: a repetition
    /// takes 1 ms when the draw is below p, else 2 ms, so the actor ends at the sum.
    #[test]
    fn a_chance_draws_from_the_actors_own_stream(seed in 0u64..1000, p in 0.0f64..1.0, repeat in 1u64..40) {
        let text = format!(
            "model = \"scenario\"\n[[actor]]\nname = \"a\"\nrepeat = {repeat}\n\
             steps = [{{ if = {{ chance = {p} }}, then = [{{ delay_ms = 1 }}], else = [{{ delay_ms = 2 }}] }}]\n"
        );
        let s = run_text(&text, seed);
        let mut rng = sim_core::stream(seed, "chance/a-0");
        let expected: f64 = (0..repeat).map(|_| if sim_core::unit(&mut rng) < p { 1.0 } else { 2.0 }).sum();
        proptest::prop_assert_eq!(num(s.entity("a", "end_ms")), expected);
    }

    /// A lossy link loses a crossing when its stream `loss/NAME` draws below the loss: a
    /// lost crossing ends in its timeout (50 ms, then the next step), a delivered one
    /// after half the round trip (3 ms).
    #[test]
    fn a_lossy_link_loses_crossings_by_its_own_stream(seed in 0u64..1000, loss in 0.0f64..1.0, repeat in 1u64..40) {
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 6\nloss = {loss}\n\
             [[actor]]\nname = \"a\"\nrepeat = {repeat}\n\
             steps = [{{ send = \"net\", timeout_ms = 50, on_timeout = {{ then = \"go_on\" }} }}]\n"
        );
        let s = run_text(&text, seed);
        let mut rng = sim_core::stream(seed, "loss/net");
        let lost: Vec<bool> = (0..repeat).map(|_| sim_core::unit(&mut rng) < loss).collect();
        let n_lost = lost.iter().filter(|l| **l).count() as f64;
        let end: f64 = lost.iter().map(|l| if *l { 50.0 } else { 3.0 }).sum();
        proptest::prop_assert_eq!(num(s.metric("net.lost")), n_lost);
        proptest::prop_assert_eq!(num(s.metric("net.crossings")), repeat as f64);
        proptest::prop_assert_eq!(num(s.metric("a.timeouts")), n_lost);
        proptest::prop_assert_eq!(num(s.entity("a", "end_ms")), end);
    }
}

/// Two groups of one actor, 1000 repetitions each, each inserting key `k` into one store on
/// a chance of 0.5. Drawn independently, both hit a given `k` with probability 1/4: the
/// duplicates are Binomial(1000, 1/4), mean 250, sd √(1000 · 1/4 · 3/4) ≈ 13.7, so 250 ± 70
/// (5 sd) holds but for a chance of about 1 in 3 million. Drawn from one sequence, every hit
/// of the second group is a duplicate: about 500, far outside.
fn both_hit(first: &str, second: &str) -> f64 {
    let text = format!(
        "model = \"scenario\"\n[[resource]]\nname = \"hits\"\nkind = \"keys\"\n\
         [[actor]]\nname = \"a\"\nrepeat = 1000\nsteps = [{{ if = {first}, then = [{{ insert = \"hits\", key = \"k\" }}] }}]\n\
         [[actor]]\nname = \"b\"\nrepeat = 1000\nsteps = [{{ if = {second}, then = [{{ insert = \"hits\", key = \"k\" }}] }}]\n"
    );
    num(run_text(&text, 0).metric("hits.duplicates"))
}

/// A stream name shared by two groups is each group's own: independent draws. And a name
/// that spells another group's automatic stream (`chance/a-0`, actor 0 of `a`) is not it.
#[test]
fn a_named_stream_is_the_groups_own() {
    for (first, second) in [
        (
            "{ chance = 0.5, stream = \"s\" }",
            "{ chance = 0.5, stream = \"s\" }",
        ),
        (
            "{ chance = 0.5 }",
            "{ chance = 0.5, stream = \"chance/a-0\" }",
        ),
        // `a`'s stream `b/s` (keyed `a/b/s`) is not `b`'s `s` (keyed `b/s`).
        (
            "{ chance = 0.5, stream = \"b/s\" }",
            "{ chance = 0.5, stream = \"s\" }",
        ),
    ] {
        let d = both_hit(first, second);
        assert!(
            (180.0..=320.0).contains(&d),
            "{first} / {second}: {d} duplicates"
        );
    }
    // Within a group, steps naming one stream draw from it in turn: the same condition
    // twice in a row from one stream is two draws, not one (both hit 1/4 of the time).
    let text = "model = \"scenario\"\n[[resource]]\nname = \"hits\"\nkind = \"keys\"\n\
         [[actor]]\nname = \"a\"\nrepeat = 1000\nsteps = [{ if = { chance = 0.5, stream = \"s\" }, then = [{ insert = \"hits\", key = \"k\" }] }, { if = { chance = 0.5, stream = \"s\" }, then = [{ insert = \"hits\", key = \"k\" }] }]\n";
    let d = num(run_text(text, 0).metric("hits.duplicates"));
    assert!((180.0..=320.0).contains(&d), "{d} duplicates");
}

/// A group whose steps name a stream may not take the name of an automatic stream's prefix:
/// group `chance`'s stream `a-0` would be keyed `chance/a-0`, actor 0 of `a`'s own.
#[test]
fn a_group_naming_a_stream_may_not_be_called_like_an_automatic_one() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
         [[actor]]\nname = \"chance\"\nsteps = [{ if = { chance = 0.5, stream = \"a-0\" }, then = [{ write = \"r\", value = 1 }] }]\n";
    let e = load_error(text);
    assert!(
        e.contains("t.toml:6:")
            && e.contains("a group whose steps name a stream cannot be called `chance`"),
        "{e}"
    );
    // Without a named stream the name is free.
    let run = run_text(&text.replace(", stream = \"a-0\"", ""), 0);
    assert_eq!(num(run.metric("chance.completed")), 1.0);
}
