//! Fuzz properties of the wire, and the deterministic input mutator the
//! smoke tests of this crate and of the crates above it share.
//!
//! Not part of the stable API (hidden from the docs): the `framing` target
//! under `fuzz/` calls [`fuzz_framing`], and the `smoke` test below runs the
//! same property on every `cargo test`, so a property that breaks is seen
//! without a fuzzer.
//!
//! The framing property is what both sides of toolpass/1 rely on when they
//! read untrusted lines: the server reading a client's requests, the runner
//! reading an implementation's answers and notifications.
//! - Reading never panics and always makes progress (no hang).
//! - How the input arrives does not matter: read whole, or a few bytes per
//!   `fill_buf`, the messages and errors are the same.
//! - The bounded reader agrees with a model that splits the input at every
//!   `\n` and judges each line whole: a line over the limit is `TooLong`,
//!   any other line decodes as it would without a limit.
//! - A message read, written and read again is itself, and so is every
//!   typed params or result decoded from it, re-encoded and decoded.

// A fuzz oracle reports failure by panicking; its inputs are slices it
// indexes within bounds it has just checked.
#![allow(clippy::panic, clippy::indexing_slicing)]

use std::fmt::Debug;
use std::io::{self, BufRead, Read};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::jsonrpc::{Message, decode_params};
use crate::method::{self, Method, NotificationMethod};
use crate::{DEFAULT_MAX_LINE_BYTES, OutcomeSummary, ReadErrorKind, read_message_limited};

/// Fuzz entry point for framing and decoding: panics (the fuzzer's failure
/// signal) when [`check_framing`] finds a broken property.
pub fn fuzz_framing(data: &[u8]) {
    if let Err(message) = check_framing(data) {
        panic!("{message}\ninput: {:?}", String::from_utf8_lossy(data));
    }
}

/// What one read returned, comparable across readers.
#[derive(Debug, PartialEq)]
enum Read1 {
    Message(Message),
    Error(ReadErrorKind, Option<String>),
}

/// The framing property on `data`: the first byte picks the limit (1 to
/// 128 bytes, or the default), the second how many bytes each `fill_buf`
/// hands over; the rest is the input.
///
/// # Errors
/// A description of the broken property.
pub fn check_framing(data: &[u8]) -> Result<(), String> {
    let [pick, chunk, input @ ..] = data else {
        return Ok(());
    };
    let limit = match pick {
        128.. => DEFAULT_MAX_LINE_BYTES,
        n => usize::from(*n) + 1,
    };
    let size = usize::from(*chunk % 16) + 1;
    let whole = read_all(input, usize::MAX, limit)?;
    let chunked = read_all(input, size, limit)?;
    if whole != chunked {
        return Err(format!(
            "reading in chunks of {size} changes the result (limit {limit})\n whole: {whole:?}\n chunked: {chunked:?}"
        ));
    }
    let model = model_read_all(input, limit);
    if whole != model {
        return Err(format!(
            "the bounded reader disagrees with the model (limit {limit})\n read: {whole:?}\n model: {model:?}"
        ));
    }
    for read in &whole {
        if let Read1::Message(message) = read {
            round_trip(message)?;
            decode_typed(message)?;
        }
    }
    Ok(())
}

/// Every message and error until the end of the input, as a server reads:
/// going on after each error. The reader hands over `chunk` bytes at a time.
fn read_all(input: &[u8], chunk: usize, limit: usize) -> Result<Vec<Read1>, String> {
    let mut reader = Chunked { input, chunk };
    let mut out = Vec::new();
    loop {
        let before = reader.input.len();
        let read = match read_message_limited(&mut reader, limit) {
            Ok(None) => return Ok(out),
            Ok(Some(message)) => Read1::Message(message),
            Err(error) => {
                // Display and the JSON-RPC answer must not panic either.
                let _ = (error.to_string(), error.response_error());
                if error.kind() == ReadErrorKind::TooLong && error.limit() != Some(limit) {
                    return Err(format!("TooLong names limit {:?}", error.limit()));
                }
                Read1::Error(error.kind(), error.line().map(str::to_owned))
            }
        };
        // Anything but the end must consume input, or a server would read
        // the same bytes forever.
        if reader.input.len() == before {
            return Err(format!("{read:?} consumed nothing: no progress"));
        }
        out.push(read);
    }
}

/// The model: split at every `\n`, judge each line whole.
fn model_read_all(input: &[u8], limit: usize) -> Vec<Read1> {
    let mut out = Vec::new();
    let mut pieces: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    // The piece after the last `\n` is unterminated (empty when the input
    // ends with one).
    let last = pieces.pop().unwrap_or_default();
    let lines = pieces
        .into_iter()
        .map(|line| (line, true))
        .chain((!last.is_empty()).then_some((last, false)));
    for (line, terminated) in lines {
        let content = line.strip_suffix(b"\r").unwrap_or(line);
        // A `\r` right before the line's end is not counted; for a line the
        // input ends in, it may still have become `\r\n`.
        let counted = content.len();
        if counted > limit {
            let start = &line[..limit.min(1024)];
            out.push(Read1::Error(
                ReadErrorKind::TooLong,
                Some(String::from_utf8_lossy(start).into_owned()),
            ));
            continue;
        }
        match crate::decode_line(if terminated { content } else { line }, terminated) {
            Ok(Some(message)) => out.push(Read1::Message(message)),
            Ok(None) => {}
            Err(error) => out.push(Read1::Error(error.kind(), error.line().map(str::to_owned))),
        }
    }
    out
}

/// Written and read again, a message is itself.
fn round_trip(message: &Message) -> Result<(), String> {
    let mut line = Vec::new();
    crate::write_message(&mut line, message).map_err(|e| format!("write failed: {e}"))?;
    match read_message_limited(&mut &line[..], usize::MAX) {
        Ok(Some(again)) if again == *message => Ok(()),
        other => Err(format!(
            "round trip changed the message\n was: {message:?}\n line: {}\n read: {other:?}",
            String::from_utf8_lossy(&line)
        )),
    }
}

/// Checks each method's decoding of one value: `$decode` names how, with
/// the method type `M` in scope.
macro_rules! each_method {
    ($($m:ty),+ => |$t:ident| $decode:expr) => {
        $({
            type $t = $m;
            if_decoded(<$m>::NAME, $decode)?;
        })+
    };
}

/// Decodes the message as every method's params or result would be, the
/// way the server (requests) and the runner (answers, notifications) do;
/// what decodes must survive re-encoding. Params are decoded as
/// `Request::params` and `Notification::params` do once the method name
/// matches, whatever name the fuzz input has.
fn decode_typed(message: &Message) -> Result<(), String> {
    use method::{
        Batch, Confirm, Fault, Initialize, LogMessage, Notice, SessionClose, SessionOpen,
        ToolsCall, ToolsList,
    };
    match message {
        Message::Request(request) => {
            let params = request.params.as_ref();
            each_method!(
                Initialize, SessionOpen, ToolsList, ToolsCall, Batch, Confirm, Fault, SessionClose
                    => |M| decode_params::<<M as Method>::Params>(params)
            );
        }
        Message::Response(response) => {
            if let Ok(result) = &response.result {
                // A plain MCP server's `tools/call` result, read leniently.
                let _ = OutcomeSummary::from_value(result);
            }
            each_method!(
                Initialize, SessionOpen, ToolsList, ToolsCall, Batch, Fault
                    => |M| response.decode::<M>()
            );
        }
        Message::Notification(notification) => {
            let params = notification.params.as_ref();
            each_method!(
                Notice, LogMessage => |N| decode_params::<<N as NotificationMethod>::Params>(params)
            );
        }
    }
    Ok(())
}

/// What did not decode is fine (the caller answers with an error); what
/// did must survive a round trip.
fn if_decoded<T, E>(method: &str, decoded: Result<T, E>) -> Result<(), String>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    decoded.map_or(Ok(()), |value| typed_round_trip(method, &value))
}

fn typed_round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(
    method: &str,
    value: &T,
) -> Result<(), String> {
    let encoded: Value = serde_json::to_value(value)
        .map_err(|e| format!("{method}: a decoded value does not encode: {e}"))?;
    match T::deserialize(&encoded) {
        Ok(again) if again == *value => Ok(()),
        other => Err(format!(
            "{method}: re-encoding changed the value\n was: {value:?}\n encoded: {encoded}\n read: {other:?}"
        )),
    }
}

/// A reader that hands over at most `chunk` bytes per `fill_buf`, as a pipe
/// does when the writer is slow.
struct Chunked<'a> {
    input: &'a [u8],
    chunk: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.input[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Chunked<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(&self.input[..self.chunk.min(self.input.len())])
    }

    fn consume(&mut self, n: usize) {
        self.input = &self.input[n..];
    }
}

/// A deterministic source of fuzz-like inputs for smoke tests: xorshift,
/// so every run tries the same inputs and needs no dependency.
#[derive(Debug, Clone)]
pub struct Mutator {
    state: u64,
}

/// Bytes that mean something to JSON or YAML, which edits favour.
const SYNTAX: &[u8] = b"\n\r\t {}[]\":,'#-&*!|>?%@`\\0a1.e\xff";

impl Mutator {
    /// A mutator starting from `seed` (any value but 0 works alike).
    pub fn new(seed: u64) -> Mutator {
        Mutator { state: seed | 1 }
    }

    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        usize::try_from(self.next_u64().checked_rem(n).unwrap_or(0)).unwrap_or(0)
    }

    /// A copy of `seed` with one to four edits: a byte replaced by a syntax
    /// byte, a short range deleted, a syntax byte inserted, a range copied
    /// elsewhere, or the end cut off.
    pub fn mutate(&mut self, seed: &[u8]) -> Vec<u8> {
        let mut out = seed.to_vec();
        for _ in 0..=self.below(4) {
            let at = self.below(out.len() + 1);
            let syntax = SYNTAX[self.below(SYNTAX.len())];
            match self.below(5) {
                0 if at < out.len() => out[at] = syntax,
                1 => {
                    let end = (at + 1 + self.below(8)).min(out.len());
                    out.drain(at.min(end)..end);
                }
                2 => out.insert(at, syntax),
                3 => {
                    let end = (at + 1 + self.below(32)).min(out.len());
                    let copy = out[at.min(end)..end].to_vec();
                    let to = self.below(out.len() + 1);
                    out.splice(to..to, copy);
                }
                _ => out.truncate(at),
            }
        }
        out
    }

    /// Each seed as it is, then `rounds` mutated copies of seeds taken in
    /// turn.
    pub fn inputs(&mut self, seeds: &[&[u8]], rounds: usize) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = seeds.iter().map(|s| s.to_vec()).collect();
        for round in 0..rounds {
            if let Some(seed) = seeds.get(round % seeds.len().max(1)) {
                out.push(self.mutate(seed));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of every kind the runner and the server read.
    const SEEDS: &[&[u8]] = &[
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"toolpass/1","clientInfo":{"name":"t","version":"0"},"capabilities":{}}}"#,
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"edit","arguments":{"file_path":"/r/a","old_string":"a","new_string":"b"},"_meta":{"toolpass":{"sessionId":"s1","callId":"c"}}}}"#,
        br#"{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"ok"}],"isError":false,"_meta":{"toolpass":{"status":"success","llmContent":"ok"}}}}"#,
        br#"{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"toolpass/1","serverInfo":{"name":"s","version":"1"},"capabilities":{"tools":{},"toolpass":{"version":1,"features":["batch"]}}}}"#,
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","data":{"limit":5}}}"#,
        br#"{"jsonrpc":"2.0","method":"toolpass/notice","params":{"sessionId":"s1","kind":"k","text":"t"}}"#,
        b"\r\n  \n{\"jsonrpc\":\"2.0\",\"id\":1.5e3,\"method\":\"tools/list\"}\r\n\xff\n",
    ];

    #[test]
    fn smoke() {
        let mut mutator = Mutator::new(0x9E37_79B9_7F4A_7C15);
        for input in mutator.inputs(SEEDS, 4000) {
            // Every limit and chunk size over the same inputs in turn.
            let mut data = vec![mutator.next_u64().to_le_bytes()[0], 0];
            data[1] = mutator.next_u64().to_le_bytes()[0];
            // Several lines per input, so lines meet their neighbours.
            data.extend_from_slice(&input);
            data.push(b'\n');
            data.extend_from_slice(&mutator.mutate(&input));
            fuzz_framing(&data);
        }
    }

    #[test]
    fn the_mutator_is_deterministic_and_edits() {
        let a = Mutator::new(7).inputs(SEEDS, 50);
        assert_eq!(a, Mutator::new(7).inputs(SEEDS, 50));
        assert!(a[SEEDS.len()..].iter().any(|m| !SEEDS.contains(&&m[..])));
    }
}
