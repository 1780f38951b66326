//! A run's resources read onto their timeline lanes after every event, only when a chart
//! draws resource lanes (the run then handles its events through [`Recorded`]).

use sim_core::{EventQueue, Handler, SimError, ns_to_ms};

use crate::run::lanes::{
    HOLDER, KEYS_HELD, QUEUE_DEPTH, QUEUE_LENGTH, REGISTER_VALUE, SERVER_DOWN,
};
use crate::run::state::{Ev, Sim};

impl Sim<'_> {
    /// Reads every resource's state after an event at `now` onto its lane (a level that did
    /// not change adds nothing).
    pub(crate) fn sample_resources(&mut self) {
        let Some(rec) = self.lanes.as_deref_mut() else {
            return;
        };
        let Some(r) = rec.resources.as_mut() else {
            return;
        };
        let now = self.now;
        let at = ns_to_ms(now);
        for (s, server) in self.servers.iter().enumerate() {
            let lane = &mut r.servers[s];
            match (server.is_down(), r.down_since[s]) {
                (true, None) => r.down_since[s] = Some(now),
                (false, Some(from)) => {
                    lane.span(SERVER_DOWN, ns_to_ms(from), Some(at));
                    r.down_since[s] = None;
                }
                _ => {}
            }
            lane.level(QUEUE_LENGTH, at, server.waiting() as f64);
        }
        for (l, lock) in self.locks.iter().enumerate() {
            let lane = &mut r.locks[l];
            // A lease that lapsed since the last event: free from its lapse.
            if let Some(t) = r.lapse[l].filter(|t| *t <= now) {
                lane.level(HOLDER, ns_to_ms(t), f64::NAN);
            }
            r.lapse[l] = None;
            let holder = match lock.record_until() {
                None => f64::NAN,
                Some((_, _, Some(lapse))) if lapse <= now => f64::NAN,
                Some((_, _, lapse)) => {
                    r.lapse[l] = lapse;
                    match self.last_taker[l].0 {
                        u32::MAX => -1.0,
                        a => f64::from(a),
                    }
                }
            };
            lane.level(HOLDER, at, holder);
        }
        for (q, queue) in self.queues.iter().enumerate() {
            r.queues[q].level(QUEUE_DEPTH, at, queue.visible_len() as f64);
        }
        for (k, reg) in self.registers.iter().enumerate() {
            r.registers[k].level(REGISTER_VALUE, at, reg.value());
        }
        for (k, keys) in self.keys.iter().enumerate() {
            r.keys[k].level(KEYS_HELD, at, keys.size() as f64);
        }
    }
}

/// A run that records its resources' lanes: every event handled, then the resources read.
pub(crate) struct Recorded<'s, 'p>(pub &'s mut Sim<'p>);

impl Handler<Ev> for Recorded<'_, '_> {
    fn handle(&mut self, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), SimError> {
        let handled = self.0.handle(ev, q);
        self.0.sample_resources();
        handled
    }
}
