//! The layouts of the flat state's words that only some points have: a server's, restarts',
//! a `parallel`'s branches', polls' (each laid out by the module named).

/// One server's words in a flat state ([`super::server`]'s layout).
#[derive(Debug, Clone, Copy)]
pub(super) struct Desk {
    /// Where its words begin.
    pub(super) at: usize,
    pub(super) instances: u32,
    pub(super) service: u64,
    /// Its first instance's line (as a waiting word names it: after the locks' and the
    /// queues').
    pub(super) line: usize,
}

/// What a flat state keeps of restarts, and which members a crash step by names kills
/// ([`super::restart`]).
#[derive(Debug, Clone, Default)]
pub(super) struct Restarts {
    /// Words each actor's block keeps for restarts (0: no crash restarts).
    pub(super) words: usize,
    /// Per actor and step, whether a crash step by names names it (empty: no such step).
    pub(super) named: Vec<Vec<bool>>,
}

/// Where a flat state keeps the branches of each actor's `parallel` ([`super::fork`]'s layout).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Forks {
    /// Where an actor's fork words begin in its block.
    pub(super) at: usize,
    /// The most branches of any `parallel` (0: no group forks).
    pub(super) fan: usize,
    /// Words a branch: its step and its reads.
    pub(super) stride: usize,
}

/// Where a point's words for polls, holders and fences are ([`Flat::with_polls`](super::Flat::with_polls)); off
/// where its locks are queue locks with no stale record, no step renews and no register
/// is fenced.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Polls {
    pub(super) on: bool,
    /// Where its header words begin.
    pub(super) at: usize,
    /// Where its words begin in an actor's block.
    pub(super) own: usize,
}
