//! A network link: each crossing takes half the round trip, and may be lost.

use sim_core::{Nanos, Stream, chance};

/// One link during a run.
#[derive(Clone)]
pub(crate) struct Link {
    half_rtt: Nanos,
    loss: f64,
    /// Draws which crossings are lost (`loss/NAME`), when some may be.
    loss_stream: Option<Stream>,
    crossings: u64,
    lost: u64,
    duplicate: f64,
    /// Draws which messages put across it arrive twice (`duplicate/NAME`).
    duplicate_stream: Option<Stream>,
}

impl Link {
    /// A link whose crossing takes `half_rtt` (half the round trip, to the nanosecond below)
    /// and is lost with probability `loss`, drawn from stream `loss/NAME` of `seed`; a
    /// message put across it arrives twice with probability `duplicate` (`duplicate/NAME`).
    pub(crate) fn new(half_rtt: Nanos, loss: f64, duplicate: f64, seed: u64, name: &str) -> Link {
        Link {
            half_rtt,
            loss,
            loss_stream: (loss > 0.0).then(|| sim_core::stream(seed, &format!("loss/{name}"))),
            crossings: 0,
            lost: 0,
            duplicate,
            duplicate_stream: (duplicate > 0.0)
                .then(|| sim_core::stream(seed, &format!("duplicate/{name}"))),
        }
    }

    /// Whether a message put across it arrives twice.
    pub(crate) fn duplicates(&mut self) -> bool {
        match &mut self.duplicate_stream {
            Some(rng) => chance(rng, self.duplicate),
            None => false,
        }
    }

    /// One crossing: how long it takes, and whether it is lost on the way.
    #[inline]
    pub(crate) fn cross(&mut self) -> (Nanos, bool) {
        self.crossings += 1;
        let lost = match &mut self.loss_stream {
            Some(rng) => chance(rng, self.loss),
            None => false,
        };
        self.lost += u64::from(lost);
        (self.half_rtt, lost)
    }

    /// The chance a crossing is lost, and that a message put across it arrives twice.
    pub(crate) fn chances(&self) -> (f64, f64) {
        (self.loss, self.duplicate)
    }

    /// One crossing whose loss an explorer decided: how long it takes.
    pub(crate) fn cross_decided(&mut self, lost: bool) -> Nanos {
        self.crossings += 1;
        self.lost += u64::from(lost);
        self.half_rtt
    }

    /// Its counts, for an explorer's fingerprint (its streams are not drawn from then).
    pub(crate) fn counts(&self) -> (u64, u64) {
        (self.crossings, self.lost)
    }

    /// Crossings so far (lost ones included).
    pub(crate) fn crossings(&self) -> u64 {
        self.crossings
    }

    /// Crossings lost.
    pub(crate) fn lost(&self) -> u64 {
        self.lost
    }
}
