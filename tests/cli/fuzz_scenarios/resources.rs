//! The resources, by kind: locks, registers, servers, links, queues and key sets, each
//! written into the config and recorded in the world for the steps that use it.

use super::generator::Extreme;
use super::generator::Gen;
use super::world::{Lock, Mode, Queue, Register, Scope, Server, World};

impl Gen {
    /// The config's resources: how many of each kind (an edge case may need one), then
    /// each kind's.
    pub(super) fn resources(&mut self, w: &mut World) -> String {
        let mut out = String::new();
        let count = |g: &mut Gen, p: f64, max: usize| {
            if g.chance(p) { g.int(1, max) } else { 0 }
        };
        let (mut locks, registers, mut servers, links, mut queues, mut keys) = (
            count(self, 0.5, 2),
            count(self, 0.55, 2),
            count(self, 0.35, 2),
            count(self, 0.3, 2),
            count(self, 0.4, 2),
            count(self, 0.4, 2),
        );
        match self.edge {
            Some(Extreme::Unlocks) => locks = locks.max(1),
            Some(Extreme::Crowd) => servers = servers.max(1),
            Some(Extreme::Fields) => queues = queues.max(1),
            Some(Extreme::KeyRange) => keys = keys.max(1),
            _ => {}
        }
        out.push_str(&self.locks(w, locks));
        out.push_str(&self.registers(w, registers));
        out.push_str(&self.servers(w, servers));
        out.push_str(&self.links(w, links));
        out.push_str(&self.queues(w, queues));
        out.push_str(&self.key_sets(w, keys));
        if self.edge == Some(Extreme::Resources) {
            let have = locks + registers + servers + links + queues + keys;
            out.push_str(&self.resources_at_limit(have));
        }
        out
    }

    /// `n` locks, each polled, queued or leased.
    fn locks(&mut self, w: &mut World, n: usize) -> String {
        let mut out = String::new();
        for l in 0..n {
            let name = format!("l{l}");
            out.push_str(&format!(
                "[[resource]]\nname = \"{name}\"\nkind = \"lock\"\n"
            ));
            let mode = *self.pick(&[Mode::Poll, Mode::Poll, Mode::Queue, Mode::Lease]);
            match mode {
                Mode::Poll if self.chance(0.5) => out.push_str("mode = \"poll\"\n"),
                Mode::Queue => out.push_str("mode = \"queue\"\n"),
                Mode::Lease => out.push_str("mode = \"lease\"\n"),
                _ => {}
            }
            if mode != Mode::Queue && self.chance(0.6) {
                let poll = if self.chance(0.01) {
                    "0".to_string()
                } else {
                    self.int(1, 30).to_string()
                };
                out.push_str(&format!("poll_ms = {poll}\n"));
            }
            if mode == Mode::Lease {
                out.push_str(&format!("lease_ms = {}\n", self.int(5, 200)));
            }
            let fencing = self.chance(0.3);
            if fencing {
                out.push_str("fencing = true\n");
            }
            let stale = self.chance(0.15);
            if stale {
                out.push_str("stale_at_start = true\n");
            }
            if l == 0 && self.edge == Some(Extreme::Unlocks) {
                let times: Vec<String> = (0..self.int(9_999, 10_001))
                    .map(|t| t.to_string())
                    .collect();
                out.push_str(&format!("unlock_at_ms = [{}]\n", times.join(", ")));
            } else if (stale && mode != Mode::Lease && self.chance(0.9)) || self.chance(0.1) {
                let mut t = 0;
                let times: Vec<String> = (0..self.int(1, 3))
                    .map(|_| {
                        t += self.int(0, 80);
                        t.to_string()
                    })
                    .collect();
                out.push_str(&format!("unlock_at_ms = [{}]\n", times.join(", ")));
            }
            w.metrics.extend([
                format!("{name}.acquisitions"),
                format!("{name}.max_holders"),
                format!("{name}.held_ms"),
                format!("{name}.mean_wait_ms"),
            ]);
            w.locks.push(Lock {
                name,
                mode,
                fencing,
            });
        }
        out
    }

    /// `n` registers, `instant` when neither reading nor writing takes time.
    fn registers(&mut self, w: &mut World, n: usize) -> String {
        let mut out = String::new();
        for r in 0..n {
            let name = format!("r{r}");
            out.push_str(&format!(
                "[[resource]]\nname = \"{name}\"\nkind = \"register\"\n"
            ));
            if self.chance(0.4) {
                out.push_str(&format!("initial = {}\n", self.int(0, 10)));
            }
            let mut instant = true;
            for key in ["read_ms", "write_ms"] {
                if self.chance(0.5) {
                    let v = self.setting(w, 20, Scope::Params);
                    instant &= v == "0";
                    out.push_str(&format!("{key} = {v}\n"));
                }
            }
            let mut rejects = false;
            if !w.locks.is_empty() && self.chance(0.3) {
                let lock = &w.locks[self.below(w.locks.len())];
                rejects = lock.fencing;
                out.push_str(&format!("fenced_by = \"{}\"\n", lock.name));
            }
            w.metrics
                .extend([format!("{name}.value"), format!("{name}.writes")]);
            w.registers.push(Register {
                name,
                instant,
                rejects,
            });
        }
        out
    }

    /// `n` servers, with their service times, instances and down windows.
    fn servers(&mut self, w: &mut World, n: usize) -> String {
        let mut out = String::new();
        for s in 0..n {
            let name = format!("s{s}");
            out.push_str(&format!(
                "[[resource]]\nname = \"{name}\"\nkind = \"server\"\n"
            ));
            let kind = *self.pick(&["fixed", "exponential", "uniform", "lognormal", "gamma"]);
            // A random service needs a mean above 0.
            let service = if kind == "fixed" {
                self.setting(w, 20, Scope::Params)
            } else {
                self.int(1, 20).to_string()
            };
            out.push_str(&format!("service_ms = {service}\n"));
            if kind != "fixed" || self.chance(0.3) {
                out.push_str(&format!("service = \"{kind}\"\n"));
            }
            // The default cv, 1, is past a uniform's 1/√3.
            if kind == "uniform" || (matches!(kind, "lognormal" | "gamma") && self.chance(0.6)) {
                let max = if kind == "uniform" { 0.57 } else { 2.0 };
                out.push_str(&format!("service_cv = {}\n", self.fraction(max)));
            }
            if s == 0 && self.edge == Some(Extreme::Crowd) {
                let instances = self.pick(&[100_000, 100_001]).to_owned();
                out.push_str(&format!("instances = {instances}\n"));
            } else if self.chance(0.4) {
                let instances = match self.below(3) {
                    0 => "\"n + 1\"".to_string(),
                    _ => self.int(1, 3).to_string(),
                };
                out.push_str(&format!("instances = {instances}\n"));
            }
            let mut fails = false;
            if self.chance(0.35) {
                let mut t = 0;
                let windows: Vec<String> = (0..self.int(1, 3))
                    .map(|_| {
                        let from = t + self.int(0, 50);
                        let to = from + self.int(1, 60);
                        t = to;
                        format!("[{from}, {to}]")
                    })
                    .collect();
                out.push_str(&format!("down = [{}]\n", windows.join(", ")));
                if self.chance(0.5) {
                    out.push_str("when_down = \"fail\"\n");
                    fails = true;
                } else if self.chance(0.3) {
                    out.push_str("when_down = \"wait\"\n");
                }
            }
            w.metrics.extend([
                format!("{name}.requests"),
                format!("{name}.mean_wait_ms"),
                format!("{name}.busy_fraction"),
            ]);
            w.servers.push(Server { name, fails });
        }
        out
    }

    /// `n` links, lossy or duplicating now and then.
    fn links(&mut self, w: &mut World, n: usize) -> String {
        let mut out = String::new();
        for k in 0..n {
            let name = format!("n{k}");
            out.push_str(&format!(
                "[[resource]]\nname = \"{name}\"\nkind = \"link\"\n"
            ));
            out.push_str(&format!(
                "rtt_ms = {}\n",
                self.setting(w, 40, Scope::Params)
            ));
            if self.chance(0.3) {
                out.push_str(&format!("loss = {}\n", self.fraction(0.5)));
            }
            if self.chance(0.25) {
                out.push_str(&format!("duplicate = {}\n", self.fraction(0.5)));
            }
            w.metrics.push(format!("{name}.crossings"));
            w.links.push(name);
        }
        out
    }

    /// `n` queues, with acks, a capacity, fields or a link now and then.
    fn queues(&mut self, w: &mut World, n: usize) -> String {
        let mut out = String::new();
        for q in 0..n {
            let name = format!("q{q}");
            out.push_str(&format!(
                "[[resource]]\nname = \"{name}\"\nkind = \"queue\"\n"
            ));
            let acks = self.chance(0.45);
            if acks {
                out.push_str(&format!(
                    "visibility_ms = {}\n",
                    self.setting(w, 100, Scope::Params)
                ));
            }
            let mut bounded = false;
            if self.chance(0.25) {
                let capacity = self.int(0, 5);
                bounded = capacity > 0;
                out.push_str(&format!("capacity = {capacity}\n"));
            }
            let fields: Vec<String> = if q == 0 && self.edge == Some(Extreme::Fields) {
                (0..self.int(8, 9)).map(|f| format!("f{f}")).collect()
            } else if self.chance(0.3) {
                (0..self.int(1, 2)).map(|f| format!("f{f}")).collect()
            } else {
                Vec::new()
            };
            if !fields.is_empty() {
                let quoted: Vec<String> = fields.iter().map(|f| format!("\"{f}\"")).collect();
                out.push_str(&format!("fields = [{}]\n", quoted.join(", ")));
            }
            if !w.links.is_empty() && self.chance(0.3) {
                out.push_str(&format!("link = \"{}\"\n", self.pick(&w.links).clone()));
            }
            w.metrics.extend([
                format!("{name}.put"),
                format!("{name}.taken"),
                format!("{name}.left"),
            ]);
            w.queues.push(Queue {
                name,
                acks,
                fields,
                bounded,
            });
        }
        out
    }

    /// `n` key sets, empty or filled by pairs, keys or a range.
    fn key_sets(&mut self, w: &mut World, n: usize) -> String {
        let mut out = String::new();
        for k in 0..n {
            let name = format!("k{k}");
            out.push_str(&format!(
                "[[resource]]\nname = \"{name}\"\nkind = \"keys\"\n"
            ));
            match self.below(4) {
                _ if k == 0 && self.edge == Some(Extreme::KeyRange) => {
                    let count = self.int(9_999_999, 10_000_001);
                    out.push_str(&format!(
                        "initial = {{ from = 0, count = {count}, value = 1 }}\n"
                    ));
                }
                0 => {
                    let pairs: Vec<String> = (0..self.int(1, 4))
                        .map(|j| format!("[{}, {}]", j * 2 + self.below(2), self.int(0, 9)))
                        .collect();
                    out.push_str(&format!("initial = [{}]\n", pairs.join(", ")));
                }
                1 => {
                    let keys: Vec<String> =
                        (0..self.int(0, 4)).map(|j| (j * 3).to_string()).collect();
                    out.push_str(&format!("initial = [{}]\n", keys.join(", ")));
                }
                2 => {
                    let count = if self.chance(0.5) {
                        self.int(0, 20).to_string()
                    } else {
                        "\"n\"".to_string()
                    };
                    out.push_str(&format!(
                        "initial = {{ from = {}, count = {count}, value = {} }}\n",
                        self.int(0, 5),
                        self.int(0, 3)
                    ));
                }
                _ => {}
            }
            w.metrics
                .extend([format!("{name}.size"), format!("{name}.total")]);
            w.keys.push(name);
        }
        out
    }
}
