//! `todo_write` through the scheduler: Qwen's answers, the list kept
//! between calls, and its kind.

use serde_json::{Value, json};

use toolpass_tools::config::SessionConfig;
use toolpass_tools::kind::Kind;
use toolpass_tools::result::{Display, ToolResult};
use toolpass_tools::scheduler::execute_call;
use toolpass_tools::session::Session;
use toolpass_tools::tool::{Declared, Tool};
use toolpass_tools::tools::todo_write::TodoWriteTool;

fn session() -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    let tools: Vec<std::sync::Arc<dyn Tool>> =
        vec![std::sync::Arc::new(Declared::<TodoWriteTool>::default())];
    let session = Session::new(dir.path(), SessionConfig::default(), tools).unwrap();
    (dir, session)
}

fn write(session: &Session, todos: Value) -> ToolResult {
    execute_call(session, "todo_write", &json!({"todos": todos})).result
}

fn item(id: &str, status: &str) -> Value {
    json!({"id": id, "content": format!("do {id}"), "status": status})
}

/// Qwen's answer to a list that is already the kept one.
fn assert_unchanged(result: &ToolResult) {
    assert!(
        result
            .llm_content
            .starts_with("Todo list is already up to date."),
        "{}",
        result.llm_content
    );
}

#[test]
fn think_writes_so_it_never_runs_beside_another_call() {
    let tool = Declared::<TodoWriteTool>::default();
    assert_eq!(tool.kind(), Kind::Think);
    assert!(!tool.kind().is_concurrency_safe());
    assert!(!tool.kind().is_mutator());
}

#[test]
fn a_write_reports_the_list_and_a_repeat_is_already_up_to_date() {
    let (_dir, session) = session();
    let todos = json!([item("1", "in_progress"), item("2", "pending")]);
    let first = write(&session, todos.clone());
    assert!(!first.is_error(), "{}", first.llm_content);
    assert!(
        first.llm_content.contains(&format!(
            "list:\n\n{}. Continue on",
            serde_json::to_string(&todos).unwrap()
        )),
        "{}",
        first.llm_content
    );
    assert!(matches!(&first.display, Display::Todos(items) if items.len() == 2));
    assert_unchanged(&write(&session, todos));
    let cleared = write(&session, json!([]));
    assert!(
        cleared
            .llm_content
            .starts_with("Todo list has been cleared.")
    );
}

#[test]
fn an_update_keeps_the_dependencies_it_leaves_out() {
    let (_dir, session) = session();
    let first = json!([
        item("a", "in_progress"),
        {"id": "b", "content": "do b", "status": "pending", "blockedBy": ["a"]}
    ]);
    write(&session, first.clone());
    // The same list without b's blockedBy: the stored one is kept, so
    // nothing changed.
    assert_unchanged(&write(
        &session,
        json!([item("a", "in_progress"), item("b", "pending")]),
    ));
}

#[test]
fn invalid_lists_are_refused_before_anything_is_written() {
    let (_dir, session) = session();
    let refused = write(
        &session,
        json!([item("1", "pending"), item("1", "completed")]),
    );
    assert_eq!(
        refused.llm_content,
        "Todo IDs must be unique within the array."
    );
    assert!(refused.is_error());
    // Nothing was stored: a valid first write is a change.
    let ok = write(&session, json!([item("1", "pending")]));
    assert!(ok.llm_content.starts_with("Todos have been modified"));
}
