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

/// A Turkish config page says what each parameter means in Turkish: a built-in model's and
/// a scenario's own; the English page keeps the model's English.
#[test]
fn a_turkish_config_page_says_what_its_parameters_mean_in_turkish() {
    let dir = course();
    let explore =
        std::fs::read_to_string(root().join("configs/explore/explore-lost-update.toml")).unwrap();
    std::fs::write(dir.path().join("configs/explore-tr.toml"), &explore).unwrap();
    // A metric of the config's own wraps the model: its meanings pass through.
    let queue = std::fs::read_to_string(dir.path().join("configs/tr.toml")).unwrap();
    std::fs::write(
        dir.path().join("configs/metric-tr.toml"),
        format!("{queue}[[metric]]\nname = \"twice\"\nexpr = \"2 * requests\"\n"),
    )
    .unwrap();
    report(dir.path());
    // The meaning cell of parameter `key` on a page: the cell after the row's other three.
    let meaning_of = |html: &str, key: &str| -> String {
        let row = html
            .split("<tr>")
            .find(|row| row.starts_with(&format!("<td><code>{key}</code></td>")))
            .unwrap_or_else(|| panic!("no row for `{key}` in {html}"));
        let cell = row.rsplit("<td class=\"prose\">").next().unwrap();
        cell.split("</td>").next().unwrap().to_string()
    };
    let tr = page(dir.path(), "config-tr.html");
    let en = page(dir.path(), "config-en.html");
    assert_eq!(meaning_of(&tr, "clients"), "istemci sayısı");
    let with_metric = page(dir.path(), "config-metric-tr.html");
    assert_eq!(meaning_of(&with_metric, "clients"), "istemci sayısı");
    assert_eq!(meaning_of(&en, "clients"), "number of clients");
    assert!(
        meaning_of(&tr, "service_ms").starts_with("istek başına hizmet süresi"),
        "{tr}"
    );
    let scenario = page(dir.path(), "config-explore-tr.html");
    // `clients = 2` and `increments = 2` are integers; the sweep's `guard` is a string.
    assert_eq!(
        meaning_of(&scenario, "clients"),
        "bu senaryonun bir parametresi (tam sayı)"
    );
    assert_eq!(
        meaning_of(&scenario, "guard"),
        "bu senaryonun bir parametresi (metin)"
    );
    assert!(
        meaning_of(&scenario, "tie_order").starts_with("bir andaki olayların sırası"),
        "{scenario}"
    );
    // A course that puts its Turkish pages in another language: the declared English.
    write_locale(
        dir.path(),
        "tr.toml",
        "language = \"de\"\n[words]\nheading_claims = \"Behauptungen\"\n",
    );
    report(dir.path());
    let german = page(dir.path(), "config-tr.html");
    assert_eq!(meaning_of(&german, "clients"), "number of clients");
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
            "warning: {}: {} of {} words not given (language = \"de\"), shown in English: site_name, footer_written_by, ",
            at(&file, text, "words"),
            keys().len() - 2,
            keys().len()
        )),
        "{}",
        warnings[0]
    );
    // docs/config.md's example file gives one word: its warning counts the rest.
    let guide = std::fs::read_to_string(root().join("docs/config.md")).unwrap();
    let counted = format!(
        "{} of {} words not given (language = \"de\")",
        keys().len() - 1,
        keys().len()
    );
    assert!(
        guide.contains(&counted),
        "docs/config.md should say {counted:?}"
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
            "tr.toml",
            "words = 3\n",
            "3",
            "`words` must be a table: `[words]`, then `key = \"word\"` lines",
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

/// Every key of the site's words with its English, from docs/config.md's table (a unit test
/// holds that table equal to the site's own list).
fn keys() -> Vec<(String, String)> {
    site_words().into_iter().map(|(k, en, _)| (k, en)).collect()
}

/// Every key of the site's words with its English and its Turkish, from docs/config.md.
fn site_words() -> Vec<(String, String, String)> {
    let docs = String::from_utf8(read(root().join("docs/config.md"))).unwrap();
    let start = docs
        .find("| site word key |")
        .expect("docs list the site's words");
    docs[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let cells: Vec<String> = (row.trim_matches('|').split(" | "))
                .map(|c| c.trim().trim_matches('`').replace("\\|", "|"))
                .collect();
            (cells[0].clone(), cells[1].clone(), cells[2].clone())
        })
        .collect()
}

/// A page's text as a reader gets it (entities decoded), less its comments, what `<code>`
/// quotes verbatim (a command, a file's name) and the index's failures, which quote
/// `check`'s lines (English on every page, as `check` prints them).
fn words_of(html: &str) -> String {
    let mut text = html.to_string();
    for (open, close) in [
        ("<!--", "-->"),
        ("<code>", "</code>"),
        ("<ul class=\"failures\">", "</ul>"),
    ] {
        while let Some(start) = text.find(open) {
            let end = text[start..].find(close).unwrap() + start + close.len();
            text.replace_range(start..end, " ");
        }
    }
    (text
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<"))
    .replace("&gt;", ">")
    .replace("&amp;", "&")
}

/// Whether `text` shows `phrase` with its placeholders filled (`outcome {k} of {of}` as
/// `outcome 1 of 4`): its text between them in order, each placeholder some text of one
/// cell (no tag, no line end).
fn shows(text: &str, phrase: &str) -> bool {
    fn from(text: &str, parts: &[&str]) -> bool {
        let Some((part, rest)) = parts.split_first() else {
            return true;
        };
        // The text a placeholder stands for, then the next part.
        let filled = text.find(['<', '>', '\n']).unwrap_or(text.len());
        (1..=filled.min(200))
            .filter(|&i| text.is_char_boundary(i) && text[i..].starts_with(part))
            .any(|i| from(&text[i + part.len()..], rest))
    }
    let parts: Vec<&str> = phrase
        .split('{')
        .map(|f| f.split_once('}').map_or(f, |(_, rest)| rest))
        .filter(|f| !f.is_empty())
        .collect();
    let Some((first, rest)) = parts.split_first() else {
        return false;
    };
    text.match_indices(first)
        .any(|(i, _)| from(&text[i + first.len()..], rest))
}

/// The words of a phrase (its text less placeholders, numbers and signs).
fn words(phrase: &str) -> Vec<String> {
    let text: String = phrase
        .split('{')
        .map(|f| f.split_once('}').map_or(f, |(_, rest)| rest))
        .collect::<Vec<_>>()
        .join(" ");
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Every phrase with a placeholder and two words or more (`outcome {k} of {of} ({executions}
/// executions)`): a page that shows one filled in writes English the keys did not give.
fn built_in_phrases() -> Vec<String> {
    keys()
        .into_iter()
        .map(|(_, english)| english.trim().to_string())
        .filter(|e| e.contains('{') && words(e).len() >= 2)
        .collect()
}

/// The claims table of a page (`<table class="claims">…</table>`), less each claim's name
/// (the config's own words).
fn claims_table(text: &str) -> String {
    let start = text.find("<table class=\"claims\">").unwrap();
    let end = text[start..].find("</table>").unwrap() + start;
    let mut table = text[start..end].to_string();
    while let Some(at) = table.find("class=\"name\">") {
        let close = table[at..].find("</td>").unwrap() + at;
        table.replace_range(at..close, ">");
    }
    // Its text alone, a cell's end a space.
    while let Some(at) = table.find('<') {
        let close = table[at..].find('>').unwrap() + at;
        table.replace_range(at..=close, " ");
    }
    table
}

/// The built-in English a page must not show when its words are all given elsewhere: each
/// phrase's text between its placeholders, where it is two words or more (a single word such
/// as `run` could be a config's own), and each badge.
fn built_in_english() -> Vec<String> {
    let mut out = Vec::new();
    for (_, english) in keys() {
        let badge =
            !english.is_empty() && english.bytes().all(|b| b.is_ascii_uppercase() || b == b' ');
        if badge {
            out.push(format!(">{english}<"));
            continue;
        }
        for fragment in english
            .split('{')
            .map(|f| f.split_once('}').map_or(f, |(_, rest)| rest))
        {
            let fragment = fragment.trim_matches(|c: char| !c.is_alphanumeric());
            if fragment.split_whitespace().count() >= 2 {
                out.push(fragment.to_string());
            }
        }
    }
    out
}

/// [`course`], with an explored config in each language and a config of a text claim in
/// each, a lesson in each, and an English locale file giving every key.
fn every_word_course() -> tempfile::TempDir {
    let dir = course();
    // An explored config in each language (its step chart's alt text; its claims hold
    // always, sometimes and never, and are a min and a max over the executions), a config
    // of a text claim in each, and a lesson in each whose value drifts and whose images are
    // not shown (one missing, one from the network).
    let mut explore =
        std::fs::read_to_string(root().join("configs/explore/explore-lost-update.toml")).unwrap();
    explore.push_str(
        "[[claim]]\nname = \"en çok 4\"\nwhere = { guard = \"none\" }\nover = \"executions\"\nmetric = \"counter.value\"\nstat = \"max\"\nexpect = 4\n\n[[claim]]\nname = \"hiç 5 olmaz\"\nwhere = { guard = \"none\" }\nover = \"executions\"\nholds = \"never\"\nmetric = \"counter.value\"\nat_least = 5\n",
    );
    let text_claim =
        std::fs::read_to_string(root().join("configs/lessons/idempotency-key.toml")).unwrap();
    for lang in ["en", "tr"] {
        let locale = |text: &str| text.replace("locale = \"tr\"", &format!("locale = \"{lang}\""));
        std::fs::write(
            dir.path().join(format!("configs/explore-{lang}.toml")),
            locale(&explore),
        )
        .unwrap();
        std::fs::write(
            dir.path().join(format!("configs/text-{lang}.toml")),
            locale(&text_claim),
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("lessons")).unwrap();
        std::fs::write(
            dir.path().join(format!("lessons/{lang}.md")),
            format!(
                "<!-- coordsim use q = \"../configs/{lang}.toml\" -->\n<!-- coordsim locale = \"{lang}\" -->\n# L\n\nLost <!-- coordsim q.lost_updates -->3<!-- /coordsim -->.\n\n![a](img/none.svg) ![b](https://example.org/b.png)\n"
            ),
        )
        .unwrap();
    }
    // The course's English words: every key, each word its key and the phrase's placeholders.
    let mut file = String::from("[words]\n");
    for (key, english) in keys() {
        let holes: String = (english.split('{').skip(1))
            .filter_map(|p| p.split_once('}').map(|(n, _)| format!(" {{{n}}}")))
            .collect();
        file.push_str(&format!("{key} = \"<{key}>{holes}\"\n"));
    }
    write_locale(dir.path(), "en.toml", &file);
    dir
}

/// No page shows a built-in English phrase, nor one filled in, and no Turkish claims table
/// an English word of the site's.
fn assert_no_built_in_english(pages: &[(&str, String)]) {
    let english = built_in_english();
    assert!(english.len() > 60, "{english:?}");
    let phrases = built_in_phrases();
    assert!(
        phrases.contains(&"outcome {k} of {of} ({executions} executions)".to_string()),
        "{phrases:?}"
    );
    // The English words of every phrase, for a Turkish claims table, less those Turkish
    // shares (`model`).
    let turkish: Vec<String> = (site_words().iter())
        .flat_map(|(_, _, tr)| words(tr))
        .collect();
    let english_words: Vec<String> = (keys().iter())
        .flat_map(|(_, e)| words(e))
        .filter(|w| w.len() >= 3 && !turkish.contains(w))
        .collect();
    for (name, html) in pages {
        let text = words_of(html);
        for phrase in &english {
            assert!(
                !text.contains(phrase.as_str()),
                "{name}: {phrase:?} in {text}"
            );
        }
        for phrase in &phrases {
            assert!(!shows(&text, phrase), "{name}: {phrase:?} in {text}");
        }
        if name.ends_with("-tr") && text.contains("<table class=\"claims\">") {
            // A Turkish claims table has no English word of the site's at all (`expected
            // 1`, `sometimes: …`), each claim's name aside.
            let table = claims_table(&text);
            for word in words(&table) {
                assert!(
                    !english_words.contains(&word),
                    "{name}: English {word:?} in its claims table: {table}"
                );
            }
        }
    }
}

#[test]
fn every_word_the_site_writes_is_a_key_turkish_built_in_and_a_course_file_words_them_all() {
    let dir = every_word_course();
    let o = report(dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    // No page shows a built-in English phrase: the English ones are the course's words, the
    // Turkish ones the built-in Turkish.
    let index = String::from_utf8(read(dir.path().join("out/index.html"))).unwrap();
    let pages = [
        ("index", index),
        ("config-en", page(dir.path(), "config-en.html")),
        (
            "config-explore-en",
            page(dir.path(), "config-explore-en.html"),
        ),
        ("config-text-en", page(dir.path(), "config-text-en.html")),
        ("lesson-en", page(dir.path(), "lesson-en.html")),
        ("config-tr", page(dir.path(), "config-tr.html")),
        (
            "config-explore-tr",
            page(dir.path(), "config-explore-tr.html"),
        ),
        ("config-text-tr", page(dir.path(), "config-text-tr.html")),
        ("lesson-tr", page(dir.path(), "lesson-tr.html")),
    ];
    assert_no_built_in_english(&pages);
    // The course's words are where the site's were: the frame, the index, the badges, a
    // step chart's alt text, why an image is not shown.
    let text = |name: &str| words_of(&pages.iter().find(|(n, _)| *n == name).unwrap().1);
    for (name, words) in [
        (
            "index",
            &[
                "<site_name>",
                "<failures_badge>",
                "<heading_configs> 6",
                "<totals_line>",
                "<column_claims_passed>",
                "<pass>",
            ][..],
        ),
        (
            "config-explore-en",
            &[
                "<trace_alt> Kaybolan güncelleme, her yürütmede 2",
                "<footer_promise>",
                "<heading_executions>",
            ][..],
        ),
        (
            // A claim over executions, each part in the course's words.
            "config-explore-en",
            &[
                "<min_of_executions> 70",
                "<max_of_executions> 70",
                "<holds_sometimes> <at_most> clients * increments - 1 = 3",
                // Outcome 1 of 4: the counter at 2 with one lost update, 8 of the 70
                // executions (the page's outcome table: 8 + 32 + 24 + 6 = 70).
                "<outcome_of> 1 4 8",
                "<holds_always> <expected_value> clients * increments = 4",
                "<holds_never> <at_least> 5",
            ][..],
        ),
        (
            "config-text-en",
            &["<expected_value> \"rejected\"<test_exact_text>"][..],
        ),
        (
            "lesson-en",
            &[
                "<drifted_badge>",
                "<image_no_file>",
                "<image_from_network> https://example.org/b.png",
            ][..],
        ),
    ] {
        for word in words {
            assert!(
                text(name).contains(word),
                "{name}: {word} in {}",
                text(name)
            );
        }
    }
    // The Turkish pages in the built-in Turkish, the same places.
    assert!(text("config-explore-tr").contains(": iddia 2 için belirleyici yürütme"));
    for words in [
        "guard = \"none\" — en kötü: 70 yürütmenin en küçüğü</td><td>2</td>",
        "— en kötü: 4 sonucun 1. sonucu (8 yürütme)</td><td>bazı yürütmelerde: en çok clients * increments - 1 = 3</td>",
        "<td>her yürütmede: clients * increments = 4</td>",
        "<td>hiçbir yürütmede: en az 5</td>",
    ] {
        assert!(text("config-explore-tr").contains(words), "{words}");
    }
    assert!(text("config-text-tr").contains("<td>\"rejected\", tam metin</td>"));
    assert!(text("lesson-tr").contains("böyle bir dosya yok"));
    assert!(text("lesson-tr").contains("site yalnız dersin kendi görüntü dosyalarını gösterir"));
    // With `--seed` the index says the lessons were not checked, in the course's words.
    let o = coordsim_in(
        dir.path(),
        &["report", "--out", "seeded", "--quiet", "--seed", "7"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let index = String::from_utf8(read(dir.path().join("seeded/index.html"))).unwrap();
    assert!(index.contains("&lt;lessons_not_checked&gt;"), "{index}");
}

/// One mutation of a locale file: a span deleted, a token inserted, or a line repeated.
fn mutate(text: &str, rng: &mut crate::fuzz::Mix) -> String {
    const TOKENS: &[&str] = &[
        "\"",
        "'",
        "[",
        "]",
        "{",
        "}",
        "=",
        "\n",
        ",",
        ".",
        "\\",
        "\"\"\"",
        "{passed}",
        "{x}",
        "{{",
        "1",
        "1e308",
        "true",
        "[]",
        "{}",
        "[words]\n",
        "[[words]]\n",
        "[words.x]\n",
        "language = \"de\"\n",
        "language = \"\"\n",
        "language = 1\n",
        "words = 1\n",
        "x = 1\n",
        "é",
        "\u{0}",
        "\u{1b}[31m",
        "\u{feff}",
        "\r\n",
    ];
    let chars: Vec<char> = text.chars().collect();
    let at = rng.below(chars.len() + 1);
    let lines: Vec<&str> = text.lines().collect();
    let k = rng.below(lines.len());
    // Half keep the syntax (a line left out, a word replaced), so many files reach the
    // checks of keys and placeholders; the rest break it somewhere.
    match rng.below(6) {
        3 => {
            let kept = (lines.iter().enumerate()).filter(|(j, _)| *j != k);
            kept.map(|(_, l)| format!("{l}\n")).collect()
        }
        4 | 5 => {
            let word = [
                "\"x\"",
                "\"\"",
                "\"{passed}\"",
                "\"é {n} {row}\"",
                "'{value}'",
                "\"\"\"a\nb\"\"\"",
            ];
            let word = word[rng.below(word.len())];
            let changed = (lines.iter().enumerate()).map(|(j, l)| match l.split_once(" = ") {
                Some((key, _)) if j == k => format!("{key} = {word}\n"),
                _ => format!("{l}\n"),
            });
            changed.collect()
        }
        0 => {
            let end = (at + 1 + rng.below(20)).min(chars.len());
            chars[..at].iter().chain(&chars[end..]).collect()
        }
        1 => {
            let mut out: String = chars[..at].iter().collect();
            out.push_str(TOKENS[rng.below(TOKENS.len())]);
            out.extend(&chars[at..]);
            out
        }
        _ => format!("{}\n{}", lines[..=k].join("\n"), lines[k..].join("\n")),
    }
}

#[test]
fn mutated_locale_files_never_panic_and_each_error_names_its_place() {
    // A whole file, and a short one in another language: every mutation of either is read
    // or refused at FILE:LINE:COL, in this process.
    let mut full = String::from("[words]\n");
    for (key, english) in keys() {
        full.push_str(&format!("{key} = {english:?}\n"));
    }
    let short = "language = \"de\"\n[words]\nheading_claims = \"Behauptungen\"\nclaims_summary = \"{passed} von {total}, {failed} nicht\"\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tr.toml");
    let file = path.display().to_string();
    let mut rng = crate::fuzz::Mix(7);
    let (mut read, mut refused) = (0, 0);
    for i in 0..1500 {
        let mut text = [full.as_str(), short][i % 2].to_string();
        for _ in 0..1 + rng.below(2) {
            text = mutate(&text, &mut rng);
        }
        std::fs::write(&path, &text).unwrap();
        let got = std::panic::catch_unwind(|| coordsim::site::locales::Locales::read(dir.path()));
        match got {
            Err(_) => panic!("input {i} panicked:\n{text}"),
            Ok(Ok(_)) => read += 1,
            Ok(Err(e)) => {
                refused += 1;
                let e = e.to_string();
                let place = e.strip_prefix(&format!("{file}:")).unwrap_or_else(|| {
                    panic!("input {i}: {e:?} does not start at its file\n{text}")
                });
                let mut parts = place.splitn(3, ':');
                let (line, col) = (parts.next().unwrap(), parts.next().unwrap());
                assert!(
                    line.parse::<usize>().is_ok_and(|l| l >= 1)
                        && col.parse::<usize>().is_ok_and(|c| c >= 1)
                        && parts.next().is_some_and(|m| m.len() > 2),
                    "input {i}: {e:?}\n{text}"
                );
            }
        }
    }
    eprintln!("locale fuzz: {read} read, {refused} refused, no panic");
    // Both fates are common, or the mutations test only one path.
    assert!(
        read > 100 && refused > 100,
        "{read} read, {refused} refused"
    );
    // A file that is not UTF-8 is refused at its start.
    std::fs::write(&path, b"[words]\npass = \"\xff\"\n").unwrap();
    let e = coordsim::site::locales::Locales::read(dir.path()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{file}:1:1: a locale file is UTF-8 text")
    );
}

/// `report --index-locale tr`: the index in Turkish (the built-in words, the course having
/// no `tr.toml`), no English phrase of the site's on it, while the English pages keep the
/// course's `en.toml` words: the index's locale is its own.
#[test]
fn a_turkish_index_shows_no_english_and_leaves_the_english_pages_alone() {
    let dir = every_word_course();
    let o = coordsim_in(
        dir.path(),
        &["report", "--out", "out", "--quiet", "--index-locale", "tr"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let index = String::from_utf8(read(dir.path().join("out/index.html"))).unwrap();
    assert_no_built_in_english(&[("index-tr", index.clone())]);
    let text = words_of(&index);
    for word in [
        "coordsim raporu",
        "HATALAR",
        "Yapılandırmalar (6)",
        "tutan iddialar",
    ] {
        assert!(text.contains(word), "{word} in {text}");
    }
    assert!(!text.contains("<site_name>"), "{text}");
    for word in ["<drifted_badge>", "<image_no_file>"] {
        assert!(
            words_of(&page(dir.path(), "lesson-en.html")).contains(word),
            "{word}"
        );
    }
}
