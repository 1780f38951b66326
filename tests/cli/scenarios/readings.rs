//! How the scenario's figures read where the docs could be read two ways: each test pins
//! the reading docs/scenarios.md gives, with its figures worked out by hand in the comment.

use coordsim_model::Cell;

use super::{num, run_text};

fn empty(c: &Cell) -> bool {
    matches!(c, Cell::Empty)
}

/// A server that fails fast refuses a request as a timeout ends it: with `timeout_ms` and no
/// `on_timeout` the step's timeout is `then = "end"`, so the repetition gives up; with no
/// timeout at all the actor goes on. Service 10 ms, down 5 → 50: `a` at 0 is served 0–10;
/// `b` asks at 20, while it is down, and is refused at once. With `timeout_ms = 100` alone it
/// gives up at 20 (end 20, the write after it never runs: `r` stays 0); a refusal is no
/// timeout (`b.timeouts` 0). Without `timeout_ms`, or with `then = "go_on"`, it goes on and
/// writes 1, completing at 20.
#[test]
fn a_refused_request_with_a_timeout_alone_gives_up_and_one_without_goes_on() {
    let text = |request: &str| {
        format!(
            "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 10\ndown = [[5, 50]]\nwhen_down = \"fail\"\n\
             [[resource]]\nname = \"r\"\nkind = \"register\"\n\
             [[actor]]\nname = \"a\"\nsteps = [{{ request = \"s\" }}]\n\
             [[actor]]\nname = \"b\"\nstart_ms = 20\nsteps = [{request}, {{ write = \"r\", value = 1 }}]\n"
        )
    };
    let run = run_text(&text("{ request = \"s\", timeout_ms = 100 }"), 0);
    assert_eq!(num(run.metric("s.refused")), 1.0);
    assert_eq!(num(run.metric("b.gave_up")), 1.0);
    assert_eq!(num(run.metric("b.completed")), 0.0);
    assert_eq!(
        num(run.metric("b.timeouts")),
        0.0,
        "a refusal is no timeout"
    );
    assert_eq!(num(run.metric("r.value")), 0.0);
    assert_eq!(run.entity("b", "outcome").to_string(), "gave_up");
    assert_eq!(num(run.entity("b", "end_ms")), 20.0);
    for request in [
        "{ request = \"s\" }",
        "{ request = \"s\", timeout_ms = 100, on_timeout = { then = \"go_on\" } }",
    ] {
        let run = run_text(&text(request), 0);
        assert_eq!(num(run.metric("s.refused")), 1.0, "{request}");
        assert_eq!(num(run.metric("b.completed")), 1.0, "{request}");
        assert_eq!(num(run.metric("r.value")), 1.0, "{request}");
        assert_eq!(num(run.entity("b", "end_ms")), 20.0, "{request}");
    }
}

/// An actor's `server_wait_ms` adds up its queueing: arrival to service start for a request
/// served while it waited, arrival to leaving for one it gave up while queued (a client that
/// leaves during its service keeps its queueing). Service 40 ms, FIFO; `a`, `b`, `c`, `d`
/// ask at 0 in that order, with no timeout, 10, 100 and 130 ms. `a` is served 0–40 (wait 0).
/// `b` leaves at 10 while queued: 10 (its request is still served, 40–80, for nobody). `c`'s
/// service starts at 80 while it waits (it leaves at 100, during it): 80. `d`'s starts at
/// 120, before its deadline 130: 120. `e` has no request step: empty, and nobody takes a
/// lock: every `lock_wait_ms` empty. The server counts every request it served: waits 0,
/// 40, 80, 120, mean 60; three served for clients that had left (b, c, d), 120 ms.
#[test]
fn an_actors_server_wait_counts_its_queueing_until_service_or_until_it_left() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 40\n\
        [[actor]]\nname = \"a\"\nsteps = [{ request = \"S\" }]\n\
        [[actor]]\nname = \"b\"\nsteps = [{ request = \"S\", timeout_ms = 10, on_timeout = { then = \"go_on\" } }]\n\
        [[actor]]\nname = \"c\"\nsteps = [{ request = \"S\", timeout_ms = 100, on_timeout = { then = \"go_on\" } }]\n\
        [[actor]]\nname = \"d\"\nsteps = [{ request = \"S\", timeout_ms = 130, on_timeout = { then = \"go_on\" } }]\n\
        [[actor]]\nname = \"e\"\nsteps = [{ delay_ms = 1 }]\n";
    let run = run_text(text, 0);
    for (actor, wait) in [("a", 0.0), ("b", 10.0), ("c", 80.0), ("d", 120.0)] {
        assert_eq!(num(run.entity(actor, "server_wait_ms")), wait, "{actor}");
    }
    assert!(empty(run.entity("e", "server_wait_ms")));
    for actor in ["a", "b", "c", "d", "e"] {
        assert!(empty(run.entity(actor, "lock_wait_ms")), "{actor}");
    }
    assert_eq!(num(run.metric("S.mean_wait_ms")), 60.0);
    assert_eq!(num(run.metric("S.wasted_requests")), 3.0);
    assert_eq!(num(run.metric("S.wasted_ms")), 120.0);
}

/// `Q.max_len` counts a message the moment it is visible, even one handed at once to a
/// taker that waits for it. `c` waits to take twice from 0; `p` (from 5) puts one message at
/// 6 and one at 7, each taken at once: 1 at most, not 0. With `c` starting at 10 instead,
/// both wait: 2 at once from 7 to 10.
#[test]
fn a_message_handed_to_a_waiting_taker_counts_in_max_len() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\n\
        [[actor]]\nname = \"c\"\nrepeat = 2\nsteps = [{ take = \"q\" }]\n\
        [[actor]]\nname = \"p\"\nstart_ms = 5\nrepeat = 2\nsteps = [{ delay_ms = 1 }, { put = \"q\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("q.max_len")), 1.0);
    assert_eq!(num(run.metric("q.taken")), 2.0);
    assert_eq!(num(run.metric("q.left")), 0.0);
    let late = text.replace("name = \"c\"\n", "name = \"c\"\nstart_ms = 10\n");
    let run = run_text(&late, 0);
    assert_eq!(num(run.metric("q.max_len")), 2.0);
    assert_eq!(num(run.metric("q.taken")), 2.0);
}

/// A put a full queue refuses takes no id: ids number the accepted puts. Capacity 1: `p`
/// puts 1 at 0 (id 1), 2 at 0 (refused: full), and 3 at 20 (id 2, not 3). `c` takes at 10
/// (value 1, id 1) and waits for the next (value 3 at 20, id 2), storing each id under its
/// value: 1 + 2 = 3 (4 if the refused put had taken id 2). Both are sets of new keys: no
/// insert (`ids.inserted` 0), two sets, two keys.
#[test]
fn a_refused_put_takes_no_id() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\ncapacity = 1\n\
        [[resource]]\nname = \"ids\"\nkind = \"keys\"\n\
        [[actor]]\nname = \"p\"\nsteps = [{ put = \"q\", value = 1 }, { put = \"q\", value = 2 }, { delay_ms = 20 }, { put = \"q\", value = 3 }]\n\
        [[actor]]\nname = \"c\"\nstart_ms = 10\nrepeat = 2\nsteps = [{ take = \"q\" }, { set = \"ids\", key = \"q\", value = \"q.id\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("q.put")), 2.0);
    assert_eq!(num(run.metric("q.refused")), 1.0);
    assert_eq!(num(run.metric("ids.total")), 3.0);
    assert_eq!(num(run.metric("ids.size")), 2.0);
}

/// A set that adds a key is a set, not an insert. `K` holds key 1 (0); sets of key 1 (there)
/// and key 2 (new), then an insert of key 3: one insert, two sets, three keys, total
/// 5 + 6 + 7 = 18.
#[test]
fn a_set_that_adds_a_key_is_no_insert() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"K\"\nkind = \"keys\"\ninitial = [1]\n\
        [[actor]]\nname = \"a\"\nsteps = [{ set = \"K\", key = 1, value = 5 }, { set = \"K\", key = 2, value = 6 }, { insert = \"K\", key = 3, value = 7 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("K.inserted")), 1.0);
    assert_eq!(num(run.metric("K.updated")), 2.0);
    assert_eq!(num(run.metric("K.size")), 3.0);
    assert_eq!(num(run.metric("K.total")), 18.0);
}

/// An actor's outcome is `gave_up` when any of its repetitions gave up, even if a later one
/// completed; and a `give_up_after_ms` give-up is one of its group's timeouts. `h` holds the
/// queue lock L from 20 to 35. `w` (from 30, 3 repetitions) asks for L with
/// `give_up_after_ms = 2`: it gives up at 32 and at 34; the third asks at 34, is handed L at
/// 35, releases it and works 1 ms: done at 36. So 1 completed, 2 given up, 2 timeouts, lock
/// wait 2 + 2 + 1 = 5, end 36. The makespan runs from the earliest start, 20, not from 0:
/// 36 − 20 = 16.
#[test]
fn an_actors_outcome_is_gave_up_when_any_repetition_gave_up() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[actor]]\nname = \"h\"\nstart_ms = 20\nsteps = [{ acquire = \"L\" }, { delay_ms = 15 }, { release = \"L\" }]\n\
        [[actor]]\nname = \"w\"\nstart_ms = 30\nrepeat = 3\nsteps = [{ acquire = \"L\", give_up_after_ms = 2 }, { release = \"L\" }, { delay_ms = 1 }]\n";
    let run = run_text(text, 0);
    assert_eq!(run.entity("w", "outcome").to_string(), "gave_up");
    assert_eq!(num(run.entity("w", "completed")), 1.0);
    assert_eq!(num(run.entity("w", "gave_up")), 2.0);
    assert_eq!(num(run.entity("w", "end_ms")), 36.0);
    assert_eq!(num(run.entity("w", "lock_wait_ms")), 5.0);
    assert_eq!(num(run.metric("w.timeouts")), 2.0);
    assert_eq!(num(run.metric("L.gave_up")), 2.0);
    assert_eq!(num(run.metric("makespan_ms")), 16.0);
}

/// A server's makespan runs from its first arrival to its last departure, and its busy
/// fraction is the busiest instance's busy time over that span. `c` starts at 10 and asks
/// every 30 ms, twice: served 10–20 and 40–50. One instance: span 50 − 10 = 40, busy 20,
/// 0.5 (over 0–50 it would be 0.4); the run's makespan is 50 − 10 = 40 too. Two instances,
/// request k at instance k: each is busy 10 ms, so 10 / 40 = 0.25.
#[test]
fn a_servers_makespan_and_busy_fraction_run_from_its_first_arrival() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 10\n\
        [[actor]]\nname = \"c\"\nstart_ms = 10\nevery_ms = 30\nrepeat = 2\nsteps = [{ request = \"S\", instance = \"k\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("S.makespan_ms")), 40.0);
    assert_eq!(num(run.metric("S.busy_fraction")), 0.5);
    assert_eq!(num(run.metric("makespan_ms")), 40.0);
    let two = text.replace("service_ms = 10\n", "service_ms = 10\ninstances = 2\n");
    let run = run_text(&two, 0);
    assert_eq!(num(run.metric("S.makespan_ms")), 40.0);
    assert_eq!(num(run.metric("S.busy_fraction")), 0.25);
}

/// `S.max_queue_len` leaves out the request in service: three clients ask at 0 for a 10 ms
/// service; one is served, two wait: 2, not 3.
#[test]
fn a_servers_queue_length_leaves_out_the_request_in_service() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 10\n\
        [[actor]]\nname = \"c\"\ncount = 3\nsteps = [{ request = \"S\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("S.max_queue_len")), 2.0);
    assert_eq!(num(run.metric("S.max_wait_ms")), 20.0);
}

/// Where nothing happened, a count, a total, a most-at-once and a span are 0, and a
/// statistic of samples (a mean, a percentile, a longest) is empty. `g`'s acquire and
/// request sit in a branch no actor takes (i is never 5), so lock M and server U are never
/// used; `x` only works. M: 0 taken, 0 holders at once, 0 ms waited, given up and held, no
/// mean, p95 or longest wait. U: 0 served, 0 queued at once, makespan 0, busy fraction 0,
/// no wait statistics. `g`'s row: its group has both kinds of step, so 0 and 0; `x`'s has
/// neither: empty. Each repetition works 3 ms, so the responses are 3.
/// A second run where the only repetition crashes at once: nothing completed, no response
/// statistics, and makespan 0 (no repetition ended).
#[test]
fn nothing_happened_is_zero_for_counts_totals_and_spans_and_empty_for_statistics() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"M\"\nkind = \"lock\"\n\
        [[resource]]\nname = \"U\"\nkind = \"server\"\nservice_ms = 10\n\
        [[actor]]\nname = \"g\"\nsteps = [{ if = { value = \"i\", equals = 5 }, then = [{ acquire = \"M\" }, { release = \"M\" }, { request = \"U\" }] }, { delay_ms = 3 }]\n\
        [[actor]]\nname = \"x\"\nsteps = [{ delay_ms = 3 }]\n";
    let run = run_text(text, 0);
    for zero in [
        "M.acquisitions",
        "M.max_holders",
        "M.total_wait_ms",
        "M.gave_up_wait_ms",
        "M.held_ms",
        "U.requests",
        "U.max_queue_len",
        "U.makespan_ms",
        "U.busy_fraction",
    ] {
        assert_eq!(num(run.metric(zero)), 0.0, "{zero}");
    }
    for none in [
        "M.mean_wait_ms",
        "M.p95_wait_ms",
        "M.max_wait_ms",
        "U.mean_wait_ms",
        "U.p50_wait_ms",
        "U.p95_wait_ms",
        "U.p99_wait_ms",
        "U.max_wait_ms",
    ] {
        assert!(empty(run.metric(none)), "{none}");
    }
    assert_eq!(num(run.entity("g", "lock_wait_ms")), 0.0);
    assert_eq!(num(run.entity("g", "server_wait_ms")), 0.0);
    assert!(empty(run.entity("x", "lock_wait_ms")));
    assert!(empty(run.entity("x", "server_wait_ms")));
    assert_eq!(num(run.metric("g.mean_response_ms")), 3.0);
    assert_eq!(num(run.metric("makespan_ms")), 3.0);
    let crash = "model = \"scenario\"\n[[actor]]\nname = \"a\"\nsteps = [{ crash = \"all\" }]\n";
    let run = run_text(crash, 0);
    assert_eq!(num(run.metric("completed")), 0.0);
    assert_eq!(num(run.metric("makespan_ms")), 0.0);
    for none in [
        "a.mean_response_ms",
        "a.p95_response_ms",
        "a.max_response_ms",
        "mean_response_ms",
        "max_response_ms",
    ] {
        assert!(empty(run.metric(none)), "{none}");
    }
}

/// After `then = "go_on"`, an `if` sees the outcome of the last step that has one: the
/// timeout's own steps', when they have one. `h` is served 0–50; `a`'s request waits behind
/// it and times out at 10; its timeout's step inserts key 1 (`inserted`), then it goes on:
/// `if = "inserted"` holds (key 2 goes in), and an `if = "timed_out"` there is refused as
/// never holding (the insert always comes after the timeout). With no timeout steps the
/// `if` sees `timed_out`: r = 1, and key 2 is not inserted.
#[test]
fn an_if_after_go_on_sees_the_last_outcome_of_the_timeout_steps() {
    let text = |steps: &str| {
        format!(
            "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 50\n\
             [[resource]]\nname = \"r\"\nkind = \"register\"\n\
             [[resource]]\nname = \"K\"\nkind = \"keys\"\n\
             [[actor]]\nname = \"h\"\nsteps = [{{ request = \"S\" }}]\n\
             [[actor]]\nname = \"a\"\nsteps = [{{ request = \"S\", timeout_ms = 10, on_timeout = {{ {steps}then = \"go_on\" }} }}, {{ if = \"timed_out\", then = [{{ write = \"r\", value = 1 }}] }}, {{ if = \"inserted\", then = [{{ insert = \"K\", key = 2 }}] }}]\n"
        )
    };
    let inserts = text("steps = [{ insert = \"K\", key = 1 }], ");
    let refused = crate::harness::library_config(&crate::harness::registry(), "t.toml", &inserts)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        refused.contains("`timed_out` can never be the outcome here"),
        "{refused}"
    );
    let run = run_text(
        &inserts.replace("if = \"timed_out\"", "if = \"duplicate\""),
        0,
    );
    assert_eq!(num(run.metric("r.value")), 0.0);
    assert_eq!(num(run.metric("K.size")), 2.0);
    // No step inserts here, so the second `if` asks for an outcome that can be there.
    let run = run_text(&text("").replace("if = \"inserted\"", "if = \"served\""), 0);
    assert_eq!(num(run.metric("r.value")), 1.0);
    assert_eq!(num(run.metric("K.size")), 0.0);
}

/// A retried attempt is the same repetition: its first `if` sees the outcome the last
/// attempt ended with (`timed_out`), not `none`. `h` is served 0–50. `b`'s first attempt (at
/// 0) sees `none` and inserts key 20 + 1 = 21; its request times out at 10 and it retries at
/// once: the second attempt sees `timed_out` and inserts key 10 + 2 = 12; it times out again
/// at 20 and gives up. Each key is stored as its value: total 21 + 12 = 33.
#[test]
fn a_retried_attempt_begins_with_the_outcome_its_last_attempt_ended_with() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 50\n\
        [[resource]]\nname = \"K\"\nkind = \"keys\"\n\
        [[actor]]\nname = \"h\"\nsteps = [{ request = \"S\" }]\n\
        [[actor]]\nname = \"b\"\nsteps = [{ if = \"timed_out\", then = [{ insert = \"K\", key = \"10 + attempt\", value = \"10 + attempt\" }] }, { if = \"none\", then = [{ insert = \"K\", key = \"20 + attempt\", value = \"20 + attempt\" }] }, { request = \"S\", timeout_ms = 10, on_timeout = { max_attempts = 2 } }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("K.size")), 2.0);
    assert_eq!(num(run.metric("K.total")), 33.0);
    assert_eq!(num(run.metric("b.retries")), 1.0);
    assert_eq!(num(run.metric("b.timeouts")), 2.0);
    assert_eq!(num(run.metric("b.gave_up")), 1.0);
}

/// A group's percentiles are the nearest rank, as the built-in models' are, and follow the
/// config's `percentile`. Eleven repetitions work 10, 20, …, 110 ms: the mean is 60; the
/// nearest-rank p95 is the ⌈0.95 × 11⌉ = 11th smallest, 110; read linearly it is at rank
/// (11 − 1) × 0.95 = 9.5 from 0, halfway between 100 and 110: 105.
#[test]
fn a_groups_percentiles_are_the_nearest_rank_unless_the_config_says_linear() {
    let text = "model = \"scenario\"\n[[actor]]\nname = \"a\"\nrepeat = 11\nsteps = [{ delay_ms = \"10 * (k + 1)\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("a.mean_response_ms")), 60.0);
    assert_eq!(num(run.metric("a.p95_response_ms")), 110.0);
    let linear = text.replace(
        "model = \"scenario\"\n",
        "model = \"scenario\"\npercentile = \"linear\"\n",
    );
    // Run as `coordsim run` runs it: with the config's percentile method.
    let config = crate::harness::library_config(&crate::harness::registry(), "t.toml", &linear)
        .expect("loads");
    let ctx = coordsim_model::RunContext::new(0, config.plan.limits)
        .with_percentile(config.plan.percentile);
    let out = config.plan.plans[0].run(&ctx).expect("runs");
    let at = config
        .plan
        .model
        .metrics()
        .iter()
        .position(|c| c.name == "a.p95_response_ms")
        .expect("a column");
    assert_eq!(num(&out.metrics[at]), 105.0);
}

/// A crashed actor that stays down has outcome `crashed` and ends at its crash; one that restarted and
/// ran on ends with its last repetition, `restarted`. Each repetition works 10 ms and
/// crashes at repetition k = 1 (or k = 0 for `d`):
/// `a` (3 repetitions, no restart): done at 10, crashes at 20 and stays down: `crashed`,
/// 2 started, 1 completed, end 20. `b` (3, restart after 5): crashes at 20, back at 25,
/// done at 35: `restarted`, end 35. `c` (2, restart after 5): crashes at 20 in its last
/// repetition, with none left to restart with: `crashed`, end 20. `d` (2, crash at k = 0):
/// crashes at 10, back at 15, done at 25: `restarted`, end 25. The run's makespan is the
/// last end, 35.
#[test]
fn a_crashed_actor_ends_at_its_crash_and_a_restarted_one_with_its_last_repetition() {
    let actor = |name: &str, repeat: u32, at: u32, restart: &str| {
        format!(
            "[[actor]]\nname = \"{name}\"\nrepeat = {repeat}\nsteps = [{{ delay_ms = 10 }}, {{ if = {{ value = \"k\", equals = {at} }}, then = [{{ crash = \"all\"{restart} }}] }}]\n"
        )
    };
    let back = ", restart_after_ms = 5";
    let text = format!(
        "model = \"scenario\"\n{}{}{}{}",
        actor("a", 3, 1, ""),
        actor("b", 3, 1, back),
        actor("c", 2, 1, back),
        actor("d", 2, 0, back)
    );
    let run = run_text(&text, 0);
    for (name, outcome, started, completed, end) in [
        ("a", "crashed", 2.0, 1.0, Some(20.0)),
        ("b", "restarted", 3.0, 2.0, Some(35.0)),
        ("c", "crashed", 2.0, 1.0, Some(20.0)),
        ("d", "restarted", 2.0, 1.0, Some(25.0)),
    ] {
        assert_eq!(run.entity(name, "outcome").to_string(), outcome, "{name}");
        assert_eq!(num(run.entity(name, "repetitions")), started, "{name}");
        assert_eq!(num(run.entity(name, "completed")), completed, "{name}");
        match end {
            Some(t) => assert_eq!(num(run.entity(name, "end_ms")), t, "{name}"),
            None => assert!(empty(run.entity(name, "end_ms")), "{name}"),
        }
    }
    assert_eq!(num(run.metric("makespan_ms")), 35.0);
}

/// A lock never released is held to the run's last event, and a timeout that finds its
/// wait already over is one. `a` takes L at 0 and ends at 5 holding it; `b`'s request (10
/// ms, timeout 1000) is served 0–10, in time, but its timeout still fires, doing nothing, at
/// 1000: L is held 1000 ms, while the makespan is 10.
#[test]
fn a_lock_never_released_is_held_to_the_last_event_a_spent_timeout_included() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\n\
        [[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 10\n\
        [[actor]]\nname = \"a\"\nsteps = [{ acquire = \"L\" }, { delay_ms = 5 }]\n\
        [[actor]]\nname = \"b\"\nsteps = [{ request = \"S\", timeout_ms = 1000 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("L.left")), 1.0);
    assert_eq!(num(run.metric("L.held_ms")), 1000.0);
    assert_eq!(num(run.metric("makespan_ms")), 10.0);
}

/// `give_up_after_ms` alone is a timeout of its group: the group's `timeouts` column is
/// written and counts the give-up, as when another step has a `timeout_ms`. `h` holds the
/// queue lock L 0–50; `w` asks at 1 and gives up at 1 + 5 = 6: one timeout, one give-up,
/// 5 ms given up on L. With a request with a timeout before it (served 1–11, in time), the
/// same give-up at 11 + 5 = 16 is still the one timeout.
#[test]
fn a_give_up_after_ms_give_up_is_a_timeout_of_its_group() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
        [[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 10\n\
        [[actor]]\nname = \"h\"\nsteps = [{ acquire = \"L\" }, { delay_ms = 50 }, { release = \"L\" }]\n\
        [[actor]]\nname = \"w\"\nstart_ms = 1\nsteps = [{ acquire = \"L\", give_up_after_ms = 5 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("w.timeouts")), 1.0);
    assert_eq!(num(run.metric("w.gave_up")), 1.0);
    assert_eq!(num(run.metric("L.gave_up_wait_ms")), 5.0);
    assert_eq!(num(run.entity("w", "end_ms")), 6.0);
    let both = text.replace(
        "steps = [{ acquire = \"L\", give_up_after_ms = 5 }]",
        "steps = [{ request = \"S\", timeout_ms = 100 }, { acquire = \"L\", give_up_after_ms = 5 }]",
    );
    let run = run_text(&both, 0);
    assert_eq!(num(run.metric("w.timeouts")), 1.0);
    assert_eq!(num(run.metric("w.gave_up")), 1.0);
    assert_eq!(num(run.entity("w", "end_ms")), 16.0);
}

/// An ack earlier in a transaction frees room for a put later in it: both land when the
/// transaction does, the ack first. Capacity 1, visibility 100: `a` puts 1 and takes it
/// (still held, unacknowledged); the transaction acknowledges it and puts 2, which finds
/// room (held 1, minus the ack: 0 < 1), so `if = "full"` does not hold and 3 is never put.
/// So 2 put, none refused, 1 acked, 1 left (the 2).
#[test]
fn an_ack_in_a_transaction_frees_room_for_a_later_put_in_it() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\ncapacity = 1\nvisibility_ms = 100\n\
        [[actor]]\nname = \"a\"\nsteps = [{ put = \"q\", value = 1 }, { take = \"q\" }, { transaction = [{ ack = \"q\" }, { put = \"q\", value = 2 }] }, { if = \"full\", then = [{ put = \"q\", value = 3 }] }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("q.put")), 2.0);
    assert_eq!(num(run.metric("q.refused")), 0.0);
    assert_eq!(num(run.metric("q.acked")), 1.0);
    assert_eq!(num(run.metric("q.left")), 1.0);
}

/// A repetition of an actor that crashed goes no further when its wait would end, for a
/// polled lock and a queue lock alike: it takes no lock. `h` holds L from 0 to 100. `a`
/// starts a repetition every 10 ms from 1; the first asks for L at 1 and waits, the second
/// (k = 1, at 11) crashes the actor. Polled every 5 ms, the first fails at 1 and 6, and its
/// poll at 11 finds its actor dead: 2 failed attempts. Either way L is taken once (by `h`),
/// held 100 ms, and free at the end.
#[test]
fn a_repetition_of_a_crashed_actor_takes_no_lock_it_waited_for() {
    let text = |mode: &str| {
        format!(
            "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\n{mode}\n\
             [[actor]]\nname = \"h\"\nsteps = [{{ acquire = \"L\" }}, {{ delay_ms = 100 }}, {{ release = \"L\" }}]\n\
             [[actor]]\nname = \"a\"\nstart_ms = 1\nevery_ms = 10\nrepeat = 2\nsteps = [{{ if = {{ value = \"k\", equals = 1 }}, then = [{{ crash = \"all\" }}] }}, {{ acquire = \"L\" }}, {{ release = \"L\" }}]\n"
        )
    };
    let run = run_text(&text("poll_ms = 5"), 0);
    assert_eq!(num(run.metric("L.failed_attempts")), 2.0);
    for mode in ["poll_ms = 5", "mode = \"queue\""] {
        let run = run_text(&text(mode), 0);
        assert_eq!(num(run.metric("L.acquisitions")), 1.0, "{mode}");
        assert_eq!(num(run.metric("L.held_ms")), 100.0, "{mode}");
        assert_eq!(num(run.metric("L.left")), 0.0, "{mode}");
        assert_eq!(num(run.metric("a.crashed")), 1.0, "{mode}");
    }
}

/// `{ by = … }` options may be expressions: a server's service chosen by a string
/// parameter as `2 * base_ms` (4 ms) or a literal 1, and a step's delay as `k` (the
/// repetition; the instance too, by `k` or 0, of the one instance). By hand, 3 repetitions
/// of a request then a delay of k ms: `slow` serves in
/// 4 ms, so the responses are 4, 5, 6 (mean 5); `fast` in 1: 1, 2, 3 (mean 2).
#[test]
fn a_by_table_chooses_an_expression() {
    let text = |mode: &str| {
        format!(
            r#"model = "scenario"
[params]
mode = "{mode}"
base_ms = 2
[[resource]]
name = "s"
kind = "server"
service_ms = {{ by = "mode", fast = 1, slow = "2 * base_ms" }}
[[actor]]
name = "c"
repeat = 3
steps = [{{ request = "s", instance = {{ by = "mode", fast = "k", slow = 0 }} }}, {{ delay_ms = {{ by = "mode", fast = "k", slow = "k" }} }}]
"#
        )
    };
    let slow = run_text(&text("slow"), 0);
    assert_eq!(num(slow.metric("c.mean_response_ms")), 5.0);
    assert_eq!(num(slow.metric("c.max_response_ms")), 6.0);
    let fast = run_text(&text("fast"), 0);
    assert_eq!(num(fast.metric("c.mean_response_ms")), 2.0);
    // An option that is neither a number nor an expression is refused at its key.
    let bad = text("slow").replace("fast = 1,", "fast = [1],");
    let e = super::load_error(&bad);
    assert!(
        e.contains("service_ms.fast") && e.contains("an option is a number or an expression"),
        "{e}"
    );
}

/// A lost update needs a read in the same repetition: what an actor read in an earlier one
/// makes no later write lost. `a` reads `r` (0) in repetition 0 only and writes `k + 5` 10 ms
/// into each repetition; `b` never reads and writes 1 at 5 and 15 ms. By hand: a's write at
/// 10 lands on b's 1, not the 0 it read: lost. a's write at 20 lands on b's second 1, but a
/// read nothing in repetition 1: a blind write, not lost; b's are blind too. One lost update,
/// 4 writes, and the last value a's 6.
#[test]
fn only_a_write_after_a_read_in_its_repetition_can_be_lost() {
    let text = r#"model = "scenario"
[[resource]]
name = "r"
kind = "register"
[[actor]]
name = "a"
repeat = 2
steps = [{ if = { value = "k", equals = 0 }, then = [{ read = "r" }] }, { delay_ms = 10 }, { write = "r", value = "k + 5" }]
[[actor]]
name = "b"
repeat = 2
steps = [{ delay_ms = "5 + 5 * k" }, { write = "r", value = 1 }]
"#;
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("r.lost_updates")), 1.0);
    assert_eq!(num(run.metric("r.writes")), 4.0);
    assert_eq!(num(run.metric("r.value")), 6.0);
}
