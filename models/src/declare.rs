//! Declaring a model's parameters and columns once: [`params!`], [`columns!`], [`choice!`].

use std::fmt;

use crate::value::Value;

/// What kind of value a parameter takes; decides its type check and how `models` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number ≥ 0 (TOML integers only).
    Count,
    /// A number (TOML integers and floats).
    Float,
    /// `true` or `false`.
    Bool,
    /// One of a fixed set of strings.
    Choice(&'static [&'static str]),
    /// Any string.
    Text,
    /// A list of strings.
    TextList,
    /// An array of tables with these fields.
    Tables(&'static str),
    /// A number for all, or a list of numbers, one each.
    NumberOrList,
    /// A whole number ≥ 0 for all, or a list of them, one each.
    CountOrList,
    /// A list of numbers.
    NumberList,
    /// A list of whole numbers ≥ 0.
    CountList,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Count => f.write_str("integer"),
            Kind::Float => f.write_str("number"),
            Kind::Bool => f.write_str("boolean"),
            Kind::Choice(options) => {
                let quoted: Vec<String> = options.iter().map(|o| format!("{o:?}")).collect();
                write!(f, "one of {}", quoted.join(", "))
            }
            Kind::Text => f.write_str("string"),
            Kind::TextList => f.write_str("list of strings"),
            Kind::Tables(fields) => write!(f, "array of {{ {fields} }}"),
            Kind::NumberOrList => f.write_str("number, or list of numbers"),
            Kind::CountOrList => f.write_str("integer, or list of integers"),
            Kind::NumberList => f.write_str("list of numbers"),
            Kind::CountList => f.write_str("list of integers"),
        }
    }
}

/// One parameter of a model.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// The TOML key under `[params]`.
    pub key: &'static str,
    /// What values it takes.
    pub kind: Kind,
    /// What it means (from the field's doc comment).
    pub meaning: &'static str,
    /// Its default, the lesson's value.
    pub default: fn() -> Value,
}

impl ParamSpec {
    /// The unit, read off the key's suffix.
    pub fn unit(&self) -> &'static str {
        unit_of(self.key)
    }
}

/// One output column: a metric, or an entity row's column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnSpec {
    /// The CSV column name.
    pub name: &'static str,
    /// What it means (from the field's doc comment).
    pub meaning: &'static str,
    /// True for columns holding numbers (claims and charts need them).
    pub numeric: bool,
}

/// The unit a name's suffix implies (`hold_ms` → `ms`): names say their unit last.
pub fn unit_of(name: &str) -> &'static str {
    if name.ends_with("_ms") {
        "ms"
    } else if name.ends_with("_pct") {
        "%"
    } else if name.ends_with("_per_s") {
        "1/s"
    } else {
        ""
    }
}

/// A parameter was missing, of the wrong type, or out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{key}`: {message}")]
pub struct ParamError {
    /// The parameter at fault.
    pub key: String,
    /// What is wrong and what would be valid.
    pub message: String,
}

impl ParamError {
    /// An error about `key`.
    pub fn new(key: &str, message: impl Into<String>) -> Self {
        ParamError {
            key: key.to_string(),
            message: message.into(),
        }
    }
}

/// A Rust type a parameter can have: how to read it from a [`Value`] and write it back.
pub trait ParamType: Sized {
    /// The kind shown to users and checked first.
    const KIND: Kind;
    /// Reads the value, or says what would be valid.
    fn from_value(value: &Value) -> Result<Self, String>;
    /// The value as a config would write it.
    fn to_value(&self) -> Value;
}

impl ParamType for u64 {
    const KIND: Kind = Kind::Count;
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::Int(i) if *i >= 0 => Ok(*i as u64),
            Value::Int(i) => Err(format!("expected an integer ≥ 0, got {i}")),
            other => Err(format!("expected an integer, got {}", other.type_name())),
        }
    }
    fn to_value(&self) -> Value {
        Value::Int(i64::try_from(*self).unwrap_or(i64::MAX))
    }
}

impl ParamType for f64 {
    const KIND: Kind = Kind::Float;
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::Float(x) if x.is_finite() => Ok(*x),
            Value::Float(x) => Err(format!("expected a finite number, got {x}")),
            Value::Int(i) => Ok(*i as f64),
            other => Err(format!("expected a number, got {}", other.type_name())),
        }
    }
    fn to_value(&self) -> Value {
        Value::Float(*self)
    }
}

impl ParamType for bool {
    const KIND: Kind = Kind::Bool;
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::Bool(b) => Ok(*b),
            other => Err(format!("expected true or false, got {}", other.type_name())),
        }
    }
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
}

impl ParamType for String {
    const KIND: Kind = Kind::Text;
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::Str(s) => Ok(s.clone()),
            other => Err(format!("expected a string, got {}", other.type_name())),
        }
    }
    fn to_value(&self) -> Value {
        Value::Str(self.clone())
    }
}

impl ParamType for Vec<String> {
    const KIND: Kind = Kind::TextList;
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::List(items) => items
                .iter()
                .map(|item| match item {
                    Value::Str(s) => Ok(s.clone()),
                    other => Err(format!(
                        "expected a list of strings, found {}",
                        other.type_name()
                    )),
                })
                .collect(),
            other => Err(format!(
                "expected a list of strings, got {}",
                other.type_name()
            )),
        }
    }
    fn to_value(&self) -> Value {
        Value::List(self.iter().cloned().map(Value::Str).collect())
    }
}

/// One value for every entity, or one each (a per-applier parameter such as `hold_ms`).
#[derive(Debug, Clone, PartialEq)]
pub enum PerEntity<T> {
    /// The same for all.
    All(T),
    /// One each, in order.
    Each(Vec<T>),
}

impl<T: Copy> PerEntity<T> {
    /// The value of entity `i` (the last one when a list is short; validation rejects that).
    pub fn get(&self, i: usize) -> T {
        match self {
            PerEntity::All(x) => *x,
            PerEntity::Each(v) => v[i.min(v.len().saturating_sub(1))],
        }
    }

    /// The list's length, if it is a list.
    pub fn list_len(&self) -> Option<usize> {
        match self {
            PerEntity::All(_) => None,
            PerEntity::Each(v) => Some(v.len()),
        }
    }
}

impl ParamType for PerEntity<f64> {
    const KIND: Kind = Kind::NumberOrList;
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::List(items) => items
                .iter()
                .map(f64::from_value)
                .collect::<Result<_, _>>()
                .map(PerEntity::Each),
            other => f64::from_value(other).map(PerEntity::All),
        }
    }
    fn to_value(&self) -> Value {
        match self {
            PerEntity::All(x) => x.to_value(),
            PerEntity::Each(v) => Value::List(v.iter().map(ParamType::to_value).collect()),
        }
    }
}

impl ParamType for PerEntity<u64> {
    const KIND: Kind = Kind::CountOrList;
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::List(items) => items
                .iter()
                .map(u64::from_value)
                .collect::<Result<_, _>>()
                .map(PerEntity::Each),
            other => u64::from_value(other).map(PerEntity::All),
        }
    }
    fn to_value(&self) -> Value {
        match self {
            PerEntity::All(x) => x.to_value(),
            PerEntity::Each(v) => Value::List(v.iter().map(ParamType::to_value).collect()),
        }
    }
}

impl ParamType for Vec<f64> {
    const KIND: Kind = Kind::NumberList;
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::List(items) => items.iter().map(f64::from_value).collect(),
            other => Err(format!(
                "expected a list of numbers, got {}",
                other.type_name()
            )),
        }
    }
    fn to_value(&self) -> Value {
        Value::List(self.iter().map(ParamType::to_value).collect())
    }
}

impl ParamType for Vec<u64> {
    const KIND: Kind = Kind::CountList;
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::List(items) => items.iter().map(u64::from_value).collect(),
            other => Err(format!(
                "expected a list of integers, got {}",
                other.type_name()
            )),
        }
    }
    fn to_value(&self) -> Value {
        Value::List(self.iter().map(ParamType::to_value).collect())
    }
}

/// Reads the fields of one table in an array of tables: `rows[index]` must be a table whose
/// keys are among `fields`; gives (key, value) pairs.
pub fn table_fields<'v>(
    what: &str,
    index: usize,
    value: &'v Value,
    fields: &[&str],
) -> Result<&'v [(String, Value)], String> {
    let Value::Table(entries) = value else {
        return Err(format!(
            "{what}[{index}] must be a table {{ {} }}, got {}",
            fields.join(", "),
            value.type_name()
        ));
    };
    if let Some((key, _)) = entries.iter().find(|(k, _)| !fields.contains(&k.as_str())) {
        return Err(format!(
            "{what}[{index}]: unknown key `{key}`; valid keys: {}",
            fields.join(", ")
        ));
    }
    Ok(entries)
}

/// One field of a table read by [`table_fields`], or `None` when absent.
pub fn field<'v>(entries: &'v [(String, Value)], key: &str) -> Option<&'v Value> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// One cell of an output row, written with the contract's number rules.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// A count, written as an integer (`12`).
    Count(u64),
    /// A float, written in shortest round-trip form (`4.5`, `12` for 12.0).
    Float(f64),
    /// A flag, written `0` or `1`.
    Flag(bool),
    /// A string, written bare.
    Text(String),
    /// Not applicable at this row: an empty cell.
    Empty,
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Count(n) => write!(f, "{n}"),
            Cell::Float(x) => write!(f, "{x}"),
            Cell::Flag(b) => f.write_str(if *b { "1" } else { "0" }),
            Cell::Text(s) => f.write_str(s),
            Cell::Empty => Ok(()),
        }
    }
}

/// Conversion of a column field into its [`Cell`].
pub trait ToCell {
    /// Whether the column holds numbers.
    const NUMERIC: bool;
    /// The cell.
    fn to_cell(&self) -> Cell;
}

impl ToCell for u64 {
    const NUMERIC: bool = true;
    fn to_cell(&self) -> Cell {
        Cell::Count(*self)
    }
}
impl ToCell for f64 {
    const NUMERIC: bool = true;
    fn to_cell(&self) -> Cell {
        Cell::Float(*self)
    }
}
impl ToCell for bool {
    const NUMERIC: bool = true;
    fn to_cell(&self) -> Cell {
        Cell::Flag(*self)
    }
}
impl ToCell for String {
    const NUMERIC: bool = false;
    fn to_cell(&self) -> Cell {
        Cell::Text(self.clone())
    }
}
impl<T: ToCell> ToCell for Option<T> {
    const NUMERIC: bool = T::NUMERIC;
    fn to_cell(&self) -> Cell {
        self.as_ref().map_or(Cell::Empty, ToCell::to_cell)
    }
}

/// A row type whose fields are output columns, in order.
pub trait Columns {
    /// The columns, in field order.
    const SPECS: &'static [ColumnSpec];
    /// The row's cells, in the same order.
    fn cells(&self) -> Vec<Cell>;
}

/// The entity type of a model without entity rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoEntity;

impl Columns for NoEntity {
    const SPECS: &'static [ColumnSpec] = &[];
    fn cells(&self) -> Vec<Cell> {
        Vec::new()
    }
}

/// Declares a string-valued parameter type with a fixed set of options.
#[macro_export]
macro_rules! choice {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[doc = $doc:literal])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name { $($(#[doc = $doc])* $variant),+ }

        impl $crate::ParamType for $name {
            const KIND: $crate::Kind = $crate::Kind::Choice(&[$($text),+]);
            fn from_value(value: &$crate::Value) -> Result<Self, String> {
                match value {
                    $($crate::Value::Str(s) if s == $text => Ok($name::$variant),)+
                    other => Err(format!(
                        "expected {}, got {}",
                        <Self as $crate::ParamType>::KIND,
                        match other { $crate::Value::Str(_) => other.to_string(), _ => other.type_name().to_string() }
                    )),
                }
            }
            fn to_value(&self) -> $crate::Value {
                $crate::Value::Str(match self { $($name::$variant => $text),+ }.to_string())
            }
        }
    };
}

/// Declares a model's parameter struct: each field with its doc comment (the meaning), its
/// type (a [`ParamType`]) and its default. Generates the struct, `Default`, `SPECS` in field
/// order and `from_values`, which reads values given in that order.
#[macro_export]
macro_rules! params {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($(#[doc = $doc:literal])+ $field:ident : $ty:ty = $default:expr),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name { $($(#[doc = $doc])+ pub $field: $ty),+ }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default),+ }
            }
        }

        impl $name {
            /// The parameters, in declared order.
            pub const SPECS: &'static [$crate::ParamSpec] = &[$($crate::ParamSpec {
                key: stringify!($field),
                kind: <$ty as $crate::ParamType>::KIND,
                meaning: concat!($($doc),+),
                default: || <$ty as $crate::ParamType>::to_value(&$default),
            }),+];

            /// Reads the parameters from values in `SPECS` order (the binary fills defaults).
            pub fn from_values(values: &[$crate::Value]) -> Result<Self, $crate::ParamError> {
                let mut values = values.iter();
                Ok($name { $($field: {
                    let key = stringify!($field);
                    let value = values.next().ok_or_else(|| $crate::ParamError::new(key, "missing"))?;
                    <$ty as $crate::ParamType>::from_value(value).map_err(|m| $crate::ParamError::new(key, m))?
                }),+ })
            }
        }
    };
}

/// Declares a row of output columns (a model's metrics, or its entity rows): each field with
/// its doc comment (the meaning) and a [`ToCell`] type. The field names are the CSV headers.
#[macro_export]
macro_rules! columns {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($(#[doc = $doc:literal])+ $field:ident : $ty:ty),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name { $($(#[doc = $doc])+ pub $field: $ty),+ }

        impl $crate::Columns for $name {
            const SPECS: &'static [$crate::ColumnSpec] = &[$($crate::ColumnSpec {
                name: stringify!($field),
                meaning: concat!($($doc),+),
                numeric: <$ty as $crate::declare::ToCell>::NUMERIC,
            }),+];
            fn cells(&self) -> Vec<$crate::Cell> {
                vec![$($crate::declare::ToCell::to_cell(&self.$field)),+]
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_follow_the_number_rules() {
        assert_eq!(Cell::Count(12).to_string(), "12");
        assert_eq!(Cell::Float(12.0).to_string(), "12");
        assert_eq!(Cell::Float(206.5).to_string(), "206.5");
        assert_eq!(Cell::Float(1000.0 / 6.0).to_string(), "166.66666666666666");
        assert_eq!(Cell::Flag(true).to_string(), "1");
        assert_eq!(Cell::Empty.to_string(), "");
    }

    #[test]
    fn counts_take_only_integers_and_floats_take_both() {
        assert_eq!(u64::from_value(&Value::Int(3)), Ok(3));
        assert!(u64::from_value(&Value::Float(3.0)).is_err());
        assert!(u64::from_value(&Value::Int(-1)).is_err());
        assert_eq!(f64::from_value(&Value::Int(3)), Ok(3.0));
        assert!(f64::from_value(&Value::Str("3".into())).is_err());
    }

    #[test]
    fn units_come_from_suffixes() {
        assert_eq!(unit_of("hold_ms"), "ms");
        assert_eq!(unit_of("lost_pct"), "%");
        assert_eq!(unit_of("capacity_per_s"), "1/s");
        assert_eq!(unit_of("clients"), "");
    }
}
