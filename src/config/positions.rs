//! Where a plan's errors point: a parameter at its sweep value, its `[params]` value or the
//! `model` line; a composed model's field at its place; a cost past the limits.

use coordsim_model::Value;
use toml::de::{DeTable, DeValue};

use super::compose::path_span;
use super::plan::Plan;
use crate::source::{ConfigError, Span};

impl Plan {
    /// A run whose estimate passes the limits is refused before anything runs, at the
    /// parameter that drives it (a composed model's field, with why, when it says).
    pub(super) fn check_cost(
        &self,
        index: usize,
        cost: &coordsim_model::Cost,
    ) -> Result<(), ConfigError> {
        let key = if cost.driven_by.is_empty() {
            self.model.params().first().map_or("", |p| p.key)
        } else {
            &cost.driven_by
        };
        fn at<'a>(driver: &'a Option<coordsim_model::Driver>, key: &'a str) -> (&'a str, String) {
            match driver {
                Some(d) if !d.why.is_empty() => (d.key.as_str(), format!(" ({})", d.why)),
                Some(d) => (d.key.as_str(), String::new()),
                None => (key, String::new()),
            }
        }
        if cost.events > self.limits.max_events {
            let (key, why) = at(&cost.events_by, key);
            return Err(self.param_error(
                key,
                index,
                &format!(
                    "a run would take about {} events{why}, more than max_events = {} in [limits]; change it, or raise max_events",
                    cost.events, self.limits.max_events
                ),
            ));
        }
        if cost.memory_bytes > self.max_memory_bytes {
            let (key, why) = at(&cost.memory_by, key);
            return Err(self.param_error(
                key,
                index,
                &format!(
                    "a run would hold about {} MiB{why}, more than max_memory_mb = {} in [limits]; change it, or raise max_memory_mb",
                    cost.memory_bytes >> 20,
                    self.max_memory_bytes >> 20
                ),
            ));
        }
        Ok(())
    }

    /// A point's swept values as `a = 8, b = 250` (empty without a sweep).
    fn point_text(&self, values: &[Value]) -> String {
        let at: Vec<String> = self
            .axes
            .iter()
            .map(|a| format!("{} = {}", a.key, values[a.param]))
            .collect();
        at.join(", ")
    }

    /// Where a composed model's field (`actor[0].steps[2].delay_ms`) is written: the file is
    /// parsed again, which only an error pays for.
    fn composed_span(&self, key: &str) -> Option<Span> {
        use coordsim_model::PathPart;
        let mut path = Vec::new();
        for segment in key.split('.') {
            let (name, mut rest) = match segment.find('[') {
                Some(i) => (&segment[..i], &segment[i..]),
                None => (segment, ""),
            };
            path.push(PathPart::Key(name.to_string()));
            while let Some(tail) = rest.strip_prefix('[') {
                let end = tail.find(']')?;
                path.push(PathPart::Index(tail[..end].parse().ok()?));
                rest = &tail[end + 1..];
            }
        }
        let doc = DeTable::parse(&self.source.text).ok()?;
        path_span(doc.get_ref(), &path)
    }

    /// The expression of derived parameter `index` as `[params]` writes it (`s / rho` of
    /// `{ expr = "s / rho" }`); `None` for one not derived.
    pub(crate) fn derived_text(&self, index: usize) -> Option<String> {
        if !self.derived.iter().any(|(d, _)| *d == index) {
            return None;
        }
        let key = self.model.params().get(index)?.key;
        let doc = DeTable::parse(&self.source.text).ok()?;
        let DeValue::Table(params) = doc.get_ref().get("params")?.get_ref() else {
            return None;
        };
        let DeValue::Table(derived) = params.get(key)?.get_ref() else {
            return None;
        };
        match derived.get("expr")?.get_ref() {
            DeValue::String(text) => Some(text.to_string()),
            _ => None,
        }
    }

    /// An error pointing at this config's `model` line (for errors with no better place).
    pub(crate) fn error_at_model(&self, message: impl Into<String>) -> ConfigError {
        self.source.error(&self.model_span, message)
    }

    /// An error about parameter `key` at point `index`: at its sweep value when swept, else at
    /// its `[params]` value, else at the `model` line (a default).
    pub(crate) fn param_error(&self, key: &str, index: usize, message: &str) -> ConfigError {
        let coords = self.coordinates(index);
        if let Some((axis, coord)) = self.axes.iter().zip(&coords).find(|(a, _)| a.key == key) {
            let shown = axis.values[*coord].to_string();
            return self
                .source
                .error(&axis.spans[*coord], format!("`{key}` = {shown}: {message}"));
        }
        let param = self.model.params().iter().position(|p| p.key == key);
        if let Some(i) = param.filter(|i| self.derived.iter().any(|(d, _)| d == i)) {
            // A derived value: say which point gave it.
            let values = self.point_values(index);
            if let Some(span) = self.param_spans[i].clone() {
                return self.source.error(
                    &span,
                    format!(
                        "`{key}` = {} at {}: {message}",
                        values[i],
                        self.point_text(&values)
                    ),
                );
            }
        }
        match param.map(|i| self.param_spans[i].clone()) {
            Some(Some(span)) => self.source.error(&span, format!("`{key}`: {message}")),
            Some(None) => self.error_at_model(format!("`{key}` (default): {message}")),
            // Not a parameter: a composed model's field (`actor[0].count`), at a point.
            None => {
                let at = match self.point_text(&self.point_values(index)) {
                    text if text.is_empty() => text,
                    text => format!(" at {text}"),
                };
                match self.composed_span(key) {
                    Some(span) => self.source.error(&span, format!("`{key}`{at}: {message}")),
                    None => self.error_at_model(format!("`{key}`{at}: {message}")),
                }
            }
        }
    }
}
