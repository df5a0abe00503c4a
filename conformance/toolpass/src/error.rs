//! The supervisor's errors: [`CallError`] for a request that got no usable
//! answer, [`StartError`] for an implementation that could not be started
//! or refused at the handshake.
//!
//! Both carry the tail of the implementation's stderr, because that is
//! usually where a crashing or confused implementation says why.

use std::fmt;
use std::process::ExitStatus;
use std::time::Duration;

use toolpass_protocol::ResponseError;

/// A request that got no usable answer.
///
/// Every kind but [`CallErrorKind::ErrorResponse`] leaves the connection
/// dead: the process has been killed (or has exited) and reaped, and only
/// [`crate::Connection::restart`] brings it back.
#[derive(Debug, Clone)]
pub struct CallError {
    kind: CallErrorKind,
    method: String,
    stderr_tail: String,
}

/// What kind of [`CallError`] this is.
#[derive(Debug, Clone, PartialEq)]
pub enum CallErrorKind {
    /// No answer came within the timeout; the process group was killed.
    Timeout {
        /// The timeout that ran out.
        after: Duration,
    },
    /// The process exited (or closed its stdout) before answering.
    Crash {
        /// How it ended; `None` when it could not be reaped.
        status: Option<ExitStatus>,
    },
    /// The implementation broke the protocol: a stdout line that is not
    /// JSON-RPC, a reply whose id names no request in flight, or a result
    /// that does not have its method's shape. The process group was killed.
    ProtocolError {
        /// What is wrong, in a sentence fragment.
        what: String,
        /// The offending stdout line, when there is one.
        line: Option<String>,
    },
    /// The implementation answered with a JSON-RPC error. The connection
    /// stays usable.
    ErrorResponse(ResponseError),
}

impl CallError {
    pub(crate) fn new(kind: CallErrorKind, method: &str, stderr_tail: String) -> CallError {
        CallError {
            kind,
            method: method.to_owned(),
            stderr_tail,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &CallErrorKind {
        &self.kind
    }

    /// The method of the request that failed.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The last few KiB the implementation wrote on stderr, lossily decoded;
    /// empty when it wrote nothing.
    pub fn stderr_tail(&self) -> &str {
        &self.stderr_tail
    }

    /// The stdout line that broke the protocol by not being JSON at all
    /// (a log line, a banner), as opposed to JSON of the wrong shape.
    pub fn non_json_line(&self) -> Option<&str> {
        match &self.kind {
            CallErrorKind::ProtocolError {
                line: Some(line), ..
            } if serde_json::from_str::<serde::de::IgnoredAny>(line).is_err() => Some(line),
            _ => None,
        }
    }

    /// Whether the connection survived this error (only an error response
    /// leaves it usable).
    pub fn is_fatal(&self) -> bool {
        !matches!(self.kind, CallErrorKind::ErrorResponse(_))
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let method = &self.method;
        match &self.kind {
            CallErrorKind::Timeout { after } => {
                write!(f, "{method}: no answer within {after:?}")
            }
            CallErrorKind::Crash {
                status: Some(status),
            } => {
                write!(
                    f,
                    "{method}: the implementation exited before answering ({status})"
                )
            }
            CallErrorKind::Crash { status: None } => {
                write!(f, "{method}: the implementation ended before answering")
            }
            CallErrorKind::ProtocolError { what, .. } => write!(f, "{method}: {what}"),
            CallErrorKind::ErrorResponse(error) => write!(f, "{method}: {error}"),
        }
    }
}

impl std::error::Error for CallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            CallErrorKind::ErrorResponse(error) => Some(error),
            _ => None,
        }
    }
}

/// An implementation that could not be started, or that was refused.
#[derive(Debug)]
pub struct StartError {
    kind: StartErrorKind,
    message: String,
    stderr_tail: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// What kind of [`StartError`] this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartErrorKind {
    /// The command line is empty or its quotes do not balance.
    CommandLine,
    /// The command line has `{root}` but no sandbox root was given, or the
    /// root is not UTF-8.
    Root,
    /// The reference server could not be found or built.
    Reference,
    /// The process could not be spawned.
    Spawn,
    /// `initialize` failed; the source is the [`CallError`].
    Handshake,
    /// The implementation speaks another major version of toolpass.
    UnsupportedVersion,
}

impl StartError {
    pub(crate) fn new(kind: StartErrorKind, message: impl Into<String>) -> StartError {
        StartError {
            kind,
            message: message.into(),
            stderr_tail: String::new(),
            source: None,
        }
    }

    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> StartError {
        self.source = Some(Box::new(source));
        self
    }

    pub(crate) fn with_stderr_tail(mut self, tail: String) -> StartError {
        self.stderr_tail = tail;
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> StartErrorKind {
        self.kind
    }

    /// The last few KiB the implementation wrote on stderr, when it ran.
    pub fn stderr_tail(&self) -> &str {
        &self.stderr_tail
    }

    /// The failed `initialize` call, for [`StartErrorKind::Handshake`].
    pub fn call_error(&self) -> Option<&CallError> {
        self.source.as_deref()?.downcast_ref()
    }

    /// Everything a person needs to fix a failed start, over several
    /// lines: the error and its causes, the stderr tail (an adapter that
    /// was never set up says so there, and only there), and, when stdout
    /// carried something that is not JSON, the advice to log to stderr.
    pub fn details(&self) -> String {
        let mut out = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            out.push_str(": ");
            out.push_str(&cause.to_string());
            source = cause.source();
        }
        let tail = self.stderr_tail.trim_end();
        if !tail.is_empty() {
            out.push_str("\nstderr (tail):");
            for line in tail.lines() {
                out.push_str("\n  | ");
                out.push_str(line);
            }
        } else if self.kind == StartErrorKind::Handshake {
            // Said outright, so nobody goes looking for a log that is not there.
            out.push_str("\nstderr: (nothing)");
        }
        if let Some(line) = self.call_error().and_then(CallError::non_json_line) {
            out.push_str(&format!(
                "\nstdout carried `{}`, which is not JSON: stdout is for protocol messages \
                 only; write logs and diagnostics to stderr",
                line.chars().take(80).collect::<String>()
            ));
        }
        out
    }
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
