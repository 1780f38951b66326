//! A fork's lone-request first branch, made in its parent's name (`INLINE`) in a plain run,
//! gives every figure the drawn run gives (where every branch is a job): open loops whose
//! repetitions overlap at forks, several forks in a row, a fork in a timeout's steps, `if`s
//! and instances on `winner` / `joined` after a join, timeouts before a fork, `copies`, a
//! server with down windows, a crashing group, runs cut short by the time limit.

use coordsim_model::RunContext;
use proptest::prelude::*;

/// Every cell of one run (or the error), plain or drawn; `None`: the config does not load.
fn cells(
    text: &str,
    seed: u64,
    lanes: bool,
    max_ms: Option<u64>,
) -> Option<Result<Vec<String>, String>> {
    let config = match crate::harness::library_config(&crate::harness::registry(), "t.toml", text) {
        Ok(c) => c,
        Err(_) => {
            return None;
        }
    };
    let mut limits = config.plan.limits;
    if let Some(ms) = max_ms {
        limits.max_time = ms * 1_000_000;
    }
    let ctx = RunContext::new(seed, limits)
        .with_lanes(lanes)
        .with_distributions(true);
    Some(match config.plan.plans[0].run(&ctx) {
        Ok(out) => {
            let rows = out
                .entities
                .iter()
                .flat_map(|(name, cells)| cells.iter().map(move |cell| format!("{name} {cell}")));
            let dists = out.distributions.iter().map(|(n, d)| format!("{n} {d:?}"));
            Ok(out
                .metrics
                .iter()
                .map(|cell| cell.to_string())
                .chain(rows)
                .chain(dists)
                .collect())
        }
        Err(e) => Err(e.to_string()),
    })
}

fn server() -> impl Strategy<Value = &'static str> {
    (0usize..4).prop_map(|s| ["A", "B", "S", "D"][s])
}

/// A lone request a fork may make inline (no `D`: it has down windows).
fn lone() -> impl Strategy<Value = String> {
    let up = (0usize..3).prop_map(|s| ["A", "B", "S"][s]);
    prop_oneof![
        3 => up.clone().prop_map(|s| format!("{{ request = \"{s}\" }}")),
        1 => up.clone().prop_map(|s| format!("{{ request = \"{s}\", instance = \"k + i\" }}")),
        1 => up.prop_map(|s| format!("{{ request = \"{s}\", instance = \"winner + joined + k\" }}")),
    ]
}

/// Any block of a branch or of the steps around the forks.
fn any_block() -> impl Strategy<Value = String> {
    prop_oneof![
        server().prop_map(|s| format!("{{ request = \"{s}\" }}")),
        server().prop_map(|s| format!("{{ request = \"{s}\", instance = \"k + i\" }}")),
        (server(), 1u64..15, 0usize..3).prop_map(|(s, t, then)| {
            let then = [
                "",
                ", on_timeout = { then = \"go_on\" }",
                ", on_timeout = { then = \"end\" }",
            ][then];
            format!("{{ request = \"{s}\", timeout_ms = {t}{then} }}")
        }),
        (0u64..5).prop_map(|d| format!("{{ delay_ms = {d} }}")),
        (1u64..6).prop_map(|t| format!(
            "{{ send = \"K\", timeout_ms = {t}, on_timeout = {{ then = \"go_on\" }} }}"
        )),
    ]
}

/// What follows a join: nothing, an `if` on `winner` or `joined`, or a request at an
/// instance computed from them.
fn after_join() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        Just(vec![]),
        (server(), 1u64..3).prop_map(|(s, w)| vec![format!(
            "{{ if = {{ value = \"winner\", equals = {w} }}, then = [{{ request = \"{s}\", timeout_ms = 3, on_timeout = {{ then = \"go_on\" }} }}], else = [{{ delay_ms = 1 }}] }}"
        )]),
        (server(), 0u64..3).prop_map(|(s, j)| vec![format!(
            "{{ if = {{ value = \"joined\", above = {j} }}, then = [{{ request = \"{s}\" }}], else = [{{ end = \"gave_up\" }}] }}"
        )]),
        server().prop_map(|s| vec![format!("{{ request = \"{s}\", instance = \"winner + joined\" }}")]),
        Just(vec!["{ if = \"joined\", then = [{ delay_ms = 1 }], else = [{ delay_ms = 2 }] }".to_string()]),
        (server(), 1u64..8, 0u64..4).prop_map(|(s, t, b)| vec![format!(
            "{{ request = \"{s}\", timeout_ms = {t}, on_timeout = {{ then = \"retry\", max_attempts = 2, backoff_ms = {b} }} }}"
        )]),
    ]
}

/// One fork: a first branch (mostly a lone request), other branches, its join's options.
fn fork() -> impl Strategy<Value = String> {
    let first = prop_oneof![
        4 => lone().prop_map(|s| vec![s]),
        1 => proptest::collection::vec(any_block(), 1..3),
    ];
    let branch_block = prop_oneof![
        6 => any_block(),
        1 => Just("{ end = true }".to_string()),
        1 => Just("{ end = \"gave_up\" }".to_string()),
        1 => (0u64..3).prop_map(|k| format!("{{ if = {{ value = \"k\", below = {k} }}, then = [{{ end = true }}] }}")),
    ];
    let others = proptest::collection::vec(
        (
            proptest::option::of(0u64..20),
            proptest::collection::vec(branch_block, 1..3),
        ),
        0..3,
    );
    (first, others, 0usize..4, any::<bool>(), any::<bool>(), 0usize..4).prop_map(
        |(first, others, wait, withdraw, tied, copies)| {
            let n = 1 + others.len();
            let cancel = if withdraw { "withdraw" } else { "abandon" };
            if copies == 0 {
                let c = 1 + (wait % 3);
                let wait = ["\"first\"", "\"all\"", "2"][wait % 3];
                let wait = if wait == "2" && c < 2 { "\"all\"" } else { wait };
                return format!(
                    "{{ parallel = {{ copies = {c}, steps = [{{ request = \"A\", instance = \"copy + k\" }}] }}, wait = {wait}, cancel = \"{cancel}\" }}"
                );
            }
            let mut list = vec![format!("[{}]", first.join(", "))];
            for (delay, blocks) in &others {
                let steps: Vec<String> = delay
                    .iter()
                    .map(|d| format!("{{ delay_ms = {d} }}"))
                    .chain(blocks.iter().cloned())
                    .collect();
                list.push(format!("[{}]", steps.join(", ")));
            }
            let (wait, tied) = match wait {
                0 => ("\"first\"".to_string(), tied),
                1 => ("\"all\"".to_string(), false),
                _ => (n.min(2).to_string(), false),
            };
            format!(
                "{{ parallel = [{}], wait = {wait}, cancel = \"{cancel}\", tied = {tied} }}",
                list.join(", ")
            )
        },
    )
}

const HEAD: &str = "model = \"scenario\"\n\
    [[resource]]\nname = \"A\"\nkind = \"server\"\nservice_ms = 4\nservice = \"exponential\"\ninstances = 2\n\
    [[resource]]\nname = \"B\"\nkind = \"server\"\nservice_ms = 2\n\
    [[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 3\nservice = \"exponential\"\n\
    [[resource]]\nname = \"K\"\nkind = \"link\"\nrtt_ms = 2\nloss = 0.3\n";

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, max_global_rejects: 100000, .. ProptestConfig::default() })]

    /// Random plain-vs-drawn pairs, weighted toward a lone request as a fork's first
    /// branch: metrics, entity rows and distributions equal, or the same error.
    #[test]
    fn an_inline_first_branch_changes_no_figure(
        others in proptest::collection::vec(
            (0u64..4, 1u32..3, 1u64..4, proptest::option::of(1u64..6), proptest::collection::vec(any_block(), 1..4)), 0..3),
        pre in proptest::collection::vec(any_block(), 0..3),
        forks in proptest::collection::vec((fork(), after_join()), 1..4),
        down in (0u64..20, 1u64..20, any::<bool>()),
        clients in 1u32..6, repeat in 1u64..60, every in proptest::option::of(1u64..8),
        seed in 0u64..1000, handler in (any::<bool>(), 1u64..5),
        max_ms in proptest::option::of(5u64..150), poisson in any::<bool>(), crasher in any::<bool>(), fixed in any::<bool>(),
    ) {
        let mut text = if fixed { HEAD.replace("service = \"exponential\"\n", "") } else { HEAD.to_string() };
        let when = if down.2 { "fail" } else { "wait" };
        text += &format!(
            "[[resource]]\nname = \"D\"\nkind = \"server\"\nservice_ms = 2\ndown = [[{}, {}], [{}, {}]]\nwhen_down = \"{when}\"\n",
            down.0, down.0 + down.1, down.0 + down.1 + 10, down.0 + 2 * down.1 + 10
        );
        for (a, (start, count, repeat, every, blocks)) in others.iter().enumerate() {
            let pace = every.map(|e| format!("every_ms = {e}\n")).unwrap_or_default();
            text += &format!(
                "[[actor]]\nname = \"g{a}\"\ncount = {count}\nrepeat = {repeat}\nstart_ms = {start}\n{pace}steps = [{}]\n",
                blocks.join(", ")
            );
        }
        if crasher {
            text += "[[actor]]\nname = \"x\"\ncount = 2\nrepeat = 4\nevery_ms = 3\nsteps = [{ request = \"A\", timeout_ms = 5, on_timeout = { then = \"go_on\" } }, { crash = { probability = 0.3 }, restart_after_ms = 2 }, { request = \"S\" }]\n";
        }
        let mut steps = pre.clone();
        for (at, (fork, after)) in forks.iter().enumerate() {
            if at == 0 && handler.0 {
                // The fork in a timeout's steps.
                steps.push(format!(
                    "{{ request = \"D\", timeout_ms = {}, on_timeout = {{ steps = [{fork}], then = \"go_on\" }} }}",
                    handler.1
                ));
            } else {
                steps.push(fork.clone());
            }
            steps.extend(after.iter().cloned());
        }
        let mut pace = every.map(|e| format!("every_ms = {e}\n")).unwrap_or_default();
        if poisson && !pace.is_empty() {
            pace += "arrivals = \"poisson\"\n";
        }
        text += &format!(
            "[[actor]]\nname = \"h\"\ncount = {clients}\nrepeat = {repeat}\nstart_ms = \"0.5 * i\"\n{pace}steps = [{}]\n",
            steps.join(", ")
        );
        let plain = cells(&text, seed, false, max_ms);
        prop_assume!(plain.is_some());
        let drawn = cells(&text, seed, true, max_ms);
        prop_assert_eq!(plain, drawn, "{}", text);
    }
}

/// A request at a negative instance in an inline branch stops the run with the error, at
/// the step, that the drawn run (where the branch is a job) stops with.
#[test]
fn an_inline_branchs_error_is_the_jobs() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"A\"\nkind = \"server\"\nservice_ms = 4\ninstances = 2\n\
        [[resource]]\nname = \"B\"\nkind = \"server\"\nservice_ms = 2\n\
        [[actor]]\nname = \"h\"\nrepeat = 3\n\
        steps = [{ parallel = [[{ request = \"A\", instance = \"k - 1\" }], [{ request = \"B\" }]], wait = \"first\" }]\n";
    let plain = cells(text, 0, false, None);
    assert!(
        matches!(&plain, Some(Err(e)) if e.contains("instance")),
        "{plain:?}"
    );
    assert_eq!(plain, cells(text, 0, true, None));
}
