//! What a timeline draws, as the run's lanes became it: the lanes (the resources' first),
//! their bands, the legend texts and notes in the config's locale. Built by `timelines`,
//! drawn by `timeline` and `levels`.

use coordsim_model::{Lane, TimelineStyle};

use crate::config::charts::Look;
use crate::locale::Locale;

/// What a timeline draws.
#[derive(Debug, Clone)]
pub(crate) struct Timeline {
    /// Title.
    pub(crate) title: String,
    /// Lanes, top to bottom (names already labelled): the resources' first.
    pub(crate) lanes: Vec<Lane>,
    /// How many of `lanes` are resources' (a rule under them parts them from the actors').
    pub(crate) resource_lanes: usize,
    /// Per lane, the items past its first ones (a chart's `first_items`), drawn as a
    /// density band instead.
    pub(crate) bands: Vec<Option<Band>>,
    /// The model's kinds.
    pub(crate) style: TimelineStyle,
    /// The legend text of each span kind (the style's order), in the config's locale.
    pub(crate) span_labels: Vec<String>,
    /// The legend text of each mark kind.
    pub(crate) mark_labels: Vec<String>,
    /// The legend text of each level kind.
    pub(crate) level_labels: Vec<String>,
    /// The legend text of a lock lane's merged steps of several holders.
    pub(crate) several_label: String,
    /// What was not drawn as given (lanes past the cap, thinned marks, merged spans), in
    /// the config's locale: legend lines of their own.
    pub(crate) notes: Vec<String>,
    /// The x axis title.
    pub(crate) x_label: String,
    /// How numbers are written.
    pub(crate) locale: Locale,
    /// Size and legend place.
    pub(crate) look: Look,
}

/// The items of a lane past its first ones, counted per pixel column from `from_ms` on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Band {
    /// Where the band starts: the first item not drawn.
    pub(crate) from_ms: f64,
    /// Each item as (start, end, items it stands for); a mark starts and ends at once.
    pub(crate) items: Vec<(f64, f64, u64)>,
}
