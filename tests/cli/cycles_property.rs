//! The cycle search against an independent reference, on random small scenarios with a loop
//! without end (a lock polled, queued or leased, a holder that may crash anywhere, a worker
//! that writes a register, delays, an `if` on a chance).
//!
//! The argument: a scenario S with `repeat = "forever"` and the same scenario S_N with
//! `repeat = N` run the same events until some actor of such a group has finished N
//! repetitions; only then do they differ. So, for N larger than the events of a schedule,
//! a schedule of S is a schedule of S_N as far as it goes, and what a watch saw along it is
//! the same in both. S_N is run by the plain interpreter, without the cycle key. Checked:
//! - an end the cycle search found (no cycle) is an end of S_N with the same watches and
//!   register values;
//! - a lasso (prefix p, cycle c) taken round 16 times, p + c¹⁶, is an execution prefix of S_N
//!   (every event fits: the free events and draws are those it names; or S_N's run stops
//!   early, nothing free, where it finds a wait that can never end — a run's stuck
//!   shortcut, which S, going round for ever, has not), and replayed on S it
//!   comes back to its cycle's state with each watch as the lasso says: one that never held
//!   (empty) has still not held after 16 rounds, one that held at t held at t. A key that
//!   leaves out a word it needs closes a false cycle whose second round does something else
//!   (a register's value grows past a watch's bound; a lease's age crosses its term), which
//!   these catch.

use coordsim_model::explore::Schedule;
use coordsim_model::{Cell, RunContext};
use proptest::prelude::*;

use crate::explore::{explore, limits};
use crate::harness::{library_config, registry};

/// How many times a lasso's cycle is taken: enough that its rounds outlast any lease here
/// (a cycle takes at least 1 ms, the polls 5 or 10: 16 polls, at least 80 ms, past 60).
const ROUNDS: usize = 16;

/// A random small scenario with a loop without end, as TOML.
fn scenario(
    (mode, poll_ms, lease_ms): (usize, u32, u32),
    (holder_forever, hold_ms, crash): (bool, u32, bool),
    (worker_forever, work_ms, toggle, chance): (bool, u32, bool, bool),
) -> String {
    let mode = ["poll", "queue", "lease"][mode];
    // At least one group goes round for ever.
    let worker_forever = worker_forever || !holder_forever;
    let forever = |yes: bool| if yes { "repeat = \"forever\"\n" } else { "" };
    let crash = if crash {
        "crash_anywhere = { count = 1 }\n"
    } else {
        ""
    };
    let value = if toggle { "1 - read" } else { "read + 1" };
    let branch = if chance {
        "{ if = { chance = 0.5 }, then = [{ delay_ms = 5 }] }, "
    } else {
        ""
    };
    format!(
        "model = \"scenario\"\n\
         [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"{mode}\"\npoll_ms = {poll_ms}\nlease_ms = {lease_ms}\n\
         [[resource]]\nname = \"R\"\nkind = \"register\"\n\
         [[actor]]\nname = \"h\"\n{}{crash}steps = [{{ acquire = \"L\" }}, {{ delay_ms = {hold_ms} }}, {{ release = \"L\" }}, {{ delay_ms = 1 }}]\n\
         [[actor]]\nname = \"w\"\nstart_ms = 3\n{}steps = [{{ acquire = \"L\" }}, {branch}{{ delay_ms = {work_ms} }}, {{ release = \"L\" }}, {{ read = \"R\" }}, {{ write = \"R\", value = \"{value}\" }}, {{ delay_ms = 2 }}]\n\
         [[watch]]\nname = \"w_done_ms\"\nmetric = \"w.completed\"\nat_least = 1\n\
         [[watch]]\nname = \"r_high_ms\"\nmetric = \"R.value\"\nat_least = 3\n",
        forever(holder_forever),
        forever(worker_forever),
    )
}

/// The watches' and the register's cells of `metrics` under `text`'s config.
fn watched(text: &str, metrics: &[Cell]) -> Vec<Cell> {
    let config = library_config(&registry(), "s.toml", text).unwrap();
    ["w_done_ms", "r_high_ms", "R.value"]
        .iter()
        .map(|name| {
            let at = (config.model.metrics().iter())
                .position(|c| c.name == *name)
                .unwrap();
            metrics[at].clone()
        })
        .collect()
}

/// Runs `schedule` at `text`'s only point: its metrics, or the error's words.
fn replay(text: &str, schedule: &Schedule) -> Result<Vec<Cell>, String> {
    let config = library_config(&registry(), "s.toml", text).unwrap();
    let context = RunContext::new(config.seed, config.plan.limits);
    (config.plan.plans[0].replay(&context, schedule))
        .map(|out| out.metrics)
        .map_err(|e| e.to_string())
}

fn check(text: &str) -> Result<(), TestCaseError> {
    let mut bounded = limits(coordsim_model::Reduction::On, true);
    bounded.max_states = 3_000;
    let explored = explore(text, &bounded);
    for outcome in &explored[0].outcomes {
        let schedule = &outcome.schedule;
        let mine = watched(text, &outcome.metrics);
        let Some(from) = schedule.cycle_from else {
            // An end: the same end in S_N.
            let unrolled = text.replace(
                "repeat = \"forever\"",
                &format!("repeat = {}", schedule.events.len() + 2),
            );
            let theirs = replay(&unrolled, schedule).map_err(TestCaseError::fail)?;
            prop_assert_eq!(&watched(&unrolled, &theirs), &mine, "{}", text);
            continue;
        };
        let (prefix, cycle) = schedule.events.split_at(from as usize);
        let mut events = prefix.to_vec();
        for _ in 0..ROUNDS {
            events.extend_from_slice(cycle);
        }
        let rounds = Schedule {
            max_faults: schedule.max_faults,
            events,
            cycle_from: Some(from),
        };
        // On S: round 16 times, back where the cycle began, the watches as the lasso says.
        let again = replay(text, &rounds).map_err(TestCaseError::fail)?;
        let again = watched(text, &again);
        prop_assert_eq!(&again[..2], &mine[..2], "{}", text);
        // On S_N: a prefix of one of its executions (it fits, and the run goes on).
        let unrolled = text.replace(
            "repeat = \"forever\"",
            &format!("repeat = {}", rounds.events.len() + 2),
        );
        let plain = Schedule {
            cycle_from: None,
            ..rounds
        };
        // Or S_N's run stopped early as stuck, nothing free: a poll that can never succeed
        // (a crashed holder's record) ends a run there, while S goes round it for ever.
        match replay(&unrolled, &plain) {
            Ok(_) => {}
            Err(e) => prop_assert!(
                e.contains("but the run goes on") || e.contains(", 0 events are free, not"),
                "{}\n{}",
                e,
                text
            ),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_cycle_search_agrees_with_the_unrolled_scenario(
        lock in (0usize..3, prop_oneof![Just(5u32), Just(10)], prop_oneof![Just(30u32), Just(60)]),
        holder in (any::<bool>(), 1u32..25, any::<bool>()),
        worker in (any::<bool>(), 1u32..15, any::<bool>(), any::<bool>()),
    ) {
        check(&scenario(lock, holder, worker))?;
    }
}
