//! The steps: a list of them, the choice of each by what the actor holds and knows, and
//! the steps of registers, queues and key sets, crashes, transactions and branches (the
//! steps that wait for a lock, a server or a link are in `waits.rs`).

use super::generator::Gen;
use super::world::{Ctx, Group, Mode, Scope, Wait, World, q_index, union};

/// A step's kind, as the choice weighs it.
#[derive(Clone, Copy)]
enum K {
    Read,
    Write,
    Delay,
    Pause,
    Acquire,
    Release,
    Renew,
    Request,
    Send,
    Crash,
    Put,
    Take,
    Ack,
    Keys,
    Transaction,
    If,
    Stop,
}

impl Gen {
    /// A list of up to `n` steps; at its end it releases what it took (a group's list
    /// mostly does: a lock held into the next repetition is an error when acquired again).
    pub(super) fn list(
        &mut self,
        w: &World,
        g: &Group,
        ctx: &mut Ctx,
        n: usize,
        top: bool,
    ) -> Vec<String> {
        let mut steps = Vec::new();
        for _ in 0..n {
            if ctx.budget == 0 || ctx.ended {
                break;
            }
            ctx.budget -= 1;
            let before = steps.len();
            self.step(w, g, ctx, &mut steps);
            debug_assert!(steps.len() >= before);
        }
        if !ctx.ended && (!top || self.chance(0.95)) {
            while ctx.held.len() > ctx.base {
                let h = ctx.held.pop().unwrap();
                steps.push(format!("{{ release = {} }}", h.spec));
            }
        }
        steps
    }

    /// One step (or a few that go together) appended to `steps`.
    pub(super) fn step(&mut self, w: &World, g: &Group, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let kinds = self.kinds(w, ctx);
        let total: usize = kinds.iter().map(|k| k.1).sum();
        let mut roll = self.below(total);
        let mut kind = kinds[0].0;
        for (k, weight) in &kinds {
            if roll < *weight {
                kind = *k;
                break;
            }
            roll -= weight;
        }
        match kind {
            K::Read => self.read(w, ctx, steps),
            K::Write => self.write(w, ctx, steps),
            K::Delay => self.delay(w, g, ctx, steps, "delay_ms"),
            K::Pause => self.delay(w, g, ctx, steps, "pause_ms"),
            K::Acquire => self.acquire(w, g, ctx, steps),
            K::Release => self.release(ctx, steps),
            K::Renew => self.renew(w, g, ctx, steps),
            K::Request => self.request(w, g, ctx, steps),
            K::Send => self.send(w, g, ctx, steps),
            K::Crash => self.crash(w, g, ctx, steps),
            K::Put => self.put(w, ctx, steps),
            K::Take => self.take(w, g, ctx, steps),
            K::Ack => self.ack(w, ctx, steps),
            K::Keys => self.keys(w, ctx, steps),
            K::Transaction => self.transaction(w, g, ctx, steps),
            K::If => self.branch(w, g, ctx, steps),
            K::Stop => self.stop(ctx, steps),
        }
    }

    /// The kinds of step the actor may take here, weighed.
    fn kinds(&self, w: &World, ctx: &Ctx) -> Vec<(K, usize)> {
        let tx = ctx.in_tx;
        let free_locks = (0..w.locks.len()).filter(|&l| !ctx.holds(l)).count();
        let leases_held = ctx.held[ctx.base..]
            .iter()
            .any(|h| h.locks.iter().all(|&l| w.locks[l].mode == Mode::Lease));
        let readable = (0..w.registers.len())
            .filter(|&r| !tx || w.registers[r].instant)
            .count();
        let mut kinds: Vec<(K, usize)> = vec![(K::Crash, 1)];
        if ctx.depth < 3 {
            kinds.push((K::If, 3));
        }
        if readable > 0 {
            kinds.extend([(K::Read, 4), (K::Write, 4)]);
        }
        if !tx {
            kinds.extend([(K::Delay, 4), (K::Pause, 1), (K::Stop, 1)]);
            if free_locks > 0 {
                kinds.push((K::Acquire, 5));
            }
            if ctx.held.len() > ctx.base {
                kinds.push((K::Release, 2));
            }
            if leases_held {
                kinds.push((K::Renew, 3));
            }
            if !w.servers.is_empty() {
                kinds.push((K::Request, 4));
            }
            if !w.links.is_empty() {
                kinds.push((K::Send, 3));
            }
            if !w.queues.is_empty() {
                kinds.push((K::Take, 3));
            }
            if ctx.depth < 2 {
                kinds.push((K::Transaction, 2));
            }
        }
        if !w.queues.is_empty() {
            kinds.push((K::Put, 4));
            // An ack needs a take before it on its path (a few go without, for the error).
            if w.queues.iter().any(|q| {
                q.acks && (ctx.taken.contains(&q_index(w, q)) || ctx.budget.is_multiple_of(17))
            }) {
                kinds.push((K::Ack, 3));
            }
        }
        if !w.keys.is_empty() {
            kinds.push((K::Keys, 5));
        }
        kinds
    }

    /// A read of a register (an instant one in a transaction).
    fn read(&mut self, w: &World, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let tx = ctx.in_tx;
        let choices: Vec<usize> = (0..w.registers.len())
            .filter(|&r| !tx || w.registers[r].instant)
            .collect();
        let r = *self.pick(&choices);
        steps.push(format!("{{ read = \"{}\" }}", w.registers[r].name));
        if !ctx.read.contains(&r) {
            ctx.read.push(r);
        }
    }

    /// A write of a register, a compare-and-set now and then.
    fn write(&mut self, w: &World, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let tx = ctx.in_tx;
        let choices: Vec<usize> = (0..w.registers.len())
            .filter(|&r| !tx || w.registers[r].instant)
            .collect();
        let r = *self.pick(&choices);
        let value = self.value(w, ctx, Scope::Write(r));
        let mut s = format!("{{ write = \"{}\", value = {value}", w.registers[r].name);
        // A conflict starts the attempt again: only with nothing held (an acquire
        // of a lock still held is an error) and outside a transaction.
        if !tx && ctx.held.is_empty() && ctx.read.contains(&r) && self.chance(0.3) {
            s.push_str(", cas = true");
            if self.chance(0.5) {
                s.push_str(&format!(", max_retries = {}", self.int(1, 5)));
            }
        }
        s.push_str(" }");
        steps.push(s);
        ctx.last = if w.registers[r].rejects {
            vec!["applied", "rejected"]
        } else {
            vec!["applied"]
        };
    }

    /// A `delay_ms` or a `pause_ms` (`key`).
    fn delay(&mut self, w: &World, g: &Group, ctx: &mut Ctx, steps: &mut Vec<String>, key: &str) {
        let d = self.duration(w, g, ctx, 30);
        steps.push(format!("{{ {key} = {d} }}"));
    }

    /// A crash of all the actors, some by name, a count of them, or each by a chance.
    fn crash(&mut self, w: &World, g: &Group, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let mut s = String::from("{ crash = ");
        match self.below(5) {
            0 => s.push_str("\"all\""),
            1 if !g.actor_names.is_empty() => {
                s.push_str(&format!("[\"{}\"]", self.pick(&g.actor_names).clone()))
            }
            2 if g.count.is_some_and(|c| c > 0) => {
                s.push_str(&format!("{{ count = {} }}", self.int(1, g.count.unwrap())))
            }
            _ => {
                let p = match self.below(3) {
                    0 => "\"p\"".to_string(),
                    1 => "\"p / 2\"".to_string(),
                    _ => self.fraction(0.6),
                };
                if self.chance(0.3) {
                    s.push_str(&format!(
                        "{{ probability = {p}, stream = \"s{}\" }}",
                        self.below(2)
                    ));
                } else {
                    s.push_str(&format!("{{ probability = {p} }}"));
                }
            }
        }
        if self.chance(0.5) {
            s.push_str(&format!(
                ", restart_after_ms = {}",
                self.duration(w, g, ctx, 50)
            ));
        }
        s.push_str(" }");
        steps.push(s);
    }

    /// A put on a queue, with a value and fields now and then.
    fn put(&mut self, w: &World, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let q = &w.queues[self.below(w.queues.len())];
        let mut s = format!("{{ put = \"{}\"", q.name);
        if self.chance(0.7) {
            s.push_str(&format!(", value = {}", self.value(w, ctx, Scope::Step)));
        }
        if !q.fields.is_empty() && self.chance(0.7) {
            let mut fields = Vec::new();
            for f in &q.fields {
                if self.chance(0.7) {
                    fields.push(format!("{f} = {}", self.value(w, ctx, Scope::Step)));
                }
            }
            s.push_str(&format!(", fields = {{ {} }}", fields.join(", ")));
        }
        s.push_str(" }");
        steps.push(s);
        ctx.last = if q.bounded {
            vec!["put", "full"]
        } else {
            vec!["put"]
        };
    }

    /// A take from a queue, with what a timeout does.
    fn take(&mut self, w: &World, g: &Group, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let q = self.below(w.queues.len());
        let (opts, after, _) = self.wait(w, g, ctx, Wait::Take);
        steps.push(format!("{{ take = \"{}\"{opts} }}", w.queues[q].name));
        ctx.last = after;
        if !ctx.taken.contains(&q) {
            ctx.taken.push(q);
        }
    }

    /// An ack of the message the actor took (mostly).
    fn ack(&mut self, w: &World, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let acks: Vec<usize> = (0..w.queues.len()).filter(|&q| w.queues[q].acks).collect();
        let taken: Vec<usize> = acks
            .iter()
            .copied()
            .filter(|q| ctx.taken.contains(q))
            .collect();
        let q = if !taken.is_empty() && self.chance(0.95) {
            *self.pick(&taken)
        } else {
            *self.pick(&acks)
        };
        steps.push(format!("{{ ack = \"{}\" }}", w.queues[q].name));
        ctx.last = vec!["acked", "expired", "not_held"];
    }

    /// An insert, lookup, set or remove on a key set.
    fn keys(&mut self, w: &World, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let k = self.below(w.keys.len());
        let name = &w.keys[k];
        let key = self.key(w, ctx);
        let (s, last): (String, &[&'static str]) = match self.below(4) {
            0 => {
                let value = if self.chance(0.6) {
                    format!(", value = {}", self.value(w, ctx, Scope::Step))
                } else {
                    String::new()
                };
                (
                    format!("{{ insert = \"{name}\", key = {key}{value} }}"),
                    &["inserted", "duplicate"],
                )
            }
            1 => (
                format!("{{ lookup = \"{name}\", key = {key} }}"),
                &["found", "missing"],
            ),
            2 => {
                let value = if ctx.stored.contains(&k) && self.chance(0.5) {
                    format!("\"max(0, {name}) + 1\"")
                } else {
                    self.value(w, ctx, Scope::Step)
                };
                (
                    format!("{{ set = \"{name}\", key = {key}, value = {value} }}"),
                    &["applied"],
                )
            }
            _ => (
                format!("{{ remove = \"{name}\", key = {key} }}"),
                &["removed", "missing"],
            ),
        };
        steps.push(s);
        ctx.last = last.to_vec();
        if !ctx.stored.contains(&k) {
            ctx.stored.push(k);
        }
    }

    /// A transaction of up to 4 steps that take no time (none, when its list is empty).
    fn transaction(&mut self, w: &World, g: &Group, ctx: &mut Ctx, steps: &mut Vec<String>) {
        let mut inner = ctx.clone();
        inner.in_tx = true;
        inner.depth += 1;
        inner.base = inner.held.len();
        let n = self.int(1, 4);
        let body = self.list(w, g, &mut inner, n, false);
        ctx.budget = inner.budget;
        if body.is_empty() {
            // A transaction holds at least one step.
            return;
        }
        ctx.last = inner.last.clone();
        ctx.read = inner.read;
        ctx.taken = inner.taken;
        ctx.stored = inner.stored;
        steps.push(format!("{{ transaction = [{}] }}", body.join(", ")));
    }

    /// A `stop`: it ends every path through this list.
    fn stop(&mut self, ctx: &mut Ctx, steps: &mut Vec<String>) {
        steps.push("{ stop = true }".into());
        ctx.ended = true;
    }

    /// An `if` on an outcome, a comparison or a chance, with its branches.
    fn branch(&mut self, w: &World, g: &Group, ctx: &mut Ctx, steps: &mut Vec<String>) {
        // An outcome `if`'s `then` sees only its outcome, its `else` every other.
        let mut on: Option<&'static str> = None;
        let cond = match self.below(8) {
            0..=2 if !ctx.last.is_empty() => {
                let o = *self.pick(&ctx.last);
                on = Some(o);
                if self.chance(0.3) {
                    format!("{{ outcome = \"{o}\" }}")
                } else {
                    format!("\"{o}\"")
                }
            }
            3 | 4 => {
                let op = *self.pick(&["above", "below", "at_least", "at_most", "equals"]);
                let value = self.expr(w, Some(ctx), Scope::Step, 0);
                format!("{{ value = \"{value}\", {op} = {} }}", self.int(0, 5))
            }
            _ => {
                let p = match self.below(4) {
                    0 => "\"p\"".to_string(),
                    1 => "\"min(1, k / 4)\"".to_string(),
                    _ => self.fraction(1.0),
                };
                if self.chance(0.3) {
                    format!("{{ chance = {p}, stream = \"s{}\" }}", self.below(2))
                } else {
                    format!("{{ chance = {p} }}")
                }
            }
        };
        let (then_last, else_last) = match on {
            Some(o) => (
                vec![o],
                ctx.last.iter().copied().filter(|x| *x != o).collect(),
            ),
            None => (ctx.last.clone(), ctx.last.clone()),
        };
        let arm = |g2: &mut Gen, ctx: &mut Ctx, n: usize, last: &[&'static str]| {
            let mut inner = ctx.clone();
            inner.depth += 1;
            inner.base = inner.held.len();
            inner.last = last.to_vec();
            let list = g2.list(w, g, &mut inner, n, false);
            ctx.budget = inner.budget;
            (list, inner)
        };
        if ctx.depth >= 3 {
            steps.push(format!("{{ if = {cond}, then = [{{ delay_ms = 0 }}] }}"));
            return;
        }
        let n = self.int(1, 3);
        let (then, a) = arm(self, ctx, n, &then_last);
        let (otherwise, b) = if self.chance(0.5) {
            let n = self.int(1, 2);
            let (list, inner) = arm(self, ctx, n, &else_last);
            (Some(list), Some(inner))
        } else {
            (None, None)
        };
        let mut s = format!("{{ if = {cond}, then = [{}]", then.join(", "));
        if let Some(list) = &otherwise {
            s.push_str(&format!(", else = [{}]", list.join(", ")));
        }
        s.push_str(" }");
        steps.push(s);
        let from_then = if a.ended { Vec::new() } else { a.last };
        let from_else = match b {
            Some(b) if b.ended => Vec::new(),
            Some(b) => b.last,
            None => else_last,
        };
        ctx.last = union(&from_then, &from_else);
    }
}
