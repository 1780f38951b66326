//! What a plan says to readers: `[labels]` (read, looked up, checked as names the config
//! knows) and the built-in words in the config's locale.

use coordsim_model::{Kind, Value};
use toml::de::{DeTable, DeValue};

use super::plan::{FIXED_COLUMNS, MAX_LABEL_CHARS, Plan};
use super::read::Loader;
use crate::locale::{Locale, Text};
use crate::source::ConfigError;

impl Plan {
    /// The label of a column or a category value (the name itself when none is set).
    pub fn label<'a>(&'a self, column: &'a str) -> &'a str {
        self.labels
            .iter()
            .find(|(k, _)| k == column)
            .map_or(column, |(_, v)| v.as_str())
    }

    /// Whether `[labels]` gives `key` a text.
    pub(crate) fn has_label(&self, key: &str) -> bool {
        self.labels.iter().any(|(k, _)| k == key)
    }

    /// A built-in word in the config's locale, or its `[labels]` override.
    pub(crate) fn text(&self, text: Text) -> &str {
        self.labels
            .iter()
            .find(|(k, _)| k == text.key())
            .map_or(text.in_locale(self.locale), |(_, v)| v.as_str())
    }

    /// The legend text of a timeline kind: its `[labels]` entry, else the model's own words
    /// in the config's locale.
    pub(crate) fn kind_label<'a>(&'a self, name: &str, en: &'a str, tr: &'a str) -> &'a str {
        match self.labels.iter().find(|(k, _)| k == name) {
            Some((_, v)) => v,
            None if self.locale == Locale::Tr => tr,
            None => en,
        }
    }

    /// A parameter's value for readers: a labelled text value by its label, a number in the
    /// locale (`8`, `0,5`), other values as the config writes them.
    pub(crate) fn value_text(&self, value: &Value) -> String {
        match value {
            Value::Str(t) => self.label(t).to_string(),
            Value::Bool(b) => self.label(if *b { "true" } else { "false" }).to_string(),
            Value::Int(_) | Value::Float(_) => {
                self.locale
                    .number(&crate::format::cell_reading(&crate::format::value_cell(
                        value,
                    )))
            }
            other => crate::format::value_cell(other).to_string(),
        }
    }

    /// "key label = value" for a swept parameter's value in a title or legend: a text value
    /// reads as its label alone when it has one (`korumasız`), else `key label: value`.
    pub(crate) fn setting_text(&self, key: &str, value: &Value) -> String {
        match value {
            Value::Str(t) if self.has_label(t) => self.label(t).to_string(),
            Value::Bool(_) => format!("{}: {}", self.label(key), self.value_text(value)),
            Value::Str(_) => format!("{}: {}", self.label(key), self.value_text(value)),
            _ => format!("{} = {}", self.label(key), self.value_text(value)),
        }
    }
}

impl Loader<'_> {
    /// `[labels]`: texts for columns, category values, timeline kinds and built-in words,
    /// in every locale; `[labels.tr]`, `[labels.en]`: in that locale, over `[labels]`. The
    /// plan keeps those of the locale it is read in. A key the config does not know is
    /// kept to check against what the run shows.
    pub(super) fn read_labels(
        &self,
        doc: &DeTable<'_>,
        plan: &mut Plan,
    ) -> Result<(), ConfigError> {
        let Some((_, labels)) = doc.iter().find(|(key, _)| key.get_ref() == "labels") else {
            return Ok(());
        };
        let mut own: Vec<(String, String)> = Vec::new();
        for (key, value) in self.table(labels, "labels")?.iter() {
            let name = key.get_ref().to_string();
            let DeValue::Table(per_locale) = value.get_ref() else {
                let text = self.label_text(value)?;
                self.note_label(key.span(), &name, None);
                self.keep_label(plan, &name, key.span());
                plan.labels.push((name, text));
                continue;
            };
            let locale = self.locale_key(&name, &key.span(), "labels")?;
            for (key, value) in per_locale.iter() {
                let name = key.get_ref().to_string();
                let text = self.label_text(value)?;
                self.note_label(key.span(), &name, Some(locale));
                self.keep_label(plan, &name, key.span());
                if locale == plan.locale {
                    own.push((name, text));
                }
            }
        }
        // The reading locale's own labels win: looked up first.
        own.append(&mut plan.labels);
        plan.labels = own;
        Ok(())
    }

    /// A label's text.
    fn label_text(&self, value: &toml::Spanned<DeValue<'_>>) -> Result<String, ConfigError> {
        let text = self.string(value, "a label")?;
        if text.chars().count() > MAX_LABEL_CHARS {
            return Err(self.err(
                &value.span(),
                format!("a label has at most {MAX_LABEL_CHARS} characters"),
            ));
        }
        Ok(text)
    }

    /// Keeps a key the config does not know (an entity's name or a text cell, known once
    /// the config has run) to check against the run, once.
    fn keep_label(&self, plan: &mut Plan, name: &str, at: crate::source::Span) {
        if !is_column(plan, name)
            && !is_known_word(plan, name)
            && !plan.value_labels.iter().any(|(k, _)| k == name)
        {
            plan.value_labels.push((name.to_string(), at));
        }
    }
}

/// A `[labels]` key the config itself knows besides columns: a built-in word, a timeline
/// kind of the model, a choice of a parameter, or a text value the config gives a parameter.
fn is_known_word(plan: &Plan, name: &str) -> bool {
    let m = &*plan.model;
    fn texts(v: &Value, name: &str) -> bool {
        match v {
            Value::Str(t) => t == name,
            Value::List(items) => items.iter().any(|i| texts(i, name)),
            Value::Table(fields) => fields.iter().any(|(_, i)| texts(i, name)),
            _ => false,
        }
    }
    Text::from_key(name).is_some()
        || m.distributions().iter().any(|d| d.name == name)
        || (matches!(name, "true" | "false") && m.params().iter().any(|p| p.kind == Kind::Bool))
        || m.timeline().is_some_and(|t| {
            t.span(name).is_some() || t.mark(name).is_some() || t.level(name).is_some()
        })
        || m.params()
            .iter()
            .any(|p| matches!(p.kind, Kind::Choice(options) if options.contains(&name)))
        || plan.base.iter().any(|v| texts(v, name))
        || plan
            .axes
            .iter()
            .any(|a| a.values.iter().any(|v| texts(v, name)))
}

fn is_column(plan: &Plan, name: &str) -> bool {
    let m = &*plan.model;
    FIXED_COLUMNS.contains(&name)
        || m.params().iter().any(|p| p.key == name)
        || plan.vars.iter().any(|(v, _)| v == name)
        || m.metrics().iter().any(|c| c.name == name)
        || m.entity_columns().iter().any(|c| c.name == name)
}
