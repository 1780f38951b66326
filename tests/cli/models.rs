//! Models through the front end: listings, custom models, entity-less runs, statistics, distributions.

use crate::harness::*;

#[test]
fn models_describes_parameters_and_metrics() {
    let out = coordsim(&["models", "single_writer_queue"]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("models_single_writer_queue", stdout(&out));
}

/// The front end as a library over a registry of a stranger's model: parse, run, check.
mod custom_models {
    use coordsim::config::Config;
    use coordsim_model::{
        ChartKind, DefaultChart, Model, ModelError, NoEntity, Output, ParamError, Registry,
        RunContext, Valid, columns, params,
    };

    params! {
        /// Parameters of `doubler`.
        pub struct Params {
            /// the input
            x: u64 = 2,
        }
    }
    columns! {
        /// Metrics of `doubler`.
        pub struct Metrics {
            /// 2 × x, computed by an event on the engine
            doubled: u64,
        }
    }

    /// Doubles `x` in one event, with default charts given at construction.
    struct Doubler(Vec<DefaultChart>);

    impl Model for Doubler {
        type Params = Params;
        type Metrics = Metrics;
        type Entity = NoEntity;
        fn name(&self) -> &'static str {
            "doubler"
        }
        fn summary(&self) -> &'static str {
            "doubles x"
        }
        fn charts(&self) -> Vec<DefaultChart> {
            self.0.clone()
        }
        fn validate(&self, p: &Params) -> Result<(), ParamError> {
            if p.x > 1000 {
                return Err(ParamError::new("x", "must be at most 1000"));
            }
            Ok(())
        }
        fn run(
            &self,
            p: &Valid<Params>,
            ctx: &RunContext,
        ) -> Result<Output<Metrics, NoEntity>, ModelError> {
            struct Double(u64);
            impl sim_core::Handler<u64> for Double {
                fn handle(
                    &mut self,
                    x: u64,
                    _: &mut sim_core::EventQueue<u64>,
                ) -> Result<(), sim_core::SimError> {
                    self.0 = 2 * x;
                    Ok(())
                }
            }
            let mut queue = ctx.queue(1);
            queue.schedule_at(0, 0, p.x);
            let mut sim = Double(0);
            sim_core::run(&mut queue, &mut sim)?;
            Ok(Output::new(Metrics { doubled: sim.0 }))
        }
    }

    /// Runs of `failer` started so far (one test uses it).
    static FAILER_RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// Fails its run when `x` is 0; counts every run it starts.
    struct Failer;

    impl Model for Failer {
        type Params = Params;
        type Metrics = Metrics;
        type Entity = NoEntity;
        fn name(&self) -> &'static str {
            "failer"
        }
        fn summary(&self) -> &'static str {
            "fails at x = 0"
        }
        fn validate(&self, _: &Params) -> Result<(), ParamError> {
            Ok(())
        }
        fn run(
            &self,
            p: &Valid<Params>,
            _: &RunContext,
        ) -> Result<Output<Metrics, NoEntity>, ModelError> {
            FAILER_RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if p.x == 0 {
                return Err(ModelError::Sim(sim_core::SimError::Model("x is 0".into())));
            }
            Ok(Output::new(Metrics { doubled: 2 * p.x }))
        }
    }

    #[test]
    fn a_sweep_stops_at_its_first_failed_run_and_reports_it() {
        let registry = crate::harness::registry().with(Failer);
        // 100 points, the first fails: on one thread nothing after it runs.
        let config = parse(
            &registry,
            "model = \"failer\"\n[sweep]\nx = { from = 0, to = 99, step = 1 }\n",
        )
        .unwrap();
        let options = |jobs| coordsim::runner::RunOptions {
            jobs,
            seed: None,
            shard: None,
            progress: false,
            ties: sim_core::Ties::Fifo,
        };
        let e = coordsim::runner::run(&config, &options(1))
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            FAILER_RUNS.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "{e}"
        );
        assert!(e.contains("point 0") && e.contains("x is 0"), "{e}");
        // On 4 threads the same (lowest) point is reported.
        let e4 = coordsim::runner::run(&config, &options(4))
            .err()
            .unwrap()
            .to_string();
        assert_eq!(e4, e);
    }

    fn parse(registry: &Registry, text: &str) -> Result<Config, coordsim::source::ConfigError> {
        super::library_config(registry, "d.toml", text)
    }

    #[test]
    fn a_model_from_outside_runs_sweeps_and_checks_its_claims() {
        let chart = DefaultChart::new("doubled", ChartKind::Line, "x", &["doubled"]);
        let registry = crate::harness::registry().with(Doubler(vec![chart]));
        // x = 1, 5, 9: doubled = 2, 10, 18, so "2 * x" holds at every point and 10 at x = 5.
        let config = parse(
            &registry,
            "model = \"doubler\"\n[sweep]\nx = { from = 1, to = 9, step = 4 }\n[[claim]]\nmetric = \"doubled\"\nexpect = \"2 * x\"\n[[claim]]\nwhere = { x = 5 }\nmetric = \"doubled\"\nexpect = 11\n",
        )
        .unwrap();
        let results = super::library_run(&config);
        assert_eq!(results.results.rows.len(), 3);
        let verdicts = coordsim::check::evaluate(&config, &results).unwrap();
        assert!(verdicts[0].pass, "{}", verdicts[0].line);
        assert!(!verdicts[1].pass, "{}", verdicts[1].line);
        assert!(
            verdicts[1].line.contains("doubled = 10"),
            "{}",
            verdicts[1].line
        );
        // Validation happens once, at load, and points at the bad value.
        let e = parse(&registry, "model = \"doubler\"\n[params]\nx = 5000\n").unwrap_err();
        assert_eq!(e.location, "d.toml:3:5");
    }

    #[test]
    fn a_bad_default_chart_is_a_load_error_naming_it_never_an_empty_chart() {
        let cases = [
            (
                DefaultChart::new("typo", ChartKind::Line, "x", &["doubeld"]),
                "unknown metric `doubeld`",
            ),
            (
                DefaultChart::new("no-x", ChartKind::Bar, "", &["doubled"]),
                "needs `x`",
            ),
            (
                DefaultChart::timeline("lanes"),
                "doubler records no timeline",
            ),
            (
                DefaultChart::new("bad name", ChartKind::Line, "x", &["doubled"]),
                "a chart `name` is a file name",
            ),
            (
                DefaultChart::new("m", ChartKind::Line, "x", &["doubled"]).mark_x("nope"),
                "unknown metric `nope`",
            ),
        ];
        for (chart, needle) in cases {
            let name = chart.name;
            let registry = Registry::new().with(Doubler(vec![chart]));
            let e = parse(&registry, "model = \"doubler\"\n").unwrap_err();
            assert_eq!(e.location, "d.toml:1:9", "{name}");
            assert!(
                e.message
                    .contains(&format!("the default chart `{name}` of doubler")),
                "{}",
                e.message
            );
            assert!(e.message.contains(needle), "{name}: {}", e.message);
        }
    }

    #[test]
    fn every_built_in_default_chart_passes_the_checks() {
        let registry = crate::harness::registry();
        for model in registry.models() {
            let config = parse(&registry, &format!("model = \"{}\"\n", model.name()))
                .unwrap_or_else(|e| panic!("{}: {e}", model.name()));
            assert_eq!(
                config.charts.len(),
                model.charts().len(),
                "{}",
                model.name()
            );
        }
    }
}

/// The front end names no model: no model's name, and none of its parameter, column,
/// timeline-kind or distribution identifiers (the names with a `_`, which no English word
/// has), appears in `src/`. The models are the binary's: the built-in ones, and for each
/// composer the model its starter config composes (a scenario's `lock_wait_ms`, `tie_order`).
#[test]
fn the_front_end_names_no_model() {
    let registry = crate::harness::registry();
    assert!(
        registry.composer("scenario").is_some(),
        "the binary's registry composes scenarios"
    );
    let mut models: Vec<std::sync::Arc<dyn coordsim_model::ModelDef>> = registry.models().to_vec();
    for composer in registry.composers() {
        let starter = library_config(&registry, "starter.toml", composer.starter())
            .unwrap_or_else(|e| panic!("{}'s starter: {e}", composer.name()));
        models.push(std::sync::Arc::clone(&starter.plan.model));
    }
    let mut names: Vec<&str> = Vec::new();
    for m in &models {
        names.push(m.name());
        names.extend(m.params().iter().map(|p| p.key));
        names.extend(m.metrics().iter().map(|c| c.name));
        names.extend(m.entity_columns().iter().map(|c| c.name));
        names.extend(m.distributions().iter().map(|d| d.name));
        if let Some(style) = m.timeline() {
            names.extend(style.spans.iter().map(|s| s.name));
            names.extend(style.marks.iter().map(|k| k.name));
        }
    }
    names.retain(|n| n.contains('_'));
    assert!(names.len() > 100, "{names:?}");
    let word_at = |text: &str, i: usize, len: usize| {
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(text[..i].chars().next_back()) && !ident(text[i + len..].chars().next())
    };
    for file in list_files(&root().join("src")) {
        let text = String::from_utf8(read(root().join("src").join(&file))).unwrap();
        for name in &names {
            let found = text
                .match_indices(name)
                .any(|(i, _)| word_at(&text, i, name.len()));
            assert!(!found, "src/{file} names `{name}`, a model's");
        }
    }
}

/// Leaving entity rows out (`entities = false`) changes no metric of any model: the models
/// count what their metrics need as they go, and only skip building the rows.
#[test]
fn every_model_reports_the_same_metrics_without_its_entity_rows() {
    use coordsim_model::RunContext;
    let registry = crate::harness::registry();
    for model in registry.models() {
        let values: Vec<_> = model.params().iter().map(|p| (p.default)()).collect();
        let plan = model.prepare(&values).unwrap();
        let ctx = RunContext::new(3, Default::default());
        let with = plan.run(&ctx).unwrap();
        let without = plan.run(&ctx.with_entities(false)).unwrap();
        assert_eq!(with.metrics, without.metrics, "{}", model.name());
        assert!(without.entities.is_empty(), "{}", model.name());
        assert_eq!(
            with.entities.is_empty(),
            model.entity_columns().is_empty(),
            "{}",
            model.name()
        );
    }
}

/// `stats = "hdr"`: the same run, mean and max exact, percentiles within 0.1% (never below).
#[test]
fn hdr_statistics_bound_the_exact_percentiles_of_the_same_run() {
    let registry = crate::harness::registry();
    let text = |stats: &str| {
        format!(
            "model = \"single_writer_queue\"\nstats = \"{stats}\"\n[params]\nclients = 4\nrequests_per_client = 25000\narrivals = \"poisson\"\nservice = \"exponential\"\n[sweep]\nservice_ms = [4, 8]\n"
        )
    };
    let run = |stats: &str| {
        let config = library_config(&registry, "h.toml", &text(stats)).unwrap();
        library_run(&config).results
    };
    let (exact, hdr) = (run("exact"), run("hdr"));
    let value = |t: &coordsim::results::Table, row: usize, name: &str| {
        t.rows[row][t.column(name).unwrap()].as_f64().unwrap()
    };
    for row in 0..2 {
        for exact_metric in ["mean_wait_ms", "max_wait_ms", "requests", "max_queue_len"] {
            assert_eq!(
                value(&exact, row, exact_metric),
                value(&hdr, row, exact_metric)
            );
        }
        for p in ["p50_wait_ms", "p95_wait_ms", "p99_wait_ms"] {
            let (e, h) = (value(&exact, row, p), value(&hdr, row, p));
            assert!(h >= e && h <= e * 1.001 + 1e-6, "{p}: exact {e}, hdr {h}");
            assert!(
                p == "p50_wait_ms" || e > 0.0,
                "{p} is 0: the check would be empty"
            );
        }
    }
    // A misspelt mode is a positioned error naming the valid ones.
    let e = library_config(&registry, "h.toml", &text("fast")).unwrap_err();
    assert_eq!(e.location, "h.toml:2:9");
    assert!(e.message.contains("\"hdr\""), "{}", e.message);
}

#[test]
fn models_hand_their_per_request_samples_to_distribution_charts() {
    // Each model's distribution, pooled over replications: the queue's waits (3 × 200
    // requests) and the edge placement's responses (the lesson's 10,000 requests, 2 runs).
    let registry = crate::harness::registry();
    for (text, name, n) in [
        (
            "model = \"single_writer_queue\"\nreplications = 3\n[params]\nclients = 2\nrequests_per_client = 100\n[[chart]]\nname = \"c\"\nkind = \"cdf\"\ny = \"wait_ms\"\n",
            "wait_ms",
            600,
        ),
        (
            "model = \"edge_placement\"\nreplications = 2\n[[chart]]\nname = \"c\"\nkind = \"histogram\"\ny = \"response_ms\"\n",
            "response_ms",
            20_000,
        ),
    ] {
        let config = library_config(&registry, "d.toml", text).unwrap();
        let results = library_run(&config);
        assert_eq!(results.distributions.len(), 1, "{name}");
        let (point, got, samples) = &results.distributions[0];
        assert_eq!((*point, *got, samples.len()), (0, name, n));
        assert!(samples.iter().all(|v| v.is_finite() && *v >= 0.0));
        // Without such a chart, no samples are kept.
        let plain = text.split("[[chart]]").next().unwrap();
        let config = library_config(&registry, "d.toml", plain).unwrap();
        assert!(library_run(&config).distributions.is_empty(), "{name}");
    }
}
