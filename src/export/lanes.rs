//! `shard-lanes.csv`: the timeline lanes of a shard, so that `merge` can redraw timelines.
//!
//! Rows come from one typed struct, so the header cannot drift from what is read back. Each
//! lane starts with a `lane` row; a `count` row per kind says how many items the model gave
//! and how they were kept (so a merged chart says what the run's chart says); a point whose
//! run had more lanes than it keeps ends with a `lanes` row holding the total.

use coordsim_model::{Lane, LaneMark, LaneSpan, Lanes, Thinning, TimelineStyle};
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
    /// `count`: items of the kind given; `lanes`: lanes the run had.
    seen: Option<u64>,
    /// `count`: one kept per this many; 0 marks a span kind's count, else a mark kind's is
    /// written as its stride with `to_ms` empty.
    stride: Option<u64>,
}

/// The lanes of each point as CSV bytes.
pub fn to_csv(lanes: &[(usize, Lanes)]) -> anyhow::Result<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for (point, point_lanes) in lanes {
        for lane in point_lanes.lanes() {
            let row = |item: &str, kind: &str, from_ms: f64, to_ms: Option<f64>| LaneRow {
                point: *point,
                lane: lane.name.clone(),
                item: item.to_string(),
                kind: kind.to_string(),
                from_ms,
                to_ms,
                seen: None,
                stride: None,
            };
            writer.serialize(row("lane", "", 0.0, None))?;
            for t in lane.thinning() {
                writer.serialize(LaneRow {
                    seen: Some(t.seen),
                    stride: Some(t.stride),
                    ..row("count", t.kind, if t.span { 1.0 } else { 0.0 }, None)
                })?;
            }
            for s in lane.spans() {
                writer.serialize(row("span", s.kind, s.from_ms, s.to_ms))?;
            }
            for m in lane.marks() {
                writer.serialize(row("mark", m.kind, m.at_ms, None))?;
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
            })?;
        }
    }
    writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// One lane being read back.
struct Reading {
    name: String,
    spans: Vec<LaneSpan>,
    marks: Vec<LaneMark>,
    thinning: Vec<Thinning>,
}

impl Reading {
    fn done(self) -> Lane {
        Lane::restore(self.name, self.spans, self.marks, self.thinning)
    }
}

/// Reads lanes back, every kind checked against the model's `style`.
pub fn from_csv(bytes: &[u8], style: &TimelineStyle) -> anyhow::Result<Vec<(usize, Lanes)>> {
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
    // Per point: its lanes, the lane being read, and the total when a `lanes` row gave one.
    let mut points: Vec<(usize, Vec<Lane>, Option<Reading>, usize)> = Vec::new();
    for (i, row) in reader.deserialize::<LaneRow>().enumerate() {
        let line = i + 2;
        let row = row.map_err(|e| anyhow::anyhow!("line {line}: {e}"))?;
        if points.last().is_none_or(|(p, ..)| *p != row.point) {
            points.push((row.point, Vec::new(), None, 0));
        }
        let (_, lanes, current, total) = points.last_mut().expect("pushed above");
        let span_kind = |name: &str| {
            style
                .span(name)
                .map(|k| k.name)
                .ok_or_else(|| anyhow::anyhow!("line {line}: unknown span kind `{name}`"))
        };
        let mark_kind = |name: &str| {
            style
                .mark(name)
                .map(|k| k.name)
                .ok_or_else(|| anyhow::anyhow!("line {line}: unknown mark kind `{name}`"))
        };
        if row.item == "lane" {
            if let Some(done) = current.take() {
                lanes.push(done.done());
            }
            *current = Some(Reading {
                name: row.lane,
                spans: Vec::new(),
                marks: Vec::new(),
                thinning: Vec::new(),
            });
            continue;
        }
        if row.item == "lanes" {
            *total = row.seen.unwrap_or(0) as usize;
            continue;
        }
        let Some(lane) = current.as_mut() else {
            anyhow::bail!("line {line}: a `{}` row before its `lane` row", row.item);
        };
        match row.item.as_str() {
            "span" => lane.spans.push(LaneSpan {
                kind: span_kind(&row.kind)?,
                from_ms: row.from_ms,
                to_ms: row.to_ms,
            }),
            "mark" => lane.marks.push(LaneMark {
                kind: mark_kind(&row.kind)?,
                at_ms: row.from_ms,
            }),
            "count" => {
                let span = row.from_ms == 1.0;
                lane.thinning.push(Thinning {
                    kind: if span {
                        span_kind(&row.kind)?
                    } else {
                        mark_kind(&row.kind)?
                    },
                    span,
                    seen: row.seen.unwrap_or(0),
                    stride: row.stride.unwrap_or(1).max(1),
                });
            }
            other => anyhow::bail!(
                "line {line}: `item` is lane, span, mark, count or lanes, not `{other}`"
            ),
        }
    }
    Ok(points
        .into_iter()
        .map(|(point, mut lanes, current, total)| {
            if let Some(done) = current {
                lanes.push(done.done());
            }
            (point, Lanes::restore(lanes, total))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use coordsim_model::{MarkKind, MarkShape, SpanKind};

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
    };

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
