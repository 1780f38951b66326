//! An execution told step by step: the choices of a path replayed from the start, each
//! event described by whose it is and what it did, and the run's output with its timeline.

use coordsim_model::explore::{Decision, Schedule, TraceStep};
use coordsim_model::{ModelError, ParamError, RunContext, RunOutput};
use sim_core::ns_to_ms;

use crate::explore::step::{choices, may_crash, run_chosen, start};
use crate::explore::words::{
    KeySteps, Said, Seen, chance_words, choice_words, comma, describe, said, then_also,
};
use crate::point::Point;
use crate::run::state::{Event, Sim};
use crate::run::steer::{Draw, DrawKind, Told};
use crate::run::stuck::Awaited;
use crate::syntax::metrics::Metric;

/// Runs the execution `schedule` fixes from the start: each event described, and the
/// run's output (with the per-request samples `distributions` names, and the timeline
/// lanes when `context` asks for them). `alone[n]` says that the explorer took event n alone
/// (the reduction: it commutes with the other free events), for its words. A schedule that
/// does not fit the point (another number of free events at some instant, other draws,
/// events left at its end) is an error saying where.
pub(super) fn replay(
    point: &Point,
    fill: &[Metric],
    distributions: &[&'static str],
    context: &RunContext,
    schedule: &Schedule,
    alone: &[bool],
) -> Result<(Vec<TraceStep>, RunOutput), ModelError> {
    let (mut sim, mut queue) = start(point, context, schedule.max_faults)?;
    if let Some(steer) = &mut sim.steer {
        steer.tell = true;
    }
    // Resource lanes, when a timeline draws some: read as the run starts and after every
    // event, as a run records them.
    let resources = sim.lanes.as_ref().is_some_and(|l| l.resources.is_some());
    if resources {
        sim.sample_resources();
    }
    let mut steps = Vec::with_capacity(schedule.events.len());
    // What each actor has seen of each key so far (a set on a stale lookup is a lost update).
    let mut seen: Vec<Seen> = Vec::new();
    // A lasso's cycle: the state where it begins, as its cycle key, and its first row.
    let mut cycle_start: Option<(Vec<u64>, usize)> = None;
    for (index, decision) in schedule.events.iter().enumerate() {
        if schedule.cycle_from == Some(index as u32) {
            cycle_start = Some((sim.cycle_words(&queue), steps.len()));
        }
        let next = choices(&sim, &queue);
        let misfit = |what: String| {
            ModelError::Param(ParamError::new(
                &format!("schedule.events[{index}]"),
                format!(
                    "the schedule does not fit this point: at its event {} (`{}`), {what}; it was written for another config or point",
                    index + 1,
                    decision.text()
                ),
            ))
        };
        if next.len() != decision.of as usize {
            return Err(misfit(format!(
                "{} events are free, not {}",
                next.len(),
                decision.of
            )));
        }
        let due = next[decision.pick as usize];
        if decision.crash && !may_crash(&sim, due) {
            return Err(misfit(
                "that event cannot be a crash (`crash_anywhere`)".into(),
            ));
        }
        let alone = alone.get(index).copied().unwrap_or(false);
        let told = tell(
            point,
            (&mut sim, &mut queue),
            &mut seen,
            due,
            decision,
            alone,
        )?;
        if resources {
            sim.sample_resources();
        }
        let taken: Vec<bool> = told.drawn.iter().map(|x| x.taken).collect();
        if taken != decision.draws {
            return Err(misfit(format!(
                "the event decided {} draws ({}), not {}",
                taken.len(),
                Decision {
                    draws: taken.clone(),
                    ..decision.clone()
                }
                .text(),
                decision.draws.len()
            )));
        }
        steps.extend(told.rows);
    }
    if let Some((words, first_row)) = cycle_start {
        // The cycle run once must come back to where it began, time shifted: else the
        // lasso is the explorer's error, never a counterexample.
        if sim.cycle_words(&queue) != words {
            return Err(ModelError::Invariant(
                "internal: a lasso's cycle, run once, does not come back to the state it began in"
                    .into(),
            ));
        }
        steps.push(TraceStep::cycle(
            first_row + 1,
            steps.len(),
            ns_to_ms(queue.now()),
        ));
        sim.end = queue.now();
        return Ok((steps, sim.output(fill, distributions, context)));
    }
    let left = choices(&sim, &queue).len();
    if left > 0 {
        return Err(ModelError::Param(ParamError::new(
            "schedule.events",
            format!(
                "the schedule does not fit this point: it ends after {} events, but the run goes on ({left} free then); it was written for another config or point",
                schedule.events.len()
            ),
        )));
    }
    steps.extend(stuck_end(point, &sim, ns_to_ms(queue.now())));
    sim.end = queue.now();
    sim.settle_direct();
    sim.check(context.seed())?;
    Ok((steps, sim.output(fill, distributions, context)))
}

/// One event told: its rows, the draws it made (with their chances) and the probability
/// its faults past the budget were "no".
pub(super) struct Telling {
    pub(super) rows: Vec<TraceStep>,
    pub(super) drawn: Vec<Draw>,
    pub(super) beyond: f64,
}

/// Runs event `due` from (`sim`, `queue`) with the draws and crash `decision` gives (its
/// draws past those it names "no"; its `pick` and `of` only for the words), and says what
/// it did. `seen`: what each actor has seen of each key so far, carried along the
/// execution. `alone`: the reduction took the event alone.
pub(super) fn tell(
    point: &Point,
    (sim, queue): (&mut Sim<'_>, &mut sim_core::EventQueue<Event>),
    seen: &mut Vec<Seen>,
    due: sim_core::Due<Event>,
    decision: &Decision,
    alone: bool,
) -> Result<Telling, ModelError> {
    if let Some(steer) = &mut sim.steer {
        steer.tell = true;
    }
    let before = sim.clone();
    let ran = run_chosen(sim, queue, due, bits(&decision.draws), decision.crash)?;
    let told = sim
        .steer
        .as_mut()
        .map(|s| std::mem::take(&mut s.told))
        .unwrap_or_default();
    let mut keys = KeySteps::new(&told, seen);
    let acted = sim.steer.as_ref().and_then(|s| s.acted);
    let (actor, mut action) = describe(point, (&before, sim), due.event, acted, &mut keys);
    if let (Some((job, _)), Some(steer)) = (acted, sim.steer.as_ref()) {
        // A transaction's steps run in the event of its start: say each, so that its
        // effects (a duplicate's set, say) are in the trace.
        then_also(
            &mut action,
            point,
            (&before, sim),
            job,
            (&steer.touched, &mut keys),
        );
    }
    if decision.crash {
        action = said(
            "crashes here (crash_anywhere)",
            "burada çöker (crash_anywhere)",
        );
    }
    let chances = Chances::of(&ran.drawn, &told, acted.is_some());
    let taken = Decision {
        draws: ran.drawn.iter().map(|d| d.taken).collect(),
        ..decision.clone()
    };
    let choice = choice_words(&taken, &chances.own, alone);
    // An event that only resumed its actor, which then drew or paused: those rows say it.
    let quiet = acted.is_none() && !decision.crash && matches!(due.event, Event::Resume { .. });
    let rows = event_rows(
        (point, sim),
        ns_to_ms(queue.now()),
        (&actor, action, choice),
        (&chances, &told),
        quiet,
    );
    Ok(Telling {
        rows,
        drawn: ran.drawn.to_vec(),
        beyond: ran.beyond,
    })
}

/// A row per actor still waiting when no event is left (a deadlock, a take nothing can
/// answer): what it waits for and who holds it. No event: its choice is empty.
fn stuck_end(point: &Point, sim: &Sim<'_>, time_ms: f64) -> Vec<TraceStep> {
    sim.waiting_at_end()
        .into_iter()
        .map(|(job, awaited)| {
            let said = match awaited {
                Awaited::Lock(lock_index, polls) => {
                    let lock = &point.lock_names[lock_index as usize];
                    let (en, tr) = if polls {
                        ("polls", "yoklar")
                    } else {
                        ("waits for", "bekler")
                    };
                    match sim.holder_name(lock_index as usize) {
                        Some(holder) => said(
                            format!("stuck: {en} {lock}, held by {holder}"),
                            format!("takılı kalır: {lock} kilidini {tr}, {holder} tutuyor"),
                        ),
                        None => said(
                            format!("stuck: {en} {lock}"),
                            format!("takılı kalır: {lock} kilidini {tr}"),
                        ),
                    }
                }
                Awaited::Take(queue) => {
                    let name = &point.queues[queue as usize].name;
                    said(
                        format!("stuck: waits to take from {name}, where nothing more comes"),
                        format!(
                            "takılı kalır: {name} kuyruğundan almayı bekler, oraya bir şey gelmeyecek"
                        ),
                    )
                }
            };
            TraceStep {
                time_ms,
                actor: actor_name(point, sim, job),
                action: said.en,
                choice: String::new(),
                action_tr: said.tr,
                choice_tr: String::new(),
            }
        })
        .collect()
}

/// The draws of an event by the row that says them: a `chance` drawn before its first
/// shared step (a row before the event's), one drawn after it (the row of the pause it
/// chose, or a row after), and the event's own draws (a loss, a crash: its own row).
struct Chances {
    before: Vec<Draw>,
    own: Vec<Draw>,
    /// By the job that drew them (`Told::By`; `None`: not told), in runs of one drawer: a
    /// job handed a lock goes on, and draws, in its releaser's event.
    after: Vec<(Option<u32>, Vec<Draw>)>,
}

impl Chances {
    /// `drawn` split by when `told` says each was drawn; `acted`: the event ran a shared
    /// step (with none, every chance follows what the event did).
    fn of(drawn: &[Draw], told: &[Told], acted: bool) -> Chances {
        let mut chances = Chances {
            before: Vec::new(),
            own: Vec::new(),
            after: Vec::new(),
        };
        for (index, draw) in drawn.iter().enumerate() {
            let shared = told.iter().find_map(|t| match *t {
                Told::Draw { index: i, shared } if i as usize == index => Some(shared),
                _ => None,
            });
            match (draw.kind, shared) {
                (DrawKind::Chance, Some(0)) if acted => chances.before.push(*draw),
                (DrawKind::Chance, Some(_)) => {
                    let by = told.iter().find_map(|t| match *t {
                        Told::By { index: i, job } if i as usize == index => Some(job),
                        _ => None,
                    });
                    match chances.after.last_mut() {
                        Some((last, draws)) if *last == by => draws.push(*draw),
                        _ => chances.after.push((by, vec![*draw])),
                    }
                }
                _ => chances.own.push(*draw),
            }
        }
        chances
    }
}

/// The rows of one event at `time_ms`: a chance drawn before its first shared step, the
/// event's own row (its actor, what it did, its choice), then each pause it began and the
/// chances drawn after that step (on the first pause's row, else a row of their own). A
/// `quiet` event (an actor going on, no shared step) followed by such a row is said by
/// them alone, its choice on the first.
fn event_rows(
    (point, sim): (&Point, &Sim<'_>),
    time_ms: f64,
    (actor, action, choice): (&str, Said, Said),
    (chances, told): (&Chances, &[Told]),
    quiet: bool,
) -> Vec<TraceStep> {
    let row = |actor: &str, action: Said, choice: Said| TraceStep {
        time_ms,
        actor: actor.to_string(),
        action: action.en,
        choice: choice.en,
        action_tr: action.tr,
        choice_tr: choice.tr,
    };
    let mut rows = Vec::new();
    if !chances.before.is_empty() {
        rows.push(row(actor, by_chance(), chance_words(&chances.before)));
    }
    let mut follow = Vec::new();
    let mut after: Vec<(Option<u32>, Said)> = (chances.after.iter())
        .map(|(by, draws)| (*by, chance_words(draws)))
        .collect();
    // A pause the event began is a step of its own, with the chances its job drew (that
    // chose it).
    for told in told {
        if let Told::Pause { job, ns } = *told {
            let ms = ns_to_ms(ns);
            let drew = after
                .iter()
                .position(|(by, _)| by.is_none_or(|by| by == job));
            follow.push((
                actor_name(point, sim, job),
                said(
                    format!("pauses {ms} ms"),
                    format!("{} ms duraklar", comma(ms)),
                ),
                drew.map_or_else(|| said("", ""), |at| after.remove(at).1),
            ));
        }
    }
    // Chances that chose no pause: a row each, of the job that drew them.
    for (by, words) in after {
        let who = by.map_or_else(|| actor.to_string(), |job| actor_name(point, sim, job));
        follow.push((who, by_chance(), words));
    }
    match follow.first_mut() {
        Some((_, _, first)) if quiet => {
            let join = |a: String, b: &str| {
                [a, b.to_string()]
                    .into_iter()
                    .filter(|x| !x.is_empty())
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            first.en = join(choice.en, &first.en);
            first.tr = join(choice.tr, &first.tr);
        }
        _ => rows.push(row(actor, action, choice)),
    }
    rows.extend(
        follow
            .into_iter()
            .map(|(who, what, choice)| row(&who, what, choice)),
    );
    rows
}

/// A row's words for a `chance` that chose no pause: the draw itself is its second line.
fn by_chance() -> Said {
    said("decides by chance", "şansa göre seçer")
}

/// The name of `job`'s actor.
fn actor_name(point: &Point, sim: &Sim<'_>, job: u32) -> String {
    let actor = &sim.actors[sim.jobs[job as usize].actor as usize];
    point.groups[actor.group as usize].actor_name(actor.index)
}

/// A schedule's draws as the bits a run takes them in (bit i: draw i "yes"). Past 64 they
/// are dropped: no event decides more (the explorer refuses one), so such a schedule's
/// event is told apart as a misfit when its draws are compared.
fn bits(draws: &[bool]) -> u64 {
    draws
        .iter()
        .take(64)
        .enumerate()
        .fold(0, |bits, (i, &yes)| bits | u64::from(yes) << i)
}
