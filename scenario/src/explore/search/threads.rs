//! The search's threads: a chunk's states cut into contiguous shares, each expanded on a
//! thread of its own, and (on several) this thread merging the chunk before meanwhile.
//! Whatever the threads, the merge takes every expansion in the order one thread makes
//! them, so nothing the search finds depends on their number.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use coordsim_model::ModelError;

use super::SeenSet;
use super::side::Side;
use super::{Expanded, Known, OVERLAP_PER_JOB, Rules, Search, Waiting};
use crate::explore::budget::Keep;
use crate::explore::count::Walk;
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
        seen.take_in(&mut self.young);
        Ok(())
    }

    /// The search on `jobs` threads: this one and `jobs - 1` that live as long as the
    /// search (each keeps its allocator's pages: a thread a chunk would take fresh ones each
    /// time, which the kernel zeroes). Each chunk is cut into pieces the threads take in
    /// turn; this thread first merges the chunk before (the merge must run alone, in the
    /// order one thread takes the states) and walks the counting's entries on, then takes
    /// pieces too, so no thread waits for the merge but at a level's end (the next level is
    /// the last chunk's children). A chunk is taken from the frontier before the chunk ahead
    /// of it is merged, so it may be shorter. The merge order is the one thread's, so the
    /// result never depends on `jobs`.
    pub(super) fn overlapped(
        &mut self,
        frontier: &mut VecDeque<Waiting<'a>>,
    ) -> Result<(), ModelError> {
        let jobs = self.rules.limits.jobs.max(2);
        let rules = Arc::clone(&self.rules);
        let walk = std::mem::replace(&mut self.walk, Walk::new(&[], false));
        let side = Side::new(walk, &self.rules.limits);
        let mut fed = (0, 0, 0);
        side.feed(self.feed(&mut fed));
        // Each thread's spare states within its share of what the search's may hold.
        let spare_bytes = self.spare.max_bytes() / jobs as u64;
        let searched = std::thread::scope(|scope| {
            let workers: Vec<Worker<'_, 'a>> = (1..jobs)
                .map(|_| {
                    let (sender, given) = mpsc::channel::<Job<'a>>();
                    let rules = &*rules;
                    let side = &side;
                    let spare = Spare::holding(spare_bytes);
                    let thread = scope.spawn(move || work_on(rules, side, &given, spare));
                    (sender, thread)
                })
                .collect();
            // Dropping the senders on the way out ends the threads.
            self.overlap(frontier, &workers, (&side, &mut fed))
        });
        self.walk = side.into_walk();
        searched
    }

    /// [`Search::overlapped`]'s chunks, shared with `workers` and taken back from `done`.
    fn overlap(
        &mut self,
        frontier: &mut VecDeque<Waiting<'a>>,
        workers: &[Worker<'_, 'a>],
        (side, fed): (&Side, &mut (usize, usize, usize)),
    ) -> Result<(), ModelError> {
        let lost = || ModelError::Invariant("internal: an exploration thread ended".into());
        let threads = workers.len() + 1;
        // The chunk expanded last, waiting for its merge.
        let mut pending: Vec<Result<Expanded<'a>, ModelError>> = Vec::new();
        loop {
            if frontier.is_empty() {
                if pending.is_empty() {
                    return Ok(());
                }
                // The next states are the pending chunk's children.
                let go_on = self.merge_all(std::mem::take(&mut pending), frontier, false)?;
                side.feed(self.feed(fed));
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
            let work = Arc::new(Work::of(chunk, Arc::clone(&self.seen)));
            let expanding = Arc::new(AtomicUsize::new(workers.len()));
            for (worker, _) in workers {
                let job = Job {
                    work: Arc::clone(&work),
                    expanding: Arc::clone(&expanding),
                    spare: self.spare.share(threads),
                    keep: self.keep(threads, in_flight),
                };
                worker.send(job).map_err(|_| lost())?;
            }
            let merged = self.merge_all(std::mem::take(&mut pending), frontier, true);
            side.feed(self.feed(fed));
            // Then this thread takes what pieces are left.
            let mut keep = self.keep(threads, in_flight);
            let mut spare = std::mem::take(&mut self.spare);
            work.take_pieces(&self.rules, &mut spare, &mut keep);
            self.spare = spare;
            // The counting walked on while a thread still expands its last piece; then
            // wait for it (a thread lets the chunk go before it says it is done).
            side.walk_while(|| expanding.load(Ordering::Acquire) > 0);
            while expanding.load(Ordering::Acquire) > 0 {
                // A thread that ended (it cannot but by a panic) would never say it is done.
                if workers.iter().any(|(_, thread)| thread.is_finished()) {
                    return Err(lost());
                }
                std::thread::yield_now();
            }
            pending = Arc::into_inner(work).ok_or_else(lost)?.expanded();
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

/// A share's expansions, in order, and its spare states.
type Done<'a> = (Vec<Result<Expanded<'a>, ModelError>>, Spare<'a>);

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
) -> Vec<std::thread::ScopedJoinHandle<'scope, Done<'a>>> {
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
fn join_shares<'a>(handles: Vec<std::thread::ScopedJoinHandle<'_, Done<'a>>>) -> Shared<'a> {
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

/// States expanded per piece of a chunk: a thread takes one at a time.
const PIECE: usize = 32;

/// A chunk shared by the threads: its pieces, each taken by one thread, and each piece's
/// expansions once made; with the seen states as of the last merge.
struct Work<'a> {
    pieces: Vec<Mutex<Vec<Waiting<'a>>>>,
    /// The next piece to take.
    next: AtomicUsize,

    expanded: Vec<Mutex<Vec<Result<Expanded<'a>, ModelError>>>>,
    seen: Arc<SeenSet>,
}

impl<'a> Work<'a> {
    /// `chunk` cut into pieces.
    fn of(chunk: Vec<Waiting<'a>>, seen: Arc<SeenSet>) -> Work<'a> {
        let mut pieces = Vec::with_capacity(chunk.len().div_ceil(PIECE));
        let mut rest = chunk.into_iter();
        loop {
            let piece: Vec<Waiting<'a>> = rest.by_ref().take(PIECE).collect();
            if piece.is_empty() {
                break;
            }
            pieces.push(Mutex::new(piece));
        }
        let expanded = (0..pieces.len()).map(|_| Mutex::new(Vec::new())).collect();
        Work {
            pieces,
            next: AtomicUsize::new(0),

            expanded,
            seen,
        }
    }

    /// Pieces taken and expanded in turn until none is left (a panic: an internal error in
    /// the piece's place).
    fn take_pieces(&self, rules: &Rules<'a>, spare: &mut Spare<'a>, keep: &mut Keep) {
        let known = Known {
            seen: Some(&self.seen),
            shared: false,
        };
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            let (Some(piece), Some(out)) = (self.pieces.get(index), self.expanded.get(index))
            else {
                return;
            };
            let states = std::mem::take(&mut *piece.lock().unwrap_or_else(|e| e.into_inner()));
            let expanded = std::panic::catch_unwind(AssertUnwindSafe(|| {
                states
                    .into_iter()
                    .map(|w| rules.expand(w, spare, keep, known))
                    .collect::<Vec<_>>()
            }))
            .unwrap_or_else(|_| {
                vec![Err(ModelError::Invariant(
                    "an exploration thread panicked".into(),
                ))]
            });
            *out.lock().unwrap_or_else(|e| e.into_inner()) = expanded;
        }
    }

    /// Every piece's expansions, in the chunk's order.
    fn expanded(self) -> Vec<Result<Expanded<'a>, ModelError>> {
        let mut all = Vec::new();
        for out in self.expanded {
            all.extend(out.into_inner().unwrap_or_else(|e| e.into_inner()));
        }
        all
    }
}

/// A thread that lives as long as the search, and where to give it chunks.
type Worker<'scope, 'a> = (
    mpsc::Sender<Job<'a>>,
    std::thread::ScopedJoinHandle<'scope, ()>,
);

/// A chunk given to a thread that lives as long as the search, with spare states for it
/// and its room; and the count of threads not yet done with the chunk.
struct Job<'a> {
    work: Arc<Work<'a>>,
    expanding: Arc<AtomicUsize>,
    spare: Spare<'a>,
    keep: Keep,
}

/// A thread's life: each chunk's pieces taken while there are any, then (the chunk let
/// go and said done) the counting walked on until the next chunk comes. Its `spare`
/// states stay its own, topped up by each job's.
fn work_on<'a>(
    rules: &Rules<'a>,
    side: &Side,
    given: &mpsc::Receiver<Job<'a>>,
    mut spare: Spare<'a>,
) {
    loop {
        let job = match given.try_recv() {
            Ok(job) => job,
            Err(mpsc::TryRecvError::Disconnected) => return,
            Err(mpsc::TryRecvError::Empty) => {
                if side.walk_step() {
                    continue;
                }
                match given.recv() {
                    Ok(job) => job,
                    Err(_) => return,
                }
            }
        };
        let Job {
            work,
            expanding,
            spare: more,
            mut keep,
        } = job;
        spare.join(more);
        work.take_pieces(rules, &mut spare, &mut keep);
        drop(work);
        expanding.fetch_sub(1, Ordering::AcqRel);
    }
}
