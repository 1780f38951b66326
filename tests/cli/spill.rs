//! The spill: the counting's entries a point is done with go to disk (inside the output's
//! staging folder) once those in memory pass their share, and every output is the same
//! bytes as without it, on one thread and two; the folder is gone after; where the spill
//! cannot hold them (`--max-spill`), the verdict is bounded, never an abort.
//!
//! The explore.md line of states is compared too: a spill changes no bound here (the
//! budget binds only where memory is short, which these small points never are).

use std::path::Path;

use proptest::prelude::*;

use crate::harness::{coordsim_in, list_files, read, stdout, write_config};

/// Steps of one random program over registers `r0` and `r1`: a read and an increment of
/// what was read (a lost update possible), a compare-and-set of it, a blind write, or an
/// increment under a queue lock.
fn program() -> impl Strategy<Value = String> {
    (0..2usize, 0..4u8).prop_map(|(r, kind)| match kind {
        0 => format!("{{ read = \"r{r}\" }}, {{ write = \"r{r}\", value = \"read + 1\" }}"),
        1 => format!(
            "{{ read = \"r{r}\" }}, {{ write = \"r{r}\", value = \"read + 1\", cas = true }}"
        ),
        2 => format!("{{ write = \"r{r}\", value = \"i + 1\" }}"),
        _ => format!(
            "{{ acquire = \"L\" }}, {{ read = \"r{r}\" }}, {{ write = \"r{r}\", value = \"read + 1\" }}, {{ release = \"L\" }}"
        ),
    })
}

/// A random point: up to two groups of up to two actors, each repeating one or two
/// programs up to twice; a claim over executions on `r0`'s least value, which most
/// points break (so a trace is written).
fn config() -> impl Strategy<Value = String> {
    let group = (1..=2u32, 1..=2u32, prop::collection::vec(program(), 1..=2));
    (prop::collection::vec(group, 1..=2), 0..4u32).prop_map(|(groups, expect)| {
        let mut text = String::from(
            "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
             [[resource]]\nname = \"r0\"\nkind = \"register\"\n\
             [[resource]]\nname = \"r1\"\nkind = \"register\"\n",
        );
        for (g, (count, repeat, programs)) in groups.into_iter().enumerate() {
            text.push_str(&format!(
                "[[actor]]\nname = \"g{g}\"\ncount = {count}\nrepeat = {repeat}\nsteps = [{}]\n",
                programs.join(", ")
            ));
        }
        text.push_str(&format!(
            "[[claim]]\nover = \"executions\"\nmetric = \"r0.value\"\nstat = \"min\"\nexpect = {expect}\n"
        ));
        text
    })
}

/// Every file `explore` wrote into `dir/out/stem-explore` (its marker aside), by name.
fn outputs(dir: &Path, out: &str, stem: &str) -> Vec<(String, Vec<u8>)> {
    let folder = dir.join(out).join(format!("{stem}-explore"));
    list_files(&folder)
        .into_iter()
        .filter(|name| !name.starts_with('.'))
        .map(|name| {
            let bytes = read(folder.join(&name));
            (name, bytes)
        })
        .collect()
}

/// `explore` of `config` into `dir/out` with `args` beside: its exit code and stdout.
fn explore(dir: &Path, config: &str, out: &str, args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["explore", config, "--no-symmetry", "--out", out, "-q"];
    all.extend_from_slice(args);
    let o = coordsim_in(dir, &all);
    (o.status.code(), stdout(&o))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Spilling from the first page (`--spill-from 0`: pages of 64 entries) changes no
    /// byte of any output (explore.md, outcomes.csv, each trace's files), on one thread
    /// and on two, bounded or not (at 50,000 states), and leaves no spill folder behind.
    #[test]
    fn a_spilled_exploration_writes_the_same_bytes(text in config()) {
        let dir = tempfile::tempdir().unwrap();
        let config = write_config(dir.path(), "p.toml", &text);
        let bound = ["--max-states", "50000"];
        let (code, _) = explore(dir.path(), &config, "plain", &[&bound[..], &["--jobs", "1"]].concat());
        let plain = outputs(dir.path(), "plain", "p");
        prop_assert!(plain.iter().any(|(name, _)| name == "outcomes.csv"), "{text}");
        for jobs in ["1", "2"] {
            let out = format!("spilled{jobs}");
            let (spilled_code, said) =
                explore(dir.path(), &config, &out, &[&bound[..], &["--jobs", jobs, "--spill-from", "0"]].concat());
            prop_assert_eq!(spilled_code, code, "{}", said);
            let spilled = outputs(dir.path(), &out, "p");
            prop_assert_eq!(&spilled, &plain, "--jobs {}\n{}", jobs, text);
            // Nothing but the output folder left in `out` (no staging, no spill folder).
            let left: Vec<_> = std::fs::read_dir(dir.path().join(&out))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|name| !name.starts_with(".coordsim"))
                .collect();
            prop_assert_eq!(left, vec!["p-explore".to_string()]);
        }
    }
}

/// Five clients each incrementing a register twice: 384,466 states, 20 events an
/// execution, about 1.4 million entries (tens of MiB): spilled from the first page, it
/// passes a 1 MiB disk limit.
const FIVE_BY_TWO: &str = r#"model = "scenario"
[[resource]]
name = "counter"
kind = "register"
[[actor]]
name = "client"
count = 5
repeat = 2
steps = [{ read = "counter" }, { write = "counter", value = "read + 1" }]
[[claim]]
over = "executions"
metric = "counter.value"
stat = "min"
expect = 5
"#;

/// The 5 × 2 lost update spilled from the first page writes what it writes without a
/// spill, on one thread and two. Where the spill can hold no more (`--max-spill 1`), the
/// exploration ends bounded, saying why, with the claim's verdict and no error (so a spill
/// does happen here: the equality above is not vacuous); no spill folder is left.
#[test]
fn the_lost_update_spills_the_same_outputs_and_is_bounded_past_the_disk_limit() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "lu.toml", FIVE_BY_TWO);
    // The claim fails (an execution loses updates): exit code 1 either way.
    let (code, said) = explore(dir.path(), &config, "plain", &[]);
    assert_eq!(code, Some(1), "{said}");
    for jobs in ["1", "2"] {
        let out = format!("spilled{jobs}");
        let (code, said) = explore(
            dir.path(),
            &config,
            &out,
            &["--spill-from", "0", "--jobs", jobs],
        );
        assert_eq!(code, Some(1), "{said}");
        assert_eq!(
            outputs(dir.path(), &out, "lu"),
            outputs(dir.path(), "plain", "lu")
        );
    }
    let (code, said) = explore(
        dir.path(),
        &config,
        "full",
        &["--spill-from", "0", "--max-spill", "1"],
    );
    assert_eq!(code, Some(1), "{said}");
    let md = String::from_utf8(read(dir.path().join("full/lu-explore/explore.md"))).unwrap();
    assert!(
        md.contains("not exhaustive (memory: the spill to disk could hold no more, `--max-spill`)"),
        "{md}"
    );
    for out in ["plain", "spilled1", "spilled2", "full"] {
        let names: Vec<_> = std::fs::read_dir(dir.path().join(out))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| !name.starts_with(".coordsim"))
            .collect();
        assert_eq!(names, vec!["lu-explore".to_string()], "{out}");
    }
}

/// An exploration that ends in an error (an actor acquires a lock it holds) leaves nothing
/// in the output folder: no staging folder, no spill folder inside it.
#[test]
fn an_exploration_that_fails_leaves_no_spill_folder() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "twice.toml",
        "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
         [[actor]]\nname = \"a\"\ncount = 2\nrepeat = 2\nsteps = [{ acquire = \"L\" }]\n",
    );
    let (code, _) = explore(dir.path(), &config, "out", &["--spill-from", "0"]);
    assert_ne!(code, Some(0));
    let left: Vec<_> = std::fs::read_dir(dir.path().join("out"))
        .map(|read| {
            read.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}
