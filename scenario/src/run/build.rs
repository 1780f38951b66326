//! A run's state as it starts: every resource's machine, every actor, every group, with
//! room made up front for what the run may add.

use std::collections::VecDeque;

use coordsim_model::{ModelError, ParamError, RunContext};
use sim_core::{Nanos, Stream, ms_to_ns};

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
    /// The state at the start of a run of `p`.
    pub(crate) fn new(p: &'p Point, ctx: &RunContext) -> Result<Sim<'p>, ModelError> {
        let seed = ctx.seed();
        let n = p.actors as usize;
        if ctx.wants_lanes() && n > MAX_LANES {
            return Err(ModelError::Param(ParamError::new(
                "actor",
                format!(
                    "a timeline draws one lane per actor, at most {MAX_LANES}; this point has {n} actors (chart its metrics instead, or draw a smaller point)"
                ),
            )));
        }
        let (actors, streams, group_streams) = actors(p, seed)?;
        let servers = servers(p, ctx, seed);
        Ok(Sim {
            p,
            other: 1 + p.actors,
            jobs: Vec::with_capacity(n.min(1 << 16)),
            free: Vec::new(),
            tables: JobTables::default(),
            actors,
            regs: p.regs.iter().map(|r| Register::new(r.initial)).collect(),
            locks: p
                .locks
                .iter()
                .map(|l| Lock::new(l.mode, l.lease_ns, l.stale, ctx.samples(0)))
                .collect(),
            servers,
            links: p
                .links
                .iter()
                .enumerate()
                .map(|(k, half)| {
                    Link::new(*half, p.link_loss[k], p.link_dup[k], seed, &p.link_names[k])
                })
                .collect(),
            groups: group_states(p, ctx),
            ready: VecDeque::new(),
            last_end: None,
            lanes: ctx.wants_lanes().then(|| {
                Box::new(crate::run::lanes::Recorder::new(
                    p,
                    ctx.wants_resource_lanes(),
                ))
            }),
            entities: ctx.wants_entities(),
            streams,
            group_streams,
            closed: p
                .groups
                .iter()
                .map(|g| matches!(g.pace, Pace::Closed))
                .collect(),
            direct: direct_service(p, ctx.wants_lanes()),
            error: None,
            error_at: None,
            end: 0,
            polls: Polls::default(),
            last_taker: vec![(u32::MAX, 0); p.locks.len()],
            now: 0,
            slots: Vec::new(),
            free_slots: Vec::new(),
            wait_stats: Vec::new(),
            queues: queues(p),
            keys: key_stores(p),
            tx: Transaction::default(),
            scratch: Vec::new(),
            steer: None,
            fan: p.groups.iter().map(Group::fan).max().unwrap_or(0),
            calls: (p.groups.iter().flat_map(|g| &g.steps)).any(|s| matches!(s, Step::Call { .. })),
        })
    }
}

impl<'p> Sim<'p> {
    /// The state at the start of a run of `p` that an explorer steers: no group served
    /// directly (every request is a job's shared step), at most `max_faults` faults.
    pub(crate) fn steered(
        p: &'p Point,
        ctx: &RunContext,
        max_faults: u32,
    ) -> Result<Sim<'p>, ModelError> {
        let mut sim = Sim::new(p, ctx)?;
        sim.direct = direct_service(p, true);
        sim.steer = Some(Box::new(crate::run::steer::Steer {
            max_faults,
            beyond: 1.0,
            ..Default::default()
        }));
        Ok(sim)
    }
}

/// Each server, with room for the waits of every request that may reach it.
fn servers(p: &Point, ctx: &RunContext, seed: u64) -> Vec<Server> {
    let reps_of = |g: &Group| u64::from(g.count).saturating_mul(g.repeat);
    p.servers
        .iter()
        .enumerate()
        .map(|(s, sv)| {
            let requests: u64 = p
                .groups
                .iter()
                .map(|g| {
                    let here = g.steps.iter().filter(|st| match st {
                        Step::Request { server, .. } => server.may_be(s as u16),
                        _ => false,
                    });
                    reps_of(g) * here.count() as u64
                })
                .sum();
            let attempts = requests.saturating_mul(
                p.groups
                    .iter()
                    .map(|g| u64::from(g.attempts))
                    .max()
                    .unwrap_or(1),
            );
            let waits = ctx.samples(attempts.min(1 << 27) as usize);
            Server::new(
                &sv.name,
                sv.instances,
                sv.service_ns,
                sv.dist.clone(),
                seed,
                waits,
            )
        })
        .collect()
}

/// Each group's counts, and room for its responses (none when its group is an alias).
fn group_states(p: &Point, ctx: &RunContext) -> Vec<GroupState> {
    let reps_of = |g: &Group| u64::from(g.count).saturating_mul(g.repeat);
    p.groups
        .iter()
        .map(|g| GroupState {
            responses: ctx.samples_capped(
                if alias(p, g).is_some() {
                    0
                } else {
                    reps_of(g).min(1 << 27) as usize
                },
                MAX_EXACT_RESPONSES,
            ),
            alias: alias(p, g),
            started: 0,
            completed: 0,
            gave_up: 0,
            crashed: 0,
            retries: 0,
            timeouts: 0,
            restarts: 0,
        })
        .collect()
}

/// Which groups are served directly, and each server's direct group.
fn direct_service(p: &Point, lanes: bool) -> Direct {
    Direct {
        groups: p.groups.iter().map(|g| direct(p, g, lanes)).collect(),
        servers: (0..p.servers.len())
            .map(|s| {
                p.groups
                    .iter()
                    .position(|g| direct(p, g, lanes).is_some_and(|(d, _)| d as usize == s))
                    .map(|g| g as u16)
            })
            .collect(),
    }
}

/// Each queue, with room for the messages its puts may make.
fn queues(p: &Point) -> Vec<Queue> {
    p.queues
        .iter()
        .enumerate()
        .map(|(k, q)| {
            let puts = room(
                p,
                |s| matches!(s, Step::Put { queue, .. } | Step::Call { queue, .. } if *queue as usize == k),
            );
            Queue::new(q.fields, q.capacity, q.visibility, puts)
        })
        .collect()
}

/// Each key store as it starts (a range kept aside), with room for the keys its steps
/// may add.
fn key_stores(p: &Point) -> Vec<KeyStore> {
    p
        .keys
        .iter()
        .enumerate()
        .map(|(k, ks)| {
            let adds = room(p, |s| {
                matches!(s, Step::Keys { op: KeyOp::Insert | KeyOp::Set, store, .. } if *store as usize == k)
            });
            match &ks.initial {
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
fn room(p: &Point, counted: impl Fn(&Step) -> bool) -> usize {
    let mut n: u64 = 0;
    for g in &p.groups {
        let steps = g.steps.iter().filter(|s| counted(s)).count() as u64;
        let reps = u64::from(g.count)
            .saturating_mul(g.repeat)
            .saturating_mul(u64::from(g.attempts));
        n = n.saturating_add(reps.saturating_mul(steps));
    }
    n.min(1 << 24) as usize
}

/// A group's server, instance and the number of groups that may ask that server, when each
/// of the group's repetitions is one request at a fixed instance that no timeout ends.
fn sole_request(p: &Point, g: &Group) -> Option<(u16, u32, usize)> {
    let [
        Step::Request {
            server: crate::point::Pick::One(s),
            instance: crate::point::Inst::Fixed(k),
            timeout: None,
        },
    ] = g.steps.as_slice()
    else {
        return None;
    };
    let askers = p
        .groups
        .iter()
        .filter(|h| {
            h.steps
                .iter()
                .any(|st| matches!(st, Step::Request { server, .. } if server.may_be(*s)))
        })
        .count();
    Some((*s, *k, askers))
}

/// A group's server when each of its repetitions is one request there that no timeout ends,
/// the server's service is fixed and no other group asks it (see [`GroupState::alias`]).
fn alias(p: &Point, g: &Group) -> Option<(u16, Nanos)> {
    let (s, _, askers) = sole_request(p, g)?;
    let sv = &p.servers[s as usize];
    (sv.dist.is_none() && !sv.abandons && askers == 1).then_some((s, sv.service_ns))
}

/// A group's server and instance when it is direct (see [`Direct`]).
fn direct(p: &Point, g: &Group, lanes: bool) -> Option<(u16, u32)> {
    let (s, k, askers) = sole_request(p, g)?;
    let open = !matches!(g.pace, Pace::Closed);
    (askers == 1 && open && !lanes && !p.servers[s as usize].special).then_some((s, k))
}

/// Every actor, the random streams, and each group's named crash stream.
type Actors = (Vec<Actor>, Vec<Stream>, Vec<Vec<u32>>);

/// Every actor at its start, with the random streams of those that draw (arrivals and
/// crashes, by group and index: `arrivals/client-3`, whatever the actors are called, so
/// naming them changes no draw).
fn actors(p: &Point, seed: u64) -> Result<Actors, ModelError> {
    let mut actors = Vec::with_capacity(p.actors as usize);
    let mut streams = Vec::new();
    let mut group_streams = Vec::new();
    for (g, group) in p.groups.iter().enumerate() {
        let random = matches!(group.pace, Pace::Random(_));
        let crashy = group.steps.iter().any(|s| {
            matches!(
                s,
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
        for i in 0..group.count {
            let start_ms = p.at_actor(&group.start_ms, i).unwrap_or(f64::NAN);
            let Some(start) = ms_to_ns(start_ms) else {
                return Err(ModelError::Param(ParamError::new(
                    &format!("actor[{g}].start_ms"),
                    format!("actor {i}: start_ms {}", sim_core::bad_duration(start_ms)),
                )));
            };
            let name = if draws {
                format!("{}-{i}", group.name)
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
            let rng = stream(random, "arrivals");
            let crash_rng = stream(crashy, "crash");
            let jitter_rng = stream(group.jitters, "jitter");
            let chance_rng = stream(chances, "chance");
            actors.push(Actor {
                group: g as u16,
                index: i,
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
                rng,
                crash_rng,
                jitter_rng,
                chance_rng,
                timeouts: 0,
                restarts: 0,
                incarnation: 0,
            });
        }
    }
    Ok((actors, streams, group_streams))
}
