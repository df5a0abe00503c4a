//! Snapshots of a few serialized messages, so that a change to the wire
//! shows up in review as a diff of JSON (`cargo insta review` to accept).

use std::collections::BTreeMap;

use serde_json::json;
use toolpass_protocol::method;
use toolpass_protocol::{
    ApprovalMode, CallContext, DiffStat, ErrorCode, FaultPoint, Feature, Implementation,
    InitializeResult, Message, Outcome, Request, RequestId, Response, ResultDisplay, SessionConfig,
    SessionOpenParams, ToolDescriptor, ToolDescriptorMeta, ToolKind, ToolMeta, ToolsCallParams,
    ToolsListResult,
};

/// The message itself, not a `serde_json::Value`, so that the snapshot keeps
/// the wire's member order.
fn message(message: impl Into<Message>) -> Message {
    message.into()
}

#[test]
fn initialize_result() {
    let result = InitializeResult::new(
        Implementation::new("toolpass-reference", "0.1.0"),
        vec![
            Feature::Sessions,
            Feature::PriorRead,
            Feature::Fault(FaultPoint::FsStat),
            Feature::Fault(FaultPoint::WriteBeforeCommit),
        ],
    );
    insta::assert_json_snapshot!(message(Response::ok::<method::Initialize>(
        RequestId::Number(1),
        &result
    )));
}

#[test]
fn session_open_with_config() {
    let params = SessionOpenParams {
        root: "/sandbox/tp-1a2b".into(),
        config: SessionConfig {
            truncate_tool_output_threshold: Some(1000),
            approval_mode: Some(ApprovalMode::Default),
            disabled_tools: vec!["web_fetch".into()],
            env: BTreeMap::from([("LANG".into(), "C".into())]),
            ..SessionConfig::default()
        },
    };
    insta::assert_json_snapshot!(message(Request::new::<method::SessionOpen>(2, &params)));
}

#[test]
fn tools_call() {
    let params = ToolsCallParams::new(
        "edit",
        serde_json::from_value(
            json!({"file_path": "/sandbox/tp-1a2b/a.ts", "old_string": "x", "new_string": "y"}),
        )
        .unwrap(),
        CallContext {
            session_id: "s1".into(),
            call_id: "c1".into(),
        },
    );
    insta::assert_json_snapshot!(message(Request::new::<method::ToolsCall>(3, &params)));
}

#[test]
fn tools_list_result() {
    let result = ToolsListResult {
        tools: vec![ToolDescriptor {
            name: "read_file".into(),
            description: "Reads a file.".into(),
            input_schema: serde_json::from_value(json!({
                "type": "object",
                "properties": {"file_path": {"type": "string"}},
                "required": ["file_path"]
            }))
            .unwrap(),
            meta: Some(ToolDescriptorMeta {
                toolpass: Some(ToolMeta {
                    kind: ToolKind::Read,
                    deferred: false,
                    always_load: true,
                }),
            }),
        }],
        next_cursor: None,
        meta: None,
    };
    insta::assert_json_snapshot!(message(Response::ok::<method::ToolsList>(
        RequestId::Number(4),
        &result
    )));
}

#[test]
fn success_outcome_with_a_diff() {
    let outcome = Outcome::success(
        "The file: /sandbox/tp-1a2b/a.ts has been updated.",
        Some(ResultDisplay::Diff {
            path: "/sandbox/tp-1a2b/a.ts".into(),
            old: Some("const s = \"hello\";\n".into()),
            new: "const s = \"bye\";\n".into(),
            stat: DiffStat {
                added_lines: 1,
                removed_lines: 1,
            },
            user_stat: None,
            diff: None,
        }),
    );
    insta::assert_json_snapshot!(outcome);
}

#[test]
fn error_outcome() {
    let outcome = Outcome::error(
        ErrorCode::EditRequiresPriorRead,
        "File /sandbox/tp-1a2b/a.ts has not been fully read in this session.",
    );
    insta::assert_json_snapshot!(outcome);
}
