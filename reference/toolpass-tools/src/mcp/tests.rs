//! A session's MCP servers, against the MCP test server started for real.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolpass_core::approval::ApprovalMode;
use toolpass_core::mcp::UNSAFE_REPLAY_MESSAGE;
use toolpass_core::truncate::TOOL_OUTPUT_TRUNCATED_PREFIX;
use toolpass_mcp::testkit::{fixture, is_gone};

use crate::config::{McpServerSettings, SessionConfig};
use crate::confirmation::Confirmation;
use crate::context::{Cancellation, InvocationContext, NoticeSink, UpdateSink};
use crate::error_code::ToolErrorCode;
use crate::faults::FaultPoint;
use crate::kind::Kind;
use crate::result::Display;
use crate::scheduler::{CallOutcome, Scheduled, execute_call, schedule};
use crate::session::Session;
use crate::tools::deferred_bridge;
use toolpass_core::tool_search::reminder::DeferredModel;

const READ: &str = "mcp__notes__read_note";

fn server(args: &[&str]) -> McpServerSettings {
    McpServerSettings {
        command: fixture().display().to_string(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        timeout_ms: Some(10_000),
        ..McpServerSettings::default()
    }
}

fn session_with(
    servers: &[(&str, McpServerSettings)],
    mode: ApprovalMode,
) -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    let config = SessionConfig {
        approval_mode: mode,
        mcp_servers: servers
            .iter()
            .map(|(n, s)| ((*n).to_owned(), s.clone()))
            .collect(),
        ..SessionConfig::default()
    };
    let session = Session::new(dir.path(), config, Vec::new()).unwrap();
    // The proxy model's bridge, as a server's session has it: without it
    // every deferred tool would be declared outright.
    for tool in deferred_bridge(session.registry(), DeferredModel::Proxy) {
        session.registry().register(tool);
    }
    (dir, session)
}

fn notes(trust: bool) -> (tempfile::TempDir, Session) {
    let settings = McpServerSettings {
        trust,
        ..server(&[])
    };
    let (dir, session) = session_with(&[("notes", settings)], ApprovalMode::Yolo);
    assert!(session.start_mcp().is_empty());
    (dir, session)
}

fn call(session: &Session, name: &str, args: Value) -> CallOutcome {
    execute_call(session, name, &args)
}

/// The notes server's process id.
fn notes_pid(session: &Session) -> u32 {
    session
        .mcp()
        .unwrap()
        .connection("notes")
        .unwrap()
        .pid()
        .unwrap()
}

/// `a.txt` read through the notes server: what it answers to the model.
fn read_a(session: &Session) -> String {
    call(session, READ, json!({"name": "a.txt"}))
        .result
        .llm_content
}

fn error_code(outcome: &CallOutcome) -> Option<ToolErrorCode> {
    outcome.result.error.as_ref().map(|e| e.code)
}

#[test]
fn a_servers_tools_are_registered_deferred_under_their_mcp_names() {
    let (_dir, session) = notes(false);
    let registry = session.registry();
    let read = registry.get(READ).expect("read_note is registered");
    assert_eq!(read.kind(), Kind::Read);
    assert!(read.should_defer());
    assert_eq!(read.search_hint(), Some("mcp notes"));
    assert_eq!(read.mcp_server(), Some("notes"));
    assert_eq!(read.max_output_chars(&session), Some(500_000));
    assert_eq!(
        registry.get("mcp__notes__list_notes").unwrap().kind(),
        Kind::Other
    );
    let names = registry.names();
    assert_eq!(
        names
            .iter()
            .filter(|n| n.starts_with("mcp__notes__"))
            .count(),
        9,
        "{names:?}"
    );
    assert!(names.iter().any(|n| n == "read_mcp_resource"));
    // Prompts are listed, never tools.
    assert!(!names.iter().any(|n| n.contains("review_note")));
    let prompts = session.mcp().unwrap().prompts();
    assert_eq!(prompts["notes"].len(), 2);
    // Deferred: none is declared before it is revealed.
    let declared = registry.declarations();
    assert!(
        declared
            .tools
            .iter()
            .all(|t| !t.name().starts_with("mcp__"))
    );
}

#[test]
fn include_and_exclude_pick_the_registered_tools() {
    let settings = McpServerSettings {
        include_tools: Some(vec![
            "read_note".into(),
            "write_note(name)".into(),
            "list_notes".into(),
        ]),
        exclude_tools: vec!["list_notes".into()],
        ..server(&[])
    };
    let (_dir, session) = session_with(&[("notes", settings)], ApprovalMode::Yolo);
    assert!(session.start_mcp().is_empty());
    let mut names = session.registry().names();
    names.retain(|n| n.starts_with("mcp__"));
    assert_eq!(names, ["mcp__notes__read_note", "mcp__notes__write_note"]);
}

#[test]
fn a_call_answers_and_a_server_error_is_an_mcp_tool_error_in_qwens_words() {
    let (_dir, session) = notes(false);
    let read = call(&session, READ, json!({"name": "a.txt"}));
    assert_eq!(read.result.llm_content, "alpha\n");
    let missing = call(&session, READ, json!({"name": "b.txt"}));
    assert_eq!(error_code(&missing), Some(ToolErrorCode::McpToolError));
    assert!(
        missing.result.llm_content.starts_with(
            "MCP tool 'read_note' reported tool error for function call: \
             {\"name\":\"read_note\",\"args\":{\"name\":\"b.txt\"}} with response: \
             [{\"functionResponse\":{\"name\":\"read_note\",\"response\":{\"error\":{\"content\":"
        ),
        "{}",
        missing.result.llm_content
    );
    assert_eq!(
        missing.result.display,
        Display::Text("Error: MCP tool 'read_note' reported an error.".into())
    );
    // The tool's own schema is checked before the server is asked.
    let bad = call(&session, READ, json!({"name": 3}));
    assert_eq!(error_code(&bad), Some(ToolErrorCode::InvalidToolParams));
}

#[test]
fn a_tool_whose_schema_is_not_json_schema_is_called_with_its_arguments_unchecked() {
    let (_dir, session) = notes(false);
    let tool = session
        .registry()
        .get("mcp__notes__broken_schema")
        .expect("registered");
    assert_eq!(
        tool.parameter_schema()["properties"]["query"]["type"],
        "strng"
    );
    let echoed = call(&session, "mcp__notes__broken_schema", json!({"query": 7}));
    assert_eq!(echoed.result.llm_content, "{\"query\":7}");
}

#[test]
fn an_output_over_half_a_million_characters_is_cut_to_a_preview_and_spilled() {
    let (_dir, session) = notes(false);
    let large = call(&session, "mcp__notes__large_output", json!({}));
    let text = &large.result.llm_content;
    assert!(
        text.starts_with(TOOL_OUTPUT_TRUNCATED_PREFIX),
        "{}",
        &text[..200]
    );
    assert!(text.len() < 10_000);
    let path = large.persisted_output_path.expect("spilled");
    assert_eq!(std::fs::read_to_string(path).unwrap().len(), 600_000);
}

/// Collects a call's updates.
#[derive(Default)]
struct Seen(Mutex<Vec<String>>);

impl UpdateSink for Seen {
    fn update(&self, text: &str) {
        self.0.lock().unwrap().push(text.to_owned());
    }
}

impl NoticeSink for Seen {
    fn notice(&self, _: &str, _: &str) {}
}

#[test]
fn progress_reaches_the_caller_as_updates() {
    let (_dir, session) = notes(false);
    let seen = Arc::new(Seen::default());
    let context = InvocationContext::new(Cancellation::default(), seen.clone(), seen.clone());
    let Scheduled::Done(done) = schedule(
        &session,
        "mcp__notes__report_progress",
        &json!({"steps": 2}),
        &context,
    ) else {
        panic!("yolo runs it");
    };
    assert_eq!(done.result.llm_content, "completed 2 steps");
    assert_eq!(
        *seen.0.lock().unwrap(),
        ["\u{25CC} [1/2] step 1 of 2", "\u{25CC} [2/2] step 2 of 2"]
    );
}

#[test]
fn an_untrusted_server_asks_first_and_a_trusted_one_does_not() {
    let untrusted = server(&[]);
    let trusted = McpServerSettings {
        trust: true,
        ..server(&[])
    };
    let (_dir, session) = session_with(
        &[("notes", untrusted), ("trusted", trusted)],
        ApprovalMode::Default,
    );
    assert!(session.start_mcp().is_empty());
    let context = InvocationContext::detached();
    let Scheduled::Awaiting(pending) =
        schedule(&session, READ, &json!({"name": "a.txt"}), &context)
    else {
        panic!("an untrusted server's tool asks");
    };
    assert_eq!(
        *pending.confirmation(),
        Confirmation::Mcp {
            title: "Confirm MCP Tool Execution".into(),
            server_name: "notes".into(),
            tool_name: "read_note".into(),
            tool_display_name: "read_note (notes MCP Server)".into(),
        }
    );
    let ran = schedule(
        &session,
        "mcp__trusted__read_note",
        &json!({"name": "a.txt"}),
        &context,
    );
    assert!(matches!(ran, Scheduled::Done(ref d) if d.result.llm_content == "alpha\n"));
}

#[test]
fn a_server_that_exits_is_reconnected_its_reveal_marks_gone_and_the_call_not_replayed() {
    let (_dir, session) = notes(false);
    let registry = session.registry();
    registry.reveal(READ);
    let old = notes_pid(&session);
    let crashed = call(&session, "mcp__notes__crash_server", json!({}));
    assert_eq!(error_code(&crashed), Some(ToolErrorCode::McpToolError));
    assert_eq!(crashed.result.llm_content, UNSAFE_REPLAY_MESSAGE);
    // Reconnected: the same tools, a new process, nothing revealed.
    assert!(registry.get(READ).is_some());
    assert!(!registry.is_revealed(READ));
    let new = notes_pid(&session);
    assert_ne!(old, new);
    assert_eq!(read_a(&session), "alpha\n");
}

#[test]
fn a_dropped_connection_replays_a_trusted_read_only_call_and_not_an_untrusted_one() {
    let (_dir, trusted) = notes(true);
    trusted.faults().arm(FaultPoint::McpDisconnect, 1);
    assert_eq!(read_a(&trusted), "alpha\n");

    let (_dir, untrusted) = notes(false);
    untrusted.faults().arm(FaultPoint::McpDisconnect, 1);
    assert_eq!(read_a(&untrusted), UNSAFE_REPLAY_MESSAGE);
    // The server is back for the next call.
    assert_eq!(read_a(&untrusted), "alpha\n");
}

#[test]
fn a_dropped_connection_is_retried_three_times_then_the_error_stands() {
    let (_dir, trusted) = notes(true);
    trusted.faults().arm(FaultPoint::McpDisconnect, 4);
    let failed = call(&trusted, READ, json!({"name": "a.txt"}));
    assert_eq!(error_code(&failed), Some(ToolErrorCode::McpToolError));
    assert_eq!(
        failed.result.llm_content,
        "MCP error -32000: Connection closed"
    );
    trusted.faults().arm(FaultPoint::McpDisconnect, 3);
    assert_eq!(read_a(&trusted), "alpha\n");
}

#[test]
fn resources_are_read_framed_and_an_unknown_server_is_named() {
    let (_dir, session) = notes(true);
    let read = |uri: &str, server: &str| {
        call(
            &session,
            "read_mcp_resource",
            json!({"server_name": server, "uri": uri}),
        )
    };
    let text = read("fixture://text/welcome.txt", "notes");
    let llm = &text.result.llm_content;
    assert!(
        llm.starts_with("\n--- Content from MCP resource notes:fixture://text/welcome.txt ["),
        "{llm}"
    );
    assert!(
        llm.contains("] ---\n\nWelcome to the toolpass MCP fixture.\n"),
        "{llm}"
    );
    assert_eq!(
        text.result.display,
        Display::Text(
            "Read resource notes:fixture://text/welcome.txt \u{2014} Injected 66 chars".into()
        )
    );
    let blob = read("fixture://blob/all-bytes.bin", "notes");
    assert_eq!(
        blob.result.display,
        Display::Text(
            "Read resource notes:fixture://blob/all-bytes.bin \u{2014} Injected 1 attachment"
                .into()
        )
    );
    let unknown = read("fixture://text/welcome.txt", "elsewhere");
    assert_eq!(
        error_code(&unknown),
        Some(ToolErrorCode::UnhandledException)
    );
    assert_eq!(
        unknown.result.llm_content,
        "MCP server 'elsewhere' is not configured."
    );
}

#[test]
fn a_server_that_never_initializes_is_left_out_after_its_timeout() {
    let silent = McpServerSettings {
        timeout_ms: Some(300),
        ..server(&["--never-initialize"])
    };
    let (_dir, session) = session_with(
        &[("silent", silent), ("notes", server(&[]))],
        ApprovalMode::Yolo,
    );
    let failures = session.start_mcp();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].ends_with("initialize: no answer within 300 ms"),
        "{failures:?}"
    );
    assert!(
        session.registry().get(READ).is_some(),
        "the other server still connects"
    );
}

#[test]
fn a_cwd_that_does_not_exist_is_named() {
    let missing = McpServerSettings {
        cwd: Some("no/such/dir".into()),
        ..server(&[])
    };
    let (dir, session) = session_with(&[("notes", missing)], ApprovalMode::Yolo);
    let failures = session.start_mcp();
    let root = session.sandbox().root().display().to_string();
    assert_eq!(
        failures,
        [format!(
            "notes: MCP server 'notes': configured cwd does not exist: {root}/no/such/dir"
        )]
    );
    drop(dir);
}

#[test]
fn stopping_the_servers_leaves_no_process_behind() {
    let (_dir, session) = notes(false);
    let pid = notes_pid(&session);
    session.stop_mcp();
    assert!(is_gone(pid));
    assert!(session.mcp().unwrap().connection("notes").is_none());
}
