//! How deep a config's arrays and tables nest, counted before the TOML parser (which
//! recurses on it) sees the text.

/// Deepest nesting of `[` and `{` in a config's values (the TOML parser recurses on it).
pub(crate) const MAX_NESTING: usize = 64;

/// The byte offset where brackets first nest deeper than [`MAX_NESTING`] (outside strings
/// and comments), in one linear pass before the parser sees the text.
pub(super) fn too_deep(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                let triple = bytes[i..].starts_with(if q == b'"' { b"\"\"\"" } else { b"\'\'\'" });
                let close: &[u8] = if triple {
                    if q == b'"' { b"\"\"\"" } else { b"\'\'\'" }
                } else if q == b'"' {
                    b"\""
                } else {
                    b"\'"
                };
                i += close.len();
                while i < bytes.len() && !bytes[i..].starts_with(close) {
                    // A basic string's escaped quote does not close it.
                    if q == b'"' && bytes[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if !triple && bytes[i] == b'\n' {
                        break;
                    }
                    i += 1;
                }
                i += close.len() - 1;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::too_deep;

    #[test]
    fn nesting_is_counted_outside_strings_and_comments() {
        let deep = format!("a = {}{}", "[".repeat(65), "]".repeat(65));
        assert_eq!(too_deep(&deep), Some(4 + 64));
        assert_eq!(
            too_deep(&format!("a = {}{}", "[".repeat(64), "]".repeat(64))),
            None
        );
        for text in [
            format!("a = \"{}\"", "[".repeat(100)),
            format!("a = '{}'", "{".repeat(100)),
            format!("# {}\n", "[".repeat(100)),
            format!("a = \"\"\"{}\"\"\"", "[".repeat(100)),
            "a = \"\\".to_string(),
            "a = \"x\\\"[[[\"".to_string(),
            "\"".to_string(),
        ] {
            assert_eq!(too_deep(&text), None, "{text}");
        }
    }
}
