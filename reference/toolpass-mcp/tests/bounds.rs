//! The client's bounds on what a server sends, against the MCP test
//! server's hostile modes: an answer over the message limit, and tools
//! whose `inputSchema` cannot be used.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Map;
use toolpass_mcp::testkit::fixture_spec;
use toolpass_mcp::{Abort, CallError, Connection};

fn connect(mode: &str) -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let connection =
        Connection::connect(mode, &fixture_spec(dir.path(), &["--mode", mode])).unwrap();
    (dir, connection)
}

#[test]
fn an_answer_over_the_limit_fails_at_once_naming_it_and_the_server_goes_on() {
    let (_dir, connection) = connect("oversized-result");
    let started = Instant::now();
    let failed = connection
        .call_tool(
            "oversized_result",
            Map::new(),
            Arc::new(|_| {}),
            &Abort::default(),
        )
        .unwrap_err();
    // The spec's request timeout is 10 s: the answer came well before.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let CallError::Server(message) = failed else {
        panic!("not a server error: {failed:?}");
    };
    assert!(message.contains("16 MiB"), "{message}");
    let listing = connection.list().unwrap();
    assert!(listing.tools.iter().any(|t| t.name == "oversized_result"));
}

#[test]
fn tools_with_unusable_schemas_are_refused_and_the_others_listed() {
    let (_dir, connection) = connect("bad-schemas");
    let listing = connection.list().unwrap();
    let names: Vec<&str> = listing.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["echo_first", "echo_last"]);
    let answer = connection
        .call_tool("echo_last", Map::new(), Arc::new(|_| {}), &Abort::default())
        .unwrap();
    assert_eq!(answer.content[0]["text"], "echo_last answered");
}
