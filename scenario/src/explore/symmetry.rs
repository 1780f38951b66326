//! Symmetry: the members of an actor group run the same steps and differ only by their
//! names, so a state and the same state with two members' places swapped go on alike.
//! Each state is put in a canonical order before it is keyed: each reduced group's members
//! sorted by what each is doing (a key of its own state, its job's and its pending
//! events), and every name of them renamed with them ([`Sim::relabel`]). States that are
//! one another's renamings then meet, and one of them is explored.
//!
//! Why counts stay exact: the state kept goes on through every transition it has, and a
//! renaming of it has as many executions to each outcome (an outcome is made of group and
//! resource metrics, which no renaming changes). The canonical order need not be perfect:
//! two states put in different orders are merely both explored.
//!
//! When a group is not reduced: its steps or start name `i` or give a list of one number per
//! member (its members differ), its members start apart, or the point has what the renaming
//! does not follow yet (an open loop, whose repetitions overlap; a `parallel`, whose branches
//! are jobs of their own; a crash, whose restart takes a new job). [`Kept`] says which.

use std::hash::{Hash, Hasher};

use coordsim_model::{ExploreLimits, Kept, SymmetryNote};
use rustc_hash::FxHasher;
use sim_core::EventQueue;
use smallvec::SmallVec;

use crate::point::{Pace, Point, Step};
use crate::run::state::{Event, Sim};
use crate::run::steer::{actor_words, job_words};

thread_local! {
    /// Each actor's key of its pending events, for the state being put in order.
    static PENDING: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The groups an exploration reduces, and how.
#[derive(Debug, Default)]
pub(super) struct Symmetry {
    /// Each reduced group: its first actor and its members.
    groups: Vec<(u32, u32)>,
    /// The planted bug (tests): renamed states keep what each job read in place.
    keep_reads: bool,
}

impl Symmetry {
    /// The groups of `point` whose members are interchangeable, judged at its start
    /// (`sim`: every actor's start known), and a note for each group of two or more.
    pub(super) fn of(
        point: &Point,
        sim: &Sim<'_>,
        limits: &ExploreLimits,
    ) -> (Symmetry, Vec<SymmetryNote>) {
        let whole_point = if limits.symmetry == coordsim_model::Symmetry::Off {
            Some(Kept::TurnedOff)
        } else if limits.shard.is_some() {
            // Shards meet at states keyed alike across machines: kept plain for now.
            Some(Kept::Sharded)
        } else {
            blocker(point)
        };
        let mut symmetry = Symmetry {
            groups: Vec::new(),
            keep_reads: limits.symmetry == coordsim_model::Symmetry::PlantedBug,
        };
        let mut notes = Vec::new();
        let mut first = 0u32;
        for group in &point.groups {
            let members = group.count;
            if members >= 2 {
                let starts = &sim.actors[first as usize..(first + members) as usize];
                let kept = if let Some(kept) = whole_point {
                    kept
                } else if group.uses_index {
                    Kept::UsesIndex
                } else if starts.iter().any(|a| a.start != starts[0].start) {
                    Kept::StartsApart
                } else if !limits.merge_states || !sim.one_job_per_actor() {
                    // A tree keys no state; a start of any other shape is not renamed.
                    Kept::TurnedOff
                } else {
                    Kept::Reduced
                };
                if kept == Kept::Reduced {
                    symmetry.groups.push((first, members));
                }
                notes.push(SymmetryNote {
                    group: group.name.clone(),
                    members,
                    kept,
                });
            }
            first += group.count;
        }
        (symmetry, notes)
    }

    /// The reduced groups: each one's first actor and its members.
    pub(super) fn groups(&self) -> &[(u32, u32)] {
        &self.groups
    }

    /// Whether its canonical order is the planted bug's (tests).
    pub(super) fn planted(&self) -> bool {
        self.keep_reads
    }

    /// Whether a group is reduced.
    pub(super) fn on(&self) -> bool {
        !self.groups.is_empty()
    }

    /// The state (`sim`, `queue`) put in its canonical order, in place: `true` when an
    /// actor moved, its new place then in `new_of` (by its old number).
    pub(super) fn canonicalize(
        &self,
        sim: &mut Sim<'_>,
        queue: &mut EventQueue<Event>,
        new_of: &mut Vec<u32>,
    ) -> bool {
        if self.groups.is_empty() {
            return false;
        }
        // What each actor's pending events are, as one key per actor (order aside), in a
        // buffer of the thread's: nothing allocated per state.
        PENDING.with_borrow_mut(|pending| self.order(sim, queue, new_of, pending))
    }

    /// [`Symmetry::canonicalize`] with `pending` to fill.
    fn order(
        &self,
        sim: &mut Sim<'_>,
        queue: &mut EventQueue<Event>,
        new_of: &mut Vec<u32>,
        pending: &mut Vec<u64>,
    ) -> bool {
        let actors = sim.actors.len();
        pending.clear();
        pending.resize(actors, 0);
        for (time, due) in queue.pending() {
            let actor = sim.owner(due.event) as usize;
            if actor < actors {
                let mut hasher = FxHasher::default();
                // An actor's own class (`1 + actor`) as such, any other as it is.
                let own = due.class == 1 + actor as u32;
                (time, own, (!own).then_some(due.class)).hash(&mut hasher);
                event_kind(sim, due.event).hash(&mut hasher);
                pending[actor] = pending[actor].wrapping_add(hasher.finish());
            }
        }
        new_of.clear();
        new_of.extend(0..actors as u32);
        let mut moved = false;
        for &(first, members) in &self.groups {
            let mut order: SmallVec<[(u64, u32); 16]> = (first..first + members)
                .map(|actor| (member_key(sim, actor, pending[actor as usize]), actor))
                .collect();
            order.sort_unstable();
            for (rank, &(_, actor)) in order.iter().enumerate() {
                let place = first + rank as u32;
                new_of[actor as usize] = place;
                moved |= place != actor;
            }
        }
        if moved {
            sim.relabel(queue, new_of, self.keep_reads);
        }
        moved
    }
}

impl Symmetry {
    /// The lowest-numbered member of `owner`'s reduced group that is `owner`'s twin in the
    /// run (`sim`, `queue`): swapping the two leaves the state as it is (its fingerprint).
    /// A trace rebuilt along kept states takes the twin's event instead, so it names the
    /// members as a search without symmetry would (`owner` itself when it has none).
    pub(super) fn lowest_twin(&self, sim: &Sim<'_>, queue: &EventQueue<Event>, owner: u32) -> u32 {
        let Some(&(first, _)) = (self.groups.iter())
            .find(|&&(first, members)| (first..first + members).contains(&owner))
        else {
            return owner;
        };
        let before = sim.fingerprint(queue);
        let mut swap: Vec<u32> = (0..sim.actors.len() as u32).collect();
        for twin in first..owner {
            swap.swap(twin as usize, owner as usize);
            let (mut swapped, mut swapped_queue) = (sim.clone(), queue.clone());
            swapped.relabel(&mut swapped_queue, &swap, false);
            if swapped.fingerprint(&swapped_queue) == before {
                return twin;
            }
            swap.swap(twin as usize, owner as usize);
        }
        owner
    }
}

/// What of the point keeps every group from being reduced, if anything: an open loop, a
/// `parallel`, a crash.
fn blocker(point: &Point) -> Option<Kept> {
    let groups = || point.groups.iter().filter(|group| group.count > 0);
    if groups().any(|group| !matches!(group.pace, Pace::Closed)) {
        return Some(Kept::OpenLoop);
    }
    if groups().any(|group| group.steps.iter().any(|s| matches!(s, Step::Fork { .. }))) {
        return Some(Kept::Forks);
    }
    if groups().any(|group| {
        group.crash_anywhere.is_some()
            || group.steps.iter().any(|s| matches!(s, Step::Crash { .. }))
    }) {
        return Some(Kept::Crashes);
    }
    None
}

/// A pending event of an actor, as its kind and whether it is live (a timer left from an
/// ended wait is not), without the actor's name.
fn event_kind(sim: &Sim<'_>, event: Event) -> (u8, bool) {
    match event {
        Event::Start { .. } => (0, true),
        Event::Resume { .. } => (1, true),
        Event::Land { .. } => (2, true),
        Event::Retry { .. } => (3, true),
        Event::Timeout { job, armed } => (4, sim.jobs[job as usize].armed == armed),
        _ => (5, true),
    }
}

/// A key of what member `actor` is doing, its name left out: its own state, its job's
/// (slot `actor`), its rows of the tables and its pending events (`pending`). Members that
/// do the same have the same key.
fn member_key(sim: &Sim<'_>, actor: u32, pending: u64) -> u64 {
    let mut hasher = FxHasher::default();
    actor_words(&sim.actors[actor as usize]).hash(&mut hasher);
    let mut job = sim.jobs[actor as usize];
    job.actor = 0;
    job_words(&job).hash(&mut hasher);
    let tables = &sim.tables;
    let row = |width: usize| actor as usize * width..(actor as usize + 1) * width;
    let jobs = sim.jobs.len();
    for read in &tables.reads[row(tables.reads.len() / jobs.max(1))] {
        read.to_bits().hash(&mut hasher);
    }
    for stored in &tables.stored[row(tables.stored.len() / jobs.max(1))] {
        stored.to_bits().hash(&mut hasher);
    }
    tables.tokens[row(tables.tokens.len() / jobs.max(1))].hash(&mut hasher);
    tables.taken[row(tables.taken.len() / jobs.max(1))].hash(&mut hasher);
    if let Some(reply) = tables.replies.get(actor as usize) {
        reply.to_bits().hash(&mut hasher);
    }
    // Where it stands among each lock's waiters and whether it took the lock last: names
    // of it that the lock keeps (two members alike but for these go on differently).
    for (lock, last) in sim.locks.iter().zip(&sim.last_taker) {
        (lock.waiter_place(|&(job, _)| job == actor), last.0 == actor).hash(&mut hasher);
    }
    // And among each queue's waiting takers (a put hands its message to the first).
    for queue in &sim.queues {
        (queue.waiters.iter().position(|&(job, _)| job == actor)).hash(&mut hasher);
    }
    pending.hash(&mut hasher);
    hasher.finish()
}
