//! A run's state as it starts: every resource's machine, every actor, every group, with
//! room made up front for what the run may add.

use std::collections::VecDeque;

use coordsim_model::{ModelError, ParamError, RunContext};
use sim_core::{Nanos, Samples, Stats, Stream, ms_to_ns};

use crate::machine::keys::KeyStore;
use crate::machine::link::Link;
use crate::machine::lock::Lock;
use crate::machine::queue::Queue;
use crate::machine::register::Register;
use crate::machine::server::Server;
use crate::point::{CrashRule, Group, InitialKeys, MAX_LANES, Pace, Point, Step};
use crate::run::state::{
    Actor, Direct, GroupState, JobTables, MAX_EXACT_RESPONSES, NO_STREAM, Polls, Sim, Transaction,
};
use crate::syntax::spec::KeyOp;

impl<'p> Sim<'p> {
    /// The state at the start of a run of `point`.
    pub(crate) fn new(point: &'p Point, context: &RunContext) -> Result<Sim<'p>, ModelError> {
        let seed = context.seed();
        let actor_count = point.actors as usize;
        if context.wants_lanes() && actor_count > MAX_LANES {
            return Err(ModelError::Param(ParamError::new(
                "actor",
                format!(
                    "a timeline draws one lane per actor, at most {MAX_LANES}; this point has {actor_count} actors (chart its metrics instead, or draw a smaller point)"
                ),
            )));
        }
        let (actors, streams, group_streams) = actors(point, seed)?;
        // A timeline, or a watch, reads every group's counts as each event leaves them: no
        // group is served directly (its counts are settled after the run).
        let per_event = context.wants_lanes() || !point.watches.is_empty();
        let servers = servers(point, context, seed);
        let mut sim = Sim {
            point,
            other: 1 + point.actors,
            jobs: Vec::with_capacity(actor_count.min(1 << 16)),
            free_jobs: Vec::new(),
            tables: JobTables::default(),
            actors,
            registers: point
                .registers
                .iter()
                .map(|r| Register::new(r.initial))
                .collect(),
            locks: point
                .locks
                .iter()
                .map(|l| Lock::new(l.mode, l.lease_ns, l.stale, context.samples(0)))
                .collect(),
            servers,
            links: point
                .links
                .iter()
                .enumerate()
                .map(|(link, half)| {
                    Link::new(
                        *half,
                        point.link_loss[link],
                        point.link_duplicate[link],
                        seed,
                        &point.link_names[link],
                    )
                })
                .collect(),
            groups: group_states(point, context, per_event),
            ready: VecDeque::new(),
            joined: None,
            last_end: None,
            lanes: context.wants_lanes().then(|| {
                Box::new(crate::run::lanes::Recorder::new(
                    point,
                    context.wants_resource_lanes(),
                ))
            }),
            entities: context.wants_entities(),
            streams,
            group_streams,
            closed: point
                .groups
                .iter()
                .map(|g| matches!(g.pace, Pace::Closed))
                .collect(),
            direct: direct_service(point, per_event),
            error: None,
            error_at: None,
            end: 0,
            polls: Polls::default(),
            last_taker: vec![(u32::MAX, 0); point.locks.len()],
            now: 0,
            slots: Vec::new(),
            free_slots: Vec::new(),
            wait_stats: Vec::new(),
            queues: queues(point),
            keys: key_stores(point),
            transaction: Transaction::default(),
            scratch: Vec::new(),
            steer: None,
            fan: point.groups.iter().map(Group::fan).max().unwrap_or(0),
            calls: (point.groups.iter().flat_map(|g| &g.steps))
                .any(|s| matches!(s, Step::Call { .. })),
            job_rows: false,
            tied: (point.groups.iter().flat_map(|g| &g.steps))
                .any(|s| matches!(s, Step::Fork { tied: true, .. })),
            watched: vec![Default::default(); point.watches.len()],
        };
        sim.job_rows = !(sim.registers.is_empty() && sim.queues.is_empty() && sim.keys.is_empty())
            || sim.calls;
        sim.hand_responses();
        Ok(sim)
    }

    /// A direct group that keeps its own responses (no alias) has its server record them
    /// during the run, as each service starts: `Sim::settle_direct` takes them back.
    fn hand_responses(&mut self) {
        for (group, direct) in self.direct.groups.iter().enumerate() {
            if let Some((server, _)) = direct
                && self.groups[group].alias.is_none()
            {
                let responses = std::mem::take(&mut self.groups[group].responses);
                self.servers[*server as usize].record_responses(responses);
            }
        }
    }
}

impl<'p> Sim<'p> {
    /// The state at the start of a run of `point` that an explorer steers: no group served
    /// directly (every request is a job's shared step), at most `max_faults` faults.
    pub(crate) fn steered(
        point: &'p Point,
        context: &RunContext,
        max_faults: u32,
    ) -> Result<Sim<'p>, ModelError> {
        let mut sim = Sim::new(point, context)?;
        sim.direct = direct_service(point, true);
        sim.groups = group_states(point, context, true);
        for server in &mut sim.servers {
            server.take_responses();
        }
        sim.steer = Some(Box::new(crate::run::steer::Steer {
            max_faults,
            beyond: 1.0,
            ..Default::default()
        }));
        sim.reserve_actor_slots();
        Ok(sim)
    }
}

/// Each server, with room for the waits of every request that may reach it.
fn servers(point: &Point, context: &RunContext, seed: u64) -> Vec<Server> {
    let repetitions_of = |group: &Group| u64::from(group.count).saturating_mul(group.repeat);
    point
        .servers
        .iter()
        .enumerate()
        .map(|(server_index, point_server)| {
            let requests: u64 = point
                .groups
                .iter()
                .map(|group| {
                    let here = group.steps.iter().filter(|step| match step {
                        Step::Request { server, .. } => server.may_be(server_index as u16),
                        _ => false,
                    });
                    repetitions_of(group) * here.count() as u64
                })
                .sum();
            let attempts = requests.saturating_mul(
                point
                    .groups
                    .iter()
                    .map(|group| u64::from(group.attempts))
                    .max()
                    .unwrap_or(1),
            );
            let waits = context.samples(attempts.min(1 << 27) as usize);
            Server::new(
                &point_server.name,
                point_server.instances,
                point_server.service_ns,
                point_server.distribution.clone(),
                seed,
                waits,
            )
        })
        .collect()
}

/// Each group's counts, and room for its responses (none when its group is an alias). A
/// direct group (as `lanes` decides) completes every repetition of a run that ends without
/// error: one of more than `MAX_EXACT_RESPONSES` keeps its responses in the histogram they
/// would move into, from the start (the same statistics, without the exact ones' memory).
fn group_states(point: &Point, context: &RunContext, lanes: bool) -> Vec<GroupState> {
    let repetitions_of = |group: &Group| u64::from(group.count).saturating_mul(group.repeat);
    point
        .groups
        .iter()
        .map(|group| {
            let alias = alias(point, group);
            let repetitions = repetitions_of(group);
            let responses = if alias.is_some() {
                context.samples_capped(0, MAX_EXACT_RESPONSES)
            } else if direct(point, group, lanes).is_some()
                && repetitions > MAX_EXACT_RESPONSES as u64
            {
                Samples::new(Stats::Hdr, 0).with_percentile(context.percentile())
            } else {
                context.samples_capped(repetitions.min(1 << 27) as usize, MAX_EXACT_RESPONSES)
            };
            GroupState {
                responses,
                alias,
                started: 0,
                completed: 0,
                gave_up: 0,
                crashed: 0,
                retries: 0,
                timeouts: 0,
                restarts: 0,
            }
        })
        .collect()
}

/// Which groups are served directly, and each server's direct group.
fn direct_service(point: &Point, lanes: bool) -> Direct {
    Direct {
        groups: point
            .groups
            .iter()
            .map(|g| direct(point, g, lanes))
            .collect(),
        servers: (0..point.servers.len())
            .map(|server| {
                point
                    .groups
                    .iter()
                    .any(|g| direct(point, g, lanes).is_some_and(|(d, _)| d as usize == server))
            })
            .collect(),
    }
}

/// Each queue, with room for the messages its puts may make.
fn queues(point: &Point) -> Vec<Queue> {
    point.queues
        .iter()
        .enumerate()
        .map(|(index, queue)| {
            let puts = room(
                point,
                |step| matches!(step, Step::Put { queue, .. } | Step::Call { queue, .. } if *queue as usize == index),
            );
            Queue::new(queue.fields, queue.capacity, queue.visibility, puts)
        })
        .collect()
}

/// Each key store as it starts (a range kept aside), with room for the keys its steps
/// may add.
fn key_stores(point: &Point) -> Vec<KeyStore> {
    point
        .keys
        .iter()
        .enumerate()
        .map(|(index, keys)| {
            let adds = room(point, |step| {
                matches!(step, Step::Keys { operation: KeyOp::Insert | KeyOp::Set, store, .. } if *store as usize == index)
            });
            match &keys.initial {
                InitialKeys::Pairs(pairs) => KeyStore::new(pairs, adds),
                InitialKeys::Range { from, count, value } => {
                    KeyStore::range(*from, *count, *value, adds)
                }
            }
        })
        .collect()
}

/// Room to make up front for what the steps `counted` may add (messages put, keys inserted),
/// at most one per such step of every attempt of every repetition, and at most 2^24: a
/// store or queue that grows past that grows as it goes.
fn room(point: &Point, counted: impl Fn(&Step) -> bool) -> usize {
    let mut total: u64 = 0;
    for group in &point.groups {
        let steps = group.steps.iter().filter(|step| counted(step)).count() as u64;
        let repetitions = u64::from(group.count)
            .saturating_mul(group.repeat)
            .saturating_mul(u64::from(group.attempts));
        total = total.saturating_add(repetitions.saturating_mul(steps));
    }
    total.min(1 << 24) as usize
}

/// A group's server, instance and the number of groups that may ask that server, when each
/// of the group's repetitions is one request at a fixed instance that no timeout ends.
fn sole_request(point: &Point, group: &Group) -> Option<(u16, u32, usize)> {
    let [
        Step::Request {
            server: crate::point::Pick::One(server),
            instance: crate::point::Instance::Fixed(instance),
            timeout: None,
        },
    ] = group.steps.as_slice()
    else {
        return None;
    };
    let askers = point
        .groups
        .iter()
        .filter(|other| {
            other.steps.iter().any(
                |step| matches!(step, Step::Request { server: asked, .. } if asked.may_be(*server)),
            )
        })
        .count();
    Some((*server, *instance, askers))
}

/// A group's server when each of its repetitions is one request there that no timeout ends,
/// the server's service is fixed and no other group asks it (see [`GroupState::alias`]).
fn alias(point: &Point, group: &Group) -> Option<(u16, Nanos)> {
    let (server, _, askers) = sole_request(point, group)?;
    let point_server = &point.servers[server as usize];
    (point_server.distribution.is_none() && !point_server.abandons && askers == 1)
        .then_some((server, point_server.service_ns))
}

/// A group's server and instance when it is direct (see [`Direct`]).
fn direct(point: &Point, group: &Group, lanes: bool) -> Option<(u16, u32)> {
    let (server, instance, askers) = sole_request(point, group)?;
    let open = !matches!(group.pace, Pace::Closed);
    (askers == 1 && open && !lanes && !point.servers[server as usize].special)
        .then_some((server, instance))
}

/// Every actor, the random streams, and each group's named crash stream.
type Actors = (Vec<Actor>, Vec<Stream>, Vec<Vec<u32>>);

/// Every actor at its start, with the random streams of those that draw (arrivals and
/// crashes, by group and index: `arrivals/client-3`, whatever the actors are called, so
/// naming them changes no draw).
fn actors(point: &Point, seed: u64) -> Result<Actors, ModelError> {
    let mut actors = Vec::with_capacity(point.actors as usize);
    let mut streams = Vec::new();
    let mut group_streams = Vec::new();
    for (group_index, group) in point.groups.iter().enumerate() {
        let random = matches!(group.pace, Pace::Random(_));
        let crashy = group.steps.iter().any(|step| {
            matches!(
                step,
                Step::Crash {
                    rule: CrashRule::Probability(_, None),
                    ..
                }
            )
        });
        // A stream named in the config is the group's, shared by its actors: keyed
        // `GROUP/NAME`, so two groups naming `s` draw independently, and (a group name being
        // letters, digits and `_`, and never an automatic stream's prefix when it names one)
        // no key is another group's or an automatic stream's.
        let mut named = Vec::new();
        for name in &group.named {
            streams.push(sim_core::stream(seed, &format!("{}/{name}", group.name)));
            named.push((streams.len() - 1) as u32);
        }
        group_streams.push(named);
        let chances = group.chances;
        let draws = random || crashy || group.jitters || chances;
        for index in 0..group.count {
            let start_ms = point.at_actor(&group.start_ms, index).unwrap_or(f64::NAN);
            let Some(start) = ms_to_ns(start_ms) else {
                return Err(ModelError::Param(ParamError::new(
                    &format!("actor[{group_index}].start_ms"),
                    format!(
                        "actor {index}: start_ms {}",
                        sim_core::bad_duration(start_ms)
                    ),
                )));
            };
            let name = if draws {
                format!("{}-{index}", group.name)
            } else {
                String::new()
            };
            let mut stream = |on: bool, source: &str| {
                if !on {
                    return NO_STREAM;
                }
                streams.push(sim_core::stream(seed, &format!("{source}/{name}")));
                (streams.len() - 1) as u32
            };
            let arrival_stream = stream(random, "arrivals");
            let crash_stream = stream(crashy, "crash");
            let jitter_stream = stream(group.jitters, "jitter");
            let chance_stream = stream(chances, "chance");
            actors.push(Actor {
                group: group_index as u16,
                index,
                start,
                started: 0,
                completed: 0,
                gave_up: 0,
                retries: 0,
                failed: 0,
                lock_wait: None,
                server_wait: None,
                rejected: 0,
                end: None,
                crashed: false,
                stopped: false,
                elapsed_ms: 0.0,
                arrival_stream,
                crash_stream,
                jitter_stream,
                chance_stream,
                timeouts: 0,
                restarts: 0,
                incarnation: 0,
            });
        }
    }
    Ok((actors, streams, group_streams))
}
