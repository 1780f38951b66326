//! The benchmark suite lives in `suite/` (`cargo bench -p coordsim-bench`); this crate has
//! no library of its own.
