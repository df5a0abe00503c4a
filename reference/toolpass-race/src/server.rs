//! The reference server as a separate process, driven over toolpass/1 with
//! `toolpass-protocol`'s types and framing: one call at a time, as an agent
//! waits for each answer, or pipelined (requests written without waiting,
//! answers read back afterwards), so the server never idles while the
//! swapper runs.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Map, Value, json};
use toolpass_protocol::method::{self, Method};
use toolpass_protocol::{
    CallContext, Implementation, InitializeParams, Message, Outcome, Request, RequestId,
    SessionConfig, SessionId, SessionOpenParams, ToolsCallParams, parse_line, read_message,
    write_message,
};

/// The reference server's package and binary name.
const SERVER: &str = "toolpass-server";

/// The server binary: `explicit` when given; otherwise `toolpass-server`
/// beside this executable, built first by cargo when cargo runs us (`just
/// race`, `cargo run -p toolpass-race`), so one command works from a fresh
/// clone and never runs a stale server.
pub(crate) fn locate(explicit: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(path) = explicit {
        return Ok(path);
    }
    let exe = std::env::current_exe().context("find this executable")?;
    let sibling = exe.with_file_name(SERVER);
    // Cargo sets CARGO for what `cargo run` starts. Building into the
    // profile this binary came from puts the server beside it.
    if let Some(cargo) = std::env::var_os("CARGO") {
        build(&cargo)?;
    }
    if !sibling.is_file() {
        bail!(
            "no {SERVER} at {}: build it with `cargo build --release -p {SERVER}` or pass --server",
            sibling.display()
        );
    }
    Ok(sibling)
}

fn build(cargo: &OsString) -> Result<()> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let mut command = Command::new(cargo);
    command
        .args([
            "build",
            "--package",
            SERVER,
            "--bin",
            SERVER,
            "--manifest-path",
        ])
        .arg(&manifest)
        .stdin(Stdio::null());
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    let status = command.status().context("run cargo build")?;
    if !status.success() {
        bail!("cargo build -p {SERVER} failed ({status})");
    }
    Ok(())
}

/// A tool call's answer: the Outcome and the whole result as JSON text,
/// which is what leaks are looked for in.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) outcome: Outcome,
    pub(crate) text: String,
}

impl Reply {
    /// The canonical error code, when the call failed.
    pub(crate) fn error_code(&self) -> Option<&str> {
        self.outcome
            .toolpass()
            .error
            .as_ref()
            .map(|e| e.code.as_str())
    }

    /// Whether the call succeeded.
    pub(crate) fn ok(&self) -> bool {
        self.outcome.status() == toolpass_protocol::Status::Success
    }
}

/// One tool call to make: the tool and its arguments.
pub(crate) type Call = (&'static str, Value);

/// How far a pipelined run goes: whichever limit comes first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub(crate) iterations: usize,
    pub(crate) deadline: Instant,
}

/// A running server with one open session.
pub(crate) struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    session: SessionId,
    next_id: i64,
}

impl Server {
    /// Starts `binary` with TMPDIR `tmp`, does the handshake and opens a
    /// session on `root`.
    pub(crate) fn start(binary: &Path, tmp: &Path, root: &Path) -> Result<Server> {
        let mut child = Command::new(binary)
            .env("TMPDIR", tmp)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("start {}", binary.display()))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("no stdout")?);
        let mut server = Server {
            child,
            stdin: Some(stdin),
            stdout,
            session: SessionId(String::new()),
            next_id: 0,
        };
        let client = Implementation::new("toolpass-race", env!("CARGO_PKG_VERSION"));
        server.request::<method::Initialize>(&InitializeParams::new(client))?;
        let root = root.to_str().context("the root is not UTF-8")?;
        let open = SessionOpenParams {
            root: root.to_owned(),
            config: SessionConfig::default(),
        };
        server.session = server.request::<method::SessionOpen>(&open)?.session_id;
        Ok(server)
    }

    /// Keeps the server on `cpu`.
    pub(crate) fn pin(&self, cpu: usize) -> Result<()> {
        crate::swap::pin(Some(rustix::process::Pid::from_child(&self.child)), cpu)
    }

    fn stdin(&mut self) -> Result<&mut ChildStdin> {
        self.stdin
            .as_mut()
            .ok_or_else(|| anyhow!("stdin is closed"))
    }

    fn request<M: Method>(&mut self, params: &M::Params) -> Result<M::Result> {
        let id = self.next_request_id();
        let request = Request::new::<M>(id.clone(), params);
        write_message(self.stdin()?, &Message::Request(request))?;
        let response = read_response(&mut self.stdout, &id)?;
        Ok(response.decode::<M>()?)
    }

    fn next_request_id(&mut self) -> RequestId {
        self.next_id += 1;
        RequestId::Number(self.next_id)
    }

    /// One call, waiting for its answer.
    pub(crate) fn call(&mut self, name: &'static str, arguments: Value) -> Result<Reply> {
        let id = self.send(&(name, arguments))?;
        self.answer(&id)
    }

    /// Waits for the answer to the call [`Server::send`] sent as `id`.
    pub(crate) fn answer(&mut self, id: &RequestId) -> Result<Reply> {
        reply(read_response(&mut self.stdout, id)?)
    }

    /// Writes one call without waiting for its answer (the kill -9
    /// attack sends a large write and kills the server while it works).
    /// Returns once the server has taken the whole line off the pipe, and
    /// the id to wait for with [`Server::answer`].
    pub(crate) fn send(&mut self, call: &Call) -> Result<RequestId> {
        let id = self.next_request_id();
        let request = call_request(&self.session, id.clone(), call)?;
        write_message(self.stdin()?, &Message::Request(request))?;
        Ok(id)
    }

    /// Serializes `iterations` iterations of calls (`calls(i)` gives
    /// iteration `i`'s) for [`Server::pipeline`], before any clock starts.
    pub(crate) fn prepare(
        &mut self,
        iterations: usize,
        mut calls: impl FnMut(usize) -> Vec<Call>,
    ) -> Result<Batch> {
        let mut batch = Batch(Vec::with_capacity(iterations));
        for i in 0..iterations {
            let mut bytes = Vec::new();
            let mut ids = Vec::new();
            for call in calls(i) {
                let id = self.next_request_id();
                let request = call_request(&self.session, id.clone(), &call)?;
                write_message(&mut bytes, &Message::Request(request))?;
                ids.push((call.0, id));
            }
            batch.0.push((bytes, ids));
        }
        Ok(batch)
    }

    /// Pipelined calls, ending the server: the batch's iterations are
    /// written without waiting for answers until `deadline`, then stdin is
    /// closed, so the server answers the rest and exits, which ends the
    /// reading. The pipes bound what is in flight.
    ///
    /// The requests were serialized beforehand and the answers are parsed
    /// afterwards ([`Batch::replies`]), so during the race the harness
    /// only moves bytes and leaves the CPU to the server and the swapper:
    /// a hit needs both running at once, which on two cores is no given.
    pub(crate) fn pipeline(mut self, batch: &Batch, deadline: Instant) -> Result<Answers> {
        let mut stdin = self.stdin.take().context("stdin is closed")?;
        let stdout = &mut self.stdout;
        let (sent, written, lines) = std::thread::scope(|scope| {
            let reader = scope.spawn(move || read_lines(stdout));
            let mut sent = 0;
            let mut written = Ok(());
            let mut chunk = Vec::new();
            for (bytes, _) in &batch.0 {
                if Instant::now() >= deadline {
                    break;
                }
                chunk.extend_from_slice(bytes);
                sent += 1;
                if chunk.len() >= CHUNK {
                    written = stdin.write_all(&chunk);
                    chunk.clear();
                    if written.is_err() {
                        break;
                    }
                }
            }
            if written.is_ok() {
                written = stdin.write_all(&chunk);
            }
            drop(stdin);
            (sent, written, reader.join())
        });
        let lines = lines.map_err(|_| anyhow!("the reader panicked"))??;
        written.context("write to the server")?;
        self.finish()?;
        Ok(Answers { sent, lines })
    }

    /// Closes stdin (the server's signal to end) and waits for it to exit
    /// cleanly: a server that crashed under attack is an error, not a
    /// row of zeros.
    pub(crate) fn finish(mut self) -> Result<()> {
        drop(self.stdin.take());
        let status = self.child.wait()?;
        if !status.success() {
            bail!("the server exited with {status}");
        }
        Ok(())
    }

    /// SIGKILL: no destructor, no cleanup runs in the server.
    pub(crate) fn kill(mut self) -> Result<()> {
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // An attack that failed half-way must not leave a server behind.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Calls serialized for [`Server::pipeline`], per iteration.
pub(crate) struct Batch(Vec<Iteration>);

/// One iteration's request lines, and each call's tool and id.
type Iteration = (Vec<u8>, Vec<(&'static str, RequestId)>);

/// What [`Server::pipeline`] got back: how many iterations it sent, and
/// the server's lines, unparsed.
pub(crate) struct Answers {
    pub(crate) sent: usize,
    lines: Vec<String>,
}

impl Batch {
    /// The answers to the iterations sent, in order, each checked against
    /// the id it must carry (the server answers in order).
    pub(crate) fn replies(&self, answers: &Answers) -> Result<Vec<(&'static str, Reply)>> {
        let expected = self.0.iter().take(answers.sent).flat_map(|(_, ids)| ids);
        let mut lines = answers.lines.iter();
        let mut replies = Vec::new();
        for (name, id) in expected {
            let line = lines
                .next()
                .ok_or_else(|| anyhow!("the server ended before answering request {id}"))?;
            let Message::Response(response) = parse_line(line)? else {
                bail!("a message that is no answer where the answer to {id} was due: {line}");
            };
            if response.id.as_ref() != Some(id) {
                bail!("answer to request {:?} where {id} was due", response.id);
            }
            replies.push((*name, reply(response)?));
        }
        Ok(replies)
    }
}

/// How many bytes of requests the pipeline writes at once.
const CHUNK: usize = 16 << 10;

/// Every line the server writes until it closes stdout, unparsed.
fn read_lines(stdout: &mut BufReader<ChildStdout>) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        if stdout.read_line(&mut line)? == 0 {
            return Ok(lines);
        }
        lines.push(line.trim_end_matches(['\r', '\n']).to_owned());
    }
}

/// The `tools/call` request for `call` in `session`.
fn call_request(session: &SessionId, id: RequestId, (name, arguments): &Call) -> Result<Request> {
    let Value::Object(arguments) = arguments else {
        bail!("{name}: arguments are not an object");
    };
    let context = CallContext {
        session_id: session.clone(),
        call_id: format!("c{id}"),
    };
    let params = ToolsCallParams::new(*name, arguments.clone(), context);
    Ok(Request::new::<method::ToolsCall>(id, &params))
}

/// Reads messages until the response to `id`; notifications in between are
/// skipped.
fn read_response(
    stdout: &mut BufReader<ChildStdout>,
    id: &RequestId,
) -> Result<toolpass_protocol::Response> {
    loop {
        match read_message(stdout)? {
            None => bail!("the server closed stdout before answering request {id}"),
            Some(Message::Response(response)) => {
                if response.id.as_ref() != Some(id) {
                    bail!("answer to request {:?} where {id} was next", response.id);
                }
                return Ok(response);
            }
            Some(_) => {}
        }
    }
}

fn reply(response: toolpass_protocol::Response) -> Result<Reply> {
    let outcome = response.decode::<method::ToolsCall>()?;
    let text = match &response.result {
        Ok(value) => value.to_string(),
        Err(error) => error.to_string(),
    };
    Ok(Reply { outcome, text })
}

/// `{"file_path": path}` plus `more`: the argument every file tool takes.
pub(crate) fn file_args(path: &Path, more: Value) -> Value {
    let mut args = Map::new();
    args.insert("file_path".to_owned(), json!(path));
    if let Value::Object(more) = more {
        args.extend(more);
    }
    Value::Object(args)
}

/// A `read_file` of the first `lines` lines of `path`. The explicit range
/// matters: a plain re-read of an unchanged file gets Qwen's "unchanged
/// since last read" notice instead of the content, which would hide an
/// outside file read a second time.
pub(crate) fn read_call(path: &Path, lines: u64) -> Call {
    (
        "read_file",
        file_args(path, json!({"offset": 0, "limit": lines})),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(id: i64, text: &str) -> String {
        let outcome = json!({
            "content": [{"type": "text", "text": text}],
            "isError": false,
            "_meta": {"toolpass": {"status": "success", "llmContent": text}},
        });
        json!({"jsonrpc": "2.0", "id": id, "result": outcome}).to_string()
    }

    fn batch() -> Batch {
        let iteration = |ids: &[i64]| {
            let ids = ids.iter().map(|&id| ("read_file", RequestId::Number(id)));
            (Vec::new(), ids.collect())
        };
        Batch(vec![iteration(&[1, 2]), iteration(&[3])])
    }

    #[test]
    fn answers_are_matched_to_the_iterations_sent_in_order() {
        let answers = Answers {
            sent: 1,
            lines: vec![answer(1, "one"), answer(2, "two")],
        };
        let replies = batch().replies(&answers).unwrap();
        let texts: Vec<&str> = replies
            .iter()
            .map(|(_, r)| r.outcome.llm_content())
            .collect();
        assert_eq!(texts, ["one", "two"]);
        assert!(replies[0].1.text.contains("\"one\""));
    }

    #[test]
    fn a_missing_or_misplaced_answer_is_an_error() {
        let short = Answers {
            sent: 2,
            lines: vec![answer(1, "one"), answer(2, "two")],
        };
        assert!(batch().replies(&short).is_err());
        let swapped = Answers {
            sent: 1,
            lines: vec![answer(2, "two"), answer(1, "one")],
        };
        assert!(batch().replies(&swapped).is_err());
    }
}
