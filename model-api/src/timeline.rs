//! Timeline lanes: a neutral output any model can emit for `kind = "timeline"` charts.
//!
//! A lane is one actor (an applier, a client) over virtual time: spans (waiting, holding,
//! working) and marks (a failed attempt, a write) whose kinds the model names and styles in
//! its [`TimelineStyle`]. The chart code draws any model's lanes and knows none of the kinds.
//!
//! Every lane is bounded however long the run: it keeps at most [`MAX_LANE_ITEMS`] spans and
//! as many marks of each kind. Past that, marks of a kind are thinned evenly (every second
//! one dropped, then every fourth, …) and spans of a kind are merged with their neighbours of
//! the same kind, so a lane's memory never grows with the run while its picture keeps its
//! shape: a chart is about a thousand pixels wide, and four hundred ticks across it already
//! read as a solid row. [`Lanes`] keeps at most [`MAX_LANES`] lanes and counts the rest.
//! What was thinned or left out stays counted ([`Lane::thinning`], [`Lanes::total`]), so the
//! chart can say so.

/// Most lanes a run hands over: the first ones, in the model's order (the rest are only
/// counted). Five hundred lanes already fill a chart's height at a pixel or two each; a
/// timeline is read lane by lane, so more would draw nothing a reader could follow.
pub const MAX_LANES: usize = 500;

/// Most spans, and most marks, of one kind that one lane keeps: 400 × 24 bytes ≈ 10 KB a
/// kind, so the 500 lanes of a run with a few kinds each stay within tens of megabytes.
pub const MAX_LANE_ITEMS: usize = 400;

/// One actor's lane, top to bottom in the order a model emits them.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    /// The lane's label (the entity's name).
    pub name: String,
    spans: Vec<LaneSpan>,
    marks: Vec<LaneMark>,
    thinning: Vec<Thinning>,
}

/// How the items of one kind on one lane were kept: how many the model gave, and every
/// how many of them one is kept (a mark) or merged into one (a span).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thinning {
    /// The span or mark kind.
    pub kind: &'static str,
    /// A span kind (merged) rather than a mark kind (thinned).
    pub span: bool,
    /// Items of this kind the model gave the lane.
    pub seen: u64,
    /// One item kept per this many given (1: all kept).
    pub stride: u64,
}

impl Lane {
    /// An empty lane called `name`.
    pub fn new(name: impl Into<String>) -> Lane {
        Lane {
            name: name.into(),
            spans: Vec::new(),
            marks: Vec::new(),
            thinning: Vec::new(),
        }
    }

    /// A lane as stored (by a shard, say): its kept spans and marks and how they were kept.
    pub fn restore(
        name: impl Into<String>,
        spans: Vec<LaneSpan>,
        marks: Vec<LaneMark>,
        thinning: Vec<Thinning>,
    ) -> Lane {
        Lane {
            name: name.into(),
            spans,
            marks,
            thinning,
        }
    }

    /// The spans kept, in the order they were given.
    pub fn spans(&self) -> &[LaneSpan] {
        &self.spans
    }

    /// The marks kept, in the order they were given.
    pub fn marks(&self) -> &[LaneMark] {
        &self.marks
    }

    /// How each kind's items were kept (kinds in the order they first came).
    pub fn thinning(&self) -> &[Thinning] {
        &self.thinning
    }

    /// Whether some kind was thinned or merged.
    pub fn thinned(&self) -> bool {
        self.thinning.iter().any(|t| t.stride > 1)
    }

    /// Spans the model gave (kept or merged).
    pub fn spans_seen(&self) -> u64 {
        self.seen(true)
    }

    /// Marks the model gave (kept or thinned out).
    pub fn marks_seen(&self) -> u64 {
        self.seen(false)
    }

    fn seen(&self, span: bool) -> u64 {
        self.thinning
            .iter()
            .filter(|t| t.span == span)
            .map(|t| t.seen)
            .fold(0, u64::saturating_add)
    }

    fn counter(&mut self, kind: &'static str, span: bool) -> usize {
        match self
            .thinning
            .iter()
            .position(|t| t.kind == kind && t.span == span)
        {
            Some(i) => i,
            None => {
                self.thinning.push(Thinning {
                    kind,
                    span,
                    seen: 0,
                    stride: 1,
                });
                self.thinning.len() - 1
            }
        }
    }

    fn kept(&self, kind: &str, span: bool) -> usize {
        if span {
            self.spans.iter().filter(|s| s.kind == kind).count()
        } else {
            self.marks.iter().filter(|m| m.kind == kind).count()
        }
    }

    /// Adds a span of `kind` from `from_ms` to `to_ms` (`None`: on past the end of the chart).
    /// Past [`MAX_LANE_ITEMS`] spans of the kind, it is merged into the kind's last one.
    pub fn span(&mut self, kind: &'static str, from_ms: f64, to_ms: Option<f64>) {
        let c = self.counter(kind, true);
        let t = &mut self.thinning[c];
        let starts_group = t.seen.is_multiple_of(t.stride);
        t.seen = t.seen.saturating_add(1);
        let span = LaneSpan {
            kind,
            from_ms,
            to_ms,
        };
        if !starts_group && let Some(last) = self.spans.iter_mut().rev().find(|s| s.kind == kind) {
            last.absorb(&span);
            return;
        }
        self.spans.push(span);
        if self.kept(kind, true) > MAX_LANE_ITEMS {
            self.halve(c);
        }
    }

    /// Adds a mark of `kind` at `at_ms`. Past [`MAX_LANE_ITEMS`] marks of the kind, the kind
    /// is thinned evenly.
    pub fn mark(&mut self, kind: &'static str, at_ms: f64) {
        self.mark_series(kind, at_ms, 0.0, 1);
    }

    /// Adds `count` marks of `kind` at `first_ms`, `first_ms + step_ms`, … (a failed attempt
    /// every poll interval, say), in time proportional to the marks kept, not to `count`.
    pub fn mark_series(&mut self, kind: &'static str, first_ms: f64, step_ms: f64, count: u64) {
        let c = self.counter(kind, false);
        let mut k = 0u64;
        while k < count {
            let t = &mut self.thinning[c];
            // The next mark kept is the next whose index among the kind's is a multiple of
            // the stride.
            let skip = (t.stride - t.seen % t.stride) % t.stride;
            if skip >= count - k {
                t.seen = t.seen.saturating_add(count - k);
                return;
            }
            t.seen = t.seen.saturating_add(skip + 1);
            k += skip;
            self.marks.push(LaneMark {
                kind,
                at_ms: first_ms + step_ms * k as f64,
            });
            k += 1;
            if self.kept(kind, false) > MAX_LANE_ITEMS {
                self.halve(c);
            }
        }
    }

    /// Keeps at most `max` items of every kind (at least 1), thinning and merging as adding
    /// past [`MAX_LANE_ITEMS`] does: a chart with many lanes draws fewer items on each.
    pub fn thin_to(&mut self, max: usize) {
        let max = max.max(1);
        for c in 0..self.thinning.len() {
            let Thinning { kind, span, .. } = self.thinning[c];
            while self.kept(kind, span) > max {
                self.halve(c);
            }
        }
    }

    /// Halves the kept items of kind `c`: every second mark dropped, or every two
    /// neighbouring spans merged into one; the stride doubles.
    fn halve(&mut self, c: usize) {
        let Thinning { kind, span, .. } = self.thinning[c];
        if span {
            let mut out: Vec<LaneSpan> = Vec::with_capacity(self.spans.len());
            let mut open: Option<usize> = None;
            for s in self.spans.drain(..) {
                if s.kind != kind {
                    out.push(s);
                    continue;
                }
                match open.take() {
                    Some(i) => out[i].absorb(&s),
                    None => {
                        out.push(s);
                        open = Some(out.len() - 1);
                    }
                }
            }
            self.spans = out;
        } else {
            let mut index = 0usize;
            self.marks.retain(|m| {
                if m.kind != kind {
                    return true;
                }
                index += 1;
                index % 2 == 1
            });
        }
        let t = &mut self.thinning[c];
        t.stride = t.stride.saturating_mul(2);
    }
}

/// The lanes of one run: at most [`MAX_LANES`], the first ones, and how many there were.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lanes {
    lanes: Vec<Lane>,
    total: usize,
}

impl Lanes {
    /// No lanes.
    pub fn new() -> Lanes {
        Lanes::default()
    }

    /// Stored lanes, of a run that had `total` (at least as many as stored).
    pub fn restore(lanes: Vec<Lane>, total: usize) -> Lanes {
        let total = total.max(lanes.len());
        Lanes { lanes, total }
    }

    /// Whether a lane added now would be kept: a model that has more actors than
    /// [`MAX_LANES`] builds the first ones and counts the rest with [`Lanes::skip`].
    pub fn has_room(&self) -> bool {
        self.lanes.len() < MAX_LANES
    }

    /// Adds a lane: kept while there is room, counted either way.
    pub fn push(&mut self, lane: Lane) {
        self.total += 1;
        if self.has_room() {
            self.lanes.push(lane);
        }
    }

    /// Counts `n` lanes not built (past [`MAX_LANES`]).
    pub fn skip(&mut self, n: usize) {
        self.total = self.total.saturating_add(n);
    }

    /// The lanes kept, top to bottom.
    pub fn lanes(&self) -> &[Lane] {
        &self.lanes
    }

    /// The same, to relabel or thin.
    pub fn lanes_mut(&mut self) -> &mut [Lane] {
        &mut self.lanes
    }

    /// How many lanes the run had (kept or not).
    pub fn total(&self) -> usize {
        self.total
    }

    /// Whether the run had no lane at all.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

impl From<Vec<Lane>> for Lanes {
    fn from(lanes: Vec<Lane>) -> Lanes {
        lanes.into_iter().collect()
    }
}

impl FromIterator<Lane> for Lanes {
    fn from_iter<I: IntoIterator<Item = Lane>>(iter: I) -> Lanes {
        let mut out = Lanes::new();
        for lane in iter {
            out.push(lane);
        }
        out
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

impl LaneSpan {
    /// Grows this span to cover `other` too (an open end stays open).
    fn absorb(&mut self, other: &LaneSpan) {
        self.from_ms = self.from_ms.min(other.from_ms);
        self.to_ms = match (self.to_ms, other.to_ms) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
    }
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
    /// A diamond on the lane (a read, a look at shared state).
    Diamond,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_million_marks_keep_at_most_the_cap_evenly_spaced() {
        // A mark every 1 ms for 1,000,000 ms: halving from 401 kept marks leaves 201 at
        // stride 2, …; the stride doubles until 1,000,000 / stride ≤ 400, i.e. stride 4096
        // (1,000,000 / 2048 = 488 > 400; / 4096 = 244.1 → 245 kept: indices 0, 4096, …).
        let mut lane = Lane::new("a");
        lane.mark_series("attempt", 0.0, 1.0, 1_000_000);
        let t = lane.thinning()[0];
        assert_eq!((t.seen, t.stride), (1_000_000, 4096));
        assert_eq!(lane.marks().len(), 245);
        assert!(lane.marks().len() <= MAX_LANE_ITEMS);
        for (i, m) in lane.marks().iter().enumerate() {
            assert_eq!(m.at_ms, (i * 4096) as f64);
        }
        // One by one gives the same marks as the series.
        let mut one = Lane::new("a");
        for k in 0..1_000_000 {
            one.mark("attempt", k as f64);
        }
        assert_eq!(one, lane);
    }

    #[test]
    fn thinning_one_kind_keeps_every_mark_of_another() {
        let mut lane = Lane::new("a");
        lane.mark("write", 5.0);
        lane.mark_series("attempt", 0.0, 1.0, 10_000);
        lane.mark("write", 7.0);
        let writes: Vec<f64> = lane
            .marks()
            .iter()
            .filter(|m| m.kind == "write")
            .map(|m| m.at_ms)
            .collect();
        assert_eq!(writes, [5.0, 7.0]);
        assert_eq!(lane.marks_seen(), 10_002);
    }

    #[test]
    fn spans_past_the_cap_merge_into_neighbours_covering_the_same_time() {
        // 1,000 busy spans [2k, 2k + 1): 1,000 / 4 = 250 ≤ 400 kept at stride 4, each
        // covering four: [8j, 8j + 7).
        let mut lane = Lane::new("a");
        for k in 0..1000 {
            lane.span("busy", 2.0 * k as f64, Some(2.0 * k as f64 + 1.0));
        }
        assert_eq!(lane.spans().len(), 250);
        assert_eq!(lane.thinning()[0].stride, 4);
        assert_eq!(lane.spans()[1].from_ms, 8.0);
        assert_eq!(lane.spans()[1].to_ms, Some(15.0));
        assert_eq!(lane.spans().last().unwrap().to_ms, Some(1999.0));
        assert_eq!(lane.spans_seen(), 1000);
        // An open span stays open when merged.
        let mut lane = Lane::new("b");
        for k in 0..=MAX_LANE_ITEMS {
            let to = (k < MAX_LANE_ITEMS).then_some(k as f64 + 0.5);
            lane.span("busy", k as f64, to);
        }
        assert_eq!(lane.spans().last().unwrap().to_ms, None);
    }

    #[test]
    fn thin_to_halves_until_each_kind_fits() {
        // 100 marks thinned to at most 30: halved to 50, then 25 (stride 4).
        let mut lane = Lane::new("a");
        lane.mark_series("attempt", 0.0, 1.0, 100);
        lane.thin_to(30);
        assert_eq!(lane.marks().len(), 25);
        assert_eq!(lane.thinning()[0].stride, 4);
        assert!(lane.thinned());
    }

    #[test]
    fn lanes_keep_the_first_ones_and_count_every_one() {
        let lanes: Lanes = (0..MAX_LANES + 20)
            .map(|i| Lane::new(i.to_string()))
            .collect();
        assert_eq!(lanes.lanes().len(), MAX_LANES);
        assert_eq!(lanes.total(), MAX_LANES + 20);
        assert_eq!(lanes.lanes()[0].name, "0");
        let mut built = Lanes::new();
        built.push(Lane::new("a"));
        built.skip(9);
        assert_eq!((built.lanes().len(), built.total()), (1, 10));
    }
}
