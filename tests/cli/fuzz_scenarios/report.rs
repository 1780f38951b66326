//! What became of a campaign's cases: counts by fate, refusals and errors by kind, the slow
//! cases, the defects, the runs past their estimate, and how often each feature of the
//! language was in a case that ran.

use std::collections::BTreeMap;
use std::time::Duration;

/// A refusal's message with its places (file, step, point) and numbers taken out, to count
/// refusals by kind.
fn refusal_kind(message: &str) -> String {
    let mut text = message.split_once(": ").map_or(message, |(_, rest)| rest);
    loop {
        let place = (text.starts_with('`')
            && text[1..].split('`').next().is_some_and(|t| t.contains('[')))
            || text.starts_with("actor[")
            || text.starts_with("resource[")
            || text.starts_with("point ");
        match text.split_once(": ") {
            Some((head, rest)) if place && !head.contains(" ms") => text = rest,
            _ => break,
        }
    }
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else {
            out.push(c);
        }
        if out.len() >= 110 {
            break;
        }
    }
    out
}

/// What the generator writes, each in some case that runs (checked in every round of 1,000
/// cases or more): the language's resources, their keys, the steps and their keys.
const FEATURES: &[&str] = &[
    "kind = \"register\"",
    "read_ms",
    "write_ms",
    "fenced_by",
    "kind = \"lock\"",
    "mode = \"poll\"",
    "mode = \"queue\"",
    "mode = \"lease\"",
    "poll_ms",
    "lease_ms",
    "fencing = true",
    "stale_at_start = true",
    "unlock_at_ms",
    "kind = \"server\"",
    "service = \"fixed\"",
    "service = \"exponential\"",
    "service = \"uniform\"",
    "service = \"lognormal\"",
    "service = \"gamma\"",
    "service_cv",
    "instances",
    "down = ",
    "when_down = \"fail\"",
    "when_down = \"wait\"",
    "kind = \"link\"",
    "loss = ",
    "duplicate = ",
    "kind = \"queue\"",
    "visibility_ms",
    "capacity",
    "fields = [",
    "link = ",
    "kind = \"keys\"",
    "initial = [[",
    "initial = { from",
    "names = [",
    "count = \"n\"",
    "count = { by",
    "start_ms = [",
    "start_ms = \"",
    "repeat = 20000",
    "every_ms = 0",
    "every_ms",
    "spread_ms",
    "arrivals = \"poisson\"",
    "every_cv",
    "{ read = ",
    "{ write = ",
    "cas = true",
    "max_retries",
    "delay_ms = 0",
    "pause_ms",
    "{ acquire = \"",
    "{ acquire = { by",
    "release = ",
    "renew = ",
    "give_up_after_ms",
    "timeout_ms = 0",
    "on_timeout",
    "then = \"end\"",
    "then = \"go_on\"",
    "then = \"retry\"",
    "max_attempts",
    "backoff_ms",
    "jitter_ms",
    "{ request = \"",
    "{ request = { one_of",
    "instance = ",
    "{ send = ",
    "crash = \"all\"",
    "crash = [",
    "crash = { count",
    "crash = { probability",
    "stream = ",
    "restart_after_ms",
    "{ put = ",
    "fields = { ",
    "{ take = ",
    "{ ack = ",
    "{ insert = ",
    "{ lookup = ",
    "{ set = ",
    "{ remove = ",
    "{ transaction = ",
    "{ if = \"",
    "{ if = { outcome",
    "{ if = { value",
    "{ if = { chance",
    "else = [",
    "{ stop = true }",
    "now",
    "attempt",
    "abs(r",
    "read + 1",
    ".id",
    "[sweep]",
    "tie_order = ",
    "[[metric]]",
    "[[claim]]",
    "kind = \"timeline\"",
];

/// A campaign's counts so far.
pub(super) struct Tally {
    refused: usize,
    pub(super) too_big: usize,
    failed: usize,
    ran: usize,
    /// Refusals and run errors by kind: how many, the first case's index and its message.
    kinds: BTreeMap<String, (usize, usize, String)>,
    slow: Vec<(usize, Duration)>,
    defects: Vec<(usize, String)>,
    overruns: Vec<usize>,
    slowest: (usize, Duration),
    /// How many cases that ran have each of `FEATURES`.
    covered: Vec<usize>,
}

impl Tally {
    /// A campaign from case `from`.
    pub(super) fn new(from: usize) -> Tally {
        Tally {
            refused: 0,
            too_big: 0,
            failed: 0,
            ran: 0,
            kinds: BTreeMap::new(),
            slow: Vec::new(),
            defects: Vec::new(),
            overruns: Vec::new(),
            slowest: (from, Duration::ZERO),
            covered: vec![0usize; FEATURES.len()],
        }
    }

    /// Case `i` took `took`: the slowest yet, or a hang when slower than a few seconds (the
    /// first few printed with their text).
    pub(super) fn time(&mut self, i: usize, took: Duration, text: &str) {
        if took > self.slowest.1 {
            self.slowest = (i, took);
        }
        if took > Duration::from_secs(3) {
            if self.slow.len() < 3 {
                eprintln!("case {i} took {took:?}:\n{text}");
            }
            self.slow.push((i, took));
        }
    }

    /// Case `i` was refused with `e`.
    pub(super) fn refused(&mut self, i: usize, e: String) {
        self.refused += 1;
        self.kinds
            .entry(refusal_kind(&e))
            .or_insert((0, i, e.clone()))
            .0 += 1;
    }

    /// Case `i` (`text`) loaded, and its run stopped with `e`.
    pub(super) fn failed(&mut self, i: usize, e: String, text: &str) {
        // An internal error is a defect, and so is a run past its own estimate: kept, and
        // reported at the end with the first few cases' text. The estimates count neither
        // a compare-and-set's conflicts, nor a lease held until it runs out, nor a wait of
        // `now + …` (longer as the run goes on), so those overruns are told apart, and
        // fail the test only with COORDSIM_FUZZ_STRICT.
        let over = e.contains("exceeded the limit of");
        let known = over
            && ["cas = true", "mode = \"lease\"", "\"now + "]
                .iter()
                .any(|t| text.contains(t));
        if known {
            self.overruns.push(i);
        } else if e.contains("internal") || over {
            if self.defects.len() < 3 {
                eprintln!("scenario case {i} stopped with {e}\n{text}");
            }
            self.defects.push((i, e.clone()));
        }
        self.failed += 1;
        self.kinds
            .entry(format!("run: {}", refusal_kind(&e)))
            .or_insert((0, i, e.clone()))
            .0 += 1;
    }

    /// Case `i` (`text`) ran; run again, it broke with `defect`, if any.
    pub(super) fn ran(&mut self, i: usize, text: &str, defect: Option<String>) {
        self.ran += 1;
        if let Some(e) = defect {
            if self.defects.len() < 3 {
                eprintln!("scenario case {i}, run again: {e}\n{text}");
            }
            self.defects.push((i, e));
        }
        for (needle, count) in FEATURES.iter().zip(&mut self.covered) {
            *count += usize::from(text.contains(needle));
        }
    }

    /// The campaign's summary of its `cases` in `elapsed`: the fates, the commonest
    /// refusals and errors (all of them with `COORDSIM_FUZZ_ERRORS`), and the rarest
    /// features, which it returns (each with how many cases that ran have it), rarest first.
    pub(super) fn report(&self, cases: usize, elapsed: Duration) -> Vec<(usize, &'static str)> {
        let (ran, failed, too_big, refused) = (self.ran, self.failed, self.too_big, self.refused);
        let mut kinds: Vec<_> = self.kinds.iter().collect();
        kinds.sort_by_key(|k| std::cmp::Reverse(k.1.0));
        eprintln!(
            "scenario fuzz: {cases} cases in {:.1?}: {} loaded ({ran} ran, {failed} stopped with an error, {too_big} too big to run), {refused} refused, {} slow (the slowest: case {} in {:.1?}), {} defects, {} past their estimate with a compare-and-set, a lease or a wait of `now + …` (first: {:?}), no panic",
            elapsed,
            cases - refused,
            self.slow.len(),
            self.slowest.0,
            self.slowest.1,
            self.defects.len(),
            self.overruns.len(),
            &self.overruns[..self.overruns.len().min(5)],
        );
        let full = std::env::var_os("COORDSIM_FUZZ_ERRORS").is_some();
        for (kind, (count, first, message)) in kinds.iter().take(if full { usize::MAX } else { 12 })
        {
            if full {
                eprintln!("  {count:6} × case {first}: {message}");
            } else {
                eprintln!("  {count:6} × {kind}  (first: case {first})");
            }
        }
        let mut rare: Vec<(usize, &str)> = self
            .covered
            .iter()
            .copied()
            .zip(FEATURES.iter().copied())
            .collect();
        rare.sort();
        eprintln!("  rarest features among the runs: {:?}", &rare[..8]);
        rare
    }

    /// The campaign's verdict on its `cases`: no slow case, no defect (and with `strict`
    /// no run past its estimate), every feature in a case that ran (checked from 1,000
    /// cases), and most cases run.
    pub(super) fn check(&self, cases: usize, strict: bool, rare: &[(usize, &str)]) {
        let (slow, defects, overruns, ran) = (&self.slow, &self.defects, &self.overruns, self.ran);
        assert!(slow.is_empty(), "slow cases (index, time): {slow:?}");
        assert!(
            defects.is_empty(),
            "cases that stopped with a defect: {defects:?}"
        );
        assert!(
            !strict || overruns.is_empty(),
            "cases past their estimate: {overruns:?}"
        );
        if cases >= 1000 {
            let missing: Vec<&str> = rare.iter().filter(|r| r.0 == 0).map(|r| r.1).collect();
            assert!(missing.is_empty(), "no case that ran used {missing:?}");
        }
        // Most cases must run, or the generator tests only the loader.
        assert!(ran * 2 > cases, "{ran} of {cases} ran");
    }
}
