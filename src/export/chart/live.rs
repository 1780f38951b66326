//! Where a line or bar chart draws each of its points, at full size and in its phone
//! rendering, with the data it draws: what the site embeds in a config's page so that a
//! point under the pointer or the keyboard's focus shows its values (`src/site/live.rs`).
//! The charts are laid out again exactly as their files were (the same data, the same
//! layout code); their text is not turned into outlines and nothing is rasterized.

use super::data::ChartData;
use crate::config::ChartKind;

/// One rendering of a chart: its size and where each point of each series is drawn.
pub(crate) struct Rendering {
    /// Width and height in the SVG's pixels (its `width` and `height`).
    pub(crate) size: (u32, u32),
    /// [`super::Placed::points`]: by series, then by point (`None`: not drawn).
    pub(crate) points: Vec<Vec<Option<(i32, i32)>>>,
}

/// A line or bar chart's data and where its two renderings draw its points.
pub(crate) struct Live {
    /// The chart's file stem (`NAME.svg`).
    pub(crate) name: String,
    /// What it draws.
    pub(crate) data: Box<ChartData>,
    /// `NAME.svg` (and the PNG, the same layout scaled).
    pub(crate) full: Rendering,
    /// `NAME.narrow.svg`.
    pub(crate) narrow: Rendering,
    /// Each series' colour as drawn, `#rrggbb`.
    pub(crate) colors: Vec<String>,
}

/// Each series' colour as the chart draws it, `#rrggbb`.
pub(super) fn colors(data: &ChartData, kind: ChartKind) -> Vec<String> {
    (data.series.iter().enumerate())
        .map(|(i, se)| {
            let c = match kind {
                ChartKind::Bar => super::layout::color(i),
                _ => super::layout::series_color(i, se.color),
            };
            format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
        })
        .collect()
}
