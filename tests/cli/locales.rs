//! A course's own words for the site (`locales/en.toml`, `locales/tr.toml`): they replace the
//! built-in words of the pages in their locale key by key; a file in another language falls
//! back to English with a warning naming what it leaves out; a wrong file is an error at its
//! place, before anything runs.

use std::path::Path;

use crate::harness::*;

/// A Turkish config with one claim that holds and one that fails (2 claims: 1 of 2 hold),
/// and an English one with one claim.
fn course() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("configs")).unwrap();
    let queue = |locale: &str, claims: &str| {
        format!(
            "model = \"single_writer_queue\"\nlocale = \"{locale}\"\ntitle = \"Q\"\n[params]\nservice_ms = 5\nrequests_per_client = 10\ninterarrival_ms = 1000\nclients = 2\n{claims}"
        )
    };
    let claim = |expect: u32| {
        format!(
            "[[claim]]\nname = \"lost {expect}\"\nmetric = \"lost_updates\"\nexpect = {expect}\n"
        )
    };
    std::fs::write(
        dir.path().join("configs/tr.toml"),
        queue("tr", &format!("{}{}", claim(0), claim(1))),
    )
    .unwrap();
    std::fs::write(dir.path().join("configs/en.toml"), queue("en", &claim(0))).unwrap();
    dir
}

fn write_locale(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir.join("locales")).unwrap();
    std::fs::write(dir.join("locales").join(name), text).unwrap();
}

fn report(dir: &Path) -> std::process::Output {
    coordsim_in(dir, &["report", "--out", "out", "--quiet"])
}

fn page(dir: &Path, name: &str) -> String {
    String::from_utf8(read(dir.join("out/site").join(name))).unwrap()
}

/// `FILE:LINE:COL` of the first `needle` in `text` (1-based), counted here, not by coordsim.
fn at(file: &str, text: &str, needle: &str) -> String {
    let offset = text.find(needle).unwrap();
    let line = text[..offset].matches('\n').count() + 1;
    let col = text[..offset].rsplit('\n').next().unwrap().chars().count() + 1;
    format!("{file}:{line}:{col}")
}

#[test]
fn a_course_locale_file_replaces_the_site_words_of_its_pages_and_no_others() {
    let dir = course();
    // Before: the built-in Turkish heading and summary.
    let o = report(dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let built_in = page(dir.path(), "config-tr.html");
    assert!(built_in.contains(">İddialar</h2>"), "{built_in}");
    assert!(built_in.contains("2 iddianın 1 tanesi tutuyor, 1 tanesi tutmuyor."));
    // The course's words for Turkish pages: a heading, the badges, the summary with its
    // placeholders in its own order.
    write_locale(
        dir.path(),
        "tr.toml",
        "# Our course says Savlar.\n[words]\nheading_claims = \"Savlar\"\npass = \"OLDU\"\nfail = \"OLMADI\"\nclaims_summary = \"{failed} sav tutmadı; {total} savın {passed} tanesi tuttu.\"\n",
    );
    let o = report(dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let tr = page(dir.path(), "config-tr.html");
    assert!(
        tr.contains(">Savlar</h2>") && !tr.contains("İddialar"),
        "{tr}"
    );
    assert!(
        tr.contains("1 sav tutmadı; 2 savın 1 tanesi tuttu."),
        "{tr}"
    );
    assert_eq!(tr.matches(">OLDU</span>").count(), 1, "{tr}");
    assert_eq!(tr.matches(">OLMADI</span>").count(), 1, "{tr}");
    // What the file does not name stays the built-in Turkish; the page stays `tr`.
    assert!(tr.contains(">Parametreler</h2>") && tr.contains("<html lang=\"tr\">"));
    // An English page is not a Turkish one: untouched.
    let en = page(dir.path(), "config-en.html");
    assert!(
        en.contains(">Claims</h2>") && en.contains(">PASS</span>"),
        "{en}"
    );
    assert!(!en.contains("Savlar") && !en.contains("OLDU"));
}

#[test]
fn a_locale_file_in_another_language_is_english_where_it_is_silent_and_says_so() {
    let dir = course();
    let text = "language = \"de\"\n\n[words]\nheading_claims = \"Behauptungen\"\nheading_parameters = \"Parameter\"\n";
    write_locale(dir.path(), "en.toml", text);
    let o = report(dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // One warning, at the [words] table, counting and naming what it leaves out (the first
    // keys the site has, in its order).
    let err = stderr(&o);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    let file = Path::new("locales").join("en.toml").display().to_string();
    assert_eq!(warnings.len(), 1, "{}", stderr(&o));
    assert!(
        warnings[0].starts_with(&format!(
            "warning: {}: 88 of 90 words not given (language = \"de\"), shown in English: site_name, footer_written_by, ",
            at(&file, text, "words")
        )),
        "{}",
        warnings[0]
    );
    let en = page(dir.path(), "config-en.html");
    assert!(en.contains("<html lang=\"de\">"), "{en}");
    assert!(en.contains(">Behauptungen</h2>") && en.contains(">Parameter</h2>"));
    // Silent keys: English, not Turkish, whatever the numbers' locale.
    assert!(
        en.contains(">Table</h2>") && en.contains(">PASS</span>"),
        "{en}"
    );
}

#[test]
fn a_wrong_locale_file_is_an_error_at_its_place_before_anything_runs() {
    // (file, text, where the error points, what it says)
    let cases = [
        (
            "tr.toml",
            "[words]\nheading_claim = \"Savlar\"\n",
            "heading_claim",
            "unknown key `heading_claim` in [words] (did you mean `heading_claims`?); the keys are the site's words, listed in docs/config.md (\"The site's words\")",
        ),
        (
            "tr.toml",
            "[words]\nclaims_summary = \"{passed} / {total}\"\n",
            "\"{passed}",
            "`claims_summary` fills in {failed}, {passed}, {total} (\"{passed} of {total} claim(s) hold, {failed} fail.\"); this word has {passed}, {total}",
        ),
        (
            "tr.toml",
            "[words]\npass = 1\n",
            "1",
            "`pass` is a word: a string, such as \"PASS\"",
        ),
        (
            "tr.toml",
            "langauge = \"de\"\n",
            "langauge",
            "unknown key `langauge` (did you mean `language`?); a locale file has language and words",
        ),
        (
            "en.toml",
            "language = \"de DE\"\n",
            "\"de DE\"",
            "`language` is a language tag (`de`, `pt-BR`), not `de DE`",
        ),
        (
            "tk.toml",
            "[words]\n",
            "[words]",
            "a locale file is named after the locale of the pages it words, not `tk`: en.toml or tr.toml (did you mean `tr`?)",
        ),
    ];
    for (name, text, needle, message) in cases {
        let dir = course();
        write_locale(dir.path(), name, text);
        let o = report(dir.path());
        let file = Path::new("locales").join(name).display().to_string();
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert_eq!(
            stderr(&o).trim_end(),
            format!("error: {}: {message}", at(&file, text, needle)),
            "{text}"
        );
        // Refused before any config ran: no output at all.
        assert!(!dir.path().join("out").exists(), "{text}");
    }
}
