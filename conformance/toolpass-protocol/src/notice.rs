//! Notifications. From the implementation: `toolpass/notice` (what the
//! model would be told out of band), MCP's `notifications/message` (logs)
//! and MCP's `notifications/progress` (updates while a call runs). From the
//! runner: MCP's `notifications/cancelled` (stop a call in flight).
//!
//! Updates and cancellation are MCP's own messages, so a plain MCP client
//! or server understands them unchanged: an update names the call by the
//! `progressToken` the caller put in the call's `_meta`, a cancellation by
//! the JSON-RPC id of the request to stop.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::request_id::RequestId;
use crate::session::SessionId;

/// `toolpass/notice` params: a message the model would get without having
/// asked, such as a background shell finishing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoticeParams {
    /// The session the notice belongs to.
    pub session_id: SessionId,
    /// What produced it, e.g. `background_shell`; free text for filtering.
    pub kind: String,
    /// The exact text the model would see.
    pub text: String,
    /// The call it is about, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
}

/// `notifications/message` params: MCP's `LoggingMessageNotification`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogMessageParams {
    /// How severe.
    pub level: LogLevel,
    /// Which part of the implementation logged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: a string or any JSON.
    pub data: Value,
}

/// MCP's log levels (syslog's), least severe first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    /// Debugging detail.
    Debug,
    /// Information.
    Info,
    /// Normal but significant.
    Notice,
    /// A warning.
    Warning,
    /// An error.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// `notifications/progress` params: MCP's `ProgressNotification`. toolpass
/// sends one per update of a call's live output: `progress` counts the
/// updates (1, 2, ...; MCP wants it to increase), `message` is the output
/// so far, as Qwen Code's live output shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    /// The `progressToken` of the call the update belongs to, from the
    /// call's `_meta`.
    pub progress_token: ProgressToken,
    /// How far along: increases with every update.
    pub progress: f64,
    /// The total, when known; toolpass updates send none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// The update's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// MCP's `ProgressToken`: a string or an integer, chosen by the caller.
/// The same shape as a request id.
pub type ProgressToken = RequestId;

/// `notifications/cancelled` params: MCP's `CancelledNotification`, sent
/// by the runner to stop a request in flight (a `tools/call` or a
/// `toolpass/confirm` that runs the call it approved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// The id of the request to cancel.
    pub request_id: RequestId,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
