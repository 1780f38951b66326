//! `outbox` in scenario form — the catalog's transaction writing the outbox row, a relay
//! that dies before marking a row sent, the plain and the deduplicating consumer — equal to
//! the built-in model on random parameters, and lessons 004 and 002 worked by hand. The
//! random runs are held to their own up-front estimate of events, so the estimate is checked
//! an upper bound on every one.

use proptest::prelude::*;

use super::library::{FRESH, World, add_loan, list, world};
use super::{num, run_text, run_within_estimate};

/// `outbox`'s parameters.
#[derive(Debug, Clone)]
pub(super) struct Outbox {
    pub world: World,
    pub loans: Vec<(u64, u64)>,
    /// Each scripted relay run's `crash_after` (0: none).
    pub runs: Vec<u64>,
    pub dedup: bool,
    pub crash_probability: f64,
    pub restart_ms: u64,
    pub random_loans: u64,
}

impl Outbox {
    pub(super) fn built_in(&self) -> String {
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
    pub(super) fn scenario(&self) -> String {
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
fn a_relay_that_dies_before_marking_delivers_twice_and_a_dedup_consumer_applies_once() {
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
