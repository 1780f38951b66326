//! Running a config: every (point, replication) in parallel, collected in order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use coordsim_model::{ChartKind, ModelError, RunContext, RunOutput};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::config::Config;
use crate::results::{Results, Row, Schema, Table, lead_cells};

/// How to run.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Worker threads.
    pub jobs: usize,
    /// Replaces the config's seed.
    pub seed: Option<u64>,
    /// Only points whose index ≡ k (mod n).
    pub shard: Option<(usize, usize)>,
    /// Show a progress bar (only drawn on a terminal).
    pub progress: bool,
    /// The engine's order of events with equal time and class (FIFO but for `check --ties`).
    pub ties: sim_core::Ties,
}

/// Runs a config and returns its rows in (point, replication) order, whatever `jobs` is.
pub fn run(config: &Config, options: &RunOptions) -> anyhow::Result<Results> {
    let seed = options.seed.unwrap_or(config.seed);
    let points: Vec<usize> = (0..config.points)
        .filter(|p| options.shard.is_none_or(|(k, n)| p % n == k))
        .collect();
    let reps = config.replications as usize;
    let total = points.len() * reps;

    // Timelines draw each point's first replication, and only the points they draw (the
    // first few a timeline's `where` keeps): only those runs record lanes.
    let mut lane_points = vec![false; config.points];
    for chart in config
        .charts
        .iter()
        .filter(|c| c.kind == ChartKind::Timeline)
    {
        for p in chart.timeline_points(config).drawn {
            lane_points[p] = true;
        }
    }
    let wants_lanes = |point: usize, replication: u64| replication == 0 && lane_points[point];
    // Per-request samples only when a chart draws their distribution.
    let wants_distributions = config.charts.iter().any(|c| c.distribution);
    let bar = progress_bar(options.progress, total as u64, &config.source.name);
    // As many runs at once as the memory budget holds (each at the heaviest estimate).
    let fit = (config.max_memory_bytes / config.heaviest_run_bytes.max(1)).max(1) as usize;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1).min(fit))
        .build()?;
    // Events run so far by every run of this config, shown beside the runs: a single long
    // run moves too. Only the display reads it.
    let events = Arc::new(AtomicU64::new(0));
    let running = AtomicBool::new(true);
    // Collected by index: the order of the output never depends on which thread ran what.
    let outputs: Vec<_> = std::thread::scope(|scope| {
        // Only a bar that draws (on a terminal) needs the ticker.
        let ticker = (!bar.is_hidden()).then(|| {
            scope.spawn(|| {
                while running.load(Ordering::Relaxed) {
                    std::thread::park_timeout(Duration::from_millis(100));
                    let n = events.load(Ordering::Relaxed);
                    if n > 0 {
                        bar.set_message(format!(
                            "{} ({:.0} M events)",
                            config.source.name,
                            n as f64 / 1e6
                        ));
                    }
                }
            })
        });
        let outputs = pool.install(|| {
            (0..total)
                .into_par_iter()
                .map(|i| {
                    let point = points[i / reps];
                    let replication = (i % reps) as u64;
                    let run_seed = sim_core::replication_seed(seed, replication);
                    let ctx = RunContext::new(run_seed, config.limits)
                        .with_lanes(wants_lanes(point, replication))
                        .with_distributions(wants_distributions)
                        .with_entities(config.entities)
                        .with_stats(config.stats)
                        .with_percentile(config.percentile)
                        .with_ties(options.ties)
                        .with_progress(Arc::clone(&events));
                    // After Ctrl-C no run starts, and a running one stops within a moment.
                    let out = if stop_requested() {
                        Err(ModelError::Sim(sim_core::SimError::Stopped))
                    } else {
                        config.plans[point].run(&ctx.with_stop(stop_flag()))
                    };
                    bar.inc(1);
                    (point, replication, run_seed, out)
                })
                .collect()
        });
        running.store(false, Ordering::Relaxed);
        if let Some(ticker) = ticker {
            ticker.thread().unpark();
        }
        outputs
    });
    bar.finish_and_clear();

    let results_schema = Schema::results(config);
    let mut results = Table {
        schema: results_schema,
        rows: Vec::with_capacity(total),
    };
    let mut entities = Schema::entities(config)
        .filter(|_| config.entities)
        .map(|schema| Table {
            schema,
            rows: Vec::new(),
        });
    let mut lanes = Vec::new();
    let mut distributions: Vec<Pooled> = Vec::new();
    for (point, replication, run_seed, out) in outputs {
        let RunOutput {
            metrics,
            entities: entity_rows,
            lanes: point_lanes,
            distributions: samples,
        } = out.map_err(|e| run_error(config, point, &e))?;
        if wants_lanes(point, replication) {
            lanes.push((point, point_lanes));
        }
        for (name, values) in samples {
            pool_samples(&mut distributions, point, name, values);
        }
        let mut row = lead_cells(&results.schema, config, point, replication, run_seed, None);
        row.extend(metrics);
        results.rows.push(Row::new(row));
        if let Some(table) = entities.as_mut() {
            for (name, cells) in entity_rows {
                let mut row = lead_cells(
                    &table.schema,
                    config,
                    point,
                    replication,
                    run_seed,
                    Some(&name),
                );
                row.extend(cells);
                table.rows.push(Row::new(row));
            }
        }
    }
    let results = Results {
        results,
        entities,
        lanes,
        distributions,
    };
    // A label for a value only the run shows (an entity, an outcome) must match one; a
    // sharded run sees only its points, so `merge` checks the whole.
    if options.shard.is_none() {
        config.check_value_labels(&results)?;
    }
    Ok(results)
}

/// One point's samples of one distribution, pooled over its replications.
pub type Pooled = (usize, &'static str, Vec<f64>);

/// Most samples of one distribution kept per point: whole replications are added, in
/// order, while they fit (each is an independent run, so the pool stays unbiased).
pub const MAX_POOLED_SAMPLES: usize = 1_000_000;

fn pool_samples(pools: &mut Vec<Pooled>, point: usize, name: &'static str, values: Vec<f64>) {
    match pools
        .iter_mut()
        .rev()
        .find(|(p, n, _)| *p == point && *n == name)
    {
        Some((_, _, pool)) => {
            if pool.len() + values.len() <= MAX_POOLED_SAMPLES {
                pool.extend(values);
            }
        }
        None => pools.push((point, name, values)),
    }
}

/// Raised by Ctrl-C: runs stop, and the command says what it wrote.
pub fn stop_flag() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    Arc::clone(FLAG.get_or_init(|| Arc::new(AtomicBool::new(false))))
}

/// Whether Ctrl-C was pressed.
pub fn stop_requested() -> bool {
    stop_flag().load(Ordering::Relaxed)
}

/// The error of a command stopped by Ctrl-C (exit 130).
#[derive(Debug, thiserror::Error)]
#[error("interrupted (Ctrl-C)")]
pub struct Interrupted;

fn run_error(config: &Config, point: usize, e: &ModelError) -> anyhow::Error {
    if matches!(e, ModelError::Sim(sim_core::SimError::Stopped)) {
        return anyhow::Error::new(Interrupted);
    }
    match e {
        ModelError::Param(p) => config.param_error(&p.key, point, &p.message).into(),
        ModelError::Invariant(message) => config
            .error_at_model(format!(
                "point {point}: {} broke its own invariant (a bug in the model): {message}",
                config.model.name()
            ))
            .into(),
        ModelError::Sim(s) => {
            let at: Vec<String> = config
                .axes
                .iter()
                .zip(config.coordinates(point))
                .map(|(a, c)| format!("{} = {}", a.key, a.values[c]))
                .collect();
            let at = if at.is_empty() {
                String::new()
            } else {
                format!(" ({})", at.join(", "))
            };
            let hint = match s {
                sim_core::SimError::EventLimit { .. } | sim_core::SimError::TimeLimit { .. } => {
                    "; a [limits] table with max_events / max_virtual_time_ms raises it"
                }
                _ => "",
            };
            config
                .error_at_model(format!("point {point}{at}: {s}{hint}"))
                .into()
        }
    }
}

fn progress_bar(enabled: bool, total: u64, name: &str) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    // stderr only draws on a terminal: piped output never sees the bar.
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    // A run or two: no bar to fill and no ETA to guess; the events counter shows it moving.
    let template = if total <= 2 {
        "{spinner} {msg}, {elapsed} elapsed"
    } else {
        "{msg} [{bar:30}] {pos}/{len} runs, {eta} left"
    };
    bar.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(name.to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
