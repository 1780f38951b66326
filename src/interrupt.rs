//! Ctrl-C: a flag every run looks at, and the error of a command it stopped (exit 130).
//! The lowest layer that needs it (runs, output folders) reads it here.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Raised by Ctrl-C: runs stop, and the command says what it wrote.
pub(crate) fn stop_flag() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    Arc::clone(FLAG.get_or_init(|| Arc::new(AtomicBool::new(false))))
}

/// Whether Ctrl-C was pressed.
pub(crate) fn stop_requested() -> bool {
    stop_flag().load(Ordering::Relaxed)
}

/// The error of a command stopped by Ctrl-C (exit 130).
#[derive(Debug, thiserror::Error)]
#[error("interrupted (Ctrl-C)")]
pub(crate) struct Interrupted;
