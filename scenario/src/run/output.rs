//! A run's end: the invariants every run checks, and its metric cells, entity rows, lanes
//! and distributions.

use coordsim_model::{Cell, Columns, Lanes, ModelError, RunContext, RunOutput};
use sim_core::{Samples, ns_to_ms};

use crate::machine::lock::LockMode;
use crate::point::{Group, Step};
use crate::run::state::Sim;
use crate::syntax::metrics::{ActorRow, Metric, WAIT_STATS, WaitStat};

impl Sim<'_> {
    /// Conservation at every server, and mutual exclusion where a lock is meant to exclude.
    pub(crate) fn check(&self, seed: u64) -> Result<(), ModelError> {
        // Every request that arrived at a server was served and left it, once (counted where
        // each happens: arrival, service start, departure).
        for (index, server) in self.servers.iter().enumerate() {
            if let Some((arrivals, served, departures)) = server.unconserved() {
                return Err(ModelError::Invariant(format!(
                    "conservation at seed {seed}: server `{}` had {arrivals} arrivals, served {served} and saw {departures} leave",
                    self.point.servers[index].name
                )));
            }
        }
        // Mutual exclusion, where the lock is meant to exclude: no lease, no operator unlock.
        for (index, point_lock) in self.point.locks.iter().enumerate() {
            let holders = self.locks[index].max_holders();
            if point_lock.mode != LockMode::Lease && point_lock.unlock_ns.is_empty() && holders > 1
            {
                return Err(ModelError::Invariant(format!(
                    "mutual exclusion at seed {seed}: {holders} actors held `{}` at once",
                    self.point.lock_names[index]
                )));
            }
        }
        Ok(())
    }

    /// The run's output: a cell for each of `fill`, the entity rows, lanes and
    /// distributions (named `distributions`, one per server) that `context` asks for.
    pub(crate) fn output(
        mut self,
        fill: &[Metric],
        distributions: &[&'static str],
        context: &RunContext,
    ) -> RunOutput {
        let metrics = fill.iter().map(|m| self.cell(*m)).collect();
        let point = self.point;
        let mut entities = Vec::new();
        if context.wants_entities() {
            // An actor's waits are totals, 0 when it never waited; empty only when its group
            // has no step of that kind (not a lock, or a server, it could wait for).
            let has = |group: &Group, f: fn(&Step) -> bool| group.steps.iter().any(f);
            let kinds: Vec<(bool, bool)> = point
                .groups
                .iter()
                .map(|group| {
                    (
                        has(group, |s| matches!(s, Step::Acquire { .. })),
                        has(group, |s| matches!(s, Step::Request { .. })),
                    )
                })
                .collect();
            for actor in &self.actors {
                let group = &point.groups[actor.group as usize];
                let (locks, servers) = kinds[actor.group as usize];
                let outcome = if actor.crashed {
                    "crashed"
                } else if actor.gave_up > 0 {
                    "gave_up"
                } else if actor.restarts > 0 && actor.completed < group.repeat {
                    "restarted"
                } else if actor.stopped && actor.completed == actor.started {
                    "stopped"
                } else if actor.completed == actor.started && actor.started == group.repeat {
                    "completed"
                } else {
                    "unfinished"
                };
                let row = ActorRow {
                    group: group.name.clone(),
                    start_ms: ns_to_ms(actor.start),
                    end_ms: actor.end.map(ns_to_ms),
                    outcome: outcome.to_string(),
                    repetitions: actor.started,
                    completed: actor.completed,
                    gave_up: actor.gave_up,
                    failed_attempts: actor.failed,
                    lock_wait_ms: locks.then(|| ns_to_ms(actor.lock_wait.unwrap_or(0))),
                    server_wait_ms: servers.then(|| ns_to_ms(actor.server_wait.unwrap_or(0))),
                    rejected_writes: actor.rejected,
                    retries: actor.retries,
                };
                entities.push((group.actor_name(actor.index), row.cells()));
            }
        }
        // A lock wait still on at the end (a deadlock), or a take no message came for, is
        // drawn on past it.
        if self.lanes.is_some() {
            let free: std::collections::HashSet<u32> = self.free_jobs.iter().copied().collect();
            for job in 0..self.jobs.len() as u32 {
                let job_state = &self.jobs[job as usize];
                if (job_state.waiting != u16::MAX || job_state.taking != u16::MAX)
                    && !free.contains(&job)
                {
                    let from = job_state.step_started;
                    self.span(job, "waiting", from, None);
                }
            }
        }
        let lanes = match self.lanes.take() {
            Some(recorder) => {
                let names: Vec<String> = (self.actors.iter())
                    .map(|actor| point.groups[actor.group as usize].actor_name(actor.index))
                    .collect();
                recorder.finish(names.clone(), &names, self.end)
            }
            None => Lanes::new(),
        };
        let distributions = if context.wants_distributions() {
            // The servers' waits, then the groups' responses (as `ScenarioDef` names them).
            let waits = self
                .servers
                .iter()
                .map(|s| s.waits_ref().distribution_ms(context.distribution_points()));
            let responses = (0..self.groups.len())
                .map(|group| self.response_distribution(group, context.distribution_points()));
            distributions
                .iter()
                .copied()
                .zip(waits.chain(responses))
                .collect()
        } else {
            Vec::new()
        };
        RunOutput {
            metrics,
            entities,
            lanes,
            distributions,
        }
    }

    /// The cell of `metric`.
    pub(crate) fn cell(&mut self, metric: Metric) -> Cell {
        let or_empty = |x: Option<f64>| x.map_or(Cell::Empty, Cell::Float);
        match metric {
            Metric::RegValue(r) => Cell::Float(self.registers[r as usize].value()),
            Metric::RegWrites(r) => Cell::Count(self.registers[r as usize].writes()),
            Metric::RegLost(r) => Cell::Count(self.registers[r as usize].lost_updates()),
            Metric::RegRejected(r) => Cell::Count(self.registers[r as usize].rejected_writes()),
            Metric::LockAcquisitions(l) => Cell::Count(self.locks[l as usize].acquisitions()),
            Metric::LockFailed(l) => Cell::Count(self.locks[l as usize].failed_attempts()),
            Metric::LockGaveUp(l) => Cell::Count(self.locks[l as usize].gave_up()),
            Metric::LockMaxHolders(l) => Cell::Count(self.locks[l as usize].max_holders() as u64),
            Metric::LockLeft(l) => Cell::Flag(self.locks[l as usize].has_record()),
            Metric::LockMeanWait(l) => or_empty(self.locks[l as usize].waits().mean_ms()),
            Metric::LockP95Wait(l) => or_empty(self.locks[l as usize].waits().percentile_ms(95.0)),
            Metric::LockMaxWait(l) => or_empty(self.locks[l as usize].waits().max_ms()),
            Metric::LockHeld(l) => {
                Cell::Float(ns_to_ms(self.locks[l as usize].held_ns_until(self.end)))
            }
            Metric::LockGaveUpWait(l) => {
                Cell::Float(ns_to_ms(self.locks[l as usize].gave_up_wait_ns()))
            }
            Metric::LockTotalWait(l) => {
                Cell::Float(self.locks[l as usize].waits().sum_ns() as f64 / 1e6)
            }
            Metric::ServerRequests(s) => Cell::Count(self.servers[s as usize].requests()),
            Metric::ServerWait(s, stat) => or_empty(self.server_wait(s as usize, stat)),
            Metric::ServerMaxQueue(s) => {
                Cell::Count(self.servers[s as usize].max_queue_len() as u64)
            }
            Metric::ServerBusy(s) => Cell::Float(self.servers[s as usize].busy_fraction()),
            Metric::ServerMakespan(s) => {
                Cell::Float(ns_to_ms(self.servers[s as usize].makespan_ns()))
            }
            Metric::LinkCrossings(l) => Cell::Count(self.links[l as usize].crossings()),
            Metric::LinkLost(l) => Cell::Count(self.links[l as usize].lost()),
            Metric::QueuePut(q) => Cell::Count(self.queues[q as usize].put),
            Metric::QueueTaken(q) => Cell::Count(self.queues[q as usize].taken),
            Metric::QueueRedelivered(q) => Cell::Count(self.queues[q as usize].redelivered),
            Metric::QueueAcked(q) => Cell::Count(self.queues[q as usize].acked),
            Metric::QueueReturned(q) => Cell::Count(self.queues[q as usize].returned),
            Metric::QueueLeft(q) => Cell::Count(self.queues[q as usize].left()),
            Metric::QueueMaxLen(q) => Cell::Count(self.queues[q as usize].max_len),
            Metric::QueueRefused(q) => Cell::Count(self.queues[q as usize].refused),
            Metric::QueueLost(q) => Cell::Count(self.queues[q as usize].lost),
            Metric::QueueDuplicated(q) => Cell::Count(self.queues[q as usize].duplicated),
            Metric::QueueReplies(q) => Cell::Count(self.queues[q as usize].replies),
            Metric::QueueLateReplies(q) => Cell::Count(self.queues[q as usize].late_replies),
            Metric::KeysInserted(k) => Cell::Count(self.keys[k as usize].inserted),
            Metric::KeysDuplicates(k) => Cell::Count(self.keys[k as usize].duplicates),
            Metric::KeysRemoved(k) => Cell::Count(self.keys[k as usize].removed),
            Metric::KeysUpdated(k) => Cell::Count(self.keys[k as usize].updated),
            Metric::KeysSize(k) => Cell::Count(self.keys[k as usize].size()),
            Metric::KeysTotal(k) => Cell::Float(self.keys[k as usize].total()),
            Metric::ServerTimedOut(s) => Cell::Count(self.servers[s as usize].timed_out()),
            Metric::ServerRefused(s) => Cell::Count(self.servers[s as usize].refused()),
            Metric::ServerWasted(s) => Cell::Count(self.servers[s as usize].wasted().0),
            Metric::ServerWastedMs(s) => Cell::Float(ns_to_ms(self.servers[s as usize].wasted().1)),
            Metric::ServerCancelled(s) => Cell::Count(self.servers[s as usize].cancelled().0),
            Metric::ServerWithdrawn(s) => Cell::Count(self.servers[s as usize].cancelled().1),
            Metric::GroupTimeouts(g) => Cell::Count(self.groups[g as usize].timeouts),
            Metric::GroupRestarts(g) => Cell::Count(self.groups[g as usize].restarts),
            Metric::GroupActors(g) => Cell::Count(u64::from(self.point.groups[g as usize].count)),
            Metric::GroupStarted(g) => Cell::Count(self.groups[g as usize].started),
            Metric::GroupCompleted(g) => Cell::Count(self.groups[g as usize].completed),
            Metric::GroupGaveUp(g) => Cell::Count(self.groups[g as usize].gave_up),
            Metric::GroupCrashed(g) => Cell::Count(self.groups[g as usize].crashed),
            Metric::GroupRetries(g) => Cell::Count(self.groups[g as usize].retries),
            Metric::GroupResponse(g, stat) => or_empty(self.response(g as usize, stat)),
            // All groups' repetitions: from the groups' samples, not kept twice.
            Metric::Completed => Cell::Count(self.groups.iter().map(|g| g.completed).sum()),
            Metric::MeanResponse => {
                let (mut responses, mut sum) = (0u128, 0u128);
                for group in 0..self.groups.len() {
                    let (count, total) = self.response_sum(group);
                    responses += count;
                    sum += total;
                }
                if responses == 0 {
                    Cell::Empty
                } else {
                    Cell::Float(sum as f64 / (responses as f64 * 1_000_000.0))
                }
            }
            Metric::MaxResponse => or_empty(
                (0..self.groups.len())
                    .filter_map(|g| self.response(g, WaitStat::Max))
                    .reduce(f64::max),
            ),
            Metric::Watch(index) => self.watch_cell(index as usize),
            Metric::Makespan => {
                let first_start = self.actors.iter().map(|a| a.start).min().unwrap_or(0);
                Cell::Float(ns_to_ms(
                    self.last_end.map_or(0, |t| t.saturating_sub(first_start)),
                ))
            }
        }
    }
}

impl Sim<'_> {
    /// A statistic of the response times of `group`: its own samples, or (an alias) its
    /// server's waits plus the fixed service — the same numbers, each shifted alike, so
    /// every percentile shifts too.
    fn response(&mut self, group: usize, stat: WaitStat) -> Option<f64> {
        match self.groups[group].alias {
            None => stat_value(&mut self.groups[group].responses, stat),
            Some(_) if stat == WaitStat::Mean => {
                let (count, sum) = self.response_sum(group);
                (count > 0).then(|| sum as f64 / (count as f64 * 1_000_000.0))
            }
            // A wait in ms is a whole number of ns over 10^6: back to its ns exactly, then
            // shifted, then to ms as any sample is.
            Some((server, service)) => self
                .server_wait(server as usize, stat)
                .map(|w| sim_core::ns_to_ms((w * 1e6).round() as u64 + service)),
        }
    }

    /// The response times of `group` as a distribution (an alias's: its server's waits, each
    /// shifted by the fixed service).
    fn response_distribution(&self, group: usize, points: usize) -> Vec<f64> {
        match self.groups[group].alias {
            None => self.groups[group].responses.distribution_ms(points),
            Some((server, service)) => self.servers[server as usize]
                .waits_ref()
                .distribution_ms(points)
                .into_iter()
                .map(|w| sim_core::ns_to_ms((w * 1e6).round() as u64 + service))
                .collect(),
        }
    }

    /// A statistic of the waits at `server`, each computed once (a percentile of ten million
    /// waits is a selection over all of them; a one-request group's responses read the
    /// same ones).
    fn server_wait(&mut self, server: usize, stat: WaitStat) -> Option<f64> {
        let slot = stat as usize;
        if self.wait_stats.len() <= server {
            self.wait_stats
                .resize(self.servers.len(), [None; WAIT_STATS]);
        }
        if let Some(value) = self.wait_stats[server][slot] {
            return value;
        }
        let value = stat_value(self.servers[server].waits(), stat);
        self.wait_stats[server][slot] = Some(value);
        value
    }

    /// The completed repetitions of `group` and the sum of their response times (ns).
    fn response_sum(&self, group: usize) -> (u128, u128) {
        match self.groups[group].alias {
            None => {
                let responses = &self.groups[group].responses;
                (responses.count() as u128, responses.sum_ns())
            }
            Some((server, service)) => {
                let waits = self.servers[server as usize].waits_ref();
                let count = waits.count() as u128;
                (count, waits.sum_ns() + count * u128::from(service))
            }
        }
    }
}

/// `stat` of `samples`, in ms (`None`: no sample).
fn stat_value(samples: &mut Samples, stat: WaitStat) -> Option<f64> {
    match stat {
        WaitStat::Mean => samples.mean_ms(),
        WaitStat::P50 => samples.percentile_ms(50.0),
        WaitStat::P95 => samples.percentile_ms(95.0),
        WaitStat::P99 => samples.percentile_ms(99.0),
        WaitStat::P999 => samples.percentile_ms(99.9),
        WaitStat::Max => samples.max_ms(),
    }
}
