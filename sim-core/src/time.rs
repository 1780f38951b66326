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
    let ns = ms * NS_PER_MS;
    // 2^64 is exactly representable; anything at or above it does not fit.
    if ns >= 18_446_744_073_709_551_616.0 {
        return None;
    }
    Some(round_non_negative(ns))
}

/// Why [`ms_to_ns`] refused `ms`, as the end of a sentence naming the key: negative, not a
/// number, or past what virtual time holds.
pub fn bad_duration(ms: f64) -> String {
    // Huge values in scientific form, not 300 digits.
    let shown = if ms.is_finite() && ms.abs() >= 1e15 {
        format!("{ms:e}")
    } else {
        ms.to_string()
    };
    if ms.is_nan() || ms.is_infinite() {
        format!("must be a finite number of ms, got {shown}")
    } else if ms < 0.0 {
        format!("must be a duration ≥ 0 ms, got {shown}")
    } else {
        format!(
            "must be at most {} ms (about 584 years: virtual time counts nanoseconds in 64 bits), got {shown}",
            u64::MAX / 1_000_000
        )
    }
}

/// `x.round()` for 0 ≤ x < 2^64, without the library call `round` becomes on baseline x86-64
/// (it sits on the path of every random draw). Below 2^52 the fraction `x − trunc(x)` is exact,
/// so comparing it with 0.5 rounds half away from zero exactly as `round` does; from 2^52 on
/// every f64 is already whole.
#[inline]
fn round_non_negative(x: f64) -> u64 {
    let whole = x as u64; // truncates
    if x < 4_503_599_627_370_496.0 && x - whole as f64 >= 0.5 {
        whole + 1
    } else {
        whole
    }
}

/// Converts nanoseconds to milliseconds as f64 (exact for spans below 2^53 ns, about 104 days).
pub fn ns_to_ms(ns: Nanos) -> f64 {
    ns as f64 / NS_PER_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_duration_says_why() {
        assert!(bad_duration(-5.0).ends_with("≥ 0 ms, got -5"));
        assert!(bad_duration(f64::NAN).contains("finite"));
        // 1e300 ms is far past u64::MAX ns = 18,446,744,073,709 ms (and shown as 1e300).
        let huge = bad_duration(1e300);
        assert!(
            huge.contains("at most 18446744073709 ms") && huge.ends_with("got 1e300"),
            "{huge}"
        );
        assert_eq!(ms_to_ns(1e300), None);
    }

    #[test]
    fn rounds_to_nearest_nanosecond() {
        assert_eq!(ms_to_ns(6.0), Some(6_000_000));
        assert_eq!(ms_to_ns(0.0000004), Some(0));
        assert_eq!(ms_to_ns(0.0000006), Some(1));
        // 1000 / 6 ms = 166.666… ms → 166_666_667 ns (nearest).
        assert_eq!(ms_to_ns(1000.0 / 6.0), Some(166_666_667));
    }

    #[test]
    fn rounding_matches_the_library_round() {
        // Halves, the largest double below 0.5, values around 2^52 and 2^53, and a sweep.
        let cases = [
            0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            1e-300,
            4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            4_503_599_627_370_497.0,
            9_007_199_254_740_993.0,
            1e19,
        ];
        for x in cases {
            assert_eq!(round_non_negative(x), x.round() as u64, "{x}");
        }
        let mut x = 0.0f64;
        while x < 1e6 {
            assert_eq!(round_non_negative(x), x.round() as u64, "{x}");
            x = x * 1.000_37 + 0.013_7;
        }
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
