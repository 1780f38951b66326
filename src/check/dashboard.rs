//! `--format junit` and `--format json`: every claim and lesson region as a test case, so a
//! course's CI shows each drifted figure by name with its written (expected) and run values.

use std::fmt::Write;

use serde::Serialize;

/// How `check`, `lesson check` and `report` print their verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum Format {
    /// One line per claim or failing region, then `N passed, M failed`.
    #[default]
    Text,
    /// JUnit XML: one `<testsuite>` per config or lesson, one `<testcase>` per claim or region.
    Junit,
    /// One JSON document: the counts and every case.
    Json,
}

/// One claim or region.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Case {
    /// The config or lesson it belongs to.
    pub(crate) suite: String,
    /// The claim's name, or the region (`store.ratio_pct form=assign`).
    pub(crate) name: String,
    /// Whether it passed.
    pub(crate) pass: bool,
    /// `FILE:LINE:COL` of a region.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) location: Option<String>,
    /// What the lesson wrote, or what the claim expects.
    pub(crate) expected: String,
    /// What the run gave.
    pub(crate) actual: String,
    /// The line `check` prints, or a region's failure message.
    pub(crate) message: String,
    /// A drifted table's unified diff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) diff: Option<String>,
}

#[derive(Serialize)]
struct Document<'a> {
    passed: usize,
    failed: usize,
    cases: &'a [Case],
}

/// The JSON document.
pub(crate) fn json(cases: &[Case]) -> String {
    let passed = cases.iter().filter(|c| c.pass).count();
    let doc = Document {
        passed,
        failed: cases.len() - passed,
        cases,
    };
    // Serializing plain strings, numbers and booleans cannot fail.
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// Text for an XML attribute or element: escaped, control characters (invalid in XML 1.0)
/// dropped.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The JUnit XML report: suites in the order their first case comes.
pub(crate) fn junit(cases: &[Case]) -> String {
    let mut suites: Vec<&str> = Vec::new();
    for c in cases {
        if !suites.contains(&c.suite.as_str()) {
            suites.push(&c.suite);
        }
    }
    let failed = cases.iter().filter(|c| !c.pass).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"coordsim\" tests=\"{}\" failures=\"{failed}\">",
        cases.len()
    );
    for suite in suites {
        let these: Vec<&Case> = cases.iter().filter(|c| c.suite == suite).collect();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">",
            xml(suite),
            these.len(),
            these.iter().filter(|c| !c.pass).count()
        );
        for c in these {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml(suite),
                xml(&c.name)
            );
            if c.pass {
                out.push_str("/>\n");
                continue;
            }
            let mut body = format!("expected: {}\nactual: {}\n", c.expected, c.actual);
            if let Some(at) = &c.location {
                body = format!("{at}\n{body}");
            }
            if let Some(diff) = &c.diff {
                body.push_str(diff);
            }
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                xml(&c.message),
                xml(&body)
            );
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(pass: bool) -> Case {
        Case {
            suite: "lessons/a.md".into(),
            name: "store.ratio_pct <x> & \"y\"".into(),
            pass,
            location: Some("lessons/a.md:3:5".into()),
            expected: "%88,8".into(),
            actual: "88.9".into(),
            message: "drifted\u{1b}".into(),
            diff: None,
        }
    }

    #[test]
    fn junit_escapes_names_and_counts_failures() {
        let x = junit(&[case(true), case(false)]);
        assert!(x.contains("<testsuites name=\"coordsim\" tests=\"2\" failures=\"1\">"));
        assert!(x.contains("name=\"store.ratio_pct &lt;x&gt; &amp; &quot;y&quot;\""));
        assert!(x.contains("<failure message=\"drifted\">lessons/a.md:3:5\nexpected: %88,8\nactual: 88.9\n</failure>"));
        assert!(!x.contains('\u{1b}'));
    }

    #[test]
    fn json_counts_and_lists_every_case() {
        let j: serde_json::Value = serde_json::from_str(&json(&[case(true), case(false)])).unwrap();
        assert_eq!(j["passed"], 1);
        assert_eq!(j["failed"], 1);
        assert_eq!(j["cases"][1]["expected"], "%88,8");
        assert_eq!(j["cases"][1]["location"], "lessons/a.md:3:5");
    }
}
