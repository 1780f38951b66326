//! Timeline lanes: a neutral output any model can emit for `kind = "timeline"` charts.
//!
//! A lane is one actor (an applier, a client) over virtual time: spans (waiting, holding,
//! working) and marks (a failed attempt, a write) whose kinds the model names and styles in
//! its [`TimelineStyle`]. The chart code draws any model's lanes and knows none of the kinds.

/// One actor's lane, top to bottom in the order a model emits them.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    /// The lane's label (the entity's name).
    pub name: String,
    /// Spans of activity.
    pub spans: Vec<LaneSpan>,
    /// Instants.
    pub marks: Vec<LaneMark>,
}

impl Lane {
    /// An empty lane called `name`.
    pub fn new(name: impl Into<String>) -> Lane {
        Lane {
            name: name.into(),
            spans: Vec::new(),
            marks: Vec::new(),
        }
    }

    /// Adds a span of `kind` from `from_ms` to `to_ms` (`None`: on past the end of the chart).
    pub fn span(&mut self, kind: &'static str, from_ms: f64, to_ms: Option<f64>) {
        self.spans.push(LaneSpan {
            kind,
            from_ms,
            to_ms,
        });
    }

    /// Adds a mark of `kind` at `at_ms`.
    pub fn mark(&mut self, kind: &'static str, at_ms: f64) {
        self.marks.push(LaneMark { kind, at_ms });
    }
}

/// A span of one kind on a lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaneSpan {
    /// One of the model's [`SpanKind`] names.
    pub kind: &'static str,
    /// Start, in virtual milliseconds.
    pub from_ms: f64,
    /// End; `None` when it runs on past the last event (a lock a crashed holder never frees).
    pub to_ms: Option<f64>,
}

/// A mark of one kind on a lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaneMark {
    /// One of the model's [`MarkKind`] names.
    pub kind: &'static str,
    /// When, in virtual milliseconds.
    pub at_ms: f64,
}

/// The kinds of span and mark a model's lanes use, with their legend text and look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelineStyle {
    /// Span kinds, in legend order.
    pub spans: &'static [SpanKind],
    /// Mark kinds, in legend order.
    pub marks: &'static [MarkKind],
}

impl TimelineStyle {
    /// The span kind called `name`.
    pub fn span(&self, name: &str) -> Option<&'static SpanKind> {
        self.spans.iter().find(|k| k.name == name)
    }

    /// The mark kind called `name`.
    pub fn mark(&self, name: &str) -> Option<&'static MarkKind> {
        self.marks.iter().find(|k| k.name == name)
    }
}

/// A kind of span: its name in the model's output, its legend entry and its look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanKind {
    /// The name the model's [`LaneSpan::kind`] uses.
    pub name: &'static str,
    /// The legend text in English (the `en` locale; `[labels]` overrides it by `name`).
    pub label: &'static str,
    /// The legend text in Turkish (the `tr` locale).
    pub label_tr: &'static str,
    /// Fill colour (red, green, blue).
    pub rgb: (u8, u8, u8),
    /// A thin bar (waiting, idle) rather than a full one (working, holding).
    pub thin: bool,
}

/// A kind of mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkKind {
    /// The name the model's [`LaneMark::kind`] uses.
    pub name: &'static str,
    /// The legend text in English (the `en` locale; `[labels]` overrides it by `name`).
    pub label: &'static str,
    /// The legend text in Turkish (the `tr` locale).
    pub label_tr: &'static str,
    /// Colour (red, green, blue).
    pub rgb: (u8, u8, u8),
    /// Its shape.
    pub shape: MarkShape,
}

/// How a mark is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkShape {
    /// A short vertical stroke across the lane (an attempt).
    Tick,
    /// A triangle above the lane (a completed step).
    Triangle,
    /// A cross on the lane (a failure).
    Cross,
}
