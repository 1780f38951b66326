//! A state expanded: what needs no other state, so that threads do it while the merge
//! ([`Search::merge`]) takes the chunk before.

use coordsim_model::ModelError;
use sim_core::{Due, EventQueue, SimError};
use smallvec::SmallVec;

#[cfg(doc)]
use super::Search;
use super::{Branch, Branches, Child, End, Expanded, Known, MAX_DRAWS, Rules, Waiting};
use crate::explore::budget::Keep;
use crate::explore::spare::{Spare, State};
use crate::explore::step::{choices_into, in_execution, may_crash, run_chosen};
use crate::run::state::{Event, Sim};

impl<'a> Rules<'a> {
    /// One state expanded: its end, or every way each of its free events can run (what
    /// needs no other state: the merging is [`Search::merge`]'s). The state is spare
    /// afterwards.
    pub(super) fn expand(
        &self,
        waiting: Waiting<'a>,
        spare: &mut Spare<'a>,
        keep: &mut Keep,
        known: Known<'_>,
    ) -> Result<Expanded<'a>, ModelError> {
        let Waiting {
            id,
            depth,
            bytes,
            state,
        } = waiting;
        let mut next = std::mem::take(&mut spare.next);
        choices_into(&state.0, &state.1, &mut next);
        if next.is_empty() {
            spare.next = next;
            // Its run's output takes the run: this state is not spare.
            return self.ended(id, bytes, state);
        }
        let (sim, queue) = &*state;
        let depth = depth + 1;
        let before = sim.counts();
        // What each child is taken from: the free events and the counts before it.
        let from = (next.as_slice(), &before[..]);
        let mut transitions = 0;
        // Each pick's children, once made (the reduction may make some first): made as
        // children at once, so that a state the merge has no use for is not kept whole.
        let mut tried: SmallVec<[Option<Vec<Child<'a>>>; 4]> =
            (0..next.len()).map(|_| None).collect();
        let mut reduced = false;
        if self.reducer.on() && next.len() > 1 {
            // An event that commutes with everything else at this instant: taken alone
            // (`reduce`).
            for (pick, &due) in next.iter().enumerate() {
                if !self.reducer.may_be_alone(sim, due.class, due.event) {
                    continue;
                }
                let branches = self.branches(sim, queue, due, depth, &mut transitions, spare)?;
                let actor = sim.owner(due.event);
                let alone = branches.iter().all(|branch| {
                    branch.ran.drawn.iter().all(|d| !d.fault())
                        && self.reducer.independent(sim, actor, &branch.ran.touched)
                });
                let made = branches
                    .into_iter()
                    .map(|branch| self.child(from, pick, branch, Some((&mut *keep, known)), spare))
                    .collect();
                if alone {
                    for t in tried.iter_mut() {
                        let dropped = t.replace(Vec::new()).unwrap_or_default();
                        for child in dropped {
                            if let Some(state) = child.state {
                                spare.recycle(state, child.bytes);
                            }
                        }
                    }
                    reduced = true;
                }
                tried[pick] = Some(made);
                if alone {
                    break;
                }
            }
        }
        let mut children = Vec::with_capacity(next.len());
        let mut crashes = false;
        // The last event runs in the expanded state itself, not a copy, when it has one way
        // to run and no crash of it is tried: nothing needs the state after it.
        let last = next.len() - 1;
        let in_place = !self.may_draw && tried[last].is_none() && !may_crash(sim, next[last]);
        for (pick, &due) in next.iter().enumerate() {
            if in_place && pick == last {
                break;
            }
            let taken =
                tried[pick].is_none() || tried[pick].as_ref().is_some_and(|b| !b.is_empty());
            match tried[pick].take() {
                Some(made) => children.extend(made),
                None => {
                    let branches =
                        self.branches(sim, queue, due, depth, &mut transitions, spare)?;
                    for branch in branches {
                        let child =
                            self.child(from, pick, branch, Some((&mut *keep, known)), spare);
                        children.push(child);
                    }
                }
            }
            // The same event as a `crash_anywhere` crash of its actor.
            if taken && may_crash(sim, due) {
                let mut state = spare.copy(sim, queue);
                let (copy_sim, copy_queue) = &mut *state;
                let ran = run_chosen(copy_sim, copy_queue, due, 0, true)
                    .map_err(|e| in_execution(e, depth))?;
                transitions += 1;
                let branch = Branch { state, ran };
                let mut child = self.child(from, pick, branch, Some((&mut *keep, known)), spare);
                child.choice.crash = true;
                children.push(child);
                crashes = true;
            }
        }
        let ordered = next.len() > 1 || crashes;
        if reduced {
            children.iter_mut().for_each(|c| c.choice.alone = true);
        }
        // A child kept as its fingerprint alone may be made again from this state.
        let mut dropped = children.iter().any(|c| c.state.is_none());
        let mut parent = None;
        if in_place && !dropped {
            let mut state = state;
            let (sim, queue) = &mut *state;
            let ran =
                run_chosen(sim, queue, next[last], 0, false).map_err(|e| in_execution(e, depth))?;
            transitions += 1;
            // Kept whatever the room: it takes the expanded state's place.
            let branch = Branch { state, ran };
            children.push(self.child(from, last, branch, None, spare));
        } else {
            if in_place {
                let mut copy = spare.copy(sim, queue);
                let (copy_sim, copy_queue) = &mut *copy;
                let ran = run_chosen(copy_sim, copy_queue, next[last], 0, false)
                    .map_err(|e| in_execution(e, depth))?;
                transitions += 1;
                let branch = Branch { state: copy, ran };
                let child = self.child(from, last, branch, Some((&mut *keep, known)), spare);
                dropped |= child.state.is_none();
                children.push(child);
            }
            if dropped {
                parent = Some(state);
            } else {
                spare.recycle(state, bytes);
            }
        }
        spare.next = next;
        Ok(Expanded::Children {
            id,
            // A crash anywhere has no probability, as a free order has none.
            ordered,
            reduced,
            transitions,
            children,
            bytes,
            parent,
        })
    }

    /// Every way event `due` can run from state (`sim`, `queue`): one branch per decision of
    /// its draws (each draw past those given may go the other way).
    pub(super) fn branches(
        &self,
        sim: &Sim<'a>,
        queue: &EventQueue<Event>,
        due: Due<Event>,
        depth: u32,
        transitions: &mut u64,
        spare: &mut Spare<'a>,
    ) -> Result<Branches<'a>, ModelError> {
        let mut out = Branches::new();
        // Each script: the draws it decides (bit i: draw i "yes") and how many.
        let mut scripts: SmallVec<[(u64, usize); 4]> = SmallVec::from_elem((0, 0), 1);
        while let Some((forced, given)) = scripts.pop() {
            let mut state = spare.copy(sim, queue);
            let (copy_sim, copy_queue) = &mut *state;
            let ran = run_chosen(copy_sim, copy_queue, due, forced, false)
                .map_err(|e| in_execution(e, depth))?;
            *transitions += 1;
            let drawn = &ran.drawn;
            if drawn.len() > MAX_DRAWS {
                return Err(ModelError::Sim(SimError::Model(format!(
                    "one event decided {} random draws; an exploration branches on at most {MAX_DRAWS} per event",
                    drawn.len()
                ))));
            }
            for index in given..drawn.len() {
                let before = drawn[..index]
                    .iter()
                    .enumerate()
                    .fold(0u64, |bits, (j, d)| bits | u64::from(d.taken) << j);
                scripts.push((before | 1 << index, index + 1));
            }
            out.push(Branch { state, ran });
        }
        Ok(out)
    }

    /// A state with no event left: the run's end, settled and checked; its metrics taken
    /// now when no metric reports a count, else in [`Search::finish`] with each count an
    /// execution reaches it with.
    pub(super) fn ended(
        &self,
        id: u32,
        bytes: u64,
        state: State<'a>,
    ) -> Result<Expanded<'a>, ModelError> {
        let mut state = state;
        let (sim, queue) = &mut *state;
        sim.end = queue.now();
        sim.settle_direct();
        sim.check(self.context.seed())?;
        // When no metric reports a count, the metrics now (on the expanding thread): every
        // count an execution brings here ends alike, and the whole run need not be kept.
        let end = if !self.reports_counts {
            let (sim, _) = *state;
            End::Metrics(sim.output(self.fill, &[], &self.context).metrics)
        } else {
            End::Run(state)
        };
        Ok(Expanded::Ended { id, bytes, end })
    }
}
