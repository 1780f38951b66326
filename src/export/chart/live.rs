//! Where a line or bar chart draws each of its points, at full size and in its phone
//! rendering, with the data it draws: what the site embeds in a config's page so that a
//! point under the pointer or the keyboard's focus shows its values (`src/site/live.rs`).
//! The charts are laid out again exactly as their files were (the same data, the same
//! layout code); their text is not turned into outlines and nothing is rasterized.

use super::{ChartData, Drawing, Prepared};
use crate::config::ChartKind;
use crate::export::Run;

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

/// Every line and bar chart of `run` that has something to draw (the ones its files are).
pub(crate) fn live(run: &Run<'_>) -> anyhow::Result<Vec<Live>> {
    let mut out = Vec::new();
    for spec in &run.config.charts {
        if spec.distribution || !matches!(spec.kind, ChartKind::Line | ChartKind::Bar) {
            continue;
        }
        let data = ChartData::new(run, spec);
        if data.empty(spec).is_some() {
            continue;
        }
        let colors = (0..data.series.len())
            .map(|i| {
                let c = match spec.kind {
                    ChartKind::Bar => super::layout::color(i),
                    _ => super::layout::series_color(i, data.series[i].color),
                };
                format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
            })
            .collect();
        let prepared = Prepared {
            name: spec.name.clone(),
            what: Drawing::Data(Box::new(data)),
        };
        let (_, full) = prepared.svg_source()?;
        let (_, narrow, narrow_size) = prepared.narrow_drawn()?;
        let look = prepared.look();
        let full = Rendering {
            size: (look.width, look.height),
            points: full.points,
        };
        let narrow = Rendering {
            size: narrow_size,
            points: narrow.points,
        };
        let Drawing::Data(data) = prepared.what else {
            continue;
        };
        out.push(Live {
            name: spec.name.clone(),
            data,
            full,
            narrow,
            colors,
        });
    }
    Ok(out)
}
