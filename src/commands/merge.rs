//! `coordsim merge`: the shards of a run or of an exploration joined into one.

use std::io::Write;
use std::process::ExitCode;

use coordsim_model::Registry;

use super::cli::MergeArgs;
use crate::check::dashboard::Format;

use super::common::{finish, note_written};
use super::explore::write_exploration;

/// `merge OUT SHARD_DIR...` of the shards of an exploration: the parts joined, the claims
/// over executions judged on the whole, and the outputs `explore` writes, into `OUT`.
/// `coordsim merge OUT SHARD_DIR...`: the shards of a run, or of an exploration.
pub(super) fn merge(args: MergeArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    if crate::shard::explore::are_explore_shards(&args.shards) {
        return merge_exploration(args, registry);
    }
    crate::shard::merge::merge(&args.out, &args.shards, registry)?;
    Ok(ExitCode::SUCCESS)
}

fn merge_exploration(args: MergeArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    crate::shard::merge::refuse_out_among_shards(&args.out, &args.shards)?;
    let (mut config, explored) = crate::shard::explore::read_merged(&args.shards, registry)?;
    let staging = crate::export::in_place::InPlace::begin(&args.out)?;
    let (verdicts, text) = write_exploration(&mut config, &explored, &staging.path())?;
    let dir = staging.commit()?;
    note_written(&dir);
    writeln!(crate::print::stdout(), "{text}\nwrote {}\n", dir.display())?;
    finish(Format::Text, &verdicts, &[])
}
