//! Which timelines a run draws (one per point its `where` keeps, the first few), their
//! titles and the notes that say what was thinned or left out.

use crate::config::ChartSpec;
use crate::export::Run;
use crate::locale::Text;

/// Most spans and marks one timeline draws, over all its lanes: about 100 bytes of SVG
/// each, so a timeline file stays within a few megabytes however long the run. Past it,
/// every lane's kinds are thinned alike (see [`coordsim_model::Lane::thin_to`]) and the chart says so.
pub const MAX_TIMELINE_ITEMS: usize = 20_000;

/// One timeline per point it draws (file `name`, or `name-p<point>` when several points
/// match), from the lanes of that point's first replication; points without lanes (another
/// shard's) draw none.
pub(super) fn timelines(
    run: &Run<'_>,
    spec: &ChartSpec,
    points: &crate::config::charts::TimelinePoints,
) -> Vec<(String, super::timeline::Timeline)> {
    let config = run.config;
    let Some(style) = config.model.timeline() else {
        return Vec::new();
    };
    let spans: Vec<String> = style
        .spans
        .iter()
        .map(|k| config.kind_label(k.name, k.label, k.label_tr).to_string())
        .collect();
    let marks: Vec<String> = style
        .marks
        .iter()
        .map(|k| config.kind_label(k.name, k.label, k.label_tr).to_string())
        .collect();
    run.results
        .lanes
        .iter()
        .filter(|(p, lanes)| points.drawn.contains(p) && !lanes.is_empty())
        .map(|(point, lanes)| {
            let values = config.point_values(*point);
            let title = point_title(config, spec, &values);
            let mut lanes = lanes.clone();
            for lane in lanes.lanes_mut() {
                lane.name = config.label(&lane.name).to_string();
            }
            fit_budget(lanes.lanes_mut(), MAX_TIMELINE_ITEMS);
            let notes = timeline_notes(config, &lanes);
            let timeline = super::timeline::Timeline {
                title,
                lanes: lanes.lanes().to_vec(),
                notes,
                style,
                span_labels: spans.clone(),
                mark_labels: marks.clone(),
                x_label: spec
                    .look
                    .x_label
                    .clone()
                    .unwrap_or_else(|| config.text(Text::VirtualTimeAxis).to_string()),
                locale: config.locale,
                look: spec.look.clone(),
            };
            (spec.file_name(*point, points), timeline)
        })
        .collect()
}

/// A swept point's settings for a title: `tutma (ms) = 200, koruma: none`, each setting
/// held together by no-break spaces so a wrapped title never strands `= 200)`.
fn point_settings(config: &crate::config::Config, values: &[coordsim_model::Value]) -> String {
    config
        .axes
        .iter()
        .map(|a| {
            config
                .setting_text(&a.key, &values[a.param])
                .replace(' ', "\u{a0}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The title of a chart drawn at one point (a timeline): the config's title with the point's
/// settings after it, or the chart's own title with its placeholders filled (`{point}`,
/// `{seed}`) and nothing appended.
fn point_title(
    config: &crate::config::Config,
    spec: &ChartSpec,
    values: &[coordsim_model::Value],
) -> String {
    let settings = point_settings(config, values);
    if spec.title.is_empty() {
        if settings.is_empty() {
            config.title.clone()
        } else {
            format!("{} ({settings})", config.title)
        }
    } else {
        crate::config::charts::fill_title(&spec.title, config, values, &settings)
    }
}

/// Thins every lane alike until the timeline draws at most `budget` spans and marks: the
/// largest per-kind count `c` (at least 1) whose lanes, each kind held to `c`, fit.
pub(super) fn fit_budget(lanes: &mut [coordsim_model::Lane], budget: usize) {
    // Each lane's kept items per kind.
    let counts: Vec<Vec<usize>> = lanes
        .iter()
        .map(|l| {
            l.thinning()
                .iter()
                .map(|t| {
                    if t.span {
                        l.spans().iter().filter(|s| s.kind == t.kind).count()
                    } else {
                        l.marks().iter().filter(|m| m.kind == t.kind).count()
                    }
                })
                .collect()
        })
        .collect();
    let drawn = |cap: usize| -> usize {
        counts
            .iter()
            .flat_map(|kinds| kinds.iter().map(move |n| (*n).min(cap)))
            .sum()
    };
    if drawn(usize::MAX) <= budget {
        return;
    }
    // The largest cap that fits (`drawn` grows with it); 1 when even that does not.
    let (mut lo, mut hi) = (1usize, coordsim_model::MAX_LANE_ITEMS);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if drawn(mid) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    for lane in lanes {
        lane.thin_to(lo);
    }
}

/// What a timeline says it did not draw as given, in the config's locale: lanes past the
/// cap, thinned marks, merged spans.
fn timeline_notes(config: &crate::config::Config, lanes: &coordsim_model::Lanes) -> Vec<String> {
    let n = |x: u64| config.locale.number(&x.to_string());
    let mut notes = Vec::new();
    let kept = lanes.lanes();
    if lanes.total() > kept.len() {
        notes.push(
            config
                .text(Text::TimelineLanesNote)
                .replace("{shown}", &n(kept.len() as u64))
                .replace("{total}", &n(lanes.total() as u64)),
        );
    }
    let marks_seen: u64 = kept.iter().map(|l| l.marks_seen()).sum();
    let marks_drawn: u64 = kept.iter().map(|l| l.marks().len() as u64).sum();
    if marks_drawn < marks_seen {
        notes.push(
            config
                .text(Text::TimelineMarksNote)
                .replace("{drawn}", &n(marks_drawn))
                .replace("{seen}", &n(marks_seen)),
        );
    }
    let spans_seen: u64 = kept.iter().map(|l| l.spans_seen()).sum();
    let spans_drawn: u64 = kept.iter().map(|l| l.spans().len() as u64).sum();
    if spans_drawn < spans_seen {
        notes.push(
            config
                .text(Text::TimelineSpansNote)
                .replace("{drawn}", &n(spans_drawn))
                .replace("{seen}", &n(spans_seen)),
        );
    }
    notes
}
