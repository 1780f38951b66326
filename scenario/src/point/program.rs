//! A group's steps lowered to its program: an `if` as a branch and a jump, a timeout's
//! steps placed after the repetition's end, each step's numbers computed at the point.

use coordsim_model::{ParamError, Value};

use crate::machine::keys::{bad_key, key_of};
use crate::point::numbers::{Evaluator, path_key};
use crate::point::{
    Condition, CrashRule, Instance, LockMode, MAX_ACTORS, MAX_ATTEMPTS, MAX_PROGRAM, Operand, Pick,
    Point, Step, Then, Timeout, is_default_name,
};
use crate::syntax::spec::{self, Crash, Number, OnTimeout, ResourceKind};

/// A group's steps flattened into its program: an `if` as a branch and a jump, a timeout's
/// steps after the repetition's end, each ending in what follows it.
pub(super) struct Flat<'a> {
    pub(super) point: &'a Point,
    pub(super) evaluator: &'a Evaluator<'a>,
    pub(super) group: &'a spec::Group,
    pub(super) count: u64,
    pub(super) steps: Vec<Step>,
    /// Where each of `steps` is written.
    pub(super) paths: Vec<String>,
    /// The group's steps' path (`actor[0].steps`).
    pub(super) at: String,
    /// Timeouts whose steps are still to be placed: the blocking step's index, its path.
    pub(super) handlers: Vec<(usize, &'a OnTimeout, String)>,
    /// `parallel` steps whose branches are still to be placed: the fork's index, the
    /// branches, its path, and whether they are copies of one (written at `steps`).
    pub(super) forks: Vec<(usize, &'a [Vec<spec::Step>], String, bool)>,
    pub(super) attempts: u32,
    pub(super) jitters: bool,
    pub(super) chances: bool,
    /// The streams its steps name.
    pub(super) streams: Vec<String>,
}

impl<'a> Flat<'a> {
    /// Adds `step`, written at `at`.
    pub(super) fn push(&mut self, step: Step, at: &str) {
        self.steps.push(step);
        self.paths.push(at.to_string());
    }

    pub(super) fn list(&mut self, steps: &'a [spec::Step], at: &str) -> Result<(), ParamError> {
        for (index, step) in steps.iter().enumerate() {
            self.step(step, &format!("{at}[{index}]"))?;
        }
        Ok(())
    }

    /// Places every timeout's steps and every `parallel`'s branches after an `End`: a
    /// timeout's followed by what comes next, a branch's by its end (their own timeouts'
    /// steps and branches after them).
    pub(super) fn handlers(&mut self) -> Result<(), ParamError> {
        if self.handlers.is_empty() && self.forks.is_empty() {
            return Ok(());
        }
        let at = self.at.clone();
        self.push(Step::End, &at);
        while !self.handlers.is_empty() || !self.forks.is_empty() {
            if self.handlers.is_empty() {
                let (fork, branches, at, copies) = self.forks.remove(0);
                for (branch, steps) in branches.iter().enumerate() {
                    let start = self.steps.len() as u32;
                    let here = if copies {
                        format!("{at}.parallel.steps")
                    } else {
                        format!("{at}.parallel[{branch}]")
                    };
                    self.list(steps, &here)?;
                    self.push(Step::BranchEnd, &here);
                    if let Step::Fork { starts, .. } = &mut self.steps[fork] {
                        starts[branch] = start;
                    }
                }
                self.check_len(&at)?;
                continue;
            }
            let (blocking, on_timeout, at) = self.handlers.remove(0);
            let start = self.steps.len() as u32;
            match &mut self.steps[blocking] {
                Step::Acquire { timeout, .. }
                | Step::Request { timeout, .. }
                | Step::Send { timeout, .. }
                | Step::Take { timeout, .. }
                | Step::Call { timeout, .. } => {
                    if let Some(timeout) = timeout {
                        timeout.handler = start;
                    }
                }
                _ => unreachable!("a timeout belongs to a blocking step"),
            }
            self.list(&on_timeout.steps, &format!("{at}.on_timeout.steps"))?;
            let then = match &on_timeout.then {
                spec::Then::End => Then::End,
                spec::Then::GoOn => Then::GoOn(blocking as u32 + 1),
                spec::Then::Retry {
                    max_attempts,
                    backoff_ms,
                    jitter_ms,
                } => {
                    let here = format!("{at}.on_timeout");
                    let max = self.evaluator.whole(
                        max_attempts,
                        &[&here, "max_attempts"],
                        1,
                        MAX_ATTEMPTS,
                    )? as u32;
                    self.attempts = self.attempts.max(max);
                    let jitter = self.evaluator.per_point(jitter_ms, &[&here, "jitter_ms"])?;
                    self.jitters |= !matches!(jitter, Number::Lit(0.0));
                    Then::Retry {
                        max_attempts: max,
                        backoff: self
                            .evaluator
                            .per_point(backoff_ms, &[&here, "backoff_ms"])?,
                        jitter,
                    }
                }
            };
            self.push(Step::AfterTimeout(then), &format!("{at}.on_timeout"));
        }
        Ok(())
    }

    /// A step's number at this point, lowered for the run ([`Operand`]).
    fn operand(&self, number: &Number, path: &[&str]) -> Result<Operand, ParamError> {
        Ok(self.lowered(self.evaluator.per_point(number, path)?))
    }

    /// A number computed at this point as far as it can be, lowered for the run.
    fn lowered(&self, number: Number) -> Operand {
        Operand::lower(number, self.evaluator.numbers)
    }

    pub(super) fn pick(&self, pick: &spec::Pick, at: &str, key: &str) -> Result<Pick, ParamError> {
        Ok(match pick {
            spec::Pick::One(r) => Pick::One(*r),
            spec::Pick::OneOf(items, index) => {
                let index = self.evaluator.per_point(index, &[at, key, "index"])?;
                if let Number::Lit(value) = index {
                    let position = value as usize;
                    if !(value >= 0.0 && value.fract() == 0.0 && position < items.len()) {
                        return Err(ParamError::new(
                            &path_key(&[at, key, "index"]),
                            format!(
                                "the index is {value}; `one_of` has {} (index 0 to {})",
                                items.len(),
                                items.len() - 1
                            ),
                        ));
                    }
                    Pick::One(items[position])
                } else {
                    Pick::OneOf(items.clone(), index)
                }
            }
            spec::Pick::By(param, options) => {
                let Some(Value::Str(given)) = self.evaluator.values.get(*param as usize) else {
                    return Err(ParamError::new(
                        &path_key(&[at, key, "by"]),
                        "its `by` parameter has no string value here",
                    ));
                };
                match options.iter().find(|(o, _)| o == given) {
                    Some((_, r)) => Pick::One(*r),
                    None => {
                        let valid: Vec<&str> = options.iter().map(|(o, _)| o.as_str()).collect();
                        return Err(ParamError::new(
                            &path_key(&[at, key]),
                            format!(
                                "`{}` = \"{given}\" names no resource here; it gives: {}",
                                self.evaluator.spec.params[*param as usize].name,
                                valid.join(", ")
                            ),
                        ));
                    }
                }
            }
        })
    }

    /// An `on_timeout` whose steps can run: the wait has a `timeout_ms`, or (a request) a
    /// server refuses it.
    pub(super) fn can_time_out(
        &self,
        on_timeout: &Option<OnTimeout>,
        at: &str,
        what: &str,
        refuses: bool,
    ) -> Result<(), ParamError> {
        match on_timeout {
            Some(on_timeout) if on_timeout.after.is_none() && !refuses => Err(ParamError::new(
                &path_key(&[at, "on_timeout"]),
                format!(
                    "an `on_timeout` with no `timeout_ms`: this {what} never times out, so its steps never run; give `timeout_ms`"
                ),
            )),
            _ => Ok(()),
        }
    }

    pub(super) fn timeout(
        &mut self,
        on_timeout: &'a Option<OnTimeout>,
        at: &str,
    ) -> Result<Option<Timeout>, ParamError> {
        let Some(on_timeout) = on_timeout else {
            return Ok(None);
        };
        let key = on_timeout.key;
        let after = match &on_timeout.after {
            Some(after) => {
                self.evaluator
                    .each_len(after, &format!("{at}.{key}"), self.count)?;
                Some(self.evaluator.dur(after, &[at, key])?)
            }
            None => None,
        };
        self.handlers
            .push((self.steps.len(), on_timeout, at.to_string()));
        Ok(Some(Timeout {
            after,
            gives_up: key == "give_up_after_ms",
            handler: u32::MAX,
        }))
    }

    /// A step of the group at this point; `at` is its path.
    pub(super) fn step(&mut self, spec_step: &'a spec::Step, at: &str) -> Result<(), ParamError> {
        let evaluator = self.evaluator;
        let step = match spec_step {
            spec::Step::Read(r) => Step::Read(*r),
            spec::Step::Write {
                register,
                value,
                cas,
                max_retries,
            } => {
                evaluator.each_len(value, &format!("{at}.value"), self.count)?;
                Step::Write {
                    register: *register,
                    value: evaluator.per_point(value, &[at, "value"])?,
                    cas: *cas,
                    max_retries: evaluator.whole(
                        max_retries,
                        &[at, "max_retries"],
                        1,
                        u32::MAX.into(),
                    )?,
                }
            }
            spec::Step::Delay(delay) => {
                evaluator.each_len(delay, &format!("{at}.delay_ms"), self.count)?;
                Step::Delay(evaluator.dur(delay, &[at, "delay_ms"])?)
            }
            spec::Step::Pause(pause) => {
                evaluator.each_len(pause, &format!("{at}.pause_ms"), self.count)?;
                Step::Pause(evaluator.dur(pause, &[at, "pause_ms"])?)
            }
            spec::Step::Acquire { lock, timeout } => self.acquire(lock, timeout, at)?,
            spec::Step::Release(lock) => Step::Release(self.pick(lock, at, "release")?),
            spec::Step::Renew(lock) => self.renew(lock, at)?,
            spec::Step::Request {
                server,
                instance,
                timeout,
            } => self.request(server, instance, timeout, at)?,
            spec::Step::Send { link, timeout } => {
                let link = self.pick(link, at, "send")?;
                self.can_time_out(timeout, at, "send", false)?;
                let timeout = self.timeout(timeout, at)?;
                Step::Send { link, timeout }
            }
            spec::Step::Crash {
                rule,
                restart_after_ms,
            } => {
                let rule = match (
                    crash_rule(evaluator, at, self.group, self.count, rule)?,
                    rule,
                ) {
                    (CrashRule::Probability(probability, _), Crash::Probability(_, Some(name))) => {
                        CrashRule::Probability(probability, Some(self.named_stream(name)))
                    }
                    (r, _) => r,
                };
                Step::Crash {
                    rule,
                    restart: restart_after_ms
                        .as_ref()
                        .map(|r| evaluator.dur(r, &[at, "restart_after_ms"]))
                        .transpose()?,
                }
            }
            spec::Step::Put {
                queue,
                value,
                fields,
            } => self.put(*queue, value, fields, at)?,
            spec::Step::Take { queue, timeout } => {
                self.can_time_out(timeout, at, "take", false)?;
                let timeout = self.timeout(timeout, at)?;
                Step::Take {
                    queue: *queue,
                    timeout,
                }
            }
            spec::Step::Ack(q) => Step::Ack(*q),
            spec::Step::Call { .. } | spec::Step::Reply { .. } => self.call(spec_step, at)?,
            spec::Step::Stop => Step::Stop,
            spec::Step::Exit { gave_up } => Step::Exit { gave_up: *gave_up },
            spec::Step::Keys {
                operation,
                store,
                key,
                value,
            } => {
                evaluator.each_len(key, &format!("{at}.key"), self.count)?;
                let key = evaluator.per_point(key, &[at, "key"])?;
                if let Number::Lit(number) = key
                    && key_of(number).is_none()
                {
                    return Err(ParamError::new(&path_key(&[at, "key"]), bad_key(number)));
                }
                Step::Keys {
                    operation: *operation,
                    store: *store,
                    key: self.lowered(key),
                    value: self.operand(value, &[at, "value"])?,
                }
            }
            spec::Step::Transaction(steps) => self.transaction(steps, at)?,
            spec::Step::If {
                condition,
                then,
                otherwise,
            } => return self.branch(condition, then, otherwise, at),
            spec::Step::Parallel { .. } => self.fork(spec_step, at)?,
        };
        self.push(step, at);
        self.check_len(at)
    }

    /// A `parallel`'s fork at this point: its branches placed later, after the program's
    /// end; of copies of one branch, as many as the point says.
    fn fork(&mut self, spec_step: &'a spec::Step, at: &str) -> Result<Step, ParamError> {
        let evaluator = self.evaluator;
        let spec::Step::Parallel {
            branches,
            copies,
            wait,
            cancel,
            tied,
        } = spec_step
        else {
            unreachable!("a parallel")
        };
        let branches = match copies {
            Some(copies) => {
                let count = evaluator.whole(
                    copies,
                    &[at, "parallel", "copies"],
                    1,
                    branches.len() as u64,
                )?;
                &branches[..count as usize]
            }
            None => &branches[..],
        };
        let cancel = evaluator.choice(cancel, spec::CANCELS, &[at, "cancel"])?;
        let branch_count = branches.len() as u64;
        let wait = evaluator
            .whole(wait, &[at, "wait"], 1, branch_count)
            .map_err(|mut error| {
                error.message = format!(
                    "`wait` is how many of the {branch_count} branches must come through (\"first\": 1, \"all\": {branch_count}): {}",
                    error.message
                );
                error
            })? as u32;
        self.forks
            .push((self.steps.len(), branches, at.to_string(), copies.is_some()));
        Ok(Step::Fork {
            starts: vec![u32::MAX; branches.len()],
            wait,
            withdraw: cancel == "withdraw",
            tied: *tied,
            // Decided once the group's steps and the servers are known (`Point::new`).
            inline_first: false,
        })
    }

    /// A call (its put and its timeout) or a reply, at this point.
    fn call(&mut self, spec_step: &'a spec::Step, at: &str) -> Result<Step, ParamError> {
        let evaluator = self.evaluator;
        Ok(match spec_step {
            spec::Step::Call {
                queue,
                value,
                fields,
                timeout,
            } => {
                let Step::Put { value, fields, .. } = self.put(*queue, value, fields, at)? else {
                    unreachable!("a put")
                };
                self.can_time_out(timeout, at, "call", false)?;
                let timeout = self.timeout(timeout, at)?;
                Step::Call {
                    queue: *queue,
                    value,
                    fields,
                    timeout,
                }
            }
            spec::Step::Reply { queue, value } => {
                evaluator.each_len(value, &format!("{at}.value"), self.count)?;
                Step::Reply {
                    queue: *queue,
                    value: self.operand(value, &[at, "value"])?,
                }
            }
            _ => unreachable!("a call or a reply"),
        })
    }

    /// A put (or a call's): its value and fields at this point.
    fn put(
        &self,
        queue: u16,
        value: &Number,
        fields: &[Number],
        at: &str,
    ) -> Result<Step, ParamError> {
        let evaluator = self.evaluator;
        evaluator.each_len(value, &format!("{at}.value"), self.count)?;
        for field in fields {
            evaluator.each_len(field, &format!("{at}.fields"), self.count)?;
        }
        Ok(Step::Put {
            queue,
            value: self.operand(value, &[at, "value"])?,
            fields: fields
                .iter()
                .map(|f| self.operand(f, &[at, "fields"]))
                .collect::<Result<_, _>>()?,
        })
    }

    /// An acquire: a stale record nobody removes, waited for with no ceiling, is refused
    /// here (the run could only end at its limits).
    fn acquire(
        &mut self,
        lock: &spec::Pick,
        timeout: &'a Option<OnTimeout>,
        at: &str,
    ) -> Result<Step, ParamError> {
        let lock = self.pick(lock, at, "acquire")?;
        // A stale record nobody removes, waited for with no ceiling: the run could
        // only end at its limits. Said here, where it is written.
        if let Pick::One(lock_index) = lock {
            let point_lock = &self.point.locks[lock_index as usize];
            if timeout.as_ref().is_none_or(|t| t.after.is_none())
                && point_lock.stale
                && point_lock.unlock_ns.is_empty()
                && point_lock.mode != LockMode::Lease
            {
                return Err(ParamError::new(
                    &path_key(&[at, "acquire"]),
                    format!(
                        "`{}` starts with a stale record that nothing removes (no unlock_at_ms, not a lease), and this acquire never gives up: it can never finish; add give_up_after_ms",
                        self.point.lock_names[lock_index as usize]
                    ),
                ));
            }
        }
        self.can_time_out(timeout, at, "acquire", false)?;
        let timeout = self.timeout(timeout, at)?;
        Ok(Step::Acquire { lock, timeout })
    }

    /// A renew, of a lease only.
    fn renew(&mut self, lock: &spec::Pick, at: &str) -> Result<Step, ParamError> {
        let lock = self.pick(lock, at, "renew")?;
        if let Pick::One(lock_index) = lock
            && self.point.locks[lock_index as usize].mode != LockMode::Lease
        {
            return Err(ParamError::new(
                &path_key(&[at, "renew"]),
                format!(
                    "`renew` keeps a lease fresh, and `{}` is not a lease (mode = \"lease\" with lease_ms): a queue or polled lock is held until released",
                    self.point.lock_names[lock_index as usize]
                ),
            ));
        }
        Ok(Step::Renew(lock))
    }

    /// A request: its instance reduced once when it is the same for every actor.
    fn request(
        &mut self,
        server: &spec::Pick,
        instance: &Number,
        timeout: &'a Option<OnTimeout>,
        at: &str,
    ) -> Result<Step, ParamError> {
        let evaluator = self.evaluator;
        evaluator.each_len(instance, &format!("{at}.instance"), self.count)?;
        let server = self.pick(server, at, "request")?;
        // An instance the same for every actor, at one server, is reduced once, here.
        let instance = match server {
            Pick::One(server_index) if !instance.per_actor() => {
                let instance_number =
                    evaluator.whole(instance, &[at, "instance"], 0, u64::MAX >> 11)?;
                Instance::Fixed(
                    (instance_number
                        % u64::from(self.point.servers[server_index as usize].instances))
                        as u32,
                )
            }
            _ => Instance::Actor(evaluator.per_point(instance, &[at, "instance"])?),
        };
        // A refusal by a server that fails fast runs `on_timeout` too.
        let refuses = match &server {
            Pick::One(s) => self.point.servers[*s as usize].fail_fast,
            Pick::OneOf(items, _) => {
                (items.iter()).any(|s| self.point.servers[*s as usize].fail_fast)
            }
        };
        self.can_time_out(timeout, at, "request", refuses)?;
        let timeout = self.timeout(timeout, at)?;
        Ok(Step::Request {
            server,
            instance,
            timeout,
        })
    }

    /// A transaction: its steps between a begin and an end (they take no time).
    fn transaction(&mut self, steps: &'a [spec::Step], at: &str) -> Result<Step, ParamError> {
        // Its steps take no time: a register it reads or writes must say so.
        for (index, inner) in steps.iter().enumerate() {
            let mut slow = None;
            inner.visit(&mut |step| match step {
                spec::Step::Read(register)
                    if self.point.registers[*register as usize].read_ns > 0 =>
                {
                    slow = Some((*register, "read_ms"));
                }
                spec::Step::Write { register, .. }
                    if self.point.registers[*register as usize].write_ns > 0 =>
                {
                    slow = Some((*register, "write_ms"));
                }
                _ => {}
            });
            if let Some((register, key)) = slow {
                return Err(ParamError::new(
                    &format!("{at}.transaction[{index}]"),
                    format!(
                        "a transaction's steps land at one instant, but register `{}` has {key} > 0 here; give it {key} = 0 (or put a delay before the transaction)",
                        self.evaluator
                            .spec
                            .resources
                            .iter()
                            .filter(|resource| matches!(
                                resource.kind,
                                ResourceKind::Register { .. }
                            ))
                            .nth(register as usize)
                            .map_or("?", |resource| resource.name.as_str())
                    ),
                ));
            }
        }
        self.push(Step::TxBegin, at);
        self.list(steps, &format!("{at}.transaction"))?;
        Ok(Step::TxEnd)
    }

    /// An `if`: a branch to its `else` steps, its `then` steps, and a jump over the `else`.
    fn branch(
        &mut self,
        condition: &spec::Condition,
        then: &'a [spec::Step],
        otherwise: &'a [spec::Step],
        at: &str,
    ) -> Result<(), ParamError> {
        let evaluator = self.evaluator;
        let condition = match condition {
            spec::Condition::Outcome(o) => Condition::Outcome(*o),
            spec::Condition::Chance(probability, stream) => {
                let probability = evaluator.per_point(probability, &[at, "if", "chance"])?;
                if let Number::Lit(value) = probability
                    && !(0.0..=1.0).contains(&value)
                {
                    return Err(ParamError::new(
                        &path_key(&[at, "if", "chance"]),
                        format!(
                            "a probability is in [0, 1], got {}",
                            coordsim_model::number_text(value)
                        ),
                    ));
                }
                self.chances |= stream.is_none();
                Condition::Chance(probability, stream.as_ref().map(|n| self.named_stream(n)))
            }
            spec::Condition::Compare(compared, cmp, bound) => Condition::Compare(
                self.operand(compared, &[at, "if", "value"])?,
                *cmp,
                self.operand(bound, &[at, "if"])?,
            ),
        };
        let branch_index = self.steps.len();
        self.push(
            Step::Branch {
                condition,
                otherwise: u32::MAX,
            },
            at,
        );
        self.list(then, &format!("{at}.then"))?;
        let jump = self.steps.len();
        if !otherwise.is_empty() {
            self.push(Step::Jump(u32::MAX), at);
        }
        let else_at = self.steps.len() as u32;
        if let Step::Branch {
            otherwise: target, ..
        } = &mut self.steps[branch_index]
        {
            *target = else_at;
        }
        self.list(otherwise, &format!("{at}.else"))?;
        if !otherwise.is_empty() {
            let end = self.steps.len() as u32;
            self.steps[jump] = Step::Jump(end);
        }
        self.check_len(at)
    }

    /// The group's stream called `name`: its number among the streams its steps name
    /// (steps that name the same stream draw from it in turn).
    pub(super) fn named_stream(&mut self, name: &str) -> u16 {
        match self.streams.iter().position(|n| n == name) {
            Some(s) => s as u16,
            None => {
                self.streams.push(name.to_string());
                (self.streams.len() - 1) as u16
            }
        }
    }

    pub(super) fn check_len(&self, at: &str) -> Result<(), ParamError> {
        if self.steps.len() > MAX_PROGRAM {
            return Err(ParamError::new(
                at,
                format!(
                    "a group's steps, with its branches and timeout steps, come to at most {MAX_PROGRAM}"
                ),
            ));
        }
        Ok(())
    }
}

/// Who a crash step kills, at this point.
fn crash_rule(
    evaluator: &Evaluator<'_>,
    at: &str,
    group: &spec::Group,
    count: u64,
    crash: &Crash,
) -> Result<CrashRule, ParamError> {
    let group_name = group.name.as_str();
    Ok(match crash {
        Crash::All => CrashRule::All,
        Crash::Names(names) => {
            for who in names {
                let known = match &group.names {
                    Some(list) => list.contains(who),
                    None => is_default_name(group_name, count, who),
                };
                if !known {
                    return Err(ParamError::new(
                        &path_key(&[at, "crash"]),
                        format!("no actor of `{group_name}` is called `{who}`"),
                    ));
                }
            }
            CrashRule::Names(names.clone())
        }
        Crash::First(first) => {
            let first = evaluator.whole(first, &[at, "crash", "count"], 0, MAX_ACTORS)?;
            if first > count {
                return Err(ParamError::new(
                    &path_key(&[at, "crash", "count"]),
                    format!(
                        "the first {first} actors of `{group_name}` crash, but it has {count}: `count` is at most {count} (`crash = \"all\"` for every one)"
                    ),
                ));
            }
            CrashRule::First(first)
        }
        Crash::Probability(p, _) => CrashRule::Probability(
            evaluator.probability(p, &[at, "crash", "probability"])?,
            None,
        ),
    })
}
