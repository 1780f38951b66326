//! Exploration: every execution a run's semantics allow, instead of the one a run takes —
//! every order of the events at one instant that the semantics leave free, and both
//! outcomes of every random draw that is a choice. A model that can be explored says so
//! through [`PreparedRun::explore`](crate::PreparedRun::explore); the front end checks
//! claims over all executions with what it returns.

use crate::declare::Cell;

pub mod schedulers;
pub use schedulers::{Schedulers, least_index};

/// What an exploration may do: its bounds and its switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExploreLimits {
    /// Most distinct states it visits: past them, the verdict is bounded, never a proof.
    pub max_states: u64,
    /// Most faults (lost or duplicated messages, crashes by probability) along one
    /// execution; a fault past them is no choice any more.
    pub max_faults: u32,
    /// Whether two executions reaching the same state are explored on from it once
    /// (visited-state hashing). Off, every execution is enumerated as a tree: for tests.
    pub merge_states: bool,
    /// Most distinct outcomes kept: past them, the verdict is bounded.
    pub max_outcomes: usize,
    /// Whether orders of independent events are skipped (a partial-order reduction).
    pub reduce: Reduction,
    /// Threads that expand states at once (1: in this thread). The result is the same
    /// with any number: states are expanded in parallel but merged in the one order a
    /// single thread takes.
    pub jobs: usize,
    /// `Some((k, n))`: explore only shard `k` of `n` (from 0), for [`merge_parts`] to
    /// join with the others; the result is then a part (see [`Exploration::part`]).
    pub shard: Option<(u32, u32)>,
    /// Whether the members of an actor group are taken as interchangeable (symmetry).
    pub symmetry: Symmetry,
    /// For tests only: fingerprints cut to their low 8 bits, so that different states
    /// share one. A build with debug assertions keeps each state's words beside its
    /// fingerprint and stops on two different states merged by one; this shows it does.
    pub weak_fingerprints: bool,
    /// Most bytes its kept states, its frontier and its graph may take, by an estimate
    /// from their contents (the same with any `jobs`): past it, no new state is kept and
    /// the verdict is bounded. `None`: no bound but `max_states`.
    pub max_memory_bytes: Option<u64>,
    /// Most bytes the counting's cold entries may take on disk, in the spill folder the
    /// run's context gives ([`RunContext::with_spill`](crate::RunContext::with_spill)):
    /// past it the verdict is the memory bound's ([`Reached::Spill`]). 0: nothing spills.
    pub max_spill_bytes: u64,
    /// The bytes of entries kept in memory past which the cold ones spill. `None`: an
    /// eighth of `max_memory_bytes` (with no budget, nothing spills). Small values also
    /// make the pages small (tests spill small explorations with 0).
    pub spill_from_bytes: Option<u64>,
    /// Whether the graph of entries is kept for [`Exploration::schedulers`] (a claim asks
    /// for the least or greatest probability over every scheduler). Off, nothing is kept.
    pub keep_schedulers: bool,
    /// Which back end steps the states: the run's interpreter, or a flat state compiled
    /// from the point where the point is one the flat back end covers.
    pub engine: Engine,
    /// Whether executions and probabilities are counted over the graph, or the states are
    /// only searched for the outcomes they reach ([`Counting::Reach`]).
    pub counting: Counting,
}

/// What an exploration counts. Counting executions keeps the graph's every transition and
/// walks it after the search; a reachability search keeps for each state its fingerprint
/// and its first parent's number, and nothing else: it finds every reachable outcome and
/// each one's shortest execution, which is all `always`, `never`, `sometimes` and a
/// `min` / `max` ask, but no number of executions nor any probability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Counting {
    /// Every outcome's executions and, where defined, probability (the graph kept).
    #[default]
    Executions,
    /// Only which outcomes are reachable ([`Exploration::counted`] is then `false`).
    /// `keep_counts`: a register's counts (its writes, lost updates and refused writes)
    /// are kept in each state, so that the metrics reporting them are exact (more states);
    /// without, those metrics' cells are empty: not counted.
    Reach {
        /// Whether a register's counts are part of each state.
        keep_counts: bool,
    },
}

/// The back end that steps an exploration's states. Both explore the same graph, state
/// for state, and give the same outcomes, executions, probabilities and traces; the flat
/// one keeps only the words a point can change and steps them directly, so it is several
/// times faster and smaller, but covers fewer points (its module says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The flat back end where it covers the point, else the interpreter.
    #[default]
    Auto,
    /// The run's interpreter, whatever the point (the reference).
    Interpret,
    /// The flat back end: a point it does not cover is an error saying why.
    Flat,
}

/// The symmetry reduction: the members of an actor group (`count = k`) run the same steps
/// and differ only by their names, so a state and the one with two members' places
/// swapped go on alike. States are keyed by a canonical order of each such group's
/// members (and every reference to them); one of each set of such states is explored.
/// Execution counts and probabilities stay exact: every transition of the kept state is
/// counted, and the swapped states have as many executions as it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symmetry {
    /// Every state apart.
    Off,
    /// Groups whose members are interchangeable are reduced.
    On,
    /// A deliberately wrong canonical order, for tests only: the members are ordered
    /// without what each read of the registers, so states that differ by it are merged.
    /// It shows that the tests comparing a reduced exploration with a plain one can fail.
    PlantedBug,
}

/// What the symmetry reduction did with one actor group of a point (kept as data, so the
/// front end says it in a config's language).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymmetryNote {
    /// The group's name.
    pub group: String,
    /// Its members.
    pub members: u32,
    /// Why its members were (or were not) taken as interchangeable.
    pub kept: Kept,
}

/// Why a group's members were, or were not, taken as interchangeable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// Reduced: its members are interchangeable.
    Reduced,
    /// Its steps or its start name `i`, the actor's index, or give a list of one number
    /// per member: its members differ.
    UsesIndex,
    /// Its members start at different times.
    StartsApart,
    /// A group of the point runs in an open loop (several repetitions of one actor at
    /// once): not reduced (yet).
    OpenLoop,
    /// A group of the point forks (`parallel`): not reduced (yet).
    Forks,
    /// A group of the point may crash: not reduced (yet).
    Crashes,
    /// The exploration is a shard of a split: shards key states without symmetry.
    Sharded,
    /// `--no-symmetry`.
    TurnedOff,
}

/// The partial-order reduction: at a state where one actor's next event is independent
/// of everything every other actor and resource could do at that instant, only that
/// event is taken, not every order of it among the others. The outcomes found are the
/// same; the executions counted are then representatives, one per class of orders that
/// differ only by independent events swapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    /// Every order of every instant's free events.
    Off,
    /// Independent events taken in one order.
    On,
    /// A deliberately wrong reduction, for tests only: a register's reads and writes are
    /// taken as independent of each other, so orders that lose an update are skipped. It
    /// shows that the tests comparing a reduced exploration with a full one can fail.
    PlantedBug,
}

/// The disk an exploration's spill may take by default: 64 GiB.
pub const DEFAULT_MAX_SPILL_BYTES: u64 = 64 << 30;

impl Default for ExploreLimits {
    fn default() -> Self {
        ExploreLimits {
            max_states: 2_000_000,
            max_faults: 1,
            merge_states: true,
            max_outcomes: 10_000,
            reduce: Reduction::On,
            jobs: 1,
            shard: None,
            symmetry: Symmetry::On,
            weak_fingerprints: false,
            max_memory_bytes: None,
            max_spill_bytes: DEFAULT_MAX_SPILL_BYTES,
            spill_from_bytes: None,
            keep_schedulers: false,
            engine: Engine::Auto,
            counting: Counting::Executions,
        }
    }
}

/// Why an exploration is not exhaustive: the bound it reached, and in a merged split the
/// shard that reached it. Kept as what happened, not as a sentence, so that the front end
/// says it in a config's language; `Display` says it in English
/// (`bounded: 12 states, not exhaustive (`max_states`)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// What was reached.
    pub reached: Reached,
    /// `Some((k, n))`: shard `k` (from 0) of a split into `n` reached it.
    pub shard: Option<(u32, u32)>,
}

/// The bound an exploration reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    /// The time limit (`--max-seconds`) ended the search.
    Time {
        /// The distinct states visited by then.
        states: u64,
    },
    /// `max_states` distinct states were visited.
    States {
        /// The states visited: `max_states`.
        states: u64,
    },
    /// The counting over the graph took `max_states` states with their counts.
    Counts {
        /// The states with their counts taken.
        states: u64,
    },
    /// The states kept took the memory budget (`max_memory_bytes`): no new state was kept.
    Memory {
        /// The distinct states visited by then.
        states: u64,
    },
    /// The counting's cold entries could not spill to disk (past `max_spill_bytes`, or the
    /// spill folder could not be written): the counting stopped there.
    Spill {
        /// The states with their counts taken by then.
        states: u64,
    },
    /// More than `max_outcomes` distinct outcomes.
    Outcomes {
        /// `max_outcomes`.
        max: u64,
    },
    /// An execution can come back to a state it was in: its executions cannot all be
    /// counted.
    Cycle,
}

impl Bound {
    /// `reached`, by one search (not a shard's).
    pub fn new(reached: Reached) -> Bound {
        Bound {
            reached,
            shard: None,
        }
    }
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some((shard, shards)) = self.shard {
            write!(f, "shard {shard}/{shards}: ")?;
        }
        match self.reached {
            Reached::Time { states } => write!(
                f,
                "bounded: {} states, not exhaustive (stopped at the time limit, `--max-seconds`)",
                grouped(states)
            ),
            Reached::States { states } => write!(
                f,
                "bounded: {} states, not exhaustive (`max_states`)",
                grouped(states)
            ),
            Reached::Memory { states } => write!(
                f,
                "bounded: {} states, not exhaustive (memory, `--max-memory`)",
                grouped(states)
            ),
            Reached::Counts { states } => write!(
                f,
                "bounded: {} states with their counts, not exhaustive (`max_states`)",
                grouped(states)
            ),
            Reached::Spill { states } => write!(
                f,
                "bounded: {} states with their counts, not exhaustive (memory: the spill to disk could hold no more, `--max-spill`)",
                grouped(states)
            ),
            Reached::Outcomes { max } => write!(
                f,
                "bounded: more than {} distinct outcomes, not exhaustive (`max_outcomes`)",
                grouped(max)
            ),
            Reached::Cycle => write!(
                f,
                "bounded: an execution can come back to a state it was in (a cycle), so the executions cannot all be counted"
            ),
        }
    }
}

/// `n` with its thousands apart, as the front end writes English counts (`2,000,000`).
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// What an exploration found.
#[derive(Debug, Clone, PartialEq)]
pub struct Exploration {
    /// Distinct states visited (with merging off: every node of the tree).
    pub states: u64,
    /// Transitions run (an event, with its decided draws).
    pub transitions: u64,
    /// Complete executions (paths from the start to an end), saturating at `u128::MAX`.
    pub executions: u128,
    /// `None` when every execution was explored; else why not (a bound reached).
    pub bounded: Option<Bound>,
    /// Whether some choice had no probability: an instant that left several owners'
    /// events in a free order, or a `crash_anywhere` crash. Then executions differ by more
    /// than draws, and outcomes have no probability.
    pub ordered: bool,
    /// The most events along one execution.
    pub longest: u64,
    /// States at which one event commuting with every other was taken alone (the
    /// partial-order reduction): when not 0, `executions` counts one order of the events
    /// that commute, not each of their orders.
    pub reduced: u64,
    /// Every distinct outcome, fewest events first, then by its cells ([`outcome_order`]).
    pub outcomes: Vec<Outcome>,
    /// What the symmetry reduction did with each group of two actors or more (none when
    /// the point has no such group).
    pub symmetry: Vec<SymmetryNote>,
    /// Whether states were told apart by their 64-bit fingerprints (merging on, or the
    /// parts of a split): two different states could then share one, with the chance
    /// [`Exploration::collision_chance`] gives. A `--no-merge` tree compares none.
    pub keyed: bool,
    /// What a shard's exploration keeps for the merge (`None` unless
    /// [`ExploreLimits::shard`] was given). A part's counts are its own: only
    /// [`merge_parts`] of every shard gives the exploration's.
    pub part: Option<Part>,
    /// The graph of entries a scheduler chooses in, for the least and greatest
    /// probability of any set of outcomes ([`Schedulers::extreme`]): kept when
    /// [`ExploreLimits::keep_schedulers`] asks, the exploration exhaustive (not bounded)
    /// and not a shard's part; else `None`.
    pub schedulers: Option<Schedulers>,
    /// Each execution asked for over the schedulers' graph
    /// ([`PreparedRun::explore_showing`](crate::PreparedRun::explore_showing)), in the order
    /// asked; none when nothing asked, or the graph was not kept.
    pub paths: Vec<ExtremePath>,
    /// The back end that stepped the states: [`Engine::Interpret`] or [`Engine::Flat`]
    /// (never `Auto`). A merged split's is its parts'.
    pub engine: Engine,
    /// Whether the point has a loop without end, explored round its cycles: some
    /// outcomes are then lassos (an execution without end, [`Schedule::cycle_from`]), and
    /// `executions` counts nothing (there are infinitely many), nor has an outcome a
    /// probability.
    pub cycles: bool,
    /// Whether executions and probabilities were counted: `false` after a reachability
    /// search ([`Counting::Reach`]), whose `executions` (and each outcome's) are then 0,
    /// no outcome has a probability, and `longest` is the deepest state's first depth.
    pub counted: bool,
}

impl Exploration {
    /// The chance that two of the states seen shared a 64-bit fingerprint, so that one was
    /// taken for the other: about n² / 2^65 for n states (n(n − 1) / 2 pairs, each equal
    /// with chance 2^-64, as TLC estimates it), at most 1; 0 when no state was keyed.
    pub fn collision_chance(&self) -> f64 {
        if !self.keyed {
            return 0.0;
        }
        let n = self.states as f64;
        (n * n / 2f64.powi(65)).min(1.0)
    }
}

/// What a front end asks to see over an exploration's schedulers once its outcomes are
/// known: a scheduler that attains the least (`least`) or the greatest expected `worth`
/// (an outcome's worth by its index; 1 or 0 for a probability), and its most likely
/// execution among those ending with an outcome `into` marks
/// ([`Schedulers::extreme_path_of`]). The exploration answers with an [`ExtremePath`].
#[derive(Debug, Clone, PartialEq)]
pub struct PathAsk {
    /// The front end's own name for what asks (a claim's place), given back with the path.
    pub tag: u32,
    /// Each outcome's worth.
    pub worth: Vec<f64>,
    /// Whether the scheduler sought attains the least worth (else the greatest).
    pub least: bool,
    /// The outcomes the execution may end with.
    pub into: Vec<bool>,
}

/// What an exploration calls, once, with each outcome's metrics (in
/// [`Exploration::outcomes`]' order) and its schedulers'
/// graph, to learn which executions to show ([`PathAsk`]).
pub type AskPaths<'a> = dyn Fn(&[Vec<Cell>], &Schedulers) -> Vec<PathAsk> + Sync + 'a;

/// The answer to a [`PathAsk`]: the most likely execution of a scheduler that attains its
/// extreme, as a trace and as the schedule that replays it (checked to end in `outcome`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExtremePath {
    /// The ask's tag.
    pub tag: u32,
    /// The outcome it ends with (an index into the exploration's outcomes).
    pub outcome: usize,
    /// Its probability under that scheduler: the product of its draws' probabilities.
    pub probability: f64,
    /// The execution, step by step.
    pub trace: Vec<TraceStep>,
    /// The choices that make it.
    pub schedule: Schedule,
}

/// The order explored outcomes are listed in: by their shortest execution's events, then
/// by their cells ([`Cell::order`], column by column). It depends on the outcomes alone,
/// not on the order the search met them in, so a split's merge, a plain search and one
/// under symmetry list them alike.
pub fn outcome_order(
    events: usize,
    cells: &[Cell],
    other_events: usize,
    other_cells: &[Cell],
) -> std::cmp::Ordering {
    events.cmp(&other_events).then_with(|| {
        (cells.iter().zip(other_cells))
            .map(|(a, b)| a.order(b))
            .find(|o| o.is_ne())
            .unwrap_or(cells.len().cmp(&other_cells.len()))
    })
}

/// One distinct outcome: the metrics an execution ended with.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The metric cells, in the model's metric order.
    pub metrics: Vec<Cell>,
    /// The executions that end with it (saturating).
    pub executions: u128,
    /// Its exact probability, when the only choices were random draws (`ordered` false).
    pub probability: Option<f64>,
    /// Its shortest execution (fewest events), step by step.
    pub trace: Vec<TraceStep>,
    /// The same execution as the choices that make it: replayed by
    /// [`PreparedRun::replay`](crate::PreparedRun::replay) as a run with every output.
    pub schedule: Schedule,
}

/// One execution as the choices that make it, event by event: which of the free events
/// ran and what its draws were decided to be. With the point and the fault budget it was
/// explored under, it fixes the execution: a replay runs exactly it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schedule {
    /// Most faults along the execution (the exploration's `max_faults`): a fault past it
    /// is no choice, so a replay must count them as the exploration did.
    pub max_faults: u32,
    /// Each event's choice, in order.
    pub events: Vec<Decision>,
    /// A lasso's: the events from this index on are its cycle, taken for ever (after them
    /// the state is the one before that event, time shifted); `None`: the execution ends.
    pub cycle_from: Option<u32>,
}

/// The choice one event of a schedule took.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    /// Which of the free events ran, from 0, in `(class, owner)` order (not by insertion
    /// number, which two executions reaching one state may differ in).
    pub pick: u32,
    /// How many events were free.
    pub of: u32,
    /// Each random draw the event made, in order: `true` for "yes" (the fault happened,
    /// the chance was taken).
    pub draws: Vec<bool>,
    /// The event's actor crashed there instead of going on (a `crash_anywhere` crash).
    pub crash: bool,
}

/// Most events a schedule may hold (a limit on a file read back).
pub const MAX_SCHEDULE_EVENTS: usize = 10_000_000;

impl Decision {
    /// The text form: `2/3` (the second of three free events, counted from 1), then
    /// ` crash` for a `crash_anywhere` crash, then the draws as `y` / `n` after a space
    /// (`1/1 yn`).
    pub fn text(&self) -> String {
        let mut s = format!("{}/{}", self.pick + 1, self.of);
        if self.crash {
            s.push_str(" crash");
        }
        if !self.draws.is_empty() {
            s.push(' ');
            s.extend(self.draws.iter().map(|&d| if d { 'y' } else { 'n' }));
        }
        s
    }

    /// Reads [`Decision::text`]'s form back; `Err` says what is wrong with it.
    ///
    /// ```
    /// use coordsim_model::explore::Decision;
    /// let d = Decision::parse("2/3 yn").unwrap();
    /// assert_eq!((d.pick, d.of, &d.draws[..]), (1, 3, &[true, false][..]));
    /// assert_eq!(d.text(), "2/3 yn");
    /// assert!(Decision::parse("1/2 crash").unwrap().crash);
    /// assert!(Decision::parse("4/3").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Decision, String> {
        let form = "write `K/N` (the K-th of N free events, from 1), then optionally `crash`, then the draws as `y`/`n` (`1/2 yn`)";
        let (order, rest) = match text.trim().split_once(' ') {
            Some((o, d)) => (o, d.trim()),
            None => (text.trim(), ""),
        };
        let (crash, draws) = match rest.strip_prefix("crash") {
            Some(d) => (true, d.trim()),
            None => (false, rest),
        };
        let (k, n) = order
            .split_once('/')
            .ok_or_else(|| format!("`{text}` is no event's choice: {form}"))?;
        let k: u32 = k.parse().map_err(|_| format!("`{text}`: {form}"))?;
        let n: u32 = n.parse().map_err(|_| format!("`{text}`: {form}"))?;
        if k == 0 || k > n {
            return Err(format!(
                "`{text}`: the event picked must be one of the {n} free ones (1 to {n})"
            ));
        }
        let draws = draws
            .chars()
            .map(|c| match c {
                'y' => Ok(true),
                'n' => Ok(false),
                _ => Err(format!("`{text}`: a draw is `y` or `n`, not `{c}`")),
            })
            .collect::<Result<Vec<bool>, String>>()?;
        if draws.len() > 64 {
            return Err(format!(
                "`{text}`: at most 64 draws per event (an exploration decides no more)"
            ));
        }
        Ok(Decision {
            pick: k - 1,
            of: n,
            draws,
            crash,
        })
    }
}

/// One event of an execution.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStep {
    /// When it ran, in ms.
    pub time_ms: f64,
    /// Whose event: an actor's name, or a resource's.
    pub actor: String,
    /// What it did, in words (`read counter: 0`, `write counter = 1 (lost update)`).
    pub action: String,
    /// The choice taken here: which of the free events ran (`2 of 3`), and the draws
    /// decided (`lost`, `chance taken`); empty when there was none.
    pub choice: String,
    /// `action` in Turkish (a config's other locale).
    pub action_tr: String,
    /// `choice` in Turkish.
    pub choice_tr: String,
}

impl TraceStep {
    /// The row that closes a lasso's trace: after step `last` the execution is back where it
    /// was before step `first` (its time shifted), and goes round again for ever. Its words
    /// are read back by [`TraceStep::cycle_first_step`]: written and read here, in one place.
    pub fn cycle(first: usize, last: usize, time_ms: f64) -> TraceStep {
        TraceStep {
            time_ms,
            actor: String::new(),
            action: format!("the cycle: from step {last} back to step {first}, for ever"),
            choice: String::new(),
            action_tr: format!("döngü: {last}. adımdan {first}. adıma, sonsuza dek"),
            choice_tr: String::new(),
        }
    }

    /// The step a lasso's cycle goes back to, where this is the row that closes it
    /// ([`TraceStep::cycle`]); `None` for any other row.
    ///
    /// ```
    /// use coordsim_model::explore::TraceStep;
    /// assert_eq!(TraceStep::cycle(6, 8, 0.0).cycle_first_step(), Some(6));
    /// ```
    pub fn cycle_first_step(&self) -> Option<usize> {
        if !self.actor.is_empty() {
            return None;
        }
        let rest = self.action.strip_prefix("the cycle: from step ")?;
        let (_, first) = rest.split_once(" back to step ")?;
        first.strip_suffix(", for ever")?.parse().ok()
    }
}

/// What one shard of an exploration found, beyond its outcomes, for [`merge_parts`].
///
/// How an exploration is split: every shard runs the same first events as a tree (no
/// state merged) until one level holds enough states to share out; the states of that
/// level are dealt round robin, and each shard explores on from its own (merging states
/// among them). Every execution passes through exactly one state of the level, so the
/// executions and probabilities of the shards add up; the states they share are told
/// apart by their keys.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Part {
    /// Which shard, of how many.
    pub shard: (u32, u32),
    /// Every state the shard reached, the shared first levels included.
    pub visits: Vec<Visit>,
    /// Each outcome's order key, in `outcomes` order: the rank of each transition of its
    /// shortest execution among its state's transitions. The exploration's outcome order
    /// (fewest events, then these ranks compared in order) is the one an unsharded
    /// breadth-first search finds them in.
    pub ranks: Vec<Vec<u32>>,
    /// The exploration's `max_outcomes`: the merge is bounded past it, as one search is.
    pub max_outcomes: usize,
}

/// A state one shard reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Visit {
    /// Its fingerprint (with merging off, a hash of the execution that reaches it: in a
    /// tree every execution is a state of its own).
    pub key: u64,
    /// The fewest events from the start to it that this shard saw.
    pub depth: u32,
    /// The transitions run from it (0 when this shard did not expand it).
    pub transitions: u32,
    /// Whether the reduction took one event alone there.
    pub reduced: bool,
}

/// The shards' parts of one exploration (one [`Exploration`] per shard, each with its
/// [`Part`], every shard of the split once), joined into the exploration one search of
/// the whole would give: the same states, transitions, executions, outcomes in the same
/// order, each with the same shortest execution. Only an outcome's probability may differ
/// in its last bits: its terms are added in another order.
pub fn merge_parts(parts: &[Exploration]) -> Result<Exploration, String> {
    let n = parts.len();
    let mut have = vec![false; n];
    for e in parts {
        let Some(part) = &e.part else {
            return Err("an exploration that is not a shard's part was given to merge".into());
        };
        let (k, of) = part.shard;
        if of as usize != n || k >= of || std::mem::replace(&mut have[k as usize], true) {
            return Err(format!(
                "shard {k}/{of} does not fit a split into {n}: give every shard of one split once"
            ));
        }
    }
    let mut visits: Vec<Visit> = parts
        .iter()
        .flat_map(|e| e.part.iter().flat_map(|p| p.visits.iter().copied()))
        .collect();
    visits.sort_unstable_by_key(|v| v.key);
    let (mut states, mut transitions, mut reduced) = (0u64, 0u64, 0u64);
    for same in visits.chunk_by(|a, b| a.key == b.key) {
        states += 1;
        // A state's expansion is the same wherever it ran; a shard that only reached it
        // says 0.
        transitions += u64::from(same.iter().map(|v| v.transitions).max().unwrap_or(0));
        reduced += u64::from(same.iter().any(|v| v.reduced));
    }
    // Each distinct outcome: its best order key, the outcome, its probability so far.
    let mut by_cells: Vec<(Vec<u32>, Outcome, Option<f64>)> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    let mut bounded = None;
    for e in parts {
        let Some(part) = e.part.as_ref() else {
            continue;
        };
        if let (None, Some(b)) = (&bounded, &e.bounded) {
            bounded = Some(Bound {
                shard: Some(part.shard),
                ..*b
            });
        }
        for (o, rank) in e.outcomes.iter().zip(&part.ranks) {
            let key = format!("{:?}", o.metrics);
            match index.get(&key).map(|&i| &mut by_cells[i]) {
                Some((best, kept, chance)) => {
                    kept.executions = kept.executions.saturating_add(o.executions);
                    *chance = chance.zip(o.probability).map(|(a, b)| a + b);
                    if (rank.len(), rank) < (best.len(), best) {
                        *best = rank.clone();
                        kept.trace = o.trace.clone();
                        kept.schedule = o.schedule.clone();
                    }
                }
                None => {
                    index.insert(key, by_cells.len());
                    by_cells.push((rank.clone(), o.clone(), o.probability));
                }
            }
        }
    }
    // Fewest events first, then by the cells (as an exploration of the whole orders them).
    by_cells.sort_by(|a, b| outcome_order(a.0.len(), &a.1.metrics, b.0.len(), &b.1.metrics));
    let max_outcomes = parts
        .iter()
        .filter_map(|e| e.part.as_ref())
        .map(|p| p.max_outcomes)
        .min()
        .unwrap_or(usize::MAX);
    if by_cells.len() > max_outcomes {
        by_cells.truncate(max_outcomes);
        bounded.get_or_insert(Bound::new(Reached::Outcomes {
            max: max_outcomes as u64,
        }));
    }
    // Every execution lies within one shard's part: the longest is the longest of a part's.
    let longest = parts.iter().map(|e| e.longest).max().unwrap_or(0);
    let ordered = parts.iter().any(|e| e.ordered);
    let known = !ordered && bounded.is_none();
    Ok(Exploration {
        states,
        transitions,
        executions: parts
            .iter()
            .fold(0u128, |sum, e| sum.saturating_add(e.executions)),
        bounded,
        ordered,
        longest,
        reduced,
        keyed: true,
        // A point with a loop without end is explored whole, never split.
        cycles: false,
        counted: true,
        // Shards key their states without symmetry: each part says so alike.
        symmetry: parts
            .first()
            .map(|e| e.symmetry.clone())
            .unwrap_or_default(),
        outcomes: by_cells
            .into_iter()
            .map(|(_, mut o, chance)| {
                o.probability = chance.filter(|_| known);
                o
            })
            .collect(),
        part: None,
        // A split keeps no graph of entries: its parts' graphs are not joined.
        schedulers: None,
        paths: Vec::new(),
        engine: parts.first().map_or(Engine::Interpret, |e| e.engine),
    })
}
