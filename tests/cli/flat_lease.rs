//! Polled and leased locks, stale records, renewals and fenced registers in the flat back
//! end: random points that poll a lock (`P`, every 5 or 10 ms; its holder may crash
//! holding it, and a run with only polls of it left ends stuck), take a lease over (`E`,
//! fencing register `f`) or find a record a crashed holder left (`T`, a lease which runs
//! out), renew
//! a lease and step down when it was lost, mixed with the steps already covered (queue
//! locks, queues, chances, crashes anywhere), explored by both back ends; and counts by
//! hand.

use coordsim_model::{Engine, Exploration, ExploreLimits, Reduction};
use proptest::prelude::*;

use crate::explore::metric_at;
use crate::flat_draw::{alike, interpreted_outcomes};
use crate::flat_engine::{LOCKS_AND_QUEUES, delay, flat_alone, mixed_group_steps, with};
use crate::harness::{coordsim_in, library_config, registry, root, stderr};

/// The locks and the fenced register of these points, beside [`LOCKS_AND_QUEUES`]'s.
const POLLED_LOCKS: &str = "[[resource]]\nname = \"P\"\nkind = \"lock\"\nmode = \"poll\"\npoll_ms = POLL\n\
    [[resource]]\nname = \"E\"\nkind = \"lock\"\nmode = \"lease\"\nlease_ms = LEASE\npoll_ms = 5\nfencing = true\n\
    [[resource]]\nname = \"T\"\nkind = \"lock\"\nmode = \"lease\"\nlease_ms = 15\npoll_ms = 10\nstale_at_start = true\n\
    [[resource]]\nname = \"f\"\nkind = \"register\"\nfenced_by = \"E\"\n";

/// Steps on the polled locks: an increment of `r{r}` under `P` (held for a delay or
/// not); a lease `E` taken, a pause of 0 to 40 ms (past the lease or not), a fenced write
/// of `f` (refused where a newer holder wrote), a renewal and, lost, a step down, else
/// a little more work before the release; a lease taken and released at once, or after
/// a pause (taken over meanwhile or not: a release then leaves the new holder's record); `T` taken (after its stale record runs out), renewed and
/// released; `P` taken by a group's first member, which crashes holding it (its record
/// stays for good: a poller left alone with it is stuck).
fn lease_steps() -> impl Strategy<Value = Vec<String>> {
    (0..3usize, 0..6u8, 0..5u32, prop::option::of(delay())).prop_map(
        |(r, kind, pause, hold)| {
            let s = |text: &str| text.replace('R', &format!("r{r}"));
            let pause = format!("{{ pause_ms = {} }}", pause * 10);
            match kind {
                0 => {
                    let mut steps = vec![
                        "{ acquire = \"P\" }".to_string(),
                        s("{ read = \"R\" }"),
                        s("{ write = \"R\", value = \"read + 1\" }"),
                        "{ release = \"P\" }".to_string(),
                    ];
                    if let Some(hold) = hold {
                        steps.insert(2, hold);
                    }
                    steps
                }
                1 => vec![
                    "{ acquire = \"E\" }".to_string(),
                    pause,
                    "{ write = \"f\", value = \"i + 1\" }".to_string(),
                    "{ renew = \"E\" }".to_string(),
                    "{ if = \"lost\", then = [{ release = \"E\" }], else = [{ delay_ms = 5 }, { release = \"E\" }] }".to_string(),
                ],
                2 => vec![
                    "{ acquire = \"E\" }".to_string(),
                    s("{ write = \"R\", value = \"k + 2\" }"),
                    "{ release = \"E\" }".to_string(),
                ],
                3 => vec![
                    "{ acquire = \"E\" }".to_string(),
                    pause,
                    "{ release = \"E\" }".to_string(),
                ],
                4 => vec![
                    "{ acquire = \"T\" }".to_string(),
                    "{ renew = \"T\" }".to_string(),
                    "{ release = \"T\" }".to_string(),
                ],
                _ => vec![
                    "{ acquire = \"P\" }".to_string(),
                    "{ crash = { count = 1 } }".to_string(),
                    "{ release = \"P\" }".to_string(),
                ],
            }
        },
    )
}

/// A random point with polled locks: up to two groups of one or two closed-loop actors of
/// one or two repetitions, starting at 0, 5 or `i * 5` ms, each running one or two lists
/// of [`lease_steps`] or (a third of the time) of the steps already covered; half the
/// groups may crash anywhere once where no step crashes (a holder's lease then runs
/// out, its poll lock stays taken).
fn lease_config() -> impl Strategy<Value = String> {
    let group = (
        1..=2u32,
        1..=2u32,
        mixed_group_steps(lease_steps()),
        prop_oneof![Just("0"), Just("5"), Just("\"i * 5\"")],
        prop::bool::ANY,
    );
    let poll = prop_oneof![Just("5"), Just("10")];
    let lease = prop_oneof![Just("20"), Just("30")];
    (poll, lease, prop::collection::vec(group, 1..=2)).prop_map(|(poll, lease, groups)| {
        let mut text = String::from(LOCKS_AND_QUEUES);
        text.push_str(&POLLED_LOCKS.replace("POLL", poll).replace("LEASE", lease));
        for r in 0..3 {
            text.push_str(&format!(
                "[[resource]]\nname = \"r{r}\"\nkind = \"register\"\ninitial = {r}\n"
            ));
        }
        // A crash step and `crash_anywhere` in one point are left to the interpreter.
        let steps_crash =
            (groups.iter()).any(|g| g.2.iter().flatten().any(|s| s.contains("crash =")));
        for (g, (count, repeat, steps, start, crash)) in groups.into_iter().enumerate() {
            text.push_str(&format!(
                "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\n\
                 start_ms = {start}\nsteps = [{}]\n",
                steps.concat().join(", ")
            ));
            if crash && !steps_crash {
                text.push_str("crash_anywhere = { count = 1 }\n");
            }
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Both back ends alike on points with polled and leased locks, stale records,
    /// renewals and fences: the counting search with the reduction on and off, under a
    /// state bound, under symmetry, and the search without counts (each run checked to be
    /// the flat back end's).
    #[test]
    fn the_flat_engine_polls_and_leases_as_the_interpreter(
        text in lease_config(),
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        alike(&text, 1, bound, jobs)?;
    }
}

/// A lease taken over, by hand. `a` takes `E` (a lease of 20 ms, polled every 10) with
/// token 1 at 0 and pauses 50 ms; `b`, from 5 ms, fails at 5 and 15 (the record is 15 ms
/// old: not older than 20) and takes it over at 25 (25 > 20) with token 2, writes 2 to
/// `f` (accepted: 2) and releases. At 50 `a` wakes and writes 1: refused, 1 < 2; its
/// renewal finds no record of its own (deleted at `b`'s release): lost, it steps down. No
/// two events fall at one instant: 1 execution, with 2 failed attempts, 2 holders at
/// once (25 to 50), `f` at 2 with 1 write refused, over at 50 ms.
#[test]
fn the_flat_engine_takes_a_lease_over_by_hand() {
    let text = "model = \"scenario\"\n\
                [[resource]]\nname = \"E\"\nkind = \"lock\"\nmode = \"lease\"\nlease_ms = 20\npoll_ms = 10\nfencing = true\n\
                [[resource]]\nname = \"f\"\nkind = \"register\"\nfenced_by = \"E\"\n\
                [[actor]]\nname = \"a\"\nsteps = [{ acquire = \"E\" }, { pause_ms = 50 }, \
                { write = \"f\", value = 1 }, { renew = \"E\" }, \
                { if = \"lost\", then = [{ release = \"E\" }], else = [{ release = \"E\" }, { write = \"f\", value = 9 }] }]\n\
                [[actor]]\nname = \"b\"\nstart_ms = 5\n\
                steps = [{ acquire = \"E\" }, { write = \"f\", value = 2 }, { release = \"E\" }]\n";
    let flat = flat_alone(text, Reduction::On);
    assert_eq!(flat.executions, 1);
    for (metric, value) in [
        ("E.failed_attempts", "2"),
        ("E.max_holders", "2"),
        ("f.value", "2"),
        ("f.rejected_writes", "1"),
        ("makespan_ms", "50"),
    ] {
        assert_eq!(ended(text, &flat, metric), [value], "{metric}");
    }
    assert_eq!(interpreted_outcomes(text), flat.outcomes);
}

/// Two pollers of `P` (every 10 ms), each holding it 10 ms, by hand. At 0 either starts
/// first (2 ways): it takes `P`, the other fails and polls at 10. At 10 the holder's
/// release and the poller's retry fall together (2 ways): release first, the retry takes
/// it (1 failed attempt, over at 20); retry first, it fails again and takes it at 20 (2
/// failed attempts, over at 30). No event is taken alone (each touches `P`; a retry
/// never is): 4 executions, 2 with each count.
#[test]
fn the_flat_engine_counts_two_pollers_by_hand() {
    let text = "model = \"scenario\"\n\
                [[resource]]\nname = \"P\"\nkind = \"lock\"\nmode = \"poll\"\npoll_ms = 10\n\
                [[actor]]\nname = \"c\"\ncount = 2\n\
                steps = [{ acquire = \"P\" }, { delay_ms = 10 }, { release = \"P\" }]\n";
    let flat = flat_alone(text, Reduction::On);
    assert_eq!(flat.executions, 4);
    let (failed, makespan) = (
        ended(text, &flat, "P.failed_attempts"),
        ended(text, &flat, "makespan_ms"),
    );
    let mut split: Vec<(&str, &str, u128)> = (failed.iter().zip(&makespan))
        .zip(&flat.outcomes)
        .map(|((f, m), o)| (f.as_str(), m.as_str(), o.executions))
        .collect();
    split.sort_unstable();
    assert_eq!(split, [("1", "20", 2), ("2", "30", 2)]);
    assert_eq!(interpreted_outcomes(text), flat.outcomes);
}

/// A poller of a lock whose holder crashed holding it, by hand: `h` takes `P` at 0 and
/// crashes at its next step (its record stays: `P` is polled, no lease); `w`, from 5 ms,
/// fails at 5, and its retry is then the only event left, of a record that can never go
/// by itself: the run is stuck and ends there. 1 execution, 1 failed attempt, nothing
/// completed.
#[test]
fn a_poller_of_a_dead_holders_lock_ends_stuck_by_hand() {
    let text = "model = \"scenario\"\n\
                [[resource]]\nname = \"P\"\nkind = \"lock\"\nmode = \"poll\"\npoll_ms = 10\n\
                [[actor]]\nname = \"h\"\nsteps = [{ acquire = \"P\" }, { crash = \"all\" }, { release = \"P\" }]\n\
                [[actor]]\nname = \"w\"\nstart_ms = 5\nsteps = [{ acquire = \"P\" }, { release = \"P\" }]\n";
    let flat = flat_alone(text, Reduction::On);
    assert_eq!(flat.executions, 1);
    assert_eq!(ended(text, &flat, "P.failed_attempts"), ["1"]);
    assert_eq!(ended(text, &flat, "completed"), ["0"]);
    assert_eq!(interpreted_outcomes(text), flat.outcomes);
}

/// What each outcome of `exploration` (of `text`) ended `metric` at, as written.
fn ended(text: &str, exploration: &Exploration, metric: &str) -> Vec<String> {
    let config = library_config(&registry(), "lease.toml", text).unwrap();
    let at = metric_at(&config, metric);
    (exploration.outcomes.iter())
        .map(|o| o.metrics[at].to_string())
        .collect()
}

/// The shipped configs this back end now covers (a lease beside a queue lock, crashed
/// anywhere; two leader leases with fencing, one paused by chance): the flat back end
/// explores every point of each to the end (the exploration names its engine: one handed
/// to the interpreter midway would say so), and `--engine auto`'s files are the
/// interpreter's, byte for byte.
/// A polled lock beside a key store (the polls' header words and the stores' laid out
/// together): both back ends alike. Two actors, twice each, take `P` by polling, bump
/// `K[1]` and `r` and release.
#[test]
fn a_polled_lock_beside_a_key_store_is_the_interpreters() -> Result<(), TestCaseError> {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"K\"\nkind = \"keys\"\n\
        initial = [[1, 5]]\n[[resource]]\nname = \"P\"\nkind = \"lock\"\nmode = \"poll\"\n\
        poll_ms = 3\n[[resource]]\nname = \"r\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\n\
        count = 2\nrepeat = 2\nsteps = [{ acquire = \"P\" }, { lookup = \"K\", key = 1 }, \
        { set = \"K\", key = 1, value = \"K + 1\" }, { read = \"r\" }, \
        { write = \"r\", value = \"r + 1\" }, { release = \"P\" }]\n";
    alike(text, 0, 1_000, 1)
}

#[test]
fn the_shipped_lease_configs_explore_flat_as_the_interpreter() {
    let dir = tempfile::tempdir().unwrap();
    for config in [
        "configs/explore/explore-crash-anywhere.toml",
        "configs/explore/explore-lease-fencing.toml",
        "configs/scenarios/scenario-lease-pause.toml",
    ] {
        let path = root().join(config);
        let text = std::fs::read_to_string(&path).unwrap();
        for point in with(&text, ExploreLimits::default(), Engine::Flat) {
            assert_eq!(point.engine, Engine::Flat, "{config}");
        }
        let path = path.to_str().unwrap();
        let files = |engine: &str| {
            let out = coordsim_in(
                dir.path(),
                &["explore", path, "--engine", engine, "--out", engine, "-q"],
            );
            assert!(out.status.success(), "{config}: {}", stderr(&out));
            let mut files = Vec::new();
            for entry in walk(&dir.path().join(engine)) {
                let name = entry
                    .strip_prefix(dir.path().join(engine))
                    .unwrap()
                    .to_owned();
                files.push((name, std::fs::read(&entry).unwrap()));
            }
            files.sort();
            files
        };
        let auto = files("auto");
        assert!(!auto.is_empty(), "{config}");
        assert_eq!(auto, files("interpret"), "{config}");
        std::fs::remove_dir_all(dir.path().join("auto")).unwrap();
        std::fs::remove_dir_all(dir.path().join("interpret")).unwrap();
    }
}

/// Every file under `at`.
fn walk(at: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(at).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// A fenced register written in a transaction (whose writes land at its end, past the
/// fence's check of each write) is left to the interpreter, by name, and `auto` explores
/// it.
#[test]
fn a_transaction_writing_a_fenced_register_is_left_to_the_interpreter() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::write_config(
        dir.path(),
        "fenced.toml",
        "model = \"scenario\"\n[[resource]]\nname = \"E\"\nkind = \"lock\"\nmode = \"lease\"\n\
         lease_ms = 20\npoll_ms = 5\nfencing = true\n[[resource]]\nname = \"f\"\n\
         kind = \"register\"\nfenced_by = \"E\"\n[[actor]]\nname = \"a\"\ncount = 2\n\
         steps = [{ acquire = \"E\" }, { transaction = [{ write = \"f\", value = \"i + 1\" }] }, \
         { release = \"E\" }]\n",
    );
    let out = coordsim_in(
        dir.path(),
        &["explore", &config, "--engine", "flat", "--out", "o", "-q"],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("a transaction writes and a register is fenced")
            && err.contains("--engine auto"),
        "{err}"
    );
    let out = coordsim_in(dir.path(), &["explore", &config, "--out", "o", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
}
