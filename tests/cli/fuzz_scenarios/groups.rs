//! The actor groups: a group's name, its actors, when they start and how often they
//! repeat, and its steps (a burst group's all instant).

use super::generator::Extreme;
use super::generator::Gen;
use super::world::{Ctx, Group, Scope, World};

impl Gen {
    /// Group `index` (`burst`: one actor that repeats very often, its steps all instant).
    pub(super) fn group(&mut self, w: &mut World, index: usize, burst: bool) -> String {
        let name = self.group_name(index);
        let mut out = format!("[[actor]]\nname = \"{name}\"\n");
        let g = self.actors(w, &name, index, burst, &mut out);
        self.start(w, &g, &mut out);
        self.repetitions(w, burst, &mut out);
        let mut ctx = Ctx::start();
        let mut steps = if burst {
            self.burst_steps(w, &mut ctx)
        } else {
            let n = self.int(1, 6);
            self.list(w, &g, &mut ctx, n, true)
        };
        if index == 0 {
            self.steps_at_limit(&mut steps);
        }
        out.push_str("steps = [\n");
        for s in &steps {
            out.push_str(&format!("  {s},\n"));
        }
        out.push_str("]\n");
        w.metrics.extend([
            format!("{name}.started"),
            format!("{name}.completed"),
            format!("{name}.actors"),
        ]);
        out
    }

    /// `g{index}`, or (an edge case's first group) a name like an automatic stream's
    /// prefix.
    fn group_name(&mut self, index: usize) -> String {
        if index == 0 && self.edge == Some(Extreme::StreamName) {
            self.pick(&[
                "crash",
                "arrivals",
                "jitter",
                "chance",
                "loss",
                "duplicate",
                "service",
                "g0",
            ])
            .to_string()
        } else {
            format!("g{index}")
        }
    }

    /// The group's `count` or `names`, written to `out`, and what the steps may know of
    /// its actors.
    fn actors(
        &mut self,
        w: &World,
        name: &str,
        index: usize,
        burst: bool,
        out: &mut String,
    ) -> Group {
        let mut g = Group {
            count: None,
            actor_names: Vec::new(),
        };
        match self.below(10) {
            _ if burst => g.count = Some(1),
            _ if index == 0 && self.edge == Some(Extreme::Crowd) && self.chance(0.5) => {
                let c = self.pick(&[1000, 1001, 100_000]).to_owned();
                out.push_str(&format!("count = {c}\n"));
                g.count = Some(c);
            }
            0 | 1 => {}
            2 => {
                let names: Vec<String> = (0..self.int(1, 3))
                    .map(|j| format!("{name}_a{j}"))
                    .collect();
                let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
                out.push_str(&format!("names = [{}]\n", quoted.join(", ")));
                g.count = Some(names.len());
                g.actor_names = names;
            }
            3 => out.push_str("count = \"n\"\n"),
            4 if w.mode.is_some() => {
                let table = self.by_table(w, |g| g.int(0, 3).to_string());
                out.push_str(&format!("count = {table}\n"));
            }
            5 if self.chance(0.1) => {
                out.push_str("count = 0\n");
                g.count = Some(0);
            }
            _ => {
                let c = self.int(1, 4);
                out.push_str(&format!("count = {c}\n"));
                g.count = Some(c);
            }
        }
        if g.count.is_none() && !out.contains("count") && g.actor_names.is_empty() {
            g.count = Some(1);
        }
        if g.actor_names.is_empty() {
            match g.count {
                Some(1) => g.actor_names.push(name.to_string()),
                Some(c) => g.actor_names = (0..c).map(|j| format!("{name}-{j}")).collect(),
                None => {}
            }
        }
        g
    }

    /// The group's `start_ms`, sometimes.
    fn start(&mut self, w: &World, g: &Group, out: &mut String) {
        match self.below(6) {
            0 => out.push_str(&format!("start_ms = {}\n", self.int(0, 50))),
            1 => out.push_str(&format!("start_ms = \"{} * i\"\n", self.int(0, 10))),
            2 if g.count.is_some_and(|c| (1..=4).contains(&c)) => {
                let starts: Vec<String> = (0..g.count.unwrap())
                    .map(|_| self.int(0, 40).to_string())
                    .collect();
                out.push_str(&format!("start_ms = [{}]\n", starts.join(", ")));
            }
            3 => out.push_str(&format!(
                "start_ms = \"{}\"\n",
                self.expr(w, None, Scope::Actor, 0)
            )),
            _ => {}
        }
    }

    /// The group's `repeat`, and its `every_ms` (with its arrivals) or `spread_ms`,
    /// sometimes.
    fn repetitions(&mut self, w: &World, burst: bool, out: &mut String) {
        let repeat = if burst {
            *self.pick(&[20_000, 20_000, 5_000, 100_000])
        } else {
            self.int(1, 5)
        };
        if burst || self.chance(0.8) {
            out.push_str(&format!("repeat = {repeat}\n"));
        } else {
            out.push_str("repeat = \"n + 1\"\n");
        }
        match self.below(10) {
            0 | 1 => {
                let random = !burst && self.chance(0.3);
                let every = if random {
                    self.int(1, 60).to_string()
                } else if burst || self.chance(0.1) {
                    "0".to_string()
                } else {
                    self.setting(w, 60, Scope::Params)
                };
                out.push_str(&format!("every_ms = {every}\n"));
                if random {
                    let arrivals =
                        *self.pick(&["schedule", "poisson", "uniform", "lognormal", "gamma"]);
                    out.push_str(&format!("arrivals = \"{arrivals}\"\n"));
                    if arrivals == "uniform"
                        || (matches!(arrivals, "lognormal" | "gamma") && self.chance(0.5))
                    {
                        let max = if arrivals == "uniform" { 0.57 } else { 2.0 };
                        out.push_str(&format!("every_cv = {}\n", self.fraction(max)));
                    }
                }
            }
            2 => out.push_str(&format!(
                "spread_ms = {}\n",
                self.setting(w, 200, Scope::Params)
            )),
            _ => {}
        }
    }

    /// Steps that all finish at their instant, for a group of very many repetitions.
    pub(super) fn burst_steps(&mut self, w: &World, ctx: &mut Ctx) -> Vec<String> {
        let mut steps = Vec::new();
        for _ in 0..self.int(1, 3) {
            let instant: Vec<usize> = (0..w.registers.len())
                .filter(|&r| w.registers[r].instant)
                .collect();
            match self.below(5) {
                0 if !instant.is_empty() => {
                    let r = *self.pick(&instant);
                    let name = &w.registers[r].name;
                    steps.push(format!("{{ read = \"{name}\" }}"));
                    steps.push(format!("{{ write = \"{name}\", value = \"read + 1\" }}"));
                    ctx.read.push(r);
                }
                1 if !w.keys.is_empty() => {
                    let k = self.pick(&w.keys).clone();
                    let op = *self.pick(&["insert", "lookup", "remove"]);
                    steps.push(format!("{{ {op} = \"{k}\", key = \"k\" }}"));
                }
                2 if !w.queues.is_empty() => {
                    steps.push(format!(
                        "{{ put = \"{}\", value = \"k\" }}",
                        w.queues[self.below(w.queues.len())].name
                    ));
                }
                3 => steps.push("{ if = { chance = 0.5 }, then = [{ delay_ms = 0 }] }".into()),
                _ => steps.push("{ delay_ms = 0 }".into()),
            }
        }
        steps
    }
}
