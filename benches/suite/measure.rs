//! Measuring a job: wall time (the median of repeated runs) and peak heap memory (a
//! counting allocator around mimalloc, the shipped binary's allocator), and alternated
//! pairs of two jobs whose ratio is the median of the pairs'.

use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use mimalloc::MiMalloc as System;

/// Counts heap bytes in use and their peak, so each job reports the memory it needed.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);

static PEAK: AtomicUsize = AtomicUsize::new(0);

/// Whether allocations are counted: off while a job on several threads is timed (their
/// shared counter would be the bottleneck, not the job).
static COUNTING: AtomicBool = AtomicBool::new(true);

// The one `unsafe` of the project: a counting wrapper of mimalloc (benches/Cargo.toml).
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        if COUNTING.load(Ordering::Relaxed) {
            CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            if new_size > layout.size() {
                let grown = new_size - layout.size();
                let now = CURRENT.fetch_add(grown, Ordering::Relaxed) + grown;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A job's median time and the peak heap it used (over what was in use before it).
pub(crate) struct Measured {
    pub(crate) seconds: f64,
    pub(crate) peak_bytes: usize,
}

pub(crate) fn measure<T>(reps: usize, mut job: impl FnMut() -> T) -> (Measured, T) {
    let mut times = Vec::with_capacity(reps);
    let mut peak = 0;
    let mut last = None;
    for _ in 0..reps {
        drop(last.take());
        let base = CURRENT.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let start = Instant::now();
        let out = black_box(job());
        times.push(start.elapsed().as_secs_f64());
        peak = peak.max(PEAK.load(Ordering::Relaxed).saturating_sub(base));
        last = Some(out);
    }
    times.sort_by(f64::total_cmp);
    let measured = Measured {
        seconds: times[times.len() / 2],
        peak_bytes: peak,
    };
    (measured, last.expect("at least one repetition"))
}

/// A job's median time over `reps`, its allocations not counted (a job on several
/// threads): whatever it allocates it frees before it returns, so the count stays right.
pub(crate) fn timed<T: Copy>(reps: usize, mut job: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::with_capacity(reps);
    let mut out = None;
    for _ in 0..reps {
        COUNTING.store(false, Ordering::Relaxed);
        let start = Instant::now();
        let got = black_box(job());
        times.push(start.elapsed().as_secs_f64());
        COUNTING.store(true, Ordering::Relaxed);
        out = Some(got);
    }
    times.sort_by(f64::total_cmp);
    (
        times[times.len() / 2],
        out.expect("at least one repetition"),
    )
}

pub(crate) fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

pub(crate) fn verdict(ok: bool) -> &'static str {
    if ok { "ok" } else { "MISSED" }
}

/// The model's job and the reference's, alternated `pairs` times so that drifts of the
/// machine's speed hit both alike; the ratio is the median of the pairs' ratios.
pub(crate) fn paired<T, U>(
    pairs: usize,
    mut model: impl FnMut() -> T,
    mut reference: impl FnMut() -> U,
) -> (Measured, Measured, f64, T, U) {
    let mut ratios = Vec::with_capacity(pairs);
    let (mut m_all, mut r_all) = (Vec::new(), Vec::new());
    let (mut m_out, mut r_out) = (None, None);
    for _ in 0..pairs {
        let (r, out) = measure(1, &mut reference);
        r_out = Some(out);
        let (m, out) = measure(1, &mut model);
        m_out = Some(out);
        ratios.push(r.seconds / m.seconds);
        m_all.push(m);
        r_all.push(r);
    }
    ratios.sort_by(f64::total_cmp);
    let median = |mut v: Vec<Measured>| {
        v.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let peak = v.iter().map(|m| m.peak_bytes).max().unwrap_or(0);
        Measured {
            seconds: v[v.len() / 2].seconds,
            peak_bytes: peak,
        }
    };
    let ratio = ratios[ratios.len() / 2];
    (
        median(m_all),
        median(r_all),
        ratio,
        m_out.expect("ran"),
        r_out.expect("ran"),
    )
}
