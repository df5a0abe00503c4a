//! The subcommands and their flags (clap derive), and the dispatch from a
//! parsed command line to the code that carries it out.
//!
//! Exit codes: 0 success, 1 the input is wrong (a scenario fails to load),
//! 2 the runner itself could not do what was asked.

mod filter;
mod list;
mod scenarios;
mod schema;
mod validate;

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;

use clap::{Parser, Subcommand};

/// The toolpass conformance runner: replays YAML scenarios against any
/// toolpass/1 implementation.
#[derive(Debug, Parser)]
#[command(name = "toolpass", version)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a JSON Schema: the scenario file format, or the protocol's
    /// messages.
    Schema(schema::SchemaArgs),
    /// Load and check every scenario; report each problem as
    /// `path:line:column: message` and exit 1 if there is any.
    Validate(validate::ValidateArgs),
    /// List the scenarios the filters select: `id  level  title` per line.
    List(list::ListArgs),
    /// Run scenarios against an implementation (not implemented yet).
    Run {
        /// The runner's flags arrive with it (issue 5). Until then any are
        /// taken, so `just conformance --filter ...` gets the honest refusal
        /// below rather than a complaint about a flag.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        _later: Vec<String>,
    },
}

/// Carries out the parsed command; the exit code on success, or the
/// failure to report (exit 2).
pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Schema(args) => schema::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::List(args) => list::run(&args),
        Command::Run { .. } => Ok(not_implemented()),
    }
}

/// `toolpass run` refuses rather than report a result it did not compute.
fn not_implemented() -> ExitCode {
    #[allow(clippy::print_stderr)] // The whole answer is this message.
    {
        eprintln!("toolpass run: not implemented yet: the runner lands with issue 5");
    }
    ExitCode::from(2)
}

/// One problem per line on stderr, for editors and CI logs to jump to.
fn report_load_errors(errors: &[String]) -> anyhow::Result<()> {
    let mut stderr = std::io::stderr().lock();
    for error in errors {
        writeln!(stderr, "{error}").context("failed to write to stderr")?;
    }
    Ok(())
}
