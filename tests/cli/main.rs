//! End-to-end tests of the `coordsim` binary, run as a user would run it: one test binary,
//! one feature file per area.

mod harness;

mod bilingual;
mod charts;
mod claims;
mod config;
mod counterexamples;
mod cycles;
mod cycles_cases;
mod cycles_property;
mod docs;
mod embed;
mod exact_cdf;
mod expectations;
mod explore;
mod explore_jobs;
mod explore_memory;
mod explore_refusals;
mod explore_shards;
mod flat_engine;
mod fuzz;
mod fuzz_scenarios;
mod lesson_explorer;
mod lessons;
mod lessons_explored;
mod lessons_schedulers;
mod locales;
mod log_axes;
mod models;
mod outputs;
mod play;
mod reliability;
mod scenarios;
mod scheduler_paths;
mod schedulers;
mod shards;
mod site;
mod site_live;
mod site_params;
mod spill;
mod structure;
mod symmetry;
mod trace_drawers;
mod traces;
mod watches;
