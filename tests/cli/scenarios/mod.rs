//! `scenario` against the built-in models — `shared_store_rmw`, `lock_queue`,
//! `single_writer_queue` and `edge_placement` — on random parameters through both, with
//! equal metrics wherever both define one; a random scenario byte-identical for any jobs,
//! replayed by seed and merged from shards; per-actor lists; polls counted in the estimate;
//! what a composer is handed of a config's parameters and sweeps. Here too the helpers the
//! files below share: a run's cells by name, the error a config gives at load or in its run.
//! Each file below is one area of the scenario composer, in the one integration-test binary
//! (`tests/cli/main.rs`).

use coordsim_model::{Cell, RunContext};
use proptest::prelude::*;

mod acks;
mod calls;
mod estimates;
mod flow;
mod idempotency;
mod inline_branches;
mod instants;
mod library;
mod locks;
mod mistakes;
mod outbox;
mod parallel;
mod queues;
mod readings;
mod repetitions;
mod retries;
mod saga;
mod servers;
mod shorthands;
mod streams;
mod stuck;
mod takes;

/// One run of a config's first point: metric and entity cells by column name.
struct Run {
    metrics: Vec<(String, Cell)>,
    entities: Vec<(String, Vec<(String, Cell)>)>,
}

impl Run {
    fn metric(&self, name: &str) -> &Cell {
        &self
            .metrics
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no metric {name}"))
            .1
    }
    fn entity(&self, entity: &str, column: &str) -> &Cell {
        let row = &self
            .entities
            .iter()
            .find(|(n, _)| n == entity)
            .unwrap_or_else(|| panic!("no entity {entity}"))
            .1;
        &row.iter()
            .find(|(n, _)| n == column)
            .unwrap_or_else(|| panic!("no column {column}"))
            .1
    }
}

fn run_text(text: &str, seed: u64) -> Run {
    run_limited(text, seed, false)
}

/// A run whose events are held to the point's own estimate: it fails when the estimate is
/// not an upper bound.
fn run_within_estimate(text: &str, seed: u64) -> Run {
    run_limited(text, seed, true)
}

fn run_limited(text: &str, seed: u64, to_estimate: bool) -> Run {
    let config = match crate::harness::library_config(&crate::harness::registry(), "t.toml", text) {
        Ok(c) => c,
        Err(e) => panic!("{e}\n{text}"),
    };
    let mut limits = config.plan.limits;
    if to_estimate {
        limits.max_events = config.plan.plans[0].cost().events.max(1);
    }
    let out = config.plan.plans[0]
        .run(&RunContext::new(seed, limits))
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let names = |specs: &[coordsim_model::ColumnSpec]| {
        specs.iter().map(|c| c.name.to_string()).collect::<Vec<_>>()
    };
    let m = names(config.plan.model.metrics());
    let e = names(config.plan.model.entity_columns());
    Run {
        metrics: m.into_iter().zip(out.metrics).collect(),
        entities: out
            .entities
            .into_iter()
            .map(|(n, cells)| (n, e.iter().cloned().zip(cells).collect()))
            .collect(),
    }
}

fn num(c: &Cell) -> f64 {
    c.as_f64().unwrap_or(f64::NAN)
}

/// The error loading `text` gives (it must not load).
fn load_error(text: &str) -> String {
    match crate::harness::library_config(&crate::harness::registry(), "t.toml", text) {
        Ok(_) => panic!("loads, but should not:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// The error running `text`'s first point gives (it must load, and its run must fail).
fn run_error(text: &str) -> String {
    let config =
        crate::harness::library_config(&crate::harness::registry(), "t.toml", text).expect("loads");
    config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, config.plan.limits))
        .expect_err("the run should stop with an error")
        .to_string()
}

const TIES: [&str; 3] = ["program_order", "reads_first", "writes_first"];

#[allow(clippy::too_many_arguments)]
fn shared_store(
    clients: u64,
    incs: u64,
    offset_us: u64,
    r: u64,
    c: u64,
    w: u64,
    tie: &str,
    guard: &str,
    max_retries: u64,
) -> (String, String) {
    let (rm, cm, wm, om) = (
        r as f64 / 1000.0,
        c as f64 / 1000.0,
        w as f64 / 1000.0,
        offset_us as f64 / 1000.0,
    );
    let built_in = format!(
        "model = \"shared_store_rmw\"\n[params]\nclients = {clients}\nincrements_per_client = {incs}\nclient_offset_ms = {om}\nread_ms = {rm}\ncompute_ms = {cm}\nwrite_ms = {wm}\nguard = \"{guard}\"\ntie_order = \"{tie}\"\nmax_retries = {max_retries}\n"
    );
    // The store's read takes its snapshot at once and the whole operation's time passes in
    // the steps after it: read (0 ms) → work read + compute → write (write_ms).
    let (acquire, release) = if guard == "lock" {
        (
            "{ acquire = \"key_lock\" }, ",
            ", { release = \"key_lock\" }",
        )
    } else {
        ("", "")
    };
    // `cas`: a compare-and-set write that starts the increment again when it is rejected.
    let cas = if guard == "cas" {
        format!(", cas = true, max_retries = {max_retries}")
    } else {
        String::new()
    };
    let scenario = format!(
        "model = \"scenario\"\n[params]\nclients = {clients}\nincrements = {incs}\ntie_order = \"{tie}\"\n\
         [[resource]]\nname = \"counter\"\nkind = \"register\"\nwrite_ms = {wm}\n\
         [[resource]]\nname = \"key_lock\"\nkind = \"lock\"\nmode = \"queue\"\n\
         [[actor]]\nname = \"client\"\ncount = \"clients\"\nstart_ms = \"{om} * i\"\nrepeat = \"increments\"\n\
         steps = [{acquire}{{ read = \"counter\" }}, {{ delay_ms = {} }}, {{ write = \"counter\", value = \"read + 1\"{cas} }}{release}]\n",
        (r + c) as f64 / 1000.0
    );
    (built_in, scenario)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// The shared store under every tie order: no guard, its lock, compare-and-set.
    #[test]
    fn the_shared_store_scenario_equals_the_built_in_model(
        // Whole milliseconds, so that reads and writes of different clients often meet at
        // one instant, where the tie orders differ.
        clients in 1u64..7, incs in 1u64..12, offset in 0u64..4,
        r in 0u64..4, c in 0u64..3, w in 1u64..5,
        tie in 0usize..3, guard in 0usize..3, max_retries in 1u64..4,
    ) {
        // A lock under reads_first: the hand-off orders the next holder after the write (both).
        let guard = ["none", "lock", "cas"][guard];
        let (built_in, scenario) = shared_store(clients, incs, offset * 1000, r * 1000, c * 1000, w * 1000, TIES[tie], guard, max_retries);
        let b = run_text(&built_in, 1);
        let s = run_text(&scenario, 1);
        prop_assert_eq!(num(b.metric("counter_final")), num(s.metric("counter.value")), "{}", scenario);
        prop_assert_eq!(num(b.metric("overwritten_writes")), num(s.metric("counter.lost_updates")));
        prop_assert_eq!(num(b.metric("makespan_ms")), num(s.metric("makespan_ms")));
        prop_assert_eq!(num(b.metric("retries")), num(s.metric("client.retries")));
        prop_assert_eq!(num(b.metric("gave_up")), num(s.metric("client.gave_up")));
        prop_assert_eq!(num(b.metric("retries")) + num(b.metric("gave_up")), num(s.metric("counter.rejected_writes")));
        if guard == "lock" {
            prop_assert_eq!(num(b.metric("mean_lock_wait_ms")), num(s.metric("key_lock.mean_wait_ms")));
            prop_assert_eq!(num(b.metric("p95_lock_wait_ms")), num(s.metric("key_lock.p95_wait_ms")));
        }
    }
}

/// The lock queue's appliers as scenario actors: one group each (its own start and hold),
/// the state record as two registers (serial and items), written when the hold ends and
/// released in the same event.
#[allow(clippy::too_many_arguments)]
fn lock_queue(
    starts: &[u64],
    holds: &[u64],
    items: &[u64],
    mode: &str,
    poll: u64,
    give_up: u64,
    stale: bool,
    crash: &[bool],
    unlock: &[u64],
    lease: u64,
    fencing: bool,
) -> (String, String) {
    let names: Vec<String> = (0..starts.len())
        .map(|i| ((b'a' + i as u8) as char).to_string())
        .collect();
    let crashers: Vec<String> = names
        .iter()
        .zip(crash)
        .filter(|(_, c)| **c)
        .map(|(n, _)| format!("\"{n}\""))
        .collect();
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let built_in = format!(
        "model = \"lock_queue\"\n[params]\nappliers = {}\nstart_ms = [{}]\nhold_ms = [{}]\nitems = [{}]\nlock = \"{mode}\"\npoll_ms = {poll}\ngive_up_after_ms = {give_up}\nstale_lock_at_start = {stale}\ncrash = [{}]\nunlock_at_ms = [{}]\nlease_ms = {lease}\nfencing = {fencing}\n",
        starts.len(),
        list(starts),
        list(holds),
        list(items),
        crashers.join(", "),
        list(unlock)
    );
    let mut scenario = format!(
        "model = \"scenario\"\n[params]\ngive_up_ms = {give_up}\n\
         [[resource]]\nname = \"serial\"\nkind = \"register\"\ninitial = 1\nfenced_by = \"state_lock\"\n\
         [[resource]]\nname = \"items\"\nkind = \"register\"\nfenced_by = \"state_lock\"\n\
         [[resource]]\nname = \"state_lock\"\nkind = \"lock\"\nmode = \"{mode}\"\npoll_ms = {poll}\nlease_ms = {lease}\nfencing = {fencing}\nstale_at_start = {stale}\nunlock_at_ms = [{}]\n",
        list(unlock)
    );
    for (i, name) in names.iter().enumerate() {
        let crash_step = if crash[i] {
            "{ crash = \"all\" }, "
        } else {
            ""
        };
        scenario += &format!(
            "[[actor]]\nname = \"{name}\"\nstart_ms = {}\nsteps = [{{ acquire = \"state_lock\", give_up_after_ms = \"give_up_ms\" }}, {{ read = \"serial\" }}, {{ read = \"items\" }}, {crash_step}{{ delay_ms = {} }}, {{ write = \"items\", value = \"items + {}\" }}, {{ write = \"serial\", value = \"serial + 1\" }}, {{ release = \"state_lock\" }}]\n",
            starts[i], holds[i], items[i]
        );
    }
    (built_in, scenario)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// The polled, queued and leased lock with give-up, a stale record, operator unlocks,
    /// crashed holders and fencing tokens.
    #[test]
    fn the_lock_queue_scenario_equals_the_built_in_model(
        appliers in proptest::collection::vec((0u64..6, 0u64..8, 1u64..5, proptest::bool::weighted(0.2)), 1..5),
        mode in 0usize..3, poll in 1u64..4, give_up in 0u64..12, stale in proptest::bool::ANY,
        unlock in proptest::collection::vec(0u64..15, 0..2), lease in 0u64..5, fencing in proptest::bool::ANY,
    ) {
        let mode = ["poll", "queue", "lease"][mode];
        let starts: Vec<u64> = appliers.iter().map(|a| a.0).collect();
        let holds: Vec<u64> = appliers.iter().map(|a| a.1).collect();
        let items: Vec<u64> = appliers.iter().map(|a| a.2).collect();
        let crash: Vec<bool> = appliers.iter().map(|a| a.3).collect();
        let (lease, fencing) = if mode == "lease" { (lease, fencing) } else { (0, false) };
        let (built_in, scenario) = lock_queue(&starts, &holds, &items, mode, poll, give_up, stale, &crash, &unlock, lease, fencing);
        let b = run_text(&built_in, 0);
        let s = run_text(&scenario, 0);
        let pairs = [
            ("items_recorded", "items.value"),
            ("serial_final", "serial.value"),
            ("gave_up", "state_lock.gave_up"),
            ("rounds_total", "state_lock.failed_attempts"),
            ("max_holders", "state_lock.max_holders"),
            ("lock_left", "state_lock.left"),
            ("makespan_ms", "makespan_ms"),
        ];
        for (ours, theirs) in pairs {
            prop_assert_eq!(num(b.metric(ours)), num(s.metric(theirs)), "{} vs {}\n{}", ours, theirs, scenario);
        }
        for i in 0..starts.len() {
            let name = ((b'a' + i as u8) as char).to_string();
            prop_assert_eq!(num(b.entity(&name, "rounds")), num(s.entity(&name, "failed_attempts")), "rounds of {}", name);
            let (bw, sw) = (b.entity(&name, "wait_ms"), s.entity(&name, "lock_wait_ms"));
            if b.entity(&name, "outcome").to_string() == "gave_up" {
                // lock_queue counts a wait that ended in giving up (MODELS.md): rounds × poll,
                // or in a queue give-up − start. The scenario counts it too, as the time from
                // the acquire to the give-up: in a queue the same; polled, the give-up is the
                // last of `rounds` failed attempts, poll_ms apart from the first at the start,
                // so (rounds − 1) × poll.
                let rounds = num(b.entity(&name, "rounds"));
                let expected = if mode == "queue" {
                    num(b.entity(&name, "end_ms")) - num(b.entity(&name, "start_ms"))
                } else {
                    rounds * poll as f64
                };
                prop_assert_eq!(num(bw), expected, "wait of {} (gave up)", name);
                let elapsed = if mode == "queue" { expected } else { (rounds - 1.0) * poll as f64 };
                prop_assert_eq!(num(sw), elapsed, "the scenario's wait of {} (gave up)", name);
            } else {
                prop_assert_eq!(bw.to_string(), sw.to_string(), "wait of {}", name);
            }
            let outcome = match b.entity(&name, "outcome").to_string().as_str() {
                "applied" | "rejected" => "completed",
                other => other,
            }.to_string();
            prop_assert_eq!(outcome, s.entity(&name, "outcome").to_string(), "outcome of {}", name);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    /// The single-writer queue: scheduled, Poisson, uniform, log-normal and gamma arrivals,
    /// the same five kinds of service, instances. The server is called `instance` so that its
    /// service streams are the built-in's (`service/instance-k`), and each client's arrival
    /// stream is `arrivals/client-c` in both.
    #[test]
    fn the_single_writer_queue_scenario_equals_the_built_in_model(
        clients in 1u64..6, requests in 1u64..30, gap in 1u64..12, offset in 0u64..4,
        service in 1u64..8, arrivals in 0usize..5, kind in 0usize..5,
        // Tenths of a cv: at most 0.5 (uniform's ceiling is 1/√3), or up to 2.
        arrival_cv in 1u64..6, service_cv in 1u64..21,
        instances in 1u64..3, seed in 0u64..1000,
    ) {
        let arrivals = ["schedule", "poisson", "uniform", "lognormal", "gamma"][arrivals];
        let kind = ["fixed", "exponential", "uniform", "lognormal", "gamma"][kind];
        let arrival_cv = arrival_cv as f64 / 10.0;
        let service_cv = if kind == "uniform" { (service_cv % 6).max(1) as f64 / 10.0 } else { service_cv as f64 / 10.0 };
        let built_in = format!(
            "model = \"single_writer_queue\"\n[params]\nclients = {clients}\nrequests_per_client = {requests}\ninterarrival_ms = {gap}\nclient_offset_ms = {offset}\nservice_ms = {service}\narrivals = \"{arrivals}\"\ninterarrival_cv = {arrival_cv}\nservice = \"{kind}\"\nservice_cv = {service_cv}\ninstances = {instances}\n"
        );
        let scenario = format!(
            "model = \"scenario\"\n[params]\nclients = {clients}\n\
             [[resource]]\nname = \"instance\"\nkind = \"server\"\nservice_ms = {service}\nservice = \"{kind}\"\nservice_cv = {service_cv}\ninstances = {instances}\n\
             [[actor]]\nname = \"client\"\ncount = \"clients\"\nstart_ms = \"{offset} * i\"\nrepeat = {requests}\nevery_ms = {gap}\narrivals = \"{arrivals}\"\nevery_cv = {arrival_cv}\n\
             steps = [{{ request = \"instance\", instance = \"i\" }}]\n"
        );
        let b = run_text(&built_in, seed);
        let s = run_text(&scenario, seed);
        let pairs = [
            ("counter_final", "instance.requests"),
            ("mean_wait_ms", "instance.mean_wait_ms"),
            ("p50_wait_ms", "instance.p50_wait_ms"),
            ("p95_wait_ms", "instance.p95_wait_ms"),
            ("p99_wait_ms", "instance.p99_wait_ms"),
            ("max_wait_ms", "instance.max_wait_ms"),
            ("max_queue_len", "instance.max_queue_len"),
            ("busy_fraction", "instance.busy_fraction"),
            ("makespan_ms", "instance.makespan_ms"),
        ];
        for (ours, theirs) in pairs {
            prop_assert_eq!(num(b.metric(ours)), num(s.metric(theirs)), "{} vs {}\n{}", ours, theirs, scenario);
        }
    }

    /// The edge placement: each edge an actor whose requests spread over the window, cross
    /// its own link, queue at the object (or its own, split per edge) and cross back.
    #[test]
    fn the_edge_placement_scenario_equals_the_built_in_model(
        edges in proptest::collection::vec((1u64..40, 0u64..50), 1..5),
        service_us in 0u64..3000, duration in 10u64..200, split in proptest::bool::ANY,
    ) {
        let service = service_us as f64 / 1000.0;
        let per_edge = if split { "[\"p\"]" } else { "[]" };
        let mut built_in = format!(
            "model = \"edge_placement\"\n[params]\nplacement = \"p\"\nper_edge_placements = {per_edge}\nservice_ms = {service}\nduration_ms = {duration}\nedges = ["
        );
        let mut scenario = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"object\"\nkind = \"server\"\nservice_ms = {service}\ninstances = {}\n",
            if split { edges.len() } else { 1 }
        );
        for (e, (load, rtt)) in edges.iter().enumerate() {
            built_in += &format!("{{ name = \"e{e}\", load = {load}, rtt_ms = {{ p = {rtt} }} }}, ");
            scenario += &format!("[[resource]]\nname = \"link_{e}\"\nkind = \"link\"\nrtt_ms = {rtt}\n");
        }
        built_in += "]\n";
        for (e, (load, _)) in edges.iter().enumerate() {
            scenario += &format!(
                "[[actor]]\nname = \"e{e}\"\nrepeat = {load}\nspread_ms = {duration}\nsteps = [{{ send = \"link_{e}\" }}, {{ request = \"object\", instance = {e} }}, {{ send = \"link_{e}\" }}]\n"
            );
        }
        let b = run_text(&built_in, 0);
        let s = run_text(&scenario, 0);
        prop_assert_eq!(num(b.metric("requests")), num(s.metric("completed")));
        prop_assert_eq!(num(b.metric("mean_response_ms")), num(s.metric("mean_response_ms")), "{}", scenario);
        prop_assert_eq!(num(b.metric("max_response_ms")), num(s.metric("max_response_ms")));
        for e in 0..edges.len() {
            let name = format!("e{e}");
            for stat in ["mean", "p95"] {
                prop_assert_eq!(num(b.entity(&name, &format!("{stat}_response_ms"))), num(s.metric(&format!("{name}.{stat}_response_ms"))), "{} of {}", stat, name);
            }
        }
    }
}

/// A scenario with every random source: Poisson arrivals, exponential service, crashes by
/// probability; swept and replicated.
const RANDOM_SCENARIO: &str = r#"
model = "scenario"
seed = 7
replications = 3
[sweep]
clients = [2, 5]
[[resource]]
name = "object"
kind = "server"
service_ms = 4
service = "exponential"
[[resource]]
name = "audit"
kind = "lock"
mode = "queue"
[[actor]]
name = "client"
count = "clients"
repeat = 40
every_ms = 10
arrivals = "poisson"
steps = [{ request = "object" }, { crash = { probability = 0.02 } }, { acquire = "audit", give_up_after_ms = 30 }, { delay_ms = 3 }, { release = "audit" }]
"#;

#[test]
fn a_random_scenario_is_byte_identical_for_any_jobs_replays_by_seed_and_shards() {
    use crate::harness::{coordsim, read, stderr, write_config};
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "random-scenario.toml", RANDOM_SCENARIO);
    let run = |dir: &str, extra: &[&str]| {
        let out = tmp.path().join(dir);
        let mut args = vec!["run", &config, "--out", out.to_str().unwrap(), "-q"];
        args.extend(extra);
        let o = coordsim(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let d = out.join("random-scenario");
        (read(d.join("results.csv")), read(d.join("entities.csv")))
    };
    let one = run("j1", &["--jobs", "1"]);
    let three = run("j3", &["--jobs", "3"]);
    assert_eq!(one, three, "--jobs 1 and --jobs 3 differ");
    let csv = String::from_utf8(one.0.clone()).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 1 + 2 * 3, "2 points × 3 replications");
    // Crashes at 2% over 40 requests of 2 or 5 clients: some row has one, or the draws
    // would not be exercised (a check on the config, not on the model).
    let header: Vec<&str> = rows[0].split(',').collect();
    let crashed = header.iter().position(|h| *h == "client.crashed").unwrap();
    assert!(
        rows[1..]
            .iter()
            .any(|r| r.split(',').nth(crashed) != Some("0")),
        "{csv}"
    );
    // `--seed S` with one replication replays the row whose seed column is S.
    let seed_col = header.iter().position(|h| *h == "seed").unwrap();
    let row = rows[5];
    let seed = row.split(',').nth(seed_col).unwrap();
    let replay = run("replay", &["--seed", seed]);
    let replayed = String::from_utf8(replay.0).unwrap();
    let rest = |r: &str| {
        r.split(',')
            .skip(seed_col + 1)
            .collect::<Vec<_>>()
            .join(",")
    };
    assert!(
        replayed.lines().skip(1).any(|r| rest(r) == rest(row)),
        "row {row} not replayed by --seed {seed}:\n{replayed}"
    );
    // Two shards merge into the single run's bytes.
    let shards = crate::harness::shard_dirs(tmp.path(), &config, "random-scenario", 2);
    let merged = tmp.path().join("merged");
    let o = crate::harness::merge_into(&merged, &shards);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(merged.join("results.csv")), one.0);
}

#[test]
fn per_actor_lists_give_each_actor_its_number_and_must_match_the_count() {
    // a starts at 0 and works 5 ms; b starts at 2000 and works 7 ms: ends 5 and 2007.
    let text = "model = \"scenario\"\n[[actor]]\nname = \"w\"\nnames = [\"a\", \"b\"]\nstart_ms = [0, 2000]\nsteps = [{ delay_ms = [5, 7] }]\n";
    let run = run_text(text, 0);
    assert_eq!(run.entity("a", "end_ms").to_string(), "5");
    assert_eq!(run.entity("b", "end_ms").to_string(), "2007");
    assert_eq!(run.entity("b", "start_ms").to_string(), "2000");
    // Three numbers for two actors: refused where the list is written.
    let bad = text.replace("[5, 7]", "[5, 7, 9]");
    let Err(err) = crate::harness::library_config(&crate::harness::registry(), "t.toml", &bad)
    else {
        panic!("three numbers for two actors were accepted");
    };
    let err = err.to_string();
    assert!(
        err.contains("t.toml:6:") && err.contains("one number per actor: 2 here, got 3"),
        "{err}"
    );
}

/// A polled lock's failed attempts count in the up-front estimate: 100 waiters polling every
/// microsecond behind 250 ms holds make about 250,000 × (0 + 1 + … + 99) ≈ 1.2e9 attempts,
/// past the default billion events, so the config is refused at load instead of running
/// into the limit.
#[test]
fn poll_rounds_count_in_the_estimate_before_anything_runs() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"poll\"\npoll_ms = 0.001\n[[actor]]\nname = \"w\"\ncount = 100\nsteps = [{ acquire = \"L\" }, { delay_ms = 250 }, { release = \"L\" }]\n";
    let Err(e) = crate::harness::library_config(&crate::harness::registry(), "t.toml", text) else {
        panic!("refused up front");
    };
    // At the poll, which polls a waiter for as long as the 99 others may hold the lock,
    // 99 × 250 ms (counted as all 100: 25,000 ms).
    assert!(
        e.message.starts_with("`resource[0].poll_ms`: a run would take about ")
            && e.message.contains(" events (a waiter polls lock `L` every 0.001 ms for up to 25000 ms, while others may hold it), more than max_events"),
        "{e}"
    );
    // With a give-up after 1 ms the waits are short: 100 × 1,001 attempts at most.
    let capped = text.replace(
        "{ acquire = \"L\" }",
        "{ acquire = \"L\", give_up_after_ms = 1 }",
    );
    assert!(crate::harness::library_config(&crate::harness::registry(), "t.toml", &capped).is_ok());
}

/// A composer that keeps what the front end hands it and composes nothing.
struct Recorder(std::sync::Arc<std::sync::Mutex<Option<coordsim_model::ComposeInput>>>);

impl coordsim_model::Composer for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn summary(&self) -> &'static str {
        "keeps its input"
    }
    fn sections(&self) -> &'static [&'static str] {
        &["part"]
    }
    fn guide(&self) -> &'static str {
        ""
    }
    fn starter(&self) -> &'static str {
        ""
    }
    fn compose(
        &self,
        input: &coordsim_model::ComposeInput,
    ) -> Result<std::sync::Arc<dyn coordsim_model::ModelDef>, coordsim_model::ComposeError> {
        *self.0.lock().unwrap() = Some(input.clone());
        Err(coordsim_model::ComposeError::new(Vec::new(), "recorded"))
    }
}

/// Sweeps are read once, by the plan: a composer gets each parameter's values as the plan
/// reads them (a range expanded, to integers when its numbers are written as integers ≥ 0),
/// never the `[sweep]` table. A derived parameter and a sweep the plan refuses have none.
#[test]
fn a_composer_is_handed_each_parameter_with_the_values_the_plan_read() {
    use coordsim_model::{ConfigParam, Value};
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    let registry = coordsim_model::Registry::new().with_composer(Recorder(seen.clone()));
    let text = "model = \"recorder\"\n[params]\na = 2\nb = { expr = \"a * 2\" }\n[sweep]\nn = { from = 1, to = 3, step = 1 }\nd = { from = 0.5, to = 1.5, step = 0.5 }\ns = [\"x\", \"y\"]\nbad = { from = 1, to = 3, step = 0 }\n[[part]]\nk = 1\n";
    assert!(crate::harness::library_config(&registry, "t.toml", text).is_err());
    let input = seen.lock().unwrap().take().expect("composed");
    // 1, 2, 3 by 1; 0.5, 1, 1.5 by 0.5 (a fraction: numbers); step 0 is refused later.
    let expected = vec![
        ConfigParam::new("a", vec![Value::Int(2)]),
        ConfigParam::new("b", vec![]),
        ConfigParam::new("n", vec![Value::Int(1), Value::Int(2), Value::Int(3)]),
        ConfigParam::new(
            "d",
            vec![Value::Float(0.5), Value::Float(1.0), Value::Float(1.5)],
        ),
        ConfigParam::new("s", vec![Value::Str("x".into()), Value::Str("y".into())]),
        ConfigParam::new("bad", vec![]),
    ];
    assert_eq!(input.params, expected);
    assert_eq!(
        input.sections,
        vec![(
            "part".to_string(),
            Value::List(vec![Value::Table(vec![("k".into(), Value::Int(1))])])
        )]
    );
}

/// A range swept in a scenario is the plan's: whole numbers ≥ 0 make an integer parameter
/// whose values are the range's; a sweep the plan refuses is refused at its place, but only
/// after the scenario's own errors, as for any model.
#[test]
fn a_scenario_sweeps_a_range_as_the_plan_expands_it() {
    use coordsim_model::{Kind, Value};
    let text = "model = \"scenario\"\n[params]\nd = 1\n[sweep]\nn = { from = 1, to = 3, step = 1 }\n[[actor]]\nname = \"a\"\ncount = \"n\"\nsteps = [{ delay_ms = \"d\" }]\n";
    let config = crate::harness::library_config(&crate::harness::registry(), "t.toml", text)
        .unwrap_or_else(|e| panic!("{e}"));
    let n = config
        .plan
        .model
        .params()
        .iter()
        .find(|p| p.key == "n")
        .unwrap();
    assert_eq!(n.kind, Kind::Count);
    let axis = &config.plan.axes[0];
    assert_eq!(axis.values, [Value::Int(1), Value::Int(2), Value::Int(3)]);
    // 1 + 2 + 3 actors over the three points.
    let actors: u64 = (0..3)
        .map(|p| {
            let out = config.plan.plans[p]
                .run(&RunContext::new(0, config.plan.limits))
                .unwrap();
            let names: Vec<&str> = config.plan.model.metrics().iter().map(|c| c.name).collect();
            let i = names.iter().position(|n| *n == "a.actors").unwrap();
            out.metrics[i].as_f64().unwrap() as u64
        })
        .sum();
    assert_eq!(actors, 6);
    // Step 0 and a step with no action: the step (line 9) is named, not the sweep (line 5).
    let both = text.replace("step = 1 }", "step = 0 }").replace(
        "{ delay_ms = \"d\" }",
        "{ delay_ms = \"d\" }, { bogus = 1 }",
    );
    let Err(e) = crate::harness::library_config(&crate::harness::registry(), "t.toml", &both)
    else {
        panic!("accepted");
    };
    assert!(e.to_string().contains("t.toml:9:"), "{e}");
    assert!(e.message.contains("exactly one action"), "{e}");
    // The sweep alone: refused where it is written.
    let sweep = text.replace("step = 1 }", "step = 0 }");
    let Err(e) = crate::harness::library_config(&crate::harness::registry(), "t.toml", &sweep)
    else {
        panic!("accepted");
    };
    assert!(e.to_string().contains("t.toml:5:"), "{e}");
    assert!(e.message.contains("`step` must not be 0"), "{e}");
}

/// A misspelled action or key is named with the nearest valid one (edit distance at most
/// a third of its length): `requst` is one edit from `request`, `timeot_ms` one from
/// `timeout_ms`; a key far from every action (`bogus`) gets no guess.
#[test]
fn a_misspelled_step_or_key_gets_the_nearest_name() {
    let config = |step: &str| {
        format!(
            "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 1\n[[actor]]\nname = \"c\"\nsteps = [{step}]\n"
        )
    };
    let error = |step: &str| {
        let text = config(step);
        match crate::harness::library_config(&crate::harness::registry(), "t.toml", &text) {
            Ok(_) => panic!("accepted: {step}"),
            Err(e) => e.to_string(),
        }
    };
    let e = error(r#"{ requst = "s" }"#);
    assert!(
        e.contains("`requst` names no action (did you mean `request`?)"),
        "{e}"
    );
    let e = error(r#"{ request = "s", timeot_ms = 3 }"#);
    assert!(
        e.contains("unknown key `timeot_ms` of a request step (did you mean `timeout_ms`?)"),
        "{e}"
    );
    let e = error(r#"{ bogus = 1 }"#);
    assert!(
        e.contains("`bogus` names no action.") && !e.contains("did you mean"),
        "{e}"
    );
    // In an expression: `atempt` is one edit from `attempt`.
    let e = error(r#"{ if = { value = "atempt", below = 3 }, then = [{ request = "s" }] }"#);
    assert!(
        e.contains("unknown name `atempt` (did you mean `attempt`?)"),
        "{e}"
    );
    let e = error(r#"{ request = "s", read = "s" }"#);
    assert!(e.contains("this one has 2: request, read"), "{e}");
}
