//! Steps on queues and key stores, and transactions.

use coordsim_model::{ComposeError, Value};

use super::before::{Before, Nested};
use super::timeout::on_timeout;
use crate::syntax::read::{Path, Reader, at, fail, get, table, text_of};
use crate::syntax::spec::{KeyOp, Number, Scope, Step};

/// A step on a queue or a key store, or a transaction.
pub(super) fn delivery(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    step_value: &Value,
    action: &str,
    depth: usize,
    nested: Nested,
) -> Result<Step, ComposeError> {
    let entries = match step_value {
        Value::Table(e) => e,
        _ => unreachable!("a step is a table"),
    };
    let value = get(entries, action).expect("an action");
    let here = at(&path, action);
    Ok(match action {
        "put" => put(
            reader,
            before,
            &path,
            step_value,
            value,
            here,
            &["put", "value", "fields"],
        )?,
        "call" => {
            let Step::Put {
                queue,
                value,
                fields,
            } = put(
                reader,
                before,
                &path,
                step_value,
                value,
                here,
                &["call", "value", "fields", "timeout_ms", "on_timeout"],
            )?
            else {
                unreachable!("a put")
            };
            let timeout = on_timeout(reader, before, &path, entries, depth, false, nested)?;
            // `reply` is known from here on.
            let last = before.read.len() - 1;
            before.read[last] = true;
            Step::Call {
                queue,
                value,
                fields,
                timeout,
            }
        }
        "reply" => {
            let entries = table(&path, step_value, "a reply step", &["reply", "value"])?;
            let queue = reader.resource_named(here.clone(), value, "queue")?;
            if !before.read[slot(reader, "queue", queue)] {
                return fail(
                    here,
                    format!(
                        "the actor takes nothing from `{}` before this step: a reply answers the call whose message it last took",
                        text_of(value)
                    ),
                );
            }
            let value = match get(entries, "value") {
                Some(x) => reader.num(at(&path, "value"), x, Scope::Step, &before.read)?,
                None => Number::Lit(0.0),
            };
            Step::Reply { queue, value }
        }
        "take" => {
            let entries = table(
                &path,
                step_value,
                "a take step",
                &["take", "timeout_ms", "on_timeout"],
            )?;
            let queue = reader.resource_named(here, value, "queue")?;
            let timeout = on_timeout(reader, before, &path, entries, depth, false, nested)?;
            before.read[slot(reader, "queue", queue)] = true;
            Step::Take { queue, timeout }
        }
        "ack" => {
            table(&path, step_value, "an ack step", &["ack"])?;
            let queue = reader.resource_named(here.clone(), value, "queue")?;
            if reader.unacked.contains(&queue) {
                return fail(
                    here,
                    format!(
                        "`{}` has no `visibility_ms`, so a take removes its message and there is nothing to acknowledge: drop the ack, or set `visibility_ms` on the queue (at-least-once: a taken message hidden that long, until acknowledged)",
                        text_of(value)
                    ),
                );
            }
            if !before.read[slot(reader, "queue", queue)] {
                return fail(
                    here,
                    format!(
                        "the actor takes nothing from `{}` before this step: an ack acknowledges the message it last took",
                        text_of(value)
                    ),
                );
            }
            Step::Ack(queue)
        }
        "transaction" => {
            if before.in_transaction {
                return fail(here, "a transaction holds no transaction");
            }
            let Value::List(items) = value else {
                return fail(
                    here,
                    "`transaction` is a list of steps that land together, e.g. [{ remove = \"shelf\", key = \"i\" }, { put = \"outbox\" }]",
                );
            };
            before.in_transaction = true;
            let steps = nested(reader, before, here, Some(value), depth);
            before.in_transaction = false;
            let steps = steps?;
            if items.is_empty() {
                return fail(
                    at(&path, "transaction"),
                    "a transaction holds at least one step",
                );
            }
            Step::Transaction(steps)
        }
        operation => keys(reader, before, &path, step_value, value, here, operation)?,
    })
}

/// A queue's or a key store's place in `Before::read`: after the registers, by resource
/// index.
fn slot(reader: &Reader<'_>, kind: &str, index: u16) -> usize {
    let mut of_kind = 0;
    for (resource, (_, resource_kind)) in reader.resources.iter().enumerate() {
        if *resource_kind == kind {
            if of_kind == index {
                return reader.registers.len() + resource;
            }
            of_kind += 1;
        }
    }
    unreachable!("a resource of its kind")
}

/// A put (or a call's put): its value and fields, each an expression of the step's names;
/// `keys` are the step's keys.
fn put(
    reader: &Reader<'_>,
    before: &Before,
    path: &Path,
    step_value: &Value,
    value: &Value,
    here: Path,
    keys: &[&str],
) -> Result<Step, ComposeError> {
    let path = path.clone();
    let what = if keys[0] == "call" {
        "a call step"
    } else {
        "a put step"
    };
    let entries = table(&path, step_value, what, keys)?;
    let queue = reader.resource_named(here, value, "queue")?;
    let value = match get(entries, "value") {
        Some(x) => reader.num(at(&path, "value"), x, Scope::Step, &before.read)?,
        None => Number::Lit(0.0),
    };
    let names = reader.queue_fields(queue);
    let mut fields = vec![Number::Lit(0.0); names.len()];
    match get(entries, "fields") {
        None => {}
        Some(Value::Table(given)) => {
            for (field, number) in given {
                let Some(field_index) = names.iter().position(|name| name == field) else {
                    return fail(
                        at(&at(&path, "fields"), field),
                        format!(
                            "the queue's messages have no field `{field}`; its fields: {}",
                            if names.is_empty() {
                                "none (declare them with `fields = [...]` on the queue)".to_string()
                            } else {
                                names.join(", ")
                            }
                        ),
                    );
                };
                fields[field_index] = reader.num(
                    at(&at(&path, "fields"), field),
                    number,
                    Scope::Step,
                    &before.read,
                )?;
            }
        }
        Some(other) => {
            return fail(
                at(&path, "fields"),
                format!(
                    "`fields` is a table of numbers, e.g. {{ member = \"i\" }}, got {}",
                    other.type_name()
                ),
            );
        }
    }
    Ok(Step::Put {
        queue,
        value,
        fields,
    })
}

/// An insert, a lookup, a set or a remove on a key store.
fn keys(
    reader: &Reader<'_>,
    before: &mut Before,
    path: &Path,
    step_value: &Value,
    value: &Value,
    here: Path,
    action: &str,
) -> Result<Step, ComposeError> {
    let path = path.clone();
    let operation = action;
    let operation = match operation {
        "insert" => KeyOp::Insert,
        "lookup" => KeyOp::Lookup,
        "set" => KeyOp::Set,
        _ => KeyOp::Remove,
    };
    let keys: &[&str] = match operation {
        KeyOp::Insert | KeyOp::Set => &[action, "key", "value"],
        _ => &[action, "key"],
    };
    let entries = table(
        &path,
        step_value,
        &format!("{} step", article(action)),
        keys,
    )?;
    let store = reader.resource_named(here, value, "keys")?;
    let Some(key) = get(entries, "key") else {
        return fail(path, format!("{} needs `key`, e.g. \"i\"", article(action)));
    };
    let key = reader.num(at(&path, "key"), key, Scope::Step, &before.read)?;
    let value = match get(entries, "value") {
        Some(x) => reader.num(at(&path, "value"), x, Scope::Step, &before.read)?,
        None if operation == KeyOp::Set => {
            return fail(path, "a set needs `value`, the number stored with the key");
        }
        None => Number::Lit(0.0),
    };
    before.read[slot(reader, "keys", store)] = true;
    Ok(Step::Keys {
        operation,
        store,
        key,
        value,
    })
}

/// "an insert", "a lookup", …
fn article(action: &str) -> String {
    if action.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {action}")
    } else {
        format!("a {action}")
    }
}
