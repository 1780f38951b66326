//! `coordsim`: the command line over the built-in models. Everything but the choice of
//! models is the `coordsim` library; a crate with models of its own builds the same binary
//! with `coordsim::main_with(coordsim_models::registry().with(MyModel))`.

fn main() -> std::process::ExitCode {
    coordsim::main_with(coordsim_models::registry())
}
