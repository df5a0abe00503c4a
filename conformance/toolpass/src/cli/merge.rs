//! `toolpass merge SHARD.jsonl...`: the `--jsonl` reports of a run's shards
//! (`run --partition hash:K/N`) joined into the one run they split, with
//! the text report, `--jsonl`, `--junit` and `--markdown` a single run
//! writes, and its exit code: 0 when the run passes, 1 when it fails, 2 when
//! a report cannot be read or the reports are not the shards of one run.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use toolpass::report::read;
use toolpass::report::text::{counted, printable_line};

use super::reports::ReportArgs;

#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// The shards' reports (`toolpass run --partition hash:K/N --jsonl
    /// FILE`), every shard of N once, in any order.
    #[arg(required = true, value_name = "SHARD.jsonl")]
    shards: Vec<PathBuf>,
    #[command(flatten)]
    reports: ReportArgs,
}

pub(super) fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    args.reports.check()?;
    let reports = args
        .shards
        .iter()
        .map(|path| read::read(path))
        .collect::<Result<Vec<_>, _>>()?;
    let merged = toolpass::merge::merge(reports).map_err(anyhow::Error::msg)?;
    #[allow(clippy::print_stderr)] // The run's header, as `run` prints its own.
    {
        let implementation = &merged.info.implementation;
        eprintln!(
            "toolpass: merged {} of {} {} ({})",
            counted(args.shards.len(), "shard", "shards"),
            printable_line(&implementation.name),
            printable_line(&implementation.version),
            printable_line(&implementation.command)
        );
    }
    let profile = merged.info.config.filters.profile;
    args.reports
        .write_text(&merged.results, &merged.summary, profile)?;
    args.reports
        .write(&merged.info, &merged.results, &merged.summary)?;
    Ok(if merged.summary.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
