//! The threads of a search without counts on `--jobs` threads: spawned once for the whole
//! search, not once a level. A thread spawned per level starts with an empty heap, which
//! the allocator fills with fresh pages that the kernel zeroes (a third of the CPU of the
//! 3 × 6 lost update on two threads); a thread that lives on reuses its pages.
//!
//! The threads borrow nothing from a level: what a task works on is moved to its thread
//! and back (a part, a list, a level behind an [`std::sync::Arc`]), so that no lock and
//! no `unsafe` is needed.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::thread::Scope;

use coordsim_model::ModelError;

/// A task for a thread of the pool.
type Task<'s> = Box<dyn FnOnce() + Send + 's>;

/// `jobs - 1` threads that live as long as the search's scope; this thread is the first.
pub(in crate::explore::search) struct Pool<'s> {
    senders: Vec<mpsc::Sender<Task<'s>>>,
}

impl<'s> Pool<'s> {
    /// The pool of `jobs` threads in all (this one and `jobs - 1` spawned in `scope`);
    /// dropping it ends them.
    pub(in crate::explore::search) fn new<'e>(scope: &'s Scope<'s, 'e>, jobs: usize) -> Pool<'s> {
        let senders = (1..jobs.max(1))
            .map(|_| {
                let (sender, tasks) = mpsc::channel::<Task<'s>>();
                scope.spawn(move || {
                    while let Some(task) = soon(&tasks) {
                        // A task that panics sends nothing back: its caller says so.
                        let _ = std::panic::catch_unwind(AssertUnwindSafe(task));
                    }
                });
                sender
            })
            .collect();
        Pool { senders }
    }

    /// Threads in all, this one included.
    pub(super) fn jobs(&self) -> usize {
        self.senders.len() + 1
    }

    /// `each` run on every item of `items` (at most [`Pool::jobs`]), the first on this
    /// thread and item `i` on the pool's thread `i`; the items given back in their order.
    /// `each` is dropped on each thread before its item is sent back, so that what it
    /// shares (an `Arc`) is this thread's alone again once every item is back.
    pub(super) fn run<I: Send + 's>(
        &self,
        items: Vec<I>,
        each: impl Fn(usize, &mut I) + Clone + Send + 's,
    ) -> Result<Vec<I>, ModelError> {
        let lost = || ModelError::Invariant("internal: a search thread ended".into());
        let count = items.len();
        if count > self.jobs() {
            return Err(ModelError::Invariant(
                "internal: more tasks than threads".into(),
            ));
        }
        let (back, given) = mpsc::channel::<(usize, I)>();
        let mut items = items.into_iter();
        let head = items.next();
        for (i, item) in items.enumerate() {
            let (each, back) = (each.clone(), back.clone());
            let task: Task<'s> = Box::new(move || {
                let mut item = item;
                each(i + 1, &mut item);
                drop(each);
                let _ = back.send((i + 1, item));
            });
            self.senders[i].send(task).map_err(|_| lost())?;
        }
        drop(back);
        let mut done: Vec<Option<I>> = (0..count).map(|_| None).collect();
        if let Some(mut item) = head {
            each(0, &mut item);
            drop(each);
            done[0] = Some(item);
        }
        for _ in 1..count {
            let (i, item) = soon(&given).ok_or_else(lost)?;
            done[i] = Some(item);
        }
        done.into_iter().map(|item| item.ok_or_else(lost)).collect()
    }
}

/// Tries at a channel before a thread sleeps on it.
const SPINS: usize = 4_000;

/// The next message on `channel` (`None` once every sender is gone): looked for a few
/// microseconds before this thread sleeps. A level takes four round trips between the
/// threads, and a thread woken from its sleep takes tens of microseconds to run again: on
/// 3 × 6 with symmetry (narrow levels, 30 ms in all) two threads went from 1.2× one
/// thread's speed to 1.5×.
fn soon<T>(channel: &mpsc::Receiver<T>) -> Option<T> {
    for _ in 0..SPINS {
        match channel.try_recv() {
            Ok(message) => return Some(message),
            Err(mpsc::TryRecvError::Empty) => std::hint::spin_loop(),
            Err(mpsc::TryRecvError::Disconnected) => return None,
        }
    }
    channel.recv().ok()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// Each item is worked on once, by its own index, and the shared `Arc` is this
    /// thread's alone once the items are back (so it can be taken apart).
    #[test]
    fn runs_each_item_once_and_gives_the_shared_back() {
        for jobs in [1, 2, 3] {
            std::thread::scope(|scope| {
                let pool = Pool::new(scope, jobs);
                for round in 0..50u64 {
                    let shared = Arc::new(round);
                    let given = Arc::clone(&shared);
                    let items: Vec<u64> = (0..jobs as u64).collect();
                    let done = pool
                        .run(items, move |i, item: &mut u64| {
                            *item = *item * 100 + i as u64 * 10 + *given;
                        })
                        .expect("run");
                    // Item i was i, times 100, plus its index i times 10, plus the round.
                    let expected: Vec<u64> = (0..jobs as u64).map(|i| i * 110 + round).collect();
                    assert_eq!(done, expected);
                    assert_eq!(Arc::into_inner(shared), Some(round));
                }
            });
        }
    }

    /// A task that panics is an error, not a hang; the pool's other threads go on.
    #[test]
    fn a_panicking_task_is_an_error() {
        std::thread::scope(|scope| {
            let pool = Pool::new(scope, 2);
            let failed = pool.run(vec![0u8, 1], |i, _| assert!(i == 0, "planted"));
            assert!(failed.is_err());
            assert_eq!(pool.run(vec![3u8], |_, item| *item += 1).expect("run"), [4]);
        });
    }
}
