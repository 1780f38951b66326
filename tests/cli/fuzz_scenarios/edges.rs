//! Edge cases: numbers at their extremes, and the language's limits (docs/scenarios.md,
//! "Limits") met or passed by one (which edge a case has is drawn with the case, in
//! `generator`).

use super::generator::{Extreme, Gen};

impl Gen {
    /// A number at an edge: 0, tiny, huge, past 2^32 or 2^53, negative, not finite.
    pub(super) fn extreme(&mut self) -> String {
        self.pick(&[
            "0",
            "-1",
            "-0.0",
            "1e-9",
            "0.000001",
            "1e6",
            "1e9",
            "1e15",
            "4294967296",
            "9007199254740993",
            "\"1 / 0\"",
            "\"0 / 0\"",
            "\"10 ^ 400\"",
            "\"-(1e9)\"",
        ])
        .to_string()
    }

    /// Whether this number is an extreme one (an edge case's, now and then).
    pub(super) fn at_edge(&mut self) -> bool {
        self.edge.is_some() && self.chance(0.2)
    }

    /// The first group's steps past a limit: a branch nested 7 to 10 deep, or a list of
    /// 250 to 260 steps.
    pub(super) fn steps_at_limit(&mut self, steps: &mut Vec<String>) {
        match self.edge {
            Some(Extreme::Nesting) => {
                let mut nested = "{ delay_ms = 1 }".to_string();
                for _ in 0..self.int(7, 10) {
                    nested = format!("{{ if = {{ chance = 0.5 }}, then = [{nested}] }}");
                }
                steps.push(nested);
            }
            Some(Extreme::LongList) => {
                let n = self.int(250, 260).saturating_sub(steps.len());
                steps.extend((0..n).map(|_| "{ delay_ms = 0 }".to_string()));
            }
            _ => {}
        }
    }

    /// Registers enough to bring the config's `have` resources to 62 to 66.
    pub(super) fn resources_at_limit(&mut self, have: usize) -> String {
        let mut out = String::new();
        for x in have..self.int(62, 66).max(have) {
            out.push_str(&format!(
                "[[resource]]\nname = \"x{x}\"\nkind = \"register\"\n"
            ));
        }
        out
    }
}
