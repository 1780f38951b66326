//! What a scenario's metric columns are and what fills each: every resource and group
//! names its own (`counter.lost_updates`, `client.completed`), then the overall ones; and the
//! entity row every actor has.

use coordsim_model::{ColumnSpec, ColumnType, ComposeError, PathPart, columns, intern};

use crate::syntax::spec::{Number, ResourceKind, Spec, Step};

use ColumnType::{Count, Flag, Float};

columns! {
    /// One actor's row.
    pub struct ActorRow {
        /// the actor's group
        group: String,
        /// when it started (its first repetition), ms
        start_ms: f64,
        /// when its last repetition ended, completed or given up (empty: it is down at the end, or none ended)
        end_ms: Option<f64>,
        /// the first that holds: `crashed` (down at the end: no restart, or no repetition left), `gave_up` (any repetition gave up), `restarted` (a crash and restart cost it a repetition), `stopped` (a stop step ended its repetitions), `completed` (every repetition), `unfinished`
        outcome: String,
        /// repetitions it started
        repetitions: u64,
        /// repetitions it completed
        completed: u64,
        /// repetitions it gave up (a lock it waited for too long, or too many rejected writes)
        gave_up: u64,
        /// failed lock attempts (polls and lease tries that found the lock taken)
        failed_attempts: u64,
        /// total time waiting for locks, from each acquire step to its acquisition or its give-up (0: it never waited; empty: its group takes no lock)
        lock_wait_ms: Option<f64>,
        /// total time queued at servers, arrival to service start, of the requests it still waited for when their service started (0: none; empty: its group makes no request)
        server_wait_ms: Option<f64>,
        /// its writes a register rejected (a compare-and-set conflict, a fencing token)
        rejected_writes: u64,
        /// repetitions restarted after a rejected compare-and-set write
        retries: u64,
    }
}

/// What fills one metric column: the resource's or group's number among its kind's, and the
/// statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
    RegValue(u16),
    RegWrites(u16),
    RegLost(u16),
    RegRejected(u16),
    LockAcquisitions(u16),
    LockFailed(u16),
    LockGaveUp(u16),
    LockMaxHolders(u16),
    LockLeft(u16),
    LockMeanWait(u16),
    LockP95Wait(u16),
    LockMaxWait(u16),
    LockTotalWait(u16),
    LockHeld(u16),
    LockGaveUpWait(u16),
    ServerRequests(u16),
    ServerWait(u16, WaitStat),
    ServerMaxQueue(u16),
    ServerBusy(u16),
    ServerMakespan(u16),
    ServerTimedOut(u16),
    ServerRefused(u16),
    ServerWasted(u16),
    ServerWastedMs(u16),
    ServerCancelled(u16),
    ServerWithdrawn(u16),
    LinkCrossings(u16),
    LinkLost(u16),
    QueuePut(u16),
    QueueTaken(u16),
    QueueRedelivered(u16),
    QueueAcked(u16),
    QueueReplies(u16),
    QueueLateReplies(u16),
    QueueReturned(u16),
    QueueLeft(u16),
    QueueMaxLen(u16),
    QueueRefused(u16),
    QueueLost(u16),
    QueueDuplicated(u16),
    KeysInserted(u16),
    KeysDuplicates(u16),
    KeysRemoved(u16),
    KeysUpdated(u16),
    KeysSize(u16),
    KeysTotal(u16),
    GroupActors(u16),
    GroupStarted(u16),
    GroupCompleted(u16),
    GroupGaveUp(u16),
    GroupCrashed(u16),
    GroupRetries(u16),
    GroupTimeouts(u16),
    GroupRestarts(u16),
    GroupResponse(u16, WaitStat),
    Completed,
    MeanResponse,
    MaxResponse,
    Makespan,
    /// The `index`-th `[[watch]]`'s instant, ms.
    Watch(u16),
}

/// How many [`WaitStat`]s there are: a run keeps each server's, once computed.
pub(crate) const WAIT_STATS: usize = 6;

/// A statistic of a set of waits or response times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitStat {
    Mean,
    P50,
    P95,
    P99,
    P999,
    Max,
}

/// A composed model's name as `&'static str` (see [`intern`]).
pub(crate) fn name(text: &str) -> Result<&'static str, ComposeError> {
    intern(text).ok_or_else(|| {
        ComposeError::new(
            vec![PathPart::Key("model".into())],
            "too many distinct names in one process",
        )
    })
}

/// A scenario's metric columns, in order, and what fills each.
#[derive(Debug, Default)]
pub(crate) struct MetricColumns {
    /// The columns.
    pub specs: Vec<ColumnSpec>,
    /// What fills each column, in the same order.
    pub fill: Vec<Metric>,
    /// Each `[[watch]]`'s metrics, as places among the columns: its condition's and its
    /// `leads_to`'s (`syntax::watch`).
    pub resolved: Vec<(usize, Option<usize>)>,
}

impl MetricColumns {
    /// The columns of `spec`: per resource in order, per group, then the overall ones.
    pub(crate) fn of(spec: &Spec) -> Result<MetricColumns, ComposeError> {
        let mut columns = MetricColumns::default();
        let (mut register, mut lock, mut server, mut link) = (0u16, 0u16, 0u16, 0u16);
        let (mut queue, mut keys) = (0u16, 0u16);
        for resource in &spec.resources {
            let resource_name = &resource.name;
            match resource.kind {
                ResourceKind::Register { .. } => {
                    columns.register(resource_name, register)?;
                    register += 1;
                }
                ResourceKind::Lock { .. } => {
                    columns.lock(resource_name, lock)?;
                    lock += 1;
                }
                ResourceKind::Server { .. } => {
                    columns.server(resource_name, server)?;
                    let (abandoned, cancels) = left_behind(spec, server);
                    if abandoned || cancels {
                        columns.abandoned(resource_name, server)?;
                    }
                    if cancels {
                        columns.cancelled(resource_name, server)?;
                    }
                    if let ResourceKind::Server { down, .. } = &resource.kind
                        && !down.is_empty()
                    {
                        columns.column(
                            format!("{resource_name}.refused"),
                            format!("requests `{resource_name}` refused while down (`when_down = \"fail\"`)"),
                            Count,
                            Metric::ServerRefused(server),
                        )?;
                    }
                    server += 1;
                }
                ResourceKind::Link { ref loss, .. } => {
                    columns.link(resource_name, link, !matches!(loss, Number::Lit(0.0)))?;
                    link += 1;
                }
                ResourceKind::Queue {
                    ref capacity,
                    ref visibility_ms,
                    link: ref over,
                    ..
                } => {
                    let over = over.map(|link_index| {
                        let link = spec
                            .resources
                            .iter()
                            .filter(|r| matches!(r.kind, ResourceKind::Link { .. }))
                            .nth(link_index as usize);
                        match link.map(|r| &r.kind) {
                            Some(ResourceKind::Link {
                                loss, duplicate, ..
                            }) => (
                                !matches!(loss, Number::Lit(0.0)),
                                !matches!(duplicate, Number::Lit(0.0)),
                            ),
                            _ => (false, false),
                        }
                    });
                    columns.queue(
                        resource_name,
                        queue,
                        !matches!(capacity, Number::Lit(0.0)),
                        visibility_ms.is_some(),
                        over.unwrap_or((false, false)),
                    )?;
                    columns.replies(spec, resource_name, queue)?;
                    queue += 1;
                }
                ResourceKind::Keys { .. } => {
                    columns.keys(resource_name, keys)?;
                    keys += 1;
                }
            }
        }
        for (index, group) in spec.groups.iter().enumerate() {
            columns.group(&group.name, index as u16)?;
            let group_name = &group.name;
            // Any wait with a ceiling: `give_up_after_ms` is a timeout that gives up, and
            // counts here as one whether or not another step has a `timeout_ms`. An
            // `on_timeout` alone runs on a refusal, which is no timeout.
            if group.any(|step| step.ceiling().is_some()) {
                columns.column(
                    format!("{group_name}.timeouts"),
                    format!(
                        "waits of `{group_name}` that timed out (a lock, a request, a crossing, a take; a `give_up_after_ms` give-up included)"
                    ),
                    Count,
                    Metric::GroupTimeouts(index as u16),
                )?;
            }
            if group.any(|step| {
                matches!(
                    step,
                    Step::Crash {
                        restart_after_ms: Some(_),
                        ..
                    }
                )
            }) {
                columns.column(
                    format!("{group_name}.restarts"),
                    format!("times actors of `{group_name}` crashed and restarted"),
                    Count,
                    Metric::GroupRestarts(index as u16),
                )?;
            }
        }
        columns.overall()?;
        Ok(columns)
    }

    pub(crate) fn column(
        &mut self,
        column_name: String,
        meaning: String,
        column_type: ColumnType,
        metric: Metric,
    ) -> Result<(), ComposeError> {
        self.specs.push(ColumnSpec {
            name: name(&column_name)?,
            meaning: name(&meaning)?,
            ty: column_type,
        });
        self.fill.push(metric);
        Ok(())
    }

    /// Register `name`, the `index`-th.
    fn register(&mut self, name: &str, index: u16) -> Result<(), ComposeError> {
        self.column(
            format!("{name}.value"),
            format!("the value `{name}` holds at the end"),
            Float,
            Metric::RegValue(index),
        )?;
        self.column(
            format!("{name}.writes"),
            format!("writes `{name}` applied"),
            Count,
            Metric::RegWrites(index),
        )?;
        self.column(
            format!("{name}.lost_updates"),
            format!(
                "applied writes of `{name}` that landed on a value other than the one their actor read (each overwrote an update)"
            ),
            Count,
            Metric::RegLost(index),
        )?;
        self.column(
            format!("{name}.rejected_writes"),
            format!("writes `{name}` rejected (compare-and-set conflicts, stale fencing tokens)"),
            Count,
            Metric::RegRejected(index),
        )?;
        Ok(())
    }

    /// Lock `name`, the `index`-th.
    fn lock(&mut self, name: &str, index: u16) -> Result<(), ComposeError> {
        self.column(
            format!("{name}.acquisitions"),
            format!("times `{name}` was taken"),
            Count,
            Metric::LockAcquisitions(index),
        )?;
        self.column(
            format!("{name}.failed_attempts"),
            format!("attempts on `{name}` that found it taken (poll rounds)"),
            Count,
            Metric::LockFailed(index),
        )?;
        self.column(
            format!("{name}.gave_up"),
            format!("waits for `{name}` given up"),
            Count,
            Metric::LockGaveUp(index),
        )?;
        self.column(
            format!("{name}.max_holders"),
            format!(
                "most actors holding `{name}` at once (a crashed holder counts; the stale record does not); 1 is mutual exclusion"
            ),
            Count,
            Metric::LockMaxHolders(index),
        )?;
        self.column(
            format!("{name}.left"),
            format!("1 when a record of `{name}` exists at the end"),
            Flag,
            Metric::LockLeft(index),
        )?;
        self.column(
            format!("{name}.mean_wait_ms"),
            format!(
                "mean wait from an acquire step to taking `{name}` or giving up (empty: never waited for)"
            ),
            Float,
            Metric::LockMeanWait(index),
        )?;
        self.column(
            format!("{name}.p95_wait_ms"),
            format!("95th-percentile wait for `{name}`"),
            Float,
            Metric::LockP95Wait(index),
        )?;
        self.column(
            format!("{name}.max_wait_ms"),
            format!("longest wait for `{name}`"),
            Float,
            Metric::LockMaxWait(index),
        )?;
        self.column(
            format!("{name}.total_wait_ms"),
            format!("all waits for `{name}` added up, acquired or given up"),
            Float,
            Metric::LockTotalWait(index),
        )?;
        self.column(
            format!("{name}.gave_up_wait_ms"),
            format!("the waits for `{name}` that ended in giving up (or a timeout), added up"),
            Float,
            Metric::LockGaveUpWait(index),
        )?;
        self.column(
            format!("{name}.held_ms"),
            format!(
                "time `{name}` was held, every acquisition from its taking to its release (or to the run's end, when never released)"
            ),
            Float,
            Metric::LockHeld(index),
        )?;
        Ok(())
    }

    /// Server `name`, the `index`-th.
    fn server(&mut self, name: &str, index: u16) -> Result<(), ComposeError> {
        self.column(
            format!("{name}.requests"),
            format!("requests `{name}` served"),
            Count,
            Metric::ServerRequests(index),
        )?;
        for (stat, key, what) in [
            (WaitStat::Mean, "mean", "mean"),
            (WaitStat::P50, "p50", "median"),
            (WaitStat::P95, "p95", "95th-percentile"),
            (WaitStat::P99, "p99", "99th-percentile"),
            (WaitStat::P999, "p999", "99.9th-percentile"),
            (WaitStat::Max, "max", "longest"),
        ] {
            self.column(
                format!("{name}.{key}_wait_ms"),
                format!("{what} wait in `{name}`'s queue before service"),
                Float,
                Metric::ServerWait(index, stat),
            )?;
        }
        self.column(
            format!("{name}.max_queue_len"),
            format!(
                "most requests waiting at one instance of `{name}` at once (after each instant; not the one in service)"
            ),
            Count,
            Metric::ServerMaxQueue(index),
        )?;
        self.column(
            format!("{name}.busy_fraction"),
            format!(
                "the busiest instance of `{name}`: busy time / (last departure − first arrival) (0 when that is 0)"
            ),
            Float,
            Metric::ServerBusy(index),
        )?;
        self.column(
            format!("{name}.makespan_ms"),
            format!("last departure − first arrival at `{name}` (0: nothing arrived)"),
            Float,
            Metric::ServerMakespan(index),
        )?;
        Ok(())
    }

    /// Queue `name`'s replies, when a step calls on it.
    fn replies(&mut self, spec: &Spec, name: &str, queue: u16) -> Result<(), ComposeError> {
        let called = spec.groups.iter().any(|group| {
            group.any(|step| matches!(step, Step::Call { queue: called, .. } if *called == queue))
        });
        if called {
            self.column(
                format!("{name}.replies"),
                format!("replies to calls on `{name}` that reached a caller still waiting"),
                Count,
                Metric::QueueReplies(queue),
            )?;
            self.column(
                format!("{name}.late_replies"),
                format!("replies to calls on `{name}` too late: the caller had stopped waiting (a timeout, a cancel, a crash, an earlier reply to a copy) or the link lost the reply"),
                Count,
                Metric::QueueLateReplies(queue),
            )?;
        }
        Ok(())
    }

    /// Server `name`'s requests whose clients may leave.
    fn abandoned(&mut self, name: &str, index: u16) -> Result<(), ComposeError> {
        self.column(
            format!("{name}.timed_out"),
            format!("requests to `{name}` whose client stopped waiting (a timeout) before their service ended"),
            Count,
            Metric::ServerTimedOut(index),
        )?;
        self.column(
            format!("{name}.wasted_requests"),
            format!("services `{name}` finished for a client that had left"),
            Count,
            Metric::ServerWasted(index),
        )?;
        self.column(
            format!("{name}.wasted_ms"),
            format!("service time `{name}` spent on requests nobody waited for any more"),
            Float,
            Metric::ServerWastedMs(index),
        )?;
        Ok(())
    }

    /// Server `name`'s requests whose branches a join may cancel.
    fn cancelled(&mut self, name: &str, index: u16) -> Result<(), ComposeError> {
        self.column(
            format!("{name}.cancelled"),
            format!(
                "requests to `{name}` whose branch was cancelled at a join before their service ended"
            ),
            Count,
            Metric::ServerCancelled(index),
        )?;
        self.column(
            format!("{name}.withdrawn"),
            format!(
                "cancelled requests that left `{name}`'s queue unserved (`cancel = \"withdraw\"`)"
            ),
            Count,
            Metric::ServerWithdrawn(index),
        )?;
        Ok(())
    }

    /// Link `name`, the `index`-th (`lossy`: it may lose a crossing).
    fn link(&mut self, name: &str, index: u16, lossy: bool) -> Result<(), ComposeError> {
        self.column(
            format!("{name}.crossings"),
            format!("crossings of `{name}` (each half its round trip)"),
            Count,
            Metric::LinkCrossings(index),
        )?;
        if lossy {
            self.column(
                format!("{name}.lost"),
                format!("crossings `{name}` lost"),
                Count,
                Metric::LinkLost(index),
            )?;
        }
        Ok(())
    }

    /// Queue `name`, the `index`-th: with a capacity, a visibility timeout, a lossy or duplicating
    /// link, the columns those fill.
    fn queue(
        &mut self,
        name: &str,
        index: u16,
        capacity: bool,
        visibility: bool,
        (lossy, duplicating): (bool, bool),
    ) -> Result<(), ComposeError> {
        self.column(
            format!("{name}.put"),
            format!("messages put on `{name}` (a copy a link made not counted)"),
            Count,
            Metric::QueuePut(index),
        )?;
        self.column(
            format!("{name}.taken"),
            format!("takes from `{name}`: deliveries, each again of a message counted"),
            Count,
            Metric::QueueTaken(index),
        )?;
        self.column(
            format!("{name}.redelivered"),
            format!("takes from `{name}` of a message taken before"),
            Count,
            Metric::QueueRedelivered(index),
        )?;
        if visibility {
            self.column(
                format!("{name}.acked"),
                format!("messages of `{name}` acknowledged in time"),
                Count,
                Metric::QueueAcked(index),
            )?;
            self.column(
                format!("{name}.returned"),
                format!(
                    "times a message of `{name}` came back, not acknowledged in its visibility timeout"
                ),
                Count,
                Metric::QueueReturned(index),
            )?;
        }
        self.column(
            format!("{name}.left"),
            format!(
                "messages still in `{name}` at the end (visible, or taken and not acknowledged)"
            ),
            Count,
            Metric::QueueLeft(index),
        )?;
        self.column(
            format!("{name}.max_len"),
            format!(
                "most visible messages in `{name}` at once (a message handed at once to a waiting taker counts)"
            ),
            Count,
            Metric::QueueMaxLen(index),
        )?;
        if capacity {
            self.column(
                format!("{name}.refused"),
                format!("puts refused because `{name}` was full"),
                Count,
                Metric::QueueRefused(index),
            )?;
        }
        if lossy {
            self.column(
                format!("{name}.lost"),
                format!("messages for `{name}` lost on its link"),
                Count,
                Metric::QueueLost(index),
            )?;
        }
        if duplicating {
            self.column(
                format!("{name}.duplicated"),
                format!("messages for `{name}` its link delivered twice"),
                Count,
                Metric::QueueDuplicated(index),
            )?;
        }
        Ok(())
    }

    /// Key store `name`, the `index`-th.
    fn keys(&mut self, name: &str, index: u16) -> Result<(), ComposeError> {
        for (key, what, metric) in [
            (
                "inserted",
                "inserts that added a key",
                Metric::KeysInserted(index),
            ),
            (
                "duplicates",
                "inserts that found the key there (a duplicate)",
                Metric::KeysDuplicates(index),
            ),
            ("removed", "keys removed", Metric::KeysRemoved(index)),
            (
                "updated",
                "sets (a key's number stored; one that adds the key is no insert)",
                Metric::KeysUpdated(index),
            ),
            ("size", "keys held at the end", Metric::KeysSize(index)),
        ] {
            self.column(
                format!("{name}.{key}"),
                format!("`{name}`: {what}"),
                Count,
                metric,
            )?;
        }
        self.column(
            format!("{name}.total"),
            format!("the numbers stored in `{name}` at the end, added up"),
            Float,
            Metric::KeysTotal(index),
        )
    }

    /// Group `name`, the `index`-th.
    fn group(&mut self, name: &str, index: u16) -> Result<(), ComposeError> {
        self.column(
            format!("{name}.actors"),
            format!("actors in `{name}`"),
            Count,
            Metric::GroupActors(index),
        )?;
        self.column(
            format!("{name}.started"),
            format!("repetitions `{name}` started"),
            Count,
            Metric::GroupStarted(index),
        )?;
        self.column(
            format!("{name}.completed"),
            format!("repetitions `{name}` completed"),
            Count,
            Metric::GroupCompleted(index),
        )?;
        self.column(
            format!("{name}.gave_up"),
            format!("repetitions `{name}` gave up"),
            Count,
            Metric::GroupGaveUp(index),
        )?;
        self.column(
            format!("{name}.crashed"),
            format!("crashes of actors of `{name}` (a crash followed by a restart counts too)"),
            Count,
            Metric::GroupCrashed(index),
        )?;
        self.column(
            format!("{name}.retries"),
            format!(
                "repetitions of `{name}` started again: after a rejected compare-and-set, or a timeout's retry"
            ),
            Count,
            Metric::GroupRetries(index),
        )?;
        for (stat, key, what) in [
            (WaitStat::Mean, "mean", "mean"),
            (WaitStat::P50, "p50", "median"),
            (WaitStat::P95, "p95", "95th-percentile"),
            (WaitStat::P99, "p99", "99th-percentile"),
            (WaitStat::P999, "p999", "99.9th-percentile"),
            (WaitStat::Max, "max", "longest"),
        ] {
            self.column(
                format!("{name}.{key}_response_ms"),
                format!("{what} time of a completed repetition of `{name}`, start to end"),
                Float,
                Metric::GroupResponse(index, stat),
            )?;
        }
        Ok(())
    }

    /// The columns over all groups.
    fn overall(&mut self) -> Result<(), ComposeError> {
        self.column(
            "completed".into(),
            "repetitions completed, all groups".into(),
            Count,
            Metric::Completed,
        )?;
        self.column(
            "mean_response_ms".into(),
            "mean time of a completed repetition, all groups".into(),
            Float,
            Metric::MeanResponse,
        )?;
        self.column(
            "max_response_ms".into(),
            "longest completed repetition, all groups".into(),
            Float,
            Metric::MaxResponse,
        )?;
        self.column(
            "makespan_ms".into(),
            "the last repetition's end (completed or given up) − the earliest start (0: none ended)".into(),
            Float,
            Metric::Makespan,
        )?;
        Ok(())
    }
}

/// Whether server `server`'s requests may be left behind by their clients: by a timeout
/// (`.0`), or by a join that cancels the branch asking (`.1`).
fn left_behind(spec: &Spec, server: u16) -> (bool, bool) {
    let asks = |step: &Step| matches!(step, Step::Request { server: pick, .. } if pick.all().contains(&server));
    // Only a request that may time out can leave the server: an `on_timeout` alone runs
    // on a refusal, a request that never reached the queue.
    let abandoned = spec.groups.iter().any(|group| {
        group.any(|step| {
            matches!(step, Step::Request { .. }) && step.ceiling().is_some() && asks(step)
        })
    });
    let cancels = spec.groups.iter().any(|group| {
        group.any(|step| match step {
            Step::Parallel { branches, .. } => branches.iter().flatten().any(|branch_step| {
                let mut found = false;
                branch_step.visit(&mut |inner| found |= asks(inner));
                found
            }),
            _ => false,
        })
    });
    (abandoned, cancels)
}

/// Whether a scenario's metric `name` reports a register's counts (its writes, lost
/// updates or refused writes, as its register columns name them): counts an
/// exploration carries on its transitions, not in its states, so that a search that keeps
/// no transitions keeps them in its states only where a claim reads one.
pub fn counted_on_transitions(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, tail)| ["writes", "lost_updates", "rejected_writes"].contains(&tail))
}
