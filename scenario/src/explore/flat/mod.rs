//! The flat back end: a point compiled into a state of only the words its scenario can
//! change, stepped directly, instead of the run's whole state stepped by the interpreter.
//!
//! What it covers (so far): actors in closed loops that all start at 0 ms, whose steps
//! are reads and writes of registers with no read or write time (plain or
//! compare-and-set, not fenced), acquires (no timeout) and releases of queue locks, and
//! puts, takes (no timeout) and acks on queues with no link ([`queue`]; a visibility
//! timeout where no time passes but its timer's, [`ack`]), with `if`s, stops and early
//! ends between them ([`flow`]), an `if` by chance run each way it may draw ([`draw`]),
//! a group's `crash_anywhere` or a `crash` step ([`crash`]; one that restarts its actor,
//! or by names, [`restart`]), key stores' steps ([`keys`]; on keys the run computes,
//! [`computed`]), in a transaction or not ([`tx`]), requests at servers, which take
//! time ([`server`]), and `parallel`s whose branches read and write registers
//! ([`fork`]); other resources may be declared, and no step uses them. Every
//! event of such a point happens at the same instant, and each is one actor's next shared
//! step (a release also hands the lock to the longest waiter, and a put its message to the
//! longest waiting taker, whose next step is then free), so a state is
//!
//! ```text
//! [ each register's value | which registers were written (or refused a write)
//! | each lock taken by a step: its holder's token, its next token
//! | with a put or a take, each queue: its counts and its messages' numbers ([`queue`])
//! | with a key store's step, each store: its layout, total, counts and keys ([`keys`])
//! | each actor: where it is, what it read of each register
//!   (with a compare-and-set: its conflicts this repetition, its retries, its give-ups)
//!   (with a lock or a queue: how often it waited, the lock or queue it waits for and its
//!    place in that line, its flags and which locks it took last, its token of each lock,
//!    what it last took from each queue)
//!   (with a key store's step: what its last step on each store left in its name) ]
//! ```
//!
//! Every word that names a member sits in that member's block (its place in a queue, its
//! tokens, whether it took a lock last), so sorting the blocks is the whole canonical
//! order under symmetry.
//!
//! `R + 1 + A·(1 + R)` words for `R` registers and `A` actors (the lost update of three
//! clients: eight words; three more an actor where a write is a compare-and-set), where
//! the interpreter keeps most of a kilobyte and fifteen buffers. Where it is: its
//! repetition times its steps plus its step, with a bit for "has run a step" (a start
//! and a resumption are not the same event, and a retry goes back to step 0) and three
//! for its job's outcome (none, a write applied, a lock acquired, a message taken or put,
//! a put refused), which the interpreter's state holds. A step is a few loads and stores;
//! a state is hashed as its words.
//!
//! Why the graph is the interpreter's, state for state without symmetry (a property test
//! compares the two on random points): the words are what the interpreter's fingerprint can tell apart at
//! such a point (its clock, its timers and its counts of completed repetitions follow
//! from the steps done), an actor's free event is its start until it has run a step and
//! a resumption after, taken in the interpreter's order (starts by actor, then
//! resumptions by actor), a repetition's end blanks what the actor read as the
//! interpreter's does, and the reduction takes the same event alone by the same
//! per-step table ([`Reducer`]). What the flat back end does not keep (a run's
//! timeline, its words for a trace, its metrics) is taken from the interpreter: each end
//! state is the interpreter's run replayed along the first execution that reached it,
//! and each outcome's trace is replayed and checked as with the interpreter's search.
//!
//! Under symmetry a reduced group's members are put in a canonical order of their words
//! ([`Flat::canonicalize`]): the states merged are the interpreter's (whose order is by a
//! hash of each member's words), but another member may stand for them, so an outcome's
//! trace may be another of its shortest executions ([`Flat::real_choices`] renames it
//! back along the real run).

mod ack;
mod computed;
mod cover;
mod crash;
mod draw;
mod flow;
mod fork;
mod keys;
mod layout;
mod lock;
mod names;
mod poll;
mod queue;
mod restart;
mod server;
mod symmetry;
mod time;
mod tx;
mod ways;

use layout::{Desk, Forks, Polls, Restarts};
pub(crate) use ways::{Draws, Ways};

use crate::explore::reduce::Reducer;
use crate::point::{Pick, Point, Step};
use crate::run::state::Sim;

/// Most registers a flat state keeps (their written flags are one word's bits).
const MAX_REGISTERS: usize = 64;

/// Most locks a flat state keeps (which ones an actor took last are one word's bits).
const MAX_LOCKS: usize = 32;

/// An actor's first word, beside its place (repetition × steps + step): it has run a step.
const STARTED: u64 = 1 << 63;
/// Where an actor's first word keeps its job's outcome (five bits): none, [`APPLIED`],
/// [`ACQUIRED`], [`TAKEN`], [`PUT`], [`FULL`], [`ACKED`], [`NOT_HELD`], and a key store's
/// ([`keys`]).
const OUTCOME_SHIFT: u32 = 58;
/// An actor's outcome bits, shifted down.
const OUTCOME: u64 = 31;
/// The outcome of a write applied.
const APPLIED: u64 = 1;
/// The outcome of a lock acquired.
const ACQUIRED: u64 = 2;
/// The outcome of a message taken.
const TAKEN: u64 = 3;
/// The outcome of a message put.
const PUT: u64 = 4;
/// The outcome of a put a full queue refused.
const FULL: u64 = 5;
/// The outcome of an ack of a message its take still held.
const ACKED: u64 = 6;
/// The outcome of an ack with nothing to acknowledge (an ack too late is none: in a flat
/// state every step runs before any message's visibility runs out).
const NOT_HELD: u64 = 7;
/// No event is due (the actor has ended): a timed state's due word.
const NONE: u64 = u64::MAX;
/// An actor's place in its first word.
const PLACE: u64 = (1 << OUTCOME_SHIFT) - 1;
/// An actor's lock flags: it has acquired a lock (its `lock_wait` is some).
const WAITED: u64 = 2;
/// An actor's lock flags: from this bit on, the locks it was the last to take.
const LAST_TAKER: u32 = 8;

/// Words an actor's block adds: when its next event is due (less the clock), when its
/// repetition started, when its last one ended; where it may wait (`waiting`: for a lock
/// or a message), its waits for locks added up, and when its last acquire or take (or its
/// start) began.
fn actor_words(waiting: bool) -> usize {
    if waiting { 5 } else { 3 }
}

/// Words the header adds for `registers` registers, `groups` groups and `locks` locks
/// taken: the clock, each register's instant and value as it began, each group's three
/// words of responses, each lock's five (since when its holder holds it, 0 when free; the
/// time it was held, added up; its waits' sum, greatest and multiset word).
fn header_words(registers: usize, groups: usize, locks: usize) -> usize {
    1 + 2 * registers + 3 * groups + 5 * locks
}

/// Which kinds of step a covered point's programs take.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Kinds {
    /// A write is a compare-and-set.
    pub(super) cas: bool,
    /// A step acquires or releases a lock.
    pub(super) locked: bool,
    /// Time moves on: a delay, an actor that starts after 0 ms, or a crash that restarts.
    pub(super) timed: bool,
    /// A step puts, takes or acks.
    pub(super) queued: bool,
    /// A program has an `if`, a `stop` or an early end.
    pub(super) flow: bool,
    /// A step uses a key store.
    pub(super) keyed: bool,
}

/// One actor as the flat back end steps it.
#[derive(Debug, Clone, Copy)]
struct Member {
    group: u16,
    /// `i` in its expressions.
    index: u32,
    /// Steps a repetition.
    steps: u32,
    /// Steps of all its repetitions.
    total: u64,
    /// Its repetitions.
    repeat: u64,
    /// When its first repetition starts (ns).
    start: u64,
}

/// Where a number is computed: by which actor (and its record), in which repetition, when
/// (ns), and what it read of the register its step writes (NaN: nothing, or no write).
#[derive(Debug, Clone, Copy)]
struct At {
    actor: usize,
    member: Member,
    repetition: u64,
    now: u64,
    read: f64,
    /// Its repetition has just begun (a condition looked at ahead): it has read nothing.
    blank: bool,
    /// Which of its jobs computes: 0 its own, `b + 1` branch `b` of its `parallel`.
    kid: usize,
}

impl At {
    /// Where a step at 0 ms computes: nothing read yet, its repetition under way.
    fn at_zero(actor: usize, member: Member, repetition: u64) -> At {
        At {
            actor,
            member,
            repetition,
            now: 0,
            read: f64::NAN,
            blank: false,
            kid: 0,
        }
    }
}

/// One queue's words in a flat state ([`queue`]'s layout).
#[derive(Debug, Clone, Copy)]
struct Line {
    /// Where its words begin.
    at: usize,
    /// Where its messages' words begin (after its counts).
    messages: usize,
    /// Numbers a message: its value, then its fields.
    width: usize,
    /// Words a message: its numbers, and with a visibility timeout whether it was
    /// acknowledged.
    stride: usize,
    /// Its visibility timeout (ns; 0: none, a take removes the message).
    visibility: u64,
    /// Messages it can be put (the slots its words keep).
    slots: u64,
    /// Most messages held (0: no limit).
    capacity: u64,
}

/// One key store's words in a flat state ([`keys`]'s layout).
#[derive(Debug, Clone, Default)]
struct Store {
    /// Where its words begin.
    at: usize,
    /// The keys its steps may name, in order.
    keys: Vec<i64>,
    /// A range it started with (its first key and count), laid out at its first change.
    range: (i64, u64),
    /// Pairs it keeps for keys the run computes ([`computed`]; 0: none).
    spare: usize,
}

/// The key stores of a flat state ([`Flat::with_keys`]); none where no step uses one.
#[derive(Debug, Clone, Default)]
struct Stores {
    stores: Vec<Store>,
    /// Words each actor's block ends with: one a store.
    kept: usize,
    /// The stores' words at the start.
    start: Vec<u64>,
    /// Per actor and step, whether the reduction takes that step alone: a key step may be
    /// told apart member by member (its key is the member's own).
    alone: Vec<Vec<bool>>,
    /// Where the last transaction's put numbers are, and how many it may keep ([`tx`]).
    last_put: (usize, usize),
}

/// A point compiled for the flat back end.
pub(super) struct Flat<'p> {
    point: &'p Point,
    registers: usize,
    members: Vec<Member>,
    /// Words a state.
    pub(super) width: usize,
    /// Words an actor: its place, its reads and, where a write is a compare-and-set, its
    /// conflicts this repetition, its retries and its give-ups.
    block: usize,
    /// Whether some write is a compare-and-set or some early end gives up (an actor's
    /// three counts are kept).
    cas: bool,
    /// Whether a program has an `if`, a `stop` or an early end ([`flow`]): the steps that
    /// are not shared run around each event's shared step.
    flow: bool,
    /// Whether an `if` is by chance: an event may run more than one way ([`draw`]).
    draws: bool,
    /// Whether a group may crash anywhere ([`crash`]).
    crash: bool,
    /// Whether a step is a crash ([`crash`]), and the faults an execution may have.
    crash_steps: bool,
    max_faults: u32,
    /// Locks a step takes or releases (all of them then: each has three words, and each
    /// actor its lock words and a token for each).
    locks: usize,
    /// Per group and step: whether the reduction takes that step alone.
    alone: Vec<Vec<bool>>,
    reduce: bool,
    /// The groups whose members are taken as interchangeable (symmetry): each one's first
    /// actor and its members.
    groups: Vec<(u32, u32)>,
    /// Whether an actor may wait (for a lock, or a message): its block keeps its wait
    /// words, its tokens and what it took from each queue.
    waiting: bool,
    /// Each queue's words ([`queue`]'s layout); none where no step puts or takes.
    queues: Vec<Line>,
    /// Words the queues take, after the locks'.
    queue_words: usize,
    /// Whether time moves on (an actor starts after 0 ms, or a step is a delay): the state
    /// then keeps the clock and the pending timers ([`time`]'s layout).
    timed: bool,
    /// Words before the first actor's block.
    header: usize,
    /// The latest instant an event may come due (the run's `max_virtual_time_ms`, ns): an
    /// event past it stops a run, so the interpreter takes the point over and says so.
    max_time: u64,
    /// The key stores' words ([`keys`]'s layout); none where no step uses one.
    keys: Stores,
    /// Each server's words, after the actors' blocks ([`server`]'s layout).
    servers: Vec<Desk>,
    /// Each actor's `parallel` words ([`fork`]'s layout); none where no group forks.
    forks: Forks,
    /// Restarts' words and crash steps by names ([`restart`]).
    restart: Restarts,
    /// The words of polled and leased locks and fences ([`poll`]'s layout), if any.
    polls: Polls,
}

/// Why a point is not one the flat back end covers.
pub(super) type Uncovered = &'static str;

/// A write's value (or a delay) that is no finite number, or an event due past the run's
/// time limit: the interpreter takes the point over, and says where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct NotFinite;

/// Most actors a flat point has: a choice names its event by a 16-bit pick.
const MAX_ACTORS: usize = u16::MAX as usize;

impl<'p> Flat<'p> {
    /// The point compiled, or why the flat back end does not cover it (`start`: the
    /// interpreter's start, for each actor's group, index and start time).
    pub(super) fn of(
        point: &'p Point,
        start: &Sim<'_>,
        reducer: &Reducer,
    ) -> Result<Self, Uncovered> {
        let Kinds {
            cas,
            locked,
            timed,
            queued,
            flow,
            keyed,
        } = Self::kinds(point, start)?;
        let mut members = Vec::with_capacity(start.actors.len());
        for actor in &start.actors {
            let group = &point.groups[actor.group as usize];
            let steps = Self::program_steps(group);
            // A timed place's stride is one more than the steps (a repetition's end).
            if u64::from(steps + 1).saturating_mul(group.repeat.saturating_add(1)) > PLACE {
                return Err("an actor runs more than 2^58 steps");
            }
            members.push(Member {
                group: actor.group,
                index: actor.index,
                steps,
                total: u64::from(steps).saturating_mul(group.repeat),
                repeat: group.repeat,
                start: actor.start,
            });
        }
        let registers = point.registers.len();
        let locks = if locked { point.locks.len() } else { 0 };
        // A server's requests wait in its instances' lines, as waiters for a lock do.
        let served = !point.servers.is_empty();
        let waiting = locked || queued || served;
        // What each actor last took from each queue: a word of its block.
        let taken = if queued { point.queues.len() } else { 0 };
        let mut block =
            1 + registers + if cas { 3 } else { 0 } + if waiting { 3 + locks + taken } else { 0 };
        let mut header = registers + 1 + 2 * locks;
        let forks = Self::forks_of(point, timed, block)?;
        block += forks.words();
        if timed {
            block += actor_words(waiting);
            header += header_words(registers, point.groups.len(), locks);
        }
        Flat {
            point,
            registers,
            width: header + members.len() * block,
            header,
            timed,
            block,
            cas,
            flow,
            draws: point.may_draw(),
            crash: (point.groups.iter()).any(|g| g.count > 0 && g.crash_anywhere.is_some()),
            crash_steps: (point.groups.iter().flat_map(|g| &g.steps))
                .any(|s| matches!(s, Step::Crash { .. })),
            max_faults: 0,
            locks,
            waiting,
            queues: Vec::new(),
            queue_words: 0,
            alone: (0..point.groups.len())
                .map(|g| {
                    (0..point.groups[g].steps.len() as u32)
                        .map(|s| reducer.commutes_alone(g, s))
                        .collect()
                })
                .collect(),
            reduce: reducer.on(),
            members,
            groups: Vec::new(),
            max_time: u64::MAX,
            keys: Stores::default(),
            servers: Vec::new(),
            forks,
            restart: Restarts::default(),
            polls: Polls::default(),
        }
        .with_queues(queued)?
        // The polls' header words are laid out before the key stores' (each store keeps
        // its place as it is laid out), restarts widen every actor's block at its end,
        // and the servers' words come after the blocks.
        .with_polls()?
        .with_keys(keyed, start, reducer)
        .map(Flat::with_restarts)
        .map(Flat::with_servers)
    }

    /// The start: each register at its initial value, written by none; each actor at its
    /// first step, having read nothing.
    pub(super) fn start(&self, state: &mut Vec<u64>) {
        if self.timed {
            return self.start_timed(state);
        }
        state.clear();
        state.extend(self.point.registers.iter().map(|r| r.initial.to_bits()));
        state.push(0);
        for lock in 0..self.locks {
            // No record (or a stale one), the first token next.
            state.extend([self.record_at_start(lock), 1]);
        }
        self.start_queues(state);
        self.start_keys(state);
        self.start_polls(state);
        for _ in &self.members {
            state.push(0);
            state.extend(std::iter::repeat_n(f64::NAN.to_bits(), self.registers));
            state.extend(std::iter::repeat_n(0, self.block - 1 - self.registers));
        }
    }

    /// The groups `groups` (each one's first actor and its members) taken as
    /// interchangeable: a state is put in a canonical order of their members before it is
    /// keyed ([`Flat::canonicalize`]).
    pub(super) fn with_symmetry(mut self, groups: Vec<(u32, u32)>) -> Self {
        self.groups = groups;
        self
    }

    /// The point with the most faults along an execution (`--max-faults`).
    pub(super) fn with_max_faults(mut self, max_faults: u32) -> Self {
        self.max_faults = max_faults;
        self
    }

    /// The point with its runs' latest instant for an event (ns).
    pub(super) fn with_max_time(mut self, max_time: u64) -> Self {
        self.max_time = max_time;
        self
    }

    /// Counts a transition adds to: three a register (writes, lost updates, refusals), as
    /// the interpreter's [`Sim::counts`] lays them out.
    pub(super) fn counts(&self) -> usize {
        3 * self.registers
    }

    /// Where actor `actor`'s words begin.
    fn base(&self, actor: usize) -> usize {
        self.header + actor * self.block
    }

    /// The free events of `state`, as actors in the interpreter's order (its starts, of
    /// class `1 + actor`, before its resumptions), or where no actor has one, the queues'
    /// timers due ([`Flat::timers`], as `actors + queue`): into `free`.
    pub(super) fn free(&self, state: &[u64], free: &mut Vec<u32>) {
        if self.timed {
            return self.free_timed(state, free);
        }
        free.clear();
        let first = |a: usize| state[self.base(a)];
        free.extend(
            (0..self.members.len())
                .filter(|&a| {
                    first(a) & STARTED == 0 && self.members[a].total > 0 && !self.waits(state, a)
                })
                .map(|a| a as u32),
        );
        free.extend(
            (0..self.members.len())
                .filter(|&a| {
                    first(a) & STARTED != 0
                        && (self.jobs_in_line(state, a)
                            || first(a) & PLACE < self.members[a].total && !self.waits(state, a))
                })
                .map(|a| a as u32),
        );
        if free.is_empty() {
            self.timers(state, free);
        }
    }

    /// Whether the reduction takes actor `actor`'s next step alone.
    pub(super) fn alone(&self, state: &[u64], actor: u32) -> bool {
        // A retry of a poll is no start nor resumption: never taken alone.
        if self.may_crash_anywhere(actor) || self.polling(state, actor as usize) {
            return false;
        }
        if self.timed {
            return self.alone_timed(state, actor);
        }
        // A queue's timer is no actor's step: never taken alone, as the interpreter's.
        let Some(&member) = self.members.get(actor as usize) else {
            return false;
        };
        if let Some(alone) = self.fork_alone(state, actor as usize) {
            return alone;
        }
        let (place, steps) = (
            state[self.base(actor as usize)] & PLACE,
            u64::from(member.steps),
        );
        if self.flow {
            // The shared step its event runs, past the steps that are not (none: it runs
            // none, and touches nothing), whichever way its draws go.
            return self.reduce
                && self.alone_every_way(state, actor as usize, (place / steps, place % steps));
        }
        self.reduce && self.alone_at(actor as usize, member.group, (place % steps) as usize)
    }

    /// Whether actor `actor` waits for a lock (no event of its own is due).
    fn waits(&self, state: &[u64], actor: usize) -> bool {
        self.waiting && state[self.lock_words(actor) + 1] != 0
    }

    /// A write of `new` by an actor that read `read` (NaN: nothing) lands on `register`:
    /// true when it is a compare-and-set (`cas`) refused (the register changed since the
    /// read), else applied, a lost update where it changed. Either way the register is
    /// marked as landed on and `delta` counts it.
    fn land(
        &self,
        to: &mut [u64],
        delta: &mut [u64],
        register: usize,
        (read, new): (f64, f64),
        cas: bool,
    ) -> bool {
        let stale = !read.is_nan() && f64::from_bits(to[register]) != read;
        to[self.registers] |= 1 << register;
        if cas && stale {
            delta[3 * register + 2] += 1;
            return true;
        }
        // A transaction may write a register more than once in one event.
        delta[3 * register] += 1;
        delta[3 * register + 1] += u64::from(stale);
        to[register] = new.to_bits();
        false
    }

    /// Actor `actor`'s next step run from `from` into `to` (of the same width), what it
    /// adds to the registers' counts (writes, lost updates, refusals) into `delta`
    /// ([`Flat::counts`] words, zeroed first). `Err` where the interpreter would stop with
    /// an error (a lock acquired twice, one released unheld) or a value is no finite
    /// number: the interpreter takes the point over and says so. Its draws are decided by
    /// `draws` (what it drew is kept there).
    pub(super) fn step(
        &self,
        from: &[u64],
        actor: u32,
        to: &mut [u64],
        delta: &mut [u64],
        draws: &mut Draws,
    ) -> Result<(), NotFinite> {
        if self.timed {
            return self.step_timed(from, actor, to, delta, draws);
        }
        to.copy_from_slice(from);
        delta.fill(0);
        let actor = actor as usize;
        if actor >= self.members.len() {
            return self.timer(to, actor - self.members.len());
        }
        if let Some(forked) = self.fork_event(to, actor, delta, draws) {
            return forked;
        }
        let member = self.members[actor];
        let base = self.base(actor);
        if self.flow {
            // A start, or a retry from the first step: the steps before its shared one.
            to[base] |= STARTED;
            self.walk(to, actor, draws)?;
            if to[base] & PLACE >= member.total {
                return Ok(());
            }
        }
        let place = to[base] & PLACE;
        let mut outcome = (to[base] >> OUTCOME_SHIFT) & OUTCOME;
        let steps = u64::from(member.steps);
        let (repetition, step) = (place / steps, place % steps);
        let group = &self.point.groups[member.group as usize];
        // Where the actor goes next: its next step, or (a compare-and-set's conflict) its
        // repetition's first again or its next repetition's.
        let mut next = place + 1;
        // The waiter a release hands its lock to (or a put its message), with its place
        // and outcome: its steps go on after the actor's, as the interpreter's ready job.
        let mut handed = None;
        match &group.steps[step as usize] {
            Step::Read(register) => {
                let register = *register as usize;
                to[base + 1 + register] = from[register];
            }
            Step::Write {
                register,
                value,
                cas,
                max_retries,
            } => {
                let register = *register as usize;
                let at = At::at_zero(actor, member, repetition);
                let written = self.written(value, at, from, register)?;
                if self.land(to, delta, register, written, *cas) {
                    let counts = base + 1 + self.registers;
                    to[counts] += 1;
                    if to[counts] >= *max_retries {
                        // It gives up: its next repetition, as after any end; after its
                        // last, its job is freed at the step it gave up at (which the
                        // interpreter's job keeps): past its steps by that step and one.
                        to[counts + 2] += 1;
                        next = (repetition + 1) * steps;
                        if next == member.total {
                            next += 1 + step;
                        }
                    } else {
                        // The same repetition again from its first step, what it read kept.
                        to[counts + 1] += 1;
                        to[base] = STARTED | outcome << OUTCOME_SHIFT | (repetition * steps);
                        return Ok(());
                    }
                } else {
                    outcome = APPLIED;
                }
            }
            Step::Acquire {
                lock: Pick::One(lock),
                ..
            } => {
                if self.acquire(to, actor, *lock as usize)? {
                    outcome = ACQUIRED;
                } else {
                    to[base] |= STARTED;
                    return Ok(());
                }
            }
            Step::Release(Pick::One(lock)) => {
                // The longest waiter takes it and goes on past its acquire.
                if let Some(waiter) = self.release_held(to, actor, *lock as usize)? {
                    handed = Some((waiter, ACQUIRED));
                }
            }
            Step::Put {
                queue,
                value,
                fields,
            } => {
                let at = At::at_zero(actor, member, repetition);
                let waiter;
                (outcome, waiter) = self.put_message(to, at, *queue as usize, (value, fields))?;
                // The longest waiting taker takes it and goes on past its take.
                handed = waiter.map(|waiter| (waiter, TAKEN));
            }
            Step::Take { queue, .. } => {
                if self.take_message(to, actor, *queue as usize) {
                    outcome = TAKEN;
                } else {
                    to[base] |= STARTED;
                    return Ok(());
                }
            }
            Step::Ack(queue) => outcome = self.ack_message(to, actor, *queue as usize)?,
            Step::Keys {
                operation,
                store,
                key,
                value,
            } => {
                let at = At::at_zero(actor, member, repetition);
                outcome = self.key_step(to, at, (*operation, *store, key, value))?;
            }
            Step::TxBegin => {
                let at = At::at_zero(actor, member, repetition);
                let (end, waiter);
                (end, outcome, waiter) =
                    self.transaction(to, at, (step, outcome), (delta, draws))?;
                next = repetition * steps + end;
                handed = waiter.map(|waiter| (waiter, TAKEN));
            }
            Step::Crash { rule, restart } => {
                if self
                    .crash_step(to, actor, (rule, restart, place, 0), draws)?
                    .is_some()
                {
                    return Ok(());
                }
            }
            // [`Flat::of`] lets in no other step: the interpreter takes over if one came.
            _ => return Err(NotFinite),
        }
        self.go_on(to, actor, next, outcome, draws)?;
        if let Some((waiter, outcome)) = handed {
            let place = to[self.base(waiter)] & PLACE;
            self.go_on(to, waiter, place + 1, outcome, draws)?;
        }
        Ok(())
    }

    /// Actor `actor`'s job is freed: its tokens go back (a lock it holds stays taken) and
    /// what it took from each queue is forgotten, as the interpreter blanks a freed job's.
    fn give_back(&self, to: &mut [u64], actor: usize) {
        if self.waiting {
            let tokens = self.lock_words(actor) + 3;
            to[tokens..tokens + self.locks + self.queues.len()].fill(0);
        }
        self.forget_kept(to, actor);
    }

    /// Actor `actor` goes on to place `next` with its job's outcome `outcome`: at a
    /// repetition's end what it read was that repetition's (blanked whether another follows
    /// or the job is freed); a repetition that follows starts with no outcome and no
    /// conflict, where a freed job keeps its last ones and gives back its tokens, as the
    /// interpreter's does.
    fn go_on(
        &self,
        to: &mut [u64],
        actor: usize,
        next: u64,
        outcome: u64,
        draws: &mut Draws,
    ) -> Result<(), NotFinite> {
        self.go_on_only(to, actor, next, outcome);
        if self.flow {
            self.walk(to, actor, draws)?;
        }
        // A `parallel` next (no shared step before it): its branches made in this event.
        self.fork_if_at(to, actor);
        Ok(())
    }

    /// [`Flat::go_on`] without the steps that are not shared after it.
    fn go_on_only(&self, to: &mut [u64], actor: usize, next: u64, mut outcome: u64) {
        let member = self.members[actor];
        let base = self.base(actor);
        if next >= member.total || next.is_multiple_of(u64::from(member.steps)) {
            to[base + 1..base + 1 + self.registers].fill(f64::NAN.to_bits());
            if next < member.total {
                outcome = 0;
                if self.cas {
                    to[base + 1 + self.registers] = 0;
                }
            } else {
                self.give_back(to, actor);
            }
        }
        to[base] = STARTED | outcome << OUTCOME_SHIFT | next;
    }
}
