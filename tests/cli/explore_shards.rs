//! `explore --shard K/N` and `merge`: an exploration split over machines gives the
//! exploration of the whole, and `merge` refuses what is not one split.

use coordsim_model::{Exploration, ExploreLimits, Reduction, Symmetry, merge_parts};
use proptest::prelude::*;

use crate::explore::{explore, increments, limits, scenario};
use crate::harness::{coordsim_in, list_files, read, stderr, stdout};

/// `text` explored in `n` shards under `limits`, the parts merged (point 0).
fn sharded(text: &str, limits: &ExploreLimits, n: u32) -> Exploration {
    let parts: Vec<Exploration> = (0..n)
        .map(|k| {
            let shard = ExploreLimits {
                shard: Some((k, n)),
                ..*limits
            };
            explore(text, &shard).swap_remove(0)
        })
        .collect();
    merge_parts(&parts).expect("the parts of one split merge")
}

/// `limits` without symmetry: a split explores every state apart (its shards meet at
/// states keyed alike), so its merge is the whole explored so.
fn plain(limits: ExploreLimits) -> ExploreLimits {
    ExploreLimits {
        symmetry: Symmetry::Off,
        ..limits
    }
}

/// Equal to the last trace, but for an outcome's probability, whose terms a split adds
/// in another order (equal to within rounding), for the notes on symmetry (a shard has
/// none: no group of it is reduced), for whether states were keyed, and for the back end
/// that stepped them (a shard's is the interpreter; the whole's may be the flat one, which
/// explores the same graph).
fn assert_same(got: &Exploration, want: &Exploration, text: &str) {
    let strip = |e: &Exploration| {
        let mut e = e.clone();
        e.symmetry.clear();
        // A split's parts are keyed for the merge, even as `--no-merge` trees.
        e.keyed = true;
        e.engine = coordsim_model::Engine::Interpret;
        e.outcomes.iter_mut().for_each(|o| o.probability = None);
        e
    };
    assert_eq!(strip(got), strip(want), "{text}");
    for (g, w) in got.outcomes.iter().zip(&want.outcomes) {
        match (g.probability, w.probability) {
            (Some(g), Some(w)) => assert!((g - w).abs() <= 1e-12 * w.max(1e-300), "{g} vs {w}"),
            (g, w) => assert_eq!(g, w, "{text}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A split into any number of shards, with or without merging and reduction, merges
    /// into the unsharded exploration: its states, transitions, executions, longest
    /// execution, each outcome's executions and its shortest execution (the one a
    /// breadth-first search of the whole reaches first).
    #[test]
    fn a_split_exploration_merges_into_the_whole(
        text in scenario(),
        n in 1u32..7,
        merge in any::<bool>(),
        reduce in any::<bool>(),
    ) {
        let reduction = if reduce { Reduction::On } else { Reduction::Off };
        let bound = ExploreLimits { max_states: 20_000, ..limits(reduction, merge) };
        let whole = explore(&text, &plain(bound)).swap_remove(0);
        prop_assume!(whole.bounded.is_none());
        assert_same(&sharded(&text, &bound, n), &whole, &text);
    }
}

/// A split wider than the run's choices: most shards get no state of their own, and
/// the merge is still the whole (2 clients × 2 increments of a read and a write each:
/// the 8!/(4!·4!) = 70 interleavings of their 4 actions).
#[test]
fn more_shards_than_states_still_merge_into_the_whole() {
    let text = increments(2, 2, false);
    let bound = limits(Reduction::On, true);
    let whole = explore(&text, &plain(bound)).swap_remove(0);
    assert_eq!(whole.executions, 70);
    assert_same(&sharded(&text, &bound, 64), &whole, &text);
}

/// A `parallel`'s branch never takes a job slot another actor left while that actor's
/// timer is still pending there: a leftover timer (a take served before it runs out) stays
/// the event of the actor that armed it. When a branch could take the slot, the timer
/// changed owner with it, so two states alike in every hashed word went on differently
/// (by which of the timer and the branch's event was scheduled first) and the shards of a
/// split met states the whole never saw (9,622 against 9,601 here). Now the merge is the
/// whole, and so is the tree that merges nothing: the same executions either way.
#[test]
fn a_leftover_timer_stays_its_actors_when_a_branch_reuses_slots() {
    let text = r#"
model = "scenario"
[[resource]]
name = "r0"
kind = "register"
[[resource]]
name = "r1"
kind = "register"
[[resource]]
name = "Q"
kind = "queue"
[[actor]]
name = "g0"
steps = [{ parallel = [[{ read = "r0" }], [{ read = "r1" }]] }]
[[actor]]
name = "g1"
count = 2
repeat = 2
steps = [{ put = "Q", value = "1" }]
[[actor]]
name = "g2"
count = 2
steps = [{ take = "Q", timeout_ms = 1 }]
"#;
    let bound = plain(limits(Reduction::Off, true));
    let whole = explore(text, &bound).swap_remove(0);
    assert!(whole.bounded.is_none());
    for n in [4, 6, 8] {
        assert_same(&sharded(text, &bound, n), &whole, text);
    }
    let tree = explore(text, &plain(limits(Reduction::Off, false))).swap_remove(0);
    assert_eq!(tree.executions, whole.executions);
}

/// The parts of different splits, or one shard twice, do not merge.
#[test]
fn merge_parts_wants_every_shard_of_one_split_once() {
    let text = increments(2, 2, false);
    let part = |k, n| {
        let l = ExploreLimits {
            shard: Some((k, n)),
            ..limits(Reduction::On, true)
        };
        explore(&text, &l).swap_remove(0)
    };
    let err = merge_parts(&[part(0, 2), part(0, 2)]).unwrap_err();
    assert!(err.contains("every shard of one split once"), "{err}");
    let err = merge_parts(&[part(0, 2)]).unwrap_err();
    assert!(err.contains("split into 1"), "{err}");
    let whole = explore(&text, &limits(Reduction::On, true)).swap_remove(0);
    assert!(
        merge_parts(&[whole]).is_err(),
        "an unsharded exploration is no part"
    );
}

/// The at-least-once example, in 3 shards through the command line: `merge` writes the
/// folder `explore` writes, byte for byte (the exact duplicate probability 0.16 with it),
/// and prints the same verdicts.
#[test]
fn explore_shards_merge_into_the_folder_explore_writes() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::root()
        .join("configs/explore/explore-at-least-once.toml")
        .to_string_lossy()
        .into_owned();
    let whole = coordsim_in(dir.path(), &["explore", &config, "--out", "whole", "-q"]);
    assert!(whole.status.success(), "{}", stderr(&whole));
    let mut shards = Vec::new();
    for k in 0..3 {
        let out = format!("s{k}");
        let o = coordsim_in(
            dir.path(),
            &[
                "explore",
                &config,
                "--out",
                &out,
                "--shard",
                &format!("{k}/3"),
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stdout(&o).contains(&format!("shard {k}/3")),
            "{}",
            stdout(&o)
        );
        shards.push(format!("{out}/explore-at-least-once-explore"));
    }
    let mut args = vec!["merge", "merged"];
    args.extend(shards.iter().map(String::as_str));
    let merged = coordsim_in(dir.path(), &args);
    assert!(merged.status.success(), "{}", stderr(&merged));
    let verdicts = |o: &std::process::Output| -> Vec<String> {
        stdout(o)
            .lines()
            .filter(|l| l.starts_with("PASS") || l.starts_with("FAIL") || l.contains("passed,"))
            .map(str::to_string)
            .collect()
    };
    assert!(!verdicts(&whole).is_empty(), "{}", stdout(&whole));
    assert_eq!(verdicts(&merged), verdicts(&whole));
    let want = dir.path().join("whole/explore-at-least-once-explore");
    let got = dir.path().join("merged");
    assert_eq!(list_files(&got), list_files(&want));
    for file in list_files(&want) {
        assert!(
            read(got.join(&file)) == read(want.join(&file)),
            "{file} differs"
        );
    }
    let md = std::fs::read_to_string(got.join("explore.md")).unwrap();
    // The Turkish config's probability, in its locale.
    assert!(md.contains("0,16"), "{md}");
}

/// What `merge` refuses of exploration shards: one missing, one explored under other
/// bounds (or keyed by another build's fingerprints), a run's shard among them, and a
/// visits file changed after it was written.
#[test]
fn merge_refuses_what_is_not_one_split_of_one_exploration() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::write_config(dir.path(), "lu.toml", &increments(2, 2, false));
    let shard = |k: u32, out: &str, extra: &[&str]| {
        let mut args = vec!["explore", config.as_str(), "--out", out, "-q"];
        let split = format!("{k}/2");
        args.extend(["--shard", split.as_str()]);
        args.extend(extra);
        let o = coordsim_in(dir.path(), &args);
        assert!(o.status.success(), "{}", stderr(&o));
        format!("{out}/lu-explore")
    };
    let merge = |shards: &[&str]| {
        let mut args = vec!["merge", "m"];
        args.extend(shards);
        coordsim_in(dir.path(), &args)
    };
    let (a, b) = (shard(0, "a", &[]), shard(1, "b", &[]));
    // Shard 1 sent where shard 0 is: refused before it explores, shard 0 kept.
    let o = coordsim_in(
        dir.path(),
        &["explore", &config, "--out", "a", "-q", "--shard", "1/2"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("lu-explore holds shard 0/2's output; shard 1/2 would replace it"),
        "{}",
        stderr(&o)
    );
    let kept = std::fs::read_to_string(dir.path().join(&a).join("shard.txt")).unwrap();
    assert!(kept.starts_with("0/2\n"), "{kept}");
    // The same shard again replaces its own; quiet, it says nothing (a shard checks no
    // claim: no "0 passed").
    let o = coordsim_in(
        dir.path(),
        &["explore", &config, "--out", "a", "-q", "--shard", "0/2"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(crate::harness::stdout(&o), "");
    // A shard of another split (a re-split into 3) replaces the old split's part.
    let e = shard(0, "e", &[]);
    let o = coordsim_in(
        dir.path(),
        &["explore", &config, "--out", "e", "-q", "--shard", "1/3"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let replaced = std::fs::read_to_string(dir.path().join(&e).join("shard.txt")).unwrap();
    assert!(replaced.starts_with("1/3\n"), "{replaced}");
    let other = shard(1, "c", &["--max-faults", "0"]);
    let o = merge(&[&a]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("shard 1/2 missing"), "{}", stderr(&o));
    let o = merge(&[&a, &other]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("different bounds"), "{}", stderr(&o));
    // A shard from a build that keyed states otherwise (its `shard.txt` without this
    // build's `state_keys`): its shared states would not be one with ours.
    let older = shard(1, "d", &[]);
    let info = dir.path().join(&older).join("shard.txt");
    let text = std::fs::read_to_string(&info).unwrap();
    assert!(text.contains("state_keys=4 "), "{text}");
    std::fs::write(&info, text.replace("state_keys=4 ", "")).unwrap();
    let o = merge(&[&a, &older]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("different bounds"), "{}", stderr(&o));
    let run = coordsim_in(
        dir.path(),
        &["run", &config, "--out", "r", "--shard", "1/2", "-q"],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let o = merge(&[&a, "r/lu"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("explore --shard"), "{}", stderr(&o));
    let visits = dir.path().join(&b).join("shard-visits.bin");
    let mut bytes = read(&visits);
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&visits, bytes).unwrap();
    let o = merge(&[&a, &b]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("was changed"), "{}", stderr(&o));
    assert!(!dir.path().join("m").exists(), "nothing written");
}

/// A split shares the work: past the first levels every shard runs, each shard reaches
/// states no other does (3 clients × 2 increments, each a read and a write:
/// 12! / (4!)³ = 34,650 interleavings over 904 states, enough for three shards; 2 × 3
/// merges into 195 states, few enough that one shard's are all another's too).
#[test]
fn each_shard_explores_states_of_its_own() {
    let text = increments(3, 2, false);
    let parts: Vec<Exploration> = (0..3)
        .map(|k| {
            let l = ExploreLimits {
                shard: Some((k, 3)),
                ..limits(Reduction::On, true)
            };
            explore(&text, &l).swap_remove(0)
        })
        .collect();
    let keys = |e: &Exploration| -> std::collections::BTreeSet<u64> {
        e.part
            .as_ref()
            .unwrap()
            .visits
            .iter()
            .map(|v| v.key)
            .collect()
    };
    for (k, part) in parts.iter().enumerate() {
        let others: std::collections::BTreeSet<u64> = parts
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .flat_map(|(_, e)| keys(e))
            .collect();
        assert!(keys(part).difference(&others).next().is_some(), "shard {k}");
        assert!(
            part.executions > 0 && part.executions < 34_650,
            "shard {k}: {}",
            part.executions
        );
    }
    let merged = merge_parts(&parts).unwrap();
    assert_eq!(merged.executions, 34_650);
}

/// A shard whose outcome rows were cut short of the config's metrics, its SHA-256 redone
/// (a forgery, or damage written back with a fresh digest): refused naming the file, the
/// point and the outcome, exit 2, never a panic.
#[test]
fn merge_refuses_an_explore_shard_whose_outcome_lacks_metrics() {
    use sha2::Digest;
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::write_config(dir.path(), "lu.toml", &increments(2, 1, false));
    let shards: Vec<String> = (0..2)
        .map(|k| {
            let (out, split) = (format!("p{k}"), format!("{k}/2"));
            let args = [
                "explore",
                config.as_str(),
                "--out",
                &out,
                "-q",
                "--shard",
                &split,
            ];
            let o = coordsim_in(dir.path(), &args);
            assert!(o.status.success(), "{}", stderr(&o));
            dir.path()
                .join(out)
                .join("lu-explore")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let part = dir.path().join(&shards[0]).join("shard-explore.json");
    let mut json: serde_json::Value = serde_json::from_slice(&read(&part)).unwrap();
    let metrics = json["points"][0]["outcomes"][0]["metrics"]
        .as_array_mut()
        .unwrap();
    let full = metrics.len();
    metrics.truncate(full - 2);
    let bytes = serde_json::to_vec(&json).unwrap();
    std::fs::write(&part, &bytes).unwrap();
    let digest: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let info = dir.path().join(&shards[0]).join("shard.txt");
    let text: String = std::fs::read_to_string(&info)
        .unwrap()
        .lines()
        .map(|l| match l.strip_suffix(" shard-explore.json") {
            Some(_) => format!("sha256 {digest} shard-explore.json\n"),
            None => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&info, text).unwrap();
    let o = crate::harness::merge_into(&dir.path().join("m"), &shards);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let want = format!(
        "shard-explore.json: point 0, outcome 1: {} metrics, but the config has {full}",
        full - 2
    );
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    assert!(!dir.path().join("m").exists(), "nothing written");
}
