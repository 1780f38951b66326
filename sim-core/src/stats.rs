//! Statistics over recorded durations: exact mean, nearest-rank percentiles, max, count.

use hdrhistogram::Histogram;

use crate::time::{Nanos, ns_to_ms};

/// The 1-based nearest rank of percentile `p` among `n` samples: `ceil(p / 100 × n)`, at least 1.
///
/// `p × n` is computed before dividing by 100 so that whole percentiles of whole counts are
/// exact (95 × 200 / 100 = 190, where 0.95 × 200 would already be rounded).
pub fn percentile_rank(p: f64, n: usize) -> usize {
    let rank = (p * n as f64 / 100.0).ceil();
    (rank as usize).clamp(1, n.max(1))
}

/// The `p`-th percentile of `sorted` (ascending) by `method`, as [`Samples::percentile_ms`]
/// reads it; `None` when there are none.
pub fn percentile_of(sorted: &[f64], p: f64, method: Percentile) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    Some(match method {
        Percentile::NearestRank => sorted[percentile_rank(p, n) - 1],
        Percentile::Linear => {
            let h = (n - 1) as f64 * (p / 100.0).clamp(0.0, 1.0);
            let lo = (h.floor() as usize).min(n - 1);
            let hi = (lo + 1).min(n - 1);
            sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
        }
    })
}

/// At most `max_points` of `sorted` (ascending): all of them, or evenly spaced order
/// statistics (quantiles (k + ½) / `max_points`), as [`Samples::distribution_ms`] picks.
pub fn order_statistics(sorted: &[f64], max_points: usize) -> Vec<f64> {
    let n = sorted.len();
    if n <= max_points {
        return sorted.to_vec();
    }
    (0..max_points)
        .map(|k| sorted[(((k as f64 + 0.5) / max_points as f64 * n as f64) as usize).min(n - 1)])
        .collect()
}

/// Durations recorded during a run (say, every request's wait), in nanoseconds.
///
/// Reserve the expected count up front ([`Samples::with_capacity`]) and recording never
/// allocates inside the event loop.
#[derive(Debug)]
pub struct Samples {
    /// Every sample (exact statistics).
    values: Store,
    /// Or a histogram of them (streaming statistics, `Stats::Hdr`; about 400 KB).
    hist: Option<Box<Histogram<u64>>>,
    count: u64,
    sum: u128,
    max: Nanos,
    method: Percentile,
    /// Exact samples kept at most: past this many they move into a histogram (`u64::MAX`:
    /// no cap, or moved already). One comparison per sample decides it.
    cap: u64,
    /// The multiset hash of the exact samples once computed (0: not known): an explorer
    /// hashes a run's state at every step, and most steps record nothing, so the sum over
    /// every sample is taken once per change, not per step. `record` forgets it.
    spread: Known,
    /// Where the exact samples are partitioned by the selections so far.
    selected: Selected,
}

/// Ranks (0-based) at which the exact samples are partitioned by earlier selections
/// (every sample before a rank is at most the one at it, every one after at least), in
/// ascending order. A selection then runs between the two known ranks around its own: a
/// run's p50, p95, p99 and p99.9, asked in that order, cost about 1.6 passes over the
/// samples instead of four. Recording a sample forgets them.
#[derive(Debug, Default, Clone, Copy)]
struct Selected {
    ranks: [usize; 8],
    len: u8,
}

impl Selected {
    /// Where to select rank `index` among `n` samples: `Ok(())` when it is known already,
    /// else the range `lo..hi` around it, and where its rank goes in the list.
    fn around(&self, index: usize, n: usize) -> Result<(usize, usize, usize), ()> {
        let ranks = &self.ranks[..usize::from(self.len)];
        let at = ranks.partition_point(|&r| r < index);
        if ranks.get(at) == Some(&index) {
            return Err(());
        }
        let lo = if at == 0 { 0 } else { ranks[at - 1] + 1 };
        Ok((lo, ranks.get(at).copied().unwrap_or(n), at))
    }

    /// Rank `index` is now partitioned, at place `at` of the list (kept when there is room).
    fn insert(&mut self, at: usize, index: usize) {
        let len = usize::from(self.len);
        if len < self.ranks.len() {
            self.ranks.copy_within(at..len, at + 1);
            self.ranks[at] = index;
            self.len += 1;
        }
    }
}

/// A number computed from `&self` and kept, 0 while not known. Atomic (relaxed: a plain
/// load and store) rather than a `Cell`, so that a run's state can be shared by threads.
#[derive(Debug, Default)]
struct Known(std::sync::atomic::AtomicU64);

impl Known {
    #[inline]
    fn get(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    #[inline]
    fn set(&self, x: u64) {
        self.0.store(x, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for Known {
    fn clone(&self) -> Self {
        Known(std::sync::atomic::AtomicU64::new(self.get()))
    }
}

/// Exact samples in 4 bytes each while every one fits (below 2^32 ns, 4.29 s: most waits),
/// widened once to 8 bytes by the first that does not. Half the memory, half the pages a
/// run touches, for the same values.
#[derive(Debug)]
enum Store {
    Narrow(Vec<u32>),
    Wide(Vec<Nanos>),
}

impl Clone for Store {
    fn clone(&self) -> Self {
        match self {
            Store::Narrow(v) => Store::Narrow(v.clone()),
            Store::Wide(v) => Store::Wide(v.clone()),
        }
    }

    /// Into the room `self` already has when both are as wide: an explorer copies a run's
    /// state into a recycled one for every transition, and must not allocate each time.
    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (Store::Narrow(to), Store::Narrow(from)) => to.clone_from(from),
            (Store::Wide(to), Store::Wide(from)) => to.clone_from(from),
            (to, from) => *to = from.clone(),
        }
    }
}

clone_in_place!(Samples {
    values,
    hist,
    count,
    sum,
    max,
    method,
    cap,
    spread,
    selected
});

impl Default for Store {
    fn default() -> Self {
        Store::Narrow(Vec::new())
    }
}

impl Store {
    #[inline]
    fn push(&mut self, value: Nanos) {
        match self {
            Store::Narrow(v) => match u32::try_from(value) {
                Ok(x) => v.push(x),
                Err(_) => self.widen_and_push(value),
            },
            Store::Wide(v) => v.push(value),
        }
    }

    #[cold]
    fn widen_and_push(&mut self, value: Nanos) {
        if let Store::Narrow(v) = self {
            let mut wide = Vec::with_capacity(v.capacity().max(v.len() + 1));
            wide.extend(v.iter().map(|x| Nanos::from(*x)));
            wide.push(value);
            *self = Store::Wide(wide);
        }
    }

    /// The `index`-th smallest (0-based), selected among `lo..hi` alone (the samples are
    /// partitioned at `lo - 1` and at `hi`, see [`Selected`]); reorders them.
    fn nth(&mut self, lo: usize, hi: usize, index: usize) -> Nanos {
        match self {
            Store::Narrow(v) => Nanos::from(select(&mut v[lo..hi], index - lo)),
            Store::Wide(v) => select(&mut v[lo..hi], index - lo),
        }
    }

    /// The sample at `index`, in place (the samples are partitioned there).
    fn at(&self, index: usize) -> Nanos {
        match self {
            Store::Narrow(v) => Nanos::from(v[index]),
            Store::Wide(v) => v[index],
        }
    }

    fn sorted(&self) -> Vec<Nanos> {
        let mut sorted: Vec<Nanos> = match self {
            Store::Narrow(v) => v.iter().map(|x| Nanos::from(*x)).collect(),
            Store::Wide(v) => v.clone(),
        };
        sorted.sort_unstable();
        sorted
    }
}

/// Fewer samples than this are selected among by the standard library alone.
const BRACKETED: usize = 1 << 14;
/// How many evenly spaced samples a bracket is read from, and how far on either side of
/// the rank's place among them its ends are (three standard deviations of that place).
const BRACKET_SAMPLE: usize = 4096;
const BRACKET_SPREAD: usize = 96;

/// The `k`-th smallest of `v` (0-based), leaving `v` partitioned there as
/// `select_nth_unstable` does. Over many samples, two values that bracket it are read off an
/// evenly spaced sample of `v`; one pass puts the samples below the bracket first, another
/// those above it last, and the selection runs over the few in between: about 1.5 passes
/// over `v`, where a selection over all of it takes two to three. A bracket that misses `k`
/// costs a selection over the side that holds it: the same value, later.
fn select<T: Copy + Ord>(v: &mut [T], k: usize) -> T {
    let n = v.len();
    if n < BRACKETED {
        return *v.select_nth_unstable(k).1;
    }
    let step = n / BRACKET_SAMPLE;
    let mut sample: Vec<T> = (0..BRACKET_SAMPLE)
        .map(|i| v[i * step + step / 2])
        .collect();
    let at = (k as u128 * BRACKET_SAMPLE as u128 / n as u128) as usize;
    // The bracket's ends, two order statistics of the sample: each by a selection, with no
    // sort of the whole sample.
    let (low_at, high_at) = (
        at.saturating_sub(BRACKET_SPREAD),
        (at + BRACKET_SPREAD).min(BRACKET_SAMPLE - 1),
    );
    let (_, &mut low, rest) = sample.select_nth_unstable(low_at);
    let high = match high_at - low_at {
        0 => low,
        d => *rest.select_nth_unstable(d - 1).1,
    };
    let below = partition(v, |x| x < low);
    if k < below {
        return *v[..below].select_nth_unstable(k).1;
    }
    let above = below + partition(&mut v[below..], |x| x <= high);
    if k >= above {
        return *v[above..].select_nth_unstable(k - above).1;
    }
    if low == high {
        // Every sample between is that one value.
        return low;
    }
    *v[below..above].select_nth_unstable(k - below).1
}

/// Moves the samples for which `first` holds before the others (in no order): how many.
fn partition<T: Copy>(v: &mut [T], first: impl Fn(T) -> bool) -> usize {
    let (mut i, mut j) = (0, v.len());
    loop {
        while i < j && first(v[i]) {
            i += 1;
        }
        while i < j && !first(v[j - 1]) {
            j -= 1;
        }
        if i >= j {
            return i;
        }
        v.swap(i, j - 1);
        i += 1;
        j -= 1;
    }
}

/// Most quantiles a histogram's distribution gives ([`Samples::distribution_ms`]).
const HIST_POINTS: usize = 100_000;

/// How a percentile is read from the samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Percentile {
    /// The nearest rank: the `ceil(p/100 × n)`-th smallest sample (the lessons' rule; always
    /// a sample).
    #[default]
    NearestRank,
    /// Linear interpolation between the two samples around rank `(n − 1) × p/100`, counted
    /// from 0 (numpy's and pandas' default).
    Linear,
}

/// How a run keeps its samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stats {
    /// Every sample: exact nearest-rank percentiles (8 bytes a sample).
    #[default]
    Exact,
    /// An HDR histogram with 3 significant digits: percentiles within 0.1% of the exact
    /// ones (never below), in flat memory (about 400 KB) however many samples. Count,
    /// mean and max stay exact.
    Hdr,
}

/// Significant digits of the `Hdr` histogram: a relative error of at most 10^-3.
pub const HDR_DIGITS: u8 = 3;

/// Samples are hashed as a multiset (the count, sum and maximum, and a sum of each value's
/// own mix), in no order: an explorer's two orders that recorded the same waits reach the
/// same state.
/// What one sample adds (wrapping) to the multiset word a [`Samples`] is hashed by: an
/// explorer that keeps a run's samples as that word alone (its flat back end) adds the
/// same, so it tells apart the states the run's own hash does.
pub fn sample_spread(value: u64) -> u64 {
    // splitmix64's finalizer: each value spread over the word before the sum.
    let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl std::hash::Hash for Samples {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let mix = sample_spread;
        let mut spread = self.spread.get();
        if spread == 0 {
            spread = match &self.values {
                Store::Narrow(v) => v.iter().fold(0, |a, x| a.wrapping_add(mix(u64::from(*x)))),
                Store::Wide(v) => v.iter().fold(0, |a, x| a.wrapping_add(mix(*x))),
            };
            self.spread.set(spread);
        }
        (self.count, self.sum, self.max, spread, self.hist.is_some()).hash(state);
    }
}

impl Default for Samples {
    fn default() -> Self {
        Samples {
            values: Store::default(),
            hist: None,
            count: 0,
            sum: 0,
            max: 0,
            method: Percentile::default(),
            cap: u64::MAX,
            spread: Known::default(),
            selected: Selected::default(),
        }
    }
}

impl Samples {
    /// Empty, with room for `n` samples.
    pub fn with_capacity(n: usize) -> Self {
        Samples {
            values: Store::Narrow(Vec::with_capacity(n)),
            ..Samples::default()
        }
    }

    /// Empty, keeping samples as `stats` says (room for `n` when exact).
    pub fn new(stats: Stats, n: usize) -> Self {
        match stats {
            Stats::Exact => Samples::with_capacity(n),
            Stats::Hdr => Samples {
                // Any duration up to 2^62 ns (146 years) fits; `record` saturates above.
                hist: Histogram::new_with_bounds(1, 1 << 62, HDR_DIGITS)
                    .ok()
                    .map(Box::new),
                ..Samples::default()
            },
        }
    }

    /// Empty, keeping samples as `stats` says, but exact ones only up to `cap`: the first
    /// sample past it moves them all into an HDR histogram (as [`Stats::Hdr`]: percentiles
    /// within 0.1%, never below; count, mean and max exact). Memory then stays flat however
    /// many follow. Room is reserved for `min(n, cap)`.
    pub fn capped(stats: Stats, n: usize, cap: usize) -> Self {
        let mut s = Samples::new(stats, n.min(cap));
        // A histogram from the start, or no cap (0): never moved.
        if cap > 0 && s.hist.is_none() {
            s.cap = cap as u64;
        }
        s
    }

    /// Moves the exact samples into a histogram (the cap was passed).
    #[cold]
    fn move_into_histogram(&mut self) {
        self.cap = u64::MAX;
        let Ok(mut h) = Histogram::<u64>::new_with_bounds(1, 1 << 62, HDR_DIGITS) else {
            return;
        };
        // Equal samples in a row are recorded at once (n records of a value are one record
        // of it n times): a million waits of 0 cost one record, not a million.
        let mut run = (0, 0);
        let mut add = |x: u64| {
            if run.1 > 0 && run.0 == x {
                run.1 += 1;
            } else {
                if run.1 > 0 {
                    h.saturating_record_n(run.0, run.1);
                }
                run = (x, 1);
            }
        };
        match &self.values {
            Store::Narrow(v) => v.iter().for_each(|x| add(u64::from(*x))),
            Store::Wide(v) => v.iter().for_each(|x| add(*x)),
        }
        if run.1 > 0 {
            h.saturating_record_n(run.0, run.1);
        }
        self.values = Store::default();
        self.hist = Some(Box::new(h));
        self.spread.set(0);
        self.selected.len = 0;
    }

    /// The same samples, read with percentile `method`.
    pub fn with_percentile(mut self, method: Percentile) -> Self {
        self.method = method;
        self
    }

    /// Records one duration.
    #[inline(always)]
    pub fn record(&mut self, value: Nanos) {
        if self.count == self.cap {
            self.move_into_histogram();
        }
        match &mut self.hist {
            None => self.values.push(value),
            Some(h) => h.saturating_record(value),
        }
        self.spread.set(0);
        self.selected.len = 0;
        self.count += 1;
        self.sum += u128::from(value);
        self.max = self.max.max(value);
    }

    /// The exact sum of the samples, in nanoseconds.
    pub fn sum_ns(&self) -> u128 {
        self.sum
    }

    /// Number of samples.
    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// Mean in milliseconds from the exact integer sum (`None` when empty).
    pub fn mean_ms(&self) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        // One division of the exact sum: the correctly rounded mean whenever the sum fits
        // in 53 bits, with no accumulated error.
        Some(self.sum as f64 / (self.count as f64 * 1_000_000.0))
    }

    /// Largest sample in milliseconds (`None` when empty).
    pub fn max_ms(&self) -> Option<f64> {
        (self.count > 0).then(|| ns_to_ms(self.max))
    }

    /// Nearest-rank percentile `p` (0 < p ≤ 100) in milliseconds: sort ascending, take index
    /// `ceil(p / 100 × n) − 1`. Exact samples use selection, not a full sort (O(n)), and are
    /// reordered, which nothing else depends on. A histogram gives the top of the bucket
    /// holding that rank: at most 0.1% above the exact value.
    pub fn percentile_ms(&mut self, p: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        if self.method == Percentile::Linear {
            return Some(self.linear_ms(p));
        }
        let rank = percentile_rank(p, self.count as usize);
        if let Some(h) = &self.hist {
            // Halfway into the rank, so that rounding in the histogram's own `ceil(q × n)`
            // cannot reach the next sample.
            let value = h.value_at_quantile((rank as f64 - 0.5) / self.count as f64);
            return Some(ns_to_ms(value.min(self.max)));
        }
        Some(ns_to_ms(self.rank_value(rank - 1)))
    }

    /// The `index`-th smallest exact sample (0-based), selected between the ranks known
    /// around it.
    fn rank_value(&mut self, index: usize) -> Nanos {
        match self.selected.around(index, self.count as usize) {
            Err(()) => self.values.at(index),
            Ok((lo, hi, at)) => {
                let x = self.values.nth(lo, hi, index);
                self.selected.insert(at, index);
                x
            }
        }
    }

    /// Linear interpolation at rank `h = (n − 1) p / 100` (0-based): `x[⌊h⌋] + (h − ⌊h⌋) ×
    /// (x[⌊h⌋ + 1] − x[⌊h⌋])`, by selection (O(n)). A histogram reads its quantile `p/100`.
    fn linear_ms(&mut self, p: f64) -> f64 {
        let n = self.count as usize;
        let h = (n - 1) as f64 * (p / 100.0).clamp(0.0, 1.0);
        if let Some(hist) = &self.hist {
            return ns_to_ms(hist.value_at_quantile(p / 100.0).min(self.max));
        }
        let lo = (h.floor() as usize).min(n - 1);
        let frac = h - lo as f64;
        // Every sample after the selected one is at least as large: the next is their least.
        // The next sample above the selected one is the next rank's.
        let a = self.rank_value(lo);
        let b = if lo + 1 < n {
            self.rank_value(lo + 1)
        } else {
            a
        };
        let (a, b) = (a as f64, b as f64);
        (a + frac * (b - a)) / 1e6
    }

    /// The samples in milliseconds, ascending, for drawing their distribution: every one
    /// when there are at most `max_points` (and they are exact), else `max_points` evenly
    /// spaced order statistics (quantiles (k + ½) / `max_points`), which draw the same curve.
    pub fn distribution_ms(&self, max_points: usize) -> Vec<f64> {
        let n = self.count as usize;
        if n == 0 || max_points == 0 {
            return Vec::new();
        }
        if let Some(h) = &self.hist {
            // A histogram's quantiles are no exact samples: as many as a chart draws, and
            // never more than the samples.
            let max_points = max_points.min(HIST_POINTS).min(n);
            return (0..max_points)
                .map(|k| {
                    let q = (k as f64 + 0.5) / max_points as f64;
                    ns_to_ms(h.value_at_quantile(q).min(self.max))
                })
                .collect();
        }
        let sorted = self.values.sorted();
        if n <= max_points {
            return sorted.into_iter().map(ns_to_ms).collect();
        }
        (0..max_points)
            .map(|k| {
                let i = ((k as f64 + 0.5) / max_points as f64 * n as f64) as usize;
                ns_to_ms(sorted[i.min(n - 1)])
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {

    /// Past its cap, capped samples move into a histogram: count, mean and max stay exact,
    /// percentiles within 0.1% of the exact ones and never below.
    #[test]
    fn capped_samples_keep_exact_moments_past_the_cap() {
        let values: Vec<Nanos> = (1..=1000u64).map(|k| k * 7_919 % 100_003 * 1_000).collect();
        let mut exact = Samples::with_capacity(values.len());
        let mut capped = Samples::capped(Stats::Exact, values.len(), 100);
        for v in &values {
            exact.record(*v);
            capped.record(*v);
        }
        assert_eq!(capped.count(), 1000);
        assert_eq!(capped.sum_ns(), exact.sum_ns());
        assert_eq!(capped.max_ms(), exact.max_ms());
        for p in [50.0, 95.0, 99.0] {
            let (e, c) = (
                exact.percentile_ms(p).unwrap(),
                capped.percentile_ms(p).unwrap(),
            );
            assert!(c >= e && c <= e * 1.001, "p{p}: {c} vs {e}");
        }
        // Below its cap it is exact.
        let mut under = Samples::capped(Stats::Exact, 10, 100);
        for v in &values[..50] {
            under.record(*v);
        }
        let mut first = Samples::with_capacity(50);
        values[..50].iter().for_each(|v| first.record(*v));
        assert_eq!(under.percentile_ms(95.0), first.percentile_ms(95.0));
    }

    use super::*;
    use proptest::prelude::*;

    #[test]
    fn linear_percentiles_interpolate_as_numpy_does() {
        // numpy.percentile([1, 2, 3, 4], q) with its default (linear): 25 → 1.75, 50 → 2.5,
        // 95 → 3.85, 100 → 4; nearest rank gives 1, 2, 4, 4.
        let mut s = Samples::new(Stats::Exact, 4).with_percentile(Percentile::Linear);
        for ms in [4u64, 1, 3, 2] {
            s.record(ms * 1_000_000);
        }
        for (p, want) in [(25.0, 1.75), (50.0, 2.5), (95.0, 3.85), (100.0, 4.0)] {
            let got = s.percentile_ms(p).unwrap();
            assert!((got - want).abs() < 1e-12, "p{p}: {got}");
        }
        let mut s = Samples::new(Stats::Exact, 4);
        for ms in [4u64, 1, 3, 2] {
            s.record(ms * 1_000_000);
        }
        assert_eq!(s.percentile_ms(25.0), Some(1.0));
        assert_eq!(s.percentile_ms(95.0), Some(4.0));
    }

    #[test]
    fn a_distribution_is_every_sample_or_evenly_spaced_order_statistics() {
        let mut s = Samples::new(Stats::Exact, 4);
        for ms in [3u64, 1, 2, 4] {
            s.record(ms * 1_000_000);
        }
        assert_eq!(s.distribution_ms(10), vec![1.0, 2.0, 3.0, 4.0]);
        // Two points of four: quantiles 1/4 and 3/4 are samples at index 1 and 3.
        assert_eq!(s.distribution_ms(2), vec![2.0, 4.0]);
        assert!(Samples::default().distribution_ms(5).is_empty());
    }

    proptest! {
        #[test]
        fn hdr_percentiles_are_within_a_thousandth_of_the_exact_ones(
            values in proptest::collection::vec(0u64..10_000_000_000, 1..2000),
            p in 1.0f64..100.0,
        ) {
            let mut exact = Samples::new(Stats::Exact, values.len());
            let mut hdr = Samples::new(Stats::Hdr, 0);
            for &v in &values {
                exact.record(v);
                hdr.record(v);
            }
            prop_assert_eq!(exact.mean_ms(), hdr.mean_ms());
            prop_assert_eq!(exact.max_ms(), hdr.max_ms());
            let (e, h) = (exact.percentile_ms(p).unwrap(), hdr.percentile_ms(p).unwrap());
            // Never below, at most 0.1% above (plus the nanosecond a bucket of small values
            // spans).
            prop_assert!(h >= e && h <= e * 1.001 + 1e-6, "p{}: exact {} hdr {}", p, e, h);
        }
    }

    fn ms(values: &[u64]) -> Samples {
        let mut s = Samples::with_capacity(values.len());
        for v in values {
            s.record(v * 1_000_000);
        }
        s
    }

    #[test]
    fn nearest_rank_by_hand() {
        // 20 samples 1..=20 ms: p95 rank = ceil(0.95 × 20) = 19 → 19 ms; p50 rank 10 → 10 ms;
        // p99 rank ceil(19.8) = 20 → 20 ms.
        let mut s = ms(&(1..=20).rev().collect::<Vec<_>>());
        assert_eq!(s.percentile_ms(95.0), Some(19.0));
        assert_eq!(s.percentile_ms(50.0), Some(10.0));
        assert_eq!(s.percentile_ms(99.0), Some(20.0));
        assert_eq!(s.percentile_ms(100.0), Some(20.0));
        // 3 samples: p50 rank ceil(1.5) = 2 → the middle one.
        assert_eq!(ms(&[9, 1, 5]).percentile_ms(50.0), Some(5.0));
    }

    #[test]
    fn bracketed_selections_match_a_full_sort() {
        // Past `BRACKETED` samples a selection brackets its rank first: few distinct values
        // (the bracket's ends equal), many, sorted and reversed runs, in any order of asks.
        let mut state = 7u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            state >> 33
        };
        for (n, distinct) in [
            (16_384, 1),
            (17_000, 3),
            (40_000, 1_000_000_000),
            (70_001, 50),
        ] {
            for shape in 0..3 {
                let mut values: Vec<u64> = (0..n).map(|_| next() % distinct).collect();
                if shape == 1 {
                    values.sort_unstable();
                } else if shape == 2 {
                    values.sort_unstable_by(|a, b| b.cmp(a));
                }
                let mut s = Samples::with_capacity(n);
                values.iter().for_each(|v| s.record(*v));
                let mut sorted = values.clone();
                sorted.sort_unstable();
                for p in [50.0, 95.0, 99.0, 99.9, 0.1, 100.0, 75.0, 99.95] {
                    let want = ns_to_ms(sorted[percentile_rank(p, n) - 1]);
                    assert_eq!(
                        s.percentile_ms(p),
                        Some(want),
                        "n {n}, {distinct} values, p{p}"
                    );
                }
            }
        }
    }

    #[test]
    fn whole_percentiles_of_whole_counts_are_exact() {
        // 0.95 × 200 in floating point is not 190; 95 × 200 / 100 is.
        assert_eq!(percentile_rank(95.0, 200), 190);
        assert_eq!(percentile_rank(95.0, 400), 380);
        assert_eq!(percentile_rank(99.0, 100), 99);
        assert_eq!(percentile_rank(0.0, 10), 1);
    }

    #[test]
    fn mean_and_max_come_from_the_samples_and_none_from_no_samples() {
        let s = ms(&[0, 3, 3, 6, 9, 6]);
        assert_eq!(s.mean_ms(), Some(4.5)); // 27 / 6
        assert_eq!(s.max_ms(), Some(9.0));
        assert_eq!(s.count(), 6);
        assert_eq!(Samples::default().mean_ms(), None);
        assert_eq!(Samples::default().clone().percentile_ms(50.0), None);
    }

    proptest! {
        #[test]
        fn percentile_matches_a_full_sort(values in proptest::collection::vec(0u64..1_000_000, 1..300), p in 1u32..=100) {
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let n = sorted.len();
            let rank = (u64::from(p) * n as u64).div_ceil(100) as usize; // integer ceil
            let expected = ns_to_ms(sorted[rank - 1]);
            let mut s = Samples::with_capacity(n);
            values.iter().for_each(|v| s.record(*v));
            prop_assert_eq!(s.percentile_ms(f64::from(p)), Some(expected));
        }

        /// Percentiles asked one after another, in any order, with samples recorded in
        /// between, each select between the ranks earlier selections partitioned the
        /// samples at: every answer, by either rule, is still the one a full sort gives.
        #[test]
        fn percentiles_in_any_order_match_a_full_sort(
            values in proptest::collection::vec(0u64..1_000, 1..300),
            asks in proptest::collection::vec((0u32..=1000, 0usize..3), 1..40),
            linear in proptest::bool::ANY,
        ) {
            let method = if linear { Percentile::Linear } else { Percentile::NearestRank };
            let mut s = Samples::with_capacity(4).with_percentile(method);
            let mut all: Vec<u64> = Vec::new();
            let mut more = values.iter().copied().cycle();
            for v in values.iter().take(values.len() / 2 + 1) {
                s.record(*v);
                all.push(*v);
            }
            for (tenths, recorded) in asks {
                // Now and then a few more samples: what was known of the order is forgotten.
                for _ in 0..recorded / 2 {
                    let v = more.next().unwrap_or(0);
                    s.record(v);
                    all.push(v);
                }
                let p = f64::from(tenths) / 10.0;
                let mut sorted = all.clone();
                sorted.sort_unstable();
                let n = sorted.len();
                let want = if linear {
                    let h = (n - 1) as f64 * (p / 100.0);
                    let (lo, frac) = (h.floor() as usize, h - h.floor());
                    let hi = (lo + 1).min(n - 1);
                    (sorted[lo] as f64 + frac * (sorted[hi] as f64 - sorted[lo] as f64)) / 1e6
                } else {
                    ns_to_ms(sorted[percentile_rank(p, n) - 1])
                };
                prop_assert_eq!(s.percentile_ms(p), Some(want), "p = {}", p);
            }
        }

        /// Samples kept in 4 bytes widen to 8 at the first one past 2^32 ns, wherever it
        /// comes: every statistic is the one a full sort of the values gives.
        #[test]
        fn widening_keeps_every_value(
            values in proptest::collection::vec(prop_oneof![0u64..5_000, (1u64 << 32) - 2..(1u64 << 32) + 2, 1u64 << 40..1u64 << 41], 1..200),
            p in 1u32..=100,
        ) {
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let n = sorted.len();
            let rank = (u64::from(p) * n as u64).div_ceil(100) as usize;
            let mut s = Samples::with_capacity(4);
            values.iter().for_each(|v| s.record(*v));
            prop_assert_eq!(s.distribution_ms(usize::MAX), sorted.iter().map(|v| ns_to_ms(*v)).collect::<Vec<_>>());
            prop_assert_eq!(s.percentile_ms(f64::from(p)), Some(ns_to_ms(sorted[rank - 1])));
            prop_assert_eq!(s.max_ms(), Some(ns_to_ms(sorted[n - 1])));
            // numpy's linear rule at h = (n − 1) p / 100.
            let h = (n - 1) as f64 * (f64::from(p) / 100.0);
            let (lo, frac) = (h.floor() as usize, h - h.floor());
            let hi = (lo + 1).min(n - 1);
            let want = (sorted[lo] as f64 + frac * (sorted[hi] as f64 - sorted[lo] as f64)) / 1e6;
            let mut linear = Samples::with_capacity(4).with_percentile(Percentile::Linear);
            values.iter().for_each(|v| linear.record(*v));
            prop_assert_eq!(linear.percentile_ms(f64::from(p)), Some(want));
        }
    }
}
