//! Reading TOML values with their positions: every error points at the key or value at fault.

use coordsim_model::Value;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::locale::Locale;
use crate::source::{ConfigError, Source, Span};

/// A `(key, value)` entry of a TOML table, both with their spans.
pub(super) type Entry<'a> = (
    &'a Spanned<std::borrow::Cow<'a, str>>,
    &'a Spanned<DeValue<'a>>,
);

/// Reads one config file's values, turning every problem into a positioned error.
pub(super) struct Loader<'s> {
    /// The file.
    pub(super) src: &'s Source,
    /// The locale its texts are read in, and its own (`locale`): the same unless a lesson
    /// reads it in another ([`super::Config::in_locale`]).
    pub(super) locales: std::cell::Cell<(Locale, Locale)>,
    /// The locale a lesson asks it to be read in (`None`: its own).
    pub(super) reading: Option<Locale>,
    /// Its per-locale texts and labels so far, checked once it is read whole.
    pub(super) spoken: Spoken,
}

/// What a config's per-locale texts said while it was read: checked once it is whole.
#[derive(Debug, Default)]
pub(super) struct Spoken {
    /// Every `{ tr = "…", en = "…" }` text: where, its key, the locales it gives.
    pub(super) texts: std::cell::RefCell<Vec<(Span, String, Vec<Locale>)>>,
    /// Every `[labels.X]` key: where, the key, the locale.
    pub(super) labels: std::cell::RefCell<Vec<(Span, String, Locale)>>,
    /// Every `[labels]` key (a label in every locale).
    pub(super) plain: std::cell::RefCell<Vec<String>>,
}

impl Loader<'_> {
    pub(super) fn err(&self, span: &Span, message: impl Into<String>) -> ConfigError {
        self.src.error(span, message)
    }

    /// An expression's error at its character inside the string written at `string_start`
    /// (after the opening quote), under its key: ``in `expr`: unknown name …``.
    pub(super) fn expr_error(
        &self,
        string_start: usize,
        text: &str,
        e: &coordsim_expr::ExprError,
        key: &str,
    ) -> ConfigError {
        let at = string_start
            + 1
            + (text.char_indices())
                .nth(e.offset)
                .map_or(text.len(), |(b, _)| b);
        self.err(&(at..at), format!("in `{key}`: {}", e.message))
    }

    pub(super) fn unknown_key(
        &self,
        key: &Spanned<std::borrow::Cow<'_, str>>,
        what: &str,
        valid: &[&str],
    ) -> ConfigError {
        self.err(
            &key.span(),
            format!(
                "unknown key `{}`{} in {what}; valid keys: {}",
                key.get_ref(),
                crate::suggest::did_you_mean(key.get_ref(), valid),
                valid.join(", ")
            ),
        )
    }

    /// The entries of a table, every key among `valid` (else an error at the unknown key).
    pub(super) fn known_fields<'a, 'i>(
        &self,
        t: &'a DeTable<'i>,
        what: &str,
        valid: &[&str],
    ) -> Result<Vec<Entry<'a>>, ConfigError>
    where
        'i: 'a,
    {
        let mut fields = Vec::new();
        for entry in t.iter() {
            if !valid.contains(&entry.0.get_ref().as_ref()) {
                return Err(self.unknown_key(entry.0, what, valid));
            }
            fields.push(entry);
        }
        Ok(fields)
    }

    pub(super) fn string(
        &self,
        v: &Spanned<DeValue<'_>>,
        key: &str,
    ) -> Result<String, ConfigError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            other => Err(self.err(
                &v.span(),
                format!("`{key}` must be a string, got {}", de_type(other)),
            )),
        }
    }

    pub(super) fn number(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<f64, ConfigError> {
        match self.value(v)? {
            Value::Int(i) => Ok(i as f64),
            Value::Float(x) if x.is_finite() => Ok(x),
            other => Err(self.err(
                &v.span(),
                format!("`{key}` must be a finite number, got {}", shown(&other)),
            )),
        }
    }

    pub(super) fn count(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<u64, ConfigError> {
        self.at_least(v, key, 0)
    }

    /// A whole number of at least `min`; one message for any value out of range (0, -1 or
    /// 2.5 all hear the same valid range).
    pub(super) fn at_least(
        &self,
        v: &Spanned<DeValue<'_>>,
        key: &str,
        min: u64,
    ) -> Result<u64, ConfigError> {
        if let DeValue::Integer(i) = v.get_ref()
            && let Ok(n) = u64::from_str_radix(i.as_str(), i.radix())
            && n >= min
        {
            return Ok(n);
        }
        let got = match v.get_ref() {
            DeValue::Integer(i) => i.to_string(),
            other => de_type(other).to_string(),
        };
        Err(self.err(
            &v.span(),
            format!("`{key}` must be an integer ≥ {min}, got {got}"),
        ))
    }

    pub(super) fn table<'a, 'i>(
        &self,
        v: &'a Spanned<DeValue<'i>>,
        key: &str,
    ) -> Result<&'a DeTable<'i>, ConfigError> {
        match v.get_ref() {
            DeValue::Table(t) => Ok(t),
            other => Err(self.err(
                &v.span(),
                format!("`{key}` must be a table, got {}", de_type(other)),
            )),
        }
    }

    /// A TOML value as a parameter value.
    pub(super) fn value(&self, v: &Spanned<DeValue<'_>>) -> Result<Value, ConfigError> {
        Ok(match v.get_ref() {
            DeValue::String(s) => Value::Str(s.to_string()),
            DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
                Ok(n) => Value::Int(n),
                Err(_) => {
                    return Err(self.err(&v.span(), "integer too large (the limit is 2^63 − 1)"));
                }
            },
            DeValue::Float(f) => match f.as_str().parse::<f64>() {
                Ok(x) => Value::Float(x),
                Err(_) => return Err(self.err(&v.span(), format!("`{f}` is not a number"))),
            },
            DeValue::Boolean(b) => Value::Bool(*b),
            DeValue::Datetime(_) => {
                return Err(self.err(&v.span(), "dates and times are not parameter values"));
            }
            DeValue::Array(items) => Value::List(
                items
                    .iter()
                    .map(|i| self.value(i))
                    .collect::<Result<_, _>>()?,
            ),
            DeValue::Table(t) => Value::Table(
                t.iter()
                    .map(|(k, v)| Ok((k.get_ref().to_string(), self.value(v)?)))
                    .collect::<Result<_, ConfigError>>()?,
            ),
        })
    }

    pub(super) fn array_of_tables<'a, 'i>(
        &self,
        v: &'a Spanned<DeValue<'i>>,
        key: &str,
    ) -> Result<Vec<(&'a DeTable<'i>, Span)>, ConfigError> {
        let DeValue::Array(items) = v.get_ref() else {
            return Err(self.err(
                &v.span(),
                format!("`{key}` must be written [[{key}]] (an array of tables)"),
            ));
        };
        items
            .iter()
            .map(|item| Ok((self.table(item, key)?, item.span())))
            .collect()
    }
}

pub(super) fn de_type(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

pub(super) fn shown(v: &Value) -> String {
    match v {
        Value::Int(_) => v.to_string(),
        Value::Float(x) => coordsim_model::number_text(*x),
        other => other.type_name().to_string(),
    }
}
