//! `saga` (lesson 004): lending a book touches two services with no shared transaction. Without
//! compensation a failed second call leaves an orphaned loan; a saga compensates the completed
//! steps in reverse, and is left half done when a compensation fails too.

use sim_core::{EventQueue, Handler, Nanos, SimError, chance, ns_to_ms, run, stream};

use crate::library::{Book, CallError, Member, Status, World, lesson_books, lesson_members};
use coordsim_model::{ChartKind, DefaultChart, Model, ModelError, Output, RunContext, Valid};
use coordsim_model::{Cost, Millis, ParamError, probability};

choice! {
    /// What happens after a failed call.
    pub enum Mode {
        /// Mark loaned, then add loan; stop at the first error.
        NoCompensation = "no_compensation",
        /// On an error, compensate the completed steps in reverse.
        Saga = "saga",
    }
}

params! {
    /// Parameters of `saga`; defaults are lesson 004's failing request.
    pub struct Params {
        /// `no_compensation` or `saga`
        mode: Mode = Mode::Saga,
        /// `[book, member]` pairs, run one after another on the same world
        requests: Vec<(u64, u64)> = vec![(2, 5)],
        /// the compensation call (mark shelved) fails
        catalog_unreachable: bool = false,
        /// duration of each call; a call takes effect at its end
        step_ms: Millis = Millis::lit(10.0),
        /// the catalog's books
        books: Vec<Book> = lesson_books(),
        /// the members
        members: Vec<Member> = lesson_members(),
        /// random variant: this many requests, each for a fresh book and member (replaces `requests`)
        random_requests: u64 = 0,
        /// random variant: probability that *add loan* fails
        add_loan_failure_probability: f64 = 0.0,
        /// random variant: probability that a compensation fails
        compensation_failure_probability: f64 = 0.0,
    }
}

columns! {
    /// Metrics of one run.
    pub struct Metrics {
        /// requests run
        requests: u64,
        /// requests that completed both calls
        committed: u64,
        /// requests that did not commit (either mode)
        failed: u64,
        /// saga: failed requests whose compensations all succeeded (or had nothing to compensate)
        rolled_back: u64,
        /// saga: failed requests with a failed compensation
        half_done: u64,
        /// compensations that failed and wait to be retried
        pending_compensations: u64,
        /// books marked on loan by a request that did not commit and were not put back
        orphaned: u64,
        /// mean time a compensated book showed `odunc` (empty if none was compensated)
        inconsistency_window_ms: Option<f64>,
    }
}

columns! {
    /// One request's row.
    pub struct RequestRow {
        /// the book asked for
        book: u64,
        /// the member asking
        member: u64,
        /// completed, failed, rolled_back or half_done
        outcome: String,
        /// the error that stopped it (empty if none)
        error: String,
        /// the book's status after the request
        book_status: String,
        /// the member's open loans after the request
        member_open: Option<u64>,
    }
}

/// The model.
pub struct Saga;

/// Most requests in one run: each takes about 100 bytes of state and 250 of entity row
/// (`entities = false` keeps only the state), so the limit is about 3.5 GB.
const MAX_REQUESTS: u64 = 10_000_000;
/// Ids of the random variant's fresh books and members start here.
const FRESH_ID: u64 = 1_000_000_000;

impl Model for Saga {
    fn name(&self) -> &'static str {
        "saga"
    }
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        crate::turkish::param_meaning(self.name(), key, language)
    }
    fn summary(&self) -> &'static str {
        "a loan across two services without a shared transaction: orphaned loans, compensation, and compensations that fail (lesson 004)"
    }
    fn charts(&self) -> Vec<DefaultChart> {
        vec![DefaultChart {
            name: "outcomes",
            x: "mode",
            y: &["committed", "rolled_back", "half_done", "orphaned"],
            kind: ChartKind::Bar,
            mark_x: None,
            mark_y: None,
        }]
    }
    type Params = Params;
    type Metrics = Metrics;
    type Entity = RequestRow;

    fn cost(&self, p: &Params) -> Cost {
        let n = (p.requests.len() as u64).saturating_add(p.random_requests);
        Cost {
            events: n.saturating_mul(8),
            memory_bytes: n.saturating_mul(200),
            entity_rows: n,
            driven_by: (if p.random_requests > 0 {
                "random_requests"
            } else {
                "requests"
            })
            .into(),
            point_bytes: 0,
            ..Cost::default()
        }
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        if p.random_requests > MAX_REQUESTS || p.requests.len() as u64 > MAX_REQUESTS {
            return Err(ParamError::new(
                "random_requests",
                format!("at most {MAX_REQUESTS} requests per run"),
            ));
        }
        probability(
            "add_loan_failure_probability",
            p.add_loan_failure_probability,
        )?;
        probability(
            "compensation_failure_probability",
            p.compensation_failure_probability,
        )?;
        Ok(())
    }

    fn run(
        &self,
        p: &Valid<Params>,
        ctx: &RunContext,
    ) -> Result<Output<Metrics, RequestRow>, ModelError> {
        let seed = ctx.seed();
        let mut sim = Sim::new(p, seed);
        let mut queue = ctx.queue(4);
        if !sim.requests.is_empty() {
            queue.schedule_in(sim.step, 0, Event::MarkLoaned { r: 0 });
        }
        run(&mut queue, &mut sim)?;
        Ok(sim.output(ctx.wants_entities()))
    }
}

#[derive(Debug, Clone, Copy)]
enum Event {
    /// Request r's first call takes effect.
    MarkLoaned { r: usize },
    /// Request r's second call takes effect.
    AddLoan { r: usize },
    /// Request r's compensation (mark shelved) takes effect.
    Compensate { r: usize },
}

struct Request {
    book: u64,
    member: u64,
    outcome: &'static str,
    error: Option<CallError>,
    marked_at: Option<Nanos>,
    book_status: Option<Status>,
    member_open: Option<u64>,
}

struct Sim {
    mode: Mode,
    step: Nanos,
    world: World,
    requests: Vec<Request>,
    unreachable: bool,
    random: bool,
    add_loan_failure: f64,
    compensation_failure: f64,
    add_loan_rng: sim_core::Stream,
    compensation_rng: sim_core::Stream,
    windows: Vec<Nanos>,
    pending: u64,
}

impl Sim {
    fn new(p: &Params, seed: u64) -> Self {
        let mut world = World::new(&p.books, &p.members);
        let random = p.random_requests > 0;
        world.reserve(p.random_requests as usize, p.random_requests as usize);
        let pairs: Vec<(u64, u64)> = if random {
            // Fresh books on the shelf and fresh members with room: only the injected
            // failures can stop a request.
            (0..p.random_requests)
                .map(|i| {
                    let id = FRESH_ID + i;
                    world.add_book(Book {
                        id,
                        status: Status::Shelf,
                    });
                    world.add_member(Member {
                        id,
                        open: 0,
                        limit: 1,
                    });
                    (id, id)
                })
                .collect()
        } else {
            p.requests.clone()
        };
        Sim {
            mode: p.mode,
            step: p.step_ms.ns(),
            world,
            requests: pairs
                .into_iter()
                .map(|(book, member)| Request {
                    book,
                    member,
                    outcome: "completed",
                    error: None,
                    marked_at: None,
                    book_status: None,
                    member_open: None,
                })
                .collect(),
            unreachable: p.catalog_unreachable,
            random,
            add_loan_failure: p.add_loan_failure_probability,
            compensation_failure: p.compensation_failure_probability,
            add_loan_rng: stream(seed, "saga/add-loan"),
            compensation_rng: stream(seed, "saga/compensation"),
            windows: Vec::with_capacity(p.random_requests.max(p.requests.len() as u64) as usize),
            pending: 0,
        }
    }

    /// Request r is over: note the world it leaves and start the next one.
    fn end(&mut self, r: usize, outcome: &'static str, queue: &mut EventQueue<Event>) {
        let req = &mut self.requests[r];
        req.outcome = outcome;
        req.book_status = self.world.book(req.book).map(|b| b.status);
        req.member_open = self.world.member(req.member).map(|m| m.open);
        if r + 1 < self.requests.len() {
            queue.schedule_in(self.step, 0, Event::MarkLoaned { r: r + 1 });
        }
    }

    fn fail(&mut self, r: usize, error: CallError, queue: &mut EventQueue<Event>) {
        self.requests[r].error = Some(error);
        match self.mode {
            Mode::NoCompensation => self.end(r, "failed", queue),
            Mode::Saga if self.requests[r].marked_at.is_some() => {
                // Compensate the completed step (mark loaned) in reverse.
                queue.schedule_in(self.step, 0, Event::Compensate { r });
            }
            Mode::Saga => self.end(r, "rolled_back", queue),
        }
    }

    fn output(self, entities_wanted: bool) -> Output<Metrics, RequestRow> {
        let count = |o: &str| self.requests.iter().filter(|r| r.outcome == o).count() as u64;
        let committed = count("completed");
        let orphaned = self
            .requests
            .iter()
            .filter(|r| r.outcome != "completed" && r.marked_at.is_some())
            .filter(|r| r.outcome != "rolled_back")
            .count() as u64;
        let metrics = Metrics {
            requests: self.requests.len() as u64,
            committed,
            failed: self.requests.len() as u64 - committed,
            rolled_back: count("rolled_back"),
            half_done: count("half_done"),
            pending_compensations: self.pending,
            orphaned,
            inconsistency_window_ms: (!self.windows.is_empty())
                .then(|| ns_to_ms(self.windows.iter().sum::<Nanos>()) / self.windows.len() as f64),
        };
        let entities = if !entities_wanted {
            Vec::new()
        } else {
            self.requests
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    (
                        (i + 1).to_string(),
                        RequestRow {
                            book: r.book,
                            member: r.member,
                            outcome: r.outcome.to_string(),
                            error: r.error.map_or(String::new(), |e| e.code().to_string()),
                            book_status: r
                                .book_status
                                .map_or(String::new(), |s| s.word().to_string()),
                            member_open: r.member_open,
                        },
                    )
                })
                .collect()
        };
        Output {
            metrics,
            entities,
            lanes: coordsim_model::Lanes::new(),
            distributions: Vec::new(),
        }
    }
}

impl Handler<Event> for Sim {
    fn handle(&mut self, event: Event, queue: &mut EventQueue<Event>) -> Result<(), SimError> {
        let now = queue.now();
        match event {
            Event::MarkLoaned { r } => match self.world.mark_loaned(self.requests[r].book) {
                Ok(()) => {
                    self.requests[r].marked_at = Some(now);
                    queue.schedule_in(self.step, 0, Event::AddLoan { r });
                }
                Err(e) => self.fail(r, e, queue),
            },
            Event::AddLoan { r } => {
                let injected = self.random && chance(&mut self.add_loan_rng, self.add_loan_failure);
                let result = if injected {
                    Err(CallError::Injected)
                } else {
                    self.world.add_loan(self.requests[r].member)
                };
                match result {
                    Ok(()) => self.end(r, "completed", queue),
                    Err(e) => self.fail(r, e, queue),
                }
            }
            Event::Compensate { r } => {
                let unreachable = self.unreachable
                    || (self.random
                        && chance(&mut self.compensation_rng, self.compensation_failure));
                match self.world.mark_shelved(self.requests[r].book, unreachable) {
                    Ok(()) => {
                        let marked = self.requests[r].marked_at.unwrap_or(now);
                        self.windows.push(now - marked);
                        self.end(r, "rolled_back", queue);
                    }
                    Err(_) => {
                        self.pending += 1;
                        self.end(r, "half_done", queue);
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(p: Params) -> Output<Metrics, RequestRow> {
        Saga.validate(&p).unwrap();
        coordsim_model::run_once(&Saga, p.clone(), 0, sim_core::Limits::default()).unwrap()
    }

    #[test]
    fn no_compensation_leaves_an_orphaned_loan() {
        // Book 1 → member 4 (2 of 3): both calls succeed. Book 2 → member 5 (3 of 3): book 2 is
        // marked, add loan fails at the limit, nothing puts the book back.
        let out = run_with(Params {
            mode: Mode::NoCompensation,
            requests: vec![(1, 4), (2, 5)],
            ..Params::default()
        });
        let m = &out.metrics;
        assert_eq!((m.committed, m.failed, m.orphaned), (1, 1, 1));
        let (first, second) = (&out.entities[0].1, &out.entities[1].1);
        assert_eq!(
            (
                first.outcome.as_str(),
                first.book_status.as_str(),
                first.member_open
            ),
            ("completed", "odunc", Some(3))
        );
        assert_eq!(
            (
                second.outcome.as_str(),
                second.error.as_str(),
                second.book_status.as_str()
            ),
            ("failed", "limit_reached", "odunc")
        );
        assert_eq!(m.inconsistency_window_ms, None);
    }

    #[test]
    fn the_saga_rolls_back_and_shows_the_window() {
        // Book 2 marked at 10, add loan fails at 20, compensation lands at 30: book 2 showed
        // odunc for 20 ms, two steps.
        let out = run_with(Params::default());
        let m = &out.metrics;
        assert_eq!(
            (m.rolled_back, m.orphaned, m.pending_compensations),
            (1, 0, 0)
        );
        assert_eq!(m.inconsistency_window_ms, Some(20.0));
        assert_eq!(out.entities[0].1.book_status, "rafta");
        assert_eq!(out.entities[0].1.member_open, Some(3));
    }

    #[test]
    fn a_failed_compensation_leaves_the_request_half_done() {
        let out = run_with(Params {
            catalog_unreachable: true,
            ..Params::default()
        });
        let m = &out.metrics;
        assert_eq!(
            (m.half_done, m.pending_compensations, m.orphaned),
            (1, 1, 1)
        );
        assert_eq!(out.entities[0].1.book_status, "odunc");
        assert_eq!(m.inconsistency_window_ms, None);
    }

    #[test]
    fn a_first_call_failure_has_nothing_to_compensate() {
        // Book 9 does not exist: the saga rolls back with nothing to undo.
        let out = run_with(Params {
            requests: vec![(9, 4)],
            ..Params::default()
        });
        assert_eq!(out.entities[0].1.outcome, "rolled_back");
        assert_eq!(out.entities[0].1.error, "no_such_book");
        assert_eq!(out.metrics.orphaned, 0);
    }

    proptest::proptest! {
        #[test]
        fn outcomes_add_up(
            n in 1u64..300,
            p in 0.0f64..=1.0,
            q in 0.0f64..=1.0,
            saga in proptest::bool::ANY,
            seed in 0u64..100,
        ) {
            let params = Params {
                mode: if saga { Mode::Saga } else { Mode::NoCompensation },
                random_requests: n,
                add_loan_failure_probability: p,
                compensation_failure_probability: q,
                ..Params::default()
            };
            let m = coordsim_model::run_once(&Saga, params.clone(), seed, sim_core::Limits::default()).unwrap().metrics;
            proptest::prop_assert_eq!(m.committed + m.failed, n);
            if saga {
                proptest::prop_assert_eq!(m.rolled_back + m.half_done, m.failed);
                // Only a failed compensation leaves a book orphaned.
                proptest::prop_assert_eq!(m.orphaned, m.half_done);
                proptest::prop_assert_eq!(m.pending_compensations, m.half_done);
            } else {
                // Fresh books are always on the shelf: every failure is after the mark.
                proptest::prop_assert_eq!(m.orphaned, m.failed);
            }
        }
    }
}
