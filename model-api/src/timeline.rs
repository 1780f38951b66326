//! Timeline lanes: a neutral output any model can emit for `kind = "timeline"` charts.
//!
//! A lane is one actor (an applier, a client) over virtual time: spans (waiting, holding,
//! working) and marks (a failed attempt, a write) whose kinds the model names and styles in
//! its [`TimelineStyle`]. The chart code draws any model's lanes and knows none of the kinds.
//! A lane may also carry one *level*: a quantity that steps over time (a queue's length, a
//! register's value, a lock's holder), drawn as a step line or, for a categorical level, as
//! a bar per holder. A model's resources have lanes of their own ([`Lanes::resources`]).
//!
//! An actor whose repetitions overlap (an open loop, the branches of a fork) puts each
//! repetition in a sub-row of its lane ([`LaneSpan::row`]), at most [`MAX_SUB_ROWS`] of
//! them; a repetition that finds them all taken is only counted ([`Lane::overflow`]).
//!
//! Every lane is bounded however long the run: it keeps at most [`MAX_LANE_ITEMS`] spans and
//! as many marks of each kind, and as many points of its level. The first [`FIRST_KEPT`]
//! spans and marks of each kind are kept as given (a level's points are merged from its
//! first on: a level is a shape, not a list of events); past the cap, the later marks of a kind are
//! thinned evenly (every second one dropped, then every fourth, …), spans of a kind are merged
//! with their neighbours of the same kind and sub-row, and neighbouring level points are merged
//! into one that keeps the range the level went through ([`LevelPoint::low`], `high`), so a
//! lane's memory never grows with the run while its picture keeps its shape: a chart is about
//! a thousand pixels wide, and four hundred ticks across it already read as a solid row.
//! [`Lanes`] keeps at most [`MAX_LANES`] lanes and counts the rest. What was thinned or left
//! out stays counted ([`Lane::thinning`], [`Lanes::total`]), so the chart can say so, and
//! each kept span or mark counts the items it stands for ([`LaneSpan::count`]), so a
//! density drawn from them adds up to what the model gave.

/// Most lanes a run hands over: the first ones, in the model's order (the rest are only
/// counted). Five hundred lanes already fill a chart's height at a pixel or two each; a
/// timeline is read lane by lane, so more would draw nothing a reader could follow.
pub const MAX_LANES: usize = 500;

/// Most resource lanes a run hands over (a chart names the ones it draws): a lane each for
/// a few dozen servers, locks, queues and registers is already more than a chart can hold.
pub const MAX_RESOURCE_LANES: usize = 64;

/// Most spans, and most marks, of one kind that one lane keeps: 400 × at most 56 bytes ≈
/// 22 KB a kind, so the 500 lanes of a run with a few kinds each stay within tens of
/// megabytes.
pub const MAX_LANE_ITEMS: usize = 400;

/// The first items of each kind a lane keeps as given, never thinned nor merged: a chart's
/// `first_items` draws at most this many of a lane exactly, and the start of a long run is
/// drawn as it happened. A quarter of [`MAX_LANE_ITEMS`], so the rest of a run still has
/// three hundred to be thinned into.
pub const FIRST_KEPT: usize = 100;

/// Most sub-rows one lane splits into for repetitions that overlap: eight rows of a lane a
/// few dozen pixels high are a few pixels each, the least a bar can be read at.
pub const MAX_SUB_ROWS: u8 = 8;

/// Most category names a lane keeps for its level (a lock's holders by name): one per lane a
/// chart can draw.
pub const MAX_CATEGORIES: usize = MAX_LANES;

/// One actor's lane, top to bottom in the order a model emits them.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    /// The lane's label (the entity's name).
    pub name: String,
    spans: Vec<LaneSpan>,
    marks: Vec<LaneMark>,
    levels: Vec<LevelPoint>,
    thinning: Vec<Thinning>,
    /// How many items of each of `thinning`'s kinds are kept (so adding one counts none).
    kept: Vec<usize>,
    categories: Vec<String>,
    overflow: u64,
}

/// What kind of item a [`Thinning`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// Spans, merged past the cap.
    Span,
    /// Marks, thinned evenly past the cap.
    Mark,
    /// Level points, merged past the cap (each keeping the range it covered).
    Level,
}

/// How the items of one kind on one lane were kept: how many the model gave, and every
/// how many of them one is kept (a mark) or merged into one (a span, a level point).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thinning {
    /// The span, mark or level kind.
    pub kind: &'static str,
    /// Which of the three.
    pub item: Item,
    /// Items of this kind the model gave the lane.
    pub seen: u64,
    /// One item kept per this many given past the first [`FIRST_KEPT`], which are all kept
    /// (1: all kept); a level's points are merged from the first, this many into one.
    pub stride: u64,
}

/// The stored parts of a lane (a shard's file reads them back).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaneParts {
    /// Its kept spans.
    pub spans: Vec<LaneSpan>,
    /// Its kept marks.
    pub marks: Vec<LaneMark>,
    /// Its kept level points.
    pub levels: Vec<LevelPoint>,
    /// How each kind was kept.
    pub thinning: Vec<Thinning>,
    /// Its level's category names.
    pub categories: Vec<String>,
    /// Repetitions given no sub-row.
    pub overflow: u64,
}

impl Lane {
    /// An empty lane called `name`.
    pub fn new(name: impl Into<String>) -> Lane {
        Lane::from_parts(name, LaneParts::default())
    }

    /// A lane as stored (by a shard, say): its kept spans and marks and how they were kept.
    pub fn restore(
        name: impl Into<String>,
        spans: Vec<LaneSpan>,
        marks: Vec<LaneMark>,
        thinning: Vec<Thinning>,
    ) -> Lane {
        Lane::from_parts(
            name,
            LaneParts {
                spans,
                marks,
                thinning,
                ..LaneParts::default()
            },
        )
    }

    /// A lane as stored, every part of it.
    pub fn from_parts(name: impl Into<String>, parts: LaneParts) -> Lane {
        let mut lane = Lane {
            name: name.into(),
            spans: parts.spans,
            marks: parts.marks,
            levels: parts.levels,
            thinning: parts.thinning,
            kept: Vec::new(),
            categories: parts.categories,
            overflow: parts.overflow,
        };
        lane.kept = (lane.thinning.iter())
            .map(|t| lane.kept(t.kind, t.item))
            .collect();
        lane
    }

    /// Its name and every part of it (to move a level from one lane to another, say).
    pub fn into_parts(self) -> (String, LaneParts) {
        let parts = LaneParts {
            spans: self.spans,
            marks: self.marks,
            levels: self.levels,
            thinning: self.thinning,
            categories: self.categories,
            overflow: self.overflow,
        };
        (self.name, parts)
    }

    /// The spans kept, in the order they were given.
    pub fn spans(&self) -> &[LaneSpan] {
        &self.spans
    }

    /// The marks kept, in the order they were given.
    pub fn marks(&self) -> &[LaneMark] {
        &self.marks
    }

    /// The level's points kept, in time order: each holds from its instant to the next's.
    pub fn levels(&self) -> &[LevelPoint] {
        &self.levels
    }

    /// The level's kind, when the lane has a level.
    pub fn level_kind(&self) -> Option<&'static str> {
        (self.thinning.iter())
            .find(|t| t.item == Item::Level)
            .map(|t| t.kind)
    }

    /// How each kind's items were kept (kinds in the order they first came).
    pub fn thinning(&self) -> &[Thinning] {
        &self.thinning
    }

    /// Whether some kind was thinned or merged.
    pub fn thinned(&self) -> bool {
        self.thinning.iter().any(|t| t.stride > 1)
    }

    /// The names of a categorical level's values: value `i` is `categories()[i]` (a lock's
    /// holder by its actor's name); a value with no name here is drawn unnamed.
    pub fn categories(&self) -> &[String] {
        &self.categories
    }

    /// Names a categorical level's values (the first [`MAX_CATEGORIES`] kept).
    pub fn set_categories(&mut self, names: Vec<String>) {
        self.categories = names;
        self.categories.truncate(MAX_CATEGORIES);
    }

    /// Repetitions that found every sub-row taken ([`MAX_SUB_ROWS`] under way at once) and
    /// were not drawn as spans.
    pub fn overflow(&self) -> u64 {
        self.overflow
    }

    /// Counts a repetition that got no sub-row.
    pub fn add_overflow(&mut self) {
        self.overflow = self.overflow.saturating_add(1);
    }

    /// The most sub-rows its spans and marks use (1 when none is past the first).
    pub fn rows(&self) -> u8 {
        let span_rows = self.spans.iter().map(|s| s.row);
        let mark_rows = self.marks.iter().map(|m| m.row);
        span_rows.chain(mark_rows).max().map_or(1, |r| r + 1)
    }

    /// Spans the model gave (kept or merged).
    pub fn spans_seen(&self) -> u64 {
        self.seen(Item::Span)
    }

    /// Marks the model gave (kept or thinned out).
    pub fn marks_seen(&self) -> u64 {
        self.seen(Item::Mark)
    }

    /// Level changes the model gave (kept or merged).
    pub fn levels_seen(&self) -> u64 {
        self.seen(Item::Level)
    }

    fn seen(&self, item: Item) -> u64 {
        self.thinning
            .iter()
            .filter(|t| t.item == item)
            .map(|t| t.seen)
            .fold(0, u64::saturating_add)
    }

    fn counter(&mut self, kind: &'static str, item: Item) -> usize {
        match self
            .thinning
            .iter()
            .position(|t| t.item == item && same(t.kind, kind))
        {
            Some(i) => i,
            None => {
                self.thinning.push(Thinning {
                    kind,
                    item,
                    seen: 0,
                    stride: 1,
                });
                self.kept.push(0);
                self.thinning.len() - 1
            }
        }
    }

    /// Items of `kind` kept.
    pub fn kept(&self, kind: &str, item: Item) -> usize {
        match item {
            Item::Span => self.spans.iter().filter(|s| same(s.kind, kind)).count(),
            Item::Mark => self.marks.iter().filter(|m| same(m.kind, kind)).count(),
            Item::Level => self.levels.len(),
        }
    }

    /// Adds a span of `kind` from `from_ms` to `to_ms` (`None`: on past the end of the chart).
    /// Past [`MAX_LANE_ITEMS`] spans of the kind, it may be merged into the kind's last one
    /// (never into one of the first [`FIRST_KEPT`]).
    pub fn span(&mut self, kind: &'static str, from_ms: f64, to_ms: Option<f64>) {
        self.span_in_row(kind, 0, from_ms, to_ms);
    }

    /// Adds a span in sub-row `row` (at most [`MAX_SUB_ROWS`] − 1). Past the cap it is
    /// merged into the kind's last span of the same row, so merged spans of one row never
    /// cover another row's.
    pub fn span_in_row(&mut self, kind: &'static str, row: u8, from_ms: f64, to_ms: Option<f64>) {
        let row = row.min(MAX_SUB_ROWS - 1);
        let c = self.counter(kind, Item::Span);
        let t = &mut self.thinning[c];
        let starts_group = tail_index(t.seen).is_none_or(|i| i.is_multiple_of(t.stride));
        t.seen = t.seen.saturating_add(1);
        let span = LaneSpan {
            kind,
            row,
            from_ms,
            to_ms,
            count: 1,
        };
        // The kind's last span of the row takes it in, unless that one is among the first
        // kept as given (counted from the end: the last of a row is near it).
        if !starts_group
            && let Some(at) = (self.spans.iter()).rposition(|s| s.row == row && same(s.kind, kind))
            && self.kept[c]
                - (self.spans[at..]
                    .iter()
                    .filter(|s| same(s.kind, kind))
                    .count())
                >= FIRST_KEPT
        {
            self.spans[at].absorb(&span);
            return;
        }
        self.spans.push(span);
        self.kept[c] += 1;
        if self.kept[c] > MAX_LANE_ITEMS {
            self.halve(c, FIRST_KEPT);
        }
    }

    /// Adds a mark of `kind` at `at_ms`. Past [`MAX_LANE_ITEMS`] marks of the kind, the kind
    /// is thinned evenly after its first [`FIRST_KEPT`].
    pub fn mark(&mut self, kind: &'static str, at_ms: f64) {
        self.mark_series(kind, at_ms, 0.0, 1);
    }

    /// Adds a mark in sub-row `row`.
    pub fn mark_in_row(&mut self, kind: &'static str, row: u8, at_ms: f64) {
        self.marks_in_row(kind, row.min(MAX_SUB_ROWS - 1), at_ms, 0.0, 1);
    }

    /// Adds `count` marks of `kind` at `first_ms`, `first_ms + step_ms`, … (a failed attempt
    /// every poll interval, say), in time proportional to the marks kept, not to `count`.
    pub fn mark_series(&mut self, kind: &'static str, first_ms: f64, step_ms: f64, count: u64) {
        self.marks_in_row(kind, 0, first_ms, step_ms, count);
    }

    fn marks_in_row(
        &mut self,
        kind: &'static str,
        row: u8,
        first_ms: f64,
        step_ms: f64,
        count: u64,
    ) {
        let c = self.counter(kind, Item::Mark);
        let mut k = 0u64;
        while k < count {
            let t = &mut self.thinning[c];
            // The next mark kept is the next whose index among the kind's past the first
            // kept is a multiple of the stride; those skipped count on the last one kept.
            let skip = tail_index(t.seen).map_or(0, |i| (t.stride - i % t.stride) % t.stride);
            let skipped = skip.min(count - k);
            t.seen = t.seen.saturating_add(skipped);
            if skipped > 0
                && let Some(last) = self.marks.iter_mut().rev().find(|m| same(m.kind, kind))
            {
                last.count = last.count.saturating_add(skipped);
            }
            if skip >= count - k {
                return;
            }
            let t = &mut self.thinning[c];
            t.seen = t.seen.saturating_add(1);
            k += skip;
            self.marks.push(LaneMark {
                kind,
                row,
                at_ms: first_ms + step_ms * k as f64,
                count: 1,
            });
            self.kept[c] += 1;
            k += 1;
            if self.kept[c] > MAX_LANE_ITEMS {
                self.halve(c, FIRST_KEPT);
            }
        }
    }

    /// The level of `kind` is `value` from `at_ms` on (NaN: none, a free lock; a lane has
    /// one level kind, the first it is given). Times come in order. A value equal to the
    /// level's is no change; a second change at the same instant replaces the first (the
    /// level is what the instant ends with). Past [`MAX_LANE_ITEMS`] points, neighbouring
    /// points merge: the first's instant, the last's value, the range of both.
    pub fn level(&mut self, kind: &'static str, at_ms: f64, value: f64) {
        if self.level_kind().is_some_and(|k| !same(k, kind)) {
            return;
        }
        let c = self.counter(kind, Item::Level);
        let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        if let Some(last) = self.levels.last()
            && same(last.value, value)
        {
            return;
        }
        let stride = self.thinning[c].stride;
        let n = self.levels.len();
        if let Some(last) = self.levels.last_mut()
            && last.at_ms == at_ms
            && stride == 1
        {
            // The same instant, unmerged: the instant ends at `value` (and a change undone
            // within it is none).
            *last = LevelPoint::at(at_ms, value);
            if n >= 2 && same(self.levels[n - 2].value, value) {
                self.levels.pop();
                self.kept[c] = self.levels.len();
                let t = &mut self.thinning[c];
                t.seen = t.seen.saturating_sub(1);
            }
            return;
        }
        let t = &mut self.thinning[c];
        let starts_group = t.seen.is_multiple_of(t.stride);
        t.seen = t.seen.saturating_add(1);
        match self.levels.last_mut() {
            Some(last) if !starts_group => last.absorb(&LevelPoint::at(at_ms, value)),
            _ => {
                self.levels.push(LevelPoint::at(at_ms, value));
                self.kept[c] = self.levels.len();
                if self.levels.len() > MAX_LANE_ITEMS {
                    self.halve(c, 0);
                }
            }
        }
    }

    /// Keeps at most `max` items of every kind (at least 1), thinning and merging as adding
    /// past [`MAX_LANE_ITEMS`] does, the first [`FIRST_KEPT`] (at most half of `max`) kept
    /// as given: a chart with many lanes draws fewer items on each. Spans merge only within
    /// their sub-row, so a kind spread over more sub-rows than `max` leaves room for keeps
    /// one span a sub-row past its first: halving stops when it merges nothing more.
    pub fn thin_to(&mut self, max: usize) {
        let max = max.max(1);
        let first = FIRST_KEPT.min(max / 2);
        for c in 0..self.thinning.len() {
            while self.kept[c] > max {
                let before = self.kept[c];
                self.halve(c, first);
                if self.kept[c] >= before {
                    break;
                }
            }
        }
    }

    /// Halves the kept items of kind `c` past its first `first`: every second mark dropped
    /// (its count added to the one before), every two neighbouring spans of one sub-row
    /// merged into one, every two level points merged; the stride doubles.
    fn halve(&mut self, c: usize, first: usize) {
        let Thinning { kind, item, .. } = self.thinning[c];
        match item {
            Item::Span => {
                let mut out: Vec<LaneSpan> = Vec::with_capacity(self.spans.len());
                let mut open = [None::<usize>; MAX_SUB_ROWS as usize];
                let mut index = 0usize;
                for s in self.spans.drain(..) {
                    if !same(s.kind, kind) {
                        out.push(s);
                        continue;
                    }
                    index += 1;
                    if index <= first {
                        out.push(s);
                        continue;
                    }
                    match open[s.row as usize].take() {
                        Some(i) => out[i].absorb(&s),
                        None => {
                            out.push(s);
                            open[s.row as usize] = Some(out.len() - 1);
                        }
                    }
                }
                self.spans = out;
            }
            Item::Mark => {
                let mut out: Vec<LaneMark> = Vec::with_capacity(self.marks.len());
                let (mut index, mut kept) = (0usize, None::<usize>);
                for m in self.marks.drain(..) {
                    if !same(m.kind, kind) {
                        out.push(m);
                        continue;
                    }
                    index += 1;
                    match kept {
                        Some(i) if index > first && (index - first).is_multiple_of(2) => {
                            out[i].count = out[i].count.saturating_add(m.count);
                        }
                        _ => {
                            out.push(m);
                            kept = (index > first).then_some(out.len() - 1);
                        }
                    }
                }
                self.marks = out;
            }
            Item::Level => {
                let merged = self
                    .levels
                    .chunks(2)
                    .map(|pair| {
                        let mut first = pair[0];
                        if let Some(second) = pair.get(1) {
                            first.absorb(second);
                        }
                        first
                    })
                    .collect();
                self.levels = merged;
            }
        }
        self.kept[c] = self.kept(kind, item);
        let t = &mut self.thinning[c];
        t.stride = t.stride.saturating_mul(2);
    }
}

/// Whether two kind names are one: the same static name at once (a model's kinds are
/// constants), else by their text (a kind read back from a file is the style's own).
#[inline]
fn same(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// The index of the item given after `seen` of its kind among those past the first
/// [`FIRST_KEPT`] (`None`: it is one of those, kept as given).
fn tail_index(seen: u64) -> Option<u64> {
    seen.checked_sub(FIRST_KEPT as u64)
}

/// The lanes of one run: at most [`MAX_LANES`] actors' lanes, the first ones, and how many
/// there were; and at most [`MAX_RESOURCE_LANES`] resources' lanes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lanes {
    lanes: Vec<Lane>,
    total: usize,
    resources: Vec<Lane>,
}

impl Lanes {
    /// No lanes.
    pub fn new() -> Lanes {
        Lanes::default()
    }

    /// Stored lanes, of a run that had `total` (at least as many as stored).
    pub fn restore(lanes: Vec<Lane>, total: usize) -> Lanes {
        let total = total.max(lanes.len());
        Lanes {
            lanes,
            total,
            resources: Vec::new(),
        }
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

    /// Adds a resource's lane (a server's, a lock's): kept while there is room.
    pub fn push_resource(&mut self, lane: Lane) {
        if self.resources.len() < MAX_RESOURCE_LANES {
            self.resources.push(lane);
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

    /// The resources' lanes, in the model's order (each named by its resource).
    pub fn resources(&self) -> &[Lane] {
        &self.resources
    }

    /// How many lanes the run had (kept or not).
    pub fn total(&self) -> usize {
        self.total
    }

    /// Whether the run had no lane at all.
    pub fn is_empty(&self) -> bool {
        self.total == 0 && self.resources.is_empty()
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
    /// Its sub-row (0: the first; an actor's overlapping repetitions take one each).
    pub row: u8,
    /// Start, in virtual milliseconds.
    pub from_ms: f64,
    /// End; `None` when it runs on past the last event (a lock a crashed holder never frees).
    pub to_ms: Option<f64>,
    /// The spans the model gave that it stands for (1; more when merged).
    pub count: u64,
}

impl LaneSpan {
    /// Grows this span to cover `other` too (an open end stays open).
    fn absorb(&mut self, other: &LaneSpan) {
        self.from_ms = self.from_ms.min(other.from_ms);
        self.to_ms = match (self.to_ms, other.to_ms) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        self.count = self.count.saturating_add(other.count);
    }
}

/// A mark of one kind on a lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaneMark {
    /// One of the model's [`MarkKind`] names.
    pub kind: &'static str,
    /// Its sub-row.
    pub row: u8,
    /// When, in virtual milliseconds.
    pub at_ms: f64,
    /// The marks the model gave that it stands for (1; more when the ones after it up to
    /// the next kept were thinned out).
    pub count: u64,
}

/// A step of a lane's level: from `at_ms` on (to the next point's instant, or past the end
/// of the chart) the level ends at `value`, having gone through `low` … `high` on the way
/// (equal to `value` for a point that merged nothing; NaN parts ignored: a lock free, then
/// held by 3, has both at 3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelPoint {
    /// When the step starts, virtual ms.
    pub at_ms: f64,
    /// The level after it (NaN: none).
    pub value: f64,
    /// The least level it went through.
    pub low: f64,
    /// The greatest.
    pub high: f64,
}

impl LevelPoint {
    /// A step to `value` at `at_ms` that merged nothing.
    pub fn at(at_ms: f64, value: f64) -> LevelPoint {
        LevelPoint {
            at_ms,
            value,
            low: value,
            high: value,
        }
    }

    /// Whether it merged steps that went through more than one level.
    pub fn is_range(&self) -> bool {
        self.low != self.high && !(self.low.is_nan() && self.high.is_nan())
    }

    /// Takes in the later point `other`: its value, and the range of both (`f64::min` and
    /// `max` pass over NaN).
    fn absorb(&mut self, other: &LevelPoint) {
        self.value = other.value;
        self.low = self.low.min(other.low);
        self.high = self.high.max(other.high);
    }
}

/// The kinds of span and mark a model's lanes use, with their legend text and look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelineStyle {
    /// Span kinds, in legend order.
    pub spans: &'static [SpanKind],
    /// Mark kinds, in legend order.
    pub marks: &'static [MarkKind],
    /// Level kinds, in legend order.
    pub levels: &'static [LevelKind],
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

    /// The level kind called `name`.
    pub fn level(&self, name: &str) -> Option<&'static LevelKind> {
        self.levels.iter().find(|k| k.name == name)
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

/// A kind of level: a number drawn as a step line (a queue's length), or a category drawn
/// as a bar per value, named by the lane's [`Lane::categories`] (a lock's holder).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelKind {
    /// The name the lane's level uses.
    pub name: &'static str,
    /// The legend text in English.
    pub label: &'static str,
    /// The legend text in Turkish.
    pub label_tr: &'static str,
    /// Line colour (a categorical level colours each value on its own).
    pub rgb: (u8, u8, u8),
    /// Values are categories (a holder), not quantities.
    pub categorical: bool,
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
        // A mark every 1 ms for 1,000,000 ms: the first 100 kept as given (0 … 99), the
        // other 999,900 thinned: halving whenever 301 of them are kept, the stride doubles
        // until 999,900 / stride ≤ 300, i.e. stride 4096 (/ 2048 = 488.2 > 300;
        // / 4096 = 244.1 → 245 kept: at 100, 100 + 4096, …). Each stands for 4096 marks
        // but the last, for the 999,900 − 244 · 4096 = 476 left: a million in all.
        let mut lane = Lane::new("a");
        lane.mark_series("attempt", 0.0, 1.0, 1_000_000);
        let t = lane.thinning()[0];
        assert_eq!((t.seen, t.stride), (1_000_000, 4096));
        assert_eq!(lane.marks().len(), 100 + 245);
        assert!(lane.marks().len() <= MAX_LANE_ITEMS);
        for (i, m) in lane.marks().iter().enumerate() {
            let (at, count) = match i.checked_sub(FIRST_KEPT) {
                None => (i, 1),
                Some(244) => (100 + 244 * 4096, 476),
                Some(j) => (100 + j * 4096, 4096),
            };
            assert_eq!((m.at_ms, m.count), (at as f64, count), "mark {i}");
        }
        let total: u64 = lane.marks().iter().map(|m| m.count).sum();
        assert_eq!(total, 1_000_000);
        // One by one gives the same marks as the series.
        let mut one = Lane::new("a");
        for k in 0..1_000_000 {
            one.mark("attempt", k as f64);
        }
        assert_eq!(one, lane);
    }

    #[test]
    fn items_are_as_small_as_the_docs_say() {
        // MAX_LANE_ITEMS' doc: at most 56 bytes a span or mark.
        assert!(std::mem::size_of::<LaneSpan>() <= 56);
        assert!(std::mem::size_of::<LaneMark>() <= 56);
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
        // 1,000 busy spans [2k, 2k + 1): the first 100 kept as given, the other 900 merged
        // four by four (900 / 2 = 450 > 300; 900 / 4 = 225): 100 + 225 kept at stride 4, the
        // first merged one covering k = 100 … 103, [200, 207), and standing for 4.
        let mut lane = Lane::new("a");
        for k in 0..1000 {
            lane.span("busy", 2.0 * k as f64, Some(2.0 * k as f64 + 1.0));
        }
        assert_eq!(lane.spans().len(), 325);
        assert_eq!(lane.thinning()[0].stride, 4);
        assert_eq!(lane.spans()[99].from_ms, 198.0);
        assert_eq!(lane.spans()[99].count, 1);
        assert_eq!(lane.spans()[100].from_ms, 200.0);
        assert_eq!(lane.spans()[100].to_ms, Some(207.0));
        assert_eq!(lane.spans()[100].count, 4);
        assert_eq!(lane.spans().last().unwrap().to_ms, Some(1999.0));
        assert_eq!(lane.spans_seen(), 1000);
        assert_eq!(lane.spans().iter().map(|s| s.count).sum::<u64>(), 1000);
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
        // 100 marks thinned to at most 30: the first 15 (half of 30) kept as given, the other
        // 85 halved to 43 (58 kept), 22 (37), 11 (26 ≤ 30): stride 8, 100 marks counted.
        let mut lane = Lane::new("a");
        lane.mark_series("attempt", 0.0, 1.0, 100);
        lane.thin_to(30);
        assert_eq!(lane.marks().len(), 26);
        assert_eq!(lane.thinning()[0].stride, 8);
        assert!(lane.thinned());
        assert_eq!(lane.marks().iter().map(|m| m.count).sum::<u64>(), 100);
        assert!(lane.marks()[..15].iter().all(|m| m.count == 1));
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

    #[test]
    fn thinning_spans_spread_over_more_rows_than_it_keeps_ends() {
        // 10 spans in sub-rows k mod 8: thin_to(4) keeps the first 2 as given, and the other
        // 8 lie in 8 different rows, one each, so nothing merges: it ends with all 10 kept
        // (it used to halve forever, never getting under 4).
        let mut lane = Lane::new("a".to_string());
        for k in 0..10u8 {
            let from = f64::from(k) * 10.0;
            lane.span_in_row("busy", k % 8, from, Some(from + 5.0));
        }
        lane.thin_to(4);
        assert_eq!(lane.spans().len(), 10);
        // Two rows only: past the first 2, the 8 spans of rows 0 and 1 merge to one a row.
        let mut lane = Lane::new("b".to_string());
        for k in 0..10u8 {
            let from = f64::from(k) * 10.0;
            lane.span_in_row("busy", k % 2, from, Some(from + 5.0));
        }
        lane.thin_to(1);
        assert_eq!(lane.spans().len(), 2);
    }
}
