//! The supervisor against implementations that crash, hang, print garbage,
//! flood stderr, answer with the wrong id, or behave; and against the real
//! reference server, started through cargo.
//!
//! The misbehaving implementation is this test binary itself, run again
//! with [`misbehave::BEHAVIOUR_ENV`] set. That is why this binary has its own
//! `main` (`harness = false`): libtest prints "running 1 test" on stdout
//! before any `#[test]` function runs, and a protocol peer's stdout must
//! carry nothing but protocol lines. `main` turns into the server before
//! any harness code runs, and otherwise runs the trials with libtest-mimic.
//!
//! Every test checks how the failure was classified, that the stderr tail
//! came with it, that `restart` brings back a working connection, and that
//! no process is left behind. Timeouts are generous except on the one call
//! meant to hang, and nothing asserts on time taken.

mod bench_gate;
mod hostile;
mod lifetime;
mod misbehave;
mod runs;
mod slow_proxy;

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use libtest_mimic::{Arguments, Trial};
use serde_json::Map;
use toolpass::{
    CallError, CallErrorKind, Connection, Implementation, Options, Profile, StartErrorKind,
    Supervisor, reference_server,
};
use toolpass_protocol::method;
use toolpass_protocol::{
    BatchParams, CallContext, Dialect, Feature, Outcome, OutcomeSummary, SessionId,
    SessionOpenParams, ToolsCallParams, ToolsListParams,
};

use crate::misbehave::BEHAVIOUR_ENV;

/// For calls that should be answered: long enough for a loaded machine.
const PATIENT: Duration = Duration::from_secs(120);
/// For the call meant to hang: it never ends, so any wait proves it.
const IMPATIENT: Duration = Duration::from_secs(2);

fn main() -> ExitCode {
    if let Ok(spec) = std::env::var(BEHAVIOUR_ENV) {
        misbehave::serve(&spec);
    }
    let args = Arguments::from_args();
    libtest_mimic::run(&args, trials()).exit_code()
}

macro_rules! trials {
    ($($test:path),* $(,)?) => {
        vec![$(Trial::test(trial_name(stringify!($test)), || {
            run($test());
            Ok(())
        })),*]
    };
}

/// `runs::name` (as `stringify!` spells a path) → `runs::name`.
fn trial_name(path: &str) -> String {
    path.split_whitespace().collect()
}

/// Every test of this binary; a test missing here is dead code, which the
/// lints reject.
fn trials() -> Vec<Trial> {
    trials![
        a_well_behaved_server_answers_sends_notices_and_exits_at_eof,
        an_error_response_leaves_the_connection_usable,
        a_crash_on_the_nth_call_reports_the_exit_status,
        a_hang_on_the_nth_call_times_out_and_kills_the_whole_group,
        a_line_that_is_not_json_is_a_protocol_error_quoting_it,
        a_reply_with_a_wrong_id_is_a_protocol_error,
        a_result_of_the_wrong_shape_is_a_protocol_error,
        a_stderr_flood_neither_blocks_the_server_nor_grows_the_tail,
        a_server_that_exits_after_initialize_crashes_the_next_call,
        close_kills_a_server_that_ignores_end_of_input,
        dropping_a_connection_kills_its_process_group,
        a_silent_server_fails_the_handshake_with_a_timeout,
        another_major_version_is_refused_with_a_clear_message,
        a_missing_program_is_a_spawn_error,
        a_plain_mcp_server_gets_the_sandbox_root_on_its_command_line,
        the_reference_server_speaks_toolpass_1_with_sessions,
        runs::a_run_marks_a_crash_and_goes_on_with_a_fresh_process,
        runs::a_run_marks_a_hang_as_timeout_and_leaves_no_process,
        runs::a_run_marks_garbage_and_a_wrong_id_as_protocol_errors,
        runs::a_stderr_flood_does_not_fail_a_run,
        runs::isolate_gives_each_scenario_its_own_process,
        runs::a_scenario_needing_an_unadvertised_feature_is_skipped,
        runs::a_plain_mcp_server_runs_only_call_scenarios,
        runs::a_json_rpc_error_for_a_tool_the_scenario_says_is_absent_is_an_error_result,
        runs::wait_notice_sees_a_notice_and_capture_binds_from_it,
        runs::a_failed_expectation_is_a_fail_naming_the_step_and_its_line,
        runs::bless_writes_a_differing_snapshot_and_the_next_run_passes,
        runs::an_interrupt_ends_the_playing_scenario_and_starts_no_other,
        hostile::a_scenario_past_the_validator_cannot_lead_the_runner_outside,
        lifetime::sigterm_stops_a_run_and_leaves_no_implementation_or_sandbox,
        lifetime::a_descendant_that_left_the_process_group_does_not_outlive_the_run,
        bench_gate::a_slowed_implementation_fails_the_bench_gate,
        bench_gate::bench_interleaves_implementations_scenario_by_scenario,
    ]
}

fn run(test: impl Future<Output = ()>) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(test);
}

// ---------------------------------------------------------------------------
// Behaviours one by one.

async fn a_well_behaved_server_answers_sends_notices_and_exits_at_eof() {
    let mut connection = connect("well").await;
    let peer = connection.peer();
    assert_eq!(peer.server_info().name, "misbehave");
    assert!(matches!(peer.dialect(), Dialect::Toolpass(_)));
    assert!(peer.supports(&Feature::Sessions));
    assert!(!peer.supports(&Feature::Batch));

    for n in 1..=3 {
        let outcome = call(&mut connection, "ping").await.unwrap();
        assert_eq!(outcome.llm_content(), format!("echo {n}: ping"));
    }
    let outcome = call(&mut connection, "notify").await.unwrap();
    assert_eq!(outcome.llm_content(), "notified");
    let notice = connection
        .next_notification(PATIENT)
        .await
        .expect("the notice arrives");
    let notice = notice.params::<method::Notice>().unwrap();
    assert_eq!(notice.text, "background job done");
    assert_eq!(
        connection.next_notification(Duration::ZERO).await,
        None,
        "one notice only"
    );
    assert!(connection.stderr_tail().contains("misbehave: well (pid"));

    let pid = connection.pid();
    let status = connection.close().await.expect("the server was reaped");
    assert!(status.success(), "it exits at EOF on its own: {status}");
    assert_gone(pid).await;
}

/// An empty batch, which the misbehaving server answers with a JSON-RPC
/// error (it implements no batch).
async fn refused_batch(connection: &mut Connection) -> CallError {
    let params = BatchParams {
        session_id: SessionId("s1".to_owned()),
        calls: Vec::new(),
    };
    connection
        .request::<method::Batch>(&params, PATIENT)
        .await
        .unwrap_err()
}

async fn an_error_response_leaves_the_connection_usable() {
    let mut connection = connect("well").await;
    let error = refused_batch(&mut connection).await;
    let CallErrorKind::ErrorResponse(response) = error.kind() else {
        panic!("expected an error response, got {error}");
    };
    assert_eq!(response.code, -32601);
    assert!(!error.is_fatal());
    assert!(error.stderr_tail().contains("misbehave: well"));
    assert!(connection.is_alive());
    let outcome = call(&mut connection, "ping").await.unwrap();
    assert_eq!(outcome.llm_content(), "echo 1: ping");
    drop_and_check(connection).await;
}

/// The exit status of a call that ended in a crash; any other error fails.
fn crash_status(error: &CallError) -> std::process::ExitStatus {
    let CallErrorKind::Crash {
        status: Some(status),
    } = error.kind()
    else {
        panic!("expected a crash with a status, got {error}");
    };
    *status
}

async fn a_crash_on_the_nth_call_reports_the_exit_status() {
    let mut connection = connect("crash:2").await;
    call(&mut connection, "ping").await.unwrap();
    let pid = connection.pid();
    let error = call(&mut connection, "ping").await.unwrap_err();
    let status = crash_status(&error);
    assert_eq!(status.code(), Some(3));
    assert!(
        error.to_string().contains("exited before answering"),
        "{error}"
    );
    assert_tail(&error, "crashing on call 2");
    assert!(!connection.is_alive());
    assert_gone(pid).await;

    // A dead connection keeps failing the same way, without waiting.
    let again = call(&mut connection, "ping").await.unwrap_err();
    assert_eq!(again.kind(), error.kind());

    restart_and_check(connection).await;
}

async fn a_hang_on_the_nth_call_times_out_and_kills_the_whole_group() {
    let mut connection = connect("hang:2").await;
    call(&mut connection, "ping").await.unwrap();
    let pid = connection.pid();
    let error = call_within(&mut connection, "ping", IMPATIENT)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), &CallErrorKind::Timeout { after: IMPATIENT });
    assert_tail(&error, "hanging on call 2");
    let grandchild = pid_after(error.stderr_tail(), "grandchild ");
    assert_gone(pid).await;
    assert_gone(grandchild).await;
    restart_and_check(connection).await;
}

/// Runs `behaviour`, whose second call misbehaves, and checks the second
/// call is a protocol error with the tail saying `tail`, that the process is
/// gone, and that a restart works. Returns what the error said and its line.
async fn protocol_error_on_call_2(behaviour: &str, tail: &str) -> (String, Option<String>) {
    let mut connection = connect(behaviour).await;
    call(&mut connection, "ping").await.unwrap();
    let pid = connection.pid();
    let error = call(&mut connection, "ping").await.unwrap_err();
    let CallErrorKind::ProtocolError { what, line } = error.kind() else {
        panic!("expected a protocol error, got {error}");
    };
    let found = (what.clone(), line.clone());
    assert_tail(&error, tail);
    assert_gone(pid).await;
    restart_and_check(connection).await;
    found
}

async fn a_line_that_is_not_json_is_a_protocol_error_quoting_it() {
    let (what, line) = protocol_error_on_call_2("garbage:2", "garbage on call 2").await;
    assert!(what.contains("not JSON"), "{what}");
    assert_eq!(line.as_deref(), Some("this is not JSON {"));
}

async fn a_reply_with_a_wrong_id_is_a_protocol_error() {
    let (what, line) = protocol_error_on_call_2("wrong-id:2", "wrong id on call 2").await;
    assert!(what.contains("id 1003"), "{what}");
    assert!(what.contains("names no request in flight"), "{what}");
    assert!(
        line.as_deref().unwrap().contains(r#""id":1003"#),
        "{line:?}"
    );
}

async fn a_result_of_the_wrong_shape_is_a_protocol_error() {
    let (what, line) = protocol_error_on_call_2("bad-result:2", "bad result on call 2").await;
    assert!(what.contains("invalid result for tools/call"), "{what}");
    assert!(
        line.as_deref().unwrap().contains("not an array"),
        "{line:?}"
    );
}

async fn a_stderr_flood_neither_blocks_the_server_nor_grows_the_tail() {
    let mut connection = connect("flood").await;
    // 2 MiB per call: far more than a pipe buffer, so a supervisor that
    // stopped draining stderr would leave the server stuck mid-answer.
    for n in 1..=4 {
        let outcome = call(&mut connection, "ping").await.unwrap();
        assert_eq!(outcome.llm_content(), format!("echo {n}: ping"));
    }
    // stderr and stdout are separate pipes: the reply can arrive before the
    // drain task has read the last stderr bytes, so wait (boundedly) for them.
    let mut tail = connection.stderr_tail();
    for _ in 0..500 {
        if tail.ends_with("misbehave: flood done for call 4\n") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        tail = connection.stderr_tail();
    }
    assert!(tail.len() <= (8 << 10) + 64, "{} bytes", tail.len());
    assert!(
        tail.starts_with('['),
        "says that bytes were dropped: {tail:.80}"
    );
    assert!(tail.ends_with("misbehave: flood done for call 4\n"));

    // The tail comes with errors too.
    let error = refused_batch(&mut connection).await;
    assert!(matches!(error.kind(), CallErrorKind::ErrorResponse(_)));
    assert_tail(&error, "flood done for call 4");
    drop_and_check(connection).await;
}

async fn a_server_that_exits_after_initialize_crashes_the_next_call() {
    let mut connection = connect("exit-after-initialize").await;
    let pid = connection.pid();
    let error = call(&mut connection, "ping").await.unwrap_err();
    let status = crash_status(&error);
    assert!(status.success(), "{status}");
    assert_tail(&error, "leaving after initialize");
    assert_gone(pid).await;
    // The fresh process answers initialize again, then leaves again.
    connection.restart().await.unwrap();
    assert!(matches!(
        call(&mut connection, "ping").await.unwrap_err().kind(),
        CallErrorKind::Crash { .. }
    ));
    drop_and_check(connection).await;
}

async fn close_kills_a_server_that_ignores_end_of_input() {
    let options = Options::default().grace(Duration::from_secs(1));
    let connection = fake("ignore-eof", options).connect(None).await.unwrap();
    let pid = connection.pid();
    let status = connection.close().await.expect("the server was reaped");
    assert_eq!(status.signal(), Some(9), "{status}");
    assert_gone(pid).await;
}

async fn dropping_a_connection_kills_its_process_group() {
    let mut connection = connect("well").await;
    let outcome = call(&mut connection, "spawn").await.unwrap();
    let grandchild = pid_after(outcome.llm_content(), "grandchild ");
    let pid = connection.pid();
    drop(connection);
    assert_gone(pid).await;
    assert_gone(grandchild).await;
}

async fn a_silent_server_fails_the_handshake_with_a_timeout() {
    let options = Options::default().start_timeout(IMPATIENT);
    let error = fake("silent", options).connect(None).await.err().unwrap();
    assert_eq!(error.kind(), StartErrorKind::Handshake);
    let call = error.call_error().expect("the failed initialize");
    assert_eq!(call.kind(), &CallErrorKind::Timeout { after: IMPATIENT });
    assert_eq!(call.method(), "initialize");
    assert!(error.stderr_tail().contains("misbehave: silent"));
    assert_gone(pid_after(error.stderr_tail(), "(pid ")).await;
}

async fn another_major_version_is_refused_with_a_clear_message() {
    // Refused by the runner, reading the answer: the server speaks toolpass/2.
    let message = version_refusal("toolpass2").await;
    assert!(message.contains("misbehave 0.0.0"), "{message}");
    assert!(message.contains("the peer speaks toolpass/2"), "{message}");
    assert!(message.contains("this side speaks toolpass/1"), "{message}");
    // Refused by the server, reading the request, naming what it supports.
    let message = version_refusal("refuse-toolpass1").await;
    assert!(
        message.ends_with(": it refused toolpass/1 and supports toolpass/2"),
        "{message}"
    );
}

/// The message of the unsupported-version error a `behaviour` server's
/// start ends in, once that server is gone.
async fn version_refusal(behaviour: &str) -> String {
    let error = fake(behaviour, Options::default())
        .connect(None)
        .await
        .err()
        .unwrap();
    assert_eq!(error.kind(), StartErrorKind::UnsupportedVersion);
    assert_gone(pid_after(error.stderr_tail(), "(pid ")).await;
    error.to_string()
}

async fn a_missing_program_is_a_spawn_error() {
    let implementation = Implementation::new("/nonexistent/toolpass-implementation");
    let error = Supervisor::new(implementation, Options::default())
        .connect(None)
        .await
        .err()
        .unwrap();
    assert_eq!(error.kind(), StartErrorKind::Spawn);
    assert!(
        error
            .to_string()
            .contains("/nonexistent/toolpass-implementation")
    );
}

async fn a_plain_mcp_server_gets_the_sandbox_root_on_its_command_line() {
    let sandbox = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let implementation = test_binary()
        .args(["--root", "{root}"])
        .env(BEHAVIOUR_ENV, "plain-mcp")
        .current_dir(elsewhere.path());
    assert!(implementation.needs_root());
    let supervisor = Supervisor::new(implementation, Options::default());
    let error = supervisor.connect(None).await.err().unwrap();
    assert_eq!(error.kind(), StartErrorKind::Root);

    let mut connection = supervisor.connect(Some(sandbox.path())).await.unwrap();
    assert_eq!(connection.peer().dialect(), Dialect::PlainMcp("2025-06-18"));
    assert!(connection.peer().features().is_empty());
    let params = ToolsCallParams {
        name: "ls".to_owned(),
        arguments: Map::new(),
        meta: None,
    };
    let value = connection
        .request_value::<method::ToolsCall>(&params, PATIENT)
        .await
        .unwrap();
    let summary = OutcomeSummary::from_value(&value).unwrap();
    assert!(!summary.toolpass);
    assert_eq!(
        summary.llm_content,
        format!(
            "ls --root {} in {}",
            sandbox.path().display(),
            elsewhere.path().canonicalize().unwrap().display()
        )
    );

    // A restart keeps the root.
    connection.restart().await.unwrap();
    assert_eq!(connection.root(), Some(sandbox.path()));
    drop_and_check(connection).await;
}

async fn the_reference_server_speaks_toolpass_1_with_sessions() {
    let implementation = tokio::task::spawn_blocking(|| reference_server(Profile::Dev))
        .await
        .unwrap()
        .unwrap();
    let supervisor = Supervisor::new(implementation, Options::default());
    let mut connection = supervisor.connect(None).await.unwrap();
    let peer = connection.peer();
    assert_eq!(peer.initialize_result().protocol_version, "toolpass/1");
    let Dialect::Toolpass(toolpass) = peer.dialect() else {
        panic!("the reference is a toolpass implementation");
    };
    assert_eq!(toolpass.version, 1);
    assert!(peer.supports(&Feature::Sessions));

    let sandbox = tempfile::tempdir().unwrap();
    let root = sandbox.path().to_str().unwrap();
    let session = connection
        .request::<method::SessionOpen>(&SessionOpenParams::new(root), PATIENT)
        .await
        .unwrap();
    let tools = connection
        .request::<method::ToolsList>(
            &ToolsListParams {
                session_id: Some(session.session_id),
                cursor: None,
            },
            PATIENT,
        )
        .await
        .unwrap();
    assert!(tools.tools.iter().any(|tool| tool.name == "read_file"));

    let pid = connection.pid();
    let status = connection.close().await.expect("the server was reaped");
    assert!(status.success(), "{status}");
    assert_gone(pid).await;
}

// ---------------------------------------------------------------------------
// Helpers.

fn test_binary() -> Implementation {
    let exe = std::env::current_exe().expect("the test binary has a path");
    Implementation::new(exe.to_str().expect("a UTF-8 path to the test binary"))
}

fn fake(behaviour: &str, options: Options) -> Supervisor {
    Supervisor::new(test_binary().env(BEHAVIOUR_ENV, behaviour), options)
}

async fn connect(behaviour: &str) -> Connection {
    fake(behaviour, Options::default())
        .connect(None)
        .await
        .unwrap_or_else(|e| panic!("start {behaviour}: {e}: {}", e.stderr_tail()))
}

async fn call(connection: &mut Connection, tool: &str) -> Result<Outcome, CallError> {
    call_within(connection, tool, PATIENT).await
}

async fn call_within(
    connection: &mut Connection,
    tool: &str,
    timeout: Duration,
) -> Result<Outcome, CallError> {
    let context = CallContext {
        session_id: SessionId("s1".to_owned()),
        call_id: "c1".to_owned(),
    };
    let params = ToolsCallParams::new(tool, Map::new(), context);
    connection
        .request::<method::ToolsCall>(&params, timeout)
        .await
}

fn assert_tail(error: &CallError, marker: &str) {
    assert!(
        error.stderr_tail().contains(marker),
        "the stderr tail lacks {marker:?}: {:?}",
        error.stderr_tail()
    );
}

/// After a failure, `restart` gives a fresh process that answers (its call
/// counter starts again at 1); dropping it leaves nothing behind.
async fn restart_and_check(mut connection: Connection) {
    let old = connection.pid();
    connection.restart().await.unwrap();
    assert_ne!(connection.pid(), old);
    assert!(connection.is_alive());
    let outcome = call(&mut connection, "ping").await.unwrap();
    assert_eq!(outcome.llm_content(), "echo 1: ping");
    drop_and_check(connection).await;
}

async fn drop_and_check(connection: Connection) {
    let pid = connection.pid();
    drop(connection);
    assert_gone(pid).await;
}

/// The number after `prefix` in `text`.
fn pid_after(text: &str, prefix: &str) -> u32 {
    let start = text
        .find(prefix)
        .unwrap_or_else(|| panic!("{prefix:?} in {text:?}"))
        + prefix.len();
    let digits: String = text[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

/// Waits until `pid` no longer runs. A zombie counts as gone: it runs no
/// code, and a grandchild orphaned by the group kill is reaped by whoever
/// adopted it, which may be slow in a container. The wait is long only so
/// that a loaded machine cannot fail the test; a live process fails it.
pub(crate) async fn assert_gone(pid: u32) {
    for _ in 0..1200 {
        if !is_running(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("process {pid} is still running");
}

/// The pids the misbehaving server names in its stderr: its own
/// (`(pid N)`) and its grandchildren's (`grandchild N`).
pub(crate) fn pids_in(tail: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for marker in ["(pid ", "grandchild "] {
        for (at, _) in tail.match_indices(marker) {
            let digits: String = tail[at + marker.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            pids.extend(digits.parse::<u32>());
        }
    }
    pids
}

fn is_running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat"))
    else {
        return false;
    };
    // The state follows the command name, which is in parentheses and may
    // itself contain ") ".
    let state = stat
        .rfind(") ")
        .and_then(|end| stat[end + 2..].chars().next());
    !matches!(state, Some('Z' | 'X' | 'x'))
}
