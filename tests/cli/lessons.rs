//! Lessons: check, fill, precision, tables, positioned errors, dashboards.

use crate::harness::*;

#[test]
fn the_committed_lessons_pass_and_leave_nothing_unchecked() {
    let files: Vec<String> = coordsim::commands::find_files(&root().join("lessons"), "md")
        .unwrap()
        .iter()
        .map(|p| p.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert!(files.len() >= 5, "{files:?}");
    let mut args = vec!["lesson", "check"];
    args.extend(files.iter().map(String::as_str));
    let out = coordsim(&args);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    let last = text.lines().last().unwrap();
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
    let passed: usize = last.split(' ').next().unwrap().parse().unwrap();
    assert!(passed >= 80, "{passed} regions");
    args.push("--lint");
    let lint = stdout(&coordsim(&args));
    assert_eq!(lint.lines().last(), Some("0 unchecked number(s)"), "{lint}");
    // The Turkish pages show no raw column name in a table header.
    let registry = crate::harness::registry();
    let raw: Vec<&str> = registry
        .names()
        .iter()
        .filter_map(|n| registry.find(n))
        .flat_map(|m| m.metrics().iter().chain(m.entity_columns()).map(|c| c.name))
        .collect();
    for f in files.iter().filter(|f| !f.contains("/en/")) {
        let text = String::from_utf8(read(root().join(f))).unwrap();
        for line in text
            .lines()
            .filter(|l| l.starts_with("| ") && !l.contains("---"))
        {
            for cell in line.split('|').map(str::trim) {
                assert!(
                    !raw.contains(&cell) || cell.is_empty(),
                    "{f}: `{cell}` in {line}"
                );
            }
        }
    }
}

#[test]
fn a_drifted_value_fails_at_its_place_and_fill_puts_it_back() {
    // service 6 ms, one client per 1000 ms: nobody waits; capacity 1000 / 6 = 166.67/s.
    let text = format!(
        "{HEAD}Tavan <!-- coordsim q.capacity_per_s clients=1 -->166,7<!-- /coordsim --> istek/sn, hizmet <!-- coordsim q.service_ms clients=2 -->7 ms<!-- /coordsim -->.\n"
    );
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    let printed = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{printed}{}", stderr(&out));
    // Line 3: "Tavan " (6) + the first marker (44) + "166,7" (5) + the close (18) +
    // " istek/sn, hizmet " (18) + the second marker (40) = 131 characters before "7 ms".
    assert_eq!(
        printed.lines().next().unwrap(),
        // One locale per line: Turkish figures, `;` between them.
        "lesson.md:3:132: q.service_ms clients=2: written 7; run 6 (the written digits allow ± 0,5)"
    );
    assert_eq!(printed.lines().last(), Some("1 passed, 1 failed"));
    let out = lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let filled = String::from_utf8(read(dir.path().join("lesson.md"))).unwrap();
    // The unit stays; the number is the run's at the written precision.
    assert!(filled.contains("-->6 ms<!--"), "{filled}");
    assert!(filled.contains("-->166,7<!--"), "{filled}");
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(stdout(&out).lines().last(), Some("2 passed, 0 failed"));
    // A second fill changes no byte.
    lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(read(dir.path().join("lesson.md")), filled.as_bytes());
}

#[test]
fn the_written_digits_set_the_precision_end_to_end() {
    // `206,5` holds 206.45 … 206.55: a service time of 206.55 ms passes, 206.56 fails.
    let text =
        format!("{HEAD}<!-- coordsim q.service_ms clients=1 -->206,5 ms<!-- /coordsim -->\n");
    let pass = lesson_dir("206.55", &text);
    let out = lesson(pass.path(), &["check", "lesson.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let fail = lesson_dir("206.56", &text);
    let out = lesson(fail.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("written 206,5; run 206,56"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn units_and_percent_signs_are_checked_and_filled_in_both_locales() {
    // The shared store of lesson 003 loses 355 of 400 updates: 88.75%, written `%88,8` in
    // Turkish and `88.8%` in English (one decimal holds 88.75 … 88.85); each operation takes
    // read 20 + compute 1 + write 64 = 85 ms.
    let store = root().join("configs/lessons/shared-store.toml");
    for (locale, pct, ms, drifted, fixed) in [
        ("tr", "%88,8", "85 ms", "%88,9", "%88,8"),
        ("en", "88.8%", "85 ms", "88.9%", "88.8%"),
    ] {
        let text = |p: &str| {
            format!(
                "<!-- coordsim use s = \"{}\" -->\n<!-- coordsim locale = \"{locale}\" -->\n<!-- coordsim s.lost_pct -->{p}<!-- /coordsim --> / <!-- coordsim s.op_ms -->{ms}<!-- /coordsim -->\n",
                store.display()
            )
        };
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lesson.md"), text(pct)).unwrap();
        let out = lesson(dir.path(), &["check", "lesson.md"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{locale}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        std::fs::write(dir.path().join("lesson.md"), text(drifted)).unwrap();
        let out = lesson(dir.path(), &["check", "lesson.md"]);
        assert_eq!(out.status.code(), Some(1), "{locale}");
        // The run's figure in the lesson's locale, as the written one.
        let number = drifted.trim_matches('%');
        let line = match locale {
            "tr" => format!("written {number}; run 88,75 (the written digits allow ± 0,05)"),
            _ => format!("written {number}, run 88.75 (the written digits allow ± 0.05)"),
        };
        assert!(stdout(&out).contains(&line), "{}", stdout(&out));
        lesson(dir.path(), &["fill", "lesson.md"]);
        assert_eq!(
            read(dir.path().join("lesson.md")),
            text(fixed).as_bytes(),
            "{locale}"
        );
    }
}

#[test]
fn a_drifted_table_shows_a_unified_diff() {
    let text = format!(
        "{HEAD}<!-- coordsim table q columns=clients,requests -->\n| istemci | requests |\n|---:|---:|\n| 1 | 10 |\n| 2 | 21 |\n<!-- /coordsim -->\n"
    );
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(1));
    let printed = stdout(&out);
    assert!(
        printed.starts_with("lesson.md:4:1: table q columns=clients,requests: the table drifted"),
        "{printed}"
    );
    assert!(printed.contains("--- written\n+++ run\n"), "{printed}");
    assert!(printed.contains("-| 2 | 21 |\n+| 2 | 20 |\n"), "{printed}");
    lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(
        stdout(&lesson(dir.path(), &["check", "lesson.md"]))
            .lines()
            .last(),
        Some("1 passed, 0 failed")
    );
}

#[test]
fn markers_in_code_fences_are_ignored() {
    let text = format!(
        "{HEAD}```markdown\n<!-- coordsim q.nope -->1<!-- /coordsim -->\n```\n<!-- coordsim q.requests clients=1 -->10<!-- /coordsim -->\n"
    );
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(stdout(&out).lines().last(), Some("1 passed, 0 failed"));
}

#[test]
fn markers_in_inline_code_are_shown_not_read() {
    // In code: a one-backtick span with an unknown column, a two-backtick span holding a
    // backtick; after a lone backtick no run closes, the marker is read.
    let text = format!(
        "{HEAD}Şöyle: `<!-- coordsim q.nope -->42<!-- /coordsim -->` ve ``a ` <!-- coordsim q.requests clients=1 -->99<!-- /coordsim --> ``.\nTek ` sonra <!-- coordsim q.requests clients=1 -->11<!-- /coordsim -->.\n"
    );
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(stdout(&out).lines().last(), Some("0 passed, 1 failed"));
    let out = lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let filled = String::from_utf8(read(dir.path().join("lesson.md"))).unwrap();
    // Only the region outside code is written; the code keeps 42 and 99.
    assert_eq!(filled, text.replace("-->11<!--", "-->10<!--"));
}

#[test]
fn bad_lessons_get_positioned_errors() {
    let cases = [
        (
            "two rows",
            format!("{HEAD}<!-- coordsim q.requests -->10<!-- /coordsim -->\n"),
        ),
        (
            "no row",
            format!("{HEAD}<!-- coordsim q.requests clients=3 -->10<!-- /coordsim -->\n"),
        ),
        (
            "unknown column",
            format!("{HEAD}<!-- coordsim q.nope clients=1 -->10<!-- /coordsim -->\n"),
        ),
        (
            "unknown filter",
            format!("{HEAD}<!-- coordsim q.requests klients=1 -->10<!-- /coordsim -->\n"),
        ),
        (
            "unknown config",
            format!("{HEAD}<!-- coordsim z.requests -->10<!-- /coordsim -->\n"),
        ),
        (
            "missing file",
            "<!-- coordsim use q = \"nope.toml\" -->\n".to_string(),
        ),
        (
            "not a number",
            format!("{HEAD}<!-- coordsim q.requests clients=1 -->on<!-- /coordsim -->\n"),
        ),
        (
            "wrong locale",
            format!("{HEAD}<!-- coordsim q.service_ms clients=1 -->6.5<!-- /coordsim -->\n"),
        ),
        (
            "unclosed",
            format!("{HEAD}<!-- coordsim q.requests clients=1 -->10\n"),
        ),
        (
            "unknown chart",
            format!("{HEAD}<!-- coordsim chart q pie -->\n![x](x.svg)\n<!-- /coordsim -->\n"),
        ),
        (
            "unknown stat",
            format!("{HEAD}<!-- coordsim q.requests stat=median -->10<!-- /coordsim -->\n"),
        ),
    ];
    let mut report = String::new();
    for (what, text) in cases {
        let dir = lesson_dir("6", &text);
        let out = lesson(dir.path(), &["check", "lesson.md"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{what}: {}{err}", stdout(&out));
        assert!(err.starts_with("error: lesson.md:"), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        report.push_str(&format!("{what}: {err}"));
    }
    insta::assert_snapshot!("bad_lesson_errors", report);
}

#[test]
fn lesson_check_reports_for_ci_dashboards() {
    let text = format!(
        "{HEAD}<!-- coordsim q.requests clients=1 -->10<!-- /coordsim --> <!-- coordsim q.requests clients=2 -->21<!-- /coordsim -->\n"
    );
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (doc["passed"].as_u64(), doc["failed"].as_u64()),
        (Some(1), Some(1))
    );
    let failed = &doc["cases"][1];
    assert_eq!(failed["name"], "q.requests clients=2 (line 3)");
    assert_eq!(
        (failed["expected"].as_str(), failed["actual"].as_str()),
        (Some("21"), Some("20"))
    );
    let out = lesson(dir.path(), &["check", "lesson.md", "--format", "junit"]);
    let xml = stdout(&out);
    assert!(
        xml.contains("<testsuite name=\"lesson.md\" tests=\"2\" failures=\"1\">"),
        "{xml}"
    );
    assert!(
        xml.contains("<testcase classname=\"lesson.md\" name=\"q.requests clients=2 (line 3)\">"),
        "{xml}"
    );
    assert!(xml.contains("expected: 21\nactual: 20"), "{xml}");
    // `check` speaks the same formats for claims.
    let out = coordsim(&[
        "check",
        "configs/lessons/shared-store.toml",
        "--format",
        "junit",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("<testsuite name=\"configs/lessons/shared-store.toml\""));
}

/// A wrong glob is never green: a config, or Markdown without a region, is bad input
/// (exit 2) naming the file, for `check` and `fill` alike.
#[test]
fn a_file_with_no_region_is_refused_never_a_silent_pass() {
    let dir = lesson_dir("6", "# Notes\n\nNo markers, 6 ms.\n");
    for args in [
        ["check", "lesson.md"],
        ["check", "q.toml"],
        ["fill", "lesson.md"],
    ] {
        let o = lesson(dir.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("{}: no marked region", args[1])),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// A fixed parameter of a swept config is one value at every point: no statistic needed.
/// A value that differs between the selected rows still needs one.
#[test]
fn a_value_equal_at_every_selected_row_needs_no_statistic() {
    // service_ms is 6 at both points (clients = 1, 2).
    let text = format!("{HEAD}<!-- coordsim q.service_ms -->6 ms<!-- /coordsim -->\n");
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    // requests: 10 at clients = 1, 20 at clients = 2.
    let text = format!("{HEAD}<!-- coordsim q.requests -->10<!-- /coordsim -->\n");
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the filters select 2 rows"),
        "{}",
        stderr(&out)
    );
}

/// A fraction written as a percent: `percent` reads `utilization` (clients × service_ms /
/// interarrival_ms = 2 × 40 / 1000 = 0.08) as 8, so `%8` holds and `%9` drifts, and `fill`
/// writes `%8` back with its sign; a `percent` region without a `%` is an error naming the
/// form.
#[test]
fn a_fraction_is_checked_as_a_percent() {
    let text = format!(
        "{HEAD}Kullanım <!-- coordsim q.utilization clients=2 percent -->%9<!-- /coordsim -->.\n"
    );
    let dir = lesson_dir("40", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("written 9; run 8 "),
        "{}",
        stdout(&out)
    );
    let out = lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let filled = String::from_utf8(read(dir.path().join("lesson.md"))).unwrap();
    assert!(filled.contains("percent -->%8<!--"), "{filled}");
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let bare = lesson_dir("40", &text.replace("-->%9<!--", "-->8<!--"));
    let out = lesson(bare.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("writes the value as a percent, with its sign (%8)"),
        "{}",
        stderr(&out)
    );
}

/// A `ci` region checks a theory's value against a replicated run: M/D/1 at ρ = 0.5 with
/// a 5 ms service waits ρS / 2(1 − ρ) = 0.5 · 5 / 1 = 2.5 ms on average (Pollaczek–
/// Khinchine), inside the 99.9% interval of the mean of 10 runs of 20,000 requests; 3.5 ms
/// is not. `fill` leaves a theory's value as the author wrote it.
#[test]
fn a_ci_region_checks_a_theory_value_inside_the_runs_interval() {
    let dir = tempfile::tempdir().unwrap();
    write_config(
        dir.path(),
        "q.toml",
        "model = \"single_writer_queue\"\nlocale = \"tr\"\nreplications = 10\n[params]\nclients = 1\nservice_ms = 5\ninterarrival_ms = 10\narrivals = \"poisson\"\nrequests_per_client = 20000\n",
    );
    let text = |theory: &str| {
        format!(
            "{HEAD}Bekleme <!-- coordsim q.mean_wait_ms ci=0.999 -->{theory} ms<!-- /coordsim -->.\n"
        )
    };
    std::fs::write(dir.path().join("lesson.md"), text("2,5")).unwrap();
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    std::fs::write(dir.path().join("lesson.md"), text("3,5")).unwrap();
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    let printed = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{printed}");
    assert!(
        printed.contains("inside the %99,9 interval of the mean of 10 runs"),
        "{printed}"
    );
    lesson(dir.path(), &["fill", "lesson.md"]);
    assert_eq!(read(dir.path().join("lesson.md")), text("3,5").as_bytes());
    // Without replications there is no interval: refused where it is written.
    write_config(
        dir.path(),
        "q.toml",
        "model = \"single_writer_queue\"\n[params]\nclients = 1\n",
    );
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("give it `replications` of 2 or more"),
        "{}",
        stderr(&out)
    );
}

/// The one error line `lesson check` prints for `text` (a lesson over `q`), exit 2.
fn refusal(text: &str) -> String {
    let dir = lesson_dir("6", text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{}{err}", stdout(&out));
    assert_eq!(err.lines().count(), 1, "{err}");
    err.trim_end().to_string()
}

#[test]
fn a_filter_that_matches_no_point_is_named_with_its_values() {
    // "<!-- coordsim q.requests " is 25 characters: the first filter at column 26; with
    // "service_ms=6 " (13) before it, the second at column 39.
    assert_eq!(
        refusal(&format!(
            "{HEAD}<!-- coordsim q.requests service_ms=6 clients=3 -->10<!-- /coordsim -->\n"
        )),
        "error: lesson.md:3:39: `clients=3` matches no point: the sweep has clients = 1, 2"
    );
    assert_eq!(
        refusal(&format!(
            "{HEAD}<!-- coordsim q.requests clients=1 service_ms=6,0 -->10<!-- /coordsim -->\n"
        )),
        "error: lesson.md:3:36: `service_ms=6,0` matches no point: a filter writes its number with a dot in every locale (`service_ms=6.0`); the sweep has service_ms = 6 (not swept)"
    );
}

#[test]
fn a_misspelled_column_names_the_nearest_first() {
    let err = refusal(&format!(
        "{HEAD}<!-- coordsim q.requets clients=1 -->10<!-- /coordsim -->\n"
    ));
    assert!(
        err.starts_with("error: lesson.md:3:1: unknown metric or parameter `requets` of single_writer_queue (did you mean `requests`?); valid: requests, counter_final, "),
        "{err}"
    );
    let err = refusal(&format!(
        "{HEAD}<!-- coordsim table q columns=clients,requets -->\n| a |\n<!-- /coordsim -->\n"
    ));
    assert!(
        err.starts_with("error: lesson.md:3:1: `requets` is not a column of results.csv or a parameter (did you mean `requests`?); valid: clients, "),
        "{err}"
    );
}

#[test]
fn a_chart_block_says_what_the_config_has() {
    // `q` has no claims; a scenario with no `[[chart]]` draws none.
    assert_eq!(
        refusal(&format!(
            "{HEAD}<!-- coordsim chart q trace-5 -->\n![x](x.svg)\n<!-- /coordsim -->\n"
        )),
        "error: lesson.md:3:1: `trace-5`: `q` has no claim 5 (it has no claims; claims count from 1)"
    );
    let dir = tempfile::tempdir().unwrap();
    let config = read(root().join("configs/explore/explore-lost-update.toml"));
    std::fs::write(dir.path().join("lost.toml"), config).unwrap();
    let chart = |name: &str| {
        let text = format!(
            "<!-- coordsim use lost = \"lost.toml\" -->\n<!-- coordsim chart lost {name} -->\n![x](x.svg)\n<!-- /coordsim -->\n"
        );
        std::fs::write(dir.path().join("lesson.md"), text).unwrap();
        let out = lesson(dir.path(), &["check", "lesson.md"]);
        assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
        stderr(&out).trim_end().to_string()
    };
    assert_eq!(
        chart("timeline"),
        "error: lesson.md:2:1: `lost` draws no chart `timeline`: it has no charts, only `trace-N`, the execution deciding its claim N over executions"
    );
    assert_eq!(
        chart("trace-4"),
        "error: lesson.md:2:1: `trace-4`: `lost` has no claim 4 (it has 3; claims count from 1)"
    );
    // A misspelled trace names the nearest of its claims' traces first.
    assert!(
        chart("trace_2").starts_with(
            "error: lesson.md:2:1: `lost` draws no chart `trace_2` (did you mean `trace-2`?)"
        ),
        "{}",
        chart("trace_2")
    );
}

/// A region over a config the lesson did not declare names the nearest declared one.
#[test]
fn a_misspelled_config_name_names_the_nearest_declared_one() {
    let err = refusal(&format!(
        "{HEAD}<!-- coordsim qq.requests clients=1 -->10<!-- /coordsim -->\n"
    ));
    assert!(
        err.contains("unknown config `qq` (did you mean `q`?); declared: q"),
        "{err}"
    );
}

#[test]
fn a_percent_sign_stands_where_the_locale_puts_it() {
    // "<!-- coordsim q.utilization clients=2 percent -->" is 14 + 14 + 10 + 8 + 3 = 49
    // characters: the text at column 50.
    assert_eq!(
        refusal(&format!(
            "{HEAD}<!-- coordsim q.utilization clients=2 percent -->9%<!-- /coordsim -->\n"
        )),
        "error: lesson.md:3:50: `9%`: a Turkish lesson writes the percent sign before the number: `%9`"
    );
    let english = "<!-- coordsim use q = \"q.toml\" -->\n<!-- coordsim q.utilization clients=2 percent -->%9<!-- /coordsim -->\n";
    assert_eq!(
        refusal(english),
        "error: lesson.md:2:50: `%9`: an English lesson writes the percent sign after the number: `9%`"
    );
}

#[test]
fn a_table_block_refuses_the_options_of_a_value() {
    const VALID: &str = "clients, requests_per_client, interarrival_ms, client_offset_ms, service_ms, arrivals, service, instances, service_cv, service_trace, interarrival_cv, arrival_trace, warmup_ms, entity, replication, columns";
    // "<!-- coordsim table q columns=clients " is 14 + 8 + 16 = 38 characters: column 39.
    let table = |option: &str| {
        format!(
            "{HEAD}<!-- coordsim table q columns=clients {option} -->\n| a |\n<!-- /coordsim -->\n"
        )
    };
    assert_eq!(
        refusal(&table("stat=mean")),
        format!(
            "error: lesson.md:3:39: `stat` reads an inline value; a table block shows every row it selects; valid: {VALID}"
        )
    );
    assert_eq!(
        refusal(&table("klients=1")),
        format!(
            "error: lesson.md:3:39: unknown filter `klients` (did you mean `clients`?); valid: {VALID}"
        )
    );
}

/// The lint's own advice, followed to the letter, silences it: a Turkish decimal
/// (`0,99`) is one number in `allow`, not `0` and `99`; a comma after a number still
/// separates a list (`2024, 3`).
#[test]
fn the_lints_advice_allows_a_turkish_decimal() {
    let body = "Oran 0,99 ve 2024 yılı, 3. bölüm: <!-- coordsim q.service_ms clients=1 -->6 ms<!-- /coordsim -->.\n";
    let dir = lesson_dir("6", &format!("{HEAD}{body}"));
    let lint = |dir: &std::path::Path| stdout(&lesson(dir, &["check", "--lint", "lesson.md"]));
    let said = lint(dir.path());
    assert_eq!(said.lines().last(), Some("3 unchecked number(s)"), "{said}");
    // The advice for 0,99, exactly as the lint gives it.
    let advice = said
        .lines()
        .find(|l| l.contains("`0,99`"))
        .and_then(|l| l.split("allow it with ").nth(1))
        .and_then(|a| a.strip_suffix(')'))
        .expect("advice for 0,99")
        .to_string();
    assert_eq!(advice, "<!-- coordsim allow 0,99 -->");
    std::fs::write(
        dir.path().join("lesson.md"),
        format!("{HEAD}{advice}\n<!-- coordsim allow 2024, 3 -->\n{body}"),
    )
    .unwrap();
    let said = lint(dir.path());
    assert_eq!(said.lines().last(), Some("0 unchecked number(s)"), "{said}");
    // `0` and `99` alone are not what the prose says: allowing them leaves 0,99 unchecked.
    std::fs::write(
        dir.path().join("lesson.md"),
        format!("{HEAD}<!-- coordsim allow 0 99 2024 3 -->\n{body}"),
    )
    .unwrap();
    let said = lint(dir.path());
    assert!(said.contains("`0,99` is in no region"), "{said}");
}

/// A value region checks one number: another in its text would pass unchecked, so it is
/// refused where it stands; a number that is part of a name (`p95`) is no number.
#[test]
fn a_second_number_in_a_value_region_is_refused_at_its_place() {
    // "<!-- coordsim q.requests clients=1 -->" is 38 characters: the content at column 39;
    // "10 (" is 4 more, so `20` at column 43.
    assert_eq!(
        refusal(&format!(
            "{HEAD}<!-- coordsim q.requests clients=1 -->10 (20)<!-- /coordsim -->\n"
        )),
        "error: lesson.md:3:43: `20` is not checked: a value region checks one number (here `10`); give `20` a region of its own, or write it outside this one"
    );
    let text =
        format!("{HEAD}<!-- coordsim q.requests clients=1 -->10 istek, p95<!-- /coordsim -->\n");
    let dir = lesson_dir("6", &text);
    let out = lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
