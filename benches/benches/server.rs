//! The reference server over stdio: start-up to the first `initialize`
//! reply, and one `tools/call` round trip of `read_file` on a small file.
//!
//! The bench drives the release binary, as the runner does. It builds it
//! first (`cargo build --release -p toolpass-server`) unless
//! `TOOLPASS_SERVER` names a binary. Run with
//! `cargo bench -p toolpass-benches --bench server`.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

fn server_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("TOOLPASS_SERVER") {
        return PathBuf::from(path);
    }
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "-p", "toolpass-server"])
        .current_dir(&workspace)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building toolpass-server failed");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace.join("target"), PathBuf::from);
    target.join("release/toolpass-server")
}

struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Client {
    fn spawn(binary: &PathBuf) -> Self {
        let mut child = Command::new(binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Client {
            child,
            stdin,
            stdout,
            line: String::new(),
        }
    }

    fn round_trip(&mut self, request: &str) -> &str {
        self.stdin.write_all(request.as_bytes()).expect("write");
        self.stdin.flush().expect("flush");
        self.line.clear();
        self.stdout.read_line(&mut self.line).expect("read");
        &self.line
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const INITIALIZE: &str = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"toolpass/1\",\"clientInfo\":{\"name\":\"bench\",\"version\":\"0\"},\"capabilities\":{}}}\n";

fn server(c: &mut Criterion) {
    let binary = server_binary();
    let mut group = c.benchmark_group("server");
    group.measurement_time(Duration::from_secs(5));

    group.bench_function("startup_to_initialize", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let start = Instant::now();
                let mut client = Client::spawn(&binary);
                let reply = client.round_trip(INITIALIZE);
                total += start.elapsed();
                assert!(reply.contains("toolpass/1"), "{reply}");
            }
            total
        });
    });

    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("root");
    let file = root.join("small.rs");
    std::fs::write(&file, "fn main() {\n    println!(\"hello\");\n}\n").expect("write");
    let mut client = Client::spawn(&binary);
    client.round_trip(INITIALIZE);
    let open = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"toolpass/session.open\",\"params\":{{\"root\":{:?}}}}}\n",
        root.display().to_string()
    );
    client.round_trip(&open);
    let call = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{{\"name\":\"read_file\",\"arguments\":{{\"file_path\":{:?}}},\"_meta\":{{\"toolpass\":{{\"sessionId\":\"s1\",\"callId\":\"c\"}}}}}}}}\n",
        file.display().to_string()
    );
    let reply = client.round_trip(&call).to_owned();
    assert!(
        reply.contains("\"status\":\"success\""),
        "read_file failed: {reply}"
    );
    group.bench_function("tools_call_read_file_small", |b| {
        b.iter(|| client.round_trip(&call).len());
    });
    group.finish();
}

criterion_group!(benches, server);
criterion_main!(benches);
