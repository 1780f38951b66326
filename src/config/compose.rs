//! A composed model (`model = "scenario"`): its sections and the config's parameters handed
//! to the composer, its errors pointed at the value they name.

use std::sync::Arc;

use coordsim_model::{Kind, ModelDef, Value};
use toml::de::{DeTable, DeValue};

use super::read::Loader;
use crate::source::{ConfigError, Span};

impl Loader<'_> {
    /// A composed model (`model = "scenario"`): its sections and the config's own parameters
    /// go to the composer, each parameter with the values this plan reads for it (a sweep's
    /// range expanded here, as for any model), so that no composer reads `[params]` or
    /// `[sweep]` again; its errors point at the value they name.
    pub(super) fn compose(
        &self,
        composer: &dyn coordsim_model::Composer,
        doc: &DeTable<'_>,
        model_span: &Span,
    ) -> Result<Arc<dyn ModelDef>, ConfigError> {
        use coordsim_model::ConfigParam;
        let mut input = coordsim_model::ComposeInput::default();
        for (key, value) in doc.iter() {
            let name = key.get_ref().as_ref();
            if composer.sections().contains(&name) {
                input.sections.push((name.to_string(), self.value(value)?));
            }
        }
        let table = |name: &str| doc.iter().find(|(k, _)| k.get_ref() == name);
        if let Some((_, t)) = table("params") {
            for (key, value) in self.table(t, "params")?.iter() {
                let read = self.value(value)?;
                // `{ expr = "…" }` is derived at each point: a number, no value yet.
                let derived =
                    matches!(&read, Value::Table(t) if t.iter().any(|(k, _)| k == "expr"));
                let values = if derived { Vec::new() } else { vec![read] };
                input
                    .params
                    .push(ConfigParam::new(key.get_ref().as_ref(), values));
            }
        }
        if let Some((_, t)) = table("sweep") {
            for (key, value) in self.table(t, "sweep")?.iter() {
                // A range counts (whole values) when its ends and step are whole numbers ≥ 0.
                let read = self.value(value)?;
                let whole = |k: &str| match &read {
                    Value::Table(t) => t
                        .iter()
                        .any(|(name, v)| name == k && matches!(v, Value::Int(i) if *i >= 0)),
                    _ => false,
                };
                let counts = whole("from") && whole("to") && whole("step");
                let kind = if counts { Kind::Count } else { Kind::Float };
                // A sweep this plan refuses is refused where it reads the sweep, after the
                // composed model's own errors: the composer sees no values for it.
                let values = self
                    .axis(0, key.get_ref(), kind, value)
                    .map_or_else(|_| Vec::new(), |axis| axis.values);
                input
                    .params
                    .push(ConfigParam::new(key.get_ref().as_ref(), values));
            }
        }
        let def = composer.compose(&input).map_err(|e| {
            // A parameter's error names `params.…`; a swept one is written in [sweep].
            let mut sweep = e.path.clone();
            if let Some(first) = sweep.first_mut() {
                *first = coordsim_model::PathPart::Key("sweep".into());
            }
            let span = path_span(doc, &e.path)
                .or_else(|| {
                    (e.path.first() == Some(&coordsim_model::PathPart::Key("params".into())))
                        .then(|| path_span(doc, &sweep))
                        .flatten()
                })
                .unwrap_or_else(|| model_span.clone());
            self.err(&span, format!("{}: {}", e.path_text(), e.message))
        })?;
        coordsim_model::Registry::check_composed(def.as_ref())
            .map_err(|e| self.err(model_span, e.message))?;
        Ok(def)
    }
}

/// Where the value at `path` is written: the deepest part of the path the file has.
pub(super) fn path_span(doc: &DeTable<'_>, path: &[coordsim_model::PathPart]) -> Option<Span> {
    use coordsim_model::PathPart;
    let (PathPart::Key(first), rest) = path.split_first()? else {
        return None;
    };
    let (_, mut value) = doc.iter().find(|(k, _)| k.get_ref() == first)?;
    for part in rest {
        let next = match (part, value.get_ref()) {
            (PathPart::Index(i), DeValue::Array(items)) => items.get(*i),
            (PathPart::Key(k), DeValue::Table(t)) => {
                t.iter().find(|(key, _)| key.get_ref() == k).map(|(_, v)| v)
            }
            _ => None,
        };
        match next {
            Some(v) => value = v,
            None => break,
        }
    }
    Some(value.span())
}
