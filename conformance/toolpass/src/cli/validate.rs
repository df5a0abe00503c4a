//! `toolpass validate`: loads every scenario and reports every problem,
//! without running anything.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use toolpass::report::text::counted;

use super::scenarios::{self, ScenarioDirs};

#[derive(Debug, Args)]
pub(super) struct ValidateArgs {
    #[command(flatten)]
    dirs: ScenarioDirs,
}

pub(super) fn run(args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    args.dirs.announce_builtin()?;
    match scenarios::load(&args.dirs)? {
        Ok(suite) => {
            writeln!(
                std::io::stdout(),
                "{} OK",
                counted(suite.scenarios.len(), "scenario", "scenarios")
            )
            .context("failed to write to stdout")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => {
            super::report_load_errors(&errors)?;
            Ok(ExitCode::from(1))
        }
    }
}
