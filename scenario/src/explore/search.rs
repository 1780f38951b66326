//! The search: breadth first over the run's states, so the first execution that reaches
//! an outcome is one of its shortest; the state graph kept (each state's first parent, and
//! every transition as an edge) so the executions and the probabilities are counted over
//! it afterwards, not by enumerating paths.

use std::collections::{HashMap, VecDeque};

use coordsim_model::explore::{Outcome, Schedule};
use coordsim_model::{Cell, Exploration, ExploreLimits, ModelError, ParamError, RunContext};
use sim_core::{Due, EventQueue, SimError};

use crate::explore::reduce::Reducer;
use crate::explore::step::{Choice, Ran, choices, run_chosen, start};
use crate::explore::trace;
use crate::point::Point;
use crate::run::state::{Ev, Sim};
use crate::syntax::metrics::Metric;

/// Most draws one event decides: a choice keeps them as the bits of one word.
const MAX_DRAWS: usize = 64;

/// No outcome: a state the run goes on from.
const GOES_ON: u32 = u32::MAX;

/// A state as the search first reached it.
#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    depth: u32,
    choice: Choice,
    /// The outcome it ends with, when no event is left (`GOES_ON`: none).
    outcome: u32,
}

/// A transition: from, to, its probability given its start (the product of its draws').
type Edge = (u32, u32, f64);

/// One way an event ran: the state it reached and what it did.
struct Branch<'a> {
    sim: Sim<'a>,
    q: EventQueue<Ev>,
    ran: Ran,
}

/// One distinct outcome: its cells and its first (shortest) end state.
struct Found {
    metrics: Vec<Cell>,
    first: u32,
}

pub(super) struct Search<'a> {
    p: &'a Point,
    fill: &'a [Metric],
    ctx: RunContext,
    limits: ExploreLimits,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    seen: HashMap<u64, u32>,
    found: Vec<Found>,
    by_cells: HashMap<String, u32>,
    transitions: u64,
    ordered: bool,
    bounded: Option<String>,
    reducer: Reducer,
    reduced: u64,
}

impl<'a> Search<'a> {
    pub(super) fn new(
        p: &'a Point,
        fill: &'a [Metric],
        ctx: &RunContext,
        limits: &ExploreLimits,
    ) -> Search<'a> {
        Search {
            p,
            fill,
            ctx: ctx.clone().with_lanes(false).with_distributions(false),
            limits: *limits,
            nodes: Vec::new(),
            edges: Vec::new(),
            seen: HashMap::new(),
            found: Vec::new(),
            by_cells: HashMap::new(),
            transitions: 0,
            ordered: false,
            bounded: None,
            reducer: Reducer::new(p, limits.reduce),
            reduced: 0,
        }
    }

    pub(super) fn run(mut self) -> Result<Exploration, ModelError> {
        let (sim, q) = start(self.p, &self.ctx, self.limits.max_faults)?;
        if self.limits.merge_states {
            self.seen.insert(sim.fingerprint(&q), 0);
        }
        self.nodes.push(Node {
            parent: 0,
            depth: 0,
            choice: Choice::default(),
            outcome: GOES_ON,
        });
        let mut frontier = VecDeque::from([(0u32, sim, q)]);
        while let Some((id, sim, q)) = frontier.pop_front() {
            let next = choices(&sim, &q);
            if next.is_empty() {
                self.end(id, sim, &q)?;
                continue;
            }
            self.ordered |= next.len() > 1;
            let depth = self.nodes[id as usize].depth + 1;
            // Each pick's branches, once computed (the reduction may compute some first).
            let mut tried: Vec<Option<Vec<Branch<'a>>>> = (0..next.len()).map(|_| None).collect();
            if self.reducer.on() && next.len() > 1 {
                // An event that commutes with everything else at this instant: taken
                // alone (`reduce`).
                for (pick, &due) in next.iter().enumerate() {
                    if !self.reducer.may_be_alone(&sim, due.class, due.event) {
                        continue;
                    }
                    let branches = self.branches(&sim, &q, due, depth)?;
                    let actor = sim.owner(due.event);
                    let alone = branches.iter().all(|b| {
                        b.ran.drawn.iter().all(|d| !d.fault)
                            && self.reducer.independent(&sim, actor, &b.ran.touched)
                    });
                    if alone {
                        tried.iter_mut().for_each(|t| *t = Some(Vec::new()));
                        self.reduced += 1;
                    }
                    tried[pick] = Some(branches);
                    if alone {
                        break;
                    }
                }
            }
            for (pick, &due) in next.iter().enumerate() {
                let branches = match tried[pick].take() {
                    Some(b) => b,
                    None => self.branches(&sim, &q, due, depth)?,
                };
                for b in branches {
                    self.reached(id, &next, pick, b, &mut frontier);
                }
            }
        }
        self.finish()
    }

    /// Every way event `due` can run from state (`sim`, `q`): one branch per decision of
    /// its draws (each draw past those given may go the other way).
    fn branches(
        &mut self,
        sim: &Sim<'a>,
        q: &EventQueue<Ev>,
        due: Due<Ev>,
        depth: u32,
    ) -> Result<Vec<Branch<'a>>, ModelError> {
        let mut out = Vec::new();
        let mut scripts: Vec<Vec<bool>> = vec![Vec::new()];
        while let Some(forced) = scripts.pop() {
            let mut s = sim.clone();
            let mut q2 = q.clone();
            let given = forced.len();
            let ran =
                run_chosen(&mut s, &mut q2, due, forced).map_err(|e| in_execution(e, depth))?;
            self.transitions += 1;
            let drawn = &ran.drawn;
            if drawn.len() > MAX_DRAWS {
                return Err(ModelError::Sim(SimError::Model(format!(
                    "one event decided {} random draws; an exploration branches on at most {MAX_DRAWS} per event",
                    drawn.len()
                ))));
            }
            for i in given..drawn.len() {
                let mut other: Vec<bool> = drawn[..i].iter().map(|d| d.taken).collect();
                other.push(true);
                scripts.push(other);
            }
            out.push(Branch { sim: s, q: q2, ran });
        }
        Ok(out)
    }

    /// Branch `b` (of the event `pick` of `next`) taken from state `id`: an edge to the
    /// state it reaches, a new node when it is new.
    fn reached(
        &mut self,
        id: u32,
        next: &[Due<Ev>],
        pick: usize,
        b: Branch<'a>,
        frontier: &mut VecDeque<(u32, Sim<'a>, EventQueue<Ev>)>,
    ) {
        let drawn = &b.ran.drawn;
        let probability: f64 = drawn
            .iter()
            .map(|d| if d.taken { d.p } else { 1.0 - d.p })
            .product::<f64>()
            * b.ran.beyond;
        let choice = Choice {
            pick: pick as u16,
            of: next.len() as u16,
            draws: drawn
                .iter()
                .enumerate()
                .fold(0, |bits, (i, d)| bits | u64::from(d.taken) << i),
            drawn: drawn.len() as u8,
        };
        let fingerprint = self.limits.merge_states.then(|| b.sim.fingerprint(&b.q));
        if let Some(&to) = fingerprint.and_then(|f| self.seen.get(&f)) {
            self.edges.push((id, to, probability));
            return;
        }
        if self.nodes.len() as u64 >= self.limits.max_states {
            self.bounded.get_or_insert(format!(
                "bounded: {} states, not exhaustive (`max_states`)",
                self.nodes.len()
            ));
            return;
        }
        let to = self.nodes.len() as u32;
        self.nodes.push(Node {
            parent: id,
            depth: self.nodes[id as usize].depth + 1,
            choice,
            outcome: GOES_ON,
        });
        if let Some(f) = fingerprint {
            self.seen.insert(f, to);
        }
        self.edges.push((id, to, probability));
        frontier.push_back((to, b.sim, b.q));
    }

    /// A state with no event left: the run's end, and its outcome.
    fn end(&mut self, id: u32, mut sim: Sim<'_>, q: &EventQueue<Ev>) -> Result<(), ModelError> {
        sim.end = q.now();
        sim.settle_direct();
        sim.check(self.ctx.seed())?;
        let metrics = sim.output(self.fill, &[], &self.ctx).metrics;
        let key = format!("{metrics:?}");
        let outcome = match self.by_cells.get(&key) {
            Some(&o) => o,
            None => {
                if self.found.len() >= self.limits.max_outcomes {
                    self.bounded.get_or_insert(format!(
                        "bounded: more than {} distinct outcomes, not exhaustive (`max_outcomes`)",
                        self.limits.max_outcomes
                    ));
                    return Ok(());
                }
                let o = self.found.len() as u32;
                self.found.push(Found { metrics, first: id });
                self.by_cells.insert(key, o);
                o
            }
        };
        self.nodes[id as usize].outcome = outcome;
        Ok(())
    }

    /// The executions and probabilities counted over the graph, in topological order; each
    /// outcome's shortest execution replayed.
    fn finish(self) -> Result<Exploration, ModelError> {
        let n = self.nodes.len();
        let mut indegree = vec![0u32; n];
        let mut out: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for &(from, to, p) in &self.edges {
            indegree[to as usize] += 1;
            out[from as usize].push((to, p));
        }
        let mut paths = vec![0u128; n];
        let mut chance = vec![0.0f64; n];
        paths[0] = 1;
        chance[0] = 1.0;
        let mut ready = vec![0u32];
        let mut done = 0usize;
        while let Some(u) = ready.pop() {
            done += 1;
            for &(v, p) in &out[u as usize] {
                let v = v as usize;
                paths[v] = paths[v].saturating_add(paths[u as usize]);
                chance[v] += chance[u as usize] * p;
                indegree[v] -= 1;
                if indegree[v] == 0 {
                    ready.push(v as u32);
                }
            }
        }
        let mut bounded = self.bounded.clone();
        if done < n {
            bounded.get_or_insert(
                "bounded: an execution can come back to a state it was in (a cycle), so the executions cannot all be counted"
                    .to_string(),
            );
        }
        let mut executions = 0u128;
        let mut by_outcome = vec![(0u128, 0.0f64); self.found.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            if node.outcome != GOES_ON {
                let o = &mut by_outcome[node.outcome as usize];
                o.0 = o.0.saturating_add(paths[i]);
                o.1 += chance[i];
                executions = executions.saturating_add(paths[i]);
            }
        }
        let longest = self
            .nodes
            .iter()
            .map(|n| u64::from(n.depth))
            .max()
            .unwrap_or(0);
        let mut outcomes = Vec::with_capacity(self.found.len());
        for (o, f) in self.found.iter().enumerate() {
            let schedule = Schedule {
                max_faults: self.limits.max_faults,
                events: self.path(f.first).iter().map(Choice::decision).collect(),
            };
            let (trace, _) = trace::replay(self.p, self.fill, &[], &self.ctx, &schedule)?;
            outcomes.push(Outcome {
                metrics: f.metrics.clone(),
                executions: by_outcome[o].0,
                probability: (!self.ordered && bounded.is_none()).then_some(by_outcome[o].1),
                trace,
                schedule,
            });
        }
        Ok(Exploration {
            states: n as u64,
            transitions: self.transitions,
            executions,
            bounded,
            ordered: self.ordered,
            longest,
            reduced: self.reduced,
            outcomes,
        })
    }

    /// The choices from the start to state `id`, along first parents.
    fn path(&self, mut id: u32) -> Vec<Choice> {
        let mut path = Vec::with_capacity(self.nodes[id as usize].depth as usize);
        while id != 0 {
            let node = &self.nodes[id as usize];
            path.push(node.choice);
            id = node.parent;
        }
        path.reverse();
        path
    }
}

/// An error found along an execution: said with how far in it was.
fn in_execution(e: ModelError, events: u32) -> ModelError {
    let along = format!("(in an explored execution, at its event {events})");
    match e {
        ModelError::Param(p) => {
            ModelError::Param(ParamError::new(&p.key, format!("{} {along}", p.message)))
        }
        ModelError::Sim(SimError::Model(m)) => {
            ModelError::Sim(SimError::Model(format!("{m} {along}")))
        }
        other => other,
    }
}
