//! A session's `mcpServers` over real toolpass/1 lines: the servers are
//! connected when the session opens, their tools called, and no server
//! process outlives the session, closed or ended with the input.

mod common;

use std::fs;

use common::{Server, sandbox, status};
use serde_json::json;
use toolpass_mcp::testkit::{fixture, is_gone};

/// The processes whose parent is `parent`, but for its shells' cgroup
/// watchdog (toolpass_shell::contain), which lives as long as it does.
fn children(parent: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...
        let after = &stat[stat.rfind(')').unwrap_or(0) + 1..];
        let ppid = after
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok());
        let watchdog = fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.split(|&b| b == 0).any(|a| a == b"--toolpass-watchdog"));
        if ppid == Some(parent) && !is_gone(pid) && !watchdog {
            found.push(pid);
        }
    }
    found
}

fn notes_config() -> serde_json::Value {
    json!({"mcpServers": {"notes": {"command": fixture(), "trust": true}}})
}

#[test]
fn a_sessions_servers_serve_its_calls_and_go_with_it() {
    let (_dir, root) = sandbox();
    fs::write(root.join("a.txt"), "alpha\n").unwrap();
    let mut server = Server::start();
    let session = server.open(&root, notes_config());
    let id = server.call(
        &session,
        "c1",
        "mcp__notes__read_note",
        json!({"name": "a.txt"}),
    );
    let result = server.result(id);
    assert_eq!(status(&result), "success", "{result}");
    assert_eq!(result["_meta"]["toolpass"]["llmContent"], "alpha\n");
    let spawned = children(server.child.id());
    assert_eq!(spawned.len(), 1, "one MCP server: {spawned:?}");

    let id = server.send("toolpass/session.close", json!({"sessionId": session}));
    server.result(id);
    assert!(is_gone(spawned[0]), "the MCP server outlived its session");

    // A session still open when the input ends takes its servers along.
    let session = server.open(&root, notes_config());
    let id = server.call(&session, "c2", "mcp__notes__list_notes", json!({}));
    assert_eq!(status(&server.result(id)), "success");
    let spawned = children(server.child.id());
    assert_eq!(spawned.len(), 1, "{spawned:?}");
    let (exit, _) = server.finish();
    assert!(exit.success());
    assert!(
        is_gone(spawned[0]),
        "the MCP server outlived the server's input"
    );
}
