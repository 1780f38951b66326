use coordsim_model::{Millis, Model, PerEntity, RunContext, Valid};
use coordsim_models::{idempotency, lock_queue, scenario_fit};
fn main() {
    let which = std::env::args().nth(1).unwrap();
    let n: u64 = std::env::args().nth(2).unwrap().parse().unwrap();
    let ctx = RunContext::new(0, Default::default());
    let t = std::time::Instant::now();
    match which.as_str() {
        "lock" => {
            let p = lock_queue::Params {
                appliers: n,
                start_ms: PerEntity::Each((0..n).map(|i| Millis::lit(i as f64 / 0.9)).collect()),
                hold_ms: PerEntity::All(Millis::lit(1.0)),
                poll_ms: Millis::lit(0.25),
                give_up_after_ms: Millis::lit(1e9),
                ..Default::default()
            };
            let p = Valid::check(&lock_queue::LockQueue, p).unwrap();
            let t = std::time::Instant::now();
            let o = lock_queue::LockQueue.run(&p, &ctx).unwrap();
            eprintln!("run {:.3}", t.elapsed().as_secs_f64());
            std::hint::black_box(o);
        }
        "idem" => {
            let p = idempotency::Params {
                form: idempotency::Form::Consumer,
                deliveries: (0..n).map(|i| i / 2).collect(),
                ..Default::default()
            };
            let p = Valid::check(&idempotency::Idempotency, p).unwrap();
            let t = std::time::Instant::now();
            let o = idempotency::Idempotency.run(&p, &ctx).unwrap();
            eprintln!("run {:.3}", t.elapsed().as_secs_f64());
            std::hint::black_box(o);
        }
        _ => {
            let p = scenario_fit::Params {
                horizon_ms: Millis::lit(n as f64),
                ..Default::default()
            };
            let p = Valid::check(&scenario_fit::ScenarioFit, p).unwrap();
            let t = std::time::Instant::now();
            let o = scenario_fit::ScenarioFit.run(&p, &ctx).unwrap();
            eprintln!("run {:.3}", t.elapsed().as_secs_f64());
            std::hint::black_box(o);
        }
    }
    let _ = t;
}
