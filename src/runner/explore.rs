//! Explorations of a config: each point (of a scenario) run through every execution its
//! semantics allow (`coordsim_model::explore`), for `coordsim explore` and for the claims
//! over executions that `check` verifies.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use coordsim_model::explore::{PathAsk, Schedulers};
use coordsim_model::{Cell, Exploration, ExploreLimits, RunContext};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::config::Config;
use crate::interrupt::stop_flag;
use crate::runner::run_error;

/// How an exploration is watched from outside: a progress line, and a time limit.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Watch {
    /// Show the states visited and the states per second (only drawn on a terminal).
    pub(crate) progress: bool,
    /// End each point's exploration, bounded, after this many seconds: the one bound the
    /// machine's speed decides, so the one that can give another verdict on another run.
    pub(crate) max_seconds: Option<u64>,
}

/// Every point of `config` explored under `limits`, with master seed `seed` (an explored
/// run draws nothing, but its errors and its replay say the seed, as every run does).
pub fn explore_config(
    config: &Config,
    seed: u64,
    limits: &ExploreLimits,
) -> anyhow::Result<Vec<Exploration>> {
    explore_watched(config, seed, limits, Watch::default(), None, None)
}

/// A folder an exploration spills into (`spill/` inside an output's staging folder): made
/// empty, and removed with whatever is in it when dropped (after the exploration, on an
/// error too), so that it is never among the outputs.
pub(crate) struct SpillFolder(std::path::PathBuf);

impl SpillFolder {
    /// `spill/` made inside `staging`.
    pub(crate) fn inside(staging: &std::path::Path) -> anyhow::Result<SpillFolder> {
        let path = staging.join("spill");
        std::fs::create_dir(&path)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
        Ok(SpillFolder(path))
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for SpillFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the front end asks a point's exploration to show over its schedulers' graph once
/// its outcomes are known, by the point's index ([`AskPaths`](coordsim_model::explore::AskPaths)
/// with the point): the claims' layer says it (`check::asks_of`).
pub type PointAsks<'a> = dyn Fn(usize, &[Vec<Cell>], &Schedulers) -> Vec<PathAsk> + Sync + 'a;

/// [`explore_config`], watched: a progress line on stderr, and a time limit per point;
/// with `asks`, each point shows what it asks ([`Exploration::paths`]); with `spill`, the
/// counting's cold entries may spill into that folder once memory is short.
pub(crate) fn explore_watched(
    config: &Config,
    seed: u64,
    limits: &ExploreLimits,
    watch: Watch,
    asks: Option<&PointAsks<'_>>,
    spill: Option<&std::path::Path>,
) -> anyhow::Result<Vec<Exploration>> {
    explore_each(config, seed, limits, (watch, asks, spill), 0..config.points)
}

/// The points `points` of `config` explored, in that order, as [`explore_config`] explores
/// each (a chart explores only the points it draws).
pub(crate) fn explore_points(
    config: &Config,
    seed: u64,
    limits: &ExploreLimits,
    points: &[usize],
) -> anyhow::Result<Vec<Exploration>> {
    explore_each(
        config,
        seed,
        limits,
        (Watch::default(), None, None),
        points.iter().copied(),
    )
}

/// Each of `points` explored under `limits`, watched, showing what `asks` asks (if any),
/// spilling into `spill` (if given).
fn explore_each(
    config: &Config,
    seed: u64,
    limits: &ExploreLimits,
    (watch, asks, spill): (Watch, Option<&PointAsks<'_>>, Option<&std::path::Path>),
    points: impl Iterator<Item = usize>,
) -> anyhow::Result<Vec<Exploration>> {
    // Each point's exploration within the config's memory, unless told another; its graph
    // of entries kept when a claim asks for a probability over every scheduler.
    let limits = &ExploreLimits {
        max_memory_bytes: limits.max_memory_bytes.or(Some(config.max_memory_bytes)),
        keep_schedulers: limits.keep_schedulers
            || config.claims.iter().any(|c| c.scheduler.is_some()),
        ..*limits
    };
    points
        .map(|point| {
            let states = Arc::new(AtomicU64::new(0));
            let enough = Arc::new(AtomicBool::new(false));
            let ctx = RunContext::new(seed, config.limits);
            let ctx = match spill {
                Some(folder) => ctx.with_spill(folder),
                None => ctx,
            };
            let ctx = ctx
                .with_entities(false)
                .with_stats(config.stats)
                .with_percentile(config.percentile)
                .with_stop(stop_flag())
                .with_states_progress(Arc::clone(&states))
                .with_enough(Arc::clone(&enough));
            let label = if config.points > 1 {
                format!(
                    "{} point {}/{}",
                    config.source.name,
                    point + 1,
                    config.points
                )
            } else {
                config.source.name.clone()
            };
            let plan = &config.plans[point];
            let explored = watched(&label, watch, (&states, &enough), || match asks {
                Some(asks) => {
                    let asks =
                        |metrics: &[Vec<Cell>], graph: &Schedulers| asks(point, metrics, graph);
                    plan.explore_showing(&ctx, limits, &asks)
                }
                None => plan.explore(&ctx, limits),
            });
            explored.map_err(|e| run_error(config, point, &e))
        })
        .collect()
}

/// `explore` run beside its watcher (where `watch` asks for one), which ends with it, even
/// when it panics (the scope would wait for the watcher for ever, and the command hang
/// instead of failing).
fn watched<T: Send>(
    label: &str,
    watch: Watch,
    (states, enough): (&AtomicU64, &AtomicBool),
    explore: impl FnOnce() -> T,
) -> T {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let watcher = (watch.progress || watch.max_seconds.is_some())
            .then(|| scope.spawn(|| watching(label, watch, states, enough, &done)));
        let out = {
            let _done = Done(&done);
            explore()
        };
        if let Some(w) = watcher {
            w.thread().unpark();
            let _ = w.join();
        }
        out
    })
}

/// Raises its flag when dropped: the exploration the watcher watches has ended, by a
/// return or a panic.
struct Done<'f>(&'f AtomicBool);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The watcher of one exploration: every 100 ms it draws the states visited and, past the
/// time limit, raises `enough`; it ends when `done` is.
fn watching(label: &str, watch: Watch, states: &AtomicU64, enough: &AtomicBool, done: &AtomicBool) {
    let start = Instant::now();
    let bar = if watch.progress {
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg}, {elapsed} elapsed")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    while !done.load(Ordering::Relaxed) {
        std::thread::park_timeout(Duration::from_millis(100));
        let seconds = start.elapsed().as_secs_f64();
        let n = states.load(Ordering::Relaxed);
        bar.set_message(format!(
            "{label}: {n} states, {:.2} M states/s",
            n as f64 / seconds.max(1e-3) / 1e6
        ));
        bar.tick();
        if watch.max_seconds.is_some_and(|m| seconds >= m as f64) {
            enough.store(true, Ordering::Relaxed);
        }
    }
    bar.finish_and_clear();
}

/// The bounds `check`, `report` and the lessons explore with: the defaults, on every core
/// (the result is the same on any number).
pub(crate) fn default_limits() -> ExploreLimits {
    ExploreLimits {
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        ..ExploreLimits::default()
    }
}

/// Whether `config` has a claim over executions (then `check` explores it).
pub(crate) fn claims_executions(config: &Config) -> bool {
    config.claims.iter().any(|c| c.over.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic in the exploration ends its watcher and reaches the caller: before, the
    /// watcher waited for a flag only a return raised, and the command hung. Run on a thread
    /// of its own, so that a hang fails the test after 20 s instead of stalling the suite.
    #[test]
    fn a_panicking_exploration_ends_its_watcher() {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let watch = Watch {
                progress: false,
                max_seconds: Some(3600),
            };
            let (states, enough) = (AtomicU64::new(0), AtomicBool::new(false));
            let out = std::panic::catch_unwind(|| {
                watched("x", watch, (&states, &enough), || -> u8 {
                    panic!("a planted panic")
                })
            });
            let _ = sender.send(out.is_err());
        });
        let panicked = receiver.recv_timeout(Duration::from_secs(20));
        assert_eq!(
            panicked,
            Ok(true),
            "the watched exploration hung or did not panic"
        );
    }
}
