//! `[[watch]]`: when a condition on the run's metrics first holds (or, with `leads_to`,
//! when the last wait for its answer ended), in a run and over every execution; time
//! bounds and `holds = "eventually"` over executions, each figure by hand; merging states
//! keeps what a watch saw (against the plain tree); bad input named at its key.

use coordsim_model::{Cell, Exploration, ExploreLimits, Reduction};
use proptest::prelude::*;

use crate::explore::{explore, limits, scenario};
use crate::harness::{check_config, library_config, library_run, registry};

/// The cell of `metric` in each outcome of `exploration`, in order.
fn cells(exploration: &Exploration, text: &str, metric: &str) -> Vec<Cell> {
    let config = library_config(&registry(), "w.toml", text).unwrap();
    let at = (config.model.metrics().iter())
        .position(|c| c.name == metric)
        .unwrap_or_else(|| panic!("no metric {metric}"));
    exploration
        .outcomes
        .iter()
        .map(|o| o.metrics[at].clone())
        .collect()
}

/// Three clients start together on a queue lock, each holding it 10 ms: whoever goes first,
/// the first is done at 10, the second at 20, the last at 30 ms; the lock, taken at 0,
/// is free again from the last release at 30 ms.
const THREE: &str = r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
mode = "queue"
[[actor]]
name = "c"
count = 3
steps = [{ acquire = "L" }, { delay_ms = 10 }, { release = "L" }]
[[watch]]
name = "all_done_ms"
metric = "completed"
at_least = 3
[[watch]]
name = "first_done_ms"
metric = "c.completed"
expect = 1
[[watch]]
name = "freed_ms"
metric = "L.left"
expect = 1
leads_to = { metric = "L.left", expect = 0 }
[[watch]]
name = "never_ms"
metric = "completed"
at_least = 4
"#;

#[test]
fn three_clients_on_a_lock_finish_by_hand_in_every_order_and_in_a_run() {
    let exploration = &explore(THREE, &limits(Reduction::On, true))[0];
    assert!(exploration.bounded.is_none());
    // 3! orders of taking the lock, every one ending alike.
    assert!(exploration.executions >= 6, "{}", exploration.executions);
    for (metric, want) in [
        ("all_done_ms", Cell::Float(30.0)),
        ("first_done_ms", Cell::Float(10.0)),
        ("freed_ms", Cell::Float(30.0)),
        ("never_ms", Cell::Empty),
    ] {
        for cell in cells(exploration, THREE, metric) {
            assert_eq!(cell, want, "{metric}");
        }
    }
    // A run (the engine's one order) reads the same instants.
    let config = library_config(&registry(), "w.toml", THREE).unwrap();
    let results = library_run(&config);
    let row = &results.results.rows[0];
    let column = |name: &str| row[results.results.column(name).unwrap()].clone();
    assert_eq!(column("all_done_ms"), Cell::Float(30.0));
    assert_eq!(column("first_done_ms"), Cell::Float(10.0));
    assert_eq!(column("freed_ms"), Cell::Float(30.0));
    assert_eq!(column("never_ms"), Cell::Empty);
}

/// Two actors a chance of 0.3 each to wait 15 ms, else 5: both are done by 10 ms when
/// neither drew the long wait, 0.7 · 0.7 = 0.49; by 20 ms always.
#[test]
fn a_time_bound_has_its_probability_by_hand() {
    let text = r#"model = "scenario"
[[actor]]
name = "a"
count = 2
start_ms = "3 * i"
steps = [{ if = { chance = 0.3 }, then = [{ delay_ms = 15 }], else = [{ delay_ms = 5 }] }]
[[watch]]
name = "done_ms"
metric = "completed"
at_least = 2
[[claim]]
over = "executions"
metric = "done_ms"
at_most = 13
probability = 0.49
[[claim]]
over = "executions"
holds = "always"
metric = "done_ms"
at_most = 18
[[claim]]
over = "executions"
holds = "sometimes"
metric = "done_ms"
expect = 18
[[claim]]
over = "executions"
holds = "eventually"
metric = "done_ms"
"#;
    // a-0 starts at 0, a-1 at 3: done at max(0 + 5|15, 3 + 5|15) ∈ {8, 15, 18}; at most
    // 13 only when both drew 5 ms.
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = check_config(dir.path(), "bound.toml", text);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out.matches("PASS").count(), 4, "{out}");
}

/// Where the order is free, a scheduler decides when `a` is done: `a` and `b` start
/// together on a queue lock; `a` holds it 10 ms, `b` 30 ms with a chance of 0.5, else
/// 10. A scheduler that lets `a` take it first has `a` done at 10 (P(done ≤ 20) = 1); one
/// that lets `b` first hands it to `a` at 10 or 30, so `a` is done at 20 or 40, each with
/// 0.5 (P(done ≤ 20) = 0.5).
#[test]
fn a_time_bound_over_schedulers_by_hand() {
    let text = r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
mode = "queue"
[[actor]]
name = "a"
steps = [{ acquire = "L" }, { delay_ms = 10 }, { release = "L" }]
[[actor]]
name = "b"
steps = [{ acquire = "L" }, { if = { chance = 0.5 }, then = [{ delay_ms = 30 }], else = [{ delay_ms = 10 }] }, { release = "L" }]
[[watch]]
name = "a_done_ms"
metric = "a.completed"
at_least = 1
[[claim]]
over = "executions"
metric = "a_done_ms"
at_most = 20
probability = 0.5
scheduler = "min"
[[claim]]
over = "executions"
metric = "a_done_ms"
at_most = 20
probability = 1
scheduler = "max"
[[claim]]
over = "executions"
holds = "sometimes"
metric = "a_done_ms"
expect = 40
[[claim]]
over = "executions"
holds = "never"
metric = "a_done_ms"
at_least = 41
"#;
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = check_config(dir.path(), "schedulers.toml", text);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out.matches("PASS").count(), 4, "{out}");
}

/// A lock holder that may crash at any step: with a queue lock, a holder dead at 0 keeps
/// the lock and the other worker never finishes (eventually fails, its execution shown);
/// with a lease of 100 ms, w-1 (polling every 10 ms from 5) takes the lock over at 105
/// and is done at 125: one worker always finishes, by 125 ms.
const CRASH: &str = r#"model = "scenario"
[sweep]
mode = ["queue", "lease"]
[[resource]]
name = "L"
kind = "lock"
mode = "mode"
poll_ms = 10
lease_ms = 100
[[actor]]
name = "w"
count = 2
start_ms = "5 * i"
crash_anywhere = { count = 1 }
steps = [{ acquire = "L" }, { delay_ms = 20 }, { release = "L" }]
[[watch]]
name = "one_done_ms"
metric = "completed"
at_least = 1
[[watch]]
name = "freed_ms"
metric = "L.left"
expect = 1
leads_to = { metric = "L.left", expect = 0 }
"#;

#[test]
fn eventually_fails_with_a_crashed_holder_and_holds_with_a_lease() {
    let claims = r#"
[[claim]]
name = "queue"
where = { mode = "queue" }
over = "executions"
holds = "eventually"
metric = "one_done_ms"
[[claim]]
name = "lease"
where = { mode = "lease" }
over = "executions"
holds = "eventually"
metric = "one_done_ms"
at_most = 125
[[claim]]
name = "lease, sooner"
where = { mode = "lease" }
over = "executions"
holds = "eventually"
metric = "one_done_ms"
at_most = 124
"#;
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = check_config(dir.path(), "crash.toml", &format!("{CRASH}{claims}"));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("FAIL") && out.contains("queue: one_done_ms = empty (eventually: at least 0)"),
        "{out}"
    );
    assert!(
        out.contains("the watch's condition never held along this execution"),
        "{out}"
    );
    assert!(
        out.contains("PASS") && out.contains("lease: one_done_ms = 125"),
        "{out}"
    );
    assert!(
        out.contains("lease, sooner: one_done_ms = 125 (eventually: at most 124)"),
        "{out}"
    );
    // The failing claim's execution is written, and replays to an end where no one finished.
    let out_dir = dir.path().join("out");
    let path = crate::harness::write_config(dir.path(), "crash.toml", &format!("{CRASH}{claims}"));
    let explored =
        crate::harness::coordsim(&["explore", &path, "--out", &out_dir.to_string_lossy()]);
    let folder = out_dir.join("crash-explore");
    assert!(
        folder.join("schedule-1.toml").exists(),
        "{}",
        crate::harness::stdout(&explored)
    );
    let table = String::from_utf8(crate::harness::read(folder.join("trace-1/table.md"))).unwrap();
    assert!(table.contains("one_done_ms"), "{table}");
}

/// "The lock, once taken, is free again": with a queue lock and no crash, the last release
/// (w-0 holds 0–20, w-1 20–40) ends the last wait at 40; a holder that crashed leaves one
/// waiting (empty). With a lease the record of w-0, dead at 0, is taken over by w-1 at
/// 105 and released at 125.
#[test]
fn leads_to_by_hand() {
    let exploration = explore(CRASH, &limits(Reduction::On, true));
    let queue: Vec<Cell> = cells(&exploration[0], CRASH, "freed_ms");
    assert!(queue.contains(&Cell::Float(40.0)), "{queue:?}");
    assert!(queue.contains(&Cell::Empty), "{queue:?}");
    let lease: Vec<Cell> = cells(&exploration[1], CRASH, "freed_ms");
    assert!(lease.contains(&Cell::Float(125.0)), "{lease:?}");
    // Every outcome where the lock is left held at the end has a wait unanswered.
    let left = cells(&exploration[0], CRASH, "L.left");
    for (left, freed) in left.iter().zip(&queue) {
        assert_eq!(*left == Cell::Flag(true), *freed == Cell::Empty);
    }
}

/// A scenario of 2 or 3 actors, each of 1 to 3 steps that set or increment a register,
/// wait 0 to 2 ms or hold a lock, with 1 to 3 watches on the register's value (which goes
/// up and down: a condition may hold between two events and not after), the completed
/// repetitions, its lost updates and the lock, some with a `leads_to`.
fn watched() -> impl Strategy<Value = String> {
    let step = prop_oneof![
        (1u8..4).prop_map(|v| format!(r#"{{ write = "r", value = {v} }}"#)),
        Just(r#"{ read = "r" }, { write = "r", value = "read + 1" }"#.to_string()),
        (0u8..3).prop_map(|d| format!("{{ delay_ms = {d} }}")),
        Just(r#"{ acquire = "L" }, { write = "r", value = 0 }, { release = "L" }"#.to_string()),
    ];
    let actor = (prop::collection::vec(step, 1..4), 0u8..2);
    let watch = (0usize..4, 0usize..3, 0u8..4, prop::option::of(0usize..4));
    (
        prop::collection::vec(actor, 2..4),
        prop::collection::vec(watch, 1..4),
    )
        .prop_map(|(actors, watches)| {
            let mut text = String::from(
                "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n",
            );
            for (index, (steps, start)) in actors.iter().enumerate() {
                text.push_str(&format!(
                    "[[actor]]\nname = \"a{index}\"\nstart_ms = {start}\nsteps = [{}]\n",
                    steps.join(", ")
                ));
            }
            let metrics = ["r.value", "completed", "r.lost_updates", "L.left"];
            let relations = ["expect", "at_least", "at_most"];
            for (index, (metric, relation, bound, leads)) in watches.iter().enumerate() {
                text.push_str(&format!(
                    "[[watch]]\nname = \"w{index}\"\nmetric = \"{}\"\n{} = {bound}\n",
                    metrics[*metric], relations[*relation]
                ));
                if let Some(then) = leads {
                    text.push_str(&format!(
                        "leads_to = {{ metric = \"{}\", expect = {} }}\n",
                        metrics[*then],
                        bound % 2
                    ));
                }
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// What a watch saw is part of the state: merging states finds the outcomes (every
    /// watch's cell among them), executions and probabilities of the plain tree, which
    /// merges nothing; and each outcome's schedule replays to it.
    #[test]
    fn merging_keeps_what_a_watch_saw(text in prop_oneof![watched(), watched_random()]) {
        let bound = ExploreLimits { max_states: 5_000, ..limits(Reduction::Off, false) };
        let tree = &explore(&text, &bound)[0];
        prop_assume!(tree.bounded.is_none());
        let merged = &explore(&text, &limits(Reduction::On, true))[0];
        let set = |e: &Exploration| {
            let mut all: Vec<String> = (e.outcomes.iter())
                .map(|o| format!("{:?} {} {:?}", o.metrics, o.executions, o.probability.map(|p| format!("{p:.12}"))))
                .collect();
            all.sort();
            all
        };
        prop_assert_eq!(set(merged), set(tree), "{}", text);
        for (got, want) in crate::explore::replayed(&text, merged).iter().zip(&merged.outcomes) {
            prop_assert_eq!(got, &want.metrics, "{}", text);
        }
    }
}

/// The explorer's random scenarios (registers, a lock, a key store, a queue, chances,
/// `parallel`) with watches on their metrics.
fn watched_random() -> impl Strategy<Value = String> {
    (
        scenario(),
        prop::collection::vec((0usize..6, 0usize..3, 0u8..3, any::<bool>()), 1..4),
    )
        .prop_map(|(mut text, watches)| {
            let metrics = [
                "r0.value",
                "r1.lost_updates",
                "completed",
                "L.left",
                "K.size",
                "Q.left",
            ];
            let relations = ["at_least", "at_most", "expect"];
            for (index, (metric, relation, bound, leads)) in watches.iter().enumerate() {
                text.push_str(&format!(
                    "[[watch]]\nname = \"w{index}\"\nmetric = \"{}\"\n{} = {bound}\n",
                    metrics[*metric], relations[*relation]
                ));
                if *leads {
                    text.push_str(&format!(
                        "leads_to = {{ metric = \"{}\", at_least = 1 }}\n",
                        metrics[(metric + 1) % 6]
                    ));
                }
            }
            text
        })
}

/// Each key of a watch refused with what is valid, at the key.
#[test]
fn bad_watches_are_named_at_their_key() {
    let base = r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
[[actor]]
name = "c"
steps = [{ acquire = "L" }, { release = "L" }]
"#;
    let cases: &[(&str, &str)] = &[
        (
            "[[watch]]\nname = \"x_ms\"\nmetric = \"nope\"\nat_least = 1\n",
            "`nope` is not a metric of this scenario",
        ),
        (
            "[[watch]]\nname = \"x_ms\"\nmetric = \"L.mean_wait_ms\"\nat_least = 1\n",
            "`L.mean_wait_ms` is a statistic of samples or a span to the run's end",
        ),
        (
            "[[watch]]\nname = \"x_ms\"\nmetric = \"completed\"\n",
            "a watch's condition needs one of `expect`, `at_least`, `at_most`",
        ),
        (
            "[[watch]]\nname = \"x_ms\"\nmetric = \"completed\"\nat_least = 1\nat_most = 2\n",
            "give one of `expect`, `at_least`, `at_most`, not `at_most` as well",
        ),
        (
            "[[watch]]\nname = \"completed\"\nmetric = \"completed\"\nat_least = 1\n",
            "`completed` is a metric of this scenario already",
        ),
        (
            "[[watch]]\nname = \"x_ms\"\nmetric = \"completed\"\nat_least = 1\nwhen = 2\n",
            "unknown key `when` of a [[watch]]",
        ),
        (
            "[[watch]]\nname = \"x_ms\"\nmetric = \"completed\"\nat_least = \"nope + 1\"\n",
            "nope",
        ),
        (
            "[[watch]]\nname = \"x_ms\"\nmetric = \"completed\"\nat_least = 1\nleads_to = { metric = \"completed\" }\n",
            "a watch's condition needs one of",
        ),
        (
            "[[claim]]\nover = \"executions\"\nholds = \"eventually\"\nmetric = \"completed\"\n",
            "`holds = \"eventually\"` reads a [[watch]] (the instant its condition first held): `completed` is not one (this config declares none)",
        ),
        (
            "[[claim]]\nover = \"executions\"\nholds = \"soon\"\nmetric = \"completed\"\nat_least = 1\n",
            "`holds` is `always`, `sometimes`, `never` or `eventually`",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (index, (extra, want)) in cases.iter().enumerate() {
        let name = format!("bad{index}.toml");
        let (code, out) = check_config(dir.path(), &name, &format!("{base}{extra}"));
        assert_eq!(code, Some(2), "{extra}: {out}");
        assert!(
            out.contains("error: ") && out.contains(&name),
            "{extra}: {out}"
        );
        assert!(out.contains(want), "{extra}: want {want:?}, got {out}");
        // At a line and a column of the config, past the base.
        let at = out.split(&format!("{name}:")).nth(1).unwrap_or("");
        let line: usize = at.split(':').next().unwrap_or("0").parse().unwrap_or(0);
        assert!(line > 7, "{extra}: {out}");
    }
}

/// A group whose one step is a request is served directly in a run (its counts settled
/// after the run): a watch reads them as each event leaves them all the same. Requests
/// every 10 ms from 0, each served 4 ms: the third is done at 20 + 4 = 24 ms.
#[test]
fn a_directly_served_group_is_watched_as_it_goes() {
    let text = r#"model = "scenario"
[[resource]]
name = "S"
kind = "server"
service_ms = 4
[[actor]]
name = "client"
every_ms = 10
repeat = 5
steps = [{ request = "S" }]
[[watch]]
name = "third_ms"
metric = "client.completed"
at_least = 3
[[claim]]
metric = "third_ms"
expect = 24
"#;
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = check_config(dir.path(), "direct.toml", text);
    assert_eq!(code, Some(0), "{out}");
}

/// "Within 20 ms of the first": a difference of two watches, as a derived metric and as a
/// claim's expectation, over every execution (the last client is done 30 − 10 = 20 ms
/// after the first, whatever the order).
#[test]
fn a_difference_of_two_watches_over_executions() {
    let claims = r#"
[[metric]]
name = "spread_ms"
expr = "all_done_ms - first_done_ms"
[[claim]]
over = "executions"
metric = "spread_ms"
expect = 20
[[claim]]
over = "executions"
metric = "all_done_ms"
at_most = "first_done_ms + 20"
[[claim]]
over = "executions"
metric = "all_done_ms"
at_most = "first_done_ms + 19"
"#;
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = check_config(dir.path(), "spread.toml", &format!("{THREE}{claims}"));
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(out.matches("PASS").count(), 2, "{out}");
    assert!(
        out.contains("all_done_ms = 30 (always: at most first_done_ms + 19 = 29)"),
        "{out}"
    );
}
