//! Minimal reference loops: a plain `BinaryHeap` of `(time, class, seq)` entries with the
//! same queue and lock logic as the models, and nothing else (no engine, no model API, no
//! output). The suite runs them in the same process as the models and prints the ratio.
//! They also check the models: each returns what the model must report for the same load.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use sim_core::{exponential_ms, ms_to_ns, stream};

/// The queue's statistics the suite compares with the model's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueResult {
    /// Mean wait in ms.
    pub mean_wait_ms: f64,
    /// 95th percentile wait (nearest rank) in ms.
    pub p95_wait_ms: f64,
}

/// A FIFO single server: `clients` clients, client `c` sending `per_client` requests from
/// `c × offset_ms`, every `interarrival_ms` (or, with `poisson`, at exponential gaps of that
/// mean drawn from the model's streams); service `service_ms` (or exponential of that mean).
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub clients: u32,
    pub per_client: u64,
    pub interarrival_ms: f64,
    pub offset_ms: f64,
    pub service_ms: f64,
    pub poisson: bool,
    pub seed: u64,
}

/// The queue under `load`, keeping every wait (exact nearest-rank percentiles).
pub fn queue(load: &Load) -> QueueResult {
    let mut waits: Vec<u64> = Vec::with_capacity(load.clients as usize * load.per_client as usize);
    serve(load, |w| waits.push(w));
    let n = waits.len();
    let mean_wait_ms = waits.iter().map(|&w| w as u128).sum::<u128>() as f64 / n as f64 / 1e6;
    let rank = ((95.0 * n as f64 / 100.0).ceil() as usize).clamp(1, n);
    let (_, p95, _) = waits.select_nth_unstable(rank - 1);
    QueueResult {
        mean_wait_ms,
        p95_wait_ms: *p95 as f64 / 1e6,
    }
}

/// The floor: the same queue keeping only the sum and count of the waits (no sample per
/// request, so no percentile): what a bare heap loop costs. Returns the mean wait in ms.
pub fn queue_sums(load: &Load) -> f64 {
    let (mut sum, mut n) = (0u128, 0u64);
    serve(load, |w| {
        sum += u128::from(w);
        n += 1;
    });
    sum as f64 / n as f64 / 1e6
}

/// Runs the queue, handing each request's wait (ns) to `wait`.
fn serve(load: &Load, mut wait: impl FnMut(u64)) {
    let Load {
        clients,
        per_client,
        interarrival_ms,
        offset_ms,
        service_ms,
        poisson,
        seed,
    } = *load;
    const DEPART: u32 = u32::MAX;
    let ia = ms_to_ns(interarrival_ms).unwrap_or(1);
    let offset = ms_to_ns(offset_ms).unwrap_or(0);
    let service_ns = ms_to_ns(service_ms).unwrap_or(1);
    let mut arrival_rngs: Vec<_> = (0..clients)
        .map(|c| stream(seed, &format!("arrivals/client-{c}")))
        .collect();
    let mut elapsed = vec![0.0f64; clients as usize];
    let mut sent = vec![0u64; clients as usize];
    let mut service_rng = stream(seed, "service/instance-0");
    let mut next = |c: u32, sent: u64, elapsed: &mut [f64]| -> u64 {
        let base = offset * u64::from(c);
        if poisson {
            elapsed[c as usize] += exponential_ms(&mut arrival_rngs[c as usize], interarrival_ms);
            base + ms_to_ns(elapsed[c as usize]).unwrap_or(u64::MAX)
        } else {
            base + ia * sent
        }
    };
    let mut service = || {
        if poisson {
            ms_to_ns(exponential_ms(&mut service_rng, service_ms)).unwrap_or(u64::MAX)
        } else {
            service_ns
        }
    };
    // (time, class, seq): departures (class 0) before arrivals (1 + client) at an instant.
    let mut heap: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut push = |heap: &mut BinaryHeap<_>, t: u64, class: u64, e: u32| {
        heap.push(Reverse((t, (class << 40) | seq, e)));
        seq += 1;
    };
    for c in 0..clients {
        let t = next(c, 0, &mut elapsed);
        push(&mut heap, t, 1 + u64::from(c), c);
    }
    let mut waiting: VecDeque<u64> = VecDeque::new();
    let mut busy = false;
    while let Some(Reverse((now, _, e))) = heap.pop() {
        if e == DEPART {
            match waiting.pop_front() {
                Some(arrived) => {
                    wait(now - arrived);
                    let s = service();
                    push(&mut heap, now + s, 0, DEPART);
                }
                None => busy = false,
            }
        } else {
            if busy {
                waiting.push_back(now);
            } else {
                busy = true;
                wait(0);
                let s = service();
                push(&mut heap, now + s, 0, DEPART);
            }
            sent[e as usize] += 1;
            if sent[e as usize] < per_client {
                let t = next(e, sent[e as usize], &mut elapsed);
                push(&mut heap, t, 1 + u64::from(e), e);
            }
        }
    }
}

/// A polled lock: `appliers` appliers start at 0; one that finds the lock free takes it and
/// writes after `hold_ms`, releasing it; one that finds it taken retries every `poll_ms`.
/// Returns the failed attempts of all appliers (the model's `rounds_total`).
pub fn polled_lock(appliers: u32, hold_ms: f64, poll_ms: f64) -> u64 {
    const START_OR_RETRY: u64 = 0;
    let hold = ms_to_ns(hold_ms).unwrap_or(0);
    let poll = ms_to_ns(poll_ms).unwrap_or(1);
    // Events: (time, seq, applier << 1 | is_write).
    let mut heap: BinaryHeap<Reverse<(u64, u64, u64)>> = BinaryHeap::new();
    let mut seq = 0u64;
    for a in 0..u64::from(appliers) {
        heap.push(Reverse((0, seq, a << 1 | START_OR_RETRY)));
        seq += 1;
    }
    let mut owner: Option<u64> = None;
    let mut rounds = 0u64;
    while let Some(Reverse((now, _, e))) = heap.pop() {
        let a = e >> 1;
        if e & 1 == 1 {
            // The holder writes and releases.
            owner = None;
        } else if owner.is_none() {
            owner = Some(a);
            heap.push(Reverse((now + hold, seq, a << 1 | 1)));
            seq += 1;
        } else {
            rounds += 1;
            heap.push(Reverse((now + poll, seq, a << 1)));
            seq += 1;
        }
    }
    rounds
}
