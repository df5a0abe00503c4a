//! `toolpass run`: load and filter the scenarios, start the implementation
//! (the reference server by default), run, report, and exit non-zero when
//! a required scenario fails.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Args;
use toolpass::builtin::Builtin;
use toolpass::checkout::{checkout, why_not_inside};
use toolpass::expected::{ExpectedFailures, StaleCheck};
use toolpass::mcp_fixture::{uses_mcp_fixture, with_mcp_fixture};
use toolpass::report::Summary;
use toolpass::report::text::{counted, printable_line};
use toolpass::run::{Event, Interrupt, RunConfig, ScenarioResult};
use toolpass::{Implementation, Options, Profile, Supervisor, on_path, reference_server};

use super::filter::FilterArgs;
use super::progress::Progress;
use super::reports::{self, ReportArgs};
use super::scenarios::{self, ScenarioDirs};
use super::signals;

#[derive(Debug, Args)]
pub(super) struct RunArgs {
    /// The implementation: a command line (`"node server.js --stdio"`;
    /// `{root}` stands for the sandbox of a server that takes its root on
    /// the command line), or the name of an adapter under
    /// conformance/adapters/ (in the checkout only). Without it (or with
    /// `reference`), the reference server: $TOOLPASS_REFERENCE_SERVER,
    /// else built by cargo inside the checkout the runner was built from,
    /// else `toolpass-server` beside the runner, else on PATH.
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
    /// is skipped fails the run. The file must exist (exit 2 otherwise),
    /// unless --fix is to create it.
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
    #[command(flatten)]
    reports: ReportArgs,
}

pub(super) fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        anyhow::bail!(
            "--timeout must be a positive number of seconds, not {}",
            args.timeout
        );
    }
    args.reports.check()?;
    if args.bless && args.dirs.builtin() == Some(Builtin::Embedded) {
        anyhow::bail!(
            "--bless rewrites snapshot files, and the built-in scenarios are embedded in this \
             binary: run it inside the toolpass checkout, or bless your own --scenarios DIR"
        );
    }
    let scenarios = match scenarios::select_to_run(&args.dirs, &args.filter)? {
        Ok(scenarios) => scenarios,
        Err(code) => return Ok(code),
    };
    if args.fix && (args.filter.is_set() || args.filter.partition().is_some()) {
        anyhow::bail!(
            "--fix rewrites the whole expected-failures file, so it refuses a filtered run \
             (--filter, --tag, --level, --area, --profile safety, --partition): run without them"
        );
    }
    let expected = match &args.expected_failures {
        Some(path) => {
            let loaded = if args.fix {
                ExpectedFailures::load_or_empty(path)
            } else {
                ExpectedFailures::load(path)
            };
            match loaded {
                Ok(expected) => Some(expected),
                Err(error) => {
                    // The runner cannot judge against a list it cannot read.
                    super::report_load_errors(&[error])?;
                    return Ok(ExitCode::from(2));
                }
            }
        }
        None => None,
    };
    let (interrupter, interrupt) = Interrupt::new();
    let config = RunConfig {
        jobs: args.jobs.unwrap_or_else(default_jobs).max(1),
        isolate: args.isolate,
        keep: args.keep,
        timeout: Duration::from_secs_f64(args.timeout),
        repeat: args.repeat.max(1),
        bless: args.bless,
        record: false,
        interrupt,
    };
    let fixture = uses_mcp_fixture(scenarios.iter().map(|s| &s.config));
    let implementation = implementation_for(args.implementation.as_deref(), fixture)?;
    let supervisor = Supervisor::new(implementation, Options::default());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    let progress = Progress::new(scenarios.len() * config.repeat as usize);
    // The clock starts after the probe: building the reference server and
    // starting a cold implementation are not the suite's time.
    let work = async {
        let peer = probe(&supervisor).await?;
        #[allow(clippy::print_stderr)] // The run's header, after the probe's line.
        {
            let shard = args
                .filter
                .partition()
                .map(|p| format!(" (shard {p})"))
                .unwrap_or_default();
            eprintln!(
                "toolpass: profile {}: {}{shard}",
                args.filter.profile().as_str(),
                toolpass::report::text::counted(scenarios.len(), "scenario", "scenarios")
            );
        }
        args.dirs.announce_builtin()?;
        let started = Instant::now();
        let results = toolpass::run::run(&supervisor, &scenarios, &config, |event| {
            // Progress shows a listed failure as the xfail it will be
            // reported as; the run's problems are counted at the end.
            match (event, &expected) {
                (Event::Finished(mut result), Some(expected)) if !args.fix => {
                    let _later =
                        expected.apply(std::slice::from_mut(&mut *result), StaleCheck::Off);
                    progress.show(&Event::Finished(result));
                }
                (event, _) => progress.show(&event),
            }
        })
        .await;
        Ok::<_, anyhow::Error>((results, started, peer))
    };
    let finished = signals::block_on(&runtime, interrupter, work);
    progress.finish();
    let (results, started, peer) = match finished? {
        Ok(finished) => finished,
        Err(caught) => return Ok(caught.exit()),
    };
    let mut results = results;
    let mut problems = Vec::new();
    if let Some(expected) = expected {
        let expected = if args.fix {
            fix(&expected, &results)?
        } else {
            expected
        };
        problems.extend(expected.apply(&mut results, stale_check(&args.filter)));
    }
    if config.repeat > 1 {
        problems.extend(nondeterminism(&results));
    }
    let summary = Summary::new(&results, started.elapsed(), problems);
    let mut stdout = args
        .reports
        .write_text(&results, &summary, args.filter.profile())?;
    if args.keep {
        writeln!(stdout, "--keep: the sandboxes are left in place:")
            .context("failed to write to stdout")?;
        for result in &results {
            if let Some(path) = &result.kept_sandbox {
                writeln!(
                    stdout,
                    "  {}  {}",
                    printable_line(&result.id),
                    path.display()
                )
                .context("failed to write to stdout")?;
            }
        }
    }
    if args.bless {
        let blessed: usize = results.iter().map(|r| r.blessed).sum();
        let blessed = counted(blessed, "snapshot file", "snapshot files");
        writeln!(stdout, "--bless: {blessed} written").context("failed to write to stdout")?;
    }
    let info = reports::info(
        &config,
        &args.filter,
        args.expected_failures.as_deref(),
        supervisor.implementation(),
        peer,
        started,
    );
    args.reports.write(&info, &results, &summary)?;
    Ok(if summary.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Which expected-failure entries the run can call stale: none on a
/// filtered run, those of its own ids on a shard (so the shards together
/// check each entry once), else all.
fn stale_check(filter: &FilterArgs) -> StaleCheck {
    match filter.partition() {
        _ if filter.is_set() => StaleCheck::Off,
        Some(partition) => StaleCheck::Shard(partition),
        None => StaleCheck::All,
    }
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

/// Where `--impl NAME` looks for `NAME/run` instead of the checkout's
/// `conformance/adapters/`.
const ADAPTERS_ENV: &str = "TOOLPASS_ADAPTERS";

/// The `--impl` name of this workspace's reference server (the default),
/// for `toolpass bench --impl reference --impl qwen-code`.
const REFERENCE: &str = "reference";

/// [`implementation`], with the MCP test server first on its `PATH` when
/// `mcp_fixture` (some scenario to play starts it: `uses_mcp_fixture`).
pub(super) fn implementation_for(
    spec: Option<&str>,
    mcp_fixture: bool,
) -> anyhow::Result<Implementation> {
    let implementation = implementation(spec)?;
    if !mcp_fixture {
        return Ok(implementation);
    }
    Ok(with_mcp_fixture(implementation, Profile::Release)?)
}

/// `--impl`: an adapter's name, a command line, or the reference server.
///
/// The first word names the adapter `<adapters>/<word>/run` when there is
/// one (the rest of the line are its arguments, `{root}` included); a single
/// word that is no adapter is a program on `PATH`; anything else is a
/// command line. The adapters are [`ADAPTERS_ENV`]'s directory, else the
/// checkout's, and none outside the checkout: they are Node programs of
/// this repository, never installed with the runner.
pub(super) fn implementation(spec: Option<&str>) -> anyhow::Result<Implementation> {
    let Some(spec) = spec.filter(|s| s.trim() != REFERENCE) else {
        return Ok(reference_server(Profile::Release)?);
    };
    let parsed = Implementation::parse(spec)?;
    let word = parsed.program();
    if word.contains('/') {
        return Ok(parsed);
    }
    let adapters = std::env::var_os(ADAPTERS_ENV)
        .map(PathBuf::from)
        .or_else(|| checkout().map(|c| c.adapters()));
    if let Some(adapter) = adapters
        .as_ref()
        .map(|dir| dir.join(word).join("run"))
        .filter(|run| run.is_file())
    {
        return Ok(Implementation::new(adapter.to_string_lossy().into_owned())
            .args(parsed.arguments().iter().cloned()));
    }
    if !parsed.arguments().is_empty() || on_path(word).is_some() {
        return Ok(parsed);
    }
    let Some(adapters) = adapters else {
        anyhow::bail!(
            "--impl {word}: no program `{word}` on PATH, and the named adapters \
             (conformance/adapters/NAME) need the toolpass checkout, but {}: run toolpass \
             inside it, set {ADAPTERS_ENV} to its conformance/adapters, or name the adapter \
             by its command: --impl \"CHECKOUT/conformance/adapters/{word}/run\"",
            why_not_inside()
        );
    };
    let mut known: Vec<String> = std::fs::read_dir(&adapters)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("run").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    known.sort();
    anyhow::bail!(
        "--impl {word}: no adapter `{word}` under {} (adapters: {}) and no program `{word}` on PATH",
        adapters.display(),
        if known.is_empty() {
            "none".to_owned()
        } else {
            known.join(", ")
        }
    )
}

/// Starts the implementation once before the run, so one that cannot start
/// or speaks another protocol major version stops the run with one clear
/// message instead of failing every scenario. Returns how it introduced
/// itself.
pub(super) async fn probe(
    supervisor: &Supervisor,
) -> anyhow::Result<toolpass_protocol::Implementation> {
    let scratch = tempfile::tempdir().context("failed to create a scratch directory")?;
    let root = supervisor
        .implementation()
        .needs_root()
        .then(|| scratch.path());
    let connection = supervisor
        .connect(root)
        .await
        .map_err(|e| anyhow::anyhow!(e.details()))?;
    let peer = connection.peer();
    let info = peer.server_info().clone();
    #[allow(clippy::print_stderr)] // The run's header, beside the progress lines.
    {
        eprintln!(
            "toolpass: running against {} {} ({})",
            printable_line(&info.name),
            printable_line(&info.version),
            printable_line(&supervisor.implementation().to_string())
        );
        // An adapter names the configuration of its peer it drives (e.g.
        // the grep backend): results depend on it, so the header carries it.
        if let Some(description) = &info.description {
            eprintln!("toolpass: {}", printable_line(description));
        }
        if let Some(git) = git_above(scratch.path()) {
            eprintln!(
                "toolpass: warning: the sandboxes are inside a git work tree ({}): scenarios \
                 about directories outside git will not see what they expect; remove it or \
                 set TMPDIR",
                git.display()
            );
        }
    }
    connection.close().await;
    Ok(info)
}

/// The `.git` in an ancestor of `dir`, if any: sandboxes there are inside
/// a repository, which changes what glob and grep ignore. (A stray `/tmp/.git`
/// has been seen left behind by a peer's bubblewrap sandbox.)
fn git_above(dir: &std::path::Path) -> Option<PathBuf> {
    dir.ancestors()
        .skip(1)
        .map(|d| d.join(".git"))
        .find(|git| git.exists())
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
