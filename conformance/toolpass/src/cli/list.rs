//! `toolpass list`: the scenarios a run with the same flags would take,
//! one `id  level  title` line each; or, with `--by-spec`, the clauses of
//! the specification and the scenarios citing each.

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
    /// List the clauses of SPEC.md (and any --spec file) instead, in
    /// order, each with its strength, safety mark and the selected
    /// scenarios citing it (id and level); clauses with none are marked.
    #[arg(long)]
    by_spec: bool,
}

pub(super) fn run(args: &ListArgs) -> anyhow::Result<ExitCode> {
    args.dirs.announce_builtin()?;
    let suite = match scenarios::select_suite(&args.dirs, &args.filter)? {
        Ok(suite) => suite,
        Err(code) => return Ok(code),
    };
    let mut stdout = std::io::stdout().lock();
    if args.by_spec {
        let coverage = suite.clauses.coverage(&suite.scenarios);
        write!(stdout, "{}", toolpass::spec::by_spec(&coverage))
            .context("failed to write to stdout")?;
        return Ok(ExitCode::SUCCESS);
    }
    let scenarios = suite.scenarios;
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
