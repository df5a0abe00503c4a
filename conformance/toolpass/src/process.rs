//! One implementation process and the tasks that watch it.
//!
//! Three tasks serve each process: a writer that owns its stdin, a drain
//! that keeps only the tail of its stderr, and a monitor that owns the child
//! and its stdout. The monitor routes replies to the requests waiting for
//! them, passes notifications on, and decides how the process ended. Every
//! failure that leaves the protocol in an unknown state (a crash, a timeout,
//! a bad line) kills the whole process group, so nothing the implementation
//! started outlives it, and fails every request in flight. Once the process
//! is reaped, what it started outside its group is ended too (see
//! [`reaper`](crate::reaper)).

use std::collections::HashMap;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use toolpass_protocol::method::Method;
use toolpass_protocol::{
    ErrorKind, LineSplitter, Message, Notification, ReadError, Request, RequestId, Response,
    ResponseError, Split, decode_line, write_message,
};

use crate::error::{CallError, CallErrorKind, StartError, StartErrorKind};
use crate::implementation::Implementation;
use crate::reaper;
use crate::stderr::StderrTail;

/// How many notifications wait for the runner before the oldest are
/// dropped: a chatty implementation must not grow the runner without bound.
const NOTIFICATION_BACKLOG: usize = 1024;

/// A running (or ended) implementation process.
pub(crate) struct Process {
    shared: Arc<Shared>,
    finished: watch::Receiver<bool>,
    notifications: broadcast::Receiver<Notification>,
    next_id: i64,
    grace: Duration,
}

/// A request sent and not yet answered.
pub struct PendingReply {
    id: RequestId,
    method: &'static str,
    receiver: oneshot::Receiver<Reply>,
}

impl PendingReply {
    /// The request's JSON-RPC id, which a cancellation names.
    pub fn id(&self) -> &RequestId {
        &self.id
    }
}

impl std::fmt::Debug for PendingReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingReply")
            .field("id", &self.id)
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

/// A reply and the raw line it came on, for error reports.
struct Reply {
    response: Response,
    line: String,
}

/// What the tasks and the [`Process`] handle share.
struct Shared {
    pid: u32,
    state: Mutex<State>,
    stderr: Mutex<StderrTail>,
    /// `None` once stdin is closed; dropping the sender ends the writer,
    /// which closes the pipe.
    outgoing: Mutex<Option<mpsc::UnboundedSender<Vec<u8>>>>,
    notifications: broadcast::Sender<Notification>,
    /// Set once the child is reaped and its group killed a last time: from
    /// then on its pid may belong to someone else, so nobody signals it.
    reaped: AtomicBool,
    /// The [`reaper::MARK_ENV`] value it was started with.
    mark: String,
    /// Set by [`Process::kill_keeping_leftovers`]: what the implementation
    /// left outside its group is judged first (`expect_no_processes`), so
    /// the sweep waits for the process to be closed or dropped.
    sweep_deferred: AtomicBool,
}

struct State {
    pending: HashMap<RequestId, oneshot::Sender<Reply>>,
    /// Why the connection is dead; the first cause wins.
    death: Option<CallErrorKind>,
    exit: Option<ExitStatus>,
}

impl Process {
    /// Spawns the implementation in its own process group, with piped stdio.
    pub(crate) fn spawn(
        implementation: &Implementation,
        root: Option<&Path>,
        stderr_tail_bytes: usize,
        grace: Duration,
        max_line_bytes: usize,
    ) -> Result<Process, StartError> {
        let (program, args) = implementation.command_line(root)?;
        let mark = reaper::new_mark();
        let mut command = tokio::process::Command::new(&program);
        command
            .args(&args)
            .envs(implementation.environment().iter().cloned())
            // Inherited by everything it starts, so a descendant that leaves
            // the group is still traced to it.
            .env(reaper::MARK_ENV, &mark)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so that one signal reaches everything the
            // implementation starts (shells, adapters' peers, `cargo run`'s
            // child) and nothing is left behind.
            .process_group(0)
            // Only a fallback for a monitor dropped with its runtime; the
            // monitor kills the whole group itself.
            .kill_on_drop(true);
        if let Some(dir) = implementation.working_dir() {
            command.current_dir(dir);
        }
        let spawn_error = |what: &str| {
            StartError::new(
                StartErrorKind::Spawn,
                format!("spawn `{implementation}`: {what}"),
            )
        };
        let mut child = command.spawn().map_err(|e| {
            StartError::new(StartErrorKind::Spawn, format!("spawn `{implementation}`"))
                .with_source(e)
        })?;
        let pid = child
            .id()
            .ok_or_else(|| spawn_error("it ended before its pid was read"))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(spawn_error("its stdio pipes are missing"));
        };

        let (outgoing, lines) = mpsc::unbounded_channel();
        let (notifications, receiver) = broadcast::channel(NOTIFICATION_BACKLOG);
        let shared = Arc::new(Shared {
            pid,
            state: Mutex::new(State {
                pending: HashMap::new(),
                death: None,
                exit: None,
            }),
            stderr: Mutex::new(StderrTail::new(stderr_tail_bytes)),
            outgoing: Mutex::new(Some(outgoing)),
            notifications,
            reaped: AtomicBool::new(false),
            mark,
            sweep_deferred: AtomicBool::new(false),
        });
        let (finished_tx, finished) = watch::channel(false);
        tokio::spawn(write_lines(stdin, lines));
        let drain = tokio::spawn(drain_stderr(stderr, Arc::clone(&shared)));
        tokio::spawn(monitor(
            child,
            stdout,
            LineSplitter::new(max_line_bytes),
            drain,
            Arc::clone(&shared),
            finished_tx,
            grace,
        ));
        Ok(Process {
            shared,
            finished,
            notifications: receiver,
            next_id: 0,
            grace,
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.shared.pid
    }

    /// Why the connection is dead, or `None` while it is usable.
    pub(crate) fn death(&self) -> Option<CallErrorKind> {
        lock(&self.shared.state).death.clone()
    }

    pub(crate) fn stderr_tail(&self) -> String {
        lock(&self.shared.stderr).snapshot()
    }

    /// Sends a request for method `M` and decodes its result.
    pub(crate) async fn request<M: Method>(
        &mut self,
        params: &M::Params,
        timeout: Duration,
    ) -> Result<M::Result, CallError> {
        let reply = self.exchange::<M>(params, timeout).await?;
        match reply.response.decode::<M>() {
            Ok(result) => Ok(result),
            Err(error) => Err(self.reject::<M>(error, reply.line).await),
        }
    }

    /// Sends a request for method `M` and returns its result undecoded, for
    /// results that the caller reads leniently (a plain MCP server's
    /// `tools/call` result has no `_meta.toolpass`).
    pub(crate) async fn request_value<M: Method>(
        &mut self,
        params: &M::Params,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        let reply = self.exchange::<M>(params, timeout).await?;
        match reply.response.result {
            Ok(value) => Ok(value),
            Err(error) => Err(CallError::new(
                CallErrorKind::ErrorResponse(error),
                M::NAME,
                self.stderr_tail(),
            )),
        }
    }

    /// Declares the connection dead for a result the caller could not use:
    /// the protocol is broken, so the process goes.
    pub(crate) async fn fail_with(&mut self, kind: CallErrorKind, method: &str) -> CallError {
        self.shared.fail(kind);
        self.dead(method).await
    }

    /// Sends a notification; lost silently if stdin is closed, as the
    /// process is then ending anyway.
    pub(crate) fn notify(&self, notification: Notification) {
        self.shared.send(&Message::Notification(notification));
    }

    /// The next notification, waiting at most `timeout`.
    pub(crate) async fn next_notification(&mut self, timeout: Duration) -> Option<Notification> {
        let deadline = Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, self.notifications.recv()).await {
                Ok(Ok(notification)) => return Some(notification),
                // Older notifications were dropped; the newer ones are next.
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                Ok(Err(broadcast::error::RecvError::Closed)) | Err(_) => return None,
            }
        }
    }

    /// Closes stdin and waits for the process to exit on its own; kills its
    /// group when it has not within the grace period.
    pub(crate) async fn close(&mut self) -> Option<ExitStatus> {
        lock(&self.shared.outgoing).take();
        if !self.wait_finished().await {
            self.shared.kill_group();
            self.wait_finished().await;
        }
        self.deferred_sweep().await;
        lock(&self.shared.state).exit
    }

    /// Kills the process group and waits until it is reaped.
    pub(crate) async fn kill(&mut self) {
        self.shared.kill_group();
        self.wait_finished().await;
        self.deferred_sweep().await;
    }

    /// Kills the process group, as a crash would, and waits until it is
    /// reaped; what it left outside the group is left alone until the
    /// process is closed, killed or dropped, so that a scenario can judge
    /// whether the implementation's own containment ended it.
    pub(crate) async fn kill_keeping_leftovers(&mut self) {
        self.shared.sweep_deferred.store(true, Ordering::SeqCst);
        self.shared.kill_group();
        self.wait_finished().await;
    }

    /// The sweep [`Process::kill_keeping_leftovers`] put off, if it did.
    async fn deferred_sweep(&self) {
        if self.shared.sweep_deferred.swap(false, Ordering::SeqCst) {
            let shared = Arc::clone(&self.shared);
            let _ = tokio::task::spawn_blocking(move || shared.end_descendants()).await;
        }
    }

    async fn exchange<M: Method>(
        &mut self,
        params: &M::Params,
        timeout: Duration,
    ) -> Result<Reply, CallError> {
        let pending = self.begin::<M>(params).await?;
        self.wait(pending, timeout).await
    }

    /// Sends a request for method `M` without waiting for its answer, which
    /// [`Process::finish_value`] waits for: other requests may go out
    /// meanwhile.
    pub(crate) async fn begin<M: Method>(
        &mut self,
        params: &M::Params,
    ) -> Result<PendingReply, CallError> {
        self.next_id += 1;
        let request = Request::new::<M>(self.next_id, params);
        let id = request.id.clone();
        match self.shared.start_request(request) {
            Ok(receiver) => Ok(PendingReply {
                id,
                method: M::NAME,
                receiver,
            }),
            Err(()) => Err(self.dead(M::NAME).await),
        }
    }

    /// Waits at most `timeout` for the answer to a request [`Process::begin`]
    /// sent, and returns its result undecoded.
    pub(crate) async fn finish_value(
        &mut self,
        pending: PendingReply,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        let method = pending.method;
        let reply = self.wait(pending, timeout).await?;
        match reply.response.result {
            Ok(value) => Ok(value),
            Err(error) => Err(CallError::new(
                CallErrorKind::ErrorResponse(error),
                method,
                self.stderr_tail(),
            )),
        }
    }

    async fn wait(&mut self, pending: PendingReply, timeout: Duration) -> Result<Reply, CallError> {
        let PendingReply {
            method, receiver, ..
        } = pending;
        match tokio::time::timeout(timeout, receiver).await {
            Ok(Ok(reply)) => Ok(reply),
            // The sender was dropped: the connection died while waiting.
            Ok(Err(_)) => Err(self.dead(method).await),
            Err(_) => {
                self.shared.fail(CallErrorKind::Timeout { after: timeout });
                Err(self.dead(method).await)
            }
        }
    }

    async fn reject<M: Method>(
        &mut self,
        error: toolpass_protocol::Error,
        line: String,
    ) -> CallError {
        if error.kind() == ErrorKind::ErrorResponse
            && let Some(response) = error.response()
        {
            return CallError::new(
                CallErrorKind::ErrorResponse(response.clone()),
                M::NAME,
                self.stderr_tail(),
            );
        }
        let what = match std::error::Error::source(&error) {
            Some(cause) => format!("{error}: {cause}"),
            None => error.to_string(),
        };
        let kind = CallErrorKind::ProtocolError {
            what,
            line: Some(line),
        };
        self.fail_with(kind, M::NAME).await
    }

    /// The error for a dead connection, once the process is reaped and its
    /// stderr read to the end (bounded by the grace period), so that the
    /// tail has its last words and no process is left.
    async fn dead(&mut self, method: &str) -> CallError {
        self.wait_finished().await;
        let kind = self
            .death()
            .unwrap_or(CallErrorKind::Crash { status: None });
        CallError::new(kind, method, self.stderr_tail())
    }

    /// Waits for the monitor to finish, at most the grace period; whether it
    /// did.
    async fn wait_finished(&mut self) -> bool {
        let finished = self.finished.wait_for(|done| *done);
        matches!(tokio::time::timeout(self.grace, finished).await, Ok(Ok(_)))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // The monitor task reaps the child; this only makes sure it dies
        // even when nobody awaits anything any more.
        self.shared.kill_group();
        if self.shared.sweep_deferred.swap(false, Ordering::SeqCst) {
            let shared = Arc::clone(&self.shared);
            std::thread::spawn(move || shared.end_descendants());
        }
    }
}

impl Shared {
    fn start_request(&self, request: Request) -> Result<oneshot::Receiver<Reply>, ()> {
        let (sender, receiver) = oneshot::channel();
        {
            let mut state = lock(&self.state);
            if state.death.is_some() {
                return Err(());
            }
            state.pending.insert(request.id.clone(), sender);
        }
        self.send(&Message::Request(request));
        Ok(receiver)
    }

    fn send(&self, message: &Message) {
        let mut line = Vec::new();
        // Writing to a Vec cannot fail, and toolpass wire types always
        // serialize.
        if write_message(&mut line, message).is_ok()
            && let Some(outgoing) = &*lock(&self.outgoing)
        {
            // A closed writer means the process is going away; the monitor
            // reports that.
            let _ = outgoing.send(line);
        }
    }

    /// Declares the connection dead (the first cause wins), fails every
    /// request in flight and kills the process group.
    fn fail(&self, kind: CallErrorKind) {
        {
            let mut state = lock(&self.state);
            state.death.get_or_insert(kind);
            // Dropping the senders wakes every waiting request.
            state.pending.clear();
        }
        self.kill_group();
    }

    /// Ends what the implementation left outside its group (see
    /// [`reaper::end_descendants`]).
    fn end_descendants(&self) {
        reaper::end_descendants(&self.mark, self.pid);
    }

    fn kill_group(&self) {
        if self.reaped.load(Ordering::SeqCst) {
            return;
        }
        if let Some(pid) = i32::try_from(self.pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            // ESRCH (the group is already gone) is the outcome we want.
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }

    /// Handles one stdout line (without its line end).
    fn route(&self, bytes: &[u8]) {
        let message = match decode_line(bytes, true) {
            Ok(Some(message)) => message,
            // A blank line.
            Ok(None) => return,
            Err(error) => {
                return self.fail(CallErrorKind::ProtocolError {
                    what: format!("stdout {error}"),
                    line: error.line().map(str::to_owned),
                });
            }
        };
        match message {
            Message::Response(response) => self.deliver(response, bytes),
            Message::Notification(notification) => {
                // No receiver only means nobody listens any more.
                let _ = self.notifications.send(notification);
            }
            Message::Request(request) => self.refuse(request),
        }
    }

    fn deliver(&self, response: Response, bytes: &[u8]) {
        let line = String::from_utf8_lossy(bytes).trim_end().to_owned();
        let Some(id) = response.id.clone() else {
            let what = match &response.result {
                Err(error) => format!(
                    "a reply with a null id (the implementation could not read a request): {error}"
                ),
                Ok(_) => "a result with a null id".to_owned(),
            };
            return self.fail(CallErrorKind::ProtocolError {
                what,
                line: Some(line),
            });
        };
        let sender = lock(&self.state).pending.remove(&id);
        match sender {
            Some(sender) => {
                // The request may have timed out meanwhile; then the
                // connection is dead anyway.
                let _ = sender.send(Reply { response, line });
            }
            None => self.fail(CallErrorKind::ProtocolError {
                what: format!("a reply with id {id}, which names no request in flight"),
                line: Some(line),
            }),
        }
    }

    /// Answers a request from the implementation. The runner offers no
    /// methods, but MCP lets either side `ping`, and an unanswered request
    /// could stall a peer that waits for it.
    fn refuse(&self, request: Request) {
        let result = if request.method == "ping" {
            Ok(Value::Object(Default::default()))
        } else {
            Err(ResponseError::method_not_found(&request.method))
        };
        let response = Response {
            id: Some(request.id),
            result,
        };
        self.send(&Message::Response(response));
    }
}

async fn write_lines(mut stdin: ChildStdin, mut lines: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(line) = lines.recv().await {
        // A write fails when the process is gone (EPIPE); the monitor reports
        // how it ended.
        if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
            return;
        }
    }
    // Dropping stdin closes the pipe: end of input tells the implementation
    // to exit.
}

async fn drain_stderr(mut stderr: ChildStderr, shared: Arc<Shared>) {
    // Keep reading whatever the tail keeps: a full pipe would block the
    // implementation in the middle of an answer.
    let mut chunk = vec![0; 64 << 10];
    while let Ok(read @ 1..) = stderr.read(&mut chunk).await {
        lock(&shared.stderr).push(&chunk[..read]);
    }
}

/// Owns the child and its stdout until both have ended, then declares the
/// connection dead (if nothing else did first) and signals `finished`.
async fn monitor(
    mut child: Child,
    stdout: ChildStdout,
    mut lines: LineSplitter,
    mut drain: JoinHandle<()>,
    shared: Arc<Shared>,
    finished: watch::Sender<bool>,
    grace: Duration,
) {
    let mut stdout = BufReader::with_capacity(64 << 10, stdout);
    let mut stdout_open = true;
    let mut exited = false;
    let mut status = None;
    // Once stdout closes or the child exits, the other has this long to
    // follow.
    let mut deadline: Option<Instant> = None;
    while stdout_open || !exited {
        tokio::select! {
            read = next_line(&mut stdout, &mut lines), if stdout_open => match read {
                Ok(LineRead::Line) => shared.route(lines.line()),
                Ok(LineRead::TooLong) => {
                    // Reported as soon as the limit is passed: an endless
                    // line never ends, and nothing after it can be trusted.
                    let error = ReadError::too_long(lines.limit(), lines.line());
                    shared.fail(CallErrorKind::ProtocolError {
                        what: format!("stdout {error}"),
                        line: error.line().map(str::to_owned),
                    });
                    stdout_open = false;
                }
                // A last line without its newline is cut off by the
                // process's end, which is what gets reported.
                Ok(LineRead::End) | Err(_) => {
                    stdout_open = false;
                    deadline.get_or_insert_with(|| Instant::now() + grace);
                }
            },
            result = child.wait(), if !exited => {
                exited = true;
                status = result.ok();
                // Whatever it left running in its group (a background shell,
                // a grandchild holding the pipes) goes with it.
                shared.kill_group();
                shared.reaped.store(true, Ordering::SeqCst);
                // And whatever left the group (setsid, a double fork), now
                // the runner's if it is a subreaper, unless a scenario is to
                // judge it first. Blocking: it waits for each death.
                if !shared.sweep_deferred.load(Ordering::SeqCst) {
                    let shared = Arc::clone(&shared);
                    let _ = tokio::task::spawn_blocking(move || shared.end_descendants()).await;
                }
                deadline.get_or_insert_with(|| Instant::now() + grace);
            },
            () = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                if exited {
                    // Something outside the group holds stdout open.
                    stdout_open = false;
                } else {
                    // It closed stdout but lives on: it cannot answer again.
                    shared.kill_group();
                    deadline = None;
                }
            },
        }
    }
    {
        let mut state = lock(&shared.state);
        state.death.get_or_insert(CallErrorKind::Crash { status });
        state.pending.clear();
        state.exit = status;
    }
    lock(&shared.outgoing).take();
    // The tail should hold the process's last words before anyone reads it.
    if tokio::time::timeout(grace, &mut drain).await.is_err() {
        drain.abort();
    }
    let _ = finished.send(true);
}

enum LineRead {
    /// The splitter holds a line.
    Line,
    /// The line passed the splitter's limit; it holds the line's start.
    TooLong,
    /// The end of stdout; the splitter holds what came after the last
    /// newline.
    End,
}

/// Reads up to and including the next newline into `lines`, which bounds
/// how much of a line is held (toolpass-protocol's splitter, the one the
/// server reads with too).
///
/// Cancel safe: bytes taken from the reader are already in the splitter,
/// so a cancelled call is resumed by the next one.
async fn next_line(
    reader: &mut BufReader<ChildStdout>,
    lines: &mut LineSplitter,
) -> std::io::Result<LineRead> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(LineRead::End);
        }
        let (taken, split) = lines.push(available);
        reader.consume(taken);
        match split {
            Some(Split::Line) => return Ok(LineRead::Line),
            Some(Split::TooLong) => return Ok(LineRead::TooLong),
            // Never after TooLong: the monitor stops reading then.
            Some(Split::Skipped) | None => {}
        }
    }
}

/// Locks a mutex, ignoring poisoning: every critical section here leaves
/// the data consistent, and the runner must go on after a panicking task.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
