//! `toolpass bench`: the selected scenarios' calls timed against one or
//! several implementations in one run (see [`toolpass::bench`]).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use toolpass::bench::{self, BenchConfig, render};
use toolpass::run::Interrupt;
use toolpass::{Options, Supervisor};

use super::bench_progress::BenchProgress;
use super::filter::FilterArgs;
use super::run::implementation;
use super::scenarios::{self, ScenarioDirs};

#[derive(Debug, Args)]
pub(super) struct BenchArgs {
    /// An implementation, as `toolpass run --impl` takes it; give it once
    /// per implementation. Ratios are to the first. Without it, the
    /// reference server.
    #[arg(long = "impl", value_name = "CMD|NAME")]
    implementations: Vec<String>,
    #[command(flatten)]
    dirs: ScenarioDirs,
    #[command(flatten)]
    filter: FilterArgs,
    /// Rounds whose times count.
    #[arg(long, value_name = "N", default_value_t = BenchConfig::default().rounds)]
    rounds: u32,
    /// Rounds run first and discarded.
    #[arg(long, value_name = "N", default_value_t = BenchConfig::default().warmup)]
    warmup: u32,
    /// Start-ups timed per implementation.
    #[arg(long, value_name = "N", default_value_t = BenchConfig::default().startups)]
    startups: u32,
    /// Flag a tool whose round medians spread more than this fraction of
    /// their median.
    #[arg(long, value_name = "FRACTION", default_value_t = BenchConfig::default().spread_limit)]
    spread_limit: f64,
    /// Seconds one request may take.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    timeout: f64,
    /// Also write the results as JSON (`-` for stdout, which moves the
    /// text to stderr).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

pub(super) fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    if !(args.spread_limit.is_finite() && args.spread_limit > 0.0) {
        anyhow::bail!("--spread-limit must be a positive fraction, such as 0.25");
    }
    let scenarios = match scenarios::select_some(&args.dirs, &args.filter, "time")? {
        Ok(scenarios) => scenarios,
        Err(code) => return Ok(code),
    };
    let specs: Vec<Option<&str>> = if args.implementations.is_empty() {
        vec![None]
    } else {
        args.implementations
            .iter()
            .map(|s| Some(s.as_str()))
            .collect()
    };
    let supervisors = specs
        .into_iter()
        .map(|spec| Ok(Supervisor::new(implementation(spec)?, Options::default())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (interrupter, interrupt) = Interrupt::new();
    let config = BenchConfig {
        rounds: args.rounds.max(1),
        warmup: args.warmup,
        startups: args.startups.max(1),
        timeout: Duration::from_secs_f64(args.timeout),
        spread_limit: args.spread_limit,
        interrupt,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    let rounds = (config.warmup + config.rounds) as usize;
    let progress = BenchProgress::new(scenarios.len() * supervisors.len() * rounds);
    let work = async {
        bench::bench(&supervisors, &scenarios, &config, |event| {
            progress.show(event);
        })
        .await
        // A start that fails says why, with the implementation's stderr.
        .map_err(|e| anyhow::anyhow!(e.details()))
    };
    let finished = super::signals::block_on(&runtime, interrupter, work);
    progress.finish();
    let result = match finished? {
        Ok(result) => result,
        Err(caught) => return Ok(caught.exit()),
    };
    let text = render::text(&result);
    let mut json = serde_json::to_string_pretty(&result).context("failed to write JSON")?;
    json.push('\n');
    match args.json.as_deref() {
        Some(path) if path.as_os_str() == "-" => {
            std::io::stderr().lock().write_all(text.as_bytes())?;
            std::io::stdout().lock().write_all(json.as_bytes())?;
        }
        Some(path) => {
            std::fs::write(path, json)
                .with_context(|| format!("cannot write {}", path.display()))?;
            std::io::stdout().lock().write_all(text.as_bytes())?;
        }
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}
