//! `--mcp --root DIR`: the reference's tools as a plain MCP stdio server,
//! on the official Rust SDK's server side (`rmcp`). The handshake, version
//! negotiation, `ping`, cancellation, progress and the framing are the
//! SDK's; the session, its tools and the scheduler are the toolpass
//! mode's (one implicit session, `s1`, at the root).
//!
//! The pieces: [`ordered`] (the SDK's stdio transport, reserving each
//! request's place in the session's queue as it is read, and noting the end
//! of input), [`handler`] (the SDK's `ServerHandler`), [`job`] (what waits
//! in the queue), [`worker`] (the session's queue, calls on the blocking
//! pool, `list_changed` after a reveal), [`sinks`] (updates and notices
//! through the SDK's peer) and [`sdk`] (toolpass's wire types handed to the
//! SDK).

mod handler;
mod job;
mod ordered;
mod sdk;
mod sinks;
mod worker;

#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::ServiceExt as _;
use rmcp::service::{QuitReason, RunningService, ServerInitializeError};
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::sync::mpsc;
use toolpass_protocol::SessionId;
use toolpass_tools::context::Latch;
use toolpass_tools::session::{Session, SessionConfig};

use crate::Failure;
use crate::inflight::InFlight;
use crate::signals::Signals;
use crate::tools;
use handler::Handler;
use ordered::Ordered;
use worker::Worker;

/// The implicit session's id, as the toolpass mode names its first.
const SESSION: &str = "s1";

/// Serves MCP on stdin and stdout with one session at `root`, until the
/// input ends or a stopping signal comes (its number is returned).
pub(crate) fn serve(
    root: &Path,
    config: SessionConfig,
    max_request_bytes: usize,
) -> Result<Option<i32>, Failure> {
    // One thread for the SDK's serve loop and the handlers, which only
    // route; the tools run on the blocking pool. Time for the SDK's drain
    // at the end of input, IO for the pipes and the signals.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Start(format!("could not start the runtime: {e}")))?;
    let session = tools::open_session(root, config, SESSION)
        .map_err(|e| Failure::Start(format!("--root {}: {e}", root.display())))?;
    // No servers here (a plain MCP server takes no mcpServers), but the
    // session's read_mcp_resource and its deferred tools are set up as in
    // the toolpass mode.
    session.start_mcp();
    let served = runtime.block_on(run(Arc::new(session), max_request_bytes));
    // A read of stdin the SDK left pending would hold up a runtime that
    // waits for its blocking pool; everything else has ended by now.
    runtime.shutdown_background();
    served
}

async fn run(session: Arc<Session>, max_request_bytes: usize) -> Result<Option<i32>, Failure> {
    let (read, write) = rmcp::transport::stdio_pipes();
    let framing = AsyncRwTransport::new_server(read, write).with_max_line_length(max_request_bytes);
    let Assembled {
        handler,
        transport,
        worker,
        in_flight,
    } = assemble(Arc::clone(&session), framing);
    let mut signals = Signals::new();
    let started = tokio::select! {
        started = handler.serve(transport) => Ok(started),
        signal = signals.recv() => Err(signal),
    };
    let signalled = match started {
        Ok(Ok(running)) => until_the_end(running, &mut signals, &in_flight).await,
        // The input ended before `initialize`: nothing was asked.
        Ok(Err(ServerInitializeError::ConnectionClosed(_))) => None,
        Ok(Err(error)) => {
            return Err(Failure::Handshake(error.to_string()));
        }
        Err(signal) => Some(signal),
    };
    // The transport, which reserves places in the queue, went with the
    // SDK's serve loop: the worker ends once the places left are settled.
    if let Err(error) = worker.await {
        tracing::error!("the session's worker failed: {error}");
    }
    // Its background shells end with the session, their families too.
    let closing = tokio::task::spawn_blocking(move || session.shells().close());
    if let Err(error) = closing.await {
        tracing::error!("closing the session's shells: {error}");
    }
    Ok(signalled)
}

/// The server around `session`, ready to serve `framing` (the SDK's
/// transport).
struct Assembled<T> {
    handler: Handler,
    transport: Ordered<T>,
    /// The session's queue, worked until the transport is gone.
    worker: tokio::task::JoinHandle<()>,
    /// The calls running or queued, for a stopping signal.
    in_flight: InFlight,
}

/// Assembles the server around `session`; call within the runtime: the
/// session's worker is spawned on it.
fn assemble<T>(session: Arc<Session>, framing: T) -> Assembled<T> {
    let input_closed = Arc::new(Latch::default());
    let in_flight = InFlight::default();
    let (turns, queue) = mpsc::unbounded_channel();
    let worker = Worker::new(session, Arc::clone(&input_closed));
    let handler = Handler::new(
        SessionId(SESSION.to_owned()),
        Arc::clone(&input_closed),
        in_flight.clone(),
        tokio::runtime::Handle::current(),
    );
    Assembled {
        handler,
        transport: Ordered::new(framing, turns, input_closed, in_flight.clone()),
        worker: tokio::spawn(worker.run(queue)),
        in_flight,
    }
}

/// Serves until the SDK's serve loop ends (the end of input) or a stopping
/// signal comes, whose number is returned.
async fn until_the_end(
    running: RunningService<RoleServer, Handler>,
    signals: &mut Signals,
    in_flight: &InFlight,
) -> Option<i32> {
    let stop = running.cancellation_token();
    let mut waiting = std::pin::pin!(running.waiting());
    let signalled = tokio::select! {
        ended = &mut waiting => {
            log_end(ended);
            None
        }
        signal = signals.recv() => Some(signal),
    };
    if let Some(signal) = signalled {
        // As in the toolpass mode: every call in flight is cancelled (a
        // running command ends with its family, a queued call never
        // starts), then the SDK gives their answers a moment to go out.
        tracing::info!("signal {signal}: cancelling every call and ending the session");
        in_flight.cancel_all();
        stop.cancel();
        log_end(waiting.await);
    }
    signalled
}

/// Logs why the SDK's serve loop ended.
fn log_end(ended: Result<QuitReason, tokio::task::JoinError>) {
    match ended {
        Ok(reason) => tracing::debug!("the MCP service ended: {reason:?}"),
        Err(error) => tracing::error!("the MCP service failed: {error}"),
    }
}
