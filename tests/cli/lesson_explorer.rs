//! The explorer in a lesson (`<!-- coordsim explorer NAME filters… -->`): `lesson check`
//! holds its marker to the config it names (declared, explored, one point), and `report`
//! puts the explorer of that point in the lesson's page, its reader's view and its
//! fragment. `tests/browser/embed.test.mjs` plays it in Chromium.

use crate::harness::*;
use crate::site::Course;

/// k clients (k = 1, 2) each read the counter and write back read + 1, once; a claim over
/// executions (the counter sometimes ends below k) makes `report` explore it.
const LOST: &str = "model = \"scenario\"\n[sweep]\nclients = [1, 2]\n\
    [[resource]]\nname = \"counter\"\nkind = \"register\"\n\
    [[actor]]\nname = \"c\"\ncount = \"clients\"\nrepeat = 1\n\
    steps = [{ read = \"counter\" }, { write = \"counter\", value = \"read + 1\" }]\n\
    [[claim]]\nname = \"lost\"\nwhere = { clients = 2 }\nover = \"executions\"\n\
    holds = \"sometimes\"\nmetric = \"counter.value\"\nat_most = 1\n";

/// A folder with `lost.toml` ([`LOST`]), `plain.toml` (the same without its claim) and
/// `lesson.md` holding `body` after their `use`s.
fn folder(body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_config(dir.path(), "lost.toml", LOST);
    let plain = &LOST[..LOST.find("[[claim]]").unwrap()];
    write_config(dir.path(), "plain.toml", plain);
    let text = format!(
        "<!-- coordsim use lost = \"lost.toml\" -->\n<!-- coordsim use plain = \"plain.toml\" -->\n{body}"
    );
    std::fs::write(dir.path().join("lesson.md"), text).unwrap();
    dir
}

/// `lesson check lesson.md`'s one error line for `body`, which must exit 2.
fn refused(body: &str) -> String {
    let dir = folder(body);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{}{err}", stdout(&out));
    err.lines().next().unwrap_or_default().to_string()
}

#[test]
fn an_explorer_marker_is_checked_against_its_config() {
    // A point named, and none (the first): both pass, as regions with nothing to drift.
    let dir = folder(
        "Play it:\n\n<!-- coordsim explorer lost clients=2 -->\n\nAnd one alone:\n<!-- coordsim explorer lost -->\n",
    );
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("2 passed, 0 failed"),
        "{}",
        stdout(&out)
    );
    // `fill` leaves the lesson as it is.
    let before = read(dir.path().join("lesson.md"));
    let out = lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(read(dir.path().join("lesson.md")), before);
}

#[test]
fn a_bad_explorer_marker_says_where_and_what_is_valid() {
    // Lines: 1 and 2 the uses, 3 the marker.
    let unknown = refused("<!-- coordsim explorer lostt -->\n");
    assert!(
        unknown.starts_with("error: lesson.md:3:1: unknown config `lostt`")
            && unknown.contains("did you mean `lost`?")
            && unknown.contains("declared: lost, plain"),
        "{unknown}"
    );
    let not_alone = refused("Here <!-- coordsim explorer lost -->\n");
    assert!(
        not_alone.starts_with("error: lesson.md:3:6: an explorer's marker is a line of its own"),
        "{not_alone}"
    );
    let no_name = refused("<!-- coordsim explorer clients=2 -->\n");
    assert!(
        no_name.contains("lesson.md:3:1: an explorer is `explorer NAME filters…`"),
        "{no_name}"
    );
    let filter = refused("<!-- coordsim explorer lost client=2 -->\n");
    assert!(
        filter.starts_with("error: lesson.md:3:29: unknown parameter `client` (did you mean `clients`?): an explorer's filters are parameters")
            && filter.ends_with("valid: tie_order, clients"),
        "{filter}"
    );
    let value = refused("<!-- coordsim explorer lost clients=3 -->\n");
    assert!(
        value.starts_with("error: lesson.md:3:29: `clients=3` matches no point")
            && value.contains("clients = 1, 2"),
        "{value}"
    );
    let unexplored = refused("<!-- coordsim explorer plain -->\n");
    assert!(
        unexplored.starts_with("error: lesson.md:3:1: `plain` is not explored")
            && unexplored.contains("over = \"executions\""),
        "{unexplored}"
    );
}

#[test]
fn the_explorer_is_in_every_view_of_the_lesson() {
    let c = Course::new();
    c.config("lost.toml", LOST);
    c.lesson(
        "l.md",
        "<!-- coordsim use lost = \"../configs/lost.toml\" -->\n# L\n\nTwo clients:\n\n<!-- coordsim explorer lost clients=2 -->\n\nOne:\n\n<!-- coordsim explorer lost clients=1 -->\n",
    );
    let out = c.report("out", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The point's graph alone in each explorer: two clients read and write in 6 orders
    // (4!/(2!·2!)), ending at 1 (4 orders) or 2 (2): its outcomes' executions 4 and 2 (in
    // some order); one client runs one way: 1 execution. Its claim moved to point 0.
    let data = |html: &str| -> Vec<serde_json::Value> {
        html.split("<script type=\"application/json\" class=\"explorer-data\">")
            .skip(1)
            .map(|rest| serde_json::from_str(&rest[..rest.find("</script>").unwrap()]).unwrap())
            .collect()
    };
    for (view, script) in [
        ("l.html", "<script src=\"explorer.js\" defer=\"\"></script>"),
        (
            "l.reader.html",
            "<script src=\"explorer.js\" defer=\"\"></script>",
        ),
        ("l.embed.html", "querySelectorAll('.explorer')"),
    ] {
        let html = c.page(&format!("out/site/lesson-{view}"));
        assert_eq!(html.matches(script).count(), 1, "{view}: the script once");
        let graphs = data(&html);
        assert_eq!(graphs.len(), 2, "{view}");
        let executions = |g: &serde_json::Value| -> Vec<String> {
            let mut x: Vec<String> = (g["points"][0]["o"].as_array().unwrap().iter())
                .map(|o| o["x"].to_string().trim_matches('"').to_string())
                .collect();
            x.sort();
            x
        };
        assert!(
            graphs
                .iter()
                .all(|g| g["points"].as_array().unwrap().len() == 1)
        );
        assert_eq!(executions(&graphs[0]), ["2", "4"], "{view}");
        assert_eq!(executions(&graphs[1]), ["1"], "{view}");
        assert_eq!(graphs[0]["claims"].as_array().unwrap().len(), 1, "{view}");
        assert_eq!(graphs[0]["claims"][0]["p"], 0, "{view}");
        assert!(graphs[1]["claims"].as_array().unwrap().is_empty(), "{view}");
    }
    // The fragment asks for no file: its script inline, no `src`.
    let fragment = c.page("out/site/lesson-l.embed.html");
    assert!(
        !fragment.contains("<script src"),
        "the fragment links a script"
    );
}
