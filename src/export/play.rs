//! `play.json`: each explored point's state graph for the site's explorer, beside
//! `outcomes.csv`. Written compactly: every string once in a table (`t`), every distinct
//! piece of a state's view once (`c`), every distinct row of words once (`r`); a state is
//! then a few small numbers.
//!
//! ```json
//! {"v":1,"max":50000,"bytes":900000,
//!  "claims":[{"n":"claim's name","c":1,"p":0,"o":1,"g":[state,…]}],
//!  "metrics":["counter.value"],
//!  "points":[{"refused":"states"} | {"refused":"bytes"} | {"refused":"cycle"} | {
//!    "l":"writers = 2", "t":["client-0","read counter",…],
//!    "actors":[[name,[[en,tr],…]]], "res":[[registers],[locks],[queues],[stores]],
//!    "c":[cell,…], "r":[[actor,en,tr,choice_en,choice_tr],…], "x":[[[row,…],p|null],…],
//!    "s":[[time_ms,[cell,…],[to,row,to,row,…](,outcome)],…],
//!    "o":[{"x":"executions","p":probability|null,"m":["cell",…],"path":[state,…]|null}]}]}
//! ```
//!
//! A point past the state bound (`max`), or whose graph would take the config's graphs past
//! `bytes`, or with a cycle, is refused.
//! `claims`: each claim over executions that an outcome decides: its number `c` (from 1,
//! its `trace-N`), its point `p` and outcome `o` (from 0), and where a scheduler's most
//! likely execution decides it (a claim with `scheduler`), `g`: the states that execution
//! goes through (else the outcome's `path` is the claim's). `l`: the point's swept values. `metrics`: the metrics that differ
//! between outcomes at some point, as `explore.md` shows them; `m`: an outcome's cells of
//! those. Names are indices in `t`. A state's cells are, in order, each actor's place (a
//! number: −1 not started, −2 between repetitions or finished, −3 crashed or stopped, 2s
//! at step s, 2s + 1 waiting at step s), each register's value, each lock's `[holder,
//! [waiters]]` (actor indices, −1 none), each queue's visible values, each key store's
//! `[[key, value], …]`. An edge: two numbers, the state it reaches less the state's own
//! number, and its row, or (an edge of several rows, or with a probability: a draw) −1 − its
//! entry in `x`, its rows and its probability (`null`: a free order; a probability to 12 decimals, as `explore.md` rounds it). An end has a fourth
//! entry, its outcome's index in `o`. An outcome's `path`: the
//! states its shortest execution (its trace) goes through.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use coordsim_model::{
    ActorAt, Exploration, PlayError, PlayGraph, PlayLimits, PlayState, RunContext,
};

use crate::config::Config;
use crate::export::write_atomic;

/// A table of distinct JSON texts, each kept once and named by its index.
#[derive(Default)]
struct Interned {
    index: HashMap<String, usize>,
    items: Vec<String>,
}

impl Interned {
    fn id(&mut self, json: String) -> usize {
        if let Some(&id) = self.index.get(&json) {
            return id;
        }
        let id = self.items.len();
        self.items.push(json.clone());
        self.index.insert(json, id);
        id
    }

    fn text(&mut self, text: &str) -> usize {
        self.id(serde_json::Value::from(text).to_string())
    }

    fn json(&self) -> String {
        format!("[{}]", self.items.join(","))
    }
}

/// A number as JSON, as short as it reads back exactly; `null` for one JSON cannot hold.
fn number(x: f64) -> String {
    if !x.is_finite() {
        "null".into()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        serde_json::Value::from(x).to_string()
    }
}

/// Most bytes the graphs of one config's points take together: a point that would pass it
/// is left out (`{"refused":"bytes"}`), so that a page with the explorer stays under about a
/// megabyte. A state takes 35 to 45 bytes, so this is some 20,000 states.
pub(crate) const MAX_GRAPH_BYTES: usize = 900_000;

/// Writes `play.json` into `dir`: every point of `explored`, its graph walked again within
/// the explorer's bound. `decided`: each claim and the (point, outcome) that decides it.
pub(crate) fn write(
    dir: &Path,
    config: &Config,
    explored: &[Exploration],
    decided: &[(String, Option<crate::check::Shown>)],
) -> anyhow::Result<()> {
    let text = json(
        config,
        explored,
        decided,
        (
            &PlayLimits {
                max_memory_bytes: config.max_memory_bytes,
                ..PlayLimits::default()
            },
            MAX_GRAPH_BYTES,
        ),
    )?;
    write_atomic(&dir.join("play.json"), text.as_bytes())?;
    Ok(())
}

/// `play.json`'s text, each point walked within `limits`, the graphs within `max_bytes`.
fn json(
    config: &Config,
    explored: &[Exploration],
    decided: &[(String, Option<crate::check::Shown>)],
    (limits, max_bytes): (&PlayLimits, usize),
) -> anyhow::Result<String> {
    let metrics = config.model.metrics();
    // The metrics that differ between outcomes at some point: what the page tells apart.
    let differ: Vec<usize> = (0..metrics.len())
        .filter(|&i| {
            explored.iter().any(|e| {
                e.outcomes
                    .iter()
                    .any(|o| o.metrics[i] != e.outcomes[0].metrics[i])
            })
        })
        .collect();
    let (points, guides) = points_json(config, explored, decided, &differ, (limits, max_bytes))?;
    let mut out = format!(
        "{{\"v\":1,\"max\":{},\"bytes\":{max_bytes},\"claims\":[",
        limits.max_states
    );
    let mut first = true;
    for (n, (name, decides)) in decided.iter().enumerate() {
        if let Some(crate::check::Shown { point, outcome, .. }) = decides {
            if !first {
                out.push(',');
            }
            first = false;
            // A scheduler's execution is another than the outcome's shortest: its own path.
            let guide = guides
                .get(&n)
                .map_or(String::new(), |g| format!(",\"g\":{g}"));
            let _ = write!(
                out,
                "{{\"n\":{},\"c\":{},\"p\":{point},\"o\":{outcome}{guide}}}",
                serde_json::Value::from(name.as_str()),
                n + 1
            );
        }
    }
    // Each point's outcomes: the claims judged outcome by outcome, and whether this one
    // meets each's test (claim number, 1 or 0): what the explorer says at an end.
    out.push_str("],\"truth\":[");
    let truth: Vec<String> = (explored.iter().enumerate())
        .map(|(point, exploration)| {
            let outcomes: Vec<String> = (exploration.outcomes.iter())
                .map(|outcome| {
                    let pairs: Vec<String> = (config.claims.iter().enumerate())
                        .filter_map(|(n, claim)| {
                            crate::check::outcome_meets(config, claim, point, outcome)
                                .map(|meets| format!("[{},{}]", n + 1, u8::from(meets)))
                        })
                        .collect();
                    format!("[{}]", pairs.join(","))
                })
                .collect();
            format!("[{}]", outcomes.join(","))
        })
        .collect();
    out.push_str(&truth.join(","));
    out.push_str("],\"metrics\":[");
    let names: Vec<String> = differ
        .iter()
        .map(|&i| serde_json::Value::from(config.label(metrics[i].name)).to_string())
        .collect();
    out.push_str(&names.join(","));
    out.push_str("],\"points\":[");
    out.push_str(&points);
    out.push_str("]}");
    Ok(out)
}

/// Each point's graph as `play.json`'s `points` entries (joined by commas), and the path
/// of each claim decided by a scheduler's execution (by the claim's index) through its
/// point's graph.
fn points_json(
    config: &Config,
    explored: &[Exploration],
    decided: &[(String, Option<crate::check::Shown>)],
    differ: &[usize],
    (limits, max_bytes): (&PlayLimits, usize),
) -> anyhow::Result<(String, HashMap<usize, String>)> {
    let mut out = String::new();
    let mut guides = HashMap::new();
    let mut graphs = 0;
    for (point, exploration) in explored.iter().enumerate() {
        if point > 0 {
            out.push(',');
        }
        // The walk keeps apart every state the exploration merged by symmetry and takes
        // every order the reduction left out, so it has at least the states of an
        // exploration that merged them: one past the bound already is refused unwalked
        // (a walk to the bound costs about a second). A `--no-merge` tree counts more.
        // A loop without end: its executions come back round their cycles, which the
        // walk (by whole states, time and counts in them) would never meet.
        if exploration.cycles {
            out.push_str("{\"refused\":\"cycle\"}");
            continue;
        }
        // An exploration that stopped at a bound (its states, its memory, its time): the
        // walk, which keeps apart what it merged, would meet at least as many states, each
        // a whole run's, and ends its table does not have.
        if exploration.bounded.is_some()
            || exploration.keyed && exploration.states > u64::from(limits.max_states)
        {
            out.push_str("{\"refused\":\"states\"}");
            continue;
        }
        let ctx = RunContext::new(config.seed, config.limits)
            .with_entities(false)
            .with_stats(config.stats)
            .with_percentile(config.percentile);
        // The exploration's fault budget, which its schedules carry: a walk under another
        // would reach ends that are no outcome of it, or miss some.
        // A cell takes a digit and a comma at least: what the page has left for graphs
        // bounds the cells the walk may make.
        let limits = PlayLimits {
            max_faults: (exploration.outcomes.first())
                .map_or(limits.max_faults, |o| o.schedule.max_faults),
            max_cells: limits
                .max_cells
                .min((max_bytes.saturating_sub(graphs) / 2) as u64),
            ..*limits
        };
        match config.plans[point].play(&ctx, &limits) {
            Ok(graph) => {
                let label = crate::export::explore::point_named(config, point).join(", ");
                let text = graph_json(&graph, exploration, differ, &label);
                for (n, (_, decides)) in decided.iter().enumerate() {
                    let Some(shown) = decides.filter(|s| s.point == point && s.path.is_some())
                    else {
                        continue;
                    };
                    if let Some(path) = graph.path(&shown.schedule(explored).events) {
                        let path: Vec<String> = path.iter().map(u32::to_string).collect();
                        guides.insert(n, format!("[{}]", path.join(",")));
                    }
                }
                if graphs + text.len() > max_bytes {
                    out.push_str("{\"refused\":\"bytes\"}");
                } else {
                    graphs += text.len();
                    out.push_str(&text);
                }
            }
            Err(PlayError::TooLarge { .. }) => out.push_str("{\"refused\":\"states\"}"),
            Err(PlayError::TooManyCells { .. }) => out.push_str("{\"refused\":\"bytes\"}"),
            Err(PlayError::Cycle) => out.push_str("{\"refused\":\"cycle\"}"),
            Err(PlayError::Other(why)) => anyhow::bail!(
                "{}: point {point}: the explorer's graph: {why}",
                config.source.name
            ),
        }
    }
    Ok((out, guides))
}

/// A state's view as its cells' numbers in `cells` (the module's order), joined by commas.
fn view_cells(state: &PlayState, cells: &mut Interned) -> String {
    let mut view: Vec<usize> = Vec::new();
    for actor in &state.actors {
        let code: i64 = match *actor {
            ActorAt::NotStarted => -1,
            ActorAt::Idle => -2,
            ActorAt::Crashed => -3,
            ActorAt::At(step) => 2 * i64::from(step),
            ActorAt::Waiting(step) => 2 * i64::from(step) + 1,
        };
        view.push(cells.id(code.to_string()));
    }
    for value in &state.registers {
        view.push(cells.id(number(*value)));
    }
    for lock in &state.locks {
        let waiters: Vec<String> = lock.waiters.iter().map(u32::to_string).collect();
        let holder = lock.holder.map_or(-1, i64::from);
        view.push(cells.id(format!("[{holder},[{}]]", waiters.join(","))));
    }
    for queue in &state.queues {
        let values: Vec<String> = queue.iter().map(|v| number(*v)).collect();
        view.push(cells.id(format!("[{}]", values.join(","))));
    }
    for store in &state.stores {
        let pairs: Vec<String> = store
            .iter()
            .map(|(k, v)| format!("[{k},{}]", number(*v)))
            .collect();
        view.push(cells.id(format!("[{}]", pairs.join(","))));
    }
    let view: Vec<String> = view.iter().map(usize::to_string).collect();
    view.join(",")
}

/// One point's graph as JSON (the module's `points` entry).
fn graph_json(
    graph: &PlayGraph,
    exploration: &Exploration,
    differ: &[usize],
    label: &str,
) -> String {
    let mut strings = Interned::default();
    let mut cells = Interned::default();
    let mut rows = Interned::default();
    let mut complex = Interned::default();
    let actors: Vec<String> = graph
        .actors
        .iter()
        .map(|a| {
            let program: Vec<String> = a
                .program
                .iter()
                .map(|(en, tr)| format!("[{},{}]", strings.text(en), strings.text(tr)))
                .collect();
            format!("[{},[{}]]", strings.text(&a.name), program.join(","))
        })
        .collect();
    let mut names = |list: &[String]| {
        let ids: Vec<String> = list.iter().map(|n| strings.text(n).to_string()).collect();
        format!("[{}]", ids.join(","))
    };
    let resources = [
        names(&graph.registers),
        names(&graph.locks),
        names(&graph.queues),
        names(&graph.stores),
    ]
    .join(",");
    // Each outcome by its cells as `outcomes.csv` writes them.
    let outcome_of: HashMap<Vec<String>, usize> = exploration
        .outcomes
        .iter()
        .enumerate()
        .map(|(k, o)| (o.metrics.iter().map(|c| c.to_string()).collect(), k))
        .collect();
    let mut states = Vec::with_capacity(graph.states.len());
    for (id, state) in graph.states.iter().enumerate() {
        let view = view_cells(state, &mut cells);
        // Each edge as two numbers: the state it reaches, less this one's number; its row
        // (one row, no probability), or −1 − its entry in `x` (several rows, a probability).
        let mut edges: Vec<String> = Vec::with_capacity(2 * state.edges.len());
        for edge in &state.edges {
            let ids: Vec<String> = edge
                .rows
                .iter()
                .map(|row| {
                    let json = format!(
                        "[{},{},{},{},{}]",
                        strings.text(&row.actor),
                        strings.text(&row.action),
                        strings.text(&row.action_tr),
                        strings.text(&row.choice),
                        strings.text(&row.choice_tr)
                    );
                    rows.id(json).to_string()
                })
                .collect();
            let row = match (&ids[..], edge.probability) {
                ([one], None) => one.clone(),
                (_, probability) => {
                    let probability =
                        probability.map_or("null".into(), crate::export::explore::rounded);
                    let k = complex.id(format!("[[{}],{probability}]", ids.join(",")));
                    format!("-{}", k + 1)
                }
            };
            edges.push((i64::from(edge.to) - id as i64).to_string());
            edges.push(row);
        }
        let end = state
            .end
            .as_ref()
            .and_then(|cells| {
                let key: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
                outcome_of.get(&key)
            })
            .map_or(String::new(), |k| format!(",{k}"));
        states.push(format!(
            "[{},[{}],[{}]{end}]",
            number(state.time_ms),
            view,
            edges.join(",")
        ));
    }
    let outcomes: Vec<String> = exploration
        .outcomes
        .iter()
        .map(|o| {
            let shown: Vec<String> = differ
                .iter()
                .map(|&i| serde_json::Value::from(o.metrics[i].to_string()).to_string())
                .collect();
            let path = graph.path(&o.schedule.events).map_or("null".into(), |p| {
                let p: Vec<String> = p.iter().map(u32::to_string).collect();
                format!("[{}]", p.join(","))
            });
            format!(
                "{{\"x\":\"{}\",\"p\":{},\"m\":[{}],\"path\":{path}}}",
                o.executions,
                o.probability
                    .map_or("null".into(), crate::export::explore::rounded),
                shown.join(",")
            )
        })
        .collect();
    format!(
        "{{\"l\":{},\"t\":{},\"actors\":[{}],\"res\":[{resources}],\"c\":{},\"r\":{},\"x\":{},\"s\":[{}],\"o\":[{}]}}",
        serde_json::Value::from(label),
        strings.json(),
        actors.join(","),
        cells.json(),
        rows.json(),
        complex.json(),
        states.join(","),
        outcomes.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Source;
    use coordsim_model::PLAY_MAX_STATES;

    /// Two clients of one increment at 1 and at 2 repetitions each: two points.
    fn config() -> Config {
        let registry = coordsim_models::registry().with_composer(coordsim_scenario::Scenario);
        let text = "model = \"scenario\"\n[sweep]\nincrements = [1, 2]\n[[resource]]\nname = \"c\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\ncount = 2\nrepeat = \"increments\"\nsteps = [{ read = \"c\" }, { write = \"c\", value = \"read + 1\" }]\n";
        let source = Source {
            name: "s.toml".into(),
            text: text.into(),
        };
        Config::parse(source, &registry).unwrap()
    }

    fn points(max_states: u32, max_bytes: usize) -> Vec<serde_json::Value> {
        let config = config();
        let explored = crate::runner::explore::explore_config(
            &config,
            config.seed,
            &coordsim_model::ExploreLimits::default(),
        )
        .unwrap();
        let limits = PlayLimits {
            max_states,
            ..PlayLimits::default()
        };
        let text = json(&config, &explored, &[], (&limits, max_bytes)).unwrap();
        let data: serde_json::Value = serde_json::from_str(&text).unwrap();
        data["points"].as_array().unwrap().clone()
    }

    /// Each bound refuses the point past it, and only that one: the first point has 12
    /// states (two clients, one increment each: tests/cli/play.rs counts them by hand), the
    /// second more; its graph's bytes are what the text of the first takes.
    #[test]
    fn a_point_past_either_bound_is_refused() {
        let all = points(PLAY_MAX_STATES, MAX_GRAPH_BYTES);
        assert_eq!(all[0]["s"].as_array().unwrap().len(), 12);
        assert!(all[1]["s"].as_array().unwrap().len() > 12);
        let by_states = points(12, MAX_GRAPH_BYTES);
        assert_eq!(by_states[0], all[0]);
        assert_eq!(by_states[1], serde_json::json!({"refused": "states"}));
        let first = all[0].to_string().len();
        let by_bytes = points(PLAY_MAX_STATES, first);
        assert_eq!(by_bytes[0], all[0]);
        assert_eq!(by_bytes[1], serde_json::json!({"refused": "bytes"}));
        let none = points(PLAY_MAX_STATES, first - 1);
        assert_eq!(none[0], serde_json::json!({"refused": "bytes"}));
    }
}
