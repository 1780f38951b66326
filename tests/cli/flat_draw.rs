//! Draws in the flat back end: `if`s by chance (probabilities drawn from 0.1 to 0.9, or
//! computed from `i` and `k`, certain ones among them), nested, after a take or an
//! acquire a put or a release hands on (so that the waiter draws in another's event),
//! explored by both back ends on random points with and without symmetry and under
//! `--max-faults` 0 to 2, the counting search and the one without counts, alone and mixed
//! with key stores, transactions and crashes in one point; and a hand count of the
//! probabilities.

use coordsim_model::{Cell, Counting, Engine, ExploreLimits, Reduction, Symmetry};
use proptest::prelude::*;

use crate::flat_engine::{
    LOCKS_AND_QUEUES, delay, flat_alone, mixed_group_steps, same, same_without_symmetry, with,
};
use crate::flat_keys::{key_steps, on_q};
use crate::harness::{coordsim_in, stderr, write_config};

/// A chance: a probability from 0.1 to 0.9, or one computed per member or repetition
/// (`i` alone is 0 or 1 for the first two members: certain, no draw).
fn chance() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (1..10u32).prop_map(|tenths| format!("0.{tenths}")),
        1 => Just("\"0.2 + i * 0.3\"".to_string()),
        1 => Just("\"0.9 - k * 0.4\"".to_string()),
        1 => Just("\"i\"".to_string()),
    ]
}

/// Steps with an `if` by chance on register `r{r}` (queue `Q`, lock `L` of
/// [`LOCKS_AND_QUEUES`]): an increment by 1 or by 10 as drawn; a blind write or none;
/// two chances nested, the inner one's "no" an end given up; an `if` by chance right
/// after an acquire (a waiter handed the lock draws in its releaser's event, after the
/// releaser's own draw past its release) or a take (a taker handed a message draws in its
/// putter's, after the putter's own); a stop by chance; a crash step by a probability
/// (0.1 to 0.9, a fault: `--max-faults` bounds them) between two writes, one of the group's first
/// member under a lock (which stays taken), and one by names (`NAMES`: the group's last
/// member, [`named`]) between two writes; each crash step down for good or restarting its
/// actor after 0 ms, 3 ms or `i * 2 + k` ms.
fn chance_steps() -> impl Strategy<Value = Vec<String>> {
    (0..3usize, 0..10u8, chance(), chance(), 1..10u32, restart()).prop_map(|(r, kind, p, q, c, restart)| {
        let s = |text: &str| {
            // The restart first: its placeholder holds an `R`.
            text.replace("RESTART", restart)
                .replace('R', &format!("r{r}"))
                .replace("P", &p)
                .replace("Q2", &q)
        };
        match kind {
            0 => vec![
                s("{ read = \"R\" }"),
                s("{ if = { chance = P }, then = [{ write = \"R\", value = \"read + 1\" }], else = [{ write = \"R\", value = \"read + 10\" }] }"),
            ],
            1 => vec![s("{ if = { chance = P }, then = [{ write = \"R\", value = \"i + 1\" }] }")],
            2 => vec![
                s("{ if = { chance = P }, then = [{ if = { chance = Q2 }, then = [{ write = \"R\", value = \"k + 3\" }], else = [{ end = \"gave_up\" }] }] }"),
                s("{ read = \"R\" }"),
            ],
            3 => vec![
                "{ acquire = \"L\" }".to_string(),
                s("{ if = { chance = P }, then = [{ read = \"R\" }, { write = \"R\", value = \"read * 2 + 1\" }] }"),
                "{ release = \"L\" }".to_string(),
                s("{ if = { chance = Q2 }, then = [{ write = \"R\", value = \"i + 1\" }] }"),
            ],
            4 => vec![
                "{ take = \"Q\" }".to_string(),
                s("{ if = { chance = P }, then = [{ write = \"R\", value = \"Q\" }], else = [{ end = true }] }"),
            ],
            6 => vec![
                s("{ write = \"R\", value = \"k + 1\" }"),
                s(&format!("{{ crash = {{ probability = 0.{c} }}RESTART }}")),
                s("{ write = \"R\", value = \"k + 4\" }"),
            ],
            7 => vec![
                "{ acquire = \"L\" }".to_string(),
                s("{ crash = { count = 1 }RESTART }"),
                "{ release = \"L\" }".to_string(),
            ],
            9 => vec![
                s("{ read = \"R\" }"),
                s("{ crash = NAMESRESTART }"),
                s("{ write = \"R\", value = \"read + k + 1\" }"),
            ],
            5 => vec![
                "{ put = \"Q\", value = \"k + 1\" }".to_string(),
                s("{ if = { chance = P }, then = [{ write = \"R\", value = \"i + 2\" }] }"),
            ],
            _ => vec![
                s("{ if = { chance = P }, then = [{ stop = true }] }"),
                s("{ write = \"R\", value = \"k + 5\" }"),
            ],
        }
    })
}

/// `steps` with `V`'s steps on `Q` where time moves on ([`on_q`]).
fn on_q_if(timed: bool, steps: &str) -> String {
    if timed {
        on_q(steps)
    } else {
        steps.to_string()
    }
}

/// A crash's restart: none (down for good), or after 0 ms, 3 ms or `i * 2 + k` ms.
fn restart() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        2 => Just(""),
        1 => Just(", restart_after_ms = 0"),
        1 => Just(", restart_after_ms = 3"),
        1 => Just(", restart_after_ms = \"i * 2 + k\""),
    ]
}

/// A `crash_anywhere`'s restart: none, or after 0 or 3 ms (a number: it is no step's).
fn restart_anywhere() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        2 => Just(""),
        1 => Just(", restart_after_ms = 0"),
        1 => Just(", restart_after_ms = 3"),
    ]
}

/// Group `g`'s steps with its crash steps by names naming its last member (of `count`).
fn named(steps: &str, g: usize, count: u32) -> String {
    let last = if count == 1 {
        format!("g{g}")
    } else {
        format!("g{g}-{}", count - 1)
    };
    steps.replace("NAMES", &format!("[\"{last}\"]"))
}

/// A group's steps: one or two lists, each of [`chance_steps`] or (a third of the time) of
/// the flat back end's other steps (puts on `Q` among them).
fn group_steps() -> impl Strategy<Value = Vec<Vec<String>>> {
    mixed_group_steps(chance_steps())
}

/// A random point with chances: up to two groups of up to two closed-loop actors of one
/// or two repetitions, each starting at 0 ms, or (`timed`) at 0, 5 or `i * 5` ms with a
/// delay among its steps; half the groups may crash anywhere, once or twice (down for
/// good: a lock its member held stays taken, a message it took is gone), where no step
/// crashes.
fn draw_config(timed: bool) -> impl Strategy<Value = String> {
    let group = (
        1..=2u32,
        1..=2u32,
        group_steps(),
        prop::option::of(delay()),
        0..3usize,
        prop_oneof![Just("0"), Just("5"), Just("\"i * 5\"")],
        prop::option::of((1..=2u32, restart_anywhere())),
    );
    prop::collection::vec(group, 1..=2).prop_map(move |groups| {
        // A crash step and `crash_anywhere` in one point are left to the interpreter.
        let steps_crash =
            (groups.iter()).any(|g| g.2.iter().flatten().any(|s| s.contains("crash =")));
        let mut text = String::from(LOCKS_AND_QUEUES);
        for r in 0..3 {
            text.push_str(&format!(
                "[[resource]]\nname = \"r{r}\"\nkind = \"register\"\ninitial = {r}\n"
            ));
        }
        for (g, (count, repeat, steps, pause, at, start, crash)) in groups.into_iter().enumerate() {
            let mut steps = steps.concat();
            let start = if timed {
                if let Some(pause) = pause {
                    steps.insert(at.min(steps.len()), pause);
                }
                start
            } else {
                "0"
            };
            text.push_str(&format!(
                "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\n\
                 start_ms = {start}\nsteps = [{}]\n",
                named(&steps.join(", "), g, count)
            ));
            if let Some((crashes, restart)) = crash.filter(|_| !steps_crash) {
                text.push_str(&format!(
                    "crash_anywhere = {{ count = {crashes}{restart} }}\n"
                ));
            }
        }
        text
    })
}

/// Both back ends alike on `text` under `max_faults`: the counting search without
/// symmetry (reduction on and off, a state bound `bound`, on `jobs` threads) and with it
/// (reduction off), each run checked to be the flat back end's (`same` compares the
/// engines' names); and the search without counts, its outcomes (counts kept) and their
/// shortest executions' lengths alike.
pub(crate) fn alike(
    text: &str,
    max_faults: u32,
    bound: u64,
    jobs: usize,
) -> Result<(), TestCaseError> {
    let on = same_without_symmetry(text, jobs, bound)?;
    let on = ExploreLimits { max_faults, ..on };
    same(text, on)?;
    let sym = ExploreLimits {
        symmetry: Symmetry::On,
        reduce: Reduction::Off,
        ..on
    };
    same(text, sym)?;
    for limits in [on, sym] {
        let reach = ExploreLimits {
            counting: Counting::Reach { keep_counts: true },
            keep_schedulers: false,
            ..limits
        };
        same(text, reach)?;
    }
    // Symmetry with the reduction: each back end takes alone the first free event of its
    // own representative, so the outcomes found are the same, not always the counts.
    let reduced = ExploreLimits {
        reduce: Reduction::On,
        ..sym
    };
    let (i, f) = (
        with(text, reduced, Engine::Interpret),
        with(text, reduced, Engine::Flat),
    );
    for (i, f) in i.iter().zip(&f) {
        prop_assert_eq!(f.engine, Engine::Flat);
        if i.bounded.is_none() && f.bounded.is_none() {
            let metrics = |e: &coordsim_model::Exploration| {
                (e.outcomes.iter())
                    .map(|o| format!("{:?}", o.metrics))
                    .collect::<std::collections::BTreeSet<_>>()
            };
            prop_assert_eq!(metrics(i), metrics(f));
        }
    }
    Ok(())
}

/// A random point of every family at once, which no other generator draws together: key
/// stores `K` and `S` (empty or with a pair) beside the locks, queues and registers; up
/// to two groups of up to two closed-loop actors of one or two repetitions, each running
/// one or two lists of [`key_steps`] (transactions among them) or [`chance_steps`] (ifs
/// by chance, crash steps, locks, queues, stops) at 0 ms; half the groups may crash
/// anywhere once or twice where no step crashes (a crashed member's key store words and
/// the lock it held stay as they were).
fn mixed_config() -> impl Strategy<Value = String> {
    let one = prop_oneof![1 => key_steps(), 1 => chance_steps()];
    let group = (
        1..=2u32,
        1..=2u32,
        prop::collection::vec(one, 1..=2),
        prop::option::of((1..=2u32, restart_anywhere())),
    );
    let initial_k = prop_oneof![Just(""), Just("initial = [[1, 5]]\n")];
    let initial_s = prop_oneof![Just(""), Just("initial = [[2, 7]]\n")];
    (initial_k, initial_s, prop::collection::vec(group, 1..=2)).prop_map(
        |(initial_k, initial_s, groups)| {
            let steps_crash =
                (groups.iter()).any(|g| g.2.iter().flatten().any(|s| s.contains("crash =")));
            // A restart moves time on: `V`'s steps (a visibility timeout) are then on `Q`.
            let timed = (groups.iter()).any(|g| {
                g.3.is_some_and(|c| !c.1.is_empty())
                    || g.2.iter().flatten().any(|s| s.contains("restart_after_ms"))
            });
            let mut text = String::from(LOCKS_AND_QUEUES);
            text.push_str(&format!(
                "[[resource]]\nname = \"K\"\nkind = \"keys\"\n{initial_k}\
                 [[resource]]\nname = \"S\"\nkind = \"keys\"\n{initial_s}"
            ));
            for r in 0..3 {
                text.push_str(&format!(
                    "[[resource]]\nname = \"r{r}\"\nkind = \"register\"\ninitial = {r}\n"
                ));
            }
            for (g, (count, repeat, steps, crash)) in groups.into_iter().enumerate() {
                text.push_str(&format!(
                    "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\n\
                     steps = [{}]\n",
                    named(&on_q_if(timed, &steps.concat().join(", ")), g, count)
                ));
                if let Some((crashes, restart)) = crash.filter(|_| !steps_crash) {
                    text.push_str(&format!(
                        "crash_anywhere = {{ count = {crashes}{restart} }}\n"
                    ));
                }
            }
            text
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Both back ends explore points with `if`s by chance alike in every field: each
    /// outcome's executions and probability (bit for bit), each transition's draws in the
    /// traces and schedules, the schedulers' least and greatest probabilities.
    #[test]
    fn the_flat_engine_draws_as_the_interpreter(
        text in draw_config(false),
        max_faults in 0u32..3,
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        alike(&text, max_faults, bound, jobs)?;
    }

    /// The same where time moves on: starts apart, delays among the steps, so that an
    /// event resumes at an `if` by chance after a delay.
    #[test]
    fn the_flat_engine_draws_in_time_as_the_interpreter(
        text in draw_config(true),
        max_faults in 0u32..3,
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        alike(&text, max_faults, bound, jobs)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Both back ends alike on points that mix key stores and their transactions with
    /// ifs by chance, crash steps or `crash_anywhere`, locks and queues (each property
    /// test above draws one family): where the merged step meets them in one event (a
    /// waiter handed a lock or a message runs its transaction in its releaser's event,
    /// after the releaser's draws; a member crashed with its key store words kept).
    #[test]
    fn the_flat_engine_mixes_keys_draws_and_crashes_as_the_interpreter(
        text in mixed_config(),
        max_faults in 0u32..3,
        bound in 5u64..200,
        jobs in 1usize..4,
    ) {
        alike(&text, max_faults, bound, jobs)?;
    }
}

/// One actor, by hand: `if` a chance of 0.3 it writes 1 to `r`, else `if` a chance of 0.6
/// it writes 2, else nothing. No free order, so each outcome has a probability: `r` ends
/// 1 with 0.3, 2 with 0.7 × 0.6 = 0.42, 0 with 0.7 × 0.4 = 0.28 (adding up to 1), each by
/// one execution of one event (both draws are its own: the first is its bit 0, the
/// second its bit 1).
#[test]
fn the_flat_engine_draws_an_if_by_chance_by_hand() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
                [[actor]]\nname = \"a\"\n\
                steps = [{ if = { chance = 0.3 }, then = [{ write = \"r\", value = \"1\" }], \
                else = [{ if = { chance = 0.6 }, then = [{ write = \"r\", value = \"2\" }] }] }]\n";
    let flat = flat_alone(text, Reduction::On);
    assert_eq!(flat.executions, 3);
    // `r`'s value (the first metric), the probability and the draws of each outcome.
    let mut found: Vec<(f64, f64, Vec<bool>)> = (flat.outcomes.iter())
        .map(|o| {
            let r = match o.metrics[0] {
                Cell::Float(x) => x,
                Cell::Count(n) => n as f64,
                ref other => panic!("r.value is {other:?}"),
            };
            let draws = o.schedule.events[0].draws.clone();
            (r, o.probability.expect("no free order"), draws)
        })
        .collect();
    found.sort_by(|a, b| a.0.total_cmp(&b.0));
    let expected = [
        (0.0, 0.28, vec![false, false]),
        (1.0, 0.3, vec![true]),
        (2.0, 0.42, vec![false, true]),
    ];
    assert_eq!(found.len(), 3);
    for ((r, p, draws), (want_r, want_p, want_draws)) in found.iter().zip(expected) {
        assert_eq!(*r, want_r);
        assert!((p - want_p).abs() < 1e-12, "{p} against {want_p}");
        assert_eq!(draws, &want_draws);
    }
    assert_eq!(interpreted_outcomes(text), flat.outcomes);
}

/// The files `explore` writes are the same bytes from either engine (the engine asked
/// for named nowhere in them), on two clients whose increments are by chance: and
/// `--engine flat` explores the point rather than refusing it.
#[test]
fn the_flat_engines_files_with_draws_are_the_interpreters() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "chance.toml",
        "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
         [[actor]]\nname = \"a\"\ncount = 2\n\
         steps = [{ read = \"r\" }, { if = { chance = 0.25 }, \
         then = [{ write = \"r\", value = \"read + 1\" }] }]\n",
    );
    let files = |engine: &str| {
        let out = coordsim_in(
            dir.path(),
            &[
                "explore", &config, "--engine", engine, "--out", engine, "-q",
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let at = dir.path().join(engine).join("chance-explore");
        let mut names: Vec<_> = std::fs::read_dir(&at)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        (names.iter())
            .map(|name| (name.clone(), std::fs::read(at.join(name)).unwrap()))
            .collect::<Vec<_>>()
    };
    let flat = files("flat");
    assert!(!flat.is_empty());
    assert_eq!(flat, files("interpret"));
}

/// One actor that may crash once, by hand: three repetitions of a write of `k + 1` to
/// `r`. Its first event is its start (no crash: a crash comes at a resumption), which
/// writes 1 and yields at its next repetition's write; each of the two resumptions after
/// may be a crash instead (the budget is one). So 3 executions, one each: no crash (`r`
/// ends 3, 3 completed), a crash at the first resumption (`r` ends 1, 1 completed) or at
/// the second (`r` ends 2, 2 completed). The interpreter's outcomes are the same.
#[test]
fn the_flat_engine_crashes_anywhere_by_hand() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
                [[actor]]\nname = \"a\"\nrepeat = 3\ncrash_anywhere = { count = 1 }\n\
                steps = [{ write = \"r\", value = \"k + 1\" }]\n";
    let flat = flat_alone(text, Reduction::On);
    assert_eq!(flat.executions, 3);
    let mut ends: Vec<f64> = (flat.outcomes.iter())
        .map(|o| match o.metrics[0] {
            Cell::Float(x) => x,
            Cell::Count(n) => n as f64,
            ref other => panic!("r.value is {other:?}"),
        })
        .collect();
    ends.sort_by(f64::total_cmp);
    assert_eq!(ends, [1.0, 2.0, 3.0]);
    assert!(flat.outcomes.iter().all(|o| o.executions == 1));
    assert_eq!(interpreted_outcomes(text), flat.outcomes);
}

/// A crash where a queue's messages come back (a visibility timeout): a consumer that
/// crashes holding its message leaves it to come back at the queue's timer, to the other
/// consumer; both back ends alike (each run checked to be its own engine's), with and
/// without the reduction, without counts too.
#[test]
fn a_crash_holding_a_message_is_the_interpreters() {
    let text = "model = \"scenario\"\n\
                [[resource]]\nname = \"V\"\nkind = \"queue\"\nvisibility_ms = 100\n\
                [[resource]]\nname = \"r\"\nkind = \"register\"\n\
                [[actor]]\nname = \"feeder\"\nrepeat = 2\nsteps = [{ put = \"V\", value = \"k + 1\" }]\n\
                [[actor]]\nname = \"c\"\ncount = 2\ncrash_anywhere = { count = 1 }\n\
                steps = [{ take = \"V\" }, { if = { chance = 0.5 }, \
                then = [{ write = \"r\", value = \"V * 10 + V.deliveries\" }] }, { ack = \"V\" }]\n";
    alike(text, 1, 20, 1).unwrap();
}

/// `--engine flat` refuses a point with both kinds of crash (a group's `crash_anywhere`
/// and a crash step: the crashes spent anywhere are counted as the actors crashed), saying
/// so; `auto` explores it with the interpreter. A crash that restarts, anywhere or at a
/// step, it explores.
#[test]
fn the_flat_engine_refuses_both_kinds_of_crash() {
    let dir = tempfile::tempdir().unwrap();
    let write = "{ write = \"r\", value = \"k + 1\" }";
    for (crash, steps, why) in [
        (
            "crash_anywhere = { count = 1 }",
            format!("{write}, {{ crash = {{ probability = 0.5 }} }}"),
            Some("a group may crash anywhere and a step crashes"),
        ),
        (
            "crash_anywhere = { count = 1, restart_after_ms = 10 }",
            write.to_string(),
            None,
        ),
        (
            "",
            format!("{write}, {{ crash = \"all\", restart_after_ms = 10 }}"),
            None,
        ),
    ] {
        let config = write_config(
            dir.path(),
            "restart.toml",
            &format!(
                "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
                 [[actor]]\nname = \"a\"\nrepeat = 2\n{crash}\nsteps = [{steps}]\n"
            ),
        );
        let run = |engine: &str| {
            coordsim_in(
                dir.path(),
                &["explore", &config, "--engine", engine, "--out", "o", "-q"],
            )
        };
        let out = run("flat");
        let err = stderr(&out);
        match why {
            Some(why) => assert!(
                !out.status.success()
                    && err.contains("the flat engine does not explore this point")
                    && err.contains(why),
                "{err}"
            ),
            None => assert!(out.status.success(), "{err}"),
        }
        let out = run("auto");
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

/// The search without counts over draws (and crashes) on 1, 2 and 3 threads: levels of
/// dozens of states and more are cut between the threads, and an event's ways share its
/// pick (each child is numbered by its rank among its state's children): the same
/// exploration on any, the interpreter's.
#[test]
fn draws_and_crashes_without_counts_are_the_same_on_any_threads() {
    let clients = "model = \"scenario\"\n[[resource]]\nname = \"n\"\nkind = \"register\"\n\
                   [[actor]]\nname = \"c\"\ncount = 3\nrepeat = 2\n\
                   steps = [{ read = \"n\" }, { if = { chance = 0.3 }, \
                   then = [{ write = \"n\", value = \"read + 1\" }], \
                   else = [{ write = \"n\", value = \"read + 2\" }] }]\n";
    let crashing = clients.replace(
        "repeat = 2\n",
        "repeat = 2\ncrash_anywhere = { count = 1 }\n",
    );
    for text in [clients, crashing.as_str()] {
        for symmetry in [Symmetry::On, Symmetry::Off] {
            let limits = ExploreLimits {
                counting: Counting::Reach { keep_counts: true },
                symmetry,
                ..ExploreLimits::default()
            };
            let one = with(text, ExploreLimits { jobs: 1, ..limits }, Engine::Flat);
            assert_eq!(one[0].engine, Engine::Flat);
            assert!(one[0].states > 100, "{}", one[0].states);
            for jobs in [2, 3] {
                let many = with(text, ExploreLimits { jobs, ..limits }, Engine::Flat);
                assert_eq!(many, one, "{jobs} threads");
            }
            same(text, limits).unwrap();
        }
    }
}

/// The reduction after a chance reads each member's own table: three members each insert,
/// by a chance of 0.5, key 1, 1, 2 (else 5, 5, 6). Member 2's key is its own either way, so
/// its start is taken alone (2 ways); members 0 and 1 may name one key, so both orders of
/// their starts are taken, each of 2 × 2 ways: 2 × (2 × 4) = 16 executions, over 21 states
/// and 30 transitions, as the interpreter explores them. The group's table (members 0 and
/// 1 conflict, so no member is alone) would take every order: 48 executions, 51 states.
#[test]
fn the_reduction_after_a_chance_is_each_members() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "members.toml",
        "model = \"scenario\"\n[[resource]]\nname = \"K\"\nkind = \"keys\"\n\
         [[actor]]\nname = \"w\"\ncount = 3\n\
         steps = [{ if = { chance = 0.5 }, then = [{ insert = \"K\", key = [1, 1, 2] }], \
         else = [{ insert = \"K\", key = [5, 5, 6] }] }]\n",
    );
    let summary = |engine: &str| {
        let out = coordsim_in(
            dir.path(),
            &[
                "explore",
                &config,
                "--engine",
                engine,
                "--no-symmetry",
                "--out",
                engine,
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let page = dir.path().join(engine).join("members-explore/explore.md");
        std::fs::read_to_string(page).unwrap()
    };
    let flat = summary("flat");
    assert!(
        flat.contains("21 states, 30 transitions, 16 executions"),
        "{flat}"
    );
    assert_eq!(flat, summary("interpret"));
}

/// The outcomes of `text`'s first point as the interpreter explores it, every state apart:
/// what a hand count on the flat back end is held to besides its own figures.
pub(crate) fn interpreted_outcomes(text: &str) -> Vec<coordsim_model::explore::Outcome> {
    let limits = ExploreLimits {
        symmetry: Symmetry::Off,
        ..ExploreLimits::default()
    };
    with(text, limits, Engine::Interpret)
        .swap_remove(0)
        .outcomes
}
