//! The scheduler's own treatment of a call: its errors, its markers, its
//! budget, and the classifier input through `tool_call`.

use super::*;

/// A session with the tools these tests call, and `edit` for the
/// suggestions.
fn session(config: crate::session::SessionConfig) -> (tempfile::TempDir, Session) {
    use crate::tool::Declared;
    use crate::tools::{edit::EditTool, grep_search::GrepTool, read_file::ReadFileTool};
    let tools: Vec<std::sync::Arc<dyn Tool>> = vec![
        std::sync::Arc::new(Declared::<ReadFileTool>::default()),
        std::sync::Arc::new(Declared::<EditTool>::default()),
        std::sync::Arc::new(Declared::<GrepTool>::default()),
    ];
    let dir = tempfile::tempdir().unwrap();
    let session = Session::new(dir.path(), config, tools).unwrap();
    (dir, session)
}

#[test]
fn through_tool_call_the_classifier_sees_the_target_and_its_projection() {
    let empty = through_tool_call("cron_create", Map::new());
    assert_eq!(
        Value::Object(empty),
        serde_json::json!({"name": "cron_create"})
    );
    let mut input = Map::new();
    input.insert("to".to_owned(), Value::from("bob"));
    assert_eq!(
        Value::Object(through_tool_call("send_message", input)),
        serde_json::json!({"name": "send_message", "arguments": {"to": "bob"}})
    );
}

#[test]
fn a_failed_call_reaches_the_model_as_its_error_message() {
    let (_dir, session) = session(crate::session::SessionConfig::default());
    let path = session.sandbox().root().join("nope.txt");
    let result = execute_call(
        &session,
        "read_file",
        &serde_json::json!({"file_path": path}),
    )
    .result;
    // read_file's own llmContent is "Could not read file because no file
    // was found at the specified path."; Qwen's scheduler sends the
    // message instead.
    assert_eq!(
        result.llm_content,
        format!("File not found: {}", path.display())
    );
}

#[test]
fn unknown_tools_get_suggestions_and_empty_output_gets_a_marker() {
    let (_dir, session) = session(crate::session::SessionConfig::default());
    let result = execute_call(&session, "edti", &serde_json::json!({})).result;
    assert_eq!(
        result.error.as_ref().map(|e| e.code),
        Some(ToolErrorCode::ToolNotRegistered)
    );
    assert!(
        result
            .llm_content
            .starts_with("Tool \"edti\" not found in registry.")
    );
    assert!(
        result.llm_content.contains("\"edit\""),
        "{}",
        result.llm_content
    );

    let path = session.sandbox().root().join("empty.txt");
    std::fs::write(&path, "").unwrap();
    let result = execute_call(
        &session,
        "read_file",
        &serde_json::json!({"file_path": path}),
    )
    .result;
    assert!(!result.is_error(), "{}", result.llm_content);
    assert!(!result.llm_content.trim().is_empty());
}

#[test]
fn output_over_the_tools_budget_is_spilled_privately_and_readable() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, session) = session(crate::session::SessionConfig::default());
    let root = session.sandbox().root().to_owned();
    // About 24 000 characters of grep output: within grep's own 25 000
    // cap, over its 20 000-character scheduler budget.
    let text: String = (0..300)
        .map(|i| format!("needle line {i:04} {}\n", "x".repeat(60)))
        .collect();
    std::fs::write(root.join("big.txt"), text).unwrap();
    let call = execute_call(
        &session,
        "grep_search",
        &serde_json::json!({"pattern": "needle", "path": root}),
    );
    let path = call.persisted_output_path.expect("spilled");
    let stub = &call.result.llm_content;
    assert!(
        stub.starts_with(toolpass_core::truncate::TOOL_OUTPUT_TRUNCATED_PREFIX),
        "{stub}"
    );
    assert!(stub.contains(&path.display().to_string()));
    assert!(stub.encode_utf16().count() < 21_000, "{}", stub.len());
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // The model can fetch the full output with read_file, though the
    // spill directory is outside the workspace root.
    let full = execute_call(
        &session,
        "read_file",
        &serde_json::json!({"file_path": path}),
    )
    .result;
    assert!(!full.is_error(), "{}", full.llm_content);
    assert!(
        full.llm_content.contains("needle line 0150"),
        "{}",
        full.llm_content
    );
}
