//! What a run holds is what its estimate counts: a range of keys nobody changes holds
//! nothing, one a step changes is laid out (and counted).

use super::{num, run_text};

#[test]
fn a_range_of_keys_nobody_changes_takes_no_memory() {
    // Ten million keys of value 2, only looked up: under a 64 MiB limit (laid out they
    // would be about 90 MB, and the estimate counts 48 bytes a key: 457 MiB). Size 10^7,
    // total 2 × 10^7; key 5 is found and key 10^7 is not (the range is 0 … 10^7 − 1).
    let lookups = r#"model = "scenario"
[limits]
max_memory_mb = 64
[[resource]]
name = "books"
kind = "keys"
initial = { from = 0, count = 10_000_000, value = 2 }
[[resource]]
name = "seen"
kind = "keys"
[[actor]]
name = "a"
steps = [
  { lookup = "books", key = 5 },
  { if = "found", then = [{ insert = "seen", key = 1, value = "books" }] },
  { lookup = "books", key = 10_000_000 },
  { if = "missing", then = [{ insert = "seen", key = 2, value = 7 }] },
]
"#;
    let run = run_text(lookups, 1);
    assert_eq!(num(run.metric("books.size")), 1e7);
    assert_eq!(num(run.metric("books.total")), 2e7);
    assert_eq!(num(run.metric("seen.total")), 2.0 + 7.0);
    // One remove lays the range out: 10^7 − 1 keys, total 2 × (10^7 − 1).
    let changed = lookups
        .replace("max_memory_mb = 64", "max_memory_mb = 1024")
        .replace(
            r#"{ lookup = "books", key = 5 },"#,
            r#"{ remove = "books", key = 3 }, { lookup = "books", key = 5 },"#,
        );
    let run = run_text(&changed, 1);
    assert_eq!(num(run.metric("books.size")), 1e7 - 1.0);
    assert_eq!(num(run.metric("books.total")), 2.0 * (1e7 - 1.0));
    assert_eq!(num(run.metric("books.removed")), 1.0);
}
