//! A network link: each crossing takes half the round trip.

use sim_core::Nanos;

/// One link during a run.
pub struct Link {
    half_rtt: Nanos,
    crossings: u64,
}

impl Link {
    /// A link whose crossing takes `half_rtt` (half the round trip, to the nanosecond below).
    pub fn new(half_rtt: Nanos) -> Link {
        Link {
            half_rtt,
            crossings: 0,
        }
    }

    /// One crossing: how long it takes.
    #[inline]
    pub fn cross(&mut self) -> Nanos {
        self.crossings += 1;
        self.half_rtt
    }

    /// Crossings so far.
    pub fn crossings(&self) -> u64 {
        self.crossings
    }
}
