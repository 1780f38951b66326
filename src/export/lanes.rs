//! `shard-lanes.csv`: the timeline lanes of a shard, so that `merge` can redraw timelines.
//!
//! Rows come from one typed struct, so the header cannot drift from what is read back.

use coordsim_model::{Lane, TimelineStyle};
use serde::{Deserialize, Serialize};

/// One span or mark of one lane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct LaneRow {
    /// The sweep point.
    point: usize,
    /// The lane's name.
    lane: String,
    /// `span` or `mark`.
    item: String,
    /// The model's kind name.
    kind: String,
    /// Span start or mark time, virtual ms.
    from_ms: f64,
    /// Span end (empty for marks and open spans).
    to_ms: Option<f64>,
}

/// The lanes of each point as CSV bytes.
pub fn to_csv(lanes: &[(usize, Vec<Lane>)]) -> anyhow::Result<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for (point, point_lanes) in lanes {
        for lane in point_lanes {
            let row = |item: &str, kind: &str, from_ms: f64, to_ms: Option<f64>| LaneRow {
                point: *point,
                lane: lane.name.clone(),
                item: item.to_string(),
                kind: kind.to_string(),
                from_ms,
                to_ms,
            };
            if lane.spans.is_empty() && lane.marks.is_empty() {
                // An empty lane still has its place on the chart.
                writer.serialize(row("lane", "", 0.0, None))?;
            }
            for s in &lane.spans {
                writer.serialize(row("span", s.kind, s.from_ms, s.to_ms))?;
            }
            for m in &lane.marks {
                writer.serialize(row("mark", m.kind, m.at_ms, None))?;
            }
        }
    }
    writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// Reads lanes back, every kind checked against the model's `style`.
pub fn from_csv(bytes: &[u8], style: &TimelineStyle) -> anyhow::Result<Vec<(usize, Vec<Lane>)>> {
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
    let mut out: Vec<(usize, Vec<Lane>)> = Vec::new();
    for (i, row) in reader.deserialize::<LaneRow>().enumerate() {
        let row = row.map_err(|e| anyhow::anyhow!("line {}: {e}", i + 2))?;
        if out.last().is_none_or(|(p, _)| *p != row.point) {
            out.push((row.point, Vec::new()));
        }
        let lanes = &mut out.last_mut().expect("pushed above").1;
        if lanes.last().is_none_or(|l| l.name != row.lane) {
            lanes.push(Lane::new(row.lane.clone()));
        }
        let lane = lanes.last_mut().expect("pushed above");
        match row.item.as_str() {
            "lane" => {}
            "span" => match style.span(&row.kind) {
                Some(kind) => lane.span(kind.name, row.from_ms, row.to_ms),
                None => anyhow::bail!("line {}: unknown span kind `{}`", i + 2, row.kind),
            },
            "mark" => match style.mark(&row.kind) {
                Some(kind) => lane.mark(kind.name, row.from_ms),
                None => anyhow::bail!("line {}: unknown mark kind `{}`", i + 2, row.kind),
            },
            other => anyhow::bail!("line {}: `item` is span or mark, not `{other}`", i + 2),
        }
    }
    Ok(out)
}
