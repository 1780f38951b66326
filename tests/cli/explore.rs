//! `coordsim explore`: every execution of a scenario, counted and told apart by outcome; the
//! merging of states and the partial-order reduction checked against the plain tree.

use std::collections::{BTreeMap, BTreeSet};

use coordsim_model::{Exploration, ExploreLimits, Reduction, Symmetry};
use proptest::prelude::*;

use crate::harness::{coordsim_in, library_config, registry, stderr, stdout, write_config};

/// Every point of `text` explored with `limits`.
pub(crate) fn explore(text: &str, limits: &ExploreLimits) -> Vec<Exploration> {
    let config = library_config(&registry(), "explore.toml", text).expect("config parses");
    coordsim::runner::explore::explore_config(&config, config.seed, limits).expect("explores")
}

pub(crate) fn limits(reduce: Reduction, merge: bool) -> ExploreLimits {
    ExploreLimits {
        reduce,
        merge_states: merge,
        ..ExploreLimits::default()
    }
}

/// The distinct outcomes, as their cells printed.
fn outcome_set(e: &Exploration) -> BTreeSet<String> {
    e.outcomes
        .iter()
        .map(|o| format!("{:?}", o.metrics))
        .collect()
}

/// Each outcome's executions and probability (printed), by its cells.
fn counts(e: &Exploration) -> BTreeMap<String, (u128, String)> {
    e.outcomes
        .iter()
        .map(|o| {
            let p = o.probability.map(|p| format!("{p:.12}"));
            (format!("{:?}", o.metrics), (o.executions, format!("{p:?}")))
        })
        .collect()
}

/// Where metric `name` is among an outcome's cells.
pub(crate) fn metric_at(config: &coordsim::config::Config, name: &str) -> usize {
    config
        .model
        .metrics()
        .iter()
        .position(|m| m.name == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// The values metric `name` ends with over every execution.
fn values(text: &str, e: &Exploration, name: &str) -> BTreeSet<String> {
    let config = library_config(&registry(), "explore.toml", text).unwrap();
    let i = metric_at(&config, name);
    e.outcomes
        .iter()
        .map(|o| o.metrics[i].to_string())
        .collect()
}

/// `k` clients each incrementing one register `n` times, every step taking no time.
pub(crate) fn increments(k: u32, n: u32, guarded: bool) -> String {
    let steps = if guarded {
        r#"[{ acquire = "L" }, { read = "counter" }, { write = "counter", value = "read + 1" }, { release = "L" }]"#
    } else {
        r#"[{ read = "counter" }, { write = "counter", value = "read + 1" }]"#
    };
    format!(
        r#"model = "scenario"
[[resource]]
name = "counter"
kind = "register"
[[resource]]
name = "L"
kind = "lock"
mode = "queue"
[[actor]]
name = "c"
count = {k}
repeat = {n}
steps = {steps}
"#
    )
}

/// Two clients of two unguarded increments: 4 actions each, so the executions are the
/// interleavings of two sequences of 4, 8! / (4! 4!) = 40320 / 576 = 70, with the merging
/// of states and without (the tree), and with the reduction off (every action conflicts).
/// The final value: at most 2·2 = 4 (serial), at least 2 (the last write is its client's
/// last read + 1, and that client wrote ≥ 1 before it, so the register is ≥ 1 then).
#[test]
fn executions_are_the_interleavings_and_the_final_value_ranges_from_2_to_4() {
    let text = increments(2, 2, false);
    for merge in [true, false] {
        for reduce in [Reduction::Off, Reduction::On] {
            let e = &explore(&text, &limits(reduce, merge))[0];
            assert_eq!(e.bounded, None);
            assert_eq!(e.executions, 70, "merge {merge}, {reduce:?}");
            assert_eq!(e.reduced, 0, "no action commutes with the other client's");
            assert_eq!(e.longest, 8);
            assert!(e.ordered);
            assert!(e.outcomes.iter().all(|o| o.probability.is_none()));
            let finals = values(&text, e, "counter.value");
            assert_eq!(finals, BTreeSet::from(["2".into(), "3".into(), "4".into()]));
        }
    }
}

/// Three clients of one increment: 2 actions each, 6! / (2! 2! 2!) = 720 / 8 = 90
/// executions; the final value 1 (all read 0 first), 2 or 3 (serial).
#[test]
fn three_clients_have_90_executions() {
    let text = increments(3, 1, false);
    let e = &explore(&text, &limits(Reduction::On, true))[0];
    assert_eq!(e.executions, 90);
    let finals = values(&text, e, "counter.value");
    assert_eq!(finals, BTreeSet::from(["1".into(), "2".into(), "3".into()]));
    let counted: u128 = e.outcomes.iter().map(|o| o.executions).sum();
    assert_eq!(
        counted, e.executions,
        "each execution ends with one outcome"
    );
}

/// With the lock around each increment every execution ends at k·n = 2·2 = 4.
#[test]
fn a_lock_makes_every_execution_end_at_k_times_n() {
    let text = increments(2, 2, true);
    let e = &explore(&text, &limits(Reduction::On, true))[0];
    assert_eq!(e.bounded, None);
    assert_eq!(
        values(&text, e, "counter.value"),
        BTreeSet::from(["4".into()])
    );
}

/// With no order to choose, each outcome has its exact probability: two repetitions each
/// taking a chance of 0.3 to increment give 2 with 0.3² = 0.09, 1 with 2·0.3·0.7 = 0.42,
/// 0 with 0.7² = 0.49, over 2² = 4 executions.
#[test]
fn chances_alone_give_exact_probabilities() {
    let text = r#"model = "scenario"
[[resource]]
name = "counter"
kind = "register"
[[actor]]
name = "c"
repeat = 2
steps = [{ if = { chance = 0.3 }, then = [{ read = "counter" }, { write = "counter", value = "read + 1" }] }]
"#;
    let e = &explore(text, &limits(Reduction::On, true))[0];
    assert!(!e.ordered);
    assert_eq!(e.executions, 4);
    let config = library_config(&registry(), "explore.toml", text).unwrap();
    let at = metric_at(&config, "counter.value");
    let mut by_value: Vec<(String, f64)> = e
        .outcomes
        .iter()
        .map(|o| (o.metrics[at].to_string(), o.probability.unwrap()))
        .collect();
    by_value.sort_by(|a, b| a.0.cmp(&b.0));
    let expected = [("0", 0.49), ("1", 0.42), ("2", 0.09)];
    assert_eq!(by_value.len(), 3);
    for ((v, p), (ev, ep)) in by_value.iter().zip(expected) {
        assert_eq!(v, ev);
        assert!((p - ep).abs() < 1e-12, "{v}: {p} vs {ep}");
    }
}

/// A claim's `probability` sums the probabilities of the outcomes that meet its test:
/// with two repetitions each taking a chance of 0.3, the counter ends at 2 with
/// 0.3² = 0.09 exactly; 0.1 fails; and where an instant leaves a free order (two clients
/// at once) executions have no probability, so the claim fails saying why.
#[test]
fn a_probability_claim_is_exact_and_fails_when_it_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let claim = |p: &str, clients: u32| {
        format!(
            r#"model = "scenario"
[[resource]]
name = "counter"
kind = "register"
[[actor]]
name = "c"
count = {clients}
repeat = 2
steps = [{{ if = {{ chance = 0.3 }}, then = [{{ read = "counter" }}, {{ write = "counter", value = "read + 1" }}] }}]
[[claim]]
over = "executions"
metric = "counter.value"
expect = 2
probability = {p}
"#
        )
    };
    let check = |name: &str, text: &str| {
        let path = write_config(dir.path(), name, text);
        let o = coordsim_in(dir.path(), &["check", &path]);
        (o.status.code(), stdout(&o))
    };
    let (code, out) = check("exact.toml", &claim("0.09", 1));
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("probability that counter.value = 2 = 0.09"),
        "{out}"
    );
    let (code, out) = check("wrong.toml", &claim("0.1", 1));
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("FAIL"), "{out}");
    let (code, out) = check("ordered.toml", &claim("0.09", 2));
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("free order"), "{out}");
}

/// A fault past the budget is no branch, but its probability counts: the at-least-once
/// config (one message, a crash of p = 0.2 after the effect, one fault allowed) ends with
/// no duplicate with 1 − p = 0.8, one with p (1 − p) = 0.16, and the p² = 0.04 of two
/// crashes or more is beyond the budget, in no outcome. `duplicate_effects` is a derived
/// metric (`[[metric]]`): explored through it.
#[test]
fn probabilities_are_those_within_the_fault_budget() {
    let path = crate::harness::root().join("configs/explore/explore-at-least-once.toml");
    let text = String::from_utf8(crate::harness::read(&path)).unwrap();
    let config = library_config(&registry(), "at-least-once.toml", &text).unwrap();
    let at = metric_at(&config, "duplicate_effects");
    let explored =
        coordsim::runner::explore::explore_config(&config, 0, &limits(Reduction::On, true))
            .unwrap();
    for (point, e) in explored.iter().enumerate() {
        let mut got: Vec<(String, f64)> = e
            .outcomes
            .iter()
            .map(|o| {
                (
                    o.metrics[at].to_string(),
                    o.probability.expect("no order to choose"),
                )
            })
            .collect();
        got.sort_by(|a, b| a.1.total_cmp(&b.1));
        // point 0: the plain consumer; point 1: the deduplicating one.
        let twice = if point == 0 { "1" } else { "0" };
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, twice);
        assert!((got[0].1 - 0.16).abs() < 1e-12);
        assert_eq!(got[1].0, "0");
        assert!((got[1].1 - 0.8).abs() < 1e-12);
    }
}

/// Actors on registers of their own commute: the reduction takes one order of them, far
/// fewer states, the same outcomes as every order. Here a and b each run 3 increments of
/// their own register; c and d share one register (2 increments each), so the shared part
/// still has its 8! / (4! 4!) = 70 interleavings, and those are the executions counted.
#[test]
fn independent_actors_are_taken_in_one_order() {
    let text = r#"model = "scenario"
[[resource]]
name = "ra"
kind = "register"
[[resource]]
name = "rb"
kind = "register"
[[resource]]
name = "shared"
kind = "register"
[[actor]]
name = "a"
repeat = 3
steps = [{ read = "ra" }, { write = "ra", value = "read + 1" }]
[[actor]]
name = "b"
repeat = 3
steps = [{ read = "rb" }, { write = "rb", value = "read + 1" }]
[[actor]]
name = "c"
repeat = 2
steps = [{ read = "shared" }, { write = "shared", value = "read + 1" }]
[[actor]]
name = "d"
repeat = 2
steps = [{ read = "shared" }, { write = "shared", value = "read + 1" }]
"#;
    let on = &explore(text, &limits(Reduction::On, true))[0];
    let off = &explore(text, &limits(Reduction::Off, true))[0];
    assert_eq!(on.bounded, None);
    assert_eq!(off.bounded, None);
    assert_eq!(outcome_set(on), outcome_set(off));
    assert!(on.reduced > 0);
    assert_eq!(on.executions, 70);
    // Without it: the 20 actions of four sequences (6, 6, 4, 4) in every order,
    // 20! / (6! 6! 4! 4!) = 8_147_739_600, counted over the graph; far more states.
    assert_eq!(
        off.executions,
        factorial(20) / (factorial(6) * factorial(6) * factorial(4) * factorial(4))
    );
    assert!(
        on.states * 20 < off.states,
        "{} vs {}",
        on.states,
        off.states
    );
}

fn factorial(n: u128) -> u128 {
    (1..=n).product()
}

/// A planted bug (reads and writes of a register taken as commuting) takes one order of
/// everything: a single outcome is left, where every order gives 2, 3 and 4. The
/// comparison the property below makes catches it.
#[test]
fn a_reduction_that_ignores_register_conflicts_is_caught() {
    let text = increments(2, 2, false);
    let bug = &explore(&text, &limits(Reduction::PlantedBug, true))[0];
    let off = &explore(&text, &limits(Reduction::Off, true))[0];
    assert_eq!(values(&text, bug, "counter.value").len(), 1);
    assert_eq!(values(&text, off, "counter.value").len(), 3);
    assert_ne!(outcome_set(bug), outcome_set(off));
}

/// A bound reached is said, and a claim that must hold `always` then fails for it.
/// One operation of a generated actor's repetition.
#[derive(Debug, Clone)]
enum Op {
    Increment(u8),
    Set(u8, u8),
    Locked(u8),
    Insert(u8),
    Lookup(u8),
    /// A key store's step on a key of the member's own (`key = "i"`), its store's numbers
    /// whole (or not: `0.5`).
    OwnKey(u8),
    Maybe(u8),
    /// Two increments at once (a `parallel`: its branches are jobs of their own).
    Both(u8, u8),
    Put,
    /// A take that gives up after 1 ms (time passes: a timeout is no choice).
    Take,
}

impl Op {
    /// Its shared actions (a chance's taken branch counted).
    fn actions(&self) -> u32 {
        match self {
            Op::Increment(_) | Op::Maybe(_) => 2,
            Op::Locked(_) | Op::Both(..) => 4,
            Op::Set(..) | Op::Insert(_) | Op::Lookup(_) | Op::OwnKey(_) | Op::Put | Op::Take => 1,
        }
    }

    fn steps(&self) -> String {
        let inc =
            |r: u8| format!(r#"{{ read = "r{r}" }}, {{ write = "r{r}", value = "read + 1" }}"#);
        match self {
            Op::Increment(r) => inc(*r),
            Op::Set(r, v) => format!(r#"{{ write = "r{r}", value = "{v}" }}"#),
            Op::Locked(r) => format!(r#"{{ acquire = "L" }}, {}, {{ release = "L" }}"#, inc(*r)),
            Op::Insert(k) => format!(r#"{{ insert = "K", key = "{k}" }}"#),
            Op::Lookup(k) => format!(r#"{{ lookup = "K", key = "{k}" }}"#),
            Op::OwnKey(0) => r#"{ set = "K", key = "i", value = "1" }"#.to_string(),
            Op::OwnKey(1) => r#"{ insert = "K", key = "i + 1" }"#.to_string(),
            Op::OwnKey(2) => r#"{ set = "K", key = "i", value = "0.5" }"#.to_string(),
            Op::OwnKey(_) => r#"{ lookup = "K", key = "i" }"#.to_string(),
            Op::Maybe(r) => format!(r#"{{ if = {{ chance = 0.5 }}, then = [{}] }}"#, inc(*r)),
            Op::Both(r, s) => format!(r#"{{ parallel = [[{}], [{}]] }}"#, inc(*r), inc(*s)),
            Op::Put => r#"{ put = "Q", value = "1" }"#.to_string(),
            Op::Take => r#"{ take = "Q", timeout_ms = 1 }"#.to_string(),
        }
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..3).prop_map(Op::Increment),
        (0u8..3, 1u8..4).prop_map(|(r, v)| Op::Set(r, v)),
        (0u8..3).prop_map(Op::Locked),
        (0u8..2).prop_map(Op::Insert),
        (0u8..2).prop_map(Op::Lookup),
        (0u8..4).prop_map(Op::OwnKey),
        (0u8..3).prop_map(Op::Maybe),
        (0u8..3, 0u8..3).prop_map(|(r, s)| Op::Both(r, s)),
        Just(Op::Put),
        Just(Op::Take),
    ]
}

/// A scenario of 2 or 3 groups (1 or 2 actors each, 1 or 2 repetitions) of 1 or 2 ops, at
/// most 10 shared actions in all.
pub(crate) fn scenario() -> impl Strategy<Value = String> {
    prop::collection::vec((1u32..3, 1u32..3, prop::collection::vec(op(), 1..3)), 2..4)
        .prop_filter("at most 10 shared actions in all: a tree to enumerate", |groups| {
            let actions: u32 = groups
                .iter()
                .map(|(count, repeat, ops)| count * repeat * ops.iter().map(Op::actions).sum::<u32>())
                .sum();
            actions <= 10
        })
        .prop_map(
        |groups| {
            let mut text = String::from("model = \"scenario\"\n");
            for r in 0..3 {
                text.push_str(&format!("[[resource]]\nname = \"r{r}\"\nkind = \"register\"\n"));
            }
            text.push_str("[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n");
            text.push_str("[[resource]]\nname = \"K\"\nkind = \"keys\"\n");
            text.push_str("[[resource]]\nname = \"Q\"\nkind = \"queue\"\n");
            for (g, (count, repeat, ops)) in groups.iter().enumerate() {
                let steps: Vec<String> = ops.iter().map(Op::steps).collect();
                text.push_str(&format!(
                    "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\nsteps = [{}]\n",
                    steps.join(", ")
                ));
            }
            text
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The reduction finds the outcomes of every order, and the merged graph counts the
    /// tree's executions and probabilities: against the plain tree (no merging, no
    /// reduction), the independent reference.
    #[test]
    fn the_reduction_and_the_merging_lose_no_outcome(text in scenario()) {
        let bound = ExploreLimits { max_states: 5_000, ..limits(Reduction::Off, false) };
        let tree = &explore(&text, &bound)[0];
        prop_assume!(tree.bounded.is_none());
        let merged = &explore(&text, &limits(Reduction::Off, true))[0];
        let reduced = &explore(&text, &limits(Reduction::On, true))[0];
        prop_assert_eq!(outcome_set(reduced), outcome_set(tree), "{}", text);
        prop_assert_eq!(outcome_set(merged), outcome_set(tree), "{}", text);
        prop_assert_eq!(merged.executions, tree.executions, "{}", text);
        prop_assert!(reduced.states <= merged.states, "{}", text);
        prop_assert_eq!(counts(merged), counts(tree), "{}", text);
        // The merged graph finds the outcomes in the tree's order, each by the tree's first
        // (shortest, then earliest) execution, and the same longest execution.
        let firsts = |e: &Exploration| -> Vec<(String, coordsim_model::Schedule)> {
            e.outcomes
                .iter()
                .map(|o| (format!("{:?}", o.metrics), o.schedule.clone()))
                .collect()
        };
        let plain = &explore(&text, &ExploreLimits { symmetry: Symmetry::Off, ..limits(Reduction::Off, true) })[0];
        prop_assert_eq!(firsts(plain), firsts(tree), "{}", text);
        prop_assert_eq!(plain.longest, tree.longest, "{}", text);
        // Under symmetry (on by default) a kept state may be a renaming of the one an
        // execution meets: the same outcomes, counts and longest execution, each outcome
        // by a first execution as short as the tree's (perhaps with members swapped).
        prop_assert_eq!(merged.longest, tree.longest, "{}", text);
        let lengths = |e: &Exploration| -> Vec<(String, usize)> {
            e.outcomes
                .iter()
                .map(|o| (format!("{:?}", o.metrics), o.schedule.events.len()))
                .collect()
        };
        prop_assert_eq!(lengths(merged), lengths(tree), "{}", text);
        for (got, want) in replayed(&text, merged).iter().zip(&merged.outcomes) {
            prop_assert_eq!(got, &want.metrics, "{}", text);
        }
        // On two threads: the same exploration, to the last trace, with symmetry and
        // without.
        let parallel = &explore(&text, &ExploreLimits { jobs: 2, ..limits(Reduction::On, true) })[0];
        prop_assert_eq!(parallel, reduced, "{}", text);
        let apart = ExploreLimits { symmetry: Symmetry::Off, ..limits(Reduction::On, true) };
        let one = &explore(&text, &apart)[0];
        let two = &explore(&text, &ExploreLimits { jobs: 2, ..apart })[0];
        prop_assert_eq!(two, one, "{}", text);
        // Each outcome's schedule, run as a run, ends with that outcome.
        for (got, want) in replayed(&text, reduced).iter().zip(&reduced.outcomes) {
            prop_assert_eq!(got, &want.metrics, "{}", text);
        }
    }
}

/// Each outcome's schedule run again (`PreparedRun::replay`): the metrics it ends with.
pub(crate) fn replayed(text: &str, e: &Exploration) -> Vec<Vec<coordsim_model::Cell>> {
    let config = library_config(&registry(), "explore.toml", text).unwrap();
    let ctx = coordsim_model::RunContext::new(config.seed, config.limits);
    e.outcomes
        .iter()
        .map(|o| {
            config.plans[0]
                .replay(&ctx, &o.schedule)
                .expect("an explored execution replays")
                .metrics
        })
        .collect()
}

/// Every config of the repository that can be explored: each of its runs is one of its
/// executions, so every metric a run reports lies between the least and the greatest any
/// execution ends with (a run's order is one an exploration takes) — under the engine's
/// own order and under each other order `check --ties` tries (classes reversed, LIFO,
/// three shuffles), so the orders `--ties` names are among those an exploration takes.
#[test]
fn every_run_lies_within_its_explored_range() {
    let mut checked = 0;
    let configs = crate::harness::root().join("configs");
    for name in crate::harness::list_files(&configs) {
        let path = configs.join(&name).to_string_lossy().into_owned();
        let text = String::from_utf8(crate::harness::read(&path)).unwrap();
        if !path.ends_with(".toml") || !text.contains("model = \"scenario\"") {
            continue;
        }
        let Ok(config) = library_config(&registry(), &path, &text) else {
            continue;
        };
        let bound = ExploreLimits {
            max_states: 50_000,
            max_faults: 2,
            ..ExploreLimits::default()
        };
        let Ok(explored) = coordsim::runner::explore::explore_config(&config, config.seed, &bound)
        else {
            continue; // refused: a draw from a continuum, or a built-in model's point
        };
        let orders = [
            sim_core::Ties::Fifo,
            sim_core::Ties::ClassesReversed,
            sim_core::Ties::Lifo,
            sim_core::Ties::Shuffled(1),
            sim_core::Ties::Shuffled(2),
            sim_core::Ties::Shuffled(3),
        ];
        for ties in orders {
            let options = coordsim::runner::RunOptions {
                jobs: 2,
                seed: None,
                shard: None,
                progress: false,
                ties,
            };
            let results = coordsim::runner::run(&config, &options).unwrap().results;
            for row in &results.rows {
                let point = results.point(row);
                let e = &explored[point];
                // `reads_first` has a read miss its own actor's write landing at that instant;
                // an exploration keeps an actor's program order (docs/explore.md).
                let at = config.point_values(point);
                let reads_first = config
                    .key_names()
                    .iter()
                    .zip(&at)
                    .any(|(k, v)| *k == "tie_order" && v.to_string().contains("reads_first"));
                if e.bounded.is_some() || reads_first {
                    continue;
                }
                checked += 1;
                for (i, m) in config.model.metrics().iter().enumerate() {
                    let column = results.column(m.name).expect("a metric's column");
                    let Some(ran) = coordsim::results::number(&row[column]) else {
                        continue;
                    };
                    let ends: Vec<f64> = e
                        .outcomes
                        .iter()
                        .filter_map(|o| coordsim::results::number(&o.metrics[i]))
                        .collect();
                    let (lo, hi) = ends
                        .iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                            (lo.min(v), hi.max(v))
                        });
                    assert!(
                        lo - 1e-9 <= ran && ran <= hi + 1e-9,
                        "{path}: point {point} ({ties:?}): {} = {ran} outside the explored [{lo}, {hi}]",
                        m.name
                    );
                }
            }
        }
    }
    assert!(
        checked >= 5,
        "only {checked} runs had an exhaustive exploration to lie in"
    );
}

/// `crash_anywhere` crashes an actor at any of its step boundaries: one writer of 1, 2, 3
/// (no restart) ends at 3 when it never crashes, at 1 or 2 when it crashes after its first
/// or second write (the first runs as it starts: no boundary before it), so exactly
/// {1, 2, 3}, one execution each, and no probability (a crash anywhere has none). A count
/// of 0 is refused at its key; a crash's schedule runs again to its outcome.
#[test]
fn a_crash_anywhere_is_tried_at_every_step() {
    let text = |count: u32| {
        format!(
            r#"model = "scenario"
[[resource]]
name = "r"
kind = "register"
[[actor]]
name = "w"
crash_anywhere = {{ count = {count} }}
steps = [{{ write = "r", value = 1 }}, {{ write = "r", value = 2 }}, {{ write = "r", value = 3 }}]
"#
        )
    };
    let e = &explore(&text(1), &limits(Reduction::On, true))[0];
    assert_eq!(e.bounded, None);
    assert_eq!(
        values(&text(1), e, "r.value"),
        BTreeSet::from(["1".into(), "2".into(), "3".into()])
    );
    assert_eq!(e.executions, 3);
    assert!(e.outcomes.iter().all(|o| o.probability.is_none()));
    for (got, want) in replayed(&text(1), e).iter().zip(&e.outcomes) {
        assert_eq!(got, &want.metrics);
    }
    let crashed: Vec<bool> = e
        .outcomes
        .iter()
        .map(|o| o.schedule.events.iter().any(|d| d.crash))
        .collect();
    assert_eq!(crashed.iter().filter(|c| **c).count(), 2);
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), "zero.toml", &text(0));
    let o = coordsim_in(dir.path(), &["explore", &path]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("crash_anywhere") && err.contains("from 1 to 16"),
        "{err}"
    );
}

/// An execution that can never progress (a polled lock whose holder crashed, no lease)
/// is an outcome of an exploration, its poller unfinished, where a run stops with an
/// error: w-0 takes L and crashes there, w-1 polls forever, so some execution completes
/// no worker.
#[test]
fn a_stuck_execution_is_an_outcome() {
    let text = r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
mode = "poll"
poll_ms = 10
[[actor]]
name = "w"
count = 2
start_ms = "5 * i"
crash_anywhere = { count = 1 }
steps = [{ acquire = "L" }, { delay_ms = 20 }, { release = "L" }]
"#;
    let e = &explore(text, &limits(Reduction::On, true))[0];
    assert_eq!(e.bounded, None);
    let completed = values(text, e, "completed");
    assert!(completed.contains("0"), "{completed:?}");
    assert!(completed.contains("2"), "{completed:?}");
}

/// `parallel` under the explorer: a branch's steps are the actor's own (its events keep
/// their order against the actor's other branches at one instant, and take every order
/// against other actors'). So `k` clients of `n` increments each written as a parallel of
/// one branch reach exactly the outcomes of the same steps written in line: a final value
/// from 2 to k·n (k, n ≥ 2) and the lost updates that go with each, with the reduction, the
/// merging of states and the plain tree alike.
#[test]
fn a_parallel_of_one_branch_explores_as_its_steps() {
    for (k, n) in [(2, 1), (2, 2), (3, 1)] {
        let inline = increments(k, n, false);
        let forked = inline.replace(
            r#"steps = [{ read = "counter" }, { write = "counter", value = "read + 1" }]"#,
            r#"steps = [{ parallel = [[{ read = "counter" }, { write = "counter", value = "read + 1" }]] }]"#,
        );
        assert_ne!(inline, forked);
        for (reduce, merge) in [
            (Reduction::On, true),
            (Reduction::Off, true),
            (Reduction::Off, false),
        ] {
            let a = explore(&inline, &limits(reduce, merge));
            let b = explore(&forked, &limits(reduce, merge));
            assert_eq!(
                outcome_set(&a[0]),
                outcome_set(&b[0]),
                "k {k}, n {n}, {reduce:?}, merge {merge}"
            );
        }
    }
}

/// A forked actor races another: `a` increments `c` by 1 in one branch while its other
/// branch takes and gives back a lock; `b` increments `c` by 10, then takes the lock.
/// Serial orders end at 11; the reads interleaved, one write overwrites the other: 1 or 10,
/// each with one lost update. The explorer finds exactly these three.
#[test]
fn a_branch_races_other_actors_in_every_order() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"c\"\nkind = \"register\"\n\
        [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"a\"\nsteps = [{ parallel = [[{ read = \"c\" }, { write = \"c\", value = \"c + 1\" }], [{ acquire = \"L\" }, { release = \"L\" }]] }]\n\
        [[actor]]\nname = \"b\"\nsteps = [{ read = \"c\" }, { write = \"c\", value = \"c + 10\" }, { acquire = \"L\" }, { release = \"L\" }]\n";
    for (reduce, merge) in [(Reduction::On, true), (Reduction::Off, false)] {
        let e = explore(text, &limits(reduce, merge));
        let got = values(text, &e[0], "c.value");
        let want: BTreeSet<String> = ["1", "10", "11"].iter().map(|s| s.to_string()).collect();
        assert_eq!(got, want, "{reduce:?}, merge {merge}");
    }
}

/// A crash anywhere in a forking actor: the crash may come at any branch's step, and it
/// ends the actor's repetition, not the branch alone (the other branch dies with it and the
/// repetition is its parent's). Two repetitions, one crash at most, a restart: every
/// execution either completes both (no crash) or completes one and crashes one.
#[test]
fn a_crash_in_a_branch_crashes_its_repetition() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"c\"\nkind = \"register\"\n\
        [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"lease\"\nlease_ms = 5\n\
        [[actor]]\nname = \"a\"\nrepeat = 2\ncrash_anywhere = { count = 1, restart_after_ms = 1 }\n\
        steps = [{ parallel = [[{ read = \"c\" }, { write = \"c\", value = \"c + 1\" }], [{ acquire = \"L\" }, { delay_ms = 1 }, { release = \"L\" }]] }]\n\
        [[actor]]\nname = \"b\"\nsteps = [{ acquire = \"L\" }, { read = \"c\" }, { write = \"c\", value = \"c + 10\" }, { release = \"L\" }]\n";
    let config = library_config(&registry(), "explore.toml", text).unwrap();
    let (done, crashed) = (
        metric_at(&config, "a.completed"),
        metric_at(&config, "a.crashed"),
    );
    let e = explore(text, &limits(Reduction::On, true));
    assert!(e[0].bounded.is_none(), "exhaustive");
    let pairs: BTreeSet<(String, String)> = e[0]
        .outcomes
        .iter()
        .map(|o| (o.metrics[done].to_string(), o.metrics[crashed].to_string()))
        .collect();
    let want: BTreeSet<(String, String)> = [("2", "0"), ("1", "1")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(pairs, want);
}

/// A read that is its job's last step says the value it read, though the job ends in the
/// same event (an explored run blanks a finished job's reads, and a new repetition its
/// own): the writer writes 1 at 0 ms, the reader reads 5 ms later, twice (its second
/// repetition 5 ms after its first), so every read says 1 — not nothing, not the initial 0.
#[test]
fn a_last_step_read_says_its_value_in_the_trace() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
                [[actor]]\nname = \"w\"\nsteps = [{ write = \"r\", value = \"1\" }]\n\
                [[actor]]\nname = \"reader\"\nrepeat = 2\n\
                steps = [{ delay_ms = 5 }, { read = \"r\" }]\n";
    let e = &explore(text, &limits(Reduction::On, true))[0];
    let reads: Vec<String> = e
        .outcomes
        .iter()
        .flat_map(|o| o.trace.iter())
        .filter(|step| step.actor == "reader" && step.action.starts_with("reads"))
        .map(|step| step.action.clone())
        .collect();
    assert_eq!(reads.len(), 2 * e.outcomes.len(), "{reads:?}");
    assert!(
        reads.iter().all(|action| action == "reads r: 1"),
        "{reads:?}"
    );
}
