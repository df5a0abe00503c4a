//! The built-in scenario suite inside `cargo test`: one named trial per
//! scenario of `scenarios/`, played against the reference server (run as a
//! process, never linked). A trial passes only when every step passes, at
//! every level: the reference is the implementation every scenario is
//! written to pass. A `pending` scenario is an ignored trial.
//!
//! `cargo test -p toolpass --test scenarios -- edit/fuzzy` runs a part.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use libtest_mimic::{Arguments, Failed, Trial};
use toolpass::mcp_fixture::{uses_mcp_fixture, with_mcp_fixture};
use toolpass::report::text;
use toolpass::run::{RunConfig, Verdict};
use toolpass::{Options, Profile, Supervisor, reference_server};
use toolpass_scenario::{Level, Scenario, load_dir};

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let dir = dir.canonicalize().unwrap_or(dir);
    let scenarios = match load_dir(&dir) {
        Ok(scenarios) => scenarios,
        Err(errors) => {
            #[allow(clippy::print_stderr)] // Why no trial runs: every problem of every file.
            {
                eprintln!("{errors}");
            }
            return ExitCode::FAILURE;
        }
    };
    // Building the server is only worth it when some trial will run; the
    // MCP test server goes on its PATH when any scenario of the suite
    // starts it, as `toolpass run` does for the scenarios it plays.
    let supervisor = Arc::new(std::sync::OnceLock::new());
    let fixture = uses_mcp_fixture(scenarios.iter().map(|s| &s.config));
    let trials = scenarios
        .into_iter()
        .map(|scenario| {
            let name = scenario.id.clone();
            let pending = scenario.level.value == Level::Pending;
            let supervisor = Arc::clone(&supervisor);
            Trial::test(name, move || play(&scenario, &supervisor, fixture))
                .with_ignored_flag(pending)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

fn play(
    scenario: &Scenario,
    supervisor: &std::sync::OnceLock<Result<Supervisor, String>>,
    fixture: bool,
) -> Result<(), Failed> {
    let supervisor = supervisor
        .get_or_init(|| {
            reference_server(Profile::Dev)
                .and_then(|server| {
                    if fixture {
                        with_mcp_fixture(server, Profile::Dev)
                    } else {
                        Ok(server)
                    }
                })
                .map(|server| Supervisor::new(server, Options::default()))
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| Failed::from(e.as_str()))?;
    let config = RunConfig {
        // Generous: the machine may be loaded by the rest of the tests.
        timeout: Duration::from_secs(120),
        ..RunConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failed::from(e.to_string()))?;
    let results = runtime.block_on(toolpass::run::run(
        supervisor,
        std::slice::from_ref(scenario),
        &config,
        |_| {},
    ));
    match results.first() {
        Some(result) if result.verdict == Verdict::Pass => Ok(()),
        Some(result) if result.verdict == Verdict::Skip => Err(format!(
            "skipped against the reference: {}",
            result.reason.as_deref().unwrap_or_default()
        )
        .into()),
        Some(result) => Err(text::scenario(result, text::Style::new(false)).into()),
        None => Err("the run returned no result".into()),
    }
}
