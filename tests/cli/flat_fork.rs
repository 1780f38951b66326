//! `parallel` in the flat back end: random points where a group forks into 2 or 3
//! branches of reads and writes (joined by all, by the first, or by two, the rest
//! cancelled; the job reading `winner` and `joined` after), beside groups of the flat back
//! end's other steps (registers, locks, queues), explored by both back ends with the
//! reduction on and off, on one thread and two, with symmetry and without; and a hand
//! count.
//!
//! The flat back end keeps a branch as a block of its actor's, where the interpreter makes
//! a job of its own in a slot numbered by the order the actors forked in: two states that
//! differ only by that numbering are one flat state. So the states and transitions counted
//! may be fewer (and the schedulers' graph is over other states): everything else is the
//! interpreter's, and the graph answers the same least and greatest probabilities.

use coordsim_model::{Cell, Engine, Exploration, ExploreLimits, Reduction, Symmetry};
use proptest::prelude::*;

use crate::flat_engine::{
    LOCKS_AND_QUEUES, flat_alone, mixed_group_steps, outcome_sets, steps_of, with,
};

/// A branch's steps on the registers `r0`..`r2`: a read; a read and an increment of what
/// it read; a blind write of the repetition, the member or a number; a read of one and a
/// write of another.
fn branch() -> impl Strategy<Value = Vec<String>> {
    let blind = prop_oneof![Just("k + 1"), Just("i + 2"), Just("5")];
    let one = (0..3usize, 0..4u8, 0..3usize, blind).prop_map(|(r, kind, s, blind)| match kind {
        0 => vec![format!("{{ read = \"r{r}\" }}")],
        1 => vec![
            format!("{{ read = \"r{r}\" }}"),
            format!("{{ write = \"r{r}\", value = \"read + 1\" }}"),
        ],
        2 => vec![format!("{{ write = \"r{r}\", value = \"{blind}\" }}")],
        _ => vec![
            format!("{{ read = \"r{r}\" }}"),
            format!("{{ write = \"r{s}\", value = \"r{r} * 2 + 1\" }}"),
        ],
    });
    prop::collection::vec(one, 1..=2).prop_map(|steps| steps.concat())
}

/// A `parallel` of 2 or 3 branches, joined by all (no `wait`), by the first or by two
/// (where there are more), a step before it (none, a read, a write) and one after it (none,
/// a write of its `winner` and `joined`, a read and an increment).
fn forking_steps() -> impl Strategy<Value = Vec<String>> {
    (
        prop::collection::vec(branch(), 2..=3),
        0..3u32,
        0..3u8,
        0..3u8,
        0..3usize,
    )
        .prop_map(|(branches, wait, before, after, r)| {
            let mut steps = Vec::new();
            match before {
                1 => steps.push(format!("{{ read = \"r{r}\" }}")),
                2 => steps.push(format!("{{ write = \"r{r}\", value = \"i + 7\" }}")),
                _ => {}
            }
            let lists: Vec<String> = (branches.iter())
                .map(|b| format!("[{}]", b.join(", ")))
                .collect();
            let wait = match wait.min(branches.len() as u32 - 1) {
                0 => String::new(),
                w => format!(", wait = {w}"),
            };
            steps.push(format!("{{ parallel = [{}]{wait} }}", lists.join(", ")));
            match after {
                1 => steps.push(format!(
                    "{{ write = \"r{r}\", value = \"winner + joined * 10\" }}"
                )),
                2 => steps.extend([
                    format!("{{ read = \"r{r}\" }}"),
                    format!("{{ write = \"r{r}\", value = \"read + 1\" }}"),
                ]),
                _ => {}
            }
            steps
        })
}

/// A random point: one or two forking groups (1 or 2 actors, 1 or 2 repetitions), and
/// perhaps a group of the flat back end's other steps (registers, locks, queues of
/// [`LOCKS_AND_QUEUES`]), with a feeder where it takes.
fn config() -> impl Strategy<Value = String> {
    let forking = (1..=2u32, 1..=2u32, forking_steps());
    // The other steps as the flat tests mix them: no put beside a compare-and-set (a
    // conflict would put again, which the flat back end refuses).
    let other = prop::option::of((1..=2u32, mixed_group_steps(steps_of(11))));
    (prop::collection::vec(forking, 1..=2), other).prop_map(|(forking, other)| {
        let mut text = String::from(LOCKS_AND_QUEUES);
        for r in 0..3 {
            text.push_str(&format!(
                "[[resource]]\nname = \"r{r}\"\nkind = \"register\"\ninitial = {r}\n"
            ));
        }
        for (g, (count, repeat, steps)) in forking.iter().enumerate() {
            text.push_str(&format!(
                "[[actor]]\nname = \"f{g}\"\ncount = {count}\nrepeat = {repeat}\nsteps = [{}]\n",
                steps.join(", ")
            ));
        }
        if let Some((count, steps)) = other {
            let steps = steps.concat();
            let takes = |queue: &str| {
                let take = format!("take = \"{queue}\"");
                count as usize * steps.iter().filter(|s| s.contains(&take)).count()
            };
            text.push_str(&format!(
                "[[actor]]\nname = \"o\"\ncount = {count}\nsteps = [{}]\n",
                steps.join(", ")
            ));
            // A feeder for each queue the group takes from: no taker waits for good.
            for queue in ["Q", "C"] {
                if takes(queue) > 0 {
                    text.push_str(&format!(
                        "[[actor]]\nname = \"feed{queue}\"\nrepeat = {}\n\
                         steps = [{{ put = \"{queue}\", value = \"k\" }}]\n",
                        takes(queue)
                    ));
                }
            }
        }
        text
    })
}

/// The two back ends' explorations of `text` with `limits`, equal in every field but the
/// engine's name, the states, transitions and states reduced counted (the flat back end's
/// may be fewer: the module's doc) and the schedulers' graph, which answers the same least and greatest
/// probability of every set of outcomes. Under symmetry an outcome's trace may be another
/// of its shortest executions: its length is compared. `false` where either was cut by
/// the state bound.
fn same_but_states(text: &str, limits: ExploreLimits) -> Result<bool, TestCaseError> {
    let interpreted = with(text, limits, Engine::Interpret);
    let flat = with(text, limits, Engine::Flat);
    prop_assert_eq!(interpreted.len(), flat.len());
    for (mut i, mut f) in interpreted.into_iter().zip(flat) {
        prop_assert_eq!(i.engine, Engine::Interpret);
        prop_assert_eq!(f.engine, Engine::Flat);
        if i.bounded.is_some() || f.bounded.is_some() {
            return Ok(false);
        }
        prop_assert!(
            f.states <= i.states,
            "{} against {}\n{}",
            f.states,
            i.states,
            text
        );
        prop_assert!(f.transitions <= i.transitions, "{}", text);
        prop_assert_eq!(i.reduced > 0, f.reduced > 0, "{}", text);
        (i.engine, i.states, i.transitions, i.reduced) =
            (Engine::Flat, f.states, f.transitions, f.reduced);
        match (i.schedulers.take(), f.schedulers.take()) {
            (Some(a), Some(b)) => {
                for set in &outcome_sets(i.outcomes.len()) {
                    for least in [true, false] {
                        let (x, y) = (a.extreme(&|o| set[o], least), b.extreme(&|o| set[o], least));
                        prop_assert!(
                            (x - y).abs() < 1e-12,
                            "{set:?} {least}: {x} against {y}\n{text}"
                        );
                    }
                }
            }
            (a, b) => prop_assert_eq!(a.is_some(), b.is_some()),
        }
        if limits.symmetry == Symmetry::On {
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
    Ok(true)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Reduction on and off, one thread and two, symmetry off and on: the interpreter's
    /// outcomes, counts, probabilities and traces.
    #[test]
    fn the_flat_engine_forks_as_the_interpreter_does(text in config(), jobs in 1usize..3) {
        let limits = ExploreLimits {
            jobs,
            keep_schedulers: true,
            max_states: 50_000,
            symmetry: Symmetry::Off,
            ..ExploreLimits::default()
        };
        prop_assume!(same_but_states(&text, limits)?);
        let off = ExploreLimits { reduce: Reduction::Off, ..limits };
        same_but_states(&text, off)?;
        // Symmetry without the reduction: one graph up to the representatives.
        let sym = ExploreLimits { symmetry: Symmetry::On, ..off };
        same_but_states(&text, sym)?;
    }
}

/// The executions of `explored`'s outcome whose metrics at the places `at` are `values`
/// (none: no such outcome).
fn executions_of(explored: &Exploration, at: &[usize], values: &[f64]) -> Option<u128> {
    let number = |cell: &Cell| match cell {
        Cell::Float(x) => *x,
        Cell::Count(n) => *n as f64,
        other => panic!("a register's value is {other:?}"),
    };
    let outcome = explored.outcomes.iter().find(|o| {
        (at.iter().zip(values)).all(|(&place, &value)| number(&o.metrics[place]) == value)
    })?;
    Some(outcome.executions)
}

/// One actor forks two branches that each write a register once (`a = 1` and `b = 2`),
/// then writes `c` with `winner + joined * 10`, while another actor writes `a = 7`. The
/// forking actor's events keep their order: its start (the fork), branch 1's write, branch
/// 2's write, branch 1's end (not the join yet), branch 2's end (the join: the job goes
/// on), its write of `c` = 1 + 2 · 10 = 21 (branch 1 came through first): six events, and
/// the other actor's one write goes before any of them or after any, 7 places. With no
/// reduction, 7 executions: `a` ends 1 where the other's write comes before branch 1's
/// (2 places, the first two), else 7 (5 places). The same with `wait = 1`: branch 1's end
/// meets the join, branch 2 is cancelled (its turn frees it: still an event), the job's
/// write of `c` = 1 + 1 · 10 = 11 comes after that turn; six events again, 7 executions.
#[test]
fn the_flat_engine_counts_a_fork_by_hand() {
    let text = |wait: &str| {
        format!(
            "model = \"scenario\"\n\
             [[resource]]\nname = \"a\"\nkind = \"register\"\n\
             [[resource]]\nname = \"b\"\nkind = \"register\"\n\
             [[resource]]\nname = \"c\"\nkind = \"register\"\n\
             [[actor]]\nname = \"p\"\nsteps = [{{ parallel = [[{{ write = \"a\", value = 1 }}], \
             [{{ write = \"b\", value = 2 }}]]{wait} }}, {{ write = \"c\", value = \"winner + joined * 10\" }}]\n\
             [[actor]]\nname = \"q\"\nsteps = [{{ write = \"a\", value = 7 }}]\n"
        )
    };
    for (wait, c) in [("", 21.0), (", wait = 1", 11.0)] {
        let text = text(wait);
        let flat = flat_alone(&text, Reduction::Off);
        assert_eq!(flat.executions, 7, "{text}");
        assert_eq!(flat.longest, 7, "{text}");
        // Each register's four metrics in order (value, writes, lost updates, refusals):
        // `a`'s value first, `c`'s the ninth.
        assert_eq!(executions_of(&flat, &[0, 8], &[1.0, c]), Some(2), "{text}");
        assert_eq!(executions_of(&flat, &[0, 8], &[7.0, c]), Some(5), "{text}");
        assert_eq!(flat.outcomes.len(), 2, "{text}");
        // And the interpreter's outcomes, traces and all.
        let limits = ExploreLimits {
            symmetry: Symmetry::Off,
            reduce: Reduction::Off,
            ..ExploreLimits::default()
        };
        assert_eq!(
            with(&text, limits, Engine::Interpret)[0].outcomes,
            flat.outcomes
        );
    }
}
