//! An exploration's memory is bounded, never an abort: past `--max-memory` (or `[limits]
//! max_memory_mb`) it keeps no new state and says it is bounded, at a point that does
//! not depend on the threads.

use crate::harness::{coordsim_in, stdout, write_config};

/// Three actors each set a key of a store of 200,000 keys laid out at the first set:
/// every state after a set holds 200,000 × (8 + 1) bytes, about 1.7 MiB. A budget of
/// 16 MiB keeps 10 MiB of states (five eighths): a handful, far fewer than the
/// exploration has (3! orders of the sets, then the register's read and write each).
/// A register that takes time to read, which no step reads, keeps the point on the
/// interpreter, whose states these are (the flat back end covers such key stores, in a few
/// dozen words a state, and leaves a register's read time to the interpreter).
fn big_states(claim: bool) -> String {
    let mut text = String::from(
        r#"model = "scenario"
[[resource]]
name = "ks"
kind = "keys"
initial = { from = 0, count = 200000, value = 0 }
[[resource]]
name = "c"
kind = "register"
[[resource]]
name = "slow"
kind = "register"
read_ms = 1
[[actor]]
name = "a"
count = 3
steps = [{ set = "ks", key = "i", value = "1" }, { read = "c" }, { write = "c", value = "read + 1" }]
"#,
    );
    if claim {
        text.push_str(
            r#"[[claim]]
over = "executions"
holds = "never"
metric = "c.lost_updates"
at_least = 1
"#,
        );
    }
    text
}

/// The number of states in an explore.md's first line.
fn states(md: &str) -> u64 {
    let first = md.lines().find(|l| l.contains(" states, ")).unwrap();
    first
        .split(" states")
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap()
}

#[test]
fn past_the_memory_budget_the_exploration_is_bounded_alike_with_any_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), "big.toml", &big_states(false));
    let mut mds = Vec::new();
    for jobs in ["1", "2"] {
        let out = format!("out{jobs}");
        let o = coordsim_in(
            dir.path(),
            &[
                "explore",
                &path,
                "--max-memory",
                "16",
                "--jobs",
                jobs,
                "--out",
                &out,
            ],
        );
        // No claim: a bounded exploration is no failure.
        assert!(o.status.success(), "{}", stdout(&o));
        mds.push(
            std::fs::read_to_string(dir.path().join(&out).join("big-explore/explore.md")).unwrap(),
        );
    }
    assert_eq!(mds[0], mds[1], "the same bound with --jobs 1 and 2");
    let kept = states(&mds[0]);
    // 10 MiB of 1.7 MiB states: at most 6 with a set, and the few before any set (the
    // range not laid out yet: a few kilobytes each).
    assert!((2..=12).contains(&kept), "{}", mds[0]);
    assert!(
        mds[0].contains(&format!(
            "bounded: {kept} states, not exhaustive (memory, `--max-memory`)"
        )),
        "{}",
        mds[0]
    );
    // Under the config's default budget (4,096 MiB) it is exhaustive, with more states.
    let o = coordsim_in(dir.path(), &["explore", &path, "--out", "all"]);
    assert!(o.status.success(), "{}", stdout(&o));
    let md = std::fs::read_to_string(dir.path().join("all/big-explore/explore.md")).unwrap();
    assert!(!md.contains("bounded") && states(&md) > kept, "{md}");
}

#[test]
fn a_claim_past_the_memory_budget_fails_as_bounded_in_explore_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let text = big_states(true);
    let path = write_config(dir.path(), "claim.toml", &text);
    let o = coordsim_in(dir.path(), &["explore", &path, "--max-memory", "16"]);
    let out = stdout(&o);
    assert!(!o.status.success(), "{out}");
    assert!(
        out.contains("FAIL") && out.contains("(memory, `--max-memory`)"),
        "{out}"
    );
    // `check` explores the claim within the config's `[limits] max_memory_mb`.
    let limited = write_config(
        dir.path(),
        "limited.toml",
        &format!("{text}[limits]\nmax_memory_mb = 16\n"),
    );
    let o = coordsim_in(dir.path(), &["check", &limited]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("FAIL") && out.contains("(memory, `--max-memory`)"),
        "{out}"
    );
    // Under the default budget the claim is decided: two actors' read and write
    // interleave, an update is lost, and "never" fails on a counterexample, not a bound.
    let o = coordsim_in(dir.path(), &["check", &path]);
    let out = stdout(&o);
    assert!(out.contains("FAIL") && !out.contains("bounded"), "{out}");
    // A Turkish config says the bound in Turkish.
    let turkish = write_config(
        dir.path(),
        "sinirli.toml",
        &format!("locale = \"tr\"\n{}", big_states(false)),
    );
    let o = coordsim_in(
        dir.path(),
        &["explore", &turkish, "--max-memory", "16", "--out", "tr"],
    );
    assert!(o.status.success());
    let md = std::fs::read_to_string(dir.path().join("tr/sinirli-explore/explore.md")).unwrap();
    assert!(
        md.contains("eksiksiz değil (bellek, `--max-memory`)") && !md.contains("bounded"),
        "{md}"
    );
}
