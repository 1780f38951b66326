//! Which points the flat back end covers: the refusals of [`Flat::of`](super::Flat::of),
//! each a reason `--engine flat` gives, and which kinds of step the covered point's
//! programs take (its state's layout follows from them).

use super::{Flat, Kinds, MAX_ACTORS, MAX_LOCKS, MAX_REGISTERS, PLACE, Uncovered};
use crate::point::{Pace, Pick, Point, Step};
use crate::run::state::Sim;

impl Flat<'_> {
    /// The kinds of step `point` takes (`start`: the interpreter's start, for each actor's
    /// start time), or why the flat back end does not cover it.
    pub(super) fn kinds(point: &Point, start: &Sim<'_>) -> Result<Kinds, Uncovered> {
        // A lock, a queue, a key store or a link no step uses has no event and no change of
        // its own (its steps are refused below); a server may go down and up on its own
        // (time moves on with one).
        super::server::covered(point)?;
        if !point.watches.is_empty() {
            return Err("it has a watch");
        }
        if point.registers.len() > MAX_REGISTERS {
            // MAX_REGISTERS: the written flags are one word's bits.
            return Err("it has more than 64 registers");
        }
        if start.actors.len() > MAX_ACTORS {
            // MAX_ACTORS: a choice's pick is 16 bits.
            return Err("it has more than 65,535 actors");
        }
        if point
            .registers
            .iter()
            .any(|r| r.read_ns > 0 || r.write_ns > 0)
        {
            return Err("a register takes time to read or write");
        }
        let mut kinds = Kinds::default();
        for group in point.groups.iter().filter(|g| g.count > 0) {
            let of = group_steps(group)?;
            kinds.cas |= of.cas;
            kinds.locked |= of.locked;
            kinds.timed |= of.timed;
            kinds.queued |= of.queued;
            kinds.flow |= of.flow;
            kinds.keyed |= of.keyed;
        }
        let (anywhere, steps) = (
            (point.groups.iter()).any(|g| g.count > 0 && g.crash_anywhere.is_some()),
            (point
                .groups
                .iter()
                .filter(|g| g.count > 0)
                .flat_map(|g| &g.steps))
            .any(|s| matches!(s, Step::Crash { .. })),
        );
        if anywhere && steps {
            // The crashes spent anywhere are counted as the actors crashed.
            return Err("a group may crash anywhere and a step crashes");
        }
        if kinds.locked {
            if point.locks.len() > MAX_LOCKS {
                return Err("it takes locks and has more than 32 of them");
            }
            if point.locks.iter().any(|lock| !lock.unlock_ns.is_empty()) {
                return Err("a lock is unlocked by an operator (`unlock_at_ms`)");
            }
            // A poll takes time, and its words ([`Flat::with_polls`]) are a timed state's.
            kinds.timed |= Flat::polled_point(point);
        }
        if point.registers.iter().any(|r| r.fence.is_some()) && transaction_writes(point) {
            // A transaction's writes land at its end, past the fence's check of each write.
            return Err("a transaction writes and a register is fenced");
        }
        kinds.timed |= start.actors.iter().any(|actor| actor.start != 0);
        kinds.timed |= !point.servers.is_empty();
        if kinds.timed && point.groups.iter().any(|g| g.count > 0 && g.forever) {
            return Err(
                "a group loops for ever and time moves on (a start after 0 ms, or a delay)",
            );
        }
        Ok(kinds)
    }
}

/// Which kinds of step a group's program takes, or why the flat back end does not cover
/// it.
fn group_steps(group: &crate::point::Group) -> Result<Kinds, Uncovered> {
    if !matches!(group.pace, Pace::Closed) {
        return Err("a group does not run a closed loop");
    }
    let restarts = super::crash::covered(group)?;
    super::fork::covered(group)?;
    if group.steps.is_empty()
        || !group.steps.iter().all(|step| {
            super::server::covered_step(step)
                || matches!(
                    step,
                    Step::Read(_)
                        | Step::Write { .. }
                        | Step::Acquire {
                            lock: Pick::One(_),
                            timeout: None,
                        }
                        | Step::Release(Pick::One(_))
                        | Step::Renew(Pick::One(_))
                        | Step::Delay(_)
                        | Step::Pause(_)
                        | Step::Put { .. }
                        | Step::Take { timeout: None, .. }
                        | Step::Ack(_)
                        | Step::Keys { .. }
                        | Step::TxBegin
                        | Step::TxEnd
                        | Step::Branch { .. }
                        | Step::Jump(_)
                        | Step::Exit { .. }
                        | Step::Stop
                        | Step::Crash { .. }
                        | Step::Fork { .. }
                        | Step::BranchEnd
                        | Step::End
                )
        })
    {
        return Err(
            "a step is other than a read, a write, a delay, an acquire (with no \
             timeout), release or renewal of one named lock, a put, a take with no timeout, an \
             ack, a key store's lookup, insert, set or remove (in a transaction or not), \
             an `if` (by chance too), a stop, an end, a crash, a request with no \
             timeout or a `parallel`",
        );
    }
    super::tx::transactions_covered(&group.steps)?;
    let flow = (group.steps.iter()).any(|step| {
        matches!(
            step,
            Step::Branch { .. } | Step::Jump(_) | Step::Exit { .. } | Step::Stop
        )
    });
    let forward = |at: usize, to: u32| to as usize > at && to as usize <= group.steps.len();
    if !(group.steps.iter().enumerate()).all(|(at, step)| match step {
        Step::Branch { otherwise, .. } => forward(at, *otherwise),
        Step::Jump(to) => forward(at, *to),
        _ => true,
    }) {
        // The lowering of an `if` jumps forward only: a loop would be a step it has not.
        return Err("a branch jumps back");
    }
    // An actor's give-ups are one word: a conflict's also counts as a rejection, an
    // end's does not, which the interpreter tells apart.
    if (group.steps.iter()).any(|s| matches!(s, Step::Write { cas: true, .. }))
        && (group.steps.iter()).any(|s| matches!(s, Step::Exit { gave_up: true }))
    {
        return Err("a group gives up both by an end and by a compare-and-set's conflicts");
    }
    if flow && group.forever {
        return Err("a group loops for ever and has an `if`, a stop or an end");
    }
    // A stop's place is past every other (`flow`): twice the places of its repetitions.
    let places = (group.steps.len() as u64 + 1).saturating_mul(group.repeat.saturating_mul(2) + 2);
    if flow && places > PLACE {
        return Err("an actor runs more than 2^57 steps");
    }
    let puts = (group.steps.iter()).any(|step| matches!(step, Step::Put { .. }));
    if puts
        && group
            .steps
            .iter()
            .any(|s| matches!(s, Step::Write { cas: true, .. }))
    {
        return Err("a group puts and compare-and-sets (a conflict puts again)");
    }
    if puts && group.forever {
        return Err("a group puts and loops for ever (its messages have no bound)");
    }
    let queued = (group.steps.iter())
        .any(|step| matches!(step, Step::Put { .. } | Step::Take { .. } | Step::Ack(_)));
    let timed = restarts
        || (group.steps.iter()).any(|step| matches!(step, Step::Delay(_) | Step::Pause(_)));
    // An end that gives up is counted where a compare-and-set's give-up is.
    let cas = (group.steps.iter()).any(|step| {
        matches!(
            step,
            Step::Write { cas: true, .. } | Step::Exit { gave_up: true }
        )
    });
    let locked = (group.steps.iter()).any(|step| {
        matches!(
            step,
            Step::Acquire { .. } | Step::Release(_) | Step::Renew(_)
        )
    });
    let keyed = (group.steps.iter()).any(|step| matches!(step, Step::Keys { .. }));
    Ok(Kinds {
        cas,
        locked,
        timed,
        queued,
        flow,
        keyed,
    })
}

/// Whether a step of a transaction writes a register (its writes land at its end).
fn transaction_writes(point: &Point) -> bool {
    point.groups.iter().any(|group| {
        let mut inside = false;
        group.steps.iter().any(|step| {
            match step {
                Step::TxBegin => inside = true,
                Step::TxEnd => inside = false,
                _ => {}
            }
            inside && matches!(step, Step::Write { .. })
        })
    })
}
