//! One config, two languages: per-locale labels, titles and claim names; a lesson's locale
//! driving the tables and charts it shows; the index's own locale.

use crate::harness::*;

/// A Turkish config that also speaks English: one client, then two, each sending 10
/// requests 1000 ms apart, served in 4.5 ms: nobody waits, so every request takes 4.5 ms.
const QUEUE: &str = r#"model = "single_writer_queue"
locale = "tr"
title = { tr = "Kuyruk", en = "Queue" }
[params]
service_ms = 4.5
requests_per_client = 10
interarrival_ms = 1000
[sweep]
clients = [1, 2]
[table]
columns = ["clients", "service_ms", "lost_updates"]
[[claim]]
name = { tr = "kayıp yok", en = "no update lost" }
metric = "lost_updates"
expect = 0
[[chart]]
name = "lost"
x = "clients"
y = ["lost_updates"]
title = { tr = "Kayıplar", en = "Lost updates" }
mark_y = { value = 1, label = { tr = "sınır", en = "limit" } }
y_expr = { zero = "0" }
[labels]
service_ms = "S (ms)"
[labels.tr]
clients = "istemci"
lost_updates = "kayıp"
zero = "sıfır"
[labels.en]
clients = "clients"
lost_updates = "lost"
zero = "none"
"#;

fn config(text: &str) -> Result<coordsim::config::Config, String> {
    library_config(&registry(), "q.toml", text).map_err(|e| e.to_string())
}

/// Read in its own locale, the config says everything in Turkish; read in English, every
/// per-locale text and label is the English one, `[labels]` holds in both, and the plan
/// (model, points) is the same.
#[test]
fn a_config_read_in_each_locale_it_speaks_says_its_words_in_that_locale() {
    use coordsim::locale::Locale;
    let tr = config(QUEUE).unwrap();
    assert!(tr.speaks(Locale::Tr) && tr.speaks(Locale::En));
    assert_eq!(tr.locale, Locale::Tr);
    let en = tr.in_locale(Locale::En, &registry()).unwrap();
    assert_eq!(en.locale, Locale::En);
    let said = |c: &coordsim::config::Config| {
        (
            c.title.clone(),
            c.label("clients").to_string(),
            c.label("lost_updates").to_string(),
            c.label("service_ms").to_string(),
            c.claims[0].name.clone(),
            c.charts[0].look.title.clone().unwrap(),
            c.charts[0].mark_y_label.clone().unwrap(),
        )
    };
    let words = |t: [&str; 7]| t.map(String::from);
    let [a, b, c, d, e, f, g] = words([
        "Kuyruk",
        "istemci",
        "kayıp",
        "S (ms)",
        "kayıp yok",
        "Kayıplar",
        "sınır",
    ]);
    assert_eq!(said(&tr), (a, b, c, d, e, f, g));
    let [a, b, c, d, e, f, g] = words([
        "Queue",
        "clients",
        "lost",
        "S (ms)",
        "no update lost",
        "Lost updates",
        "limit",
    ]);
    assert_eq!(said(&en), (a, b, c, d, e, f, g));
    assert_eq!(tr.title_in(Locale::En), "Queue");
    assert_eq!((en.points, en.claims.len()), (tr.points, tr.claims.len()));
    // A config of one language speaks its own only.
    let one = config("model = \"single_writer_queue\"\nlocale = \"tr\"\n").unwrap();
    assert!(one.speaks(Locale::Tr) && !one.speaks(Locale::En));
}

/// A text given per locale names every locale the config speaks, a name one locale labels
/// is labelled in the others, and only a locale is a key of a per-locale text: each
/// mistake is an error at its place naming what is missing.
#[test]
fn a_two_language_config_leaves_no_word_in_one_language_only() {
    // (what to replace, by what, where the error points, the message.)
    for (from, to, place, message) in [
        (
            "name = { tr = \"kayıp yok\", en = \"no update lost\" }",
            "name = { tr = \"kayıp yok\" }",
            "{ tr = \"kayıp yok\" }",
            "`name` gives no text in `en`, a locale this config speaks (tr, en); add `en = \"…\"`",
        ),
        (
            "lost_updates = \"lost\"\n",
            "",
            "lost_updates = \"kayıp\"",
            "`lost_updates` is labelled in [labels.tr] but not in [labels.en]: the `en` pages would show `lost_updates` as it is; label it there too (or in [labels], for every locale)",
        ),
        (
            "[labels.en]",
            "[labels.de]",
            "de]",
            "`de` in `labels` is not a locale; a text per locale names each of: en, tr",
        ),
        (
            "title = { tr = \"Kuyruk\", en = \"Queue\" }",
            "title = { en = \"Queue\" }",
            "{ en = \"Queue\" }",
            "`title` gives no text in the config's locale `tr`; add `tr = \"…\"`",
        ),
        (
            // Each locale's chart title is checked where the config loads.
            "title = { tr = \"Kayıplar\", en = \"Lost updates\" }",
            "title = { tr = \"Kayıplar\", en = \"Lost {nope}\" }",
            "{ tr = \"Kayıplar\", en = \"Lost {nope}\" }",
            "unknown placeholder `{nope}` in `title`; valid: {point} (timelines), ",
        ),
        (
            "title = { tr = \"Kuyruk\", en = \"Queue\" }",
            "title = 3",
            "3\n",
            "`title` must be a string, or one per locale ({ tr = \"…\", en = \"…\" }), got an integer",
        ),
    ] {
        assert!(QUEUE.contains(from), "{from}");
        let text = QUEUE.replacen(from, to, 1);
        let e = config(&text).unwrap_err();
        // Where `place` is, counted here: line and column from 1.
        let offset = text.find(place).unwrap();
        let line = text[..offset].matches('\n').count() + 1;
        let col = text[..offset].rsplit('\n').next().unwrap().chars().count() + 1;
        let want = format!("q.toml:{line}:{col}: {message}");
        assert!(e.starts_with(&want), "{e}\nnot {want}");
    }
}

/// A lesson folder: the two-language `q.toml`, a Turkish-only `t.toml` (the same queue,
/// its own words only), and a lesson per locale showing q's table and chart and t's.
fn lessons() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_config(dir.path(), "q.toml", QUEUE);
    let turkish_only = QUEUE
        .replace(
            "title = { tr = \"Kuyruk\", en = \"Queue\" }",
            "title = \"Kuyruk\"",
        )
        .replace(
            "{ tr = \"kayıp yok\", en = \"no update lost\" }",
            "\"kayıp yok\"",
        )
        .replace(
            "{ tr = \"Kayıplar\", en = \"Lost updates\" }",
            "\"Kayıplar\"",
        )
        .replace("{ tr = \"sınır\", en = \"limit\" }", "\"sınır\"");
    let turkish_only = &turkish_only[..turkish_only.find("[labels.en]").unwrap()];
    write_config(dir.path(), "t.toml", turkish_only);
    for locale in ["tr", "en"] {
        std::fs::write(
            dir.path().join(format!("{locale}.md")),
            format!(
                "<!-- coordsim use q = \"q.toml\" -->\n<!-- coordsim use t = \"t.toml\" -->\n<!-- coordsim locale = \"{locale}\" -->\n# L\n\n<!-- coordsim table q -->\n<!-- /coordsim -->\n\n<!-- coordsim chart q lost -->\n![q](img/{locale}-q.svg)\n<!-- /coordsim -->\n\n<!-- coordsim table t -->\n<!-- /coordsim -->\n\n<!-- coordsim chart t lost -->\n![t](img/{locale}-t.svg)\n<!-- /coordsim -->\n"
            ),
        )
        .unwrap();
    }
    let out = coordsim_in(dir.path(), &["lesson", "fill", "tr.md", "en.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = coordsim_in(dir.path(), &["lesson", "check", "tr.md", "en.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    dir
}

/// An English lesson shows the two-language config's table and chart in English (labels,
/// title, numbers: 4.5), a Turkish one in Turkish (4,5); a config that speaks Turkish only
/// keeps its words in an English lesson (numbers in the lesson's locale, its chart the very
/// one `run` draws), as before configs spoke two languages.
#[test]
fn a_lessons_locale_picks_the_words_of_the_tables_and_charts_it_shows() {
    let dir = lessons();
    let text = |f: &str| String::from_utf8(read(dir.path().join(f))).unwrap();
    let (tr, en) = (text("tr.md"), text("en.md"));
    assert!(
        en.contains("| clients | S (ms) | lost |\n|---:|---:|---:|\n| 1 | 4.5 | 0 |"),
        "{en}"
    );
    assert!(
        tr.contains("| istemci | S (ms) | kayıp |\n|---:|---:|---:|\n| 1 | 4,5 | 0 |"),
        "{tr}"
    );
    // t speaks Turkish only: its words in both, the lesson's numbers.
    assert!(en.contains("| istemci | S (ms) | kayıp |\n|---:|---:|---:|\n| 1 | 4.5 | 0 |"));
    let svg = |f: &str| text(&format!("img/{f}.svg"));
    let (q_en, q_tr) = (svg("en-q"), svg("tr-q"));
    // A chart's words are paths; its <desc> lists them, a line each.
    // The y_expr line `zero` is labelled per locale too.
    for word in ["Lost updates", "\nlimit", "\nclients\n", "\nnone"] {
        assert!(q_en.contains(word), "{word} in the English chart");
        assert!(!q_tr.contains(word), "{word} in the Turkish chart");
    }
    for word in ["Kayıplar", "\nsınır", "\nistemci\n", "\nsıfır"] {
        assert!(q_tr.contains(word), "{word} in the Turkish chart");
        assert!(!q_en.contains(word), "{word} in the English chart");
    }
    // The Turkish-only config's chart is the one `run` draws, in either lesson.
    let out = coordsim_in(dir.path(), &["run", "t.toml", "--out", "out", "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run = read(dir.path().join("out/t/lost.svg"));
    assert_eq!(read(dir.path().join("img/en-t.svg")), run);
    assert_eq!(read(dir.path().join("img/tr-t.svg")), run);
}

/// The index has its own locale: by default English, `--index-locale tr` Turkish; a config
/// that speaks it is listed by its title in it, and every lesson page keeps its own locale
/// (an English lesson stays English, its provenance naming the claim in English).
#[test]
fn the_index_has_its_own_locale_and_the_pages_keep_theirs() {
    let dir = lessons();
    std::fs::create_dir_all(dir.path().join("configs")).unwrap();
    std::fs::create_dir_all(dir.path().join("lessons/img")).unwrap();
    for f in ["q.toml", "t.toml"] {
        std::fs::rename(dir.path().join(f), dir.path().join("configs").join(f)).unwrap();
    }
    // A value of q in an English lesson: its provenance names the claim that checks it.
    std::fs::write(
        dir.path().join("lessons/en.md"),
        "<!-- coordsim use q = \"../configs/q.toml\" -->\n<!-- coordsim locale = \"en\" -->\n# Lesson\n\nLost: <!-- coordsim q.lost_updates clients=1 -->0<!-- /coordsim -->.\n",
    )
    .unwrap();
    let index = |flag: &[&str]| {
        let mut args = vec!["report", "--out", "out", "--quiet"];
        args.extend_from_slice(flag);
        let out = coordsim_in(dir.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let lesson = String::from_utf8(read(dir.path().join("out/site/lesson-en.html"))).unwrap();
        (
            String::from_utf8(read(dir.path().join("out/index.html"))).unwrap(),
            lesson,
        )
    };
    let (english, lesson) = index(&[]);
    assert!(english.contains("<html lang=\"en\">"), "{english}");
    assert!(english.contains("<td lang=\"en\">Queue</td>"), "{english}");
    // t speaks Turkish only: its own title, marked Turkish.
    assert!(english.contains("<td lang=\"tr\">Kuyruk</td>"), "{english}");
    assert!(lesson.contains("«no update lost»"), "{lesson}");
    let (turkish, lesson_then) = index(&["--index-locale", "tr"]);
    assert!(turkish.contains("<html lang=\"tr\">"), "{turkish}");
    assert!(turkish.contains("<td lang=\"tr\">Kuyruk</td>"), "{turkish}");
    assert!(!turkish.contains(">Queue<"), "{turkish}");
    // The English lesson's page is the same byte for byte: the index's locale is its own.
    assert_eq!(lesson_then, lesson);
    assert!(lesson.contains("<html lang=\"en\">"));
    let out = coordsim_in(dir.path(), &["report", "--index-locale", "de"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
