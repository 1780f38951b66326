//! The composer: `model = "scenario"` in a config, its sections and its starter.

use std::sync::Arc;

use coordsim_model::{ComposeError, ComposeInput, Composer, ModelDef};

use crate::def::{SUMMARY, ScenarioDef};

/// The composer configs name with `model = "scenario"`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scenario;

impl Composer for Scenario {
    fn name(&self) -> &'static str {
        "scenario"
    }
    fn summary(&self) -> &'static str {
        SUMMARY
    }
    fn sections(&self) -> &'static [&'static str] {
        &["resource", "actor", "watch"]
    }
    fn guide(&self) -> &'static str {
        "docs/scenarios.md"
    }
    fn starter(&self) -> &'static str {
        STARTER
    }
    fn compose(&self, input: &ComposeInput) -> Result<Arc<dyn ModelDef>, ComposeError> {
        Ok(Arc::new(ScenarioDef::new(input)?))
    }
}

/// A scenario that runs as it is: 8 clients incrementing one counter with no guard.
const STARTER: &str = r#"# A scenario: 8 clients increment one shared counter by read → work → write, with no guard.
# See docs/scenarios.md for every resource, step and metric.
model = "scenario"
[params]
clients = 8

[[resource]]
name = "counter"
kind = "register"
read_ms = 20
write_ms = 64

[[actor]]
name = "client"
count = "clients"
start_ms = "3 * i"
repeat = 50
steps = [{ read = "counter" }, { delay_ms = 1 }, { write = "counter", value = "read + 1" }]

# Claims `coordsim check` verifies, each derived by hand.
# Every repetition writes once: clients × 50 writes.
[[claim]]
name = "every repetition writes once"
metric = "counter.writes"
expect = "clients * 50"

# Nobody waits at a register: each repetition takes its read, its work and its write.
[[claim]]
name = "a repetition takes 20 + 1 + 64 ms"
metric = "client.mean_response_ms"
expect = 85
"#;
