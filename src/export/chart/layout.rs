//! What every chart kind shares: the palette, fitted titles, and a legend placed where it
//! covers no data.
//!
//! The legend is drawn here, not by plotters, so its box is known before anything is drawn:
//! `best` tries the plot's corners and edges against every point, segment and bar of the
//! chart (in pixels), raises the y axis for room when none is free, and goes outside the
//! plot when even that fails.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::base::{DrawResult, FONT};
use crate::config::charts::LegendPlace;

/// Where a chart's legend went (for tests of the layout), and where its points are.
#[derive(Debug, Clone, Default)]
pub struct Placed {
    /// The legend box inside the plot (`None`: outside, or no legend).
    pub legend: Option<Rect>,
    /// Where a line or bar chart draws each point of each series, in the SVG's pixels, in
    /// the order of `Series::points` (a marker's centre, a bar's top middle; `None`: a
    /// point not drawn). The site's live charts find the point under the pointer with it.
    pub points: Vec<Vec<Option<(i32, i32)>>>,
}

/// Colours of the series, in order: Okabe–Ito's colour-blind-safe set without its yellow
/// (too pale on white), then four of Paul Tol's muted colours: eleven before one repeats.
pub(crate) const PALETTE: [RGBColor; 11] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(136, 34, 85),
    RGBColor(68, 170, 153),
    RGBColor(153, 153, 51),
    RGBColor(117, 112, 179),
];

/// The colour of series `i`.
pub(crate) fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A darker shade of `c`: a theory line drawn over the data it is theory for stays visible.
pub(crate) fn dark(c: RGBColor) -> RGBColor {
    let f = |v: u8| (f64::from(v) * 0.5).round() as u8;
    RGBColor(f(c.0), f(c.1), f(c.2))
}

/// The colour of a series: its own palette place, or, for a theory line that follows some
/// data, a darker shade of that data's colour.
pub(crate) fn series_color(i: usize, follows: Option<usize>) -> RGBColor {
    match follows {
        Some(j) => dark(color(j)),
        None => color(i),
    }
}

/// A point marker's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    /// A filled circle.
    Circle,
    /// A filled triangle.
    Triangle,
    /// A filled square.
    Square,
    /// A filled diamond.
    Diamond,
    /// A cross.
    Cross,
}

/// The marker of series `i` (a cycle of five, so series of one colour differ in shape).
pub(crate) fn marker(i: usize) -> Marker {
    const MARKERS: [Marker; 5] = [
        Marker::Circle,
        Marker::Triangle,
        Marker::Square,
        Marker::Diamond,
        Marker::Cross,
    ];
    MARKERS[i % MARKERS.len()]
}

/// Whether series `i`'s line is dashed: the second round of the palette draws dashed lines,
/// so twenty-two series stay apart by colour and dash.
pub(crate) fn dashed(i: usize) -> bool {
    (i / PALETTE.len()) % 2 == 1
}

/// Sizes in chart pixels, multiplied out for the backend; fonts by a factor of their own,
/// never below a floor (a phone's rendering draws smaller text that stays readable).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scale {
    /// Backend pixels per chart pixel.
    pub(crate) factor: f64,
    /// Font sizes' own factor (1: as at full size).
    pub(crate) fonts: f64,
    /// The smallest font, in backend pixels.
    pub(crate) min_font: u32,
}

impl Scale {
    /// A chart at its own size.
    pub(crate) const FULL: Scale = Scale {
        factor: 1.0,
        fonts: 1.0,
        min_font: 1,
    };

    /// `n` chart pixels in backend pixels.
    pub(crate) fn px(self, n: u32) -> u32 {
        ((n as f64) * self.factor).round().max(1.0) as u32
    }

    /// The same as a signed offset.
    pub(crate) fn off(self, n: i32) -> i32 {
        ((n as f64) * self.factor).round() as i32
    }

    /// A font of `n` chart pixels, in backend pixels.
    pub(crate) fn font(self, n: u32) -> u32 {
        ((n as f64) * self.factor * self.fonts)
            .round()
            .max(f64::from(self.min_font))
            .max(1.0) as u32
    }

    /// Whether this is a phone's rendering (fonts smaller than at full size): its axes
    /// get fewer ticks, as many as the plot's width has room for.
    pub(crate) fn narrow(self) -> bool {
        self.fonts < 1.0
    }
}

/// A thick solid line through backend points: each segment a filled quadrilateral, each
/// joint a filled disc. Drawn this way, a flat line stays flat to its last pixel in the PNG
/// too (a plotters stroke of width > 1 sags at the ends), and both backends draw the same.
pub(crate) fn thick_line<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: &[(i32, i32)],
    color: RGBColor,
    width: u32,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    // Half a pixel more: a narrow steep quadrilateral rasterizes thinner than it is.
    let half = f64::from(width) / 2.0 + 0.5;
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
        let len = (dx * dx + dy * dy).sqrt();
        if len == 0.0 {
            continue;
        }
        let (nx, ny) = (-dy / len * half, dx / len * half);
        let p = |x: i32, y: i32, s: f64| {
            (
                (f64::from(x) + s * nx).round() as i32,
                (f64::from(y) + s * ny).round() as i32,
            )
        };
        area.draw(&Polygon::new(
            vec![
                p(a.0, a.1, 1.0),
                p(b.0, b.1, 1.0),
                p(b.0, b.1, -1.0),
                p(a.0, a.1, -1.0),
            ],
            color.filled(),
        ))?;
    }
    // The inner joints (none for fewer than three points).
    if width > 2 && points.len() > 2 {
        for &q in &points[1..points.len() - 1] {
            area.draw(&Circle::new(
                q,
                (half.round() as i32 - 1).max(1),
                color.filled(),
            ))?;
        }
    }
    Ok(())
}

/// Draws a marker of `size` pixels at backend point `at`.
pub(crate) fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    shape: Marker,
    at: (i32, i32),
    size: i32,
    color: RGBColor,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (x, y) = at;
    match shape {
        Marker::Circle => area.draw(&Circle::new(at, size, color.filled()))?,
        Marker::Triangle => area.draw(&Polygon::new(
            vec![
                (x, y - size),
                (x - size, y + size * 3 / 4),
                (x + size, y + size * 3 / 4),
            ],
            color.filled(),
        ))?,
        Marker::Square => area.draw(&Rectangle::new(
            [
                (x - size * 4 / 5, y - size * 4 / 5),
                (x + size * 4 / 5, y + size * 4 / 5),
            ],
            color.filled(),
        ))?,
        Marker::Diamond => area.draw(&Polygon::new(
            vec![(x, y - size), (x + size, y), (x, y + size), (x - size, y)],
            color.filled(),
        ))?,
        Marker::Cross => {
            let w = (size / 3).max(2) as u32;
            area.draw(&PathElement::new(
                vec![(x - size, y - size), (x + size, y + size)],
                color.stroke_width(w),
            ))?;
            area.draw(&PathElement::new(
                vec![(x - size, y + size), (x + size, y - size)],
                color.stroke_width(w),
            ))?;
        }
    }
    Ok(())
}

/// How a legend entry is drawn.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Swatch {
    /// A line (solid or dashed), with a marker in its middle or not.
    Line {
        /// Colour.
        color: RGBColor,
        /// Stroke width in chart pixels.
        width: u32,
        /// Dashed.
        dashed: bool,
        /// A marker.
        marker: Option<Marker>,
    },
    /// A filled box (a bar, a span).
    Block(RGBColor),
    /// A thin filled box (a waiting span).
    ThinBlock(RGBColor),
    /// A short vertical stroke.
    Tick(RGBColor),
    /// A vertical error bar.
    ErrorBar(RGBColor),
    /// A marker alone.
    Mark(Marker, RGBColor),
}

/// One legend line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// The text.
    pub(crate) label: String,
    /// Its swatch.
    pub(crate) swatch: Swatch,
}

/// A rectangle in backend pixels: left, top, right, bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    /// Left.
    pub x0: i32,
    /// Top.
    pub y0: i32,
    /// Right.
    pub x1: i32,
    /// Bottom.
    pub y1: i32,
}

impl Rect {
    /// Whether the point lies inside (edges included).
    pub(crate) fn contains(&self, (x, y): (i32, i32)) -> bool {
        x >= self.x0 && x <= self.x1 && y >= self.y0 && y <= self.y1
    }

    /// Whether the two rectangles overlap.
    pub(crate) fn overlaps(&self, o: &Rect) -> bool {
        self.x0 <= o.x1 && o.x0 <= self.x1 && self.y0 <= o.y1 && o.y0 <= self.y1
    }

    /// Whether the segment from `a` to `b` crosses the rectangle (Liang–Barsky clipping).
    pub(crate) fn meets_segment(&self, a: (f64, f64), b: (f64, f64)) -> bool {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [
            (-dx, a.0 - self.x0 as f64),
            (dx, self.x1 as f64 - a.0),
            (-dy, a.1 - self.y0 as f64),
            (dy, self.y1 as f64 - a.1),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

/// What the legend must not cover, in backend pixels.
#[derive(Debug, Clone, Default)]
pub(crate) struct Obstacles {
    /// Points (markers): each a small square around the point.
    pub(crate) points: Vec<(i32, i32)>,
    /// Line segments.
    pub(crate) segments: Vec<((i32, i32), (i32, i32))>,
    /// Bars and spans.
    pub(crate) rects: Vec<Rect>,
}

impl Obstacles {
    /// Whether `r` covers none of them (points count with a margin for their marker).
    pub(crate) fn free(&self, r: &Rect, marker_px: i32) -> bool {
        let pad = Rect {
            x0: r.x0 - marker_px,
            y0: r.y0 - marker_px,
            x1: r.x1 + marker_px,
            y1: r.y1 + marker_px,
        };
        let f = |p: (i32, i32)| (p.0 as f64, p.1 as f64);
        !self.points.iter().any(|p| pad.contains(*p))
            && !self
                .segments
                .iter()
                .any(|(a, b)| r.meets_segment(f(*a), f(*b)))
            && !self.rects.iter().any(|o| r.overlaps(o))
    }
}

/// The legend's font size in chart pixels.
pub(crate) const LEGEND_FONT: u32 = 17;

/// The size of a legend box of these entries, in backend pixels.
pub(crate) fn legend_size<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
    s: Scale,
) -> (i32, i32) {
    let font = (FONT, s.font(LEGEND_FONT)).into_text_style(area);
    let widest = entries
        .iter()
        .map(|e| {
            area.estimate_text_size(&e.label, &font)
                .map_or(0, |(w, _)| w)
        })
        .max()
        .unwrap_or(0) as i32;
    let line = s.font(LEGEND_FONT) as i32 + s.off(9);
    (
        s.off(14 + 34 + 8) + widest,
        s.off(12) + line * entries.len() as i32,
    )
}

/// Where a legend of `size` goes inside `plot` (backend pixels), or `None` when `place`
/// asks for a spot that is not free (`best`) — the caller then makes room.
pub(crate) fn place(
    plot: Rect,
    size: (i32, i32),
    place: LegendPlace,
    obstacles: &Obstacles,
    s: Scale,
) -> Option<Rect> {
    let m = s.off(10);
    let (w, h) = size;
    let at = |x: i32, y: i32| Rect {
        x0: x,
        y0: y,
        x1: x + w,
        y1: y + h,
    };
    let left = plot.x0 + m;
    let right = plot.x1 - m - w;
    let top = plot.y0 + m;
    let bottom = plot.y1 - m - h;
    let mid_x = (plot.x0 + plot.x1 - w) / 2;
    let mid_y = (plot.y0 + plot.y1 - h) / 2;
    if w + 2 * m > plot.x1 - plot.x0 || h + 2 * m > plot.y1 - plot.y0 {
        return None;
    }
    match place {
        LegendPlace::UpperLeft => Some(at(left, top)),
        LegendPlace::UpperRight => Some(at(right, top)),
        LegendPlace::LowerLeft => Some(at(left, bottom)),
        LegendPlace::LowerRight => Some(at(right, bottom)),
        LegendPlace::Best => [
            at(left, top),
            at(right, top),
            at(mid_x, top),
            at(left, bottom),
            at(right, bottom),
            at(mid_x, bottom),
            at(left, mid_y),
            at(right, mid_y),
        ]
        .into_iter()
        .find(|r| obstacles.free(r, s.off(9))),
        LegendPlace::Outside | LegendPlace::None => None,
    }
}

/// Draws the legend box at `r` on `area` (backend pixels of the whole image).
pub(crate) fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    r: Rect,
    entries: &[Entry],
    s: Scale,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    area.draw(&Rectangle::new(
        [(r.x0, r.y0), (r.x1, r.y1)],
        WHITE.mix(0.92).filled(),
    ))?;
    area.draw(&Rectangle::new(
        [(r.x0, r.y0), (r.x1, r.y1)],
        RGBColor(160, 160, 160).stroke_width(1),
    ))?;
    let font = (FONT, s.font(LEGEND_FONT)).into_font().color(&BLACK);
    let line = s.font(LEGEND_FONT) as i32 + s.off(9);
    for (k, e) in entries.iter().enumerate() {
        let cy = r.y0 + s.off(6) + line * k as i32 + line / 2;
        let x = r.x0 + s.off(12);
        let sw = s.off(34);
        match e.swatch {
            Swatch::Line {
                color,
                width,
                dashed,
                marker,
            } => {
                let stroke = color.stroke_width(s.px(width));
                if dashed {
                    let dash = s.off(8);
                    let mut x0 = x;
                    while x0 < x + sw {
                        let x1 = (x0 + dash).min(x + sw);
                        area.draw(&PathElement::new(vec![(x0, cy), (x1, cy)], stroke))?;
                        x0 += dash + s.off(5);
                    }
                } else {
                    area.draw(&PathElement::new(vec![(x, cy), (x + sw, cy)], stroke))?;
                }
                if let Some(m) = marker {
                    draw_marker(area, m, (x + sw / 2, cy), s.off(6), color)?;
                }
            }
            Swatch::Block(color) => area.draw(&Rectangle::new(
                [
                    (x + s.off(4), cy - s.off(7)),
                    (x + sw - s.off(4), cy + s.off(7)),
                ],
                color.filled(),
            ))?,
            Swatch::ThinBlock(color) => area.draw(&Rectangle::new(
                [
                    (x + s.off(4), cy - s.off(4)),
                    (x + sw - s.off(4), cy + s.off(4)),
                ],
                color.filled(),
            ))?,
            Swatch::Tick(color) => area.draw(&PathElement::new(
                vec![(x + sw / 2, cy - s.off(8)), (x + sw / 2, cy + s.off(8))],
                color.stroke_width(s.px(2)),
            ))?,
            Swatch::ErrorBar(color) => {
                let (cx, d, c) = (x + sw / 2, s.off(8), s.off(5));
                let st = color.stroke_width(s.px(2));
                area.draw(&PathElement::new(vec![(cx, cy - d), (cx, cy + d)], st))?;
                area.draw(&PathElement::new(
                    vec![(cx - c, cy - d), (cx + c, cy - d)],
                    st,
                ))?;
                area.draw(&PathElement::new(
                    vec![(cx - c, cy + d), (cx + c, cy + d)],
                    st,
                ))?;
            }
            Swatch::Mark(m, color) => draw_marker(area, m, (x + sw / 2, cy), s.off(7), color)?,
        }
        area.draw_text(
            &clean(&e.label),
            &font.clone().pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Center,
            )),
            (x + sw + s.off(8), cy),
        )?;
    }
    Ok(())
}

/// Text as one line a chart can draw: control characters become spaces (they are invalid
/// in SVG and would reach a terminal as escape codes).
pub(crate) fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `text` broken at spaces into lines no wider than `width` at font `size`, shrinking the
/// font (down to `min`) when more than `max_lines` lines would be needed; a word wider than
/// a line at the smallest size is cut with an ellipsis. Returns the lines and the size.
pub(crate) fn fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    width: u32,
    size: u32,
    min: u32,
    max_lines: usize,
) -> (Vec<String>, u32) {
    let text = clean(text);
    let measure = |t: &str, size: u32| {
        let font = (FONT, size).into_text_style(area);
        area.estimate_text_size(t, &font).map_or(0, |(w, _)| w)
    };
    let wrap = |size: u32| -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        let mut current = String::new();
        // A no-break space holds its words together (`tutma = 200`).
        for word in text
            .split(|c: char| c.is_whitespace() && c != '\u{a0}')
            .filter(|w| !w.is_empty())
        {
            let candidate = if current.is_empty() {
                word.to_string()
            } else {
                format!("{current} {word}")
            };
            if current.is_empty() || measure(&candidate, size) <= width {
                current = candidate;
            } else {
                lines.push(std::mem::replace(&mut current, word.to_string()));
            }
        }
        if !current.is_empty() {
            lines.push(current);
        }
        lines
    };
    let mut size = size.max(min);
    loop {
        let lines = wrap(size);
        let fits = lines.len() <= max_lines && lines.iter().all(|l| measure(l, size) <= width);
        if fits || size <= min {
            let mut lines = lines;
            let cut = lines.len() > max_lines.max(1);
            lines.truncate(max_lines.max(1));
            if cut && let Some(last) = lines.last_mut() {
                // Lines left out: the last one kept says so, as a line cut short does.
                last.push('…');
            }
            for line in &mut lines {
                while measure(line, size) > width && line.chars().count() > 1 {
                    line.pop();
                    while line.ends_with('…') {
                        line.pop();
                    }
                    line.pop();
                    line.push('…');
                }
            }
            return (lines, size);
        }
        size -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_through_a_box_meets_it_and_one_beside_it_does_not() {
        let r = Rect {
            x0: 10,
            y0: 10,
            x1: 20,
            y1: 20,
        };
        assert!(r.meets_segment((0.0, 15.0), (30.0, 15.0)));
        assert!(r.meets_segment((15.0, 15.0), (15.0, 16.0)));
        assert!(!r.meets_segment((0.0, 0.0), (30.0, 5.0)));
        assert!(!r.meets_segment((0.0, 25.0), (30.0, 25.0)));
        // A diagonal passing the corner outside.
        assert!(!r.meets_segment((0.0, 9.0), (9.0, 0.0)));
    }

    #[test]
    fn the_palette_has_eleven_distinct_colours_and_markers_cycle() {
        let mut colours: Vec<_> = PALETTE.iter().map(|c| (c.0, c.1, c.2)).collect();
        colours.sort_unstable();
        colours.dedup();
        assert_eq!(colours.len(), 11);
        assert_ne!(marker(0), marker(1));
        assert_eq!(marker(0), marker(5));
        assert!(!dashed(10) && dashed(11));
    }

    #[test]
    fn a_thick_line_of_no_point_or_one_draws_nothing_and_never_panics() {
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (50, 50)).into_drawing_area();
            for points in [&[][..], &[(5, 5)], &[(5, 5), (20, 20)]] {
                thick_line(&area, points, BLACK, 3).unwrap();
            }
        }
        // Only the two-point line is drawn: one quadrilateral, no joint between.
        assert_eq!(svg.matches("<polygon").count(), 1, "{svg}");
        assert_eq!(svg.matches("<circle").count(), 0, "{svg}");
    }

    #[test]
    fn control_characters_never_reach_a_chart() {
        assert_eq!(clean("a\u{1b}[31mb\nc"), "a [31mb c");
    }
}
