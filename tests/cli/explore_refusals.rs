//! What an exploration refuses or cannot finish: draws from a continuum refused at their
//! key before anything is explored, and a bound that proves nothing and says so.

use super::explore::increments;
use crate::harness::{coordsim_in, stderr, stdout, write_config};

#[test]
fn a_bounded_exploration_says_so_and_proves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = increments(2, 2, false);
    text.push_str(
        r#"[[claim]]
over = "executions"
metric = "counter.value"
at_least = 1
"#,
    );
    let path = write_config(dir.path(), "bounded.toml", &text);
    let o = coordsim_in(dir.path(), &["explore", &path, "--max-states", "10"]);
    let out = stdout(&o);
    assert!(out.contains("bounded: 10 states, not exhaustive"), "{out}");
    assert!(out.contains("FAIL"), "{out}");
    assert!(!o.status.success());
    // The page says what lifts the bound.
    let md = std::fs::read_to_string(dir.path().join("out/bounded-explore/explore.md")).unwrap();
    assert!(
        md.contains("To go further: a larger `--max-states`"),
        "{md}"
    );
    let o = coordsim_in(dir.path(), &["explore", &path]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    // A Turkish config's explore.md says the bound in Turkish.
    let turkish = write_config(
        dir.path(),
        "sinirli.toml",
        &format!("locale = \"tr\"\n{text}"),
    );
    let o = coordsim_in(
        dir.path(),
        &["explore", &turkish, "--max-states", "10", "--out", "out"],
    );
    assert!(!o.status.success());
    let md = std::fs::read_to_string(dir.path().join("out/sinirli-explore/explore.md")).unwrap();
    assert!(
        md.contains("sınırlı: 10 durum, eksiksiz değil (`max_states`)"),
        "{md}"
    );
    assert!(
        md.contains("Daha ileri gitmek için: daha büyük bir `--max-states`"),
        "{md}"
    );
    assert!(
        !md.contains("bounded") && !md.contains("not exhaustive"),
        "{md}"
    );
}

/// Random arrival gaps are no choice to branch on: refused at their key.
#[test]
fn random_arrivals_are_refused_at_their_key() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"model = "scenario"
[[resource]]
name = "counter"
kind = "register"
[[actor]]
name = "c"
count = 2
arrivals = "poisson"
every_ms = 10
repeat = 2
steps = [{ read = "counter" }]
"#;
    let path = write_config(dir.path(), "random.toml", text);
    let o = coordsim_in(dir.path(), &["explore", &path]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("actor[0].arrivals"), "{err}");
    assert!(err.contains("schedule"), "{err}");
}

/// A retry's jitter written as a number is refused before any state is explored, at its
/// key (line 8, at the value), even where no execution would reach it
/// before a bound; and a bounded exploration that ended no execution lists no outcome and
/// no probability.
#[test]
fn a_jitter_is_refused_at_its_key_and_an_empty_bound_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"model = "scenario"
[[resource]]
name = "server"
kind = "server"
service_ms = 50
[[actor]]
name = "c"
steps = [{ request = "server", timeout_ms = 10, on_timeout = { then = "retry", max_attempts = 3, backoff_ms = 5, jitter_ms = 20 } }]
"#;
    let path = write_config(dir.path(), "jitter.toml", text);
    let o = coordsim_in(dir.path(), &["explore", &path]);
    assert!(!o.status.success());
    let err = stderr(&o);
    // At the value, as every key's error is.
    let column = text.lines().nth(7).unwrap().find("jitter_ms = ").unwrap() + 13;
    assert!(
        err.contains(&format!("jitter.toml:8:{column}:")) && err.contains("jitter_ms = 0"),
        "{err}"
    );
    // No jitter: explored, but bounded at 2 states before the run's one execution ends.
    let calm = write_config(
        dir.path(),
        "calm.toml",
        &text.replace("jitter_ms = 20", "jitter_ms = 0"),
    );
    let o = coordsim_in(
        dir.path(),
        &["explore", &calm, "--max-states", "2", "--out", "out"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let md = std::fs::read_to_string(dir.path().join("out/calm-explore/explore.md")).unwrap();
    assert!(md.contains("No execution ended within the bound"), "{md}");
    assert!(
        !md.contains("probabilities") && !md.contains("| outcome |"),
        "{md}"
    );
}

/// A bound reached before any execution ended proves and disproves nothing: each claim
/// fails at its own point with what it expected (an expectation over the parameters has
/// its value without an outcome), a `sometimes` included (no point lacks: both were
/// explored), and the bound said once.
#[test]
fn claims_over_a_bound_with_no_execution_say_what_they_expected() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::root().join("configs/explore/explore-lost-update.toml");
    let o = coordsim_in(
        dir.path(),
        &[
            "explore",
            &config.to_string_lossy(),
            "--max-states",
            "30",
            "--out",
            "out",
        ],
    );
    assert!(!o.status.success());
    let out = stdout(&o);
    // clients = 2, increments = 2: at most 2·2 − 1 = 3 for a lost update, 4 with the lock.
    // A Turkish config's lines part their figures with `;` (a comma marks its decimals).
    for expected in [
        "(expected 2; ± 1e-9) at guard = \"none\"; min of 0 executions; bounded: 30 states",
        "(sometimes: at most clients * increments - 1 = 3) at guard = \"none\"; bounded: 30 states",
        "(always: expected clients * increments = 4; ± 1e-9) at guard = \"lock\"; bounded: 30 states",
    ] {
        assert!(out.contains(expected), "{expected:?} in {out}");
    }
    assert!(
        !out.contains("no point") && !out.contains("bounded; bounded"),
        "{out}"
    );
    assert!(out.contains("0 passed, 3 failed"), "{out}");
}

/// A claim over executions on an entity row is refused at its `entity` key: an explored
/// execution ends with the run's metrics and keeps no entity rows, so it could never pass.
#[test]
fn an_entity_claim_over_executions_is_refused_at_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"model = "scenario"
[[resource]]
name = "counter"
kind = "register"
[[actor]]
name = "c"
count = 2
steps = [{ read = "counter" }, { write = "counter", value = "read + 1" }]
[[claim]]
over = "executions"
entity = "c-0"
metric = "completed"
expect = 1
"#;
    let path = write_config(dir.path(), "entity.toml", text);
    let o = coordsim_in(dir.path(), &["explore", &path]);
    assert_eq!(o.status.code(), Some(2));
    // Line 11, `entity = "c-0"`: the value starts at column 10.
    let err = stderr(&o);
    assert!(
        err.contains("entity.toml:11:10: `entity` goes with claims over runs"),
        "{err}"
    );
    // Over runs, the same claim holds: c-0 completes its one repetition.
    let runs = write_config(
        dir.path(),
        "runs.toml",
        &text.replace("over = \"executions\"\n", ""),
    );
    let o = coordsim_in(dir.path(), &["check", &runs]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
}

/// A counterexample a bounded search found still decides its claim: the bound fails an
/// `always` that saw none, but never hides one it saw. Two clients of two increments
/// without a lock can end at 2 (configs/explore/explore-lost-update.toml derives it), so
/// "always 4" fails with such an outcome, and its trace is written, within 56 states.
#[test]
fn a_bound_does_not_hide_a_counterexample_it_found() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::root().join("configs/explore/explore-lost-update.toml");
    let mut text = std::fs::read_to_string(config).unwrap();
    text.push_str(
        r#"
[[claim]]
name = "always 4"
where = { guard = "none" }
over = "executions"
holds = "always"
metric = "counter.value"
expect = 4
"#,
    );
    let path = write_config(dir.path(), "lu.toml", &text);
    let o = coordsim_in(
        dir.path(),
        // Without symmetry: with it, the whole exploration is 33 states.
        &[
            "explore",
            &path,
            "--max-states",
            "56",
            "--no-symmetry",
            "--out",
            "out",
            "-q",
        ],
    );
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.contains("always 4"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.starts_with("FAIL") && line.contains("counter.value = 2 (always: expected 4"),
        "{line}"
    );
    assert!(line.contains("outcome 1 of"), "{line}");
    assert!(
        dir.path().join("out/lu-explore/trace-4.csv").is_file(),
        "the counterexample's trace"
    );
}

/// `within_ci` over executions is refused for what it is (an interval of replications,
/// where every explored value is exact), not sent to `stat = "mean"`, which over
/// executions is an exact mean with no interval.
#[test]
fn within_ci_over_executions_says_why_it_does_not_apply() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = increments(2, 2, false);
    text.push_str(
        r#"[[claim]]
over = "executions"
metric = "counter.value"
expect = 4
within_ci = true
"#,
    );
    let path = write_config(dir.path(), "ci.toml", &text);
    let o = coordsim_in(dir.path(), &["explore", &path]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("`within_ci` is for claims over runs") && !err.contains("goes with `stat"),
        "{err}"
    );
}

/// A bound counts the transitions the search took, not those to the children it cut: a
/// tree (`--no-merge`) of N states has N − 1 transitions, each state but the first reached
/// by one, bounded or not.
#[test]
fn a_bound_counts_no_transition_to_a_child_it_cut() {
    use coordsim_model::{ExploreLimits, Reduction};
    let text = increments(2, 2, false);
    for max_states in [1, 2, 10, 40, 1_000] {
        let tree = ExploreLimits {
            max_states,
            ..super::explore::limits(Reduction::Off, false)
        };
        let e = &super::explore::explore(&text, &tree)[0];
        assert_eq!(
            e.transitions,
            e.states - 1,
            "max_states {max_states}: {e:?}"
        );
        assert_eq!(
            e.bounded.is_some(),
            max_states < 1_000,
            "max_states {max_states}"
        );
    }
}

/// `check --no-counts` checks claims over executions on the reachable outcomes alone: two
/// clients of two unguarded increments end with 2, 3 or 4 (see explore.rs's hand count),
/// so "sometimes 2" and "min 2" pass and "always 4" fails, as when counting; a probability
/// is refused at its `[[claim]]` before anything runs; `--ties` with it is refused.
#[test]
fn check_without_counts_gives_the_counting_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = increments(2, 2, false);
    text.push_str(
        r#"[[claim]]
name = "lost"
over = "executions"
holds = "sometimes"
metric = "counter.value"
expect = 2
[[claim]]
name = "least"
over = "executions"
metric = "counter.value"
stat = "min"
expect = 2
[[claim]]
name = "serial"
over = "executions"
holds = "always"
metric = "counter.value"
expect = 4
"#,
    );
    let path = write_config(dir.path(), "c.toml", &text);
    let counted = coordsim_in(dir.path(), &["check", &path]);
    let reached = coordsim_in(dir.path(), &["check", &path, "--no-counts"]);
    let (counted_out, reached_out) = (stdout(&counted), stdout(&reached));
    assert_eq!(
        reached.status.code(),
        Some(1),
        "{reached_out}{}",
        stderr(&reached)
    );
    assert_eq!(counted.status.code(), Some(1), "{counted_out}");
    let verdicts = |out: &str| -> Vec<String> {
        (out.lines())
            .map(|l| l.split(':').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(verdicts(&reached_out), verdicts(&counted_out));
    assert!(reached_out.contains("PASS") && reached_out.contains("FAIL"));
    assert!(
        reached_out.contains("not counted: `--no-counts`"),
        "{reached_out}"
    );
    assert!(counted_out.contains("70 executions"), "{counted_out}");
    assert_eq!(reached_out.lines().last(), Some("2 passed, 1 failed"));

    text.push_str(
        r#"[[claim]]
name = "chance"
over = "executions"
metric = "counter.value"
expect = 4
probability = 0.1
"#,
    );
    let path = write_config(dir.path(), "p.toml", &text);
    let o = coordsim_in(dir.path(), &["check", &path, "--no-counts"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let line = text.lines().position(|l| l == "name = \"chance\"").unwrap();
    // The `[[claim]]` header is the line before its name (1-based: `line`).
    assert!(
        err.contains(&format!(
            "p.toml:{line}:1: claim `chance` asks for a probability"
        )),
        "{err}"
    );
    let o = coordsim_in(dir.path(), &["check", &path, "--no-counts", "--ties"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--ties"), "{}", stderr(&o));
}
