//! Virtual time: integer nanoseconds, converted from and to the milliseconds configs use.

/// A point or span of virtual time in nanoseconds. Integer so that event order never depends
/// on floating-point rounding: two events at "the same time" really are at the same time.
pub type Nanos = u64;

const NS_PER_MS: f64 = 1_000_000.0;

/// Converts milliseconds (fractions allowed) to the nearest nanosecond.
///
/// Returns `None` for a negative, non-finite or too large value (more than `u64::MAX` ns,
/// about 584 years), so callers can name the offending key in their error.
pub fn ms_to_ns(ms: f64) -> Option<Nanos> {
    if !ms.is_finite() || ms < 0.0 {
        return None;
    }
    let ns = (ms * NS_PER_MS).round();
    // 2^64 is exactly representable; anything at or above it does not fit.
    if ns >= 18_446_744_073_709_551_616.0 {
        return None;
    }
    Some(ns as Nanos)
}

/// Converts nanoseconds to milliseconds as f64 (exact for spans below 2^53 ns, about 104 days).
pub fn ns_to_ms(ns: Nanos) -> f64 {
    ns as f64 / NS_PER_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_nearest_nanosecond() {
        assert_eq!(ms_to_ns(6.0), Some(6_000_000));
        assert_eq!(ms_to_ns(0.0000004), Some(0));
        assert_eq!(ms_to_ns(0.0000006), Some(1));
        // 1000 / 6 ms = 166.666… ms → 166_666_667 ns (nearest).
        assert_eq!(ms_to_ns(1000.0 / 6.0), Some(166_666_667));
    }

    #[test]
    fn rejects_impossible_durations() {
        assert_eq!(ms_to_ns(-1.0), None);
        assert_eq!(ms_to_ns(f64::NAN), None);
        assert_eq!(ms_to_ns(f64::INFINITY), None);
        assert_eq!(ms_to_ns(1e14), None); // 1e20 ns > u64::MAX
    }

    #[test]
    fn back_to_milliseconds() {
        assert_eq!(ns_to_ms(4_500_000), 4.5);
        assert_eq!(ns_to_ms(206_500_000), 206.5);
    }
}
