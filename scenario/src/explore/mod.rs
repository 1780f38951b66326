//! The fourth stage, the explorer: a point run through every execution its semantics
//! allow, instead of the one a run takes.
//!
//! What branches: at each instant, the next event may be any owner's first due event
//! (an actor's, a server's, a lock's, a queue's: `run::steer::Sim::owner`), an owner's own
//! events keeping their order; each shared step of an actor (a read, a write, an acquire,
//! a request, a put, a take…) is an action of its own, so other actors' actions at the
//! same instant may come between two of them; and each random draw that is a choice (a
//! `chance`, a crash's probability, a link's loss or duplication) goes both ways, faults
//! within a budget. What does not branch: time. A delay, a timeout, a lease, a backoff
//! happen when they happen; only what is truly undetermined is a choice.
//!
//! How: a breadth-first search over the run's states (`search`), two executions that
//! reach the same state (by fingerprint) explored on from it once; a count that decides
//! nothing the run does next (a register's lost updates) carried on the transitions, not
//! in the state; the executions, each state's counts and each outcome's probability
//! counted over the state graph afterwards (`count`); each distinct
//! outcome's shortest execution replayed with its timeline and described step by step
//! (`trace`).

mod budget;
mod count;
mod cycles;
mod flat;
mod lasso;
mod play;
mod reduce;
mod search;
mod spare;
mod step;
mod symmetry;
mod trace;
mod words;

use coordsim_model::explore::AskPaths;
use coordsim_model::{
    Exploration, ExploreLimits, ModelError, ParamError, PlayError, PlayGraph, PlayLimits,
    RunContext, RunOutput, Schedule,
};

use crate::point::{Pace, Point, Step, Then, Tie};
use crate::syntax::metrics::Metric;
use crate::syntax::spec::Number;

/// Explores `point`: every execution, the distinct outcomes by the cells of `fill`; with
/// `asks`, the executions it names over the schedulers' graph too.
pub(crate) fn explore(
    point: &Point,
    fill: &[Metric],
    context: &RunContext,
    limits: &ExploreLimits,
    asks: Option<&AskPaths<'_>>,
) -> Result<Exploration, ModelError> {
    refuse_draws(point)?;
    // Reads see what has landed: the tie rules are orders an exploration takes among all.
    let mut point = point.clone();
    point.tie = Tie::Fifo;
    if point.forever() {
        // A loop without end: explored round its cycles, by their cycle keys (the
        // interpreter's steps: the flat back end has no cycle search).
        if limits.engine == coordsim_model::Engine::Flat {
            return Err(ModelError::Sim(sim_core::SimError::Model(
                "the flat engine does not explore this point: a group loops for ever (`repeat = \"forever\"`), which the cycle search explores with the interpreter; give `--engine auto` (or `interpret`)".into(),
            )));
        }
        return cycles::explore(&point, fill, context, limits);
    }
    search::Search::new(&point, fill, context, limits)
        .asking(asks)
        .run()
}

/// Runs the one execution `schedule` fixes at `point` (an exploration's), with every output a
/// run has.
pub(crate) fn replay(
    point: &Point,
    fill: &[Metric],
    distributions: &[&'static str],
    context: &RunContext,
    schedule: &Schedule,
) -> Result<RunOutput, ModelError> {
    refuse_draws(point)?;
    let mut point = point.clone();
    point.tie = Tie::Fifo;
    // A timeline draws at most `MAX_LANES` actors: a larger point replays without one.
    let context = context
        .clone()
        .with_lanes(context.wants_lanes() && point.actors as usize <= crate::point::MAX_LANES);
    trace::replay(&point, fill, distributions, &context, schedule, &[]).map(|(_, out)| out)
}

/// Every state of `point` a reader can play to, for the site's explorer (`play`): its draws
/// refused as an exploration's, its ties an exploration's.
pub(crate) fn play(
    point: &Point,
    fill: &[Metric],
    context: &RunContext,
    limits: &PlayLimits,
) -> Result<PlayGraph, PlayError> {
    refuse_draws(point).map_err(|e| PlayError::Other(ModelError::from(e).to_string()))?;
    let mut point = point.clone();
    point.tie = Tie::Fifo;
    play::walk(&point, fill, context, limits)
}

/// A draw from a continuum (a random arrival gap, a random service time) is no choice an
/// exploration can branch on: refused, at its key.
fn refuse_draws(point: &Point) -> Result<(), ParamError> {
    for (index, group) in point.groups.iter().enumerate() {
        if group.count > 0 && matches!(group.pace, Pace::Random(_)) {
            return Err(ParamError::new(
                &format!("actor[{index}].arrivals"),
                format!(
                    "`{}` draws its arrival gaps at random: an exploration branches on choices, not on draws from a continuum; give `arrivals = \"schedule\"` (or `every_ms` with no `every_cv`) to explore",
                    group.name
                ),
            ));
        }
    }
    for group in point.groups.iter().filter(|group| group.count > 0) {
        // A jitter written as a number is refused here, before any state; one an expression
        // computes (from `attempt`, say) when a retry draws it.
        for (step, path) in group.steps.iter().zip(&group.paths) {
            if let Step::AfterTimeout(Then::Retry {
                jitter: Number::Lit(spread),
                ..
            }) = step
                && *spread != 0.0
            {
                return Err(ParamError::new(
                    &format!("{path}.jitter_ms"),
                    format!(
                        "`{}` retries after a jitter drawn at random (up to {spread} ms): an exploration branches on choices, not on draws from a continuum; give `jitter_ms = 0` to explore",
                        group.name
                    ),
                ));
            }
        }
    }
    for server in &point.servers {
        if server.distribution.is_some() {
            return Err(ParamError::new(
                &format!("{}.service", server.at),
                format!(
                    "`{}` draws its service times at random: an exploration branches on choices, not on draws from a continuum; give `service = \"fixed\"` to explore",
                    server.name
                ),
            ));
        }
    }
    Ok(())
}
