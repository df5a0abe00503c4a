//! The methods of toolpass/1: their names, and which params and result types
//! go with each, so that a request and its answer are typed together.

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::initialize::{InitializeParams, InitializeResult};
use crate::notice::{CancelledParams, LogMessageParams, NoticeParams, ProgressParams};
use crate::outcome::Outcome;
use crate::session::{EmptyResult, SessionCloseParams, SessionOpenParams, SessionOpenResult};
use crate::tools::{BatchParams, BatchResult, ConfirmParams, FaultParams, ToolsCallParams};
use crate::tools::{ToolsListParams, ToolsListResult};

/// `initialize`: the handshake.
pub const INITIALIZE: &str = "initialize";
/// `toolpass/session.open`: a session on a sandbox root with a config.
pub const SESSION_OPEN: &str = "toolpass/session.open";
/// `tools/list`: the declarations the model would be shown now.
pub const TOOLS_LIST: &str = "tools/list";
/// `tools/call`: one tool call, answered with an Outcome.
pub const TOOLS_CALL: &str = "tools/call";
/// `toolpass/batch`: several calls, answered after the batch budget.
pub const BATCH: &str = "toolpass/batch";
/// `toolpass/confirm`: the answer to an `awaiting_confirmation` Outcome.
pub const CONFIRM: &str = "toolpass/confirm";
/// `toolpass/fault`: make the next operations at a point fail.
pub const FAULT: &str = "toolpass/fault";
/// `toolpass/session.close`: end a session.
pub const SESSION_CLOSE: &str = "toolpass/session.close";
/// `toolpass/notice` (notification): what the model would be told out of
/// band.
pub const NOTICE: &str = "toolpass/notice";
/// `notifications/message` (notification): MCP's log message.
pub const LOG_MESSAGE: &str = "notifications/message";
/// `notifications/progress` (notification): an update while a call runs.
pub const PROGRESS: &str = "notifications/progress";
/// `notifications/cancelled` (notification, runner to implementation):
/// stop a request in flight.
pub const CANCELLED: &str = "notifications/cancelled";

/// A request method: its name, params and result types.
///
/// Implemented only by the marker types below; the wire types of toolpass/1
/// are this crate's alone.
pub trait Method {
    /// The method name on the wire.
    const NAME: &'static str;
    /// The `params` member.
    type Params: Serialize + DeserializeOwned + JsonSchema;
    /// The `result` member of a successful answer.
    type Result: Serialize + DeserializeOwned + JsonSchema;
}

/// A notification method: its name and params type.
pub trait NotificationMethod {
    /// The method name on the wire.
    const NAME: &'static str;
    /// The `params` member.
    type Params: Serialize + DeserializeOwned + JsonSchema;
}

macro_rules! methods {
    ($( $(#[$doc:meta])* $marker:ident = $name:ident: $params:ty => $result:ty; )+) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub enum $marker {}

            impl Method for $marker {
                const NAME: &'static str = $name;
                type Params = $params;
                type Result = $result;
            }
        )+
    };
}

methods! {
    /// [`INITIALIZE`]
    Initialize = INITIALIZE: InitializeParams => InitializeResult;
    /// [`SESSION_OPEN`]
    SessionOpen = SESSION_OPEN: SessionOpenParams => SessionOpenResult;
    /// [`TOOLS_LIST`]
    ToolsList = TOOLS_LIST: ToolsListParams => ToolsListResult;
    /// [`TOOLS_CALL`]
    ToolsCall = TOOLS_CALL: ToolsCallParams => Outcome;
    /// [`BATCH`]
    Batch = BATCH: BatchParams => BatchResult;
    /// [`CONFIRM`]
    Confirm = CONFIRM: ConfirmParams => Outcome;
    /// [`FAULT`]
    Fault = FAULT: FaultParams => EmptyResult;
    /// [`SESSION_CLOSE`]
    SessionClose = SESSION_CLOSE: SessionCloseParams => EmptyResult;
}

macro_rules! notifications {
    ($( $(#[$doc:meta])* $marker:ident = $name:ident: $params:ty; )+) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub enum $marker {}

            impl NotificationMethod for $marker {
                const NAME: &'static str = $name;
                type Params = $params;
            }
        )+
    };
}

notifications! {
    /// [`NOTICE`]
    Notice = NOTICE: NoticeParams;
    /// [`LOG_MESSAGE`]
    LogMessage = LOG_MESSAGE: LogMessageParams;
    /// [`PROGRESS`]
    Progress = PROGRESS: ProgressParams;
    /// [`CANCELLED`]
    Cancelled = CANCELLED: CancelledParams;
}
