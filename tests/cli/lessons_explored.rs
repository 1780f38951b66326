//! Lessons reading explored values (`explored NAME.WHAT filters…`): checked, filled and
//! refused where they cannot be exact.

use crate::harness::*;

/// k clients (k = 1, 2) each read the counter and write back read + 1, once.
const LOST: &str = "model = \"scenario\"\n[sweep]\nclients = [1, 2]\n\
    [[resource]]\nname = \"counter\"\nkind = \"register\"\n\
    [[actor]]\nname = \"c\"\ncount = \"clients\"\nrepeat = 1\n\
    steps = [{ read = \"counter\" }, { write = \"counter\", value = \"read + 1\" }]\n";

/// A folder with `lost.toml` ([`LOST`]) and `lesson.md` holding `body` after its `use`.
fn lesson_over_lost(body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_config(dir.path(), "lost.toml", LOST);
    let text = format!("<!-- coordsim use lost = \"lost.toml\" -->\n{body}");
    std::fs::write(dir.path().join("lesson.md"), text).unwrap();
    dir
}

#[test]
fn explored_values_are_checked_and_filled() {
    // Two clients' actions (read, write) interleave in 4! / (2! 2!) = 6 orders. The counter
    // ends at 1 when both read before either writes (RA RB WA WB, RA RB WB WA, RB RA WA WB,
    // RB RA WB WA: 4 orders), else at 2 (RA WA RB WB, RB WB RA WA: 2): 2 outcomes. The
    // states, the clients taken as interchangeable: the start; one has read 0; both have;
    // one done (the counter 1) and the other not started, holding 0, or holding 1; both
    // done at 1; both done at 2: 8. One client alone runs one way: its one outcome has
    // probability 1.
    let body = "Two: <!-- coordsim explored lost.executions clients=2 -->6<!-- /coordsim -->, \
        <!-- coordsim explored lost.executions clients=2 counter.value=1 -->4<!-- /coordsim --> \
        at 1, <!-- coordsim explored lost.outcomes clients=2 -->2<!-- /coordsim --> outcomes, \
        <!-- coordsim explored lost.states clients=2 -->8<!-- /coordsim --> states; one: \
        <!-- coordsim explored lost.probability clients=1 counter.value=1 -->1.0<!-- /coordsim -->.\n";
    let dir = lesson_over_lost(body);
    assert_eq!(passes(dir.path()), "5 passed, 0 failed");
    // A drifted count fails at its place, and `fill` writes the explored one.
    let drifted = body.replace("-->4<!--", "-->5<!--");
    let dir = lesson_over_lost(&drifted);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let first = stdout(&out).lines().next().unwrap_or_default().to_string();
    assert!(
        first.contains("explored lost.executions clients=2 counter.value=1: written 5, run 4"),
        "{first}"
    );
    let out = lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let filled = String::from_utf8(read(dir.path().join("lesson.md"))).unwrap();
    assert!(filled.contains("counter.value=1 -->4<!--"), "{filled}");
}

#[test]
fn an_explored_probability_with_draws_is_exact() {
    // The at-least-once config's header: the plain consumer applies the message twice when
    // it crashes after its first effect and before its acknowledgement (p = 0.2) and, the
    // message back after its visibility timeout, does not crash again (1 − p):
    // p (1 − p) = 0.2 · 0.8 = 0.16.
    let dir = tempfile::tempdir().unwrap();
    let config = read(root().join("configs/explore/explore-at-least-once.toml"));
    std::fs::write(dir.path().join("alo.toml"), config).unwrap();
    let text = "<!-- coordsim use alo = \"alo.toml\" -->\n<!-- coordsim locale = \"tr\" -->\n\
        Olasılık <!-- coordsim explored alo.probability consumer=plain duplicate_effects=1 -->0,16<!-- /coordsim -->.\n";
    std::fs::write(dir.path().join("lesson.md"), text).unwrap();
    assert_eq!(passes(dir.path()), "1 passed, 0 failed");
}

/// `lesson check lesson.md` in `dir`, which must pass: its last line (the totals).
pub(crate) fn passes(dir: &std::path::Path) -> String {
    let out = lesson(dir, &["check", "lesson.md"]);
    let printed = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{printed}{}", stderr(&out));
    printed.lines().last().unwrap_or_default().to_string()
}

/// The one error line `lesson check` prints for a lesson over [`LOST`] with `body`, exit 2.
fn refused(body: &str) -> String {
    let dir = lesson_over_lost(body);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{}{err}", stdout(&out));
    err.trim_end().to_string()
}

#[test]
fn explored_values_that_cannot_be_exact_are_refused_at_their_marker() {
    let region = |args: &str| format!("x <!-- coordsim explored {args} -->1<!-- /coordsim -->\n");
    // Two clients' orders are free: the outcomes have executions, not probabilities.
    assert!(
        refused(&region("lost.probability clients=2"))
            .starts_with("error: lesson.md:2:3: the outcomes at clients = 2 have no probability"),
    );
    // Both points, with different counts (1 and 6), and no statistic.
    assert_eq!(
        refused(&region("lost.executions")),
        "error: lesson.md:2:3: the filters select 2 explored points with different values; narrow them, or add stat=mean, stat=min or stat=max"
    );
    // "x <!-- coordsim explored " is 25 characters: the first argument at column 26.
    assert!(refused(&region("lost.executoins clients=2")).starts_with(
        "error: lesson.md:2:26: unknown explored value `executoins` (did you mean `executions`?)"
    ));
    // "lost.executions clients=2 " is 26 more: the filter at column 52.
    assert!(
        refused(&region("lost.executions clients=2 countr.value=1")).starts_with(
            "error: lesson.md:2:52: unknown filter `countr.value` (did you mean `counter.value`?)"
        )
    );
    assert!(
        refused(&region("lost.executions clients=2 entity=c"))
            .starts_with("error: lesson.md:2:52: `entity` reads the runs")
    );
    assert!(
        refused(&region("lost.states clients=2 counter.value=1"))
            .starts_with("error: lesson.md:2:3: `states` is the whole exploration's")
    );
}

#[test]
fn a_bounded_exploration_gives_no_explored_value() {
    // 3 clients of 4 increments under a 1 MiB budget: the search stops, bounded (memory).
    let dir = tempfile::tempdir().unwrap();
    write_config(
        dir.path(),
        "big.toml",
        "model = \"scenario\"\n[limits]\nmax_memory_mb = 1\n\
         [[resource]]\nname = \"counter\"\nkind = \"register\"\n\
         [[actor]]\nname = \"c\"\ncount = 3\nrepeat = 4\n\
         steps = [{ read = \"counter\" }, { write = \"counter\", value = \"read + 1\" }]\n",
    );
    let text = "<!-- coordsim use big = \"big.toml\" -->\nx <!-- coordsim explored big.executions -->1<!-- /coordsim -->\n";
    std::fs::write(dir.path().join("lesson.md"), text).unwrap();
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the exploration is bounded:") && err.contains("not exhaustive (memory"),
        "{err}"
    );
}

/// A coin decides a wait: `w` waits 10 ms with chance 0.3, else 40 ms, then writes 1. By
/// hand its response time (`w.mean_response_ms`, start to end of its one repetition) is
/// 10 with probability 0.3 and 40 with 0.7: the mean over every execution is 0.3 · 10 +
/// 0.7 · 40 = 3 + 28 = 31 (the two executions' plain average, 25, would be wrong). Two
/// actors at one instant (`free`) leave their order free: no mean without a scheduler.
const COIN: &str = "model = \"scenario\"\n[sweep]\nfree = [0, 1]\n\
    [[resource]]\nname = \"x\"\nkind = \"register\"\n\
    [[actor]]\nname = \"w\"\n\
    steps = [{ if = { chance = 0.3 }, then = [{ delay_ms = 10 }], else = [{ delay_ms = 40 }] }, { write = \"x\", value = 1 }]\n\
    [[actor]]\nname = \"v\"\ncount = \"free\"\nsteps = [{ write = \"x\", value = 2 }]\n";

#[test]
fn an_explored_mean_is_weighted_by_probability() {
    let dir = tempfile::tempdir().unwrap();
    write_config(dir.path(), "coin.toml", COIN);
    let lesson_with = |body: &str| {
        let text = format!("<!-- coordsim use coin = \"coin.toml\" -->\n{body}\n");
        std::fs::write(dir.path().join("lesson.md"), text).unwrap();
        lesson(dir.path(), &["check", "lesson.md"])
    };
    let region = |args: &str, written: &str| {
        format!("x <!-- coordsim explored coin.{args} -->{written}<!-- /coordsim -->")
    };
    lesson_with(&region("mean of=w.mean_response_ms free=0", "31"));
    assert_eq!(passes(dir.path()), "1 passed, 0 failed");
    let out = lesson_with(&region("mean of=w.mean_response_ms free=0", "25"));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("written 25, run 31"),
        "{}",
        stdout(&out)
    );
    // Refused at the marker, or at `of`, with the reason.
    for (args, want) in [
        (
            "mean free=0",
            "`mean` needs the metric it is of: `of=METRIC`",
        ),
        (
            "mean of=w.mean_respons_ms free=0",
            "did you mean `w.mean_response_ms`?",
        ),
        (
            "executions of=w.mean_response_ms free=0",
            "`of` names the metric of a `mean`",
        ),
        (
            "mean of=w.mean_response_ms free=0 x.value=1",
            "filter by parameters, not by an outcome's cell",
        ),
        (
            "mean of=w.mean_response_ms free=1",
            "the mean at free = 1 is not known: some instant left events in a free order",
        ),
    ] {
        let out = lesson_with(&region(args, "31"));
        assert_eq!(out.status.code(), Some(2), "{args}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{args}: {}", stderr(&out));
    }
}
