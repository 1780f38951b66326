//! Charts as SVG and PNG, drawn with plotters and an embedded font (DejaVu Sans), so text
//! renders the same on a machine with no font libraries. One chart kind per file; `render`
//! turns plotters' SVG into the files (text as outlines, the PNG rasterized from the SVG).

mod bar;
mod base;
mod cdf;
mod curve;
mod data;
mod exact;
mod exact_data;
mod frame;
mod histogram;
pub(crate) mod layout;
mod levels;
mod line;
mod live;
mod render;
mod samples;
mod thin;
mod timeline;
mod timeline_data;
mod timelines;
mod trace;

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

use super::{Exporter, Run, write_atomic};
use crate::config::ChartKind;
use crate::config::charts::Look;

use layout::Scale;

use base::{DrawResult, FONT_BYTES};

/// A phone's rendering of a chart: its width in pixels, what a 375-pixel screen's page
/// has room for beside its margins (so it is shown at its size, not shrunk).
pub(crate) const NARROW_WIDTH: u32 = 340;

/// A phone's rendering's file: `NAME.narrow.svg` beside `NAME.svg` (an SVG only: the PNG
/// is for print and for pasting, at full size).
pub(crate) const NARROW_SUFFIX: &str = ".narrow.svg";

/// A phone's rendering's sizes: margins as at full size, fonts at 90% (a tick's 17 is 15)
/// and never below 15, which plotters draws as 12-pixel text: 11 pixels or more on the
/// screen, in a lesson's box too.
pub(crate) const NARROW: Scale = Scale {
    factor: 1.0,
    fonts: 0.9,
    min_font: 15,
};

/// Writes one SVG and one PNG per chart.
pub(crate) struct ChartExporter;

impl Exporter for ChartExporter {
    fn export(&self, run: &Run<'_>, dir: &Path) -> anyhow::Result<super::Written> {
        if run.config.charts.is_empty() {
            return Ok(super::Written::default());
        }
        // Every file goes into `dir` alone: the SVGs carry their text as outlines, so no
        // font file is shared beside them.
        let charts = prepare(run)?;
        for chart in &charts.files {
            chart.write(dir)?;
        }
        Ok(super::Written {
            charts: charts.files.len(),
            left_out: charts.left_out,
        })
    }
}

/// A chart ready to render: its file name and what it draws.
pub struct Prepared {
    /// File stem.
    pub name: String,
    /// What it draws (with its look: size, scale, legend).
    pub(crate) what: Drawing,
}

/// The data of one chart.
pub(crate) enum Drawing {
    /// Lines, bars or a cdf.
    Data(Box<ChartData>),
    /// A timeline.
    Timeline(Box<timeline_data::Timeline>),
    /// An explored execution, step by step.
    Trace(Box<trace::TraceChart>),
    /// A metric's exact distribution over executions, beside the runs'.
    Exact(Box<exact_data::ExactCdf>),
}

/// Every chart file a run writes, and the charts it leaves out.
pub struct Charts {
    /// The files, in order (a timeline over several points gives one per point).
    pub files: Vec<Prepared>,
    /// What was not drawn, each as `name (why)`, for the run's summary line.
    pub(crate) left_out: Vec<String>,
}

/// Every chart file a run writes, in order. A chart with nothing to draw is never written
/// as bare axes: a config's own `[[chart]]` is an error naming it and its empty columns; a
/// model's default chart is left out and named in `Charts::left_out`, as is any chart
/// that is empty in one shard of a sweep (`merge` draws the whole and judges it there).
/// An `exact_cdf` explores its points here; one that cannot be drawn (a bounded
/// exploration, an empty value) is an error at its `[[chart]]`, and one shard of a sweep
/// leaves it out for `merge`.
pub fn prepare(run: &Run<'_>) -> anyhow::Result<Charts> {
    let config = run.config;
    // A shard holds some of the points only.
    let partial = (run.results.results.rows.len() as u64) < config.runs();
    let mut charts = Charts {
        files: Vec::new(),
        left_out: Vec::new(),
    };
    for spec in &config.charts {
        let empty = if spec.kind == ChartKind::Timeline {
            let points = spec.timeline_points(config);
            let files = timelines::timelines(run, spec, &points);
            let rest = points.matched - points.drawn.len();
            if rest > 0 {
                charts.left_out.push(format!(
                    "{} for {rest} more points (a timeline draws the first {} its `where` keeps)",
                    spec.name,
                    crate::config::charts::MAX_TIMELINE_FILES
                ));
            }
            let empty = files.is_empty();
            charts
                .files
                .extend(files.into_iter().map(|(name, t)| Prepared {
                    name,
                    what: Drawing::Timeline(Box::new(t)),
                }));
            empty.then(|| "no lanes at any point it draws".to_string())
        } else if spec.kind == ChartKind::ExactCdf {
            if partial {
                // Its runs' curve needs every run of its points: `merge` draws it.
                charts.left_out.push(format!(
                    "{} (an exact_cdf in one shard: `merge` draws it from every run)",
                    spec.name
                ));
                continue;
            }
            match exact_data::ExactCdf::new(run, spec) {
                Ok(exact) => {
                    charts.files.push(Prepared {
                        name: spec.name.clone(),
                        what: Drawing::Exact(Box::new(exact)),
                    });
                    None
                }
                Err(why) => {
                    let at = spec.at.clone().unwrap_or(0..0);
                    let message = format!("the exact_cdf `{}` cannot be drawn: {why}", spec.name);
                    return Err(config.source.error(&at, message).into());
                }
            }
        } else {
            let data = ChartData::new(run, spec);
            let empty = data.empty(spec);
            if empty.is_none() {
                charts.files.push(Prepared {
                    name: spec.name.clone(),
                    what: Drawing::Data(Box::new(data)),
                });
            }
            empty
        };
        let Some(why) = empty else { continue };
        match &spec.at {
            _ if partial => charts
                .left_out
                .push(format!("{} ({why} in this shard)", spec.name)),
            Some(at) => {
                return Err(config
                    .source
                    .error(
                        at,
                        format!(
                            "the chart `{}` has nothing to draw: {why}; chart columns that have values there, or leave the chart out",
                            spec.name
                        ),
                    )
                    .into());
            }
            None => charts.left_out.push(format!("{} ({why})", spec.name)),
        }
    }
    Ok(charts)
}

/// Every line and bar chart of `run` that has something to draw (the ones its files are),
/// laid out again as its files were, with where each rendering draws each point.
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
        let colors = live::colors(&data, spec.kind);
        let prepared = Prepared {
            name: spec.name.clone(),
            what: Drawing::Data(Box::new(data)),
        };
        let (_, full) = prepared.svg_source()?;
        let (_, narrow, narrow_size) = prepared.narrow_drawn()?;
        let look = prepared.look();
        let full = live::Rendering {
            size: (look.width, look.height),
            points: full.points,
        };
        let narrow = live::Rendering {
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

impl Prepared {
    /// How it looks (one copy, the drawing's own).
    pub(crate) fn look(&self) -> &Look {
        match &self.what {
            Drawing::Data(d) => &d.look,
            Drawing::Timeline(t) => &t.look,
            Drawing::Trace(t) => &t.look,
            Drawing::Exact(e) => &e.look,
        }
    }

    /// The same, to change before drawing (tests hide the legend box).
    pub fn look_mut(&mut self) -> &mut Look {
        match &mut self.what {
            Drawing::Data(d) => &mut d.look,
            Drawing::Timeline(t) => &mut t.look,
            Drawing::Trace(t) => &mut t.look,
            Drawing::Exact(e) => &mut e.look,
        }
    }

    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        s: Scale,
    ) -> DrawResult<Placed>
    where
        DB::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let placed = match &self.what {
            Drawing::Data(data) => match data.kind {
                ChartKind::Line => line::draw(area, data, s)?,
                ChartKind::Bar => bar::draw(area, data, s)?,
                ChartKind::Cdf | ChartKind::RunsCdf => cdf::draw(area, data, s)?,
                ChartKind::Histogram => histogram::draw(area, data, s)?,
                ChartKind::Timeline => return Err("a timeline is drawn from lanes".into()),
                ChartKind::ExactCdf => return Err("an exact cdf is drawn from explorations".into()),
            },
            Drawing::Timeline(t) => timeline::draw(area, t, s)?,
            Drawing::Trace(t) => trace::draw(area, t, s)?,
            Drawing::Exact(e) => exact::draw(area, e, s)?,
        };
        area.present()?;
        Ok(placed)
    }

    /// The chart's title (what the SVG file's `<title>` says).
    pub fn title(&self) -> &str {
        match &self.what {
            Drawing::Data(d) => &d.title,
            Drawing::Timeline(t) => &t.title,
            Drawing::Trace(t) => &t.title,
            Drawing::Exact(e) => &e.title,
        }
    }

    /// The SVG plotters draws, text still as `<text>` in DejaVu Sans, and the layout it has:
    /// readable (the snapshot tests read it), and what the file is made from.
    pub fn svg_source(&self) -> anyhow::Result<(String, Placed)> {
        register_embedded_font()?;
        let mut svg = String::new();
        let placed = {
            let area = SVGBackend::with_string(&mut svg, (self.look().width, self.look().height))
                .into_drawing_area();
            self.draw(&area, Scale::FULL)
                .map_err(|e| anyhow::anyhow!("chart {}: {e}", self.name))?
        };
        Ok((render::xml_safe(svg), placed))
    }

    /// The chart laid out again for a phone's screen, as an SVG file: `NARROW_WIDTH`
    /// pixels wide, in portrait (a step chart at its own size), with `NARROW`'s fonts, so that shown on a 375-pixel
    /// screen its smallest text is still 11 pixels (the site picks it on narrow screens;
    /// see docs/config.md).
    pub fn narrow_svg(&self) -> anyhow::Result<String> {
        let svg = self.narrow_svg_source()?;
        render::self_contained(&svg, self.title())
            .map_err(|e| anyhow::anyhow!("chart {}: {e}", self.name))
    }

    /// [`Prepared::narrow_svg`] with its text still as `<text>`, as
    /// [`Prepared::svg_source`] is: what the file is made from, and what tests read.
    pub fn narrow_svg_source(&self) -> anyhow::Result<String> {
        Ok(self.narrow_drawn()?.0)
    }

    /// The phone rendering's source, the layout it has and its size in pixels.
    fn narrow_drawn(&self) -> anyhow::Result<(String, Placed, (u32, u32))> {
        register_embedded_font()?;
        let look = self.look();
        // Portrait, as a phone holds it: the legend goes under the plot, which keeps about
        // the height it has at full size; a tall chart (a timeline of many lanes) keeps
        // its proportions. A step chart keeps its size instead, a column per step: it is
        // read scrolling sideways, and squeezed into a phone's width its boxes would say
        // nothing but "…".
        let (width, height) = match &self.what {
            Drawing::Trace(_) => (look.width, look.height),
            what => {
                let height =
                    f64::from(NARROW_WIDTH) * f64::from(look.height) / f64::from(look.width);
                let height = height.max(f64::from(NARROW_WIDTH) * 1.5) as u32;
                // A timeline's lanes keep their room above the legend under them.
                let height = match what {
                    Drawing::Timeline(t) => height.max(timeline::narrow_height(t, NARROW)),
                    _ => height,
                };
                (NARROW_WIDTH, height)
            }
        };
        let mut svg = String::new();
        let placed = {
            let area = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
            self.draw(&area, NARROW)
                .map_err(|e| anyhow::anyhow!("chart {}: {e}", self.name))?
        };
        Ok((render::xml_safe(svg), placed, (width, height)))
    }

    /// The SVG file and the layout it has: [`Prepared::svg_source`] with its text turned
    /// into outlines, so it needs no font and refers to nothing outside itself.
    pub fn svg(&self) -> anyhow::Result<(String, Placed)> {
        let (source, placed) = self.svg_source()?;
        let svg = render::self_contained(&source, self.title())
            .map_err(|e| anyhow::anyhow!("chart {}: {e}", self.name))?;
        Ok((svg, placed))
    }

    /// The PNG file's bytes: the SVG file rasterized at the chart's `scale` (no file is
    /// opened).
    pub(crate) fn png(&self) -> anyhow::Result<Vec<u8>> {
        let (svg, _) = self.svg()?;
        self.png_of(&svg)
    }

    fn png_of(&self, svg: &str) -> anyhow::Result<Vec<u8>> {
        render::pixmap(svg, self.look().scale)
            .and_then(|p| render::png(&p))
            .map_err(|e| anyhow::anyhow!("chart {}: {e}", self.name))
    }

    /// The PNG's pixels (RGB rows, top first), its size and the layout it has, in PNG
    /// pixels (the legend box scaled by `scale`, covering every pixel it touches).
    pub fn rgb(&self) -> anyhow::Result<(Vec<u8>, (u32, u32), Placed)> {
        let (svg, placed) = self.svg()?;
        let s = self.look().scale;
        let pixmap =
            render::pixmap(&svg, s).map_err(|e| anyhow::anyhow!("chart {}: {e}", self.name))?;
        let scaled = |v: i32, end: bool| {
            let v = f64::from(v + i32::from(end)) * s;
            (if end { v.ceil() - 1.0 } else { v.floor() }) as i32
        };
        let placed = Placed {
            legend: placed.legend.map(|r| Rect {
                x0: scaled(r.x0, false),
                y0: scaled(r.y0, false),
                x1: scaled(r.x1, true),
                y1: scaled(r.y1, true),
            }),
            points: Vec::new(),
        };
        Ok((
            render::rgb(&pixmap),
            (pixmap.width(), pixmap.height()),
            placed,
        ))
    }

    /// Its data as CSV, for a chart that writes its data beside it (an exact cdf's steps;
    /// `None` for the other kinds).
    pub fn data_csv(&self) -> anyhow::Result<Option<Vec<u8>>> {
        match &self.what {
            Drawing::Exact(e) => e.csv().map(Some),
            _ => Ok(None),
        }
    }

    /// Writes `name.svg` and `name.png` into `dir`: the PNG rasterized from the SVG bytes
    /// written; and `name.csv` for a chart with its data beside it ([`Prepared::data_csv`]).
    pub(crate) fn write(&self, dir: &Path) -> anyhow::Result<()> {
        if let Some(csv) = self.data_csv()? {
            write_atomic(&dir.join(format!("{}.csv", self.name)), &csv)?;
        }
        let (svg, _) = self.svg()?;
        write_atomic(&dir.join(format!("{}.svg", self.name)), svg.as_bytes())?;
        write_atomic(&dir.join(format!("{}.png", self.name)), &self.png_of(&svg)?)?;
        let narrow = self.narrow_svg()?;
        write_atomic(
            &dir.join(format!("{}{NARROW_SUFFIX}", self.name)),
            narrow.as_bytes(),
        )
    }
}

fn register_embedded_font() -> anyhow::Result<()> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = register_font(FONT, FontStyle::Normal, FONT_BYTES)
            .map_err(|_| anyhow::anyhow!("the embedded chart font did not load"));
    });
    result
}

pub(crate) use base::FONT;
pub use data::{ChartData, Series};
pub(crate) use frame::tick;
pub use layout::{Placed, Rect};
pub(crate) use live::Live;
pub(crate) use trace::TraceChart;

#[cfg(test)]
mod tests {
    use super::base::{drawable, sane_axis};
    use super::timelines::fit_budget;
    use super::*;
    use crate::locale::Locale;

    #[test]
    fn every_axis_plotters_gets_is_finite_with_a_span() {
        // 1.79e308 plus 4% headroom is infinite; plotters' tick search never ends on it.
        let hi = 1.79e308;
        assert_eq!(sane_axis(0.0..hi + hi * 0.04), 0.0..1.0);
        assert_eq!(sane_axis(-f64::MAX..f64::MAX), 0.0..1.0);
        assert_eq!(sane_axis(f64::NAN..1.0), 0.0..1.0);
        assert_eq!(sane_axis(2.0..2.0), 0.0..1.0);
        // A span of 1e5 at 1e20 (ulp 16,384) is widened by a billionth of the size, 1e11,
        // on each side.
        let r = sane_axis(1e20..1e20 + 1e5);
        assert_eq!((r.start, r.end), (1e20 - 1e11, 1e20 + 1e5 + 1e11));
        assert_eq!(sane_axis(0.0..250.0), 0.0..250.0);
        // What is drawn at all: values past 1e300 are left out like infinite ones.
        assert!(drawable(1e300) && !drawable(1.0001e300) && !drawable(f64::INFINITY));
    }

    #[test]
    fn huge_ticks_read_as_powers_of_ten() {
        assert_eq!(tick(5e299, Locale::En), "5e299");
        assert_eq!(tick(1.5e15, Locale::Tr), "1,5e15");
        assert_eq!(tick(2500.0, Locale::En), "2,500");
    }

    #[test]
    fn a_timeline_over_budget_thins_every_lane_alike_to_fit() {
        // 10 lanes of 300 marks of one kind: 3,000 items. A budget of 1,000 allows 100 a
        // lane: the first 50 (half of it) kept as given, the other 250 halved to 125 (175
        // kept), 63 (113), 32 (82 ≤ 100, stride 8): 820 items in all.
        let mut lanes: Vec<coordsim_model::Lane> = (0..10)
            .map(|i| {
                let mut l = coordsim_model::Lane::new(i.to_string());
                l.mark_series("tick", 0.0, 1.0, 300);
                l
            })
            .collect();
        fit_budget(&mut lanes, 1000);
        assert!(lanes.iter().all(|l| l.marks().len() == 82));
        // Within budget, nothing changes.
        let before = lanes.clone();
        fit_budget(&mut lanes, 1000);
        assert_eq!(lanes, before);
    }

    #[test]
    fn the_time_axis_shows_an_instant_and_a_margin_before_it() {
        // All at 0: at least 1 ms wide, and 3% of it before 0.
        let r = timeline::time_axis(0.0, 0.0);
        assert_eq!((r.start, r.end), (-0.03, 1.0));
        // 0 … 500: 15 before, 40 after (a span that never ends runs into it).
        let r = timeline::time_axis(0.0, 500.0);
        assert_eq!((r.start, r.end), (-15.0, 540.0));
    }
}
