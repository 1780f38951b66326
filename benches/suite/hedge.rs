//! Hedged requests against plain ones (`hedge`): 1M repetitions of one client in a closed
//! loop at a replica of exponential service (mean 10 ms), each at an instance of its own.
//! Plain: one request at A. Hedged:
//! a `parallel` of the request at A and, after 30 ms (the service's p95), the same at B, the
//! first answer taken and the other copy cancelled. The target: the hedged run within 1.5×
//! the plain one's time; the peak memory of both, and the hedged run's p99 against the
//! closed form (m ln 100 + d) / 2.

use coordsim_model::RunContext;
use sim_core::Limits;

use crate::measure::{Measured, mib, paired, verdict};
use crate::plan::scenario_plan;

const N: u64 = 1_000_000;

/// The config of one client: `Plain`, `Timer` (a plain request with a timeout, which has a
/// timer as the hedge has: an event that fires even when nothing is left for it) or `Hedged`.
#[derive(Clone, Copy)]
enum Form {
    Plain,
    Timer,
    Hedged,
}

fn config(form: Form) -> String {
    let steps = match form {
        Form::Hedged => {
            "[{ parallel = [[{ request = \"A\", instance = \"k\" }], [{ delay_ms = 30 }, { request = \"B\", instance = \"k\" }]], wait = \"first\" }]"
        }
        Form::Timer => "[{ request = \"A\", instance = \"k\", timeout_ms = 1000 }]",
        Form::Plain => "[{ request = \"A\", instance = \"k\" }]",
    };
    format!(
        "model = \"scenario\"\nentities = false\n\
         [[resource]]\nname = \"A\"\nkind = \"server\"\nservice_ms = 10\nservice = \"exponential\"\ninstances = 5000\n\
         [[resource]]\nname = \"B\"\nkind = \"server\"\nservice_ms = 10\nservice = \"exponential\"\ninstances = 5000\n\
         [[actor]]\nname = \"c\"\nrepeat = {N}\nsteps = {steps}\n"
    )
}

/// One run of one form, for a profiler (`SUITE_PROFILE=hedge-plain`, `hedge-timer`,
/// `hedge-hedged`): 1M repetitions, as the suite runs them.
pub(crate) fn profile_once(form: &str) {
    let form = match form {
        "hedge-plain" => Form::Plain,
        "hedge-timer" => Form::Timer,
        _ => Form::Hedged,
    };
    let (plan, _) = scenario_plan("profiled.toml", config(form));
    let ctx = RunContext::new(0, Limits::default()).with_entities(false);
    plan.run(&ctx).expect("the run");
}

pub(crate) fn hedge_jobs() {
    let (plain, _) = scenario_plan("plain.toml", config(Form::Plain));
    let (timer, _) = scenario_plan("timer.toml", config(Form::Timer));
    let (hedged, columns) = scenario_plan("hedged.toml", config(Form::Hedged));
    let ctx = RunContext::new(0, Limits::default()).with_entities(false);
    let (h, p, ratio, out, _) = paired(
        5,
        || hedged.run(&ctx).expect("the hedged run"),
        || plain.run(&ctx).expect("the plain run"),
    );
    let (_, t, timer_ratio, _, _) = paired(
        5,
        || hedged.run(&ctx).expect("the hedged run"),
        || timer.run(&ctx).expect("the timed run"),
    );
    let cell = |name: &str| {
        let i = columns.iter().position(|c| *c == name).expect("a metric");
        out.metrics[i].as_f64().expect("a number")
    };
    // One client in a closed loop, each repetition at an instance of its own (`k` modulo
    // 5,000): nothing queues, not even behind a cancelled copy still in service, so the
    // closed form holds.
    let p99 = cell("c.p99_response_ms");
    let theory = (10.0 * 100f64.ln() + 30.0) / 2.0;
    let rate = |m: &Measured| N as f64 / m.seconds / 1e6;
    let slower = 1.0 / ratio;
    println!(
        "{:<44} {:>8.2} M requests/s  plain {:>7.2} M/s  time {slower:>5.2}× plain (target ≤ 1.5: {})  peak {:>7.1} MiB vs {:>7.1} MiB  p99 {p99:.2} ms (closed form {theory:.2})",
        "scenario hedge, 1M requests, d = 30 ms",
        rate(&h),
        rate(&p),
        verdict(slower <= 1.5),
        mib(h.peak_bytes),
        mib(p.peak_bytes),
    );
    println!(
        "{:<44} {:>8.2} M requests/s  time {:>5.2}× plain; the hedged run {:.2}× this one",
        "  the same requests, each with a timeout",
        rate(&t),
        p.seconds.max(1e-12).recip() * t.seconds,
        1.0 / timer_ratio,
    );
}
