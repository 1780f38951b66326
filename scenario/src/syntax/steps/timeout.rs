//! A blocking step's `timeout_ms`, `give_up_after_ms` and `on_timeout`.

use coordsim_model::{ComposeError, Value};

use super::before::{Before, Nested};
use crate::syntax::flow::Outcomes;
use crate::syntax::read::{Path, Reader, at, fail, get, string, table};
use crate::syntax::spec::{Number, OnTimeout, Scope, THENS, Then};

/// A blocking step's `timeout_ms` and `on_timeout` (and an acquire's `give_up_after_ms`,
/// which is a timeout that ends the repetition).
///
/// Its steps start with the outcome `timed_out` when it has a `timeout_ms`, and `refused`
/// when the step may be refused (`refused`: a request to a server that may fail fast);
/// what they leave goes on to the next step with `go_on` (`before.from_timeout`), or starts
/// the attempt again with `retry`. Steps that neither can bring never run: each point
/// refuses such an `on_timeout` (with no `timeout_ms`), so no `if` in them is judged here.
pub(super) fn on_timeout(
    reader: &Reader<'_>,
    before: &mut Before,
    path: &Path,
    entries: &[(String, Value)],
    depth: usize,
    refused: bool,
    nested: Nested,
) -> Result<Option<OnTimeout>, ComposeError> {
    let after = match (get(entries, "timeout_ms"), get(entries, "give_up_after_ms")) {
        (Some(_), Some(_)) => {
            return fail(
                at(path, "give_up_after_ms"),
                "give `timeout_ms` (with `on_timeout`) or `give_up_after_ms`, not both",
            );
        }
        (Some(t), None) => {
            Some(reader.num(at(path, "timeout_ms"), t, Scope::Step, &before.read)?)
        }
        (None, Some(given)) => {
            return Ok(Some(OnTimeout {
                after: Some(reader.num(
                    at(path, "give_up_after_ms"),
                    given,
                    Scope::Step,
                    &before.read,
                )?),
                key: "give_up_after_ms",
                steps: Vec::new(),
                then: Then::End,
            }));
        }
        (None, None) => None,
    };
    let Some(handler) = get(entries, "on_timeout") else {
        return Ok(after.map(|after| OnTimeout {
            after: Some(after),
            key: "timeout_ms",
            steps: Vec::new(),
            then: Then::End,
        }));
    };
    let here = at(path, "on_timeout");
    let handler_table = table(
        &here,
        handler,
        "`on_timeout`",
        &["steps", "then", "max_attempts", "backoff_ms", "jitter_ms"],
    )?;
    let mut inside = before.clone();
    inside.outcomes = Outcomes::EMPTY;
    if after.is_some() {
        inside.outcomes = Outcomes::of(&["timed_out"]);
    }
    if refused {
        inside.outcomes = inside.outcomes.or(Outcomes::of(&["refused"]));
    }
    let never_runs = inside.outcomes == Outcomes::EMPTY;
    let steps = nested(
        reader,
        &mut inside,
        at(&here, "steps"),
        get(handler_table, "steps"),
        depth,
    )?;
    let then = match get(handler_table, "then") {
        None if get(handler_table, "max_attempts").is_some() => "retry",
        None => "end",
        Some(value) => {
            let then_name = string(at(&here, "then"), value, "`then`")?;
            match THENS.iter().find(|o| **o == then_name) {
                Some(o) => o,
                None => {
                    return fail(
                        at(&here, "then"),
                        format!(
                            "unknown `then` \"{then_name}\"; valid: \"retry\" (the repetition again from its first step), \"end\" (it gives up), \"go_on\" (the next step)"
                        ),
                    );
                }
            }
        }
    };
    let number = |key: &str, default: f64| -> Result<Number, ComposeError> {
        match get(handler_table, key) {
            Some(n) => reader.num(at(&here, key), n, Scope::Step, &inside.read),
            None => Ok(Number::Lit(default)),
        }
    };
    if then == "retry" && before.in_branch {
        return fail(
            at(&here, "then"),
            "a branch of a `parallel` cannot start the repetition again (`retry`); end the branch (`then = \"end\"`, the branch fails) or go on (`\"go_on\"`), and retry after the join with an `if` on `failed`",
        );
    }
    let then = if then == "retry" {
        let Some(max) = get(handler_table, "max_attempts") else {
            return fail(
                here,
                "a retry needs `max_attempts`, the most attempts of a repetition (every loop is bounded)",
            );
        };
        Then::Retry {
            max_attempts: reader.num(at(&here, "max_attempts"), max, Scope::Params, &[])?,
            backoff_ms: number("backoff_ms", 0.0)?,
            jitter_ms: number("jitter_ms", 0.0)?,
        }
    } else {
        for key in ["max_attempts", "backoff_ms", "jitter_ms"] {
            if get(handler_table, key).is_some() {
                return fail(
                    at(&here, key),
                    format!(
                        "`{key}` is for `then = \"retry\"`; this timeout's `then` is \"{then}\""
                    ),
                );
            }
        }
        if then == "end" { Then::End } else { Then::GoOn }
    };
    if never_runs {
        inside.impossible = None;
    }
    before.learn(&inside);
    match then {
        Then::GoOn => before.from_timeout = inside.outcomes,
        Then::Retry { .. } => before.restart = before.restart.or(inside.outcomes),
        Then::End => {}
    }
    Ok(Some(OnTimeout {
        after,
        key: "timeout_ms",
        steps,
        then,
    }))
}
