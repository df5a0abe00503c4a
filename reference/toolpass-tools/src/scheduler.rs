//! What Qwen's `CoreToolScheduler` does around one call, minus the model
//! loop: find the tool, build the invocation (a build failure is the bare
//! message, as `createErrorResponse` sends it), run it (a failure reaches
//! the model as its error message, as Qwen's scheduler sends it), replace an empty
//! output with Qwen's "completed with no output" marker, and hold the output
//! to its budget: the tool's own `maxOutputChars` with no line cap, or the
//! session's threshold and line cap.
//!
//! An output over budget is written in full to the session's spill
//! directory (mode 0600: outputs can hold secrets) and the model gets Qwen's
//! truncated stub with the file's path, unless the stub would not be shorter.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;
use toolpass_core::truncate::{Keep, Limits, truncate};

use crate::error_code::ToolErrorCode;
use crate::result::{Failure, ToolResult};
use crate::session::Session;
use crate::tool::Tool;

/// One call's result, with where its full output went when it was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutcome {
    /// What the tool produced, after the scheduler's treatment.
    pub result: ToolResult,
    /// The spill file holding the untruncated output.
    pub persisted_output_path: Option<PathBuf>,
}

/// Runs the tool `name` with `arguments` in `session`.
#[must_use]
pub fn execute_call(session: &Session, name: &str, arguments: &Value) -> CallOutcome {
    let Some(tool) = session.registry().get(name).cloned() else {
        let message = tool_not_found_message(session, name);
        return CallOutcome {
            result: Failure::new(ToolErrorCode::ToolNotRegistered, &message)
                .error_display(&message)
                .into(),
            persisted_output_path: None,
        };
    };
    tracing::debug!(tool = name, "call");
    let mut result = match tool.build(arguments, session) {
        Ok(invocation) => invocation.execute(session),
        Err(error) => Err(error.into()),
    }
    .unwrap_or_else(ToolResult::from);
    // Qwen's scheduler answers a failed call with the error's message, not
    // the tool's llmContent (`createErrorResponse(new Error(
    // toolResult.error.message))` in coreToolScheduler.ts): that message is
    // what the model reads.
    if let Some(failure) = &result.error
        && failure.message != result.llm_content
    {
        result.llm_content = failure.message.clone();
    }
    // Qwen's `truncateLlmContent`: the model is never handed an empty
    // result, which it could mistake for a lost one.
    if !result.is_error() && result.llm_content.trim().is_empty() {
        result.llm_content = format!("({name} completed with no output)");
    }
    let persisted_output_path = if result.is_error() {
        None
    } else {
        hold_to_budget(session, tool.as_ref(), &mut result.llm_content)
    };
    CallOutcome {
        result,
        persisted_output_path,
    }
}

/// Qwen's `truncateLlmContent` with the scheduler's per-tool limits: cuts
/// `content` to its budget and returns the spill file, if one was written.
fn hold_to_budget(session: &Session, tool: &dyn Tool, content: &mut String) -> Option<PathBuf> {
    let limits = match tool.max_output_chars() {
        Some(max) => Limits {
            threshold: max,
            lines: None,
            keep: Keep::Both,
            preview_chars: None,
        },
        None => Limits {
            threshold: session.config().truncate_threshold,
            lines: Some(session.config().truncate_lines),
            keep: Keep::Both,
            preview_chars: None,
        },
    };
    let plan = truncate(content, &limits)?;
    let unsaved = plan.unsaved_message();
    let dir = match session.spill_dir() {
        Ok(dir) => dir,
        Err(e) => {
            tracing::warn!("could not make the spill directory: {e}");
            *content = unsaved;
            return None;
        }
    };
    let path = spill_path(dir, tool.name());
    // `None`: the stub would not be shorter than the output, so it stays.
    let stub = plan.wrapped_message(&path.display().to_string())?;
    match write_private(&path, content.as_bytes()) {
        Ok(()) => {
            *content = stub;
            Some(path)
        }
        Err(e) => {
            tracing::warn!("could not spill {}: {e}", path.display());
            *content = unsaved;
            None
        }
    }
}

/// `<tool>_<hex>.output` in the spill directory, like Qwen's
/// `truncateToolOutput`; the tool name is reduced to safe characters so it
/// can never name another directory.
fn spill_path(dir: &Path, tool: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let safe: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let id = NEXT.fetch_add(1, Ordering::Relaxed) ^ u64::from(std::process::id()) << 32;
    dir.join(format!("{safe}_{id:012x}.output"))
}

/// Creates `path` readable and writable by the owner only (beyond Qwen,
/// which sets the mode on write but does not refuse an existing file).
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)
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
}
