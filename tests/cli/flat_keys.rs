//! Key stores in the flat back end: lookups, inserts, sets and removes on keys known
//! before the run (numbers, expressions of `i` and `k`), with `if`s on what a step found
//! and on the number it left in the store's name, explored by both back ends on random
//! points; a hand count; and what `--engine flat` still refuses of a key store.

use coordsim_model::{ExploreLimits, Reduction, Symmetry};
use proptest::prelude::*;

use crate::flat_engine::{executions_split, flat_alone, same, same_without_symmetry};
use crate::harness::{coordsim_in, read, stderr, write_config};

/// Steps on key stores `K` and `S` (and register `r0`), each on one key: a lookup, an
/// insert, a set, a remove; a lookup that sets `K + 1` where it found the key and inserts
/// 1 where not; an insert into `S` that writes what it found to `r0` on a duplicate and
/// else removes the key from `K`; a remove from `K` whose number decides between an insert
/// into `S` and an early end; a lookup in `S` that stops the actor where the key is
/// missing; a read and write of `r0`; a transaction that moves a key found in `K` to `S`
/// (else inserts it into `K`); and one that inserts into `S`, reads `r0` and sets the key
/// in `K` to `r0 + 1` where it inserted, followed by a write of `r0` where its insert
/// found a duplicate (the outcome a transaction ends with); an outbox: a transaction that
/// removes a key from `K` and, where it removed one, puts its number on queue `Q` and
/// writes it to `r0`; a transaction that writes `r0` twice, reading between, and inserts
/// what it read last; and a consumer that puts on queue `V` (a visibility timeout), takes from
/// it (as many puts as takes: no taker waits for good) and, in one transaction, inserts
/// the message's number into `S` by its id (a key the run computes), writes it to `r0` on a
/// duplicate and acknowledges it; and a lookup in `K` that, where it finds the key, sets
/// key `K * 2` of `S` and removes it where `K * 2 + 1` is there too (keys the run
/// computes: every number `K` holds is a multiple of 0.5). A number stored is never NaN (an insert of `K + 1`
/// follows a find), so no run stops with an error.
pub(crate) fn key_steps() -> impl Strategy<Value = Vec<String>> {
    let key = prop_oneof![
        Just("1"),
        Just("2"),
        Just("\"i\""),
        Just("\"i + 1\""),
        Just("\"k\""),
        Just("\"k + i\""),
    ];
    // 0.5 is no small whole number: its store is then reduced as a whole.
    let value = prop_oneof![Just("3"), Just("\"i + 1\""), Just("\"k\""), Just("0.5")];
    (0..15u8, key, value).prop_map(|(kind, key, value)| {
        let s = |text: &str| text.replace("KEY", key).replace("VAL", value);
        let steps: &[&str] = match kind {
            0 => &["{ lookup = \"K\", key = KEY }"],
            1 => &["{ insert = \"K\", key = KEY, value = VAL }"],
            2 => &["{ set = \"K\", key = KEY, value = VAL }"],
            3 => &["{ remove = \"K\", key = KEY }"],
            4 => &[
                "{ lookup = \"K\", key = KEY }",
                "{ if = \"found\", then = [{ set = \"K\", key = KEY, value = \"K + 1\" }], \
                 else = [{ insert = \"K\", key = KEY, value = 1 }] }",
            ],
            5 => &[
                "{ insert = \"S\", key = KEY, value = VAL }",
                "{ if = \"duplicate\", then = [{ write = \"r0\", value = \"S\" }], \
                 else = [{ remove = \"K\", key = KEY }] }",
            ],
            6 => &[
                "{ remove = \"K\", key = KEY }",
                "{ if = { value = \"K\", above = 2 }, then = [{ insert = \"S\", key = KEY, \
                 value = \"K\" }], else = [{ end = true }] }",
            ],
            7 => &[
                "{ lookup = \"S\", key = KEY }",
                "{ if = \"missing\", then = [{ stop = true }] }",
            ],
            8 => &[
                "{ read = \"r0\" }",
                "{ write = \"r0\", value = \"read + 1\" }",
            ],
            9 => &[
                "{ transaction = [{ lookup = \"K\", key = KEY }, { if = \"found\", then = [\
                 { remove = \"K\", key = KEY }, { insert = \"S\", key = KEY, value = \"K\" }], \
                 else = [{ insert = \"K\", key = KEY, value = VAL }] }] }",
            ],
            11 => &[
                "{ transaction = [{ remove = \"K\", key = KEY }, { if = \"removed\", then = [\
                 { put = \"Q\", value = \"K\" }, { write = \"r0\", value = \"K + 1\" }] }] }",
            ],
            12 => &[
                "{ read = \"r0\" }",
                "{ transaction = [{ write = \"r0\", value = \"read + 1\" }, { read = \"r0\" }, \
                 { write = \"r0\", value = \"read * 2\" }, { insert = \"S\", key = KEY, value = \"r0\" }] }",
            ],
            13 => &[
                "{ put = \"V\", value = \"k + 2\" }",
                "{ take = \"V\" }",
                "{ transaction = [{ insert = \"S\", key = \"V.id\", value = \"V\" }, \
                 { if = \"duplicate\", then = [{ write = \"r0\", value = \"V + 1\" }] }, \
                 { ack = \"V\" }] }",
            ],
            14 => &[
                "{ lookup = \"K\", key = KEY }",
                "{ if = \"found\", then = [{ set = \"S\", key = \"K * 2\", value = \"k\" }, \
                 { lookup = \"S\", key = \"K * 2 + 1\" }, { if = \"found\", then = [\
                 { remove = \"S\", key = \"K * 2\" }] }] }",
            ],
            _ => &[
                "{ transaction = [{ insert = \"S\", key = KEY, value = VAL }, { read = \"r0\" }, \
                 { if = \"inserted\", then = [{ set = \"K\", key = KEY, value = \"r0 + 1\" }] }] }",
                "{ if = \"duplicate\", then = [{ write = \"r0\", value = \"k + 5\" }] }",
            ],
        };
        steps.iter().map(|step| s(step)).collect()
    })
}

/// A random point of key stores: `K` starting empty, with pairs, with keys of 0 or as a
/// range; `S` empty or with one pair; queues `Q` and `V` (a visibility timeout); up to two
/// groups of up to two closed-loop actors of up to two repetitions, each running one or two
/// lists of [`key_steps`] at 0 ms, or (`timed`) from 0, 1 or `i * 2` ms with a delay of 1
/// or `i + k` ms among its steps (`V`'s steps then on `Q`, with no ack: the flat back end
/// leaves a visibility timeout where time moves on to the interpreter).
fn keys_config(timed: bool) -> impl Strategy<Value = String> {
    let initial_k = prop_oneof![
        Just(""),
        Just("initial = [[1, 5]]\n"),
        Just("initial = [1, 2, 3]\n"),
        Just("initial = { from = 0, count = 3, value = 1 }\n"),
    ];
    let initial_s = prop_oneof![Just(""), Just("initial = [[2, 7]]\n")];
    let group = (
        1..=2u32,
        1..=2u32,
        prop::collection::vec(key_steps(), 1..=2),
        prop_oneof![Just("0"), Just("1"), Just("\"i * 2\"")],
        prop_oneof![Just("1"), Just("\"i + k\"")],
        0..4usize,
    );
    (initial_k, initial_s, prop::collection::vec(group, 1..=2)).prop_map(
        move |(initial_k, initial_s, groups)| {
            let mut text = format!(
                "model = \"scenario\"\n\
                 [[resource]]\nname = \"K\"\nkind = \"keys\"\n{initial_k}\
                 [[resource]]\nname = \"S\"\nkind = \"keys\"\n{initial_s}\
                 [[resource]]\nname = \"r0\"\nkind = \"register\"\n\
                 [[resource]]\nname = \"Q\"\nkind = \"queue\"\n\
                 [[resource]]\nname = \"V\"\nkind = \"queue\"\nvisibility_ms = 100\n"
            );
            for (g, (count, repeat, steps, start_at, delay, at)) in groups.into_iter().enumerate() {
                let mut steps = steps.concat();
                let mut start = "0";
                if timed {
                    steps = steps.iter().map(|step| on_q(step)).collect();
                    steps.insert(at.min(steps.len()), format!("{{ delay_ms = {delay} }}"));
                    start = start_at;
                }
                text.push_str(&format!(
                    "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\n\
                     start_ms = {start}\nsteps = [{}]\n",
                    steps.join(", ")
                ));
            }
            text
        },
    )
}

/// A step of [`key_steps`] with its steps on `V` moved to `Q`, its ack dropped: for a point
/// where time moves on (the flat back end leaves a visibility timeout there to the
/// interpreter).
pub(crate) fn on_q(step: &str) -> String {
    step.replace(", { ack = \"V\" }", "").replace('V', "Q")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Both back ends explore points with key stores alike in every field (states,
    /// transitions, executions, outcomes with their counts and probabilities, traces,
    /// schedules, the schedulers' graph; `same` compares the engines' names, so the test
    /// cannot pass by the flat back end refusing or handing the point over), with the
    /// reduction on and off, under a state bound, on one thread or two, and under
    /// symmetry (a group whose keys use `i` is not reduced; one on `1`, `2` or `k` is).
    #[test]
    fn the_flat_engine_keeps_key_stores_as_the_interpreter(
        text in keys_config(false),
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        let on = same_without_symmetry(&text, jobs, bound)?;
        same(&text, ExploreLimits { symmetry: Symmetry::On, reduce: Reduction::Off, ..on })?;
    }

    /// The same where time moves on: starts apart and delays among the steps, so that
    /// key steps and transactions (their writes and puts among them) run after 0 ms, and
    /// their numbers may use the clock's repetition `k`.
    #[test]
    fn the_flat_engine_keeps_key_stores_in_time_as_the_interpreter(
        text in keys_config(true),
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        let on = same_without_symmetry(&text, jobs, bound)?;
        same(&text, ExploreLimits { symmetry: Symmetry::On, reduce: Reduction::Off, ..on })?;
    }
}

/// Two clients of key store `K` (from empty), each: insert key 1 with `i + 1`; if it was
/// a duplicate, set key 1 to `K + 10` (`K`: the number the insert found). With no
/// reduction, by hand: call the clients A (i = 0) and B (i = 1). Whoever starts first (2
/// ways) inserts, its `if` fails and its repetition ends in that one event; the other then
/// starts, finds the key (a duplicate), and its set (a shared step of its own) is its
/// next event, with no one left to come between. So 2 executions: A first ends with key 1
/// at 1 + 10 = 11, B first at 2 + 10 = 12, two outcomes of 1 execution each.
#[test]
fn the_flat_engine_counts_an_insert_and_a_duplicate_by_hand() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"K\"\nkind = \"keys\"\n\
                [[actor]]\nname = \"client\"\ncount = 2\n\
                steps = [{ insert = \"K\", key = 1, value = \"i + 1\" }, \
                { if = \"duplicate\", then = [{ set = \"K\", key = 1, value = \"K + 10\" }] }]\n";
    let flat = flat_alone(text, Reduction::Off);
    assert_eq!(flat.executions, 2);
    assert_eq!(executions_split(&flat), [1, 1]);
}

/// Two actors each insert their own key (`i`: 0 and 1) into an empty store, with no
/// reduction. By hand, the states: the start, A's insert alone, B's alone, and both, in
/// two states: A then B lays the keys out in one run from 0 (0, then 1 appended), B then A
/// starts the run at 1 and keeps 0 aside (0 is not the key after 1), and the interpreter's
/// fingerprint writes its run and the keys kept aside, so it keeps the two apart. 5 states,
/// 2 executions (one order each), one outcome. A flat state that kept only each key's
/// number would merge the last two: 4 states.
#[test]
fn the_flat_engine_keeps_apart_what_the_interpreters_store_lays_out_apart() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"K\"\nkind = \"keys\"\n\
                [[actor]]\nname = \"a\"\ncount = 2\nsteps = [{ insert = \"K\", key = \"i\" }]\n";
    let flat = flat_alone(text, Reduction::Off);
    assert_eq!((flat.states, flat.executions), (5, 2));
    assert_eq!(executions_split(&flat), [2]);
}

/// The same files from `--engine flat` and `--engine interpret` (every byte) on a point of
/// two stores; and `--engine flat` on a key the run computes (from what was read) inserted
/// by two actors over 513 repetitions (1,026 spare pairs: two more than the flat state
/// keeps), on a transaction that puts twice, or on keys `2 k + i` of two actors over 513
/// repetitions (1,026 keys) stops with why; `auto` explores the transaction with the
/// interpreter (the others, a thousand repetitions, take a debug build most of a minute).
#[test]
fn the_flat_engine_writes_the_interpreters_files_and_says_what_it_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "stores.toml",
        "model = \"scenario\"\n[[resource]]\nname = \"K\"\nkind = \"keys\"\ninitial = [[1, 5]]\n\
         [[resource]]\nname = \"S\"\nkind = \"keys\"\n\
         [[actor]]\nname = \"a\"\ncount = 2\nrepeat = 2\n\
         steps = [{ lookup = \"K\", key = 1 }, { if = \"found\", then = [\
         { remove = \"K\", key = 1 }, { if = \"removed\", then = [\
         { insert = \"S\", key = \"k + i\", value = \"K\" }] }], else = [{ set = \"K\", key = 1, value = \"i\" }] }]\n",
    );
    let run = |engine: &str| {
        let out = coordsim_in(
            dir.path(),
            &[
                "explore", &config, "--engine", engine, "--out", engine, "-q",
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        ["explore.md", "outcomes.csv", "play.json"]
            .map(|file| read(dir.path().join(engine).join("stores-explore").join(file)))
    };
    assert_eq!(run("flat"), run("interpret"));
    for (name, steps, why, auto) in [
        (
            "read.toml",
            "[{ read = \"r\" }, { insert = \"K\", key = \"r\" }]\nrepeat = 513",
            "may insert more than 1,024 keys the run computes",
            false,
        ),
        (
            "tx.toml",
            "[{ transaction = [{ insert = \"K\", key = 1 }, \
             { put = \"Q\", value = 1 }, { put = \"Q\", value = 2 }] }]",
            "a transaction has more than one put",
            true,
        ),
        (
            "many.toml",
            "[{ insert = \"K\", key = \"k * 2 + i\" }]\nrepeat = 513",
            "may name more than 1,024 keys",
            false,
        ),
    ] {
        let config = write_config(
            dir.path(),
            name,
            &format!(
                "model = \"scenario\"\n[[resource]]\nname = \"K\"\nkind = \"keys\"\n\
                 [[resource]]\nname = \"r\"\nkind = \"register\"\n\
                 [[resource]]\nname = \"Q\"\nkind = \"queue\"\n\
                 [[actor]]\nname = \"a\"\ncount = 2\nsteps = {steps}\n"
            ),
        );
        let out = coordsim_in(
            dir.path(),
            &["explore", &config, "--engine", "flat", "--out", "o", "-q"],
        );
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(
            err.contains("the flat engine does not explore this point") && err.contains(why),
            "{err}"
        );
        if auto {
            let out = coordsim_in(dir.path(), &["explore", &config, "--out", "o", "-q"]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
    }
}

/// Key stores beside every other kind of word a flat state keeps, in one point: a queue
/// lock held around an insert (a key per member from a list, into a range of 0.3s whose
/// total rounds), a put of the number the insert left in `K`, a transaction that moves a
/// key from `S` to `K` on what its remove found, and a taker that sets a key of `S` to the
/// number it took, compare-and-sets a register, stops where a lookup misses and takes
/// again. The stores' words sit after the lock's and the queue's, and each actor's word of
/// `K` and `S` after its lock and queue words: both back ends explore it alike in every
/// field, with the reduction on and off, under a state bound and on two threads.
#[test]
fn the_flat_engine_keeps_key_stores_beside_locks_queues_and_compare_and_sets() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"K\"\nkind = \"keys\"\ninitial = { from = 1, count = 2, value = 0.3 }\n\
        [[resource]]\nname = \"S\"\nkind = \"keys\"\ninitial = [[4, 2]]\n\
        [[resource]]\nname = \"r\"\nkind = \"register\"\n\
        [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[resource]]\nname = \"Q\"\nkind = \"queue\"\n\
        [[actor]]\nname = \"a\"\ncount = 2\n\
        steps = [{ acquire = \"L\" }, { insert = \"K\", key = [3, 1], value = \"k + 0.1\" }, \
        { release = \"L\" }, { put = \"Q\", value = \"K\" }, { transaction = [\
        { remove = \"S\", key = \"k + 4\" }, { if = \"removed\", then = [\
        { insert = \"K\", key = \"i\", value = \"S\" }] }] }]\n\
        [[actor]]\nname = \"b\"\n\
        steps = [{ take = \"Q\" }, { set = \"S\", key = 5, value = \"Q\" }, { read = \"r\" }, \
        { write = \"r\", value = \"read + S\", cas = true, max_retries = 1 }, \
        { lookup = \"K\", key = 3 }, { if = \"missing\", then = [{ stop = true }] }, \
        { take = \"Q\" }]\n";
    same_without_symmetry(text, 2, 40).unwrap();
}
