//! What every chart file shares at the bottom: the embedded font, the drawing result, the
//! plotting context, and the bound on drawable values.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// The font family charts use: registered from the embedded file for plotters' text
/// measurements, and the only font the SVG-to-outlines step knows.
pub(crate) const FONT: &str = "DejaVu Sans";

/// DejaVu Sans (Bitstream Vera licence, see assets/fonts): covers Turkish and Greek letters.
pub(super) static FONT_BYTES: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

pub(super) type DrawResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The largest size of a value a chart places (1e300): beyond it, the headroom above the
/// data and the span of an axis would overflow to infinity, whose ticks plotters cannot
/// count. Such a value is left out like an infinite one.
pub(crate) const MAX_DRAWN: f64 = 1e300;

/// Whether a value can be placed on an axis: finite and at most [`MAX_DRAWN`] in size.
pub(crate) fn drawable(v: f64) -> bool {
    v.is_finite() && v.abs() <= MAX_DRAWN
}

/// An axis range plotters can divide into ticks: finite ends and a finite, positive span
/// (`0..1` for anything else). Every chart kind's axes pass through here, so no value,
/// however it was computed, can make the tick search loop forever.
pub(crate) fn sane_axis(r: std::ops::Range<f64>) -> std::ops::Range<f64> {
    let (lo, hi) = (r.start, r.end);
    if !(lo.is_finite() && hi.is_finite() && (hi - lo).is_finite() && hi > lo) {
        return 0.0..1.0;
    }
    // A span below the ends' precision has no ticks between them: widen it.
    let floor = lo.abs().max(hi.abs()) * 1e-9;
    if hi - lo < floor {
        return lo - floor..hi + floor;
    }
    lo..hi
}

/// The plotting context every chart kind draws on.
pub(crate) type Chart2d<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;
