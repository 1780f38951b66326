//! A config page's Parameters table: a derived parameter (`{ expr = "…" }`) shows the
//! values its points used, never the model's default.

use std::path::Path;

use crate::harness::{coordsim_in, root, stderr};

/// `coordsim report` of `configs` (name, text) in a course folder: each config's page.
fn pages(configs: &[(&str, &str)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("configs")).unwrap();
    std::fs::create_dir_all(dir.path().join("lessons")).unwrap();
    for (name, text) in configs {
        std::fs::write(dir.path().join("configs").join(name), text).unwrap();
    }
    let o = coordsim_in(dir.path(), &["report", "--out", "out", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    configs
        .iter()
        .map(|(name, _)| page(dir.path(), name))
        .collect()
}

fn page(dir: &Path, name: &str) -> String {
    let stem = name.trim_end_matches(".toml");
    std::fs::read_to_string(dir.join(format!("out/site/config-{stem}.html"))).unwrap()
}

/// The row of `key` in a page's Parameters table.
fn row<'a>(page: &'a str, key: &str) -> &'a str {
    let start = page
        .find(&format!("<tr><td><code>{key}</code></td>"))
        .unwrap_or_else(|| panic!("a row for {key} in {page}"));
    let end = start + page[start..].find("</tr>").unwrap();
    &page[start..end]
}

/// `configs/md1-rho-sweep.toml` derives `interarrival_ms = service_ms / rho` with
/// service_ms = 6 and rho swept over 0.3, 0.5, 0.7: by hand 6 / 0.3 = 20, 6 / 0.5 = 12,
/// 6 / 0.7 = 8.571… (8.57 rounded as the table rounds, two decimals from 1 up). The model's
/// default, 40 ms, was used by no point and is not shown.
#[test]
fn a_derived_parameter_shows_what_each_point_used() {
    let text = std::fs::read_to_string(root().join("configs/md1-rho-sweep.toml")).unwrap();
    let pages = pages(&[("md1-rho-sweep.toml", &text)]);
    let row = row(&pages[0], "interarrival_ms");
    assert!(
        row.contains(
            "<td class=\"derived\"><code>service_ms / rho</code>; at the points in order: 20, 12, 8.57</td>"
        ),
        "{row}"
    );
    assert!(!row.contains("40"), "{row}");
}

/// A derived parameter every point gives the same value shows that value once: 6 / 0.4 =
/// 15 here (the default is 40), and 6 / 0.8 = 7.5 on a Turkish page, with its decimal
/// comma and its words in Turkish when the values differ (6 / 0.5 = 12, 6 / 0.75 = 8).
#[test]
fn a_derived_parameter_with_one_value_shows_it_in_the_pages_locale() {
    let queue = |locale: &str, params: &str, sweep: &str| {
        format!(
            "model = \"single_writer_queue\"\nlocale = \"{locale}\"\n[vars]\nrho = \"load\"\n[params]\nrequests_per_client = 10\nservice_ms = 6\n{params}\n[sweep]\n{sweep}\n"
        )
    };
    let pages = pages(&[
        (
            "one.toml",
            &queue(
                "en",
                "interarrival_ms = { expr = \"service_ms / 0.4\" }",
                "rho = [0.5, 0.75]",
            ),
        ),
        (
            "one-tr.toml",
            &queue(
                "tr",
                "interarrival_ms = { expr = \"service_ms / 0.8\" }",
                "rho = [0.5]",
            ),
        ),
        (
            "swept-tr.toml",
            &queue(
                "tr",
                "interarrival_ms = { expr = \"service_ms / rho\" }",
                "rho = [0.5, 0.75]",
            ),
        ),
    ]);
    let rows: Vec<&str> = pages.iter().map(|p| row(p, "interarrival_ms")).collect();
    assert!(
        rows[0].contains("<td class=\"derived\"><code>service_ms / 0.4</code> = 15</td>"),
        "{}",
        rows[0]
    );
    assert!(
        rows[1].contains("<td class=\"derived\"><code>service_ms / 0.8</code> = 7,5</td>"),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].contains(
            "<td class=\"derived\"><code>service_ms / rho</code>; noktalarda sırasıyla: 12, 8</td>"
        ),
        "{}",
        rows[2]
    );
}
