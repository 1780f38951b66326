//! Symmetry in a flat state: each interchangeable group's member blocks sorted by their
//! words (every word that names a member sits in its block, so the sort is the whole
//! canonical order), and an execution over canonical states named back in the real run.

use super::{Draws, Flat};
use crate::explore::step::Choice;

impl Flat<'_> {
    /// Whether a group is taken as interchangeable.
    pub(in crate::explore) fn symmetric(&self) -> bool {
        !self.groups.is_empty()
    }

    /// The actors of `state` in its canonical order (`order[place]`: the actor that goes
    /// there): each interchangeable group's members sorted by their words, members alike
    /// kept in their order (so the lowest-numbered of them comes first); every other actor
    /// in its place.
    fn order(&self, state: &[u64], order: &mut Vec<u32>) {
        order.clear();
        order.extend(0..self.members.len() as u32);
        let block = self.block;
        for &(first, members) in &self.groups {
            let words = |a: u32| &state[self.base(a as usize)..self.base(a as usize) + block];
            order[first as usize..(first + members) as usize]
                .sort_by(|&a, &b| words(a).cmp(words(b)).then(a.cmp(&b)));
        }
    }

    /// `state` put in its canonical order, in place ([`Flat::order`]; `order` and
    /// `scratch` are buffers kept by the caller). A state and its renamings become one.
    pub(in crate::explore) fn canonicalize(
        &self,
        state: &mut [u64],
        order: &mut Vec<u32>,
        scratch: &mut Vec<u64>,
    ) {
        if self.groups.is_empty() {
            return;
        }
        self.order(state, order);
        let block = self.block;
        for &(first, members) in &self.groups {
            let places = &order[first as usize..(first + members) as usize];
            // Members already in their order (most children: a step moves one member)
            // are left where they are, not copied out and back.
            if places
                .iter()
                .zip(first..)
                .all(|(&actor, place)| actor == place)
            {
                continue;
            }
            let (from, to) = (
                self.base(first as usize),
                self.base((first + members) as usize),
            );
            scratch.clear();
            scratch.extend_from_slice(&state[from..to]);
            for (place, &actor) in order[first as usize..(first + members) as usize]
                .iter()
                .enumerate()
            {
                let old = (actor - first) as usize * block;
                state[from + place * block..from + (place + 1) * block]
                    .copy_from_slice(&scratch[old..old + block]);
            }
        }
    }

    /// An execution given as choices among the free events of canonical states (`picks`:
    /// each pick, whether the reduction took it alone, and its draws), as choices in the
    /// real run, from the start: each canonical state's event taken by the actor it stands
    /// for, the lowest-numbered of the members alike in that state (as a search without
    /// symmetry would take it), with the same draws. `None` when a pick is past the free
    /// events.
    pub(in crate::explore) fn real_choices(&self, picks: &[Choice]) -> Option<Vec<Choice>> {
        let mut real = Vec::new();
        self.start(&mut real);
        let (mut after, mut delta) = (real.clone(), vec![0; self.counts()]);
        let (mut order, mut free) = (Vec::new(), Vec::new());
        let mut choices = Vec::with_capacity(picks.len());
        let block = self.block;
        for picked in picks {
            let pick = picked.pick;
            self.order(&real, &mut order);
            // The canonical state's free events, as places of its actors.
            let mut canonical = real.clone();
            self.canonicalize(&mut canonical, &mut Vec::new(), &mut Vec::new());
            self.free(&canonical, &mut free);
            let mut place = *free.get(usize::from(pick))? as usize;
            let words = |p: usize| &canonical[self.base(p)..self.base(p) + block];
            if let Some(&(first, _)) = (self.groups.iter())
                .find(|&&(first, members)| (first..first + members).contains(&(place as u32)))
            {
                while place > first as usize && words(place - 1) == words(place) {
                    place -= 1;
                }
            }
            // A queue's timer stands for itself.
            let actor = order.get(place).map_or(place as u32, |&actor| actor);
            self.free(&real, &mut free);
            let real_pick = free.iter().position(|&a| a == actor)?;
            choices.push(Choice {
                pick: real_pick as u16,
                of: free.len() as u16,
                ..*picked
            });
            let mut draws = Draws::forced(picked.draws);
            if picked.crash {
                self.crash(&real, actor, &mut after, &mut delta).ok()?;
            } else {
                (self.step(&real, actor, &mut after, &mut delta, &mut draws)).ok()?;
            }
            std::mem::swap(&mut real, &mut after);
        }
        Some(choices)
    }
}
