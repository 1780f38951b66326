//! A free order is a scheduler's choice: the least and the greatest probability of a set of
//! outcomes over every scheduler.
//!
//! Where an instant leaves several events in a free order (or an actor may crash anywhere),
//! which one runs is chosen by no draw: a *scheduler* chooses, at each point of an
//! execution, one of the actions the semantics allow there (an event, or its actor's crash),
//! knowing everything that happened so far; the random draws of the action it chose keep
//! their probabilities. Each scheduler gives every outcome a probability, so an outcome's
//! probability is an interval: its least and greatest over every scheduler.
//!
//! Both ends are computed over the explored graph of entries (a state with the counts an
//! execution brings to it), which is acyclic: an end entry is worth 1 when its outcome is in
//! the set and 0 when not; any other entry is worth the least (the greatest) over its
//! actions of the sum of each random branch's probability times its target's worth. One
//! pass from the ends back to the start is exact but for floating point: see
//! [`Schedulers::extreme`] for the error bound. A scheduler that chooses by the whole
//! history does no better than one that chooses by the entry alone (the graph is acyclic,
//! and an entry's future depends on nothing else), so the pass covers every scheduler.

/// The graph of an exploration's entries as a scheduler sees it: each entry's actions, and
/// each action's random branches. Kept only when asked
/// ([`ExploreLimits::keep_schedulers`](super::ExploreLimits::keep_schedulers)).
///
/// Entries are numbered so that every branch goes to a later entry (a topological order),
/// the start first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Schedulers {
    /// Per entry, where its actions begin in `action_branches` (one more than the entries).
    entry_actions: Vec<u32>,
    /// Per action, where its branches begin in `to` and `probability` (one more than the
    /// actions).
    action_branches: Vec<u32>,
    /// Each branch's target entry.
    to: Vec<u32>,
    /// Each branch's probability given its action.
    probability: Vec<f64>,
    /// Per entry, its outcome (an index into [`Exploration::outcomes`](super::Exploration::outcomes)),
    /// or [`Schedulers::GOES_ON`] for an entry with actions.
    outcome: Vec<u32>,
}

impl Schedulers {
    /// An entry's outcome when it has none: it goes on.
    pub const GOES_ON: u32 = u32::MAX;

    /// An empty graph, to build entry by entry.
    pub fn new() -> Schedulers {
        Schedulers {
            entry_actions: vec![0],
            action_branches: vec![0],
            ..Schedulers::default()
        }
    }

    /// The entries so far.
    pub fn entries(&self) -> usize {
        self.outcome.len()
    }

    /// The actions so far.
    pub fn actions(&self) -> usize {
        self.action_branches.len() - 1
    }

    /// Adds an end entry, of outcome `outcome`.
    pub fn push_end(&mut self, outcome: u32) {
        self.outcome.push(outcome);
        self.entry_actions
            .push(self.entry_actions[self.entries() - 1]);
    }

    /// Adds an entry that goes on: its actions follow ([`Schedulers::push_action`]).
    pub fn push_entry(&mut self) {
        self.outcome.push(Self::GOES_ON);
        self.entry_actions
            .push(self.entry_actions[self.entries() - 1]);
    }

    /// Adds an action to the last entry: its branches follow
    /// ([`Schedulers::push_branch`]). `Err` when there is no entry, or the last ends.
    pub fn push_action(&mut self) -> Result<(), String> {
        match self.outcome.last() {
            Some(&Self::GOES_ON) => {}
            Some(_) => return Err("an end entry has no action".into()),
            None => return Err("an action needs an entry first".into()),
        }
        let branches = self.to.len() as u32;
        self.action_branches.push(branches);
        if let Some(last) = self.entry_actions.last_mut() {
            *last += 1;
        }
        Ok(())
    }

    /// Adds a branch to the last action: to entry `to` (later than the last entry) with
    /// probability `probability` given the action.
    pub fn push_branch(&mut self, to: u32, probability: f64) -> Result<(), String> {
        let from = self
            .entries()
            .checked_sub(1)
            .ok_or("a branch needs an entry")?;
        if self.entry_actions[from] == self.entry_actions[from + 1] {
            return Err("a branch needs an action of its entry first".into());
        }
        if to as usize <= from {
            return Err(format!(
                "a branch from entry {from} goes to entry {to}: entries are in topological order"
            ));
        }
        if !(0.0..=1.0).contains(&probability) {
            return Err(format!(
                "a branch's probability is {probability}, not in [0, 1]"
            ));
        }
        self.to.push(to);
        self.probability.push(probability);
        if let Some(last) = self.action_branches.last_mut() {
            *last += 1;
        }
        Ok(())
    }

    /// Whether some entry has more than one action: a scheduler chooses somewhere.
    pub fn chooses(&self) -> bool {
        self.entry_actions.windows(2).any(|w| w[1] - w[0] > 1)
    }

    /// The least (`least`) or the greatest probability, over every scheduler, that an
    /// execution ends with an outcome `in_set` holds for. 0 for an empty graph.
    ///
    /// Floating point, with its error bounded: each entry's worth is a sum of at most `b`
    /// products (`b` the branches of one action) of a probability and a worth, each in
    /// [0, 1], so each sum adds at most `(b + 1)·2⁻⁵³` of rounding to what its targets
    /// carry (taking the least or the greatest adds none); along the `n` events of the
    /// longest execution, the start's worth is within `n·(b + 1)·2⁻⁵³` of the exact value
    /// of the probabilities as stored (each a product of at most 64 draws' probabilities,
    /// itself within `65·2⁻⁵³` relative). For a million events and 64 branches: under 10⁻⁸
    /// in theory, far less in practice; the claims' tolerance is 10⁻⁹.
    pub fn extreme(&self, in_set: &dyn Fn(usize) -> bool, least: bool) -> f64 {
        self.extreme_mean(&|k| f64::from(u8::from(in_set(k))), least)
    }

    /// The least (`least`) or the greatest expected value, over every scheduler, of what
    /// an execution's outcome is worth (`value_of`, by the outcome's index): the same pass
    /// as [`Schedulers::extreme`], an end worth its outcome's value instead of 0 or 1. 0
    /// for an empty graph.
    ///
    /// The error bound is [`Schedulers::extreme`]'s times the largest `|value_of|`: each
    /// entry's worth is a sum of at most `b` products of a probability and a worth, and a
    /// worth is at most that largest value. Where a fault the budget forbids leaves an
    /// action's branches short of 1, that share is worth nothing: the result is the
    /// expected value over the executions explored, not a conditional one.
    pub fn extreme_mean(&self, value_of: &dyn Fn(usize) -> f64, least: bool) -> f64 {
        let mut worth = vec![0.0f64; self.entries()];
        self.worth_into(value_of, least, &mut worth);
        worth.first().copied().unwrap_or(0.0)
    }

    /// The least (`least`) or the greatest `p`-quantile over every scheduler of the value
    /// an execution's outcome ends with (`values[k]` for outcome `k`): for one scheduler σ,
    /// the least outcome value x with F_σ(x) = P_σ(value ≤ x) ≥ p (the nearest rank), a
    /// cumulative share within `tolerance` of `p` counting as reaching it. `None` without
    /// values.
    ///
    /// The greatest over σ is the least x with min_σ F_σ(x) ≥ p: there every σ has reached
    /// p, so no σ's quantile is above x; at the value just below x some σ has not, so that
    /// σ's quantile is x. Likewise the least is the least x with max_σ F_σ(x) ≥ p. Each end
    /// of F(x) is [`Schedulers::extreme`] of the set {value ≤ x}, which grows with x: a
    /// binary search over the distinct values takes about log₂ of their number passes.
    pub fn extreme_quantile(
        &self,
        values: &[f64],
        p: f64,
        tolerance: f64,
        least: bool,
    ) -> Option<f64> {
        let mut distinct = values.to_vec();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        let reaches = |x: f64| {
            let in_set = |k: usize| values.get(k).is_some_and(|v| *v <= x);
            self.extreme(&in_set, !least) >= p - tolerance
        };
        Some(distinct[least_index(distinct.len(), &|i| reaches(distinct[i]))?])
    }

    /// Each entry's worth (see [`Schedulers::extreme_mean`]) into `worth` (one per entry):
    /// the least or greatest expected value of an end's `value_of` from that entry on.
    pub fn worth_into(&self, value_of: &dyn Fn(usize) -> f64, least: bool, worth: &mut [f64]) {
        for entry in (0..self.entries()).rev() {
            let outcome = self.outcome[entry];
            if outcome != Self::GOES_ON {
                worth[entry] = value_of(outcome as usize);
                continue;
            }
            let actions =
                self.entry_actions[entry] as usize..self.entry_actions[entry + 1] as usize;
            let mut best: Option<f64> = None;
            for action in actions {
                let value = self.action_worth(action, worth);
                best = Some(match best {
                    None => value,
                    Some(b) if least => b.min(value),
                    Some(b) => b.max(value),
                });
            }
            worth[entry] = best.unwrap_or(0.0);
        }
    }

    /// The most likely execution under a scheduler that attains the least (`least`) or the
    /// greatest probability of `in_set` ([`Schedulers::extreme`]), among those ending with
    /// an outcome `into` holds for: each step as (entry, its action's place among the
    /// entry's, the branch's place among the action's), and the execution's probability
    /// (the product of its branches'). `None` when no such execution has a probability
    /// above 0 under any such scheduler.
    ///
    /// A scheduler attains the extreme exactly when it takes, at every entry an execution
    /// may reach, an action whose worth is the entry's ([`Schedulers::worth_into`]: the
    /// pass is backward induction); any of several such actions will do. So one pass back
    /// over the graph gives, per entry, the most likely way to an end `into` holds for
    /// through such actions alone, and the walk from the start follows it.
    pub fn extreme_path(
        &self,
        in_set: &dyn Fn(usize) -> bool,
        least: bool,
        into: &dyn Fn(usize) -> bool,
    ) -> Option<(Vec<Step>, f64)> {
        self.extreme_path_of(&|k| f64::from(u8::from(in_set(k))), least, into)
    }

    /// [`Schedulers::extreme_path`] for a scheduler that attains the least (`least`) or the
    /// greatest expected value of `value_of` ([`Schedulers::extreme_mean`]). Two actions
    /// whose worths differ by less than 10⁻¹² of the larger magnitude (at least 1) are taken
    /// as equal: the same sums, added in another order. Of several likeliest executions,
    /// the one of the first action, then the first branch, in the graph's order.
    pub fn extreme_path_of(
        &self,
        value_of: &dyn Fn(usize) -> f64,
        least: bool,
        into: &dyn Fn(usize) -> bool,
    ) -> Option<(Vec<Step>, f64)> {
        /// Two worths that differ by less, relative to the larger (at least 1), are one.
        const SAME: f64 = 1e-12;
        let entries = self.entries();
        let mut worth = vec![0.0f64; entries];
        self.worth_into(value_of, least, &mut worth);
        // Per entry: the most likely way's probability, and its (action, branch).
        let mut likely = vec![0.0f64; entries];
        let mut way = vec![(u32::MAX, u32::MAX); entries];
        for entry in (0..entries).rev() {
            let outcome = self.outcome[entry];
            if outcome != Self::GOES_ON {
                likely[entry] = f64::from(u8::from(into(outcome as usize)));
                continue;
            }
            let first = self.entry_actions[entry] as usize;
            for action in first..self.entry_actions[entry + 1] as usize {
                let value = self.action_worth(action, &worth);
                let scale = value.abs().max(worth[entry].abs()).max(1.0);
                if (value - worth[entry]).abs() > SAME * scale {
                    continue;
                }
                let branches = self.action_branches[action] as usize;
                for branch in branches..self.action_branches[action + 1] as usize {
                    let p = self.probability[branch] * likely[self.to[branch] as usize];
                    if p > likely[entry] {
                        likely[entry] = p;
                        way[entry] = ((action - first) as u32, (branch - branches) as u32);
                    }
                }
            }
        }
        if likely.first().is_none_or(|p| *p <= 0.0) {
            return None;
        }
        let mut path = Vec::new();
        let mut entry = 0usize;
        while self.outcome[entry] == Self::GOES_ON {
            let (action, branch) = way[entry];
            path.push((entry as u32, action, branch));
            let at = self.action_branches[self.entry_actions[entry] as usize + action as usize];
            entry = self.to[(at + branch) as usize] as usize;
        }
        Some((path, likely[0]))
    }

    /// The place of `branch` (its place among its action's) of action `action` (its place
    /// among entry `entry`'s) among every branch of the graph, in the order they were
    /// pushed.
    pub fn branch_index(&self, entry: u32, action: u32, branch: u32) -> usize {
        (self.action_branches[(self.entry_actions[entry as usize] + action) as usize] + branch)
            as usize
    }

    /// The probability of `branch` (its place among its action's) of action `action` (its
    /// place among entry `entry`'s), and the entry it goes to.
    pub fn branch(&self, entry: u32, action: u32, branch: u32) -> (f64, u32) {
        let at = self.branch_index(entry, action, branch);
        (self.probability[at], self.to[at])
    }

    /// The branches so far.
    pub fn branches(&self) -> usize {
        self.to.len()
    }

    /// Entry `entry`'s outcome ([`Schedulers::GOES_ON`]: none, it goes on).
    pub fn outcome_of(&self, entry: u32) -> u32 {
        self.outcome[entry as usize]
    }

    /// Action `action`'s worth: each branch's probability times its target's worth.
    fn action_worth(&self, action: usize, worth: &[f64]) -> f64 {
        let branches =
            self.action_branches[action] as usize..self.action_branches[action + 1] as usize;
        branches
            .map(|b| self.probability[b] * worth.get(self.to[b] as usize).copied().unwrap_or(0.0))
            .sum()
    }

    /// Bytes it holds, about.
    pub fn bytes(&self) -> usize {
        4 * (self.entry_actions.len() + self.action_branches.len() + self.to.len())
            + 8 * self.probability.len()
            + 4 * self.outcome.len()
    }
}

/// One step of an execution over the schedulers' graph: an entry, its action's place among
/// the entry's, and the branch's place among the action's.
pub type Step = (u32, u32, u32);

/// The least index below `n` that `holds` (which, once it holds, holds for every greater
/// index) holds for, by binary search; the last when none does. `None` when `n` is 0.
pub fn least_index(n: usize, holds: &dyn Fn(usize) -> bool) -> Option<usize> {
    let (mut lo, mut hi) = (0, n.checked_sub(1)?);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if holds(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entry 0 chooses between action `a`, to entry 1 (outcome 0) for sure, and action `b`,
    /// a coin of 0.3 to entry 2 (outcome 1) or 0.7 to entry 3 (outcome 0).
    fn sure_or_coin() -> Schedulers {
        let mut s = Schedulers::new();
        s.push_entry();
        s.push_action().unwrap();
        s.push_branch(1, 1.0).unwrap();
        s.push_action().unwrap();
        s.push_branch(2, 0.3).unwrap();
        s.push_branch(3, 0.7).unwrap();
        s.push_end(0);
        s.push_end(1);
        s.push_end(0);
        s
    }

    /// A scheduler's choice between a sure outcome and a coin.
    ///
    /// Entry 0 has two actions: `a` goes to entry 1 (outcome 0) for sure; `b` flips a coin
    /// of 0.3 to entry 2 (outcome 1) or 0.7 to entry 3 (outcome 0). P(outcome 1) is 0
    /// under the scheduler that takes `a`, 0.3 under the one that takes `b`: [0, 0.3].
    /// P(outcome 0) is 1 − that: [0.7, 1].
    #[test]
    fn a_choice_between_a_sure_outcome_and_a_coin() {
        let s = sure_or_coin();
        assert!(s.chooses());
        let one = |k: usize| k == 1;
        let zero = |k: usize| k == 0;
        assert_eq!(s.extreme(&one, true), 0.0);
        assert_eq!(s.extreme(&one, false), 0.3);
        assert_eq!(s.extreme(&zero, true), 0.7);
        assert_eq!(s.extreme(&zero, false), 1.0);
    }

    /// The expected value over the same choice: outcome 0 worth 10, outcome 1 worth 40.
    /// Taking `a` gives 10 for sure; taking `b` gives 0.3 · 40 + 0.7 · 10 = 12 + 7 = 19.
    /// So the least expected value is 10, the greatest 19.
    #[test]
    fn the_expected_value_over_a_choice_between_a_sure_outcome_and_a_coin() {
        let s = sure_or_coin();
        let value = |k: usize| if k == 1 { 40.0 } else { 10.0 };
        assert_eq!(s.extreme_mean(&value, true), 10.0);
        assert!((s.extreme_mean(&value, false) - 19.0).abs() < 1e-12);
    }

    /// A choice after a draw sees the draw: a coin of 0.5, then on heads a choice between
    /// outcome 1 and outcome 0, on tails outcome 0. The greatest P(outcome 1) is 0.5 (choose
    /// outcome 1 on heads), the least 0.
    #[test]
    fn a_choice_after_a_draw() {
        let mut s = Schedulers::new();
        s.push_entry(); // 0: the coin
        s.push_action().unwrap();
        s.push_branch(1, 0.5).unwrap();
        s.push_branch(2, 0.5).unwrap();
        s.push_entry(); // 1: heads, a choice
        s.push_action().unwrap();
        s.push_branch(3, 1.0).unwrap();
        s.push_action().unwrap();
        s.push_branch(2, 1.0).unwrap();
        s.push_end(0); // 2
        s.push_end(1); // 3
        let one = |k: usize| k == 1;
        assert_eq!((s.extreme(&one, true), s.extreme(&one, false)), (0.0, 0.5));
    }

    /// A branch back to an earlier entry, or a branch with no action, is refused.
    #[test]
    fn a_graph_out_of_order_is_refused() {
        let mut s = Schedulers::new();
        assert!(s.push_action().is_err());
        s.push_entry();
        assert!(s.push_branch(1, 1.0).is_err());
        s.push_action().unwrap();
        assert!(s.push_branch(0, 1.0).is_err());
        assert!(s.push_branch(1, 1.5).is_err());
        s.push_end(0);
        assert!(s.push_action().is_err());
    }
}
