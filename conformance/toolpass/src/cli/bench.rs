//! `toolpass bench`: the selected scenarios' calls timed against one or
//! several implementations in one run (see [`toolpass::bench`]).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use serde::Serialize;
use toolpass::bench::baseline::Baseline;
use toolpass::bench::compare::{self, Comparison};
use toolpass::bench::{self, Bench, BenchConfig, MIN_PAIRS_PER_ROUND, render, render_compare};
use toolpass::mcp_fixture::uses_mcp_fixture;
use toolpass::run::Interrupt;
use toolpass::{Options, Supervisor};

use super::bench_progress::BenchProgress;
use super::filter::FilterArgs;
use super::run::implementation_for;
use super::scenarios::{self, ScenarioDirs};

#[derive(Debug, Args)]
pub(super) struct BenchArgs {
    /// An implementation, as `toolpass run --impl` takes it; give it once
    /// per implementation. Ratios are to the first. Without it, the
    /// reference server. With --save-baseline or --baseline and a single
    /// --impl, the reference is put first as the control.
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
    /// Save each implementation's per-tool p50/p99 and ratio to the
    /// control (the first implementation) as a baseline for --baseline.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    save_baseline: Option<PathBuf>,
    /// Compare each per-tool ratio to the control with this saved
    /// baseline; exit 1 when one grew more than --max-regression.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// How much a ratio may grow over the baseline's, as a percentage
    /// (`25%`); a figure whose rounds spread more than that is unstable,
    /// neither a pass nor a failure.
    #[arg(long, value_name = "PERCENT", requires = "baseline", value_parser = percentage)]
    max_regression: Option<f64>,
    /// Also write the comparison with the baseline as Markdown, for a CI
    /// step summary (`-` for stdout, which moves the text to stderr).
    #[arg(long, value_name = "FILE", requires = "baseline")]
    markdown: Option<PathBuf>,
}

/// The default of --max-regression.
const MAX_REGRESSION: f64 = 0.25;

/// `25%` (or `25`) → 0.25.
fn percentage(text: &str) -> Result<f64, String> {
    let number = text.trim().strip_suffix('%').unwrap_or(text.trim());
    match number.parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value / 100.0),
        _ => Err(format!(
            "{text:?} is not a positive percentage, such as 25%"
        )),
    }
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
    let gated = args.save_baseline.is_some() || args.baseline.is_some();
    if gated && args.rounds < 2 {
        anyhow::bail!(
            "--save-baseline and --baseline need --rounds 2 or more: \
             the spread of the rounds is how noise is told from a regression"
        );
    }
    let baseline = match &args.baseline {
        Some(path) => Some(Baseline::load(path).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let mut specs: Vec<Option<&str>> = args
        .implementations
        .iter()
        .map(|s| Some(s.as_str()))
        .collect();
    // A baseline's ratios need a control measured in the same run; the
    // reference is the natural one when the user names only their own.
    if specs.is_empty() || (gated && specs.len() == 1) {
        specs.insert(0, None);
    }
    let fixture = uses_mcp_fixture(scenarios.iter().map(|s| &s.config));
    let supervisors = specs
        .into_iter()
        .map(|spec| {
            let implementation = implementation_for(spec, fixture)?;
            Ok(Supervisor::new(implementation, Options::default()))
        })
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
    if let Some(path) = &args.save_baseline {
        Baseline::of(&result)
            .save(path)
            .map_err(anyhow::Error::msg)?;
    }
    let comparison = match (&baseline, &args.baseline) {
        (Some(baseline), Some(path)) => Some(
            compare::compare(
                &result,
                baseline,
                &path.display().to_string(),
                args.max_regression.unwrap_or(MAX_REGRESSION),
            )
            .map_err(anyhow::Error::msg)?,
        ),
        _ => None,
    };
    write_outputs(args, &result, comparison.as_ref())?;
    Ok(match comparison {
        Some(comparison) if comparison.failed() => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}

/// Notes naming the baseline's figures that comparisons will not gate:
/// those whose rounds spread past the default limit (unstable) and those
/// of too few calls a round.
fn ungated_figures(bench: &Bench) -> String {
    let baseline = Baseline::of(bench);
    let mut notes = String::new();
    let noisy = baseline.noisy(MAX_REGRESSION);
    if !noisy.is_empty() {
        notes.push_str(&format!(
            "note: the rounds of {} spread more than {:.0}%, so comparisons will find them unstable; \
             save again on a quieter machine or with more --rounds to gate them\n",
            noisy.join(", "),
            MAX_REGRESSION * 100.0
        ));
    }
    let few = baseline.few_calls();
    if !few.is_empty() {
        notes.push_str(&format!(
            "note: {} have fewer than {MIN_PAIRS_PER_ROUND} calls in a round, so comparisons \
             report them without judging them; scenarios that call them more would gate them\n",
            few.join(", ")
        ));
    }
    notes
}

/// The JSON: the bench, and the comparison when there is one.
#[derive(Serialize)]
struct Json<'a> {
    #[serde(flatten)]
    bench: &'a Bench,
    #[serde(skip_serializing_if = "Option::is_none")]
    comparison: Option<&'a Comparison>,
}

/// Text on stdout, unless the JSON or the Markdown takes it (`-`), when
/// the text goes to stderr; the others to their files.
fn write_outputs(
    args: &BenchArgs,
    bench: &Bench,
    comparison: Option<&Comparison>,
) -> anyhow::Result<()> {
    let control = bench
        .implementations
        .first()
        .map_or("", |t| t.name.as_str());
    let mut text = render::text(bench);
    let mut markdown = String::new();
    if let Some(comparison) = comparison {
        text.push_str(&render_compare::text(comparison, control));
        markdown = render_compare::markdown(comparison, control);
    }
    if let Some(path) = &args.save_baseline {
        text.push_str(&format!("\nsaved the baseline {}\n", path.display()));
        text.push_str(&ungated_figures(bench));
    }
    let mut json = serde_json::to_string_pretty(&Json { bench, comparison })
        .context("failed to write JSON")?;
    json.push('\n');
    let files = [(&args.json, json), (&args.markdown, markdown)];
    let is_stdout = |path: &Option<PathBuf>| path.as_ref().is_some_and(|p| p.as_os_str() == "-");
    if files.iter().filter(|(path, _)| is_stdout(path)).count() > 1 {
        anyhow::bail!("only one of --json and --markdown can be `-` (stdout)");
    }
    let mut stdout_taken = false;
    for (path, body) in &files {
        match path {
            Some(path) if path.as_os_str() == "-" => {
                std::io::stdout().lock().write_all(body.as_bytes())?;
                stdout_taken = true;
            }
            Some(path) => std::fs::write(path, body)
                .with_context(|| format!("cannot write {}", path.display()))?,
            None => {}
        }
    }
    if stdout_taken {
        std::io::stderr().lock().write_all(text.as_bytes())?;
    } else {
        std::io::stdout().lock().write_all(text.as_bytes())?;
    }
    Ok(())
}
