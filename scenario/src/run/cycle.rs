//! A state's cycle key: what an exploration of a loop without end (`repeat = "forever"`)
//! compares to find an execution that comes back to where it was. It is the state with
//! every instant relative to now and every count left out, so that two states a time shift
//! apart, having counted more on the way, have one key (docs/explore.md, "Loops without
//! end"). Only the points [`Point::cycle_refusal`] leaves are keyed so: their state is
//! registers, locks, actors and their jobs, watches and the events due.

use sim_core::{EventQueue, Nanos};

use crate::point::Point;
use crate::run::state::{Event, Job, NONE, Sim};
use crate::syntax::metrics::Metric;

impl Point {
    /// Whether the point has a loop without end (`repeat = "forever"`).
    pub(crate) fn forever(&self) -> bool {
        self.groups
            .iter()
            .any(|group| group.forever && group.count > 0)
    }
}

impl Sim<'_> {
    /// The cycle key of the state, as words (compared whole: no hash stands for them).
    /// Every field is named: one added to `Sim` and not decided here fails to compile.
    pub(crate) fn cycle_words(&mut self, events: &EventQueue<Event>) -> Vec<u64> {
        let now = events.now();
        let mut words = Vec::with_capacity(64);
        let watched_cells = self.watch_words();
        write_pending(self, events, &mut words);
        let Sim {
            point,
            // The clock: every instant below is written relative to it.
            now: _,
            actors,
            jobs,
            free_jobs,
            tables,
            registers,
            locks,
            last_end,
            last_taker,
            watched,
            steer,
            error,
            // Counts and statistics only add up; what a watch reads of them is written
            // by `watch_words`.
            groups: _,
            // Refused in a point with a loop without end (`cycle_refusal`): empty.
            servers: _,
            links: _,
            queues: _,
            keys: _,
            slots: _,
            free_slots: _,
            transaction: _,
            // The same in every state of one exploration, or empty between events.
            direct: _,
            ready: _,
            joined: _,
            other: _,
            entities: _,
            lanes: _,
            streams: _,
            group_streams: _,
            closed: _,
            wait_stats: _,
            error_at: _,
            end: _,
            scratch: _,
            fan: _,
            calls: _,
            job_rows: _,
            tied: _,
            // A stuck run's shortcut: a point with a loop without end is never stuck.
            polls: _,
        } = self;
        words.push(actors.len() as u64);
        for actor in actors.iter() {
            let group = &point.groups[actor.group as usize];
            words.extend([
                u64::from(actor.group),
                u64::from(actor.index),
                // A loop without end starts repetitions for ever: how many is a count.
                if group.forever { 0 } else { actor.started },
                u64::from(actor.end.is_some()),
                u64::from(actor.crashed),
                u64::from(actor.stopped),
                u64::from(actor.incarnation),
            ]);
        }
        words.push(jobs.len() as u64);
        for job in jobs.iter() {
            job_words(point, job, now, &mut words);
        }
        let mut free = free_jobs.clone();
        free.sort_unstable();
        words.push(free.len() as u64);
        words.extend(free.iter().map(|&slot| u64::from(slot)));
        words.extend(tables.reads.iter().map(|read| read.to_bits()));
        // A held token by whether it is still its lock's record.
        let lock_count = locks.len().max(1);
        for (place, token) in tables.tokens.iter().enumerate() {
            words.push(
                locks
                    .get(place % lock_count)
                    .map_or(0, |l| l.token_state(*token)),
            );
        }
        words.extend(tables.kids.iter().map(|&kid| u64::from(kid)));
        for register in registers.iter() {
            register.cycle_words(now, &mut words);
        }
        for lock in locks.iter() {
            lock.cycle_words(now, &mut words, |&(job, wait)| {
                u64::from(job) << 1 | u64::from(jobs[job as usize].wait == wait)
            });
        }
        words.push(u64::from(last_end.is_some()));
        words.extend(
            (last_taker.iter())
                .map(|&(actor, incarnation)| u64::from(actor) << 32 | u64::from(incarnation)),
        );
        for seen in watched.iter() {
            words.extend([u64::from(seen.first.is_some()), u64::from(seen.waiting)]);
        }
        words.extend(watched_cells);
        if let Some(steer) = steer {
            words.extend([u64::from(steer.faults), u64::from(steer.crashed_anywhere)]);
        }
        words.push(u64::from(error.is_some()));
        words
    }

    /// What each watch reads, as the cycle key keeps it: a count only up to one past its
    /// bound (a count never falls, so from there on the condition's truth is settled the
    /// same way whatever the count), any other value whole.
    fn watch_words(&mut self) -> Vec<u64> {
        let mut words = Vec::new();
        for index in 0..self.point.watches.len() {
            let watch = self.point.watches[index];
            for test in std::iter::once(watch.when).chain(watch.leads_to) {
                words.push(match self.cell(test.metric) {
                    coordsim_model::Cell::Count(count) => {
                        let past = test.bound.floor().max(-1.0) as i64 + 1;
                        count.min(past.max(0) as u64)
                    }
                    coordsim_model::Cell::Float(value) => value.to_bits(),
                    coordsim_model::Cell::Flag(flag) => u64::from(flag),
                    _ => u64::MAX,
                });
            }
        }
        words
    }
}

/// A job as the cycle key writes it: its instants relative to `now` (a deadline ahead) or
/// as whether they are `now`, its counts left out.
fn job_words(point: &Point, job: &Job, now: Nanos, words: &mut Vec<u64>) {
    let Job {
        actor,
        group,
        repetition,
        step,
        // When it started and its wait began: the response and the wait's span, outputs.
        started: _,
        step_started: _,
        retries,
        // A wait's generation, compared with a lock waiter's: written with the waiter.
        wait: _,
        waiting,
        deadline,
        // Read only under `tie_order = "reads_first"`, never in an explored run (Fifo).
        handed_at: _,
        attempt,
        outcome,
        serving,
        taking,
        incarnation,
        in_service,
        polling,
        parent,
        branch,
        cancelled,
        running,
        joined,
        failed,
        winner,
        need,
        withdraw,
        slot,
        calling,
        answering,
        // A timer's count: the events due write whether each timer is its job's latest.
        armed: _,
        timer: _,
    } = *job;
    let forever = point.groups.get(group as usize).is_some_and(|g| g.forever);
    words.extend([
        u64::from(actor),
        u64::from(group),
        // A loop without end's repetitions go on for ever: which one is a count.
        if forever { 0 } else { repetition },
        u64::from(step),
        retries,
        u64::from(waiting),
        if deadline == NONE {
            u64::MAX
        } else {
            deadline.saturating_sub(now)
        },
        u64::from(attempt),
        u64::from(outcome),
        u64::from(serving),
        u64::from(taking),
        u64::from(incarnation),
        u64::from(in_service),
        u64::from(polling),
        u64::from(parent),
        u64::from(branch),
        u64::from(cancelled),
        u64::from(running) | u64::from(joined) << 8 | u64::from(failed) << 16,
        u64::from(winner) | u64::from(need) << 8 | u64::from(withdraw) << 16,
        u64::from(slot),
        u64::from(calling) << 16 | u64::from(answering),
    ]);
}

/// The events due, each by its time ahead of now, its owner and what it is (a timer by
/// whether it is its job's latest), each owner's in their order: the same under a shift
/// of time, where the insertion numbers only count.
fn write_pending(sim: &Sim<'_>, events: &EventQueue<Event>, words: &mut Vec<u64>) {
    let now = events.now();
    let mut pending: Vec<(Nanos, u32, u64, [u64; 2])> = events
        .pending()
        .map(|(time, due)| {
            let owner = sim.owner(due.event);
            (
                time - now,
                owner,
                due.seq,
                event_words(due.event, due.class, &sim.jobs),
            )
        })
        .collect();
    pending.sort_unstable_by_key(|e| (e.0, e.1, e.2));
    words.push(pending.len() as u64);
    for (ahead, _, _, event) in pending {
        words.push(ahead);
        words.extend(event);
    }
}

/// An event as two words: its kind and class, and what it names.
fn event_words(event: Event, class: sim_core::Class, jobs: &[Job]) -> [u64; 2] {
    let (kind, what) = match event {
        Event::Start { actor } => (0, u64::from(actor)),
        Event::Resume { job } => (1, u64::from(job)),
        Event::Land { job } => (2, u64::from(job)),
        Event::Retry { job } => (3, u64::from(job)),
        Event::Timeout { job, armed } => (
            4,
            u64::from(job) << 1 | u64::from(jobs[job as usize].armed == armed),
        ),
        Event::Depart { server, instance } => (5, u64::from(server) << 32 | u64::from(instance)),
        Event::Branch { parent, branch } => (6, u64::from(parent) << 8 | u64::from(branch)),
        Event::Unlock { lock } => (7, u64::from(lock)),
        Event::Down { server } => (8, u64::from(server)),
        Event::Up { server } => (9, u64::from(server)),
        Event::Arrive { queue, message } => (10, u64::from(queue) << 32 | u64::from(message)),
        Event::Visible { queue } => (11, u64::from(queue)),
    };
    [kind << 32 | u64::from(class), what]
}

/// Whether `metric` is one a watch may read in a point with a loop without end: a count
/// (which never falls), a register's value or whether a lock is held.
pub(crate) fn cycle_watchable(metric: Metric) -> bool {
    matches!(
        metric,
        Metric::RegValue(_)
            | Metric::RegWrites(_)
            | Metric::RegLost(_)
            | Metric::RegRejected(_)
            | Metric::LockAcquisitions(_)
            | Metric::LockFailed(_)
            | Metric::LockGaveUp(_)
            | Metric::LockMaxHolders(_)
            | Metric::LockLeft(_)
            | Metric::GroupStarted(_)
            | Metric::GroupCompleted(_)
            | Metric::GroupGaveUp(_)
            | Metric::GroupCrashed(_)
            | Metric::GroupRetries(_)
            | Metric::GroupTimeouts(_)
            | Metric::GroupRestarts(_)
            | Metric::Completed
    )
}
