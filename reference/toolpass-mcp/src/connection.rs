//! One MCP server over stdio, behind a synchronous API.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientRequest, ReadResourceRequestParams, ResourceContents, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RunningService};
use rmcp::{RoleClient, ServiceError, ServiceExt as _};
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::sync::{Notify, oneshot};
use toolpass_core::mcp::resource::Content;

use crate::handler::{Handler, ProgressRoutes, Sink};
use crate::transport;

/// How to start one server, and how long it may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    /// The program, looked up on `PATH` when it has no `/`.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it on top of this process's environment.
    pub env: BTreeMap<String, String>,
    /// Its working directory.
    pub cwd: PathBuf,
    /// How long `initialize` may take.
    pub initialize_timeout: Duration,
    /// How long a listing, a call or a read may take.
    pub request_timeout: Duration,
}

/// Why a server could not be connected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectError {
    /// What went wrong, naming the server and the command.
    pub message: String,
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConnectError {}

/// A tool as the server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    /// Its name on the server.
    pub name: String,
    /// Its description (empty when it has none).
    pub description: String,
    /// Its `inputSchema`, as listed.
    pub input_schema: Value,
    /// Its `annotations`, when it has any.
    pub annotations: Option<toolpass_core::mcp::Hints>,
}

/// A prompt as the server lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedPrompt {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// Its arguments' names, the required ones marked.
    pub arguments: Vec<(String, bool)>,
}

/// What a server offers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Listing {
    /// Its tools, in its order.
    pub tools: Vec<ListedTool>,
    /// Its prompts.
    pub prompts: Vec<ListedPrompt>,
    /// Its resources' URIs.
    pub resources: Vec<String>,
}

/// A `tools/call` answer: the content blocks and structured content as the
/// server sent them, and whether it said the call failed.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    /// The content blocks, as JSON.
    pub content: Vec<Value>,
    /// `structuredContent`, if any.
    pub structured: Option<Value>,
    /// `isError: true`.
    pub is_error: bool,
}

/// Why a call (or a read) has no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// The request timed out; the server was told to cancel it.
    Timeout(Duration),
    /// The caller aborted it; the server was told to cancel it.
    Aborted,
    /// The connection is gone (the server exited, or was shut down).
    Closed,
    /// The server answered with a JSON-RPC error, or with something that is
    /// not the answer.
    Server(String),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The TypeScript SDK's wording (`McpError` -32001).
            CallError::Timeout(_) => f.write_str("MCP error -32001: Request timed out"),
            CallError::Aborted => f.write_str("Tool call aborted"),
            // The TypeScript SDK's wording when the transport closes under
            // a request (`McpError` -32000).
            CallError::Closed => f.write_str("MCP error -32000: Connection closed"),
            CallError::Server(message) => f.write_str(message),
        }
    }
}

/// Stops a call in flight: the caller keeps a clone and calls
/// [`Abort::abort`] from any thread.
#[derive(Debug, Clone, Default)]
pub struct Abort(Arc<Notify>);

impl Abort {
    /// Aborts the call (now, or as soon as it starts).
    pub fn abort(&self) {
        self.0.notify_one();
    }
}

/// A connected server. Dropping it shuts the server down without waiting;
/// [`Connection::shutdown`] waits.
pub struct Connection {
    server: String,
    runtime: tokio::runtime::Handle,
    peer: Peer<RoleClient>,
    progress: ProgressRoutes,
    request_timeout: Duration,
    pid: Option<u32>,
    stop: Mutex<Option<oneshot::Sender<()>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.server)
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

/// What the connection's thread hands back once the handshake is done.
struct Connected {
    runtime: tokio::runtime::Handle,
    peer: Peer<RoleClient>,
    progress: ProgressRoutes,
    pid: Option<u32>,
}

impl Connection {
    /// Starts server `server` as `spec` says and initializes it.
    ///
    /// # Errors
    /// When the program cannot be started, the handshake fails (a line that
    /// is not JSON-RPC, the server exits) or takes longer than
    /// `spec.initialize_timeout`; the server is stopped then.
    pub fn connect(server: &str, spec: &ServerSpec) -> Result<Connection, ConnectError> {
        let (ready, connected) = mpsc::channel();
        let (stop, stopped) = oneshot::channel();
        let (name, owned) = (server.to_owned(), spec.clone());
        let thread = std::thread::Builder::new()
            .name(format!("mcp-{server}"))
            .spawn(move || run(&name, &owned, &ready, stopped))
            .map_err(|e| ConnectError {
                message: format!("MCP server '{server}': start its thread: {e}"),
            })?;
        let connected = connected.recv().unwrap_or_else(|_| {
            Err(ConnectError {
                message: format!("MCP server '{server}': its connection thread ended"),
            })
        });
        match connected {
            Ok(c) => Ok(Connection {
                server: server.to_owned(),
                runtime: c.runtime,
                peer: c.peer,
                progress: c.progress,
                request_timeout: spec.request_timeout,
                pid: c.pid,
                stop: Mutex::new(Some(stop)),
                thread: Mutex::new(Some(thread)),
            }),
            Err(error) => {
                // The thread has stopped the server and is ending.
                let _ = thread.join();
                Err(error)
            }
        }
    }

    /// The server's name.
    #[must_use]
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The server process's id.
    #[must_use]
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Whether the connection is gone: the server exited or was shut down.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.peer.is_transport_closed()
    }

    /// Runs `work` on the connection's runtime and waits for it.
    fn block<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T, CallError>> + Send + 'static,
    ) -> Result<T, CallError> {
        let (done, answer) = mpsc::channel();
        self.runtime.spawn(async move {
            let _ = done.send(work.await);
        });
        // The runtime is gone (shut down): the task was dropped unanswered.
        answer.recv().unwrap_or(Err(CallError::Closed))
    }

    /// Lists the server's tools, prompts and resources, each in full
    /// (every page). A listing the server does not support is empty, as
    /// Qwen's discovery treats it.
    ///
    /// # Errors
    /// When the connection is gone or the tool listing fails.
    pub fn list(&self) -> Result<Listing, CallError> {
        let peer = self.peer.clone();
        let timeout = self.request_timeout;
        self.block(async move {
            let tools = within(timeout, peer.list_all_tools())
                .await?
                .map_err(service_error)?;
            let prompts = within(timeout, peer.list_all_prompts())
                .await?
                .unwrap_or_default();
            let resources = within(timeout, peer.list_all_resources())
                .await?
                .unwrap_or_default();
            Ok(Listing {
                tools: tools.into_iter().map(listed_tool).collect(),
                prompts: prompts
                    .into_iter()
                    .map(|p| ListedPrompt {
                        name: p.name,
                        description: p.description,
                        arguments: p
                            .arguments
                            .unwrap_or_default()
                            .into_iter()
                            .map(|a| (a.name, a.required == Some(true)))
                            .collect(),
                    })
                    .collect(),
                resources: resources.into_iter().map(|r| r.uri.clone()).collect(),
            })
        })
    }

    /// Calls tool `name` with `arguments`; `progress` gets each progress
    /// notification the server sends under the call's token, and `abort`
    /// stops the call (the server is told with `notifications/cancelled`).
    ///
    /// # Errors
    /// A [`CallError`]; a call the server answers with `isError` is an
    /// `Ok` whose outcome says so.
    pub fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        progress: Sink,
        abort: &Abort,
    ) -> Result<CallOutcome, CallError> {
        let (peer, routes, abort) = (self.peer.clone(), self.progress.clone(), abort.clone());
        let mut options = PeerRequestOptions::no_options();
        options.timeout = Some(self.request_timeout);
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        self.block(async move {
            let handle = peer
                .send_cancellable_request(request, options)
                .await
                .map_err(service_error)?;
            let _route = routes.route(handle.progress_token.clone(), progress);
            let id = handle.id.clone();
            let answer = tokio::select! {
                answer = handle.await_response() => answer.map_err(service_error)?,
                () = abort.0.notified() => {
                    let cancel = CancelledNotificationParam::new(Some(id), Some("Tool call aborted".to_owned()));
                    let notification = CancelledNotification::new(cancel);
                    // A connection gone by now needs no telling.
                    let _ = peer.send_notification(notification.into()).await;
                    return Err(CallError::Aborted);
                }
            };
            match answer {
                ServerResult::CallToolResult(result) => Ok(CallOutcome {
                    content: result
                        .content
                        .iter()
                        .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
                        .collect(),
                    structured: result.structured_content,
                    is_error: result.is_error == Some(true),
                }),
                other => Err(CallError::Server(format!(
                    "the server answered tools/call with something else: {}",
                    serde_json::to_string(&other).unwrap_or_default()
                ))),
            }
        })
    }

    /// Reads resource `uri`.
    ///
    /// # Errors
    /// A [`CallError`].
    pub fn read_resource(&self, uri: &str) -> Result<Vec<Content>, CallError> {
        let (peer, timeout) = (self.peer.clone(), self.request_timeout);
        let params = ReadResourceRequestParams::new(uri.to_owned());
        self.block(async move {
            let read = tokio::time::timeout(timeout, peer.read_resource(params))
                .await
                .map_err(|_| CallError::Timeout(timeout))?
                .map_err(service_error)?;
            Ok(read
                .contents
                .into_iter()
                // A kind of content this SDK adds later is no text and no
                // blob: Qwen's formatter skips it too.
                .filter_map(|c| match c {
                    ResourceContents::TextResourceContents { text, .. } => Some(Content::Text(text)),
                    ResourceContents::BlobResourceContents {
                        blob, mime_type, ..
                    } => Some(Content::Blob {
                        base64: blob,
                        mime_type,
                    }),
                    _ => None,
                })
                .collect())
        })
    }

    /// Shuts the server down and waits until it has exited (the SDK's
    /// graceful shutdown: stdin closed, then SIGTERM, then SIGKILL).
    pub fn shutdown(&self) {
        self.request_stop();
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(thread) = thread
            && thread.join().is_err()
        {
            tracing::error!(server = self.server, "the MCP connection thread panicked");
        }
    }

    fn request_stop(&self) {
        let stop = self
            .stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(stop) = stop {
            let _ = stop.send(());
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        // Never blocks: the thread stops the server on its own.
        self.request_stop();
    }
}

/// `what`, or a timeout after `timeout`.
async fn within<T>(timeout: Duration, what: impl Future<Output = T>) -> Result<T, CallError> {
    tokio::time::timeout(timeout, what)
        .await
        .map_err(|_| CallError::Timeout(timeout))
}

fn service_error(error: ServiceError) -> CallError {
    match error {
        ServiceError::Timeout { timeout } => CallError::Timeout(timeout),
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => CallError::Closed,
        ServiceError::McpError(e) => {
            CallError::Server(format!("MCP error {}: {}", e.code.0, e.message))
        }
        other => CallError::Server(other.to_string()),
    }
}

fn listed_tool(tool: rmcp::model::Tool) -> ListedTool {
    ListedTool {
        name: tool.name.into_owned(),
        description: tool.description.map(|d| d.into_owned()).unwrap_or_default(),
        input_schema: Value::Object((*tool.input_schema).clone()),
        annotations: tool.annotations.map(|a| toolpass_core::mcp::Hints {
            read_only: a.read_only_hint,
            destructive: a.destructive_hint,
            idempotent: a.idempotent_hint,
        }),
    }
}

/// The connection's thread: a runtime, the handshake, then waiting for
/// the stop, then the server's shutdown.
fn run(
    server: &str,
    spec: &ServerSpec,
    ready: &mpsc::Sender<Result<Connected, ConnectError>>,
    stopped: oneshot::Receiver<()>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            let message = format!("MCP server '{server}': start its runtime: {e}");
            let _ = ready.send(Err(ConnectError { message }));
            return;
        }
    };
    runtime.block_on(async {
        let service = match handshake(server, spec).await {
            Ok(service) => service,
            Err(error) => {
                let _ = ready.send(Err(error));
                return;
            }
        };
        let (pid, handle) = (service.1, tokio::runtime::Handle::current());
        let service = service.0;
        let connected = Connected {
            runtime: handle,
            peer: service.peer().clone(),
            progress: service.service().progress.clone(),
            pid,
        };
        if ready.send(Ok(connected)).is_err() {
            return;
        }
        // A stop, or the connection's owner gone: either way, shut down.
        let _ = stopped.await;
        if let Err(e) = service.cancel().await {
            tracing::warn!(server, "closing the MCP connection: {e}");
        }
    });
}

type Service = RunningService<RoleClient, Handler>;

/// Starts the server and initializes it within the spec's timeout.
async fn handshake(
    server: &str,
    spec: &ServerSpec,
) -> Result<(Service, Option<u32>), ConnectError> {
    let failed = |what: String| ConnectError {
        message: format!("MCP server '{server}' ({}): {what}", spec.command),
    };
    let mut command = tokio::process::Command::new(&spec.command);
    command
        .args(&spec.args)
        .envs(&spec.env)
        .current_dir(&spec.cwd)
        // However the connection ends, the server does not outlive it.
        .kill_on_drop(true);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|e| failed(format!("start it in {}: {e}", spec.cwd.display())))?;
    let pid = child.id();
    let stderr = child.stderr.take();
    let transport = transport::Stdio::new(server, child).map_err(|e| failed(e.to_string()))?;
    if let Some(stderr) = stderr {
        let name = server.to_owned();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = name, "MCP STDERR: {line}");
            }
        });
    }
    let timeout = spec.initialize_timeout;
    match tokio::time::timeout(timeout, Handler::new(server).serve(transport)).await {
        Ok(Ok(service)) => Ok((service, pid)),
        Ok(Err(e)) => Err(failed(format!("initialize: {e}"))),
        Err(_) => Err(failed(format!(
            "initialize: no answer within {} ms",
            timeout.as_millis()
        ))),
    }
}
