//! Numbers and cells as a reader sees them, in one place: the rounding rule of `table.md`,
//! chart ticks and messages, applied to the number itself (never to its text parsed back).

use coordsim_model::{Cell, Value};

use crate::locale::Locale;

/// `x` rounded for reading, plain (`.` for the decimal mark, no grouping): a whole number as
/// it is; else 1 decimal from 100 up, 2 from 1 up, 3 significant digits below 1; trailing
/// zeros dropped.
pub(crate) fn reading(x: f64) -> String {
    match reading_decimals(x) {
        None => x.to_string(),
        Some(decimals) => decimals_trimmed(x, decimals),
    }
}

/// The decimals [`reading`] rounds `x` to (`None`: a whole or non-finite number, as it is).
pub(crate) fn reading_decimals(x: f64) -> Option<usize> {
    if x.fract() == 0.0 || !x.is_finite() {
        return None;
    }
    let a = x.abs();
    Some(if a >= 100.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        // 3 significant digits below 1: 0.0123 → 4 decimals.
        (2 - a.log10().floor() as i32).clamp(3, 12) as usize
    })
}

/// `x` at `decimals` decimals, plain, trailing zeros dropped (no `-0`).
pub(crate) fn decimals_trimmed(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        &s
    };
    if s == "-0" { "0".into() } else { s.to_string() }
}

/// `x` plain at the reading rule's decimals plus `extra` (`None`: every digit, the shortest
/// text that reads back exactly).
pub(crate) fn reading_plus(x: f64, extra: Option<usize>) -> String {
    match (extra, reading_decimals(x)) {
        (None, _) | (_, None) => x.to_string(),
        (Some(extra), Some(d)) => decimals_trimmed(x, d + extra),
    }
}

/// The fewest decimals past the reading rule at which `verdict` on the figures as written
/// (rounded, then read back) is what it is on the exact ones; `None` when only every digit
/// does. A comparison's figures written so never hide why it holds or fails (4.5000001
/// against 4.5 ± 1e-9 keeps its seventh decimal).
pub(crate) fn digits_to_show(
    figures: &[Option<f64>],
    verdict: &dyn Fn(&[Option<f64>]) -> Option<bool>,
) -> Option<usize> {
    let exact = verdict(figures);
    (0..=17).find(|&extra| {
        let written: Vec<Option<f64>> = figures
            .iter()
            .map(|x| x.map(|x| reading_plus(x, Some(extra)).parse().unwrap_or(x)))
            .collect();
        verdict(&written) == exact
    })
}

/// `text` kept on one line: each control character (a line break, a tab, a terminal's
/// escape) written as its escape (`\n`, `\t`, `\u{1b}`), so that a line printed or a
/// comment written from it ends where it should and says what was there.
pub(crate) fn one_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\r' => "\\r".to_string(),
            '\t' => "\\t".to_string(),
            c if c.is_control() => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

/// `x` rounded for reading and written in `locale` (decimal mark, grouping).
pub(crate) fn number(x: f64, locale: Locale) -> String {
    locale.number(&reading(x))
}

/// A cell for reading, plain: a float rounded ([`reading`]), a count or flag as it is, text
/// as it is, an empty cell empty.
pub(crate) fn cell_reading(cell: &Cell) -> String {
    match cell {
        Cell::Float(x) => reading(*x),
        other => other.to_string(),
    }
}

/// A number cell for readers in `locale`: `digits` decimals when given, else rounded for
/// reading. Text stays as it is.
pub(crate) fn cell(cell: &Cell, digits: Option<usize>, locale: Locale) -> String {
    let plain = match (digits, cell.as_f64()) {
        (Some(d), Some(x)) if x.is_finite() => {
            let s = format!("{x:.d$}");
            // No "-0.00".
            if s.trim_start_matches('-')
                .bytes()
                .all(|b| b == b'0' || b == b'.')
            {
                s.trim_start_matches('-').to_string()
            } else {
                s
            }
        }
        _ => cell_reading(cell),
    };
    locale.number(&plain)
}

/// A parameter value as the CSV writes it: strings bare, numbers as numbers, everything else
/// as in TOML.
pub(crate) fn value_cell(value: &Value) -> Cell {
    match value {
        Value::Str(s) => Cell::Text(s.clone()),
        Value::Int(i) if *i >= 0 => Cell::Count(*i as u64),
        // Displays as the integer it is ("-3").
        Value::Int(i) => Cell::Float(*i as f64),
        Value::Float(x) => Cell::Float(*x),
        other => Cell::Text(other.to_string()),
    }
}

/// A verdict's numbers, for writing in a reader's locale at the claim's own precision.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Numbers {
    /// The value the run gave (none for a text claim or an empty cell).
    pub(crate) actual: Option<f64>,
    /// The expectation there.
    pub(crate) expected: Option<f64>,
    /// The claim's tolerance or slack (none: exact, a band or an interval).
    pub(crate) tolerance: Option<f64>,
    /// The interval a `within_ci` claim tested against (the mean's), or a band's bounds
    /// on actual / expected.
    pub(crate) ci: Option<(f64, f64)>,
    /// A `within_ci` claim's confidence (0.99).
    pub(crate) level: Option<f64>,
    /// How it compares: `"expect"`, `"at_most"`, `"at_least"`, `"band"`, `"within_ci"`,
    /// `"probability"`; empty when the page should show the check line's words.
    pub(crate) relation: &'static str,
}

/// A text's plain numbers (words between spaces, a trailing comma allowed: `rho = 0.8,`,
/// `± 0.05`) written in `locale`; every other word as it is.
pub(crate) fn numbers_in(text: &str, locale: Locale) -> String {
    text.split(' ')
        .map(|word| {
            let (number, tail) = match word.strip_suffix(',') {
                Some(n) => (n, ","),
                None => (word, ""),
            };
            format!("{}{tail}", locale.number(number))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `x` at the precision a tolerance implies, in `locale`: as many decimals as the
/// tolerance has (± 0.05: 2; trailing zeros dropped; at most 6), else rounded for reading.
pub(crate) fn at_tolerance(x: f64, tolerance: Option<f64>, locale: Locale) -> String {
    let plain = match tolerance {
        Some(t) if t > 1e-9 && t.is_finite() => {
            let decimals = (-t.log10()).ceil().clamp(0.0, 6.0) as usize;
            let s = format!("{x:.decimals$}");
            let s = if s.contains('.') {
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                s
            };
            if s == "-0" { "0".to_string() } else { s }
        }
        _ => reading(x),
    };
    locale.number(&plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_onto_one_line() {
        assert_eq!(
            one_line("lost\npoint = 7\tx\u{1b}[31m"),
            "lost\\npoint = 7\\tx\\u{1b}[31m"
        );
        assert_eq!(one_line("kayıp güncelleme"), "kayıp güncelleme");
    }

    /// A claim's number at its tolerance's precision: ± 0.05 keeps 2 decimals (166.666… →
    /// 166,67), ± 0.5 one, an exact claim (± 1e-9) the reading rule; grouped and marked by
    /// the locale.
    #[test]
    fn numbers_at_a_tolerance() {
        assert_eq!(
            at_tolerance(166.666_666_666_666_66, Some(0.05), Locale::Tr),
            "166,67"
        );
        assert_eq!(
            at_tolerance(166.666_666_666_666_66, Some(0.5), Locale::En),
            "166.7"
        );
        assert_eq!(at_tolerance(206.5, Some(1e-9), Locale::Tr), "206,5");
        assert_eq!(at_tolerance(1234.5678, Some(0.01), Locale::Tr), "1.234,57");
        assert_eq!(at_tolerance(4.0, Some(0.05), Locale::En), "4");
        assert_eq!(at_tolerance(-0.001, Some(0.1), Locale::En), "0");
    }

    #[test]
    fn a_reading_rounds_by_magnitude_and_keeps_whole_numbers_whole() {
        // 206.5 stays; 1000/6 = 166.67 → 1 decimal from 100: 166.7; 1.2051 → 2 decimals:
        // 1.21; 0.012345 → 3 significant digits: 0.0123; whole numbers as they are.
        assert_eq!(reading(206.5), "206.5");
        assert_eq!(reading(1000.0 / 6.0), "166.7");
        assert_eq!(reading(4.5), "4.5");
        assert_eq!(reading(1.2051), "1.21");
        assert_eq!(reading(0.012345), "0.0123");
        assert_eq!(reading(12.0), "12");
        assert_eq!(reading(-0.0001), "-0.0001");
        assert_eq!(reading(-0.00001), "-0.00001");
        assert_eq!(number(12345.25, Locale::Tr), "12.345,2");
        assert_eq!(cell_reading(&Cell::Text("poisson".into())), "poisson");
        assert_eq!(cell_reading(&Cell::Empty), "");
        assert_eq!(cell(&Cell::Float(-0.001), Some(2), Locale::En), "0.00");
        assert_eq!(cell(&Cell::Float(2.0 / 3.0), Some(3), Locale::Tr), "0,667");
    }
}
