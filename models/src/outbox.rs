//! `outbox` (lessons 004 and 002): the catalog writes the loan and its message in one
//! transaction; a relay delivers pending messages and marks them sent. A relay that dies between
//! delivering and marking delivers again: at-least-once delivery, duplicated effects unless the
//! consumer deduplicates by message id.

use std::collections::BTreeSet;

use sim_core::{EventQueue, Handler, Nanos, SimError, chance, run, stream};

use crate::library::{Book, Member, Status, World, lesson_books, lesson_members};
use coordsim_model::Value;
use coordsim_model::{ChartKind, DefaultChart, Model, ModelError, Output, RunContext, Valid};
use coordsim_model::{Cost, Kind, ListItem, Millis, ParamError, field, table_fields};

choice! {
    /// What the consumer does with a delivery.
    pub enum Consumer {
        /// Every delivery runs *add loan*.
        Plain = "plain",
        /// The message id is recorded with the effect; a seen id is skipped.
        Dedup = "dedup",
    }
}

/// One scripted relay run: it dies after its `crash_after`-th delivery, before marking it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelayRun {
    /// Deliveries after which the run dies (`None`: it runs to the end).
    pub crash_after: Option<u64>,
}

impl ListItem for RelayRun {
    const LIST_KIND: Kind = Kind::Tables("crash_after (optional)");
    fn list_from_value(value: &Value) -> Result<Vec<Self>, String> {
        let Value::List(items) = value else {
            return Err(format!(
                "expected an array of relay runs, got {}",
                value.type_name()
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let t = table_fields("relay_runs", i, item, &["crash_after"])?;
                let crash_after = match field(t, "crash_after") {
                    None => None,
                    Some(Value::Int(n)) if *n >= 1 => Some(*n as u64),
                    Some(_) => {
                        return Err(format!(
                            "relay_runs[{i}]: crash_after must be an integer ≥ 1"
                        ));
                    }
                };
                Ok(RelayRun { crash_after })
            })
            .collect()
    }
    fn list_to_value(list: &[Self]) -> Value {
        Value::List(
            list.iter()
                .map(|r| {
                    Value::Table(match r.crash_after {
                        Some(n) => vec![("crash_after".into(), Value::Int(n as i64))],
                        None => Vec::new(),
                    })
                })
                .collect(),
        )
    }
}

params! {
    /// Parameters of `outbox`; defaults are lesson 004's crashed relay.
    pub struct Params {
        /// `[book, member]`: each marks the book loaned and writes an outbox row in one transaction (nothing when the book is not on the shelf)
        loans: Vec<(u64, u64)> = vec![(3, 6)],
        /// successive relay runs; `crash_after = n`: the run dies after its n-th delivery, before marking it
        relay_runs: Vec<RelayRun> = vec![RelayRun { crash_after: Some(1) }, RelayRun { crash_after: None }],
        /// `plain` (every delivery applies) or `dedup` (a seen message id is skipped)
        consumer: Consumer = Consumer::Plain,
        /// random variant: each delivery is followed by a crash with this probability; the relay then restarts and runs until nothing is pending
        crash_probability: f64 = 0.0,
        /// random variant: the relay restarts this long after a crash (scripted runs are this far apart too)
        restart_ms: Millis = Millis::lit(1000.0),
        /// random variant: this many loans of fresh books to a fresh member without a limit (replaces `loans`)
        random_loans: u64 = 0,
        /// the catalog's books
        books: Vec<Book> = lesson_books(),
        /// the members
        members: Vec<Member> = lesson_members(),
    }
}

columns! {
    /// Metrics of one run.
    pub struct Metrics {
        /// loans tried
        writes: u64,
        /// outbox rows written
        messages: u64,
        /// deliveries the consumer accepted (a delivery whose add loan fails does not count)
        deliveries: u64,
        /// deliveries of a message beyond its first
        duplicate_deliveries: u64,
        /// effects applied (add loan ran)
        effects_applied: u64,
        /// effects beyond the first per message
        duplicate_effects: u64,
        /// rows still `bekliyor` at the end
        outbox_pending: u64,
        /// messages never applied
        lost_messages: u64,
        /// relay runs (scripted, or until nothing is pending)
        relay_runs_made: u64,
    }
}

columns! {
    /// A member's row (entity = member id) or a message's row (entity = `m<id>`).
    pub struct Row {
        /// member: open loans at the end
        open: Option<u64>,
        /// message: `bekliyor` or `gonderildi`
        status: String,
        /// message: deliveries
        deliveries: Option<u64>,
        /// message: effects applied
        effects: Option<u64>,
    }
}

/// The model.
pub struct Outbox;

/// Most loans in one run: each takes about 80 bytes of state and 150 of entity row
/// (`entities = false` keeps only the state).
const MAX_LOANS: u64 = 10_000_000;
/// Most relay runs of the random variant before the run stops with an error.
const MAX_RELAY_RUNS: u64 = 10_000_000;
/// Ids of the random variant's fresh books and member start here.
const FRESH_ID: u64 = 1_000_000_000;

impl Model for Outbox {
    fn name(&self) -> &'static str {
        "outbox"
    }
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        crate::turkish::param_meaning(self.name(), key, language)
    }
    fn summary(&self) -> &'static str {
        "state change and message in one transaction, a relay that may die before marking: at-least-once delivery and its duplicates (lessons 004, 002)"
    }
    fn charts(&self) -> Vec<DefaultChart> {
        vec![DefaultChart {
            name: "deliveries-and-effects",
            x: "consumer",
            y: &[
                "messages",
                "deliveries",
                "effects_applied",
                "duplicate_effects",
            ],
            kind: ChartKind::Bar,
            mark_x: None,
            mark_y: None,
        }]
    }
    type Params = Params;
    type Metrics = Metrics;
    type Entity = Row;

    fn cost(&self, p: &Params) -> Cost {
        let n = (p.loans.len() as u64).saturating_add(p.random_loans);
        Cost {
            events: n
                .saturating_mul(16)
                .saturating_add(p.relay_runs.len() as u64 * 4),
            memory_bytes: n.saturating_mul(300),
            entity_rows: n.saturating_mul(2),
            driven_by: (if p.random_loans > 0 {
                "random_loans"
            } else {
                "loans"
            })
            .into(),
            point_bytes: 0,
            ..Cost::default()
        }
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        if !(0.0..1.0).contains(&p.crash_probability) {
            return Err(ParamError::new(
                "crash_probability",
                format!(
                    "must be in [0, 1) (a relay that always crashes never finishes), got {}",
                    p.crash_probability
                ),
            ));
        }
        if p.random_loans > MAX_LOANS || p.loans.len() as u64 > MAX_LOANS {
            return Err(ParamError::new(
                "random_loans",
                format!("at most {MAX_LOANS} loans per run"),
            ));
        }
        Ok(())
    }

    fn run(&self, p: &Valid<Params>, ctx: &RunContext) -> Result<Output<Metrics, Row>, ModelError> {
        let seed = ctx.seed();
        let mut sim = Sim::new(p, seed);
        let mut queue = ctx.queue(4);
        queue.schedule_at(0, 0, Event::Write { i: 0 });
        run(&mut queue, &mut sim)?;
        Ok(sim.output(ctx.wants_entities()))
    }
}

#[derive(Debug, Clone, Copy)]
enum Event {
    /// Loan i: mark loaned and write its outbox row in one transaction.
    Write { i: usize },
    /// Relay run k starts: it takes the pending rows in id order.
    RelayStart { k: u64 },
    /// Relay run k delivers row `m`, the `pos`-th (0-based) of its run.
    Deliver { k: u64, m: usize, pos: u64 },
}

struct Message {
    member: u64,
    sent: bool,
    deliveries: u64,
    effects: u64,
}

struct Sim {
    world: World,
    loans: Vec<(u64, u64)>,
    messages: Vec<Message>,
    consumer: Consumer,
    seen: Vec<bool>,
    scripted: Vec<RelayRun>,
    random: bool,
    crash_probability: f64,
    crash_rng: sim_core::Stream,
    restart: Nanos,
    /// Rows not yet marked sent, in id order. A run walks it from the front: rows only leave
    /// it (marked by the run at them), so the walk sees exactly the rows pending at the run's
    /// start, and a run costs the rows it reaches, not all pending rows.
    pending: BTreeSet<usize>,
    runs_made: u64,
}

impl Sim {
    fn new(p: &Params, seed: u64) -> Self {
        let mut world = World::new(&p.books, &p.members);
        let random = p.random_loans > 0 || p.crash_probability > 0.0;
        world.reserve(p.random_loans as usize, 1);
        let loans = if p.random_loans > 0 {
            world.add_member(Member {
                id: FRESH_ID,
                open: 0,
                limit: u64::MAX,
            });
            (0..p.random_loans)
                .map(|i| {
                    world.add_book(Book {
                        id: FRESH_ID + i,
                        status: Status::Shelf,
                    });
                    (FRESH_ID + i, FRESH_ID)
                })
                .collect()
        } else {
            p.loans.clone()
        };
        let n = loans.len();
        Sim {
            world,
            loans,
            messages: Vec::with_capacity(n),
            consumer: p.consumer,
            seen: Vec::with_capacity(n),
            scripted: p.relay_runs.clone(),
            random,
            crash_probability: p.crash_probability,
            crash_rng: stream(seed, "outbox/relay-crash"),
            restart: p.restart_ms.ns(),
            pending: BTreeSet::new(),
            runs_made: 0,
        }
    }

    /// Whether relay run k happens at all.
    fn has_run(&self, k: u64) -> bool {
        if self.random {
            !self.pending.is_empty()
        } else {
            (k as usize) < self.scripted.len()
        }
    }

    /// The next run starts `restart_ms` after this one ended.
    fn next_run(&mut self, k: u64, queue: &mut EventQueue<Event>) -> Result<(), SimError> {
        if self.has_run(k + 1) {
            if k + 1 >= MAX_RELAY_RUNS {
                return Err(SimError::Model(format!(
                    "the relay ran {MAX_RELAY_RUNS} times without delivering everything"
                )));
            }
            queue.schedule_in(self.restart, 0, Event::RelayStart { k: k + 1 });
        }
        Ok(())
    }

    fn output(self, entities_wanted: bool) -> Output<Metrics, Row> {
        let deliveries: u64 = self.messages.iter().map(|m| m.deliveries).sum();
        let effects: u64 = self.messages.iter().map(|m| m.effects).sum();
        let metrics = Metrics {
            writes: self.loans.len() as u64,
            messages: self.messages.len() as u64,
            deliveries,
            duplicate_deliveries: self
                .messages
                .iter()
                .map(|m| m.deliveries.saturating_sub(1))
                .sum(),
            effects_applied: effects,
            duplicate_effects: self
                .messages
                .iter()
                .map(|m| m.effects.saturating_sub(1))
                .sum(),
            outbox_pending: self.pending.len() as u64,
            lost_messages: self.messages.iter().filter(|m| m.effects == 0).count() as u64,
            relay_runs_made: self.runs_made,
        };
        // Members first (the lesson's world, then any fresh one), then messages.
        if !entities_wanted {
            return Output::new(metrics);
        }
        let mut entities: Vec<(String, Row)> = self
            .world
            .members()
            .iter()
            .map(|m| {
                (
                    m.id.to_string(),
                    Row {
                        open: Some(m.open),
                        status: String::new(),
                        deliveries: None,
                        effects: None,
                    },
                )
            })
            .collect();
        entities.extend(self.messages.iter().enumerate().map(|(i, m)| {
            (
                format!("m{}", i + 1),
                Row {
                    open: None,
                    status: if m.sent { "gonderildi" } else { "bekliyor" }.to_string(),
                    deliveries: Some(m.deliveries),
                    effects: Some(m.effects),
                },
            )
        }));
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
        match event {
            Event::Write { i } => {
                let (book, member) = self.loans[i];
                // One transaction: the mark and the row commit together, or neither does.
                if self.world.mark_loaned(book).is_ok() {
                    self.messages.push(Message {
                        member,
                        sent: false,
                        deliveries: 0,
                        effects: 0,
                    });
                    self.seen.push(false);
                    self.pending.insert(self.messages.len() - 1);
                }
                if i + 1 < self.loans.len() {
                    queue.schedule_in(0, 0, Event::Write { i: i + 1 });
                } else if self.has_run(0) {
                    queue.schedule_in(0, 0, Event::RelayStart { k: 0 });
                }
            }
            Event::RelayStart { k } => {
                self.runs_made += 1;
                let Some(&m) = self.pending.first() else {
                    return self.next_run(k, queue);
                };
                queue.schedule_in(0, 0, Event::Deliver { k, m, pos: 0 });
            }
            Event::Deliver { k, m, pos } => {
                let member = self.messages[m].member;
                let duplicate = self.consumer == Consumer::Dedup && self.seen[m];
                if !duplicate {
                    // The effect (and, for dedup, the id) commit together; a failed add loan
                    // aborts the run and leaves the row pending.
                    if self.world.add_loan(member).is_err() {
                        return self.next_run(k, queue);
                    }
                    self.seen[m] = true;
                    self.messages[m].effects += 1;
                }
                self.messages[m].deliveries += 1;
                let crashes = if self.random {
                    chance(&mut self.crash_rng, self.crash_probability)
                } else {
                    self.scripted[k as usize].crash_after == Some(pos + 1)
                };
                if crashes {
                    // Dies after delivering, before marking the row sent.
                    return self.next_run(k, queue);
                }
                self.messages[m].sent = true;
                self.pending.remove(&m);
                match self.pending.range(m + 1..).next() {
                    Some(&next) => queue.schedule_in(
                        0,
                        0,
                        Event::Deliver {
                            k,
                            m: next,
                            pos: pos + 1,
                        },
                    ),
                    None => return self.next_run(k, queue),
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(p: Params) -> Output<Metrics, Row> {
        Outbox.validate(&p).unwrap();
        coordsim_model::run_once(&Outbox, p.clone(), 0, sim_core::Limits::default()).unwrap()
    }

    fn entity<'a>(out: &'a Output<Metrics, Row>, name: &str) -> &'a Row {
        &out.entities.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn a_crash_before_marking_delivers_twice() {
        // Book 3 → member 6: row m1. Run 1 delivers m1 (member 6: 0 → 1) and dies before
        // marking; run 2 finds m1 pending, delivers again (1 → 2) and marks it sent.
        let out = run_with(Params::default());
        let m = &out.metrics;
        assert_eq!(
            (m.writes, m.messages, m.deliveries, m.duplicate_deliveries),
            (1, 1, 2, 1)
        );
        assert_eq!(
            (
                m.effects_applied,
                m.duplicate_effects,
                m.outbox_pending,
                m.lost_messages
            ),
            (2, 1, 0, 0)
        );
        assert_eq!(entity(&out, "6").open, Some(2));
        assert_eq!(entity(&out, "m1").status, "gonderildi");
    }

    #[test]
    fn the_deduplicating_consumer_applies_once() {
        let out = run_with(Params {
            consumer: Consumer::Dedup,
            ..Params::default()
        });
        assert_eq!(out.metrics.effects_applied, 1);
        assert_eq!(out.metrics.duplicate_effects, 0);
        assert_eq!(out.metrics.deliveries, 2);
        assert_eq!(entity(&out, "6").open, Some(1));
    }

    #[test]
    fn a_book_not_on_the_shelf_writes_no_message() {
        let out = run_with(Params {
            loans: vec![(3, 6), (3, 4)],
            ..Params::default()
        });
        assert_eq!((out.metrics.writes, out.metrics.messages), (2, 1));
    }

    #[test]
    fn a_failing_add_loan_leaves_the_row_pending() {
        // Member 5 is at its limit: the delivery fails, aborts the run and does not count.
        let out = run_with(Params {
            loans: vec![(1, 5)],
            ..Params::default()
        });
        let m = &out.metrics;
        assert_eq!(
            (m.messages, m.deliveries, m.outbox_pending, m.lost_messages),
            (1, 0, 1, 1)
        );
        assert_eq!(entity(&out, "m1").status, "bekliyor");
    }

    proptest::proptest! {
        #[test]
        fn dedup_applies_each_message_once_and_nothing_is_lost(
            n in 1u64..200,
            p in 0.0f64..0.95,
            dedup in proptest::bool::ANY,
            seed in 0u64..100,
        ) {
            let params = Params {
                random_loans: n,
                crash_probability: p,
                consumer: if dedup { Consumer::Dedup } else { Consumer::Plain },
                ..Params::default()
            };
            let out = coordsim_model::run_once(&Outbox, params.clone(), seed, sim_core::Limits::default()).unwrap();
            let m = &out.metrics;
            // The relay runs until nothing is pending: every committed message is applied.
            proptest::prop_assert_eq!(m.messages, n);
            proptest::prop_assert_eq!(m.outbox_pending, 0);
            proptest::prop_assert_eq!(m.lost_messages, 0);
            // A message is delivered again exactly when a crash hit it before its mark.
            proptest::prop_assert_eq!(m.deliveries, m.messages + m.duplicate_deliveries);
            if dedup {
                // Effects = distinct messages delivered, whatever the crashes.
                proptest::prop_assert_eq!(m.effects_applied, m.messages);
                proptest::prop_assert_eq!(m.duplicate_effects, 0);
            } else {
                proptest::prop_assert_eq!(m.effects_applied, m.deliveries);
            }
        }
    }
}
