//! Reliability: pipes, signals, kills, planted links, stale folders.

use crate::harness::*;
use std::process::Command;

/// A reader that goes away (`coordsim report 2>&1 | head -1`) ends the command quietly with
/// exit 0, after every output it was writing is complete.
#[test]
fn a_closed_pipe_is_not_an_error_and_stops_no_output() {
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let configs = tmp.path().join("configs");
    std::fs::create_dir(&configs).unwrap();
    for name in ["single-writer-queue.toml", "lock-polled.toml"] {
        std::fs::copy(
            root().join("configs/lessons").join(name),
            configs.join(name),
        )
        .unwrap();
    }
    let out = tmp.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_coordsim"))
        .current_dir(root())
        .args([
            "report",
            "--configs",
            configs.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close both pipes before the first line is written.
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    // Every config's outputs and the index were written all the same, as `report` commits them.
    for dir in ["single-writer-queue", "lock-polled"] {
        let written = list_files(&out.join(dir));
        assert_eq!(
            written,
            list_files(&root().join("reports").join(dir)),
            "{dir}"
        );
        for file in written {
            assert!(
                read(out.join(dir).join(&file))
                    == read(root().join("reports").join(dir).join(&file)),
                "{dir}/{file}"
            );
        }
    }
    assert!(out.join("README.md").exists());
}

#[test]
fn outputs_stay_inside_their_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // A config whose stem is `..` would write into the parent of --out.
    let dots = write_config(dir.path(), "...toml", "model = \"single_writer_queue\"\n");
    let o = coordsim(&["run", &dots, "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("must be a plain name"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists() || list_files(&out).is_empty());
    // A link planted where an output file goes, in an output folder of coordsim's, is
    // replaced, never written through.
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "keep me").unwrap();
    let config = write_config(dir.path(), "c.toml", "model = \"single_writer_queue\"\n");
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for file in ["c/results.csv", "c/table.md"] {
        std::fs::remove_file(out.join(file)).unwrap();
        std::os::unix::fs::symlink(&outside, out.join(file)).unwrap();
    }
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
    let meta = std::fs::symlink_metadata(out.join("c/results.csv")).unwrap();
    assert!(meta.is_file(), "results.csv is a file of its own now");
    // Nothing hidden is left beside the folder.
    let hidden: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}

/// Every entry under `dir`, links listed and never followed, relative to `dir`.
fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            found.push(
                path.strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
            if meta.is_dir() {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A queue with one chart: a run of it writes SVG and PNG files.
const CHARTED: &str = "model = \"single_writer_queue\"\n[sweep]\nclients = [1, 2]\n[[chart]]\nname = \"w\"\nx = \"clients\"\ny = [\"mean_wait_ms\"]\n";

#[test]
fn charts_write_nothing_outside_their_folder_even_through_a_planted_link() {
    // A link planted at OUT/fonts (where runs once wrote a shared font) and at the merged
    // folder's sibling `fonts`: after `run` and `merge` nothing is written through either,
    // and every new entry is inside OUT/<stem>/ (run) or the merged folder (merge).
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let config = write_config(tmp.path(), "c.toml", CHARTED);
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("fonts")).unwrap();
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let strays: Vec<String> = entries(&out)
        .into_iter()
        .filter(|e| e != "fonts" && e != "c" && !e.starts_with("c/"))
        .collect();
    assert!(strays.is_empty(), "outside OUT/c/: {strays:?}");
    assert!(entries(&out).contains(&"c/w.svg".to_string()));
    assert!(entries(&out).contains(&"c/w.png".to_string()));
    // Shards, then a merge into mg/merged beside a planted mg/fonts.
    let shards = shard_dirs(tmp.path(), &config, "c", 2);
    let mg = tmp.path().join("mg");
    std::fs::create_dir(&mg).unwrap();
    std::os::unix::fs::symlink(&outside, mg.join("fonts")).unwrap();
    let o = merge_into(&mg.join("merged"), &shards);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let strays: Vec<String> = entries(&mg)
        .into_iter()
        .filter(|e| e != "fonts" && e != "merged" && !e.starts_with("merged/"))
        .collect();
    assert!(strays.is_empty(), "outside mg/merged/: {strays:?}");
    assert!(entries(&mg).contains(&"merged/w.png".to_string()));
    // The shards' own OUT folders hold their stem alone too.
    for k in 0..2 {
        let s = tmp.path().join(format!("s{k}"));
        assert_eq!(
            entries(&s).iter().filter(|e| !e.starts_with("c/")).count(),
            1
        );
    }
    assert!(entries(&outside).is_empty(), "{:?}", entries(&outside));
}

#[test]
fn a_config_named_fonts_runs_like_any_other() {
    // `fonts` is a plain stem: its folder is OUT/fonts/, charts and all.
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "fonts.toml", CHARTED);
    let out = tmp.path().join("out");
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        list_files(&out),
        [
            "fonts/.coordsim-output",
            "fonts/results.csv",
            "fonts/table.md",
            "fonts/w.narrow.svg",
            "fonts/w.png",
            "fonts/w.svg"
        ]
    );
    // And again over its own output.
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_killed_run_leaves_the_previous_folder_or_the_new_one_never_a_mix() {
    // A sweep that takes a while in a debug build; killed (SIGKILL) at 20 moments spread
    // over its run, each time over the complete output of the run before. Every time, the
    // folder is complete and equal to a clean run's, and the next run leaves no trace.
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "k.toml",
        "model = \"single_writer_queue\"\nreplications = 4\n[params]\narrivals = \"poisson\"\nservice = \"exponential\"\nrequests_per_client = 20000\n[sweep]\nclients = [1, 2, 3, 4]\n",
    );
    let clean = dir.path().join("clean");
    let o = coordsim(&[
        "run",
        &config,
        "--out",
        clean.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let reference: Vec<(String, Vec<u8>)> = list_files(&clean.join("k"))
        .into_iter()
        .map(|f| {
            let bytes = read(clean.join("k").join(&f));
            (f, bytes)
        })
        .collect();
    let out = dir.path().join("out");
    let same_as_clean = |label: &str| {
        let files = list_files(&out.join("k"));
        let got: Vec<String> = reference.iter().map(|(f, _)| f.clone()).collect();
        assert_eq!(
            files, got,
            "{label}: the folder has other files than a clean run's"
        );
        for (f, bytes) in &reference {
            assert!(
                read(out.join("k").join(f)) == *bytes,
                "{label}: k/{f} differs from a clean run's"
            );
        }
    };
    let o = coordsim(&[
        "run",
        &config,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0));
    // 20 moments, spread (by a fixed Weyl sequence) over the first 1.5 s.
    for i in 0..20u64 {
        let delay_ms = (i * 617 + 101) % 1500;
        let mut child = Command::new(env!("CARGO_BIN_EXE_coordsim"))
            .args([
                "run",
                &config,
                "--out",
                out.to_str().unwrap(),
                "--quiet",
                "--jobs",
                "2",
            ])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        if out.join("k").exists() {
            same_as_clean(&format!("killed after {delay_ms} ms"));
        }
    }
    // The next run puts everything in order and leaves nothing hidden behind.
    let o = coordsim(&[
        "run",
        &config,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    same_as_clean("after a clean run");
    let hidden: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}

#[test]
fn report_removes_the_folders_of_configs_that_are_gone() {
    let dir = tempfile::tempdir().unwrap();
    let configs = dir.path().join("configs");
    std::fs::create_dir_all(&configs).unwrap();
    write_config(&configs, "a.toml", "model = \"single_writer_queue\"\n");
    let gone = write_config(&configs, "gone.toml", "model = \"single_writer_queue\"\n");
    let o = coordsim_in(dir.path(), &["report", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(dir.path().join("reports/gone/results.csv").exists());
    std::fs::remove_file(gone).unwrap();
    let out = dir.path().join("reports");
    // A folder of the user's that holds a results.csv, beside a folder that is no output:
    // both kept: a results.csv alone does not make a folder coordsim's to remove.
    std::fs::create_dir_all(out.join("mydata")).unwrap();
    std::fs::write(out.join("mydata/results.csv"), "x").unwrap();
    std::fs::write(out.join("mydata/notes.txt"), "keep").unwrap();
    std::fs::create_dir_all(out.join("notes")).unwrap();
    let o = coordsim_in(dir.path(), &["report", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        !out.join("gone").exists(),
        "the folder of the deleted config is gone"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("mydata/notes.txt")).unwrap(),
        "keep"
    );
    assert!(out.join("mydata/results.csv").exists());
    assert!(out.join("notes").exists());
    assert!(out.join("a/results.csv").exists());
}

#[test]
fn report_never_replaces_a_readme_or_a_folder_it_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let configs = dir.path().join("configs");
    std::fs::create_dir_all(&configs).unwrap();
    write_config(&configs, "a.toml", "model = \"single_writer_queue\"\n");
    let out = dir.path().join("mine");
    std::fs::create_dir_all(out.join("a")).unwrap();
    // `--out` names a folder of the user's: its README is not the report's index.
    std::fs::write(out.join("README.md"), "# my notes\n").unwrap();
    let args = ["report", "--quiet", "--out", "mine", "--lessons", "none"];
    let o = coordsim_in(dir.path(), &args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("was not written by `coordsim report`"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(out.join("README.md")).unwrap(),
        "# my notes\n"
    );
    // Its folder named like a config, holding the user's file: refused before the run.
    std::fs::remove_file(out.join("README.md")).unwrap();
    std::fs::write(out.join("a/results.csv"), "mine").unwrap();
    let o = coordsim_in(dir.path(), &args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is not a coordsim output folder"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(out.join("a/results.csv")).unwrap(),
        "mine"
    );
}

#[test]
fn ctrl_c_stops_the_runs_and_says_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let quick = write_config(
        dir.path(),
        "quick.toml",
        "model = \"single_writer_queue\"\n",
    );
    // Far longer than the test waits: 50 replications of 8 million requests.
    let long = write_config(
        dir.path(),
        "long.toml",
        "model = \"single_writer_queue\"\nreplications = 50\n[params]\narrivals = \"poisson\"\nrequests_per_client = 2_000_000\n",
    );
    let out = dir.path().join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_coordsim"))
        .args([
            "run",
            &quick,
            &long,
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the quick config is in place, the long one runs: interrupt it.
    let start = std::time::Instant::now();
    while !out.join("quick/results.csv").exists() && start.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted (Ctrl-C): wrote"), "{err}");
    assert!(err.contains("quick"), "{err}");
    assert!(out.join("quick/results.csv").exists());
    assert!(
        !out.join("long").exists(),
        "the interrupted config writes nothing"
    );
    let hidden: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(
        hidden.is_empty(),
        "its staging folder is removed: {hidden:?}"
    );
}

/// Runs coordsim with stdout (and stderr) closed before it prints anything.
fn with_closed_pipes(args: &[&str]) -> std::process::ExitStatus {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_coordsim"))
        .current_dir(root())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    child.wait().unwrap()
}

#[test]
fn a_closed_stdout_ends_the_printing_never_the_work_or_the_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    // A claim that fails: the default run makes 4 clients × 50 = 200 requests, not 1.
    let failing = write_config(
        tmp.path(),
        "f.toml",
        "model = \"single_writer_queue\"\n[[claim]]\nmetric = \"requests\"\nexpect = 1\n",
    );
    let status = with_closed_pipes(&["check", &failing]);
    assert_eq!(status.code(), Some(1), "a failed claim exits 1 even unread");
    // `run a b c | head -1`: every config is still run and written.
    let out = tmp.path().join("out");
    let names: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|n| {
            write_config(
                tmp.path(),
                &format!("{n}.toml"),
                "model = \"single_writer_queue\"\n",
            )
        })
        .collect();
    let mut args = vec!["run", "--out", out.to_str().unwrap()];
    args.extend(names.iter().map(String::as_str));
    let status = with_closed_pipes(&args);
    assert_eq!(status.code(), Some(0));
    for n in ["a", "b", "c"] {
        assert!(
            out.join(n).join("results.csv").is_file(),
            "{n} was not written"
        );
    }
}

/// Runs coordsim in `dir` with stdout on `/dev/full`, where every write fails (ENOSPC).
fn with_full_stdout(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_coordsim"))
        .current_dir(dir)
        .args(args)
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn a_stdout_that_cannot_be_written_is_an_error_never_a_success() {
    let tmp = tempfile::tempdir().unwrap();
    let big = write_config(
        tmp.path(),
        "big.toml",
        "model = \"single_writer_queue\"\n[sweep]\nclients = { from = 1, to = 3000, step = 1 }\n",
    );
    let claimed = write_config(
        tmp.path(),
        "c.toml",
        "model = \"single_writer_queue\"\n[[claim]]\nmetric = \"requests\"\nexpect = 200\n",
    );
    let out = tmp.path().join("out");
    let cases: [&[&str]; 5] = [
        &["run", &big, "--list-points"],
        &["check", &claimed, "--format", "junit"],
        &["models", "--markdown"],
        &["run", &claimed, "--out", out.to_str().unwrap()],
        &["--help"],
    ];
    for args in cases {
        let o = with_full_stdout(tmp.path(), args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("error: cannot write to stdout (No space left on device"),
            "{args:?}: {err}"
        );
    }
    // The work went on: the run's outputs are whole, only its printing failed.
    assert!(out.join("c/results.csv").is_file());
}

#[test]
fn report_removes_only_the_folders_a_report_wrote() {
    // A report of a, gone and redone; then outputs of the user's own in its folder: `run
    // --out` of another config, a `merge`, and a `run` of `redone` over the report's folder.
    let dir = tempfile::tempdir().unwrap();
    let configs = dir.path().join("configs");
    std::fs::create_dir_all(&configs).unwrap();
    let plain = "model = \"single_writer_queue\"\n[sweep]\nclients = [1, 2]\n";
    for name in ["a", "gone", "redone"] {
        write_config(&configs, &format!("{name}.toml"), plain);
    }
    let report = ["report", "--lessons", "none"];
    let o = coordsim_in(dir.path(), &report);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = dir.path().join("reports");
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    let other = write_config(&mine, "other.toml", plain);
    let redone = write_config(&mine, "redone.toml", plain);
    for config in [&other, &redone] {
        let o = coordsim(&["run", config, "--out", out.to_str().unwrap(), "-q"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let shards = shard_dirs(dir.path(), &other, "other", 2);
    let o = merge_into(&out.join("merged"), &shards);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_file(configs.join("gone.toml")).unwrap();
    std::fs::remove_file(configs.join("redone.toml")).unwrap();
    let o = coordsim_in(dir.path(), &report);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        !out.join("gone").exists(),
        "the report's own stale folder goes"
    );
    for kept in ["other", "merged", "redone"] {
        assert!(out.join(kept).join("results.csv").is_file(), "{kept} kept");
        assert!(
            err.contains(&format!("note: kept reports/{kept}: ")),
            "{kept}: {err}"
        );
    }
    assert!(out.join("a/results.csv").is_file());
}
