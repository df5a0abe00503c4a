//! The fixture driven by a real MCP client: the official Rust SDK's client
//! side (`rmcp`) spawns it, initializes, lists and calls everything it
//! offers, and meets each broken shape, as an agent configured with it in
//! `mcpServers` would.

mod common;

use std::time::Duration;

use base64::Engine as _;
use common::{OUTSIDE_TEXT, Sandbox};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ErrorCode,
    GetPromptRequestParams, ProgressNotificationParam, ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt as _};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// A client that passes on every progress notification it receives.
struct Client {
    progress: mpsc::UnboundedSender<ProgressNotificationParam>,
}

impl ClientHandler for Client {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // The receiver lives as long as the test; a closed one is a test
        // that no longer listens.
        let _ = self.progress.send(params);
    }
}

type Session = RunningService<RoleClient, Client>;

/// The fixture started in `sandbox` with `extra` arguments.
fn transport(sandbox: &Sandbox, extra: &[&str]) -> TokioChildProcess {
    let command = tokio::process::Command::from(sandbox.command(extra));
    TokioChildProcess::new(command).expect("the fixture starts")
}

/// A client connected to the fixture, and where its progress arrives.
async fn connect(
    sandbox: &Sandbox,
) -> (Session, mpsc::UnboundedReceiver<ProgressNotificationParam>) {
    let (progress, received) = mpsc::unbounded_channel();
    let session = Client { progress }
        .serve(transport(sandbox, &[]))
        .await
        .expect("the MCP handshake completes");
    (session, received)
}

/// Calls `tool` with `arguments`.
async fn call(session: &Session, tool: &'static str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    session
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("tools/call {tool}: {e}"))
}

/// The text of a result's content.
fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect()
}

/// A call's text, which must not be a tool error.
async fn call_ok(session: &Session, tool: &'static str, arguments: Value) -> String {
    let result = call(session, tool, arguments).await;
    assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
    text(&result)
}

/// A call's text, which must be a tool error.
async fn call_err(session: &Session, tool: &'static str, arguments: Value) -> String {
    let result = call(session, tool, arguments).await;
    assert_eq!(result.is_error, Some(true), "{tool}: {result:?}");
    text(&result)
}

#[tokio::test]
async fn the_handshake_names_the_fixture_and_offers_tools_resources_and_prompts() {
    let sandbox = Sandbox::new();
    let (session, _) = connect(&sandbox).await;
    let info = session.peer_info().expect("the server introduced itself");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("toolpass-mcp-fixture")
    );
    assert!(info.capabilities.tools.is_some());
    assert!(info.capabilities.resources.is_some());
    assert!(info.capabilities.prompts.is_some());
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn the_tools_carry_read_only_hints_as_listed() {
    let sandbox = Sandbox::new();
    let (session, _) = connect(&sandbox).await;
    let tools = session.list_all_tools().await.expect("tools/list");
    let hints: Vec<(&str, Option<bool>)> = tools
        .iter()
        .map(|t| {
            let hint = t.annotations.as_ref().and_then(|a| a.read_only_hint);
            (t.name.as_ref(), hint)
        })
        .collect();
    assert_eq!(
        hints,
        [
            ("read_note", Some(true)),
            ("write_note", Some(false)),
            ("list_notes", None),
            ("large_output", Some(true)),
            ("report_progress", Some(true)),
            ("crash_server", None),
            ("never_answer", Some(true)),
            ("broken_schema", None),
            (
                "count_every_note_in_the_notes_directory_and_the_bytes_they_hold_in_all",
                Some(true)
            ),
        ]
    );
    let list_notes = tools.iter().find(|t| t.name == "list_notes").unwrap();
    assert!(list_notes.annotations.is_none(), "no annotations at all");
    // Qwen's generateValidName keeps 63 characters: this name is cut for
    // the shortest server name there is.
    let longest = tools.iter().map(|t| t.name.len()).max().unwrap();
    assert!("mcp__x__".len() + longest > 63);
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn only_broken_schema_has_an_input_schema_that_is_not_json_schema() {
    let sandbox = Sandbox::new();
    let (session, _) = connect(&sandbox).await;
    for tool in session.list_all_tools().await.expect("tools/list") {
        let schema = Value::Object((*tool.input_schema).clone());
        let valid = jsonschema::meta::is_valid(&schema);
        assert_eq!(
            valid,
            tool.name != "broken_schema",
            "{}: {schema}",
            tool.name
        );
    }
    // It still runs: it echoes what it was given.
    let echoed = call_ok(&session, "broken_schema", json!({"query": 7})).await;
    assert_eq!(echoed, r#"{"query":7}"#);
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn notes_are_written_read_listed_and_counted_in_the_notes_directory() {
    let sandbox = Sandbox::new();
    let (session, _) = connect(&sandbox).await;
    let wrote = call_ok(
        &session,
        "write_note",
        json!({"name": "b.txt", "content": "bee\n"}),
    )
    .await;
    assert_eq!(wrote, "wrote 4 bytes to b.txt");
    call_ok(
        &session,
        "write_note",
        json!({"name": "a.txt", "content": "ay"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(sandbox.notes().join("b.txt")).unwrap(),
        "bee\n"
    );
    assert_eq!(
        call_ok(&session, "read_note", json!({"name": "b.txt"})).await,
        "bee\n"
    );
    assert_eq!(
        call_ok(&session, "list_notes", json!({})).await,
        "a.txt\nb.txt\n"
    );
    let long = "count_every_note_in_the_notes_directory_and_the_bytes_they_hold_in_all";
    assert_eq!(call_ok(&session, long, json!({})).await, "2 notes, 6 bytes");
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn a_note_outside_the_directory_is_refused_by_name_and_by_symlink() {
    let sandbox = Sandbox::new();
    // A link inside the notes directory to the file beside it.
    std::os::unix::fs::symlink("../outside.txt", sandbox.notes().join("escape")).unwrap();
    let (session, _) = connect(&sandbox).await;
    let climbed = call_err(&session, "read_note", json!({"name": "../outside.txt"})).await;
    assert!(climbed.contains("is not a note name"), "{climbed}");
    let linked = call_err(&session, "read_note", json!({"name": "escape"})).await;
    assert!(linked.contains("read note \"escape\" beneath"), "{linked}");
    let written = call_err(
        &session,
        "write_note",
        json!({"name": "escape", "content": "x"}),
    )
    .await;
    assert!(
        written.contains("write note \"escape\" beneath"),
        "{written}"
    );
    let missing = call_err(&session, "read_note", json!({"name": "nope.txt"})).await;
    assert!(
        missing.starts_with("no note named \"nope.txt\" in "),
        "{missing}"
    );
    assert_eq!(
        std::fs::read_to_string(sandbox.root().join("outside.txt")).unwrap(),
        OUTSIDE_TEXT
    );
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn bad_arguments_and_unknown_tools_are_errors_that_name_them() {
    let sandbox = Sandbox::new();
    let (session, _) = connect(&sandbox).await;
    let typo = call_err(&session, "read_note", json!({"nme": "a"})).await;
    assert!(
        typo.starts_with("read_note: invalid arguments: unknown field `nme`"),
        "{typo}"
    );
    let steps = call_err(&session, "report_progress", json!({"steps": 0})).await;
    assert!(
        steps.contains("steps must be between 1 and 100, got 0"),
        "{steps}"
    );
    let unknown = session
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await
        .expect_err("an unknown tool is a protocol error");
    let ServiceError::McpError(error) = unknown else {
        panic!("{unknown:?}")
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("no_such_tool"), "{}", error.message);
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn large_output_is_600000_characters_with_numbered_ends() {
    let sandbox = Sandbox::new();
    let (session, _) = connect(&sandbox).await;
    let output = call_ok(&session, "large_output", json!({})).await;
    assert_eq!(output.chars().count(), 600_000);
    assert!(
        output.starts_with("000001 abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\n000002 ")
    );
    assert!(output.ends_with("\n010000 abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\n"));
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn progress_arrives_under_the_requests_token_one_per_step() {
    let sandbox = Sandbox::new();
    let (session, mut progress) = connect(&sandbox).await;
    let answer = call_ok(&session, "report_progress", json!({"steps": 4})).await;
    assert_eq!(answer, "completed 4 steps");
    let mut seen = Vec::new();
    for _ in 0..4 {
        // The server wrote all four before its answer; the SDK hands them to
        // the handler on its own task, so they may still be on their way.
        let update = tokio::time::timeout(Duration::from_secs(30), progress.recv())
            .await
            .expect("a progress notification per step")
            .expect("the client still runs");
        seen.push((update.progress, update.total, update.message));
    }
    let expected: Vec<_> = (1..=4)
        .map(|s| (f64::from(s), Some(4.0), Some(format!("step {s} of 4"))))
        .collect();
    assert_eq!(seen, expected);
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn resources_are_a_text_and_a_base64_blob() {
    let sandbox = Sandbox::new();
    let (session, _) = connect(&sandbox).await;
    let listed = session.list_all_resources().await.expect("resources/list");
    let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        ["fixture://text/welcome.txt", "fixture://blob/all-bytes.bin"]
    );

    let read = |uri: &str| session.read_resource(ReadResourceRequestParams::new(uri));
    let text = read("fixture://text/welcome.txt")
        .await
        .expect("resources/read");
    match &text.contents[..] {
        [
            ResourceContents::TextResourceContents {
                text, mime_type, ..
            },
        ] => {
            assert!(
                text.starts_with("Welcome to the toolpass MCP fixture.\n"),
                "{text}"
            );
            assert_eq!(mime_type.as_deref(), Some("text/plain"));
        }
        other => panic!("{other:?}"),
    }
    let blob = read("fixture://blob/all-bytes.bin")
        .await
        .expect("resources/read");
    match &blob.contents[..] {
        [ResourceContents::BlobResourceContents { blob, .. }] => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob)
                .unwrap();
            assert_eq!(bytes, (0..=255).collect::<Vec<u8>>());
        }
        other => panic!("{other:?}"),
    }
    let missing = read("fixture://nothing")
        .await
        .expect_err("no such resource");
    let ServiceError::McpError(error) = missing else {
        panic!("{missing:?}")
    };
    assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn prompts_are_listed_and_filled_in_from_their_arguments() {
    let sandbox = Sandbox::new();
    let (session, _) = connect(&sandbox).await;
    let prompts = session.list_all_prompts().await.expect("prompts/list");
    let shapes: Vec<(&str, usize)> = prompts
        .iter()
        .map(|p| (p.name.as_str(), p.arguments.as_ref().map_or(0, Vec::len)))
        .collect();
    assert_eq!(shapes, [("review_note", 2), ("daily_summary", 0)]);

    let get = |name: &str, arguments: Value| {
        let mut params = GetPromptRequestParams::new(name);
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        session.get_prompt(params)
    };
    let message = |result: rmcp::model::GetPromptResult| {
        let [message] = &result.messages[..] else {
            panic!("{result:?}")
        };
        message
            .content
            .as_text()
            .expect("a text message")
            .text
            .clone()
    };
    let review = get("review_note", json!({"name": "a.txt", "focus": "typos"}))
        .await
        .unwrap();
    assert_eq!(
        message(review),
        "Review the note \"a.txt\", looking at typos."
    );
    let summary = get("daily_summary", Value::Null).await.unwrap();
    assert_eq!(message(summary), "Summarize today's notes in three lines.");
    let missing = get("review_note", json!({}))
        .await
        .expect_err("name is required");
    let ServiceError::McpError(error) = missing else {
        panic!("{missing:?}")
    };
    assert!(
        error.message.contains("\"name\" is required"),
        "{}",
        error.message
    );
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn a_crash_mid_call_is_a_closed_transport() {
    let sandbox = Sandbox::new();
    let (session, _) = connect(&sandbox).await;
    let crashed = session
        .call_tool(CallToolRequestParams::new("crash_server"))
        .await
        .expect_err("the server exits without answering");
    assert!(
        matches!(crashed, ServiceError::TransportClosed),
        "{crashed:?}"
    );
    let after = session
        .list_all_tools()
        .await
        .expect_err("the server is gone");
    assert!(matches!(after, ServiceError::TransportClosed), "{after:?}");
}

#[tokio::test]
async fn a_call_that_never_answers_times_out_in_the_client_and_the_server_goes_on() {
    let sandbox = Sandbox::new();
    let (session, _) = connect(&sandbox).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new(
        "never_answer",
    )));
    let handle = session
        .send_request_with_option(
            request,
            PeerRequestOptions::with_timeout(Duration::from_millis(300)),
        )
        .await
        .expect("the request is sent");
    let timed_out = handle.await_response().await.expect_err("no answer comes");
    assert!(
        matches!(timed_out, ServiceError::Timeout { .. }),
        "{timed_out:?}"
    );
    // The client cancelled the call on its timeout; the server still serves.
    assert_eq!(call_ok(&session, "list_notes", json!({})).await, "");
    session.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn never_initialize_leaves_the_handshake_to_the_clients_timeout() {
    let sandbox = Sandbox::new();
    let (progress, _) = mpsc::unbounded_channel();
    let handshake = Client { progress }.serve(transport(&sandbox, &["--never-initialize"]));
    let waited = tokio::time::timeout(Duration::from_millis(500), handshake).await;
    assert!(waited.is_err(), "the handshake ended without a timeout");
}

#[tokio::test]
async fn invalid_json_is_ignored_by_the_sdk_so_only_the_clients_timeout_ends_the_handshake() {
    // rmcp skips a line that does not parse, as the other official MCP SDKs
    // do (replying could start an error storm), so a client built on it
    // needs its own handshake timeout for this server too. `wire.rs` shows
    // the server does answer, with a line that is not JSON.
    let sandbox = Sandbox::new();
    let (progress, _) = mpsc::unbounded_channel();
    let handshake = Client { progress }.serve(transport(&sandbox, &["--invalid-json"]));
    let waited = tokio::time::timeout(Duration::from_millis(500), handshake).await;
    assert!(waited.is_err(), "the handshake ended without a timeout");
}
