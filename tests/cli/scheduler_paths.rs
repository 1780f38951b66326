//! The extreme scheduler's most likely execution ([`Schedulers::extreme_path`]): against
//! every memoryless scheduler enumerated on tiny graphs (on a graph without cycles one
//! that chooses by the entry alone is as good as any), and by hand.

use coordsim_model::explore::Schedulers;
use proptest::prelude::*;

use crate::schedulers::{Tiny, tiny};

impl Tiny {
    /// Every memoryless scheduler: one action per entry that goes on.
    fn memoryless(&self) -> Vec<Vec<usize>> {
        let mut all = vec![vec![0usize; self.entries.len()]];
        for (entry, actions) in self.entries.iter().enumerate() {
            let Some(actions) = actions else { continue };
            all = all
                .into_iter()
                .flat_map(|choice| {
                    (0..actions.len()).map(move |a| {
                        let mut c = choice.clone();
                        c[entry] = a;
                        c
                    })
                })
                .collect();
        }
        all
    }

    /// P(in_set) from `entry` under `choice`, by a plain recursion.
    fn chance(&self, choice: &[usize], entry: usize, in_set: &dyn Fn(usize) -> bool) -> f64 {
        match &self.entries[entry] {
            None => f64::from(u8::from(in_set(self.ends[entry]))),
            Some(actions) => {
                let action = &actions[choice[entry]];
                action
                    .iter()
                    .map(|&(to, w)| Tiny::probability(action, w) * self.chance(choice, to, in_set))
                    .sum()
            }
        }
    }

    /// The most likely execution's probability under `choice` ending where `into` holds.
    fn likeliest(&self, choice: &[usize], entry: usize, into: &dyn Fn(usize) -> bool) -> f64 {
        match &self.entries[entry] {
            None => f64::from(u8::from(into(self.ends[entry]))),
            Some(actions) => {
                let action = &actions[choice[entry]];
                action
                    .iter()
                    .map(|&(to, w)| Tiny::probability(action, w) * self.likeliest(choice, to, into))
                    .fold(0.0, f64::max)
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Its probability is the greatest any extreme scheduler gives one execution ending
    /// `into`; the path is one: each step a branch of an action of its entry, the product of
    /// their probabilities, and an end `into` holds for; and some extreme scheduler takes
    /// every action along it.
    #[test]
    fn the_extreme_schedulers_likeliest_execution(tiny in tiny(), set in 0u8..8, into in 0u8..8, least: bool) {
        let in_set = |k: usize| set >> k & 1 == 1;
        let into_set = |k: usize| into >> k & 1 == 1;
        let s: Schedulers = tiny.schedulers();
        let extreme = s.extreme(&in_set, least);
        let schedulers = tiny.memoryless();
        let extremes: Vec<&Vec<usize>> = schedulers
            .iter()
            .filter(|c| (tiny.chance(c, 0, &in_set) - extreme).abs() < 1e-12)
            .collect();
        prop_assert!(!extremes.is_empty());
        let best = extremes.iter().map(|c| tiny.likeliest(c, 0, &into_set)).fold(0.0, f64::max);
        match s.extreme_path(&in_set, least, &into_set) {
            None => prop_assert!(best == 0.0, "none, but {best}"),
            Some((path, p)) => {
                prop_assert!((p - best).abs() < 1e-12, "{p} vs {best}");
                let mut entry = 0u32;
                let mut product = 1.0;
                for &(at, action, branch) in &path {
                    prop_assert_eq!(at, entry);
                    let (q, to) = s.branch(at, action, branch);
                    product *= q;
                    entry = to;
                }
                let end = s.outcome_of(entry);
                prop_assert!(end != Schedulers::GOES_ON && into_set(end as usize));
                prop_assert!((product - p).abs() < 1e-12);
                // Some extreme scheduler takes these actions.
                prop_assert!(extremes.iter().any(|c| path.iter().all(|&(at, a, _)| c[at as usize] == a as usize)));
            }
        }
    }
}

/// By hand, on the sure outcome or the coin: entry 0 takes `a` (to outcome 0 for sure) or
/// `b` (0.3 to outcome 1, 0.7 to outcome 0). The least P(outcome 1) is 0, by `a` only: its
/// likeliest execution out of the set is `a` itself (probability 1), and none of that
/// scheduler reaches outcome 1. The greatest, 0.3, is `b`'s: into the set, its heads (0.3).
#[test]
fn the_sure_outcome_or_the_coin_by_hand() {
    let mut s = Schedulers::new();
    s.push_entry();
    s.push_action().unwrap();
    s.push_branch(1, 1.0).unwrap();
    s.push_action().unwrap();
    s.push_branch(2, 0.3).unwrap();
    s.push_branch(3, 0.7).unwrap();
    s.push_end(0);
    s.push_end(1);
    s.push_end(0);
    let one = |k: usize| k == 1;
    let not_one = |k: usize| k != 1;
    assert_eq!(
        s.extreme_path(&one, true, &not_one),
        Some((vec![(0, 0, 0)], 1.0))
    );
    assert_eq!(s.extreme_path(&one, true, &one), None);
    assert_eq!(
        s.extreme_path(&one, false, &one),
        Some((vec![(0, 1, 0)], 0.3))
    );
}

/// The hand-solved scenario of the tests below: `a` increments the counter with chance 0.9
/// (its draw at its first event), `b` always does, both at 0 ms; claim 1 is the greatest
/// probability of a lost update (`max`), claim 2 its least (`min`), claim 3 the greatest
/// mean of the counter, claims 4 and 5 its least and greatest median.
///
/// By hand. An update is lost exactly when `a` increments and both reads come before both
/// writes (then the second write lands on the first's value, not on what its actor read):
/// the order is free at each instant, so a scheduler decides it, knowing the draw.
/// - max: a scheduler that puts both reads first whenever `a` increments loses one with
///   P = 0.9 (the draw's yes), the greatest. Its most likely execution with a lost update:
///   `a` draws yes (0.9), then both reads, then both writes (the order costs no
///   probability): p = 0.9, ending with counter.value = 1, lost_updates = 1.
/// - min: a scheduler that runs each increment whole loses none: P = 0, the least. No
///   execution of it meets the test, so it is shown by its most likely execution of all:
///   `a` draws yes (0.9, against 0.1 for no) and the increments run one after the other:
///   p = 0.9, ending with counter.value = 2, lost_updates = 0.
/// - the greatest mean of counter.value: 0.9 · 2 + 0.1 · 1 = 1.9 (lose nothing); its most
///   likely execution is the min one's, p = 0.9, counter.value = 2.
/// - the median of counter.value (values 1 and 2): a scheduler that loses whenever it can
///   ends at 1 always (median 1), one that loses nothing at 2 with 0.9 (median 2), so the
///   medians are [1, 2]. The least is the median of a scheduler with the greatest
///   P(value ≤ 1), the loser: its most likely execution at 1 is the max one's (p = 0.9).
///   The greatest is that of a scheduler with the least P(value < 2), the careful one: at
///   2, the min one's (p = 0.9).
///
/// So the two schedules take the same draw and differ only in their orders: a schedule
/// that lost the event chosen at a free order would run to the other outcome.
const LOST_BEHIND_A_CHANCE: &str = r#"
[[claim]]
name = "worst"
over = "executions"
metric = "counter.lost_updates"
expect = 1
probability = 0.9
scheduler = "max"
[[claim]]
name = "best"
over = "executions"
metric = "counter.lost_updates"
expect = 1
probability = 0
scheduler = "min"
[[claim]]
name = "mean"
over = "executions"
metric = "counter.value"
stat = "mean"
expect = 1.9
scheduler = "max"
[[claim]]
name = "least median"
over = "executions"
metric = "counter.value"
stat = "p50"
expect = 1
scheduler = "min"
[[claim]]
name = "greatest median"
over = "executions"
metric = "counter.value"
stat = "p50"
expect = 2
scheduler = "max"
"#;

/// The config of [`LOST_BEHIND_A_CHANCE`].
fn lost_behind_a_chance() -> String {
    format!(
        "{}{LOST_BEHIND_A_CHANCE}",
        crate::schedulers::chance_and_increment("0.9")
    )
}

/// The exploration answers each claim over schedulers with the execution worked out by
/// hand above, its probability the one [`Schedulers::extreme_path`] gives for the same sets,
/// ending in the outcome it stands for; under every reduction and with the plain tree.
#[test]
fn each_scheduler_claim_gets_its_schedulers_likeliest_execution() {
    use coordsim_model::{Reduction, Symmetry};
    let text = lost_behind_a_chance();
    let config =
        crate::harness::library_config(&crate::harness::registry(), "x.toml", &text).unwrap();
    let metric = |name: &str| {
        (config.model.metrics().iter())
            .position(|m| m.name == name)
            .unwrap()
    };
    let (lost, value) = (metric("counter.lost_updates"), metric("counter.value"));
    for (reduce, merge, symmetry) in [
        (Reduction::On, true, Symmetry::On),
        (Reduction::Off, true, Symmetry::Off),
        (Reduction::Off, false, Symmetry::Off),
    ] {
        let limits = crate::schedulers::keeping(reduce, merge, symmetry);
        let explored = coordsim::check::explore_showing(&config, &limits).unwrap();
        let e = &explored[0];
        let graph = e.schedulers.as_ref().expect("the graph kept");
        let cell = |k: usize, m: usize| e.outcomes[k].metrics[m].as_f64().unwrap();
        let tags: Vec<u32> = e.paths.iter().map(|p| p.tag).collect();
        assert_eq!(tags, [0, 1, 2, 3, 4]);
        let ends: Vec<(f64, f64)> = (e.paths.iter())
            .map(|p| (cell(p.outcome, value), cell(p.outcome, lost)))
            .collect();
        assert_eq!(
            ends,
            [(1.0, 1.0), (2.0, 0.0), (2.0, 0.0), (1.0, 1.0), (2.0, 0.0)]
        );
        for path in &e.paths {
            assert!(
                (path.probability - 0.9).abs() < 1e-12,
                "{}",
                path.probability
            );
            // One draw, yes, in every one: the order alone tells them apart.
            let draws: Vec<bool> = (path.schedule.events.iter())
                .flat_map(|d| d.draws.clone())
                .collect();
            assert_eq!(draws, [true]);
        }
        assert_ne!(e.paths[0].schedule, e.paths[1].schedule);
        // The same probabilities from the graph alone.
        let meets = |k: usize| cell(k, lost) == 1.0;
        let every = |_: usize| true;
        let (_, worst) = graph.extreme_path(&meets, false, &meets).unwrap();
        let (_, best) = graph.extreme_path(&meets, true, &every).unwrap();
        assert_eq!(
            (worst, best),
            (e.paths[0].probability, e.paths[1].probability)
        );
    }
}

/// `explore` writes each scheduler claim's execution as its trace, says which scheduler's
/// it is, and its schedule runs again (`run --schedule`) to the outcome it stands for:
/// the worst's both reads before both writes and an update lost, the best's each increment
/// whole and the counter at 2 (see [`LOST_BEHIND_A_CHANCE`]).
#[test]
fn explore_writes_the_schedulers_execution_and_it_runs_again() {
    use crate::harness::{coordsim_in, stderr, stdout, write_config};
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), "lost.toml", &lost_behind_a_chance());
    let o = coordsim_in(dir.path(), &["explore", &path, "--out", "out", "-q"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = dir.path().join("out/lost-explore");
    let read = |file: &str| std::fs::read_to_string(out.join(file)).unwrap();
    let md = read("explore.md");
    assert!(
        md.contains("## worst: the most likely execution under the scheduler of the greatest probability: probability 0.9 (outcome "),
        "{md}"
    );
    assert!(
        md.contains("## best: the most likely execution under the scheduler of the least probability: probability 0.9 ("),
        "{md}"
    );
    assert!(
        md.contains("## mean: the most likely execution under the scheduler of the greatest mean: probability 0.9 ("),
        "{md}"
    );
    assert!(
        md.contains("## least median: the most likely execution under the scheduler of the least p50: probability 0.9 ("),
        "{md}"
    );
    // The steps that touch the counter, in order (the draw is a row of its own).
    let touches = |csv: &str| -> Vec<String> {
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        (reader.records())
            .map(|r| r.unwrap()[3].to_string())
            .filter(|a| a.starts_with("reads") || a.starts_with("writes"))
            .map(|a| a.split(' ').next().unwrap().to_string())
            .collect()
    };
    let worst = read("trace-1.csv");
    assert_eq!(
        touches(&worst),
        ["reads", "reads", "writes", "writes"],
        "{worst}"
    );
    assert!(worst.contains("a lost update"), "{worst}");
    let best = read("trace-2.csv");
    assert_eq!(
        touches(&best),
        ["reads", "writes", "reads", "writes"],
        "{best}"
    );
    assert!(!best.contains("a lost update"), "{best}");
    for file in [&worst, &best] {
        assert!(file.contains("chance: yes (p = 0.9)"), "{file}");
    }
    assert!(read("schedule-1.toml").contains("greatest probability: probability 0.9"));
    // Each schedule run again ends where its claim's scheduler does.
    for (n, value, lost) in [
        (1, "1", "1"),
        (2, "2", "0"),
        (3, "2", "0"),
        (4, "1", "1"),
        (5, "2", "0"),
    ] {
        let schedule = out.join(format!("schedule-{n}.toml"));
        let o = coordsim_in(
            dir.path(),
            &[
                "run",
                &path,
                "--schedule",
                schedule.to_str().unwrap(),
                "--out",
                &format!("run-{n}"),
            ],
        );
        assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
        let run = dir
            .path()
            .join(format!("run-{n}/lost-schedule-{n}/results.csv"));
        let mut reader = csv::Reader::from_path(&run).unwrap();
        let header = reader.headers().unwrap().clone();
        let row = reader.records().next().unwrap().unwrap();
        let cell = |name: &str| &row[header.iter().position(|h| h == name).unwrap()];
        assert_eq!(
            (cell("counter.value"), cell("counter.lost_updates")),
            (value, lost)
        );
    }
}

/// The site's explorer steps through a scheduler claim's own execution: `play.json` gives
/// each such claim the states it goes through (`g`), from the start along the graph's
/// edges to an end of the claim's outcome, one state an event of its schedule (the worst's
/// two reads and two writes, the draw an edge's own: 4 events, 5 states).
#[test]
fn play_json_gives_a_scheduler_claim_its_executions_states() {
    use crate::harness::{coordsim_in, stderr, stdout, write_config};
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), "lost.toml", &lost_behind_a_chance());
    let o = coordsim_in(dir.path(), &["explore", &path, "--out", "out", "-q"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = dir.path().join("out/lost-explore");
    let play: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("play.json")).unwrap()).unwrap();
    let states = play["points"][0]["s"].as_array().unwrap();
    let claims = play["claims"].as_array().unwrap();
    assert_eq!(claims.len(), 5);
    for claim in claims {
        let g: Vec<u64> = (claim["g"].as_array().expect("a scheduler's path").iter())
            .map(|s| s.as_u64().unwrap())
            .collect();
        assert_eq!(g[0], 0, "{claim}");
        for pair in g.windows(2) {
            let edges = states[pair[0] as usize][2].as_array().unwrap();
            let targets: Vec<i64> = (edges.chunks(2))
                .map(|e| pair[0] as i64 + e[0].as_i64().unwrap())
                .collect();
            assert!(targets.contains(&(pair[1] as i64)), "{claim}: {pair:?}");
        }
        let end = &states[*g.last().unwrap() as usize];
        assert_eq!(end[3], claim["o"], "{claim}");
    }
    // The worst's: both reads, both writes.
    assert_eq!(claims[0]["g"].as_array().unwrap().len(), 5);
}
