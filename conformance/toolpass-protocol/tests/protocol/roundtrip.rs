//! Every message survives the wire: typed value → line → typed value, and
//! the line reads back as the same JSON.

use std::collections::BTreeMap;
use std::fmt::Debug;

use serde_json::{Map, Value, json};
use toolpass_protocol::method::{self, Method, NotificationMethod};
use toolpass_protocol::{
    ApprovalMode, BatchBudget, BatchCall, BatchParams, BatchResult, CallContext, CancelledParams,
    ConfirmOutcome, ConfirmParams, Confirmation, DeferredToolsModel, DiffStat, EmptyResult,
    ErrorCode, FaultParams, FaultPoint, Feature, Implementation, InitializeParams,
    InitializeResult, LogLevel, LogMessageParams, McpServerConfig, Message, NoticeParams,
    Notification, Outcome, ProgressParams, Question, QuestionOption, Request, RequestId, Response,
    ResultDisplay, SessionCloseParams, SessionConfig, SessionId, SessionOpenParams,
    SessionOpenResult, Todo, TodoStatus, ToolDescriptor, ToolDescriptorMeta, ToolKind, ToolMeta,
    ToolsCallParams, ToolsListExtra, ToolsListMeta, ToolsListParams, ToolsListResult, read_message,
    write_message,
};

/// Writes `message`, reads it back, and checks that it is one line and the
/// same message.
fn through_the_wire(message: Message) -> Message {
    let mut line = Vec::new();
    write_message(&mut line, &message).unwrap();
    let text = String::from_utf8(line.clone()).unwrap();
    assert!(text.ends_with('\n'), "no line end: {text:?}");
    assert_eq!(
        text.matches('\n').count(),
        1,
        "more than one line: {text:?}"
    );
    let read = read_message(&mut line.as_slice()).unwrap().unwrap();
    assert_eq!(read, message);
    // Reading the line as JSON and writing it again changes nothing.
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), value);
    read
}

fn check_request<M: Method>(params: M::Params)
where
    M::Params: PartialEq + Debug,
{
    let message = through_the_wire(Request::new::<M>(7, &params).into());
    let Message::Request(request) = message else {
        panic!("{} came back as {message:?}", M::NAME);
    };
    assert_eq!(request.method, M::NAME);
    assert_eq!(request.id, RequestId::Number(7));
    assert_eq!(request.params::<M>().unwrap(), params);
    // Taking the params moves them out and gives the same value.
    let mut request = request;
    assert_eq!(request.take_params::<M>().unwrap(), params);
    assert_eq!(request.params, None);
}

fn check_result<M: Method>(result: M::Result)
where
    M::Result: PartialEq + Debug,
{
    let id = RequestId::from("r-1");
    let message = through_the_wire(Response::ok::<M>(id.clone(), &result).into());
    let Message::Response(response) = message else {
        panic!("{} result came back as {message:?}", M::NAME);
    };
    assert_eq!(response.id, Some(id));
    assert_eq!(response.decode::<M>().unwrap(), result);
}

fn check_notification<N: NotificationMethod>(params: N::Params)
where
    N::Params: PartialEq + Debug,
{
    let message = through_the_wire(Notification::new::<N>(&params).into());
    let Message::Notification(notification) = message else {
        panic!("{} came back as {message:?}", N::NAME);
    };
    assert_eq!(notification.params::<N>().unwrap(), params);
}

fn session() -> SessionId {
    SessionId::from("s1")
}

fn object(value: Value) -> Map<String, Value> {
    let Value::Object(map) = value else {
        panic!("not an object: {value}")
    };
    map
}

fn every_outcome() -> Vec<Outcome> {
    vec![
        Outcome::success("ok", None),
        Outcome::success(
            "The file has been updated.",
            Some(ResultDisplay::Diff {
                path: "/sandbox/a.ts".into(),
                old: Some("x\n".into()),
                new: "y\n".into(),
                stat: DiffStat {
                    added_lines: 1,
                    removed_lines: 1,
                },
                user_stat: Some(DiffStat {
                    added_lines: 2,
                    removed_lines: 0,
                }),
                diff: Some("@@ -1 +1 @@\n-x\n+y\n".into()),
            }),
        ),
        Outcome::success(
            "text",
            Some(ResultDisplay::Text {
                text: "shown".into(),
            }),
        ),
        Outcome::success(
            "todos updated",
            Some(ResultDisplay::Todos {
                todos: vec![Todo {
                    id: "1".into(),
                    content: "write tests".into(),
                    status: TodoStatus::InProgress,
                    blocked_by: Vec::new(),
                }],
            }),
        ),
        Outcome::error(
            ErrorCode::EditNoOccurrenceFound,
            "could not find the string",
        )
        .with_error_message("peer text"),
        Outcome::awaiting_confirmation(Confirmation::Exec {
            title: "Confirm Shell Command".into(),
            command: "rm -rf build".into(),
            root_command: "rm".into(),
        }),
        Outcome::awaiting_confirmation(Confirmation::AskUserQuestion {
            title: "Please answer".into(),
            questions: vec![Question {
                question: "Which?".into(),
                header: "Pick".into(),
                options: vec![QuestionOption {
                    label: "a".into(),
                    description: "the first".into(),
                }],
                multi_select: true,
            }],
        }),
        Outcome::cancelled("cancelled by the user"),
        Outcome::success("big output, truncated", None)
            .with_persisted_output_path("/tmp/shell_1a2b.output")
            .with_result_file_paths(vec!["/tmp/a.output".into()]),
    ]
}

#[test]
fn requests_round_trip() {
    check_request::<method::Initialize>(InitializeParams::new(Implementation::new(
        "toolpass", "0.1.0",
    )));
    check_request::<method::SessionOpen>(SessionOpenParams::new("/sandbox/tp-1"));
    check_request::<method::SessionOpen>(SessionOpenParams {
        root: "/sandbox/tp-2".into(),
        config: SessionConfig {
            truncate_tool_output_threshold: Some(100),
            truncate_tool_output_lines: Some(10),
            tool_output_batch_budget: Some(1000),
            approval_mode: Some(ApprovalMode::AutoEdit),
            disabled_tools: vec!["web_fetch".into()],
            deferred_tools: Some(DeferredToolsModel::Reveal),
            mcp_servers: BTreeMap::from([(
                "fixture".into(),
                McpServerConfig {
                    command: "toolpass".into(),
                    args: vec!["mcp-fixture".into()],
                    env: BTreeMap::from([("A".into(), "1".into())]),
                    cwd: Some("/sandbox".into()),
                    timeout: Some(5000),
                    trust: Some(true),
                    include_tools: Some(vec!["echo".into()]),
                    exclude_tools: vec!["boom".into()],
                },
            )]),
            env: BTreeMap::from([("LANG".into(), "C".into())]),
        },
    });
    check_request::<method::ToolsList>(ToolsListParams::default());
    check_request::<method::ToolsList>(ToolsListParams {
        session_id: Some(session()),
        cursor: Some("page-2".into()),
    });
    check_request::<method::ToolsCall>(ToolsCallParams::new(
        "edit",
        object(json!({"file_path": "/sandbox/a.ts", "old_string": "x", "new_string": "y"})),
        CallContext {
            session_id: session(),
            call_id: "c1".into(),
        },
    ));
    check_request::<method::ToolsCall>(
        ToolsCallParams::new(
            "run_shell_command",
            object(json!({"command": "make"})),
            CallContext {
                session_id: session(),
                call_id: "c2".into(),
            },
        )
        .with_progress_token("c2"),
    );
    check_request::<method::Batch>(BatchParams {
        session_id: session(),
        calls: vec![
            BatchCall {
                call_id: "c1".into(),
                name: "read_file".into(),
                arguments: object(json!({"file_path": "/sandbox/a.ts"})),
            },
            BatchCall {
                call_id: "c2".into(),
                name: "list_directory".into(),
                arguments: Map::new(),
            },
        ],
    });
    check_request::<method::Confirm>(ConfirmParams {
        session_id: session(),
        call_id: "c3".into(),
        outcome: ConfirmOutcome::Modify,
        modified_content: Some("new text".into()),
        answers: BTreeMap::from([("0".into(), "a".into())]),
    });
    check_request::<method::Fault>(FaultParams {
        session_id: session(),
        point: FaultPoint::WriteBeforeCommit,
        times: 2,
        skip: 1,
    });
    check_request::<method::SessionClose>(SessionCloseParams {
        session_id: session(),
    });
}

#[test]
fn results_round_trip() {
    check_result::<method::Initialize>(InitializeResult::new(
        Implementation {
            name: "toolpass-reference".into(),
            version: "0.1.0".into(),
            website_url: Some("https://example.com/toolpass".into()),
            description: Some("grep_search: its bundled ripgrep".into()),
        },
        vec![
            Feature::Sessions,
            Feature::Fault(FaultPoint::FsStat),
            Feature::Unknown("teleport".into()),
        ],
    ));
    check_result::<method::SessionOpen>(SessionOpenResult {
        session_id: session(),
    });
    check_result::<method::ToolsList>(ToolsListResult {
        tools: vec![
            ToolDescriptor {
                name: "edit".into(),
                description: "Replaces text in a file.".into(),
                input_schema: object(json!({"type": "object", "properties": {}})),
                meta: Some(ToolDescriptorMeta {
                    toolpass: Some(ToolMeta {
                        kind: ToolKind::Edit,
                        deferred: false,
                        always_load: true,
                    }),
                }),
            },
            ToolDescriptor {
                name: "plain".into(),
                description: String::new(),
                input_schema: object(json!({"type": "object"})),
                meta: None,
            },
        ],
        next_cursor: None,
        meta: Some(ToolsListMeta {
            toolpass: Some(ToolsListExtra {
                deferred_tools: vec!["mcp__notes__read_note".into(), "task_stop".into()],
                deferred_reminder: Some("<system-reminder>\n…\n</system-reminder>".into()),
            }),
        }),
    });
    check_result::<method::ToolsList>(ToolsListResult {
        tools: Vec::new(),
        next_cursor: None,
        meta: None,
    });
    for outcome in every_outcome() {
        check_result::<method::ToolsCall>(outcome.clone());
        check_result::<method::Confirm>(outcome);
    }
    check_result::<method::Batch>(BatchResult {
        results: every_outcome(),
        budget: None,
    });
    check_result::<method::Batch>(BatchResult {
        results: every_outcome(),
        budget: Some(BatchBudget {
            budget: 200_000,
            before: 612_040,
            after: 199_998,
            reduced: 2,
        }),
    });
    check_result::<method::Fault>(EmptyResult {});
    check_result::<method::SessionClose>(EmptyResult {});
}

#[test]
fn notifications_round_trip() {
    check_notification::<method::Notice>(NoticeParams {
        session_id: session(),
        kind: "background_shell".into(),
        text: "Background command 1 finished with exit code 0.".into(),
        call_id: Some("c9".into()),
    });
    check_notification::<method::LogMessage>(LogMessageParams {
        level: LogLevel::Warning,
        logger: Some("mcp".into()),
        data: json!({"server": "fixture", "event": "disconnected"}),
    });
    check_notification::<method::Progress>(ProgressParams {
        progress_token: RequestId::from("c2"),
        progress: 2.0,
        total: None,
        message: Some("compiling\nlinking".into()),
    });
    check_notification::<method::Progress>(ProgressParams {
        progress_token: RequestId::Number(7),
        progress: 1.0,
        total: Some(3.0),
        message: None,
    });
    check_notification::<method::Cancelled>(CancelledParams {
        request_id: RequestId::Number(12),
        reason: Some("the user pressed Esc".into()),
    });
}

#[test]
fn a_progress_token_is_mcps_member_of_the_calls_meta() {
    let call = ToolsCallParams::new(
        "read_file",
        Map::new(),
        CallContext {
            session_id: session(),
            call_id: "c1".into(),
        },
    )
    .with_progress_token(5);
    let json = serde_json::to_value(&call).unwrap();
    assert_eq!(json["_meta"]["progressToken"], json!(5));
    assert_eq!(json["_meta"]["toolpass"]["callId"], json!("c1"));
    let read: ToolsCallParams = serde_json::from_value(json).unwrap();
    assert_eq!(read.progress_token(), Some(&RequestId::Number(5)));
    // A plain MCP call: a token and no toolpass member.
    let plain: ToolsCallParams =
        serde_json::from_value(json!({"name": "x", "_meta": {"progressToken": "t"}})).unwrap();
    assert_eq!(plain.progress_token(), Some(&RequestId::from("t")));
    assert_eq!(plain.context(), None);
}

#[test]
fn error_responses_round_trip() {
    let errors = [
        toolpass_protocol::ResponseError::method_not_found("toolpass/batch"),
        toolpass_protocol::ResponseError::unsupported_fault_point("mcp.disconnect"),
        toolpass_protocol::ResponseError::unknown_session("s404")
            .with_data(json!({"sessionId": "s404"})),
    ];
    for error in errors {
        let message =
            through_the_wire(Response::error(Some(RequestId::Number(3)), error.clone()).into());
        let Message::Response(response) = message else {
            panic!("not a response: {message:?}");
        };
        let decoded = response.decode::<method::ToolsCall>().unwrap_err();
        assert_eq!(decoded.kind(), toolpass_protocol::ErrorKind::ErrorResponse);
        assert_eq!(decoded.response(), Some(&error));
    }
    // A null id: the answer to a request whose id could not be read.
    through_the_wire(
        Response::error(
            None,
            toolpass_protocol::ResponseError::parse_error("bad line"),
        )
        .into(),
    );
}

#[test]
fn request_ids_keep_their_type() {
    for id in [
        RequestId::Number(0),
        RequestId::Number(-5),
        RequestId::Number(i64::MAX),
        RequestId::String("7".into()),
        RequestId::String(String::new()),
    ] {
        let message = through_the_wire(
            Request::new::<method::ToolsList>(id.clone(), &ToolsListParams::default()).into(),
        );
        let Message::Request(request) = message else {
            panic!("not a request");
        };
        assert_eq!(request.id, id);
    }
    assert_eq!(RequestId::Number(7).to_string(), "7");
    assert_eq!(RequestId::from("7").to_string(), "\"7\"");
}

#[test]
fn params_of_another_method_are_refused() {
    let request = Request::new::<method::ToolsList>(1, &ToolsListParams::default());
    let error = request.params::<method::ToolsCall>().unwrap_err();
    assert_eq!(error.code, toolpass_protocol::ResponseError::INVALID_PARAMS);
}

#[test]
fn absent_params_read_as_an_empty_object() {
    let request = Request {
        id: RequestId::Number(1),
        method: method::TOOLS_LIST.into(),
        params: None,
    };
    assert_eq!(
        request.params::<method::ToolsList>().unwrap(),
        ToolsListParams::default()
    );
    let close = Request {
        id: RequestId::Number(2),
        method: method::SESSION_CLOSE.into(),
        params: None,
    };
    let error = close.params::<method::SessionClose>().unwrap_err();
    assert!(error.message.contains("sessionId"), "{}", error.message);
}

#[test]
fn a_result_of_the_wrong_shape_is_an_invalid_result() {
    let response = Response {
        id: Some(RequestId::Number(1)),
        result: Ok(json!({"tools": "none"})),
    };
    let error = response.decode::<method::ToolsList>().unwrap_err();
    assert_eq!(error.kind(), toolpass_protocol::ErrorKind::InvalidResult);
    assert_eq!(error.to_string(), "invalid result for tools/list");
    assert!(std::error::Error::source(&error).is_some());
}
