//! Scenarios that fail and recover (issue 21): waits that end in a give-up, timeouts with
//! their steps and retries, branches, faults and leases, resources chosen by a parameter.
//! Each figure is derived by hand in a comment, or by a small reference written here.

use super::{num, run_text};

/// A wait that ends in a give-up is a wait, and a lock never released is held to the end.
/// `a` takes the queue lock L at 0 and never releases it; `b` asks at 10 and gives up at
/// 10 + 100 = 110, the run's last event. By hand: L held 0 → 110 = 110 ms; waits 0 (a) and
/// 100 (b): total 100, given up 100, mean 50; b's lock_wait_ms 100, a's 0.
#[test]
fn a_given_up_wait_counts_and_a_lock_never_released_is_held_to_the_end() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"a\"\nsteps = [{ acquire = \"L\" }]\n\
        [[actor]]\nname = \"b\"\nstart_ms = 10\nsteps = [{ acquire = \"L\", give_up_after_ms = 100 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("L.held_ms")), 110.0);
    assert_eq!(num(run.metric("L.total_wait_ms")), 100.0);
    assert_eq!(num(run.metric("L.gave_up_wait_ms")), 100.0);
    assert_eq!(num(run.metric("L.mean_wait_ms")), 50.0);
    assert_eq!(num(run.metric("L.gave_up")), 1.0);
    assert_eq!(num(run.entity("b", "lock_wait_ms")), 100.0);
    assert_eq!(num(run.entity("a", "lock_wait_ms")), 0.0);
    // Polled every 30 ms instead: b fails at 10, 40, 70, 100 and at 130 (> 110) gives up,
    // 120 ms after asking; the run ends at 130 with a still holding: held 130 ms.
    let polled = text.replace("mode = \"queue\"", "mode = \"poll\"\npoll_ms = 30");
    let run = run_text(&polled, 0);
    assert_eq!(num(run.metric("L.gave_up_wait_ms")), 120.0);
    assert_eq!(num(run.metric("L.held_ms")), 130.0);
    assert_eq!(num(run.metric("L.failed_attempts")), 5.0);
    assert_eq!(num(run.entity("b", "lock_wait_ms")), 120.0);
}

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
    pub struct Counts {
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

    pub struct Params {
        pub starts: Vec<u64>,
        pub service: u64,
        pub timeout: u64,
        pub backoff: u64,
        pub attempts: u64,
        pub repeat: u64,
    }

    pub fn run(p: &Params) -> Counts {
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

    /// `if = { chance = p }` draws from the actor's stream `chance/NAME-i`: a repetition
    /// takes 1 ms when the draw is below p, else 2 ms, so the actor ends at the sum.
    #[test]
    fn a_chance_draws_from_the_actors_own_stream(seed in 0u64..1000, p in 0.0f64..1.0, repeat in 1u64..40) {
        let text = format!(
            "model = \"scenario\"\n[[actor]]\nname = \"a\"\nrepeat = {repeat}\n\
             steps = [{{ if = {{ chance = {p} }}, then = [{{ delay_ms = 1 }}], else = [{{ delay_ms = 2 }}] }}]\n"
        );
        let s = run_text(&text, seed);
        let mut rng = sim_core::stream(seed, "chance/a-0");
        let expected: f64 = (0..repeat).map(|_| if sim_core::unit(&mut rng) < p { 1.0 } else { 2.0 }).sum();
        proptest::prop_assert_eq!(num(s.entity("a", "end_ms")), expected);
    }

    /// A lossy link loses a crossing when its stream `loss/NAME` draws below the loss: a
    /// lost crossing ends in its timeout (50 ms, then the next step), a delivered one
    /// after half the round trip (3 ms).
    #[test]
    fn a_lossy_link_loses_crossings_by_its_own_stream(seed in 0u64..1000, loss in 0.0f64..1.0, repeat in 1u64..40) {
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 6\nloss = {loss}\n\
             [[actor]]\nname = \"a\"\nrepeat = {repeat}\n\
             steps = [{{ send = \"net\", timeout_ms = 50, on_timeout = {{ then = \"go_on\" }} }}]\n"
        );
        let s = run_text(&text, seed);
        let mut rng = sim_core::stream(seed, "loss/net");
        let lost: Vec<bool> = (0..repeat).map(|_| sim_core::unit(&mut rng) < loss).collect();
        let n_lost = lost.iter().filter(|l| **l).count() as f64;
        let end: f64 = lost.iter().map(|l| if *l { 50.0 } else { 3.0 }).sum();
        proptest::prop_assert_eq!(num(s.metric("net.lost")), n_lost);
        proptest::prop_assert_eq!(num(s.metric("net.crossings")), repeat as f64);
        proptest::prop_assert_eq!(num(s.metric("a.timeouts")), n_lost);
        proptest::prop_assert_eq!(num(s.entity("a", "end_ms")), end);
    }

    /// A queue lock waited for with a timeout that goes on, then a branch on the outcome:
    /// `h` holds L from 0 for `hold` ms; `w` asks at 0 with a timeout of `timeout` ms. At
    /// hold = timeout the release runs first (scheduled at 0, before the timeout), so w
    /// acquires iff hold ≤ timeout, and writes 1, else it times out at `timeout` and
    /// writes 2. Its wait: min(hold, timeout); given up only past the timeout.
    #[test]
    fn a_timeout_that_goes_on_and_a_branch_on_its_outcome_agree_with_the_closed_form(
        hold in 0u64..50, timeout in 0u64..50,
    ) {
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
             [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
             [[actor]]\nname = \"h\"\nsteps = [{{ acquire = \"L\" }}, {{ delay_ms = {hold} }}, {{ release = \"L\" }}]\n\
             [[actor]]\nname = \"w\"\nsteps = [{{ acquire = \"L\", timeout_ms = {timeout}, on_timeout = {{ then = \"go_on\" }} }}, \
             {{ if = \"acquired\", then = [{{ write = \"r\", value = 1 }}, {{ release = \"L\" }}], else = [{{ write = \"r\", value = 2 }}] }}]\n"
        );
        let s = run_text(&text, 0);
        let acquired = hold <= timeout;
        proptest::prop_assert_eq!(num(s.metric("r.value")), if acquired { 1.0 } else { 2.0 });
        proptest::prop_assert_eq!(num(s.metric("L.gave_up")), if acquired { 0.0 } else { 1.0 });
        proptest::prop_assert_eq!(num(s.metric("L.gave_up_wait_ms")), if acquired { 0.0 } else { timeout as f64 });
        proptest::prop_assert_eq!(num(s.entity("w", "lock_wait_ms")), hold.min(timeout) as f64);
        proptest::prop_assert_eq!(num(s.entity("w", "end_ms")), hold.min(timeout) as f64);
        proptest::prop_assert_eq!(num(s.metric("L.acquisitions")), if acquired { 2.0 } else { 1.0 });
    }

    /// A lease renewed within its term is kept, after it is lost: `a` takes the 100 ms
    /// lease at 0, works `d` ms and renews; it writes 1 when renewed, else 2.
    #[test]
    fn a_renewal_succeeds_exactly_within_the_lease(d in 50u64..150) {
        let text = format!(
            "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
             [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"lease\"\nlease_ms = 100\npoll_ms = 10\n\
             [[actor]]\nname = \"a\"\nsteps = [{{ acquire = \"L\" }}, {{ pause_ms = {d} }}, {{ renew = \"L\" }}, \
             {{ if = {{ outcome = \"renewed\" }}, then = [{{ write = \"r\", value = 1 }}], else = [{{ write = \"r\", value = 2 }}] }}, {{ release = \"L\" }}]\n\
             [[actor]]\nname = \"b\"\nstart_ms = 1\nsteps = [{{ acquire = \"L\" }}, {{ release = \"L\" }}]\n"
        );
        let s = run_text(&text, 0);
        proptest::prop_assert_eq!(num(s.metric("r.value")), if d <= 100 { 1.0 } else { 2.0 });
        // Past 100 ms b takes the lease over at its first poll after it (b polls at 1, 11,
        // …, 101): two holders then, one while renewed.
        proptest::prop_assert_eq!(num(s.metric("L.max_holders")), if d > 101 { 2.0 } else { 1.0 });
    }
}

/// A lock chosen per actor by an expression: actors 0, 1, 2, 3 of `w` take
/// `one_of = ["A", "B", "C"]` at `min(i, 2)`: A, B, C, C, each for 10 ms from 0. By hand:
/// A and B once with no wait; C twice, the second waiting 10 ms.
#[test]
fn a_lock_chosen_by_an_expression_is_the_actors_own() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"A\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[resource]]\nname = \"B\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[resource]]\nname = \"C\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"w\"\ncount = 4\nsteps = [{ acquire = { one_of = [\"A\", \"B\", \"C\"], index = \"min(i, 2)\" } }, { delay_ms = 10 }, { release = { one_of = [\"A\", \"B\", \"C\"], index = \"min(i, 2)\" } }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("A.acquisitions")), 1.0);
    assert_eq!(num(run.metric("B.acquisitions")), 1.0);
    assert_eq!(num(run.metric("C.acquisitions")), 2.0);
    assert_eq!(num(run.metric("C.total_wait_ms")), 10.0);
    assert_eq!(num(run.metric("makespan_ms")), 20.0);
    // An index past the list stops the run, naming the actor and the list.
    let bad = text.replace("min(i, 2)", "i");
    let config =
        crate::harness::library_config(&crate::harness::registry(), "t.toml", &bad).expect("loads");
    let err = config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, config.plan.limits))
        .expect_err("index 3 of a list of 3");
    assert!(
        err.to_string()
            .contains("actor 3 of `w`: a `one_of` index is 3"),
        "{err}"
    );
}

/// A crash followed by a restart: each repetition works 10 ms and crashes; the actor comes
/// back 5 ms later with its next one. Repetitions at 0, 15, 30 crash at 10, 25, 40: three
/// crashes, but only two restarts — at the third nothing is left to run, so the actor stays
/// down (nothing is counted or drawn past the run's end at 40); none completed.
#[test]
fn a_crash_with_a_restart_loses_the_repetition_and_starts_the_next() {
    let text = "model = \"scenario\"\n[[actor]]\nname = \"a\"\nrepeat = 3\nsteps = [{ delay_ms = 10 }, { crash = \"all\", restart_after_ms = 5 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("a.restarts")), 2.0);
    assert_eq!(num(run.metric("a.started")), 3.0);
    assert_eq!(num(run.metric("a.completed")), 0.0);
    assert_eq!(num(run.metric("a.crashed")), 3.0, "every crash counts");
    assert_eq!(run.entity("a", "outcome").to_string(), "crashed");
    // A restart keeps the locks its old self held: the next repetition's acquire waits
    // for good (a queue lock), and the run ends with it unfinished at 10.
    let held = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n[[actor]]\nname = \"a\"\nrepeat = 2\nsteps = [{ acquire = \"L\" }, { delay_ms = 10 }, { crash = \"all\", restart_after_ms = 5 }, { release = \"L\" }]\n";
    let run = run_text(held, 0);
    assert_eq!(num(run.metric("L.acquisitions")), 1.0);
    assert_eq!(
        num(run.metric("L.held_ms")),
        15.0,
        "held 0 → the run's end at 15"
    );
}

/// Every new key refused where it is written, saying what is valid.
#[test]
fn new_keys_are_refused_at_their_place() {
    let head = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 1\n[[resource]]\nname = \"K\"\nkind = \"link\"\nrtt_ms = 2\n[[actor]]\nname = \"a\"\n";
    // Line 16 is the steps line; the column is the bad value's or key's.
    let cases: &[(&str, &str)] = &[
        (
            "steps = [{ request = \"S\", timeout_ms = \"soon\" }]",
            "16:40: in \"soon\" at character 1: unknown name `soon`",
        ),
        (
            "steps = [{ request = \"S\", timeout_ms = 5, on_timeout = { then = \"later\" } }]",
            "16:65: unknown `then` \"later\"; valid: \"retry\"",
        ),
        (
            "steps = [{ request = \"S\", timeout_ms = 5, on_timeout = { then = \"retry\" } }]",
            "16:56: a retry needs `max_attempts`",
        ),
        (
            "steps = [{ request = \"S\", timeout_ms = 5, on_timeout = { then = \"end\", backoff_ms = 3 } }]",
            "16:85: `backoff_ms` is for `then = \"retry\"`",
        ),
        (
            "steps = [{ request = \"S\", timeout_ms = 5, on_timeout = { wait = 1 } }]",
            "16:65: unknown key `wait` of `on_timeout`; valid: steps, then, max_attempts, backoff_ms, jitter_ms",
        ),
        (
            "steps = [{ acquire = \"L\", timeout_ms = 5, give_up_after_ms = 5 }]",
            "16:62: give `timeout_ms` (with `on_timeout`) or `give_up_after_ms`, not both",
        ),
        (
            "steps = [{ if = \"maybe\", then = [{ delay_ms = 1 }] }]",
            "16:17: unknown outcome \"maybe\"; valid: none, acquired, timed_out",
        ),
        (
            "steps = [{ if = { value = \"attempt\" }, then = [] }]",
            "16:17: an `if` is an outcome",
        ),
        (
            "steps = [{ if = \"served\" }]",
            "16:10: an `if` needs `then`",
        ),
        (
            "steps = [{ if = { chance = 0.5 }, then = [{ release = \"L\" }] }]",
            "16:55: the actor does not hold `L` here",
        ),
        (
            "steps = [{ acquire = { one_of = [\"L\", \"S\"], index = \"i\" } }]",
            "16:39: `S` is a server, not a lock",
        ),
        (
            "steps = [{ acquire = { one_of = [], index = \"i\" } }]",
            "16:33: `one_of` names at least one lock",
        ),
        (
            "steps = [{ acquire = { by = \"nope\", x = \"L\" } }]",
            "16:29: `nope` is not a string parameter of this config",
        ),
        (
            "steps = [{ pause_ms = \"k + later\" }]",
            "16:23: in \"k + later\" at character 5: unknown name `later`; valid here: i, k, attempt",
        ),
        (
            "steps = [{ renew = \"L\" }]",
            "16:20: the actor does not hold `L` here",
        ),
        (
            "steps = [{ crash = \"all\", restart_after_ms = \"x\" }]",
            "16:46: in \"x\" at character 1: unknown name `x`",
        ),
        ("steps = [{ send = \"K\", timeout_ms = -1 }]", "16:37:"),
    ];
    let mut wrong = Vec::new();
    for (steps, needle) in cases {
        let text = format!("{head}{steps}\n");
        let Err(e) = crate::harness::library_config(&crate::harness::registry(), "t.toml", &text)
        else {
            panic!("accepted: {steps}");
        };
        let e = e.to_string();
        let (place, message) = needle.split_at(needle.find(": ").map_or(needle.len(), |k| k + 1));
        if !(e.contains(&format!("t.toml:{place}")) && e.contains(message.trim())) {
            wrong.push(format!("`{needle}` not in `{e}`\n{steps}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // A link's loss, a chance: probabilities, checked at the point.
    for (text, needle) in [
        (
            head.replace("rtt_ms = 2\n", "rtt_ms = 2\nloss = 1.5\n")
                + "steps = [{ send = \"K\" }]\n",
            "14:8: a probability is in [0, 1], got 1.5",
        ),
        (
            format!("{head}steps = [{{ if = {{ chance = 2 }}, then = [{{ delay_ms = 1 }}] }}]\n"),
            "16:28: a probability is in [0, 1], got 2",
        ),
        (
            format!(
                "{head}steps = [{{ request = \"S\", timeout_ms = 1, on_timeout = {{ max_attempts = 0 }} }}]\n"
            ),
            "16:73: must be a whole number from 1 to 1000, got 0",
        ),
    ] {
        let Err(e) = crate::harness::library_config(&crate::harness::registry(), "t.toml", &text)
        else {
            panic!("accepted: {text}");
        };
        let e = e.to_string();
        let (place, message) = needle.split_at(needle.find(": ").map_or(needle.len(), |k| k + 1));
        assert!(
            e.contains(&format!("t.toml:{place}")) && e.contains(message.trim()),
            "`{needle}` not in `{e}`"
        );
    }
}

/// A `[labels]` key that is no name of the run lists the scenario's timeline kinds, every
/// span and mark kind by its name, so a misspelt kind is found.
#[test]
fn a_label_for_no_kind_lists_every_timeline_kind() {
    use crate::harness::{coordsim, stderr, write_config};
    let tmp = tempfile::tempdir().unwrap();
    let text = "model = \"scenario\"\n[[actor]]\nname = \"a\"\nsteps = [{ delay_ms = 1 }]\n[labels]\nretyr = \"yeniden\"\n";
    let config = write_config(tmp.path(), "l.toml", text);
    let o = coordsim(&["check", &config]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let kinds = "its timeline kinds: waiting, served, reading, writing, working, crossing, holding_waiting, paused, backoff, down, attempt, done, gave_up, crashed, rejected, timeout, retry, lost, refused, lease_lost, restarted";
    assert!(
        stderr(&o).contains("l.toml:6:1:") && stderr(&o).contains(kinds),
        "{}",
        stderr(&o)
    );
    // Spelt right, the kind is a label like any.
    let fixed = write_config(tmp.path(), "m.toml", &text.replace("retyr", "retry"));
    let o = coordsim(&["check", &fixed]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

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

/// The leak: the second acquire gives up without releasing the first lock, and the
/// next repetition asks for the lock its actor still holds. It would wait for itself for
/// good; the run stops and says which lock, when, and how to release it. With each timeout
/// releasing the first lock, by hand: at 150 left times out first (it asked first, at 50)
/// and releases A, which goes to right; left's second repetition asks for A at once and
/// queues. right is done at 160, handing A to left and starting again with B. At 210 both
/// ask for the other's lock again (right first); at 310 right times out first and releases
/// B, which goes to left, done at 320. Each completes one repetition and gives one up.
#[test]
fn a_lock_leaked_by_a_give_up_is_named_when_its_holder_asks_again() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"A\"\nkind = \"lock\"\nmode = \"queue\"\n[[resource]]\nname = \"B\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"left\"\nrepeat = 2\nsteps = [{ acquire = \"A\" }, { delay_ms = 50 }, { acquire = \"B\", give_up_after_ms = 100 }, { delay_ms = 10 }, { release = \"B\" }, { release = \"A\" }]\n\
        [[actor]]\nname = \"right\"\nrepeat = 2\nsteps = [{ acquire = \"B\" }, { delay_ms = 50 }, { acquire = \"A\", give_up_after_ms = 100 }, { delay_ms = 10 }, { release = \"A\" }, { release = \"B\" }]\n";
    let config =
        crate::harness::library_config(&crate::harness::registry(), "t.toml", text).expect("loads");
    let err = config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, config.plan.limits))
        .expect_err("left asks for A again at 150, holding it");
    assert!(
        err.to_string()
            .contains("actor 0 of `left` acquires `A` at 150 ms, which it holds already"),
        "{err}"
    );
    let fixed = text
        .replace(
            "{ acquire = \"B\", give_up_after_ms = 100 }",
            "{ acquire = \"B\", timeout_ms = 100, on_timeout = { steps = [{ release = \"A\" }] } }",
        )
        .replace(
            "{ acquire = \"A\", give_up_after_ms = 100 }",
            "{ acquire = \"A\", timeout_ms = 100, on_timeout = { steps = [{ release = \"B\" }] } }",
        );
    let run = run_text(&fixed, 0);
    for g in ["left", "right"] {
        assert_eq!(num(run.metric(&format!("{g}.gave_up"))), 1.0, "{g}");
        assert_eq!(num(run.metric(&format!("{g}.completed"))), 1.0, "{g}");
    }
    assert_eq!(num(run.metric("makespan_ms")), 320.0);
    assert_eq!(num(run.metric("A.left")) + num(run.metric("B.left")), 0.0);
}

/// An open loop's repetitions overlap, and a crash ends them all. One actor starts every
/// 10 ms (6 times); a repetition waits 5 ms, crashes if it is repetition k = 1, waits 20 ms
/// more, then increments `r`. Repetition 0 (0 → 5 → 25) would write at 25, but its actor
/// crashed at 15 (repetition 1, started at 10): it writes nothing, and no start comes after.
/// So `r` stays 0: one crash, two repetitions started (0 and 1), none completed.
#[test]
fn a_crash_in_an_open_loop_ends_every_repetition_under_way() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\nevery_ms = 10\nrepeat = 6\nsteps = [{ delay_ms = 5 }, { if = { value = \"k\", equals = 1 }, then = [{ crash = \"all\" }] }, { delay_ms = 20 }, { read = \"r\" }, { write = \"r\", value = \"r + 1\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(
        num(run.metric("r.value")),
        0.0,
        "repetition 0 died with its actor"
    );
    assert_eq!(num(run.metric("a.crashed")), 1.0);
    assert_eq!(num(run.metric("a.started")), 2.0);
    assert_eq!(num(run.metric("a.completed")), 0.0);
    // Every repetition crashes at its 25th ms: repetition 0 at 25; repetitions 1 and 2
    // (started at 10 and 20) die with it, and the start due at 30 never comes. One crash,
    // not three.
    let each = "model = \"scenario\"\n[[actor]]\nname = \"a\"\nevery_ms = 10\nrepeat = 6\nsteps = [{ delay_ms = 25 }, { crash = \"all\" }]\n";
    let run = run_text(each, 0);
    assert_eq!(num(run.metric("a.crashed")), 1.0);
    assert_eq!(
        num(run.metric("a.started")),
        3.0,
        "starts at 0, 10, 20; none at 30"
    );
}

/// A release that frees nothing is a mistake in the steps, named with its actor and time:
/// actor 0 takes A (index i = 0) and releases B (index 1 − i = 1), which it never took; so
/// does actor 1 the other way round. Each takes its lock at 0 and releases at 10.
#[test]
fn a_release_of_a_lock_not_held_is_named() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"A\"\nkind = \"lock\"\n[[resource]]\nname = \"B\"\nkind = \"lock\"\n\
        [[actor]]\nname = \"w\"\ncount = 2\nsteps = [{ acquire = { one_of = [\"A\", \"B\"], index = \"i\" } }, { delay_ms = 10 }, { release = { one_of = [\"A\", \"B\"], index = \"1 - i\" } }]\n";
    let config =
        crate::harness::library_config(&crate::harness::registry(), "t.toml", text).expect("loads");
    let err = config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, config.plan.limits))
        .expect_err("actor 0 releases B, which it never took");
    assert!(
        err.to_string()
            .contains("actor 0 of `w` releases `B` at 10 ms, which it does not hold"),
        "{err}"
    );
    // The same steps with the right index run: both locks free at the end.
    let run = run_text(&text.replace("\"1 - i\"", "\"i\""), 0);
    assert_eq!(num(run.metric("w.completed")), 2.0);
    assert_eq!(num(run.metric("A.left")) + num(run.metric("B.left")), 0.0);
}

/// A chance given by an expression must stay a probability: `k - 5` is −5 at the first
/// repetition (k = 0), so the run stops there and says what it came to. `k / 4` over
/// repeat = 5 stays in [0, 1] (0, 0.25, 0.5, 0.75, 1) and runs.
#[test]
fn a_chance_outside_zero_to_one_is_named() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\nrepeat = 5\nsteps = [{ if = { chance = \"k - 5\" }, then = [{ write = \"r\", value = 1 }] }]\n";
    let config =
        crate::harness::library_config(&crate::harness::registry(), "t.toml", text).expect("loads");
    let err = config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, config.plan.limits))
        .expect_err("a chance of -5");
    assert!(
        err.to_string().contains(
            "actor 0 of `a`: an `if`'s `chance` comes to -5, not a probability in [0, 1]"
        ),
        "{err}"
    );
    let run = run_text(&text.replace("k - 5", "k / 4"), 0);
    assert_eq!(num(run.metric("a.completed")), 5.0);
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

/// A mistake only the run can find is reported where the step that found it is written,
/// with the point: the release on line 16 (column 3, the step's table) at the first sweep
/// value; an `if`'s chance (line 8, column 10); a retry's negative backoff (line 8, the
/// `on_timeout` table at column 57).
#[test]
fn a_mistake_found_while_running_points_at_its_step() {
    let cases = [
        (
            "model = \"scenario\"\n[sweep]\nhold_ms = [5, 10]\n[[resource]]\nname = \"A\"\nkind = \"lock\"\n[[resource]]\nname = \"B\"\nkind = \"lock\"\n[[actor]]\nname = \"w\"\ncount = 2\nsteps = [\n  { acquire = { one_of = [\"A\", \"B\"], index = \"i\" } },\n  { delay_ms = \"hold_ms\" },\n  { release = { one_of = [\"A\", \"B\"], index = \"1 - i\" } },\n]\n",
            "16:3: `actor[0].steps[2]` at hold_ms = 5: actor 0 of `w` releases `B` at 5 ms",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\nrepeat = 3\nsteps = [{ if = { chance = \"k - 1\" }, then = [{ write = \"r\", value = 1 }] }]\n",
            "8:10: `actor[0].steps[0]`: actor 0 of `a`: an `if`'s `chance` comes to -1",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 50\n[[actor]]\nname = \"c\"\nsteps = [{ request = \"S\", timeout_ms = 10, on_timeout = { then = \"retry\", max_attempts = 3, backoff_ms = \"10 - 20 * attempt\" } }]\n",
            "8:57: `actor[0].steps[0].on_timeout`: actor 0 of `c`: a retry's backoff and jitter come to -10 ms",
        ),
    ];
    refused_at(&cases);
}

/// Combinations that can never do what they say are refused where they are written:
/// `when_down = "fail"` on a server with no down window (line 6, its value); `renew` of a
/// queue lock (line 8, the renew's value); an `on_timeout` on a wait with no `timeout_ms`
/// (line 7, the `on_timeout` table); the first 5 of 2 actors crashing (line 5, the count); a key given twice in a key store's
/// `initial` (line 5).
#[test]
fn what_can_never_happen_is_refused_where_it_is_written() {
    let cases = [
        (
            "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 10\nwhen_down = \"fail\"\n[[actor]]\nname = \"c\"\nsteps = [{ request = \"S\" }]\n",
            "6:13: `resource[0].when_down`: `when_down = \"fail\"` with no `down` windows",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n[[actor]]\nname = \"a\"\nsteps = [{ acquire = \"L\" }, { renew = \"L\" }, { release = \"L\" }]\n",
            "8:39: `actor[0].steps[1].renew`: `renew` keeps a lease fresh, and `L` is not a lease",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\n[[actor]]\nname = \"a\"\nsteps = [{ acquire = \"L\", on_timeout = { then = \"end\" } }, { release = \"L\" }]\n",
            "7:40: `actor[0].steps[0].on_timeout`: an `on_timeout` with no `timeout_ms`: this acquire never times out",
        ),
        (
            "model = \"scenario\"\n[[actor]]\nname = \"w\"\ncount = 2\nsteps = [{ delay_ms = 1 }, { crash = { count = 5 } }]\n",
            "5:48: `actor[0].steps[1].crash.count`: the first 5 actors of `w` crash, but it has 2",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"ks\"\nkind = \"keys\"\ninitial = [[1, 2], [1, 3]]\n[[actor]]\nname = \"a\"\nsteps = [{ lookup = \"ks\", key = 1 }]\n",
            "5:11: `resource[0].initial`: key 1 is given twice",
        ),
    ];
    refused_at(&cases);
    // A request to a server that fails fast may have an `on_timeout` alone: a refusal runs it.
    use crate::harness::{coordsim, stderr, write_config};
    let tmp = tempfile::tempdir().unwrap();
    let refused = "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 10\ndown = [[0, 100]]\nwhen_down = \"fail\"\n[[actor]]\nname = \"c\"\nsteps = [{ request = \"S\", on_timeout = { then = \"end\" } }]\n";
    let path = write_config(tmp.path(), "ok.toml", refused);
    let o = coordsim(&["check", &path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Each config is refused by `check` (exit 2) with its needle (position and message).
fn refused_at(cases: &[(&str, &str)]) {
    use crate::harness::{coordsim, stderr, write_config};
    let tmp = tempfile::tempdir().unwrap();
    for (i, (text, needle)) in cases.iter().enumerate() {
        let path = write_config(tmp.path(), &format!("c{i}.toml"), text);
        let o = coordsim(&["check", &path]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(needle),
            "`{needle}` not in {}",
            stderr(&o)
        );
    }
}
