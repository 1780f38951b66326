//! Whose draw a trace says a chance is: a job handed a lock goes on, and draws, in its
//! releaser's event, and each chance is a row of the job that drew it.

use std::collections::BTreeSet;

/// A chance drawn by a job handed a lock, in its releaser's event, is the handed job's: in
/// the deadline example each of the three clients draws once (whether its call is slow), so
/// every trace names each client at most once on a "decides by chance" row (the releaser
/// was named before, so one client seemed to draw twice and another never).
#[test]
fn a_chance_drawn_after_a_hand_over_is_the_handed_actors() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::harness::root()
        .join("configs/explore/explore-deadline.toml")
        .to_string_lossy()
        .into_owned();
    let out = crate::harness::coordsim_in(dir.path(), &["explore", &config, "--out", "o", "-q"]);
    assert!(out.status.success(), "{}", crate::harness::stderr(&out));
    let folder = dir.path().join("o/explore-deadline-explore");
    let mut traces = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "csv") || !path.to_string_lossy().contains("trace-")
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let drawers: Vec<&str> = (text.lines())
            .filter(|line| line.contains("decides by chance"))
            .map(|line| line.split(',').nth(2).unwrap())
            .collect();
        let distinct: BTreeSet<&str> = drawers.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            drawers.len(),
            "{}: {drawers:?}",
            path.display()
        );
        traces += usize::from(drawers.len() >= 2);
    }
    assert!(traces > 0, "no trace with two draws to check");
}

/// Two jobs draw in one event: `a` releases the lock and goes on to its chance, and `b`,
/// handed the lock, goes on to its own. Each chance is a row of its drawer's, `a`'s first
/// (the releaser goes on before the job it readied), one draw a row.
#[test]
fn chances_of_two_jobs_in_one_event_are_a_row_each() {
    let dir = tempfile::tempdir().unwrap();
    let chance =
        "{ if = { chance = 0.5 }, then = [{ delay_ms = 10 }], else = [{ delay_ms = 20 }] }";
    let config = crate::harness::write_config(
        dir.path(),
        "handed.toml",
        &format!(
            "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n\
             [[actor]]\nname = \"a\"\nsteps = [{{ acquire = \"L\" }}, {{ release = \"L\" }}, {chance}]\n\
             [[actor]]\nname = \"b\"\nsteps = [{{ acquire = \"L\" }}, {chance}, {{ release = \"L\" }}]\n\
             [[claim]]\nover = \"executions\"\nholds = \"sometimes\"\nmetric = \"L.acquisitions\"\nexpect = 2\n"
        ),
    );
    let out = crate::harness::coordsim_in(dir.path(), &["explore", &config, "--out", "o", "-q"]);
    assert!(out.status.success(), "{}", crate::harness::stderr(&out));
    let trace = std::fs::read_to_string(dir.path().join("o/handed-explore/trace-1.csv")).unwrap();
    let chances: Vec<(&str, usize)> = (trace.lines())
        .filter(|line| line.contains("decides by chance"))
        .map(|line| {
            (
                line.split(',').nth(2).unwrap(),
                line.matches("chance:").count(),
            )
        })
        .collect();
    assert_eq!(chances, [("a", 1), ("b", 1)], "{trace}");
}
