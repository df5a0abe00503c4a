//! The error for reading a peer's answers: an error response, a result of the
//! wrong shape, an unsupported protocol version, a malformed Outcome.
//!
//! Framing failures have their own [`crate::ReadError`], because they carry
//! the raw line; failures the *server* reports back are
//! [`crate::ResponseError`] values, because they go on the wire.

use std::fmt;

use crate::response_error::ResponseError;

/// A peer's message that this side cannot accept.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    // Boxed: a ResponseError carries a JSON value, and Results of this
    // Error are returned on every read.
    response: Option<Box<ResponseError>>,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// What kind of [`Error`] this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The peer answered with a JSON-RPC error; [`Error::response`] has it.
    ErrorResponse,
    /// A result does not have its method's shape.
    InvalidResult,
    /// A notification's params do not have its method's shape.
    InvalidNotification,
    /// The peer speaks another major version of toolpass, or not toolpass.
    UnsupportedVersion,
    /// A `tools/call` result is not an MCP `CallToolResult`, or its
    /// `_meta.toolpass` is malformed.
    InvalidOutcome,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: String) -> Error {
        Error {
            kind,
            message,
            response: None,
            source: None,
        }
    }

    pub(crate) fn with_source(
        kind: ErrorKind,
        message: String,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error {
            kind,
            message,
            response: None,
            source: Some(Box::new(source)),
        }
    }

    pub(crate) fn error_response(method: &str, response: ResponseError) -> Error {
        Error {
            kind: ErrorKind::ErrorResponse,
            message: format!("{method} answered with an error"),
            response: Some(Box::new(response.clone())),
            source: Some(Box::new(response)),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The peer's JSON-RPC error, for [`ErrorKind::ErrorResponse`].
    pub fn response(&self) -> Option<&ResponseError> {
        self.response.as_deref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
