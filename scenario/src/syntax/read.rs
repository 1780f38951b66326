//! Reading a scenario's values: paths for errors, tables and names, numbers and options
//! over the config's parameters, and the parameters themselves. Every error names the path
//! of the value at fault.

use coordsim_model::{ComposeError, ConfigParam, Kind, PathPart, Value};

use crate::syntax::flow::Refusals;
use crate::syntax::spec::{Choice, Number, Param, Scope, TIE_ORDER, TIE_ORDERS, Var};

pub(crate) type Path = Vec<PathPart>;

pub(crate) fn at(path: &Path, key: &str) -> Path {
    let mut child = path.clone();
    child.push(PathPart::Key(key.to_string()));
    child
}

pub(crate) fn at_index(path: &Path, index: usize) -> Path {
    let mut child = path.clone();
    child.push(PathPart::Index(index));
    child
}

pub(crate) fn fail<T>(path: Path, message: impl Into<String>) -> Result<T, ComposeError> {
    Err(ComposeError::new(path, message))
}

/// What a name of a scenario may be, for the errors that refuse one.
const NAME_RULE: &str = "ASCII letters (a–z, A–Z), digits and `_`, starting with a letter or `_`";

/// ` (did you mean `sayac`?)` for a name written with Turkish letters whose ASCII spelling
/// would do: not reserved, and not among `taken` (names the config already has, or
/// writes elsewhere); else nothing.
fn ascii_hint(name: &str, taken: &[&str]) -> String {
    coordsim_model::suggest::ascii_hint(name, |spelled| {
        !RESERVED_NAMES.contains(&spelled) && !taken.contains(&spelled)
    })
}

fn valid_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

const RESERVED_NAMES: &[&str] = &[
    "i", "k", "read", "attempt", "now", "winner", "joined", "reply", "copy", TIE_ORDER,
];

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

pub(crate) fn table<'v>(
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
    for (key, _) in entries {
        if !keys.contains(&key.as_str()) {
            return fail(
                at(path, key),
                format!(
                    "unknown key `{key}` of {what}{}; valid: {}",
                    coordsim_model::suggest::did_you_mean(key, keys),
                    keys.join(", ")
                ),
            );
        }
    }
    Ok(entries)
}

pub(crate) fn get<'v>(entries: &'v [(String, Value)], key: &str) -> Option<&'v Value> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

pub(crate) fn string(path: Path, value: &Value, what: &str) -> Result<String, ComposeError> {
    match value {
        Value::Str(s) => Ok(s.clone()),
        other => fail(
            path,
            format!("{what} is a string, got {}", other.type_name()),
        ),
    }
}

pub(crate) fn boolean(path: Path, value: Option<&Value>) -> Result<bool, ComposeError> {
    match value {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => fail(
            path,
            format!("expected true or false, got {}", other.type_name()),
        ),
    }
}

/// What names resolve to while the sections are read.
#[derive(Clone)]
pub(crate) struct Reader<'s> {
    /// The scenario's parameters.
    pub params: &'s [Param],
    /// Resource names and kinds, for resolving names in steps.
    pub resources: Vec<(String, &'static str)>,
    /// The registers' names, in order.
    pub registers: Vec<String>,
    /// The names a take or a key store's step gives the actor (`outbox`, `outbox.id`,
    /// `seen`), with what each is and the resource (by index) whose step gives it.
    pub vars: Vec<(String, Var, usize)>,
    /// The queues (by their number among the queues) with no `visibility_ms`: a take
    /// removes the message, so nothing is left to acknowledge.
    pub unacked: Vec<u16>,
    /// What the resources may refuse (read with them, before any step).
    pub refusals: Refusals,
    /// Inside a copy of a `parallel`'s `copies`, which one (from 0): the name `copy`.
    pub copy: Option<u8>,
    /// Whether an expression read since it was last cleared names `i`, the actor's index:
    /// a group that does treats its actors apart (an exploration's symmetry leaves it be).
    pub index_used: std::cell::Cell<bool>,
}

/// The largest whole number a double holds exactly with all below it: 2^53.
const EXACT_WHOLE: u64 = 1 << 53;

impl Reader<'_> {
    fn param(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// A number: literal, expression over the names `scope` allows, or `{ by = … }`.
    pub(crate) fn num(
        &self,
        path: Path,
        value: &Value,
        scope: Scope,
        read: &[bool],
    ) -> Result<Number, ComposeError> {
        match value {
            // Past 2^53 a double holds only some whole numbers: `2^53 + 1` would be read as
            // 2^53, silently. One it holds (10^16, 2^60) is read as written.
            Value::Int(i) if (*i as f64) as i128 != i128::from(*i) => fail(
                path,
                format!(
                    "{i} is past 2^53 = {EXACT_WHOLE} in size, where not every whole number is exact (it would be read as {}); write a smaller one",
                    *i as f64
                ),
            ),
            Value::Int(i) => Ok(Number::Lit(*i as f64)),
            Value::Float(x) if x.is_finite() => Ok(Number::Lit(*x)),
            Value::Float(x) => fail(path, format!("expected a finite number, got {x}")),
            Value::Str(text) => {
                // In a copy of a `parallel`'s branch, `copy` is that copy's number: each copy
                // is read with its own.
                let resolve = |name: &str| match self.copy {
                    Some(copy) if name == "copy" && scope != Scope::Params => {
                        Ok(coordsim_expr::Expr::Num(f64::from(copy)))
                    }
                    _ => self.name(name, scope, read).map(coordsim_expr::Expr::Var),
                };
                coordsim_expr::parse_names(text, &resolve)
                    .map(|error| Number::Expr(error, text.clone()))
                    .map_err(|error| {
                        ComposeError::new(
                            path,
                            format!(
                                "in \"{}\" at character {}: {}",
                                coordsim_expr::excerpt(text, error.offset),
                                error.offset + 1,
                                error.message
                            ),
                        )
                    })
            }
            Value::List(items) if scope != Scope::Params => {
                // One number per member, by its index: the members differ as by `i`.
                self.index_used.set(true);
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| {
                        self.num(at_index(&path, index), item, Scope::Params, read)
                    })
                    .collect::<Result<_, _>>()
                    .map(Number::Each)
            }
            Value::Table(entries) => {
                let Some(Value::Str(by)) = get(entries, "by") else {
                    return fail(
                        path,
                        "a table number is { by = \"string parameter\", option = number, … }",
                    );
                };
                let Some(param) = self
                    .param(by)
                    .filter(|param| self.params[*param].kind == Kind::Text)
                else {
                    return fail(
                        at(&path, "by"),
                        format!("`{by}` is not a string parameter of this config"),
                    );
                };
                let mut options = Vec::new();
                for (option, number) in entries.iter().filter(|(option, _)| option != "by") {
                    if !matches!(number, Value::Int(_) | Value::Float(_) | Value::Str(_)) {
                        return fail(
                            at(&path, option),
                            format!(
                                "an option is a number or an expression in quotes, got {}",
                                number.type_name()
                            ),
                        );
                    }
                    options.push((
                        option.clone(),
                        self.num(at(&path, option), number, scope, read)?,
                    ));
                }
                Ok(Number::By(param as u16, options))
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

    /// What `name` is in an expression written in `scope`, after the steps whose reads and
    /// takes `read` marks; an error lists what is valid here.
    fn name(&self, name: &str, scope: Scope, read: &[bool]) -> Result<Var, String> {
        if let Some(param) = self.param(name) {
            if !matches!(self.params[param].kind, Kind::Float | Kind::Count) {
                return Err(format!(
                    "`{name}` is not a number parameter; a string parameter chooses a number with {{ by = \"{name}\", … }}"
                ));
            }
            return Ok(Var::Param(param as u16));
        }
        let actor = matches!(scope, Scope::Actor | Scope::Step | Scope::Write);
        let step = matches!(scope, Scope::Step | Scope::Write);
        match name {
            "i" if actor => {
                self.index_used.set(true);
                return Ok(Var::Index);
            }
            "k" if step => return Ok(Var::Rep),
            "attempt" if step => return Ok(Var::Attempt),
            "now" if step => return Ok(Var::Now),
            "winner" if step => return Ok(Var::Winner),
            "joined" if step => return Ok(Var::Joined),
            "reply" if step => {
                let known = read.len() == self.registers.len() + self.resources.len() + 1
                    && read.last() == Some(&true);
                if !known {
                    return Err(
                        "`reply` is what the actor's last call got back, and it makes no call (`{ call = \"Q\" }`) before this step".into(),
                    );
                }
                return Ok(Var::Reply);
            }
            "read" if scope == Scope::Write => return Ok(Var::Read),
            _ => {}
        }
        if step && let Some(register) = self.registers.iter().position(|register| register == name)
        {
            if !read.get(register).copied().unwrap_or(false) {
                return Err(format!(
                    "the actor reads `{name}` in no step before this one"
                ));
            }
            return Ok(Var::Reg(register as u16));
        }
        if step && let Some((_, var, resource)) = self.vars.iter().find(|v| v.0 == name) {
            if !read
                .get(self.registers.len() + resource)
                .copied()
                .unwrap_or(false)
            {
                let (resource_name, what) = &self.resources[*resource];
                let how = if *what == "queue" {
                    "a take"
                } else {
                    "an insert, lookup, set or remove"
                };
                return Err(format!(
                    "`{name}` comes from {how} on `{resource_name}`, and the actor has none in a step before this one"
                ));
            }
            return Ok(*var);
        }
        if name == "copy" && step {
            return Err(
                "`copy` is which copy of a branch a step is in, inside `parallel = { copies = …, steps = [...] }` only".into(),
            );
        }
        let valid = self.names_here(scope, read);
        Err(format!(
            "unknown name `{name}`{}; valid here: {} (a parameter is set in [params] or [sweep])",
            coordsim_model::suggest::did_you_mean(name, &valid),
            if valid.is_empty() {
                "numbers only".to_string()
            } else {
                valid.join(", ")
            }
        ))
    }

    /// The names an expression in `scope` may use here, for an error.
    fn names_here(&self, scope: Scope, read: &[bool]) -> Vec<&str> {
        let actor = matches!(scope, Scope::Actor | Scope::Step | Scope::Write);
        let step = matches!(scope, Scope::Step | Scope::Write);
        let mut valid: Vec<&str> = self
            .params
            .iter()
            .filter(|p| matches!(p.kind, Kind::Float | Kind::Count))
            .map(|p| p.name.as_str())
            .collect();
        if actor {
            valid.push("i");
        }
        if step {
            valid.extend(["k", "attempt", "now", "winner", "joined"]);
            if self.copy.is_some() {
                valid.push("copy");
            }
        }
        if scope == Scope::Write {
            valid.push("read");
        }
        if step {
            valid.extend(
                self.registers
                    .iter()
                    .zip(read)
                    .filter(|(_, r)| **r)
                    .map(|(n, _)| n.as_str()),
            );
            let register_count = self.registers.len();
            valid.extend(
                self.vars
                    .iter()
                    .filter(|(_, _, resource)| {
                        read.get(register_count + resource)
                            .copied()
                            .unwrap_or(false)
                    })
                    .map(|(n, _, _)| n.as_str()),
            );
            if read.len() == register_count + self.resources.len() + 1 && read.last() == Some(&true)
            {
                valid.push("reply");
            }
        }
        valid
    }

    pub(crate) fn opt_num(
        &self,
        path: &Path,
        entries: &[(String, Value)],
        key: &str,
        default: f64,
        scope: Scope,
    ) -> Result<Number, ComposeError> {
        match get(entries, key) {
            Some(v) => self.num(at(path, key), v, scope, &[]),
            None => Ok(Number::Lit(default)),
        }
    }

    /// An optional string option of a table (`mode`, `service`, `arrivals`).
    pub(crate) fn opt_choice(
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
        value: Option<&Value>,
        options: &'static [&'static str],
        default: &'static str,
    ) -> Result<Choice, ComposeError> {
        let Some(value) = value else {
            return Ok(Choice::Lit(default));
        };
        let text = string(path.clone(), value, "this option")?;
        if let Some(o) = options.iter().find(|o| **o == text) {
            return Ok(Choice::Lit(o));
        }
        match self.param(&text) {
            Some(p) if self.params[p].kind == Kind::Text => Ok(Choice::Param(p as u16)),
            _ => fail(
                path,
                format!(
                    "unknown option \"{text}\"{}; valid: {} (or a string parameter's name)",
                    coordsim_model::suggest::did_you_mean(&text, options),
                    options
                        .iter()
                        .map(|o| format!("\"{o}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        }
    }

    /// The string parameter `value` names (`by = "order"`).
    pub(crate) fn text_param(&self, path: Path, value: &Value) -> Result<u16, ComposeError> {
        let name = string(path.clone(), value, "a parameter's name")?;
        match self.param(&name) {
            Some(p) if self.params[p].kind == Kind::Text => Ok(p as u16),
            _ => fail(
                path,
                format!("`{name}` is not a string parameter of this config"),
            ),
        }
    }

    /// The field names of `queue` (by its number among the queues).
    pub(crate) fn queue_fields(&self, queue: u16) -> Vec<String> {
        let Some((name, ..)) = self.vars.iter().find(|(_, v, _)| *v == Var::Msg(queue, 0)) else {
            return Vec::new();
        };
        let prefix = format!("{name}.");
        self.vars
            .iter()
            .filter_map(|(field_name, v, _)| match v {
                Var::Msg(taken_from, what) if *taken_from == queue && *what >= 3 => {
                    field_name.strip_prefix(&prefix).map(String::from)
                }
                _ => None,
            })
            .collect()
    }

    /// The resource of `kind` called by the string `value`: its number among that kind's.
    pub(crate) fn resource_named(
        &self,
        path: Path,
        value: &Value,
        kind: &'static str,
    ) -> Result<u16, ComposeError> {
        if let Value::Table(table) = value
            && table.iter().any(|(k, _)| k == "one_of" || k == "by")
        {
            return fail(
                path,
                format!(
                    "this step names its {kind}: `one_of` and `by` choose a resource only in an acquire, a release, a renew, a request and a send"
                ),
            );
        }
        let name = string(path.clone(), value, "a resource name")?;
        match self.resources.iter().position(|(n, _)| *n == name) {
            // Its number among the resources of its kind, which is how steps name it.
            Some(index) if self.resources[index].1 == kind => Ok(self.resources[..index]
                .iter()
                .filter(|(_, k)| *k == kind)
                .count() as u16),
            Some(index) => fail(
                path,
                format!("`{name}` is a {}, not a {kind}", self.resources[index].1),
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

/// The config's own parameters, typed by the values the front end read for them: strings,
/// booleans, numbers. `tie_order` comes first, always.
pub(crate) fn read_params(given: &[ConfigParam]) -> Result<Vec<Param>, ComposeError> {
    let mut params = vec![Param {
        name: TIE_ORDER.to_string(),
        kind: Kind::Choice(TIE_ORDERS),
        default: Value::Str("fifo".into()),
        values: Vec::new(),
    }];
    for ConfigParam { name, values } in given {
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
            // Free: no column every scenario writes, no other parameter's name.
            let taken: Vec<&str> = (TAKEN_COLUMNS.iter().copied())
                .chain(given.iter().map(|p| p.name.as_str()))
                .collect();
            return fail(
                vec![PathPart::Key("params".into()), PathPart::Key(name.clone())],
                format!(
                    "a scenario parameter's name is {NAME_RULE} (not `i`, `k`, `attempt`, `now`, `read`, `winner`, `joined`, `reply` or `copy`), got `{name}`{}",
                    ascii_hint(name, &taken)
                ),
            );
        }
        let (kind, default) = param_kind(values);
        params.push(Param {
            name: name.clone(),
            kind,
            default,
            values: values.clone(),
        });
    }
    Ok(params)
}

/// A parameter's kind and default from the values it takes (its `[params]` value, or its
/// sweep's values): strings, booleans, whole numbers ≥ 0 (counts: integer chart ticks, whole
/// sweep steps), other numbers. A mix of these, a value that is none of them (a list, a
/// table) and no value at all (a parameter derived at each point) are numbers.
fn param_kind(values: &[Value]) -> (Kind, Value) {
    let kind_of = |value: &Value| match value {
        Value::Str(_) => Kind::Text,
        Value::Bool(_) => Kind::Bool,
        Value::Int(i) if *i >= 0 => Kind::Count,
        _ => Kind::Float,
    };
    let Some((first, rest)) = values.split_first() else {
        return (Kind::Float, Value::Float(0.0));
    };
    let kind = kind_of(first);
    if rest.iter().all(|v| kind_of(v) == kind) {
        (kind, first.clone())
    } else {
        (Kind::Float, first.clone())
    }
}

/// `written`: every name of its kind the config writes, before or after this one (a
/// suggestion for this one must be none of them either).
pub(crate) fn check_new_name(
    path: Path,
    name: &str,
    taken: &[String],
    written: &[&str],
) -> Result<(), ComposeError> {
    if !valid_name(name) || RESERVED_NAMES.contains(&name) {
        let taken: Vec<&str> = (taken.iter().map(String::as_str))
            .chain(written.iter().copied())
            .collect();
        return fail(
            path,
            format!(
                "a name here is {NAME_RULE}, and not `i`, `k`, `read`, `attempt`, `now`, `winner`, `joined`, `reply`, `copy` or `tie_order` (metrics are named `{name}.…`); got `{name}`{}",
                ascii_hint(name, &taken)
            ),
        );
    }
    if taken.iter().any(|t| t == name) {
        return fail(
            path,
            format!(
                "`{name}` is taken (by a parameter, a resource, a group or a watch); names must differ"
            ),
        );
    }
    Ok(())
}

/// A string value's text (a name checked already).
pub(crate) fn text_of(value: &Value) -> &str {
    match value {
        Value::Str(s) => s,
        _ => "",
    }
}
