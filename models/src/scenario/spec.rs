//! Reading a scenario's `[[resource]]` and `[[actor]]` sections into a [`Spec`], once per
//! config; every error names the path of the value at fault.

use coordsim_expr::Expr;
use coordsim_model::{ComposeError, Kind, PathPart, Value};

/// Most resources, actor groups, steps of a group and operator unlocks of a lock.
pub const MAX_RESOURCES: usize = 64;
/// Most actor groups.
pub const MAX_GROUPS: usize = 64;
/// Most steps of one group.
pub const MAX_STEPS: usize = 256;
/// Most `unlock_at_ms` times of one lock.
pub const MAX_UNLOCKS: usize = 10_000;

pub type Path = Vec<PathPart>;

fn at(path: &Path, key: &str) -> Path {
    let mut p = path.clone();
    p.push(PathPart::Key(key.to_string()));
    p
}

fn idx(path: &Path, i: usize) -> Path {
    let mut p = path.clone();
    p.push(PathPart::Index(i));
    p
}

fn fail<T>(path: Path, message: impl Into<String>) -> Result<T, ComposeError> {
    Err(ComposeError::new(path, message))
}

/// A name an expression may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// The scenario parameter at this index (of [`Spec::params`]).
    Param(u16),
    /// `i`: the actor's index in its group, from 0.
    Index,
    /// `k`: the repetition, from 0.
    Rep,
    /// `read`: what the actor last read of the register this step writes.
    Read,
    /// A register's name: what the actor last read of it.
    Reg(u16),
}

/// Which names an expression may use where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Parameters only (a resource's fields, a group's count).
    Params,
    /// Parameters and `i` (an actor's start, a delay).
    Actor,
    /// Parameters, `i`, `k`, `read` and the registers the actor has read (a write's value).
    Write,
}

/// A number a config gives: a literal, an expression, or a table chosen by a string parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    /// A literal.
    Lit(f64),
    /// An expression (the text kept for messages).
    Expr(Expr<Var>, String),
    /// `{ by = "placement", busiest_edge = 4, region = 62 }`: by a string parameter's value.
    By(u16, Vec<(String, f64)>),
    /// `[0, 2000]`: one per actor of the group, in order (where `i` may be used).
    Each(Vec<Num>),
}

impl Num {
    /// Whether it depends on `i`, `k` or what was read (so it is computed during the run).
    pub fn per_actor(&self) -> bool {
        fn uses(e: &Expr<Var>) -> bool {
            match e {
                Expr::Num(_) => false,
                Expr::Var(v) => !matches!(v, Var::Param(_)),
                Expr::Neg(a) => uses(a),
                Expr::Bin(_, a, b) => uses(a) || uses(b),
                Expr::Call(_, args) => args.iter().any(uses),
            }
        }
        match self {
            Num::Expr(e, _) => uses(e),
            Num::Each(_) => true,
            _ => false,
        }
    }

    /// The length of a per-actor list, if it is one.
    pub fn each_len(&self) -> Option<usize> {
        match self {
            Num::Each(items) => Some(items.len()),
            _ => None,
        }
    }
}

/// A string option given as itself or by a string parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// One of the options.
    Lit(&'static str),
    /// A string parameter's value, checked against the options at each point.
    Param(u16),
}

/// A scenario parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: Kind,
    pub default: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub name: String,
    pub kind: ResourceKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ResourceKind {
    Register {
        initial: Num,
        read_ms: Num,
        write_ms: Num,
        fenced_by: Option<u16>,
    },
    Lock {
        mode: Choice,
        poll_ms: Num,
        lease_ms: Num,
        fencing: bool,
        stale_at_start: bool,
        unlock_at_ms: Vec<Num>,
    },
    Server {
        service_ms: Num,
        service: Choice,
        service_cv: Num,
        instances: Num,
    },
    Link {
        rtt_ms: Num,
    },
}

pub const LOCK_MODES: &[&str] = &["poll", "queue", "lease"];
pub const SERVICE_KINDS: &[&str] = &["fixed", "exponential", "uniform", "lognormal", "gamma"];
pub const ARRIVALS: &[&str] = &["schedule", "poisson", "uniform", "lognormal", "gamma"];

#[derive(Debug, Clone, PartialEq)]
pub enum Crash {
    All,
    Names(Vec<String>),
    First(Num),
    Probability(Num),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    // Registers, locks, servers and links by their number among their kind.
    Read(u16),
    Write {
        reg: u16,
        value: Num,
        cas: bool,
        max_retries: Num,
    },
    Delay(Num),
    Acquire {
        lock: u16,
        give_up_after_ms: Option<Num>,
    },
    Release(u16),
    Request {
        server: u16,
        instance: Num,
    },
    Send(u16),
    Crash(Crash),
}

/// How a group's repetitions follow each other.
#[derive(Debug, Clone, PartialEq)]
pub enum Pace {
    /// Each repetition starts when the one before ends (closed loop).
    Closed,
    /// Repetition `k` starts at start + k × every_ms, whatever the others do (open loop).
    Every(Num),
    /// The repetitions spread evenly over this window: `k` at start + k × spread / repeat.
    Spread(Num),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub name: String,
    pub count: Num,
    pub names: Option<Vec<String>>,
    pub start_ms: Num,
    pub repeat: Num,
    pub pace: Pace,
    pub arrivals: Choice,
    pub every_cv: Num,
    pub steps: Vec<Step>,
}

/// A scenario, read once per config.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub params: Vec<Param>,
    pub resources: Vec<Resource>,
    pub groups: Vec<Group>,
}

/// The tie rule every scenario has, first among its parameters.
pub const TIE_ORDER: &str = "tie_order";
pub const TIE_ORDERS: &[&str] = &["fifo", "program_order", "reads_first", "writes_first"];

fn valid_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

const RESERVED_NAMES: &[&str] = &["i", "k", "read", TIE_ORDER];

/// Columns of every scenario (its overall metrics and its entity columns) and of the output
/// files: no parameter may take one, or a claim or a table could not tell them apart.
const TAKEN_COLUMNS: &[&str] = &[
    "completed",
    "mean_response_ms",
    "max_response_ms",
    "makespan_ms",
    "group",
    "start_ms",
    "end_ms",
    "outcome",
    "repetitions",
    "gave_up",
    "failed_attempts",
    "lock_wait_ms",
    "server_wait_ms",
    "rejected_writes",
    "retries",
    "point",
    "replication",
    "replications",
    "seed",
    "entity",
];

fn table<'v>(
    path: &Path,
    value: &'v Value,
    what: &str,
    keys: &[&str],
) -> Result<&'v [(String, Value)], ComposeError> {
    let Value::Table(entries) = value else {
        return fail(
            path.clone(),
            format!("{what} is a table, got {}", value.type_name()),
        );
    };
    for (k, _) in entries {
        if !keys.contains(&k.as_str()) {
            return fail(
                at(path, k),
                format!("unknown key `{k}` of {what}; valid: {}", keys.join(", ")),
            );
        }
    }
    Ok(entries)
}

fn get<'v>(entries: &'v [(String, Value)], key: &str) -> Option<&'v Value> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn string(path: Path, v: &Value, what: &str) -> Result<String, ComposeError> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        other => fail(
            path,
            format!("{what} is a string, got {}", other.type_name()),
        ),
    }
}

fn boolean(path: Path, v: Option<&Value>) -> Result<bool, ComposeError> {
    match v {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => fail(
            path,
            format!("expected true or false, got {}", other.type_name()),
        ),
    }
}

struct Reader<'s> {
    params: &'s [Param],
    /// Resource names and kinds, for resolving names in steps.
    resources: Vec<(String, &'static str)>,
    registers: Vec<String>,
}

impl Reader<'_> {
    fn param(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// A number: literal, expression over the names `scope` allows, or `{ by = … }`.
    fn num(&self, path: Path, v: &Value, scope: Scope, read: &[bool]) -> Result<Num, ComposeError> {
        match v {
            Value::Int(i) => Ok(Num::Lit(*i as f64)),
            Value::Float(x) if x.is_finite() => Ok(Num::Lit(*x)),
            Value::Float(x) => fail(path, format!("expected a finite number, got {x}")),
            Value::Str(text) => {
                let resolve = |name: &str| -> Result<Var, String> {
                    if let Some(i) = self.param(name) {
                        if !matches!(self.params[i].kind, Kind::Float | Kind::Count) {
                            return Err(format!(
                                "`{name}` is not a number parameter; a string parameter chooses a number with {{ by = \"{name}\", … }}"
                            ));
                        }
                        return Ok(Var::Param(i as u16));
                    }
                    let actor = matches!(scope, Scope::Actor | Scope::Write);
                    match name {
                        "i" if actor => return Ok(Var::Index),
                        "k" if scope == Scope::Write => return Ok(Var::Rep),
                        "read" if scope == Scope::Write => return Ok(Var::Read),
                        _ => {}
                    }
                    if scope == Scope::Write
                        && let Some(r) = self.registers.iter().position(|r| r == name)
                    {
                        if !read[r] {
                            return Err(format!(
                                "the actor reads `{name}` in no step before this one"
                            ));
                        }
                        return Ok(Var::Reg(r as u16));
                    }
                    let mut valid: Vec<&str> = self
                        .params
                        .iter()
                        .filter(|p| matches!(p.kind, Kind::Float | Kind::Count))
                        .map(|p| p.name.as_str())
                        .collect();
                    if actor {
                        valid.push("i");
                    }
                    if scope == Scope::Write {
                        valid.extend(["k", "read"]);
                        valid.extend(
                            self.registers
                                .iter()
                                .zip(read)
                                .filter(|(_, r)| **r)
                                .map(|(n, _)| n.as_str()),
                        );
                    }
                    Err(format!(
                        "unknown name `{name}`; valid here: {} (a parameter is set in [params] or [sweep])",
                        if valid.is_empty() {
                            "numbers only".to_string()
                        } else {
                            valid.join(", ")
                        }
                    ))
                };
                coordsim_expr::parse(text, &resolve)
                    .map(|e| Num::Expr(e, text.clone()))
                    .map_err(|e| {
                        ComposeError::new(
                            path,
                            format!("in \"{text}\" at character {}: {}", e.offset + 1, e.message),
                        )
                    })
            }
            Value::List(items) if scope != Scope::Params => items
                .iter()
                .enumerate()
                .map(|(k, item)| self.num(idx(&path, k), item, Scope::Params, read))
                .collect::<Result<_, _>>()
                .map(Num::Each),
            Value::Table(entries) => {
                let Some(Value::Str(by)) = get(entries, "by") else {
                    return fail(
                        path,
                        "a table number is { by = \"string parameter\", option = number, … }",
                    );
                };
                let Some(p) = self
                    .param(by)
                    .filter(|p| self.params[*p].kind == Kind::Text)
                else {
                    return fail(
                        at(&path, "by"),
                        format!("`{by}` is not a string parameter of this config"),
                    );
                };
                let mut options = Vec::new();
                for (k, v) in entries.iter().filter(|(k, _)| k != "by") {
                    match v.as_f64() {
                        Some(x) if x.is_finite() => options.push((k.clone(), x)),
                        _ => {
                            return fail(
                                at(&path, k),
                                format!("expected a number, got {}", v.type_name()),
                            );
                        }
                    }
                }
                Ok(Num::By(p as u16, options))
            }
            other => fail(
                path,
                format!(
                    "expected a number or an expression in quotes, got {}",
                    other.type_name()
                ),
            ),
        }
    }

    fn opt_num(
        &self,
        path: &Path,
        entries: &[(String, Value)],
        key: &str,
        default: f64,
        scope: Scope,
    ) -> Result<Num, ComposeError> {
        match get(entries, key) {
            Some(v) => self.num(at(path, key), v, scope, &[]),
            None => Ok(Num::Lit(default)),
        }
    }

    /// An optional string option of a table (`mode`, `service`, `arrivals`).
    fn opt_choice(
        &self,
        path: &Path,
        entries: &[(String, Value)],
        key: &str,
        options: &'static [&'static str],
        default: &'static str,
    ) -> Result<Choice, ComposeError> {
        self.choice(at(path, key), get(entries, key), options, default)
    }

    fn choice(
        &self,
        path: Path,
        v: Option<&Value>,
        options: &'static [&'static str],
        default: &'static str,
    ) -> Result<Choice, ComposeError> {
        let Some(v) = v else {
            return Ok(Choice::Lit(default));
        };
        let text = string(path.clone(), v, "this option")?;
        if let Some(o) = options.iter().find(|o| **o == text) {
            return Ok(Choice::Lit(o));
        }
        match self.param(&text) {
            Some(p) if self.params[p].kind == Kind::Text => Ok(Choice::Param(p as u16)),
            _ => fail(
                path,
                format!(
                    "unknown option \"{text}\"; valid: {} (or a string parameter's name)",
                    options
                        .iter()
                        .map(|o| format!("\"{o}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        }
    }

    /// The resource of `kind` called by the string `v`: its number among that kind's.
    fn resource_named(
        &self,
        path: Path,
        v: &Value,
        kind: &'static str,
    ) -> Result<u16, ComposeError> {
        let name = string(path.clone(), v, "a resource name")?;
        match self.resources.iter().position(|(n, _)| *n == name) {
            // Its number among the resources of its kind, which is how steps name it.
            Some(r) if self.resources[r].1 == kind => Ok(self.resources[..r]
                .iter()
                .filter(|(_, k)| *k == kind)
                .count() as u16),
            Some(r) => fail(
                path,
                format!("`{name}` is a {}, not a {kind}", self.resources[r].1),
            ),
            None => {
                let valid: Vec<&str> = self
                    .resources
                    .iter()
                    .filter(|(_, k)| *k == kind)
                    .map(|(n, _)| n.as_str())
                    .collect();
                fail(
                    path,
                    format!(
                        "no {kind} is called `{name}`; {kind}s: {}",
                        if valid.is_empty() {
                            "none (declare one in [[resource]])".to_string()
                        } else {
                            valid.join(", ")
                        }
                    ),
                )
            }
        }
    }
}

/// The config's own parameters, typed by their values: strings, booleans, numbers.
pub fn read_params(given: &[(String, Value)]) -> Result<Vec<Param>, ComposeError> {
    let mut params = vec![Param {
        name: TIE_ORDER.to_string(),
        kind: Kind::Choice(TIE_ORDERS),
        default: Value::Str("fifo".into()),
    }];
    for (name, value) in given {
        if name == TIE_ORDER {
            continue;
        }
        if let Some(taken) = TAKEN_COLUMNS.iter().find(|c| **c == name) {
            return fail(
                vec![PathPart::Key("params".into()), PathPart::Key(name.clone())],
                format!(
                    "`{taken}` is a column every scenario writes (or one the output files use); name the parameter otherwise"
                ),
            );
        }
        if !valid_name(name) || RESERVED_NAMES.contains(&name.as_str()) {
            return fail(
                vec![PathPart::Key("params".into()), PathPart::Key(name.clone())],
                format!(
                    "a scenario parameter's name is letters, digits and `_` (not `i`, `k` or `read`), got `{name}`"
                ),
            );
        }
        let (kind, default) = param_kind(value);
        params.push(Param {
            name: name.clone(),
            kind,
            default,
        });
    }
    Ok(params)
}

/// A parameter's kind and default from its value in `[params]` or its sweep in `[sweep]`
/// (a list, or a range table): strings, booleans, whole numbers ≥ 0 (counts: integer chart
/// ticks, whole sweep steps), other numbers.
fn param_kind(value: &Value) -> (Kind, Value) {
    let one = |v: &Value| match v {
        Value::Str(_) => Kind::Text,
        Value::Bool(_) => Kind::Bool,
        Value::Int(i) if *i >= 0 => Kind::Count,
        _ => Kind::Float,
    };
    match value {
        Value::List(items) if !items.is_empty() => {
            let kinds: Vec<Kind> = items.iter().map(one).collect();
            let kind = if kinds.iter().all(|k| *k == kinds[0]) {
                kinds[0]
            } else {
                Kind::Float
            };
            (kind, items[0].clone())
        }
        // A range counts when its ends and step are whole; `{ expr = … }` and spaced points
        // are numbers.
        Value::Table(entries) => {
            let whole = |key: &str| {
                entries
                    .iter()
                    .find(|(k, _)| k == key)
                    .is_some_and(|(_, v)| one(v) == Kind::Count)
            };
            let counts = whole("from") && whole("to") && whole("step");
            let from = entries
                .iter()
                .find(|(k, _)| k == "from")
                .map_or(Value::Float(0.0), |(_, v)| v.clone());
            (if counts { Kind::Count } else { Kind::Float }, from)
        }
        other => (one(other), other.clone()),
    }
}

/// Reads the sections.
pub fn read(sections: &[(String, Value)], params: Vec<Param>) -> Result<Spec, ComposeError> {
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
    // Names first, so steps and `fenced_by` may name any resource.
    let mut reader = Reader {
        params: &params,
        resources: Vec::new(),
        registers: Vec::new(),
    };
    let mut taken: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
    for (r, v) in resource_values.iter().enumerate() {
        let path = idx(&root, r);
        let entries = match v {
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
            Some(other) => {
                return fail(
                    at(&path, "kind"),
                    format!(
                        "unknown kind \"{other}\"; valid: \"register\", \"lock\", \"server\", \"link\""
                    ),
                );
            }
            None => {
                return fail(
                    path,
                    "a resource needs a `kind`: \"register\", \"lock\", \"server\" or \"link\"",
                );
            }
        };
        check_new_name(at(&path, "name"), &name, &taken)?;
        taken.push(name.clone());
        if kind == "register" {
            reader.registers.push(name.clone());
        }
        reader.resources.push((name, kind));
    }
    let mut resources = Vec::new();
    for (r, v) in resource_values.iter().enumerate() {
        let path = idx(&root, r);
        let Value::Table(entries) = v else {
            unreachable!("checked above")
        };
        let (name, kind) = reader.resources[r].clone();
        let p = Scope::Params;
        let kind = match kind {
            "register" => {
                table(
                    &path,
                    v,
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
                ResourceKind::Register {
                    initial: reader.opt_num(&path, entries, "initial", 0.0, p)?,
                    read_ms: reader.opt_num(&path, entries, "read_ms", 0.0, p)?,
                    write_ms: reader.opt_num(&path, entries, "write_ms", 0.0, p)?,
                    fenced_by: get(entries, "fenced_by")
                        .map(|v| reader.resource_named(at(&path, "fenced_by"), v, "lock"))
                        .transpose()?,
                }
            }
            "lock" => {
                table(
                    &path,
                    v,
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
                        .map(|(i, v)| reader.num(idx(&at(&path, "unlock_at_ms"), i), v, p, &[]))
                        .collect::<Result<_, _>>()?,
                    Some(_) => {
                        return fail(
                            at(&path, "unlock_at_ms"),
                            format!("a list of at most {MAX_UNLOCKS} times (ms)"),
                        );
                    }
                };
                ResourceKind::Lock {
                    mode: reader.opt_choice(&path, entries, "mode", LOCK_MODES, "poll")?,
                    poll_ms: reader.opt_num(&path, entries, "poll_ms", 25.0, p)?,
                    lease_ms: reader.opt_num(&path, entries, "lease_ms", 0.0, p)?,
                    fencing: boolean(at(&path, "fencing"), get(entries, "fencing"))?,
                    stale_at_start: boolean(
                        at(&path, "stale_at_start"),
                        get(entries, "stale_at_start"),
                    )?,
                    unlock_at_ms,
                }
            }
            "server" => {
                table(
                    &path,
                    v,
                    "a server",
                    &[
                        "name",
                        "kind",
                        "service_ms",
                        "service",
                        "service_cv",
                        "instances",
                    ],
                )?;
                let Some(service) = get(entries, "service_ms") else {
                    return fail(path, "a server needs `service_ms`, its (mean) service time");
                };
                ResourceKind::Server {
                    service_ms: reader.num(at(&path, "service_ms"), service, p, &[])?,
                    service: reader.opt_choice(
                        &path,
                        entries,
                        "service",
                        SERVICE_KINDS,
                        "fixed",
                    )?,
                    service_cv: reader.opt_num(&path, entries, "service_cv", 1.0, p)?,
                    instances: reader.opt_num(&path, entries, "instances", 1.0, p)?,
                }
            }
            _ => {
                table(&path, v, "a link", &["name", "kind", "rtt_ms"])?;
                let Some(rtt) = get(entries, "rtt_ms") else {
                    return fail(
                        path,
                        "a link needs `rtt_ms`, its round trip (each crossing takes half)",
                    );
                };
                ResourceKind::Link {
                    rtt_ms: reader.num(at(&path, "rtt_ms"), rtt, p, &[])?,
                }
            }
        };
        resources.push(Resource { name, kind });
    }

    let root = vec![PathPart::Key("actor".into())];
    let mut groups = Vec::new();
    for (g, v) in actor_values.iter().enumerate() {
        let path = idx(&root, g);
        let entries = table(
            &path,
            v,
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
            ],
        )?;
        let name = match get(entries, "name") {
            Some(v) => string(at(&path, "name"), v, "`name`")?,
            None => return fail(path, "an actor group needs a `name`"),
        };
        check_new_name(at(&path, "name"), &name, &taken)?;
        taken.push(name.clone());
        let names = match get(entries, "names") {
            None => None,
            Some(Value::List(items)) => {
                let mut names: Vec<String> = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let n = string(idx(&at(&path, "names"), i), item, "an actor's name")?;
                    if n.is_empty() || n.chars().any(char::is_control) || n.len() > 200 {
                        return fail(
                            idx(&at(&path, "names"), i),
                            "an actor's name is 1 to 200 printable characters",
                        );
                    }
                    if names.contains(&n) {
                        return fail(
                            idx(&at(&path, "names"), i),
                            format!("two actors are called `{n}`"),
                        );
                    }
                    names.push(n);
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
            (None, Some(n)) => Num::Lit(n.len() as f64),
            (None, None) => Num::Lit(1.0),
        };
        let pace = match (get(entries, "every_ms"), get(entries, "spread_ms")) {
            (Some(_), Some(_)) => {
                return fail(
                    at(&path, "spread_ms"),
                    "give `every_ms` or `spread_ms`, not both",
                );
            }
            (Some(v), None) => {
                Pace::Every(reader.num(at(&path, "every_ms"), v, Scope::Params, &[])?)
            }
            (None, Some(v)) => {
                Pace::Spread(reader.num(at(&path, "spread_ms"), v, Scope::Params, &[])?)
            }
            (None, None) => Pace::Closed,
        };
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
        let steps = read_steps(&reader, &steps_path, step_values)?;
        groups.push(Group {
            name,
            count,
            names,
            start_ms: reader.opt_num(&path, entries, "start_ms", 0.0, Scope::Actor)?,
            repeat: reader.opt_num(&path, entries, "repeat", 1.0, Scope::Params)?,
            pace,
            arrivals,
            every_cv: reader.opt_num(&path, entries, "every_cv", 1.0, Scope::Params)?,
            steps,
        });
    }
    Ok(Spec {
        params,
        resources,
        groups,
    })
}

fn check_new_name(path: Path, name: &str, taken: &[String]) -> Result<(), ComposeError> {
    if !valid_name(name) || RESERVED_NAMES.contains(&name) {
        return fail(
            path,
            format!(
                "a name here is letters, digits and `_`, starting with a letter (metrics are named `{name}.…`); got `{name}`"
            ),
        );
    }
    if taken.iter().any(|t| t == name) {
        return fail(
            path,
            format!("`{name}` is taken (by a parameter, a resource or a group); names must differ"),
        );
    }
    Ok(())
}

const ACTIONS: &[&str] = &[
    "read", "write", "delay_ms", "acquire", "release", "request", "send", "crash",
];

fn read_steps(
    reader: &Reader<'_>,
    path: &Path,
    values: &[Value],
) -> Result<Vec<Step>, ComposeError> {
    let mut steps = Vec::new();
    let mut read = vec![false; reader.registers.len()];
    let mut holding: Vec<u16> = Vec::new();
    for (s, v) in values.iter().enumerate() {
        let path = idx(path, s);
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
        let step = match action {
            "read" => {
                table(&path, v, "a read step", &["read"])?;
                let reg = reader.resource_named(here, value, "register")? as usize;
                read[reg] = true;
                Step::Read(reg as u16)
            }
            "write" => {
                table(
                    &path,
                    v,
                    "a write step",
                    &["write", "value", "cas", "max_retries"],
                )?;
                let reg = reader.resource_named(here, value, "register")? as usize;
                let Some(expr) = get(entries, "value") else {
                    return fail(
                        path,
                        "a write needs `value`, e.g. \"read + 1\" (what it read, plus one)",
                    );
                };
                // `read` in the value means this register's read: it must have one.
                let value = reader.num(at(&path, "value"), expr, Scope::Write, &read)?;
                if let Num::Expr(e, _) = &value
                    && uses_read(e)
                    && !read[reg]
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
                if cas && !read[reg] {
                    return fail(
                        at(&path, "cas"),
                        "a compare-and-set write compares with what the actor read: read the register first",
                    );
                }
                Step::Write {
                    reg: reg as u16,
                    value,
                    cas,
                    max_retries: reader.opt_num(
                        &path,
                        entries,
                        "max_retries",
                        1000.0,
                        Scope::Params,
                    )?,
                }
            }
            "delay_ms" => {
                table(&path, v, "a delay step", &["delay_ms"])?;
                Step::Delay(reader.num(here, value, Scope::Actor, &[])?)
            }
            "acquire" => {
                table(
                    &path,
                    v,
                    "an acquire step",
                    &["acquire", "give_up_after_ms"],
                )?;
                let lock = reader.resource_named(here.clone(), value, "lock")?;
                if holding.contains(&lock) {
                    return fail(
                        here,
                        format!(
                            "the actor holds `{}` already here (release it first)",
                            text_of(value)
                        ),
                    );
                }
                holding.push(lock);
                Step::Acquire {
                    lock,
                    give_up_after_ms: get(entries, "give_up_after_ms")
                        .map(|g| reader.num(at(&path, "give_up_after_ms"), g, Scope::Actor, &[]))
                        .transpose()?,
                }
            }
            "release" => {
                table(&path, v, "a release step", &["release"])?;
                let lock = reader.resource_named(here.clone(), value, "lock")?;
                if !holding.contains(&lock) {
                    return fail(
                        here,
                        format!(
                            "the actor does not hold `{}` here (no acquire before this step)",
                            text_of(value)
                        ),
                    );
                }
                holding.retain(|l| *l != lock);
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
                Step::Crash(match value {
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
                            (Some(c), None) => Crash::First(reader.num(
                                at(&here, "count"),
                                c,
                                Scope::Params,
                                &[],
                            )?),
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
        };
        steps.push(step);
    }
    Ok(steps)
}

/// A string value's text (a name checked already).
fn text_of(v: &Value) -> &str {
    match v {
        Value::Str(s) => s,
        _ => "",
    }
}

fn uses_read(e: &Expr<Var>) -> bool {
    match e {
        Expr::Num(_) => false,
        Expr::Var(v) => *v == Var::Read,
        Expr::Neg(a) => uses_read(a),
        Expr::Bin(_, a, b) => uses_read(a) || uses_read(b),
        Expr::Call(_, args) => args.iter().any(uses_read),
    }
}
