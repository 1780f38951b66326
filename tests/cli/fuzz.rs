//! The in-process fuzzer: mutated shipped configs never panic.

use crate::harness::*;

/// The fuzzer's random numbers (SplitMix64: fixed, so a failing input replays by its index).
pub(crate) struct Mix(pub(crate) u64);

impl Mix {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of a config's text: a span deleted, a token inserted, a number made extreme,
/// or a line repeated.
fn mutate(text: &str, rng: &mut Mix) -> String {
    const TOKENS: &[&str] = &[
        "\"",
        "[",
        "]",
        "{",
        "}",
        "=",
        "\n",
        ",",
        "1e308",
        "-1",
        "0",
        "-0.0",
        "1e-300",
        "18446744073709551615",
        "9223372036854775807",
        "nan",
        "inf",
        "true",
        "\"x\"",
        "[]",
        "{}",
        "\n[[chart]]\nname = \"a\"\n",
        "\n[[claim]]\nmetric = \"x\"\nexpect = 1\n",
        "\n[sweep]\n",
        "{ from = 0, to = 1e9, step = 1e-9 }",
        "{ from = 1, to = 1e6, points = 100000, scale = \"log\" }",
        "((((((((((((",
        "[[[[[[[[[[[[[[[[",
        "\u{0}",
        "é",
        "\u{1b}[31m",
        "\n[labels]\n",
        "\n[table]\ncolumns = [\"x\"]\n",
        "\nreplications = 100000\n",
        "\nlocale = \"tr\"\n",
        "{ expr = \"1/0\" }",
        "{ file = \"/etc/passwd\", column = \"x\" }",
        "\"../../x\"",
        "\"a/b\"",
    ];
    let chars: Vec<char> = text.chars().collect();
    let at = rng.below(chars.len() + 1);
    // Most mutations keep the syntax (a number made extreme, a line repeated), so most
    // inputs reach the run; the rest break it somewhere.
    match [0, 1, 3, 3, 3, 3, 4, 4, 2, 3][rng.below(10)] {
        0 => {
            let len = 1 + rng.below(20);
            let end = (at + len).min(chars.len());
            chars[..at].iter().chain(&chars[end..]).collect()
        }
        1 | 2 => {
            let token = TOKENS[rng.below(TOKENS.len())];
            let mut out: String = chars[..at].iter().collect();
            out.push_str(token);
            out.extend(&chars[at..]);
            out
        }
        3 => {
            // The first number at or after `at`, made extreme.
            let extreme = [
                "0",
                "-1",
                "1e18",
                "4294967296",
                "0.000001",
                "1e-9",
                "99999999",
            ][rng.below(7)];
            let start = (at..chars.len()).find(|&i| chars[i].is_ascii_digit());
            match start {
                Some(s) => {
                    let mut e = s;
                    while e < chars.len()
                        && (chars[e].is_ascii_digit() || chars[e] == '.' || chars[e] == '_')
                    {
                        e += 1;
                    }
                    let mut out: String = chars[..s].iter().collect();
                    out.push_str(extreme);
                    out.extend(&chars[e..]);
                    out
                }
                None => text.to_string(),
            }
        }
        _ => {
            let lines: Vec<&str> = text.lines().collect();
            if lines.is_empty() {
                return text.to_string();
            }
            let k = rng.below(lines.len());
            let mut out = lines[..=k].join("\n");
            out.push('\n');
            out.push_str(&lines[k..].join("\n"));
            out
        }
    }
}

/// What became of one fuzzed input.
pub(crate) enum Fate {
    /// The loader refused it (its error).
    Refused(String),
    /// It loaded, but its runs are too many or too big for a fuzzer's round.
    TooBig,
    /// It loaded, and its run stopped with an error.
    Failed(String),
    /// It loaded and ran.
    Ran,
}

/// One input through load → validate → run → check, and with `write_to`, every exporter
/// into that folder, in this process (a panic propagates: the caller catches it). With
/// `to_estimate`, a run's events are held to the largest estimate of its points (the
/// estimates are upper bounds: a run past one is a defect).
pub(crate) fn drive(
    registry: &coordsim_model::Registry,
    name: &str,
    text: &str,
    write_to: Option<&std::path::Path>,
    to_estimate: bool,
) -> Fate {
    let mut config = match library_config(registry, name, text) {
        Ok(config) => config,
        Err(e) => return Fate::Refused(e.to_string()),
    };
    // Small runs only: the fuzzer looks for panics, not for long runs, which the up-front
    // estimates and [limits] bound (their own tests).
    let small = config.runs() <= 16
        && config.plans.iter().all(|p| {
            let c = p.cost();
            c.events <= 200_000 && c.memory_bytes <= 64 << 20
        });
    if !small {
        return Fate::TooBig;
    }
    config.plan.limits.max_events = config.plan.limits.max_events.min(200_000);
    if to_estimate {
        let most = config.plans.iter().map(|p| p.cost().events).max();
        config.plan.limits.max_events = most.unwrap_or(0).max(1);
    }
    let options = coordsim::runner::RunOptions {
        jobs: 1,
        seed: None,
        shard: None,
        progress: false,
        ties: sim_core::Ties::Fifo,
    };
    let results = match coordsim::runner::run(&config, &options) {
        Ok(results) => results,
        Err(e) => return Fate::Failed(format!("{e:#}")),
    };
    let _ = coordsim::check::evaluate(&config, &results);
    if let Some(dir) = write_to
        && coordsim::labels::check_value_labels(&config, &results).is_ok()
    {
        let summary =
            (config.replications > 1).then(|| coordsim::summary::summarize(&config, &results));
        let run = coordsim::export::Run {
            config: &config,
            results: &results,
            summary: summary.as_ref(),
            seed: config.seed,
        };
        std::fs::create_dir_all(dir).unwrap();
        for exporter in coordsim::export::all() {
            let _ = exporter.export(&run, dir);
        }
    }
    Fate::Ran
}

/// Mutated configs through load → validate → run → write, in this process: any panic is a
/// defect. `COORDSIM_FUZZ_INPUTS` sets how many (a quick round by default; the README gives
/// the count of the long run).
#[test]
fn fuzzed_configs_never_panic() {
    let inputs: usize = std::env::var("COORDSIM_FUZZ_INPUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let registry = crate::harness::registry();
    let mut corpus: Vec<(String, String)> = Vec::new();
    for dir in ["configs"] {
        for path in coordsim::commands::find_configs(&root().join(dir)).unwrap() {
            corpus.push((
                path.display().to_string(),
                String::from_utf8(read(&path)).unwrap(),
            ));
        }
    }
    let out = tempfile::tempdir().unwrap();
    let mut rng = Mix(2026);
    let (mut parsed, mut ran) = (0, 0);
    for i in 0..inputs {
        let (name, base) = &corpus[rng.below(corpus.len())];
        let mut text = base.clone();
        for _ in 0..1 + rng.below(2) {
            text = mutate(&text, &mut rng);
        }
        let dir = (i % 25 == 0).then(|| out.path().join(format!("i{i}")));
        let fate = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            drive(&registry, name, &text, dir.as_deref(), false)
        }));
        match fate {
            Ok(fate) => {
                parsed += usize::from(!matches!(fate, Fate::Refused(_)));
                ran += usize::from(matches!(fate, Fate::Ran));
            }
            Err(_) => panic!("input {i} (from {name}) panicked:\n{text}"),
        }
    }
    eprintln!("fuzz: {inputs} inputs, {parsed} loaded, {ran} ran, no panic");
    // The mutations must leave many inputs valid, or the fuzzer tests only the parser.
    assert!(parsed * 5 > inputs, "{parsed} of {inputs} parsed");
    assert!(ran * 10 > inputs, "{ran} of {inputs} ran");
}
