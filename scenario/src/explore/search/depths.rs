//! Each state's depth, found again from its level: the search numbers its states breadth
//! first, so a level's states are consecutive nodes and a state's depth is the level whose
//! first node is the last at or before it. One word a level, where a word a state took 4
//! bytes of each.

/// The depths of the states numbered so far, as each level's first node.
#[derive(Debug, Default)]
pub(super) struct Depths {
    /// Level `d`'s first node (a level with no state: the next level's first).
    firsts: Vec<u32>,
    /// The states numbered.
    len: u32,
}

impl Depths {
    /// The next state numbered, at `depth`: the deepest so far or deeper (the search is
    /// breadth first).
    pub(super) fn push(&mut self, depth: u32) {
        debug_assert!(
            depth as usize + 1 >= self.firsts.len(),
            "a state numbered at depth {depth} after one at depth {}",
            self.firsts.len().saturating_sub(1)
        );
        while self.firsts.len() <= depth as usize {
            self.firsts.push(self.len);
        }
        self.len += 1;
    }

    /// How many states were numbered.
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// State `node`'s depth (`node` numbered already).
    pub(super) fn of(&self, node: u32) -> u32 {
        (self.firsts.partition_point(|&first| first <= node) as u32).saturating_sub(1)
    }

    /// The deepest state's depth (0 with none).
    pub(super) fn deepest(&self) -> u32 {
        (self.firsts.len() as u32).saturating_sub(1)
    }

    /// The bytes its levels take.
    pub(super) fn bytes(&self) -> u64 {
        (std::mem::size_of::<u32>() * self.firsts.capacity()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::Depths;

    #[test]
    fn each_state_finds_the_depth_it_was_numbered_at() {
        // A breadth-first numbering: one start, three at depth 1, none at 2 would be a gap
        // the search never makes, but the levels take it (depth 3 after 1).
        let numbered = [0, 1, 1, 1, 3, 3, 4];
        let mut depths = Depths::default();
        for &depth in &numbered {
            depths.push(depth);
        }
        assert_eq!(depths.len(), numbered.len());
        for (node, &depth) in numbered.iter().enumerate() {
            assert_eq!(depths.of(node as u32), depth, "node {node}");
        }
        assert_eq!(depths.deepest(), 4);
        assert_eq!(Depths::default().deepest(), 0);
    }
}
