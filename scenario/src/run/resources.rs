//! A run's resources read onto their timeline lanes after every event, only when a chart
//! draws resource lanes (the run then handles its events through [`Recorded`]).

use sim_core::{EventQueue, Handler, SimError, ns_to_ms};

use crate::run::lanes::{
    HOLDER, KEYS_HELD, QUEUE_DEPTH, QUEUE_LENGTH, REGISTER_VALUE, SERVER_DOWN,
};
use crate::run::state::{Event, Sim};

impl Sim<'_> {
    /// Reads every resource's state after an event at `now` onto its lane (a level that did
    /// not change adds nothing).
    pub(crate) fn sample_resources(&mut self) {
        let Some(recorder) = self.lanes.as_deref_mut() else {
            return;
        };
        let Some(lanes) = recorder.resources.as_mut() else {
            return;
        };
        let now = self.now;
        let at = ns_to_ms(now);
        for (index, server) in self.servers.iter().enumerate() {
            let lane = &mut lanes.servers[index];
            match (server.is_down(), lanes.down_since[index]) {
                (true, None) => lanes.down_since[index] = Some(now),
                (false, Some(from)) => {
                    lane.span(SERVER_DOWN, ns_to_ms(from), Some(at));
                    lanes.down_since[index] = None;
                }
                _ => {}
            }
            lane.level(QUEUE_LENGTH, at, server.waiting() as f64);
        }
        for (index, lock) in self.locks.iter().enumerate() {
            let lane = &mut lanes.locks[index];
            // A lease that lapsed since the last event: free from its lapse.
            if let Some(lapsed) = lanes.lapse[index].filter(|lapsed| *lapsed <= now) {
                lane.level(HOLDER, ns_to_ms(lapsed), f64::NAN);
            }
            lanes.lapse[index] = None;
            let holder = match lock.record_until() {
                None => f64::NAN,
                Some((_, _, Some(lapse))) if lapse <= now => f64::NAN,
                Some((_, _, lapse)) => {
                    lanes.lapse[index] = lapse;
                    match self.last_taker[index].0 {
                        u32::MAX => -1.0,
                        actor => f64::from(actor),
                    }
                }
            };
            lane.level(HOLDER, at, holder);
        }
        for (index, queue) in self.queues.iter().enumerate() {
            lanes.queues[index].level(QUEUE_DEPTH, at, queue.visible_len() as f64);
        }
        for (index, register) in self.registers.iter().enumerate() {
            lanes.registers[index].level(REGISTER_VALUE, at, register.value());
        }
        for (index, keys) in self.keys.iter().enumerate() {
            lanes.keys[index].level(KEYS_HELD, at, keys.size() as f64);
        }
    }
}

/// A run that records its resources' lanes: every event handled, then the resources read.
pub(crate) struct Recorded<'s, 'p>(pub &'s mut Sim<'p>);

impl Handler<Event> for Recorded<'_, '_> {
    fn handle(&mut self, event: Event, events: &mut EventQueue<Event>) -> Result<(), SimError> {
        let handled = self.0.handle(event, events);
        self.0.sample_resources();
        if !self.0.point.watches.is_empty() {
            self.0.watch(events.now());
        }
        handled
    }
}
