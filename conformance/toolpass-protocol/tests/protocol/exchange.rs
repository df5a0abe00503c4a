//! The protocol's first example exchange, line by line: each line parses,
//! decodes into its typed shape, and that shape writes back the same JSON.

use serde::Serialize;
use serde_json::Value;
use toolpass_protocol::method::{self, Method};
use toolpass_protocol::{
    Dialect, ErrorCode, FaultPoint, Feature, Message, OutcomeSummary, Request, Response, Status,
    read_message,
};

/// The exchange as it was first written down (`→` runner to implementation).
const EXCHANGE: &str = r#"
→ {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"toolpass/1","clientInfo":{"name":"toolpass","version":"0.1.0"},"capabilities":{}}}
← {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"toolpass/1","serverInfo":{"name":"toolpass-reference","version":"0.1.0"},"capabilities":{"tools":{},"toolpass":{"version":1,"features":["sessions","prior_read","fault:fs.stat","fault:write.before_commit"]}}}}
→ {"jsonrpc":"2.0","id":2,"method":"toolpass/session.open","params":{"root":"/sandbox/tp-1a2b","config":{}}}
← {"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}
→ {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"edit","arguments":{"file_path":"/sandbox/tp-1a2b/a.ts","old_string":"x","new_string":"y"},"_meta":{"toolpass":{"sessionId":"s1","callId":"c1"}}}}
← {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"File /sandbox/tp-1a2b/a.ts has not been read ..."}],"isError":true,"_meta":{"toolpass":{"status":"error","llmContent":"File /sandbox/tp-1a2b/a.ts has not been read ...","error":{"code":"edit_requires_prior_read","message":"..."}}}}}
"#;

/// The lines of one direction, without their arrows, as the peer would read
/// them from its input.
fn stream(arrow: char) -> String {
    EXCHANGE
        .lines()
        .filter_map(|line| line.strip_prefix(arrow))
        .map(|line| format!("{}\n", line.trim_start()))
        .collect()
}

fn read_all(text: &str) -> Vec<Message> {
    let mut input = text.as_bytes();
    let mut messages = Vec::new();
    while let Some(message) = read_message(&mut input).unwrap() {
        messages.push(message);
    }
    messages
}

/// Decodes a request's params as `M` and checks they serialize back to the
/// wire's JSON.
fn check_request<M: Method>(message: &Message) -> M::Params {
    let Message::Request(request) = message else {
        panic!("expected a {} request, got {message:?}", M::NAME);
    };
    assert!(request.is::<M>());
    let params = request.params::<M>().unwrap();
    assert_same_json(&params, request.params.as_ref().unwrap());
    params
}

fn check_response<M: Method>(message: &Message, request: &Request) -> M::Result {
    let Message::Response(response) = message else {
        panic!("expected a {} response, got {message:?}", M::NAME);
    };
    assert_eq!(response.id.as_ref(), Some(&request.id));
    let result = response.decode::<M>().unwrap();
    assert_same_json(&result, response.result.as_ref().unwrap());
    result
}

fn assert_same_json(typed: &impl Serialize, wire: &Value) {
    assert_eq!(&serde_json::to_value(typed).unwrap(), wire);
}

fn request(message: &Message) -> &Request {
    match message {
        Message::Request(request) => request,
        other => panic!("not a request: {other:?}"),
    }
}

#[test]
fn the_design_exchange_parses_line_by_line() {
    let sent = read_all(&stream('→'));
    let answered = read_all(&stream('←'));
    assert_eq!((sent.len(), answered.len()), (3, 3));

    let init = check_request::<method::Initialize>(&sent[0]);
    assert_eq!(init.protocol_version, toolpass_protocol::PROTOCOL_VERSION);
    let result = check_response::<method::Initialize>(&answered[0], request(&sent[0]));
    let Dialect::Toolpass(toolpass) = result.dialect().unwrap() else {
        panic!("the reference is a toolpass implementation");
    };
    assert!(toolpass.supports(&Feature::PriorRead));
    assert!(toolpass.supports(&Feature::Fault(FaultPoint::WriteBeforeCommit)));
    assert!(!toolpass.supports(&Feature::Batch));

    let open = check_request::<method::SessionOpen>(&sent[1]);
    assert_eq!(open.root, "/sandbox/tp-1a2b");
    assert_eq!(open.config, Default::default());
    let opened = check_response::<method::SessionOpen>(&answered[1], request(&sent[1]));
    assert_eq!(opened.session_id.as_str(), "s1");

    let call = check_request::<method::ToolsCall>(&sent[2]);
    let context = call.context().unwrap();
    assert_eq!(
        (context.session_id.as_str(), context.call_id.as_str()),
        ("s1", "c1")
    );
    assert_eq!(call.arguments["old_string"], "x");
    let outcome = check_response::<method::ToolsCall>(&answered[2], request(&sent[2]));
    assert_eq!(outcome.status(), Status::Error);
    assert!(outcome.is_error);
    let error = outcome.toolpass().error.as_ref().unwrap();
    assert_eq!(error.code, ErrorCode::EditRequiresPriorRead);

    let Message::Response(Response {
        result: Ok(value), ..
    }) = &answered[2]
    else {
        panic!("not a result");
    };
    let summary = OutcomeSummary::from_value(value).unwrap();
    assert_eq!(summary.status, Status::Error);
    assert_eq!(
        summary.error_code.as_deref(),
        Some("edit_requires_prior_read")
    );
    assert_eq!(summary.llm_content, outcome.llm_content());
}
