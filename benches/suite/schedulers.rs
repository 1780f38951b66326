//! 8. The schedulers' answers (issue: "How likely, how long, under every schedule"): the
//!    least and greatest probability, mean and median over every scheduler, solved over
//!    the explored graph, against the search's own time, on the lost update of 3 clients ×
//!    5 increments whose every write is made with chance 0.9 (a loss draw per write). The
//!    target: the solve takes at most 1.5× the search's time.

use coordsim::config::Config;
use coordsim::source::Source;
use coordsim_model::{ExploreLimits, Symmetry};

use crate::measure::{timed, verdict};

/// The 3 × 5 lost update, each write behind a chance of 0.9.
fn lost_behind_chances() -> Config {
    let registry = coordsim_models::registry().with_composer(coordsim_scenario::Scenario);
    let text = "model = \"scenario\"\n[[resource]]\nname = \"counter\"\nkind = \"register\"\n\
                [[actor]]\nname = \"c\"\ncount = 3\nrepeat = 5\n\
                steps = [{ read = \"counter\" }, { if = { chance = 0.9 }, then = [{ write = \"counter\", value = \"read + 1\" }] }]\n";
    Config::parse(
        Source {
            name: "lost-behind-chances.toml".into(),
            text: text.into(),
        },
        &registry,
    )
    .expect("the config parses")
}

pub(crate) fn schedulers_jobs() {
    let config = lost_behind_chances();
    let limits = ExploreLimits {
        max_states: 10_000_000,
        keep_schedulers: true,
        // The graph the schedulers choose over, every state apart.
        symmetry: Symmetry::Off,
        ..ExploreLimits::default()
    };
    let explore = || {
        coordsim::runner::explore::explore_config(&config, config.seed, &limits).expect("explores")
    };
    let (search, states) = timed(3, || {
        let explored = explore();
        assert!(explored[0].bounded.is_none(), "{:?}", explored[0].bounded);
        explored[0].states
    });
    let explored = explore();
    let e = &explored[0];
    let graph = e.schedulers.as_ref().expect("the schedulers' graph, kept");
    let column = |name: &str| {
        (config.model.metrics().iter())
            .position(|m| m.name == name)
            .expect("the metric")
    };
    let (value, lost) = (column("counter.value"), column("counter.lost_updates"));
    let cell = |k: usize, m: usize| e.outcomes[k].metrics[m].as_f64().unwrap_or(0.0);
    let values: Vec<f64> = (0..e.outcomes.len()).map(|k| cell(k, value)).collect();
    let (solve, answers) = timed(3, || {
        let mut sum = 0.0;
        for least in [true, false] {
            sum += graph.extreme(&|k| cell(k, lost) >= 1.0, least);
            sum += graph.extreme_mean(&|k| cell(k, value), least);
            sum += graph
                .extreme_quantile(&values, 0.5, 1e-9, least)
                .unwrap_or(0.0);
        }
        sum
    });
    let ratio = solve / search;
    println!(
        "{:<52} {states:>8} states {search:>7.3} s search, {solve:>7.3} s min and max of a probability, mean and median (sum {answers:.3}): {ratio:.2}× (target ≤ 1.5: {})",
        "schedulers, lost update 3 × 5, a chance per write",
        verdict(ratio <= 1.5),
    );
}
