//! Reading a lesson: its declarations and marked regions, with their positions.
//!
//! Markers are HTML comments, `<!-- coordsim … -->` … `<!-- /coordsim -->`, outside fenced
//! code blocks and inline code (a lesson may show the syntax in code). An inline region opens
//! and closes on one line; a table or chart block opens on a line of its own and closes on a
//! later line of its own; an explorer's marker is a line of its own with nothing to close.

use crate::locale::Locale;

/// A place in a lesson: 1-based line and column (in characters), and the byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    /// Line, from 1.
    pub(crate) line: usize,
    /// Column in characters, from 1.
    pub(crate) col: usize,
    /// Byte offset in the file.
    pub(crate) offset: usize,
}

/// A lesson's problem: bad input, exit 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LessonError {
    /// Where.
    pub(crate) pos: Pos,
    /// What is wrong, and what would be valid.
    pub(crate) message: String,
}

/// A `KEY=VALUE` filter or option of a marker (a bare word has no value).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Arg {
    /// The key.
    pub(crate) key: String,
    /// The value, quotes removed (`None` for a bare word such as `entity` in a table).
    pub(crate) value: Option<String>,
    /// Where the argument starts.
    pub(crate) pos: Pos,
}

/// What a region shows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// `NAME.COLUMN filters…`: one value in the text.
    Value {
        /// The column (metric, entity column or parameter).
        column: String,
    },
    /// `table NAME options…`: a Markdown table.
    Table,
    /// `chart NAME CHART`: an image of a chart.
    Chart {
        /// The chart's name in the config.
        chart: String,
    },
    /// `explored NAME.WHAT filters…`: one value of the config's exploration in the text
    /// (an outcome's probability, its executions, how many outcomes; the states…).
    Explored {
        /// What is read: one of [`EXPLORED`].
        what: String,
    },
    /// `explorer NAME filters…`, a line of its own and no close: the explorer of one
    /// explored point of the config, played in the lesson (no text of the lesson's own).
    Explorer,
}

/// What an `explored` region may read: of the outcomes its filters select, their summed
/// probability and executions and their number; a metric's mean over every execution
/// (`of=METRIC`), weighted by probability; of the whole exploration, its states,
/// transitions and longest execution.
pub(crate) const EXPLORED: [&str; 7] = [
    "probability",
    "mean",
    "executions",
    "outcomes",
    "states",
    "transitions",
    "longest",
];

/// A marked region.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Region {
    /// What it shows.
    pub(crate) kind: Kind,
    /// The config's name (a `use` declaration).
    pub(crate) config: String,
    /// Filters and options.
    pub(crate) args: Vec<Arg>,
    /// Where the opening marker starts.
    pub(crate) marker: Pos,
    /// Where the content starts.
    pub(crate) at: Pos,
    /// The content's byte range in the file (between the markers; for a block, the lines
    /// between the marker lines, with their line ends).
    pub(crate) content: std::ops::Range<usize>,
}

/// A `use NAME = "PATH"` declaration.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Use {
    /// The name regions use.
    pub(crate) name: String,
    /// The path as written (relative to the lesson).
    pub(crate) path: String,
    /// Where it is written.
    pub(crate) pos: Pos,
}

/// A parsed lesson.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Lesson {
    /// The file's text.
    pub(crate) text: String,
    /// Its configs.
    pub(crate) uses: Vec<Use>,
    /// How its numbers are written.
    pub(crate) locale: Locale,
    /// Its regions, in file order.
    pub(crate) regions: Vec<Region>,
    /// Numbers `--lint` accepts in the prose (`<!-- coordsim allow 2024 3.1 -->`).
    pub(crate) allowed: Vec<String>,
    /// Byte ranges `--lint` skips: fenced code, markers, regions.
    pub(crate) skipped: Vec<std::ops::Range<usize>>,
}

/// The longest marker body read (a marker is a line of options, not a document).
const MAX_MARKER: usize = 4096;

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Positions of byte offsets, computed once per line.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    fn pos(&self, offset: usize) -> Pos {
        let line = self.starts.partition_point(|s| *s <= offset);
        let start = self.starts[line - 1];
        let col = self.text[start..offset].chars().count() + 1;
        Pos { line, col, offset }
    }
}

/// Splits a marker's arguments at spaces, keeping quoted values whole.
fn split_args(body: &str, base: usize, lines: &Lines<'_>) -> Result<Vec<Arg>, LessonError> {
    let mut args = Vec::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let mut value = String::new();
        let mut key = String::new();
        let mut has_value = false;
        let mut quoted = false;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            let c = body[i..].chars().next().unwrap_or(' ');
            if c == '=' && !has_value {
                has_value = true;
                i += 1;
                if body[i..].starts_with('"') {
                    let Some(end) = body[i + 1..].find('"') else {
                        return Err(LessonError {
                            pos: lines.pos(base + start),
                            message: "a quoted value is not closed with `\"`".into(),
                        });
                    };
                    value.push_str(&body[i + 1..i + 1 + end]);
                    i += end + 2;
                    quoted = true;
                }
                continue;
            }
            if has_value {
                if quoted {
                    return Err(LessonError {
                        pos: lines.pos(base + i),
                        message: "text after a quoted value; put a space between arguments".into(),
                    });
                }
                value.push(c);
            } else {
                key.push(c);
            }
            i += c.len_utf8();
        }
        args.push(Arg {
            key,
            value: has_value.then_some(value),
            pos: lines.pos(base + start),
        });
    }
    Ok(args)
}

/// The byte ranges of a line's inline code spans, by CommonMark's rule: a run of N backticks
/// opens a span that the next run of exactly N backticks closes; a run no such run follows is
/// plain text (the scan goes on after it). An HTML comment that starts first is no code.
pub(super) fn code_spans(line: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = line.as_bytes();
    let run = |at: usize| bytes[at..].iter().take_while(|b| **b == b'`').count();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"<!--") {
            i = line[i..].find("-->").map_or(line.len(), |j| i + j + 3);
            continue;
        }
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let n = run(i);
        let mut j = i + n;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let m = run(j);
                if m == n {
                    close = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                spans.push(i..end);
                i = end;
            }
            None => i += n,
        }
    }
    spans
}

/// Reads a lesson's markers.
pub(crate) fn parse(text: &str) -> Result<Lesson, LessonError> {
    let mut p = Parser {
        text,
        lines: Lines::new(text),
        lesson: Lesson {
            text: text.to_string(),
            uses: Vec::new(),
            locale: Locale::En,
            regions: Vec::new(),
            allowed: Vec::new(),
            skipped: Vec::new(),
        },
        locale_at: None,
        open_block: None,
    };
    // A fence: its character, length and start.
    let mut fence: Option<(char, usize, usize)> = None;
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        // Fenced code: ``` or ~~~ (three or more), closed by the same character, as long.
        let fence_char = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        if let Some(c) = fence_char {
            let n = trimmed.chars().take_while(|x| *x == c).count();
            if n >= 3 {
                match fence {
                    None if p.open_block.is_none() => {
                        fence = Some((c, n, line_start));
                        continue;
                    }
                    Some((fc, fnum, start))
                        if fc == c && n >= fnum && trimmed[n..].trim().is_empty() =>
                    {
                        p.lesson.skipped.push(start..offset);
                        fence = None;
                        continue;
                    }
                    _ => {}
                }
            }
        }
        if fence.is_none() {
            p.markers(line, line_start, offset)?;
        }
    }
    p.finish()
}

/// The state of a lesson being read: what it declared so far, and the block open.
struct Parser<'t> {
    text: &'t str,
    lines: Lines<'t>,
    lesson: Lesson,
    locale_at: Option<Pos>,
    /// An open block (its content starts after its marker's line).
    open_block: Option<Region>,
}

fn at(pos: Pos, message: impl Into<String>) -> LessonError {
    LessonError {
        pos,
        message: message.into(),
    }
}

impl Parser<'_> {
    /// The markers on one line (`line_start` its offset, `next` the next line's).
    fn markers(&mut self, line: &str, line_start: usize, next: usize) -> Result<(), LessonError> {
        let code = code_spans(line);
        let mut search = 0;
        while let Some(found) = line[search..].find("<!--") {
            let start = search + found;
            // A marker inside inline code is shown, not read (as in a fence).
            if let Some(span) = code.iter().find(|c| c.contains(&start)) {
                search = span.end;
                continue;
            }
            let Some(len) = line[start..].find("-->") else {
                break;
            };
            let end = start + len + 3;
            search = end;
            let body = line[start + 4..start + len].trim();
            let abs = line_start + start;
            let pos = self.lines.pos(abs);
            let alone = line[..start].trim().is_empty() && line[end..].trim().is_empty();
            if body == "/coordsim" {
                self.lesson.skipped.push(abs..line_start + end);
                self.close_block(pos, alone, line_start)?;
                continue;
            }
            let Some(rest) = body.strip_prefix("coordsim") else {
                continue;
            };
            if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
                continue;
            }
            self.lesson.skipped.push(abs..line_start + end);
            if self.open_block.is_some() {
                return Err(at(
                    pos,
                    "regions never nest: close the open block with `<!-- /coordsim -->` first",
                ));
            }
            if body.len() > MAX_MARKER {
                return Err(at(
                    pos,
                    format!("a marker has at most {MAX_MARKER} characters"),
                ));
            }
            let rest = rest.trim();
            let (word, after) = rest
                .split_once(char::is_whitespace)
                .unwrap_or((rest, &rest[rest.len()..]));
            // `after` is a slice of `line`: its byte offset in the file.
            let after_base = line_start + (after.as_ptr() as usize - line.as_ptr() as usize);
            match word {
                "use" => self.use_decl(pos, after)?,
                "locale" => self.locale_decl(pos, after)?,
                // Numbers part at spaces: a comma inside one is its decimal (or group) mark
                // (`0,99` in Turkish), one after it a list's (`2024, 3`).
                "allow" => self.lesson.allowed.extend(
                    after
                        .split_whitespace()
                        .map(|s| s.trim_end_matches(','))
                        .filter(|s| !s.is_empty())
                        .map(String::from),
                ),
                "explored" => {
                    let close =
                        self.explored(pos, after, after_base, &line[end..], line_start + end)?;
                    search = end + close;
                }
                "explorer" => {
                    if !alone {
                        return Err(at(pos, "an explorer's marker is a line of its own"));
                    }
                    self.explorer(pos, after, after_base, next)?;
                }
                "table" | "chart" => {
                    if !alone {
                        return Err(at(
                            pos,
                            format!("a {word} block opens on a line of its own"),
                        ));
                    }
                    self.open(pos, word, after, after_base, next)?;
                }
                _ => {
                    let close =
                        self.inline(pos, word, after, after_base, &line[end..], line_start + end)?;
                    search = end + close;
                }
            }
        }
        Ok(())
    }

    /// `<!-- /coordsim -->`: closes the open block (on a line of its own).
    fn close_block(&mut self, pos: Pos, alone: bool, line_start: usize) -> Result<(), LessonError> {
        let Some(mut block) = self.open_block.take() else {
            return Err(at(pos, "`<!-- /coordsim -->` closes no region"));
        };
        if !alone {
            return Err(at(
                pos,
                "a block closes with `<!-- /coordsim -->` on a line of its own",
            ));
        }
        block.content = block.content.start..line_start;
        self.lesson.skipped.push(block.content.clone());
        self.lesson.regions.push(block);
        Ok(())
    }

    /// `use NAME = "PATH"`.
    fn use_decl(&mut self, pos: Pos, after: &str) -> Result<(), LessonError> {
        let Some((name, path)) = after.split_once('=') else {
            return Err(at(pos, "a use is `use NAME = \"PATH\"`"));
        };
        let (name, path) = (name.trim(), path.trim());
        if !is_name(name) {
            return Err(at(
                pos,
                format!(
                    "`{name}` is not a name: letters, digits, `_` and `-`, not starting with a digit"
                ),
            ));
        }
        let Some(path) = path.strip_prefix('"').and_then(|p| p.strip_suffix('"')) else {
            return Err(at(
                pos,
                "the path of a use is in quotes: `use NAME = \"PATH\"`",
            ));
        };
        if self.lesson.uses.iter().any(|u| u.name == name) {
            return Err(at(pos, format!("`{name}` is declared twice")));
        }
        self.lesson.uses.push(Use {
            name: name.into(),
            path: path.into(),
            pos,
        });
        Ok(())
    }

    /// `locale = "tr"`, once.
    fn locale_decl(&mut self, pos: Pos, after: &str) -> Result<(), LessonError> {
        let value = after.trim_start_matches([' ', '=']).trim();
        let name = value.trim_matches('"');
        let Some(locale) = Locale::parse(name).filter(|_| value.starts_with('"')) else {
            return Err(at(
                pos,
                format!("unknown locale {value}; valid: \"en\", \"tr\""),
            ));
        };
        if self.locale_at.is_some() {
            return Err(at(pos, "the locale is declared twice"));
        }
        self.locale_at = Some(pos);
        self.lesson.locale = locale;
        Ok(())
    }

    /// `table NAME …` or `chart NAME CHART`: opens a block whose content starts at `next`.
    fn open(
        &mut self,
        pos: Pos,
        word: &str,
        after: &str,
        after_base: usize,
        next: usize,
    ) -> Result<(), LessonError> {
        let args = split_args(after, after_base, &self.lines)?;
        let Some((first, rest)) = args.split_first() else {
            return Err(at(
                pos,
                format!("`{word}` needs the name of a config: `{word} NAME …`"),
            ));
        };
        if first.value.is_some() {
            return Err(at(
                first.pos,
                format!("`{word}` needs the name of a config first: `{word} NAME …`"),
            ));
        }
        let (kind, args) = if word == "table" {
            (Kind::Table, rest.to_vec())
        } else {
            let Some((chart, more)) = rest.split_first().filter(|(c, _)| c.value.is_none()) else {
                return Err(at(
                    pos,
                    "a chart block is `chart NAME CHART` (the chart's name in the config)",
                ));
            };
            if let Some(extra) = more.first() {
                return Err(at(
                    extra.pos,
                    "a chart block takes no options beyond `chart NAME CHART`",
                ));
            }
            (
                Kind::Chart {
                    chart: chart.key.clone(),
                },
                Vec::new(),
            )
        };
        self.open_block = Some(Region {
            kind,
            config: first.key.clone(),
            args,
            marker: pos,
            at: self.lines.pos(next.min(self.text.len())),
            content: next..next,
        });
        Ok(())
    }

    /// `explorer NAME filters…`: a region with no content, at the next line.
    fn explorer(
        &mut self,
        pos: Pos,
        after: &str,
        after_base: usize,
        next: usize,
    ) -> Result<(), LessonError> {
        let args = split_args(after, after_base, &self.lines)?;
        let Some((first, rest)) = args.split_first().filter(|(a, _)| a.value.is_none()) else {
            return Err(at(
                pos,
                "an explorer is `explorer NAME filters…`: the name of a config first, then parameters that pick one explored point",
            ));
        };
        let next = next.min(self.text.len());
        self.lesson.regions.push(Region {
            kind: Kind::Explorer,
            config: first.key.clone(),
            args: rest.to_vec(),
            marker: pos,
            at: pos,
            content: next..next,
        });
        Ok(())
    }

    /// `NAME.COLUMN filters…`, closed on the same line: `tail` is the line after the marker,
    /// starting at byte `tail_at`. Gives how far past the marker the region's close ends.
    fn inline(
        &mut self,
        pos: Pos,
        word: &str,
        after: &str,
        after_base: usize,
        tail: &str,
        tail_at: usize,
    ) -> Result<usize, LessonError> {
        let Some((name, column)) = word.split_once('.') else {
            return Err(at(
                pos,
                format!(
                    "unknown marker `coordsim {word}`; valid: `use NAME = \"PATH\"`, `locale = \"tr\"`, `NAME.COLUMN filters…`, `explored NAME.WHAT filters…`, `table NAME …`, `chart NAME CHART`, `explorer NAME filters…`, `allow …`"
                ),
            ));
        };
        if !is_name(name) || column.is_empty() {
            return Err(at(pos, format!("`{word}` is not NAME.COLUMN")));
        }
        let args = split_args(after, after_base, &self.lines)?;
        let kind = Kind::Value {
            column: column.to_string(),
        };
        self.inline_region(pos, name, kind, args, tail, tail_at)
    }

    /// `explored NAME.WHAT filters…`, closed on the same line (as [`Parser::inline`]).
    fn explored(
        &mut self,
        pos: Pos,
        after: &str,
        after_base: usize,
        tail: &str,
        tail_at: usize,
    ) -> Result<usize, LessonError> {
        let args = split_args(after, after_base, &self.lines)?;
        let valid = EXPLORED.join(", ");
        let Some((first, rest)) = args.split_first().filter(|(a, _)| a.value.is_none()) else {
            return Err(at(
                pos,
                format!(
                    "an explored value is `explored NAME.WHAT filters…`; WHAT is one of {valid}"
                ),
            ));
        };
        let Some((name, what)) = first.key.split_once('.').filter(|(n, _)| is_name(n)) else {
            return Err(at(
                first.pos,
                format!("`{}` is not NAME.WHAT; WHAT is one of {valid}", first.key),
            ));
        };
        if !EXPLORED.contains(&what) {
            return Err(at(
                first.pos,
                format!(
                    "unknown explored value `{what}`{}; valid: {valid}",
                    crate::suggest::did_you_mean(what, &EXPLORED)
                ),
            ));
        }
        let kind = Kind::Explored {
            what: what.to_string(),
        };
        self.inline_region(pos, name, kind, rest.to_vec(), tail, tail_at)
    }

    /// An inline region of `kind` on config `name`, whose close is on the rest of its line
    /// (`tail`, at byte `tail_at`): how far past the marker its close ends.
    fn inline_region(
        &mut self,
        pos: Pos,
        name: &str,
        kind: Kind,
        args: Vec<Arg>,
        tail: &str,
        tail_at: usize,
    ) -> Result<usize, LessonError> {
        const CLOSE: &str = "<!-- /coordsim -->";
        let Some(close) = tail.find(CLOSE) else {
            return Err(at(
                pos,
                "an inline region closes with `<!-- /coordsim -->` on the same line",
            ));
        };
        let content = tail_at..tail_at + close;
        self.lesson.skipped.push(content.clone());
        self.lesson.regions.push(Region {
            kind,
            config: name.to_string(),
            args,
            marker: pos,
            at: self.lines.pos(content.start),
            content,
        });
        let close_at = tail_at + close;
        self.lesson.skipped.push(close_at..close_at + CLOSE.len());
        Ok(close + CLOSE.len())
    }

    /// No block left open, and every region's config declared.
    fn finish(self) -> Result<Lesson, LessonError> {
        if let Some(block) = self.open_block {
            return Err(at(
                block.marker,
                "this block is not closed: end it with `<!-- /coordsim -->` on a line of its own",
            ));
        }
        let lesson = self.lesson;
        for r in &lesson.regions {
            if !lesson.uses.iter().any(|u| u.name == r.config) {
                let names: Vec<&str> = lesson.uses.iter().map(|u| u.name.as_str()).collect();
                return Err(at(
                    r.marker,
                    format!(
                        "unknown config `{}`{}; declared: {} (declare it with `<!-- coordsim use {} = \"PATH\" -->`)",
                        r.config,
                        crate::suggest::did_you_mean(&r.config, &names),
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        },
                        r.config
                    ),
                ));
            }
        }
        Ok(lesson)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LESSON: &str = "<!-- coordsim use store = \"a.toml\" -->\n<!-- coordsim locale = \"tr\" -->\nSayaç <!-- coordsim store.total -->45<!-- /coordsim -->'e çıkar, kayıp <!-- coordsim store.ratio_pct form=\"a b\" -->%88,8<!-- /coordsim -->.\n\n```\n<!-- coordsim store.nope -->1<!-- /coordsim -->\n```\n<!-- coordsim table store columns=a,b entity -->\n| a |\n<!-- /coordsim -->\n";

    #[test]
    fn regions_declarations_and_positions() {
        let l = parse(LESSON).unwrap();
        assert_eq!(l.locale, Locale::Tr);
        assert_eq!(l.uses[0].name, "store");
        assert_eq!(l.regions.len(), 3, "the fenced marker is ignored");
        let r = &l.regions[0];
        assert_eq!(
            r.kind,
            Kind::Value {
                column: "total".into()
            }
        );
        assert_eq!(&l.text[r.content.clone()], "45");
        assert_eq!((r.marker.line, r.marker.col), (3, 7));
        let r = &l.regions[1];
        assert_eq!(&l.text[r.content.clone()], "%88,8");
        assert_eq!(r.args[0].key, "form");
        assert_eq!(r.args[0].value.as_deref(), Some("a b"));
        let t = &l.regions[2];
        assert_eq!(t.kind, Kind::Table);
        assert_eq!(&l.text[t.content.clone()], "| a |\n");
        assert_eq!(t.args[0].value.as_deref(), Some("a,b"));
        assert_eq!(
            (t.args[1].key.as_str(), t.args[1].value.as_deref()),
            ("entity", None)
        );
        assert_eq!(t.at.line, 9);
    }

    proptest::proptest! {
        /// Any text made of marker pieces, quotes, fences, multi-byte letters and line ends
        /// parses or fails with a position inside the text, never panics.
        #[test]
        fn any_text_parses_or_fails_with_a_position(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "<!-- coordsim ", "-->", "<!-- /coordsim -->", "use s = \"a.toml\"", "s.x",
                " k=\"v w\"", " k=", "\"", "table s", "chart s c", "locale = \"tr\"",
                "allow 1", "\n", "\r\n", "```", "~~~", "ş", "€", " ", "=", "45", "%88,8",
                "<!--", "coordsim", ".", "entity",
            ]), 0..40),
        ) {
            let text: String = pieces.concat();
            match parse(&text) {
                Ok(lesson) => {
                    for r in &lesson.regions {
                        proptest::prop_assert!(r.content.end <= text.len());
                        proptest::prop_assert!(text.is_char_boundary(r.content.start));
                    }
                    let _ = super::super::lint::lint(&lesson);
                }
                Err(e) => {
                    proptest::prop_assert!(e.pos.offset <= text.len());
                    proptest::prop_assert!(e.pos.line >= 1 && e.pos.col >= 1);
                }
            }
        }
    }

    #[test]
    fn markers_in_inline_code_are_shown_not_read() {
        // A span of two backticks holds a single one; a lone backtick no run closes is text,
        // so the marker after it is read.
        let text = "<!-- coordsim use s = \"a.toml\" -->\nLike `<!-- coordsim s.nope -->42<!-- /coordsim -->` or ``a ` <!-- coordsim s.x -->1<!-- /coordsim --> ``.\nA ` then <!-- coordsim s.y -->7<!-- /coordsim -->.\n";
        let l = parse(text).unwrap();
        assert_eq!(l.regions.len(), 1, "{:?}", l.regions);
        assert_eq!(l.regions[0].kind, Kind::Value { column: "y".into() });
        assert_eq!(&l.text[l.regions[0].content.clone()], "7");
        // "ab `c` d ``e`f`` g `h": spans at bytes 3..6 and 9..16; the last run is unclosed.
        assert_eq!(code_spans("ab `c` d ``e`f`` g `h"), vec![3..6, 9..16]);
        // A run closes only on a run of its own length: ``` `x`` ``` is no span.
        assert_eq!(code_spans("`x``"), Vec::<std::ops::Range<usize>>::new());
    }

    #[test]
    fn bad_markers_say_where_and_what() {
        let cases = [
            (
                "<!-- coordsim use s = \"a\" -->\n<!-- coordsim s.x -->45\n",
                2,
                1,
                "same line",
            ),
            ("<!-- coordsim table s -->\n| a |\n", 1, 1, "not closed"),
            ("x <!-- /coordsim -->\n", 1, 3, "closes no region"),
            (
                "<!-- coordsim s.x -->1<!-- /coordsim -->\n",
                1,
                1,
                "unknown config `s`",
            ),
            ("<!-- coordsim frobnicate -->\n", 1, 1, "unknown marker"),
            (
                "<!-- coordsim locale = \"de\" -->\n",
                1,
                1,
                "unknown locale",
            ),
            (
                "<!-- coordsim use s = \"a\" -->\n<!-- coordsim table s -->\n<!-- coordsim table s -->\n",
                3,
                1,
                "never nest",
            ),
        ];
        for (text, line, col, what) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(
                (e.pos.line, e.pos.col),
                (line, col),
                "{text}: {}",
                e.message
            );
            assert!(e.message.contains(what), "{text}: {}", e.message);
        }
    }
}
