//! Lessons reading an end of an interval over schedulers (`explored NAME.probability …
//! scheduler=min|max`, and a `mean`'s): checked against hand arithmetic, filled, refused
//! where it means nothing; the config explored again with the schedulers' graph when its
//! own claims did not ask for one.

use crate::harness::*;
use crate::lessons_explored::passes;

/// A lesson over the lost update behind a chance of 0.3
/// ([`crate::schedulers::chance_and_increment`]), a config with no claim (so no claim asks
/// for the schedulers' graph): `lesson.md` holds `body` after its `use`.
fn lesson_over_chance(body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_config(
        dir.path(),
        "chance.toml",
        &crate::schedulers::chance_and_increment("0.3"),
    );
    let text = format!("<!-- coordsim use chance = \"chance.toml\" -->\n{body}\n");
    std::fs::write(dir.path().join("lesson.md"), text).unwrap();
    dir
}

/// `x <!-- coordsim explored chance.ARGS -->WRITTEN<!-- /coordsim -->`.
fn region(args: &str, written: &str) -> String {
    format!("x <!-- coordsim explored chance.{args} -->{written}<!-- /coordsim -->\n")
}

#[test]
fn an_end_over_schedulers_is_read_as_the_hand_arithmetic_gives_it() {
    // By hand (tests/cli/schedulers.rs): `a` increments with chance 0.3, `b` always, both
    // at 0 ms. A scheduler that runs `b`'s read and write first loses no update: the counter
    // ends at 1 only when `a` did not increment, P = 0.7, the least; one that puts `b`'s
    // read and write between `a`'s read and write loses `a`'s update whenever it is made:
    // P(counter = 1) = 1, the greatest. So counter = 1 has [0.7, 1], counter = 2 [0, 0.3],
    // and the counter's mean [1 · 1, 0.7 · 1 + 0.3 · 2] = [1, 1.3].
    let body = [
        region("probability counter.value=1 scheduler=min", "0.7"),
        region("probability counter.value=1 scheduler=max", "1"),
        region("probability counter.value=2 scheduler=min", "0"),
        region("probability counter.value=2 scheduler=max", "0.3"),
        region("mean of=counter.value scheduler=min", "1"),
        region("mean of=counter.value scheduler=max", "1.3"),
    ]
    .concat();
    let dir = lesson_over_chance(&body);
    assert_eq!(passes(dir.path()), "6 passed, 0 failed");
    // A drifted end fails at its place, and `fill` writes the explored one back.
    let drifted = body.replace("scheduler=max -->0.3<", "scheduler=max -->0.4<");
    let dir = lesson_over_chance(&drifted);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "lesson.md:5:78: explored chance.probability counter.value=2 scheduler=max: written 0.4, run 0.3"
        ),
        "{}",
        stdout(&out)
    );
    let out = lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let filled = String::from_utf8(read(dir.path().join("lesson.md"))).unwrap();
    assert!(filled.contains("scheduler=max -->0.3<"), "{filled}");
}

#[test]
fn where_no_order_is_free_both_ends_are_the_probability() {
    // The at-least-once lesson's config with the consumer 1 ms after the put: no order is
    // free, one scheduler, so both ends are the exact p (1 − p) = 0.2 · 0.8 = 0.16; at the
    // put's instant (header, by hand) the duplicate has [0, 0.16] and the message left
    // unacknowledged [0, 0.2].
    let dir = tempfile::tempdir().unwrap();
    let config = read(root().join("configs/lessons/at-least-once-same-instant.toml"));
    std::fs::write(dir.path().join("alo.toml"), config).unwrap();
    let at = |start: u32, cell: &str, scheduler: &str, written: &str| {
        format!(
            "<!-- coordsim explored alo.probability consumer_start_ms={start} {cell} scheduler={scheduler} -->{written}<!-- /coordsim -->\n"
        )
    };
    let text = [
        "<!-- coordsim use alo = \"alo.toml\" -->\n".to_string(),
        at(1, "duplicate_effects=1", "min", "0.16"),
        at(1, "duplicate_effects=1", "max", "0.16"),
        at(0, "duplicate_effects=1", "min", "0"),
        at(0, "duplicate_effects=1", "max", "0.16"),
        at(0, "kuyruk.left=1", "min", "0"),
        at(0, "kuyruk.left=1", "max", "0.2"),
    ]
    .concat();
    std::fs::write(dir.path().join("lesson.md"), text).unwrap();
    assert_eq!(passes(dir.path()), "6 passed, 0 failed");
}

#[test]
fn a_scheduler_where_it_means_nothing_is_refused_at_its_place() {
    // Over the lost update behind a chance (a free order at 0 ms): a probability with no
    // end named, an end that is neither, an end of a count, an end named twice.
    for (args, want) in [
        (
            "probability counter.value=1",
            "have no probability: an instant leaves several events in a free order, so executions differ by more than draws (docs/explore.md); read an end of the interval over schedulers (`scheduler=min` or `scheduler=max`), or `executions`",
        ),
        (
            "probability counter.value=1 scheduler=worst",
            "`scheduler=worst`: valid are `scheduler=min` (the least over every scheduler) and `scheduler=max` (the greatest)",
        ),
        (
            "executions scheduler=max",
            "`scheduler` reads an end over schedulers of a `probability` or a `mean`; `executions` is the same under every scheduler",
        ),
        (
            "probability counter.value=1 scheduler=min scheduler=max",
            "give `scheduler` once",
        ),
    ] {
        let dir = lesson_over_chance(&region(args, "1"));
        let out = lesson(dir.path(), &["check", "lesson.md"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args}: {}{err}", stdout(&out));
        assert!(err.starts_with("error: lesson.md:2:"), "{args}: {err}");
        assert!(err.contains(want), "{args}: {err}");
    }
}
