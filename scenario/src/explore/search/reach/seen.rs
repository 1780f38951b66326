//! The reachability search's seen set: each state's 64-bit fingerprint and its first
//! parent's number, by number (the order the search met them in), and an open-addressing
//! table of numbers over them. 12 bytes a state, and 4 a slot of a table at most half
//! full: from 20 to 28 bytes a state, and no allocation but when the lists grow.

/// The number of no state: the start's parent.
pub(super) const NO_PARENT: u32 = u32::MAX;

/// The states met, by number (see the module's words).
pub(super) struct Seen {
    /// Each state's fingerprint.
    keys: Vec<u64>,
    /// Each state's first parent ([`NO_PARENT`] for the start).
    parents: Vec<u32>,
    /// A power of two of slots, each 0 (empty) or a state's number + 1, probed linearly
    /// from the slot its fingerprint's top bits name.
    slots: Vec<u32>,
    /// 64 less the slots' power of two: a fingerprint shifted by it names its slot.
    shift: u32,
}

impl Seen {
    /// No state yet (16 slots).
    pub(super) fn new() -> Seen {
        Seen {
            keys: Vec::new(),
            parents: Vec::new(),
            slots: vec![0; 16],
            shift: 64 - 4,
        }
    }

    /// States met.
    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Slots of its table.
    pub(super) fn slots(&self) -> usize {
        self.slots.len()
    }

    /// State `number`'s first parent ([`NO_PARENT`] for the start).
    pub(super) fn parent(&self, number: u32) -> u32 {
        self.parents[number as usize]
    }

    /// The bytes its lists and table hold (their capacities).
    pub(super) fn bytes(&self) -> u64 {
        (8 * self.keys.capacity() + 4 * self.parents.capacity() + 4 * self.slots.len()) as u64
    }

    /// The slot `key` is looked for from: its top bits after a multiply (a test's weak
    /// fingerprints keep only low bits, which the multiply carries up).
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The number of the state keyed `key`, or (`Err`) the empty slot where it would go.
    pub(super) fn find(&self, key: u64) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut at = self.home(key);
        loop {
            match self.slots[at] {
                0 => return Err(at),
                slot if self.keys[(slot - 1) as usize] == key => return Ok(slot - 1),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// A new state keyed `key` (not met: `slot` is where [`Seen::find`] said it would go),
    /// reached first from `parent`: its number.
    pub(super) fn insert(&mut self, slot: usize, key: u64, parent: u32) -> u32 {
        let number = self.keys.len() as u32;
        self.keys.push(key);
        self.parents.push(parent);
        if 2 * self.keys.len() > self.slots.len() {
            // Past half full: twice the slots, every state placed again.
            self.shift -= 1;
            self.slots = vec![0; 2 * self.slots.len()];
            for n in 0..self.keys.len() as u32 {
                self.place(n);
            }
        } else {
            self.slots[slot] = number + 1;
        }
        number
    }

    /// State `number` put in the first empty slot from its home.
    fn place(&mut self, number: u32) {
        let mask = self.slots.len() - 1;
        let mut at = self.home(self.keys[number as usize]);
        while self.slots[at] != 0 {
            at = (at + 1) & mask;
        }
        self.slots[at] = number + 1;
    }

    /// The numbers from the start to state `number`, along the first parents.
    pub(super) fn chain(&self, number: u32) -> Vec<u32> {
        let mut chain = vec![number];
        let mut at = number;
        while self.parent(at) != NO_PARENT {
            at = self.parent(at);
            chain.push(at);
        }
        chain.reverse();
        chain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key inserted is found again with its number and parent, through several
    /// growths; a key never inserted is not (keys that share their top bits collide on
    /// purpose: they probe on).
    #[test]
    fn finds_every_key_through_growth() {
        let mut seen = Seen::new();
        let key = |n: u64| (n % 7) << 60 | n;
        for n in 0..10_000u64 {
            let slot = seen.find(key(n)).expect_err("new");
            let parent = if n == 0 { NO_PARENT } else { (n / 2) as u32 };
            assert_eq!(seen.insert(slot, key(n), parent), n as u32);
        }
        for n in 0..10_000u64 {
            assert_eq!(seen.find(key(n)), Ok(n as u32));
        }
        assert!(seen.find(key(10_001)).is_err());
        // 10,000 states in 32,768 slots: 16,384 would be more than half full (2 × 10,000).
        assert_eq!(seen.slots.len(), 32_768);
        // 9 → 4 → 2 → 1 → 0.
        assert_eq!(seen.chain(9), vec![0, 1, 2, 4, 9]);
    }
}
