//! A free order is a scheduler's choice: the least and greatest probability of a set of
//! outcomes over every scheduler ([`Schedulers::extreme`]), against every scheduler
//! enumerated on tiny graphs, against hand arithmetic on a scenario, and equal to the
//! outcomes' probability where no order is free.

use std::collections::BTreeSet;

use coordsim_model::explore::Schedulers;
use coordsim_model::{Exploration, ExploreLimits, Reduction, Symmetry};
use proptest::prelude::*;

use crate::explore::explore;
use crate::harness::{check_config, read, root};

/// An action's branches: (later entry, weight).
type Action = Vec<(usize, u32)>;

/// A tiny graph of entries: per entry, `None` for an end (with its outcome in `ends`) or
/// its actions, each a list of (later entry, weight); an action's weights are made its
/// branches' probabilities by dividing by their sum.
#[derive(Debug, Clone)]
pub(crate) struct Tiny {
    pub(crate) entries: Vec<Option<Vec<Action>>>,
    pub(crate) ends: Vec<usize>,
}

impl Tiny {
    pub(crate) fn probability(action: &[(usize, u32)], weight: u32) -> f64 {
        f64::from(weight) / f64::from(action.iter().map(|b| b.1).sum::<u32>())
    }

    pub(crate) fn schedulers(&self) -> Schedulers {
        let mut s = Schedulers::new();
        for (entry, actions) in self.entries.iter().enumerate() {
            match actions {
                None => s.push_end(self.ends[entry] as u32),
                Some(actions) => {
                    s.push_entry();
                    for action in actions {
                        s.push_action().unwrap();
                        for &(to, weight) in action {
                            s.push_branch(to as u32, Tiny::probability(action, weight))
                                .unwrap();
                        }
                    }
                }
            }
        }
        s
    }

    /// Every probability of the set some deterministic scheduler gives, from `entry`: the
    /// graph unfolded into its tree, a scheduler choosing each node's action apart (by the
    /// whole history, not the entry alone), each choice enumerated. (A randomized
    /// scheduler mixes these, so gives nothing beyond their least and greatest.)
    fn every_scheduler(&self, entry: usize, in_set: &dyn Fn(usize) -> bool) -> BTreeSet<u64> {
        let Some(actions) = &self.entries[entry] else {
            return BTreeSet::from([f64::from(u8::from(in_set(self.ends[entry]))).to_bits()]);
        };
        let mut all = BTreeSet::new();
        for action in actions {
            // Each branch's subtree chooses on its own: every combination of their values.
            let mut sums = vec![0.0f64];
            for &(to, weight) in action {
                let p = Tiny::probability(action, weight);
                let below = self.every_scheduler(to, in_set);
                sums = sums
                    .iter()
                    .flat_map(|s| below.iter().map(move |v| s + p * f64::from_bits(*v)))
                    .collect();
            }
            all.extend(sums.into_iter().map(f64::to_bits));
        }
        all
    }
}

/// A random tiny graph: 2 to 6 entries, the last an end; each other one an end or 1 to 3
/// actions of 1 to 2 branches to later entries; 3 outcomes.
pub(crate) fn tiny() -> impl Strategy<Value = Tiny> {
    (2usize..=6).prop_flat_map(|n| {
        let entry = |at: usize, n: usize| {
            let action = prop::collection::vec((at + 1..n, 1u32..=4), 1..=2);
            prop_oneof![
                1 => Just(None),
                3 => prop::collection::vec(action, 1..=3).prop_map(Some),
            ]
        };
        let entries: Vec<_> = (0..n - 1).map(|at| entry(at, n).boxed()).collect();
        (entries, prop::collection::vec(0usize..3, n)).prop_map(|(mut entries, ends)| {
            entries.push(None);
            Tiny { entries, ends }
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The one pass back over the graph gives the least and the greatest probability that
    /// enumerating every scheduler of the unfolded tree gives, for every set of outcomes.
    #[test]
    fn the_extremes_are_those_of_every_scheduler_enumerated(tiny in tiny(), set in 0u8..8) {
        let in_set = |k: usize| set >> k & 1 == 1;
        let every = tiny.every_scheduler(0, &in_set);
        let values = every.iter().map(|v| f64::from_bits(*v));
        let least = values.clone().fold(f64::INFINITY, f64::min);
        let greatest = values.fold(f64::NEG_INFINITY, f64::max);
        let s = tiny.schedulers();
        prop_assert!((s.extreme(&in_set, true) - least).abs() < 1e-12, "least {} vs {least}", s.extreme(&in_set, true));
        prop_assert!((s.extreme(&in_set, false) - greatest).abs() < 1e-12, "greatest {} vs {greatest}", s.extreme(&in_set, false));
    }
}

/// Exploration limits that keep the graph for the schedulers.
pub(crate) fn keeping(reduce: Reduction, merge: bool, symmetry: Symmetry) -> ExploreLimits {
    ExploreLimits {
        reduce,
        merge_states: merge,
        symmetry,
        keep_schedulers: true,
        ..ExploreLimits::default()
    }
}

/// The least and greatest probability that `metric` ends at `value`.
fn interval(e: &Exploration, metric: usize, value: f64) -> (f64, f64) {
    let meets = |k: usize| e.outcomes[k].metrics[metric].as_f64() == Some(value);
    let s = e.schedulers.as_ref().expect("the graph kept");
    (s.extreme(&meets, true), s.extreme(&meets, false))
}

/// Two actors at one instant: `a` increments the counter with chance `p`, `b` always does.
pub(crate) fn chance_and_increment(p: &str) -> String {
    format!(
        r#"model = "scenario"
[[resource]]
name = "counter"
kind = "register"
[[actor]]
name = "a"
steps = [{{ if = {{ chance = {p} }}, then = [{{ read = "counter" }}, {{ write = "counter", value = "read + 1" }}] }}]
[[actor]]
name = "b"
steps = [{{ read = "counter" }}, {{ write = "counter", value = "read + 1" }}]
"#
    )
}

/// By hand, with chance p = 0.3 that `a` increments: the counter ends at 2 only when `a`
/// increments and no update is lost. A scheduler that runs `b`'s read and write before
/// anything of `a`'s loses none: P(counter = 1) = 1 − p = 0.7, the least. One that runs
/// `a`'s read, then `b`'s read and write, then `a`'s write (`b` before `a`'s draw when `a`
/// does not increment) loses `a`'s update whenever it is made: P(counter = 1) = 1, the
/// greatest. So counter = 1 has [0.7, 1] and counter = 2 has [0, 0.3]; each the same
/// whether states are merged, orders reduced, or the plain tree walked.
#[test]
fn a_lost_update_behind_a_chance_by_hand() {
    let text = chance_and_increment("0.3");
    let config =
        crate::harness::library_config(&crate::harness::registry(), "x.toml", &text).unwrap();
    let value = (config.model.metrics().iter())
        .position(|m| m.name == "counter.value")
        .unwrap();
    for (reduce, merge, symmetry) in [
        (Reduction::On, true, Symmetry::On),
        (Reduction::Off, true, Symmetry::Off),
        (Reduction::Off, false, Symmetry::Off),
    ] {
        let e = &explore(&text, &keeping(reduce, merge, symmetry))[0];
        assert!(e.ordered && e.bounded.is_none());
        let (lo, hi) = interval(e, value, 1.0);
        assert!(
            (lo - 0.7).abs() < 1e-12 && (hi - 1.0).abs() < 1e-12,
            "{lo} {hi}"
        );
        let (lo, hi) = interval(e, value, 2.0);
        assert!(lo.abs() < 1e-12 && (hi - 0.3).abs() < 1e-12, "{lo} {hi}");
    }
}

/// The same through `check`: each end as claimed passes, an end off by 0.01 fails, and a
/// claim without `scheduler` says the order is free and how to claim over schedulers.
#[test]
fn check_claims_either_end_and_prints_the_interval() {
    let dir = tempfile::tempdir().unwrap();
    let claim = |name: &str, value: u32, p: f64, scheduler: &str| {
        format!(
            "[[claim]]\nname = \"{name}\"\nover = \"executions\"\nmetric = \"counter.value\"\nexpect = {value}\nprobability = {p}\n{scheduler}\n"
        )
    };
    let text = [
        chance_and_increment("0.3"),
        claim("least", 1, 0.7, "scheduler = \"min\""),
        claim("greatest", 1, 1.0, "scheduler = \"max\""),
        claim("two at most", 2, 0.3, "scheduler = \"max\""),
        claim("off", 1, 0.69, "scheduler = \"min\""),
        claim("no scheduler", 1, 0.7, ""),
    ]
    .concat();
    let (code, out) = check_config(dir.path(), "s.toml", &text);
    assert_eq!(code, Some(1), "{out}");
    let line = |name: &str| {
        out.lines()
            .find(|l| l.contains(&format!(": {name}: ")))
            .unwrap_or_else(|| panic!("no line for {name}: {out}"))
            .to_string()
    };
    assert!(line("least").starts_with("PASS"), "{out}");
    assert!(line("least").contains("least over schedulers = 0.7 (over schedulers [0.7, 1];"));
    assert!(line("greatest").starts_with("PASS"), "{out}");
    assert!(
        line("two at most").contains("greatest over schedulers = 0.3 (over schedulers [0, 0.3];"),
        "{out}"
    );
    assert!(line("off").starts_with("FAIL"), "{out}");
    assert!(
        line("no scheduler").starts_with("FAIL")
            && line("no scheduler").contains("`scheduler = \"min\"`"),
        "{out}"
    );
}

/// Where no order is free (the shipped at-least-once: the consumer starts after the put,
/// only crashes are drawn), there is one scheduler: both ends of every outcome's interval
/// are its probability, and `check` claims 0.16 = p (1 − p) with either end.
#[test]
fn where_no_order_is_free_both_ends_are_the_probability() {
    let path = root().join("configs/explore/explore-at-least-once.toml");
    let text = String::from_utf8(read(&path)).unwrap();
    for e in explore(&text, &keeping(Reduction::On, true, Symmetry::On)) {
        assert!(!e.ordered && e.bounded.is_none());
        let s = e.schedulers.as_ref().expect("the graph kept");
        assert!(!s.chooses());
        for k in 0..e.outcomes.len() {
            let p = e.outcomes[k]
                .probability
                .expect("no free order: a probability");
            let only = |j: usize| j == k;
            assert!((s.extreme(&only, true) - p).abs() < 1e-12);
            assert!((s.extreme(&only, false) - p).abs() < 1e-12);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let claims = ["min", "max"].map(|end| {
        format!(
            "[[claim]]\nname = \"{end}\"\nwhere = {{ consumer = \"plain\" }}\nover = \"executions\"\nmetric = \"duplicate_effects\"\nexpect = 1\nprobability = 0.16\nscheduler = \"{end}\"\n"
        )
    });
    let text = format!("{text}\n{}", claims.concat());
    let (code, out) = check_config(dir.path(), "alo.toml", &text);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("over schedulers [0,16; 0,16]"), "{out}");
}

/// `scheduler` names one of its values, and goes with `probability`.
#[test]
fn a_scheduler_claim_written_wrong_is_refused_where_written() {
    let dir = tempfile::tempdir().unwrap();
    let base = chance_and_increment("0.3");
    let with = |fields: &str| {
        format!(
            "{base}[[claim]]\nover = \"executions\"\nmetric = \"counter.value\"\nexpect = 1\n{fields}\n"
        )
    };
    let (code, out) = check_config(
        dir.path(),
        "a.toml",
        &with("probability = 0.7\nscheduler = \"worst\""),
    );
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("a.toml:16:13: `scheduler` is `min`"), "{out}");
    assert!(
        out.contains("`max`") && out.contains("not `worst`"),
        "{out}"
    );
    let (code, out) = check_config(dir.path(), "b.toml", &with("scheduler = \"min\""));
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("b.toml:15:13: `scheduler` says which end"),
        "{out}"
    );
    assert!(out.contains("goes with `probability`"), "{out}");
}

/// A crash anywhere is the scheduler's choice too. One actor waits 1 ms, then writes 1 to
/// the counter with chance 0.4, and may crash once at a step boundary: a scheduler that
/// crashes it after its wait leaves the counter at 0 whatever the draw (P(counter = 1) =
/// 0, the least); one that never crashes it gives 0.4, the greatest.
#[test]
fn a_crash_anywhere_is_a_choice_by_hand() {
    let text = r#"model = "scenario"
[[resource]]
name = "counter"
kind = "register"
[[actor]]
name = "a"
crash_anywhere = { count = 1 }
steps = [{ delay_ms = 1 }, { if = { chance = 0.4 }, then = [{ write = "counter", value = "1" }] }]
"#;
    let e = &explore(text, &keeping(Reduction::On, true, Symmetry::On))[0];
    assert!(e.ordered && e.schedulers.as_ref().unwrap().chooses());
    let (lo, hi) = interval(e, 0, 1.0);
    assert!(lo.abs() < 1e-12 && (hi - 0.4).abs() < 1e-12, "{lo} {hi}");
}

/// Random tiny scenarios: a group of one or two actors and a single actor, each running a
/// few steps drawn from a read, an increment, an increment behind a chance, and a wait.
fn tiny_scenario() -> impl Strategy<Value = String> {
    let step = prop_oneof![
        Just(r#"{ read = "counter" }"#.to_string()),
        Just(r#"{ read = "counter" }, { write = "counter", value = "read + 1" }"#.to_string()),
        (1u32..=9).prop_map(|c| format!(
            r#"{{ if = {{ chance = 0.{c} }}, then = [{{ read = "counter" }}, {{ write = "counter", value = "read + 1" }}] }}"#
        )),
        Just(r#"{ delay_ms = 1 }"#.to_string()),
    ];
    let steps = prop::collection::vec(step, 1..=3).prop_map(|s| s.join(", "));
    (1u32..=2, steps.clone(), steps, any::<bool>()).prop_map(|(count, a, b, crash)| {
        let crash = if crash { "crash_anywhere = { count = 1 }\n" } else { "" };
        format!(
            "model = \"scenario\"\n[[resource]]\nname = \"counter\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\ncount = {count}\nsteps = [{a}]\n[[actor]]\nname = \"b\"\n{crash}steps = [{b}]\n"
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Every interval is the same whether states are merged, orders reduced and members
    /// taken as interchangeable, or the plain tree of executions walked: the merging joins
    /// only states with the same future, and the reduction and the symmetry keep every
    /// scheduler's choices that matter. On two threads the graph kept is the one thread's.
    #[test]
    fn merging_reducing_and_symmetry_keep_the_intervals(text in tiny_scenario()) {
        let full = &explore(&text, &keeping(Reduction::On, true, Symmetry::On))[0];
        let tree = &explore(&text, &keeping(Reduction::Off, false, Symmetry::Off))[0];
        prop_assume!(full.bounded.is_none() && tree.bounded.is_none());
        let two = ExploreLimits { jobs: 2, ..keeping(Reduction::On, true, Symmetry::On) };
        prop_assert_eq!(&explore(&text, &two)[0].schedulers, &full.schedulers);
        for value in 0..=6 {
            let (a, b) = (interval(full, 0, f64::from(value)), interval(tree, 0, f64::from(value)));
            prop_assert!((a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-12, "counter = {value}: {a:?} vs {b:?}\n{text}");
        }
    }
}

/// The lost update of 3 clients of 4 read-increment-write steps each (as in
/// explore_jobs.rs: many chunks of states a thread, the counting's walk taken on beside the
/// search): the graph kept for the schedulers is the same with 1, 2 and 3 threads, with and
/// without symmetry. No draw and every order free: any outcome is some scheduler's for sure
/// and, there being several, avoided by another, so every interval is [0, 1].
#[test]
fn the_graph_kept_is_the_same_with_any_jobs() {
    let text = crate::explore_jobs::LOST_UPDATE;
    for symmetry in [Symmetry::On, Symmetry::Off] {
        let one = keeping(Reduction::On, true, symmetry);
        let first = explore(text, &one).remove(0);
        assert!(first.ordered && first.bounded.is_none() && first.outcomes.len() > 1);
        let kept = first.schedulers.as_ref().expect("the graph kept");
        assert!(kept.chooses());
        for k in 0..first.outcomes.len() {
            let only = |j: usize| j == k;
            assert_eq!(
                (kept.extreme(&only, true), kept.extreme(&only, false)),
                (0.0, 1.0)
            );
        }
        for jobs in [2, 3] {
            let e = explore(text, &ExploreLimits { jobs, ..one }).remove(0);
            assert!(
                e.schedulers == first.schedulers,
                "--jobs {jobs} keeps another graph (symmetry {symmetry:?})"
            );
        }
    }
}

/// A claim over schedulers on a Turkish config's page says which end it states, in
/// Turkish: the least of counter = 1 over schedulers is 0.7 (above, by hand).
#[test]
fn a_scheduler_claims_row_says_its_end_in_the_pages_language() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("configs")).unwrap();
    let text = chance_and_increment("0.3").replacen(
        "model = \"scenario\"\n",
        "model = \"scenario\"\nlocale = \"tr\"\n",
        1,
    ) + "[[claim]]\nname = \"en az\"\nover = \"executions\"\nmetric = \"counter.value\"\nexpect = 1\nprobability = 0.7\nscheduler = \"min\"\n";
    std::fs::write(dir.path().join("configs/s.toml"), text).unwrap();
    let out = crate::harness::coordsim_in(dir.path(), &["report", "--out", "out", "--quiet"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::harness::stderr(&out)
    );
    let page = String::from_utf8(read(dir.path().join("out/site/config-s.html"))).unwrap();
    assert!(
        page.contains("zamanlayıcılar arasında en düşük counter.value = 1 olasılığı: 0,7"),
        "{page}"
    );
    assert!(!page.contains("over schedulers"), "{page}");
}
