//! toolpass's shapes are valid MCP: Outcomes against `CallToolResult`, tool
//! descriptors against `Tool`, the `tools/list` result against
//! `ListToolsResult`, the `initialize` result against `InitializeResult`, as
//! the MCP specification's schema (2025-11-25) defines them.

use serde::Serialize;
use serde_json::{Value, json};
use toolpass_protocol::{
    Confirmation, DiffStat, ErrorCode, FaultPoint, Feature, Implementation, InitializeResult,
    Outcome, ResultDisplay, Todo, TodoStatus, ToolDescriptor, ToolDescriptorMeta, ToolKind,
    ToolMeta, ToolsListExtra, ToolsListMeta, ToolsListResult,
};

const MCP_SCHEMA: &str = include_str!("../fixtures/mcp-2025-11-25.schema.json");

/// Validates `value` against the MCP definition `definition`.
fn check(definition: &str, value: &impl Serialize) {
    let mut schema: Value = serde_json::from_str(MCP_SCHEMA).unwrap();
    schema["$ref"] = json!(format!("#/$defs/{definition}"));
    let validator = jsonschema::validator_for(&schema).unwrap();
    let instance = serde_json::to_value(value).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not a valid MCP {definition}:\n{instance:#}\n{}",
        errors.join("\n")
    );
}

fn edit_tool() -> ToolDescriptor {
    ToolDescriptor {
        name: "edit".into(),
        description: "Replaces text within a file.".into(),
        input_schema: serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "old_string": {"type": "string"},
                "new_string": {"type": "string"}
            },
            "required": ["file_path", "old_string", "new_string"]
        }))
        .unwrap(),
        meta: Some(ToolDescriptorMeta {
            toolpass: Some(ToolMeta {
                kind: ToolKind::Edit,
                deferred: false,
                always_load: false,
            }),
        }),
    }
}

#[test]
fn the_fixture_is_a_valid_schema_that_rejects_garbage() {
    let mut schema: Value = serde_json::from_str(MCP_SCHEMA).unwrap();
    schema["$ref"] = json!("#/$defs/CallToolResult");
    let validator = jsonschema::validator_for(&schema).unwrap();
    // Guards against a fixture that accepts anything.
    assert!(!validator.is_valid(&json!({"content": "text"})));
    assert!(!validator.is_valid(&json!({"content": [{"type": "text"}]})));
}

#[test]
fn outcomes_are_call_tool_results() {
    let outcomes = [
        Outcome::success("done", None),
        Outcome::success(
            "updated",
            Some(ResultDisplay::Diff {
                path: "/sandbox/a.ts".into(),
                old: None,
                new: "x\n".into(),
                stat: DiffStat {
                    added_lines: 1,
                    removed_lines: 0,
                },
                user_stat: None,
                diff: None,
            }),
        ),
        Outcome::success(
            "todos",
            Some(ResultDisplay::Todos {
                todos: vec![Todo {
                    id: "1".into(),
                    content: "c".into(),
                    status: TodoStatus::Pending,
                    blocked_by: Vec::new(),
                }],
            }),
        ),
        Outcome::error(
            ErrorCode::EditExpectedOccurrenceMismatch,
            "found 2, expected 1",
        ),
        Outcome::awaiting_confirmation(Confirmation::Edit {
            title: "Confirm Edit: a.ts".into(),
            path: "/sandbox/a.ts".into(),
            diff: "@@ -1 +1 @@\n-x\n+y\n".into(),
            old: Some("x\n".into()),
            new: "y\n".into(),
        }),
        Outcome::cancelled("cancelled"),
        Outcome::success("", None).with_persisted_output_path("/tmp/x.output"),
    ];
    for outcome in &outcomes {
        check("CallToolResult", outcome);
    }
}

#[test]
fn tool_descriptors_are_tools() {
    check("Tool", &edit_tool());
    let mut bare = edit_tool();
    bare.meta = None;
    check("Tool", &bare);
    check(
        "ListToolsResult",
        &ToolsListResult {
            tools: vec![edit_tool(), bare],
            next_cursor: None,
            meta: Some(ToolsListMeta {
                toolpass: Some(ToolsListExtra {
                    deferred_tools: vec!["mcp__notes__read_note".into(), "task_stop".into()],
                    deferred_reminder: Some("<system-reminder>\n…\n</system-reminder>".into()),
                }),
            }),
        },
    );
}

#[test]
fn the_initialize_result_is_mcps() {
    let mut server = Implementation::new("toolpass-reference", "0.1.0");
    check(
        "InitializeResult",
        &InitializeResult::new(
            server.clone(),
            vec![Feature::Sessions, Feature::Fault(FaultPoint::FsStat)],
        ),
    );
    server.website_url = Some("https://example.com/toolpass".into());
    check(
        "InitializeResult",
        &InitializeResult::new(server, Vec::new()),
    );
}
