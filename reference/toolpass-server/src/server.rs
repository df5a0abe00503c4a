//! The dispatcher: one task that takes the messages the reader thread
//! read, in order, and never waits on a tool. What concerns the whole
//! process (`initialize`, `toolpass/session.open`, a protocol fault) it
//! answers at once; what concerns a session it queues on that session's
//! [`Worker`]; `notifications/cancelled` it passes straight to the call it
//! names, queued or running.
//!
//! Protocol faults (unknown method, bad params, unknown session) are
//! JSON-RPC errors; a tool that fails is a successful reply whose Outcome
//! says so.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tokio::task::JoinSet;
use toolpass_protocol::method;
use toolpass_protocol::{
    Feature, Implementation, InitializeResult, Message, Request, RequestId, ResponseError,
    ServerCapabilities, SessionId, SessionOpenResult, ToolpassCapability, ToolsCapability,
};
use toolpass_tools::context::{Cancellation, Latch};
use toolpass_tools::faults::FaultPoint;
use toolpass_tools::session::SessionConfig;

use crate::convert;
use crate::inflight::InFlight;
use crate::outbound::Outbound;
use crate::signals::Signals;
use crate::tools;
use crate::worker::{Call, Job, Queued, Worker};

/// The name the server gives itself in `initialize`.
pub(crate) const SERVER_NAME: &str = "toolpass-reference";

/// What the reference is, for `serverInfo.description`: where Qwen Code has
/// two behaviours (SPEC.md `grep.backend`), which one it follows.
pub(crate) const DESCRIPTION: &str = "Qwen Code's tool layer in Rust; grep_search follows Qwen's GrepTool \
                           (git grep in a repository, grep -r outside)";

/// What the reader thread hands the dispatcher.
pub(crate) enum Inbound {
    /// A message; a request carries the permit that bounds what is in
    /// flight.
    Message(Message, Option<OwnedSemaphorePermit>),
    /// A line that is not a message: answered with this error.
    Unreadable(Option<RequestId>, ResponseError),
}

/// Every session of this process.
pub(crate) struct Server {
    outbound: Outbound,
    /// Each open session's queue, by id.
    sessions: HashMap<String, SessionQueue>,
    /// The session calls without `_meta.toolpass.sessionId` run in (the
    /// `--root` of the launch).
    implicit: Option<String>,
    opened: u64,
    in_flight: InFlight,
    /// Set when the client's input ends.
    input_closed: Arc<Latch>,
    workers: JoinSet<()>,
}

impl Server {
    /// A server with no sessions, writing through `outbound`.
    #[must_use]
    pub(crate) fn new(outbound: Outbound) -> Self {
        Server {
            outbound,
            sessions: HashMap::new(),
            implicit: None,
            opened: 0,
            in_flight: InFlight::default(),
            input_closed: Arc::default(),
            workers: JoinSet::new(),
        }
    }

    /// Opens the implicit session at `root` with `config`, for calls that
    /// name no session. Call within the runtime: the session's worker is
    /// spawned on it.
    ///
    /// # Errors
    /// When `root` is not a directory that can be resolved.
    pub(crate) fn open_implicit(
        &mut self,
        root: &Path,
        config: SessionConfig,
    ) -> std::io::Result<()> {
        let id = self.open(root, config)?;
        self.implicit = Some(id);
        Ok(())
    }

    /// Dispatches every message until the input ends, then lets every
    /// session finish what was queued: calls waiting for the client (a
    /// parked call, which only a cancellation ends) are told the input is
    /// closed, and every request read is answered. Each session's
    /// background shells are ended as its worker finishes.
    ///
    /// SIGTERM, SIGINT or SIGHUP end it the same way, but every call in
    /// flight is cancelled first (a running command is ended with its
    /// family, a queued call never starts); the signal's number is
    /// returned.
    pub(crate) async fn serve(mut self, mut inbound: mpsc::Receiver<Inbound>) -> Option<i32> {
        let mut signals = Signals::new();
        let signalled = loop {
            tokio::select! {
                message = inbound.recv() => match message {
                    Some(message) => self.dispatch(message),
                    None => break None,
                },
                signal = signals.recv() => break Some(signal),
            }
        };
        if let Some(signal) = signalled {
            tracing::info!("signal {signal}: cancelling every call and ending the sessions");
            self.in_flight.cancel_all();
        }
        self.input_closed.set();
        self.in_flight.close_input();
        // Dropping the queues ends each worker once its queue is worked.
        self.sessions.clear();
        while self.workers.join_next().await.is_some() {}
        signalled
    }

    fn dispatch(&mut self, inbound: Inbound) {
        match inbound {
            Inbound::Message(Message::Request(request), permit) => self.request(request, permit),
            Inbound::Message(Message::Notification(notification), _) => {
                if notification.method == method::CANCELLED
                    && let Ok(params) = notification.params::<method::Cancelled>()
                {
                    self.in_flight.cancel(&params.request_id);
                }
                // Other notifications (`notifications/initialized`) need
                // nothing; a malformed cancellation is ignored, as MCP lets
                // a receiver ignore one it cannot act on.
            }
            Inbound::Message(Message::Response(_), _) => {}
            Inbound::Unreadable(id, error) => self.outbound.error(id, error),
        }
    }

    fn request(&mut self, mut request: Request, permit: Option<OwnedSemaphorePermit>) {
        let id = request.id.clone();
        let queued = match request.method.as_str() {
            method::INITIALIZE => self.initialize(&request).map(|()| None),
            method::SESSION_OPEN => self.session_open(&request).map(|()| None),
            method::TOOLS_CALL => self.tools_call(&mut request).map(Some),
            method::BATCH => self.batch(&mut request).map(Some),
            method::CONFIRM => self.confirm(&request).map(Some),
            method::TOOLS_LIST => self.tools_list(&request).map(Some),
            method::FAULT => self.fault(&request).map(Some),
            method::SESSION_CLOSE => self.session_close(&request).map(Some),
            other => Err(ResponseError::method_not_found(other)),
        };
        match queued {
            Ok(Some((queue, job))) => {
                if let Err(lost) = queue.send(Queued { id, job, permit }) {
                    // The worker is gone only if it panicked.
                    let error = ResponseError::internal("the session's worker has stopped");
                    self.outbound.error(Some(lost.0.id), error);
                }
            }
            // Answered already.
            Ok(None) => {}
            Err(error) => {
                // A call refused here was registered by nobody; one the
                // dispatcher registered is forgotten with its answer.
                self.in_flight.finished(&id);
                self.outbound.error(Some(id), error);
            }
        }
    }

    fn open(&mut self, root: &Path, config: SessionConfig) -> std::io::Result<String> {
        let id = format!("s{}", self.opened + 1);
        let session = tools::open_session(root, config, &id)?;
        self.opened += 1;
        let (queue, jobs) = mpsc::unbounded_channel();
        let worker = Worker::new(
            SessionId(id.clone()),
            Arc::new(session),
            self.outbound.clone(),
            self.in_flight.clone(),
        );
        self.workers.spawn(worker.run(jobs));
        self.sessions.insert(id.clone(), queue);
        Ok(id)
    }

    /// Answers at once.
    fn initialize(&self, request: &Request) -> Result<(), ResponseError> {
        let params = request.params::<method::Initialize>()?;
        // An MCP client gets the MCP version it asked for (or the newest
        // this server supports); another toolpass major is refused.
        let negotiated = toolpass_protocol::negotiate(&params.protocol_version, true)?;
        let result = InitializeResult {
            protocol_version: negotiated.protocol_version().to_owned(),
            server_info: Implementation {
                name: SERVER_NAME.to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                website_url: None,
                // The run's header prints it: the configuration results
                // depend on, as an adapter states its peer's.
                description: Some(DESCRIPTION.to_owned()),
            },
            capabilities: ServerCapabilities {
                tools: Some(ToolsCapability::default()),
                logging: None,
                toolpass: Some(ToolpassCapability::new(features())),
            },
            instructions: None,
        };
        self.outbound
            .result::<method::Initialize>(&request.id, &result);
        Ok(())
    }

    /// Answers at once.
    fn session_open(&mut self, request: &Request) -> Result<(), ResponseError> {
        let params = request.params::<method::SessionOpen>()?;
        let root = Path::new(&params.root);
        if !root.is_absolute() || !root.is_dir() {
            return Err(ResponseError::invalid_params(
                method::SESSION_OPEN,
                format!(
                    "root {} is not an absolute path to a directory",
                    params.root
                ),
            ));
        }
        let id = self
            .open(root, convert::session_config(&params.config))
            .map_err(|e| {
                ResponseError::invalid_params(
                    method::SESSION_OPEN,
                    format!("root {}: {e}", params.root),
                )
            })?;
        let result = SessionOpenResult {
            session_id: SessionId(id),
        };
        self.outbound
            .result::<method::SessionOpen>(&request.id, &result);
        Ok(())
    }

    fn tools_call(&mut self, request: &mut Request) -> Result<Queue, ResponseError> {
        let params = request.take_params::<method::ToolsCall>()?;
        let context = params.context().cloned();
        let token = params.progress_token().cloned();
        let (session, queue) = self.named_queue(context.as_ref().map(|c| &c.session_id))?;
        // A plain MCP client sends no call id; its request id serves.
        let call_id = context.map_or_else(|| format!("request-{}", request.id), |c| c.call_id);
        let cancellation = Cancellation::new(Arc::clone(&self.input_closed));
        self.in_flight
            .register(request.id.clone(), &session, cancellation.clone());
        let call = Call {
            name: params.name,
            // Moved, not cloned: the arguments may carry a whole file.
            arguments: params.arguments,
            call_id,
            token,
            cancellation,
        };
        Ok((queue, Job::Call(call)))
    }

    fn batch(&mut self, request: &mut Request) -> Result<Queue, ResponseError> {
        let params = request.take_params::<method::Batch>()?;
        let (session, queue) = self.named_queue(Some(&params.session_id))?;
        if params.calls.is_empty() {
            return Err(ResponseError::invalid_params(
                method::BATCH,
                "calls: a batch needs at least one call",
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (i, call) in params.calls.iter().enumerate() {
            if !seen.insert(call.call_id.as_str()) {
                return Err(ResponseError::invalid_params(
                    method::BATCH,
                    format!(
                        "calls[{i}]: call id {} is used twice in the batch: call ids are unique \
                         in a session",
                        call.call_id
                    ),
                ));
            }
        }
        // One cancellation for the whole batch: cancelling the request
        // cancels every call of it that has not finished.
        let cancellation = Cancellation::new(Arc::clone(&self.input_closed));
        self.in_flight
            .register(request.id.clone(), &session, cancellation.clone());
        let calls = params
            .calls
            .into_iter()
            .map(|call| Call {
                name: call.name,
                arguments: call.arguments,
                call_id: call.call_id,
                token: None,
                cancellation: cancellation.clone(),
            })
            .collect();
        Ok((queue, Job::Batch(calls)))
    }

    fn confirm(&mut self, request: &Request) -> Result<Queue, ResponseError> {
        let params = request.params::<method::Confirm>()?;
        let (session, queue) = self.named_queue(Some(&params.session_id))?;
        let cancellation = Cancellation::new(Arc::clone(&self.input_closed));
        self.in_flight
            .register(request.id.clone(), &session, cancellation.clone());
        Ok((queue, Job::Confirm(params, cancellation)))
    }

    fn tools_list(&mut self, request: &Request) -> Result<Queue, ResponseError> {
        let params = request.params::<method::ToolsList>()?;
        Ok((self.queue(params.session_id.as_ref())?, Job::List))
    }

    fn fault(&mut self, request: &Request) -> Result<Queue, ResponseError> {
        let params = request.params::<method::Fault>()?;
        let point = FaultPoint::parse(params.point.as_str())
            .ok_or_else(|| ResponseError::unsupported_fault_point(params.point.as_str()))?;
        let job = Job::Fault {
            point,
            skip: params.skip,
            times: params.times,
        };
        Ok((self.queue(Some(&params.session_id))?, job))
    }

    fn session_close(&mut self, request: &Request) -> Result<Queue, ResponseError> {
        let params = request.params::<method::SessionClose>()?;
        // Gone for every later request at once; its queue is worked to the
        // end, the close last, and every call of it in flight is cancelled
        // (a running command ends with its family, a queued call never
        // starts), so the close waits for no command.
        let queue = self
            .sessions
            .remove(params.session_id.as_str())
            .ok_or_else(|| ResponseError::unknown_session(params.session_id.as_str()))?;
        self.in_flight.cancel_session(params.session_id.as_str());
        Ok((queue, Job::Close))
    }

    /// The queue of the session a request names, or of the implicit one
    /// when it names none.
    fn queue(&self, named: Option<&SessionId>) -> Result<SessionQueue, ResponseError> {
        self.named_queue(named).map(|(_, queue)| queue)
    }

    /// The session a request names (or the implicit one), by id, with its
    /// queue.
    fn named_queue(
        &self,
        named: Option<&SessionId>,
    ) -> Result<(String, SessionQueue), ResponseError> {
        let id = match named {
            Some(id) => id.as_str().to_owned(),
            None => self.implicit.clone().ok_or_else(|| {
                ResponseError::invalid_params(
                    "tools",
                    "no sessionId: open a session with toolpass/session.open, or start the server with --root",
                )
            })?,
        };
        let queue = self
            .sessions
            .get(&id)
            .cloned()
            .ok_or_else(|| ResponseError::unknown_session(&id))?;
        Ok((id, queue))
    }
}

/// A session's queue, worked by its [`Worker`].
type SessionQueue = mpsc::UnboundedSender<Queued>;

/// Where a session request goes: the session's queue, and the job.
type Queue = (SessionQueue, Job);

/// What the reference offers beyond `tools/list` and `tools/call`.
fn features() -> Vec<Feature> {
    // The scheduler spills large outputs to files (persistedOutputPath);
    // calls ask per approval mode, can be cancelled and stream updates;
    // background shells report their end as notices.
    let mut features = vec![
        Feature::Sessions,
        Feature::PriorRead,
        Feature::SpillFiles,
        Feature::Batch,
        Feature::Confirm,
        Feature::Cancel,
        Feature::Updates,
        Feature::Notices,
        Feature::BackgroundShell,
        // Both models: a session picks one with `deferredTools`.
        Feature::DeferredTools,
        Feature::DeferredReveal,
        Feature::DeferredProxy,
        // A session's `mcpServers` are connected and their tools served.
        Feature::Mcp,
        Feature::CollabTools,
        Feature::ClassifierInput,
    ];
    // Checked once: whether a foreground command will find a pty here.
    static PTY: OnceLock<bool> = OnceLock::new();
    if *PTY.get_or_init(|| toolpass_shell::pty_available().is_ok()) {
        features.push(Feature::ShellPty);
    }
    features.extend(
        FaultPoint::ALL
            .iter()
            .map(|p| Feature::parse(&format!("fault:{}", p.as_str()))),
    );
    features
}
