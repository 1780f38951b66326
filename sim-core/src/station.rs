//! FIFO single-server stations: the queue every single-writer object is.
//!
//! A resource for models that queue requests at an object, with coordsim's queue-length
//! rule built in: a length counts once all events of an instant have run, and a request that
//! starts at its arrival never counts.

use std::collections::VecDeque;

use crate::time::Nanos;

/// A request waiting at a station.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waiting {
    /// When it arrived.
    pub arrived: Nanos,
    /// Whose it is (a client, an edge…), for the caller.
    pub tag: u32,
}

struct Station {
    busy: bool,
    /// The request in service (`None` when idle or held by other work).
    in_service: Option<Waiting>,
    waiting: VecDeque<Waiting>,
    touched: bool,
}

/// A set of stations with the longest queue seen at the end of any instant.
pub struct Stations {
    stations: Vec<Station>,
    touched: Vec<u32>,
    instant: Nanos,
    max_queue: usize,
}

impl Stations {
    /// Room a station reserves up front at most: a longer queue grows by doubling (a few
    /// allocations in a whole run, never one per event), so memory follows the longest queue,
    /// not the number of requests.
    pub const MAX_RESERVED: usize = 1024;

    /// `n` idle stations, each with room for `capacity` waiting requests (at most
    /// [`Stations::MAX_RESERVED`]) before it allocates.
    pub fn new(n: usize, capacity: usize) -> Self {
        let capacity = capacity.min(Self::MAX_RESERVED);
        Stations {
            stations: (0..n)
                .map(|_| Station {
                    busy: false,
                    in_service: None,
                    waiting: VecDeque::with_capacity(capacity),
                    touched: false,
                })
                .collect(),
            touched: Vec::with_capacity(n),
            instant: 0,
            max_queue: 0,
        }
    }

    /// Call before handling each event at `now`: when the clock moved, the previous instant
    /// is over and its queue lengths count.
    #[inline]
    pub fn advance(&mut self, now: Nanos) {
        if now != self.instant {
            self.close_instant();
            self.instant = now;
        }
    }

    fn close_instant(&mut self) {
        for &i in &self.touched {
            let station = &mut self.stations[i as usize];
            station.touched = false;
            self.max_queue = self.max_queue.max(station.waiting.len());
        }
        self.touched.clear();
    }

    fn touch(&mut self, s: usize) {
        if !self.stations[s].touched {
            self.stations[s].touched = true;
            self.touched.push(s as u32);
        }
    }

    /// Marks station `s` busy with work that is not a request (a long job holding it).
    pub fn occupy(&mut self, s: usize) {
        self.stations[s].busy = true;
    }

    /// A request arrives at station `s`. Returns true when its service starts now (the
    /// caller schedules its departure); otherwise it waits.
    #[inline]
    pub fn arrive(&mut self, s: usize, request: Waiting) -> bool {
        self.touch(s);
        let station = &mut self.stations[s];
        if station.busy {
            station.waiting.push_back(request);
            false
        } else {
            station.busy = true;
            station.in_service = Some(request);
            true
        }
    }

    /// The request in service at `s` leaves. Returns the next request to serve (the caller
    /// schedules its departure), or `None` and the station goes idle.
    #[inline]
    pub fn depart(&mut self, s: usize) -> Option<Waiting> {
        self.touch(s);
        let station = &mut self.stations[s];
        let next = station.waiting.pop_front();
        station.busy = next.is_some();
        station.in_service = next;
        next
    }

    /// The request in service at `s`, if any.
    #[inline]
    pub fn in_service(&self, s: usize) -> Option<Waiting> {
        self.stations[s].in_service
    }

    /// Ends the run: the longest queue seen at the end of any instant.
    pub fn max_queue_len(&mut self) -> usize {
        self.close_instant();
        self.max_queue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(arrived: Nanos) -> Waiting {
        Waiting { arrived, tag: 0 }
    }

    #[test]
    fn queue_length_counts_at_the_end_of_an_instant() {
        let mut s = Stations::new(1, 4);
        s.advance(0);
        assert!(s.arrive(0, req(0))); // served at once: never counts
        assert_eq!(s.in_service(0), Some(req(0)));
        assert!(!s.arrive(0, req(0)));
        assert!(!s.arrive(0, req(0)));
        // Within the same instant one leaves: the instant ends with 1 waiting, not 2.
        assert_eq!(s.depart(0), Some(req(0)));
        s.advance(5);
        assert_eq!(s.max_queue_len(), 1);
    }

    #[test]
    fn a_station_goes_idle_when_nobody_waits() {
        let mut s = Stations::new(2, 0);
        s.advance(0);
        assert!(s.arrive(1, req(0)));
        assert_eq!(s.depart(1), None);
        assert!(s.arrive(1, req(1))); // idle again: starts at once
        s.occupy(0);
        assert!(!s.arrive(0, req(1))); // held by a long job: waits
        assert_eq!(s.max_queue_len(), 1);
    }
}
