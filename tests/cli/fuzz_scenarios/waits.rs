//! The steps that wait — for a lock, a server or a link — and a wait's timeout keys: a
//! give-up, a timeout, and an `on_timeout` with its steps and what comes after them; with
//! them a lock's release and a lease's renewal.

use super::generator::Extreme;
use super::generator::Gen;
use super::world::{Ctx, Group, Held, Mode, Then, Wait, World, union};

impl Gen {
    /// An acquire (with what a timeout does) and, after a timeout that goes on, a branch
    /// that releases the lock only when it was acquired.
    pub(super) fn acquire(&mut self, w: &World, g: &Group, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let free: Vec<usize> = (0..w.locks.len()).filter(|&l| !ctx.holds(l)).collect();
        let (spec, locks) = if free.len() >= 2 && w.mode.is_some() && self.chance(0.25) {
            let (a, b) = (free[0], free[1]);
            let spec = self.by_table(w, |g| {
                format!("\"{}\"", w.locks[if g.chance(0.5) { a } else { b }].name)
            });
            (spec, vec![a, b])
        } else {
            let l = *self.pick(&free);
            (format!("\"{}\"", w.locks[l].name), vec![l])
        };
        let (opts, after, goes_on) = self.wait(w, g, ctx, Wait::Acquire);
        steps.push(format!("{{ acquire = {spec}{opts} }}"));
        ctx.last = after;
        if goes_on {
            // Held only when acquired: work and release inside an `if`.
            let mut inner = ctx.clone();
            inner.depth += 1;
            inner.base = inner.held.len();
            inner.held.push(Held {
                spec: spec.clone(),
                locks: locks.clone(),
            });
            inner.last = vec!["acquired"];
            let n = self.int(0, 2);
            let then = self.list(w, g, &mut inner, n, false);
            let mut then = then;
            if !inner.ended
                && !then
                    .iter()
                    .any(|s| s.contains(&format!("release = {spec}")))
            {
                then.push(format!("{{ release = {spec} }}"));
            }
            ctx.budget = inner.budget;
            steps.push(format!(
                "{{ if = \"acquired\", then = [{}] }}",
                then.join(", ")
            ));
            // Past the `if`: what its `then` left, or any outcome but `acquired`.
            let others: Vec<&'static str> = ctx
                .last
                .iter()
                .copied()
                .filter(|o| *o != "acquired")
                .collect();
            ctx.last = union(&others, &inner.last);
        } else {
            ctx.held.push(Held { spec, locks });
        }
    }

    /// A release of a lock held (one this list took).
    pub(super) fn release(&mut self, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let j = ctx.base + self.below(ctx.held.len() - ctx.base);
        let h = ctx.held.remove(j);
        steps.push(format!("{{ release = {} }}", h.spec));
    }

    /// A renewal of a lease held, and now and then a branch: step down when it was lost,
    /// else work, then release.
    pub(super) fn renew(&mut self, w: &World, g: &Group, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let j = (ctx.base..ctx.held.len())
            .find(|&j| {
                ctx.held[j]
                    .locks
                    .iter()
                    .all(|&l| w.locks[l].mode == Mode::Lease)
            })
            .unwrap();
        let spec = ctx.held[j].spec.clone();
        steps.push(format!("{{ renew = {spec} }}"));
        ctx.last = vec!["renewed", "lost"];
        if self.chance(0.6) {
            // Step down when the lease was lost; else work, then release.
            let mut inner = ctx.clone();
            inner.depth += 1;
            inner.base = inner.held.len();
            // The `else` of `if = "lost"`: the lease was renewed.
            inner.last = vec!["renewed"];
            let work = self.list(w, g, &mut inner, 2, false);
            ctx.budget = inner.budget;
            ctx.held.remove(j);
            let mut then = work;
            then.push(format!("{{ release = {spec} }}"));
            steps.push(format!(
                "{{ if = \"lost\", then = [{{ release = {spec} }}], else = [{}] }}",
                then.join(", ")
            ));
            ctx.last = union(&["lost"], &inner.last);
        }
    }

    /// A request to a server (or one of them, by an index), with what a timeout does.
    pub(super) fn request(&mut self, w: &World, g: &Group, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let s = self.below(w.servers.len());
        let server = &w.servers[s];
        let fails = server.fails;
        let target = if w.servers.len() > 1 && self.chance(0.2) {
            let names: Vec<String> = w
                .servers
                .iter()
                .map(|s| format!("\"{}\"", s.name))
                .collect();
            let index = *self.pick(&["0", "1", "\"min(i, 1)\"", "\"min(k, 1)\""]);
            format!("{{ one_of = [{}], index = {index} }}", names.join(", "))
        } else {
            format!("\"{}\"", server.name)
        };
        // A choice may name every server: any that fails fast may refuse it.
        let may_refuse = if target.starts_with('{') {
            w.servers.iter().any(|s| s.fails)
        } else {
            fails
        };
        let fails = fails && !target.starts_with('{');
        let mut s = format!("{{ request = {target}");
        if self.chance(0.3) {
            s.push_str(&format!(
                ", instance = {}",
                self.pick(&["0", "1", "\"i\"", "\"k\"", "\"i + k\""])
            ));
        }
        let (opts, after, _) = self.wait(w, g, ctx, Wait::Request { fails, may_refuse });
        s.push_str(&opts);
        s.push_str(" }");
        steps.push(s);
        ctx.last = after;
    }

    /// A send over a link (or one by the string parameter), with what a timeout does.
    pub(super) fn send(&mut self, w: &World, g: &Group, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let link = if w.links.len() > 1 && w.mode.is_some() && self.chance(0.3) {
            self.by_table(w, |g| format!("\"n{}\"", g.below(2)))
        } else {
            format!("\"{}\"", self.pick(&w.links).clone())
        };
        let (opts, after, _) = self.wait(w, g, ctx, Wait::Send);
        steps.push(format!("{{ send = {link}{opts} }}"));
        ctx.last = after;
    }

    /// A wait's timeout keys (` timeout_ms = …, on_timeout = { … }`, or none), the
    /// outcomes the step leaves when the actor goes on past it, and whether it goes on
    /// after a timeout.
    pub(super) fn wait(
        &mut self,
        w: &World,
        g: &Group,
        ctx: &mut Ctx,
        wait: Wait,
    ) -> (String, Vec<&'static str>, bool) {
        let normal: Vec<&'static str> = match wait {
            Wait::Acquire => vec!["acquired"],
            Wait::Request { .. } => vec!["served"],
            Wait::Send => vec!["delivered"],
            Wait::Take => vec!["taken"],
        };
        let fails = matches!(wait, Wait::Request { fails: true, .. });
        let may_refuse = matches!(
            wait,
            Wait::Request {
                may_refuse: true,
                ..
            }
        );
        // With a lock held, a timeout mostly releases it (a give-up that keeps it makes the
        // next repetition's acquire an error).
        let roll = match self.below(20) {
            r @ 7..12 if !ctx.held.is_empty() && self.chance(0.8) => r + 5,
            r => r,
        };
        if roll < 7 || ctx.budget == 0 {
            let mut after = normal;
            if may_refuse {
                after.push("refused");
            }
            return (String::new(), after, false);
        }
        let timeout = match self.below(10) {
            0 | 1 => "0".to_string(),
            2 => format!("\"{} + i\"", self.int(1, 40)),
            3 if wait == Wait::Acquire => format!("\"now + {}\"", self.int(1, 40)),
            _ => self.int(1, 80).to_string(),
        };
        if wait == Wait::Acquire && roll < 10 {
            return (format!(", give_up_after_ms = {timeout}"), normal, false);
        }
        if roll < 12 {
            return (format!(", timeout_ms = {timeout}"), normal, false);
        }
        // An on_timeout: its steps, then what comes after them.
        let then = *self.pick(&[Then::End, Then::GoOn, Then::GoOn, Then::Retry, Then::Retry]);
        let mut inner = ctx.clone();
        inner.depth += 1;
        let mut body = Vec::new();
        if then != Then::GoOn {
            // Release what is held, or the next attempt (or repetition) acquires it again.
            if self.chance(0.95) {
                for h in inner.held.drain(..).rev() {
                    body.push(format!("{{ release = {} }}", h.spec));
                }
            }
        }
        inner.base = inner.held.len();
        // A request to a server that fails fast may leave out `timeout_ms`: its steps then
        // run only on a refusal.
        let timeout_given = !(fails && self.chance(0.3));
        inner.last = Vec::new();
        if timeout_given {
            inner.last.push("timed_out");
        }
        if may_refuse {
            inner.last.push("refused");
        }
        if ctx.depth < 3 && self.chance(0.5) {
            let n = self.int(1, 2);
            body.extend(self.list(w, g, &mut inner, n, false));
        }
        ctx.budget = inner.budget;
        let mut o = String::new();
        if wait == Wait::Acquire && then == Then::GoOn && inner.last.contains(&"acquired") {
            // Its steps took a lock: the `if = "acquired"` after it would release one the
            // actor does not hold.
            body.clear();
            inner.last = vec!["timed_out"];
        }
        if !body.is_empty() {
            o.push_str(&format!("steps = [{}]", body.join(", ")));
        }
        let sep = |o: &mut String| {
            if !o.is_empty() {
                o.push_str(", ");
            }
        };
        match then {
            Then::End => {
                if o.is_empty() || self.chance(0.5) {
                    sep(&mut o);
                    o.push_str("then = \"end\"");
                }
            }
            Then::GoOn => {
                sep(&mut o);
                o.push_str("then = \"go_on\"");
            }
            Then::Retry => {
                sep(&mut o);
                if self.chance(0.5) {
                    o.push_str("then = \"retry\", ");
                }
                let attempts = if self.edge == Some(Extreme::Attempts) {
                    self.int(999, 1001)
                } else {
                    self.int(1, 4)
                };
                o.push_str(&format!("max_attempts = {attempts}"));
                if self.chance(0.6) {
                    let backoff = if self.chance(0.4) {
                        "\"10 * 2 ^ (attempt - 1)\"".to_string()
                    } else {
                        self.duration(w, g, ctx, 30)
                    };
                    o.push_str(&format!(", backoff_ms = {backoff}"));
                }
                if self.chance(0.4) {
                    o.push_str(&format!(", jitter_ms = {}", self.duration(w, g, ctx, 30)));
                }
            }
        }
        let timeout_key = if timeout_given {
            format!(", timeout_ms = {timeout}")
        } else {
            String::new()
        };
        let after = if then == Then::GoOn && !inner.ended {
            union(&normal, &inner.last)
        } else {
            normal
        };
        (
            format!("{timeout_key}, on_timeout = {{ {o} }}"),
            after,
            then == Then::GoOn,
        )
    }
}
