//! One config, several languages: a reader's text (`title`, a claim's `name`, a chart's
//! `title`, `x_label`, `y_label`, a `mark_y` label) is `"…"` (the same in every locale) or
//! `{ tr = "…", en = "…" }` (one per locale), and `[labels.tr]`, `[labels.en]` label names
//! per locale over `[labels]`. A config is read in one locale at a time (its own `locale`,
//! or a lesson's: `Config::in_locale`); the locales it speaks are its own and every one
//! its texts and labels name, and each per-locale text names them all.

use toml::Spanned;
use toml::de::DeValue;

use super::plan::MAX_LABEL_CHARS;
use super::read::{Loader, de_type};
use crate::locale::{LOCALES, Locale};
use crate::source::{ConfigError, Span};

impl Loader<'_> {
    /// A reader's text: `"…"`, or `{ tr = "…", en = "…" }` read in the config's reading
    /// locale (a locale the table leaves out: the config's own locale's text).
    pub(super) fn text(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<String, ConfigError> {
        Ok(self.texts(v, key)?.0)
    }

    /// [`Loader::text`], and every locale's text when it is given per locale (none when it
    /// is one text for all).
    pub(super) fn texts(
        &self,
        v: &Spanned<DeValue<'_>>,
        key: &str,
    ) -> Result<(String, Vec<(Locale, String)>), ConfigError> {
        let checked = |text: String, at: &Span| {
            if text.chars().count() > MAX_LABEL_CHARS {
                return Err(self.err(
                    at,
                    format!("`{key}` has at most {MAX_LABEL_CHARS} characters"),
                ));
            }
            Ok(text)
        };
        let DeValue::Table(table) = v.get_ref() else {
            return match v.get_ref() {
                DeValue::String(s) => Ok((checked(s.to_string(), &v.span())?, Vec::new())),
                other => Err(self.err(
                    &v.span(),
                    format!(
                        "`{key}` must be a string, or one per locale ({{ tr = \"…\", en = \"…\" }}), got {}",
                        de_type(other)
                    ),
                )),
            };
        };
        let mut texts: Vec<(Locale, String)> = Vec::new();
        for (name, item) in table.iter() {
            let locale = self.locale_key(name.get_ref(), &name.span(), key)?;
            let text = self.string(item, &format!("{key}.{}", name.get_ref()))?;
            texts.push((locale, checked(text, &item.span())?));
        }
        let (reading, own) = self.locales.get();
        let pick = |l: Locale| texts.iter().find(|(t, _)| *t == l).map(|(_, s)| s.clone());
        let Some(text) = pick(reading).or_else(|| pick(own)) else {
            return Err(self.err(
                &v.span(),
                format!(
                    "`{key}` gives no text in the config's locale `{}`; add `{} = \"…\"`",
                    own.name(),
                    own.name()
                ),
            ));
        };
        self.spoken.texts.borrow_mut().push((
            v.span(),
            key.to_string(),
            texts.iter().map(|(l, _)| *l).collect(),
        ));
        Ok((text, texts))
    }

    /// A locale's name as a key (`tr` in `{ tr = "…" }` or `[labels.tr]`).
    pub(super) fn locale_key(
        &self,
        name: &str,
        at: &Span,
        key: &str,
    ) -> Result<Locale, ConfigError> {
        Locale::parse(name).ok_or_else(|| {
            self.err(
                at,
                format!(
                    "`{name}` in `{key}` is not a locale; a text per locale names each of: {}",
                    LOCALES.join(", ")
                ),
            )
        })
    }

    /// Notes a `[labels]` key (`None`) or a `[labels.X]` one, for the check that every
    /// locale the config speaks labels it.
    pub(super) fn note_label(&self, at: Span, key: &str, locale: Option<Locale>) {
        match locale {
            Some(l) => (self.spoken.labels.borrow_mut()).push((at, key.to_string(), l)),
            None => self.spoken.plain.borrow_mut().push(key.to_string()),
        }
    }

    /// The locales the config speaks (its own first, then in [`LOCALES`] order), once it is
    /// read whole: each per-locale text must give all of them, and a name `[labels.X]`
    /// labels must have a label in each (its own `[labels.Y]`, or `[labels]`).
    pub(super) fn spoken_locales(&self) -> Result<Vec<Locale>, ConfigError> {
        let plain_labels = self.spoken.plain.borrow();
        let own = self.locales.get().1;
        let texts = self.spoken.texts.borrow();
        let labels = self.spoken.labels.borrow();
        let named = texts
            .iter()
            .flat_map(|(_, _, ls)| ls.iter().copied())
            .chain(labels.iter().map(|(_, _, l)| *l));
        let mut speaks = vec![own];
        for l in named {
            if !speaks.contains(&l) {
                speaks.push(l);
            }
        }
        speaks[1..].sort_by_key(|l| LOCALES.iter().position(|n| *n == l.name()));
        for (at, key, given) in texts.iter() {
            if let Some(missing) = speaks.iter().find(|l| !given.contains(l)) {
                return Err(self.err(
                    at,
                    format!(
                        "`{key}` gives no text in `{}`, a locale this config speaks ({}); add `{} = \"…\"`",
                        missing.name(),
                        names(&speaks),
                        missing.name()
                    ),
                ));
            }
        }
        for (at, key, locale) in labels.iter() {
            if plain_labels.contains(key) {
                continue;
            }
            let labelled_in = |l: Locale| labels.iter().any(|(_, k, m)| k == key && *m == l);
            if let Some(missing) = speaks.iter().find(|l| !labelled_in(**l)) {
                return Err(self.err(
                    at,
                    format!(
                        "`{key}` is labelled in [labels.{}] but not in [labels.{}]: the `{}` pages would show `{key}` as it is; label it there too (or in [labels], for every locale)",
                        locale.name(),
                        missing.name(),
                        missing.name()
                    ),
                ));
            }
        }
        Ok(speaks)
    }
}

/// `tr, en`.
fn names(locales: &[Locale]) -> String {
    locales
        .iter()
        .map(|l| l.name())
        .collect::<Vec<_>>()
        .join(", ")
}
