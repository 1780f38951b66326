//! The `[[watch]]`es of a run: after every event (and at the start), each watch's condition
//! is read off the run's metrics as they stand, and the instant it first held — or, with
//! `leads_to`, whether an instance of it still waits and when the last wait ended — kept
//! in the run's state (an exploration tells states apart by it).

use coordsim_model::Cell;
use sim_core::{EventQueue, Handler, Nanos, SimError, ns_to_ms};

use crate::point::WatchTest;
use crate::run::state::{Event, Sim};

impl Sim<'_> {
    /// Each watch looked at, at `now` (after an event, or before the first).
    pub(crate) fn watch(&mut self, now: Nanos) {
        for index in 0..self.point.watches.len() {
            let watch = self.point.watches[index];
            let seen = self.watched[index];
            match watch.leads_to {
                None => {
                    if seen.first.is_none() && self.meets(watch.when) {
                        self.watched[index].first = Some(now);
                    }
                }
                Some(then) => {
                    // A wait begun here is answered here too when `leads_to` holds at once.
                    let waits = seen.waiting || self.meets(watch.when);
                    if waits && self.meets(then) {
                        self.watched[index].waiting = false;
                        self.watched[index].answered = now;
                    } else {
                        self.watched[index].waiting = waits;
                    }
                }
            }
        }
    }

    /// Whether `test` holds of the run's metrics as they stand (an empty metric meets none).
    fn meets(&mut self, test: WatchTest) -> bool {
        let value = match self.cell(test.metric) {
            Cell::Count(count) => count as f64,
            Cell::Float(value) => value,
            Cell::Flag(flag) => f64::from(u8::from(flag)),
            Cell::Text(_) | Cell::Empty => return false,
        };
        test.relation.holds(value, test.bound)
    }

    /// The cell of watch `index` at the end: its first instant, ms (empty: it never held);
    /// with `leads_to`, the last instant a wait ended (0: none waited; empty: one still
    /// waits).
    pub(crate) fn watch_cell(&self, index: usize) -> Cell {
        let seen = self.watched[index];
        if self.point.watches[index].leads_to.is_some() {
            if seen.waiting {
                Cell::Empty
            } else {
                Cell::Float(ns_to_ms(seen.answered))
            }
        } else {
            seen.first
                .map_or(Cell::Empty, |at| Cell::Float(ns_to_ms(at)))
        }
    }
}

/// A run that looks at its watches after every event (only a point with watches runs
/// through it: one without pays nothing).
pub(crate) struct Watching<'s, 'p>(pub &'s mut Sim<'p>);

impl Handler<Event> for Watching<'_, '_> {
    fn handle(&mut self, event: Event, events: &mut EventQueue<Event>) -> Result<(), SimError> {
        let handled = self.0.handle(event, events);
        self.0.watch(events.now());
        handled
    }
}
