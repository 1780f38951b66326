//! `coordsim check --ties`: how much each claim rests on the order of simultaneous events.
//!
//! Every config runs as `check` runs it (its verdicts are the ones that count), then again
//! under each other value of the model's tie-rule parameters (unless the config sweeps it) and
//! under other engine orders of events with equal time and class: last-scheduled first and
//! three fixed shuffles. A claim whose values change under some order is tie-sensitive: its
//! figure depends on a rule the model (or the lesson) must state.

use std::io::Write;

use coordsim_model::{Kind, Registry, Value};
use sim_core::Ties;

use crate::check::{self, Verdict};
use crate::config::Config;
use crate::runner::{self, RunOptions};

/// One way of ordering ties: its label and how to get the config and engine order for it.
struct Order {
    label: String,
    /// `Some`: a tie-rule parameter set to another value.
    over: Option<(usize, Value)>,
    ties: Ties,
}

/// The orders to try for `config`.
fn orders(config: &Config) -> Vec<Order> {
    let mut out = Vec::new();
    let params = config.model.params();
    for rule in config.model.tie_rules() {
        let Some(i) = params.iter().position(|p| p.key == *rule) else {
            continue;
        };
        // A swept tie rule already runs under every value the config gives it.
        if config.axes.iter().any(|a| a.param == i) {
            continue;
        }
        let Kind::Choice(options) = params[i].kind else {
            continue;
        };
        for option in options {
            let value = Value::Str(option.to_string());
            if config.base[i] != value {
                out.push(Order {
                    label: format!("{rule} = {value}"),
                    over: Some((i, value)),
                    ties: Ties::Fifo,
                });
            }
        }
    }
    out.push(Order {
        label: "event classes reversed".into(),
        over: None,
        ties: Ties::ClassesReversed,
    });
    out.push(Order {
        label: "events LIFO".into(),
        over: None,
        ties: Ties::Lifo,
    });
    for seed in 1..=3 {
        out.push(Order {
            label: format!("events shuffled {seed}"),
            over: None,
            ties: Ties::Shuffled(seed),
        });
    }
    out
}

/// `config` with parameter `param` set to `value` at every point, validated again.
fn with_override(
    config: &Config,
    registry: &Registry,
    param: usize,
    value: Value,
) -> anyhow::Result<Config> {
    let mut other = Config::parse(config.source.clone(), registry)?;
    other.plan.base[param] = value;
    let n = other.model.params().len();
    let mut plans = Vec::with_capacity(other.points);
    for point in 0..other.points {
        let values = other.point_values(point);
        let plan = other
            .model
            .prepare(&values[..n])
            .map_err(|e| other.param_error(&e.key, point, &e.message))?;
        plans.push(plan);
    }
    other.plan.plans = plans;
    Ok(other)
}

/// Runs `check --ties` over `configs`; returns whether every claim passed under each
/// config's own order.
pub(crate) fn check_ties(
    configs: &[Config],
    registry: &Registry,
    options: &RunOptions,
) -> anyhow::Result<bool> {
    let mut verdicts: Vec<Verdict> = Vec::new();
    let mut sensitive: Vec<String> = Vec::new();
    let mut claims = 0usize;
    for config in configs {
        let results = runner::run(config, options)?;
        verdicts.extend(check::evaluate(config, &results)?);
        let own = check::claim_values(config, &results)?;
        claims += own.len();
        // For each claim: (order label, the first evaluation it changes, its value there).
        let mut changed: Vec<Vec<(String, usize, String)>> = vec![Vec::new(); own.len()];
        for order in orders(config) {
            let other;
            let run_config = match &order.over {
                Some((param, value)) => {
                    other = with_override(config, registry, *param, value.clone())?;
                    &other
                }
                None => config,
            };
            let opts = RunOptions {
                ties: order.ties,
                ..*options
            };
            let alt = check::claim_values(run_config, &runner::run(run_config, &opts)?)?;
            for (c, (mine, theirs)) in own.iter().zip(&alt).enumerate() {
                let first = theirs.iter().zip(mine).position(|(a, b)| a.1 != b.1);
                if let Some(k) = first {
                    changed[c].push((order.label.clone(), k, theirs[k].1.clone()));
                }
            }
        }
        let over_runs = config.claims.iter().filter(|c| c.over.is_none());
        for (c, claim) in over_runs.enumerate() {
            if changed[c].is_empty() {
                continue;
            }
            // The row the first order changes; every order's value there (or where it first
            // differs, when that is another row).
            let k = changed[c][0].1;
            let (row, mine) = own[c][k].clone();
            let mut parts = vec![format!("{mine} (its own order)")];
            parts.extend(changed[c].iter().map(|(label, j, v)| {
                if *j == k {
                    format!("{v} ({label})")
                } else {
                    format!("{v} ({label}, at {})", own[c][*j].0)
                }
            }));
            let at = if row.is_empty() {
                String::new()
            } else {
                format!(" at {row}")
            };
            sensitive.push(format!(
                "TIE-SENSITIVE {}: {} = {}{at} [{}]",
                claim.name,
                claim.metric,
                parts.join(", "),
                config.source.name,
            ));
        }
    }
    let mut stdout = crate::print::stdout();
    for v in &verdicts {
        writeln!(stdout, "{}", v.line)?;
    }
    for line in &sensitive {
        writeln!(stdout, "{line}")?;
    }
    writeln!(
        stdout,
        "{} of {claims} claims are tie-sensitive",
        sensitive.len()
    )?;
    let passed = verdicts.iter().filter(|v| v.pass).count();
    writeln!(
        stdout,
        "{passed} passed, {} failed",
        verdicts.len() - passed
    )?;
    Ok(passed == verdicts.len())
}
