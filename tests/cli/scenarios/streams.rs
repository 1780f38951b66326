//! Each random draw comes from its own stream: a chance from the actor's, a lossy link's
//! losses from the link's.

use super::{num, run_text};

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
