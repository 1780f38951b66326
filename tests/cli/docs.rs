//! Documentation that must stay true: links, the model reference, the guides' printed output.

use crate::harness::*;
use std::process::Command;

/// `docs/models.md` is what `coordsim models --markdown` generates from the declarations.
#[test]
fn the_model_reference_is_not_stale() {
    let out = coordsim(&["models", "--markdown"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fresh = stdout(&out);
    let committed = String::from_utf8(read(root().join("docs/models.md"))).unwrap();
    if fresh != committed {
        let (line, (want, got)) = fresh
            .lines()
            .chain(std::iter::repeat(""))
            .zip(committed.lines().chain(std::iter::repeat("")))
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .expect("the texts differ somewhere");
        panic!(
            "docs/models.md is stale at line {}:\n- {got}\n+ {want}\nfix: cargo run -- models --markdown > docs/models.md",
            line + 1
        );
    }
    // Every model is in it, with its parameters.
    for name in ["single_writer_queue", "lock_queue", "idempotency"] {
        assert!(committed.contains(&format!("\n## {name}\n")), "{name}");
    }
}

/// Every relative link in the README and the docs points at a file of the repository (a
/// user has the clone, nothing beside it).
#[test]
fn documentation_links_resolve_in_a_clone() {
    let mut pages = vec![
        root().join("README.md"),
        root().join("examples/custom-model/README.md"),
    ];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    let mut links = 0;
    for page in pages {
        let text = String::from_utf8(read(&page)).unwrap();
        assert!(
            !text.contains("../shared"),
            "{}: names ../shared",
            page.display()
        );
        // Links in fenced code are examples, not links.
        let mut fenced = false;
        let text: String = text
            .lines()
            .filter(|l| {
                if l.trim_start().starts_with("```") {
                    fenced = !fenced;
                    return false;
                }
                !fenced
            })
            .map(|l| format!("{l}\n"))
            .collect();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let target = &rest[..rest.find(')').unwrap_or(rest.len())];
            let target = target.split('#').next().unwrap_or("");
            if target.is_empty() || target.contains("://") {
                continue;
            }
            let path = page.parent().unwrap().join(target);
            assert!(
                path.exists(),
                "{}: link to {target} does not resolve",
                page.display()
            );
            links += 1;
        }
    }
    assert!(links >= 5, "only {links} links checked");
}

#[test]
fn the_config_guide_lists_every_built_in_word_in_both_locales() {
    use coordsim::locale::{Locale, Text};
    let guide = String::from_utf8(read(root().join("docs/config.md"))).unwrap();
    for t in Text::ALL {
        let row = format!(
            "| `{}` | {} | {} |",
            t.key(),
            t.in_locale(Locale::En),
            t.in_locale(Locale::Tr)
        );
        assert!(guide.contains(&row), "docs/config.md lacks {row}");
    }
}

#[test]
fn the_lesson_guide_shows_what_check_really_prints() {
    // docs/lessons.md's worked example: change `%88,8` to `%88,9` in lesson 003 and check.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("lessons")).unwrap();
    std::fs::create_dir_all(dir.path().join("configs/lessons")).unwrap();
    for f in std::fs::read_dir(root().join("configs/lessons")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(
            &f,
            dir.path()
                .join("configs/lessons")
                .join(f.file_name().unwrap()),
        )
        .unwrap();
    }
    // The lesson's charts too, so only the changed number drifts.
    std::fs::create_dir_all(dir.path().join("lessons/img")).unwrap();
    for f in std::fs::read_dir(root().join("lessons/img")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(
            &f,
            dir.path().join("lessons/img").join(f.file_name().unwrap()),
        )
        .unwrap();
    }
    let name = "lessons/003-dayanikli-durum-nesneleri.md";
    let text = String::from_utf8(read(root().join(name))).unwrap();
    assert_eq!(text.matches("-->%88,8<").count(), 1);
    std::fs::write(
        dir.path().join(name),
        text.replace("-->%88,8<", "-->%88,9<"),
    )
    .unwrap();
    let out = coordsim_in(dir.path(), &["lesson", "check", name]);
    assert_eq!(out.status.code(), Some(1));
    let guide = String::from_utf8(read(root().join("docs/lessons.md"))).unwrap();
    // Every line printed is in the guide, as printed.
    for line in stdout(&out).lines() {
        assert!(guide.contains(line), "docs/lessons.md should show: {line}");
    }
    assert!(stdout(&out).contains(": store.lost_pct:"));
}

/// CI's format check sees every file, not only those `cargo fmt` reaches through `mod`
/// lines: a model file with a mis-indented line fails it, by name; the same file as it is
/// passes.
#[test]
fn the_format_check_catches_a_mis_formatted_model_file() {
    let tmp = tempfile::tempdir().unwrap();
    let model = String::from_utf8(read(root().join("models/src/saga.rs"))).unwrap();
    std::fs::write(tmp.path().join("saga.rs"), &model).unwrap();
    let check = || {
        Command::new("bash")
            .arg(root().join(".ci/fmt-every-file"))
            .arg(tmp.path())
            .output()
            .unwrap()
    };
    let o = check();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The first `struct` moved 7 spaces right: valid Rust, not formatted.
    let bad = model.replacen("\nstruct ", "\n       struct ", 1);
    assert_ne!(bad, model);
    std::fs::write(tmp.path().join("saga.rs"), bad).unwrap();
    let o = check();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not formatted: ./saga.rs"),
        "{}",
        stderr(&o)
    );
}

/// The README says `report` ends with `N passed, 0 failed`: the committed report does (its
/// index records the totals in `data-passed`, `data-failed`). No figure for N is written in
/// the README: a course that adds a config or a lesson changes N, and a pinned figure would
/// turn its first new config's test red.
#[test]
fn the_readme_says_the_report_passes_and_pins_no_total() {
    let readme = String::from_utf8(read(root().join("README.md"))).unwrap();
    let index = String::from_utf8(read(root().join("reports/index.html"))).unwrap();
    let attribute = |name: &str| -> u64 {
        let at = index.find(&format!("{name}=\"")).expect(name) + name.len() + 2;
        index[at..].split('"').next().unwrap().parse().unwrap()
    };
    let (passed, failed) = (attribute("data-passed"), attribute("data-failed"));
    assert!(
        readme.contains("`N passed, 0 failed`"),
        "the README says what the report ends with"
    );
    assert_eq!(failed, 0, "the committed report fails {failed} of {passed}");
    assert!(passed > 0, "the committed report checks something");
    // Every "`N passed, M failed`" with digits in it would be a pinned total.
    let pinned: Vec<&str> = readme
        .split('`')
        .filter(|span| {
            span.split_once(" passed, ").is_some_and(|(p, rest)| {
                p.trim().parse::<u64>().is_ok() && rest.ends_with(" failed")
            })
        })
        .collect();
    assert!(pinned.is_empty(), "the README pins a total: {pinned:?}");
}
