//! The flat back end against the interpreter's search: on random points it covers, the
//! same exploration in every field (states, transitions, executions, outcomes with their
//! counts, probabilities, traces and schedules, bounds, the schedulers' graph), with the
//! reduction on and off and under a state bound; and where it does not cover a point,
//! `--engine flat` says why.

use coordsim_model::{Engine, Exploration, ExploreLimits, Reduction, Symmetry};
use proptest::prelude::*;

use crate::explore::explore;
use crate::harness::{coordsim_in, stderr, write_config};

/// Steps of a random program: a read, a read and a write of what it read, a read and a
/// compare-and-set of what it read (giving up after 1, 2 or the default 1,000 conflicts),
/// a blind write of a value that does not depend on a read, a read and a write under
/// one queue lock or two, a put on queue `Q` or on `C` (a capacity of 1, a field), or a
/// take from one of them and a write of what it took.
fn steps() -> impl Strategy<Value = Vec<String>> {
    steps_of(11)
}

/// [`steps`], and where `kinds` is 15, steps on `V`, a queue with a visibility timeout: a
/// put, a take, a write of what it took and an ack, a take and a write with no ack (the
/// message comes back at the timer, or a later ack of the same job acknowledges it), or a
/// take and two acks (the second with nothing to acknowledge).
pub(crate) fn steps_of(kinds: u8) -> impl Strategy<Value = Vec<String>> {
    let read_value = prop_oneof![Just("read + 1"), Just("read * 2 + 1")];
    let blind_value = prop_oneof![Just("i + 1"), Just("k + 2"), Just("3")];
    let retries = prop_oneof![
        Just(", max_retries = 1"),
        Just(", max_retries = 2"),
        Just("")
    ];
    (0..3usize, 0..kinds, read_value, blind_value, retries).prop_map(
        |(r, kind, read_value, blind_value, retries)| {
            let read = format!("{{ read = \"r{r}\" }}");
            match kind {
                0 => vec![read],
                1 => vec![
                    read,
                    format!("{{ write = \"r{r}\", value = \"{read_value}\" }}"),
                ],
                2 => vec![
                    read,
                    format!(
                        "{{ write = \"r{r}\", value = \"{read_value}\", cas = true{retries} }}"
                    ),
                ],
                3 => vec![format!("{{ write = \"r{r}\", value = \"{blind_value}\" }}")],
                // An increment under a queue lock; under two, taken in one order or the
                // other (two actors taking them in opposite orders may deadlock).
                4 => locked(&["L"], read, r, read_value),
                5 => locked(&["L", "M"], read, r, read_value),
                6 => locked(&["M", "L"], read, r, read_value),
                7 => vec![format!("{{ put = \"Q\", value = \"{blind_value}\" }}")],
                8 => vec![
                    "{ take = \"Q\" }".to_string(),
                    format!("{{ write = \"r{r}\", value = \"Q * 10 + Q.id\" }}"),
                ],
                9 => vec![format!(
                    "{{ put = \"C\", value = \"{blind_value}\", fields = {{ f = \"i + k\" }} }}"
                )],
                10 => vec![
                    "{ take = \"C\" }".to_string(),
                    format!("{{ write = \"r{r}\", value = \"C + C.f * 10 + C.deliveries\" }}"),
                ],
                11 => vec![format!("{{ put = \"V\", value = \"{blind_value}\" }}")],
                12 => vec![
                    "{ take = \"V\" }".to_string(),
                    format!("{{ write = \"r{r}\", value = \"V * 10 + V.deliveries\" }}"),
                    "{ ack = \"V\" }".to_string(),
                ],
                13 => vec![
                    "{ take = \"V\" }".to_string(),
                    format!("{{ write = \"r{r}\", value = \"V + V.id\" }}"),
                ],
                _ => vec![
                    "{ take = \"V\" }".to_string(),
                    "{ ack = \"V\" }".to_string(),
                    "{ ack = \"V\" }".to_string(),
                ],
            }
        },
    )
}

/// `locks` acquired in order, a read and a write of register `r`, the locks released in
/// the opposite order.
fn locked(locks: &[&str], read: String, r: usize, value: &str) -> Vec<String> {
    let mut steps: Vec<String> = (locks.iter())
        .map(|l| format!("{{ acquire = \"{l}\" }}"))
        .collect();
    steps.push(read);
    steps.push(format!("{{ write = \"r{r}\", value = \"{value}\" }}"));
    steps.extend(
        locks
            .iter()
            .rev()
            .map(|l| format!("{{ release = \"{l}\" }}")),
    );
    steps
}

/// Two queue locks, a message queue `Q` and one `C` of capacity 1 whose messages carry a
/// field `f` (a point whose steps use none of them has them declared: they change nothing).
pub(crate) const LOCKS_AND_QUEUES: &str = "model = \"scenario\"\n\
    [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
    [[resource]]\nname = \"M\"\nkind = \"lock\"\nmode = \"queue\"\n\
    [[resource]]\nname = \"Q\"\nkind = \"queue\"\n\
    [[resource]]\nname = \"C\"\nkind = \"queue\"\ncapacity = 1\nfields = [\"f\"]\n\
    [[resource]]\nname = \"V\"\nkind = \"queue\"\nvisibility_ms = 100\n";

/// Whether a group's steps are ones the flat back end takes together: not a put beside
/// a compare-and-set (whose conflict runs the put again: its messages have no bound), nor
/// a take from `V` beside one (a conflict takes again, past the messages the feeder puts:
/// that taker waits when `V`'s timer brings a message back, which the flat back end
/// leaves to the interpreter mid-search).
pub(crate) fn covered(steps: &[Vec<String>]) -> bool {
    let has = |what: &str| steps.iter().flatten().any(|s| s.contains(what));
    !((has("put =") || has("take = \"V\"")) && has("cas = true"))
}

/// A group's steps: one or two lists, each of `own` (two times in three) or of the flat
/// back end's other steps ([`steps_of`]), those it takes together ([`covered`]); an end
/// that gives up beside a compare-and-set is left to the interpreter (a conflict's give-up
/// is a rejection too, an end's not).
pub(crate) fn mixed_group_steps(
    own: impl Strategy<Value = Vec<String>> + 'static,
) -> impl Strategy<Value = Vec<Vec<String>>> {
    let one = prop_oneof![2 => own, 1 => steps_of(11)];
    prop::collection::vec(one, 1..=2)
        .prop_filter("a put beside a compare-and-set", |s| covered(s))
        .prop_filter("an end that gives up beside a compare-and-set", |s| {
            let has = |what: &str| s.iter().flatten().any(|step| step.contains(what));
            !(has("cas = true") && has("end = \"gave_up\""))
        })
}

/// A random point of the fragment the flat back end covers: up to three registers and
/// two groups of up to two closed-loop actors that read and write them, all at 0 ms. Where
/// they take from `V`, a feeder puts as many messages on it as they take: a taker then
/// never waits for good, so no message that comes back at `V`'s timer finds a taker
/// waiting (whose steps would run after 0 ms, which the flat back end leaves to the
/// interpreter: the test asserts it was not).
fn config() -> impl Strategy<Value = String> {
    let group = (
        1..=2u32,
        1..=2u32,
        prop::collection::vec(steps_of(15), 1..=2),
    )
        .prop_filter("a put or a take from V beside a compare-and-set", |g| {
            covered(&g.2)
        });
    (1..=3usize, prop::collection::vec(group, 1..=2)).prop_map(|(registers, groups)| {
        let mut text = String::from(LOCKS_AND_QUEUES);
        for r in 0..3 {
            // Every register a step may name exists; some start apart from 0.
            let initial = if r < registers { r } else { 0 };
            text.push_str(&format!(
                "[[resource]]\nname = \"r{r}\"\nkind = \"register\"\ninitial = {initial}\n"
            ));
        }
        let mut takes = 0;
        for (g, (count, repeat, steps)) in groups.into_iter().enumerate() {
            let steps = steps.concat();
            takes += count * repeat * steps.iter().filter(|s| s.contains("take = \"V\"")).count() as u32;
            text.push_str(&format!(
                "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\nsteps = [{}]\n",
                steps.join(", ")
            ));
        }
        if takes > 0 {
            text.push_str(&format!(
                "[[actor]]\nname = \"feeder\"\nrepeat = {takes}\nsteps = [{{ put = \"V\", value = \"k\" }}]\n"
            ));
        }
        text
    })
}

/// A delay, fixed or per member (`i`, the repetition `k`): 0 ms (the same instant, after
/// what is due), or a few ms that may tie with another actor's.
pub(crate) fn delay() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{ delay_ms = 0 }"),
        Just("{ delay_ms = 5 }"),
        Just("{ delay_ms = 10 }"),
        Just("{ pause_ms = 5 }"),
        Just("{ delay_ms = \"i * 5\" }"),
        Just("{ delay_ms = \"k * 5 + 5\" }"),
    ]
    .prop_map(String::from)
}

/// A random point of the timed fragment: the steps of [`steps`] with delays before,
/// between or after them (a delay under a lock is a hold, others wait meanwhile), and
/// groups that start at 0, 5 or 10 ms (or at `i * 5`), so that events meet at one instant,
/// or not, as the delays add up.
fn timed_config() -> impl Strategy<Value = String> {
    // An increment whose delay is as long as what it read: when it ends, and so the
    // responses' times, depend on the order of the others' writes.
    let read_delay = Just(vec![
        "{ read = \"r0\" }".to_string(),
        "{ delay_ms = \"r0 * 5\" }".to_string(),
        "{ write = \"r0\", value = \"read + 1\" }".to_string(),
    ]);
    let register_steps = prop_oneof![
        3 => steps(),
        1 => read_delay,
    ];
    let timed_steps = (register_steps, prop::option::of(delay()), 0..3usize).prop_map(
        |(mut steps, delay, at)| {
            if let Some(delay) = delay {
                let at = at.min(steps.len());
                steps.insert(at, delay);
            }
            steps
        },
    );
    let start = prop_oneof![Just("0"), Just("5"), Just("10"), Just("\"i * 5\"")];
    let group = (
        1..=2u32,
        1..=2u32,
        prop::collection::vec(timed_steps, 1..=2),
        start,
    )
        .prop_filter("a put or a take from V beside a compare-and-set", |g| {
            covered(&g.2)
        });
    (1..=3usize, prop::collection::vec(group, 1..=2)).prop_map(|(registers, groups)| {
        let mut text = String::from(LOCKS_AND_QUEUES);
        for r in 0..3 {
            let initial = if r < registers { r } else { 0 };
            text.push_str(&format!(
                "[[resource]]\nname = \"r{r}\"\nkind = \"register\"\ninitial = {initial}\n"
            ));
        }
        for (g, (count, repeat, steps, start)) in groups.into_iter().enumerate() {
            text.push_str(&format!(
                "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\n\
                 start_ms = {start}\nsteps = [{}]\n",
                steps.concat().join(", ")
            ));
        }
        text
    })
}

/// Each point of `text` explored with `limits` by `engine`.
pub(crate) fn with(text: &str, limits: ExploreLimits, engine: Engine) -> Vec<Exploration> {
    explore(text, &ExploreLimits { engine, ..limits })
}

/// Every set of up to 8 outcomes (else each outcome alone and all but it).
pub(crate) fn outcome_sets(n: usize) -> Vec<Vec<bool>> {
    if n <= 8 {
        (0..1u32 << n)
            .map(|m| (0..n).map(|k| m >> k & 1 == 1).collect())
            .collect()
    } else {
        (0..n)
            .flat_map(|k| {
                [
                    (0..n).map(|j| j == k).collect(),
                    (0..n).map(|j| j != k).collect(),
                ]
            })
            .collect()
    }
}

/// The two back ends' explorations equal in every field but the engine's name, which must
/// say which explored. Under symmetry the schedulers' graphs are built over other
/// representatives of the same states (each back end keeps its own canonical order), so
/// they are compared by what they answer: the least and greatest probability of every set
/// of outcomes (every set up to 8 outcomes, else each outcome alone and all but it); and
/// an outcome's trace may be another of its shortest executions (the first one each
/// search meets), so its length is compared (each back end ran its schedule to the
/// outcome already: an end that differs is an internal error).
pub(crate) fn same(text: &str, limits: ExploreLimits) -> Result<(), TestCaseError> {
    let interpreted = with(text, limits, Engine::Interpret);
    let flat = with(text, limits, Engine::Flat);
    prop_assert_eq!(interpreted.len(), flat.len());
    for (mut i, mut f) in interpreted.into_iter().zip(flat) {
        prop_assert_eq!(i.engine, Engine::Interpret);
        prop_assert_eq!(f.engine, Engine::Flat);
        i.engine = Engine::Flat;
        if limits.symmetry == Symmetry::On && i.bounded.is_some() {
            // Cut by a bound: which states are cut depends on the representatives met first
            // (below).
            prop_assert_eq!(i.bounded.is_some(), f.bounded.is_some());
            prop_assert_eq!(i.states, f.states);
            continue;
        }
        if limits.symmetry == Symmetry::On {
            let n = i.outcomes.len();
            let sets = outcome_sets(n);
            match (i.schedulers.take(), f.schedulers.take()) {
                (Some(a), Some(b)) => {
                    for set in &sets {
                        for least in [true, false] {
                            let (x, y) =
                                (a.extreme(&|o| set[o], least), b.extreme(&|o| set[o], least));
                            prop_assert!(
                                (x - y).abs() < 1e-12,
                                "{set:?} least {least}: {x} against {y}\n{text}"
                            );
                        }
                    }
                }
                (a, b) => prop_assert_eq!(a.is_some(), b.is_some()),
            }
            for (a, b) in i.outcomes.iter_mut().zip(&mut f.outcomes) {
                prop_assert_eq!(a.trace.len(), b.trace.len());
                prop_assert_eq!(a.schedule.events.len(), b.schedule.events.len());
                a.trace.clear();
                b.trace.clear();
                a.schedule.events.clear();
                b.schedule.events.clear();
            }
        }
        prop_assert_eq!(i, f, "{}", text);
    }
    Ok(())
}

/// [`same`] on `jobs` threads without symmetry: with the reduction on and off, the graph
/// of entries kept, and under a state bound of `bound` that cuts most of them (the bound
/// cuts the same states in the same order). At most 20,000 states each, so that the
/// interpreter's debug build keeps the test short. The limits, for more.
pub(crate) fn same_without_symmetry(
    text: &str,
    jobs: usize,
    bound: u64,
) -> Result<ExploreLimits, TestCaseError> {
    // On two threads the flat search's counting walks on beside it.
    let on = ExploreLimits {
        jobs,
        keep_schedulers: true,
        max_states: 20_000,
        symmetry: Symmetry::Off,
        ..ExploreLimits::default()
    };
    same(text, on)?;
    same(
        text,
        ExploreLimits {
            reduce: Reduction::Off,
            ..on
        },
    )?;
    same(
        text,
        ExploreLimits {
            max_states: bound,
            ..on
        },
    )?;
    Ok(on)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Reduction on and off, the graph of entries kept, and a state bound that cuts most
    /// of them (the bound cuts the same states in the same order). At most 20,000 states
    /// each, so that the interpreter's debug build keeps the test short.
    #[test]
    fn the_flat_engine_explores_what_the_interpreter_does(
        text in config(),
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        let on = same_without_symmetry(&text, jobs, bound)?;
        // Symmetry: the groups' members put in the flat back end's canonical order (by
        // their words) where the interpreter puts them in its own (by a hash of theirs).
        // Without the reduction the two graphs are one up to the representatives.
        let sym = ExploreLimits { symmetry: Symmetry::On, reduce: Reduction::Off, ..on };
        same(&text, sym)?;
        // With it, each takes alone the first free event of its own representative, which
        // may be another member's: the outcomes found are the same, not always the counts.
        let reduced = ExploreLimits { reduce: Reduction::On, ..sym };
        let (i, f) = (with(&text, reduced, Engine::Interpret), with(&text, reduced, Engine::Flat));
        for (i, f) in i.iter().zip(&f) {
            if i.bounded.is_some() || f.bounded.is_some() {
                // Cut at 20,000 states: which are cut depends on the representatives.
                continue;
            }
            let metrics = |e: &Exploration| e.outcomes.iter().map(|o| format!("{:?}", o.metrics)).collect::<std::collections::BTreeSet<_>>();
            prop_assert_eq!(metrics(i), metrics(f));
        }
        // Under a bound, which states are cut depends on the representatives met first:
        // the flat back end's bounded outcomes are among the whole's, and it is bounded
        // where the interpreter is, at as many states.
        let whole = with(&text, sym, Engine::Flat);
        let bounded = ExploreLimits { max_states: bound, ..sym };
        let (i, f) = (with(&text, bounded, Engine::Interpret), with(&text, bounded, Engine::Flat));
        for ((i, f), whole) in i.iter().zip(&f).zip(&whole) {
            prop_assert_eq!(i.bounded.is_some(), f.bounded.is_some());
            prop_assert_eq!(i.states, f.states);
            for outcome in &f.outcomes {
                prop_assert!(whole.outcomes.iter().any(|o| o.metrics == outcome.metrics));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Time: points whose actors start apart and delay between their steps, explored by
    /// both back ends (each run with `Engine::Flat` is the flat back end's: `same` checks
    /// the engine's name, so the test cannot pass by falling back), with the reduction on
    /// and off, under a state bound, and under symmetry without the reduction.
    #[test]
    fn the_flat_engine_keeps_time_as_the_interpreter_does(
        text in timed_config(),
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        let on = same_without_symmetry(&text, jobs, bound)?;
        same(&text, ExploreLimits { symmetry: Symmetry::On, reduce: Reduction::Off, ..on })?;
    }
}

/// The first point of `text` explored by the flat back end with every member apart (and
/// the reduction as `reduce` says), checked to be the flat back end's: the hand counts'.
pub(crate) fn flat_alone(text: &str, reduce: Reduction) -> Exploration {
    let mut explored = with(
        text,
        ExploreLimits {
            symmetry: Symmetry::Off,
            reduce,
            ..ExploreLimits::default()
        },
        Engine::Flat,
    );
    let flat = explored.swap_remove(0);
    assert_eq!(flat.engine, Engine::Flat);
    flat
}

/// The lost update of three clients of two increments, by hand: each client makes 4 steps
/// (read, write, read, write) in its own order, every step touches the one register (no
/// reduction), so the executions are the interleavings of three sequences of 4:
/// 12! / (4!)^3 = 479,001,600 / 13,824 = 34,650.
#[test]
fn the_flat_engine_counts_the_lost_update_by_hand() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"counter\"\nkind = \"register\"\n\
                [[actor]]\nname = \"client\"\ncount = 3\nrepeat = 2\n\
                steps = [{ read = \"counter\" }, { write = \"counter\", value = \"read + 1\" }]\n";
    let flat = flat_alone(text, ExploreLimits::default().reduce);
    assert_eq!(flat.executions, 34_650);
    let total: u128 = flat.outcomes.iter().map(|o| o.executions).sum();
    assert_eq!(total, 34_650);
}

/// A compare-and-set increment of two clients, by hand. With A's read and write both
/// before B's read (or B's before A's) nothing conflicts: 2 executions. With both reads
/// first (A then B, or B then A), the first to write lands 1 and the other's write is
/// refused; it starts its repetition again alone (read 1, write 2): 2 × 2 = 4 executions,
/// each with one refusal. 6 in all, every one ending at 2, never a lost update.
#[test]
fn the_flat_engine_counts_a_compare_and_set_by_hand() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"counter\"\nkind = \"register\"\n\
                [[actor]]\nname = \"client\"\ncount = 2\n\
                steps = [{ read = \"counter\" }, \
                { write = \"counter\", value = \"read + 1\", cas = true }]\n";
    let flat = flat_alone(text, ExploreLimits::default().reduce);
    assert_eq!(flat.executions, 6);
    let split = executions_split(&flat);
    assert_eq!(split, [2, 4]);
}

/// An increment of two clients under a queue lock, by hand. The first to acquire (2 ways)
/// runs acquire, read, write, release; the other's acquire comes before the read, the
/// write or the release (it queues, and is handed the lock at the release) or after the
/// release (it takes the free lock): 4 places, then its own three steps in order. 2 × 4 =
/// 8 executions, every one ending at 2 with no lost update.
#[test]
fn the_flat_engine_counts_a_locked_increment_by_hand() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"counter\"\nkind = \"register\"\n\
                [[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
                [[actor]]\nname = \"client\"\ncount = 2\n\
                steps = [{ acquire = \"L\" }, { read = \"counter\" }, \
                { write = \"counter\", value = \"read + 1\" }, { release = \"L\" }]\n";
    let flat = flat_alone(text, Reduction::Off);
    assert_eq!(flat.executions, 8);
    assert_eq!(flat.outcomes.len(), 1);
}

/// A producer's message and two consumers that take it and write it, by hand, with no
/// reduction. The consumer that takes first, or first waits in line, gets the message (a
/// put hands it to the longest waiting taker in the put's event) and writes it after, an
/// event of its own; the other waits for good. The put first, then one take (2 ways): it
/// takes at once, and its write and the other's take go in either order, 2 × 2 = 4. A take
/// first (2 ways), it waits: then the put, and the write and the other's take in either
/// order (2), or the other's take and then the put (1, the write after it): 2 × 3 = 6. 10
/// executions, 5 each way (`got` ends `7 + i` of the one that got it).
#[test]
fn the_flat_engine_counts_a_put_and_two_takes_by_hand() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"Q\"\nkind = \"queue\"\n\
                [[resource]]\nname = \"got\"\nkind = \"register\"\n\
                [[actor]]\nname = \"producer\"\nsteps = [{ put = \"Q\", value = \"7\" }]\n\
                [[actor]]\nname = \"consumer\"\ncount = 2\n\
                steps = [{ take = \"Q\" }, { write = \"got\", value = \"Q + i\" }]\n";
    let flat = flat_alone(text, Reduction::Off);
    assert_eq!(flat.executions, 10);
    let split = executions_split(&flat);
    assert_eq!(split, [5, 5]);
}

/// Each outcome's executions, smallest first.
pub(crate) fn executions_split(exploration: &Exploration) -> Vec<u128> {
    let mut split: Vec<u128> = exploration.outcomes.iter().map(|o| o.executions).collect();
    split.sort_unstable();
    split
}

/// A queue of capacity 1, a producer of two messages and a consumer of one, by hand, with
/// no reduction: the consumer's take comes before the producer's two puts, between them,
/// or after both (3 places). Before: it waits, the first put is handed to it, the second
/// finds room. Between: it takes the first, the second finds room. After: the second put
/// finds the queue full (one held, none taken) and is refused. 3 executions, 1 of them
/// with a refusal.
#[test]
fn the_flat_engine_counts_a_full_queue_by_hand() {
    let text = "model = \"scenario\"\n\
                [[resource]]\nname = \"C\"\nkind = \"queue\"\ncapacity = 1\n\
                [[actor]]\nname = \"producer\"\nrepeat = 2\nsteps = [{ put = \"C\", value = \"k\" }]\n\
                [[actor]]\nname = \"consumer\"\nsteps = [{ take = \"C\" }]\n";
    let flat = flat_alone(text, Reduction::Off);
    assert_eq!(flat.executions, 3);
    let split = executions_split(&flat);
    assert_eq!(split, [1, 2]);
}

/// A lock acquired again by the holder that never released it is the run's error: the
/// flat back end hands the point to the interpreter, which stops with the same words
/// whichever engine was asked for.
#[test]
fn a_lock_taken_twice_stops_the_flat_engine_as_the_interpreter() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "twice.toml",
        "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
         [[resource]]\nname = \"r\"\nkind = \"register\"\n\
         [[actor]]\nname = \"a\"\ncount = 2\nrepeat = 2\n\
         steps = [{ acquire = \"L\" }, { read = \"r\" }]\n",
    );
    let run = |engine: &str| {
        let out = coordsim_in(
            dir.path(),
            &[
                "explore", &config, "--engine", engine, "--out", engine, "-q",
            ],
        );
        assert!(!out.status.success());
        stderr(&out)
    };
    let flat = run("flat");
    assert!(flat.contains("which it holds already"), "{flat}");
    assert_eq!(flat, run("interpret"));
}

/// A run stops when an event comes due past `max_virtual_time_ms`, and so does an
/// exploration that expands a state whose next event is past it. Here two clients
/// increment R, read it again and wait `R * 5` ms: where both increments landed first the
/// second read is 2 and the wait ends at 10 ms, past the limit of 8. Unbounded, the
/// interpreter stops at the first such state it expands; under a state bound it stops
/// only if it expands one before the bound (here between 20 and 30 states). The flat
/// back end, which keeps time (start times, delays, timed locks), must give the same
/// answer at every bound (before, it never looked at the limit: it explored on, ending
/// bounded and quiet where the interpreter stopped, and stopping only on an outcome's
/// replay, at another instant).
#[test]
fn the_flat_engine_stops_at_the_virtual_time_limit_as_the_interpreter() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "late.toml",
        "model = \"scenario\"\n[limits]\nmax_virtual_time_ms = 8\n\
         [[resource]]\nname = \"R\"\nkind = \"register\"\n\
         [[actor]]\nname = \"c\"\ncount = 2\n\
         steps = [{ read = \"R\" }, { write = \"R\", value = \"read + 1\" }, \
         { read = \"R\" }, { delay_ms = \"R * 5\" }]\n",
    );
    let run = |engine: &str, bound: &[&str]| {
        let mut args = vec![
            "explore",
            &config,
            "--no-symmetry",
            "--engine",
            engine,
            "--out",
            engine,
            "-q",
        ];
        args.extend_from_slice(bound);
        let out = coordsim_in(dir.path(), &args);
        (out.status.code(), stderr(&out))
    };
    let (code, words) = run("interpret", &[]);
    assert_eq!(code, Some(2));
    assert!(
        words.contains("the run reached virtual time 10 ms, past the limit of 8 ms"),
        "{words}"
    );
    for bound in [&[][..], &["--max-states", "30"], &["--max-states", "10"]] {
        assert_eq!(run("flat", bound), run("interpret", bound), "{bound:?}");
    }
}

/// `--engine flat` on a point it does not cover (a lock an operator unlocks) stops with
/// why, naming the other engines; `auto` explores it with the interpreter.
#[test]
fn the_flat_engine_says_what_it_does_not_cover() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "locked.toml",
        "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nunlock_at_ms = [5]\n\
         [[actor]]\nname = \"a\"\ncount = 2\nsteps = [{ acquire = \"L\" }, { release = \"L\" }]\n",
    );
    let out = coordsim_in(
        dir.path(),
        &["explore", &config, "--engine", "flat", "--out", "o", "-q"],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("the flat engine does not explore this point")
            && err.contains("a lock is unlocked by an operator")
            && err.contains("--engine auto"),
        "{err}"
    );
    let out = coordsim_in(dir.path(), &["explore", &config, "--out", "o", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A queue whose taken messages come back (a visibility timeout) where time moves on,
    // and one whose messages cross a link: each named, and `auto` explores them with the
    // interpreter.
    for (name, queue, why) in [
        (
            "visible.toml",
            "visibility_ms = 10\n[[actor]]\nname = \"late\"\nstart_ms = 5\nsteps = [{ delay_ms = 1 }]",
            "a visibility timeout and time moves on",
        ),
        ("linked.toml", "link = \"net\"", "cross a link"),
    ] {
        let config = write_config(
            dir.path(),
            name,
            &format!(
                "model = \"scenario\"\n[[resource]]\nname = \"net\"\nkind = \"link\"\nrtt_ms = 2\n\
                 [[resource]]\nname = \"Q\"\nkind = \"queue\"\n{queue}\n\
                 [[actor]]\nname = \"p\"\nsteps = [{{ put = \"Q\" }}]\n\
                 [[actor]]\nname = \"c\"\nsteps = [{{ take = \"Q\" }}]\n"
            ),
        );
        let out = coordsim_in(
            dir.path(),
            &["explore", &config, "--engine", "flat", "--out", "o", "-q"],
        );
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(err.contains(why), "{err}");
        let out = coordsim_in(dir.path(), &["explore", &config, "--out", "o", "-q"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

/// `--engine flat` on a point with a loop without end stops saying so (the cycle search
/// steps the interpreter); before, it ran the cycle search as if asked for `auto`.
#[test]
fn the_flat_engine_refuses_a_loop_without_end() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "forever.toml",
        "model = \"scenario\"\n[[resource]]\nname = \"R\"\nkind = \"register\"\n\
         [[actor]]\nname = \"a\"\nrepeat = \"forever\"\n\
         steps = [{ write = \"R\", value = \"1\" }, { delay_ms = 5 }]\n",
    );
    let out = coordsim_in(
        dir.path(),
        &["explore", &config, "--engine", "flat", "--out", "o", "-q"],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("the flat engine does not explore this point")
            && err.contains("loops for ever")
            && err.contains("--engine auto"),
        "{err}"
    );
    let out = coordsim_in(dir.path(), &["explore", &config, "--out", "o", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The flat back end's merges are checked as the interpreter's are where debug assertions
/// are on: with fingerprints cut to 8 bits, the 904 states of 3 clients × 2 increments
/// (every state apart, as the interpreter counts them) cannot all have keys of their own
/// (2^8 = 256 < 904), so a state met later shares a kept one's key, and the check that
/// their words are equal stops the search.
#[test]
#[cfg(debug_assertions)]
fn a_flat_fingerprint_collision_stops_a_debug_build() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"counter\"\nkind = \"register\"\n\
                [[actor]]\nname = \"c\"\ncount = 3\nrepeat = 2\n\
                steps = [{ read = \"counter\" }, { write = \"counter\", value = \"read + 1\" }]\n";
    let config =
        crate::harness::library_config(&crate::harness::registry(), "lu.toml", text).unwrap();
    let run = |weak_fingerprints, engine| {
        coordsim::runner::explore::explore_config(
            &config,
            config.seed,
            &ExploreLimits {
                weak_fingerprints,
                engine,
                symmetry: Symmetry::Off,
                reduce: Reduction::Off,
                ..ExploreLimits::default()
            },
        )
    };
    assert_eq!(run(false, Engine::Interpret).unwrap()[0].states, 904);
    let flat = &run(false, Engine::Flat).unwrap()[0];
    assert_eq!((flat.states, flat.engine), (904, Engine::Flat));
    let err = run(true, Engine::Flat).unwrap_err().to_string();
    assert!(err.contains("share a fingerprint"), "{err}");
}

/// On two threads a second thread walks the counting's entries beside the flat search;
/// where its copy of the graph would take the search past three quarters of the memory
/// budget, the walk is taken back (the thread ends) and goes on after the search. Either
/// way the exploration is the one thread's: here under budgets from one that bounds the 3
/// × 4 lost update early (the walk taken back) to one it fits in whole.
#[test]
fn the_flat_search_on_two_threads_is_the_one_threads_under_any_memory_budget() {
    let text = crate::explore_jobs::LOST_UPDATE;
    for mib in [1, 2, 4, 64] {
        let limits = ExploreLimits {
            symmetry: Symmetry::Off,
            max_memory_bytes: Some(mib << 20),
            ..ExploreLimits::default()
        };
        let one = with(text, ExploreLimits { jobs: 1, ..limits }, Engine::Flat);
        let two = with(text, ExploreLimits { jobs: 2, ..limits }, Engine::Flat);
        assert_eq!(one, two, "under {mib} MiB");
        // 42,237 states in all (tests/cli/explore_jobs.rs): the small budgets cut them.
        assert_eq!(one[0].bounded.is_some(), mib < 64, "under {mib} MiB");
    }
}
