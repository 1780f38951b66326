//! The streamed reading of a schedule against the TOML parser's reading of the whole file:
//! the same events, and every error at the same line and column, however the file is laid
//! out; a schedule past the event limit refused at its first event too many.

use proptest::prelude::*;
use toml::de::{DeTable, DeValue};

use super::*;

fn config() -> Config {
    let registry = coordsim_models::registry().with_composer(coordsim_scenario::Scenario);
    let text = "model = \"scenario\"\n[[resource]]\nname = \"c\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\ncount = 2\nsteps = [{ read = \"c\" }, { write = \"c\", value = \"read + 1\" }]\n";
    let source = Source {
        name: "s.toml".into(),
        text: text.into(),
    };
    Config::parse(source, &registry).unwrap()
}

fn write(dir: &std::path::Path, text: &str) -> String {
    let path = dir.join("s.toml");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// One event's text as a file may write it: a basic string (with an escape now and then)
/// or a literal one.
fn item() -> impl Strategy<Value = (String, String)> {
    (
        1u32..4,
        0u32..4,
        prop::collection::vec(any::<bool>(), 0..3),
        0u8..3,
    )
        .prop_map(|(of, k, draws, form)| {
            let mut text = format!("{}/{of}", k % of + 1);
            if !draws.is_empty() {
                text.push(' ');
                text.extend(draws.iter().map(|&d| if d { 'y' } else { 'n' }));
            }
            let written = match form {
                0 => format!("\"{text}\""),
                1 => format!("'{text}'"),
                // `/` as `\u002F`.
                _ => format!("\"{}\"", text.replace('/', "\\u002F")),
            };
            (text, written)
        })
}

/// What may stand between two events: spaces, line breaks, comments.
fn gap() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "",
        " ",
        "\n  ",
        " # a comment, \"quoted\" ]\n",
        "\n\n",
        "\t",
        "\r\n ",
    ])
    .prop_map(str::to_string)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// However the events are laid out and wherever `events` stands among the keys, the
    /// streamed reading gives the events the whole file's parse gives; and a key after
    /// the array that is wrong is said at the place the whole file's parse puts it.
    #[test]
    fn the_streamed_reading_is_the_whole_files(
        items in prop::collection::vec((item(), gap(), gap()), 0..12),
        trailing_comma in any::<bool>(),
        events_first in any::<bool>(),
        close_on_its_line in any::<bool>(),
    ) {
        let mut events = String::from("events = [");
        for (i, ((_, written), before, after)) in items.iter().enumerate() {
            events.push_str(before);
            events.push_str(written);
            events.push_str(after);
            if i + 1 < items.len() || trailing_comma {
                events.push(',');
            }
        }
        if close_on_its_line {
            events.push('\n');
        }
        events.push_str("] # end of events\n");
        let keys = "config = \"s\"\npoint = 0\nat = {}\nmax_faults = 1\n";
        // `order` is wrong, after the events: its error's place moves with their lines.
        let (head, tail) = ("# a header comment: [not an array]\n", "order = 'ownr'\n");
        let text = if events_first {
            format!("{head}{events}{keys}{tail}")
        } else {
            format!("{head}{keys}{events}{tail}")
        };
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &text);
        let config = config();
        // The whole file's parse: its events, and the place of `order`'s value.
        let doc = DeTable::parse(&text).unwrap();
        let doc = doc.get_ref();
        let Some(DeValue::Array(whole)) = doc.get("events").map(|v| v.get_ref()) else {
            panic!("an array")
        };
        let want: Vec<String> = whole
            .iter()
            .map(|v| match v.get_ref() {
                DeValue::String(s) => s.to_string(),
                _ => panic!("strings"),
            })
            .collect();
        let got: Vec<&str> = items.iter().map(|((t, _), _, _)| t.as_str()).collect();
        prop_assert_eq!(&want, &got);
        let order = doc.get("order").unwrap().span();
        let full = Source { name: path.clone(), text: text.clone() };
        let e = load(&path, &config).unwrap_err().to_string();
        let (line, col) = full.line_col(order.start);
        prop_assert!(e.starts_with(&format!("{path}:{line}:{col}: `order`")), "{} in\n{}", e, text);
        // Mended, it loads: the events are the whole file's.
        std::fs::write(&path, text.replace("'ownr'", "\"owner\"")).unwrap();
        let read = load(&path, &config).unwrap();
        let texts: Vec<String> = read.schedule.events.iter().map(Decision::text).collect();
        prop_assert_eq!(texts, want);
    }
}

/// Past the limit the survey stops at the first event too many (the 4th of a limit of 3:
/// line 3, column 3), having kept none.
#[test]
fn a_schedule_past_the_limit_is_refused_at_its_first_event_too_many() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "config = \"s\"\nevents = [\"1/1\", \"1/1\", \"1/1\",\n  \"1/1\", \"1/1\"]\n",
    );
    let file = std::fs::File::open(&path).unwrap();
    let Err(Fault::At(place, message)) = scan::survey(&file, 3) else {
        panic!("refused")
    };
    assert_eq!((place.line, place.col), (3, 3));
    assert_eq!(
        message,
        "`events`: more than 3 events; a schedule holds at most 3"
    );
    assert!(scan::survey(&file, 5).is_ok());
}

/// A file longer than any schedule is refused by its size, before a byte is read (a sparse
/// file: it takes no room); the bound is 10 million events of the longest form.
#[test]
fn a_file_past_the_byte_cap_is_refused_unread() {
    assert_eq!(MAX_SCHEDULE_BYTES, 10_000_000 * 87 + (1 << 20));
    // The longest event as coordsim writes it, quoted, with its separator: 86 bytes, and 8
    // a line take 2 more (the indent and the line break's comma run): 86.25 each.
    let longest = Decision {
        pick: 65_534,
        of: 65_535,
        draws: vec![true; 64],
        crash: true,
    };
    assert_eq!(format!("\"{}\", ", longest.text()).len(), 86);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "");
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(MAX_SCHEDULE_BYTES + 1)
        .unwrap();
    let e = load(&path, &config()).unwrap_err().to_string();
    assert!(
        e.contains("more than the 871048576 a schedule may have"),
        "{e}"
    );
}

/// What coordsim writes reads back to the same schedule (with a crash and draws).
#[test]
fn a_written_schedule_reads_back() {
    let config = config();
    let events: Vec<Decision> = ["2/2", "1/1 yn", "1/2 crash", "1/1"]
        .iter()
        .map(|t| Decision::parse(t).unwrap())
        .collect();
    let schedule = Schedule {
        max_faults: 1,
        events,
        cycle_from: None,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        &text(&config, 0, &schedule, "a \"claim\"\nover two lines"),
    );
    let read = load(&path, &config).unwrap();
    assert_eq!(read.schedule, schedule);
    assert_eq!(read.point, 0);
}
