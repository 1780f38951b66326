//! Two loops without end as a course shows them, each figure by hand in its config's header
//! and in the comments here. A lease renewed for ever
//! (`configs/explore/explore-lease-renewed.toml`): a closed loop keeps its locks from round
//! to round, so a round may begin with `renew`; the waiter never gets a lease renewed in
//! time (a lasso), and gets one whose holder may pause past it in some executions.
//! Compare-and-set retries without end (`configs/explore/explore-cas-starvation.toml`): a
//! client that loses every race starves, under weak fairness.

use coordsim_model::Cell;

use crate::explore::{explore, limits};
use crate::harness::{check_config, root};

/// The shipped lease config.
fn config() -> String {
    shipped("explore-lease-renewed")
}

/// A shipped config of `configs/explore/`.
fn shipped(name: &str) -> String {
    std::fs::read_to_string(root().join(format!("configs/explore/{name}.toml"))).unwrap()
}

/// The cells of `metrics` in each outcome of `explored`, with whether it is a lasso.
fn cells_of(text: &str, point: usize, metrics: &[&str]) -> Vec<(Vec<Cell>, Option<u32>)> {
    let explored = explore(text, &limits(coordsim_model::Reduction::On, true));
    let library =
        crate::harness::library_config(&crate::harness::registry(), "c.toml", text).unwrap();
    let at: Vec<usize> = (metrics.iter())
        .map(|name| {
            (library.model.metrics().iter())
                .position(|c| c.name == *name)
                .unwrap()
        })
        .collect();
    (explored[point].outcomes.iter())
        .map(|o| {
            (
                at.iter().map(|&i| o.metrics[i].clone()).collect(),
                o.schedule.cycle_from,
            )
        })
        .collect()
}

/// By hand (the config's header): with no pause h renews at 30, 60, … and w polls at 5,
/// 15, … and fails for ever: one outcome, a lasso, w never done (`w_done_ms` empty,
/// `w.completed` 0). With a pause of 150 ms past the 100 ms lease: w takes L over at 105
/// and is done at 115 (h pausing in its first round), or never (h never pausing): two
/// lassos, as every execution goes on for ever.
#[test]
fn a_lease_renewed_in_time_keeps_the_waiter_out_and_a_pause_past_it_lets_it_in() {
    let text = config();
    let explored = explore(&text, &limits(coordsim_model::Reduction::On, true));
    let registry = crate::harness::registry();
    let library = crate::harness::library_config(&registry, "c.toml", &text).unwrap();
    let at = |name: &str| {
        (library.model.metrics().iter())
            .position(|c| c.name == name)
            .unwrap()
    };
    let (done_ms, completed) = (at("w_done_ms"), at("w.completed"));
    let seen = |point: usize| {
        let mut found: Vec<(Cell, Cell)> = (explored[point].outcomes.iter())
            .map(|o| (o.metrics[done_ms].clone(), o.metrics[completed].clone()))
            .collect();
        found.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        found
    };
    assert_eq!(seen(0), vec![(Cell::Empty, Cell::Count(0))]);
    assert_eq!(
        seen(1),
        vec![
            (Cell::Empty, Cell::Count(0)),
            (Cell::Float(115.0), Cell::Count(1)),
        ]
    );
    for point in &explored {
        assert!(
            point.cycles && point.bounded.is_none(),
            "{:?}",
            point.bounded
        );
        assert!(
            point
                .outcomes
                .iter()
                .all(|o| o.schedule.cycle_from.is_some())
        );
    }
    // The witness of w's turn: h pauses at 0, w takes L at 105 and releases it at 115; h's
    // renewal at 180 finds its lease lost and its acquire takes L again (a new token in
    // place of the stale one: "takes it", not "waits").
    let witness = (explored[1].outcomes.iter())
        .find(|o| o.metrics[completed] == Cell::Count(1))
        .unwrap();
    let rows: Vec<String> = (witness.trace.iter())
        .map(|s| format!("{} {} {}", s.time_ms, s.actor, s.action))
        .collect();
    assert!(
        rows.contains(&"105 w tries L again: takes it".to_string()),
        "{rows:?}"
    );
    assert!(
        rows.contains(&"180 h acquires L: takes it".to_string()),
        "{rows:?}"
    );
}

/// "Eventually w acquires" fails at both points, each with the lasso where h never pauses,
/// and the shipped claims (a `sometimes` for each side) pass.
#[test]
fn eventually_the_waiter_acquires_fails_with_the_renewal_lasso() {
    let claim = "\n[[claim]]\nname = \"w eventually\"\nover = \"executions\"\nholds = \"eventually\"\nmetric = \"w_done_ms\"\n";
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = check_config(dir.path(), "lease.toml", &config());
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = check_config(dir.path(), "lease.toml", &format!("{}{claim}", config()));
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(out.matches("FAIL").count(), 1, "{out}");
    assert!(out.contains("the watch's condition never held"), "{out}");
}

/// A round may begin with `renew` only where a round before it may have ended holding the
/// lock: in a closed loop that goes round (here for ever), not in one repetition (refused at
/// the step, as before).
#[test]
fn a_round_begins_holding_what_the_round_before_ended_holding() {
    let dir = tempfile::tempdir().unwrap();
    let once = config().replace("repeat = \"forever\"\n", "");
    let (code, out) = check_config(dir.path(), "once.toml", &once);
    assert_ne!(code, Some(0), "{out}");
    assert!(
        out.contains("steps[0].renew: the actor does not hold `L` here"),
        "{out}"
    );
    // A loop that releases L before its round ends starts the next holding nothing.
    let releasing = config().replace(
        "  { delay_ms = 30 },\n]",
        "  { delay_ms = 30 },\n  { release = \"L\" },\n]",
    );
    let (code, out) = check_config(dir.path(), "released.toml", &releasing);
    assert_ne!(code, Some(0), "{out}");
    assert!(
        out.contains("steps[0].renew: the actor does not hold `L` here"),
        "{out}"
    );
}

/// By hand (the config's header): both clients read R = 0 at 0 ms and land at 5 ms in a
/// free order; the loser is refused and goes round again. The scheduler that lands b first
/// every time starves a: refused at 5 and 10 ms (it gives up at the 2nd refusal), again at
/// 15 and 20; R flips 1, 0, 1, 0, so the state after a's refusal at 20 ms is the one after
/// its refusal at 10 ms. Each 5 ms round is 6 events (a's landing, read and write, b's
/// landing, read and write), so the lasso is the prefix of events 1–12 (up to a's refusal
/// at 10 ms) and a cycle of 12 events (two rounds): `cycle_from` = 12, 24 events in all,
/// `a.completed` 0 along it. Where a lands first at 5 ms it completes then: `a_done_ms` 5.
#[test]
fn a_compare_and_set_without_end_starves_the_client_that_loses_every_race() {
    let text = shipped("explore-cas-starvation");
    let found = cells_of(&text, 0, &["a.completed", "a_done_ms"]);
    assert!(found.iter().all(|(_, lasso)| lasso.is_some()), "{found:?}");
    assert!(
        found.contains(&(vec![Cell::Count(0), Cell::Empty], Some(12))),
        "{found:?}"
    );
    assert!(
        found.iter().any(|(cells, _)| cells[1] == Cell::Float(5.0)),
        "{found:?}"
    );
    let explored = explore(&text, &limits(coordsim_model::Reduction::On, true));
    let starved = (explored[0].outcomes.iter())
        .find(|o| o.schedule.cycle_from == Some(12))
        .unwrap();
    // The short cycle: the shortest way back, not a walk through every state of its set.
    assert_eq!(starved.schedule.events.len(), 24);
    let dir = tempfile::tempdir().unwrap();
    let claim = "\n[[claim]]\nname = \"a eventually\"\nover = \"executions\"\nholds = \"eventually\"\nmetric = \"a_done_ms\"\n";
    let (code, out) = check_config(dir.path(), "cas.toml", &format!("{text}{claim}"));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("FAIL") && out.contains("the watch's condition never held"),
        "{out}"
    );
}
