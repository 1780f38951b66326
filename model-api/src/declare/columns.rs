//! A model's output columns: their specs, the cells of a row, and
//! [`columns!`](crate::columns).

use std::fmt;

/// One output column: a metric, or an entity row's column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnSpec {
    /// The CSV column name.
    pub name: &'static str,
    /// What it means (from the field's doc comment).
    pub meaning: &'static str,
    /// What its cells hold (an `Option` field may also be empty).
    pub ty: ColumnType,
}

impl ColumnSpec {
    /// True for columns holding numbers (claims and charts need them).
    pub fn numeric(&self) -> bool {
        self.ty != ColumnType::Text
    }
}

/// What the cells of a column hold, which decides how a CSV cell is read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// Whole numbers ≥ 0 ([`Cell::Count`]).
    Count,
    /// Numbers ([`Cell::Float`]).
    Float,
    /// `0` or `1` ([`Cell::Flag`]).
    Flag,
    /// Text ([`Cell::Text`]).
    Text,
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

impl Cell {
    /// An order of cells that depends on what they hold alone (an explored outcome's place
    /// in its list): counts, floats, flags, texts, then empties, each kind by its value.
    pub fn order(&self, other: &Cell) -> std::cmp::Ordering {
        let kind = |cell: &Cell| match cell {
            Cell::Count(_) => 0,
            Cell::Float(_) => 1,
            Cell::Flag(_) => 2,
            Cell::Text(_) => 3,
            Cell::Empty => 4,
        };
        match (self, other) {
            (Cell::Count(a), Cell::Count(b)) => a.cmp(b),
            (Cell::Float(a), Cell::Float(b)) => a.total_cmp(b),
            (Cell::Flag(a), Cell::Flag(b)) => a.cmp(b),
            (Cell::Text(a), Cell::Text(b)) => a.cmp(b),
            (a, b) => kind(a).cmp(&kind(b)),
        }
    }

    /// The cell as a number: counts, floats and flags (`1` / `0`); `None` for text and empty.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Count(n) => Some(*n as f64),
            Cell::Float(x) => Some(*x),
            Cell::Flag(b) => Some(if *b { 1.0 } else { 0.0 }),
            Cell::Text(_) | Cell::Empty => None,
        }
    }

    /// Reads a cell back from the text [`Display`](fmt::Display) wrote, as a column of type
    /// `ty` holds it (an empty text is [`Cell::Empty`]). Display then gives the same text again.
    pub fn parse(text: &str, ty: ColumnType) -> Result<Cell, String> {
        if text.is_empty() {
            return Ok(Cell::Empty);
        }
        match ty {
            ColumnType::Count => text
                .parse()
                .map(Cell::Count)
                .map_err(|_| format!("`{text}` is not a whole number ≥ 0")),
            ColumnType::Float => match text.parse::<f64>() {
                Ok(x) if x.to_string() == text => Ok(Cell::Float(x)),
                _ => Err(format!("`{text}` is not a number as coordsim writes it")),
            },
            ColumnType::Flag => match text {
                "0" => Ok(Cell::Flag(false)),
                "1" => Ok(Cell::Flag(true)),
                _ => Err(format!("`{text}` is not a flag (0 or 1)")),
            },
            ColumnType::Text => Ok(Cell::Text(text.to_string())),
        }
    }
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
    /// What the column holds.
    const TYPE: ColumnType;
    /// The cell.
    fn to_cell(&self) -> Cell;
}

impl ToCell for u64 {
    const TYPE: ColumnType = ColumnType::Count;
    fn to_cell(&self) -> Cell {
        Cell::Count(*self)
    }
}
impl ToCell for f64 {
    const TYPE: ColumnType = ColumnType::Float;
    fn to_cell(&self) -> Cell {
        Cell::Float(*self)
    }
}
impl ToCell for bool {
    const TYPE: ColumnType = ColumnType::Flag;
    fn to_cell(&self) -> Cell {
        Cell::Flag(*self)
    }
}
impl ToCell for String {
    const TYPE: ColumnType = ColumnType::Text;
    fn to_cell(&self) -> Cell {
        Cell::Text(self.clone())
    }
}
impl<T: ToCell> ToCell for Option<T> {
    const TYPE: ColumnType = T::TYPE;
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

/// Declares a row of output columns (a model's metrics, or its entity rows): each field with
/// its doc comment (the meaning) and a [`ToCell`] type. The field names are the CSV headers.
#[macro_export]
macro_rules! columns {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($(#[doc = $doc:literal])+ $field:ident : $ty:ty),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name { $($(#[doc = $doc])+ $vis $field: $ty),+ }

        impl $crate::Columns for $name {
            const SPECS: &'static [$crate::ColumnSpec] = &[$($crate::ColumnSpec {
                name: stringify!($field),
                meaning: concat!($($doc),+),
                ty: <$ty as $crate::declare::ToCell>::TYPE,
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
}
