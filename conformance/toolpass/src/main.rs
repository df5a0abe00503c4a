//! `toolpass`: the conformance runner's command line.
//!
//! Argument parsing comes first and does no work of its own, so `--help`
//! and a mistyped flag answer at once; each subcommand lives in `cli/`.

mod cli;

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    // Descendants of an implementation that leave its process group become
    // the runner's to end (a kernel without subreapers only loses that).
    let _ = toolpass::reaper::become_subreaper();
    let outcome = cli::run(args);
    toolpass::reaper::end_all_descendants();
    match outcome {
        Ok(code) => code,
        Err(e) => {
            #[allow(clippy::print_stderr)] // The binary's one place to report a failure.
            {
                // The chain may quote an implementation's stderr or a
                // file's text: no control character of theirs reaches the
                // terminal.
                eprintln!(
                    "toolpass: {}",
                    toolpass::report::text::printable(&format!("{e:#}"))
                );
            }
            ExitCode::from(2)
        }
    }
}
