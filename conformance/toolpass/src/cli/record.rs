//! `toolpass record FILE`: runs one scenario and writes what the
//! implementation answered into the file as expectations, for review.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use toolpass::mcp_fixture::uses_mcp_fixture;
use toolpass::report::text::{counted, printable};
use toolpass::run::{Interrupt, RunConfig, Verdict};
use toolpass::{Options, Supervisor};
use toolpass_scenario::load_file;

#[derive(Debug, Args)]
pub(super) struct RecordArgs {
    /// The scenario file to run and annotate in place.
    file: PathBuf,
    /// The implementation, as for `run`; the reference server by default.
    #[arg(long = "impl", value_name = "CMD|NAME")]
    implementation: Option<String>,
    /// Seconds one request may take.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
    /// Also rewrite the scenario's `snapshot` files that differ.
    #[arg(long)]
    bless: bool,
}

pub(super) fn run(args: &RecordArgs) -> anyhow::Result<ExitCode> {
    let id = args
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let scenario = match load_file(&args.file, &id) {
        Ok(scenario) => scenario,
        Err(errors) => {
            let lines: Vec<String> = errors.errors().iter().map(ToString::to_string).collect();
            super::report_load_errors(&lines)?;
            return Ok(ExitCode::from(2));
        }
    };
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("failed to read {}", args.file.display()))?;
    let fixture = uses_mcp_fixture([&scenario.config]);
    let implementation = super::run::implementation_for(args.implementation.as_deref(), fixture)?;
    let supervisor = Supervisor::new(implementation, Options::default());
    let (interrupter, interrupt) = Interrupt::new();
    let config = RunConfig {
        timeout: Duration::from_secs(args.timeout.max(1)),
        bless: args.bless,
        record: true,
        interrupt,
        ..RunConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    let work = async {
        super::run::probe(&supervisor).await?;
        let scenarios = std::slice::from_ref(&scenario);
        Ok::<_, anyhow::Error>(toolpass::run::run(&supervisor, scenarios, &config, |_| {}).await)
    };
    let results = match super::signals::block_on(&runtime, interrupter, work)? {
        Ok(results) => results,
        Err(caught) => return Ok(caught.exit()),
    };
    let result = results
        .first()
        .context("the run returned no result for the scenario")?;
    if result.verdict == Verdict::Skip {
        anyhow::bail!(
            "the implementation cannot run {}: {}",
            args.file.display(),
            result.reason.as_deref().unwrap_or_default()
        );
    }
    let recorded = toolpass::record::record(&text, &scenario, result);
    if recorded.text != text {
        std::fs::write(&args.file, &recorded.text)
            .with_context(|| format!("failed to write {}", args.file.display()))?;
    }
    let mut stdout = std::io::stdout().lock();
    let write = |out: &mut std::io::StdoutLock<'_>, line: String| {
        // Notes and reasons carry the implementation's words.
        writeln!(out, "{}", printable(&line)).context("failed to write to stdout")
    };
    write(
        &mut stdout,
        format!(
            "{}: {} recorded{}; the scenario's verdict: {}",
            args.file.display(),
            counted(recorded.expectations, "expectation", "expectations"),
            if recorded.files_step {
                ", and the final sandbox as an expect_files step"
            } else {
                ""
            },
            result.verdict.as_str()
        ),
    )?;
    for note in &recorded.notes {
        write(&mut stdout, format!("  note: {note}"))?;
    }
    if args.bless {
        write(
            &mut stdout,
            format!(
                "  --bless: {} written",
                counted(result.blessed, "snapshot file", "snapshot files")
            ),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
