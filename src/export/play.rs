//! `play.json`: each explored point's state graph for the site's explorer, beside
//! `outcomes.csv`. Written compactly: every string once in a table (`t`), every distinct
//! piece of a state's view once (`c`), every distinct row of words once (`r`); a state is
//! then a few small numbers.
//!
//! ```json
//! {"v":1,"max":50000,
//!  "claims":[{"n":"claim's name","c":1,"p":0,"o":1}],
//!  "metrics":["lost_updates"],
//!  "points":[{"refused":"states"} | {"refused":"cycle"} | {
//!    "l":"writers = 2", "t":["client-0","read counter",…],
//!    "actors":[[name,[[en,tr],…]]], "res":[[registers],[locks],[queues],[stores]],
//!    "c":[cell,…], "r":[[actor,en,tr,choice_en,choice_tr],…],
//!    "s":[[time_ms,[cell,…],[[to,[row,…],probability|null],…],outcome|null],…],
//!    "o":[{"x":"executions","p":probability|null,"m":["cell",…],"path":[state,…]|null}]}]}
//! ```
//!
//! `claims`: each claim over executions that an outcome decides: its number `c` (from 1,
//! its `trace-N`), its point `p` and outcome `o` (from 0). `l`: the point's swept values. `metrics`: the metrics that differ
//! between outcomes at some point, as `explore.md` shows them; `m`: an outcome's cells of
//! those. Names are indices in `t`. A state's cells are, in order, each actor's place (a
//! number: −1 not started, −2 between repetitions or finished, −3 crashed or stopped, 2s
//! at step s, 2s + 1 waiting at step s), each register's value, each lock's `[holder,
//! [waiters]]` (actor indices, −1 none), each queue's visible values, each key store's
//! `[[key, value], …]`. An edge: the state it reaches, its rows, its probability (`null`: a
//! free order). An end's `outcome`: its outcome's index in `o`. An outcome's `path`: the
//! states its shortest execution (its trace) goes through.

use std::fmt::Write as _;
use std::path::Path;

use coordsim_model::{ActorAt, Exploration, PlayError, PlayGraph, PlayLimits, RunContext};
use std::collections::HashMap;

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

/// Writes `play.json` into `dir`: every point of `explored`, its graph walked again within
/// the explorer's bound. `decided`: each claim and the (point, outcome) that decides it.
pub(crate) fn write(
    dir: &Path,
    config: &Config,
    explored: &[Exploration],
    decided: &[(String, Option<(usize, usize)>)],
) -> anyhow::Result<()> {
    let text = json(config, explored, decided, &PlayLimits::default())?;
    write_atomic(&dir.join("play.json"), text.as_bytes())?;
    Ok(())
}

/// `play.json`'s text, each point walked within `limits`.
pub(crate) fn json(
    config: &Config,
    explored: &[Exploration],
    decided: &[(String, Option<(usize, usize)>)],
    limits: &PlayLimits,
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
    let mut out = format!("{{\"v\":1,\"max\":{},\"claims\":[", limits.max_states);
    let mut first = true;
    for (n, (name, decides)) in decided.iter().enumerate() {
        if let Some((point, outcome)) = decides {
            if !first {
                out.push(',');
            }
            first = false;
            let _ = write!(
                out,
                "{{\"n\":{},\"c\":{},\"p\":{point},\"o\":{outcome}}}",
                serde_json::Value::from(name.as_str()),
                n + 1
            );
        }
    }
    out.push_str("],\"metrics\":[");
    let names: Vec<String> = differ
        .iter()
        .map(|&i| serde_json::Value::from(config.label(metrics[i].name)).to_string())
        .collect();
    out.push_str(&names.join(","));
    out.push_str("],\"points\":[");
    for (point, exploration) in explored.iter().enumerate() {
        if point > 0 {
            out.push(',');
        }
        let ctx = RunContext::new(config.seed, config.limits)
            .with_entities(false)
            .with_stats(config.stats)
            .with_percentile(config.percentile);
        match config.plans[point].play(&ctx, limits) {
            Ok(graph) => {
                let label = crate::export::explore::point_named(config, point).join(", ");
                out.push_str(&graph_json(&graph, exploration, &differ, &label));
            }
            Err(PlayError::TooLarge { .. }) => out.push_str("{\"refused\":\"states\"}"),
            Err(PlayError::Cycle) => out.push_str("{\"refused\":\"cycle\"}"),
            Err(PlayError::Other(why)) => anyhow::bail!(
                "{}: point {point}: the explorer's graph: {why}",
                config.source.name
            ),
        }
    }
    out.push_str("]}");
    Ok(out)
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
    for state in &graph.states {
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
        let edges: Vec<String> = state
            .edges
            .iter()
            .map(|edge| {
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
                let probability = edge.probability.map_or("null".into(), number);
                format!("[{},[{}],{probability}]", edge.to, ids.join(","))
            })
            .collect();
        let end = state
            .end
            .as_ref()
            .and_then(|cells| {
                let key: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
                outcome_of.get(&key)
            })
            .map_or("null".into(), usize::to_string);
        let view: Vec<String> = view.iter().map(usize::to_string).collect();
        states.push(format!(
            "[{},[{}],[{}],{end}]",
            number(state.time_ms),
            view.join(","),
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
                o.probability.map_or("null".into(), number),
                shown.join(",")
            )
        })
        .collect();
    format!(
        "{{\"l\":{},\"t\":{},\"actors\":[{}],\"res\":[{resources}],\"c\":{},\"r\":{},\"s\":[{}],\"o\":[{}]}}",
        serde_json::Value::from(label),
        strings.json(),
        actors.join(","),
        cells.json(),
        rows.json(),
        states.join(","),
        outcomes.join(",")
    )
}
