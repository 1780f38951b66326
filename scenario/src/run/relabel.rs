//! A run's state with its actors renamed: what an explorer's symmetry needs to put the
//! interchangeable members of a group in a canonical order. The renamed state is the
//! same state with other names on its actors, so it goes on exactly as the original
//! does, names aside: every place a state names an actor or a job is renamed together.
//!
//! Only for a state whose every actor has one job, in the slot of its own number (an
//! explored point of closed loops that never fork: [`Sim::one_job_per_actor`]); the
//! renaming of jobs is then that of their actors.

use sim_core::EventQueue;
use smallvec::SmallVec;

use crate::run::state::{Actor, Event, JobTables, NO_JOB, Sim, Transaction};

impl Sim<'_> {
    /// Whether every job is its own actor's, in the slot of the actor's number (true of an
    /// explored run of closed loops that never fork, from its start to its end).
    pub(crate) fn one_job_per_actor(&self) -> bool {
        self.jobs.len() == self.actors.len()
            && (self.jobs.iter().enumerate()).all(|(slot, job)| job.actor as usize == slot)
    }

    /// The state with actor `m` (and its job) renamed `new_of[m]`: a permutation of the
    /// actors, which keep their places' constants (their index `i`, start, streams) while
    /// what they did moves with them. `keep_reads` leaves what each job read where it was:
    /// a planted bug for tests (the renamed state is then another state). The queue's
    /// events are renamed with their owners.
    pub(crate) fn relabel(
        &mut self,
        queue: &mut EventQueue<Event>,
        new_of: &[u32],
        keep_reads: bool,
    ) {
        debug_assert!(self.one_job_per_actor() && new_of.len() == self.actors.len());
        let map = |id: u32| new_of.get(id as usize).copied().unwrap_or(id);
        let Sim {
            actors,
            jobs,
            free_jobs,
            tables,
            servers,
            locks,
            queues,
            slots,
            last_taker,
            transaction,
            // The point and what it decided before the run: the same in every state.
            point,
            direct: _,
            other: _,
            entities: _,
            lanes: _,
            streams: _,
            group_streams: _,
            closed: _,
            fan: _,
            calls: _,
            job_rows: _,
            tied: _,
            // The run's metrics summed over actors: no actor's number in them.
            watched: _,
            // No actor or job in these: the clock, resources' values and counts, the
            // groups' sums, the end, the error.
            now: _,
            groups: _,
            registers: _,
            links: _,
            keys: _,
            polls: _,
            last_end: _,
            end: _,
            error: _,
            error_at: _,
            wait_stats: _,
            free_slots: _,
            scratch: _,
            // Empty between events (what one event readies, joins, steers).
            ready,
            joined,
            steer: _,
        } = self;
        debug_assert!(ready.is_empty() && joined.is_none());
        // In place, by swaps along the permutation's cycles: nothing allocated per state.
        permute(new_of, |a, b| {
            let (x, y) = (actors[a], actors[b]);
            actors[a] = moved(y, &x);
            actors[b] = moved(x, &y);
        });
        for job in jobs.iter_mut() {
            job.actor = map(job.actor);
            debug_assert!(job.parent == NO_JOB, "no branch in a renamed state");
        }
        permute(new_of, |a, b| jobs.swap(a, b));
        for job in free_jobs.iter_mut() {
            *job = map(*job);
        }
        relabel_rows(tables, new_of, keep_reads);
        for (server, at) in servers.iter_mut().zip(&point.servers) {
            // A server whose clients may leave tags a request by a slot of the run's
            // (`slots`, renamed below); any other by its job.
            if !at.abandons {
                server.relabel_tags(map);
            }
        }
        for lock in locks.iter_mut() {
            lock.relabel_waiters(|(job, _)| *job = map(*job));
        }
        for queue in queues.iter_mut() {
            queue.relabel_jobs(map);
        }
        for slot in slots.iter_mut() {
            slot.job = map(slot.job);
        }
        for (actor, _) in last_taker.iter_mut() {
            *actor = map(*actor);
        }
        let Transaction { job, .. } = transaction;
        if let Some(job) = job {
            *job = map(*job);
        }
        // An actor's own class (`1 + actor`: its starts, its link deliveries) follows it.
        // One job per actor, in its slot: a job's number is its actor's.
        queue.relabel(|class, event| {
            let id = match event {
                Event::Start { actor } => actor,
                Event::Resume { job }
                | Event::Land { job }
                | Event::Retry { job }
                | Event::Timeout { job, .. } => job,
                _ => return,
            };
            let old = *id;
            *id = map(old);
            if *class == 1 + old {
                *class = 1 + *id;
            }
        });
    }
}

/// `actor`'s doings at the place of `place`: its own counts and state, with the place's
/// constants (its group, its index `i`, its start, its streams).
fn moved(actor: Actor, place: &Actor) -> Actor {
    let Actor {
        group,
        index,
        start,
        arrival_stream,
        crash_stream,
        jitter_stream,
        chance_stream,
        // What it did: moves with it.
        started: _,
        completed: _,
        gave_up: _,
        retries: _,
        failed: _,
        lock_wait: _,
        server_wait: _,
        rejected: _,
        end: _,
        crashed: _,
        stopped: _,
        elapsed_ms: _,
        timeouts: _,
        restarts: _,
        incarnation: _,
    } = *place;
    Actor {
        group,
        index,
        start,
        arrival_stream,
        crash_stream,
        jitter_stream,
        chance_stream,
        ..actor
    }
}

/// Each job's rows of the tables moved to its new number (`keep_reads`: the reads left
/// where they were, the planted bug).
fn relabel_rows(tables: &mut JobTables, new_of: &[u32], keep_reads: bool) {
    let JobTables {
        reads,
        tokens,
        taken,
        stored,
        kids,
        replies,
        deferred,
    } = tables;
    if !keep_reads {
        permute_rows(reads, new_of);
    }
    permute_rows(tokens, new_of);
    permute_rows(taken, new_of);
    permute_rows(stored, new_of);
    permute_rows(kids, new_of);
    permute_rows(replies, new_of);
    permute_rows(deferred, new_of);
}

/// `rows` (one row per job, of equal width) with row `m` moved to `new_of[m]`.
fn permute_rows<T: Copy>(rows: &mut [T], new_of: &[u32]) {
    if rows.is_empty() {
        return;
    }
    let width = rows.len() / new_of.len();
    permute(new_of, |a, b| {
        for k in 0..width {
            rows.swap(a * width + k, b * width + k);
        }
    });
}

/// The permutation that moves place `m` to `new_of[m]`, carried out by `swap(a, b)`s
/// of two places: each swap puts one element where it belongs (an element at `i` is
/// bound for `to[i]`; swapping it there brings that place's element to `i`).
fn permute(new_of: &[u32], mut swap: impl FnMut(usize, usize)) {
    let mut to: SmallVec<[u32; 64]> = SmallVec::from_slice(new_of);
    for i in 0..to.len() {
        while to[i] as usize != i {
            let j = to[i] as usize;
            swap(i, j);
            to.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The swaps put each row where a plain copy puts it: row `m` at `new_of[m]`.
        #[test]
        fn swaps_along_cycles_move_each_row_to_its_new_place(
            new_of in (1usize..12).prop_flat_map(|n| Just((0..n as u32).collect::<Vec<_>>()).prop_shuffle()),
            width in 1usize..4,
        ) {
            let rows: Vec<u32> = (0..(new_of.len() * width) as u32).collect();
            let mut want = rows.clone();
            for (m, &n) in new_of.iter().enumerate() {
                let (from, to) = (m * width, n as usize * width);
                want[to..to + width].copy_from_slice(&rows[from..from + width]);
            }
            let mut got = rows;
            super::permute_rows(&mut got, &new_of);
            prop_assert_eq!(got, want);
        }
    }
}
