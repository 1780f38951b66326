//! `exact_cdf` charts: per point, a metric's exact distribution over every execution as a
//! solid step line (where an order is free and schedulers differ, the band between the
//! least and the greatest P(metric ≤ x) over them, its edges drawn), and the runs'
//! empirical distribution of it at the same point as a dashed step line (the next colour for
//! one point; for several, a darker shade of the point's own).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::base::DrawResult;
use super::exact_data::{ExactCdf, ExactStep, PointCdf};
use super::frame::{axis_titles, px, titled, x_range};
use super::layout::{self, Entry, Obstacles, Placed, Rect, Scale, Swatch};

/// The band's fill: the point's colour over white at this share, opaque (two points'
/// bands never blend into a third colour; the lines are drawn over every band).
const BAND_SHARE: f64 = 0.22;

/// The step line of one side of `steps`: 0 up to the first value, then `side` of each step
/// held to the next value.
fn step_line(steps: &[ExactStep], side: fn(&ExactStep) -> f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(2 * steps.len());
    let mut below = 0.0;
    for s in steps {
        out.push((s.x, below));
        below = side(s);
        out.push((s.x, below));
    }
    out
}

/// `c` over white at `share`.
fn light(c: RGBColor, share: f64) -> RGBColor {
    let f = |v: u8| (f64::from(v) * share + 255.0 * (1.0 - share)).round() as u8;
    RGBColor(f(c.0), f(c.1), f(c.2))
}

/// What one point draws: its exact lines (one, or a band's two edges), its band's
/// rectangles (from a step's value to the next, or to `right`), its runs' line.
struct Drawn {
    exact: Vec<Vec<(f64, f64)>>,
    band: Vec<((f64, f64), (f64, f64))>,
    runs: Vec<(f64, f64)>,
}

impl Drawn {
    /// Its lines run across the whole x axis, `x_axis`: at 0 from its left end, at their
    /// last value to its right end.
    fn new(p: &PointCdf, x_axis: &std::ops::Range<f64>) -> Drawn {
        let banded = p.ordered && !p.alike();
        let across = |mut line: Vec<(f64, f64)>| {
            if let Some(&(_, last)) = line.last() {
                line.insert(0, (x_axis.start, 0.0));
                line.push((x_axis.end, last));
            }
            line
        };
        let exact = if banded {
            vec![
                step_line(&p.steps, |s| s.least),
                step_line(&p.steps, |s| s.greatest),
            ]
        } else {
            vec![step_line(&p.steps, |s| s.least)]
        };
        let exact = exact.into_iter().map(across).collect();
        let right = x_axis.end;
        let band = if banded {
            (p.steps.iter().enumerate())
                .filter(|(_, s)| s.greatest > s.least)
                .map(|(i, s)| {
                    let to = p.steps.get(i + 1).map_or(right, |n| n.x);
                    ((s.x, s.least), (to, s.greatest))
                })
                .collect()
        } else {
            Vec::new()
        };
        Drawn {
            exact,
            band,
            runs: across(super::cdf::steps(&p.runs)),
        }
    }
}

/// The colour of point `i`'s runs' line, of `n` points: the next colour for one point, a
/// darker shade of its exact line's for several (each pair of one hue).
fn runs_color(i: usize, n: usize) -> RGBColor {
    if n == 1 {
        layout::color(1)
    } else {
        layout::dark(layout::color(i))
    }
}

/// The legend: per point its exact entry (a band's swatch where schedulers differ) and,
/// when it has runs, its runs' entry.
fn legend(data: &ExactCdf) -> Vec<Entry> {
    let [exact, alike, band, simulated] = &data.words;
    let mut entries = Vec::new();
    for (i, p) in data.points.iter().enumerate() {
        let named = |word: &str| match p.named.as_str() {
            "" => word.to_string(),
            named => format!("{word}, {named}"),
        };
        let color = layout::color(i);
        entries.push(match (p.ordered, p.alike()) {
            (true, false) => Entry {
                label: named(band),
                swatch: Swatch::Block(light(color, BAND_SHARE * 2.0)),
            },
            (ordered, _) => Entry {
                label: named(if ordered { alike } else { exact }),
                swatch: Swatch::Line {
                    color,
                    width: 3,
                    dashed: false,
                    marker: None,
                },
            },
        });
        if !p.runs.is_empty() {
            let runs = data.locale.number(&p.runs.len().to_string());
            entries.push(Entry {
                // One run is not "1 runs" (the English default; a label of the
                // config's own is left as written).
                label: named(
                    &if p.runs.len() == 1 {
                        simulated.replace("{runs} runs", "1 run")
                    } else {
                        simulated.to_string()
                    }
                    .replace("{runs}", &runs),
                ),
                swatch: Swatch::Line {
                    color: runs_color(i, data.points.len()),
                    width: 2,
                    dashed: true,
                    marker: None,
                },
            });
        }
    }
    entries
}

/// Draws an exact cdf.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ExactCdf,
    s: Scale,
) -> DrawResult<Placed>
where
    DB::ErrorType: 'static,
{
    let xs = (data.points.iter())
        .flat_map(|p| (p.steps.iter().map(|s| s.x)).chain(p.runs.iter().copied()));
    let x_axis = x_range(xs.filter(|x| super::base::drawable(*x)));
    let drawn: Vec<Drawn> = (data.points.iter())
        .map(|p| Drawn::new(p, &x_axis))
        .collect();
    let entries = legend(data);
    let body = titled(root, &data.title, s)?;
    let body = super::frame::noted(&body, &data.notes, s)?;
    let titles = axis_titles(&body, &data.x_label, &data.y_label, s);
    let obstacles = |chart: &super::base::Chart2d<'_, DB>| {
        let mut o = Obstacles::default();
        for d in &drawn {
            for line in d.exact.iter().chain(std::iter::once(&d.runs)) {
                let pts: Vec<(i32, i32)> = line.iter().map(|p| px(chart, *p)).collect();
                o.segments.extend(pts.windows(2).map(|w| (w[0], w[1])));
            }
            o.rects.extend(d.band.iter().map(|(a, b)| {
                let ((x0, y1), (x1, y0)) = (px(chart, *a), px(chart, *b));
                Rect { x0, y0, x1, y1 }
            }));
        }
        o
    };
    // Whole values (a count, a counter) get labels at whole numbers only.
    let whole = (data.points.iter())
        .flat_map(|p| (p.steps.iter().map(|s| s.x)).chain(p.runs.iter().copied()))
        .all(|x| x.fract() == 0.0);
    let (mut chart, legend) = super::cdf::probability_plot(
        &body,
        &data.look,
        &entries,
        s,
        x_axis,
        &obstacles,
        &titles,
        (data.locale, whole),
    )?;
    for (i, d) in drawn.iter().enumerate() {
        let fill = light(layout::color(i), BAND_SHARE);
        chart.draw_series((d.band.iter()).map(|(a, b)| Rectangle::new([*a, *b], fill.filled())))?;
    }
    for (i, d) in drawn.iter().enumerate() {
        let color = layout::color(i);
        let width = if d.exact.len() > 1 { 2 } else { 3 };
        for line in &d.exact {
            chart.draw_series(LineSeries::new(
                line.iter().copied(),
                color.stroke_width(s.px(width)),
            ))?;
        }
    }
    for (i, d) in drawn.iter().enumerate() {
        chart.draw_series(DashedLineSeries::new(
            d.runs.iter().copied(),
            s.px(10),
            s.px(6),
            runs_color(i, drawn.len()).stroke_width(s.px(2)),
        ))?;
    }
    super::frame::finish(root, &chart, legend, &entries, &data.look, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_line_rises_at_each_value_from_zero() {
        // P(≤ 9) = 0.04, P(≤ 19) = 0.2: up at 9 from 0, held, up at 19.
        let step = |x, p| ExactStep {
            x,
            least: p,
            greatest: p,
        };
        assert_eq!(
            step_line(&[step(9.0, 0.04), step(19.0, 0.2)], |s| s.least),
            vec![(9.0, 0.0), (9.0, 0.04), (19.0, 0.04), (19.0, 0.2)]
        );
    }
}
