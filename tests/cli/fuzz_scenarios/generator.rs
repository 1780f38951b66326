//! The generator: a case's random numbers, their shorthands, and the config's frame (its
//! head, parameters and sweep, its groups, and its metrics, claims and chart); the
//! resources, groups and steps are written by the files named for them.

use super::world::World;
use crate::fuzz::Mix;

/// A case's random numbers, from its index alone: a failing case replays by its index
/// (`COORDSIM_FUZZ_SCENARIOS_FROM`).
fn case_rng(index: usize) -> Mix {
    let mut seed = Mix(0x5CE4_A210_0000_0000 ^ index as u64);
    Mix(seed.next())
}

/// One generated config: case `index` of the campaign.
pub(super) fn scenario_case(index: usize) -> String {
    let mut rng = case_rng(index);
    let edge = draw_edge(&mut rng);
    Gen { rng, edge }.config()
}

/// The generator: the random numbers and a few shorthands.
pub(super) struct Gen {
    rng: Mix,
    /// An edge case: numbers are extreme now and then, and one of the language's limits
    /// is met or passed by one (`Extreme`).
    pub(super) edge: Option<Extreme>,
}

impl Gen {
    pub(super) fn below(&mut self, n: usize) -> usize {
        self.rng.below(n)
    }
    pub(super) fn chance(&mut self, p: f64) -> bool {
        (self.rng.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    pub(super) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.below(items.len())]
    }
    pub(super) fn int(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.rng.below(hi - lo + 1)
    }
    /// A fraction in [0, 1), to two places.
    pub(super) fn fraction(&mut self, max: f64) -> String {
        let f = self.below(100) as f64 / 100.0 * max;
        format!("{}", (f * 100.0).round() / 100.0)
    }

    // ---- the config ---------------------------------------------------------------------

    fn config(&mut self) -> String {
        let mut w = World::default();
        let mut head = String::from("model = \"scenario\"\n");
        if self.chance(0.3) {
            head.push_str(&format!("seed = {}\n", self.below(1000)));
        }
        if self.chance(0.15) {
            head.push_str("replications = 2\n");
        }
        let (params, sweep) = self.params(&mut w);
        let mut out = head;
        out.push_str("[params]\n");
        out.push_str(&params);
        if !sweep.is_empty() {
            out.push_str("[sweep]\n");
            out.push_str(&sweep);
        }
        out.push_str(&self.resources(&mut w));
        let groups = if self.edge == Some(Extreme::Groups) {
            self.int(63, 66)
        } else if self.chance(0.15) {
            1
        } else {
            self.int(1, 3)
        };
        let burst = self.chance(0.06);
        for g in 0..groups {
            out.push_str(&self.group(&mut w, g, burst && g == 0));
        }
        out.push_str(&self.extras(&w));
        out
    }

    /// The parameters' and the sweep's lines: `n`, `d`, `p`, maybe `mode` and `tie_order`,
    /// one of them (maybe) swept.
    fn params(&mut self, w: &mut World) -> (String, String) {
        let mut params = String::new();
        let mut sweep = String::new();
        let swept = self.below(8);
        let n = self.int(0, 3);
        if swept == 0 {
            sweep.push_str(&format!("n = [{}, {}]\n", n, n + 1));
        } else {
            params.push_str(&format!("n = {n}\n"));
        }
        w.ints.push("n".into());
        if swept == 1 {
            sweep.push_str("d = { from = 0, to = 10, step = 5 }\n");
        } else {
            params.push_str(&format!(
                "d = {}\n",
                self.pick(&["0", "1", "2.5", "7", "20"])
            ));
        }
        w.nums.push("d".into());
        if swept == 2 {
            sweep.push_str("p = [0, 0.5]\n");
        } else {
            params.push_str(&format!("p = {}\n", self.fraction(1.0)));
        }
        w.fracs.push("p".into());
        if self.chance(0.35) {
            let values = vec!["a".to_string(), "b".to_string()];
            if swept == 3 {
                sweep.push_str("mode = [\"a\", \"b\"]\n");
            } else {
                params.push_str(&format!("mode = \"{}\"\n", self.pick(&values)));
            }
            w.mode = Some(("mode".into(), values));
        }
        if swept == 4 {
            let orders = ["fifo", "reads_first", "writes_first", "program_order"];
            let a = self.below(4);
            let b = (a + 1 + self.below(3)) % 4;
            sweep.push_str(&format!(
                "tie_order = [\"{}\", \"{}\"]\n",
                orders[a], orders[b]
            ));
        } else if self.chance(0.2) {
            params.push_str(&format!(
                "tie_order = \"{}\"\n",
                self.pick(&["fifo", "reads_first", "writes_first", "program_order"])
            ));
        }
        (params, sweep)
    }

    /// `[[metric]]`s, claims and a timeline chart, sometimes.
    fn extras(&mut self, w: &World) -> String {
        let mut out = String::new();
        let mut names: Vec<String> = vec![
            "completed".into(),
            "makespan_ms".into(),
            "mean_response_ms".into(),
        ];
        names.extend(w.metrics.iter().cloned());
        let metrics = if self.chance(0.4) { self.int(1, 2) } else { 0 };
        for m in 0..metrics {
            let a = self.pick(&names).clone();
            let b = self.pick(&names).clone();
            let expr = match self.below(4) {
                0 => format!("{a} + {b}"),
                1 => format!("{a} / max(1, {b})"),
                2 => format!("{a} * n"),
                _ => format!("{a} - d"),
            };
            out.push_str(&format!(
                "[[metric]]\nname = \"m{m}\"\nexpr = \"{expr}\"\nmeaning = \"a fuzzed figure\"\n"
            ));
            names.push(format!("m{m}"));
        }
        if self.chance(0.3) {
            let metric = self.pick(&names).clone();
            out.push_str(&format!(
                "[[claim]]\nname = \"c\"\nmetric = \"{metric}\"\nexpect = {}\n",
                self.int(0, 5)
            ));
        }
        if self.chance(0.2) {
            out.push_str("[[chart]]\nname = \"timeline\"\nkind = \"timeline\"\n");
        }
        out
    }
}

/// A limit of the language (docs/scenarios.md, "Limits") met, or passed by one.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Extreme {
    /// Numbers only: no limit.
    Numbers,
    /// Branches nested 7 to 10 deep (8 is the limit).
    Nesting,
    /// A list of 250 to 260 steps (256 is the limit).
    LongList,
    /// 62 to 66 resources (64 is the limit).
    Resources,
    /// A key range of about 10,000,000 keys (the limit), changed by a set.
    KeyRange,
    /// About 10,000 unlock times on one lock (the limit).
    Unlocks,
    /// 8 or 9 fields a message (8 is the limit).
    Fields,
    /// 1,000 actors in one group, or 100,000 server instances (or one more).
    Crowd,
    /// `max_attempts` of 1,000 or 1,001.
    Attempts,
    /// A group named like an automatic stream's prefix, naming a stream.
    StreamName,
    /// 63 to 66 groups (64 is the limit).
    Groups,
}

/// A case's edge, drawn first from its random numbers: about one case in eight has one.
pub(super) fn draw_edge(rng: &mut Mix) -> Option<Extreme> {
    (rng.below(100) < 12).then(|| {
        [
            Extreme::Numbers,
            Extreme::Numbers,
            Extreme::Numbers,
            Extreme::Nesting,
            Extreme::LongList,
            Extreme::Resources,
            Extreme::KeyRange,
            Extreme::Unlocks,
            Extreme::Fields,
            Extreme::Crowd,
            Extreme::Attempts,
            Extreme::StreamName,
            Extreme::Groups,
        ][rng.below(13)]
    })
}
