//! `toolpass diff BEFORE AFTER`: what changed between two runs' `--jsonl`
//! reports. Exit 0 when nothing is newly failing, 1 when something is (a
//! regression), 2 when a report cannot be read.

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::Args;
use toolpass::diff::{self, Thresholds};
use toolpass::report::read;
use toolpass::report::text::Style;

#[derive(Debug, Args)]
pub(super) struct DiffArgs {
    /// The earlier run's report (`toolpass run --jsonl FILE`).
    before: PathBuf,
    /// The later run's report.
    after: PathBuf,
    /// Print the result as one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// A timing counts as changed only when it moved by more than this
    /// many milliseconds (and by more than `--time-ratio` allows).
    #[arg(long, value_name = "MS", default_value_t = Thresholds::default().min_ms)]
    time_threshold_ms: f64,
    /// A timing counts as changed only when one run took more than this
    /// many times as long as the other (and `--time-threshold-ms` more).
    /// Durations under 1 ms count as 1 ms; only results whose verdict did
    /// not change are timed.
    #[arg(long, value_name = "RATIO", default_value_t = Thresholds::default().ratio)]
    time_ratio: f64,
}

pub(super) fn run(args: &DiffArgs) -> anyhow::Result<ExitCode> {
    if !(args.time_threshold_ms >= 0.0 && args.time_threshold_ms.is_finite()) {
        bail!("--time-threshold-ms must be a number of milliseconds, 0 or more");
    }
    if !(args.time_ratio >= 1.0 && args.time_ratio.is_finite()) {
        bail!("--time-ratio must be a number, 1 or more");
    }
    let before = read::read(&args.before)?;
    let after = read::read(&args.after)?;
    let thresholds = Thresholds {
        min_ms: args.time_threshold_ms,
        ratio: args.time_ratio,
    };
    let diff = diff::compare(&before, &after, thresholds);
    let text = if args.json {
        let mut json =
            serde_json::to_string_pretty(&diff).context("failed to write the diff as JSON")?;
        json.push('\n');
        json
    } else {
        diff::render(&diff, Style::for_terminal(std::io::stdout().is_terminal()))
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .context("failed to write to stdout")?;
    Ok(if diff.regression {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
