//! The stdio transport to one server: the SDK's line framing, with the
//! client's bounds on what a server may send.
//!
//! The SDK's own child transport drops a line over its 16 MiB limit, or one
//! its parser cannot nest deep enough for, without a word: the request it
//! answered then waits out its whole timeout. And one tool with a schema
//! the SDK cannot type fails the whole `tools/list`, so every tool of the
//! server is lost. Here each line is scanned before it is parsed
//! ([`frame::Scanner`], no recursion): an answer too long or too deep
//! fails its request at once with an error naming the limit, and a
//! listing's unusable tools are refused one by one.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use toolpass_core::mcp::frame::{self, Frame, Scanner};

/// How long the server has to exit after its stdin closes, and again
/// after SIGTERM, before it is killed (the SDK's graceful shutdown).
const EXIT_WAIT: Duration = Duration::from_secs(3);

/// JSON-RPC's "Internal error", for the answers the client makes up.
const INTERNAL_ERROR: i64 = -32603;

/// A started server's stdio, as an rmcp transport.
pub(crate) struct Stdio {
    server: String,
    child: Child,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    stdout: BufReader<ChildStdout>,
    /// The line read so far, while it is within the limit.
    line: Vec<u8>,
    /// The line read so far, scanned.
    scanner: Scanner,
    /// The line went over the limit: the rest of it is scanned, not kept.
    oversized: bool,
    /// The ids of the `tools/list` requests not answered yet, as JSON.
    listings: Arc<Mutex<HashSet<String>>>,
}

impl Stdio {
    /// The transport over `child`, whose stdin and stdout are piped.
    pub(crate) fn new(server: &str, mut child: Child) -> std::io::Result<Self> {
        let taken = |what| std::io::Error::other(format!("the server's {what} is not piped"));
        let stdin = child.stdin.take().ok_or_else(|| taken("stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| taken("stdout"))?;
        Ok(Self {
            server: server.to_owned(),
            child,
            stdin: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
            stdout: BufReader::new(stdout),
            line: Vec::new(),
            scanner: Scanner::new(),
            oversized: false,
            listings: Arc::default(),
        })
    }

    /// Reads until a whole line has been scanned; `false` at the end of
    /// the stream. Cancel-safe: what was read stays in `self`, and a read
    /// cancelled mid-line resumes where it was.
    async fn read_line(&mut self) -> std::io::Result<bool> {
        loop {
            let available = self.stdout.fill_buf().await?;
            if available.is_empty() {
                return Ok(false);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let piece = &available[..newline.map_or(available.len(), |at| at + 1)];
            let taken = piece.len();
            self.scanner.feed(piece);
            if !self.oversized && self.line.len() + taken > frame::MAX_MESSAGE_BYTES {
                self.oversized = true;
                self.line = Vec::new();
            }
            if !self.oversized {
                self.line.extend_from_slice(piece);
            }
            self.stdout.consume(taken);
            if newline.is_some() {
                return Ok(true);
            }
        }
    }

    /// What the line just read becomes: a message, or `None` to skip it.
    fn take_message(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let seen = std::mem::take(&mut self.scanner).finish();
        let line = std::mem::take(&mut self.line);
        if std::mem::take(&mut self.oversized) {
            return self.refusal(&seen, frame::oversized_message(seen.bytes));
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            return None;
        }
        let listing = answered(&seen).is_some_and(|id| {
            self.listings
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id.to_string())
        });
        let pruned;
        let text = if seen.depth > frame::MAX_MESSAGE_DEPTH {
            if !listing {
                return self.refusal(&seen, frame::too_deep_message(seen.depth));
            }
            // A listing keeps its tools: the deep schema, pruned, is then
            // too deep for a schema and refused alone.
            pruned = frame::prune(text, frame::MAX_MESSAGE_DEPTH);
            &pruned[..]
        } else {
            text
        };
        let mut value: Value = match serde_json::from_slice(text) {
            Ok(value) => value,
            Err(e) => {
                // As the SDK does: a line that is not JSON names no request.
                tracing::debug!(
                    server = self.server,
                    "ignoring a line that is not JSON: {e}"
                );
                return None;
            }
        };
        if listing && let Some(tools) = value.pointer_mut("/result/tools") {
            refuse_unusable_tools(&self.server, tools);
        }
        match serde_json::from_value(value) {
            Ok(message) => Some(message),
            Err(e) => self.refusal(&seen, format!("the MCP server's answer is not MCP: {e}")),
        }
    }

    /// The error answer, in the server's place, to the request `seen`
    /// answers; `None` when it answers none.
    fn refusal(&self, seen: &Frame, message: String) -> Option<RxJsonRpcMessage<RoleClient>> {
        tracing::warn!(server = self.server, "{message}");
        let id = answered(seen)?;
        let error = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": INTERNAL_ERROR, "message": message}
        });
        serde_json::from_value(error).ok()
    }

    /// The SDK's graceful shutdown: stdin closed, then SIGTERM, then
    /// SIGKILL, each after the server had [`EXIT_WAIT`] to exit.
    async fn shut_down(&mut self) -> std::io::Result<()> {
        drop(self.stdin.lock().await.take());
        if tokio::time::timeout(EXIT_WAIT, self.child.wait())
            .await
            .is_ok()
        {
            return Ok(());
        }
        if let Some(pid) = self
            .child
            .id()
            .and_then(|id| rustix::process::Pid::from_raw(i32::try_from(id).ok()?))
        {
            // Gone already: the wait below says so.
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            if tokio::time::timeout(EXIT_WAIT, self.child.wait())
                .await
                .is_ok()
            {
                return Ok(());
            }
        }
        self.child.kill().await
    }
}

/// The id of the request `seen` answers, as JSON.
fn answered(seen: &Frame) -> Option<Value> {
    serde_json::from_str(seen.answer_id()?).ok()
}

/// Drops from a listing's `tools` each tool the client cannot offer (an
/// `inputSchema` missing, not an object or too deep, or a shape the SDK
/// cannot read), saying why; the others stay.
fn refuse_unusable_tools(server: &str, tools: &mut Value) {
    let Some(list) = tools.as_array_mut() else {
        return;
    };
    list.retain(|tool| {
        let problem = crate::schema::schema_problem(tool).or_else(|| {
            serde_json::from_value::<rmcp::model::Tool>(tool.clone())
                .err()
                .map(|e| format!("it is not an MCP tool: {e}"))
        });
        let Some(problem) = problem else {
            return true;
        };
        let name = tool
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("(no name)");
        tracing::warn!(server, tool = name, "MCP tool refused: {problem}");
        false
    });
}

impl Transport<RoleClient> for Stdio {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let (stdin, listings) = (Arc::clone(&self.stdin), Arc::clone(&self.listings));
        async move {
            let value = serde_json::to_value(&item).map_err(std::io::Error::other)?;
            if value.get("method").and_then(Value::as_str) == Some("tools/list")
                && let Some(id) = value.get("id")
            {
                listings
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(id.to_string());
            }
            let mut line = serde_json::to_vec(&value).map_err(std::io::Error::other)?;
            line.push(b'\n');
            let mut stdin = stdin.lock().await;
            let stdin = stdin.as_mut().ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::NotConnected, "Transport is closed")
            })?;
            stdin.write_all(&line).await?;
            stdin.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            match self.read_line().await {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => {
                    tracing::error!(server = self.server, "reading from the MCP server: {e}");
                    return None;
                }
            }
            if let Some(message) = self.take_message() {
                return Some(message);
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.shut_down()
    }
}
