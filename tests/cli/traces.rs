//! What a deciding execution's trace says and draws: a key store's step with its key and
//! what it met, a chance and a pause as steps of their own, and the trace's timeline as the
//! config's `[[chart]]` of kind timeline draws it.

use std::path::Path;

use crate::harness::{coordsim_in, root, stderr, stdout, write_config};

/// Check-then-act: two services register one name (key 7), each looking it up first and
/// giving up when it is found. With `guard = "none"` the name is set unconditionally, then
/// an account inserted under the service's index; with `unique` it is inserted, and a
/// `duplicate` gives up.
const CHECK_THEN_ACT: &str = r#"model = "scenario"
title = "Check then act"
[sweep]
guard = ["none", "unique"]
[[resource]]
name = "names"
kind = "keys"
[[resource]]
name = "accounts"
kind = "keys"
[[actor]]
name = "svc"
names = ["A", "B"]
steps = [
  { lookup = "names", key = 7 },
  { if = "found", then = [{ end = "gave_up" }] },
  { if = { value = { by = "guard", none = 0, unique = 1 }, equals = 1 },
    then = [
      { insert = "names", key = 7, value = 1 },
      { if = "duplicate", then = [{ end = "gave_up" }] },
      { insert = "accounts", key = "i" },
    ],
    else = [
      { set = "names", key = 7, value = 1 },
      { insert = "accounts", key = "i" },
    ] },
]
[[claim]]
name = "two accounts"
where = { guard = "none" }
over = "executions"
holds = "sometimes"
metric = "accounts.size"
expect = 2
[[claim]]
name = "a duplicate"
where = { guard = "unique" }
over = "executions"
holds = "sometimes"
metric = "names.duplicates"
expect = 1
"#;

/// `explore` of `text` (written as `name`) into `dir/out`: the folder it wrote.
fn explored(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = write_config(dir, name, text);
    let o = coordsim_in(dir, &["explore", &path, "--out", "out", "-q"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let stem = name.trim_end_matches(".toml");
    dir.join(format!("out/{stem}-explore"))
}

/// The action column of a trace's CSV, a row per step.
fn actions(csv: &str) -> Vec<String> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    reader
        .records()
        .map(|r| r.unwrap()[3].to_string())
        .collect()
}

/// The texts a chart draws, a line each, as its SVG's `<desc>` lists them (its glyphs are
/// paths).
fn drawn(svg: &str) -> Vec<&str> {
    let start = svg.find("<desc>").expect("a desc") + "<desc>".len();
    let end = svg.find("</desc>").expect("its end");
    svg[start..end].lines().collect()
}

fn count(rows: &[String], row: &str) -> usize {
    rows.iter().filter(|r| *r == row).count()
}

/// Every key store step says its key and what it met, and the decisive one is red.
///
/// By hand: two accounts need both services past the lookup, so both lookups run before
/// either set and both find key 7 missing. The first set finds it missing; the second
/// meets the first's 1, which its own lookup did not see: the lost update of
/// check-then-act, the one red box. Each then inserts its account (keys 0 and 1, no value).
/// With `unique`, a duplicate needs both lookups missing too; the first insert adds key 7,
/// the second meets its 1: `duplicate`, red.
#[test]
fn a_key_store_step_says_its_key_and_what_it_met() {
    let dir = tempfile::tempdir().unwrap();
    let out = explored(dir.path(), "cta.toml", CHECK_THEN_ACT);
    let read = |file: &str| std::fs::read_to_string(out.join(file)).unwrap();
    let none = actions(&read("trace-1.csv"));
    assert_eq!(count(&none, "looks up names[7]: missing"), 2, "{none:?}");
    assert_eq!(
        count(&none, "sets names[7] = 1 (was missing)"),
        1,
        "{none:?}"
    );
    assert_eq!(
        count(
            &none,
            "sets names[7] = 1: a lost update (its lookup: missing)"
        ),
        1,
        "{none:?}"
    );
    assert_eq!(count(&none, "inserts accounts[0]: inserted"), 1, "{none:?}");
    assert_eq!(count(&none, "inserts accounts[1]: inserted"), 1, "{none:?}");
    assert_eq!(none.len(), 6, "{none:?}");
    let unique = actions(&read("trace-2.csv"));
    assert_eq!(
        count(&unique, "looks up names[7]: missing"),
        2,
        "{unique:?}"
    );
    assert_eq!(count(&unique, "inserts names[7] = 1: inserted"), 1);
    assert_eq!(
        count(&unique, "inserts names[7] = 1: duplicate (holds 1)"),
        1,
        "{unique:?}"
    );
    // The chart: lookups blue, the decisive step red (one box each), as a lost update is.
    for (svg, blue, red) in [("trace-1.svg", 2, 1), ("trace-2.svg", 2, 1)] {
        let svg = read(svg);
        assert_eq!(svg.matches("fill=\"#DBEAFE\"").count(), blue, "{svg}");
        assert_eq!(svg.matches("fill=\"#FEE2E2\"").count(), red, "{svg}");
    }
    // In a Turkish config, in Turkish.
    let out = explored(
        dir.path(),
        "cta-tr.toml",
        &format!("locale = \"tr\"\n{CHECK_THEN_ACT}"),
    );
    let md = std::fs::read_to_string(out.join("explore.md")).unwrap();
    for said in [
        "| names[7] arar: yok |",
        "| names[7] = 1 yazar (önceden yoktu) |",
        "| names[7] = 1 yazar: kaybolan güncelleme (bakınca yoktu) |",
        "| accounts[0] ekler: eklendi |",
        "| names[7] = 1 ekler: zaten var (1) |",
    ] {
        assert!(md.contains(said), "{said} in {md}");
    }
}

/// A lookup that finds its key says the number; a remove says what it removed. Key 3
/// starts at 5: the lookup finds 5, the remove takes it away (it held 5), a second remove
/// finds nothing.
#[test]
fn a_lookup_says_what_it_found_and_a_remove_what_it_removed() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"model = "scenario"
[[resource]]
name = "kv"
kind = "keys"
initial = [[3, 5]]
[[actor]]
name = "a"
steps = [{ lookup = "kv", key = 3 }, { remove = "kv", key = 3 }, { remove = "kv", key = 3 }]
[[claim]]
over = "executions"
holds = "sometimes"
metric = "kv.size"
expect = 0
"#;
    let out = explored(dir.path(), "rm.toml", text);
    let rows = actions(&std::fs::read_to_string(out.join("trace-1.csv")).unwrap());
    assert_eq!(
        rows,
        [
            "looks up kv[3]: found 5",
            "removes kv[3]: removed (was 5)",
            "removes kv[3]: missing"
        ],
        "{rows:?}"
    );
}

/// The leader lease in a pause (`configs/explore/explore-lease-fencing.toml`): n1 takes the
/// lease at 0 and then, with probability pause_chance (0.1 at the first point), pauses
/// 300 ms. The chance is drawn after its acquire, in that event: it is said on the pause's
/// own row, not on the acquire's box, and the acquire's row has no draw.
#[test]
fn a_chance_is_said_on_the_pause_it_chose() {
    let dir = tempfile::tempdir().unwrap();
    let path = root()
        .join("configs/explore/explore-lease-fencing.toml")
        .to_string_lossy()
        .into_owned();
    let o = coordsim_in(dir.path(), &["explore", &path, "--out", "out", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("out/explore-lease-fencing-explore");
    let csv = std::fs::read_to_string(out.join("trace-1.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[1], "1,0,n1,acquires leader: takes it,", "{csv}");
    assert_eq!(
        lines[2], "2,0,n1,pauses 300 ms,chance: yes (p = 0.1)",
        "{csv}"
    );
    let md = std::fs::read_to_string(out.join("explore.md")).unwrap();
    assert!(
        md.contains("| 2 | 0 | n1 | 300 ms duraklar | şans: evet (p = 0,1) |"),
        "{md}"
    );
    // The chart: the draw is the pause box's second line, not the acquire's.
    let svg = std::fs::read_to_string(out.join("trace-1.svg")).unwrap();
    let texts = drawn(&svg);
    let at = |text: &str| texts.iter().position(|t| *t == text).expect(text);
    assert_eq!(at("alır") + 2, at("300 ms duraklar"), "{texts:?}");
    assert_eq!(
        at("300 ms duraklar") + 1,
        at("şans: evet (p = 0,1)"),
        "{texts:?}"
    );
}

/// A chance drawn with no pause after it is a row of its own, after the step it follows;
/// an actor's first chance, drawn before its first shared step in the event that starts
/// it, is a row before that step. Here `a` (one actor, no other event at its instants)
/// draws 0.5 before writing `x`, then 0.25 after it, and neither chooses anything that
/// waits.
#[test]
fn a_chance_without_a_pause_is_a_row_where_it_was_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"model = "scenario"
[[resource]]
name = "x"
kind = "register"
[[actor]]
name = "a"
steps = [
  { if = { chance = 0.5 }, then = [{ write = "x", value = 1 }], else = [{ write = "x", value = 2 }] },
  { if = { chance = 0.25 }, then = [{ end = "gave_up" }] },
]
[[claim]]
over = "executions"
holds = "sometimes"
metric = "x.value"
expect = 2
"#;
    let out = explored(dir.path(), "chance.toml", text);
    let csv = std::fs::read_to_string(out.join("trace-1.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(
        rows,
        [
            "1,0,a,decides by chance,chance: no (p = 0.5)",
            "2,0,a,writes x = 2,",
            // Outcomes are listed by their shortest execution, then by their metrics:
            // of the two that end at x = 2, the one that gives up comes first.
            "3,0,a,decides by chance,chance: yes (p = 0.25)",
        ],
        "{csv}"
    );
}

/// The lease-fencing config with a timeline chart of its own: a title and two resource
/// lanes (the lease's holder, the fenced register's value).
fn with_timeline(chart: &str) -> String {
    let text =
        std::fs::read_to_string(root().join("configs/explore/explore-lease-fencing.toml")).unwrap();
    format!("{text}\n[[chart]]\nname = \"leaders\"\nkind = \"timeline\"\n{chart}")
}

/// A trace's timeline and `run --schedule`'s draw the config's timeline chart: its title
/// (its `{pause_chance}` filled at the point, 0,1 in Turkish) and its resource lanes, the
/// lease's holders (n1 from 0, n2 from 105 ms) among them, as a run's timeline does.
#[test]
fn a_traces_timeline_is_the_configs_timeline_chart() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        with_timeline("title = \"Kira: {pause_chance}\"\nresources = [\"leader\", \"store\"]\n");
    let out = explored(dir.path(), "lease.toml", &text);
    let svg = std::fs::read_to_string(out.join("trace-1/timeline.svg")).unwrap();
    let texts = drawn(&svg);
    assert_eq!(texts[0], "Kira: 0,1", "{texts:?}");
    for lane in [
        "leader",
        "store",
        "n1",
        "n2",
        "kilidi tutan",
        "yazmacın değeri",
    ] {
        assert!(texts.contains(&lane), "{lane} in {texts:?}");
    }
    // The holder level's labels on the lease's lane: n1, then n2, besides their lanes.
    assert_eq!(texts.iter().filter(|t| **t == "n1").count(), 2, "{texts:?}");
    assert_eq!(texts.iter().filter(|t| **t == "n2").count(), 2, "{texts:?}");
    let schedule = out.join("schedule-1.toml").to_string_lossy().into_owned();
    let config = dir.path().join("lease.toml").to_string_lossy().into_owned();
    let o = coordsim_in(
        dir.path(),
        &[
            "run",
            &config,
            "--schedule",
            &schedule,
            "--out",
            "again",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let again =
        std::fs::read_to_string(dir.path().join("again/lease-schedule-1/timeline.svg")).unwrap();
    assert_eq!(again, svg, "run --schedule draws the trace's timeline");
}

/// A timeline chart whose `where` keeps another point lends its lanes, not its title: the
/// title is that point's.
#[test]
fn a_timeline_of_another_point_lends_its_lanes_not_its_title() {
    let dir = tempfile::tempdir().unwrap();
    let text = with_timeline(
        "where = { pause_chance = 0.3 }\ntitle = \"Otuzda\"\nresources = [\"leader\"]\n",
    );
    let out = explored(dir.path(), "other.toml", &text);
    // Claim 1 is decided at the first point, pause_chance = 0.1.
    let svg = std::fs::read_to_string(out.join("trace-1/timeline.svg")).unwrap();
    let texts = drawn(&svg);
    assert!(!svg.contains("Otuzda"), "{texts:?}");
    assert!(texts.contains(&"leader"), "{texts:?}");
    assert!(!texts.contains(&"store"), "{texts:?}");
}
