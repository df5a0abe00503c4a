//! Newline-delimited framing: one JSON-RPC message per line, as MCP's stdio
//! transport does.
//!
//! Reading is strict about what a line is and lenient about what separates
//! lines: blank lines are skipped and a trailing `\r` is dropped, but a line
//! that is not JSON-RPC is an error that carries the raw line, so the runner
//! can report "non-JSON stdout at step N" with the offending text.

use std::fmt;
use std::io::{self, BufRead, Write};

use crate::jsonrpc::{Message, ResponseError};

/// Reads the next message, or `None` at the end of the input.
///
/// Blank lines (only whitespace) are skipped; `\n` and `\r\n` both end a line.
/// A final line that the input ends in the middle of is
/// [`ReadErrorKind::CutOff`], even if it happens to be complete JSON: the
/// writer promised a newline after every message, so its absence means the
/// writer stopped mid-message.
pub fn read_message(reader: &mut dyn BufRead) -> Result<Option<Message>, ReadError> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = reader.read_until(b'\n', &mut buf).map_err(ReadError::io)?;
        if read == 0 {
            return Ok(None);
        }
        let terminated = buf.last() == Some(&b'\n');
        let line = match std::str::from_utf8(&buf) {
            Ok(line) => line,
            Err(_) => {
                let lossy = String::from_utf8_lossy(&buf);
                return Err(ReadError::at_line(
                    ReadErrorKind::NotUtf8,
                    strip_eol(&lossy),
                    "line is not UTF-8".into(),
                    None,
                ));
            }
        };
        let line = strip_eol(line);
        if line.trim().is_empty() {
            if terminated {
                continue;
            }
            return Ok(None);
        }
        if !terminated {
            return Err(ReadError::at_line(
                ReadErrorKind::CutOff,
                line,
                "input ended in the middle of a line".into(),
                None,
            ));
        }
        return parse_line(line).map(Some);
    }
}

/// Parses one line (without its line end) as a message.
pub fn parse_line(line: &str) -> Result<Message, ReadError> {
    let value = serde_json::from_str(line).map_err(|e| {
        ReadError::at_line(
            ReadErrorKind::NotJson,
            line,
            "line is not JSON".into(),
            Some(Box::new(e)),
        )
    })?;
    Message::from_value(value).map_err(|reason| {
        ReadError::at_line(
            ReadErrorKind::NotJsonRpc,
            line,
            format!("line is not JSON-RPC: {reason}"),
            None,
        )
    })
}

/// Writes `message` as one line and flushes, so the peer sees it at once.
pub fn write_message(writer: &mut dyn Write, message: &Message) -> io::Result<()> {
    // Compact JSON escapes control characters inside strings, so the only
    // newline in the buffer is the one that ends the line.
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    writer.write_all(&line)?;
    writer.flush()
}

/// Why [`read_message`] could not return a message.
#[derive(Debug)]
pub struct ReadError {
    kind: ReadErrorKind,
    line: Option<String>,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// What kind of [`ReadError`] this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// Reading from the input failed.
    Io,
    /// The line's bytes are not UTF-8; [`ReadError::line`] has them with
    /// replacement characters.
    NotUtf8,
    /// The line is not JSON.
    NotJson,
    /// The line is JSON but not a JSON-RPC 2.0 message.
    NotJsonRpc,
    /// The input ended before the line's newline.
    CutOff,
}

impl ReadError {
    fn io(error: io::Error) -> ReadError {
        ReadError {
            kind: ReadErrorKind::Io,
            line: None,
            message: "could not read the input".into(),
            source: Some(Box::new(error)),
        }
    }

    fn at_line(
        kind: ReadErrorKind,
        line: &str,
        message: String,
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    ) -> ReadError {
        ReadError {
            kind,
            line: Some(line.to_owned()),
            message,
            source,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> ReadErrorKind {
        self.kind
    }

    /// The raw line (without its line end), for every kind but `Io`.
    pub fn line(&self) -> Option<&str> {
        self.line.as_deref()
    }

    /// The JSON-RPC error a server answers with (id `null`): -32700 for a
    /// line that is not JSON, -32600 for JSON that is not JSON-RPC. `None`
    /// when there is nothing to answer (input failed or ended).
    pub fn response_error(&self) -> Option<ResponseError> {
        match self.kind {
            ReadErrorKind::NotUtf8 | ReadErrorKind::NotJson => {
                Some(ResponseError::parse_error(self))
            }
            ReadErrorKind::NotJsonRpc => Some(ResponseError::invalid_request(&self.message)),
            ReadErrorKind::Io | ReadErrorKind::CutOff => None,
        }
    }
}

/// How much of a bad line a message quotes; [`ReadError::line`] has it all.
const EXCERPT_CHARS: usize = 200;

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(line) = &self.line {
            match line.char_indices().nth(EXCERPT_CHARS) {
                Some((cut, _)) => write!(f, ": {:?}...", &line[..cut])?,
                None => write!(f, ": {line:?}")?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

fn strip_eol(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}
