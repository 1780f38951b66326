//! Loops without end (`repeat = "forever"`): the explorer keys states relative to now, finds
//! the cycles, and judges `eventually` over lassos (a prefix and a cycle for ever); each
//! figure by hand in the comments. A lasso replays (`run --schedule`), its cycle checked to
//! come back; what the cycle search does not cover is refused at its key.

use coordsim_model::Cell;

use crate::explore::{explore, limits};
use crate::harness::{check_config, coordsim, stderr, stdout, write_config};

/// A holder h takes L at 0 ms, holds it 20 ms and releases it, and may crash once at any
/// step boundary (`crash_anywhere`); a worker w from 5 ms, for ever: takes L (polled every
/// 10 ms), holds it 10 ms, releases it. `w_once_ms`: the first instant w has completed a
/// repetition.
const LIVENESS: &str = r#"model = "scenario"
[sweep]
mode = ["poll", "lease"]
[[resource]]
name = "L"
kind = "lock"
mode = "mode"
poll_ms = 10
lease_ms = 100
[[actor]]
name = "h"
crash_anywhere = { count = 1 }
steps = [{ acquire = "L" }, { delay_ms = 20 }, { release = "L" }]
[[actor]]
name = "w"
start_ms = 5
repeat = "forever"
steps = [{ acquire = "L" }, { delay_ms = 10 }, { release = "L" }]
[[watch]]
name = "w_once_ms"
metric = "w.completed"
at_least = 1
"#;

/// The cell of `metric` in each outcome of point `point`.
fn cells(text: &str, point: usize, metric: &str) -> Vec<Cell> {
    let config =
        crate::harness::library_config(&crate::harness::registry(), "c.toml", text).unwrap();
    let at = (config.model.metrics().iter())
        .position(|c| c.name == metric)
        .unwrap_or_else(|| panic!("no metric {metric}"));
    let explored = explore(text, &limits(coordsim_model::Reduction::On, true));
    explored[point]
        .outcomes
        .iter()
        .map(|o| o.metrics[at].clone())
        .collect()
}

/// By hand. Polled lock: without a crash h releases at 20, w's poll at 25 takes L and w
/// completes at 35, then goes round for ever (an endless execution, `w_once_ms` = 35). If h
/// crashes holding L (at 20, instead of releasing), its record stays: w polls at 25, 35, …
/// and fails each time — the state at 35 is the one at 25, 10 ms later: a lasso along which
/// w never completes (`w_once_ms` empty). Lease of 100 ms: the dead holder's record, taken
/// at 0, lapses past 100; w's poll at 105 takes it over and w completes at 115 — so both
/// endless executions reach the watch (35 and 115), and none ends.
#[test]
fn a_polled_lock_s_crashed_holder_is_a_lasso_and_a_lease_is_not() {
    let instants = |point| {
        let mut found: Vec<Option<f64>> = cells(LIVENESS, point, "w_once_ms")
            .into_iter()
            .map(|cell| match cell {
                Cell::Float(ms) => Some(ms),
                _ => None,
            })
            .collect();
        found.sort_by(|a, b| a.partial_cmp(b).unwrap());
        found
    };
    assert_eq!(instants(0), vec![None, Some(35.0)]);
    assert_eq!(instants(1), vec![Some(35.0), Some(115.0)]);
    let explored = explore(LIVENESS, &limits(coordsim_model::Reduction::On, true));
    for point in &explored {
        assert!(point.cycles && point.bounded.is_none());
        // Every outcome is a lasso here: w never ends.
        assert!(
            point
                .outcomes
                .iter()
                .all(|o| o.schedule.cycle_from.is_some())
        );
    }
}

#[test]
fn eventually_fails_with_the_lasso_and_the_lasso_replays() {
    let claims = r#"
[[claim]]
name = "poll"
where = { mode = "poll" }
over = "executions"
holds = "eventually"
metric = "w_once_ms"
[[claim]]
name = "lease"
where = { mode = "lease" }
over = "executions"
holds = "eventually"
metric = "w_once_ms"
"#;
    let text = format!("{LIVENESS}{claims}");
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = check_config(dir.path(), "live.toml", &text);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("FAIL") && out.contains("poll: w_once_ms = empty"),
        "{out}"
    );
    assert!(out.contains("the watch's condition never held"), "{out}");
    assert!(
        out.contains("PASS") && out.contains("lease: w_once_ms = "),
        "{out}"
    );
    // The counterexample: its trace ends with the cycle, its schedule says where it starts.
    let path = write_config(dir.path(), "live.toml", &text);
    let out_dir = dir.path().join("out");
    let explored = coordsim(&["explore", &path, "--out", &out_dir.to_string_lossy()]);
    let folder = out_dir.join("live-explore");
    let schedule = std::fs::read_to_string(folder.join("schedule-1.toml"))
        .unwrap_or_else(|_| panic!("{}{}", stdout(&explored), stderr(&explored)));
    // h takes L (1), w waits (2) and polls at 15 (3), h crashes at 20 (4), w polls at 25
    // (5) and 35 (6): the cycle is the sixth event alone (index 5).
    assert!(schedule.contains("cycle_from = 5"), "{schedule}");
    let trace = std::fs::read_to_string(folder.join("trace-1.csv")).unwrap();
    assert!(
        trace.contains("the cycle: from step 6 back to step 6, for ever"),
        "{trace}"
    );
    // Its chart gives the cycle's first step a column of its own: w's polls at 25 and 35
    // ms are steps 5 and 6, the second the cycle's, so they are not folded into "5–6 ×2".
    let chart = std::fs::read_to_string(folder.join("trace-1.svg")).unwrap();
    assert!(chart.contains("back to step 6"), "{chart}");
    assert!(!chart.contains("5–6") && !chart.contains("×2"), "{chart}");
    let schedule_path = folder.join("schedule-1.toml");
    let replayed = coordsim(&[
        "run",
        &path,
        "--schedule",
        &schedule_path.to_string_lossy(),
        "--out",
        &dir.path().join("replay").to_string_lossy(),
    ]);
    assert!(replayed.status.success(), "{}", stderr(&replayed));
    // A cycle that does not come back (the schedule's cycle said to start one event
    // earlier, at 25 ms, where w's next poll is 5 ms ahead, not 10) is an error.
    let tampered = schedule.replace("cycle_from = 5", "cycle_from = 4");
    let tampered_path = dir.path().join("tampered.toml");
    std::fs::write(&tampered_path, tampered).unwrap();
    let bad = coordsim(&[
        "run",
        &path,
        "--schedule",
        &tampered_path.to_string_lossy(),
        "--out",
        &dir.path().join("bad").to_string_lossy(),
    ]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("does not come back to the state it began in"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn what_the_cycle_search_does_not_judge_fails_with_why() {
    let claims = r#"
[[claim]]
name = "always"
over = "executions"
metric = "w.completed"
at_least = 0
[[claim]]
name = "bounded"
over = "executions"
holds = "eventually"
metric = "w_once_ms"
at_most = 200
"#;
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = check_config(dir.path(), "live.toml", &format!("{LIVENESS}{claims}"));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("claim `eventually` (a watch) or `sometimes`"),
        "{out}"
    );
    assert!(out.contains("with no bound on the instant"), "{out}");
}

#[test]
fn a_loop_without_end_is_refused_where_it_cannot_be_followed() {
    let dir = tempfile::tempdir().unwrap();
    // A run has no end to reach: its row is empty, every metric.
    let path = write_config(dir.path(), "live.toml", LIVENESS);
    let out = dir.path().join("o");
    let ran = coordsim(&["run", &path, "--out", &out.to_string_lossy()]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    let results = std::fs::read_to_string(out.join("live").join("results.csv")).unwrap();
    let mut lines = results.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == "w.completed");
    assert!(at.is_some(), "{results}");
    // Both points' rows (poll, lease), each with w.completed empty.
    assert_eq!(results.lines().count(), 3, "{results}");
    for row in lines {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(at.map(|at| cells[at]), Some(""), "{results}");
    }
    // A loop at one instant (a read and nothing else): infinitely many events with no
    // time passing.
    let zeno = r#"model = "scenario"
[[resource]]
name = "r"
kind = "register"
[[actor]]
name = "spin"
repeat = "forever"
steps = [{ read = "r" }]
"#;
    let path = write_config(dir.path(), "zeno.toml", zeno);
    let explored = coordsim(&[
        "explore",
        &path,
        "--out",
        &dir.path().join("z").to_string_lossy(),
    ]);
    assert!(!explored.status.success());
    assert!(
        stderr(&explored).contains("with no time passing") && stderr(&explored).contains("spin"),
        "{}",
        stderr(&explored)
    );
    // It points at the group's `repeat` (line 7, `repeat = "forever"`), not at the file.
    assert!(
        stderr(&explored).contains("zeno.toml:7:10: `actor[0].repeat`"),
        "{}",
        stderr(&explored)
    );
    // With a loop that takes time before it, the spinning group (the second) is named.
    let two = zeno.replace(
        "[[actor]]\nname = \"spin\"",
        "[[actor]]\nname = \"tick\"\nrepeat = \"forever\"\nsteps = [{ delay_ms = 5 }]\n[[actor]]\nname = \"spin\"",
    );
    let path = write_config(dir.path(), "zeno2.toml", &two);
    let explored = coordsim(&[
        "explore",
        &path,
        "--out",
        &dir.path().join("z2").to_string_lossy(),
    ]);
    assert!(
        stderr(&explored).contains("zeno2.toml:11:10: `actor[1].repeat`")
            && stderr(&explored).contains("give each repetition of spin a delay"),
        "{}",
        stderr(&explored)
    );
    // A queue is not in what the cycle key covers: refused at the step.
    let queued = r#"model = "scenario"
[[resource]]
name = "q"
kind = "queue"
[[actor]]
name = "p"
repeat = "forever"
steps = [{ put = "q", value = 1 }, { delay_ms = 1 }]
"#;
    let path = write_config(dir.path(), "queued.toml", queued);
    let explored = coordsim(&[
        "explore",
        &path,
        "--out",
        &dir.path().join("q").to_string_lossy(),
    ]);
    assert!(!explored.status.success());
    assert!(
        stderr(&explored).contains("a loop without end (`repeat = \"forever\"`) is explored over"),
        "{}",
        stderr(&explored)
    );
    // A fenced register: the token it accepted grows every round, so no state would come
    // back (before, it was explored to the bound).
    let fenced = r#"model = "scenario"
[[resource]]
name = "L"
kind = "lock"
fencing = true
[[resource]]
name = "r"
kind = "register"
fenced_by = "L"
[[actor]]
name = "w"
repeat = "forever"
steps = [{ acquire = "L" }, { write = "r", value = 1 }, { release = "L" }, { delay_ms = 5 }]
"#;
    let path = write_config(dir.path(), "fenced.toml", fenced);
    let explored = coordsim(&[
        "explore",
        &path,
        "--out",
        &dir.path().join("f").to_string_lossy(),
    ]);
    assert!(!explored.status.success());
    assert!(
        stderr(&explored).contains("register `r` is fenced"),
        "{}",
        stderr(&explored)
    );
    // An open loop cannot repeat for ever.
    let open = LIVENESS.replace("start_ms = 5\n", "start_ms = 5\nevery_ms = 50\n");
    let (code, out) = check_config(dir.path(), "open.toml", &open);
    assert_ne!(code, Some(0));
    assert!(out.contains("is a closed loop"), "{out}");
}

/// A counter incremented for ever never comes back to a state (its value grows), so the
/// search finds no cycle and stops at its bound, saying so, and claims nothing from it.
#[test]
fn a_loop_that_never_repeats_a_state_is_bounded() {
    let counter = r#"model = "scenario"
[[resource]]
name = "r"
kind = "register"
[[actor]]
name = "inc"
repeat = "forever"
steps = [{ read = "r" }, { write = "r", value = "read + 1" }, { delay_ms = 1 }]
"#;
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), "counter.toml", counter);
    let out = dir.path().join("o");
    let explored = coordsim(&[
        "explore",
        &path,
        "--max-states",
        "50",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(explored.status.success(), "{}", stderr(&explored));
    // One state per increment step: 50 states, the bound.
    assert!(
        stdout(&explored).contains("bounded: 50 states"),
        "{}",
        stdout(&explored)
    );
}

/// A worker that writes R and waits 10 ms, for ever, from 0 ms.
fn worker(extra: &str, steps: &str) -> String {
    format!(
        "model = \"scenario\"\n[[resource]]\nname = \"R\"\nkind = \"register\"\n\
         [[actor]]\nname = \"w\"\nrepeat = \"forever\"\n{extra}steps = {steps}\n"
    )
}

/// A step reading `now` or `k` tells rounds apart that the cycle key (relative time, no
/// repetition number) takes for one: by hand, `if now < 50 then R = 1 else R = 2` writes 2
/// from 50 ms on, yet keyed without the clock the search would close a cycle at 10 ms with
/// R = 1 for ever (a false counterexample to "R reaches 2"). Refused at the step, as `k`.
#[test]
fn a_step_reading_the_clock_or_the_repetition_is_refused_in_a_loop_without_end() {
    for var in ["now", "k"] {
        let text = worker(
            "",
            &format!(
                "[{{ if = {{ value = \"{var}\", below = 5 }}, then = [{{ write = \"R\", value = 1 }}], else = [{{ write = \"R\", value = 2 }}] }}, {{ delay_ms = 10 }}]"
            ),
        );
        let dir = tempfile::tempdir().unwrap();
        let path = write_config(dir.path(), "clock.toml", &text);
        let o = coordsim(&[
            "explore",
            &path,
            "--out",
            &dir.path().join("o").to_string_lossy(),
        ]);
        assert!(!o.status.success(), "{var}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("`actor[0].steps[0]`")
                && stderr(&o).contains("reads `now`, `k` or `attempt`"),
            "{var}: {}",
            stderr(&o)
        );
    }
}

/// A count that grows round the cycle has no value its endless execution keeps: the
/// lasso's cell is empty (the worker completes once a round: after one round 1, after two
/// 2), so no `sometimes` is witnessed by a round's count; a count that stays (R's value,
/// 1 every round) is the execution's for ever.
#[test]
fn a_lassos_growing_count_is_empty_and_a_settled_one_kept() {
    let text = worker("", "[{ write = \"R\", value = 1 }, { delay_ms = 10 }]");
    assert_eq!(cells(&text, 0, "w.completed"), [Cell::Empty]);
    assert_eq!(cells(&text, 0, "R.value"), [Cell::Float(1.0)]);
}

/// Ends reached after a cycle: a forever worker that may crash once anywhere ends after 0,
/// 1, 2, … completions, each an end the cycle key merges (it leaves the counts out), so the
/// ends listed are not all of them: the exploration says it is bounded (a cycle), not
/// exhaustive.
#[test]
fn ends_after_a_cycle_make_the_exploration_bounded() {
    let text = worker(
        "crash_anywhere = { count = 1 }\n",
        "[{ write = \"R\", value = 1 }, { delay_ms = 10 }]",
    );
    let explored = explore(&text, &limits(coordsim_model::Reduction::On, true));
    let bound = explored[0].bounded.expect("bounded");
    assert!(
        matches!(bound.reached, coordsim_model::Reached::Cycle),
        "{bound:?}"
    );
}

/// A point with a loop without end counts no executions, and its claims' rows say so on
/// the page, never "0 executions" (the shipped liveness config's page).
#[test]
fn a_loop_without_ends_rows_say_its_executions_are_not_counted() {
    let page = std::fs::read_to_string(
        crate::harness::root().join("reports/site/config-explore-liveness.html"),
    )
    .unwrap();
    assert!(
        page.contains("outcome 1 of 2 (executions not counted: a loop without end)"),
        "{page}"
    );
    assert!(!page.contains("(0 executions)"), "{page}");
}
