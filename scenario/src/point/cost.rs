//! A run's cost, estimated from its point before anything runs: events, memory and the
//! entity rows it keeps (a polled lock's failed attempts included).

use coordsim_model::{Cost, Driver};
use sim_core::ms_to_ns;

use crate::point::blame::Share;
use crate::point::{
    CrashRule, Duration, Group, InitialKeys, LockMode, Pace, Pick, Point, Step, Then, Timeout,
    Vars, eval_run,
};
use crate::syntax::spec::KeyOp;
use crate::syntax::spec::Number;

/// A random stream's size, for the memory estimate.
const STREAM_BYTES: u64 = std::mem::size_of::<sim_core::Stream>() as u64;
/// A key a store holds, for the memory estimate.
const KEY_BYTES: u64 = 48;

impl Point {
    /// The estimate of one run: events, memory and entity rows, and what drives the events
    /// and the memory (the biggest share of each: a group, a compare-and-set's conflicts, an
    /// acquire's polls, a key store's initial keys).
    pub(crate) fn cost(&self) -> Cost {
        let mut events: u64 = 0;
        let mut events_by = Share::default();
        let mut memory_by = Share::default();
        let per_job = 128
            + 8 * (self.registers.len() + self.locks.len() + self.keys.len()) as u64
            + 8 * self.queues.len() as u64;
        let mut memory_bytes = u64::from(self.actors).saturating_mul(160);
        for (index, group) in self.groups.iter().enumerate() {
            let repetitions = u64::from(group.count).saturating_mul(group.repeat);
            // Each step of each attempt: its event, a landing or a timeout.
            let per_attempt = 3 * group.steps.len() as u64 + 1;
            // A compare-and-set conflict starts the attempt again, at most `max_retries`
            // times a repetition: each a whole attempt's events more.
            let (conflicts, cas_at) = group
                .steps
                .iter()
                .enumerate()
                .filter_map(|(index, step)| match step {
                    Step::Write {
                        cas: true,
                        max_retries,
                        ..
                    } => Some((*max_retries, index)),
                    _ => None,
                })
                .max()
                .unwrap_or((0, 0));
            let attempts = repetitions
                .saturating_mul(per_attempt)
                .saturating_mul(u64::from(group.attempts));
            let conflict_events = attempts.saturating_mul(conflicts);
            events_by.offer(attempts, || self.group_events(index, group, per_attempt));
            if let Some(at) = group.paths.get(cas_at).filter(|_| conflicts > 0) {
                events_by.offer(conflict_events, || Driver {
                    key: format!("{at}.max_retries"),
                    why: format!(
                        "each compare-and-set conflict starts the attempt again, up to `max_retries` = {conflicts} times a repetition (1000 when not written)"
                    ),
                });
            }
            events = events
                .saturating_add(attempts)
                .saturating_add(conflict_events);
            let group_bytes = self.group_bytes(group, per_job);
            memory_by.offer(group_bytes, || self.group_memory(index, group));
            memory_bytes = memory_bytes.saturating_add(group_bytes);
        }
        events = events.saturating_add(self.locks.iter().map(|l| l.unlock_ns.len() as u64).sum());
        events = events.saturating_add(self.servers.iter().map(|s| 2 * s.down.len() as u64).sum());
        let (rounds, polls) = self.poll_rounds();
        if let (step_rounds, Some(polls)) = polls.take() {
            events_by.offer(step_rounds, || polls);
        }
        events = events.saturating_add(rounds);
        // A range nobody changes is never laid out; any other store holds what it starts with.
        for (index, store) in self.keys.iter().enumerate() {
            if matches!(store.initial, InitialKeys::Pairs(_)) || self.changes_keys(index) {
                let bytes = store.initial.len().saturating_mul(KEY_BYTES);
                memory_by.offer(bytes, || Driver {
                    key: format!("{}.initial", store.at),
                    why: format!("{} keys at the start", store.initial.len()),
                });
                memory_bytes = memory_bytes.saturating_add(bytes);
            }
        }
        for server in &self.servers {
            let each = 96
                + if server.distribution.is_some() {
                    STREAM_BYTES
                } else {
                    0
                };
            let bytes = u64::from(server.instances) * each;
            memory_by.offer(bytes, || Driver {
                key: format!("{}.instances", server.at),
                why: format!("{} instances of `{}`", server.instances, server.name),
            });
            memory_bytes = memory_bytes.saturating_add(bytes);
        }
        let (_, events_by) = events_by.take();
        let (_, memory_by) = memory_by.take();
        Cost {
            events,
            memory_bytes,
            entity_rows: u64::from(self.actors),
            driven_by: events_by
                .as_ref()
                .map_or("actor".into(), |d| d.key.clone().into()),
            events_by,
            memory_by,
            point_bytes: self.bytes(),
        }
    }

    /// Bytes group `group` holds at most: its samples, its jobs in flight (a `parallel`'s
    /// branches are jobs of their own, and an open loop's repetitions may all be queued at
    /// once), its random streams, every message a put may make (a copy a link makes
    /// included) and every key an insert or set may add.
    fn group_bytes(&self, group: &Group, per_job: u64) -> u64 {
        let repetitions = u64::from(group.count).saturating_mul(group.repeat);
        let attempts = repetitions.saturating_mul(u64::from(group.attempts));
        let requests = group
            .steps
            .iter()
            .filter(|step| matches!(step, Step::Request { .. }))
            .count() as u64;
        let samples = repetitions.saturating_mul(1 + requests * u64::from(group.attempts));
        let in_flight = if matches!(group.pace, Pace::Closed) {
            u64::from(group.count)
        } else {
            repetitions
        };
        let jobs = in_flight.saturating_mul(1 + group.fan() as u64);
        let crashy = group.steps.iter().any(|step| {
            matches!(
                step,
                Step::Crash {
                    rule: CrashRule::Probability(_, None),
                    ..
                }
            )
        });
        let random = matches!(group.pace, Pace::Random(_));
        let streams = u64::from(group.count)
            * (u64::from(crashy)
                + u64::from(random)
                + u64::from(group.jitters)
                + u64::from(group.chances));
        let mut messages: u64 = 0;
        let mut keys: u64 = 0;
        for step in &group.steps {
            match step {
                Step::Put { queue, .. } | Step::Call { queue, .. } => {
                    let width = 1 + self.queues[*queue as usize].fields as u64;
                    messages =
                        messages.saturating_add(attempts.saturating_mul(2 * (40 + 8 * width)));
                }
                Step::Keys { .. } => keys = keys.saturating_add(attempts),
                // A take's place in its queue's list of hidden messages, and its waiter.
                Step::Take { .. } => {
                    messages = messages.saturating_add(attempts.saturating_mul(16))
                }
                _ => {}
            }
        }
        samples
            .saturating_mul(8)
            .saturating_add(jobs.saturating_mul(per_job))
            .saturating_add(streams.saturating_mul(STREAM_BYTES))
            .saturating_add(messages)
            .saturating_add(keys.saturating_mul(KEY_BYTES))
    }

    /// Bytes this prepared point holds until the config is done: its program (a compiled
    /// step is a few hundred bytes with its path and numbers), its tables and its key
    /// stores' initial pairs. The front end adds these up over every point of a sweep.
    fn bytes(&self) -> u64 {
        // A step's numbers may hold an expression tree on the heap: counted generously.
        const STEP_HEAP: usize = 96;
        let mut bytes = std::mem::size_of::<Point>() + 8 * self.params.len();
        for group in &self.groups {
            bytes += std::mem::size_of_val(group) + group.name.len() + 64 * group.named.len();
            bytes += group
                .names
                .as_ref()
                .map_or(0, |names| names.iter().map(|name| 24 + name.len()).sum());
            bytes += group.steps.len() * (std::mem::size_of::<Step>() + STEP_HEAP);
            bytes += group.paths.iter().map(|p| 24 + p.len()).sum::<usize>();
        }
        for store in &self.keys {
            bytes += 64 + store.name.len() + store.at.len();
            if let InitialKeys::Pairs(pairs) = &store.initial {
                bytes += 16 * pairs.len();
            }
        }
        bytes += self
            .locks
            .iter()
            .map(|l| 64 + 8 * l.unlock_ns.len())
            .sum::<usize>();
        bytes += self
            .servers
            .iter()
            .map(|name| 128 + 16 * name.down.len())
            .sum::<usize>();
        bytes += 96 * (self.registers.len() + self.queues.len() + self.links.len());
        bytes as u64
    }

    /// Whether a step may change the key store at `store_index` (an insert, a set or a remove).
    fn changes_keys(&self, store_index: usize) -> bool {
        self.groups.iter().any(|group| {
            group.steps.iter().any(|step| {
                matches!(step, Step::Keys { operation, store, .. } if *store as usize == store_index && *operation != KeyOp::Lookup)
            })
        })
    }

    /// The most time one step of the actor at `actor_index` takes by itself (a delay, a register
    /// access, a service at its mean, a wait to its timeout, a retry's backoff and jitter at the
    /// last attempt); 0 when it is known only during the run.
    fn step_ns(&self, step: &Step, actor_index: u32, attempts: u32) -> u64 {
        // A number of the last attempt (a backoff grows with `attempt`), before any repetition.
        let last = |number: &Number| {
            let vars = Vars {
                attempt: attempts,
                ..Vars::actor(actor_index)
            };
            eval_run(number, &self.params, &vars)
                .and_then(ms_to_ns)
                .unwrap_or(0)
        };
        let timeout = |step_timeout: &Option<Timeout>| match step_timeout {
            Some(Timeout {
                after: Some(Duration::Fixed(ns)),
                ..
            }) => *ns,
            Some(Timeout {
                after: Some(Duration::Actor(number)),
                ..
            }) => last(number),
            _ => 0,
        };
        match step {
            // A wait that may run to its timeout, holding what the actor holds.
            Step::Acquire {
                timeout: step_timeout,
                ..
            } => timeout(step_timeout),
            Step::AfterTimeout(Then::Retry {
                backoff, jitter, ..
            }) => last(backoff).saturating_add(last(jitter)),
            Step::Delay(Duration::Fixed(ns)) => *ns,
            Step::Delay(Duration::Actor(number)) => self
                .at_actor(number, actor_index)
                .and_then(ms_to_ns)
                .unwrap_or(0),
            Step::Read(register) => self.registers[*register as usize].read_ns,
            Step::Write { register, .. } => self.registers[*register as usize].write_ns,
            Step::Pause(Duration::Fixed(ns)) => *ns,
            Step::Pause(Duration::Actor(number)) => self
                .at_actor(number, actor_index)
                .and_then(ms_to_ns)
                .unwrap_or(0),
            // Of a choice, the slowest.
            Step::Request {
                server,
                timeout: step_timeout,
                ..
            } => match server {
                Pick::One(s) => self.servers[*s as usize].service_ns,
                Pick::OneOf(items, _) => items
                    .iter()
                    .map(|s| self.servers[*s as usize].service_ns)
                    .max()
                    .unwrap_or(0),
            }
            .max(timeout(step_timeout)),
            Step::Send {
                link,
                timeout: step_timeout,
            } => timeout(step_timeout).max(match link {
                Pick::One(k) => self.links[*k as usize],
                Pick::OneOf(items, _) => items
                    .iter()
                    .map(|k| self.links[*k as usize])
                    .max()
                    .unwrap_or(0),
            }),
            Step::Crash {
                restart: Some(Duration::Fixed(ns)),
                ..
            } => *ns,
            _ => 0,
        }
    }

    /// The latest instant a repetition starts by the clock (an actor's start, an open
    /// loop's last repetition), over the first 64 actors of each group and its last.
    fn last_start(&self) -> u64 {
        let mut last: u64 = 0;
        for group in &self.groups {
            let sampled = (0..group.count.min(64)).chain(group.count.checked_sub(1));
            for actor_index in sampled {
                let start = self
                    .at_actor(&group.start_ms, actor_index)
                    .and_then(ms_to_ns)
                    .unwrap_or(0);
                let later_repetitions = group.repeat.saturating_sub(1);
                let later = match &group.pace {
                    Pace::Every(every) => every.saturating_mul(later_repetitions),
                    Pace::Spread(window) => *window,
                    // Random gaps: their mean times the repetitions, three times over.
                    Pace::Random(d) => {
                        ms_to_ns(3.0 * d.mean_ms() * later_repetitions as f64).unwrap_or(0)
                    }
                    Pace::Closed => 0,
                };
                last = last.max(start.saturating_add(later));
            }
        }
        last
    }

    /// Failed attempts on polled locks, bounded before the run: a waiter tries every
    /// `poll_ms` until it holds the lock or gives up, and it waits at most as long as the
    /// lock can stay taken — every actor's steps one after another (delays, register
    /// accesses, services at their mean; actors past the first 64 of a group counted like
    /// the slowest of those) plus the last operator unlock of a stale record — or its
    /// give-up time when that is sooner. With them, the acquire that polls most, and why.
    fn poll_rounds(&self) -> (u64, Share) {
        let polled = |lock_index: u16| {
            let lock = &self.locks[lock_index as usize];
            (lock.mode != LockMode::Queue).then_some(lock.poll_ns.max(1))
        };
        let waits = self.groups.iter().any(|group| {
            group
                .steps
                .iter()
                .any(|step| step.locks().iter().any(|l| polled(*l).is_some()))
        });
        if !waits {
            return (0, Share::default());
        }
        let mut busy: u64 = 0;
        for group in &self.groups {
            let sampled = group.count.min(64);
            let slowest = (0..sampled)
                .map(|actor_index| {
                    group
                        .steps
                        .iter()
                        .map(|s| self.step_ns(s, actor_index, group.attempts))
                        .fold(0u64, u64::saturating_add)
                })
                .max()
                .unwrap_or(0);
            busy = busy.saturating_add(
                slowest
                    .saturating_mul(u64::from(group.count))
                    .saturating_mul(group.repeat)
                    .saturating_mul(u64::from(group.attempts)),
            );
        }
        let unlocks = self
            .locks
            .iter()
            .filter_map(|l| l.unlock_ns.iter().max().copied())
            .max()
            .unwrap_or(0);
        // A lease record left by a holder that died runs out by itself; and a start still
        // to come keeps the run going (a poll waits for it, if only to be found stuck).
        let leases = self
            .locks
            .iter()
            .filter(|l| l.mode == LockMode::Lease)
            .map(|l| l.lease_ns.saturating_add(1))
            .max()
            .unwrap_or(0);
        let unlocks = unlocks
            .saturating_add(leases)
            .saturating_add(self.last_start());
        let mut rounds: u64 = 0;
        let mut most = Share::default();
        for group in &self.groups {
            for (step, path) in group.steps.iter().zip(&group.paths) {
                let Step::Acquire { timeout, .. } = step else {
                    continue;
                };
                // Of a choice of locks, the one polled most often.
                let Some((poll_ns, lock)) = (step.locks().iter())
                    .filter_map(|l| polled(*l).map(|poll_ns| (poll_ns, *l)))
                    .min()
                else {
                    continue;
                };
                let ceiling = busy.saturating_add(unlocks);
                let (wait, given_up) = match timeout {
                    Some(Timeout {
                        after: Some(Duration::Fixed(ns)),
                        gives_up,
                        ..
                    }) if *ns <= ceiling => {
                        let key = if *gives_up {
                            "give_up_after_ms"
                        } else {
                            "timeout_ms"
                        };
                        (*ns, Some(key))
                    }
                    _ => (ceiling, None),
                };
                let polls = 1 + wait / poll_ns;
                let step_rounds = polls
                    .saturating_mul(u64::from(group.count))
                    .saturating_mul(group.repeat)
                    .saturating_mul(u64::from(group.attempts));
                most.offer(step_rounds, || self.poll_driver(path, lock, given_up, wait));
                rounds = rounds.saturating_add(step_rounds);
            }
        }
        (rounds, most)
    }
}
