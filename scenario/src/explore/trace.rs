//! An execution told step by step: the choices of a path replayed from the start, each
//! event described by whose it is and what it did, and the run's output with its timeline.

use coordsim_model::explore::{Decision, Schedule, TraceStep};
use coordsim_model::{ModelError, ParamError, RunContext, RunOutput};
use sim_core::ns_to_ms;

use crate::explore::step::{choices, may_crash, run_chosen, start};
use crate::point::{Pick, Point, Step};
use crate::run::state::{Event, Sim};
use crate::run::steer::{Draw, DrawKind};
use crate::run::stuck::Awaited;
use crate::syntax::metrics::Metric;
use crate::syntax::spec::KeyOp;

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
    let mut steps = Vec::with_capacity(schedule.events.len());
    for (index, decision) in schedule.events.iter().enumerate() {
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
        let before = sim.clone();
        if decision.crash && !may_crash(&sim, due) {
            return Err(misfit(
                "that event cannot be a crash (`crash_anywhere`)".into(),
            ));
        }
        let drawn = run_chosen(
            &mut sim,
            &mut queue,
            due,
            bits(&decision.draws),
            decision.crash,
        )?
        .drawn;
        let taken: Vec<bool> = drawn.iter().map(|x| x.taken).collect();
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
        let acted = sim.steer.as_ref().and_then(|s| s.acted);
        let (actor, mut action) = describe(point, &before, &sim, due.event, acted);
        if let (Some((job, _)), Some(steer)) = (acted, sim.steer.as_ref()) {
            // A transaction's steps run in the event of its start: say each, so that its
            // effects (a duplicate's set, say) are in the trace.
            then_also(&mut action, point, &before, &sim, job, &steer.touched);
        }
        if decision.crash {
            action = said(
                "crashes here (crash_anywhere)",
                "burada çöker (crash_anywhere)",
            );
        }
        let choice = choice_words(decision, &drawn, alone.get(index).copied().unwrap_or(false));
        steps.push(TraceStep {
            time_ms: ns_to_ms(queue.now()),
            actor,
            action: action.en,
            choice: choice.en,
            action_tr: action.tr,
            choice_tr: choice.tr,
        });
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

/// A row per actor still waiting when no event is left (a deadlock, a take nothing can
/// answer): what it waits for and who holds it. No event: its choice is empty.
fn stuck_end(point: &Point, sim: &Sim<'_>, time_ms: f64) -> Vec<TraceStep> {
    sim.waiting_at_end()
        .into_iter()
        .map(|(job, awaited)| {
            let actor = &sim.actors[sim.jobs[job as usize].actor as usize];
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
                actor: point.groups[actor.group as usize].actor_name(actor.index),
                action: said.en,
                choice: String::new(),
                action_tr: said.tr,
                choice_tr: String::new(),
            }
        })
        .collect()
}

/// A step's words in English and in Turkish (the two locales a config names), as the
/// timeline's kinds have them.
struct Said {
    en: String,
    tr: String,
}

fn said(en: impl Into<String>, tr: impl Into<String>) -> Said {
    Said {
        en: en.into(),
        tr: tr.into(),
    }
}

/// A probability as a Turkish reader writes it (`0,2`).
fn comma(probability: f64) -> String {
    probability.to_string().replace('.', ",")
}

/// The choice in words: `2 of 3` when several events were free, and each draw decided.
fn choice_words(decision: &Decision, drawn: &[Draw], alone: bool) -> Said {
    let (mut en, mut tr) = (Vec::new(), Vec::new());
    if decision.of > 1 && alone {
        // Not a choice among the others: the reduction ran this one alone, since every
        // order of it among them reaches the same states.
        en.push(format!(
            "{} of {}, alone: it commutes with the others",
            decision.pick + 1,
            decision.of
        ));
        tr.push(format!(
            "{} / {}, tek başına: ötekilerle sırası fark etmez",
            decision.pick + 1,
            decision.of
        ));
    } else if decision.of > 1 {
        en.push(format!("{} of {}", decision.pick + 1, decision.of));
        tr.push(format!("{} / {}", decision.pick + 1, decision.of));
    }
    if decision.crash {
        en.push("crash".to_string());
        tr.push("çökme".to_string());
    }
    for draw in drawn {
        let (what, what_tr) = match (draw.kind, draw.taken) {
            (DrawKind::Loss, true) => ("lost", "kaybolur"),
            (DrawKind::Loss, false) => ("not lost", "kaybolmaz"),
            (DrawKind::Duplicate, true) => ("duplicated", "çoğaltılır"),
            (DrawKind::Duplicate, false) => ("not duplicated", "çoğaltılmaz"),
            (DrawKind::Crash, true) => ("crashes", "çöker"),
            (DrawKind::Crash, false) => ("does not crash", "çökmez"),
            (DrawKind::Chance, true) => ("chance: yes", "şans: evet"),
            (DrawKind::Chance, false) => ("chance: no", "şans: hayır"),
        };
        en.push(format!("{what} (p = {})", draw.probability));
        tr.push(format!("{what_tr} (p = {})", comma(draw.probability)));
    }
    said(en.join("; "), tr.join("; "))
}

/// Whose the event is and what it did.
fn describe(
    point: &Point,
    before: &Sim<'_>,
    after: &Sim<'_>,
    event: Event,
    acted: Option<(u32, u32)>,
) -> (String, Said) {
    let actor_of = |job: u32| {
        let actor = &after.actors[after.jobs[job as usize].actor as usize];
        point.groups[actor.group as usize].actor_name(actor.index)
    };
    if let Some((job, at)) = acted {
        let group = after.jobs[job as usize].group as usize;
        let step = &point.groups[group].steps[at as usize];
        return (actor_of(job), step_done(point, before, after, job, step));
    }
    let lock = |l: u16| point.lock_names[l as usize].clone();
    match event {
        Event::Start { actor } => {
            let actor = &after.actors[actor as usize];
            let repetition = actor.started.saturating_sub(1);
            (
                point.groups[actor.group as usize].actor_name(actor.index),
                said(
                    format!("starts repetition {repetition}"),
                    format!("{repetition}. tekrarını başlatır"),
                ),
            )
        }
        Event::Resume { job } => (actor_of(job), said("goes on", "devam eder")),
        Event::Land { job } => {
            let job_state = &before.jobs[job as usize];
            let step = &point.groups[job_state.group as usize].steps[job_state.step as usize];
            (actor_of(job), step_done(point, before, after, job, step))
        }
        Event::Retry { job } => {
            let job_state = &before.jobs[job as usize];
            let what = match &point.groups[job_state.group as usize].steps[job_state.step as usize]
            {
                Step::Acquire { lock: pick, .. } => {
                    let (en, tr) = took(before, after, job);
                    let name = named(lock, pick);
                    said(
                        format!("tries {} again: {en}", name.en),
                        format!("{} kilidini yeniden dener: {tr}", name.tr),
                    )
                }
                _ => said("tries its lock again", "kilidini yeniden dener"),
            };
            (actor_of(job), what)
        }
        Event::Timeout { job } => {
            // A timer counts only when the wait it was set for is still on: one left from
            // a wait that ended (its take or reply came, it crashed) runs out doing nothing.
            let actor = after.jobs[job as usize].actor as usize;
            let what = if after.actors[actor].timeouts > before.actors[actor].timeouts {
                said("its wait times out", "beklemesi zaman aşımına uğrar")
            } else {
                said(
                    "the timer of a wait already over runs out: nothing happens",
                    "bitmiş bir beklemenin süresi doldu: bir şey olmaz",
                )
            };
            (actor_of(job), what)
        }
        Event::Depart { server, .. } => (
            point.servers[server as usize].name.clone(),
            said("finishes a request", "bir isteği bitirir"),
        ),
        Event::Unlock { lock } => (
            point.lock_names[lock as usize].clone(),
            said(
                "an operator deletes its record",
                "bir operatör kaydını siler",
            ),
        ),
        Event::Down { server } => (
            point.servers[server as usize].name.clone(),
            said("goes down", "kapanır"),
        ),
        Event::Up { server } => (
            point.servers[server as usize].name.clone(),
            said("comes back up", "yeniden açılır"),
        ),
        Event::Arrive { queue, .. } => (
            point.queues[queue as usize].name.clone(),
            said("a message arrives", "bir ileti gelir"),
        ),
        Event::Visible { queue } => {
            let queue = queue as usize;
            let what = if after.queues[queue].returned > before.queues[queue].returned {
                said(
                    "a message's visibility runs out: it is visible again",
                    "bir iletinin görünmezlik süresi doldu: yeniden görünür",
                )
            } else {
                // The timer of a message acknowledged since: nothing comes back.
                said(
                    "a visibility timer runs out: nothing to return",
                    "bir görünmezlik süresi doldu: geri dönen ileti yok",
                )
            };
            (point.queues[queue].name.clone(), what)
        }
    }
}

/// The shared steps an event ran after its first (`touched`, the first among them),
/// appended to `action`: `begins a transaction; then insert on seen, set on ledger`. A
/// read or write among them is said without its value, which the event's end state may no
/// longer hold.
fn then_also(
    action: &mut Said,
    point: &Point,
    before: &Sim<'_>,
    after: &Sim<'_>,
    job: u32,
    touched: &[(u16, u32)],
) {
    if touched.len() < 2 {
        return;
    }
    let (mut en, mut tr) = (Vec::new(), Vec::new());
    for &(group, at) in &touched[1..] {
        let step = &point.groups[group as usize].steps[at as usize];
        let said = match step {
            Step::Read(register) => {
                let name = &point.registers[*register as usize].name;
                said(format!("reads {name}"), format!("{name} okur"))
            }
            Step::Write { register, .. } => {
                let name = &point.registers[*register as usize].name;
                said(format!("writes {name}"), format!("{name} yazar"))
            }
            other => step_done(point, before, after, job, other),
        };
        en.push(said.en);
        tr.push(said.tr);
    }
    action.en = format!("{}; then {}", action.en, en.join(", "));
    action.tr = format!("{}; ardından {}", action.tr, tr.join(", "));
}

/// A resource a step names, by its name (the first of a list, and how many).
fn named(names: impl Fn(u16) -> String, pick: &Pick) -> Said {
    match pick {
        Pick::One(r) => said(names(*r), names(*r)),
        Pick::OneOf(items, _) => said(
            format!("one of {} ({}…)", items.len(), names(items[0])),
            format!("{} taneden biri ({}…)", items.len(), names(items[0])),
        ),
    }
}

/// Whether `job` took a lock between `before` and `after`: `takes it`, or `waits` (and
/// in Turkish).
fn took(before: &Sim<'_>, after: &Sim<'_>, job: u32) -> (&'static str, &'static str) {
    let (job_index, lock_count) = (job as usize, after.locks.len());
    // A job started by this event has no row before it.
    let held = |sim: &Sim<'_>| {
        sim.tables
            .tokens
            .get(job_index * lock_count..(job_index + 1) * lock_count)
            .map_or(0, |row| row.iter().filter(|t| **t != 0).count())
    };
    if held(after) > held(before) {
        ("takes it", "alır")
    } else {
        ("waits", "bekler")
    }
}

/// What `job`'s read of `register` got, read off the state after it.
fn read_done(
    point: &Point,
    before: &Sim<'_>,
    after: &Sim<'_>,
    job: usize,
    register: usize,
) -> Said {
    let row = after.tables.reads[job * after.registers.len() + register];
    // A read that ended its repetition (or its job) was blanked with it: it read the value
    // the register held as the event began (no write lands within it).
    let value = if row.is_nan() {
        before.registers[register].value()
    } else {
        row
    };
    let name = &point.registers[register].name;
    said(
        format!("reads {name}: {value}"),
        format!("{name} okur: {}", comma(value)),
    )
}

/// What `job`'s shared `step` did, read off the state before and after it.
fn step_done(point: &Point, before: &Sim<'_>, after: &Sim<'_>, job: u32, step: &Step) -> Said {
    let job_index = job as usize;
    let lock = |l: u16| point.lock_names[l as usize].clone();
    match step {
        Step::Read(register) => read_done(point, before, after, job_index, *register as usize),
        Step::Write { register, .. } => {
            let register = *register as usize;
            let name = &point.registers[register].name;
            if after.registers[register].writes() + after.registers[register].rejected_writes()
                == before.registers[register].writes()
                    + before.registers[register].rejected_writes()
            {
                return said(
                    format!("writes {name} (lands later)"),
                    format!("{name} yazar (sonra yerleşir)"),
                );
            }
            let value = after.registers[register].value();
            if after.registers[register].lost_updates() > before.registers[register].lost_updates()
            {
                said(
                    format!("writes {name} = {value}: a lost update"),
                    format!("{name} = {} yazar: kaybolan güncelleme", comma(value)),
                )
            } else if after.registers[register].rejected_writes()
                > before.registers[register].rejected_writes()
            {
                said(
                    format!("writes {name}: refused"),
                    format!("{name} yazar: reddedildi"),
                )
            } else {
                said(
                    format!("writes {name} = {value}"),
                    format!("{name} = {} yazar", comma(value)),
                )
            }
        }
        Step::Acquire { lock: pick, .. } => {
            let (en, tr) = took(before, after, job);
            let name = named(lock, pick);
            said(
                format!("acquires {}: {en}", name.en),
                format!("{} kilidini ister: {tr}", name.tr),
            )
        }
        Step::Release(pick) => {
            let name = named(lock, pick);
            said(
                format!("releases {}", name.en),
                format!("{} kilidini bırakır", name.tr),
            )
        }
        Step::Renew(pick) => {
            let name = named(lock, pick);
            said(
                format!("renews {}", name.en),
                format!("{} kirasını yeniler", name.tr),
            )
        }
        Step::Request { server, .. } => {
            let name = named(|s| point.servers[s as usize].name.clone(), server);
            said(
                format!("requests {}", name.en),
                format!("{} sunucusuna istek gönderir", name.tr),
            )
        }
        Step::Send { link, .. } => {
            let name = named(|k| point.link_names[k as usize].clone(), link);
            said(
                format!("sends over {}", name.en),
                format!("{} bağlantısından gönderir", name.tr),
            )
        }
        Step::Crash { .. } => {
            let actor = after.jobs[job_index].actor as usize;
            if after.actors[actor].incarnation > before.actors[actor].incarnation
                || after.actors[actor].crashed
            {
                said("crashes", "çöker")
            } else {
                said("does not crash", "çökmez")
            }
        }
        Step::Put { queue, .. } => {
            let name = &point.queues[*queue as usize].name;
            said(
                format!("puts a message on {name}"),
                format!("{name} kuyruğuna ileti koyar"),
            )
        }
        Step::Take { queue, .. } => {
            let name = &point.queues[*queue as usize].name;
            said(
                format!("takes from {name}"),
                format!("{name} kuyruğundan alır"),
            )
        }
        Step::Call { queue, .. } => {
            let name = &point.queues[*queue as usize].name;
            said(
                format!("calls through {name} and waits for the reply"),
                format!("{name} üzerinden çağırır, yanıtı bekler"),
            )
        }
        Step::Reply { queue, .. } => {
            let name = &point.queues[*queue as usize].name;
            said(
                format!("replies to the call it took from {name}"),
                format!("{name} kuyruğundan aldığı çağrıyı yanıtlar"),
            )
        }
        Step::Ack(queue) => {
            let name = &point.queues[*queue as usize].name;
            said(
                format!("acknowledges on {name}"),
                format!("{name} kuyruğunda onaylar"),
            )
        }
        Step::Keys {
            operation, store, ..
        } => keys_done(&point.keys[*store as usize].name, *operation),
        Step::TxBegin => said("begins a transaction", "bir işlem başlatır"),
        Step::BranchEnd => {
            let branch = before.jobs[job_index].branch;
            said(
                format!("ends branch {branch} of its parallel"),
                format!("paralelinin {branch}. dalını bitirir"),
            )
        }
        _ => said("goes on", "devam eder"),
    }
}

/// A key store's step in words.
fn keys_done(name: &str, operation: KeyOp) -> Said {
    match operation {
        KeyOp::Insert => said(
            format!("inserts into {name}"),
            format!("{name} deposuna ekler"),
        ),
        KeyOp::Lookup => said(
            format!("looks up in {name}"),
            format!("{name} deposunda arar"),
        ),
        KeyOp::Set => said(
            format!("sets in {name}"),
            format!("{name} deposunda değiştirir"),
        ),
        KeyOp::Remove => said(
            format!("removes from {name}"),
            format!("{name} deposundan siler"),
        ),
    }
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
