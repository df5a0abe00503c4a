//! The subcommands and their flags (clap derive), and the dispatch from a
//! parsed command line to the code that carries it out.
//!
//! Exit codes: 0 success, 1 what was checked fails (`run`: a required
//! failure, an xpass, a stale expected failure; `validate`: a broken
//! scenario; `diff`: something newly failing; `merge`: the merged run
//! fails as `run` would), 2 the runner itself could
//! not do what was asked (a missing `--scenarios` directory, a scenario
//! or expected-failures file that does not load, a report that cannot be
//! read or written).

mod bench;
mod bench_progress;
mod diff;
mod filter;
mod list;
mod matrix;
mod merge;
mod progress;
mod record;
mod reports;
mod run;
mod scenarios;
mod schema;
mod signals;
mod validate;

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;

use clap::{Parser, Subcommand};

/// The toolpass conformance runner: replays YAML scenarios against any
/// toolpass/1 implementation.
#[derive(Debug, Parser)]
#[command(name = "toolpass", version, after_help = ENVIRONMENT)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The environment the runner reads, after `--help`.
const ENVIRONMENT: &str = "\
Environment:
  TOOLPASS_REFERENCE_SERVER  the reference server binary to run (`--impl reference`, the default),
                             used as is. Unset: inside the checkout toolpass was built from, cargo
                             builds it; elsewhere `toolpass-server` beside toolpass, then on PATH.
  TOOLPASS_ADAPTERS          where `--impl NAME` finds NAME/run (default: the checkout's
                             conformance/adapters, inside the checkout only)
  NO_COLOR                   no colour in the text report

Inside the checkout it was built from, toolpass reads the built-in scenarios from its scenarios/;
elsewhere it runs the copy embedded in the binary. `run`, `list` and `validate` say which.";

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a JSON Schema: the scenario file format, the protocol's
    /// messages, or the lines of a `--jsonl` report.
    Schema(schema::SchemaArgs),
    /// Load and check every scenario; report each problem as
    /// `path:line:column: message` and exit 1 if there is any.
    Validate(validate::ValidateArgs),
    /// List the scenarios the filters select: `id  level  title` per line.
    List(list::ListArgs),
    /// Run scenarios against an implementation (the reference server
    /// when `--impl` is not given) and judge every step.
    Run(Box<run::RunArgs>),
    /// Run one scenario and write what the implementation answered into
    /// the file as expectations, for review.
    Record(record::RecordArgs),
    /// Compare two runs' `--jsonl` reports: what is newly failing or
    /// passing, changed, removed, added, slower or faster.
    ///
    /// Scenarios are keyed by id (and repetition, when both runs repeated
    /// them), steps by `id#index`. Exit 0 when nothing is newly failing, 1
    /// when anything is (a regression), 2 when a report cannot be read.
    Diff(diff::DiffArgs),
    /// Render several runs' `--jsonl` reports side by side: scenario ×
    /// implementation as one static HTML page, a Markdown table, and a
    /// shields.io endpoint badge per implementation.
    Matrix(matrix::MatrixArgs),
    /// Join the `--jsonl` reports of a run's shards (`run --partition
    /// hash:K/N`) into one run: the text report, `--jsonl`, `--junit` and
    /// `--markdown` a single run writes, and its exit code.
    ///
    /// The reports must be every shard of one run once: the same runner,
    /// implementation and settings (jobs aside), no scenario in two. The
    /// shards' expected-failure verdicts and problems (each entry was
    /// checked by the one shard its id falls in) carry over. Exit 0 when
    /// the run passes, 1 when it fails, 2 when the reports cannot be read
    /// or are not the shards of one run.
    Merge(merge::MergeArgs),
    /// Time the scenarios' calls through the protocol against one or
    /// several implementations (`--impl` once each), interleaved, warm-up
    /// discarded: start-up and per-call p50/p95/p99 per tool, each
    /// implementation's ratio to the first, and a warning when the figures
    /// are unstable.
    Bench(Box<bench::BenchArgs>),
}

/// Carries out the parsed command; the exit code on success, or the
/// failure to report (exit 2).
pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Schema(args) => schema::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::List(args) => list::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Record(args) => record::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Matrix(args) => matrix::run(&args),
        Command::Merge(args) => merge::run(&args),
        Command::Bench(args) => bench::run(&args),
    }
}

/// One problem per line on stderr, for editors and CI logs to jump to.
fn report_load_errors(errors: &[String]) -> anyhow::Result<()> {
    let mut stderr = std::io::stderr().lock();
    for error in errors {
        // A loader error quotes the file's name and text, which may hold
        // anything.
        writeln!(stderr, "{}", toolpass::report::text::printable(error))
            .context("failed to write to stderr")?;
    }
    Ok(())
}
