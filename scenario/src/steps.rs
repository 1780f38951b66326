//! Reading an actor group's `steps`: one action each, checked in order against what the
//! actor has read and holds at that point.

use coordsim_expr::Expr;
use coordsim_model::{ComposeError, Value};

use crate::read::{Path, Reader, at, boolean, fail, get, idx, string, table, text_of};
use crate::spec::{Crash, Num, Scope, Step, Var};

const ACTIONS: &[&str] = &[
    "read", "write", "delay_ms", "acquire", "release", "request", "send", "crash",
];

/// What an actor has done by a step: the registers it has read, the locks it holds.
struct Before {
    read: Vec<bool>,
    holding: Vec<u16>,
}

/// Reads a group's steps.
pub fn read_steps(
    reader: &Reader<'_>,
    path: &Path,
    values: &[Value],
) -> Result<Vec<Step>, ComposeError> {
    let mut before = Before {
        read: vec![false; reader.registers.len()],
        holding: Vec::new(),
    };
    let mut steps = Vec::new();
    for (s, v) in values.iter().enumerate() {
        steps.push(step(reader, &mut before, idx(path, s), v)?);
    }
    Ok(steps)
}

fn step(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    v: &Value,
) -> Result<Step, ComposeError> {
    let Value::Table(entries) = v else {
        return fail(
            path,
            format!(
                "a step is a table such as {{ read = \"counter\" }}, got {}",
                v.type_name()
            ),
        );
    };
    let actions: Vec<&str> = entries
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| ACTIONS.contains(k))
        .collect();
    let [action] = actions[..] else {
        return fail(
            path,
            format!("a step has exactly one action: {}", ACTIONS.join(", ")),
        );
    };
    let value = get(entries, action).expect("found above");
    let here = at(&path, action);
    Ok(match action {
        "read" => {
            table(&path, v, "a read step", &["read"])?;
            let reg = reader.resource_named(here, value, "register")? as usize;
            before.read[reg] = true;
            Step::Read(reg as u16)
        }
        "write" => write(reader, before, path, v)?,
        "delay_ms" => {
            table(&path, v, "a delay step", &["delay_ms"])?;
            Step::Delay(reader.num(here, value, Scope::Actor, &[])?)
        }
        "acquire" => acquire(reader, before, path, v)?,
        "release" => {
            table(&path, v, "a release step", &["release"])?;
            let lock = reader.resource_named(here.clone(), value, "lock")?;
            if !before.holding.contains(&lock) {
                return fail(
                    here,
                    format!(
                        "the actor does not hold `{}` here (no acquire before this step)",
                        text_of(value)
                    ),
                );
            }
            before.holding.retain(|l| *l != lock);
            Step::Release(lock)
        }
        "request" => {
            table(&path, v, "a request step", &["request", "instance"])?;
            Step::Request {
                server: reader.resource_named(here, value, "server")?,
                instance: reader.opt_num(&path, entries, "instance", 0.0, Scope::Actor)?,
            }
        }
        "send" => {
            table(&path, v, "a send step", &["send"])?;
            Step::Send(reader.resource_named(here, value, "link")?)
        }
        _ => {
            table(&path, v, "a crash step", &["crash"])?;
            Step::Crash(crash(reader, here, value)?)
        }
    })
}

fn write(
    reader: &Reader<'_>,
    before: &Before,
    path: Path,
    v: &Value,
) -> Result<Step, ComposeError> {
    let entries = table(
        &path,
        v,
        "a write step",
        &["write", "value", "cas", "max_retries"],
    )?;
    let here = at(&path, "write");
    let reg = reader.resource_named(here, get(entries, "write").expect("an action"), "register")?
        as usize;
    let Some(expr) = get(entries, "value") else {
        return fail(
            path,
            "a write needs `value`, e.g. \"read + 1\" (what it read, plus one)",
        );
    };
    // `read` in the value means this register's read: it must have one.
    let value = reader.num(at(&path, "value"), expr, Scope::Write, &before.read)?;
    if let Num::Expr(e, _) = &value
        && uses_read(e)
        && !before.read[reg]
    {
        return fail(
            at(&path, "value"),
            format!(
                "`read` is what the actor read of `{}`, but it reads it in no step before this one",
                reader.registers[reg]
            ),
        );
    }
    let cas = boolean(at(&path, "cas"), get(entries, "cas"))?;
    if cas && !before.read[reg] {
        return fail(
            at(&path, "cas"),
            "a compare-and-set write compares with what the actor read: read the register first",
        );
    }
    Ok(Step::Write {
        reg: reg as u16,
        value,
        cas,
        max_retries: reader.opt_num(&path, entries, "max_retries", 1000.0, Scope::Params)?,
    })
}

fn acquire(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    v: &Value,
) -> Result<Step, ComposeError> {
    let entries = table(
        &path,
        v,
        "an acquire step",
        &["acquire", "give_up_after_ms"],
    )?;
    let here = at(&path, "acquire");
    let value = get(entries, "acquire").expect("an action");
    let lock = reader.resource_named(here.clone(), value, "lock")?;
    if before.holding.contains(&lock) {
        return fail(
            here,
            format!(
                "the actor holds `{}` already here (release it first)",
                text_of(value)
            ),
        );
    }
    before.holding.push(lock);
    Ok(Step::Acquire {
        lock,
        give_up_after_ms: get(entries, "give_up_after_ms")
            .map(|g| reader.num(at(&path, "give_up_after_ms"), g, Scope::Actor, &[]))
            .transpose()?,
    })
}

/// `crash = …`: "all", a list of actor names, `{ count = N }` or `{ probability = p }`.
fn crash(reader: &Reader<'_>, here: Path, value: &Value) -> Result<Crash, ComposeError> {
    Ok(match value {
        Value::Str(s) if s == "all" => Crash::All,
        Value::List(items) => Crash::Names(
            items
                .iter()
                .enumerate()
                .map(|(i, n)| string(idx(&here, i), n, "an actor's name"))
                .collect::<Result<_, _>>()?,
        ),
        Value::Table(t) => {
            table(&here, value, "a crash rule", &["count", "probability"])?;
            match (get(t, "count"), get(t, "probability")) {
                (Some(c), None) => {
                    Crash::First(reader.num(at(&here, "count"), c, Scope::Params, &[])?)
                }
                (None, Some(p)) => Crash::Probability(reader.num(
                    at(&here, "probability"),
                    p,
                    Scope::Params,
                    &[],
                )?),
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

/// Whether an expression uses `read`.
fn uses_read(e: &Expr<Var>) -> bool {
    match e {
        Expr::Num(_) => false,
        Expr::Var(v) => *v == Var::Read,
        Expr::Neg(a) => uses_read(a),
        Expr::Bin(_, a, b) => uses_read(a) || uses_read(b),
        Expr::Call(_, args) => args.iter().any(uses_read),
    }
}
