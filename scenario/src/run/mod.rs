//! The third stage, the interpreter: one run of a point — the state built, the starts
//! scheduled, the events run on the engine, the invariants checked and the output read off.

pub(crate) mod access;
mod build;
pub(crate) mod control;
pub(crate) mod cycle;
mod decide;
pub(crate) mod deliver;
mod fork;
pub(crate) mod handle;
mod jobs;
mod keys;
pub(crate) mod lanes;
pub(crate) mod locks;
mod numbers;
pub(crate) mod output;
pub(crate) mod recover;
mod relabel;
pub(crate) mod request;
mod resources;
mod size;
pub(crate) mod state;
pub(crate) mod steer;
pub(crate) mod stuck;
pub(crate) mod watch;

use coordsim_model::{ModelError, ParamError, RunContext, RunOutput};
use sim_core::{SimError, run as run_queue};

use crate::point::Point;
use crate::run::state::Sim;
use crate::syntax::metrics::Metric;

/// The error a run's events ended with, if any: said where the step that found it is
/// written, when a step did.
pub(crate) fn failure(sim: &mut Sim<'_>, ran: Result<(), SimError>) -> Result<(), ModelError> {
    let failed = match ran {
        Err(SimError::Model(_)) => sim.error.take(),
        Err(message) => return Err(message.into()),
        Ok(()) => sim.error.take(),
    };
    let Some(message) = failed else {
        return Ok(());
    };
    let point = sim.point;
    let written = (sim.error_at)
        .and_then(|(group, step)| point.groups.get(group as usize)?.paths.get(step as usize));
    Err(match written {
        Some(path) => ModelError::Param(ParamError::new(path, message)),
        None => ModelError::Sim(SimError::Model(message)),
    })
}

/// Runs `point` once: a cell for each of `fill`, and the distributions named `distributions`.
pub(crate) fn run(
    point: &Point,
    fill: &[Metric],
    distributions: &[&'static str],
    context: &RunContext,
) -> Result<RunOutput, ModelError> {
    if point.forever() {
        // A loop without end has no end for a run to reach: its row is empty (every
        // metric), and only an exploration follows it, round its cycles.
        return Ok(RunOutput {
            metrics: vec![coordsim_model::Cell::Empty; fill.len()],
            entities: Vec::new(),
            lanes: Default::default(),
            distributions: distributions
                .iter()
                .map(|name| (*name, Vec::new()))
                .collect(),
        });
    }
    let mut sim = Sim::new(point, context)?;
    let mut events = context.queue(point.actors as usize + 16);
    sim.schedule_starts(&mut events);
    if !point.watches.is_empty() {
        // The start is an instant too: a condition may hold before any event.
        sim.watch(0);
    }
    let ran = if sim.lanes.as_ref().is_some_and(|l| l.resources.is_some()) {
        // The resources as the run starts, then after every event.
        sim.sample_resources();
        run_queue(&mut events, &mut resources::Recorded(&mut sim)).map(|_| ())
    } else if !point.watches.is_empty() {
        run_queue(&mut events, &mut watch::Watching(&mut sim)).map(|_| ())
    } else {
        run_queue(&mut events, &mut sim).map(|_| ())
    };
    failure(&mut sim, ran)?;
    // The last event's time, or a cancelled one's, had it run and done nothing (a timer
    // that finds nothing left to do is the last event of a run: docs/scenarios.md).
    sim.end = events.now().max(events.cancelled_until());
    sim.settle_direct();
    sim.check(context.seed())?;
    Ok(sim.output(fill, distributions, context))
}
