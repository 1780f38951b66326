//! Reading an actor group's `steps`: one action each, checked in order against what the
//! actor has read and holds at that point; an `if`'s branches and a timeout's steps are
//! step lists of their own, read from the state before them.

use coordsim_expr::Expr;
use coordsim_model::{ComposeError, Value};

use crate::syntax::flow::{self, Outcomes};
use crate::syntax::read::{Path, Reader, at, boolean, fail, get, idx, string, table, text_of};
use crate::syntax::spec::{
    CMPS, Cond, Crash, KeyOp, Num, OUTCOMES, OnTimeout, Pick, Scope, Step, THENS, Then, Var,
};

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
];

/// The actions a transaction may hold: those that take no time and wait for nobody.
const IN_TRANSACTION: &[&str] = &[
    "read", "write", "put", "ack", "insert", "lookup", "set", "remove", "if", "crash",
];

/// Most steps nested in `if` branches and timeout steps, one inside another.
const MAX_DEPTH: usize = 8;

/// What an actor has done by a step: the registers it may have read, the locks it may hold
/// (on some path to the step) and those it holds on every path.
#[derive(Clone)]
struct Before {
    /// Registers read, then (after the registers, by resource index) queues taken from and
    /// key stores used.
    read: Vec<bool>,
    may_hold: Vec<u16>,
    holds: Vec<u16>,
    /// Inside a transaction.
    in_tx: bool,
    /// The outcomes the last step that has one may have here (`flow`).
    outcomes: Outcomes,
    /// The outcomes a repetition's attempt may start again with (a `retry`, a
    /// compare-and-set conflict): its first steps see them too.
    restart: Outcomes,
    /// What a timeout's steps leave for the step after it (`then = "go_on"`), for the
    /// step that has the timeout to add to its own.
    from_timeout: Outcomes,
    /// The first `if` on an outcome that cannot be there, and why: refused once the
    /// outcomes at the start are known (a retry found further down adds to them).
    impossible: Option<(Path, String)>,
}

impl Before {
    /// After one of two branches: what either may have done, what both surely did.
    fn join(a: Before, b: Before) -> Before {
        let mut may_hold = a.may_hold;
        for l in b.may_hold {
            if !may_hold.contains(&l) {
                may_hold.push(l);
            }
        }
        Before {
            read: a.read.iter().zip(&b.read).map(|(x, y)| *x || *y).collect(),
            may_hold,
            holds: a
                .holds
                .into_iter()
                .filter(|l| b.holds.contains(l))
                .collect(),
            in_tx: a.in_tx,
            outcomes: a.outcomes.or(b.outcomes),
            restart: a.restart.or(b.restart),
            from_timeout: Outcomes::EMPTY,
            impossible: a.impossible.or(b.impossible),
        }
    }

    /// Takes in what a nested step list (a timeout's steps) found that matters beyond it.
    fn learn(&mut self, inner: &Before) {
        self.restart = self.restart.or(inner.restart);
        if self.impossible.is_none() {
            self.impossible.clone_from(&inner.impossible);
        }
    }
}

/// Reads a group's steps. A repetition starts with the outcome `none`, and an attempt that
/// starts again (a retry) with what it had then: the steps are read again with those
/// until the outcomes at the start are all known (a few rounds at most), and only then is
/// an `if` on an impossible outcome refused.
pub fn read_steps(
    reader: &Reader<'_>,
    path: &Path,
    values: &[Value],
) -> Result<Vec<Step>, ComposeError> {
    let mut start = Outcomes::of(&["none"]);
    loop {
        let mut before = Before {
            read: vec![false; reader.registers.len() + reader.resources.len()],
            may_hold: Vec::new(),
            holds: Vec::new(),
            in_tx: false,
            outcomes: start,
            restart: Outcomes::EMPTY,
            from_timeout: Outcomes::EMPTY,
            impossible: None,
        };
        let steps = list(reader, &mut before, path, values, 0)?;
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
    for (s, v) in values.iter().enumerate() {
        before.from_timeout = Outcomes::EMPTY;
        let step = step(reader, before, idx(path, s), v, depth)?;
        if let Step::Write { cas: true, .. } = step {
            // A conflict starts the attempt again with the outcome it had before the write.
            before.restart = before.restart.or(before.outcomes);
        }
        if let Some(normal) = flow::after(&step) {
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
    v: Option<&Value>,
    depth: usize,
) -> Result<Vec<Step>, ComposeError> {
    if depth >= MAX_DEPTH {
        return fail(
            path,
            format!("steps nest at most {MAX_DEPTH} deep (an `if` in an `if` …)"),
        );
    }
    match v {
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

fn step(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    v: &Value,
    depth: usize,
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
    if before.in_tx && !IN_TRANSACTION.contains(&action) {
        return fail(
            here,
            format!(
                "a transaction's steps land at one instant: `{action}` waits or takes time (or is a transaction itself); put it before or after the transaction. A transaction holds: {}",
                IN_TRANSACTION.join(", ")
            ),
        );
    }
    if matches!(
        action,
        "put" | "take" | "ack" | "insert" | "lookup" | "set" | "remove" | "transaction"
    ) {
        return delivery(reader, before, path, v, action, depth);
    }
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
            Step::Delay(reader.num(here, value, Scope::Step, &before.read)?)
        }
        "pause_ms" => {
            table(&path, v, "a pause step", &["pause_ms"])?;
            Step::Pause(reader.num(here, value, Scope::Step, &before.read)?)
        }
        "acquire" => acquire(reader, before, path, v, depth)?,
        "release" | "renew" => {
            let what = if action == "release" {
                "a release step"
            } else {
                "a renew step"
            };
            table(&path, v, what, &[action])?;
            let lock = pick(reader, before, here.clone(), value, "lock")?;
            if let Pick::One(l) = lock
                && !before.may_hold.contains(&l)
            {
                return fail(
                    here,
                    format!(
                        "the actor does not hold `{}` here (no acquire before this step)",
                        text_of(value)
                    ),
                );
            }
            if action == "release" && before.in_tx {
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
        "request" => {
            let entries = table(
                &path,
                v,
                "a request step",
                &["request", "instance", "timeout_ms", "on_timeout"],
            )?;
            let server = pick(reader, before, here, value, "server")?;
            let instance = match get(entries, "instance") {
                Some(n) => reader.num(at(&path, "instance"), n, Scope::Step, &before.read)?,
                None => Num::Lit(0.0),
            };
            let timeout = on_timeout(reader, before, &path, entries, depth, true)?;
            Step::Request {
                server,
                instance,
                timeout,
            }
        }
        "send" => {
            let entries = table(
                &path,
                v,
                "a send step",
                &["send", "timeout_ms", "on_timeout"],
            )?;
            let link = pick(reader, before, here, value, "link")?;
            let timeout = on_timeout(reader, before, &path, entries, depth, false)?;
            Step::Send { link, timeout }
        }
        "if" => branch(reader, before, path, v, depth)?,
        "stop" => {
            table(&path, v, "a stop step", &["stop"])?;
            if value != &Value::Bool(true) {
                return fail(here, "a stop step is { stop = true }");
            }
            if before.in_tx {
                return fail(here, "a transaction holds no stop (end it first)");
            }
            Step::Stop
        }
        _ => {
            let entries = table(&path, v, "a crash step", &["crash", "restart_after_ms"])?;
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

/// A step on a queue or a key store, or a transaction.
fn delivery(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    v: &Value,
    action: &str,
    depth: usize,
) -> Result<Step, ComposeError> {
    let entries = match v {
        Value::Table(e) => e,
        _ => unreachable!("a step is a table"),
    };
    let value = get(entries, action).expect("an action");
    let here = at(&path, action);
    let slot = |reader: &Reader<'_>, kind: &str, index: u16| {
        let mut n = 0;
        for (r, (_, k)) in reader.resources.iter().enumerate() {
            if *k == kind {
                if n == index {
                    return reader.registers.len() + r;
                }
                n += 1;
            }
        }
        unreachable!("a resource of its kind")
    };
    Ok(match action {
        "put" => {
            let entries = table(&path, v, "a put step", &["put", "value", "fields"])?;
            let queue = reader.resource_named(here, value, "queue")?;
            let value = match get(entries, "value") {
                Some(x) => reader.num(at(&path, "value"), x, Scope::Step, &before.read)?,
                None => Num::Lit(0.0),
            };
            let names = reader.queue_fields(queue);
            let mut fields = vec![Num::Lit(0.0); names.len()];
            match get(entries, "fields") {
                None => {}
                Some(Value::Table(given)) => {
                    for (k, x) in given {
                        let Some(f) = names.iter().position(|n| n == k) else {
                            return fail(
                                at(&at(&path, "fields"), k),
                                format!(
                                    "the queue's messages have no field `{k}`; its fields: {}",
                                    if names.is_empty() {
                                        "none (declare them with `fields = [...]` on the queue)"
                                            .to_string()
                                    } else {
                                        names.join(", ")
                                    }
                                ),
                            );
                        };
                        fields[f] = reader.num(
                            at(&at(&path, "fields"), k),
                            x,
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
            Step::Put {
                queue,
                value,
                fields,
            }
        }
        "take" => {
            let entries = table(
                &path,
                v,
                "a take step",
                &["take", "timeout_ms", "on_timeout"],
            )?;
            let queue = reader.resource_named(here, value, "queue")?;
            let timeout = on_timeout(reader, before, &path, entries, depth, false)?;
            before.read[slot(reader, "queue", queue)] = true;
            Step::Take { queue, timeout }
        }
        "ack" => {
            table(&path, v, "an ack step", &["ack"])?;
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
            if before.in_tx {
                return fail(here, "a transaction holds no transaction");
            }
            let Value::List(items) = value else {
                return fail(
                    here,
                    "`transaction` is a list of steps that land together, e.g. [{ remove = \"shelf\", key = \"i\" }, { put = \"outbox\" }]",
                );
            };
            before.in_tx = true;
            let steps = nested(reader, before, here, Some(value), depth);
            before.in_tx = false;
            let steps = steps?;
            if items.is_empty() {
                return fail(
                    at(&path, "transaction"),
                    "a transaction holds at least one step",
                );
            }
            Step::Transaction(steps)
        }
        op => {
            let op = match op {
                "insert" => KeyOp::Insert,
                "lookup" => KeyOp::Lookup,
                "set" => KeyOp::Set,
                _ => KeyOp::Remove,
            };
            let keys: &[&str] = match op {
                KeyOp::Insert | KeyOp::Set => &[action, "key", "value"],
                _ => &[action, "key"],
            };
            let entries = table(&path, v, &format!("{} step", article(action)), keys)?;
            let store = reader.resource_named(here, value, "keys")?;
            let Some(key) = get(entries, "key") else {
                return fail(path, format!("{} needs `key`, e.g. \"i\"", article(action)));
            };
            let key = reader.num(at(&path, "key"), key, Scope::Step, &before.read)?;
            let value = match get(entries, "value") {
                Some(x) => reader.num(at(&path, "value"), x, Scope::Step, &before.read)?,
                None if op == KeyOp::Set => {
                    return fail(path, "a set needs `value`, the number stored with the key");
                }
                None => Num::Lit(0.0),
            };
            before.read[slot(reader, "keys", store)] = true;
            Step::Keys {
                op,
                store,
                key,
                value,
            }
        }
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

/// A resource a step names: `"A"`, `{ by = "param", option = "A", … }` or
/// `{ one_of = ["A", "B"], index = "expression" }`.
fn pick(
    reader: &Reader<'_>,
    before: &Before,
    path: Path,
    v: &Value,
    kind: &'static str,
) -> Result<Pick, ComposeError> {
    let Value::Table(entries) = v else {
        return reader.resource_named(path, v, kind).map(Pick::One);
    };
    if let Some(list) = get(entries, "one_of") {
        table(&path, v, "a choice of resources", &["one_of", "index"])?;
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
            .map(|(k, item)| reader.resource_named(idx(&at(&path, "one_of"), k), item, kind))
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
    for (k, item) in entries.iter().filter(|(k, _)| k != "by") {
        options.push((k.clone(), reader.resource_named(at(&path, k), item, kind)?));
    }
    if options.is_empty() {
        return fail(
            path,
            "name a resource for each value of the parameter: { by = \"order\", same = \"A\", opposite = \"B\" }",
        );
    }
    Ok(Pick::By(param, options))
}

/// A blocking step's `timeout_ms` and `on_timeout` (and an acquire's `give_up_after_ms`,
/// which is a timeout that ends the repetition).
///
/// Its steps start with the outcome `timed_out` (or `refused`, for a request: `refused`
/// says whether the step can be refused); what they leave goes on to the next step with
/// `go_on` (`before.from_timeout`), or starts the attempt again with `retry`.
fn on_timeout(
    reader: &Reader<'_>,
    before: &mut Before,
    path: &Path,
    entries: &[(String, Value)],
    depth: usize,
    refused: bool,
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
        (None, Some(g)) => {
            return Ok(Some(OnTimeout {
                after: Some(reader.num(
                    at(path, "give_up_after_ms"),
                    g,
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
    let h = table(
        &here,
        handler,
        "`on_timeout`",
        &["steps", "then", "max_attempts", "backoff_ms", "jitter_ms"],
    )?;
    let mut inside = before.clone();
    inside.outcomes = Outcomes::of(&["timed_out"]);
    if refused {
        inside.outcomes = inside.outcomes.or(Outcomes::of(&["refused"]));
    }
    let steps = nested(
        reader,
        &mut inside,
        at(&here, "steps"),
        get(h, "steps"),
        depth,
    )?;
    let then = match get(h, "then") {
        None if get(h, "max_attempts").is_some() => "retry",
        None => "end",
        Some(t) => {
            let t = string(at(&here, "then"), t, "`then`")?;
            match THENS.iter().find(|o| **o == t) {
                Some(o) => o,
                None => {
                    return fail(
                        at(&here, "then"),
                        format!(
                            "unknown `then` \"{t}\"; valid: \"retry\" (the repetition again from its first step), \"end\" (it gives up), \"go_on\" (the next step)"
                        ),
                    );
                }
            }
        }
    };
    let num = |key: &str, default: f64| -> Result<Num, ComposeError> {
        match get(h, key) {
            Some(n) => reader.num(at(&here, key), n, Scope::Step, &inside.read),
            None => Ok(Num::Lit(default)),
        }
    };
    let then = if then == "retry" {
        let Some(max) = get(h, "max_attempts") else {
            return fail(
                here,
                "a retry needs `max_attempts`, the most attempts of a repetition (every loop is bounded)",
            );
        };
        Then::Retry {
            max_attempts: reader.num(at(&here, "max_attempts"), max, Scope::Params, &[])?,
            backoff_ms: num("backoff_ms", 0.0)?,
            jitter_ms: num("jitter_ms", 0.0)?,
        }
    } else {
        for key in ["max_attempts", "backoff_ms", "jitter_ms"] {
            if get(h, key).is_some() {
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
    if cas && before.in_tx {
        return fail(
            at(&path, "cas"),
            "a transaction holds no compare-and-set write (its conflict restarts the repetition); check the value with an `if` instead",
        );
    }
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
    depth: usize,
) -> Result<Step, ComposeError> {
    let entries = table(
        &path,
        v,
        "an acquire step",
        &["acquire", "give_up_after_ms", "timeout_ms", "on_timeout"],
    )?;
    let here = at(&path, "acquire");
    let value = get(entries, "acquire").expect("an action");
    let lock = pick(reader, before, here.clone(), value, "lock")?;
    if let Pick::One(l) = lock
        && before.holds.contains(&l)
    {
        return fail(
            here,
            format!(
                "the actor holds `{}` already here (release it first)",
                text_of(value)
            ),
        );
    }
    let timeout = on_timeout(reader, before, &path, entries, depth, false)?;
    let goes_on = matches!(&timeout, Some(t) if t.then == Then::GoOn);
    for l in lock.all() {
        if !before.may_hold.contains(&l) {
            before.may_hold.push(l);
        }
    }
    // After the step it holds the lock, unless a timeout goes on without it or the lock is
    // one of several (then it is not known which).
    if let (Pick::One(l), false) = (&lock, goes_on) {
        before.holds.push(*l);
    }
    Ok(Step::Acquire { lock, timeout })
}

/// `{ if = …, then = [...], else = [...] }`.
fn branch(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    v: &Value,
    depth: usize,
) -> Result<Step, ComposeError> {
    let entries = table(&path, v, "an if step", &["if", "then", "else"])?;
    let here = at(&path, "if");
    let cond = condition(
        reader,
        before,
        here.clone(),
        get(entries, "if").expect("an action"),
    )?;
    if let Cond::Outcome(o) = cond
        && !before.outcomes.has(o)
        && before.impossible.is_none()
    {
        before.impossible = Some((
            here,
            format!(
                "`{}` can never be the outcome here, so this `if` never holds: the last step with an outcome before it ends with {}",
                crate::syntax::spec::OUTCOMES[o as usize],
                before.outcomes.names().join(", ")
            ),
        ));
    }
    if get(entries, "then").is_none() {
        return fail(
            path,
            "an `if` needs `then`, the steps run when the condition holds (and may have `else`)",
        );
    }
    let mut a = before.clone();
    let then = nested(
        reader,
        &mut a,
        at(&path, "then"),
        get(entries, "then"),
        depth,
    )?;
    let mut b = before.clone();
    let otherwise = nested(
        reader,
        &mut b,
        at(&path, "else"),
        get(entries, "else"),
        depth,
    )?;
    *before = Before::join(a, b);
    Ok(Step::If {
        cond,
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
    v: &Value,
) -> Result<Cond, ComposeError> {
    let outcome = |path: Path, v: &Value| -> Result<Cond, ComposeError> {
        let name = string(path.clone(), v, "an outcome")?;
        match OUTCOMES.iter().position(|o| *o == name) {
            Some(o) => Ok(Cond::Outcome(o as u8)),
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
    let entries = match v {
        Value::Str(_) => return outcome(here, v),
        Value::Table(entries) => entries,
        _ => return fail(here, shapes),
    };
    let mut keys = vec!["outcome", "chance", "stream", "value"];
    keys.extend(CMPS.iter().map(|(k, _)| *k));
    table(&here, v, "a condition", &keys)?;
    if let Some(o) = get(entries, "outcome") {
        if entries.len() > 1 {
            return fail(here, shapes);
        }
        return outcome(at(&here, "outcome"), o);
    }
    if let Some(p) = get(entries, "chance") {
        let stream = get(entries, "stream")
            .map(|s| stream_name(at(&here, "stream"), s))
            .transpose()?;
        if entries.len() > 1 + usize::from(stream.is_some()) {
            return fail(here, shapes);
        }
        return Ok(Cond::Chance(
            reader.num(at(&here, "chance"), p, Scope::Step, &before.read)?,
            stream,
        ));
    }
    let (Some(value), 2) = (get(entries, "value"), entries.len()) else {
        return fail(here, shapes);
    };
    let (key, cmp) = CMPS
        .iter()
        .find(|(k, _)| get(entries, k).is_some())
        .expect("a table of two known keys, one of them `value`");
    Ok(Cond::Compare(
        reader.num(at(&here, "value"), value, Scope::Step, &before.read)?,
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
            table(
                &here,
                value,
                "a crash rule",
                &["count", "probability", "stream"],
            )?;
            let stream = get(t, "stream")
                .map(|s| stream_name(at(&here, "stream"), s))
                .transpose()?;
            if stream.is_some() && get(t, "probability").is_none() {
                return fail(
                    at(&here, "stream"),
                    "`stream` names where a crash `probability` draws from",
                );
            }
            match (get(t, "count"), get(t, "probability")) {
                (Some(c), None) => {
                    Crash::First(reader.num(at(&here, "count"), c, Scope::Params, &[])?)
                }
                (None, Some(p)) => Crash::Probability(
                    reader.num(at(&here, "probability"), p, Scope::Params, &[])?,
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
fn stream_name(path: Path, v: &Value) -> Result<String, ComposeError> {
    let name = string(path.clone(), v, "a stream's name")?;
    if name.is_empty() || name.len() > 200 || name.chars().any(char::is_control) {
        return fail(path, "a stream's name is 1 to 200 printable characters");
    }
    Ok(name)
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
