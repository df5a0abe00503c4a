//! Whole runs against the misbehaving implementation: each misbehaviour is
//! classified on the scenario it hit, the worker restarts the process, the
//! scenarios after it pass, and no process is left behind.

use std::time::Duration;

use toolpass::run::{Event, RunConfig, ScenarioResult, Verdict};
use toolpass::{Implementation, Options, Supervisor};
use toolpass_scenario::{Scenario, parse_str};

use crate::misbehave::BEHAVIOUR_ENV;
use crate::{assert_gone, pids_in};

/// A scenario of `calls` calls to `ping`, each expected to succeed with the
/// misbehaving server's echo.
fn pings(id: &str, calls: usize) -> Scenario {
    let mut text = String::from("title: pings\nspec: test\nsteps:\n");
    for _ in 0..calls {
        text.push_str(
            "  - call: ping\n    expect: {status: success, llm: {starts_with: \"echo \"}}\n",
        );
    }
    parse_str(&text, id).expect("a valid scenario")
}

pub(crate) fn misbehaving(behaviour: &str) -> Supervisor {
    let exe = std::env::current_exe().expect("the test binary has a path");
    let implementation =
        Implementation::new(exe.to_string_lossy().into_owned()).env(BEHAVIOUR_ENV, behaviour);
    Supervisor::new(implementation, Options::default())
}

pub(crate) async fn run_all(
    behaviour: &str,
    scenarios: &[Scenario],
    config: RunConfig,
) -> Vec<ScenarioResult> {
    let supervisor = misbehaving(behaviour);
    let events = std::sync::Mutex::new(Vec::new());
    let results = toolpass::run::run(&supervisor, scenarios, &config, |event| {
        if let Event::Finished(result) = event {
            events.lock().unwrap().push(result.id.clone());
        }
    })
    .await;
    assert_eq!(events.into_inner().unwrap().len(), scenarios.len());
    results
}

fn verdicts(results: &[ScenarioResult]) -> Vec<Verdict> {
    results.iter().map(|r| r.verdict).collect()
}

pub(crate) fn one_worker(timeout: Duration) -> RunConfig {
    RunConfig {
        timeout,
        ..RunConfig::default()
    }
}

/// The second call of a process misbehaves: scenario `b` takes it, the
/// process is restarted, and `c` runs on the fresh one.
async fn check_classified(behaviour: &str, verdict: Verdict, tail: &str) {
    let scenarios = [pings("a", 1), pings("b", 1), pings("c", 1)];
    let results = run_all(behaviour, &scenarios, one_worker(Duration::from_secs(3))).await;
    assert_eq!(
        verdicts(&results),
        [Verdict::Pass, verdict, Verdict::Pass],
        "{behaviour}: {results:#?}"
    );
    let step = &results[1].steps[0];
    assert_eq!(step.verdict, verdict);
    assert!(
        step.stderr_tail.contains(tail),
        "{behaviour}: {}",
        step.stderr_tail
    );
    assert!(
        results[1]
            .reason
            .as_deref()
            .unwrap_or_default()
            .contains("step 1")
    );
    for pid in pids_in(&step.stderr_tail) {
        assert_gone(pid).await;
    }
}

pub(crate) async fn a_run_marks_a_crash_and_goes_on_with_a_fresh_process() {
    check_classified("crash:2", Verdict::Crash, "crashing on call 2").await;
}

pub(crate) async fn a_run_marks_a_hang_as_timeout_and_leaves_no_process() {
    check_classified("hang:2", Verdict::Timeout, "hanging on call 2").await;
}

pub(crate) async fn a_run_marks_garbage_and_a_wrong_id_as_protocol_errors() {
    check_classified("garbage:2", Verdict::ProtocolError, "garbage on call 2").await;
    check_classified("wrong-id:2", Verdict::ProtocolError, "wrong id on call 2").await;
    check_classified(
        "bad-result:2",
        Verdict::ProtocolError,
        "bad result on call 2",
    )
    .await;
}

pub(crate) async fn a_stderr_flood_does_not_fail_a_run() {
    let scenarios = [pings("a", 2), pings("b", 2)];
    let results = run_all("flood", &scenarios, one_worker(Duration::from_secs(60))).await;
    assert_eq!(
        verdicts(&results),
        [Verdict::Pass, Verdict::Pass],
        "{results:#?}"
    );
}

pub(crate) async fn isolate_gives_each_scenario_its_own_process() {
    // Every process crashes on its second call; with one process per
    // scenario no scenario gets that far.
    let scenarios = [pings("a", 1), pings("b", 1), pings("c", 1)];
    let config = RunConfig {
        isolate: true,
        jobs: 2,
        ..one_worker(Duration::from_secs(60))
    };
    let results = run_all("crash:2", &scenarios, config).await;
    assert_eq!(verdicts(&results), [Verdict::Pass; 3], "{results:#?}");
}

pub(crate) async fn a_scenario_needing_an_unadvertised_feature_is_skipped() {
    let scenario = parse_str(
        "title: t\nspec: s\nsteps:\n  - fault: {point: fs.stat}\n  - call: ping\n",
        "needs-fault",
    )
    .unwrap();
    let results = run_all("well", &[scenario], RunConfig::default()).await;
    assert_eq!(results[0].verdict, Verdict::Skip);
    let reason = results[0].reason.as_deref().unwrap();
    assert!(reason.contains("fault:fs.stat"), "{reason}");
    assert!(results[0].steps.is_empty());
}

pub(crate) async fn a_plain_mcp_server_runs_only_call_scenarios() {
    let exe = std::env::current_exe().unwrap();
    let implementation = Implementation::new(exe.to_string_lossy().into_owned())
        .args(["--root", "{root}"])
        .env(BEHAVIOUR_ENV, "plain-mcp");
    let supervisor = Supervisor::new(implementation, Options::default());
    let plain = parse_str(
        "title: t\nspec: s\nsteps:\n  - call: ping\n    expect: {status: success, llm: {contains: \"--root {root} in\"}}\n",
        "plain",
    )
    .unwrap();
    let sessions = parse_str(
        "title: t\nspec: s\nrequires: [prior_read]\nsteps:\n  - call: ping\n",
        "sessions",
    )
    .unwrap();
    let results = toolpass::run::run(
        &supervisor,
        &[plain, sessions],
        &RunConfig::default(),
        |_| {},
    )
    .await;
    assert_eq!(
        verdicts(&results),
        [Verdict::Pass, Verdict::Skip],
        "{results:#?}"
    );
    assert!(
        results[1]
            .reason
            .as_deref()
            .unwrap()
            .contains("plain MCP server")
    );
}

pub(crate) async fn a_json_rpc_error_for_a_tool_the_scenario_says_is_absent_is_an_error_result() {
    let scenario = parse_str(
        "title: t\nspec: s\nconfig: {disabledTools: [missing]}\nsteps:\n  - call: missing\n    expect: {status: error, llm: {contains: \"Unknown tool: missing\"}}\n  - call: other\n    expect: {status: error}\n",
        "unknown",
    )
    .unwrap();
    let results = run_all(
        "unknown-tool-rpc-error",
        &[scenario],
        one_worker(Duration::from_secs(10)),
    )
    .await;
    let steps: Vec<Verdict> = results[0].steps.iter().map(|s| s.verdict).collect();
    // `missing` is absent by the scenario's own word: -32602 reads as the
    // error result MCP's example makes it. `other` is not: a JSON-RPC error
    // instead of a result stays a failure of the step.
    assert_eq!(steps, [Verdict::Pass, Verdict::Fail], "{results:#?}");
    assert!(
        results[0].steps[1].failures[0]
            .message
            .contains("answered with a JSON-RPC error instead of a result"),
        "{results:#?}"
    );
}

pub(crate) async fn wait_notice_sees_a_notice_and_capture_binds_from_it() {
    let scenario = parse_str(
        r#"
title: t
spec: s
steps:
  - call: notify
    expect: {llm: notified}
  - wait_notice: {contains: "job done"}
    kind: background_shell
  - capture: {word: '^(\w+)'}
    from: notice
  - call: background
    expect: {llm: {ends_with: ": {word}"}}
"#,
        "notice",
    )
    .unwrap();
    let results = run_all("well", &[scenario], RunConfig::default()).await;
    assert_eq!(results[0].verdict, Verdict::Pass, "{results:#?}");
}

pub(crate) async fn a_failed_expectation_is_a_fail_naming_the_step_and_its_line() {
    let scenario = parse_str(
        "title: t\nspec: s\nsteps:\n  - call: ping\n  - call: ping\n    expect: {llm: \"echo 2: pong\"}\n",
        "fails",
    )
    .unwrap();
    let results = run_all("well", &[scenario], RunConfig::default()).await;
    let result = &results[0];
    assert_eq!(result.verdict, Verdict::Fail);
    let step = &result.steps[1];
    assert_eq!((step.index, step.line, step.verdict), (2, 5, Verdict::Fail));
    let failure = &step.failures[0];
    assert_eq!(failure.what, "llm");
    assert_eq!(failure.expected.as_deref(), Some("echo 2: pong"));
    assert_eq!(failure.actual.as_deref(), Some("echo 2: ping"));
}

pub(crate) async fn bless_writes_a_differing_snapshot_and_the_next_run_passes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("snap.yaml");
    std::fs::write(
        &file,
        "title: t\nspec: s\nsteps:\n  - call: ping\n    expect: {llm: {snapshot: echo, starts_with: echo}}\n",
    )
    .unwrap();
    let load = || toolpass_scenario::load_file(&file, "snap").unwrap();
    let results = run_all("well", &[load()], RunConfig::default()).await;
    assert_eq!(
        results[0].verdict,
        Verdict::Fail,
        "no snapshot yet: {results:#?}"
    );
    let bless = RunConfig {
        bless: true,
        ..RunConfig::default()
    };
    let results = run_all("well", &[load()], bless).await;
    assert_eq!((results[0].verdict, results[0].blessed), (Verdict::Pass, 1));
    let written = std::fs::read_to_string(dir.path().join("snap.echo.snap")).unwrap();
    assert_eq!(written, "echo 1: ping");
    let results = run_all("well", &[load()], RunConfig::default()).await;
    assert_eq!(results[0].verdict, Verdict::Pass, "{results:#?}");
}

pub(crate) async fn an_interrupt_ends_the_playing_scenario_and_starts_no_other() {
    // The server hangs on its first call; the interrupt comes while it does.
    let scenarios = [pings("a", 1), pings("b", 1)];
    let (interrupter, interrupt) = toolpass::run::Interrupt::new();
    let config = RunConfig {
        interrupt,
        ..one_worker(Duration::from_secs(600))
    };
    let supervisor = misbehaving("hang:1");
    let run = toolpass::run::run(&supervisor, &scenarios, &config, |_| {});
    let stop = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        interrupter.interrupt();
    };
    let (results, ()) = tokio::join!(run, stop);
    assert_eq!(results.len(), 1, "b never started: {results:#?}");
    assert_eq!(results[0].verdict, Verdict::Error);
    assert!(
        results[0]
            .reason
            .as_deref()
            .unwrap_or_default()
            .contains("interrupted"),
        "{results:#?}"
    );
}
