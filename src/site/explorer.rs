//! The explorer on a config's page and in a lesson: each explored point's state graph
//! (`play.json`, see [`crate::export::play`]) embedded as a JSON block, which `explorer.js`
//! draws as a state a reader plays on from, one free event at a time. Without script the
//! explorer stays hidden and the page is the traces and tables it was; a point past the
//! bound is said in words (no script needed). Any number of explorers may share a page:
//! the script sets up each `.explorer` element under its root on its own.

use super::frame::Depth;
use super::html::Html;
use super::words::{Words, say};

/// The explorer's script, run as the body of `function (root) { … }`: on the site's pages
/// with the document as root (the file `explorer.js`), in a lesson's fragment with the
/// fragment's element.
pub(crate) const SCRIPT: &str = include_str!("explorer.js");

/// The explorer's section on a config's page: its heading, a line on what it is, the graph
/// and the words its script draws with; or, when no point could be drawn, why. `play`:
/// `play.json`'s text.
pub(crate) fn section(h: &mut Html, play: &str, lc: Words<'_>) {
    let Some(data) = parsed(play, lc) else {
        return;
    };
    let points = data["points"].as_array().map_or(&[][..], Vec::as_slice);
    let drawn = points.iter().filter(|p| p.get("refused").is_none()).count();
    h.el("h2", &[("id", "play")], say(lc, "Play an execution"))
        .newline();
    if drawn < points.len() {
        let cycle = points.iter().any(|p| p["refused"] == "cycle");
        let why = refusal(&data, cycle, false, lc);
        h.el("p", &[("class", "explorer-refused")], &why).newline();
    }
    if drawn == 0 {
        return;
    }
    widget(h, &data, lc);
    script_tag(h);
}

/// The explorer of point `point` of `play` in a lesson (the view's script added by the
/// caller, once per page): its graph alone, or why the point is left out. Whether an
/// explorer was written (and so needs the script).
pub(crate) fn lesson(h: &mut Html, play: &str, point: usize, lc: Words<'_>) -> bool {
    let Some(data) = parsed(play, lc) else {
        return false;
    };
    let Some(graph) = data["points"].get(point) else {
        return false;
    };
    if let Some(why) = graph.get("refused") {
        let text = refusal(&data, why == "cycle", true, lc);
        h.el("p", &[("class", "explorer-refused")], &text).newline();
        return false;
    }
    // The one point, as the first of its graph's: its claims and truths moved with it.
    let claims: Vec<serde_json::Value> = (data["claims"].as_array().into_iter().flatten())
        .filter(|c| c["p"] == point)
        .map(|c| {
            let mut c = c.clone();
            c["p"] = 0.into();
            c
        })
        .collect();
    let one = serde_json::json!({
        "v": data["v"],
        "max": data["max"],
        "bytes": data["bytes"],
        "claims": claims,
        "truth": [data["truth"].get(point).cloned().unwrap_or_default()],
        "metrics": data["metrics"],
        "points": [graph],
    });
    widget(h, &one, lc);
    true
}

/// `explorer.js` from the site's folder, deferred: once on a page.
pub(crate) fn script_tag(h: &mut Html) {
    h.open(
        "script",
        &[("src", &Depth::Site.site("explorer.js")), ("defer", "")],
    )
    .close("script")
    .newline();
}

/// `play.json` read, its words in the page's language only.
fn parsed(play: &str, lc: Words<'_>) -> Option<serde_json::Value> {
    let mut data: serde_json::Value = serde_json::from_str(play).ok()?;
    let turkish = lc.locale == crate::locale::Locale::Tr;
    if let Some(points) = data["points"].as_array_mut() {
        points
            .iter_mut()
            .for_each(|point| one_language(point, turkish));
    }
    Some(data)
}

/// Why a point is left out: it comes back to a state, or it is past a bound. In a lesson
/// (`lesson`), the config's page is where its deciding executions are.
fn refusal(data: &serde_json::Value, cycle: bool, lesson: bool, lc: Words<'_>) -> String {
    let text = match (cycle, lesson) {
        (true, false) => say(
            lc,
            "An execution of a point here can come back to a state it was in: the explorer leaves such a point out; the traces above show its deciding executions.",
        ),
        (false, false) => say(
            lc,
            "A point here is too large for the explorer (more than {max} states, states past the memory budget, or a graph past {kb} kB with the others): it is left out so that the page stays light; the traces above show its deciding executions.",
        ),
        (true, true) => say(
            lc,
            "An execution of this point can come back to a state it was in: the explorer cannot play it here; the config's page shows its deciding executions.",
        ),
        (false, true) => say(
            lc,
            "This point is too large for the explorer (more than {max} states, states past the memory budget, or a graph past {kb} kB with the config's other points): it is left out so that the page stays light; the config's page shows its deciding executions.",
        ),
    };
    text.replace("{max}", &lc.locale.number(&data["max"].to_string()))
        .replace(
            "{kb}",
            &lc.locale
                .number(&(data["bytes"].as_u64().unwrap_or(0) / 1000).to_string()),
        )
}

/// The explorer's element: hidden until its script draws it, with its words and graph.
fn widget(h: &mut Html, data: &serde_json::Value, lc: Words<'_>) {
    h.open("div", &[("class", "explorer"), ("hidden", "")])
        .newline();
    h.el(
        "p",
        &[],
        say(
            lc,
            "Every state an execution can reach is here. Pick the next event with its button; back and forward (or the keys b and f) step along what you did, and the tree keeps every branch you tried.",
        ),
    )
    .newline();
    h.json("explorer-words", &words(lc)).newline();
    h.json("explorer-data", &data.to_string()).newline();
    h.close("div").newline();
}

/// The words `explorer.js` writes with, in the page's language.
fn words(lc: Words<'_>) -> String {
    let pairs = [
        ("lang", lc.locale.name().to_string()),
        ("dec", lc.locale.decimal_mark().to_string()),
        ("point", say(lc, "point").to_string()),
        ("time", say(lc, "time {t} ms").to_string()),
        ("actors", say(lc, "actors").to_string()),
        ("resources", say(lc, "resources").to_string()),
        ("free", say(lc, "free events").to_string()),
        ("back", say(lc, "back").to_string()),
        ("forward", say(lc, "forward").to_string()),
        ("restart", say(lc, "start again").to_string()),
        ("history", say(lc, "history").to_string()),
        ("start", say(lc, "start").to_string()),
        ("outcomes", say(lc, "outcomes").to_string()),
        ("outcome", say(lc, "outcome {k}").to_string()),
        ("executions", say(lc, "executions").to_string()),
        ("probability", say(lc, "probability").to_string()),
        (
            "show",
            say(lc, "show an execution that ends here").to_string(),
        ),
        (
            "claim",
            say(lc, "claim {n}: step through its execution").to_string(),
        ),
        ("guide", say(lc, "next step of claim {n}").to_string()),
        (
            "ended",
            say(lc, "The execution has ended: outcome {k}.").to_string(),
        ),
        (
            "decides",
            say(lc, "This is the outcome that decides claim {n}.").to_string(),
        ),
        (
            "meets",
            say(lc, "claim {n}: this end meets its test").to_string(),
        ),
        (
            "misses",
            say(lc, "claim {n}: this end does not meet its test").to_string(),
        ),
        ("notStarted", say(lc, "not started").to_string()),
        (
            "idle",
            say(lc, "finished or between repetitions").to_string(),
        ),
        ("crashed", say(lc, "crashed or stopped").to_string()),
        ("waiting", say(lc, "waiting").to_string()),
        ("held", say(lc, "held by {a}").to_string()),
        ("unheld", say(lc, "free").to_string()),
        ("waiters", say(lc, "waiting: {a}").to_string()),
        ("empty", say(lc, "empty").to_string()),
        (
            "noProbability",
            say(lc, "no probability: a free order").to_string(),
        ),
    ];
    let entries: Vec<String> = pairs
        .iter()
        .map(|(k, v)| {
            format!(
                "{}:{}",
                serde_json::Value::from(*k),
                serde_json::Value::from(v.as_str())
            )
        })
        .collect();
    format!("{{{}}}", entries.join(","))
}

/// A point's graph with the words of the page's language only: each string only the other
/// language says (a step's or a row's English on a Turkish page) emptied, so that a page
/// shows no word of another language even in its data, and weighs less.
fn one_language(point: &mut serde_json::Value, turkish: bool) {
    let (keep, drop) = if turkish { (1, 0) } else { (0, 1) };
    let ids = |value: &serde_json::Value, at: &[usize]| -> Vec<u64> {
        at.iter().filter_map(|&i| value[i].as_u64()).collect()
    };
    let mut dropped = std::collections::BTreeSet::new();
    let mut kept = std::collections::BTreeSet::new();
    for actor in point["actors"].as_array().into_iter().flatten() {
        kept.extend(actor[0].as_u64());
        for step in actor[1].as_array().into_iter().flatten() {
            kept.extend(ids(step, &[keep]));
            dropped.extend(ids(step, &[drop]));
        }
    }
    for row in point["r"].as_array().into_iter().flatten() {
        kept.extend(ids(row, &[0, 1 + keep, 3 + keep]));
        dropped.extend(ids(row, &[1 + drop, 3 + drop]));
    }
    for resources in point["res"].as_array().into_iter().flatten() {
        kept.extend(
            resources
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_u64()),
        );
    }
    if let Some(strings) = point["t"].as_array_mut() {
        for id in dropped.difference(&kept) {
            if let Some(text) = strings.get_mut(*id as usize) {
                *text = serde_json::Value::from("");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locale::Locale;

    fn section_of(play: &str, locale: Locale) -> String {
        let mut h = Html::new();
        section(&mut h, play, Words::built_in(locale));
        h.finish()
    }

    /// A point past the bound is said in words (no script needed), with both bounds in the
    /// page's numbers; with no point drawn, no explorer and no script.
    #[test]
    fn a_refused_point_is_said_in_the_pages_language() {
        let play = r#"{"max":50000,"bytes":900000,"claims":[],"metrics":[],"points":[{"refused":"states"}]}"#;
        let tr = section_of(play, Locale::Tr);
        assert!(tr.contains("50.000 durumdan fazla"), "{tr}");
        assert!(tr.contains("900 kB"), "{tr}");
        assert!(
            !tr.contains("explorer.js") && !tr.contains("explorer-data"),
            "{tr}"
        );
        let en = section_of(play, Locale::En);
        assert!(en.contains("more than 50,000 states"), "{en}");
        let cycle = play.replace("\"states\"", "\"cycle\"");
        assert!(section_of(&cycle, Locale::En).contains("come back to a state"));
        // In a lesson: the point's own note, pointing at the config's page; no explorer.
        let mut h = Html::new();
        assert!(!lesson(&mut h, play, 0, Words::built_in(Locale::Tr)));
        let tr = h.finish();
        assert!(
            tr.contains("Bu nokta gezgin için çok büyük (50.000 durumdan fazla")
                && tr.contains("yapılandırmanın sayfası")
                && !tr.contains("explorer-data"),
            "{tr}"
        );
    }

    /// A Turkish page's data keeps the Turkish words and every name, and drops the English
    /// ones (the other way round on an English page).
    #[test]
    fn the_data_keeps_the_pages_language_only() {
        let play = r#"{"max":5,"bytes":9,"claims":[],"metrics":[],"points":[{"t":["read c","c oku","a-0","reads c: 0","c okur: 0","1 of 2","1 / 2","c"],"actors":[[2,[[0,1]]]],"res":[[7],[],[],[]],"c":[0],"r":[[2,3,4,5,6]],"x":[],"s":[[0,[0],[]]],"o":[]}]}"#;
        let tr = section_of(play, Locale::Tr);
        for kept in ["c oku", "a-0", "c okur: 0", "1 / 2", r#""c""#] {
            assert!(tr.contains(kept), "{kept}: {tr}");
        }
        for dropped in ["read c", "reads c: 0", "1 of 2"] {
            assert!(!tr.contains(dropped), "{dropped}: {tr}");
        }
        let en = section_of(play, Locale::En);
        assert!(
            en.contains("reads c: 0") && !en.contains("c okur: 0"),
            "{en}"
        );
    }
}
