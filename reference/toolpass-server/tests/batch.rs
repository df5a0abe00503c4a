//! `toolpass/batch` over stdio: a batch as large as a model could never
//! send still answers every call in order within bounded time, calls of
//! unknown tools fail in their place, a cancellation of the batch reaches
//! its calls, and the budget's account comes back with the results.

mod common;

use std::fs;

use common::{Server, sandbox, status};
use serde_json::{Value, json};

fn batch(server: &mut Server, session: &str, calls: Vec<Value>) -> Value {
    let id = server.send(
        "toolpass/batch",
        json!({"sessionId": session, "calls": calls}),
    );
    server.result(id)
}

#[test]
fn ten_thousand_calls_mixing_unknown_tools_answer_in_order() {
    let (_dir, root) = sandbox();
    for i in 0..10 {
        fs::write(root.join(format!("f{i}.txt")), format!("{i}\n")).unwrap();
    }
    let mut server = Server::start();
    // No batch budget: 1 430 unknown-tool messages alone pass the default
    // 200 000, and this test is about order, not the cut.
    let session = server.open(&root, json!({"toolOutputBatchBudget": 0}));
    let calls: Vec<Value> = (0..10_000)
        .map(|i| {
            let name = if i % 7 == 3 {
                "no_such_tool"
            } else {
                "read_file"
            };
            let file = root.join(format!("f{}.txt", i % 10));
            json!({"callId": format!("c{i}"), "name": name, "arguments": {"file_path": file}})
        })
        .collect();
    let result = batch(&mut server, &session, calls);
    let results = result["results"].as_array().unwrap();
    assert_eq!(results.len(), 10_000);
    for (i, outcome) in results.iter().enumerate() {
        let meta = &outcome["_meta"]["toolpass"];
        if i % 7 == 3 {
            assert_eq!(status(outcome), "error", "call {i}");
            assert_eq!(meta["error"]["code"], "tool_not_registered", "call {i}");
        } else {
            assert_eq!(status(outcome), "success", "call {i}");
            // The first read of a file gives its text, a later one Qwen's
            // "unchanged since last read" placeholder naming it: either
            // says which file answered this call.
            let text = meta["llmContent"].as_str().unwrap();
            let n = i % 10;
            assert!(
                text == format!("{n}\n") || text.starts_with(&format!("[File f{n}.txt unchanged")),
                "call {i}: {text}"
            );
        }
    }
    // No budget, no account.
    assert!(result.get("budget").is_none(), "{}", result["budget"]);
    let (exit, _) = server.finish();
    assert!(exit.success());
}

#[test]
fn a_batch_over_its_budget_reports_the_cut_and_saves_the_whole_text() {
    let (_dir, root) = sandbox();
    let long = "0123456789".repeat(500);
    fs::write(root.join("short.txt"), "short\n").unwrap();
    fs::write(root.join("long.txt"), &long).unwrap();
    let mut server = Server::start();
    let session = server.open(&root, json!({"toolOutputBatchBudget": 1000}));
    let calls = vec![
        json!({"callId": "s", "name": "read_file", "arguments": {"file_path": root.join("short.txt")}}),
        json!({"callId": "l", "name": "read_file", "arguments": {"file_path": root.join("long.txt")}}),
    ];
    let result = batch(&mut server, &session, calls);
    assert_eq!(
        result["budget"],
        json!({"budget": 1000, "before": 5006, "after": 1000, "reduced": 1})
    );
    let cut = &result["results"][1]["_meta"]["toolpass"];
    let saved = cut["persistedOutputPath"].as_str().unwrap();
    assert!(saved.ends_with("/l.txt"), "{saved}");
    assert_eq!(fs::read_to_string(saved).unwrap(), long);
    let mode = std::os::unix::fs::PermissionsExt::mode(&fs::metadata(saved).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let (exit, _) = server.finish();
    assert!(exit.success());
}

#[test]
fn cancelling_a_batch_cancels_the_call_it_is_running() {
    let (_dir, root) = sandbox();
    fs::write(root.join("a.txt"), "a\n").unwrap();
    let mut server = Server::start();
    let session = server.open(&root, json!({}));
    let id = server.send(
        "toolpass/fault",
        json!({"sessionId": session, "point": "call.park"}),
    );
    server.result(id);
    let calls = vec![
        json!({"callId": "p", "name": "read_file", "arguments": {"file_path": root.join("a.txt")}}),
        json!({"callId": "q", "name": "read_file", "arguments": {"file_path": root.join("a.txt")}}),
    ];
    let id = server.send(
        "toolpass/batch",
        json!({"sessionId": session, "calls": calls}),
    );
    // Whether the first call has parked yet or not, cancelling the batch's
    // request ends it (parked: cancelled; not started: cancelled before it
    // runs), and the call after it is cancelled before it runs.
    server.notify("notifications/cancelled", json!({"requestId": id}));
    let result = server.result(id);
    assert_eq!(status(&result["results"][0]), "cancelled");
    assert_eq!(status(&result["results"][1]), "cancelled");
    let (exit, _) = server.finish();
    assert!(exit.success());
}
