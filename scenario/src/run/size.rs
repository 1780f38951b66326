//! What a run's state takes in memory, estimated from its contents: an explorer keeps
//! many states and bounds them by bytes. Every list counts by its length, not its
//! capacity (the buffers a state was copied into depend on the threads; the estimate must
//! not), so two runs of one exploration estimate each state alike, with any `--jobs`.

use sim_core::{EventQueue, Nanos, Stream};

use crate::machine::bytes_of;
use crate::run::state::{Deferred, Event, JobTables, Sim, Transaction, Undo};

/// Bytes the allocator takes beside each block it gives (its header and rounding): a
/// state is a few dozen blocks.
const PER_BLOCK: u64 = 16;

impl Sim<'_> {
    /// The bytes this run's state and its pending `events` take: the two structs (as
    /// boxed together), every list they hold by its length, and a block's overhead for
    /// each list that holds anything.
    pub(crate) fn state_bytes(&self, events: &EventQueue<Event>) -> u64 {
        // Every field named: one added to `Sim` and not counted here fails to compile.
        let Sim {
            point: _,
            now: _,
            actors,
            servers,
            direct,
            groups,
            ready,
            joined: _,
            error,
            other: _,
            entities: _,
            jobs,
            free_jobs,
            tables,
            registers,
            locks,
            links,
            last_end: _,
            // No timeline is recorded under an explorer.
            lanes: _,
            streams,
            group_streams,
            closed,
            wait_stats,
            error_at: _,
            end: _,
            polls: _,
            last_taker,
            slots,
            free_slots,
            queues,
            keys,
            transaction,
            scratch,
            steer,
            fan: _,
            calls: _,
            job_rows: _,
            tied: _,
            watched,
        } = self;
        let mut lists = Lists::default();
        lists.add(bytes_of_list(actors));
        lists.add(bytes_of_list(servers) + servers.iter().map(|s| s.heap_bytes()).sum::<u64>());
        lists.add(bytes_of_list(&direct.groups));
        lists.add(bytes_of_list(&direct.servers));
        lists.add(bytes_of_list(groups));
        lists.add(bytes_of::<u32>(ready.len()));
        lists.add(error.as_ref().map_or(0, |e| e.len() as u64));
        lists.add(bytes_of_list(jobs));
        lists.add(bytes_of_list(free_jobs));
        lists.add(tables_bytes(tables));
        lists.add(bytes_of_list(registers));
        lists.add(bytes_of_list(locks) + locks.iter().map(|l| l.heap_bytes()).sum::<u64>());
        lists.add(bytes_of_list(links));
        lists.add(bytes_of::<Stream>(streams.len()));
        lists.add(bytes_of_list(group_streams));
        for each in group_streams {
            lists.add(bytes_of_list(each));
        }
        lists.add(bytes_of_list(closed));
        lists.add(bytes_of_list(wait_stats));
        lists.add(bytes_of_list(last_taker));
        lists.add(bytes_of_list(slots));
        lists.add(bytes_of_list(free_slots));
        lists.add(bytes_of_list(queues) + queues.iter().map(|q| q.heap_bytes()).sum::<u64>());
        lists.add(bytes_of_list(keys));
        for store in keys {
            lists.add(store.heap_bytes());
        }
        lists.add(transaction_bytes(transaction));
        lists.add(bytes_of_list(scratch));
        lists.add(bytes_of_list(watched));
        if let Some(steer) = steer {
            lists.add(std::mem::size_of_val(&**steer) as u64);
            lists.add(bytes_of_list(&steer.drawn));
            lists.add(bytes_of_list(&steer.touched));
            lists.add(bytes_of_list(&steer.told));
        }
        // The pending events: each with its time and its order in the queue's heap.
        lists.add(bytes_of::<(Nanos, u64, Event)>(events.len()));
        std::mem::size_of::<(Sim<'_>, EventQueue<Event>)>() as u64 + lists.bytes
    }
}

/// Bytes of lists, each holding anything one block.
#[derive(Default)]
struct Lists {
    bytes: u64,
}

impl Lists {
    fn add(&mut self, bytes: u64) {
        if bytes > 0 {
            self.bytes = self.bytes.saturating_add(bytes + PER_BLOCK);
        }
    }
}

/// The bytes of `list`'s values, by its length.
fn bytes_of_list<T>(list: &[T]) -> u64 {
    bytes_of::<T>(list.len())
}

/// The bytes of the jobs' rows: every table together (each is one block; counted as one
/// here, their few headers beside the rows being nothing).
fn tables_bytes(tables: &JobTables) -> u64 {
    let JobTables {
        reads,
        tokens,
        taken,
        stored,
        kids,
        replies,
        deferred,
    } = tables;
    bytes_of_list(reads)
        + bytes_of_list(tokens)
        + bytes_of_list(taken)
        + bytes_of_list(stored)
        + bytes_of_list(kids)
        + bytes_of_list(replies)
        + bytes_of_list(deferred)
}

/// The bytes of a transaction's lists.
fn transaction_bytes(transaction: &Transaction) -> u64 {
    bytes_of::<Undo>(transaction.undo.len())
        + bytes_of::<Deferred>(transaction.deferred.len())
        + bytes_of_list(&transaction.numbers)
}
