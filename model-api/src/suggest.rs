//! The nearest valid names to a misspelled one, for "did you mean" in an error: shared by
//! the front end's config reader and the composer's, so both suggest alike.

/// Most names a "did you mean" offers.
const MAX_NEAREST: usize = 3;

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

/// `name` spelled in ASCII, for a name that must be ASCII but was written with Turkish
/// letters (`sayaç` → `sayac`, `İşlem` → `Islem`); `None` when no letter changes.
pub fn ascii_spelling(name: &str) -> Option<String> {
    let spelled: String = name
        .chars()
        .map(|c| match c {
            'ç' => 'c',
            'Ç' => 'C',
            'ğ' => 'g',
            'Ğ' => 'G',
            'ı' => 'i',
            'İ' => 'I',
            'ö' => 'o',
            'Ö' => 'O',
            'ş' => 's',
            'Ş' => 'S',
            'ü' => 'u',
            'Ü' => 'U',
            c => c,
        })
        .collect();
    (spelled != name).then_some(spelled)
}

/// ` (did you mean `sayac`?)` for a name written with Turkish letters, when its ASCII
/// spelling is a name (ASCII letters, digits and `_`, not starting with a digit) and `free`
/// says nothing else has it (a suggestion must not lead to "`sayac` is taken"); else
/// nothing.
pub fn ascii_hint(name: &str, free: impl Fn(&str) -> bool) -> String {
    match ascii_spelling(name) {
        Some(spelled)
            if spelled
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && spelled
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
                && free(&spelled) =>
        {
            format!(" (did you mean `{spelled}`?)")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ascii_spelling_is_offered_only_when_it_is_a_free_name() {
        assert_eq!(ascii_hint("sayaç", |_| true), " (did you mean `sayac`?)");
        assert_eq!(ascii_hint("sayaç", |n| n != "sayac"), "");
        // Not a name even in ASCII: a space, a leading digit.
        assert_eq!(ascii_hint("iş yükü", |_| true), "");
        assert_eq!(ascii_hint("1ş", |_| true), "");
        assert_eq!(ascii_hint("counter", |_| true), "");
    }

    #[test]
    fn turkish_letters_are_spelled_in_ascii() {
        assert_eq!(ascii_spelling("sayaç").as_deref(), Some("sayac"));
        assert_eq!(ascii_spelling("İşlem_ğüöı").as_deref(), Some("Islem_guoi"));
        assert_eq!(ascii_spelling("counter"), None);
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
