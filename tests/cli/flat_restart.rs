//! Crashes that restart their actor and transactions that write and put, in the flat back
//! end, counted by hand: each exploration's files are also the interpreter's, byte for
//! byte (the random points of `flat_draw` and `flat_keys` hold the rest to it).

use crate::harness::{coordsim_in, read, stderr, write_config};

/// `text` explored by `engine` (no symmetry, no reduction) into `dir/engine`: its
/// outcomes.csv as rows of named cells, and its files.
fn explore(dir: &std::path::Path, text: &str, engine: &str) -> (Vec<Row>, Vec<Vec<u8>>) {
    let config = write_config(dir, "hand.toml", text);
    let out = coordsim_in(
        dir,
        &[
            "explore",
            &config,
            "--engine",
            engine,
            "--no-symmetry",
            "--no-reduce",
            "--out",
            engine,
            "-q",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let at = dir.join(engine).join("hand-explore");
    let files = ["explore.md", "outcomes.csv", "play.json"].map(|file| read(at.join(file)));
    let csv = String::from_utf8(files[1].clone()).unwrap();
    let mut lines = csv.lines();
    let names: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows = lines
        .map(|line| {
            let cells = line.split(',').map(str::to_string);
            Row(names.iter().map(|n| n.to_string()).zip(cells).collect())
        })
        .collect();
    (rows, files.to_vec())
}

/// One outcome's cells by column name.
struct Row(Vec<(String, String)>);

impl Row {
    fn get(&self, name: &str) -> &str {
        let cell = self.0.iter().find(|(n, _)| n == name);
        &cell.unwrap_or_else(|| panic!("no column {name}")).1
    }
}

/// One actor of two repetitions: write `k + 1` to `r`, a crash step of probability 0.5
/// that restarts it after 10 ms, write `k + 10`; one fault allowed (the default). By hand
/// (each write and the crash step a shared step of its own):
/// - the first crash step crashes (0.5): repetition 0 is lost, the actor is down until
///   10 ms, then runs repetition 1: writes 2, its crash step may not crash again (the
///   budget is spent: "no", 1 − 0.5, the other half past the budget), writes 11. `r`
///   ends 11, 1 completed, 1 crashed, 1 restart, at 10 ms: 0.5 · 0.5 = 0.25;
/// - it does not (0.5): writes 10, then repetition 1 writes 2; its crash step crashes
///   (0.5): no repetition is left, so it is down for good: `r` 2, 1 completed, 1 crashed,
///   no restart, at 0 ms: 0.25; or not: writes 11, 2 completed, none crashed: 0.25.
///
/// So 3 executions, one an outcome, 0.75 in all (0.25 past the budget).
#[test]
fn a_crash_that_restarts_is_counted_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let text = "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
                [[actor]]\nname = \"a\"\nrepeat = 2\n\
                steps = [{ write = \"r\", value = \"k + 1\" }, \
                { crash = { probability = 0.5 }, restart_after_ms = 10 }, \
                { write = \"r\", value = \"k + 10\" }]\n";
    let (rows, flat) = explore(dir.path(), text, "flat");
    let mut found: Vec<[&str; 7]> = (rows.iter())
        .map(|row| {
            [
                "executions",
                "probability",
                "r.value",
                "a.completed",
                "a.crashed",
                "a.restarts",
                "makespan_ms",
            ]
            .map(|name| row.get(name))
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ["1", "0.25", "11", "1", "1", "1", "10"],
            ["1", "0.25", "11", "2", "0", "0", "0"],
            ["1", "0.25", "2", "1", "1", "0", "0"],
        ]
    );
    let (_, interpreted) = explore(dir.path(), text, "interpret");
    assert_eq!(flat, interpreted);
}

/// Two members of `catalog` each run one transaction: remove book 3 from `shelf` and,
/// where it removed it, put the member's `i` on `outbox` and write `i + 1` to `r` (the
/// outbox row and the effect land together). A `relay` starts at 1 ms, takes the row and
/// sets key 6 of `open` to its number plus 10. With no reduction, by hand: the catalog's
/// two starts come in either order (2 executions); whoever is first removes the book and
/// puts, the other finds it missing and neither puts nor writes; the relay's take and set
/// are forced. Member 0 first: `r` 1, `open` 6 at 10; member 1 first: `r` 2, `open` 6 at
/// 11. Each outcome 1 execution, one put, one write, nothing left in the outbox.
#[test]
fn a_transaction_that_writes_and_puts_is_counted_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let text = "model = \"scenario\"\n\
                [[resource]]\nname = \"shelf\"\nkind = \"keys\"\ninitial = [1, 2, 3]\n\
                [[resource]]\nname = \"open\"\nkind = \"keys\"\n\
                [[resource]]\nname = \"outbox\"\nkind = \"queue\"\n\
                [[resource]]\nname = \"r\"\nkind = \"register\"\n\
                [[actor]]\nname = \"catalog\"\ncount = 2\n\
                steps = [{ transaction = [{ remove = \"shelf\", key = 3 }, \
                { if = \"removed\", then = [{ put = \"outbox\", value = \"i\" }, \
                { write = \"r\", value = \"i + 1\" }] }] }]\n\
                [[actor]]\nname = \"relay\"\nstart_ms = 1\n\
                steps = [{ take = \"outbox\" }, { set = \"open\", key = 6, value = \"outbox + 10\" }]\n";
    let (rows, flat) = explore(dir.path(), text, "flat");
    let mut found: Vec<[&str; 6]> = (rows.iter())
        .map(|row| {
            [
                "executions",
                "r.value",
                "open.total",
                "r.writes",
                "outbox.put",
                "outbox.left",
            ]
            .map(|name| row.get(name))
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ["1", "1", "10", "1", "1", "0"],
            ["1", "2", "11", "1", "1", "0"]
        ]
    );
    let (_, interpreted) = explore(dir.path(), text, "interpret");
    assert_eq!(flat, interpreted);
}

/// The shipped saga (keys the run computes: each step's book and member are what a lookup
/// found; delays between its steps) explores on the flat back end: `--engine flat` does
/// not refuse it, and its files, as `--engine auto` writes them, are the interpreter's,
/// byte for byte.
#[test]
fn the_shipped_saga_explores_flat_as_the_interpreter() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::root().join("configs/scenarios/scenario-saga.toml");
    let config = config.to_str().unwrap();
    let files = |engine: &str| {
        let out = coordsim_in(
            dir.path(),
            &["explore", config, "--engine", engine, "--out", engine, "-q"],
        );
        assert!(out.status.success(), "{engine}: {}", stderr(&out));
        let at = dir.path().join(engine).join("scenario-saga-explore");
        ["explore.md", "outcomes.csv", "play.json"].map(|file| read(at.join(file)))
    };
    let flat = files("flat");
    assert_eq!(flat, files("interpret"));
    assert_eq!(files("auto"), flat);
}
