//! A point's state graph for the site's explorer, where a student plays executions one
//! event at a time: a walk of its own, breadth first from the start, with the search's
//! steps (the same free events, the same draws both ways, the same crashes) but none of its
//! reductions: a student sees every order and every actor under its own name. Two
//! executions meet in one state when its fingerprint and the counts it carries (a
//! register's lost updates) are the same; so the walk has the exploration's states with
//! `--no-reduce --no-symmetry` where no count tells states apart, and a few more where one
//! does (an end then reports its own count).
//!
//! Each state is kept as a student reads it (`coordsim_model::PlayState`); each transition
//! with the words its trace would say ([`trace::tell`]), what each actor has seen of each
//! key carried along the first execution that reached the state.

use std::collections::VecDeque;

use coordsim_model::explore::Decision;
use coordsim_model::{
    ActorAt, LockAt, ModelError, PlayActor, PlayEdge, PlayError, PlayGraph, PlayLimits, PlayState,
    RunContext,
};
use rustc_hash::FxHashMap;
use sim_core::{EventQueue, ns_to_ms};

use crate::explore::step::{choices, in_execution, may_crash, start};
use crate::explore::trace::tell;
use crate::explore::words::{Said, Seen, said};
use crate::point::{Pick, Point, Step};
use crate::run::state::{Draw, Event, Sim};
use crate::run::steer::Counts;
use crate::syntax::metrics::Metric;
use crate::syntax::spec::KeyOp;

/// A state waiting to be expanded: its number, the run as it stands there, and what each
/// actor has seen of each key along the execution that reached it first.
type Waiting<'a> = (u32, Sim<'a>, EventQueue<Event>, Vec<Seen>);

/// Every state of `point` (its draws checked and its ties set by the caller) reachable from its
/// start, each as a reader sees it: refused past `limits.max_states`, when the states
/// waiting to be expanded (whole run states: a store of a million keys is megabytes each)
/// would hold more than `limits.max_memory_bytes`, or when an execution can come back to a
/// state (no end to play to).
pub(super) fn walk(
    point: &Point,
    fill: &[Metric],
    context: &RunContext,
    limits: &PlayLimits,
) -> Result<PlayGraph, PlayError> {
    let failed = |e: ModelError| PlayError::Other(e.to_string());
    let (sim, queue) = start(point, context, limits.max_faults).map_err(failed)?;
    let mut graph = names(point, &sim);
    let mut seen_states: FxHashMap<(u64, Counts), u32> = FxHashMap::default();
    seen_states.insert((sim.fingerprint(&queue), sim.counts()), 0);
    graph.states.push(view(&sim, &queue));
    let mut depths = vec![0u32];
    let too_large = || PlayError::TooLarge {
        max_states: limits.max_states,
    };
    // Each state's cells: a place an actor, a value a register, a lock, a queue, a store.
    let cells = (sim.actors.len() + point.registers.len() + point.locks.len())
        .saturating_add(point.queues.len() + point.keys.len()) as u64;
    let too_many_cells = |states: usize| {
        (cells.saturating_mul(states as u64) > limits.max_cells).then_some(
            PlayError::TooManyCells {
                max_cells: limits.max_cells,
            },
        )
    };
    if let Some(refused) = too_many_cells(1) {
        return Err(refused);
    }
    // The bytes the waiting states hold (as the exploration's budget counts a state).
    let mut waiting = sim.state_bytes(&queue);
    if waiting > limits.max_memory_bytes {
        return Err(too_large());
    }
    let mut frontier: VecDeque<Waiting<'_>> = VecDeque::from([(0, sim, queue, Vec::new())]);
    while let Some((id, sim, queue, seen)) = frontier.pop_front() {
        waiting -= sim.state_bytes(&queue);
        let depth = depths[id as usize] + 1;
        let next = choices(&sim, &queue);
        if next.is_empty() {
            let (mut sim, queue) = (sim, queue);
            sim.end = queue.now();
            sim.settle_direct();
            sim.check(context.seed()).map_err(failed)?;
            graph.states[id as usize].end = Some(sim.output(fill, &[], context).metrics);
            continue;
        }
        let of = next.len() as u32;
        let mut edges = Vec::new();
        for (pick, &due) in next.iter().enumerate() {
            let crashes: &[bool] = if may_crash(&sim, due) {
                &[false, true]
            } else {
                &[false]
            };
            for &crash in crashes {
                // Each script: the draws decided so far; the first leaves every draw "no",
                // each draw it meets past them is tried "yes" too (as the search does).
                let mut scripts = vec![Vec::new()];
                while let Some(draws) = scripts.pop() {
                    let decision = Decision {
                        pick: pick as u32,
                        of,
                        draws,
                        crash,
                    };
                    let (mut sim, mut queue, mut seen) = (sim.clone(), queue.clone(), seen.clone());
                    let told = tell(
                        point,
                        (&mut sim, &mut queue),
                        &mut seen,
                        due,
                        &decision,
                        false,
                    )
                    .map_err(|e| failed(in_execution(e, depth)))?;
                    let taken: Vec<bool> = told.drawn.iter().map(|d| d.taken).collect();
                    for index in decision.draws.len()..taken.len() {
                        let mut more = taken[..index].to_vec();
                        more.push(true);
                        scripts.push(more);
                    }
                    let probability = (!told.drawn.is_empty()).then(|| {
                        told.drawn.iter().map(Draw::likelihood).product::<f64>() * told.beyond
                    });
                    let key = (sim.fingerprint(&queue), sim.counts());
                    let to = match seen_states.get(&key) {
                        Some(&to) => to,
                        None => {
                            let to = graph.states.len() as u32;
                            waiting += sim.state_bytes(&queue);
                            if to >= limits.max_states || waiting > limits.max_memory_bytes {
                                return Err(too_large());
                            }
                            if let Some(refused) = too_many_cells(to as usize + 1) {
                                return Err(refused);
                            }
                            seen_states.insert(key, to);
                            graph.states.push(view(&sim, &queue));
                            depths.push(depth);
                            frontier.push_back((to, sim, queue, seen));
                            to
                        }
                    };
                    edges.push(PlayEdge {
                        to,
                        decision: Decision {
                            draws: taken,
                            ..decision
                        },
                        probability,
                        rows: told.rows,
                    });
                }
            }
        }
        graph.states[id as usize].edges = edges;
    }
    if has_cycle(&graph) {
        return Err(PlayError::Cycle);
    }
    Ok(graph)
}

/// Whether some execution comes back to a state it was in (Kahn's order leaves a state).
fn has_cycle(graph: &PlayGraph) -> bool {
    let mut into = vec![0u32; graph.states.len()];
    for edge in graph.states.iter().flat_map(|s| &s.edges) {
        into[edge.to as usize] += 1;
    }
    let mut ready: Vec<usize> = (0..into.len()).filter(|&i| into[i] == 0).collect();
    let mut done = 0;
    while let Some(state) = ready.pop() {
        done += 1;
        for edge in &graph.states[state].edges {
            into[edge.to as usize] -= 1;
            if into[edge.to as usize] == 0 {
                ready.push(edge.to as usize);
            }
        }
    }
    done < graph.states.len()
}

/// The graph's names: each actor with its program in words, each resource.
fn names(point: &Point, sim: &Sim<'_>) -> PlayGraph {
    let actors = sim
        .actors
        .iter()
        .map(|actor| {
            let group = &point.groups[actor.group as usize];
            PlayActor {
                name: group.actor_name(actor.index),
                program: group
                    .steps
                    .iter()
                    .map(|step| {
                        let Said { en, tr } = step_words(point, step);
                        (en, tr)
                    })
                    .collect(),
            }
        })
        .collect();
    PlayGraph {
        actors,
        registers: point.registers.iter().map(|r| r.name.clone()).collect(),
        locks: point.lock_names.clone(),
        queues: point.queues.iter().map(|q| q.name.clone()).collect(),
        stores: point.keys.iter().map(|k| k.name.clone()).collect(),
        states: Vec::new(),
    }
}

/// A program's step in words, as its config writes it (not what it did: the trace says
/// that).
fn step_words(point: &Point, step: &Step) -> Said {
    let pick = |names: &[String], pick: &Pick| match pick {
        Pick::One(r) => said(names[*r as usize].clone(), names[*r as usize].clone()),
        Pick::OneOf(items, _) => said(
            format!("one of {}", items.len()),
            format!("{} taneden biri", items.len()),
        ),
    };
    let register = |r: u16| point.registers[r as usize].name.clone();
    let queue = |q: u16| point.queues[q as usize].name.clone();
    let servers: Vec<String> = point.servers.iter().map(|s| s.name.clone()).collect();
    match step {
        Step::Read(r) => said(
            format!("read {}", register(*r)),
            format!("{} oku", register(*r)),
        ),
        Step::Write {
            register: r, cas, ..
        } => {
            let (en, tr) = if *cas {
                ("compare-and-set", "karşılaştır ve yaz:")
            } else {
                ("write", "yaz:")
            };
            said(
                format!("{en} {}", register(*r)),
                format!("{tr} {}", register(*r)),
            )
        }
        Step::Delay(_) => said("work", "çalış"),
        Step::Pause(_) => said("pause", "duraklat"),
        Step::Acquire { lock, .. } => {
            let name = pick(&point.lock_names, lock);
            said(
                format!("acquire {}", name.en),
                format!("{} kilidini al", name.tr),
            )
        }
        Step::Release(lock) => {
            let name = pick(&point.lock_names, lock);
            said(
                format!("release {}", name.en),
                format!("{} kilidini bırak", name.tr),
            )
        }
        Step::Renew(lock) => {
            let name = pick(&point.lock_names, lock);
            said(
                format!("renew {}", name.en),
                format!("{} kirasını yenile", name.tr),
            )
        }
        Step::Request { server, .. } => {
            let name = pick(&servers, server);
            said(
                format!("request {}", name.en),
                format!("{} sunucusuna istek", name.tr),
            )
        }
        Step::Send { link, .. } => {
            let name = pick(&point.link_names, link);
            said(
                format!("send over {}", name.en),
                format!("{} bağlantısından gönder", name.tr),
            )
        }
        Step::Crash { .. } => said("may crash", "çökebilir"),
        Step::Put { queue: q, .. }
        | Step::Take { queue: q, .. }
        | Step::Ack(q)
        | Step::Call { queue: q, .. }
        | Step::Reply { queue: q, .. } => {
            let (en, tr) = match step {
                Step::Put { .. } => ("put on", "kuyruğuna koy"),
                Step::Take { .. } => ("take from", "kuyruğundan al"),
                Step::Ack(_) => ("ack on", "kuyruğunda onayla"),
                Step::Call { .. } => ("call through", "üzerinden çağır"),
                _ => ("reply on", "üzerinden yanıtla"),
            };
            let name = queue(*q);
            said(format!("{en} {name}"), format!("{name} {tr}"))
        }
        Step::Keys {
            operation, store, ..
        } => {
            let name = &point.keys[*store as usize].name;
            let (en, tr) = match operation {
                KeyOp::Insert => ("insert into", "ekle:"),
                KeyOp::Lookup => ("look up in", "ara:"),
                KeyOp::Set => ("set in", "yaz:"),
                KeyOp::Remove => ("remove from", "sil:"),
            };
            said(format!("{en} {name}"), format!("{tr} {name}"))
        }
        Step::TxBegin => said("begin transaction", "işlem başlat"),
        Step::TxEnd => said("end transaction", "işlemi bitir"),
        Step::Stop => said("stop", "dur"),
        Step::Exit { .. } => said("end the repetition", "tekrarı bitir"),
        Step::Branch { .. } | Step::Jump(_) => said("go to a step", "bir adıma git"),
        Step::Fork { .. } => said("start parallel branches", "paralel dalları başlat"),
        Step::BranchEnd => said("end the branch", "dalı bitir"),
        Step::AfterTimeout(_) | Step::End => said("end", "son"),
    }
}

/// A state as a reader sees it (its edges and end filled in later).
fn view(sim: &Sim<'_>, queue: &EventQueue<Event>) -> PlayState {
    let free: Vec<bool> = {
        let mut free = vec![false; sim.jobs.len()];
        for &job in &sim.free_jobs {
            free[job as usize] = true;
        }
        free
    };
    let live = |job: usize| {
        let state = &sim.jobs[job];
        !free[job] && state.incarnation == sim.actors[state.actor as usize].incarnation
    };
    let actors = sim
        .actors
        .iter()
        .enumerate()
        .map(|(index, actor)| {
            if actor.crashed || actor.stopped {
                return ActorAt::Crashed;
            }
            let job = (0..sim.jobs.len()).find(|&j| live(j) && sim.jobs[j].actor == index as u32);
            match job {
                None if actor.started == 0 => ActorAt::NotStarted,
                None => ActorAt::Idle,
                Some(job) => {
                    let state = &sim.jobs[job];
                    let step = if state.step == u32::MAX {
                        0
                    } else {
                        state.step
                    };
                    let waits = state.waiting != u16::MAX
                        || state.polling != u16::MAX
                        || state.taking != u16::MAX
                        || state.serving != crate::run::state::NO_SERVER;
                    if waits {
                        ActorAt::Waiting(step)
                    } else {
                        ActorAt::At(step)
                    }
                }
            }
        })
        .collect();
    let locks = (0..sim.locks.len())
        .map(|lock| LockAt {
            holder: sim.holder_actor(lock),
            waiters: (0..sim.jobs.len())
                .filter(|&j| {
                    live(j)
                        && (sim.jobs[j].waiting as usize == lock
                            || sim.jobs[j].polling as usize == lock)
                })
                .map(|j| sim.jobs[j].actor)
                .collect(),
        })
        .collect();
    PlayState {
        time_ms: ns_to_ms(queue.now()),
        actors,
        registers: sim.registers.iter().map(|r| r.value()).collect(),
        locks,
        queues: sim
            .queues
            .iter()
            .map(|q| q.visible_values().collect())
            .collect(),
        stores: sim.keys.iter().map(|k| k.pairs()).collect(),
        edges: Vec::new(),
        end: None,
    }
}
