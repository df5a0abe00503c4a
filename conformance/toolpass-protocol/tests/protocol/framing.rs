//! Framing edge cases: what separates lines, what a line must be, and what
//! the errors carry.

use std::io::{self, BufRead, Read, Write};

use toolpass_protocol::{
    Message, Outcome, ReadErrorKind, RequestId, Response, ResponseError, method, parse_line,
    read_message, read_message_limited, write_message, write_result,
};

const REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
const NOTIFICATION: &str = r#"{"jsonrpc":"2.0","method":"toolpass/notice","params":{"sessionId":"s1","kind":"k","text":"t"}}"#;

/// Reads every message of `input` until the end or the first error, and
/// returns what was read and the error's kind and line.
fn check(input: &[u8]) -> (Vec<Message>, Option<(ReadErrorKind, Option<String>)>) {
    let mut reader = input;
    let mut messages = Vec::new();
    loop {
        match read_message(&mut reader) {
            Ok(Some(message)) => messages.push(message),
            Ok(None) => return (messages, None),
            Err(error) => {
                return (
                    messages,
                    Some((error.kind(), error.line().map(str::to_owned))),
                );
            }
        }
    }
}

fn not_json_rpc(line: &str) -> String {
    let error = parse_line(line).unwrap_err();
    assert_eq!(error.kind(), ReadErrorKind::NotJsonRpc, "{line}: {error}");
    assert_eq!(error.line(), Some(line));
    error.to_string()
}

#[test]
fn blank_lines_are_skipped() {
    let input = format!("\n\n   \n\t\n{REQUEST}\n\n \r\n{NOTIFICATION}\n\n");
    let (messages, error) = check(input.as_bytes());
    assert_eq!(messages.len(), 2);
    assert!(error.is_none());
}

#[test]
fn crlf_ends_a_line() {
    let input = format!("{REQUEST}\r\n{NOTIFICATION}\r\n");
    let (messages, error) = check(input.as_bytes());
    assert_eq!(messages.len(), 2);
    assert!(error.is_none());
    assert!(matches!(messages[1], Message::Notification(_)));
}

#[test]
fn empty_input_is_the_end() {
    assert_eq!(check(b""), (Vec::new(), None));
    // Trailing whitespace without a line end is not a message either.
    assert_eq!(check(b"  "), (Vec::new(), None));
}

#[test]
fn a_non_json_line_is_an_error_with_the_line() {
    let input = format!("{REQUEST}\nhello from a debug print\r\n{REQUEST}\n");
    let (messages, error) = check(input.as_bytes());
    assert_eq!(messages.len(), 1);
    assert_eq!(
        error,
        Some((
            ReadErrorKind::NotJson,
            Some("hello from a debug print".into())
        ))
    );
    let error = parse_line("hello").unwrap_err();
    assert_eq!(error.to_string(), "line is not JSON: \"hello\"");
    // The parser's position is kept as the source, not pasted in.
    let source = std::error::Error::source(&error).unwrap();
    assert!(source.to_string().contains("column"), "{source}");
    assert_eq!(
        error.response_error().map(|e| e.code),
        Some(ResponseError::PARSE_ERROR)
    );
}

#[test]
fn json_that_is_not_json_rpc_is_an_error_with_the_line() {
    let cases = [
        (r#"{"foo":1}"#, "no \"jsonrpc\""),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
            "\"jsonrpc\" is \"1.0\"",
        ),
        (
            r#"{"jsonrpc":"2.0"}"#,
            "no \"method\", \"result\" or \"error\"",
        ),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#, "batch"),
        (r#""just a string""#, "a JSON string, not an object"),
        ("42", "a JSON number"),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
            "\"id\" is 1.5",
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
            "\"id\" is null",
        ),
        (r#"{"jsonrpc":"2.0","id":{},"result":{}}"#, "\"id\" is {}"),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            "\"method\" is a number",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"p"}"#,
            "\"params\" is a string",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#,
            "both \"method\"",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            "both \"result\" and \"error\"",
        ),
        (r#"{"jsonrpc":"2.0","result":{}}"#, "without an \"id\""),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}"#,
            "\"error\" is not {code, message}",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":"boom"}"#,
            "\"error\" is not {code, message}",
        ),
    ];
    for (line, reason) in cases {
        let message = not_json_rpc(line);
        assert!(
            message.contains(reason),
            "{line}: {message:?} lacks {reason:?}"
        );
    }
    let error = parse_line(r#"{"foo":1}"#).unwrap_err();
    assert_eq!(
        error.response_error().map(|e| e.code),
        Some(ResponseError::INVALID_REQUEST)
    );
}

#[test]
fn a_response_with_an_unknown_id_parses() {
    // Matching ids to requests is the caller's business.
    let message = parse_line(r#"{"jsonrpc":"2.0","id":"never-sent","result":{}}"#).unwrap();
    let Message::Response(response) = message else {
        panic!("not a response: {message:?}");
    };
    assert_eq!(response.id, Some(RequestId::from("never-sent")));
    assert_eq!(response.result, Ok(serde_json::json!({})));
}

#[test]
fn a_response_may_have_a_null_id_or_a_null_result() {
    let message = parse_line(
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#,
    )
    .unwrap();
    let Message::Response(response) = message else {
        panic!("not a response");
    };
    assert_eq!(response.id, None);
    assert_eq!(
        response.result.unwrap_err().code,
        ResponseError::PARSE_ERROR
    );
    let message = parse_line(r#"{"jsonrpc":"2.0","id":2,"result":null}"#).unwrap();
    assert!(matches!(message, Message::Response(r) if r.result == Ok(serde_json::Value::Null)));
}

#[test]
fn requests_and_notifications_are_told_apart_by_the_id() {
    let Message::Request(request) = parse_line(REQUEST).unwrap() else {
        panic!("not a request");
    };
    assert_eq!(request.id, RequestId::Number(1));
    assert!(matches!(
        parse_line(NOTIFICATION).unwrap(),
        Message::Notification(_)
    ));
    // Members JSON-RPC does not define are ignored; null params are absent.
    let Message::Request(request) = parse_line(
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":null,"extra":true}"#,
    )
    .unwrap() else {
        panic!("not a request");
    };
    assert_eq!(request.params, None);
}

#[test]
fn input_that_ends_mid_line_is_cut_off() {
    let input = format!("{REQUEST}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"res");
    let (messages, error) = check(input.as_bytes());
    assert_eq!(messages.len(), 1);
    assert_eq!(
        error,
        Some((
            ReadErrorKind::CutOff,
            Some("{\"jsonrpc\":\"2.0\",\"id\":2,\"res".into())
        ))
    );
    // Even complete JSON is cut off without its newline: the writer stopped
    // before finishing the message.
    let (_, error) = check(REQUEST.as_bytes());
    assert_eq!(error.map(|e| e.0), Some(ReadErrorKind::CutOff));
}

#[test]
fn a_line_that_is_not_utf8_is_an_error() {
    let mut input = b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}\n".to_vec();
    input.extend_from_slice(REQUEST.as_bytes());
    let (messages, error) = check(&input);
    assert!(messages.is_empty());
    let (kind, line) = error.unwrap();
    assert_eq!(kind, ReadErrorKind::NotUtf8);
    assert!(line.unwrap().contains('\u{fffd}'));
}

#[test]
fn long_lines_are_quoted_in_part() {
    let line = format!("x{}", "é".repeat(500));
    let error = parse_line(&line).unwrap_err();
    let text = error.to_string();
    assert!(
        text.ends_with("...") && text.chars().count() < 260,
        "{text}"
    );
    assert_eq!(error.line(), Some(line.as_str()));
}

struct FailingReader;

impl Read for FailingReader {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::other("pipe closed"))
    }
}

impl BufRead for FailingReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Err(io::Error::other("pipe closed"))
    }
    fn consume(&mut self, _: usize) {}
}

#[test]
fn a_failing_reader_is_an_io_error() {
    let error = read_message(&mut FailingReader).unwrap_err();
    assert_eq!(error.kind(), ReadErrorKind::Io);
    assert_eq!(error.line(), None);
    assert!(error.response_error().is_none());
    assert_eq!(
        std::error::Error::source(&error).unwrap().to_string(),
        "pipe closed"
    );
}

/// Records writes and flushes, to check that a message is flushed whole.
#[derive(Default)]
struct Recorder {
    written: Vec<u8>,
    flushed_at: Vec<usize>,
}

impl Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.flushed_at.push(self.written.len());
        Ok(())
    }
}

#[test]
fn a_written_message_is_one_flushed_line() {
    let message = parse_line(
        r#"{"jsonrpc":"2.0","method":"toolpass/notice","params":{"text":"two\nlines\r\n\u2028"}}"#,
    )
    .unwrap();
    let mut out = Recorder::default();
    write_message(&mut out, &message).unwrap();
    write_message(&mut out, &message).unwrap();
    let text = String::from_utf8(out.written.clone()).unwrap();
    assert_eq!(text.matches('\n').count(), 2, "{text}");
    assert_eq!(out.flushed_at, vec![text.len() / 2, text.len()]);
    let (messages, error) = check(&out.written);
    assert_eq!(messages, vec![message.clone(), message]);
    assert!(error.is_none());
}

#[test]
fn a_result_written_straight_is_the_line_of_its_response_message() {
    let outcome = Outcome::success("two\nlines \u{2028}".to_owned(), None);
    let id = RequestId::String("c\"1".to_owned());
    let mut straight = Recorder::default();
    write_result::<method::ToolsCall>(&mut straight, &id, &outcome).unwrap();
    let message = Message::Response(Response {
        id: Some(id),
        result: Ok(serde_json::to_value(&outcome).unwrap()),
    });
    let mut via_message = Recorder::default();
    write_message(&mut via_message, &message).unwrap();
    assert_eq!(
        String::from_utf8(straight.written.clone()).unwrap(),
        String::from_utf8(via_message.written).unwrap()
    );
    assert_eq!(straight.flushed_at, vec![straight.written.len()]);
}

/// A request line of exactly `len` bytes (its line end not counted).
fn request_of_len(len: usize) -> String {
    let bare = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":""}}"#;
    let pad = "x".repeat(len - bare.len());
    bare.replace(r#""pad":"""#, &format!(r#""pad":"{pad}""#))
}

#[test]
fn a_line_at_the_limit_is_read_and_one_byte_more_is_too_long() {
    let at = request_of_len(300);
    let over = request_of_len(301);
    let input = format!("{at}\n{over}\n{at}\r\n{over}\r\n{REQUEST}\n");
    let mut reader = input.as_bytes();
    let mut results = Vec::new();
    while let Some(result) = read_message_limited(&mut reader, 300).transpose() {
        results.push(result.map_err(|e| (e.kind(), e.limit())));
    }
    let kinds: Vec<_> = results
        .iter()
        .map(|r| r.as_ref().map(|_| ()).map_err(|e| *e))
        .collect();
    let too_long = Err((ReadErrorKind::TooLong, Some(300)));
    // The overlong lines are read past: the line after each is read as usual.
    assert_eq!(kinds, [Ok(()), too_long, Ok(()), too_long, Ok(())]);
}

#[test]
fn a_line_over_the_limit_names_the_limit_and_quotes_its_start() {
    let line = format!("{}\n", request_of_len(5000));
    let error = read_message_limited(&mut line.as_bytes(), 4096).unwrap_err();
    assert_eq!(error.kind(), ReadErrorKind::TooLong);
    assert_eq!(error.limit(), Some(4096));
    assert_eq!(
        error.to_string().split(": \"").next(),
        Some("line is longer than the limit of 4096 bytes (4 KiB)")
    );
    assert_eq!(error.line().map(str::len), Some(1024));
    assert!(line.starts_with(error.line().unwrap()));
    let reply = error.response_error().unwrap();
    assert_eq!(reply.code, ResponseError::INVALID_REQUEST);
    assert_eq!(reply.data, Some(serde_json::json!({"limit": 4096})));
}

#[test]
fn an_overlong_line_the_input_ends_in_is_too_long_not_cut_off() {
    let error = read_message_limited(&mut &[b'{'; 100][..], 10).unwrap_err();
    assert_eq!(error.kind(), ReadErrorKind::TooLong);
    // Within the limit, the same unfinished line is cut off.
    let error = read_message_limited(&mut &[b'{'; 100][..], 100).unwrap_err();
    assert_eq!(error.kind(), ReadErrorKind::CutOff);
}
