//! The MCP mode's `rmcp` server handler: `initialize`, `ping` and
//! cancellation are the SDK's; `tools/list` and `tools/call` are put in
//! their place in the session's queue ([`super::ordered`]) and answered
//! when the worker has carried them out. A `notifications/cancelled` for a
//! call reaches the handler as its request's cancellation token, which is
//! passed on to the tool layer's `Cancellation` of the call, queued or
//! running.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use tokio::sync::oneshot;
use toolpass_protocol::{RequestId, SessionId};
use toolpass_tools::context::{Cancellation, InvocationContext, Latch};

use super::job::{Call, Job};
use super::ordered::Place;
use super::sdk;
use super::sinks::{Client, Notices, Updates};
use crate::inflight::InFlight;
use crate::server::{DESCRIPTION, SERVER_NAME};

/// The handler: the session's name and what reaches its calls.
pub(crate) struct Handler {
    session: SessionId,
    input_closed: Arc<Latch>,
    in_flight: InFlight,
    runtime: tokio::runtime::Handle,
}

impl Handler {
    pub(crate) fn new(
        session: SessionId,
        input_closed: Arc<Latch>,
        in_flight: InFlight,
        runtime: tokio::runtime::Handle,
    ) -> Self {
        Handler {
            session,
            input_closed,
            in_flight,
            runtime,
        }
    }
}

/// The answer to a request whose job the worker dropped: it stopped (the
/// server is stopping) or a tool panicked.
fn stopped(_: oneshot::error::RecvError) -> McpError {
    McpError::internal_error("the session's worker did not answer", None)
}

/// The toolpass form of the SDK's request id, for the in-flight table.
fn request_id(id: &rmcp::model::RequestId) -> RequestId {
    match id {
        rmcp::model::NumberOrString::Number(n) => RequestId::Number(*n),
        rmcp::model::NumberOrString::String(s) => RequestId::String(s.to_string()),
    }
}

/// Forgets a request in the in-flight table when its handler returns,
/// however it returns.
struct Registered<'a> {
    in_flight: &'a InFlight,
    id: RequestId,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.in_flight.finished(&self.id);
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                // A reveal (`tool_search` in the reveal model) changes the
                // list; the client is told.
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(
            Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")).with_description(DESCRIPTION),
        )
        // What a client asking for another version is answered with.
        .with_protocol_version(sdk::latest_version())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(sdk::supported_versions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let (reply, answer) = oneshot::channel();
        Place::of(&context)?
            .send(Job::List(reply))
            .map_err(|_| McpError::internal_error("the session's worker has stopped", None))?;
        Ok(ListToolsResult::with_all_items(
            answer.await.map_err(stopped)?,
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let place = Place::of(&context)?;
        let cancellation = Cancellation::new(Arc::clone(&self.input_closed));
        let registered = Registered {
            in_flight: &self.in_flight,
            id: request_id(&context.id),
        };
        // MCP mode has one session and no session.close: no name is needed.
        self.in_flight
            .register(registered.id.clone(), "", cancellation.clone());
        let client = Client {
            peer: context.peer.clone(),
            runtime: self.runtime.clone(),
            input_closed: Arc::clone(&self.input_closed),
        };
        // A plain MCP client sends no call id; its request id serves, as
        // in the toolpass mode.
        let call_id = format!("request-{}", context.id);
        let invocation = InvocationContext::new(
            cancellation.clone(),
            Arc::new(Updates::new(
                client.clone(),
                context.meta.get_progress_token(),
            )),
            Arc::new(Notices::new(client, self.session.clone(), call_id)),
        );
        let (reply, answer) = oneshot::channel();
        let call = Call {
            name: request.name.into_owned(),
            arguments: request.arguments.unwrap_or_default(),
            context: invocation,
            peer: context.peer.clone(),
            reply,
        };
        place
            .send(Job::Call(Box::new(call)))
            .map_err(|_| McpError::internal_error("the session's worker has stopped", None))?;
        let mut answer = std::pin::pin!(answer);
        let result = tokio::select! {
            biased;
            result = &mut answer => result,
            // The client's `notifications/cancelled` (or the SDK ending the
            // service): the call is cancelled where it is, queued or
            // running, and its answer awaited so the queue moves on only
            // once it has stopped. The SDK does not send a cancelled
            // request's answer, as MCP says.
            () = context.ct.cancelled() => {
                cancellation.request();
                answer.await
            }
        };
        drop(registered);
        Ok(result.map_err(stopped)?.into())
    }
}
