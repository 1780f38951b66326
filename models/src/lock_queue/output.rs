//! The lock queue's output: its metrics, each applier's row and timeline lane.

use super::timeline::{ATTEMPT, CRASHED, FAILED, HOLD, HOLD_STALE, READ_EARLY, WAIT, WORK, WRITE};
use super::*;

impl Sim {
    pub(super) fn output(
        self,
        p: &Params,
        lanes: bool,
        entities_wanted: bool,
    ) -> Output<Metrics, ApplierRow> {
        let n = self.appliers.len();
        let crashed = self
            .appliers
            .iter()
            .filter(|a| a.outcome == Outcome::Crashed)
            .count() as u64;
        let applied: Vec<usize> = (0..n)
            .filter(|&i| self.appliers[i].outcome == Outcome::Applied)
            .collect();
        let items_created: u64 =
            applied.iter().map(|&i| self.appliers[i].items).sum::<u64>() + crashed * p.crash_items;
        // Walk each record's chain once. An applier writes only its own record (one record,
        // or its own when local), so it is held by at most one record: `held_by`.
        let mut held_by: Vec<Option<usize>> = vec![None; n];
        let mut record_items = vec![0u64; self.records.len()];
        let mut record_writers = vec![0usize; self.records.len()];
        for (r, record) in self.records.iter().enumerate() {
            let mut v = record.head;
            while v != NO_VERSION {
                let (parent, a) = self.versions[v as usize];
                held_by[a as usize] = Some(r);
                record_items[r] += self.appliers[a as usize].items;
                record_writers[r] += 1;
                v = parent;
            }
        }
        let items_recorded = record_items[0];
        let lost_writes = applied
            .iter()
            .filter(|&&i| self.appliers[i].items > 0 && held_by[i] != Some(self.file(i as u32)))
            .count() as u64;
        let acquired: Vec<&Applier> = self
            .appliers
            .iter()
            .filter(|a| a.acquired_at.is_some())
            .collect();
        let waits: Vec<Nanos> = acquired.iter().map(|a| self.wait_of(a)).collect();
        let has_waits = self.mode != Lock::None && !waits.is_empty();
        let earliest = self.appliers.iter().map(|a| a.start).min().unwrap_or(0);
        let coverage: Vec<f64> = record_items
            .iter()
            .map(|&items| {
                if items_created == 0 {
                    0.0
                } else {
                    100.0 * items as f64 / items_created as f64
                }
            })
            .collect();
        // Every writer in a chain applied, and each appears once: a record knows every
        // applied item when it holds as many writers as applied.
        let knows_all =
            |r: usize| record_writers[r] == applied.len() && crashed * p.crash_items == 0;
        // Items applied but missing from the first record, that another record does hold.
        let false_untracked: u64 = applied
            .iter()
            .filter(|&&i| held_by[i].is_some_and(|r| r >= 1))
            .map(|&i| self.appliers[i].items)
            .sum();
        let metrics = Metrics {
            appliers: n as u64,
            items_created,
            items_recorded,
            untracked: items_created.saturating_sub(items_recorded),
            serial_final: self.records[0].serial,
            lost_writes,
            gave_up: self
                .appliers
                .iter()
                .filter(|a| a.outcome == Outcome::GaveUp)
                .count() as u64,
            rounds_total: self.appliers.iter().map(|a| a.rounds).sum(),
            rounds_max: self.appliers.iter().map(|a| a.rounds).max().unwrap_or(0),
            wait_total_ms: has_waits.then(|| ns_to_ms(waits.iter().sum())),
            wait_max_ms: has_waits.then(|| ns_to_ms(waits.iter().copied().max().unwrap_or(0))),
            max_holders: if self.mode == Lock::None {
                0
            } else {
                self.max_holders as u64
            },
            lock_left: self.locks.iter().any(Option::is_some),
            makespan_ms: ns_to_ms(self.last_event.map_or(0, |t| t.saturating_sub(earliest))),
            state_files: self.records.len() as u64,
            coverage_min_pct: (items_created > 0)
                .then(|| coverage.iter().copied().fold(f64::INFINITY, f64::min)),
            coverage_max_pct: (items_created > 0)
                .then(|| coverage.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
            files_knowing_all: (0..self.records.len()).filter(|&r| knows_all(r)).count() as u64,
            false_untracked,
        };
        let entities = if entities_wanted {
            self.rows(p)
        } else {
            Vec::new()
        };
        let mut timeline = Lanes::new();
        if lanes {
            // The first MAX_LANES appliers' lanes are built; the others only counted.
            for i in 0..n {
                if !timeline.has_room() {
                    timeline.skip(n - i);
                    break;
                }
                timeline.push(self.lane(p.name(i), &self.appliers[i]));
            }
        }
        if let Some(mut lock) = self.holder {
            lock.set_categories((0..n).map(|i| p.name(i)).collect());
            timeline.push_resource(lock);
        }
        Output {
            metrics,
            entities,
            lanes: timeline,
            distributions: Vec::new(),
        }
    }

    /// Each applier's entity row.
    fn rows(&self, p: &Params) -> Vec<(String, ApplierRow)> {
        let wait_of = |a: &Applier| self.wait_of(a);
        self.appliers
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let locked = self.mode != Lock::None && a.acquired_at.is_some();
                (
                    p.name(i),
                    ApplierRow {
                        start_ms: ns_to_ms(a.start),
                        hold_ms: ns_to_ms(a.hold),
                        rounds: a.rounds,
                        // A wait that ends in giving up is still a wait; only an applier
                        // with no lock to wait for has none.
                        wait_ms: (self.mode != Lock::None).then(|| ns_to_ms(wait_of(a))),
                        acquire_delay_ms: locked
                            .then(|| ns_to_ms(a.acquired_at.unwrap_or(a.start) - a.start)),
                        read_serial: a.has_read.then_some(a.snapshot.serial),
                        items: a.items,
                        outcome: match a.outcome {
                            Outcome::Applied => "applied",
                            Outcome::GaveUp | Outcome::Pending => "gave_up",
                            Outcome::Crashed => "crashed",
                            Outcome::Rejected => "rejected",
                        }
                        .to_string(),
                        end_ms: a.end.map(ns_to_ms),
                    },
                )
            })
            .collect()
    }

    /// The lesson's measure of a wait: rounds × poll_ms when polling; for `queue`, from the
    /// start to the acquisition, or to the give-up for a waiter that gave up.
    fn wait_of(&self, a: &Applier) -> Nanos {
        match self.mode {
            Lock::Queue => a.acquired_at.or(a.end).unwrap_or(a.start) - a.start,
            _ => a.rounds * self.poll,
        }
    }

    /// An applier's timeline lane: waiting (a tick per failed attempt), holding the lock or
    /// working without one, and how it ended; in the wrong order, its read before the lock
    /// is a mark of its own and its hold writes that early snapshot.
    fn lane(&self, name: String, a: &Applier) -> Lane {
        let mut lane = Lane::new(name);
        let start = ns_to_ms(a.start);
        let end = a.end.map(ns_to_ms);
        let early_read = self.read_before_lock && self.mode != Lock::None;
        match a.acquired_at.filter(|_| self.mode != Lock::None) {
            Some(at) => {
                let at = ns_to_ms(at);
                if at > start {
                    lane.span(WAIT, start, Some(at));
                }
                if a.outcome == Outcome::Crashed {
                    lane.span(CRASHED, at, None);
                } else if early_read {
                    lane.span(HOLD_STALE, at, end);
                } else {
                    lane.span(HOLD, at, end);
                }
            }
            None if a.outcome == Outcome::GaveUp => lane.span(WAIT, start, end),
            None => lane.span(WORK, start, end),
        }
        lane.mark_series(ATTEMPT, start, ns_to_ms(self.poll), a.rounds);
        if early_read && a.has_read {
            lane.mark(READ_EARLY, start);
        }
        match (a.outcome, end) {
            (Outcome::Applied, Some(end)) => lane.mark(WRITE, end),
            (Outcome::GaveUp | Outcome::Rejected, Some(end)) => lane.mark(FAILED, end),
            _ => {}
        }
        lane
    }
}
