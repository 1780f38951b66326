//! Valid names in an error message, kept to one readable line: the first few and how many
//! more, and the nearest to what was written. A list can be as long as the run is large (a
//! group of 100,000 actors names 100,000 entities), and an error line of a megabyte helps
//! nobody.

pub(crate) use coordsim_model::suggest::did_you_mean;

use crate::locale::Locale;

/// Most names an error lists before it says how many more there are.
pub(crate) const MAX_LISTED: usize = 10;

/// `names` joined with `, `: every one when there are at most [`MAX_LISTED`], else the
/// first ones and `… and 99,990 more`.
pub(crate) fn listed<S: AsRef<str>>(names: &[S]) -> String {
    let shown: Vec<&str> = names.iter().take(MAX_LISTED).map(AsRef::as_ref).collect();
    let mut text = shown.join(", ");
    if names.len() > MAX_LISTED {
        let rest = Locale::En.number(&(names.len() - MAX_LISTED).to_string());
        text.push_str(&format!(", … and {rest} more"));
    }
    text
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
}
