//! `parallel` in a flat state: a job's branches, each a job of its own in the interpreter
//! (`run/fork.rs`), stepped here as blocks of their actor's.
//!
//! What it covers: a group whose program forks with no `if`, stop or end in it, each
//! branch's steps reads and plain writes of registers, at 0 ms, with no crash in the point.
//! An explored run makes every branch at its fork, and each branch's first step (every
//! branch step is shared, its end too) yields an event of its own at this instant: the
//! actor's events are then its jobs' in the order the run scheduled them (an owner's
//! events keep their order), each branch going to the back after its step. So a forking
//! actor's block keeps, beside its own words,
//!
//! ```text
//! [ its line of pending events: four bits each, the first lowest (branch b as b + 1,
//!   a cancelled branch as [`CANCELLED`], the job of the `parallel` as [`PARENT`])
//! | its join: the branches come through (8 bits), the first of them (8 bits), and
//!   whether the job waits for them ([`WAITS`])
//! | each branch: its step (+ 1; 0: none), what it read of each register ]
//! ```
//!
//! A branch starts with what the job read, and one that comes through hands what it read
//! (where it read) back to the job; once `wait` came through, the branches still running
//! are cancelled: each stays in the line until its turn, where the run frees it (an event
//! that does nothing else), and the job goes on at once, at the back of the line behind
//! them when its next step is shared. A line of the job alone is no line (its own
//! resumption, as without a fork). Every word of a member's jobs is in its block, so
//! sorting the blocks stays the whole canonical order under symmetry.
//!
//! The reduction takes an event alone as the interpreter's does: never while the actor has
//! another job alive (a branch, running or cancelled, beside the job or another branch),
//! and a fork's event by the shared step it ran before it (none: a start at the fork).

use super::ways::Draws;
use super::{At, Flat, Forks, NotFinite, PLACE, STARTED, Uncovered};
use crate::point::{Group, Point, Step};

/// Most branches of a `parallel` the flat back end keeps (a line of at most twice as many
/// events, less one, fits one word's four-bit places).
const MAX_FAN: usize = 8;
/// A cancelled branch's place in the line: its turn frees it.
const CANCELLED: u64 = 14;
/// The job of the `parallel`'s place in the line: its next step, after the join.
const PARENT: u64 = 15;
/// The join word's flag: the job waits for its branches.
const WAITS: u64 = 1 << 16;

impl Forks {
    /// Words each actor's block adds.
    pub(super) fn words(&self) -> usize {
        if self.fan == 0 {
            0
        } else {
            2 + self.fan * self.stride
        }
    }
}

impl Flat<'_> {
    /// The fork words of `point`, at `at` in each actor's block, or why the flat back end
    /// leaves its `parallel`s to the interpreter (`timed`: time moves on).
    pub(super) fn forks_of(point: &Point, timed: bool, at: usize) -> Result<Forks, Uncovered> {
        let fan = (point.groups.iter())
            .filter(|g| g.count > 0)
            .map(Group::fan)
            .max()
            .unwrap_or(0);
        if fan == 0 {
            return Ok(Forks::default());
        }
        if timed {
            return Err("a group forks and time moves on (a start after 0 ms, or a delay)");
        }
        let crashes = (point.groups.iter()).any(|g| {
            g.count > 0
                && (g.crash_anywhere.is_some()
                    || g.steps.iter().any(|s| matches!(s, Step::Crash { .. })))
        });
        if crashes {
            return Err("a group forks and an actor may crash");
        }
        if fan > MAX_FAN {
            return Err("a `parallel` has more than 8 branches");
        }
        Ok(Forks {
            at,
            fan,
            stride: 1 + point.registers.len(),
        })
    }

    /// A group's steps a repetition: its program's (a `parallel`'s branches follow them,
    /// past its `End`).
    pub(super) fn program_steps(group: &Group) -> u32 {
        (group.steps.iter())
            .position(|s| matches!(s, Step::End))
            .unwrap_or(group.steps.len()) as u32
    }

    /// Actor `actor`'s event in `to` (a copy of the state before it) where a fork decides
    /// it (`None`: it runs its own shared step, as without one): the first of its line
    /// ([`Flat::line_step`]), or a start at its fork (its branches made, each to run in an
    /// event of its own).
    pub(super) fn fork_event(
        &self,
        to: &mut [u64],
        actor: usize,
        delta: &mut [u64],
        draws: &mut Draws,
    ) -> Option<Result<(), NotFinite>> {
        if self.forks.fan == 0 {
            return None;
        }
        if self.jobs_in_line(to, actor) {
            return Some(self.line_step(to, actor, delta, draws));
        }
        let member = self.members[actor];
        let place = to[self.base(actor)] & PLACE;
        let program = &self.point.groups[member.group as usize].steps;
        let at_fork = place < member.total
            && matches!(
                program[(place % u64::from(member.steps)) as usize],
                Step::Fork { .. }
            );
        at_fork.then(|| {
            self.fork_if_at(to, actor);
            Ok(())
        })
    }
}

/// Whether the flat back end covers a group's `parallel`s (none: it does): each branch's
/// steps reads and plain writes of registers, and no `if`, stop or end in the program. A
/// call or a reply is refused here too: the flat state keeps no caller waiting for its
/// reply.
pub(super) fn covered(group: &Group) -> Result<(), Uncovered> {
    if (group.steps.iter()).any(|s| matches!(s, Step::Call { .. } | Step::Reply { .. })) {
        return Err("a step calls or replies (no caller waiting for a reply is kept yet)");
    }
    let Some(end) = group.steps.iter().position(|s| matches!(s, Step::End)) else {
        if group.fan() > 0 {
            return Err("a `parallel`'s branches are not laid out after its program");
        }
        return Ok(());
    };
    if (group.steps[..end].iter()).any(|s| {
        matches!(
            s,
            Step::Branch { .. } | Step::Jump(_) | Step::Exit { .. } | Step::Stop
        )
    }) {
        return Err("a group forks and has an `if`, a stop or an end");
    }
    let plain = |s: &Step| {
        matches!(
            s,
            Step::Read(_) | Step::Write { cas: false, .. } | Step::BranchEnd
        )
    };
    if !group.steps[end + 1..].iter().all(plain) {
        return Err(
            "a `parallel`'s branch has a step other than a read or a write (not a \
             compare-and-set), or a `parallel` of its own",
        );
    }
    if (group.steps[..end].iter()).any(|s| {
        !matches!(
            s,
            Step::Read(_) | Step::Write { cas: false, .. } | Step::Fork { .. }
        )
    }) {
        return Err("a group forks and takes a step other than a read or a plain write");
    }
    Ok(())
}

impl Flat<'_> {
    /// Where actor `actor`'s fork words begin (its line, then its join).
    fn line_at(&self, actor: usize) -> usize {
        self.base(actor) + self.forks.at
    }

    /// Where branch `kid`'s words of actor `actor` begin (its step, then its reads).
    fn kid_at(&self, actor: usize, kid: usize) -> usize {
        self.line_at(actor) + 2 + kid * self.forks.stride
    }

    /// Where what the job `at` read of each register begins: its actor's words, or its
    /// branch's.
    pub(super) fn reads_at(&self, at: &At) -> usize {
        match at.kid {
            0 => self.base(at.actor) + 1,
            kid => self.kid_at(at.actor, kid - 1) + 1,
        }
    }

    /// The job `at`'s `joined` (or with `winner`, its `winner`) in `state`: a branch's are
    /// 0, as the interpreter's (a job's own, kept from its last `parallel`).
    pub(super) fn joined(&self, at: &At, state: &[u64], winner: bool) -> f64 {
        if self.forks.fan == 0 || at.kid != 0 {
            return 0.0;
        }
        let join = state[self.line_at(at.actor) + 1];
        let shift = if winner { 8 } else { 0 };
        ((join >> shift) & 0xff) as f64
    }

    /// Whether actor `actor` has events of its jobs in line (its own next event is the
    /// first of them).
    pub(super) fn jobs_in_line(&self, state: &[u64], actor: usize) -> bool {
        self.forks.fan > 0 && state[self.line_at(actor)] != 0
    }

    /// Whether the reduction takes actor `actor`'s next event alone, where its fork
    /// decides it (`None`: its next event runs its own shared step, as without a fork):
    /// with events in line, only a cancelled branch's freeing with no other job alive; a
    /// start at its fork, always (the event runs no shared step).
    pub(super) fn fork_alone(&self, state: &[u64], actor: usize) -> Option<bool> {
        if self.forks.fan == 0 {
            return None;
        }
        let line = state[self.line_at(actor)];
        let member = self.members[actor];
        let place = state[self.base(actor)] & PLACE;
        if line != 0 {
            return Some(self.reduce && line & 15 == CANCELLED && self.alive(state, actor) <= 1);
        }
        let program = &self.point.groups[member.group as usize].steps;
        let step = (place % u64::from(member.steps)) as usize;
        matches!(program[step], Step::Fork { .. }).then_some(self.reduce)
    }

    /// Actor `actor`'s jobs alive in `state`: its own (started, not freed) and its
    /// branches in line (cancelled ones too, until their turn frees them).
    fn alive(&self, state: &[u64], actor: usize) -> u64 {
        let line = state[self.line_at(actor)];
        let own = state[self.base(actor)];
        let running = own & STARTED != 0 && own & PLACE < self.members[actor].total;
        let kids = (0..16).filter(|i| (line >> (4 * i)) & 15 != 0).count() as u64;
        u64::from(running) + kids
    }

    /// Whether the interpreter's reduction tries actor `actor`'s next event in `state` as
    /// one to take alone (running it, and counting its transitions, before it knows): not
    /// while the actor has another job alive.
    pub(super) fn may_be_alone(&self, state: &[u64], actor: usize) -> bool {
        self.forks.fan == 0 || actor >= self.members.len() || self.alive(state, actor) <= 1
    }

    /// `entry` put at the back of actor `actor`'s line in `to`.
    fn push(&self, to: &mut [u64], actor: usize, entry: u64) {
        let at = self.line_at(actor);
        let used = (64 - to[at].leading_zeros()).div_ceil(4);
        to[at] |= entry << (4 * used);
    }

    /// Actor `actor` in `to`, where its job stands at a `parallel`: its branches made, each
    /// with what the job read, in line in order; the job waits for its join.
    pub(super) fn fork_if_at(&self, to: &mut [u64], actor: usize) {
        if self.forks.fan == 0 {
            return;
        }
        let member = self.members[actor];
        let base = self.base(actor);
        let place = to[base] & PLACE;
        if place >= member.total {
            return;
        }
        let program = &self.point.groups[member.group as usize].steps;
        let Step::Fork { starts, .. } = &program[(place % u64::from(member.steps)) as usize] else {
            return;
        };
        to[base] |= STARTED;
        for (kid, &start) in starts.iter().enumerate() {
            let at = self.kid_at(actor, kid);
            to[at] = u64::from(start) + 1;
            to.copy_within(base + 1..base + 1 + self.registers, at + 1);
            self.push(to, actor, kid as u64 + 1);
        }
        to[self.line_at(actor) + 1] = WAITS;
    }

    /// Actor `actor`'s next event in `to` (a copy of the state before it), the first of
    /// its line: a cancelled branch freed, a branch's step, or a branch's end (which may
    /// meet the join: the job goes on). What it adds to the registers' counts into `delta`.
    pub(super) fn line_step(
        &self,
        to: &mut [u64],
        actor: usize,
        delta: &mut [u64],
        draws: &mut Draws,
    ) -> Result<(), NotFinite> {
        let line = self.line_at(actor);
        let first = to[line] & 15;
        to[line] >>= 4;
        if first != CANCELLED && first != PARENT {
            self.kid_step(to, actor, first as usize - 1, delta, draws)?;
        }
        if to[line] == PARENT {
            // The job alone: its own resumption.
            to[line] = 0;
        }
        Ok(())
    }

    /// Branch `kid` of actor `actor` runs its step in `to`: a read or a write (then it goes
    /// to the back of the line), or its end.
    fn kid_step(
        &self,
        to: &mut [u64],
        actor: usize,
        kid: usize,
        delta: &mut [u64],
        draws: &mut Draws,
    ) -> Result<(), NotFinite> {
        let member = self.members[actor];
        let at_word = self.kid_at(actor, kid);
        let step = (to[at_word] - 1) as usize;
        let repetition = (to[self.base(actor)] & PLACE) / u64::from(member.steps);
        let at = At {
            kid: kid + 1,
            ..At::at_zero(actor, member, repetition)
        };
        match &self.point.groups[member.group as usize].steps[step] {
            Step::Read(register) => {
                let register = *register as usize;
                to[self.reads_at(&at) + register] = to[register];
            }
            Step::Write {
                register, value, ..
            } => {
                let register = *register as usize;
                let written = self.written(value, at, to, register)?;
                self.land(to, delta, register, written, false);
            }
            Step::BranchEnd => return self.came_through(to, actor, kid, draws),
            // [`covered`] lets in no other step.
            _ => return Err(NotFinite),
        }
        to[at_word] += 1;
        self.push(to, actor, kid as u64 + 1);
        Ok(())
    }

    /// Branch `kid` of actor `actor` came through in `to`: what it read goes to the job,
    /// and where that meets the join, the branches still running are cancelled and the job
    /// goes on (at the back of the line when its next step is shared).
    fn came_through(
        &self,
        to: &mut [u64],
        actor: usize,
        kid: usize,
        draws: &mut Draws,
    ) -> Result<(), NotFinite> {
        let base = self.base(actor);
        let at = self.kid_at(actor, kid);
        for register in 0..self.registers {
            let read = to[at + 1 + register];
            if !f64::from_bits(read).is_nan() {
                to[base + 1 + register] = read;
            }
        }
        to[at..at + self.forks.stride].fill(0);
        let (line, join) = (self.line_at(actor), self.line_at(actor) + 1);
        let joined = (to[join] & 0xff) + 1;
        let winner = match (to[join] >> 8) & 0xff {
            0 => kid as u64 + 1,
            first => first,
        };
        to[join] = WAITS | winner << 8 | joined;
        let member = self.members[actor];
        let place = to[base] & PLACE;
        let program = &self.point.groups[member.group as usize].steps;
        let Step::Fork { wait, .. } = &program[(place % u64::from(member.steps)) as usize] else {
            return Err(NotFinite);
        };
        let running = (0..16)
            .filter(|i| matches!((to[line] >> (4 * i)) & 15, 1..=8))
            .count() as u64;
        // Met, or out of reach (no branch here fails: it is met first).
        if joined < u64::from(*wait) && running + joined >= u64::from(*wait) {
            return Ok(());
        }
        for i in 0..16 {
            let entry = (to[line] >> (4 * i)) & 15;
            if (1..=8).contains(&entry) {
                to[line] = to[line] & !(15 << (4 * i)) | CANCELLED << (4 * i);
                let at = self.kid_at(actor, entry as usize - 1);
                to[at..at + self.forks.stride].fill(0);
            }
        }
        to[join] &= !WAITS;
        let outcome = (to[base] >> super::OUTCOME_SHIFT) & super::OUTCOME;
        self.go_on(to, actor, place + 1, outcome, draws)?;
        if to[join] & WAITS == 0 && to[base] & PLACE < member.total {
            self.push(to, actor, PARENT);
        }
        Ok(())
    }
}
