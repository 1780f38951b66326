//! One step of an exploration: the events that may run next, one of them run with its
//! draws decided, and the start every execution begins from.

use coordsim_model::explore::Decision;
use coordsim_model::{ModelError, ParamError, RunContext};
use sim_core::{Due, EventQueue, SimError, run_due};
use smallvec::SmallVec;

use crate::point::Point;
use crate::run::failure;
use crate::run::state::{Event, Sim};
use crate::run::steer::Draw;

/// The choice a transition takes: which of the free events ran (`pick` of `of`), and what
/// its draws were decided to be (bit i: draw i was "yes").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Choice {
    pub pick: u16,
    pub of: u16,
    pub draws: u64,
    pub drawn: u8,
    /// A `crash_anywhere` crash: the event's actor crashed instead of going on.
    pub crash: bool,
    /// The reduction took this event alone (it commutes with the other free events): not
    /// part of a schedule, only of the trace's words.
    pub alone: bool,
}

impl Choice {
    /// The choice as a schedule's event has it.
    pub(super) fn decision(&self) -> Decision {
        Decision {
            pick: u32::from(self.pick),
            of: u32::from(self.of),
            draws: (0..self.drawn).map(|i| self.draws >> i & 1 == 1).collect(),
            crash: self.crash,
        }
    }
}

/// The events that may run next: each owner's first due event, in `(class, owner)` order
/// (not by insertion number: two executions that reach one state may have scheduled its
/// events in other orders, and a choice must name the same event along either); none once
/// the execution is stuck (its polls can never succeed: it ends there).
pub(super) fn choices(sim: &Sim<'_>, queue: &EventQueue<Event>) -> Vec<Due<Event>> {
    let mut next = Vec::new();
    choices_into(sim, queue, &mut next);
    next
}

/// [`choices`] into `next` (cleared first): the search asks at every state, and reuses
/// one list.
pub(super) fn choices_into(sim: &Sim<'_>, queue: &EventQueue<Event>, next: &mut Vec<Due<Event>>) {
    next.clear();
    if sim.steer.as_ref().is_some_and(|s| s.stuck) {
        return;
    }
    queue.due_into(next);
    if next.len() < 2 {
        return;
    }
    // An owner's first due event only: its later ones wait for it (a few events: a scan
    // of the owners kept so far beats any set).
    let mut owners: SmallVec<[u32; 8]> = SmallVec::new();
    let mut kept = 0;
    for index in 0..next.len() {
        let owner = sim.owner(next[index].event);
        if !owners.contains(&owner) {
            owners.push(owner);
            next[kept] = next[index];
            kept += 1;
        }
    }
    next.truncate(kept);
    next.sort_unstable_by_key(|due| (due.class, sim.owner(due.event)));
}

/// What running one event did: the draws it made, the shared steps it ran (as group and
/// step index), and the probability its faults past the budget were "no".
pub(super) struct Ran {
    pub drawn: SmallVec<[Draw; 4]>,
    pub touched: SmallVec<[(u16, u32); 4]>,
    pub beyond: f64,
}

/// Whether event `due` may be a `crash_anywhere` crash: an actor's going on (a step
/// boundary), its job alive, its group's crashes not all spent along this execution.
pub(super) fn may_crash(sim: &Sim<'_>, due: Due<Event>) -> bool {
    let Event::Resume { job } = due.event else {
        return false;
    };
    let job_state = &sim.jobs[job as usize];
    let actor = &sim.actors[job_state.actor as usize];
    let spent = sim.steer.as_ref().map_or(u32::MAX, |s| s.crashed_anywhere);
    sim.point.groups[job_state.group as usize]
        .crash_anywhere
        .as_ref()
        .is_some_and(|(count, _)| spent < *count)
        && job_state.incarnation == actor.incarnation
        && !actor.crashed
}

/// Runs event `due` with the draws `forced` decided (bit i: draw i "yes"; the rest "no");
/// with `crash`, its actor crashes there instead (`crash_anywhere`).
pub(super) fn run_chosen(
    sim: &mut Sim<'_>,
    queue: &mut EventQueue<Event>,
    due: Due<Event>,
    forced: u64,
    crash: bool,
) -> Result<Ran, ModelError> {
    if let Some(steer) = &mut sim.steer {
        steer.crash_now = crash;
        steer.forced = forced;
        steer.drawn.clear();
        steer.fresh = None;
        steer.acted = None;
        steer.touched.clear();
        steer.told.clear();
        steer.beyond = 1.0;
    }
    let ran = run_due(queue, sim, due.class, due.seq).map(|_| ());
    failure(sim, ran)?;
    if !sim.point.watches.is_empty() {
        sim.watch(queue.now());
    }
    Ok(match sim.steer.as_mut() {
        Some(steer) => Ran {
            drawn: SmallVec::from_slice(&steer.drawn),
            touched: SmallVec::from_slice(&steer.touched),
            beyond: steer.beyond,
        },
        None => Ran {
            drawn: SmallVec::new(),
            touched: SmallVec::new(),
            beyond: 1.0,
        },
    })
}

/// The start: every actor's first start scheduled.
pub(super) fn start<'a>(
    point: &'a Point,
    context: &RunContext,
    max_faults: u32,
) -> Result<(Sim<'a>, EventQueue<Event>), ModelError> {
    let mut sim = Sim::steered(point, context, max_faults)?;
    let mut queue = context.queue(point.actors as usize + 16);
    sim.schedule_starts(&mut queue);
    // The start is an instant too, as in a run.
    if !point.watches.is_empty() {
        sim.watch(0);
    }
    Ok((sim, queue))
}

/// An error found along an execution: said with how far in it was.
pub(super) fn in_execution(error: ModelError, events: u32) -> ModelError {
    let along = format!("(in an explored execution, at its event {events})");
    match error {
        ModelError::Param(param_error) => ModelError::Param(ParamError::new(
            &param_error.key,
            format!("{} {along}", param_error.message),
        )),
        ModelError::Sim(SimError::Model(message)) => {
            ModelError::Sim(SimError::Model(format!("{message} {along}")))
        }
        other => other,
    }
}
