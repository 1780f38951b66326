//! Numbers: expressions of the names in scope, resources' and groups' settings, steps'
//! durations, stored values and keys.

use super::generator::Gen;
use super::world::{Ctx, Group, Scope, World};

impl Gen {
    /// An expression's atom in `scope`: a literal, or a name in scope (most behind `abs`).
    pub(super) fn atom(&mut self, w: &World, ctx: Option<&Ctx>, scope: Scope) -> String {
        let mut atoms: Vec<String> = ["0", "1", "2", "3", "5", "10", "0.5", "1.5"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        atoms.extend(w.ints.iter().cloned());
        atoms.extend(w.nums.iter().cloned());
        atoms.extend(w.fracs.iter().cloned());
        if scope != Scope::Params {
            atoms.push("i".into());
        }
        if matches!(scope, Scope::Step | Scope::Write(_)) {
            atoms.extend(
                ["k", "attempt", "min(now, 20)"]
                    .iter()
                    .map(|s| s.to_string()),
            );
            if let Some(ctx) = ctx {
                for &r in &ctx.read {
                    atoms.push(format!("abs({})", w.registers[r].name));
                }
                if self.chance(0.3) {
                    for &q in &ctx.taken {
                        let queue = &w.queues[q];
                        atoms.push(format!("{}.id", queue.name));
                        atoms.push(format!("{}.deliveries", queue.name));
                        atoms.push(format!("abs({})", queue.name));
                        for f in &queue.fields {
                            atoms.push(format!("abs({}.{f})", queue.name));
                        }
                    }
                }
                if self.chance(0.2) {
                    for &k in &ctx.stored {
                        atoms.push(format!("abs({})", w.keys[k]));
                    }
                }
            }
        }
        if let Scope::Write(r) = scope
            && ctx.is_some_and(|c| c.read.contains(&r))
        {
            atoms.push("read".into());
            atoms.push("read".into());
        }
        self.pick(&atoms).clone()
    }

    /// A small non-negative expression in `scope`.
    pub(super) fn expr(
        &mut self,
        w: &World,
        ctx: Option<&Ctx>,
        scope: Scope,
        depth: usize,
    ) -> String {
        if depth >= 2 || self.chance(0.45) {
            return self.atom(w, ctx, scope);
        }
        let a = self.expr(w, ctx, scope, depth + 1);
        let b = self.expr(w, ctx, scope, depth + 1);
        match self.below(7) {
            0 | 1 => format!("{a} + {b}"),
            2 => format!("{a} * {b}"),
            3 => format!("max({a}, {b})"),
            4 => format!("min({a}, {b})"),
            5 => format!("abs({a} - {b})"),
            _ => format!("({a}) / 2"),
        }
    }

    /// A number of a resource or a group (parameters only): a literal up to `max`, an
    /// expression, or a table by the string parameter.
    pub(super) fn setting(&mut self, w: &World, max: usize, scope: Scope) -> String {
        if self.at_edge() {
            return self.extreme();
        }
        match self.below(10) {
            0..=5 => self.int(0, max).to_string(),
            6 if !w.nums.is_empty() => format!("\"{}\"", self.pick(&w.nums).clone()),
            7 => format!("\"{}\"", self.expr(w, None, scope, 1)),
            8 if w.mode.is_some() => self.by_table(w, |g| g.int(0, max).to_string()),
            _ => format!("{}.5", self.int(0, max.saturating_sub(1))),
        }
    }

    /// `{ by = "mode", a = …, b = … }`, every value of the string parameter given.
    pub(super) fn by_table(
        &mut self,
        w: &World,
        mut value: impl FnMut(&mut Gen) -> String,
    ) -> String {
        let (name, values) = w.mode.as_ref().expect("a string parameter");
        let mut out = format!("{{ by = \"{name}\"");
        for v in values {
            out.push_str(&format!(", {v} = {}", value(self)));
        }
        out.push_str(" }");
        out
    }

    /// A step's duration: a literal (0 often), an expression of the step's names, a list
    /// per actor, a parameter or a table.
    pub(super) fn duration(&mut self, w: &World, g: &Group, ctx: &Ctx, max: usize) -> String {
        if self.at_edge() {
            return self.extreme();
        }
        match self.below(20) {
            0..=2 => "0".into(),
            3..=9 => self.int(1, max).to_string(),
            10 => format!("{}.25", self.int(0, max)),
            11..=14 => format!("\"{}\"", self.expr(w, Some(ctx), Scope::Step, 0)),
            15 | 16 if g.count.is_some_and(|c| (1..=4).contains(&c)) => {
                let items: Vec<String> = (0..g.count.unwrap())
                    .map(|_| self.int(0, max).to_string())
                    .collect();
                format!("[{}]", items.join(", "))
            }
            17 if !w.nums.is_empty() => format!("\"{}\"", self.pick(&w.nums).clone()),
            18 if w.mode.is_some() => self.by_table(w, |g| g.int(0, max).to_string()),
            _ => self.int(0, max).to_string(),
        }
    }

    /// A value to store: any expression of the step's names (a write's may use `read`).
    pub(super) fn value(&mut self, w: &World, ctx: &Ctx, scope: Scope) -> String {
        match self.below(6) {
            0 => self.int(0, 9).to_string(),
            1 => "\"k\"".into(),
            2 if matches!(scope, Scope::Write(r) if ctx.read.contains(&r)) => "\"read + 1\"".into(),
            _ => format!("\"{}\"", self.expr(w, Some(ctx), scope, 0)),
        }
    }

    /// A key: small whole numbers, `k`, `i`, a message's id.
    pub(super) fn key(&mut self, w: &World, ctx: &Ctx) -> String {
        match self.below(7) {
            0..=2 => self.int(0, 5).to_string(),
            3 => "\"k\"".into(),
            4 => "\"i\"".into(),
            5 if !ctx.taken.is_empty() => {
                format!("\"{}.id\"", w.queues[*self.pick(&ctx.taken)].name)
            }
            _ => "\"i * 10 + k\"".into(),
        }
    }
}
