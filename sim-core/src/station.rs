//! FIFO single-server stations: the queue every single-writer object is.
//!
//! A resource for models that queue requests at an object, with coordsim's queue-length
//! rule built in: a length counts once all events of an instant have run, and a request that
//! starts at its arrival never counts.

use std::collections::VecDeque;

use crate::time::Nanos;

/// A request waiting at a station.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Waiting {
    /// When it arrived.
    pub arrived: Nanos,
    /// Whose it is (a client, an edge…), for the caller.
    pub tag: u32,
}

#[derive(Hash)]
struct Station {
    busy: bool,
    /// The request in service (`None` when idle or held by other work).
    in_service: Option<Waiting>,
    waiting: VecDeque<Waiting>,
    /// The last instant at which this station changed (`Nanos::MAX`: never).
    changed_at: Nanos,
}

/// A set of stations with the longest queue seen at the end of any instant.
///
/// The rule costs one comparison per change: a station's queue length at the end of an
/// instant at which it changed is its length when it next changes at a later instant (nothing
/// happens to it in between), or at the end of the run. So each change at a new instant first
/// counts the length the station has kept since its last change.
#[derive(Hash)]
pub struct Stations {
    stations: Vec<Station>,
    max_queue: usize,
}

clone_in_place!(Stations {
    stations,
    max_queue
});

clone_in_place!(Station {
    busy,
    in_service,
    waiting,
    changed_at
});

impl Stations {
    /// Room a station reserves up front at most: a longer queue grows by doubling (a few
    /// allocations in a whole run, never one per event), so memory follows the longest queue,
    /// not the number of requests.
    pub const MAX_RESERVED: usize = 1024;

    /// Room all stations reserve up front together at most (64k waiting requests, 1 MiB):
    /// a hundred thousand stations reserve nothing rather than a gigabyte.
    pub const MAX_RESERVED_TOTAL: usize = 1 << 16;

    /// `n` idle stations, each with room for `capacity` waiting requests (at most
    /// [`Stations::MAX_RESERVED`], and [`Stations::MAX_RESERVED_TOTAL`] over all) before it
    /// allocates.
    pub fn new(n: usize, capacity: usize) -> Self {
        let capacity = capacity
            .min(Self::MAX_RESERVED)
            .min(Self::MAX_RESERVED_TOTAL / n.max(1));
        Stations {
            stations: (0..n)
                .map(|_| Station {
                    busy: false,
                    in_service: None,
                    waiting: VecDeque::with_capacity(capacity),
                    changed_at: Nanos::MAX,
                })
                .collect(),
            max_queue: 0,
        }
    }

    /// Station `s` changes at `now`: when that is a new instant for it, the length it has
    /// kept since its last change was an end-of-instant length.
    #[inline]
    fn change(&mut self, s: usize, now: Nanos) -> &mut Station {
        let station = &mut self.stations[s];
        if station.changed_at != now {
            station.changed_at = now;
            self.max_queue = self.max_queue.max(station.waiting.len());
        }
        station
    }

    /// Marks station `s` busy with work that is not a request (a long job holding it).
    pub fn occupy(&mut self, s: usize) {
        self.stations[s].busy = true;
    }

    /// A request arrives at station `s` (at `request.arrived`, the current time). Returns
    /// true when its service starts now (the caller schedules its departure); otherwise it
    /// waits.
    #[inline]
    pub fn arrive(&mut self, s: usize, request: Waiting) -> bool {
        let station = self.change(s, request.arrived);
        if station.busy {
            station.waiting.push_back(request);
            false
        } else {
            station.busy = true;
            station.in_service = Some(request);
            true
        }
    }

    /// The request in service at `s` leaves at `now`. Returns the next request to serve (the
    /// caller schedules its departure), or `None` and the station goes idle.
    #[inline]
    pub fn depart(&mut self, s: usize, now: Nanos) -> Option<Waiting> {
        let station = self.change(s, now);
        let next = station.waiting.pop_front();
        station.busy = next.is_some();
        station.in_service = next;
        next
    }

    /// [`Stations::depart`], with the request that was in service: `None` when `s` served
    /// none (a caller's bug).
    #[inline]
    pub fn depart_served(&mut self, s: usize, now: Nanos) -> Option<(Waiting, Option<Waiting>)> {
        let station = self.change(s, now);
        let done = station.in_service?;
        let next = station.waiting.pop_front();
        station.busy = next.is_some();
        station.in_service = next;
        Some((done, next))
    }

    /// The request in service at `s` leaves at `now`, and the station stays held by other
    /// work ([`Stations::occupy`]: it is down, say) with no request in service: its queue
    /// waits until [`Stations::depart`] frees it.
    #[inline]
    pub fn leave(&mut self, s: usize, now: Nanos) {
        let station = self.change(s, now);
        station.in_service = None;
    }

    /// The waiting request tagged `tag` leaves station `s`'s queue at `now`, unserved (its
    /// client withdrew it); false when no request of that tag waits there. It costs a scan
    /// of the queue from its back, where a request withdrawn soon after it came stands.
    pub fn withdraw(&mut self, s: usize, tag: u32, now: Nanos) -> bool {
        let station = self.change(s, now);
        match station.waiting.iter().rposition(|w| w.tag == tag) {
            Some(i) => {
                station.waiting.remove(i);
                true
            }
            None => false,
        }
    }

    /// Every request's tag rewritten by `relabel`, those in service and those waiting:
    /// an explorer that renames a state's clients (a symmetry's canonical order) renames
    /// their requests with them.
    pub fn relabel_tags(&mut self, mut relabel: impl FnMut(u32) -> u32) {
        for station in &mut self.stations {
            let Station {
                busy: _,
                in_service,
                waiting,
                changed_at: _,
            } = station;
            for request in in_service.iter_mut().chain(waiting.iter_mut()) {
                request.tag = relabel(request.tag);
            }
        }
    }

    /// Whether station `s` is serving a request or held by other work.
    #[inline]
    pub fn is_busy(&self, s: usize) -> bool {
        self.stations[s].busy
    }

    /// The request in service at `s`, if any.
    #[inline]
    pub fn in_service(&self, s: usize) -> Option<Waiting> {
        self.stations[s].in_service
    }

    /// Requests waiting now, over every station (those in service not counted).
    pub fn waiting(&self) -> usize {
        self.stations.iter().map(|s| s.waiting.len()).sum()
    }

    /// Ends the run: the longest queue seen at the end of any instant.
    pub fn max_queue_len(&mut self) -> usize {
        let last = self
            .stations
            .iter()
            .map(|s| s.waiting.len())
            .max()
            .unwrap_or(0);
        self.max_queue.max(last)
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
        assert!(s.arrive(0, req(0))); // served at once: never counts
        assert_eq!(s.in_service(0), Some(req(0)));
        assert!(!s.arrive(0, req(0)));
        assert!(!s.arrive(0, req(0)));
        // Within the same instant one leaves: the instant ends with 1 waiting, not 2.
        assert_eq!(s.depart(0, 0), Some(req(0)));
        assert!(!s.arrive(0, req(5)));
        // At 5 it holds 2 until the end: the longest end-of-instant queue is 2.
        assert_eq!(s.max_queue_len(), 2);
    }

    #[test]
    fn a_withdrawn_request_leaves_the_queue_and_is_not_counted_at_the_instant_end() {
        let mut s = Stations::new(1, 4);
        assert!(s.arrive(0, Waiting { arrived: 0, tag: 1 }));
        assert!(!s.arrive(0, Waiting { arrived: 0, tag: 2 }));
        assert!(!s.arrive(0, Waiting { arrived: 0, tag: 3 }));
        // At 4, tag 2 withdraws: one waits (tag 3), and the queue held 2 through instant 0.
        assert!(s.withdraw(0, 2, 4));
        assert!(!s.withdraw(0, 2, 4), "it is gone");
        assert!(!s.withdraw(0, 1, 4), "in service, not waiting");
        assert_eq!(s.depart(0, 5), Some(Waiting { arrived: 0, tag: 3 }));
        assert_eq!(s.max_queue_len(), 2);
    }

    #[test]
    fn a_station_goes_idle_when_nobody_waits() {
        let mut s = Stations::new(2, 0);
        assert!(s.arrive(1, req(0)));
        assert_eq!(s.depart(1, 0), None);
        assert!(s.arrive(1, req(1))); // idle again: starts at once
        s.occupy(0);
        assert!(!s.arrive(0, req(1))); // held by a long job: waits
        assert_eq!(s.max_queue_len(), 1);
    }

    /// The same rule, written the slow way: after every instant, the length of every station.
    fn reference_max(script: &[(Nanos, usize, bool)], n: usize) -> usize {
        let mut lens = vec![0usize; n];
        let mut busy = vec![false; n];
        let mut max = 0;
        for (i, &(t, s, arrive)) in script.iter().enumerate() {
            if arrive {
                if busy[s] {
                    lens[s] += 1;
                } else {
                    busy[s] = true;
                }
            } else if lens[s] > 0 {
                lens[s] -= 1;
            } else {
                busy[s] = false;
            }
            if script.get(i + 1).is_none_or(|next| next.0 != t) {
                max = max.max(*lens.iter().max().unwrap_or(&0));
            }
        }
        max
    }

    proptest::proptest! {
        #[test]
        fn the_longest_queue_matches_a_scan_after_every_instant(
            steps in proptest::collection::vec((0u64..3, 0usize..3, proptest::bool::ANY), 0..60)
        ) {
            // Times never go back: each step adds 0, 1 or 2 to the clock.
            let mut t = 0;
            let mut script = Vec::new();
            let mut s = Stations::new(3, 2);
            let mut in_use = [false; 3];
            for (dt, station, arrive) in steps {
                t += dt;
                // A departure only from a busy station, as the models call it.
                let arrive = arrive || !in_use[station];
                if arrive {
                    s.arrive(station, req(t));
                    in_use[station] = true;
                } else {
                    in_use[station] = s.depart(station, t).is_some();
                }
                script.push((t, station, arrive));
            }
            proptest::prop_assert_eq!(s.max_queue_len(), reference_max(&script, 3));
        }
    }
}
