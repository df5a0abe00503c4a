//! The server as a child process over stdio, for the tests that drive it
//! line by line: requests sent without waiting, answers and notifications
//! picked out of what it writes, and its exit.
//!
//! A std `Command` with piped stdin and stdout, not `assert_cmd`'s: that
//! one runs a program to its end and then judges the output, while these
//! tests talk to a live server and act on each answer. A test that runs
//! the server to completion (`--help`, bad arguments) uses `assert_cmd`.

#![allow(dead_code, unreachable_pub)] // Each test binary uses a part.

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
pub struct Server {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    /// Lines read while waiting for something else.
    seen: VecDeque<Value>,
    next_id: i64,
}

impl Server {
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// The server with `args`, initialized as the runner does (asking for
    /// toolpass/1, which the plain MCP mode answers with its newest MCP
    /// version).
    pub fn start_with(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolpass-server"))
            .args(args)
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
    pub fn send(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    pub fn write(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line that matches `wanted`, keeping the others.
    pub fn next_where(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
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
    pub fn answer(&mut self, id: i64) -> Value {
        self.next_where(|line| line["id"] == id)
    }

    pub fn result(&mut self, id: i64) -> Value {
        let reply = self.answer(id);
        assert!(reply.get("error").is_none(), "{reply}");
        reply["result"].clone()
    }

    pub fn open(&mut self, root: &Path, config: Value) -> String {
        let id = self.send(
            "toolpass/session.open",
            json!({"root": root, "config": config}),
        );
        self.result(id)["sessionId"].as_str().unwrap().to_owned()
    }

    pub fn call(&mut self, session: &str, call_id: &str, name: &str, arguments: Value) -> i64 {
        self.send(
            "tools/call",
            json!({"name": name, "arguments": arguments,
                   "_meta": {"toolpass": {"sessionId": session, "callId": call_id},
                             "progressToken": call_id}}),
        )
    }

    /// Closes stdin; waits for the exit and returns its status and every
    /// line written after what was read so far.
    pub fn finish(mut self) -> (std::process::ExitStatus, Vec<Value>) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let mut rest: Vec<Value> = self.seen.drain(..).collect();
        rest.extend(self.lines.try_iter());
        (status, rest)
    }
}

pub fn read_lines(stdout: ChildStdout, sender: &mpsc::Sender<Value>) {
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        let value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
        if sender.send(value).is_err() {
            return;
        }
    }
}

pub fn status(result: &Value) -> &str {
    result["_meta"]["toolpass"]["status"].as_str().unwrap()
}

pub fn sandbox() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir(&root).unwrap();
    let root = root.canonicalize().unwrap();
    (dir, root)
}
