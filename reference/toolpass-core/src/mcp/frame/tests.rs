use super::*;

fn scan(text: &str) -> Frame {
    let mut scanner = Scanner::new();
    // In two pieces, as a stream delivers them.
    let (a, b) = text.as_bytes().split_at(text.len() / 2);
    scanner.feed(a);
    scanner.feed(b);
    scanner.finish()
}

#[test]
fn the_id_is_found_before_or_after_the_result() {
    let first = scan(r#"{"jsonrpc":"2.0","id":7,"result":{"id":99,"content":[]}}"#);
    assert_eq!(first.answer_id(), Some("7"));
    let last = scan(r#"{"result":{"id":"inner","text":"a,\"id\":5}"},"jsonrpc":"2.0","id":"abc"}"#);
    assert_eq!(last.answer_id(), Some("\"abc\""));
    assert_eq!(last.depth, 2);
}

#[test]
fn a_request_or_notification_answers_nothing() {
    let request = scan(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert_eq!(request.id, Some("1".to_owned()));
    assert_eq!(request.answer_id(), None);
    assert_eq!(
        scan(r#"{"method":"notifications/progress","params":{}}"#).answer_id(),
        None
    );
}

#[test]
fn no_id_or_an_id_that_is_neither_number_nor_string_is_none() {
    assert_eq!(scan(r#"{"jsonrpc":"2.0","result":{}}"#).id, None);
    assert_eq!(scan(r#"{"id":{"a":1},"result":{}}"#).id, None);
    assert_eq!(scan(r#"[{"id":1}]"#).id, None);
    assert_eq!(scan("not json").id, None);
}

#[test]
fn depth_and_length_are_counted_without_recursion() {
    let deep = format!(
        "{{\"id\":3,\"result\":{}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let frame = scan(&deep);
    assert_eq!(frame.depth, 100_001);
    assert_eq!(frame.bytes, deep.len());
    assert_eq!(frame.answer_id(), Some("3"));
}

#[test]
fn prune_replaces_what_opens_too_deep_with_null() {
    let text = r#"{"a":[1,{"b":[2]},"[{"],"c":{}}"#;
    assert_eq!(prune(text.as_bytes(), 10), text.as_bytes());
    let pruned = prune(text.as_bytes(), 2);
    assert_eq!(
        std::str::from_utf8(&pruned).unwrap(),
        r#"{"a":[1,null,"[{"],"c":{}}"#
    );
    let deep = format!("[{}{}]", "{\"x\":[".repeat(50_000), "]}".repeat(50_000));
    let pruned = prune(deep.as_bytes(), MAX_MESSAGE_DEPTH);
    let mut scanner = Scanner::new();
    scanner.feed(&pruned);
    assert_eq!(scanner.finish().depth, MAX_MESSAGE_DEPTH);
    // Every opening kept has its closing: what was cut was whole values.
    let opens = pruned.iter().filter(|&&b| b == b'[' || b == b'{').count();
    let closes = pruned.iter().filter(|&&b| b == b']' || b == b'}').count();
    assert_eq!(opens, closes);
    assert!(pruned.windows(10).any(|w| w == br#"{"x":null}"#));
}

#[test]
fn the_messages_name_the_limits() {
    assert!(oversized_message(17_000_000).contains("16 MiB"));
    assert!(too_deep_message(3_000).contains("3000 levels"));
}
