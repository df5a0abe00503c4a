//! `toolpass list`: the scenarios a run with the same flags would take,
//! one `id  level  title` line each.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use toolpass::report::text::printable_line;

use super::filter::FilterArgs;
use super::scenarios::{self, ScenarioDirs};

#[derive(Debug, Args)]
pub(super) struct ListArgs {
    #[command(flatten)]
    dirs: ScenarioDirs,
    #[command(flatten)]
    filter: FilterArgs,
}

pub(super) fn run(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let scenarios = match scenarios::select(&args.dirs, &args.filter)? {
        Ok(scenarios) => scenarios,
        Err(code) => return Ok(code),
    };
    let mut stdout = std::io::stdout().lock();
    for scenario in &scenarios {
        // Ids are file names and titles a file's text: either may hold
        // terminal escapes.
        writeln!(
            stdout,
            "{}  {}  {}",
            printable_line(&scenario.id),
            scenario.level.value.as_str(),
            printable_line(&scenario.title.value)
        )
        .context("failed to write to stdout")?;
    }
    Ok(ExitCode::SUCCESS)
}
