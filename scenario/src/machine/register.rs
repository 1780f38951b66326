//! A shared register: a value read and written by many, where a write that lands on a value
//! other than the one its writer read overwrites an update (a lost update), unless a
//! compare-and-set or a fencing token refuses it.

use sim_core::Nanos;

use crate::machine::lock::Token;

/// The fencing token a write carries, and whether the register refuses a stale one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence {
    /// The writer's token of the lock that fences the register (0: it holds none).
    pub token: Token,
    /// Whether a token lower than one already accepted is rejected (the lock's fencing).
    pub checked: bool,
}

/// What became of a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Landing {
    /// Applied; `lost` when it overwrote a value its writer had not read.
    Applied {
        /// It landed on a value other than the one its writer read.
        lost: bool,
    },
    /// Rejected: its fencing token is older than one the register accepted.
    Fenced,
    /// Rejected: a compare-and-set that found the value changed since its read.
    Conflict,
}

/// A register's value and what its writes did, on integer-nanosecond time.
///
/// ```
/// use coordsim_scenario::{Landing, Register};
///
/// // Two clients read 0 and both write read + 1: the second overwrites the first.
/// let mut register = Register::new(0.0);
/// let (first_read, second_read) = (register.read(0, false), register.read(0, false));
/// assert_eq!(register.land(5, first_read, first_read + 1.0, None, false), Landing::Applied { lost: false });
/// assert_eq!(register.land(6, second_read, second_read + 1.0, None, false), Landing::Applied { lost: true });
/// assert_eq!((register.value(), register.writes(), register.lost_updates()), (1.0, 2, 1));
/// // As a compare-and-set, the second write is refused instead.
/// let mut register = Register::new(0.0);
/// register.land(5, 0.0, 1.0, None, true);
/// assert_eq!(register.land(6, 0.0, 1.0, None, true), Landing::Conflict);
/// assert_eq!((register.value(), register.rejected_writes()), (1.0, 1));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Register {
    value: f64,
    /// The value when the instant of the last landing began.
    at_instant_start: f64,
    instant: Option<Nanos>,
    writes: u64,
    lost: u64,
    rejected: u64,
    accepted: Token,
}

/// What decides what the register does next: its value, the instant's start value and the
/// highest token it accepted. Its counts ([`Register::counts`]) are left out: they only add
/// up (by what the value and the writes decide, never by the counts so far), and an
/// explorer carries them on its transitions instead of telling states apart by them.
impl std::hash::Hash for Register {
    fn hash<H: std::hash::Hasher>(&self, hasher: &mut H) {
        crate::machine::hash_f64(self.value, hasher);
        crate::machine::hash_f64(self.at_instant_start, hasher);
        (self.instant, self.accepted).hash(hasher);
    }
}

impl Register {
    /// What decides what it does next, its counts left out, onto `words`, with the instant
    /// of its last landing only as whether it is `now` (an explorer's cycle key: two states
    /// a time shift apart write the same words).
    pub(crate) fn cycle_words(&self, now: Nanos, words: &mut Vec<u64>) {
        let this_instant = self.instant == Some(now);
        words.extend([
            self.value.to_bits(),
            u64::from(this_instant),
            if this_instant {
                self.at_instant_start.to_bits()
            } else {
                0
            },
            self.accepted,
        ]);
    }

    /// A register holding `initial`.
    pub fn new(initial: f64) -> Register {
        Register {
            value: initial,
            at_instant_start: initial,
            instant: None,
            writes: 0,
            lost: 0,
            rejected: 0,
            accepted: 0,
        }
    }

    /// A read's snapshot at `now`: the value, or with `as_of_instant_start` the value it had
    /// when the instant began, before any write landed at `now` (the `reads_first` rule).
    pub fn read(&self, now: Nanos, as_of_instant_start: bool) -> f64 {
        if as_of_instant_start && self.instant == Some(now) {
            self.at_instant_start
        } else {
            self.value
        }
    }

    /// A write of `new` lands at `now`, by a writer that read `read` (NaN: it read
    /// nothing, so it overwrites no update it could have seen). A `fence` that is checked
    /// refuses a token older than one accepted; a `cas` write refuses a value that changed.
    pub fn land(
        &mut self,
        now: Nanos,
        read: f64,
        new: f64,
        fence: Option<Fence>,
        cas: bool,
    ) -> Landing {
        if self.instant != Some(now) {
            self.instant = Some(now);
            self.at_instant_start = self.value;
        }
        let stale = !read.is_nan() && self.value != read;
        if let Some(fence) = fence
            && fence.checked
            && fence.token < self.accepted
        {
            self.rejected += 1;
            return Landing::Fenced;
        }
        if cas && stale {
            self.rejected += 1;
            return Landing::Conflict;
        }
        if stale {
            self.lost += 1;
        }
        if let Some(fence) = fence {
            self.accepted = self.accepted.max(fence.token);
        }
        self.value = new;
        self.writes += 1;
        Landing::Applied { lost: stale }
    }

    /// The value.
    pub fn value(&self) -> f64 {
        self.value
    }

    /// Writes applied.
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// Applied writes that landed on a value other than the one their writer read.
    pub fn lost_updates(&self) -> u64 {
        self.lost
    }

    /// Writes refused (compare-and-set conflicts, stale fencing tokens).
    pub fn rejected_writes(&self) -> u64 {
        self.rejected
    }

    /// Its counts: writes applied, lost updates, writes refused. What the register does
    /// next never depends on them.
    pub fn counts(&self) -> [u64; 3] {
        [self.writes, self.lost, self.rejected]
    }

    /// Its counts set to `counts` (as [`Register::counts`] gives them): an explorer's end
    /// state reached along another execution, with that execution's counts.
    pub fn set_counts(&mut self, counts: [u64; 3]) {
        [self.writes, self.lost, self.rejected] = counts;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A holder whose lease was taken over writes with the older token: refused once the
    /// newer token has written, when the lock fences; applied (a lost update) when not.
    #[test]
    fn a_stale_token_is_refused_only_where_fencing_is_checked() {
        for (checked, expected) in [
            (true, Landing::Fenced),
            (false, Landing::Applied { lost: true }),
        ] {
            let mut register = Register::new(0.0);
            let (old, new) = (register.read(0, false), register.read(11, false));
            let fence = |token| Some(Fence { token, checked });
            assert_eq!(
                register.land(12, new, 5.0, fence(2), false),
                Landing::Applied { lost: false }
            );
            assert_eq!(register.land(13, old, 7.0, fence(1), false), expected);
        }
    }

    /// `reads_first`: a read at the instant of a landing sees the value from before it.
    #[test]
    fn a_read_as_of_the_instant_start_misses_that_instants_writes() {
        let mut register = Register::new(3.0);
        register.land(10, 3.0, 4.0, None, false);
        assert_eq!(register.read(10, true), 3.0);
        assert_eq!(register.read(10, false), 4.0);
        // A later instant has had no landing: the value itself.
        assert_eq!(register.read(11, true), 4.0);
    }
}
