//! `lesson check --lint`: the numbers in a lesson's prose that no region checks, so an author
//! sees what is still unchecked.
//!
//! Skipped: fenced code, inline code, HTML comments (markers included), marked regions, link
//! targets, and numbers that are part of a word or a name (`p95`, `M/M/1`, `v2`). A number
//! the lesson allows (`<!-- coordsim allow 2024 3.1 -->`: years, section numbers) is skipped
//! everywhere in that file.

use super::parse::{Lesson, Pos};

/// An unchecked number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Warning {
    /// Where.
    pub(crate) pos: Pos,
    /// The number as written.
    pub(crate) number: String,
}

/// The byte ranges of inline code spans, comments and link targets in `text`.
fn unmarked_skips(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut skips = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("<!--") {
        let start = from + i;
        let end = text[start..]
            .find("-->")
            .map_or(text.len(), |j| start + j + 3);
        skips.push(start..end);
        from = end;
    }
    for line_start in std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)) {
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |j| line_start + j);
        let line = &text[line_start..line_end];
        // Inline code, as the parser reads it.
        for span in super::parse::code_spans(line) {
            skips.push(line_start + span.start..line_start + span.end);
        }
        // Link and image targets.
        let mut k = 0;
        while let Some(i) = line[k..].find("](") {
            let start = k + i;
            let end = line[start..]
                .find(')')
                .map_or(line.len(), |j| start + j + 1);
            skips.push(line_start + start..line_start + end);
            k = end;
        }
    }
    skips
}

/// The number starting at `chars[start]` (a digit): where it ends, and whether it is part of
/// a word. A number is digits with single inner marks (1.234,5); part of a word when a
/// letter, `_` or `/` touches it (`p95`, `M/M/1`).
fn number_at(chars: &[(usize, char)], start: usize) -> (usize, bool) {
    let mut end = start;
    while end < chars.len()
        && (chars[end].1.is_ascii_digit()
            || ((chars[end].1 == '.' || chars[end].1 == ',')
                && chars.get(end + 1).is_some_and(|n| n.1.is_ascii_digit())))
    {
        end += 1;
    }
    let before = start.checked_sub(1).map(|k| chars[k].1);
    let after = chars.get(end).map(|x| x.1);
    let wordy = |c: Option<char>| c.is_some_and(|c| c.is_alphabetic() || c == '_' || c == '/');
    (end, wordy(before) || wordy(after))
}

/// The numbers of `text` that are no part of a word, as (the character they start at, the
/// number as written): what a value region's text holds besides the one it checks.
pub(crate) fn loose_numbers(text: &str) -> Vec<(usize, String)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].1.is_ascii_digit() {
            i += 1;
            continue;
        }
        let (end, in_word) = number_at(&chars, i);
        if !in_word {
            found.push((i, chars[i..end].iter().map(|x| x.1).collect()));
        }
        i = end;
    }
    found
}

/// The unchecked numbers of a lesson.
pub(crate) fn lint(lesson: &Lesson) -> Vec<Warning> {
    let text = &lesson.text;
    let mut skipped = vec![false; text.len() + 1];
    for r in lesson.skipped.iter().chain(&unmarked_skips(text)) {
        for b in &mut skipped[r.start.min(text.len())..r.end.min(text.len())] {
            *b = true;
        }
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut warnings = Vec::new();
    let (mut line, mut line_start_char) = (1, 0);
    let mut i = 0;
    while i < chars.len() {
        let (offset, c) = chars[i];
        if c == '\n' {
            line += 1;
            line_start_char = i + 1;
            i += 1;
            continue;
        }
        if !c.is_ascii_digit() || skipped[offset] {
            i += 1;
            continue;
        }
        let start = i;
        let (end, in_word) = number_at(&chars, start);
        let number: String = chars[start..end].iter().map(|x| x.1).collect();
        if !in_word && !lesson.allowed.contains(&number) {
            warnings.push(Warning {
                pos: Pos {
                    line,
                    col: start - line_start_char + 1,
                    offset,
                },
                number,
            });
        }
        i = end;
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    #[test]
    fn only_unmarked_prose_numbers_are_reported() {
        let text = "<!-- coordsim use s = \"a.toml\" -->\n<!-- coordsim allow 2024 -->\n# 2024 dersi\nSayaç <!-- coordsim s.x -->45<!-- /coordsim --> olur, 355 kaybolur; p95 ve M/M/1, `42` kod.\n```\n12\n```\n[bağlantı](img/3.svg) ve 7,5 ms.\n";
        let lesson = parse(text).unwrap();
        let found: Vec<(usize, usize, String)> = lint(&lesson)
            .into_iter()
            .map(|w| (w.pos.line, w.pos.col, w.number))
            .collect();
        // Line 4: "Sayaç " (6) + the marker (21) + "45" (2) + the close (18) + " olur, " (7)
        // = 54 characters before 355: column 55. Line 8: "[bağlantı](img/3.svg) ve " is 25.
        assert_eq!(
            found,
            vec![(4, 55, "355".to_string()), (8, 26, "7,5".to_string())]
        );
    }
}
