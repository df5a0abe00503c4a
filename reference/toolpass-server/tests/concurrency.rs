//! The server's concurrency model, held to its invariants over stdio
//! (ARCHITECTURE.md, `toolpass-server`): a session's calls apply in the
//! order they arrived; a call awaiting confirmation or parked in one
//! session does not hold up another; a cancellation reaches a running
//! call; updates go out under the caller's progress token only; the end of
//! input answers everything read, ends calls waiting for the client, and
//! exits 0.

use std::collections::VecDeque;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// How long any one answer may take before the test fails instead of
/// hanging.
const PATIENCE: Duration = Duration::from_secs(60);

/// The server, with a reader thread that hands over its lines.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    /// Lines read while waiting for something else.
    seen: VecDeque<Value>,
    next_id: i64,
}

impl Server {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolpass-server"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || read_lines(stdout, &sender));
        let mut server = Server {
            child,
            stdin,
            lines,
            seen: VecDeque::new(),
            next_id: 0,
        };
        let id = server.send(
            "initialize",
            json!({"protocolVersion": "toolpass/1", "clientInfo": {"name": "t", "version": "0"}, "capabilities": {}}),
        );
        server.answer(id);
        server
    }

    /// Writes a request without waiting; its id.
    fn send(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn write(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line that matches `wanted`, keeping the others.
    fn next_where(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&wanted) {
            return self.seen.remove(i).unwrap();
        }
        loop {
            let line = self
                .lines
                .recv_timeout(PATIENCE)
                .expect("the server answered in time");
            if wanted(&line) {
                return line;
            }
            self.seen.push_back(line);
        }
    }

    /// The response to request `id`.
    fn answer(&mut self, id: i64) -> Value {
        self.next_where(|line| line["id"] == id)
    }

    fn result(&mut self, id: i64) -> Value {
        let reply = self.answer(id);
        assert!(reply.get("error").is_none(), "{reply}");
        reply["result"].clone()
    }

    fn open(&mut self, root: &Path, config: Value) -> String {
        let id = self.send(
            "toolpass/session.open",
            json!({"root": root, "config": config}),
        );
        self.result(id)["sessionId"].as_str().unwrap().to_owned()
    }

    fn call(&mut self, session: &str, call_id: &str, name: &str, arguments: Value) -> i64 {
        self.send(
            "tools/call",
            json!({"name": name, "arguments": arguments,
                   "_meta": {"toolpass": {"sessionId": session, "callId": call_id},
                             "progressToken": call_id}}),
        )
    }

    /// Closes stdin; waits for the exit and returns its status and every
    /// line written after what was read so far.
    fn finish(mut self) -> (std::process::ExitStatus, Vec<Value>) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let mut rest: Vec<Value> = self.seen.drain(..).collect();
        rest.extend(self.lines.try_iter());
        (status, rest)
    }
}

fn read_lines(stdout: ChildStdout, sender: &mpsc::Sender<Value>) {
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        let value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
        if sender.send(value).is_err() {
            return;
        }
    }
}

fn status(result: &Value) -> &str {
    result["_meta"]["toolpass"]["status"].as_str().unwrap()
}

fn sandbox() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir(&root).unwrap();
    let root = root.canonicalize().unwrap();
    (dir, root)
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
    let (_dir, root) = sandbox();
    let file = root.join("a.txt");
    fs::write(&file, "alpha\n").unwrap();
    let mut server = Server::start();
    let session = server.open(&root, json!({"approvalMode": "default"}));
    read(&mut server, &session, &file);
    let edit = json!({"file_path": file, "old_string": "alpha", "new_string": "beta"});
    let id = server.call(&session, "ask", "edit", edit.clone());
    assert_eq!(status(&server.result(id)), "awaiting_confirmation");
    // The same call id again while it waits: refused, it is not a new call.
    let id = server.call(&session, "ask", "edit", edit);
    assert_eq!(server.answer(id)["error"]["code"], -32602);
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
