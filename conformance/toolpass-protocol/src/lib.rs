//! toolpass/1 wire types: the JSON-RPC envelope and its newline-delimited
//! framing, the methods and their shapes, the Outcome, the canonical error
//! codes and features, and JSON Schemas generated from the types.
//!
//! This crate is the only stable API of toolpass: the reference server and
//! the runner both speak through it, and adapters in other languages follow
//! the committed schemas under `schemas/`. It is the only crate that defines
//! types that cross the wire.
//!
//! The shapes follow MCP where the two overlap, so a plain MCP stdio server
//! is a valid, capability-poor implementation:
//!
//! ```
//! use toolpass_protocol::{Message, Request, method, read_message};
//!
//! let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}
//! "#;
//! let Some(Message::Request(request)) = read_message(&mut &line[..]).unwrap() else {
//!     panic!("expected a request");
//! };
//! let params = request.params::<method::ToolsList>().unwrap();
//! assert_eq!(params.session_id, None);
//! ```
//!
//! Deserializing is tolerant where peers legitimately differ (unknown
//! members, features, tool kinds and fault points are kept or ignored) and
//! strict where tolerance would hide a broken test: session config keys and
//! error codes must be known, and a line that is not JSON-RPC is an error
//! carrying the line. No type here uses `serde(untagged)` or `flatten`:
//! messages are classified by their members, so errors say what is wrong.
//!
//! Where this crate departs from the design draft: `serverInfo` takes MCP's
//! `websiteUrl` (the draft's `homepage` is still read), and
//! `capabilities.toolpass.version` outranks `protocolVersion`, which an
//! implementation built on an MCP SDK may not control. A server negotiates
//! with [`negotiate`]: MCP's rule for MCP versions ([`MCP_VERSIONS`]),
//! `toolpass/1` for a toolpass client, and a refusal naming the supported
//! versions for another toolpass major; the runner refuses another major in
//! the answer ([`InitializeResult::dialect`]).

mod error;
mod error_code;
mod feature;
mod framing;
#[doc(hidden)]
pub mod fuzzing;
mod initialize;
mod jsonrpc;
mod line;
pub mod method;
mod nesting;
mod notice;
mod outcome;
mod request_id;
mod response_error;
mod schema;
mod session;
mod strings;
mod tools;
mod version;

pub use error::{Error, ErrorKind};
pub use error_code::ErrorCode;
pub use feature::{FaultPoint, Feature};
pub use framing::{
    ReadError, ReadErrorKind, decode_line, parse_line, read_message, read_message_limited,
    write_message, write_result,
};
pub use initialize::{
    Dialect, Implementation, InitializeParams, InitializeResult, ServerCapabilities,
    ToolpassCapability, ToolsCapability,
};
pub use jsonrpc::{JSONRPC_VERSION, Message, Notification, Request, Response};
pub use line::{DEFAULT_MAX_LINE_BYTES, LineSplitter, Split};
pub use notice::{
    CancelledParams, LogLevel, LogMessageParams, NoticeParams, ProgressParams, ProgressToken,
};
pub use outcome::{
    Confirmation, Content, DiffStat, Outcome, OutcomeMeta, OutcomeSummary, Question,
    QuestionOption, ResultDisplay, Status, Todo, TodoStatus, ToolError, ToolpassOutcome,
};
pub use request_id::RequestId;
pub use response_error::ResponseError;
pub use schema::{SchemaFile, drop_null, schemas};
pub use session::{
    ApprovalMode, DeferredToolsModel, EmptyResult, McpServerConfig, SessionCloseParams,
    SessionConfig, SessionId, SessionOpenParams, SessionOpenResult,
};
pub use tools::{
    BatchBudget, BatchCall, BatchParams, BatchResult, CallContext, CallMeta, ConfirmOutcome,
    ConfirmParams, FaultParams, ToolDescriptor, ToolDescriptorMeta, ToolKind, ToolMeta,
    ToolpassMeta, ToolsCallParams, ToolsListExtra, ToolsListMeta, ToolsListParams, ToolsListResult,
};
pub use version::{
    MCP_LATEST, MCP_VERSIONS, Negotiated, PROTOCOL_MAJOR, PROTOCOL_VERSION, ProtocolVersion,
    negotiate,
};
