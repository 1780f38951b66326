//! What a scenario's metric columns are and what fills each: every resource and group
//! names its own (`counter.lost_updates`, `client.completed`), then the overall ones; and the
//! entity row every actor has.

use coordsim_model::{ColumnSpec, ColumnType, ComposeError, PathPart, columns, intern};

use crate::syntax::spec::{Num, ResourceKind, Spec, Step};

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
}

impl MetricColumns {
    /// The columns of `spec`: per resource in order, per group, then the overall ones.
    pub(crate) fn of(spec: &Spec) -> Result<MetricColumns, ComposeError> {
        let mut columns = MetricColumns::default();
        let (mut reg, mut lock, mut server, mut link) = (0u16, 0u16, 0u16, 0u16);
        let (mut queue, mut keys) = (0u16, 0u16);
        for r in &spec.resources {
            let n = &r.name;
            match r.kind {
                ResourceKind::Register { .. } => {
                    columns.register(n, reg)?;
                    reg += 1;
                }
                ResourceKind::Lock { .. } => {
                    columns.lock(n, lock)?;
                    lock += 1;
                }
                ResourceKind::Server { .. } => {
                    columns.server(n, server)?;
                    let (abandoned, cancels) = left_behind(spec, server);
                    if abandoned || cancels {
                        columns.abandoned(n, server)?;
                    }
                    if cancels {
                        columns.cancelled(n, server)?;
                    }
                    if let ResourceKind::Server { down, .. } = &r.kind
                        && !down.is_empty()
                    {
                        columns.col(
                            format!("{n}.refused"),
                            format!("requests `{n}` refused while down (`when_down = \"fail\"`)"),
                            Count,
                            Metric::ServerRefused(server),
                        )?;
                    }
                    server += 1;
                }
                ResourceKind::Link { ref loss, .. } => {
                    columns.link(n, link, !matches!(loss, Num::Lit(0.0)))?;
                    link += 1;
                }
                ResourceKind::Queue {
                    ref capacity,
                    ref visibility_ms,
                    link: ref over,
                    ..
                } => {
                    let over = over.map(|k| {
                        let link = spec
                            .resources
                            .iter()
                            .filter(|r| matches!(r.kind, ResourceKind::Link { .. }))
                            .nth(k as usize);
                        match link.map(|r| &r.kind) {
                            Some(ResourceKind::Link {
                                loss, duplicate, ..
                            }) => (
                                !matches!(loss, Num::Lit(0.0)),
                                !matches!(duplicate, Num::Lit(0.0)),
                            ),
                            _ => (false, false),
                        }
                    });
                    columns.queue(
                        n,
                        queue,
                        !matches!(capacity, Num::Lit(0.0)),
                        visibility_ms.is_some(),
                        over.unwrap_or((false, false)),
                    )?;
                    columns.replies(spec, n, queue)?;
                    queue += 1;
                }
                ResourceKind::Keys { .. } => {
                    columns.keys(n, keys)?;
                    keys += 1;
                }
            }
        }
        for (g, group) in spec.groups.iter().enumerate() {
            columns.group(&group.name, g as u16)?;
            let n = &group.name;
            // Any wait with a ceiling: `give_up_after_ms` is a timeout that gives up, and
            // counts here as one whether or not another step has a `timeout_ms`.
            if group.any(|s| {
                s.timeout().is_some()
                    || matches!(
                        s,
                        Step::Acquire {
                            timeout: Some(_),
                            ..
                        }
                    )
            }) {
                columns.col(
                    format!("{n}.timeouts"),
                    format!(
                        "waits of `{n}` that timed out (a lock, a request, a crossing, a take; a `give_up_after_ms` give-up included)"
                    ),
                    Count,
                    Metric::GroupTimeouts(g as u16),
                )?;
            }
            if group.any(|s| {
                matches!(
                    s,
                    Step::Crash {
                        restart_after_ms: Some(_),
                        ..
                    }
                )
            }) {
                columns.col(
                    format!("{n}.restarts"),
                    format!("times actors of `{n}` crashed and restarted"),
                    Count,
                    Metric::GroupRestarts(g as u16),
                )?;
            }
        }
        columns.overall()?;
        Ok(columns)
    }

    fn col(
        &mut self,
        n: String,
        meaning: String,
        ty: ColumnType,
        m: Metric,
    ) -> Result<(), ComposeError> {
        self.specs.push(ColumnSpec {
            name: name(&n)?,
            meaning: name(&meaning)?,
            ty,
        });
        self.fill.push(m);
        Ok(())
    }

    /// Register `n`, the `r`-th.
    fn register(&mut self, n: &str, r: u16) -> Result<(), ComposeError> {
        self.col(
            format!("{n}.value"),
            format!("the value `{n}` holds at the end"),
            Float,
            Metric::RegValue(r),
        )?;
        self.col(
            format!("{n}.writes"),
            format!("writes `{n}` applied"),
            Count,
            Metric::RegWrites(r),
        )?;
        self.col(
            format!("{n}.lost_updates"),
            format!(
                "applied writes of `{n}` that landed on a value other than the one their actor read (each overwrote an update)"
            ),
            Count,
            Metric::RegLost(r),
        )?;
        self.col(
            format!("{n}.rejected_writes"),
            format!("writes `{n}` rejected (compare-and-set conflicts, stale fencing tokens)"),
            Count,
            Metric::RegRejected(r),
        )?;
        Ok(())
    }

    /// Lock `n`, the `l`-th.
    fn lock(&mut self, n: &str, l: u16) -> Result<(), ComposeError> {
        self.col(
            format!("{n}.acquisitions"),
            format!("times `{n}` was taken"),
            Count,
            Metric::LockAcquisitions(l),
        )?;
        self.col(
            format!("{n}.failed_attempts"),
            format!("attempts on `{n}` that found it taken (poll rounds)"),
            Count,
            Metric::LockFailed(l),
        )?;
        self.col(
            format!("{n}.gave_up"),
            format!("waits for `{n}` given up"),
            Count,
            Metric::LockGaveUp(l),
        )?;
        self.col(
            format!("{n}.max_holders"),
            format!(
                "most actors holding `{n}` at once (a crashed holder counts; the stale record does not); 1 is mutual exclusion"
            ),
            Count,
            Metric::LockMaxHolders(l),
        )?;
        self.col(
            format!("{n}.left"),
            format!("1 when a record of `{n}` exists at the end"),
            Flag,
            Metric::LockLeft(l),
        )?;
        self.col(
            format!("{n}.mean_wait_ms"),
            format!(
                "mean wait from an acquire step to taking `{n}` or giving up (empty: never waited for)"
            ),
            Float,
            Metric::LockMeanWait(l),
        )?;
        self.col(
            format!("{n}.p95_wait_ms"),
            format!("95th-percentile wait for `{n}`"),
            Float,
            Metric::LockP95Wait(l),
        )?;
        self.col(
            format!("{n}.max_wait_ms"),
            format!("longest wait for `{n}`"),
            Float,
            Metric::LockMaxWait(l),
        )?;
        self.col(
            format!("{n}.total_wait_ms"),
            format!("all waits for `{n}` added up, acquired or given up"),
            Float,
            Metric::LockTotalWait(l),
        )?;
        self.col(
            format!("{n}.gave_up_wait_ms"),
            format!("the waits for `{n}` that ended in giving up (or a timeout), added up"),
            Float,
            Metric::LockGaveUpWait(l),
        )?;
        self.col(
            format!("{n}.held_ms"),
            format!(
                "time `{n}` was held, every acquisition from its taking to its release (or to the run's end, when never released)"
            ),
            Float,
            Metric::LockHeld(l),
        )?;
        Ok(())
    }

    /// Server `n`, the `s`-th.
    fn server(&mut self, n: &str, s: u16) -> Result<(), ComposeError> {
        self.col(
            format!("{n}.requests"),
            format!("requests `{n}` served"),
            Count,
            Metric::ServerRequests(s),
        )?;
        for (stat, key, what) in [
            (WaitStat::Mean, "mean", "mean"),
            (WaitStat::P50, "p50", "median"),
            (WaitStat::P95, "p95", "95th-percentile"),
            (WaitStat::P99, "p99", "99th-percentile"),
            (WaitStat::P999, "p999", "99.9th-percentile"),
            (WaitStat::Max, "max", "longest"),
        ] {
            self.col(
                format!("{n}.{key}_wait_ms"),
                format!("{what} wait in `{n}`'s queue before service"),
                Float,
                Metric::ServerWait(s, stat),
            )?;
        }
        self.col(
            format!("{n}.max_queue_len"),
            format!(
                "most requests waiting at one instance of `{n}` at once (after each instant; not the one in service)"
            ),
            Count,
            Metric::ServerMaxQueue(s),
        )?;
        self.col(
            format!("{n}.busy_fraction"),
            format!(
                "the busiest instance of `{n}`: busy time / (last departure − first arrival) (0 when that is 0)"
            ),
            Float,
            Metric::ServerBusy(s),
        )?;
        self.col(
            format!("{n}.makespan_ms"),
            format!("last departure − first arrival at `{n}` (0: nothing arrived)"),
            Float,
            Metric::ServerMakespan(s),
        )?;
        Ok(())
    }

    /// Queue `n`'s replies, when a step calls on it.
    fn replies(&mut self, spec: &Spec, n: &str, queue: u16) -> Result<(), ComposeError> {
        let called = spec
            .groups
            .iter()
            .any(|g| g.any(|s| matches!(s, Step::Call { queue: x, .. } if *x == queue)));
        if called {
            self.col(
                format!("{n}.replies"),
                format!("replies to calls on `{n}` that reached a caller still waiting"),
                Count,
                Metric::QueueReplies(queue),
            )?;
            self.col(
                format!("{n}.late_replies"),
                format!("replies to calls on `{n}` too late: the caller had stopped waiting (a timeout, a cancel, a crash, an earlier reply to a copy) or the link lost the reply"),
                Count,
                Metric::QueueLateReplies(queue),
            )?;
        }
        Ok(())
    }

    /// Server `n`'s requests whose clients may leave.
    fn abandoned(&mut self, n: &str, s: u16) -> Result<(), ComposeError> {
        self.col(
            format!("{n}.timed_out"),
            format!("requests to `{n}` whose client stopped waiting (a timeout) before their service ended"),
            Count,
            Metric::ServerTimedOut(s),
        )?;
        self.col(
            format!("{n}.wasted_requests"),
            format!("services `{n}` finished for a client that had left"),
            Count,
            Metric::ServerWasted(s),
        )?;
        self.col(
            format!("{n}.wasted_ms"),
            format!("service time `{n}` spent on requests nobody waited for any more"),
            Float,
            Metric::ServerWastedMs(s),
        )?;
        Ok(())
    }

    /// Server `n`'s requests whose branches a join may cancel.
    fn cancelled(&mut self, n: &str, s: u16) -> Result<(), ComposeError> {
        self.col(
            format!("{n}.cancelled"),
            format!(
                "requests to `{n}` whose branch was cancelled at a join before their service ended"
            ),
            Count,
            Metric::ServerCancelled(s),
        )?;
        self.col(
            format!("{n}.withdrawn"),
            format!(
                "cancelled requests that left `{n}`'s queue unserved (`cancel = \"withdraw\"`)"
            ),
            Count,
            Metric::ServerWithdrawn(s),
        )?;
        Ok(())
    }

    /// Link `n`, the `k`-th (`lossy`: it may lose a crossing).
    fn link(&mut self, n: &str, k: u16, lossy: bool) -> Result<(), ComposeError> {
        self.col(
            format!("{n}.crossings"),
            format!("crossings of `{n}` (each half its round trip)"),
            Count,
            Metric::LinkCrossings(k),
        )?;
        if lossy {
            self.col(
                format!("{n}.lost"),
                format!("crossings `{n}` lost"),
                Count,
                Metric::LinkLost(k),
            )?;
        }
        Ok(())
    }

    /// Queue `n`, the `q`-th: with a capacity, a visibility timeout, a lossy or duplicating
    /// link, the columns those fill.
    fn queue(
        &mut self,
        n: &str,
        q: u16,
        capacity: bool,
        visibility: bool,
        (lossy, dup): (bool, bool),
    ) -> Result<(), ComposeError> {
        self.col(
            format!("{n}.put"),
            format!("messages put on `{n}` (a copy a link made not counted)"),
            Count,
            Metric::QueuePut(q),
        )?;
        self.col(
            format!("{n}.taken"),
            format!("takes from `{n}`: deliveries, each again of a message counted"),
            Count,
            Metric::QueueTaken(q),
        )?;
        self.col(
            format!("{n}.redelivered"),
            format!("takes from `{n}` of a message taken before"),
            Count,
            Metric::QueueRedelivered(q),
        )?;
        if visibility {
            self.col(
                format!("{n}.acked"),
                format!("messages of `{n}` acknowledged in time"),
                Count,
                Metric::QueueAcked(q),
            )?;
            self.col(
                format!("{n}.returned"),
                format!(
                    "times a message of `{n}` came back, not acknowledged in its visibility timeout"
                ),
                Count,
                Metric::QueueReturned(q),
            )?;
        }
        self.col(
            format!("{n}.left"),
            format!("messages still in `{n}` at the end (visible, or taken and not acknowledged)"),
            Count,
            Metric::QueueLeft(q),
        )?;
        self.col(
            format!("{n}.max_len"),
            format!(
                "most visible messages in `{n}` at once (a message handed at once to a waiting taker counts)"
            ),
            Count,
            Metric::QueueMaxLen(q),
        )?;
        if capacity {
            self.col(
                format!("{n}.refused"),
                format!("puts refused because `{n}` was full"),
                Count,
                Metric::QueueRefused(q),
            )?;
        }
        if lossy {
            self.col(
                format!("{n}.lost"),
                format!("messages for `{n}` lost on its link"),
                Count,
                Metric::QueueLost(q),
            )?;
        }
        if dup {
            self.col(
                format!("{n}.duplicated"),
                format!("messages for `{n}` its link delivered twice"),
                Count,
                Metric::QueueDuplicated(q),
            )?;
        }
        Ok(())
    }

    /// Key store `n`, the `k`-th.
    fn keys(&mut self, n: &str, k: u16) -> Result<(), ComposeError> {
        for (key, what, m) in [
            (
                "inserted",
                "inserts that added a key",
                Metric::KeysInserted(k),
            ),
            (
                "duplicates",
                "inserts that found the key there (a duplicate)",
                Metric::KeysDuplicates(k),
            ),
            ("removed", "keys removed", Metric::KeysRemoved(k)),
            (
                "updated",
                "sets (a key's number stored; one that adds the key is no insert)",
                Metric::KeysUpdated(k),
            ),
            ("size", "keys held at the end", Metric::KeysSize(k)),
        ] {
            self.col(format!("{n}.{key}"), format!("`{n}`: {what}"), Count, m)?;
        }
        self.col(
            format!("{n}.total"),
            format!("the numbers stored in `{n}` at the end, added up"),
            Float,
            Metric::KeysTotal(k),
        )
    }

    /// Group `n`, the `g`-th.
    fn group(&mut self, n: &str, g: u16) -> Result<(), ComposeError> {
        self.col(
            format!("{n}.actors"),
            format!("actors in `{n}`"),
            Count,
            Metric::GroupActors(g),
        )?;
        self.col(
            format!("{n}.started"),
            format!("repetitions `{n}` started"),
            Count,
            Metric::GroupStarted(g),
        )?;
        self.col(
            format!("{n}.completed"),
            format!("repetitions `{n}` completed"),
            Count,
            Metric::GroupCompleted(g),
        )?;
        self.col(
            format!("{n}.gave_up"),
            format!("repetitions `{n}` gave up"),
            Count,
            Metric::GroupGaveUp(g),
        )?;
        self.col(
            format!("{n}.crashed"),
            format!("crashes of actors of `{n}` (a crash followed by a restart counts too)"),
            Count,
            Metric::GroupCrashed(g),
        )?;
        self.col(
            format!("{n}.retries"),
            format!(
                "repetitions of `{n}` started again: after a rejected compare-and-set, or a timeout's retry"
            ),
            Count,
            Metric::GroupRetries(g),
        )?;
        for (stat, key, what) in [
            (WaitStat::Mean, "mean", "mean"),
            (WaitStat::P50, "p50", "median"),
            (WaitStat::P95, "p95", "95th-percentile"),
            (WaitStat::P99, "p99", "99th-percentile"),
            (WaitStat::P999, "p999", "99.9th-percentile"),
            (WaitStat::Max, "max", "longest"),
        ] {
            self.col(
                format!("{n}.{key}_response_ms"),
                format!("{what} time of a completed repetition of `{n}`, start to end"),
                Float,
                Metric::GroupResponse(g, stat),
            )?;
        }
        Ok(())
    }

    /// The columns over all groups.
    fn overall(&mut self) -> Result<(), ComposeError> {
        self.col(
            "completed".into(),
            "repetitions completed, all groups".into(),
            Count,
            Metric::Completed,
        )?;
        self.col(
            "mean_response_ms".into(),
            "mean time of a completed repetition, all groups".into(),
            Float,
            Metric::MeanResponse,
        )?;
        self.col(
            "max_response_ms".into(),
            "longest completed repetition, all groups".into(),
            Float,
            Metric::MaxResponse,
        )?;
        self.col(
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
    let asks =
        |s: &Step| matches!(s, Step::Request { server: pick, .. } if pick.all().contains(&server));
    let abandoned = spec.groups.iter().any(|g| {
        g.any(|s| {
            matches!(
                s,
                Step::Request {
                    timeout: Some(_),
                    ..
                }
            ) && asks(s)
        })
    });
    let cancels = spec.groups.iter().any(|g| {
        g.any(|s| match s {
            Step::Parallel { branches, .. } => branches.iter().flatten().any(|b| {
                let mut found = false;
                b.visit(&mut |s| found |= asks(s));
                found
            }),
            _ => false,
        })
    });
    (abandoned, cancels)
}
