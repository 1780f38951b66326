//! Reading an actor group's `steps`: one action each, checked in order against what the
//! actor has read and holds at that point; an `if`'s branches and a timeout's steps are
//! step lists of their own, read from the state before them.

use coordsim_expr::Expr;
use coordsim_model::{ComposeError, Value};

use crate::syntax::flow::{self, Outcomes};
use crate::syntax::read::{Path, Reader, at, at_index, boolean, fail, get, table, text_of};
use crate::syntax::spec::{Number, Pick, Scope, Step, Then, Var};

mod before;
mod control;
mod delivery;
mod parallel;
mod timeout;

use before::Before;

use control::{branch, crash};
use delivery::delivery;
use timeout::on_timeout;

const ACTIONS: &[&str] = &[
    "read",
    "write",
    "delay_ms",
    "pause_ms",
    "acquire",
    "release",
    "renew",
    "request",
    "send",
    "crash",
    "if",
    "put",
    "take",
    "ack",
    "insert",
    "lookup",
    "set",
    "remove",
    "transaction",
    "stop",
    "end",
    "parallel",
    "call",
    "reply",
];

/// The actions a `parallel`'s branch may not hold: they end or restart the actor's
/// repetition, which a branch, one of several jobs of it, cannot.
const NOT_IN_BRANCH: &[&str] = &["stop", "crash", "parallel"];

/// The actions a transaction may hold: those that take no time and wait for nobody.
const IN_TRANSACTION: &[&str] = &[
    "read", "write", "put", "ack", "insert", "lookup", "set", "remove", "if", "crash",
];

/// Most steps nested in `if` branches and timeout steps, one inside another.
const MAX_DEPTH: usize = 8;

/// Reads a group's steps. A repetition starts with the outcome `none`, and an attempt that
/// starts again (a retry) with what it had then: the steps are read again with those
/// until the outcomes at the start are all known (a few rounds at most), and only then is
/// an `if` on an impossible outcome refused. With `carries` (a closed loop whose actor
/// goes round more than once), a repetition starts holding what the one before may have
/// ended holding (the actor keeps its locks from round to round: a lease renewed for ever
/// begins its round with `renew`), found the same way.
pub(crate) fn read_steps(
    reader: &Reader<'_>,
    path: &Path,
    values: &[Value],
    carries: bool,
) -> Result<Vec<Step>, ComposeError> {
    let mut start = Outcomes::of(&["none"]);
    let mut held_at_start: Vec<u16> = Vec::new();
    let mut finding_held = carries;
    loop {
        let mut before = Before {
            // The registers, the resources, and last whether a call was made (`reply`).
            read: vec![false; reader.registers.len() + reader.resources.len() + 1],
            may_hold: held_at_start.clone(),
            finding_held,
            holds: Vec::new(),
            in_transaction: false,
            in_branch: false,
            outcomes: start,
            restart: Outcomes::EMPTY,
            from_timeout: Outcomes::EMPTY,
            impossible: None,
        };
        let steps = list(reader, &mut before, path, values, 0)?;
        if finding_held {
            // Round after round, what a repetition may end holding, until nothing is new;
            // then the steps are read once more, refusing what they must.
            let before_count = held_at_start.len();
            for lock in before.may_hold {
                if !held_at_start.contains(&lock) {
                    held_at_start.push(lock);
                }
            }
            finding_held = held_at_start.len() > before_count;
            continue;
        }
        if before.restart.within(start) {
            return match before.impossible {
                Some((at, message)) => fail(at, message),
                None => Ok(steps),
            };
        }
        start = start.or(before.restart);
    }
}

fn list(
    reader: &Reader<'_>,
    before: &mut Before,
    path: &Path,
    values: &[Value],
    depth: usize,
) -> Result<Vec<Step>, ComposeError> {
    let mut steps = Vec::new();
    for (index, step_value) in values.iter().enumerate() {
        before.from_timeout = Outcomes::EMPTY;
        let step = step(reader, before, at_index(path, index), step_value, depth)?;
        if let Step::Write { cas: true, .. } = step {
            // A conflict starts the attempt again with the outcome it had before the write.
            before.restart = before.restart.or(before.outcomes);
        }
        if let Some(normal) = flow::after(&step, &reader.refusals, reader.params) {
            before.outcomes = normal.or(before.from_timeout);
        }
        steps.push(step);
    }
    Ok(steps)
}

/// A nested step list (`then`, `else`, `on_timeout.steps`): a list of at most 256 steps.
fn nested(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    value: Option<&Value>,
    depth: usize,
) -> Result<Vec<Step>, ComposeError> {
    if depth >= MAX_DEPTH {
        return fail(
            path,
            format!("steps nest at most {MAX_DEPTH} deep (an `if` in an `if` …)"),
        );
    }
    match value {
        None => Ok(Vec::new()),
        Some(Value::List(items)) if items.len() <= crate::syntax::spec::MAX_STEPS => {
            list(reader, before, &path, items, depth + 1)
        }
        Some(_) => fail(
            path,
            format!(
                "a list of at most {} steps, e.g. [{{ release = \"A\" }}]",
                crate::syntax::spec::MAX_STEPS
            ),
        ),
    }
}

/// A step with no action, or several: the actions it has, or the nearest to a key it
/// has (a misspelled action is the likeliest mistake).
fn not_one_action(path: Path, entries: &[(String, Value)], actions: &[&str]) -> ComposeError {
    let what = if actions.is_empty() {
        let near = entries
            .iter()
            .map(|(k, _)| coordsim_model::suggest::did_you_mean(k, ACTIONS))
            .find(|s| !s.is_empty())
            .unwrap_or_default();
        let keys: Vec<String> = entries.iter().map(|(k, _)| format!("`{k}`")).collect();
        format!("{} names no action{near}", keys.join(", "))
    } else {
        format!("this one has {}: {}", actions.len(), actions.join(", "))
    };
    ComposeError::new(
        path,
        format!(
            "a step has exactly one action; {what}. The actions: {}",
            ACTIONS.join(", ")
        ),
    )
}

/// `{ end = true }` (or `"completed"`) and `{ end = "gave_up" }`: the repetition ends
/// here, counted so.
fn early_exit(
    path: &Path,
    step_value: &Value,
    value: &Value,
    here: Path,
) -> Result<Step, ComposeError> {
    table(path, step_value, "an end step", &["end"])?;
    match value {
        Value::Bool(true) => Ok(Step::Exit { gave_up: false }),
        Value::Str(s) if s == "completed" => Ok(Step::Exit { gave_up: false }),
        Value::Str(s) if s == "gave_up" => Ok(Step::Exit { gave_up: true }),
        _ => fail(
            here,
            "an end step is { end = true } (the repetition ends here, completed; `\"completed\"` says the same) or { end = \"gave_up\" } (it ends given up)",
        ),
    }
}

fn step(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    step_value: &Value,
    depth: usize,
) -> Result<Step, ComposeError> {
    let Value::Table(entries) = step_value else {
        return fail(
            path,
            format!(
                "a step is a table such as {{ read = \"counter\" }}, got {}",
                step_value.type_name()
            ),
        );
    };
    let actions: Vec<&str> = entries
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| ACTIONS.contains(k))
        .collect();
    let [action] = actions[..] else {
        return Err(not_one_action(path, entries, &actions));
    };
    let value = get(entries, action).expect("found above");
    let here = at(&path, action);
    if before.in_transaction && !IN_TRANSACTION.contains(&action) {
        return fail(
            here,
            format!(
                "a transaction's steps land at one instant: `{action}` waits or takes time (or is a transaction itself); put it before or after the transaction. A transaction holds: {}",
                IN_TRANSACTION.join(", ")
            ),
        );
    }
    if action == "parallel" || (before.in_branch && NOT_IN_BRANCH.contains(&action)) {
        return parallel::parallel(reader, before, path, step_value, action, depth, nested);
    }
    if matches!(
        action,
        "put"
            | "take"
            | "ack"
            | "insert"
            | "lookup"
            | "set"
            | "remove"
            | "transaction"
            | "call"
            | "reply"
    ) {
        return delivery(reader, before, path, step_value, action, depth, nested);
    }
    Ok(match action {
        "read" => {
            table(&path, step_value, "a read step", &["read"])?;
            let register = reader.resource_named(here, value, "register")? as usize;
            before.read[register] = true;
            Step::Read(register as u16)
        }
        "write" => write(reader, before, path, step_value)?,
        "delay_ms" => {
            table(&path, step_value, "a delay step", &["delay_ms"])?;
            Step::Delay(reader.num(here, value, Scope::Step, &before.read)?)
        }
        "pause_ms" => {
            table(&path, step_value, "a pause step", &["pause_ms"])?;
            Step::Pause(reader.num(here, value, Scope::Step, &before.read)?)
        }
        "acquire" => acquire(reader, before, path, step_value, depth)?,
        "release" | "renew" => {
            let what = if action == "release" {
                "a release step"
            } else {
                "a renew step"
            };
            table(&path, step_value, what, &[action])?;
            let lock = pick(reader, before, here.clone(), value, "lock")?;
            if let Pick::One(single) = lock
                && !before.finding_held
                && !before.may_hold.contains(&single)
            {
                return fail(
                    here,
                    format!(
                        "the actor does not hold `{}` here (no acquire before this step)",
                        text_of(value)
                    ),
                );
            }
            if action == "release" && before.in_transaction {
                return fail(here, "a transaction holds no release");
            }
            if action == "release" {
                let all = lock.all();
                before.may_hold.retain(|l| !all.contains(l));
                before.holds.retain(|l| !all.contains(l));
                Step::Release(lock)
            } else {
                Step::Renew(lock)
            }
        }
        "request" => request(reader, before, path, step_value, depth)?,
        "send" => {
            let entries = table(
                &path,
                step_value,
                "a send step",
                &["send", "timeout_ms", "on_timeout"],
            )?;
            let link = pick(reader, before, here, value, "link")?;
            let timeout = on_timeout(reader, before, &path, entries, depth, false, nested)?;
            Step::Send { link, timeout }
        }
        "if" => branch(reader, before, path, step_value, depth, nested)?,
        "end" => early_exit(&path, step_value, value, here)?,
        "stop" => {
            table(&path, step_value, "a stop step", &["stop"])?;
            if value != &Value::Bool(true) {
                return fail(here, "a stop step is { stop = true }");
            }
            if before.in_transaction {
                return fail(here, "a transaction holds no stop (end it first)");
            }
            Step::Stop
        }
        _ => {
            let entries = table(
                &path,
                step_value,
                "a crash step",
                &["crash", "restart_after_ms"],
            )?;
            let restart_after_ms = get(entries, "restart_after_ms")
                .map(|r| reader.num(at(&path, "restart_after_ms"), r, Scope::Step, &before.read))
                .transpose()?;
            Step::Crash {
                rule: crash(reader, here, value)?,
                restart_after_ms,
            }
        }
    })
}

/// `{ request = "S", instance = …, timeout_ms = …, on_timeout = … }`.
fn request(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    step_value: &Value,
    depth: usize,
) -> Result<Step, ComposeError> {
    let entries = table(
        &path,
        step_value,
        "a request step",
        &["request", "instance", "timeout_ms", "on_timeout"],
    )?;
    let value = get(entries, "request").expect("an action");
    let server = pick(reader, before, at(&path, "request"), value, "server")?;
    let instance = match get(entries, "instance") {
        Some(n) => reader.num(at(&path, "instance"), n, Scope::Step, &before.read)?,
        None => Number::Lit(0.0),
    };
    // A refusal by a server that fails fast runs the timeout's steps too.
    let refused = reader.refusals.server(&server, reader.params);
    let timeout = on_timeout(reader, before, &path, entries, depth, refused, nested)?;
    Ok(Step::Request {
        server,
        instance,
        timeout,
    })
}

/// A resource a step names: `"A"`, `{ by = "param", option = "A", … }` or
/// `{ one_of = ["A", "B"], index = "expression" }`.
fn pick(
    reader: &Reader<'_>,
    before: &Before,
    path: Path,
    value: &Value,
    kind: &'static str,
) -> Result<Pick, ComposeError> {
    let Value::Table(entries) = value else {
        return reader.resource_named(path, value, kind).map(Pick::One);
    };
    if let Some(list) = get(entries, "one_of") {
        table(&path, value, "a choice of resources", &["one_of", "index"])?;
        let Value::List(items) = list else {
            return fail(
                at(&path, "one_of"),
                format!("`one_of` is a list of {kind} names"),
            );
        };
        if items.is_empty() {
            return fail(
                at(&path, "one_of"),
                format!("`one_of` names at least one {kind}"),
            );
        }
        let names = items
            .iter()
            .enumerate()
            .map(|(k, item)| reader.resource_named(at_index(&at(&path, "one_of"), k), item, kind))
            .collect::<Result<Vec<_>, _>>()?;
        let Some(index) = get(entries, "index") else {
            return fail(
                path,
                "a choice `one_of` needs `index`, an expression from 0 (e.g. \"i\")",
            );
        };
        let index = reader.num(at(&path, "index"), index, Scope::Step, &before.read)?;
        return Ok(Pick::OneOf(names, index));
    }
    let Some(by) = get(entries, "by") else {
        return fail(
            path,
            format!(
                "a {kind} is named by a string, by a string parameter ({{ by = \"order\", same = \"A\", … }}) or from a list ({{ one_of = [\"A\", \"B\"], index = \"i\" }})"
            ),
        );
    };
    let param = reader.text_param(at(&path, "by"), by)?;
    let mut options = Vec::new();
    for (option, item) in entries.iter().filter(|(option, _)| option != "by") {
        options.push((
            option.clone(),
            reader.resource_named(at(&path, option), item, kind)?,
        ));
    }
    if options.is_empty() {
        return fail(
            path,
            "name a resource for each value of the parameter: { by = \"order\", same = \"A\", opposite = \"B\" }",
        );
    }
    Ok(Pick::By(param, options))
}

fn write(
    reader: &Reader<'_>,
    before: &Before,
    path: Path,
    step_value: &Value,
) -> Result<Step, ComposeError> {
    let entries = table(
        &path,
        step_value,
        "a write step",
        &["write", "value", "cas", "max_retries"],
    )?;
    let here = at(&path, "write");
    let register =
        reader.resource_named(here, get(entries, "write").expect("an action"), "register")?
            as usize;
    let Some(expr) = get(entries, "value") else {
        return fail(
            path,
            "a write needs `value`, e.g. \"read + 1\" (what it read, plus one)",
        );
    };
    // `read` in the value means this register's read: it must have one.
    let value = reader.num(at(&path, "value"), expr, Scope::Write, &before.read)?;
    if let Number::Expr(parsed, _) = &value
        && uses_read(parsed)
        && !before.read[register]
    {
        return fail(
            at(&path, "value"),
            format!(
                "`read` is what the actor read of `{}`, but it reads it in no step before this one",
                reader.registers[register]
            ),
        );
    }
    let cas = boolean(at(&path, "cas"), get(entries, "cas"))?;
    if cas && before.in_branch {
        return fail(
            at(&path, "cas"),
            "a branch of a `parallel` holds no compare-and-set write (its conflict restarts the whole repetition); write it after the join",
        );
    }
    if cas && before.in_transaction {
        return fail(
            at(&path, "cas"),
            "a transaction holds no compare-and-set write (its conflict restarts the repetition); check the value with an `if` instead",
        );
    }
    if cas && !before.read[register] {
        return fail(
            at(&path, "cas"),
            "a compare-and-set write compares with what the actor read: read the register first",
        );
    }
    Ok(Step::Write {
        register: register as u16,
        value,
        cas,
        max_retries: reader.opt_num(&path, entries, "max_retries", 1000.0, Scope::Params)?,
    })
}

fn acquire(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    step_value: &Value,
    depth: usize,
) -> Result<Step, ComposeError> {
    let entries = table(
        &path,
        step_value,
        "an acquire step",
        &["acquire", "give_up_after_ms", "timeout_ms", "on_timeout"],
    )?;
    let here = at(&path, "acquire");
    let value = get(entries, "acquire").expect("an action");
    let lock = pick(reader, before, here.clone(), value, "lock")?;
    if let Pick::One(single) = lock
        && before.holds.contains(&single)
    {
        return fail(
            here,
            format!(
                "the actor holds `{}` already here (release it first)",
                text_of(value)
            ),
        );
    }
    let timeout = on_timeout(reader, before, &path, entries, depth, false, nested)?;
    let goes_on = matches!(&timeout, Some(t) if t.then == Then::GoOn);
    for lock_index in lock.all() {
        if !before.may_hold.contains(&lock_index) {
            before.may_hold.push(lock_index);
        }
    }
    // After the step it holds the lock, unless a timeout goes on without it or the lock is
    // one of several (then it is not known which).
    if let (Pick::One(single), false) = (&lock, goes_on) {
        before.holds.push(*single);
    }
    Ok(Step::Acquire { lock, timeout })
}

/// Whether an expression uses `read`.
fn uses_read(expr: &Expr<Var>) -> bool {
    expr.any_var(&|v| *v == Var::Read)
}
