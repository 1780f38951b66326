//! A run steered by an explorer: the random draws that are choices (a `chance`, a crash's
//! probability, a link's loss and duplication) decided for it instead of drawn, a fault
//! budget, and the fingerprint of the run's state that lets two orders reaching the same
//! state be explored once.

use std::hash::Hash;

use sim_core::EventQueue;

use crate::machine::hash_f64;
pub(crate) use crate::run::state::{Draw, Steer};
use crate::run::state::{Ev, Sim, Undo};

impl Sim<'_> {
    /// Whether a draw of probability `p` comes out "yes": decided by the explorer when one
    /// steers the run, else drawn by `draw`.
    #[inline]
    pub(crate) fn decide(
        &mut self,
        p: f64,
        fault: bool,
        draw: impl FnOnce(&mut Self) -> bool,
    ) -> bool {
        match &mut self.steer {
            Some(steer) => steer.decide(p, fault),
            None => draw(self),
        }
    }

    /// A crossing of link `k`: how long it takes and whether it is lost (decided by the
    /// explorer when one steers the run).
    #[inline]
    pub(crate) fn cross_link(&mut self, k: usize) -> (sim_core::Nanos, bool) {
        match &mut self.steer {
            None => self.links[k].cross(),
            Some(steer) => {
                let lost = steer.decide(self.links[k].chances().0, true);
                (self.links[k].cross_decided(lost), lost)
            }
        }
    }

    /// The state's fingerprint: everything that decides what the run does next and what it
    /// reports, the pending events included (by time, class and what they are: not by
    /// their insertion numbers, which differ between orders that reach the same state).
    /// The timeline and the random streams are left out: an explored run draws neither.
    pub(crate) fn fingerprint(&self, q: &EventQueue<Ev>) -> u64 {
        // Every part written as bytes into one buffer, hashed once: xxh3 over a whole
        // buffer runs several times faster than fed a few bytes at a time.
        BUFFER.with_borrow_mut(|bytes| {
            bytes.clear();
            let mut h = Bytes(bytes);
            self.write_state(q, &mut h);
            xxhash_rust::xxh3::xxh3_64(h.0)
        })
    }

    /// Everything [`Sim::fingerprint`] covers, written into `h`.
    fn write_state(&self, q: &EventQueue<Ev>, mut h: &mut Bytes<'_>) {
        q.now().hash(&mut h);
        let mut pending: Vec<(u64, u32, u64, Ev)> = q
            .pending()
            .map(|(t, d)| (t, self.owner(d.event), d.seq, d.event))
            .collect();
        // An owner's own events keep their order; different owners' are free.
        pending.sort_unstable_by_key(|e| (e.0, e.1, e.2));
        for (t, owner, _, ev) in &pending {
            (t, owner, ev).hash(&mut h);
        }
        for a in &self.actors {
            (a.started, a.completed, a.gave_up, a.retries, a.failed).hash(&mut h);
            (a.lock_wait, a.server_wait, a.rejected, a.end, a.crashed).hash(&mut h);
            (a.stopped, a.timeouts, a.restarts, a.incarnation).hash(&mut h);
            hash_f64(a.elapsed_ms, &mut h);
        }
        (&self.servers, &self.groups, &self.jobs, &self.free).hash(&mut h);
        for x in (self.tables.reads.iter())
            .chain(&self.tables.stored)
            .chain(&self.tables.replies)
        {
            hash_f64(*x, &mut h);
        }
        (&self.tables.tokens, &self.tables.taken, &self.tables.kids).hash(&mut h);
        (&self.regs, &self.locks, &self.queues, &self.keys).hash(&mut h);
        for l in &self.links {
            l.counts().hash(&mut h);
        }
        (self.last_end, &self.polls, &self.last_taker, &self.slots).hash(&mut h);
        (&self.free_slots, &self.error).hash(&mut h);
        self.tx.job.hash(&mut h);
        for u in &self.tx.undo {
            match u {
                Undo::Reg(r, reg) => (0u8, r, reg).hash(&mut h),
                Undo::Key(k, undo) => (1u8, k, undo).hash(&mut h),
            }
        }
        self.tx.deferred.hash(&mut h);
        for x in &self.tx.numbers {
            hash_f64(*x, &mut h);
        }
        if let Some(s) = &self.steer {
            (s.faults, s.crashed_anywhere, s.stuck).hash(&mut h);
        }
    }

    /// Who an event belongs to: an actor (its starts and its jobs' events), a server, a
    /// lock or a queue. An owner's events at one instant run in the order the run gives
    /// them; an explorer orders different owners' every way.
    pub(crate) fn owner(&self, ev: Ev) -> u32 {
        let actors = self.actors.len() as u32;
        let servers = actors + self.servers.len() as u32;
        let locks = servers + self.locks.len() as u32;
        match ev {
            Ev::Start { actor } => actor,
            Ev::Resume { job } | Ev::Land { job } | Ev::Retry { job } | Ev::Timeout { job } => {
                self.jobs[job as usize].actor
            }
            Ev::Depart { server, .. } | Ev::Down { server } | Ev::Up { server } => {
                actors + u32::from(server)
            }
            Ev::Unlock { lock } => servers + u32::from(lock),
            Ev::Arrive { queue, .. } | Ev::Visible { queue } => locks + u32::from(queue),
        }
    }
}

thread_local! {
    /// The bytes of the state being fingerprinted, kept between calls (no allocation per
    /// state once it has grown).
    static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A `Hasher` that only collects the bytes it is given, to hash them at once.
struct Bytes<'b>(&'b mut Vec<u8>);

impl std::hash::Hasher for Bytes<'_> {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
    fn finish(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A steer decides "no" past what it was told, counts a fault only when one is taken,
    /// and makes no choice of a certain draw or of a fault past its budget.
    #[test]
    fn decisions_follow_the_forced_prefix_then_say_no() {
        let mut s = Steer {
            forced: vec![true],
            max_faults: 1,
            ..Steer::default()
        };
        assert!(s.decide(0.5, true));
        assert_eq!(s.faults, 1);
        // The budget is spent: no choice, no record.
        assert!(!s.decide(0.5, true));
        assert_eq!(s.drawn.len(), 1);
        // Not a fault: still a choice, "no" past the forced prefix.
        assert!(!s.decide(0.25, false));
        assert!(s.decide(1.0, false));
        assert!(!s.decide(0.0, false));
        assert_eq!(s.drawn.len(), 2);
        assert_eq!(
            s.drawn[1],
            Draw {
                p: 0.25,
                taken: false,
                fault: false
            }
        );
    }
}
