//! Scenarios that deliver (issue 22): the library world of lessons 002 and 004 in key
//! stores, messages on queues, transactions — and `outbox`, `idempotency` and `saga` in
//! scenario form, equal to the built-in models on random parameters. Each scenario form runs
//! held to its own up-front estimate of events, so the estimate is checked an upper bound
//! on every one.

use proptest::prelude::*;

use super::{num, run_text, run_within_estimate};

/// The library world: books (id, on the shelf) and members (id, open loans, limit), with
/// distinct ids.
#[derive(Debug, Clone)]
pub struct World {
    pub books: Vec<(u64, bool)>,
    pub members: Vec<(u64, u64, u64)>,
}

impl World {
    /// The built-in models' `books` and `members` parameters.
    pub fn params(&self) -> String {
        let books: Vec<String> = self
            .books
            .iter()
            .map(|(id, shelf)| {
                format!(
                    "{{ id = {id}, status = \"{}\" }}",
                    if *shelf { "rafta" } else { "odunc" }
                )
            })
            .collect();
        let members: Vec<String> = self
            .members
            .iter()
            .map(|(id, open, limit)| format!("{{ id = {id}, open = {open}, limit = {limit} }}"))
            .collect();
        format!(
            "books = [{}]\nmembers = [{}]\n",
            books.join(", "),
            members.join(", ")
        )
    }

    /// The world as key stores: `shelf` (the books on the shelf), `open` and `limit` (by
    /// member id). A book on loan, or not in the catalog, is not on the shelf: *mark loaned*
    /// is a remove from `shelf` that finds it or not.
    pub fn resources(&self) -> String {
        let shelf: Vec<String> = self
            .books
            .iter()
            .filter(|b| b.1)
            .map(|b| b.0.to_string())
            .collect();
        let pairs = |f: fn(&(u64, u64, u64)) -> u64| {
            self.members
                .iter()
                .map(|m| format!("[{}, {}]", m.0, f(m)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "[[resource]]\nname = \"shelf\"\nkind = \"keys\"\ninitial = [{}]\n\
             [[resource]]\nname = \"open\"\nkind = \"keys\"\ninitial = [{}]\n\
             [[resource]]\nname = \"limit\"\nkind = \"keys\"\ninitial = [{}]\n",
            shelf.join(", "),
            pairs(|m| m.1),
            pairs(|m| m.2)
        )
    }
}

/// *add loan* for member `member` (an expression), inside a transaction: fails (here: the
/// actor crashes, and the transaction lands nothing) unless the member exists and
/// `open < limit` — a missing member's `open` and `limit` are not numbers, and no
/// comparison with one holds.
pub fn add_loan(member: &str, on_failure: &str) -> String {
    format!(
        "{{ lookup = \"open\", key = \"{member}\" }}, {{ lookup = \"limit\", key = \"{member}\" }}, \
         {{ if = {{ value = \"open\", below = \"limit\" }}, then = [{{ set = \"open\", key = \"{member}\", value = \"open + 1\" }}], else = [{on_failure}] }}"
    )
}

fn list(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// `outbox`'s parameters.
#[derive(Debug, Clone)]
pub struct Outbox {
    pub world: World,
    pub loans: Vec<(u64, u64)>,
    /// Each scripted relay run's `crash_after` (0: none).
    pub runs: Vec<u64>,
    pub dedup: bool,
    pub crash_probability: f64,
    pub restart_ms: u64,
    pub random_loans: u64,
}

/// The random variant's fresh books and member (the built-in's ids).
const FRESH: u64 = 1_000_000_000;

impl Outbox {
    pub fn built_in(&self) -> String {
        let loans: Vec<String> = self
            .loans
            .iter()
            .map(|(b, m)| format!("[{b}, {m}]"))
            .collect();
        let runs: Vec<String> = self
            .runs
            .iter()
            .map(|c| {
                if *c == 0 {
                    "{}".into()
                } else {
                    format!("{{ crash_after = {c} }}")
                }
            })
            .collect();
        format!(
            "model = \"outbox\"\n[params]\nloans = [{}]\nrelay_runs = [{}]\nconsumer = \"{}\"\ncrash_probability = {}\nrestart_ms = {}\nrandom_loans = {}\n{}",
            loans.join(", "),
            runs.join(", "),
            if self.dedup { "dedup" } else { "plain" },
            self.crash_probability,
            self.restart_ms,
            self.random_loans,
            self.world.params()
        )
    }

    /// The scenario form. The catalog's transaction: *mark loaned* (a remove from `shelf`)
    /// and, when it found the book, the outbox row (a put on the queue `rows`; the random
    /// variant's relay is the group `outbox`, so its stream `relay-crash` is keyed
    /// `outbox/relay-crash`, the built-in's). The queue's taken message is hidden 1 ms: a relay that dies before acknowledging it (marking it
    /// sent) finds it again on its next run, `restart_ms` later. Each relay repetition is
    /// one delivery: take (nothing pending: this run is over), the consumer's transaction
    /// (plain: *add loan*; dedup: the message id inserted into `seen` with the effect, a
    /// duplicate skipped), the crash point, the ack. A failed *add loan* aborts the run: a
    /// crash in the transaction, which lands nothing. `applied` is the plain consumer's
    /// bookkeeping: each message id it applied (a duplicate insert: a duplicate effect).
    pub fn scenario(&self) -> String {
        let random = self.random_loans > 0 || self.crash_probability > 0.0;
        let mut world = self.world.clone();
        let mut s = format!(
            "model = \"scenario\"\n[params]\nrestart_ms = {}\n",
            self.restart_ms
        );
        if self.random_loans > 0 {
            world.members.push((FRESH, 0, u64::MAX >> 11));
        }
        s += &world.resources();
        if self.random_loans > 0 {
            // The fresh books, on the shelf.
            s += &format!(
                "[[resource]]\nname = \"fresh\"\nkind = \"keys\"\ninitial = {{ from = {FRESH}, count = {} }}\n",
                self.random_loans
            );
        }
        s += "[[resource]]\nname = \"rows\"\nkind = \"queue\"\nfields = [\"member\"]\nvisibility_ms = 1\n";
        let ledger = if self.dedup { "seen" } else { "applied" };
        s += &format!("[[resource]]\nname = \"{ledger}\"\nkind = \"keys\"\n");
        if self.random_loans > 0 {
            s += &format!(
                "[[actor]]\nname = \"catalog\"\nrepeat = {}\nsteps = [{{ transaction = [{{ remove = \"fresh\", key = \"{FRESH} + k\" }}, {{ if = \"removed\", then = [{{ put = \"rows\", fields = {{ member = {FRESH} }} }}] }}] }}]\n",
                self.random_loans
            );
        } else {
            let books: Vec<u64> = self.loans.iter().map(|l| l.0).collect();
            let members: Vec<u64> = self.loans.iter().map(|l| l.1).collect();
            s += &format!(
                "[[actor]]\nname = \"catalog\"\ncount = {}\nsteps = [{{ transaction = [{{ remove = \"shelf\", key = [{}] }}, {{ if = \"removed\", then = [{{ put = \"rows\", fields = {{ member = [{}] }} }}] }}] }}]\n",
                self.loans.len(),
                list(&books),
                list(&members)
            );
        }
        let effect = if self.dedup {
            format!(
                "{{ insert = \"seen\", key = \"rows.id\" }}, {{ if = \"inserted\", then = [{}] }}",
                add_loan("rows.member", "{ crash = \"all\" }")
            )
        } else {
            format!(
                "{{ insert = \"applied\", key = \"rows.id\" }}, {}",
                add_loan("rows.member", "{ crash = \"all\" }")
            )
        };
        let take =
            "{ take = \"rows\", timeout_ms = 0, on_timeout = { steps = [{ crash = \"all\" }] } }";
        let messages = self.loans.len() as u64 + self.random_loans;
        if random {
            // One relay, until nothing is pending: each delivery is followed by a crash with
            // the probability, drawn from the built-in's stream; it restarts after restart_ms.
            s += &format!(
                "[[actor]]\nname = \"outbox\"\nrepeat = {}\nsteps = [{take}, {{ transaction = [{effect}] }}, {{ crash = {{ probability = {}, stream = \"relay-crash\" }}, restart_after_ms = \"restart_ms\" }}, {{ ack = \"rows\" }}]\n",
                1000 * (messages + 1),
                self.crash_probability
            );
        } else {
            // Scripted runs, restart_ms apart: run i dies after its crash_after-th delivery
            // (repetition k = crash_after - 1), before the ack.
            s += &format!(
                "[[actor]]\nname = \"relay\"\ncount = {}\nstart_ms = \"restart_ms * i\"\nrepeat = {}\nsteps = [{take}, {{ transaction = [{effect}] }}, {{ if = {{ value = \"k + 1\", equals = [{}] }}, then = [{{ crash = \"all\" }}] }}, {{ ack = \"rows\" }}]\n",
                self.runs.len(),
                messages + 1,
                list(&self.runs)
            );
        }
        s
    }
}

/// The outbox's metrics from its scenario form's, by the bookkeeping above.
fn outbox_metrics(s: &super::Run, dedup: bool) -> Vec<(&'static str, f64)> {
    let m = |n: &str| num(s.metric(n));
    let ledger = if dedup { "seen" } else { "applied" };
    let (first, again) = (
        m(&format!("{ledger}.inserted")),
        m(&format!("{ledger}.duplicates")),
    );
    let effects = m("open.updated");
    vec![
        ("writes", m("catalog.started")),
        ("messages", m("rows.put")),
        // Every delivery the consumer accepted went through the ledger once.
        ("deliveries", first + again),
        ("duplicate_deliveries", again),
        ("effects_applied", effects),
        // Effects beyond the first per message: every effect less the messages applied.
        ("duplicate_effects", effects - first),
        ("outbox_pending", m("rows.left")),
        ("lost_messages", m("rows.put") - first),
    ]
}

/// Lesson 004's crashed relay, and lesson 002's deduplicating consumer, by hand: book 3 →
/// member 6 writes one row; run 1 delivers it (member 6: 0 → 1) and dies before marking;
/// run 2 delivers it again (1 → 2) and marks it. Plain: 2 deliveries, 2 effects, 1
/// duplicate; dedup: 2 deliveries, 1 effect. Member 6 ends with 2 (plain) or 1 open loans:
/// the open loans add up to 2 + 3 + 2 = 7 or 6.
#[test]
fn the_outbox_lessons_in_scenario_form() {
    let lesson = Outbox {
        world: World {
            books: vec![(1, true), (2, true), (3, true)],
            members: vec![(4, 2, 3), (5, 3, 3), (6, 0, 9)],
        },
        loans: vec![(3, 6)],
        runs: vec![1, 0],
        dedup: false,
        crash_probability: 0.0,
        restart_ms: 1000,
        random_loans: 0,
    };
    for (dedup, deliveries, effects, total) in [(false, 2.0, 2.0, 7.0), (true, 2.0, 1.0, 6.0)] {
        let o = Outbox {
            dedup,
            ..lesson.clone()
        };
        let s = run_text(&o.scenario(), 0);
        let m: std::collections::HashMap<_, _> = outbox_metrics(&s, dedup).into_iter().collect();
        assert_eq!(
            (m["deliveries"], m["effects_applied"]),
            (deliveries, effects),
            "{}",
            o.scenario()
        );
        assert_eq!(m["duplicate_effects"], effects - 1.0);
        assert_eq!(num(s.metric("open.total")), total);
        assert_eq!((m["outbox_pending"], m["lost_messages"]), (0.0, 0.0));
    }
}

/// Up to five books (ids from 1) and three members (4, 5 and 7: member 6 is the consumer's,
/// added apart).
fn world() -> impl Strategy<Value = World> {
    (
        proptest::collection::vec(proptest::bool::weighted(0.7), 1..6),
        proptest::collection::vec((0u64..4, 0u64..5), 1..4),
    )
        .prop_map(|(books, members)| World {
            books: books
                .into_iter()
                .enumerate()
                .map(|(i, shelf)| (i as u64 + 1, shelf))
                .collect(),
            members: members
                .into_iter()
                .enumerate()
                .map(|(i, (open, room))| ([4, 5, 7][i], open, open + room))
                .collect(),
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// `outbox` and its scenario form: books on the shelf or not (and ids outside the
    /// catalog), members at or under their limit (and ids that are none), scripted relay
    /// runs with crash points, the plain and the deduplicating consumer, random crashes
    /// (the built-in's stream) and random loans.
    #[test]
    fn the_outbox_scenario_equals_the_built_in_model(
        world in world(),
        loans in proptest::collection::vec((0u64..8, 3u64..8), 1..7),
        runs in proptest::collection::vec(0u64..4, 0..4),
        dedup in proptest::bool::ANY,
        random in 0usize..3,
        p in 0u64..80,
        restart in 2u64..2000,
        random_loans in 1u64..40,
        seed in 0u64..1000,
    ) {
        let mut o = Outbox { world, loans, runs, dedup, crash_probability: 0.0, restart_ms: restart, random_loans: 0 };
        if random > 0 {
            // Random crashes: the relay runs until nothing is pending, so every add loan
            // must be able to succeed (or both would run to their limits): members with
            // room, and loans to them.
            o.crash_probability = p as f64 / 100.0;
            for m in &mut o.world.members {
                m.2 = m.1 + 1000;
            }
            let ids: Vec<u64> = o.world.members.iter().map(|m| m.0).collect();
            for l in &mut o.loans {
                l.1 = ids[l.1 as usize % ids.len()];
            }
            if random == 2 {
                o.random_loans = random_loans;
            }
        }
        let b = run_text(&o.built_in(), seed);
        let s = run_within_estimate(&o.scenario(), seed);
        for (name, value) in outbox_metrics(&s, dedup) {
            prop_assert_eq!(num(b.metric(name)), value, "{}\n{}", name, o.scenario());
        }
        // Every member's open loans, added up.
        let open: f64 = b.entities.iter().filter(|(n, _)| !n.starts_with('m')).map(|(n, _)| num(b.entity(n, "open"))).sum();
        prop_assert_eq!(open, num(s.metric("open.total")));
    }
}

/// `idempotency`'s parameters.
#[derive(Debug, Clone)]
pub struct Idempotency {
    pub world: World,
    pub form: &'static str,
    pub repeats: u64,
    pub initial_counter: u64,
    /// `[key, book]`: keys by number (the built-in's are strings: `K<n>`).
    pub requests: Vec<(u64, u64)>,
    pub deliveries: Vec<u64>,
    pub loss: f64,
    pub max_retries: u64,
}

pub const FORMS: [&str; 7] = [
    "assign",
    "increment",
    "insert",
    "insert_unique",
    "derived_counter",
    "idempotency_key",
    "consumer",
];

impl Idempotency {
    pub fn built_in(&self) -> String {
        let requests: Vec<String> = self
            .requests
            .iter()
            .map(|(k, b)| format!("[\"K{k}\", {b}]"))
            .collect();
        format!(
            "model = \"idempotency\"\n[params]\nform = \"{}\"\nrepeats = {}\ninitial_counter = {}\nrequests = [{}]\ndeliveries = [{}]\nresponse_loss_probability = {}\nmax_retries = {}\n{}",
            self.form,
            self.repeats,
            self.initial_counter,
            requests.join(", "),
            list(&self.deliveries),
            self.loss,
            self.max_retries,
            self.world.params()
        )
    }

    fn random(&self) -> bool {
        self.loss > 0.0 || self.max_retries > 0
    }

    /// The scenario form: one client per request (the repeated forms: one request), each
    /// call a repetition. With a lost response (drawn after every call from the built-in's
    /// stream) the client calls again, up to `max_retries` more times; else it stops.
    pub fn scenario(&self) -> String {
        let mut s = format!(
            "model = \"scenario\"\n{}\
             [[resource]]\nname = \"status\"\nkind = \"keys\"\ninitial = [{}]\n\
             [[resource]]\nname = \"counter\"\nkind = \"register\"\ninitial = {}\n\
             [[resource]]\nname = \"loans\"\nkind = \"keys\"\n\
             [[resource]]\nname = \"keys\"\nkind = \"keys\"\n\
             [[resource]]\nname = \"seen\"\nkind = \"keys\"\n",
            self.world.resources(),
            self.world
                .books
                .iter()
                .map(|(id, shelf)| format!("[{id}, {}]", u8::from(!shelf)))
                .collect::<Vec<_>>()
                .join(", "),
            self.initial_counter,
        );
        // The consumer's member alone, so that its store's total is its open loans.
        s += &format!(
            "[[resource]]\nname = \"member\"\nkind = \"keys\"\ninitial = [{}]\n",
            self.world
                .members
                .iter()
                .filter(|m| m.0 == 6)
                .map(|m| format!("[6, {}]", m.1))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let call = match self.form {
            // UPDATE books SET status = 'odunc' WHERE id = 1: a matched row counts.
            "assign" => "{ lookup = \"status\", key = 1 }, { if = \"found\", then = [{ set = \"status\", key = 1, value = 1 }] }".to_string(),
            "increment" => "{ read = \"counter\" }, { write = \"counter\", value = \"read + 1\" }".to_string(),
            // A new loan row each call (its id: the call's number).
            "insert" => "{ insert = \"loans\", key = \"k\" }".to_string(),
            // The unique (book, member, date) row: one key, ON CONFLICT DO NOTHING.
            "insert_unique" => "{ insert = \"loans\", key = 1 }".to_string(),
            // The unique row, then counter = the open loan rows: the one row, whatever the
            // insert found.
            "derived_counter" => "{ insert = \"loans\", key = 1 }, { write = \"counter\", value = 1 }".to_string(),
            // One transaction: the key with no response yet (a seen key: its stored
            // response, replayed), then mark loaned, the loan row and the response (1:
            // granted; 0: rejected).
            "idempotency_key" => {
                let keys: Vec<u64> = self.requests.iter().map(|r| r.0).collect();
                let books: Vec<u64> = self.requests.iter().map(|r| r.1).collect();
                format!(
                    "{{ transaction = [{{ insert = \"keys\", key = [{}] }}, {{ if = \"inserted\", then = [{{ remove = \"shelf\", key = [{}] }}, {{ if = \"removed\", then = [{{ insert = \"loans\", key = \"i\" }}, {{ set = \"keys\", key = [{}], value = 1 }}] }}] }}] }}",
                    list(&keys),
                    list(&books),
                    list(&keys)
                )
            }
            // The message id and the effect together; no limit check.
            _ => format!(
                "{{ transaction = [{{ insert = \"seen\", key = [{}] }}, {{ if = \"inserted\", then = [{{ lookup = \"member\", key = 6 }}, {{ if = \"found\", then = [{{ set = \"member\", key = 6, value = \"member + 1\" }}] }}] }}] }}",
                list(&self.deliveries)
            ),
        };
        let count = match self.form {
            "idempotency_key" => self.requests.len() as u64,
            "consumer" => self.deliveries.len() as u64,
            _ if self.random() => 1,
            _ => u64::from(self.repeats > 0),
        };
        let (repeat, after) = if self.random() {
            (
                self.max_retries + 1,
                format!(
                    ", {{ if = {{ chance = {}, stream = \"response-loss\" }}, then = [], else = [{{ stop = true }}] }}",
                    self.loss
                ),
            )
        } else if matches!(self.form, "idempotency_key" | "consumer") {
            (1, String::new())
        } else {
            (self.repeats.max(1), String::new())
        };
        s += &format!(
            "[[actor]]\nname = \"idempotency\"\ncount = {count}\nrepeat = {repeat}\nsteps = [{call}{after}]\n"
        );
        s
    }

    /// The built-in's metrics from the scenario form's.
    fn metrics(&self, s: &super::Run) -> Vec<(&'static str, f64)> {
        let m = |n: &str| num(s.metric(n));
        let calls = m("idempotency.completed");
        let mut out = vec![("calls", calls)];
        match self.form {
            "assign" => {
                // The book ends on loan: the loaned books less the others on loan at first.
                let others = self.world.books.iter().filter(|b| b.0 != 1 && !b.1).count() as f64;
                out.extend([
                    ("changes", m("status.updated")),
                    ("effects", m("status.total") - others),
                ]);
            }
            "increment" => out.extend([
                ("changes", m("counter.writes")),
                ("effects", m("counter.writes")),
                ("final_value", m("counter.value")),
                ("duplicate_effects", m("counter.writes") - 1.0),
            ]),
            "insert" | "insert_unique" => out.extend([
                ("changes", m("loans.inserted")),
                ("effects", m("loans.size")),
                ("final_value", m("loans.size")),
                ("duplicate_effects", m("loans.size") - 1.0),
            ]),
            "derived_counter" => out.extend([
                ("changes", m("counter.writes")),
                ("insert_changes", m("loans.inserted")),
                ("effects", m("loans.size")),
                ("final_value", m("counter.value")),
                ("duplicate_effects", 0.0),
            ]),
            "idempotency_key" => out.extend([
                // The status update and the loan row of each grant, and each key row.
                ("changes", 2.0 * m("loans.inserted") + m("keys.inserted")),
                ("effects", m("loans.inserted")),
                ("final_value", m("loans.size")),
                ("duplicate_effects", 0.0),
                ("replayed", m("keys.duplicates")),
                ("stored_keys", m("keys.size")),
                ("granted", m("keys.total")),
                ("rejected", m("keys.size") - m("keys.total")),
            ]),
            _ => {
                out.extend([
                    ("changes", 2.0 * m("seen.inserted")),
                    ("effects", m("seen.inserted")),
                    ("duplicate_effects", 0.0),
                ]);
                if self.world.members.iter().any(|m| m.0 == 6) {
                    out.push(("final_value", m("member.total")));
                }
            }
        }
        out
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// `idempotency` and its scenario form: every form, repeats, keys (seen and new, books
    /// on the shelf or not), the deduplicating consumer, lost responses and retries.
    #[test]
    fn the_idempotency_scenario_equals_the_built_in_model(
        world in world(),
        form in 0usize..7,
        repeats in 1u64..6,
        initial_counter in 0u64..5,
        requests in proptest::collection::vec((0u64..4, 0u64..7), 0..7),
        deliveries in proptest::collection::vec(1u64..5, 0..7),
        random in proptest::bool::weighted(0.4),
        loss in 0u64..90,
        max_retries in 0u64..4,
        member6 in proptest::bool::ANY,
        seed in 0u64..1000,
    ) {
        let mut world = world;
        if member6 {
            world.members.push((6, 1, 9));
        }
        let (loss, max_retries) = if random { (loss as f64 / 100.0, max_retries) } else { (0.0, 0) };
        let i = Idempotency { world, form: FORMS[form], repeats, initial_counter, requests, deliveries, loss, max_retries };
        let b = run_text(&i.built_in(), seed);
        let s = run_within_estimate(&i.scenario(), seed);
        for (name, value) in i.metrics(&s) {
            prop_assert_eq!(num(b.metric(name)), value, "{}\n{}\n{}", name, i.built_in(), i.scenario());
        }
    }
}

/// `saga`'s parameters.
#[derive(Debug, Clone)]
pub struct Saga {
    pub world: World,
    pub compensate: bool,
    pub requests: Vec<(u64, u64)>,
    pub unreachable: bool,
    pub step_ms: u64,
    pub random_requests: u64,
    pub add_loan_failure: f64,
    pub compensation_failure: f64,
}

impl Saga {
    pub fn built_in(&self) -> String {
        let requests: Vec<String> = self
            .requests
            .iter()
            .map(|(b, m)| format!("[{b}, {m}]"))
            .collect();
        format!(
            "model = \"saga\"\n[params]\nmode = \"{}\"\nrequests = [{}]\ncatalog_unreachable = {}\nstep_ms = {}\nrandom_requests = {}\nadd_loan_failure_probability = {}\ncompensation_failure_probability = {}\n{}",
            if self.compensate {
                "saga"
            } else {
                "no_compensation"
            },
            requests.join(", "),
            self.unreachable,
            self.step_ms,
            self.random_requests,
            self.add_loan_failure,
            self.compensation_failure,
            self.world.params()
        )
    }

    /// The scenario form: one client runs the requests one after another (repetition k is
    /// request k, its book and member looked up in the `plan_book` and `plan_member`
    /// tables), each call taking effect at the end of its `step_ms`. *Mark loaned* is a
    /// remove from `shelf`; *add loan* a lookup of the member's `open` and `limit` and a
    /// set; the compensation (*mark shelved*) an insert back into `shelf`. The injected
    /// failures of the random variant are chances drawn from the built-in's streams. Each
    /// request's outcome is recorded by inserting `k` into the store of that name.
    pub fn scenario(&self) -> String {
        let random = self.random_requests > 0;
        let mut s = format!(
            "model = \"scenario\"\n[params]\nstep_ms = {}\n",
            self.step_ms
        );
        let (book, member, n) = if random {
            // Fresh books on the shelf, fresh members with room for one loan.
            let n = self.random_requests;
            s += &format!(
                "[[resource]]\nname = \"shelf\"\nkind = \"keys\"\ninitial = {{ from = {FRESH}, count = {n} }}\n\
                 [[resource]]\nname = \"open\"\nkind = \"keys\"\ninitial = {{ from = {FRESH}, count = {n} }}\n\
                 [[resource]]\nname = \"limit\"\nkind = \"keys\"\ninitial = {{ from = {FRESH}, count = {n}, value = 1 }}\n"
            );
            let id = format!("{FRESH} + k");
            (id.clone(), id, n)
        } else {
            s += &self.world.resources();
            let table = |f: fn(&(u64, u64)) -> u64| {
                self.requests
                    .iter()
                    .enumerate()
                    .map(|(k, r)| format!("[{k}, {}]", f(r)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            s += &format!(
                "[[resource]]\nname = \"plan_book\"\nkind = \"keys\"\ninitial = [{}]\n\
                 [[resource]]\nname = \"plan_member\"\nkind = \"keys\"\ninitial = [{}]\n",
                table(|r| r.0),
                table(|r| r.1)
            );
            (
                "plan_book".to_string(),
                "plan_member".to_string(),
                self.requests.len() as u64,
            )
        };
        for store in [
            "committed",
            "rolled_back",
            "half_done",
            "orphaned",
            "compensated",
        ] {
            s += &format!("[[resource]]\nname = \"{store}\"\nkind = \"keys\"\n");
        }
        let record = |store: &str| format!("{{ insert = \"{store}\", key = \"k\" }}");
        let delay = "{ delay_ms = \"step_ms\" }";
        // The compensation: it fails when the catalog is unreachable (or, at random, with
        // its probability); else the book is back on the shelf.
        let shelved = format!(
            "{{ insert = \"shelf\", key = \"{book}\" }}, {}, {}",
            record("rolled_back"),
            record("compensated")
        );
        let compensation = if self.unreachable {
            record("half_done")
        } else if random {
            format!(
                "{{ if = {{ chance = {}, stream = \"compensation\" }}, then = [{}], else = [{shelved}] }}",
                self.compensation_failure,
                record("half_done")
            )
        } else {
            shelved
        };
        let failed_after_mark = if self.compensate {
            format!("{delay}, {compensation}")
        } else {
            record("orphaned")
        };
        let add_loan = format!(
            "{{ lookup = \"open\", key = \"{member}\" }}, {{ lookup = \"limit\", key = \"{member}\" }}, \
             {{ if = {{ value = \"open\", below = \"limit\" }}, then = [{{ set = \"open\", key = \"{member}\", value = \"open + 1\" }}, {}], else = [{failed_after_mark}] }}",
            record("committed")
        );
        let second = if random {
            format!(
                "{{ if = {{ chance = {}, stream = \"add-loan\" }}, then = [{failed_after_mark}], else = [{add_loan}] }}",
                self.add_loan_failure
            )
        } else {
            add_loan
        };
        // Its first call failed: nothing to compensate.
        let failed_at_mark = if self.compensate {
            record("rolled_back")
        } else {
            String::new()
        };
        let lookups = if random {
            String::new()
        } else {
            "{ lookup = \"plan_book\", key = \"k\" }, { lookup = \"plan_member\", key = \"k\" }, "
                .to_string()
        };
        s += &format!(
            "[[actor]]\nname = \"saga\"\nrepeat = {}\nsteps = [{lookups}{delay}, {{ remove = \"shelf\", key = \"{book}\" }}, {{ if = \"removed\", then = [{delay}, {second}], else = [{failed_at_mark}] }}]\n",
            n.max(1)
        );
        s
    }

    fn metrics(&self, s: &super::Run) -> Vec<(&'static str, f64)> {
        let m = |n: &str| num(s.metric(n));
        // The random variant's fresh requests replace `requests`.
        let n = if self.random_requests > 0 {
            self.random_requests as f64
        } else {
            self.requests.len() as f64
        };
        vec![
            ("requests", n),
            ("committed", m("committed.size")),
            ("failed", n - m("committed.size")),
            ("rolled_back", m("rolled_back.size")),
            ("half_done", m("half_done.size")),
            ("pending_compensations", m("half_done.size")),
            ("orphaned", m("orphaned.size") + m("half_done.size")),
            // Marked at the end of the first step, put back at the end of the third.
            (
                "inconsistency_window_ms",
                if m("compensated.size") > 0.0 {
                    2.0 * self.step_ms as f64
                } else {
                    f64::NAN
                },
            ),
        ]
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// `saga` and its scenario form: with and without compensation, books on the shelf or
    /// not, members at their limit (or none), the unreachable catalog, and the random
    /// variant's injected failures (the built-in's streams).
    #[test]
    fn the_saga_scenario_equals_the_built_in_model(
        world in world(),
        compensate in proptest::bool::ANY,
        requests in proptest::collection::vec((0u64..7, 3u64..8), 1..7),
        unreachable in proptest::bool::weighted(0.3),
        step in 1u64..30,
        random in proptest::bool::weighted(0.4),
        random_requests in 1u64..40,
        p_add in 0u64..100,
        p_comp in 0u64..100,
        seed in 0u64..1000,
    ) {
        let saga = Saga {
            world, compensate, requests, unreachable, step_ms: step,
            random_requests: if random { random_requests } else { 0 },
            add_loan_failure: p_add as f64 / 100.0,
            compensation_failure: p_comp as f64 / 100.0,
        };
        let b = run_text(&saga.built_in(), seed);
        let s = run_within_estimate(&saga.scenario(), seed);
        for (name, value) in saga.metrics(&s) {
            let ours = num(b.metric(name));
            prop_assert!(ours == value || (ours.is_nan() && value.is_nan()), "{}: {} vs {}\n{}\n{}", name, ours, value, saga.built_in(), saga.scenario());
        }
    }
}

/// A take waits for a put; a message crosses its queue's link (half the round trip); a
/// take with nothing to take times out. `p` puts 7 at 10 ms across a 20 ms round trip: it
/// arrives at 20. `c` asks at 0 and takes it at 20 (response 20 ms), its value 7 and id 1
/// written to `got`; `late` asks at 0 with a 5 ms timeout and gives up at 5.
#[test]
fn a_take_waits_for_a_put_across_the_link_and_times_out_alone() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 20\n\
        [[resource]]\nname = \"q\"\nkind = \"queue\"\nlink = \"net\"\n\
        [[resource]]\nname = \"got\"\nkind = \"register\"\n\
        [[actor]]\nname = \"p\"\nstart_ms = 10\nsteps = [{ put = \"q\", value = 7 }]\n\
        [[actor]]\nname = \"c\"\nsteps = [{ take = \"q\" }, { write = \"got\", value = \"q * 10 + q.id\" }]\n\
        [[actor]]\nname = \"late\"\nsteps = [{ take = \"q\", timeout_ms = 5 }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("got.value")), 71.0);
    assert_eq!(num(run.entity("c", "end_ms")), 20.0);
    assert_eq!(num(run.metric("late.gave_up")), 1.0);
    assert_eq!(num(run.entity("late", "end_ms")), 5.0);
    assert_eq!(num(run.metric("net.crossings")), 1.0);
    // With `late` first in line (no timeout), the message is its: FIFO among takers.
    let first = text.replace("{ take = \"q\", timeout_ms = 5 }", "{ take = \"q\" }");
    let first = first.replace(
        "[[actor]]\nname = \"c\"",
        "[[actor]]\nname = \"c\"\nstart_ms = 1",
    );
    let run = run_text(&first, 0);
    assert_eq!(num(run.metric("late.completed")), 1.0);
    assert_eq!(num(run.metric("got.value")), 0.0, "c still waits");
    assert_eq!(run.entity("c", "outcome").to_string(), "unfinished");
}

/// At-least-once: a consumer that crashes after its effect and before its ack processes
/// the message twice. One message; the consumer takes it at 0, adds 1 to `effects`, and
/// crashes (restarting after 50 ms); the message comes back at its 30 ms visibility and is
/// taken again at the restart, 50: effects 2, one redelivery, one return, acked once.
#[test]
fn a_consumer_that_dies_before_its_ack_processes_the_message_twice() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"q\"\nkind = \"queue\"\nvisibility_ms = 30\n\
        [[resource]]\nname = \"effects\"\nkind = \"register\"\n\
        [[actor]]\nname = \"p\"\nsteps = [{ put = \"q\" }]\n\
        [[actor]]\nname = \"c\"\nrepeat = 2\nsteps = [{ take = \"q\", timeout_ms = 100 }, { read = \"effects\" }, { write = \"effects\", value = \"effects + 1\" }, { if = { value = \"k\", equals = 0 }, then = [{ crash = \"all\", restart_after_ms = 50 }] }, { ack = \"q\" }]\n";
    let run = run_text(text, 0);
    assert_eq!(num(run.metric("effects.value")), 2.0);
    for (metric, expected) in [
        ("q.taken", 2.0),
        ("q.redelivered", 1.0),
        ("q.returned", 1.0),
        ("q.acked", 1.0),
        ("q.left", 0.0),
    ] {
        assert_eq!(num(run.metric(metric)), expected, "{metric}");
    }
    assert_eq!(num(run.entity("c", "end_ms")), 50.0);
    // Deduplicating by message id in one transaction with the effect: applied once.
    let dedup = text
        .replace(
            "[[actor]]\nname = \"p\"",
            "[[resource]]\nname = \"seen\"\nkind = \"keys\"\n[[actor]]\nname = \"p\"",
        )
        .replace(
            "{ read = \"effects\" }, { write = \"effects\", value = \"effects + 1\" }",
            "{ transaction = [{ insert = \"seen\", key = \"q.id\" }, { if = \"inserted\", then = [{ read = \"effects\" }, { write = \"effects\", value = \"effects + 1\" }] }] }",
        );
    let run = run_text(&dedup, 0);
    assert_eq!(num(run.metric("effects.value")), 1.0, "{dedup}");
    assert_eq!(
        (
            num(run.metric("seen.inserted")),
            num(run.metric("seen.duplicates"))
        ),
        (1.0, 1.0)
    );
}

/// A transaction lands together or not at all: a crash inside it undoes its write, its
/// insert and its put. `a` writes 5, inserts key 1 and puts a message, then crashes inside
/// the transaction: nothing of it is there. `b` does the same without the crash: all of it.
#[test]
fn a_crash_inside_a_transaction_lands_nothing() {
    let tx = |crash: &str| {
        format!(
            "{{ transaction = [{{ write = \"r\", value = 5 }}, {{ insert = \"ks\", key = 1 }}, {{ put = \"q\" }}{crash}] }}"
        )
    };
    let text = |crash: &str| {
        format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"r\"\nkind = \"register\"\n\
             [[resource]]\nname = \"ks\"\nkind = \"keys\"\n\
             [[resource]]\nname = \"q\"\nkind = \"queue\"\n\
             [[actor]]\nname = \"a\"\nsteps = [{}]\n",
            tx(crash)
        )
    };
    let run = run_text(&text(", { crash = \"all\" }"), 0);
    for (metric, expected) in [
        ("r.value", 0.0),
        ("r.writes", 0.0),
        ("ks.size", 0.0),
        ("ks.inserted", 0.0),
        ("q.put", 0.0),
        ("q.left", 0.0),
        ("a.crashed", 1.0),
    ] {
        assert_eq!(num(run.metric(metric)), expected, "{metric}");
    }
    let run = run_text(&text(""), 0);
    for (metric, expected) in [
        ("r.value", 5.0),
        ("ks.size", 1.0),
        ("q.put", 1.0),
        ("q.left", 1.0),
    ] {
        assert_eq!(num(run.metric(metric)), expected, "{metric}");
    }
}

/// A full queue refuses a put (outcome `full`); a link may lose or duplicate a message.
/// Capacity 2 and three puts: the third is refused, and its `if = "full"` writes 1. Across a
/// link that loses everything: nothing arrives; one that duplicates everything: each put
/// arrives twice, with one id.
#[test]
fn a_full_queue_refuses_and_a_link_loses_or_duplicates() {
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"q\"\nkind = \"queue\"\ncapacity = 2\n\
        [[resource]]\nname = \"saw_full\"\nkind = \"register\"\n\
        [[actor]]\nname = \"p\"\nrepeat = 3\nsteps = [{ put = \"q\" }, { if = \"full\", then = [{ write = \"saw_full\", value = 1 }] }]\n";
    let run = run_text(text, 0);
    assert_eq!(
        (
            num(run.metric("q.put")),
            num(run.metric("q.refused")),
            num(run.metric("saw_full.value"))
        ),
        (2.0, 1.0, 1.0)
    );
    let link = |key: &str| {
        format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 2\n{key} = 1\n\
             [[resource]]\nname = \"q\"\nkind = \"queue\"\nlink = \"net\"\n\
             [[resource]]\nname = \"ids\"\nkind = \"keys\"\n\
             [[actor]]\nname = \"p\"\nrepeat = 3\nsteps = [{{ put = \"q\" }}]\n\
             [[actor]]\nname = \"c\"\nrepeat = 6\nsteps = [{{ take = \"q\", timeout_ms = 10 }}, {{ if = \"taken\", then = [{{ insert = \"ids\", key = \"q.id\" }}] }}]\n"
        )
    };
    let run = run_text(&link("loss"), 0);
    assert_eq!(
        (num(run.metric("q.lost")), num(run.metric("q.taken"))),
        (3.0, 0.0)
    );
    let run = run_text(&link("duplicate"), 0);
    assert_eq!(
        (
            num(run.metric("q.duplicated")),
            num(run.metric("q.taken")),
            num(run.metric("ids.inserted")),
            num(run.metric("ids.duplicates"))
        ),
        (3.0, 6.0, 3.0, 3.0)
    );
}

/// A stop ends the actor's repetitions, in a closed loop and in an open one. `w` repeats 5
/// times, every 10 ms in the open form, and stops at its third repetition (k = 2): 3 started
/// and completed, the last at 0 (closed: all at one instant) or 20 ms (open).
#[test]
fn a_stop_ends_the_actors_repetitions() {
    let closed = "model = \"scenario\"\n[[actor]]\nname = \"w\"\nrepeat = 5\nsteps = [{ if = { value = \"k\", equals = 2 }, then = [{ stop = true }] }, { delay_ms = 0 }]\n";
    let open = closed.replace("repeat = 5\n", "repeat = 5\nevery_ms = 10\n");
    for (text, end) in [(closed.to_string(), 0.0), (open, 20.0)] {
        let run = run_text(&text, 0);
        assert_eq!(
            (num(run.metric("w.started")), num(run.metric("w.completed"))),
            (3.0, 3.0),
            "{text}"
        );
        assert_eq!(num(run.metric("makespan_ms")), end, "{text}");
        assert_eq!(run.entity("w", "outcome").to_string(), "stopped");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// Messages are conserved on random queues: producers putting at random times, across a
    /// link that loses and duplicates or none, into a queue with or without a capacity and
    /// a visibility timeout; consumers that crash (inside a transaction with the ack, or
    /// between the effect and the ack) and restart. Every message made (put, or a link's
    /// copy) is lost, gone (acknowledged; without a visibility timeout, taken) or left at
    /// the end; a refused put or copy makes none; each redelivery is a take of a message taken
    /// before. And every run stays within its own estimate of events.
    #[test]
    fn messages_are_conserved_on_random_queues(
        producers in 1u64..4, puts in 1u64..15, gap in 0u64..5,
        capacity in 0u64..8, visibility in proptest::option::of(1u64..30),
        link in proptest::option::of((0u64..20, 0u64..50, 0u64..50)),
        consumers in 1u64..4, takes in 1u64..30, timeout in 0u64..40, work in 0u64..5,
        crash in 0u64..60, in_tx in proptest::bool::ANY, seed in 0u64..1000,
    ) {
        let mut text = String::from("model = \"scenario\"\n");
        let link_key = if let Some((rtt, loss, dup)) = link {
            text += &format!(
                "[[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = {rtt}\nloss = {}\nduplicate = {}\n",
                loss as f64 / 100.0,
                dup as f64 / 100.0
            );
            "link = \"net\"\n"
        } else {
            ""
        };
        let vis = visibility.map_or(String::new(), |v| format!("visibility_ms = {v}\n"));
        text += &format!(
            "[[resource]]\nname = \"q\"\nkind = \"queue\"\ncapacity = {capacity}\nfields = [\"n\"]\n{vis}{link_key}\
             [[resource]]\nname = \"seen\"\nkind = \"keys\"\n\
             [[actor]]\nname = \"p\"\ncount = {producers}\nrepeat = {puts}\nsteps = [{{ put = \"q\", value = \"k\", fields = {{ n = \"i\" }} }}, {{ delay_ms = {gap} }}]\n"
        );
        let ack = if visibility.is_some() { ", { ack = \"q\" }" } else { "" };
        let crash = format!("{{ crash = {{ probability = {} }}, restart_after_ms = 7 }}", crash as f64 / 100.0);
        let body = if in_tx {
            format!("{{ transaction = [{{ insert = \"seen\", key = \"q.id\" }}, {crash}{ack}] }}")
        } else {
            format!("{{ insert = \"seen\", key = \"q.id\" }}, {crash}{ack}")
        };
        text += &format!(
            "[[actor]]\nname = \"c\"\ncount = {consumers}\nrepeat = {takes}\nsteps = [{{ take = \"q\", timeout_ms = {timeout}, on_timeout = {{ then = \"end\" }} }}, {{ delay_ms = {work} }}, {body}]\n"
        );
        let s = run_within_estimate(&text, seed);
        let m = |n: &str| num(s.metric(n));
        let or0 = |n: &str| s.metrics.iter().find(|(k, _)| k == n).map_or(0.0, |(_, c)| num(c));
        let made = m("q.put") + or0("q.duplicated");
        let gone = if visibility.is_some() { m("q.acked") } else { m("q.taken") };
        prop_assert_eq!(made, or0("q.lost") + gone + m("q.left"), "{}", text);
        // Every put either made a message or was refused; so was every link's copy, at most
        // one a message put (a copy a full queue refused is counted in `q.refused`).
        let refused_copies = m("q.put") + or0("q.refused") - (producers * puts) as f64;
        prop_assert!((0.0..=m("q.put")).contains(&refused_copies), "{}", text);
        if link.is_none_or(|(_, _, dup)| dup == 0) {
            prop_assert_eq!(refused_copies, 0.0, "{}", text);
        }
        // A redelivery is a take of a message taken before: at most the takes less the
        // messages ever taken once.
        prop_assert!(m("q.redelivered") <= m("q.taken"), "{}", text);
        if visibility.is_none() {
            prop_assert_eq!(m("q.redelivered"), 0.0, "{}", text);
        }
    }
}
