//! A deliberately slowed implementation, for the bench gate: this test
//! binary run with [`crate::misbehave::BEHAVIOUR_ENV`] `delay:P` relays
//! every line between the runner and the reference server (its arguments
//! passed on), and holds each answer to a `tools/call` back for P% of the
//! time the server took to give it: a tool layer grown P% slower per call,
//! whatever the machine's speed.
//!
//! `delay:0` is the same relay without the delay, the baseline to compare
//! it with: the relay's own cost is then in both.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use toolpass::{Profile, reference_server};
use toolpass_protocol::method::{self, Method as _};

/// When each pending `tools/call` went to the server, by its id's JSON.
type Pending = Arc<Mutex<HashMap<String, Instant>>>;

/// Relays stdin and stdout through the reference server; never returns.
pub(crate) fn serve(percent: u32) -> ! {
    let server = reference_server(Profile::Dev).expect("the reference server is at hand");
    let mut child = Command::new(server.program())
        .args(std::env::args_os().skip(1))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the reference server");
    let mut to_server = child.stdin.take().expect("a piped stdin");
    let from_server = child.stdout.take().expect("a piped stdout");
    let pending = Pending::default();
    let answers = {
        let pending = Arc::clone(&pending);
        std::thread::spawn(move || relay_answers(BufReader::new(from_server), &pending, percent))
    };
    let mut input = io::stdin().lock();
    let mut line = Vec::new();
    while read_line(&mut input, &mut line) {
        if let Some((id, "tools/call")) = id_and_method(&line) {
            pending
                .lock()
                .expect("no relay thread panics holding the lock")
                .insert(id, Instant::now());
        }
        if to_server
            .write_all(&line)
            .and_then(|()| to_server.flush())
            .is_err()
        {
            break;
        }
    }
    // End of input: the server sees its own, and the relay drains it.
    drop(to_server);
    let _ = answers.join();
    let status = child.wait().expect("wait for the reference server");
    std::process::exit(status.code().unwrap_or(1))
}

/// Copies the server's lines to stdout, each `tools/call` answer held
/// back `percent`% of the time its call took.
fn relay_answers(mut from_server: impl BufRead, pending: &Pending, percent: u32) {
    let mut line = Vec::new();
    let mut stdout = io::stdout().lock();
    while read_line(&mut from_server, &mut line) {
        if let Some((id, "")) = id_and_method(&line) {
            let sent = pending
                .lock()
                .expect("the reading thread does not panic holding the lock")
                .remove(&id);
            if let Some(sent) = sent {
                hold(sent.elapsed().mul_f64(f64::from(percent) / 100.0));
            }
        }
        if stdout
            .write_all(&line)
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return;
        }
    }
}

/// Waits `delay` by spinning: a sleep of a fraction of a millisecond
/// overshoots on a loaded machine (a 30% delay measured 44-63% with one),
/// and a tool layer grown slower burns the CPU time anyway.
fn hold(delay: std::time::Duration) {
    let until = Instant::now() + delay;
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

/// The next line, its newline kept, into `line`; false at end of input.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> bool {
    line.clear();
    matches!(input.read_until(b'\n', line), Ok(n) if n > 0)
}

/// A message's id (as JSON) and method (`""` for a response); `None`
/// for a line that is not JSON or has no id (a notification).
fn id_and_method(line: &[u8]) -> Option<(String, &'static str)> {
    let value: Value = serde_json::from_slice(line).ok()?;
    let id = value.get("id")?.to_string();
    let method = match value.get("method").and_then(Value::as_str) {
        None => "",
        Some(name) if name == method::ToolsCall::NAME => "tools/call",
        Some(_) => "other",
    };
    Some((id, method))
}
