//! Newline-delimited framing: one JSON-RPC message per line, as MCP's stdio
//! transport does.
//!
//! Reading is strict about what a line is and lenient about what separates
//! lines: blank lines are skipped and a trailing `\r` is dropped, but a line
//! that is not JSON-RPC is an error that carries the raw line, so the runner
//! can report "non-JSON stdout at step N" with the offending text. Lines are
//! bounded: a line longer than the limit is an error naming the limit, read
//! past (never held whole) so that the next line is read as usual.

use std::fmt;
use std::io::{self, BufRead, Write};

use serde::Serialize;

use crate::jsonrpc::{JSONRPC_VERSION, Message};
use crate::line::{DEFAULT_MAX_LINE_BYTES, LineSplitter, Split};
use crate::method::Method;
use crate::nesting::{self, MAX_DEPTH};
use crate::request_id::RequestId;
use crate::response_error::ResponseError;

/// Reads the next message, or `None` at the end of the input; a line
/// longer than [`DEFAULT_MAX_LINE_BYTES`] is [`ReadErrorKind::TooLong`].
/// See [`read_message_limited`].
pub fn read_message(reader: &mut dyn BufRead) -> Result<Option<Message>, ReadError> {
    read_message_limited(reader, DEFAULT_MAX_LINE_BYTES)
}

/// Reads the next message from lines of at most `limit` bytes (the line end
/// not counted), or `None` at the end of the input.
///
/// Blank lines (only whitespace) are skipped; `\n` and `\r\n` both end a line.
/// A final line that the input ends in the middle of is
/// [`ReadErrorKind::CutOff`], even if it happens to be complete JSON: the
/// writer promised a newline after every message, so its absence means the
/// writer stopped mid-message. A longer line is [`ReadErrorKind::TooLong`],
/// returned once the rest of it has been read and dropped, so the next call
/// reads the next line; at most `limit + 1` bytes of it are held at once.
pub fn read_message_limited(
    reader: &mut dyn BufRead,
    limit: usize,
) -> Result<Option<Message>, ReadError> {
    let mut lines = LineSplitter::new(limit);
    let mut overlong = None;
    loop {
        let input = match reader.fill_buf() {
            Ok(input) => input,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadError::io(e)),
        };
        if input.is_empty() {
            if let Some(error) = overlong {
                return Err(error);
            }
            return match lines.unfinished() {
                Some(line) => decode(line, false),
                None => Ok(None),
            };
        }
        let (taken, split) = lines.push(input);
        reader.consume(taken);
        match split {
            None => {}
            Some(Split::Line) => {
                if let Some(message) = decode(lines.line(), true)? {
                    return Ok(Some(message));
                }
            }
            Some(Split::TooLong) => overlong = Some(ReadError::too_long(limit, lines.line())),
            Some(Split::Skipped) => {
                if let Some(error) = overlong.take() {
                    return Err(error);
                }
            }
        }
    }
}

/// Decodes one line's bytes, without its line end: `None` for a blank line.
///
/// `terminated` says whether the line's newline arrived; a line without it
/// is [`ReadErrorKind::CutOff`] (unless it is blank: whitespace at the end of
/// the input is no message). This is what [`read_message_limited`] does
/// with each line; a caller that splits lines itself with a
/// [`LineSplitter`] calls it with [`LineSplitter::line`].
pub fn decode_line(line: &[u8], terminated: bool) -> Result<Option<Message>, ReadError> {
    decode(line, terminated)
}

fn decode(bytes: &[u8], terminated: bool) -> Result<Option<Message>, ReadError> {
    let line = match std::str::from_utf8(bytes) {
        Ok(line) => line,
        Err(_) => {
            let lossy = String::from_utf8_lossy(bytes);
            return Err(ReadError::at_line(
                ReadErrorKind::NotUtf8,
                if terminated { &lossy } else { strip_cr(&lossy) },
                "line is not UTF-8".into(),
                None,
            ));
        }
    };
    let line = if terminated { line } else { strip_cr(line) };
    if line.trim().is_empty() {
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
    parse_line(line).map(Some)
}

/// Parses one line (without its line end) as a message.
pub fn parse_line(line: &str) -> Result<Message, ReadError> {
    let value = serde_json::from_str(line).map_err(|e| {
        // serde_json's own words for its stack guard (`ErrorCode::
        // RecursionLimitExceeded`), the one error it has no category for.
        if e.to_string().starts_with("recursion limit exceeded") {
            let mut error = ReadError::at_line(
                ReadErrorKind::TooDeep,
                line,
                format!("message is nested deeper than {MAX_DEPTH} levels"),
                Some(Box::new(e)),
            );
            error.id = nesting::scan(line).id;
            return error;
        }
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
    // Serialized straight into a buffer of the writer rather than into a
    // line first: a reply carrying a whole file (an edit's diff) is not held
    // twice. Compact JSON escapes control characters inside strings, so the
    // only newline written is the one that ends the line.
    let mut buffered = io::BufWriter::with_capacity(1 << 16, writer);
    serde_json::to_writer(&mut buffered, message)?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}

/// Writes the success response to request `id` whose result is `result`,
/// serialized straight to `writer`: the same line [`write_message`] writes
/// for `Response { id, result: Ok(serde_json::to_value(result)) }`, without
/// first copying a result that may carry whole files into a `Value`.
///
/// # Errors
/// Writing or serializing failed.
pub fn write_result<M: Method>(
    writer: &mut dyn Write,
    id: &RequestId,
    result: &M::Result,
) -> io::Result<()> {
    #[derive(Serialize)]
    struct WireResult<'a, T> {
        jsonrpc: &'static str,
        id: &'a RequestId,
        result: &'a T,
    }
    let mut buffered = io::BufWriter::with_capacity(1 << 16, writer);
    serde_json::to_writer(
        &mut buffered,
        &WireResult {
            jsonrpc: JSONRPC_VERSION,
            id,
            result,
        },
    )?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}

/// Why [`read_message`] could not return a message.
#[derive(Debug)]
pub struct ReadError {
    kind: ReadErrorKind,
    limit: Option<usize>,
    line: Option<String>,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
    id: Option<RequestId>,
}

/// What kind of [`ReadError`] this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// The line is longer than the reader's limit ([`ReadError::limit`]);
    /// [`ReadError::line`] has its start.
    TooLong,
    /// The line is JSON nested deeper than [`MAX_DEPTH`] levels;
    /// [`ReadError::id`] has the request's id when its top level names one.
    TooDeep,
}

impl ReadError {
    fn io(error: io::Error) -> ReadError {
        ReadError {
            kind: ReadErrorKind::Io,
            limit: None,
            line: None,
            message: "could not read the input".into(),
            source: Some(Box::new(error)),
            id: None,
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
            limit: None,
            line: Some(line.to_owned()),
            message,
            source,
            id: None,
        }
    }

    /// A line longer than `limit` bytes, of which `start` is the beginning.
    pub fn too_long(limit: usize, start: &[u8]) -> ReadError {
        let start = start.get(..QUOTED_PREFIX_BYTES).unwrap_or(start);
        ReadError {
            kind: ReadErrorKind::TooLong,
            limit: Some(limit),
            line: Some(String::from_utf8_lossy(start).into_owned()),
            message: format!("line is longer than the limit of {}", bytes(limit)),
            source: None,
            id: None,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> ReadErrorKind {
        self.kind
    }

    /// The id of the request a [`ReadErrorKind::TooDeep`] line carries,
    /// read from its top level: what the answer goes to (`null` without
    /// one).
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The limit a [`ReadErrorKind::TooLong`] line passed, in bytes.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// The raw line (without its line end), for every kind but `Io`; the
    /// first KiB of it for [`ReadErrorKind::TooLong`].
    pub fn line(&self) -> Option<&str> {
        self.line.as_deref()
    }

    /// The JSON-RPC error a server answers with (to [`ReadError::id`], else
    /// `null`): -32700 for a line that is not JSON, -32600 for JSON that is
    /// not JSON-RPC, for a line over the limit (whose data is `{"limit":
    /// bytes}`) and for one nested too deep (`{"maxDepth": 128}`). `None` when
    /// there is nothing to answer (input failed or ended).
    pub fn response_error(&self) -> Option<ResponseError> {
        match self.kind {
            ReadErrorKind::NotUtf8 | ReadErrorKind::NotJson => {
                Some(ResponseError::parse_error(self))
            }
            ReadErrorKind::NotJsonRpc => Some(ResponseError::invalid_request(&self.message)),
            ReadErrorKind::TooDeep => Some(
                ResponseError::invalid_request(&self.message)
                    .with_data(serde_json::json!({ "maxDepth": MAX_DEPTH })),
            ),
            ReadErrorKind::TooLong => Some(
                ResponseError::invalid_request(&self.message)
                    .with_data(serde_json::json!({ "limit": self.limit })),
            ),
            ReadErrorKind::Io | ReadErrorKind::CutOff => None,
        }
    }
}

/// How much of a bad line a message quotes; [`ReadError::line`] has it all.
const EXCERPT_CHARS: usize = 200;

/// How much of an overlong line [`ReadError::line`] keeps.
const QUOTED_PREFIX_BYTES: usize = 1024;

/// `67108864 bytes (64 MiB)`: the exact number, which is what a flag takes,
/// and a size a person reads at a glance.
fn bytes(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{n} bytes ({} MiB)", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{n} bytes ({} KiB)", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

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

/// Drops the `\r` of a `\r\n` line end that the input ended after.
fn strip_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}
