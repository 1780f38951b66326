//! Declaring a model's parameters and columns once: [`params!`](crate::params) and
//! [`choice!`](crate::choice) for its parameters, [`columns!`](crate::columns) for its
//! metrics and entity rows.

#[macro_use]
mod columns;
#[macro_use]
mod params;

pub use columns::{Cell, ColumnSpec, ColumnType, Columns, NoEntity, ToCell};
pub use params::{
    Kind, ListItem, Millis, ParamError, ParamSet, ParamSpec, ParamType, PerEntity, PerEntityItem,
    duration, field, positive_duration, probability, table_fields, unit_of,
};
