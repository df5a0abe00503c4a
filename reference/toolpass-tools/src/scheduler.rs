//! What Qwen's `CoreToolScheduler` does around one call, minus the model
//! loop: find the tool, build the invocation (a build failure is the bare
//! message, as `createErrorResponse` sends it), run it, and replace an empty
//! output with Qwen's "completed with no output" marker.

use serde_json::Value;

use crate::result::ToolResult;
use crate::session::Session;

/// The canonical code for an unknown tool.
pub const TOOL_NOT_REGISTERED: &str = "tool_not_registered";

/// Runs the tool `name` with `arguments` in `session`.
#[must_use]
pub fn execute_call(session: &Session, name: &str, arguments: &Value) -> ToolResult {
    let Some(tool) = session.registry().get(name).cloned() else {
        let message = tool_not_found_message(session, name);
        return ToolResult::failure(TOOL_NOT_REGISTERED, message.clone(), &message);
    };
    tracing::debug!(tool = name, "call");
    let mut result = match tool.build(arguments, session) {
        Ok(invocation) => invocation.execute(session),
        Err(error) => error.into_result(),
    };
    // Qwen's `truncateLlmContent`: the model is never handed an empty
    // result, which it could mistake for a lost one.
    if !result.is_error() && result.llm_content.trim().is_empty() {
        result.llm_content = format!("({name} completed with no output)");
    }
    result
}

/// Qwen's `getToolNotFoundMessage`: the three declared names closest by
/// Levenshtein distance.
fn tool_not_found_message(session: &Session, name: &str) -> String {
    let mut names: Vec<(usize, &str)> = session
        .registry()
        .declarations()
        .map(|t| (levenshtein(name, t.name()), t.name()))
        .collect();
    // A stable sort by distance alone keeps declaration order among ties,
    // as JavaScript's sort does.
    names.sort_by_key(|(distance, _)| *distance);
    let top: Vec<String> = names
        .iter()
        .take(3)
        .map(|(_, n)| format!("\"{n}\""))
        .collect();
    let suggestion = match top.len() {
        0 => String::new(),
        1 => format!(" Did you mean {}?", top.join(", ")),
        _ => format!(" Did you mean one of: {}?", top.join(", ")),
    };
    format!(
        "Tool \"{name}\" not found in registry. Tools must use the exact names that are registered.{suggestion}"
    )
}

/// Edit distance between two names, by characters.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = i;
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let (Some(&left), Some(&above)) = (row.get(j), row.get(j + 1)) else {
                break;
            };
            let value = (above + 1)
                .min(left + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levenshtein_counts_edits() {
        assert_eq!(levenshtein("edit", "edit"), 0);
        assert_eq!(levenshtein("edti", "edit"), 2);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("abc", ""), 3);
        assert_eq!(levenshtein("read_fle", "read_file"), 1);
    }

    #[test]
    fn unknown_tools_get_suggestions_and_empty_output_gets_a_marker() {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(dir.path(), crate::session::SessionConfig::default()).unwrap();
        let result = execute_call(&session, "edti", &serde_json::json!({}));
        assert_eq!(
            result.error.as_ref().map(|e| e.code),
            Some(TOOL_NOT_REGISTERED)
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

        std::fs::write(dir.path().join("empty.txt"), "").unwrap();
        let path = session.sandbox().root().join("empty.txt");
        let result = execute_call(
            &session,
            "read_file",
            &serde_json::json!({"file_path": path}),
        );
        assert!(!result.is_error(), "{}", result.llm_content);
        assert!(!result.llm_content.trim().is_empty());
    }
}
