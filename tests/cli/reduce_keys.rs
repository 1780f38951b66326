//! The partial-order reduction over key stores: a step on a key known before the run
//! (`key = "i"`: each member its own) touches that key alone, where the store's numbers
//! add up exactly in any order; elsewhere the store is touched as a whole.

use coordsim_model::{ExploreLimits, Reduction, Symmetry};

use crate::explore::{explore, limits};

/// `setters` members each setting a key of a store once, at 0 ms: `key` (TOML) and
/// `value` as written.
fn setters(setters: u32, key: &str, value: &str) -> String {
    format!(
        r#"model = "scenario"
[[resource]]
name = "ks"
kind = "keys"
[[actor]]
name = "g"
count = {setters}
steps = [{{ set = "ks", key = {key}, value = "{value}" }}]
"#
    )
}

/// Reduced, without symmetry (which would merge the members' orders by itself).
fn reduced(text: &str) -> coordsim_model::Exploration {
    let apart = ExploreLimits {
        symmetry: Symmetry::Off,
        ..limits(Reduction::On, true)
    };
    explore(text, &apart).remove(0)
}

/// Six members setting their own keys commute: the reduction takes one order, the start
/// and one state after each set (7 states, 1 execution), where every order is 6! = 720
/// executions.
#[test]
fn setters_of_their_own_keys_take_one_order() {
    let text = setters(6, r#""i""#, "1");
    let one = reduced(&text);
    assert_eq!((one.states, one.executions), (7, 1));
    let every = explore(
        &text,
        &ExploreLimits {
            symmetry: Symmetry::Off,
            ..limits(Reduction::Off, true)
        },
    )
    .remove(0);
    assert_eq!(every.executions, 720);
    assert!(every.states > 7);
    // One outcome either way: six keys, each holding 1.
    assert_eq!(one.outcomes.len(), 1);
    assert_eq!(one.outcomes[0].metrics, every.outcomes[0].metrics);
}

/// Keys given per member that meet (`[0, 1, 0, 1, 0, 1]`: members 0, 2, 4 on key 0) do not
/// commute:
/// the three on one key and the three on the other interleave, 6! / (3! 3!) = 20 ways to
/// mix the two keys' sets, each key's three sets in any of 3! orders: 720 again,
/// reduction or not (every set conflicts with another on its key).
#[test]
fn members_whose_keys_meet_keep_every_order() {
    let one = reduced(&setters(6, "[0, 1, 0, 1, 0, 1]", "1"));
    assert_eq!(one.executions, 720);
}

/// Numbers that are not whole can add up to a total a rounding apart in another order
/// (0.1 + 0.2 + 0.3 is not 0.1 + 0.3 + 0.2): the store is then touched as a whole, and
/// every order is taken.
#[test]
fn a_store_of_fractions_is_touched_as_a_whole() {
    let one = reduced(&setters(4, r#""i""#, "0.1 * (i + 1)"));
    assert_eq!(one.executions, 24, "4! orders");
    let whole = reduced(&setters(4, r#""i""#, "0.5"));
    assert_eq!(
        whole.executions, 24,
        "0.5 is a literal, but not a whole number"
    );
}

/// A thousand setters of their own keys (a repro that took 533 s and gigabytes): one order,
/// a state after each set.
#[test]
fn a_thousand_setters_of_their_own_keys_are_one_order() {
    let one = reduced(&setters(1000, r#""i""#, "1"));
    assert_eq!((one.states, one.executions), (1001, 1));
    assert!(one.bounded.is_none());
}
