//! Reading a schedule file as a stream: its `events` array is walked item by item and never
//! held as text or as a generic TOML tree, so a schedule past the event limit is refused in
//! bounded memory, at the first event too many. The rest of the file (its few header keys)
//! is kept, with the array emptied, for the TOML parser.
//!
//! Three walks over the file, each reading it from disk: the survey (the header, where the
//! array is, its events counted), the events read into choices, and, for an error found by
//! the run, the place of one event.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};

use crate::source::ConfigError;

/// Most bytes of a schedule outside its `events` array: coordsim writes a few lines there
/// (a comment, the config's stem, the point, its swept settings).
pub(super) const MAX_HEADER_BYTES: usize = 1 << 20;

/// A place in the file: its byte offset, 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Place {
    pub(super) offset: u64,
    pub(super) line: usize,
    pub(super) col: usize,
}

impl Place {
    const START: Place = Place {
        offset: 0,
        line: 1,
        col: 1,
    };
}

/// `message` at `place` of the file `name`, as a config error says it.
pub(super) fn error_at(name: &str, place: Place, message: impl Into<String>) -> ConfigError {
    ConfigError {
        location: format!(
            "{}:{}:{}",
            crate::format::one_line(name),
            place.line,
            place.col
        ),
        message: message.into(),
    }
}

/// Bytes of the file, read through a buffer, with the place of the next one.
struct Cursor {
    file: BufReader<File>,
    buf: Vec<u8>,
    at: usize,
    place: Place,
}

impl Cursor {
    /// The file opened at `place` (its offset, line and column known).
    fn open(file: &File, place: Place) -> std::io::Result<Cursor> {
        let mut file = BufReader::with_capacity(1 << 16, file.try_clone()?);
        file.seek(SeekFrom::Start(place.offset))?;
        Ok(Cursor {
            file,
            buf: Vec::with_capacity(1 << 16),
            at: 0,
            place,
        })
    }

    /// The byte `ahead` places on, without taking it (`None` at the end of the file).
    fn peek(&mut self, ahead: usize) -> std::io::Result<Option<u8>> {
        while self.at + ahead >= self.buf.len() {
            self.buf.drain(..self.at);
            self.at = 0;
            let mut chunk = [0u8; 1 << 14];
            let n = self.file.read(&mut chunk)?;
            if n == 0 {
                return Ok(None);
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
        Ok(Some(self.buf[self.at + ahead]))
    }

    /// Takes the next byte.
    fn next(&mut self) -> std::io::Result<Option<u8>> {
        let b = self.peek(0)?;
        if let Some(b) = b {
            self.at += 1;
            self.place.offset += 1;
            if b == b'\n' {
                self.place.line += 1;
                self.place.col = 1;
            } else if b & 0xC0 != 0x80 {
                // A character's first byte (not a UTF-8 continuation) moves a column.
                self.place.col += 1;
            }
        }
        Ok(b)
    }
}

/// What went wrong in a walk: the file could not be read, or its text is at fault here.
pub(super) enum Fault {
    Io(std::io::Error),
    At(Place, String),
}

impl From<std::io::Error> for Fault {
    fn from(e: std::io::Error) -> Fault {
        Fault::Io(e)
    }
}

fn fault<T>(place: Place, message: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::At(place, message.into()))
}

/// What the survey found.
pub(super) struct Survey {
    /// The file's text with the `events` array's items left out (`events = []`).
    pub(super) header: String,
    /// The `events` array, when the file has one at its top level.
    pub(super) events: Option<Array>,
}

/// Where the `events` array is and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Array {
    /// Its `[`.
    pub(super) open: Place,
    /// Its `]`.
    pub(super) close: Place,
    /// Where its `]` is in the survey's `header`.
    pub(super) close_in_header: usize,
    /// How many events it holds.
    pub(super) count: usize,
}

/// Reads the file once: the header text (capped at [`MAX_HEADER_BYTES`]), and the
/// top-level `events` array's place and count (refused past `max_events`, at the first
/// event too many, before any is kept).
pub(super) fn survey(file: &File, max_events: usize) -> Result<Survey, Fault> {
    let mut c = Cursor::open(file, Place::START)?;
    let mut header: Vec<u8> = Vec::new();
    let mut events = None;
    // Nesting of arrays and tables within a value (0: between statements), whether the next
    // token starts a statement, and whether a table header was seen (past it, a key is no
    // longer the root's).
    let (mut depth, mut line_start, mut root) = (0usize, true, true);
    let push = |header: &mut Vec<u8>, b: u8, place: Place| -> Result<(), Fault> {
        if header.len() >= MAX_HEADER_BYTES {
            return fault(
                place,
                format!(
                    "more than {MAX_HEADER_BYTES} bytes outside `events`: a schedule coordsim writes has a few lines there"
                ),
            );
        }
        header.push(b);
        Ok(())
    };
    while let Some(b) = c.peek(0)? {
        let place = c.place;
        match b {
            b'\n' => {
                c.next()?;
                push(&mut header, b, place)?;
                line_start = depth == 0;
            }
            b' ' | b'\t' | b'\r' => {
                c.next()?;
                push(&mut header, b, place)?;
            }
            b'#' => {
                while let Some(b) = c.peek(0)? {
                    if b == b'\n' {
                        break;
                    }
                    c.next()?;
                    push(&mut header, b, c.place)?;
                }
            }
            _ if line_start && depth == 0 && root && b != b'[' => {
                line_start = false;
                let key = statement_key(&mut c, &mut header, &push)?;
                if key.as_deref() == Some("events") && events.is_none() {
                    let open = c.place;
                    c.next()?;
                    push(&mut header, b'[', open)?;
                    let mut count = 0usize;
                    let close = walk(&mut c, &mut |_, place, _| {
                        count += 1;
                        if count > max_events {
                            return fault(
                                place,
                                format!(
                                    "`events`: more than {max_events} events; a schedule holds at most {max_events}"
                                ),
                            );
                        }
                        Ok(())
                    })?;
                    let close_in_header = header.len();
                    push(&mut header, b']', close)?;
                    events = Some(Array {
                        open,
                        close,
                        close_in_header,
                        count,
                    });
                }
            }
            b'"' | b'\'' => {
                copy_string(&mut c, &mut header, &push)?;
            }
            b'[' | b'{' => {
                if line_start && depth == 0 {
                    // A table header: what follows is not the root's.
                    root = false;
                }
                line_start = false;
                depth += 1;
                c.next()?;
                push(&mut header, b, place)?;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                c.next()?;
                push(&mut header, b, place)?;
            }
            _ => {
                line_start = false;
                c.next()?;
                push(&mut header, b, place)?;
            }
        }
    }
    let header = String::from_utf8(header).map_err(|e| {
        Fault::At(
            Place::START,
            format!(
                "not UTF-8 text (byte {} outside `events` is not valid)",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    Ok(Survey { header, events })
}

/// Copies a statement's key (bare, quoted, or dotted) and what follows it up to its value;
/// gives the key's text when it is one plain key followed by `=` and an array's `[` (the
/// cursor then at the `[`), else `None` (the rest of the statement is copied as it comes).
fn statement_key(
    c: &mut Cursor,
    header: &mut Vec<u8>,
    push: &impl Fn(&mut Vec<u8>, u8, Place) -> Result<(), Fault>,
) -> Result<Option<String>, Fault> {
    let mut key = Vec::new();
    let first = c.peek(0)?;
    if matches!(first, Some(b'"' | b'\'')) {
        let start = header.len();
        copy_string(c, header, push)?;
        // The quoted text, its quotes dropped (a key with an escape is no `events`).
        key.extend_from_slice(&header[start + 1..header.len().saturating_sub(1)]);
    } else {
        while let Some(b) = c.peek(0)? {
            if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
                break;
            }
            let place = c.place;
            c.next()?;
            push(header, b, place)?;
            key.push(b);
        }
    }
    let mut seen_equals = false;
    while let Some(b) = c.peek(0)? {
        match b {
            b' ' | b'\t' => {}
            b'=' if !seen_equals => seen_equals = true,
            b'[' if seen_equals => return Ok(String::from_utf8(key).ok()),
            _ => return Ok(None),
        }
        let place = c.place;
        c.next()?;
        push(header, b, place)?;
    }
    Ok(None)
}

/// Copies a string (basic, literal, or multi-line) whole, the cursor at its first quote.
fn copy_string(
    c: &mut Cursor,
    header: &mut Vec<u8>,
    push: &impl Fn(&mut Vec<u8>, u8, Place) -> Result<(), Fault>,
) -> Result<(), Fault> {
    let start = c.place;
    let Some(quote) = c.next()? else {
        return Ok(());
    };
    push(header, quote, start)?;
    let triple = c.peek(0)? == Some(quote) && c.peek(1)? == Some(quote);
    if triple {
        for _ in 0..2 {
            let place = c.place;
            c.next()?;
            push(header, quote, place)?;
        }
    } else if c.peek(0)? == Some(quote) {
        // `""`: an empty string.
        let place = c.place;
        c.next()?;
        return push(header, quote, place);
    }
    let mut run = 0;
    while let Some(b) = c.next()? {
        push(header, b, c.place)?;
        if b == b'\\' && quote == b'"' {
            if let Some(escaped) = c.next()? {
                push(header, escaped, c.place)?;
            }
            run = 0;
            continue;
        }
        if b == b'\n' && !triple {
            return fault(
                start,
                "invalid TOML: a string that does not end on its line",
            );
        }
        run = if b == quote { run + 1 } else { 0 };
        if run >= if triple { 3 } else { 1 } {
            // A closing `"""` may have one or two quotes of the text before it.
            while triple && c.peek(0)? == Some(quote) && run < 5 {
                let place = c.place;
                c.next()?;
                push(header, quote, place)?;
                run += 1;
            }
            return Ok(());
        }
    }
    fault(start, "invalid TOML: a string that does not end")
}

/// Walks an array's items, the cursor just past its `[`, calling `item` with each one's
/// index, place and text (a basic or literal string, decoded); gives the place of its `]`.
/// Anything but one-line strings, separated by commas, is an error at it.
fn walk(
    c: &mut Cursor,
    item: &mut dyn FnMut(usize, Place, &str) -> Result<(), Fault>,
) -> Result<Place, Fault> {
    let mut bytes = Vec::new();
    let mut index = 0;
    // After an item, a comma (or the end) must come before the next.
    let mut need_comma = false;
    loop {
        let place = c.place;
        let Some(b) = c.peek(0)? else {
            return fault(place, "invalid TOML: `events` is not closed by `]`");
        };
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => {
                c.next()?;
            }
            b'#' => {
                while c.peek(0)?.is_some_and(|b| b != b'\n') {
                    c.next()?;
                }
            }
            b']' => {
                c.next()?;
                return Ok(place);
            }
            b',' if need_comma => {
                c.next()?;
                need_comma = false;
            }
            _ if need_comma => {
                return fault(place, "invalid TOML: expected `,` or `]` after an event");
            }
            b'"' | b'\'' => {
                read_string(c, &mut bytes)?;
                let Ok(text) = std::str::from_utf8(&bytes) else {
                    return fault(place, "an event's choice is not UTF-8 text");
                };
                item(index, place, text)?;
                index += 1;
                need_comma = true;
            }
            _ => {
                return fault(
                    place,
                    "`events`: each event's choice is a string (`\"1/2\"`)",
                );
            }
        }
    }
}

/// Reads a one-line basic or literal string's bytes (decoded) into `bytes`, the cursor at
/// its quote.
fn read_string(c: &mut Cursor, bytes: &mut Vec<u8>) -> Result<(), Fault> {
    let start = c.place;
    bytes.clear();
    let quote = c.next()?.unwrap_or(b'"');
    if c.peek(0)? == Some(quote) && c.peek(1)? == Some(quote) {
        return fault(
            start,
            "`events`: each event's choice is a one-line string (`\"1/2\"`)",
        );
    }
    loop {
        let Some(b) = c.next()? else {
            return fault(start, "invalid TOML: a string that does not end");
        };
        match b {
            b'\n' => {
                return fault(
                    start,
                    "invalid TOML: a string that does not end on its line",
                );
            }
            _ if b == quote => break,
            b'\\' if quote == b'"' => {
                let escaped = match c.next()? {
                    Some(b'"') => '"',
                    Some(b'\\') => '\\',
                    Some(b'n') => '\n',
                    Some(b't') => '\t',
                    Some(b'r') => '\r',
                    Some(b'b') => '\u{8}',
                    Some(b'f') => '\u{c}',
                    Some(b'e') => '\u{1b}',
                    Some(u @ (b'u' | b'U' | b'x')) => {
                        let digits = match u {
                            b'u' => 4,
                            b'U' => 8,
                            _ => 2,
                        };
                        let mut code = 0u32;
                        for _ in 0..digits {
                            let d = c.next()?.and_then(|d| (d as char).to_digit(16));
                            let Some(d) = d else {
                                return fault(start, "invalid TOML: a bad escape in a string");
                            };
                            code = code * 16 + d;
                        }
                        match char::from_u32(code) {
                            Some(ch) => ch,
                            None => {
                                return fault(start, "invalid TOML: a bad escape in a string");
                            }
                        }
                    }
                    _ => return fault(start, "invalid TOML: a bad escape in a string"),
                };
                let mut utf8 = [0u8; 4];
                bytes.extend_from_slice(escaped.encode_utf8(&mut utf8).as_bytes());
            }
            _ => bytes.push(b),
        }
    }
    Ok(())
}

/// Reads every event of the array that opens at `open`, each given to `item` (index,
/// place, text).
pub(super) fn read_events(
    file: &File,
    open: Place,
    item: &mut dyn FnMut(usize, Place, &str) -> Result<(), Fault>,
) -> Result<(), Fault> {
    let mut c = Cursor::open(file, open)?;
    c.next()?;
    walk(&mut c, item).map(|_| ())
}
