//! What a line or bar chart draws at most, whatever the sweep: its first
//! [`crate::config::MAX_SERIES`] series, and lines of [`MAX_LINE_POINTS`] points in all
//! (each a segment and a marker of the SVG: 100,000 points of one line wrote 18 MB, and six
//! such lines passed the renderer's million nodes after the whole run). Each says so in a
//! note under the title, in the config's locale.

use crate::config::{Config, MAX_SERIES};
use crate::locale::Text;

/// A line's points and its interval bars, to thin together.
pub(super) type Line<'s> = (&'s mut Vec<(f64, f64)>, &'s mut Vec<(f64, f64, f64)>);

/// Points a line chart draws in all, as a timeline draws at most 20,000 spans and marks
/// (a few megabytes of SVG).
pub(super) const MAX_LINE_POINTS: usize = 20_000;

/// Keeps the first [`MAX_SERIES`] of `series` (and of `groups`, each data series' group and
/// place); gives the note that says so, when it cut.
pub(super) fn first_series<S>(
    config: &Config,
    series: &mut Vec<S>,
    groups: &mut Vec<(Vec<usize>, usize)>,
) -> Option<String> {
    let total = series.len();
    if total <= MAX_SERIES {
        return None;
    }
    series.truncate(MAX_SERIES);
    groups.retain(|(_, i)| *i < MAX_SERIES);
    Some(note(
        config,
        Text::SeriesNote,
        [("{shown}", MAX_SERIES), ("{total}", total)],
    ))
}

/// The note `text` in the config's words, its two numbers written as the locale writes
/// them.
fn note(config: &Config, text: Text, numbers: [(&str, usize); 2]) -> String {
    numbers
        .iter()
        .fold(config.text(text).to_string(), |note, (key, n)| {
            note.replace(key, &config.locale.number(&n.to_string()))
        })
}

/// Thins the lines of a chart past [`MAX_LINE_POINTS`] points in all, each to its share:
/// each stretch of consecutive points keeps its lowest and its highest (so no peak or dip
/// is lost, as a pixel column would show them), every line its first and last point, and
/// an interval bar stays where its point does. `lines`: each line's points and its
/// interval bars (x, low, high). Gives the note, when it thinned.
pub(super) fn thin_lines(config: &Config, mut lines: Vec<Line<'_>>) -> Option<String> {
    let seen: usize = lines.iter().map(|(points, _)| points.len()).sum();
    if seen <= MAX_LINE_POINTS {
        return None;
    }
    let share = (MAX_LINE_POINTS / lines.len().max(1)).max(4);
    for (points, intervals) in lines.iter_mut() {
        if points.len() > share {
            **points = thinned(points, share);
            let kept: std::collections::HashSet<u64> =
                points.iter().map(|p| p.0.to_bits()).collect();
            intervals.retain(|i| kept.contains(&i.0.to_bits()));
        }
    }
    let drawn: usize = lines.iter().map(|(points, _)| points.len()).sum();
    Some(note(
        config,
        Text::LinePointsNote,
        [("{drawn}", drawn), ("{seen}", seen)],
    ))
}

/// `points` (in x order) thinned to at most `share` + 2: `share / 2` stretches of
/// consecutive points, each keeping its lowest and its highest point in x order, and the
/// first and the last point.
fn thinned(points: &[(f64, f64)], share: usize) -> Vec<(f64, f64)> {
    let n = points.len();
    let stretches = (share / 2).max(1);
    let mut out = Vec::with_capacity(share + 2);
    for k in 0..stretches {
        let stretch = &points[k * n / stretches..(k + 1) * n / stretches];
        let by_y = |a: &&(f64, f64), b: &&(f64, f64)| a.1.total_cmp(&b.1);
        let (Some(low), Some(high)) = (
            stretch.iter().enumerate().min_by(|a, b| by_y(&a.1, &b.1)),
            stretch.iter().enumerate().max_by(|a, b| by_y(&a.1, &b.1)),
        ) else {
            continue;
        };
        let (first, second) = if low.0 <= high.0 {
            (low, high)
        } else {
            (high, low)
        };
        out.push(*first.1);
        if second.0 != first.0 {
            out.push(*second.1);
        }
    }
    if out.first() != points.first() {
        out.insert(0, points[0]);
    }
    if out.last() != points.last() {
        out.push(points[n - 1]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100,000 points of a saw with one spike thinned to 1,000: at most 1,002 kept, in x
    /// order, the first and the last, the spike and the lowest of every stretch kept.
    #[test]
    fn a_thinned_line_keeps_its_ends_and_its_extremes() {
        let mut points: Vec<(f64, f64)> = (0..100_000)
            .map(|i| (f64::from(i), f64::from(i % 7)))
            .collect();
        points[54_321].1 = 1e6;
        let thin = thinned(&points, 1000);
        assert!(thin.len() <= 1002, "{}", thin.len());
        assert!(
            thin.windows(2).all(|w| w[0].0 < w[1].0),
            "in x order, once each"
        );
        assert_eq!(thin.first(), points.first());
        assert_eq!(thin.last(), points.last());
        assert!(thin.contains(&(54_321.0, 1e6)), "the spike");
        // Every stretch of 200 points has a 0 (i % 7 == 0 every 7): 500 of them kept.
        assert!(thin.iter().filter(|p| p.1 == 0.0).count() >= 500);
        // A line within its share is not touched.
        assert_eq!(thinned(&points[..10], 1000).len(), 10);
    }
}
