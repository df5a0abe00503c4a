//! JSON-RPC's protocol-level errors and toolpass's codes among them. Its own
//! file because the envelope carries one and the crate's [`crate::Error`]
//! wraps one, and neither should need the other for it.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A protocol-level failure: unknown method, malformed params, unknown
/// session. A tool that fails is *not* one of these: it answers with an
/// error [`crate::Outcome`] inside a successful response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResponseError {
    /// One of the associated constants (`ResponseError::METHOD_NOT_FOUND`, ...)
    /// or a peer's own code.
    pub code: i64,
    /// A short sentence for people.
    pub message: String,
    /// Anything else the peer wants to attach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ResponseError {
    /// The line is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The line is JSON but not a JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not offered, including an unsupported
    /// `toolpass/fault` point and toolpass methods an implementation lacks
    /// (`toolpass/batch` before it has batches).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params do not have the method's shape (including unknown session
    /// config keys).
    pub const INVALID_PARAMS: i64 = -32602;
    /// The implementation failed for a reason of its own.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// toolpass: the `sessionId` names no open session. Chosen from the range
    /// JSON-RPC leaves to implementations, away from the codes MCP and its
    /// SDKs use (-32000, -32001, -32002, -32020..-32022, -32042).
    pub const UNKNOWN_SESSION: i64 = -32010;

    /// An error with a code and a message and no data.
    pub fn new(code: i64, message: impl Into<String>) -> ResponseError {
        ResponseError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> ResponseError {
        self.data = Some(data);
        self
    }

    /// -32700 for a line that is not JSON.
    pub fn parse_error(detail: impl fmt::Display) -> ResponseError {
        ResponseError::new(Self::PARSE_ERROR, format!("parse error: {detail}"))
    }

    /// -32600 for JSON that is not a JSON-RPC request.
    pub fn invalid_request(detail: impl fmt::Display) -> ResponseError {
        ResponseError::new(Self::INVALID_REQUEST, format!("invalid request: {detail}"))
    }

    /// -32601 for a method this implementation does not offer.
    pub fn method_not_found(method: &str) -> ResponseError {
        ResponseError::new(
            Self::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// -32601 for a `toolpass/fault` point this implementation cannot inject.
    pub fn unsupported_fault_point(point: &str) -> ResponseError {
        ResponseError::new(
            Self::METHOD_NOT_FOUND,
            format!("unsupported fault point: {point}"),
        )
    }

    /// -32602 for params that do not have the method's shape.
    pub fn invalid_params(method: &str, detail: impl fmt::Display) -> ResponseError {
        ResponseError::new(
            Self::INVALID_PARAMS,
            format!("invalid params for {method}: {detail}"),
        )
    }

    /// -32603 for a failure inside the implementation.
    pub fn internal(detail: impl fmt::Display) -> ResponseError {
        ResponseError::new(Self::INTERNAL_ERROR, format!("internal error: {detail}"))
    }

    /// toolpass's -32010 for a `sessionId` that names no open session.
    pub fn unknown_session(session_id: &str) -> ResponseError {
        ResponseError::new(
            Self::UNKNOWN_SESSION,
            format!("unknown session: {session_id}"),
        )
    }
}

impl fmt::Display for ResponseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (JSON-RPC error {})", self.message, self.code)
    }
}

impl std::error::Error for ResponseError {}
