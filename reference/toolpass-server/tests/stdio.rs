//! The server binary driven over stdio, as the runner drives it: protocol
//! behaviour, sessions, fault points, and the edit tool end to end.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::{Value, json};

/// A running server and a line-oriented JSON-RPC client for it.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: i64,
}

impl Server {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolpass-server"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Server {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    fn send_line(&mut self, line: &str) -> Value {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        let mut reply = String::new();
        self.stdout.read_line(&mut reply).unwrap();
        serde_json::from_str(&reply)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {reply:?}"))
    }

    /// Sends a request and returns the whole reply.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let reply = self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        assert_eq!(reply["id"], id, "reply to the wrong request: {reply}");
        reply
    }

    /// Sends a request that must succeed and returns its result.
    fn ok(&mut self, method: &str, params: Value) -> Value {
        let reply = self.request(method, params);
        assert!(reply.get("error").is_none(), "{method} failed: {reply}");
        reply["result"].clone()
    }

    fn initialize(&mut self) -> Value {
        self.ok(
            "initialize",
            json!({"protocolVersion": "toolpass/1", "clientInfo": {"name": "test", "version": "0"}, "capabilities": {}}),
        )
    }

    fn open(&mut self, root: &Path) -> String {
        let result = self.ok("toolpass/session.open", json!({"root": root, "config": {}}));
        result["sessionId"].as_str().unwrap().to_owned()
    }

    fn call(&mut self, session: &str, name: &str, arguments: Value) -> Value {
        self.ok(
            "tools/call",
            json!({"name": name, "arguments": arguments, "_meta": {"toolpass": {"sessionId": session, "callId": "c"}}}),
        )
    }

    /// Closes stdin and returns the exit status.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin);
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.stdout, &mut rest).unwrap();
        assert_eq!(rest, "", "output after the last reply");
        self.child.wait().unwrap()
    }
}

fn status(outcome: &Value) -> &str {
    outcome["_meta"]["toolpass"]["status"].as_str().unwrap()
}

fn error_code(outcome: &Value) -> Option<&str> {
    outcome["_meta"]["toolpass"]["error"]["code"].as_str()
}

fn sandbox() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

/// A server with one open session on a fresh sandbox.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    server: Server,
    session: String,
}

impl Fixture {
    fn new() -> Self {
        let (dir, root) = sandbox();
        let mut server = Server::start(&[]);
        server.initialize();
        let session = server.open(&root);
        Fixture {
            _dir: dir,
            root,
            server,
            session,
        }
    }

    fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.server.call(&self.session, name, arguments)
    }

    fn edit(&mut self, file: &Path, old: &str, new: &str) -> Value {
        self.call(
            "edit",
            json!({"file_path": file, "old_string": old, "new_string": new}),
        )
    }

    /// Creates `name` through the edit tool, so the session has "seen" it.
    fn create(&mut self, name: &str, content: &str) -> PathBuf {
        let file = self.root.join(name);
        let outcome = self.edit(&file, "", content);
        assert_eq!(status(&outcome), "success", "{outcome}");
        file
    }
}

#[test]
fn initialize_advertises_toolpass_1_and_its_features() {
    let mut server = Server::start(&[]);
    let result = server.initialize();
    assert_eq!(result["protocolVersion"], "toolpass/1");
    assert_eq!(result["serverInfo"]["name"], "toolpass-reference");
    assert_eq!(result["capabilities"]["toolpass"]["version"], 1);
    let features = result["capabilities"]["toolpass"]["features"]
        .as_array()
        .unwrap();
    for feature in [
        "sessions",
        "prior_read",
        "fault:fs.stat",
        "fault:write.before_commit",
        "spill_files",
    ] {
        assert!(
            features.contains(&json!(feature)),
            "{feature} missing from {features:?}"
        );
    }
    assert!(server.finish().success());
}

#[test]
fn tools_list_shows_the_edit_tool_with_qwens_schema_and_its_kind() {
    let mut fx = Fixture::new();
    let tools = fx.server.ok("tools/list", json!({"sessionId": fx.session}))["tools"].clone();
    let edit = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "edit")
        .unwrap()
        .clone();
    assert_eq!(
        edit["inputSchema"]["required"],
        json!(["file_path", "old_string", "new_string"])
    );
    assert_eq!(edit["_meta"]["toolpass"]["kind"], "edit");
    assert_eq!(edit["_meta"]["toolpass"]["deferred"], false);
}

#[test]
fn protocol_faults_get_json_rpc_errors_and_the_server_keeps_going() {
    let mut fx = Fixture::new();
    let (root, session) = (fx.root.clone(), fx.session.clone());
    let server = &mut fx.server;

    let reply = server.send_line("this is not json");
    assert_eq!(reply["error"]["code"], -32700);
    assert_eq!(reply["id"], Value::Null);
    let reply = server.send_line(r#"{"jsonrpc":"2.0","id":99}"#);
    assert_eq!(reply["error"]["code"], -32600);
    // Nested past serde_json's stack guard: still answered to its own id.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":77,"method":"tools/list","params":{{"x":{}{}}}}}"#,
        "[".repeat(3000),
        "]".repeat(3000)
    );
    let reply = server.send_line(&deep);
    assert_eq!(reply["id"], 77, "{reply}");
    assert_eq!(reply["error"]["code"], -32600);
    assert_eq!(reply["error"]["data"]["maxDepth"], 128);

    let cases = [
        ("no/such/method", json!({}), -32601),
        (
            "toolpass/batch",
            json!({"sessionId": session, "calls": []}),
            -32602,
        ),
        (
            "toolpass/batch",
            json!({"sessionId": session, "calls": [
                {"callId": "twice", "name": "ls", "arguments": {}},
                {"callId": "twice", "name": "ls", "arguments": {}},
            ]}),
            -32602,
        ),
        // A confirmation of a call that awaits none names what is wrong.
        (
            "toolpass/confirm",
            json!({"sessionId": session, "callId": "c", "outcome": "cancel"}),
            -32602,
        ),
        (
            "tools/call",
            json!({"name": "edit", "arguments": {}, "_meta": {"toolpass": {"sessionId": "nope", "callId": "c"}}}),
            -32010,
        ),
        (
            "toolpass/fault",
            json!({"sessionId": session, "point": "disk.full"}),
            -32601,
        ),
        (
            "toolpass/session.open",
            json!({"root": "relative/dir"}),
            -32602,
        ),
        (
            "toolpass/session.open",
            json!({"root": root, "config": {"noSuchKey": 1}}),
            -32602,
        ),
        ("tools/call", json!({"arguments": {}}), -32602),
    ];
    for (method, params, code) in cases {
        let reply = server.request(method, params);
        assert_eq!(reply["error"]["code"], code, "{method}: {reply}");
    }
    // Still serving.
    assert_eq!(server.open(&root), "s2");
    assert!(fx.server.finish().success());
}

#[test]
fn an_unknown_tool_is_an_error_outcome_with_suggestions() {
    let mut fx = Fixture::new();
    let outcome = fx.call("edti", json!({}));
    assert_eq!(status(&outcome), "error");
    assert_eq!(error_code(&outcome), Some("tool_not_registered"));
    assert_eq!(outcome["isError"], true);
    let text = outcome["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Tool \"edti\" not found in registry."),
        "{text}"
    );
}

#[test]
fn an_edit_runs_end_to_end_and_its_outcome_is_an_mcp_call_tool_result() {
    let mut fx = Fixture::new();
    let file = fx.root.join("a.txt");
    let created = fx.edit(&file, "", "x = 1\n");
    assert_eq!(status(&created), "success", "{created}");
    assert_eq!(created["isError"], false);
    assert_eq!(created["_meta"]["toolpass"]["display"]["type"], "diff");

    // The model authored the file, so it may edit it without a read.
    let edited = fx.edit(&file, "x = 1", "x = 2");
    assert_eq!(status(&edited), "success", "{edited}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "x = 2\n");
    let llm = edited["_meta"]["toolpass"]["llmContent"].as_str().unwrap();
    assert_eq!(edited["content"][0]["text"].as_str().unwrap(), llm);
    assert!(
        llm.starts_with(&format!("The file: {} has been updated.", file.display())),
        "{llm}"
    );
}

#[test]
fn sessions_are_isolated() {
    let mut fx = Fixture::new();
    let file = fx.create("a.txt", "v1\n");
    let second = fx.server.open(&fx.root.clone());
    // The second session never read or wrote the file.
    let refused = fx.server.call(
        &second,
        "edit",
        json!({"file_path": file, "old_string": "v1", "new_string": "v2"}),
    );
    assert_eq!(error_code(&refused), Some("edit_requires_prior_read"));
    let first = fx.session.clone();
    fx.server
        .ok("toolpass/session.close", json!({"sessionId": first}));
    let reply = fx
        .server
        .request("toolpass/session.close", json!({"sessionId": first}));
    assert_eq!(reply["error"]["code"], -32010);
}

/// Arms `fs.stat` to fail at one stat of an edit and checks it fails closed.
fn stat_fault(skip: u32) {
    let mut fx = Fixture::new();
    let file = fx.create("a.txt", "x = 1\n");
    let session = fx.session.clone();
    fx.server.ok(
        "toolpass/fault",
        json!({"sessionId": session, "point": "fs.stat", "times": 1, "skip": skip}),
    );
    let outcome = fx.edit(&file, "x = 1", "x = 2");
    assert_eq!(
        error_code(&outcome),
        Some("prior_read_verification_failed"),
        "skip {skip}: {outcome}"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "x = 1\n");
}

#[test]
fn toctou_before_read_fails_closed() {
    stat_fault(0);
}

#[test]
fn toctou_after_read_fails_closed() {
    stat_fault(1);
}

#[test]
fn toctou_before_write_fails_closed() {
    stat_fault(2);
}

#[test]
fn toctou_before_commit_keeps_the_other_writers_bytes() {
    let mut fx = Fixture::new();
    let file = fx.create("a.txt", "x = 1\n");
    let session = fx.session.clone();
    fx.server.ok(
        "toolpass/fault",
        json!({"sessionId": session, "point": "write.before_commit"}),
    );
    let outcome = fx.edit(&file, "x = 1", "x = 2");
    assert_eq!(error_code(&outcome), Some("file_changed_since_read"));
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "x = 1\ntoolpass: concurrent write\n"
    );
}

#[test]
fn a_real_concurrent_writer_never_leaves_a_torn_file() {
    // Another thread appends numbered lines while the model keeps editing.
    // Edits succeed until the first append lands, which makes the file stale
    // and is refused; the file only ever holds whole lines.
    let mut fx = Fixture::new();
    let file = fx.create("log.txt", "counter 0\n");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (file, stop) = (file.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let mut f = fs::OpenOptions::new().append(true).open(&file).unwrap();
                writeln!(f, "appended {n}").unwrap();
                n += 1;
                std::thread::sleep(std::time::Duration::from_micros(300));
            }
        })
    };
    let mut refusal = None;
    for i in 0..500 {
        let outcome = fx.edit(
            &file,
            &format!("counter {i}\n"),
            &format!("counter {}\n", i + 1),
        );
        if status(&outcome) != "success" {
            refusal = Some(error_code(&outcome).unwrap_or("none").to_owned());
            break;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
    assert_eq!(refusal.as_deref(), Some("file_changed_since_read"));
    let text = fs::read_to_string(&file).unwrap();
    for line in text.lines() {
        assert!(
            line.starts_with("counter ") || line.starts_with("appended "),
            "torn line {line:?}"
        );
    }
}

#[test]
fn plain_mcp_mode_has_no_toolpass_capability_and_needs_no_session() {
    let (_dir, root) = sandbox();
    let root_arg = root.to_str().unwrap();
    let mut server = Server::start(&["--mcp", "--root", root_arg]);
    let result = server.initialize();
    assert!(result["capabilities"].get("toolpass").is_none(), "{result}");
    let tools = server.ok("tools/list", json!({}));
    assert!(
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "edit")
    );
    let outcome = server.ok(
        "tools/call",
        json!({"name": "edit", "arguments": {"file_path": root.join("m.txt"), "old_string": "", "new_string": "hi\n"}}),
    );
    assert_eq!(outcome["isError"], false, "{outcome}");
    assert_eq!(fs::read_to_string(root.join("m.txt")).unwrap(), "hi\n");
}

#[test]
fn end_of_input_exits_zero_and_bad_arguments_exit_two() {
    let server = Server::start(&[]);
    assert!(server.finish().success());
    cargo_bin_cmd!("toolpass-server")
        .arg("--bogus")
        .assert()
        .code(2);
}

#[test]
fn path_escapes_are_refused_and_nothing_is_read_or_written() {
    let mut fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    fs::write(&secret, "secret\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.root.join("out")).unwrap();
    std::os::unix::fs::symlink("loop-b", fx.root.join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", fx.root.join("loop-b")).unwrap();
    let escapes = [
        format!("{}/../x.txt", fx.root.display()),
        "/etc/passwd".to_owned(),
        secret.display().to_string(),
        format!("{}/out/secret.txt", fx.root.display()),
        format!("{}/loop-a", fx.root.display()),
    ];
    for path in escapes {
        for (old, new) in [("", "pwned\n"), ("secret", "pwned")] {
            let outcome = fx.call(
                "edit",
                json!({"file_path": path, "old_string": old, "new_string": new}),
            );
            assert_eq!(
                error_code(&outcome),
                Some("path_not_in_workspace"),
                "{path}: {outcome}"
            );
        }
    }
    assert_eq!(fs::read_to_string(&secret).unwrap(), "secret\n");
    assert!(!fx.root.parent().unwrap().join("x.txt").exists());
}

#[test]
fn a_fifo_and_a_directory_are_refused_without_blocking() {
    let mut fx = Fixture::new();
    let fifo = fx.root.join("pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    fs::create_dir(fx.root.join("dir")).unwrap();
    let outcome = fx.edit(&fifo, "a", "b");
    assert_eq!(
        error_code(&outcome),
        Some("edit_requires_prior_read"),
        "{outcome}"
    );
    let outcome = fx.edit(&fx.root.join("dir"), "a", "b");
    assert_eq!(
        error_code(&outcome),
        Some("target_is_directory"),
        "{outcome}"
    );
}

impl Fixture {
    fn read(&mut self, file: &Path) -> Value {
        let outcome = self.call("read_file", json!({"file_path": file}));
        assert_eq!(status(&outcome), "success", "{outcome}");
        outcome
    }
}

/// The prior-read decision table (`prior_read.rs`) over the protocol: each row
/// reachable from outside, set up through real tool calls.
#[test]
fn every_prior_read_row_over_stdio() {
    let mut fx = Fixture::new();
    let root = fx.root.clone();

    // ENOENT, not expected: creating a new file needs no read.
    let created = fx.edit(&root.join("new.txt"), "", "fresh\n");
    assert_eq!(status(&created), "success");

    // Unknown: never read.
    fs::write(root.join("unread.txt"), "a\n").unwrap();
    assert_eq!(
        error_code(&fx.edit(&root.join("unread.txt"), "a", "b")),
        Some("edit_requires_prior_read")
    );

    // Fresh text, read partially: allowed.
    fs::write(root.join("partial.txt"), "one\ntwo\nthree\n").unwrap();
    let outcome = fx.call(
        "read_file",
        json!({"file_path": root.join("partial.txt"), "offset": 1, "limit": 1}),
    );
    assert_eq!(status(&outcome), "success", "{outcome}");
    assert_eq!(
        status(&fx.edit(&root.join("partial.txt"), "two", "2")),
        "success"
    );

    // Stale: changed behind the tool's back after the read.
    fs::write(root.join("stale.txt"), "v1\n").unwrap();
    fx.read(&root.join("stale.txt"));
    fs::write(root.join("stale.txt"), "v2 changed\n").unwrap();
    assert_eq!(
        error_code(&fx.edit(&root.join("stale.txt"), "v2", "v3")),
        Some("file_changed_since_read")
    );

    // Fresh but not text: a binary read does not clear an edit.
    fs::write(root.join("blob.bin"), [0u8, 1, 2, 3, 0, 5]).unwrap();
    fx.read(&root.join("blob.bin"));
    let outcome = fx.edit(&root.join("blob.bin"), "a", "b");
    assert_eq!(error_code(&outcome), Some("edit_requires_prior_read"));
    assert!(
        outcome["_meta"]["toolpass"]["llmContent"]
            .as_str()
            .unwrap()
            .contains("binary / image")
    );

    // Other stat error: fail closed.
    fs::write(root.join("stat.txt"), "x\n").unwrap();
    fx.read(&root.join("stat.txt"));
    let session = fx.session.clone();
    fx.server.ok(
        "toolpass/fault",
        json!({"sessionId": session, "point": "fs.stat"}),
    );
    assert_eq!(
        error_code(&fx.edit(&root.join("stat.txt"), "x", "y")),
        Some("prior_read_verification_failed")
    );

    // A directory, and a FIFO, are covered by their own tests above; the
    // write tool follows the same table with "overwriting".
    fs::write(root.join("w.txt"), "old\n").unwrap();
    let outcome = fx.call(
        "write_file",
        json!({"file_path": root.join("w.txt"), "content": "new\n"}),
    );
    assert_eq!(error_code(&outcome), Some("edit_requires_prior_read"));
    fx.read(&root.join("w.txt"));
    let outcome = fx.call(
        "write_file",
        json!({"file_path": root.join("w.txt"), "content": "new\n"}),
    );
    assert_eq!(status(&outcome), "success", "{outcome}");
    assert_eq!(fs::read_to_string(root.join("w.txt")).unwrap(), "new\n");
}

/// Every error code of the edit tool, over the protocol.
#[test]
fn every_edit_error_code_over_stdio() {
    let mut fx = Fixture::new();
    let file = fx.create("a.txt", "one one\n");
    let root = fx.root.clone();
    let cases = [
        (root.join("missing.txt"), "x", "y", "file_not_found"),
        (file.clone(), "", "y", "attempt_to_create_existing_file"),
        (file.clone(), "zzz", "y", "edit_no_occurrence_found"),
        (
            file.clone(),
            "one",
            "two",
            "edit_expected_occurrence_mismatch",
        ),
        (file.clone(), "one one", "one one", "edit_no_change"),
    ];
    for (path, old, new, code) in cases {
        let outcome = fx.edit(&path, old, new);
        assert_eq!(
            error_code(&outcome),
            Some(code),
            "{old:?} -> {new:?}: {outcome}"
        );
        assert_eq!(outcome["isError"], true);
    }
    let outcome = fx.call(
        "edit",
        json!({"file_path": "relative.txt", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(error_code(&outcome), Some("invalid_tool_params"));
    assert_eq!(
        outcome["_meta"]["toolpass"]["llmContent"],
        "File path must be absolute: relative.txt"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "one one\n");
}

/// `initialize` asking for `version`, the whole reply.
fn initialize_as(server: &mut Server, version: &str) -> Value {
    server.request(
        "initialize",
        json!({"protocolVersion": version, "clientInfo": {"name": "test", "version": "0"}, "capabilities": {}}),
    )
}

#[test]
fn mcp_versions_are_negotiated_as_mcp_says_in_both_modes() {
    let (_dir, root) = sandbox();
    let root_arg = root.to_str().unwrap();
    for args in [&["--mcp", "--root", root_arg][..], &[][..]] {
        // A supported version is answered with itself; another one with the
        // newest supported (the client decides whether it can go on).
        for (asked, answered) in [
            ("2025-06-18", "2025-06-18"),
            ("2025-11-25", "2025-11-25"),
            ("2024-11-05", "2025-11-25"),
        ] {
            let mut server = Server::start(args);
            let reply = initialize_as(&mut server, asked);
            assert_eq!(
                reply["result"]["protocolVersion"], answered,
                "{args:?}: {reply}"
            );
        }
    }
    // The runner's toolpass/1 gets toolpass/1 from the toolpass mode, and
    // the newest MCP version from the plain MCP mode, as from any MCP server.
    // Another toolpass major is no version a plain MCP server knows either.
    for asked in ["toolpass/1", "toolpass/9"] {
        let mut server = Server::start(&["--mcp", "--root", root_arg]);
        let reply = initialize_as(&mut server, asked);
        assert_eq!(reply["result"]["protocolVersion"], "2025-11-25", "{reply}");
    }
    let mut server = Server::start(&[]);
    let reply = initialize_as(&mut server, "toolpass/1");
    assert_eq!(reply["result"]["protocolVersion"], "toolpass/1", "{reply}");
}

#[test]
fn another_toolpass_major_is_refused_naming_the_supported_versions() {
    let mut server = Server::start(&[]);
    let reply = initialize_as(&mut server, "toolpass/9");
    assert!(reply.get("result").is_none(), "{reply}");
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(
        reply["error"]["data"],
        json!({"supported": ["toolpass/1", "2025-11-25", "2025-06-18"], "requested": "toolpass/9"})
    );
    // The refusal leaves the server able to answer a version it speaks.
    let reply = initialize_as(&mut server, "toolpass/1");
    assert_eq!(reply["result"]["protocolVersion"], "toolpass/1", "{reply}");
    assert!(server.finish().success());
}
