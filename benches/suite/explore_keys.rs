//! 7c. The explorer's two back ends on key stores (`keys`): the buyers of
//!    benches/configs/key-store.toml (a transaction of a lookup, a set and an insert on keys
//!    of `i` and `k`, then a lookup and a remove), every order (no reduction), one thread,
//!    explored by the flat back end (asserted: a time measured is never the interpreter's
//!    by a fallback) and by the interpreter; their state counts asserted equal (one graph).

use coordsim::config::Config;
use coordsim::source::Source;
use coordsim_model::{Engine, ExploreLimits, Reduction, Symmetry};

use crate::measure::{measure, mib};

/// The bench config, its buyers set to `buyers`.
fn key_store_config(buyers: u32) -> Config {
    let registry = coordsim_models::registry().with_composer(coordsim_scenario::Scenario);
    let shipped = include_str!("../configs/key-store.toml");
    let sizes = "buyers = 5\n";
    assert!(shipped.contains(sizes), "the config's [params] as written");
    Config::parse(
        Source {
            name: "key-store.toml".into(),
            text: shipped.replace(sizes, &format!("buyers = {buyers}\n")),
        },
        &registry,
    )
    .expect("the key-store config parses")
}

/// The section: each back end's states, time, states/s and peak memory, one thread, the
/// flat back end's time against the interpreter's.
pub(crate) fn explore_keys() {
    for buyers in [4, 5] {
        let config = key_store_config(buyers);
        let mut seconds = Vec::new();
        let mut states = Vec::new();
        for (engine, name) in [(Engine::Flat, "flat"), (Engine::Interpret, "interpreter")] {
            let limits = ExploreLimits {
                max_states: 100_000_000,
                jobs: 1,
                symmetry: Symmetry::Off,
                reduce: Reduction::Off,
                engine,
                ..ExploreLimits::default()
            };
            let (m, explored) = measure(1, || {
                coordsim::runner::explore::explore_config(&config, config.seed, &limits)
                    .expect("explores")
            });
            let e = &explored[0];
            assert!(e.bounded.is_none(), "{buyers} buyers: {:?}", e.bounded);
            assert_eq!(
                e.engine, engine,
                "{buyers} buyers: the {name} back end explores"
            );
            println!(
                "{:<52} {:>8} states {:>7.3} s  {:>6.3} M states/s  peak {:>7.1} MiB ({:.0} B/state)",
                format!("explore key store, {buyers} buyers × 2, {name}"),
                e.states,
                m.seconds,
                e.states as f64 / m.seconds / 1e6,
                mib(m.peak_bytes),
                m.peak_bytes as f64 / e.states as f64,
            );
            seconds.push(m.seconds);
            states.push(e.states);
        }
        assert_eq!(
            states[0], states[1],
            "{buyers} buyers: one graph on both back ends"
        );
        println!(
            "  the flat back end's time: {:.2}× the interpreter's",
            seconds[0] / seconds[1]
        );
    }
}
