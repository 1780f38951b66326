//! Running a config: every (point, replication) in parallel, collected in order.

pub mod explore;
pub(crate) mod schedule;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use coordsim_model::{ChartKind, ModelError, RunContext, RunOutput};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::config::Config;
use crate::interrupt::{Interrupted, stop_flag, stop_requested};
use crate::results::{MAX_POOLED_SAMPLES, Pooled};
use crate::results::{Results, Row, Schema, Table, lead_cells, param_cells};

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

impl RunOptions {
    /// The options a command's flags give, resolved once: `--jobs` (default: the number of
    /// cores) and `--seed`; no shard, the engine's own order of ties.
    pub(crate) fn from_flags(jobs: Option<u64>, seed: Option<u64>, progress: bool) -> RunOptions {
        RunOptions {
            jobs: jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                |j| j as usize,
            ),
            seed,
            shard: None,
            progress,
            ties: sim_core::Ties::Fifo,
        }
    }

    /// The master seed `config`'s runs use: `--seed` when given, else the config's own.
    pub(crate) fn seed_for(&self, config: &Config) -> u64 {
        self.seed.unwrap_or(config.seed)
    }
}

/// Runs a config and returns its rows in (point, replication) order, whatever `jobs` is.
pub fn run(config: &Config, options: &RunOptions) -> anyhow::Result<Results> {
    let seed = options.seed_for(config);
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
    // Per-request samples only when a chart draws their distribution.
    let wants_distributions = config.draws_distributions();
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
    let sweep = Sweep::new();
    let mut collector = Collector::new(config, total, lane_points.clone());
    // Runs go in chunks, each folded into the results before the next starts: a run's
    // output (its samples above all) is held only until its chunk is folded, so memory does
    // not grow with the number of runs. Collected by index: the order of the output never
    // depends on which thread ran what.
    let chunk = options.jobs.max(1) * if wants_distributions { 4 } else { 64 };
    std::thread::scope(|scope| -> anyhow::Result<()> {
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
        let mut folded = Ok(());
        for start in (0..total).step_by(chunk) {
            let outputs: Vec<_> = pool.install(|| {
                (start..(start + chunk).min(total))
                    .into_par_iter()
                    .map(|i| {
                        let point = points[i / reps];
                        let replication = (i % reps) as u64;
                        let run_seed = sim_core::replication_seed(seed, replication);
                        let out = if stop_requested() || sweep.failed_before(i) {
                            // After Ctrl-C no run starts; after a failure no later run does.
                            Err(ModelError::Sim(sim_core::SimError::Stopped))
                        } else {
                            let cancel = sweep.start(i);
                            let ctx = RunContext::new(run_seed, config.limits)
                                .with_lanes(replication == 0 && lane_points[point])
                                .with_resource_lanes(config.draws_resource_lanes())
                                .with_distributions(
                                    wants_distributions && config.draws_distribution_at(point),
                                )
                                .with_entities(config.entities)
                                .with_stats(config.stats)
                                .with_percentile(config.percentile)
                                .with_ties(options.ties)
                                .with_progress(Arc::clone(&events))
                                .with_stop(stop_flag())
                                .with_stop(Arc::clone(&cancel));
                            let out = config.plans[point].run(&ctx);
                            sweep.end(i, &cancel, out.as_ref().err());
                            out
                        };
                        bar.inc(1);
                        (point, replication, run_seed, out)
                    })
                    .collect()
            });
            folded = outputs
                .into_iter()
                .try_for_each(|(point, replication, run_seed, out)| {
                    collector.fold(point, replication, run_seed, out)
                });
            if folded.is_err() {
                break;
            }
        }
        running.store(false, Ordering::Relaxed);
        if let Some(ticker) = ticker {
            ticker.thread().unpark();
        }
        folded
    })?;
    bar.finish_and_clear();
    let Collector {
        results,
        entities,
        lanes,
        distributions,
        ..
    } = collector;
    let results = Results {
        results,
        entities,
        lanes,
        distributions,
    };
    // A label for a value only the run shows (an entity, an outcome) must match one; a
    // sharded run sees only its points, so `merge` checks the whole.
    if options.shard.is_none() {
        crate::labels::check_value_labels(config, &results)?;
    }
    Ok(results)
}

/// The one execution a schedule fixes (`run --schedule`, an exploration's deciding
/// trace): a run of its point (replication 0, the seed's first stream, as every run's
/// first replication) with its timeline lanes, its entities and its samples, giving the
/// rows and outputs a run has.
pub(crate) fn run_schedule(
    config: &Config,
    options: &RunOptions,
    file: &crate::runner::schedule::ScheduleFile,
) -> anyhow::Result<Results> {
    let run_seed = sim_core::replication_seed(options.seed_for(config), 0);
    let mut lane_points = vec![false; config.points];
    lane_points[file.point] = true;
    let mut collector = Collector::new(config, 1, lane_points);
    let ctx = RunContext::new(run_seed, config.limits)
        .with_lanes(true)
        .with_resource_lanes(config.draws_resource_lanes())
        .with_distributions(config.draws_distributions())
        .with_entities(config.entities)
        .with_stats(config.stats)
        .with_percentile(config.percentile)
        .with_stop(stop_flag());
    let out = config.plans[file.point].replay(&ctx, &file.schedule);
    // A schedule that does not fit: said at the event of its file where it stops fitting.
    if let Err(ModelError::Param(error)) = &out
        && let Some(at) = file.error_at(&error.key, &error.message)
    {
        return Err(at.into());
    }
    collector.fold(file.point, 0, run_seed, out)?;
    let Collector {
        results,
        entities,
        lanes,
        distributions,
        ..
    } = collector;
    Ok(Results {
        results,
        entities,
        lanes,
        distributions,
    })
}

/// The results of a config's runs, folded in as each chunk of runs ends.
struct Collector<'a> {
    config: &'a Config,
    /// The points whose first replication records timeline lanes.
    lane_points: Vec<bool>,
    results: Table,
    entities: Option<Table>,
    lanes: Vec<(usize, coordsim_model::Lanes)>,
    distributions: Vec<Pooled>,
}

impl<'a> Collector<'a> {
    fn new(config: &'a Config, runs: usize, lane_points: Vec<bool>) -> Collector<'a> {
        Collector {
            config,
            lane_points,
            results: Table {
                schema: Schema::results(config),
                rows: Vec::with_capacity(runs),
            },
            entities: Schema::entities(config)
                .filter(|_| config.entities)
                .map(|schema| Table {
                    schema,
                    rows: Vec::new(),
                }),
            lanes: Vec::new(),
            distributions: Vec::new(),
        }
    }

    /// Adds one run's output (in run order), or gives its error.
    fn fold(
        &mut self,
        point: usize,
        replication: u64,
        run_seed: u64,
        out: Result<RunOutput, ModelError>,
    ) -> anyhow::Result<()> {
        let config = self.config;
        let RunOutput {
            metrics,
            entities: entity_rows,
            lanes: point_lanes,
            distributions: samples,
        } = out.map_err(|e| run_error(config, point, &e))?;
        if replication == 0 && self.lane_points[point] {
            self.lanes.push((point, point_lanes));
        }
        for (name, values) in samples {
            pool_samples(&mut self.distributions, point, name, values);
        }
        let schema = &self.results.schema;
        let mut row = lead_cells(schema, config, point, replication, run_seed, None);
        row.extend(metrics);
        row.extend(param_cells(schema, config, point));
        self.results.rows.push(Row::new(row));
        if let Some(table) = self.entities.as_mut() {
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
        Ok(())
    }
}

/// The runs of one sweep in flight, so that a failed run stops the later ones.
///
/// A sweep reports its lowest-index failure, whatever `--jobs` is: after run `i` fails, no
/// run after `i` starts and the running ones after it are stopped, while every run before
/// `i` goes on (it might fail too, and would then be the one reported). So each run before
/// the reported one ran to its end, and the report never depends on the threads.
struct Sweep {
    /// The lowest index that failed so far (`usize::MAX`: none).
    first_failure: std::sync::atomic::AtomicUsize,
    /// Runs in flight: their index and the flag that stops each.
    running: std::sync::Mutex<Vec<(usize, Arc<AtomicBool>)>>,
}

impl Sweep {
    fn new() -> Sweep {
        Sweep {
            first_failure: std::sync::atomic::AtomicUsize::new(usize::MAX),
            running: std::sync::Mutex::new(Vec::new()),
        }
    }

    fn first(&self) -> usize {
        self.first_failure.load(Ordering::Relaxed)
    }

    /// Whether a run before `i` has failed already (so `i` need not run).
    fn failed_before(&self, i: usize) -> bool {
        self.first() < i
    }

    /// Registers run `i` and gives the flag that stops it.
    fn start(&self, i: usize) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        if let Ok(mut running) = self.running.lock() {
            running.push((i, Arc::clone(&flag)));
        }
        flag
    }

    /// Unregisters run `i`; if it failed (not merely stopped), stops every later run.
    fn end(&self, i: usize, flag: &Arc<AtomicBool>, error: Option<&ModelError>) {
        let failed =
            error.is_some_and(|e| !matches!(e, ModelError::Sim(sim_core::SimError::Stopped)));
        let Ok(mut running) = self.running.lock() else {
            return;
        };
        running.retain(|(_, f)| !Arc::ptr_eq(f, flag));
        if failed {
            let first = self.first_failure.fetch_min(i, Ordering::Relaxed).min(i);
            for (j, f) in running.iter() {
                if *j > first {
                    f.store(true, Ordering::Relaxed);
                }
            }
        }
    }
}

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

pub(crate) fn run_error(config: &Config, point: usize, e: &ModelError) -> anyhow::Error {
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
