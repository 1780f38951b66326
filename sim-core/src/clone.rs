//! `Clone` with a `clone_from` that reuses the target's allocations.
//!
//! `#[derive(Clone)]` leaves `clone_from` at its default, `*self = source.clone()`, which
//! allocates every buffer anew. An explorer copies a run's whole state into a recycled one
//! for every transition it tries, so a state of a few dozen buffers would cost a few dozen
//! allocations each time; field by field, `Vec::clone_from` keeps the room it has.

/// Implements `Clone` for a struct field by field, `clone_from` included (each field's own
/// `clone_from`, so a `Vec` keeps its room).
///
/// The list must name every field: it is matched against the struct with an exhaustive
/// pattern, so a field added later and not listed is a compile error, never a field left
/// uncopied.
///
/// ```
/// #[derive(Debug, PartialEq)]
/// struct Log { lines: Vec<String>, count: u64 }
/// sim_core::clone_in_place!(Log { lines, count });
///
/// let from = Log { lines: vec!["a".into()], count: 1 };
/// let mut to = Log { lines: Vec::with_capacity(64), count: 0 };
/// to.clone_from(&from);
/// assert_eq!(to, from);
/// assert!(to.lines.capacity() >= 64, "the room it had is kept");
/// ```
#[macro_export]
macro_rules! clone_in_place {
    ($ty:ident <$lt:lifetime> { $($field:ident),+ $(,)? }) => {
        impl<$lt> Clone for $ty<$lt> {
            fn clone(&self) -> Self {
                let $ty { $($field),+ } = self;
                $ty { $($field: Clone::clone($field)),+ }
            }

            fn clone_from(&mut self, source: &Self) {
                let $ty { $($field),+ } = source;
                $(Clone::clone_from(&mut self.$field, $field);)+
            }
        }
    };
    ($ty:ident $(<$($g:ident),+>)? { $($field:ident),+ $(,)? }) => {
        impl $(<$($g: Clone),+>)? Clone for $ty $(<$($g),+>)? {
            fn clone(&self) -> Self {
                let $ty { $($field),+ } = self;
                $ty { $($field: Clone::clone($field)),+ }
            }

            fn clone_from(&mut self, source: &Self) {
                let $ty { $($field),+ } = source;
                $(Clone::clone_from(&mut self.$field, $field);)+
            }
        }
    };
}
