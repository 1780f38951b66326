//! Control flow in the flat back end: `if`s (on an outcome, on what was read or taken, on
//! `i` and the repetition), `stop`s and early ends (`end = true`, `end = "gave_up"`),
//! explored by both back ends on random points, and a hand count.

use coordsim_model::{ExploreLimits, Reduction, Symmetry};
use proptest::prelude::*;

use crate::flat_engine::{
    LOCKS_AND_QUEUES, delay, executions_split, flat_alone, mixed_group_steps, same,
    same_without_symmetry,
};

/// Steps with control flow on register `r{r}` (queues `Q`, `C` and lock `L` of
/// [`LOCKS_AND_QUEUES`]): an increment that gives up where what it read is 2 or more, a
/// compare-and-set whose outcome decides between a read and an early end, a stop of
/// member 0 in its first repetition, an `if` on the lock acquired, a take whose message
/// decides between a write and an end, a put on the queue of capacity 1 that gives up
/// when refused, and an end of every repetition after the first before its write.
fn flow_steps() -> impl Strategy<Value = Vec<String>> {
    (0..3usize, 0..7u8).prop_map(|(r, kind)| {
        let s = |text: &str| text.replace("R", &format!("r{r}"));
        match kind {
            0 => vec![
                s("{ read = \"R\" }"),
                s("{ if = { value = \"R\", below = 2 }, then = [{ write = \"R\", value = \"read + 1\" }], else = [{ end = \"gave_up\" }] }"),
            ],
            1 => vec![
                s("{ read = \"R\" }"),
                s("{ write = \"R\", value = \"read + 1\", cas = true, max_retries = 1 }"),
                s("{ if = \"applied\", then = [{ read = \"R\" }], else = [{ end = true }] }"),
            ],
            2 => vec![
                s("{ write = \"R\", value = \"i + 1\" }"),
                "{ if = { value = \"i + k\", equals = 0 }, then = [{ stop = true }] }".to_string(),
            ],
            3 => vec![
                "{ acquire = \"L\" }".to_string(),
                s("{ if = \"acquired\", then = [{ read = \"R\" }, { write = \"R\", value = \"read * 2 + 1\" }] }"),
                "{ release = \"L\" }".to_string(),
            ],
            4 => vec![
                "{ take = \"Q\" }".to_string(),
                s("{ if = { value = \"Q\", above = 1 }, then = [{ write = \"R\", value = \"Q\" }], else = [{ end = true }] }"),
            ],
            5 => vec![
                "{ put = \"C\", value = \"k + 1\", fields = { f = \"i\" } }".to_string(),
                s("{ if = \"full\", then = [{ end = \"gave_up\" }], else = [{ write = \"R\", value = \"k\" }] }"),
            ],
            _ => vec![
                "{ if = { value = \"k\", above = 0 }, then = [{ end = true }] }".to_string(),
                s("{ write = \"R\", value = \"k + 7\" }"),
            ],
        }
    })
}

/// A group's steps: one or two lists, each of [`flow_steps`] or (a third of the time) of
/// the flat back end's other steps.
fn group_steps() -> impl Strategy<Value = Vec<Vec<String>>> {
    mixed_group_steps(flow_steps())
}

/// A random point with control flow: up to two groups of up to two closed-loop actors,
/// each starting at 0 ms, or (`timed`) at 0, 5 or `i * 5` ms with a delay among its steps.
fn flow_config(timed: bool) -> impl Strategy<Value = String> {
    let group = (
        1..=2u32,
        1..=2u32,
        group_steps(),
        prop::option::of(delay()),
        0..3usize,
        prop_oneof![Just("0"), Just("5"), Just("\"i * 5\"")],
    );
    prop::collection::vec(group, 1..=2).prop_map(move |groups| {
        let mut text = String::from(LOCKS_AND_QUEUES);
        for r in 0..3 {
            text.push_str(&format!(
                "[[resource]]\nname = \"r{r}\"\nkind = \"register\"\ninitial = {r}\n"
            ));
        }
        for (g, (count, repeat, steps, pause, at, start)) in groups.into_iter().enumerate() {
            let mut steps = steps.concat();
            let start = if timed {
                if let Some(pause) = pause {
                    steps.insert(at.min(steps.len()), pause);
                }
                start
            } else {
                "0"
            };
            text.push_str(&format!(
                "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\n\
                 start_ms = {start}\nsteps = [{}]\n",
                steps.join(", ")
            ));
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Both back ends explore points with `if`s, stops and ends alike in every field (the
    /// flat one's run is checked to be its own: `same` compares the engines' names, so
    /// the test cannot pass by falling back), with the reduction on and off, under a state
    /// bound, on one thread or two, and under symmetry without the reduction.
    #[test]
    fn the_flat_engine_follows_ifs_stops_and_ends_as_the_interpreter(
        text in flow_config(false),
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        let on = same_without_symmetry(&text, jobs, bound)?;
        same(&text, ExploreLimits { symmetry: Symmetry::On, reduce: Reduction::Off, ..on })?;
    }

    /// The same where time moves on: starts apart and delays among the steps, so that
    /// an event resumes at an `if` after a delay, and an early end or a stop records
    /// (or not) a response at its instant.
    #[test]
    fn the_flat_engine_follows_ifs_stops_and_ends_in_time_as_the_interpreter(
        text in flow_config(true),
        bound in 5u64..200,
        jobs in 1usize..3,
    ) {
        let on = same_without_symmetry(&text, jobs, bound)?;
        same(&text, ExploreLimits { symmetry: Symmetry::On, reduce: Reduction::Off, ..on })?;
    }
}

/// Two clients of one register `r` (from 0), each: read it; if what it read is below 1,
/// write `read + 1`, else end the repetition given up. With no reduction, by hand: call
/// the clients A and B, each with steps read (R) and, where it read 0, write (W). If both
/// reads come before either write (R R, in 2 orders), both read 0 and both write: the two
/// writes in either order, 2 × 2 = 4 executions, `r` ends 1 with a lost update. Else one
/// client (2 ways) reads and writes first (R W), and the other reads 1 after and gives up
/// at once (its `if` runs in its read's event): 2 executions, `r` ends 1 with no lost
/// update, one give-up. 6 executions in all, split 2 and 4.
#[test]
fn the_flat_engine_counts_an_if_by_hand() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n\
                [[actor]]\nname = \"client\"\ncount = 2\n\
                steps = [{ read = \"r\" }, { if = { value = \"r\", below = 1 }, \
                then = [{ write = \"r\", value = \"read + 1\" }], else = [{ end = \"gave_up\" }] }]\n";
    let flat = flat_alone(text, Reduction::Off);
    assert_eq!(flat.executions, 6);
    assert_eq!(executions_split(&flat), [2, 4]);
}
