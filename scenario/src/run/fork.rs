//! `parallel`: a job's branches, each a job of its own started at one instant, and the join
//! that lets the job go on once enough came through, cancelling the rest.
//!
//! A branch comes through when it reaches its end (or an `end` step), and fails when it
//! gives up (a timeout that ends, `{ end = "gave_up" }`). What a finished branch holds
//! (its locks) passes to the job; what one that came through read, took or looked up is
//! the job's to read after the join. A cancelled branch gives back its locks, leaves any
//! queue it waits in (a server's only with `cancel = "withdraw"`, and only while its
//! request is queued: one in service runs to its end, wasted), and goes no further: it is
//! freed at its next wake-up, or at once when its wait was the queue it left.

use sim_core::Nanos;

use crate::machine::queue::Taken;
use crate::point::Step;
use crate::run::handle::Flow;
use crate::run::recover::{FAILED, JOINED};
use crate::run::state::{Job, LOST, NO_JOB, NO_SERVER, NONE, Sim};

impl<'p> Sim<'p> {
    /// A `parallel` step: its branches start, in order, after what is ready already; the
    /// job waits for the join.
    pub(super) fn fork_step(&mut self, job: u32, starts: &[u32], now: Nanos) -> Flow {
        let j = &mut self.jobs[job as usize];
        j.running = starts.len() as u8;
        j.joined = 0;
        j.failed = 0;
        j.winner = 0;
        let parent = *j;
        for (b, &start) in starts.iter().enumerate() {
            let kid = self.alloc(Job {
                parent: job,
                branch: b as u8 + 1,
                // Run from the ready queue, which steps past where a job stands first.
                step: start - 1,
                step_started: now,
                wait: 0,
                waiting: u16::MAX,
                handed_at: NONE,
                deadline: NONE,
                serving: NO_SERVER,
                taking: u16::MAX,
                in_service: false,
                polling: u16::MAX,
                cancelled: false,
                running: 0,
                slot: u32::MAX,
                calling: u16::MAX,
                ..parent
            });
            self.copy_rows(job, kid, false);
            self.tables.kids[job as usize * self.fan + b] = kid;
            self.ready.push_back(kid);
        }
        Flow::Wait
    }

    /// Copies what job `from` read, took, looked up and got back into `to`'s rows; with `only_known`,
    /// only what `from` knows (a branch that came through tells its parent what it found,
    /// and leaves alone what it never looked at).
    fn copy_rows(&mut self, from: u32, to: u32, only_known: bool) {
        let (f, t) = (from as usize, to as usize);
        let t_ = &mut self.tables;
        let n = self.regs.len();
        for r in 0..n {
            let x = t_.reads[f * n + r];
            if !only_known || !x.is_nan() {
                t_.reads[t * n + r] = x;
            }
        }
        let n = self.queues.len();
        for r in 0..n {
            let x = t_.taken[f * n + r];
            if !only_known || x != Taken::NONE {
                t_.taken[t * n + r] = x;
            }
        }
        let n = self.keys.len();
        for r in 0..n {
            let x = t_.stored[f * n + r];
            if !only_known || !x.is_nan() {
                t_.stored[t * n + r] = x;
            }
        }
        if self.calls {
            let x = t_.replies[f];
            if !only_known || !x.is_nan() {
                t_.replies[t] = x;
            }
        }
    }

    /// Branch `kid` ended: it came through (`ok`) or failed. Its parent's join may be met
    /// now (or be out of reach): then the branches still running are cancelled and the
    /// parent goes on, in this event.
    pub(super) fn branch_end(&mut self, kid: u32, ok: bool, now: Nanos) {
        let k = &self.jobs[kid as usize];
        let (parent, b) = (k.parent, k.branch);
        let nl = self.locks.len();
        let (pu, ku) = (parent as usize, kid as usize);
        for l in 0..nl {
            let token = std::mem::take(&mut self.tables.tokens[ku * nl + l]);
            if token != 0 {
                self.tables.tokens[pu * nl + l] = token;
            }
        }
        if ok {
            self.copy_rows(kid, parent, true);
        }
        self.tables.kids[pu * self.fan + usize::from(b) - 1] = NO_JOB;
        self.free_job(kid);
        let pt = self.p;
        let p = &mut self.jobs[pu];
        p.running -= 1;
        if ok {
            p.joined += 1;
            if p.winner == 0 {
                p.winner = b;
            }
        } else {
            p.failed += 1;
        }
        let Step::Fork {
            starts,
            wait,
            withdraw,
            ..
        } = &pt.groups[p.group as usize].steps[p.step as usize]
        else {
            self.error
                .get_or_insert_with(|| "internal: a branch of a job at no parallel".into());
            return;
        };
        let n = starts.len() as u32;
        let outcome = if u32::from(p.joined) >= *wait {
            JOINED
        } else if n - u32::from(p.failed) < *wait {
            FAILED
        } else {
            return;
        };
        p.outcome = outcome;
        let withdraw = *withdraw;
        for b in 0..n as usize {
            let kid = self.tables.kids[pu * self.fan + b];
            if kid != NO_JOB {
                self.tables.kids[pu * self.fan + b] = NO_JOB;
                self.cancel(kid, withdraw, now);
            }
        }
        self.jobs[pu].running = 0;
        self.ready.push_back(parent);
    }

    /// Branch `kid`'s request started its service at `now`: at a tied `parallel`, every
    /// other branch still running is cancelled (withdrawn) at once.
    pub(super) fn started_service(&mut self, kid: u32, now: Nanos) {
        let parent = self.jobs[kid as usize].parent;
        let p = &self.jobs[parent as usize];
        let pt = self.p;
        let Some(Step::Fork {
            starts, tied: true, ..
        }) = pt.groups[p.group as usize].steps.get(p.step as usize)
        else {
            return;
        };
        let pu = parent as usize;
        // Only a branch of the fork under way (not one of an old self's, after a crash
        // whose restart reused the job) ties its siblings.
        if !(0..starts.len()).any(|b| self.tables.kids[pu * self.fan + b] == kid) {
            return;
        }
        for b in 0..starts.len() {
            let other = self.tables.kids[pu * self.fan + b];
            if other != NO_JOB && other != kid {
                self.tables.kids[pu * self.fan + b] = NO_JOB;
                let p = &mut self.jobs[pu];
                p.running -= 1;
                p.failed += 1;
                self.cancel(other, true, now);
            }
        }
    }

    /// Branch `kid` is cancelled at its parent's join.
    fn cancel(&mut self, kid: u32, withdraw: bool, now: Nanos) {
        let nl = self.locks.len();
        for l in 0..nl {
            if self.tables.tokens[kid as usize * nl + l] != 0 {
                self.release(kid, l, now);
            }
        }
        self.mark(kid, "cancelled", now);
        let j = &mut self.jobs[kid as usize];
        j.cancelled = true;
        // A timer still due for it finds nothing to end.
        j.deadline = NONE;
        let from = j.step_started;
        let gone = if j.waiting != u16::MAX {
            // Its entry in the lock's queue is stale from now on.
            j.waiting = u16::MAX;
            j.wait = j.wait.wrapping_add(1);
            self.span(kid, "waiting", from, Some(now));
            true
        } else if j.taking != u16::MAX {
            j.taking = u16::MAX;
            j.wait = j.wait.wrapping_add(1);
            if now > from {
                self.span(kid, "waiting", from, Some(now));
            }
            true
        } else if j.calling != u16::MAX {
            // A reply that comes now finds nobody waiting.
            j.calling = u16::MAX;
            j.wait = j.wait.wrapping_add(1);
            self.span(kid, "waiting", from, Some(now));
            true
        } else if j.serving == LOST {
            j.serving = NO_SERVER;
            true
        } else if j.serving != NO_SERVER {
            let s = j.serving as usize;
            j.serving = NO_SERVER;
            // The request left behind no longer reaches this job.
            j.wait = j.wait.wrapping_add(1);
            let queued = !j.in_service;
            j.in_service = false;
            let tag = j.slot;
            let instance = self.slots[tag as usize].instance;
            if self.servers[s].cancel(instance, tag, withdraw && queued, now) {
                self.free_slots.push(tag);
            }
            let kind = if queued { "waiting" } else { "served" };
            self.span(kid, kind, from, Some(now));
            true
        } else {
            // Its wake-up is an event already due (a delay's end, a write's landing, a
            // crossing, a poll) or its turn in the ready queue: it is freed then.
            false
        };
        if gone {
            self.free_job(kid);
        }
    }
}
