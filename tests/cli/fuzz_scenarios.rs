//! The grammar-based scenario fuzzer: random valid-looking `model = "scenario"` configs that
//! use every resource and step the language has (docs/scenarios.md) never panic, abort or
//! hang.

use crate::harness::{library_config, library_run, registry};

/// Found by the generator: a request served before its timeout left the timer armed, and
/// when it fired while a later request without a timeout waited at the same server, the
/// run stopped with an internal error (here at 20 ms, the first request's deadline, as the
/// second is served and the third waits).
#[test]
fn a_request_served_in_time_leaves_no_timer_for_a_later_request() {
    let text = r#"model = "scenario"
[[resource]]
name = "s"
kind = "server"
service_ms = 10
[[actor]]
name = "a"
steps = [{ request = "s", timeout_ms = 20 }, { request = "s" }, { request = "s" }]
"#;
    let config = library_config(&registry(), "t.toml", text).unwrap();
    // It runs (the timer used to stop it at 20 ms) and completes with no timeout.
    let table = library_run(&config).results;
    let cell = |name: &str| table.rows[0][table.column(name).unwrap()].clone();
    assert_eq!(cell("a.completed"), coordsim_model::Cell::Count(1));
    assert_eq!(cell("a.timeouts"), coordsim_model::Cell::Count(0));
}
