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
//!   of a register commute; a read and a write do not); a key store's step whose key is
//!   known before the run (a number, or an expression of `i` and the parameters) touches
//!   that key alone, where the store's numbers add up exactly in any order (below);
//! - `A` has no other job alive, and `e` is a start or a resumption (not a timeout, a
//!   retry, a write's landing), so nothing `A` waits on can be handed to it meanwhile;
//!   `e` is of a class no event scheduled meanwhile for `A` can come before;
//! - `e` decides no fault (the fault budget is shared by all) and no transaction is open.
//!
//! Then `e` and every event that could come first commute: running `e` first reaches the
//! same states, up to the numbering of jobs. Cycles (a state reached again at one
//! instant) make the search bounded anyway, so no event is postponed for ever unnoticed.

use std::collections::HashMap;

use coordsim_model::Reduction;

use crate::machine::keys::key_of;
use crate::point::{InitialKeys, Leaf, Operand, Pick, Point, Step};
use crate::run::state::{Event, Sim};
use crate::syntax::spec::{KeyOp, Number, Var};

/// A resource, as the reduction tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Resource {
    Register(u16),
    Lock(u16),
    Server(u16),
    Link(u16),
    Queue(u16),
    /// A key store as a whole: a step whose key is known only during the run.
    Keys(u16),
    /// One key of a key store: a step whose key is known before the run, in a store whose
    /// total adds up exactly in any order ([`Reducer::new`]).
    Key(u16, i64),
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

/// What step `step` may touch (every resource a `one_of` may name), a key store as a
/// whole.
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

/// The most members of a group whose key steps are told apart member by member (a table
/// of a flag per member and step): past it, a key store is touched as a whole.
const MAX_KEYED_MEMBERS: u32 = 65_536;

/// The largest number stored with a key for which a store's total still adds up exactly
/// in any order: whole numbers of at most 2^24 each keep every partial sum a whole number a
/// double holds (below 2^53) up to 2^29 keys, far past what an explored store can hold (each
/// explored state copies its store, and the memory bound stops it long before).
const EXACT_NUMBER: f64 = 16_777_216.0;

/// What one member touches, step by step (its key steps by key where the key is known
/// before the run), and in all.
struct Program {
    steps: Vec<Vec<Touch>>,
    /// Each resource it touches once, with whether some touch may change it.
    all: Vec<Touch>,
}

/// How many members touch a resource, and how many of them may change it.
#[derive(Debug, Clone, Copy, Default)]
struct Users {
    any: u64,
    writers: u64,
}

impl Users {
    fn add(&mut self, writes: bool, members: u64) {
        self.any += members;
        if writes {
            self.writers += members;
        }
    }

    /// Whether a touch (`writes`) conflicts with some member's other than one whose own
    /// touches of the same are `own` (saturating: a group of no members has a table too,
    /// never read).
    fn conflict(self, own: Users, writes: bool) -> bool {
        let writers = self.writers.saturating_sub(own.writers);
        writers > 0 || (writes && self.any.saturating_sub(own.any) > 0)
    }
}

/// Whether a group's steps commute alone: one table for every member, or one per member
/// (a group whose key steps name each member's own keys).
enum Alone {
    Same(Vec<bool>),
    PerMember(Vec<Vec<bool>>),
}

/// The reduction's view of a point: what each member's program may touch.
pub(super) struct Reducer {
    reduce: Reduction,
    /// Per resource, its users over every actor.
    users: HashMap<Resource, Users>,
    /// Per key store, the users of the store or any of its keys (a resource counted once
    /// for each of its keys a member touches).
    store_users: Vec<Users>,
    /// Per key store: whether its steps may be taken key by key.
    exact: Vec<bool>,
    /// Per group: whether its key steps are told apart member by member.
    keyed: Vec<bool>,
    /// Per group and step (and member, where keyed): whether the step, run by that
    /// member, commutes with everything every other actor's program may do (worked out
    /// once, not at each state: it depends on the programs alone).
    commutes: Vec<Alone>,
}

/// A key step's key, known before the run for member `i`: a number, or an expression of
/// `i` and the parameters computed as the run computes it.
fn static_key(operand: &Operand, i: u32, params: &[f64]) -> Option<i64> {
    let leaf = |leaf: Leaf| match leaf {
        Leaf::Lit(x) => Some(x),
        Leaf::Var(Var::Index) => Some(f64::from(i)),
        Leaf::Var(_) => None,
    };
    let number = match operand {
        Operand::Lit(x) => Some(*x),
        Operand::Var(variable) => leaf(Leaf::Var(*variable)),
        Operand::Bin(operation, left, right) => Some(operation.apply(leaf(*left)?, leaf(*right)?)),
        Operand::More(number) => static_number(number, i, params),
    }?;
    key_of(number)
}

/// [`static_key`]'s number for an expression or a list per member.
fn static_number(number: &Number, i: u32, params: &[f64]) -> Option<f64> {
    match number {
        Number::Lit(x) => Some(*x),
        Number::Expr(expression, _) => expression.eval(&|variable| match variable {
            Var::Index => Some(f64::from(i)),
            Var::Param(p) => Some(params.get(p as usize).copied().unwrap_or(f64::NAN)),
            _ => None,
        }),
        Number::Each(each) => static_number(each.get(i as usize)?, i, params),
        Number::By(..) => None,
    }
}

/// Whether `x` is a number a store may hold for its total to add up exactly in any order.
fn exact_number(x: f64) -> bool {
    x.fract() == 0.0 && x.abs() <= EXACT_NUMBER
}

/// Per key store, whether its total (its numbers added up, as they change) comes out the
/// same in any order of its steps: every number it starts with and every number a step
/// stores in it a small whole number, so that no sum rounds. Elsewhere two orders of
/// steps on different keys could end with totals a rounding apart: the store is then
/// touched as a whole.
fn exact_stores(point: &Point) -> Vec<bool> {
    let mut exact: Vec<bool> = point
        .keys
        .iter()
        .map(|keys| match &keys.initial {
            InitialKeys::Pairs(pairs) => pairs.iter().all(|&(_, x)| exact_number(x)),
            InitialKeys::Range { value, .. } => exact_number(*value),
        })
        .collect();
    for step in point.groups.iter().flat_map(|g| &g.steps) {
        if let Step::Keys {
            operation: KeyOp::Insert | KeyOp::Set,
            store,
            value,
            ..
        } = step
            && !matches!(value, Operand::Lit(x) if exact_number(*x))
        {
            exact[*store as usize] = false;
        }
    }
    exact
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
        let exact = exact_stores(point);
        let keyed = point
            .groups
            .iter()
            .map(|group| {
                (1..=MAX_KEYED_MEMBERS).contains(&group.count)
                    && group.steps.iter().any(
                        |step| matches!(step, Step::Keys { store, .. } if exact[*store as usize]),
                    )
            })
            .collect();
        let mut reducer = Reducer {
            reduce,
            users: HashMap::new(),
            store_users: vec![Users::default(); point.keys.len()],
            exact,
            keyed,
            commutes: Vec::new(),
        };
        for (g, group) in point.groups.iter().enumerate() {
            if reducer.keyed[g] {
                for i in 0..group.count {
                    reducer.count(&reducer.program(point, g, i), 1);
                }
            } else {
                reducer.count(&reducer.program(point, g, 0), u64::from(group.count));
            }
        }
        reducer.commutes = (0..point.groups.len())
            .map(|g| {
                let alone = |i| {
                    let program = reducer.program(point, g, i);
                    program
                        .steps
                        .iter()
                        .map(|footprint| reducer.commute(&program, footprint))
                        .collect()
                };
                if reducer.keyed[g] {
                    Alone::PerMember((0..point.groups[g].count).map(alone).collect())
                } else {
                    Alone::Same(alone(0))
                }
            })
            .collect();
        reducer
    }

    /// What member `i` of group `g` touches: its key steps by key where the key is known
    /// before the run and its store adds up exactly (and the group is told apart member by
    /// member, or every member's key is the same number).
    fn program(&self, point: &Point, g: usize, i: u32) -> Program {
        let group = &point.groups[g];
        let mut all: Vec<Touch> = Vec::new();
        let steps = group
            .steps
            .iter()
            .map(|step| {
                let mut footprint = Vec::new();
                touches(step, &mut footprint);
                if let Step::Keys { store, key, .. } = step
                    && self.exact[*store as usize]
                    && (self.keyed[g] || matches!(key, Operand::Lit(_)))
                    && let Some(key) = static_key(key, i, &point.params)
                {
                    for touch in &mut footprint {
                        touch.resource = Resource::Key(*store, key);
                    }
                }
                for touch in &footprint {
                    match all.iter_mut().find(|a| a.resource == touch.resource) {
                        Some(seen) => seen.writes |= touch.writes,
                        None => all.push(*touch),
                    }
                }
                footprint
            })
            .collect();
        Program { steps, all }
    }

    /// `program`'s users counted, for `members` members running it.
    fn count(&mut self, program: &Program, members: u64) {
        for touch in &program.all {
            self.users
                .entry(touch.resource)
                .or_default()
                .add(touch.writes, members);
            if let Resource::Keys(store) | Resource::Key(store, _) = touch.resource {
                self.store_users[store as usize].add(touch.writes, members);
            }
        }
    }

    pub(super) fn on(&self) -> bool {
        self.reduce != Reduction::Off
    }

    /// Whether step `step` of group `group`, run by any of its actors, commutes with
    /// everything every other actor's program may do (the per-step table).
    pub(super) fn commutes_alone(&self, group: usize, step: u32) -> bool {
        match &self.commutes[group] {
            Alone::Same(steps) => steps[step as usize],
            Alone::PerMember(members) => members.iter().all(|steps| steps[step as usize]),
        }
    }

    /// Whether step `step` of group `group`, run by its member `member`, commutes with
    /// everything every other actor's program may do (as [`Reducer::independent`] tells
    /// it for an event of that member's that ran that step alone).
    pub(super) fn commutes_alone_of(&self, group: usize, member: u32, step: u32) -> bool {
        match &self.commutes[group] {
            Alone::Same(steps) => steps[step as usize],
            Alone::PerMember(members) => members[member as usize][step as usize],
        }
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
        let member = &sim.actors[actor as usize];
        let (own, i) = (member.group as usize, member.index);
        ran.iter().all(|&(group, step)| {
            if group as usize == own {
                return match &self.commutes[own] {
                    Alone::Same(steps) => steps[step as usize],
                    Alone::PerMember(members) => members[i as usize][step as usize],
                };
            }
            let mut footprint = Vec::new();
            touches(
                &sim.point.groups[group as usize].steps[step as usize],
                &mut footprint,
            );
            self.commute(&self.program(sim.point, own, i), &footprint)
        })
    }

    /// Whether the touches `footprint`, made by a member whose whole program is `program`,
    /// commute with everything every other actor's program may do.
    fn commute(&self, program: &Program, footprint: &[Touch]) -> bool {
        let users = |resource| self.users.get(&resource).copied().unwrap_or_default();
        let own = |resource| {
            program
                .all
                .iter()
                .find(|touch| touch.resource == resource)
                .map_or(Users::default(), |touch| {
                    let mut users = Users::default();
                    users.add(touch.writes, 1);
                    users
                })
        };
        // Some other member's step the reduction does not follow: dependent on all.
        let everything = Resource::Everything;
        if users(everything).conflict(own(everything), true) {
            return false;
        }
        footprint.iter().all(|touch| match touch.resource {
            // A server, a lock, a link's queue have events of their own.
            Resource::Lock(_)
            | Resource::Server(_)
            | Resource::Link(_)
            | Resource::Queue(_)
            | Resource::Everything => false,
            Resource::Register(_) if self.reduce == Reduction::PlantedBug => true,
            Resource::Keys(store) => {
                let mut mine = Users::default();
                for touch in &program.all {
                    if let Resource::Keys(s) | Resource::Key(s, _) = touch.resource
                        && s == store
                    {
                        mine.add(touch.writes, 1);
                    }
                }
                !self.store_users[store as usize].conflict(mine, touch.writes)
            }
            Resource::Key(store, _) => {
                let whole = Resource::Keys(store);
                !users(touch.resource).conflict(own(touch.resource), touch.writes)
                    && !users(whole).conflict(own(whole), touch.writes)
            }
            resource => !users(resource).conflict(own(resource), touch.writes),
        })
    }
}
