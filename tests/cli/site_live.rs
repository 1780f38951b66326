//! Live charts: each line or bar chart's points embedded beside its image on the config's
//! page (`src/site/live.rs`); `tests/browser/` hovers them in Chromium.

use crate::harness::*;

/// Poisson arrivals into a queue of 2 or 4 clients served in 5 or 7 ms, 2 replications: a
/// line chart (two series, one per service time, each point with its interval, and a
/// theory line), a bar chart, and an x label holding markup.
const LIVE: &str = r#"model = "single_writer_queue"
title = "Live"
replications = 2
[params]
requests_per_client = 20
interarrival_ms = 20
arrivals = "poisson"
[sweep]
clients = [2, 4]
service_ms = [5, 7]
[[chart]]
name = "wait"
kind = "line"
x = "clients"
y = ["mean_wait_ms"]
y_expr = { "half" = "service_ms / 2" }
[[chart]]
name = "capacity"
kind = "bar"
x = "clients"
y = ["capacity_per_s"]
[labels]
clients = "clients </script><b>"
"#;

/// Every `<script type="application/json" class="CLASS">` block of `page`, its text.
fn blocks<'p>(page: &'p str, class: &str) -> Vec<&'p str> {
    let open = format!("<script type=\"application/json\" class=\"{class}\">");
    page.split(&open)
        .skip(1)
        .map(|rest| &rest[..rest.find("</script>").unwrap()])
        .collect()
}

/// Each series' points as the block writes them, every number its text: serde_json reads
/// some floats a unit in the last place off, and the test compares them exactly.
fn raw_points(block: &str) -> Vec<Vec<Vec<f64>>> {
    block
        .split("\"p\":[[")
        .skip(1)
        .map(|rest| {
            rest[..rest.find("]]").unwrap()]
                .split("],[")
                .map(|p| {
                    p.split(',')
                        .map(|v| v.parse().unwrap_or(f64::NAN))
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// summary.csv's `column` at the point with `clients` and `service_ms`.
fn summary(csv: &str, clients: f64, service_ms: f64, column: &str) -> f64 {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| head.iter().position(|h| *h == name).unwrap();
    lines
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .find(|cells| {
            cells[at("clients")].parse::<f64>().unwrap() == clients
                && cells[at("service_ms")].parse::<f64>().unwrap() == service_ms
        })
        .map(|cells| cells[at(column)].parse().unwrap())
        .unwrap()
}

/// The blocks' format, as a snapshot; every data point's y and interval are summary.csv's
/// mean and 95% interval at its point, exactly; the theory line keeps the data's x values;
/// a `<` in a label cannot end the element; a page without a line or bar chart has none.
#[test]
fn a_config_page_embeds_each_line_and_bar_charts_points_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("configs")).unwrap();
    std::fs::write(dir.path().join("configs/live.toml"), LIVE).unwrap();
    std::fs::write(
        dir.path().join("configs/plain.toml"),
        "model = \"single_writer_queue\"\ntitle = \"Plain\"\nreplications = 3\n[params]\nrequests_per_client = 2\n[[chart]]\nname = \"t\"\nkind = \"runs_cdf\"\ny = [\"mean_wait_ms\"]\n",
    )
    .unwrap();
    let o = coordsim_in(dir.path(), &["report", "--out", "out", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = String::from_utf8(read(dir.path().join("out/site/config-live.html"))).unwrap();
    let points = blocks(&page, "chart-points");
    assert_eq!(points.len(), 2, "one block per line or bar chart");
    assert!(!points.iter().any(|b| b.contains('<')), "{points:?}");
    assert_eq!(blocks(&page, "chart-words").len(), 1);
    insta::assert_snapshot!(
        "live_chart_blocks",
        format!(
            "{}\n{}\n{}",
            blocks(&page, "chart-words")[0],
            points[0],
            points[1]
        )
    );

    let csv = String::from_utf8(read(dir.path().join("out/live/summary.csv"))).unwrap();
    let wait: serde_json::Value = serde_json::from_str(points[0]).unwrap();
    assert_eq!(wait["x"], "clients </script><b>");
    let series = wait["s"].as_array().unwrap();
    // Two data series (service_ms 5, then 7) and their two theory lines.
    assert_eq!(series.len(), 4, "{wait}");
    let raw = raw_points(points[0]);
    for (i, service_ms) in [(0, 5.0), (1, 7.0)] {
        assert_eq!(raw[i].len(), 2);
        for point in &raw[i] {
            let at = |column: &str| summary(&csv, point[0], service_ms, column);
            assert_eq!(point.len(), 8, "{point:?}");
            assert_eq!(point[1], at("mean_wait_ms_mean"));
            assert_eq!(point[6], at("mean_wait_ms_ci95_lo"));
            assert_eq!(point[7], at("mean_wait_ms_ci95_hi"));
            // Drawn in both renderings, inside each.
            for (k, size) in [(2, &wait["w"]), (4, &wait["n"])] {
                let (width, height) = (size[0].as_f64().unwrap(), size[1].as_f64().unwrap());
                assert!(point[k] > 0.0 && point[k] < width, "{point:?}");
                assert!(point[k + 1] > 0.0 && point[k + 1] < height, "{point:?}");
            }
        }
    }
    // The theory line, service_ms / 2, at the data's x values only (2 and 4).
    for (i, half) in [(2, 2.5), (3, 3.5)] {
        assert_eq!(series[i]["r"], 1);
        let p = series[i]["p"].as_array().unwrap();
        let xs: Vec<f64> = p.iter().map(|q| q[0].as_f64().unwrap()).collect();
        assert_eq!(xs, [2.0, 4.0], "{}", series[i]);
        assert!(p.iter().all(|q| q[1].as_f64() == Some(half)));
    }
    // The bars: capacity 1000 / service_ms, 200 and 142.857… per second, no interval (a
    // bar chart draws none).
    let bars: serde_json::Value = serde_json::from_str(points[1]).unwrap();
    assert_eq!(bars["bar"], 1);
    let raw = raw_points(points[1]);
    for (i, capacity) in [(0, 200.0), (1, 1000.0 / 7.0)] {
        assert!(
            raw[i].iter().all(|q| q.len() == 6 && q[1] == capacity),
            "{raw:?}"
        );
    }

    let plain = String::from_utf8(read(dir.path().join("out/site/config-plain.html"))).unwrap();
    assert!(
        !plain.contains("application/json"),
        "a runs cdf has no points"
    );
    assert!(!plain.contains("class=\"live\""));
}
