//! The extreme scheduler's most likely execution ([`Schedulers::extreme_path`]): against
//! every memoryless scheduler enumerated on tiny graphs (on a graph without cycles one
//! that chooses by the entry alone is as good as any), and by hand.

use coordsim_model::explore::Schedulers;
use proptest::prelude::*;

use crate::schedulers::{Tiny, tiny};

impl Tiny {
    /// Every memoryless scheduler: one action per entry that goes on.
    fn memoryless(&self) -> Vec<Vec<usize>> {
        let mut all = vec![vec![0usize; self.entries.len()]];
        for (entry, actions) in self.entries.iter().enumerate() {
            let Some(actions) = actions else { continue };
            all = all
                .into_iter()
                .flat_map(|choice| {
                    (0..actions.len()).map(move |a| {
                        let mut c = choice.clone();
                        c[entry] = a;
                        c
                    })
                })
                .collect();
        }
        all
    }

    /// P(in_set) from `entry` under `choice`, by a plain recursion.
    fn chance(&self, choice: &[usize], entry: usize, in_set: &dyn Fn(usize) -> bool) -> f64 {
        match &self.entries[entry] {
            None => f64::from(u8::from(in_set(self.ends[entry]))),
            Some(actions) => {
                let action = &actions[choice[entry]];
                action
                    .iter()
                    .map(|&(to, w)| Tiny::probability(action, w) * self.chance(choice, to, in_set))
                    .sum()
            }
        }
    }

    /// The most likely execution's probability under `choice` ending where `into` holds.
    fn likeliest(&self, choice: &[usize], entry: usize, into: &dyn Fn(usize) -> bool) -> f64 {
        match &self.entries[entry] {
            None => f64::from(u8::from(into(self.ends[entry]))),
            Some(actions) => {
                let action = &actions[choice[entry]];
                action
                    .iter()
                    .map(|&(to, w)| Tiny::probability(action, w) * self.likeliest(choice, to, into))
                    .fold(0.0, f64::max)
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Its probability is the greatest any extreme scheduler gives one execution ending
    /// `into`; the path is one: each step a branch of an action of its entry, the product of
    /// their probabilities, and an end `into` holds for; and some extreme scheduler takes
    /// every action along it.
    #[test]
    fn the_extreme_schedulers_likeliest_execution(tiny in tiny(), set in 0u8..8, into in 0u8..8, least: bool) {
        let in_set = |k: usize| set >> k & 1 == 1;
        let into_set = |k: usize| into >> k & 1 == 1;
        let s: Schedulers = tiny.schedulers();
        let extreme = s.extreme(&in_set, least);
        let schedulers = tiny.memoryless();
        let extremes: Vec<&Vec<usize>> = schedulers
            .iter()
            .filter(|c| (tiny.chance(c, 0, &in_set) - extreme).abs() < 1e-12)
            .collect();
        prop_assert!(!extremes.is_empty());
        let best = extremes.iter().map(|c| tiny.likeliest(c, 0, &into_set)).fold(0.0, f64::max);
        match s.extreme_path(&in_set, least, &into_set) {
            None => prop_assert!(best == 0.0, "none, but {best}"),
            Some((path, p)) => {
                prop_assert!((p - best).abs() < 1e-12, "{p} vs {best}");
                let mut entry = 0u32;
                let mut product = 1.0;
                for &(at, action, branch) in &path {
                    prop_assert_eq!(at, entry);
                    let (q, to) = s.branch(at, action, branch);
                    product *= q;
                    entry = to;
                }
                let end = s.outcome_of(entry);
                prop_assert!(end != Schedulers::GOES_ON && into_set(end as usize));
                prop_assert!((product - p).abs() < 1e-12);
                // Some extreme scheduler takes these actions.
                prop_assert!(extremes.iter().any(|c| path.iter().all(|&(at, a, _)| c[at as usize] == a as usize)));
            }
        }
    }
}

/// By hand, on the sure outcome or the coin: entry 0 takes `a` (to outcome 0 for sure) or
/// `b` (0.3 to outcome 1, 0.7 to outcome 0). The least P(outcome 1) is 0, by `a` only: its
/// likeliest execution out of the set is `a` itself (probability 1), and none of that
/// scheduler reaches outcome 1. The greatest, 0.3, is `b`'s: into the set, its heads (0.3).
#[test]
fn the_sure_outcome_or_the_coin_by_hand() {
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
    let one = |k: usize| k == 1;
    let not_one = |k: usize| k != 1;
    assert_eq!(
        s.extreme_path(&one, true, &not_one),
        Some((vec![(0, 0, 0)], 1.0))
    );
    assert_eq!(s.extreme_path(&one, true, &one), None);
    assert_eq!(
        s.extreme_path(&one, false, &one),
        Some((vec![(0, 1, 0)], 0.3))
    );
}
