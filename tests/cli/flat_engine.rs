//! The flat back end against the interpreter's search: on random points it covers, the
//! same exploration in every field (states, transitions, executions, outcomes with their
//! counts, probabilities, traces and schedules, bounds, the schedulers' graph), with the
//! reduction on and off and under a state bound; and where it does not cover a point,
//! `--engine flat` says why.

use coordsim_model::{Engine, Exploration, ExploreLimits, Reduction, Symmetry};
use proptest::prelude::*;

use crate::explore::explore;
use crate::harness::{coordsim_in, stderr, write_config};

/// Steps of a random program: a read, a read and a write of what it read, or a blind
/// write of a value that does not depend on a read.
fn steps() -> impl Strategy<Value = Vec<String>> {
    let read_value = prop_oneof![Just("read + 1"), Just("read * 2 + 1")];
    let blind_value = prop_oneof![Just("i + 1"), Just("k + 2"), Just("3")];
    (0..3usize, 0..3u8, read_value, blind_value).prop_map(|(r, kind, read_value, blind_value)| {
        let read = format!("{{ read = \"r{r}\" }}");
        match kind {
            0 => vec![read],
            1 => vec![
                read,
                format!("{{ write = \"r{r}\", value = \"{read_value}\" }}"),
            ],
            _ => vec![format!("{{ write = \"r{r}\", value = \"{blind_value}\" }}")],
        }
    })
}

/// A random point of the fragment the flat back end covers: up to three registers and
/// two groups of up to two closed-loop actors that read and write them, all at 0 ms.
fn config() -> impl Strategy<Value = String> {
    let group = (1..=2u32, 1..=2u32, prop::collection::vec(steps(), 1..=2));
    (1..=3usize, prop::collection::vec(group, 1..=2)).prop_map(|(registers, groups)| {
        let mut text = String::from("model = \"scenario\"\n");
        for r in 0..3 {
            // Every register a step may name exists; some start apart from 0.
            let initial = if r < registers { r } else { 0 };
            text.push_str(&format!(
                "[[resource]]\nname = \"r{r}\"\nkind = \"register\"\ninitial = {initial}\n"
            ));
        }
        for (g, (count, repeat, steps)) in groups.into_iter().enumerate() {
            text.push_str(&format!(
                "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\nsteps = [{}]\n",
                steps.concat().join(", ")
            ));
        }
        text
    })
}

/// Each point of `text` explored with `limits` by `engine`.
fn with(text: &str, limits: ExploreLimits, engine: Engine) -> Vec<Exploration> {
    explore(
        text,
        &ExploreLimits {
            engine,
            symmetry: Symmetry::Off,
            ..limits
        },
    )
}

/// The two back ends' explorations equal in every field but the engine's name, which must
/// say which explored.
fn same(text: &str, limits: ExploreLimits) -> Result<(), TestCaseError> {
    let interpreted = with(text, limits, Engine::Interpret);
    let flat = with(text, limits, Engine::Flat);
    prop_assert_eq!(interpreted.len(), flat.len());
    for (mut i, f) in interpreted.into_iter().zip(flat) {
        prop_assert_eq!(i.engine, Engine::Interpret);
        prop_assert_eq!(f.engine, Engine::Flat);
        i.engine = Engine::Flat;
        prop_assert_eq!(i, f, "{}", text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Reduction on and off, the graph of entries kept, and a state bound that cuts most
    /// of them (the bound cuts the same states in the same order). At most 20,000 states
    /// each, so that the interpreter's debug build keeps the test short.
    #[test]
    fn the_flat_engine_explores_what_the_interpreter_does(text in config(), bound in 5u64..200) {
        let on = ExploreLimits {
            keep_schedulers: true,
            max_states: 20_000,
            ..ExploreLimits::default()
        };
        same(&text, on)?;
        same(&text, ExploreLimits { reduce: Reduction::Off, ..on })?;
        same(&text, ExploreLimits { max_states: bound, ..on })?;
    }
}

/// The lost update of three clients of two increments, by hand: each client makes 4 steps
/// (read, write, read, write) in its own order, every step touches the one register (no
/// reduction), so the executions are the interleavings of three sequences of 4:
/// 12! / (4!)^3 = 479,001,600 / 13,824 = 34,650.
#[test]
fn the_flat_engine_counts_the_lost_update_by_hand() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"counter\"\nkind = \"register\"\n\
                [[actor]]\nname = \"client\"\ncount = 3\nrepeat = 2\n\
                steps = [{ read = \"counter\" }, { write = \"counter\", value = \"read + 1\" }]\n";
    let flat = &with(text, ExploreLimits::default(), Engine::Flat)[0];
    assert_eq!(flat.engine, Engine::Flat);
    assert_eq!(flat.executions, 34_650);
    let total: u128 = flat.outcomes.iter().map(|o| o.executions).sum();
    assert_eq!(total, 34_650);
}

/// `--engine flat` on a point it does not cover (a lock) stops with why, naming the other
/// engines; `auto` explores it with the interpreter.
#[test]
fn the_flat_engine_says_what_it_does_not_cover() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "locked.toml",
        "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\n\
         [[actor]]\nname = \"a\"\ncount = 2\nsteps = [{ acquire = \"L\" }, { release = \"L\" }]\n",
    );
    let out = coordsim_in(
        dir.path(),
        &["explore", &config, "--engine", "flat", "--out", "o", "-q"],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("the flat engine does not explore this point")
            && err.contains("a resource other than registers")
            && err.contains("--engine auto"),
        "{err}"
    );
    let out = coordsim_in(dir.path(), &["explore", &config, "--out", "o", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
}
