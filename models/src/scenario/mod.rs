//! `scenario`: a model a config composes from shared registers, locks, single-writer servers
//! and links, and groups of actors that step through them (`docs/scenarios.md`).
//!
//! The sections are read once per config (`spec`); each sweep point's numbers are computed
//! once (`Point`); a run is a plain discrete-event simulation on `sim-core` whose handler
//! matches on the step an actor stands at (`sim`). Nothing is interpreted per event beyond
//! that match and, where a config writes one, the value expression of a write.

mod sim;
mod spec;

use std::sync::Arc;

use coordsim_model::{
    ColumnSpec, ColumnType, ComposeError, ComposeInput, Composer, Cost, DefaultChart, Distribution,
    ModelDef, ModelError, ParamError, ParamSpec, PathPart, PreparedRun, RunContext, RunOutput,
    TimelineStyle, Value, intern,
};
use coordsim_model::{MarkKind, MarkShape, SpanKind};
use sim_core::{Nanos, ms_to_ns};

use spec::{Choice, Crash, Num, Pace, ResourceKind, Spec, Step, Var};

/// Most actors of one run, over all groups (each has its own event class for its starts).
pub const MAX_ACTORS: u64 = 1_000_000;
/// Most actors a timeline draws (one lane each): every model's lane cap.
pub const MAX_LANES: usize = coordsim_model::MAX_LANES;
/// Most instances of one server.
pub const MAX_INSTANCES: u64 = 100_000;
/// A random stream's size, for the memory estimate.
const STREAM_BYTES: u64 = std::mem::size_of::<sim_core::Stream>() as u64;
/// Most repetitions of one run, over all actors.
pub const MAX_REPETITIONS: u64 = 100_000_000;

/// The composer configs name with `model = "scenario"`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scenario;

impl Composer for Scenario {
    fn name(&self) -> &'static str {
        "scenario"
    }
    fn summary(&self) -> &'static str {
        "a coordination scenario composed in the config: registers, locks, servers, links and actors that step through them"
    }
    fn sections(&self) -> &'static [&'static str] {
        &["resource", "actor"]
    }
    fn guide(&self) -> &'static str {
        "docs/scenarios.md"
    }
    fn starter(&self) -> &'static str {
        STARTER
    }
    fn compose(&self, input: &ComposeInput) -> Result<Arc<dyn ModelDef>, ComposeError> {
        Ok(Arc::new(ScenarioDef::new(input)?))
    }
}

/// A scenario that runs as it is: 8 clients incrementing one counter with no guard.
const STARTER: &str = r#"# A scenario: 8 clients increment one shared counter by read → work → write, with no guard.
# See docs/scenarios.md for every resource, step and metric.
model = "scenario"
[params]
clients = 8

[[resource]]
name = "counter"
kind = "register"
read_ms = 20
write_ms = 64

[[actor]]
name = "client"
count = "clients"
start_ms = "3 * i"
repeat = 50
steps = [{ read = "counter" }, { delay_ms = 1 }, { write = "counter", value = "read + 1" }]
"#;

columns! {
    /// One actor's row.
    pub struct ActorRow {
        /// the actor's group
        group: String,
        /// when it started (its first repetition), ms
        start_ms: f64,
        /// when its last repetition ended (empty: it crashed, or never ended)
        end_ms: Option<f64>,
        /// `completed` (every repetition), `gave_up` (some repetition gave up), `crashed`
        outcome: String,
        /// repetitions it started
        repetitions: u64,
        /// repetitions it completed
        completed: u64,
        /// repetitions it gave up (a lock it waited for too long, or too many rejected writes)
        gave_up: u64,
        /// failed lock attempts (polls and lease tries that found the lock taken)
        failed_attempts: u64,
        /// total time waiting for locks, from each acquire step to its acquisition (empty: it never acquired one)
        lock_wait_ms: Option<f64>,
        /// total time queued at servers before service (empty: it never requested)
        server_wait_ms: Option<f64>,
        /// its writes a register rejected (a compare-and-set conflict, a fencing token)
        rejected_writes: u64,
        /// repetitions restarted after a rejected compare-and-set write
        retries: u64,
    }
}

const TIMELINE: TimelineStyle = TimelineStyle {
    spans: &[
        SpanKind {
            name: "waiting",
            label: "waiting",
            label_tr: "bekliyor",
            rgb: (230, 159, 0),
            thin: true,
        },
        SpanKind {
            name: "served",
            label: "served",
            label_tr: "hizmette",
            rgb: (0, 114, 178),
            thin: false,
        },
        SpanKind {
            name: "reading",
            label: "reading",
            label_tr: "okuyor",
            rgb: (86, 180, 233),
            thin: false,
        },
        SpanKind {
            name: "writing",
            label: "writing",
            label_tr: "yazıyor",
            rgb: (213, 94, 0),
            thin: false,
        },
        SpanKind {
            name: "working",
            label: "working",
            label_tr: "çalışıyor",
            rgb: (0, 158, 115),
            thin: false,
        },
        SpanKind {
            name: "crossing",
            label: "on the link",
            label_tr: "ağda",
            rgb: (153, 153, 153),
            thin: true,
        },
    ],
    marks: &[
        MarkKind {
            name: "attempt",
            label: "failed attempt",
            label_tr: "başarısız deneme",
            rgb: (90, 90, 90),
            shape: MarkShape::Tick,
        },
        MarkKind {
            name: "done",
            label: "repetition done",
            label_tr: "tekrar bitti",
            rgb: (0, 114, 178),
            shape: MarkShape::Triangle,
        },
        MarkKind {
            name: "gave_up",
            label: "gave up",
            label_tr: "vazgeçti",
            rgb: (204, 121, 167),
            shape: MarkShape::Cross,
        },
        MarkKind {
            name: "crashed",
            label: "crashed",
            label_tr: "çöktü",
            rgb: (200, 0, 0),
            shape: MarkShape::Cross,
        },
        MarkKind {
            name: "rejected",
            label: "write rejected",
            label_tr: "yazma reddedildi",
            rgb: (120, 0, 120),
            shape: MarkShape::Cross,
        },
    ],
};

/// What fills one metric column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Metric {
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
    ServerRequests(u16),
    ServerWait(u16, WaitStat),
    ServerMaxQueue(u16),
    ServerBusy(u16),
    ServerMakespan(u16),
    LinkCrossings(u16),
    GroupActors(u16),
    GroupStarted(u16),
    GroupCompleted(u16),
    GroupGaveUp(u16),
    GroupCrashed(u16),
    GroupRetries(u16),
    GroupResponse(u16, WaitStat),
    Completed,
    MeanResponse,
    MaxResponse,
    Makespan,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WaitStat {
    Mean,
    P50,
    P95,
    P99,
    Max,
}

/// A composed scenario: its spec and the columns its resources and groups name.
struct ScenarioDef {
    spec: Arc<Spec>,
    params: Vec<ParamSpec>,
    defaults: Vec<Value>,
    metrics: Vec<ColumnSpec>,
    fill: Arc<Vec<Metric>>,
    distributions: Vec<Distribution>,
}

fn name(text: &str) -> Result<&'static str, ComposeError> {
    intern(text).ok_or_else(|| {
        ComposeError::new(
            vec![PathPart::Key("model".into())],
            "too many distinct names in one process",
        )
    })
}

impl ScenarioDef {
    fn new(input: &ComposeInput) -> Result<ScenarioDef, ComposeError> {
        let params = spec::read_params(&input.params)?;
        let spec = spec::read(&input.sections, params)?;
        let mut metrics = Vec::new();
        let mut fill = Vec::new();
        let mut col =
            |n: String, meaning: String, ty: ColumnType, m: Metric| -> Result<(), ComposeError> {
                metrics.push(ColumnSpec {
                    name: name(&n)?,
                    meaning: name(&meaning)?,
                    ty,
                });
                fill.push(m);
                Ok(())
            };
        use ColumnType::{Count, Flag, Float};
        let (mut reg, mut lock, mut server, mut link) = (0u16, 0u16, 0u16, 0u16);
        for r in &spec.resources {
            let n = &r.name;
            match r.kind {
                ResourceKind::Register { .. } => {
                    col(
                        format!("{n}.value"),
                        format!("the value `{n}` holds at the end"),
                        Float,
                        Metric::RegValue(reg),
                    )?;
                    col(
                        format!("{n}.writes"),
                        format!("writes `{n}` applied"),
                        Count,
                        Metric::RegWrites(reg),
                    )?;
                    col(
                        format!("{n}.lost_updates"),
                        format!(
                            "applied writes of `{n}` that landed on a value other than the one their actor read (each overwrote an update)"
                        ),
                        Count,
                        Metric::RegLost(reg),
                    )?;
                    col(
                        format!("{n}.rejected_writes"),
                        format!(
                            "writes `{n}` rejected (compare-and-set conflicts, stale fencing tokens)"
                        ),
                        Count,
                        Metric::RegRejected(reg),
                    )?;
                    reg += 1;
                }
                ResourceKind::Lock { .. } => {
                    let l = lock;
                    col(
                        format!("{n}.acquisitions"),
                        format!("times `{n}` was taken"),
                        Count,
                        Metric::LockAcquisitions(l),
                    )?;
                    col(
                        format!("{n}.failed_attempts"),
                        format!("attempts on `{n}` that found it taken (poll rounds)"),
                        Count,
                        Metric::LockFailed(l),
                    )?;
                    col(
                        format!("{n}.gave_up"),
                        format!("waits for `{n}` given up"),
                        Count,
                        Metric::LockGaveUp(l),
                    )?;
                    col(
                        format!("{n}.max_holders"),
                        format!(
                            "most actors holding `{n}` at once (a crashed holder counts; the stale record does not); 1 is mutual exclusion"
                        ),
                        Count,
                        Metric::LockMaxHolders(l),
                    )?;
                    col(
                        format!("{n}.left"),
                        format!("1 when a record of `{n}` exists at the end"),
                        Flag,
                        Metric::LockLeft(l),
                    )?;
                    col(
                        format!("{n}.mean_wait_ms"),
                        format!(
                            "mean wait from an acquire step to taking `{n}` (empty: never taken)"
                        ),
                        Float,
                        Metric::LockMeanWait(l),
                    )?;
                    col(
                        format!("{n}.p95_wait_ms"),
                        format!("95th-percentile wait for `{n}`"),
                        Float,
                        Metric::LockP95Wait(l),
                    )?;
                    col(
                        format!("{n}.max_wait_ms"),
                        format!("longest wait for `{n}`"),
                        Float,
                        Metric::LockMaxWait(l),
                    )?;
                    col(
                        format!("{n}.total_wait_ms"),
                        format!("all waits for `{n}` added up"),
                        Float,
                        Metric::LockTotalWait(l),
                    )?;
                    col(
                        format!("{n}.held_ms"),
                        format!(
                            "time `{n}` was held, over its released acquisitions (what the changes locked, for how long)"
                        ),
                        Float,
                        Metric::LockHeld(l),
                    )?;
                    lock += 1;
                }
                ResourceKind::Server { .. } => {
                    let s = server;
                    col(
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
                        (WaitStat::Max, "max", "longest"),
                    ] {
                        col(
                            format!("{n}.{key}_wait_ms"),
                            format!("{what} wait in `{n}`'s queue before service"),
                            Float,
                            Metric::ServerWait(s, stat),
                        )?;
                    }
                    col(
                        format!("{n}.max_queue_len"),
                        format!(
                            "most requests waiting at one instance of `{n}` at once (after each instant; not the one in service)"
                        ),
                        Count,
                        Metric::ServerMaxQueue(s),
                    )?;
                    col(
                        format!("{n}.busy_fraction"),
                        format!(
                            "the busiest instance of `{n}`: busy time / (last departure − first arrival)"
                        ),
                        Float,
                        Metric::ServerBusy(s),
                    )?;
                    col(
                        format!("{n}.makespan_ms"),
                        format!("last departure − first arrival at `{n}`"),
                        Float,
                        Metric::ServerMakespan(s),
                    )?;
                    server += 1;
                }
                ResourceKind::Link { .. } => {
                    col(
                        format!("{n}.crossings"),
                        format!("crossings of `{n}` (each half its round trip)"),
                        Count,
                        Metric::LinkCrossings(link),
                    )?;
                    link += 1;
                }
            }
        }
        for (g, group) in spec.groups.iter().enumerate() {
            let (n, g) = (&group.name, g as u16);
            col(
                format!("{n}.actors"),
                format!("actors in `{n}`"),
                Count,
                Metric::GroupActors(g),
            )?;
            col(
                format!("{n}.started"),
                format!("repetitions `{n}` started"),
                Count,
                Metric::GroupStarted(g),
            )?;
            col(
                format!("{n}.completed"),
                format!("repetitions `{n}` completed"),
                Count,
                Metric::GroupCompleted(g),
            )?;
            col(
                format!("{n}.gave_up"),
                format!("repetitions `{n}` gave up"),
                Count,
                Metric::GroupGaveUp(g),
            )?;
            col(
                format!("{n}.crashed"),
                format!("actors of `{n}` that crashed"),
                Count,
                Metric::GroupCrashed(g),
            )?;
            col(
                format!("{n}.retries"),
                format!("repetitions of `{n}` restarted after a rejected compare-and-set"),
                Count,
                Metric::GroupRetries(g),
            )?;
            for (stat, key, what) in [
                (WaitStat::Mean, "mean", "mean"),
                (WaitStat::P95, "p95", "95th-percentile"),
                (WaitStat::Max, "max", "longest"),
            ] {
                col(
                    format!("{n}.{key}_response_ms"),
                    format!("{what} time of a completed repetition of `{n}`, start to end"),
                    Float,
                    Metric::GroupResponse(g, stat),
                )?;
            }
        }
        col(
            "completed".into(),
            "repetitions completed, all groups".into(),
            Count,
            Metric::Completed,
        )?;
        col(
            "mean_response_ms".into(),
            "mean time of a completed repetition, all groups".into(),
            Float,
            Metric::MeanResponse,
        )?;
        col(
            "max_response_ms".into(),
            "longest completed repetition, all groups".into(),
            Float,
            Metric::MaxResponse,
        )?;
        col(
            "makespan_ms".into(),
            "the last repetition's end (completed or given up) − the earliest start".into(),
            Float,
            Metric::Makespan,
        )?;
        let mut params = Vec::new();
        let mut defaults = Vec::new();
        for p in &spec.params {
            let meaning = if p.name == spec::TIE_ORDER {
                "how events at one instant are ordered: `fifo` (as scheduled), `program_order`, `reads_first`, `writes_first` (a tie-rule parameter; see docs/scenarios.md)".to_string()
            } else {
                format!("a parameter of this scenario ({})", p.kind.short())
            };
            params.push(ParamSpec {
                key: name(&p.name)?,
                kind: p.kind,
                meaning: name(&meaning)?,
                // Unused: `ModelDef::defaults` gives the config's values.
                default: || Value::Float(0.0),
            });
            defaults.push(p.default.clone());
        }
        let mut distributions = Vec::new();
        for r in &spec.resources {
            if !matches!(r.kind, ResourceKind::Server { .. }) {
                continue;
            }
            let n = &r.name;
            distributions.push(Distribution {
                name: name(&format!("{n}.wait_ms"))?,
                meaning: name(&format!("each request's wait in `{n}`'s queue"))?,
            });
        }
        Ok(ScenarioDef {
            spec: Arc::new(spec),
            params,
            defaults,
            metrics,
            fill: Arc::new(fill),
            distributions,
        })
    }
}

impl ModelDef for ScenarioDef {
    fn name(&self) -> &'static str {
        "scenario"
    }
    fn summary(&self) -> &'static str {
        Scenario.summary()
    }
    fn params(&self) -> &[ParamSpec] {
        &self.params
    }
    fn defaults(&self) -> Vec<Value> {
        self.defaults.clone()
    }
    fn metrics(&self) -> &[ColumnSpec] {
        &self.metrics
    }
    fn entity_columns(&self) -> &[ColumnSpec] {
        <ActorRow as coordsim_model::Columns>::SPECS
    }
    fn charts(&self) -> Vec<DefaultChart> {
        Vec::new()
    }
    fn timeline(&self) -> Option<TimelineStyle> {
        Some(TIMELINE)
    }
    fn tie_rules(&self) -> &'static [&'static str] {
        &[spec::TIE_ORDER]
    }
    fn distributions(&self) -> &[Distribution] {
        &self.distributions
    }
    fn prepare(&self, values: &[Value]) -> Result<Box<dyn PreparedRun>, ParamError> {
        let point = Point::new(&self.spec, values)?;
        Ok(Box::new(Prepared {
            point: Arc::new(point),
            fill: Arc::clone(&self.fill),
            distributions: self.distributions.iter().map(|d| d.name).collect(),
        }))
    }
}

struct Prepared {
    point: Arc<Point>,
    fill: Arc<Vec<Metric>>,
    distributions: Vec<&'static str>,
}

impl PreparedRun for Prepared {
    fn run(&self, ctx: &RunContext) -> Result<RunOutput, ModelError> {
        let done = sim::run(&self.point, ctx)?;
        Ok(done.output(&self.point, &self.fill, &self.distributions, ctx))
    }
    fn cost(&self) -> Cost {
        self.point.cost()
    }
}

/// How events at one instant are ordered (`tie_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tie {
    Fifo,
    ProgramOrder,
    ReadsFirst,
    WritesFirst,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LockMode {
    Poll,
    Queue,
    Lease,
}

/// A server instance: the same for every actor (reduced modulo the instances), or computed
/// from `i` when the step starts.
#[derive(Debug, Clone)]
pub(crate) enum Inst {
    Fixed(u32),
    Actor(Num),
}

/// A duration: the same for every actor, or computed from `i` when a step starts.
#[derive(Debug, Clone)]
pub(crate) enum Dur {
    Fixed(Nanos),
    Actor(Num),
}

#[derive(Debug, Clone)]
pub(crate) enum CrashRule {
    All,
    Names(Vec<String>),
    First(u64),
    Probability(f64),
}

#[derive(Debug, Clone)]
pub(crate) enum StepP {
    Read(u16),
    Write {
        reg: u16,
        value: Num,
        cas: bool,
        max_retries: u64,
    },
    Delay(Dur),
    Acquire {
        lock: u16,
        give_up: Option<Dur>,
    },
    Release(u16),
    Request {
        server: u16,
        instance: Inst,
    },
    Send(u16),
    Crash(CrashRule),
}

#[derive(Debug, Clone)]
pub(crate) enum PaceP {
    Closed,
    Every(Nanos),
    Spread(Nanos),
    /// Random gaps (Poisson: exponential; or uniform, log-normal, gamma by mean and cv).
    Random(sim_core::Dist),
}

#[derive(Debug, Clone)]
pub(crate) struct GroupP {
    pub name: String,
    pub count: u32,
    pub names: Option<Vec<String>>,
    pub start_ms: Num,
    pub repeat: u64,
    pub pace: PaceP,
    pub steps: Vec<StepP>,
}

impl GroupP {
    /// Actor `i`'s name: from `names`, the group's name when it is alone, else `group-i`.
    pub fn actor_name(&self, i: u32) -> String {
        match &self.names {
            Some(names) => names[i as usize].clone(),
            None => default_name(&self.name, u64::from(self.count), i),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct RegP {
    pub initial: f64,
    pub read_ns: Nanos,
    pub write_ns: Nanos,
    pub fence: Option<u16>,
}

#[derive(Debug, Clone)]
pub(crate) struct LockP {
    pub mode: LockMode,
    pub poll_ns: Nanos,
    pub lease_ns: Nanos,
    pub fencing: bool,
    pub stale: bool,
    pub unlock_ns: Vec<Nanos>,
}

#[derive(Debug, Clone)]
pub(crate) struct ServerP {
    pub name: String,
    pub service_ns: Nanos,
    /// The service distribution (`None`: fixed, `service_ns` each).
    pub dist: Option<sim_core::Dist>,
    pub instances: u32,
}

/// One sweep point's scenario: every number computed, every option chosen.
#[derive(Debug, Clone)]
pub(crate) struct Point {
    pub tie: Tie,
    /// Numeric parameter values (NaN for strings), for expressions computed in the run.
    pub params: Vec<f64>,
    pub regs: Vec<RegP>,
    pub locks: Vec<LockP>,
    pub servers: Vec<ServerP>,
    pub links: Vec<Nanos>,
    pub groups: Vec<GroupP>,
    pub actors: u32,
    /// The lock number of each resource that is a lock (by resource index).
    pub lock_names: Vec<String>,
}

fn path_key(path: &[&str]) -> String {
    path.join(".")
}

impl Point {
    fn new(spec: &Spec, values: &[Value]) -> Result<Point, ParamError> {
        let tie = match values.first() {
            Some(Value::Str(s)) if s == "fifo" => Tie::Fifo,
            Some(Value::Str(s)) if s == "program_order" => Tie::ProgramOrder,
            Some(Value::Str(s)) if s == "reads_first" => Tie::ReadsFirst,
            Some(Value::Str(s)) if s == "writes_first" => Tie::WritesFirst,
            other => {
                let got = match other {
                    Some(Value::Str(s)) => format!("\"{s}\""),
                    Some(v) => v.to_string(),
                    None => "nothing".into(),
                };
                return Err(ParamError::new(
                    spec::TIE_ORDER,
                    format!(
                        "expected one of \"fifo\", \"program_order\", \"reads_first\", \"writes_first\", got {got}"
                    ),
                ));
            }
        };
        let numbers: Vec<f64> = values
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NAN))
            .collect();
        let ev = Eval {
            spec,
            values,
            numbers: &numbers,
        };
        let mut regs = Vec::new();
        let mut locks = Vec::new();
        let mut servers = Vec::new();
        let mut links = Vec::new();
        let mut lock_names = Vec::new();
        for (ri, r) in spec.resources.iter().enumerate() {
            let n = r.name.as_str();
            let at_r = format!("resource[{ri}]");
            let at = at_r.as_str();
            match &r.kind {
                ResourceKind::Register {
                    initial,
                    read_ms,
                    write_ms,
                    fenced_by,
                } => regs.push(RegP {
                    initial: ev.number(initial, &[at, "initial"])?,
                    read_ns: ev.duration(read_ms, &[at, "read_ms"])?,
                    write_ns: ev.duration(write_ms, &[at, "write_ms"])?,
                    fence: *fenced_by,
                }),
                ResourceKind::Lock {
                    mode,
                    poll_ms,
                    lease_ms,
                    fencing,
                    stale_at_start,
                    unlock_at_ms,
                } => {
                    let mode = match ev.choice(mode, spec::LOCK_MODES, &[at, "mode"])? {
                        "poll" => LockMode::Poll,
                        "queue" => LockMode::Queue,
                        _ => LockMode::Lease,
                    };
                    let poll_ns = ev.duration(poll_ms, &[at, "poll_ms"])?;
                    if mode != LockMode::Queue && poll_ns == 0 {
                        return Err(ParamError::new(
                            &path_key(&[at, "poll_ms"]),
                            "a polled lock needs poll_ms > 0 (a retry at the same instant never ends)",
                        ));
                    }
                    let mut unlock_ns = Vec::new();
                    for u in unlock_at_ms {
                        unlock_ns.push(ev.duration(u, &[at, "unlock_at_ms"])?);
                    }
                    lock_names.push(n.to_string());
                    locks.push(LockP {
                        mode,
                        poll_ns,
                        lease_ns: ev.duration(lease_ms, &[at, "lease_ms"])?,
                        fencing: *fencing,
                        stale: *stale_at_start,
                        unlock_ns,
                    });
                }
                ResourceKind::Server {
                    service_ms,
                    service,
                    service_cv,
                    instances,
                } => {
                    let kind = ev.choice(service, spec::SERVICE_KINDS, &[at, "service"])?;
                    let ms = ev.number(service_ms, &[at, "service_ms"])?;
                    let service_ns = ev.duration(service_ms, &[at, "service_ms"])?;
                    let dist = ev.dist(
                        kind,
                        ms,
                        service_cv,
                        &[at, "service_ms"],
                        &[at, "service_cv"],
                    )?;
                    let instances =
                        ev.whole(instances, &[at, "instances"], 1, MAX_INSTANCES)? as u32;
                    servers.push(ServerP {
                        name: n.to_string(),
                        service_ns,
                        dist,
                        instances,
                    });
                }
                ResourceKind::Link { rtt_ms } => {
                    let rtt = ev.duration(rtt_ms, &[at, "rtt_ms"])?;
                    links.push(rtt / 2);
                }
            }
        }
        let mut groups = Vec::new();
        let mut actors: u64 = 0;
        let mut repetitions: u64 = 0;
        for (gi, g) in spec.groups.iter().enumerate() {
            let n = g.name.as_str();
            let at_g = format!("actor[{gi}]");
            let at = at_g.as_str();
            let count = ev.whole(&g.count, &[at, "count"], 0, MAX_ACTORS)?;
            let repeat = ev.whole(&g.repeat, &[at, "repeat"], 1, MAX_REPETITIONS)?;
            actors += count;
            repetitions = repetitions.saturating_add(count.saturating_mul(repeat));
            if actors > MAX_ACTORS {
                return Err(ParamError::new(
                    &path_key(&[at, "count"]),
                    format!(
                        "a scenario runs at most {MAX_ACTORS} actors in all (one actor may repeat many times: `repeat`)"
                    ),
                ));
            }
            if repetitions > MAX_REPETITIONS {
                return Err(ParamError::new(
                    &path_key(&[at, "repeat"]),
                    format!("a scenario runs at most {MAX_REPETITIONS} repetitions in all"),
                ));
            }
            let arrivals = ev.choice(&g.arrivals, spec::ARRIVALS, &[at, "arrivals"])?;
            let pace = match &g.pace {
                Pace::Closed => PaceP::Closed,
                Pace::Every(e) if arrivals != "schedule" => {
                    let ms = ev.number(e, &[at, "every_ms"])?;
                    let kind = if arrivals == "poisson" {
                        "exponential"
                    } else {
                        arrivals
                    };
                    match ev.dist(kind, ms, &g.every_cv, &[at, "every_ms"], &[at, "every_cv"])? {
                        Some(d) => PaceP::Random(d),
                        None => PaceP::Every(ev.duration(e, &[at, "every_ms"])?),
                    }
                }
                Pace::Every(e) => PaceP::Every(ev.duration(e, &[at, "every_ms"])?),
                Pace::Spread(s) => PaceP::Spread(ev.duration(s, &[at, "spread_ms"])?),
            };
            let mut steps = Vec::new();
            for (si, s) in g.steps.iter().enumerate() {
                let at_s = format!("actor[{gi}].steps[{si}]");
                let at = at_s.as_str();
                steps.push(match s {
                    Step::Read(r) => StepP::Read(*r),
                    Step::Write {
                        reg,
                        value,
                        cas,
                        max_retries,
                    } => StepP::Write {
                        reg: *reg,
                        value: ev.per_point(value, &[at, "value"])?,
                        cas: *cas,
                        max_retries: ev.whole(
                            max_retries,
                            &[at, "max_retries"],
                            1,
                            u32::MAX.into(),
                        )?,
                    },
                    Step::Delay(d) => StepP::Delay(ev.dur(d, &[at, "delay_ms"])?),
                    Step::Acquire {
                        lock,
                        give_up_after_ms,
                    } => {
                        let l = *lock as usize;
                        let lp = &locks[l];
                        // A stale record nobody removes, waited for with no ceiling: the run
                        // could only end at its limits. Said here, where it is written.
                        if give_up_after_ms.is_none()
                            && lp.stale
                            && lp.unlock_ns.is_empty()
                            && lp.mode != LockMode::Lease
                        {
                            return Err(ParamError::new(
                                &path_key(&[at, "acquire"]),
                                format!(
                                    "`{}` starts with a stale record that nothing removes (no unlock_at_ms, not a lease), and this acquire never gives up: it can never finish; add give_up_after_ms",
                                    lock_names[l]
                                ),
                            ));
                        }
                        StepP::Acquire {
                            lock: l as u16,
                            give_up: give_up_after_ms
                                .as_ref()
                                .map(|d| ev.dur(d, &[at, "give_up_after_ms"]))
                                .transpose()?,
                        }
                    }
                    Step::Release(lock) => StepP::Release(*lock),
                    Step::Request { server, instance } => {
                        let server = *server as usize;
                        // An instance the same for every actor is reduced once, here.
                        let instance = if instance.per_actor() {
                            Inst::Actor(ev.per_point(instance, &[at, "instance"])?)
                        } else {
                            let k = ev.whole(instance, &[at, "instance"], 0, u64::MAX >> 11)?;
                            Inst::Fixed((k % u64::from(servers[server].instances)) as u32)
                        };
                        StepP::Request {
                            server: server as u16,
                            instance,
                        }
                    }
                    Step::Send(link) => StepP::Send(*link),
                    Step::Crash(c) => StepP::Crash(match c {
                        Crash::All => CrashRule::All,
                        Crash::Names(names) => {
                            for who in names {
                                let known = match &g.names {
                                    Some(list) => list.contains(who),
                                    None => {
                                        is_default_name(n, count, who)
                                    }
                                };
                                if !known {
                                    return Err(ParamError::new(
                                        &path_key(&[at, "crash"]),
                                        format!("no actor of `{n}` is called `{who}`"),
                                    ));
                                }
                            }
                            CrashRule::Names(names.clone())
                        }
                        Crash::First(c) => {
                            CrashRule::First(ev.whole(c, &[at, "crash", "count"], 0, MAX_ACTORS)?)
                        }
                        Crash::Probability(p) => {
                            let p = ev.number(p, &[at, "crash", "probability"])?;
                            if !(0.0..=1.0).contains(&p) {
                                return Err(ParamError::new(
                                    &path_key(&[at, "crash", "probability"]),
                                    format!("a probability is in [0, 1], got {p}"),
                                ));
                            }
                            CrashRule::Probability(p)
                        }
                    }),
                });
            }
            // A per-actor list has one number for each actor.
            let mut lists: Vec<(&Num, String)> = vec![(&g.start_ms, format!("{at}.start_ms"))];
            for (si, step) in g.steps.iter().enumerate() {
                let here = |field: &str| format!("{at}.steps[{si}].{field}");
                match step {
                    Step::Write { value, .. } => lists.push((value, here("value"))),
                    Step::Delay(d) => lists.push((d, here("delay_ms"))),
                    Step::Acquire {
                        give_up_after_ms: Some(d),
                        ..
                    } => lists.push((d, here("give_up_after_ms"))),
                    Step::Request { instance, .. } => lists.push((instance, here("instance"))),
                    _ => {}
                }
            }
            for (num, key) in lists {
                if let Some(len) = num.each_len()
                    && len as u64 != count
                {
                    return Err(ParamError::new(
                        &key,
                        format!("a list needs one number per actor: {count} here, got {len}"),
                    ));
                }
            }
            if let Some(names) = &g.names
                && names.len() as u64 != count
            {
                return Err(ParamError::new(
                    &path_key(&[at, "names"]),
                    "one name per actor",
                ));
            }
            groups.push(GroupP {
                name: g.name.clone(),
                count: count as u32,
                names: g.names.clone(),
                start_ms: ev.per_point(&g.start_ms, &[at, "start_ms"])?,
                repeat,
                pace,
                steps,
            });
        }
        // Every actor's start, and any delay computed per actor, must be a duration: checked
        // now for a handful of actors would miss the rest, so the run checks each (a model
        // error naming the group), and here only the per-point numbers are checked.
        Ok(Point {
            tie,
            params: numbers,
            regs,
            locks,
            servers,
            links,
            groups,
            actors: actors as u32,
            lock_names,
        })
    }

    fn cost(&self) -> Cost {
        let mut events: u64 = 0;
        let mut samples: u64 = 0;
        // Jobs in flight at most: an open loop's repetitions may all be queued at once.
        let mut jobs: u64 = 0;
        let mut streams: u64 = 0;
        for g in &self.groups {
            let r = u64::from(g.count).saturating_mul(g.repeat);
            events = events.saturating_add(r.saturating_mul(2 * g.steps.len() as u64 + 1));
            let requests = g
                .steps
                .iter()
                .filter(|s| matches!(s, StepP::Request { .. }))
                .count() as u64;
            samples = samples.saturating_add(r.saturating_mul(1 + requests));
            jobs = jobs.saturating_add(if matches!(g.pace, PaceP::Closed) {
                u64::from(g.count)
            } else {
                r
            });
            let crashy = g
                .steps
                .iter()
                .any(|s| matches!(s, StepP::Crash(CrashRule::Probability(_))));
            let random = matches!(g.pace, PaceP::Random(_));
            streams += u64::from(g.count) * (u64::from(crashy) + u64::from(random));
        }
        events = events.saturating_add(self.locks.iter().map(|l| l.unlock_ns.len() as u64).sum());
        events = events.saturating_add(self.poll_rounds());
        let per_job = 128 + 8 * (self.regs.len() + self.locks.len()) as u64;
        let instances: u64 = self
            .servers
            .iter()
            .map(|s| {
                u64::from(s.instances) * (96 + if s.dist.is_some() { STREAM_BYTES } else { 0 })
            })
            .sum();
        Cost {
            events,
            memory_bytes: u64::from(self.actors)
                .saturating_mul(160)
                .saturating_add(streams.saturating_mul(STREAM_BYTES))
                .saturating_add(samples.saturating_mul(8))
                .saturating_add(jobs.saturating_mul(per_job))
                .saturating_add(instances),
            entity_rows: u64::from(self.actors),
            driven_by: "repeat",
        }
    }

    /// A per-actor number at actor `i` (a start, a delay, an instance).
    /// The most time one step of actor `i` takes by itself (a delay, a register access, a
    /// service at its mean), without waiting; 0 when it is known only during the run.
    fn step_ns(&self, step: &StepP, i: u32) -> u64 {
        match step {
            StepP::Delay(Dur::Fixed(ns)) => *ns,
            StepP::Delay(Dur::Actor(num)) => self.at_actor(num, i).and_then(ms_to_ns).unwrap_or(0),
            StepP::Read(r) => self.regs[*r as usize].read_ns,
            StepP::Write { reg, .. } => self.regs[*reg as usize].write_ns,
            StepP::Request { server, .. } => self.servers[*server as usize].service_ns,
            StepP::Send(link) => self.links[*link as usize],
            _ => 0,
        }
    }

    /// Failed attempts on polled locks, bounded before the run: a waiter tries every
    /// `poll_ms` until it holds the lock or gives up, and it waits at most as long as the
    /// lock can stay taken — every actor's steps one after another (delays, register
    /// accesses, services at their mean; actors past the first 64 of a group counted like
    /// the slowest of those) plus the last operator unlock of a stale record — or its
    /// give-up time when that is sooner.
    fn poll_rounds(&self) -> u64 {
        let polled = |lock: u16| {
            let l = &self.locks[lock as usize];
            (l.mode != LockMode::Queue).then_some(l.poll_ns.max(1))
        };
        let waits = self.groups.iter().any(|g| {
            g.steps
                .iter()
                .any(|s| matches!(s, StepP::Acquire { lock, .. } if polled(*lock).is_some()))
        });
        if !waits {
            return 0;
        }
        let mut busy: u64 = 0;
        for g in &self.groups {
            let sampled = g.count.min(64);
            let slowest = (0..sampled)
                .map(|i| {
                    g.steps
                        .iter()
                        .map(|s| self.step_ns(s, i))
                        .fold(0u64, u64::saturating_add)
                })
                .max()
                .unwrap_or(0);
            busy = busy.saturating_add(
                slowest
                    .saturating_mul(u64::from(g.count))
                    .saturating_mul(g.repeat),
            );
        }
        let unlocks = self
            .locks
            .iter()
            .filter_map(|l| l.unlock_ns.iter().max().copied())
            .max()
            .unwrap_or(0);
        let mut rounds: u64 = 0;
        for g in &self.groups {
            for s in &g.steps {
                let StepP::Acquire { lock, give_up } = s else {
                    continue;
                };
                let Some(poll_ns) = polled(*lock) else {
                    continue;
                };
                let ceiling = busy.saturating_add(unlocks);
                let wait = match give_up {
                    Some(Dur::Fixed(ns)) => ceiling.min(*ns),
                    _ => ceiling,
                };
                let per = 1 + wait / poll_ns;
                rounds = rounds.saturating_add(
                    per.saturating_mul(u64::from(g.count))
                        .saturating_mul(g.repeat),
                );
            }
        }
        rounds
    }

    pub fn at_actor(&self, num: &Num, i: u32) -> Option<f64> {
        eval_run(num, &self.params, i, 0, f64::NAN, &[])
    }
}

/// Actor `i`'s name when the config gives none: the group's name when it is alone, else
/// `group-i`.
fn default_name(group: &str, count: u64, i: u32) -> String {
    if count == 1 {
        group.to_string()
    } else {
        format!("{group}-{i}")
    }
}

/// Whether `who` is the default name of one of a group's `count` actors (read back, not
/// searched: a group may have a million).
fn is_default_name(group: &str, count: u64, who: &str) -> bool {
    if count == 1 {
        return who == group;
    }
    who.strip_prefix(group)
        .and_then(|rest| rest.strip_prefix('-'))
        .and_then(|digits| digits.parse::<u64>().ok().map(|i| (i, digits)))
        .is_some_and(|(i, digits)| i < count && i.to_string() == digits)
}

/// A number computed in a run: `get` gives `i`, `k`, `read` and the registers read.
pub(crate) fn eval_run(
    num: &Num,
    params: &[f64],
    i: u32,
    k: u64,
    read: f64,
    regs: &[f64],
) -> Option<f64> {
    match num {
        Num::Lit(x) => Some(*x),
        Num::By(..) => None,
        Num::Each(items) => items
            .get(i as usize)
            .and_then(|n| eval_run(n, params, i, k, read, regs)),
        Num::Expr(e, _) => e.eval(&|v| match v {
            Var::Param(p) => params.get(p as usize).copied(),
            Var::Index => Some(f64::from(i)),
            Var::Rep => Some(k as f64),
            Var::Read => Some(read),
            Var::Reg(r) => regs.get(r as usize).copied(),
        }),
    }
}

struct Eval<'a> {
    spec: &'a Spec,
    values: &'a [Value],
    numbers: &'a [f64],
}

impl Eval<'_> {
    fn number(&self, num: &Num, path: &[&str]) -> Result<f64, ParamError> {
        let key = path_key(path);
        let x = match num {
            Num::Lit(x) => *x,
            Num::Expr(e, text) => {
                if num.per_actor() {
                    return Err(ParamError::new(
                        &key,
                        format!(
                            "\"{text}\" is computed per actor; only a start, a delay, an instance or a give-up time may use `i`"
                        ),
                    ));
                }
                e.eval(&|v| match v {
                    Var::Param(p) => self.numbers.get(p as usize).copied(),
                    _ => None,
                })
                .unwrap_or(f64::NAN)
            }
            Num::Each(_) => {
                return Err(ParamError::new(
                    &key,
                    "a list gives one number per actor; only a start, a delay, an instance, a give-up time or a written value may be one",
                ));
            }
            Num::By(p, options) => {
                let Some(Value::Str(s)) = self.values.get(*p as usize) else {
                    return Err(ParamError::new(
                        &key,
                        "its `by` parameter has no string value here",
                    ));
                };
                match options.iter().find(|(o, _)| o == s) {
                    Some((_, x)) => *x,
                    None => {
                        let valid: Vec<&str> = options.iter().map(|(o, _)| o.as_str()).collect();
                        return Err(ParamError::new(
                            &key,
                            format!(
                                "`{}` = \"{s}\" has no number here; it gives: {}",
                                self.spec.params[*p as usize].name,
                                valid.join(", ")
                            ),
                        ));
                    }
                }
            }
        };
        if !x.is_finite() {
            return Err(ParamError::new(
                &key,
                format!("is not a finite number here ({x})"),
            ));
        }
        Ok(x)
    }

    fn duration(&self, num: &Num, path: &[&str]) -> Result<Nanos, ParamError> {
        let ms = self.number(num, path)?;
        ms_to_ns(ms).ok_or_else(|| ParamError::new(&path_key(path), sim_core::bad_duration(ms)))
    }

    /// A number the run computes: computed here once when it does not depend on the actor
    /// or the run (a `{ by = … }` table included, which only a point can resolve).
    fn per_point(&self, num: &Num, path: &[&str]) -> Result<Num, ParamError> {
        if let Num::Each(items) = num {
            return items
                .iter()
                .map(|n| self.per_point(n, path))
                .collect::<Result<_, _>>()
                .map(Num::Each);
        }
        if num.per_actor() {
            return Ok(num.clone());
        }
        self.number(num, path).map(Num::Lit)
    }

    /// A distribution of `kind` with mean `mean_ms` and the cv `cv` (used by all but
    /// `fixed` and `exponential`); `None` for `fixed`.
    fn dist(
        &self,
        kind: &str,
        mean_ms: f64,
        cv: &Num,
        mean_path: &[&str],
        cv_path: &[&str],
    ) -> Result<Option<sim_core::Dist>, ParamError> {
        use sim_core::DistKind;
        let kind = match kind {
            "fixed" => return Ok(None),
            "exponential" => DistKind::Exponential,
            "uniform" => DistKind::Uniform,
            "lognormal" => DistKind::LogNormal,
            _ => DistKind::Gamma,
        };
        if ms_to_ns(mean_ms).is_none_or(|ns| ns == 0) {
            return Err(ParamError::new(
                &path_key(mean_path),
                format!("a random duration needs a mean above 0 ms, got {mean_ms}"),
            ));
        }
        let cv = self.number(cv, cv_path)?;
        sim_core::Dist::new(kind, mean_ms, cv, &[])
            .map(Some)
            .map_err(|m| ParamError::new(&path_key(cv_path), m))
    }

    fn dur(&self, num: &Num, path: &[&str]) -> Result<Dur, ParamError> {
        if num.per_actor() {
            return self.per_point(num, path).map(Dur::Actor);
        }
        self.duration(num, path).map(Dur::Fixed)
    }

    fn whole(&self, num: &Num, path: &[&str], min: u64, max: u64) -> Result<u64, ParamError> {
        let x = self.number(num, path)?;
        if x.fract() != 0.0 || x < min as f64 || x > max as f64 {
            return Err(ParamError::new(
                &path_key(path),
                format!("must be a whole number from {min} to {max}, got {x}"),
            ));
        }
        Ok(x as u64)
    }

    fn choice(
        &self,
        c: &Choice,
        options: &[&'static str],
        path: &[&str],
    ) -> Result<&'static str, ParamError> {
        match c {
            Choice::Lit(o) => Ok(o),
            Choice::Param(p) => match self.values.get(*p as usize) {
                Some(Value::Str(s)) => {
                    options.iter().find(|o| **o == s).copied().ok_or_else(|| {
                        ParamError::new(
                            &path_key(path),
                            format!(
                                "`{}` = \"{s}\" is not an option here; valid: {}",
                                self.spec.params[*p as usize].name,
                                options.join(", ")
                            ),
                        )
                    })
                }
                _ => Err(ParamError::new(
                    &path_key(path),
                    "its parameter has no string value here",
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coordsim_model::Columns;

    #[test]
    fn default_names_read_back() {
        // A group of 12: `w-0` … `w-11`; alone: the group's own name.
        for i in 0..12 {
            assert!(is_default_name("w", 12, &default_name("w", 12, i)));
        }
        for other in ["w", "w-12", "w-01", "w-", "x-1", "w-+1"] {
            assert!(!is_default_name("w", 12, other), "{other}");
        }
        assert!(is_default_name("w", 1, "w") && !is_default_name("w", 1, "w-0"));
    }

    /// Every fixed column of a scenario is one no parameter may take (the list in `spec`
    /// kept in step with the columns it guards).
    #[test]
    fn parameters_cannot_take_a_column_every_scenario_writes() {
        let input = ComposeInput {
            sections: vec![(
                "actor".into(),
                Value::List(vec![Value::Table(vec![
                    ("name".into(), Value::Str("c".into())),
                    (
                        "steps".into(),
                        Value::List(vec![Value::Table(vec![("delay_ms".into(), Value::Int(1))])]),
                    ),
                ])]),
            )],
            params: Vec::new(),
        };
        let def = ScenarioDef::new(&input).expect("composes");
        let fixed = def
            .metrics
            .iter()
            .map(|c| c.name)
            .filter(|n| !n.contains('.'))
            .chain(ActorRow::SPECS.iter().map(|c| c.name))
            .chain(coordsim_model::RESERVED_COLUMNS.iter().copied());
        for name in fixed {
            let mut with = input.clone();
            with.params = vec![(name.to_string(), Value::Int(1))];
            let Err(e) = ScenarioDef::new(&with) else {
                panic!("a parameter called `{name}` was accepted");
            };
            assert_eq!(e.path_text(), format!("params.{name}"), "{}", e.message);
        }
    }
}
