//! `idempotency` (lesson 002): the same request run again. Assignment is idempotent; increment
//! and insert are not; a unique constraint, a derived counter, an idempotency key stored with
//! its response, or a consumer that records message ids make the repeats harmless.

use rustc_hash::{FxHashMap, FxHashSet};

use sim_core::{EventQueue, Handler, SimError, chance, run, stream};

use crate::library::{Book, Member, Status, World, lesson_books, lesson_members};
use coordsim_model::{ChartKind, DefaultChart, Model, ModelError, Output, RunContext, Valid};
use coordsim_model::{Cost, ParamError, probability};

choice! {
    /// The write being repeated.
    pub enum Form {
        /// `UPDATE kitap SET durumu = 'odunc' WHERE kitap_id = 1`
        Assign = "assign",
        /// `UPDATE uye SET acik_odunc = acik_odunc + 1`
        Increment = "increment",
        /// `INSERT INTO odunc …`
        Insert = "insert",
        /// the insert under UNIQUE (book, member, date) with ON CONFLICT DO NOTHING
        InsertUnique = "insert_unique",
        /// the unique insert, then counter = count of open loan rows
        DerivedCounter = "derived_counter",
        /// an idempotency key stored with the response, in the effect's transaction
        IdempotencyKey = "idempotency_key",
        /// a consumer that records message ids with the effect
        Consumer = "consumer",
    }
}

fn lesson_requests() -> Vec<(String, u64)> {
    let mut r = vec![("OD-7f21".to_string(), 1); 3];
    r.push(("OD-9c04".to_string(), 1));
    r
}

params! {
    /// Parameters of `idempotency`; defaults are lesson 002's.
    pub struct Params {
        /// `assign`, `increment`, `insert`, `insert_unique`, `derived_counter`, `idempotency_key` or `consumer`
        form: Form = Form::Increment,
        /// times the same request runs (the first five forms)
        repeats: u64 = 3,
        /// `increment`: the counter's start
        initial_counter: u64 = 0,
        /// `idempotency_key`: `[key, book]` pairs, for member 4
        requests: Vec<(String, u64)> = lesson_requests(),
        /// `consumer`: message ids delivered to a deduplicating consumer, for member 6
        deliveries: Vec<u64> = vec![1, 1, 2],
        /// random variant: each response is lost with this probability and the client retries
        response_loss_probability: f64 = 0.0,
        /// random variant: most retries after lost responses (with either above 0, each request runs once plus its retries, instead of `repeats`)
        max_retries: u64 = 0,
        /// the catalog's books
        books: Vec<Book> = lesson_books(),
        /// the members
        members: Vec<Member> = lesson_members(),
    }
}

columns! {
    /// Metrics of one run.
    pub struct Metrics {
        /// calls made (repeats and retries included)
        calls: u64,
        /// rows the database reports changed by the form's own statement, summed (an UPDATE counts matched rows; a conflicting insert 0; `derived_counter`: the counter update, 1 per call)
        changes: u64,
        /// assign 1; increment, insert: one per call; insert_unique, derived_counter: rows that exist; idempotency_key: loans made; consumer: ids applied
        effects: u64,
        /// the counter or row count (empty for assign)
        final_value: Option<u64>,
        /// effects beyond one per distinct request
        duplicate_effects: u64,
        /// calls answered from a stored response
        replayed: u64,
        /// idempotency keys stored
        stored_keys: u64,
        /// first-time answers that granted a loan
        granted: u64,
        /// first-time answers that rejected it
        rejected: u64,
        /// `derived_counter`: rows changed by its unique insert, counted apart from `changes` (empty for the other forms)
        insert_changes: Option<u64>,
    }
}

columns! {
    /// One call's row (entity = call index from 1).
    pub struct CallRow {
        /// the request's key or message id (empty for the plain forms)
        key: String,
        /// rows changed by this call's own statement (`derived_counter`: the counter update)
        changes: u64,
        /// `derived_counter`: rows changed by this call's unique insert
        insert_changes: Option<u64>,
        /// 1 when this call made a new effect
        new_effect: bool,
        /// `granted`, `rejected` or empty
        response: String,
        /// the loan id in the response
        loan_id: Option<u64>,
        /// 1 when the stored response was replayed
        replayed: bool,
        /// the counter or row count after the call
        value: Option<u64>,
    }
}

/// The model.
pub struct Idempotency;

/// Most calls in one run: each call's entity row takes about 150 bytes (1.5 GB at the limit;
/// `entities = false` keeps only counters).
const MAX_CALLS: u64 = 10_000_000;

impl Model for Idempotency {
    fn name(&self) -> &'static str {
        "idempotency"
    }
    fn param_meaning(&self, key: &str, language: &str) -> Option<&'static str> {
        crate::turkish::param_meaning(self.name(), key, language)
    }
    fn summary(&self) -> &'static str {
        "the same request run again: which writes are idempotent, and unique constraints, derived counters, idempotency keys and deduplicating consumers (lesson 002)"
    }
    fn charts(&self) -> Vec<DefaultChart> {
        vec![DefaultChart {
            name: "effects-per-form",
            x: "form",
            y: &["calls", "effects", "duplicate_effects"],
            kind: ChartKind::Bar,
            mark_x: None,
            mark_y: None,
        }]
    }
    type Params = Params;
    type Metrics = Metrics;
    type Entity = CallRow;

    fn cost(&self, p: &Params) -> Cost {
        let calls = (p.requests.len() as u64)
            .saturating_add(p.deliveries.len() as u64)
            .saturating_add(p.repeats)
            .saturating_mul(p.max_retries.saturating_add(1));
        Cost {
            events: calls.saturating_mul(4),
            memory_bytes: calls.saturating_mul(200),
            entity_rows: calls,
            driven_by: "repeats".into(),
            point_bytes: 0,
            ..Cost::default()
        }
    }

    fn validate(&self, p: &Params) -> Result<(), ParamError> {
        probability("response_loss_probability", p.response_loss_probability)?;
        let logical = match p.form {
            Form::IdempotencyKey => p.requests.len() as u64,
            Form::Consumer => p.deliveries.len() as u64,
            _ => p.repeats,
        };
        if logical.saturating_mul(1 + p.max_retries) > MAX_CALLS {
            return Err(ParamError::new(
                "repeats",
                format!("at most {MAX_CALLS} calls per run"),
            ));
        }
        Ok(())
    }

    fn run(
        &self,
        p: &Valid<Params>,
        ctx: &RunContext,
    ) -> Result<Output<Metrics, CallRow>, ModelError> {
        let seed = ctx.seed();
        let mut sim = Sim::new(p, seed);
        sim.keep_rows = ctx.wants_entities();
        let mut queue = ctx.queue(2);
        if !sim.plan.is_empty() {
            queue.schedule_at(0, 0, Event::Call { i: 0, attempt: 0 });
        }
        run(&mut queue, &mut sim)?;
        Ok(sim.output())
    }
}

#[derive(Debug, Clone, Copy)]
enum Event {
    /// Logical request i, its attempt-th call (0 = the first).
    Call { i: usize, attempt: u64 },
}

/// One logical request: its key (or message id) and book.
struct Planned {
    key: String,
    book: u64,
    /// `consumer`: the message id.
    id: u64,
}

/// Calls are 1 ms apart in virtual time: they run one after another.
const CALL_GAP_NS: u64 = 1_000_000;
/// `consumer` acts for member 6 (lesson 002); `idempotency_key` lends to member 4, whose count
/// the lesson does not track.
const CONSUMER_MEMBER: u64 = 6;

struct Sim {
    form: Form,
    plan: Vec<Planned>,
    random: bool,
    loss: f64,
    max_retries: u64,
    loss_rng: sim_core::Stream,
    world: World,
    counter: u64,
    /// Loan rows: (book, member, key) for the forms that insert.
    loan_rows: u64,
    unique_row: bool,
    /// Stored idempotency keys: the response and loan each one got (looked up, never scanned).
    keys: FxHashMap<String, (&'static str, Option<u64>)>,
    seen_ids: FxHashSet<u64>,
    rows: Vec<(String, CallRow)>,
    /// Keep the rows (entity rows wanted); the tally is kept either way.
    keep_rows: bool,
    tally: Tally,
}

/// What the metrics need of the calls, counted as they happen (the rows may not be kept).
#[derive(Debug, Default)]
struct Tally {
    calls: u64,
    new_effects: u64,
    changes: u64,
    insert_changes: u64,
    replayed: u64,
    granted: u64,
    rejected: u64,
}

impl Sim {
    fn new(p: &Params, seed: u64) -> Self {
        let random = p.response_loss_probability > 0.0 || p.max_retries > 0;
        let plan = match p.form {
            Form::IdempotencyKey => p
                .requests
                .iter()
                .map(|(k, b)| Planned {
                    key: k.clone(),
                    book: *b,
                    id: 0,
                })
                .collect(),
            Form::Consumer => p
                .deliveries
                .iter()
                .map(|&id| Planned {
                    key: id.to_string(),
                    book: 0,
                    id,
                })
                .collect(),
            // The same request: `repeats` runs, or one request and its retries.
            _ => (0..if random { 1 } else { p.repeats })
                .map(|_| Planned {
                    key: String::new(),
                    book: 1,
                    id: 0,
                })
                .collect(),
        };
        let mut sim = Sim {
            form: p.form,
            plan,
            random,
            loss: p.response_loss_probability,
            max_retries: p.max_retries,
            loss_rng: stream(seed, "idempotency/response-loss"),
            world: World::new(&p.books, &p.members),
            counter: p.initial_counter,
            loan_rows: 0,
            unique_row: false,
            keys: FxHashMap::default(),
            seen_ids: FxHashSet::default(),
            rows: Vec::new(),
            keep_rows: true,
            tally: Tally::default(),
        };
        // Room for every key or id up front: no rehash while the run goes.
        match sim.form {
            Form::IdempotencyKey => sim.keys.reserve(sim.plan.len()),
            Form::Consumer => sim.seen_ids.reserve(sim.plan.len()),
            _ => {}
        }
        sim
    }

    /// One call of request `i`; returns its row.
    fn call(&mut self, i: usize) -> CallRow {
        let book = self.plan[i].book;
        let mut row = CallRow {
            // The row is kept only when entity rows are wanted: no copy of the key otherwise.
            key: if self.keep_rows {
                self.plan[i].key.clone()
            } else {
                String::new()
            },
            changes: 0,
            insert_changes: None,
            new_effect: false,
            response: String::new(),
            loan_id: None,
            replayed: false,
            value: None,
        };
        match self.form {
            Form::Assign => {
                // Matched rows count even when the value does not change.
                if let Some(b) = self.world.book_mut(book) {
                    row.new_effect = b.status != Status::Loan;
                    b.status = Status::Loan;
                    row.changes = 1;
                }
            }
            Form::Increment => {
                self.counter += 1;
                row.changes = 1;
                row.new_effect = true;
                row.value = Some(self.counter);
            }
            Form::Insert => {
                self.loan_rows += 1;
                row.changes = 1;
                row.new_effect = true;
                row.value = Some(self.loan_rows);
            }
            Form::InsertUnique | Form::DerivedCounter => {
                let inserted = !self.unique_row;
                self.unique_row = true;
                row.changes = u64::from(inserted);
                row.new_effect = inserted;
                if self.form == Form::DerivedCounter {
                    // counter = count of open loan rows: one matched row, whatever its value.
                    // `changes` is that update's; the insert is counted apart.
                    self.counter = u64::from(self.unique_row);
                    row.insert_changes = Some(row.changes);
                    row.changes = 1;
                    row.value = Some(self.counter);
                } else {
                    row.value = Some(u64::from(self.unique_row));
                }
            }
            Form::IdempotencyKey => {
                if let Some((response, loan)) = self.keys.get(&self.plan[i].key) {
                    // Seen: replay the stored response; the transaction rolls back.
                    row.response = response.to_string();
                    row.loan_id = *loan;
                    row.replayed = true;
                } else {
                    // One transaction: the effect, the key and the response.
                    let (response, loan) = match self.world.mark_loaned(book) {
                        Ok(()) => {
                            self.loan_rows += 1;
                            row.changes += 2; // the status update and the loan row
                            row.new_effect = true;
                            ("granted", Some(self.loan_rows))
                        }
                        Err(_) => ("rejected", None),
                    };
                    row.changes += 1; // the key row
                    self.keys.insert(self.plan[i].key.clone(), (response, loan));
                    row.response = response.to_string();
                    row.loan_id = loan;
                }
                row.value = Some(self.loan_rows);
            }
            Form::Consumer => {
                if self.seen_ids.insert(self.plan[i].id) {
                    // The id and the effect commit together; no limit check.
                    let _ = self.world.add_loan_unchecked(CONSUMER_MEMBER);
                    row.changes = 2;
                    row.new_effect = true;
                }
                row.value = self.world.member(CONSUMER_MEMBER).map(|m| m.open);
            }
        }
        row
    }

    fn output(self) -> Output<Metrics, CallRow> {
        let t = &self.tally;
        let (calls, new_effects) = (t.calls, t.new_effects);
        let effects = match self.form {
            // The status ends `odunc` however many times it runs: one effect.
            Form::Assign => u64::from(calls > 0),
            Form::Increment | Form::Insert => calls,
            Form::InsertUnique | Form::DerivedCounter => u64::from(self.unique_row),
            Form::IdempotencyKey | Form::Consumer => new_effects,
        };
        // Distinct requests: one for the repeated forms, one per key or message id.
        let distinct = match self.form {
            Form::IdempotencyKey | Form::Consumer => {
                let mut keys: Vec<&str> = self.plan.iter().map(|r| r.key.as_str()).collect();
                keys.sort_unstable();
                keys.dedup();
                keys.len() as u64
            }
            _ => u64::from(calls > 0),
        };
        let final_value = match self.form {
            Form::Assign => None,
            Form::Increment | Form::DerivedCounter => Some(self.counter),
            Form::Insert | Form::IdempotencyKey => Some(self.loan_rows),
            Form::InsertUnique => Some(u64::from(self.unique_row)),
            Form::Consumer => self.world.member(CONSUMER_MEMBER).map(|m| m.open),
        };
        let metrics = Metrics {
            calls,
            changes: t.changes,
            effects,
            final_value,
            duplicate_effects: effects.saturating_sub(distinct),
            replayed: t.replayed,
            stored_keys: self.keys.len() as u64,
            granted: t.granted,
            rejected: t.rejected,
            insert_changes: (self.form == Form::DerivedCounter).then_some(t.insert_changes),
        };
        Output {
            metrics,
            entities: self.rows,
            lanes: coordsim_model::Lanes::new(),
            distributions: Vec::new(),
        }
    }
}

impl Handler<Event> for Sim {
    fn handle(&mut self, event: Event, queue: &mut EventQueue<Event>) -> Result<(), SimError> {
        let Event::Call { i, attempt } = event;
        let row = self.call(i);
        let t = &mut self.tally;
        t.calls += 1;
        t.new_effects += u64::from(row.new_effect);
        t.changes += row.changes;
        t.insert_changes += row.insert_changes.unwrap_or(0);
        t.replayed += u64::from(row.replayed);
        // Responses given the first time (not replayed from a stored key).
        if !row.replayed {
            t.granted += u64::from(row.response == "granted");
            t.rejected += u64::from(row.response == "rejected");
        }
        if self.keep_rows {
            self.rows.push((t.calls.to_string(), row));
        }
        // Random variant: a lost response makes the client call again, up to max_retries.
        let lost = self.random && chance(&mut self.loss_rng, self.loss);
        if lost && attempt < self.max_retries {
            queue.schedule_in(
                CALL_GAP_NS,
                0,
                Event::Call {
                    i,
                    attempt: attempt + 1,
                },
            );
        } else if i + 1 < self.plan.len() {
            queue.schedule_in(
                CALL_GAP_NS,
                0,
                Event::Call {
                    i: i + 1,
                    attempt: 0,
                },
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_form(form: Form) -> Output<Metrics, CallRow> {
        let p = Params {
            form,
            ..Params::default()
        };
        Idempotency.validate(&p).unwrap();
        coordsim_model::run_once(&Idempotency, p.clone(), 0, sim_core::Limits::default()).unwrap()
    }

    fn per_call(out: &Output<Metrics, CallRow>) -> Vec<u64> {
        out.entities.iter().map(|(_, r)| r.changes).collect()
    }

    #[test]
    fn three_runs_of_the_plain_writes() {
        // Lesson 002: status odunc, counter 3, 3 loan rows.
        let assign = run_form(Form::Assign);
        assert_eq!(
            (
                assign.metrics.effects,
                assign.metrics.final_value,
                assign.metrics.duplicate_effects
            ),
            (1, None, 0)
        );
        assert_eq!(per_call(&assign), [1, 1, 1]); // matched rows, though the value stays
        let increment = run_form(Form::Increment);
        assert_eq!(
            (
                increment.metrics.final_value,
                increment.metrics.duplicate_effects
            ),
            (Some(3), 2)
        );
        let insert = run_form(Form::Insert);
        assert_eq!(
            (insert.metrics.final_value, insert.metrics.effects),
            (Some(3), 3)
        );
    }

    #[test]
    fn the_idempotent_forms_change_1_then_0() {
        // insert_unique: 1, 0, 0 (conflicts count 0); derived_counter's update: 1, 1, 1.
        let unique = run_form(Form::InsertUnique);
        assert_eq!(per_call(&unique), [1, 0, 0]);
        assert_eq!(
            (unique.metrics.final_value, unique.metrics.duplicate_effects),
            (Some(1), 0)
        );
        let derived = run_form(Form::DerivedCounter);
        // `changes` is the counter update's, 1 per round as the lesson prints; the unique
        // insert (1, then conflicts: 0, 0) is counted apart.
        assert_eq!(per_call(&derived), [1, 1, 1]);
        let inserts: Vec<Option<u64>> = derived
            .entities
            .iter()
            .map(|(_, r)| r.insert_changes)
            .collect();
        assert_eq!(inserts, [Some(1), Some(0), Some(0)]);
        assert_eq!(derived.metrics.changes, 3);
        assert_eq!(derived.metrics.insert_changes, Some(1));
        assert_eq!(derived.metrics.final_value, Some(1));
        assert_eq!(unique.metrics.insert_changes, None);
    }

    #[test]
    fn an_idempotency_key_replays_and_stores_rejections() {
        // OD-7f21 ×3 then OD-9c04, all for book 1: one loan (id 1); calls 2 and 3 replay it;
        // the 4th is rejected (book 1 is on loan) and its rejection is stored: 2 key rows.
        let out = run_form(Form::IdempotencyKey);
        let m = &out.metrics;
        assert_eq!(
            (m.calls, m.effects, m.final_value, m.replayed),
            (4, 1, Some(1), 2)
        );
        assert_eq!(
            (m.stored_keys, m.granted, m.rejected, m.duplicate_effects),
            (2, 1, 1, 0)
        );
        let loans: Vec<Option<u64>> = out.entities.iter().map(|(_, r)| r.loan_id).collect();
        assert_eq!(loans, [Some(1), Some(1), Some(1), None]);
        assert_eq!(out.entities[3].1.response, "rejected");
    }

    #[test]
    fn the_deduplicating_consumer_skips_a_repeat() {
        // Deliveries 1, 1, 2 for member 6 (open 0): 1 → 1, skipped, 2 → 2.
        let out = run_form(Form::Consumer);
        let values: Vec<Option<u64>> = out.entities.iter().map(|(_, r)| r.value).collect();
        assert_eq!(values, [Some(1), Some(1), Some(2)]);
        assert_eq!((out.metrics.effects, out.metrics.final_value), (2, Some(2)));
        assert_eq!(out.entities[1].1.changes, 0);
    }

    proptest::proptest! {
        #[test]
        fn retries_duplicate_only_the_non_idempotent_forms(
            loss in 0.0f64..1.0,
            retries in 0u64..20,
            seed in 0u64..200,
        ) {
            for form in [Form::Increment, Form::InsertUnique, Form::DerivedCounter, Form::IdempotencyKey] {
                let p = Params { form, response_loss_probability: loss, max_retries: retries, ..Params::default() };
                let m = coordsim_model::run_once(&Idempotency, p.clone(), seed, sim_core::Limits::default()).unwrap().metrics;
                match form {
                    // Every retry is one more increment.
                    Form::Increment => proptest::prop_assert_eq!(m.duplicate_effects, m.calls - 1),
                    _ => proptest::prop_assert_eq!(m.duplicate_effects, 0),
                }
                proptest::prop_assert!(m.calls <= 4 * (1 + retries));
            }
        }
    }
}
