//! The search's threads: a chunk's states cut into contiguous shares, each expanded on a
//! thread of its own, and (on several) this thread merging the chunk before meanwhile.
//! Whatever the threads, the merge takes every expansion in the order one thread makes
//! them, so nothing the search finds depends on their number.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, mpsc};

use coordsim_model::ModelError;
use rustc_hash::FxHashMap;

use super::{Expanded, Known, OVERLAP_PER_JOB, Rules, Search, Waiting};
use crate::explore::budget::Keep;
use crate::explore::spare::Spare;

impl<'a> Search<'a> {
    /// What a thread may read of the merged states while no merge runs.
    pub(super) fn known(&self) -> Known<'_> {
        Known {
            seen: Some(&self.seen),
            shared: self.shared,
        }
    }

    /// The fingerprints merged since the last fold moved into `seen`, which the threads
    /// read (none reads it now).
    pub(super) fn fold_seen(&mut self) -> Result<(), ModelError> {
        if self.young.is_empty() {
            return Ok(());
        }
        let seen = Arc::get_mut(&mut self.seen).ok_or_else(|| {
            ModelError::Invariant("internal: the seen states were read while they grew".into())
        })?;
        seen.extend(self.young.drain());
        Ok(())
    }

    /// The search on `jobs` threads, each chunk expanded while this thread merges the
    /// chunk before: the merge, which must run alone (in the order one thread takes the
    /// states), and the counting's walk beside it cost the expanding threads no time. A
    /// chunk is taken from the frontier before the chunk ahead of it is merged, so it may be
    /// shorter; when the frontier is empty the merge goes first. The threads live as long as
    /// the search (each keeps its allocator's pages: a thread a chunk would take fresh ones
    /// each time, which the kernel zeroes). The merge order is the one thread's, so the
    /// result never depends on `jobs`.
    pub(super) fn overlapped(
        &mut self,
        frontier: &mut VecDeque<Waiting<'a>>,
    ) -> Result<(), ModelError> {
        let jobs = self.rules.limits.jobs.max(1);
        let rules = Arc::clone(&self.rules);
        std::thread::scope(|scope| {
            let (done_sender, done) = mpsc::channel::<(usize, Done<'a>)>();
            let workers: Vec<mpsc::Sender<Job<'a>>> = (0..jobs)
                .map(|index| {
                    let (sender, given) = mpsc::channel::<Job<'a>>();
                    let done_sender = done_sender.clone();
                    let rules = &*rules;
                    scope.spawn(move || {
                        for job in given {
                            if done_sender.send((index, expand_share(rules, job))).is_err() {
                                return;
                            }
                        }
                    });
                    sender
                })
                .collect();
            drop(done_sender);
            // Dropping the senders on the way out ends the threads.
            self.overlap(frontier, &workers, &done)
        })
    }

    /// [`Search::overlapped`]'s chunks, given to `workers` and taken back from `done`.
    fn overlap(
        &mut self,
        frontier: &mut VecDeque<Waiting<'a>>,
        workers: &[mpsc::Sender<Job<'a>>],
        done: &mpsc::Receiver<(usize, Done<'a>)>,
    ) -> Result<(), ModelError> {
        let lost = || ModelError::Invariant("internal: an exploration thread ended".into());
        // The chunk expanded last, waiting for its merge.
        let mut pending: Vec<Result<Expanded<'a>, ModelError>> = Vec::new();
        loop {
            if frontier.is_empty() {
                if pending.is_empty() {
                    return Ok(());
                }
                // The next states are the pending chunk's children.
                let go_on = self.merge_all(std::mem::take(&mut pending), frontier, false)?;
                self.fold_seen()?;
                if !go_on {
                    return Ok(());
                }
                continue;
            }
            let chunk = self.chunk(frontier, OVERLAP_PER_JOB);
            // What the pending chunk keeps whole is not yet held: not room for this one.
            let in_flight = pending
                .iter()
                .flatten()
                .map(Expanded::kept)
                .fold((0, 0), |(states, bytes), (s, b)| (states + s, bytes + b));
            let shares = self.shares(chunk, workers.len(), in_flight);
            let given = shares.len();
            for (worker, (share, spare, keep)) in workers.iter().zip(shares) {
                let seen = Arc::clone(&self.seen);
                let job = Job {
                    share,
                    spare,
                    keep,
                    seen,
                };
                worker.send(job).map_err(|_| lost())?;
            }
            let merged = self.merge_all(std::mem::take(&mut pending), frontier, true);
            let mut parts: Vec<Vec<Result<Expanded<'a>, ModelError>>> =
                (0..given).map(|_| Vec::new()).collect();
            for _ in 0..given {
                let (index, (expanded, spare)) = done.recv().map_err(|_| lost())?;
                self.spare.join(spare);
                parts[index] = expanded;
            }
            pending = parts.into_iter().flatten().collect();
            self.fold_seen()?;
            if !merged? {
                return Ok(());
            }
        }
    }

    /// Every state of `chunk` expanded, in order, on `jobs` threads (each a contiguous
    /// share of it, and a share of the spare states).
    pub(super) fn expand_all(
        &mut self,
        chunk: Vec<Waiting<'a>>,
        jobs: usize,
    ) -> Vec<Result<Expanded<'a>, ModelError>> {
        if jobs == 1 || chunk.len() < 2 {
            let mut spare = std::mem::take(&mut self.spare);
            let mut keep = self.keep(1, (0, 0));
            let known = self.known();
            let done = chunk
                .into_iter()
                .map(|w| self.rules.expand(w, &mut spare, &mut keep, known))
                .collect();
            self.spare = spare;
            return done;
        }
        let shares = self.shares(chunk, jobs, (0, 0));
        let (done, spares) = std::thread::scope(|scope| {
            join_shares(spawn_shares(scope, &self.rules, shares, self.known()))
        });
        for returned in spares {
            self.spare.join(returned);
        }
        done
    }

    /// `chunk` cut into contiguous shares for `jobs` threads, each with a share of the
    /// spare states and of the room (less `in_flight` bytes not yet held).
    pub(super) fn shares(
        &mut self,
        chunk: Vec<Waiting<'a>>,
        jobs: usize,
        in_flight: (u64, u64),
    ) -> Vec<Share<'a>> {
        let per_share = chunk.len().div_ceil(jobs).max(1);
        let shares_made = chunk.len().div_ceil(per_share);
        let mut shares = Vec::with_capacity(jobs);
        let mut rest = chunk.into_iter();
        loop {
            let share: Vec<Waiting<'a>> = rest.by_ref().take(per_share).collect();
            if share.is_empty() {
                break;
            }
            let spare = self.spare.share(jobs);
            shares.push((share, spare, self.keep(shares_made, in_flight)));
        }
        shares
    }
}

/// A thread's share of a chunk: its states, its spare states, its room.
type Share<'a> = (Vec<Waiting<'a>>, Spare<'a>, Keep);

/// What a chunk's threads give back: each expansion in the chunk's order, and their spare
/// states.
type Shared<'a> = (Vec<Result<Expanded<'a>, ModelError>>, Vec<Spare<'a>>);

/// A thread for each share, expanding its states in order.
fn spawn_shares<'scope, 'env, 'a: 'scope>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    rules: &'scope Rules<'a>,
    shares: Vec<Share<'a>>,
    known: Known<'scope>,
) -> Vec<std::thread::ScopedJoinHandle<'scope, (Vec<Result<Expanded<'a>, ModelError>>, Spare<'a>)>>
{
    shares
        .into_iter()
        .map(|(share, mut spare, mut keep)| {
            scope.spawn(move || {
                let done = share
                    .into_iter()
                    .map(|w| rules.expand(w, &mut spare, &mut keep, known))
                    .collect::<Vec<_>>();
                (done, spare)
            })
        })
        .collect()
}

/// The shares' expansions, in order, and their spare states (a thread that panicked: an
/// internal error in its place).
fn join_shares<'a>(
    handles: Vec<
        std::thread::ScopedJoinHandle<'_, (Vec<Result<Expanded<'a>, ModelError>>, Spare<'a>)>,
    >,
) -> Shared<'a> {
    let (done, spares): (Vec<_>, Vec<_>) = handles
        .into_iter()
        .map(|handle| match handle.join() {
            Ok(done) => done,
            Err(_) => (
                vec![Err(ModelError::Invariant(
                    "an exploration thread panicked".into(),
                ))],
                Spare::default(),
            ),
        })
        .unzip();
    (done.into_iter().flatten().collect(), spares)
}

/// A share of a chunk given to a thread that lives as long as the search, with the seen
/// states as of the last merge.
struct Job<'a> {
    share: Vec<Waiting<'a>>,
    spare: Spare<'a>,
    keep: Keep,
    seen: Arc<FxHashMap<u64, u32>>,
}

/// A share's expansions, in order, and its spare states.
type Done<'a> = (Vec<Result<Expanded<'a>, ModelError>>, Spare<'a>);

/// A job's states expanded in order (a panic: an internal error in their place). The seen
/// states are let go before the answer is sent, so that the merge may add to them.
fn expand_share<'a>(rules: &Rules<'a>, job: Job<'a>) -> Done<'a> {
    let Job {
        share,
        mut spare,
        mut keep,
        seen,
    } = job;
    let known = Known {
        seen: Some(&seen),
        shared: false,
    };
    let expanded = std::panic::catch_unwind(AssertUnwindSafe(|| {
        share
            .into_iter()
            .map(|w| rules.expand(w, &mut spare, &mut keep, known))
            .collect::<Vec<_>>()
    }))
    .unwrap_or_else(|_| {
        vec![Err(ModelError::Invariant(
            "an exploration thread panicked".into(),
        ))]
    });
    (expanded, spare)
}
