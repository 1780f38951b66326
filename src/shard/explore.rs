//! Shards of an exploration: what `explore --shard K/N` writes (each point's part, see
//! [`coordsim_model::explore::Part`]) and how `merge` reads the parts back and joins them
//! into the exploration one unsharded search gives.
//!
//! A shard folder (DIR/STEM-explore/) holds `shard-config.toml` and `shard.txt` as a run's
//! shard does (with an `explore …` line: the bounds, which every shard must share), plus:
//! - `shard-explore.json`: per point, the part's counts and its outcomes (metrics, their
//!   executions and probability, the order key and the shortest execution as choices and
//!   as steps); every float as its shortest round-trip text, so nothing moves by a bit;
//! - `shard-visits.bin`: per point, every state the shard reached, as little-endian
//!   records (a count `u64`, then key `u64`, depth `u32`, transitions `u32`, reduced
//!   `u8`), for the merge to count the states the shards share once.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use coordsim_model::explore::{Decision, Outcome, Part, TraceStep, Visit};
use coordsim_model::{
    Bound, Cell, Exploration, ExploreLimits, Reached, Reduction, Registry, Schedule,
};
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::export::write_atomic;
use crate::shard::merge::{ShardInfo, read_file, read_info, read_shards, verify};
use crate::source::Source;

/// Each point's part: counts and outcomes.
pub(crate) const SHARD_EXPLORE: &str = "shard-explore.json";
/// Each point's visited states.
pub(crate) const SHARD_VISITS: &str = "shard-visits.bin";

/// Bytes of one visit record in `shard-visits.bin`.
const VISIT_BYTES: usize = 8 + 4 + 4 + 1;

/// How states are keyed across shards (the fingerprint's words): one more whenever they
/// change, so that shards explored by builds that key states differently are not merged
/// as if their shared states were one (their totals would count them twice).
const STATE_KEYS: u32 = 4;

/// The bounds a split explores under, as `shard.txt` records them: every shard of one
/// split must have explored under the same, and keyed its states alike.
pub(crate) fn bounds_line(limits: &ExploreLimits) -> String {
    format!(
        "state_keys={STATE_KEYS} max_states={} max_faults={} merge={} reduce={} max_outcomes={}",
        limits.max_states,
        limits.max_faults,
        limits.merge_states,
        match limits.reduce {
            Reduction::Off => "off",
            Reduction::On => "on",
            Reduction::PlantedBug => "planted-bug",
        },
        limits.max_outcomes
    )
}

#[derive(Serialize, Deserialize)]
struct PartFile {
    points: Vec<PointPart>,
}

#[derive(Serialize, Deserialize)]
struct PointPart {
    states: u64,
    transitions: u64,
    /// A `u128`, as text.
    executions: String,
    bounded: Option<BoundPart>,
    ordered: bool,
    longest: u64,
    reduced: u64,
    shard: (u32, u32),
    max_outcomes: usize,
    outcomes: Vec<OutcomePart>,
}

#[derive(Serialize, Deserialize)]
struct OutcomePart {
    metrics: Vec<CellText>,
    executions: String,
    probability: Option<String>,
    ranks: Vec<u32>,
    max_faults: u32,
    /// Each event's choice in [`Decision::text`]'s form.
    schedule: Vec<String>,
    trace: Vec<StepPart>,
}

/// A bound a shard reached ([`Reached`]), as its part file keeps it; the shard it was
/// is the part's own.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum BoundPart {
    Time(u64),
    States(u64),
    Counts(u64),
    Memory(u64),
    Spill(u64),
    Outcomes(u64),
    Cycle,
}

impl BoundPart {
    fn of(bound: &Bound) -> BoundPart {
        match bound.reached {
            Reached::Time { states } => BoundPart::Time(states),
            Reached::States { states } => BoundPart::States(states),
            Reached::Counts { states } => BoundPart::Counts(states),
            Reached::Memory { states } => BoundPart::Memory(states),
            Reached::Spill { states } => BoundPart::Spill(states),
            Reached::Outcomes { max } => BoundPart::Outcomes(max),
            Reached::Cycle => BoundPart::Cycle,
        }
    }

    fn bound(&self) -> Bound {
        Bound::new(match *self {
            BoundPart::Time(states) => Reached::Time { states },
            BoundPart::States(states) => Reached::States { states },
            BoundPart::Counts(states) => Reached::Counts { states },
            BoundPart::Memory(states) => Reached::Memory { states },
            BoundPart::Spill(states) => Reached::Spill { states },
            BoundPart::Outcomes(max) => Reached::Outcomes { max },
            BoundPart::Cycle => Reached::Cycle,
        })
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum CellText {
    Count(u64),
    Float(String),
    Flag(bool),
    Text(String),
    Empty,
}

#[derive(Serialize, Deserialize)]
struct StepPart {
    time_ms: String,
    actor: String,
    action: String,
    choice: String,
    action_tr: String,
    choice_tr: String,
}

/// Writes the shard files of `explored` (one part per point) into `dir`, then
/// `shard.txt`.
pub(crate) fn write(
    dir: &Path,
    config: &Config,
    explored: &[Exploration],
    (k, n): (usize, usize),
    seed: u64,
    limits: &ExploreLimits,
) -> anyhow::Result<()> {
    let mut points = Vec::with_capacity(explored.len());
    let mut visits = Vec::new();
    for e in explored {
        let part = e
            .part
            .as_ref()
            .context("an exploration of a shard gave no part")?;
        points.push(point_part(e, part));
        visits.extend_from_slice(&(part.visits.len() as u64).to_le_bytes());
        for v in &part.visits {
            visits.extend_from_slice(&v.key.to_le_bytes());
            visits.extend_from_slice(&v.depth.to_le_bytes());
            visits.extend_from_slice(&v.transitions.to_le_bytes());
            visits.push(u8::from(v.reduced));
        }
    }
    let json = serde_json::to_vec(&PartFile { points })?;
    write_atomic(
        &dir.join(crate::shard::merge::SHARD_CONFIG),
        config.source.text.as_bytes(),
    )?;
    write_atomic(&dir.join(SHARD_EXPLORE), &json)?;
    write_atomic(&dir.join(SHARD_VISITS), &visits)?;
    crate::shard::merge::write_info(
        dir,
        config,
        (k, n),
        seed,
        Some(&bounds_line(limits)),
        &[
            crate::shard::merge::SHARD_CONFIG,
            SHARD_EXPLORE,
            SHARD_VISITS,
        ],
    )
}

fn point_part(e: &Exploration, part: &Part) -> PointPart {
    PointPart {
        states: e.states,
        transitions: e.transitions,
        executions: e.executions.to_string(),
        bounded: e.bounded.as_ref().map(BoundPart::of),
        ordered: e.ordered,
        longest: e.longest,
        reduced: e.reduced,
        shard: part.shard,
        max_outcomes: part.max_outcomes,
        outcomes: e
            .outcomes
            .iter()
            .zip(&part.ranks)
            .map(|(o, ranks)| OutcomePart {
                metrics: o.metrics.iter().map(cell_text).collect(),
                executions: o.executions.to_string(),
                probability: o.probability.map(|p| p.to_string()),
                ranks: ranks.clone(),
                max_faults: o.schedule.max_faults,
                schedule: o.schedule.events.iter().map(Decision::text).collect(),
                trace: o
                    .trace
                    .iter()
                    .map(|t| StepPart {
                        time_ms: t.time_ms.to_string(),
                        actor: t.actor.clone(),
                        action: t.action.clone(),
                        choice: t.choice.clone(),
                        action_tr: t.action_tr.clone(),
                        choice_tr: t.choice_tr.clone(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn cell_text(c: &Cell) -> CellText {
    match c {
        Cell::Count(n) => CellText::Count(*n),
        Cell::Float(f) => CellText::Float(f.to_string()),
        Cell::Flag(b) => CellText::Flag(*b),
        Cell::Text(s) => CellText::Text(s.clone()),
        Cell::Empty => CellText::Empty,
    }
}

/// Whether `dirs` are shards of an exploration (judged by the first: `merge` then checks
/// that every one is of the same split).
pub(crate) fn are_explore_shards(dirs: &[PathBuf]) -> bool {
    dirs.first()
        .and_then(|d| read_info(d).ok())
        .is_some_and(|info| info.explore.is_some())
}

/// The shards of one exploration read back, checked to be the whole split, and each
/// point's parts merged: the config and the exploration of each of its points.
pub(crate) fn read_merged(
    dirs: &[PathBuf],
    registry: &Registry,
) -> anyhow::Result<(Config, Vec<Exploration>)> {
    let (shards, text) = read_shards(dirs)?;
    let name = shards[0].name.clone();
    let config = Config::parse(Source { name, text }, registry)?;
    let mut by_point: Vec<Vec<Exploration>> = vec![Vec::new(); config.points];
    for shard in &shards {
        let parts = read_parts(shard, &config)?;
        for (point, e) in parts.into_iter().enumerate() {
            by_point[point].push(e);
        }
    }
    let explored = by_point
        .iter()
        .enumerate()
        .map(|(point, parts)| {
            coordsim_model::merge_parts(parts).map_err(|e| anyhow::anyhow!("point {point}: {e}"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok((config, explored))
}

/// One shard's parts, a point each, checked against its digests and the config.
fn read_parts(shard: &ShardInfo, config: &Config) -> anyhow::Result<Vec<Exploration>> {
    let json = read_file(shard, SHARD_EXPLORE)?;
    let visits = read_file(shard, SHARD_VISITS)?;
    let path = shard.dir.join(SHARD_EXPLORE);
    let damaged = || format!("{} is damaged: run the shard again", path.display());
    let file: PartFile = serde_json::from_slice(&json).with_context(damaged)?;
    if file.points.len() != config.points {
        bail!(
            "{}: {} points, but the config has {}",
            path.display(),
            file.points.len(),
            config.points
        );
    }
    // Every outcome ends with one cell per metric of the config (its derived ones too): a
    // row short of them (or long) is damage the digests cannot see when they were redone.
    let metrics = config.model.metrics().len();
    for (p, point) in file.points.iter().enumerate() {
        if let Some((k, o)) =
            (point.outcomes.iter().enumerate()).find(|(_, o)| o.metrics.len() != metrics)
        {
            bail!(
                "{}: point {p}, outcome {}: {} metrics, but the config has {metrics}: the shard is damaged or not of this config; run it again",
                path.display(),
                k + 1,
                o.metrics.len()
            );
        }
    }
    let mut rest = visits.as_slice();
    let mut parts = Vec::with_capacity(file.points.len());
    for point in file.points {
        if point.shard != (shard.k as u32, shard.n as u32) {
            bail!(
                "{}: a part of shard {}/{}, in the folder of shard {}/{}",
                path.display(),
                point.shard.0,
                point.shard.1,
                shard.k,
                shard.n
            );
        }
        let visits = take_visits(&mut rest).with_context(|| {
            format!(
                "{} is damaged: run the shard again",
                shard.dir.join(SHARD_VISITS).display()
            )
        })?;
        parts.push(exploration(point, visits).with_context(damaged)?);
    }
    if !rest.is_empty() {
        bail!(
            "{} has bytes past its last point: run the shard again",
            shard.dir.join(SHARD_VISITS).display()
        );
    }
    verify(shard, SHARD_EXPLORE, &json)?;
    verify(shard, SHARD_VISITS, &visits)?;
    Ok(parts)
}

fn take_visits(rest: &mut &[u8]) -> anyhow::Result<Vec<Visit>> {
    let count = rest
        .split_first_chunk::<8>()
        .map(|(n, tail)| (u64::from_le_bytes(*n), tail))
        .context("a point's count is cut off")?;
    let (n, tail) = count;
    let bytes = usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(VISIT_BYTES))
        .filter(|&b| b <= tail.len())
        .context("a point's visits are cut off")?;
    let (records, after) = tail.split_at(bytes);
    *rest = after;
    Ok(records
        .chunks_exact(VISIT_BYTES)
        .map(|r| Visit {
            key: u64::from_le_bytes(r[0..8].try_into().unwrap_or_default()),
            depth: u32::from_le_bytes(r[8..12].try_into().unwrap_or_default()),
            transitions: u32::from_le_bytes(r[12..16].try_into().unwrap_or_default()),
            reduced: r[16] != 0,
        })
        .collect())
}

fn exploration(point: PointPart, visits: Vec<Visit>) -> anyhow::Result<Exploration> {
    let mut ranks = Vec::with_capacity(point.outcomes.len());
    let mut outcomes = Vec::with_capacity(point.outcomes.len());
    for o in point.outcomes {
        let events = o
            .schedule
            .iter()
            .map(|d| Decision::parse(d).map_err(anyhow::Error::msg))
            .collect::<anyhow::Result<Vec<_>>>()?;
        ranks.push(o.ranks);
        outcomes.push(Outcome {
            metrics: o
                .metrics
                .into_iter()
                .map(cell)
                .collect::<anyhow::Result<_>>()?,
            executions: o.executions.parse()?,
            probability: o.probability.map(|p| p.parse()).transpose()?,
            trace: o
                .trace
                .into_iter()
                .map(|t| {
                    Ok(TraceStep {
                        time_ms: t.time_ms.parse()?,
                        actor: t.actor,
                        action: t.action,
                        choice: t.choice,
                        action_tr: t.action_tr,
                        choice_tr: t.choice_tr,
                    })
                })
                .collect::<anyhow::Result<_>>()?,
            schedule: Schedule {
                max_faults: o.max_faults,
                events,
                cycle_from: None,
            },
        });
    }
    Ok(Exploration {
        cycles: false,
        counted: true,
        states: point.states,
        transitions: point.transitions,
        executions: point.executions.parse()?,
        bounded: point.bounded.as_ref().map(BoundPart::bound),
        ordered: point.ordered,
        longest: point.longest,
        reduced: point.reduced,
        // A part's states are keyed for the merge, which tells shared ones apart.
        keyed: true,
        // A shard keys its states without symmetry.
        symmetry: Vec::new(),
        outcomes,
        part: Some(Part {
            shard: point.shard,
            visits,
            ranks,
            max_outcomes: point.max_outcomes,
        }),
        // A part keeps no graph of entries.
        schedulers: None,
        paths: Vec::new(),
        // Shards are explored by the interpreter (the flat back end splits none yet).
        engine: coordsim_model::Engine::Interpret,
    })
}

fn cell(c: CellText) -> anyhow::Result<Cell> {
    Ok(match c {
        CellText::Count(n) => Cell::Count(n),
        CellText::Float(f) => Cell::Float(f.parse()?),
        CellText::Flag(b) => Cell::Flag(b),
        CellText::Text(s) => Cell::Text(s),
        CellText::Empty => Cell::Empty,
    })
}
