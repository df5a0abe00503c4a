//! `toolpass-server --mcp` driven by a real MCP client: the official Rust
//! SDK (`rmcp`, pinned in the workspace) spawns it as a child process,
//! initializes, lists the tools and reads a file, as an agent configured
//! with it as an MCP server would, and cancels a call by dropping it. The
//! server side is the same SDK's; the hand-written JSON of `stdio.rs` and
//! `mcp_wire.rs` checks what goes over the wire, this that an SDK client
//! that knows nothing of toolpass gets on with it.

use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::transport::TokioChildProcess;
use serde_json::json;
use tokio::process::Command;

/// The server in plain MCP mode at `root`.
fn server(root: &std::path::Path) -> TokioChildProcess {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolpass-server"));
    command.arg("--mcp").arg("--root").arg(root);
    TokioChildProcess::new(command).expect("the server starts")
}

/// A `tools/call` of `name` with `arguments` (an object).
fn call(name: &'static str, arguments: &serde_json::Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(arguments.as_object().unwrap().clone())
}

/// A client asking for `version` at `initialize`.
fn client(version: ProtocolVersion) -> ClientConfig {
    let mut info = ClientConfig::default();
    info.protocol_version = version;
    info
}

#[tokio::test]
async fn an_mcp_client_initializes_lists_the_tools_and_reads_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("notes.txt"), "first line\nsecond line\n").unwrap();

    let service = client(ProtocolVersion::V_2025_06_18)
        .serve(server(&root))
        .await
        .expect("the MCP handshake completes");
    let peer = service.peer_info().expect("the server introduced itself");
    // The version the client asked for, since the server supports it.
    assert_eq!(peer.protocol_version, ProtocolVersion::V_2025_06_18);
    assert_eq!(
        peer.server_info.as_ref().map(|i| i.name.as_str()),
        Some("toolpass-reference")
    );

    let tools = service.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for tool in ["read_file", "write_file", "edit", "list_directory", "glob"] {
        assert!(names.contains(&tool), "{tool} not in {names:?}");
    }

    let arguments = json!({"file_path": root.join("notes.txt")});
    let result = service
        .call_tool(call("read_file", &arguments))
        .await
        .expect("tools/call read_file");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let text: String = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    assert!(text.contains("first line\nsecond line"), "{text:?}");

    service.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn a_version_the_server_lacks_is_answered_with_its_newest() {
    let dir = tempfile::tempdir().unwrap();
    // 2024-11-05 predates what the server supports: it answers its newest
    // (2025-11-25), which this SDK accepts.
    let service = client(ProtocolVersion::V_2024_11_05)
        .serve(server(dir.path()))
        .await
        .expect("the MCP handshake completes");
    let peer = service.peer_info().expect("the server introduced itself");
    assert_eq!(peer.protocol_version, ProtocolVersion::V_2025_11_25);
    service.cancel().await.expect("the client shuts down");
}

#[tokio::test]
async fn a_call_the_client_drops_is_cancelled_and_the_next_call_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let service = client(ProtocolVersion::V_2025_11_25)
        .serve(server(&root))
        .await
        .expect("the MCP handshake completes");
    let pid_file = root.join("shell.pid");
    let arguments = json!({"command": format!("echo $$ > {}; sleep 60", pid_file.display())});
    let long = service.call_tool(call("run_shell_command", &arguments));
    // The SDK sends notifications/cancelled when the call is dropped.
    let dropped = tokio::time::timeout(std::time::Duration::from_secs(2), long).await;
    assert!(
        dropped.is_err(),
        "the 60-second command answered: {dropped:?}"
    );
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("the command started")
        .trim()
        .parse()
        .unwrap();

    let started = std::time::Instant::now();
    let arguments = json!({"file_path": root.join("shell.pid")});
    let read = service
        .call_tool(call("read_file", &arguments))
        .await
        .expect("tools/call read_file");
    assert_ne!(read.is_error, Some(true), "{read:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    // The queue moved on once the command was ended, its shell too.
    let pid = rustix::process::Pid::from_raw(pid).unwrap();
    assert!(
        rustix::process::test_kill_process(pid).is_err(),
        "the cancelled command's shell still runs"
    );
    service.cancel().await.expect("the client shuts down");
}

#[test]
fn updates_and_cancellations_are_the_sdks_own_notifications() {
    use toolpass_protocol::{CancelledParams, ProgressParams, RequestId};
    // An update as the server sends it reads as the SDK's progress.
    let update = ProgressParams {
        progress_token: RequestId::from("call-3"),
        progress: 2.0,
        total: None,
        message: Some("compiling".into()),
    };
    let theirs: rmcp::model::ProgressNotificationParam =
        serde_json::from_value(serde_json::to_value(&update).unwrap()).unwrap();
    assert_eq!(theirs.progress, 2.0);
    assert_eq!(theirs.message.as_deref(), Some("compiling"));
    assert_eq!(
        serde_json::to_value(&theirs.progress_token).unwrap(),
        "call-3"
    );
    // A cancellation as the SDK sends it reads as the server's.
    let cancel = rmcp::model::CancelledNotificationParam::new(
        Some(rmcp::model::NumberOrString::Number(7)),
        Some("the user pressed Esc".into()),
    );
    let ours: CancelledParams =
        serde_json::from_value(serde_json::to_value(&cancel).unwrap()).unwrap();
    assert_eq!(ours.request_id, RequestId::Number(7));
    assert_eq!(ours.reason.as_deref(), Some("the user pressed Esc"));
}
