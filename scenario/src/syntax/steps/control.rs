//! Branches (`if` and its conditions) and crashes.

use coordsim_model::{ComposeError, Value};

use super::before::{Before, Nested};
use crate::syntax::flow::{self, Outcomes};
use crate::syntax::read::{Path, Reader, at, at_index, fail, get, string, table};
use crate::syntax::spec::{CMPS, Condition, Crash, OUTCOMES, Scope, Step};

/// `{ if = …, then = [...], else = [...] }`, either branch left out when empty.
pub(super) fn branch(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    step_value: &Value,
    depth: usize,
    nested: Nested,
) -> Result<Step, ComposeError> {
    let entries = table(&path, step_value, "an if step", &["if", "then", "else"])?;
    let here = at(&path, "if");
    let condition = condition(
        reader,
        before,
        here.clone(),
        get(entries, "if").expect("an action"),
    )?;
    if let Condition::Outcome(outcome) = condition
        && !before.outcomes.has(outcome)
        && before.impossible.is_none()
    {
        let name = OUTCOMES[outcome as usize];
        let why = if before.outcomes == Outcomes::EMPTY {
            "no path reaches it: it is in the `else` of an `if` on the only outcome there can be, which always holds".to_string()
        } else {
            format!(
                "the last step with an outcome before it ends with {}{}",
                before.outcomes.names().join(", "),
                flow::only_where(name)
            )
        };
        before.impossible = Some((
            here,
            format!("`{name}` can never be the outcome here, so this `if` never holds: {why}"),
        ));
    }
    // Either branch may be left out: `else` alone runs steps only when the condition does
    // not hold (`{ if = "found", else = [...] }` is "if not found").
    if get(entries, "then").is_none() && get(entries, "else").is_none() {
        return fail(
            path,
            "an `if` needs `then` (the steps run when the condition holds), `else` (the steps run when it does not), or both",
        );
    }
    let mut then_before = before.clone();
    let mut else_before = before.clone();
    // On its branches, an outcome `if` tells which outcome the last step left: its own on
    // `then`, any other on `else`.
    if let Condition::Outcome(outcome) = condition {
        then_before.outcomes = before.outcomes.and(Outcomes::one(outcome));
        else_before.outcomes = before.outcomes.without(Outcomes::one(outcome));
    }
    let then = nested(
        reader,
        &mut then_before,
        at(&path, "then"),
        get(entries, "then"),
        depth,
    )?;
    let otherwise = nested(
        reader,
        &mut else_before,
        at(&path, "else"),
        get(entries, "else"),
        depth,
    )?;
    *before = Before::join(then_before, else_before);
    Ok(Step::If {
        condition,
        then,
        otherwise,
    })
}

/// An `if`'s condition: `"timed_out"` (an outcome), `{ outcome = "acquired" }`,
/// `{ chance = 0.1 }` or `{ value = "attempt", below = 3 }`.
fn condition(
    reader: &Reader<'_>,
    before: &Before,
    here: Path,
    value: &Value,
) -> Result<Condition, ComposeError> {
    let outcome = |path: Path, value: &Value| -> Result<Condition, ComposeError> {
        let name = string(path.clone(), value, "an outcome")?;
        match OUTCOMES.iter().position(|known| *known == name) {
            Some(index) => Ok(Condition::Outcome(index as u8)),
            None => fail(
                path,
                format!(
                    "unknown outcome \"{name}\"; valid: {} (the last step's that has one)",
                    OUTCOMES.join(", ")
                ),
            ),
        }
    };
    let shapes = "an `if` is an outcome (\"timed_out\"), { outcome = \"…\" }, { chance = p } or { value = \"expression\", below = n } (or above, at_least, at_most, equals)";
    let entries = match value {
        Value::Str(_) => return outcome(here, value),
        Value::Table(entries) => entries,
        _ => return fail(here, shapes),
    };
    let mut keys = vec!["outcome", "chance", "stream", "value"];
    keys.extend(CMPS.iter().map(|(k, _)| *k));
    table(&here, value, "a condition", &keys)?;
    if let Some(named) = get(entries, "outcome") {
        if entries.len() > 1 {
            return fail(here, shapes);
        }
        return outcome(at(&here, "outcome"), named);
    }
    if let Some(probability) = get(entries, "chance") {
        let stream = get(entries, "stream")
            .map(|s| stream_name(at(&here, "stream"), s))
            .transpose()?;
        if entries.len() > 1 + usize::from(stream.is_some()) {
            return fail(here, shapes);
        }
        return Ok(Condition::Chance(
            reader.num(at(&here, "chance"), probability, Scope::Step, &before.read)?,
            stream,
        ));
    }
    let (Some(compared), 2) = (get(entries, "value"), entries.len()) else {
        return fail(here, shapes);
    };
    let (key, cmp) = CMPS
        .iter()
        .find(|(k, _)| get(entries, k).is_some())
        .expect("a table of two known keys, one of them `value`");
    Ok(Condition::Compare(
        reader.num(at(&here, "value"), compared, Scope::Step, &before.read)?,
        *cmp,
        reader.num(
            at(&here, key),
            get(entries, key).expect("found"),
            Scope::Step,
            &before.read,
        )?,
    ))
}

/// `crash = …`: "all", a list of actor names, `{ count = N }` or `{ probability = p }`.
pub(super) fn crash(reader: &Reader<'_>, here: Path, value: &Value) -> Result<Crash, ComposeError> {
    Ok(match value {
        Value::Str(s) if s == "all" => Crash::All,
        Value::List(items) => Crash::Names(
            items
                .iter()
                .enumerate()
                .map(|(i, n)| string(at_index(&here, i), n, "an actor's name"))
                .collect::<Result<_, _>>()?,
        ),
        Value::Table(entries) => {
            table(
                &here,
                value,
                "a crash rule",
                &["count", "probability", "stream"],
            )?;
            let stream = get(entries, "stream")
                .map(|s| stream_name(at(&here, "stream"), s))
                .transpose()?;
            if stream.is_some() && get(entries, "probability").is_none() {
                return fail(
                    at(&here, "stream"),
                    "`stream` names where a crash `probability` draws from",
                );
            }
            match (get(entries, "count"), get(entries, "probability")) {
                (Some(count), None) => {
                    Crash::First(reader.num(at(&here, "count"), count, Scope::Params, &[])?)
                }
                (None, Some(probability)) => Crash::Probability(
                    reader.num(at(&here, "probability"), probability, Scope::Params, &[])?,
                    stream,
                ),
                _ => {
                    return fail(
                        here,
                        "a crash rule is { count = N } (the group's first N actors) or { probability = p } (each time, independently)",
                    );
                }
            }
        }
        _ => {
            return fail(
                here,
                "`crash` is \"all\", a list of actor names, { count = N } or { probability = p }",
            );
        }
    })
}

/// A named random stream: 1 to 200 printable characters.
fn stream_name(path: Path, value: &Value) -> Result<String, ComposeError> {
    let name = string(path.clone(), value, "a stream's name")?;
    if name.is_empty() || name.len() > 200 || name.chars().any(char::is_control) {
        return fail(path, "a stream's name is 1 to 200 printable characters");
    }
    Ok(name)
}
