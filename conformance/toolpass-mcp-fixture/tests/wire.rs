//! The fixture on the wire, without an SDK between: what the client tests
//! cannot see (the exit status of a crash, the order of progress and answer
//! on stdout, the broken shapes' exact output, a refused command line).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use common::Sandbox;
use serde_json::{Value, json};

/// The fixture started with piped stdio.
fn start(sandbox: &Sandbox, extra: &[&str]) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = sandbox
        .command(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the fixture starts");
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (child, stdin, stdout)
}

fn send(stdin: &mut ChildStdin, message: &Value) {
    writeln!(stdin, "{message}").expect("the fixture reads its stdin");
}

/// The next line on stdout, as JSON.
fn receive(stdout: &mut impl BufRead) -> Value {
    let mut line = String::new();
    assert_ne!(stdout.read_line(&mut line).unwrap(), 0, "stdout ended");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

/// The `initialize` request a client starts with.
fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "wire-test", "version": "0"}
    }})
}

/// `initialize` answered, then `notifications/initialized`.
fn handshake(stdin: &mut ChildStdin, stdout: &mut impl BufRead) {
    send(stdin, &initialize());
    let answer = receive(stdout);
    assert_eq!(answer["id"], 0, "{answer}");
    assert_eq!(
        answer["result"]["serverInfo"]["name"],
        "toolpass-mcp-fixture"
    );
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
}

fn call(tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": {"progressToken": "p-1"}
    }})
}

#[test]
fn every_progress_notification_and_a_ping_answered_come_before_the_answer() {
    let sandbox = Sandbox::new();
    let (mut child, mut stdin, mut stdout) = start(&sandbox, &[]);
    handshake(&mut stdin, &mut stdout);
    send(&mut stdin, &call("report_progress", json!({"steps": 3})));
    for step in 1..=3 {
        let update = receive(&mut stdout);
        assert_eq!(update["method"], "notifications/progress", "{update}");
        assert_eq!(
            update["params"],
            json!({"progressToken": "p-1", "progress": f64::from(step), "total": 3.0,
                   "message": format!("step {step} of 3")})
        );
    }
    // Then a ping, and the answer only once it is answered: a client that
    // dispatches notifications late has them all before the result.
    let ping = receive(&mut stdout);
    assert_eq!(ping["method"], "ping", "{ping}");
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": ping["id"], "result": {}}),
    );
    let answer = receive(&mut stdout);
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "completed 3 steps");
    drop(stdin);
    assert!(
        child.wait().unwrap().success(),
        "the end of input ends the server"
    );
}

#[test]
fn a_crash_exits_with_status_3_and_never_answers() {
    let sandbox = Sandbox::new();
    let (child, mut stdin, mut stdout) = start(&sandbox, &[]);
    handshake(&mut stdin, &mut stdout);
    send(&mut stdin, &call("crash_server", json!({})));
    let output = child.wait_with_output().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert_eq!(rest, "", "the call was answered");
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("crash_server called: exiting with status 3"),
        "{stderr}"
    );
}

#[test]
fn invalid_json_answers_initialize_with_a_line_that_is_not_json() {
    let sandbox = Sandbox::new();
    let (child, mut stdin, mut stdout) = start(&sandbox, &["--invalid-json"]);
    send(&mut stdin, &initialize());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(
        line,
        "this line is not JSON: toolpass-mcp-fixture --invalid-json\n"
    );
    assert!(serde_json::from_str::<Value>(&line).is_err());
    drop(stdin);
    assert!(child.wait_with_output().unwrap().status.success());
}

#[test]
fn never_initialize_writes_nothing_and_ends_with_its_input() {
    let sandbox = Sandbox::new();
    let (child, mut stdin, mut stdout) = start(&sandbox, &["--never-initialize"]);
    send(&mut stdin, &initialize());
    drop(stdin);
    let mut all = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut all).unwrap();
    assert_eq!(all, "");
    assert!(child.wait_with_output().unwrap().status.success());
}

#[test]
fn a_missing_notes_directory_is_refused_naming_it_and_the_flag() {
    let sandbox = Sandbox::new();
    let output = std::process::Command::new(common::FIXTURE)
        .arg("--dir")
        .arg(sandbox.root().join("absent"))
        .current_dir(sandbox.root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let absent = sandbox.root().join("absent");
    assert!(
        stderr.contains(&format!(
            "open the notes directory {} (--dir)",
            absent.display()
        )),
        "{stderr}"
    );
}

#[test]
fn the_two_broken_shapes_cannot_be_asked_for_together() {
    let sandbox = Sandbox::new();
    let output = sandbox
        .command(&["--never-initialize", "--invalid-json"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "clap's usage error");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}
