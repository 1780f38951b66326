//! `token-bucket-coordsim`: the standard coordsim command line with one model more.
//!
//! ```sh
//! cargo run -- models token_bucket
//! cargo run -- check configs/token-bucket.toml
//! ```

fn main() -> std::process::ExitCode {
    // The eight built-in models, plus ours: every command (run, check, report, merge,
    // models) now knows `token_bucket`.
    coordsim::main_with(coordsim_models::registry().with(token_bucket_coordsim::TokenBucket))
}
