//! The explorer's graph (`play.json`, `PreparedRun::play`): every state a reader can play
//! to, checked by hand on a tiny scenario and against the exploration on random ones.

use std::collections::{BTreeMap, BTreeSet};

use coordsim_model::{
    Exploration, ExploreLimits, PlayError, PlayGraph, PlayLimits, Reduction, RunContext, Symmetry,
};
use proptest::prelude::*;

use crate::explore::{explore, increments, limits, scenario};
use crate::harness::{coordsim_in, library_config, registry, stderr, write_config};

/// The graph of the first point of `text` within `limits`.
fn play(text: &str, limits: &PlayLimits) -> Result<PlayGraph, PlayError> {
    let config = library_config(&registry(), "play.toml", text).expect("config parses");
    let ctx = RunContext::new(config.seed, config.limits).with_entities(false);
    config.plans[0].play(&ctx, limits)
}

/// The exploration with every order taken and every actor apart: the walk's reference.
fn plain(text: &str) -> Exploration {
    let limits = ExploreLimits {
        symmetry: Symmetry::Off,
        ..limits(Reduction::Off, true)
    };
    explore(text, &limits).remove(0)
}

/// The executions from the start to each end, by its cells printed, counted over the graph
/// in a topological order (a state may be reached along paths of different lengths).
fn paths_to_ends(graph: &PlayGraph) -> BTreeMap<String, u128> {
    let mut into = vec![0usize; graph.states.len()];
    for edge in graph.states.iter().flat_map(|s| &s.edges) {
        into[edge.to as usize] += 1;
    }
    let mut paths = vec![0u128; graph.states.len()];
    paths[0] = 1;
    let mut ready = vec![0usize];
    let mut ends = BTreeMap::new();
    while let Some(id) = ready.pop() {
        let state = &graph.states[id];
        for edge in &state.edges {
            let to = edge.to as usize;
            paths[to] += paths[id];
            into[to] -= 1;
            if into[to] == 0 {
                ready.push(to);
            }
        }
        if let Some(cells) = &state.end {
            *ends.entry(format!("{cells:?}")).or_insert(0) += paths[id];
        }
    }
    ends
}

/// Two clients, one unguarded increment each: a read then a write, every step at instant 0.
/// By hand, each state by how far each client is (0, 1 or 2 events done) and what it read:
/// the start (0,0); (1,0) and (0,1), one client read 0; (2,0) and (0,2), one wrote 1, and
/// (1,1), both read 0; from (2,0) the other reads 1, from (1,1) either writes 1 while the
/// other holds its 0 read: (2,1) and (1,2) twice each, apart by what the waiting client
/// read (1 or 0) and so by what it will write; then the ends: 2 with no update lost (both
/// serial orders meet there) and 1 with one lost (the four others). 1 + 2 + 3 + 4 + 2 = 12
/// states; edges 2 + 4 + (1 + 2 + 1) + 4 = 14; executions 4! / (2! 2!) = 6: 2 end at 2, 4
/// at 1.
#[test]
fn two_increments_make_the_states_counted_by_hand() {
    let graph = play(&increments(2, 1, false), &PlayLimits::default()).expect("plays");
    assert_eq!(graph.states.len(), 12);
    let edges: usize = graph.states.iter().map(|s| s.edges.len()).sum();
    assert_eq!(edges, 14);
    let mut ends: Vec<f64> = graph
        .states
        .iter()
        .filter(|s| s.end.is_some())
        .map(|s| s.registers[0])
        .collect();
    ends.sort_by(f64::total_cmp);
    assert_eq!(ends, [1.0, 2.0]);
    let executions: Vec<u128> = paths_to_ends(&graph).into_values().collect();
    assert_eq!(executions.iter().sum::<u128>(), 6);
    assert_eq!(BTreeSet::from_iter(executions), BTreeSet::from([2, 4]));
    // Every free order, no probability: no event draws.
    assert!(
        graph
            .states
            .iter()
            .flat_map(|s| &s.edges)
            .all(|e| e.probability.is_none())
    );
    // Each client's program in words, the same in every state.
    assert_eq!(graph.actors.len(), 2);
    for actor in &graph.actors {
        let en: Vec<&str> = actor.program.iter().map(|(en, _)| en.as_str()).collect();
        assert_eq!(en, ["read counter", "write counter"]);
    }
}

/// The bound counts states: 12 fit in 12, not in 11.
#[test]
fn the_bound_refuses_a_graph_past_it() {
    let text = increments(2, 1, false);
    let at = |max_states| {
        play(
            &text,
            &PlayLimits {
                max_states,
                ..PlayLimits::default()
            },
        )
    };
    assert_eq!(at(12).expect("12 states fit").states.len(), 12);
    assert_eq!(at(11), Err(PlayError::TooLarge { max_states: 11 }));
}

/// The bound in cells (a page's bytes: a digit and a comma a cell at least) counts each
/// state's pieces: the 12 states of two clients' increment, each with a place per client and
/// a piece per resource, fit in 12 times that many cells, not in one fewer. A point of a
/// hundred actors meets it at a few thousand states where the walk once built half a million
/// children of 30 KB to reach the bound in states (38 s for a page it could not draw).
#[test]
fn the_cells_bound_refuses_a_graph_past_it() {
    let text = increments(2, 1, false);
    let at = |max_cells| {
        play(
            &text,
            &PlayLimits {
                max_cells,
                ..PlayLimits::default()
            },
        )
    };
    let graph = at(u64::MAX).expect("no bound");
    let cells = (graph.actors.len()
        + graph.registers.len()
        + graph.locks.len()
        + graph.queues.len()
        + graph.stores.len()) as u64;
    assert_eq!(graph.states.len(), 12);
    assert_eq!(at(12 * cells).expect("fits").states.len(), 12);
    assert_eq!(
        at(12 * cells - 1),
        Err(PlayError::TooManyCells {
            max_cells: 12 * cells - 1
        })
    );
}

/// The bound in bytes holds where few states are each large (the probe's store of a million
/// keys made the walk take 23 GB). Two clients each set a key of a store of 100,000 keys
/// (which lays its range out: a number and a "present" flag a key, at least 9 bytes, so
/// 0.9 MB a state from then on), then increment a register. The start (the range not laid
/// out yet) is small; once it is taken, its two children (one for each client to set
/// first) wait together, each laid out: 1.8 MB, past 1.5 MB, refused. Under 64 MB the whole
/// walk fits (its widest level: a few states at once).
#[test]
fn the_bytes_bound_refuses_a_walk_of_large_states() {
    let text = r#"model = "scenario"
[[resource]]
name = "ks"
kind = "keys"
initial = { from = 0, count = 100000, value = 0 }
[[resource]]
name = "c"
kind = "register"
[[actor]]
name = "a"
count = 2
steps = [{ set = "ks", key = "i", value = "1" }, { read = "c" }, { write = "c", value = "read + 1" }]
"#;
    let at = |max_memory_bytes| {
        play(
            text,
            &PlayLimits {
                max_memory_bytes,
                ..PlayLimits::default()
            },
        )
    };
    // (The graph is not printed on a failure: each state lists its 100,000 keys.)
    let states = at(64 << 20).map(|graph| graph.states.len());
    assert!(matches!(states, Ok(n) if n > 2), "{states:?}");
    let refused = at(1_500_000).map(|graph| graph.states.len());
    let too_large = PlayError::TooLarge {
        max_states: PlayLimits::default().max_states,
    };
    assert_eq!(refused, Err(too_large));
}

/// A built-in model has no graph: said, not a panic.
#[test]
fn a_built_in_model_is_not_played() {
    let config = library_config(&registry(), "q.toml", crate::harness::RANDOM_SWEEP).unwrap();
    let ctx = RunContext::new(config.seed, config.limits);
    match config.plans[0].play(&ctx, &PlayLimits::default()) {
        Err(PlayError::Other(why)) => assert!(why.contains("only a scenario"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// `coordsim explore` writes `play.json` beside `outcomes.csv`, in the format the site reads
/// (its snapshot, for the tiny scenario: 12 states, 2 outcomes, the claim's path).
#[test]
fn explore_writes_the_graph_file() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}\n[[claim]]\nname = \"no update is lost\"\nover = \"executions\"\nholds = \"always\"\nmetric = \"counter.lost_updates\"\nexpect = 0\n",
        increments(2, 1, false)
    );
    let config = write_config(dir.path(), "tiny.toml", &text);
    let out = coordsim_in(dir.path(), &["explore", &config, "--out", "out"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the claim fails: {}",
        stderr(&out)
    );
    let json = std::fs::read_to_string(dir.path().join("out/tiny-explore/play.json")).unwrap();
    let data: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let point = &data["points"][0];
    assert_eq!(point["s"].as_array().unwrap().len(), 12);
    assert_eq!(point["o"].as_array().unwrap().len(), 2);
    // The claim is decided by the outcome with a lost update: its path ends at its end.
    let claim = &data["claims"][0];
    let k = claim["o"].as_u64().unwrap() as usize;
    let path = point["o"][k]["path"].as_array().unwrap();
    let last = path.last().unwrap().as_u64().unwrap() as usize;
    assert_eq!(point["s"][last][3].as_u64(), Some(k as u64));
    // What the page says at each end: claim 1 ("no update is lost") is not met where an
    // update was lost (the deciding outcome k) and met at the other end.
    let truth = &data["truth"][0];
    assert_eq!(truth[k], serde_json::json!([[1, 0]]));
    assert_eq!(truth[1 - k], serde_json::json!([[1, 1]]));
    insta::assert_snapshot!("play_json_two_increments", json);
}

/// An exploration cut at a bound gets no graph: the walk would meet at least its states and
/// ends its table lacks. The tiny scenario's exploration has more than 3 states (12 above,
/// fewer merged), so `--max-states 3` bounds it; without the bound it is walked.
#[test]
fn a_bounded_exploration_is_not_walked() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "tiny.toml", &increments(2, 1, false));
    let refused = |args: &[&str]| {
        let mut all = vec!["explore", &config, "--out", "out", "-q"];
        all.extend_from_slice(args);
        let out = coordsim_in(dir.path(), &all);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let json = std::fs::read_to_string(dir.path().join("out/tiny-explore/play.json"));
        let data: serde_json::Value = serde_json::from_str(&json.unwrap()).expect("JSON");
        data["points"][0]["refused"].as_str().map(str::to_owned)
    };
    assert_eq!(refused(&[]), None);
    assert_eq!(refused(&["--max-states", "3"]).as_deref(), Some("states"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Against the exploration with every order and every actor apart: the same outcomes,
    /// each reached by as many executions, each outcome's schedule a path of the graph that
    /// ends at it and says the trace's words; as many states where no count tells states
    /// apart (no write), at least as many where one may.
    #[test]
    fn the_graph_has_the_explorations_outcomes_and_executions(text in scenario()) {
        let explored = plain(&text);
        prop_assume!(explored.bounded.is_none());
        let graph = play(&text, &PlayLimits::default()).expect("plays");
        let want: BTreeMap<String, u128> = explored
            .outcomes
            .iter()
            .map(|o| (format!("{:?}", o.metrics), o.executions))
            .collect();
        prop_assert_eq!(paths_to_ends(&graph), want, "{}", text);
        if text.contains("write =") {
            prop_assert!(graph.states.len() as u64 >= explored.states, "{}", text);
        } else {
            prop_assert_eq!(graph.states.len() as u64, explored.states, "{}", text);
        }
        for outcome in &explored.outcomes {
            let path = graph.path(&outcome.schedule.events);
            prop_assert!(path.is_some(), "{}", text);
            let path = path.unwrap();
            let end = &graph.states[*path.last().unwrap() as usize];
            prop_assert_eq!(end.end.as_ref(), Some(&outcome.metrics), "{}", text);
            let rows: Vec<_> = path
                .iter()
                .zip(&outcome.schedule.events)
                .flat_map(|(&at, decision)| {
                    let edges = &graph.states[at as usize].edges;
                    edges.iter().find(|e| e.decision == *decision).unwrap().rows.clone()
                })
                .collect();
            // The trace's last rows may say who is stuck at the end: no event's.
            prop_assert_eq!(&rows[..], &outcome.trace[..rows.len()], "{}", text);
        }
    }
}

/// `play.json` walks each point under the exploration's own fault budget: with
/// `--max-faults 2` the at-least-once example has a third outcome per point (two crashes of
/// the consumer), and the page can play an execution to every outcome the exploration lists
/// (under a budget of 1 the twice-crashed outcome had no path in the graph).
#[test]
fn the_graph_is_walked_under_the_explorations_fault_budget() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::root()
        .join("configs/explore/explore-at-least-once.toml")
        .to_string_lossy()
        .into_owned();
    let out = coordsim_in(
        dir.path(),
        &["explore", &config, "--max-faults", "2", "--out", "o", "-q"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text =
        std::fs::read_to_string(dir.path().join("o/explore-at-least-once-explore/play.json"))
            .unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let points = json["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    for point in points {
        let outcomes = point["o"].as_array().unwrap();
        assert_eq!(outcomes.len(), 3, "{point}");
        for outcome in outcomes {
            assert!(
                outcome["path"].is_array(),
                "an outcome with no path: {outcome}"
            );
        }
    }
}
