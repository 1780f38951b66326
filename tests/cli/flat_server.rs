//! Servers in the flat back end against the interpreter: random points whose actors make
//! requests at one or two servers (one or two instances, a fixed service, a down window or
//! two, requests that wait or are refused meanwhile), beside registers, locks and queues,
//! explored by both back ends; and hand counts.

use coordsim_model::{ExploreLimits, Reduction, Symmetry};
use proptest::prelude::*;

use crate::flat_engine::{LOCKS_AND_QUEUES, covered, delay, same, same_without_symmetry, steps_of};
use crate::harness::{coordsim_in, stderr, write_config};

/// A server's resource: its service (0 ms: its departure at the instant of its request),
/// its instances, and maybe windows down, in which a request waits or (`fail`) is refused.
fn server(name: &'static str) -> impl Strategy<Value = String> {
    let windows = prop_oneof![
        2 => Just(""),
        1 => Just("down = [[2, 8]]\n"),
        1 => Just("down = [[0, 5], [5, 9]]\n"),
    ];
    (
        prop_oneof![Just(0), Just(3), Just(5), Just(10)],
        1..=2u32,
        windows,
        any::<bool>(),
    )
        .prop_map(move |(service, instances, windows, fail)| {
            let fail = if fail && !windows.is_empty() {
                "when_down = \"fail\"\n"
            } else {
                ""
            };
            format!(
                "[[resource]]\nname = \"{name}\"\nkind = \"server\"\nservice_ms = {service}\n\
                 instances = {instances}\n{windows}{fail}"
            )
        })
}

/// Steps at the servers: a request at one (at its first instance, at `i`'s, or at one
/// of the two by `i`), two back to back (the second made in the first's departure), a
/// request at `F` whose refusal is told by an `if`, or a request and a delay.
fn server_steps() -> impl Strategy<Value = Vec<String>> {
    let steps = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    prop_oneof![
        Just(steps(&["{ request = \"S0\" }"])),
        Just(steps(&["{ request = \"S1\" }"])),
        Just(steps(&["{ request = \"S0\", instance = \"i\" }"])),
        Just(steps(&[
            "{ request = { one_of = [\"S0\", \"S1\"], index = \"i\" } }"
        ])),
        Just(steps(&["{ request = \"S1\" }", "{ request = \"S0\" }"])),
        Just(steps(&[
            "{ request = \"F\" }",
            "{ if = \"refused\", then = [{ read = \"r0\" }, \
             { write = \"r0\", value = \"read + 1\" }] }",
        ])),
        (delay(), prop_oneof![Just("S0"), Just("S1")])
            .prop_map(|(delay, s)| vec![format!("{{ request = \"{s}\" }}"), delay]),
    ]
}

/// A random point with servers: two servers ([`server`]) and `F`, down from 2 to 8 ms
/// and refusing requests meanwhile, three registers, the locks and
/// queues of [`LOCKS_AND_QUEUES`], and one or two groups of one or two closed-loop actors
/// of one or two repetitions, starting at 0 ms, at 5 or at `i * 3`, whose steps are
/// requests (two times in three) or the flat back end's other steps, in one or two lists.
fn server_config() -> impl Strategy<Value = String> {
    let one = prop_oneof![2 => server_steps(), 1 => steps_of(11)];
    let start = prop_oneof![Just("0"), Just("5"), Just("\"i * 3\"")];
    let group = (1..=2u32, 1..=2u32, prop::collection::vec(one, 1..=2), start)
        .prop_filter("a put beside a compare-and-set", |g| covered(&g.2));
    (
        server("S0"),
        server("S1"),
        prop::collection::vec(group, 1..=2),
    )
        .prop_map(|(s0, s1, groups)| {
            let mut text = String::from(LOCKS_AND_QUEUES);
            text.push_str(&s0);
            text.push_str(&s1);
            text.push_str(
                "[[resource]]\nname = \"F\"\nkind = \"server\"\nservice_ms = 4\n\
                 down = [[2, 8]]\nwhen_down = \"fail\"\n",
            );
            for r in 0..3 {
                text.push_str(&format!(
                    "[[resource]]\nname = \"r{r}\"\nkind = \"register\"\ninitial = {r}\n"
                ));
            }
            for (g, (count, repeat, steps, start)) in groups.into_iter().enumerate() {
                text.push_str(&format!(
                    "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\n\
                     start_ms = {start}\nsteps = [{}]\n",
                    steps.concat().join(", ")
                ));
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Both back ends on random points with servers (`same` checks the engine's name, so
    /// the test cannot pass by falling back): the reduction on and off, a state bound,
    /// and symmetry without the reduction.
    #[test]
    fn the_flat_engine_serves_requests_as_the_interpreter_does(
        text in server_config(),
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        let on = same_without_symmetry(&text, jobs, bound)?;
        same(&text, ExploreLimits { symmetry: Symmetry::On, reduce: Reduction::Off, ..on })?;
    }
}

/// Steps that mix a server with a key store `K` and register `r0` (`KEY`: key 1, 2, `i +
/// 1` or `k`): a request at `F` whose outcome sets a key where it was served and writes
/// `r0` where refused; a request at `S0` then a transaction that removes a key and, where
/// it removed it, writes `r0`; a transaction that inserts a key and puts `i` on `Q`
/// where it inserted it; a lookup whose found value names the keys set and looked up next
/// (keys the run computes); a key step alone; or a request at `S0` or `S1` by `i`.
fn server_key_steps() -> impl Strategy<Value = Vec<String>> {
    let key = prop_oneof![Just("1"), Just("2"), Just("\"i + 1\""), Just("\"k\"")];
    (0..6u8, key).prop_map(|(kind, key)| {
        let steps: &[&str] = match kind {
            0 => &[
                "{ request = \"F\" }",
                "{ if = \"served\", then = [{ set = \"K\", key = KEY, value = \"k + 1\" }], \
                 else = [{ write = \"r0\", value = \"i + 3\" }] }",
            ],
            1 => &[
                "{ request = \"S0\" }",
                "{ transaction = [{ remove = \"K\", key = KEY }, { if = \"removed\", \
                 then = [{ write = \"r0\", value = \"i + 1\" }] }] }",
            ],
            2 => &[
                "{ transaction = [{ insert = \"K\", key = KEY, value = \"k\" }, \
                 { if = \"inserted\", then = [{ put = \"Q\", value = \"i\" }] }] }",
            ],
            3 => &[
                "{ lookup = \"K\", key = KEY }",
                "{ if = \"found\", then = [{ set = \"K\", key = \"K * 2\", value = \"k\" }, \
                 { lookup = \"K\", key = \"K + 1\" }] }",
            ],
            4 => &[
                "{ set = \"K\", key = KEY, value = 4 }",
                "{ remove = \"K\", key = KEY }",
            ],
            _ => &["{ request = { one_of = [\"S0\", \"S1\"], index = \"i\" } }"],
        };
        steps.iter().map(|step| step.replace("KEY", key)).collect()
    })
}

/// A random point with servers and keys: the servers of [`server_config`] (`S0`, `S1`
/// and `F`), a key store `K` empty or with keys, a queue `Q`, register `r0`, and one or
/// two groups of one or two closed-loop actors of one or two repetitions, starting at 0
/// ms, at 5 or at `i * 3`, each running one or two lists of [`server_key_steps`], maybe
/// with a delay among them.
fn server_keys_config() -> impl Strategy<Value = String> {
    let initial = prop_oneof![
        Just(""),
        Just("initial = [[1, 5]]\n"),
        Just("initial = [1, 2, 3]\n")
    ];
    let start = prop_oneof![Just("0"), Just("5"), Just("\"i * 3\"")];
    let group = (
        1..=2u32,
        1..=2u32,
        prop::collection::vec(server_key_steps(), 1..=2),
        start,
        prop::option::of((delay(), 0..4usize)),
    );
    (
        server("S0"),
        server("S1"),
        initial,
        prop::collection::vec(group, 1..=2),
    )
        .prop_map(|(s0, s1, initial, groups)| {
            let mut text = format!(
                "model = \"scenario\"\n{s0}{s1}\
                 [[resource]]\nname = \"F\"\nkind = \"server\"\nservice_ms = 4\n\
                 down = [[2, 8]]\nwhen_down = \"fail\"\n\
                 [[resource]]\nname = \"K\"\nkind = \"keys\"\n{initial}\
                 [[resource]]\nname = \"Q\"\nkind = \"queue\"\n\
                 [[resource]]\nname = \"r0\"\nkind = \"register\"\n"
            );
            for (g, (count, repeat, steps, start, pause)) in groups.into_iter().enumerate() {
                let mut steps = steps.concat();
                if let Some((pause, at)) = pause {
                    steps.insert(at.min(steps.len()), pause);
                }
                text.push_str(&format!(
                    "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\n\
                     start_ms = {start}\nsteps = [{}]\n",
                    steps.join(", ")
                ));
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Both back ends on random points that mix servers with key stores, transactions,
    /// keys the run computes and `if served` / `if refused` (`same` checks the engine's
    /// name: the test cannot pass by falling back): the reduction on and off, a state
    /// bound, one thread or two, and symmetry without the reduction.
    #[test]
    fn the_flat_engine_serves_beside_key_stores_as_the_interpreter_does(
        text in server_keys_config(),
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        let on = same_without_symmetry(&text, jobs, bound)?;
        same(&text, ExploreLimits { symmetry: Symmetry::On, reduce: Reduction::Off, ..on })?;
    }
}

/// A row of `outcomes.csv`: each cell with its column's name.
type Row = Vec<(String, String)>;

/// `text` explored by `coordsim explore --engine ENGINE` (every member apart, no
/// reduction): its `outcomes.csv`'s rows, and every file's bytes.
fn explored(text: &str, engine: &str) -> (Vec<Row>, Vec<Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "served.toml", text);
    let out = coordsim_in(
        dir.path(),
        &[
            "explore",
            &config,
            "--engine",
            engine,
            "--no-symmetry",
            "--no-reduce",
            "--out",
            "out",
            "-q",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let at = dir.path().join("out").join("served-explore");
    let csv = std::fs::read_to_string(at.join("outcomes.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|line| {
            header
                .iter()
                .cloned()
                .zip(line.split(',').map(String::from))
                .collect()
        })
        .collect();
    let mut names: Vec<_> = std::fs::read_dir(&at)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    let files = names
        .iter()
        .map(|n| std::fs::read(at.join(n)).unwrap())
        .collect();
    (rows, files)
}

/// The cell `name` of `row`.
fn cell<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    &row.iter().find(|(n, _)| n == name).unwrap().1
}

/// Two clients, one request each at 0 ms, to one instance serving in 10 ms that is down
/// from 5 to 15 ms, by hand. At 0 the two starts are free (a request touches the server:
/// no reduction), so 2 executions, one a client first. The first is served 0–10 (a
/// service under way finishes in a window); the second waits. At 5 the server goes down;
/// at 10 the first leaves and the instance is held; at 15 it comes up and the second is
/// served 15–25. Either way: 2 requests, waits 0 and 15 (mean 7.5, greatest 15), the
/// longest queue 1, the server's makespan 25 ms (last departure − first arrival): one
/// outcome of 2 executions. The files are the interpreter's, byte for byte.
#[test]
fn the_flat_engine_holds_a_server_down_by_hand() {
    let text = "model = \"scenario\"\n\
                [[resource]]\nname = \"db\"\nkind = \"server\"\nservice_ms = 10\n\
                down = [[5, 15]]\n\
                [[actor]]\nname = \"client\"\ncount = 2\nsteps = [{ request = \"db\" }]\n";
    let (rows, files) = explored(text, "flat");
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(cell(row, "executions"), "2");
    assert_eq!(cell(row, "db.requests"), "2");
    assert_eq!(cell(row, "db.mean_wait_ms"), "7.5");
    assert_eq!(cell(row, "db.max_wait_ms"), "15");
    assert_eq!(cell(row, "db.max_queue_len"), "1");
    assert_eq!(cell(row, "db.makespan_ms"), "25");
    assert_eq!(files, explored(text, "interpret").1);
}

/// Three clients start 0, 4 and 8 ms apart, each with one request to a server serving in
/// 3 ms that is down from 2 to 6 ms and refuses requests meanwhile (`when_down =
/// "fail"`); a refused client adds 1 to `r`, by hand. No two events share an instant, so
/// 1 execution: client 0 is served 0–3 (its service under way finishes in the window);
/// client 1 (at 4, down) is refused and writes `r` = 1; client 2 (at 8, up) is served
/// 8–11. So 2 requests served, 1 refused, `r` ends at 1, and 3 completed.
#[test]
fn the_flat_engine_refuses_at_a_server_down_by_hand() {
    let text = "model = \"scenario\"\n\
                [[resource]]\nname = \"db\"\nkind = \"server\"\nservice_ms = 3\n\
                down = [[2, 6]]\nwhen_down = \"fail\"\n\
                [[resource]]\nname = \"r\"\nkind = \"register\"\n\
                [[actor]]\nname = \"client\"\ncount = 3\nstart_ms = \"i * 4\"\n\
                steps = [{ request = \"db\" }, { if = \"refused\", \
                then = [{ read = \"r\" }, { write = \"r\", value = \"read + 1\" }] }]\n";
    let (rows, files) = explored(text, "flat");
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(cell(row, "executions"), "1");
    assert_eq!(cell(row, "db.requests"), "2");
    assert_eq!(cell(row, "db.refused"), "1");
    assert_eq!(cell(row, "r.value"), "1");
    assert_eq!(cell(row, "client.completed"), "3");
    assert_eq!(files, explored(text, "interpret").1);
}

/// What the flat back end leaves to the interpreter at a server, each said by `--engine
/// flat`, and explored by `auto` (with the interpreter): a request that times out (its
/// client may leave), an open loop (its repetitions may overlap), a crash beside a server
/// (a crash step that restarts its actor, or a group that may crash anywhere: the flat
/// back end does not take a crashed client out of a server's line); a drawn service is
/// refused by the config layer already.
#[test]
fn the_flat_engine_says_which_servers_it_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let server = "model = \"scenario\"\n\
                  [[resource]]\nname = \"db\"\nkind = \"server\"\nservice_ms = 10\n";
    for (name, actor, why) in [
        (
            "timeout.toml",
            "count = 2\nsteps = [{ request = \"db\", timeout_ms = 15 }]\n",
            "a request to a server may time out",
        ),
        (
            "open.toml",
            "repeat = 3\nevery_ms = 5\nsteps = [{ request = \"db\" }]\n",
            "a group does not run a closed loop",
        ),
        (
            "crash.toml",
            "steps = [{ request = \"db\" }, { crash = { probability = 0.5 }, \
             restart_after_ms = 3 }, { request = \"db\" }]\n",
            "it has a server and a group may crash",
        ),
        (
            "anywhere.toml",
            "count = 2\nsteps = [{ request = \"db\" }]\n\
             crash_anywhere = { count = 1, restart_after_ms = 0 }\n",
            "it has a server and a group may crash",
        ),
    ] {
        let text = format!("{server}[[actor]]\nname = \"client\"\n{actor}");
        let config = write_config(dir.path(), name, &text);
        let out = coordsim_in(
            dir.path(),
            &["explore", &config, "--engine", "flat", "--out", "o", "-q"],
        );
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(err.contains(why) && err.contains("--engine auto"), "{err}");
        let out = coordsim_in(dir.path(), &["explore", &config, "--out", "o", "-q"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}
