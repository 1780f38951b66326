//! An exploration's outputs as a user meets them: the deciding executions as schedules
//! that run again, charts a lesson embeds, the same bytes on any number of threads, and
//! a time limit that ends bounded.

use coordsim_model::Reduction;

use crate::explore::{explore, increments, limits};
use crate::harness::{coordsim_in, stderr, stdout, write_config};

/// `explore` writes each deciding execution as a schedule, its step chart and its run;
/// `run --schedule` runs it again as a run: the lost update's counterexample (2 clients of
/// 2 increments ending at 2, below k·n = 4) ends at 2 in its results, with its timeline.
#[test]
fn a_counterexample_runs_again_from_its_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let path = crate::harness::root()
        .join("configs/explore/explore-lost-update.toml")
        .to_string_lossy()
        .into_owned();
    let o = coordsim_in(dir.path(), &["explore", &path, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("out/explore-lost-update-explore");
    // Claim 2 ("sometimes" a lost update) is decided by a witness.
    for file in [
        "schedule-2.toml",
        "trace-2.csv",
        "trace-2.svg",
        "trace-2.png",
    ] {
        assert!(out.join(file).is_file(), "{file} written");
    }
    let md = std::fs::read_to_string(out.join("explore.md")).unwrap();
    assert!(md.contains("![") && md.contains("trace-2.svg"), "{md}");
    assert!(md.contains("--schedule"), "{md}");
    // A Turkish config's explore.md in Turkish, its steps too; the CSV keeps the English
    // words for scripts.
    assert!(md.contains("counter okur: 0"), "{md}");
    // Its title says "every execution" already: no second one appended.
    assert!(
        md.starts_with("# Kaybolan güncelleme, her yürütmede\n"),
        "{md}"
    );
    // The two clients are one group (`bare`): a state and its mirror image (the clients
    // swapped) are kept once. A state is the counter and each client's progress (0 to 4
    // actions) with the value it holds between a read and its write: 57 such states reach
    // one another by 82 steps (`--no-symmetry` below); with the two clients' (progress,
    // value) pairs put in order, 33 remain, leaving by 47 steps. Every one of the
    // 8!/(4!·4!) = 70 interleavings of their 4 actions each is still counted.
    for turkish in [
        "33 durum, 47 geçiş, 70 yürütme, 4 ayrı sonuç, en uzunu 8 olay: eksiksiz.",
        "Simetri: bare grubunun 2 üyesi birbirinin yerine geçebilir sayıldı.",
        "| sonuç | yürütme |",
        "1. sonuç (en kısa yürütmesi, 8 olay)",
        "| adım | zaman (ms) | aktör | ne yaptı | seçim |",
        "Seçimleri: [schedule-2.toml]",
    ] {
        assert!(md.contains(turkish), "{turkish:?} in {md}");
    }
    assert!(
        !md.contains("distinct outcome") && !md.contains("Its choices"),
        "{md}"
    );
    let csv = std::fs::read_to_string(out.join("trace-2.csv")).unwrap();
    assert!(csv.contains("reads counter: 0"), "{csv}");
    let svg = std::fs::read_to_string(out.join("trace-2.svg")).unwrap();
    assert!(svg.starts_with("<svg"), "an SVG");
    let schedule = out.join("schedule-2.toml").to_string_lossy().into_owned();
    let o = coordsim_in(dir.path(), &["run", &path, "--schedule", &schedule, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = dir.path().join("out/explore-lost-update-schedule-2");
    let results = std::fs::read_to_string(run.join("results.csv")).unwrap();
    let mut lines = results.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(lines.next(), None, "one execution, one row");
    let at = header.iter().position(|h| *h == "counter.value").unwrap();
    assert_eq!(row[at], "2");
    assert!(run.join("timeline.svg").is_file());
    // The trace CSV's steps are the schedule's events.
    let steps = std::fs::read_to_string(out.join("trace-2.csv")).unwrap();
    let text = std::fs::read_to_string(&schedule).unwrap();
    let events = text
        .split_once("events = [")
        .unwrap()
        .1
        .split(',')
        .filter(|e| e.trim().starts_with('"'))
        .count();
    assert_eq!(steps.lines().count() - 1, events);
    // Without symmetry: every state apart, the same executions and outcomes.
    let o = coordsim_in(
        dir.path(),
        &["explore", &path, "-q", "--no-symmetry", "--out", "plain"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let md = std::fs::read_to_string(
        dir.path()
            .join("plain/explore-lost-update-explore/explore.md"),
    )
    .unwrap();
    // The outcomes, their executions and metrics: the same bytes.
    assert_eq!(
        std::fs::read(out.join("outcomes.csv")).unwrap(),
        std::fs::read(
            dir.path()
                .join("plain/explore-lost-update-explore/outcomes.csv")
        )
        .unwrap()
    );
    for turkish in [
        "57 durum, 82 geçiş, 70 yürütme, 4 ayrı sonuç, en uzunu 8 olay: eksiksiz.",
        "Simetri: bare grubuna uygulanmadı (`--no-symmetry` ya da `--no-merge` ile kapatıldı).",
    ] {
        assert!(md.contains(turkish), "{turkish:?} in {md}");
    }
}

/// A schedule that does not fit says where: another config's, a point whose sweep
/// changed, an event with another number of free events, a malformed choice.
#[test]
fn a_schedule_that_does_not_fit_is_refused_where_it_differs() {
    let dir = tempfile::tempdir().unwrap();
    let text = increments(2, 1, false);
    let path = write_config(dir.path(), "inc.toml", &text);
    let write = |name: &str, body: &str| {
        let file = dir.path().join(name);
        std::fs::write(&file, body).unwrap();
        file.to_string_lossy().into_owned()
    };
    let refused = |file: &str| {
        let o = coordsim_in(dir.path(), &["run", &path, "--schedule", file, "-q"]);
        assert!(!o.status.success(), "{file} refused");
        stderr(&o)
    };
    // Two clients' read and write, 4 actions: an explored execution's choices.
    let e = &explore(&text, &limits(Reduction::On, true))[0];
    let events: Vec<String> = e.outcomes[0]
        .schedule
        .events
        .iter()
        .map(|d| format!("\"{}\"", d.text()))
        .collect();
    assert_eq!(events.len(), 4);
    assert!(
        events[0].ends_with("/2\""),
        "both clients are free at first"
    );
    assert_eq!(events[3], "\"1/1\"", "one action is left at the end");
    let good = format!(
        "config = \"inc\"\npoint = 0\nat = {{}}\nmax_faults = 1\nevents = [{}]\norder = \"owner\"\n",
        events.join(", ")
    );
    let o = coordsim_in(
        dir.path(),
        &["run", &path, "--schedule", &write("good.toml", &good), "-q"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let other = write("other.toml", &good.replace("\"inc\"", "\"lock-order\""));
    let err = refused(&other);
    assert!(
        err.contains("other.toml:1:10") && err.contains("lock-order"),
        "{err}"
    );
    // Said at the schedule's own event (line 5 is `events = ["1/2", …]`: the first event
    // at column 11) and, for one that ends early, at its `events` array (column 10).
    let misfit = write("misfit.toml", &good.replacen("/2\"", "/3\"", 1));
    let err = refused(&misfit);
    assert!(
        err.contains("misfit.toml:5:11:")
            && err.contains("event 1")
            && err.contains("2 events are free, not 3"),
        "{err}"
    );
    let short = write("short.toml", &good.replace(", \"1/1\"]", "]"));
    let err = refused(&short);
    assert!(
        err.contains("short.toml:5:10:") && err.contains("ends after 3 events"),
        "{err}"
    );
    let bad = write("bad.toml", &good.replace("\"1/1\"", "\"2/1\""));
    let err = refused(&bad);
    assert!(
        err.contains("bad.toml:5:") && err.contains("1 to 1"),
        "{err}"
    );
    // One written before free events were numbered by owner: refused, with what to do.
    let old = write("old.toml", &good.replace("order = \"owner\"\n", ""));
    let err = refused(&old);
    assert!(
        err.contains("without `order`") && err.contains("explore the config again"),
        "{err}"
    );
    let point = write("point.toml", &good.replace("point = 0", "point = 3"));
    let err = refused(&point);
    assert!(
        err.contains("point.toml:2:9") && err.contains("points 0 to 0"),
        "{err}"
    );
    // A setting the point no longer has (a swept parameter since removed): refused at it
    // (line 3 is `at = { guard = "none" }`, the key at column 8).
    let unswept = write(
        "unswept.toml",
        &good.replace("at = {}", "at = { guard = \"none\" }"),
    );
    let err = refused(&unswept);
    assert!(
        err.contains("unswept.toml:3:8: `at`:")
            && err.contains("sweeps no `guard` (its swept settings: none)"),
        "{err}"
    );
}

/// A lesson's chart block embeds a counterexample: `chart NAME trace-N` is the step chart
/// of the execution deciding claim N. `fill` writes it, `check` passes on it and fails on
/// another image; claim 1 (a `min`, decided by no single execution) and a claim that does
/// not exist are errors at the marker.
#[test]
fn a_lesson_embeds_the_counterexample_of_a_claim() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::read(
        crate::harness::root().join("configs/explore/explore-lost-update.toml"),
    );
    std::fs::write(dir.path().join("lost.toml"), config).unwrap();
    let lesson = |chart: &str| {
        let text = format!(
            "<!-- coordsim use lost = \"lost.toml\" -->\n<!-- coordsim locale = \"tr\" -->\n\n<!-- coordsim chart lost {chart} -->\n![karşı örnek](trace.svg)\n<!-- /coordsim -->\n"
        );
        std::fs::write(dir.path().join("lesson.md"), text).unwrap();
    };
    lesson("trace-2");
    let o = crate::harness::lesson(dir.path(), &["fill", "lesson.md"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(dir.path().join("trace.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    let o = crate::harness::lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // Another execution's chart (the lock-order deadlock's) is not this one.
    let other = dir.path().join("out");
    let o = coordsim_in(
        dir.path(),
        &[
            "explore",
            &crate::harness::root()
                .join("configs/explore/explore-lock-order.toml")
                .to_string_lossy(),
            "--out",
            &other.to_string_lossy(),
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let deadlock = std::fs::read(other.join("explore-lock-order-explore/trace-1.svg")).unwrap();
    std::fs::write(dir.path().join("trace.svg"), deadlock).unwrap();
    let o = crate::harness::lesson(dir.path(), &["check", "lesson.md"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("differs"), "{}", stdout(&o));
    for (chart, says) in [
        ("trace-1", "no single execution decides claim 1"),
        (
            "trace-9",
            "`trace-9`: `lost` has no claim 9 (it has 3; claims count from 1)",
        ),
    ] {
        lesson(chart);
        let o = crate::harness::lesson(dir.path(), &["check", "lesson.md"]);
        assert_eq!(o.status.code(), Some(2), "{chart}");
        let err = stderr(&o);
        assert!(err.contains("lesson.md:4:1") && err.contains(says), "{err}");
    }
}

/// `--jobs` changes nothing written: every explore config's outputs on one thread and on
/// two are the same bytes.
#[test]
fn the_outputs_do_not_depend_on_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let configs = crate::harness::root().join("configs/explore");
    let mut paths: Vec<String> = crate::harness::list_files(&configs)
        .iter()
        .map(|n| configs.join(n).to_string_lossy().into_owned())
        .collect();
    paths.sort();
    for jobs in ["1", "2"] {
        let mut args = vec!["explore", "-q", "--jobs", jobs, "--out", jobs];
        args.extend(paths.iter().map(String::as_str));
        let o = coordsim_in(dir.path(), &args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let one = crate::harness::list_files(&dir.path().join("1"));
    assert!(one.len() > 20, "{one:?}");
    assert_eq!(one, crate::harness::list_files(&dir.path().join("2")));
    for f in &one {
        assert!(
            crate::harness::read(dir.path().join("1").join(f))
                == crate::harness::read(dir.path().join("2").join(f)),
            "{f} differs between one thread and two"
        );
    }
}

/// A time limit ends an exploration bounded, never with a proof: 2 clients of 40
/// increments have far more states than a second explores, so `--max-seconds 1` stops
/// with the verdict saying so, and the claim fails for it.
#[test]
fn a_time_limit_ends_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = increments(2, 40, false);
    text.push_str(
        "[[claim]]\nover = \"executions\"\nholds = \"always\"\nmetric = \"counter.value\"\nat_least = 2\n",
    );
    let path = write_config(dir.path(), "long.toml", &text);
    let o = coordsim_in(dir.path(), &["explore", &path, "--max-seconds", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("stopped at the time limit"), "{out}");
    assert!(out.contains("FAIL"), "{out}");
}

/// A deadlock's trace ends with who is stuck and why: after the four events (each takes
/// its first lock, then asks for the other's), a row per waiting actor naming the lock it
/// waits for and its holder, with no choice (no event ran there).
#[test]
fn a_deadlock_trace_ends_with_who_waits_for_whom() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::root()
        .join("configs/explore/explore-lock-order.toml")
        .to_string_lossy()
        .into_owned();
    let o = coordsim_in(dir.path(), &["explore", &config, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("out/explore-lock-order-explore");
    let csv = std::fs::read_to_string(out.join("trace-1.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 6, "{csv}");
    assert!(
        rows[4].contains("left") && rows[4].contains("stuck: waits for B, held by right"),
        "{csv}"
    );
    assert!(
        rows[5].contains("right") && rows[5].contains("stuck: waits for A, held by left"),
        "{csv}"
    );
    let md = std::fs::read_to_string(out.join("explore.md")).unwrap();
    assert!(md.contains("en kısa yürütmesi, 4 olay"), "{md}");
    assert!(
        md.contains("takılı kalır: B kilidini bekler, right tutuyor"),
        "{md}"
    );
}

/// A step the reduction took alone is not said to be a choice among the others: an actor
/// on a register of its own commutes with the two clients of a lost update, so its read
/// and write run first, "alone", and the clients' order is the choice (1 of 2 each).
#[test]
fn a_step_taken_alone_says_so_in_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let text = "model = \"scenario\"\n\
        [[resource]]\nname = \"counter\"\nkind = \"register\"\n\
        [[resource]]\nname = \"mine\"\nkind = \"register\"\n\
        [[actor]]\nname = \"c\"\ncount = 2\nrepeat = 1\n\
        steps = [{ read = \"counter\" }, { write = \"counter\", value = \"read + 1\" }]\n\
        [[actor]]\nname = \"solo\"\ncount = 1\nrepeat = 1\n\
        steps = [{ read = \"mine\" }, { write = \"mine\", value = \"read + 1\" }]\n\
        [[claim]]\nname = \"lost\"\nover = \"executions\"\nholds = \"sometimes\"\n\
        metric = \"counter.value\"\nat_most = 1\n";
    let path = write_config(dir.path(), "alone.toml", text);
    let o = coordsim_in(dir.path(), &["explore", &path, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(dir.path().join("out/alone-explore/trace-1.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 6, "{csv}");
    // solo's two steps: the last of three free events each time, taken alone.
    for row in &rows[..2] {
        assert!(row.contains(",solo,"), "{row}");
        assert!(
            row.ends_with("\"3 of 3, alone: it commutes with the others\""),
            "{row}"
        );
    }
    // The clients' steps are choices, not taken alone.
    for row in &rows[2..5] {
        assert!(row.ends_with(",1 of 2"), "{row}");
    }
    // With the reduction off, nothing is taken alone.
    let o = coordsim_in(dir.path(), &["explore", &path, "-q", "--no-reduce"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(dir.path().join("out/alone-explore/trace-1.csv")).unwrap();
    assert!(!csv.contains("alone"), "{csv}");
}

/// A trace names each draw by what it decides, and tells a timer that ends a wait from
/// one whose wait was already over. A put crosses a link that loses or duplicates each
/// message with p = 0.5; the consumer takes twice, each take waiting at most 50 ms.
/// Two messages taken (`sometimes`) needs the put not lost and duplicated; its first
/// take, set at 1 ms, got the message at 5 ms, so its timer at 51 ms finds its wait over.
/// No message taken (the `never` broken) needs the put lost: that take's wait truly times
/// out at 51 ms.
#[test]
fn a_trace_names_its_draws_and_its_stale_timers() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"model = "scenario"
[[resource]]
name = "net"
kind = "link"
rtt_ms = 10
loss = 0.5
duplicate = 0.5
[[resource]]
name = "q"
kind = "queue"
link = "net"
visibility_ms = 100
[[actor]]
name = "p"
steps = [{ put = "q", value = 7 }]
[[actor]]
name = "c"
start_ms = 1
repeat = 2
steps = [{ take = "q", timeout_ms = 50, on_timeout = { then = "end" } }, { ack = "q" }]
[[claim]]
over = "executions"
metric = "q.taken"
holds = "sometimes"
expect = 2
[[claim]]
over = "executions"
metric = "q.taken"
holds = "never"
expect = 0
"#;
    let path = write_config(dir.path(), "draws.toml", text);
    let o = coordsim_in(dir.path(), &["explore", &path, "--out", "out", "-q"]);
    assert!(!o.status.success(), "the `never` fails: {}", stdout(&o));
    let trace = |n: u32| {
        std::fs::read_to_string(dir.path().join(format!("out/draws-explore/trace-{n}.csv")))
            .unwrap()
    };
    let witness = trace(1);
    assert!(
        witness.contains("puts a message on q,not lost (p = 0.5); duplicated (p = 0.5)"),
        "{witness}"
    );
    assert!(
        witness.contains(",51,c,the timer of a wait already over runs out: nothing happens,"),
        "{witness}"
    );
    assert!(!witness.contains("times out"), "{witness}");
    let counterexample = trace(2);
    assert!(
        counterexample.contains("puts a message on q,lost (p = 0.5)"),
        "{counterexample}"
    );
    assert!(
        counterexample.contains(",51,c,its wait times out,"),
        "{counterexample}"
    );
}

/// A Turkish explore.md names the swept values and the metrics as the config's table does
/// (its `[labels]`), and writes numbers rounded for reading with a decimal comma: two
/// clients of one increment each end at 1 (a lost update) or 2, so a third of it is 1/3
/// or 2/3, written 0,333 and 0,667 (three figures, as `table.md` rounds for reading), not
/// 0,3333333333333333.
#[test]
fn a_turkish_explore_md_uses_the_configs_labels() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"model = "scenario"
locale = "tr"
[sweep]
guard = ["none"]
[[resource]]
name = "counter"
kind = "register"
[[actor]]
name = "c"
count = 2
steps = [{ read = "counter" }, { write = "counter", value = "read + 1" }, { delay_ms = { by = "guard", none = 1 } }]
[[actor]]
name = "d"
start_ms = 1
steps = [{ read = "counter" }]
[[metric]]
name = "third"
expr = "counter.value / 3"
[labels]
guard = "koruma"
none = "korumasız"
"counter.value" = "sayaç"
"#;
    let path = write_config(dir.path(), "etiket.toml", text);
    let o = coordsim_in(dir.path(), &["explore", &path, "--out", "out", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = std::fs::read_to_string(dir.path().join("out/etiket-explore/explore.md")).unwrap();
    assert!(md.contains("## koruma = korumasız\n"), "{md}");
    assert!(md.contains("| sayaç |"), "{md}");
    assert!(!md.contains("counter.value"), "{md}");
    assert!(md.contains("| 0,333 |") && md.contains("| 0,667 |"), "{md}");
}

/// A transaction's steps run in the event of its start: its trace row says each of them,
/// so that its effects (here the ledger's set) are in the trace, in both languages, each
/// key step with its key and what it met: key 1 starts at 0, so the lookup finds 0 and the
/// set stores `ledger + 1` = 0 + 1 = 1 over the 0.
#[test]
fn a_trace_row_says_every_step_of_a_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"model = "scenario"
[[resource]]
name = "ledger"
kind = "keys"
initial = [[1, 0]]
[[actor]]
name = "w"
steps = [{ transaction = [{ lookup = "ledger", key = 1 }, { set = "ledger", key = 1, value = "ledger + 1" }] }]
[[claim]]
over = "executions"
holds = "sometimes"
metric = "ledger.total"
expect = 1
"#;
    let path = write_config(dir.path(), "tx.toml", text);
    let o = coordsim_in(dir.path(), &["explore", &path, "--out", "out", "-q"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let trace = std::fs::read_to_string(dir.path().join("out/tx-explore/trace-1.csv")).unwrap();
    assert!(
        trace.contains(
            "begins a transaction; then looks up ledger[1]: found 0, sets ledger[1] = 1 (was 0)"
        ),
        "{trace}"
    );
    let turkish = write_config(
        dir.path(),
        "tx-tr.toml",
        &format!("locale = \"tr\"\n{text}"),
    );
    let o = coordsim_in(dir.path(), &["explore", &turkish, "--out", "out", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = std::fs::read_to_string(dir.path().join("out/tx-tr-explore/explore.md")).unwrap();
    assert!(
        md.contains(
            "bir işlem başlatır; ardından ledger[1] arar: 0 bulundu, ledger[1] = 1 yazar (önceki: 0)"
        ),
        "{md}"
    );
}

/// A text that holds a line break never breaks what coordsim writes on one line: a claim
/// `name` with one is refused at the name (it is quoted in a schedule's header comment,
/// printed as `check`'s line, and made a heading); a config path and a swept value with
/// one are escaped (`\n`), so the schedule written runs back and each verdict is one line.
#[test]
fn a_line_break_in_a_name_a_path_or_a_value_never_splits_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let claim = "[[claim]]\nname = \"lost\\npoint = 7\"\nover = \"executions\"\nholds = \"sometimes\"\nmetric = \"counter.value\"\nexpect = 1\n";
    let text = format!("{}{claim}", increments(2, 1, false));
    let named = write_config(dir.path(), "named.toml", &text);
    let o = coordsim_in(dir.path(), &["explore", &named, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    // Line 15 of the config is the claim's `name`.
    assert!(
        stderr(&o).contains("named.toml:15:8: a claim's `name` is one line of text: character 5 is a control character (U+000A, a line break)"),
        "{}",
        stderr(&o)
    );
    // The same claim, named on one line, in a folder whose name has a line break, over a
    // swept text parameter whose value has one.
    let folder = dir.path().join("a\nb");
    std::fs::create_dir(&folder).unwrap();
    let text = format!(
        "{}[sweep]\nmode = [\"x\\ny\"]\n{}",
        increments(2, 1, false),
        claim.replace("lost\\npoint = 7", "lost")
    );
    let config = write_config(&folder, "lu.toml", &text);
    let o = coordsim_in(dir.path(), &["explore", &config, "--out", "o", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert!(
        lines[0].starts_with("PASS ")
            && lines[0].contains("a\\nb/lu.toml: lost:")
            && lines[0].contains("mode = \"x\\ny\""),
        "{lines:?}"
    );
    let schedule = dir.path().join("o/lu-explore/schedule-1.toml");
    let written = std::fs::read_to_string(&schedule).unwrap();
    assert!(
        written.lines().take(3).all(|l| l.starts_with('#')),
        "{written}"
    );
    let o = coordsim_in(
        dir.path(),
        &[
            "run",
            &config,
            "--schedule",
            &schedule.to_string_lossy(),
            "--out",
            "r",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}
