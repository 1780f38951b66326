//! `idempotency` in scenario form — every form of a repeated call, idempotency keys, the
//! deduplicating consumer, lost responses and retries — equal to the built-in model on
//! random parameters. The scenario form runs held to its own up-front estimate of events, so
//! the estimate is checked an upper bound on every one.

use proptest::prelude::*;

use super::library::{World, list, world};
use super::{num, run_text, run_within_estimate};

/// `idempotency`'s parameters.
#[derive(Debug, Clone)]
pub(super) struct Idempotency {
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

pub(super) const FORMS: [&str; 7] = [
    "assign",
    "increment",
    "insert",
    "insert_unique",
    "derived_counter",
    "idempotency_key",
    "consumer",
];

impl Idempotency {
    pub(super) fn built_in(&self) -> String {
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
    pub(super) fn scenario(&self) -> String {
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
