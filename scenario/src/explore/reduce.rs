//! The partial-order reduction: when one actor's next event commutes with everything any
//! other owner could do at this instant, that event alone is taken from the state (an
//! "ample set" of one), instead of every order of it among the others.
//!
//! Why it is sound (the outcomes found are those of the full search). Take a state `s` and
//! an event `e` of actor `A` chosen here. Every execution from `s` runs `e` at this
//! instant, since `A`'s events keep their order and `e` is `A`'s first; the events that
//! can run before it are other owners'. Each of those touches only its owner's state, the
//! resources its owner's program may touch (an actor's: every step of its group; a
//! server's, a lock's, a queue's: itself), and the jobs waiting on those resources. `e` is
//! taken alone only when nothing of that can change what `e` does or be changed by it:
//! - `e` touches no resource with events of its own (a server, a lock, a link, a queue),
//!   and no resource another actor's program touches unless both only read it (two reads
//!   of a register commute; a read and a write do not);
//! - `A` has no other job alive, and `e` is a start or a resumption (not a timeout, a
//!   retry, a write's landing), so nothing `A` waits on can be handed to it meanwhile;
//!   `e` is of a class no event scheduled meanwhile for `A` can come before;
//! - `e` decides no fault (the fault budget is shared by all) and no transaction is open.
//!
//! Then `e` and every event that could come first commute: running `e` first reaches the
//! same states, up to the numbering of jobs. Cycles (a state reached again at one
//! instant) make the search bounded anyway, so no event is postponed for ever unnoticed.

use coordsim_model::Reduction;

use crate::point::{Pick, Point, Step};
use crate::run::state::{Event, Sim};
use crate::syntax::spec::KeyOp;

/// A resource, as the reduction tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resource {
    Register(u16),
    Lock(u16),
    Server(u16),
    Link(u16),
    Queue(u16),
    Keys(u16),
    /// A step whose reach the reduction does not follow (a crash, a transaction's start):
    /// dependent on everything.
    Everything,
}

/// A resource touched, and whether the touch may change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Touch {
    pub resource: Resource,
    pub writes: bool,
}

/// Whether two touches do not commute.
fn conflict(first: Touch, second: Touch, reduce: Reduction) -> bool {
    if first.resource == Resource::Everything || second.resource == Resource::Everything {
        return true;
    }
    if reduce == Reduction::PlantedBug && matches!(first.resource, Resource::Register(_)) {
        return false;
    }
    first.resource == second.resource && (first.writes || second.writes)
}

/// What step `step` may touch (every resource a `one_of` may name).
pub(super) fn touches(step: &Step, out: &mut Vec<Touch>) {
    let mut add = |resource, writes| {
        let touch = Touch { resource, writes };
        if !out.contains(&touch) {
            out.push(touch);
        }
    };
    let picks = |pick: &Pick| -> Vec<u16> {
        match pick {
            Pick::One(x) => vec![*x],
            Pick::OneOf(items, _) => items.clone(),
        }
    };
    match step {
        Step::Read(register) => add(Resource::Register(*register), false),
        Step::Write { register, .. } => add(Resource::Register(*register), true),
        Step::Acquire { lock, .. } | Step::Release(lock) | Step::Renew(lock) => {
            for lock_index in picks(lock) {
                add(Resource::Lock(lock_index), true);
            }
        }
        Step::Request { server, .. } => {
            for server_index in picks(server) {
                add(Resource::Server(server_index), true);
            }
        }
        Step::Send { link, .. } => {
            for link_index in picks(link) {
                add(Resource::Link(link_index), true);
            }
        }
        Step::Put { queue, .. }
        | Step::Take { queue, .. }
        | Step::Ack(queue)
        | Step::Call { queue, .. }
        | Step::Reply { queue, .. } => {
            add(Resource::Queue(*queue), true);
        }
        Step::Keys {
            operation, store, ..
        } => add(Resource::Keys(*store), *operation != KeyOp::Lookup),
        other if other.is_shared() => add(Resource::Everything, true),
        _ => {}
    }
}

/// The reduction's view of a point: what each group's program may touch.
pub(super) struct Reducer {
    reduce: Reduction,
    /// Per group, every touch any of its steps may make.
    programs: Vec<Vec<Touch>>,
    /// Per group, how many actors it has.
    counts: Vec<u32>,
    /// Per group and step: whether the step, run by one of the group's actors, commutes
    /// with everything every other actor's program may do (worked out once, not at each
    /// state: it depends on the programs alone).
    commutes: Vec<Vec<bool>>,
}

impl Reducer {
    pub(super) fn new(point: &Point, reduce: Reduction) -> Reducer {
        // A watch reads the states between one instant's events, which the reduction
        // assumes no one sees (it keeps the ends, not the states on the way): off.
        let reduce = if point.watches.is_empty() {
            reduce
        } else {
            Reduction::Off
        };
        let programs = point
            .groups
            .iter()
            .map(|group| {
                let mut all = Vec::new();
                for step in &group.steps {
                    touches(step, &mut all);
                }
                all
            })
            .collect();
        let mut reducer = Reducer {
            reduce,
            programs,
            counts: point.groups.iter().map(|g| g.count).collect(),
            commutes: Vec::new(),
        };
        reducer.commutes = point
            .groups
            .iter()
            .enumerate()
            .map(|(group_index, group)| {
                (0..group.steps.len() as u32)
                    .map(|step| reducer.commute(point, group_index, &[(group_index as u16, step)]))
                    .collect()
            })
            .collect();
        reducer
    }

    pub(super) fn on(&self) -> bool {
        self.reduce != Reduction::Off
    }

    /// Whether step `step` of group `group`, run by one of its actors, commutes with
    /// everything every other actor's program may do (the per-step table).
    pub(super) fn commutes_alone(&self, group: usize, step: u32) -> bool {
        self.commutes[group][step as usize]
    }

    /// Whether `event` (of class `class`) may be taken alone, before its footprint is
    /// known: an actor's start or resumption (not a wait's end, not a write's landing,
    /// whose touch no step records), of a class nothing scheduled meanwhile can precede,
    /// its actor with no other job alive, no transaction open.
    pub(super) fn may_be_alone(&self, sim: &Sim<'_>, class: u32, event: Event) -> bool {
        let actor = sim.owner(event);
        if actor as usize >= sim.actors.len() || class > sim.other || sim.transaction.job.is_some()
        {
            return false;
        }
        if !matches!(event, Event::Start { .. } | Event::Resume { .. }) {
            return false;
        }
        // A group that may crash anywhere shares its crash budget with every order.
        if sim.point.groups[sim.actors[actor as usize].group as usize]
            .crash_anywhere
            .is_some()
        {
            return false;
        }
        let alive = (0..sim.jobs.len() as u32)
            .filter(|&j| sim.jobs[j as usize].actor == actor && !sim.free_jobs.contains(&j))
            .count();
        alive <= 1
    }

    /// Whether an event of actor `actor` that ran the shared steps `ran` (group, step) in
    /// one of its branches commutes with everything every other owner may do.
    pub(super) fn independent(&self, sim: &Sim<'_>, actor: u32, ran: &[(u16, u32)]) -> bool {
        let own = sim.actors[actor as usize].group as usize;
        ran.iter()
            .all(|&(group, step)| match self.commutes.get(group as usize) {
                Some(steps) if group as usize == own => steps[step as usize],
                _ => self.commute(sim.point, own, &[(group, step)]),
            })
    }

    /// Whether the steps `ran` (group, step), run by an actor of group `own`, commute with
    /// everything every other actor's program may do.
    fn commute(&self, point: &Point, own: usize, ran: &[(u16, u32)]) -> bool {
        let mut footprint = Vec::new();
        for &(group, step) in ran {
            touches(
                &point.groups[group as usize].steps[step as usize],
                &mut footprint,
            );
        }
        footprint.iter().all(|&touch| {
            // A server, a lock, a link's queue have events of their own.
            let owned = matches!(
                touch.resource,
                Resource::Lock(_)
                    | Resource::Server(_)
                    | Resource::Link(_)
                    | Resource::Queue(_)
                    | Resource::Everything
            );
            !owned
                && self.programs.iter().enumerate().all(|(group, program)| {
                    let others = self.counts[group].saturating_sub(u32::from(group == own));
                    others == 0
                        || program
                            .iter()
                            .all(|&other| !conflict(touch, other, self.reduce))
                })
        })
    }
}
