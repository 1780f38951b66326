//! A schedule file: one explored execution as the choices that make it. `coordsim explore`
//! writes one beside each claim's deciding trace; `coordsim run CONFIG --schedule FILE`
//! runs exactly that execution, with every output a run has (its table, its timeline).
//!
//! ```toml
//! config = "explore-lost-update"   # the config's stem
//! point = 0                        # the sweep point, as results.csv numbers it
//! at = { guard = "none" }          # its swept settings, checked when it is run
//! max_faults = 1                   # the fault budget it was explored under
//! events = ["1/2", "2/2", "1/1 y"] # each event: K-th of N free ones, its draws y / n
//! order = "owner"                  # how the free events are numbered (below)
//! cycle_from = 1                   # a lasso's only: its cycle is events 1.. (from 0)
//! ```
//!
//! `order = "owner"`: the free events of an instant are numbered by event class, then by
//! owner (actors in the config's order, then servers, locks and queues). Schedules written
//! before this order (without `order`) numbered them by insertion and are refused: explore
//! the config again.

use std::fmt::Write as _;

use coordsim_model::Schedule;
use coordsim_model::explore::{Decision, MAX_SCHEDULE_EVENTS};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::config::Config;
use crate::source::{ConfigError, Source, Span};

mod scan;

use scan::{Array, Fault, Place};

/// Bytes of the longest event as coordsim writes it: `"65535/65535 crash "` and 64 draws
/// (at most 65,535 free events, one crash, 64 draws an event), quoted, with its share of
/// the separators and line breaks (8 events a line): 86.25, rounded up.
const LONGEST_EVENT_BYTES: u64 = 87;

/// Most bytes a schedule file may have: [`MAX_SCHEDULE_EVENTS`] of the longest events and
/// the header, about 830 MiB. The file is read as a stream, so what it costs in memory is
/// its events' choices, not its bytes; this bounds the time spent reading.
const MAX_SCHEDULE_BYTES: u64 =
    MAX_SCHEDULE_EVENTS as u64 * LONGEST_EVENT_BYTES + scan::MAX_HEADER_BYTES as u64;

/// A schedule read back: the point it runs at and its choices.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ScheduleFile {
    /// The sweep point.
    pub(crate) point: usize,
    /// The choices, event by event.
    pub(crate) schedule: Schedule,
    /// Where its events are written, when it was read from a file: a run it does not fit
    /// is an error at the event where it stops fitting.
    pub(crate) written: Option<Written>,
}

/// A schedule file's path and where in it its `events` array is (an event's place is
/// found again by reading the file, on the way to an error).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Written {
    path: String,
    events: Array,
}

impl ScheduleFile {
    /// `message`, said about the schedule's `key` (`schedule.events[3]`: its fourth event;
    /// `schedule.events`: the array, for a run that goes on past its end) at that place of
    /// its file; `None` when it was not read from a file or names no such place.
    pub(crate) fn error_at(&self, key: &str, message: &str) -> Option<ConfigError> {
        let written = self.written.as_ref()?;
        let rest = key.strip_prefix("schedule.events")?;
        let place = if rest.is_empty() {
            written.events.open
        } else {
            let index: usize = rest.strip_prefix('[')?.strip_suffix(']')?.parse().ok()?;
            let file = crate::input::open_regular(std::path::Path::new(&written.path)).ok()?;
            let mut found = None;
            // Stops at the event: an error that carries its place.
            let walked = scan::read_events(&file, written.events.open, &mut |i, place, _| {
                if i == index {
                    found = Some(place);
                    return Err(Fault::At(place, String::new()));
                }
                Ok(())
            });
            drop(walked);
            found?
        };
        Some(scan::error_at(&written.path, place, message))
    }
}

/// Where the header's text (the file with `events` emptied) stands in the file: its places
/// before the array's `]` are the file's; those from it on are further down by the lines
/// the array's events took (and along, on the `]`'s own line).
struct Header<'a> {
    path: &'a str,
    text: Source,
    events: Option<Array>,
}

impl Header<'_> {
    /// `message` at `span` of the header, said at its place in the file.
    fn error(&self, span: &Span, message: impl Into<String>) -> ConfigError {
        let (mut line, mut col) = self.text.line_col(span.start);
        if let Some(a) = self.events.filter(|a| span.start >= a.close_in_header) {
            let (close_line, close_col) = self.text.line_col(a.close_in_header);
            if line == close_line {
                col = col + a.close.col - close_col;
            }
            line += a.close.line - close_line;
        }
        let place = Place {
            offset: span.start as u64,
            line,
            col,
        };
        scan::error_at(self.path, place, message)
    }
}

/// A walk's fault as the error `load` gives: a place of the file, or why it cannot be read.
fn fault_error(path: &str, fault: Fault) -> anyhow::Error {
    match fault {
        Fault::At(place, message) => scan::error_at(path, place, message).into(),
        Fault::Io(e) => anyhow::anyhow!("schedule {path}: cannot read it: {e}"),
    }
}

/// The point's swept settings as the file states them (`guard = "none"`), in axis order.
fn settings(config: &Config, point: usize) -> Vec<(String, String)> {
    let values = config.point_values(point);
    let names = config.key_names();
    config
        .axes
        .iter()
        .map(|a| {
            let value = match &values[a.param] {
                coordsim_model::Value::Str(s) => s.clone(),
                v => v.to_string(),
            };
            (names[a.param].to_string(), value)
        })
        .collect()
}

/// A TOML basic string of `s`.
fn quoted(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A TOML key: bare when it can be.
fn key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        quoted(k)
    }
}

/// The file's text: a header saying what it is (`about`) and how to run it, then the keys.
/// What the header quotes (a claim's name, the config's path) is kept on its comment's
/// line, control characters escaped: a line break in it would end the comment, and the
/// rest would be read as TOML, so the schedule would not run back.
pub(crate) fn text(config: &Config, point: usize, schedule: &Schedule, about: &str) -> String {
    use crate::format::one_line;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {}: {} events, one choice each (the K-th of N free events; its draws y / n).",
        one_line(about),
        schedule.events.len()
    );
    let _ = writeln!(
        out,
        "# Run it, with every output a run has (FILE: this file's path):\n#   coordsim run {} --schedule FILE",
        one_line(&config.source.name)
    );
    let _ = writeln!(out, "config = {}", quoted(&config.stem));
    let _ = writeln!(out, "point = {point}");
    let at: Vec<String> = settings(config, point)
        .iter()
        .map(|(k, v)| format!("{} = {}", key(k), quoted(v)))
        .collect();
    let _ = writeln!(out, "at = {{ {} }}", at.join(", "));
    let _ = writeln!(out, "max_faults = {}", schedule.max_faults);
    out.push_str("events = [\n");
    for line in schedule.events.chunks(8) {
        let items: Vec<String> = line.iter().map(|d| quoted(&d.text())).collect();
        let _ = writeln!(out, "  {},", items.join(", "));
    }
    out.push_str("]\n");
    let _ = writeln!(out, "order = {}", quoted(ORDER));
    if let Some(from) = schedule.cycle_from {
        let _ = writeln!(
            out,
            "# A lasso: the events from number {} on are its cycle, taken for ever.\ncycle_from = {from}",
            from + 1
        );
    }
    out
}

/// How a schedule numbers an instant's free events: by class, then by owner.
const ORDER: &str = "owner";

/// The keys of a schedule file.
const KEYS: &[&str] = &[
    "config",
    "point",
    "at",
    "max_faults",
    "events",
    "order",
    "cycle_from",
];

/// Reads the schedule file `path` for `config`: an error names the file, the line and the
/// key when it is malformed or was written for another config or point. Read as a stream:
/// past [`MAX_SCHEDULE_EVENTS`] it is refused at the first event too many, having kept none.
pub(crate) fn load(path: &str, config: &Config) -> anyhow::Result<ScheduleFile> {
    let file = crate::input::open_regular(std::path::Path::new(path))
        .map_err(|e| anyhow::anyhow!("schedule {path}: {e}"))?;
    let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    if bytes > MAX_SCHEDULE_BYTES {
        anyhow::bail!(
            "schedule {path}: {bytes} bytes, more than the {MAX_SCHEDULE_BYTES} a schedule may have ({MAX_SCHEDULE_EVENTS} events of the longest form, {LONGEST_EVENT_BYTES} bytes each, and its header)"
        );
    }
    let survey = scan::survey(&file, MAX_SCHEDULE_EVENTS).map_err(|f| fault_error(path, f))?;
    let source = Header {
        path,
        text: Source {
            name: path.to_string(),
            text: survey.header,
        },
        events: survey.events,
    };
    let doc = DeTable::parse(&source.text.text).map_err(|e| {
        source.error(
            &e.span().unwrap_or(0..0),
            format!("invalid TOML: {}", e.message().trim()),
        )
    })?;
    let doc = doc.get_ref();
    for (key, _) in doc.iter() {
        if !KEYS.contains(&key.get_ref().as_ref()) {
            return Err(source
                .error(
                    &key.span(),
                    format!(
                        "unknown key `{}` in a schedule; its keys are {}",
                        key.get_ref(),
                        KEYS.join(", ")
                    ),
                )
                .into());
        }
    }
    let (point, max_faults) = header(&source, doc, config)?;
    let events_value = doc
        .get("events")
        .ok_or_else(|| missing(&source, "events"))?;
    // The survey found the array at the top level; anything else there is not a list.
    let (Some(array), DeValue::Array(_)) = (source.events, events_value.get_ref()) else {
        return Err(source
            .error(
                &events_value.span(),
                "`events` is an array of choices (`\"1/2\"`)",
            )
            .into());
    };
    let mut events = Vec::with_capacity(array.count);
    scan::read_events(&file, array.open, &mut |_, place, text| {
        let decision =
            Decision::parse(text).map_err(|m| Fault::At(place, format!("`events`: {m}")))?;
        events.push(decision);
        Ok(())
    })
    .map_err(|f| fault_error(path, f))?;
    if events.len() != array.count {
        anyhow::bail!("schedule {path} changed while it was read: read it again");
    }
    let cycle_from = match doc.get("cycle_from") {
        None => None,
        Some(value) => match value.get_ref() {
            DeValue::Integer(i) => match i.as_str().parse::<u32>() {
                Ok(from) if (from as usize) < events.len() => Some(from),
                _ => {
                    return Err(source
                        .error(
                            &value.span(),
                            format!(
                                "`cycle_from` is the index (from 0) of the cycle's first event, below the {} events",
                                events.len()
                            ),
                        )
                        .into());
                }
            },
            _ => {
                return Err(source
                    .error(&value.span(), "`cycle_from` is a whole number")
                    .into());
            }
        },
    };
    Ok(ScheduleFile {
        point,
        schedule: Schedule {
            max_faults,
            events,
            cycle_from,
        },
        written: Some(Written {
            path: path.to_string(),
            events: array,
        }),
    })
}

/// The error of a schedule without `key`.
fn missing(source: &Header<'_>, key: &str) -> ConfigError {
    source.error(
        &(0..0),
        format!("a schedule has `{key}` (as `coordsim explore` writes it); this one has none"),
    )
}

/// The header's keys checked against `config`: written for it, with free events numbered
/// by owner, at one of its points with that point's settings; its point and fault budget.
fn header(
    source: &Header<'_>,
    doc: &DeTable<'_>,
    config: &Config,
) -> Result<(usize, u32), ConfigError> {
    let get = |k: &str| doc.get(k).ok_or_else(|| missing(source, k));
    let integer = |k: &str| -> Result<(i64, Span), ConfigError> {
        let v = get(k)?;
        match v.get_ref() {
            DeValue::Integer(i) => i
                .as_str()
                .parse::<i64>()
                .map(|n| (n, v.span()))
                .map_err(|_| source.error(&v.span(), format!("`{k}` is a whole number"))),
            _ => Err(source.error(&v.span(), format!("`{k}` is a whole number"))),
        }
    };
    match doc.get("order").map(|v| (v.get_ref(), v.span())) {
        Some((DeValue::String(s), _)) if s.as_ref() == ORDER => {}
        Some((_, span)) => {
            return Err(source.error(
                &span,
                format!("`order`: a schedule numbers free events by owner: `order = \"{ORDER}\"`"),
            ));
        }
        None => {
            return Err(source
                .error(
                    &(0..0),
                    format!(
                        "a schedule without `order` was written before free events were numbered by owner (`order = \"{ORDER}\"`): explore the config again to write it anew"
                    ),
                )
                );
        }
    }
    let stem = get("config")?;
    match stem.get_ref() {
        DeValue::String(s) if s.as_ref() == config.stem => {}
        DeValue::String(s) => {
            return Err(source.error(
                &stem.span(),
                format!(
                    "`config`: the schedule was written for `{s}`, not for {} (stem `{}`)",
                    config.source.name, config.stem
                ),
            ));
        }
        _ => {
            return Err(source.error(&stem.span(), "`config` is the config's stem, a string"));
        }
    }
    let (point, at) = integer("point")?;
    if point < 0 || point as u64 >= config.points as u64 {
        return Err(source.error(
            &at,
            format!(
                "`point`: {point} is no point of {}: it has points 0 to {}",
                config.source.name,
                config.points - 1
            ),
        ));
    }
    let point = point as usize;
    check_settings(source, config, point, get("at")?)?;
    let (max_faults, at) = integer("max_faults")?;
    if !(0..=64).contains(&max_faults) {
        return Err(source.error(
            &at,
            format!("`max_faults`: {max_faults} is not a fault budget (0 to 64)"),
        ));
    }
    Ok((point, max_faults as u32))
}

/// The point's swept settings as `at` states them: a schedule for a point whose sweep
/// changed is refused.
fn check_settings(
    source: &Header<'_>,
    config: &Config,
    point: usize,
    at: &Spanned<DeValue<'_>>,
) -> Result<(), ConfigError> {
    let DeValue::Table(written) = at.get_ref() else {
        return Err(source.error(&at.span(), "`at` is a table of the point's settings"));
    };
    let settings = settings(config, point);
    // A setting the point no longer has (its parameter unswept or gone): written for
    // another sweep, as surely as a value that differs.
    if let Some((key, _)) =
        (written.iter()).find(|(k, _)| !settings.iter().any(|(s, _)| s == k.get_ref().as_ref()))
    {
        let swept: Vec<&str> = settings.iter().map(|(k, _)| k.as_str()).collect();
        return Err(source.error(
            &key.span(),
            format!(
                "`at`: {} sweeps no `{}` (its swept settings: {}): the sweep changed since the schedule was written; explore the config again",
                config.source.name,
                key.get_ref(),
                if swept.is_empty() { "none".to_string() } else { swept.join(", ") }
            ),
        ));
    }
    for (key, value) in settings {
        let given = written.get(key.as_str()).and_then(|v| match v.get_ref() {
            DeValue::String(s) => Some(s.to_string()),
            _ => None,
        });
        if given.as_deref() != Some(value.as_str()) {
            return Err(source
                .error(
                    &at.span(),
                    format!(
                        "`at`: point {point} of {} has {key} = {value}, the schedule says {}: the sweep changed since it was written; explore the config again",
                        config.source.name,
                        given.map_or("nothing of it".to_string(), |w| format!("{key} = {w}"))
                    ),
                ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
