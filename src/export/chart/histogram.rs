//! Histograms of per-request samples: one outlined, lightly filled histogram per sample set
//! over shared bins, so several points compare on one chart.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::base::DrawResult;
use super::data::ChartData;
use super::frame::{axis_titles, compose, integer_labels, px, titled};
use super::layout::Placed;
use super::layout::{self, Entry, Obstacles, Rect, Scale, Swatch};

/// Bins over the whole range of the samples.
pub(super) const BINS: usize = 40;

/// Counts of each sample set in `BINS` equal bins from the smallest to the largest sample
/// of all sets: (bin edges, counts per set).
pub(super) fn bin(sets: &[&[f64]]) -> (Vec<f64>, Vec<Vec<u64>>) {
    let all = || {
        sets.iter()
            .flat_map(|s| s.iter().copied())
            .filter(|v| super::base::drawable(*v))
    };
    let lo = all().fold(f64::INFINITY, f64::min);
    let hi = all().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        return (Vec::new(), sets.iter().map(|_| Vec::new()).collect());
    }
    // All samples equal: one bin of width 1 around them (wider for a value so large that
    // 0.5 is below its precision).
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        let half = (lo.abs() * 1e-9).max(0.5);
        (lo - half, lo + half)
    };
    let width = (hi - lo) / BINS as f64;
    let edges: Vec<f64> = (0..=BINS).map(|k| lo + width * k as f64).collect();
    let counts = sets
        .iter()
        .map(|set| {
            let mut c = vec![0u64; BINS];
            for v in set.iter().filter(|v| super::base::drawable(**v)) {
                // The top edge belongs to the last bin.
                let k = (((v - lo) / width) as usize).min(BINS - 1);
                c[k] += 1;
            }
            c
        })
        .collect();
    (edges, counts)
}

/// Draws the histograms.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    s: Scale,
) -> DrawResult<Placed>
where
    DB::ErrorType: 'static,
{
    let sets: Vec<&[f64]> = data.samples.iter().map(|(_, v)| v.as_slice()).collect();
    let (edges, counts) = bin(&sets);
    let x_axis = match (edges.first(), edges.last()) {
        (Some(a), Some(b)) => {
            let pad = (b - a) * 0.02;
            let start = if *a >= 0.0 {
                (a - pad).max(0.0)
            } else {
                a - pad
            };
            start..b + pad
        }
        _ => 0.0..1.0,
    };
    let top = counts.iter().flatten().copied().max().unwrap_or(0) as f64;
    let entries: Vec<Entry> = data
        .samples
        .iter()
        .enumerate()
        .map(|(i, (label, _))| Entry {
            label: label.clone(),
            swatch: Swatch::Block(layout::color(i)),
        })
        .collect();
    let body = titled(root, &data.title, s)?;
    let titles = axis_titles(&body, &data.x_label, &data.y_label, s);
    let obstacles = |chart: &super::base::Chart2d<'_, DB>| {
        let mut o = Obstacles::default();
        for c in &counts {
            for (k, n) in c.iter().enumerate() {
                if *n == 0 {
                    continue;
                }
                let (a, b) = (
                    px(chart, (edges[k], *n as f64)),
                    px(chart, (edges[k + 1], 0.0)),
                );
                o.rects.push(Rect {
                    x0: a.0.min(b.0),
                    y0: a.1.min(b.1),
                    x1: a.0.max(b.0),
                    y1: a.1.max(b.1),
                });
            }
        }
        o
    };
    let (mut chart, legend) = compose(
        &body,
        &data.look,
        &entries,
        s,
        x_axis,
        &|headroom| super::frame::axis_range([0.0, top].into_iter(), &data.look, headroom),
        &obstacles,
        (s.px(64), s.px(96)),
    )?;
    let y_axis = chart.y_range();
    let y_fmt = |v: &f64| data.y_text(*v);
    let y = super::cdf::YTicks {
        text: &y_fmt,
        count: Some(integer_labels(&y_axis, 11)),
    };
    super::cdf::samples_mesh(&mut chart, &titles, (data.locale, false), y, s)?;
    // No sample at all draws no bars (such a chart is refused or left out before it is
    // drawn; this keeps the drawing total all the same).
    for (i, c) in counts.iter().enumerate().filter(|_| !edges.is_empty()) {
        let color = layout::color(i);
        let alpha = if counts.len() == 1 { 0.75 } else { 0.3 };
        chart.draw_series(c.iter().enumerate().filter(|(_, n)| **n > 0).map(|(k, n)| {
            Rectangle::new(
                [(edges[k], 0.0), (edges[k + 1], *n as f64)],
                color.mix(alpha).filled(),
            )
        }))?;
        // The outline, so overlapping histograms stay apart.
        let mut outline = vec![(edges[0], 0.0)];
        for (k, n) in c.iter().enumerate() {
            outline.push((edges[k], *n as f64));
            outline.push((edges[k + 1], *n as f64));
        }
        outline.push((edges[c.len()], 0.0));
        chart.draw_series(LineSeries::new(outline, color.stroke_width(s.px(2))))?;
    }
    super::frame::finish(root, &chart, legend, &entries, &data.look, s)
}

#[cfg(test)]
mod tests {
    use super::{BINS, bin};

    #[test]
    fn every_sample_lands_in_one_bin_and_the_largest_in_the_last() {
        // 0 .. 40 in 40 bins of width 1: each of 0, 1, …, 39 in its own bin, 40 in the last.
        let v: Vec<f64> = (0..=40).map(f64::from).collect();
        let (edges, counts) = bin(&[&v]);
        assert_eq!(edges.len(), BINS + 1);
        assert_eq!(counts[0].iter().sum::<u64>(), 41);
        assert_eq!(counts[0][BINS - 1], 2);
        assert_eq!(counts[0][0], 1);
    }

    #[test]
    fn no_samples_make_no_bins() {
        let (edges, counts) = bin(&[&[], &[f64::NAN]]);
        assert!(edges.is_empty());
        assert_eq!(counts, vec![Vec::<u64>::new(), Vec::new()]);
    }

    #[test]
    fn equal_samples_make_one_full_bin() {
        let (_, counts) = bin(&[&[5.0, 5.0, 5.0]]);
        assert_eq!(counts[0].iter().sum::<u64>(), 3);
        assert_eq!(counts[0].iter().filter(|c| **c > 0).count(), 1);
    }
}
