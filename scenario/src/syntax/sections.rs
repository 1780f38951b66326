//! Reading the `[[resource]]` and `[[actor]]` sections into a [`Spec`].

use coordsim_model::{ComposeError, PathPart, Value};

use crate::syntax::flow::Refusals;
use crate::syntax::read::{
    Path, Reader, at, at_index, boolean, check_new_name, fail, get, string, table,
};
use crate::syntax::spec::{
    ARRIVALS, Choice, CrashAnywhere, FOREVER, Group, KeysInit, LOCK_MODES, MAX_FIELDS, MAX_GROUPS,
    MAX_INITIAL_KEYS, MAX_RESOURCES, MAX_STEPS, MAX_UNLOCKS, MAX_WINDOWS, Number, Pace, Param,
    Resource, ResourceKind, SERVICE_KINDS, Scope, Spec, Var, WHEN_DOWN,
};
use crate::syntax::steps::read_steps;

/// Reads the sections: every resource's name first (so steps and `fenced_by` may name any
/// resource), then each resource, then each actor group.
pub(crate) fn read(sections: &[(String, Value)], params: Vec<Param>) -> Result<Spec, ComposeError> {
    let section = |name: &str| -> Result<&[Value], ComposeError> {
        match sections.iter().find(|(k, _)| k == name) {
            None => Ok(&[]),
            Some((_, Value::List(items))) => Ok(items),
            Some((_, other)) => fail(
                vec![PathPart::Key(name.into())],
                format!(
                    "`{name}` is an array of tables ([[{name}]]), got {}",
                    other.type_name()
                ),
            ),
        }
    };
    let resource_values = section("resource")?;
    let actor_values = section("actor")?;
    if resource_values.len() > MAX_RESOURCES {
        return fail(
            vec![PathPart::Key("resource".into())],
            format!("at most {MAX_RESOURCES} resources"),
        );
    }
    if actor_values.is_empty() {
        return fail(
            vec![PathPart::Key("model".into())],
            "a scenario needs at least one [[actor]]",
        );
    }
    if actor_values.len() > MAX_GROUPS {
        return fail(
            vec![PathPart::Key("actor".into())],
            format!("at most {MAX_GROUPS} actor groups"),
        );
    }
    let root = vec![PathPart::Key("resource".into())];
    let mut reader = Reader {
        params: &params,
        resources: Vec::new(),
        registers: Vec::new(),
        vars: Vec::new(),
        unacked: Vec::new(),
        refusals: Refusals::default(),
        copy: None,
        index_used: std::cell::Cell::new(false),
    };
    let mut taken: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
    // Every resource's and group's name as written, for a suggestion to be none of them.
    let written: Vec<&str> = (resource_values.iter().chain(actor_values))
        .filter_map(|v| match v {
            Value::Table(entries) => match get(entries, "name") {
                Some(Value::Str(name)) => Some(name.as_str()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    for (index, value) in resource_values.iter().enumerate() {
        name_resource(
            &mut reader,
            &mut taken,
            &written,
            at_index(&root, index),
            value,
        )?;
    }
    let mut resources = Vec::new();
    for (index, value) in resource_values.iter().enumerate() {
        let (name, kind) = reader.resources[index].clone();
        let kind = match kind {
            "register" => register(&reader, at_index(&root, index), value)?,
            "lock" => lock(&reader, at_index(&root, index), value)?,
            "server" => server(&reader, at_index(&root, index), value)?,
            "queue" => queue(&mut reader, index, at_index(&root, index), value)?,
            "keys" => keys(&mut reader, index, at_index(&root, index), value)?,
            _ => link(&reader, at_index(&root, index), value)?,
        };
        resources.push(Resource { name, kind });
    }
    reader.refusals = Refusals::of(&resources, &params);
    let root = vec![PathPart::Key("actor".into())];
    let mut groups = Vec::new();
    for (index, value) in actor_values.iter().enumerate() {
        groups.push(group(
            &reader,
            &mut taken,
            &written,
            at_index(&root, index),
            value,
        )?);
    }
    let watches = crate::syntax::watch::read_watches(&reader, section("watch")?, &mut taken)?;
    Ok(Spec {
        params,
        resources,
        groups,
        watches,
        watched: Vec::new(),
    })
}

/// A resource's name and kind, known before any resource is read.
fn name_resource(
    reader: &mut Reader<'_>,
    taken: &mut Vec<String>,
    written: &[&str],
    path: Path,
    value: &Value,
) -> Result<(), ComposeError> {
    let entries = match value {
        Value::Table(e) => e,
        other => {
            return fail(
                path,
                format!("a resource is a table, got {}", other.type_name()),
            );
        }
    };
    let name = match get(entries, "name") {
        Some(v) => string(at(&path, "name"), v, "`name`")?,
        None => return fail(path, "a resource needs a `name`"),
    };
    let kind = match get(entries, "kind")
        .map(|v| string(at(&path, "kind"), v, "`kind`"))
        .transpose()?
        .as_deref()
    {
        Some("register") => "register",
        Some("lock") => "lock",
        Some("server") => "server",
        Some("link") => "link",
        Some("queue") => "queue",
        Some("keys") => "keys",
        Some(other) => {
            return fail(
                at(&path, "kind"),
                format!(
                    "unknown kind \"{other}\"{}; valid: \"register\", \"lock\", \"server\", \"link\", \"queue\", \"keys\"",
                    coordsim_model::suggest::did_you_mean(
                        other,
                        &["register", "lock", "server", "link", "queue", "keys"]
                    )
                ),
            );
        }
        None => {
            return fail(
                path,
                "a resource needs a `kind`: \"register\", \"lock\", \"server\", \"link\", \"queue\" or \"keys\"",
            );
        }
    };
    take_name(&path, &name, entries, taken, written)?;
    if kind == "register" {
        reader.registers.push(name.clone());
    }
    reader.resources.push((name, kind));
    Ok(())
}

fn register(reader: &Reader<'_>, path: Path, value: &Value) -> Result<ResourceKind, ComposeError> {
    let scope = Scope::Params;
    let entries = table(
        &path,
        value,
        "a register",
        &[
            "name",
            "kind",
            "initial",
            "read_ms",
            "write_ms",
            "fenced_by",
        ],
    )?;
    Ok(ResourceKind::Register {
        initial: reader.opt_num(&path, entries, "initial", 0.0, scope)?,
        read_ms: reader.opt_num(&path, entries, "read_ms", 0.0, scope)?,
        write_ms: reader.opt_num(&path, entries, "write_ms", 0.0, scope)?,
        fenced_by: get(entries, "fenced_by")
            .map(|value| reader.resource_named(at(&path, "fenced_by"), value, "lock"))
            .transpose()?,
    })
}

fn lock(reader: &Reader<'_>, path: Path, value: &Value) -> Result<ResourceKind, ComposeError> {
    let scope = Scope::Params;
    let entries = table(
        &path,
        value,
        "a lock",
        &[
            "name",
            "kind",
            "mode",
            "poll_ms",
            "lease_ms",
            "fencing",
            "stale_at_start",
            "unlock_at_ms",
        ],
    )?;
    let unlock_at_ms = match get(entries, "unlock_at_ms") {
        None => Vec::new(),
        Some(Value::List(items)) if items.len() <= MAX_UNLOCKS => items
            .iter()
            .enumerate()
            .map(|(index, value)| {
                reader.num(
                    at_index(&at(&path, "unlock_at_ms"), index),
                    value,
                    scope,
                    &[],
                )
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return fail(
                at(&path, "unlock_at_ms"),
                format!("a list of at most {MAX_UNLOCKS} times (ms)"),
            );
        }
    };
    Ok(ResourceKind::Lock {
        mode: reader.opt_choice(&path, entries, "mode", LOCK_MODES, "poll")?,
        poll_ms: reader.opt_num(&path, entries, "poll_ms", 25.0, scope)?,
        lease_ms: reader.opt_num(&path, entries, "lease_ms", 0.0, scope)?,
        fencing: boolean(at(&path, "fencing"), get(entries, "fencing"))?,
        stale_at_start: boolean(at(&path, "stale_at_start"), get(entries, "stale_at_start"))?,
        unlock_at_ms,
    })
}

fn server(reader: &Reader<'_>, path: Path, value: &Value) -> Result<ResourceKind, ComposeError> {
    let scope = Scope::Params;
    let entries = table(
        &path,
        value,
        "a server",
        &[
            "name",
            "kind",
            "service_ms",
            "service",
            "service_cv",
            "instances",
            "down",
            "when_down",
        ],
    )?;
    let mut down = Vec::new();
    match get(entries, "down") {
        None => {}
        Some(Value::List(windows)) if windows.len() <= MAX_WINDOWS => {
            for (index, window) in windows.iter().enumerate() {
                let here = at_index(&at(&path, "down"), index);
                let Value::List(ends) = window else {
                    return fail(here, "a down window is [from_ms, to_ms]");
                };
                let [from, to] = ends.as_slice() else {
                    return fail(here, "a down window is [from_ms, to_ms]: two numbers");
                };
                down.push((
                    reader.num(at_index(&here, 0), from, scope, &[])?,
                    reader.num(at_index(&here, 1), to, scope, &[])?,
                ));
            }
        }
        Some(_) => {
            return fail(
                at(&path, "down"),
                format!("`down` is a list of at most {MAX_WINDOWS} windows [from_ms, to_ms]"),
            );
        }
    }
    let Some(service) = get(entries, "service_ms") else {
        return fail(path, "a server needs `service_ms`, its (mean) service time");
    };
    Ok(ResourceKind::Server {
        service_ms: reader.num(at(&path, "service_ms"), service, scope, &[])?,
        service: reader.opt_choice(&path, entries, "service", SERVICE_KINDS, "fixed")?,
        service_cv: reader.opt_num(&path, entries, "service_cv", 1.0, scope)?,
        instances: reader.opt_num(&path, entries, "instances", 1.0, scope)?,
        when_down: reader.opt_choice(&path, entries, "when_down", WHEN_DOWN, "wait")?,
        down,
    })
}

fn link(reader: &Reader<'_>, path: Path, value: &Value) -> Result<ResourceKind, ComposeError> {
    let entries = table(
        &path,
        value,
        "a link",
        &["name", "kind", "rtt_ms", "loss", "duplicate"],
    )?;
    let Some(rtt) = get(entries, "rtt_ms") else {
        return fail(
            path,
            "a link needs `rtt_ms`, its round trip (each crossing takes half)",
        );
    };
    Ok(ResourceKind::Link {
        rtt_ms: reader.num(at(&path, "rtt_ms"), rtt, Scope::Params, &[])?,
        loss: reader.opt_num(&path, entries, "loss", 0.0, Scope::Params)?,
        duplicate: reader.opt_num(&path, entries, "duplicate", 0.0, Scope::Params)?,
    })
}

/// A queue (the resource at index `resource`): its capacity, visibility timeout, message
/// fields and link; the names a take gives the actor (`Q`, `Q.id`, `Q.deliveries`, `Q.FIELD`).
fn queue(
    reader: &mut Reader<'_>,
    resource: usize,
    path: Path,
    value: &Value,
) -> Result<ResourceKind, ComposeError> {
    let scope = Scope::Params;
    let entries = table(
        &path,
        value,
        "a queue",
        &[
            "name",
            "kind",
            "capacity",
            "visibility_ms",
            "fields",
            "link",
        ],
    )?;
    let name = reader.resources[resource].0.clone();
    let mut fields: Vec<String> = Vec::new();
    match get(entries, "fields") {
        None => {}
        Some(Value::List(items)) if items.len() <= MAX_FIELDS => {
            // A field's suggestion is none of the queue's fields, `id` nor `deliveries`.
            let written: Vec<&str> = (items.iter())
                .filter_map(|item| match item {
                    Value::Str(name) => Some(name.as_str()),
                    _ => None,
                })
                .chain(["id", "deliveries"])
                .collect();
            for (index, item) in items.iter().enumerate() {
                let here = at_index(&at(&path, "fields"), index);
                let field = string(here.clone(), item, "a field's name")?;
                check_new_name(here.clone(), &field, &[], &written)?;
                if ["id", "deliveries"].contains(&field.as_str()) || fields.contains(&field) {
                    return fail(
                        here,
                        format!(
                            "`{field}` is taken: every message has `id` and `deliveries`, and fields differ"
                        ),
                    );
                }
                fields.push(field);
            }
        }
        Some(_) => {
            return fail(
                at(&path, "fields"),
                format!("`fields` is a list of at most {MAX_FIELDS} names, e.g. [\"member\"]"),
            );
        }
    }
    let queue_number = reader.resources[..resource]
        .iter()
        .filter(|(_, k)| *k == "queue")
        .count() as u16;
    if get(entries, "visibility_ms").is_none() {
        reader.unacked.push(queue_number);
    }
    reader
        .vars
        .push((name.clone(), Var::Msg(queue_number, 0), resource));
    reader
        .vars
        .push((format!("{name}.id"), Var::Msg(queue_number, 1), resource));
    reader.vars.push((
        format!("{name}.deliveries"),
        Var::Msg(queue_number, 2),
        resource,
    ));
    for (index, field) in fields.iter().enumerate() {
        reader.vars.push((
            format!("{name}.{field}"),
            Var::Msg(queue_number, 3 + index as u8),
            resource,
        ));
    }
    Ok(ResourceKind::Queue {
        capacity: reader.opt_num(&path, entries, "capacity", 0.0, scope)?,
        visibility_ms: get(entries, "visibility_ms")
            .map(|value| reader.num(at(&path, "visibility_ms"), value, scope, &[]))
            .transpose()?,
        fields,
        link: get(entries, "link")
            .map(|value| reader.resource_named(at(&path, "link"), value, "link"))
            .transpose()?,
    })
}

/// A key store (the resource at index `resource`): its keys at the start; its name is the
/// number stored with the key an actor last used there.
fn keys(
    reader: &mut Reader<'_>,
    resource: usize,
    path: Path,
    value: &Value,
) -> Result<ResourceKind, ComposeError> {
    let scope = Scope::Params;
    let entries = table(&path, value, "a key store", &["name", "kind", "initial"])?;
    let shapes = "`initial` is a list of keys ([1, 2, 3], each stored with 0), of [key, value] pairs ([[4, 2], [5, 3]]), or { from = 1, count = 100, value = 0 }";
    let here = at(&path, "initial");
    let initial = match get(entries, "initial") {
        None => KeysInit::Pairs(Vec::new()),
        Some(Value::List(items)) if items.len() <= MAX_INITIAL_KEYS => {
            let mut pairs = Vec::new();
            for (index, item) in items.iter().enumerate() {
                let item_path = at_index(&here, index);
                pairs.push(match item {
                    Value::List(pair) => match pair.as_slice() {
                        [key, value] => (
                            reader.num(at_index(&item_path, 0), key, scope, &[])?,
                            reader.num(at_index(&item_path, 1), value, scope, &[])?,
                        ),
                        _ => return fail(item_path, shapes),
                    },
                    other => (reader.num(item_path, other, scope, &[])?, Number::Lit(0.0)),
                });
            }
            KeysInit::Pairs(pairs)
        }
        Some(table_value @ Value::Table(_)) => {
            let range = table(
                &here,
                table_value,
                "a range of keys",
                &["from", "count", "value"],
            )?;
            let Some(count) = get(range, "count") else {
                return fail(here, shapes);
            };
            KeysInit::Range {
                from: reader.opt_num(&here, range, "from", 0.0, scope)?,
                count: reader.num(at(&here, "count"), count, scope, &[])?,
                value: reader.opt_num(&here, range, "value", 0.0, scope)?,
            }
        }
        Some(_) => {
            return fail(
                here,
                format!("{shapes}; a list has at most {MAX_INITIAL_KEYS} items"),
            );
        }
    };
    let store_number = reader.resources[..resource]
        .iter()
        .filter(|(_, kind)| *kind == "keys")
        .count() as u16;
    let name = reader.resources[resource].0.clone();
    reader
        .vars
        .push((name, Var::Stored(store_number), resource));
    Ok(ResourceKind::Keys { initial })
}

/// The group's `repeat`, and whether it is `"forever"`: a loop without end, which only an
/// exploration follows (round its cycles) and only a closed loop may be; its number is
/// then 1 for everything that counts repetitions ahead.
fn repeat(
    reader: &Reader<'_>,
    path: &Path,
    entries: &[(String, Value)],
    pace: &Pace,
) -> Result<(Number, bool), ComposeError> {
    if !matches!(get(entries, "repeat"), Some(Value::Str(word)) if word == FOREVER) {
        let repeat = reader
            .opt_num(path, entries, "repeat", 1.0, Scope::Params)
            .map_err(|mut e| {
                // A word that is not a parameter: the one word `repeat` takes is "forever".
                if matches!(get(entries, "repeat"), Some(Value::Str(_))) {
                    e.message
                        .push_str("; or `\"forever\"`, a closed loop without end (explored only)");
                }
                e
            })?;
        return Ok((repeat, false));
    }
    if !matches!(pace, Pace::Closed) {
        return fail(
            at(path, "repeat"),
            "`repeat = \"forever\"` is a closed loop (each repetition starts when the one before ends): give it no `every_ms` or `spread_ms`",
        );
    }
    Ok((Number::Lit(1.0), true))
}

/// Whether a group's actor goes on from one repetition to the next holding its locks: a
/// closed loop that goes round (more than once, or for ever).
fn keeps(pace: &Pace, repeat: &Number, forever: bool) -> bool {
    matches!(pace, Pace::Closed)
        && (forever || !matches!(repeat, Number::Lit(times) if *times <= 1.0))
}

/// An actor group: its name (a new one), its actors, their pace and their steps.
fn group(
    reader: &Reader<'_>,
    taken: &mut Vec<String>,
    written: &[&str],
    path: Path,
    value: &Value,
) -> Result<Group, ComposeError> {
    let entries = table(
        &path,
        value,
        "an actor group",
        &[
            "name",
            "count",
            "names",
            "start_ms",
            "repeat",
            "every_ms",
            "spread_ms",
            "arrivals",
            "every_cv",
            "steps",
            "crash_anywhere",
        ],
    )?;
    let name = match get(entries, "name") {
        Some(v) => string(at(&path, "name"), v, "`name`")?,
        None => return fail(path, "an actor group needs a `name`"),
    };
    // Whether anything of the group names `i`, from here to its end.
    reader.index_used.set(false);
    take_name(&path, &name, entries, taken, written)?;
    let names = match get(entries, "names") {
        None => None,
        Some(Value::List(items)) => {
            let mut names: Vec<String> = Vec::new();
            for (index, item) in items.iter().enumerate() {
                let actor_name = string(
                    at_index(&at(&path, "names"), index),
                    item,
                    "an actor's name",
                )?;
                if actor_name.is_empty()
                    || actor_name.chars().any(char::is_control)
                    || actor_name.len() > 200
                {
                    return fail(
                        at_index(&at(&path, "names"), index),
                        "an actor's name is 1 to 200 printable characters",
                    );
                }
                if names.contains(&actor_name) {
                    return fail(
                        at_index(&at(&path, "names"), index),
                        format!("two actors are called `{actor_name}`"),
                    );
                }
                names.push(actor_name);
            }
            Some(names)
        }
        Some(other) => {
            return fail(
                at(&path, "names"),
                format!("`names` is a list of strings, got {}", other.type_name()),
            );
        }
    };
    let count = match (get(entries, "count"), &names) {
        (Some(_), Some(_)) => {
            return fail(at(&path, "count"), "give `count` or `names`, not both");
        }
        (Some(v), None) => reader.num(at(&path, "count"), v, Scope::Params, &[])?,
        (None, Some(n)) => Number::Lit(n.len() as f64),
        (None, None) => Number::Lit(1.0),
    };
    let pace = match (get(entries, "every_ms"), get(entries, "spread_ms")) {
        (Some(_), Some(_)) => {
            return fail(
                at(&path, "spread_ms"),
                "give `every_ms` or `spread_ms`, not both",
            );
        }
        (Some(v), None) => Pace::Every(reader.num(at(&path, "every_ms"), v, Scope::Params, &[])?),
        (None, Some(v)) => {
            Pace::Spread(reader.num(at(&path, "spread_ms"), v, Scope::Params, &[])?)
        }
        (None, None) => Pace::Closed,
    };
    let (repeat, forever) = repeat(reader, &path, entries, &pace)?;
    let arrivals = reader.opt_choice(&path, entries, "arrivals", ARRIVALS, "schedule")?;
    if arrivals != Choice::Lit("schedule") && !matches!(pace, Pace::Every(_)) {
        return fail(
            at(&path, "arrivals"),
            "random arrivals need `every_ms` (the mean gap of an open loop)",
        );
    }
    let steps_path = at(&path, "steps");
    let step_values = match get(entries, "steps") {
        Some(Value::List(items)) if !items.is_empty() && items.len() <= MAX_STEPS => items,
        Some(_) => {
            return fail(
                steps_path,
                format!("`steps` is a list of 1 to {MAX_STEPS} steps"),
            );
        }
        None => {
            return fail(
                path,
                "an actor group needs `steps`, e.g. [{ read = \"counter\" }, { write = \"counter\", value = \"read + 1\" }]",
            );
        }
    };
    let keep = keeps(&pace, &repeat, forever);
    let steps = read_steps(reader, &steps_path, step_values, keep)?;
    let crash_anywhere = match get(entries, "crash_anywhere") {
        None => None,
        Some(given) => {
            let path = at(&path, "crash_anywhere");
            let keys = table(
                &path,
                given,
                "`crash_anywhere` (an exploration's crashes of this group: `{ count = 1, restart_after_ms = 100 }`)",
                &["count", "restart_after_ms"],
            )?;
            Some(CrashAnywhere {
                count: reader.opt_num(&path, keys, "count", 1.0, Scope::Params)?,
                restart_after_ms: get(keys, "restart_after_ms")
                    .map(|v| reader.num(at(&path, "restart_after_ms"), v, Scope::Params, &[]))
                    .transpose()?,
            })
        }
    };
    let start_ms = reader.opt_num(&path, entries, "start_ms", 0.0, Scope::Actor)?;
    Ok(Group {
        crash_anywhere,
        name,
        count,
        names,
        start_ms,
        repeat,
        forever,
        pace,
        arrivals,
        every_cv: reader.opt_num(&path, entries, "every_cv", 1.0, Scope::Params)?,
        steps,
        uses_index: reader.index_used.get(),
    })
}

/// The prefixes of the streams the composer keys itself (`chance/GROUP-i`, `loss/LINK`, …):
/// a group's named stream `S` is keyed `GROUP/S`, so a group that names one may not be
/// called any of these.
const STREAM_SOURCES: &[&str] = &[
    "arrivals",
    "crash",
    "jitter",
    "chance",
    "loss",
    "duplicate",
    "service",
];

/// Takes `name` for a resource or a group written at `path`: new, valid, and not one whose
/// named streams would be keyed like an automatic stream. `written`: every resource's and
/// group's name in the config.
fn take_name(
    path: &Path,
    name: &str,
    entries: &[(String, Value)],
    taken: &mut Vec<String>,
    written: &[&str],
) -> Result<(), ComposeError> {
    check_new_name(at(path, "name"), name, taken, written)?;
    if STREAM_SOURCES.contains(&name) && get(entries, "steps").is_some_and(names_stream) {
        return fail(
            at(path, "name"),
            format!(
                "a group whose steps name a stream cannot be called `{name}`: its stream `S` is keyed `{name}/S`, the key of an automatic stream (`{name}/GROUP-i`, `{name}/NAME`); rename the group (reserved with a named stream: {})",
                STREAM_SOURCES.join(", ")
            ),
        );
    }
    taken.push(name.to_string());
    Ok(())
}

/// Whether a group's steps, at any depth, name a stream (a `stream` key anywhere).
fn names_stream(value: &Value) -> bool {
    match value {
        Value::Table(entries) => entries
            .iter()
            .any(|(key, inner)| key == "stream" || names_stream(inner)),
        Value::List(items) => items.iter().any(names_stream),
        _ => false,
    }
}
