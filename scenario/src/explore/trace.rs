//! An execution told step by step: the choices of a path replayed from the start, each
//! event described by whose it is and what it did, and the run's output with its timeline.

use coordsim_model::explore::{Decision, Schedule, TraceStep};
use coordsim_model::{ModelError, ParamError, RunContext, RunOutput};
use sim_core::ns_to_ms;

use crate::explore::step::{choices, may_crash, run_chosen, start};
use crate::point::{Pick, Point, Step};
use crate::run::state::{Ev, Sim};
use crate::run::steer::Draw;
use crate::syntax::metrics::Metric;

/// Runs the execution `schedule` fixes from the start: each event described, and the
/// run's output (with the per-request samples `distributions` names, and the timeline
/// lanes when `ctx` asks for them). A schedule that does not fit the point (another
/// number of free events at some instant, other draws, events left at its end) is an
/// error saying where.
pub(super) fn replay(
    p: &Point,
    fill: &[Metric],
    distributions: &[&'static str],
    ctx: &RunContext,
    schedule: &Schedule,
) -> Result<(Vec<TraceStep>, RunOutput), ModelError> {
    let (mut sim, mut q) = start(p, ctx, schedule.max_faults)?;
    let mut steps = Vec::with_capacity(schedule.events.len());
    for (n, d) in schedule.events.iter().enumerate() {
        let next = choices(&sim, &q);
        let misfit = |what: String| {
            ModelError::Param(ParamError::new(
                "schedule",
                format!(
                    "the schedule does not fit this point: at its event {} (`{}`), {what}; it was written for another config or point",
                    n + 1,
                    d.text()
                ),
            ))
        };
        if next.len() != d.of as usize {
            return Err(misfit(format!(
                "{} events are free, not {}",
                next.len(),
                d.of
            )));
        }
        let due = next[d.pick as usize];
        let before = sim.clone();
        if d.crash && !may_crash(&sim, due) {
            return Err(misfit(
                "that event cannot be a crash (`crash_anywhere`)".into(),
            ));
        }
        let drawn = run_chosen(&mut sim, &mut q, due, d.draws.clone(), d.crash)?.drawn;
        let taken: Vec<bool> = drawn.iter().map(|x| x.taken).collect();
        if taken != d.draws {
            return Err(misfit(format!(
                "the event decided {} draws ({}), not {}",
                taken.len(),
                Decision {
                    draws: taken.clone(),
                    ..d.clone()
                }
                .text(),
                d.draws.len()
            )));
        }
        let acted = sim.steer.as_ref().and_then(|s| s.acted);
        let (actor, mut action) = describe(p, &before, &sim, due.event, acted);
        if d.crash {
            action = "crashes here (crash_anywhere)".into();
        }
        steps.push(TraceStep {
            time_ms: ns_to_ms(q.now()),
            actor,
            action,
            choice: choice_words(d, &drawn),
        });
    }
    let left = choices(&sim, &q).len();
    if left > 0 {
        return Err(ModelError::Param(ParamError::new(
            "schedule",
            format!(
                "the schedule does not fit this point: it ends after {} events, but the run goes on ({left} free then); it was written for another config or point",
                schedule.events.len()
            ),
        )));
    }
    sim.end = q.now();
    sim.settle_direct();
    sim.check(ctx.seed())?;
    Ok((steps, sim.output(fill, distributions, ctx)))
}

/// The choice in words: `2 of 3` when several events were free, and each draw decided.
fn choice_words(c: &Decision, drawn: &[Draw]) -> String {
    let mut words = Vec::new();
    if c.of > 1 {
        words.push(format!("{} of {}", c.pick + 1, c.of));
    }
    if c.crash {
        words.push("crash".into());
    }
    for d in drawn {
        let what = match (d.fault, d.taken) {
            (true, true) => "fault",
            (true, false) => "no fault",
            (false, true) => "chance: yes",
            (false, false) => "chance: no",
        };
        words.push(format!("{what} (p = {})", d.p));
    }
    words.join("; ")
}

/// Whose the event is and what it did.
fn describe(
    p: &Point,
    before: &Sim<'_>,
    after: &Sim<'_>,
    ev: Ev,
    acted: Option<(u32, u32)>,
) -> (String, String) {
    let actor_of = |job: u32| {
        let a = &after.actors[after.jobs[job as usize].actor as usize];
        p.groups[a.group as usize].actor_name(a.index)
    };
    if let Some((job, at)) = acted {
        let g = after.jobs[job as usize].group as usize;
        let step = &p.groups[g].steps[at as usize];
        return (actor_of(job), step_done(p, before, after, job, step));
    }
    match ev {
        Ev::Start { actor } => {
            let a = &after.actors[actor as usize];
            (
                p.groups[a.group as usize].actor_name(a.index),
                format!("starts repetition {}", a.started.saturating_sub(1)),
            )
        }
        Ev::Resume { job } => (actor_of(job), "goes on".into()),
        Ev::Land { job } => {
            let j = &before.jobs[job as usize];
            let step = &p.groups[j.group as usize].steps[j.step as usize];
            (actor_of(job), step_done(p, before, after, job, step))
        }
        Ev::Retry { job } => {
            let j = &before.jobs[job as usize];
            let what = match &p.groups[j.group as usize].steps[j.step as usize] {
                Step::Acquire { lock: pick, .. } => format!(
                    "tries {} again: {}",
                    named(|l| p.lock_names[l as usize].clone(), pick),
                    took(before, after, job)
                ),
                _ => "tries its lock again".into(),
            };
            (actor_of(job), what)
        }
        Ev::Timeout { job } => (actor_of(job), "its wait times out".into()),
        Ev::Depart { server, .. } => (
            p.servers[server as usize].name.clone(),
            "finishes a request".into(),
        ),
        Ev::Unlock { lock } => (
            p.lock_names[lock as usize].clone(),
            "an operator deletes its record".into(),
        ),
        Ev::Down { server } => (p.servers[server as usize].name.clone(), "goes down".into()),
        Ev::Up { server } => (
            p.servers[server as usize].name.clone(),
            "comes back up".into(),
        ),
        Ev::Arrive { queue, .. } => (
            p.queues[queue as usize].name.clone(),
            "a message arrives".into(),
        ),
        Ev::Visible { queue } => {
            let q = queue as usize;
            let what = if after.queues[q].returned > before.queues[q].returned {
                "a message's visibility runs out: it is visible again"
            } else {
                // The timer of a message acknowledged since: nothing comes back.
                "a visibility timer runs out: nothing to return"
            };
            (p.queues[q].name.clone(), what.into())
        }
    }
}

/// A resource a step names, by its name (the first of a list, and how many).
fn named(names: impl Fn(u16) -> String, pick: &Pick) -> String {
    match pick {
        Pick::One(r) => names(*r),
        Pick::OneOf(rs, _) => format!("one of {} ({}…)", rs.len(), names(rs[0])),
    }
}

/// Whether `job` took a lock between `before` and `after`: `takes it`, or `waits`.
fn took(before: &Sim<'_>, after: &Sim<'_>, job: u32) -> &'static str {
    let (j, nl) = (job as usize, after.locks.len());
    // A job started by this event has no row before it.
    let held = |s: &Sim<'_>| {
        s.tables
            .tokens
            .get(j * nl..(j + 1) * nl)
            .map_or(0, |row| row.iter().filter(|t| **t != 0).count())
    };
    if held(after) > held(before) {
        "takes it"
    } else {
        "waits"
    }
}

/// What `job`'s shared `step` did, read off the state before and after it.
fn step_done(p: &Point, before: &Sim<'_>, after: &Sim<'_>, job: u32, step: &Step) -> String {
    let j = job as usize;
    let lock = |l: u16| p.lock_names[l as usize].clone();
    match step {
        Step::Read(r) => {
            let nr = after.regs.len();
            let value = after.tables.reads[j * nr + *r as usize];
            format!("reads {}: {value}", p.regs[*r as usize].name)
        }
        Step::Write { reg, .. } => {
            let r = *reg as usize;
            let name = &p.regs[r].name;
            if after.regs[r].writes() + after.regs[r].rejected_writes()
                == before.regs[r].writes() + before.regs[r].rejected_writes()
            {
                return format!("writes {name} (lands later)");
            }
            let value = after.regs[r].value();
            if after.regs[r].lost_updates() > before.regs[r].lost_updates() {
                format!("writes {name} = {value}: a lost update")
            } else if after.regs[r].rejected_writes() > before.regs[r].rejected_writes() {
                format!("writes {name}: refused")
            } else {
                format!("writes {name} = {value}")
            }
        }
        Step::Acquire { lock: pick, .. } => {
            format!(
                "acquires {}: {}",
                named(lock, pick),
                took(before, after, job)
            )
        }
        Step::Release(pick) => format!("releases {}", named(lock, pick)),
        Step::Renew(pick) => format!("renews {}", named(lock, pick)),
        Step::Request { server, .. } => format!(
            "requests {}",
            named(|s| p.servers[s as usize].name.clone(), server)
        ),
        Step::Send { link, .. } => {
            format!(
                "sends over {}",
                named(|k| p.link_names[k as usize].clone(), link)
            )
        }
        Step::Crash { .. } => {
            let a = after.jobs[j].actor as usize;
            if after.actors[a].incarnation > before.actors[a].incarnation || after.actors[a].crashed
            {
                "crashes".into()
            } else {
                "does not crash".into()
            }
        }
        Step::Put { queue, .. } => format!("puts a message on {}", p.queues[*queue as usize].name),
        Step::Take { queue, .. } => format!("takes from {}", p.queues[*queue as usize].name),
        Step::Ack(queue) => format!("acknowledges on {}", p.queues[*queue as usize].name),
        Step::Keys { op, store, .. } => {
            format!("{op:?} on {}", p.keys[*store as usize].name).to_lowercase()
        }
        Step::TxBegin => "begins a transaction".into(),
        _ => "goes on".into(),
    }
}
