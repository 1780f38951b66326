//! Evaluating a scenario at one sweep point: [`Point::new`] computes every number the point
//! fixes (a `{ by = … }` table, an expression over the parameters) and checks it where it
//! is written; an error names the field (`actor[0].steps[2].delay_ms`).

use coordsim_model::{ParamError, Value};
use sim_core::{Nanos, ms_to_ns};

use crate::point::{
    CrashRule, Dur, GroupP, Inst, LockMode, LockP, MAX_ACTORS, MAX_INSTANCES, MAX_REPETITIONS,
    PaceP, Point, RegP, ServerP, StepP, Tie, is_default_name,
};
use crate::spec::{self, Choice, Crash, Num, Pace, ResourceKind, Spec, Step, Var};

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
            } => self.regs.push(RegP {
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
                self.locks.push(LockP {
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
            } => {
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
                self.servers.push(ServerP {
                    name: name.to_string(),
                    service_ns,
                    dist,
                    instances,
                });
            }
            ResourceKind::Link { rtt_ms } => {
                let rtt = ev.duration(rtt_ms, &[at, "rtt_ms"])?;
                self.links.push(rtt / 2);
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
    ) -> Result<GroupP, ParamError> {
        let at_g = format!("actor[{gi}]");
        let at = at_g.as_str();
        let arrivals = ev.choice(&g.arrivals, spec::ARRIVALS, &[at, "arrivals"])?;
        let pace = match &g.pace {
            Pace::Closed => PaceP::Closed,
            Pace::Every(e) if arrivals != "schedule" => {
                let ms = ev.number(e, &[at, "every_ms"])?;
                let kind = if arrivals == "poisson" {
                    "exponential"
                } else {
                    arrivals
                };
                match ev.dist(kind, ms, &g.every_cv, &[at, "every_ms"], &[at, "every_cv"])? {
                    Some(d) => PaceP::Random(d),
                    None => PaceP::Every(ev.duration(e, &[at, "every_ms"])?),
                }
            }
            Pace::Every(e) => PaceP::Every(ev.duration(e, &[at, "every_ms"])?),
            Pace::Spread(s) => PaceP::Spread(ev.duration(s, &[at, "spread_ms"])?),
        };
        let mut steps = Vec::new();
        for (si, s) in g.steps.iter().enumerate() {
            let at_s = format!("actor[{gi}].steps[{si}]");
            steps.push(self.step(ev, &at_s, g, count, s)?);
        }
        // A per-actor list has one number for each actor.
        let mut lists: Vec<(&Num, String)> = vec![(&g.start_ms, format!("{at}.start_ms"))];
        for (si, step) in g.steps.iter().enumerate() {
            let here = |field: &str| format!("{at}.steps[{si}].{field}");
            match step {
                Step::Write { value, .. } => lists.push((value, here("value"))),
                Step::Delay(d) => lists.push((d, here("delay_ms"))),
                Step::Acquire {
                    give_up_after_ms: Some(d),
                    ..
                } => lists.push((d, here("give_up_after_ms"))),
                Step::Request { instance, .. } => lists.push((instance, here("instance"))),
                _ => {}
            }
        }
        for (num, key) in lists {
            if let Some(len) = num.each_len()
                && len as u64 != count
            {
                return Err(ParamError::new(
                    &key,
                    format!("a list needs one number per actor: {count} here, got {len}"),
                ));
            }
        }
        if let Some(names) = &g.names
            && names.len() as u64 != count
        {
            return Err(ParamError::new(
                &path_key(&[at, "names"]),
                "one name per actor",
            ));
        }
        Ok(GroupP {
            name: g.name.clone(),
            count: count as u32,
            names: g.names.clone(),
            start_ms: ev.per_point(&g.start_ms, &[at, "start_ms"])?,
            repeat,
            pace,
            steps,
        })
    }

    /// A step of group `g` (`count` actors) at this point; `at` is its path.
    fn step(
        &self,
        ev: &Eval<'_>,
        at: &str,
        g: &spec::Group,
        count: u64,
        s: &Step,
    ) -> Result<StepP, ParamError> {
        Ok(match s {
            Step::Read(r) => StepP::Read(*r),
            Step::Write {
                reg,
                value,
                cas,
                max_retries,
            } => StepP::Write {
                reg: *reg,
                value: ev.per_point(value, &[at, "value"])?,
                cas: *cas,
                max_retries: ev.whole(max_retries, &[at, "max_retries"], 1, u32::MAX.into())?,
            },
            Step::Delay(d) => StepP::Delay(ev.dur(d, &[at, "delay_ms"])?),
            Step::Acquire {
                lock,
                give_up_after_ms,
            } => {
                let l = *lock as usize;
                let lp = &self.locks[l];
                // A stale record nobody removes, waited for with no ceiling: the run could
                // only end at its limits. Said here, where it is written.
                if give_up_after_ms.is_none()
                    && lp.stale
                    && lp.unlock_ns.is_empty()
                    && lp.mode != LockMode::Lease
                {
                    return Err(ParamError::new(
                        &path_key(&[at, "acquire"]),
                        format!(
                            "`{}` starts with a stale record that nothing removes (no unlock_at_ms, not a lease), and this acquire never gives up: it can never finish; add give_up_after_ms",
                            self.lock_names[l]
                        ),
                    ));
                }
                StepP::Acquire {
                    lock: l as u16,
                    give_up: give_up_after_ms
                        .as_ref()
                        .map(|d| ev.dur(d, &[at, "give_up_after_ms"]))
                        .transpose()?,
                }
            }
            Step::Release(lock) => StepP::Release(*lock),
            Step::Request { server, instance } => {
                let server = *server as usize;
                // An instance the same for every actor is reduced once, here.
                let instance = if instance.per_actor() {
                    Inst::Actor(ev.per_point(instance, &[at, "instance"])?)
                } else {
                    let k = ev.whole(instance, &[at, "instance"], 0, u64::MAX >> 11)?;
                    Inst::Fixed((k % u64::from(self.servers[server].instances)) as u32)
                };
                StepP::Request {
                    server: server as u16,
                    instance,
                }
            }
            Step::Send(link) => StepP::Send(*link),
            Step::Crash(c) => StepP::Crash(crash_rule(ev, at, g, count, c)?),
        })
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
        Crash::First(c) => CrashRule::First(ev.whole(c, &[at, "crash", "count"], 0, MAX_ACTORS)?),
        Crash::Probability(p) => {
            let p = ev.number(p, &[at, "crash", "probability"])?;
            if !(0.0..=1.0).contains(&p) {
                return Err(ParamError::new(
                    &path_key(&[at, "crash", "probability"]),
                    format!("a probability is in [0, 1], got {p}"),
                ));
            }
            CrashRule::Probability(p)
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
                            "\"{text}\" is computed per actor; only a start, a delay, an instance or a give-up time may use `i`"
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
