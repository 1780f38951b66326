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
    assert_eq!(size(&format!("{{ if = \"missing\", else = {insert} }}")), 0.0);
    assert_eq!(size(&format!("{{ if = \"missing\", then = {insert} }}")), 1.0);
    assert_eq!(
        size(&format!("{{ if = \"found\", then = [], else = {insert} }}")),
        1.0
    );
}
