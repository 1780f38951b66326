//! A `[[chart]]`'s presentation keys (title, axis titles and ranges, log scales, legend,
//! size): read and checked here, none of them changes a number.

use coordsim_model::ChartKind;
use toml::Spanned;
use toml::de::DeValue;

use super::charts::{LegendPlace, Look, MAX_CHART_VALUE, MAX_SCALE, SIDE_PX};
use super::read::Loader;
use crate::source::ConfigError;

impl Loader<'_> {
    /// The presentation keys of a `[[chart]]`.
    pub(super) fn look<'a, 'i: 'a>(
        &self,
        field: &dyn Fn(&str) -> Option<&'a Spanned<DeValue<'i>>>,
    ) -> Result<Look, ConfigError> {
        let mut look = Look::default();
        let text = |k: &str| field(k).map(|v| self.text(v, k)).transpose();
        let flag = |k: &str, default: bool| -> Result<bool, ConfigError> {
            match field(k) {
                None => Ok(default),
                Some(v) => match v.get_ref() {
                    DeValue::Boolean(b) => Ok(*b),
                    _ => Err(self.err(&v.span(), format!("`{k}` must be true or false"))),
                },
            }
        };
        let side = |k: &str, default: u32| -> Result<u32, ConfigError> {
            let Some(v) = field(k) else {
                return Ok(default);
            };
            let n = self.count(v, k)?;
            if !SIDE_PX.contains(&n) {
                return Err(self.err(
                    &v.span(),
                    format!(
                        "`{k}` is in pixels, from {} to {}",
                        SIDE_PX.start(),
                        SIDE_PX.end()
                    ),
                ));
            }
            Ok(n as u32)
        };
        look.title = text("title")?;
        look.x_label = text("x_label")?;
        look.y_label = text("y_label")?;
        look.y_min = field("y_min")
            .map(|v| self.chart_value(v, "y_min"))
            .transpose()?;
        look.y_max = field("y_max")
            .map(|v| self.chart_value(v, "y_max"))
            .transpose()?;
        if let (Some(lo), Some(hi), Some(v)) = (look.y_min, look.y_max, field("y_max"))
            && hi <= lo
        {
            return Err(self.err(
                &v.span(),
                format!("`y_max` ({hi}) must be above `y_min` ({lo})"),
            ));
        }
        look.log_y = flag("log_y", false)?;
        if look.log_y {
            for k in ["y_min", "y_max"] {
                if let (Some(v), Some(x)) =
                    (field(k), if k == "y_min" { look.y_min } else { look.y_max })
                    && x <= 0.0
                {
                    return Err(self.err(&v.span(), format!("with `log_y`, `{k}` must be above 0")));
                }
            }
        }
        look.interval = flag("interval", true)?;
        look.window = self.window(field)?;
        look.focus = match field("focus") {
            Some(v) => {
                let half = field("focus_ms")
                    .map(|w| self.chart_value(w, "focus_ms"))
                    .transpose()?;
                if let (Some(h), Some(w)) = (half, field("focus_ms"))
                    && h <= 0.0
                {
                    return Err(self.err(&w.span(), "`focus_ms` is a half-width in ms, above 0"));
                }
                if look.window.is_some() {
                    return Err(self.err(
                        &v.span(),
                        "give a timeline `focus` (the window found in the run) or `from_ms`/`to_ms` (the window written), not both",
                    ));
                }
                Some((self.string(v, "focus")?, half))
            }
            None => {
                if let Some(w) = field("focus_ms") {
                    return Err(self.err(
                        &w.span(),
                        "`focus_ms` is the half-width of a `focus`; give `focus` too",
                    ));
                }
                None
            }
        };
        if let Some(v) = field("lanes") {
            let DeValue::Array(items) = v.get_ref() else {
                return Err(self.err(
                    &v.span(),
                    "`lanes` is a list of lane names, e.g. [\"coordinator\", \"participant\"]",
                ));
            };
            if items.is_empty() || items.len() > coordsim_model::MAX_LANES {
                return Err(self.err(
                    &v.span(),
                    format!("`lanes` names 1 to {} lanes", coordsim_model::MAX_LANES),
                ));
            }
            for item in items {
                look.lanes.push(self.string(item, "lanes")?);
            }
        }
        look.width = side("width", look.width)?;
        look.height = side("height", look.height)?;
        if let Some(v) = field("scale") {
            let s = self.number(v, "scale")?;
            if !(s > 0.0 && s <= MAX_SCALE) {
                return Err(self.err(
                    &v.span(),
                    format!("`scale` is above 0 and at most {MAX_SCALE}"),
                ));
            }
            look.scale = s;
        }
        if let Some(v) = field("legend") {
            let name = self.string(v, "legend")?;
            look.legend = LegendPlace::NAMES
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, p)| *p)
                .ok_or_else(|| {
                    let valid: Vec<&str> = LegendPlace::NAMES.iter().map(|(n, _)| *n).collect();
                    self.err(
                        &v.span(),
                        format!("unknown legend place `{name}`; valid: {}", valid.join(", ")),
                    )
                })?;
        }
        Ok(look)
    }

    /// `mark_y = 100`, or `mark_y = { value = 100, label = "capacity" }`: the value and its
    /// legend, if given.
    pub(super) fn mark_y(
        &self,
        v: &Spanned<DeValue<'_>>,
    ) -> Result<(Option<f64>, Option<String>), ConfigError> {
        if !matches!(v.get_ref(), DeValue::Table(_)) {
            return Ok((Some(self.chart_value(v, "mark_y")?), None));
        }
        let (mut value, mut label) = (None, None);
        for (key, item) in self.table(v, "mark_y")?.iter() {
            match key.get_ref().as_ref() {
                "value" => value = Some(self.chart_value(item, "mark_y.value")?),
                "label" => label = Some(self.text(item, "mark_y.label")?),
                other => {
                    return Err(self.err(
                        &key.span(),
                        format!(
                            "unknown key `{other}` of `mark_y`{}; valid: value, label",
                            crate::suggest::did_you_mean(other, &["value", "label"])
                        ),
                    ));
                }
            }
        }
        match value {
            Some(y) => Ok((Some(y), label)),
            None => Err(self.err(
                &v.span(),
                "`mark_y` as a table needs its `value`: { value = 100, label = \"capacity\" }",
            )),
        }
    }

    /// A number a chart draws as given (`mark_y`, `y_min`, `y_max`): finite and at most
    /// [`MAX_CHART_VALUE`] in size.
    pub(super) fn chart_value(
        &self,
        v: &Spanned<DeValue<'_>>,
        key: &str,
    ) -> Result<f64, ConfigError> {
        let x = self.number(v, key)?;
        if !(x.is_finite() && x.abs() <= MAX_CHART_VALUE) {
            return Err(self.err(
                &v.span(),
                format!(
                    "`{key}` is drawn on an axis: a number from -1e15 to 1e15, got {x:e} (a chart's ticks need a range they can divide)"
                ),
            ));
        }
        Ok(x)
    }

    /// A timeline's `from_ms` and `to_ms`: a window of virtual time (either end may be
    /// left open: from 0, to the run's last event), from ≥ 0 and to above from.
    fn window<'a, 'i: 'a>(
        &self,
        field: &dyn Fn(&str) -> Option<&'a Spanned<DeValue<'i>>>,
    ) -> Result<Option<(f64, f64)>, ConfigError> {
        let (from_v, to_v) = (field("from_ms"), field("to_ms"));
        if from_v.is_none() && to_v.is_none() {
            return Ok(None);
        }
        let from = from_v.map(|v| self.chart_value(v, "from_ms")).transpose()?;
        let to = to_v.map(|v| self.chart_value(v, "to_ms")).transpose()?;
        if let (Some(f), Some(v)) = (from, from_v)
            && f < 0.0
        {
            return Err(self.err(&v.span(), "`from_ms` is a time of the run, at least 0"));
        }
        let (from, to) = (from.unwrap_or(0.0), to.unwrap_or(f64::INFINITY));
        if let Some(v) = to_v
            && to <= from
        {
            return Err(self.err(
                &v.span(),
                format!("`to_ms` ({to}) must be after `from_ms` ({from})"),
            ));
        }
        Ok(Some((from, to)))
    }

    /// `log_x` and `log_y` only where the kind draws them: a bar's x is its groups, and a
    /// cdf's, histogram's or timeline's axes are linear, so elsewhere the key would be
    /// ignored. A log y axis has no place for a `mark_y` at or below 0.
    pub(super) fn log_keys<'a, 'i: 'a>(
        &self,
        kind: ChartKind,
        field: &dyn Fn(&str) -> Option<&'a Spanned<DeValue<'i>>>,
        look: &Look,
        mark_y: Option<f64>,
    ) -> Result<(), ConfigError> {
        let drawn = |k: &str| kind == ChartKind::Line || (k == "log_y" && kind == ChartKind::Bar);
        for (k, kinds) in [("log_x", "line charts"), ("log_y", "line and bar charts")] {
            if let Some(v) = field(k).filter(|v| matches!(v.get_ref(), DeValue::Boolean(true)))
                && !drawn(k)
            {
                return Err(self.err(
                    &v.span(),
                    format!("`{k}` is for {kinds}: a {kind} is not drawn on a log scale; drop it"),
                ));
            }
        }
        for k in ["from_ms", "to_ms"] {
            if let Some(v) = field(k)
                && kind != ChartKind::Timeline
            {
                return Err(self.err(
                    &v.span(),
                    format!(
                        "`{k}` is a timeline's window; a {kind} has no time axis to cut: drop it"
                    ),
                ));
            }
        }
        if let (true, Some(y), Some(v)) = (look.log_y, mark_y, field("mark_y"))
            && y <= 0.0
        {
            return Err(self.err(
                &v.span(),
                "with `log_y`, `mark_y` must be above 0 (a log axis has no 0)",
            ));
        }
        Ok(())
    }

    /// A timeline's `resources`: a list of resource names, each once; where each is written.
    pub(super) fn resources(
        &self,
        kind: ChartKind,
        value: Option<&Spanned<DeValue<'_>>>,
        look: &mut Look,
    ) -> Result<Vec<std::ops::Range<usize>>, ConfigError> {
        let Some(v) = value else {
            return Ok(Vec::new());
        };
        if kind != ChartKind::Timeline {
            return Err(self.err(
                &v.span(),
                format!("`resources` are a timeline's lanes; a {kind} has none: drop it"),
            ));
        }
        let DeValue::Array(items) = v.get_ref() else {
            return Err(self.err(
                &v.span(),
                "`resources` is a list of resource names, e.g. [\"db\", \"row_lock\"]",
            ));
        };
        if items.is_empty() || items.len() > coordsim_model::MAX_RESOURCE_LANES {
            return Err(self.err(
                &v.span(),
                format!(
                    "`resources` names 1 to {} resources",
                    coordsim_model::MAX_RESOURCE_LANES
                ),
            ));
        }
        let mut spans = Vec::with_capacity(items.len());
        for item in items {
            let name = self.string(item, "resources")?;
            if look.resources.contains(&name) {
                return Err(self.err(&item.span(), format!("`resources` names `{name}` twice")));
            }
            look.resources.push(name);
            spans.push(item.span());
        }
        Ok(spans)
    }

    /// A timeline's `first_items`: how many items each actor's lane draws, its first in
    /// time, 1 to [`coordsim_model::FIRST_KEPT`] (a lane keeps that many as they came).
    pub(super) fn first_items(
        &self,
        kind: ChartKind,
        value: Option<&Spanned<DeValue<'_>>>,
    ) -> Result<Option<usize>, ConfigError> {
        let Some(v) = value else {
            return Ok(None);
        };
        if kind != ChartKind::Timeline {
            return Err(self.err(
                &v.span(),
                format!(
                    "`first_items` is a timeline's: a {kind} has no lanes to draw them on; drop it"
                ),
            ));
        }
        let most = coordsim_model::FIRST_KEPT;
        let wrong = || {
            self.err(
                &v.span(),
                format!(
                    "`first_items` is how many items each lane draws before its density band: a whole number from 1 to {most}"
                ),
            )
        };
        let n = self.count(v, "first_items").map_err(|_| wrong())?;
        if n == 0 || n > most as u64 {
            return Err(wrong());
        }
        Ok(Some(n as usize))
    }

    /// Each of a timeline's `resources` is one the model can draw a lane of.
    pub(super) fn check_resources(
        &self,
        plan: &super::Plan,
        names: &[String],
        spans: &[std::ops::Range<usize>],
    ) -> Result<(), ConfigError> {
        if names.is_empty() {
            return Ok(());
        }
        let known = plan.model.resources();
        let valid: Vec<&str> = known.iter().map(String::as_str).collect();
        for (name, at) in names.iter().zip(spans) {
            if valid.contains(&name.as_str()) {
                continue;
            }
            let message = if valid.is_empty() {
                format!(
                    "{} draws no resource lanes: drop `resources`",
                    plan.model.name()
                )
            } else {
                format!(
                    "`{name}` is no resource with a lane{}; valid: {}",
                    coordsim_model::suggest::did_you_mean(name, &valid),
                    valid.join(", ")
                )
            };
            return Err(self.err(at, message));
        }
        Ok(())
    }
}
