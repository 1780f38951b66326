//! Exploration: every execution a run's semantics allow, instead of the one a run takes —
//! every order of the events at one instant that the semantics leave free, and both
//! outcomes of every random draw that is a choice. A model that can be explored says so
//! through [`PreparedRun::explore`](crate::PreparedRun::explore); the front end checks
//! claims over all executions with what it returns.

use crate::declare::Cell;

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

impl Default for ExploreLimits {
    fn default() -> Self {
        ExploreLimits {
            max_states: 2_000_000,
            max_faults: 1,
            merge_states: true,
            max_outcomes: 10_000,
            reduce: Reduction::On,
            jobs: 1,
        }
    }
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
    pub bounded: Option<String>,
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
    /// Every distinct outcome, in the order the search first reached it (fewest events
    /// first).
    pub outcomes: Vec<Outcome>,
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
}

/// The choice one event of a schedule took.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    /// Which of the free events ran, from 0, in the engine's `(class, seq)` order.
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
