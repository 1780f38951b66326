//! A config file's text, and errors that point into it as `FILE:LINE:COL`.

use std::fmt;
use std::ops::Range;

/// A byte range in a config file.
pub(crate) type Span = Range<usize>;

/// A config file as given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The path as the user wrote it (errors repeat it verbatim).
    pub name: String,
    /// The file's text.
    pub text: String,
}

impl Source {
    /// An error at `span`'s start.
    pub(crate) fn error(&self, span: &Span, message: impl Into<String>) -> ConfigError {
        let (line, col) = self.line_col(span.start);
        ConfigError {
            // The path on the error's line, whatever its name holds.
            location: format!("{}:{line}:{col}", crate::format::one_line(&self.name)),
            message: message.into(),
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..floor_char_boundary(&self.text, offset)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        (line, col)
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// A config error: `FILE:LINE:COL: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// `FILE:LINE:COL`.
    pub location: String,
    /// What is wrong and what would be valid.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let src = Source {
            name: "x.toml".into(),
            text: "a = 1\ntitle = \"ğü\" x\n".into(),
        };
        // The `x` after the two-byte letters: byte 19, character column 14 of line 2.
        let offset = src.text.find(" x").unwrap() + 1;
        assert_eq!(src.line_col(offset), (2, 14));
        assert_eq!(src.error(&(0..1), "bad").to_string(), "x.toml:1:1: bad");
    }
}
