//! Notifications from the implementation: `toolpass/notice` (what the model
//! would be told out of band) and MCP's `notifications/message` (logs).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
