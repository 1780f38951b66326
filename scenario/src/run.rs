//! One run of a point: the state built, the starts scheduled, the events run on the engine,
//! the invariants checked and the output read off.

use coordsim_model::{ModelError, RunContext, RunOutput};
use sim_core::{SimError, run as run_queue};

use crate::metrics::Metric;
use crate::point::Point;
use crate::sim::Sim;

/// Runs `p` once: a cell for each of `fill`, and the distributions named `distributions`.
pub fn run(
    p: &Point,
    fill: &[Metric],
    distributions: &[&'static str],
    ctx: &RunContext,
) -> Result<RunOutput, ModelError> {
    let mut sim = Sim::new(p, ctx)?;
    let mut queue = ctx.queue(p.actors as usize + 16);
    sim.schedule_starts(&mut queue);
    run_queue(&mut queue, &mut sim)?;
    sim.end = queue.now();
    sim.settle_direct();
    if let Some(e) = sim.error.take() {
        return Err(ModelError::Sim(SimError::Model(e)));
    }
    sim.check(ctx.seed())?;
    Ok(sim.output(fill, distributions, ctx))
}
