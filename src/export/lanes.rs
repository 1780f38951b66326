//! `shard-lanes.csv`: the timeline lanes of a shard, so that `merge` can redraw timelines.
//!
//! Rows come from one typed struct, so the header cannot drift from what is read back. Each
//! lane starts with a `lane` row (a resource's with a `resource` row); a `count` row per kind
//! says how many items the model gave and how they were kept (so a merged chart says what
//! the run's chart says); `level` rows are its level's steps, `category` rows the names of
//! its values, an `overflow` row the repetitions it drew in no sub-row; a point whose run
//! had more lanes than it keeps ends with a `lanes` row holding the total.

use coordsim_model::{
    Item, Lane, LaneMark, LaneParts, LaneSpan, Lanes, LevelPoint, Thinning, TimelineStyle,
};
use serde::{Deserialize, Serialize};

/// One lane, span, mark or count of one point's lanes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct LaneRow {
    /// The sweep point.
    point: usize,
    /// The lane's name.
    lane: String,
    /// `lane`, `span`, `mark`, `count` (of a kind) or `lanes` (the point's total).
    item: String,
    /// The model's kind name (`span`, `mark`, `count`).
    kind: String,
    /// Span start or mark time, virtual ms.
    from_ms: f64,
    /// Span end (empty for marks and open spans).
    to_ms: Option<f64>,
    /// `count`: items of the kind given; `lanes`: lanes the run had; a `span` or `mark`:
    /// the items it stands for (empty: 1).
    seen: Option<u64>,
    /// `count`: one kept per this many (`from_ms` says of what: 1 spans, 0 marks, 2 a
    /// level).
    stride: Option<u64>,
    /// A span's or mark's sub-row (empty: the first).
    row: Option<u8>,
    /// A level step's range (empty: NaN; `to_ms` is its value).
    low: Option<f64>,
    high: Option<f64>,
}

/// A number as written (NaN, no value, as an empty cell).
fn cell(x: f64) -> Option<f64> {
    (!x.is_nan()).then_some(x)
}

/// The lanes of each point as CSV bytes.
pub(crate) fn to_csv(lanes: &[(usize, Lanes)]) -> anyhow::Result<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for (point, point_lanes) in lanes {
        let resources = point_lanes.resources().iter().map(|l| (l, "resource"));
        for (lane, starts) in (point_lanes.lanes().iter().map(|l| (l, "lane"))).chain(resources) {
            let row = |item: &str, kind: &str, from_ms: f64, to_ms: Option<f64>| LaneRow {
                point: *point,
                lane: lane.name.clone(),
                item: item.to_string(),
                kind: kind.to_string(),
                from_ms,
                to_ms,
                seen: None,
                stride: None,
                row: None,
                low: None,
                high: None,
            };
            writer.serialize(row(starts, "", 0.0, None))?;
            for t in lane.thinning() {
                let of = match t.item {
                    Item::Span => 1.0,
                    Item::Mark => 0.0,
                    Item::Level => 2.0,
                };
                writer.serialize(LaneRow {
                    seen: Some(t.seen),
                    stride: Some(t.stride),
                    ..row("count", t.kind, of, None)
                })?;
            }
            for s in lane.spans() {
                let r = (s.row > 0).then_some(s.row);
                writer.serialize(LaneRow {
                    row: r,
                    seen: (s.count > 1).then_some(s.count),
                    ..row("span", s.kind, s.from_ms, s.to_ms)
                })?;
            }
            for m in lane.marks() {
                let r = (m.row > 0).then_some(m.row);
                writer.serialize(LaneRow {
                    row: r,
                    seen: (m.count > 1).then_some(m.count),
                    ..row("mark", m.kind, m.at_ms, None)
                })?;
            }
            let level = lane.level_kind().unwrap_or_default();
            for p in lane.levels() {
                writer.serialize(LaneRow {
                    low: cell(p.low),
                    high: cell(p.high),
                    ..row("level", level, p.at_ms, cell(p.value))
                })?;
            }
            for name in lane.categories() {
                writer.serialize(row("category", name, 0.0, None))?;
            }
            if lane.overflow() > 0 {
                writer.serialize(LaneRow {
                    seen: Some(lane.overflow()),
                    ..row("overflow", "", 0.0, None)
                })?;
            }
        }
        if point_lanes.total() > point_lanes.lanes().len() {
            writer.serialize(LaneRow {
                point: *point,
                lane: String::new(),
                item: "lanes".into(),
                kind: String::new(),
                from_ms: 0.0,
                to_ms: None,
                seen: Some(point_lanes.total() as u64),
                stride: None,
                row: None,
                low: None,
                high: None,
            })?;
        }
    }
    writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// One lane being read back, and whether it is a resource's.
struct Reading {
    name: String,
    parts: LaneParts,
    resource: bool,
}

/// One point's lanes read back: the actors', the resources', the lane being read, the total.
#[derive(Default)]
struct PointLanes {
    lanes: Vec<Lane>,
    resources: Vec<Lane>,
    current: Option<Reading>,
    total: usize,
}

impl PointLanes {
    /// The lane being read is done.
    fn close(&mut self) {
        if let Some(done) = self.current.take() {
            let lane = Lane::from_parts(done.name, done.parts);
            if done.resource {
                self.resources.push(lane);
            } else {
                self.lanes.push(lane);
            }
        }
    }

    fn finish(mut self) -> Lanes {
        self.close();
        let mut out = Lanes::restore(self.lanes, self.total);
        for lane in self.resources {
            out.push_resource(lane);
        }
        out
    }
}

/// Reads lanes back, every kind checked against the model's `style`.
pub(crate) fn from_csv(bytes: &[u8], style: &TimelineStyle) -> anyhow::Result<Vec<(usize, Lanes)>> {
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
    let mut points: Vec<(usize, PointLanes)> = Vec::new();
    for (i, row) in reader.deserialize::<LaneRow>().enumerate() {
        let line = i + 2;
        let row = row.map_err(|e| anyhow::anyhow!("line {line}: {e}"))?;
        if points.last().is_none_or(|(p, _)| *p != row.point) {
            points.push((row.point, PointLanes::default()));
        }
        let (_, point) = points.last_mut().expect("pushed above");
        if row.item == "lane" || row.item == "resource" {
            point.close();
            point.current = Some(Reading {
                name: row.lane,
                parts: LaneParts::default(),
                resource: row.item == "resource",
            });
            continue;
        }
        if row.item == "lanes" {
            point.total = row.seen.unwrap_or(0) as usize;
            continue;
        }
        let Some(lane) = point.current.as_mut() else {
            anyhow::bail!("line {line}: a `{}` row before its `lane` row", row.item);
        };
        read_item(&mut lane.parts, row, style, line)?;
    }
    Ok(points
        .into_iter()
        .map(|(p, lanes)| (p, lanes.finish()))
        .collect())
}

/// One row of a lane's items into its parts.
fn read_item(
    parts: &mut LaneParts,
    row: LaneRow,
    style: &TimelineStyle,
    line: usize,
) -> anyhow::Result<()> {
    let unknown =
        |what: &str, name: &str| anyhow::anyhow!("line {line}: unknown {what} kind `{name}`");
    let span_kind = |name: &str| {
        style
            .span(name)
            .map(|k| k.name)
            .ok_or_else(|| unknown("span", name))
    };
    let mark_kind = |name: &str| {
        style
            .mark(name)
            .map(|k| k.name)
            .ok_or_else(|| unknown("mark", name))
    };
    let level_kind = |name: &str| {
        style
            .level(name)
            .map(|k| k.name)
            .ok_or_else(|| unknown("level", name))
    };
    let nan = |x: Option<f64>| x.unwrap_or(f64::NAN);
    let sub_row = row.row.unwrap_or(0).min(coordsim_model::MAX_SUB_ROWS - 1);
    match row.item.as_str() {
        "span" => parts.spans.push(LaneSpan {
            kind: span_kind(&row.kind)?,
            row: sub_row,
            from_ms: row.from_ms,
            to_ms: row.to_ms,
            count: row.seen.unwrap_or(1).max(1),
        }),
        "mark" => parts.marks.push(LaneMark {
            kind: mark_kind(&row.kind)?,
            row: sub_row,
            at_ms: row.from_ms,
            count: row.seen.unwrap_or(1).max(1),
        }),
        "level" => {
            level_kind(&row.kind)?;
            parts.levels.push(LevelPoint {
                at_ms: row.from_ms,
                value: nan(row.to_ms),
                low: nan(row.low),
                high: nan(row.high),
            });
        }
        "category" => parts.categories.push(row.kind),
        "overflow" => parts.overflow = row.seen.unwrap_or(0),
        "count" => {
            let (item, kind) = match row.from_ms {
                1.0 => (Item::Span, span_kind(&row.kind)?),
                2.0 => (Item::Level, level_kind(&row.kind)?),
                _ => (Item::Mark, mark_kind(&row.kind)?),
            };
            parts.thinning.push(Thinning {
                kind,
                item,
                seen: row.seen.unwrap_or(0),
                stride: row.stride.unwrap_or(1).max(1),
            });
        }
        other => anyhow::bail!(
            "line {line}: `item` is lane, resource, span, mark, level, category, overflow, count or lanes, not `{other}`"
        ),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use coordsim_model::{LevelKind, MarkKind, MarkShape, SpanKind};

    const STYLE: TimelineStyle = TimelineStyle {
        spans: &[SpanKind {
            name: "busy",
            label: "busy",
            label_tr: "meşgul",
            rgb: (0, 0, 0),
            thin: false,
        }],
        marks: &[MarkKind {
            name: "tick",
            label: "tick",
            label_tr: "tık",
            rgb: (0, 0, 0),
            shape: MarkShape::Tick,
        }],
        levels: &[LevelKind {
            name: "holder",
            label: "held by",
            label_tr: "tutan",
            rgb: (0, 0, 0),
            categorical: true,
        }],
    };

    #[test]
    fn resource_lanes_levels_and_rows_read_back_as_they_were() {
        // An actor's spans in sub-rows with a repetition past them; a lock's lane whose
        // holder is 1, then none (NaN, an empty cell), then 0, its holders named. A level's
        // NaN is never equal to itself, so the file is what is compared: written, read and
        // written again, the same bytes.
        let mut actor = Lane::new("client");
        actor.span_in_row("busy", 0, 0.0, Some(5.0));
        actor.span_in_row("busy", 1, 1.0, Some(4.0));
        actor.mark_in_row("tick", 1, 4.0);
        actor.add_overflow();
        let mut lock = Lane::new("row");
        lock.level("holder", 0.0, 1.0);
        lock.level("holder", 3.0, f64::NAN);
        lock.level("holder", 4.0, 0.0);
        lock.set_categories(vec!["a".into(), "b".into()]);
        let mut lanes: Lanes = vec![actor].into();
        lanes.push_resource(lock);
        let bytes = to_csv(&[(0, lanes)]).unwrap();
        let back = from_csv(&bytes, &STYLE).unwrap();
        assert_eq!(to_csv(&back).unwrap(), bytes);
        let (actor, lock) = (&back[0].1.lanes()[0], &back[0].1.resources()[0]);
        assert_eq!((actor.rows(), actor.overflow()), (2, 1));
        assert_eq!(lock.categories(), ["a", "b"]);
        let values: Vec<f64> = lock.levels().iter().map(|p| p.value).collect();
        assert!(values[0] == 1.0 && values[1].is_nan() && values[2] == 0.0);
    }

    #[test]
    fn thinned_lanes_and_their_counts_read_back_as_they_were() {
        // A thinned lane, an empty lane and a count of lanes past the cap survive the file.
        let mut a = Lane::new("a");
        a.mark_series("tick", 0.0, 1.0, 5_000);
        for k in 0..1000 {
            a.span("busy", k as f64, Some(k as f64 + 0.5));
        }
        let mut lanes: Lanes = vec![a, Lane::new("b")].into();
        lanes.skip(7);
        let stored = vec![(3, lanes)];
        let bytes = to_csv(&stored).unwrap();
        assert_eq!(from_csv(&bytes, &STYLE).unwrap(), stored);
    }
}
