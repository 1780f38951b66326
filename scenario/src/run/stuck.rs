//! A run that can never progress: every event left is a poll of a lock that can never be
//! free (its holder is dead, or waits for something that can never come, and no lease or
//! operator unlock deletes its record), and no poller gives up. Such a run would poll until
//! the event cap; it stops at once instead, saying who holds what and who waits.

use sim_core::Nanos;

use crate::run::state::{NONE, Sim};

/// What a job still waits for at a stuck end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Awaited {
    /// A lock, in its queue (`false`) or by polling (`true`).
    Lock(u16, bool),
    /// A message to take from a queue.
    Take(u16),
}

/// Pollers named in the report; the rest are counted.
const NAMED: usize = 5;

impl Sim<'_> {
    /// Called when every event left is a poll: stops the run with an error when none of
    /// them can ever succeed, or notes until when that is sure not to be so.
    pub(crate) fn check_stuck(&mut self, now: Nanos) {
        let lock_count = self.locks.len();
        // The earliest instant a poll might succeed or a poller give up.
        let mut next = NONE;
        let mut polled = vec![Vec::new(); lock_count];
        for (job, job_state) in self.jobs.iter().enumerate() {
            if job_state.polling == u16::MAX {
                continue;
            }
            let lock = job_state.polling as usize;
            polled[lock].push(job as u32);
            next = next.min(job_state.deadline);
            if let Some(at) = self.locks[lock].free_by_itself(now) {
                next = next.min(at);
            }
        }
        if next != NONE {
            self.polls.unstuck_until = next;
            return;
        }
        if self.steer.is_some() && self.point.forever() {
            // A loop without end has no end to be stuck at: the polls go on for ever, and
            // the explorer finds them as a cycle.
            self.polls.unstuck_until = NONE;
            return;
        }
        if let Some(steer) = &mut self.steer {
            // Explored: an outcome (pollers unfinished), not an error.
            steer.stuck = true;
            return;
        }
        let mut lines = Vec::new();
        for (lock, pollers) in polled.iter().enumerate() {
            if pollers.is_empty() {
                continue;
            }
            // An open loop's overlapping repetitions poll as one actor: named once.
            let mut actors: Vec<u32> = pollers
                .iter()
                .map(|&job| self.jobs[job as usize].actor)
                .collect();
            actors.sort_unstable();
            actors.dedup();
            let mut names: Vec<String> = actors
                .iter()
                .take(NAMED)
                .map(|&actor_index| {
                    let actor = &self.actors[actor_index as usize];
                    format!(
                        "`{}`",
                        self.point.groups[actor.group as usize].actor_name(actor.index)
                    )
                })
                .collect();
            if actors.len() > NAMED {
                names.push(format!("and {} more", actors.len() - NAMED));
            }
            lines.push(format!(
                "`{}` is held by {}, and polled by {}",
                self.point.lock_names[lock],
                self.holder(lock),
                names.join(", ")
            ));
        }
        self.error.get_or_insert(format!(
            "the run is stuck at {} ms: every event left is a poll of a lock that can never be free (no lease runs out, no unlock_at_ms comes, no poller gives up): {}. Give the acquire a `give_up_after_ms` or a `timeout_ms`, make the lock a lease, or use `mode = \"queue\"` (a run whose waiters wait in a queue ends when nothing is left, with them unfinished)",
            sim_core::ns_to_ms(now),
            lines.join("; ")
        ));
    }

    /// The job's actor by name ("`clients-2`").
    fn who(&self, job: u32) -> String {
        let actor = &self.actors[self.jobs[job as usize].actor as usize];
        format!(
            "`{}`",
            self.point.groups[actor.group as usize].actor_name(actor.index)
        )
    }

    /// The jobs still waiting when no event is left (an explored execution that ends
    /// stuck, a deadlock): each with what it waits for, in job order.
    pub(crate) fn waiting_at_end(&self) -> Vec<(u32, Awaited)> {
        let free: std::collections::HashSet<u32> = self.free_jobs.iter().copied().collect();
        let mut waiting = Vec::new();
        for (job, job_state) in self.jobs.iter().enumerate() {
            let job = job as u32;
            if free.contains(&job) {
                continue;
            }
            let awaited = if job_state.waiting != u16::MAX {
                Awaited::Lock(job_state.waiting, false)
            } else if job_state.polling != u16::MAX {
                Awaited::Lock(job_state.polling, true)
            } else if job_state.taking != u16::MAX {
                Awaited::Take(job_state.taking)
            } else {
                continue;
            };
            waiting.push((job, awaited));
        }
        waiting
    }

    /// The name of the actor whose record `lock` holds (`None`: no record, or one left
    /// at the start).
    pub(crate) fn holder_name(&self, lock: usize) -> Option<String> {
        let actor = self.actors.get(self.holder_actor(lock)? as usize)?;
        Some(self.point.groups[actor.group as usize].actor_name(actor.index))
    }

    /// The index of the actor whose record `lock` holds (`None`: no record, or one left at
    /// the start).
    pub(crate) fn holder_actor(&self, lock: usize) -> Option<u32> {
        let lock_count = self.locks.len();
        let token = self.locks[lock].record_token().filter(|&t| t != 0)?;
        Some(
            match (0..self.jobs.len()).find(|&j| self.tables.tokens[j * lock_count + lock] == token)
            {
                Some(job) => self.jobs[job].actor,
                None => self.last_taker[lock].0,
            },
        )
    }

    /// Who holds the record of `lock`, and why it can never release it.
    fn holder(&self, lock: usize) -> String {
        let lock_count = self.locks.len();
        let Some(token) = self.locks[lock].record_token() else {
            return "no one".into();
        };
        if token == 0 {
            return "a stale record left at the start".into();
        }
        let Some(job) =
            (0..self.jobs.len()).find(|&job| self.tables.tokens[job * lock_count + lock] == token)
        else {
            // No job holds it any more: its taker crashed, or ended holding it.
            let (taker, incarnation) = self.last_taker[lock];
            let Some(actor) = self.actors.get(taker as usize) else {
                return "an actor that can no longer release it".into();
            };
            let name = self.point.groups[actor.group as usize].actor_name(actor.index);
            return if actor.crashed {
                format!("`{name}`, which crashed holding it")
            } else if actor.incarnation != incarnation {
                format!("`{name}`, whose earlier self crashed holding it (it restarted)")
            } else {
                format!("`{name}`, which ended a repetition holding it")
            };
        };
        let job_state = &self.jobs[job];
        let actor = &self.actors[job_state.actor as usize];
        let why = if actor.crashed || job_state.incarnation != actor.incarnation {
            "which crashed holding it".to_string()
        } else if job_state.polling != u16::MAX {
            format!(
                "which polls `{}`",
                self.point.lock_names[job_state.polling as usize]
            )
        } else if job_state.waiting != u16::MAX {
            format!(
                "which waits in `{}`'s queue",
                self.point.lock_names[job_state.waiting as usize]
            )
        } else if job_state.taking != u16::MAX {
            format!(
                "which waits to take from `{}`, where nothing more can arrive",
                self.point.queues[job_state.taking as usize].name
            )
        } else if self.free_jobs.contains(&(job as u32)) {
            "which ended without releasing it".to_string()
        } else {
            "which waits for good".to_string()
        };
        format!("{}, {why}", self.who(job as u32))
    }
}
