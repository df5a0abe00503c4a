//! `toolpass run`: load and filter the scenarios, start the implementation
//! (the reference server by default), run, report, and exit non-zero when
//! a required scenario fails.

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Args;
use toolpass::expected::ExpectedFailures;
use toolpass::report::{Summary, text};
use toolpass::run::{Event, RunConfig, ScenarioResult};
use toolpass::{Implementation, Options, Profile, Supervisor, reference_server};

use super::filter::FilterArgs;
use super::scenarios::{self, ScenarioDirs};

#[derive(Debug, Args)]
pub(super) struct RunArgs {
    /// The implementation: a command line (`"node server.js --stdio"`;
    /// `{root}` stands for the sandbox of a server that takes its root on
    /// the command line), or the name of an adapter under
    /// conformance/adapters/. Without it, the reference server of this
    /// workspace, built by cargo.
    #[arg(long = "impl", value_name = "CMD|NAME")]
    implementation: Option<String>,
    #[command(flatten)]
    dirs: ScenarioDirs,
    #[command(flatten)]
    filter: FilterArgs,
    /// Workers, each with its own implementation process [default: the
    /// number of CPUs].
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// One implementation process per scenario instead of one per worker.
    #[arg(long)]
    isolate: bool,
    /// Leave each scenario's sandbox in place; its path is printed.
    #[arg(long)]
    keep: bool,
    /// Seconds one request may take before the step is a timeout.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    timeout: f64,
    /// Run each scenario N times and flag outcomes that differ.
    #[arg(long, value_name = "N", default_value_t = 1)]
    repeat: u32,
    /// The known failures (YAML): listed failures are `xfail`; an unlisted
    /// required failure, a listed entry that passes, fails differently or
    /// is skipped fails the run.
    #[arg(long, value_name = "FILE")]
    expected_failures: Option<PathBuf>,
    /// Rewrite the --expected-failures file from this run (refused on a
    /// filtered run, which would drop the entries it did not run).
    #[arg(long, requires = "expected_failures")]
    fix: bool,
    /// Rewrite every `snapshot` that differs from what the implementation
    /// answered, instead of failing on it (review the diff before you
    /// commit it).
    #[arg(long)]
    bless: bool,
}

pub(super) fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let filter = args.filter.compile()?;
    let scenarios = match scenarios::load(&args.dirs) {
        Ok(scenarios) => scenarios,
        Err(errors) => {
            super::report_load_errors(&errors)?;
            return Ok(ExitCode::from(1));
        }
    };
    let scenarios: Vec<_> = scenarios
        .into_iter()
        .filter(|s| filter.matches(s))
        .collect();
    if args.fix && args.filter.is_set() {
        anyhow::bail!(
            "--fix rewrites the whole expected-failures file, so it refuses a filtered run \
             (--filter, --tag, --level, --area): run without them"
        );
    }
    let expected = match &args.expected_failures {
        Some(path) => match ExpectedFailures::load(path) {
            Ok(expected) => Some(expected),
            Err(error) => {
                super::report_load_errors(&[error])?;
                return Ok(ExitCode::from(1));
            }
        },
        None => None,
    };
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        anyhow::bail!(
            "--timeout must be a positive number of seconds, not {}",
            args.timeout
        );
    }
    let config = RunConfig {
        jobs: args.jobs.unwrap_or_else(default_jobs).max(1),
        isolate: args.isolate,
        keep: args.keep,
        timeout: Duration::from_secs_f64(args.timeout),
        repeat: args.repeat.max(1),
        bless: args.bless,
        record: false,
    };
    let implementation = implementation(args.implementation.as_deref())?;
    let supervisor = Supervisor::new(implementation, Options::default());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    let style = text::Style::new(color());
    let progress = Progress::new();
    // The clock starts after the probe: building the reference server and
    // starting a cold implementation are not the suite's time.
    let (results, started) = runtime.block_on(async {
        probe(&supervisor).await?;
        let started = Instant::now();
        let results = toolpass::run::run(&supervisor, &scenarios, &config, |event| {
            progress.show(&event)
        })
        .await;
        Ok::<_, anyhow::Error>((results, started))
    })?;
    let mut results = results;
    let mut problems = Vec::new();
    if let Some(expected) = expected {
        let expected = if args.fix {
            fix(&expected, &results)?
        } else {
            expected
        };
        problems.extend(expected.apply(&mut results, args.filter.is_set()));
    }
    if config.repeat > 1 {
        problems.extend(nondeterminism(&results));
    }
    let summary = Summary::new(&results, started.elapsed(), problems);
    let mut stdout = std::io::stdout().lock();
    for result in &results {
        write!(stdout, "{}", text::scenario(result, style)).context("failed to write to stdout")?;
    }
    write!(stdout, "{}", text::summary(&summary, style)).context("failed to write to stdout")?;
    if args.bless {
        let blessed: usize = results.iter().map(|r| r.blessed).sum();
        writeln!(stdout, "--bless: {blessed} snapshot file(s) written")
            .context("failed to write to stdout")?;
    }
    Ok(if summary.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Writes the expected-failures file from the results and reads it back,
/// so the run is judged against what was written.
fn fix(old: &ExpectedFailures, results: &[ScenarioResult]) -> anyhow::Result<ExpectedFailures> {
    let text = old.fixed(results);
    std::fs::write(&old.path, &text)
        .with_context(|| format!("failed to write {}", old.path.display()))?;
    ExpectedFailures::parse(&text, &old.path).map_err(anyhow::Error::msg)
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Colours on a terminal, unless `NO_COLOR` says otherwise.
fn color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The adapters shipped with this workspace.
const ADAPTERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../adapters");

/// `--impl`: an adapter's name, a command line, or the reference server.
pub(super) fn implementation(spec: Option<&str>) -> anyhow::Result<Implementation> {
    let Some(spec) = spec else {
        return Ok(reference_server(Profile::Release)?);
    };
    let adapter = PathBuf::from(ADAPTERS).join(spec).join("run");
    if !spec.contains(['/', ' ']) && adapter.is_file() {
        return Ok(Implementation::new(adapter.to_string_lossy().into_owned()));
    }
    Ok(Implementation::parse(spec)?)
}

/// Starts the implementation once before the run, so one that cannot start
/// or speaks another protocol major version stops the run with one clear
/// message instead of failing every scenario.
pub(super) async fn probe(supervisor: &Supervisor) -> anyhow::Result<()> {
    let scratch = tempfile::tempdir().context("failed to create a scratch directory")?;
    let root = supervisor
        .implementation()
        .needs_root()
        .then(|| scratch.path());
    let connection = supervisor.connect(root).await?;
    let peer = connection.peer();
    let info = peer.server_info();
    #[allow(clippy::print_stderr)] // The run's header, beside the progress lines.
    {
        eprintln!(
            "toolpass: running against {} {} ({})",
            info.name,
            info.version,
            supervisor.implementation()
        );
    }
    connection.close().await;
    Ok(())
}

/// Scenarios whose repetitions ended differently.
fn nondeterminism(results: &[ScenarioResult]) -> Vec<String> {
    let mut problems = Vec::new();
    for group in results.chunk_by(|a, b| a.id == b.id) {
        let Some(first) = group.first() else { continue };
        if group.iter().any(|r| r.verdict != first.verdict) {
            let verdicts: Vec<&str> = group.iter().map(|r| r.verdict.as_str()).collect();
            problems.push(format!(
                "{}: nondeterministic: the repetitions ended {}",
                first.id,
                verdicts.join(", ")
            ));
        }
    }
    problems
}

/// Plain progress lines on stderr: one per finished scenario that did not
/// pass, so CI logs show trouble as it happens.
struct Progress {
    style: text::Style,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            style: text::Style::new(std::io::stderr().is_terminal()),
        }
    }

    fn show(&self, event: &Event) {
        if let Event::Finished(result) = event {
            #[allow(clippy::print_stderr)] // Progress goes to stderr, the report to stdout.
            {
                eprintln!(
                    "{} {} ({:.0} ms)",
                    self.style.verdict(result.verdict),
                    result.id,
                    result.duration.as_secs_f64() * 1000.0
                );
            }
        }
    }
}
