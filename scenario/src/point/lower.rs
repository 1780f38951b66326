//! Evaluating a scenario at one sweep point: [`Point::new`] computes every number the point
//! fixes (a `{ by = … }` table, an expression over the parameters) and checks it where it
//! is written; an error names the field (`actor[0].steps[2].delay_ms`).

use coordsim_model::{ParamError, Value};
use sim_core::{Nanos, ms_to_ns};

use crate::point::{
    Cond, CrashRule, Dur, Group, InitialKeys, Inst, Keys, Lock, LockMode, MAX_ACTORS, MAX_ATTEMPTS,
    MAX_INSTANCES, MAX_PROGRAM, MAX_REPETITIONS, Pace, Pick, Point, Queue, Register, Server, Step,
    Then, Tie, Timeout, is_default_name,
};
use crate::syntax::spec::{
    self, Choice, Crash, KeysInit, MAX_KEYS, Num, OnTimeout, ResourceKind, Spec, Var,
};

use crate::machine::keys::{bad_key, key_of};

fn path_key(path: &[&str]) -> String {
    path.join(".")
}

impl Point {
    /// The scenario at the point whose parameter values (in [`Spec::params`] order) are
    /// `values`.
    pub fn new(spec: &Spec, values: &[Value]) -> Result<Point, ParamError> {
        let tie = tie(values.first())?;
        let numbers: Vec<f64> = values
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NAN))
            .collect();
        let ev = Eval {
            spec,
            values,
            numbers: &numbers,
        };
        let mut point = Point {
            tie,
            params: Vec::new(),
            regs: Vec::new(),
            locks: Vec::new(),
            servers: Vec::new(),
            links: Vec::new(),
            link_loss: Vec::new(),
            link_dup: Vec::new(),
            link_names: Vec::new(),
            queues: Vec::new(),
            keys: Vec::new(),
            groups: Vec::new(),
            actors: 0,
            lock_names: Vec::new(),
        };
        for (ri, r) in spec.resources.iter().enumerate() {
            point.resource(&ev, &format!("resource[{ri}]"), &r.name, &r.kind)?;
        }
        let mut actors: u64 = 0;
        let mut repetitions: u64 = 0;
        for (gi, g) in spec.groups.iter().enumerate() {
            let at_g = format!("actor[{gi}]");
            let at = at_g.as_str();
            let count = ev.whole(&g.count, &[at, "count"], 0, MAX_ACTORS)?;
            let repeat = ev.whole(&g.repeat, &[at, "repeat"], 1, MAX_REPETITIONS)?;
            actors += count;
            repetitions = repetitions.saturating_add(count.saturating_mul(repeat));
            if actors > MAX_ACTORS {
                return Err(ParamError::new(
                    &path_key(&[at, "count"]),
                    format!(
                        "a scenario runs at most {MAX_ACTORS} actors in all (one actor may repeat many times: `repeat`)"
                    ),
                ));
            }
            if repetitions > MAX_REPETITIONS {
                return Err(ParamError::new(
                    &path_key(&[at, "repeat"]),
                    format!("a scenario runs at most {MAX_REPETITIONS} repetitions in all"),
                ));
            }
            let group = point.group(&ev, gi, g, count, repeat)?;
            point.groups.push(group);
        }
        // Every actor's start, and any delay computed per actor, must be a duration: checked
        // now for a handful of actors would miss the rest, so the run checks each (a model
        // error naming the group), and here only the per-point numbers are checked.
        // A server whose requests may time out tracks whether each client still waits.
        for g in &point.groups {
            for s in &g.steps {
                if let Step::Request {
                    server,
                    timeout: Some(_),
                    ..
                } = s
                {
                    for (k, sv) in point.servers.iter_mut().enumerate() {
                        sv.abandons |= server.may_be(k as u16);
                        sv.special |= sv.abandons;
                    }
                }
            }
        }
        point.params = numbers;
        point.actors = actors as u32;
        Ok(point)
    }

    /// Resource `r` at this point, added to its kind's list.
    fn resource(
        &mut self,
        ev: &Eval<'_>,
        at: &str,
        name: &str,
        kind: &ResourceKind,
    ) -> Result<(), ParamError> {
        match kind {
            ResourceKind::Register {
                initial,
                read_ms,
                write_ms,
                fenced_by,
            } => self.regs.push(Register {
                name: name.to_string(),
                initial: ev.number(initial, &[at, "initial"])?,
                read_ns: ev.duration(read_ms, &[at, "read_ms"])?,
                write_ns: ev.duration(write_ms, &[at, "write_ms"])?,
                fence: *fenced_by,
            }),
            ResourceKind::Lock {
                mode,
                poll_ms,
                lease_ms,
                fencing,
                stale_at_start,
                unlock_at_ms,
            } => {
                let mode = match ev.choice(mode, spec::LOCK_MODES, &[at, "mode"])? {
                    "poll" => LockMode::Poll,
                    "queue" => LockMode::Queue,
                    _ => LockMode::Lease,
                };
                let poll_ns = ev.duration(poll_ms, &[at, "poll_ms"])?;
                if mode != LockMode::Queue && poll_ns == 0 {
                    return Err(ParamError::new(
                        &path_key(&[at, "poll_ms"]),
                        "a polled lock needs poll_ms > 0 (a retry at the same instant never ends)",
                    ));
                }
                let mut unlock_ns = Vec::new();
                for u in unlock_at_ms {
                    unlock_ns.push(ev.duration(u, &[at, "unlock_at_ms"])?);
                }
                self.lock_names.push(name.to_string());
                self.locks.push(Lock {
                    mode,
                    poll_ns,
                    lease_ns: ev.duration(lease_ms, &[at, "lease_ms"])?,
                    fencing: *fencing,
                    stale: *stale_at_start,
                    unlock_ns,
                });
            }
            ResourceKind::Server {
                service_ms,
                service,
                service_cv,
                instances,
                down,
                when_down,
            } => {
                let mut windows: Vec<(Nanos, Nanos)> = Vec::new();
                for (from, to) in down {
                    let f = ev.duration(from, &[at, "down"])?;
                    let t = ev.duration(to, &[at, "down"])?;
                    if t <= f || windows.last().is_some_and(|(_, end)| f < *end) {
                        return Err(ParamError::new(
                            &path_key(&[at, "down"]),
                            format!(
                                "down windows are [from_ms, to_ms] with from < to, in order and not overlapping; got [{}, {}]",
                                sim_core::ns_to_ms(f),
                                sim_core::ns_to_ms(t)
                            ),
                        ));
                    }
                    windows.push((f, t));
                }
                let fail_fast =
                    ev.choice(when_down, spec::WHEN_DOWN, &[at, "when_down"])? == "fail";
                if fail_fast && windows.is_empty() {
                    return Err(ParamError::new(
                        &path_key(&[at, "when_down"]),
                        "`when_down = \"fail\"` with no `down` windows: the server is never down, so nothing is ever refused; give `down = [[from_ms, to_ms], …]`",
                    ));
                }
                let kind = ev.choice(service, spec::SERVICE_KINDS, &[at, "service"])?;
                let ms = ev.number(service_ms, &[at, "service_ms"])?;
                let service_ns = ev.duration(service_ms, &[at, "service_ms"])?;
                let dist = ev.dist(
                    kind,
                    ms,
                    service_cv,
                    &[at, "service_ms"],
                    &[at, "service_cv"],
                )?;
                let instances = ev.whole(instances, &[at, "instances"], 1, MAX_INSTANCES)? as u32;
                self.servers.push(Server {
                    name: name.to_string(),
                    service_ns,
                    dist,
                    instances,
                    abandons: false,
                    special: !windows.is_empty(),
                    down: windows,
                    fail_fast,
                });
            }
            ResourceKind::Link {
                rtt_ms,
                loss,
                duplicate,
            } => {
                let rtt = ev.duration(rtt_ms, &[at, "rtt_ms"])?;
                let loss = ev.probability(loss, &[at, "loss"])?;
                let dup = ev.probability(duplicate, &[at, "duplicate"])?;
                self.links.push(rtt / 2);
                self.link_loss.push(loss);
                self.link_dup.push(dup);
                self.link_names.push(name.to_string());
            }
            ResourceKind::Queue {
                capacity,
                visibility_ms,
                fields,
                link,
            } => {
                let visibility = visibility_ms
                    .as_ref()
                    .map(|v| ev.duration(v, &[at, "visibility_ms"]))
                    .transpose()?;
                self.queues.push(Queue {
                    name: name.to_string(),
                    field_names: fields.clone(),
                    capacity: ev.whole(capacity, &[at, "capacity"], 0, u32::MAX.into())?,
                    visibility,
                    fields: fields.len(),
                    link: *link,
                });
            }
            ResourceKind::Keys { initial } => {
                let key = |num: &Num, path: &[&str]| -> Result<i64, ParamError> {
                    let x = ev.number(num, path)?;
                    key_of(x).ok_or_else(|| ParamError::new(&path_key(path), bad_key(x)))
                };
                let initial = match initial {
                    KeysInit::Pairs(list) => {
                        let mut pairs = Vec::with_capacity(list.len());
                        for (k, v) in list {
                            pairs
                                .push((key(k, &[at, "initial"])?, ev.number(v, &[at, "initial"])?));
                        }
                        // A key store holds a key once: a second value for it is a slip.
                        let mut keys: Vec<i64> = pairs.iter().map(|(k, _)| *k).collect();
                        keys.sort_unstable();
                        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
                            return Err(ParamError::new(
                                &path_key(&[at, "initial"]),
                                format!(
                                    "key {} is given twice: a key store holds each key once",
                                    w[0]
                                ),
                            ));
                        }
                        InitialKeys::Pairs(pairs)
                    }
                    KeysInit::Range { from, count, value } => {
                        let from = key(from, &[at, "initial", "from"])?;
                        let n = ev.whole(count, &[at, "initial", "count"], 0, MAX_KEYS)?;
                        let v = ev.number(value, &[at, "initial", "value"])?;
                        if key_of(from as f64 + n as f64).is_none() {
                            return Err(ParamError::new(
                                &path_key(&[at, "initial", "count"]),
                                bad_key(from as f64 + n as f64),
                            ));
                        }
                        InitialKeys::Range {
                            from,
                            count: n,
                            value: v,
                        }
                    }
                };
                self.keys.push(Keys {
                    name: name.to_string(),
                    at: at.to_string(),
                    initial,
                });
            }
        }
        Ok(())
    }

    /// Group `gi` of `count` actors repeating `repeat` times, at this point.
    fn group(
        &self,
        ev: &Eval<'_>,
        gi: usize,
        g: &spec::Group,
        count: u64,
        repeat: u64,
    ) -> Result<Group, ParamError> {
        let at_g = format!("actor[{gi}]");
        let at = at_g.as_str();
        let arrivals = ev.choice(&g.arrivals, spec::ARRIVALS, &[at, "arrivals"])?;
        let pace = match &g.pace {
            spec::Pace::Closed => Pace::Closed,
            spec::Pace::Every(e) if arrivals != "schedule" => {
                let ms = ev.number(e, &[at, "every_ms"])?;
                let kind = if arrivals == "poisson" {
                    "exponential"
                } else {
                    arrivals
                };
                match ev.dist(kind, ms, &g.every_cv, &[at, "every_ms"], &[at, "every_cv"])? {
                    Some(d) => Pace::Random(d),
                    None => Pace::Every(ev.duration(e, &[at, "every_ms"])?),
                }
            }
            spec::Pace::Every(e) => Pace::Every(ev.duration(e, &[at, "every_ms"])?),
            spec::Pace::Spread(s) => Pace::Spread(ev.duration(s, &[at, "spread_ms"])?),
        };
        let mut flat = Flat {
            point: self,
            ev,
            g,
            count,
            steps: Vec::new(),
            paths: Vec::new(),
            at: format!("{at}.steps"),
            handlers: Vec::new(),
            attempts: 1,
            jitters: false,
            chances: false,
            streams: Vec::new(),
        };
        flat.list(&g.steps, &format!("{at}.steps"))?;
        flat.handlers()?;
        ev.each_len(&g.start_ms, &format!("{at}.start_ms"), count)?;
        if let Some(names) = &g.names
            && names.len() as u64 != count
        {
            return Err(ParamError::new(
                &path_key(&[at, "names"]),
                "one name per actor",
            ));
        }
        Ok(Group {
            name: g.name.clone(),
            count: count as u32,
            names: g.names.clone(),
            start_ms: ev.per_point(&g.start_ms, &[at, "start_ms"])?,
            repeat,
            pace,
            steps: flat.steps,
            paths: flat.paths,
            attempts: flat.attempts,
            jitters: flat.jitters,
            chances: flat.chances,
            named: flat.streams,
        })
    }
}

/// A group's steps flattened into its program: an `if` as a branch and a jump, a timeout's
/// steps after the repetition's end, each ending in what follows it.
struct Flat<'a> {
    point: &'a Point,
    ev: &'a Eval<'a>,
    g: &'a spec::Group,
    count: u64,
    steps: Vec<Step>,
    /// Where each of `steps` is written.
    paths: Vec<String>,
    /// The group's steps' path (`actor[0].steps`).
    at: String,
    /// Timeouts whose steps are still to be placed: the blocking step's index, its path.
    handlers: Vec<(usize, &'a OnTimeout, String)>,
    attempts: u32,
    jitters: bool,
    chances: bool,
    /// The streams its steps name.
    streams: Vec<String>,
}

impl<'a> Flat<'a> {
    /// Adds `step`, written at `at`.
    fn push(&mut self, step: Step, at: &str) {
        self.steps.push(step);
        self.paths.push(at.to_string());
    }

    fn list(&mut self, steps: &'a [spec::Step], at: &str) -> Result<(), ParamError> {
        for (si, s) in steps.iter().enumerate() {
            self.step(s, &format!("{at}[{si}]"))?;
        }
        Ok(())
    }

    /// Places every timeout's steps after an `End`, each followed by what comes next (its
    /// own timeouts' steps after it).
    fn handlers(&mut self) -> Result<(), ParamError> {
        if self.handlers.is_empty() {
            return Ok(());
        }
        let at = self.at.clone();
        self.push(Step::End, &at);
        while !self.handlers.is_empty() {
            let (b, t, at) = self.handlers.remove(0);
            let start = self.steps.len() as u32;
            match &mut self.steps[b] {
                Step::Acquire { timeout, .. }
                | Step::Request { timeout, .. }
                | Step::Send { timeout, .. }
                | Step::Take { timeout, .. } => {
                    if let Some(t) = timeout {
                        t.handler = start;
                    }
                }
                _ => unreachable!("a timeout belongs to a blocking step"),
            }
            self.list(&t.steps, &format!("{at}.on_timeout.steps"))?;
            let then = match &t.then {
                spec::Then::End => Then::End,
                spec::Then::GoOn => Then::GoOn(b as u32 + 1),
                spec::Then::Retry {
                    max_attempts,
                    backoff_ms,
                    jitter_ms,
                } => {
                    let here = format!("{at}.on_timeout");
                    let max =
                        self.ev
                            .whole(max_attempts, &[&here, "max_attempts"], 1, MAX_ATTEMPTS)?
                            as u32;
                    self.attempts = self.attempts.max(max);
                    let jitter = self.ev.per_point(jitter_ms, &[&here, "jitter_ms"])?;
                    self.jitters |= !matches!(jitter, Num::Lit(0.0));
                    Then::Retry {
                        max_attempts: max,
                        backoff: self.ev.per_point(backoff_ms, &[&here, "backoff_ms"])?,
                        jitter,
                    }
                }
            };
            self.push(Step::AfterTimeout(then), &format!("{at}.on_timeout"));
        }
        Ok(())
    }

    fn pick(&self, p: &spec::Pick, at: &str, key: &str) -> Result<Pick, ParamError> {
        Ok(match p {
            spec::Pick::One(r) => Pick::One(*r),
            spec::Pick::OneOf(items, index) => {
                let index = self.ev.per_point(index, &[at, key, "index"])?;
                if let Num::Lit(x) = index {
                    let k = x as usize;
                    if !(x >= 0.0 && x.fract() == 0.0 && k < items.len()) {
                        return Err(ParamError::new(
                            &path_key(&[at, key, "index"]),
                            format!(
                                "the index is {x}; `one_of` has {} (index 0 to {})",
                                items.len(),
                                items.len() - 1
                            ),
                        ));
                    }
                    Pick::One(items[k])
                } else {
                    Pick::OneOf(items.clone(), index)
                }
            }
            spec::Pick::By(param, options) => {
                let Some(Value::Str(v)) = self.ev.values.get(*param as usize) else {
                    return Err(ParamError::new(
                        &path_key(&[at, key, "by"]),
                        "its `by` parameter has no string value here",
                    ));
                };
                match options.iter().find(|(o, _)| o == v) {
                    Some((_, r)) => Pick::One(*r),
                    None => {
                        let valid: Vec<&str> = options.iter().map(|(o, _)| o.as_str()).collect();
                        return Err(ParamError::new(
                            &path_key(&[at, key]),
                            format!(
                                "`{}` = \"{v}\" names no resource here; it gives: {}",
                                self.ev.spec.params[*param as usize].name,
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
    fn can_time_out(
        &self,
        t: &Option<OnTimeout>,
        at: &str,
        what: &str,
        refuses: bool,
    ) -> Result<(), ParamError> {
        match t {
            Some(t) if t.after.is_none() && !refuses => Err(ParamError::new(
                &path_key(&[at, "on_timeout"]),
                format!(
                    "an `on_timeout` with no `timeout_ms`: this {what} never times out, so its steps never run; give `timeout_ms`"
                ),
            )),
            _ => Ok(()),
        }
    }

    fn timeout(
        &mut self,
        t: &'a Option<OnTimeout>,
        at: &str,
    ) -> Result<Option<Timeout>, ParamError> {
        let Some(t) = t else {
            return Ok(None);
        };
        let key = t.key;
        let after = match &t.after {
            Some(a) => {
                self.ev.each_len(a, &format!("{at}.{key}"), self.count)?;
                Some(self.ev.dur(a, &[at, key])?)
            }
            None => None,
        };
        self.handlers.push((self.steps.len(), t, at.to_string()));
        Ok(Some(Timeout {
            after,
            handler: u32::MAX,
        }))
    }

    /// A step of the group at this point; `at` is its path.
    fn step(&mut self, s: &'a spec::Step, at: &str) -> Result<(), ParamError> {
        let ev = self.ev;
        let step = match s {
            spec::Step::Read(r) => Step::Read(*r),
            spec::Step::Write {
                reg,
                value,
                cas,
                max_retries,
            } => {
                ev.each_len(value, &format!("{at}.value"), self.count)?;
                Step::Write {
                    reg: *reg,
                    value: ev.per_point(value, &[at, "value"])?,
                    cas: *cas,
                    max_retries: ev.whole(max_retries, &[at, "max_retries"], 1, u32::MAX.into())?,
                }
            }
            spec::Step::Delay(d) => {
                ev.each_len(d, &format!("{at}.delay_ms"), self.count)?;
                Step::Delay(ev.dur(d, &[at, "delay_ms"])?)
            }
            spec::Step::Pause(d) => {
                ev.each_len(d, &format!("{at}.pause_ms"), self.count)?;
                Step::Pause(ev.dur(d, &[at, "pause_ms"])?)
            }
            spec::Step::Acquire { lock, timeout } => {
                let lock = self.pick(lock, at, "acquire")?;
                // A stale record nobody removes, waited for with no ceiling: the run could
                // only end at its limits. Said here, where it is written.
                if let Pick::One(l) = lock {
                    let lp = &self.point.locks[l as usize];
                    if timeout.as_ref().is_none_or(|t| t.after.is_none())
                        && lp.stale
                        && lp.unlock_ns.is_empty()
                        && lp.mode != LockMode::Lease
                    {
                        return Err(ParamError::new(
                            &path_key(&[at, "acquire"]),
                            format!(
                                "`{}` starts with a stale record that nothing removes (no unlock_at_ms, not a lease), and this acquire never gives up: it can never finish; add give_up_after_ms",
                                self.point.lock_names[l as usize]
                            ),
                        ));
                    }
                }
                self.can_time_out(timeout, at, "acquire", false)?;
                let timeout = self.timeout(timeout, at)?;
                Step::Acquire { lock, timeout }
            }
            spec::Step::Release(lock) => Step::Release(self.pick(lock, at, "release")?),
            spec::Step::Renew(lock) => {
                let lock = self.pick(lock, at, "renew")?;
                if let Pick::One(l) = lock
                    && self.point.locks[l as usize].mode != LockMode::Lease
                {
                    return Err(ParamError::new(
                        &path_key(&[at, "renew"]),
                        format!(
                            "`renew` keeps a lease fresh, and `{}` is not a lease (mode = \"lease\" with lease_ms): a queue or polled lock is held until released",
                            self.point.lock_names[l as usize]
                        ),
                    ));
                }
                Step::Renew(lock)
            }
            spec::Step::Request {
                server,
                instance,
                timeout,
            } => {
                ev.each_len(instance, &format!("{at}.instance"), self.count)?;
                let server = self.pick(server, at, "request")?;
                // An instance the same for every actor, at one server, is reduced once, here.
                let instance = match server {
                    Pick::One(s) if !instance.per_actor() => {
                        let k = ev.whole(instance, &[at, "instance"], 0, u64::MAX >> 11)?;
                        Inst::Fixed(
                            (k % u64::from(self.point.servers[s as usize].instances)) as u32,
                        )
                    }
                    _ => Inst::Actor(ev.per_point(instance, &[at, "instance"])?),
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
                Step::Request {
                    server,
                    instance,
                    timeout,
                }
            }
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
                let rule = match (crash_rule(ev, at, self.g, self.count, rule)?, rule) {
                    (CrashRule::Probability(p, _), Crash::Probability(_, Some(name))) => {
                        CrashRule::Probability(p, Some(self.named_stream(name)))
                    }
                    (r, _) => r,
                };
                Step::Crash {
                    rule,
                    restart: restart_after_ms
                        .as_ref()
                        .map(|r| ev.dur(r, &[at, "restart_after_ms"]))
                        .transpose()?,
                }
            }
            spec::Step::Put {
                queue,
                value,
                fields,
            } => {
                ev.each_len(value, &format!("{at}.value"), self.count)?;
                for f in fields {
                    ev.each_len(f, &format!("{at}.fields"), self.count)?;
                }
                Step::Put {
                    queue: *queue,
                    value: ev.per_point(value, &[at, "value"])?,
                    fields: fields
                        .iter()
                        .map(|f| ev.per_point(f, &[at, "fields"]))
                        .collect::<Result<_, _>>()?,
                }
            }
            spec::Step::Take { queue, timeout } => {
                self.can_time_out(timeout, at, "take", false)?;
                let timeout = self.timeout(timeout, at)?;
                Step::Take {
                    queue: *queue,
                    timeout,
                }
            }
            spec::Step::Ack(q) => Step::Ack(*q),
            spec::Step::Stop => Step::Stop,
            spec::Step::Keys {
                op,
                store,
                key,
                value,
            } => {
                ev.each_len(key, &format!("{at}.key"), self.count)?;
                let key = ev.per_point(key, &[at, "key"])?;
                if let Num::Lit(x) = key
                    && key_of(x).is_none()
                {
                    return Err(ParamError::new(&path_key(&[at, "key"]), bad_key(x)));
                }
                Step::Keys {
                    op: *op,
                    store: *store,
                    key,
                    value: ev.per_point(value, &[at, "value"])?,
                }
            }
            spec::Step::Transaction(steps) => {
                // Its steps take no time: a register it reads or writes must say so.
                for (si, inner) in steps.iter().enumerate() {
                    let mut slow = None;
                    inner.visit(&mut |s| match s {
                        spec::Step::Read(r) if self.point.regs[*r as usize].read_ns > 0 => {
                            slow = Some((*r, "read_ms"));
                        }
                        spec::Step::Write { reg, .. }
                            if self.point.regs[*reg as usize].write_ns > 0 =>
                        {
                            slow = Some((*reg, "write_ms"));
                        }
                        _ => {}
                    });
                    if let Some((r, key)) = slow {
                        return Err(ParamError::new(
                            &format!("{at}.transaction[{si}]"),
                            format!(
                                "a transaction's steps land at one instant, but register `{}` has {key} > 0 here; give it {key} = 0 (or put a delay before the transaction)",
                                self.ev
                                    .spec
                                    .resources
                                    .iter()
                                    .filter(|r| matches!(r.kind, ResourceKind::Register { .. }))
                                    .nth(r as usize)
                                    .map_or("?", |r| r.name.as_str())
                            ),
                        ));
                    }
                }
                self.push(Step::TxBegin, at);
                self.list(steps, &format!("{at}.transaction"))?;
                Step::TxEnd
            }
            spec::Step::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = match cond {
                    spec::Cond::Outcome(o) => Cond::Outcome(*o),
                    spec::Cond::Chance(p, stream) => {
                        let p = ev.per_point(p, &[at, "if", "chance"])?;
                        if let Num::Lit(x) = p
                            && !(0.0..=1.0).contains(&x)
                        {
                            return Err(ParamError::new(
                                &path_key(&[at, "if", "chance"]),
                                format!("a probability is in [0, 1], got {x}"),
                            ));
                        }
                        self.chances |= stream.is_none();
                        Cond::Chance(p, stream.as_ref().map(|n| self.named_stream(n)))
                    }
                    spec::Cond::Compare(a, cmp, b) => Cond::Compare(
                        ev.per_point(a, &[at, "if", "value"])?,
                        *cmp,
                        ev.per_point(b, &[at, "if"])?,
                    ),
                };
                let b = self.steps.len();
                self.push(
                    Step::Branch {
                        cond,
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
                if let Step::Branch { otherwise: o, .. } = &mut self.steps[b] {
                    *o = else_at;
                }
                self.list(otherwise, &format!("{at}.else"))?;
                if !otherwise.is_empty() {
                    let end = self.steps.len() as u32;
                    self.steps[jump] = Step::Jump(end);
                }
                return self.check_len(at);
            }
        };
        self.push(step, at);
        self.check_len(at)
    }

    /// The group's stream called `name`: its number among the streams its steps name
    /// (steps that name the same stream draw from it in turn).
    fn named_stream(&mut self, name: &str) -> u16 {
        match self.streams.iter().position(|n| n == name) {
            Some(s) => s as u16,
            None => {
                self.streams.push(name.to_string());
                (self.streams.len() - 1) as u16
            }
        }
    }

    fn check_len(&self, at: &str) -> Result<(), ParamError> {
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

/// `tie_order`'s value, the first parameter.
fn tie(value: Option<&Value>) -> Result<Tie, ParamError> {
    Ok(match value {
        Some(Value::Str(s)) if s == "fifo" => Tie::Fifo,
        Some(Value::Str(s)) if s == "program_order" => Tie::ProgramOrder,
        Some(Value::Str(s)) if s == "reads_first" => Tie::ReadsFirst,
        Some(Value::Str(s)) if s == "writes_first" => Tie::WritesFirst,
        other => {
            let got = match other {
                Some(Value::Str(s)) => format!("\"{s}\""),
                Some(v) => v.to_string(),
                None => "nothing".into(),
            };
            return Err(ParamError::new(
                spec::TIE_ORDER,
                format!(
                    "expected one of \"fifo\", \"program_order\", \"reads_first\", \"writes_first\", got {got}"
                ),
            ));
        }
    })
}

/// Who a crash step kills, at this point.
fn crash_rule(
    ev: &Eval<'_>,
    at: &str,
    g: &spec::Group,
    count: u64,
    c: &Crash,
) -> Result<CrashRule, ParamError> {
    let n = g.name.as_str();
    Ok(match c {
        Crash::All => CrashRule::All,
        Crash::Names(names) => {
            for who in names {
                let known = match &g.names {
                    Some(list) => list.contains(who),
                    None => is_default_name(n, count, who),
                };
                if !known {
                    return Err(ParamError::new(
                        &path_key(&[at, "crash"]),
                        format!("no actor of `{n}` is called `{who}`"),
                    ));
                }
            }
            CrashRule::Names(names.clone())
        }
        Crash::First(c) => {
            let first = ev.whole(c, &[at, "crash", "count"], 0, MAX_ACTORS)?;
            if first > count {
                return Err(ParamError::new(
                    &path_key(&[at, "crash", "count"]),
                    format!(
                        "the first {first} actors of `{n}` crash, but it has {count}: `count` is at most {count} (`crash = \"all\"` for every one)"
                    ),
                ));
            }
            CrashRule::First(first)
        }
        Crash::Probability(p, _) => {
            CrashRule::Probability(ev.probability(p, &[at, "crash", "probability"])?, None)
        }
    })
}

struct Eval<'a> {
    spec: &'a Spec,
    values: &'a [Value],
    numbers: &'a [f64],
}

impl Eval<'_> {
    fn number(&self, num: &Num, path: &[&str]) -> Result<f64, ParamError> {
        let key = path_key(path);
        let x = match num {
            Num::Lit(x) => *x,
            Num::Expr(e, text) => {
                if num.per_actor() {
                    return Err(ParamError::new(
                        &key,
                        format!(
                            "\"{text}\" is computed per actor; only a step's numbers (a start: `i` only) may use `i`, `k`, `attempt` or a register read"
                        ),
                    ));
                }
                e.eval(&|v| match v {
                    Var::Param(p) => self.numbers.get(p as usize).copied(),
                    _ => None,
                })
                .unwrap_or(f64::NAN)
            }
            Num::Each(_) => {
                return Err(ParamError::new(
                    &key,
                    "a list gives one number per actor; only a start, a delay, an instance, a give-up time or a written value may be one",
                ));
            }
            Num::By(p, options) => {
                let Some(Value::Str(s)) = self.values.get(*p as usize) else {
                    return Err(ParamError::new(
                        &key,
                        "its `by` parameter has no string value here",
                    ));
                };
                match options.iter().find(|(o, _)| o == s) {
                    Some((_, x)) => *x,
                    None => {
                        let valid: Vec<&str> = options.iter().map(|(o, _)| o.as_str()).collect();
                        return Err(ParamError::new(
                            &key,
                            format!(
                                "`{}` = \"{s}\" has no number here; it gives: {}",
                                self.spec.params[*p as usize].name,
                                valid.join(", ")
                            ),
                        ));
                    }
                }
            }
        };
        if !x.is_finite() {
            return Err(ParamError::new(
                &key,
                format!("is not a finite number here ({x})"),
            ));
        }
        Ok(x)
    }

    fn probability(&self, num: &Num, path: &[&str]) -> Result<f64, ParamError> {
        let p = self.number(num, path)?;
        if !(0.0..=1.0).contains(&p) {
            return Err(ParamError::new(
                &path_key(path),
                format!("a probability is in [0, 1], got {p}"),
            ));
        }
        Ok(p)
    }

    fn duration(&self, num: &Num, path: &[&str]) -> Result<Nanos, ParamError> {
        let ms = self.number(num, path)?;
        ms_to_ns(ms).ok_or_else(|| ParamError::new(&path_key(path), sim_core::bad_duration(ms)))
    }

    /// A number the run computes: computed here once when it does not depend on the actor
    /// or the run (a `{ by = … }` table included, which only a point can resolve).
    fn per_point(&self, num: &Num, path: &[&str]) -> Result<Num, ParamError> {
        if let Num::Each(items) = num {
            return items
                .iter()
                .map(|n| self.per_point(n, path))
                .collect::<Result<_, _>>()
                .map(Num::Each);
        }
        if num.per_actor() {
            return Ok(num.clone());
        }
        self.number(num, path).map(Num::Lit)
    }

    /// A distribution of `kind` with mean `mean_ms` and the cv `cv` (used by all but
    /// `fixed` and `exponential`); `None` for `fixed`.
    fn dist(
        &self,
        kind: &str,
        mean_ms: f64,
        cv: &Num,
        mean_path: &[&str],
        cv_path: &[&str],
    ) -> Result<Option<sim_core::Dist>, ParamError> {
        use sim_core::DistKind;
        let kind = match kind {
            "fixed" => return Ok(None),
            "exponential" => DistKind::Exponential,
            "uniform" => DistKind::Uniform,
            "lognormal" => DistKind::LogNormal,
            _ => DistKind::Gamma,
        };
        if ms_to_ns(mean_ms).is_none_or(|ns| ns == 0) {
            return Err(ParamError::new(
                &path_key(mean_path),
                format!("a random duration needs a mean above 0 ms, got {mean_ms}"),
            ));
        }
        let cv = self.number(cv, cv_path)?;
        sim_core::Dist::new(kind, mean_ms, cv, &[])
            .map(Some)
            .map_err(|m| ParamError::new(&path_key(cv_path), m))
    }

    /// A per-actor list has one number for each of the group's `count` actors.
    fn each_len(&self, num: &Num, key: &str, count: u64) -> Result<(), ParamError> {
        // A group with no actors at this point (its `count` chosen by a parameter) uses none.
        if let Some(len) = num.each_len()
            && len as u64 != count
            && count > 0
        {
            return Err(ParamError::new(
                key,
                format!("a list needs one number per actor: {count} here, got {len}"),
            ));
        }
        Ok(())
    }

    fn dur(&self, num: &Num, path: &[&str]) -> Result<Dur, ParamError> {
        if num.per_actor() {
            return self.per_point(num, path).map(Dur::Actor);
        }
        self.duration(num, path).map(Dur::Fixed)
    }

    fn whole(&self, num: &Num, path: &[&str], min: u64, max: u64) -> Result<u64, ParamError> {
        let x = self.number(num, path)?;
        if x.fract() != 0.0 || x < min as f64 || x > max as f64 {
            return Err(ParamError::new(
                &path_key(path),
                format!("must be a whole number from {min} to {max}, got {x}"),
            ));
        }
        Ok(x as u64)
    }

    fn choice(
        &self,
        c: &Choice,
        options: &[&'static str],
        path: &[&str],
    ) -> Result<&'static str, ParamError> {
        match c {
            Choice::Lit(o) => Ok(o),
            Choice::Param(p) => match self.values.get(*p as usize) {
                Some(Value::Str(s)) => {
                    options.iter().find(|o| **o == s).copied().ok_or_else(|| {
                        ParamError::new(
                            &path_key(path),
                            format!(
                                "`{}` = \"{s}\" is not an option here; valid: {}",
                                self.spec.params[*p as usize].name,
                                options.join(", ")
                            ),
                        )
                    })
                }
                _ => Err(ParamError::new(
                    &path_key(path),
                    "its parameter has no string value here",
                )),
            },
        }
    }
}
