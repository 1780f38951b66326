//! The lock queue's timeline: the kinds its lanes name, and how each is drawn.

use coordsim_model::{LevelKind, MarkKind, MarkShape, SpanKind, TimelineStyle};

// Timeline kinds: the lanes name them, TIMELINE styles them.
pub(super) const WAIT: &str = "wait";
pub(super) const HOLD: &str = "hold";
pub(super) const HOLD_STALE: &str = "hold_stale";
pub(super) const WORK: &str = "work";
pub(super) const CRASHED: &str = "crashed";
pub(super) const ATTEMPT: &str = "attempt";
pub(super) const WRITE: &str = "write";
pub(super) const FAILED: &str = "failed";
pub(super) const READ_EARLY: &str = "read_early";
/// The lock's own lane (a chart's `resources = ["lock"]`) and its level: who holds it.
pub(super) const LOCK_LANE: &str = "lock";
pub(super) const HOLDER: &str = "holder";

pub(super) const TIMELINE: TimelineStyle = TimelineStyle {
    spans: &[
        SpanKind {
            name: WAIT,
            label: "waiting for the lock",
            label_tr: "kilidi bekliyor",
            rgb: (200, 200, 200),
            thin: true,
        },
        SpanKind {
            name: HOLD,
            label: "holding the lock (read … write)",
            label_tr: "kilit elinde (okuma … yazma)",
            rgb: (0, 114, 178),
            thin: false,
        },
        SpanKind {
            name: HOLD_STALE,
            label: "holding the lock (no read: writes its early snapshot)",
            label_tr: "kilit elinde (okumadan: önceki okumasını yazar)",
            rgb: (86, 180, 233),
            thin: false,
        },
        SpanKind {
            name: WORK,
            label: "working without a lock",
            label_tr: "kilitsiz çalışıyor",
            rgb: (0, 158, 115),
            thin: false,
        },
        SpanKind {
            name: CRASHED,
            label: "crashed holding the lock",
            label_tr: "kilit elindeyken çöktü",
            rgb: (190, 30, 45),
            thin: false,
        },
    ],
    marks: &[
        MarkKind {
            name: ATTEMPT,
            label: "failed attempt",
            label_tr: "başarısız deneme",
            rgb: (213, 94, 0),
            shape: MarkShape::Tick,
        },
        MarkKind {
            name: READ_EARLY,
            label: "read the state before the lock",
            label_tr: "durumu kilitten önce okudu",
            rgb: (136, 34, 85),
            shape: MarkShape::Diamond,
        },
        MarkKind {
            name: WRITE,
            label: "write + release",
            label_tr: "yazma + bırakma",
            rgb: (0, 0, 0),
            shape: MarkShape::Triangle,
        },
        MarkKind {
            name: FAILED,
            label: "gave up / write rejected",
            label_tr: "vazgeçti / yazma reddedildi",
            rgb: (213, 94, 0),
            shape: MarkShape::Cross,
        },
    ],
    levels: &[LevelKind {
        name: HOLDER,
        label: "lock held by",
        label_tr: "kilidi tutan",
        rgb: (0, 0, 0),
        categorical: true,
    }],
};
