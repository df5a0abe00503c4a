//! The client against the MCP test server (`toolpass-mcp-fixture`), a real
//! rmcp server started as a child process.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use toolpass_core::mcp::resource::Content;
use toolpass_mcp::testkit::{fixture_spec, is_gone};
use toolpass_mcp::{Abort, CallError, Connection, Progress};

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn nowhere() -> Arc<dyn Fn(Progress) + Send + Sync> {
    Arc::new(|_| {})
}

fn notes() -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    let connection = Connection::connect("notes", &fixture_spec(dir.path(), &[])).unwrap();
    (dir, connection)
}

fn text(content: &[Value]) -> String {
    content.iter().filter_map(|c| c["text"].as_str()).collect()
}

#[test]
fn a_server_is_listed_in_full() {
    let (_dir, connection) = notes();
    let listing = connection.list().unwrap();
    let names: Vec<&str> = listing.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names.len(), 9, "{names:?}");
    assert_eq!(names[..3], ["read_note", "write_note", "list_notes"]);
    let read = &listing.tools[0];
    assert_eq!(read.annotations.and_then(|a| a.read_only), Some(true));
    assert_eq!(read.input_schema["required"], json!(["name"]));
    assert_eq!(
        listing.tools[2].annotations, None,
        "list_notes has no annotations"
    );
    let prompts: Vec<&str> = listing.prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(prompts, ["review_note", "daily_summary"]);
    assert_eq!(
        listing.prompts[0].arguments,
        [("name".to_owned(), true), ("focus".to_owned(), false)]
    );
    assert_eq!(
        listing.resources,
        ["fixture://text/welcome.txt", "fixture://blob/all-bytes.bin"]
    );
}

#[test]
fn a_call_answers_and_a_failing_call_says_so() {
    let (_dir, connection) = notes();
    let answer = connection
        .call_tool(
            "read_note",
            args(json!({"name": "a.txt"})),
            nowhere(),
            &Abort::default(),
        )
        .unwrap();
    assert!(!answer.is_error);
    assert_eq!(text(&answer.content), "alpha\n");
    let missing = connection
        .call_tool(
            "read_note",
            args(json!({"name": "b.txt"})),
            nowhere(),
            &Abort::default(),
        )
        .unwrap();
    assert!(missing.is_error);
    assert!(
        text(&missing.content).contains("no note named \"b.txt\""),
        "{missing:?}"
    );
}

#[test]
fn every_progress_step_reaches_the_caller_before_the_answer() {
    let (_dir, connection) = notes();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let answer = connection
        .call_tool(
            "report_progress",
            args(json!({"steps": 4})),
            Arc::new(move |p: Progress| sink.lock().unwrap().push(p)),
            &Abort::default(),
        )
        .unwrap();
    assert_eq!(text(&answer.content), "completed 4 steps");
    let seen = seen.lock().unwrap();
    let steps: Vec<(f64, Option<f64>)> = seen.iter().map(|p| (p.progress, p.total)).collect();
    assert_eq!(
        steps,
        [
            (1.0, Some(4.0)),
            (2.0, Some(4.0)),
            (3.0, Some(4.0)),
            (4.0, Some(4.0))
        ]
    );
    assert_eq!(seen[0].message.as_deref(), Some("step 1 of 4"));
}

#[test]
fn a_call_that_never_answers_ends_by_abort_or_by_timeout() {
    let (dir, connection) = notes();
    let abort = Abort::default();
    abort.abort();
    let aborted = connection.call_tool("never_answer", Map::new(), nowhere(), &abort);
    assert_eq!(aborted, Err(CallError::Aborted));
    let mut spec = fixture_spec(dir.path(), &[]);
    spec.request_timeout = Duration::from_millis(300);
    let quick = Connection::connect("quick", &spec).unwrap();
    let timed_out = quick.call_tool("never_answer", Map::new(), nowhere(), &Abort::default());
    assert_eq!(
        timed_out,
        Err(CallError::Timeout(Duration::from_millis(300)))
    );
    assert_eq!(
        timed_out.unwrap_err().to_string(),
        "MCP error -32001: Request timed out"
    );
    // The connection still serves after both.
    assert!(
        connection
            .call_tool("list_notes", Map::new(), nowhere(), &Abort::default())
            .is_ok()
    );
}

#[test]
fn a_server_that_exits_mid_call_closes_the_connection() {
    let (_dir, connection) = notes();
    let crashed = connection.call_tool("crash_server", Map::new(), nowhere(), &Abort::default());
    assert_eq!(crashed, Err(CallError::Closed));
    let deadline = Instant::now() + Duration::from_secs(10);
    while !connection.is_closed() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(connection.is_closed());
    let after = connection.call_tool("list_notes", Map::new(), nowhere(), &Abort::default());
    assert_eq!(after, Err(CallError::Closed));
}

#[test]
fn a_server_that_never_initializes_is_a_timeout_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = fixture_spec(dir.path(), &["--never-initialize"]);
    spec.initialize_timeout = Duration::from_millis(500);
    let started = Instant::now();
    let error = Connection::connect("silent", &spec).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        error.message.starts_with("MCP server 'silent' ("),
        "{error}"
    );
    assert!(
        error
            .message
            .ends_with("initialize: no answer within 500 ms"),
        "{error}"
    );
}

#[test]
fn a_server_that_answers_with_lines_that_are_not_json_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Like the TypeScript SDK, rmcp drops a line it cannot parse and keeps
    // waiting for the answer: the timeout ends the wait.
    let mut spec = fixture_spec(dir.path(), &["--invalid-json"]);
    spec.initialize_timeout = Duration::from_millis(800);
    let error = Connection::connect("garbled", &spec).unwrap_err();
    assert!(error.message.contains("initialize"), "{error}");
}

#[test]
fn a_program_that_cannot_start_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = fixture_spec(dir.path(), &[]);
    spec.command = "toolpass-no-such-mcp-server".to_owned();
    let error = Connection::connect("missing", &spec).unwrap_err();
    assert!(
        error
            .message
            .starts_with("MCP server 'missing' (toolpass-no-such-mcp-server): start it in"),
        "{error}"
    );
}

#[test]
fn resources_are_read_as_text_and_as_base64() {
    let (_dir, connection) = notes();
    let text = connection
        .read_resource("fixture://text/welcome.txt")
        .unwrap();
    assert_eq!(
        text,
        [Content::Text(
            "Welcome to the toolpass MCP fixture.\nThis resource is text/plain.\n".to_owned()
        )]
    );
    let blob = connection
        .read_resource("fixture://blob/all-bytes.bin")
        .unwrap();
    let [Content::Blob { base64, mime_type }] = blob.as_slice() else {
        panic!("one blob: {blob:?}");
    };
    assert_eq!(mime_type.as_deref(), Some("application/octet-stream"));
    assert!(base64.starts_with("AAECAwQF"), "{base64}");
    let missing = connection.read_resource("fixture://nothing");
    assert!(
        matches!(missing, Err(CallError::Server(ref m)) if m.contains("no resource")),
        "{missing:?}"
    );
}

#[test]
fn a_shut_down_server_is_gone_and_a_dropped_one_goes() {
    let (_dir, connection) = notes();
    let pid = connection.pid().expect("the server's pid");
    assert!(!is_gone(pid));
    connection.shutdown();
    assert!(is_gone(pid), "the server outlived its shutdown");

    let (_dir, dropped) = notes();
    let pid = dropped.pid().unwrap();
    drop(dropped);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !is_gone(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(is_gone(pid), "the server outlived its dropped connection");
}
