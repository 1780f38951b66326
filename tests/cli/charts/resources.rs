//! A timeline's resource lanes (`resources`), an open loop's overlapping repetitions and
//! `first_items`: each checked against what the run did, worked out by hand or read from
//! the config and the entity rows, never from the lanes themselves.

use coordsim_model::{Lane, Lanes};

use super::chart_svgs;
use crate::harness::*;

/// The lanes of the first point of a scenario config's run.
fn lanes_of(text: &str) -> (coordsim::config::Config, coordsim::results::Results, Lanes) {
    let config = library_config(&registry(), "r.toml", text).unwrap();
    let results = library_run(&config);
    let lanes = results.lanes[0].1.clone();
    (config, results, lanes)
}

fn resource<'a>(lanes: &'a Lanes, name: &str) -> &'a Lane {
    (lanes.resources().iter())
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no lane for {name}"))
}

/// A level's steps as (instant, value).
fn steps(lane: &Lane) -> Vec<(f64, f64)> {
    lane.levels().iter().map(|p| (p.at_ms, p.value)).collect()
}

/// Five clients each send one request at 0 ms to a server of 10 ms that is down over the
/// windows below. The down spans are the config's windows. The queue (requests waiting, not
/// the one in service), by hand: 4 wait at 0; one leaves the queue at 10 and at 20; the
/// service that ends at 30 starts none (the window's edge runs first), so 2 wait until 60;
/// then 1 at 60 and none at 70.
const DOWN: [(f64, f64); 2] = [(30.0, 60.0), (100.0, 120.0)];

fn server_config(chart: &str) -> String {
    let down: Vec<String> = DOWN.iter().map(|(a, b)| format!("[{a}, {b}]")).collect();
    format!(
        "model = \"scenario\"\n[[resource]]\nname = \"db\"\nkind = \"server\"\nservice_ms = 10\ndown = [{}]\n[[actor]]\nname = \"client\"\ncount = 5\nsteps = [{{ request = \"db\" }}]\n[[chart]]\nname = \"timeline\"\nkind = \"timeline\"\nresources = [\"db\"]\n{chart}",
        down.join(", ")
    )
}

#[test]
fn a_server_lane_draws_the_configs_down_windows_and_its_queue() {
    let (_, _, lanes) = lanes_of(&server_config(""));
    let db = resource(&lanes, "db");
    let down: Vec<(f64, f64)> = (db.spans().iter())
        .filter(|s| s.kind == "server_down")
        .map(|s| (s.from_ms, s.to_ms.unwrap()))
        .collect();
    assert_eq!(down, DOWN);
    assert_eq!(db.level_kind(), Some("queue_length"));
    assert_eq!(
        steps(db),
        [
            (0.0, 4.0),
            (10.0, 3.0),
            (20.0, 2.0),
            (60.0, 1.0),
            (70.0, 0.0)
        ]
    );
    // Only the lanes a chart names are drawn, but the actors' are there as ever.
    assert_eq!(lanes.lanes().len(), 5);
}

/// Drawn to scale: the 30 ms window is 1.5 times as wide as the 20 ms one (the grey
/// #C8C8C8 rectangles; the legend's swatch is the one of another height).
#[test]
fn a_down_window_is_drawn_as_wide_as_it_lasts() {
    let config = library_config(&registry(), "r.toml", &server_config("")).unwrap();
    let svg = chart_svgs(&config)
        .into_iter()
        .find(|(n, _, _)| n == "timeline")
        .unwrap()
        .1;
    let rects: Vec<(f64, f64)> = svg
        .match_indices("fill=\"#C8C8C8\"")
        .filter_map(|(i, _)| {
            let rect = &svg[svg[..i].rfind("<rect")?..i];
            let attr = |name: &str| -> Option<f64> {
                rect.split(&format!(" {name}=\""))
                    .nth(1)?
                    .split('"')
                    .next()?
                    .parse()
                    .ok()
            };
            Some((attr("width")?, attr("height")?))
        })
        .collect();
    let tallest = rects.iter().map(|r| r.1).fold(0.0, f64::max);
    let widths: Vec<f64> = rects
        .iter()
        .filter(|r| r.1 == tallest)
        .map(|r| r.0)
        .collect();
    assert_eq!(widths.len(), 2, "{rects:?}");
    let ratio = widths[0] / widths[1];
    assert!((ratio - 1.5).abs() < 0.05, "{widths:?}");
}

/// Three workers take a queue lock in turn, hold it 7 ms and release it. The lock's lane
/// names each holder over the time the entity rows say it held the lock: from its start
/// plus its lock wait to its end (its release is its last step).
#[test]
fn a_lock_lane_names_each_holder_over_the_time_the_entity_rows_say() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"row\"\nkind = \"lock\"\nmode = \"queue\"\n[[actor]]\nname = \"worker\"\ncount = 3\nsteps = [{ acquire = \"row\" }, { delay_ms = 7 }, { release = \"row\" }]\n[[chart]]\nname = \"timeline\"\nkind = \"timeline\"\nresources = [\"row\"]\n";
    let (_, results, lanes) = lanes_of(text);
    let row = resource(&lanes, "row");
    let points = row.levels();
    let mut held: Vec<(String, f64, f64)> = Vec::new();
    for (k, p) in points.iter().enumerate() {
        if p.value.is_nan() {
            continue;
        }
        let to = points.get(k + 1).map(|q| q.at_ms).unwrap();
        held.push((row.categories()[p.value as usize].clone(), p.at_ms, to));
    }
    let entities = results.entities.unwrap();
    let col = |name: &str| entities.column(name).unwrap();
    let mut expected: Vec<(String, f64, f64)> = (entities.rows.iter())
        .map(|r| {
            let num = |c: &str| coordsim::results::number(&r[col(c)]).unwrap();
            let name = match &r[col("entity")] {
                coordsim_model::Cell::Text(t) => t.clone(),
                other => panic!("{other:?}"),
            };
            let taken = num("start_ms") + num("lock_wait_ms");
            (name, taken, num("end_ms"))
        })
        .collect();
    expected.sort_by(|a, b| a.1.total_cmp(&b.1));
    assert_eq!(held, expected);
    // By hand: 0–7, 7–14, 14–21, and free after.
    assert_eq!(
        held.iter().map(|h| (h.1, h.2)).collect::<Vec<_>>(),
        [(0.0, 7.0), (7.0, 14.0), (14.0, 21.0)]
    );
    assert!(points.last().unwrap().value.is_nan());
}

/// A writer writes k + 1 at each of its 5 repetitions, 10 ms apart: the register's lane
/// steps to each written value at its write, as many steps as the run's `x.writes`.
#[test]
fn a_register_lane_steps_at_each_write() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"x\"\nkind = \"register\"\n[[actor]]\nname = \"writer\"\nrepeat = 5\nsteps = [{ write = \"x\", value = \"k + 1\" }, { delay_ms = 10 }]\n[[chart]]\nname = \"timeline\"\nkind = \"timeline\"\nresources = [\"x\"]\n";
    let (config, results, lanes) = lanes_of(text);
    let x = resource(&lanes, "x");
    assert_eq!(
        steps(x),
        [
            (0.0, 1.0),
            (10.0, 2.0),
            (20.0, 3.0),
            (30.0, 4.0),
            (40.0, 5.0)
        ]
    );
    let table = &results.results;
    let writes = coordsim::results::number(&table.rows[0][table.column("x.writes").unwrap()]);
    assert_eq!(writes, Some(x.levels().len() as f64));
    // Each step's value is written on the chart.
    let svg = chart_svgs(&config)
        .into_iter()
        .find(|(n, _, _)| n == "timeline")
        .unwrap()
        .1;
    assert!(svg.contains("register value"), "{svg}");
}

/// An open loop's repetitions overlap: repetition k runs 5k to 5k + 12, so three are under
/// way at once and each takes the lowest free sub-row: k mod 3 (at 5k, repetition k − 3
/// ended at 5k − 3 and freed its row; k − 1 and k − 2 hold theirs).
#[test]
fn an_open_loops_overlapping_repetitions_take_distinct_rows() {
    let text = "model = \"scenario\"\n[[actor]]\nname = \"client\"\nrepeat = 6\nevery_ms = 5\nsteps = [{ delay_ms = 12 }]\n[[chart]]\nname = \"timeline\"\nkind = \"timeline\"\n";
    let (_, _, lanes) = lanes_of(text);
    let lane = &lanes.lanes()[0];
    let work: Vec<(f64, f64, u8)> = (lane.spans().iter())
        .filter(|s| s.kind == "working")
        .map(|s| (s.from_ms, s.to_ms.unwrap(), s.row))
        .collect();
    let expected: Vec<(f64, f64, u8)> = (0..6u8)
        .map(|k| (5.0 * f64::from(k), 5.0 * f64::from(k) + 12.0, k % 3))
        .collect();
    assert_eq!(work, expected);
    assert_eq!((lane.rows(), lane.overflow()), (3, 0));
}

/// Past eight at once, a repetition gets no row and is counted; a line counts those under
/// way. Repetition k starts at 1.5k and runs 20 ms: at its start (k ≥ 13) repetitions
/// k − 13 … k are under way (1.5j > 1.5k − 20 ⇔ j > k − 13.3), 14 at once. Every
/// repetition is drawn in a row or counted, and no two in one row overlap.
#[test]
fn repetitions_past_the_rows_are_counted_and_none_share_a_row() {
    let text = "model = \"scenario\"\n[[actor]]\nname = \"client\"\nrepeat = 30\nevery_ms = 1.5\nsteps = [{ delay_ms = 20 }]\n[[chart]]\nname = \"timeline\"\nkind = \"timeline\"\n";
    let (config, _, lanes) = lanes_of(text);
    let lane = &lanes.lanes()[0];
    let work: Vec<_> = lane
        .spans()
        .iter()
        .filter(|s| s.kind == "working")
        .collect();
    assert_eq!(work.len() as u64 + lane.overflow(), 30);
    assert!(lane.overflow() > 0);
    assert_eq!(lane.rows(), coordsim_model::MAX_SUB_ROWS);
    for a in &work {
        for b in &work {
            if !std::ptr::eq(*a, *b) && a.row == b.row {
                assert!(
                    a.to_ms.unwrap() <= b.from_ms || b.to_ms.unwrap() <= a.from_ms,
                    "{a:?} {b:?}"
                );
            }
        }
    }
    let most = lane.levels().iter().map(|p| p.value).fold(0.0, f64::max);
    assert_eq!(lane.level_kind(), Some("in_flight"));
    assert_eq!(most, 14.0);
    let svg = chart_svgs(&config)
        .into_iter()
        .find(|(n, _, _)| n == "timeline")
        .unwrap()
        .1;
    assert!(svg.contains("repetitions past 8 rows at once"), "{svg}");
}

/// `first_items` draws each lane's first items and counts the rest in a band; a run that
/// draws no resources records none.
#[test]
fn first_items_draws_the_start_and_says_so() {
    let text = "model = \"scenario\"\n[[actor]]\nname = \"client\"\nrepeat = 200\nsteps = [{ delay_ms = 1 }]\n[[chart]]\nname = \"timeline\"\nkind = \"timeline\"\nfirst_items = 10\n";
    let (config, _, lanes) = lanes_of(text);
    assert!(lanes.resources().is_empty());
    let svg = chart_svgs(&config)
        .into_iter()
        .find(|(n, _, _)| n == "timeline")
        .unwrap()
        .1;
    assert!(svg.contains("its first 10 items drawn"), "{svg}");
}

/// Every key says what is wrong where it is written, and what would do.
#[test]
fn resource_keys_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = "model = \"scenario\"\n[[resource]]\nname = \"db\"\nkind = \"server\"\nservice_ms = 1\n[[resource]]\nname = \"row\"\nkind = \"lock\"\n[[actor]]\nname = \"a\"\nsteps = [{ request = \"db\" }]\n[[chart]]\nname = \"c\"\n";
    let many: Vec<String> = (0..65).map(|i| format!("\"r{i}\"")).collect();
    let many = format!("kind = \"timeline\"\nresources = [{}]\n", many.join(", "));
    for (i, (chart, needle)) in [
        (
            "kind = \"timeline\"\nresources = [\"dbb\"]\n",
            "r0.toml:15:14: `dbb` is no resource with a lane (did you mean `db`?); valid: db, row",
        ),
        (
            "kind = \"timeline\"\nresources = \"db\"\n",
            "`resources` is a list of resource names",
        ),
        (
            "kind = \"timeline\"\nresources = []\n",
            "`resources` names 1 to 64 resources",
        ),
        (many.as_str(), "`resources` names 1 to 64 resources"),
        (
            "kind = \"timeline\"\nresources = [\"db\", \"db\"]\n",
            "`resources` names `db` twice",
        ),
        (
            "kind = \"bar\"\nx = \"entity\"\ny = [\"completed\"]\nresources = [\"db\"]\n",
            "`resources` are a timeline's lanes",
        ),
        (
            "kind = \"timeline\"\nfirst_items = 0\n",
            "`first_items` is how many items each lane draws before its density band: a whole number from 1 to 100",
        ),
        (
            "kind = \"timeline\"\nfirst_items = 101\n",
            "a whole number from 1 to 100",
        ),
        ("kind = \"timeline\"\nfirst_items = 2.5\n", "a whole number from 1 to 100"),
        (
            "kind = \"bar\"\nx = \"entity\"\ny = [\"completed\"]\nfirst_items = 5\n",
            "`first_items` is a timeline's",
        ),
    ]
    .iter()
    .enumerate()
    {
        let config = write_config(dir.path(), &format!("r{i}.toml"), &format!("{scenario}{chart}"));
        let out = coordsim(&["check", &config]);
        assert_eq!(out.status.code(), Some(2), "{chart}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with("error: ") && stderr(&out).contains(needle),
            "`{needle}` not in {}",
            stderr(&out)
        );
    }
    // The lock queue has one resource lane, its lock: a misspelt one names it.
    let config = write_config(
        dir.path(),
        "lq.toml",
        "model = \"lock_queue\"\n[[chart]]\nname = \"c\"\nkind = \"timeline\"\nresources = [\"locks\"]\n",
    );
    let out = coordsim(&["check", &config]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("`locks` is no resource with a lane (did you mean `lock`?); valid: lock"),
        "{}",
        stderr(&out)
    );
}

/// The built-in lock queue draws its lock too. Three appliers of 100 ms behind a queue lock
/// hold it in turn, each from its start plus its acquire delay to its end (entity rows); a
/// lock left by a crashed holder at 0 is held by no applier (drawn unnamed) until the
/// operator deletes it at 150 ms; the poll of that instant (every 25 ms from 0: 150 is the
/// seventh) runs after the unlock, scheduled first, and takes it: the instant ends held by
/// `a`, one step, until its 10 ms hold ends at 160.
#[test]
fn the_lock_queues_lock_lane_follows_its_appliers() {
    let text = "model = \"lock_queue\"\n[params]\nappliers = 3\nlock = \"queue\"\nhold_ms = 100\n[[chart]]\nname = \"timeline\"\nkind = \"timeline\"\nresources = [\"lock\"]\n";
    let (_, results, lanes) = lanes_of(text);
    let lock = resource(&lanes, "lock");
    let points = lock.levels();
    let held: Vec<(String, f64, f64)> = (points.iter().enumerate())
        .filter(|(_, p)| !p.value.is_nan())
        .map(|(k, p)| {
            let to = points[k + 1].at_ms;
            (lock.categories()[p.value as usize].clone(), p.at_ms, to)
        })
        .collect();
    let entities = results.entities.unwrap();
    let col = |name: &str| entities.column(name).unwrap();
    let expected: Vec<(String, f64, f64)> = (entities.rows.iter())
        .map(|r| {
            let num = |c: &str| coordsim::results::number(&r[col(c)]).unwrap();
            let name = match &r[col("entity")] {
                coordsim_model::Cell::Text(t) => t.clone(),
                other => panic!("{other:?}"),
            };
            (
                name,
                num("start_ms") + num("acquire_delay_ms"),
                num("end_ms"),
            )
        })
        .collect();
    assert_eq!(held, expected);
    assert_eq!(
        held.iter().map(|h| (h.1, h.2)).collect::<Vec<_>>(),
        [(0.0, 100.0), (100.0, 200.0), (200.0, 300.0)]
    );
    let stale = "model = \"lock_queue\"\n[params]\nappliers = 1\nstale_lock_at_start = true\nunlock_at_ms = [150]\nhold_ms = 10\n[[chart]]\nname = \"timeline\"\nkind = \"timeline\"\nresources = [\"lock\"]\n";
    let (_, _, lanes) = lanes_of(stale);
    let steps = steps(resource(&lanes, "lock"));
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert_eq!(steps[0..2], [(0.0, -1.0), (150.0, 0.0)]);
    assert!(steps[2].0 == 160.0 && steps[2].1.is_nan());
}

/// A resource's lane takes its `[labels]` name as an actor's lane does: `db = "veritabanı"`
/// is accepted (it names a lane the run draws) and the timeline shows it.
#[test]
fn a_resource_lane_takes_its_label() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{}\n[labels]\ndb = \"veritabanı\"\n", server_config(""));
    let path = write_config(dir.path(), "r.toml", &text);
    let o = coordsim_in(dir.path(), &["run", &path, "--out", "out", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(dir.path().join("out/r/timeline.svg")).unwrap();
    assert!(svg.contains("veritabanı"), "the lane's label");
}
