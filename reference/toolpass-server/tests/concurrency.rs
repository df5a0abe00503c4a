//! The server's concurrency model, held to its invariants over stdio
//! (ARCHITECTURE.md, `toolpass-server`): a session's calls apply in the
//! order they arrived; a call awaiting confirmation or parked in one
//! session does not hold up another; a cancellation reaches a running
//! call; updates go out under the caller's progress token only; the end of
//! input answers everything read, ends calls waiting for the client, and
//! exits 0; an answer the confirmation does not offer (a modify of a sed
//! edit) is refused and the call goes on waiting.

mod common;

use std::fs;
use std::path::Path;

use common::{Server, sandbox, status};
use serde_json::json;

/// A session in approval mode `default` with `a.txt` ("alpha\n") read.
fn asking_with_a_read_file() -> (tempfile::TempDir, std::path::PathBuf, Server, String) {
    let (dir, root) = sandbox();
    let file = root.join("a.txt");
    fs::write(&file, "alpha\n").unwrap();
    let mut server = Server::start();
    let session = server.open(&root, json!({"approvalMode": "default"}));
    read(&mut server, &session, &file);
    (dir, file, server, session)
}

fn read(server: &mut Server, session: &str, file: &Path) {
    let id = server.call(session, "read", "read_file", json!({"file_path": file}));
    assert_eq!(status(&server.result(id)), "success");
}

#[test]
fn a_sessions_pipelined_calls_apply_in_the_order_they_arrived() {
    let (_dir, root) = sandbox();
    let file = root.join("a.txt");
    fs::write(&file, "0\n").unwrap();
    let mut server = Server::start();
    let session = server.open(&root, json!({}));
    read(&mut server, &session, &file);
    // Each edit only matches after the one before it: out of order, one
    // would fail with edit_no_occurrence_found.
    let ids: Vec<i64> = (0..50)
        .map(|i| {
            let args = json!({"file_path": file, "old_string": format!("{i}\n"),
                              "new_string": format!("{}\n", i + 1)});
            server.call(&session, &format!("e{i}"), "edit", args)
        })
        .collect();
    for id in ids {
        assert_eq!(status(&server.result(id)), "success");
    }
    assert_eq!(fs::read_to_string(&file).unwrap(), "50\n");
    let (exit, _) = server.finish();
    assert!(exit.success());
}

#[test]
fn a_call_awaiting_confirmation_does_not_hold_up_another_session() {
    let (_dir, root) = sandbox();
    let file = root.join("a.txt");
    fs::write(&file, "alpha\nbeta\n").unwrap();
    let mut server = Server::start();
    let asking = server.open(&root, json!({"approvalMode": "default"}));
    let other = server.open(&root, json!({}));
    read(&mut server, &asking, &file);
    read(&mut server, &other, &file);
    let edit = json!({"file_path": file, "old_string": "beta", "new_string": "gamma"});
    let waiting = server.call(&asking, "ask", "edit", edit);
    let awaiting = server.result(waiting);
    assert_eq!(status(&awaiting), "awaiting_confirmation");
    assert_eq!(
        awaiting["_meta"]["toolpass"]["confirmation"]["title"],
        "Confirm Edit: a.txt"
    );
    // The other session edits the same file while the question is open.
    let edit = json!({"file_path": file, "old_string": "alpha", "new_string": "A"});
    let id = server.call(&other, "go", "edit", edit);
    assert_eq!(status(&server.result(id)), "success");
    // The answer finds the file changed since the read: nothing lost.
    let id = server.send(
        "toolpass/confirm",
        json!({"sessionId": asking, "callId": "ask", "outcome": "proceed_once"}),
    );
    let confirmed = server.result(id);
    assert_eq!(
        confirmed["_meta"]["toolpass"]["error"]["code"],
        "file_changed_since_read"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "A\nbeta\n");
}

#[test]
fn a_cancellation_reaches_a_running_call_and_updates_carry_its_token() {
    let (_dir, root) = sandbox();
    let file = root.join("a.txt");
    fs::write(&file, "alpha\n").unwrap();
    let mut server = Server::start();
    let session = server.open(&root, json!({}));
    let other = server.open(&root, json!({}));
    let id = server.send(
        "toolpass/fault",
        json!({"sessionId": session, "point": "call.park"}),
    );
    server.result(id);
    let parked = server.call(&session, "parked", "read_file", json!({"file_path": file}));
    // The parked call says so under its progress token.
    let update = server.next_where(|line| line["method"] == "notifications/progress");
    assert_eq!(update["params"]["progressToken"], "parked");
    assert_eq!(update["params"]["progress"], 1.0);
    // Another session is served while it is parked.
    let id = server.call(&other, "r", "read_file", json!({"file_path": file}));
    assert_eq!(status(&server.result(id)), "success");
    server.notify(
        "notifications/cancelled",
        json!({"requestId": parked, "reason": "test"}),
    );
    let cancelled = server.result(parked);
    assert_eq!(status(&cancelled), "cancelled");
    assert_eq!(cancelled["isError"], true);
    assert!(
        cancelled["_meta"]["toolpass"]["llmContent"]
            .as_str()
            .unwrap()
            .starts_with("[Operation Cancelled] Reason: User intentionally cancelled")
    );
    // The session goes on.
    let id = server.call(&session, "after", "read_file", json!({"file_path": file}));
    assert_eq!(status(&server.result(id)), "success");
    let (exit, rest) = server.finish();
    assert!(exit.success());
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn a_call_without_a_progress_token_gets_no_updates() {
    let (_dir, root) = sandbox();
    let file = root.join("a.txt");
    fs::write(&file, "alpha\n").unwrap();
    let mut server = Server::start();
    let session = server.open(&root, json!({}));
    let id = server.send(
        "toolpass/fault",
        json!({"sessionId": session, "point": "call.park"}),
    );
    server.result(id);
    let parked = server.send(
        "tools/call",
        json!({"name": "read_file", "arguments": {"file_path": file},
               "_meta": {"toolpass": {"sessionId": session, "callId": "quiet"}}}),
    );
    server.notify("notifications/cancelled", json!({"requestId": parked}));
    assert_eq!(status(&server.result(parked)), "cancelled");
    let (exit, rest) = server.finish();
    assert!(exit.success());
    assert!(rest.is_empty(), "no update without a token: {rest:?}");
}

#[test]
fn the_end_of_input_answers_everything_read_and_ends_a_parked_call() {
    let (_dir, root) = sandbox();
    let file = root.join("a.txt");
    fs::write(&file, "alpha\n").unwrap();
    let mut server = Server::start();
    let session = server.open(&root, json!({}));
    read(&mut server, &session, &file);
    let fault = server.send(
        "toolpass/fault",
        json!({"sessionId": session, "point": "call.park"}),
    );
    let parked = server.call(&session, "parked", "read_file", json!({"file_path": file}));
    // Queued behind the parked call, and still answered, and applied.
    let edit = json!({"file_path": file, "old_string": "alpha", "new_string": "omega"});
    let queued = server.call(&session, "queued", "edit", edit);
    let (exit, rest) = server.finish();
    assert!(exit.success());
    let answer = |id: i64| {
        rest.iter()
            .find(|line| line["id"] == id)
            .unwrap_or_else(|| panic!("no answer to {id}: {rest:?}"))
    };
    assert!(answer(fault)["result"].is_object());
    assert_eq!(status(&answer(parked)["result"]), "cancelled");
    assert_eq!(status(&answer(queued)["result"]), "success");
    assert_eq!(fs::read_to_string(&file).unwrap(), "omega\n");
}

#[test]
fn a_confirmation_names_its_call_and_a_modify_needs_its_content() {
    let (_dir, file, mut server, session) = asking_with_a_read_file();
    let edit = json!({"file_path": file, "old_string": "alpha", "new_string": "beta"});
    let id = server.call(&session, "ask", "edit", edit.clone());
    assert_eq!(status(&server.result(id)), "awaiting_confirmation");
    // The same call id again while it waits: refused, it is not a new call.
    let id = server.call(&session, "ask", "edit", edit.clone());
    assert_eq!(server.answer(id)["error"]["code"], -32602);
    // In a batch too, wherever it stands; the batch's other calls do not run.
    let calls = json!([
        {"callId": "fresh", "name": "edit", "arguments": edit},
        {"callId": "ask", "name": "read_file", "arguments": {"file_path": file}},
    ]);
    let id = server.send(
        "toolpass/batch",
        json!({"sessionId": session, "calls": calls}),
    );
    let reply = server.answer(id);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("call id ask already awaits confirmation"),
        "{message}"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "alpha\n");
    let id = server.send(
        "toolpass/confirm",
        json!({"sessionId": session, "callId": "ask", "outcome": "modify"}),
    );
    let reply = server.answer(id);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    // The call still waits, and a complete answer runs it.
    let id = server.send(
        "toolpass/confirm",
        json!({"sessionId": session, "callId": "ask", "outcome": "modify",
               "modifiedContent": "mine\n"}),
    );
    let done = server.result(id);
    assert_eq!(status(&done), "success");
    assert_eq!(fs::read_to_string(&file).unwrap(), "mine\n");
    let stat = &done["_meta"]["toolpass"]["display"];
    assert_eq!(stat["stat"], json!({"addedLines": 1, "removedLines": 1}));
    assert_eq!(
        stat["userStat"],
        json!({"addedLines": 1, "removedLines": 1})
    );
    // Answered once: a second answer names no waiting call.
    let id = server.send(
        "toolpass/confirm",
        json!({"sessionId": session, "callId": "ask", "outcome": "cancel"}),
    );
    let reply = server.answer(id);
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(reply["error"]["data"]["callId"], "ask");
}

#[test]
fn a_sed_edit_offers_no_modify_and_still_waits_for_an_answer_it_offers() {
    let (_dir, file, mut server, session) = asking_with_a_read_file();
    let sed = json!({"command": "sed -i 's/alpha/beta/' a.txt"});
    let id = server.call(&session, "sed", "run_shell_command", sed);
    let asked = server.result(id);
    assert_eq!(status(&asked), "awaiting_confirmation");
    assert_eq!(
        asked["_meta"]["toolpass"]["confirmation"]["type"], "edit",
        "{asked}"
    );
    let id = server.send(
        "toolpass/confirm",
        json!({"sessionId": session, "callId": "sed", "outcome": "modify",
               "modifiedContent": "mine\n"}),
    );
    let reply = server.answer(id);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "alpha\n");
    let id = server.send(
        "toolpass/confirm",
        json!({"sessionId": session, "callId": "sed", "outcome": "proceed_once"}),
    );
    assert_eq!(status(&server.result(id)), "success");
    assert_eq!(fs::read_to_string(&file).unwrap(), "beta\n");
}
