//! What waits in the MCP mode's session queue: the job a request's handler
//! puts in the place the transport reserved for it ([`super::ordered`]),
//! worked by [`super::worker`].

use rmcp::model::{CallToolResult, Tool};
use rmcp::{Peer, RoleServer};
use serde_json::{Map, Value};
use tokio::sync::oneshot;
use toolpass_tools::context::InvocationContext;

/// A request's turn in the session's queue, as the worker waits on it: the
/// job its handler puts there, or nothing when the SDK answered the request
/// itself (an invalid one) and the handler never ran.
pub(crate) type Turn = oneshot::Receiver<Job>;

/// What a queued request asks for, with where its answer goes.
pub(crate) enum Job {
    /// `tools/list`.
    List(oneshot::Sender<Vec<Tool>>),
    /// `tools/call`.
    Call(Box<Call>),
}

/// A `tools/call`, unpacked.
pub(crate) struct Call {
    pub(crate) name: String,
    pub(crate) arguments: Map<String, Value>,
    pub(crate) context: InvocationContext,
    /// Where `notifications/tools/list_changed` goes.
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) reply: oneshot::Sender<CallToolResult>,
}
