//! Shards and merge: byte-identical to a single run, refusal of foreign or broken shards, schedulers.

use crate::harness::*;
use std::path::Path;
use std::process::Command;

#[test]
fn shards_merge_into_the_unsharded_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "random.toml", RANDOM_SWEEP);
    let out = |d: &str| tmp.path().join(d).to_string_lossy().into_owned();
    assert_eq!(
        coordsim(&["run", &config, "--out", &out("whole"), "-q"])
            .status
            .code(),
        Some(0)
    );
    for k in 0..3 {
        let shard = format!("{k}/3");
        let o = coordsim(&[
            "run",
            &config,
            "--out",
            &out(&format!("s{k}")),
            "--shard",
            &shard,
            "-q",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    // A shard sent into another's folder is refused, and the other kept.
    let o = coordsim(&["run", &config, "--out", &out("s0"), "--shard", "1/3", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("holds shard 0/3's output; shard 1/3 would replace it"),
        "{}",
        stderr(&o)
    );
    let shards: Vec<String> = (0..3).map(|k| out(&format!("s{k}/random"))).collect();
    let merged = out("merged");
    let mut args = vec!["merge", merged.as_str()];
    args.extend(shards.iter().map(String::as_str));
    let o = coordsim(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for file in [
        "results.csv",
        "summary.csv",
        "table.md",
        "wait-vs-offered-rate.svg",
    ] {
        assert_eq!(
            read(tmp.path().join("whole/random").join(file)),
            read(tmp.path().join("merged").join(file)),
            "{file} differs after merge"
        );
    }
    // A missing shard is refused.
    let o = coordsim(&["merge", &out("partial"), &shards[0], &shards[1]]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("pass every shard once"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_tampered_shard_is_refused_with_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "random.toml", RANDOM_SWEEP);
    let shards = shard_dirs(tmp.path(), &config, "random", 2);
    let results = Path::new(&shards[1]).join("results.csv");
    let original = String::from_utf8(read(&results)).unwrap();
    // Each tampering (header or cells) and the message that must name it.
    let drop_last_column = |text: &str| -> String {
        text.lines()
            .map(|l| l.rsplit_once(',').map_or(l, |(a, _)| a).to_string() + "\n")
            .collect()
    };
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "a column missing",
            drop_last_column(&original),
            "missing service",
        ),
        (
            "a column renamed",
            original.replacen("mean_wait_ms", "mean_wait", 1),
            "unexpected mean_wait",
        ),
        (
            "a number that is not one",
            {
                let mut lines: Vec<String> = original.lines().map(String::from).collect();
                lines[1] = lines[1].replacen(",0,", ",x,", 1);
                lines.join("\n") + "\n"
            },
            "line 2",
        ),
        (
            "a swept value the config does not have",
            {
                let mut lines: Vec<String> = original.lines().map(String::from).collect();
                // point,clients,service_ms,…: clients of this point's row becomes 99.
                let mut fields: Vec<&str> = lines[1].split(',').collect();
                fields[1] = "99";
                lines[1] = fields.join(",");
                lines.join("\n") + "\n"
            },
            "`clients` is 99",
        ),
        (
            "a row cut short",
            original.replacen('\n', "\n1,2\n", 1),
            "line",
        ),
    ];
    for (what, text, needle) in cases {
        std::fs::write(&results, &text).unwrap();
        let o = merge_into(&tmp.path().join("merged"), &shards);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert!(err.starts_with("error:"), "{what}: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert!(err.contains(needle), "{what}: `{needle}` not in {err}");
    }
    // The same shard twice is refused too.
    std::fs::write(&results, &original).unwrap();
    let twice = vec![shards[0].clone(), shards[0].clone(), shards[1].clone()];
    let o = merge_into(&tmp.path().join("merged"), &twice);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("pass every shard once"),
        "{}",
        stderr(&o)
    );
}

/// A timeline drawn from shards' lanes is the unsharded one, byte for byte: the lock queue's
/// sweep, and the retry storm's, whose timeline draws its server's queue (a resource lane:
/// its level and the run's rows and counts go through `shard-lanes.csv`).
#[test]
fn shards_of_a_timeline_config_merge_into_the_unsharded_outputs() {
    for (config, stem, shards) in [
        ("configs/lock-queue-vs-poll.toml", "lock-queue-vs-poll", 3),
        (
            "configs/scenarios/scenario-retry-storm.toml",
            "scenario-retry-storm",
            2,
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let config = root().join(config);
        let config = config.to_str().unwrap();
        let whole = tmp.path().join("whole");
        let o = coordsim(&["run", config, "--out", whole.to_str().unwrap(), "-q"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let shards = shard_dirs(tmp.path(), config, stem, shards);
        let merged = tmp.path().join("merged");
        let o = merge_into(&merged, &shards);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let whole = whole.join(stem);
        let files = list_files(&whole);
        // Timelines are drawn from the lanes the shards kept; entity rows and charts all
        // match.
        assert!(files.iter().any(|f| f.starts_with("timeline")), "{files:?}");
        for file in files {
            assert!(
                read(whole.join(&file)) == read(merged.join(&file)),
                "{stem}: {file} differs after merge"
            );
        }
    }
}

/// A config of six points, two replications each, in a folder of its own, run once whole:
/// what every scheduler's shards must merge into.
struct Scheduled {
    dir: tempfile::TempDir,
    config: String,
}

impl Scheduled {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = write_config(
            dir.path(),
            "s.toml",
            "model = \"single_writer_queue\"\nreplications = 2\n[params]\narrivals = \"poisson\"\nrequests_per_client = 200\n[sweep]\nclients = [1, 2, 3, 4, 5, 6]\n",
        );
        let scheduled = Scheduled { dir, config };
        let single = coordsim(&[
            "run",
            &scheduled.config,
            "--out",
            &scheduled.d("single"),
            "--quiet",
        ]);
        assert_eq!(single.status.code(), Some(0), "{}", stderr(&single));
        scheduled
    }

    /// `p` inside the folder.
    fn d(&self, p: &str) -> String {
        self.dir.path().join(p).display().to_string()
    }

    /// The merge in `merged` has the single run's bytes.
    fn same(&self, merged: &str) {
        for f in ["results.csv", "summary.csv", "table.md"] {
            assert!(
                read(self.dir.path().join(merged).join(f))
                    == read(self.dir.path().join("single/s").join(f)),
                "{merged}/{f}"
            );
        }
    }

    /// `run --shard auto` with only `env` of the scheduler variables (the test may itself
    /// run inside a Slurm job).
    fn auto(&self, out: &str, env: &[(&str, &str)], extra: &[&str]) -> std::process::Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_coordsim"));
        cmd.args([
            "run",
            &self.config,
            "--out",
            out,
            "--quiet",
            "--shard",
            "auto",
        ])
        .args(extra);
        for name in coordsim::shard::SCHEDULER_VARIABLES {
            cmd.env_remove(name);
        }
        cmd.env_remove("SLURM_JOB_ID").envs(env.iter().copied());
        cmd.output().unwrap()
    }

    fn run_env(&self, out: &str, env: &[(&str, &str)], extra: &[&str]) {
        let o = self.auto(out, env, extra);
        assert_eq!(o.status.code(), Some(0), "{env:?}: {}", stderr(&o));
    }

    /// The shards' outputs merged into `merged`, with the single run's bytes.
    fn merge(&self, merged: &str, shards: &[&str]) {
        let mut args = vec!["merge".to_string(), self.d(merged)];
        args.extend(shards.iter().map(|s| self.d(&format!("{s}/s"))));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = coordsim(&args);
        assert_eq!(o.status.code(), Some(0), "{merged}: {}", stderr(&o));
        self.same(merged);
    }

    /// `o` refused (exit 2) with each of `needles` in its error, nothing written.
    fn refused(&self, what: &str, o: std::process::Output, needles: &[&str]) {
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert!(err.starts_with("error:"), "{what}: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{what}: `{needle}` not in {err}");
        }
        assert!(
            !self.dir.path().join("refused").exists(),
            "{what} wrote outputs"
        );
    }
}

/// A Slurm array task's variables, as Slurm 22.05 sets them.
fn slurm(
    id: &'static str,
    min: &'static str,
    max: &'static str,
    step: &'static str,
    count: &'static str,
) -> [(&'static str, &'static str); 5] {
    [
        ("SLURM_ARRAY_TASK_ID", id),
        ("SLURM_ARRAY_TASK_MIN", min),
        ("SLURM_ARRAY_TASK_MAX", max),
        ("SLURM_ARRAY_TASK_STEP", step),
        ("SLURM_ARRAY_TASK_COUNT", count),
    ]
}

#[test]
fn shards_from_slurm_kubernetes_aws_batch_and_parallel_merge_to_a_single_run() {
    let s = Scheduled::new();
    array_jobs_merge_to_the_single_run(&s);
    what_maps_to_no_shard_is_refused_before_anything_runs(&s);
    gnu_parallel_jobs_merge_to_the_single_run(&s);
}

/// Slurm (plain and stepped arrays), Kubernetes Indexed Jobs and AWS Batch array jobs, each
/// task one `--shard auto` run: their shards merge into the single run's bytes.
fn array_jobs_merge_to_the_single_run(s: &Scheduled) {
    // A Slurm job array --array=0-2.
    for id in ["0", "1", "2"] {
        s.run_env(
            &s.d(&format!("slurm/{id}")),
            &slurm(id, "0", "2", "1", "3"),
            &[],
        );
    }
    s.merge("slurm-merged", &["slurm/0", "slurm/1", "slurm/2"]);
    // A stepped array --array=0-4:2: ids 0, 2, 4 are shards 0, 1, 2 of 3 (with a
    // --shard-count that agrees).
    for id in ["0", "2", "4"] {
        s.run_env(
            &s.d(&format!("stepped/{id}")),
            &slurm(id, "0", "4", "2", "3"),
            &["--shard-count", "3"],
        );
    }
    s.merge("stepped-merged", &["stepped/0", "stepped/2", "stepped/4"]);
    // A Kubernetes Indexed Job with completions: 2.
    for index in ["0", "1"] {
        s.run_env(
            &s.d(&format!("k8s/{index}")),
            &[("JOB_COMPLETION_INDEX", index)],
            &["--shard-count", "2"],
        );
    }
    s.merge("k8s-merged", &["k8s/0", "k8s/1"]);
    // An AWS Batch array job of size 3.
    for index in ["0", "1", "2"] {
        s.run_env(
            &s.d(&format!("aws/{index}")),
            &[("AWS_BATCH_JOB_ARRAY_INDEX", index)],
            &["--shard-count", "3"],
        );
    }
    s.merge("aws-merged", &["aws/0", "aws/1", "aws/2"]);
}

/// What cannot be mapped to one shard of 0..N is refused (exit 2) before anything is run or
/// written: the message names what to change.
fn what_maps_to_no_shard_is_refused_before_anything_runs(s: &Scheduled) {
    s.refused(
        "--array=1,4,7",
        s.auto(&s.d("refused"), &slurm("4", "1", "7", "1", "3"), &[]),
        &["SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_COUNT=3", "gaps"],
    );
    s.refused(
        "a Slurm array of 4 with --shard-count 7",
        s.auto(
            &s.d("refused"),
            &slurm("2", "0", "6", "2", "4"),
            &["--shard-count", "7"],
        ),
        &["4 tasks", "--shard-count says 7"],
    );
    s.refused(
        "AWS Batch without --shard-count",
        s.auto(&s.d("refused"), &[("AWS_BATCH_JOB_ARRAY_INDEX", "1")], &[]),
        &["AWS_BATCH_JOB_ARRAY_INDEX", "--shard-count"],
    );
    s.refused(
        "--shard 1/3 --shard-count 2",
        coordsim(&[
            "run",
            &s.config,
            "--shard",
            "1/3",
            "--shard-count",
            "2",
            "--out",
            &s.d("refused"),
        ]),
        &["--shard 1/3", "says 2"],
    );
    // Without a scheduler, auto says what it needs.
    s.refused(
        "no scheduler",
        s.auto(&s.d("refused"), &[], &[]),
        &["none is set", "--shard K/N"],
    );
}

/// GNU-parallel style: one job per listed point, two at a time (xargs -P 2); the shards
/// merge into the single run's bytes.
fn gnu_parallel_jobs_merge_to_the_single_run(s: &Scheduled) {
    let config = &s.config;
    let list = coordsim(&["run", config, "--list-points"]);
    let lines = stdout(&list);
    assert_eq!(lines.lines().next(), Some("0/6 clients=1"));
    let script = format!(
        "{bin} run {config} --list-points | cut -d' ' -f1 | xargs -P 2 -I{{}} sh -c '{bin} run {config} --quiet --shard {{}} --out {par}/$(echo {{}} | tr / _)'",
        bin = env!("CARGO_BIN_EXE_coordsim"),
        par = s.d("par"),
    );
    let o = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut args = vec!["merge".to_string(), s.d("par-merged")];
    args.extend((0..6).map(|k| s.d(&format!("par/{k}_6/s"))));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = coordsim(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    s.same("par-merged");
}

#[test]
fn a_label_of_a_value_only_some_shards_show_is_checked_on_the_whole() {
    // The saga lesson labels `rafta` (point 0) and `odunc` (point 1): each shard shows one.
    let dir = tempfile::tempdir().unwrap();
    let d = |p: &str| dir.path().join(p).display().to_string();
    for k in ["0", "1"] {
        let o = coordsim(&[
            "run",
            "configs/lessons/saga.toml",
            "--shard",
            &format!("{k}/2"),
            "--out",
            &d(k),
            "--quiet",
        ]);
        assert_eq!(o.status.code(), Some(0), "shard {k}: {}", stderr(&o));
    }
    let o = coordsim(&["merge", &d("merged"), &d("0/saga"), &d("1/saga")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // One shard alone is not the whole: its merge is refused as incomplete, before labels.
    let o = coordsim(&["merge", &d("half"), &d("0/saga")]);
    assert_eq!(o.status.code(), Some(2));
}

/// Runs `config` in two shards under `tmp/<sub>` and gives their folders.
fn two_shards(tmp: &Path, sub: &str, config: &str, stem: &str) -> Vec<String> {
    let dir = tmp.join(sub);
    std::fs::create_dir_all(&dir).unwrap();
    shard_dirs(&dir, config, stem, 2)
}

#[test]
fn a_shard_missing_a_file_edited_or_of_another_config_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let merged = tmp.path().join("merged");
    let refused = |shards: &[String], needle: &str| {
        let o = merge_into(&merged, shards);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{needle}: {err}");
        assert!(err.contains(needle), "`{needle}` not in {err}");
        assert!(!merged.exists(), "nothing merged: {err}");
    };
    // A timeline config (lanes and entity rows).
    let timeline = root().join("configs/lock-queue-vs-poll.toml");
    let timeline = timeline.to_str().unwrap();
    let fresh = |sub: &str| two_shards(tmp.path(), sub, timeline, "lock-queue-vs-poll");
    let shards = fresh("t1");
    std::fs::remove_file(Path::new(&shards[1]).join("shard-lanes.csv")).unwrap();
    refused(&shards, "shard-lanes.csv is missing");
    // An entity row edited: a number only (the shape stays valid).
    let shards = fresh("t2");
    let entities = Path::new(&shards[0]).join("entities.csv");
    let text = String::from_utf8(read(&entities)).unwrap();
    let edited = text.replacen(",applied", ",gave_up", 1);
    assert_ne!(edited, text);
    std::fs::write(&entities, edited).unwrap();
    refused(
        &shards,
        "entities.csv was changed after the shard was written",
    );
    // Every shard's config replaced by another one with the same columns.
    let shards = fresh("t3");
    for s in &shards {
        let path = Path::new(s).join("shard-config.toml");
        let text = String::from_utf8(read(&path)).unwrap();
        std::fs::write(&path, text.replace("poll_ms = 25", "poll_ms = 5")).unwrap();
    }
    refused(
        &shards,
        "shard-config.toml was changed after the shard was written",
    );
    // Shards of two different splits.
    let halves = fresh("t4");
    let thirds = shard_dirs(&tmp.path().join("t4b"), timeline, "lock-queue-vs-poll", 3);
    refused(
        &[halves[0].clone(), thirds[1].clone()],
        "pass the shards of one split",
    );
    // A distribution config: the samples file is required even where a shard draws none.
    let cdf = write_config(
        tmp.path(),
        "waits.toml",
        "model = \"single_writer_queue\"\n[sweep]\nclients = [4, 8]\n[[chart]]\nname = \"w\"\nkind = \"cdf\"\ny = [\"wait_ms\"]\nwhere = { clients = 8 }\n",
    );
    let shards = two_shards(tmp.path(), "d1", &cdf, "waits");
    assert!(
        Path::new(&shards[0])
            .join("shard-distributions.csv")
            .is_file()
    );
    std::fs::remove_file(Path::new(&shards[1]).join("shard-distributions.csv")).unwrap();
    refused(&shards, "shard-distributions.csv is missing");
    // Intact, they merge.
    let shards = two_shards(tmp.path(), "d2", &cdf, "waits");
    let o = merge_into(&merged, &shards);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn many_missing_shards_are_counted_not_all_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        "many.toml",
        "model = \"lock_queue\"\n[vars]\nk = \"\"\n[sweep]\nk = { from = 1, to = 1000, step = 1 }\n",
    );
    let out = tmp.path().join("s").to_string_lossy().into_owned();
    let o = coordsim(&["run", &config, "--out", &out, "--shard", "0/1000", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let shard = tmp.path().join("s/many").to_string_lossy().into_owned();
    let merged = tmp.path().join("m").to_string_lossy().into_owned();
    let o = coordsim(&["merge", &merged, &shard]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    // 999 missing (1/1000 … 999/1000): ten named, 989 more.
    assert!(
        err.contains("shard 1/1000, 2/1000, 3/1000, 4/1000, 5/1000, 6/1000, 7/1000, 8/1000, 9/1000, 10/1000, … and 989 more missing"),
        "{err}"
    );
}

/// `merge` refuses an OUT that is one of its shard folders or holds one (a glob that
/// caught the output folder): the merged outputs would replace the shard. The shards are
/// left whole, and merge into a folder of their own afterwards.
#[test]
fn merge_refuses_an_out_among_its_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "random.toml", RANDOM_SWEEP);
    let at = |d: &str| tmp.path().join(d).to_string_lossy().into_owned();
    for k in 0..2 {
        let split = format!("{k}/2");
        let out = at(&format!("p/{k}"));
        let o = coordsim(&["run", &config, "--out", &out, "--shard", &split, "-q"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let (first, second) = (at("p/0/random"), at("p/1/random"));
    // A link to the shards' folder, and an OUT to be made inside a shard through it.
    #[cfg(unix)]
    std::os::unix::fs::symlink(tmp.path().join("p"), tmp.path().join("link")).unwrap();
    let mut cases = vec![(first.clone(), "is"), (at("p"), "holds")];
    if cfg!(unix) {
        cases.push((at("link/0/random/m"), "lies inside"));
        cases.push((at("nothere/../p/1/random/m"), "lies inside"));
    }
    for (out, how) in cases {
        let o = coordsim(&["merge", &out, &first, &second]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains(&format!("{how} the shard folder")),
            "{}",
            stderr(&o)
        );
    }
    assert!(
        tmp.path().join("p/0/random/shard.txt").is_file(),
        "the shard kept"
    );
    let o = coordsim(&["merge", &at("merged"), &first, &second]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `merge OUT` writes nothing outside `OUT`: it builds the merged folder inside `OUT` and
/// swaps it in there, so a hidden folder beside `OUT` with the name of its staging (here
/// left by someone else) is never touched (it was removed as `OUT`'s leftover). A write
/// past `ulimit -f` is an error naming the file, exit 2, with nothing left (it was
/// SIGXFSZ: killed without a word, the staging folder left beside `OUT`); a merge again
/// into the same `OUT` replaces it whole.
#[test]
fn merge_writes_inside_out_alone_and_a_file_size_limit_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "random.toml", RANDOM_SWEEP);
    let shards = two_shards(tmp.path(), "parts", &config, "random");
    let parent = tmp.path().join("merged");
    std::fs::create_dir(&parent).unwrap();
    let beside = parent.join(".m.0123456789abcdef.partial");
    std::fs::create_dir(&beside).unwrap();
    std::fs::write(
        beside.join(".coordsim-output"),
        "coordsim output folder: written whole by coordsim and replaced whole by its next run.\n",
    )
    .unwrap();
    let out = parent.join("m");
    for _ in 0..2 {
        let o = merge_into(&out, &shards);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    assert!(beside.join(".coordsim-output").is_file(), "left alone");
    let mut names: Vec<String> = std::fs::read_dir(&parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".m.0123456789abcdef.partial", "m"]);
    let hidden: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert_eq!(hidden, [".coordsim-output"]);
    // 4 KiB a file at most: results.csv is past it.
    let limited = tmp.path().join("limited");
    let mut args = vec![
        "-c".to_string(),
        "ulimit -f 4 && exec \"$0\" \"$@\"".to_string(),
        env!("CARGO_BIN_EXE_coordsim").to_string(),
        "merge".to_string(),
        limited.join("m").to_string_lossy().into_owned(),
    ];
    args.extend(shards.iter().cloned());
    let o = Command::new("sh").args(&args).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with("error: cannot write ") && stderr(&o).contains("File too large"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_dir(&limited).unwrap().count(),
        0,
        "nothing left"
    );
}
