//! A run's timeline, recorded only when a chart draws one (`Sim::lanes` is `None`
//! otherwise, and none of this runs): each actor's lane, the sub-row each repetition under
//! way takes on it, and, when a chart names `resources`, a lane per resource read off the
//! machines after every event (a run records them through `resources::Recorded`, so a run
//! without them pays nothing per event).

use coordsim_model::{Lane, Lanes, MAX_SUB_ROWS};
use sim_core::{Nanos, ns_to_ms};

use crate::point::{Pace, Point};

/// A server's down window on its lane.
pub(crate) const SERVER_DOWN: &str = "server_down";
/// A server's queue: requests waiting (not those in service).
pub(crate) const QUEUE_LENGTH: &str = "queue_length";
/// A lock's holder: the actor that has its record (a categorical level, by actor index).
pub(crate) const HOLDER: &str = "holder";
/// A message queue's depth: messages waiting to be taken.
pub(crate) const QUEUE_DEPTH: &str = "queue_depth";
/// A register's value.
pub(crate) const REGISTER_VALUE: &str = "register_value";
/// A key store's size.
pub(crate) const KEYS_HELD: &str = "keys_held";
/// An actor's repetitions under way, drawn when more overlap than it has sub-rows.
pub(crate) const IN_FLIGHT: &str = "in_flight";

/// No sub-row: the job is a repetition past [`MAX_SUB_ROWS`] under way at once.
const NO_ROW: u8 = u8::MAX;

/// What a run records for its timeline.
#[derive(Clone)]
pub(crate) struct Recorder {
    /// Each actor's lane.
    pub actors: Vec<Lane>,
    /// Each job's sub-row on its actor's lane.
    rows: Vec<u8>,
    /// Each actor's sub-rows taken, a bit each.
    taken: Vec<u8>,
    /// Each actor's repetitions under way, and their count as a level (kept on its lane
    /// only when some repetition found no sub-row).
    under_way: Vec<u32>,
    in_flight: Vec<Lane>,
    /// Per actor: whether its repetitions can overlap (an open loop, a fork's branches).
    overlaps: Vec<bool>,
    /// The resources' lanes, when a chart names some.
    pub resources: Option<Resources>,
}

/// The resources' lanes, by kind in the point's order, and each server's down window
/// under way.
#[derive(Clone)]
pub(crate) struct Resources {
    pub(super) servers: Vec<Lane>,
    pub(super) down_since: Vec<Option<Nanos>>,
    pub(super) locks: Vec<Lane>,
    /// When each lock's record, a lease's, lapses (no event marks that instant).
    pub(super) lapse: Vec<Option<Nanos>>,
    pub(super) queues: Vec<Lane>,
    pub(super) registers: Vec<Lane>,
    pub(super) keys: Vec<Lane>,
}

impl Recorder {
    /// Empty lanes for `point`'s actors, and for its resources when `resources`.
    pub(crate) fn new(point: &Point, resources: bool) -> Recorder {
        let actor_count = point.actors as usize;
        let mut overlaps = Vec::with_capacity(actor_count);
        for group in &point.groups {
            let open = !matches!(group.pace, Pace::Closed) || group.fan() > 0;
            overlaps.extend(std::iter::repeat_n(open, group.count as usize));
        }
        let lanes = |names: Vec<&String>| names.into_iter().map(Lane::new).collect::<Vec<_>>();
        Recorder {
            actors: (0..actor_count).map(|_| Lane::new(String::new())).collect(),
            rows: Vec::new(),
            taken: vec![0; actor_count],
            under_way: vec![0; actor_count],
            in_flight: (0..actor_count).map(|_| Lane::new(String::new())).collect(),
            overlaps,
            resources: resources.then(|| Resources {
                servers: lanes(point.servers.iter().map(|s| &s.name).collect()),
                down_since: vec![None; point.servers.len()],
                locks: lanes(point.lock_names.iter().collect()),
                lapse: vec![None; point.locks.len()],
                queues: lanes(point.queues.iter().map(|q| &q.name).collect()),
                registers: lanes(point.registers.iter().map(|r| &r.name).collect()),
                keys: lanes(point.keys.iter().map(|k| &k.name).collect()),
            }),
        }
    }

    /// Job `job` starts a repetition (or a branch) of `actor` at `now`: it takes the lowest
    /// free sub-row, or none when all [`MAX_SUB_ROWS`] are taken (the lane counts it).
    pub(crate) fn start(&mut self, job: u32, actor: u32, now: Nanos) {
        let (job, actor) = (job as usize, actor as usize);
        if self.rows.len() <= job {
            self.rows.resize(job + 1, NO_ROW);
        }
        let free = (!self.taken[actor]).trailing_zeros() as u8;
        self.rows[job] = if free < MAX_SUB_ROWS {
            self.taken[actor] |= 1 << free;
            free
        } else {
            self.actors[actor].add_overflow();
            NO_ROW
        };
        self.under_way[actor] += 1;
        if self.overlaps[actor] {
            self.in_flight[actor].level(IN_FLIGHT, ns_to_ms(now), f64::from(self.under_way[actor]));
        }
    }

    /// Job `job` of `actor` is done at `now`: its sub-row is free again.
    pub(crate) fn end(&mut self, job: u32, actor: u32, now: Nanos) {
        let (job, actor) = (job as usize, actor as usize);
        let Some(row) = self.rows.get_mut(job) else {
            return;
        };
        if *row < MAX_SUB_ROWS {
            self.taken[actor] &= !(1 << *row);
        }
        *row = NO_ROW;
        self.under_way[actor] = self.under_way[actor].saturating_sub(1);
        if self.overlaps[actor] {
            self.in_flight[actor].level(IN_FLIGHT, ns_to_ms(now), f64::from(self.under_way[actor]));
        }
    }

    /// The sub-row of `job`'s spans and marks (`None`: it has none, and is not drawn).
    pub(crate) fn row(&self, job: u32) -> Option<u8> {
        match self.rows.get(job as usize) {
            Some(&r) if r < MAX_SUB_ROWS => Some(r),
            Some(_) => None,
            None => Some(0),
        }
    }

    /// The lanes for the output: each actor's named by `names` (its in-flight count added
    /// when some repetition had no sub-row), each resource's after them.
    pub(crate) fn finish(mut self, names: Vec<String>, holders: &[String], end: Nanos) -> Lanes {
        let actors = std::mem::take(&mut self.actors);
        let mut out: Lanes = (actors.into_iter().zip(names))
            .zip(std::mem::take(&mut self.in_flight))
            .map(|((lane, name), count)| {
                if lane.overflow() == 0 {
                    let mut lane = lane;
                    lane.name = name;
                    return lane;
                }
                let (_, mut parts) = lane.into_parts();
                let (_, counted) = count.into_parts();
                parts.levels = counted.levels;
                parts.thinning.extend(counted.thinning);
                Lane::from_parts(name, parts)
            })
            .collect();
        if let Some(resources) = self.resources.take() {
            let end_ms = ns_to_ms(end);
            let mut servers = resources.servers;
            for (lane, since) in servers.iter_mut().zip(&resources.down_since) {
                if let Some(from) = since {
                    lane.span(SERVER_DOWN, ns_to_ms(*from), Some(end_ms));
                }
            }
            let mut locks = resources.locks;
            for (lane, lapse) in locks.iter_mut().zip(&resources.lapse) {
                if let Some(lapsed) = lapse.filter(|lapsed| *lapsed <= end) {
                    lane.level(HOLDER, ns_to_ms(lapsed), f64::NAN);
                }
                lane.set_categories(holders.to_vec());
            }
            for lane in (servers.into_iter())
                .chain(locks)
                .chain(resources.queues)
                .chain(resources.registers)
                .chain(resources.keys)
            {
                out.push_resource(lane);
            }
        }
        out
    }
}
