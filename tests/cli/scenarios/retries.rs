//! Requests that time out and retry: at a FIFO server against a small event-by-event
//! reference, with a backoff and a jitter from the actor's own stream, counted in the
//! estimate before anything runs, and a request served at once that waited nothing though
//! its client left.

use super::{num, run_text};

/// A small event-by-event reference for clients that time out at a FIFO server and retry:
/// events ordered by (time, class, sequence), as the engine orders them (a departure in
/// class 0, a client's start in 1 + i, timeouts and retries in the last class, as
/// scheduled). Each client runs `repeat` requests back to back; a request waits `timeout`
/// ms, then the client retries after `backoff` ms (at most `attempts` tries) or gives up.
/// The server serves every request it got, whether or not its client still waits.
mod storm_reference {
    use std::cmp::Reverse;
    use std::collections::{BinaryHeap, VecDeque};

    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum Ev {
        Depart,
        Begin(usize),
        Timeout(usize),
    }

    /// What the reference counts.
    #[derive(Debug, Default, PartialEq)]
    pub(super) struct Counts {
        pub served: u64,
        pub wasted: u64,
        pub completed: u64,
        pub gave_up: u64,
        pub timeouts: u64,
        pub retries: u64,
        pub last_end: u64,
    }

    struct Client {
        rep: u64,
        attempt: u64,
        /// The generation of its current request (0: none waited for).
        waiting: u64,
        deadline: u64,
    }

    pub(super) struct Params {
        pub starts: Vec<u64>,
        pub service: u64,
        pub timeout: u64,
        pub backoff: u64,
        pub attempts: u64,
        pub repeat: u64,
    }

    pub(super) fn run(p: &Params) -> Counts {
        let n = p.starts.len();
        let other = 1 + n as u64;
        let mut heap: BinaryHeap<Reverse<(u64, u64, u64, Ev)>> = BinaryHeap::new();
        let mut seq = 0u64;
        let mut push = |heap: &mut BinaryHeap<_>, t: u64, class: u64, ev: Ev| {
            seq += 1;
            heap.push(Reverse((t, class, seq, ev)));
        };
        for (i, s) in p.starts.iter().enumerate() {
            push(&mut heap, *s, 1 + i as u64, Ev::Begin(i));
        }
        let mut clients: Vec<Client> = (0..n)
            .map(|_| Client {
                rep: 0,
                attempt: 1,
                waiting: 0,
                deadline: u64::MAX,
            })
            .collect();
        let mut generation = 0u64;
        // The server: the request in service (client, generation) and the queue.
        let mut busy: Option<(usize, u64)> = None;
        let mut queue: VecDeque<(usize, u64)> = VecDeque::new();
        let mut c = Counts::default();
        while let Some(Reverse((now, _, _, ev))) = heap.pop() {
            // A client sends its request now: its timeout first, then its arrival.
            let mut send =
                |i: usize,
                 heap: &mut BinaryHeap<_>,
                 clients: &mut Vec<Client>,
                 busy: &mut Option<(usize, u64)>,
                 queue: &mut VecDeque<(usize, u64)>,
                 push: &mut dyn FnMut(&mut BinaryHeap<_>, u64, u64, Ev)| {
                    generation += 1;
                    clients[i].waiting = generation;
                    clients[i].deadline = now + p.timeout;
                    push(heap, now + p.timeout, other, Ev::Timeout(i));
                    if busy.is_none() {
                        *busy = Some((i, generation));
                        push(heap, now + p.service, 0, Ev::Depart);
                    } else {
                        queue.push_back((i, generation));
                    }
                };
            // A repetition ended at `now`: the next starts at once, or the client is done.
            let end = |i: usize, clients: &mut Vec<Client>, c: &mut Counts| -> bool {
                c.last_end = now;
                clients[i].rep += 1;
                clients[i].attempt = 1;
                clients[i].waiting = 0;
                clients[i].rep < p.repeat
            };
            match ev {
                Ev::Begin(i) => send(i, &mut heap, &mut clients, &mut busy, &mut queue, &mut push),
                Ev::Depart => {
                    let (i, g) = busy.take().expect("a departure from a busy server");
                    c.served += 1;
                    if let Some(next) = queue.pop_front() {
                        busy = Some(next);
                        push(&mut heap, now + p.service, 0, Ev::Depart);
                    }
                    if clients[i].waiting == g {
                        c.completed += 1;
                        if end(i, &mut clients, &mut c) {
                            send(i, &mut heap, &mut clients, &mut busy, &mut queue, &mut push);
                        }
                    } else {
                        c.wasted += 1;
                    }
                }
                Ev::Timeout(i) => {
                    let cl = &mut clients[i];
                    if cl.deadline != now || cl.waiting == 0 {
                        continue;
                    }
                    cl.waiting = 0;
                    cl.deadline = u64::MAX;
                    c.timeouts += 1;
                    if cl.attempt < p.attempts {
                        cl.attempt += 1;
                        c.retries += 1;
                        push(&mut heap, now + p.backoff, other, Ev::Begin(i));
                    } else {
                        c.gave_up += 1;
                        if end(i, &mut clients, &mut c) {
                            send(i, &mut heap, &mut clients, &mut busy, &mut queue, &mut push);
                        }
                    }
                }
            }
        }
        c
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 128, .. proptest::prelude::ProptestConfig::default() })]

    /// Requests with a timeout and retries at a FIFO server equal the reference above:
    /// what the server serves and wastes, what the clients complete, time out, retry and
    /// give up, and when the last repetition ends.
    #[test]
    fn timeouts_and_retries_at_a_server_equal_a_reference(
        starts in proptest::collection::vec(0u64..30, 1..7),
        service in 1u64..15, timeout in 1u64..60, backoff in 0u64..30,
        attempts in 1u64..4, repeat in 1u64..3,
    ) {
        let p = storm_reference::Params { starts: starts.clone(), service, timeout, backoff, attempts, repeat };
        let r = storm_reference::run(&p);
        let list = starts.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"server\"\nkind = \"server\"\nservice_ms = {service}\n\
             [[actor]]\nname = \"client\"\ncount = {}\nstart_ms = [{list}]\nrepeat = {repeat}\n\
             steps = [{{ request = \"server\", timeout_ms = {timeout}, on_timeout = {{ then = \"retry\", max_attempts = {attempts}, backoff_ms = {backoff} }} }}]\n",
            starts.len()
        );
        let s = run_text(&text, 0);
        let first = *starts.iter().min().unwrap();
        proptest::prop_assert_eq!(num(s.metric("server.requests")), r.served as f64, "{}", text);
        proptest::prop_assert_eq!(num(s.metric("server.wasted_requests")), r.wasted as f64);
        proptest::prop_assert_eq!(num(s.metric("server.wasted_ms")), (r.wasted * service) as f64);
        proptest::prop_assert_eq!(num(s.metric("server.timed_out")), r.timeouts as f64);
        proptest::prop_assert_eq!(num(s.metric("client.completed")), r.completed as f64);
        proptest::prop_assert_eq!(num(s.metric("client.gave_up")), r.gave_up as f64);
        proptest::prop_assert_eq!(num(s.metric("client.timeouts")), r.timeouts as f64);
        proptest::prop_assert_eq!(num(s.metric("client.retries")), r.retries as f64);
        proptest::prop_assert_eq!(num(s.metric("makespan_ms")), (r.last_end - first) as f64);
        // Every request is served once: the useful ones and the wasted ones.
        proptest::prop_assert_eq!(r.served, r.completed + r.wasted);
    }

    /// A retry waits its backoff plus a jitter drawn in [0, jitter) from the actor's stream
    /// `jitter/NAME-i`: with a server slower than the timeout every attempt times out, so
    /// actor i's attempts start at t₁ = 0, t_{k+1} = t_k + timeout + backoff + jitter · u_k
    /// (u_k its stream's uniform draws), and it gives up at t_M + timeout.
    #[test]
    fn a_retry_waits_its_backoff_and_a_jitter_from_its_own_stream(
        seed in 0u64..1000, actors in 1u32..4, timeout in 1u64..20, backoff in 0u64..20,
        jitter in 1u64..50, attempts in 1u64..5,
    ) {
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"slow\"\nkind = \"server\"\nservice_ms = 1000\n\
             [[actor]]\nname = \"client\"\ncount = {actors}\n\
             steps = [{{ request = \"slow\", timeout_ms = {timeout}, on_timeout = {{ max_attempts = {attempts}, backoff_ms = {backoff}, jitter_ms = {jitter} }} }}]\n"
        );
        let s = run_text(&text, seed);
        for i in 0..actors {
            let mut rng = sim_core::stream(seed, &format!("jitter/client-{i}"));
            let mut t = 0.0f64;
            for _ in 1..attempts {
                t += timeout as f64 + backoff as f64 + jitter as f64 * sim_core::unit(&mut rng);
                // The engine keeps whole nanoseconds: each retry instant rounds to one.
                t = sim_core::ns_to_ms(sim_core::ms_to_ns(t).unwrap());
            }
            // An actor alone is called by its group's name; its stream is still `client-0`.
            let name = if actors == 1 { "client".to_string() } else { format!("client-{i}") };
            let end = num(s.entity(&name, "end_ms"));
            proptest::prop_assert!((end - (t + timeout as f64)).abs() < 1e-6, "client-{}: {} vs {}", i, end, t + timeout as f64);
        }
        proptest::prop_assert_eq!(num(s.metric("client.gave_up")), actors as f64);
        proptest::prop_assert_eq!(num(s.metric("client.retries")), (actors as u64 * (attempts - 1)) as f64);
    }
}

/// Every retry counts in the estimate before anything runs: 1,000 clients × 1,000 requests
/// are 10^6 repetitions of 4 events at most each (a start, the request, its departure, its
/// timeout), well inside the default billion events; with up to 1,000 attempts each, 4 × 10^9
/// events (and a sample per attempt), refused at load.
#[test]
fn retries_count_in_the_estimate_before_anything_runs() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 1\n\
        [[actor]]\nname = \"c\"\ncount = 1000\nrepeat = 1000\nsteps = [{ request = \"s\", timeout_ms = 5, on_timeout = { max_attempts = 1 } }]\n";
    assert!(crate::harness::library_config(&crate::harness::registry(), "t.toml", text).is_ok());
    let many = text.replace("max_attempts = 1", "max_attempts = 1000");
    let Err(e) = crate::harness::library_config(&crate::harness::registry(), "t.toml", &many)
    else {
        panic!("a thousand attempts a repetition were not counted");
    };
    assert!(
        e.message.contains("max_events") || e.message.contains("max_memory_mb"),
        "{e}"
    );
}

/// A request whose service starts at once waited 0 ms, even when its client gives up during
/// the service: one client, a 40 ms service, a 10 ms timeout that ends the repetition.
#[test]
fn a_request_served_at_once_waited_nothing_even_if_its_client_left() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 40\n[[actor]]\nname = \"c\"\nsteps = [{ request = \"S\", timeout_ms = 10, on_timeout = { then = \"end\" } }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("c.gave_up")), 1.0);
    assert_eq!(num(run.entity("c", "server_wait_ms")), 0.0);
}
