//! Valid names in an error message, kept to one readable line: the first few and how many
//! more, and the nearest to what was written. A list can be as long as the run is large (a
//! group of 100,000 actors names 100,000 entities), and an error line of a megabyte helps
//! nobody.

use crate::locale::Locale;

/// Most names an error lists before it says how many more there are.
pub const MAX_LISTED: usize = 10;

/// Most names a "did you mean" offers.
const MAX_NEAREST: usize = 3;

/// `names` joined with `, `: every one when there are at most [`MAX_LISTED`], else the
/// first ones and `… and 99,990 more`.
pub fn listed<S: AsRef<str>>(names: &[S]) -> String {
    let shown: Vec<&str> = names.iter().take(MAX_LISTED).map(AsRef::as_ref).collect();
    let mut text = shown.join(", ");
    if names.len() > MAX_LISTED {
        let rest = Locale::En.number(&(names.len() - MAX_LISTED).to_string());
        text.push_str(&format!(", … and {rest} more"));
    }
    text
}

/// The names closest to `wanted` by edit distance (Levenshtein): those at the smallest
/// distance, the first three in the order given, and only within a third of the longer
/// name's length (at least 1 edit), so an unrelated name is never offered. One pass: the
/// cost grows like the names.
pub fn nearest<'a, S: AsRef<str> + 'a>(
    wanted: &str,
    names: impl IntoIterator<Item = &'a S>,
) -> Vec<&'a str> {
    let wanted_len = wanted.chars().count();
    // The names at the smallest distance so far, in the order given.
    let mut best: Vec<(usize, &str)> = Vec::new();
    for name in names {
        let name = name.as_ref();
        let len = name.chars().count();
        let limit = (len.max(wanted_len) / 3).max(1);
        // The distance is at least the difference of the lengths: skip what cannot be close.
        if len.abs_diff(wanted_len) > limit || name == wanted {
            continue;
        }
        let d = strsim::levenshtein(wanted, name);
        if d > limit || best.first().is_some_and(|(b, _)| d > *b) {
            continue;
        }
        if best.first().is_some_and(|(b, _)| d < *b) {
            best.clear();
        }
        if best.len() < MAX_NEAREST {
            best.push((d, name));
        }
    }
    best.into_iter().map(|(_, n)| n).collect()
}

/// ` (did you mean `x`?)` (or `` `x` or `y` ``) for the nearest names, to follow the name
/// an error quotes; nothing when none is near.
pub fn did_you_mean<'a, S: AsRef<str> + 'a>(
    wanted: &str,
    names: impl IntoIterator<Item = &'a S>,
) -> String {
    let near: Vec<String> = nearest(wanted, names)
        .into_iter()
        .map(|n| format!("`{n}`"))
        .collect();
    if near.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", near.join(" or "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_list_shows_the_first_ten_and_counts_the_rest() {
        let names: Vec<String> = (0..100_000).map(|i| format!("w-{i}")).collect();
        let text = listed(&names);
        // Ten shown; 100,000 − 10 = 99,990 more.
        assert!(text.starts_with("w-0, w-1, "), "{text}");
        assert!(text.ends_with("w-9, … and 99,990 more"), "{text}");
        assert_eq!(listed(&["a", "b"]), "a, b");
    }

    #[test]
    fn the_nearest_names_are_offered_and_far_ones_never() {
        let names = ["alpha", "beta", "gamma", "alpah"];
        // `alph` is one edit from `alpha` (a appended) and from `alpah` (a inserted): both, in
        // the order given; `gamma` is 4 edits away.
        assert_eq!(nearest("alph", &names), vec!["alpha", "alpah"]);
        assert_eq!(did_you_mean("bet", &names), " (did you mean `beta`?)");
        assert_eq!(did_you_mean("zzzzzz", &names), "");
        // Only the nearest: `gamm` is one edit from `gamma`, two from `gram` and `gamut`.
        assert_eq!(nearest("gamm", &["gamma", "gram", "gamut"]), vec!["gamma"]);
        // An exact match is not a suggestion.
        assert_eq!(nearest("beta", &["beta"]), Vec::<&str>::new());
    }
}
