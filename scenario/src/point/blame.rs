//! What drives a run's estimate, for the error that refuses it: the field to change (an
//! actor's `repeat` or `count`, a `parallel` step, a poll's `give_up_after_ms` or `poll_ms`)
//! or, when several multiply together and none stands out, the actor, with why in words.

use coordsim_model::Driver;
use sim_core::Nanos;

use crate::point::{Group, Pace, Point, Step};

/// The biggest share of an estimate offered so far, and what drives it.
#[derive(Default)]
pub(super) struct Share {
    amount: u64,
    driver: Option<Driver>,
}

impl Share {
    /// Keeps `driver` when `amount` is the biggest yet (the first of equal shares stays);
    /// it is made only then.
    pub(super) fn offer(&mut self, amount: u64, driver: impl FnOnce() -> Driver) {
        if amount > self.amount || self.driver.is_none() {
            self.amount = amount;
            self.driver = Some(driver());
        }
    }

    /// The share's size, and what drives it (`None`: nothing offered).
    pub(super) fn take(self) -> (u64, Option<Driver>) {
        (self.amount, self.driver)
    }
}

/// `1 actor`, `10 actors`.
fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Nanoseconds as milliseconds the way a user writes them (`25`, `0.000001`, `1e12`).
pub(super) fn ms_text(ns: Nanos) -> String {
    let ms = ns as f64 / 1e6;
    if ms >= 1e9 {
        format!("{ms:e}")
    } else {
        format!("{ms}")
    }
}

/// Of several factors that multiply together, the one bigger than all the others together
/// (`None`: none stands out, or none is more than 1).
fn standing_out<'k>(factors: &[(f64, &'k str)]) -> Option<&'k str> {
    let all: f64 = factors.iter().map(|(f, _)| f).product();
    let (biggest, key) =
        factors.iter().copied().fold(
            (1.0, None),
            |best, (f, key)| {
                if f > best.0 { (f, Some(key)) } else { best }
            },
        );
    key.filter(|_| biggest * biggest > all)
}

impl Point {
    /// What drives the events of group `index`: its actors, repetitions and steps per
    /// repetition (a `parallel`'s branches counted apart, as they multiply the steps).
    pub(super) fn group_events(&self, index: usize, group: &Group, per_attempt: u64) -> Driver {
        let at = format!("actor[{index}]");
        let each = per_attempt.saturating_mul(u64::from(group.attempts));
        // The `parallel` whose branches hold the most steps: how many, and how many branches.
        let fork = (group.steps.iter().zip(&group.paths))
            .filter_map(|(step, path)| match step {
                Step::Fork { starts, .. } => {
                    let inside = format!("{path}.parallel[");
                    let steps = group.paths.iter().filter(|p| p.starts_with(&inside));
                    Some((steps.count() as u64, starts.len(), path))
                }
                _ => None,
            })
            .fold(None, |best: Option<(u64, usize, &String)>, f| match best {
                Some(b) if b.0 >= f.0 => Some(b),
                _ => Some(f),
            });
        let mut why = format!(
            "{} × {} × {each} events each",
            counted(u64::from(group.count), "actor"),
            counted(group.repeat, "repetition")
        );
        let mut factors = vec![
            (f64::from(group.count), format!("{at}.count")),
            (group.repeat as f64, format!("{at}.repeat")),
        ];
        if let Some((inside, branches, path)) = fork.filter(|f| f.0 > 0) {
            let branch_events = 3 * inside * u64::from(group.attempts);
            why += &format!(
                ", {branch_events} of them in the {branches} branches of the `parallel` at `{path}`"
            );
            let without = each.saturating_sub(branch_events).max(1);
            factors.push((each as f64 / without as f64, path.clone()));
        }
        let factors: Vec<(f64, &str)> = factors.iter().map(|(f, k)| (*f, k.as_str())).collect();
        Driver {
            key: standing_out(&factors).map_or(at.clone(), str::to_string),
            why,
        }
    }

    /// What drives the memory group `index` holds: its repetitions' jobs, samples,
    /// messages and keys, by its actors and repetitions.
    pub(super) fn group_memory(&self, index: usize, group: &Group) -> Driver {
        let at = format!("actor[{index}]");
        let count = format!("{at}.count");
        let repeat = format!("{at}.repeat");
        let factors = [
            (f64::from(group.count), count.as_str()),
            (group.repeat as f64, repeat.as_str()),
        ];
        let open = if matches!(group.pace, Pace::Closed) {
            ""
        } else {
            ", which an open loop may hold in flight all at once"
        };
        Driver {
            key: standing_out(&factors).unwrap_or(&at).to_string(),
            why: format!(
                "{} × {}{open}",
                counted(u64::from(group.count), "actor"),
                counted(group.repeat, "repetition")
            ),
        }
    }

    /// What drives an acquire's polls of `lock`: its give-up time when that bounds the
    /// wait, else a poll more often than the default, else the step (the wait is the
    /// others' holds).
    pub(super) fn poll_driver(
        &self,
        path: &str,
        lock: u16,
        given_up: Option<&'static str>,
        wait: Nanos,
    ) -> Driver {
        let held = &self.locks[lock as usize];
        let key = match given_up {
            Some(timeout) => format!("{path}.{timeout}"),
            None if held.poll_ns < DEFAULT_POLL_NS => format!("{}.poll_ms", held.at),
            None => path.to_string(),
        };
        let until = if given_up.is_some() {
            ""
        } else {
            ", while others may hold it"
        };
        Driver {
            key,
            why: format!(
                "a waiter polls lock `{}` every {} ms for up to {} ms{until}",
                self.lock_names[lock as usize],
                ms_text(held.poll_ns),
                ms_text(wait)
            ),
        }
    }
}

/// A lock's `poll_ms` when it is not written: a poll more often is written, and to blame.
const DEFAULT_POLL_NS: Nanos = 25_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_factor_stands_out_only_past_all_the_others() {
        assert_eq!(
            standing_out(&[(1.0, "count"), (1e8, "repeat")]),
            Some("repeat")
        );
        assert_eq!(
            standing_out(&[(1e6, "count"), (10.0, "repeat"), (14.7, "parallel")]),
            Some("count")
        );
        assert_eq!(
            standing_out(&[(1e4, "count"), (1e3, "repeat"), (14.7, "parallel")]),
            None
        );
        assert_eq!(standing_out(&[(100.0, "count"), (100.0, "repeat")]), None);
        assert_eq!(standing_out(&[(1.0, "count"), (1.0, "repeat")]), None);
    }

    #[test]
    fn milliseconds_read_as_written() {
        assert_eq!(ms_text(25_000_000), "25");
        assert_eq!(ms_text(1), "0.000001");
        assert_eq!(ms_text(1_000_000_000_000_000_000), "1e12");
    }
}
