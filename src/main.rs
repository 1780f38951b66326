//! `coordsim`: the command line over the built-in models and the scenario composer.
//! Everything but the choice of models is the `coordsim` library; a crate with models of its
//! own builds the same binary with
//! `coordsim::main_with(coordsim_models::registry().with_composer(coordsim_scenario::Scenario).with(MyModel))`.

/// mimalloc instead of the system allocator: runs that build millions of rows spend no time
/// in the system allocator's page-fault churn (the suite's doubling ratios, docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // The eight built-in models, then `model = "scenario"` (configs that compose their own).
    coordsim::main_with(coordsim_models::registry().with_composer(coordsim_scenario::Scenario))
}
