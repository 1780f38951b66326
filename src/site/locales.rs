//! A course's own words for the site: `locales/en.toml` and `locales/tr.toml` (the folder
//! `report --locales DIR` names), each replacing, key by key, the words of the pages in its
//! locale (docs/config.md, "The site's words", lists the keys). A file may also put those
//! pages in another language (`language = "de"` in `en.toml`: German words, English
//! numbers); then every key is expected, and one it leaves out is English, named in a
//! warning.
//!
//! ```toml
//! language = "de"            # optional: the words' language, not the locale's
//! [words]
//! heading_claims = "Behauptungen"
//! claims_summary = "{passed} von {total} Behauptungen gelten, {failed} nicht."
//! ```
//!
//! Everything wrong is an error at `FILE:LINE:COL` naming what would be valid: a file not
//! named after a locale, an unknown key (with the nearest keys), a word that is not a string
//! or drops or adds a `{placeholder}`, a language that is not a language tag.

use std::path::Path;

use toml::de::{DeTable, DeValue};

use super::words::{CourseWords, WORDS, Words, placeholders};
use crate::locale::{LOCALES, Locale};
use crate::source::{ConfigError, Source};
use crate::suggest::did_you_mean;

/// Most bytes of one locale file (a few kilobytes hold every word).
const MAX_FILE_BYTES: u64 = 1 << 20;

/// The keys a locale file's top level may have.
const TOP_KEYS: &[&str] = &["language", "words"];

/// Every locale file of a course: its words for English pages and for Turkish ones.
#[derive(Debug, Default)]
pub struct Locales {
    files: Vec<(Locale, CourseWords)>,
}

impl Locales {
    /// The words of a page in `locale`.
    pub(crate) fn words(&self, locale: Locale) -> Words<'_> {
        Words {
            locale,
            course: self
                .files
                .iter()
                .find(|(l, _)| *l == locale)
                .map(|(_, c)| c),
        }
    }

    /// [`Locales::read`], its warnings printed on stderr (`warning: FILE:LINE:COL: …`; a
    /// closed stderr stops the messages, not the report).
    pub(crate) fn read_warning(dir: &Path) -> anyhow::Result<Locales> {
        use std::io::Write;
        let (locales, warnings) = Locales::read(dir)?;
        let mut stderr = std::io::stderr().lock();
        for w in warnings {
            let _ = writeln!(stderr, "warning: {w}");
        }
        Ok(locales)
    }

    /// The locale files in `dir` (every `*.toml`, in name order; nothing when `dir` does not
    /// exist), and the warnings they give (`FILE:LINE:COL: …`, a key a file of another
    /// language leaves out).
    pub fn read(dir: &Path) -> anyhow::Result<(Locales, Vec<String>)> {
        let mut locales = Locales::default();
        let mut warnings = Vec::new();
        if !dir.is_dir() {
            return Ok((locales, warnings));
        }
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        paths.sort();
        for path in paths {
            let bytes =
                crate::input::read_capped(&path, MAX_FILE_BYTES).map_err(anyhow::Error::msg)?;
            let source = Source {
                name: path.display().to_string(),
                text: String::from_utf8(bytes).map_err(|_| {
                    anyhow::anyhow!("{}:1:1: a locale file is UTF-8 text", path.display())
                })?,
            };
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
            let stem = stem.unwrap_or_default();
            let Some(locale) = Locale::parse(&stem) else {
                return Err(source
                    .error(
                        &(0..0),
                        format!(
                            "a locale file is named after the locale of the pages it words, not `{stem}`: {}{}",
                            LOCALES
                                .iter()
                                .map(|l| format!("{l}.toml"))
                                .collect::<Vec<_>>()
                                .join(" or "),
                            did_you_mean(&stem, LOCALES)
                        ),
                    )
                    .into());
            };
            let (words, mut found) = parse(&source)?;
            warnings.append(&mut found);
            locales.files.push((locale, words));
        }
        Ok((locales, warnings))
    }
}

/// One locale file's words, and its warnings.
fn parse(source: &Source) -> Result<(CourseWords, Vec<String>), ConfigError> {
    let doc = DeTable::parse(&source.text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        source.error(&span, format!("invalid TOML: {}", e.message().trim()))
    })?;
    let mut out = CourseWords {
        language: None,
        given: vec![None; WORDS.len()],
    };
    let keys: Vec<&str> = WORDS.iter().map(|(k, _, _)| *k).collect();
    let mut language_at = None;
    let mut words_at = 0..0;
    for (key, value) in doc.get_ref().iter() {
        let name = key.get_ref().as_ref();
        match (name, value.get_ref()) {
            ("language", DeValue::String(tag)) => {
                let plain = |p: &str| !p.is_empty() && p.len() <= 8;
                let parts_ok = tag
                    .split('-')
                    .all(|p| plain(p) && p.bytes().all(|b| b.is_ascii_alphanumeric()));
                if !parts_ok || !tag.as_bytes()[0].is_ascii_alphabetic() {
                    return Err(source.error(
                        &value.span(),
                        format!("`language` is a language tag (`de`, `pt-BR`), not `{tag}`"),
                    ));
                }
                out.language = Some(tag.to_string());
                language_at = Some(key.span());
            }
            ("words", DeValue::Table(table)) => {
                words_at = key.span();
                for (word, text) in table.iter() {
                    let word_name = word.get_ref().as_ref();
                    let Some(i) = keys.iter().position(|k| *k == word_name) else {
                        return Err(source.error(
                            &word.span(),
                            format!(
                                "unknown key `{word_name}` in [words]{}; the keys are the site's words, listed in docs/config.md (\"The site's words\")",
                                did_you_mean(word_name, &keys)
                            ),
                        ));
                    };
                    out.given[i] = Some(word_text(source, i, text)?);
                }
            }
            ("language" | "words", _) => {
                let what = if name == "language" {
                    "a string (a language tag such as `de`)"
                } else {
                    "a table: `[words]`, then `key = \"word\"` lines"
                };
                return Err(source.error(&value.span(), format!("`{name}` must be {what}")));
            }
            _ => {
                return Err(source.error(
                    &key.span(),
                    format!(
                        "unknown key `{name}`{}; a locale file has {}",
                        did_you_mean(name, TOP_KEYS),
                        TOP_KEYS.join(" and ")
                    ),
                ));
            }
        }
    }
    let mut warnings = Vec::new();
    if let Some(at) = language_at {
        let missing: Vec<&str> = keys
            .iter()
            .zip(&out.given)
            .filter(|(_, w)| w.is_none())
            .map(|(k, _)| *k)
            .collect();
        if !missing.is_empty() {
            let at = if words_at.is_empty() { at } else { words_at };
            warnings.push(
                source
                    .error(
                        &at,
                        format!(
                            "{} of {} words not given (language = \"{}\"), shown in English: {}",
                            missing.len(),
                            WORDS.len(),
                            out.language.as_deref().unwrap_or(""),
                            crate::suggest::listed(&missing)
                        ),
                    )
                    .to_string(),
            );
        }
    }
    Ok((out, warnings))
}

/// A word's text: a string keeping exactly the placeholders of the phrase it replaces.
fn word_text(
    source: &Source,
    i: usize,
    value: &toml::Spanned<DeValue<'_>>,
) -> Result<String, ConfigError> {
    let (key, english, _) = WORDS[i];
    let DeValue::String(text) = value.get_ref() else {
        return Err(source.error(
            &value.span(),
            format!(
                "`{key}` is a word: a string, such as \"{}\"",
                english.trim()
            ),
        ));
    };
    let (want, got) = (placeholders(english), placeholders(text));
    if want != got {
        let list = |h: &[String]| {
            if h.is_empty() {
                "none".to_string()
            } else {
                h.iter()
                    .map(|n| format!("{{{n}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        return Err(source.error(
            &value.span(),
            format!(
                "`{key}` fills in {} (\"{}\"); this word has {}",
                list(&want),
                english.trim(),
                list(&got)
            ),
        ));
    }
    Ok(text.to_string())
}
