//! The MCP mode's transport: the SDK's stdio framing, plus what the SDK's
//! serve loop cannot tell its handlers. The loop runs each request's
//! handler as a task of its own, so two pipelined `tools/call`s of one
//! session would race for the session (an edit built on the one before it
//! could apply first); and a handler cannot tell the end of input from a
//! cancellation.
//!
//! So this transport, which alone sees the messages in the order they were
//! read, reserves each `tools/call` and `tools/list` a place in the
//! session's queue as it reads it ([`Place`], carried to the handler in the
//! request's extensions), and sets the server's end-of-input latch when the
//! input ends, before the serve loop learns of it.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ClientRequest, GetExtensions as _, JsonRpcMessage};
use rmcp::service::{RequestContext, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::{mpsc, oneshot};
use toolpass_tools::context::Latch;

use super::job::{Job, Turn};
use crate::inflight::InFlight;

/// A request's place in the session's queue, reserved when it was read.
/// Extensions must be `Clone`; the sender is taken once.
#[derive(Clone)]
pub(crate) struct Place(Arc<Mutex<Option<oneshot::Sender<Job>>>>);

impl Place {
    /// The place reserved for the request `context` belongs to.
    ///
    /// # Errors
    /// When the request was not given one, or its job was put there
    /// already: neither can happen to a `tools/call` or `tools/list` read
    /// through [`Ordered`].
    pub(crate) fn of(
        context: &RequestContext<RoleServer>,
    ) -> Result<oneshot::Sender<Job>, McpError> {
        context
            .extensions
            .get::<Place>()
            .and_then(|place| {
                place
                    .0
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take()
            })
            .ok_or_else(|| {
                McpError::internal_error(
                    format!("request {} has no place in the session's queue", context.id),
                    None,
                )
            })
    }
}

/// The SDK's transport `T`, reserving places in the queue `turns` and
/// setting `input_closed` at the end of input.
pub(crate) struct Ordered<T> {
    inner: T,
    turns: mpsc::UnboundedSender<Turn>,
    input_closed: Arc<Latch>,
    in_flight: InFlight,
}

impl<T> Ordered<T> {
    pub(crate) fn new(
        inner: T,
        turns: mpsc::UnboundedSender<Turn>,
        input_closed: Arc<Latch>,
        in_flight: InFlight,
    ) -> Self {
        Ordered {
            inner,
            turns,
            input_closed,
            in_flight,
        }
    }
}

/// Whether a request waits for its turn in the session's queue: a call,
/// and the list, which must show what the calls before it revealed.
fn queued(request: &ClientRequest) -> bool {
    matches!(
        request,
        ClientRequest::CallToolRequest(_) | ClientRequest::ListToolsRequest(_)
    )
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Ordered<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let mut message = self.inner.receive().await;
        match &mut message {
            Some(JsonRpcMessage::Request(request)) if queued(&request.request) => {
                let (place, turn) = oneshot::channel();
                // The worker is gone only once the server is stopping; the
                // handler then finds no place and says so.
                if self.turns.send(turn).is_ok() {
                    let place = Place(Arc::new(Mutex::new(Some(place))));
                    request.request.extensions_mut().insert(place);
                }
            }
            // The end of input is no cancellation: a call waiting for the
            // client is woken, a command runs on (the SDK then gives the
            // calls a few seconds to answer before it cancels them).
            None => {
                self.input_closed.set();
                self.in_flight.close_input();
            }
            Some(_) => {}
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
