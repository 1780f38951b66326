//! Shorter ways to write a step: an `if` with only `else`, a `parallel` of `copies` of one
//! branch. Each runs as its long form does.

use super::{num, run_text};

/// Check-then-act: two services look a name up and insert it only when it is not there
/// (`if = "found", else = [insert]`). A at 0 ms finds nothing and inserts; B at 5 ms finds
/// A's key and inserts nothing: one key. With the condition turned round
/// (`if = "missing", else = [insert]`) neither inserts: no key. The long forms — `then`
/// with the opposite outcome, and an empty `then` — give the same.
#[test]
fn an_if_with_only_else_runs_its_steps_when_the_condition_does_not_hold() {
    let config = |step: &str| {
        format!(
            "model = \"scenario\"\n[[resource]]\nname = \"names\"\nkind = \"keys\"\n[[actor]]\nname = \"svc\"\nnames = [\"A\", \"B\"]\nstart_ms = [0, 5]\nsteps = [{{ lookup = \"names\", key = 7 }}, {step}]\n"
        )
    };
    let insert = "[{ insert = \"names\", key = 7 }]";
    let size = |step: &str| num(run_text(&config(step), 1).metric("names.size"));
    assert_eq!(size(&format!("{{ if = \"found\", else = {insert} }}")), 1.0);
    assert_eq!(
        size(&format!("{{ if = \"missing\", else = {insert} }}")),
        0.0
    );
    assert_eq!(
        size(&format!("{{ if = \"missing\", then = {insert} }}")),
        1.0
    );
    assert_eq!(
        size(&format!("{{ if = \"found\", then = [], else = {insert} }}")),
        1.0
    );
}

/// A fan-out to `n` shards, copy `c` waiting 2c ms and then asking instance `c` of a server
/// of fixed 9 ms services (one instance each: nothing queues). Written as copies, or as the
/// `n` branches spelled out with `c` in place of `copy`.
fn fan_out(n: u32, wait: u32, repeat: u32, copies: bool) -> String {
    let branches = if copies {
        "{ copies = \"n\", steps = [{ delay_ms = \"2 * copy\" }, { request = \"shards\", instance = \"copy\" }] }".to_string()
    } else {
        let each: Vec<String> = (0..n)
            .map(|c| {
                format!(
                    "[{{ delay_ms = {} }}, {{ request = \"shards\", instance = {c} }}]",
                    2 * c
                )
            })
            .collect();
        format!("[{}]", each.join(", "))
    };
    format!(
        "model = \"scenario\"\n[params]\nn = {n}\nneed = {wait}\n\
         [[resource]]\nname = \"shards\"\nkind = \"server\"\nservice_ms = 9\ninstances = 16\n\
         [[actor]]\nname = \"c\"\nrepeat = {repeat}\n\
         steps = [{{ parallel = {branches}, wait = \"need\" }}]\n"
    )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, .. proptest::prelude::ProptestConfig::default() })]

    /// `copies = "n"` is the `n` branches written out, each knowing its `copy`: the same
    /// figures. By hand: copy c asks at 2c ms and ends at 2c + 9, so waiting for `wait` of
    /// them takes 2(wait − 1) + 9 = 2·wait + 7 ms (odd: no copy asks at that instant). By
    /// then the copies c ≤ wait + 3 have asked, min(n, wait + 4) of them, and those that
    /// did not come through are cancelled in service.
    #[test]
    fn copies_of_a_branch_are_the_branches_written_out(
        n in 1u32..=16, wait_seed in 0u32..16, repeat in 1u32..5,
    ) {
        let wait = 1 + wait_seed % n;
        let (copied, written) = (
            run_text(&fan_out(n, wait, repeat, true), 1),
            run_text(&fan_out(n, wait, repeat, false), 1),
        );
        for m in ["c.completed", "c.mean_response_ms", "c.max_response_ms", "shards.requests", "shards.cancelled", "shards.wasted_requests", "makespan_ms"] {
            proptest::prop_assert_eq!(num(copied.metric(m)), num(written.metric(m)), "{}", m);
        }
        let asked = n.min(wait + 4);
        proptest::prop_assert_eq!(num(copied.metric("c.mean_response_ms")), f64::from(2 * wait + 7));
        proptest::prop_assert_eq!(num(copied.metric("shards.requests")), f64::from(asked * repeat));
        proptest::prop_assert_eq!(num(copied.metric("shards.cancelled")), f64::from((asked - wait) * repeat));
    }
}

/// Copies out of bounds, a bad key, and `copy` where there is no copy are refused where they
/// are written; a count chosen by a parameter is checked at each point.
#[test]
fn copies_out_of_bounds_or_misspelled_are_refused_where_written() {
    let head = "model = \"scenario\"\n[params]\nn = 20\n[[resource]]\nname = \"s\"\nkind = \"server\"\nservice_ms = 1\n[[actor]]\nname = \"c\"\n";
    // Line 10 is the steps line; the column is the bad value's or key's.
    for (steps, needle) in [
        (
            "steps = [{ parallel = { copies = 0, steps = [{ request = \"s\" }] } }]",
            "t.toml:10:34: actor[0].steps[0].parallel.copies: `copies` is a whole number from 1 to 16, got 0",
        ),
        (
            "steps = [{ parallel = { copies = 2, step = [{ request = \"s\" }] } }]",
            "t.toml:10:44: actor[0].steps[0].parallel.step: unknown key `step` of `parallel` (did you mean `steps`?)",
        ),
        (
            "steps = [{ parallel = { copies = 2 } }]",
            "t.toml:10:23: actor[0].steps[0].parallel: copies of one branch are { copies = \"n\", steps = [...] }",
        ),
        (
            "steps = [{ delay_ms = \"copy\" }]",
            "t.toml:10:23: actor[0].steps[0].delay_ms: in \"copy\" at character 1: `copy` is which copy of a branch a step is in, inside `parallel = { copies = …, steps = [...] }` only",
        ),
        (
            "steps = [{ parallel = [[{ delay_ms = \"copy\" }]] }]",
            "`copy` is which copy of a branch a step is in",
        ),
    ] {
        let e = super::load_error(&format!("{head}{steps}\n"));
        assert!(e.contains(needle), "`{needle}` not in `{e}`");
    }
    // n = 20 is known only at the point: refused there, at `copies`.
    let text = format!(
        "{head}steps = [{{ parallel = {{ copies = \"n\", steps = [{{ request = \"s\" }}] }} }}]\n"
    );
    let e = match crate::harness::library_config(&crate::harness::registry(), "t.toml", &text) {
        Ok(config) => config.plan.plans[0]
            .run(&coordsim_model::RunContext::new(0, config.plan.limits))
            .map(|_| ())
            .expect_err("20 copies")
            .to_string(),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("t.toml:10:34") && e.contains("must be a whole number from 1 to 16, got 20"),
        "{e}"
    );
}
