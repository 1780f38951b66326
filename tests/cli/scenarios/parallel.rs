//! `parallel`: branches at one instant and their join. One branch is the branch itself;
//! `wait = k` over independent fixed-service servers ends at the k-th soonest branch
//! (all: the slowest; first: the soonest); a cancelled branch's request is served,
//! withdrawn or wasted, never lost; a hedged request's p99 is the closed form of two
//! independent exponential replicas; what a cancel gives back (a lock, a queue's waiter).

use coordsim_model::RunContext;
use proptest::prelude::*;

use super::{load_error, num, run_error, run_text, run_within_estimate};

/// A hedge's one-line config: one client, `repeat` repetitions in a closed loop, each a
/// request at `A` and, after `hedge_ms`, one at `B`; the first answer wins. Each replica
/// has `instances` instances and a repetition asks instance `k`, so no request queues
/// behind another (`instances` × the shortest repetition is far longer than any service).
fn hedge(mean_ms: f64, hedge_ms: f64, repeat: u64, cancel: &str) -> String {
    format!(
        "model = \"scenario\"\n\
         [[resource]]\nname = \"A\"\nkind = \"server\"\nservice_ms = {mean_ms}\nservice = \"exponential\"\ninstances = 5000\n\
         [[resource]]\nname = \"B\"\nkind = \"server\"\nservice_ms = {mean_ms}\nservice = \"exponential\"\ninstances = 5000\n\
         [[actor]]\nname = \"c\"\nrepeat = {repeat}\n\
         steps = [{{ parallel = [[{{ request = \"A\", instance = \"k\" }}], [{{ delay_ms = {hedge_ms} }}, {{ request = \"B\", instance = \"k\" }}]], wait = \"first\", cancel = \"{cancel}\" }}]\n"
    )
}

/// The per-request responses of `text`'s first point, by distribution name.
fn responses(text: &str, seed: u64, name: &str) -> Vec<f64> {
    let config = crate::harness::library_config(&crate::harness::registry(), "t.toml", text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let ctx = RunContext::new(seed, config.plan.limits).with_distributions(true);
    let out = config.plan.plans[0].run(&ctx).expect("runs");
    out.distributions
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no distribution {name}"))
        .1
}

/// A few steps that stand alone (a lock taken is given back in the same block; a wait
/// that may never end has a timeout): whole milliseconds, so instants coincide, and one
/// server that most blocks ask, so that who goes first at an instant shows in the waits.
fn block() -> impl Strategy<Value = String> {
    // What a lock block holds the lock for: nothing that gives up holding it.
    let held = prop_oneof![
        Just("{ request = \"S\" }".to_string()),
        (0u64..4).prop_map(|d| format!("{{ delay_ms = {d} }}")),
    ];
    prop_oneof![
        held.clone(),
        (1u64..12).prop_map(|t| format!("{{ request = \"S\", timeout_ms = {t} }}")),
        held.prop_map(|inner| format!("{{ acquire = \"L\" }}, {inner}, {{ release = \"L\" }}")),
        Just("{ put = \"Q\" }".to_string()),
        (1u64..12).prop_map(|t| format!("{{ take = \"Q\", timeout_ms = {t} }}")),
        Just("{ read = \"R\" }, { write = \"R\", value = \"read + 1\" }".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// A `parallel` of one branch is its steps written in line at every instant, not only
    /// on average: whole-millisecond starts, holds and services make other actors' events
    /// fall due at the very instants the branch starts and ends (a lock handed over, a
    /// message handed to a waiting taker, a server freed), and every metric and every
    /// actor's row must come out the same. A branch's give-up is the repetition's after
    /// the join (`if = "failed"` then `end = "gave_up"`), as a give-up in line is.
    #[test]
    fn a_parallel_of_one_branch_is_its_steps_at_every_instant(
        actors in proptest::collection::vec(
            (0u64..4, 1u32..3, 1u64..4, proptest::collection::vec(block(), 1..5)), 2..4),
        cut in (0usize..5, 1usize..5), subject in 0usize..3, service in 1u64..6,
    ) {
        let head = format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = {service}\n\
             [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
             [[resource]]\nname = \"Q\"\nkind = \"queue\"\n\
             [[resource]]\nname = \"R\"\nkind = \"register\"\n"
        );
        let subject = subject % actors.len();
        let (mut inline, mut forked) = (head.clone(), head);
        for (a, (start, count, repeat, blocks)) in actors.iter().enumerate() {
            let group = format!(
                "[[actor]]\nname = \"g{a}\"\ncount = {count}\nrepeat = {repeat}\nstart_ms = {start}\n"
            );
            let steps: Vec<&str> = blocks.iter().map(String::as_str).collect();
            inline += &format!("{group}steps = [{}]\n", steps.join(", "));
            let from = cut.0.min(steps.len() - 1);
            let to = (from + cut.1).min(steps.len());
            let wrapped = if a == subject {
                let mut all: Vec<String> = steps[..from].iter().map(|s| s.to_string()).collect();
                all.push(format!("{{ parallel = [[{}]] }}", steps[from..to].join(", ")));
                // Only where the branch can give up (the flow check refuses an `if` on an
                // outcome that can never be).
                if steps[from..to].iter().any(|s| s.contains("timeout_ms")) {
                    all.push("{ if = \"failed\", then = [{ end = \"gave_up\" }] }".into());
                }
                all.extend(steps[to..].iter().map(|s| s.to_string()));
                all.join(", ")
            } else {
                steps.join(", ")
            };
            forked += &format!("{group}steps = [{wrapped}]\n");
        }
        let (a, b) = (run_text(&inline, 0), run_text(&forked, 0));
        for (name, cell) in &b.metrics {
            match a.metrics.iter().find(|(n, _)| n == name) {
                Some((_, same)) => prop_assert_eq!(same.to_string(), cell.to_string(), "{}\n{}", name, forked),
                // What only a `parallel` declares: with one branch nothing is ever cut.
                None => prop_assert!(
                    matches!(cell.to_string().as_str(), "0" | ""),
                    "{} = {}\n{}", name, cell, forked
                ),
            }
        }
        prop_assert_eq!(a.entities.len(), b.entities.len());
        for ((entity, row), (_, other)) in a.entities.iter().zip(&b.entities) {
            for ((column, cell), (_, same)) in row.iter().zip(other) {
                prop_assert_eq!(cell.to_string(), same.to_string(), "{}.{}\n{}", entity, column, forked);
            }
        }
    }
}

/// Every cell of one run of `text`'s first point, as text (metrics, then each entity's
/// row), its timeline recorded or not.
fn every_cell(text: &str, seed: u64, lanes: bool) -> Vec<String> {
    let config = crate::harness::library_config(&crate::harness::registry(), "t.toml", text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let ctx = RunContext::new(seed, config.plan.limits).with_lanes(lanes);
    let out = config.plan.plans[0]
        .run(&ctx)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let rows = out
        .entities
        .iter()
        .flat_map(|(name, cells)| cells.iter().map(move |cell| format!("{name} {cell}")));
    out.metrics
        .iter()
        .map(|cell| cell.to_string())
        .chain(rows)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// A branch cancelled in a delay is freed at once, its delay's end taken out of the
    /// queue, unless a timeline is recorded (its lane ends at the branch's last event):
    /// both ways give the same figures, the run's end included (a lock never released is
    /// held to the run's last event, a cancelled delay's end counted as one). Random
    /// hedges of random blocks, with other actors meeting them at whole milliseconds.
    #[test]
    fn a_cancelled_delay_taken_out_of_the_queue_changes_no_figure(
        actors in proptest::collection::vec(
            (0u64..4, 1u32..3, 1u64..4, proptest::collection::vec(block(), 1..4)), 1..3),
        first in proptest::collection::vec(block(), 1..3),
        second in proptest::collection::vec(block(), 0..3),
        hedge_ms in 0u64..30, last in 0u64..200, wait_first in proptest::bool::ANY,
        keeps in proptest::bool::ANY, seed in 0u64..100,
    ) {
        let mut text = "model = \"scenario\"\n\
             [[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 3\nservice = \"exponential\"\n\
             [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
             [[resource]]\nname = \"M\"\nkind = \"lock\"\nmode = \"queue\"\n\
             [[resource]]\nname = \"Q\"\nkind = \"queue\"\n\
             [[resource]]\nname = \"R\"\nkind = \"register\"\n".to_string();
        for (a, (start, count, repeat, blocks)) in actors.iter().enumerate() {
            text += &format!(
                "[[actor]]\nname = \"g{a}\"\ncount = {count}\nrepeat = {repeat}\nstart_ms = {start}\nsteps = [{}]\n",
                blocks.join(", ")
            );
        }
        // M may be taken and kept: held until the run's last event, which may be a
        // cancelled delay's end (`last`).
        if keeps {
            text += "[[actor]]\nname = \"keeper\"\nsteps = [{ acquire = \"M\" }]\n";
        }
        let wait = if wait_first { "\"first\"" } else { "\"all\"" };
        let mut hedged = vec![format!("{{ delay_ms = {hedge_ms} }}")];
        hedged.extend(second.iter().cloned());
        text += &format!(
            "[[actor]]\nname = \"h\"\nrepeat = 3\nsteps = [{{ parallel = [[{}], [{}], [{{ delay_ms = {last} }}]], wait = {wait} }}]\n",
            first.join(", "),
            hedged.join(", ")
        );
        let (drawn, not_drawn) = (every_cell(&text, seed, true), every_cell(&text, seed, false));
        prop_assert_eq!(drawn, not_drawn, "{}", text);
    }
}

/// A branch's second request, queued when the join cancels it, waited from its own
/// arrival. `g` holds A 0–10 ms; `h` starts at 0.5: its first branch is served by C
/// 0.5–5.5, its second by B 0.5–2.5, whose request at A then queues behind `g` from 2.5
/// until the join at 5.5 cancels it. `h`'s server wait is 5.5 − 2.5 = 3 ms (the request
/// that follows a departure once left its wait's start at the branch's first request,
/// and counted 5).
#[test]
fn a_cancelled_second_request_waited_from_its_own_arrival() {
    let server = |name: &str, ms: u64| {
        format!("[[resource]]\nname = \"{name}\"\nkind = \"server\"\nservice_ms = {ms}\n")
    };
    let text = format!(
        "model = \"scenario\"\n{}{}{}\
         [[actor]]\nname = \"g\"\nsteps = [{{ request = \"A\" }}]\n\
         [[actor]]\nname = \"h\"\nstart_ms = 0.5\n\
         steps = [{{ parallel = [[{{ request = \"C\" }}], [{{ request = \"B\" }}, {{ request = \"A\" }}]], wait = \"first\" }}]\n",
        server("A", 10),
        server("B", 2),
        server("C", 5)
    );
    let run = run_text(&text, 0);
    let row = &run
        .entities
        .iter()
        .find(|(name, _)| name == "h")
        .expect("h's row")
        .1;
    let wait = row
        .iter()
        .find(|(column, _)| column == "server_wait_ms")
        .expect("a wait");
    assert_eq!(num(&wait.1), 3.0, "{text}");
}

/// A block of a plain hedge's branch: a request at one of three servers (perhaps with a
/// timeout that ends the branch or goes on, perhaps at an instance computed per job), or a
/// short delay. Nothing a job keeps rows
/// for (a register, a queue, a key store, a call) and no lock, so that a fork defers a
/// branch whose first step is a fixed delay (`DEFERRED` in the interpreter).
fn plain_block() -> impl Strategy<Value = String> {
    let server = (0usize..3).prop_map(|s| ["A", "B", "S"][s]);
    prop_oneof![
        server
            .clone()
            .prop_map(|s| format!("{{ request = \"{s}\" }}")),
        server
            .clone()
            .prop_map(|s| format!("{{ request = \"{s}\", instance = \"k + i\" }}")),
        (server, 1u64..15, proptest::bool::ANY).prop_map(|(s, t, go_on)| {
            let then = if go_on {
                ", on_timeout = { then = \"go_on\" }"
            } else {
                ""
            };
            format!("{{ request = \"{s}\", timeout_ms = {t}{then} }}")
        }),
        (0u64..5).prop_map(|d| format!("{{ delay_ms = {d} }}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    /// A branch that starts with a fixed delay, in a run that is not explored or drawn and
    /// keeps no rows or locks, gets its job only when the delay ends (a hedge cancelled in
    /// its delay then costs none): every cell comes out as when each branch is made at its
    /// fork, as a drawn timeline makes them, and as a delay written as an expression
    /// (`"d + 0 * k"`, computed per job) makes them without a timeline. Random hedges of
    /// two to four branches (`wait` first, all or two; `withdraw` or `abandon`; tied or
    /// not), other actors meeting them at the same servers at whole milliseconds. A first
    /// branch that is a lone request (no timeout, the fork untied) is made in no way at
    /// all in the plain run: its request waits in the parent's name (`INLINE`), and its
    /// cells too must be the drawn run's, where it is a job.
    #[test]
    fn a_branch_made_when_its_first_delay_ends_changes_no_figure(
        actors in proptest::collection::vec(
            (0u64..4, 1u32..3, 1u64..4, proptest::collection::vec(plain_block(), 1..4)), 0..3),
        branches in proptest::collection::vec(
            (proptest::option::of(0u64..30), proptest::collection::vec(plain_block(), 1..3)), 2..5),
        wait in 0usize..3, withdraw in proptest::bool::ANY, tied in proptest::bool::ANY,
        clients in 1u32..3, repeat in 1u64..6, seed in 0u64..100,
    ) {
        let mut text = "model = \"scenario\"\n".to_string();
        for (name, instances) in [("A", 2), ("B", 2), ("S", 1)] {
            text += &format!(
                "[[resource]]\nname = \"{name}\"\nkind = \"server\"\nservice_ms = 4\nservice = \"exponential\"\ninstances = {instances}\n"
            );
        }
        for (a, (start, count, repeat, blocks)) in actors.iter().enumerate() {
            text += &format!(
                "[[actor]]\nname = \"g{a}\"\ncount = {count}\nrepeat = {repeat}\nstart_ms = {start}\nsteps = [{}]\n",
                blocks.join(", ")
            );
        }
        let (wait, tied) = match wait {
            0 => ("\"first\"", tied),
            1 => ("\"all\"", false),
            _ => ("2", false),
        };
        let cancel = if withdraw { "withdraw" } else { "abandon" };
        let hedged = |delay: &dyn Fn(u64) -> String| {
            let list: Vec<String> = branches.iter().map(|(first, blocks)| {
                let steps: Vec<String> = first.iter().map(|&d| delay(d)).chain(blocks.iter().cloned()).collect();
                format!("[{}]", steps.join(", "))
            }).collect();
            format!(
                "[[actor]]\nname = \"h\"\ncount = {clients}\nrepeat = {repeat}\nstart_ms = \"0.5 * i\"\n\
                 steps = [{{ parallel = [{}], wait = {wait}, cancel = \"{cancel}\", tied = {tied} }}, {{ delay_ms = 1 }}]\n",
                list.join(", ")
            )
        };
        let deferred = format!("{text}{}", hedged(&|d| format!("{{ delay_ms = {d} }}")));
        let computed = format!("{text}{}", hedged(&|d| format!("{{ delay_ms = \"{d} + 0 * k\" }}")));
        let cells = every_cell(&deferred, seed, false);
        prop_assert_eq!(&cells, &every_cell(&deferred, seed, true), "{}", deferred);
        prop_assert_eq!(&cells, &every_cell(&computed, seed, false), "{}", computed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// A `parallel` of one branch is the branch: the same figures as its steps written
    /// in line (a request with a timeout that may fire, a lock held for a while).
    #[test]
    fn a_parallel_of_one_branch_is_the_branch(
        clients in 1u32..5, repeat in 1u64..20, service in 1u64..20, timeout in 1u64..40,
        hold in 0u64..10, every in 1u64..30,
    ) {
        let branch = format!(
            "{{ request = \"s\", timeout_ms = {timeout}, on_timeout = {{ then = \"go_on\" }} }}, {{ acquire = \"L\" }}, {{ delay_ms = {hold} }}, {{ release = \"L\" }}"
        );
        let head = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = {service}\n\
             [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
             [[actor]]\nname = \"c\"\ncount = {clients}\nrepeat = {repeat}\nevery_ms = {every}\nstart_ms = \"0.5 * i\"\n"
        );
        let inline = format!("{head}steps = [{branch}]\n");
        let forked = format!("{head}steps = [{{ parallel = [[{branch}]] }}]\n");
        let (a, b) = (run_text(&inline, 3), run_text(&forked, 3));
        for m in ["c.completed", "c.gave_up", "c.mean_response_ms", "c.max_response_ms", "c.timeouts", "s.requests", "s.timed_out", "s.wasted_requests", "L.mean_wait_ms", "L.max_wait_ms", "makespan_ms"] {
            prop_assert_eq!(a.metric(m).to_string(), b.metric(m).to_string(), "{}\n{}", m, forked);
        }
    }

    /// Independent fixed-service servers, one per branch, each branch a delay then a
    /// request: each repetition takes the `wait`-th smallest of delay + service (the
    /// slowest for all, the soonest for first), computed here by a sort. The branches cut
    /// short are counted cancelled at their servers.
    #[test]
    fn a_join_ends_at_the_kth_soonest_branch(
        branches in proptest::collection::vec((0u64..20, 1u64..30), 1..6),
        need in 1usize..6, repeat in 1u64..8,
    ) {
        let n = branches.len();
        let need = need.min(n);
        let mut text = "model = \"scenario\"\n".to_string();
        for (b, (_, service)) in branches.iter().enumerate() {
            text += &format!("[[resource]]\nname = \"s{b}\"\nkind = \"server\"\nservice_ms = {service}\ninstances = 64\n");
        }
        let list: Vec<String> = branches.iter().enumerate().map(|(b, (d, _))| {
            format!("[{{ delay_ms = {d} }}, {{ request = \"s{b}\", instance = \"k\" }}]")
        }).collect();
        text += &format!(
            "[[actor]]\nname = \"c\"\nrepeat = {repeat}\nsteps = [{{ parallel = [{}], wait = {need} }}]\n",
            list.join(", ")
        );
        let mut ends: Vec<u64> = branches.iter().map(|(d, s)| d + s).collect();
        ends.sort_unstable();
        let took = ends[need - 1];
        // Held to its own estimate: the branches' events are counted before it runs.
        let run = run_within_estimate(&text, 0);
        prop_assert_eq!(num(run.metric("c.mean_response_ms")), took as f64, "{}", text);
        prop_assert_eq!(num(run.metric("c.max_response_ms")), took as f64);
        prop_assert_eq!(num(run.metric("makespan_ms")), (took * repeat) as f64);
        // A branch whose request started before the join and had not ended is cancelled
        // in service, counted at its server; one ending at the join's instant may have
        // come through or been cut short (services at one instant end in turn).
        let cut = |ends_after: fn(u64, u64) -> bool| -> f64 {
            (branches.iter().filter(|(d, s)| *d < took && ends_after(d + s, took)).count() as u64 * repeat) as f64
        };
        let cancelled: f64 = (0..n).map(|b| num(run.metric(&format!("s{b}.cancelled")))).sum();
        prop_assert!(cancelled >= cut(|end, took| end > took), "{} cancelled\n{}", cancelled, text);
        prop_assert!(cancelled <= cut(|end, took| end >= took), "{} cancelled\n{}", cancelled, text);
    }

    /// Cancellation conserves requests. Every branch sends its request at once (no delay),
    /// so each server is sent one per repetition: with `withdraw`, each is served or left
    /// the queue (requests + withdrawn = sent), and each cancelled one either left or was
    /// served for nobody (cancelled = withdrawn + wasted); with `abandon` every one is
    /// served, the cancelled ones wasted.
    #[test]
    fn cancellation_conserves_requests(
        clients in 1u32..5, repeat in 1u64..60, every in 1u64..10, mean in 1u64..12,
        instances in 1u32..3, n in 2usize..4, first in proptest::bool::ANY, withdraw in proptest::bool::ANY,
        seed in 0u64..50,
    ) {
        let cancel = if withdraw { "withdraw" } else { "abandon" };
        let wait = if first { "\"first\"".to_string() } else { (n - 1).to_string() };
        let mut text = "model = \"scenario\"\n".to_string();
        for b in 0..n {
            text += &format!("[[resource]]\nname = \"s{b}\"\nkind = \"server\"\nservice_ms = {mean}\nservice = \"exponential\"\ninstances = {instances}\n");
        }
        let list: Vec<String> = (0..n).map(|b| format!("[{{ request = \"s{b}\", instance = \"i\" }}]")).collect();
        text += &format!(
            "[[actor]]\nname = \"c\"\ncount = {clients}\nrepeat = {repeat}\nevery_ms = {every}\narrivals = \"poisson\"\n\
             steps = [{{ parallel = [{}], wait = {wait}, cancel = \"{cancel}\" }}]\n",
            list.join(", ")
        );
        let run = run_within_estimate(&text, seed);
        let sent = f64::from(clients) * repeat as f64;
        prop_assert_eq!(num(run.metric("c.completed")), sent, "{}", text);
        for b in 0..n {
            let m = |k: &str| num(run.metric(&format!("s{b}.{k}")));
            if withdraw {
                prop_assert_eq!(m("requests") + m("withdrawn"), sent, "s{}\n{}", b, text);
                prop_assert_eq!(m("cancelled"), m("withdrawn") + m("wasted_requests"));
            } else {
                prop_assert_eq!(m("requests"), sent);
                prop_assert_eq!(m("withdrawn"), 0.0);
                prop_assert_eq!(m("cancelled"), m("wasted_requests"));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    /// Hedging two independent exponential replicas of mean m after d ms: the response is
    /// T = min(X₁, d + X₂), so P(T > t) = e^{−t/m} for t < d and e^{−t/m} · e^{−(t−d)/m}
    /// for t ≥ d. The p99 solves P(T > t) = 0.01: t = m ln 100 when d ≥ m ln 100 (the hedge
    /// comes too late to matter), else (m ln 100 + d) / 2. The sample's p99 over n = 40,000
    /// responses has a standard error of √(0.99 · 0.01 / n) / f(t₉₉), f the density there:
    /// f = 0.01 / m unhedged, 0.02 / m hedged, so at most 0.05 m; the test allows 5 of them.
    /// The p99 the run reports is also the nearest-rank p99 of its own per-request samples,
    /// sorted here.
    #[test]
    fn a_hedged_requests_p99_is_the_closed_form(
        mean in 2u64..20, hedge_frac in 0.0f64..1.5, seed in 0u64..1000, abandon in proptest::bool::ANY,
    ) {
        let m = mean as f64;
        let d = (hedge_frac * m * 100f64.ln() * 100.0).round() / 100.0;
        let n = 40_000u64;
        let text = hedge(m, d, n, if abandon { "abandon" } else { "withdraw" });
        let run = run_text(&text, seed);
        let tail = m * 100f64.ln();
        let expected = if d >= tail { tail } else { (tail + d) / 2.0 };
        let p99 = num(run.metric("c.p99_response_ms"));
        prop_assert!((p99 - expected).abs() < 5.0 * 0.05 * m, "p99 {} vs {} (m {}, d {})", p99, expected, m, d);
        // Nearest rank: the ⌈0.99 n⌉-th smallest.
        let mut samples = responses(&text, seed, "c.response_ms");
        prop_assert_eq!(samples.len() as u64, n);
        samples.sort_by(f64::total_cmp);
        let rank = (0.99 * n as f64).ceil() as usize;
        prop_assert!((samples[rank - 1] - p99).abs() < 1e-6, "{} vs {}", samples[rank - 1], p99);
    }
}

/// A lock never released is held to the run's last event, a timer that finds nothing
/// left to do included: here the cancelled branch's delay's end. `keeper` takes M at 0;
/// the client's first branch ends at 1, the second, cancelled then, would have woken at
/// 100, doing nothing: M is held 100 ms, though the last repetition ended at 1.
#[test]
fn a_cancelled_delay_still_ends_the_run_when_it_would_have_come() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"M\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"keeper\"\nsteps = [{ acquire = \"M\" }]\n\
        [[actor]]\nname = \"client\"\n\
        steps = [{ parallel = [[{ delay_ms = 1 }], [{ delay_ms = 100 }]], wait = \"first\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("client.mean_response_ms")), 1.0);
    assert_eq!(num(run.metric("makespan_ms")), 1.0);
    assert_eq!(num(run.metric("M.held_ms")), 100.0);
}

/// What a cancel gives back. `busy` asks S (10 ms) at 0, then holds L from 10 to 110. The
/// client starts at 1 and races S (queued behind busy), T (1 ms) and L (free at 1: taken,
/// held 1 ms). T answers at 2 (services end before delays at an instant): branch 2 wins,
/// the request at S leaves its queue and L is given back, so busy takes L at 10 as if the
/// client never had it; `winner` is 2 and the client waits 1 ms more (ends at 3, 5, 7).
#[test]
fn a_cancelled_branch_gives_back_its_lock_and_leaves_the_queue() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 10\n\
        [[resource]]\nname = \"T\"\nkind = \"server\"\nservice_ms = 1\n\
        [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"busy\"\nsteps = [{ request = \"S\" }, { acquire = \"L\" }, { delay_ms = 100 }, { release = \"L\" }]\n\
        [[actor]]\nname = \"client\"\nrepeat = 3\nstart_ms = 1\n\
        steps = [{ parallel = [[{ request = \"S\" }], [{ request = \"T\" }], [{ acquire = \"L\" }, { delay_ms = 1 }, { release = \"L\" }]], wait = \"first\" }, \
                 { if = { value = \"winner\", equals = 2 }, then = [{ delay_ms = 1 }] }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("client.completed")), 3.0);
    assert_eq!(num(run.metric("client.mean_response_ms")), 2.0);
    assert_eq!(num(run.metric("S.requests")), 1.0, "only busy's is served");
    assert_eq!(num(run.metric("S.cancelled")), 3.0);
    assert_eq!(num(run.metric("S.withdrawn")), 3.0);
    assert_eq!(
        num(run.metric("L.max_wait_ms")),
        0.0,
        "busy takes L at once at 10"
    );
    assert_eq!(num(run.metric("makespan_ms")), 110.0);
    // Abandoned instead, S serves the three for nobody after busy's: 10–20, 20–30, 30–40.
    let abandoned = run_text(
        &text.replace("wait = \"first\"", "wait = \"first\", cancel = \"abandon\""),
        0,
    );
    assert_eq!(num(abandoned.metric("S.requests")), 4.0);
    assert_eq!(num(abandoned.metric("S.withdrawn")), 0.0);
    assert_eq!(num(abandoned.metric("S.wasted_requests")), 3.0);
    assert_eq!(num(abandoned.metric("S.wasted_ms")), 30.0);
}

/// A take cancelled at a join stops waiting: the message put later goes to the one taker
/// still waiting, and none is lost. The client races a take on the empty queue Q against
/// a 5 ms delay; the delay wins at 5. The worker's take waits from 0; the producer puts
/// one message at 10: the worker takes it (the cancelled take is skipped).
#[test]
fn a_cancelled_take_stops_waiting() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"Q\"\nkind = \"queue\"\n\
        [[actor]]\nname = \"client\"\nstart_ms = 0\nsteps = [{ parallel = [[{ take = \"Q\" }], [{ delay_ms = 5 }]], wait = \"first\" }, \
           { if = { value = \"winner\", equals = 2 }, then = [{ end = \"gave_up\" }] }]\n\
        [[actor]]\nname = \"worker\"\nstart_ms = 1\nsteps = [{ take = \"Q\" }]\n\
        [[actor]]\nname = \"producer\"\nstart_ms = 10\nsteps = [{ put = \"Q\", value = 7 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("client.gave_up")), 1.0);
    assert_eq!(num(run.metric("worker.completed")), 1.0);
    assert_eq!(
        num(run.metric("worker.mean_response_ms")),
        9.0,
        "taken at 10, from 1"
    );
    assert_eq!(num(run.metric("Q.taken")), 1.0);
}

/// Too many branches fail: the join fails (outcome `failed`) as soon as the rest cannot
/// make `wait`, cancelling them. Three branches at servers of 10, 20 and 30 ms; the 20 ms
/// one times out at 15 (the 30 ms one's timeout, 100 ms, never fires: it is there so that
/// two branches may fail, and a join waiting for 2 may too). Waiting for 2: 10 and 30 come
/// through, the join ends at 30. Waiting for 3: at 15 only two can still come through, so
/// it fails then and the 30 ms request is cancelled in service (wasted); the `if` on
/// `failed` gives up.
#[test]
fn a_join_fails_once_too_many_branches_have_failed() {
    let text = |need: u32| {
        format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"A\"\nkind = \"server\"\nservice_ms = 10\n\
             [[resource]]\nname = \"B\"\nkind = \"server\"\nservice_ms = 20\n\
             [[resource]]\nname = \"C\"\nkind = \"server\"\nservice_ms = 30\n\
             [[actor]]\nname = \"c\"\n\
             steps = [{{ parallel = [[{{ request = \"C\", timeout_ms = 100 }}], [{{ request = \"A\" }}], [{{ request = \"B\", timeout_ms = 15 }}]], wait = {need} }}, \
                      {{ if = \"failed\", then = [{{ end = \"gave_up\" }}] }}, {{ delay_ms = \"winner + 10 * joined\" }}]\n"
        )
    };
    let two = run_text(&text(2), 0);
    // winner 2 (A, at 10), joined 2: a 22 ms delay after the join at 30.
    assert_eq!(num(two.metric("c.completed")), 1.0);
    assert_eq!(num(two.metric("c.mean_response_ms")), 52.0);
    assert_eq!(num(two.metric("B.timed_out")), 1.0);
    let three = run_text(&text(3), 0);
    assert_eq!(num(three.metric("c.gave_up")), 1.0);
    assert_eq!(num(three.metric("C.cancelled")), 1.0);
    assert_eq!(num(three.metric("C.wasted_requests")), 1.0);
    assert_eq!(num(three.metric("makespan_ms")), 15.0);
}

/// What a branch may not hold, and a join's options, say what would be valid.
#[test]
fn parallel_mistakes_are_refused_where_they_are_written() {
    let head = "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 1\n[[actor]]\nname = \"c\"\n";
    let e = load_error(&format!(
        "{head}steps = [{{ parallel = [[{{ stop = true }}]] }}]\n"
    ));
    assert!(
        e.contains("steps[0].parallel[0][0].stop") && e.contains("holds no `stop`"),
        "{e}"
    );
    let e = load_error(&format!(
        "{head}steps = [{{ parallel = [[{{ request = \"s\", timeout_ms = 1, on_timeout = {{ max_attempts = 2 }} }}]] }}]\n"
    ));
    assert!(e.contains("cannot start the repetition again"), "{e}");
    let e = load_error(&format!(
        "{head}steps = [{{ parallel = [[{{ request = \"s\" }}]], wait = 2 }}]\n"
    ));
    assert!(
        e.contains("steps[0].wait")
            && e.contains("how many of the 1 branches")
            && e.contains("got 2"),
        "{e}"
    );
    let e = load_error(&format!(
        "{head}steps = [{{ parallel = [[{{ request = \"s\" }}]], cancel = \"withdrew\" }}]\n"
    ));
    assert!(e.contains("cancel") && e.contains("\"withdraw\""), "{e}");
    let e = load_error(&format!("{head}steps = [{{ parallel = [] }}]\n"));
    assert!(e.contains("1 to 16 branches"), "{e}");
    let e = load_error(&format!(
        "{head}steps = [{{ parallel = [[{{ parallel = [[]] }}]] }}]\n"
    ));
    assert!(e.contains("holds no `parallel`"), "{e}");
    // An `if` on `joined` is known only after a parallel.
    let e = load_error(&format!(
        "{head}steps = [{{ request = \"s\" }}, {{ if = \"joined\", then = [] }}]\n"
    ));
    assert!(e.contains("can never be the outcome here"), "{e}");
    let _ = run_error;
}

/// Tied requests: the copies cancel each other when one starts its service. A is busy
/// 0–10 with `load`'s request; the client at 1 asks A and B (10 ms each, B idle). B starts
/// at once, so with `tied` A's copy leaves A's queue at 1 (withdrawn, no work wasted). Not
/// tied, A's copy is still queued when A frees at 10, starts, and is cancelled in service
/// at 11 when B answers: 10 ms of A's work for nobody. The client takes 10 ms either way.
#[test]
fn tied_requests_cancel_the_other_copy_when_one_starts() {
    let text = |tied: &str| {
        format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"A\"\nkind = \"server\"\nservice_ms = 10\n\
             [[resource]]\nname = \"B\"\nkind = \"server\"\nservice_ms = 10\n\
             [[actor]]\nname = \"load\"\nsteps = [{{ request = \"A\" }}]\n\
             [[actor]]\nname = \"client\"\nstart_ms = 1\n\
             steps = [{{ parallel = [[{{ request = \"A\" }}], [{{ request = \"B\" }}]], wait = \"first\"{tied} }}]\n"
        )
    };
    let tied = run_text(&text(", tied = true"), 0);
    assert_eq!(num(tied.metric("client.mean_response_ms")), 10.0);
    assert_eq!(num(tied.metric("A.requests")), 1.0);
    assert_eq!(num(tied.metric("A.withdrawn")), 1.0);
    assert_eq!(num(tied.metric("A.wasted_ms")), 0.0);
    let untied = run_text(&text(""), 0);
    assert_eq!(num(untied.metric("client.mean_response_ms")), 10.0);
    assert_eq!(num(untied.metric("A.requests")), 2.0);
    assert_eq!(num(untied.metric("A.wasted_requests")), 1.0);
    assert_eq!(num(untied.metric("A.wasted_ms")), 10.0);
    // Only one tied branch can come through: a wait for more is refused.
    let e = load_error(&text(", tied = true").replace("wait = \"first\"", "wait = 2"));
    assert!(
        e.contains("steps[0].tied") && e.contains("only one can come through"),
        "{e}"
    );
}

/// A lock wait that a join cancels is a wait given up, as a timeout's is. `h` holds queue
/// lock L from 0 to 8; `x` (start 1) asks for L in one branch and waits 3 ms in the other,
/// which wins at 4: its lock wait (1 → 4) is cancelled. `y` (start 2) gets L at 8 (a wait of
/// 6). Three waits: h's 0, x's 3, y's 6: L.total_wait_ms 9, L.mean_wait_ms 3, one given up
/// after 3 ms; x's own lock_wait_ms 3.
#[test]
fn a_lock_wait_cancelled_at_a_join_is_counted_as_given_up() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"h\"\nsteps = [{ acquire = \"L\" }, { delay_ms = 8 }, { release = \"L\" }]\n\
        [[actor]]\nname = \"x\"\nstart_ms = 1\nsteps = [{ parallel = [[{ acquire = \"L\" }, { release = \"L\" }], [{ delay_ms = 3 }]], wait = \"first\" }]\n\
        [[actor]]\nname = \"y\"\nstart_ms = 2\nsteps = [{ acquire = \"L\" }, { delay_ms = 1 }, { release = \"L\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("L.total_wait_ms")), 9.0);
    assert_eq!(num(run.metric("L.mean_wait_ms")), 3.0);
    assert_eq!(num(run.metric("L.gave_up")), 1.0);
    assert_eq!(num(run.metric("L.gave_up_wait_ms")), 3.0);
    assert_eq!(num(run.metric("L.acquisitions")), 2.0);
    assert_eq!(num(run.entity("x", "lock_wait_ms")), 3.0);
    assert_eq!(num(run.entity("y", "lock_wait_ms")), 6.0);
}

/// A queued request that a join withdraws counts its queueing in its actor's
/// `server_wait_ms`, as a timed-out one does. S serves in 5, T in 12. c-0 (start 0) is served
/// by S at once (0 → 5) and asks T at 2 (served 2 → 14, its branch cancelled at 5). c-1
/// (start 1) waits for S 1 → 5 (4 ms) and is served 5 → 10; its T copy, asked at 3, waits
/// behind c-0's until the join at 10 withdraws it (7 ms). c-1's server_wait_ms: 4 + 7 = 11;
/// c-0's: 0 (both of its requests started at once).
#[test]
fn a_request_withdrawn_at_a_join_counts_its_queueing() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 5\n\
        [[resource]]\nname = \"T\"\nkind = \"server\"\nservice_ms = 12\n\
        [[actor]]\nname = \"c\"\ncount = 2\nstart_ms = [0, 1]\n\
        steps = [{ parallel = [[{ request = \"S\" }], [{ delay_ms = 2 }, { request = \"T\" }]], wait = \"first\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.entity("c-1", "server_wait_ms")), 11.0);
    assert_eq!(num(run.entity("c-0", "server_wait_ms")), 0.0);
    assert_eq!(num(run.metric("T.withdrawn")), 1.0);
    assert_eq!(num(run.metric("T.wasted_requests")), 1.0);
}
