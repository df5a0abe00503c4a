//! Connections to an implementation: [`Supervisor`] starts processes from a
//! launch spec and performs the handshake; [`Connection`] sends requests to
//! one process and replaces it when it dies.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolpass_protocol::method::{self, Method};
use toolpass_protocol::{
    Dialect, Feature, InitializeParams, InitializeResult, Notification, ToolpassCapability,
};

use crate::error::{CallError, CallErrorKind, StartError, StartErrorKind};
use crate::implementation::Implementation;
use crate::process::{PendingReply, Process};

/// The MCP notification a client sends once it has read the `initialize`
/// answer; MCP servers may refuse requests until it arrives.
const INITIALIZED: &str = "notifications/initialized";

/// Limits for starting and stopping implementation processes.
#[derive(Debug, Clone)]
pub struct Options {
    start_timeout: Duration,
    grace: Duration,
    stderr_tail_bytes: usize,
    max_line_bytes: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            // An adapter may start a Node.js peer; a loaded CI machine is slow.
            start_timeout: Duration::from_secs(60),
            grace: Duration::from_secs(5),
            stderr_tail_bytes: 8 << 10,
            // Four times the reference's request limit: outcomes are
            // bounded by output budgets, but a plain MCP server may answer
            // with a whole file, and a line this long is a runaway.
            max_line_bytes: 256 << 20,
        }
    }
}

impl Options {
    /// How long `initialize` may take (60 s by default).
    #[must_use]
    pub fn start_timeout(mut self, timeout: Duration) -> Options {
        self.start_timeout = timeout;
        self
    }

    /// How long a process has to exit after its stdin closes, and how long
    /// the supervisor waits for a killed process's pipes to close (5 s by
    /// default).
    #[must_use]
    pub fn grace(mut self, grace: Duration) -> Options {
        self.grace = grace;
        self
    }

    /// How much of the end of stderr errors carry (8 KiB by default).
    #[must_use]
    pub fn stderr_tail_bytes(mut self, bytes: usize) -> Options {
        self.stderr_tail_bytes = bytes;
        self
    }

    /// The longest stdout line accepted (256 MiB by default). A longer one
    /// is a protocol error naming the limit, reported as soon as the limit
    /// is passed, with at most the limit held in memory: an implementation
    /// that prints one endless line costs the runner this much, no more.
    #[must_use]
    pub fn max_line_bytes(mut self, bytes: usize) -> Options {
        self.max_line_bytes = bytes;
        self
    }
}

/// Starts connections to one implementation.
///
/// Cheap to clone: workers share one. Each [`Supervisor::connect`] spawns a
/// fresh process, so `--isolate` is a `connect` per scenario.
#[derive(Debug, Clone)]
pub struct Supervisor {
    launch: Arc<Launch>,
}

#[derive(Debug)]
struct Launch {
    implementation: Implementation,
    options: Options,
}

/// A live implementation process that has completed the handshake.
///
/// Requests are sequential (`&mut self`). After a timeout, crash or protocol
/// error the process is gone and every request fails the same way until
/// [`Connection::restart`]. Dropping a connection kills its process group.
pub struct Connection {
    supervisor: Supervisor,
    root: Option<PathBuf>,
    process: Process,
    peer: Peer,
}

/// What the implementation said about itself at the handshake.
#[derive(Debug, Clone, PartialEq)]
pub struct Peer {
    result: InitializeResult,
}

impl Supervisor {
    /// A supervisor for `implementation`.
    pub fn new(implementation: Implementation, options: Options) -> Supervisor {
        Supervisor {
            launch: Arc::new(Launch {
                implementation,
                options,
            }),
        }
    }

    /// The launch spec.
    pub fn implementation(&self) -> &Implementation {
        &self.launch.implementation
    }

    /// Spawns a process and completes the handshake.
    ///
    /// `root` is the sandbox substituted for `{root}` in the command line;
    /// it is required when the command line has `{root}` (see
    /// [`Implementation::needs_root`]) and ignored otherwise.
    pub async fn connect(&self, root: Option<&Path>) -> Result<Connection, StartError> {
        let (process, peer) = self.start(root).await?;
        Ok(Connection {
            supervisor: self.clone(),
            root: root.map(Path::to_path_buf),
            process,
            peer,
        })
    }

    async fn start(&self, root: Option<&Path>) -> Result<(Process, Peer), StartError> {
        let Launch {
            implementation,
            options,
        } = &*self.launch;
        let mut process = Process::spawn(
            implementation,
            root,
            options.stderr_tail_bytes,
            options.grace,
            options.max_line_bytes,
        )?;
        let client = toolpass_protocol::Implementation::new("toolpass", env!("CARGO_PKG_VERSION"));
        let params = InitializeParams::new(client);
        let result = match process
            .request::<method::Initialize>(&params, options.start_timeout)
            .await
        {
            Ok(result) => result,
            Err(error) => {
                // An error answer leaves the process running: stop it, so a
                // failed start leaves nothing behind.
                process.kill().await;
                let (kind, message) = match refused_version(&error) {
                    Some(supported) => (
                        StartErrorKind::UnsupportedVersion,
                        format!(
                            "use `{implementation}`: it refused {} and supports {supported}",
                            params.protocol_version
                        ),
                    ),
                    None => (
                        StartErrorKind::Handshake,
                        format!("complete the handshake with `{implementation}`"),
                    ),
                };
                return Err(StartError::new(kind, message)
                    .with_stderr_tail(error.stderr_tail().to_owned())
                    .with_source(error));
            }
        };
        if let Err(refusal) = result.dialect() {
            process.kill().await;
            let server = &result.server_info;
            return Err(StartError::new(
                StartErrorKind::UnsupportedVersion,
                format!(
                    "use {} {} (`{implementation}`): {refusal}",
                    server.name, server.version
                ),
            )
            .with_stderr_tail(process.stderr_tail())
            .with_source(refusal));
        }
        process.notify(Notification {
            method: INITIALIZED.to_owned(),
            params: None,
        });
        Ok((process, Peer { result }))
    }
}

/// The versions an implementation says it supports when it refuses the
/// runner's `initialize` as `toolpass_protocol::negotiate` does (`data:
/// {supported: [...]}`, the shape of MCP's own example), listed.
fn refused_version(error: &CallError) -> Option<String> {
    let CallErrorKind::ErrorResponse(response) = error.kind() else {
        return None;
    };
    let supported = response.data.as_ref()?.get("supported")?.as_array()?;
    let names: Vec<&str> = supported.iter().filter_map(Value::as_str).collect();
    Some(names.join(", "))
}

impl Connection {
    /// What the implementation said at the handshake.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// The process id, which is also its process group id.
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// The sandbox root the process was started with, if any.
    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    /// Whether requests can still be sent (no timeout, crash or protocol
    /// error yet).
    pub fn is_alive(&self) -> bool {
        self.process.death().is_none()
    }

    /// The last few KiB of the process's stderr so far.
    pub fn stderr_tail(&self) -> String {
        self.process.stderr_tail()
    }

    /// Sends a request for method `M` and decodes its result, waiting at
    /// most `timeout` for the answer.
    pub async fn request<M: Method>(
        &mut self,
        params: &M::Params,
        timeout: Duration,
    ) -> Result<M::Result, CallError> {
        self.process.request::<M>(params, timeout).await
    }

    /// Like [`Connection::request`], but returns the result undecoded: a
    /// plain MCP server's `tools/call` result is no toolpass Outcome, and
    /// the runner reads it with [`toolpass_protocol::OutcomeSummary`].
    pub async fn request_value<M: Method>(
        &mut self,
        params: &M::Params,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        self.process.request_value::<M>(params, timeout).await
    }

    /// Sends a request for method `M` without waiting for its answer: the
    /// answer is awaited with [`Connection::finish_request`], and other
    /// requests may go out meanwhile (a call joined or cancelled later).
    pub async fn start_request<M: Method>(
        &mut self,
        params: &M::Params,
    ) -> Result<PendingReply, CallError> {
        self.process.begin::<M>(params).await
    }

    /// Waits at most `timeout` for the answer to a request
    /// [`Connection::start_request`] sent; its result undecoded, as
    /// [`Connection::request_value`] returns it.
    pub async fn finish_request(
        &mut self,
        pending: PendingReply,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        self.process.finish_value(pending, timeout).await
    }

    /// Sends a notification (`notifications/cancelled`); lost silently if
    /// the process is ending.
    pub fn notify(&self, notification: Notification) {
        self.process.notify(notification);
    }

    /// Declares the connection dead because a result could not be used
    /// (say, an Outcome the runner cannot read), killing the process. The
    /// returned error is a [`crate::CallErrorKind::ProtocolError`] unless
    /// the connection had already died of something else.
    pub async fn reject(
        &mut self,
        method: &str,
        what: impl Into<String>,
        line: Option<String>,
    ) -> CallError {
        let kind = CallErrorKind::ProtocolError {
            what: what.into(),
            line,
        };
        self.process.fail_with(kind, method).await
    }

    /// The next notification (`toolpass/notice`, `notifications/message`,
    /// ...), waiting at most `timeout`; `None` when none came.
    pub async fn next_notification(&mut self, timeout: Duration) -> Option<Notification> {
        self.process.next_notification(timeout).await
    }

    /// Kills the current process (if it still runs) and starts a fresh one
    /// with the same root, re-running the handshake.
    ///
    /// On failure the connection stays dead and may be restarted again.
    pub async fn restart(&mut self) -> Result<&Peer, StartError> {
        self.process.kill().await;
        let (process, peer) = self.supervisor.start(self.root.as_deref()).await?;
        self.process = process;
        self.peer = peer;
        Ok(&self.peer)
    }

    /// Kills the process group and waits until the process is reaped.
    pub(crate) async fn kill(mut self) {
        self.process.kill().await;
    }

    /// Kills the process group with `SIGKILL`, as a crash would, and
    /// leaves what the implementation started outside it for a scenario to
    /// judge; closing or dropping the connection ends that too.
    pub(crate) async fn kill_keeping_leftovers(&mut self) {
        self.process.kill_keeping_leftovers().await;
    }

    /// Closes stdin, lets the process exit on its own within the grace
    /// period (or kills its group after it) and returns how it ended.
    pub async fn close(mut self) -> Option<ExitStatus> {
        self.process.close().await
    }
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("implementation", self.supervisor.implementation())
            .field("pid", &self.pid())
            .field("root", &self.root)
            .field("death", &self.process.death())
            .finish_non_exhaustive()
    }
}

impl Peer {
    /// The whole `initialize` result.
    pub fn initialize_result(&self) -> &InitializeResult {
        &self.result
    }

    /// The implementation's name and version.
    pub fn server_info(&self) -> &toolpass_protocol::Implementation {
        &self.result.server_info
    }

    /// A toolpass implementation, or a plain MCP server. Another major
    /// version was refused at the handshake, so this cannot fail.
    pub fn dialect(&self) -> Dialect<'_> {
        match self.toolpass() {
            Some(toolpass) => Dialect::Toolpass(toolpass),
            None => Dialect::PlainMcp(&self.result.protocol_version),
        }
    }

    /// `capabilities.toolpass`, absent for a plain MCP server.
    pub fn toolpass(&self) -> Option<&ToolpassCapability> {
        self.result.capabilities.toolpass.as_ref()
    }

    /// The features offered beyond `tools/list` and `tools/call`; none for a
    /// plain MCP server.
    pub fn features(&self) -> &[Feature] {
        self.toolpass().map_or(&[], |toolpass| &toolpass.features)
    }

    /// Whether `feature` is offered.
    pub fn supports(&self, feature: &Feature) -> bool {
        self.features().contains(feature)
    }
}

#[cfg(test)]
mod tests {
    use toolpass_protocol::ToolsListParams;

    use super::*;
    use crate::CallErrorKind;

    /// A small toolpass server in `sh`: it completes the handshake, then
    /// answers its Nth request with a line of as many bytes as the Nth word
    /// of `$LENS` says, or with one line that never ends where that word is
    /// `endless`. POSIX `sh` and `printf` only, so it runs wherever the
    /// runner does.
    const SERVER: &str = r#"
set -- $LENS
answer() { printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$1" "$2"; }
while IFS= read -r line; do
  case "$line" in *'"id":'*) ;; *) continue ;; esac
  id=${line#*\"id\":}; id=${id%%,*}
  case "$line" in
    *'"initialize"'*)
      answer "$id" '{"protocolVersion":"toolpass/1","serverInfo":{"name":"long-lines","version":"0"},"capabilities":{"tools":{},"toolpass":{"version":1,"features":[]}}}' ;;
    *)
      len=$1; shift
      if [ "$len" = endless ]; then
        while :; do printf '%4096s' ''; done
      fi
      bare='{"jsonrpc":"2.0","id":'$id',"result":{"pad":""}}'
      pad=$(printf '%*s' $((len - ${#bare})) '' | tr ' ' x)
      answer "$id" '{"pad":"'$pad'"}' ;;
  esac
done
"#;

    const LIMIT: usize = 64 << 10;

    async fn connect(lens: &str) -> Connection {
        let implementation = Implementation::new("sh")
            .args(["-c", SERVER])
            .env("LENS", lens);
        Supervisor::new(implementation, Options::default().max_line_bytes(LIMIT))
            .connect(None)
            .await
            .unwrap()
    }

    async fn list(connection: &mut Connection) -> Result<Value, CallError> {
        let params = ToolsListParams::default();
        connection
            .request_value::<method::ToolsList>(&params, Duration::from_secs(30))
            .await
    }

    fn protocol_error(error: &CallError) -> (&str, Option<&str>) {
        match error.kind() {
            CallErrorKind::ProtocolError { what, line } => (what, line.as_deref()),
            other => panic!("not a protocol error: {other:?}"),
        }
    }

    #[tokio::test]
    async fn an_answer_at_the_limit_is_read_and_one_byte_more_is_a_protocol_error() {
        let lens = format!("{LIMIT} {}", LIMIT + 1);
        let mut connection = connect(&lens).await;
        let result = list(&mut connection).await.unwrap();
        let pad = result["pad"].as_str().unwrap_or_default();
        assert!(pad.len() > LIMIT - 64, "{} bytes", pad.len());
        let error = list(&mut connection).await.unwrap_err();
        let (what, line) = protocol_error(&error);
        assert!(
            what.starts_with("stdout line is longer than the limit of 65536 bytes (64 KiB)"),
            "{what}"
        );
        assert!(
            line.is_some_and(|l| l.starts_with(r#"{"jsonrpc":"2.0","id":3,"result":{"pad":"xxx"#))
        );
        assert!(!connection.is_alive());
        // The run goes on: a fresh process answers again.
        connection.restart().await.unwrap();
        assert!(list(&mut connection).await.is_ok());
    }

    #[tokio::test]
    async fn an_endless_line_is_a_protocol_error_naming_the_limit() {
        let mut connection = connect("endless").await;
        let error = list(&mut connection).await.unwrap_err();
        let (what, line) = protocol_error(&error);
        assert!(what.contains("limit of 65536 bytes"), "{what}");
        assert_eq!(line.map(str::len), Some(1024));
        assert!(!connection.is_alive());
    }
}
