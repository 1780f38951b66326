//! `saga` in scenario form — mark loaned, add loan and the compensation, with and without
//! it, the unreachable catalog and injected failures — equal to the built-in model on random
//! parameters. The scenario form runs held to its own up-front estimate of events, so the
//! estimate is checked an upper bound on every one.

use proptest::prelude::*;

use super::library::{FRESH, World, world};
use super::{num, run_text, run_within_estimate};

/// `saga`'s parameters.
#[derive(Debug, Clone)]
pub(super) struct Saga {
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
    pub(super) fn built_in(&self) -> String {
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
    pub(super) fn scenario(&self) -> String {
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
