//! A token-bucket rate limiter as a coordsim model: the whole of a model, in one file.
//!
//! Requests arrive every `interarrival_ms` (or at exponential gaps of that mean). The bucket
//! holds at most `burst` tokens and starts full; every `refill_ms` it gains a token (up to
//! `burst`). A request that finds a token takes it and is admitted; one that finds none is
//! rejected. At an instant, a refill runs before an arrival.

use coordsim_model::{
    ChartKind, DefaultChart, Millis, Model, ModelError, NoEntity, Output, ParamError, RunContext,
    Valid, choice, columns, params, positive_duration,
};
use sim_core::{EventQueue, Handler, SimError, Stream, exponential_ms, ms_to_ns, run};

choice! {
    /// How arrival times are drawn.
    pub enum Arrivals {
        /// Request i arrives at i × interarrival_ms.
        Schedule = "schedule",
        /// Exponential gaps of mean interarrival_ms.
        Poisson = "poisson",
    }
}

params! {
    /// Parameters of `token_bucket`.
    pub struct Params {
        /// requests sent
        requests: u64 = 50,
        /// gap between two requests (the mean gap for `poisson`)
        interarrival_ms: Millis = Millis::lit(20.0),
        /// `schedule` (fixed gaps) or `poisson` (exponential gaps)
        arrivals: Arrivals = Arrivals::Schedule,
        /// tokens the bucket holds at most (it starts full)
        burst: u64 = 5,
        /// one token is added every refill_ms
        refill_ms: Millis = Millis::lit(100.0),
    }
}

columns! {
    /// Metrics of one run.
    pub struct Metrics {
        /// requests sent
        requests: u64,
        /// requests that found a token
        admitted: u64,
        /// requests that found the bucket empty
        rejected: u64,
        /// 100 × rejected / requests
        rejected_pct: f64,
        /// 1000 / refill_ms: the rate the bucket admits in the long run
        refill_rate_per_s: f64,
        /// 1000 / interarrival_ms
        offered_rate_per_s: f64,
    }
}

/// The model: a value, registered with `Registry::with(TokenBucket)`.
pub struct TokenBucket;

/// Most requests in one run: every one is an event.
const MAX_REQUESTS: u64 = 100_000_000;

impl Model for TokenBucket {
    type Params = Params;
    type Metrics = Metrics;
    type Entity = NoEntity;

    fn name(&self) -> &'static str {
        "token_bucket"
    }

    fn summary(&self) -> &'static str {
        "a token-bucket rate limiter: bursts pass, a sustained rate above the refill is rejected (worked example)"
    }

    fn charts(&self) -> Vec<DefaultChart> {
        vec![
            DefaultChart::new(
                "rejected-vs-offered-rate",
                ChartKind::Line,
                "offered_rate_per_s",
                &["rejected_pct"],
            )
            .mark_x("refill_rate_per_s"),
        ]
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        if !(1..=MAX_REQUESTS).contains(&p.requests) {
            return Err(ParamError::new(
                "requests",
                format!("must be from 1 to {MAX_REQUESTS}, got {}", p.requests),
            ));
        }
        positive_duration("interarrival_ms", p.interarrival_ms.ms())?;
        positive_duration("refill_ms", p.refill_ms.ms())
    }

    fn run(
        &self,
        p: &Valid<Params>,
        ctx: &RunContext,
    ) -> Result<Output<Metrics, NoEntity>, ModelError> {
        let mut bucket = Bucket {
            tokens: p.burst,
            burst: p.burst,
            refill: p.refill_ms.ns(),
            interarrival: p.interarrival_ms.ns(),
            mean_gap_ms: p.interarrival_ms.ms(),
            rng: (p.arrivals == Arrivals::Poisson).then(|| ctx.stream("arrivals")),
            elapsed_ms: 0.0,
            left: p.requests,
            sent: 0,
            admitted: 0,
        };
        // At most one arrival and one refill are pending at a time.
        let mut queue = ctx.queue(2);
        let first = bucket.next_arrival(0);
        queue.schedule_at(first, ARRIVAL, Event::Arrival);
        queue.schedule_at(bucket.refill, REFILL, Event::Refill);
        run(&mut queue, &mut bucket)?;
        let rejected = p.requests - bucket.admitted;
        Ok(Output::new(Metrics {
            requests: p.requests,
            admitted: bucket.admitted,
            rejected,
            rejected_pct: 100.0 * rejected as f64 / p.requests as f64,
            refill_rate_per_s: 1000.0 / p.refill_ms.ms(),
            offered_rate_per_s: 1000.0 / p.interarrival_ms.ms(),
        }))
    }
}

#[derive(Debug, Clone, Copy)]
enum Event {
    Arrival,
    Refill,
}

/// A refill runs before an arrival at the same instant.
const REFILL: u32 = 0;
const ARRIVAL: u32 = 1;

struct Bucket {
    tokens: u64,
    burst: u64,
    refill: u64,
    interarrival: u64,
    mean_gap_ms: f64,
    rng: Option<Stream>,
    elapsed_ms: f64,
    left: u64,
    sent: u64,
    admitted: u64,
}

impl Bucket {
    /// When the next request (number `sent`, 0-based) arrives, `now` being the last arrival.
    fn next_arrival(&mut self, now: u64) -> u64 {
        match &mut self.rng {
            None => self.interarrival.saturating_mul(self.sent),
            Some(rng) => {
                // The sum of the gaps, rounded to the nanosecond once (no drift).
                self.elapsed_ms += exponential_ms(rng, self.mean_gap_ms);
                ms_to_ns(self.elapsed_ms).unwrap_or(u64::MAX).max(now)
            }
        }
    }
}

impl Handler<Event> for Bucket {
    fn handle(&mut self, event: Event, queue: &mut EventQueue<Event>) -> Result<(), SimError> {
        match event {
            Event::Arrival => {
                if self.tokens > 0 {
                    self.tokens -= 1;
                    self.admitted += 1;
                }
                self.sent += 1;
                self.left -= 1;
                if self.left > 0 {
                    let next = self.next_arrival(queue.now());
                    queue.schedule_at(next, ARRIVAL, Event::Arrival);
                }
            }
            Event::Refill => {
                self.tokens = (self.tokens + 1).min(self.burst);
                // Refills go on only while requests are still to come.
                if self.left > 0 {
                    queue.schedule_in(self.refill, REFILL, Event::Refill);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(p: Params) -> Metrics {
        coordsim_model::run_once(&TokenBucket, p, 0, sim_core::Limits::default())
            .unwrap()
            .metrics
    }

    #[test]
    fn by_hand_a_burst_then_one_request_per_refill() {
        // 50 requests at 0, 20, …, 980 ms; 5 tokens; a token every 100 ms. The first 5 pass
        // (0–80 ms), then each refill at 100, 200, …, 900 ms lets exactly the request arriving
        // with it through (the refill runs first): 5 + 9 = 14 admitted, 36 rejected.
        let m = run_with(Params::default());
        assert_eq!((m.admitted, m.rejected), (14, 36));
        assert_eq!(m.rejected_pct, 72.0);
    }

    #[test]
    fn below_the_refill_rate_nothing_is_rejected() {
        // One request every 150 ms against a token every 100 ms: the bucket never empties.
        let m = run_with(Params {
            interarrival_ms: Millis::lit(150.0),
            ..Params::default()
        });
        assert_eq!(m.rejected, 0);
    }

    #[test]
    fn poisson_arrivals_replay_with_their_seed() {
        let p = Params {
            arrivals: Arrivals::Poisson,
            requests: 10_000,
            ..Params::default()
        };
        let a = coordsim_model::run_once(&TokenBucket, p.clone(), 3, Default::default()).unwrap();
        let b = coordsim_model::run_once(&TokenBucket, p, 3, Default::default()).unwrap();
        assert_eq!(a, b);
        // Offered 50/s against a refill of 10/s: in the long run about 10/50 pass.
        let admitted = a.metrics.admitted as f64 / 10_000.0;
        assert!((admitted - 0.2).abs() < 0.02, "{admitted}");
    }
}
