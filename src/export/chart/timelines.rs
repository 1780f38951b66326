//! Which timelines a run draws (one per point its `where` keeps, the first few), their
//! titles and the notes that say what was thinned or left out.

use crate::config::ChartSpec;
use crate::export::Run;
use crate::locale::Text;

/// Most spans and marks one timeline draws, over all its lanes: about 100 bytes of SVG
/// each, so a timeline file stays within a few megabytes however long the run. Past it,
/// every lane's kinds are thinned alike (see [`coordsim_model::Lane::thin_to`]) and the chart says so.
pub(crate) const MAX_TIMELINE_ITEMS: usize = 20_000;

/// One timeline per point it draws (file `name`, or `name-p<point>` when several points
/// match), from the lanes of that point's first replication; points without lanes (another
/// shard's) draw none.
pub(super) fn timelines(
    run: &Run<'_>,
    spec: &ChartSpec,
    points: &crate::config::charts::TimelinePoints,
) -> Vec<(String, super::timeline_data::Timeline)> {
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
    let levels: Vec<String> = (style.levels.iter())
        .map(|k| config.kind_label(k.name, k.label, k.label_tr).to_string())
        .collect();
    run.results
        .lanes
        .iter()
        .filter(|(p, lanes)| points.drawn.contains(p) && !lanes.is_empty())
        .map(|(point, lanes)| {
            let values = config.point_values(*point);
            let title = point_title(config, spec, &values);
            let (lanes, window, focus_note) = selected(spec, lanes);
            // The resources' lanes on top, then the actors'.
            let mut drawn: Vec<coordsim_model::Lane> = (lanes.resources().iter())
                .chain(lanes.lanes())
                .cloned()
                .collect();
            for lane in &mut drawn {
                lane.name = config.label(&lane.name).to_string();
                if !lane.categories().is_empty() {
                    let names = (lane.categories().iter())
                        .map(|c| config.label(c).to_string())
                        .collect();
                    lane.set_categories(names);
                }
            }
            let mut bands = vec![None; drawn.len()];
            let resources = lanes.resources().len();
            if let Some(n) = spec.look.first_items {
                // Each actor's lane its first n items (fewer, when that many on every lane
                // would pass the budget), the rest counted in its band.
                let actors = (drawn.len() - resources).max(1);
                let n = n.min(MAX_TIMELINE_ITEMS / actors).max(1);
                for (lane, band) in drawn.iter_mut().zip(&mut bands).skip(resources) {
                    *band = split_first(lane, n);
                }
            }
            fit_budget(&mut drawn, MAX_TIMELINE_ITEMS);
            let mut notes =
                timeline_notes(config, &drawn, &bands, (lanes.total(), lanes.lanes().len()));
            if let Some(n) = spec.look.first_items
                && bands.iter().any(Option::is_some)
            {
                notes.push(
                    config
                        .text(Text::TimelineFirstItemsNote)
                        .replace("{count}", &config.locale.number(&n.to_string())),
                );
            }
            if let Some(kind) = focus_note {
                let label = (style.mark(&kind).map(|k| (k.name, k.label, k.label_tr)))
                    .or_else(|| style.span(&kind).map(|k| (k.name, k.label, k.label_tr)))
                    .map_or(kind.clone(), |(n, l, t)| {
                        config.kind_label(n, l, t).to_string()
                    });
                notes.push(
                    config
                        .text(Text::TimelineFocusNote)
                        .replace("{kind}", &label),
                );
            }
            let mut look = spec.look.clone();
            look.window = window;
            let timeline = super::timeline_data::Timeline {
                title,
                resource_lanes: resources,
                lanes: drawn,
                bands,
                notes,
                style,
                span_labels: spans.clone(),
                mark_labels: marks.clone(),
                level_labels: levels.clone(),
                several_label: config.text(Text::TimelineSeveralHolders).to_string(),
                x_label: spec
                    .look
                    .x_label
                    .clone()
                    .unwrap_or_else(|| config.text(Text::VirtualTimeAxis).to_string()),
                locale: config.locale,
                look,
            };
            (spec.file_name(*point, points), timeline)
        })
        .collect()
}

/// What a timeline draws of a run's lanes: those its `lanes` name (all, without), cut to
/// its window — `from_ms`/`to_ms`, or its `focus` centred on the first event of that kind
/// (a twentieth of the run either side unless `focus_ms` says) — so the budget of items is
/// spent inside it. The window, and the focus kind when the run has none of it.
fn selected(
    spec: &ChartSpec,
    lanes: &coordsim_model::Lanes,
) -> (coordsim_model::Lanes, Option<(f64, f64)>, Option<String>) {
    let wanted = |name: &str| {
        spec.look.lanes.is_empty()
            || spec.look.lanes.iter().any(|w| {
                name == w
                    || name
                        .strip_prefix(w.as_str())
                        .is_some_and(|rest| rest.starts_with('-'))
            })
    };
    let kept: Vec<coordsim_model::Lane> = (lanes.lanes().iter())
        .filter(|l| wanted(&l.name))
        .cloned()
        .collect();
    let mut missing = None;
    let window = match &spec.look.focus {
        None => spec.look.window,
        Some((kind, half)) => {
            let at = (kept.iter())
                .flat_map(|l| {
                    (l.marks().iter().filter(|m| m.kind == kind).map(|m| m.at_ms)).chain(
                        (l.spans().iter())
                            .filter(|s| s.kind == kind)
                            .map(|s| s.from_ms),
                    )
                })
                .fold(f64::INFINITY, f64::min);
            if at.is_finite() {
                let times = || {
                    kept.iter().flat_map(|l| {
                        (l.spans().iter())
                            .flat_map(|s| [Some(s.from_ms), s.to_ms])
                            .flatten()
                            .chain(l.marks().iter().map(|m| m.at_ms))
                    })
                };
                let span = times().fold(0.0f64, f64::max) - times().fold(f64::INFINITY, f64::min);
                let half = half.unwrap_or((span / 20.0).max(0.5));
                Some(((at - half).max(0.0), at + half))
            } else {
                missing = Some(kind.clone());
                None
            }
        }
    };
    let total = if spec.look.lanes.is_empty() {
        lanes.total()
    } else {
        kept.len()
    };
    let cut: Vec<coordsim_model::Lane> = match window {
        None => kept,
        Some((from, to)) => kept.iter().map(|l| clipped(l, from, to)).collect(),
    };
    let mut out = coordsim_model::Lanes::restore(cut, total);
    // The resources' lanes the chart names, in its order (a run records all or none).
    for name in &spec.look.resources {
        if let Some(l) = lanes.resources().iter().find(|l| &l.name == name) {
            out.push_resource(match window {
                None => l.clone(),
                Some((from, to)) => clipped(l, from, to),
            });
        }
    }
    (out, window, missing)
}

/// Lane `l` cut to [from, to]: its spans that reach into it, clipped, its marks in it, and
/// its level from the step in force at `from` (moved to `from`) to the last before `to`.
/// Each item keeps its count, and each kind's count is of the items in the window (a kind
/// with none there has no count, and no legend entry).
pub(super) fn clipped(l: &coordsim_model::Lane, from: f64, to: f64) -> coordsim_model::Lane {
    use coordsim_model::{Item, LaneParts, LevelPoint, Thinning};
    let mut parts = LaneParts {
        categories: l.categories().to_vec(),
        overflow: l.overflow(),
        ..LaneParts::default()
    };
    for s in l.spans() {
        let end = s.to_ms.unwrap_or(f64::INFINITY);
        if end < from || s.from_ms > to {
            continue;
        }
        let clipped_end = s
            .to_ms
            .map(|e| e.min(to))
            .or(Some(to).filter(|t| t.is_finite()));
        parts.spans.push(coordsim_model::LaneSpan {
            from_ms: s.from_ms.max(from),
            to_ms: clipped_end,
            ..*s
        });
    }
    parts.marks = (l.marks().iter())
        .filter(|m| (from..=to).contains(&m.at_ms))
        .copied()
        .collect();
    let first = l
        .levels()
        .iter()
        .rposition(|p| p.at_ms <= from)
        .unwrap_or(0);
    parts.levels = (l.levels().iter().skip(first))
        .filter(|p| p.at_ms <= to)
        .map(|p| LevelPoint {
            at_ms: p.at_ms.max(from),
            ..*p
        })
        .collect();
    for t in l.thinning() {
        let seen: u64 = match t.item {
            Item::Span => (parts.spans.iter().filter(|s| s.kind == t.kind))
                .map(|s| s.count)
                .sum(),
            Item::Mark => (parts.marks.iter().filter(|m| m.kind == t.kind))
                .map(|m| m.count)
                .sum(),
            Item::Level => (parts.levels.len() as u64).saturating_mul(t.stride),
        };
        if seen > 0 {
            parts.thinning.push(Thinning { seen, ..*t });
        }
    }
    coordsim_model::Lane::from_parts(l.name.clone(), parts)
}

/// A lane's items past its first `n` in time (spans by their start, marks by their instant;
/// a span before a mark at one instant), taken off it: the band they are counted in instead,
/// from the first of them (`None`: the lane has no more than `n`).
pub(super) fn split_first(
    lane: &mut coordsim_model::Lane,
    n: usize,
) -> Option<super::timeline_data::Band> {
    let mut order: Vec<(f64, usize)> = (lane.spans().iter().enumerate())
        .map(|(i, s)| (s.from_ms, i))
        .chain(
            lane.marks()
                .iter()
                .enumerate()
                .map(|(i, m)| (m.at_ms, lane.spans().len() + i)),
        )
        .collect();
    if order.len() <= n {
        return None;
    }
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let spans = lane.spans().len();
    let mut drawn = vec![false; order.len()];
    for (_, i) in &order[..n] {
        drawn[*i] = true;
    }
    let name = lane.name.clone();
    let (_, mut parts) = std::mem::replace(lane, coordsim_model::Lane::new("")).into_parts();
    let mut band = super::timeline_data::Band {
        from_ms: order[n].0,
        items: Vec::new(),
    };
    let mut kept_spans = Vec::new();
    for (i, s) in parts.spans.drain(..).enumerate() {
        if drawn[i] {
            kept_spans.push(s);
        } else {
            band.items
                .push((s.from_ms, s.to_ms.unwrap_or(s.from_ms), s.count));
        }
    }
    let mut kept_marks = Vec::new();
    for (i, m) in parts.marks.drain(..).enumerate() {
        if drawn[spans + i] {
            kept_marks.push(m);
        } else {
            band.items.push((m.at_ms, m.at_ms, m.count));
        }
    }
    parts.spans = kept_spans;
    parts.marks = kept_marks;
    *lane = coordsim_model::Lane::from_parts(name, parts);
    Some(band)
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
            (l.thinning().iter())
                .map(|t| l.kept(t.kind, t.item))
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
/// cap (`total` the run had, `shown` kept), thinned marks, merged spans and level steps,
/// repetitions past an actor's sub-rows, and the density strip of a thinned lane.
fn timeline_notes(
    config: &crate::config::Config,
    lanes: &[coordsim_model::Lane],
    bands: &[Option<super::timeline_data::Band>],
    (total, shown): (usize, usize),
) -> Vec<String> {
    // A lane drawn as its first items and a band says so in a note of its own.
    let kept: Vec<&coordsim_model::Lane> = (lanes.iter().zip(bands))
        .filter(|(_, b)| b.is_none())
        .map(|(l, _)| l)
        .collect();
    let n = |x: u64| config.locale.number(&x.to_string());
    let mut notes = Vec::new();
    if total > shown {
        notes.push(
            config
                .text(Text::TimelineLanesNote)
                .replace("{shown}", &n(shown as u64))
                .replace("{total}", &n(total as u64)),
        );
    }
    let count = |seen: fn(&coordsim_model::Lane) -> u64,
                 drawn: fn(&coordsim_model::Lane) -> usize| {
        let seen: u64 = kept.iter().map(|l| seen(l)).sum();
        let drawn: u64 = kept.iter().map(|l| drawn(l) as u64).sum();
        (drawn, seen)
    };
    let thinned = [
        (
            Text::TimelineMarksNote,
            count(|l| l.marks_seen(), |l| l.marks().len()),
        ),
        (
            Text::TimelineSpansNote,
            count(|l| l.spans_seen(), |l| l.spans().len()),
        ),
        (
            Text::TimelineLevelsNote,
            count(|l| l.levels_seen(), |l| l.levels().len()),
        ),
    ];
    for (text, (drawn, seen)) in thinned {
        if drawn < seen {
            notes.push(
                config
                    .text(text)
                    .replace("{drawn}", &n(drawn))
                    .replace("{seen}", &n(seen)),
            );
        }
    }
    let overflow: u64 = lanes.iter().map(|l| l.overflow()).sum();
    if overflow > 0 {
        notes.push(
            config
                .text(Text::TimelineRowsNote)
                .replace("{rows}", &n(u64::from(coordsim_model::MAX_SUB_ROWS)))
                .replace("{count}", &n(overflow)),
        );
    }
    if kept.iter().any(|l| super::levels::dense(l)) {
        notes.push(config.text(Text::TimelineDensityNote).to_string());
    }
    notes
}

#[cfg(test)]
mod tests {
    use coordsim_model::Lane;

    /// A lane of a long run: a span [2k, 2k + 1) and a mark at 2k + 1 for k < 1000, thinned
    /// past the first 100 of each kind, and a level stepping at each even ms.
    fn long_lane() -> Lane {
        let mut lane = Lane::new("a");
        for k in 0..1000 {
            let at = 2.0 * f64::from(k);
            lane.span("busy", at, Some(at + 1.0));
            lane.mark("done", at + 1.0);
            lane.level("queue", at, f64::from(k % 7));
        }
        lane
    }

    #[test]
    fn a_window_keeps_only_what_falls_in_it() {
        let (from, to) = (301.5, 700.25);
        let cut = super::clipped(&long_lane(), from, to);
        assert!(!cut.spans().is_empty() && !cut.marks().is_empty());
        for s in cut.spans() {
            assert!(from <= s.from_ms && s.to_ms.unwrap() <= to, "{s:?}");
        }
        for m in cut.marks() {
            assert!((from..=to).contains(&m.at_ms), "{m:?}");
        }
        for p in cut.levels() {
            assert!((from..=to).contains(&p.at_ms), "{p:?}");
        }
        // The level in force at `from` (set at 300) starts the window.
        assert_eq!(cut.levels()[0].at_ms, from);
    }

    #[test]
    fn first_items_draws_the_first_in_time_and_counts_every_other_in_its_band() {
        // 2,000 items given (1,000 spans and 1,000 marks); 30 drawn: the spans and marks of
        // k = 0 … 14, in time order; the band counts the other 1,970 from k = 15 (30 ms) on.
        let mut lane = long_lane();
        let band = super::split_first(&mut lane, 30).unwrap();
        assert_eq!(lane.spans().len() + lane.marks().len(), 30);
        assert!(lane.spans().iter().all(|s| s.to_ms.unwrap() <= 30.0));
        assert!(lane.marks().iter().all(|m| m.at_ms < 30.0));
        assert_eq!(band.from_ms, 30.0);
        let counted: u64 = band.items.iter().map(|i| i.2).sum();
        assert_eq!(counted + 30, 2000);
        // Counted into a chart's columns, the band adds up to the same.
        let columns =
            crate::export::chart::levels::buckets(band.items.iter().copied(), (0.0, 2000.0), 250);
        let total: f64 = columns.iter().sum();
        assert!((total - 1970.0).abs() < 1e-6, "{total}");
        // A lane with no more than that many is drawn whole.
        let mut short = Lane::new("b");
        short.mark("done", 1.0);
        assert!(super::split_first(&mut short, 30).is_none());
    }
}
