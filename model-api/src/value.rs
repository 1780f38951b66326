//! Parameter values as a config gives them, before a model types them.

use std::fmt;

/// A parameter value: what a TOML config can say, kept in declared order.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A whole number.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A string.
    Str(String),
    /// `true` or `false`.
    Bool(bool),
    /// An array.
    List(Vec<Value>),
    /// An inline table, keys in declared order.
    Table(Vec<(String, Value)>),
}

impl Value {
    /// The number, for `Int` and `Float`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Loose equality for `where` filters: numbers numerically, strings exactly, lists
    /// element-wise.
    pub fn matches(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.matches(y))
            }
            (Value::Table(a), Value::Table(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((ka, va), (kb, vb))| ka == kb && va.matches(vb))
            }
            _ => match (self.as_f64(), other.as_f64()) {
                (Some(a), Some(b)) => a == b,
                _ => self == other,
            },
        }
    }

    /// The name of this value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Bool(_) => "a boolean",
            Value::List(_) => "an array",
            Value::Table(_) => "a table",
        }
    }
}

/// A number for an error message: as written for everyday sizes, in exponent form when
/// very large or tiny (`1e300`, not 301 digits; `1e-9`, not a row of zeros). Whole numbers
/// up to 2^53 (a key, about 9.0e15) keep their digits.
pub fn number_text(x: f64) -> String {
    if x.is_finite() && x != 0.0 && !(1e-6..1e16).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// Formats as a TOML literal (`4`, `6.5`, `"poisson"`, `[1, 2]`), which is also how a swept
/// parameter appears in the CSV, except that strings are written bare there.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Value::Table(entries) => {
                f.write_str("{ ")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if !k.is_empty()
                        && k.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    {
                        write!(f, "{k} = {v}")?;
                    } else {
                        write!(f, "{k:?} = {v}")?;
                    }
                }
                f.write_str(" }")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_matching_is_numeric_for_numbers() {
        assert!(Value::Int(8).matches(&Value::Float(8.0)));
        assert!(!Value::Int(8).matches(&Value::Str("8".into())));
        assert!(
            Value::List(vec![Value::Int(1), Value::Float(2.5)])
                .matches(&Value::List(vec![Value::Float(1.0), Value::Float(2.5)]))
        );
        assert!(!Value::List(vec![Value::Int(1)]).matches(&Value::List(vec![])));
    }

    #[test]
    fn displays_as_toml() {
        let v = Value::List(vec![
            Value::Int(4),
            Value::Float(6.5),
            Value::Str("a".into()),
        ]);
        assert_eq!(v.to_string(), r#"[4, 6.5, "a"]"#);
        assert_eq!(Value::Float(12.0).to_string(), "12");
    }
}
