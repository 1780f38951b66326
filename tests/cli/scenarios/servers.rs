//! Servers: a group of one-request repetitions reads its responses off the server, a
//! server down in a window starts nothing in it, and one that fails fast refuses while down.

use super::{num, run_text};

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, .. proptest::prelude::ProptestConfig::default() })]

    /// A group whose repetitions are one request at a fixed-service server reads its
    /// response times off the server's waits (each plus the service), and in an open loop
    /// runs with no job per request: the same figures and rows as the same group with a
    /// 0 ms delay after the request, which keeps its own responses and jobs.
    #[test]
    fn a_one_request_group_reports_the_responses_it_would_record(
        clients in 1u32..6, repeat in 1u64..60, every in 1u64..20, service in 1u64..30,
        poisson in proptest::bool::ANY, seed in 0u64..100,
    ) {
        let arrivals = if poisson { "poisson" } else { "schedule" };
        let service = if poisson { format!("{service}\nservice = \"exponential\"") } else { service.to_string() };
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = {service}\n\
             [[actor]]\nname = \"c\"\ncount = {clients}\nrepeat = {repeat}\nevery_ms = {every}\narrivals = \"{arrivals}\"\nstart_ms = \"1.5 * i\"\n\
             steps = [{{ request = \"s\" }}]\n"
        );
        let own = text.replace("steps = [{ request = \"s\" }]", "steps = [{ request = \"s\" }, { delay_ms = 0 }]");
        let (a, b) = (run_text(&text, seed), run_text(&own, seed));
        for m in ["c.mean_response_ms", "c.p95_response_ms", "c.max_response_ms", "mean_response_ms", "max_response_ms", "c.completed", "c.started", "s.mean_wait_ms", "s.max_queue_len", "makespan_ms"] {
            proptest::prop_assert_eq!(a.metric(m).to_string(), b.metric(m).to_string(), "{}", m);
        }
        // Its requests need no job (an open loop: the departure ends the repetition): the
        // same rows as the group that keeps one.
        proptest::prop_assert_eq!(&a.entities, &b.entities);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 128, .. proptest::prelude::ProptestConfig::default() })]

    /// A server down in a window starts no service in it (a service under way finishes):
    /// FIFO, request i starts at max(its arrival, the previous end), moved to the window's
    /// end when that falls in [from, to). Its edges run first at their instants.
    #[test]
    fn a_server_down_in_a_window_starts_nothing_in_it(
        every in 1u64..20, count in 1u64..30, service in 1u64..25, from in 0u64..200, len in 1u64..100,
    ) {
        let to = from + len;
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = {service}\ndown = [[{from}, {to}]]\n\
             [[actor]]\nname = \"c\"\nrepeat = {count}\nevery_ms = {every}\nsteps = [{{ request = \"s\" }}]\n"
        );
        let s = run_text(&text, 0);
        let (mut end, mut waits) = (0u64, Vec::new());
        for i in 0..count {
            let arrival = i * every;
            let mut start = arrival.max(end);
            if (from..to).contains(&start) {
                start = to;
            }
            end = start + service;
            waits.push(start - arrival);
        }
        let mean = waits.iter().sum::<u64>() as f64 / count as f64;
        proptest::prop_assert!((num(s.metric("s.mean_wait_ms")) - mean).abs() < 1e-9, "{}", text);
        proptest::prop_assert_eq!(num(s.metric("s.max_wait_ms")), *waits.iter().max().unwrap() as f64);
        proptest::prop_assert_eq!(num(s.metric("makespan_ms")), end as f64);
    }
}

/// Failing fast: a request that arrives while the server is down is refused at once, and
/// its timeout's steps run (here a retry 40 ms later). Service 10 ms, down 5 → 50: a at 0
/// is served 0–10; b at 20 is refused, retries at 60 and is served 60–70 (it took 50 ms).
/// Without a timeout, b goes on (outcome `refused`) and its `if` writes 2.
#[test]
fn a_server_that_fails_fast_refuses_while_down() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 10\ndown = [[5, 50]]\nwhen_down = \"fail\"\n\
        [[actor]]\nname = \"a\"\nsteps = [{ request = \"s\" }]\n\
        [[actor]]\nname = \"b\"\nstart_ms = 20\nsteps = [{ request = \"s\", timeout_ms = 100, on_timeout = { max_attempts = 2, backoff_ms = 40 } }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("s.refused")), 1.0);
    assert_eq!(num(run.metric("s.requests")), 2.0);
    assert_eq!(num(run.entity("b", "end_ms")), 70.0);
    assert_eq!(num(run.metric("b.retries")), 1.0);
    let bare = text.replace(
        "steps = [{ request = \"s\", timeout_ms = 100, on_timeout = { max_attempts = 2, backoff_ms = 40 } }]",
        "steps = [{ request = \"s\" }, { if = \"refused\", then = [{ write = \"r\", value = 2 }] }]",
    ) .replace("[[actor]]\nname = \"a\"", "[[resource]]\nname = \"r\"\nkind = \"register\"\n[[actor]]\nname = \"a\"");
    let run = run_text(&bare, 0);
    assert_eq!(num(run.metric("r.value")), 2.0);
    assert_eq!(num(run.entity("b", "end_ms")), 20.0);
    // Windows out of order are refused where they are written.
    let bad = text.replace("down = [[5, 50]]", "down = [[5, 50], [40, 60]]");
    let Err(e) = crate::harness::library_config(&crate::harness::registry(), "t.toml", &bad) else {
        panic!("overlapping windows accepted");
    };
    assert!(
        e.to_string().contains("t.toml:6:8:") && e.to_string().contains("not overlapping"),
        "{e}"
    );
}

/// Nearest rank, as the contract defines a percentile: the ⌈p/100 · n⌉-th smallest.
fn nearest_rank(sorted: &[u64], p: f64) -> u64 {
    let rank = ((p / 100.0 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// A group's response percentiles against an independent FIFO recursion: actors
    /// arriving at random whole-ms instants, one request each to a server of fixed
    /// service s; sorted by arrival, departure_k = max(arrival_k, departure_{k−1}) + s and
    /// the response is departure − arrival (arrivals at one instant swap responses among
    /// themselves, not the multiset). Through the server's waits (a one-request group is
    /// read from them) and through the group's own samples (a zero delay after the
    /// request makes it keep its own).
    #[test]
    fn group_percentiles_are_the_nearest_ranks_of_the_responses(
        starts in proptest::collection::vec(0u64..400, 1..120),
        service in 1u64..20,
        own in proptest::bool::ANY,
    ) {
        let steps = if own {
            r#"[{ request = "s" }, { delay_ms = 0 }]"#
        } else {
            r#"[{ request = "s" }]"#
        };
        let list: Vec<String> = starts.iter().map(u64::to_string).collect();
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = {service}\n[[actor]]\nname = \"c\"\ncount = {}\nstart_ms = [{}]\nsteps = {steps}\n",
            starts.len(),
            list.join(", ")
        );
        let mut arrivals = starts.clone();
        arrivals.sort_unstable();
        let mut free = 0;
        let mut responses: Vec<u64> = arrivals
            .iter()
            .map(|&a| {
                free = free.max(a) + service;
                free - a
            })
            .collect();
        responses.sort_unstable();
        let run = super::run_text(&text, 0);
        for (name, p) in [("p50", 50.0), ("p95", 95.0), ("p99", 99.0), ("p999", 99.9)] {
            let got = super::num(run.metric(&format!("c.{name}_response_ms")));
            proptest::prop_assert_eq!(got, nearest_rank(&responses, p) as f64, "{} of {:?}", name, responses);
        }
        let max = super::num(run.metric("c.max_response_ms"));
        proptest::prop_assert_eq!(max, *responses.last().unwrap() as f64);
        let p999 = super::num(run.metric("s.p999_wait_ms"));
        proptest::prop_assert_eq!(p999, (nearest_rank(&responses, 99.9) - service) as f64);
    }
}

/// An `on_timeout` with no `timeout_ms`, at a server that fails fast, runs only on a
/// refusal, and a refused request never reaches the queue: nothing can time out or be
/// wasted, so `S.timed_out`, `S.wasted_requests`, `S.wasted_ms` and `c.timeouts` are not
/// written (they would always be 0). Three clients ask at 0, 60 and 120; S (5 ms) is down
/// from 0 to 100 and fails fast: the first two are refused (the `if` inserts their keys,
/// total 2), the third is served. With `timeout_ms = 3` the columns are written: the third
/// leaves at 123, and S serves it to 125 for nobody — one timeout, one wasted request of
/// 5 ms.
#[test]
fn an_on_timeout_alone_writes_no_timeout_columns() {
    let text = r#"model = "scenario"
[[resource]]
name = "S"
kind = "server"
service_ms = 5
down = [[0, 100]]
when_down = "fail"
[[resource]]
name = "flag"
kind = "keys"
[[actor]]
name = "c"
count = 3
start_ms = "60 * i"
steps = [
  { request = "S", on_timeout = { then = "go_on" } },
  { if = "refused", then = [{ insert = "flag", key = "i", value = 1 }] },
]
"#;
    let columns = [
        "S.timed_out",
        "S.wasted_requests",
        "S.wasted_ms",
        "c.timeouts",
    ];
    let run = run_text(text, 0);
    for column in columns {
        assert!(
            run.metrics.iter().all(|(name, _)| name != column),
            "{column} is written"
        );
    }
    assert_eq!(num(run.metric("S.refused")), 2.0);
    assert_eq!(num(run.metric("S.requests")), 1.0);
    assert_eq!(num(run.metric("flag.total")), 2.0);
    assert_eq!(num(run.metric("c.completed")), 3.0);
    let timed = text.replace("{ request = \"S\",", "{ request = \"S\", timeout_ms = 3,");
    let run = run_text(&timed, 0);
    assert_eq!(num(run.metric("S.refused")), 2.0);
    assert_eq!(num(run.metric("S.timed_out")), 1.0);
    assert_eq!(num(run.metric("S.wasted_requests")), 1.0);
    assert_eq!(num(run.metric("S.wasted_ms")), 5.0);
    assert_eq!(num(run.metric("c.timeouts")), 1.0);
    assert_eq!(num(run.metric("flag.total")), 2.0);
}
