//! The small command harness every feature file uses: run the binary, read its output, write configs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs coordsim in `dir` with `args`.
pub(crate) fn coordsim_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_coordsim"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("coordsim runs")
}

pub(crate) fn coordsim(args: &[&str]) -> Output {
    coordsim_in(&root(), args)
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub(crate) fn write_config(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// `coordsim check` of `text` written as `dir/name`: its exit code, and what it printed
/// (its output, then its errors).
pub(crate) fn check_config(dir: &Path, name: &str, text: &str) -> (Option<i32>, String) {
    let out = coordsim(&["check", &write_config(dir, name, text)]);
    (
        out.status.code(),
        format!("{}{}", stdout(&out), stderr(&out)),
    )
}

pub(crate) fn read(path: impl AsRef<Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What the `coordsim` binary runs (`src/main.rs`): the built-in models, then the scenario
/// composer, its own crate.
pub(crate) fn registry() -> coordsim_model::Registry {
    coordsim_models::registry().with_composer(coordsim_scenario::Scenario)
}

/// A config's text parsed as `name` against `registry`, through the library.
pub(crate) fn library_config(
    registry: &coordsim_model::Registry,
    name: &str,
    text: &str,
) -> Result<coordsim::config::Config, coordsim::source::ConfigError> {
    coordsim::config::Config::parse(
        coordsim::source::Source {
            name: name.into(),
            text: text.into(),
        },
        registry,
    )
}

/// Runs a config through the library on 2 threads, without a progress bar.
pub(crate) fn library_run(config: &coordsim::config::Config) -> coordsim::results::Results {
    let options = coordsim::runner::RunOptions {
        jobs: 2,
        seed: None,
        shard: None,
        progress: false,
        ties: sim_core::Ties::Fifo,
    };
    coordsim::runner::run(config, &options).unwrap()
}

pub(crate) const RANDOM_SWEEP: &str = r#"model = "single_writer_queue"
seed = 10
replications = 3
[params]
requests_per_client = 300
arrivals = "poisson"
service = "exponential"
[sweep]
clients = [2, 4, 6]
service_ms = { from = 4, to = 8, step = 4 }
"#;

pub(crate) fn list_files(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(
                    path.strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    files.sort();
    files
}

/// Shards of `config` (K/N for each k) under `tmp`, returning their folders.
pub(crate) fn shard_dirs(tmp: &Path, config: &str, stem: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|k| {
            let out = tmp.join(format!("s{k}"));
            let o = coordsim(&[
                "run",
                config,
                "--out",
                out.to_str().unwrap(),
                "--shard",
                &format!("{k}/{n}"),
                "-q",
            ]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            out.join(stem).to_string_lossy().into_owned()
        })
        .collect()
}

pub(crate) fn merge_into(out: &Path, shards: &[String]) -> Output {
    let out = out.to_string_lossy().into_owned();
    let mut args = vec!["merge", out.as_str()];
    args.extend(shards.iter().map(String::as_str));
    coordsim(&args)
}

/// A lesson folder: `q.toml` (a queue whose service time is `service_ms`, swept over two
/// client counts) and `lesson.md` with `text`.
pub(crate) fn lesson_dir(service_ms: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_config(
        dir.path(),
        "q.toml",
        &format!(
            "model = \"single_writer_queue\"\nlocale = \"tr\"\n[params]\nservice_ms = {service_ms}\nrequests_per_client = 10\ninterarrival_ms = 1000\n[sweep]\nclients = [1, 2]\n[labels]\nclients = \"istemci\"\n"
        ),
    );
    std::fs::write(dir.path().join("lesson.md"), text).unwrap();
    dir
}

pub(crate) fn lesson(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["lesson"];
    all.extend_from_slice(args);
    coordsim_in(dir, &all)
}

pub(crate) const HEAD: &str =
    "<!-- coordsim use q = \"q.toml\" -->\n<!-- coordsim locale = \"tr\" -->\n";
