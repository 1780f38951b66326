//! The exploration of a point with a loop without end (`repeat = "forever"`): breadth
//! first over its states by their cycle key ([`Sim::cycle_words`]: every instant relative
//! to now, counts left out), so that an execution coming back to where it was, time
//! shifted, closes a cycle. Its outcomes are the executions that end, as ever, and for
//! each watch a *lasso* where the watch's condition never holds (or a `leads_to` wait stays
//! open) for ever: a prefix from the start, then a cycle taken for ever, weakly fair (an
//! actor ready at every state of the cycle runs in it).

use std::collections::VecDeque;

use coordsim_model::explore::Outcome;
use coordsim_model::{
    Bound, Cell, Engine, Exploration, ExploreLimits, ModelError, ParamError, Reached, RunContext,
    Schedule,
};
use rustc_hash::FxHashMap;
use sim_core::{EventQueue, SimError};

use crate::explore::lasso::{Edge, Graph, components};
use crate::explore::step::{Choice, choices, in_execution, may_crash, run_chosen, start};
use crate::explore::trace;
use crate::point::{Point, Step};
use crate::run::cycle::cycle_watchable;
use crate::run::state::{Event, Sim};
use crate::syntax::metrics::Metric;

/// Most draws one event decides (as the search's).
const MAX_DRAWS: usize = 64;

/// What each state found keeps to the end besides its key's words and its transitions:
/// its lists' headers (transitions, ready owners, settled watches, as `Vec`s), its parent
/// and depth, its key's header and the map's slot for it (a hash table's entry and control
/// byte, at most half empty).
const PER_STATE_BYTES: u64 = {
    let list = std::mem::size_of::<Vec<u32>>() as u64;
    let parent = std::mem::size_of::<Option<(u32, usize)>>() as u64;
    let slot = std::mem::size_of::<(Vec<u64>, u32)>() as u64 + 1;
    3 * list + parent + 4 + 2 * slot
};

/// Why a point with a loop without end is not explored round its cycles, at the key that
/// makes it so; `None`: it is.
pub(crate) fn refusal(point: &Point) -> Option<(String, String)> {
    let why = |key: String, what: &str| {
        Some((
            key,
            format!(
                "a loop without end (`repeat = \"forever\"`) is explored over registers, locks, delays, `if`, `crash` and `end` steps only: {what}"
            ),
        ))
    };
    if !point.servers.is_empty() || !point.queues.is_empty() || !point.keys.is_empty() {
        return why(
            "resource".into(),
            "this point has a server, a queue or a key store",
        );
    }
    if !point.links.is_empty() {
        return why("resource".into(), "this point has a link");
    }
    if let Some(register) = point.registers.iter().find(|r| r.fence.is_some()) {
        // Its accepted token grows with every fenced write: no state would come back, and
        // the search would only run to its bound.
        return why(
            "resource".into(),
            &format!(
                "register `{}` is fenced (the token it accepted grows every round)",
                register.name
            ),
        );
    }
    for (index, group) in point.groups.iter().enumerate() {
        if !matches!(group.pace, crate::point::Pace::Closed) {
            return why(
                format!("actor[{index}].every_ms"),
                "an open loop's starts are set in time ahead",
            );
        }
        if group
            .crash_anywhere
            .as_ref()
            .is_some_and(|(_, restart)| restart.is_some())
        {
            return why(
                format!("actor[{index}].crash_anywhere"),
                "a restart is not followed yet",
            );
        }
        for (step, path) in group.steps.iter().zip(&group.paths) {
            let refused = match step {
                Step::Read(_)
                | Step::Delay(_)
                | Step::Pause(_)
                | Step::Release(_)
                | Step::Renew(_)
                | Step::Stop
                | Step::Exit { .. }
                | Step::Branch { .. }
                | Step::Jump(_)
                | Step::End => false,
                // A compare-and-set decides by the register's value against the read,
                // both in the key whole, and by its retries, in the key too.
                Step::Write { .. } => false,
                Step::Acquire { timeout, .. } => timeout.is_some(),
                Step::Crash { restart, .. } => restart.is_some(),
                _ => true,
            };
            if refused {
                return why(
                    path.clone(),
                    "this step is not (a request, a message, a key store, a transaction, a `parallel`, a timeout or a restart)",
                );
            }
            if reads_clock(step) {
                return why(
                    path.clone(),
                    "a number of this step reads `now`, `k` or `attempt`, which the cycle key leaves out (two rounds would look alike where they differ)",
                );
            }
        }
    }
    for (index, watch) in point.watches.iter().enumerate() {
        for test in std::iter::once(watch.when).chain(watch.leads_to) {
            if !cycle_watchable(test.metric) {
                return why(
                    format!("watch[{index}].metric"),
                    "a watch there reads a count, a register's value or whether a lock is held",
                );
            }
        }
    }
    None
}

/// Whether a number of `step` reads the clock (`now`), the repetition (`k`) or the attempt:
/// what the cycle key leaves out, so that a step reading them would tell rounds apart that
/// the key takes for one.
fn reads_clock(step: &Step) -> bool {
    use crate::point::{Condition, Duration, Leaf, Operand, Pick};
    use crate::syntax::spec::{Number, Var};
    fn clock(var: &Var) -> bool {
        matches!(var, Var::Now | Var::Rep | Var::Attempt)
    }
    fn number(n: &Number) -> bool {
        match n {
            Number::Lit(_) => false,
            Number::Expr(e, _) => e.any_var(&clock),
            Number::Each(items) => items.iter().any(number),
            Number::By(_, options) => options.iter().any(|(_, n)| number(n)),
        }
    }
    fn operand(o: &Operand) -> bool {
        let leaf = |l: &Leaf| matches!(l, Leaf::Var(v) if clock(v));
        match o {
            Operand::Lit(_) => false,
            Operand::Var(v) => clock(v),
            Operand::Bin(_, a, b) => leaf(a) || leaf(b),
            Operand::More(n) => number(n),
        }
    }
    let duration = |d: &Duration| matches!(d, Duration::Actor(n) if number(n));
    let pick = |p: &Pick| matches!(p, Pick::OneOf(_, n) if number(n));
    match step {
        Step::Write { value, .. } => number(value),
        Step::Delay(d) | Step::Pause(d) => duration(d),
        Step::Acquire { lock, .. } => pick(lock),
        Step::Release(p) | Step::Renew(p) => pick(p),
        Step::Branch { condition, .. } => match condition {
            Condition::Outcome(_) => false,
            Condition::Chance(n, _) => number(n),
            Condition::Compare(a, _, b) => operand(a) || operand(b),
        },
        _ => false,
    }
}

/// Explores `point` (which has a loop without end) round its cycles.
pub(super) fn explore(
    point: &Point,
    fill: &[Metric],
    context: &RunContext,
    limits: &ExploreLimits,
) -> Result<Exploration, ModelError> {
    if let Some((key, message)) = refusal(point) {
        return Err(ModelError::Param(ParamError::new(&key, message)));
    }
    if limits.shard.is_some() {
        return Err(ModelError::Sim(SimError::Model(
            "a point with a loop without end is explored whole, round its cycles: explore it without `--shard`".into(),
        )));
    }
    let context = context
        .clone()
        .with_lanes(false)
        .with_distributions(false)
        .without_stop();
    let Searched {
        graph,
        held,
        ends,
        states,
        bounded,
    } = search(point, fill, &context, limits)?;
    refuse_zeno(point, &graph)?;
    // An end reached after a cycle may be reached after any number of rounds, each with
    // its own counts (a crash after n completions): ends the key merged, so the outcomes
    // listed are not all of them.
    let mut bounded = bounded;
    if ends_after_a_cycle(&graph, &ends) {
        bounded.get_or_insert(Bound::new(Reached::Cycle));
    }
    let transitions = graph.edges.iter().map(|e| e.len() as u64).sum();
    // Each outcome: its events, its metrics (an end's), its schedule and, for a lasso, the
    // schedule that goes round its cycle twice.
    let mut outcomes: Vec<(usize, Vec<Cell>, Schedule, Option<Schedule>)> = Vec::new();
    // The ends, each distinct one by its shortest execution.
    let mut by_cells: FxHashMap<String, usize> = FxHashMap::default();
    for (node, metrics) in ends {
        let key = format!("{metrics:?}");
        if by_cells.contains_key(&key) {
            continue;
        }
        by_cells.insert(key, outcomes.len());
        let path = graph.path_to(node);
        outcomes.push((
            path.len(),
            metrics,
            graph.schedule(&path, &[], limits.max_faults),
            None,
        ));
    }
    // A lasso's outcome: its schedule (the prefix from the start to `entry`, the cycle
    // once) and the one that goes round the cycle twice.
    let lasso = |entry: u32, cycle: &[(u32, usize)]| {
        let prefix = graph.path_to(entry);
        let schedule = graph.schedule(&prefix, cycle, limits.max_faults);
        let twice = graph.schedule(&prefix, &cycle.repeat(2), limits.max_faults);
        (
            prefix.len() + cycle.len(),
            Vec::new(),
            schedule,
            Some(twice),
        )
    };
    // For each watch, a fair cycle on which it never settles: the lasso with the shortest
    // prefix.
    for watch in 0..point.watches.len() {
        let bad: Vec<bool> = held.iter().map(|h| !h[watch]).collect();
        if let Some((entry, cycle)) = graph.lasso(&bad, true) {
            outcomes.push(lasso(entry, &cycle));
        }
    }
    // Every other execution without end: one lasso for each set of states it may go round
    // for ever (fairly), whatever the watches.
    let everywhere = vec![true; graph.edges.len()];
    for (entry, cycle) in graph.lassos(&everywhere, true) {
        outcomes.push(lasso(entry, &cycle));
    }
    let mut explored = Vec::with_capacity(outcomes.len());
    for (_, metrics, schedule, twice) in outcomes {
        let (steps, mut ran) = trace::replay(point, fill, &[], &context, &schedule, &[])?;
        if schedule.cycle_from.is_none() && format!("{:?}", ran.metrics) != format!("{metrics:?}") {
            return Err(ModelError::Invariant(
                "internal: an end's schedule, run again, ends with other metrics".into(),
            ));
        }
        if let Some(twice) = twice {
            // A metric that moves round the cycle (a count that grows, a mean over more
            // rounds) has no value the execution keeps: empty. One that stays is the
            // value it keeps for ever.
            let (_, again) = trace::replay(point, fill, &[], &context, &twice, &[])?;
            for (cell, later) in ran.metrics.iter_mut().zip(&again.metrics) {
                if *cell != *later {
                    *cell = Cell::Empty;
                }
            }
        }
        if explored.iter().any(|o: &Outcome| o.metrics == ran.metrics) {
            continue;
        }
        explored.push(Outcome {
            metrics: ran.metrics,
            executions: 0,
            probability: None,
            trace: steps,
            schedule,
        });
    }
    let longest = explored
        .iter()
        .map(|o| o.schedule.events.len() as u64)
        .max()
        .unwrap_or(0);
    Ok(Exploration {
        states,
        transitions,
        executions: 0,
        bounded,
        ordered: true,
        longest,
        reduced: 0,
        outcomes: explored,
        symmetry: Vec::new(),
        keyed: false,
        part: None,
        schedulers: None,
        engine: Engine::Interpret,
        cycles: true,
        counted: true,
        paths: Vec::new(),
    })
}

/// Whether some end of `graph` is reached from a state on a cycle (so after any number of
/// rounds of it).
fn ends_after_a_cycle(graph: &Graph, ends: &[(u32, Vec<Cell>)]) -> bool {
    let next = |node: u32| graph.edges[node as usize].iter().map(|e| e.to).collect();
    let nodes = graph.edges.len();
    let mut reached = vec![false; nodes];
    let mut stack: Vec<u32> = Vec::new();
    for component in components(nodes, &next) {
        let cyclic = component.len() > 1
            || graph.edges[component[0] as usize]
                .iter()
                .any(|e| e.to == component[0]);
        if cyclic {
            stack.extend(&component);
        }
    }
    while let Some(node) = stack.pop() {
        if std::mem::replace(&mut reached[node as usize], true) {
            continue;
        }
        stack.extend(graph.edges[node as usize].iter().map(|e| e.to));
    }
    ends.iter().any(|(node, _)| reached[*node as usize])
}

/// What the search over cycle keys found: the graph, each state's settled watches, the
/// ends with their metrics, the states and the bound reached, if any.
struct Searched {
    graph: Graph,
    held: Vec<Vec<bool>>,
    ends: Vec<(u32, Vec<Cell>)>,
    states: u64,
    bounded: Option<Bound>,
}

/// Breadth first over the states of `point` by their cycle keys: every transition an edge
/// (to a state met before when its key was seen), every end's metrics.
fn search(
    point: &Point,
    fill: &[Metric],
    context: &RunContext,
    limits: &ExploreLimits,
) -> Result<Searched, ModelError> {
    let (sim, queue) = start(point, context, limits.max_faults)?;
    let mut graph = Graph::default();
    let mut seen: FxHashMap<Vec<u64>, u32> = FxHashMap::default();
    let mut held: Vec<Vec<bool>> = Vec::new();
    let mut ends: Vec<(u32, Vec<Cell>)> = Vec::new();
    let mut frontier: VecDeque<(u32, Sim<'_>, EventQueue<Event>)> = VecDeque::new();
    let mut bounded = None;
    // The bytes the waiting states and the kept keys hold (an estimate, as the search's).
    let mut held_bytes = 0u64;
    let mut sim = sim;
    seen.insert(sim.cycle_words(&queue), 0);
    held.push(settled(&sim));
    graph.edges.push(Vec::new());
    graph.ready.push(Vec::new());
    graph.parent.push(None);
    frontier.push_back((0, sim, queue));
    let mut depth = vec![0u32];
    while let Some((id, sim, queue)) = frontier.pop_front() {
        let next = choices(&sim, &queue);
        let mut ready: Vec<u32> = next.iter().map(|due| sim.owner(due.event)).collect();
        ready.sort_unstable();
        // The per-state lists are kept to the end (the lassos are read off them): counted.
        held_bytes += 4 * ready.len() as u64;
        graph.ready[id as usize] = ready;
        if next.is_empty() {
            let mut sim = sim;
            sim.end = queue.now();
            sim.check(context.seed())?;
            ends.push((id, sim.output(fill, &[], context).metrics));
            continue;
        }
        for (pick, &due) in next.iter().enumerate() {
            // Each decision of the event's draws (as the search's branches), then a crash.
            let mut ways: Vec<(Sim<'_>, EventQueue<Event>, u64, u8, bool)> = Vec::new();
            let mut scripts = vec![(0u64, 0usize)];
            while let Some((forced, given)) = scripts.pop() {
                let (mut copy, mut copy_queue) = (sim.clone(), queue.clone());
                let ran = run_chosen(&mut copy, &mut copy_queue, due, forced, false)
                    .map_err(|e| in_execution(e, depth[id as usize] + 1))?;
                if ran.drawn.len() > MAX_DRAWS {
                    return Err(ModelError::Sim(SimError::Model(
                        "one event decided more than 64 random draws".into(),
                    )));
                }
                let mut bits = 0u64;
                for (index, draw) in ran.drawn.iter().enumerate() {
                    bits |= u64::from(draw.taken) << index;
                }
                for index in given..ran.drawn.len() {
                    let before = bits & ((1u64 << index) - 1);
                    scripts.push((before | 1 << index, index + 1));
                }
                ways.push((copy, copy_queue, bits, ran.drawn.len() as u8, false));
            }
            if may_crash(&sim, due) {
                let (mut copy, mut copy_queue) = (sim.clone(), queue.clone());
                run_chosen(&mut copy, &mut copy_queue, due, 0, true)
                    .map_err(|e| in_execution(e, depth[id as usize] + 1))?;
                ways.push((copy, copy_queue, 0, 0, true));
            }
            for (mut copy, copy_queue, draws, drawn, crash) in ways {
                let choice = Choice {
                    pick: pick as u16,
                    of: next.len() as u16,
                    draws,
                    drawn,
                    crash,
                    alone: false,
                };
                let advance = copy_queue.now() - queue.now();
                let words = copy.cycle_words(&copy_queue);
                let to = match seen.get(&words) {
                    Some(&to) => to,
                    None => {
                        if seen.len() as u64 >= limits.max_states {
                            bounded.get_or_insert(Bound::new(Reached::States {
                                states: seen.len() as u64,
                            }));
                            continue;
                        }
                        // The states waiting and the keys kept, within five eighths of the
                        // memory budget (as the search's).
                        let bytes = copy.state_bytes(&copy_queue)
                            + 8 * words.len() as u64
                            + PER_STATE_BYTES
                            + point.watches.len() as u64;
                        if limits
                            .max_memory_bytes
                            .is_some_and(|budget| held_bytes + bytes > budget / 8 * 5)
                        {
                            bounded.get_or_insert(Bound::new(Reached::Memory {
                                states: seen.len() as u64,
                            }));
                            continue;
                        }
                        held_bytes += bytes;
                        let to = seen.len() as u32;
                        seen.insert(words, to);
                        held.push(settled(&copy));
                        graph.edges.push(Vec::new());
                        graph.ready.push(Vec::new());
                        graph
                            .parent
                            .push(Some((id, graph.edges[id as usize].len())));
                        depth.push(depth[id as usize] + 1);
                        frontier.push_back((to, copy, copy_queue));
                        to
                    }
                };
                held_bytes += std::mem::size_of::<Edge>() as u64;
                graph.edges[id as usize].push(Edge {
                    to,
                    owner: sim.owner(due.event),
                    advance,
                    choice,
                });
            }
        }
    }
    Ok(Searched {
        graph,
        held,
        ends,
        states: seen.len() as u64,
        bounded,
    })
}

/// Per watch, whether it is settled at this state: its condition has held (a watch
/// without `leads_to`), or no wait is open (with `leads_to`).
fn settled(sim: &Sim<'_>) -> Vec<bool> {
    (sim.point.watches.iter().zip(&sim.watched))
        .map(|(watch, seen)| match watch.leads_to {
            None => seen.first.is_some(),
            Some(_) => !seen.waiting,
        })
        .collect()
}

/// A cycle along which no time passes (infinitely many events at one instant: Zeno) is
/// refused: a loop must take time. Found as a cycle of transitions that move time by 0.
fn refuse_zeno(point: &Point, graph: &Graph) -> Result<(), ModelError> {
    let instant = |node: u32| -> Vec<u32> {
        graph.edges[node as usize]
            .iter()
            .filter(|e| e.advance == 0)
            .map(|e| e.to)
            .collect()
    };
    for component in components(graph.edges.len(), &instant) {
        let looped = component.len() > 1
            || graph.edges[component[0] as usize]
                .iter()
                .any(|e| e.advance == 0 && e.to == component[0]);
        if looped {
            // The groups whose actors run at that instant (owners below the actors' count
            // are actors, laid out group by group), the loops without end first: the error
            // points at the first one's `repeat`.
            let group_of = |owner: u32| {
                let mut first = 0u32;
                point.groups.iter().position(|group| {
                    first += group.count;
                    owner < first
                })
            };
            let mut groups: Vec<usize> = (component.iter())
                .flat_map(|&node| &graph.edges[node as usize])
                .filter(|e| e.advance == 0 && component.contains(&e.to))
                .filter_map(|e| group_of(e.owner))
                .collect();
            groups.sort_by_key(|&g| (!point.groups[g].forever, g));
            groups.dedup();
            let forever: Vec<usize> = (0..point.groups.len())
                .filter(|&g| point.groups[g].forever)
                .collect();
            let named: Vec<usize> = if groups.iter().any(|&g| point.groups[g].forever) {
                groups.retain(|&g| point.groups[g].forever);
                groups
            } else {
                forever
            };
            let names: Vec<&str> = (named.iter())
                .map(|&g| point.groups[g].name.as_str())
                .collect();
            return Err(ModelError::Param(ParamError::new(
                &format!("actor[{}].repeat", named.first().copied().unwrap_or(0)),
                format!(
                    "an execution goes round a loop without end with no time passing (infinitely many events at one instant): give each repetition of {} a delay (a loop must take time)",
                    names.join(", ")
                ),
            )));
        }
    }
    Ok(())
}
