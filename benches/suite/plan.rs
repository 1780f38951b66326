//! A scenario config made ready to run, for the sections that time one.

/// A scenario config's one point, ready to run, and its metric columns. The composer is a
/// crate of its own, joined to the models as the binary does.
pub(crate) fn scenario_plan(
    name: &str,
    text: String,
) -> (Box<dyn coordsim_model::PreparedRun>, Vec<&'static str>) {
    let registry = coordsim_models::registry().with_composer(coordsim_scenario::Scenario);
    let config = coordsim::config::Config::parse(
        coordsim::source::Source {
            name: name.into(),
            text,
        },
        &registry,
    )
    .expect("the scenario config loads");
    let mut plan = config.plan;
    let columns = plan.model.metrics().iter().map(|c| c.name).collect();
    (plan.plans.swap_remove(0), columns)
}
