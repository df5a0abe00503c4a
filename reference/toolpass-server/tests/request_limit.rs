//! The request size limit over stdio: a line at `--max-request-bytes` is
//! served, one byte more is answered with an error naming the limit and the
//! flag, and the server goes on with the next line.

use std::fs::{self, File};
use std::process::Command;

use assert_cmd::cargo::{cargo_bin, cargo_bin_cmd};
use assert_cmd::prelude::*;
use predicates::prelude::*;
use predicates::str::contains;
use serde_json::Value;

/// A request line of exactly `len` bytes: an unknown method padded to size,
/// so a line that was read gets `method not found` with its id.
fn request_of_len(id: u32, len: usize) -> Vec<u8> {
    let bare = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":""}}"#);
    let method = "m".repeat(len - bare.len());
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#).into_bytes()
}

/// Runs the server with `args` on `lines` (each followed by `\n`) until
/// the end of its input, which must end it with 0; every reply. The input
/// is a file in a temporary directory, so nothing waits on a pipe: a std
/// `Command` with the file as stdin, run by `assert_cmd`'s `assert()`
/// (its own `Command` always feeds stdin through a pipe).
fn exchange(args: &[&str], lines: &[Vec<u8>]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    let mut bytes = lines.join(&b'\n');
    bytes.push(b'\n');
    fs::write(&input, bytes).unwrap();
    let run = Command::new(cargo_bin!("toolpass-server"))
        .args(args)
        .stdin(File::open(&input).unwrap())
        .assert()
        .success();
    String::from_utf8(run.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn a_request_at_the_limit_is_served_and_one_byte_more_is_refused() {
    let lines = [
        request_of_len(1, 1000),
        request_of_len(2, 1001),
        request_of_len(3, 1000),
    ];
    let replies = exchange(&["--max-request-bytes", "1000"], &lines);
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(replies[0]["id"], 1);
    assert_eq!(replies[0]["error"]["code"], -32601, "{}", replies[0]);
    let refused = &replies[1];
    assert_eq!(refused["id"], Value::Null);
    assert_eq!(refused["error"]["code"], -32600);
    assert_eq!(refused["error"]["data"]["limit"], 1000);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("limit of 1000 bytes") && message.contains("--max-request-bytes"),
        "{message}"
    );
    // The overlong line was read past: the next request is answered.
    assert_eq!(replies[2]["id"], 3);
}

#[test]
fn a_line_past_the_default_limit_is_refused_and_the_server_goes_on() {
    let limit = 64 << 20;
    let lines = [request_of_len(1, limit + 1), request_of_len(2, 100)];
    let replies = exchange(&[], &lines);
    assert_eq!(replies.len(), 2);
    assert_eq!(replies[0]["error"]["data"]["limit"], limit);
    let message = replies[0]["error"]["message"].as_str().unwrap();
    assert!(message.contains("(64 MiB)"), "{message}");
    assert_eq!(replies[1]["id"], 2);
}

#[test]
fn help_documents_the_limit_and_a_bad_limit_exits_two() {
    cargo_bin_cmd!("toolpass-server")
        .arg("--help")
        .assert()
        .success()
        .stdout(contains("--max-request-bytes N").and(contains("[default: 67108864 (64 MiB)]")));
    cargo_bin_cmd!("toolpass-server")
        .args(["--max-request-bytes", "lots"])
        .assert()
        .code(2);
}
