//! A composed scenario as a model: its parameters, columns, timeline kinds and
//! distributions (a [`ModelDef`]), and each point's prepared run.

use std::sync::Arc;

use coordsim_model::explore::AskPaths;
use coordsim_model::{
    ColumnSpec, ComposeError, ComposeInput, Cost, DefaultChart, Distribution, Exploration,
    ExploreLimits, Kind, LevelKind, MarkKind, MarkShape, ModelDef, ModelError, ParamError,
    ParamSpec, PlayError, PlayGraph, PlayLimits, PreparedRun, RunContext, RunOutput, Schedule,
    SpanKind, TimelineStyle, Value,
};

use crate::point::Point;
use crate::run;
use crate::run::lanes;
use crate::syntax::metrics::{ActorRow, Metric, MetricColumns, name};
use crate::syntax::spec::{self, ResourceKind, Spec};
use crate::syntax::{read, sections};

/// One line on what a scenario is.
pub(crate) const SUMMARY: &str = "a coordination scenario composed in the config: registers, locks, servers, links, message queues, key stores and actors that step through them";

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
        SpanKind {
            name: "holding_waiting",
            label: "waiting while holding a lock",
            label_tr: "kilit tutarken bekliyor",
            rgb: (200, 0, 0),
            thin: true,
        },
        SpanKind {
            name: "paused",
            label: "paused (stop-the-world)",
            label_tr: "duraklatıldı",
            rgb: (120, 0, 120),
            thin: false,
        },
        SpanKind {
            name: "backoff",
            label: "backing off before a retry",
            label_tr: "yeniden denemeden önce bekliyor",
            rgb: (204, 121, 167),
            thin: true,
        },
        SpanKind {
            name: "down",
            label: "crashed, restarting",
            label_tr: "çöktü, yeniden başlıyor",
            rgb: (60, 60, 60),
            thin: true,
        },
        // A resource's lane: a server's down window, light behind its queue's line.
        SpanKind {
            name: lanes::SERVER_DOWN,
            label: "server down",
            label_tr: "sunucu kapalı",
            rgb: (200, 200, 200),
            thin: false,
        },
    ],
    levels: &[
        LevelKind {
            name: lanes::QUEUE_LENGTH,
            label: "requests waiting at the server",
            label_tr: "sunucuda bekleyen istek",
            rgb: (0, 90, 160),
            categorical: false,
        },
        LevelKind {
            name: lanes::HOLDER,
            label: "lock held by",
            label_tr: "kilidi tutan",
            rgb: (0, 0, 0),
            categorical: true,
        },
        LevelKind {
            name: lanes::QUEUE_DEPTH,
            label: "messages waiting in the queue",
            label_tr: "kuyrukta bekleyen ileti",
            rgb: (0, 120, 90),
            categorical: false,
        },
        LevelKind {
            name: lanes::REGISTER_VALUE,
            label: "register value",
            label_tr: "yazmacın değeri",
            rgb: (140, 50, 140),
            categorical: false,
        },
        LevelKind {
            name: lanes::KEYS_HELD,
            label: "keys held",
            label_tr: "tutulan anahtar",
            rgb: (90, 90, 90),
            categorical: false,
        },
        LevelKind {
            name: lanes::IN_FLIGHT,
            label: "repetitions under way (more than 8 at once)",
            label_tr: "süren tekrar (aynı anda 8'den çok)",
            rgb: (0, 0, 0),
            categorical: false,
        },
    ],
    // Marks sit on the spans: each in a colour that stands out on those it falls on.
    marks: &[
        MarkKind {
            name: "attempt",
            label: "failed attempt",
            label_tr: "başarısız deneme",
            rgb: (0, 0, 0),
            shape: MarkShape::Tick,
        },
        MarkKind {
            name: "done",
            label: "done",
            label_tr: "bitti",
            rgb: (0, 114, 178),
            shape: MarkShape::Triangle,
        },
        MarkKind {
            name: "gave_up",
            label: "gave up",
            label_tr: "vazgeçti",
            rgb: (190, 0, 110),
            shape: MarkShape::Cross,
        },
        MarkKind {
            name: "crashed",
            label: "crashed",
            label_tr: "çöktü",
            rgb: (120, 0, 0),
            shape: MarkShape::Cross,
        },
        MarkKind {
            name: "rejected",
            label: "write rejected",
            label_tr: "yazma reddedildi",
            rgb: (240, 0, 200),
            shape: MarkShape::Cross,
        },
        MarkKind {
            name: "timeout",
            label: "timed out",
            label_tr: "zaman aşımı",
            rgb: (0, 0, 0),
            shape: MarkShape::Cross,
        },
        MarkKind {
            name: "retry",
            label: "retry",
            label_tr: "yeniden deneme",
            rgb: (0, 50, 130),
            shape: MarkShape::Diamond,
        },
        MarkKind {
            name: "lost",
            label: "crossing lost",
            label_tr: "mesaj kayboldu",
            rgb: (120, 80, 0),
            shape: MarkShape::Cross,
        },
        MarkKind {
            name: "refused",
            label: "request refused (server down)",
            label_tr: "istek reddedildi (sunucu kapalı)",
            rgb: (0, 0, 200),
            shape: MarkShape::Cross,
        },
        MarkKind {
            name: "lease_lost",
            label: "lease lost (renewal too late)",
            label_tr: "kira kaybedildi",
            rgb: (120, 0, 0),
            shape: MarkShape::Diamond,
        },
        MarkKind {
            name: "restarted",
            label: "restarted",
            label_tr: "yeniden başladı",
            rgb: (0, 0, 0),
            shape: MarkShape::Triangle,
        },
        MarkKind {
            name: "taken",
            label: "message taken",
            label_tr: "ileti alındı",
            rgb: (0, 0, 110),
            shape: MarkShape::Diamond,
        },
        // A dark green: an ack, yet not lost on the `working` span it often ends.
        MarkKind {
            name: "acked",
            label: "message acknowledged",
            label_tr: "ileti onaylandı",
            rgb: (0, 80, 40),
            shape: MarkShape::Tick,
        },
        MarkKind {
            name: "expired",
            label: "ack too late (the message came back)",
            label_tr: "onay geç kaldı (ileti geri döndü)",
            rgb: (170, 0, 60),
            shape: MarkShape::Tick,
        },
        MarkKind {
            name: "full",
            label: "put refused (queue full)",
            label_tr: "ileti reddedildi (kuyruk dolu)",
            rgb: (100, 100, 0),
            shape: MarkShape::Cross,
        },
        MarkKind {
            name: "cancelled",
            label: "branch cancelled at a join",
            label_tr: "birleşmede iptal edilen dal",
            rgb: (120, 60, 0),
            shape: MarkShape::Tick,
        },
    ],
};

/// A composed scenario: its spec and the columns its resources and groups name.
pub(crate) struct ScenarioDef {
    spec: Arc<Spec>,
    params: Vec<ParamSpec>,
    defaults: Vec<Value>,
    metrics: Vec<ColumnSpec>,
    fill: Arc<Vec<Metric>>,
    distributions: Vec<Distribution>,
    /// The `[[watch]]`es' metric names.
    watches: Vec<&'static str>,
}

impl ScenarioDef {
    /// The scenario the config's sections and parameters describe.
    pub(crate) fn new(input: &ComposeInput) -> Result<ScenarioDef, ComposeError> {
        let params = read::read_params(&input.params)?;
        let mut spec = sections::read(&input.sections, params)?;
        let mut columns = MetricColumns::of(&spec)?;
        columns.watches(&spec)?;
        let MetricColumns {
            specs: metrics,
            fill,
            resolved,
        } = columns;
        spec.watched = resolved;
        let mut params = Vec::new();
        let mut defaults = Vec::new();
        for param in &spec.params {
            let meaning = if param.name == spec::TIE_ORDER {
                TIE_ORDER_MEANING.0.to_string()
            } else {
                format!("a parameter of this scenario ({})", param.kind.short())
            };
            params.push(ParamSpec {
                key: name(&param.name)?,
                kind: param.kind,
                meaning: name(&meaning)?,
                // Unused: `ModelDef::defaults` gives the config's values.
                default: || Value::Float(0.0),
            });
            defaults.push(param.default.clone());
        }
        let mut distributions = Vec::new();
        for resource in &spec.resources {
            if !matches!(resource.kind, ResourceKind::Server { .. }) {
                continue;
            }
            let server_name = &resource.name;
            distributions.push(Distribution {
                name: name(&format!("{server_name}.wait_ms"))?,
                meaning: name(&format!("each request's wait in `{server_name}`'s queue"))?,
            });
        }
        // After the servers', in group order: `Sim::output` gives them in this order.
        for group in &spec.groups {
            let group_name = &group.name;
            distributions.push(Distribution {
                name: name(&format!("{group_name}.response_ms"))?,
                meaning: name(&format!(
                    "each completed repetition's time of `{group_name}`, start to end"
                ))?,
            });
        }
        let watches = (spec.watches.iter())
            .map(|w| name(&w.name))
            .collect::<Result<_, _>>()?;
        Ok(ScenarioDef {
            watches,
            spec: Arc::new(spec),
            params,
            defaults,
            metrics,
            fill: Arc::new(fill),
            distributions,
        })
    }
}

/// What the tie rule `tie_order` means, in English and in Turkish.
const TIE_ORDER_MEANING: (&str, &str) = (
    "how events at one instant are ordered: `fifo` (as scheduled), `program_order`, `reads_first`, `writes_first` (a tie-rule parameter; see docs/scenarios.md)",
    "bir andaki olayların sırası: `fifo` (planlandıkları sırayla), `program_order`, `reads_first`, `writes_first` (bir eşitlik kuralı parametresi; bkz. docs/scenarios.md)",
);

impl ModelDef for ScenarioDef {
    fn name(&self) -> &'static str {
        "scenario"
    }
    fn summary(&self) -> &'static str {
        SUMMARY
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
    /// Every resource but a link (whose crossings are drawn on the actors' lanes), in the
    /// order a run hands their lanes over: servers, locks, queues, registers, key stores.
    fn resources(&self) -> Vec<String> {
        let of = |keep: fn(&ResourceKind) -> bool| {
            (self.spec.resources.iter())
                .filter(move |r| keep(&r.kind))
                .map(|r| r.name.clone())
        };
        of(|k| matches!(k, ResourceKind::Server { .. }))
            .chain(of(|k| matches!(k, ResourceKind::Lock { .. })))
            .chain(of(|k| matches!(k, ResourceKind::Queue { .. })))
            .chain(of(|k| matches!(k, ResourceKind::Register { .. })))
            .chain(of(|k| matches!(k, ResourceKind::Keys { .. })))
            .take(coordsim_model::MAX_RESOURCE_LANES)
            .collect()
    }
    fn tie_rules(&self) -> &'static [&'static str] {
        &[spec::TIE_ORDER]
    }
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        if language != "tr" {
            return None;
        }
        if key == spec::TIE_ORDER {
            return Some(TIE_ORDER_MEANING.1);
        }
        // A scenario's parameters are typed by their values (docs/scenarios.md): these kinds.
        let param = self.params.iter().find(|p| p.key == key)?;
        Some(match param.kind {
            Kind::Count => "bu senaryonun bir parametresi (tam sayı)",
            Kind::Float => "bu senaryonun bir parametresi (sayı)",
            Kind::Bool => "bu senaryonun bir parametresi (doğru/yanlış)",
            _ => "bu senaryonun bir parametresi (metin)",
        })
    }
    fn distributions(&self) -> &[Distribution] {
        &self.distributions
    }
    fn watches(&self) -> &[&'static str] {
        &self.watches
    }
    fn prepare(&self, values: &[Value]) -> Result<Box<dyn PreparedRun>, ParamError> {
        let point = Point::new(&self.spec, &self.fill, values)?;
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
    fn run(&self, context: &RunContext) -> Result<RunOutput, ModelError> {
        run::run(&self.point, &self.fill, &self.distributions, context)
    }
    fn cost(&self) -> Cost {
        self.point.cost()
    }
    fn explore(
        &self,
        context: &RunContext,
        limits: &ExploreLimits,
    ) -> Result<Exploration, ModelError> {
        crate::explore::explore(&self.point, &self.fill, context, limits, None)
    }
    fn explore_showing(
        &self,
        context: &RunContext,
        limits: &ExploreLimits,
        asks: &AskPaths<'_>,
    ) -> Result<Exploration, ModelError> {
        crate::explore::explore(&self.point, &self.fill, context, limits, Some(asks))
    }
    fn play(&self, context: &RunContext, limits: &PlayLimits) -> Result<PlayGraph, PlayError> {
        crate::explore::play(&self.point, &self.fill, context, limits)
    }
    fn replay(&self, context: &RunContext, schedule: &Schedule) -> Result<RunOutput, ModelError> {
        crate::explore::replay(
            &self.point,
            &self.fill,
            &self.distributions,
            context,
            schedule,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coordsim_model::{Columns, ConfigParam};

    /// Every mark drawn on the lane stands out on every span: each colour at least 60 away
    /// (Euclidean, in 0–255 RGB) from every span's, so an ack is not drawn in `working`'s
    /// green nor a crash in the red of waiting while holding a lock. Triangles sit above
    /// the lane, on no span.
    #[test]
    fn marks_on_the_lane_stand_out_on_every_span() {
        let on_lane = TIMELINE
            .marks
            .iter()
            .filter(|m| m.shape != MarkShape::Triangle);
        assert!(
            on_lane.clone().count() >= 12,
            "every kind on the lane is checked"
        );
        for mark in on_lane {
            let name = mark.name;
            for span in TIMELINE.spans {
                let squared_gap = |a: u8, b: u8| (f64::from(a) - f64::from(b)).powi(2);
                let distance = (squared_gap(mark.rgb.0, span.rgb.0)
                    + squared_gap(mark.rgb.1, span.rgb.1)
                    + squared_gap(mark.rgb.2, span.rgb.2))
                .sqrt();
                assert!(distance >= 60.0, "{name} on {}: {distance}", span.name);
            }
        }
    }

    /// Every fixed column of a scenario is one no parameter may take (the list in `read`
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
            with.params = vec![ConfigParam::new(name, vec![Value::Int(1)])];
            let Err(error) = ScenarioDef::new(&with) else {
                panic!("a parameter called `{name}` was accepted");
            };
            assert_eq!(
                error.path_text(),
                format!("params.{name}"),
                "{}",
                error.message
            );
        }
    }
}
